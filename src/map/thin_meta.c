/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/thin_meta.c - a thin pool's metadata as a whole (docs/dm-formats.md §8): the
 * superblock (block 0: checksum, magic, version 1/2, block sizes, roots, time,
 * transaction id), the device details tree and the two-level mapping tree, opened and
 * checked, formatted empty, changed by the pool's messages (create_thin, create_snap,
 * delete, set_transaction_id) and by mapping changes, and committed: the space maps,
 * the details tree and the top level of the mapping tree are written again in new
 * blocks, every changed block is written, a flush, then the superblock, a flush.
 * Until the superblock is written the disk holds the last commit untouched.
 * Entry points: see map/thin_meta.h.
 */
#include "map/thin_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev/io.h"
#include "format/endian.h"

#define SB_VERSION 2u
#define MIN_DATA_BLOCK 128u
#define MAX_DATA_BLOCK 2097152u

/* Allocate the per-block arrays for nr_meta metadata and nr_data data blocks. */
static void setup(struct lvx_thin_meta *tm)
{
    tm->cache = lvx_pool_alloc(tm->pool, tm->nr_meta * sizeof(*tm->cache));
    tm->dirty = lvx_pool_alloc(tm->pool, tm->nr_meta);
    tm->mrc = lvx_pool_alloc(tm->pool, tm->nr_meta * sizeof(*tm->mrc));
    tm->drc = lvx_pool_alloc(tm->pool, tm->nr_data * sizeof(*tm->drc));
    tm->mcom = lvx_pool_alloc(tm->pool, tm->nr_meta / 8 + 1);
    tm->dcom = lvx_pool_alloc(tm->pool, tm->nr_data / 8 + 1);
}

static void mark_committed(uint8_t *bits, const uint32_t *rc, uint64_t n)
{
    memset(bits, 0, n / 8 + 1);
    for (uint64_t i = 0; i < n; i++)
        if (rc[i])
            bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

static struct tm_dev *find_dev(const struct lvx_thin_meta *tm, uint64_t id, size_t *pos)
{
    size_t lo = 0, hi = tm->ndevs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tm->devs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (pos)
        *pos = lo;
    return lo < tm->ndevs && tm->devs[lo].id == id ? &tm->devs[lo] : NULL;
}

static struct tm_dev *add_dev(struct lvx_thin_meta *tm, uint64_t id)
{
    size_t pos;
    if (find_dev(tm, id, &pos))
        return NULL;
    if (tm->ndevs == tm->capdevs) {
        size_t cap = tm->capdevs ? tm->capdevs * 2 : 16;
        tm->devs = lvx_pool_realloc(tm->pool, tm->devs, tm->capdevs * sizeof(*tm->devs),
                                    cap * sizeof(*tm->devs));
        tm->capdevs = cap;
    }
    memmove(tm->devs + pos + 1, tm->devs + pos, (tm->ndevs - pos) * sizeof(*tm->devs));
    tm->ndevs++;
    memset(&tm->devs[pos], 0, sizeof(tm->devs[pos]));
    tm->devs[pos].id = id;
    return &tm->devs[pos];
}

static int details_entry(void *arg, uint64_t key, const uint8_t *v)
{
    struct lvx_thin_meta *tm = arg;
    struct tm_dev *d = add_dev(tm, key);
    if (!d)
        return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: device %llu listed twice.",
                         (unsigned long long)key);
    d->mapped = lvx_get_le64(v);
    d->trans_id = lvx_get_le64(v + 8);
    d->ctime = lvx_get_le32(v + 16);
    d->stime = lvx_get_le32(v + 20);
    d->root = UINT64_MAX;
    return 0;
}

static int top_entry(void *arg, uint64_t key, const uint8_t *v)
{
    struct lvx_thin_meta *tm = arg;
    struct tm_dev *d = find_dev(tm, key, NULL);
    uint64_t root = lvx_get_le64(v);
    if (!d)
        return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: mappings of device %llu, which has no details.",
                         (unsigned long long)key);
    if (root >= tm->nr_meta)
        return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: device %llu's mapping tree lies beyond the metadata.",
                         (unsigned long long)key);
    d->root = root;
    return 0;
}

