/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/buf.c - growable byte buffer (see buf.h).
 */
#include "util/buf.h"
#include "util/pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lvx_buf_reserve(struct lvx_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = lvx_xrealloc(b->data, cap);
    b->cap = cap;
}

void lvx_buf_append(struct lvx_buf *b, const void *data, size_t len)
{
    lvx_buf_reserve(b, len);
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void lvx_buf_puts(struct lvx_buf *b, const char *s)
{
    lvx_buf_append(b, s, strlen(s));
}

void lvx_buf_putc(struct lvx_buf *b, char c)
{
    if (b->len + 2 > b->cap)
        lvx_buf_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

char *lvx_u64_digits(uint64_t v, char out[LVX_U64_DIGITS])
{
    char *p = out + LVX_U64_DIGITS;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return p;
}

void lvx_buf_put_u64(struct lvx_buf *b, uint64_t v)
{
    char tmp[LVX_U64_DIGITS];
    char *p = lvx_u64_digits(v, tmp);
    lvx_buf_append(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void lvx_buf_put_i64(struct lvx_buf *b, int64_t v)
{
    if (v < 0) {
        lvx_buf_putc(b, '-');
        lvx_buf_put_u64(b, 0 - (uint64_t)v);
    } else {
        lvx_buf_put_u64(b, (uint64_t)v);
    }
}

void lvx_buf_vprintf(struct lvx_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n <= 0)
        return;
    lvx_buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void lvx_buf_printf(struct lvx_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lvx_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void lvx_buf_reset(struct lvx_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void lvx_buf_free(struct lvx_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

const char *lvx_buf_str(const struct lvx_buf *b)
{
    return b->data ? b->data : "";
}
