/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcreate_thin.h - the thin part of lvcreate (cmd/lvcreate_thin.c): thin pools
 * (`-T -L SIZE VG/POOL`, `--type thin-pool`, `--thinpool POOL -L`), thin LVs (`-V SIZE
 * -T VG/POOL`, `--type thin`), both at once, and thin snapshots (`-s VG/THIN` without a
 * size), with LVM2's defaults, messages and metadata.
 */
#ifndef LVX_CMD_LVCREATE_THIN_H
#define LVX_CMD_LVCREATE_THIN_H

#include "cmd/actcmd.h"
#include "cmd/lvcmd.h"

/* Does the command line ask for a thin pool or a thin LV (-T, --thinpool, --type
 * thin|thin-pool)? */
bool lvx_lvcreate_is_thin(struct lvx_cmd_env *env);
/* lvcreate of a thin pool and/or thin LV.  0 or an exit code (printed). */
int lvx_lvcreate_thin(struct lvx_cmd_env *env);
/* lvcreate -s of a thin LV without a size: a thin snapshot named name (NULL: lvolN),
 * in the update u (VG locked and read).  0 or an exit code (printed). */
int lvx_lvcreate_thin_snapshot(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                               struct lvx_lv *origin, const char *name);

/* LVM2's over-provisioning warnings (pool_check_overprovisioning, with lvm.conf
 * activation/thin_pool_autoextend_threshold and _percent) after pool has grown users
 * or shrunk. */
void lvx_thin_overprovisioning(struct lvx_cmd_env *env, const struct lvx_lv *pool);
/* The same for all the thin pools of vg (pool NULL: after an LV that is none of theirs
 * took space, as LVM2 checks after every lvcreate). */
void lvx_thin_overprovisioning_vg(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                  const struct lvx_lv *pool);

#endif
