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
 * snapshots with it first, as LVM2 (each asked about when active).  An active LV is
 * deactivated first
 * (cmd/activation.c) after the question "Do you really want to remove active logical
 * volume vg/lv?" (skipped with -y or -f); a mounted one is refused, an open one too
 * unless -f.
 */
#include "cmd/lvcmd.h"
#include "cmd/toolkit.h"

#include "cmd/actcmd.h"
#include "map/map.h"

#include <string.h>

#include "model/snapshot.h"

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
    return (snapshot ? lvx_actcmd_deactivate_snapshot(env, act, lv, force)
                     : lvx_actcmd_deactivate(env, act, lv, force)) == 0;
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
};

static void removal_start(struct lvx_cmd_env *env, struct removal *r, const struct lvx_vg *vg)
{
    if (r->vg == vg && r->names)
        return;
    unsigned all = vg->lv_count + 1;
    r->vg = vg;
    r->names = lvx_pool_alloc(env->pool, all * sizeof(char *));
    r->origins = lvx_pool_alloc(env->pool, all * sizeof(struct lvx_lv *));
    r->count = r->origin_count = 0;
}

static bool in_vg(const struct lvx_lv *lv)
{
    return lv->index < lv->vg->lv_count && lv->vg->lvs[lv->index] == lv;
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

/* Remove lv from its VG (visible top-level LVs; sub-LVs go with their owners, refused
 * for now): 1, or -1 after printing why not. */
static int remove_one(struct lvx_cmd_env *env, struct lvx_lv *lv, void *arg)
{
    struct removal *r = arg;
    if (!in_vg(lv))
        return 0;         /* went with its origin */
    removal_start(env, r, lv->vg);
    unsigned before = r->count;
    if (lvx_lv_is_cow(lv))
        return remove_snapshot(env, lv, r) ? 1 : -1;
    unsigned n = lvx_lv_snapshot_segs(lv, NULL, 0);
    if (n) {
        /* an origin: its snapshots first */
        const struct lvx_seg **segs = lvx_pool_alloc(env->pool, n * sizeof(*segs));
        struct lvx_lv **cows = lvx_pool_alloc(env->pool, n * sizeof(*cows));
        lvx_lv_snapshot_segs(lv, segs, n);
        for (unsigned i = 0; i < n; i++)
            cows[i] = segs[i]->cow_lv;
        for (unsigned i = 0; i < n; i++)
            if (!remove_snapshot(env, cows[i], r))
                return r->count > before ? 1 : -1;
    }
    const char *role;
    bool raid = lvx_map_lv_is_raid(lv) && !lvx_lv_used_by(lv, &role);
    if ((!raid && lvx_lvcmd_refuse_complex(lv, "remove")) ||
        !deactivate_first(env, r->act, lv, false))
        return r->count > before ? 1 : -1;
    r->names[r->count++] = lv->name;
    for (unsigned i = 0; i < r->origin_count; i++)
        if (r->origins[i] == lv)
            r->origins[i] = NULL;    /* gone: nothing to reload */
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
    for (unsigned i = 0; i < r->count; i++)
        lvx_notice(env->ctx, "Logical volume \"%s\" successfully removed.", r->names[i]);
    r->names = NULL;
    return failed;
}

int lvx_cmd_lvremove(struct lvx_cmd_env *env)
{
    struct lvx_actcmd act;
    int rc = 0;
    if (env->args->argc < 1) {
        lvx_cmd_errorf("Please specify a logical volume path.");
        return LVX_EXIT_INVALID;
    }
    if ((rc = lvx_lvcmd_check_names(env)))
        return rc;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    struct removal r = { .act = &act };
    struct lvx_tk_lv_ops ops = { .lv = remove_one, .done = removed, .arg = &r };
    return lvx_process_each_lv(env, &ops);
}
