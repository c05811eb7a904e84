/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/thin_ops.c - what a server of a thin pool asks of its metadata besides the
 * mappings: growing the data and the metadata device (new blocks free, the space maps
 * written with them at the next commit), the pool's messages in the kernel's syntax
 * (create_thin, create_snap, delete, set_transaction_id; device ids of 24 bits as the
 * kernel's dm-thin), and whether a data block is shared.  Entry points: see
 * map/thin_meta.h.
 */
#include "map/thin_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEV_ID ((1ull << 24) - 1)

static int check_growth(struct lvx_thin_meta *tm, const char *what, uint64_t old_n, uint64_t new_n,
                        uint64_t max)
{
    if (tm->failed || !tm->rw)
        return lvx_error(tm->ctx, tm->failed ? EIO : EROFS, "Thin pool metadata cannot change now.");
    if (new_n < old_n)
        return lvx_error(tm->ctx, EINVAL, "Thin pool %s cannot shrink from %" PRIu64 " to %" PRIu64 " blocks.",
                         what, old_n, new_n);
    if (new_n > max)
        return lvx_error(tm->ctx, EINVAL, "Thin pool %s of %" PRIu64 " blocks is too large.", what, new_n);
    return 0;
}

int lvx_thin_resize_data(struct lvx_thin_meta *tm, uint64_t nr_data)
{
    int r = check_growth(tm, "data", tm->nr_data, nr_data, TM_MAX_DATA_BLOCKS);
    if (r < 0)
        return r;
    tm->drc = lvx_pool_realloc(tm->pool, tm->drc, tm->nr_data * sizeof(*tm->drc), nr_data * sizeof(*tm->drc));
    tm->dcom = lvx_pool_realloc(tm->pool, tm->dcom, tm->nr_data / 8 + 1, nr_data / 8 + 1);
    tm->nr_data = nr_data;
    return 0;
}

int lvx_thin_resize_meta(struct lvx_thin_meta *tm, uint64_t dev_bytes)
{
    uint64_t n = dev_bytes / TM_BLOCK;
    if (n > TM_MAX_META_BLOCKS)
        n = TM_MAX_META_BLOCKS;
    int r = check_growth(tm, "metadata", tm->nr_meta, n, TM_MAX_META_BLOCKS);
    if (r < 0)
        return r;
    uint64_t o = tm->nr_meta;
    tm->cache = lvx_pool_realloc(tm->pool, tm->cache, o * sizeof(*tm->cache), n * sizeof(*tm->cache));
    tm->dirty = lvx_pool_realloc(tm->pool, tm->dirty, o, n);
    tm->mrc = lvx_pool_realloc(tm->pool, tm->mrc, o * sizeof(*tm->mrc), n * sizeof(*tm->mrc));
    tm->mcom = lvx_pool_realloc(tm->pool, tm->mcom, o / 8 + 1, n / 8 + 1);
    tm->nr_meta = n;
    return 0;
}

bool lvx_thin_meta_failed(const struct lvx_thin_meta *tm)
{
    return tm->failed;
}

bool lvx_thin_data_shared(const struct lvx_thin_meta *tm, uint64_t d)
{
    return d < tm->nr_data && tm->drc[d] > 1;
}

bool lvx_thin_data_used(const struct lvx_thin_meta *tm, uint64_t d)
{
    return d < tm->nr_data && tm->drc[d] > 0;
}

/* A device id argument: decimal, below 2^24. */
static bool dev_id(const char *s, uint64_t *id)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || *s == '-' || v > MAX_DEV_ID)
        return false;
    *id = v;
    return true;
}

static bool number(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return !errno && end != s && !*end && *s != '-';
}

int lvx_thin_message(struct lvx_thin_meta *tm, const char *msg)
{
    char buf[128], *argv[4], *save = NULL;
    int argc = 0;
    if (snprintf(buf, sizeof(buf), "%s", msg) >= (int)sizeof(buf))
        return lvx_error(tm->ctx, EINVAL, "Thin pool message too long.");
    for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (argc == 4)
            return lvx_error(tm->ctx, EINVAL, "Thin pool message has too many arguments: %s", msg);
        argv[argc++] = t;
    }
    uint64_t a, b;
    if (argc == 2 && !strcmp(argv[0], "create_thin") && dev_id(argv[1], &a))
        return lvx_thin_create_thin(tm, a);
    if (argc == 3 && !strcmp(argv[0], "create_snap") && dev_id(argv[1], &a) && dev_id(argv[2], &b))
        return lvx_thin_create_snap(tm, a, b);
    if (argc == 2 && !strcmp(argv[0], "delete") && dev_id(argv[1], &a))
        return lvx_thin_delete(tm, a);
    if (argc == 3 && !strcmp(argv[0], "set_transaction_id") && number(argv[1], &a) && number(argv[2], &b))
        return lvx_thin_set_transaction_id(tm, a, b);
    return lvx_error(tm->ctx, EINVAL, "Unsupported or invalid thin pool message: %s", msg);
}
