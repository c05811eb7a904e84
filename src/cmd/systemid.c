/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/systemid.c - `lvx systemid`: the local system ID as LVM2 prints it ("  system ID:
 * ID", empty when there is none), printed even with -qq, as LVM2's.
 */
#include "cmd/commands.h"

#include "meta/systemid.h"

int lvx_cmd_systemid(struct lvx_cmd_env *env)
{
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_buf_printf(&b, "  system ID: %s\n", lvx_system_id_local(env->ctx, env->pool, NULL));
    int rc = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    return rc;
}
