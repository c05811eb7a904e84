/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config/config.c - loading lvm.conf, merging --config over it, looking up settings,
 * the device filter and the defaults (see config.h).
 */
#include "config/config.h"
#include "dev/filter.h"
#include "util/file.h"
#include "util/phase.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *lvx_config_system_dir(void)
{
    const char *d = getenv("LVM_SYSTEM_DIR");
    return d && *d ? d : "/etc/lvm";
}

/* ---- merging ----------------------------------------------------------------------- */

static struct lvx_cfg_node *find_child(struct lvx_cfg_node *section, const char *key,
                                       size_t keylen)
{
    for (struct lvx_cfg_node *n = section->child; n; n = n->next)
        if (n->key && strlen(n->key) == keylen && strncmp(n->key, key, keylen) == 0)
            return n;
    return NULL;
}

/* Remove a child from its section. */
static void unlink_child(struct lvx_cfg_node *section, struct lvx_cfg_node *child)
{
    struct lvx_cfg_node **pp = &section->child, *prev = NULL;
    while (*pp && *pp != child) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (!*pp)
        return;
    *pp = child->next;
    if (section->last_child == child)
        section->last_child = prev;
    child->next = NULL;
    child->parent = NULL;
}

/* Put node where old was (same position in the section). */
static void replace_child(struct lvx_cfg_node *section, struct lvx_cfg_node *old,
                          struct lvx_cfg_node *node)
{
    struct lvx_cfg_node **pp = &section->child;
    while (*pp && *pp != old)
        pp = &(*pp)->next;
    if (!*pp)
        return;
    node->next = old->next;
    node->parent = section;
    *pp = node;
    if (section->last_child == old)
        section->last_child = node;
    old->next = NULL;
    old->parent = NULL;
}

/* The section for the first part of a "a/b/c" key (created when missing); *rest gets
 * the remaining key. */
static struct lvx_cfg_node *section_for_path(struct lvx_pool *pool, struct lvx_cfg_node *dst,
                                             const char *key, const char **rest)
{
    const char *slash;
    while ((slash = strchr(key, '/')) != NULL) {
        struct lvx_cfg_node *s = find_child(dst, key, (size_t)(slash - key));
        if (!s || s->kind != LVX_CFG_SECTION) {
            if (s)
                unlink_child(dst, s);
            s = lvx_cfg_add_section(pool, dst, lvx_pool_strndup(pool, key, (size_t)(slash - key)));
        }
        dst = s;
        key = slash + 1;
    }
    *rest = key;
    return dst;
}

static void merge_item(struct lvx_pool *pool, struct lvx_cfg_node *dst,
                       const struct lvx_cfg_node *item)
{
    const char *key;
    struct lvx_cfg_node *section = section_for_path(pool, dst, item->key, &key);
    struct lvx_cfg_node *old = find_child(section, key, strlen(key));
    if (item->kind == LVX_CFG_SECTION && old && old->kind == LVX_CFG_SECTION) {
        lvx_config_merge(pool, old, item);
        return;
    }
    struct lvx_cfg_node *copy = lvx_cfg_clone(pool, item);
    copy->key = lvx_pool_strdup(pool, key);
    if (old)
        replace_child(section, old, copy);
    else
        lvx_cfg_append(section, copy);
}

void lvx_config_merge(struct lvx_pool *pool, struct lvx_cfg_node *dst,
                      const struct lvx_cfg_node *src)
{
    for (const struct lvx_cfg_node *item = src->child; item; item = item->next)
        if (item->key)
            merge_item(pool, dst, item);
}

/* The first item of an override that the merge would nest deeper than the parser
 * accepts: each "a/" of a key becomes a section (a 100 KiB "a/a/.../b=1" would otherwise
 * make a configuration of 50000 levels, printed by `lvx config` as gigabytes of TABs
 * that no parser reads back).  depth = sections around the items of `section`. */
