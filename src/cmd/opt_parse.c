/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/opt_parse.c - the command-line parser: argv -> struct lvx_cmd_args for one
 * command, with every value converted by its kind (cmd/opt_values.c).
 *
 * It reads argv as getopt_long does (and words its errors the same way, after
 * "lvx CMD: "): options and positional arguments in any order, "--" ends the
 * options, "--name=value" or "--name value", unambiguous abbreviations of long
 * names, clustered short options ("-vvv", "-ay", "-L1g").  Only the options the
 * command accepts are known to it.  As in LVM2, an option may be given once, except
 * those the option table marks repeatable (the countable -v, -d, -f, -q and the lists
 * --addtag, --deltag, --devices, -o, -O, -S).  No global state: reentrant.
 */
#include "cmd/commands.h"
#include "cmd/options.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "model/model.h"
#include "util/buf.h"

struct parser {
    struct lvx_ctx *ctx;
    struct lvx_pool *pool;
    const char *cmd;
    const enum lvx_opt_id *allowed;
    struct lvx_cmd_args *out;
};

/* ---- values --------------------------------------------------------------------- */

static void add_item(struct lvx_pool *pool, struct lvx_opt_val *v, const char *item)
{
    v->items = lvx_pool_realloc(pool, v->items, v->item_count * sizeof(char *),
                                (v->item_count + 1) * sizeof(char *));
    v->items[v->item_count++] = item;
}

static void add_list(struct lvx_pool *pool, struct lvx_opt_val *v, const char *value)
{
    char *copy = lvx_pool_strdup(pool, value);
    for (char *tok = copy, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        if (*tok)
            add_item(pool, v, tok);
    }
}

static int bad_value(struct parser *ps, const struct lvx_opt_def *d, const char *value,
                     const char *reason)
{
    ps->out->reason = reason ? lvx_pool_strdup(ps->pool, reason) : NULL;
    return lvx_error(ps->ctx, EINVAL, "Invalid argument for --%s: %s", d->long_name, value);
}

