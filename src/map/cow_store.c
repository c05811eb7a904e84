/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/cow_store.c - a COW snapshot's exception store in the kernel's persistent
 * format (docs/dm-formats.md §7, facts from drivers/md/dm-snap-persistent.c): chunk 0
 * the header ("SnAp", valid, version 1, chunk size), metadata area a at chunk
 * 1 + a*(E+1) (E = chunk bytes / 16 records), each followed by the E data chunks it
 * describes; the record list ends at the first new_chunk 0.  Allocation hands out
 * chunks from 2 upwards, stepping over metadata chunks, and fails when the next
 * chunk would not fit the COW LV.  The table old -> new chunk is an open-addressing
 * hash sized once, so serving never allocates.  Pure: the daemon's snapshot target
 * (daemon/target_snapshot.c) does the I/O and the ordering.
 *
 * Entry points: lvx_cow_header_*(), lvx_cow_init(), lvx_cow_load_area(),
 * lvx_cow_grow(), lvx_cow_lookup(), lvx_cow_alloc(), lvx_cow_commit(), lvx_cow_insert(),
 * lvx_cow_merge_*() (records leaving the store from its end, as the kernel's merge
 * takes them), lvx_cow_usage().
 */
#include "map/cow_store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/snapshot.h"

#define HEADER_CHUNKS 1u   /* chunk 0; area 0 follows it */

static uint32_t get32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get64(const uint8_t *b)
{
    return (uint64_t)get32(b) | (uint64_t)get32(b + 4) << 32;
}

static void put32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *b, uint64_t v)
{
    put32(b, (uint32_t)v);
    put32(b + 4, (uint32_t)(v >> 32));
}

void lvx_cow_header_decode(const uint8_t *b, struct lvx_cow_header *h)
{
    h->magic = get32(b);
    h->valid = get32(b + 4);
    h->version = get32(b + 8);
    h->chunk = get32(b + 12);
}

void lvx_cow_header_encode(uint8_t *b, size_t chunk_bytes, bool valid, uint32_t chunk)
{
    memset(b, 0, chunk_bytes);
    put32(b, LVX_COW_MAGIC);
    put32(b + 4, valid ? 1 : 0);
    put32(b + 8, LVX_COW_VERSION);
    put32(b + 12, chunk);
}

int lvx_cow_header_check(const struct lvx_cow_header *h)
{
    if (h->magic == 0)
        return 0;
    if (h->magic != LVX_COW_MAGIC || h->version != LVX_COW_VERSION || h->chunk == 0 ||
        (h->chunk & (h->chunk - 1)) || h->chunk > LVX_SNAPSHOT_MAX_CHUNK)
        return -EINVAL;
    return 1;
}

/* A table of at least 16 slots, at most half used by max_records. */
static uint64_t table_slots(uint64_t max_records)
{
    uint64_t cap = 16;
    while (cap < 2 * max_records)
        cap <<= 1;
    return cap;
}

int lvx_cow_init(struct lvx_cow *s, uint32_t chunk, uint64_t cow_sectors, uint64_t max_records)
{
    memset(s, 0, sizeof(*s));
    if (chunk == 0 || (chunk & (chunk - 1)))
        return -EINVAL;
    s->chunk = chunk;
    s->epa = (uint64_t)chunk * 512 / LVX_COW_RECORD;
    s->sectors = cow_sectors;
    s->chunks = cow_sectors / chunk;
    s->next_free = HEADER_CHUNKS + 1;
    s->valid = true;
    if (max_records > s->chunks)
        max_records = s->chunks;
    uint64_t cap = table_slots(max_records);
    s->old = calloc(cap, sizeof(*s->old));
    s->new_ = calloc(cap, sizeof(*s->new_));
    if (!s->old || !s->new_) {
        lvx_cow_free(s);
        return -ENOMEM;
    }
    s->mask = cap - 1;
    return 0;
}

int lvx_cow_grow(struct lvx_cow *s, uint64_t cow_sectors, uint64_t max_records)
{
    if (cow_sectors <= s->sectors)
        return 0;
    uint64_t chunks = cow_sectors / s->chunk;
    uint64_t cap = table_slots(max_records < chunks ? max_records : chunks);
    if (cap > s->mask + 1) {
        uint64_t *old = calloc(cap, sizeof(*old)), *nw = calloc(cap, sizeof(*nw));
        if (!old || !nw) {
            free(old);
            free(nw);
            return -ENOMEM;
        }
        struct lvx_cow t = *s;
        t.old = old;
        t.new_ = nw;
        t.mask = cap - 1;
        t.count = 0;
        for (uint64_t i = 0; s->mask && i <= s->mask; i++)
            if (s->new_[i])
                lvx_cow_insert(&t, s->old[i], s->new_[i]);
        free(s->old);
        free(s->new_);
        *s = t;
    }
    s->sectors = cow_sectors;
    s->chunks = chunks;
    return 0;
}

void lvx_cow_free(struct lvx_cow *s)
{
    free(s->old);
    free(s->new_);
    s->old = s->new_ = NULL;
    s->mask = 0;
}

uint64_t lvx_cow_area_chunk(const struct lvx_cow *s, uint64_t a)
{
    return HEADER_CHUNKS + a * (s->epa + 1);
}

