/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/vg_export.c - struct lvx_vg -> cfg tree -> text, byte-compatible with what
 * LVM2 2.03 writes (lvm2-format.md §9.3, §10, §14).  Entry points:
 * lvx_vg_export_tree(), lvx_vg_export_text(), lvx_text_header_default().
 *
 * Keys follow LVM2's order; printing hints reproduce its blank lines and FILE
 * comments ("# 4 Megabytes", "# Hint only", "# linear", dates).  Visible LVs are
 * written first, then hidden ones.  PVs are named pv<index>.  Segments other than
 * striped are written from their raw section, with start/count, area lists and LV
 * references refreshed from the model (so renamed LVs and renumbered PVs stay
 * right; a thin pool's transaction_id from the typed field); RAID, snapshot, thin-pool,
 * thin, pvmove mirror and error segments lvx created (no raw section) from their typed
 * fields, as LVM2 writes them.  Linear in the size of the VG.
 */
#include "format/vg_text.h"
#include "util/buf.h"
#include "format/vg_text_priv.h"
#include "model/raid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#define LVX_LVM_VERSION "2.03.16(2) (2022-05-18)"

struct exporter {
    struct lvx_pool *pool;
    const struct lvx_vg *vg;
    uint64_t last_date_time;     /* date_text() of the previous LV, reused when equal */
    const char *last_date;
};

/* "<q> <unit>": %g of q, done without printf when q is a whole number below 1e6. */
static const char *size_words(struct lvx_pool *pool, double q, const char *unit)
{
    if (q != (double)(uint64_t)q || q >= 1e6)
        return lvx_pool_printf(pool, "%g %s", q, unit);
    char tmp[LVX_U64_DIGITS];
    char *digits = lvx_u64_digits((uint64_t)q, tmp);
    size_t dlen = (size_t)(tmp + sizeof(tmp) - digits), ulen = strlen(unit);
    char *text = lvx_pool_alloc_uninit(pool, dlen + 1 + ulen + 1);
    memcpy(text, digits, dlen);
    text[dlen] = ' ';
    memcpy(text + dlen + 1, unit, ulen + 1);
    return text;
}

/* "4 Megabytes": the largest unit the size exceeds, %g (LVM2's long size form). */
static const char *size_comment(struct lvx_pool *pool, uint64_t sectors)
{
    static const char *const unit_names[] = { "Exabytes", "Petabytes", "Terabytes",
                                              "Gigabytes", "Megabytes" };
    double bytes = (double)sectors * 512.0;
    double unit = 1152921504606846976.0;   /* 2^60 */

    for (size_t i = 0; i < sizeof(unit_names) / sizeof(unit_names[0]); i++, unit /= 1024.0)
        if (bytes > unit)
            return size_words(pool, bytes / unit, unit_names[i]);
    return size_words(pool, bytes / 1024.0, "Kilobytes");
}

/* ctime()-style date ("Sun Nov 29 18:46:09 2026"), UTC, with or without '\n'. */
static const char *ctime_text(struct lvx_pool *pool, uint64_t t, bool newline)
{
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];

    if (!gmtime_r(&tt, &tm))
        memset(&tm, 0, sizeof(tm));
    strftime(buf, sizeof(buf), newline ? "%a %b %e %H:%M:%S %Y\n" : "%a %b %e %H:%M:%S %Y", &tm);
    return lvx_pool_strdup(pool, buf);
}

/* "2026-11-29 18:46:09 +0000" (LV creation_time comment); LVs made in the same
 * second share one text. */
static const char *date_text(struct exporter *ex, uint64_t t)
{
    if (ex->last_date && ex->last_date_time == t)
        return ex->last_date;
    time_t tt = (time_t)t;
    struct tm tm;
    char buf[64];

    if (!gmtime_r(&tt, &tm))
        memset(&tm, 0, sizeof(tm));
    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S +0000", &tm);
    ex->last_date_time = t;
    ex->last_date = lvx_pool_strdup(ex->pool, buf);
    return ex->last_date;
}

static struct lvx_cfg_node *add_uuid(struct exporter *ex, struct lvx_cfg_node *sec,
                                     const char *raw)
{
    char dashed[LVX_UUID_DASHED_LEN + 1];
    lvx_uuid_format(raw, dashed);
    return lvx_cfg_add_str(ex->pool, sec, "id", dashed);
}

static void add_strlist(struct exporter *ex, struct lvx_cfg_node *sec, const char *key,
                        const struct lvx_strlist *l)
{
    struct lvx_cfg_node *arr = lvx_cfg_add_array(ex->pool, sec, key);
    for (unsigned i = 0; i < l->n; i++)
        lvx_cfg_array_add_str(ex->pool, arr, l->v[i]);
}

static void add_tags(struct exporter *ex, struct lvx_cfg_node *sec, const struct lvx_strlist *l)
{
    if (l->n)
        add_strlist(ex, sec, "tags", l);
}

/* "status" (in_flags false) or "flags" (true) array from the word table. */
static void add_flag_words(struct exporter *ex, struct lvx_cfg_node *sec, bool in_flags,
                           const struct lvx_flag_word *table, uint32_t bits,
                           const struct lvx_strlist *extra)
{
    struct lvx_cfg_node *arr = lvx_cfg_add_array(ex->pool, sec, in_flags ? "flags" : "status");
    for (const struct lvx_flag_word *w = table; w->word; w++)
        if (w->in_flags == in_flags && w->bit && (bits & w->bit))
            lvx_cfg_array_add_str(ex->pool, arr, w->word);
    for (unsigned i = 0; extra && i < extra->n; i++)
        lvx_cfg_array_add_str(ex->pool, arr, extra->v[i]);
}

