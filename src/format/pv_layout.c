/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/pv_layout.c - pvcreate geometry (see pv_layout.h and lvm2-format.md §12.3).
 *
 * Order of the computation, all in bytes:
 *   1. data alignment A (explicit, else topology, else 1 MiB; at least a page) and
 *      offset F (explicit, else the device's alignment offset);
 *   2. mda0 at 4096 (2048 on tiny devices), its size grown so that it ends on an A
 *      boundary (+F), shrunk when the device is too small;
 *   3. the bootloader area (B rounded up to A) after mda0;
 *   4. mda1 at the end of the device, moved down to an A boundary when that fits.
 */
#include "format/pv_layout.h"

#include <errno.h>

static uint64_t round_up(uint64_t v, uint64_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

static uint64_t round_down(uint64_t v, uint64_t a)
{
    return a ? v / a * a : v;
}

static uint64_t choose_alignment(const struct lvx_pv_layout_req *req)
{
    uint64_t a = req->data_alignment;
    if (!a) {
        a = req->default_alignment ? req->default_alignment : LVX_DEFAULT_DATA_ALIGNMENT;
        /* topology: use the device's preferred I/O size when the default is not a multiple
         * of it */
        uint64_t topo = req->io_opt > req->io_min ? req->io_opt : req->io_min;
        if (topo > LVX_PAGE_SIZE && a % topo)
            a = topo;
    }
    return a;
}

/* mda0: returns the end of the area (the next free byte) */
static int place_mda0(struct lvx_ctx *ctx, const struct lvx_pv_layout_req *req, uint64_t a,
                      uint64_t f, uint64_t limit, struct lvx_pv_layout *out)
{
    uint64_t start = 2048;
    if (limit > start && limit - start >= 32768)
        start = round_up(start, LVX_PAGE_SIZE);
    uint64_t size = req->mda_size ? round_up(req->mda_size, 512) : LVX_DEFAULT_MDA_SIZE;

    if ((start + size) % a) {
        uint64_t grown = round_up(start + size, a) - start;
        if (start + grown <= limit)
            size = grown;
    }
    if (f && (start + size) % a == 0 && start + size + f <= limit)
        size += f;
    if (req->pe_start_fixed) {
        if (req->pe_start_fixed <= start)
            return lvx_error(ctx, EINVAL, "pe_start %llu leaves no room for a metadata area",
                             (unsigned long long)req->pe_start_fixed);
        size = req->pe_start_fixed - start - req->ba_size;
    }
    if (start + size > limit) {
        /* too big for the device: end two alignment units before the limit if possible */
        uint64_t end = limit > 2 * a ? round_up(limit - 2 * a, a) : 0;
        size = end > start && end <= limit ? end - start : limit - start;
    }
    if (size < 32768)
        return lvx_error(ctx, EINVAL,
                         "Metadata area size too small: %llu bytes. It must be at least 32768 bytes.",
                         (unsigned long long)size);
    out->mda_start[out->mda_count] = start;
    out->mda_size[out->mda_count] = size;
    out->mda_count++;
    return 0;
}

int lvx_pv_layout_compute(struct lvx_ctx *ctx, const struct lvx_pv_layout_req *req,
                          struct lvx_pv_layout *out)
{
    *out = (struct lvx_pv_layout){0};
    if (req->mda_copies > 2)
        return lvx_error(ctx, EINVAL, "metadatacopies must be 0, 1 or 2");
    if (req->dev_size < LVX_MIN_PV_SIZE)
        return lvx_error(ctx, EINVAL, "device of %llu bytes is smaller than the 2 MiB minimum",
                         (unsigned long long)req->dev_size);
    if (req->data_alignment % 512)
        return lvx_error(ctx, EINVAL, "data alignment %llu is not a multiple of 512 bytes",
                         (unsigned long long)req->data_alignment);

    uint64_t a = choose_alignment(req);
    uint64_t f = req->has_alignment_offset ? req->alignment_offset : req->topo_alignment_offset;
    if (f > a)
        return lvx_error(ctx, EINVAL, "data alignment offset %llu is larger than the data alignment %llu",
                         (unsigned long long)f, (unsigned long long)a);
    out->data_alignment = a;

    uint64_t b = req->ba_size ? round_up(req->ba_size, a) : 0;
    if (b && a + f + b > req->dev_size)
        return lvx_error(ctx, EINVAL, "Bootloader area with data-aligned start must not exceed "
                         "device size (%llu bytes on a %llu-byte device).",
                         (unsigned long long)b, (unsigned long long)req->dev_size);
    uint64_t data_start = a + f;
    if (req->mda_copies >= 1) {
        int r = place_mda0(ctx, req, a, f, req->dev_size - b, out);
        if (r)
            return r;
        data_start = out->mda_start[0] + out->mda_size[0];
    }
    if (b) {
        out->ba_start = data_start;
        out->ba_size = b;
        data_start += b;
    }
    out->pe_start = req->pe_start_fixed ? req->pe_start_fixed : data_start;
    if (out->pe_start > req->dev_size)
        return lvx_error(ctx, EINVAL, "data area would start at %llu, past the end of the %llu-byte device",
                         (unsigned long long)out->pe_start, (unsigned long long)req->dev_size);

    if (req->mda_copies == 2) {
        uint64_t m = req->mda_size ? round_up(req->mda_size, 512) : LVX_DEFAULT_MDA_SIZE;
        uint64_t limit = req->pe_end_fixed ? req->pe_end_fixed : out->pe_start;
        if (req->pe_end_fixed && (limit >= req->dev_size || req->dev_size - limit < 32768))
            return lvx_error(ctx, ENOSPC, "Not enough space available for metadata area with "
                             "index 1");
        uint64_t start = req->dev_size > m ? req->dev_size - m : 0;
        if (start < limit)
            start = limit;
        else if (start % a && round_down(start, a) >= limit)
            start = round_down(start, a);
        start = round_down(start, 512);
        uint64_t size = req->dev_size - start;
        if (size < 32768)
            return lvx_error(ctx, EINVAL, "no room for a second metadata area at the end of the device");
        out->mda_start[1] = start;
        out->mda_size[1] = size;
        out->mda_count = 2;
    }
    return 0;
}

uint64_t lvx_pv_layout_pe_count(const struct lvx_pv_layout *layout, uint64_t dev_size,
                                uint32_t extent_size)
{
    uint64_t end = layout->mda_count == 2 ? layout->mda_start[1] : dev_size;
    uint64_t pe_start = layout->pe_start;
    if (!extent_size || end <= pe_start)
        return 0;
    return (end - pe_start) / 512 / extent_size;
}