/* Convert one value of option d into out->val[d->id] (and value[] as given). */
static int take_value(struct parser *ps, const struct lvx_opt_def *d, const char *value)
{
    struct lvx_cmd_args *out = ps->out;
    struct lvx_opt_val *v = &out->val[d->id];
    const char *reason = NULL;
    bool joined = d->kind == LVX_ARG_LIST || d->kind == LVX_ARG_TAG;

    switch (d->kind) {
    case LVX_ARG_FLAG:
    case LVX_ARG_STRING:
        break;
    case LVX_ARG_LIST:
        add_list(ps->pool, v, value);
        break;
    case LVX_ARG_BOOL:
        if (!strcmp(value, "y") || !strcmp(value, "yes"))
            v->b = true;
        else if (!strcmp(value, "n") || !strcmp(value, "no"))
            v->b = false;
        else
            return bad_value(ps, d, value, NULL);
        break;
    case LVX_ARG_NUMBER:
        if (lvx_opt_parse_number(value, UINT32_MAX, &v->n) < 0)
            return bad_value(ps, d, value, NULL);
        break;
    case LVX_ARG_SNUMBER:
        v->sign = value[0] == '+' ? 1 : value[0] == '-' ? -1 : 0;
        if (lvx_opt_parse_number(value + (v->sign != 0), UINT32_MAX, &v->n) < 0)
            return bad_value(ps, d, value, NULL);
        break;
    case LVX_ARG_SIZE:
    case LVX_ARG_SSIZE:
        if (lvx_opt_parse_size(value, d->default_unit, v, &reason) < 0)
            return bad_value(ps, d, value, reason);
        /* LVM2's SizeKB values (default unit k) refuse only a minus, SizeMB both signs */
        if (v->sign < 0 && d->kind == LVX_ARG_SIZE && d->default_unit == 'k')
            return bad_value(ps, d, value, "Size may not be negative.");
        if (v->sign && d->kind == LVX_ARG_SIZE && d->default_unit != 'k')
            return bad_value(ps, d, value, "Size may not be relative/signed.");
        break;
    case LVX_ARG_EXTENTS:
        if (lvx_opt_parse_extents(value, v, &reason) < 0)
            return bad_value(ps, d, value, reason);
        break;
    case LVX_ARG_TAG: {
        const char *tag = value[0] == '@' ? value + 1 : value;
        if (!lvx_tag_valid(tag))
            return bad_value(ps, d, value, NULL);
        add_item(ps->pool, v, lvx_pool_strdup(ps->pool, tag));
        break;
    }
    case LVX_ARG_UNITS:
        if (lvx_opts_parse_units(value, &out->units, &out->unit_bytes) < 0)
            return lvx_error(ps->ctx, EINVAL, "Invalid units specification: %s", value);
        break;
    case LVX_ARG_REPORTFORMAT:
        if (strcmp(value, "basic") != 0 && strcmp(value, "json") != 0)
            return bad_value(ps, d, value, NULL);
        out->json = value[0] == 'j';
        break;
    case LVX_ARG_MDATYPE:
        if (strcasecmp(value, "lvm2") != 0 && strcmp(value, "2") != 0 &&
            strcasecmp(value, "text") != 0)
            return bad_value(ps, d, value, NULL);
        break;
    }
    out->seq_id = lvx_pool_realloc(ps->pool, (void *)out->seq_id,
                                   out->seq_count * sizeof(*out->seq_id),
                                   (out->seq_count + 1) * sizeof(*out->seq_id));
    out->seq_value = lvx_pool_realloc(ps->pool, (void *)out->seq_value,
                                      out->seq_count * sizeof(char *),
                                      (out->seq_count + 1) * sizeof(char *));
    ((enum lvx_opt_id *)out->seq_id)[out->seq_count] = d->id;
    ((const char **)out->seq_value)[out->seq_count++] = lvx_pool_strdup(ps->pool, value);
    if (joined && out->value[d->id])
        out->value[d->id] = lvx_pool_printf(ps->pool, "%s,%s", out->value[d->id], value);
    else
        out->value[d->id] = lvx_pool_strdup(ps->pool, value);
    return 0;
}

/* ---- argv ----------------------------------------------------------------------- */

static const struct lvx_opt_def *find_short(struct parser *ps, char c)
{
    for (int id = 0; id < LVX_OPT_COUNT; id++) {
        const struct lvx_opt_def *d = lvx_opt_def((enum lvx_opt_id)id);
        if (lvx_opt_short(ps->allowed, d->id) == c && lvx_opts_allowed(ps->allowed, d->id))
            return d;
    }
    return NULL;
}

/* The accepted option named name[0..len): exact, else the one it abbreviates.  NULL
 * with the error recorded when none or several match. */
static const struct lvx_opt_def *find_long(struct parser *ps, const char *arg, const char *name,
                                           size_t len)
{
    const struct lvx_opt_def *found = NULL;
    unsigned matches = 0;
    struct lvx_buf list = LVX_BUF_INIT;

    for (int id = 0; id < LVX_OPT_COUNT; id++) {
        const struct lvx_opt_def *d = lvx_opt_def((enum lvx_opt_id)id);
        if (!lvx_opts_allowed(ps->allowed, d->id) || strncmp(d->long_name, name, len) != 0)
            continue;
        if (d->long_name[len] == '\0') {
            lvx_buf_free(&list);
            return d;
        }
        if (!found || strcmp(found->long_name, d->long_name) != 0) {
            matches++;
            lvx_buf_printf(&list, " '--%s'", d->long_name);
        }
        if (!found)
            found = d;
    }
    if (matches > 1) {
        lvx_error(ps->ctx, EINVAL, "lvx %s: option '--%.*s' is ambiguous; possibilities:%s",
                  ps->cmd, (int)len, name, lvx_buf_str(&list));
        found = NULL;
    } else if (!found) {
        lvx_error(ps->ctx, EINVAL, "lvx %s: unrecognized option '%s'", ps->cmd, arg);
    }
    lvx_buf_free(&list);
    return found;
}

