/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/props.c - facts the report fields derive from a VG: which segment uses
 * each LV and in which role, classic/thin snapshot relations, visibility (with the
 * snapshot rule of lvm2-format.md §10.4), allocated extents per PV, the lv_attr
 * string.  Computed once per VG by lvx_report_rvg_build().
 */
#include "report/report_int.h"
#include "format/cfg.h"
#include "format/label.h"
#include "model/raid.h"

#include <string.h>

static unsigned lv_slot(const struct lvx_vg *vg, const struct lvx_lv *lv)
{
    if (lv->index < vg->lv_count && vg->lvs[lv->index] == lv)
        return lv->index;
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (vg->lvs[i] == lv)
            return i;
    return UINT32_MAX;
}

static unsigned pv_slot(const struct lvx_vg *vg, const struct lvx_pv *pv)
{
    if (pv->index < vg->pv_count && vg->pvs[pv->index] == pv)
        return pv->index;
    for (unsigned i = 0; i < vg->pv_count; i++)
        if (vg->pvs[i] == pv)
            return i;
    return UINT32_MAX;
}

static struct lvx_rlv *rlv_of(struct lvx_rvg *rvg, const struct lvx_lv *lv)
{
    if (!lv)
        return NULL;
    unsigned i = lv_slot(rvg->vg, lv);
    return i == UINT32_MAX ? NULL : &rvg->lvs[i];
}

const struct lvx_rlv *lvx_report_rlv(const struct lvx_rvg *rvg, const struct lvx_lv *lv)
{
    static const struct lvx_rlv none;
    if (!rvg || !lv)
        return &none;
    unsigned i = lv_slot(rvg->vg, lv);
    return i == UINT32_MAX ? &none : &rvg->lvs[i];
}

uint32_t lvx_report_pv_alloc(const struct lvx_rvg *rvg, const struct lvx_pv *pv)
{
    if (!rvg || !pv)
        return 0;
    unsigned i = pv_slot(rvg->vg, pv);
    return i == UINT32_MAX ? 0 : rvg->pv_alloc[i];
}

static bool type_prefix(const struct lvx_seg *seg, const char *prefix)
{
    const char *t = seg->type_name ? seg->type_name : seg->type;
    return t && strncmp(t, prefix, strlen(prefix)) == 0;
}

uint64_t lvx_report_seg_area_len(const struct lvx_seg *seg)
{
    uint64_t n = seg->extent_count;
    uint32_t k = seg->area_count ? seg->area_count : 1;
    switch (seg->kind) {
    case LVX_SEG_STRIPED:
        return n / (seg->stripe_count ? seg->stripe_count : k);
    case LVX_SEG_RAID:
        if (type_prefix(seg, "raid0"))
            return n / k;
        if (type_prefix(seg, "raid1") && !type_prefix(seg, "raid10"))
            return n;
        if (type_prefix(seg, "raid10")) {
            uint32_t copies = seg->data_copies ? seg->data_copies : 2;
            return n * copies / k;
        }
        if (type_prefix(seg, "raid6"))
            return k > 2 ? n / (k - 2) : n;
        return k > 1 ? n / (k - 1) : n;   /* raid4, raid5 */
    default:
        return n;
    }
}

const char *lvx_report_seg_type(const struct lvx_seg *seg)
{
    if (seg->kind == LVX_SEG_STRIPED)
        return (seg->stripe_count ? seg->stripe_count : seg->area_count) <= 1 ? "linear"
                                                                                : "striped";
    if (seg->type_name)
        return seg->type_name;
    return seg->type ? seg->type : "unknown";
}

static const struct lvx_cfg_node *raw_find(const struct lvx_seg *seg, const char *key)
{
    if (!seg->raw)
        return NULL;
    for (const struct lvx_cfg_node *n = seg->raw->child; n; n = n->next)
        if (n->key && strcmp(n->key, key) == 0)
            return n;
    return NULL;
}

