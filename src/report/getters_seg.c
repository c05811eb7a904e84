/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/getters_seg.c - values of the LV segment fields (lvs --segments, and the
 * segment using a PV run in pvs --segments).  A free run shows segtype "free",
 * its size, and zero/blank for the rest.
 *
 * Area lists: PV areas print as "<device>:<first>-<last>" / "<device>(<first>)",
 * LV areas with the sub-LV name (in brackets when hidden, for seg_le_ranges only).
 */
#include "report/report_int.h"
#include "model/raid.h"

#include <string.h>

static bool type_starts(const struct lvx_seg *s, const char *p)
{
    return strncmp(lvx_report_seg_type(s), p, strlen(p)) == 0;
}

static uint32_t seg_images(const struct lvx_seg *s)
{
    return s->area_count;
}

static uint64_t extent_size(const struct lvx_rrow *row)
{
    return row->vg ? row->vg->extent_size : 0;
}

LVX_RGETTER(segtype)
{
    (void)rc;
    if (!row->seg)
        lvx_rval_str(v, row->free_run ? "free" : "");
    else
        lvx_rval_str(v, lvx_report_seg_type(row->seg));
}

LVX_RGETTER(stripes)
{
    (void)rc;
    const struct lvx_seg *s = row->seg;
    if (!s)
        lvx_rval_num(v, 0);
    else if (s->kind == LVX_SEG_STRIPED && s->stripe_count)
        lvx_rval_num(v, s->stripe_count);
    else
        lvx_rval_num(v, seg_images(s));
}

static uint32_t raid10_copies(const struct lvx_seg *s)
{
    return s->data_copies ? s->data_copies : 2;
}

/* The images of a RAID segment but those at its end a shrinking reshape left to remove
 * (their segment types carry REMOVE_AFTER_RESHAPE), as LVM2 counts data stripes. */
static uint32_t used_images(const struct lvx_seg *s)
{
    uint32_t k = seg_images(s);
    while (s->kind == LVX_SEG_RAID && s->areas && k > 1 && s->areas[k - 1].lv &&
           s->areas[k - 1].lv->seg_count && s->areas[k - 1].lv->segs[0].type &&
           strstr(s->areas[k - 1].lv->segs[0].type, "+REMOVE_AFTER_RESHAPE"))
        k--;
    return k;
}

LVX_RGETTER(data_stripes)
{
    (void)rc;
    const struct lvx_seg *s = row->seg;
    uint32_t k = s ? used_images(s) : 0;
    if (!s)
        lvx_rval_num(v, 0);
    else if (s->kind == LVX_SEG_STRIPED && s->stripe_count)
        lvx_rval_num(v, s->stripe_count);
    else if (s->kind != LVX_SEG_RAID || type_starts(s, "raid0") ||
             (type_starts(s, "raid1") && !type_starts(s, "raid10")))
        lvx_rval_num(v, k);
    else if (type_starts(s, "raid10"))
        lvx_rval_num(v, k / raid10_copies(s));
    else if (type_starts(s, "raid6"))
        lvx_rval_num(v, k > 2 ? k - 2 : 0);
    else
        lvx_rval_num(v, k > 1 ? k - 1 : 0);
}

LVX_RGETTER(data_copies)
{
    (void)rc;
    const struct lvx_seg *s = row->seg;
    if (!s && row->free_run)
        lvx_rval_blank(v, LVX_FT_NUM);
    else if (!s || s->kind != LVX_SEG_RAID || type_starts(s, "raid0"))
        lvx_rval_num(v, 1);
    else if (type_starts(s, "raid10"))
        lvx_rval_num(v, raid10_copies(s));
    else if (type_starts(s, "raid1"))
        lvx_rval_num(v, seg_images(s));
    else if (type_starts(s, "raid6"))
        lvx_rval_num(v, 3);
    else
        lvx_rval_num(v, 2);
}

LVX_RGETTER(parity_chunks)
{
    (void)rc;
    const struct lvx_seg *s = row->seg;
    if (!s && row->free_run)
        lvx_rval_num(v, UINT32_MAX);   /* what LVM2 prints for a free run */
    else if (!s || s->kind != LVX_SEG_RAID || type_starts(s, "raid0"))
        lvx_rval_blank(v, LVX_FT_NUM);
    else
        lvx_rval_num(v, type_starts(s, "raid6") ? 2 : 1);
}

