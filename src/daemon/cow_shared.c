/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/cow_shared.c - the exception store of a COW LV shared by the files that use
 * it (see cow_shared.h): the registry keyed by VG and COW LV UUIDs, loading the store
 * (its buffers allocated then: serving allocates nothing), invalidation, the tickets
 * of chunks being copied and the group commit of their records.
 *
 * The commit keeps the kernel's order for every record: its data on the COW PVs and
 * durable (a FUA write), then the metadata area holding it written durably (FUA; the
 * area's blocks that the batch's records went into; a full area is written after the
 * next one was zeroed), and only then the record in the table and its ticket ended,
 * which lets the origin write that needed the copy go on.  Counts of records,
 * commits, area writes (and their bytes) and flushes are logged when the store is
 * dropped (the figure bench/snap reports).  Records
 * enter the areas in commit order, which need not be allocation order (the kernel's
 * copies complete out of order too; a reader takes the largest chunk as the end of
 * the allocation).  A crash loses uncommitted chunks only: their origin writes never
 * started.
 *
 * Entry points: cow_shared_get(), cow_shared_put(), cow_shared_load(),
 * cow_shared_pvs(), cow_write_chunk(), cow_invalidate(), cow_reserve(), cow_commit(),
 * cow_release().
 */
#include "daemon/cow_shared.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "model/snapshot.h"

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct cow_shared *registry;

static void free_buffers(struct cow_shared *sh)
{
    lvx_cow_free(&sh->st);
    free(sh->area);
    free(sh->scratch);
    free(sh->pool);
    free(sh->pool_used);
    sh->area = sh->scratch = sh->pool = sh->pool_used = NULL;
    sh->units = 0;
}

static void shared_free(struct cow_shared *sh)
{
    free_buffers(sh);
    pthread_rwlock_destroy(&sh->lock);
    pthread_mutex_destroy(&sh->mu);
    pthread_mutex_destroy(&sh->hdr);
    pthread_cond_destroy(&sh->cond);
    free(sh);
}

struct cow_shared *cow_shared_get(const struct lvx_lv *cow)
{
    char key[sizeof(((struct cow_shared *)0)->key)];
    snprintf(key, sizeof(key), "%s/%s", cow->vg->uuid, cow->uuid);
    pthread_mutex_lock(&registry_mutex);
    struct cow_shared *sh = registry;
    while (sh && strcmp(sh->key, key) != 0)
        sh = sh->next;
    if (!sh && (sh = calloc(1, sizeof(*sh)))) {
        snprintf(sh->key, sizeof(sh->key), "%s", key);
        snprintf(sh->name, sizeof(sh->name), "%s/%s", cow->vg->name, cow->name);
        pthread_rwlock_init(&sh->lock, NULL);
        pthread_mutex_init(&sh->mu, NULL);
        pthread_mutex_init(&sh->hdr, NULL);
        pthread_cond_init(&sh->cond, NULL);
        sh->queue_tail = &sh->queue;
        sh->next = registry;
        registry = sh;
    }
    if (sh)
        sh->refs++;
    pthread_mutex_unlock(&registry_mutex);
    return sh;
}

void cow_shared_put(struct cow_shared *sh)
{
    pthread_mutex_lock(&registry_mutex);
    bool last = --sh->refs == 0;
    if (last)
        for (struct cow_shared **p = &registry; *p; p = &(*p)->next)
            if (*p == sh) {
                *p = sh->next;
                break;
            }
    pthread_mutex_unlock(&registry_mutex);
    if (last && sh->n_records)
        lvxd_log("snapshot %s: %" PRIu64 " records in %" PRIu64 " commits, %" PRIu64
                 " metadata area writes (%" PRIu64 " bytes), %" PRIu64 " COW flushes", sh->name,
                 sh->n_records, sh->n_commits, sh->n_area_writes, sh->n_area_bytes,
                 sh->n_flushes);
    if (last)
        shared_free(sh);
}