/* The thin keys come from the typed fields (set by the importer, or by lvx's thin
 * commands for segments they made or changed). */
static bool thin_kind(const struct lvx_seg *seg)
{
    return seg->kind == LVX_SEG_THIN_POOL || seg->kind == LVX_SEG_THIN;
}

const char *lvx_report_seg_raw_str(const struct lvx_seg *seg, const char *key)
{
    if (thin_kind(seg) && !strcmp(key, "discards"))
        return seg->kind == LVX_SEG_THIN_POOL ? seg->discards : NULL;
    const struct lvx_cfg_node *n = raw_find(seg, key);
    return n && n->kind == LVX_CFG_STRING ? n->str : NULL;
}

bool lvx_report_seg_raw_int(const struct lvx_seg *seg, const char *key, int64_t *out)
{
    if (thin_kind(seg) && !strcmp(key, "transaction_id")) {
        *out = (int64_t)seg->transaction_id;
        return seg->has_thin_ids;
    }
    if (seg->kind == LVX_SEG_THIN && !strcmp(key, "device_id")) {
        *out = seg->device_id;
        return seg->has_thin_ids;
    }
    if (seg->kind == LVX_SEG_THIN_POOL && !strcmp(key, "zero_new_blocks")) {
        *out = seg->zero_new_blocks;
        return seg->zero_new_blocks;
    }
    const struct lvx_cfg_node *n = raw_find(seg, key);
    if (!n || n->kind != LVX_CFG_INT)
        return false;
    *out = n->num;
    return true;
}

bool lvx_report_cache_on_cachevol(const struct lvx_seg *seg)
{
    return seg && seg->kind == LVX_SEG_CACHE && seg->pool_lv &&
           (seg->pool_lv->flags & LVX_LVF_CACHE_VOL);
}

const struct lvx_seg *lvx_report_cache_settings_seg(const struct lvx_seg *seg)
{
    if (!seg)
        return NULL;
    if (seg->kind == LVX_SEG_CACHE_POOL || lvx_report_cache_on_cachevol(seg))
        return seg;
    if (seg->kind == LVX_SEG_CACHE && seg->pool_lv && seg->pool_lv->seg_count &&
        seg->pool_lv->segs[0].kind == LVX_SEG_CACHE_POOL)
        return &seg->pool_lv->segs[0];
    return NULL;
}

void lvx_report_cache_settings(const struct lvx_seg *seg, struct lvx_pool *pool,
                               struct lvx_strlist *l)
{
    l->n = 0;
    l->v = NULL;
    const struct lvx_seg *set = lvx_report_cache_settings_seg(seg);
    const struct lvx_cfg_node *sec = set ? raw_find(set, "policy_settings") : NULL;
    if (!sec || sec->kind != LVX_CFG_SECTION)
        return;
    unsigned n = 0;
    for (const struct lvx_cfg_node *c = sec->child; c; c = c->next)
        n++;
    l->v = lvx_pool_alloc(pool, sizeof(*l->v) * (n ? n : 1));
    struct lvx_buf b = { 0 };
    for (const struct lvx_cfg_node *c = sec->child; c; c = c->next) {
        struct lvx_cfg_node one = *c;         /* printed alone, as one tight line */
        one.next = NULL;
        one.tight = true;
        one.comment = one.heading = NULL;
        one.blank_before = false;
        lvx_buf_reset(&b);
        lvx_cfg_print_node(&b, &one, LVX_CFG_LAYOUT_RAW, 0);
        size_t len = b.len && b.data[b.len - 1] == '\n' ? b.len - 1 : b.len;
        l->v[l->n++] = lvx_pool_strndup(pool, b.data, len);
    }
    lvx_buf_free(&b);
}