LVX_RGETTER(stripe_size)
{
    (void)rc;
    const struct lvx_seg *s = row->seg;
    bool has = s && ((s->kind == LVX_SEG_STRIPED && s->stripe_count > 1) || s->kind == LVX_SEG_RAID);
    lvx_rval_size(v, has ? s->stripe_size : 0);
}

LVX_RGETTER(region_size)
{
    (void)rc;
    const struct lvx_seg *s = row->seg;
    bool has = s && (s->kind == LVX_SEG_MIRROR || s->kind == LVX_SEG_RAID);
    lvx_rval_size(v, has ? s->region_size : 0);
}

LVX_RGETTER(chunk_size)
{
    (void)rc;
    const struct lvx_seg *s = row->seg;
    const struct lvx_rlv *r = lvx_report_rlv(row->rvg, row->lv);
    if (s && r->cow_of)
        lvx_rval_size(v, r->cow_of->chunk_size);
    else if (s && s->kind == LVX_SEG_THIN_POOL)
        lvx_rval_size(v, s->chunk_size);
    else if (lvx_report_cache_settings_seg(s))   /* a cache LV: its pool's (or its own on a cachevol) */
        lvx_rval_size(v, lvx_report_cache_settings_seg(s)->chunk_size);
    else
        lvx_rval_size(v, 0);
}

LVX_RGETTER(thin_count)
{
    (void)rc;
    const struct lvx_seg *s = row->seg;
    if (!s || s->kind != LVX_SEG_THIN_POOL) {
        lvx_rval_blank(v, LVX_FT_NUM);
        return;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < row->vg->lv_count; i++) {
        const struct lvx_lv *lv = row->vg->lvs[i];
        if (lv->seg_count && lv->segs[0].kind == LVX_SEG_THIN && lv->segs[0].pool_lv == s->lv)
            n++;
    }
    lvx_rval_num(v, n);
}

static const struct lvx_seg *pool_seg(const struct lvx_seg *s)
{
    if (s && s->kind == LVX_SEG_THIN && s->pool_lv && s->pool_lv->seg_count)
        return &s->pool_lv->segs[0];
    return s && s->kind == LVX_SEG_THIN_POOL ? s : NULL;
}

LVX_RGETTER(discards)
{
    (void)rc;
    const struct lvx_seg *p = pool_seg(row->seg);
    const char *d = p ? lvx_report_seg_raw_str(p, "discards") : NULL;
    lvx_rval_str(v, p ? (d ? d : "ignore") : "");
}

LVX_RGETTER(zero)
{
    (void)rc;
    const struct lvx_seg *s = row->seg;
    if (s && (s->kind == LVX_SEG_THIN || s->kind == LVX_SEG_THIN_POOL))
        lvx_rval_str(v, lvx_report_seg_zero(s) ? "zero" : "");
    else
        lvx_rval_str(v, s || row->free_run ? "unknown" : "");
}

LVX_RGETTER(transaction_id)
{
    (void)rc;
    int64_t id;
    const struct lvx_seg *s = row->seg;
    bool thin = s && (s->kind == LVX_SEG_THIN || s->kind == LVX_SEG_THIN_POOL);
    if (thin && lvx_report_seg_raw_int(s, "transaction_id", &id))
        lvx_rval_num(v, id);
    else
        lvx_rval_blank(v, LVX_FT_NUM);
}

LVX_RGETTER(thin_id)
{
    (void)rc;
    int64_t id;
    const struct lvx_seg *s = row->seg;
    if (s && s->kind == LVX_SEG_THIN && lvx_report_seg_raw_int(s, "device_id", &id))
        lvx_rval_num(v, id);
    else
        lvx_rval_blank(v, LVX_FT_NUM);
}

LVX_RGETTER(seg_start)
{
    (void)rc;
    lvx_rval_size(v, row->seg ? row->seg->start_extent * extent_size(row) : 0);
}

