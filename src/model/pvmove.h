/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/pvmove.h - the metadata of a pvmove, laid out as LVM2 2.03 lays it out
 * (tools/pvmove.c, lib/metadata/mirror.c; docs/lvm2-format.md), in memory only:
 *
 *   setup:      a hidden LV "pvmoveN" (READ WRITE PVMOVE LOCKED, allocation_policy
 *               contiguous) gets one segment per moved area (an LV area on the source
 *               PV, inside the PE ranges); the moved LV's area then points at that
 *               segment ("pvmove0", LE) and the LV is LOCKED.  Each pvmove segment then
 *               becomes a 2-way "mirror" segment [old area, new area] with
 *               extents_moved 0 and the default region size; a segment whose new
 *               space comes in pieces is split, and the LV segment above it too.
 *   checkpoint: a segment copied gets extents_moved = its length (LVM2 commits then).
 *   detach:     every pvmove segment keeps its new area when its extents_moved is
 *               complete, else its old one; the LVs take those areas back (LOCKED
 *               cleared, adjacent segments merged as LVM2 merges them) and pvmoveN
 *               becomes one "error" segment, PVMOVE and LOCKED dropped (LVM2's
 *               first commit of the end; an --abort is the same step).
 *   remove:     pvmoveN goes (the second commit).
 * An atomic move (pvmove --atomic, LVM2's MIRROR_BY_SEGMENTED_LV) lays the same
 * segments out as two hidden linear sub-LVs, pvmoveN_mimage_0 (the old areas, one
 * segment per pvmove segment) and pvmoveN_mimage_1 (the new ones), READ WRITE,
 * created with pvmoveN; pvmoveN is then one "mirror" segment over its whole length
 * [pvmoveN_mimage_0 0, pvmoveN_mimage_1 0], extents_moved 0; the LV segments above
 * are split where the images' segments are (LVM2's parallel areas of pvmoveN follow
 * its images), as for a move by segments.  No
 * checkpoint: the copy of every segment ends in the detach, which keeps every new
 * area, or with --abort every old one; the sub-LVs go with the detach.
 * The model knows no devices: copying the extents is the command's job.
 */
#ifndef LVX_MODEL_PVMOVE_H
#define LVX_MODEL_PVMOVE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/alloc.h"
#include "model/model.h"
#include "util/ctx.h"

struct lvx_pvmove_setup {
    const struct lvx_alloc_pv *src;     /* the source PV, its PE ranges (none: all of it) */
    const char *lv_name;                /* -n: only this LV (and its sub-LVs), or NULL */
    const struct lvx_alloc_pv *dst;     /* PVs to allocate from (the source left out) */
    unsigned dst_count;
    enum lvx_alloc policy;              /* resolved (not INHERIT) */
    uint32_t region_size;               /* sectors: the default (reduced here to the move's
                                         * length as LVM2 reduces it) */
    const char *host;                   /* creation_host of pvmoveN */
    uint64_t now;                       /* creation_time of pvmoveN */
    bool atomic;                        /* --atomic: the layout of two sub-LVs */
    /* Messages and checks of the command (each optional):
     * moving: LVM2's verbose "Moving N extents of logical volume VG/LV.";
     * skip_locked: "Skipping locked LV VG/LV.";
     * refuse: an LV that would be moved; true stops the setup (-EBUSY, the message
     * is the callback's). */
    void (*moving)(void *arg, const struct lvx_lv *lv, uint64_t extents);
    void (*skip_locked)(void *arg, const struct lvx_lv *lv);
    bool (*refuse)(void *arg, const struct lvx_lv *lv);
    void *arg;
};

/* Set up the move in vg (changed in place).  0 and *out = pvmoveN; -ENODATA when
 * nothing is on the source ("No data to move for VG.", message set; *skipped tells
 * whether locked LVs were left out), -ENOENT an unknown -n LV, -ENOSPC no space
 * (the allocator's message), -EBUSY refused by the callback, -EINVAL otherwise.
 * On failure vg is left half changed: the caller drops it. */
int lvx_pvmove_setup(struct lvx_ctx *ctx, struct lvx_vg *vg, const struct lvx_pvmove_setup *s,
                     bool *skipped, struct lvx_lv **out);

/* LVM2's adjusted_mirror_region_size: region (sectors) reduced to the largest power of
 * 2 not above sectors when larger (pvmoveN's region_size: sectors = its whole length;
 * the kernel's mirror line: the mirrored segment's length). */
uint32_t lvx_pvmove_region(uint32_t region, uint64_t sectors);

/* The name setup gives the pvmove LV: "pvmoveN", the first N free (in vg->pool). */
const char *lvx_pvmove_free_name(struct lvx_vg *vg);
/* The pvmove LV moving off pv (its first mirror leg is on pv), or with pv NULL the
 * first pvmove LV of the VG; NULL when none. */
struct lvx_lv *lvx_pvmove_find(const struct lvx_vg *vg, const struct lvx_pv *pv);
/* Whether the pvmove LV mv has the atomic layout (its mirror's legs are LVs). */
bool lvx_pvmove_is_atomic(const struct lvx_lv *mv);
/* The PV a pvmove LV moves from (first leg of its first mirror segment), or NULL (an
 * LV already detached: one error segment). */
struct lvx_pv *lvx_pvmove_source(const struct lvx_lv *mv);
/* Extents copied as LVM2 counts them (copy_percent): complete mirror segments count
 * their extents_moved, other segments their length. */
uint64_t lvx_pvmove_copied(const struct lvx_lv *mv);
/* A pvmove LV the end of a move left between its two commits (hidden "pvmoveN", one
 * error segment, no PVMOVE flag, used by no LV): what a resume removes. */
bool lvx_pvmove_is_leftover(const struct lvx_vg *vg, const struct lvx_lv *lv);
/* The LVs whose segments point at mv, in VG order, into out (vg->lv_count room). */
unsigned lvx_pvmove_users(const struct lvx_vg *vg, const struct lvx_lv *mv,
                          struct lvx_lv **out);

/* Detach (finish or abort): see above.  abort: an atomic move keeps every old area
 * (a move by segments keeps what its checkpoints say either way); without it an
 * atomic move keeps its new areas when its mirror's extents_moved is complete (the
 * copier sets it, uncommitted, before the end).  0 or -EINVAL (a layout LVM2 would
 * refuse too: "Layer boundary mismatch", a pvmove segment that is not a 2-way mirror). */
int lvx_pvmove_detach(struct lvx_ctx *ctx, struct lvx_vg *vg, struct lvx_lv *mv, bool abort);
/* Merge adjacent segments of lv that continue each other on the same PVs (LVM2's
 * lv_merge_segments for striped segments). */
void lvx_lv_merge_segments(struct lvx_lv *lv);
/* All of lv's extents become one error segment (LVM2's replace_lv_with_error_segment:
 * its PV areas let go). */
void lvx_lv_replace_with_error(struct lvx_lv *lv);
/* Split lv->segs[i] at LE offset off (0 < off < extent_count, a multiple of the
 * stripe count for a striped segment): two segments, areas shifted in the second.
 * The segment array is rebuilt in vg->pool (seg pointers go stale). */
void lvx_lv_split_seg(struct lvx_lv *lv, unsigned i, uint64_t off);

#endif
