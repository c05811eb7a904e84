/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvpoll.c - `lvx lvpoll --polloperation merge [-i N] VG/LV`: LVM2's poller
 * command, run by lvconvert -b --merge (cmd/lvconvert_merge.c) in a detached process
 * and by hand or by LVM2's tests: waits for the COW snapshot merge into VG/LV to end and
 * finishes it (progress lines every N seconds, default 15), taking the VG's lock only
 * for each look.  Nothing to merge: exit 0 at once.  merge_thin: lvx finishes a thin
 * merge at once or at the origin's activation, so there is nothing to poll.  pvmove and
 * convert polls are lvx's own (`pvmove`, lvconvert's foreground waits): refused.
 */
#include "cmd/lvcmd.h"
#include "cmd/lvconvert_merge.h"

#include <string.h>

int lvx_cmd_lvpoll(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    const char *op = a->value[LVX_OPT_POLLOPERATION];
    if (!a->count[LVX_OPT_POLLOPERATION]) {
        lvx_cmd_errorf("lvpoll: missing required option --polloperation.");
        return LVX_EXIT_INVALID;
    }
    if (a->argc != 1) {
        lvx_cmd_errorf("%s", a->argc ? "Too many arguments." : "Please provide logical volume path.");
        return LVX_EXIT_INVALID;
    }
    const char *vg = NULL, *lv = NULL;
    if (!lvx_lvcmd_split_name(env, a->argv[0], &vg, &lv) || !lv) {
        lvx_cmd_errorf("Path required for Logical Volume \"%s\".", a->argv[0]);
        return LVX_EXIT_INVALID;
    }
    unsigned interval = 15;
    int rc = lvx_lvcmd_interval_arg(env, &interval);
    if (rc)
        return rc;
    if (!strcmp(op, "merge_thin"))
        return 0;
    if (strcmp(op, "merge")) {
        if (!strcmp(op, "pvmove") || !strcmp(op, "convert")) {
            lvx_cmd_errorf("lvx lvpoll polls snapshot merges only: a %s goes on with `%s`.", op,
                           !strcmp(op, "pvmove") ? "pvmove" : "lvconvert VG/LV");
            return LVX_EXIT_FAILED;
        }
        lvx_cmd_errorf("Unknown polloperation value %s.", op);
        return LVX_EXIT_INVALID;
    }
    return lvx_merge_poll_unlocked(env, vg, lv, interval, true);
}
