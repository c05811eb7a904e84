/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/pvmove.c - the pvmove layout of LVM2 2.03 in the model (see pvmove.h): the
 * pvmoveN layer over the moved areas, its mirror segments, the end of a move
 * (detach) and LVM2's merge of adjacent segments.  Segment arrays are rebuilt in
 * vg->pool when a segment is split (callers keep indices, never seg pointers, across
 * splits).
 */
#include "model/pvmove.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---- segments ----------------------------------------------------------------- */

/* Extents of each area of seg (striped: extent_count / stripes). */
static uint64_t area_len(const struct lvx_seg *seg)
{
    if (seg->kind == LVX_SEG_STRIPED && seg->area_count > 1)
        return seg->extent_count / seg->area_count;
    return seg->extent_count;
}

static struct lvx_area *copy_areas(struct lvx_pool *pool, const struct lvx_area *a, uint32_t n)
{
    struct lvx_area *c = lvx_pool_alloc(pool, (n ? n : 1) * sizeof(*c));
    if (n)
        memcpy(c, a, n * sizeof(*c));
    return c;
}

void lvx_lv_split_seg(struct lvx_lv *lv, unsigned i, uint64_t off)
{
    struct lvx_pool *pool = lv->vg->pool;
    struct lvx_seg *segs = lvx_pool_alloc(pool, (lv->seg_count + 1) * sizeof(*segs));
    memcpy(segs, lv->segs, (i + 1) * sizeof(*segs));
    memcpy(&segs[i + 2], &lv->segs[i + 1], (lv->seg_count - i - 1) * sizeof(*segs));
    struct lvx_seg *a = &segs[i], *b = &segs[i + 1];
    uint64_t area_off = off;
    if (a->kind == LVX_SEG_STRIPED && a->area_count > 1)
        area_off = off / a->area_count;
    *b = *a;
    b->areas = copy_areas(pool, a->areas, a->area_count);
    a->areas = copy_areas(pool, a->areas, a->area_count);
    for (uint32_t s = 0; s < b->area_count; s++)
        b->areas[s].start += area_off;
    b->start_extent = a->start_extent + off;
    b->extent_count = a->extent_count - off;
    a->extent_count = off;
    if (a->extents_moved > off) {
        b->extents_moved = a->extents_moved - off;
        a->extents_moved = off;
    } else {
        b->extents_moved = 0;
    }
    lv->segs = segs;
    lv->seg_count++;
}

/* Append an empty segment to lv covering [le_count, le_count + count). */
static struct lvx_seg *append_seg(struct lvx_lv *lv, uint64_t count)
{
    struct lvx_pool *pool = lv->vg->pool;
    struct lvx_seg *segs = lvx_pool_alloc(pool, (lv->seg_count + 1) * sizeof(*segs));
    if (lv->seg_count)
        memcpy(segs, lv->segs, lv->seg_count * sizeof(*segs));
    struct lvx_seg *s = &segs[lv->seg_count];
    memset(s, 0, sizeof(*s));
    s->lv = lv;
    s->start_extent = lv->le_count;
    s->extent_count = count;
    lv->segs = segs;
    lv->seg_count++;
    lv->le_count += count;
    for (unsigned k = 0; k < lv->seg_count; k++)
        lv->segs[k].lv = lv;
    return s;
}

static void make_linear(struct lvx_seg *s, struct lvx_pv *pv, struct lvx_lv *lv, uint64_t start)
{
    s->type = s->type_name = "striped";
    s->kind = LVX_SEG_STRIPED;
    s->stripe_count = 1;
    s->stripe_size = 0;
    s->area_count = 1;
    s->areas = lvx_pool_alloc(s->lv->vg->pool, sizeof(*s->areas));
    s->areas[0] = (struct lvx_area){ .pv = pv, .lv = lv, .start = start };
    s->raw = NULL;
    s->extra = NULL;
}

static bool tags_equal(const struct lvx_strlist *a, const struct lvx_strlist *b)
{
    if (a->n != b->n)
        return false;
    for (unsigned i = 0; i < a->n; i++)
        if (!lvx_strlist_has(b, a->v[i]))
            return false;
    return true;
}

