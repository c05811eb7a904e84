/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/cfg_print.c - rendering a cfg tree (cfg.h) as text, in LVM2's on-disk
 * (RAW) or backup-file (FILE) layout (lvm2-format.md §9.3).  The layout rules are
 * summarised in cfg.h.  Output is appended to a struct lvx_buf in one pass.
 *
 * Entry points: lvx_cfg_print(), lvx_cfg_print_items(), lvx_cfg_print_node(),
 * lvx_cfg_print_quoted(), lvx_cfg_print_comment_line().
 */
#include "format/cfg.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_INDENT 5        /* LVM2 never indents deeper than 5 TABs */
#define TAB_WIDTH 8
#define COMMENT_COLUMN 40   /* trailing comments start at the first tab stop >= this */

/* Number of TABs printed for depth in this layout. */
static int indent_tabs(enum lvx_cfg_layout layout, int depth)
{
    if (layout != LVX_CFG_LAYOUT_FILE || depth <= 0)
        return 0;
    return depth > MAX_INDENT ? MAX_INDENT : depth;
}

static void put_indent(struct lvx_buf *out, int tabs)
{
    static const char tab_run[MAX_INDENT] = { '\t', '\t', '\t', '\t', '\t' };
    lvx_buf_append(out, tab_run, (size_t)tabs);
}

void lvx_cfg_print_quoted(struct lvx_buf *out, const char *s)
{
    lvx_buf_putc(out, '"');
    const char *run = s;
    for (; *s; s++) {
        if (*s != '"' && *s != '\\')
            continue;
        lvx_buf_append(out, run, (size_t)(s - run));
        lvx_buf_putc(out, '\\');
        run = s;   /* the escaped byte starts the next run */
    }
    lvx_buf_append(out, run, (size_t)(s - run));
    lvx_buf_putc(out, '"');
}

/* A key can be printed bare when the parser would read it back as one identifier. */
static bool key_is_plain(const char *key)
{
    if (!*key || *key == '"' || *key == '\'')
        return false;
    for (const char *c = key; *c; c++) {
        switch (*c) {
        case ' ': case '\t': case '\n': case '\r': case '\v': case '\f':
        case '#': case '=': case '{': case '}':
            return false;
        default:
            break;
        }
    }
    return true;
}

static void put_key(struct lvx_buf *out, const char *key)
{
    if (key_is_plain(key))
        lvx_buf_puts(out, key);
    else
        lvx_cfg_print_quoted(out, key);
}

static void put_float(struct lvx_buf *out, const struct lvx_cfg_node *n)
{
    if (n->float_text) {
        lvx_buf_puts(out, n->float_text);
        return;
    }
    char tmp[64];
    snprintf(tmp, sizeof(tmp), "%.17g", n->fnum);
    lvx_buf_puts(out, tmp);
    if (isfinite(n->fnum) && !strpbrk(tmp, ".e"))
        lvx_buf_puts(out, ".0");
}

static void put_scalar(struct lvx_buf *out, const struct lvx_cfg_node *n)
{
    switch (n->kind) {
    case LVX_CFG_INT:
        lvx_buf_put_i64(out, n->num);
        break;
    case LVX_CFG_FLOAT:
        put_float(out, n);
        break;
    case LVX_CFG_STRING:
        lvx_cfg_print_quoted(out, n->str ? n->str : "");
        break;
    case LVX_CFG_SECTION:
    case LVX_CFG_ARRAY:
        lvx_buf_puts(out, "\"\"");   /* not a scalar: never produced by the parser */
        break;
    }
}

static void put_array_one_line(struct lvx_buf *out, const struct lvx_cfg_node *array)
{
    lvx_buf_putc(out, '[');
    for (const struct lvx_cfg_node *e = array->child; e; e = e->next) {
        put_scalar(out, e);
        if (e->next)
            lvx_buf_puts(out, ", ");
    }
    lvx_buf_putc(out, ']');
}

