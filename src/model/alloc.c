/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/alloc.c - the extent allocator (alloc.h): free maps, placement of new
 * extents, appending the result to an LV.
 *
 * Placement rules, learnt by experiment with LVM2 2.03.16 on loop devices
 * (lvcreate/lvextend/lvremove sequences, reading `lvs --segments` and
 * `pvs --segments`; the cases are replayed in tests/unit/test_alloc.c):
 *
 *  - "Candidates" are the allowed PVs in order: the PV list of the command in the
 *    order given (a PV with ranges offers only the free extents inside them), else
 *    all allocatable PVs in VG order.  A free "area" is a maximal free run.
 *  - Allocation goes piece by piece.  A piece is one new segment: k areas (one per
 *    stripe), all of the same length.  For every piece the steps below are tried in
 *    this order and the first that succeeds gives the piece:
 *
 *    1. contiguous: every stripe continues right after the matching stripe of the
 *       LV's LAST segment (or the previous piece), on the same PV; length = the
 *       shortest free run found there.  Only when the stripe counts match.
 *    2. cling: stripe j goes to the PV of stripe j of the LV's FIRST segment (for a
 *       new LV: of its first piece), on that PV's largest free area (lowest PE on a
 *       tie, not the best fit: only the first piece of a new LV is a best fit).  Used only when the LV's last segment has the same
 *       stripe count, and only if every stripe finds space (else the step fails
 *       as a whole).  Surprising but observed: an LV on B, D, C (in LE order) is
 *       extended on B, not on C; `--alloc cling` fails when B is full even if C
 *       and D have room; a linear extension of an LV whose last segment is
 *       striped ignores the PVs of the LV altogether.
 *    3. normal: each candidate PV with free space proposes one area: the smallest
 *       area that holds the whole remaining per-stripe need (best fit, lowest PE on
 *       a tie), else its largest area.  A proposal is worth min(area, need).  The
 *       k proposals worth most are taken, ties going to the earlier candidate (so
 *       when several PVs can hold everything the first in order wins, not the
 *       tightest); stripe j = j-th taken.  Length = the smallest worth.  Two
 *       stripes of a piece never share a PV.
 *    4. anywhere (policy anywhere only, after normal failed): stripes may share a
 *       PV.  Every free area is offered (candidates in order, a PV's areas largest
 *       first), sorted by worth (stable); stripes take one offer each in that
 *       order.  Only when there are fewer areas than stripes is an area cut again
 *       for another stripe (its next `need` extents).
 *
 *    Policy contiguous: step 1 only when extending; a new LV needs k areas that
 *    each hold the whole per-stripe need, chosen as in step 3 (best fit on each PV,
 *    the first k PVs in order that have one).  Policy cling: steps 1 and 2 only;
 *    the first piece of a new LV is placed by step 3.  (LVM2 2.03.16 places a new
 *    LV the same way under normal, contiguous and cling: e.g. free areas of 10, 20
 *    and 2 extents on one PV take a 2-extent LV in the 2-extent area under all
 *    three.)  Policy normal: steps 1-3.
 *    Policy anywhere: steps 1-4.  No piece found -> the whole request fails.
 *  - Errors, worded as LVM2: more stripes than candidate PVs (not for anywhere):
 *    "Number of stripes (4) must not exceed number of physical volumes (3)";
 *    fewer free extents than needed: "Volume group "vg" has insufficient free
 *    space (M extents): N required." without a PV list, "Insufficient free space:
 *    N extents needed, but only M available" with one; placement impossible:
 *    "Insufficient suitable [contiguous ]allocatable extents for logical volume
 *    LV: R more required" (R = extents still missing when it stopped).
 *
 * Costs: free maps O(A log A) for A areas; a piece costs O(free runs of the
 * candidates + k x candidates); nothing loops over PVs x LVs.
 */
#include "model/alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Sorted run lists                                                           */

/* Index of the run containing pe, or -1. */
static long run_find(const struct lvx_pv_free *f, uint64_t pe)
{
    unsigned lo = 0, hi = f->run_count;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        const struct lvx_pe_run *r = &f->runs[mid];
        if (pe < r->start)
            hi = mid;
        else if (pe >= r->start + r->count)
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}

static void run_insert_at(struct lvx_pool *pool, struct lvx_pv_free *f, unsigned idx,
                          struct lvx_pe_run run)
{
    if (f->run_count == f->run_cap) {
        unsigned cap = f->run_cap ? 2 * f->run_cap : 4;
        f->runs = lvx_pool_realloc(pool, f->runs, f->run_cap * sizeof(*f->runs),
                                   cap * sizeof(*f->runs));
        f->run_cap = cap;
    }
    memmove(&f->runs[idx + 1], &f->runs[idx], (f->run_count - idx) * sizeof(*f->runs));
    f->runs[idx] = run;
    f->run_count++;
}

static void run_remove_at(struct lvx_pv_free *f, unsigned idx)
{
    memmove(&f->runs[idx], &f->runs[idx + 1], (f->run_count - idx - 1) * sizeof(*f->runs));
    f->run_count--;
}

