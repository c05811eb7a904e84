/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/target_thin.c - thin pools and thin LVs served by the daemon, as the kernel's
 * thin-pool and thin targets do, over the pool's metadata in the kernel's on-disk
 * format (map/thin_meta.h), so LVM2 with the kernel takes over a pool the daemon
 * wrote and the daemon serves one the kernel wrote.
 *
 *   pool object  one per active pool, shared by every served file of it (a registry
 *                keyed by VG and pool UUIDs, as target_snapshot.c's stores): the
 *                metadata opened over _tmeta (map/lv_file.h: the pool's own PV
 *                handles, so it outlives any one file's model; a zeroed _tmeta is
 *                formatted as the kernel does at first activation), _tdata opened
 *                the same way for the flush before a commit, a model of its own (the
 *                VGs read again from the devices) whose prepared _tdata every data
 *                I/O of the pool's files goes through (replaced when a reload finds
 *                _tdata grown: the data space grows and waiting writes go on; a
 *                grown _tmeta: the metadata file covers the new extents and the
 *                metadata space map grows, as the kernel's pool at resume), and
 *                two locks (below).
 *   locks        a request whose blocks are all found in the metadata's block
 *                cache (lvx_thin_lookup_cached) and, for a write, all mapped to
 *                blocks of this device alone (written in place: no change of the
 *                metadata) is served with the pool's rwlock `maps` read-held, beside
 *                other such requests (fast_rw).  Everything else (a lookup that
 *                reads metadata, provisioning, copies, zeroing and discards,
 *                commits, messages, load and growth) holds the mutex `lock` and
 *                `maps` write-held (pool_lock), as one request at a time did
 *                before: no mapping and no data map changes while a read-held
 *                request's data I/O runs, so a block it writes is neither freed,
 *                reused, nor shared by a snapshot meanwhile.  Every change holds
 *                both, so the mutex alone suffices to read the pool's state
 *                (status, whether a commit is due).  `maps` prefers writers: a
 *                waiting change stops new readers.
 *   thin         reads map each block through the device's mapping tree (unmapped
 *                blocks read as zeroes, or from the external origin when the thin
 *                LV has one: zeroes past its end); a write to an unmapped block
 *                provisions one from the data space map (a partial write first
 *                fills it from the external origin, as dm-thin's external copy;
 *                else the rest of the block is zeroed first unless the pool has
 *                --zero n, the kernel's zero_new_blocks); a write to a
 *                block shared with a snapshot (mapped before the device was last
 *                snapshotted: dm-thin's time rule) goes to a new block after the old
 *                one was copied (when the write does not cover it whole); zeroing
 *                (discard, write-zeroes) unmaps whole blocks and writes zeroes into
 *                partial ones; --discards: ignore refuses discards (EOPNOTSUPP) and
 *                write-zeroes writes zeroes, passdown also discards the data blocks
 *                freed on _tdata, nopassdown does not (the features are read again
 *                at each reload).  No free block: the transaction is committed
 *                (blocks freed since the last commit become usable) and the
 *                allocation tried again; the pool full then: ENOSPC at once with
 *                --errorwhenfull y, else the write waits for space up to the
 *                kernel's no_space_timeout (60 s; LVXD_THIN_NO_SPACE_TIMEOUT seconds
 *                for tests) and then fails with EIO.  Every 5% of the data
 *                blocks handed out, and a pool out of space, wake the monitor
 *                (monitor.c), which extends a monitored pool by the policy.
 *   commit       on flush (fsync: FUA and flushes of the loop device) and when a
 *                served file of the pool goes away (deactivation): the written PVs
 *                and every _tdata PV fdatasynced, then lvx_thin_commit() (new blocks,
 *                flush, superblock last, flush), so a crash leaves the last commit.
 *                A failed metadata change or commit puts the pool in failure mode
 *                (every write fails with EIO, reads go on), as the kernel's.
 *   pool LV      served read-only: reads return _tdata's bytes (the kernel's pool
 *                device remaps to its data device), writes fail with EROFS.
 *   messages     lvxd_thin_message(): create_thin, create_snap, delete and
 *                set_transaction_id on a served pool, committed at once.
 *   thin dev     the same thin device for another target (lvxd_thin_dev_*): the
 *                origin of COW snapshots (target_snapshot.c) reads and writes its thin
 *                LV through it, and its snapshots read the origin's chunks through it.
 *
 * Entry points: lvxd_target_thin (target.c's table: thin LVs and pools),
 * lvxd_thin_message(), lvxd_thin_dev_ctr() and the other lvxd_thin_dev_* calls.
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "map/lv_file.h"
#include "map/map.h"
#include "meta/read.h"
#include "model/thin.h"
#include "util/pool.h"

#define ALIGN 4096
#define COPY_BYTES (1u << 20)


struct thin_pool {
    struct thin_pool *next;
    char key[2 * LVX_UUID_LEN + 2];
    char name[260];            /* vg/pool */
    unsigned refs;
    pthread_mutex_t lock;      /* every change, with maps write-held (pool_lock) */
    pthread_rwlock_t maps;     /* read-held by fast_rw's requests */
    pthread_cond_t space;      /* the data space grew */
    bool loaded, changed, failed;
    struct lvx_pool *mem;
    struct lvx_scan *scan;     /* the pool's own model, read from the devices */
    struct lvx_vgset *set;
    const struct lvx_map_prepared *data_map;   /* _tdata, in set's pool */
    uint64_t data_blocks;      /* what data_map covers */
    struct lvx_lv_file *meta, *data;
    struct lvx_thin_meta *tm;
    uint32_t chunk;            /* sectors */
    uint64_t cb;               /* block bytes */
    bool zero, error_full;
    bool ignore_discard;       /* discards refused (the table's ignore_discard) */
    bool passdown;             /* blocks a discard frees are discarded on _tdata */
    uint8_t *copy;             /* COPY_BYTES */
    uint64_t since_kick;       /* blocks handed out since the monitor was last woken */
    uint64_t n_fast, n_locked; /* requests served read-held (atomic) and locked */
};

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct thin_pool *registry;

struct lvxd_thin_dev {
    const struct lvx_lv *lv;   /* the thin LV (or the pool), in the model of the file */
    bool pool_file;            /* the pool LV's own file */
    uint64_t dev_id;
    struct thin_pool *tp;      /* from start */
    const struct lvx_map_prepared *ext;   /* the external origin (read-only), or NULL */
    uint64_t ext_bytes;        /* its size: unmapped blocks past it read as zeroes */
};

static void pool_key(const struct lvx_lv *pool, char *key, size_t n)
{
    snprintf(key, n, "%s/%s", pool->vg->uuid, pool->uuid);
}

static struct thin_pool *pool_get(const struct lvx_lv *pool)
{
    char key[sizeof(((struct thin_pool *)0)->key)];
    pool_key(pool, key, sizeof(key));
    pthread_mutex_lock(&registry_mutex);
    struct thin_pool *tp = registry;
    while (tp && strcmp(tp->key, key) != 0)
        tp = tp->next;
    if (!tp && (tp = calloc(1, sizeof(*tp)))) {
        snprintf(tp->key, sizeof(tp->key), "%s", key);
        snprintf(tp->name, sizeof(tp->name), "%s/%s", pool->vg->name, pool->name);
        pthread_mutex_init(&tp->lock, NULL);
        pthread_rwlockattr_t a;
        pthread_rwlockattr_init(&a);
        pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        pthread_rwlock_init(&tp->maps, &a);
        pthread_rwlockattr_destroy(&a);
        pthread_cond_init(&tp->space, NULL);
        tp->next = registry;
        registry = tp;
    }
    if (tp)
        tp->refs++;
    pthread_mutex_unlock(&registry_mutex);
    return tp;
}

static void drop_model(struct lvx_vgset *set, struct lvx_scan *scan)
{
    if (set)
        lvx_vgset_free(set);
    if (scan)
        lvx_scan_free(scan);
}

static void pool_unload(struct thin_pool *tp)
{
    lvx_lv_file_close(tp->meta);
    lvx_lv_file_close(tp->data);
    if (tp->mem)
        lvx_pool_destroy(tp->mem);
    drop_model(tp->set, tp->scan);
    free(tp->copy);
    tp->meta = tp->data = NULL;
    tp->mem = NULL;
    tp->tm = NULL;
    tp->copy = NULL;
    tp->set = NULL;
    tp->scan = NULL;
    tp->data_map = NULL;
    tp->loaded = false;
}

/* The pool for a change: the mutex, then maps write-held (no fast_rw request runs). */
static void pool_lock(struct thin_pool *tp)
{
    pthread_mutex_lock(&tp->lock);
    pthread_rwlock_wrlock(&tp->maps);
}

static void pool_unlock(struct thin_pool *tp)
{
    pthread_rwlock_unlock(&tp->maps);
    pthread_mutex_unlock(&tp->lock);
}

/* Commit what changed (pool_lock held): the data first, then the metadata. */
static int pool_commit(struct thin_pool *tp)
{
    if (!tp->loaded || !tp->changed || tp->failed)
        return tp->failed ? -EIO : 0;
    int rc = lvx_lv_file_flush(tp->data);
    if (rc == 0 && (rc = lvx_thin_commit(tp->tm)) < 0)
        lvxd_log("thin pool %s: commit failed: %s", tp->name,
                 lvx_lv_file_ctx(tp->meta)->errmsg);
    if (rc < 0) {
        tp->failed = true;
        lvxd_log("thin pool %s: metadata failure: writes fail from now on", tp->name);
        return -EIO;
    }
    tp->changed = false;
    return 0;
}

/* pool_commit when there is something to commit: maps write-held only then, so a
 * flush with nothing new does not wait for the read-held requests. */
static int commit_due(struct thin_pool *tp)
{
    pthread_mutex_lock(&tp->lock);
    bool due = tp->loaded && tp->changed && !tp->failed;
    if (due)
        pthread_rwlock_wrlock(&tp->maps);
    int rc = pool_commit(tp);
    if (due)
        pthread_rwlock_unlock(&tp->maps);
    pthread_mutex_unlock(&tp->lock);
    return rc;
}

static void pool_put(struct thin_pool *tp)
{
    pthread_mutex_lock(&registry_mutex);
    bool last = --tp->refs == 0;
    if (last)
        for (struct thin_pool **p = &registry; *p; p = &(*p)->next)
            if (*p == tp) {
                *p = tp->next;
                break;
            }
    pthread_mutex_unlock(&registry_mutex);
    commit_due(tp);
    if (!last)
        return;
    if (tp->loaded)
        lvxd_log("thin pool %s: %" PRIu64 " requests served beside each other, %" PRIu64
                 " under the pool lock", tp->name, __atomic_load_n(&tp->n_fast, __ATOMIC_RELAXED),
                 tp->n_locked);
    pool_unload(tp);
    pthread_mutex_destroy(&tp->lock);
    pthread_rwlock_destroy(&tp->maps);
    pthread_cond_destroy(&tp->space);
    free(tp);
}

/* The pool's own model: the VGs of v's devices read again, the pool found by UUID,
 * its _tdata prepared (thin LVs' files may hold older models: the data goes through
 * this one, which lives as long as the pool object).  *pool in *set. */
static int read_model(struct lvx_ctx *ctx, struct lvxd_lv *v, const struct lvx_lv *model_pool,
                      struct lvx_scan **scan, struct lvx_vgset **set, const struct lvx_lv **pool,
                      const struct lvx_map_prepared **map)
{
    struct lvx_map_prepared *m;
    int rc = lvxd_read_vgs(ctx, v->devices, scan, set);
    struct lvx_vg *vg = rc == 0 ? lvx_vgset_find(*set, model_pool->vg->uuid) : NULL;
    *pool = vg ? lvx_vg_find_lv(vg, model_pool->name) : NULL;
    if (rc == 0 && (!*pool || strcmp((*pool)->uuid, model_pool->uuid) != 0 ||
                    !lvx_lv_thin_pool_seg(*pool)))
        rc = lvx_error(ctx, ENOENT, "Thin pool %s/%s not found on its devices.",
                       model_pool->vg->name, model_pool->name);
    if (rc == 0 && (rc = lvx_map_prepare(ctx, (*set)->pool, lvx_lv_thin_pool_seg(*pool)->data_lv,
                                         v->partial ? LVX_MAP_MISSING_IS_ERROR : 0, &m)) == 0)
        *map = m;
    if (rc < 0) {
        drop_model(*set, *scan);
        *set = NULL;
        *scan = NULL;
    }
    return rc;
}

/* The pool's features from its segment and flags, as the table line carries them
 * (map/thin.c): zero_new_blocks, discards (a chunk size not a power of 2 ignores
 * them), error_if_no_space.  At load and at every reload (lvchange). */
static void pool_features(struct thin_pool *tp, const struct lvx_lv *pool)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    const char *d = ps->discards ? ps->discards : "passdown";
    tp->zero = ps->zero_new_blocks;
    tp->error_full = (pool->flags & LVX_LVF_ERROR_WHEN_FULL) != 0;
    tp->ignore_discard = !strcmp(d, "ignore") || (ps->chunk_size & (ps->chunk_size - 1));
    tp->passdown = !tp->ignore_discard && strcmp(d, "nopassdown") != 0;
}