/* "[" NL, per_line elements a line (one level deeper), "]" at the key's indent. */
static void put_array_per_line(struct lvx_buf *out, const struct lvx_cfg_node *array,
                               enum lvx_cfg_layout layout, int depth)
{
    unsigned on_line = 0;
    lvx_buf_puts(out, "[\n");
    for (const struct lvx_cfg_node *e = array->child; e; e = e->next) {
        if (on_line == 0)
            put_indent(out, indent_tabs(layout, depth + 1));
        else
            lvx_buf_putc(out, ' ');
        put_scalar(out, e);
        if (e->next)
            lvx_buf_putc(out, ',');
        if (++on_line == array->per_line || !e->next) {
            lvx_buf_putc(out, '\n');
            on_line = 0;
        }
    }
    put_indent(out, indent_tabs(layout, depth));
    lvx_buf_putc(out, ']');
}

/* Trailing comment of the line that started at `line_start` with `tabs` TABs. */
static void put_comment(struct lvx_buf *out, const struct lvx_cfg_node *n,
                        enum lvx_cfg_layout layout, int tabs, size_t line_start)
{
    if (!n->comment || (layout != LVX_CFG_LAYOUT_FILE && !n->comment_tight))
        return;
    if (n->comment_tight) {
        lvx_buf_putc(out, '\t');
    } else {
        size_t col = (size_t)tabs * TAB_WIDTH + (out->len - line_start);
        do {
            lvx_buf_putc(out, '\t');
            col = (col / TAB_WIDTH + 1) * TAB_WIDTH;
        } while (col < COMMENT_COLUMN);
    }
    lvx_buf_puts(out, "# ");
    lvx_buf_puts(out, n->comment);
}

static void put_assignment(struct lvx_buf *out, const struct lvx_cfg_node *n,
                           enum lvx_cfg_layout layout, int depth)
{
    int tabs = indent_tabs(layout, depth);
    put_indent(out, tabs);
    size_t line_start = out->len;
    if (n->key) {
        put_key(out, n->key);
        lvx_buf_puts(out, n->tight ? "=" : " = ");
    }
    if (n->kind == LVX_CFG_ARRAY && n->per_line) {
        put_array_per_line(out, n, layout, depth);
        line_start = out->len - 1;   /* the "]" line */
    } else if (n->kind == LVX_CFG_ARRAY) {
        put_array_one_line(out, n);
    } else {
        put_scalar(out, n);
    }
    put_comment(out, n, layout, tabs, line_start);
    lvx_buf_putc(out, '\n');
}

static void put_section(struct lvx_buf *out, const struct lvx_cfg_node *n,
                        enum lvx_cfg_layout layout, int depth)
{
    if (!n->key) {   /* the unnamed root: its items at this depth */
        lvx_cfg_print_items(out, n->child, layout, depth);
        return;
    }
    int tabs = indent_tabs(layout, depth);
    put_indent(out, tabs);
    put_key(out, n->key);
    lvx_buf_puts(out, " {\n");
    lvx_cfg_print_items(out, n->child, layout, depth + 1);
    for (unsigned i = 0; i < n->blank_before_close; i++)
        lvx_buf_putc(out, '\n');
    put_indent(out, tabs);
    lvx_buf_puts(out, "}\n");
}

void lvx_cfg_print_comment_line(struct lvx_buf *out, const char *text,
                                enum lvx_cfg_layout layout, int depth)
{
    put_indent(out, indent_tabs(layout, depth));
    lvx_buf_puts(out, "# ");
    lvx_buf_puts(out, text);
    lvx_buf_putc(out, '\n');
}

void lvx_cfg_print_node(struct lvx_buf *out, const struct lvx_cfg_node *node,
                        enum lvx_cfg_layout layout, int depth)
{
    if (node->heading)
        lvx_cfg_print_comment_line(out, node->heading, layout, depth);
    if (node->blank_before)
        lvx_buf_putc(out, '\n');
    if (node->kind == LVX_CFG_SECTION)
        put_section(out, node, layout, depth);
    else
        put_assignment(out, node, layout, depth);
}

void lvx_cfg_print_items(struct lvx_buf *out, const struct lvx_cfg_node *first,
                         enum lvx_cfg_layout layout, int depth)
{
    for (const struct lvx_cfg_node *n = first; n; n = n->next)
        lvx_cfg_print_node(out, n, layout, depth);
}

void lvx_cfg_print(struct lvx_buf *out, const struct lvx_cfg_node *root,
                   enum lvx_cfg_layout layout)
{
    lvx_cfg_print_node(out, root, layout, 0);
}