void cow_shared_pvs(struct snap_ref *r)
{
    uint64_t end = lvx_map_prepared_sectors(r->cow_map);
    struct lvx_map_loc loc;
    r->cow_pvs = 0;
    for (uint64_t s = 0; s < end; s += loc.len)
        if (lvx_map_prepared_lookup(r->cow_map, s, &loc) < 0 || loc.len == 0)
            break;
        else if (loc.kind == LVX_MAP_PV)
            r->cow_pvs |= (uint64_t)1 << (loc.pv->index % 64);
}

/* --- I/O ------------------------------------------------------------------------- */

static int run_one(struct lvxd_io *io, struct lvxd_lv *v, const struct lvx_map_prepared *map,
                   bool write, uint64_t off, uint32_t len, uint8_t *buf)
{
    unsigned n = 0;
    int rc = lvxd_io_map_add(io, v, map, write, off, len, buf, &n);
    return rc == 0 && n ? lvxd_io_run(io, n) : rc;
}

int cow_write_chunk(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
                    uint64_t chunk, uint8_t *buf)
{
    return run_one(io, v, r->cow_map, true, chunk * r->sh->cb, r->sh->cb, buf);
}

/* fdatasync the PVs of the COW LV (every write to them completed before): the COW
 * side only, so the flush never waits behind the origin's writes. */
static int flush_cow(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r)
{
    unsigned n = 0;
    int rc = 0;
    __atomic_fetch_add(&r->sh->n_flushes, 1, __ATOMIC_RELAXED);
    for (unsigned i = 0; i < v->pv_count && rc == 0; i++) {
        if (v->pvs[i].fd < 0 || !(r->cow_pvs & ((uint64_t)1 << (i % 64))))
            continue;
        io->pieces[n].fd = v->pvs[i].fd;
        io->pieces[n].kind = LVX_IO_DATASYNC;
        io->pieces[n].dev = i;
        if (++n == LVXD_MAX_PIECES) {
            rc = lvxd_io_run(io, n);
            n = 0;
        }
    }
    return n && rc == 0 ? lvxd_io_run(io, n) : rc;
}

void cow_invalidate(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
                    const char *why)
{
    struct cow_shared *sh = r->sh;
    pthread_rwlock_wrlock(&sh->lock);
    pthread_mutex_lock(&sh->mu);
    bool was = sh->st.valid;
    sh->st.valid = false;
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->mu);
    pthread_rwlock_unlock(&sh->lock);
    if (!was)
        return;
    lvxd_log("snapshot %s invalidated: %s", sh->name, why);
    if (v->read_only)
        return;
    pthread_mutex_lock(&sh->hdr);
    lvx_cow_header_encode(sh->scratch, sh->cb, false, sh->st.chunk);
    if (cow_write_chunk(io, v, r, 0, sh->scratch) < 0 || flush_cow(io, v, r) < 0)
        lvxd_log("snapshot %s: writing the invalid header failed", sh->name);
    pthread_mutex_unlock(&sh->hdr);
}

/* A new store on disk: area 0 zeroed, then the header (valid); sh->hdr held.  The
 * scratch chunk is the header writers' (sh->hdr). */
static int init_store(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r)
{
    struct cow_shared *sh = r->sh;
    int rc;
    memset(sh->scratch, 0, sh->cb);
    if ((rc = cow_write_chunk(io, v, r, lvx_cow_area_chunk(&sh->st, 0), sh->scratch)) < 0 ||
        (rc = flush_cow(io, v, r)) < 0)
        return rc;
    lvx_cow_header_encode(sh->scratch, sh->cb, true, sh->st.chunk);
    if ((rc = cow_write_chunk(io, v, r, 0, sh->scratch)) < 0 || (rc = flush_cow(io, v, r)) < 0)
        return rc;
    sh->header_pending = false;
    return 0;
}

/* --- loading ---------------------------------------------------------------------- */

