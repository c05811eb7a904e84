/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_raid_split.h - lvconvert --splitmirrors [--trackchanges] of raid1 LVs
 * and --merge of a tracked image (cmd/lvconvert_raid_split.c).
 */
#ifndef LVX_CMD_LVCONVERT_RAID_SPLIT_H
#define LVX_CMD_LVCONVERT_RAID_SPLIT_H

#include "cmd/lvcmd.h"

struct lvx_split_opts {
    uint32_t count;             /* --splitmirrors N */
    const char *name;           /* --name (NULL with --trackchanges) */
    bool track;                 /* --trackchanges */
    bool yes;
    char **pv_args;             /* PVs the images to split may come from */
    unsigned pv_arg_count;
};

/* The image of raid1 lv being tracked (visible, read-only), or NULL. */
struct lvx_lv *lvx_raid_tracked_image(const struct lvx_lv *lv);
/* lvconvert --splitmirrors of lv, LVM2's checks and messages: 0 or the exit code. */
int lvx_lvconvert_split(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        const struct lvx_split_opts *o);
/* Is lv a visible raid image (lvconvert --merge goes to lvx_lvconvert_raid_merge)? */
bool lvx_raid_merge_wanted(const struct lvx_lv *lv);
int lvx_lvconvert_raid_merge(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *img);

#endif
