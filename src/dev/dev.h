/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/dev.h - devices: which ones a command looks at, their size and topology,
 * and reading/writing them through the I/O seam (io.h).
 *
 * A device is a block device or a regular file (image-file disk).  The list comes
 * from --devices (names given by the user; files allowed) or from the block devices
 * of /proc/partitions (never regular files).
 */
#ifndef LVX_DEV_DEV_H
#define LVX_DEV_DEV_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/ctx.h"
#include "util/pool.h"

struct lvx_dev {
    const char *path;          /* name used to report it (as given, or /dev/<name>) */
    bool is_file;              /* regular file (image disk) */
    uint32_t major, minor;     /* 0:0 for files */
    uint64_t size;             /* bytes */
    unsigned logical_block_size;   /* 512 until lvx_dev_read_topology() */
    uint64_t io_min, io_opt, alignment_offset;   /* topology (ioctls or sysfs), bytes (0 if unknown);
                                                  * read by lvx_dev_read_topology() only */
    bool topology_known;       /* lvx_dev_read_topology() has run */
    int fd;                    /* -1 when closed */
    bool writable;             /* opened read-write */
    bool direct;               /* fd has O_DIRECT (lvx_dev_open_direct): aligned reads only,
                                * until lvx_dev_end_direct() */
    bool is_link;              /* path is a symlink (system list: lstat of the node) */
    bool is_lv;                /* an active LV (dev/lv_dev.h); set by the lists */
};

struct lvx_devlist {
    unsigned count;
    struct lvx_dev **devs;
};

/* A block device of a system list read back from where it was kept (meta/index.c):
 * closed, size_hint as listed (lvx_dev_open() gets the exact size). */
struct lvx_dev *lvx_dev_new_listed(struct lvx_pool *pool, const char *path, uint32_t major,
                                   uint32_t minor, uint64_t size_hint, bool is_link);

/* Devices named explicitly (--devices; comma separated lists already split).  Each must
 * exist and be a block device or regular file; -ENOENT/-EINVAL with a message otherwise.
 * Duplicates (same device reached by two names) are listed once. */
int lvx_devs_from_names(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *const *names,
                        unsigned count, struct lvx_devlist *out);
/* The same for devices named on a command line: each[i] is names[i]'s device (one
 * device reached by two names is listed once, both point at it), or NULL when names[i]
 * is no block device or regular file (no error: the caller says "No device found"). */
int lvx_devs_from_names_each(struct lvx_ctx *ctx, struct lvx_pool *pool,
                             const char *const *names, unsigned count, struct lvx_devlist *out,
                             struct lvx_dev **each);
/* All block devices of /proc/partitions (as /dev/<name>) that can be opened. */
int lvx_devs_from_system(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_devlist *out);

/* Open (read-only or read-write, O_DIRECT not used for metadata), fill the size. */
int lvx_dev_open(struct lvx_ctx *ctx, struct lvx_dev *dev, bool write);
/* Open read-only for one batched head read that bypasses the page cache: O_DIRECT for
 * a block device (no readahead, no page cache to fill and drop at close), plain for
 * files or when the device refuses O_DIRECT.  Buffers and offsets given to
 * lvx_dev_read_many() must then be 512-byte aligned; lvx_dev_read/write and
 * lvx_dev_end_direct() switch the fd back to buffered I/O. */
int lvx_dev_open_direct(struct lvx_ctx *ctx, struct lvx_dev *dev);
/* lvx_dev_open_direct() of many devices, spread over a few threads; results[i] gets 0 or a negative
 * errno, and nothing is recorded in ctx (call lvx_dev_open_direct() on a failed one for
 * its message). */
void lvx_dev_open_direct_many(struct lvx_ctx *ctx, struct lvx_dev **devs, unsigned count,
                              int *results);
/* Open read-write for batched durable writes (dev/multi.h lvx_dev_write_durable_many):
 * O_DIRECT for a block device (FUA writes, no page cache to dirty, read-modify-write or
 * sync at close), plain for files or when O_DIRECT is refused.  An fd already open
 * read-write is kept as it is; a read-only one is replaced by a new read-write fd,
 * opened before the old one is closed (neither is the device's first open or last
 * close: cheap, no partition or media check).  Only a command that is about to write
 * calls this: a device opened read-write raises inotify IN_CLOSE_WRITE at its close, and
 * udev turns that into a change event and a probe.  As lvx_dev_open_direct(),
 * lvx_dev_read/write switch the fd to buffered I/O. */
int lvx_dev_open_write_direct(struct lvx_ctx *ctx, struct lvx_dev *dev);
/* Close many devices (those open), spread over a few threads; no ctx needed. */
void lvx_dev_close_many(const struct lvx_dev_ops *io, struct lvx_dev **devs, unsigned count);
/* A block device held exclusively by someone else (mounted, or opened with O_EXCL):
 * an O_EXCL open refused with EBUSY.  Files are never held. */
bool lvx_dev_held(struct lvx_ctx *ctx, const struct lvx_dev *dev);

/* LVM2's device-cache order: its tree is keyed by the device number ((uint32_t)makedev,
 * glibc's layout) with the key's bytes reversed and walked in key order; lists LVM2
 * prints in that order (lvmdiskscan, pvscan's PVs in no VG) sort by this key. */
uint32_t lvx_dev_tree_key(unsigned major, unsigned minor);
/* Clear O_DIRECT on an fd opened by lvx_dev_open_direct() (no-op otherwise). */
void lvx_dev_end_direct(struct lvx_ctx *ctx, struct lvx_dev *dev);
/* Fill io_min, io_opt, alignment_offset (ioctls of an open device, else sysfs) and
 * logical_block_size (open device) once;
 * block devices only.
 * Only PV creation needs them, so a scan of many devices does not pay for them. */
void lvx_dev_read_topology(struct lvx_dev *dev);
/* The same through fd, another open of dev (dev->fd may be closed). */
void lvx_dev_read_topology_fd(struct lvx_dev *dev, int fd);
/* The logical block size the kernel reports for a block device (BLKSSZGET on an open
 * device: a thousand devices cost a thousand cheap calls, not sysfs path walks; else
 * sysfs), 0 when unknown (a file, no sysfs entry). */
unsigned lvx_dev_logical_block_size_now(const struct lvx_dev *dev);
void lvx_dev_close(struct lvx_ctx *ctx, struct lvx_dev *dev);
/* Exact-length I/O; short reads past the end fail with -EIO and a message naming the device. */
int lvx_dev_read(struct lvx_ctx *ctx, struct lvx_dev *dev, void *buf, size_t len, uint64_t offset);
int lvx_dev_write(struct lvx_ctx *ctx, struct lvx_dev *dev, const void *buf, size_t len,
                  uint64_t offset);
int lvx_dev_flush(struct lvx_ctx *ctx, struct lvx_dev *dev);
/* The device's dirty pages written to it and waited for (what O_DIRECT readers, e.g.
 * LVM2, then see), without a cache flush; a seam without writeback flushes. */
int lvx_dev_writeback(struct lvx_ctx *ctx, struct lvx_dev *dev);

/* Read [offset, offset+len) of many open devices in one batch (io_uring; from 256 on, two
 * halves on two threads, all in flight together).  bufs[i] must
 * hold len bytes; errs[i] gets 0 or -errno (a short read near the end zero-fills the rest
 * and reports the bytes read in lens[i] if lens is not NULL). */
int lvx_dev_read_many(struct lvx_ctx *ctx, struct lvx_dev **devs, unsigned count, uint64_t offset,
                      size_t len, uint8_t **bufs, int *errs, size_t *lens);

#endif
