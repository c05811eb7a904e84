/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/restripe.c - the restripe layout in the model (see restripe.h): the
 * reservation LV, the cuts, the view of the finished LV, the steps and the LV holding
 * the old extents until the release.  Segment arrays
 * are rebuilt in vg->pool (callers keep no seg pointers across a step).
 */
#include "model/restripe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/pvmove.h"

#define SUFFIX "_restripe"
#define OLD_SUFFIX "_restripe_old"

const char *lvx_restripe_name(struct lvx_pool *pool, const struct lvx_lv *lv)
{
    return lvx_pool_printf(pool, "%s" SUFFIX, lv->name);
}

static uint32_t rows_of(const struct lvx_seg *s)
{
    return s->kind == LVX_SEG_STRIPED && s->area_count > 1 ? s->area_count : 1;
}

/* lv's hidden LV "<lv><suffix>" of a restripe in progress (lv LOCKED), its segments
 * striped over PVs only; or NULL. */
static struct lvx_lv *hidden_of(const struct lvx_lv *lv, const char *suffix)
{
    char name[300];
    if (!(lv->status & LVX_LV_LOCKED) ||
        (size_t)snprintf(name, sizeof(name), "%s%s", lv->name, suffix) >= sizeof(name))
        return NULL;
    struct lvx_lv *r = lvx_vg_find_lv(lv->vg, name);
    if (!r || r == lv || (r->status & LVX_LV_VISIBLE) || !r->seg_count)
        return NULL;
    for (unsigned s = 0; s < r->seg_count; s++) {
        const struct lvx_seg *seg = &r->segs[s];
        if (seg->kind != LVX_SEG_STRIPED || seg->raw || seg->extra || !seg->area_count)
            return NULL;
        for (uint32_t a = 0; a < seg->area_count; a++)
            if (!seg->areas[a].pv)
                return NULL;
    }
    return r;
}

struct lvx_lv *lvx_restripe_rsv(const struct lvx_lv *lv)
{
    struct lvx_lv *r = hidden_of(lv, SUFFIX);
    if (!r || r->le_count > lv->le_count)
        return NULL;
    for (unsigned s = 0; s < r->seg_count; s++)
        if (r->segs[s].area_count != r->segs[0].area_count ||
            r->segs[s].extent_count % r->segs[s].area_count)
            return NULL;
    return r;
}

struct lvx_lv *lvx_restripe_old(const struct lvx_lv *lv)
{
    return hidden_of(lv, OLD_SUFFIX);
}

/* lv is named "<o><suffix>" for an LV o of its VG, and get(o) is lv. */
static bool held_by(const struct lvx_lv *lv, const char *suffix,
                    struct lvx_lv *(*get)(const struct lvx_lv *))
{
    size_t n = strlen(lv->name), k = strlen(suffix);
    if (n <= k || strcmp(lv->name + n - k, suffix))
        return false;
    for (unsigned i = 0; i < lv->vg->lv_count; i++) {
        const struct lvx_lv *o = lv->vg->lvs[i];
        if (o != lv && strlen(o->name) == n - k && !strncmp(o->name, lv->name, n - k))
            return get(o) == lv;
    }
    return false;
}

bool lvx_restripe_is_rsv(const struct lvx_lv *lv)
{
    return held_by(lv, SUFFIX, lvx_restripe_rsv) || held_by(lv, OLD_SUFFIX, lvx_restripe_old);
}

uint64_t lvx_restripe_done(const struct lvx_lv *lv, const struct lvx_lv *rsv)
{
    return lv->le_count - rsv->le_count;
}

int lvx_restripe_setup(struct lvx_ctx *ctx, struct lvx_lv *lv, const struct lvx_alloc_result *res,
                       uint64_t now, const char *host)
{
    struct lvx_vg *vg = lv->vg;
    struct lvx_lv *r = lvx_vg_add_lv(vg);
    r->name = lvx_restripe_name(vg->pool, lv);
    lvx_uuid_generate(r->uuid);
    r->status = LVX_LV_READ | LVX_LV_WRITE;
    r->has_creation = true;
    r->creation_time = now;
    r->creation_host = lvx_pool_strdup(vg->pool, host ? host : "unknown");
    int rc = lvx_alloc_append(ctx, r, res);
    if (rc < 0)
        return rc;
    if (r->le_count != lv->le_count)
        return lvx_error(ctx, EINVAL, "Internal error: restripe allocation of %llu extents "
                         "gave %llu.", (unsigned long long)lv->le_count,
                         (unsigned long long)r->le_count);
    lv->status |= LVX_LV_LOCKED;
    return 0;
}

/* c can end a step: a multiple of the new stripe count past P that splits no old
 * segment inside a stripe row. */
static bool cut_ok(const struct lvx_lv *lv, uint64_t p, uint32_t n, uint64_t c)
{
    if (c <= p || c > lv->le_count || c % n)
        return false;
    for (unsigned i = 0; i < lv->seg_count; i++) {
        const struct lvx_seg *s = &lv->segs[i];
        if (s->start_extent >= p && c > s->start_extent &&
            c < s->start_extent + s->extent_count && (c - s->start_extent) % rows_of(s))
            return false;
    }
    return true;
}

