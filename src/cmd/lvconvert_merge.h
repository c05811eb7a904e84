/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_merge.h - merging a COW snapshot into its origin (cmd/lvconvert_merge.c):
 * lvconvert --merge, the poll of a running merge and its end.  Each returns 0 or an
 * exit code after printing.
 */
#ifndef LVX_CMD_LVCONVERT_MERGE_H
#define LVX_CMD_LVCONVERT_MERGE_H

#include <stdbool.h>

#include "cmd/commands.h"
#include "meta/update.h"

struct lvx_actcmd;

/* lvconvert --merge of the COW LV lv (in u's VG, which the caller commits nothing of). */
int lvx_lvconvert_merge(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        unsigned interval, bool background);
/* Wait for the kernel to finish the running merge into origin (a progress line every
 * interval seconds when show), then finish it. */
int lvx_merge_poll(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                   const struct lvx_actcmd *act, struct lvx_lv *origin, unsigned interval,
                   bool show);
/* The merge into origin is done in the kernel: remove the merged snapshot (commit),
 * reload the origin, remove the snapshot's devices. */
int lvx_merge_finish(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                     const struct lvx_actcmd *act, struct lvx_lv *origin);

/* lvconvert -b --merge: poll the merge into origin in a detached process (this program
 * again as `lvx lvpoll --polloperation merge -i INTERVAL VG/ORIGIN`), as LVM2's
 * background poller; the caller's VG lock is not kept meanwhile.  Where the program is
 * not lvx (a library caller), the poll runs here instead, as lvx_merge_poll. */
int lvx_merge_background(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                         const struct lvx_actcmd *act, struct lvx_lv *origin,
                         unsigned interval);
/* lvpoll's merge: wait for the merge into vgname/lvname and finish it, taking the VG's
 * lock only for each look (and each step a backend drives), so that other commands see
 * the merge meanwhile.  0 when there is (or is left) nothing to merge. */
int lvx_merge_poll_unlocked(struct lvx_cmd_env *env, const char *vgname, const char *lvname,
                            unsigned interval, bool show);

#endif