/* new blocks zeroed: a thin pool with zero_new_blocks, or a thin LV of such a pool */
bool lvx_report_seg_zero(const struct lvx_seg *seg)
{
    int64_t z = 0;
    if (seg->kind == LVX_SEG_THIN && seg->pool_lv && seg->pool_lv->seg_count)
        seg = &seg->pool_lv->segs[0];
    if (seg->kind != LVX_SEG_THIN_POOL)
        return false;
    return lvx_report_seg_raw_int(seg, "zero_new_blocks", &z) && z != 0;
}

static void set_parent(struct lvx_rvg *rvg, const struct lvx_lv *child, const struct lvx_seg *seg,
                       enum lvx_rrole role)
{
    struct lvx_rlv *r = rlv_of(rvg, child);
    if (r && !r->parent_seg) {
        r->parent_seg = seg;
        r->role = role;
    }
}

static enum lvx_rrole area_role(const struct lvx_seg *seg)
{
    switch (seg->kind) {
    case LVX_SEG_MIRROR: return LVX_RROLE_MIMAGE;
    case LVX_SEG_RAID: return LVX_RROLE_RIMAGE;
    case LVX_SEG_THIN_POOL: return LVX_RROLE_TDATA;
    case LVX_SEG_CACHE_POOL: return LVX_RROLE_CDATA;
    case LVX_SEG_CACHE: return LVX_RROLE_CORIGIN;
    default: return lvx_seg_is_writecache(seg) ? LVX_RROLE_WCORIGIN : LVX_RROLE_OTHER;
    }
}

static void note_areas(struct lvx_rvg *rvg, const struct lvx_seg *seg)
{
    uint64_t len = lvx_report_seg_area_len(seg);
    for (uint32_t a = 0; seg->areas && a < seg->area_count; a++) {
        const struct lvx_area *ar = &seg->areas[a];
        if (ar->pv) {
            unsigned p = pv_slot(rvg->vg, ar->pv);
            if (p != UINT32_MAX)
                rvg->pv_alloc[p] += (uint32_t)len;
        } else if (ar->lv) {
            set_parent(rvg, ar->lv, seg, area_role(seg));
        }
    }
    for (uint32_t a = 0; seg->meta_areas && a < seg->area_count; a++)
        if (seg->meta_areas[a].lv)
            set_parent(rvg, seg->meta_areas[a].lv, seg, LVX_RROLE_RMETA);
}

static void note_segment(struct lvx_rvg *rvg, const struct lvx_lv *lv, const struct lvx_seg *seg)
{
    note_areas(rvg, seg);
    if (seg->log_lv)
        set_parent(rvg, seg->log_lv, seg, LVX_RROLE_MLOG);
    if (seg->metadata_lv)
        set_parent(rvg, seg->metadata_lv,
                   seg, seg->kind == LVX_SEG_CACHE_POOL ? LVX_RROLE_CMETA : LVX_RROLE_TMETA);
    if (seg->data_lv)
        set_parent(rvg, seg->data_lv, seg, area_role(seg));
    if (seg->kind == LVX_SEG_SNAPSHOT) {
        struct lvx_rlv *self = rlv_of(rvg, lv);
        if (self)
            self->snapshot_internal = true;
        struct lvx_rlv *cow = rlv_of(rvg, seg->cow_lv);
        if (cow)
            cow->cow_of = seg;
        struct lvx_rlv *origin = rlv_of(rvg, seg->origin_lv);
        if (origin)
            origin->snapshots++;
    } else if (seg->kind == LVX_SEG_THIN && seg->origin_lv) {
        struct lvx_rlv *origin = rlv_of(rvg, seg->origin_lv);
        if (origin)
            origin->thin_snapshots++;
    }
    if (seg->kind == LVX_SEG_THIN && seg->external_lv) {
        struct lvx_rlv *ext = rlv_of(rvg, seg->external_lv);
        if (ext)
            ext->ext_thins++;
    }
    if (seg->kind == LVX_SEG_CACHE && seg->origin_lv) {
        set_parent(rvg, seg->origin_lv, seg, LVX_RROLE_CORIGIN);
    }
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void derive_visibility(struct lvx_rvg *rvg)
{
    const struct lvx_vg *vg = rvg->vg;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_rlv *r = &rvg->lvs[i];
        r->visible = (vg->lvs[i]->status & LVX_LV_VISIBLE) && !r->snapshot_internal;
        r->pmspare = vg->lvs[i]->name && ends_with(vg->lvs[i]->name, "_pmspare");
    }
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_rlv *r = &rvg->lvs[i];
        if (!r->cow_of)
            continue;
        const struct lvx_rlv *origin = rlv_of(rvg, r->cow_of->origin_lv);
        /* a hidden origin is a sparse snapshot's _vorigin: its COW LV is listed */
        r->visible = origin && !origin->visible && !origin->snapshot_internal ? true
                     : origin && !r->cow_of->merging ? origin->visible : false;
    }
    for (unsigned i = 0; i < vg->lv_count; i++) {
        if (rvg->lvs[i].visible)
            rvg->visible_lvs++;
        if (rvg->lvs[i].snapshot_internal)
            rvg->snapshots++;
    }
}

