/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvpoll.c - `lvx lvpoll --polloperation merge|convert [-i [+]N] VG/LV`: LVM2's
 * poller command.  convert: the poll of a CONVERTING mirror (cmd/mirror_poll.c), run
 * detached by lvconvert -b and by activations.  merge: run by lvconvert -b --merge
 * (cmd/lvconvert_merge.c) in a detached process
 * and by hand or by LVM2's tests: waits for the COW snapshot merge into VG/LV to end and
 * finishes it (progress lines every N seconds, default 15), taking the VG's lock only
 * for each look.  Nothing to merge: exit 0 at once.  merge_thin: lvx finishes a thin
 * merge at once or at the origin's activation, so there is nothing to poll.  pvmove
 * polls are lvx's own (`pvmove`): refused.
 */
#include "cmd/lvcmd.h"
#include "cmd/lvconvert_merge.h"
#include "cmd/mirror_layer.h"

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
    bool wait_first = false;
    int rc = lvx_lvcmd_interval_sign(env, &interval, &wait_first);
    if (rc)
        return rc;
    if (!strcmp(op, "merge_thin"))
        return 0;
    if (!strcmp(op, "convert")) {
        /* LVM2's lvpoll: no -i, no sleep between looks (a tenth of a second) */
        if (!a->count[LVX_OPT_INTERVAL])
            interval = 0;
        const char *display = a->argv[0];
        if (!strncmp(display, "/dev/", 5))
            display += 5;
        return lvx_mirror_poll_unlocked(env, vg, lv, display, lvx_mirror_poll_uuid_env(),
                                        interval, wait_first, true);
    }
    if (strcmp(op, "merge")) {
        if (!strcmp(op, "pvmove")) {
            lvx_cmd_errorf("lvx lvpoll polls snapshot merges and mirror conversions only: a "
                           "pvmove goes on with `pvmove`.");
            return LVX_EXIT_FAILED;
        }
        lvx_cmd_errorf("Unknown polloperation value %s.", op);
        return LVX_EXIT_INVALID;
    }
    return lvx_merge_poll_unlocked(env, vg, lv, interval, true);
}
