/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgchange_locktype.h - vgchange --locktype none|sanlock [--lockopt force] VG...
 * (cmd/vgchange_locktype.c).
 */
#ifndef LVX_CMD_VGCHANGE_LOCKTYPE_H
#define LVX_CMD_VGCHANGE_LOCKTYPE_H

#include "cmd/commands.h"

/* 0 or an exit code (LVM2's) after its lines. */
int lvx_vgchange_locktype(struct lvx_cmd_env *env);

#endif
