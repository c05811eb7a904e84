/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/help.c - `lvx help`: the list of commands (on stderr, as LVM2's `lvm help`, where
 * lvm2-dbusd looks for "fullreport"), or the usage of the commands named (stdout).
 */
#include "cmd/commands.h"

/* `lvx help [COMMAND ...]` */
int lvx_cmd_help(struct lvx_cmd_env *env)
{
    struct lvx_buf b = LVX_BUF_INIT;
    int rc = LVX_EXIT_OK;

    if (env->args->argc == 0) {
        lvx_command_list_as(&b, env->prog ? env->prog : "lvx");
        if (b.len && b.data[b.len - 1] == '\n')
            b.data[--b.len] = '\0';
        lvx_cmd_error_raw(lvx_buf_str(&b));
        lvx_buf_free(&b);
        return rc;
    }
    for (int i = 0; i < env->args->argc; i++) {
        const struct lvx_command *cmd = lvx_command_find(env->args->argv[i]);
        if (!cmd) {
            /* LVM2: on stdout, exit 3 */
            lvx_buf_printf(&b, "  %s: no such command.\n", env->args->argv[i]);
            rc = LVX_EXIT_INVALID;
            continue;
        }
        lvx_command_usage(&b, cmd);
    }
    int out = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    if (rc)     /* LVM2's line after an unknown name */
        lvx_cmd_errorf("Run `help --help' for more information.");
    return rc ? rc : out;
}
