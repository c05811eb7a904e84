/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/cmdlog.c - the command log of one-shot commands (see cmdlog.h): the messages and
 * output of the command taken over while it runs, status lines per object, printed at
 * the end as LVM2 prints its log report.
 *
 * Numbering: LVM2 numbers every item in the order it processes objects (VG arguments
 * in the order given, the LVs of a VG in metadata order, then the VG), hidden ones
 * included (the default selection leaves out the "success" status lines, their
 * numbers stay taken).  lvx's read walk checks all names before it reports, so each
 * entry carries the position of its object in LVM2's order and the entries are sorted
 * by it before they are numbered.  log_errno is LVM2's: -1 on every entry after the
 * first error.
 */
#include "cmd/cmdlog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "config/config.h"
#include "report/report.h"

struct cl_entry {
    struct lvx_cmdlog_entry e;
    unsigned long key;            /* the object's position in LVM2's order */
    unsigned order;               /* time order */
};

struct cmdlog {
    struct lvx_pool *pool;
    struct cl_entry *es;
    unsigned n, cap;
    bool show_all;                /* log/command_log_selection = "all" */
    bool json;
    lvx_log_cb log_fn;            /* the command's own sinks */
    void *log_arg;
    lvx_out_cb out_fn;
    void *out_arg;
    struct lvx_buf out;           /* the report, held back */
    /* the current object */
    bool have_obj, obj_pending, obj_error;
    unsigned long key, next_key;
    const char *type, *name, *id, *group, *group_id;
};

static _Thread_local struct cmdlog *cur;

bool lvx_cmdlog_on(void)
{
    return cur != NULL;
}

static const char *dup0(const char *s)
{
    return lvx_pool_strdup(cur->pool, s ? s : "");
}

static void add(const char *type, const char *msg, int err, int ret)
{
    if (cur->n == cur->cap) {
        unsigned cap = cur->cap ? cur->cap * 2 : 16;
        cur->es = lvx_pool_realloc(cur->pool, cur->es, cur->cap * sizeof(*cur->es),
                                   cap * sizeof(*cur->es));
        cur->cap = cap;
    }
    struct cl_entry *c = &cur->es[cur->n];
    memset(c, 0, sizeof(*c));
    c->e.type = type;
    c->e.context = "processing";
    bool obj = cur->have_obj;
    c->e.object_type = obj ? cur->type : "";
    c->e.object_name = obj ? cur->name : "";
    c->e.object_id = obj ? cur->id : "";
    c->e.object_group = obj ? cur->group : "";
    c->e.object_group_id = obj ? cur->group_id : "";
    c->e.message = lvx_pool_strdup(cur->pool, msg);
    c->e.err = err;
    c->e.ret_code = ret;
    c->key = obj ? cur->key : 0;
    c->order = cur->n++;
}

static bool backup_warning(const struct cl_entry *c)
{
    return strcmp(c->e.type, "warn") == 0 &&
           strcmp(c->e.message, "WARNING: This metadata update is NOT backed up.") == 0;
}

void lvx_cmdlog_status(int rc)
{
    if (!cur || !cur->have_obj || !cur->obj_pending)
        return;
    add("status", rc ? "failure" : "success", rc ? -1 : 0, rc ? rc : 1);
    /* LVM2 writes the backup after the VG's status: its warning comes after it */
    if (cur->n >= 2 && strcmp(cur->type, "vg") == 0 && backup_warning(&cur->es[cur->n - 2]) &&
        cur->es[cur->n - 2].key == cur->key) {
        struct cl_entry t = cur->es[cur->n - 2];
        cur->es[cur->n - 2] = cur->es[cur->n - 1];
        cur->es[cur->n - 1] = t;
        cur->es[cur->n - 2].order = cur->n - 2;
        cur->es[cur->n - 1].order = cur->n - 1;
    }
    cur->obj_pending = false;
}

void lvx_cmdlog_object_at(unsigned long key, const char *type, const char *name, const char *id,
                          const char *group, const char *group_id)
{
    if (!cur)
        return;
    if (cur->obj_pending)
        lvx_cmdlog_status(cur->obj_error ? LVX_EXIT_FAILED : 0);
    cur->have_obj = cur->obj_pending = true;
    cur->obj_error = false;
    cur->key = key;
    if (key >= cur->next_key)
        cur->next_key = key + 1;
    cur->type = dup0(type);
    cur->name = dup0(name);
    cur->id = dup0(id);
    cur->group = dup0(group);
    cur->group_id = dup0(group_id);
}

