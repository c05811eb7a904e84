/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/target_snapshot.c - COW snapshots served by the daemon, as the kernel's
 * snapshot-origin and snapshot targets do, over an exception store kept on the COW LV
 * in the kernel's persistent format (map/cow_store.c), so either backend (and LVM2)
 * takes over a store the other wrote.
 *
 *   origin    an LV with snapshots: reads go straight to it; a write first saves each
 *             chunk it touches that a snapshot has not copied yet: the old chunks are
 *             copied to the snapshot's next free COW chunks (a few large reads and
 *             FUA writes), then their records committed (the current metadata area
 *             written with FUA: the kernel's order, data durable, then metadata,
 *             then the origin write, one area write for the records of every
 *             request waiting); then the origin is written.  A COW that
 *             fills up invalidates its snapshot (header valid 0) and the origin keeps
 *             working.
 *   snapshot  the COW LV, served with the origin's size: a chunk with a record is read
 *             from the COW, others from the origin; a write to a chunk without one
 *             allocates it (the origin chunk copied first when the write covers only
 *             part of it).  An invalid snapshot fails every request with EIO.
 *   merge     an origin whose snapshot merges (lvconvert --merge), as the kernel's
 *             snapshot-merge: a chunk the merging snapshot still holds is read from
 *             and written to its COW chunk; other writes copy out for the other
 *             snapshots, then go to the origin.  lvxd_snapshot_merge() (a request of
 *             the command that polls the merge, as pvmove's pvcopy) moves records
 *             back, from the store's end: the COW chunks copied to the origin (the
 *             other snapshots saving the chunks first), flushed, then the records
 *             zeroed in their area, written and flushed, so that a crash leaves a
 *             store the kernel (or the daemon) goes on merging.  The merging
 *             snapshot's own device fails every request (the kernel's error target).
 *
 * A thin origin (a COW snapshot of a thin LV, LVM2's snapshot-origin over the thin
 * LV's -real device) is read and written through its pool (target_thin.c's
 * lvxd_thin_dev_*: provisioning, unprovisioned blocks read as zeroes or from an
 * external origin), so the copies take whatever the thin LV reads; the origin's
 * flush also commits the pool's transaction.  A RAID origin (raid1/10, raid4/5/6) is
 * served in the origin's file by the RAID target it would have alone (`inner`: its
 * ctr, start, dtr, rw, zero, flush and status called from the origin's, as dm stacks
 * snapshot-origin over the raid device of `-real`), so copies read the array and
 * origin writes reach every leg with the bitmap kept; a snapshot's file reads the
 * origin through the origin's served file (via_origin_read: one array state).  A
 * raid0 origin is the striped LV it equals.  An old-style mirror origin is served the
 * same way by the mirror target (its dm-log kept; a reload's adopt goes to it).
 *
 * The store of a COW LV is one object shared by the origin's and the snapshot's
 * served files (cow_shared.c): loaded from disk by the first start hook.  Copies
 * (origin writes) and new chunks of snapshot writes run concurrently: each reserves
 * its chunks (a ticket), writes their data, and waits for the group commit of its
 * records (see cow_shared.h for the locks and the order).
 *
 * Entry points: lvxd_target_origin, lvxd_target_snapshot (target.c's table),
 * lvxd_snapshot_merge().
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/cow_shared.h"
#include "map/map.h"
#include "model/raid0.h"
#include "model/snapshot.h"
#include "model/thin.h"
#include "util/pool.h"

#define MAX_SNAPS 64


struct cow_state {
    bool origin;               /* the origin's file (else a snapshot's) */
    int merging;               /* refs[merging] merges into the origin (origin: -1 none;
                                * a snapshot's file: 0 when it is the merging one) */
    const struct lvx_map_prepared *origin_map;   /* NULL for a thin or RAID origin */
    struct lvxd_thin_dev *thin;                 /* a thin origin (target_thin.c), or NULL */
    /* a RAID or mirror origin: in the origin's file the RAID or mirror target serving
     * it (its state from its ctr, started, stopped, adopting and asked for status with
     * the origin's); a snapshot's file reads it through the origin's file (raid_via),
     * which must be served */
    const struct lvxd_target *inner;
    void *inner_state;
    bool raid_via;
    char origin_lv[128], origin_uuid[LVX_UUID_LEN + 1];
    uint64_t origin_bytes;
    unsigned n;
    struct snap_ref refs[];
};

/* --- I/O over the store ------------------------------------------------------------ */

const struct lvxd_target *lvxd_origin_inner(const struct lvxd_lv *v, void **state)
{
    const struct cow_state *s = v->target == &lvxd_target_origin ? v->tstate : NULL;
    *state = s && s->inner ? s->inner_state : NULL;
    return s ? s->inner : NULL;
}

/* A snapshot's read of its RAID or mirror origin: through the origin's served file, under its
 * lock (an open reference keeps it from being freed meanwhile); EIO when it is not
 * served as this origin. */
static int via_origin_read(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                           uint64_t off, uint32_t len, uint8_t *buf)
{
    pthread_mutex_lock(&lvxd_lvs_mutex);
    struct lvxd_lv *o = lvxd_volume_find(v->vg, s->origin_lv);
    if (o)
        atomic_fetch_add(&o->opens, 1);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    if (!o) {
        lvxd_log("%s/%s: its origin %s is not served: read failed", v->vg, v->lv, s->origin_lv);
        return -EIO;
    }
    pthread_rwlock_rdlock(&o->lock);
    const struct cow_state *os = o->target == &lvxd_target_origin ? o->tstate : NULL;
    int rc = -EIO;
    if (os && os->inner && strcmp(o->uuid, s->origin_uuid) == 0)
        rc = os->inner->rw(io, o, false, off, len, buf);
    else
        lvxd_log("%s/%s: its origin %s is not served as a RAID or mirror origin: read failed",
                 v->vg, v->lv, s->origin_lv);
    pthread_rwlock_unlock(&o->lock);
    lvxd_volume_put(o);
    return rc;
}

static int run_one(struct lvxd_io *io, struct lvxd_lv *v, const struct lvx_map_prepared *map,
                   bool write, uint64_t off, uint32_t len, uint8_t *buf)
{
    unsigned n = 0;
    int rc = lvxd_io_map_add(io, v, map, write, off, len, buf, &n);
    return rc == 0 && n ? lvxd_io_run(io, n) : rc;
}

/* Bytes [off, off+len) of the origin: a mapped origin's pieces join the batch of *n;
 * a thin origin's go through its pool now (the batch run first: the thin device runs
 * batches of its own in the same io). */
static int origin_add(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                      bool write, uint64_t off, uint32_t len, uint8_t *buf, unsigned *n)
{
    if (s->origin_map)
        return lvxd_io_map_add(io, v, s->origin_map, write, off, len, buf, n);
    int rc = *n ? lvxd_io_run(io, *n) : 0;
    *n = 0;
    if (rc < 0)
        return rc;
    if (s->thin)
        return lvxd_thin_dev_rw(io, v, s->thin, write, off, len, buf);
    if (s->inner)
        return s->inner->rw(io, v, write, off, len, buf);
    return write || !s->raid_via ? -EIO : via_origin_read(io, v, s, off, len, buf);
}

static int origin_run(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                      bool write, uint64_t off, uint32_t len, uint8_t *buf)
{
    unsigned n = 0;
    int rc = origin_add(io, v, s, write, off, len, buf, &n);
    return rc == 0 && n ? lvxd_io_run(io, n) : rc;
}

/* The origin's writes durable: v's PVs synced, a thin origin's pool committed. */
static int origin_sync(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s)
{
    if (s->inner && s->inner->flush)     /* RAID bitmap or dm-log bits cleared/set too */
        return s->inner->flush(io, v);
    return s->thin ? lvxd_thin_dev_flush(io, v, s->thin) : lvxd_io_flush_pvs(io, v);
}

/* Read origin chunk c into buf (a chunk; past the origin's end zeroes). */
static int add_origin_chunk(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                            uint32_t cb, uint64_t c, uint8_t *buf, unsigned *n)
{
    uint64_t end = s->origin_bytes, off = c * cb;
    uint32_t len = off + cb <= end ? cb : (uint32_t)(end - off);
    if (len < cb)
        memset(buf + len, 0, cb - len);
    return origin_add(io, v, s, false, off, len, buf, n);
}

/* Add chunks[0..k) (slot i of buf holds chunks[i]) as runs of consecutive chunk
 * numbers, one range each, clipped at end bytes (a read's clipped tail is zeroed):
 * of map, or of the origin when map is NULL. */
static int add_runs(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                    const struct lvx_map_prepared *map, bool write, const uint64_t *chunks,
                    unsigned k, uint32_t cb, uint64_t end, uint8_t *buf, unsigned *n)
{
    int rc = 0;
    for (unsigned i = 0, j; i < k && rc == 0; i = j) {
        for (j = i + 1; j < k && chunks[j] == chunks[j - 1] + 1; j++)
            ;
        uint64_t off = chunks[i] * cb, len = (uint64_t)(j - i) * cb;
        if (off + len > end) {
            if (!write)
                memset(buf + (size_t)i * cb + (end - off), 0, off + len - end);
            len = end - off;
        }
        rc = map ? lvxd_io_map_add(io, v, map, write, off, (uint32_t)len, buf + (size_t)i * cb, n)
                 : origin_add(io, v, s, write, off, (uint32_t)len, buf + (size_t)i * cb, n);
    }
    return rc;
}

/* A walk over [off, end) chunk by chunk: each step the piece [o, e) inside chunk c,
 * and nc, the COW chunk that holds c in the store (0: none). */
struct chunk_walk {
    uint64_t o, e, end, c, nc;
};

static bool walk_next(const struct cow_shared *sh, struct chunk_walk *w)
{
    w->o = w->e;
    if (w->o >= w->end)
        return false;
    w->c = w->o / sh->cb;
    uint64_t cend = (w->c + 1) * sh->cb;
    w->e = cend < w->end ? cend : w->end;
    w->nc = lvx_cow_lookup(&sh->st, w->c);
    return true;
}

/* Before an origin write of [off, off+len): every chunk it touches that r's snapshot
 * has not saved yet is copied and committed.  Failures invalidate the snapshot (the
 * origin write goes on, as the kernel's). */
static void copy_out(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                     const struct snap_ref *r, uint64_t off, uint64_t len)
{
    struct cow_shared *sh = r->sh;
    uint64_t first = off / sh->cb, last = (off + len - 1) / sh->cb;
    bool all = true;
    pthread_rwlock_rdlock(&sh->lock);
    for (uint64_t c = first; c <= last && all && sh->st.valid; c++)
        all = lvx_cow_lookup(&sh->st, c) != 0;
    all = all || !sh->st.valid;
    pthread_rwlock_unlock(&sh->lock);
    if (all)
        return;
    struct cow_ticket t;
    if (cow_reserve(io, v, r, first, last, &t) < 0 || t.k == 0)
        return;
    unsigned n = 0;
    int rc = add_runs(io, v, s, NULL, false, t.olds, t.k, sh->cb, s->origin_bytes, t.buf, &n);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    n = 0;
    io->fua = true;          /* the data durable before its record is written */
    if (rc == 0)
        rc = add_runs(io, v, s, r->cow_map, true, t.news, t.k, sh->cb, UINT64_MAX, t.buf, &n);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    io->fua = false;
    if (rc < 0) {
        cow_invalidate(io, v, r, strerror(-rc));
        cow_release(sh, &t);
    } else {
        cow_commit(io, v, r, &t);    /* a failure invalidated the snapshot */
    }
}

/* --- constructors ------------------------------------------------------------ */

static int prepare_ref(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_seg *seg,
                       bool partial, struct snap_ref *r)
{
    struct lvx_map_prepared *m;
    int rc;
    if ((rc = lvx_map_check_activatable(ctx, seg->cow_lv, partial)) < 0 ||
        (rc = lvx_map_prepare(ctx, pool, seg->cow_lv, partial ? LVX_MAP_MISSING_IS_ERROR : 0,
                              &m)) < 0)
        return rc;
    r->cow_lv = seg->cow_lv;
    r->cow_map = m;
    r->chunk = seg->chunk_size ? seg->chunk_size : LVX_SNAPSHOT_DEFAULT_CHUNK;
    cow_shared_pvs(r);
    return 0;
}

static void cow_dtr(struct lvxd_lv *v, void *state);

static int cow_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                   bool partial, const struct lvx_map_prepared **map, void **state)
{
    const struct lvx_seg *segs[MAX_SNAPS];
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv);
    const struct lvx_lv *origin = cs ? cs->origin_lv : lv;
    unsigned n = cs ? 1 : lvx_lv_snapshot_segs(lv, segs, MAX_SNAPS);
    *state = NULL;
    if (cs)
        segs[0] = cs;
    if (!origin || n == 0)
        return lvx_error(ctx, EINVAL, "Logical volume %s/%s has no snapshot set.", lv->vg->name,
                         lv->name);
    if (n > MAX_SNAPS)
        return lvx_error(ctx, ENOTSUP, "Logical volume %s/%s has more than %d snapshots.",
                         lv->vg->name, lv->name, MAX_SNAPS);
    struct lvx_map_prepared *om = NULL;
    struct lvxd_thin_dev *thin = NULL;
    const struct lvxd_target *inner = NULL;
    const struct lvx_map_prepared *imap = NULL;
    void *istate = NULL;
    bool raid_via = false;
    int rc;
    if (lvx_lv_is_thin(origin)) {   /* a thin origin: through its pool (target_thin.c) */
        rc = lvxd_thin_dev_ctr(ctx, pool, origin, partial, &thin);
    } else if (lvx_raid0_is(origin)) {  /* raid0: the striped LV it equals (target.c) */
        struct lvx_lv *as = lvx_pool_alloc(pool, sizeof(*as));
        *as = *origin;
        if ((rc = lvx_map_check_raid_activatable(ctx, origin, partial, true)) == 0 &&
            (rc = lvx_raid0_striped_segs(ctx, pool, origin, &as->segs, &as->seg_count)) == 0)
            rc = lvx_map_prepare(ctx, pool, as, partial ? LVX_MAP_MISSING_IS_ERROR : 0, &om);
    } else if (lvx_map_lv_is_raid(origin) || lvx_map_lv_is_mirror(origin)) {
        /* the origin's file serves the array (or mirror) with its own target; a
         * snapshot's file reads it through the origin's file (dm: both over the
         * origin's -real) */
        const struct lvxd_target *t = lvxd_target_mirror.serves(origin) ? &lvxd_target_mirror
                                      : lvxd_target_raid.serves(origin) ? &lvxd_target_raid
                                      : lvxd_target_parity.serves(origin) ? &lvxd_target_parity
                                                                          : NULL;
        if (!t)
            rc = lvx_error(ctx, ENOTSUP, "RAID LV %s/%s (%s) is not served as an origin.",
                           origin->vg->name, origin->name, origin->segs[0].type_name);
        else if (cs)
            rc = 0, raid_via = true;
        else if ((rc = t->ctr(ctx, pool, origin, partial, &imap, &istate)) == 0)
            inner = t;
    } else if ((rc = lvx_map_check_activatable(ctx, origin, partial)) == 0) {
        rc = lvx_map_prepare(ctx, pool, origin, partial ? LVX_MAP_MISSING_IS_ERROR : 0, &om);
    }
    if (rc < 0)
        return rc;
    struct cow_state *s = calloc(1, sizeof(*s) + n * sizeof(s->refs[0]));
    if (!s) {
        lvxd_thin_dev_dtr(NULL, thin);
        if (inner && inner->dtr)
            inner->dtr(NULL, istate);
        return lvx_error(ctx, ENOMEM, "Out of memory.");
    }
    s->origin = cs == NULL;
    s->origin_map = om;
    s->thin = thin;
    s->inner = inner;
    s->inner_state = istate;
    s->raid_via = raid_via;
    snprintf(s->origin_lv, sizeof(s->origin_lv), "%s", origin->name);
    snprintf(s->origin_uuid, sizeof(s->origin_uuid), "%s", origin->uuid);
    s->origin_bytes = om ? lvx_map_prepared_sectors(om) * 512
                         : origin->le_count * (uint64_t)origin->vg->extent_size * 512;
    (void)imap;              /* the RAID targets serve over their legs' own mappings */
    s->n = n;
    s->merging = -1;
    for (unsigned i = 0; i < n; i++)
        if (segs[i]->merging)
            s->merging = (int)i;
    for (unsigned i = 0; i < n; i++)
        if ((rc = prepare_ref(ctx, pool, segs[i], partial, &s->refs[i])) < 0) {
            cow_dtr(NULL, s);
            return rc;
        }
    *map = s->origin ? om : s->refs[0].cow_map;
    *state = s;
    return 0;
}

