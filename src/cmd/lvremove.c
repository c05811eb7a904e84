/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvremove.c - `lvx lvremove [-f] [-y] VG|VG/LV|/dev/VG/LV ...`: take LVs out of
 * their VG (their extents become free).  A plain VG names all its LVs.  One VG
 * change (one commit) per argument, as LVM2 does per LV.
 *
 * Refused as LVM2 refuses (or where lvx cannot do what LVM2 would): LVs used by
 * other LVs (sub-LVs, pools with thin volumes) and LVs of segment types other than
 * linear/striped/RAID (a RAID LV goes with its rimage and rmeta sub-LVs).  A COW
 * snapshot goes with its internal snapshotN LV (an active one: only its snapshot
 * devices are removed, then the origin's devices are reloaded); an origin takes its
 * snapshots with it first, as LVM2 (each asked about when active); a sparse snapshot
 * goes with its hidden NAME_vorigin (the whole set deactivated).  An active LV is
 * deactivated first
 * (cmd/activation.c) after the question "Do you really want to remove active logical
 * volume vg/lv?" (skipped with -y or -f); a mounted one is refused, an open one too
 * unless -f.  A thin LV is deleted from its pool (delete message, with device-mapper
 * only; its thin snapshots lose their origin, as LVM2); a thin pool goes with its
 * thin LVs, its _tdata/_tmeta and, when it was the last pool, lvol0_pmspare.  -S
 * removes the LVs it selects (one an earlier removal took along is skipped).
 */
#include "cmd/cmdlog.h"
#include "cmd/lvcmd.h"
#include "cmd/toolkit.h"

#include "cmd/actcmd.h"
#include "cmd/thin_cmd.h"
#include "map/map.h"
#include "meta/lockd.h"

#include <string.h>

#include "model/snapshot.h"
#include "model/thin.h"
#include <stdio.h>

/* Deactivate an active lv (asking first unless -y/-f; a COW LV: only its snapshot's
 * devices); false when it stays. */
static bool deactivate_first(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             struct lvx_lv *lv, bool snapshot)
{
    if (!lvx_actcmd_is_active(env, act, lv, NULL))
        return true;
    bool force = env->args->count[LVX_OPT_FORCE] > 0;
    if (!force && !env->args->count[LVX_OPT_YES]) {
        const char *q = lvx_pool_printf(env->pool, "Do you really want to remove active logical "
                                        "volume %s/%s?", lv->vg->name, lv->name);
        if (!lvx_lvcmd_confirm(q)) {
            lvx_cmd_errorf("Logical volume %s/%s not removed.", lv->vg->name, lv->name);
            return false;
        }
    }
    /* -f skips the question only: an open LV stays ("in use"), as LVM2's
     * lv_check_not_in_use refuses it whatever -f says */
    return (snapshot ? lvx_actcmd_deactivate_snapshot(env, act, lv, false)
                     : lvx_actcmd_deactivate(env, act, lv, false)) == 0;
}

/* What one argument removed (the snapshots an origin takes with it are not in the
 * toolkit's list): names for the messages, active origins to reload after the commit. */
struct removal {
    const struct lvx_actcmd *act;
    const struct lvx_vg *vg;        /* the names below belong to this VG's update */
    const char **names;
    unsigned count;
    struct lvx_lv **origins;
    unsigned origin_count;
    struct lvx_lv *leased;          /* shared VG: copies of removed LVs with a lease */
    unsigned leased_count;
    bool kept;                      /* an LV named stayed after what depends on it went
                                       (committed): the command fails, as LVM2's */
};

static void removal_start(struct lvx_cmd_env *env, struct removal *r, const struct lvx_vg *vg)
{
    if (r->vg == vg && r->names)
        return;
    unsigned all = vg->lv_count + 1;
    r->vg = vg;
    r->names = lvx_pool_alloc(env->pool, all * sizeof(char *));
    r->origins = lvx_pool_alloc(env->pool, all * sizeof(struct lvx_lv *));
    r->leased = lvx_pool_alloc(env->pool, all * sizeof(struct lvx_lv));
    r->count = r->origin_count = r->leased_count = 0;
}

/* A shared VG's LV is not removed while active on another host (LVM2 takes its lease
 * exclusively first); its lease slot is freed after the commit (removed()). */
static bool lease_free_later(struct lvx_cmd_env *env, struct removal *r, struct lvx_lv *lv)
{
    if (!lvx_vg_is_lockd(lv->vg) || !lv->lock_args)
        return true;
    int hold = 0;
    if (lvx_lockd_lv_lock(env->ctx, lv, false, 20, &hold) < 0) {
        lvx_cmd_fail(env);
        return false;
    }
    lvx_lockd_lv_unlock(&hold);
    r->leased[r->leased_count++] = *lv;
    return true;
}

static bool in_vg(const struct lvx_lv *lv)
{
    return lv->index < lv->vg->lv_count && lv->vg->lvs[lv->index] == lv;
}

/* A sparse snapshot (its origin the hidden NAME_vorigin): the whole set deactivated,
 * then the COW LV, its snapshotN and the _vorigin removed, as LVM2 removes a virtual
 * origin with its snapshot (only the COW LV is named in the message). */
static bool remove_sparse(struct lvx_cmd_env *env, struct lvx_lv *cow, struct lvx_lv *vorigin,
                          struct removal *r)
{
    if (lvx_actcmd_is_active(env, r->act, cow, NULL) && !deactivate_first(env, r->act, cow, false))
        return false;
    lvx_vg_remove_snapshot(cow->vg, cow);
    lvx_vg_remove_lv(cow->vg, cow);
    lvx_vg_remove_lv(vorigin->vg, vorigin);
    r->names[r->count++] = cow->name;
    return true;
}

/* A COW LV: ask (active), remove its snapshot devices, then it and its snapshotN. */
static bool remove_snapshot(struct lvx_cmd_env *env, struct lvx_lv *cow, struct removal *r)
{
    if (lvx_actcmd_is_active(env, r->act, cow, NULL)) {
        if (!deactivate_first(env, r->act, cow, true))
            return false;
        struct lvx_lv *origin = lvx_lv_cow_snapshot_seg(cow)->origin_lv;
        bool listed = false;
        for (unsigned i = 0; i < r->origin_count; i++)
            listed = listed || r->origins[i] == origin;
        if (!listed)
            r->origins[r->origin_count++] = origin;
    }
    lvx_vg_remove_snapshot(cow->vg, cow);
    lvx_vg_remove_lv(cow->vg, cow);
    r->names[r->count++] = cow->name;
    return true;
}

/* A thin LV: deactivated (asked when active), "delete <id>" sent to its pool (the
 * pool's transaction id moves on), then out of the VG; its thin snapshots become plain
 * thin LVs (LVM2).  Without a backend that sends pool messages it stays (the pool's
 * kernel metadata would keep the device).  A snapshot whose merge waits is refused;
 * an origin takes such a snapshot with it, as LVM2. */
static bool remove_thin(struct lvx_cmd_env *env, struct lvx_lv *thin, struct removal *r)
{
    const struct lvx_seg *ts = lvx_lv_thin_seg(thin);
    if (ts->merging && ts->origin_lv) {
        lvx_cmd_errorf("Unable to remove %s/%s, volume is merged to %s/%s.", thin->vg->name,
                       thin->name, thin->vg->name, ts->origin_lv->name);
        return false;
    }
    if (!deactivate_first(env, r->act, thin, false))
        return false;
    struct lvx_seg *merging = lvx_thin_merging_into(thin);
    if (merging) {
        merging->merging = false;
        if (!remove_thin(env, merging->lv, r))
            return false;
    }
    const char *name = thin->name;
    bool queued = false;
    if (lvx_thin_cmd_delete(env, r->act, thin, &queued)) {
        lvx_error_clear(env->ctx);
        if (queued)         /* gone with its message queued (committed): a failure */
            r->kept = true;
        return queued;
    }
    r->names[r->count++] = name;
    return true;
}

/* The COW snapshots of an origin (a thin LV too), removed before it as LVM2 does. */
static bool remove_cows(struct lvx_cmd_env *env, struct lvx_lv *lv, struct removal *r)
{
    unsigned n = lvx_lv_snapshot_segs(lv, NULL, 0);
    if (!n)
        return true;
    const struct lvx_seg **segs = lvx_pool_alloc(env->pool, n * sizeof(*segs));
    struct lvx_lv **cows = lvx_pool_alloc(env->pool, n * sizeof(*cows));
    lvx_lv_snapshot_segs(lv, segs, n);
    for (unsigned i = 0; i < n; i++)
        cows[i] = segs[i]->cow_lv;
    for (unsigned i = 0; i < n; i++)
        if (!remove_snapshot(env, cows[i], r))
            return false;
    return true;
}

/* lv is gone: an origin whose snapshots went is not reloaded */
static void forget_origin(struct removal *r, const struct lvx_lv *lv)
{
    for (unsigned i = 0; i < r->origin_count; i++)
        if (r->origins[i] == lv)
            r->origins[i] = NULL;
}

/* A thin pool with its thin LVs (no messages: the pool's metadata goes), its data and
 * metadata LVs, and the metadata spare when it was the last pool (as LVM2). */
static bool remove_pool(struct lvx_cmd_env *env, struct lvx_lv *pool, struct removal *r)
{
    struct lvx_vg *vg = pool->vg;
    unsigned n = lvx_thin_pool_users(pool, NULL, 0);
    struct lvx_lv **thins = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*thins));
    lvx_thin_pool_users(pool, thins, n);
    for (unsigned i = 0; i < n; i++) {     /* each after its COW snapshots (LVM2's order) */
        if (!remove_cows(env, thins[i], r) || !deactivate_first(env, r->act, thins[i], false))
            return false;
        r->names[r->count++] = thins[i]->name;
    }
    if (!deactivate_first(env, r->act, pool, false))
        return false;
    for (unsigned i = 0; i < n; i++) {
        lvx_vg_remove_lv(vg, thins[i]);
        forget_origin(r, thins[i]);
    }
    struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    lvx_vg_remove_lv(vg, pool);
    if (ps->data_lv)         /* a raid one with its rimage/rmeta sub-LVs */
        lvx_lvcmd_remove_lv(ps->data_lv);
    if (ps->metadata_lv)
        lvx_lvcmd_remove_lv(ps->metadata_lv);
    r->names[r->count++] = pool->name;
    bool last = true;
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (vg->lvs[i]->seg_count && (vg->lvs[i]->segs[0].kind == LVX_SEG_THIN_POOL ||
                                      vg->lvs[i]->segs[0].kind == LVX_SEG_THIN ||
                                      vg->lvs[i]->segs[0].kind == LVX_SEG_CACHE_POOL ||
                                      vg->lvs[i]->segs[0].kind == LVX_SEG_CACHE))
            last = false;
    struct lvx_lv *spare = lvx_vg_pmspare(vg);
    if (last && spare)
        lvx_vg_remove_lv(vg, spare);
    return true;
}