/* LVM2's striped merge rule: same stripes and stripe size, every area on the same PV
 * right after the first one's, the same tags. */
static bool mergeable(const struct lvx_seg *x, const struct lvx_seg *y)
{
    if (x->kind != LVX_SEG_STRIPED || y->kind != LVX_SEG_STRIPED || x->raw || y->raw ||
        x->extra || y->extra || x->area_count != y->area_count ||
        x->stripe_size != y->stripe_size || !tags_equal(&x->tags, &y->tags))
        return false;
    uint64_t w = area_len(x);
    for (uint32_t s = 0; s < x->area_count; s++)
        if (!x->areas[s].pv || x->areas[s].pv != y->areas[s].pv ||
            x->areas[s].start + w != y->areas[s].start)
            return false;
    return true;
}

void lvx_lv_merge_segments(struct lvx_lv *lv)
{
    unsigned k = 0;
    for (unsigned i = 0; i < lv->seg_count; i++) {
        if (k && mergeable(&lv->segs[k - 1], &lv->segs[i])) {
            lv->segs[k - 1].extent_count += lv->segs[i].extent_count;
            continue;
        }
        if (k != i)
            lv->segs[k] = lv->segs[i];
        k++;
    }
    lv->seg_count = k;
}

/* ---- finding ------------------------------------------------------------------ */

bool lvx_pvmove_is_atomic(const struct lvx_lv *mv)
{
    return mv && mv->seg_count && mv->segs[0].kind == LVX_SEG_MIRROR &&
           mv->segs[0].area_count && mv->segs[0].areas[0].lv;
}

struct lvx_pv *lvx_pvmove_source(const struct lvx_lv *mv)
{
    if (!mv || !(mv->status & LVX_LV_PVMOVE) || !mv->seg_count ||
        mv->segs[0].kind != LVX_SEG_MIRROR || !mv->segs[0].area_count)
        return NULL;
    if (lvx_pvmove_is_atomic(mv)) {
        const struct lvx_lv *m0 = mv->segs[0].areas[0].lv;
        return m0->seg_count && m0->segs[0].area_count ? m0->segs[0].areas[0].pv : NULL;
    }
    return mv->segs[0].areas[0].pv;
}

struct lvx_lv *lvx_pvmove_find(const struct lvx_vg *vg, const struct lvx_pv *pv)
{
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_lv *lv = vg->lvs[i];
        if (!(lv->status & LVX_LV_PVMOVE))
            continue;
        if (!pv)
            return lv;
        if (lvx_pvmove_is_atomic(lv)) {
            if (lvx_pvmove_source(lv) == pv)
                return lv;
            continue;
        }
        for (unsigned s = 0; s < lv->seg_count; s++)
            if (lv->segs[s].area_count && lv->segs[s].areas[0].pv == pv)
                return lv;
    }
    return NULL;
}

uint64_t lvx_pvmove_copied(const struct lvx_lv *mv)
{
    uint64_t n = 0;
    for (unsigned s = 0; s < mv->seg_count; s++) {
        const struct lvx_seg *seg = &mv->segs[s];
        if (seg->kind == LVX_SEG_MIRROR && seg->area_count > 1)
            n += seg->extents_moved < seg->extent_count ? seg->extents_moved : seg->extent_count;
        else
            n += seg->extent_count;
    }
    return n;
}

bool lvx_pvmove_is_leftover(const struct lvx_vg *vg, const struct lvx_lv *lv)
{
    if (strncmp(lv->name, "pvmove", 6) || (lv->status & (LVX_LV_VISIBLE | LVX_LV_PVMOVE)) ||
        lv->seg_count != 1 || lv->segs[0].kind != LVX_SEG_ERROR)
        return false;
    for (unsigned i = 0; i < vg->lv_count; i++)
        for (unsigned s = 0; s < vg->lvs[i]->seg_count; s++)
            for (uint32_t a = 0; a < vg->lvs[i]->segs[s].area_count; a++)
                if (vg->lvs[i]->segs[s].areas[a].lv == lv)
                    return false;
    return true;
}

