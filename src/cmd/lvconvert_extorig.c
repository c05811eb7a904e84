/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_extorig.c - lvconvert of an LV into a thin LV whose external origin
 * is the old LV, as LVM2 2.03.16 (tools/lvconvert.c _lvconvert_to_thin_with_external,
 * tools/lvconvert_poll.c swap_lv_identifiers, lib/metadata/thin_manip.c
 * attach_thin_external_origin, pool_supports_external_origin):
 *
 *   lvconvert --type thin --thinpool VG/POOL VG/LV [--originname NAME]
 *   lvconvert --thin --thinpool VG/POOL VG/LV [--originname NAME]
 *
 * A thin LV of LV's size is made in POOL (create_thin, named NAME or lvolN: "Logical
 * volume ... created."), then the two swap names and UUIDs: the thin LV becomes LV
 * (keeping LV's write permission), the old LV becomes NAME, read-only, the thin LV's
 * external origin.  Refusals as LVM2's (the origin's size against the pool's chunk:
 * lvx_thin_external_fits).  An active LV is reloaded in place as the thin LV (its
 * data read through the origin's read-only -real layer).  A POOL that is not a pool
 * yet is made one first (lvconvert_thin.c, LVM2's _lvconvert_to_pool).
 * Entry point: lvx_lvconvert_thin_external().
 */
#include "cmd/lvconvert_thin.h"

#include <string.h>

#include "cmd/actcmd.h"
#include "cmd/lvcreate_thin.h"
#include "map/map.h"
#include "model/snapshot.h"
#include "model/thin.h"

static const char *full(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    return lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
}

/* Swap names and UUIDs of a and b (LVM2's swap_lv_identifiers). */
static void swap_ids(struct lvx_lv *a, struct lvx_lv *b)
{
    char uuid[sizeof(a->uuid)];
    const char *name = a->name;
    memcpy(uuid, a->uuid, sizeof(uuid));
    memcpy(a->uuid, b->uuid, sizeof(uuid));
    memcpy(b->uuid, uuid, sizeof(uuid));
    a->name = b->name;
    b->name = name;
}

/* LV was an external origin already (a chain): its active thin LVs follow it to its new
 * name and UUID (their tables over the new <ext>-real), before thin's own reload lets
 * the old -real go, as LVM2 reloads the active users of an external origin. */
static int reload_users(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                        const struct lvx_lv *ext, const struct lvx_lv *thin)
{
    const struct lvx_vg *vg = ext->vg;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_lv *o = vg->lvs[i];
        const struct lvx_seg *s = lvx_lv_thin_seg(o);
        int rc;
        if (o != thin && s && s->external_lv == ext && lvx_actcmd_is_active(env, act, o, NULL) &&
            (rc = lvx_actcmd_activate(env, act, o)))
            return rc;
    }
    return 0;
}

static int convert(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                   struct lvx_lv *pool, const char *origin_name)
{
    struct lvx_actcmd act;
    struct lvx_lv *thin;
    int rc = lvx_actcmd_init(env, &act);
    if (rc)
        return rc;
    if ((rc = lvx_thin_external_fits(env, &act, pool, lv)))
        return rc;
    if ((rc = lvx_thin_need_messages(&act, u->vg, "thin LV")))
        return rc;
    /* an active LV stays active: its device is reloaded as the thin LV (same name and
     * UUID) over the origin's read-only -real layer, as LVM2's lv_update_and_reload */
    bool active = !act.off && !env->args->count[LVX_OPT_TEST] &&
                  lvx_actcmd_is_active(env, &act, lv, NULL);
    const char *name = origin_name ? origin_name : lvx_thin_next_lv_name(env, u->vg);
    if ((rc = lvx_lvcmd_check_new_name(u->vg, name)))
        return rc;
    bool writable = (lv->status & LVX_LV_WRITE) != 0;
    if ((rc = lvx_lvcreate_thin_lv(env, u, &act, pool, false, name, lv->le_count, NULL, &thin)))
        return rc;
    lvx_thin_overprovisioning(env, pool);
    lvx_notice(env->ctx, "Logical volume \"%s\" created.", thin->name);
    swap_ids(thin, lv);
    thin->status = (thin->status & ~LVX_LV_WRITE) | (writable ? LVX_LV_WRITE : 0);
    lvx_lv_thin_seg(thin)->external_lv = lv;
    lv->status &= ~LVX_LV_WRITE;
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    if (!act.off && !env->args->count[LVX_OPT_TEST] && (rc = reload_users(env, &act, lv, thin)))
        return rc;
    if (active && (rc = lvx_actcmd_activate(env, &act, thin)))
        return rc;
    lvx_notice(env->ctx, "Converted %s to thin volume with external origin %s.", full(env, thin),
               full(env, lv));
    return 0;
}

/* The LV type LVM2's command definition refuses ("LV_linear_striped_raid_cache_thin_
 * error_zero" are taken), or NULL. */
static const char *refused_type(const struct lvx_lv *lv)
{
    bool refused = lvx_lv_is_thin_pool(lv) || lvx_lv_is_cow(lv) || lvx_map_lv_is_mirror(lv) ||
                   (lv->seg_count && lv->segs[0].kind == LVX_SEG_CACHE_POOL);
    return refused ? lvx_lvcmd_lv_type(lv) : NULL;
}

/* LVM2 makes a linear, striped or raid LV the pool first. */
static bool plain_pool_candidate(const struct lvx_lv *lv)
{
    return lv->seg_count && (lv->segs[0].kind == LVX_SEG_STRIPED || lvx_map_lv_is_raid(lv)) &&
           !refused_type(lv);
}

int lvx_lvconvert_thin_external(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    const char *vg = NULL, *name = NULL, *pvg = NULL, *pool = a->value[LVX_OPT_THINPOOL];
    const char *oname = a->value[LVX_OPT_ORIGINNAME], *ovg = NULL, *olv = NULL;
    int rc;
    if (!pool) {
        lvx_cmd_errorf("--thinpool is required to convert an LV to a thin LV.");
        return LVX_EXIT_INVALID;
    }
    if (a->argc < 1) {
        lvx_cmd_errorf("Please provide logical volume path.");
        return LVX_EXIT_INVALID;
    }
    if (!lvx_lvcmd_split_name(env, a->argv[0], &vg, &name) || !name) {
        lvx_cmd_errorf("Path required for Logical Volume \"%s\".", a->argv[0]);
        return LVX_EXIT_INVALID;
    }
    if (strchr(pool, '/') && (!lvx_lvcmd_split_name(env, pool, &pvg, &pool) || !pool ||
                              strcmp(pvg, vg) != 0)) {
        lvx_cmd_errorf("Thin pool %s not found.", a->value[LVX_OPT_THINPOOL]);
        return LVX_EXIT_FAILED;
    }
    if (oname && strchr(oname, '/')) {
        if (!lvx_lvcmd_split_name(env, oname, &ovg, &olv) || !olv || strcmp(ovg, vg) != 0) {
            lvx_cmd_errorf("Invalid logical volume name %s.", oname);
            return LVX_EXIT_INVALID;
        }
        oname = olv;
    }
    if (oname && (rc = lvx_lvcmd_check_new_name(NULL, oname)))
        return rc;
    struct lvx_vg_update u;
    if ((rc = lvx_lvcmd_begin(env, vg, &u)))
        return rc;
    struct lvx_lv *lv = lvx_vg_find_lv(u.vg, name);
    struct lvx_lv *tp = lvx_vg_find_lv(u.vg, pool);
    if (!lv || !lvx_lv_is_visible(lv)) {
        lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vg, name);
        rc = LVX_EXIT_FAILED;
    } else if (refused_type(lv)) {
        lvx_cmd_errorf("Command on LV %s does not accept LV type %s.", full(env, lv),
                       refused_type(lv));
        lvx_cmd_errorf("Command not permitted on LV %s.", full(env, lv));
        rc = LVX_EXIT_FAILED;
    } else if (!tp) {
        lvx_cmd_errorf("Thin pool %s not found.", pool);
        rc = LVX_EXIT_FAILED;
    } else if (!lvx_lv_is_thin_pool(tp) && tp == lv) {
        lvx_cmd_errorf("Use a different LV for thin pool LV and thin LV %s.", full(env, tp));
        rc = LVX_EXIT_FAILED;
    } else if (!lvx_lv_is_thin_pool(tp) && !plain_pool_candidate(tp)) {
        lvx_cmd_errorf("LV %s with type %s cannot be converted to a thin pool.", full(env, tp),
                       tp->seg_count ? lvx_seg_report_type(&tp->segs[0]) : "unknown");
        rc = LVX_EXIT_FAILED;
    } else if (!lvx_lv_is_thin_pool(tp) &&
               (rc = lvx_lvconvert_thin_make_pool(env, &u, tp)) != 0) {
        lvx_cmd_errorf("LV %s/%s could not be converted to a thin pool.", vg, pool);
    } else {
        rc = convert(env, &u, lv, lvx_vg_find_lv(u.vg, pool), oname);
    }
    lvx_vg_update_end(&u);
    return rc;
}