static int remove_one(struct lvx_cmd_env *env, struct lvx_lv *lv, void *arg);

/* The LV stays: 1 (commit) when LVs it took along before went, and the command fails
 * all the same; -1 (nothing to commit) otherwise. */
static int kept(struct removal *r, unsigned before)
{
    if (r->count == before)
        return -1;
    r->kept = true;
    return 1;
}

/* An external origin's thin LVs go first (LVM2's _lv_remove_segs_using_this_lv: asked
 * unless -f/-y), each with what depends on it (its COW snapshots, its own external
 * users in a chain); false when one stays. */
static bool remove_ext_users(struct lvx_cmd_env *env, struct lvx_lv *lv, struct removal *r)
{
    struct lvx_vg *vg = lv->vg;
    struct lvx_lv **users = lvx_pool_alloc(env->pool, (vg->lv_count + 1) * sizeof(*users));
    unsigned n = 0;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_seg *s = lvx_lv_thin_seg(vg->lvs[i]);
        if (s && s->external_lv == lv)
            users[n++] = vg->lvs[i];
    }
    if (!env->args->count[LVX_OPT_FORCE] && !env->args->count[LVX_OPT_YES] &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Removing external origin %s/%s will "
                                           "remove %u dependent volume(s). Proceed?",
                                           vg->name, lv->name, n))) {
        lvx_cmd_errorf("Logical volume %s/%s not removed.", vg->name, lv->name);
        return false;
    }
    for (unsigned i = 0; i < n; i++)
        if (in_vg(users[i]) && remove_one(env, users[i], r) < 0)
            return false;
    return true;
}

