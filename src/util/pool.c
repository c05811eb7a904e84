/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/pool.c - arena allocator (see pool.h).  Chunks of at least 64 KiB; large
 * requests get a chunk of their own.  Nothing is freed before lvx_pool_destroy().
 */
#include "util/pool.h"
#include "util/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pool_chunk {
    struct pool_chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

struct lvx_pool {
    struct pool_chunk *chunks;
};

#define POOL_CHUNK_MIN (64 * 1024)

static void out_of_memory(size_t size)
{
    fprintf(stderr, "lvx: out of memory (%zu bytes)\n", size);
    abort();
}

void *lvx_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

void *lvx_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

void *lvx_xrealloc(void *old, size_t size)
{
    void *p = realloc(old, size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

char *lvx_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = lvx_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

struct lvx_pool *lvx_pool_create(void)
{
    return lvx_xcalloc(1, sizeof(struct lvx_pool));
}

void lvx_pool_destroy(struct lvx_pool *pool)
{
    if (!pool)
        return;
    struct pool_chunk *c = pool->chunks;
    while (c) {
        struct pool_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(pool);
}

void *lvx_pool_alloc(struct lvx_pool *pool, size_t size)
{
    void *p = lvx_pool_alloc_uninit(pool, size);
    memset(p, 0, size ? (size + 15) & ~(size_t)15 : 16);
    return p;
}

void *lvx_pool_alloc_uninit(struct lvx_pool *pool, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    struct pool_chunk *c = pool->chunks;
    if (!c || c->size - c->used < size) {
        size_t csize = size > POOL_CHUNK_MIN ? size : POOL_CHUNK_MIN;
        struct pool_chunk *n = lvx_xmalloc(sizeof(*n) + csize);
        n->size = csize;
        n->used = 0;
        if (c && size > POOL_CHUNK_MIN / 4) {
            /* big one-off: keep the current chunk in front for small allocations */
            n->next = c->next;
            c->next = n;
        } else {
            n->next = c;
            pool->chunks = n;
        }
        c = n;
    }
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

void *lvx_pool_realloc(struct lvx_pool *pool, void *old, size_t old_size, size_t new_size)
{
    void *p = lvx_pool_alloc(pool, new_size);
    if (old && old_size)
        memcpy(p, old, old_size < new_size ? old_size : new_size);
    return p;
}

char *lvx_pool_strndup(struct lvx_pool *pool, const char *s, size_t n)
{
    char *p = lvx_pool_alloc(pool, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *lvx_pool_strnum(struct lvx_pool *pool, const char *prefix, uint64_t number)
{
    char tmp[LVX_U64_DIGITS];
    char *digits = lvx_u64_digits(number, tmp);
    size_t plen = strlen(prefix), dlen = (size_t)(tmp + sizeof(tmp) - digits);
    char *p = lvx_pool_alloc_uninit(pool, plen + dlen + 1);
    memcpy(p, prefix, plen);
    memcpy(p + plen, digits, dlen);
    p[plen + dlen] = '\0';
    return p;
}

char *lvx_pool_strdup(struct lvx_pool *pool, const char *s)
{
    return lvx_pool_strndup(pool, s, strlen(s));
}

char *lvx_pool_printf(struct lvx_pool *pool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *p = lvx_pool_alloc(pool, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}
