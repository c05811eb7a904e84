/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/daemon_cmd.c - `lvx daemon [start|stop|status|run]`: the daemon of the
 * user-space activation backend (daemon/daemon.h).  Activation starts it on
 * demand; this command starts it explicitly, stops it (refused while LVs are
 * active unless -f), shows what it serves, or runs it in the foreground.
 */
#include "cmd/commands.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/daemon.h"
#include "dev/io.h"

static int print_reply(const char *head, const struct lvx_buf *reply)
{
    struct lvx_buf out = LVX_BUF_INIT;
    lvx_buf_puts(&out, head);
    lvx_buf_puts(&out, lvx_buf_str(reply));
    int rc = lvx_cmd_output(&out);
    lvx_buf_free(&out);
    return rc;
}

static int daemon_status(struct lvx_cmd_env *env)
{
    struct lvx_buf ping = LVX_BUF_INIT, list = LVX_BUF_INIT;
    char dir[4200];
    snprintf(dir, sizeof(dir), "  run directory: %s\n", lvx_daemon_run_dir());
    int rc = lvx_daemon_call(env->ctx, "ping", false, &ping);
    if (rc == 0)
        rc = lvx_daemon_call(env->ctx, "list", false, &list);
    if (rc < 0) {
        lvx_cmd_fail(env);
        return LVX_EXIT_FAILED;
    }
    unsigned sup = 0, wrk = 0;
    sscanf(lvx_buf_str(&ping), "%u %u", &sup, &wrk);
    struct lvx_buf head = LVX_BUF_INIT;
    lvx_buf_printf(&head, "  lvx daemon running: supervisor %u, worker %u\n%s", sup, wrk, dir);
    rc = print_reply(lvx_buf_str(&head), &list);
    lvx_buf_free(&head);
    lvx_buf_free(&ping);
    lvx_buf_free(&list);
    return rc;
}

int lvx_cmd_daemon(struct lvx_cmd_env *env)
{
    const char *what = env->args->argc > 0 ? env->args->argv[0] : "start";
    bool force = env->args->count[LVX_OPT_FORCE] > 0;
    if (env->args->argc > 1) {
        lvx_cmd_errorf("Too many arguments: lvx daemon [start|stop|status|run]");
        return LVX_EXIT_INVALID;
    }
    if (strcmp(what, "start") == 0) {
        if (lvx_daemon_start(env->ctx) < 0)
            return lvx_cmd_fail(env);
        return 0;
    }
    if (strcmp(what, "stop") == 0) {
        int rc = lvx_daemon_call(env->ctx, force ? "stop 1" : "stop 0", false, NULL);
        if (rc == -ENOTCONN)
            return 0;
        return rc < 0 ? lvx_cmd_fail(env) : 0;
    }
    if (strcmp(what, "status") == 0)
        return daemon_status(env);
    if (strcmp(what, "run") == 0) {
        if (lvx_daemon_check_run_dir(env->ctx, true) < 0)   /* the daemon cannot say it */
            return lvx_cmd_fail(env);
        return lvx_daemon_serve(lvx_io(env->ctx)) == 0 ? 0 : LVX_EXIT_FAILED;
    }
    lvx_cmd_errorf("Unknown daemon action \"%s\": use start, stop, status or run.", what);
    return LVX_EXIT_INVALID;
}
