/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/alloc.h - the extent allocator: where new logical extents of an LV go.
 *
 * Two steps:
 *   1. lvx_alloc_free_maps() builds, for every PV of a VG, the sorted list of its
 *      free PE runs, in one pass over all segment areas (no PV x LV loops).
 *   2. lvx_alloc_extents() chooses PV extents for a request (extent count, stripes,
 *      policy, optional PV list with PE ranges, the LV being extended) following
 *      the placement rules of LVM2 2.03 (written down in alloc.c), and returns new
 *      segments.  On success the chosen extents are removed from the free maps, so
 *      several allocations can be made in a row; on failure nothing changes.
 * lvx_alloc_append() then adds the segments to the LV, merging a segment into the
 * previous one when it continues it on the same PVs (as LVM2 does).
 *
 * The allocator knows no devices: PV order is vg->pvs order (or the order of the
 * request's PV list), sizes are in extents.  The one device fact it uses is the size
 * meta/ copied into pv->ondisk.dev_bytes: free extents past the end of a device that
 * shrank are left out of the maps (LVM2 allocates them; lvx refuses on purpose).
 */
#ifndef LVX_MODEL_ALLOC_H
#define LVX_MODEL_ALLOC_H

#include <stdint.h>
#include <stdbool.h>

#include "model/model.h"
#include "util/ctx.h"
#include "util/pool.h"

/* A run of physical extents [start, start + count). */
struct lvx_pe_run {
    uint64_t start;
    uint64_t count;
};

/* Free space of one PV: runs sorted by start, never adjacent nor overlapping. */
struct lvx_pv_free {
    struct lvx_pv *pv;
    bool usable;               /* allocatable and not missing */
    unsigned run_count;
    unsigned run_cap;
    struct lvx_pe_run *runs;
    uint64_t free_count;       /* sum of run counts */
    uint64_t past_end;         /* free extents past the end of the PV's device (it shrank
                                  below the PV size): never allocated, not in runs */
};

struct lvx_free_maps {
    const struct lvx_vg *vg;
    struct lvx_pool *pool;     /* the runs live here */
    unsigned pv_count;
    struct lvx_pv_free *pvs;   /* indexed by pv->index */
};

/* Build the free maps of every PV of vg (allocated in pool).  Areas overlapping
 * each other or reaching beyond pe_count are an error (-EINVAL), as in
 * lvx_vg_validate().  Cost: O(A log A) for A PV-backed areas, O(PVs) memory. */
int lvx_alloc_free_maps(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_vg *vg,
                        struct lvx_free_maps **out);

/* One PV the caller allows ("/dev/sdb" or "/dev/sdb:0-99:200-299" parsed by the
 * caller).  range_count 0 = the whole PV.  The same PV may be listed twice: its
 * ranges are united and it keeps its first position; overlapping ranges are an
 * error, as in LVM2 ("Overlapping PE ranges specified (0-30, 10-12) on /dev/x"). */
struct lvx_alloc_pv {
    struct lvx_pv *pv;
    unsigned range_count;
    const struct lvx_pe_run *ranges;
};

struct lvx_alloc_request {
    uint64_t extents;          /* logical extents to add (multiple of stripes) */
    uint32_t stripes;          /* >= 1 */
    uint32_t stripe_size;      /* sectors, power of two >= 8; ignored when stripes == 1 */
    enum lvx_alloc policy;     /* CONTIGUOUS, CLING (CLING_BY_TAGS acts as CLING), NORMAL,
                                  ANYWHERE; INHERIT is resolved by the caller */
    unsigned pv_count;         /* 0: every allocatable PV of the VG, in VG order */
    const struct lvx_alloc_pv *pvs;
    const struct lvx_lv *lv;   /* LV being extended (its segments guide placement), or NULL */
    const char *lv_name;       /* for messages when lv is NULL (new LV) */
};

struct lvx_alloc_area {
    struct lvx_pv *pv;
    uint64_t start;            /* first PE */
};

/* One new striped (stripe_count 1 = linear) segment. */
struct lvx_alloc_seg {
    uint64_t start_extent;     /* LE in the LV (continues after lv->le_count) */
    uint64_t extent_count;     /* LEs; each area covers extent_count / stripe_count PEs */
    uint32_t stripe_count;
    uint32_t stripe_size;      /* sectors, 0 for linear */
    struct lvx_alloc_area *areas;
};

struct lvx_alloc_result {
    unsigned seg_count;
    struct lvx_alloc_seg *segs;  /* in LE order; allocated in the pool given */
};

/* Choose extents for req; the result lives in pool.  Errors (message set):
 *   -EINVAL  bad request, or more stripes than PVs ("Number of stripes (4) must not
 *            exceed number of physical volumes (3)");
 *   -ENOSPC  not enough free extents ("Insufficient free space: N extents needed,
 *            but only M available", or LVM2's VG wording without a PV list), or the
 *            policy cannot place them ("Insufficient suitable [contiguous]
 *            allocatable extents for logical volume LV: N more required"). */
int lvx_alloc_extents(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_free_maps *maps,
                      const struct lvx_alloc_request *req, struct lvx_alloc_result *out);

/* Append the segments to lv (allocated in lv->vg->pool), merging each with the
 * LV's last segment when it is striped with the same stripe count and size and
 * every stripe continues right after the last one's area on the same PV.
 * The segments must start at lv->le_count.  0 or -EINVAL. */
int lvx_alloc_append(struct lvx_ctx *ctx, struct lvx_lv *lv, const struct lvx_alloc_result *res);

/* Append count extents of a segment without PV areas (kind LVX_SEG_ZERO or
 * LVX_SEG_ERROR: the "zero" and "error" targets) at lv's end, merged into the last
 * segment when that is of the same kind and untagged (as LVM2 does). */
void lvx_alloc_append_virtual(struct lvx_lv *lv, enum lvx_seg_kind kind, uint64_t count);

/* Free extents of one PV as seen by the maps (0 for an unknown PV). */
uint64_t lvx_alloc_pv_free(const struct lvx_free_maps *maps, const struct lvx_pv *pv);

#endif