static int cow_start(struct lvx_ctx *ctx, struct lvxd_lv *v)
{
    struct cow_state *s = v->tstate;
    struct lvxd_io io;
    int rc = s->thin ? lvxd_thin_dev_start(ctx, v, s->thin) : 0;
    if (rc == 0 && s->inner && s->inner->start)   /* RAID superblocks, bitmap; dm-log */
        rc = s->inner->start(ctx, v);
    if (rc < 0)
        return rc;
    if ((rc = lvxd_io_init(&io)) < 0)
        return lvx_error(ctx, -rc, "Cannot set up I/O for %s/%s.", v->vg, v->lv);
    for (unsigned i = 0; i < s->n && rc == 0; i++) {
        struct snap_ref *r = &s->refs[i];
        if (!r->sh && !(r->sh = cow_shared_get(r->cow_lv))) {
            rc = lvx_error(ctx, ENOMEM, "Out of memory.");
            break;
        }
        pthread_rwlock_wrlock(&r->sh->lock);
        struct lvx_cow *st = &r->sh->st;
        uint64_t cow_sectors = lvx_map_prepared_sectors(r->cow_map);
        if (!r->sh->loaded) {
            rc = cow_shared_load(ctx, &io, v, s->origin_bytes / 512, r);
            r->sh->loaded = rc == 0;
        } else if (!s->origin && cow_sectors > st->sectors) {
            /* an extended COW LV (lvextend): the snapshot is reloaded after its origin,
             * so both files map the new size by now; the table grows with it */
            uint64_t origin_chunks = s->origin_bytes / 512 / st->chunk + 1;
            pthread_mutex_lock(&r->sh->mu);
            if ((rc = lvx_cow_grow(st, cow_sectors, origin_chunks)) < 0)
                rc = lvx_error(ctx, -rc, "Out of memory growing the exception store of %s.",
                               r->sh->name);
            pthread_mutex_unlock(&r->sh->mu);
        }
        pthread_rwlock_unlock(&r->sh->lock);
        if (rc < 0) {          /* a half-loaded store is dropped with its last user */
            cow_shared_put(r->sh);
            r->sh = NULL;
        }
    }
    lvxd_io_exit(&io);
    if (rc == 0 && !s->origin)    /* a snapshot is as large as its origin */
        v->size = s->origin_bytes;
    return rc;
}

