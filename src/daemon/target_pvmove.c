/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/target_pvmove.c - the daemon target of an LV with extents under a pvmove
 * (areas on the pvmoveN LV, LVM2's layout, model/pvmove.c), and the daemon's side of
 * the copy.  The LV is compiled into three views, each a linear/striped LV over PVs
 * (segments split where pvmoveN's segments end): leg 0 everywhere (the source), leg 1
 * everywhere (the destination), and the read view (leg 1 where the pvmove segment's
 * copy is checkpointed, leg 0 elsewhere).  Reads go through the read view; writes and
 * zeroing go to both legs of every mirror segment (a mirror: whichever way the move
 * ends, finished or aborted, the kept leg holds every write).
 *
 * The copy of a pvmove segment (lvxd_pvmove_copy, asked by `pvmove` through the
 * control socket, a range at a time) reads leg 0 and writes leg 1 in chunks of
 * CHUNK bytes.  A chunk and a concurrent write must not race (the copy must never
 * put back old data over a newer write): the destination PVs' sectors are hashed in
 * 1 MiB regions to BUCKETS counters; a write counts itself in the buckets of the
 * destination regions it touches while it runs, the copy marks the buckets of its
 * chunk busy, waits until they have no writers, copies, then frees them; a write
 * whose buckets are busy waits for the chunk.  Zeroing counts in every bucket.
 *
 * Entry points: lvxd_target_pvmove, lvxd_pvmove_copy(); lvxd_target_restripe,
 * lvxd_restripe_copy() (an LV being restriped, below).
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "model/restripe.h"
#include "util/pool.h"

#define BUCKETS 64
#define REGION_SECTORS 2048u            /* 1 MiB */
#define CHUNK (1u << 20)

/* One mirror segment of the pvmove LV, as the copy needs it. */
struct mseg {
    uint64_t le, extents;               /* in the pvmove LV */
    unsigned pv[2];                     /* pv->index of the legs */
    uint64_t first[2];                  /* first PV sector of each leg */
};

struct mv_state {
    const struct lvx_map_prepared *leg[2], *read;
    struct mseg *segs;
    unsigned seg_count;
    uint32_t extent_size;
    pthread_mutex_t m;
    pthread_cond_t c;
    unsigned writers[BUCKETS];
    uint64_t busy;                      /* buckets of the chunk being copied */
    struct lvxd_io *io;                 /* the copy's (control thread), made on first use */
    uint8_t *buf;
};

static bool is_pvmove_lv(const struct lvx_lv *lv)
{
    return lv && (lv->status & LVX_LV_PVMOVE);
}

static bool pvmove_serves(const struct lvx_lv *lv)
{
    for (unsigned s = 0; s < lv->seg_count; s++)
        for (unsigned a = 0; a < lv->segs[s].area_count; a++)
            if (is_pvmove_lv(lv->segs[s].areas[a].lv))
                return true;
    return false;
}

static const struct lvx_seg *mv_seg_at(const struct lvx_lv *mv, uint64_t le)
{
    for (unsigned i = 0; i < mv->seg_count; i++)
        if (le >= mv->segs[i].start_extent &&
            le < mv->segs[i].start_extent + mv->segs[i].extent_count)
            return &mv->segs[i];
    return NULL;
}

static bool mv_seg_ok(const struct lvx_seg *s)
{
    return s && s->kind == LVX_SEG_MIRROR && s->area_count == 2 && s->areas[0].pv &&
           s->areas[1].pv;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The three views of lv (0: leg 0, 1: leg 1, 2: read view) as model LVs in pool. */
static int make_views(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                      struct lvx_lv *view[3])
{
    /* pieces: each segment split at every pvmove segment boundary of its areas */
    unsigned cap = 0;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        cap += 1;
        for (unsigned a = 0; a < lv->segs[s].area_count; a++)
            if (is_pvmove_lv(lv->segs[s].areas[a].lv))
                cap += lv->segs[s].areas[a].lv->seg_count;
    }
    for (int k = 0; k < 3; k++) {
        view[k] = lvx_pool_alloc(pool, sizeof(*view[k]));
        *view[k] = *lv;
        view[k]->segs = lvx_pool_alloc(pool, cap * sizeof(struct lvx_seg));
        view[k]->seg_count = 0;
    }
    uint64_t *cuts = lvx_pool_alloc(pool, (cap + 2) * sizeof(*cuts));
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        bool mirrored = false;
        for (unsigned a = 0; a < seg->area_count; a++) {
            const struct lvx_lv *sub = seg->areas[a].lv;
            if (sub && !is_pvmove_lv(sub))
                return lvx_error(ctx, ENOTSUP, "LV %s/%s: an area on LV %s is not served by "
                                 "the daemon's pvmove target.", lv->vg->name, lv->name, sub->name);
            mirrored |= sub != NULL;
        }
        if (mirrored && seg->kind != LVX_SEG_STRIPED)
            return lvx_error(ctx, ENOTSUP, "LV %s/%s: a %s segment under a pvmove is not "
                             "served by the daemon.", lv->vg->name, lv->name, seg->type_name);
        uint64_t alen = mirrored ? lvx_seg_area_len(seg) : 1;
        unsigned nc = 0;
        cuts[nc++] = 0;
        for (unsigned a = 0; mirrored && a < seg->area_count; a++) {
            const struct lvx_lv *mv = seg->areas[a].lv;
            if (!mv)
                continue;
            uint64_t L = seg->areas[a].start;
            for (unsigned i = 0; i < mv->seg_count; i++) {
                uint64_t b = mv->segs[i].start_extent;
                if (b > L && b < L + alen)
                    cuts[nc++] = b - L;
            }
        }
        cuts[nc++] = alen;
        qsort(cuts, nc, sizeof(*cuts), cmp_u64);
        uint32_t k = mirrored ? seg->stripe_count : 1;
        for (unsigned c = 0; c + 1 < nc; c++) {
            uint64_t b0 = cuts[c], b1 = cuts[c + 1];
            if (b0 == b1)
                continue;
            for (int v = 0; v < 3; v++) {
                struct lvx_seg *ns = &view[v]->segs[view[v]->seg_count++];
                *ns = *seg;
                ns->lv = view[v];
                if (!mirrored)
                    continue;
                ns->start_extent = seg->start_extent + b0 * k;
                ns->extent_count = (b1 - b0) * k;
                ns->areas = lvx_pool_alloc(pool, seg->area_count * sizeof(*ns->areas));
                for (unsigned a = 0; a < seg->area_count; a++) {
                    const struct lvx_area *oa = &seg->areas[a];
                    struct lvx_area *na = &ns->areas[a];
                    if (!oa->lv) {
                        *na = *oa;
                        na->start = oa->start + b0;
                        continue;
                    }
                    uint64_t x = oa->start + b0;
                    const struct lvx_seg *ms = mv_seg_at(oa->lv, x);
                    if (!mv_seg_ok(ms))
                        return lvx_error(ctx, ENOTSUP, "LV %s/%s: extent %llu of %s is not a "
                                         "two-way mirror over PVs.", lv->vg->name, lv->name,
                                         (unsigned long long)x, oa->lv->name);
                    int leg = v < 2 ? v : ms->extents_moved >= ms->extent_count;
                    na->lv = NULL;
                    na->pv = ms->areas[leg].pv;
                    na->start = ms->areas[leg].start + (x - ms->start_extent);
                }
            }
        }
    }
    return 0;
}

/* The state over three views (leg 0, leg 1, the read view; one compiled once when it
 * is two of them), each checked and compiled: 0, or -errno (message set). */
static int views_state(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                       const struct lvx_lv *const view[3], bool partial, struct mv_state **out)
{
    struct lvx_map_prepared *m[3];
    int rc;
    *out = NULL;
    for (int k = 0; k < 3; k++) {
        if (k == 2 && view[2] == view[0]) {
            m[2] = m[0];
            continue;
        }
        if ((rc = lvx_map_check_activatable(ctx, view[k], partial)) < 0 ||
            (rc = lvx_map_prepare(ctx, pool, view[k], partial ? LVX_MAP_MISSING_IS_ERROR : 0,
                                  &m[k])) < 0)
            return rc;
    }
    struct mv_state *st = calloc(1, sizeof(*st));
    if (!st)
        return lvx_error(ctx, ENOMEM, "Out of memory.");
    st->leg[0] = m[0];
    st->leg[1] = m[1];
    st->read = m[2];
    st->extent_size = lv->vg->extent_size;
    pthread_mutex_init(&st->m, NULL);
    pthread_cond_init(&st->c, NULL);
    *out = st;
    return 0;
}

static int pvmove_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                      bool partial, const struct lvx_map_prepared **map, void **state)
{
    *state = NULL;
    struct lvx_lv *view[3];
    struct mv_state *st;
    int rc;
    if ((rc = lvx_map_refuse_snapshots(ctx, lv)) < 0 ||
        (rc = make_views(ctx, pool, lv, view)) < 0 ||
        (rc = views_state(ctx, pool, lv, (const struct lvx_lv *const *)view, partial, &st)) < 0)
        return rc;
    /* the mirror segments of every pvmove LV the LV uses */
    unsigned n = 0;
    for (unsigned s = 0; s < lv->seg_count; s++)
        for (unsigned a = 0; a < lv->segs[s].area_count; a++)
            if (is_pvmove_lv(lv->segs[s].areas[a].lv))
                n += lv->segs[s].areas[a].lv->seg_count;
    st->segs = lvx_pool_alloc(pool, (n + 1) * sizeof(*st->segs));
    const struct lvx_lv *seen[64];
    unsigned nseen = 0;
    for (unsigned s = 0; s < lv->seg_count; s++)
        for (unsigned a = 0; a < lv->segs[s].area_count; a++) {
            const struct lvx_lv *mv = lv->segs[s].areas[a].lv;
            bool dup = false;
            for (unsigned i = 0; i < nseen; i++)
                dup |= seen[i] == mv;
            if (!is_pvmove_lv(mv) || dup || nseen == 64)
                continue;
            seen[nseen++] = mv;
            for (unsigned i = 0; i < mv->seg_count; i++) {
                const struct lvx_seg *ms = &mv->segs[i];
                if (!mv_seg_ok(ms))
                    continue;
                struct mseg *d = &st->segs[st->seg_count++];
                d->le = ms->start_extent;
                d->extents = ms->extent_count;
                for (int k = 0; k < 2; k++) {
                    d->pv[k] = ms->areas[k].pv->index;
                    d->first[k] = ms->areas[k].pv->pe_start +
                                  ms->areas[k].start * (uint64_t)st->extent_size;
                }
            }
        }
    *map = st->read;
    *state = st;
    return 0;
}