unsigned lvx_pvmove_users(const struct lvx_vg *vg, const struct lvx_lv *mv, struct lvx_lv **out)
{
    unsigned n = 0;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_lv *lv = vg->lvs[i];
        bool uses = false;
        for (unsigned s = 0; s < lv->seg_count && !uses; s++)
            for (uint32_t a = 0; a < lv->segs[s].area_count && !uses; a++)
                uses = lv->segs[s].areas[a].lv == mv;
        if (uses && lv != mv)
            out[n++] = lv;
    }
    return n;
}

/* ---- setup -------------------------------------------------------------------- */

static bool on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv)
{
    for (unsigned s = 0; s < lv->seg_count; s++)
        for (uint32_t a = 0; a < lv->segs[s].area_count; a++)
            if (lv->segs[s].areas[a].pv == pv)
                return true;
    return false;
}

static bool all_striped(const struct lvx_lv *lv)
{
    if (!lv->seg_count)
        return false;
    for (unsigned s = 0; s < lv->seg_count; s++)
        if (lv->segs[s].kind != LVX_SEG_STRIPED)
            return false;
    return true;
}

/* Split the segments of lv so that no area on pv crosses a boundary of a range. */
static void align_to_ranges(struct lvx_lv *lv, const struct lvx_alloc_pv *src)
{
    for (unsigned i = 0; i < lv->seg_count; i++) {
        for (uint32_t a = 0; a < lv->segs[i].area_count; a++) {
            for (unsigned r = 0; r < src->range_count; r++) {
                struct lvx_seg *seg = &lv->segs[i];
                if (seg->areas[a].pv != src->pv)
                    continue;
                uint64_t len = area_len(seg), mult = seg->extent_count / len;
                uint64_t ps = seg->areas[a].start, pe = ps + len - 1;
                uint64_t rs = src->ranges[r].start, re = rs + src->ranges[r].count - 1;
                if (pe < rs || ps > re)
                    continue;
                if (rs > ps) {
                    lvx_lv_split_seg(lv, i, (rs - ps) * mult);
                    seg = &lv->segs[i];
                    len = area_len(seg);
                    pe = ps + len - 1;
                }
                if (re < pe)
                    lvx_lv_split_seg(lv, i, (re - ps + 1) * mult);
            }
        }
    }
}

static bool in_ranges(const struct lvx_seg *seg, uint32_t a, const struct lvx_alloc_pv *src)
{
    if (seg->areas[a].pv != src->pv)
        return false;
    if (!src->range_count)
        return true;
    uint64_t ps = seg->areas[a].start, pe = ps + area_len(seg) - 1;
    for (unsigned r = 0; r < src->range_count; r++)
        if (ps >= src->ranges[r].start && pe < src->ranges[r].start + src->ranges[r].count)
            return true;
    return false;
}

/* Move lv's areas on the source into new segments of mv; extents moved. */
static uint64_t insert_layer(struct lvx_lv *lv, struct lvx_lv *mv, const struct lvx_alloc_pv *src)
{
    uint64_t before = mv->le_count;
    align_to_ranges(lv, src);
    for (unsigned i = 0; i < lv->seg_count; i++) {
        for (uint32_t a = 0; a < lv->segs[i].area_count; a++) {
            struct lvx_seg *seg = &lv->segs[i];
            if (!in_ranges(seg, a, src))
                continue;
            uint64_t len = area_len(seg);
            struct lvx_seg *ms = append_seg(mv, len);
            make_linear(ms, seg->areas[a].pv, NULL, seg->areas[a].start);
            seg->areas[a] = (struct lvx_area){ .lv = mv, .start = ms->start_extent };
        }
    }
    return mv->le_count - before;
}

/* Split the LV segments pointing at mv where mv's segments were split. */
static void split_parents(struct lvx_vg *vg, struct lvx_lv *mv)
{
    for (unsigned l = 0; l < vg->lv_count; l++) {
        struct lvx_lv *lv = vg->lvs[l];
        if (lv == mv)
            continue;
        for (unsigned i = 0; i < lv->seg_count; i++) {
            for (uint32_t a = 0; a < lv->segs[i].area_count; a++) {
                struct lvx_seg *seg = &lv->segs[i];
                if (seg->areas[a].lv != mv)
                    continue;
                uint64_t le = seg->areas[a].start, len = area_len(seg);
                uint64_t mult = seg->extent_count / len;
                for (unsigned m = 0; m < mv->seg_count; m++) {
                    const struct lvx_seg *ms = &mv->segs[m];
                    if (ms->start_extent > le && ms->start_extent < le + len) {
                        lvx_lv_split_seg(lv, i, (ms->start_extent - le) * mult);
                        break;   /* the rest is seen as segment i + 1 */
                    }
                }
            }
        }
    }
}

