/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/cow_store.h - the exception store of a COW snapshot in the kernel's persistent
 * format (docs/dm-formats.md §7): header chunk, metadata areas of (old_chunk,
 * new_chunk) records each followed by the data chunks they describe, the allocation
 * of the next free chunk, and the in-memory table old chunk -> COW chunk.  Pure: no
 * I/O (the caller reads and writes the chunks), memory only at lvx_cow_init() and
 * lvx_cow_grow().
 */
#ifndef LVX_MAP_COW_STORE_H
#define LVX_MAP_COW_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LVX_COW_MAGIC 0x70416E53u     /* "SnAp" little-endian */
#define LVX_COW_VERSION 1u
#define LVX_COW_RECORD 16u            /* bytes of one exception record */

struct lvx_cow_header {
    uint32_t magic, valid, version, chunk;   /* chunk: sectors */
};

/* Decode the first 16 bytes of chunk 0. */
void lvx_cow_header_decode(const uint8_t *b, struct lvx_cow_header *h);
/* Chunk 0 of chunk_bytes: the header (valid or not), the rest zero. */
void lvx_cow_header_encode(uint8_t *b, size_t chunk_bytes, bool valid, uint32_t chunk);
/* A header the kernel accepts: 0 new (magic 0), 1 existing, -EINVAL otherwise
 * (bad magic, version, or a chunk size that is no power of two >= 8 sectors). */
int lvx_cow_header_check(const struct lvx_cow_header *h);

struct lvx_cow {
    uint32_t chunk;            /* sectors per chunk */
    uint64_t epa;              /* exception records per metadata area */
    uint64_t sectors;          /* of the COW LV */
    uint64_t chunks;           /* whole chunks of the COW LV */
    uint64_t next_free;        /* next COW chunk to hand out */
    uint64_t area;             /* the current metadata area */
    uint64_t committed;        /* records in the current area */
    uint64_t count;            /* records in the table */
    bool valid;                /* false: invalidated (header valid 0, overflow, I/O error) */
    /* open addressing, linear probing: old chunk -> new chunk (new 0 = empty slot) */
    uint64_t *old, *new_;
    uint64_t mask;             /* capacity - 1 */
};

/* Set up an empty store for a COW LV of cow_sectors with chunk sectors; the table
 * holds up to max_records (at most the store's data chunks are used).  0 or -ENOMEM. */
int lvx_cow_init(struct lvx_cow *s, uint32_t chunk, uint64_t cow_sectors, uint64_t max_records);
void lvx_cow_free(struct lvx_cow *s);
/* The COW LV grew to cow_sectors (lvextend): more chunks to hand out, the table
 * rebuilt larger for up to max_records (at most the new data chunks) when it must.
 * 0, or -ENOMEM with the store unchanged. */
int lvx_cow_grow(struct lvx_cow *s, uint64_t cow_sectors, uint64_t max_records);

/* COW chunk of metadata area a. */
uint64_t lvx_cow_area_chunk(const struct lvx_cow *s, uint64_t a);
/* Load the records of the current area (s->area) from its chunk: 1 when the area is
 * full (the caller moves to the next one: lvx_cow_next_area() then loads it, if it
 * lies inside the COW LV), 0 when the list ended in it (the store is loaded), -EINVAL
 * for a record naming a chunk outside the data chunks of the COW. */
int lvx_cow_load_area(struct lvx_cow *s, const uint8_t *area);
void lvx_cow_next_area(struct lvx_cow *s);

/* The COW chunk holding old chunk `old`, or 0 when it has no exception. */
uint64_t lvx_cow_lookup(const struct lvx_cow *s, uint64_t old);
/* Hand out the next free chunk into *out: 0, or -ENOSPC when the COW is full. */
int lvx_cow_alloc(struct lvx_cow *s, uint64_t *out);
/* Put record (old, new_chunk) at the next index of the current area (area: the
 * current area's chunk in memory).  Returns 1 when the area is now full: the caller
 * zeroes the next area on disk, writes this one, then calls lvx_cow_next_area() and
 * zeroes its buffer; else 0.  The record goes into the table with lvx_cow_insert()
 * once it is on disk. */
int lvx_cow_commit(struct lvx_cow *s, uint8_t *area, uint64_t old, uint64_t new_chunk);
/* Add old -> new_chunk to the table (a committed record). */
void lvx_cow_insert(struct lvx_cow *s, uint64_t old, uint64_t new_chunk);
/* Merging (the kernel's snapshot-merge order: records leave the store from its end,
 * the last area first).  lvx_cow_merge_prev_area(): when the current area is empty
 * and an earlier one exists, step back to it (full: the caller reads it into its area
 * buffer) and return true.  lvx_cow_merge_last(): the last k records of the current
 * area (k <= max, last record first) into olds/news.  lvx_cow_merge_drop(): those k
 * records zeroed in the area buffer and dropped from the table (the caller has copied
 * their chunks back to the origin and flushed; it writes the area next); the usage
 * numbers follow, so the store reads "merged" (allocated == metadata) when empty. */
bool lvx_cow_merge_prev_area(struct lvx_cow *s);
unsigned lvx_cow_merge_last(const struct lvx_cow *s, const uint8_t *area, uint64_t *olds,
                            uint64_t *news, unsigned max);
void lvx_cow_merge_drop(struct lvx_cow *s, uint8_t *area, unsigned k);
/* The kernel's status numbers (sectors): allocated, total, metadata. */
void lvx_cow_usage(const struct lvx_cow *s, uint64_t *used, uint64_t *total, uint64_t *meta);

#endif