static const struct lvx_cfg_node *too_deep(const struct lvx_cfg_node *section, int depth)
{
    for (const struct lvx_cfg_node *n = section->child; n; n = n->next) {
        int d = depth;
        for (const char *p = n->key ? n->key : ""; *p; p++)
            d += *p == '/';
        if (n->kind == LVX_CFG_SECTION)
            d++;
        if (d > LVX_CFG_MAX_DEPTH)
            return n;
        const struct lvx_cfg_node *deep = n->kind == LVX_CFG_SECTION ? too_deep(n, d) : NULL;
        if (deep)
            return deep;
    }
    return NULL;
}

static int deep_error(struct lvx_ctx *ctx, const struct lvx_cfg_node *deep)
{
    return lvx_error(ctx, EINVAL, "Parse error at line %d: nesting too deep (more than %d levels)",
                     deep->line, LVX_CFG_MAX_DEPTH);
}

/* Parse a --config text into pool; -EINVAL with "--config: <why>". */
static int parse_override(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *text,
                          struct lvx_cfg_node **out)
{
    int r = lvx_cfg_parse(ctx, pool, text, strlen(text), out);
    const struct lvx_cfg_node *deep = r == 0 ? too_deep(*out, 0) : NULL;
    if (deep)
        r = deep_error(ctx, deep);
    if (r < 0) {
        char why[sizeof(ctx->errmsg)];
        snprintf(why, sizeof(why), "%s", ctx->errmsg);
        return lvx_error(ctx, EINVAL, "--config: %s", why);
    }
    if (!(*out)->child)                 /* empty or only comments: LVM2 refuses it too */
        return lvx_error(ctx, EINVAL, "--config: the text holds no setting");
    return 0;
}

int lvx_config_check_override(struct lvx_ctx *ctx, const char *text)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_cfg_node *root = NULL;
    int r = parse_override(ctx, pool, text, &root);
    lvx_pool_destroy(pool);
    return r;
}

/* ---- loading ------------------------------------------------------------------------ */

static int merge_override(struct lvx_ctx *ctx, struct lvx_config *cfg, const char *text)
{
    struct lvx_cfg_node *over = NULL;
    if (parse_override(ctx, cfg->pool, text, &over) < 0)
        return -EINVAL;
    if (!cfg->root)
        cfg->root = lvx_cfg_new(cfg->pool, NULL, NULL, LVX_CFG_SECTION);
    lvx_config_merge(cfg->pool, cfg->root, over);
    return 0;
}

/* lvmlocal.conf beside lvm.conf (local/system_id, local/extra_system_ids, local/host_id),
 * merged over it as LVM2 does; a missing or unparsable one is no setting. */
static void merge_local(struct lvx_config *cfg)
{
    const char *path = lvx_pool_printf(cfg->pool, "%s/lvmlocal.conf", lvx_config_system_dir());
    size_t len = 0;
    char *text = lvx_pool_read_file(NULL, cfg->pool, path, LVX_FILE_MAX_CONFIG, &len);
    struct lvx_cfg_node *root = NULL;
    if (!text || lvx_cfg_parse(NULL, cfg->pool, text, len, &root) < 0 || !root ||
        too_deep(root, 0))
        return;
    if (!cfg->root)
        cfg->root = lvx_cfg_new(cfg->pool, NULL, NULL, LVX_CFG_SECTION);
    lvx_config_merge(cfg->pool, cfg->root, root);
}

/* The command profile LVM_COMMAND_PROFILE names ($LVM_SYSTEM_DIR/profile/NAME.profile, as
 * LVM2; lvm2-dbusd runs its shell with "lvmdbusd"): merged over lvm.conf, under --config.
 * A profile that is not there is no setting; one that does not parse fails as lvm.conf. */
static int merge_profile(struct lvx_ctx *ctx, struct lvx_config *cfg)
{
    const char *name = getenv("LVM_COMMAND_PROFILE");
    if (!name || !*name || strchr(name, '/'))
        return 0;
    const char *path = lvx_pool_printf(cfg->pool, "%s/profile/%s.profile",
                                       lvx_config_system_dir(), name);
    size_t len = 0;
    char *text = lvx_pool_read_file(ctx, cfg->pool, path, LVX_FILE_MAX_CONFIG, &len);
    struct lvx_cfg_node *root = NULL;
    if (!text) {
        lvx_error_clear(ctx);
        return 0;
    }
    if (lvx_cfg_parse(ctx, cfg->pool, text, len, &root) < 0 || too_deep(root, 0)) {
        lvx_error(ctx, EINVAL, "%s: cannot be parsed", path);
        return -EINVAL;
    }
    if (!cfg->root)
        cfg->root = lvx_cfg_new(cfg->pool, NULL, NULL, LVX_CFG_SECTION);
    lvx_config_merge(cfg->pool, cfg->root, root);
    return 0;
}

