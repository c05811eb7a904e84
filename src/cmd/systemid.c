/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/systemid.c - `lvx systemid`: the local system ID as LVM2 prints it ("  system ID:
 * ID", empty when there is none), a message of print level as LVM2's.
 */
#include "cmd/commands.h"

#include "meta/systemid.h"

int lvx_cmd_systemid(struct lvx_cmd_env *env)
{
    lvx_notice(env->ctx, "system ID: %s", lvx_system_id_local(env->ctx, env->pool, NULL));
    return 0;
}