/* A grown _tdata (a reload after lvextend): the pool's model read again, the data
 * space grown, waiting writes woken. */
/* A grown _tmeta (a reload after lvextend --poolmetadatasize): the metadata file
 * covers the new extents and the metadata space map grows to them (committed with
 * the next transaction), as the kernel's pool does at resume. */
static int meta_grow(struct lvx_ctx *ctx, struct thin_pool *tp, const struct lvx_lv *tmeta)
{
    uint64_t bytes = tmeta->le_count * (uint64_t)tmeta->vg->extent_size * 512;
    if (bytes <= lvx_lv_file_bytes(tp->meta))
        return 0;
    struct lvx_ctx c;
    lvx_ctx_init(&c);
    c.io = lvxd_ops();
    int rc = lvx_lv_file_grow(&c, tp->meta, tmeta, true);
    if (rc < 0)
        return lvx_error(ctx, -rc, "%s", c.errmsg);
    if ((rc = lvx_thin_resize_meta(tp->tm, lvx_lv_file_bytes(tp->meta))) < 0)
        return lvx_error(ctx, -rc, "%s", lvx_lv_file_ctx(tp->meta)->errmsg);
    tp->changed = true;
    struct lvx_thin_info info;
    lvx_thin_meta_info(tp->tm, &info);
    lvxd_log("thin pool %s: %" PRIu64 " metadata blocks now", tp->name, info.nr_meta);
    return 0;
}

