/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/thin_btree.c - the persistent-data btrees of the thin metadata
 * (docs/dm-formats.md §8.4): node layout, checked walks of any tree, trees built whole
 * from sorted entries (space maps, device details, the top level of the mapping tree:
 * rebuilt at each commit, every non-root node at least a third full as thin_check
 * wants), and the copy-on-write bottom-level mapping trees of thin devices.  Changing
 * a node first shadows it: a node allocated in this transaction and referenced once is
 * changed in place, any other is copied to a new block, the copy taking a reference on
 * each child when the old node stays shared.  Inserting splits full nodes on the way
 * back up; removing merges or evens out a node that falls below a third full with its
 * neighbour.  Entry points: tm_btree_walk(), tm_btree_build(), tm_map_*().
 */
#include "map/thin_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/endian.h"

#define MAX_DEPTH 16

uint32_t tm_node_max(uint32_t value_size)
{
    return (TM_BLOCK - TM_NODE_HDR) / (8 + value_size) / 3 * 3;
}

static uint32_t n_flags(const uint8_t *n) { return lvx_get_le32(n + 4); }
static uint32_t n_nr(const uint8_t *n) { return lvx_get_le32(n + 16); }
static uint32_t n_max(const uint8_t *n) { return lvx_get_le32(n + 20); }
static uint32_t n_vs(const uint8_t *n) { return lvx_get_le32(n + 24); }
static void set_nr(uint8_t *n, uint32_t v) { lvx_put_le32(n + 16, v); }
static uint8_t *n_key(uint8_t *n, uint32_t i) { return n + TM_NODE_HDR + 8 * (size_t)i; }
static uint64_t key_at(const uint8_t *n, uint32_t i)
{
    return lvx_get_le64(n + TM_NODE_HDR + 8 * (size_t)i);
}
static uint8_t *n_val(uint8_t *n, uint32_t i)
{
    return n + TM_NODE_HDR + 8 * (size_t)n_max(n) + (size_t)n_vs(n) * i;
}
static uint64_t val64(uint8_t *n, uint32_t i) { return lvx_get_le64(n_val(n, i)); }

static void node_init(uint8_t *n, uint32_t flags, uint32_t value_size)
{
    lvx_put_le32(n + 4, flags);
    lvx_put_le32(n + 16, 0);
    lvx_put_le32(n + 20, tm_node_max(value_size));
    lvx_put_le32(n + 24, value_size);
}

/* First entry with key >= k. */
static uint32_t lower_bound(const uint8_t *n, uint64_t k)
{
    uint32_t lo = 0, hi = n_nr(n);
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key_at(n, mid) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The child whose range holds k: the last key <= k, or the first child. */
static uint32_t child_index(const uint8_t *n, uint64_t k)
{
    uint32_t i = lower_bound(n, k);
    if (i < n_nr(n) && key_at(n, i) == k)
        return i;
    return i ? i - 1 : 0;
}

static int bad_node(struct lvx_thin_meta *tm, uint64_t b, const char *what)
{
    return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: btree node %llu: %s.",
                     (unsigned long long)b, what);
}

/* What is wrong with a node's header for the tree that holds it, or NULL. */
static const char *node_problem(const uint8_t *n, uint32_t leaf_vs)
{
    uint32_t f = n_flags(n), vs = f == TM_NODE_LEAF ? leaf_vs : 8;
    if (f != TM_NODE_LEAF && f != TM_NODE_INTERNAL)
        return "neither internal nor leaf";
    if (n_vs(n) != vs)
        return "unexpected value size";
    if (n_max(n) != tm_node_max(vs))
        return "unexpected max_entries";
    if (n_nr(n) > n_max(n))
        return "more entries than max_entries";
    return NULL;
}

/* Read a node and check its header against what the tree holds. */
static uint8_t *get_node(struct lvx_thin_meta *tm, uint64_t b, uint32_t leaf_vs, int *err)
{
    uint8_t *n = tm_get(tm, b, TM_NODE_XOR);
    if (!n) {
        *err = tm->ctx->err ? tm->ctx->err : -EIO;
        return NULL;
    }
    const char *why = node_problem(n, leaf_vs);
    if (why) {
        *err = bad_node(tm, b, why);
        return NULL;
    }
    return n;
}

