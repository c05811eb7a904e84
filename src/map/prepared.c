/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/prepared.c - an LV compiled for serving: every segment checked once by its
 * target (as a dm target's constructor validates once), then kept as a run with its
 * arithmetic precomputed (chunk and stripe shifts or divisors, each area's first PV
 * sector).  Lookup is a binary search over the runs plus pure arithmetic, no checks
 * and no model walks: the daemon's datapath maps every request through it.
 * Entry points: lvx_map_prepare(), lvx_map_prepared_lookup().
 */
#include "map/map.h"

#include <errno.h>
#include <inttypes.h>

/* One run of LV sectors with one layout. */
struct run {
    uint64_t start;               /* first LV sector */
    uint64_t len;                 /* sectors */
    enum lvx_map_kind kind;       /* PV (linear/striped), ZERO or ERROR */
    uint32_t stripes;             /* 1 for linear */
    uint64_t chunk;               /* sectors per chunk (striped) */
    int chunk_shift;              /* log2(chunk), or -1 when chunk is not a power of two */
    int stripe_shift;             /* log2(stripes), or -1 */
    const struct lvx_map_area *areas;  /* stripes entries */
};

struct lvx_map_prepared {
    uint64_t sectors;             /* of the LV */
    unsigned run_count;
    struct run *runs;
};

static int log2_exact(uint64_t x)
{
    return x && !(x & (x - 1)) ? __builtin_ctzll(x) : -1;
}

static int prepare_run(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_seg *seg,
                       uint32_t e, unsigned flags, struct run *r)
{
    const struct lvx_map_target *t = lvx_map_target_of(ctx, seg);
    if (!t)
        return -ENOTSUP;
    int rc = t->check(ctx, seg, e);
    if (rc < 0)
        return rc;
    r->start = seg->start_extent * (uint64_t)e;
    r->len = seg->extent_count * (uint64_t)e;
    if (t == &lvx_map_zero || t == &lvx_map_error) {
        r->kind = t == &lvx_map_zero ? LVX_MAP_ZERO : LVX_MAP_ERROR;
        return 0;
    }
    bool striped = t == &lvx_map_striped;
    r->kind = LVX_MAP_PV;
    r->stripes = striped ? seg->stripe_count : 1;
    r->chunk = striped ? seg->stripe_size : r->len;
    r->chunk_shift = log2_exact(r->chunk);
    r->stripe_shift = log2_exact(r->stripes);
    struct lvx_map_area *a = lvx_pool_alloc(pool, r->stripes * sizeof(*a));
    for (uint32_t j = 0; j < r->stripes; j++) {
        a[j].pv = seg->areas[j].pv;
        a[j].first_sector = lvx_map_area_sector(seg, j, e);
        if ((flags & LVX_MAP_MISSING_IS_ERROR) && lvx_map_pv_missing(a[j].pv))
            a[j].pv = NULL;                /* served as the error target */
    }
    r->areas = a;
    return 0;
}

int lvx_map_prepare(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                    unsigned flags, struct lvx_map_prepared **out)
{
    if (!lv->vg || !lv->vg->extent_size)
        return lvx_error(ctx, EINVAL, "LV %s has no VG extent size", lv->name ? lv->name : "?");
    uint32_t e = lv->vg->extent_size;
    struct lvx_map_prepared *m = lvx_pool_alloc(pool, sizeof(*m));
    m->runs = lvx_pool_alloc(pool, (lv->seg_count ? lv->seg_count : 1) * sizeof(*m->runs));
    m->run_count = lv->seg_count;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        int rc = prepare_run(ctx, pool, &lv->segs[s], e, flags, &m->runs[s]);
        if (rc < 0)
            return rc;
        if (m->runs[s].start != m->sectors)
            return lvx_error(ctx, EINVAL, "LV %s: segment %u starts at sector %" PRIu64
                             ", not where the one before it ends (%" PRIu64 ")",
                             lv->name ? lv->name : "?", s + 1, m->runs[s].start, m->sectors);
        m->sectors += m->runs[s].len;
    }
    *out = m;
    return 0;
}

uint64_t lvx_map_prepared_sectors(const struct lvx_map_prepared *m)
{
    return m->sectors;
}

int lvx_map_prepared_lookup(const struct lvx_map_prepared *m, uint64_t lv_sector,
                            struct lvx_map_loc *out)
{
    unsigned lo = 0, hi = m->run_count;
    const struct run *r = NULL;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        const struct run *c = &m->runs[mid];
        if (lv_sector < c->start)
            hi = mid;
        else if (lv_sector >= c->start + c->len)
            lo = mid + 1;
        else {
            r = c;
            break;
        }
    }
    if (!r)
        return -ERANGE;
    uint64_t x = lv_sector - r->start, left_in_run = r->len - x;
    out->kind = r->kind;
    out->pv = NULL;
    out->pv_sector = 0;
    out->len = left_in_run;
    if (r->kind != LVX_MAP_PV)
        return 0;
    uint64_t chunk, in_chunk, stripe, row;
    if (r->chunk_shift >= 0) {
        chunk = x >> r->chunk_shift;
        in_chunk = x & (r->chunk - 1);
    } else {
        chunk = x / r->chunk;
        in_chunk = x % r->chunk;
    }
    if (r->stripe_shift >= 0) {
        stripe = chunk & (r->stripes - 1);
        row = chunk >> r->stripe_shift;
    } else {
        stripe = chunk % r->stripes;
        row = chunk / r->stripes;
    }
    const struct lvx_map_area *a = &r->areas[stripe];
    if (!a->pv) {                                  /* a missing PV, served as error */
        out->kind = LVX_MAP_ERROR;
    } else {
        out->pv = a->pv;
        out->pv_sector = a->first_sector + row * r->chunk + in_chunk;
    }
    if (r->chunk - in_chunk < left_in_run)
        out->len = r->chunk - in_chunk;
    return 0;
}