static int add_aux(void *arg, uint64_t b)
{
    struct lvx_thin_meta *tm = arg;
    tm_blocks_add(tm, &tm->aux, b);
    return 0;
}

static int bad_sb(struct lvx_thin_meta *tm, const char *what)
{
    return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: %s.", what);
}

static int check_sb(struct lvx_thin_meta *tm, const uint8_t *sb, uint64_t dev_blocks)
{
    static const uint8_t zero[512];
    if (!memcmp(sb, zero, sizeof(zero)))
        return bad_sb(tm, "not formatted (superblock is zero)");
    if (lvx_get_le64(sb + 32) != TM_MAGIC)
        return bad_sb(tm, "wrong superblock magic");
    if (!tm_csum_ok(sb, TM_SB_XOR))
        return bad_sb(tm, "bad superblock checksum");
    if (lvx_get_le64(sb + 8) != 0)
        return bad_sb(tm, "superblock records another block number");
    uint32_t version = lvx_get_le32(sb + 40), dbs = lvx_get_le32(sb + 336);
    if (version < 1 || version > 2)
        return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: unsupported version %u.", version);
    if (lvx_get_le32(sb + 340) != TM_BLOCK / 512)
        return bad_sb(tm, "metadata block size is not 8 sectors");
    if (dbs < MIN_DATA_BLOCK || dbs > MAX_DATA_BLOCK || dbs % MIN_DATA_BLOCK)
        return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: invalid data block size %u.", dbs);
    if (lvx_get_le32(sb + 360))
        return bad_sb(tm, "unsupported incompatible features");
    if (lvx_get_le32(sb + 356) && tm->rw)
        return bad_sb(tm, "unsupported features forbid writing");
    if (lvx_get_le64(sb + 56) && tm->rw)
        return bad_sb(tm, "a metadata snapshot is held; not writable by lvx");
    uint64_t nr_meta = lvx_get_le64(sb + 192), nr_data = lvx_get_le64(sb + 64);
    if (nr_meta < 2 || nr_meta > dev_blocks || nr_meta > TM_MAX_META_BLOCKS)
        return bad_sb(tm, "metadata space map size does not fit the device");
    if (!nr_data || nr_data > TM_MAX_DATA_BLOCKS)
        return bad_sb(tm, "invalid number of data blocks");
    tm->version = version;
    tm->data_block_size = dbs;
    tm->flags = lvx_get_le32(sb + 4);
    tm->time = lvx_get_le32(sb + 44);
    tm->trans_id = lvx_get_le64(sb + 48);
    memcpy(tm->uuid, sb + 16, 16);
    tm->nr_meta = nr_meta;
    tm->nr_data = nr_data;
    return 0;
}

static struct lvx_thin_meta *new_tm(struct lvx_ctx *ctx, struct lvx_pool *pool, int fd, bool rw)
{
    struct lvx_thin_meta *tm = lvx_pool_alloc(pool, sizeof(*tm));
    tm->ctx = ctx;
    tm->pool = pool;
    tm->fd = fd;
    tm->rw = rw;
    return tm;
}