static void cow_dtr(struct lvxd_lv *v, void *state)
{
    struct cow_state *s = state;
    for (unsigned i = 0; s && i < s->n; i++)
        if (s->refs[i].sh)
            cow_shared_put(s->refs[i].sh);
    if (s)
        lvxd_thin_dev_dtr(v, s->thin);    /* the pool's transaction committed */
    if (s && s->inner && s->inner->dtr)   /* a RAID or mirror origin: stopped clean */
        s->inner->dtr(v, s->inner_state);
    free(s);
}

/* --- origin ------------------------------------------------------------------ */

/* A reload of an origin served with an inner target (a mirror origin whose images
 * change under its snapshots): what that target takes over from the old model, the
 * old state unwrapped when the old model was an origin too. */
static void origin_adopt(void *state, const struct lvx_lv *lv, const struct lvx_lv *old,
                         const struct lvxd_target *old_target, void *old_state)
{
    struct cow_state *s = state;
    if (!s || !s->inner || !s->inner->adopt)
        return;
    if (old_target == &lvxd_target_origin) {
        const struct cow_state *o = old_state;
        old_target = o ? o->inner : NULL;
        old_state = o ? o->inner_state : NULL;
    }
    s->inner->adopt(s->inner_state, lv, old, old_target, old_state);
}