/* A node only from the cache, nothing recorded or read: NULL (*err -EAGAIN) when it
 * is not there or its header is wrong (the caller asks again through get_node). */
static uint8_t *cached_node(struct lvx_thin_meta *tm, uint64_t b, uint32_t leaf_vs, int *err)
{
    uint8_t *n = b < tm->nr_meta ? tm->cache[b] : NULL;
    if (!n || node_problem(n, leaf_vs)) {
        *err = -EAGAIN;
        return NULL;
    }
    return n;
}

struct walk {
    struct lvx_thin_meta *tm;
    uint32_t vs;
    tm_block_fn block_fn;
    tm_entry_fn entry_fn;
    void *arg;
    bool have_last;
    uint64_t last;
};

static int walk_node(struct walk *w, uint64_t b, int depth)
{
    int r = 0;
    if (depth > MAX_DEPTH)
        return bad_node(w->tm, b, "tree too deep");
    uint8_t *n = get_node(w->tm, b, w->vs, &r);
    if (!n)
        return r;
    if (w->block_fn && (r = w->block_fn(w->arg, b)))
        return r;
    uint32_t nr = n_nr(n);
    bool leaf = n_flags(n) == TM_NODE_LEAF;
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t k = key_at(n, i);
        if (i && k <= key_at(n, i - 1))
            return bad_node(w->tm, b, "keys out of order");
        if (!leaf) {
            if ((r = walk_node(w, val64(n, i), depth + 1)))
                return r;
            continue;
        }
        if (w->have_last && k <= w->last)
            return bad_node(w->tm, b, "keys out of order");
        w->have_last = true;
        w->last = k;
        if (w->entry_fn && (r = w->entry_fn(w->arg, k, n_val(n, i))))
            return r;
    }
    return 0;
}

int tm_btree_walk(struct lvx_thin_meta *tm, uint64_t root, uint32_t value_size,
                  tm_block_fn block_fn, tm_entry_fn entry_fn, void *arg)
{
    struct walk w = { tm, value_size, block_fn, entry_fn, arg, false, 0 };
    return walk_node(&w, root, 0);
}

int tm_btree_build(struct lvx_thin_meta *tm, const uint64_t *keys, const uint8_t *values,
                   size_t n, uint32_t value_size, struct tm_blocks *list, uint64_t *root)
{
    const uint64_t *k = keys;
    const uint8_t *v = values;
    uint64_t *nk = NULL, *ok_ = NULL;
    uint8_t *nv = NULL, *ov = NULL;
    uint32_t vs = value_size, flags = TM_NODE_LEAF;
    int r = 0;
    for (;;) {
        size_t max = tm_node_max(vs), nodes = n ? (n + max - 1) / max : 1;
        nk = lvx_xmalloc(nodes * sizeof(*nk));
        nv = lvx_xmalloc(nodes * 8);
        for (size_t j = 0; j < nodes; j++) {
            size_t from = j * n / nodes, to = (j + 1) * n / nodes;
            uint64_t b;
            if ((r = tm_alloc_meta(tm, &b)) < 0)
                goto out;
            uint8_t *node = tm->cache[b];
            node_init(node, flags, vs);
            set_nr(node, (uint32_t)(to - from));
            for (size_t i = from; i < to; i++) {
                lvx_put_le64(n_key(node, (uint32_t)(i - from)), k[i]);
                memcpy(n_val(node, (uint32_t)(i - from)), v + i * vs, vs);
            }
            tm_seal(node, TM_NODE_XOR);
            tm->dirty[b] = 2;
            tm_blocks_add(tm, list, b);
            nk[j] = to > from ? k[from] : 0;
            lvx_put_le64(nv + 8 * j, b);
        }
        free(ok_);
        free(ov);
        ok_ = nk;
        ov = nv;
        nk = NULL;
        nv = NULL;
        if (nodes == 1) {
            *root = lvx_get_le64(ov);
            break;
        }
        k = ok_;
        v = ov;
        n = nodes;
        vs = 8;
        flags = TM_NODE_INTERNAL;
    }
out:
    free(nk);
    free(nv);
    free(ok_);
    free(ov);
    return r;
}

/* ---- bottom-level mapping trees ---- */

