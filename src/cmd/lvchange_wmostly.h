/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvchange_wmostly.h - lvchange --writemostly / --writebehind of a raid1 LV
 * (cmd/lvchange_wmostly.c).
 */
#ifndef LVX_CMD_LVCHANGE_WMOSTLY_H
#define LVX_CMD_LVCHANGE_WMOSTLY_H

#include "cmd/lvcmd.h"

#include <stdbool.h>

/* Was --writemostly or --writebehind given? */
bool lvx_lvchange_wmostly_given(const struct lvx_cmd_env *env);
/* Apply them to lv in memory (the caller commits and reloads): 1, or -1 after LVM2's
 * line (not raid1, not active and in sync, a PV not in the VG, every image writemostly). */
int lvx_lvchange_wmostly(struct lvx_cmd_env *env, struct lvx_lv *lv);

#endif