static int pool_grow(struct lvx_ctx *ctx, struct thin_pool *tp, struct lvxd_lv *v,
                     const struct lvx_lv *model_pool, bool rw)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(model_pool);
    uint64_t nr = ps->data_lv->le_count * (uint64_t)model_pool->vg->extent_size / tp->chunk;
    if (!rw || tp->failed)
        return 0;
    int rc = meta_grow(ctx, tp, ps->metadata_lv);
    if (rc < 0 || nr <= tp->data_blocks)
        return rc;
    struct lvx_ctx c;
    lvx_ctx_init(&c);
    c.io = lvxd_ops();
    struct lvx_scan *scan;
    struct lvx_vgset *set;
    const struct lvx_lv *pool;
    const struct lvx_map_prepared *map;
    struct lvx_lv_file *df;
    rc = read_model(ctx, v, model_pool, &scan, &set, &pool, &map);
    if (rc < 0)
        return rc;
    ps = lvx_lv_thin_pool_seg(pool);
    nr = lvx_map_prepared_sectors(map) / tp->chunk;
    if ((rc = lvx_lv_file_open(&c, ps->data_lv, true, &df)) < 0) {
        drop_model(set, scan);
        return lvx_error(ctx, -rc, "%s", c.errmsg);
    }
    if ((rc = lvx_thin_resize_data(tp->tm, nr)) < 0) {
        lvx_lv_file_close(df);
        drop_model(set, scan);
        return lvx_error(ctx, -rc, "%s", lvx_lv_file_ctx(tp->meta)->errmsg);
    }
    lvx_lv_file_close(tp->data);
    drop_model(tp->set, tp->scan);
    tp->data = df;
    tp->set = set;
    tp->scan = scan;
    tp->data_map = map;
    tp->data_blocks = nr;
    tp->changed = true;
    lvxd_log("thin pool %s: %" PRIu64 " data blocks now", tp->name, nr);
    pthread_cond_broadcast(&tp->space);
    return 0;
}