/* The other half of a RAID image pair named alone ("LV_rimage_N" <-> "LV_rmeta_N"), or
 * NULL: LVM2 lets a moved rimage/rmeta go beside its own pair (pvmove.c's siblings). */
static const struct lvx_lv *raid_sibling(const struct lvx_lv *named)
{
    const char *role = NULL;
    const struct lvx_seg *up = lvx_lv_used_by(named, &role);
    if (!up || up->kind != LVX_SEG_RAID || !role)
        return NULL;
    for (uint32_t i = 0; i < up->area_count; i++) {
        if (up->areas && up->areas[i].lv == named)
            return up->meta_areas ? up->meta_areas[i].lv : NULL;
        if (up->meta_areas && up->meta_areas[i].lv == named)
            return up->areas ? up->areas[i].lv : NULL;
    }
    return NULL;
}

/* For RAID and mirror LVs on the source: their other PVs are not destinations
 * (LVM2 keeps the images apart), unless the policy is anywhere.  With -n of a sub-LV
 * its top-level LV counts, and the PVs of the sub-LV's own rimage/rmeta pair stay. */
static unsigned trim_dst(const struct lvx_vg *vg, const struct lvx_pvmove_setup *s,
                         struct lvx_alloc_pv *dst, unsigned n)
{
    if (s->policy == LVX_ALLOC_ANYWHERE)
        return n;
    const struct lvx_lv *named = s->lv_name ? lvx_vg_find_lv(vg, s->lv_name) : NULL;
    const struct lvx_lv *sibling = named ? raid_sibling(named) : NULL;
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *lv = vg->lvs[l];
        if (lvx_lv_used_by(lv, &(const char *){ NULL }) || !lv->seg_count ||
            (lv->segs[0].kind != LVX_SEG_RAID && lv->segs[0].kind != LVX_SEG_MIRROR))
            continue;
        if (s->lv_name && (!named || lvx_lv_top(named) != lv))
            continue;
        /* the PVs under lv's sub-LVs */
        bool touches = false;
        for (unsigned k = 0; k < vg->lv_count; k++)
            if (lvx_lv_top(vg->lvs[k]) == lv && on_pv(vg->lvs[k], s->src->pv))
                touches = true;
        if (!touches)
            continue;
        unsigned m = 0;
        for (unsigned d = 0; d < n; d++) {
            bool used = false;
            for (unsigned k = 0; k < vg->lv_count && !used; k++)
                used = lvx_lv_top(vg->lvs[k]) == lv && on_pv(vg->lvs[k], dst[d].pv);
            if (!used || (sibling && on_pv(sibling, dst[d].pv)))
                dst[m++] = dst[d];
        }
        n = m;
    }
    return n;
}

/* Give every segment of mv its new area: allocations in LE order, each guided by the
 * areas chosen before it (so they follow each other where they can). */