int lvx_thin_meta_open(struct lvx_ctx *ctx, struct lvx_pool *pool, int fd, uint64_t dev_bytes,
                       bool rw, struct lvx_thin_meta **out)
{
    struct lvx_thin_meta *tm = new_tm(ctx, pool, fd, rw);
    uint8_t *sb = lvx_pool_alloc_uninit(pool, TM_BLOCK);
    const struct lvx_dev_ops *io = lvx_io(ctx);
    ssize_t n = io->pread(io->arg, fd, sb, TM_BLOCK, 0);
    if (n != (ssize_t)TM_BLOCK)
        return lvx_error(ctx, n < 0 ? (int)-n : EIO, "Thin pool metadata: cannot read the superblock.");
    int r = check_sb(tm, sb, dev_bytes / TM_BLOCK);
    if (r < 0)
        return r;
    setup(tm);
    tm->cache[0] = sb;
    if ((r = tm_sm_load(tm, sb + 64, sb + 192)) < 0 ||
        (r = tm_btree_walk(tm, lvx_get_le64(sb + 328), TM_DETAILS_SIZE, add_aux, details_entry, tm)) ||
        (r = tm_btree_walk(tm, lvx_get_le64(sb + 320), 8, add_aux, top_entry, tm)))
        return r < 0 ? r : -EINVAL;
    for (size_t i = 0; i < tm->ndevs; i++)
        if (tm->devs[i].root == UINT64_MAX)
            return lvx_error(ctx, EINVAL, "Thin pool metadata: device %llu has no mapping tree.",
                             (unsigned long long)tm->devs[i].id);
    if (!tm->mrc[0])
        return bad_sb(tm, "the metadata space map does not count the superblock");
    mark_committed(tm->mcom, tm->mrc, tm->nr_meta);
    mark_committed(tm->dcom, tm->drc, tm->nr_data);
    *out = tm;
    return 0;
}

int lvx_thin_meta_format(struct lvx_ctx *ctx, struct lvx_pool *pool, int fd, uint64_t dev_bytes,
                         uint32_t data_block_size, uint64_t nr_data,
                         struct lvx_thin_meta **out)
{
    struct lvx_thin_meta *tm = new_tm(ctx, pool, fd, true);
    if (data_block_size < MIN_DATA_BLOCK || data_block_size > MAX_DATA_BLOCK ||
        data_block_size % MIN_DATA_BLOCK)
        return lvx_error(ctx, EINVAL, "Thin pool data block size %u sectors is not a multiple of 128 between 128 and 2097152.",
                         data_block_size);
    if (!nr_data || nr_data > TM_MAX_DATA_BLOCKS)
        return lvx_error(ctx, EINVAL, "Thin pool of %llu data blocks is not supported.",
                         (unsigned long long)nr_data);
    tm->nr_meta = dev_bytes / TM_BLOCK;
    if (tm->nr_meta > TM_MAX_META_BLOCKS)
        tm->nr_meta = TM_MAX_META_BLOCKS;
    if (tm->nr_meta < 16)
        return lvx_error(ctx, EINVAL, "Thin pool metadata device of %llu bytes is too small.",
                         (unsigned long long)dev_bytes);
    tm->nr_data = nr_data;
    tm->data_block_size = data_block_size;
    tm->version = SB_VERSION;
    setup(tm);
    tm->cache[0] = lvx_pool_alloc(pool, TM_BLOCK);
    tm->mrc[0] = 1;
    int r = lvx_thin_commit(tm);
    if (r < 0)
        return r;
    *out = tm;
    return 0;
}

void lvx_thin_meta_info(const struct lvx_thin_meta *tm, struct lvx_thin_info *info)
{
    *info = (struct lvx_thin_info){ .version = tm->version, .time = tm->time, .flags = tm->flags,
                                    .trans_id = tm->trans_id, .data_block_size = tm->data_block_size,
                                    .nr_data = tm->nr_data, .nr_meta = tm->nr_meta };
    for (uint64_t i = 0; i < tm->nr_data; i++)
        info->data_used += tm->drc[i] != 0;
    for (uint64_t i = 0; i < tm->nr_meta; i++)
        info->meta_used += tm->mrc[i] != 0;
}

static void details_of(const struct tm_dev *d, struct lvx_thin_details *out)
{
    out->id = d->id;
    out->mapped_blocks = d->mapped;
    out->trans_id = d->trans_id;
    out->creation_time = d->ctime;
    out->snapshotted_time = d->stime;
}

size_t lvx_thin_meta_devices(const struct lvx_thin_meta *tm, struct lvx_thin_details *out,
                             size_t max)
{
    for (size_t i = 0; i < tm->ndevs && i < max; i++)
        details_of(&tm->devs[i], &out[i]);
    return tm->ndevs;
}

int lvx_thin_meta_device(const struct lvx_thin_meta *tm, uint64_t id,
                         struct lvx_thin_details *out)
{
    const struct tm_dev *d = find_dev(tm, id, NULL);
    if (!d)
        return -ENOENT;
    details_of(d, out);
    return 0;
}

