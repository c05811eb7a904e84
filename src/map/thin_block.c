/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/thin_block.c - the block layer of the thin metadata module: the CRC-32C
 * checksum of every block (docs/dm-formats.md §8.1: bytes 4..4095, register not
 * inverted at the end, xor of the block type), the cache of metadata blocks read
 * through the I/O seam and checked on their first read, and allocation of metadata and
 * data blocks.  A block is handed out only when nothing references it now and the last
 * committed superblock did not reference it either, so committed blocks are never
 * overwritten and a block freed in a transaction is reused only after its commit.
 */
#include "map/thin_int.h"

#include <errno.h>
#include <string.h>

#include "dev/io.h"
#include "format/endian.h"

static uint32_t crc_table[256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t tm_crc32c(const uint8_t *p, size_t n)
{
    if (!crc_table[1])
        crc_init();
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c;
}

void tm_seal(uint8_t *b, uint32_t xor_)
{
    lvx_put_le32(b, tm_crc32c(b + 4, TM_BLOCK - 4) ^ xor_);
}

bool tm_csum_ok(const uint8_t *b, uint32_t xor_)
{
    return lvx_get_le32(b) == (tm_crc32c(b + 4, TM_BLOCK - 4) ^ xor_);
}

bool tm_bit(const uint8_t *bits, uint64_t i)
{
    return bits[i >> 3] & (1u << (i & 7));
}

static const char *kind_name(uint32_t xor_)
{
    switch (xor_) {
    case TM_SB_XOR: return "superblock";
    case TM_NODE_XOR: return "btree node";
    case TM_BITMAP_XOR: return "space map bitmap";
    default: return "space map index";
    }
}

uint8_t *tm_get(struct lvx_thin_meta *tm, uint64_t b, uint32_t xor_)
{
    if (b >= tm->nr_meta) {
        lvx_error(tm->ctx, EINVAL, "Thin pool metadata: %s block %llu lies beyond the %llu metadata blocks.",
                  kind_name(xor_), (unsigned long long)b, (unsigned long long)tm->nr_meta);
        return NULL;
    }
    if (tm->cache[b])
        return tm->cache[b];
    uint8_t *buf = lvx_pool_alloc_uninit(tm->pool, TM_BLOCK);
    ssize_t n = lvx_io(tm->ctx)->pread(lvx_io(tm->ctx)->arg, tm->fd, buf, TM_BLOCK, b * TM_BLOCK);
    if (n != (ssize_t)TM_BLOCK) {
        lvx_error(tm->ctx, n < 0 ? (int)-n : EIO, "Thin pool metadata: cannot read block %llu.",
                  (unsigned long long)b);
        return NULL;
    }
    if (!tm_csum_ok(buf, xor_)) {
        lvx_error(tm->ctx, EINVAL, "Thin pool metadata: bad checksum in %s block %llu.",
                  kind_name(xor_), (unsigned long long)b);
        return NULL;
    }
    if (lvx_get_le64(buf + 8) != b) {
        lvx_error(tm->ctx, EINVAL, "Thin pool metadata: %s block %llu records block number %llu.",
                  kind_name(xor_), (unsigned long long)b, (unsigned long long)lvx_get_le64(buf + 8));
        return NULL;
    }
    tm->cache[b] = buf;
    return buf;
}

static int find_free(const uint32_t *rc, const uint8_t *com, uint64_t n, uint64_t *hint,
                     uint64_t *out)
{
    for (uint64_t k = 0; k < n; k++) {
        uint64_t i = *hint + k;
        if (i >= n)
            i -= n;
        if (!rc[i] && !tm_bit(com, i)) {
            *hint = i + 1 < n ? i + 1 : 0;
            *out = i;
            return 0;
        }
    }
    return -ENOSPC;
}

int tm_alloc_meta(struct lvx_thin_meta *tm, uint64_t *b)
{
    if (find_free(tm->mrc, tm->mcom, tm->nr_meta, &tm->mhint, b) < 0)
        return lvx_error(tm->ctx, ENOSPC, "Thin pool metadata is full (%llu blocks).",
                         (unsigned long long)tm->nr_meta);
    tm->mrc[*b] = 1;
    tm->dirty[*b] = 1;
    if (!tm->cache[*b])
        tm->cache[*b] = lvx_pool_alloc_uninit(tm->pool, TM_BLOCK);
    memset(tm->cache[*b], 0, TM_BLOCK);
    lvx_put_le64(tm->cache[*b] + 8, *b);
    return 0;
}

int tm_alloc_data(struct lvx_thin_meta *tm, uint64_t *d)
{
    if (find_free(tm->drc, tm->dcom, tm->nr_data, &tm->dhint, d) < 0)
        return lvx_error(tm->ctx, ENOSPC, "Thin pool data is full (%llu blocks).",
                         (unsigned long long)tm->nr_data);
    tm->drc[*d] = 1;
    return 0;
}

void tm_meta_dec(struct lvx_thin_meta *tm, uint64_t b)
{
    if (tm->mrc[b] && --tm->mrc[b] == 0)
        tm->dirty[b] = 0;
}

void tm_blocks_add(struct lvx_thin_meta *tm, struct tm_blocks *l, uint64_t b)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        l->b = lvx_pool_realloc(tm->pool, l->b, l->cap * sizeof(*l->b), cap * sizeof(*l->b));
        l->cap = cap;
    }
    l->b[l->n++] = b;
}

int tm_write_block(struct lvx_thin_meta *tm, uint64_t b)
{
    const struct lvx_dev_ops *io = lvx_io(tm->ctx);
    ssize_t n = io->pwrite(io->arg, tm->fd, tm->cache[b], TM_BLOCK, b * TM_BLOCK);
    if (n != (ssize_t)TM_BLOCK)
        return lvx_error(tm->ctx, n < 0 ? (int)-n : EIO, "Thin pool metadata: cannot write block %llu.",
                         (unsigned long long)b);
    return 0;
}
