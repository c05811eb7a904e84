/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/linear.c - the linear target: a striped segment with one stripe
 * (lvm2-format.md §13, §15).  LE s+i is PE p+i of the area's PV.
 * Entry point: the lvx_map_linear ops table.
 */
#include "map/map.h"

#include <errno.h>
#include <inttypes.h>

static const char *lv_name(const struct lvx_seg *seg)
{
    return seg->lv && seg->lv->name ? seg->lv->name : "?";
}

int lvx_map_check_pv_areas(struct lvx_ctx *ctx, const struct lvx_seg *seg)
{
    if (seg->stripe_count == 0 || seg->area_count != seg->stripe_count)
        return lvx_error(ctx, EINVAL, "LV %s: segment at extent %" PRIu64 " has %u areas for "
                         "%u stripes", lv_name(seg), seg->start_extent, seg->area_count,
                         seg->stripe_count);
    if (seg->extent_count % seg->stripe_count)
        return lvx_error(ctx, EINVAL, "LV %s: segment at extent %" PRIu64 ": %" PRIu64
                         " extents are not divisible by %u stripes", lv_name(seg),
                         seg->start_extent, seg->extent_count, seg->stripe_count);
    for (uint32_t j = 0; j < seg->area_count; j++)
        if (!seg->areas[j].pv)
            return lvx_error(ctx, ENOTSUP, "LV %s: segment at extent %" PRIu64 " stripes over "
                             "logical volumes, which the mapper does not support", lv_name(seg),
                             seg->start_extent);
    return 0;
}

uint64_t lvx_map_area_sector(const struct lvx_seg *seg, uint32_t j, uint32_t extent_size)
{
    return seg->areas[j].pv->pe_start + seg->areas[j].start * (uint64_t)extent_size;
}

static int linear_check(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size)
{
    return lvx_map_check_pv_areas(ctx, seg);
}

static void linear_map(const struct lvx_seg *seg, uint32_t extent_size, uint64_t offset,
                       struct lvx_map_loc *out)
{
    out->kind = LVX_MAP_PV;
    out->pv = seg->areas[0].pv;
    out->pv_sector = lvx_map_area_sector(seg, 0, extent_size) + offset;
    out->len = seg->extent_count * extent_size - offset;
}

static int linear_table(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                        struct lvx_buf *out)
{
    int r;
    lvx_buf_putc(out, ' ');
    if ((r = lvx_map_device(ctx, seg->areas[0].pv, out)) < 0)
        return r;
    lvx_buf_printf(out, " %" PRIu64, lvx_map_area_sector(seg, 0, extent_size));
    return 0;
}

static void linear_io_hints(const struct lvx_seg *seg, struct lvx_io_hints *out)
{
    out->io_min = 0;
    out->io_opt = 0;
}

const struct lvx_map_target lvx_map_linear = {
    .name = "linear",
    .check = linear_check,
    .map = linear_map,
    .table = linear_table,
    .io_hints = linear_io_hints,
};