static bool is_meta_chunk(const struct lvx_cow *s, uint64_t c)
{
    return c % (s->epa + 1) == HEADER_CHUNKS;
}

static uint64_t slot_of(const struct lvx_cow *s, uint64_t old)
{
    uint64_t h = old * 0x9E3779B97F4A7C15ull;
    return (h ^ (h >> 29)) & s->mask;
}

uint64_t lvx_cow_lookup(const struct lvx_cow *s, uint64_t old)
{
    if (!s->mask)
        return 0;
    for (uint64_t i = slot_of(s, old);; i = (i + 1) & s->mask) {
        if (s->new_[i] == 0)
            return 0;
        if (s->old[i] == old)
            return s->new_[i];
    }
}

void lvx_cow_insert(struct lvx_cow *s, uint64_t old, uint64_t new_chunk)
{
    for (uint64_t i = slot_of(s, old);; i = (i + 1) & s->mask) {
        if (s->new_[i] == 0) {
            s->old[i] = old;
            s->new_[i] = new_chunk;
            s->count++;
            return;
        }
        if (s->old[i] == old) {       /* a later record of the same chunk wins */
            s->new_[i] = new_chunk;
            return;
        }
    }
}

static void skip_meta(struct lvx_cow *s)
{
    if (is_meta_chunk(s, s->next_free))
        s->next_free++;
}

int lvx_cow_load_area(struct lvx_cow *s, const uint8_t *area)
{
    for (uint64_t i = 0; i < s->epa; i++) {
        uint64_t old = get64(area + i * LVX_COW_RECORD);
        uint64_t nc = get64(area + i * LVX_COW_RECORD + 8);
        if (nc == 0) {
            s->committed = i;
            skip_meta(s);
            return 0;
        }
        /* a data chunk inside the COW, and room in the table (half full at most) */
        if (nc <= HEADER_CHUNKS || nc >= s->chunks || is_meta_chunk(s, nc) ||
            2 * (s->count + 1) > s->mask + 1)
            return -EINVAL;
        if (s->next_free <= nc)
            s->next_free = nc + 1;
        lvx_cow_insert(s, old, nc);
    }
    s->committed = s->epa;
    skip_meta(s);
    return 1;
}

void lvx_cow_next_area(struct lvx_cow *s)
{
    s->area++;
    s->committed = 0;
}

int lvx_cow_alloc(struct lvx_cow *s, uint64_t *out)
{
    if (s->sectors < (s->next_free + 1) * s->chunk || 2 * (s->count + 1) > s->mask + 1)
        return -ENOSPC;
    *out = s->next_free++;
    skip_meta(s);
    return 0;
}

int lvx_cow_commit(struct lvx_cow *s, uint8_t *area, uint64_t old, uint64_t new_chunk)
{
    put64(area + s->committed * LVX_COW_RECORD, old);
    put64(area + s->committed * LVX_COW_RECORD + 8, new_chunk);
    s->committed++;
    return s->committed == s->epa;
}

/* Take old's entry out of the table: the entries after it in its probe run move
 * back into the hole when their home slot allows (linear probing's deletion). */
static void table_remove(struct lvx_cow *s, uint64_t old)
{
    uint64_t i = slot_of(s, old);
    for (;; i = (i + 1) & s->mask) {
        if (s->new_[i] == 0)
            return;
        if (s->old[i] == old)
            break;
    }
    s->count--;
    for (uint64_t j = i;;) {
        s->new_[i] = 0;
        s->old[i] = 0;
        for (;;) {
            j = (j + 1) & s->mask;
            if (s->new_[j] == 0)
                return;
            uint64_t home = slot_of(s, s->old[j]);
            /* j's entry may fill the hole at i unless its home lies in (i, j] */
            bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
            if (!stays)
                break;
        }
        s->old[i] = s->old[j];
        s->new_[i] = s->new_[j];
        i = j;
    }
}

bool lvx_cow_merge_prev_area(struct lvx_cow *s)
{
    if (s->committed || s->area == 0)
        return false;
    s->area--;
    s->committed = s->epa;
    return true;
}

unsigned lvx_cow_merge_last(const struct lvx_cow *s, const uint8_t *area, uint64_t *olds,
                            uint64_t *news, unsigned max)
{
    unsigned k = 0;
    for (uint64_t i = s->committed; i > 0 && k < max; i--, k++) {
        olds[k] = get64(area + (i - 1) * LVX_COW_RECORD);
        news[k] = get64(area + (i - 1) * LVX_COW_RECORD + 8);
    }
    return k;
}

void lvx_cow_merge_drop(struct lvx_cow *s, uint8_t *area, unsigned k)
{
    for (unsigned n = 0; n < k && s->committed > 0; n++) {
        uint8_t *rec = area + (s->committed - 1) * LVX_COW_RECORD;
        table_remove(s, get64(rec));
        memset(rec, 0, LVX_COW_RECORD);
        s->committed--;
    }
    /* the kernel's persistent store counts the allocation from here on so */
    s->next_free = lvx_cow_area_chunk(s, s->area) + s->committed + 1;
}

void lvx_cow_usage(const struct lvx_cow *s, uint64_t *used, uint64_t *total, uint64_t *meta)
{
    *used = s->next_free * s->chunk;
    *total = s->sectors;
    *meta = (s->area + 1 + HEADER_CHUNKS) * s->chunk;
}
