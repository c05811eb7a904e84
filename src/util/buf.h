/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/buf.h - growable byte buffer (always NUL-terminated) for rendering text:
 * metadata, reports, backup files.  Heap-allocated; lvx_buf_free() releases it.
 */
#ifndef LVX_UTIL_BUF_H
#define LVX_UTIL_BUF_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

struct lvx_buf {
    char *data;     /* NULL until the first append */
    size_t len;     /* bytes used, not counting the terminating NUL */
    size_t cap;
};

#define LVX_BUF_INIT { NULL, 0, 0 }

void lvx_buf_reserve(struct lvx_buf *b, size_t extra);
void lvx_buf_append(struct lvx_buf *b, const void *data, size_t len);
void lvx_buf_puts(struct lvx_buf *b, const char *s);
void lvx_buf_putc(struct lvx_buf *b, char c);
/* Decimal, as printf's PRIu64 / PRId64 (without printf: metadata text has many). */
void lvx_buf_put_u64(struct lvx_buf *b, uint64_t v);
void lvx_buf_put_i64(struct lvx_buf *b, int64_t v);
/* The decimal digits of v at the end of out[0..LVX_U64_DIGITS) ; returns the first. */
#define LVX_U64_DIGITS 20
char *lvx_u64_digits(uint64_t v, char out[LVX_U64_DIGITS]);
void lvx_buf_printf(struct lvx_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void lvx_buf_vprintf(struct lvx_buf *b, const char *fmt, va_list ap);
void lvx_buf_reset(struct lvx_buf *b);           /* len = 0, keeps memory */
void lvx_buf_free(struct lvx_buf *b);
/* the string (never NULL; "" when empty) */
const char *lvx_buf_str(const struct lvx_buf *b);

#endif