static bool origin_serves(const struct lvx_lv *lv)
{
    return lvx_lv_snapshot_segs(lv, NULL, 0) > 0;
}

static int cow_read(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                    const struct snap_ref *r, uint64_t off, uint32_t len, uint8_t *buf);

/* An origin write that lands on the origin: the snapshots (but the merging one)
 * save the chunks first. */
static int origin_write(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                        uint64_t off, uint32_t len, uint8_t *buf)
{
    for (unsigned i = 0; len && i < s->n; i++)
        if ((int)i != s->merging)
            copy_out(io, v, s, &s->refs[i], off, len);
    return origin_run(io, v, s, true, off, len, buf);
}

/* A write to a merging origin (the merging store's write lock held): the pieces of
 * chunks the store still holds go to their COW chunks, the rest to the origin. */
static int merge_write(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                       uint64_t off, uint32_t len, uint8_t *buf)
{
    const struct snap_ref *m = &s->refs[s->merging];
    struct cow_shared *sh = m->sh;
    uint64_t run = off;      /* start of a run of chunks written to the origin */
    struct chunk_walk w = { .e = off, .end = off + len };
    int rc = 0;
    while (rc == 0 && walk_next(sh, &w)) {
        if (!w.nc)
            continue;
        if (run < w.o)
            rc = origin_write(io, v, s, run, (uint32_t)(w.o - run), buf + (run - off));
        if (rc == 0)
            rc = run_one(io, v, m->cow_map, true, w.nc * sh->cb + (w.o - w.c * sh->cb),
                         (uint32_t)(w.e - w.o), buf + (w.o - off));
        run = w.e;
    }
    if (rc == 0 && run < w.end)
        rc = origin_write(io, v, s, run, (uint32_t)(w.end - run), buf + (run - off));
    return rc;
}

