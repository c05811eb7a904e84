/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/cfg_parse.c - the parser of LVM2's text syntax (lvm2-format.md §9.1,
 * §9.2) into a cfg tree (cfg.h).
 *
 * A single left-to-right pass: a recursive descent over sections (depth limited
 * to LVX_CFG_MAX_DEPTH) with the lexing done in place on the input bytes, which
 * need not be NUL-terminated.  Every node and string goes into the caller's pool.
 * Errors: -EINVAL with "Parse error at line N: <what>".
 *
 * Entry point: lvx_cfg_parse().
 */
#include "format/cfg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    struct lvx_ctx *ctx;
    struct lvx_pool *pool;
    const char *p;      /* current position */
    const char *end;    /* end of input (len or first NUL) */
    int line;
    bool warned_time;   /* the creation_time warning printed (once a parse, as LVM2) */
};

/* Longest number accepted (leading zeros included). */
#define NUMBER_MAX_LEN 128

static int parse_error(struct parser *ps, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int parse_error(struct parser *ps, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return lvx_error(ps->ctx, EINVAL, "Parse error at line %d: %s", ps->line, what);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Bytes that may appear in an identifier or a bare word. */
static bool is_ident_byte(char c)
{
    return !is_space(c) && c != '#' && c != '=' && c != '{' && c != '}';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Skip whitespace and comments, counting lines. */
static void skip_blank(struct parser *ps)
{
    while (ps->p < ps->end) {
        char c = *ps->p;
        if (c == '\n') {
            ps->line++;
            ps->p++;
        } else if (is_space(c)) {
            ps->p++;
        } else if (c == '#') {
            const char *nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
            ps->p = nl ? nl : ps->end;
        } else {
            break;
        }
    }
}

static bool at_end(const struct parser *ps)
{
    return ps->p >= ps->end;
}

static const char *describe(char c)
{
    switch (c) {
    case '{': return "'{'";
    case '}': return "'}'";
    case '[': return "'['";
    case ']': return "']'";
    case '=': return "'='";
    case ',': return "','";
    default: return "token";
    }
}

/* Copy the body of a double-quoted string, turning \" and \\ into " and \. */
static char *unescape(struct lvx_pool *pool, const char *s, size_t len)
{
    char *out = lvx_pool_alloc(pool, len + 1);
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && i + 1 < len && (s[i + 1] == '"' || s[i + 1] == '\\'))
            i++;
        out[o++] = s[i];
    }
    out[o] = '\0';
    return out;
}

/* A quoted string starting at ps->p (which is '"' or '\''); the unescaped value. */
static int lex_quoted(struct parser *ps, const char **out)
{
    char quote = *ps->p;
    int start_line = ps->line;
    const char *body = ++ps->p;
    while (ps->p < ps->end && *ps->p != quote) {
        if (*ps->p == '\n')
            ps->line++;
        else if (*ps->p == '\\' && quote == '"') {
            if (ps->p + 1 >= ps->end) {
                ps->p = ps->end;
                break;
            }
            if (ps->p[1] == '\n')
                ps->line++;
            ps->p++;
        }
        ps->p++;
    }
    if (ps->p >= ps->end) {
        ps->line = start_line;
        return parse_error(ps, "unterminated string");
    }
    size_t len = (size_t)(ps->p - body);
    ps->p++;
    *out = quote == '"' ? unescape(ps->pool, body, len) : lvx_pool_strndup(ps->pool, body, len);
    return 0;
}

/* A run of identifier bytes at ps->p (may be empty). */
static size_t ident_len(const struct parser *ps)
{
    const char *q = ps->p;
    while (q < ps->end && is_ident_byte(*q))
        q++;
    return (size_t)(q - ps->p);
}

/* A key or section name: an identifier or a quoted string. */
static int lex_name(struct parser *ps, const char **out)
{
    char c = *ps->p;
    if (c == '"' || c == '\'')
        return lex_quoted(ps, out);
    size_t len = ident_len(ps);
    if (len == 0)
        return parse_error(ps, "unexpected %s", describe(c));
    *out = lvx_pool_strndup(ps->pool, ps->p, len);
    ps->p += len;
    return 0;
}

/* Bytes that end a number token (anything else makes the run a bare word). */
static bool ends_number(const struct parser *ps, const char *q)
{
    if (q >= ps->end)
        return true;
    char c = *q;
    return !is_ident_byte(c) || c == ',' || c == '[' || c == ']' || c == '"' || c == '\'';
}

static int make_number(struct parser *ps, struct lvx_cfg_node *n, const char *s, size_t len,
                       bool is_float)
{
    char tmp[NUMBER_MAX_LEN + 1];
    if (len > NUMBER_MAX_LEN)
        return parse_error(ps, "number too long");
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    errno = 0;
    if (is_float) {
        n->kind = LVX_CFG_FLOAT;
        n->fnum = strtod(tmp, NULL);
        n->float_text = lvx_pool_strndup(ps->pool, s, len);
        return 0;
    }
    n->kind = LVX_CFG_INT;
    n->num = strtoll(tmp, NULL, 0);
    if (errno == ERANGE && n->key && strcmp(n->key, "creation_time") == 0) {
        /* as LVM2: old 32-bit builds wrote bad times; a fixed day stands in for it */
        n->num = 1527120000;
        if (!ps->warned_time)
            lvx_warn(ps->ctx, "WARNING: Invalid creation_time found in metadata (repaired "
                     "with next metadata update).");
        ps->warned_time = true;
        return 0;
    }
    if (errno == ERANGE)
        return parse_error(ps, "value too large: %s", tmp);
    return 0;
}

/* A number ([+-] digits with at most one '.') or a bare word.  As LVM2's lexer, a value
 * that starts like a number ([0-9+-.]) is a number and nothing else: "1;", "1e5",
 * "0x10", "1.2.3" or "-x" are errors, not words. */
static int lex_number_or_word(struct parser *ps, struct lvx_cfg_node *n)
{
    const char *s = ps->p, *q = s;
    unsigned digits = 0, dots = 0;
    bool numeric = is_digit(*s) || *s == '+' || *s == '-' || *s == '.';
    if (*q == '+' || *q == '-')
        q++;
    for (; q < ps->end && (is_digit(*q) || *q == '.'); q++) {
        if (*q == '.')
            dots++;
        else
            digits++;
    }
    if (digits && dots <= 1 && ends_number(ps, q)) {
        ps->p = q;
        return make_number(ps, n, s, (size_t)(q - s), dots == 1);
    }
    if (numeric)
        return parse_error(ps, "bad number: %.*s", (int)(ident_len(ps) > 40 ? 40 : ident_len(ps)), s);
    size_t len = ident_len(ps);
    n->kind = LVX_CFG_STRING;
    n->str = lvx_pool_strndup(ps->pool, s, len);
    ps->p += len;
    return 0;
}

/* A scalar value (string, number, bare word) into n. */
static int parse_scalar(struct parser *ps, struct lvx_cfg_node *n)
{
    char c = *ps->p;
    n->line = ps->line;
    if (c == '"' || c == '\'') {
        n->kind = LVX_CFG_STRING;
        return lex_quoted(ps, &n->str);
    }
    if (c == '[' || c == ']' || c == ',' || !is_ident_byte(c))
        return parse_error(ps, "unexpected %s where a value was expected", describe(c));
    return lex_number_or_word(ps, n);
}

static struct lvx_cfg_node *new_node(struct parser *ps, struct lvx_cfg_node *parent,
                                     const char *key, enum lvx_cfg_kind kind)
{
    struct lvx_cfg_node *n = lvx_pool_alloc(ps->pool, sizeof(*n));
    n->key = key;
    n->kind = kind;
    n->line = ps->line;
    if (parent)
        lvx_cfg_append(parent, n);
    return n;
}

/* "[" elements "]" with commas; as LVM2's lexer, the comma may be left out only before a
 * quoted string (["a" "b"] is accepted, [1 2] is not); ps->p is at '['. */
static int parse_array(struct parser *ps, struct lvx_cfg_node *array)
{
    unsigned count = 0;
    bool need_value = false;   /* after a comma a value must follow before another comma */
    bool need_comma = false;   /* after a value, before anything but a quoted string */
    ps->p++;
    for (;;) {
        skip_blank(ps);
        if (at_end(ps))
            return parse_error(ps, "unterminated array (missing ']')");
        char c = *ps->p;
        if (c == ']') {
            array->end_line = ps->line;
            ps->p++;
            return 0;
        }
        if (c == ',') {
            if (count == 0 || need_value)
                return parse_error(ps, "unexpected ',' in array");
            need_value = true;
            need_comma = false;
            ps->p++;
            continue;
        }
        if (c == '[')
            return parse_error(ps, "nested arrays are not allowed");
        if (need_comma && is_ident_byte(c) && c != '"' && c != '\'')
            return parse_error(ps, "missing ',' between array elements");
        if (++count > LVX_CFG_MAX_ITEMS)
            return parse_error(ps, "too many array elements");
        struct lvx_cfg_node *e = new_node(ps, array, NULL, LVX_CFG_STRING);
        int r = parse_scalar(ps, e);
        if (r < 0)
            return r;
        need_value = false;
        need_comma = true;
    }
}

static int parse_value(struct parser *ps, struct lvx_cfg_node *n)
{
    skip_blank(ps);
    if (at_end(ps))
        return parse_error(ps, "missing value after '='");
    if (*ps->p == '[') {
        n->kind = LVX_CFG_ARRAY;
        return parse_array(ps, n);
    }
    int line = n->line;
    int r = parse_scalar(ps, n);
    n->line = line;
    return r;
}

static int parse_items(struct parser *ps, struct lvx_cfg_node *section, int depth);

static int parse_item(struct parser *ps, struct lvx_cfg_node *section, int depth)
{
    int line = ps->line;
    const char *key;
    int r = lex_name(ps, &key);
    if (r < 0)
        return r;
    skip_blank(ps);
    if (at_end(ps))
        return parse_error(ps, "missing '=' or '{' after a name at end of input");
    if (*ps->p == '{') {
        if (depth >= LVX_CFG_MAX_DEPTH)
            return parse_error(ps, "nesting too deep (more than %d levels)", LVX_CFG_MAX_DEPTH);
        struct lvx_cfg_node *sec = new_node(ps, section, key, LVX_CFG_SECTION);
        sec->line = line;
        ps->p++;
        return parse_items(ps, sec, depth + 1);
    }
    if (*ps->p != '=')
        return parse_error(ps, "missing '=' after a name");
    ps->p++;
    struct lvx_cfg_node *n = new_node(ps, section, key, LVX_CFG_STRING);
    n->line = line;
    return parse_value(ps, n);
}

/* Items of a section up to its '}' (depth > 0) or the end of input (depth 0). */
static int parse_items(struct parser *ps, struct lvx_cfg_node *section, int depth)
{
    unsigned count = 0;
    int open_line = section->line;
    for (;;) {
        skip_blank(ps);
        if (at_end(ps)) {
            if (depth == 0) {
                section->end_line = ps->line;
                return 0;
            }
            return parse_error(ps, "unbalanced braces: section opened at line %d is not closed",
                               open_line);
        }
        if (*ps->p == '}') {
            if (depth == 0)
                return parse_error(ps, "unbalanced braces: unexpected '}'");
            section->end_line = ps->line;
            ps->p++;
            return 0;
        }
        if (++count > LVX_CFG_MAX_ITEMS)
            return parse_error(ps, "too many items in a section");
        int r = parse_item(ps, section, depth);
        if (r < 0)
            return r;
    }
}

int lvx_cfg_parse(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *text,
                  size_t len, struct lvx_cfg_node **root)
{
    const char *nul = text ? memchr(text, '\0', len) : NULL;
    struct parser ps = {
        .ctx = ctx,
        .pool = pool,
        .p = text,
        .end = nul ? nul : (text ? text + len : NULL),
        .line = 1,
    };
    *root = NULL;
    struct lvx_cfg_node *top = new_node(&ps, NULL, NULL, LVX_CFG_SECTION);
    int r = parse_items(&ps, top, 0);
    if (r < 0)
        return r;
    *root = top;
    return 0;
}