int cow_shared_load(struct lvx_ctx *ctx, struct lvxd_io *io, struct lvxd_lv *v,
                    uint64_t origin_sectors, struct snap_ref *r)
{
    struct cow_shared *sh = r->sh;
    const char *name = sh->name;
    uint32_t maxb = LVX_SNAPSHOT_MAX_CHUNK * 512;
    free_buffers(sh);                 /* what an earlier failed load left */
    if (posix_memalign((void **)&sh->scratch, COW_ALIGN, maxb) != 0) {
        sh->scratch = NULL;
        return lvx_error(ctx, ENOMEM, "Out of memory.");
    }
    int rc = run_one(io, v, r->cow_map, false, 0, COW_ALIGN, sh->scratch);
    if (rc < 0)
        return lvx_error(ctx, -rc, "Cannot read the snapshot header of %s: %s", name,
                         strerror(-rc));
    struct lvx_cow_header h;
    lvx_cow_header_decode(sh->scratch, &h);
    int kind = lvx_cow_header_check(&h);
    if (kind < 0)
        return lvx_error(ctx, EINVAL, "Invalid or corrupt snapshot %s (header magic %08" PRIx32
                         ", version %" PRIu32 ", chunk size %" PRIu32 ").", name, h.magic,
                         h.version, h.chunk);
    uint32_t chunk = kind ? h.chunk : r->chunk;
    if (chunk != r->chunk)
        lvxd_log("snapshot %s: chunk size %" PRIu32 " of its header overrides %" PRIu32, name,
                 chunk, r->chunk);
    uint64_t cow_sectors = lvx_map_prepared_sectors(r->cow_map);
    uint64_t origin_chunks = origin_sectors / chunk + 1;
    if ((rc = lvx_cow_init(&sh->st, chunk, cow_sectors, origin_chunks)) < 0)
        return lvx_error(ctx, -rc, "Cannot set up the exception store of %s.", name);
    sh->cb = chunk * 512;
    sh->slots = LVXD_MAX_IO / sh->cb + 2;
    sh->units = COW_POOL_BYTES / sh->cb > sh->slots ? COW_POOL_BYTES / sh->cb : sh->slots;
    if (posix_memalign((void **)&sh->area, COW_ALIGN, sh->cb) != 0 ||
        posix_memalign((void **)&sh->pool, COW_ALIGN, (size_t)sh->units * sh->cb) != 0 ||
        !(sh->pool_used = calloc(sh->units, 1)))
        return lvx_error(ctx, ENOMEM, "Out of memory.");
    memset(sh->area, 0, sh->cb);
    if (cow_sectors < 3ull * chunk)
        return lvx_error(ctx, EINVAL, "The COW LV of %s is smaller than 3 chunks.", name);
    if (kind == 0) {                       /* new: written now, or at the first commit */
        sh->header_pending = true;
        if (!v->read_only && (rc = init_store(io, v, r)) < 0)
            return lvx_error(ctx, -rc, "Cannot write the snapshot header of %s: %s", name,
                             strerror(-rc));
        return 0;
    }
    if (!h.valid) {
        sh->st.valid = false;
        return 0;
    }
    for (;;) {
        uint64_t c = lvx_cow_area_chunk(&sh->st, sh->st.area);
        if (c >= sh->st.chunks)
            break;
        if ((rc = run_one(io, v, r->cow_map, false, c * sh->cb, sh->cb, sh->area)) < 0)
            return lvx_error(ctx, -rc, "Cannot read the exceptions of %s: %s", name,
                             strerror(-rc));
        if ((rc = lvx_cow_load_area(&sh->st, sh->area)) < 0)
            return lvx_error(ctx, EINVAL, "Invalid or corrupt snapshot %s (metadata area %"
                             PRIu64 ").", name, sh->st.area);
        if (rc == 0)
            return 0;
        lvx_cow_next_area(&sh->st);
        memset(sh->area, 0, sh->cb);
    }
    return 0;
}

/* --- tickets -------------------------------------------------------------------- */

/* k contiguous free units of the pool (sh->mu held): the first, or -1. */
static int pool_take(struct cow_shared *sh, unsigned k)
{
    for (unsigned i = 0, run = 0; i < sh->units; i++) {
        run = sh->pool_used[i] ? 0 : run + 1;
        if (run == k) {
            unsigned first = i + 1 - k;
            memset(sh->pool_used + first, 1, k);
            return (int)first;
        }
    }
    return -1;
}

/* The next free COW chunk; every 5% of the COW handed out wakes the monitor
 * (monitor.c), which extends a monitored snapshot by the policy. */
