/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/thin_sm.c - the two space maps of the thin metadata (docs/dm-formats.md §8.3):
 * reference counts of metadata blocks (an index block listing up to 255 bitmaps) and
 * of data blocks (a btree of index entries), 2 bits per block in the bitmaps, counts
 * above 2 in a btree of u32.  Loading turns them into one count per block in memory;
 * a commit writes them again whole from those counts into blocks that are free now
 * and were free at the last commit (the old ones are released the same way), so the
 * committed space maps are never touched.  Entry points: tm_sm_load(), tm_sm_build().
 */
#include "map/thin_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/endian.h"

struct sm_load {
    struct lvx_thin_meta *tm;
    uint32_t *rc;
    uint64_t nr;
    bool data;
};

static int add_aux(void *arg, uint64_t b)
{
    struct sm_load *l = arg;
    tm_blocks_add(l->tm, &l->tm->aux, b);
    return 0;
}

static int ref_entry(void *arg, uint64_t key, const uint8_t *value)
{
    struct sm_load *l = arg;
    if (key >= l->nr)
        return lvx_error(l->tm->ctx, EINVAL, "Thin pool metadata: %s space map counts block %llu beyond its %llu blocks.",
                         l->data ? "data" : "metadata", (unsigned long long)key,
                         (unsigned long long)l->nr);
    l->rc[key] = lvx_get_le32(value);
    return 0;
}

/* Counts of bitmap number i (block b) into l->rc. */
static int load_bitmap(struct sm_load *l, uint64_t i, uint64_t b)
{
    uint8_t *bm = tm_get(l->tm, b, TM_BITMAP_XOR);
    if (!bm)
        return l->tm->ctx->err;
    tm_blocks_add(l->tm, &l->tm->aux, b);
    uint64_t first = i * TM_ENTRIES_PER_BITMAP;
    for (uint64_t j = 0; j < TM_ENTRIES_PER_BITMAP && first + j < l->nr; j++) {
        uint64_t w = lvx_get_le64(bm + 16 + 8 * (j / 32));
        unsigned s = 2 * (unsigned)(j % 32);
        uint32_t v = (uint32_t)((w >> s) & 1) << 1 | (uint32_t)((w >> (s + 1)) & 1);
        if (v < 3)
            l->rc[first + j] = v;
        else if (l->rc[first + j] < 3)
            return lvx_error(l->tm->ctx, EINVAL, "Thin pool metadata: %s block %llu has no count in the reference count tree.",
                             l->data ? "data" : "metadata", (unsigned long long)(first + j));
    }
    return 0;
}

static int data_index_entry(void *arg, uint64_t key, const uint8_t *value)
{
    struct sm_load *l = arg;
    if (key >= (l->nr + TM_ENTRIES_PER_BITMAP - 1) / TM_ENTRIES_PER_BITMAP)
        return lvx_error(l->tm->ctx, EINVAL, "Thin pool metadata: data space map index entry %llu beyond its bitmaps.",
                         (unsigned long long)key);
    return load_bitmap(l, key, lvx_get_le64(value));
}

int tm_sm_load(struct lvx_thin_meta *tm, const uint8_t *data_root, const uint8_t *meta_root)
{
    struct sm_load l = { tm, tm->drc, tm->nr_data, true };
    int r;
    if (lvx_get_le64(data_root) != tm->nr_data)
        return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: data space map of %llu blocks, not %llu.",
                         (unsigned long long)lvx_get_le64(data_root), (unsigned long long)tm->nr_data);
    if ((r = tm_btree_walk(tm, lvx_get_le64(data_root + 24), 4, add_aux, ref_entry, &l)) ||
        (r = tm_btree_walk(tm, lvx_get_le64(data_root + 16), 16, add_aux, data_index_entry, &l)))
        return r;
    l = (struct sm_load){ tm, tm->mrc, tm->nr_meta, false };
    if ((r = tm_btree_walk(tm, lvx_get_le64(meta_root + 24), 4, add_aux, ref_entry, &l)))
        return r;
    uint64_t ib = lvx_get_le64(meta_root + 16);
    uint8_t *idx = tm_get(tm, ib, TM_INDEX_XOR);
    if (!idx)
        return tm->ctx->err;
    tm_blocks_add(tm, &tm->aux, ib);
    uint64_t nbm = (tm->nr_meta + TM_ENTRIES_PER_BITMAP - 1) / TM_ENTRIES_PER_BITMAP;
    for (uint64_t i = 0; i < nbm; i++)
        if ((r = load_bitmap(&l, i, lvx_get_le64(idx + 16 + 16 * i))) < 0)
            return r;
    return 0;
}