void lvx_cmdlog_object(const char *type, const char *name, const char *id, const char *group,
                       const char *group_id)
{
    if (cur)
        lvx_cmdlog_object_at(cur->next_key, type, name, id, group, group_id);
}

void lvx_cmdlog_object_done(void)
{
    if (cur)
        cur->have_obj = cur->obj_pending = false;
}

bool lvx_cmdlog_group_failed(const char *group)
{
    for (unsigned i = 0; cur && i < cur->n; i++)
        if (strcmp(cur->es[i].e.type, "status") == 0 && cur->es[i].e.ret_code != 1 &&
            strcmp(cur->es[i].e.object_group, group) == 0)
            return true;
    return false;
}

void lvx_cmdlog_lv_removed(void)
{
    if (!cur || !cur->have_obj || strcmp(cur->type, "lv") != 0 || !cur->name[0])
        return;
    lvx_cmdlog_object_at(cur->next_key, "lv", "", "", cur->group, cur->group_id);
    cur->obj_pending = false;
}

bool lvx_cmdlog_lv_gone(void)
{
    return cur && cur->have_obj && strcmp(cur->type, "lv") == 0 && !cur->name[0];
}

void lvx_cmdlog_object_id(const char *id)
{
    if (cur && cur->have_obj)
        cur->id = dup0(id);
}

/* ---- capture ------------------------------------------------------------------- */

static void cl_log(void *arg, int level, const char *msg)
{
    struct cmdlog *l = arg;
    /* LVM2 prints its start-up warnings before the log begins */
    if (level > LVX_LOG_NOTICE || level == LVX_LOG_ERROR_RAW ||
        strncmp(msg, "WARNING: Activation disabled.", 29) == 0) {
        if (l->log_fn)
            l->log_fn(l->log_arg, level, msg);
        return;
    }
    if (level <= LVX_LOG_ERROR) {
        l->obj_error = true;
        add("error", msg, -1, 0);
    } else if (level == LVX_LOG_WARN) {
        bool bare = strncmp(msg, "WARNING:", 8) != 0 && strncmp(msg, "PARTIAL MODE.", 13) != 0 &&
                    strncmp(msg, "Reading VG ", 11) != 0 && !lvx_cmd_plain_warning(msg);
        char *full = bare ? lvx_pool_printf(l->pool, "WARNING: %s", msg) : NULL;
        add("warn", full ? full : msg, 0, 0);
    } else {
        add("print", msg, 0, 0);
    }
}

static void cl_out(void *arg, const char *data, size_t len)
{
    struct cmdlog *l = arg;
    lvx_buf_append(&l->out, data, len);
}

void lvx_cmdlog_begin(struct lvx_cmd_env *env)
{
    struct lvx_ctx *ctx = env->ctx;
    struct lvx_config *cfg = NULL;
    if (cur || lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return;
    }
    bool on = lvx_config_int(cfg, "log/report_command_log", 0) != 0;
    const char *sel = lvx_config_str(cfg, "log/command_log_selection", NULL);
    const char *fmt = lvx_config_str(cfg, "report/output_format", NULL);
    struct cmdlog *l = NULL;
    if (on) {
        l = lvx_xcalloc(1, sizeof(*l));
        l->pool = lvx_pool_create();
        l->show_all = sel && strcmp(sel, "all") == 0;
        l->json = env->args->count[LVX_OPT_REPORTFORMAT] ? env->args->json
                                                         : fmt && strcmp(fmt, "json") == 0;
    }
    lvx_config_free(cfg);
    if (!l)
        return;
    l->log_fn = ctx->log_fn;
    l->log_arg = ctx->log_arg;
    l->out_fn = ctx->out_fn;
    l->out_arg = ctx->out_arg;
    l->out = (struct lvx_buf)LVX_BUF_INIT;
    l->next_key = 1;
    ctx->log_fn = cl_log;
    ctx->log_arg = l;
    ctx->out_fn = cl_out;
    ctx->out_arg = l;
    cur = l;
}

