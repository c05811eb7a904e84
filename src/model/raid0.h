/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid0.h - a raid0 / raid0_meta LV seen as the striped LV it equals: over N
 * rimages of equal size (data offset 0) md's raid0 maps chunk k of the LV to chunk
 * k / N of rimage k % N, which is dm-striped's mapping over the rimages' extents.
 * Used by lvconvert --type striped (cmd/lvconvert_raid0.c) and by the daemon, which
 * serves a raid0 LV through that striped mapping (daemon/target.c).
 */
#ifndef LVX_MODEL_RAID0_H
#define LVX_MODEL_RAID0_H

#include "model/model.h"

/* Is lv a raid0 or raid0_meta LV (one RAID segment of that type)? */
bool lvx_raid0_is(const struct lvx_lv *lv);

/* The striped segments (in pool; lv untouched) over lv's rimages' PV extents: one per
 * run where no rimage crosses a segment boundary, stripe size the LV's, each
 * segment's lv set to lv.  0, or -EINVAL (ctx: "Failed to retrieve raid0 segments
 * from VG/LV.") when the rimages differ in size or are not plain PV extents. */
int lvx_raid0_striped_segs(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                           struct lvx_seg **segs, unsigned *count);

#endif