LVX_RGETTER(seg_start_pe)
{
    (void)rc;
    lvx_rval_num(v, row->seg ? (int64_t)row->seg->start_extent : 0);
}

static uint64_t seg_extents(const struct lvx_rrow *row)
{
    return row->seg ? row->seg->extent_count : row->pvseg_size;
}

LVX_RGETTER(seg_size) { (void)rc; lvx_rval_size(v, seg_extents(row) * extent_size(row)); }
LVX_RGETTER(seg_size_pe) { (void)rc; lvx_rval_num(v, (int64_t)seg_extents(row)); }

LVX_RGETTER(seg_tags) { lvx_rval_tags(rc->pool, v, row->seg ? &row->seg->tags : NULL); }

static uint64_t lv_extents(const struct lvx_lv *lv)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < lv->seg_count; i++)
        n += lv->segs[i].extent_count;
    return n;
}

/* --- area lists ----------------------------------------------------------- */
enum area_style { RANGES_PE, RANGES_LE, DEVICES };

static void put_area(struct lvx_rctx *rc, const struct lvx_rrow *row, struct lvx_buf *b,
                     const struct lvx_area *a, uint64_t len, enum area_style style, bool meta)
{
    const char *name;
    /* LVM2 prints a data area on an LV from its first extent, whatever LE the segment
     * starts at there (a pvmove layer: "pvmove0(0)" for every LV it moves) */
    uint64_t start = a->lv && !meta ? 0 : a->start;
    if (a->pv)
        name = lvx_report_pv_dev_name(a->pv);
    else if (a->lv && style == RANGES_LE)
        name = lvx_report_lv_display_name(rc->pool, row->rvg, a->lv,
                                          rc->opts->unmark_hidden);
    else
        name = a->lv ? a->lv->name : "[unknown]";
    if (style == DEVICES)
        lvx_buf_printf(b, "%s(%llu)", name, (unsigned long long)start);
    else
        lvx_buf_printf(b, "%s:%llu-%llu", name, (unsigned long long)start,
                       (unsigned long long)(start + (len ? len - 1 : 0)));
}

static void area_list(struct lvx_rctx *rc, const struct lvx_rrow *row, struct lvx_rval *v,
                      bool meta, enum area_style style)
{
    const struct lvx_seg *s = row->seg;
    const struct lvx_area *areas = s ? (meta ? s->meta_areas : s->areas) : NULL;
    if (!areas || !s->area_count) {
        lvx_rval_list(v, NULL);
        return;
    }
    struct lvx_strlist l = { 0, lvx_pool_alloc(rc->pool, sizeof(char *) * s->area_count) };
    struct lvx_buf b = LVX_BUF_INIT;
    for (uint32_t i = 0; i < s->area_count; i++) {
        const struct lvx_area *a = &areas[i];
        if (!a->pv && !a->lv)
            continue;
        /* an LV area: the whole sub-LV, as LVM2 */
        uint64_t len = a->lv ? lv_extents(a->lv) : lvx_report_seg_area_len(s);
        lvx_buf_reset(&b);
        put_area(rc, row, &b, a, len, style, meta);
        l.v[l.n++] = lvx_pool_strdup(rc->pool, lvx_buf_str(&b));
    }
    lvx_buf_free(&b);
    lvx_rval_list(v, &l);
}

/* seg_pe_ranges is printed space-separated by LVM2: one string */
LVX_RGETTER(seg_pe_ranges)
{
    struct lvx_rval tmp;
    area_list(rc, row, &tmp, false, RANGES_PE);
    struct lvx_buf b = LVX_BUF_INIT;
    for (unsigned i = 0; i < tmp.list.n; i++) {
        if (i)
            lvx_buf_putc(&b, ' ');
        lvx_buf_puts(&b, tmp.list.v[i]);
    }
    lvx_rval_str(v, lvx_pool_strdup(rc->pool, lvx_buf_str(&b)));
    lvx_buf_free(&b);
}

LVX_RGETTER(seg_le_ranges) { area_list(rc, row, v, false, RANGES_LE); }
LVX_RGETTER(seg_metadata_le_ranges) { area_list(rc, row, v, true, RANGES_LE); }
LVX_RGETTER(devices) { area_list(rc, row, v, false, DEVICES); }
LVX_RGETTER(metadata_devices) { area_list(rc, row, v, true, DEVICES); }