static int add_mirror_legs(struct lvx_ctx *ctx, struct lvx_vg *vg, struct lvx_lv *mv,
                           const struct lvx_pvmove_setup *s)
{
    struct lvx_free_maps *maps;
    int r = lvx_alloc_free_maps(ctx, vg->pool, vg, &maps);
    if (r < 0)
        return r;
    struct lvx_alloc_pv *dst = lvx_pool_alloc(vg->pool, (s->dst_count + 1) * sizeof(*dst));
    memcpy(dst, s->dst, s->dst_count * sizeof(*dst));
    unsigned dst_count = trim_dst(vg, s, dst, s->dst_count);
    if (!dst_count)
        return lvx_error(ctx, ENOSPC, "No extents available for allocation.");
    struct lvx_lv *guide = lvx_pool_alloc(vg->pool, sizeof(*guide));
    guide->vg = vg;
    guide->name = mv->name;
    /* the new areas: split points of mv come from the allocation */
    for (unsigned i = 0; i < mv->seg_count; i++) {
        uint64_t want = mv->segs[i].extent_count;
        struct lvx_alloc_request req = {
            .extents = want, .stripes = 1, .policy = s->policy,
            .pv_count = dst_count, .pvs = dst, .lv = guide->seg_count ? guide : NULL,
            .lv_name = mv->name,
        };
        struct lvx_alloc_result res;
        if ((r = lvx_alloc_extents(ctx, vg->pool, maps, &req, &res)) < 0)
            return r;
        uint64_t le = 0;
        unsigned first = i;
        for (unsigned k = 0; k < res.seg_count; k++) {
            if (k)
                i++;
            if (k + 1 < res.seg_count)
                lvx_lv_split_seg(mv, i, res.segs[k].extent_count);
            struct lvx_seg *ms = &mv->segs[i];
            struct lvx_area old = ms->areas[0];
            ms->type = ms->type_name = "mirror";
            ms->kind = LVX_SEG_MIRROR;
            ms->stripe_count = 2;
            ms->region_size = lvx_pvmove_region(s->region_size,
                                                mv->le_count * (uint64_t)vg->extent_size);
            ms->area_count = 2;
            ms->areas = lvx_pool_alloc(vg->pool, 2 * sizeof(*ms->areas));
            ms->areas[0] = old;
            ms->areas[1] = (struct lvx_area){ .pv = res.segs[k].areas[0].pv,
                                              .start = res.segs[k].areas[0].start };
            ms->extents_moved = 0;
            le += res.segs[k].extent_count;
            /* the guide: everything allocated so far, in order */
            res.segs[k].start_extent = guide->le_count;
            struct lvx_alloc_result one = { .seg_count = 1, .segs = &res.segs[k] };
            if ((r = lvx_alloc_append(ctx, guide, &one)) < 0)
                return r;
        }
        (void)first;
        if (le != want)
            return lvx_error(ctx, EINVAL, "Internal error: pvmove allocation of %llu extents "
                             "gave %llu", (unsigned long long)want, (unsigned long long)le);
    }
    return 0;
}

/* A hidden linear sub-LV of mv named NAME_<suffix>, created with mv. */
static struct lvx_lv *new_image(struct lvx_vg *vg, const struct lvx_lv *mv, const char *suffix)
{
    struct lvx_lv *im = lvx_vg_add_lv(vg);
    im->name = lvx_pool_printf(vg->pool, "%s%s", mv->name, suffix);
    lvx_uuid_generate(im->uuid);
    im->status = LVX_LV_READ | LVX_LV_WRITE;
    im->alloc = LVX_ALLOC_INHERIT;
    im->has_creation = mv->has_creation;
    im->creation_time = mv->creation_time;
    im->creation_host = mv->creation_host;
    return im;
}

/* The atomic layout (pvmove.h): mv's 2-way mirror segments become the segments of
 * its two images, mv one mirror segment over them. */
static void make_atomic(struct lvx_vg *vg, struct lvx_lv *mv)
{
    struct lvx_lv *im[2] = { new_image(vg, mv, "_mimage_0"), new_image(vg, mv, "_mimage_1") };
    for (unsigned i = 0; i < mv->seg_count; i++) {
        const struct lvx_seg *ms = &mv->segs[i];
        for (unsigned k = 0; k < 2; k++) {
            struct lvx_seg *s = append_seg(im[k], ms->extent_count);
            make_linear(s, ms->areas[k].pv, NULL, ms->areas[k].start);
        }
    }
    struct lvx_seg one = mv->segs[0];
    one.start_extent = 0;
    one.extent_count = mv->le_count;
    one.extents_moved = 0;
    one.tags = (struct lvx_strlist){ 0 };
    one.areas = lvx_pool_alloc(vg->pool, 2 * sizeof(*one.areas));
    for (unsigned k = 0; k < 2; k++)
        one.areas[k] = (struct lvx_area){ .lv = im[k], .start = 0 };
    mv->segs = lvx_pool_alloc(vg->pool, sizeof(*mv->segs));
    mv->segs[0] = one;
    mv->seg_count = 1;
}

