/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/striped.c - the striped target (lvm2-format.md §13, §15; the kernel's
 * dm-stripe).  For an offset x inside the segment and chunk size c:
 *     chunk = x / c, stripe j = chunk mod k, row = chunk / k,
 *     PV sector = pe_start(pv_j) + p_j * E + row * c + x mod c.
 * Power-of-two chunk sizes and stripe counts use shifts and masks; any other value
 * goes through the general division path (the kernel accepts both).
 * Entry point: the lvx_map_striped ops table.
 */
#include "map/map.h"

#include <errno.h>
#include <inttypes.h>

static bool is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

static int striped_check(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size)
{
    int r = lvx_map_check_pv_areas(ctx, seg);
    if (r < 0)
        return r;
    uint64_t area_sectors = seg->extent_count / seg->stripe_count * (uint64_t)extent_size;
    if (seg->stripe_size == 0)
        return lvx_error(ctx, EINVAL, "LV %s: striped segment at extent %" PRIu64
                         " has no stripe size", seg->lv && seg->lv->name ? seg->lv->name : "?",
                         seg->start_extent);
    if (area_sectors % seg->stripe_size)
        return lvx_error(ctx, EINVAL, "LV %s: stripe size %u sectors does not divide the "
                         "%" PRIu64 " sectors of each stripe",
                         seg->lv && seg->lv->name ? seg->lv->name : "?", seg->stripe_size,
                         area_sectors);
    return 0;
}

/* Split x into (chunk, offset in chunk), then chunk into (row, stripe). */
static void striped_map(const struct lvx_seg *seg, uint32_t extent_size, uint64_t x,
                        struct lvx_map_loc *out)
{
    uint64_t c = seg->stripe_size, k = seg->stripe_count;
    uint64_t chunk, in_chunk, stripe, row;

    if (is_pow2(c)) {                               /* fast path */
        unsigned shift = (unsigned)__builtin_ctzll(c);
        chunk = x >> shift;
        in_chunk = x & (c - 1);
    } else {
        chunk = x / c;
        in_chunk = x % c;
    }
    if (is_pow2(k)) {
        stripe = chunk & (k - 1);
        row = chunk >> __builtin_ctzll(k);
    } else {
        stripe = chunk % k;
        row = chunk / k;
    }
    uint64_t left_in_seg = seg->extent_count * extent_size - x;
    out->kind = LVX_MAP_PV;
    out->pv = seg->areas[stripe].pv;
    out->pv_sector = lvx_map_area_sector(seg, (uint32_t)stripe, extent_size) + row * c + in_chunk;
    out->len = c - in_chunk < left_in_seg ? c - in_chunk : left_in_seg;
}

static int striped_table(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                         struct lvx_buf *out)
{
    lvx_buf_printf(out, " %u %u", seg->stripe_count, seg->stripe_size);
    for (uint32_t j = 0; j < seg->stripe_count; j++) {
        int r;
        lvx_buf_putc(out, ' ');
        if ((r = lvx_map_device(ctx, seg->areas[j].pv, out)) < 0)
            return r;
        lvx_buf_printf(out, " %" PRIu64, lvx_map_area_sector(seg, j, extent_size));
    }
    return 0;
}

static void striped_io_hints(const struct lvx_seg *seg, struct lvx_io_hints *out)
{
    out->io_min = (uint64_t)seg->stripe_size * 512;
    out->io_opt = out->io_min * seg->stripe_count;
}

const struct lvx_map_target lvx_map_striped = {
    .name = "striped",
    .check = striped_check,
    .map = striped_map,
    .table = striped_table,
    .io_hints = striped_io_hints,
};
