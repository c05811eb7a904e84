/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/thin_cmd.h - thin LV changes the commands share (cmd/thin_cmd.c): deleting a
 * thin LV from its pool (lvremove, the end of a merge) and merging a thin snapshot
 * into its origin (lvconvert --merge, finished at once or at the origin's next
 * activation).  Each int function returns 0 or an exit code after printing.
 */
#ifndef LVX_CMD_THIN_CMD_H
#define LVX_CMD_THIN_CMD_H

#include "cmd/actcmd.h"
#include "cmd/commands.h"
#include "meta/update.h"

/* Delete the inactive thin LV thin from its pool ("delete <id>" sent through the
 * backend, the pool's transaction id moves on), turn its thin snapshots into plain
 * thin LVs and take it out of the VG (the caller commits). */
int lvx_thin_cmd_delete(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                        struct lvx_lv *thin);

/* lvconvert --merge of the thin snapshot snap (in u's VG), as LVM2 2.03: at once when
 * the snapshot and its origin are inactive or can be deactivated ("Volume ... replaced
 * origin ..."), else recorded for the origin's next activation. */
int lvx_lvconvert_merge_thin(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                             struct lvx_lv *snap);

/* Does vg hold a thin merge waiting for its origin's activation? */
bool lvx_thin_cmd_has_merges(const struct lvx_vg *vg);
/* Before LVs of vgname are activated: finish each thin merge recorded in it whose
 * snapshot is not active (committed), as LVM2's activation of a merging origin does. */
int lvx_thin_cmd_finish_merges(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                               const char *vgname);
/* After an activation or refresh of vgname (with polling, as LVM2's poller of the
 * merging origin): finish each thin merge the kernel has done -- the origin active
 * with its snapshot's thin device, the snapshot inactive (committed: the old origin's
 * device deleted, the pool's transaction id one more). */
int lvx_thin_cmd_finish_kernel_merges(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                      const char *vgname);

#endif
