/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/config_cmd.c - `lvx config [--type TYPE] [PATH ...]` (also `lvmconfig`,
 * `dumpconfig`; --typeconfig is --type): print the configuration in lvmconfig's layout
 * (TAB indentation, key=value, one-element arrays printed as a single value).  PATH
 * ("devices" or "devices/filter") prints only that section or setting.
 *   current     LVM2's front of the cascade (current_tree);
 *   diff        against lvx's built-in defaults (config/config.c): the settings that
 *               differ (in LVM2's order);
 *   full        the current settings merged into LVM2's full table of defaults the way
 *               LVM2 merges them (config/lvm2_settings.h);
 *   default, list, missing, new, profilable, profilable-command, profilable-metadata
 *               LVM2's table of settings (config/lvm2_settings.h): its default tree,
 *               its setting paths, the settings the current tree lacks, those new in
 *               LVM2's version, those a profile (of that kind: config/profile.h) may
 *               set; --withversions and
 *               --ignoreadvanced as LVM2.
 * --withcomments: a warning that lvx has no comment texts (LVM2's prose is not copied),
 * the settings without.
 */
/*
 * cmd/config_cmd.c - `lvx config [--type current|default|diff|full] [PATH ...]`
 * (also `lvmconfig`, `dumpconfig`; --typeconfig is --type, --withcomments is accepted: lvx has no comment
 * texts, and its default/diff/full trees are always merged with --config): print the configuration - for
 * --type current LVM2's front of the cascade (current_tree) - in lvmconfig's layout (TAB indentation, key=value, one-element arrays
 * printed as a single value).  PATH ("devices" or "devices/filter") prints only that
 * section or setting.  --type default prints lvx's built-in defaults (commented, as
 * lvmconfig does), diff the settings that differ from them (in LVM2's order), full both
 * merged, list the
 * path of each of those settings (lvx's table, not LVM2's).  --withcomments: a warning
 * that lvx has no comment texts (LVM2's prose is not copied), the settings without.
 */
#include "cmd/commands.h"
#include "config/config.h"
#include "config/lvm2_settings.h"
#include "config/profile.h"

#include <fcntl.h>
#include <stdio.h>
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

/* --type list: the path of each setting under n ("section/key"), one a line, as LVM2's
 * list; the settings are lvx's own table (lvx_config_defaults), not LVM2's. */
static void print_list(struct lvx_buf *b, const struct lvx_cfg_node *n, const char *prefix)
{
    if (!n->key)
        return;
    if (n->kind != LVX_CFG_SECTION) {
        lvx_buf_printf(b, "%s%s%s\n", prefix, prefix[0] ? "/" : "", n->key);
        return;
    }
    char path[512];
    snprintf(path, sizeof(path), "%s%s%s", prefix, prefix[0] ? "/" : "", n->key);
    for (const struct lvx_cfg_node *c = n->child; c; c = c->next)
        print_list(b, c, path);
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

/* A section's items as a list: first, then the others in reverse order (LVM2 builds its
 * trees inserting each new item after the first one). */
static void first_then_reversed(struct lvx_cfg_node *sec)
{
    struct lvx_cfg_node *first = sec->child;
    if (!first || !first->next)
        return;
    struct lvx_cfg_node *rest = NULL;
    for (struct lvx_cfg_node *c = first->next, *next; c; c = next) {
        next = c->next;
        c->next = rest;
        rest = c;
    }
    sec->last_child = first->next;
    sec->last_child->next = NULL;
    first->next = rest;
    for (struct lvx_cfg_node *c = first; c; c = c->next)
        sec->last_child = c;
}

/* --type diff as LVM2 orders it: the items LVM2 walks (with --config: lvm.conf's
 * sections in the cascade's order - first_then_reversed - then the sections only
 * --config has; inside a section lvm.conf's items, then --config's new ones; without
 * --config lvm.conf's order), each level of the result first_then_reversed.  file: the
 * lvm.conf tree without --config (NULL when none was given). */
static void diff_order(struct lvx_cfg_node *sec, const struct lvx_cfg_node *file, bool top)
{
    if (file && top) {
        /* lvm.conf's items first, in the cascade's order, then the others */
        struct lvx_cfg_node *old = NULL, *old_last = NULL, *fresh = NULL, *fresh_last = NULL;
        for (struct lvx_cfg_node *c = sec->child, *next; c; c = next) {
            next = c->next;
            c->next = NULL;
            bool in_file = c->key && lvx_cfg_find(file, c->key);
            struct lvx_cfg_node **head = in_file ? &old : &fresh, **last = in_file ? &old_last : &fresh_last;
            if (*last)
                (*last)->next = c;
            else
                *head = c;
            *last = c;
        }
        struct lvx_cfg_node tmp = { .kind = LVX_CFG_SECTION, .child = old, .last_child = old_last };
        first_then_reversed(&tmp);
        sec->child = tmp.child ? tmp.child : fresh;
        if (tmp.last_child)
            tmp.last_child->next = fresh;
        sec->last_child = fresh_last ? fresh_last : tmp.last_child;
    }
    for (struct lvx_cfg_node *c = sec->child; c; c = c->next)
        if (c->kind == LVX_CFG_SECTION) {
            const struct lvx_cfg_node *f = file ? lvx_cfg_find(file, c->key) : NULL;
            diff_order(c, f && f->kind == LVX_CFG_SECTION ? f : NULL, false);
        }
}

static void diff_order_result(struct lvx_cfg_node *sec)
{
    first_then_reversed(sec);
    for (struct lvx_cfg_node *c = sec->child; c; c = c->next)
        if (c->kind == LVX_CFG_SECTION)
            diff_order_result(c);
}

/* LVM2's --type current: the front of its configuration cascade.  With --config (and
 * no --mergedconfig) that is the --config text alone, in its order (without --config,
 * the text of --profile/--commandprofile); else lvm.conf,
 * which LVM2 merges into an empty tree inserting each new section after the first
 * one: the first section, then the others in reverse order. */
static struct lvx_cfg_node *current_tree(struct lvx_cmd_env *env, struct lvx_cfg_node *cur)
{
    struct lvx_cfg_node *t = lvx_cfg_new(env->pool, NULL, NULL, LVX_CFG_SECTION);
    const char *over = env->ctx->config_override;
    if (!over && env->ctx->config_profile && !env->args->count[LVX_OPT_MERGEDCONFIG])
        over = env->ctx->config_profile;    /* --profile: the profile alone, as LVM2 */
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
        /* the order LVM2 prints it in needs lvm.conf without --config too */
        struct lvx_config *file = NULL;
        const char *over = env->ctx->config_override;
        if (over) {
            env->ctx->config_override = NULL;
            if (lvx_config_load(env->ctx, &file) < 0)
                lvx_error_clear(env->ctx);
            env->ctx->config_override = over;
        }
        struct lvx_cfg_node *walk = lvx_cfg_clone(env->pool, cur);
        diff_order(walk, file ? (file->root ? file->root : empty) : NULL, true);
        *tree = diff_tree(env->pool, walk, lvx_config_defaults(env->pool), NULL);
        diff_order_result(*tree);
        lvx_config_free(file);
    } else if (strcmp(type, "full") == 0) {
        *tree = lvx_config_defaults(env->pool);
        lvx_config_merge(env->pool, *tree, cur);
    } else if (strcmp(type, "list") == 0) {
        *tree = lvx_config_defaults(env->pool);
    } else {
        lvx_cmd_errorf("Invalid argument for --type: %s (current, default, diff, full or list)", type);
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

/* ---- LVM2's settings table: --type default, list, missing, new, profilable ---------- */

enum l2_mode {
    L2_DEFAULT, L2_MISSING, L2_NEW, L2_PROFILABLE, L2_PROFILABLE_CMD, L2_PROFILABLE_MDA,
};

struct l2_print {
    enum l2_mode mode;
    bool ignore_advanced, versions;
    const struct lvx_cfg_node *front;   /* LVM2's current tree (--type current) */
    char new_since[32];        /* LVM2's own version as its "since" values write it */
};

/* A line of LVM2's table, "@SYSDIR@" replaced by the system directory. */
static void table_text(struct lvx_buf *b, const char *text)
{
    const char *tok = strstr(text, "@SYSDIR@");
    if (tok)
        lvx_buf_printf(b, "%.*s%s%s\n", (int)(tok - text), text, lvx_config_system_dir(), tok + 8);
    else
        lvx_buf_printf(b, "%s\n", text);
}

static void l2_line(struct lvx_buf *b, const struct lvx_lvm2_line *l, int depth, bool versions)
{
    if (versions && l->since) {
        indent(b, depth);
        lvx_buf_printf(b, "# Available since version %s.\n", l->since);
    }
    indent(b, depth);
    if (l->flags & LVX_L2_COMMENTED)
        lvx_buf_puts(b, "# ");
    table_text(b, l->text);
}

static bool l2_wanted(const struct l2_print *p, const struct lvx_lvm2_line *l)
{
    if (p->ignore_advanced && (l->flags & LVX_L2_ADVANCED))
        return false;
    switch (p->mode) {
    case L2_MISSING:
        return !lvx_cfg_find_path(p->front, l->path);
    case L2_NEW:
        return l->since && strcmp(l->since, p->new_since) == 0;
    case L2_PROFILABLE:
        return (l->flags & LVX_L2_PROFILABLE) != 0;
    case L2_PROFILABLE_CMD:
    case L2_PROFILABLE_MDA:     /* (asked of settings and of empty sections only) */
        return (l->flags & LVX_L2_PROFILABLE) &&
               lvx_profile_metadata_setting(l->path) == (p->mode == L2_PROFILABLE_MDA);
    default:
        return true;
    }
}

/* The item at *i (a setting, or a section up to its closing line) at depth - base;
 * *i moves past it. */
static bool l2_item(struct lvx_buf *b, const struct l2_print *p, size_t *i, int base)
{
    const struct lvx_lvm2_line *l = &lvx_lvm2_default_tree[*i];
    (*i)++;
    if (l->kind == 's') {
        if (!l2_wanted(p, l))
            return false;
        l2_line(b, l, l->depth - base, p->versions);
        return true;
    }
    if (l->kind == 'h') {        /* no default value: LVM2 prints only its version line */
        if (p->versions && l2_wanted(p, l)) {
            indent(b, l->depth - base);
            lvx_buf_printf(b, "# Available since version %s.\n", l->since);
        }
        return false;
    }
    struct lvx_buf kids = LVX_BUF_INIT;
    bool empty = lvx_lvm2_default_tree[*i].kind == 'c', real = false;
    while (lvx_lvm2_default_tree[*i].kind && lvx_lvm2_default_tree[*i].kind != 'c')
        real |= l2_item(&kids, p, i, base);
    const struct lvx_lvm2_line *close = &lvx_lvm2_default_tree[*i];
    if (close->kind)
        (*i)++;
    /* other types: a section with something of theirs in it (profilable: an empty one
     * a profile may fill too) */
    bool show = p->mode == L2_DEFAULT ? !(p->ignore_advanced && (l->flags & LVX_L2_ADVANCED))
                                      : real || (empty && p->mode >= L2_PROFILABLE &&
                                                 l2_wanted(p, l));
    if (show) {
        l2_line(b, l, l->depth - base, p->versions);
        lvx_buf_append(b, kids.data ? kids.data : "", kids.len);
        l2_line(b, close, close->depth - base, false);
    }
    lvx_buf_free(&kids);
    return show;
}

/* The table's item at path ("devices", "devices/dir"), or SIZE_MAX. */
static size_t l2_find(const char *path)
{
    for (size_t i = 0; lvx_lvm2_default_tree[i].kind; i++)
        if (lvx_lvm2_default_tree[i].kind != 'c' && strcmp(lvx_lvm2_default_tree[i].path, path) == 0)
            return i;
    return (size_t)-1;
}

static int l2_print_tree(struct lvx_cmd_env *env, const struct lvx_config *cfg, enum l2_mode mode,
                         struct lvx_buf *b)
{
    struct lvx_cfg_node *front = NULL;
    bool commented;
    if (mode == L2_MISSING && pick_tree(env, cfg, "current", &front, &commented) != 0)
        return LVX_EXIT_FAILED;
    struct l2_print p = { .mode = mode, .front = front,
                          .ignore_advanced = env->args->count[LVX_OPT_IGNOREADVANCED] > 0,
                          .versions = env->args->count[LVX_OPT_WITHVERSIONS] > 0 };
    unsigned maj = 0, min = 0, rel = 0;    /* "2.03.16" is "2.3.16" in the table */
    sscanf(lvx_lvm2_settings_version, "%u.%u.%u", &maj, &min, &rel);
    snprintf(p.new_since, sizeof(p.new_since), "%u.%u.%u", maj, min, rel);
    int rc = 0;
    if (env->args->argc == 0) {
        for (size_t i = 0; lvx_lvm2_default_tree[i].kind;)
            (void)l2_item(b, &p, &i, 0);
        return 0;
    }
    for (int a = 0; a < env->args->argc; a++) {
        size_t i = l2_find(env->args->argv[a]);
        if (i == (size_t)-1) {
            lvx_cmd_errorf("Configuration node %s not found", env->args->argv[a]);
            rc = LVX_EXIT_FAILED;
            continue;
        }
        (void)l2_item(b, &p, &i, lvx_lvm2_default_tree[i].depth);
    }
    return rc;
}

static int l2_print_list(struct lvx_cmd_env *env, struct lvx_buf *b)
{
    bool versions = env->args->count[LVX_OPT_WITHVERSIONS] > 0;
    bool basic = env->args->count[LVX_OPT_IGNOREADVANCED] > 0;
    int rc = 0;
    for (int a = 0; a < (env->args->argc ? env->args->argc : 1); a++) {
        const char *want = env->args->argc ? env->args->argv[a] : NULL;
        size_t wl = want ? strlen(want) : 0;
        bool found = false;
        for (const struct lvx_lvm2_listed *l = lvx_lvm2_list; l->path; l++) {
            if (want && strcmp(l->path, want) != 0 &&
                !(strncmp(l->path, want, wl) == 0 && l->path[wl] == '/'))
                continue;
            found = true;
            if (basic && l->advanced)
                continue;
            lvx_buf_puts(b, l->path);
            if (versions)
                lvx_buf_printf(b, " - [%s]", l->since);
            lvx_buf_putc(b, '\n');
        }
        if (want && !found) {
            lvx_cmd_errorf("Configuration node %s not found", want);
            rc = LVX_EXIT_FAILED;
        }
    }
    return rc;
}

/* ---- --type full: LVM2's merge of the current settings into its defaults -------------
 * LVM2 merges the --config text into lvm.conf's tree (a setting lvm.conf has takes its
 * value there, a new one goes after the first line of its section), then that tree into
 * its full table of defaults, section by section, setting by setting: a setting leaves
 * its place and goes after the first line of its section (so the last one merged comes
 * first).  Settings and sections LVM2 does not know are left out, as LVM2's. */

struct fitem {
    const char *key, *text;                 /* text: LVM2's default line */
    const struct lvx_cfg_node *node;        /* or the current setting */
    struct fitem *next;
};

struct fsec {
    const char *key;
    struct fitem *items;
};

static void full_move_first(struct fsec *sec, const struct lvx_cfg_node *n)
{
    struct fitem **pp = &sec->items;
    while (*pp && strcmp((*pp)->key, n->key) != 0)
        pp = &(*pp)->next;
    struct fitem *it = *pp;
    if (!it)
        return;                             /* not one of LVM2's: left out */
    *pp = it->next;
    it->node = n;
    it->text = NULL;
    if (!sec->items) {
        it->next = NULL;
        sec->items = it;
    } else {
        it->next = sec->items->next;
        sec->items->next = it;
    }
}

/* The --config text over lvm.conf's tree (in pool), as LVM2 merges them. */
static struct lvx_cfg_node *full_current(struct lvx_pool *pool, struct lvx_cfg_node *file,
                                         const struct lvx_cfg_node *text)
{
    struct lvx_cfg_node *t = lvx_cfg_new(pool, NULL, NULL, LVX_CFG_SECTION);
    lvx_config_merge(pool, t, file);          /* a copy to change */
    for (const struct lvx_cfg_node *c = text ? text->child : NULL; c; c = c->next) {
        struct lvx_cfg_node *sec = NULL;
        for (struct lvx_cfg_node *f = t->child; f && !sec; f = f->next)
            if (f->key && c->key && f->kind == LVX_CFG_SECTION && strcmp(f->key, c->key) == 0)
                sec = f;
        if (!sec || c->kind != LVX_CFG_SECTION || !sec->child) {
            struct lvx_cfg_node *one = lvx_cfg_new(pool, NULL, NULL, LVX_CFG_SECTION);
            one->child = one->last_child = (struct lvx_cfg_node *)c;
            struct lvx_cfg_node *keep = c->next;
            ((struct lvx_cfg_node *)c)->next = NULL;
            lvx_config_merge(pool, t, one);
            ((struct lvx_cfg_node *)c)->next = keep;
            continue;
        }
        for (const struct lvx_cfg_node *k = c->child; k; k = k->next) {
            if (!k->key)
                continue;
            struct lvx_cfg_node **pp = &sec->child;
            while (*pp && !((*pp)->key && strcmp((*pp)->key, k->key) == 0))
                pp = &(*pp)->next;
            struct lvx_cfg_node *n = lvx_pool_alloc(pool, sizeof(*n));
            *n = *k;
            n->parent = sec;
            if (*pp) {                           /* in place */
                n->next = (*pp)->next;
                if (sec->last_child == *pp)
                    sec->last_child = n;
                *pp = n;
            } else {                             /* after the first line */
                n->next = sec->child->next;
                sec->child->next = n;
                if (sec->last_child == sec->child)
                    sec->last_child = n;
            }
        }
    }
    return t;
}

static void full_merge(struct fsec *secs, unsigned nsec, const struct lvx_cfg_node *root)
{
    for (const struct lvx_cfg_node *c = root ? root->child : NULL; c; c = c->next) {
        if (c->kind != LVX_CFG_SECTION || !c->key)
            continue;
        struct fsec *sec = NULL;
        for (unsigned i = 0; i < nsec && !sec; i++)
            if (strcmp(secs[i].key, c->key) == 0)
                sec = &secs[i];
        if (!sec)
            continue;
        const struct lvx_cfg_node *kids[512];
        unsigned n = 0;
        for (const struct lvx_cfg_node *k = c->child; k && n < 512; k = k->next)
            if (k->kind != LVX_CFG_SECTION && k->key)
                kids[n++] = k;
        for (unsigned i = 0; i < n; i++)
            full_move_first(sec, kids[i]);
    }
}

static void full_item(struct lvx_buf *b, const struct fitem *it, int depth)
{
    indent(b, depth);
    if (!it->text) {
        lvx_buf_printf(b, "%s=", it->key);
        print_value(b, it->node);
        lvx_buf_putc(b, '\n');
        return;
    }
    table_text(b, it->text);
}

static int full_print(struct lvx_cmd_env *env, struct lvx_buf *b)
{
    struct fsec secs[64];
    unsigned nsec = 0;
    struct fitem **tail = NULL;
    for (const struct lvx_lvm2_line *l = lvx_lvm2_full_tree; l->kind; l++) {
        if (l->kind == 'o' && l->depth == 0 && nsec < 64) {
            secs[nsec] = (struct fsec){ .key = l->key };
            tail = &secs[nsec++].items;
        } else if (l->kind == 's' && l->depth == 1 && tail) {
            struct fitem *it = lvx_pool_alloc(env->pool, sizeof(*it));
            *it = (struct fitem){ .key = l->key, .text = l->text };
            *tail = it;
            tail = &it->next;
        }
    }
    /* lvm.conf alone, then the --config text */
    struct lvx_ctx *ctx = env->ctx;
    const char *over = ctx->config_override, *prof = ctx->config_profile;
    ctx->config_override = NULL;
    ctx->config_profile = NULL;
    struct lvx_config *file = NULL;
    int r = lvx_config_load(ctx, &file);
    ctx->config_override = over;
    ctx->config_profile = prof;
    if (r < 0)
        return lvx_cmd_fail(env);
    struct lvx_cfg_node *text = NULL, *t = NULL;
    if (over && lvx_cfg_parse(ctx, env->pool, over, strlen(over), &text) == 0) {
        /* "log/verbose=1" forms become sections, as the configuration load makes them */
        t = lvx_cfg_new(env->pool, NULL, NULL, LVX_CFG_SECTION);
        lvx_config_merge(env->pool, t, text);
    }
    lvx_error_clear(ctx);
    struct lvx_cfg_node *empty = lvx_cfg_new(env->pool, NULL, NULL, LVX_CFG_SECTION);
    full_merge(secs, nsec, full_current(env->pool, file->root ? file->root : empty, t));

    int rc = 0;
    for (int a = 0; a < (env->args->argc ? env->args->argc : 1); a++) {
        const char *want = env->args->argc ? env->args->argv[a] : NULL;
        const char *slash = want ? strchr(want, '/') : NULL;
        bool found = false;
        for (unsigned i = 0; i < nsec; i++) {
            size_t kl = slash ? (size_t)(slash - want) : want ? strlen(want) : 0;
            if (want && (strlen(secs[i].key) != kl || strncmp(secs[i].key, want, kl) != 0))
                continue;
            if (slash) {
                for (const struct fitem *it = secs[i].items; it; it = it->next)
                    if (strcmp(it->key, slash + 1) == 0) {
                        full_item(b, it, 0);
                        found = true;
                    }
                continue;
            }
            found = true;
            lvx_buf_printf(b, "%s {\n", secs[i].key);
            for (const struct fitem *it = secs[i].items; it; it = it->next)
                full_item(b, it, 1);
            lvx_buf_puts(b, "}\n");
        }
        if (want && !found) {
            lvx_cmd_errorf("Configuration node %s not found", want);
            rc = LVX_EXIT_FAILED;
        }
    }
    lvx_config_free(file);
    return rc;
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
    if (env->args->count[LVX_OPT_MERGEDCONFIG] && type && strcmp(type, "current") != 0 &&
        strcmp(type, "full") != 0) {
        lvx_cmd_errorf("--mergedconfig has no effect without --type current or --type full");
        lvx_cmd_errorf("Run `lvmconfig --help' for more information.");
        lvx_config_free(cfg);
        return LVX_EXIT_INVALID;
    }
    /* LVM2's comment texts are its own prose (GPL): lvx prints none, and says so */
    const char *comments = env->args->count[LVX_OPT_WITHCOMMENTS] ? "--withcomments"
                           : env->args->count[LVX_OPT_WITHSUMMARY] ? "--withsummary" : NULL;
    if (comments && !(type && strcmp(type, "list") == 0))
        lvx_warn(env->ctx, "WARNING: %s: lvx has no comment texts for its settings; "
                 "printing them without.", comments);
    if (type && strcmp(type, "full") == 0) {
        struct lvx_buf fb = LVX_BUF_INIT;
        int frc = full_print(env, &fb);
        const char *ffile = env->args->value[LVX_OPT_FILE];
        int fout = ffile ? write_file(ffile, &fb) : lvx_cmd_output(&fb);
        lvx_buf_free(&fb);
        lvx_config_free(cfg);
        return frc ? frc : fout;
    }
    static const char *const table_types[] = {
        "default", "missing", "new", "profilable", "profilable-command", "profilable-metadata",
    };
    for (int m = 0; type && m < 6; m++)
        if (strcmp(type, table_types[m]) == 0 || (m == 0 && strcmp(type, "list") == 0)) {
            struct lvx_buf tb = LVX_BUF_INIT;
            int trc = strcmp(type, "list") == 0 ? l2_print_list(env, &tb)
                                                 : l2_print_tree(env, cfg, (enum l2_mode)m, &tb);
            const char *tfile = env->args->value[LVX_OPT_FILE];
            int tout = tfile ? write_file(tfile, &tb) : lvx_cmd_output(&tb);
            lvx_buf_free(&tb);
            lvx_config_free(cfg);
            return trc ? trc : tout;
        }
    int rc = pick_tree(env, cfg, type, &tree, &commented);
    bool list = rc == 0 && type && strcmp(type, "list") == 0;
    struct lvx_buf b = LVX_BUF_INIT;
    for (int i = 0; rc == 0 && i < env->args->argc; i++) {
        const struct lvx_cfg_node *n = lvx_cfg_find_path(tree, env->args->argv[i]);
        if (!n) {
            lvx_cmd_errorf("Configuration node %s not found", env->args->argv[i]);
            rc = LVX_EXIT_FAILED;
            continue;
        }
        if (list) {
            const char *slash = strrchr(env->args->argv[i], '/');
            char parent[512];
            snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - env->args->argv[i]) : 0,
                     env->args->argv[i]);
            print_list(&b, n, parent);
        } else {
            print_node(&b, n, 0, commented);
        }
    }
    if (rc == 0 && env->args->argc == 0)
        for (const struct lvx_cfg_node *c = tree->child; c; c = c->next) {
            if (list)
                print_list(&b, c, "");
            else
                print_node(&b, c, 0, commented);
        }
    const char *file = env->args->value[LVX_OPT_FILE];
    int out = file ? write_file(file, &b) : lvx_cmd_output(&b);
    lvx_buf_free(&b);
    lvx_config_free(cfg);
    return rc ? rc : out;
}
