/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/value.c - field values: constructors used by the getters, rendering
 * with --units, and the ordering used by -O.
 */
#include "report/report_int.h"

#include <stdlib.h>
#include <string.h>

void lvx_rval_str(struct lvx_rval *v, const char *s)
{
    memset(v, 0, sizeof(*v));
    v->type = LVX_FT_STR;
    v->str = s ? s : "";
}

void lvx_rval_num(struct lvx_rval *v, int64_t n)
{
    memset(v, 0, sizeof(*v));
    v->type = LVX_FT_NUM;
    v->num = n;
}

void lvx_rval_size(struct lvx_rval *v, uint64_t sectors)
{
    memset(v, 0, sizeof(*v));
    v->type = LVX_FT_SIZE;
    v->size = sectors;
}

void lvx_rval_blank(struct lvx_rval *v, enum lvx_ftype type)
{
    memset(v, 0, sizeof(*v));
    v->type = type;
    v->blank = true;
    v->str = "";
}

void lvx_rval_list(struct lvx_rval *v, const struct lvx_strlist *l)
{
    memset(v, 0, sizeof(*v));
    v->type = LVX_FT_STRLIST;
    if (l)
        v->list = *l;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void lvx_rval_tags(struct lvx_pool *pool, struct lvx_rval *v, const struct lvx_strlist *l)
{
    lvx_rval_list(v, NULL);
    if (!l || !l->n)
        return;
    v->list.n = l->n;
    v->list.v = lvx_pool_alloc(pool, sizeof(char *) * l->n);
    memcpy(v->list.v, l->v, sizeof(char *) * l->n);
    qsort(v->list.v, l->n, sizeof(char *), str_cmp);
}

void lvx_rval_format(struct lvx_buf *out, const struct lvx_rval *v, char units,
                     uint64_t unit_bytes, bool nosuffix)
{
    if (v->blank)
        return;
    switch (v->type) {
    case LVX_FT_STR:
        lvx_buf_puts(out, v->str);
        break;
    case LVX_FT_NUM:
    case LVX_FT_PERCENT:
        if (v->str)
            lvx_buf_puts(out, v->str);
        else
            lvx_buf_printf(out, "%lld", (long long)v->num);
        break;
    case LVX_FT_SIZE:
        if (v->str)
            lvx_buf_puts(out, v->str);
        else
            lvx_report_format_size(out, v->size, units, nosuffix, unit_bytes);
        break;
    case LVX_FT_STRLIST:
        for (unsigned i = 0; i < v->list.n; i++) {
            if (i)
                lvx_buf_putc(out, ',');
            lvx_buf_puts(out, v->list.v[i]);
        }
        break;
    }
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_list(const struct lvx_strlist *a, const struct lvx_strlist *b)
{
    for (unsigned i = 0; i < a->n && i < b->n; i++) {
        int c = strcmp(a->v[i], b->v[i]);
        if (c)
            return c;
    }
    return cmp_u64(a->n, b->n);
}

int lvx_rval_cmp(const struct lvx_rval *a, const struct lvx_rval *b)
{
    if (a->blank != b->blank)
        return a->blank ? -1 : 1;
    switch (a->type) {
    case LVX_FT_STR:
        return strcmp(a->key ? a->key : a->str, b->key ? b->key : b->str);
    case LVX_FT_NUM:
    case LVX_FT_PERCENT:
        return a->num < b->num ? -1 : a->num > b->num;
    case LVX_FT_SIZE:
        return cmp_u64(a->size, b->size);
    case LVX_FT_STRLIST:
        return cmp_list(&a->list, &b->list);
    }
    return 0;
}