static void pvmove_dtr(struct lvxd_lv *v, void *state)
{
    (void)v;
    struct mv_state *st = state;
    if (!st)
        return;
    if (st->io) {
        lvxd_io_exit(st->io);
        free(st->io);
    }
    free(st->buf);
    pthread_mutex_destroy(&st->m);
    pthread_cond_destroy(&st->c);
    free(st);
}

static uint64_t bucket_bit(unsigned pv, uint64_t sector)
{
    return (uint64_t)1 << ((pv * 31u + sector / REGION_SECTORS) % BUCKETS);
}

/* The buckets of the destination regions that a write of [off, off+len) touches
 * (only where leg 1 differs from leg 0: the mirrored parts). */
static uint64_t write_buckets(const struct mv_state *st, uint64_t off, uint64_t len)
{
    uint64_t mask = 0, sector = off / 512, end = (off + len) / 512;
    while (sector < end) {
        struct lvx_map_loc l0, l1;
        if (lvx_map_prepared_lookup(st->leg[0], sector, &l0) < 0 ||
            lvx_map_prepared_lookup(st->leg[1], sector, &l1) < 0 || !l0.len || !l1.len)
            return ~(uint64_t)0;
        uint64_t cnt = l0.len < l1.len ? l0.len : l1.len;
        if (cnt > end - sector)
            cnt = end - sector;
        if (l1.kind == LVX_MAP_PV && l1.pv &&
            (l0.kind != LVX_MAP_PV || l0.pv != l1.pv || l0.pv_sector != l1.pv_sector)) {
            for (uint64_t s = l1.pv_sector; s < l1.pv_sector + cnt;
                 s = (s / REGION_SECTORS + 1) * REGION_SECTORS)
                mask |= bucket_bit(l1.pv->index, s);
        }
        sector += cnt;
    }
    return mask;
}

