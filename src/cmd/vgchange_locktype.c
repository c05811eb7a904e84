/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgchange_locktype.c - `lvx vgchange --locktype none|sanlock VG...` (lvmlockd(8)
 * "Changing a local VG to a shared VG" and back), LVM2's rules and lines:
 * - none -> sanlock (use_lvmlockd set, no LV active): the lvmlock LV is allocated as by
 *   vgcreate --shared (cmd/shared_vg.c) and committed, its leases written (the global
 *   lock when no other shared VG is seen); when LVs need leases the lockspace is joined
 *   (it stays joined), each gets one and its lock_args, and that is committed too.
 * - sanlock -> none (the lockspace started here: the change holds the VG lease, no LV
 *   active): the lvmlock LV removed, the lock type and every lock_args cleared, then the
 *   lockspace left.
 * - none --lockopt force (recovery, after the [y/n] question unless -y): no lock, no
 *   lvmlockd; lock type and lock_args cleared, the lvmlock LV kept (a later change to
 *   sanlock replaces it).
 * A shared type to another shared type, dlm and idm are refused.
 */
#include "cmd/vgchange_locktype.h"

#include <string.h>

#include "cmd/actcmd.h"
#include "cmd/lvcmd.h"
#include "cmd/shared_vg.h"
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"
#include "meta/lockd.h"
#include "meta/lockd_sanlock.h"
#include "meta/scan.h"

struct locktype {
    const char *type;       /* "none" or "sanlock" */
    bool force;
};

static bool lockd_type(const char *t)
{
    return !strcmp(t, "sanlock") || !strcmp(t, "dlm") || !strcmp(t, "idm");
}

static bool any_active(struct lvx_cmd_env *env, const struct lvx_vg *vg)
{
    struct lvx_actcmd act;
    if (lvx_actcmd_init(env, &act) || !act.be)
        return false;
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (lvx_actcmd_is_active(env, &act, vg->lvs[i], NULL))
            return true;
    return false;
}

static void clear_locks(struct lvx_vg *vg)
{
    vg->lock_type = "none";         /* as LVM2 writes it */
    vg->lock_args = NULL;
    vg->status &= ~(LVX_VG_CLUSTERED | LVX_VG_SHARED);
    if (vg->flags & LVX_VGF_WRITE_LOCKED) {
        vg->flags &= ~LVX_VGF_WRITE_LOCKED;
        vg->status |= LVX_VG_WRITE;
    }
    for (unsigned i = 0; i < vg->lv_count; i++)
        vg->lvs[i]->lock_args = NULL;
}

static int to_none(struct lvx_cmd_env *env, struct lvx_vg *vg)
{
    const char *name = vg->lock_args ? strrchr(vg->lock_args, ':') : NULL;
    struct lvx_lv *lock_lv = lvx_vg_find_lv(vg, name ? name + 1 : "lvmlock");
    if (lock_lv)
        lvx_vg_remove_lv(vg, lock_lv);
    clear_locks(vg);
    return 0;
}

static int done(struct lvx_cmd_env *env, const struct lvx_vg *vg)
{
    lvx_notice(env->ctx, "Volume group \"%s\" successfully changed", vg->name);
    return 0;
}

static int to_sanlock(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_sanlock_area area = { 0 };
    bool global = lvx_shared_vg_first(u->set);
    struct lvx_lv *stale = lvx_vg_find_lv(vg, "lvmlock");    /* left by a forced "none" */
    if (stale && !lvx_lv_is_visible(stale))
        lvx_vg_remove_lv(vg, stale);
    int rc = lvx_shared_vg_make(env, vg, &area);
    if (rc)
        return rc;
    if (global)
        lvx_notice(env->ctx, "Enabling sanlock global lock");
    if ((rc = lvx_vgcmd_commit(env, u)) != 0)         /* stage 1: the lvmlock LV */
        return rc;
    lvx_notice(env->ctx, "Logical volume \"lvmlock\" created.");
    if (env->args->count[LVX_OPT_TEST])
        return done(env, vg);
    if (lvx_sanlock_init_vg(env->ctx, vg->name, &area, global) < 0) {
        lvx_cmd_fail(env);
        lvx_cmd_errorf("Failed to initialize lock args for lock type sanlock");
        return LVX_EXIT_FAILED;
    }
    bool needs = false;                 /* stage 2: the LVs' leases, lockspace joined */
    for (unsigned i = 0; i < vg->lv_count; i++)
        needs |= lvx_lv_is_visible(vg->lvs[i]) && !vg->lvs[i]->lock_args &&
                 strcmp(vg->lvs[i]->name, "lvmlock") != 0;
    if (!needs)
        return done(env, vg);
    if (lvx_lockd_start(env->ctx, vg) < 0 || lvx_lockd_init_lvs(env->ctx, vg) < 0) {
        lvx_cmd_fail(env);
        lvx_cmd_errorf("Failed to initialize lock args for lock type sanlock");
        return LVX_EXIT_FAILED;
    }
    *commit = true;
    return 0;
}