/* Mark [start, start+len) used; it must lie inside one free run. */
static void free_take(struct lvx_pool *pool, struct lvx_pv_free *f, uint64_t start, uint64_t len)
{
    long i = run_find(f, start);
    if (i < 0 || len == 0)
        return;
    struct lvx_pe_run *r = &f->runs[i];
    uint64_t end = start + len, r_end = r->start + r->count;
    if (end > r_end)
        end = r_end;
    f->free_count -= end - start;
    if (start == r->start && end == r_end) {
        run_remove_at(f, (unsigned)i);
    } else if (start == r->start) {
        r->start = end;
        r->count = r_end - end;
    } else if (end == r_end) {
        r->count = start - r->start;
    } else {
        r->count = start - r->start;
        run_insert_at(pool, f, (unsigned)i + 1, (struct lvx_pe_run){ end, r_end - end });
    }
}

/* The run of one PV that LVM2 takes for `need` extents: its "smallest area that
 * is still big enough", found by a walk that is not a plain best fit.  LVM2 keeps a
 * PV's areas largest first (ties in PE order) and walks that list reserving `need`
 * from each big enough area it meets; the reservation moves the area down to where
 * its reduced size belongs and the walk goes on from its new successor (giving
 * the previous reservation back).  The walk therefore steps from an area of size s
 * to the largest area below s - need (strictly), and stops at the first one that
 * cannot hold need.  So free areas 67, 8 and 5 give 5 for need 1-2 but 8 for need
 * 3-8; areas 145 and 91 give 91 for need <= 53, 145 above (LVM2 2.03.16, measured;
 * tests/cli/t0640).  An area used up entirely leaves the list and the walk goes on
 * to its old successor, so of several areas of exactly `need` extents the last in
 * PE order is taken.  When no area holds need: the largest.  -1 if the PV has none.
 * Cost O(R log R) for R runs. */
struct sized_run {
    uint64_t count, start;
    unsigned index;
};

