/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/restripe.h - the metadata of an online restripe (lvx's own: LVM2 reshapes only
 * RAID LVs), `lvconvert --stripes N [-I SIZE] VG/LV`, in memory only.  Every commit
 * is an ordinary LVM2 layout:
 *
 *   setup:      the whole new layout (N stripes over free extents) is allocated as
 *               the hidden LV "LV_restripe" (READ WRITE, striped segments); LV gets
 *               LOCKED (lvx and LVM2 then refuse to resize or convert it).
 *   invariant:  P = LV extents - LV_restripe extents.  LEs [0, P) of LV are on the
 *               new layout already; LEs [P, end) are still on the old segments; the
 *               new place of LE P + x is LE x of LV_restripe.
 *   step:       once LEs [P, C) are copied (C a cut: lvx_restripe_next_cut), the
 *               first C - P extents of LV_restripe become LV's segments over [P, C),
 *               the old extents there go to the end of the hidden LV
 *               "LV_restripe_old" (made by the first step), LV_restripe shrinks from
 *               its front; the step that empties LV_restripe removes it (LV stays
 *               LOCKED).
 *   release:    after the reload that follows the last step, LV_restripe_old goes
 *               (the old extents are free) and LV is unlocked.
 * The old extents stay allocated until then because a daemon serving LV may still
 * write them (its model of the last commit but one) until it reloads: a copier killed
 * between a commit and the reload leaves that model in place, and extents freed by
 * the commit could be given to another LV meanwhile.  The whole old layout is held at
 * most, as at the setup: no more space is needed.
 * A crash between commits leaves one of these states, each read by LVM2 as it is.
 */
#ifndef LVX_MODEL_RESTRIPE_H
#define LVX_MODEL_RESTRIPE_H

#include <stdint.h>

#include "model/alloc.h"
#include "model/model.h"
#include "util/ctx.h"

/* The name of lv's reservation LV ("<lv>_restripe", in vg->pool). */
const char *lvx_restripe_name(struct lvx_pool *pool, const struct lvx_lv *lv);
/* lv's restripe in progress: its reservation LV (hidden, striped segments over PVs,
 * lv LOCKED, no larger than lv), or NULL. */
struct lvx_lv *lvx_restripe_rsv(const struct lvx_lv *lv);
/* lv's restripe in progress: the LV holding its old extents ("<lv>_restripe_old",
 * hidden, striped segments over PVs, lv LOCKED), or NULL. */
struct lvx_lv *lvx_restripe_old(const struct lvx_lv *lv);
/* lv is the reservation LV or the holding LV of a restripe (of another LV of its VG). */
bool lvx_restripe_is_rsv(const struct lvx_lv *lv);
/* Extents of lv on the new layout already (P above). */
uint64_t lvx_restripe_done(const struct lvx_lv *lv, const struct lvx_lv *rsv);

/* Set up the restripe of lv in its VG (changed in place): res (from the allocator,
 * lv->le_count extents with the new stripe count) becomes the reservation LV.
 * 0, or -EINVAL (message set). */
int lvx_restripe_setup(struct lvx_ctx *ctx, struct lvx_lv *lv, const struct lvx_alloc_result *res,
                       uint64_t now, const char *host);

/* The next cut after P, near P + want extents: the first LE past P where LV's old
 * segments can be split (stripe rows) and that is a multiple of the new stripe count;
 * lv->le_count at most. */
uint64_t lvx_restripe_next_cut(const struct lvx_lv *lv, const struct lvx_lv *rsv, uint64_t want);

/* lv as it will be when the restripe is done: a model LV in pool with lv's segments
 * over [0, P) and rsv's after them (reads of it map LEs to their new places). */
struct lvx_lv *lvx_restripe_target(struct lvx_pool *pool, const struct lvx_lv *lv,
                                   const struct lvx_lv *rsv);

/* The step to cut (see above); the last one removes rsv.  0 or -EINVAL. */
int lvx_restripe_step(struct lvx_ctx *ctx, struct lvx_lv *lv, struct lvx_lv *rsv, uint64_t cut);
/* The release: the holding LV removed, lv unlocked (when no reservation is left). */
void lvx_restripe_release(struct lvx_lv *lv);

#endif
