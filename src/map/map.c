/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/map.c - LV-level mapping: picks the target of each segment, finds the
 * segment holding a sector (binary search over the LE-ordered segments), renders
 * the dm table and combines I/O hints.  The arithmetic lives in the targets
 * (map/linear.c, map/striped.c, map/fill.c).
 * Entry points: lvx_map_target_of(), lvx_map_lv_sector(), lvx_map_dm_table(),
 * lvx_map_io_hints(), lvx_map_device().
 */
#include "map/map.h"

#include <errno.h>
#include <inttypes.h>

#include "model/thin.h"

static const char *lv_name(const struct lvx_lv *lv)
{
    return lv && lv->name ? lv->name : "?";
}

const struct lvx_map_target *lvx_map_target_of(struct lvx_ctx *ctx, const struct lvx_seg *seg)
{
    switch (seg->kind) {
    case LVX_SEG_STRIPED:
        return seg->stripe_count == 1 ? &lvx_map_linear : &lvx_map_striped;
    case LVX_SEG_ERROR:
        return &lvx_map_error;
    case LVX_SEG_ZERO:
        return &lvx_map_zero;
    default:
        break;
    }
    const struct lvx_lv *lv = seg->lv;
    lvx_error(ctx, ENOTSUP, "Segment type \"%s\" of LV %s/%s is not supported by the mapper",
              seg->type_name ? seg->type_name : seg->type ? seg->type : "?",
              lv && lv->vg && lv->vg->name ? lv->vg->name : "?", lv_name(lv));
    return NULL;
}

/* Target of a segment, checked. */
static int checked_target(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                          const struct lvx_map_target **out)
{
    const struct lvx_map_target *t = lvx_map_target_of(ctx, seg);
    if (!t)
        return -ENOTSUP;
    int r = t->check(ctx, seg, extent_size);
    *out = t;
    return r;
}

static int lv_extent_size(struct lvx_ctx *ctx, const struct lvx_lv *lv, uint32_t *out)
{
    if (!lv || !lv->vg || !lv->vg->extent_size)
        return lvx_error(ctx, EINVAL, "LV %s has no VG extent size", lv_name(lv));
    *out = lv->vg->extent_size;
    return 0;
}

/* The segment holding LE `le` (segments are ordered and tile the LV). */
static const struct lvx_seg *seg_of_extent(const struct lvx_lv *lv, uint64_t le)
{
    unsigned lo = 0, hi = lv->seg_count;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        const struct lvx_seg *s = &lv->segs[mid];
        if (le < s->start_extent)
            hi = mid;
        else if (le >= s->start_extent + s->extent_count)
            lo = mid + 1;
        else
            return s;
    }
    return NULL;
}

int lvx_map_lv_sector(struct lvx_ctx *ctx, const struct lvx_lv *lv, uint64_t lv_sector,
                      struct lvx_map_loc *out)
{
    uint32_t e = 0;
    int r = lv_extent_size(ctx, lv, &e);
    if (r < 0)
        return r;
    const struct lvx_seg *seg = seg_of_extent(lv, lv_sector / e);
    if (!seg)
        return lvx_error(ctx, EINVAL, "Sector %" PRIu64 " is beyond the end of LV %s (%" PRIu64
                         " sectors)", lv_sector, lv_name(lv), lv->le_count * (uint64_t)e);
    const struct lvx_map_target *t;
    if ((r = checked_target(ctx, seg, e, &t)) < 0)
        return r;
    t->map(seg, e, lv_sector - seg->start_extent * (uint64_t)e, out);
    return 0;
}

int lvx_map_device(struct lvx_ctx *ctx, const struct lvx_pv *pv, struct lvx_buf *out)
{
    if (pv->flags & LVX_PVF_MISSING)
        return lvx_error(ctx, ENODEV, "PV pv%u is missing", pv->index);
    if (pv->ondisk.dev_major || pv->ondisk.dev_minor) {
        lvx_buf_printf(out, "%u:%u", pv->ondisk.dev_major, pv->ondisk.dev_minor);
        return 0;
    }
    if (pv->ondisk.dev_name && *pv->ondisk.dev_name) {
        lvx_buf_puts(out, pv->ondisk.dev_name);
        return 0;
    }
    return lvx_error(ctx, ENODEV, "PV pv%u has no device (neither major:minor nor a path)",
                     pv->index);
}

int lvx_map_dm_table(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_buf *out)
{
    uint32_t e = 0;
    int r = lv_extent_size(ctx, lv, &e);
    if (r < 0)
        return r;
    if (lv->seg_count == 0)
        return lvx_error(ctx, EINVAL, "LV %s has no segments", lv_name(lv));
    size_t rollback = out->len;
    uint64_t limit = lvx_lv_table_limit(lv);     /* a cropped _tmeta */
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        const struct lvx_map_target *t;
        uint64_t start = seg->start_extent * (uint64_t)e, len = seg->extent_count * (uint64_t)e;
        if (start >= limit)
            break;
        if ((r = checked_target(ctx, seg, e, &t)) < 0)
            break;
        lvx_buf_printf(out, "%" PRIu64 " %" PRIu64 " %s", start,
                       len > limit - start ? limit - start : len, t->name);
        if ((r = t->table(ctx, seg, e, out)) < 0)
            break;
        lvx_buf_putc(out, '\n');
    }
    if (r < 0 && out->data) {       /* no half table */
        out->len = rollback;
        out->data[rollback] = '\0';
    }
    return r;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int lvx_map_io_hints(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_io_hints *out)
{
    uint32_t e = 0;
    int r = lv_extent_size(ctx, lv, &e);
    out->io_min = out->io_opt = 0;
    if (r < 0)
        return r;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_map_target *t;
        struct lvx_io_hints h;
        if ((r = checked_target(ctx, &lv->segs[s], e, &t)) < 0)
            return r;
        t->io_hints(&lv->segs[s], &h);
        if (h.io_min > out->io_min)
            out->io_min = h.io_min;
        if (h.io_opt)
            out->io_opt = out->io_opt ? out->io_opt / gcd_u64(out->io_opt, h.io_opt) * h.io_opt
                                      : h.io_opt;
    }
    return 0;
}