static void add_extra(struct exporter *ex, struct lvx_cfg_node *sec,
                      const struct lvx_cfg_node *extra)
{
    for (const struct lvx_cfg_node *c = extra ? extra->child : NULL; c; c = c->next)
        lvx_cfg_append(sec, lvx_cfg_clone(ex->pool, c));
}

static const char *pv_text_name(struct exporter *ex, const struct lvx_pv *pv)
{
    return lvx_pool_strnum(ex->pool, "pv", pv->index);
}

static const char *area_name(struct exporter *ex, const struct lvx_area *a)
{
    if (a->pv)
        return pv_text_name(ex, a->pv);
    return a->lv && a->lv->name ? a->lv->name : "";
}

/* --- physical volumes ---------------------------------------------------- */

static void export_pv(struct exporter *ex, struct lvx_cfg_node *pvs, const struct lvx_pv *pv)
{
    struct lvx_cfg_node *sec = lvx_cfg_add_section(ex->pool, pvs, pv_text_name(ex, pv));
    struct lvx_cfg_node *n;

    sec->blank_before = true;
    add_uuid(ex, sec, pv->uuid);
    if (pv->device_hint)
        lvx_cfg_add_str(ex->pool, sec, "device", pv->device_hint)->comment = "Hint only";
    if (pv->device_id_type)
        lvx_cfg_add_str(ex->pool, sec, "device_id_type", pv->device_id_type);
    if (pv->device_id)
        lvx_cfg_add_str(ex->pool, sec, "device_id", pv->device_id);
    add_flag_words(ex, sec, false, lvx_pv_flag_words, pv->status, NULL);
    sec->last_child->blank_before = true;
    add_flag_words(ex, sec, true, lvx_pv_flag_words, pv->flags, &pv->flags_extra);
    add_tags(ex, sec, &pv->tags);
    if (pv->has_dev_size) {
        n = lvx_cfg_add_int(ex->pool, sec, "dev_size", (int64_t)pv->dev_size);
        n->comment = size_comment(ex->pool, pv->dev_size);
    }
    lvx_cfg_add_int(ex->pool, sec, "pe_start", (int64_t)pv->pe_start);
    n = lvx_cfg_add_int(ex->pool, sec, "pe_count", pv->pe_count);
    n->comment = size_comment(ex->pool, (uint64_t)pv->pe_count * ex->vg->extent_size);
    if (pv->has_ba) {
        n = lvx_cfg_add_int(ex->pool, sec, "ba_start", (int64_t)pv->ba_start);
        n = lvx_cfg_add_int(ex->pool, sec, "ba_size", (int64_t)pv->ba_size);
        n->comment = size_comment(ex->pool, pv->ba_size);
    }
    add_extra(ex, sec, pv->extra);
}

/* --- segments ------------------------------------------------------------ */

static void add_seg_head(struct exporter *ex, struct lvx_cfg_node *sec, const struct lvx_seg *seg)
{
    lvx_cfg_add_int(ex->pool, sec, "start_extent", (int64_t)seg->start_extent);
    struct lvx_cfg_node *n = lvx_cfg_add_int(ex->pool, sec, "extent_count",
                                             (int64_t)seg->extent_count);
    n->comment = size_comment(ex->pool, seg->extent_count * ex->vg->extent_size);
    if (seg->reshape_count) {      /* LVM2 writes it here (raid segments and their images) */
        n = lvx_cfg_add_int(ex->pool, sec, "reshape_count", seg->reshape_count);
        n->comment = size_comment(ex->pool, (uint64_t)seg->reshape_count * ex->vg->extent_size);
    }
    lvx_cfg_add_str(ex->pool, sec, "type", seg->type ? seg->type : "striped")->blank_before = true;
    add_tags(ex, sec, &seg->tags);
}

static void export_striped(struct exporter *ex, struct lvx_cfg_node *sec,
                           const struct lvx_seg *seg)
{
    struct lvx_cfg_node *n;

    add_seg_head(ex, sec, seg);
    n = lvx_cfg_add_int(ex->pool, sec, "stripe_count", seg->stripe_count);
    if (seg->stripe_count == 1)
        n->comment = "linear";
    if (seg->stripe_count > 1) {
        n = lvx_cfg_add_int(ex->pool, sec, "stripe_size", seg->stripe_size);
        n->comment = size_comment(ex->pool, seg->stripe_size);
    }
    struct lvx_cfg_node *arr = lvx_cfg_add_array(ex->pool, sec, "stripes");
    arr->blank_before = true;
    arr->per_line = 2;
    for (uint32_t a = 0; a < seg->area_count; a++) {
        lvx_cfg_array_add_str(ex->pool, arr, area_name(ex, &seg->areas[a]));
        lvx_cfg_array_add_int(ex->pool, arr, (int64_t)seg->areas[a].start);
    }
    add_extra(ex, sec, seg->extra);
}

static void set_str(struct exporter *ex, struct lvx_cfg_node *n, const char *value)
{
    if (n && n->kind == LVX_CFG_STRING && value)
        n->str = lvx_pool_strdup(ex->pool, value);
}