/* ---- printing ------------------------------------------------------------------ */

static int by_key(const void *a, const void *b)
{
    const struct cl_entry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static bool keep_default(const struct lvx_cmdlog_entry *e, void *arg)
{
    (void)arg;
    return !(strcmp(e->type, "status") == 0 && strcmp(e->message, "success") == 0);
}

void lvx_cmdlog_json(struct lvx_buf *b, const struct lvx_cmdlog_entry *es, unsigned n,
                     bool (*keep)(const struct lvx_cmdlog_entry *e, void *arg), void *arg,
                     bool lvm2_commas)
{
    lvx_buf_puts(b, "      \"log\": [\n");
    unsigned last = n;                 /* the last entry shown */
    for (unsigned i = 0; i < n; i++)
        if (!keep || keep(&es[i], arg))
            last = i;
    for (unsigned i = 0; i < n; i++) {
        const struct lvx_cmdlog_entry *e = &es[i];
        if (keep && !keep(e, arg))
            continue;
        const char *const kv[][2] = {
            { "log_type", e->type }, { "log_context", e->context },
            { "log_object_type", e->object_type }, { "log_object_name", e->object_name },
            { "log_object_id", e->object_id }, { "log_object_group", e->object_group },
            { "log_object_group_id", e->object_group_id }, { "log_message", e->message },
        };
        lvx_buf_printf(b, "          {\"log_seq_num\":\"%u\"", e->seq ? e->seq : i + 1);
        for (size_t k = 0; k < sizeof(kv) / sizeof(kv[0]); k++) {
            lvx_buf_printf(b, ", \"%s\":", kv[k][0]);
            lvx_report_json_string(b, kv[k][1] ? kv[k][1] : "");
        }
        /* LVM2 ends an item with a comma when any item follows, shown or not */
        lvx_buf_printf(b, ", \"log_errno\":\"%d\", \"log_ret_code\":\"%d\"}%s\n", e->err,
                       e->ret_code, (lvm2_commas ? i + 1 < n : i != last) ? "," : "");
    }
    lvx_buf_puts(b, "      ]\n");
}

void lvx_cmdlog_splice(struct lvx_buf *out, const struct lvx_buf *report, const struct lvx_buf *log)
{
    static const char tail[] = "  }\n";
    size_t tl = sizeof(tail) - 1;
    if (report->len >= tl && report->data[0] == ' ' &&
        memcmp(report->data + report->len - tl, tail, tl) == 0) {
        lvx_buf_append(out, report->data, report->len - tl);
        lvx_buf_puts(out, "      ,\n");
    } else {
        lvx_buf_append(out, report->data ? report->data : "", report->len);
        lvx_buf_puts(out, "  {\n");
    }
    lvx_buf_append(out, log->data ? log->data : "", log->len);
    lvx_buf_puts(out, tail);
}

/* The heading LVM2 gives a report in a report group ("Volume Group"), NULL for
 * commands without a report of that kind. */
static const char *report_heading(const struct lvx_cmd_env *env)
{
    const char *c = env->command->name;
    bool segs = env->args->count[LVX_OPT_SEGMENTS] > 0;
    if (strcmp(c, "vgs") == 0)
        return "Volume Group";
    if (strcmp(c, "lvs") == 0)
        return segs ? "Logical Volume Segment" : "Logical Volume";
    if (strcmp(c, "pvs") == 0)
        return segs ? "Physical Volume Segment" : "Physical Volume Label";
    return NULL;
}

static void heading(struct lvx_buf *b, const char *prefix, const char *title)
{
    lvx_buf_printf(b, "%s%s\n%s", prefix, title, prefix);
    for (size_t i = 0; title[i]; i++)
        lvx_buf_putc(b, '=');
    lvx_buf_putc(b, '\n');
}

void lvx_cmdlog_section(struct lvx_buf *out, const char *prefix, const char *title,
                        const struct lvx_buf *body)
{
    if (!body->len)
        return;
    heading(out, prefix ? prefix : "  ", title);
    lvx_buf_append(out, body->data, body->len);
    lvx_buf_printf(out, "%s\n", prefix ? prefix : "  ");
}

static const struct lvx_table_col log_cols[] = {
    { "log_seq_num", "Seq", 3, true },          { "log_type", "LogType", 7, false },
    { "log_context", "Context", 7, false },     { "log_object_type", "ObjType", 7, false },
    { "log_object_name", "ObjName", 7, false }, { "log_object_id", "ObjID", 7, false },
    { "log_object_group", "ObjGrp", 7, false }, { "log_object_group_id", "ObjGrpID", 8, false },
    { "log_message", "Msg", 7, false },         { "log_errno", "Errno", 5, true },
    { "log_ret_code", "RetCode", 7, true },
};
#define LOG_NCOLS (sizeof(log_cols) / sizeof(log_cols[0]))

static void text_log(struct lvx_cmd_env *env, struct lvx_buf *b,
                     const struct lvx_cmdlog_entry *es, unsigned n, bool show_all)
{
    struct lvx_report_opts o;
    lvx_cmd_report_opts(env, &o);
    const char *prefix = o.line_prefix ? o.line_prefix : "  ";
    const char **cells = lvx_pool_alloc(env->pool, ((size_t)n * LOG_NCOLS + 1) * sizeof(*cells));
    unsigned rows = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct lvx_cmdlog_entry *e = &es[i];
        if (!show_all && !keep_default(e, NULL))
            continue;
        const char **r = cells + (size_t)rows++ * LOG_NCOLS;
        r[0] = lvx_pool_printf(env->pool, "%u", e->seq);
        r[1] = e->type;
        r[2] = e->context;
        r[3] = e->object_type;
        r[4] = e->object_name;
        r[5] = e->object_id;
        r[6] = e->object_group;
        r[7] = e->object_group_id;
        r[8] = e->message;
        r[9] = lvx_pool_printf(env->pool, "%d", e->err);
        r[10] = lvx_pool_printf(env->pool, "%d", e->ret_code);
    }
    heading(b, prefix, "Command Log");
    lvx_report_table(b, &o, log_cols, LOG_NCOLS, cells, rows);
}

