/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/pv_layout.h - where pvcreate puts things on a new PV (lvm2-format.md §12.3):
 * label sector, metadata area 0 and 1, bootloader area and pe_start, computed the way
 * LVM2 computes them for the same device size, options and topology.  Pure arithmetic.
 */
#ifndef LVX_FORMAT_PV_LAYOUT_H
#define LVX_FORMAT_PV_LAYOUT_H

#include <stdint.h>
#include <stdbool.h>

#include "util/ctx.h"

#define LVX_DEFAULT_MDA_SIZE 1044480u          /* bytes, 4 KiB pages (2040 sectors) */
#define LVX_DEFAULT_DATA_ALIGNMENT (1u << 20)   /* bytes */
#define LVX_PAGE_SIZE 4096u
#define LVX_MIN_PV_SIZE (2u << 20)              /* bytes */

struct lvx_pv_layout_req {
    uint64_t dev_size;            /* D: device size, bytes */
    uint64_t mda_size;            /* M: --metadatasize in bytes, 0 = default */
    uint64_t data_alignment;      /* A: --dataalignment in bytes, 0 = default/topology */
    uint64_t default_alignment;   /* devices/default_data_alignment, bytes (0: 1 MiB) */
    bool has_alignment_offset;    /* --dataalignmentoffset given */
    uint64_t alignment_offset;    /* F: bytes */
    uint64_t ba_size;             /* B: --bootloaderareasize, bytes */
    unsigned mda_copies;          /* c: 0, 1 or 2 */
    /* device topology (bytes, 0 = unknown), used when no explicit value is given */
    uint64_t io_min, io_opt, topo_alignment_offset;
    uint64_t pe_start_fixed;      /* bytes; non-zero pins pe_start (--restorefile) */
    uint64_t pe_end_fixed;        /* bytes; non-zero: the data area ends there (--restorefile:
                                     its extents), a second metadata area comes after it */
};

struct lvx_pv_layout {
    uint64_t pe_start;            /* bytes */
    unsigned mda_count;
    uint64_t mda_start[2], mda_size[2];   /* bytes */
    uint64_t ba_start, ba_size;           /* bytes, 0 if none */
    uint64_t data_alignment;              /* the A actually used */
};

/* Compute the layout; -EINVAL with a message when it cannot fit (device too small,
 * metadata area below 32 KiB, offset larger than the alignment, ...); -ENOSPC when a
 * second metadata area has no room after pe_end_fixed (LVM2's "Not enough space"). */
int lvx_pv_layout_compute(struct lvx_ctx *ctx, const struct lvx_pv_layout_req *req,
                          struct lvx_pv_layout *out);

/* pe_count for a PV of this layout and extent size (sectors), §12.2. */
uint64_t lvx_pv_layout_pe_count(const struct lvx_pv_layout *layout, uint64_t dev_size,
                                uint32_t extent_size);

#endif
