/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config/host_tags.c - LVM2's host tags and the configuration files they bring in
 * (see config/config.h).  lvm.conf's `tags` section gives this host its tags:
 * tags/hosttags = 1 gives the host name (uname's nodename); each subsection NAME or
 * @NAME gives the tag NAME, unless it has a host_list that does not name this host (an
 * empty host_list names none).  For every tag, in the order found, lvm_TAG.conf beside
 * lvm.conf is read when it exists; its own `tags` section adds tags (and their files)
 * the same way.  The files are merged over lvm.conf and lvmlocal.conf in that order,
 * in LVM2's order of items (merge_tag_file), except their `tags` sections; once a `tags` section was seen the merged configuration
 * has none, as LVM2's (its dumpconfig does not show it).  An invalid tag name or a
 * host_list entry that is not a string fails the load with LVM2's line.
 */
#include "config/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "model/model.h"
#include "util/file.h"

static bool have_tag(const struct lvx_config *cfg, const char *tag)
{
    for (unsigned i = 0; i < cfg->host_tag_count; i++)
        if (strcmp(cfg->host_tags[i], tag) == 0)
            return true;
    return false;
}

static void add_tag(struct lvx_config *cfg, const char *tag)
{
    if (have_tag(cfg, tag))
        return;
    const char **grown = lvx_pool_alloc(cfg->pool, (cfg->host_tag_count + 1) * sizeof(*grown));
    if (cfg->host_tag_count)
        memcpy(grown, cfg->host_tags, cfg->host_tag_count * sizeof(*grown));
    grown[cfg->host_tag_count++] = lvx_pool_strdup(cfg->pool, tag);
    cfg->host_tags = grown;
}

/* Does the tag's subsection let this host have it?  1 yes, 0 no, -EINVAL (error set). */
static int host_listed(struct lvx_ctx *ctx, const struct lvx_cfg_node *sub, const char *host)
{
    const struct lvx_cfg_node *list = lvx_cfg_find(sub, "host_list");
    if (!list)
        return 1;
    if (list->kind == LVX_CFG_STRING)
        return strcmp(list->str, host) == 0;
    if (list->kind != LVX_CFG_ARRAY)
        return lvx_error(ctx, EINVAL, "Invalid hostname string for tag host_list");
    for (const struct lvx_cfg_node *v = list->child; v; v = v->next) {
        if (v->kind != LVX_CFG_STRING)
            return lvx_error(ctx, EINVAL, "Invalid hostname string for tag host_list");
        if (strcmp(v->str, host) == 0)
            return 1;
    }
    return 0;
}

/* The tags a tree's `tags` section gives this host, added to cfg's list. */
static int tags_of(struct lvx_ctx *ctx, struct lvx_config *cfg, const struct lvx_cfg_node *root,
                   const char *host)
{
    const struct lvx_cfg_node *tags = root ? lvx_cfg_find(root, "tags") : NULL;
    if (!tags || tags->kind != LVX_CFG_SECTION)
        return 0;
    int64_t hosttags = 0;
    if (lvx_cfg_get_int(tags, "hosttags", &hosttags) == 0 && hosttags)
        add_tag(cfg, host);
    for (const struct lvx_cfg_node *n = tags->child; n; n = n->next) {
        if (n->kind != LVX_CFG_SECTION)
            continue;
        const char *tag = n->key[0] == '@' ? n->key + 1 : n->key;
        if (!lvx_tag_valid(tag))
            return lvx_error(ctx, EINVAL, "Invalid tag in config file: %s", n->key);
        int ok = host_listed(ctx, n, host);
        if (ok < 0)
            return ok;
        if (ok)
            add_tag(cfg, tag);
    }
    return 0;
}

/* Merge src's items into the section dst as LVM2 merges a tag's file: a section that
 * exists is merged item by item, a value replaces the old one in its place, and an item
 * dst lacks goes right after dst's first item (LVM2's order, which `dumpconfig` shows).
 * The top level is kept in file order (cmd/config_cmd.c prints it as LVM2 orders it,
 * first then the others reversed), so a new section goes last there. */
static void merge_tag_file(struct lvx_pool *pool, struct lvx_cfg_node *dst,
                           const struct lvx_cfg_node *src, bool top)
{
    for (const struct lvx_cfg_node *item = src->child; item; item = item->next) {
        if (!item->key)
            continue;
        struct lvx_cfg_node *old = lvx_cfg_find(dst, item->key);
        if (old && old->kind == LVX_CFG_SECTION && item->kind == LVX_CFG_SECTION) {
            merge_tag_file(pool, old, item, false);
            continue;
        }
        struct lvx_cfg_node *copy = lvx_cfg_clone(pool, item);
        copy->parent = dst;
        struct lvx_cfg_node **at = &dst->child;
        if (old) {
            while (*at != old)
                at = &(*at)->next;
            copy->next = old->next;
        } else if (top) {
            while (*at)
                at = &(*at)->next;
            copy->next = NULL;
        } else if (*at) {
            at = &(*at)->next;
            copy->next = *at;
        } else {
            copy->next = NULL;
        }
        *at = copy;
        if (!copy->next)
            dst->last_child = copy;
    }
}

/* root without its `tags` section. */
static void drop_tags(struct lvx_cfg_node *root)
{
    struct lvx_cfg_node **p = &root->child, *prev = NULL;
    while (*p) {
        if ((*p)->key && strcmp((*p)->key, "tags") == 0) {
            if (root->last_child == *p)
                root->last_child = prev;
            *p = (*p)->next;
            continue;
        }
        prev = *p;
        p = &(*p)->next;
    }
}

int lvx_config_host_tags(struct lvx_ctx *ctx, struct lvx_config *cfg)
{
    if (!cfg->root || !lvx_cfg_find(cfg->root, "tags"))
        return 0;
    struct utsname u;
    const char *host = uname(&u) == 0 ? lvx_pool_strdup(cfg->pool, u.nodename) : "";
    int rc = tags_of(ctx, cfg, cfg->root, host);
    drop_tags(cfg->root);
    for (unsigned i = 0; rc == 0 && i < cfg->host_tag_count; i++) {   /* the list grows */
        const char *path = lvx_pool_printf(cfg->pool, "%s/lvm_%s.conf", lvx_config_system_dir(),
                                           cfg->host_tags[i]);
        size_t len = 0;
        char *text = lvx_pool_read_file(ctx, cfg->pool, path, LVX_FILE_MAX_CONFIG, &len);
        if (!text) {
            if (errno != ENOENT)
                return -EINVAL;
            lvx_error_clear(ctx);
            continue;
        }
        struct lvx_cfg_node *root = NULL;
        if (lvx_cfg_parse(ctx, cfg->pool, text, len, &root) < 0) {
            char why[sizeof(ctx->errmsg)];
            snprintf(why, sizeof(why), "%s", ctx->errmsg);
            return lvx_error(ctx, EINVAL, "%s: %s", path, why);
        }
        if (!root)
            continue;
        if ((rc = tags_of(ctx, cfg, root, host)) < 0)
            break;
        drop_tags(root);
        merge_tag_file(cfg->pool, cfg->root, root, true);
    }
    return rc;
}

bool lvx_config_is_host_tag(const struct lvx_config *cfg, const char *tag)
{
    return cfg && have_tag(cfg, tag);
}