static int alloc_chunk(struct cow_shared *sh, uint64_t *nc)
{
    int rc = lvx_cow_alloc(&sh->st, nc);
    if (rc == 0 && sh->st.chunks && *nc * 20 / sh->st.chunks != (*nc - 1) * 20 / sh->st.chunks)
        lvxd_monitor_kick();
    return rc;
}

static bool overlaps(const struct cow_shared *sh, uint64_t first, uint64_t last)
{
    for (const struct cow_ticket *t = sh->tickets; t; t = t->next)
        if (t->first <= last && first <= t->last)
            return true;
    return false;
}

int cow_reserve(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
                uint64_t first, uint64_t last, struct cow_ticket *t)
{
    struct cow_shared *sh = r->sh;
    int rc = 0;
    t->k = 0;
    pthread_mutex_lock(&sh->mu);
    for (;;) {
        if (!sh->st.valid) {
            rc = -EIO;
            break;
        }
        if (overlaps(sh, first, last)) {       /* chunks being copied: their commit */
            pthread_cond_wait(&sh->cond, &sh->mu);
            continue;
        }
        unsigned k = 0;
        for (uint64_t c = first; c <= last; c++)
            k += lvx_cow_lookup(&sh->st, c) == 0;
        if (k == 0)
            break;
        int u = pool_take(sh, k);
        if (u < 0) {                           /* buffers in use: a commit frees some */
            pthread_cond_wait(&sh->cond, &sh->mu);
            continue;
        }
        for (uint64_t c = first; c <= last && rc == 0; c++) {
            if (lvx_cow_lookup(&sh->st, c))
                continue;
            t->olds[t->k] = c;
            rc = alloc_chunk(sh, &t->news[t->k++]);
        }
        if (rc < 0) {
            memset(sh->pool_used + u, 0, k);
            t->k = 0;
            break;
        }
        t->unit0 = (unsigned)u;
        t->buf = sh->pool + (size_t)u * sh->cb;
        t->first = t->olds[0];
        t->last = t->olds[t->k - 1];
        t->done = false;
        t->rc = 0;
        t->next = sh->tickets;
        sh->tickets = t;
        break;
    }
    pthread_mutex_unlock(&sh->mu);
    if (rc == -ENOSPC)
        cow_invalidate(io, v, r, "the COW area is full");
    return rc;
}

/* t leaves the tickets, its units freed (sh->mu held). */
static void ticket_end(struct cow_shared *sh, struct cow_ticket *t, int rc)
{
    for (struct cow_ticket **p = &sh->tickets; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    memset(sh->pool_used + t->unit0, 0, t->k);
    t->rc = rc;
    t->done = true;
}

void cow_release(struct cow_shared *sh, struct cow_ticket *t)
{
    pthread_mutex_lock(&sh->mu);
    ticket_end(sh, t, -EIO);
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->mu);
}

/* Write bytes [from, to) of metadata chunk `chunk` of r's COW from the same bytes of
 * buf (a chunk), widened to whole logical blocks of v's PVs, durable when the write
 * completes (a FUA write: no flush of the whole COW PVs).  A commit writes the blocks
 * its records went into, not the whole area: the rest of the chunk on disk already
 * holds what buf does (written before, or zeroed with the area), the kernel's read of
 * the area sees the same bytes, and the COW PVs take a sector per commit instead of a
 * chunk (4 KiB random origin writes into a 4k-chunk store: 4.5 KiB instead of 8 KiB
 * on the COW PVs per copy when each commits alone). */
static int write_area(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
                      uint64_t chunk, uint8_t *buf, uint32_t from, uint32_t to)
{
    struct cow_shared *sh = r->sh;
    uint32_t lbs = v->lbs >= 512 && v->lbs <= sh->cb ? v->lbs : sh->cb;
    from -= from % lbs;
    to = to > sh->cb - lbs ? sh->cb : (to + lbs - 1) / lbs * lbs;
    unsigned n = 0;
    io->fua = true;
    int rc = lvxd_io_map_add(io, v, r->cow_map, true, chunk * sh->cb + from, to - from,
                             buf + from, &n);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    io->fua = false;
    sh->n_area_writes++;
    sh->n_area_bytes += to - from;
    return rc;
}

