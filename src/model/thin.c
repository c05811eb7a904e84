/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/thin.c - thin pools and thin LVs in the model, laid out as LVM2 2.03 keeps
 * them (facts from lib/metadata/thin_manip.c, pool_manip.c, lib/thin/thin.c; see
 * docs/dm-formats.md §9):
 *
 *   <pool>          READ WRITE VISIBLE, one segment `type = "thin-pool"` with
 *                   metadata, pool, transaction_id, chunk_size, discards,
 *                   zero_new_blocks; as many extents as its data LV;
 *   <pool>_tdata    READ WRITE (hidden), the data, linear/striped;
 *   <pool>_tmeta    READ WRITE (hidden), the kernel's pool metadata;
 *   lvol0_pmspare   READ WRITE (hidden), one per VG, as large as the largest pool
 *                   metadata LV (at most 16 GiB), for `lvconvert --repair`;
 *   <thin>          READ WRITE VISIBLE, one segment `type = "thin"` with thin_pool,
 *                   transaction_id (the pool's when it was made), device_id (the
 *                   highest id of the pool + 1), origin for a thin snapshot,
 *                   merge (= origin) while the snapshot's merge waits for the
 *                   origin's next activation (LVM2: the snapshot is hidden then).
 *
 * A thin merge ends as LVM2's thin_merge_finish: the snapshot takes the origin's
 * name, UUID and attributes, the origin (now with the snapshot's) is removed and its
 * other snapshots become plain thin LVs.
 *
 * The pool's transaction_id counts the pool messages LVM2 has sent (create_thin,
 * create_snap, delete): each moves it on by one, and the kernel's pool metadata keeps
 * the same number (set_transaction_id).
 *
 * Pool parameters follow LVM2's update_thin_pool_params: the default chunk is 64 KiB,
 * doubled while the metadata estimate (64 bytes per chunk) exceeds 128 MiB; the
 * metadata size is that estimate rounded up to extents, at least 2 MiB, at most
 * 255 x 16320 blocks of 4 KiB (with allocation/thin_pool_crop_metadata=1: 255 x 16384
 * blocks less 128 MiB); a given metadata size picks the chunk instead, a given metadata
 * LV is never cut (the kernel uses what it can of it).  Metadata above the smaller max
 * makes the pool say "crop_metadata = 0|1" (the setting), and with 0 also
 * "+CROP_METADATA" in its type at once (LVM2 adds that flag whenever it reads the key);
 * with 1 the _tmeta's dm table stops at that max (lvx_lv_table_limit).
 */
#include "model/thin.h"

#include <stdio.h>
#include <string.h>

static uint64_t estimate(uint64_t data_extents, uint32_t extent_size, uint64_t size)
{
    return data_extents * extent_size / (size * (512 / 64));
}

uint32_t lvx_thin_estimate_chunk(uint64_t data_extents, uint32_t extent_size, uint64_t meta_sectors)
{
    const uint64_t big = 2 * 1024 - 1;      /* 1 MiB alignment for large chunks */
    uint64_t c = estimate(data_extents, extent_size, meta_sectors ? meta_sectors : 1);
    if (c > big)
        c = (c + big) & ~big;
    else {
        uint64_t p = 1;
        while (p < c)
            p <<= 1;
        c = p;
    }
    if (c < LVX_THIN_MIN_CHUNK)
        c = LVX_THIN_MIN_CHUNK;
    if (c > LVX_THIN_MAX_CHUNK)
        c = LVX_THIN_MAX_CHUNK;
    return (uint32_t)c;
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
    return (v + to - 1) / to * to;
}

uint64_t lvx_thin_max_meta(bool crop_config)
{
    return crop_config ? LVX_THIN_MAX_META_CROP : LVX_THIN_MAX_META;
}

enum lvx_thin_crop lvx_thin_crop_for(bool crop_config, uint64_t meta_sectors)
{
    if (meta_sectors <= LVX_THIN_MAX_META_CROP)
        return LVX_THIN_CROP_NONE;
    return crop_config ? LVX_THIN_CROP_YES : LVX_THIN_CROP_NO;
}

