/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvremove.c - `lvx lvremove [-f] [-y] VG|VG/LV|/dev/VG/LV ...`: take LVs out of
 * their VG (their extents become free).  A plain VG names all its LVs.  One VG
 * change (one commit) per argument, as LVM2 does per LV.
 *
 * Refused as LVM2 refuses (or where lvx cannot do what LVM2 would): LVs used by
 * other LVs (sub-LVs, origins of snapshots, pools with thin volumes) and LVs of
 * segment types other than linear/striped.  An active LV is deactivated first
 * (cmd/activation.c) after the question "Do you really want to remove active logical
 * volume vg/lv?" (skipped with -y or -f); a mounted one is refused, an open one too
 * unless -f.
 */
#include "cmd/lvcmd.h"
#include "cmd/toolkit.h"

#include "cmd/actcmd.h"

#include <string.h>

/* Deactivate an active lv (asking first unless -y/-f); false when it stays. */
static bool deactivate_first(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             struct lvx_lv *lv)
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
    return lvx_actcmd_deactivate(env, act, lv, force) == 0;
}

/* Remove lv from its VG (visible top-level LVs; sub-LVs go with their owners, refused
 * for now): 1, or -1 after printing why not. */
static int remove_one(struct lvx_cmd_env *env, struct lvx_lv *lv, void *arg)
{
    const struct lvx_actcmd *act = arg;
    if (lvx_lvcmd_refuse_complex(lv, "remove"))
        return -1;
    if (!deactivate_first(env, act, lv))
        return -1;
    lvx_vg_remove_lv(lv->vg, lv);
    return 1;
}

static bool removed(struct lvx_cmd_env *env, struct lvx_lv **lvs, unsigned n, void *arg)
{
    for (unsigned i = 0; i < n; i++)
        lvx_notice(env->ctx, "Logical volume \"%s\" successfully removed.", lvs[i]->name);
    return false;
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
    struct lvx_tk_lv_ops ops = { .lv = remove_one, .done = removed, .arg = &act };
    return lvx_process_each_lv(env, &ops);
}