/* Write the records of batch into the metadata areas (their data written durably by
 * their requesters): each record into the current area (a full one written after the
 * next one was zeroed, from the batch's first record in it on), then the blocks of
 * the current area from the batch's first record in it to its last; every area write
 * durable when done. */
static int write_records(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
                         struct cow_ticket *batch)
{
    struct cow_shared *sh = r->sh;
    struct lvx_cow *st = &sh->st;
    int rc = 0;
    bool pending = false;
    uint32_t from = (uint32_t)(st->committed * LVX_COW_RECORD);   /* this commit's bytes */
    if (sh->header_pending) {
        pthread_mutex_lock(&sh->hdr);
        pthread_mutex_lock(&sh->mu);
        bool valid = st->valid;
        pthread_mutex_unlock(&sh->mu);
        rc = !valid ? -EIO : sh->header_pending ? init_store(io, v, r) : 0;
        pthread_mutex_unlock(&sh->hdr);
        if (rc < 0)
            return rc;
    }
    sh->n_commits++;
    for (struct cow_ticket *t = batch; t && rc == 0; t = t->qnext)
        for (unsigned i = 0; i < t->k && rc == 0; i++) {
            pending = true;
            sh->n_records++;
            if (!lvx_cow_commit(st, sh->area, t->olds[i], t->news[i]))
                continue;
            uint64_t next = lvx_cow_area_chunk(st, st->area + 1);
            if (next < st->chunks) {           /* the scratch chunk is the header's too */
                pthread_mutex_lock(&sh->hdr);
                memset(sh->scratch, 0, sh->cb);
                rc = write_area(io, v, r, next, sh->scratch, 0, sh->cb);
                pthread_mutex_unlock(&sh->hdr);
                if (rc < 0)
                    break;
            }
            if ((rc = write_area(io, v, r, lvx_cow_area_chunk(st, st->area), sh->area, from,
                                 sh->cb)) < 0)
                break;
            pthread_mutex_lock(&sh->mu);
            lvx_cow_next_area(st);
            pthread_mutex_unlock(&sh->mu);
            memset(sh->area, 0, sh->cb);
            pending = false;
            from = 0;
        }
    if (rc == 0 && pending)
        rc = write_area(io, v, r, lvx_cow_area_chunk(st, st->area), sh->area, from,
                        (uint32_t)(st->committed * LVX_COW_RECORD));
    return rc;
}

/* Commit the queued tickets (sh->mu held, no commit running; returns with it held). */
static void commit_queue(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r)
{
    struct cow_shared *sh = r->sh;
    struct cow_ticket *batch = sh->queue;
    bool valid = sh->st.valid;
    sh->queue = NULL;
    sh->queue_tail = &sh->queue;
    sh->committing = true;
    pthread_mutex_unlock(&sh->mu);
    int rc = valid ? write_records(io, v, r, batch) : -EIO;
    if (rc < 0 && valid)
        cow_invalidate(io, v, r, strerror(-rc));
    pthread_rwlock_wrlock(&sh->lock);  /* no snapshot read takes these from the origin */
    pthread_mutex_lock(&sh->mu);
    for (struct cow_ticket *t = batch, *next; t; t = next) {
        next = t->qnext;
        for (unsigned i = 0; rc == 0 && i < t->k; i++)
            lvx_cow_insert(&sh->st, t->olds[i], t->news[i]);
        ticket_end(sh, t, rc);
    }
    sh->committing = false;
    pthread_cond_broadcast(&sh->cond);
    pthread_rwlock_unlock(&sh->lock);
}

int cow_commit(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
               struct cow_ticket *t)
{
    struct cow_shared *sh = r->sh;
    pthread_mutex_lock(&sh->mu);
    t->qnext = NULL;
    *sh->queue_tail = t;
    sh->queue_tail = &t->qnext;
    while (!t->done) {
        if (!sh->committing && sh->queue)
            commit_queue(io, v, r);
        else
            pthread_cond_wait(&sh->cond, &sh->mu);
    }
    int rc = t->rc;
    pthread_mutex_unlock(&sh->mu);
    return rc;
}
