/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/shell.h - running many command lines in one process: the session (output
 * sinks and the scan cache kept between commands; used by the lvx shell and by the
 * liblvx API) and the shell loop (one command per line, LVM2's shell syntax).
 *
 * Entry points: lvx_shell_split() (shell-like word splitting), lvx_session_init(),
 * lvx_session_run_line(), lvx_session_fini(), lvx_shell_loop().
 */
#ifndef LVX_CMD_SHELL_H
#define LVX_CMD_SHELL_H

#include <stdbool.h>

#include "cmd/cmd.h"
#include "util/pool.h"

struct lvx_shrep;

/* Split a command line into words: blanks separate words, '...' is literal, "..."
 * and a backslash outside quotes escape (inside "...", \ escapes " \ $ `), a word
 * starting with '#' starts a comment.  Words live in pool; argv is NULL-terminated.
 * 0, or -EINVAL with *err set ("unterminated quote"). */
int lvx_shell_split(struct lvx_pool *pool, const char *line, int *argc, char ***argv,
                    const char **err);

/* What a session runs commands with. */
struct lvx_session {
    struct lvx_run_opts run;         /* sinks passed to every command (log_fn is wrapped) */
    lvx_log_cb user_log;             /* the caller's log sink (NULL = stdio as LVM2) */
    void *user_log_arg;
    unsigned errors;                 /* error messages logged by the current command */
    bool use_cache;                  /* keep a scan cache between commands */
    struct lvx_shrep *rep;           /* LVM_REPORT_FD channel (cmd/shell_report.h) or NULL */
};

/* Set up a session; log_fn NULL = LVM2's stdout/stderr layout. */
void lvx_session_init(struct lvx_session *s, lvx_log_cb log_fn, void *log_arg, bool use_cache);
void lvx_session_fini(struct lvx_session *s);

enum {
    LVX_LINE_EMPTY = -1,             /* blank line or comment: nothing ran */
    LVX_LINE_QUIT = -2,              /* quit / exit */
};
/* Run one line ("vgs vg1", "lvx vgs vg1", "# comment", "quit").  Returns the command's
 * exit code (LVX_EXIT_*), or LVX_LINE_EMPTY / LVX_LINE_QUIT.  Like LVM2's shell, a
 * failed command that printed no error gets "Command failed with status code N.". */
int lvx_session_run_line(struct lvx_session *s, const char *line);

/* Read one line (malloc'd, without the newline) or NULL at the end of input. */
typedef char *(*lvx_shell_reader)(void *arg, const char *prompt);

struct lvx_shell_opts {
    lvx_shell_reader read;
    void *read_arg;
    const char *prompt;              /* "lvx> " on a terminal, NULL otherwise */
    int status_fd;                   /* >= 0: write "<exit code>\n" there after each command */
    bool no_cache;                   /* run without the scan cache */
    const struct lvx_dev_ops *io;    /* the I/O seam of every command; NULL = default */
};

/* The shell: read lines until the end or quit/exit, running each (a failing or unknown
 * command prints its error and the shell goes on).  At the end of input a newline is
 * printed and at quit "Exiting.", as LVM2's shell does.  Returns 0. */
int lvx_shell_loop(const struct lvx_shell_opts *o);

#endif
