/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/cache.h - the scan cache of a session (lvx shell, liblvx handle): the last
 * label scan, kept between commands with its devices open, and revalidated cheaply
 * before each reuse.  Reached through ctx->cache: the read front's lvx_scan()
 * (meta/read.h) asks lvx_cache_scan().
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
 *   - the system device list is listed again (a stat and a filter match per device of
 *     the system) only when what it is built from changes: the kernel's devices (seen
 *     through its uevent sequence number, else /proc/partitions), lvm.conf, the
 *     --config text;
 *   - a commit through the lent scan (meta/commit.c) keeps the scan: the commit puts the
 *     text it wrote and the tree it printed that text from into the scan's areas (no
 *     re-read, no re-parse) and reports its header and label writes here, which patch
 *     the record, so the next check compares the disk with what this session wrote.
 *     Any other difference (another lvx, LVM2) still fails the check;
 *   - a scan given back after a failed commit, with a device written outside a
 *     successful commit, or a device closed, is dropped: the next command scans afresh.
 * A scan is lent to one user at a time; a second lvx_scan() meanwhile is uncached.
 *
 * The VG set of an LV command (meta/update.h, LVX_UPDATE_KEEP_SET) may be kept too: after
 * the command's last step was a successful commit, its in-memory VG is the version on
 * disk, so the next LV command takes it instead of importing the text again.  It is
 * good only for the same kept scan with no rescan, drop or commit since (a generation
 * count); anything else frees it.
 */
#ifndef LVX_META_CACHE_H
#define LVX_META_CACHE_H

#include "meta/scan.h"

struct lvx_cache;

struct lvx_cache *lvx_cache_new(void);
void lvx_cache_free(struct lvx_cache *cache);

/* lvx_scan() with ctx->cache set: the cached scan when still valid, else a new one
 * (then cached).  The scan is lent (its origin names the cache): lvx_scan_free() gives
 * it back.  -EBUSY while the cache's scan is lent already (the caller reads uncached). */
int lvx_cache_scan(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts, struct lvx_scan **out);
void lvx_cache_return(struct lvx_cache *cache, struct lvx_scan *scan);

/* Called by the commit of a lent scan (origin->cache set), through the cache it was lent
 * by.  lvx_cache_text_pool(): the pool to hold the new text and tree of VG `vg_uuid`
 * (the VG's previous one is freed when the scan comes back, after the command's VG
 * set); lvx_cache_note_write(): a write of the commit that succeeded (metadata text,
 * header, label: ranges of the record are patched); lvx_cache_note_commit(): the end of
 * the commit (ok: every phase done and the scan's areas hold `text` of `size` bytes). */
struct lvx_pool *lvx_cache_text_pool(struct lvx_cache *cache, const char *vg_uuid);
void lvx_cache_note_write(struct lvx_cache *cache, struct lvx_dev *dev, uint64_t offset,
                          const void *bytes, size_t len);
void lvx_cache_note_commit(struct lvx_cache *cache, bool ok, const char *text, size_t size);

/* Keep `set` (assembled from the lent `scan`, its VGs as last committed) for the next
 * lvx_cache_take_set(); false (nothing kept, the caller still owns set) when the scan is
 * not this cache's or a commit through it failed or is unfinished.  Take: the kept set if
 * it is still good for `scan` (owned by the caller from then on), else NULL. */
bool lvx_cache_keep_set(struct lvx_cache *cache, const struct lvx_scan *scan,
                        struct lvx_vgset *set);
struct lvx_vgset *lvx_cache_take_set(struct lvx_cache *cache, const struct lvx_scan *scan);

/* Counters (for tests and benchmarks). */
void lvx_cache_stats(const struct lvx_cache *cache, unsigned *hits, unsigned *misses);

#endif
