/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_snapshot.c - lvconvert's two COW snapshot forms, with LVM2 2.03.16's
 * checks, prompts, messages and sequence (tools/lvconvert.c, lvconvert_split_cow_snapshot
 * and lvconvert_combine_split_snapshot):
 *
 *   lvconvert --splitsnapshot VG/COW
 *       the COW LV leaves its origin and becomes a plain visible LV (its snapshotN
 *       goes).  Active: refused while its device is open, asked about unless -y/-f,
 *       the snapshot's devices are removed, the metadata committed, the origin
 *       reloaded without it and the former COW activated as a plain LV (LVM2 leaves it
 *       active).  Its content (the exception store) is kept as it is.
 *
 *   lvconvert -s|--snapshot|--type snapshot [-c CHUNK] [-Z y|n] VG/ORIGIN VG/COW
 *       the reverse: the linear or striped LV COW becomes a COW snapshot of ORIGIN.
 *       Refusals before any write: COW's type (LVM2's command definition:
 *       LV_linear_striped, visible, not locked or pvmoved), COW == ORIGIN, the chunk
 *       size, a COW smaller than 3 chunks, a missing or unsuitable origin
 *       (cmd/snapshot_cmd.c), an origin used as a COW.  After LVM2's warning and
 *       question: COW is deactivated (refused when open), its first 4 KiB zeroed
 *       (a new, empty exception store; not with -Zn or a read-only COW: "not
 *       zeroed"), the snapshot tied and committed, and an active origin reloaded with
 *       the snapshot (which is then active, as lvcreate -s leaves it).
 *
 * The second form takes an origin's VG from either argument (LVM2's quirk:
 * "lvconvert -s vg/origin cow").  Shared VGs are refused as LVM2 refuses them.
 */
#include "cmd/snapshot_cmd.h"

#include "cmd/lvcmd.h"
#include "map/map.h"
#include "model/snapshot.h"
#include "model/thin.h"

#include <string.h>

#define ZERO_BYTES 4096u

static const char *full(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    return lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
}

bool lvx_lvconvert_is_snapshot(const struct lvx_cmd_env *env)
{
    const char *type = env->args->value[LVX_OPT_TYPE];
    return env->args->count[LVX_OPT_SPLITSNAPSHOT] || env->args->count[LVX_OPT_SNAPSHOT] ||
           (type && !strcmp(type, "snapshot"));
}

static int not_permitted(struct lvx_cmd_env *env, const struct lvx_lv *lv, const char *why)
{
    lvx_cmd_errorf("%s", why);
    lvx_cmd_errorf("Command not permitted on LV %s.", full(env, lv));
    return LVX_EXIT_FAILED;
}

static int refuse_type(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    return not_permitted(env, lv, lvx_pool_printf(env->pool, "Command on LV %s does not accept "
                                                  "LV type %s.", full(env, lv), lvx_lvcmd_lv_type(lv)));
}

static int refuse_shared(struct lvx_cmd_env *env, const struct lvx_vg *vg, const char *what)
{
    lvx_cmd_errorf("Unable to %s snapshots in VG with lock_type %s%s", what, vg->lock_type,
                   !strcmp(what, "split") ? "." : "");
    return LVX_EXIT_FAILED;
}

/* The rules both command definitions share for the LV processed. */
static int refuse_state(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    if (lv->status & LVX_LV_LOCKED)
        return not_permitted(env, lv, lvx_pool_printf(env->pool, "Command on LV %s is invalid "
                                                      "on LV with properties: lv_is_locked .",
                                                      full(env, lv)));
    if (lv->status & LVX_LV_PVMOVE)
        return not_permitted(env, lv, lvx_pool_printf(env->pool, "Command on LV %s is invalid "
                                                      "on LV with properties: lv_is_pvmove .",
                                                      full(env, lv)));
    return 0;
}

static struct lvx_lv *find(struct lvx_cmd_env *env, struct lvx_vg *vg, const char *name)
{
    struct lvx_lv *lv = lvx_vg_find_lv(vg, name);
    if (!lv)
        lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vg->name, name);
    return lv;
}

/* ---- --splitsnapshot ------------------------------------------------------------- */