static struct tm_dev *get_dev(struct lvx_thin_meta *tm, uint64_t id)
{
    struct tm_dev *d = find_dev(tm, id, NULL);
    if (!d)
        lvx_error(tm->ctx, ENOENT, "Thin device %llu does not exist.", (unsigned long long)id);
    return d;
}

/* A mapping's value: whether its data block lies in the pool. */
static bool split_ok(const struct lvx_thin_meta *tm, uint64_t v, uint64_t *data, uint32_t *time)
{
    *data = v >> 24;
    *time = (uint32_t)(v & 0xFFFFFF);
    return *data < tm->nr_data;
}

static int split_value(struct lvx_thin_meta *tm, uint64_t vblock, uint64_t v, uint64_t *data,
                       uint32_t *time)
{
    if (!split_ok(tm, v, data, time))
        return lvx_error(tm->ctx, EINVAL, "Thin pool metadata: virtual block %llu maps data block %llu beyond the %llu data blocks.",
                         (unsigned long long)vblock, (unsigned long long)*data,
                         (unsigned long long)tm->nr_data);
    return 0;
}

int lvx_thin_lookup(struct lvx_thin_meta *tm, uint64_t id, uint64_t vblock, uint64_t *data,
                    uint32_t *time)
{
    struct tm_dev *d = get_dev(tm, id);
    if (!d)
        return -ENOENT;
    uint64_t v;
    int r = tm_map_lookup(tm, d->root, vblock, &v);
    if (r == 1 && split_value(tm, vblock, v, data, time) < 0)
        return -EINVAL;
    return r;
}

int lvx_thin_lookup_cached(struct lvx_thin_meta *tm, uint64_t id, uint64_t vblock,
                           uint64_t *data, uint32_t *time)
{
    struct tm_dev *d = find_dev(tm, id, NULL);
    uint64_t v;
    int r = d ? tm_map_lookup_cached(tm, d->root, vblock, &v) : -EAGAIN;
    return r == 1 && !split_ok(tm, v, data, time) ? -EAGAIN : r;
}

struct walk_arg {
    struct lvx_thin_meta *tm;
    lvx_thin_walk_fn fn;
    void *arg;
};

static int walk_entry(void *arg, uint64_t key, const uint8_t *value)
{
    struct walk_arg *w = arg;
    uint64_t d;
    uint32_t t;
    if (split_value(w->tm, key, lvx_get_le64(value), &d, &t) < 0)
        return -EINVAL;
    return w->fn(w->arg, key, d, t);
}

int lvx_thin_walk(struct lvx_thin_meta *tm, uint64_t id, lvx_thin_walk_fn fn, void *arg)
{
    struct tm_dev *d = get_dev(tm, id);
    if (!d)
        return -ENOENT;
    struct walk_arg w = { tm, fn, arg };
    return tm_btree_walk(tm, d->root, 8, NULL, walk_entry, &w);
}

/* A change may start: the handle is writable and no earlier step failed half-way. */
static int writable(struct lvx_thin_meta *tm)
{
    if (tm->failed)
        return lvx_error(tm->ctx, EIO, "Thin pool metadata: an earlier change failed; reopen the metadata.");
    if (!tm->rw)
        return lvx_error(tm->ctx, EROFS, "Thin pool metadata is open read-only.");
    return 0;
}

/* A tree change failed after it may have changed blocks: refuse further changes. */
static int failed(struct lvx_thin_meta *tm, int r)
{
    tm->failed = true;
    return r;
}

int lvx_thin_create_thin(struct lvx_thin_meta *tm, uint64_t id)
{
    int r = writable(tm);
    if (r < 0)
        return r;
    if (find_dev(tm, id, NULL))
        return lvx_error(tm->ctx, EEXIST, "Thin device %llu already exists.", (unsigned long long)id);
    uint64_t root;
    if ((r = tm_map_empty(tm, &root)) < 0)
        return r;
    struct tm_dev *d = add_dev(tm, id);
    d->root = root;
    d->trans_id = tm->trans_id;
    d->ctime = d->stime = tm->time;
    return 0;
}

