/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/read.h - the VG read front: what every reader of VGs (commands, the update
 * cycle, the object API, the daemon) calls.  It decides what to read and hands the
 * reading to the plain scanner below it (meta/scan.h: labels -> mda headers -> text):
 *   - a session's scan cache (meta/cache.h) when ctx->cache is set: the last scan,
 *     revalidated, lent to the caller;
 *   - else, for named VGs, the device index (meta/index.h): only their devices, with
 *     the fallback to every device when the index is stale or the VGs come out not
 *     whole or not clean;
 *   - else every device (--devices, or the system list through the lvm.conf filters).
 * After assembling a scan of every system device it rewrites the index.  Where a scan
 * came from is recorded in its origin (struct lvx_scan_origin), which the scanner
 * never reads.
 */
#ifndef LVX_META_READ_H
#define LVX_META_READ_H

#include "meta/scan.h"

/* A scan for opts (see above).  0, or a negative errno when the device list cannot be
 * built or the batched read cannot run. */
int lvx_scan(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts, struct lvx_scan **out);
/* Every device of opts (no cache, no index). */
int lvx_scan_uncached(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                      struct lvx_scan **out);
/* Free a scan, or give it back to the session cache that lent it. */
void lvx_scan_free(struct lvx_scan *scan);

/* lvx_scan_vgs(), then the device index rewritten when the scan read every system
 * device. */
int lvx_read_vgs(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_vgset **set);

/* lvx_scan() + lvx_read_vgs(), through the index when opts->vg_names is set: when the
 * narrowed result does not pass (meta/index.h check 3), its messages are dropped and
 * every device is read. */
int lvx_scan_assemble(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                      struct lvx_scan **scan, struct lvx_vgset **set);
/* The assembly half of lvx_scan_assemble(), for a scan the caller already made with the
 * same opts (*scan may be replaced by a full one; freed by the caller either way). */
int lvx_scan_assemble_from(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                           struct lvx_scan **scan, struct lvx_vgset **set);

#endif
