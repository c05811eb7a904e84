/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/shell_report.h - the report channel of the shell (LVM2's LVM_REPORT_FD), used by
 * programs that drive `lvm` as a shell (lvm2-dbusd's lvm_shell_proxy.py): each
 * command's report output goes to that file descriptor instead of stdout and, when
 * log/report_command_log is set (lvm.conf, or the profile named by
 * LVM_COMMAND_PROFILE in $LVM_SYSTEM_DIR/profile/), its messages and status go into a
 * "log" section of the JSON written there (and not to stdout/stderr), as LVM2 does;
 * `lastlog` writes the previous command's whole log again.
 *
 * Entry points: lvx_shrep_open(), lvx_shrep_begin(), lvx_shrep_message(),
 * lvx_shrep_output(), lvx_shrep_end(), lvx_shrep_lastlog(), lvx_shrep_exit(),
 * lvx_shrep_close().
 */
#ifndef LVX_CMD_SHELL_REPORT_H
#define LVX_CMD_SHELL_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/cmdlog.h"
#include "util/buf.h"
#include "util/pool.h"


struct lvx_shrep {
    int fd;                 /* the report descriptor */
    bool log_report;        /* log/report_command_log */
    bool shell_only;        /* log/command_log_selection = "log_context=shell" */
    struct lvx_buf out;     /* the running command's report output */
    struct lvx_pool *pool;  /* entries of the running command */
    struct lvx_cmdlog_entry *cur;
    unsigned ncur;
    struct lvx_pool *last_pool;   /* the previous command's log (lastlog) */
    struct lvx_cmdlog_entry *last;
    unsigned nlast;
};

/* From the environment: NULL when LVM_REPORT_FD is not set (or not a valid descriptor). */
struct lvx_shrep *lvx_shrep_open(void);
void lvx_shrep_close(struct lvx_shrep *r);
/* A command starts / logs a message (true: taken into the log, not to be printed) /
 * writes report output / ends with exit code rc (everything written to the fd). */
void lvx_shrep_begin(struct lvx_shrep *r);
bool lvx_shrep_message(struct lvx_shrep *r, int level, const char *msg);
void lvx_shrep_output(struct lvx_shrep *r, const char *data, size_t len);
void lvx_shrep_end(struct lvx_shrep *r, const char *cmd, int rc);
/* `lastlog`: the previous command's log, all of it (the shell's exit code). */
int lvx_shrep_lastlog(struct lvx_shrep *r);
/* quit/exit: LVM2's "Exiting." entry. */
void lvx_shrep_exit(struct lvx_shrep *r, const char *cmd);

#endif
