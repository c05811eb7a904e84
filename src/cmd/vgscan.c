/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgscan.c - `lvx vgscan [--mknodes]`: scan every device and name each VG found,
 * as LVM2 ("Found volume group "vg" using metadata type lvm2", "Found exported volume
 * group ..." for exported ones).  --mknodes then does what vgmknodes does.
 */
#include "cmd/commands.h"

int lvx_cmd_vgscan(struct lvx_cmd_env *env)
{
    struct lvx_cmd_vgs v;
    bool failed = false;
    unsigned n;

    if (env->args->argc > 0) {
        lvx_cmd_errorf("Command does not accept argument: %s.", env->args->argv[0]);
        return LVX_EXIT_INVALID;
    }
    int rc = lvx_cmd_load(env, &v);
    if (rc)
        return rc;
    struct lvx_vg **vgs = lvx_cmd_pick_vgs(env, &v, NULL, 0, &n, &failed);
    for (unsigned i = 0; i < n; i++)
        lvx_notice(env->ctx, "Found %svolume group \"%s\" using metadata type %s",
                   vgs[i]->status & LVX_VG_EXPORTED ? "exported " : "", vgs[i]->name,
                   vgs[i]->format ? vgs[i]->format : "lvm2");
    lvx_cmd_unload(&v);
    if (failed)
        return LVX_EXIT_FAILED;
    if (env->args->count[LVX_OPT_MKNODES])
        return lvx_cmd_vgmknodes(env);
    return LVX_EXIT_OK;
}
