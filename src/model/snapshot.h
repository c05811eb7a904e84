/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/snapshot.h - old-style (COW) snapshots in the model (model/snapshot.c):
 * adding and removing the internal snapshotN LV that ties a COW LV to its origin,
 * LVM2's COW size rules, the snapshots of an origin.
 */
#ifndef LVX_MODEL_SNAPSHOT_H
#define LVX_MODEL_SNAPSHOT_H

#include "model/model.h"

#define LVX_SNAPSHOT_MIN_CHUNKS 3u
#define LVX_SNAPSHOT_DEFAULT_CHUNK 8u     /* sectors: 4 KiB */
#define LVX_SNAPSHOT_MAX_CHUNK 1024u      /* sectors: 512 KiB */

/* Sectors of a COW that holds every chunk of an origin of origin_sectors (LVM2's
 * _cow_max_size; without fixed_leak 1/64 more chunks, for kernels that may leak). */
uint64_t lvx_cow_max_sectors(uint64_t origin_sectors, uint32_t chunk, bool fixed_leak);
/* The same rounded up to extents (LVM2's cow_max_extents). */
uint32_t lvx_cow_max_extents(const struct lvx_lv *origin, uint32_t chunk, bool fixed_leak);
/* At least LVX_SNAPSHOT_MIN_CHUNKS chunks fit in cow_extents. */
bool lvx_cow_min_ok(const struct lvx_vg *vg, uint64_t cow_extents, uint32_t chunk);

/* Make cow a snapshot of origin: a new internal LV "snapshotN" with the snapshot
 * segment; cow becomes hidden.  Returns the new LV. */
struct lvx_lv *lvx_vg_add_snapshot(struct lvx_vg *vg, struct lvx_lv *origin, struct lvx_lv *cow,
                                   uint32_t chunk);
/* Undo it: remove cow's snapshotN LV, cow is visible again (a plain LV).  Returns
 * the origin, or NULL when cow is no COW LV. */
struct lvx_lv *lvx_vg_remove_snapshot(struct lvx_vg *vg, struct lvx_lv *cow);

/* LVM2's init_snapshot_merge for a COW snapshot: the segment is written with
 * merging_store and its snapshotN LV loses VISIBLE. */
void lvx_snapshot_start_merge(struct lvx_seg *snap_seg);
/* The merging snapshot segment of origin, or NULL. */
struct lvx_seg *lvx_lv_merging_snapshot(const struct lvx_lv *origin);

/* The snapshot segments whose origin is origin (up to max stored in out); the count. */
unsigned lvx_lv_snapshot_segs(const struct lvx_lv *origin, const struct lvx_seg **out,
                              unsigned max);

/* A sparse snapshot's origin for cow: a new LV "<cow>_vorigin" (READ, hidden, one zero
 * segment of extents), as LVM2's _create_virtual_origin; tie it with
 * lvx_vg_add_snapshot().  Returns the new LV. */
struct lvx_lv *lvx_vg_add_virtual_origin(struct lvx_vg *vg, const struct lvx_lv *cow,
                                         uint64_t extents);
/* lv is an origin of snapshots without VISIBLE: a sparse snapshot's virtual origin
 * (LVM2's lv_is_virtual_origin). */
bool lvx_lv_is_virtual_origin(const struct lvx_lv *lv);

#endif
