/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/cache.c - the scan cache of a session (see cache.h).
 */
#include "meta/cache.h"
#include "util/pool.h"

#include <stdlib.h>

struct lvx_cache {
    unsigned hits, misses;
};

struct lvx_cache *lvx_cache_new(void)
{
    return lvx_xcalloc(1, sizeof(struct lvx_cache));
}

void lvx_cache_free(struct lvx_cache *cache)
{
    free(cache);
}
