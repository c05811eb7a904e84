/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/cache.h - the scan cache of a session (lvx shell, liblvx handle): what the
 * last label scan found, kept between commands and revalidated before reuse.
 * Reached through ctx->cache; lvx_scan() consults it (meta/scan.c).
 */
#ifndef LVX_META_CACHE_H
#define LVX_META_CACHE_H

struct lvx_cache;

struct lvx_cache *lvx_cache_new(void);
void lvx_cache_free(struct lvx_cache *cache);

#endif