static void set_int(struct lvx_cfg_node *n, int64_t value)
{
    if (n && n->kind == LVX_CFG_INT)
        n->num = value;
}

static void set_ref(struct exporter *ex, struct lvx_cfg_node *sec, const char *key,
                    const struct lvx_lv *lv)
{
    if (lv)
        set_str(ex, lvx_cfg_find(sec, key), lv->name);
}

/* Refresh the area list of a raw section from seg->areas / meta_areas. */
static void refresh_areas(struct exporter *ex, struct lvx_cfg_node *sec, const struct lvx_seg *seg)
{
    struct lvx_cfg_node *arr;
    struct lvx_cfg_node *e;

    if ((arr = lvx_cfg_find(sec, "mirrors")) && lvx_cfg_array_len(arr) == 2 * seg->area_count) {
        e = arr->child;
        for (uint32_t a = 0; a < seg->area_count; a++, e = e->next->next) {
            set_str(ex, e, area_name(ex, &seg->areas[a]));
            set_int(e->next, (int64_t)seg->areas[a].start);
        }
    }
    if ((arr = lvx_cfg_find(sec, "raids")) && seg->meta_areas &&
        lvx_cfg_array_len(arr) == 2 * seg->area_count) {
        e = arr->child;
        for (uint32_t a = 0; a < seg->area_count; a++, e = e->next->next) {
            set_str(ex, e, area_name(ex, &seg->meta_areas[a]));
            set_str(ex, e->next, area_name(ex, &seg->areas[a]));
        }
    }
    if ((arr = lvx_cfg_find(sec, "raid0_lvs")) && lvx_cfg_array_len(arr) == seg->area_count) {
        e = arr->child;
        for (uint32_t a = 0; a < seg->area_count; a++, e = e->next)
            set_str(ex, e, area_name(ex, &seg->areas[a]));
    }
}

/* Take key out of sec (when there). */
static void drop_key(struct lvx_cfg_node *sec, const char *key)
{
    struct lvx_cfg_node *z = lvx_cfg_find(sec, key), *prev = NULL, *n;
    if (!z)
        return;
    for (n = sec->child; n != z; n = n->next)
        prev = n;
    if (prev)
        prev->next = z->next;
    else
        sec->child = z->next;
    if (sec->last_child == z)
        sec->last_child = prev;
}

/* A thin LV's "origin" and "merge" keys from the typed fields: origin gone when the
 * origin was removed (the snapshot is a plain thin LV now), "merge" (last, as LVM2)
 * while a merge into the origin waits for its next activation. */
static void set_thin_origin(struct exporter *ex, struct lvx_cfg_node *sec, const struct lvx_seg *seg)
{
    if (!seg->origin_lv) {
        drop_key(sec, "origin");
        drop_key(sec, "merge");
        return;
    }
    set_ref(ex, sec, "origin", seg->origin_lv);
    if (!seg->merging)
        drop_key(sec, "merge");
    else if (lvx_cfg_find(sec, "merge"))
        set_ref(ex, sec, "merge", seg->origin_lv);
    else
        lvx_cfg_add_str(ex->pool, sec, "merge", seg->origin_lv->name);
}

/* A changed zero_new_blocks of a thin pool as LVM2 writes it: "zero_new_blocks = 1"
 * after "discards", absent when off (lvchange -Z); an unchanged one left as read. */
static void set_zero_new_blocks(struct exporter *ex, struct lvx_cfg_node *sec, bool zero)
{
    struct lvx_cfg_node *z = lvx_cfg_find(sec, "zero_new_blocks");
    if (z && (z->kind != LVX_CFG_INT || (z->num != 0) == zero)) {
        return;                                     /* as read */
    } else if (z && zero) {
        z->num = 1;
    } else if (z) {
        drop_key(sec, "zero_new_blocks");
    } else if (zero) {
        struct lvx_cfg_node *d = lvx_cfg_find(sec, "discards");
        z = lvx_cfg_add_int(ex->pool, d ? NULL : sec, "zero_new_blocks", 1);
        if (d) {                                    /* right after discards */
            z->parent = sec;
            z->next = d->next;
            d->next = z;
            if (sec->last_child == d)
                sec->last_child = z;
        }
    }
}

/* A thin pool's crop_metadata as LVM2 writes it: "crop_metadata = 0|1" after
 * zero_new_blocks (else discards), absent when not selected, and the type with the
 * pool's "+CROP_METADATA" (LVM2 sets that flag whenever it reads or changes the key). */
static void set_crop(struct exporter *ex, struct lvx_cfg_node *sec, const struct lvx_seg *seg)
{
    struct lvx_cfg_node *t = lvx_cfg_find(sec, "type");
    if (t && t->kind == LVX_CFG_STRING && seg->type && strcmp(t->str, seg->type))
        set_str(ex, t, seg->type);
    struct lvx_cfg_node *c = lvx_cfg_find(sec, "crop_metadata");
    if (seg->crop_metadata == LVX_THIN_CROP_NONE) {
        if (c)
            drop_key(sec, "crop_metadata");
        return;
    }
    int64_t v = seg->crop_metadata == LVX_THIN_CROP_YES;
    if (c) {
        set_int(c, v);
        return;
    }
    struct lvx_cfg_node *after = lvx_cfg_find(sec, "zero_new_blocks");
    if (!after)
        after = lvx_cfg_find(sec, "discards");
    c = lvx_cfg_add_int(ex->pool, after ? NULL : sec, "crop_metadata", v);
    if (after) {
        c->parent = sec;
        c->next = after->next;
        after->next = c;
        if (sec->last_child == after)
            sec->last_child = c;
    }
}

