/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_merge.c - `lvx lvconvert --merge [-b] [-i N] VG/SNAP`: merging a COW
 * snapshot back into its origin, with LVM2 2.03's checks, messages and sequence
 * (tools/lvconvert.c _lvconvert_merge_old_snapshot, tools/lvconvert_poll.c):
 *
 *   - refused: an origin that already merges a snapshot, a read-only origin, an
 *     invalidated (active) snapshot;
 *   - the snapshot segment becomes merging (`merging_store`, model/snapshot.c) and is
 *     committed;
 *   - origin inactive: the merge starts at its next activation ("Merging of snapshot
 *     ... will occur on next activation of ..."); origin or snapshot open: the same,
 *     after "Delaying merge since origin/snapshot is open.";
 *   - else the set is reloaded (activate/dm_snapshot.c: the origin's table becomes
 *     snapshot-merge, the snapshot's device the error target), "Merging of volume ...
 *     started.", and unless --background the merge is polled every --interval seconds
 *     (default 15; "VG/LV: Merged: P%" lines) until the kernel has copied every chunk
 *     back, then finished (lvx_merge_finish).
 *
 * lvx_merge_finish() is also what an activation of a merging origin calls when the
 * kernel reports the merge done: "Merge of snapshot into logical volume ... has
 * finished.", the COW LV and its snapshotN leave the VG (commit), the origin is
 * reloaded without its -real/-cow layers (or with the snapshots it still has), the
 * snapshot's devices are removed.
 * Unlike LVM2's poller, lvx holds the VG's lock while it polls in the foreground (no
 * other command changes the VG meanwhile).  With --background the poll goes to a
 * detached `lvx lvpoll --polloperation merge` (cmd/lvpoll.c), which takes the lock only
 * for each look and for the finish: other commands see the merge running (lv_merging),
 * and two pollers (a later `lvpoll`, an activation) take turns; whichever sees the
 * merge done first finishes it, the other then finds nothing to merge.
 *
 * In the user-space backend the daemon serves the origin as snapshot-merge does
 * (daemon/target_snapshot.c) and the poll drives the copy: each round asks the daemon
 * for one step (MERGE_STEP chunks back to the origin) instead of sleeping, and prints
 * the progress line every --interval seconds.
 */
#include "cmd/lvconvert_merge.h"

#include "cmd/actcmd.h"
#include "cmd/lvcmd.h"
#include "model/snapshot.h"
#include "util/detach.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *full(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    return lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
}

/* The kernel state of the origin's merge: 1 running (percent left in *left), 0 done,
 * negative: an exit code after LVM2's message. */
static int merge_state(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                       const struct lvx_lv *origin, double *left)
{
    struct lvx_lv_kstate ks;
    if (!lvx_actcmd_is_active(env, act, origin, &ks) || !ks.snapshot) {
        lvx_cmd_errorf("%s: Failed query for merging percentage. Aborting merge.",
                       full(env, origin));
        return -LVX_EXIT_FAILED;
    }
    if (ks.snap_invalid) {
        lvx_cmd_errorf("%s: Merging snapshot invalidated. Aborting merge.", full(env, origin));
        return -LVX_EXIT_FAILED;
    }
    if (ks.snap_used == ks.snap_meta) {
        *left = 0;
        return 0;
    }
    *left = ks.snap_total ? 100.0 * (double)ks.snap_used / (double)ks.snap_total : 0;
    return 1;
}

int lvx_merge_finish(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                     const struct lvx_actcmd *act, struct lvx_lv *origin)
{
    struct lvx_seg *seg = lvx_lv_merging_snapshot(origin);
    if (!seg)
        return 0;
    struct lvx_lv *cow = seg->cow_lv;
    lvx_notice(env->ctx, "Merge of snapshot into logical volume %s has finished.",
               full(env, origin));
    const char *cow_name = cow->name;
    lvx_vg_remove_snapshot(u->vg, cow);
    lvx_vg_remove_lv(u->vg, cow);
    int rc = lvx_lvcmd_commit(env, u);
    if (rc) {
        lvx_cmd_errorf("Could not remove snapshot %s/%s merged into %s.", u->vg->name, cow_name,
                       full(env, origin));
        return rc;
    }
    /* the origin without the merge (a plain table, or snapshot-origin for the
     * snapshots it keeps), then the merged snapshot's own devices */
    if ((rc = lvx_actcmd_activate(env, act, origin)) ||
        (rc = lvx_actcmd_deactivate_snapshot(env, act, cow, true)))
        return rc;
    lvx_notice(env->ctx, "Logical volume \"%s\" successfully removed.", cow_name);
    return 0;
}

#define MERGE_STEP 256u        /* chunks per step of a merge the backend drives */

int lvx_merge_poll(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                   const struct lvx_actcmd *act, struct lvx_lv *origin, unsigned interval,
                   bool show)
{
    bool driven = act->be->merge_step != NULL;
    time_t last = 0;
    for (;;) {
        double left = 0;
        int st = merge_state(env, act, origin, &left);
        if (st < 0)
            return -st;
        if (show && interval && (!driven || st == 0 || time(NULL) - last >= (time_t)interval)) {
            lvx_notice(env->ctx, "%s: Merged: %.2f%%", full(env, origin), 100.0 - left);
            last = time(NULL);
        }
        if (st == 0)
            return lvx_merge_finish(env, u, act, origin);
        if (driven) {
            uint64_t chunks = 0;
            if (act->be->merge_step(env->ctx, origin, MERGE_STEP, &chunks) < 0) {
                lvx_cmd_errorf("%s", env->ctx->errmsg);
                lvx_error_clear(env->ctx);
                lvx_cmd_errorf("%s: Merging snapshot failed. Aborting merge.", full(env, origin));
                return LVX_EXIT_FAILED;
            }
            continue;
        }
        struct timespec ts = { interval ? interval : 1, 0 };
        if (!interval)
            ts = (struct timespec){ 0, 100000000 };
        nanosleep(&ts, NULL);
    }
}

int lvx_merge_background(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                         const struct lvx_actcmd *act, struct lvx_lv *origin,
                         unsigned interval)
{
    char exe[4096];
    if (!lvx_self_is_lvx(exe, sizeof(exe)))
        return lvx_merge_poll(env, u, act, origin, interval, false);
    int r = lvx_cmd_detach();
    if (r)
        return r < 0 ? LVX_EXIT_FAILED : 0;
    const char *argv[16];
    unsigned k = 0;
    argv[k++] = "lvx";
    argv[k++] = "lvpoll";
    argv[k++] = "--polloperation";
    argv[k++] = "merge";
    k = lvx_cmd_scope_args(env, argv, k);
    argv[k++] = "-i";
    argv[k++] = lvx_pool_printf(env->pool, "%u", interval);
    argv[k++] = full(env, origin);
    argv[k] = NULL;
    execv(exe, (char *const *)argv);
    _exit(LVX_EXIT_FAILED);
}

/* One look at the merge into vgname/lvname under the VG's lock: finished (the merge was
 * done: 0 in *rc), or one step driven by the backend, or nothing; *left for the
 * progress line.  Returns true when the poll is over (*rc its exit code). */
static bool poll_round(struct lvx_cmd_env *env, const char *vgname, const char *lvname,
                       double *left, bool *driven, int *rc)
{
    struct lvx_vg_update u;
    if ((*rc = lvx_lvcmd_begin(env, vgname, &u)))
        return true;
    struct lvx_actcmd act;
    struct lvx_lv *origin = lvx_vg_find_lv(u.vg, lvname);
    bool over = true;
    if (!origin || !lvx_lv_merging_snapshot(origin)) {
        *rc = 0;                     /* finished by another poller, or never begun */
    } else if ((*rc = lvx_actcmd_init(env, &act))) {
    } else if (act.off || !lvx_actcmd_is_active(env, &act, origin, NULL)) {
        *rc = 0;                     /* waits for the origin's next activation */
    } else {
        int st = merge_state(env, &act, origin, left);
        if (st < 0)
            *rc = -st;
        else if (st == 0)
            *rc = lvx_merge_finish(env, &u, &act, origin);
        else if (act.be->merge_step) {
            /* steps for up to a second under this lock, then the lock is let go */
            time_t until = time(NULL) + 1;
            uint64_t chunks = 0;
            do {
                if (act.be->merge_step(env->ctx, origin, MERGE_STEP, &chunks) < 0) {
                    lvx_cmd_errorf("%s", env->ctx->errmsg);
                    lvx_error_clear(env->ctx);
                    lvx_cmd_errorf("%s: Merging snapshot failed. Aborting merge.",
                                   full(env, origin));
                    *rc = LVX_EXIT_FAILED;
                    break;
                }
            } while (chunks && time(NULL) < until);
            over = *rc != 0;
            *driven = true;
        } else {
            over = false;
        }
    }
    lvx_vg_update_end(&u);
    return over;
}

int lvx_merge_poll_unlocked(struct lvx_cmd_env *env, const char *vgname, const char *lvname,
                            unsigned interval, bool show)
{
    time_t last = 0;
    for (;;) {
        double left = -1;
        bool driven = false;
        int rc = 0;
        if (poll_round(env, vgname, lvname, &left, &driven, &rc))
            return rc;
        if (show && interval && left >= 0 && time(NULL) - last >= (time_t)interval) {
            lvx_notice(env->ctx, "%s/%s: Merged: %.2f%%", vgname, lvname, 100.0 - left);
            last = time(NULL);
        }
        /* the kernel merges by itself: a look every interval; a merge this poller
         * drives goes on at once, after a pause that lets other commands in */
        struct timespec ts = { interval ? interval : 1, 0 };
        if (!interval || driven)
            ts = (struct timespec){ 0, driven ? 20000000 : 100000000 };
        nanosleep(&ts, NULL);
    }
}

int lvx_lvconvert_merge(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        unsigned interval, bool background)
{
    struct lvx_seg *seg = (struct lvx_seg *)lvx_lv_cow_snapshot_seg(lv);
    if (!seg) {
        lvx_cmd_errorf("lvx lvconvert --merge merges COW snapshots only: %s is not one.",
                       full(env, lv));
        return LVX_EXIT_FAILED;
    }
    if (seg->merging) {          /* LVM2's command definitions refuse a merging COW */
        lvx_cmd_errorf("Command on LV %s is invalid on LV with properties: lv_is_merging_cow .",
                       full(env, lv));
        lvx_cmd_errorf("Command not permitted on LV %s.", full(env, lv));
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv *origin = seg->origin_lv;
    struct lvx_seg *other = lvx_lv_merging_snapshot(origin);
    if (other) {
        /* LVM2 names the snapshot asked for in the last place too */
        lvx_cmd_errorf("Cannot merge snapshot %s into the origin %s with merging snapshot %s.",
                       full(env, lv), full(env, origin), full(env, lv));
        return LVX_EXIT_FAILED;
    }
    if (!(origin->status & LVX_LV_WRITE)) {
        lvx_cmd_errorf("Cannot merge snapshot %s into the read-only origin %s. (Use lvchange "
                       "-p rw).", full(env, lv), full(env, origin));
        return LVX_EXIT_FAILED;
    }
    struct lvx_actcmd act;
    int rc;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    struct lvx_lv_kstate ks;
    if (lvx_actcmd_is_active(env, &act, lv, &ks) && ks.live_table && ks.snapshot &&
        ks.snap_invalid) {
        lvx_cmd_errorf("Unable to merge invalidated snapshot LV %s.", full(env, lv));
        return LVX_EXIT_FAILED;
    }
    bool later = false;
    bool origin_active = lvx_actcmd_is_active(env, &act, origin, &ks);
    if (origin_active) {
        struct lvx_lv_kstate sks;
        if (ks.open_count > 0) {
            lvx_notice(env->ctx, "Delaying merge since origin is open.");
            later = true;
        } else if (lvx_actcmd_is_active(env, &act, lv, &sks) && sks.open_count > 0) {
            lvx_notice(env->ctx, "Delaying merge since snapshot is open.");
            later = true;
        }
    }
    lvx_snapshot_start_merge(seg);
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    if (!origin_active || later || act.test || act.off) {
        lvx_notice(env->ctx, "Merging of snapshot %s will occur on next activation of %s.",
                   full(env, lv), full(env, origin));
        return 0;
    }
    if ((rc = lvx_actcmd_activate(env, &act, origin)))
        return rc;
    lvx_notice(env->ctx, "Merging of volume %s started.", full(env, lv));
    if (background)
        return lvx_merge_background(env, u, &act, origin, interval);
    return lvx_merge_poll(env, u, &act, origin, interval, true);
}
