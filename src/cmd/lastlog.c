/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lastlog.c - `lvx lastlog` outside a shell with a report channel: there is no
 * stored log (LVM2: "No log report stored.", exit 5).  Inside `lvx shell` with
 * LVM_REPORT_FD and log/report_command_log the session answers it
 * (cmd/shell_report.c).
 */
#include "cmd/commands.h"

int lvx_cmd_lastlog(struct lvx_cmd_env *env)
{
    (void)env;
    lvx_cmd_errorf("No log report stored.");
    return LVX_EXIT_FAILED;
}