/* Load the pool's metadata (the first user) or take a grown _tdata (reload). */
static int pool_load(struct lvx_ctx *ctx, struct thin_pool *tp, struct lvxd_lv *v,
                     const struct lvx_lv *model_pool, bool rw)
{
    if (tp->loaded) {
        pool_features(tp, model_pool);
        return pool_grow(ctx, tp, v, model_pool, rw);
    }
    struct lvx_ctx c;
    lvx_ctx_init(&c);
    c.io = lvxd_ops();
    const struct lvx_lv *pool;
    int rc = read_model(ctx, v, model_pool, &tp->scan, &tp->set, &pool, &tp->data_map);
    if (rc < 0)
        return rc;
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    tp->mem = lvx_pool_create();
    tp->chunk = ps->chunk_size;
    tp->cb = (uint64_t)ps->chunk_size * 512;
    tp->data_blocks = lvx_map_prepared_sectors(tp->data_map) / tp->chunk;
    pool_features(tp, pool);
    tp->failed = tp->changed = false;
    if (posix_memalign((void **)&tp->copy, ALIGN, COPY_BYTES) != 0) {
        tp->copy = NULL;
        rc = lvx_error(ctx, ENOMEM, "Out of memory.");
    }
    if (rc == 0 && (rc = lvx_thin_pool_meta_open(&c, tp->mem, pool, rw, &tp->meta, &tp->tm)) < 0)
        rc = lvx_error(ctx, -rc, "%s", c.errmsg);
    if (rc == 0 && (rc = lvx_lv_file_open(&c, ps->data_lv, rw, &tp->data)) < 0)
        rc = lvx_error(ctx, -rc, "%s", c.errmsg);
    if (rc < 0) {
        pool_unload(tp);
        return rc;
    }
    tp->loaded = true;
    struct lvx_thin_info info;
    lvx_thin_meta_info(tp->tm, &info);
    lvxd_log("thin pool %s: transaction %" PRIu64 ", %" PRIu64 "/%" PRIu64 " data blocks, "
             "%" PRIu64 "/%" PRIu64 " metadata blocks", tp->name, info.trans_id, info.data_used,
             info.nr_data, info.meta_used, info.nr_meta);
    return 0;
}

/* --- constructors ------------------------------------------------------------ */

static const struct lvx_lv *pool_of(const struct lvx_lv *lv)
{
    const struct lvx_seg *ts = lvx_lv_thin_seg(lv);
    return ts ? ts->pool_lv : lv;
}

int lvxd_thin_dev_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                      bool partial, struct lvxd_thin_dev **out)
{
    *out = NULL;
    int rc = lvx_map_refuse_thin_on_raid(ctx, lv);
    if (rc == 0)
        rc = lvx_map_check_thin_activatable(ctx, lv, partial);
    if (rc < 0)
        return rc;
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool_of(lv));
    if (!ps->chunk_size)
        return lvx_error(ctx, EINVAL, "Thin pool %s/%s has no chunk size.", lv->vg->name,
                         pool_of(lv)->name);
    struct lvxd_thin_dev *s = calloc(1, sizeof(*s));
    if (!s)
        return lvx_error(ctx, ENOMEM, "Out of memory.");
    s->lv = lv;
    s->pool_file = lvx_lv_is_thin_pool(lv);
    s->dev_id = s->pool_file ? 0 : lvx_thin_table_device_id(lv);
    const struct lvx_lv *ext = s->pool_file ? NULL : lvx_lv_thin_seg(lv)->external_lv;
    if (ext) {
        struct lvx_map_prepared *m;
        if ((rc = lvx_map_prepare(ctx, pool, ext, partial ? LVX_MAP_MISSING_IS_ERROR : 0,
                                  &m)) < 0) {
            free(s);
            return rc;
        }
        s->ext = m;
        s->ext_bytes = lvx_map_prepared_sectors(m) * 512;
    }
    *out = s;
    return 0;
}

static int thin_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                    bool partial, const struct lvx_map_prepared **map, void **state)
{
    struct lvxd_thin_dev *s;
    int rc = lvxd_thin_dev_ctr(ctx, pool, lv, partial, &s);
    *map = NULL;
    *state = rc == 0 ? s : NULL;
    return rc;
}

int lvxd_thin_dev_start(struct lvx_ctx *ctx, struct lvxd_lv *v, struct lvxd_thin_dev *s)
{
    const struct lvx_lv *pool = pool_of(s->lv);
    if (!s->tp && !(s->tp = pool_get(pool)))
        return lvx_error(ctx, ENOMEM, "Out of memory.");
    struct thin_pool *tp = s->tp;
    pool_lock(tp);
    int rc = pool_load(ctx, tp, v, pool, !v->read_only || s->pool_file);
    if (rc == 0 && !s->pool_file) {
        struct lvx_thin_details d;
        if (lvx_thin_meta_device(tp->tm, s->dev_id, &d) < 0)
            rc = lvx_error(ctx, ENOENT, "Thin device %" PRIu64 " of %s/%s is missing from the "
                           "metadata of thin pool %s.", s->dev_id, s->lv->vg->name, s->lv->name,
                           tp->name);
    }
    pool_unlock(tp);
    if (rc < 0) {
        pool_put(tp);
        s->tp = NULL;
    }
    return rc;
}

static int thin_start(struct lvx_ctx *ctx, struct lvxd_lv *v)
{
    return lvxd_thin_dev_start(ctx, v, v->tstate);
}

