/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/thin_meta.h - a thin pool's metadata (the _tmeta LV) in the kernel's on-disk
 * format (docs/dm-formats.md §8): open and check it, format it empty, read device
 * details and mappings, and change it in transactions (create_thin, create_snap,
 * delete, map a new data block, remove a mapping, set_transaction_id) made durable by
 * lvx_thin_commit().  Blocks the last committed superblock references are never
 * written, so a crash leaves the old or the new transaction.  The caller opens the
 * device (through the I/O seam) and passes its fd and size; every read, write and
 * flush goes through lvx_io(ctx).  Memory comes from the caller's arena, at most about
 * the size of the metadata plus 8 bytes per data block.
 */
#ifndef LVX_MAP_THIN_META_H
#define LVX_MAP_THIN_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/ctx.h"
#include "util/pool.h"

struct lvx_thin_meta;

struct lvx_thin_info {
    uint32_t version, time, flags;
    uint64_t trans_id;
    uint32_t data_block_size;        /* sectors */
    uint64_t nr_data, data_used;     /* data blocks: all, referenced */
    uint64_t nr_meta, meta_used;     /* metadata blocks (4 KiB): all, referenced */
};

struct lvx_thin_details {
    uint64_t id, mapped_blocks, trans_id;
    uint32_t creation_time, snapshotted_time;
};

/* Open existing metadata on fd (dev_bytes long): superblock checksum, magic, version
 * 1/2, block sizes, space maps and trees are checked.  rw: changes allowed. */
int lvx_thin_meta_open(struct lvx_ctx *ctx, struct lvx_pool *pool, int fd, uint64_t dev_bytes,
                       bool rw, struct lvx_thin_meta **out);
/* Write empty metadata (no devices, transaction 0) for a pool of nr_data blocks of
 * data_block_size sectors and return it open read-write. */
int lvx_thin_meta_format(struct lvx_ctx *ctx, struct lvx_pool *pool, int fd, uint64_t dev_bytes,
                         uint32_t data_block_size, uint64_t nr_data,
                         struct lvx_thin_meta **out);

void lvx_thin_meta_info(const struct lvx_thin_meta *tm, struct lvx_thin_info *info);
/* The devices in id order: fills up to max, returns how many there are. */
size_t lvx_thin_meta_devices(const struct lvx_thin_meta *tm, struct lvx_thin_details *out,
                             size_t max);
/* One device: 0, or -ENOENT (no error recorded). */
int lvx_thin_meta_device(const struct lvx_thin_meta *tm, uint64_t id,
                         struct lvx_thin_details *out);

/* Mapping of (device, virtual block): 1 with *data and *time, 0 when unmapped,
 * -errno (unknown device, unreadable block). */
int lvx_thin_lookup(struct lvx_thin_meta *tm, uint64_t id, uint64_t vblock, uint64_t *data,
                    uint32_t *time);
/* The same from the blocks already in memory only, and changing nothing in tm (no
 * read, no error recorded), so that lookups may run at once in several threads while
 * no change runs: 1, 0, or -EAGAIN where lvx_thin_lookup would have to read a block
 * or would fail (ask it then, without other lookups running). */
int lvx_thin_lookup_cached(struct lvx_thin_meta *tm, uint64_t id, uint64_t vblock,
                           uint64_t *data, uint32_t *time);
/* Every mapping of a device in virtual block order; fn returning non-zero stops the
 * walk with that value. */
typedef int (*lvx_thin_walk_fn)(void *arg, uint64_t vblock, uint64_t data, uint32_t time);
int lvx_thin_walk(struct lvx_thin_meta *tm, uint64_t id, lvx_thin_walk_fn fn, void *arg);

/* Transaction steps (kept in memory until lvx_thin_commit()). */
int lvx_thin_create_thin(struct lvx_thin_meta *tm, uint64_t id);
int lvx_thin_create_snap(struct lvx_thin_meta *tm, uint64_t id, uint64_t origin);
int lvx_thin_delete(struct lvx_thin_meta *tm, uint64_t id);
/* Map vblock of device id to a newly allocated data block (*data), at the current
 * time; a previous mapping of vblock is replaced (its data block released).
 * -ENOSPC when the data or the metadata is full. */
int lvx_thin_map_new(struct lvx_thin_meta *tm, uint64_t id, uint64_t vblock, uint64_t *data);
/* Remove the mapping of vblock (discard): 1 removed, 0 it was not mapped. */
int lvx_thin_remove(struct lvx_thin_meta *tm, uint64_t id, uint64_t vblock);
int lvx_thin_set_transaction_id(struct lvx_thin_meta *tm, uint64_t old_id, uint64_t new_id);
/* Data blocks the pool's data device now holds (grow only, as the kernel). */
int lvx_thin_resize_data(struct lvx_thin_meta *tm, uint64_t nr_data);
/* A larger metadata device (dev_bytes; grow only, capped as at format). */
int lvx_thin_resize_meta(struct lvx_thin_meta *tm, uint64_t dev_bytes);
/* A pool message as the kernel's thin-pool takes it: "create_thin ID",
 * "create_snap ID ORIGIN", "delete ID", "set_transaction_id OLD NEW" (ids below 2^24). */
int lvx_thin_message(struct lvx_thin_meta *tm, const char *msg);
/* Whether data block d is referenced from more than one place (a write to it must go
 * to a new block). */
bool lvx_thin_data_shared(const struct lvx_thin_meta *tm, uint64_t d);
/* Whether data block d is referenced at all (after a removal: freed when not). */
bool lvx_thin_data_used(const struct lvx_thin_meta *tm, uint64_t d);
/* An earlier change failed half-way: the handle refuses changes (reopen). */
bool lvx_thin_meta_failed(const struct lvx_thin_meta *tm);
/* Write the transaction: new blocks, flush, superblock, flush.  After a failed commit
 * the handle refuses everything (reopen: the disk holds the last commit). */
int lvx_thin_commit(struct lvx_thin_meta *tm);

#endif