static void refresh_refs(struct exporter *ex, struct lvx_cfg_node *sec, const struct lvx_seg *seg)
{
    switch (seg->kind) {
    case LVX_SEG_MIRROR:
        set_ref(ex, sec, "mirror_log", seg->log_lv);
        set_int(lvx_cfg_find(sec, "extents_moved"), seg->extents_moved);
        break;
    case LVX_SEG_THIN_POOL:
        set_ref(ex, sec, "metadata", seg->metadata_lv);
        set_ref(ex, sec, "pool", seg->data_lv);
        if (seg->has_thin_ids)      /* lvx's thin commands move it on */
            set_int(lvx_cfg_find(sec, "transaction_id"), (int64_t)seg->transaction_id);
        set_str(ex, lvx_cfg_find(sec, "discards"), seg->discards);   /* lvchange */
        set_zero_new_blocks(ex, sec, seg->zero_new_blocks);
        set_crop(ex, sec, seg);
        break;
    case LVX_SEG_THIN:
        set_ref(ex, sec, "thin_pool", seg->pool_lv);
        set_thin_origin(ex, sec, seg);
        set_ref(ex, sec, "external_origin", seg->external_lv);
        break;
    case LVX_SEG_SNAPSHOT:
        set_ref(ex, sec, "origin", seg->origin_lv);
        set_ref(ex, sec, "cow_store", seg->cow_lv);
        set_ref(ex, sec, "merging_store", seg->cow_lv);
        break;
    case LVX_SEG_CACHE_POOL:
        set_ref(ex, sec, "data", seg->data_lv);
        set_ref(ex, sec, "metadata", seg->metadata_lv);
        break;
    case LVX_SEG_CACHE:
        set_ref(ex, sec, "cache_pool", seg->pool_lv);
        set_ref(ex, sec, "origin", seg->origin_lv);
        break;
    default:
        break;
    }
}

/* Printing hints LVM2's output has in segment sections it does not know as striped. */
static void set_raw_hints(struct exporter *ex, struct lvx_cfg_node *sec, const struct lvx_seg *seg)
{
    for (struct lvx_cfg_node *n = sec->child; n; n = n->next) {
        if (!n->key)
            continue;
        if (!strcmp(n->key, "extent_count") && n->kind == LVX_CFG_INT)
            n->comment = size_comment(ex->pool, (uint64_t)n->num * ex->vg->extent_size);
        else if (!strcmp(n->key, "type"))
            n->blank_before = true;
        else if (!strcmp(n->key, "extents_moved") && n->kind == LVX_CFG_INT)
            n->comment = size_comment(ex->pool, (uint64_t)n->num * ex->vg->extent_size);
        else if (n->kind == LVX_CFG_ARRAY &&
                 (!strcmp(n->key, "mirrors") || !strcmp(n->key, "raids") ||
                  !strcmp(n->key, "stripes"))) {
            n->blank_before = true;
            n->per_line = 2;
        } else if (n->kind == LVX_CFG_ARRAY && !strcmp(n->key, "raid0_lvs")) {
            n->blank_before = true;
            n->per_line = 1;
        } else if (!strcmp(n->key, "chunk_size") && n->kind == LVX_CFG_INT &&
                   (seg->kind == LVX_SEG_THIN_POOL || seg->kind == LVX_SEG_CACHE_POOL))
            n->comment = size_comment(ex->pool, (uint64_t)n->num);
        else if (!strcmp(n->key, "policy_settings") && n->kind == LVX_CFG_SECTION)
            for (struct lvx_cfg_node *c = n->child; c; c = c->next)
                c->tight = true;          /* LVM2 writes them with libdm's config writer */
    }
}

/* Key `key` of a raw RAID section set to v (lvchange --min/--maxrecoveryrate): dropped
 * when 0 (LVM2 writes none then), else set, or added before the first of the keys LVM2
 * writes after it (`later`, NULL-ended). */
static void set_raid_int(struct exporter *ex, struct lvx_cfg_node *sec, const char *key,
                         uint32_t v, const char *const *later)
{
    struct lvx_cfg_node *prev = NULL, *n = sec->child;
    while (n && (!n->key || strcmp(n->key, key))) {
        prev = n;
        n = n->next;
    }
    if (n && v) {
        set_int(n, v);
    } else if (n) {                         /* unlinked */
        *(prev ? &prev->next : &sec->child) = n->next;
        if (sec->last_child == n)
            sec->last_child = prev;
    } else if (v) {
        struct lvx_cfg_node *add = lvx_cfg_new(ex->pool, NULL, key, LVX_CFG_INT);
        add->num = v;
        add->parent = sec;
        prev = NULL;
        for (n = sec->child; n; prev = n, n = n->next) {
            bool before = false;
            for (unsigned i = 0; n->key && later[i] && !before; i++)
                before = !strcmp(n->key, later[i]);
            if (before)
                break;
        }
        add->next = n;
        *(prev ? &prev->next : &sec->child) = add;
        if (!n)
            sec->last_child = add;
    }
}

