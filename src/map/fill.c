/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/fill.c - the targets without data: error (every I/O fails) and zero (reads
 * give zeros, writes vanish), lvm2-format.md §15.  Their table lines carry no
 * arguments.  Entry points: the lvx_map_error and lvx_map_zero ops tables.
 */
#include "map/map.h"

static int fill_check(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size)
{
    return 0;
}

static void fill_map(const struct lvx_seg *seg, uint32_t extent_size, uint64_t offset,
                     struct lvx_map_loc *out, enum lvx_map_kind kind)
{
    out->kind = kind;
    out->pv = NULL;
    out->pv_sector = 0;
    out->len = seg->extent_count * extent_size - offset;
}

static void error_map(const struct lvx_seg *seg, uint32_t extent_size, uint64_t offset,
                      struct lvx_map_loc *out)
{
    fill_map(seg, extent_size, offset, out, LVX_MAP_ERROR);
}

static void zero_map(const struct lvx_seg *seg, uint32_t extent_size, uint64_t offset,
                     struct lvx_map_loc *out)
{
    fill_map(seg, extent_size, offset, out, LVX_MAP_ZERO);
}

static int fill_table(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                      struct lvx_buf *out)
{
    return 0;
}

static void fill_io_hints(const struct lvx_seg *seg, struct lvx_io_hints *out)
{
    out->io_min = 0;
    out->io_opt = 0;
}

const struct lvx_map_target lvx_map_error = {
    .name = "error",
    .check = fill_check,
    .map = error_map,
    .table = fill_table,
    .io_hints = fill_io_hints,
};

const struct lvx_map_target lvx_map_zero = {
    .name = "zero",
    .check = fill_check,
    .map = zero_map,
    .table = fill_table,
    .io_hints = fill_io_hints,
};