static void writers_enter(struct mv_state *st, uint64_t mask)
{
    pthread_mutex_lock(&st->m);
    while (st->busy & mask)
        pthread_cond_wait(&st->c, &st->m);
    for (unsigned b = 0; b < BUCKETS; b++)
        if (mask & ((uint64_t)1 << b))
            st->writers[b]++;
    pthread_mutex_unlock(&st->m);
}

static void writers_leave(struct mv_state *st, uint64_t mask)
{
    pthread_mutex_lock(&st->m);
    for (unsigned b = 0; b < BUCKETS; b++)
        if (mask & ((uint64_t)1 << b))
            st->writers[b]--;
    pthread_cond_broadcast(&st->c);
    pthread_mutex_unlock(&st->m);
}

/* Write [off, off+len) to leg 0 and, where it is elsewhere, to leg 1. */
static int write_both(struct lvxd_io *io, struct lvxd_lv *v, struct mv_state *st, uint64_t off,
                      uint32_t len, uint8_t *buf)
{
    unsigned n = 0;
    int rc = 0;
    uint64_t sector = off / 512, end = (off + len) / 512;
    while (sector < end && rc == 0) {
        struct lvx_map_loc l0, l1;
        if (lvx_map_prepared_lookup(st->leg[0], sector, &l0) < 0 ||
            lvx_map_prepared_lookup(st->leg[1], sector, &l1) < 0 || !l0.len || !l1.len)
            return -EIO;
        uint64_t cnt = l0.len < l1.len ? l0.len : l1.len;
        if (cnt > end - sector)
            cnt = end - sector;
        uint64_t b = (sector - off / 512) * 512;
        rc = lvxd_io_map_add(io, v, st->leg[0], true, sector * 512, (uint32_t)(cnt * 512),
                             buf + b, &n);
        if (rc == 0 && (l0.kind != l1.kind || l0.pv != l1.pv || l0.pv_sector != l1.pv_sector))
            rc = lvxd_io_map_add(io, v, st->leg[1], true, sector * 512, (uint32_t)(cnt * 512),
                                 buf + b, &n);
        sector += cnt;
    }
    return rc == 0 && n ? lvxd_io_run(io, n) : rc;
}

