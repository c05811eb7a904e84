/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgexport.c - `lvx vgexport VG...` / `vgexport -a`: the VG and each of its PVs get
 * the EXPORTED flag (vg_attr `x`, pv_attr `x`) and lose the system ID, as LVM2, so that
 * other commands leave the VG alone until vgimport.  A VG with an active LV is refused.
 */
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"

static int export_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit, void *arg)
{
    if (lvx_vgcmd_has_active_lv(env, u->vg)) {
        lvx_cmd_errorf("Volume group \"%s\" has active logical volumes", u->vg->name);
        return LVX_EXIT_FAILED;
    }
    lvx_vgcmd_set_exported(u->vg, true, NULL);
    *commit = true;
    return 0;
}

static int exported(struct lvx_cmd_env *env, struct lvx_vg_update *u, void *arg)
{
    lvx_notice(env->ctx, "Volume group \"%s\" successfully exported", u->vg->name);
    return 0;
}

int lvx_cmd_vgexport(struct lvx_cmd_env *env)
{
    int rc = lvx_vgcmd_export_args(env);
    if (rc)
        return rc;
    struct lvx_tk_vg_ops ops = { .update_flags = 0, .vg = export_vg, .done = exported };
    return lvx_process_each_vg(env, &ops);
}