static int origin_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off,
                     uint32_t len, uint8_t *buf)
{
    const struct cow_state *s = v->tstate;
    struct cow_shared *msh = s->merging >= 0 ? s->refs[s->merging].sh : NULL;
    if (msh) {
        if (write)
            pthread_rwlock_wrlock(&msh->lock);
        else
            pthread_rwlock_rdlock(&msh->lock);
        /* an invalid merging snapshot: the origin alone, as the kernel's */
        int rc = !msh->st.valid ? (write ? origin_write(io, v, s, off, len, buf)
                                         : origin_run(io, v, s, false, off, len, buf))
                 : write ? merge_write(io, v, s, off, len, buf)
                         : cow_read(io, v, s, &s->refs[s->merging], off, len, buf);
        pthread_rwlock_unlock(&msh->lock);
        return rc;
    }
    if (!write)
        return origin_run(io, v, s, false, off, len, buf);
    return origin_write(io, v, s, off, len, buf);
}

static int origin_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    const struct cow_state *s = v->tstate;
    if (s->merging >= 0) {       /* through the merge's write path */
        uint8_t *zeroes = lvxd_zeroes();
        int rc = zeroes ? 0 : -ENOMEM;
        for (uint64_t o = off; o < off + len && rc == 0; o += LVXD_MAX_IO) {
            uint64_t l = off + len - o < LVXD_MAX_IO ? off + len - o : LVXD_MAX_IO;
            rc = origin_rw(io, v, true, o, (uint32_t)l, zeroes);
        }
        return rc;
    }
    for (uint64_t o = off; o < off + len; o += LVXD_MAX_IO) {
        uint64_t l = off + len - o < LVXD_MAX_IO ? off + len - o : LVXD_MAX_IO;
        for (unsigned i = 0; i < s->n; i++)
            copy_out(io, v, s, &s->refs[i], o, l);
    }
    if (s->inner)
        return s->inner->zero(io, v, off, len);
    return s->thin ? lvxd_thin_dev_zero(io, v, s->thin, off, len)
                   : lvxd_io_map_zero(io, v, v->map, off, len);
}