/* Remove lv from its VG (visible top-level LVs; sub-LVs go with their owners, refused
 * for now): 1, or -1 after printing why not. */
static int remove_one(struct lvx_cmd_env *env, struct lvx_lv *lv, void *arg)
{
    struct removal *r = arg;
    if (!in_vg(lv))
        return 0;         /* went with its origin */
    removal_start(env, r, lv->vg);
    unsigned before = r->count;
    if (lvx_lv_is_cow(lv)) {
        struct lvx_lv *org = lvx_lv_cow_snapshot_seg(lv)->origin_lv;
        if (org && lvx_lv_is_virtual_origin(org))
            return remove_sparse(env, lv, org, r) ? 1 : -1;
        return remove_snapshot(env, lv, r) ? 1 : -1;
    }
    if (lvx_lv_is_thin_pool(lv))
        return remove_pool(env, lv, r) ? 1 : -1;
    if (lvx_lv_is_external_origin(lv) && !remove_ext_users(env, lv, r))
        return kept(r, before);
    if (!remove_cows(env, lv, r))           /* an origin (a thin LV too): them first */
        return kept(r, before);
    if (lvx_lv_is_thin(lv)) {
        bool gone = remove_thin(env, lv, r);
        if (gone)
            forget_origin(r, lv);
        return gone ? 1 : kept(r, before);
    }
    const char *role;
    bool raid = (lvx_map_lv_is_raid(lv) || lvx_map_lv_is_mirror(lv)) && !lvx_lv_used_by(lv, &role);
    if ((!raid && lvx_lvcmd_refuse_complex(lv, "remove")) ||
        !deactivate_first(env, r->act, lv, false) || !lease_free_later(env, r, lv))
        return kept(r, before);
    r->names[r->count++] = lv->name;
    forget_origin(r, lv);
    lvx_lvcmd_remove_lv(lv);               /* a RAID LV's rimage/rmeta sub-LVs go with it */
    return 1;
}

