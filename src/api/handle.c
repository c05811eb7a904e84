/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * api/handle.c - the public handle (include/lvx.h): lvx_init/lvx_exit, message
 * delivery (log callbacks, levels, lvx_errmsg), lvx_run (lvm2cmd-style command entry).
 *
 * Commands run in-process through a session (cmd/shell.h): the session's output and
 * log callbacks land here, where output is cut into lines and errors are remembered.
 * Handles are independent: commands of different handles run at once in different
 * threads (the option parser keeps no global state; VG and global locks are taken as
 * between processes).
 */
#include "api/api.h"
#include "util/version.h"
#include "cmd/commands.h"
#include "config/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


const char *lvx_version(void)
{
    return LVX_VERSION;
}

/* ---- delivery -------------------------------------------------------------------- */

static void deliver(lvx_handle *h, int level, const char *line)
{
    if (level > LVX_MSG_OUTPUT && level > LVX_MSG_ERROR && level > h->level)
        return;
    if (h->log_fn)
        h->log_fn(level, NULL, 0, 0, line);
    else if (h->log_user_fn)
        h->log_user_fn(h->log_user, level, line);
}

/* Deliver a possibly multi-line message line by line. */
static void deliver_lines(lvx_handle *h, int level, const char *text)
{
    const char *p = text;
    for (;;) {
        const char *nl = strchr(p, '\n');
        if (!nl) {
            deliver(h, level, p);
            return;
        }
        char *line = lvx_xstrdup(p);
        line[nl - p] = '\0';
        deliver(h, level, line);
        free(line);
        p = nl + 1;
    }
}

static void remember_error(lvx_handle *h, const char *msg)
{
    const char *p = msg;
    while (*p == ' ')
        p++;
    /* the toolkit's follow-up to a missing VG says less than the line before it */
    if (strncmp(p, "Cannot process volume group ", 28) == 0 && h->errmsg[0])
        return;
    snprintf(h->errmsg, sizeof(h->errmsg), "%s", p);
    char *nl = strchr(h->errmsg, '\n');
    if (nl)
        *nl = '\0';
}

static void handle_log(void *arg, int level, const char *msg)
{
    lvx_handle *h = arg;
    if (level == LVX_LOG_ERROR_RAW)
        level = LVX_MSG_ERROR;
    if (level <= LVX_MSG_ERROR)
        remember_error(h, msg);
    deliver_lines(h, level, msg);
}

static void handle_output(void *arg, const char *data, size_t len)
{
    lvx_handle *h = arg;
    if (h->capture) {
        lvx_buf_append(h->capture, data, len);
        return;
    }
    lvx_buf_append(&h->partial, data, len);
    char *start = h->partial.data;
    char *end = start + h->partial.len;
    char *nl;
    while (start < end && (nl = memchr(start, '\n', (size_t)(end - start)))) {
        *nl = '\0';
        deliver(h, LVX_MSG_OUTPUT, start);
        start = nl + 1;
    }
    size_t rest = (size_t)(end - start);
    memmove(h->partial.data, start, rest);
    h->partial.len = rest;
    h->partial.data[rest] = '\0';
}

static void flush_partial(lvx_handle *h)
{
    if (h->partial.len) {
        deliver(h, LVX_MSG_OUTPUT, lvx_buf_str(&h->partial));
        lvx_buf_reset(&h->partial);
    }
}

/* Library prompts are answered "no": pass -y / -f on the command line to confirm. */
static bool handle_ask(void *arg, const char *question)
{
    lvx_handle *h = arg;
    char msg[1200];
    snprintf(msg, sizeof(msg), "%s [y/n]: n (no terminal: use -y or -f)", question);
    deliver(h, LVX_MSG_NOTICE, msg);
    return false;
}

/* ---- handle ---------------------------------------------------------------------- */

lvx_handle *lvx_init(void)
{
    lvx_handle *h = lvx_xcalloc(1, sizeof(*h));
    lvx_session_init(&h->session, handle_log, h, true);
    h->session.run.out_fn = handle_output;
    h->session.run.out_arg = h;
    h->session.run.ask_fn = handle_ask;
    h->session.run.ask_arg = h;
    h->level = LVX_MSG_NOTICE;
    return h;
}

void lvx_exit(lvx_handle *h)
{
    if (!h)
        return;
    lvx_session_fini(&h->session);
    lvx_buf_free(&h->partial);
    free(h->config);
    free(h);
}

void lvx_log_fn(lvx_handle *h, lvx_log_fn_t fn)
{
    h->log_fn = fn;
    h->log_user_fn = NULL;
}

