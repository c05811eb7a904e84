/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/mda_policy.h - the vgmetadatacopies policy (lvm2-format.md §12.6): which
 * metadata areas of a VG are in use before a commit.  It only sets/clears the
 * desired state pv->ondisk.mda[i].ignored; lvx_vg_commit() then writes the areas in
 * use (and the ones switching to ignored, with the flag).
 */
#ifndef LVX_META_MDA_POLICY_H
#define LVX_META_MDA_POLICY_H

#include "model/model.h"
#include "util/ctx.h"

/*
 * metadata_copies = N > 0: make exactly min(N, usable areas) areas in use.  Usable
 * areas are those of present PVs that are not bad.  The choice is deterministic:
 * areas in the order "mda0 of every PV (VG order), then mda1 of every PV" (spread
 * over PVs), keeping areas already in use first, then un-ignoring ignored ones.
 * metadata_copies = 0 (unmanaged): areas stay as they are, except that when none of
 * the usable areas is in use the first one is un-ignored (LVM2 keeps at least one).
 * Returns the number of areas in use afterwards.
 */
unsigned lvx_mda_policy_apply(struct lvx_vg *vg);

/* Un-ignore every usable area (vgmetadatacopies all). */
void lvx_mda_policy_use_all(struct lvx_vg *vg);

/*
 * Large VGs (README "Large VGs"): bound the in-use areas of an unmanaged VG when PVs
 * join it (vgcreate, vgextend).  The PVs vg->pvs[first_new..] are the joining ones.
 * When vg->metadata_copies is 0 and `limit` > 0, the joining PVs' usable areas stay in
 * use (walked mda0 of each joining PV first, then mda1) until the VG has `limit` areas
 * in use; the rest are switched to ignored.  Areas of PVs already in the VG are never
 * changed, and a managed VG (metadata_copies > 0) is left to lvx_mda_policy_apply().
 * Returns the number of areas switched to ignored.
 */
unsigned lvx_mda_policy_join(struct lvx_vg *vg, unsigned first_new, unsigned limit);

/* The bound used by vgcreate/vgextend: lvm.conf lvx/auto_metadata_copies, default
 * LVX_MDA_AUTO_LIMIT; 0 switches the bound off. */
#define LVX_MDA_AUTO_LIMIT 8u
unsigned lvx_mda_policy_auto_limit(struct lvx_ctx *ctx);

/* Number of usable areas in use / in total. */
unsigned lvx_mda_policy_in_use(const struct lvx_vg *vg, unsigned *total);

#endif