static int data_ref(struct lvx_thin_meta *tm, uint64_t value, int delta)
{
    uint64_t d = value >> 24;
    if (d >= tm->nr_data)
        return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: mapping to data block %llu beyond the %llu data blocks.",
                         (unsigned long long)d, (unsigned long long)tm->nr_data);
    if (delta > 0)
        tm->drc[d]++;
    else if (tm->drc[d])
        tm->drc[d]--;
    return 0;
}

/* Make node *b writable (see the top comment); *b becomes the writable block. */
static int shadow(struct lvx_thin_meta *tm, uint64_t *b)
{
    int r = 0;
    uint8_t *n = get_node(tm, *b, 8, &r);
    if (!n)
        return r;
    if (!tm_bit(tm->mcom, *b) && tm->mrc[*b] == 1) {
        tm->dirty[*b] = 1;
        return 0;
    }
    uint64_t nb;
    if ((r = tm_alloc_meta(tm, &nb)) < 0)
        return r;
    memcpy(tm->cache[nb], n, TM_BLOCK);
    lvx_put_le64(tm->cache[nb] + 8, nb);
    if (tm->mrc[*b] > 1) {
        bool leaf = n_flags(n) == TM_NODE_LEAF;
        for (uint32_t i = 0; i < n_nr(n); i++) {
            uint64_t v = val64(n, i);
            if (leaf) {
                if ((r = data_ref(tm, v, 1)) < 0)
                    return r;
            } else if (v >= tm->nr_meta) {
                return bad_node(tm, *b, "child beyond the metadata");
            } else {
                tm->mrc[v]++;
            }
        }
    }
    tm_meta_dec(tm, *b);
    *b = nb;
    return 0;
}

/* The descent of tm_map_lookup (cached: tm_map_lookup_cached's). */
static int map_lookup(struct lvx_thin_meta *tm, bool cached, uint64_t root, uint64_t key,
                      uint64_t *value)
{
    int r = 0;
    for (int depth = 0; depth <= MAX_DEPTH; depth++) {
        uint8_t *n = cached ? cached_node(tm, root, 8, &r) : get_node(tm, root, 8, &r);
        if (!n)
            return r;
        if (n_flags(n) == TM_NODE_LEAF) {
            uint32_t i = lower_bound(n, key);
            if (i >= n_nr(n) || key_at(n, i) != key)
                return 0;
            *value = val64(n, i);
            return 1;
        }
        if (!n_nr(n))
            return cached ? -EAGAIN : bad_node(tm, root, "empty internal node");
        root = val64(n, child_index(n, key));
    }
    return cached ? -EAGAIN : bad_node(tm, root, "tree too deep");
}

int tm_map_lookup(struct lvx_thin_meta *tm, uint64_t root, uint64_t key, uint64_t *value)
{
    return map_lookup(tm, false, root, key, value);
}

int tm_map_lookup_cached(struct lvx_thin_meta *tm, uint64_t root, uint64_t key, uint64_t *value)
{
    return map_lookup(tm, true, root, key, value);
}

static void insert_at(uint8_t *n, uint32_t i, uint64_t key, const uint8_t *val)
{
    uint32_t nr = n_nr(n), vs = n_vs(n);
    memmove(n_key(n, i + 1), n_key(n, i), 8 * (size_t)(nr - i));
    memmove(n_val(n, i + 1), n_val(n, i), (size_t)vs * (nr - i));
    lvx_put_le64(n_key(n, i), key);
    memcpy(n_val(n, i), val, vs);
    set_nr(n, nr + 1);
}

static void delete_at(uint8_t *n, uint32_t i)
{
    uint32_t nr = n_nr(n), vs = n_vs(n);
    memmove(n_key(n, i), n_key(n, i + 1), 8 * (size_t)(nr - i - 1));
    memmove(n_val(n, i), n_val(n, i + 1), (size_t)vs * (nr - i - 1));
    set_nr(n, nr - 1);
}

/* Move cnt entries from src[si..] to dst[di..] (dst has room at di, nothing after). */
static void move_entries(uint8_t *dst, uint32_t di, uint8_t *src, uint32_t si, uint32_t cnt)
{
    memcpy(n_key(dst, di), n_key(src, si), 8 * (size_t)cnt);
    memcpy(n_val(dst, di), n_val(src, si), (size_t)n_vs(src) * cnt);
}

/* Insert into writable node b at i; a full node is split first.  *split: the new
 * right node (0 when none), *split_key its first key. */