/* Count one more use of d: LVM2's words when d may not be repeated. */
static int count_use(struct parser *ps, const struct lvx_opt_def *d)
{
    if (ps->out->count[d->id]++ == 0 || d->repeatable)
        return 0;
    ps->out->parse_error = true;
    if (d->short_name)
        return lvx_error(ps->ctx, EINVAL, "Option -%c/--%s may not be repeated.", d->short_name,
                         d->long_name);
    return lvx_error(ps->ctx, EINVAL, "Option --%s may not be repeated.", d->long_name);
}

/* One "--name[=value]" at argv[*i]; *i moves past a separate value. */
static int long_option(struct parser *ps, int argc, char **argv, int *i)
{
    const char *arg = argv[*i], *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct lvx_opt_def *d = find_long(ps, arg, name, len);

    if (!d || count_use(ps, d) < 0)
        return -EINVAL;
    if (!d->has_arg) {
        if (eq)
            return lvx_error(ps->ctx, EINVAL, "lvx %s: option '--%s' doesn't allow an argument",
                             ps->cmd, d->long_name);
        return 0;
    }
    if (eq)
        return take_value(ps, d, eq + 1);
    if (*i + 1 >= argc)
        return lvx_error(ps->ctx, EINVAL, "lvx %s: option '--%s' requires an argument", ps->cmd,
                         d->long_name);
    return take_value(ps, d, argv[++*i]);
}

/* A cluster of short options "-abc" at argv[*i]; *i moves past a separate value. */
static int short_options(struct parser *ps, int argc, char **argv, int *i)
{
    for (const char *p = argv[*i] + 1; *p; p++) {
        const struct lvx_opt_def *d = find_short(ps, *p);
        if (!d)
            return lvx_error(ps->ctx, EINVAL, "lvx %s: invalid option -- '%c'", ps->cmd, *p);
        if (count_use(ps, d) < 0)
            return -EINVAL;
        if (!d->has_arg)
            continue;
        if (p[1])
            return take_value(ps, d, p + 1);
        if (*i + 1 >= argc)
            return lvx_error(ps->ctx, EINVAL, "lvx %s: option requires an argument -- '%c'",
                             ps->cmd, *p);
        return take_value(ps, d, argv[++*i]);
    }
    return 0;
}

int lvx_opts_parse(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *cmd,
                   const enum lvx_opt_id *allowed, int argc, char **argv,
                   struct lvx_cmd_args *out)
{
    struct parser ps = { ctx, pool, cmd, allowed, out };
    int rc = 0;

    memset(out, 0, sizeof(*out));
    out->cmd = cmd;
    out->full_argc = argc;
    out->full_argv = argv;
    out->argv = lvx_pool_alloc(pool, (size_t)(argc + 1) * sizeof(char *));
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            while (++i < argc)
                out->argv[out->argc++] = argv[i];
        } else if (a[0] == '-' && a[1] == '-') {
            rc = long_option(&ps, argc, argv, &i);
        } else if (a[0] == '-' && a[1]) {
            rc = short_options(&ps, argc, argv, &i);
        } else {
            out->argv[out->argc++] = argv[i];
        }
    }
    out->argv[out->argc] = NULL;
    if (out->count[LVX_OPT_SYSINIT]) {    /* LVM2's shortcut of three options */
        out->count[LVX_OPT_IGNORELOCKINGFAILURE]++;
        out->count[LVX_OPT_IGNOREMONITORING]++;
        if (!out->count[LVX_OPT_POLL]) {
            out->count[LVX_OPT_POLL] = 1;
            out->val[LVX_OPT_POLL].b = false;
        }
    }
    out->devices = out->val[LVX_OPT_DEVICES].items;
    out->device_count = out->val[LVX_OPT_DEVICES].item_count;
    return rc;
}

int lvx_opts_invalid(const char *long_name, const char *value, const char *reason)
{
    if (reason)
        lvx_cmd_errorf("Invalid argument for --%s: %s (%s)", long_name, value, reason);
    else
        lvx_cmd_errorf("Invalid argument for --%s: %s", long_name, value);
    return LVX_EXIT_INVALID;
}