static int origin_flush(struct lvxd_io *io, struct lvxd_lv *v)
{
    return origin_sync(io, v, v->tstate);
}

/* " origin N": N snapshots; a merge adds " snapshot-merge VALID USED TOTAL META"
 * (sectors, as the kernel's status line of snapshot-merge: merged when USED = META) */
static void origin_status(struct lvxd_lv *v, char *out, size_t n)
{
    const struct cow_state *s = v->tstate;
    struct cow_shared *sh = s && s->merging >= 0 ? s->refs[s->merging].sh : NULL;
    int k = snprintf(out, n, " origin %u", s ? s->n : 0);
    if (s && s->thin && k > 0 && (size_t)k < n) {   /* a thin origin: its mapped sectors */
        lvxd_thin_dev_status(s->thin, out + k, n - (size_t)k);
        k += (int)strlen(out + k);
    }
    if (s && s->inner && s->inner->status && k > 0 && (size_t)k < n) {  /* RAID, mirror words */
        s->inner->status(v, out + k, n - (size_t)k);
        k += (int)strlen(out + k);
    }
    if (!sh || k < 0 || (size_t)k >= n)
        return;
    uint64_t used, total, meta;
    pthread_mutex_lock(&sh->mu);
    lvx_cow_usage(&sh->st, &used, &total, &meta);
    snprintf(out + k, n - (size_t)k, " snapshot-merge %d %" PRIu64 " %" PRIu64 " %" PRIu64,
             sh->st.valid ? 1 : 0, used, total, meta);
    pthread_mutex_unlock(&sh->mu);
}

/* One step of the merge: up to max records of the store's end (at most one request's
 * slots, within one metadata area) copied back (see the top of the file). */
static int merge_step(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                      unsigned max)
{
    const struct snap_ref *m = &s->refs[s->merging];
    struct cow_shared *sh = m->sh;
    struct lvx_cow *st = &sh->st;
    int rc = 0;
    uint64_t olds[COW_MAX_SLOTS], news[COW_MAX_SLOTS];
    pthread_mutex_lock(&sh->mu);
    bool prev = lvx_cow_merge_prev_area(st);
    pthread_mutex_unlock(&sh->mu);
    if (prev && (rc = run_one(io, v, m->cow_map, false,
                              lvx_cow_area_chunk(st, st->area) * sh->cb, sh->cb, sh->area)) < 0)
        return rc;
    unsigned k = lvx_cow_merge_last(st, sh->area, olds, news, max < sh->slots ? max : sh->slots);
    if (k == 0)
        return 0;
    uint64_t end = s->origin_bytes;
    for (unsigned i = 0; i < k; i++) {          /* the other snapshots keep their view */
        uint64_t off = olds[i] * sh->cb;
        if (off >= end)
            return -EINVAL;                     /* a record past the origin: corrupt */
        for (unsigned j = 0; j < s->n; j++)
            if ((int)j != s->merging)
                copy_out(io, v, s, &s->refs[j], off, off + sh->cb <= end ? sh->cb : end - off);
    }
    /* the buffer: the store's copy pool (a merging store copies nothing else) */
    unsigned n = 0;
    if ((rc = add_runs(io, v, s, m->cow_map, false, news, k, sh->cb, UINT64_MAX, sh->pool,
                       &n)) < 0 || (n && (rc = lvxd_io_run(io, n)) < 0))
        return rc;
    n = 0;
    if ((rc = add_runs(io, v, s, NULL, true, olds, k, sh->cb, end, sh->pool, &n)) < 0 ||
        (n && (rc = lvxd_io_run(io, n)) < 0) || (rc = origin_sync(io, v, s)) < 0)
        return rc;
    pthread_mutex_lock(&sh->mu);
    lvx_cow_merge_drop(st, sh->area, k);
    pthread_mutex_unlock(&sh->mu);
    if ((rc = cow_write_chunk(io, v, m, lvx_cow_area_chunk(st, st->area), sh->area)) < 0)
        return rc;
    return lvxd_io_flush_pvs(io, v);
}

