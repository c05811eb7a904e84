/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid0.c - a raid0 / raid0_meta LV as the striped segments it equals
 * (model/raid0.h).
 */
#include "model/raid0.h"

#include <errno.h>
#include <string.h>

#include "util/pool.h"

bool lvx_raid0_is(const struct lvx_lv *lv)
{
    return lv->seg_count == 1 && lv->segs[0].kind == LVX_SEG_RAID && lv->segs[0].type_name &&
           !strncmp(lv->segs[0].type_name, "raid0", 5);
}

/* Extents left in img's segment holding LE le (*seg: that segment, NULL when none). */
static uint64_t run_left(const struct lvx_lv *img, uint64_t le, const struct lvx_seg **seg)
{
    for (unsigned i = 0; img && i < img->seg_count; i++) {
        const struct lvx_seg *g = &img->segs[i];
        if (le >= g->start_extent && le < g->start_extent + g->extent_count) {
            *seg = g;
            return g->start_extent + g->extent_count - le;
        }
    }
    *seg = NULL;
    return 0;
}

static bool plain_pv_seg(const struct lvx_seg *g)
{
    return g && g->kind == LVX_SEG_STRIPED && g->area_count == 1 && g->areas && g->areas[0].pv;
}

int lvx_raid0_striped_segs(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                           struct lvx_seg **segs, unsigned *count)
{
    const struct lvx_seg *raid = &lv->segs[0];
    uint32_t n = raid->area_count;
    uint64_t per = n && raid->areas[0].lv ? raid->areas[0].lv->le_count : 0, le = 0;
    unsigned cap = 0;
    for (uint32_t s = 0; s < n; s++) {
        if (!raid->areas[s].lv || raid->areas[s].lv->le_count != per)
            goto bad;
        cap += raid->areas[s].lv->seg_count;
    }
    if (!n || per * n != lv->le_count)
        goto bad;
    struct lvx_seg *out = lvx_pool_alloc(pool, (cap ? cap : 1) * sizeof(*out));
    unsigned k = 0;
    while (le < per) {
        uint64_t len = UINT64_MAX;
        const struct lvx_seg *g;
        for (uint32_t s = 0; s < n; s++) {
            uint64_t l = run_left(raid->areas[s].lv, le, &g);
            if (!plain_pv_seg(g))
                goto bad;
            if (l < len)
                len = l;
        }
        struct lvx_seg *to = &out[k++];
        memset(to, 0, sizeof(*to));
        to->lv = (struct lvx_lv *)lv;
        to->start_extent = le * n;
        to->extent_count = len * n;
        to->type = to->type_name = lvx_pool_strdup(pool, "striped");
        to->kind = LVX_SEG_STRIPED;
        to->stripe_count = to->area_count = n;
        to->stripe_size = raid->stripe_size;
        to->areas = lvx_pool_alloc(pool, n * sizeof(*to->areas));
        for (uint32_t s = 0; s < n; s++) {
            run_left(raid->areas[s].lv, le, &g);
            to->areas[s] = (struct lvx_area){ g->areas[0].pv, NULL,
                                              g->areas[0].start + (le - g->start_extent) };
        }
        le += len;
    }
    *segs = out;
    *count = k;
    return 0;
bad:
    return lvx_error(ctx, EINVAL, "Failed to retrieve raid0 segments from %s/%s.", lv->vg->name,
                     lv->name);
}