void lvxd_thin_dev_dtr(struct lvxd_lv *v, struct lvxd_thin_dev *s)
{
    if (s && s->tp) {
        if (v) {        /* this file's data writes reach the disk before the commit */
            struct lvxd_io io;
            if (lvxd_io_init(&io) == 0) {
                lvxd_io_flush_pvs(&io, v);
                lvxd_io_exit(&io);
            }
        }
        pool_put(s->tp);
    }
    free(s);
}

static void thin_dtr(struct lvxd_lv *v, void *state)
{
    lvxd_thin_dev_dtr(v, state);
}

/* --- the thin device ---------------------------------------------------------- */

static int run_pending(struct lvxd_io *io, unsigned *n)
{
    int rc = *n ? lvxd_io_run(io, *n) : 0;
    *n = 0;
    return rc;
}

static int no_space_timeout(void)
{
    const char *e = getenv("LVXD_THIN_NO_SPACE_TIMEOUT");
    int t = e && *e ? atoi(e) : 60;
    return t < 0 ? 0 : t;
}

/* A new data block for vblock (pool_lock held).  The pool full, with errorwhenfull n:
 * waits (the lock released) until the data space grows or *until passes (set at the
 * first wait, *waited), then -EAGAIN: the caller looks the block up again (another
 * write may have mapped it meanwhile); after the deadline EIO. */
static int provision(struct lvxd_io *io, unsigned *n, struct thin_pool *tp,
                     const struct lvxd_thin_dev *s, uint64_t vb, uint64_t *nd,
                     struct timespec *until, bool *waited)
{
    for (;;) {
        int rc = lvx_thin_map_new(tp->tm, s->dev_id, vb, nd);
        if (rc == 0) {
            tp->changed = true;
            if (++tp->since_kick > tp->data_blocks / 20) {  /* 5% more: monitor.c looks */
                tp->since_kick = 0;
                lvxd_monitor_kick();
            }
            return 0;
        }
        if (rc != -ENOSPC || tp->failed || lvx_thin_meta_failed(tp->tm)) {
            tp->failed = true;
            lvxd_log("thin pool %s: %s: writes fail from now on", tp->name,
                     lvx_lv_file_ctx(tp->meta)->errmsg);
            return -EIO;
        }
        /* blocks freed since the last commit are reused only after it: commit and
         * try again before calling the pool full (the kernel's alloc_data_block) */
        if (tp->changed) {
            /* the batch's writes first: no commit maps a block before its data */
            if ((rc = run_pending(io, n)) < 0)
                return rc;
            if (pool_commit(tp) < 0)
                return -EIO;
            continue;
        }
        if (tp->error_full)
            return -ENOSPC;
        if (!*waited) {
            lvxd_log("thin pool %s: out of data space, writes wait", tp->name);
            lvxd_monitor_kick();                /* a monitored pool is extended */
            clock_gettime(CLOCK_REALTIME, until);
            until->tv_sec += no_space_timeout();
            *waited = true;
        } else {
            struct timespec now;
            clock_gettime(CLOCK_REALTIME, &now);
            if (now.tv_sec > until->tv_sec ||
                (now.tv_sec == until->tv_sec && now.tv_nsec >= until->tv_nsec)) {
                lvxd_log("thin pool %s: no data space after the timeout: EIO", tp->name);
                return -EIO;
            }
        }
        if ((rc = run_pending(io, n)) < 0)      /* others may commit meanwhile */
            return rc;
        pthread_rwlock_unlock(&tp->maps);
        pthread_cond_timedwait(&tp->space, &tp->lock, until);
        pthread_rwlock_wrlock(&tp->maps);
        return -EAGAIN;
    }
}

/* Bytes [o, o+len) of the external origin into buf, zeroes past its end (dm-thin's
 * reads of unprovisioned blocks of a thin device with an origin). */
static int ext_read(struct lvxd_io *io, struct lvxd_lv *v, const struct lvxd_thin_dev *s,
                    uint64_t o, uint64_t len, uint8_t *buf, unsigned *n)
{
    uint64_t have = o < s->ext_bytes ? s->ext_bytes - o : 0;
    if (have > len)
        have = len;
    if (have < len)
        memset(buf + have, 0, len - have);
    return have ? lvxd_io_map_add(io, v, s->ext, false, o, (uint32_t)have, buf, n) : 0;
}

/* Data block to filled whole (pool_lock held): from data block from, or (ext) from
 * virtual block from of the external origin (dm-thin's schedule_external_copy before a
 * partial write into an unprovisioned block). */
static int copy_block(struct lvxd_io *io, struct lvxd_lv *v, struct thin_pool *tp,
                      const struct lvxd_thin_dev *s, bool ext, uint64_t from, uint64_t to)
{
    int rc = 0;
    for (uint64_t k = 0; k < tp->cb && rc == 0; k += COPY_BYTES) {
        uint32_t l = (uint32_t)(tp->cb - k < COPY_BYTES ? tp->cb - k : COPY_BYTES);
        unsigned n = 0;
        rc = ext ? ext_read(io, v, s, from * tp->cb + k, l, tp->copy, &n)
                 : lvxd_io_map_add(io, v, tp->data_map, false, from * tp->cb + k, l, tp->copy, &n);
        if (rc == 0)
            rc = run_pending(io, &n);
        if (rc == 0)
            rc = lvxd_io_map_add(io, v, tp->data_map, true, to * tp->cb + k, l, tp->copy, &n);
        if (rc == 0)
            rc = run_pending(io, &n);
    }
    return rc;
}

/* Bytes [o, e) of one block into dst, the block's lookup r (1 mapped to data block d,
 * 0 unmapped) given: queued, or filled at once. */
