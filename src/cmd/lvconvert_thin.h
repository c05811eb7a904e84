/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_thin.h - lvconvert to thin pools (cmd/lvconvert_thin.c): --thinpool
 * VG/LV or --type thin-pool VG/LV (with --poolmetadata, the pool options, -y), and the
 * metadata swap of an existing pool (--thinpool VG/POOL --poolmetadata META); a pool's
 * repair (cmd/lvconvert_thin_repair.c).
 */
#ifndef LVX_CMD_LVCONVERT_THIN_H
#define LVX_CMD_LVCONVERT_THIN_H

#include "cmd/lvcmd.h"

/* Does the command line ask for a thin conversion (--thinpool, -T, --type thin-pool|thin)? */
bool lvx_lvconvert_is_thin(struct lvx_cmd_env *env);
/* The conversion.  0 or an exit code (printed). */
int lvx_lvconvert_thin(struct lvx_cmd_env *env);
/* lvconvert --type thin|--thin --thinpool POOL VG/LV [--originname NAME]: LV becomes a
 * thin LV whose external origin is the old LV (cmd/lvconvert_extorig.c).  0 or an
 * exit code (printed). */
int lvx_lvconvert_thin_external(struct lvx_cmd_env *env);
/* LV lv of update u becomes a thin pool of its name (the pool options of the command
 * line, every PV; committed), as `lvconvert --thinpool VG/LV` (LVM2's _lvconvert_to_pool
 * inside lvconvert --thin --thinpool of an LV that is not a pool yet).  0 or an exit
 * code (printed). */
int lvx_lvconvert_thin_make_pool(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                                 struct lvx_lv *lv);
/* lvconvert --repair VG/POOL [PV ...] of thin pool pool of update u (committed):
 * cmd/lvconvert_thin_repair.c.  0 or an exit code (printed). */
int lvx_lvconvert_thin_repair(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                              struct lvx_lv *pool, char **pv_args, unsigned pv_arg_count);
/* LVM2's lv_rename_update: lv named name, its raid sub-LVs (OLD_rimage_N, OLD_rmeta_N)
 * renamed with it (NAME_rimage_N), theirs in turn. */
void lvx_lvconvert_rename_tree(struct lvx_vg *vg, struct lvx_lv *lv, const char *name);

#endif
