/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_region.h - lvconvert -R of a RAID LV (cmd/lvconvert_region.c).
 */
#ifndef LVX_CMD_LVCONVERT_REGION_H
#define LVX_CMD_LVCONVERT_REGION_H

#include "cmd/lvcmd.h"

/* Is this lvconvert a region size change of lv (-R given, no other type than its own)? */
bool lvx_lvconvert_region_wanted(const struct lvx_lv *lv, const char *type, bool region_given);
/* Change lv's region size (LVM2's checks and lines); typed: --type was given (LVM2 then
 * adds "successfully converted").  0 or the exit code. */
int lvx_lvconvert_region(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                         uint32_t region_size, bool yes, bool typed);

#endif