static int read_block(struct lvxd_io *io, struct lvxd_lv *v, struct thin_pool *tp,
                      const struct lvxd_thin_dev *s, int r, uint64_t d, uint64_t o, uint64_t e,
                      uint8_t *dst, unsigned *n)
{
    if (r == 0 && s->ext)
        return ext_read(io, v, s, o, e - o, dst, n);
    if (r == 0) {
        memset(dst, 0, e - o);
        return 0;
    }
    return lvxd_io_map_add(io, v, tp->data_map, false, d * tp->cb + o % tp->cb,
                           (uint32_t)(e - o), dst, n);
}

static int thin_read(struct lvxd_io *io, struct lvxd_lv *v, struct thin_pool *tp,
                     const struct lvxd_thin_dev *s, uint64_t off, uint32_t len, uint8_t *buf)
{
    unsigned n = 0;
    int rc = 0;
    for (uint64_t o = off, end = off + len; o < end && rc == 0;) {
        uint64_t vb = o / tp->cb;
        uint64_t e = (vb + 1) * tp->cb < end ? (vb + 1) * tp->cb : end, d;
        uint32_t t;
        int r = lvx_thin_lookup(tp->tm, s->dev_id, vb, &d, &t);
        rc = r < 0 ? -EIO : read_block(io, v, tp, s, r, d, o, e, buf + (o - off), &n);
        o = e;
    }
    int r2 = run_pending(io, &n);
    return rc ? rc : r2;
}

/* Blocks of one request that fast_rw resolves at most (1 MiB over 64 KiB blocks spans
 * 17); a request over more takes the locked way. */
#define FAST_BLOCKS 32
#define FAST_NOT_SERVED 1

/* The request with maps read-held only, beside other such requests (the locks: top of
 * the file): every block it touches found by lvx_thin_lookup_cached, and for a write
 * every one mapped to a block of this device alone (not shared by a snapshot: the
 * time rule of thin_write), so it is written in place and the metadata does not
 * change.  FAST_NOT_SERVED (nothing done) when that does not hold: pool_lock's way. */
static int fast_rw(struct lvxd_io *io, struct lvxd_lv *v, struct thin_pool *tp,
                   const struct lvxd_thin_dev *s, bool write, uint64_t off, uint32_t len,
                   uint8_t *buf)
{
    uint64_t first = off / tp->cb, nb = (off + len - 1) / tp->cb - first + 1, d[FAST_BLOCKS];
    int r[FAST_BLOCKS];
    struct lvx_thin_details det = { 0 };
    if (nb > FAST_BLOCKS)
        return FAST_NOT_SERVED;
    pthread_rwlock_rdlock(&tp->maps);
    bool ok = tp->loaded && !(write && (tp->failed ||
                                        lvx_thin_meta_device(tp->tm, s->dev_id, &det) < 0));
    for (uint64_t i = 0; i < nb && ok; i++) {
        uint32_t t;
        r[i] = lvx_thin_lookup_cached(tp->tm, s->dev_id, first + i, &d[i], &t);
        ok = r[i] >= 0 && !(write && (r[i] == 0 || t < det.snapshotted_time));
    }
    unsigned n = 0;
    int rc = 0;
    for (uint64_t o = off, end = off + len; ok && o < end && rc == 0;) {
        uint64_t i = o / tp->cb - first;
        uint64_t e = (first + i + 1) * tp->cb < end ? (first + i + 1) * tp->cb : end;
        rc = write ? lvxd_io_map_add(io, v, tp->data_map, true, d[i] * tp->cb + o % tp->cb,
                                     (uint32_t)(e - o), buf + (o - off), &n)
                   : read_block(io, v, tp, s, r[i], d[i], o, e, buf + (o - off), &n);
        o = e;
    }
    int r2 = run_pending(io, &n);
    pthread_rwlock_unlock(&tp->maps);
    if (!ok)
        return FAST_NOT_SERVED;
    __atomic_fetch_add(&tp->n_fast, 1, __ATOMIC_RELAXED);
    return rc ? rc : r2;
}

static int thin_write(struct lvxd_io *io, struct lvxd_lv *v, struct thin_pool *tp,
                      const struct lvxd_thin_dev *s, uint64_t off, uint32_t len, const uint8_t *buf)
{
    struct lvx_thin_details det;
    if (tp->failed)
        return -EIO;
    if (lvx_thin_meta_device(tp->tm, s->dev_id, &det) < 0)
        return -EIO;
    unsigned n = 0;
    int rc = 0;
    struct timespec until;
    bool waited = false;
    for (uint64_t o = off, end = off + len; o < end && rc == 0;) {
        uint64_t vb = o / tp->cb, inner = o - vb * tp->cb, base;
        uint64_t e = (vb + 1) * tp->cb < end ? (vb + 1) * tp->cb : end, d, nd;
        uint32_t t;
        bool whole = inner == 0 && e - o == tp->cb;
        int r = lvx_thin_lookup(tp->tm, s->dev_id, vb, &d, &t);
        if (r < 0) {
            rc = -EIO;
            break;
        }
        if (r == 1 && t >= det.snapshotted_time) {      /* ours alone: in place */
            base = d;
        } else {
            /* a copy or zeroing below runs its own batches: this one goes first */
            bool more_io = r == 1 ? !whole : !whole && (tp->zero || s->ext);
            if (more_io && (rc = run_pending(io, &n)) < 0)
                break;
            if ((rc = provision(io, &n, tp, s, vb, &nd, &until, &waited)) == -EAGAIN) {
                rc = 0;
                if (lvx_thin_meta_device(tp->tm, s->dev_id, &det) < 0)
                    rc = -EIO;
                continue;                               /* look it up again */
            }
            if (rc < 0)
                break;
            base = nd;
            if (r == 1 && !whole)                       /* break the sharing */
                rc = copy_block(io, v, tp, s, false, d, nd);
            else if (r == 0 && !whole && s->ext && vb * tp->cb < s->ext_bytes)
                rc = copy_block(io, v, tp, s, true, vb, nd);    /* the origin's block */
            else if (r == 0 && !whole && tp->zero) {    /* zero_new_blocks */
                if (inner)
                    rc = lvxd_io_map_zero(io, v, tp->data_map, nd * tp->cb, inner);
                if (rc == 0 && inner + (e - o) < tp->cb)
                    rc = lvxd_io_map_zero(io, v, tp->data_map, nd * tp->cb + inner + (e - o),
                                          tp->cb - inner - (e - o));
            }
        }
        if (rc == 0)
            rc = lvxd_io_map_add(io, v, tp->data_map, true, base * tp->cb + inner,
                                 (uint32_t)(e - o), (uint8_t *)buf + (o - off), &n);
        o = e;
    }
    int r2 = run_pending(io, &n);
    return rc ? rc : r2;
}

