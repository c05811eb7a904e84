/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/shell_report.c - the shell's report channel (see shell_report.h): LVM_REPORT_FD,
 * the command log as LVM2's JSON "log" section, lastlog.
 *
 * What lvx does not know, it leaves blank: LVM2 names the object a message is about
 * (log_object_type "vg", log_object_name "vg1", its UUID), lvx's messages carry no
 * object; LVM2 numbers every internal log item (log_seq_num skips the ones not
 * selected), lvx numbers the entries it has.
 */
#include "cmd/shell_report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "config/config.h"
#include "util/ctx.h"

struct lvx_shrep *lvx_shrep_open(void)
{
    const char *env = getenv("LVM_REPORT_FD");
    char *end;
    if (!env || !*env)
        return NULL;
    long fd = strtol(env, &end, 10);
    if (*end || fd < 0 || fd > 1 << 20 || fcntl((int)fd, F_GETFD) < 0)
        return NULL;
    struct lvx_shrep *r = lvx_xcalloc(1, sizeof(*r));
    r->fd = (int)fd;
    r->out = (struct lvx_buf)LVX_BUF_INIT;

    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_config *cfg = NULL;       /* lvm.conf and the command profile */
    if (lvx_config_load(&ctx, &cfg) < 0)
        cfg = NULL;
    r->log_report = lvx_config_int(cfg, "log/report_command_log", 0) != 0;
    const char *sel = lvx_config_str(cfg, "log/command_log_selection", "");
    r->shell_only = strcmp(sel, "log_context=shell") == 0;
    lvx_config_free(cfg);
    return r;
}

static void drop_current(struct lvx_shrep *r)
{
    if (r->pool)
        lvx_pool_destroy(r->pool);
    r->pool = NULL;
    r->cur = NULL;
    r->ncur = 0;
}

void lvx_shrep_close(struct lvx_shrep *r)
{
    if (!r)
        return;
    drop_current(r);
    if (r->last_pool)
        lvx_pool_destroy(r->last_pool);
    lvx_buf_free(&r->out);
    free(r);
}

void lvx_shrep_begin(struct lvx_shrep *r)
{
    drop_current(r);
    r->pool = lvx_pool_create();
    lvx_buf_reset(&r->out);
}

static void add_entry(struct lvx_shrep *r, const struct lvx_cmdlog_entry *e)
{
    if (!r->pool)
        r->pool = lvx_pool_create();
    r->cur = lvx_pool_realloc(r->pool, r->cur, sizeof(*r->cur) * r->ncur,
                              sizeof(*r->cur) * (r->ncur + 1));
    r->cur[r->ncur] = *e;
    r->cur[r->ncur].message = lvx_pool_strdup(r->pool, e->message);
    r->cur[r->ncur].object_name = lvx_pool_strdup(r->pool, e->object_name);
    r->ncur++;
}

bool lvx_shrep_message(struct lvx_shrep *r, int level, const char *msg)
{
    if (!r->log_report || level > LVX_LOG_NOTICE)
        return false;
    struct lvx_cmdlog_entry e = {
        .type = level <= LVX_LOG_ERROR ? "error" : level == LVX_LOG_WARN ? "warn" : "print",
        .context = "processing", .object_type = "", .object_name = "", .message = msg,
        .err = level <= LVX_LOG_ERROR ? -1 : 0 };
    add_entry(r, &e);
    return true;
}

void lvx_shrep_output(struct lvx_shrep *r, const char *data, size_t len)
{
    lvx_buf_append(&r->out, data, len);
}

/* Is entry e shown by the command log selection?  LVM2's default leaves out the
 * "success" status lines; "log_context=shell" shows only the shell's. */
static bool selected(const struct lvx_cmdlog_entry *e, void *arg)
{
    const struct lvx_shrep *r = arg;
    if (r->shell_only)
        return strcmp(e->context, "shell") == 0;
    return !(strcmp(e->type, "status") == 0 && strcmp(e->message, "success") == 0);
}

static void write_all(int fd, const struct lvx_buf *b)
{
    size_t off = 0;
    while (off < b->len) {
        ssize_t n = write(fd, b->data + off, b->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;        /* the reader went away: nothing else to do with the report */
        off += (size_t)n;
    }
}

/* The report output with the log section added: inside the report's JSON object when
 * there is one, else as an object of its own. */
static void flush(struct lvx_shrep *r, const struct lvx_cmdlog_entry *es, unsigned n, bool all)
{
    if (!r->log_report) {
        write_all(r->fd, &r->out);
        return;
    }
    struct lvx_buf b = LVX_BUF_INIT, log = LVX_BUF_INIT;
    lvx_cmdlog_json(&log, es, n, all ? NULL : selected, r, false);
    lvx_cmdlog_splice(&b, &r->out, &log);
    write_all(r->fd, &b);
    lvx_buf_free(&log);
    lvx_buf_free(&b);
}

void lvx_shrep_end(struct lvx_shrep *r, const char *cmd, int rc)
{
    struct lvx_cmdlog_entry e = { .type = "status", .context = "shell", .object_type = "cmd",
                                  .object_name = cmd, .message = rc ? "failure" : "success",
                                  .ret_code = rc ? rc : 1 };
    add_entry(r, &e);
    flush(r, r->cur, r->ncur, false);
    lvx_buf_reset(&r->out);
    if (r->last_pool)
        lvx_pool_destroy(r->last_pool);
    r->last_pool = r->pool;
    r->last = r->cur;
    r->nlast = r->ncur;
    r->pool = NULL;
    r->cur = NULL;
    r->ncur = 0;
}

int lvx_shrep_lastlog(struct lvx_shrep *r)
{
    if (!r->log_report || !r->last) {
        lvx_cmd_errorf("No log report stored.");
        return LVX_EXIT_FAILED;
    }
    lvx_buf_reset(&r->out);
    flush(r, r->last, r->nlast, true);
    return LVX_EXIT_OK;
}

void lvx_shrep_exit(struct lvx_shrep *r, const char *cmd)
{
    lvx_shrep_begin(r);
    struct lvx_cmdlog_entry e = { .type = "error", .context = "shell", .object_type = "cmd",
                                  .object_name = cmd, .message = "Exiting.", .err = -1 };
    add_entry(r, &e);
    flush(r, r->cur, r->ncur, true);
    drop_current(r);
}
