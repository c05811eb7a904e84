/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/multi.h - operations on many devices at once, run in parallel through the I/O
 * seam (util/parallel.h): what makes commands touching hundreds of PVs (pvcreate,
 * vgcreate, label rewrites) cost about as much as touching a few.
 */
#ifndef LVX_DEV_MULTI_H
#define LVX_DEV_MULTI_H

#include <stdbool.h>

#include "dev/dev.h"

/* Flush (fdatasync) every open device of the list, in parallel; a device listed twice
 * is flushed once.  0, or the error of the first failing device (in list order) with
 * lvx_dev_flush()'s message. */
int lvx_dev_flush_many(struct lvx_ctx *ctx, struct lvx_dev **devs, unsigned count);

/* One write of lvx_dev_write_durable_many(). */
struct lvx_dev_write {
    struct lvx_dev *dev;       /* open read-write (lvx_dev_open_write_direct) */
    const void *buf;           /* any alignment: copied */
    size_t len;                /* bytes, a multiple of 512 */
    uint64_t offset;           /* bytes, a multiple of 512 */
    int result;                /* set by the call: 0 or -errno */
};

/* Write every entry durably (on stable storage when the call returns), all in flight
 * together: one batch of FUA writes (RWF_DSYNC; on an O_DIRECT block device a FUA write,
 * no device flush) through the seam's queue, or, when the seam has none, pwrite +
 * fdatasync on a few threads.  A write an O_DIRECT fd refuses (alignment: EINVAL) or
 * leaves short is done again by lvx_dev_write() + lvx_dev_flush().  The entries are
 * independent: whatever order they land in must be safe (the seam's crash and failure
 * hooks run the batch in list order; from 256 entries on, its two halves on two
 * threads).  0, or the first failure in list order, with
 * lvx_dev_write()'s message. */
int lvx_dev_write_durable_many(struct lvx_ctx *ctx, struct lvx_dev_write *w, unsigned count);

/* lvx_dev_write_many(ctx, w, count, true) is lvx_dev_write_durable_many(); with durable
 * false the writes are plain (O_DIRECT: on the device, seen by every reader, not flushed
 * from its cache), and a retried or queue-less write is written back (sync_file_range)
 * instead of flushed.  Each entry's result is set either way. */
int lvx_dev_write_many(struct lvx_ctx *ctx, struct lvx_dev_write *w, unsigned count, bool durable);

#endif
