/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/cache.h - the scan cache of a session (lvx shell, liblvx handle): the last
 * label scan, kept between commands with its devices open, and revalidated cheaply
 * before each reuse.  Reached through ctx->cache: lvx_scan() asks lvx_cache_scan().
 *
 * Reuse rules (a change made by anybody else must be seen, never overwritten):
 *   - the device list (--devices names, or /proc/partitions through the filter) must be
 *     the same devices (path, device number) as when the scan was made;
 *   - the first 4 KiB of every listed device (labels, PV headers) and the 512-byte
 *     header of every metadata area (its slots carry offset, size and checksum of the
 *     committed text) must be byte-identical, and sizes unchanged.  Writers call
 *     lvx_scan() after taking the VG lock, so for them this check runs under the lock;
 *   - the values recorded for the check are read *before* the scan they vouch for, so
 *     a change racing with the scan makes the next check fail, never pass;
 *   - a scan given back with a device reopened for writing (the command wrote) or
 *     closed is dropped: the next command scans afresh.
 * A scan is lent to one user at a time; a second lvx_scan() meanwhile is uncached.
 */
#ifndef LVX_META_CACHE_H
#define LVX_META_CACHE_H

#include "meta/scan.h"

struct lvx_cache;

struct lvx_cache *lvx_cache_new(void);
void lvx_cache_free(struct lvx_cache *cache);

/* lvx_scan() with ctx->cache set: the cached scan when still valid, else a new one
 * (then cached).  The scan is lent: lvx_scan_free() gives it back. */
int lvx_cache_scan(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts, struct lvx_scan **out);
void lvx_cache_return(struct lvx_cache *cache, struct lvx_scan *scan);

/* Counters (for tests and benchmarks). */
void lvx_cache_stats(const struct lvx_cache *cache, unsigned *hits, unsigned *misses);

#endif