static int lvx_config_load_unt(struct lvx_ctx *ctx, struct lvx_config **out)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_config *cfg = lvx_pool_alloc(pool, sizeof(*cfg));
    cfg->pool = pool;
    cfg->path = lvx_pool_printf(pool, "%s/lvm.conf", lvx_config_system_dir());
    size_t len = 0;
    /* a missing lvm.conf is no configuration (as LVM2); anything else that cannot be
     * read whole (not a regular file, larger than the cap) fails as a parse error does */
    char *text = lvx_pool_read_file(ctx, pool, cfg->path, LVX_FILE_MAX_CONFIG, &len);
    if (!text && errno != ENOENT) {
        lvx_pool_destroy(pool);
        return -EINVAL;
    }
    if (!text)
        lvx_error_clear(ctx);
    if (text) {
        int r = lvx_cfg_parse(ctx, pool, text, len, &cfg->root);
        const struct lvx_cfg_node *deep = r == 0 ? too_deep(cfg->root, 0) : NULL;
        if (deep)
            r = deep_error(ctx, deep);   /* `a/b` keys are split when merged (--type full) */
        if (r < 0) {
            char why[sizeof(ctx->errmsg)];
            snprintf(why, sizeof(why), "%s", ctx->errmsg);
            lvx_error(ctx, EINVAL, "%s: %s", cfg->path, why);
            lvx_pool_destroy(pool);
            return -EINVAL;
        }
    }
    merge_local(cfg);
    if (lvx_config_host_tags(ctx, cfg) < 0) {
        lvx_pool_destroy(pool);
        return -EINVAL;
    }
    /* a command profile (--commandprofile/--profile, else LVM_COMMAND_PROFILE) goes over
     * lvm.conf, --config over both */
    if ((ctx->config_profile ? merge_override(ctx, cfg, ctx->config_profile) < 0
                             : merge_profile(ctx, cfg) < 0) ||
        (ctx->config_override && merge_override(ctx, cfg, ctx->config_override) < 0)) {
        lvx_pool_destroy(pool);
        return -EINVAL;
    }
    *out = cfg;
    return 0;
}

int lvx_config_load(struct lvx_ctx *ctx, struct lvx_config **out)
{
    uint64_t t = lvx_phase_start();
    int rc = lvx_config_load_unt(ctx, out);
    lvx_phase_end("config", t);
    return rc;
}

void lvx_config_free(struct lvx_config *cfg)
{
    if (cfg)
        lvx_pool_destroy(cfg->pool);
}

const struct lvx_cfg_node *lvx_config_node(const struct lvx_config *cfg, const char *path)
{
    if (!cfg || !cfg->root)
        return NULL;
    return lvx_cfg_find_path(cfg->root, path);
}

int64_t lvx_config_int(const struct lvx_config *cfg, const char *path, int64_t dflt)
{
    const struct lvx_cfg_node *n = lvx_config_node(cfg, path);
    return n && n->kind == LVX_CFG_INT ? n->num : dflt;
}

bool lvx_config_flag(struct lvx_ctx *ctx, const char *path, bool dflt)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return dflt;
    }
    bool on = lvx_config_int(cfg, path, dflt) != 0;
    lvx_config_free(cfg);
    return on;
}

const char *lvx_config_str(const struct lvx_config *cfg, const char *path, const char *dflt)
{
    const struct lvx_cfg_node *n = lvx_config_node(cfg, path);
    return n && n->kind == LVX_CFG_STRING ? n->str : dflt;
}

/* ---- device filter ------------------------------------------------------------------ */