int lvx_thin_create_snap(struct lvx_thin_meta *tm, uint64_t id, uint64_t origin)
{
    int r = writable(tm);
    if (r < 0)
        return r;
    if (find_dev(tm, id, NULL))
        return lvx_error(tm->ctx, EEXIST, "Thin device %llu already exists.", (unsigned long long)id);
    if (!get_dev(tm, origin))
        return -ENOENT;
    struct tm_dev *d = add_dev(tm, id), *o = find_dev(tm, origin, NULL);
    tm->mrc[o->root]++;
    tm->time++;
    o->stime = tm->time;
    d->root = o->root;
    d->mapped = o->mapped;
    d->trans_id = tm->trans_id;
    d->ctime = d->stime = tm->time;
    return 0;
}

int lvx_thin_delete(struct lvx_thin_meta *tm, uint64_t id)
{
    int r = writable(tm);
    if (r < 0)
        return r;
    size_t pos;
    struct tm_dev *d = find_dev(tm, id, &pos);
    if (!d)
        return lvx_error(tm->ctx, ENOENT, "Thin device %llu does not exist.", (unsigned long long)id);
    if ((r = tm_map_dec(tm, d->root)) < 0)
        return failed(tm, r);
    memmove(tm->devs + pos, tm->devs + pos + 1, (tm->ndevs - pos - 1) * sizeof(*tm->devs));
    tm->ndevs--;
    return 0;
}

static void data_dec(struct lvx_thin_meta *tm, uint64_t value)
{
    uint64_t b = value >> 24;
    if (b < tm->nr_data && tm->drc[b])
        tm->drc[b]--;
}

/* A mapping change may start on device id (*d). */
static int changing_dev(struct lvx_thin_meta *tm, uint64_t id, struct tm_dev **d)
{
    int r = writable(tm);
    if (r < 0)
        return r;
    *d = get_dev(tm, id);
    return *d ? 0 : -ENOENT;
}

int lvx_thin_map_new(struct lvx_thin_meta *tm, uint64_t id, uint64_t vblock, uint64_t *data)
{
    struct tm_dev *d;
    int r = changing_dev(tm, id, &d);
    if (r < 0)
        return r;
    uint64_t b, old;
    bool replaced;
    if ((r = tm_alloc_data(tm, &b)) < 0)
        return r;
    if ((r = tm_map_insert(tm, &d->root, vblock, b << 24 | (tm->time & 0xFFFFFF), &replaced, &old)) < 0)
        return failed(tm, r);
    if (replaced)
        data_dec(tm, old);
    else
        d->mapped++;
    *data = b;
    return 0;
}

int lvx_thin_remove(struct lvx_thin_meta *tm, uint64_t id, uint64_t vblock)
{
    struct tm_dev *d;
    int r = changing_dev(tm, id, &d);
    if (r < 0)
        return r;
    uint64_t old;
    if ((r = tm_map_remove(tm, &d->root, vblock, &old)) < 0)
        return failed(tm, r);
    if (r == 1) {
        data_dec(tm, old);
        d->mapped--;
    }
    return r;
}

int lvx_thin_set_transaction_id(struct lvx_thin_meta *tm, uint64_t old_id, uint64_t new_id)
{
    int r = writable(tm);
    if (r < 0)
        return r;
    if (tm->trans_id != old_id)
        return lvx_error(tm->ctx, EINVAL, "Thin pool transaction id is %llu, not %llu.",
                         (unsigned long long)tm->trans_id, (unsigned long long)old_id);
    tm->trans_id = new_id;
    return 0;
}

