/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/select.c - -S/--select expressions, as LVM2 accepts them:
 *
 *   expr := term { ("||" | "#") term }      term := factor { ("&&" | ",") factor }
 *   factor := "!" factor | "(" expr ")" | field op value
 *   op := "=~" "!~" "=" "!=" "<" "<=" ">" ">="
 *
 * Values are bare words or quoted ('...' or "..."); sizes take a unit suffix
 * (default MiB); string lists compare with a single item or {a,b} (all items
 * present), {a||b} (any item), [a,b] (exactly that set), "" (empty list).  Regular
 * expressions are POSIX extended (regcomp).  Errors give -EINVAL with LVM2's
 * wording where it has one ("Unrecognised selection field: foo").
 */
#include "report/report_int.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define SEL_MAX_DEPTH 256

enum sel_kind { SEL_AND, SEL_OR, SEL_NOT, SEL_COND };
enum sel_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_RE, OP_NRE };
enum list_mode { LIST_SUBSET, LIST_ANY, LIST_STRICT };

struct lvx_sel {
    enum sel_kind kind;
    struct lvx_sel *a, *b;
    const struct lvx_field *field;
    enum sel_op op;
    const char *text;          /* the value as written */
    bool numeric;              /* text parsed as a number / size */
    int64_t num;
    uint64_t size;
    regex_t *re;
    struct lvx_sel *re_next;   /* chain of every node holding a compiled regex */
    struct lvx_sel *regexes;   /* root only: head of that chain */
    struct lvx_strlist items;  /* string list value */
    enum list_mode mode;
};

struct parser {
    struct lvx_ctx *ctx;
    struct lvx_pool *pool;
    const char *p;
    unsigned obj;
    int depth;
    struct lvx_sel *re_head;
};

static struct lvx_sel *parse_or(struct parser *ps);