/* Encode the counts of bitmap i into block b; its index entry into ie (16 bytes). */
static void fill_bitmap(struct lvx_thin_meta *tm, const uint32_t *rc, uint64_t nr, uint64_t i,
                        uint64_t b, uint8_t *ie)
{
    uint8_t *bm = tm->cache[b];
    memset(bm + 16, 0, TM_BLOCK - 16);
    uint64_t first = i * TM_ENTRIES_PER_BITMAP;
    uint32_t nfree = TM_ENTRIES_PER_BITMAP, nfb = TM_ENTRIES_PER_BITMAP;
    for (uint64_t j = 0; j < TM_ENTRIES_PER_BITMAP; j++) {
        uint32_t v = first + j < nr ? rc[first + j] : 0;
        if (!v) {
            if (nfb == TM_ENTRIES_PER_BITMAP)
                nfb = (uint32_t)j;
            continue;
        }
        nfree--;
        if (v > 3)
            v = 3;
        uint8_t *wp = bm + 16 + 8 * (j / 32);
        unsigned s = 2 * (unsigned)(j % 32);
        uint64_t w = lvx_get_le64(wp) | (uint64_t)(v >> 1) << s | (uint64_t)(v & 1) << (s + 1);
        lvx_put_le64(wp, w);
    }
    tm_seal(bm, TM_BITMAP_XOR);
    tm->dirty[b] = 2;
    lvx_put_le64(ie, b);
    lvx_put_le32(ie + 8, nfree);
    lvx_put_le32(ie + 12, nfb);
}

/* The tree of counts above 2. */
static int build_refs(struct lvx_thin_meta *tm, const uint32_t *rc, uint64_t nr, uint64_t *root)
{
    size_t n = 0;
    for (uint64_t i = 0; i < nr; i++)
        n += rc[i] > 2;
    uint64_t *keys = lvx_xmalloc((n ? n : 1) * sizeof(*keys));
    uint8_t *vals = lvx_xmalloc((n ? n : 1) * 4);
    size_t k = 0;
    for (uint64_t i = 0; i < nr; i++)
        if (rc[i] > 2) {
            keys[k] = i;
            lvx_put_le32(vals + 4 * k++, rc[i]);
        }
    int r = tm_btree_build(tm, keys, vals, n, 4, &tm->aux, root);
    free(keys);
    free(vals);
    return r;
}

static uint64_t count_used(const uint32_t *rc, uint64_t nr)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < nr; i++)
        n += rc[i] != 0;
    return n;
}

static void put_root(uint8_t *out, uint64_t nr, uint64_t used, uint64_t bitmaps, uint64_t refs)
{
    lvx_put_le64(out, nr);
    lvx_put_le64(out + 8, used);
    lvx_put_le64(out + 16, bitmaps);
    lvx_put_le64(out + 24, refs);
}

int tm_sm_build(struct lvx_thin_meta *tm, uint8_t *data_root, uint8_t *meta_root)
{
    uint64_t nbm_m = (tm->nr_meta + TM_ENTRIES_PER_BITMAP - 1) / TM_ENTRIES_PER_BITMAP;
    uint64_t nbm_d = (tm->nr_data + TM_ENTRIES_PER_BITMAP - 1) / TM_ENTRIES_PER_BITMAP;
    uint64_t mbm[TM_MAX_META_BITMAPS], ib, droot, drefs, mrefs;
    int r;
    /* the metadata space map's own blocks first: its bitmaps are filled last */
    for (uint64_t i = 0; i < nbm_m; i++) {
        if ((r = tm_alloc_meta(tm, &mbm[i])) < 0)
            return r;
        tm_blocks_add(tm, &tm->aux, mbm[i]);
    }
    if ((r = tm_alloc_meta(tm, &ib)) < 0)
        return r;
    tm_blocks_add(tm, &tm->aux, ib);

    uint64_t *keys = lvx_xmalloc((nbm_d ? nbm_d : 1) * sizeof(*keys));
    uint8_t *vals = lvx_xmalloc((nbm_d ? nbm_d : 1) * 16);
    for (uint64_t i = 0; i < nbm_d && r == 0; i++) {
        uint64_t b;
        if ((r = tm_alloc_meta(tm, &b)) < 0)
            break;
        tm_blocks_add(tm, &tm->aux, b);
        keys[i] = i;
        fill_bitmap(tm, tm->drc, tm->nr_data, i, b, vals + 16 * i);
    }
    if (r == 0)
        r = tm_btree_build(tm, keys, vals, nbm_d, 16, &tm->aux, &droot);
    free(keys);
    free(vals);
    if (r < 0 || (r = build_refs(tm, tm->drc, tm->nr_data, &drefs)) < 0 ||
        (r = build_refs(tm, tm->mrc, tm->nr_meta, &mrefs)) < 0)
        return r;

    uint8_t *idx = tm->cache[ib];
    for (uint64_t i = 0; i < nbm_m; i++)
        fill_bitmap(tm, tm->mrc, tm->nr_meta, i, mbm[i], idx + 16 + 16 * i);
    tm_seal(idx, TM_INDEX_XOR);
    tm->dirty[ib] = 2;
    put_root(data_root, tm->nr_data, count_used(tm->drc, tm->nr_data), droot, drefs);
    put_root(meta_root, tm->nr_meta, count_used(tm->mrc, tm->nr_meta), ib, mrefs);
    return 0;
}
