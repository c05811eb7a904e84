/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/help.c - `lvx help`: the list of commands, or the usage of the commands named.
 */
#include "cmd/commands.h"

/* `lvx help [COMMAND ...]` */
int lvx_cmd_help(struct lvx_cmd_env *env)
{
    struct lvx_buf b = LVX_BUF_INIT;
    int rc = LVX_EXIT_OK;

    if (env->args->argc == 0) {
        lvx_command_list(&b);
        rc = lvx_cmd_output(&b);
        lvx_buf_free(&b);
        return rc;
    }
    for (int i = 0; i < env->args->argc; i++) {
        const struct lvx_command *cmd = lvx_command_find(env->args->argv[i]);
        if (!cmd) {
            lvx_cmd_errorf("No such command '%s'.  Try 'lvx help'.", env->args->argv[i]);
            rc = LVX_EXIT_NO_SUCH_CMD;
            continue;
        }
        lvx_command_usage(&b, cmd);
    }
    int out = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    return rc ? rc : out;
}