static int change_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit, void *arg)
{
    const struct locktype *l = arg;
    struct lvx_vg *vg = u->vg;
    if (l->force) {                       /* recovery: only the lock metadata goes */
        clear_locks(vg);
        *commit = true;
        return 0;
    }
    const char *now = vg->lock_type && *vg->lock_type ? vg->lock_type
                      : (vg->status & LVX_VG_CLUSTERED) ? "clvm" : "none";
    if (!strcmp(now, l->type)) {
        lvx_warn(env->ctx, "WARNING: New lock type %s matches the current lock type %s.",
                 l->type, now);
        return 0;
    }
    if (lockd_type(now) && lockd_type(l->type)) {
        lvx_cmd_errorf("Cannot change lock type directly from \"%s\" to \"%s\".", now, l->type);
        lvx_cmd_errorf("First change lock type to \"none\", then to \"%s\".", l->type);
        return LVX_EXIT_FAILED;
    }
    if (any_active(env, vg)) {
        lvx_cmd_errorf("Changing VG %s lock type not allowed with active LVs", vg->name);
        return LVX_EXIT_FAILED;
    }
    if (!strcmp(now, "sanlock") && !strcmp(l->type, "none")) {
        *commit = true;
        return to_none(env, vg);
    }
    if (!strcmp(now, "none") && !strcmp(l->type, "sanlock"))
        return to_sanlock(env, u, commit);
    if (!strcmp(now, "none") && lockd_type(l->type)) {
        lvx_cmd_errorf("Lock type %s is not supported by lvx (sanlock only).", l->type);
        return LVX_EXIT_FAILED;
    }
    lvx_cmd_errorf("Cannot change to unknown lock type %s", l->type);
    return LVX_EXIT_FAILED;
}

static int changed_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, void *arg)
{
    const struct locktype *l = arg;
    if (!l->force && !strcmp(l->type, "none") && lvx_sanlock_started(env->ctx, u->vg->name)) {
        lvx_lockd_vg_unlock(&u->lockd_hold);          /* the lease first, then the lockspace */
        lvx_sanlock_stop(env->ctx, u->vg->name);
    }
    return done(env, u->vg);
}

int lvx_vgchange_locktype(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    struct locktype l = { .type = a->value[LVX_OPT_LOCKTYPE] };
    const char *opt = a->count[LVX_OPT_LOCKOPT] ? a->value[LVX_OPT_LOCKOPT] : "";
    l.force = strstr(opt, "force") != NULL;
    static const char *const known[] = { "none", "sanlock", "dlm", "idm", "clvm", "local" };
    bool ok = false;
    for (unsigned i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        ok |= !strcmp(l.type, known[i]);
    if (!ok) {
        lvx_cmd_errorf("Invalid argument for --locktype: %s", l.type);
        lvx_cmd_errorf("Error during parsing of command line.");
        return LVX_EXIT_INVALID;
    }
    if (a->argc == 0) {
        lvx_cmd_errorf("Please specify a volume group.");
        return LVX_EXIT_INVALID;
    }
    struct lvx_tk_vg_ops ops = { .vg = change_vg, .done = changed_vg, .arg = &l };
    if (l.force) {
        if (strcmp(l.type, "none") != 0) {
            lvx_cmd_errorf("Lock type can only be forced to \"none\" for recovery.");
            return LVX_EXIT_FAILED;
        }
        if (!a->count[LVX_OPT_YES] && !lvx_lvcmd_confirm("Forcibly change VG lock type to none?")) {
            lvx_cmd_errorf("VG lock type not changed.");
            return LVX_EXIT_FAILED;
        }
        ops.update_flags = LVX_UPDATE_LOCKD_UNLOCKED | LVX_UPDATE_ALLOW_MISSING;
    } else if (!lvx_lockd_use(env->ctx)) {
        lvx_cmd_errorf("Using a shared lock type requires lvmlockd (lvm.conf use_lvmlockd.)");
        return LVX_EXIT_FAILED;
    }
    return lvx_process_vg_names(env, a->argv, (unsigned)a->argc, &ops);
}
