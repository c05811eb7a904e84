/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgimport.c - `lvx vgimport VG...` / `vgimport -a`: clears the EXPORTED flag of an
 * exported VG and its PVs (vgexport's counterpart).  A VG that is not exported or has
 * missing PVs is refused, as LVM2 (-f only turns the missing-PV refusal into LVM2's
 * "partially missing" one, as LVM2 2.03 does).
 */
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"
#include "meta/systemid.h"

static int import_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit, void *arg)
{
    struct lvx_vg *vg = u->vg;
    if (!(vg->status & LVX_VG_EXPORTED)) {
        lvx_cmd_errorf("Volume group \"%s\" is not exported", vg->name);
        return LVX_EXIT_FAILED;
    }
    for (unsigned i = 0; i < vg->pv_count; i++)
        if (!vg->pvs[i]->ondisk.present) {
            lvx_cmd_errorf("Volume group \"%s\" is partially missing", vg->name);
            return LVX_EXIT_FAILED;
        }
    lvx_vgcmd_set_exported(vg, false, lvx_system_id_local(env->ctx, vg->pool, NULL));
    *commit = true;
    return 0;
}

static int imported(struct lvx_cmd_env *env, struct lvx_vg_update *u, void *arg)
{
    lvx_notice(env->ctx, "Volume group \"%s\" successfully imported", u->vg->name);
    return 0;
}

int lvx_cmd_vgimport(struct lvx_cmd_env *env)
{
    int rc = lvx_vgcmd_export_args(env);
    if (rc)
        return rc;
    unsigned flags = LVX_UPDATE_ALLOW_EXPORTED;
    if (env->args->count[LVX_OPT_FORCE]) {
        lvx_warn(env->ctx, "WARNING: Volume groups with missing PVs will be imported with --force.");
        flags |= LVX_UPDATE_ALLOW_MISSING;
    }
    struct lvx_tk_vg_ops ops = { .update_flags = flags, .vg = import_vg, .done = imported };
    return lvx_process_each_vg(env, &ops);
}
