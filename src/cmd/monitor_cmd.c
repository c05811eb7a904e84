/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/monitor_cmd.c - `lvchange --monitor y|n` and `vgchange --monitor y|n` (without
 * -a): the active thin pools and snapshots of the arguments watched by the backend's
 * monitor (the user backend: the lvx daemon, daemon/monitor.c, which extends them by
 * lvextend --use-policies as dmeventd does) or no longer.  LVM2's messages:
 *   "Logical volume VG/LV is not active."                           (lvchange, exit 5)
 *   "N logical volume(s) in volume group "VG" monitored|unmonitored" (vgchange, when
 *   the VG has active LVs; N counts the active LVs)
 * Both backends monitor (dm: the lvx daemon watches the kernel devices,
 * activate/dm_watch.c); a backend without monitoring would accept and do nothing.
 *
 * Entry points: lvx_actcmd_lvmonitor(), lvx_actcmd_vgmonitor().
 */
#include "cmd/actcmd.h"
#include "cmd/cmd.h"
#include "cmd/lvcmd.h"

#include <string.h>

static int monitor_lv(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                      const struct lvx_lv *lv, bool on)
{
    if (!a->be->monitor)
        return 0;
    if (a->test || a->be->monitor(env->ctx, lv, on) == 0)
        return 0;
    return lvx_cmd_fail(env);
}

/* An exported VG: LVM2's refusal when named, else left out silently (-1). */
static int exported(struct lvx_cmd_env *env, struct lvx_vg_update *u)
{
    if (!(u->vg->status & LVX_VG_EXPORTED))
        return 0;
    bool named = env->args->argc > 0;
    if (named)
        lvx_cmd_errorf("Volume group %s is exported", u->vg->name);
    lvx_vg_update_end(u);
    return named ? LVX_EXIT_FAILED : -1;
}

static int lv_one(struct lvx_cmd_env *env, const struct lvx_actcmd *a, const char *arg, bool on)
{
    const char *vgname, *lvname;
    struct lvx_vg_update u;
    if (!lvx_lvcmd_split_name(env, arg, &vgname, &lvname)) {
        lvx_cmd_errorf("Invalid logical volume name \"%s\".", arg);
        return LVX_EXIT_INVALID;
    }
    int rc = lvx_lvcmd_begin_flags(env, vgname, LVX_UPDATE_READ_ONLY | LVX_UPDATE_ALLOW_MISSING,
                                   &u);
    if (rc || (rc = exported(env, &u)))
        return rc < 0 ? 0 : rc;
    for (unsigned i = 0; i < u.vg->lv_count; i++) {
        const struct lvx_lv *lv = u.vg->lvs[i];
        if (lvname ? strcmp(lv->name, lvname) != 0 : !lvx_lv_is_visible(lv))
            continue;
        int r = 0;
        if (!a->be || !lvx_actcmd_is_active(env, a, lv, NULL)) {
            lvx_cmd_errorf("Logical volume %s/%s is not active.", vgname, lv->name);
            r = LVX_EXIT_FAILED;
        } else {
            r = monitor_lv(env, a, lv, on);
        }
        if (r > rc)
            rc = r;
        if (lvname)
            break;
    }
    if (lvname && rc == 0 && !lvx_vg_find_lv(u.vg, lvname)) {
        lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vgname, lvname);
        rc = LVX_EXIT_FAILED;
    }
    lvx_vg_update_end(&u);
    return rc;
}


static int vg_one(struct lvx_cmd_env *env, const struct lvx_actcmd *a, const char *name, bool on)
{
    struct lvx_vg_update u;
    int rc = lvx_lvcmd_begin_flags(env, name, LVX_UPDATE_READ_ONLY | LVX_UPDATE_ALLOW_MISSING, &u);
    if (rc || (rc = exported(env, &u)))
        return rc < 0 ? 0 : rc;
    unsigned active = 0;
    for (unsigned i = 0; i < u.vg->lv_count && a->be; i++) {
        const struct lvx_lv *lv = u.vg->lvs[i];
        if (!lvx_lv_is_visible(lv) || !lvx_actcmd_is_active(env, a, lv, NULL))
            continue;
        active++;
        int r = monitor_lv(env, a, lv, on);
        if (r > rc)
            rc = r;
    }
    if (active)
        lvx_notice(env->ctx, "%u logical volume(s) in volume group \"%s\" %smonitored", active,
                   u.vg->name, on ? "" : "un");
    lvx_vg_update_end(&u);
    return rc;
}

/* one() over every argument; the worst exit code */
static int each(struct lvx_cmd_env *env, char **args, unsigned count,
                int (*one)(struct lvx_cmd_env *, const struct lvx_actcmd *, const char *, bool))
{
    struct lvx_actcmd a;
    int rc = lvx_actcmd_init(env, &a);
    bool on = env->args->val[LVX_OPT_MONITOR].b;
    for (unsigned i = 0; i < count && rc != LVX_EXIT_INVALID; i++) {
        int r = one(env, &a, args[i], on);
        if (r > rc)
            rc = r;
    }
    return rc;
}

int lvx_actcmd_lvmonitor(struct lvx_cmd_env *env, char **args, unsigned count)
{
    return each(env, args, count, lv_one);
}

int lvx_actcmd_vgmonitor(struct lvx_cmd_env *env, char **names, unsigned count)
{
    return each(env, names, count, vg_one);
}
