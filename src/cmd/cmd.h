/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/cmd.h - the command layer: one table of commands (cmd/commands.c), one
 * option parser (cmd/options.c), one file per command (cmd/pvs.c, ...).
 * lvx_main() is what the binary calls; lvx_main_opts() is the same with the
 * caller's output/log callbacks (the shell and the liblvx API use it).
 */
#ifndef LVX_CMD_CMD_H
#define LVX_CMD_CMD_H

#include "util/ctx.h"

/* Run one command line: argv[0] is "lvx" (or a command name when called through a
 * symlink such as "pvs").  Returns the process exit status (0 ok, 5 failure as LVM2,
 * 3 usage error ...). */
int lvx_main(int argc, char **argv);

/* How lvx_main_opts() runs a command.  Zeroed members keep the binary's behaviour. */
struct lvx_run_opts {
    lvx_log_cb log_fn;          /* messages; NULL = stderr/stdout as LVM2 prints */
    void *log_arg;
    int log_level;              /* 0 = NOTICE; -v/-d on the command line raise it */
    lvx_out_cb out_fn;          /* report/display output; NULL = stdout */
    void *out_arg;
    bool (*ask_fn)(void *arg, const char *question);  /* prompts; NULL = the terminal */
    void *ask_arg;
    const struct lvx_dev_ops *io;   /* NULL = lvx_dev_ops_default() (the lvx program
                                     * passes lvx_dev_ops_from_env()) */
    struct lvx_cache *cache;        /* scan cache of a session, or NULL */
    const char *config_override;    /* --config text of the session (a command's own
                                     * --config replaces it) */
};

int lvx_main_opts(const struct lvx_run_opts *opts, int argc, char **argv);

#endif