int lvxd_thin_dev_rw(struct lvxd_io *io, struct lvxd_lv *v, const struct lvxd_thin_dev *s,
                     bool write, uint64_t off, uint32_t len, uint8_t *buf)
{
    struct thin_pool *tp = s->tp;
    if (!len)
        return 0;
    if (s->pool_file) {
        if (write)
            return -EROFS;
        unsigned n = 0;
        int rc = lvxd_io_map_add(io, v, tp->data_map, false, off, len, buf, &n);
        return rc == 0 ? run_pending(io, &n) : rc;
    }
    int rc = fast_rw(io, v, tp, s, write, off, len, buf);
    if (rc != FAST_NOT_SERVED)
        return rc;
    pool_lock(tp);
    tp->n_locked++;
    rc = write ? thin_write(io, v, tp, s, off, len, buf) : thin_read(io, v, tp, s, off, len, buf);
    pool_unlock(tp);
    return rc;
}

static int thin_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off, uint32_t len,
                   uint8_t *buf)
{
    return lvxd_thin_dev_rw(io, v, v->tstate, write, off, len, buf);
}

/* Whole blocks unmapped (unmap: else written with zeroes), partial ones written with
 * zeroes; with passdown, the data blocks no device references any more are discarded
 * on _tdata at once (they are not reused before the next commit, and what a crash
 * before it leaves mapped there was discarded by the user). */
static int zero_range(struct lvxd_io *io, struct lvxd_lv *v, const struct lvxd_thin_dev *s,
                      uint64_t off, uint64_t len, bool unmap)
{
    struct thin_pool *tp = s->tp;
    if (s->pool_file)
        return -EROFS;
    int rc = 0;
    pool_lock(tp);
    if (tp->failed)
        rc = -EIO;
    for (uint64_t o = off, end = off + len; o < end && rc == 0;) {
        uint64_t vb = o / tp->cb, inner = o - vb * tp->cb, d;
        uint32_t t;
        uint64_t e = (vb + 1) * tp->cb < end ? (vb + 1) * tp->cb : end;
        if (unmap && inner == 0 && e - o == tp->cb) {
            int mapped = lvx_thin_lookup(tp->tm, s->dev_id, vb, &d, &t);
            int r = mapped < 0 ? mapped : lvx_thin_remove(tp->tm, s->dev_id, vb);
            if (r < 0) {
                tp->failed = true;
                rc = -EIO;
            } else if (r > 0) {
                tp->changed = true;
                if (tp->passdown && mapped == 1 && !lvx_thin_data_used(tp->tm, d))
                    rc = lvxd_io_map_zero(io, v, tp->data_map, d * tp->cb, tp->cb);
            }
        } else {
            uint8_t *zeroes = lvxd_zeroes();
            if (!zeroes)
                rc = -ENOMEM;
            for (uint64_t k = o; k < e && rc == 0; k += LVXD_MAX_IO) {
                uint64_t l = e - k < LVXD_MAX_IO ? e - k : LVXD_MAX_IO;
                rc = thin_write(io, v, tp, s, k, (uint32_t)l, zeroes);
            }
        }
        o = e;
    }
    pool_unlock(tp);
    return rc;
}

/* write-zeroes: unmapping unless the pool ignores discards or the device has an
 * external origin (an unmapped block reads the origin's bytes) */
int lvxd_thin_dev_zero(struct lvxd_io *io, struct lvxd_lv *v, const struct lvxd_thin_dev *s,
                       uint64_t off, uint64_t len)
{
    return zero_range(io, v, s, off, len, s->tp && !s->tp->ignore_discard && !s->ext);
}

static int thin_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    return lvxd_thin_dev_zero(io, v, v->tstate, off, len);
}

/* discard: refused when the pool ignores discards (--discards ignore: the kernel's
 * thin device takes none) */
static int thin_discard(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    const struct lvxd_thin_dev *s = v->tstate;
    if (!s->pool_file && s->tp->ignore_discard)
        return -EOPNOTSUPP;
    return zero_range(io, v, s, off, len, true);
}

int lvxd_thin_dev_flush(struct lvxd_io *io, struct lvxd_lv *v, const struct lvxd_thin_dev *s)
{
    int rc = lvxd_io_flush_pvs(io, v);
    if (rc < 0 || s->pool_file)
        return rc;
    return commit_due(s->tp);
}

