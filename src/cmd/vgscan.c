/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgscan.c - `lvx vgscan [--mknodes]`: scan every device and name each VG found,
 * as LVM2 ("Found volume group "vg" using metadata type lvm2", "Found exported volume
 * group ..." for exported ones).  --mknodes then does what vgmknodes does.
 */
#include "cmd/commands.h"
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"

static int found(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *out,
                 void *arg)
{
    for (unsigned i = 0; i < sel->vg_count; i++)
        lvx_notice(env->ctx, "Found %svolume group \"%s\" using metadata type %s",
                   sel->vgs[i]->status & LVX_VG_EXPORTED ? "exported " : "", sel->vgs[i]->name,
                   sel->vgs[i]->format ? sel->vgs[i]->format : "lvm2");
    return 0;
}

int lvx_cmd_vgscan(struct lvx_cmd_env *env)
{
    if (env->args->argc > 0)
        return lvx_vgcmd_extra_arg(env->args->argv[0]);
    int rc = lvx_process_read(env, LVX_TK_VGS, found, NULL);     /* every VG */
    if (rc == 0 && env->args->count[LVX_OPT_MKNODES])
        return lvx_cmd_vgmknodes(env);
    return rc;
}
