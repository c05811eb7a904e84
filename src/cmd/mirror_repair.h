/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/mirror_repair.h - removing and replacing the images and logs of old-style
 * mirrors that sit on missing PVs (cmd/mirror_repair.c): lvconvert --repair and
 * vgreduce --removemissing --force, as LVM2 2.03.16 does them.
 */
#ifndef LVX_CMD_MIRROR_REPAIR_H
#define LVX_CMD_MIRROR_REPAIR_H

#include "cmd/lvcmd.h"

struct lvx_mirror_repair {
    bool use_policies;         /* --use-policies: lvm.conf's mirror fault policies */
    bool force;                /* -f: remove only */
    bool yes;                  /* -y: replace without asking */
    /* the PVs named after the LV (LVM2's use_pvh): where replacements may go; none:
     * every PV of the VG, a failed one whose PV is still present included */
    const struct lvx_alloc_pv *pvs;
    unsigned pv_count;
};

/* Does lv, or a sub-LV under it, have extents on a missing PV? */
bool lvx_lv_is_partial(const struct lvx_lv *lv);

/* Can the mirror image img (an area of a mirror's segment: an image, or LVM2's resync
 * layer with images of its own) still give the data: not on a missing PV (a layer: one
 * of its images is not)? */
bool lvx_mirror_image_usable(const struct lvx_lv *img);

/* The mirror lv's images and log on missing PVs go (LVM2's mirror_remove_missing), and
 * those its target reports failed: the images whose bits are set in dead (a bit per
 * area), the log when dead_log; one image left: lv becomes linear.  The counts of
 * failed images and logs returned.  active: the LV is active (its sync status can be
 * read); when it is not and its first image goes, LVM2's "Unable to determine mirror
 * sync status of VG/LV." is printed (LVM2 asks the kernel before taking the first image
 * out). */
void lvx_mirror_remove_missing(struct lvx_lv *lv, bool active, uint64_t dead, bool dead_log,
                               uint32_t *failed_images, uint32_t *failed_logs);

/* lvconvert --repair of the mirror lv: removal, then replacement as r asks, committed.
 * 0 or the exit code (messages printed). */
int lvx_mirror_repair(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      const struct lvx_mirror_repair *r);

#endif