static int add_patterns(struct lvx_ctx *ctx, const struct lvx_config *cfg, const char *path,
                        struct lvx_filter **f)
{
    const struct lvx_cfg_node *n = lvx_config_node(cfg, path);
    if (!n)
        return 0;
    if (n->kind == LVX_CFG_STRING)
        return lvx_filter_add(ctx, f, n->str) < 0 ? -EINVAL : 0;
    if (n->kind != LVX_CFG_ARRAY)
        return lvx_error(ctx, EINVAL, "%s must be an array of strings", path);
    for (const struct lvx_cfg_node *e = n->child; e; e = e->next) {
        if (e->kind != LVX_CFG_STRING)
            return lvx_error(ctx, EINVAL, "%s must be an array of strings", path);
        if (lvx_filter_add(ctx, f, e->str) < 0) {
            char why[sizeof(ctx->errmsg)];
            snprintf(why, sizeof(why), "%s", ctx->errmsg);
            return lvx_error(ctx, EINVAL, "%s: %s", path, why);
        }
    }
    return 0;
}

int lvx_config_device_filter(struct lvx_ctx *ctx, const struct lvx_config *cfg,
                             struct lvx_filter **out)
{
    struct lvx_filter *global = NULL, *local = NULL;
    *out = NULL;
    int r = add_patterns(ctx, cfg, "devices/global_filter", &global);
    if (r == 0)
        r = add_patterns(ctx, cfg, "devices/filter", &local);
    if (r < 0) {
        lvx_filter_free(global);
        lvx_filter_free(local);
        return r;
    }
    /* two lists, each deciding on its own: a device must pass both */
    *out = lvx_filter_chain(global, local);
    return 0;
}

/* ---- devices file ------------------------------------------------------------------- */

const char *lvx_config_devices_file(const struct lvx_ctx *ctx, const struct lvx_config *cfg,
                                    struct lvx_pool *pool)
{
    const char *name = ctx->devices_file;
    if (!name) {
        if (!lvx_config_int(cfg, "devices/use_devicesfile", 0))
            return NULL;
        name = lvx_config_str(cfg, "devices/devicesfile", "system.devices");
    }
    if (!name[0])
        return NULL;
    return lvx_pool_printf(pool, "%s/devices/%s", lvx_config_system_dir(), name);
}

/* ---- defaults ----------------------------------------------------------------------- */

struct lvx_cfg_node *lvx_config_defaults(struct lvx_pool *pool)
{
    const char *sys = lvx_config_system_dir();
    struct lvx_cfg_node *root = lvx_cfg_new(pool, NULL, NULL, LVX_CFG_SECTION);
    struct lvx_cfg_node *s = lvx_cfg_add_section(pool, root, "devices");
    lvx_cfg_array_add_str(pool, lvx_cfg_add_array(pool, s, "scan"), "/dev");
    lvx_cfg_add_int(pool, s, "obtain_device_list_from_udev", 0);   /* lvx lists /proc/partitions */
    lvx_cfg_array_add_str(pool, lvx_cfg_add_array(pool, s, "filter"), "a|.*|");
    lvx_cfg_array_add_str(pool, lvx_cfg_add_array(pool, s, "global_filter"), "a|.*|");
    lvx_cfg_add_int(pool, s, "use_devicesfile", 0);
    lvx_cfg_add_str(pool, s, "devicesfile", "system.devices");
    s = lvx_cfg_add_section(pool, root, "backup");
    lvx_cfg_add_int(pool, s, "backup", 1);
    lvx_cfg_add_str(pool, s, "backup_dir", lvx_pool_printf(pool, "%s/backup", sys));
    lvx_cfg_add_int(pool, s, "archive", 1);
    lvx_cfg_add_str(pool, s, "archive_dir", lvx_pool_printf(pool, "%s/archive", sys));
    lvx_cfg_add_int(pool, s, "retain_min", 10);
    lvx_cfg_add_int(pool, s, "retain_days", 30);
    s = lvx_cfg_add_section(pool, root, "global");
    lvx_cfg_add_int(pool, s, "activation", 1);
    s = lvx_cfg_add_section(pool, root, "lvx");
    lvx_cfg_add_str(pool, s, "activation_backend", "dm");
    return root;
}