static int pvmove_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off,
                     uint32_t len, uint8_t *buf)
{
    struct mv_state *st = v->tstate;
    if (!write) {
        unsigned n = 0;
        int rc = lvxd_io_map_add(io, v, st->read, false, off, len, buf, &n);
        return rc == 0 && n ? lvxd_io_run(io, n) : rc;
    }
    uint64_t mask = write_buckets(st, off, len);
    writers_enter(st, mask);
    int rc = write_both(io, v, st, off, len, buf);
    writers_leave(st, mask);
    return rc;
}

static int pvmove_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    struct mv_state *st = v->tstate;
    writers_enter(st, ~(uint64_t)0);
    int rc = lvxd_io_map_zero(io, v, st->leg[0], off, len);
    if (rc == 0)
        rc = lvxd_io_map_zero(io, v, st->leg[1], off, len);
    writers_leave(st, ~(uint64_t)0);
    return rc;
}

const struct lvxd_target lvxd_target_pvmove = {
    .name = "pvmove",
    .serves = pvmove_serves,
    .ctr = pvmove_ctr,
    .dtr = pvmove_dtr,
    .rw = pvmove_rw,
    .zero = pvmove_zero,
};

/* A chunk of the copy is about to write the destination regions of mask: new writers
 * there wait from now on, and the writers in them are waited for. */
static void chunk_begin(struct mv_state *st, uint64_t mask)
{
    pthread_mutex_lock(&st->m);
    st->busy = mask;
    for (;;) {
        bool idle = true;
        for (unsigned b = 0; b < BUCKETS; b++)
            if ((mask & ((uint64_t)1 << b)) && st->writers[b])
                idle = false;
        if (idle)
            break;
        pthread_cond_wait(&st->c, &st->m);
    }
    pthread_mutex_unlock(&st->m);
}

