/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/config_cmd.c - `lvx config [--type current|default|diff|full] [PATH ...]`
 * (also `lvmconfig`, `dumpconfig`; --typeconfig is --type, --withcomments is accepted: lvx has no comment
 * texts, and its default/diff/full trees are always merged with --config): print the configuration - for
 * --type current LVM2's front of the cascade (current_tree) - in lvmconfig's layout (TAB indentation, key=value, one-element arrays
 * printed as a single value).  PATH ("devices" or "devices/filter") prints only that
 * section or setting.  --type default prints lvx's built-in defaults (commented, as
 * lvmconfig does), diff the settings that differ from them, full both merged.
 */
#include "cmd/commands.h"
#include "config/config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void print_value(struct lvx_buf *b, const struct lvx_cfg_node *v)
{
    switch (v->kind) {
    case LVX_CFG_INT:
        lvx_buf_printf(b, "%lld", (long long)v->num);
        break;
    case LVX_CFG_FLOAT:
        lvx_buf_puts(b, v->float_text ? v->float_text : "0.0");
        break;
    case LVX_CFG_STRING:
        lvx_cfg_print_quoted(b, v->str);
        break;
    case LVX_CFG_ARRAY:
        if (v->child && !v->child->next) {      /* one element: printed as a value */
            print_value(b, v->child);
            break;
        }
        lvx_buf_putc(b, '[');
        for (const struct lvx_cfg_node *e = v->child; e; e = e->next) {
            print_value(b, e);
            if (e->next)
                lvx_buf_putc(b, ',');
        }
        lvx_buf_putc(b, ']');
        break;
    case LVX_CFG_SECTION:
        break;
    }
}

static void indent(struct lvx_buf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        lvx_buf_putc(b, '\t');
}

static void print_node(struct lvx_buf *b, const struct lvx_cfg_node *n, int depth, bool commented)
{
    if (!n->key)
        return;
    indent(b, depth);
    if (n->kind == LVX_CFG_SECTION) {
        lvx_buf_printf(b, "%s {\n", n->key);
        for (const struct lvx_cfg_node *c = n->child; c; c = c->next)
            print_node(b, c, depth + 1, commented);
        indent(b, depth);
        lvx_buf_puts(b, "}\n");
        return;
    }
    lvx_buf_printf(b, "%s%s=", commented ? "# " : "", n->key);
    print_value(b, n);
    lvx_buf_putc(b, '\n');
}

/* Items of cur not present with an equal value in defaults (sections recursively), as a
 * new tree in pool. */
static struct lvx_cfg_node *diff_tree(struct lvx_pool *pool, const struct lvx_cfg_node *cur,
                                      const struct lvx_cfg_node *defaults, const char *key)
{
    struct lvx_cfg_node *out = lvx_cfg_new(pool, NULL, key, LVX_CFG_SECTION);
    for (const struct lvx_cfg_node *c = cur->child; c; c = c->next) {
        if (!c->key)
            continue;
        const struct lvx_cfg_node *d = defaults ? lvx_cfg_find(defaults, c->key) : NULL;
        if (c->kind == LVX_CFG_SECTION) {
            struct lvx_cfg_node *sub = diff_tree(pool, c, d && d->kind == LVX_CFG_SECTION ? d : NULL,
                                                 c->key);
            if (sub->child)
                lvx_cfg_append(out, sub);
        } else if (!d || !lvx_cfg_equal(c, d)) {
            lvx_cfg_append(out, lvx_cfg_clone(pool, c));
        }
    }
    return out;
}

/* LVM2's --type current: the front of its configuration cascade.  With --config (and
 * no --mergedconfig) that is the --config text alone, in its order; else lvm.conf,
 * which LVM2 merges into an empty tree inserting each new section after the first
 * one: the first section, then the others in reverse order. */