/* Back from the atomic layout to one mirror segment per image segment, each copied
 * (done) or not; the images leave the VG. */
static int flatten_atomic(struct lvx_ctx *ctx, struct lvx_vg *vg, struct lvx_lv *mv, bool done)
{
    const struct lvx_seg top = mv->segs[0];
    struct lvx_lv *im[2] = { top.areas[0].lv, top.area_count > 1 ? top.areas[1].lv : NULL };
    if (mv->seg_count != 1 || top.area_count != 2 || !im[1] ||
        im[0]->seg_count != im[1]->seg_count || im[0]->le_count != mv->le_count ||
        im[1]->le_count != mv->le_count)
        return lvx_error(ctx, EINVAL, "Segment is not mirrored: %s/%s:0", vg->name, mv->name);
    unsigned n = im[0]->seg_count;
    struct lvx_seg *segs = lvx_pool_alloc(vg->pool, (n ? n : 1) * sizeof(*segs));
    for (unsigned i = 0; i < n; i++) {
        const struct lvx_seg *a = &im[0]->segs[i], *b = &im[1]->segs[i];
        if (a->start_extent != b->start_extent || a->extent_count != b->extent_count ||
            a->area_count != 1 || b->area_count != 1)
            return lvx_error(ctx, EINVAL, "Layer boundary mismatch: %s:%llu on %s",
                             im[1]->name, (unsigned long long)b->start_extent, im[0]->name);
        segs[i] = top;
        segs[i].start_extent = a->start_extent;
        segs[i].extent_count = a->extent_count;
        segs[i].extents_moved = done ? (uint32_t)a->extent_count : 0;
        segs[i].areas = lvx_pool_alloc(vg->pool, 2 * sizeof(*segs[i].areas));
        segs[i].areas[0] = a->areas[0];
        segs[i].areas[1] = b->areas[0];
    }
    mv->segs = segs;
    mv->seg_count = n;
    lvx_vg_remove_lv(vg, im[0]);
    lvx_vg_remove_lv(vg, im[1]);
    return 0;
}

uint32_t lvx_pvmove_region(uint32_t region, uint64_t sectors)
{
    if (sectors && sectors < UINT32_MAX && region > sectors) {
        uint32_t r = 1;
        while ((uint64_t)r * 2 <= sectors)
            r *= 2;
        return r;
    }
    return region;
}

const char *lvx_pvmove_free_name(struct lvx_vg *vg)
{
    for (unsigned i = 0;; i++) {
        const char *n = lvx_pool_printf(vg->pool, "pvmove%u", i);
        if (!lvx_vg_find_lv(vg, n))
            return n;
    }
}

int lvx_pvmove_setup(struct lvx_ctx *ctx, struct lvx_vg *vg, const struct lvx_pvmove_setup *s,
                     bool *skipped, struct lvx_lv **out)
{
    *skipped = false;
    *out = NULL;
    struct lvx_lv *mv = lvx_vg_add_lv(vg);
    mv->name = lvx_pvmove_free_name(vg);
    lvx_uuid_generate(mv->uuid);
    mv->status = LVX_LV_READ | LVX_LV_WRITE | LVX_LV_PVMOVE | LVX_LV_LOCKED;
    mv->alloc = LVX_ALLOC_CONTIGUOUS;
    mv->has_creation = true;
    mv->creation_time = s->now;
    mv->creation_host = lvx_pool_strdup(vg->pool, s->host ? s->host : "unknown");

    bool found = false;
    for (unsigned l = 0; l < vg->lv_count; l++) {
        struct lvx_lv *lv = vg->lvs[l];
        if (lv == mv)
            continue;
        if (s->lv_name) {
            const struct lvx_lv *t = lvx_lv_top(lv);
            if (strcmp(lv->name, s->lv_name) && strcmp(t->name, s->lv_name))
                continue;
            found = true;
        }
        if (!all_striped(lv) || !on_pv(lv, s->src->pv))
            continue;
        if (lv->status & LVX_LV_LOCKED) {
            *skipped = true;
            if (s->skip_locked)
                s->skip_locked(s->arg, lv);
            continue;
        }
        if (s->refuse && s->refuse(s->arg, lv))
            return -EBUSY;
        uint64_t n = insert_layer(lv, mv, s->src);
        if (n) {
            lv->status |= LVX_LV_LOCKED;
            if (s->moving)
                s->moving(s->arg, lv, n);
        }
    }
    if (s->lv_name && !found)
        return lvx_error(ctx, ENOENT, "Logical volume %s not found.", s->lv_name);
    if (!mv->le_count)
        return lvx_error(ctx, ENODATA, "No data to move for %s.", vg->name);
    int r = add_mirror_legs(ctx, vg, mv, s);
    if (r < 0)
        return r;
    split_parents(vg, mv);
    if (s->atomic)
        make_atomic(vg, mv);
    *out = mv;
    return 0;
}