static void refresh_raid_rates(struct exporter *ex, struct lvx_cfg_node *sec,
                               const struct lvx_seg *seg)
{
    static const char *const after_min[] = { "max_recovery_rate", "data_offset", "raids",
                                             "raid0_lvs", NULL };
    static const char *const after_max[] = { "data_offset", "raids", "raid0_lvs", NULL };
    static const char *const after_wb[] = { "min_recovery_rate", "max_recovery_rate",
                                            "data_offset", "raids", "raid0_lvs", NULL };
    const struct lvx_raid_type *t = lvx_raid_type_find(seg->type_name);
    if (!t || t->raid0 || !lvx_cfg_find(sec, "raids"))
        return;
    set_raid_int(ex, sec, "writebehind", strcmp(t->name, "raid1") ? 0 : seg->writebehind, after_wb);
    set_raid_int(ex, sec, "min_recovery_rate", seg->min_recovery_rate, after_min);
    set_raid_int(ex, sec, "max_recovery_rate", seg->max_recovery_rate, after_max);
}

/* A thin pool's queued messages, last in its segment as LVM2 writes them: a blank
 * line, then message1 { create = "<thin LV>" } or message1 { delete = <id> }, ... */
static void add_thin_messages(struct exporter *ex, struct lvx_cfg_node *sec,
                              const struct lvx_seg *seg)
{
    for (unsigned i = 0; i < seg->msg_count; i++) {
        struct lvx_cfg_node *m =
            lvx_cfg_add_section(ex->pool, sec, lvx_pool_printf(ex->pool, "message%u", i + 1));
        m->blank_before = i == 0;
        if (seg->msgs[i].create)
            lvx_cfg_add_str(ex->pool, m, "create", seg->msgs[i].create->name);
        else
            lvx_cfg_add_int(ex->pool, m, "delete", seg->msgs[i].delete_id);
    }
}

static void export_raw(struct exporter *ex, struct lvx_cfg_node *sec, const struct lvx_seg *seg)
{
    for (const struct lvx_cfg_node *c = seg->raw->child; c; c = c->next)
        if (seg->kind != LVX_SEG_THIN_POOL || c->kind != LVX_CFG_SECTION)  /* messages: typed */
            lvx_cfg_append(sec, lvx_cfg_clone(ex->pool, c));
    if (seg->kind == LVX_SEG_THIN_POOL)
        add_thin_messages(ex, sec, seg);
    set_int(lvx_cfg_find(sec, "start_extent"), (int64_t)seg->start_extent);
    set_int(lvx_cfg_find(sec, "extent_count"), (int64_t)seg->extent_count);
    refresh_areas(ex, sec, seg);
    refresh_refs(ex, sec, seg);
    refresh_raid_rates(ex, sec, seg);
    set_raw_hints(ex, sec, seg);
}

/* A RAID segment lvx created (no raw section): keys in LVM2's order. */
static void export_new_raid(struct exporter *ex, struct lvx_cfg_node *sec,
                            const struct lvx_seg *seg)
{
    const struct lvx_raid_type *t = lvx_raid_type_find(seg->type_name);
    struct lvx_pool *pool = ex->pool;
    add_seg_head(ex, sec, seg);
    if (t && t->raid0) {
        lvx_cfg_add_int(pool, sec, "stripe_count", seg->area_count);
    } else {
        lvx_cfg_add_int(pool, sec, "device_count", seg->area_count);
        if (seg->data_copies)
            lvx_cfg_add_int(pool, sec, "data_copies", seg->data_copies);
        lvx_cfg_add_int(pool, sec, "region_size", seg->region_size);
    }
    if (seg->stripe_size)
        lvx_cfg_add_int(pool, sec, "stripe_size", seg->stripe_size);
    if (seg->writebehind && t && !strcmp(t->name, "raid1"))
        lvx_cfg_add_int(pool, sec, "writebehind", seg->writebehind);
    if (seg->min_recovery_rate)
        lvx_cfg_add_int(pool, sec, "min_recovery_rate", seg->min_recovery_rate);
    if (seg->max_recovery_rate)
        lvx_cfg_add_int(pool, sec, "max_recovery_rate", seg->max_recovery_rate);
    struct lvx_cfg_node *arr = lvx_cfg_add_array(pool, sec, seg->meta_areas ? "raids" : "raid0_lvs");
    for (uint32_t i = 0; i < seg->area_count; i++) {
        if (seg->meta_areas)
            lvx_cfg_array_add_str(pool, arr, area_name(ex, &seg->meta_areas[i]));
        lvx_cfg_array_add_str(pool, arr, area_name(ex, &seg->areas[i]));
    }
    set_raw_hints(ex, sec, seg);
}

/* A snapshot segment lvx created (no raw section). */
static void export_new_snapshot(struct exporter *ex, struct lvx_cfg_node *sec,
                                const struct lvx_seg *seg)
{
    add_seg_head(ex, sec, seg);
    lvx_cfg_add_int(ex->pool, sec, "chunk_size", seg->chunk_size);
    lvx_cfg_add_str(ex->pool, sec, "origin", seg->origin_lv->name);
    lvx_cfg_add_str(ex->pool, sec, seg->merging ? "merging_store" : "cow_store",
                    seg->cow_lv->name);
    set_raw_hints(ex, sec, seg);
}

