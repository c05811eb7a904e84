/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvremove.c - `lvx lvremove [-f] [-y] VG|VG/LV|/dev/VG/LV ...`: take LVs out of
 * their VG (their extents become free).  A plain VG names all its LVs.  One VG
 * change (one commit) per argument, as LVM2 does per LV.
 *
 * Refused as LVM2 refuses (or where lvx cannot do what LVM2 would): LVs used by
 * other LVs (sub-LVs, origins of snapshots, pools with thin volumes) and LVs of
 * segment types other than linear/striped.  Nothing is active, so no prompt.
 */
#include "cmd/lvcmd.h"

#include <string.h>

/* Remove lv from its VG, or print why not.  true when removed. */
static bool remove_one(struct lvx_lv *lv)
{
    if (lvx_lvcmd_refuse_complex(lv, "remove"))
        return false;
    lvx_vg_remove_lv(lv->vg, lv);
    return true;
}

/* Removable LVs of the VG named by arg (all visible LVs for a plain VG). */
static int remove_arg(struct lvx_cmd_env *env, const char *arg)
{
    const char *vgname, *lvname;
    struct lvx_vg_update u;
    int rc;

    if (!lvx_lvcmd_split_name(env, arg, &vgname, &lvname)) {
        lvx_cmd_errorf("Invalid logical volume name \"%s\".", arg);
        return LVX_EXIT_INVALID;
    }
    if ((rc = lvx_lvcmd_begin(env, vgname, &u)))
        return rc;

    unsigned n = 0;
    const char **removed = lvx_pool_alloc(env->pool, (u.vg->lv_count + 1) * sizeof(char *));
    bool failed = false;
    if (lvname) {
        struct lvx_lv *lv = lvx_vg_find_lv(u.vg, lvname);
        if (!lv) {
            lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vgname, lvname);
            failed = true;
        } else if (remove_one(lv)) {
            removed[n++] = lv->name;
        } else {
            failed = true;
        }
    } else {
        /* visible top-level LVs; sub-LVs go with their owners (refused for now) */
        unsigned count = u.vg->lv_count;
        struct lvx_lv **lvs = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*lvs));
        memcpy(lvs, u.vg->lvs, count * sizeof(*lvs));
        for (unsigned i = 0; i < count; i++) {
            if (!lvx_lv_is_visible(lvs[i]))
                continue;
            if (remove_one(lvs[i]))
                removed[n++] = lvs[i]->name;
            else
                failed = true;
        }
    }
    if (n && (rc = lvx_lvcmd_commit(env, &u))) {
        lvx_vg_update_end(&u);
        return rc;
    }
    for (unsigned i = 0; i < n; i++)
        lvx_notice(env->ctx, "Logical volume \"%s\" successfully removed.", removed[i]);
    lvx_vg_update_end(&u);
    return failed ? LVX_EXIT_FAILED : 0;
}

int lvx_cmd_lvremove(struct lvx_cmd_env *env)
{
    int rc = 0;
    if (env->args->argc < 1) {
        lvx_cmd_errorf("Please specify a logical volume path.");
        return LVX_EXIT_INVALID;
    }
    for (int i = 0; i < env->args->argc; i++) {
        int r = remove_arg(env, env->args->argv[i]);
        if (r > rc)
            rc = r;
    }
    return rc;
}