void lvx_log_fn_user(lvx_handle *h, lvx_log_user_fn_t fn, void *user)
{
    h->log_user_fn = fn;
    h->log_user = user;
    h->log_fn = NULL;
}

void lvx_log_level(lvx_handle *h, int level)
{
    h->level = level;
    h->session.run.log_level = level > LVX_MSG_NOTICE ? level : 0;
}

const char *lvx_errmsg(const lvx_handle *h)
{
    return h->errmsg;
}

int lvx_errno(const lvx_handle *h)
{
    return h->err;
}

void lvx_api_begin(lvx_handle *h)
{
    h->err = 0;
    h->errmsg[0] = '\0';
}

int lvx_api_fail(lvx_handle *h, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->errmsg, sizeof(h->errmsg), fmt, ap);
    va_end(ap);
    h->err = err < 0 ? err : -err;
    return h->err;
}

int lvx_config_override(lvx_handle *h, const char *text)
{
    lvx_api_begin(h);
    if (text) {
        struct lvx_ctx ctx;
        lvx_ctx_init(&ctx);
        if (lvx_config_check_override(&ctx, text) < 0)
            return lvx_api_fail(h, EINVAL, "%s", ctx.errmsg);
    }
    free(h->config);
    h->config = text ? lvx_xstrdup(text) : NULL;
    h->session.run.config_override = h->config;
    return 0;
}

/* ---- running commands -------------------------------------------------------------- */

int lvx_api_errno_of(lvx_handle *h, int exit_code)
{
    if (exit_code == LVX_EXIT_OK)
        return 0;
    if (exit_code == LVX_EXIT_INVALID || exit_code == LVX_EXIT_NO_SUCH_CMD ||
        exit_code == LVX_EXIT_INIT)
        return -EINVAL;
    if (strstr(h->errmsg, "not found") || strstr(h->errmsg, "Failed to find"))
        return -ENOENT;
    if (strstr(h->errmsg, "already exists"))
        return -EEXIST;
    if (strstr(h->errmsg, "nsufficient") || strstr(h->errmsg, "free space"))
        return -ENOSPC;
    if (strstr(h->errmsg, "Activation is "))     /* "... not available", "... turned off" */
        return -ENOTSUP;
    return -EIO;
}

int lvx_api_exec(lvx_handle *h, int argc, const char *const *argv, struct lvx_buf *capture)
{
    char **full = lvx_xcalloc((size_t)argc + 2, sizeof(*full));
    full[0] = (char *)"lvx";
    for (int i = 0; i < argc; i++)
        full[i + 1] = (char *)argv[i];

    h->capture = capture;
    h->session.errors = 0;
    int rc = lvx_main_opts(&h->session.run, argc + 1, full);
    h->capture = NULL;
    flush_partial(h);
    free(full);
    if (rc != LVX_EXIT_OK) {
        if (!h->errmsg[0])
            snprintf(h->errmsg, sizeof(h->errmsg), "Command failed with status code %d.", rc);
        h->err = lvx_api_errno_of(h, rc);
    }
    return rc;
}

static int to_lvm2cmd_code(int exit_code)
{
    return exit_code == LVX_EXIT_OK ? LVX_ECMD_PROCESSED : exit_code;
}

int lvx_run_argv(lvx_handle *h, int argc, const char *const *argv)
{
    lvx_api_begin(h);
    if (argc > 1 && (strcmp(argv[0], "lvx") == 0 || strcmp(argv[0], "lvm") == 0)) {
        argc--;
        argv++;
    }
    if (argc < 1 || !argv[0]) {
        lvx_api_fail(h, EINVAL, "No command given.");
        return LVX_EINVALID_CMD_LINE;
    }
    return to_lvm2cmd_code(lvx_api_exec(h, argc, argv, NULL));
}

int lvx_run(lvx_handle *h, const char *cmdline)
{
    struct lvx_pool *pool = lvx_pool_create();
    const char *err;
    int argc;
    char **argv;
    int rc;

    lvx_api_begin(h);
    if (!cmdline || lvx_shell_split(pool, cmdline, &argc, &argv, &err) < 0) {
        lvx_api_fail(h, EINVAL, "Parse error: %s.", cmdline ? err : "no command line");
        deliver(h, LVX_MSG_ERROR, h->errmsg);
        rc = LVX_EINVALID_CMD_LINE;
    } else {
        rc = lvx_run_argv(h, argc, (const char *const *)argv);
    }
    lvx_pool_destroy(pool);
    return rc;
}