static int cmp_sized_run(const void *a, const void *b)
{
    const struct sized_run *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static long run_lvm_fit(struct lvx_pool *tmp, const struct lvx_pv_free *f, uint64_t need)
{
    unsigned n = f->run_count, fitting = 0;
    long largest = -1;
    for (unsigned i = 0; i < n; i++) {
        fitting += f->runs[i].count >= need;
        if (largest < 0 || f->runs[i].count > f->runs[largest].count)
            largest = i;
    }
    if (fitting <= 1)               /* the walk cannot go past the largest area */
        return largest;
    struct sized_run *s = lvx_pool_alloc(tmp, n * sizeof(*s));
    for (unsigned i = 0; i < n; i++)
        s[i] = (struct sized_run){ f->runs[i].count, f->runs[i].start, i };
    qsort(s, n, sizeof(*s), cmp_sized_run);
    unsigned cur = 0;
    if (s[0].count < need)
        return s[0].index;
    for (;;) {
        uint64_t below = s[cur].count - need;     /* the next area is smaller than this */
        unsigned lo = cur + 1, hi = below ? n : cur + 1;
        while (lo < hi) {                         /* first area below `below` */
            unsigned mid = lo + (hi - lo) / 2;
            if (s[mid].count < below)
                hi = mid;
            else
                lo = mid + 1;
        }
        if (lo == n || s[lo].count < need)
            return s[cur].index;
        cur = lo;
    }
}

/* Largest run (lowest start on a tie) other than `skip`; -1 if none. */
static long run_largest(const struct lvx_pv_free *f, long skip)
{
    long big = -1;
    for (unsigned i = 0; i < f->run_count; i++)
        if ((long)i != skip && (big < 0 || f->runs[i].count > f->runs[big].count))
            big = i;
    return big;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* ------------------------------------------------------------------------- */
/* Free maps                                                                  */

static bool pv_in_vg(const struct lvx_vg *vg, const struct lvx_pv *pv)
{
    return pv && pv->index < vg->pv_count && vg->pvs[pv->index] == pv;
}

static int cmp_run_start(const void *a, const void *b)
{
    const struct lvx_pe_run *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* used: the PV's used runs sorted by start -> free runs of f. */
/* Extents of pv lying wholly on its device as last seen (ondisk.dev_bytes), or
 * UINT64_MAX when unknown.  Smaller than pe_count when the device shrank below the PV
 * size (meta/assemble.c warns as LVM2). */
static uint64_t extents_on_device(const struct lvx_pv *pv)
{
    uint64_t dev = pv->ondisk.dev_bytes / 512;
    uint32_t e = pv->vg ? pv->vg->extent_size : 0;
    if (!pv->ondisk.present || !dev || !e)
        return UINT64_MAX;
    return dev > pv->pe_start ? (dev - pv->pe_start) / e : 0;
}

/* Take the free extents past the device's end out of f's runs (into f->past_end).
 * Deliberately safer than LVM2, whose allocator places them (writes there fail). */
static void trim_past_device(struct lvx_pv_free *f)
{
    uint64_t lim = extents_on_device(f->pv);
    for (unsigned i = 0; i < f->run_count; i++) {
        struct lvx_pe_run *r = &f->runs[i];
        if (r->start + r->count <= lim)
            continue;
        uint64_t keep = r->start < lim ? lim - r->start : 0;
        f->past_end += r->count - keep;
        r->count = keep;
    }
    while (f->run_count && f->runs[f->run_count - 1].count == 0)   /* sorted: at the end */
        f->run_count--;
}

static int complement_runs(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_pv_free *f,
                           const struct lvx_pe_run *used, unsigned n)
{
    uint64_t pos = 0, end = f->pv->pe_count;
    for (unsigned i = 0; i < n; i++) {
        if (used[i].start < pos)
            return lvx_error(ctx, EINVAL, "PV pv%u: extent %llu is used twice", f->pv->index,
                             (unsigned long long)used[i].start);
        if (used[i].start + used[i].count > end)
            return lvx_error(ctx, EINVAL, "PV pv%u: extents %llu-%llu are beyond pe_count %u",
                             f->pv->index, (unsigned long long)used[i].start,
                             (unsigned long long)(used[i].start + used[i].count - 1),
                             f->pv->pe_count);
        if (used[i].start > pos)
            run_insert_at(pool, f, f->run_count,
                          (struct lvx_pe_run){ pos, used[i].start - pos });
        pos = used[i].start + used[i].count;
    }
    if (pos < end)
        run_insert_at(pool, f, f->run_count, (struct lvx_pe_run){ pos, end - pos });
    trim_past_device(f);
    for (unsigned i = 0; i < f->run_count; i++)
        f->free_count += f->runs[i].count;
    return 0;
}

/* Count (fill == NULL) or collect the PV areas of every segment into per-PV slots. */
static int walk_pv_areas(struct lvx_ctx *ctx, const struct lvx_vg *vg, unsigned *pos,
                         struct lvx_pe_run *fill)
{
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *lv = vg->lvs[l];
        for (unsigned s = 0; s < lv->seg_count; s++) {
            const struct lvx_seg *seg = &lv->segs[s];
            uint64_t len = lvx_seg_area_len(seg);
            for (uint32_t a = 0; a < seg->area_count; a++) {
                const struct lvx_pv *pv = seg->areas[a].pv;
                if (!pv || len == 0)
                    continue;
                if (!pv_in_vg(vg, pv))
                    return lvx_error(ctx, EINVAL, "LV %s uses a PV outside VG %s",
                                     lv->name ? lv->name : "?", vg->name ? vg->name : "?");
                if (fill)
                    fill[pos[pv->index]] = (struct lvx_pe_run){ seg->areas[a].start, len };
                pos[pv->index]++;
            }
        }
    }
    return 0;
}

int lvx_alloc_free_maps(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_vg *vg,
                        struct lvx_free_maps **out)
{
    unsigned n = vg->pv_count;
    unsigned *first = lvx_xcalloc((size_t)n + 1, sizeof(*first));
    unsigned *pos = lvx_xcalloc((size_t)n + 1, sizeof(*pos));
    struct lvx_pe_run *used = NULL;
    int r = walk_pv_areas(ctx, vg, pos, NULL);

    *out = NULL;
    if (r == 0) {
        for (unsigned i = 0; i < n; i++) {       /* counts -> start offsets */
            first[i + 1] = first[i] + pos[i];
            pos[i] = first[i];
        }
        used = lvx_xmalloc(((size_t)first[n] + 1) * sizeof(*used));
        r = walk_pv_areas(ctx, vg, pos, used);
    }
    struct lvx_free_maps *m = lvx_pool_alloc(pool, sizeof(*m));
    m->vg = vg;
    m->pool = pool;
    m->pv_count = n;
    m->pvs = lvx_pool_alloc(pool, (size_t)n * sizeof(*m->pvs) + 1);
    for (unsigned i = 0; r == 0 && i < n; i++) {
        struct lvx_pv_free *f = &m->pvs[i];
        unsigned cnt = first[i + 1] - first[i];
        f->pv = vg->pvs[i];
        f->usable = (f->pv->status & LVX_PV_ALLOCATABLE) && !(f->pv->flags & LVX_PVF_MISSING);
        if (cnt > 1)
            qsort(used + first[i], cnt, sizeof(*used), cmp_run_start);
        r = complement_runs(ctx, pool, f, used + first[i], cnt);
    }
    free(first);
    free(pos);
    free(used);
    if (r == 0)
        *out = m;
    return r;
}

uint64_t lvx_alloc_pv_free(const struct lvx_free_maps *maps, const struct lvx_pv *pv)
{
    if (!maps || !pv_in_vg(maps->vg, pv) || pv->index >= maps->pv_count)
        return 0;
    return maps->pvs[pv->index].free_count;
}

/* ------------------------------------------------------------------------- */
/* Working state of one allocation                                            */

struct cand {
    struct lvx_pv_free f;      /* allowed free runs of this PV (copy, in w->tmp) */
};

/* A reference segment (LV's first/last segment or an earlier piece). */
struct ref {
    bool valid;
    uint32_t k;
    struct lvx_pv **pv;
    uint64_t *start;
    uint64_t len;              /* PEs of each area */
};

/* A piece: one area per stripe, all `len` long. */
struct pick {
    uint64_t len;
    struct cand **c;
    uint64_t *start;
};

struct work {
    struct lvx_ctx *ctx;
    struct lvx_pool *tmp;
    struct lvx_free_maps *maps;
    const struct lvx_alloc_request *req;
    uint32_t k;
    unsigned ncand;
    struct cand *cands;        /* in candidate order */
    struct cand **by_pv;       /* pv->index -> candidate or NULL */
    uint64_t total_free;
    unsigned npieces, piece_cap;
    struct pick *pieces;
};

static struct pick new_pick(struct work *w)
{
    struct pick p = { 0, NULL, NULL };
    p.c = lvx_pool_alloc(w->tmp, w->k * sizeof(*p.c));
    p.start = lvx_pool_alloc(w->tmp, w->k * sizeof(*p.start));
    return p;
}

static struct cand *cand_of(const struct work *w, const struct lvx_pv *pv)
{
    if (!pv_in_vg(w->maps->vg, pv))
        return NULL;
    return w->by_pv[pv->index];
}

/* Add the allowed part of one PV's free runs (all of it when nranges is 0). */
static void cand_add_runs(struct work *w, struct cand *c, const struct lvx_pv_free *src,
                          unsigned nranges, const struct lvx_pe_run *ranges)
{
    if (nranges == 0 && c->f.run_count == 0) {
        c->f.run_cap = src->run_count;
        c->f.run_count = src->run_count;
        c->f.runs = lvx_pool_alloc(w->tmp, (src->run_count + 1) * sizeof(*c->f.runs));
        if (src->run_count)
            memcpy(c->f.runs, src->runs, src->run_count * sizeof(*c->f.runs));
        return;
    }
    if (nranges == 0) {
        for (unsigned i = 0; i < src->run_count; i++)
            run_insert_at(w->tmp, &c->f, c->f.run_count, src->runs[i]);
        return;
    }
    for (unsigned r = 0; r < nranges; r++) {
        uint64_t lo = ranges[r].start, hi = ranges[r].start + ranges[r].count;
        for (unsigned i = 0; i < src->run_count; i++) {
            uint64_t s = src->runs[i].start, e = s + src->runs[i].count;
            if (e <= lo || s >= hi)
                continue;
            run_insert_at(w->tmp, &c->f, c->f.run_count,
                          (struct lvx_pe_run){ s > lo ? s : lo, (e < hi ? e : hi) - (s > lo ? s : lo) });
        }
    }
}

/* Sort a candidate's runs and merge adjacent ones (ranges of one PV may touch). */
static void cand_normalize(struct cand *c)
{
    struct lvx_pv_free *f = &c->f;
    unsigned out = 0;
    if (f->run_count > 1)
        qsort(f->runs, f->run_count, sizeof(*f->runs), cmp_run_start);
    for (unsigned i = 0; i < f->run_count; i++) {
        if (out > 0 && f->runs[out - 1].start + f->runs[out - 1].count >= f->runs[i].start) {
            uint64_t e = f->runs[i].start + f->runs[i].count;
            uint64_t pe = f->runs[out - 1].start + f->runs[out - 1].count;
            if (e > pe)
                f->runs[out - 1].count = e - f->runs[out - 1].start;
        } else {
            f->runs[out++] = f->runs[i];
        }
    }
    f->run_count = out;
    f->free_count = 0;
    for (unsigned i = 0; i < out; i++)
        f->free_count += f->runs[i].count;
}

static struct cand *cand_get(struct work *w, struct lvx_pv *pv)
{
    struct cand *c = w->by_pv[pv->index];
    if (!c) {
        c = &w->cands[w->ncand++];
        c->f.pv = pv;
        c->f.usable = true;
        w->by_pv[pv->index] = c;
    }
    return c;
}

static const char *pv_label(struct work *w, const struct lvx_pv *pv)
{
    if (pv->ondisk.dev_name)
        return pv->ondisk.dev_name;
    return lvx_pool_printf(w->tmp, "pv%u", pv->index);
}

static bool runs_overlap(const struct lvx_pe_run *a, const struct lvx_pe_run *b)
{
    return a->start < b->start + b->count && b->start < a->start + a->count;
}

/* Ranges must lie inside the PV and, like LVM2, must not overlap earlier ranges
 * given for the same PV (entry i against entries 0..i). */
static int check_ranges(struct work *w, unsigned i)
{
    const struct lvx_alloc_pv *ap = &w->req->pvs[i];
    for (unsigned r = 0; r < ap->range_count; r++) {
        const struct lvx_pe_run *rg = &ap->ranges[r];
        if (rg->count == 0 || rg->start + rg->count > ap->pv->pe_count)
            return lvx_error(w->ctx, EINVAL, "PE range %llu-%llu of PV pv%u is outside 0-%u",
                             (unsigned long long)rg->start,
                             (unsigned long long)(rg->start + rg->count - (rg->count ? 1 : 0)),
                             ap->pv->index, ap->pv->pe_count ? ap->pv->pe_count - 1 : 0);
        for (unsigned h = 0; h <= i; h++) {
            const struct lvx_alloc_pv *prev = &w->req->pvs[h];
            unsigned upto = h == i ? r : prev->range_count;
            if (prev->pv != ap->pv)
                continue;
            for (unsigned q = 0; q < upto; q++)
                if (runs_overlap(rg, &prev->ranges[q]))
                    return lvx_error(w->ctx, EINVAL, "Overlapping PE ranges specified "
                                     "(%llu-%llu, %llu-%llu) on %s",
                                     (unsigned long long)rg->start,
                                     (unsigned long long)(rg->start + rg->count - 1),
                                     (unsigned long long)prev->ranges[q].start,
                                     (unsigned long long)(prev->ranges[q].start +
                                                          prev->ranges[q].count - 1),
                                     pv_label(w, ap->pv));
        }
    }
    return 0;
}

static int build_candidates(struct work *w)
{
    const struct lvx_alloc_request *req = w->req;
    const struct lvx_vg *vg = w->maps->vg;
    unsigned max = req->pv_count ? req->pv_count : vg->pv_count;

    w->cands = lvx_pool_alloc(w->tmp, ((size_t)max + 1) * sizeof(*w->cands));
    w->by_pv = lvx_pool_alloc(w->tmp, ((size_t)vg->pv_count + 1) * sizeof(*w->by_pv));
    if (!req->pv_count) {
        for (unsigned i = 0; i < vg->pv_count; i++)
            if (w->maps->pvs[i].usable)
                cand_add_runs(w, cand_get(w, vg->pvs[i]), &w->maps->pvs[i], 0, NULL);
    } else {
        for (unsigned i = 0; i < req->pv_count; i++) {
            const struct lvx_alloc_pv *ap = &req->pvs[i];
            int r;
            if (!pv_in_vg(vg, ap->pv))
                return lvx_error(w->ctx, EINVAL, "Physical volume %u of the list is not in VG %s",
                                 i, vg->name ? vg->name : "?");
            if ((r = check_ranges(w, i)) < 0)
                return r;
            if (!w->maps->pvs[ap->pv->index].usable)
                continue;
            cand_add_runs(w, cand_get(w, ap->pv), &w->maps->pvs[ap->pv->index],
                          ap->range_count, ap->ranges);
        }
    }
    for (unsigned i = 0; i < w->ncand; i++) {
        cand_normalize(&w->cands[i]);
        w->total_free += w->cands[i].f.free_count;
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* References: the LV's segments and earlier pieces                           */

static bool ref_from_seg(struct work *w, const struct lvx_seg *seg, struct ref *ref)
{
    ref->valid = false;
    if (!seg || seg->kind != LVX_SEG_STRIPED || seg->area_count == 0 || seg->stripe_count == 0)
        return false;
    for (uint32_t a = 0; a < seg->area_count; a++)
        if (!seg->areas[a].pv)
            return false;
    ref->k = seg->area_count;
    ref->pv = lvx_pool_alloc(w->tmp, ref->k * sizeof(*ref->pv));
    ref->start = lvx_pool_alloc(w->tmp, ref->k * sizeof(*ref->start));
    for (uint32_t a = 0; a < ref->k; a++) {
        ref->pv[a] = seg->areas[a].pv;
        ref->start[a] = seg->areas[a].start;
    }
    ref->len = seg->extent_count / seg->stripe_count;
    ref->valid = true;
    return true;
}

static void ref_from_pick(struct work *w, const struct pick *p, struct ref *ref)
{
    ref->k = w->k;
    ref->pv = lvx_pool_alloc(w->tmp, w->k * sizeof(*ref->pv));
    ref->start = lvx_pool_alloc(w->tmp, w->k * sizeof(*ref->start));
    for (uint32_t j = 0; j < w->k; j++) {
        ref->pv[j] = p->c[j]->f.pv;
        ref->start[j] = p->start[j];
    }
    ref->len = p->len;
    ref->valid = true;
}

/* Two stripes of one piece on the same PV (anywhere/odd references) must not overlap. */
static void clip_overlaps(struct work *w, struct pick *p)
{
    for (uint32_t a = 0; a < w->k; a++)
        for (uint32_t b = 0; b < w->k; b++)
            if (a != b && p->c[a] == p->c[b] && p->start[a] < p->start[b] &&
                p->start[a] + p->len > p->start[b])
                p->len = p->start[b] - p->start[a];
}

/* ------------------------------------------------------------------------- */
/* The steps                                                                  */

static bool step_contiguous(struct work *w, const struct ref *ref, uint64_t need, struct pick *p)
{
    if (!ref->valid || ref->k != w->k)
        return false;
    p->len = need;
    for (uint32_t j = 0; j < w->k; j++) {
        struct cand *c = cand_of(w, ref->pv[j]);
        uint64_t pe = ref->start[j] + ref->len;
        long i = c ? run_find(&c->f, pe) : -1;
        if (i < 0)
            return false;
        p->c[j] = c;
        p->start[j] = pe;
        p->len = min_u64(p->len, c->f.runs[i].start + c->f.runs[i].count - pe);
    }
    clip_overlaps(w, p);
    return p->len > 0;
}

static bool step_cling(struct work *w, const struct ref *ref, uint64_t need, struct pick *p)
{
    if (!ref->valid)
        return false;
    p->len = need;
    for (uint32_t j = 0; j < w->k; j++) {
        struct cand *c = j < ref->k ? cand_of(w, ref->pv[j]) : NULL;
        long skip = -1;
        if (!c)
            return false;
        for (uint32_t e = 0; e < j; e++)      /* a PV named twice: use another area */
            if (p->c[e] == c)
                skip = run_find(&c->f, p->start[e]);
        long i = run_largest(&c->f, skip);
        if (i < 0)
            return false;
        p->c[j] = c;
        p->start[j] = c->f.runs[i].start;
        p->len = min_u64(p->len, c->f.runs[i].count);
    }
    clip_overlaps(w, p);
    return p->len > 0;
}

/* Step 3 (best_fit) and the first piece of a cling allocation (largest areas). */
static bool step_normal(struct work *w, uint64_t need, bool best_fit, struct pick *p)
{
    unsigned n = 0;
    long *run = lvx_pool_alloc(w->tmp, ((size_t)w->ncand + 1) * sizeof(*run));
    bool *taken = lvx_pool_alloc(w->tmp, (size_t)w->ncand + 1);

    for (unsigned i = 0; i < w->ncand; i++) {
        struct cand *c = &w->cands[i];
        run[i] = c->f.free_count ? (best_fit ? run_lvm_fit(w->tmp, &c->f, need) : run_largest(&c->f, -1))
                                 : -1;
        n += run[i] >= 0;
    }
    if (n < w->k)
        return false;
    p->len = need;
    for (uint32_t j = 0; j < w->k; j++) {
        long best = -1;
        uint64_t best_worth = 0;
        for (unsigned i = 0; i < w->ncand; i++) {
            if (run[i] < 0 || taken[i])
                continue;
            uint64_t worth = min_u64(w->cands[i].f.runs[run[i]].count, need);
            if (best < 0 || worth > best_worth) {
                best = i;
                best_worth = worth;
            }
        }
        taken[best] = true;
        p->c[j] = &w->cands[best];
        p->start[j] = w->cands[best].f.runs[run[best]].start;
        p->len = min_u64(p->len, best_worth);
    }
    return true;
}

/* Policy contiguous, new LV: the first k PVs with an area holding the whole need,
 * each on its best fit. */
static bool step_whole(struct work *w, uint64_t need, struct pick *p)
{
    uint32_t j = 0;
    for (unsigned i = 0; i < w->ncand && j < w->k; i++) {
        long r = w->cands[i].f.free_count ? run_lvm_fit(w->tmp, &w->cands[i].f, need) : -1;
        if (r < 0 || w->cands[i].f.runs[r].count < need)
            continue;
        p->c[j] = &w->cands[i];
        p->start[j++] = w->cands[i].f.runs[r].start;
    }
    p->len = need;
    return j == w->k;
}

/* An area offered to the anywhere step. */
struct offer {
    uint64_t worth;
    unsigned cand;
    uint64_t start, count;
    uint64_t used;             /* handed out to stripes of this piece so far */
};

/* Worth first, then candidate order, then larger area, then lower PE. */
static int cmp_offer(const void *a, const void *b)
{
    const struct offer *x = a, *y = b;
    if (x->worth != y->worth)
        return x->worth > y->worth ? -1 : 1;
    if (x->cand != y->cand)
        return x->cand < y->cand ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Every free area gives one stripe per round, in offer order; areas are cut again
 * (next round) only when there are fewer areas than stripes. */
static bool step_anywhere(struct work *w, uint64_t need, struct pick *p)
{
    size_t n = 0;
    for (unsigned i = 0; i < w->ncand; i++)
        n += w->cands[i].f.run_count;
    if (n == 0)
        return false;
    struct offer *o = lvx_pool_alloc(w->tmp, n * sizeof(*o));
    n = 0;
    for (unsigned i = 0; i < w->ncand; i++)
        for (unsigned r = 0; r < w->cands[i].f.run_count; r++) {
            const struct lvx_pe_run *run = &w->cands[i].f.runs[r];
            o[n++] = (struct offer){ min_u64(run->count, need), i, run->start, run->count, 0 };
        }
    qsort(o, n, sizeof(*o), cmp_offer);

    uint32_t j = 0;
    p->len = need;
    while (j < w->k) {
        uint32_t before = j;
        for (size_t i = 0; i < n && j < w->k; i++) {
            if (o[i].used >= o[i].count)
                continue;
            uint64_t chunk = min_u64(o[i].count - o[i].used, need);
            p->c[j] = &w->cands[o[i].cand];
            p->start[j++] = o[i].start + o[i].used;
            o[i].used += chunk;
            p->len = min_u64(p->len, chunk);
        }
        if (j == before)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------------- */
/* The piece loop                                                             */

static void commit_pick(struct work *w, const struct pick *p)
{
    for (uint32_t j = 0; j < w->k; j++)
        free_take(w->tmp, &p->c[j]->f, p->start[j], p->len);
    if (w->npieces == w->piece_cap) {
        unsigned cap = w->piece_cap ? 2 * w->piece_cap : 8;
        w->pieces = lvx_pool_realloc(w->tmp, w->pieces, w->piece_cap * sizeof(*w->pieces),
                                     cap * sizeof(*w->pieces));
        w->piece_cap = cap;
    }
    w->pieces[w->npieces++] = *p;
}

static const char *lv_name_of(const struct lvx_alloc_request *req)
{
    if (req->lv && req->lv->name)
        return req->lv->name;
    return req->lv_name ? req->lv_name : "(new)";
}

static int fail_placement(struct work *w, bool contiguous, uint64_t need)
{
    return lvx_error(w->ctx, ENOSPC,
                     "Insufficient suitable %sallocatable extents for logical volume %s: "
                     "%llu more required", contiguous ? "contiguous " : "",
                     lv_name_of(w->req), (unsigned long long)(need * w->k));
}

/* References from the LV being extended: contiguous to its last segment, cling to
 * its first one, the latter only when the last one has the requested stripe count. */
static void lv_references(struct work *w, struct ref *cont, struct ref *cling)
{
    const struct lvx_lv *lv = w->req->lv;
    cont->valid = cling->valid = false;
    if (!lv || lv->seg_count == 0)
        return;
    const struct lvx_seg *last = &lv->segs[lv->seg_count - 1];
    if (!ref_from_seg(w, last, cont) || cont->k != w->k) {
        cont->valid = false;
        return;
    }
    ref_from_seg(w, &lv->segs[0], cling);
}

static int place(struct work *w)
{
    enum lvx_alloc policy = w->req->policy;
    uint64_t need = w->req->extents / w->k;
    struct ref cont, cling;

    lv_references(w, &cont, &cling);
    bool cling_to_lv = cling.valid;
    while (need > 0) {
        struct pick p = new_pick(w);
        bool got = step_contiguous(w, &cont, need, &p);
        if (!got && policy == LVX_ALLOC_CONTIGUOUS) {
            if (!cont.valid && w->npieces == 0)
                got = step_whole(w, need, &p);
            if (!got)
                return fail_placement(w, true, need);
        }
        if (!got)
            got = step_cling(w, &cling, need, &p);
        if (!got && policy == LVX_ALLOC_CLING) {
            if (!cling.valid && w->npieces == 0)
                got = step_normal(w, need, true, &p);
            if (!got)
                return fail_placement(w, false, need);
        }
        if (!got)
            got = step_normal(w, need, true, &p);
        if (!got && policy == LVX_ALLOC_ANYWHERE)
            got = step_anywhere(w, need, &p);
        if (!got)
            return fail_placement(w, false, need);
        commit_pick(w, &p);
        need -= p.len;
        ref_from_pick(w, &p, &cont);
        if (!cling_to_lv)            /* a new LV clings to its latest piece (LVM2) */
            ref_from_pick(w, &p, &cling);
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Entry points                                                               */

static bool is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

static int check_request(struct lvx_ctx *ctx, const struct lvx_vg *vg,
                         const struct lvx_alloc_request *req)
{
    if (req->extents == 0)
        return lvx_error(ctx, EINVAL, "Number of extents to allocate must be positive");
    if (req->stripes == 0)
        return lvx_error(ctx, EINVAL, "Number of stripes must be at least 1");
    if (req->extents % req->stripes)
        return lvx_error(ctx, EINVAL, "Extent count %llu is not a multiple of the number of "
                         "stripes (%u)", (unsigned long long)req->extents, req->stripes);
    if (req->stripes > 1 && (!is_pow2(req->stripe_size) || req->stripe_size < 8))
        return lvx_error(ctx, EINVAL, "Invalid stripe size %u sectors: must be a power of two "
                         "of at least 8 sectors (4 KiB)", req->stripe_size);
    if (req->stripes > 1 && req->stripe_size > vg->extent_size)
        return lvx_error(ctx, EINVAL, "Stripe size %u sectors exceeds the extent size %u sectors",
                         req->stripe_size, vg->extent_size);
    switch (req->policy) {
    case LVX_ALLOC_CONTIGUOUS:
    case LVX_ALLOC_CLING:
    case LVX_ALLOC_CLING_BY_TAGS:
    case LVX_ALLOC_NORMAL:
    case LVX_ALLOC_ANYWHERE:
        break;
    default:
        return lvx_error(ctx, EINVAL, "Allocation policy %s cannot be used to allocate",
                         lvx_alloc_name(req->policy));
    }
    if (req->pv_count && !req->pvs)
        return lvx_error(ctx, EINVAL, "PV list missing");
    return 0;
}

static int check_space(struct work *w)
{
    const struct lvx_alloc_request *req = w->req;
    if (req->policy != LVX_ALLOC_ANYWHERE && req->stripes > w->ncand)
        return lvx_error(w->ctx, EINVAL, "Number of stripes (%u) must not exceed number of "
                         "physical volumes (%u)", req->stripes, w->ncand);
    if (w->total_free >= req->extents)
        return 0;
    if (!req->pv_count)
        return lvx_error(w->ctx, ENOSPC, "Volume group \"%s\" has insufficient free space "
                         "(%llu extents): %llu required.", w->maps->vg->name ? w->maps->vg->name : "",
                         (unsigned long long)w->total_free, (unsigned long long)req->extents);
    return lvx_error(w->ctx, ENOSPC, "Insufficient free space: %llu extents needed, but only "
                     "%llu available", (unsigned long long)req->extents,
                     (unsigned long long)w->total_free);
}

static void build_result(struct work *w, struct lvx_pool *pool, struct lvx_alloc_result *out)
{
    const struct lvx_alloc_request *req = w->req;
    uint64_t le = req->lv ? req->lv->le_count : 0;

    out->seg_count = w->npieces;
    out->segs = lvx_pool_alloc(pool, ((size_t)w->npieces + 1) * sizeof(*out->segs));
    for (unsigned i = 0; i < w->npieces; i++) {
        const struct pick *p = &w->pieces[i];
        struct lvx_alloc_seg *s = &out->segs[i];
        s->start_extent = le;
        s->extent_count = p->len * w->k;
        s->stripe_count = w->k;
        s->stripe_size = w->k > 1 ? req->stripe_size : 0;
        s->areas = lvx_pool_alloc(pool, w->k * sizeof(*s->areas));
        for (uint32_t j = 0; j < w->k; j++) {
            s->areas[j].pv = p->c[j]->f.pv;
            s->areas[j].start = p->start[j];
            free_take(w->maps->pool, &w->maps->pvs[s->areas[j].pv->index], p->start[j], p->len);
        }
        le += s->extent_count;
    }
}

int lvx_alloc_extents(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_free_maps *maps,
                      const struct lvx_alloc_request *req, struct lvx_alloc_result *out)
{
    int r;
    out->seg_count = 0;
    out->segs = NULL;
    if (!maps || !maps->vg)
        return lvx_error(ctx, EINVAL, "No free maps given to the allocator");
    if ((r = check_request(ctx, maps->vg, req)) < 0)
        return r;
    if (req->lv && req->lv->vg != maps->vg)
        return lvx_error(ctx, EINVAL, "LV %s is not in VG %s", lv_name_of(req),
                         maps->vg->name ? maps->vg->name : "?");

    struct work w = { .ctx = ctx, .maps = maps, .req = req, .k = req->stripes };
    w.tmp = lvx_pool_create();
    if ((r = build_candidates(&w)) == 0 && (r = check_space(&w)) == 0 &&
        (r = place(&w)) == 0)
        build_result(&w, pool, out);
    lvx_pool_destroy(w.tmp);
    return r;
}

/* ------------------------------------------------------------------------- */
/* Appending to an LV                                                         */

static bool continues(const struct lvx_seg *last, const struct lvx_alloc_seg *s)
{
    if (last->kind != LVX_SEG_STRIPED || !last->type || strcmp(last->type, "striped") ||
        last->stripe_count != s->stripe_count || last->area_count != s->stripe_count ||
        last->tags.n || last->extra)
        return false;
    if (s->stripe_count > 1 && last->stripe_size != s->stripe_size)
        return false;
    if (last->start_extent + last->extent_count != s->start_extent)
        return false;
    uint64_t len = last->extent_count / last->stripe_count;
    for (uint32_t j = 0; j < s->stripe_count; j++)
        if (last->areas[j].pv != s->areas[j].pv || last->areas[j].lv ||
            last->areas[j].start + len != s->areas[j].start)
            return false;
    return true;
}

static void add_segment(struct lvx_lv *lv, const struct lvx_alloc_seg *s)
{
    struct lvx_pool *pool = lv->vg->pool;
    lv->segs = lvx_pool_realloc(pool, lv->segs, lv->seg_count * sizeof(*lv->segs),
                                (lv->seg_count + 1) * sizeof(*lv->segs));
    struct lvx_seg *seg = &lv->segs[lv->seg_count++];
    seg->lv = lv;
    seg->start_extent = s->start_extent;
    seg->extent_count = s->extent_count;
    seg->type = "striped";
    seg->type_name = "striped";
    seg->kind = LVX_SEG_STRIPED;
    seg->stripe_count = s->stripe_count;
    seg->stripe_size = s->stripe_count > 1 ? s->stripe_size : 0;
    seg->area_count = s->stripe_count;
    seg->areas = lvx_pool_alloc(pool, s->stripe_count * sizeof(*seg->areas));
    for (uint32_t j = 0; j < s->stripe_count; j++) {
        seg->areas[j].pv = s->areas[j].pv;
        seg->areas[j].start = s->areas[j].start;
    }
}

void lvx_alloc_append_virtual(struct lvx_lv *lv, enum lvx_seg_kind kind, uint64_t count)
{
    struct lvx_seg *last = lv->seg_count ? &lv->segs[lv->seg_count - 1] : NULL;
    if (last && last->kind == kind && !last->tags.n && !last->area_count) {
        last->extent_count += count;
    } else {
        struct lvx_pool *pool = lv->vg->pool;
        lv->segs = lvx_pool_realloc(pool, lv->segs, lv->seg_count * sizeof(*lv->segs),
                                    (lv->seg_count + 1) * sizeof(*lv->segs));
        struct lvx_seg *seg = &lv->segs[lv->seg_count++];
        memset(seg, 0, sizeof(*seg));
        seg->lv = lv;
        seg->start_extent = lv->le_count;
        seg->extent_count = count;
        seg->type = seg->type_name = kind == LVX_SEG_ZERO ? "zero" : "error";
        seg->kind = kind;
    }
    lv->le_count += count;
}

int lvx_alloc_append(struct lvx_ctx *ctx, struct lvx_lv *lv, const struct lvx_alloc_result *res)
{
    if (!lv || !lv->vg)
        return lvx_error(ctx, EINVAL, "No LV to append segments to");
    uint64_t le = lv->le_count;
    for (unsigned i = 0; i < res->seg_count; i++) {
        const struct lvx_alloc_seg *s = &res->segs[i];
        if (s->start_extent != le || !s->stripe_count || s->extent_count % s->stripe_count)
            return lvx_error(ctx, EINVAL, "Allocated segment %u does not continue LV %s at "
                             "extent %llu", i, lv->name ? lv->name : "?",
                             (unsigned long long)le);
        le += s->extent_count;
    }
    for (unsigned i = 0; i < res->seg_count; i++) {
        const struct lvx_alloc_seg *s = &res->segs[i];
        struct lvx_seg *last = lv->seg_count ? &lv->segs[lv->seg_count - 1] : NULL;
        if (last && continues(last, s))
            last->extent_count += s->extent_count;
        else
            add_segment(lv, s);
        lv->le_count += s->extent_count;
    }
    return 0;
}