static struct lvx_cfg_node *current_tree(struct lvx_cmd_env *env, struct lvx_cfg_node *cur)
{
    struct lvx_cfg_node *t = lvx_cfg_new(env->pool, NULL, NULL, LVX_CFG_SECTION);
    const char *over = env->ctx->config_override;
    if (over && !env->args->count[LVX_OPT_MERGEDCONFIG]) {
        struct lvx_cfg_node *root = NULL;
        if (lvx_cfg_parse(env->ctx, env->pool, over, strlen(over), &root) == 0) {
            lvx_config_merge(env->pool, t, root);
            return t;
        }
        lvx_error_clear(env->ctx);      /* checked by the dispatcher: cannot happen */
        return cur;
    }
    if (over || !cur->child || !cur->child->next)
        return cur;
    struct lvx_cfg_node *first = cur->child, *rest = NULL;
    for (struct lvx_cfg_node *c = first->next, *next; c; c = next) {
        next = c->next;
        c->next = rest;
        rest = c;
    }
    cur->last_child = first->next;      /* the old second one ends the list now */
    first->next = rest;
    return cur;
}

static int pick_tree(struct lvx_cmd_env *env, const struct lvx_config *cfg, const char *type,
                     struct lvx_cfg_node **tree, bool *commented)
{
    struct lvx_cfg_node *empty = lvx_cfg_new(env->pool, NULL, NULL, LVX_CFG_SECTION);
    struct lvx_cfg_node *cur = cfg->root ? cfg->root : empty;
    *commented = false;
    if (!type || strcmp(type, "current") == 0) {
        *tree = current_tree(env, cur);
    } else if (strcmp(type, "default") == 0) {
        *tree = lvx_config_defaults(env->pool);
        *commented = true;
    } else if (strcmp(type, "diff") == 0) {
        *tree = diff_tree(env->pool, cur, lvx_config_defaults(env->pool), NULL);
    } else if (strcmp(type, "full") == 0) {
        *tree = lvx_config_defaults(env->pool);
        lvx_config_merge(env->pool, *tree, cur);
    } else {
        lvx_cmd_errorf("Invalid argument for --type: %s (current, default, diff or full)", type);
        return LVX_EXIT_INVALID;
    }
    return 0;
}

/* -f/--file: the output into FILE (created or truncated, mode 0600 as LVM2's umask
 * gives it) instead of stdout; written also when a node is not found (the others in it). */
static int write_file(const char *path, const struct lvx_buf *b)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && (b->len == 0 || write(fd, b->data, b->len) == (ssize_t)b->len);
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok) {
        lvx_cmd_errorf("Failed to write configuration file %s.", path);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

int lvx_cmd_config(struct lvx_cmd_env *env)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0)
        return lvx_cmd_fail(env);
    struct lvx_cfg_node *tree = NULL;
    bool commented = false;
    const char *type = env->args->value[LVX_OPT_CONFIG_TYPE] ? env->args->value[LVX_OPT_CONFIG_TYPE]
                                                             : env->args->value[LVX_OPT_TYPECONFIG];
    int rc = pick_tree(env, cfg, type, &tree, &commented);
    struct lvx_buf b = LVX_BUF_INIT;
    for (int i = 0; rc == 0 && i < env->args->argc; i++) {
        const struct lvx_cfg_node *n = lvx_cfg_find_path(tree, env->args->argv[i]);
        if (!n) {
            lvx_cmd_errorf("Configuration node %s not found", env->args->argv[i]);
            rc = LVX_EXIT_FAILED;
            continue;
        }
        print_node(&b, n, 0, commented);
    }
    if (rc == 0 && env->args->argc == 0)
        for (const struct lvx_cfg_node *c = tree->child; c; c = c->next)
            print_node(&b, c, 0, commented);
    const char *file = env->args->value[LVX_OPT_FILE];
    int out = file ? write_file(file, &b) : lvx_cmd_output(&b);
    lvx_buf_free(&b);
    lvx_config_free(cfg);
    return rc ? rc : out;
}