/* A thin-pool segment lvx created (no raw section): keys in LVM2's order. */
static void export_new_thin_pool(struct exporter *ex, struct lvx_cfg_node *sec,
                                 const struct lvx_seg *seg)
{
    add_seg_head(ex, sec, seg);
    lvx_cfg_add_str(ex->pool, sec, "metadata", seg->metadata_lv->name);
    lvx_cfg_add_str(ex->pool, sec, "pool", seg->data_lv->name);
    lvx_cfg_add_int(ex->pool, sec, "transaction_id", (int64_t)seg->transaction_id);
    lvx_cfg_add_int(ex->pool, sec, "chunk_size", seg->chunk_size);
    lvx_cfg_add_str(ex->pool, sec, "discards", seg->discards ? seg->discards : "passdown");
    if (seg->zero_new_blocks)
        lvx_cfg_add_int(ex->pool, sec, "zero_new_blocks", 1);
    if (seg->crop_metadata != LVX_THIN_CROP_NONE)
        lvx_cfg_add_int(ex->pool, sec, "crop_metadata", seg->crop_metadata == LVX_THIN_CROP_YES);
    add_thin_messages(ex, sec, seg);
    set_raw_hints(ex, sec, seg);
}

/* A thin segment lvx created (no raw section). */
static void export_new_thin(struct exporter *ex, struct lvx_cfg_node *sec,
                            const struct lvx_seg *seg)
{
    add_seg_head(ex, sec, seg);
    lvx_cfg_add_str(ex->pool, sec, "thin_pool", seg->pool_lv->name);
    lvx_cfg_add_int(ex->pool, sec, "transaction_id", (int64_t)seg->transaction_id);
    lvx_cfg_add_int(ex->pool, sec, "device_id", seg->device_id);
    if (seg->external_lv)
        lvx_cfg_add_str(ex->pool, sec, "external_origin", seg->external_lv->name);
    if (seg->origin_lv)
        lvx_cfg_add_str(ex->pool, sec, "origin", seg->origin_lv->name);
    if (seg->origin_lv && seg->merging)
        lvx_cfg_add_str(ex->pool, sec, "merge", seg->origin_lv->name);
    set_raw_hints(ex, sec, seg);
}

/* A pvmove mirror segment lvx created (no raw section): LVM2's keys and order. */
static void export_new_mirror(struct exporter *ex, struct lvx_cfg_node *sec,
                              const struct lvx_seg *seg)
{
    struct lvx_pool *pool = ex->pool;
    add_seg_head(ex, sec, seg);
    lvx_cfg_add_int(pool, sec, "mirror_count", seg->area_count);
    if (seg->lv->status & LVX_LV_PVMOVE)
        lvx_cfg_add_int(pool, sec, "extents_moved", seg->extents_moved);
    if (seg->log_lv)
        lvx_cfg_add_str(pool, sec, "mirror_log", seg->log_lv->name);
    if (seg->region_size)
        lvx_cfg_add_int(pool, sec, "region_size", seg->region_size);
    struct lvx_cfg_node *arr = lvx_cfg_add_array(pool, sec, "mirrors");
    for (uint32_t i = 0; i < seg->area_count; i++) {
        lvx_cfg_array_add_str(pool, arr, area_name(ex, &seg->areas[i]));
        lvx_cfg_array_add_int(pool, arr, (int64_t)seg->areas[i].start);
    }
    set_raw_hints(ex, sec, seg);
}

static void export_seg(struct exporter *ex, struct lvx_cfg_node *lvsec, const struct lvx_seg *seg,
                       unsigned number)
{
    struct lvx_cfg_node *sec =
        lvx_cfg_add_section(ex->pool, lvsec, lvx_pool_strnum(ex->pool, "segment", number));
    sec->blank_before = number == 1;   /* LVM2 separates only the first from the keys */
    if (seg->raw)
        export_raw(ex, sec, seg);
    else if (seg->kind == LVX_SEG_RAID)
        export_new_raid(ex, sec, seg);
    else if (seg->kind == LVX_SEG_SNAPSHOT)
        export_new_snapshot(ex, sec, seg);
    else if (seg->kind == LVX_SEG_THIN_POOL)
        export_new_thin_pool(ex, sec, seg);
    else if (seg->kind == LVX_SEG_THIN)
        export_new_thin(ex, sec, seg);
    else if (seg->kind == LVX_SEG_MIRROR)
        export_new_mirror(ex, sec, seg);
    else if (seg->kind == LVX_SEG_ERROR || seg->kind == LVX_SEG_ZERO)
        add_seg_head(ex, sec, seg);   /* error and zero segments have no keys of their own */
    else
        export_striped(ex, sec, seg);
}

/* --- logical volumes ----------------------------------------------------- */