static void chunk_end(struct mv_state *st)
{
    pthread_mutex_lock(&st->m);
    st->busy = 0;
    pthread_cond_broadcast(&st->c);
    pthread_mutex_unlock(&st->m);
}

/* Copy one chunk (bytes at sector offset off of segment d) from leg 0 to leg 1. */
static int copy_chunk(struct lvxd_lv *v, struct mv_state *st, const struct mseg *d,
                      uint64_t off, uint32_t sectors)
{
    uint64_t src = d->first[0] + off, dst = d->first[1] + off;
    uint64_t mask = 0;
    for (uint64_t s = dst; s < dst + sectors; s = (s / REGION_SECTORS + 1) * REGION_SECTORS)
        mask |= bucket_bit(d->pv[1], s);
    chunk_begin(st, mask);
    struct lvxd_io *io = st->io;
    const struct lvxd_pv *p0 = &v->pvs[d->pv[0]], *p1 = &v->pvs[d->pv[1]];
    int rc;
    if (p0->fd < 0 || p1->fd < 0) {
        rc = -EIO;
    } else {
        io->pieces[0] = (struct lvx_io_op){ .fd = p0->fd, .kind = LVX_IO_READ, .dev = d->pv[0],
                                            .off = src * 512, .len = sectors * 512,
                                            .buf = st->buf };
        rc = lvxd_io_run(io, 1);
        if (rc == 0) {
            io->pieces[0] = (struct lvx_io_op){ .fd = p1->fd, .kind = LVX_IO_WRITE,
                                                .dev = d->pv[1], .off = dst * 512,
                                                .len = sectors * 512, .buf = st->buf };
            lvxd_io_mark_written(io, v, d->pv[1]);
            rc = lvxd_io_run(io, 1);
        }
    }
    chunk_end(st);
    return rc;
}

/* The copy's I/O queue and buffer (control thread), made on first use. */
static int copy_io(struct lvx_ctx *ctx, struct lvxd_lv *v, struct mv_state *st)
{
    if (st->io)
        return 0;
    st->io = calloc(1, sizeof(*st->io));
    if (posix_memalign((void **)&st->buf, 4096, CHUNK) != 0)
        st->buf = NULL;
    if (!st->io || !st->buf || lvxd_io_init(st->io) < 0) {
        free(st->io);
        st->io = NULL;
        return lvx_error(ctx, ENOMEM, "%s/%s: no I/O queue for the copy.", v->vg, v->lv);
    }
    return 0;
}

/* The end of a copy request: the flush asked for; a failure said as "VG/LV: WHAT N
 * failed: error". */
static int copy_end(struct lvx_ctx *ctx, struct lvxd_lv *v, struct mv_state *st, int rc,
                    bool flush, const char *what, uint64_t n)
{
    if (rc == 0 && flush)
        rc = lvxd_io_flush_pvs(st->io, v);
    if (rc < 0)
        lvx_error(ctx, -rc, "%s/%s: %s %llu failed: %s", v->vg, v->lv, what,
                  (unsigned long long)n, strerror(-rc));
    return rc;
}

int lvxd_pvmove_copy(struct lvx_ctx *ctx, struct lvxd_lv *v, uint64_t mv_le, uint64_t off,
                     uint64_t sectors, bool flush)
{
    int rc = 0;
    pthread_rwlock_rdlock(&v->lock);
    struct mv_state *st = v->target == &lvxd_target_pvmove ? v->tstate : NULL;
    const struct mseg *d = NULL;
    for (unsigned i = 0; st && i < st->seg_count; i++)
        if (st->segs[i].le == mv_le)
            d = &st->segs[i];
    if (!d) {
        rc = lvx_error(ctx, ESTALE, "%s/%s: no pvmove segment at extent %llu is served (reload "
                       "the LV).", v->vg, v->lv, (unsigned long long)mv_le);
        goto out;
    }
    if (off + sectors > d->extents * st->extent_size || v->read_only) {
        rc = lvx_error(ctx, EINVAL, "%s/%s: copy beyond the pvmove segment or read-only LV.",
                       v->vg, v->lv);
        goto out;
    }
    if ((rc = copy_io(ctx, v, st)) < 0)
        goto out;
    for (uint64_t s = off; s < off + sectors && rc == 0;) {
        /* chunks end at the destination's 1 MiB regions */
        uint64_t dst = d->first[1] + s;
        uint64_t n = (dst / REGION_SECTORS + 1) * REGION_SECTORS - dst;
        if (n > off + sectors - s)
            n = off + sectors - s;
        rc = copy_chunk(v, st, d, s, (uint32_t)n);
        s += n;
    }
    rc = copy_end(ctx, v, st, rc, flush, "copying pvmove extent", mv_le);
out:
    pthread_rwlock_unlock(&v->lock);
    return rc;
}