int lvxd_snapshot_merge(struct lvx_ctx *ctx, struct lvxd_lv *v, unsigned max, uint64_t *left)
{
    int rc = 0;
    pthread_rwlock_rdlock(&v->lock);
    const struct cow_state *s = v->target == &lvxd_target_origin ? v->tstate : NULL;
    struct cow_shared *sh = s && s->merging >= 0 ? s->refs[s->merging].sh : NULL;
    if (!sh) {
        rc = lvx_error(ctx, EINVAL, "%s/%s is not an origin with a merging snapshot (reload it).",
                       v->vg, v->lv);
        goto out;
    }
    if (v->read_only) {
        rc = lvx_error(ctx, EROFS, "%s/%s is read-only: its merge cannot run.", v->vg, v->lv);
        goto out;
    }
    struct lvxd_io io;
    if ((rc = lvxd_io_init(&io)) < 0) {
        lvx_error(ctx, -rc, "Cannot set up I/O for %s/%s.", v->vg, v->lv);
        goto out;
    }
    pthread_rwlock_wrlock(&sh->lock);
    if (!sh->st.valid)
        rc = lvx_error(ctx, EINVAL, "%s: Merging snapshot invalidated.", sh->name);
    else if ((rc = merge_step(&io, v, s, max)) < 0) {
        lvxd_log("merge of %s into %s/%s: %s", sh->name, v->vg, v->lv, strerror(-rc));
        lvx_error(ctx, -rc, "Merging %s into %s/%s failed: %s", sh->name, v->vg, v->lv,
                  strerror(-rc));
    }
    *left = sh->st.count;
    pthread_rwlock_unlock(&sh->lock);
    lvxd_io_exit(&io);
out:
    pthread_rwlock_unlock(&v->lock);
    return rc;
}

const struct lvxd_target lvxd_target_origin = {
    .name = "snapshot-origin",
    .serves = origin_serves,
    .ctr = cow_ctr,
    .start = cow_start,
    .adopt = origin_adopt,
    .dtr = cow_dtr,
    .rw = origin_rw,
    .zero = origin_zero,
    .flush = origin_flush,
    .status = origin_status,
};

/* --- snapshot ------------------------------------------------------------------ */

static bool snapshot_serves(const struct lvx_lv *lv)
{
    return lvx_lv_is_cow(lv);
}

/* Read through snapshot r's view: chunks it holds from its COW, the rest from the
 * origin (a snapshot's reads; a merging origin's reads, r the merging snapshot). */
static int cow_read(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                    const struct snap_ref *r, uint64_t off, uint32_t len, uint8_t *buf)
{
    struct cow_shared *sh = r->sh;
    unsigned n = 0;
    int rc = 0;
    uint64_t run = off;      /* start of a run of chunks read from the origin */
    struct chunk_walk w = { .e = off, .end = off + len };
    while (rc == 0 && walk_next(sh, &w)) {
        if (!w.nc)
            continue;
        if (run < w.o)
            rc = origin_add(io, v, s, false, run, (uint32_t)(w.o - run), buf + (run - off), &n);
        if (rc == 0)
            rc = lvxd_io_map_add(io, v, r->cow_map, false, w.nc * sh->cb + (w.o - w.c * sh->cb),
                                 (uint32_t)(w.e - w.o), buf + (w.o - off), &n);
        run = w.e;
    }
    if (rc == 0 && run < w.end)
        rc = origin_add(io, v, s, false, run, (uint32_t)(w.end - run), buf + (run - off), &n);
    return rc == 0 && n ? lvxd_io_run(io, n) : rc;
}

/* A write to the snapshot: chunks without a record get one (a ticket; a chunk written
 * in part is filled from the origin first), the data goes to the COW chunks, then the
 * new records are committed. */