static bool removed(struct lvx_cmd_env *env, struct lvx_lv **lvs, unsigned n, void *arg)
{
    struct removal *r = arg;
    bool failed = false;
    (void)lvs;
    (void)n;
    /* active origins that keep living: their devices follow the new metadata (the
     * -real layer goes with the last snapshot) */
    for (unsigned i = 0; i < r->origin_count; i++)
        if (r->origins[i] && lvx_actcmd_activate(env, r->act, r->origins[i]))
            failed = true;
    for (unsigned i = 0; i < r->leased_count; i++)    /* lvmlockd's free_lv */
        if (lvx_lockd_free_lv(env->ctx, &r->leased[i]) < 0) {
            lvx_cmd_fail(env);
            failed = true;
        }
    lvx_cmdlog_lv_removed();
    failed = failed || r->kept;
    r->kept = false;
    for (unsigned i = 0; i < r->count; i++)
        lvx_notice(env->ctx, "Logical volume \"%s\" successfully removed.", r->names[i]);
    r->names = NULL;
    r->leased_count = 0;
    return failed;
}

int lvx_cmd_lvremove(struct lvx_cmd_env *env)
{
    struct lvx_actcmd act;
    int rc = 0;
    if (env->args->argc < 1 && !env->args->count[LVX_OPT_SELECT]) {
        lvx_cmd_errorf("Please specify a logical volume path.");
        return LVX_EXIT_INVALID;
    }
    lvx_tk_default_vg_names(env);                     /* LVM_VG_NAME */
    if ((rc = lvx_lvcmd_check_names(env)))
        return rc;
    unsigned count;
    char **args = lvx_cmd_lv_args(env, &count);          /* "@tag": the LVs with the tag */
    if (!args || !(args = lvx_tk_select_lvs(env, args, count, &count)))   /* -S */
        return LVX_EXIT_FAILED;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    struct removal r = { .act = &act };
    /* LVs go also while PVs of their VG are missing, even LVs on a missing PV (LVM2's
     * handles_missing_pvs): the missing PVs are written as MISSING */
    struct lvx_tk_lv_ops ops = { .lv = remove_one, .done = removed, .arg = &r,
                                 .update_flags = LVX_UPDATE_ALLOW_MISSING,
                                 .gone_ok = env->args->count[LVX_OPT_SELECT] > 0 };
    return lvx_process_lv_args(env, args, count, &ops);
}