static void export_lv(struct exporter *ex, struct lvx_cfg_node *lvs, const struct lvx_lv *lv)
{
    struct lvx_cfg_node *sec = lvx_cfg_add_section(ex->pool, lvs, lv->name);

    sec->blank_before = true;
    add_uuid(ex, sec, lv->uuid);
    add_flag_words(ex, sec, false, lvx_lv_flag_words, lv->status, NULL);
    add_flag_words(ex, sec, true, lvx_lv_flag_words, lv->flags, &lv->flags_extra);
    add_tags(ex, sec, &lv->tags);
    if (lv->has_creation) {
        struct lvx_cfg_node *n = lvx_cfg_add_int(ex->pool, sec, "creation_time",
                                                 (int64_t)lv->creation_time);
        n->comment = date_text(ex, lv->creation_time);
        lvx_cfg_add_str(ex->pool, sec, "creation_host", lv->creation_host ? lv->creation_host : "");
    }
    if (lv->lock_args)
        lvx_cfg_add_str(ex->pool, sec, "lock_args", lv->lock_args);
    if (lv->alloc != LVX_ALLOC_INHERIT)
        lvx_cfg_add_str(ex->pool, sec, "allocation_policy", lvx_alloc_name(lv->alloc));
    if (lv->profile)
        lvx_cfg_add_str(ex->pool, sec, "profile", lv->profile);
    if (lv->has_read_ahead)
        lvx_cfg_add_int(ex->pool, sec, "read_ahead", lv->read_ahead);
    if (lv->has_major)
        lvx_cfg_add_int(ex->pool, sec, "major", lv->major);
    if (lv->has_minor)
        lvx_cfg_add_int(ex->pool, sec, "minor", lv->minor);
    add_extra(ex, sec, lv->extra);
    lvx_cfg_add_int(ex->pool, sec, "segment_count", lv->seg_count);
    for (unsigned s = 0; s < lv->seg_count; s++)
        export_seg(ex, sec, &lv->segs[s], s + 1);
}

/* LVM2's notion for ordering (lv_is_visible): VISIBLE status, or a snapshot COW LV (its
 * origin visible, or hidden: a sparse snapshot); the internal snapshotN LV never.  cow_origin[i] is the origin of LV i when it is a COW LV. */
static bool written_as_visible(const struct lvx_lv *lv, const struct lvx_lv *const *cow_origin)
{
    /* snapshotN (carries the snapshot segment) is never visible, whatever its status */
    for (unsigned s = 0; s < lv->seg_count; s++)
        if (lv->segs[s].kind == LVX_SEG_SNAPSHOT)
            return false;
    if (lv->status & LVX_LV_VISIBLE)
        return true;
    /* a COW LV of a visible origin, or of a hidden one (a sparse snapshot's _vorigin:
     * LVM2's virtual origin) */
    return cow_origin[lv->index] != NULL;
}

static void export_lvs(struct exporter *ex, struct lvx_cfg_node *vgsec)
{
    const struct lvx_vg *vg = ex->vg;
    const struct lvx_lv **cow_origin = lvx_xcalloc(vg->lv_count + 1, sizeof(*cow_origin));
    struct lvx_cfg_node *lvs = lvx_cfg_add_section(ex->pool, vgsec, "logical_volumes");

    lvs->blank_before = true;
    for (unsigned l = 0; l < vg->lv_count; l++)
        for (unsigned s = 0; s < vg->lvs[l]->seg_count; s++) {
            const struct lvx_seg *seg = &vg->lvs[l]->segs[s];
            if (seg->kind == LVX_SEG_SNAPSHOT && seg->cow_lv && !seg->merging &&
                seg->cow_lv->index < vg->lv_count)     /* a merging COW is internal */
                cow_origin[seg->cow_lv->index] = seg->origin_lv;
        }
    for (int pass = 0; pass < 2; pass++)
        for (unsigned l = 0; l < vg->lv_count; l++)
            if (written_as_visible(vg->lvs[l], cow_origin) == (pass == 0))
                export_lv(ex, lvs, vg->lvs[l]);
    free(cow_origin);
}

/* --- volume group and header --------------------------------------------- */

static struct lvx_cfg_node *export_vg(struct exporter *ex, struct lvx_cfg_node *root)
{
    const struct lvx_vg *vg = ex->vg;
    struct lvx_cfg_node *sec = lvx_cfg_add_section(ex->pool, root, vg->name);
    struct lvx_cfg_node *n;

    sec->blank_before_close = true;
    add_uuid(ex, sec, vg->uuid);
    lvx_cfg_add_int(ex->pool, sec, "seqno", vg->seqno);
    lvx_cfg_add_str(ex->pool, sec, "format", vg->format ? vg->format : "lvm2")->comment =
        "informational";
    add_flag_words(ex, sec, false, lvx_vg_flag_words, vg->status, NULL);
    add_flag_words(ex, sec, true, lvx_vg_flag_words, vg->flags, &vg->flags_extra);
    add_tags(ex, sec, &vg->tags);
    if (vg->system_id)
        lvx_cfg_add_str(ex->pool, sec, "system_id", vg->system_id);
    if (vg->lock_type)
        lvx_cfg_add_str(ex->pool, sec, "lock_type", vg->lock_type);
    if (vg->lock_args)
        lvx_cfg_add_str(ex->pool, sec, "lock_args", vg->lock_args);
    n = lvx_cfg_add_int(ex->pool, sec, "extent_size", vg->extent_size);
    n->comment = size_comment(ex->pool, vg->extent_size);
    lvx_cfg_add_int(ex->pool, sec, "max_lv", vg->max_lv);
    lvx_cfg_add_int(ex->pool, sec, "max_pv", vg->max_pv);
    if (vg->alloc != LVX_ALLOC_NORMAL && vg->alloc != LVX_ALLOC_INHERIT)
        lvx_cfg_add_str(ex->pool, sec, "allocation_policy", lvx_alloc_name(vg->alloc))
            ->blank_before = true;
    if (vg->profile)
        lvx_cfg_add_str(ex->pool, sec, "profile", vg->profile);
    lvx_cfg_add_int(ex->pool, sec, "metadata_copies", vg->metadata_copies);
    add_extra(ex, sec, vg->extra);

