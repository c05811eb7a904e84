/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgextend.c - `lvx vgextend VG PV...`: add orphan PVs (devices without a label
 * become PVs first) to a resizeable VG, under the global and the VG lock.
 */
#include "cmd/vgcmd.h"

#include "meta/mda_policy.h"
#include "meta/vgops.h"

static int extend(struct lvx_cmd_env *env, struct lvx_vg_update *u)
{
    struct lvx_vg *vg = u->vg;
    if (!(vg->status & LVX_VG_RESIZEABLE)) {
        lvx_cmd_errorf("Volume group %s is not resizeable.", vg->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_pv **orphans;
    unsigned n;
    int rc = lvx_vgcmd_orphans(env, u, env->args->argv + 1, (unsigned)env->args->argc - 1,
                               &orphans, &n);
    if (rc)
        return rc;
    vg = u->vg;                       /* may have been re-read after an implicit pvcreate */
    unsigned first_new = vg->pv_count;
    for (unsigned i = 0; i < n; i++)
        if (lvx_vgops_add_orphan(env->ctx, vg, orphans[i], NULL) < 0)
            return lvx_cmd_fail(env);
    lvx_mda_policy_join(vg, first_new, lvx_mda_policy_auto_limit(env->ctx));   /* Large VGs */
    if ((rc = lvx_vgcmd_commit(env, u)) != 0)
        return rc;
    lvx_notice(env->ctx, "Volume group \"%s\" successfully extended", vg->name);
    return 0;
}

int lvx_cmd_vgextend(struct lvx_cmd_env *env)
{
    if (env->args->argc < 2) {
        lvx_cmd_errorf(env->args->argc ? "Please enter physical volume(s)"
                                       : "Please enter volume group name and physical volume(s)");
        return LVX_EXIT_INVALID;
    }
    struct lvx_vg_update u;
    /* the VG through the device index, the devices named with it (meta/update.h) */
    int rc = lvx_vgcmd_begin(env, env->args->argv[0],
                             LVX_UPDATE_GLOBAL_LOCK | LVX_UPDATE_NAMED_ORPHANS, &u);
    if (rc)
        return rc;
    rc = extend(env, &u);
    lvx_vg_update_end(&u);
    return rc;
}
