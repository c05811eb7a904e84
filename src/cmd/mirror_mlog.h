/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/mirror_mlog.h - the "mirrored" log of an old-style mirror (cmd/mirror_mlog.c):
 * a 2-image mirror NAME_mlog over NAME_mlog_mimage_0/1, made by lvcreate and lvconvert
 * --mirrorlog mirrored under global/support_mirrored_mirror_log = 1, as LVM2 makes it.
 */
#ifndef LVX_CMD_MIRROR_MLOG_H
#define LVX_CMD_MIRROR_MLOG_H

#include "cmd/lvcmd.h"

#define LVX_MLOG_DEPRECATED "Log type \"mirrored\" is DEPRECATED. Use RAID1 LV or disk log instead."
#define LVX_MLOG_WARNING \
    "Log type \"mirrored\" creation/conversion is not supported for regular operation!"

/* lvm.conf's global/support_mirrored_mirror_log (LVM2's default 0). */
bool lvx_mirror_mlog_allowed(struct lvx_cmd_env *env);

/* Is the log LV a mirror (a "mirrored" log)? */
bool lvx_mirror_log_is_mirrored(const struct lvx_lv *log);

/* Give the mirror top (its images allocated) a mirrored log of ext extents per image:
 * a new NAME_mlog when it has none, else its disk log becomes the first image; placed
 * as LVM2 places it (with_images: the LV's extents, for areas LVM2 sizes with the
 * images, or 0), on pvs or every PV; sub-LVs created now (now) or at top's creation
 * time.  0 or negative errno (ctx). */
int lvx_mirror_mlog_build(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                          struct lvx_lv *top, uint32_t ext, uint64_t with_images,
                          enum lvx_alloc policy, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                          bool now);

/* A mirrored log becomes a disk log: it keeps its first image's area, the images go. */
void lvx_mirror_mlog_unmirror(struct lvx_lv *log);

/* Zero the first `bytes` of a log (of each image of a mirrored log).  0 or -errno. */
int lvx_mirror_log_zero(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                        const struct lvx_lv *log, uint64_t bytes);

#endif