    struct lvx_cfg_node *pvs = lvx_cfg_add_section(ex->pool, sec, "physical_volumes");
    pvs->blank_before = true;
    for (unsigned i = 0; i < vg->pv_count; i++)
        export_pv(ex, pvs, vg->pvs[i]);
    if (vg->lv_count)
        export_lvs(ex, sec);
    if (vg->historical) {
        n = lvx_cfg_clone(ex->pool, vg->historical);
        n->blank_before = true;
        lvx_cfg_append(sec, n);
    }
    return sec;
}

static void export_header(struct exporter *ex, struct lvx_cfg_node *root,
                          const struct lvx_text_header *hdr)
{
    const struct lvx_vg *vg = ex->vg;
    const char *version = hdr && hdr->lvm_version ? hdr->lvm_version : LVX_LVM_VERSION;
    const char *desc = hdr ? hdr->description : vg->description;
    const char *host = hdr ? hdr->creation_host : vg->creation_host;
    uint64_t t = hdr ? hdr->creation_time : vg->creation_time;
    struct lvx_cfg_node *n;

    n = lvx_cfg_add_str(ex->pool, root, "contents", "Text Format Volume Group");
    n->heading = lvx_pool_printf(ex->pool, "Generated by LVM2 version %s: %s", version,
                                 ctime_text(ex->pool, t, false));
    n->blank_before = true;
    lvx_cfg_add_int(ex->pool, root, "version", 1);
    lvx_cfg_add_str(ex->pool, root, "description", desc ? desc : "")->blank_before = true;
    n = lvx_cfg_add_str(ex->pool, root, "creation_host", host ? host : "");
    n->blank_before = true;
    if (hdr && hdr->uname_line) {
        n->comment = hdr->uname_line;
        n->comment_tight = true;
    }
    n = lvx_cfg_add_int(ex->pool, root, "creation_time", (int64_t)t);
    n->comment = ctime_text(ex->pool, t, true);
    n->comment_tight = true;
}

struct lvx_cfg_node *lvx_vg_export_tree(struct lvx_pool *pool, const struct lvx_vg *vg,
                                        const struct lvx_text_header *hdr,
                                        enum lvx_cfg_layout layout)
{
    struct exporter ex = { .pool = pool, .vg = vg };
    struct lvx_cfg_node *root = lvx_cfg_new(pool, NULL, NULL, LVX_CFG_SECTION);

    if (layout == LVX_CFG_LAYOUT_FILE)
        export_header(&ex, root, hdr);
    export_vg(&ex, root);
    if (layout == LVX_CFG_LAYOUT_RAW)
        export_header(&ex, root, hdr);
    return root;
}

/* LVM2 leaves an empty line where logical_volumes would be: a VG without LVs ends
 * with two blank lines before its closing brace. */
static void print_vg_section(struct lvx_buf *out, const struct lvx_cfg_node *sec,
                             const struct lvx_vg *vg, enum lvx_cfg_layout layout)
{
    size_t start = out->len;
    lvx_cfg_print_node(out, sec, layout, 0);
    if (vg->lv_count == 0 && !vg->historical && out->len - start >= 2) {
        out->len -= 2;      /* drop "}\n", add the blank line, put it back */
        lvx_buf_puts(out, "\n}\n");
    }
}

struct lvx_cfg_node *lvx_vg_export_text_tree(struct lvx_buf *out, struct lvx_pool *pool,
                                             const struct lvx_vg *vg,
                                             const struct lvx_text_header *hdr,
                                             enum lvx_cfg_layout layout)
{
    struct lvx_cfg_node *root = lvx_vg_export_tree(pool, vg, hdr, layout);

    for (const struct lvx_cfg_node *n = root->child; n; n = n->next) {
        if (n->kind == LVX_CFG_SECTION)
            print_vg_section(out, n, vg, layout);
        else
            lvx_cfg_print_node(out, n, layout, 0);
    }
    return root;
}

void lvx_vg_export_text(struct lvx_buf *out, const struct lvx_vg *vg,
                        const struct lvx_text_header *hdr, enum lvx_cfg_layout layout)
{
    struct lvx_pool *pool = lvx_pool_create();
    lvx_vg_export_text_tree(out, pool, vg, hdr, layout);
    lvx_pool_destroy(pool);
}

void lvx_text_header_default(struct lvx_text_header *hdr, const char *description)
{
    static _Thread_local struct utsname uts;
    static _Thread_local char uname_line[5 * sizeof(uts.sysname) + 8];

    memset(hdr, 0, sizeof(*hdr));
    if (uname(&uts) == 0) {
        snprintf(uname_line, sizeof(uname_line), "%s %s %s %s %s", uts.sysname, uts.nodename,
                 uts.release, uts.version, uts.machine);
        hdr->creation_host = uts.nodename;
        hdr->uname_line = uname_line;
    } else {
        hdr->creation_host = "";
    }
    hdr->description = description;
    hdr->creation_time = (uint64_t)time(NULL);
    hdr->lvm_version = LVX_LVM_VERSION;
}