/* ---- the end ------------------------------------------------------------------ */

int lvx_pvmove_detach(struct lvx_ctx *ctx, struct lvx_vg *vg, struct lvx_lv *mv, bool abort)
{
    if (lvx_pvmove_is_atomic(mv)) {
        bool done = !abort && mv->segs[0].extents_moved >= mv->segs[0].extent_count;
        int r = flatten_atomic(ctx, vg, mv, done);
        if (r < 0)
            return r;
    }
    /* every mirror segment keeps one leg: the new one when it is complete */
    for (unsigned i = 0; i < mv->seg_count; i++) {
        struct lvx_seg *ms = &mv->segs[i];
        if (ms->kind == LVX_SEG_ERROR)
            continue;
        if (ms->kind != LVX_SEG_MIRROR || ms->area_count != 2)
            return lvx_error(ctx, EINVAL, "Segment is not mirrored: %s/%s:%llu", vg->name,
                             mv->name, (unsigned long long)ms->start_extent);
        struct lvx_area keep = ms->areas[ms->extents_moved >= ms->extent_count ? 1 : 0];
        ms->tags = (struct lvx_strlist){ 0 };
        make_linear(ms, keep.pv, keep.lv, keep.start);
        ms->extents_moved = 0;
    }
    for (unsigned l = 0; l < vg->lv_count; l++) {
        struct lvx_lv *lv = vg->lvs[l];
        if (lv == mv)
            continue;
        bool changed = false;
        for (unsigned i = 0; i < lv->seg_count; i++) {
            struct lvx_seg *seg = &lv->segs[i];
            for (uint32_t a = 0; a < seg->area_count; a++) {
                if (seg->areas[a].lv != mv)
                    continue;
                const struct lvx_seg *ms = NULL;
                for (unsigned m = 0; m < mv->seg_count; m++)
                    if (mv->segs[m].start_extent == seg->areas[a].start)
                        ms = &mv->segs[m];
                if (!ms || ms->kind != LVX_SEG_STRIPED || ms->extent_count != area_len(seg))
                    return lvx_error(ctx, EINVAL, "Layer boundary mismatch: %s:%llu-%llu on "
                                     "%s:%llu", lv->name,
                                     (unsigned long long)seg->start_extent,
                                     (unsigned long long)area_len(seg), mv->name,
                                     (unsigned long long)seg->areas[a].start);
                seg->areas[a] = ms->areas[0];
                changed = true;
            }
        }
        if (changed) {
            lv->status &= ~LVX_LV_LOCKED;
            lvx_lv_merge_segments(lv);
        }
    }
    /* pvmoveN: one error segment over its extents, no longer a pvmove LV (LVM2's
     * replace_lv_with_error_segment drops PVMOVE and LOCKED) */
    mv->status &= ~(uint32_t)(LVX_LV_PVMOVE | LVX_LV_LOCKED);
    lvx_lv_replace_with_error(mv);
    return 0;
}

void lvx_lv_replace_with_error(struct lvx_lv *lv)
{
    uint64_t n = lv->le_count;
    lv->seg_count = 0;
    lv->segs = NULL;
    lv->le_count = 0;
    struct lvx_seg *e = append_seg(lv, n);
    e->type = e->type_name = "error";
    e->kind = LVX_SEG_ERROR;
}