static int split(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *cow)
{
    int rc;
    const struct lvx_seg *seg = lvx_lv_cow_snapshot_seg(cow);
    if (!seg)
        return refuse_type(env, cow);
    if ((rc = refuse_state(env, cow)))
        return rc;
    if (seg->merging)
        return not_permitted(env, cow, lvx_pool_printf(env->pool, "Command on LV %s is invalid "
                                                       "on LV with properties: "
                                                       "lv_is_merging_cow .", full(env, cow)));
    struct lvx_lv *origin = seg->origin_lv;
    if (origin && lvx_lv_is_virtual_origin(origin)) {
        lvx_cmd_errorf("Unable to split off snapshot %s with virtual origin.", full(env, cow));
        return LVX_EXIT_FAILED;
    }
    if (lvx_vg_is_lockd(u->vg))
        return refuse_shared(env, u->vg, "split");
    struct lvx_actcmd act;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    bool active = !act.off && lvx_actcmd_is_active(env, &act, cow, NULL);
    if (active) {
        if (!env->args->count[LVX_OPT_YES] && !env->args->count[LVX_OPT_FORCE]) {
            const char *q = lvx_pool_printf(env->pool, "Do you really want to split off active "
                                            "logical volume %s?", full(env, cow));
            if (!lvx_lvcmd_confirm(q)) {
                lvx_cmd_errorf("Logical volume %s not split.", full(env, cow));
                return LVX_EXIT_FAILED;
            }
        }
        /* an open snapshot stays ("in use"): LVM2's lv_check_not_in_use */
        if (!act.test && (rc = lvx_actcmd_deactivate_snapshot(env, &act, cow, false)))
            return rc;
    }
    lvx_vg_remove_snapshot(u->vg, cow);
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    if (active && !act.test &&
        ((rc = lvx_actcmd_activate(env, &act, origin)) || (rc = lvx_actcmd_activate(env, &act, cow))))
        return rc;
    lvx_notice(env->ctx, "Logical Volume %s split from its origin.", full(env, cow));
    return 0;
}

/* ---- -s ORIGIN COW ---------------------------------------------------------------- */

struct combine {
    const char *vg_name, *origin_name, *cow_name;
    uint32_t chunk;
};

/* The two names, with the VG taken from whichever names one. */
static int combine_args(struct lvx_cmd_env *env, struct combine *c)
{
    const struct lvx_cmd_args *a = env->args;
    if (a->argc != 2) {
        lvx_cmd_errorf("No command with matching syntax recognised.  Run 'lvconvert --help' "
                       "for more information.");
        return LVX_EXIT_INVALID;
    }
    const char *ovg = NULL, *olv = NULL, *cvg = NULL, *clv = NULL;
    if (!lvx_lvcmd_split_name(env, a->argv[0], &ovg, &olv) ||
        !lvx_lvcmd_split_name(env, a->argv[1], &cvg, &clv)) {
        lvx_cmd_errorf("\"%s\": Invalid path for Logical Volume.", a->argv[1]);
        return LVX_EXIT_FAILED;
    }
    /* a bare name comes back as the VG: an LV name in the VG the other argument names */
    if (!olv) {
        olv = ovg;
        ovg = NULL;
    }
    if (!clv) {
        clv = cvg;
        cvg = NULL;
    }
    if (!ovg && !cvg) {
        lvx_cmd_errorf("Path required for Logical Volume \"%s\".", a->argv[1]);
        return LVX_EXIT_INVALID;
    }
    if (ovg && cvg && strcmp(ovg, cvg)) {
        lvx_cmd_errorf("Please use a single volume group name (\"%s\" or \"%s\").", cvg, ovg);
        return LVX_EXIT_FAILED;
    }
    c->vg_name = cvg ? cvg : ovg;
    c->origin_name = olv;
    c->cow_name = clv;
    c->chunk = LVX_SNAPSHOT_DEFAULT_CHUNK;
    if (a->count[LVX_OPT_CHUNKSIZE]) {
        uint64_t s = a->val[LVX_OPT_CHUNKSIZE].sectors;
        if (s < LVX_SNAPSHOT_DEFAULT_CHUNK || s > LVX_SNAPSHOT_MAX_CHUNK || (s & (s - 1))) {
            lvx_cmd_errorf("Chunk size must be a power of 2 in the range 4K to 512K.");
            return LVX_EXIT_FAILED;
        }
        c->chunk = (uint32_t)s;
    }
    return 0;
}

static bool cow_type_ok(const struct lvx_lv *lv)
{
    if (lvx_lv_is_cow(lv) || !lv->seg_count)
        return false;
    for (unsigned i = 0; i < lv->seg_count; i++)
        if (lv->segs[i].kind != LVX_SEG_STRIPED)
            return false;
    return true;
}