bool lvx_report_pv_missing(const struct lvx_pv *pv)
{
    return (pv->flags & LVX_PVF_MISSING) || !pv->ondisk.present;
}

bool lvx_report_pv_used_orphan(const struct lvx_pv *pv)
{
    return !pv->vg && pv->ondisk.present && pv->ondisk.ext_version >= 2 &&
           (pv->ondisk.ext_flags & LVX_PV_EXT_USED);
}

struct lvx_rvg *lvx_report_rvg_build(struct lvx_pool *pool, const struct lvx_vg *listed)
{
    const struct lvx_vg *vg = listed->whole ? listed->whole : listed;
    struct lvx_rvg *rvg = lvx_pool_alloc(pool, sizeof(*rvg));
    rvg->vg = vg;
    rvg->listed = listed;
    rvg->lvs = lvx_pool_alloc(pool, sizeof(*rvg->lvs) * (vg->lv_count + 1));
    rvg->pv_alloc = lvx_pool_alloc(pool, sizeof(*rvg->pv_alloc) * (vg->pv_count + 1));
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_lv *lv = vg->lvs[i];
        for (unsigned s = 0; s < lv->seg_count; s++)
            note_segment(rvg, lv, &lv->segs[s]);
    }
    derive_visibility(rvg);
    for (unsigned p = 0; p < vg->pv_count; p++) {
        uint64_t count = vg->pvs[p]->pe_count;
        uint64_t used = rvg->pv_alloc[p] < count ? rvg->pv_alloc[p] : count;
        rvg->extent_count += count;
        rvg->free_count += count - used;
        if (lvx_report_pv_missing(vg->pvs[p]))
            rvg->missing_pvs++;
    }
    return rvg;
}

const char *lvx_report_pv_dev_name(const struct lvx_pv *pv)
{
    if (pv->ondisk.present && pv->ondisk.dev_name)
        return pv->ondisk.dev_name;
    return "[unknown]";
}

const char *lvx_report_lv_display_name(struct lvx_pool *pool, const struct lvx_rvg *rvg,
                                       const struct lvx_lv *lv, bool unmarked)
{
    if (!lv)
        return "";
    if (unmarked || lvx_report_rlv(rvg, lv)->visible)
        return lv->name;
    return lvx_pool_printf(pool, "[%s]", lv->name);
}

uint64_t lvx_report_lv_size(const struct lvx_lv *lv)
{
    uint64_t extents = 0;
    for (unsigned s = 0; s < lv->seg_count; s++)
        extents += lv->segs[s].extent_count - lvx_raid_reshape_extents(&lv->segs[s]);
    return extents * (lv->vg ? lv->vg->extent_size : 0);
}