void lvx_cmdlog_end(struct lvx_cmd_env *env, int rc)
{
    struct cmdlog *l = cur;
    if (!l)
        return;
    if (l->obj_pending)
        lvx_cmdlog_status(l->obj_error || rc ? (rc ? rc : LVX_EXIT_FAILED) : 0);
    cur = NULL;
    env->ctx->log_fn = l->log_fn;
    env->ctx->log_arg = l->log_arg;
    env->ctx->out_fn = l->out_fn;
    env->ctx->out_arg = l->out_arg;

    if (l->n)
        qsort(l->es, l->n, sizeof(*l->es), by_key);
    struct lvx_cmdlog_entry *es = lvx_pool_alloc(l->pool, (l->n + 1) * sizeof(*es));
    bool failed = false;
    for (unsigned i = 0; i < l->n; i++) {
        es[i] = l->es[i].e;
        es[i].seq = i + 1;
        if (strcmp(es[i].type, "error") == 0)
            failed = true;
        if (failed && strcmp(es[i].type, "status") == 0)
            es[i].err = -1;
    }

    struct lvx_buf b = LVX_BUF_INIT;
    if (l->json) {
        struct lvx_buf log = LVX_BUF_INIT;
        lvx_cmdlog_json(&log, es, l->n, l->show_all ? NULL : keep_default, NULL, true);
        lvx_cmdlog_splice(&b, &l->out, &log);
        lvx_buf_free(&log);
    } else {
        const char *title = report_heading(env);
        struct lvx_report_opts o;
        lvx_cmd_report_opts(env, &o);
        const char *prefix = o.line_prefix ? o.line_prefix : "  ";
        if (title) {
            lvx_cmdlog_section(&b, prefix, title, &l->out);
            if (!l->out.len)
                lvx_buf_printf(&b, "%s\n", prefix);
        } else {
            /* fullreport's parts have their headings (lvx_cmdlog_section) */
            lvx_buf_append(&b, l->out.data ? l->out.data : "", l->out.len);
            if (env->command->fn == lvx_cmd_fullreport && !l->out.len)
                lvx_buf_printf(&b, "%s\n", prefix);
        }
        text_log(env, &b, es, l->n, l->show_all);
    }
    lvx_cmd_output(&b);
    lvx_buf_free(&b);
    lvx_buf_free(&l->out);
    lvx_pool_destroy(l->pool);
    free(l);
}