int lvx_thin_pool_params(uint64_t data_extents, uint32_t extent_size, struct lvx_thin_params *p)
{
    uint64_t meta, max_meta = lvx_thin_max_meta(p->crop_config);
    p->chunk_too_small = false;
    p->meta_too_small = false;
    p->meta_clamped_from = 0;
    if (!p->meta_extents) {
        if (!p->chunk) {
            p->chunk = p->start_chunk ? p->start_chunk : LVX_THIN_DEFAULT_CHUNK;
            meta = estimate(data_extents, extent_size, p->chunk);
            while (meta > LVX_THIN_OPTIMAL_META && p->chunk < LVX_THIN_MAX_CHUNK) {
                p->chunk <<= 1;
                meta >>= 1;
            }
        } else {
            meta = estimate(data_extents, extent_size, p->chunk);
            if (meta > max_meta) {
                p->chunk_too_small = true;
                p->suggested_chunk = lvx_thin_estimate_chunk(data_extents, extent_size, max_meta);
            }
        }
        meta = round_up(meta ? meta : 1, extent_size);
    } else {
        meta = p->meta_extents * extent_size;
        uint32_t est = lvx_thin_estimate_chunk(data_extents, extent_size, meta);
        if (!p->chunk)
            p->chunk = est;
        else if (p->chunk < est) {
            p->chunk_too_small = true;
            p->suggested_chunk = est;
        }
    }
    uint64_t max = round_up(max_meta, extent_size);
    uint64_t min = round_up(LVX_THIN_MIN_META, extent_size);
    p->meta_max = max;
    if (p->meta_lv && meta > max) {
        p->meta_clamped_from = meta;        /* told, kept: the kernel uses what it can */
    } else if (p->meta_lv && meta < min) {
        p->meta_too_small = true;
        p->meta_clamped_from = meta;
        meta = min;
    } else if (meta > max || meta < min) {
        if (p->meta_extents)
            p->meta_clamped_from = meta;
        meta = meta > max ? max : min;
    }
    p->crop = lvx_thin_crop_for(p->crop_config, meta);
    p->meta_extents = (meta + extent_size - 1) / extent_size;
    p->max_data_sectors = max_meta * p->chunk * (512 / 64);
    if (p->max_data_sectors / extent_size < data_extents)
        return -22;    /* -EINVAL */
    return 0;
}

void lvx_thin_pool_set_crop(struct lvx_seg *seg, enum lvx_thin_crop crop, bool flag)
{
    seg->crop_metadata = crop;
    if (flag && !strstr(seg->type, "+CROP_METADATA"))
        seg->type = "thin-pool+CROP_METADATA";
}

uint64_t lvx_lv_table_limit(const struct lvx_lv *lv)
{
    const char *role = NULL;
    const struct lvx_seg *user = lvx_lv_used_by(lv, &role);
    if (user && user->kind == LVX_SEG_THIN_POOL && role && !strcmp(role, "tmeta") &&
        user->crop_metadata == LVX_THIN_CROP_YES)
        return LVX_THIN_MAX_META_CROP;
    return UINT64_MAX;
}

struct lvx_seg *lvx_lv_thin_pool_seg(const struct lvx_lv *lv)
{
    if (lv && lv->seg_count == 1 && lv->segs[0].kind == LVX_SEG_THIN_POOL)
        return &lv->segs[0];
    return NULL;
}

struct lvx_seg *lvx_lv_thin_seg(const struct lvx_lv *lv)
{
    if (lv && lv->seg_count >= 1 && lv->segs[0].kind == LVX_SEG_THIN)
        return &lv->segs[0];
    return NULL;
}

bool lvx_lv_is_thin_pool(const struct lvx_lv *lv)
{
    return lvx_lv_thin_pool_seg(lv) != NULL;
}

bool lvx_lv_is_thin(const struct lvx_lv *lv)
{
    return lvx_lv_thin_seg(lv) != NULL;
}

bool lvx_lv_thin_pool_private(const struct lvx_lv *lv)
{
    const struct lvx_seg *s = lvx_lv_thin_pool_seg(lv);
    return s && s->transaction_id != 0;
}

