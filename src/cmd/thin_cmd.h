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

/* Delete the inactive thin LV thin from its pool ("delete <id>" queued in the pool's
 * segment, the pool's transaction id moves on with the first queued message, then the
 * queued messages sent through the backend), turn its thin snapshots into plain thin
 * LVs and take it out of the VG (the caller commits).  When the pool refuses the
 * messages: with queued NULL nothing changes (exit code); else, as LVM2's lvremove,
 * the LV goes all the same with its message left queued for the pool's next update,
 * "Failed to update pool ..." is printed, *queued set and the exit code returned (the
 * caller commits and fails). */
int lvx_thin_cmd_delete(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                        struct lvx_lv *thin, bool *queued);

/* Send the messages queued in pool's segment (LVM2's update_pool_lv): none, or the
 * backend took them (the queue is emptied in memory; the caller commits): 0; else
 * the error printed with "Failed to update pool ...", the exit code. */
int lvx_thin_cmd_update_pool(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             struct lvx_lv *pool);

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
