/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/cfg.h - the tree of LVM2's text syntax (lvm2-format.md §9): VG metadata
 * on disk, backup/archive files and lvm.conf all use it.
 *
 * A tree is made of nodes living in one pool.  A SECTION node has items (child
 * list: sections and assignments); an assignment is a node with a key and a value
 * kind (INT, FLOAT, STRING, ARRAY); an ARRAY's children are its elements (key
 * NULL, kind INT/FLOAT/STRING).  The parser's root is an unnamed SECTION holding
 * the top-level items.
 *
 * Printing hints (comment, blank_before, per_line) let the exporter reproduce
 * LVM2's layout byte for byte; the parser leaves them 0/NULL except per_line,
 * which it does not set either (the exporter knows which arrays are area lists).
 *
 * Entry points: lvx_cfg_parse(), lvx_cfg_print(), lookups lvx_cfg_find*() and the
 * builders lvx_cfg_add_*().
 */
#ifndef LVX_FORMAT_CFG_H
#define LVX_FORMAT_CFG_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#include "util/ctx.h"
#include "util/pool.h"
#include "util/buf.h"

enum lvx_cfg_kind {
    LVX_CFG_SECTION,
    LVX_CFG_INT,
    LVX_CFG_FLOAT,
    LVX_CFG_STRING,
    LVX_CFG_ARRAY,
};

struct lvx_cfg_node {
    const char *key;               /* section or key name; NULL for array elements and the root */
    enum lvx_cfg_kind kind;
    int64_t num;                   /* INT */
    double fnum;                   /* FLOAT */
    const char *str;               /* STRING: unescaped value */
    const char *float_text;        /* FLOAT: the text as written, reprinted verbatim */
    struct lvx_cfg_node *child;    /* SECTION items / ARRAY elements, in order */
    struct lvx_cfg_node *last_child;
    struct lvx_cfg_node *next;     /* next sibling */
    struct lvx_cfg_node *parent;
    int line;                      /* source line (1-based) when parsed, else 0 */

    /* printing hints */
    const char *comment;           /* FILE layout: trailing "# comment" (without the '#') */
    bool blank_before;             /* a blank line is printed before this item */
    unsigned per_line;             /* ARRAY: 0 = all on one line; N = N elements per line */
};

/* Parse text (stops at len or the first NUL).  *root is an unnamed SECTION.
 * Errors carry the line number: "Parse error at line 12: ...". */
int lvx_cfg_parse(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *text,
                  size_t len, struct lvx_cfg_node **root);

enum lvx_cfg_layout {
    LVX_CFG_LAYOUT_RAW,    /* on-disk: no indentation, no comments */
    LVX_CFG_LAYOUT_FILE,   /* backup/archive: TAB indentation, trailing comments aligned as LVM2 does */
};

/* Print a list of items (node and its following siblings) at the given depth. */
void lvx_cfg_print_items(struct lvx_buf *out, const struct lvx_cfg_node *first,
                         enum lvx_cfg_layout layout, int depth);
/* Print one node (section or assignment) at the given depth. */
void lvx_cfg_print_node(struct lvx_buf *out, const struct lvx_cfg_node *node,
                        enum lvx_cfg_layout layout, int depth);
/* Append a string value quoted and escaped as LVM2 writes it ("a\"b"). */
void lvx_cfg_print_quoted(struct lvx_buf *out, const char *s);

/* Lookups (direct children only; first match wins, as LVM2). */
struct lvx_cfg_node *lvx_cfg_find(const struct lvx_cfg_node *section, const char *key);
/* A path "a/b/c" through nested sections. */
struct lvx_cfg_node *lvx_cfg_find_path(const struct lvx_cfg_node *section, const char *path);
/* Typed getters: return 0 on success, -ENOENT when absent, -EINVAL on wrong type. */
int lvx_cfg_get_int(const struct lvx_cfg_node *section, const char *key, int64_t *out);
int lvx_cfg_get_str(const struct lvx_cfg_node *section, const char *key, const char **out);
unsigned lvx_cfg_array_len(const struct lvx_cfg_node *array);
const struct lvx_cfg_node *lvx_cfg_array_at(const struct lvx_cfg_node *array, unsigned i);

/* Builders: create a node appended to parent (parent may be NULL for a detached node). */
struct lvx_cfg_node *lvx_cfg_new(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                 const char *key, enum lvx_cfg_kind kind);
struct lvx_cfg_node *lvx_cfg_add_section(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                         const char *key);
struct lvx_cfg_node *lvx_cfg_add_int(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                     const char *key, int64_t value);
struct lvx_cfg_node *lvx_cfg_add_str(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                     const char *key, const char *value);
struct lvx_cfg_node *lvx_cfg_add_array(struct lvx_pool *pool, struct lvx_cfg_node *parent,
                                       const char *key);
/* Append an element to an array node. */
struct lvx_cfg_node *lvx_cfg_array_add_int(struct lvx_pool *pool, struct lvx_cfg_node *array,
                                           int64_t value);
struct lvx_cfg_node *lvx_cfg_array_add_str(struct lvx_pool *pool, struct lvx_cfg_node *array,
                                           const char *value);
/* Deep copy of a node (and its children) into pool, detached (parent/next NULL). */
struct lvx_cfg_node *lvx_cfg_clone(struct lvx_pool *pool, const struct lvx_cfg_node *node);
/* Append a detached node to a section/array. */
void lvx_cfg_append(struct lvx_cfg_node *parent, struct lvx_cfg_node *child);
/* Structural equality (keys, kinds, values, order; printing hints ignored). */
bool lvx_cfg_equal(const struct lvx_cfg_node *a, const struct lvx_cfg_node *b);

#endif