uint64_t lvx_restripe_next_cut(const struct lvx_lv *lv, const struct lvx_lv *rsv, uint64_t want)
{
    uint64_t p = lvx_restripe_done(lv, rsv);
    uint32_t n = rsv->segs[0].area_count;
    uint64_t t = (p + (want ? want : 1) + n - 1) / n * n;
    if (t > lv->le_count)
        t = lv->le_count;
    for (uint64_t c = t; c > p; c -= n < c ? n : c)
        if (cut_ok(lv, p, n, c))
            return c;
    for (uint64_t c = t + n; c < lv->le_count; c += n)
        if (cut_ok(lv, p, n, c))
            return c;
    return lv->le_count;
}

struct lvx_lv *lvx_restripe_target(struct lvx_pool *pool, const struct lvx_lv *lv,
                                   const struct lvx_lv *rsv)
{
    uint64_t p = lvx_restripe_done(lv, rsv);
    struct lvx_lv *t = lvx_pool_alloc(pool, sizeof(*t));
    *t = *lv;
    t->segs = lvx_pool_alloc(pool, (lv->seg_count + rsv->seg_count + 1) * sizeof(*t->segs));
    t->seg_count = 0;
    for (unsigned i = 0; i < lv->seg_count; i++)
        if (lv->segs[i].start_extent < p)
            t->segs[t->seg_count++] = lv->segs[i];
    for (unsigned i = 0; i < rsv->seg_count; i++) {
        struct lvx_seg *s = &t->segs[t->seg_count++];
        *s = rsv->segs[i];
        s->start_extent += p;
    }
    for (unsigned i = 0; i < t->seg_count; i++)
        t->segs[i].lv = t;
    return t;
}

/* Split lv's segment holding LE c (strictly inside it) at c. */
static void split_at(struct lvx_lv *lv, uint64_t c)
{
    for (unsigned i = 0; i < lv->seg_count; i++) {
        const struct lvx_seg *s = &lv->segs[i];
        if (c > s->start_extent && c < s->start_extent + s->extent_count) {
            lvx_lv_split_seg(lv, i, c - s->start_extent);
            return;
        }
    }
}

int lvx_restripe_step(struct lvx_ctx *ctx, struct lvx_lv *lv, struct lvx_lv *rsv, uint64_t cut)
{
    struct lvx_vg *vg = lv->vg;
    uint64_t p = lvx_restripe_done(lv, rsv), w = cut - p;
    uint32_t n = rsv->segs[0].area_count;
    if (!cut_ok(lv, p, n, cut))
        return lvx_error(ctx, EINVAL, "Internal error: restripe of %s/%s cannot end a step at "
                         "extent %llu.", vg->name, lv->name, (unsigned long long)cut);
    split_at(lv, cut);
    split_at(rsv, w);
    struct lvx_seg *ls = lvx_pool_alloc(vg->pool, (lv->seg_count + rsv->seg_count + 1) *
                                                      sizeof(*ls));
    struct lvx_seg *rs = lvx_pool_alloc(vg->pool, (rsv->seg_count + 1) * sizeof(*rs));
    unsigned nl = 0, nr = 0;
    for (unsigned i = 0; i < lv->seg_count; i++)
        if (lv->segs[i].start_extent < p)
            ls[nl++] = lv->segs[i];
    for (unsigned i = 0; i < rsv->seg_count; i++) {
        struct lvx_seg s = rsv->segs[i];
        if (s.start_extent < w) {
            s.start_extent += p;
            s.lv = lv;
            ls[nl++] = s;
        } else {
            s.start_extent -= w;
            rs[nr++] = s;
        }
    }
    for (unsigned i = 0; i < lv->seg_count; i++)
        if (lv->segs[i].start_extent >= cut)
            ls[nl++] = lv->segs[i];
    /* the old segments of [p, cut) go to the end of the holding LV */
    struct lvx_lv *old = lvx_restripe_old(lv);
    if (!old) {
        old = lvx_vg_add_lv(vg);
        old->name = lvx_pool_printf(vg->pool, "%s" OLD_SUFFIX, lv->name);
        lvx_uuid_generate(old->uuid);
        old->status = LVX_LV_READ | LVX_LV_WRITE;
        old->has_creation = rsv->has_creation;
        old->creation_time = rsv->creation_time;
        old->creation_host = rsv->creation_host;
    }
    struct lvx_seg *os = lvx_pool_alloc(vg->pool, (old->seg_count + lv->seg_count + 1) *
                                                      sizeof(*os));
    unsigned no = 0;
    for (unsigned i = 0; i < old->seg_count; i++)
        os[no++] = old->segs[i];
    for (unsigned i = 0; i < lv->seg_count; i++) {
        struct lvx_seg s = lv->segs[i];
        if (s.start_extent < p || s.start_extent >= cut)
            continue;
        s.start_extent = old->le_count + (s.start_extent - p);
        s.lv = old;
        os[no++] = s;
    }
    old->segs = os;
    old->seg_count = no;
    old->le_count += w;
    lvx_lv_merge_segments(old);
    lv->segs = ls;
    lv->seg_count = nl;
    lvx_lv_merge_segments(lv);
    rsv->segs = rs;
    rsv->seg_count = nr;
    rsv->le_count -= w;
    if (!rsv->le_count)
        lvx_vg_remove_lv(vg, rsv);
    return 0;
}

void lvx_restripe_release(struct lvx_lv *lv)
{
    struct lvx_lv *old = lvx_restripe_old(lv);
    if (old)
        lvx_vg_remove_lv(lv->vg, old);
    if (!lvx_restripe_rsv(lv))
        lv->status &= ~(uint32_t)LVX_LV_LOCKED;
}
