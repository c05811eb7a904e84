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

/* Number of usable areas in use / in total. */
unsigned lvx_mda_policy_in_use(const struct lvx_vg *vg, unsigned *total);

#endif