static int thin_flush(struct lvxd_io *io, struct lvxd_lv *v)
{
    return lvxd_thin_dev_flush(io, v, v->tstate);
}

/* pool: " thin-pool TID USED_META/TOTAL_META USED_DATA/TOTAL_DATA - rw DISCARDS"
 * (blocks; the held root, mode and discard token as in the kernel's pool status);
 * thin LV: " thin MAPPED_SECTORS" */
void lvxd_thin_dev_status(const struct lvxd_thin_dev *s, char *out, size_t n)
{
    struct thin_pool *tp = s ? s->tp : NULL;
    if (!tp)
        return;
    pthread_mutex_lock(&tp->lock);            /* reads only: the mutex suffices */
    if (tp->loaded && s->pool_file) {
        struct lvx_thin_info i;
        lvx_thin_meta_info(tp->tm, &i);
        /* the kernel keeps back a tenth of the metadata blocks (at most 4096) for its own
         * commits and counts them as used in its status: Meta% as the kernel's */
        uint64_t reserve = i.nr_meta / 10 < 4096 ? i.nr_meta / 10 : 4096;
        uint64_t meta_used = i.meta_used + reserve < i.nr_meta ? i.meta_used + reserve : i.nr_meta;
        snprintf(out, n, " thin-pool %" PRIu64 " %" PRIu64 "/%" PRIu64 " %" PRIu64 "/%" PRIu64
                 " - rw %s%s", i.trans_id, meta_used, i.nr_meta, i.data_used, i.nr_data,
                 tp->ignore_discard ? "ignore_discard"
                 : tp->passdown ? "discard_passdown" : "no_discard_passdown",
                 tp->failed ? " fail" : "");
    } else if (tp->loaded) {
        struct lvx_thin_details d;
        if (lvx_thin_meta_device(tp->tm, s->dev_id, &d) == 0)
            snprintf(out, n, " thin %" PRIu64 " %" PRIu64, d.mapped_blocks * tp->chunk, s->dev_id);
    }
    pthread_mutex_unlock(&tp->lock);
}

int64_t lvxd_thin_dev_mapped_id(const struct lvxd_lv *v)
{
    const struct lvxd_thin_dev *s = v->target == &lvxd_target_thin ? v->tstate : NULL;
    return s && !s->pool_file ? (int64_t)s->dev_id : -1;
}

static void thin_status(struct lvxd_lv *v, char *out, size_t n)
{
    lvxd_thin_dev_status(v->tstate, out, n);
}

static bool thin_serves(const struct lvx_lv *lv)
{
    return lvx_lv_is_thin(lv) || lvx_lv_is_thin_pool(lv);
}

/* thin LVs and the pool LV's own file (state.pool_file) */
const struct lvxd_target lvxd_target_thin = {
    .name = "thin",
    .serves = thin_serves,
    .ctr = thin_ctr,
    .start = thin_start,
    .dtr = thin_dtr,
    .rw = thin_rw,
    .zero = thin_zero,
    .discard = thin_discard,
    .flush = thin_flush,
    .status = thin_status,
};

/* --- messages ------------------------------------------------------------------ */

int lvxd_thin_message(struct lvx_ctx *ctx, const char *vg, const char *pool, uint64_t old_tid,
                      uint64_t new_tid, const char *const *msgs, unsigned n)
{
    char name[260];
    snprintf(name, sizeof(name), "%s/%s", vg, pool);
    pthread_mutex_lock(&registry_mutex);
    struct thin_pool *tp = registry;
    while (tp && strcmp(tp->name, name) != 0)
        tp = tp->next;
    if (tp)
        tp->refs++;
    pthread_mutex_unlock(&registry_mutex);
    if (!tp)
        return -ENOENT;            /* not served: the command changes the metadata */
    pool_lock(tp);
    struct lvx_thin_info info;
    int rc = 0;
    struct lvx_ctx *mc = tp->loaded ? lvx_lv_file_ctx(tp->meta) : NULL;
    if (!tp->loaded || tp->failed) {
        rc = lvx_error(ctx, EIO, "Thin pool %s is in failure mode.", name);
    } else if (lvx_thin_meta_info(tp->tm, &info), info.trans_id == new_tid && n) {
        rc = 0;     /* the messages were committed (libdm: nothing more to send) */
    } else if (info.trans_id != old_tid) {
        rc = lvx_error(ctx, EINVAL, "Thin pool %s transaction_id is %" PRIu64 ", while "
                       "expected %" PRIu64 ".", name, info.trans_id, old_tid);
    } else {
        char m[64];
        snprintf(m, sizeof(m), "set_transaction_id %" PRIu64 " %" PRIu64, old_tid, new_tid);
        unsigned i;
        for (i = 0; i <= n && rc == 0; i++)
            if ((rc = lvx_thin_message(tp->tm, i < n ? msgs[i] : m)) < 0)
                rc = lvx_error(ctx, -rc, "%s", mc->errmsg[0] ? mc->errmsg : strerror(-rc));
        if (i > 1 || rc == 0)
            tp->changed = true;
        /* a refused first message changed nothing; a later one leaves half a
         * transaction in memory: stop there */
        if (rc < 0 && (i > 1 || lvx_thin_meta_failed(tp->tm))) {
            tp->failed = true;
            lvxd_log("thin pool %s: message failed: %s", name, ctx->errmsg);
        } else if ((rc = pool_commit(tp)) < 0) {
            rc = lvx_error(ctx, EIO, "Cannot commit the metadata of thin pool %s.", name);
        }
    }
    pool_unlock(tp);
    pool_put(tp);
    return rc;
}