static int insert_split(struct lvx_thin_meta *tm, uint64_t b, uint32_t i, uint64_t key,
                        const uint8_t *val, uint64_t *split, uint64_t *split_key)
{
    uint8_t *n = tm->cache[b];
    *split = 0;
    uint32_t nr = n_nr(n);
    if (nr < n_max(n)) {
        insert_at(n, i, key, val);
        return 0;
    }
    uint64_t nb;
    int r = tm_alloc_meta(tm, &nb);
    if (r < 0)
        return r;
    uint8_t *m = tm->cache[nb];
    node_init(m, n_flags(n), n_vs(n));
    uint32_t left = nr / 2;
    move_entries(m, 0, n, left, nr - left);
    set_nr(m, nr - left);
    set_nr(n, left);
    if (i <= left)
        insert_at(n, i, key, val);
    else
        insert_at(m, i - left, key, val);
    *split = nb;
    *split_key = key_at(m, 0);
    return 0;
}

struct ins {
    uint64_t key, value, old;
    bool replaced;
};

/* One level down a change: node *bp made writable. */
static int enter(struct lvx_thin_meta *tm, uint64_t *bp, int depth, uint8_t **n)
{
    if (depth > MAX_DEPTH)
        return bad_node(tm, *bp, "tree too deep");
    int r = shadow(tm, bp);
    *n = r < 0 ? NULL : tm->cache[*bp];
    return r;
}

static int ins_node(struct lvx_thin_meta *tm, uint64_t *bp, struct ins *in, int depth,
                    uint64_t *split, uint64_t *split_key)
{
    uint8_t *n, v[8];
    *split = 0;
    int r = enter(tm, bp, depth, &n);
    if (r < 0)
        return r;
    if (n_flags(n) == TM_NODE_LEAF) {
        uint32_t i = lower_bound(n, in->key);
        if (i < n_nr(n) && key_at(n, i) == in->key) {
            in->replaced = true;
            in->old = val64(n, i);
            lvx_put_le64(n_val(n, i), in->value);
            return 0;
        }
        lvx_put_le64(v, in->value);
        return insert_split(tm, *bp, i, in->key, v, split, split_key);
    }
    if (!n_nr(n))
        return bad_node(tm, *bp, "empty internal node");
    uint32_t i = child_index(n, in->key);
    if (in->key < key_at(n, 0))
        lvx_put_le64(n_key(n, 0), in->key);
    uint64_t child = val64(n, i), csplit, ckey;
    if ((r = ins_node(tm, &child, in, depth + 1, &csplit, &ckey)) < 0)
        return r;
    lvx_put_le64(n_val(n, i), child);
    if (!csplit)
        return 0;
    lvx_put_le64(v, csplit);
    return insert_split(tm, *bp, i + 1, ckey, v, split, split_key);
}

int tm_map_insert(struct lvx_thin_meta *tm, uint64_t *root, uint64_t key, uint64_t value,
                  bool *replaced, uint64_t *old)
{
    struct ins in = { key, value, 0, false };
    uint64_t split, skey;
    int r = ins_node(tm, root, &in, 0, &split, &skey);
    if (r < 0)
        return r;
    if (split) {
        uint64_t nr_;
        if ((r = tm_alloc_meta(tm, &nr_)) < 0)
            return r;
        uint8_t *n = tm->cache[nr_], v[8];
        node_init(n, TM_NODE_INTERNAL, 8);
        lvx_put_le64(v, *root);
        insert_at(n, 0, key_at(tm->cache[*root], 0), v);
        lvx_put_le64(v, split);
        insert_at(n, 1, skey, v);
        *root = nr_;
    }
    *replaced = in.replaced;
    *old = in.old;
    return 0;
}

/* Child i of writable internal node b fell below a third full: merge it with a
 * neighbour or share the entries of both evenly. */
