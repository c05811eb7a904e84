/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/pool.h - arena allocator.  A VG, a parsed text tree, a report: each lives in
 * one pool and is freed at once with lvx_pool_destroy().  Allocations are zeroed
 * and 16-byte aligned.  Out of memory aborts (the only place the library may stop
 * the process): a volume manager cannot do anything sensible half-allocated.
 */
#ifndef LVX_UTIL_POOL_H
#define LVX_UTIL_POOL_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

struct lvx_pool;

struct lvx_pool *lvx_pool_create(void);
void lvx_pool_destroy(struct lvx_pool *pool);

void *lvx_pool_alloc(struct lvx_pool *pool, size_t size);
/* The same without zeroing, for buffers that are filled right away (metadata texts of
 * hundreds of KB read from disk). */
void *lvx_pool_alloc_uninit(struct lvx_pool *pool, size_t size);
/* Grow an array allocated in the pool: returns a new zero-extended copy. */
void *lvx_pool_realloc(struct lvx_pool *pool, void *old, size_t old_size, size_t new_size);
char *lvx_pool_strdup(struct lvx_pool *pool, const char *s);
char *lvx_pool_strndup(struct lvx_pool *pool, const char *s, size_t n);
/* prefix followed by the decimal number ("segment" 3 -> "segment3"). */
char *lvx_pool_strnum(struct lvx_pool *pool, const char *prefix, uint64_t number);
char *lvx_pool_printf(struct lvx_pool *pool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* abort() with a message on stderr; used by the allocators. */
void *lvx_xmalloc(size_t size);
void *lvx_xcalloc(size_t n, size_t size);
void *lvx_xrealloc(void *p, size_t size);
char *lvx_xstrdup(const char *s);

#endif