static void skip_space(struct parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static struct lvx_sel *syntax_error(struct parser *ps, const char *at)
{
    lvx_error(ps->ctx, EINVAL, "Selection syntax error at '%s'.", at);
    return NULL;
}

static struct lvx_sel *node(struct parser *ps, enum sel_kind kind, struct lvx_sel *a,
                            struct lvx_sel *b)
{
    struct lvx_sel *n = lvx_pool_alloc(ps->pool, sizeof(*n));
    n->kind = kind;
    n->a = a;
    n->b = b;
    return n;
}

static bool take(struct parser *ps, const char *tok)
{
    size_t n = strlen(tok);
    if (strncmp(ps->p, tok, n) != 0)
        return false;
    ps->p += n;
    return true;
}

static bool parse_op(struct parser *ps, enum sel_op *op)
{
    static const struct { const char *tok; enum sel_op op; } ops[] = {
        { "=~", OP_RE }, { "!~", OP_NRE }, { "!=", OP_NE }, { "<=", OP_LE },
        { ">=", OP_GE }, { "=", OP_EQ }, { "<", OP_LT }, { ">", OP_GT },
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (take(ps, ops[i].tok)) {
            *op = ops[i].op;
            return true;
        }
    return false;
}

static bool value_end(const char *p)
{
    return !*p || isspace((unsigned char)*p) || *p == ')' || *p == ',' || *p == '#' ||
           strncmp(p, "&&", 2) == 0 || strncmp(p, "||", 2) == 0;
}

/* a quoted or bare word; NULL on an unterminated quote */
static const char *parse_word(struct parser *ps, bool in_list)
{
    const char *start = ps->p;
    if (*start == '"' || *start == '\'') {
        const char *end = strchr(start + 1, *start);
        if (!end) {
            lvx_error(ps->ctx, EINVAL, "Selection syntax error: unterminated quote at '%s'.", start);
            return NULL;
        }
        ps->p = end + 1;
        return lvx_pool_strndup(ps->pool, start + 1, (size_t)(end - start - 1));
    }
    while (!value_end(ps->p) && !(in_list && (*ps->p == ']' || *ps->p == '}')))
        ps->p++;
    return lvx_pool_strndup(ps->pool, start, (size_t)(ps->p - start));
}

static bool parse_list(struct parser *ps, struct lvx_sel *c)
{
    char close = *ps->p == '[' ? ']' : '}';
    bool strict = close == ']';
    int delim = 0;   /* 1 = all, 2 = any */
    ps->p++;
    unsigned cap = 4;
    c->items.v = lvx_pool_alloc(ps->pool, sizeof(char *) * cap);
    for (;;) {
        skip_space(ps);
        if (*ps->p == close && c->items.n == 0) {
            ps->p++;
            break;
        }
        const char *w = parse_word(ps, true);
        if (!w)
            return false;
        if (c->items.n == cap) {
            c->items.v = lvx_pool_realloc(ps->pool, c->items.v, sizeof(char *) * cap,
                                          sizeof(char *) * cap * 2);
            cap *= 2;
        }
        if (*w)
            c->items.v[c->items.n++] = w;
        skip_space(ps);
        if (*ps->p == close) {
            ps->p++;
            break;
        }
        int d = take(ps, "&&") || take(ps, ",") ? 1 : take(ps, "||") || take(ps, "#") ? 2 : 0;
        if (!d || (delim && d != delim)) {
            syntax_error(ps, ps->p);
            return false;
        }
        delim = d;
    }
    c->mode = delim == 2 ? LIST_ANY : strict ? LIST_STRICT : LIST_SUBSET;
    return true;
}

static const char *type_name(enum lvx_ftype t)
{
    switch (t) {
    case LVX_FT_NUM: return "number";
    case LVX_FT_SIZE: return "size";
    case LVX_FT_PERCENT: return "percent";
    case LVX_FT_STRLIST: return "string list";
    default: return "string";
    }
}

/* a number or size; *bad gets the offset of the first character that is not part
 * of it when the text starts like a number */
static bool parse_number(struct lvx_sel *c, size_t *bad)
{
    const char *t = c->text;
    char *end;
    if (c->field->type == LVX_FT_SIZE) {
        size_t n = lvx_report_parse_size(t, 'm', &c->size);
        if (n && t[n] == '\0')
            return true;
        *bad = n;
        return false;
    }
    long long v = strtoll(t, &end, 10);
    if (end == t)
        return false;
    if (c->field->type == LVX_FT_PERCENT && *end == '%')
        end++;
    if (*end) {
        *bad = (size_t)(end - t);
        return false;
    }
    c->num = v;
    return true;
}

static bool compile_regex(struct parser *ps, struct lvx_sel *c)
{
    c->re = lvx_xcalloc(1, sizeof(*c->re));
    if (regcomp(c->re, c->text, REG_EXTENDED | REG_NOSUB) != 0) {
        free(c->re);
        c->re = NULL;
        lvx_error(ps->ctx, EINVAL, "Invalid regular expression '%s' in selection.", c->text);
        return false;
    }
    c->re_next = ps->re_head;
    ps->re_head = c;
    return true;
}

/* field op value */
static struct lvx_sel *parse_condition(struct parser *ps)
{
    const char *start = ps->p;
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
        ps->p++;
    if (ps->p == start)
        return syntax_error(ps, start);
    const struct lvx_field *f = lvx_report_field_find(start, (size_t)(ps->p - start), ps->obj);
    if (!f) {
        lvx_error(ps->ctx, EINVAL, "Unrecognised selection field: %.*s", (int)(ps->p - start), start);
        return NULL;
    }
    skip_space(ps);
    struct lvx_sel *c = node(ps, SEL_COND, NULL, NULL);
    c->field = f;
    if (!parse_op(ps, &c->op))
        return syntax_error(ps, start);
    skip_space(ps);
    bool regex = c->op == OP_RE || c->op == OP_NRE;
    bool ordered = c->op != OP_EQ && c->op != OP_NE && !regex;
    if (regex && f->type != LVX_FT_STR) {
        lvx_error(ps->ctx, EINVAL, "Regular expression not supported for %s field %s in selection.",
                  type_name(f->type), f->name);
        return NULL;
    }
    if (f->type == LVX_FT_STRLIST && !regex && !ordered && (*ps->p == '[' || *ps->p == '{')) {
        c->text = "";
        return parse_list(ps, c) ? c : NULL;
    }
    if (value_end(ps->p) && *ps->p != '"' && *ps->p != '\'')
        return syntax_error(ps, start);
    const char *value_at = ps->p;
    c->text = parse_word(ps, false);
    if (!c->text)
        return NULL;
    if (ordered && (f->type == LVX_FT_STR || f->type == LVX_FT_STRLIST)) {
        lvx_error(ps->ctx, EINVAL,
                  "Operator can be used only with number, size, time or percent fields: %.*s",
                  (int)(ps->p - start), start);
        return NULL;
    }
    if (regex)
        return compile_regex(ps, c) ? c : NULL;
    if (f->type == LVX_FT_STRLIST) {
        c->mode = *c->text ? LIST_SUBSET : LIST_STRICT;
        c->items.v = lvx_pool_alloc(ps->pool, sizeof(char *));
        if (*c->text)
            c->items.v[c->items.n++] = c->text;
    } else if (f->type != LVX_FT_STR) {
        size_t bad = 0;
        c->numeric = parse_number(c, &bad);
        static const char *const reserved[] = {
            "auto", "unmanaged", "undefined", "undef", "unknown", NULL,
        };
        bool word = false;
        for (unsigned i = 0; !c->numeric && reserved[i]; i++)
            word |= strcmp(c->text, reserved[i]) == 0;
        if (!c->numeric && (ordered || !word))
            return syntax_error(ps, value_at + bad);
        if (c->numeric && f->type == LVX_FT_PERCENT && (c->num < 0 || c->num > 100)) {
            lvx_error(ps->ctx, EINVAL, "Field selection value %lld out of supported range for "
                      "field %s.", (long long)c->num, f->name);
            return NULL;
        }
    }
    return c;
}

static struct lvx_sel *parse_factor(struct parser *ps)
{
    skip_space(ps);
    if (++ps->depth > SEL_MAX_DEPTH) {
        lvx_error(ps->ctx, EINVAL, "Selection nested too deeply.");
        return NULL;
    }
    struct lvx_sel *r;
    if (*ps->p == '!' && ps->p[1] != '=' && ps->p[1] != '~') {
        ps->p++;
        struct lvx_sel *a = parse_factor(ps);
        r = a ? node(ps, SEL_NOT, a, NULL) : NULL;
    } else if (*ps->p == '(') {
        ps->p++;
        r = parse_or(ps);
        if (r) {
            skip_space(ps);
            if (*ps->p != ')') {
                lvx_error(ps->ctx, EINVAL, "Syntax error: right parenthesis expected at '%s'", ps->p);
                r = NULL;
            } else {
                ps->p++;
            }
        }
    } else {
        r = parse_condition(ps);
    }
    ps->depth--;
    return r;
}

static struct lvx_sel *parse_and(struct parser *ps)
{
    struct lvx_sel *left = parse_factor(ps);
    while (left) {
        skip_space(ps);
        if (!take(ps, "&&") && !take(ps, ","))
            break;
        struct lvx_sel *right = parse_factor(ps);
        left = right ? node(ps, SEL_AND, left, right) : NULL;
    }
    return left;
}

static struct lvx_sel *parse_or(struct parser *ps)
{
    struct lvx_sel *left = parse_and(ps);
    while (left) {
        skip_space(ps);
        if (!take(ps, "||") && !take(ps, "#"))
            break;
        struct lvx_sel *right = parse_and(ps);
        left = right ? node(ps, SEL_OR, left, right) : NULL;
    }
    return left;
}

static void free_regexes(struct lvx_sel *head)
{
    for (struct lvx_sel *c = head; c; c = c->re_next) {
        regfree(c->re);
        free(c->re);
        c->re = NULL;
    }
}

void lvx_report_select_free(struct lvx_sel *sel)
{
    if (sel) {
        free_regexes(sel->regexes);
        sel->regexes = NULL;
    }
}

int lvx_report_select_parse(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *expr,
                            unsigned report_obj, struct lvx_sel **out)
{
    struct parser ps = { .ctx = ctx, .pool = pool, .p = expr, .obj = report_obj };
    *out = NULL;
    skip_space(&ps);
    if (!*ps.p)
        return 0;   /* empty selection selects everything */
    struct lvx_sel *sel = parse_or(&ps);
    if (sel) {
        skip_space(&ps);
        if (*ps.p)
            sel = syntax_error(&ps, ps.p);
    }
    if (!sel) {
        free_regexes(ps.re_head);
        return ctx->err ? ctx->err : -EINVAL;
    }
    sel->regexes = ps.re_head;
    *out = sel;
    return 0;
}

/* --- evaluation ----------------------------------------------------------- */
static bool ordered_result(int cmp, enum sel_op op)
{
    switch (op) {
    case OP_EQ: return cmp == 0;
    case OP_NE: return cmp != 0;
    case OP_LT: return cmp < 0;
    case OP_LE: return cmp <= 0;
    case OP_GT: return cmp > 0;
    case OP_GE: return cmp >= 0;
    default: return false;
    }
}

static bool list_has(const struct lvx_strlist *l, const char *s)
{
    for (unsigned i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return true;
    return false;
}

static bool list_match(const struct lvx_sel *c, const struct lvx_strlist *have)
{
    unsigned found = 0;
    for (unsigned i = 0; i < c->items.n; i++)
        found += list_has(have, c->items.v[i]);
    switch (c->mode) {
    case LIST_ANY: return found > 0;
    case LIST_SUBSET:     /* "{}" (no item) matches the empty list only, as LVM2 */
        return c->items.n ? found == c->items.n : have->n == 0;
    case LIST_STRICT: {
        unsigned distinct = 0;
        for (unsigned i = 0; i < have->n; i++)
            distinct += list_has(&c->items, have->v[i]);
        return found == c->items.n && distinct == have->n;
    }
    }
    return false;
}

static bool eval_cond(struct lvx_rctx *rc, const struct lvx_sel *c, const struct lvx_rrow *row)
{
    struct lvx_rval v;
    c->field->get(rc, row, &v);
    if (c->re) {
        struct lvx_buf b = LVX_BUF_INIT;
        if (v.type == LVX_FT_STR && v.key)
            lvx_buf_puts(&b, v.key);
        else
            lvx_rval_format(&b, &v, 'r', 0, false);
        bool m = regexec(c->re, lvx_buf_str(&b), 0, NULL, 0) == 0;
        lvx_buf_free(&b);
        return c->op == OP_RE ? m : !m;
    }
    if (v.type == LVX_FT_STRLIST) {
        bool m = list_match(c, &v.list);
        return c->op == OP_NE ? !m : m;
    }
    if (v.type == LVX_FT_STR) {
        /* LVM2's reserved value of seg_monitor: "undefined" stands for "" */
        bool undef = !strcmp(c->field->name, "seg_monitor") && !strcmp(c->text, "undefined");
        int cmp = strcmp(v.key ? v.key : v.str, undef ? "" : c->text);
        return ordered_result(cmp, c->op);
    }
    if (!c->numeric) {   /* a reserved word such as "auto" or "unmanaged" */
        bool m = v.str && strcmp(v.str, c->text) == 0;
        /* "undefined", "undef", "unknown": a number's -1 (lv_minor of no fixed minor) */
        if (!m && v.type == LVX_FT_NUM && !v.blank && v.num == -1 &&
            (!strcmp(c->text, "undefined") || !strcmp(c->text, "undef") ||
             !strcmp(c->text, "unknown")))
            m = true;
        return c->op == OP_NE ? !m : (c->op == OP_EQ && m);
    }
    if (v.type == LVX_FT_PERCENT && !v.blank && v.str) {   /* as printed: "12.34" */
        double have = strtod(v.str, NULL), want = (double)c->num;
        return ordered_result(have < want ? -1 : have > want, c->op);
    }
    if (v.blank || (v.str && v.type != LVX_FT_NUM))
        return c->op == OP_NE;
    int cmp;
    if (v.type == LVX_FT_SIZE)
        cmp = v.size < c->size ? -1 : v.size > c->size;
    else
        cmp = v.num < c->num ? -1 : v.num > c->num;
    return ordered_result(cmp, c->op);
}

bool lvx_report_select_match(struct lvx_rctx *rc, const struct lvx_sel *sel,
                             const struct lvx_rrow *row)
{
    if (!sel)
        return true;
    switch (sel->kind) {
    case SEL_AND:
        return lvx_report_select_match(rc, sel->a, row) && lvx_report_select_match(rc, sel->b, row);
    case SEL_OR:
        return lvx_report_select_match(rc, sel->a, row) || lvx_report_select_match(rc, sel->b, row);
    case SEL_NOT:
        return !lvx_report_select_match(rc, sel->a, row);
    case SEL_COND:
        return eval_cond(rc, sel, row);
    }
    return false;
}

unsigned lvx_report_select_objects(const struct lvx_sel *sel)
{
    if (!sel)
        return 0;
    unsigned m = lvx_report_select_objects(sel->a) | lvx_report_select_objects(sel->b);
    return sel->field ? m | sel->field->obj : m;
}
