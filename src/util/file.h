/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/file.h - bounded whole-file reads: every file lvx reads in one piece (lvm.conf,
 * backup and archive files, the device index, the daemon's state file, /proc lists)
 * goes through here, so that a device node, a FIFO or an endless file given where a
 * file is expected is refused instead of read forever (as LVM2: "... is not a regular
 * file").
 *
 * The caps (bytes; a file larger than its cap is refused, never truncated):
 *  - LVX_FILE_MAX_CONFIG (16 MiB): lvm.conf.  LVM2's fully commented default lvm.conf
 *    is about 100 KiB; a hundred times that is no configuration a person wrote.
 *  - LVX_FILE_MAX_METADATA (128 MiB): backup/archive files (vgcfgrestore -f,
 *    pvcreate --restorefile).  Such a file holds one VG's metadata text, and LVM2 keeps
 *    that text in half of a metadata area less a sector (lvm2-format.md §6): the
 *    default area is 1 MiB; 128 MiB of text would need areas of 256 MiB, and parsing it
 *    takes a few times its size in memory.
 *  - LVX_FILE_MAX_INDEX (64 MiB): the device index lvx writes itself (a line of about
 *    200 bytes per PV: room for some 300000 PVs).
 *  - LVX_FILE_MAX_PROC (64 MiB): kernel lists (/proc/partitions: ~40 bytes a device).
 *  - LVX_FILE_MAX_STATE (16 MiB): the daemon's state file (one line per active LV).
 *
 * Entry points: lvx_buf_read_file(), lvx_pool_read_file().
 */
#ifndef LVX_UTIL_FILE_H
#define LVX_UTIL_FILE_H

#include <stddef.h>

#define LVX_FILE_MAX_CONFIG   ((size_t)16 << 20)
#define LVX_FILE_MAX_METADATA ((size_t)128 << 20)
#define LVX_FILE_MAX_INDEX    ((size_t)64 << 20)
#define LVX_FILE_MAX_PROC     ((size_t)64 << 20)
#define LVX_FILE_MAX_STATE    ((size_t)16 << 20)

struct lvx_ctx;
struct lvx_buf;
struct lvx_pool;

/* Append the whole file at path to b: a regular file (symlinks followed) of at most max
 * bytes.  0, or a negative errno with one line recorded in ctx (ctx may be NULL):
 *   -ENOENT etc.  "PATH: stat failed: <strerror>" (also open / read failures)
 *   -EINVAL       "PATH is not a regular file"
 *   -EFBIG        "PATH is larger than N bytes"
 * Nothing is appended on failure. */
int lvx_buf_read_file(struct lvx_ctx *ctx, struct lvx_buf *b, const char *path, size_t max);

/* The same file, NUL-terminated, in pool (*len = its size); NULL on failure (ctx as
 * above, and errno set to the error). */
char *lvx_pool_read_file(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *path,
                         size_t max, size_t *len);

#endif
