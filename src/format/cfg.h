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
 * Printing hints (heading, comment, comment_tight, blank_before, blank_before_close,
 * per_line) let the exporter reproduce LVM2's layout byte for byte; the parser
 * leaves them all 0/NULL (the exporter knows which arrays are area lists).
 *
 * Layout rules of the printer (lvm2-format.md §9.3):
 *   - RAW: no indentation, no trailing comments (except comment_tight ones);
 *   - FILE: one TAB per depth (at most 5), a trailing comment is preceded by TABs
 *     up to the first tab stop at or after column 40 (at least one TAB), columns
 *     counting each indentation TAB as 8;
 *   - arrays on one line `["a", 1]`, `[]`, or per_line elements per line, each line
 *     but the last ending with ",", elements one level deeper, `]` on its own line;
 *   - sections `name {` ... `}`; strings always double-quoted with `"` and `\`
 *     escaped; keys that are not plain identifiers are printed quoted.
 *
 * Limits of the parser: nesting depth LVX_CFG_MAX_DEPTH, LVX_CFG_MAX_ITEMS items
 * per section or array.  Parsing and printing are linear in the text size;
 * nodes and strings live in the pool.
 *
 * Entry points: lvx_cfg_parse(), lvx_cfg_print(), lvx_cfg_print_items(), lookups
 * lvx_cfg_find*() and the builders lvx_cfg_add_*().
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
    int end_line;                  /* SECTION/ARRAY: line of the closing '}' / ']' when parsed */

    /* printing hints */
    const char *heading;           /* a whole comment line "# <heading>" printed before the
                                      item (before its blank line), in both layouts */
    const char *comment;           /* trailing comment, printed as "# <comment>" after the
                                      value; FILE layout only, unless comment_tight.  One
                                      line; a final '\n' in it is printed (ctime strings) */
    bool comment_tight;            /* comment follows after exactly one TAB and is printed
                                      in RAW layout too (LVM2's header lines) */
    bool blank_before;             /* a blank line is printed before this item */
    unsigned blank_before_close;   /* SECTION: number of blank lines before its closing '}'
                                      (LVM2: 1, or 2 in a VG without LVs) */
    unsigned per_line;             /* ARRAY: 0 = all on one line; N = N elements per line */
    bool tight;                    /* "key=value", no spaces around '=' (LVM2 writes a cache
                                      segment's policy_settings items so) */
};

#define LVX_CFG_MAX_DEPTH 64          /* nesting of sections accepted by the parser */
#define LVX_CFG_MAX_ITEMS (1u << 24)  /* items of one section / elements of one array */

/* Parse text (stops at len or the first NUL; need not be NUL-terminated).  *root
 * is an unnamed SECTION.  Values: [+-]digits -> INT (strtoll base 0: a leading 0 is
 * octal; out of int64 range is an error), [+-]digits with one '.' -> FLOAT (text
 * kept in float_text), "..." (\" and \\ unescaped) / '...' / bare words -> STRING.
 * Names containing '/' are kept as written (no path splitting).  Every node gets
 * its source line (and end_line for sections/arrays); hints are left 0.
 * Errors: -EINVAL, *root NULL, message "Parse error at line 12: <what>". */
int lvx_cfg_parse(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *text,
                  size_t len, struct lvx_cfg_node **root);

enum lvx_cfg_layout {
    LVX_CFG_LAYOUT_RAW,    /* on-disk: no indentation, no comments */
    LVX_CFG_LAYOUT_FILE,   /* backup/archive: TAB indentation, trailing comments aligned as LVM2 does */
};

/* Print a whole tree: the items of an unnamed root at depth 0 (or one node). */
void lvx_cfg_print(struct lvx_buf *out, const struct lvx_cfg_node *root,
                   enum lvx_cfg_layout layout);
/* Print a list of items (node and its following siblings) at the given depth. */
void lvx_cfg_print_items(struct lvx_buf *out, const struct lvx_cfg_node *first,
                         enum lvx_cfg_layout layout, int depth);
/* Print one node (section or assignment) at the given depth. */
void lvx_cfg_print_node(struct lvx_buf *out, const struct lvx_cfg_node *node,
                        enum lvx_cfg_layout layout, int depth);
/* Append a string value quoted and escaped as LVM2 writes it ("a\"b"). */
void lvx_cfg_print_quoted(struct lvx_buf *out, const char *s);
/* Print a whole comment line "# <text>\n" (indented at depth in FILE layout). */
void lvx_cfg_print_comment_line(struct lvx_buf *out, const char *text,
                                enum lvx_cfg_layout layout, int depth);

/* Lookups (direct children only; first match wins, as LVM2). */
struct lvx_cfg_node *lvx_cfg_find(const struct lvx_cfg_node *section, const char *key);
/* A path "a/b/c" through nested sections. */
struct lvx_cfg_node *lvx_cfg_find_path(const struct lvx_cfg_node *section, const char *path);
/* Typed getters: return 0 on success, -ENOENT when absent, -EINVAL on wrong type. */
int lvx_cfg_get_int(const struct lvx_cfg_node *section, const char *key, int64_t *out);
int lvx_cfg_get_str(const struct lvx_cfg_node *section, const char *key, const char **out);
unsigned lvx_cfg_array_len(const struct lvx_cfg_node *array);
/* Element i (NULL when out of range).  Walks the list: to visit every element,
 * follow array->child / ->next instead of calling this in a loop. */
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
