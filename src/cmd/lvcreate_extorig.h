/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcreate_extorig.h - lvcreate of thin LVs with an external origin
 * (cmd/lvcreate_extorig.c): `lvcreate -s --thinpool VG/POOL VG/LV`, `lvcreate --type
 * thin --thinpool POOL VG/LV`.
 */
#ifndef LVX_CMD_LVCREATE_EXTORIG_H
#define LVX_CMD_LVCREATE_EXTORIG_H

#include <stdbool.h>

#include "cmd/lvcmd.h"

/* Is the command line that form (--thinpool, a VG/LV argument, no size or -V)? */
bool lvx_lvcreate_external_form(struct lvx_cmd_env *env);
/* Make that thin LV.  0 or an exit code (printed). */
int lvx_lvcreate_external_cmd(struct lvx_cmd_env *env);

#endif