/* ---- restripe ----------------------------------------------------------------------
 * An LV with a restripe in progress (model/restripe.h) is served the same way: leg 0
 * is the LV as committed (the read view too), leg 1 the LV as it will be (its LEs past
 * the copied prefix on the reservation LV); writes go to both where they differ, so
 * whatever the next commit says, both places hold every write.  The copy
 * (lvxd_restripe_copy, `rscopy` requests) reads leg 0 and writes leg 1, a chunk of LV
 * sectors at a time, against the writes (the destination regions' buckets). */

static bool restripe_serves(const struct lvx_lv *lv)
{
    return lvx_restripe_rsv(lv) != NULL;
}

static int restripe_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                        bool partial, const struct lvx_map_prepared **map, void **state)
{
    *state = NULL;
    const struct lvx_lv *view[3] = { lv, lvx_restripe_target(pool, lv, lvx_restripe_rsv(lv)), lv };
    struct mv_state *st;
    int rc;
    if ((rc = lvx_map_refuse_snapshots(ctx, lv)) < 0 ||
        (rc = views_state(ctx, pool, lv, view, partial, &st)) < 0)
        return rc;
    *map = st->read;
    *state = st;
    return 0;
}

const struct lvxd_target lvxd_target_restripe = {
    .name = "restripe",
    .serves = restripe_serves,
    .ctr = restripe_ctr,
    .dtr = pvmove_dtr,
    .rw = pvmove_rw,
    .zero = pvmove_zero,
};

int lvxd_restripe_copy(struct lvx_ctx *ctx, struct lvxd_lv *v, uint64_t off, uint64_t sectors,
                       bool flush)
{
    int rc = 0;
    pthread_rwlock_rdlock(&v->lock);
    struct mv_state *st = v->target == &lvxd_target_restripe ? v->tstate : NULL;
    if (!st) {
        rc = lvx_error(ctx, ESTALE, "%s/%s: no restripe is served (reload the LV).", v->vg,
                       v->lv);
        goto out;
    }
    if (off + sectors > lvx_map_prepared_sectors(st->leg[0]) || v->read_only) {
        rc = lvx_error(ctx, EINVAL, "%s/%s: copy beyond the LV or read-only LV.", v->vg, v->lv);
        goto out;
    }
    if ((rc = copy_io(ctx, v, st)) < 0)
        goto out;
    for (uint64_t s = off; s < off + sectors && rc == 0;) {
        uint64_t n = off + sectors - s < CHUNK / 512 ? off + sectors - s : CHUNK / 512;
        unsigned k = 0;
        chunk_begin(st, write_buckets(st, s * 512, n * 512));
        rc = lvxd_io_map_add(st->io, v, st->leg[0], false, s * 512, (uint32_t)(n * 512),
                             st->buf, &k);
        if (rc == 0 && k)
            rc = lvxd_io_run(st->io, k);
        k = 0;
        if (rc == 0)
            rc = lvxd_io_map_add(st->io, v, st->leg[1], true, s * 512, (uint32_t)(n * 512),
                                 st->buf, &k);
        if (rc == 0 && k)
            rc = lvxd_io_run(st->io, k);
        chunk_end(st);
        s += n;
    }
    rc = copy_end(ctx, v, st, rc, flush, "restripe copy at sector", off);
out:
    pthread_rwlock_unlock(&v->lock);
    return rc;
}