static int snapshot_write(struct lvxd_io *io, struct lvxd_lv *v, const struct cow_state *s,
                          uint64_t off, uint32_t len, const uint8_t *buf)
{
    const struct snap_ref *r = &s->refs[0];
    struct cow_shared *sh = r->sh;
    uint64_t end = off + len;
    struct cow_ticket t;
    if (cow_reserve(io, v, r, off / sh->cb, (end - 1) / sh->cb, &t) < 0)
        return -EIO;
    unsigned n = 0;
    int rc = 0;
    /* 1: new chunks written in part: the origin's chunk first */
    for (unsigned j = 0; j < t.k && rc == 0; j++)
        if (off > t.olds[j] * sh->cb || end < (t.olds[j] + 1) * sh->cb)
            rc = add_origin_chunk(io, v, s, sh->cb, t.olds[j], t.buf + (size_t)j * sh->cb, &n);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    /* 2: the data: whole new chunks, or into COW chunks (looked up under the lock) */
    n = 0;
    unsigned j = 0;
    io->fua = t.k > 0;       /* new chunks' data durable before their records */
    pthread_rwlock_rdlock(&sh->lock);
    for (uint64_t o = off; o < end && rc == 0;) {
        uint64_t c = o / sh->cb, cend = (c + 1) * sh->cb;
        uint64_t e = cend < end ? cend : end;
        uint64_t inner = o - c * sh->cb;
        uint8_t *src = (uint8_t *)buf + (o - off);
        if (j < t.k && t.olds[j] == c) {
            if (e - o < sh->cb) {
                memcpy(t.buf + (size_t)j * sh->cb + inner, src, e - o);
                src = t.buf + (size_t)j * sh->cb;
            }
            rc = lvxd_io_map_add(io, v, r->cow_map, true, t.news[j] * sh->cb, sh->cb, src, &n);
            j++;
        } else {
            rc = lvxd_io_map_add(io, v, r->cow_map, true,
                                 lvx_cow_lookup(&sh->st, c) * sh->cb + inner, (uint32_t)(e - o),
                                 src, &n);
        }
        o = e;
    }
    pthread_rwlock_unlock(&sh->lock);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    io->fua = false;
    /* 3: the records of new chunks, after their data */
    if (t.k && rc < 0) {
        cow_invalidate(io, v, r, strerror(-rc));
        cow_release(sh, &t);
    } else if (t.k) {
        rc = cow_commit(io, v, r, &t);
    }
    return rc;
}

static int snapshot_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off,
                       uint32_t len, uint8_t *buf)
{
    const struct cow_state *s = v->tstate;
    struct cow_shared *sh = s->refs[0].sh;
    if (!len)
        return 0;
    if (s->merging == 0)                   /* merging: the error target */
        return -EIO;
    if (write)
        return snapshot_write(io, v, s, off, len, buf);
    pthread_rwlock_rdlock(&sh->lock);
    int rc = !sh->st.valid ? -EIO : cow_read(io, v, s, &s->refs[0], off, len, buf);
    pthread_rwlock_unlock(&sh->lock);
    return rc;
}

static int snapshot_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    uint8_t *zeroes = lvxd_zeroes();
    int rc = zeroes ? 0 : -ENOMEM;
    for (uint64_t o = off; o < off + len && rc == 0; o += LVXD_MAX_IO) {
        uint64_t l = off + len - o < LVXD_MAX_IO ? off + len - o : LVXD_MAX_IO;
        rc = snapshot_rw(io, v, true, o, (uint32_t)l, zeroes);
    }
    return rc;
}

/* " snapshot VALID USED TOTAL META" (sectors, as the kernel's status line counts) */
static void snapshot_status(struct lvxd_lv *v, char *out, size_t n)
{
    const struct cow_state *s = v->tstate;
    struct cow_shared *sh = s ? s->refs[0].sh : NULL;
    if (!sh)
        return;
    uint64_t used, total, meta;
    pthread_mutex_lock(&sh->mu);
    lvx_cow_usage(&sh->st, &used, &total, &meta);
    snprintf(out, n, " snapshot %d %" PRIu64 " %" PRIu64 " %" PRIu64, sh->st.valid ? 1 : 0,
             used, total, meta);
    pthread_mutex_unlock(&sh->mu);
}

const struct lvxd_target lvxd_target_snapshot = {
    .name = "snapshot",
    .serves = snapshot_serves,
    .ctr = cow_ctr,
    .start = cow_start,
    .dtr = cow_dtr,
    .rw = snapshot_rw,
    .zero = snapshot_zero,
    .status = snapshot_status,
};
