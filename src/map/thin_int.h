/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/thin_int.h - what the files of the thin metadata module share (not for other
 * layers): the handle, block numbers and checksum constants of docs/dm-formats.md §8,
 * the block cache and reference counts (thin_block.c), the copy-on-write and
 * bulk-built btrees (thin_btree.c), the space maps (thin_sm.c); thin_ops.c (growth,
 * messages) and thin_meta.c work on the handle.
 */
#ifndef LVX_MAP_THIN_INT_H
#define LVX_MAP_THIN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "map/thin_meta.h"

#define TM_BLOCK 4096u
#define TM_SB_XOR 160774u
#define TM_NODE_XOR 121107u
#define TM_BITMAP_XOR 240779u
#define TM_INDEX_XOR 160478u
#define TM_MAGIC 27022010ull
#define TM_ENTRIES_PER_BITMAP 16320u
#define TM_MAX_META_BITMAPS 255u
#define TM_NODE_INTERNAL 1u
#define TM_NODE_LEAF 2u
#define TM_NODE_HDR 32u
#define TM_DETAILS_SIZE 24u
#define TM_MAX_META_BLOCKS ((uint64_t)TM_MAX_META_BITMAPS * TM_ENTRIES_PER_BITMAP)
#define TM_MAX_DATA_BLOCKS (1ull << 40)   /* 40 bits of a mapping's value */

/* A list of metadata blocks (the structures rebuilt at each commit). */
struct tm_blocks {
    uint64_t *b;
    size_t n, cap;
};

struct tm_dev {
    uint64_t id, root, mapped, trans_id;
    uint32_t ctime, stime;
};

struct lvx_thin_meta {
    struct lvx_ctx *ctx;
    struct lvx_pool *pool;
    int fd;
    bool rw, failed;
    uint32_t version, time, flags, data_block_size;
    uint64_t trans_id;
    uint8_t uuid[16];
    uint64_t nr_meta, nr_data;
    uint8_t **cache;          /* per metadata block: its 4 KiB, NULL until read */
    uint8_t *dirty;           /* per metadata block: to write at commit */
    uint32_t *mrc, *drc;      /* reference counts now: metadata, data */
    uint8_t *mcom, *dcom;     /* bit per block: referenced by the last commit */
    uint64_t mhint, dhint;    /* where the next allocation search starts */
    struct tm_blocks aux;     /* blocks of the space maps, details and top-level trees */
    struct tm_dev *devs;      /* sorted by id */
    size_t ndevs, capdevs;
};

/* thin_block.c */
uint32_t tm_crc32c(const uint8_t *p, size_t n);
void tm_seal(uint8_t *b, uint32_t xor_);
bool tm_csum_ok(const uint8_t *b, uint32_t xor_);
/* The block's bytes, read (and checked: checksum with xor_, block number at offset 8)
 * the first time; NULL with an error recorded. */
uint8_t *tm_get(struct lvx_thin_meta *tm, uint64_t b, uint32_t xor_);
/* A new metadata block (count 1, dirty, zeroed, its number at offset 8): 0 or -ENOSPC. */
int tm_alloc_meta(struct lvx_thin_meta *tm, uint64_t *b);
int tm_alloc_data(struct lvx_thin_meta *tm, uint64_t *d);
void tm_meta_dec(struct lvx_thin_meta *tm, uint64_t b);
bool tm_bit(const uint8_t *bits, uint64_t i);
void tm_blocks_add(struct lvx_thin_meta *tm, struct tm_blocks *l, uint64_t b);
int tm_write_block(struct lvx_thin_meta *tm, uint64_t b);

/* thin_btree.c: every tree; values of value_size bytes. */
uint32_t tm_node_max(uint32_t value_size);
/* Visit every node once (block_fn) and every leaf entry (entry_fn) in key order;
 * checks checksums, block numbers, value size, entry counts and key order.  A callback
 * returning non-zero stops the walk with that value. */
typedef int (*tm_block_fn)(void *arg, uint64_t b);
typedef int (*tm_entry_fn)(void *arg, uint64_t key, const uint8_t *value);
int tm_btree_walk(struct lvx_thin_meta *tm, uint64_t root, uint32_t value_size,
                  tm_block_fn block_fn, tm_entry_fn entry_fn, void *arg);
/* Build a new tree of n entries (keys ascending, values n*value_size bytes) in newly
 * allocated blocks, added to *list; *root. */
int tm_btree_build(struct lvx_thin_meta *tm, const uint64_t *keys, const uint8_t *values,
                   size_t n, uint32_t value_size, struct tm_blocks *list, uint64_t *root);
/* Bottom-level mapping trees (values: data block << 24 | time), copy-on-write. */
int tm_map_lookup(struct lvx_thin_meta *tm, uint64_t root, uint64_t key, uint64_t *value);
/* The same from cached blocks only, changing nothing (lvx_thin_lookup_cached): -EAGAIN
 * where tm_map_lookup would read a block or record an error. */
int tm_map_lookup_cached(struct lvx_thin_meta *tm, uint64_t root, uint64_t key, uint64_t *value);
int tm_map_insert(struct lvx_thin_meta *tm, uint64_t *root, uint64_t key, uint64_t value,
                  bool *replaced, uint64_t *old);
int tm_map_remove(struct lvx_thin_meta *tm, uint64_t *root, uint64_t key, uint64_t *old);
int tm_map_empty(struct lvx_thin_meta *tm, uint64_t *root);
/* Drop one reference to a mapping tree: freed at 0 with its children's references. */
int tm_map_dec(struct lvx_thin_meta *tm, uint64_t root);

/* thin_sm.c */
int tm_sm_load(struct lvx_thin_meta *tm, const uint8_t *data_root, const uint8_t *meta_root);
/* Build the space maps of the current counts in new blocks (added to tm->aux) and
 * encode their roots (32 bytes each). */
int tm_sm_build(struct lvx_thin_meta *tm, uint8_t *data_root, uint8_t *meta_root);

#endif
