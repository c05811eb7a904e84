/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/cfg_tree.c - building, searching, copying and comparing cfg trees
 * (cfg.h).  Nodes live in a pool; children are a singly linked list with a
 * last_child pointer so appending is O(1).
 *
 * Entry points: lvx_cfg_new(), lvx_cfg_add_*(), lvx_cfg_array_add_*(),
 * lvx_cfg_append(), lvx_cfg_find(), lvx_cfg_find_path(), lvx_cfg_get_*(),
 * lvx_cfg_array_len(), lvx_cfg_array_at(), lvx_cfg_clone(), lvx_cfg_equal().
 */
#include "format/cfg.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void lvx_cfg_append(struct lvx_cfg_node *parent, struct lvx_cfg_node *child)
{
    child->parent = parent;
    child->next = NULL;
    if (parent->last_child)
        parent->last_child->next = child;
    else
        parent->child = child;
    parent->last_child = child;
}

struct lvx_cfg_node *lvx_cfg_new(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                 const char *key, enum lvx_cfg_kind kind)
{
    struct lvx_cfg_node *n = lvx_pool_alloc(pool, sizeof(*n));
    n->key = key ? lvx_pool_strdup(pool, key) : NULL;
    n->kind = kind;
    if (parent)
        lvx_cfg_append(parent, n);
    return n;
}

struct lvx_cfg_node *lvx_cfg_add_section(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                         const char *key)
{
    return lvx_cfg_new(pool, parent, key, LVX_CFG_SECTION);
}

struct lvx_cfg_node *lvx_cfg_add_int(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                     const char *key, int64_t value)
{
    struct lvx_cfg_node *n = lvx_cfg_new(pool, parent, key, LVX_CFG_INT);
    n->num = value;
    return n;
}

struct lvx_cfg_node *lvx_cfg_add_str(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                     const char *key, const char *value)
{
    struct lvx_cfg_node *n = lvx_cfg_new(pool, parent, key, LVX_CFG_STRING);
    n->str = lvx_pool_strdup(pool, value ? value : "");
    return n;
}

struct lvx_cfg_node *lvx_cfg_add_array(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                       const char *key)
{
    return lvx_cfg_new(pool, parent, key, LVX_CFG_ARRAY);
}

struct lvx_cfg_node *lvx_cfg_array_add_int(struct lvx_pool *pool, struct lvx_cfg_node *array,
                                           int64_t value)
{
    return lvx_cfg_add_int(pool, array, NULL, value);
}

struct lvx_cfg_node *lvx_cfg_array_add_str(struct lvx_pool *pool, struct lvx_cfg_node *array,
                                           const char *value)
{
    return lvx_cfg_add_str(pool, array, NULL, value);
}

struct lvx_cfg_node *lvx_cfg_find(const struct lvx_cfg_node *section, const char *key)
{
    if (!section || section->kind != LVX_CFG_SECTION)
        return NULL;
    for (struct lvx_cfg_node *n = section->child; n; n = n->next)
        if (n->key && strcmp(n->key, key) == 0)
            return n;
    return NULL;
}

/* First child whose key is exactly the `len` bytes at `name`. */
static struct lvx_cfg_node *find_n(const struct lvx_cfg_node *section, const char *name,
                                   size_t len)
{
    if (!section || section->kind != LVX_CFG_SECTION)
        return NULL;
    for (struct lvx_cfg_node *n = section->child; n; n = n->next)
        if (n->key && strncmp(n->key, name, len) == 0 && n->key[len] == '\0')
            return n;
    return NULL;
}

struct lvx_cfg_node *lvx_cfg_find_path(const struct lvx_cfg_node *section, const char *path)
{
    struct lvx_cfg_node *n = NULL;
    const struct lvx_cfg_node *cur = section;
    for (;;) {
        const char *slash = strchr(path, '/');
        size_t len = slash ? (size_t)(slash - path) : strlen(path);
        n = find_n(cur, path, len);
        if (!n || !slash)
            return n;
        cur = n;
        path = slash + 1;
    }
}

int lvx_cfg_get_int(const struct lvx_cfg_node *section, const char *key, int64_t *out)
{
    const struct lvx_cfg_node *n = lvx_cfg_find(section, key);
    if (!n)
        return -ENOENT;
    if (n->kind != LVX_CFG_INT)
        return -EINVAL;
    *out = n->num;
    return 0;
}

int lvx_cfg_get_str(const struct lvx_cfg_node *section, const char *key, const char **out)
{
    const struct lvx_cfg_node *n = lvx_cfg_find(section, key);
    if (!n)
        return -ENOENT;
    if (n->kind != LVX_CFG_STRING)
        return -EINVAL;
    *out = n->str;
    return 0;
}

unsigned lvx_cfg_array_len(const struct lvx_cfg_node *array)
{
    unsigned count = 0;
    if (!array || array->kind != LVX_CFG_ARRAY)
        return 0;
    for (const struct lvx_cfg_node *n = array->child; n; n = n->next)
        count++;
    return count;
}

const struct lvx_cfg_node *lvx_cfg_array_at(const struct lvx_cfg_node *array, unsigned i)
{
    if (!array || array->kind != LVX_CFG_ARRAY)
        return NULL;
    const struct lvx_cfg_node *n = array->child;
    while (n && i--)
        n = n->next;
    return n;
}

/* Copy the node's own fields (value and hints), not its links. */
static struct lvx_cfg_node *clone_one(struct lvx_pool *pool, const struct lvx_cfg_node *src)
{
    struct lvx_cfg_node *n = lvx_pool_alloc(pool, sizeof(*n));
    *n = *src;
    n->key = src->key ? lvx_pool_strdup(pool, src->key) : NULL;
    n->str = src->str ? lvx_pool_strdup(pool, src->str) : NULL;
    n->float_text = src->float_text ? lvx_pool_strdup(pool, src->float_text) : NULL;
    n->comment = src->comment ? lvx_pool_strdup(pool, src->comment) : NULL;
    n->heading = src->heading ? lvx_pool_strdup(pool, src->heading) : NULL;
    n->child = n->last_child = n->next = n->parent = NULL;
    return n;
}

struct lvx_cfg_node *lvx_cfg_clone(struct lvx_pool *pool, const struct lvx_cfg_node *node)
{
    struct lvx_cfg_node *copy = clone_one(pool, node);
    for (const struct lvx_cfg_node *c = node->child; c; c = c->next)
        lvx_cfg_append(copy, lvx_cfg_clone(pool, c));
    return copy;
}

static bool str_equal(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static bool value_equal(const struct lvx_cfg_node *a, const struct lvx_cfg_node *b)
{
    switch (a->kind) {
    case LVX_CFG_INT:
        return a->num == b->num;
    case LVX_CFG_FLOAT:
        return a->fnum == b->fnum || (isnan(a->fnum) && isnan(b->fnum));
    case LVX_CFG_STRING:
        return str_equal(a->str, b->str);
    case LVX_CFG_SECTION:
    case LVX_CFG_ARRAY:
        return true;
    }
    return false;
}

bool lvx_cfg_equal(const struct lvx_cfg_node *a, const struct lvx_cfg_node *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind || !str_equal(a->key, b->key) || !value_equal(a, b))
        return false;
    const struct lvx_cfg_node *ca = a->child, *cb = b->child;
    for (; ca && cb; ca = ca->next, cb = cb->next)
        if (!lvx_cfg_equal(ca, cb))
            return false;
    return !ca && !cb;
}
