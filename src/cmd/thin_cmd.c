/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/thin_cmd.c - thin LV changes the commands share: deleting a thin LV from its
 * pool, and thin snapshot merges with LVM2 2.03's checks, messages and sequence
 * (tools/lvconvert.c _lvconvert_merge_thin_snapshot, tools/lvconvert_poll.c
 * thin_merge_finish):
 *
 *   - refused: a thin LV that is no snapshot ("... is not a mergeable logical
 *     volume."), an origin that already has a merge waiting, an origin that has COW
 *     snapshots;
 *   - the snapshot is deactivated, then the origin; when one of them cannot be (open)
 *     the merge waits: the snapshot's segment gets `merge = "<origin>"`, the snapshot
 *     is hidden, "Merging of thin snapshot ... will occur on next activation of ...";
 *   - else, or at that next activation (before the origin's devices are made), the
 *     merge ends as thin_merge_finish: the snapshot takes the origin's name, UUID and
 *     attributes (model/thin.c), the old origin's thin device is deleted from the pool
 *     and it leaves the VG; its other snapshots become plain thin LVs.  An origin that
 *     was active is activated again (now mapping the snapshot's thin device);
 *   - an activation without polling (--sysinit, --poll n) merges in the kernel only
 *     (the origin maps the snapshot's thin device); the next activation or refresh
 *     with polling finishes that merge in the metadata (LVM2's lvpoll).
 *
 * No data moves: a thin snapshot shares the pool's blocks, so the merge is a change
 * of which thin device the origin's name stands for.
 */
#include "cmd/thin_cmd.h"

#include "cmd/lvcmd.h"
#include "model/snapshot.h"
#include "model/thin.h"

#include <errno.h>
#include <stdio.h>

static const char *full(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    return lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
}

/* The queued messages of pool's segment sent (0, the queue emptied) or not (-errno). */
static int send_queued(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                       struct lvx_lv *pool)
{
    struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    if (!ps || !ps->msg_count)
        return 0;
    if (!act->be || !act->be->thin_message)
        return lvx_error(env->ctx, ENOTSUP, "Cannot send the queued messages of thin pool "
                         "%s without device-mapper.", full(env, pool));
    const char **msgs = lvx_pool_alloc(env->pool, ps->msg_count * sizeof(*msgs));
    for (unsigned i = 0; i < ps->msg_count; i++) {
        char *b = lvx_pool_alloc(env->pool, 64);
        lvx_thin_pool_msg_text(ps, i, b, 64);
        msgs[i] = b;
    }
    int rc = act->be->thin_message(env->ctx, pool, msgs, ps->msg_count, NULL);
    if (rc == 0) {
        ps->msg_count = 0;
        ps->msgs = NULL;
    }
    return rc;
}

static int update_failed(struct lvx_cmd_env *env, const struct lvx_lv *pool)
{
    lvx_cmd_fail(env);
    lvx_error_clear(env->ctx);
    lvx_cmd_errorf("Failed to update pool %s.", full(env, pool));
    return LVX_EXIT_FAILED;
}

int lvx_thin_cmd_update_pool(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             struct lvx_lv *pool)
{
    if (act->test || send_queued(env, act, pool) == 0)
        return 0;
    return update_failed(env, pool);
}

int lvx_thin_cmd_delete(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                        struct lvx_lv *thin, bool *queued)
{
    struct lvx_seg *ts = lvx_lv_thin_seg(thin);
    struct lvx_seg *ps = ts ? lvx_lv_thin_pool_seg(ts->pool_lv) : NULL;
    if (!ps || !act->be || !act->be->thin_message) {
        lvx_cmd_errorf("Cannot remove thin LV %s without device-mapper: its pool's kernel "
                       "metadata must drop it (delete message).", full(env, thin));
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv *pool = ts->pool_lv;
    unsigned count = ps->msg_count;
    struct lvx_thin_msg *msgs = ps->msgs;
    uint64_t tid = ps->transaction_id;
    lvx_thin_pool_queue(thin->vg, ps, NULL, ts->device_id);
    int rc = 0;
    if (!act->test && send_queued(env, act, pool) < 0) {
        if (!queued) {
            ps->msg_count = count;
            ps->msgs = msgs;
            ps->transaction_id = tid;
            return lvx_cmd_fail(env);
        }
        *queued = true;
        rc = update_failed(env, pool);
        /* a create of this LV still queued: it never reached the pool, both go */
        unsigned k = 0;
        bool created = false;
        for (unsigned i = 0; i < ps->msg_count; i++)
            if (ps->msgs[i].create == thin)
                created = true;
        for (unsigned i = 0; i < ps->msg_count; i++)
            if (!created || (ps->msgs[i].create != thin &&
                             (ps->msgs[i].create || ps->msgs[i].delete_id != ts->device_id)))
                ps->msgs[k++] = ps->msgs[i];
        if (!(ps->msg_count = k))
            ps->transaction_id--;
    }
    lvx_thin_detach_snapshots(thin);
    lvx_vg_remove_lv(thin->vg, thin);
    return rc;
}

/* The end of a merge: snap takes origin's place, origin's device goes (the caller
 * commits). */
static int merge_finish(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                        struct lvx_lv *origin, struct lvx_lv *snap)
{
    lvx_thin_merge_swap(origin, snap);
    return lvx_thin_cmd_delete(env, act, origin, NULL);
}

static bool has_cow_snapshots(const struct lvx_lv *origin)
{
    const struct lvx_vg *vg = origin->vg;
    for (unsigned i = 0; i < vg->lv_count; i++)
        for (unsigned s = 0; s < vg->lvs[i]->seg_count; s++)
            if (vg->lvs[i]->segs[s].kind == LVX_SEG_SNAPSHOT &&
                vg->lvs[i]->segs[s].origin_lv == origin)
                return true;
    return false;
}

/* Deactivate lv unless it is open (false: it stays active, LVM2's line says why). */
static bool deactivated(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                        const struct lvx_lv *lv)
{
    if (lvx_actcmd_in_use(env, act, lv))
        return false;
    return lvx_actcmd_deactivate(env, act, lv, false) == 0;
}

int lvx_lvconvert_merge_thin(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                             struct lvx_lv *snap)
{
    struct lvx_seg *seg = lvx_lv_thin_seg(snap);
    struct lvx_lv *origin = seg ? seg->origin_lv : NULL;
    if (!origin) {
        lvx_cmd_errorf("%s is not a mergeable logical volume.", full(env, snap));
        return LVX_EXIT_FAILED;
    }
    struct lvx_seg *other = lvx_thin_merging_into(origin);
    if (other) {
        lvx_cmd_errorf("Cannot merge snapshot %s into the origin %s with merging snapshot %s.",
                       full(env, snap), full(env, origin), full(env, other->lv));
        return LVX_EXIT_FAILED;
    }
    if (has_cow_snapshots(origin)) {
        lvx_cmd_errorf("Merging into the old snapshot origin %s is not supported.",
                       full(env, origin));
        return LVX_EXIT_FAILED;
    }
    struct lvx_actcmd act;
    int rc;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    const char *snap_name = full(env, snap), *origin_name = full(env, origin);
    bool origin_active = lvx_actcmd_is_active(env, &act, origin, NULL);
    if (!deactivated(env, &act, snap)) {
        lvx_notice(env->ctx, "Delaying merge since snapshot is open.");
    } else if (!deactivated(env, &act, origin)) {
        lvx_notice(env->ctx, "Delaying merge since origin volume is open.");
    } else {
        if ((rc = merge_finish(env, &act, origin, snap)) || (rc = lvx_lvcmd_commit(env, u)))
            return rc;
        lvx_notice(env->ctx, "Volume %s replaced origin %s.", snap_name, origin_name);
        if (origin_active && lvx_actcmd_activate(env, &act, snap)) {
            lvx_cmd_errorf("Failed to reactivate origin %s.", origin_name);
            return LVX_EXIT_FAILED;
        }
        return 0;
    }
    seg->merging = true;
    snap->status &= ~(uint32_t)LVX_LV_VISIBLE;
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    lvx_notice(env->ctx, "Merging of thin snapshot %s will occur on next activation of %s.",
               snap_name, origin_name);
    return 0;
}

/* A thin merge of vg that can end now (snapshot and origin inactive), or NULL. */
static struct lvx_seg *waiting_merge(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                     const struct lvx_vg *vg)
{
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_seg *seg = lvx_lv_thin_seg(vg->lvs[i]);
        if (seg && seg->merging && seg->origin_lv &&
            !lvx_actcmd_is_active(env, act, vg->lvs[i], NULL) &&
            !lvx_actcmd_is_active(env, act, seg->origin_lv, NULL))
            return seg;
    }
    return NULL;
}

bool lvx_thin_cmd_has_merges(const struct lvx_vg *vg)
{
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_seg *seg = lvx_lv_thin_seg(vg->lvs[i]);
        if (seg && seg->merging)
            return true;
    }
    return false;
}

/* A thin merge of vg done in the kernel: its origin active, its table mapping the
 * snapshot's thin device (an activation or refresh while the merge waited), the
 * snapshot inactive; or NULL. */
static struct lvx_seg *kernel_merged(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                     const struct lvx_vg *vg)
{
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_seg *seg = lvx_lv_thin_seg(vg->lvs[i]);
        struct lvx_lv_kstate ks;
        if (seg && seg->merging && seg->origin_lv &&
            !lvx_actcmd_is_active(env, act, vg->lvs[i], NULL) &&
            lvx_actcmd_is_active(env, act, seg->origin_lv, &ks) && ks.thin_dev_known &&
            ks.thin_dev_id == seg->device_id)
            return seg;
    }
    return NULL;
}

/* Finish each thin merge of vgname that find() returns (one at a time, the VG's model
 * changing under it), committed once; each says so at verbosity level (notice: a
 * finish the user sees, as LVM2's poller's line). */
static int finish_each(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                       const char *vgname, bool notice,
                       struct lvx_seg *(*find)(struct lvx_cmd_env *env,
                                               const struct lvx_actcmd *act,
                                               const struct lvx_vg *vg))
{
    struct lvx_vg_update u;
    int rc;
    if (act->off || !act->be || act->test)
        return 0;
    if ((rc = lvx_lvcmd_begin(env, vgname, &u)))
        return rc;
    bool changed = false;
    struct lvx_seg *seg;
    while (!rc && lvx_thin_cmd_has_merges(u.vg) && (seg = find(env, act, u.vg))) {
        const char *origin_name = full(env, seg->origin_lv);
        if (!(rc = merge_finish(env, act, seg->origin_lv, seg->lv))) {
            if (notice)
                lvx_notice(env->ctx, "Merge of snapshot into logical volume %s has finished.",
                           origin_name);
            else
                lvx_info(env->ctx, "Merge of snapshot into logical volume %s has finished.",
                         origin_name);
            changed = true;
        }
    }
    if (!rc && changed)
        rc = lvx_lvcmd_commit(env, &u);
    lvx_vg_update_end(&u);
    return rc;
}

int lvx_thin_cmd_finish_merges(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                               const char *vgname)
{
    return finish_each(env, act, vgname, false, waiting_merge);
}

int lvx_thin_cmd_finish_kernel_merges(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                      const char *vgname)
{
    return finish_each(env, act, vgname, true, kernel_merged);
}
