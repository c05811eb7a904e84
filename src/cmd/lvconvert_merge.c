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
 * Unlike LVM2's poller, lvx holds the VG's lock while it polls (no other command
 * changes the VG meanwhile) and polls in the foreground with --background too (it
 * then only skips the progress lines).
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

#include <string.h>
#include <time.h>

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
    return lvx_merge_poll(env, u, &act, origin, interval, !background);
}