static int combine(struct lvx_cmd_env *env, struct lvx_vg_update *u, const struct combine *c,
                   struct lvx_lv *cow)
{
    struct lvx_vg *vg = u->vg;
    int rc;
    if (!strcmp(cow->name, c->origin_name)) {     /* before the type, as LVM2 */
        lvx_cmd_errorf("Unable to use %s as both snapshot and origin.", full(env, cow));
        return LVX_EXIT_FAILED;
    }
    if (!cow_type_ok(cow))
        return refuse_type(env, cow);
    if ((rc = refuse_state(env, cow)))
        return rc;
    if (!lvx_lv_is_visible(cow))
        return not_permitted(env, cow, lvx_pool_printf(env->pool, "Command on LV %s requires "
                                                       "LV with properties: lv_is_visible .",
                                                       full(env, cow)));
    if (lvx_vg_is_lockd(vg))
        return refuse_shared(env, vg, "combine split");
    if ((rc = lvx_snapshot_cow_size_check(env, vg, cow->le_count, c->chunk)))
        return rc;
    struct lvx_lv *origin = lvx_vg_find_lv(vg, c->origin_name);
    if (!origin) {
        lvx_cmd_errorf("Couldn't find origin volume %s in Volume group %s.", c->origin_name,
                       vg->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_actcmd act;
    if ((rc = lvx_actcmd_init(env, &act)) || (rc = lvx_snapshot_origin_check(env, origin, &act)))
        return rc;
    if (lvx_lv_snapshot_segs(cow, NULL, 0) > 0) {
        /* LVM2 would tie it and then fail its own metadata check (an LV both origin
         * and COW): refused here before anything is written */
        lvx_cmd_errorf("%s is the origin of snapshots: it cannot become one.", full(env, cow));
        return LVX_EXIT_FAILED;
    }
    lvx_warn(env->ctx, "WARNING: Converting logical volume %s to snapshot exception store.",
             full(env, cow));
    lvx_warn(env->ctx, "THIS WILL DESTROY CONTENT OF LOGICAL VOLUME (filesystem etc.)");
    if (!env->args->count[LVX_OPT_YES] &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Do you really want to convert %s?",
                                           full(env, cow)))) {
        lvx_cmd_errorf("Conversion aborted.");
        return LVX_EXIT_FAILED;
    }
    if (!act.off && !act.test && lvx_actcmd_is_active(env, &act, cow, NULL) &&
        lvx_actcmd_deactivate(env, &act, cow, false)) {
        lvx_cmd_errorf("Couldn't deactivate logical volume %s.", full(env, cow));
        return LVX_EXIT_FAILED;
    }
    bool zero = !env->args->count[LVX_OPT_ZERO] || env->args->val[LVX_OPT_ZERO].b;
    if (!zero || !(cow->status & LVX_LV_WRITE)) {
        lvx_warn(env->ctx, "WARNING: %s not zeroed.", full(env, cow));
    } else if (!act.test && lvx_lvcmd_zero_start(env, u, cow, ZERO_BYTES) < 0) {
        lvx_info(env->ctx, "Zeroing the start of %s: %s", full(env, cow), env->ctx->errmsg);
        lvx_error_clear(env->ctx);
        lvx_cmd_errorf("Aborting. Failed to wipe snapshot exception store.");
        return LVX_EXIT_FAILED;
    }
    bool origin_active = !act.off && lvx_actcmd_is_active(env, &act, origin, NULL);
    lvx_vg_add_snapshot(vg, origin, cow, c->chunk);
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    if (origin_active && !act.test && (rc = lvx_actcmd_activate(env, &act, origin)))
        return rc;
    lvx_notice(env->ctx, "Logical volume %s converted to snapshot.", full(env, cow));
    return 0;
}

int lvx_lvconvert_snapshot(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    struct lvx_vg_update u;
    struct combine c;
    int rc;
    bool splitting = a->count[LVX_OPT_SPLITSNAPSHOT] > 0;
    if (splitting && (a->count[LVX_OPT_SNAPSHOT] || a->count[LVX_OPT_TYPE] ||
                      a->count[LVX_OPT_CHUNKSIZE] || a->count[LVX_OPT_ZERO] || a->argc != 1)) {
        lvx_cmd_errorf("No command with matching syntax recognised.  Run 'lvconvert --help' "
                       "for more information.");
        return LVX_EXIT_INVALID;
    }
    memset(&c, 0, sizeof(c));
    if (splitting) {
        const char *vg = NULL, *lv = NULL;
        if (!lvx_lvcmd_split_name(env, a->argv[0], &vg, &lv) || !lv) {
            lvx_cmd_errorf("Path required for Logical Volume \"%s\".", a->argv[0]);
            return LVX_EXIT_INVALID;
        }
        c.vg_name = vg;
        c.cow_name = lv;
    } else if ((rc = combine_args(env, &c))) {
        return rc;
    }
    if ((rc = lvx_lvcmd_begin(env, c.vg_name, &u)))
        return rc;
    struct lvx_lv *lv = find(env, u.vg, c.cow_name);
    rc = !lv ? LVX_EXIT_FAILED : splitting ? split(env, &u, lv) : combine(env, &u, &c, lv);
    lvx_vg_update_end(&u);
    return rc;
}