/* cache_mode, cache_policy, cache_metadata_format: the cache settings' segment's
 * (lvx_report_cache_settings_seg: a cache LV shows its pool's) */
static const char *cache_setting(const struct lvx_rrow *row, const char *key)
{
    const struct lvx_seg *s = lvx_report_cache_settings_seg(row->seg);
    return s ? lvx_report_seg_raw_str(s, key) : NULL;
}

LVX_RGETTER(cache_mode) { (void)rc; lvx_rval_str(v, cache_setting(row, "cache_mode")); }
LVX_RGETTER(cache_policy) { (void)rc; lvx_rval_str(v, cache_setting(row, "policy")); }

LVX_RGETTER(cache_settings)
{
    struct lvx_strlist l;
    lvx_report_cache_settings(row->seg, rc->pool, &l);
    lvx_rval_list(v, l.n ? &l : NULL);
}

LVX_RGETTER(cache_metadata_format)
{
    (void)rc;
    const struct lvx_seg *s = lvx_report_cache_settings_seg(row->seg);
    int64_t f = 0;
    if (s && lvx_report_seg_raw_int(s, "metadata_format", &f) && (f == 1 || f == 2))
        lvx_rval_num(v, f);
    else
        lvx_rval_blank(v, LVX_FT_NUM);
}

/* raid levels that can reshape (not raid0/raid1) and their images: 0 */
static bool reshapable(const struct lvx_seg *s)
{
    return s && s->kind == LVX_SEG_RAID && !type_starts(s, "raid0") &&
           strcmp(lvx_report_seg_type(s), "raid1") != 0;
}

const struct lvx_lv *lvx_report_reshapable_lv(const struct lvx_rrow *row)
{
    if (!row->seg || !row->lv)
        return NULL;
    if (reshapable(row->seg))
        return row->lv;
    /* an image's first segment only (LVM2 2.03.16 leaves its later ones blank: the
     * guest's rimages of 2 segments after --stripes); LVM2 finds the RAID LV by the
     * image's name cut at its first '_' (past "_dup_"), so the images of an LV whose
     * name has a '_' get blanks (the guest's r_4) */
    const struct lvx_rlv *r = lvx_report_rlv(row->rvg, row->lv);
    if (!r || r->role != LVX_RROLE_RIMAGE || row->seg->start_extent != 0 || !row->lv->vg)
        return NULL;
    const char *name = row->lv->name, *p = strchr(name, '_');
    if (p && strstr(p, "_dup_"))
        p = strchr(p + 5, '_');
    if (!p)
        return NULL;
    char top[LVX_NAME_MAX + 1];
    size_t n = (size_t)(p - name);
    if (n > LVX_NAME_MAX)
        return NULL;
    memcpy(top, name, n);
    top[n] = 0;
    const struct lvx_lv *lv = lvx_vg_find_lv(row->lv->vg, top);
    return lv && lv->seg_count && reshapable(&lv->segs[0]) ? lv : NULL;
}

static bool has_reshape_len(const struct lvx_rrow *row)
{
    return lvx_report_reshapable_lv(row) != NULL;
}

/* LVM2's reshape_len: reshape_count in an image's segment, times the images in the
 * RAID LV's (what LVM2 2.03.16 reports: 4 for a raid5 of 4 images with 1 each) */
static uint64_t reshape_le(const struct lvx_rrow *row)
{
    if (!row->seg)
        return 0;
    return (uint64_t)row->seg->reshape_count *
           (row->seg->kind == LVX_SEG_RAID ? row->seg->area_count : 1);
}

LVX_RGETTER(reshape_len)
{
    lvx_rval_size(v, reshape_le(row) * (row->lv && row->lv->vg ? row->lv->vg->extent_size : 0));
    v->blank = !has_reshape_len(row);
    (void)rc;
}

LVX_RGETTER(reshape_len_le)
{
    (void)rc;
    lvx_rval_num(v, reshape_le(row));
    v->blank = !has_reshape_len(row);
}