unsigned lvx_thin_pool_users(const struct lvx_lv *pool, struct lvx_lv **out, unsigned max)
{
    unsigned n = 0;
    const struct lvx_vg *vg = pool->vg;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_seg *s = lvx_lv_thin_seg(vg->lvs[i]);
        if (s && s->pool_lv == pool) {
            if (out && n < max)
                out[n] = vg->lvs[i];
            n++;
        }
    }
    return n;
}

uint32_t lvx_thin_free_device_id(const struct lvx_lv *pool)
{
    uint32_t high = 0;
    const struct lvx_vg *vg = pool->vg;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_seg *s = lvx_lv_thin_seg(vg->lvs[i]);
        if (s && s->pool_lv == pool && s->device_id > high)
            high = s->device_id;
    }
    return high + 1 > LVX_THIN_MAX_DEVICE_ID ? 0 : high + 1;
}

struct lvx_lv *lvx_vg_pmspare(const struct lvx_vg *vg)
{
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const char *n = vg->lvs[i]->name;
        size_t len = n ? strlen(n) : 0;
        if (len > 8 && !strcmp(n + len - 8, "_pmspare") && !(vg->lvs[i]->status & LVX_LV_VISIBLE))
            return vg->lvs[i];
    }
    return NULL;
}

uint64_t lvx_vg_pmspare_wanted(const struct lvx_vg *vg, uint64_t at_least)
{
    uint64_t e = vg->extent_size, max = (LVX_THIN_SPARE_MAX_SECTORS + e - 1) / e;
    uint64_t want = at_least;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_seg *s = lvx_lv_thin_pool_seg(vg->lvs[i]);
        if (s && s->metadata_lv && s->metadata_lv->le_count > want)
            want = s->metadata_lv->le_count;
    }
    return want > max ? max : want;
}

static struct lvx_seg *one_seg(struct lvx_vg *vg, struct lvx_lv *lv, uint64_t le, const char *type,
                               enum lvx_seg_kind kind)
{
    lv->seg_count = 1;
    lv->le_count = le;
    lv->segs = lvx_pool_alloc(vg->pool, sizeof(*lv->segs));
    memset(lv->segs, 0, sizeof(*lv->segs));
    struct lvx_seg *seg = &lv->segs[0];
    seg->lv = lv;
    seg->extent_count = le;
    seg->type = seg->type_name = type;
    seg->kind = kind;
    return seg;
}

void lvx_vg_make_thin_pool(struct lvx_vg *vg, struct lvx_lv *pool, struct lvx_lv *tdata,
                           struct lvx_lv *tmeta, uint32_t chunk, const char *discards, bool zero)
{
    tdata->name = lvx_pool_printf(vg->pool, "%s_tdata", pool->name);
    tmeta->name = lvx_pool_printf(vg->pool, "%s_tmeta", pool->name);
    tdata->status &= ~LVX_LV_VISIBLE;
    tmeta->status &= ~LVX_LV_VISIBLE;
    struct lvx_seg *seg = one_seg(vg, pool, tdata->le_count, "thin-pool", LVX_SEG_THIN_POOL);
    seg->chunk_size = chunk;
    seg->metadata_lv = tmeta;
    seg->data_lv = tdata;
    seg->area_count = 1;
    seg->areas = lvx_pool_alloc(vg->pool, sizeof(*seg->areas));
    memset(seg->areas, 0, sizeof(*seg->areas));
    seg->areas[0].lv = tdata;
    seg->has_thin_ids = true;
    seg->transaction_id = 0;
    seg->discards = discards;
    seg->zero_new_blocks = zero;
}

void lvx_vg_make_thin(struct lvx_vg *vg, struct lvx_lv *thin, struct lvx_lv *pool, uint64_t le,
                      struct lvx_lv *origin)
{
    struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    uint32_t id = lvx_thin_free_device_id(pool);
    struct lvx_seg *seg = one_seg(vg, thin, le, "thin", LVX_SEG_THIN);
    seg->pool_lv = pool;
    const struct lvx_seg *os = origin ? lvx_lv_thin_seg(origin) : NULL;
    if (os && os->pool_lv == pool) {        /* a thin snapshot keeps the external origin */
        seg->origin_lv = origin;
        seg->external_lv = os->external_lv;
    } else if (origin) {                    /* LVM2's attach_thin_external_origin */
        seg->external_lv = origin;
        origin->status &= ~LVX_LV_WRITE;
    }
    seg->has_thin_ids = true;
    seg->device_id = id;
    seg->transaction_id = ps->transaction_id++;
}