/* The details tree and the top level of the mapping tree, in new blocks. */
static int build_trees(struct lvx_thin_meta *tm, uint64_t *details, uint64_t *top)
{
    size_t n = tm->ndevs;
    uint64_t *keys = lvx_xmalloc((n ? n : 1) * sizeof(*keys));
    uint8_t *dv = lvx_xmalloc((n ? n : 1) * TM_DETAILS_SIZE), *tv = lvx_xmalloc((n ? n : 1) * 8);
    for (size_t i = 0; i < n; i++) {
        const struct tm_dev *d = &tm->devs[i];
        keys[i] = d->id;
        lvx_put_le64(dv + TM_DETAILS_SIZE * i, d->mapped);
        lvx_put_le64(dv + TM_DETAILS_SIZE * i + 8, d->trans_id);
        lvx_put_le32(dv + TM_DETAILS_SIZE * i + 16, d->ctime);
        lvx_put_le32(dv + TM_DETAILS_SIZE * i + 20, d->stime);
        lvx_put_le64(tv + 8 * i, d->root);
    }
    int r = tm_btree_build(tm, keys, dv, n, TM_DETAILS_SIZE, &tm->aux, details);
    if (r == 0)
        r = tm_btree_build(tm, keys, tv, n, 8, &tm->aux, top);
    free(keys);
    free(dv);
    free(tv);
    return r;
}

static int flush(struct lvx_thin_meta *tm)
{
    const struct lvx_dev_ops *io = lvx_io(tm->ctx);
    int r = io->flush(io->arg, tm->fd);
    if (r < 0)
        return lvx_error(tm->ctx, -r, "Thin pool metadata: flush failed.");
    return 0;
}

static void encode_sb(struct lvx_thin_meta *tm, const uint8_t *data_root, const uint8_t *meta_root,
                      uint64_t top, uint64_t details)
{
    uint8_t *sb = tm->cache[0];
    uint32_t compat = lvx_get_le32(sb + 352), compat_ro = lvx_get_le32(sb + 356);
    memset(sb, 0, TM_BLOCK);
    lvx_put_le32(sb + 4, tm->flags);
    memcpy(sb + 16, tm->uuid, 16);
    lvx_put_le64(sb + 32, TM_MAGIC);
    lvx_put_le32(sb + 40, tm->version);
    lvx_put_le32(sb + 44, tm->time);
    lvx_put_le64(sb + 48, tm->trans_id);
    memcpy(sb + 64, data_root, 32);
    memcpy(sb + 192, meta_root, 32);
    lvx_put_le64(sb + 320, top);
    lvx_put_le64(sb + 328, details);
    lvx_put_le32(sb + 336, tm->data_block_size);
    lvx_put_le32(sb + 340, TM_BLOCK / 512);
    lvx_put_le64(sb + 344, tm->nr_meta);
    lvx_put_le32(sb + 352, compat);
    lvx_put_le32(sb + 356, compat_ro);
    tm_seal(sb, TM_SB_XOR);
}

int lvx_thin_commit(struct lvx_thin_meta *tm)
{
    int r = writable(tm);
    if (r < 0)
        return r;
    for (size_t i = 0; i < tm->aux.n; i++)
        tm_meta_dec(tm, tm->aux.b[i]);
    tm->aux.n = 0;
    uint8_t data_root[32], meta_root[32];
    uint64_t details, top;
    if ((r = build_trees(tm, &details, &top)) < 0 || (r = tm_sm_build(tm, data_root, meta_root)) < 0)
        return failed(tm, r);
    for (uint64_t b = 1; b < tm->nr_meta; b++) {
        if (!tm->dirty[b])
            continue;
        if (tm->dirty[b] == 1)
            tm_seal(tm->cache[b], TM_NODE_XOR);
        if ((r = tm_write_block(tm, b)) < 0)
            return failed(tm, r);
    }
    if ((r = flush(tm)) < 0)
        return failed(tm, r);
    encode_sb(tm, data_root, meta_root, top, details);
    if ((r = tm_write_block(tm, 0)) < 0 || (r = flush(tm)) < 0)
        return failed(tm, r);
    memset(tm->dirty, 0, tm->nr_meta);
    mark_committed(tm->mcom, tm->mrc, tm->nr_meta);
    mark_committed(tm->dcom, tm->drc, tm->nr_data);
    tm->mhint = tm->dhint = 0;
    return 0;
}