static int rebalance(struct lvx_thin_meta *tm, uint64_t b, uint32_t i)
{
    uint8_t *n = tm->cache[b];
    uint32_t nr = n_nr(n);
    if (nr < 2)
        return 0;
    uint32_t l = i + 1 < nr ? i : i - 1, ri = l + 1;
    uint64_t lb = val64(n, l), rb = val64(n, ri);
    int r;
    if ((r = shadow(tm, &lb)) < 0 || (r = shadow(tm, &rb)) < 0)
        return r;
    lvx_put_le64(n_val(n, l), lb);
    lvx_put_le64(n_val(n, ri), rb);
    uint8_t *L = tm->cache[lb], *R = tm->cache[rb];
    uint32_t nl = n_nr(L), nrr = n_nr(R);
    if (nl + nrr <= n_max(L)) {
        move_entries(L, nl, R, 0, nrr);
        set_nr(L, nl + nrr);
        delete_at(n, ri);
        tm_meta_dec(tm, rb);
        return 0;
    }
    uint32_t want = (nl + nrr) / 2;
    if (nl < want) {
        uint32_t c = want - nl;
        move_entries(L, nl, R, 0, c);
        set_nr(L, want);
        memmove(n_key(R, 0), n_key(R, c), 8 * (size_t)(nrr - c));
        memmove(n_val(R, 0), n_val(R, c), (size_t)n_vs(R) * (nrr - c));
        set_nr(R, nrr - c);
    } else if (nl > want) {
        uint32_t c = nl - want;
        memmove(n_key(R, c), n_key(R, 0), 8 * (size_t)nrr);
        memmove(n_val(R, c), n_val(R, 0), (size_t)n_vs(R) * nrr);
        move_entries(R, 0, L, want, c);
        set_nr(R, nrr + c);
        set_nr(L, want);
    }
    lvx_put_le64(n_key(n, ri), key_at(R, 0));
    return 0;
}

static int rm_node(struct lvx_thin_meta *tm, uint64_t *bp, uint64_t key, uint64_t *old, int depth)
{
    uint8_t *n;
    int r = enter(tm, bp, depth, &n);
    if (r < 0)
        return r;
    if (n_flags(n) == TM_NODE_LEAF) {
        uint32_t i = lower_bound(n, key);
        if (i >= n_nr(n) || key_at(n, i) != key)
            return bad_node(tm, *bp, "entry to remove vanished");
        *old = val64(n, i);
        delete_at(n, i);
        return 0;
    }
    uint32_t i = child_index(n, key);
    uint64_t child = val64(n, i);
    if ((r = rm_node(tm, &child, key, old, depth + 1)) < 0)
        return r;
    lvx_put_le64(n_val(n, i), child);
    if (n_nr(tm->cache[child]) < n_max(tm->cache[child]) / 3)
        return rebalance(tm, *bp, i);
    return 0;
}

int tm_map_remove(struct lvx_thin_meta *tm, uint64_t *root, uint64_t key, uint64_t *old)
{
    uint64_t v;
    int r = tm_map_lookup(tm, *root, key, &v);
    if (r <= 0)
        return r;
    if ((r = rm_node(tm, root, key, old, 0)) < 0)
        return r;
    uint8_t *n = tm->cache[*root];
    while (n_flags(n) == TM_NODE_INTERNAL && n_nr(n) == 1) {
        uint64_t child = val64(n, 0);
        tm_meta_dec(tm, *root);
        *root = child;
        if ((r = shadow(tm, root)) < 0)
            return r;
        n = tm->cache[*root];
    }
    return 1;
}

int tm_map_empty(struct lvx_thin_meta *tm, uint64_t *root)
{
    int r = tm_alloc_meta(tm, root);
    if (r < 0)
        return r;
    node_init(tm->cache[*root], TM_NODE_LEAF, 8);
    return 0;
}

static int map_dec(struct lvx_thin_meta *tm, uint64_t b, int depth)
{
    int r = 0;
    if (depth > MAX_DEPTH)
        return bad_node(tm, b, "tree too deep");
    uint8_t *n = get_node(tm, b, 8, &r);
    if (!n)
        return r;
    if (tm->mrc[b] > 1) {
        tm->mrc[b]--;
        return 0;
    }
    bool leaf = n_flags(n) == TM_NODE_LEAF;
    for (uint32_t i = 0; i < n_nr(n); i++) {
        uint64_t v = val64(n, i);
        if (leaf)
            r = data_ref(tm, v, -1);
        else
            r = v < tm->nr_meta ? map_dec(tm, v, depth + 1) : bad_node(tm, b, "child beyond the metadata");
        if (r < 0)
            return r;
    }
    tm_meta_dec(tm, b);
    return 0;
}

int tm_map_dec(struct lvx_thin_meta *tm, uint64_t root)
{
    return map_dec(tm, root, 0);
}