void lvx_thin_pool_queue(struct lvx_vg *vg, struct lvx_seg *ps, struct lvx_lv *create,
                         uint32_t delete_id)
{
    struct lvx_thin_msg *m = lvx_pool_alloc(vg->pool, (ps->msg_count + 1) * sizeof(*m));
    if (ps->msg_count)
        memcpy(m, ps->msgs, ps->msg_count * sizeof(*m));
    else
        ps->transaction_id++;
    m[ps->msg_count].create = create;
    m[ps->msg_count].delete_id = create ? 0 : delete_id;
    ps->msgs = m;
    ps->msg_count++;
}

void lvx_thin_pool_msg_text(const struct lvx_seg *ps, unsigned i, char *buf, size_t size)
{
    const struct lvx_thin_msg *m = &ps->msgs[i];
    const struct lvx_seg *ts = m->create ? lvx_lv_thin_seg(m->create) : NULL;
    const struct lvx_seg *os = ts && ts->origin_lv ? lvx_lv_thin_seg(ts->origin_lv) : NULL;
    if (os)
        snprintf(buf, size, "create_snap %u %u", ts->device_id, os->device_id);
    else if (ts)
        snprintf(buf, size, "create_thin %u", ts->device_id);
    else
        snprintf(buf, size, "delete %u", m->delete_id);
}

bool lvx_lv_is_external_origin(const struct lvx_lv *lv)
{
    const struct lvx_vg *vg = lv->vg;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_seg *s = lvx_lv_thin_seg(vg->lvs[i]);
        if (s && s->external_lv == lv)
            return true;
    }
    return false;
}

struct lvx_seg *lvx_thin_merging_into(const struct lvx_lv *origin)
{
    const struct lvx_vg *vg = origin->vg;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_seg *s = lvx_lv_thin_seg(vg->lvs[i]);
        if (s && s->merging && s->origin_lv == origin)
            return s;
    }
    return NULL;
}

uint32_t lvx_thin_table_device_id(const struct lvx_lv *thin)
{
    const struct lvx_seg *s = lvx_lv_thin_seg(thin);
    if (!s)
        return 0;
    const struct lvx_seg *m = lvx_thin_merging_into(thin);
    return m ? m->device_id : s->device_id;
}

void lvx_thin_detach_snapshots(struct lvx_lv *origin)
{
    const struct lvx_vg *vg = origin->vg;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_seg *s = lvx_lv_thin_seg(vg->lvs[i]);
        if (s && s->origin_lv == origin) {
            s->origin_lv = NULL;
            s->merging = false;
        }
    }
}

void lvx_thin_merge_swap(struct lvx_lv *origin, struct lvx_lv *snap)
{
    const char *name = origin->name;
    char uuid[sizeof(origin->uuid)];
    origin->name = snap->name;
    snap->name = name;
    memcpy(uuid, origin->uuid, sizeof(uuid));
    memcpy(origin->uuid, snap->uuid, sizeof(uuid));
    memcpy(snap->uuid, uuid, sizeof(uuid));

    snap->status = origin->status;
    snap->flags = origin->flags;
    snap->flags_extra = origin->flags_extra;
    snap->alloc = origin->alloc;
    snap->profile = origin->profile;
    snap->has_read_ahead = origin->has_read_ahead;
    snap->read_ahead = origin->read_ahead;
    snap->has_major = origin->has_major;
    snap->has_minor = origin->has_minor;
    snap->major = origin->major;
    snap->minor = origin->minor;
    snap->has_creation = origin->has_creation;
    snap->creation_time = origin->creation_time;
    snap->creation_host = origin->creation_host;
    snap->tags = origin->tags;
    origin->tags = (struct lvx_strlist){ 0 };
    struct lvx_seg *s = lvx_lv_thin_seg(snap);
    if (s)
        s->merging = false;
}
