/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/derive.c - values computed from the VG the way LVM2 reports them
 * (lvm2-format.md §13.1): allocated/free extents, visibility with the classic
 * snapshot rule (§10.4), which segment uses a sub-LV, report names of segments.
 *
 * Costs: per-PV counts for the whole VG in one pass over all areas
 * (lvx_vg_pv_alloc_counts); lookups of "who uses this LV" scan all segments.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

uint64_t lvx_seg_area_len(const struct lvx_seg *seg)
{
    uint64_t n = seg->extent_count;
    uint32_t images = seg->stripe_count ? seg->stripe_count : seg->area_count;
    const char *t = seg->type_name ? seg->type_name : "";

    switch (seg->kind) {
    case LVX_SEG_STRIPED:
        return seg->stripe_count ? n / seg->stripe_count : n;
    case LVX_SEG_RAID: {
        uint32_t parity = 0;
        if (!strcmp(t, "raid1"))
            return n;
        if (!strncmp(t, "raid10", 6)) {
            uint32_t copies = seg->data_copies ? seg->data_copies : 2;
            return images ? n * copies / images : n;
        }
        if (!strncmp(t, "raid4", 5) || !strncmp(t, "raid5", 5))
            parity = 1;
        else if (!strncmp(t, "raid6", 5))
            parity = 2;
        return images > parity ? n / (images - parity) : n;
    }
    default:
        return n;
    }
}

static void count_seg_pv_areas(const struct lvx_seg *seg, const struct lvx_vg *vg,
                               uint32_t *counts)
{
    uint64_t len = lvx_seg_area_len(seg);
    for (uint32_t a = 0; a < seg->area_count; a++) {
        const struct lvx_pv *pv = seg->areas[a].pv;
        if (pv && pv->index < vg->pv_count && vg->pvs[pv->index] == pv)
            counts[pv->index] += (uint32_t)len;
    }
}

void lvx_vg_pv_alloc_counts(const struct lvx_vg *vg, uint32_t *counts)
{
    memset(counts, 0, vg->pv_count * sizeof(counts[0]));
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *lv = vg->lvs[l];
        for (unsigned s = 0; s < lv->seg_count; s++)
            count_seg_pv_areas(&lv->segs[s], vg, counts);
    }
}

uint32_t lvx_pv_alloc_count(const struct lvx_pv *pv)
{
    const struct lvx_vg *vg = pv->vg;
    uint64_t total = 0;

    if (!vg)
        return 0;
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *lv = vg->lvs[l];
        for (unsigned s = 0; s < lv->seg_count; s++) {
            const struct lvx_seg *seg = &lv->segs[s];
            for (uint32_t a = 0; a < seg->area_count; a++)
                if (seg->areas[a].pv == pv)
                    total += lvx_seg_area_len(seg);
        }
    }
    return (uint32_t)total;
}

uint64_t lvx_vg_extent_count(const struct lvx_vg *vg)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < vg->pv_count; i++)
        n += vg->pvs[i]->pe_count;
    return n;
}

uint64_t lvx_vg_free_count(const struct lvx_vg *vg)
{
    uint64_t total = lvx_vg_extent_count(vg), used = 0;
    uint32_t *counts = lvx_xcalloc(vg->pv_count ? vg->pv_count : 1, sizeof(*counts));

    lvx_vg_pv_alloc_counts(vg, counts);
    for (unsigned i = 0; i < vg->pv_count; i++)
        used += counts[i];
    free(counts);
    return used > total ? 0 : total - used;
}

bool lvx_lv_is_snapshot_internal(const struct lvx_lv *lv)
{
    for (unsigned s = 0; s < lv->seg_count; s++)
        if (lv->segs[s].kind == LVX_SEG_SNAPSHOT)
            return true;
    return false;
}

const struct lvx_seg *lvx_lv_cow_snapshot_seg(const struct lvx_lv *lv)
{
    const struct lvx_vg *vg = lv->vg;
    if (!vg)
        return NULL;
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *other = vg->lvs[l];
        for (unsigned s = 0; s < other->seg_count; s++)
            if (other->segs[s].kind == LVX_SEG_SNAPSHOT && other->segs[s].cow_lv == lv)
                return &other->segs[s];
    }
    return NULL;
}

bool lvx_lv_is_cow(const struct lvx_lv *lv)
{
    return lvx_lv_cow_snapshot_seg(lv) != NULL;
}

/* Visible as LVM2 lists it; depth guards against a cow chain looping. */
static bool lv_visible_depth(const struct lvx_lv *lv, int depth)
{
    if (depth > 8 || lvx_lv_is_snapshot_internal(lv))
        return false;
    if (lv->status & LVX_LV_VISIBLE)
        return true;
    const struct lvx_seg *snap = lvx_lv_cow_snapshot_seg(lv);
    if (snap && snap->origin_lv && !(snap->origin_lv->status & LVX_LV_VISIBLE) &&
        !lvx_lv_is_snapshot_internal(snap->origin_lv))
        return true;        /* a sparse snapshot: its origin is the hidden _vorigin */
    if (snap && snap->origin_lv && !snap->merging)     /* a merging COW is internal */
        return lv_visible_depth(snap->origin_lv, depth + 1);
    return false;
}

bool lvx_lv_is_visible(const struct lvx_lv *lv)
{
    return lv_visible_depth(lv, 0);
}

void lvx_vg_lv_visibility(const struct lvx_vg *vg, bool *visible)
{
    /* one pass to find the COW LVs and their origins, then one to decide */
    const struct lvx_lv **cow_origin = lvx_xcalloc(vg->lv_count ? vg->lv_count : 1,
                                                   sizeof(*cow_origin));
    bool *internal = lvx_xcalloc(vg->lv_count ? vg->lv_count : 1, sizeof(*internal));

    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *lv = vg->lvs[l];
        for (unsigned s = 0; s < lv->seg_count; s++) {
            const struct lvx_seg *seg = &lv->segs[s];
            if (seg->kind != LVX_SEG_SNAPSHOT)
                continue;
            internal[l] = true;
            if (seg->cow_lv && !seg->merging && seg->cow_lv->index < vg->lv_count &&
                vg->lvs[seg->cow_lv->index] == seg->cow_lv)
                cow_origin[seg->cow_lv->index] = seg->origin_lv;
        }
    }
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *lv = vg->lvs[l], *origin = cow_origin[l];
        if (internal[l])
            visible[l] = false;
        else if (lv->status & LVX_LV_VISIBLE)
            visible[l] = true;
        else
            /* a COW is listed with a visible origin, and with a hidden one (a sparse
             * snapshot's _vorigin: LVM2's virtual origin) */
            visible[l] = origin && origin->index < vg->lv_count && !internal[origin->index];
    }
    free(cow_origin);
    free(internal);
}

unsigned lvx_vg_visible_lv_count(const struct lvx_vg *vg)
{
    bool *visible = lvx_xcalloc(vg->lv_count ? vg->lv_count : 1, sizeof(*visible));
    unsigned n = 0;

    lvx_vg_lv_visibility(vg, visible);
    for (unsigned l = 0; l < vg->lv_count; l++)
        n += visible[l];
    free(visible);
    return n;
}

uint64_t lvx_lv_size_sectors(const struct lvx_lv *lv)
{
    uint64_t es = lv->vg ? lv->vg->extent_size : 0;
    return lv->le_count * es;
}

/* Roles in order of preference: structural sub-LV roles before references. */
enum role_rank { RANK_NONE, RANK_REFERENCE, RANK_STRUCTURAL };

struct used_by {
    const struct lvx_seg *seg;
    const char *role;
    enum role_rank rank;
};

static void consider(struct used_by *best, const struct lvx_seg *seg, const char *role,
                     enum role_rank rank)
{
    if (rank > best->rank) {
        best->seg = seg;
        best->role = role;
        best->rank = rank;
    }
}

static const char *area_role(const struct lvx_seg *seg)
{
    switch (seg->kind) {
    case LVX_SEG_MIRROR: return "mimage";
    case LVX_SEG_RAID: return "image";
    case LVX_SEG_THIN_POOL: return "tdata";
    case LVX_SEG_CACHE_POOL: return "cdata";
    case LVX_SEG_CACHE: return "origin";
    default: return lvx_seg_is_writecache(seg) ? "origin" : "image";
    }
}

static void check_seg_uses(struct used_by *best, const struct lvx_seg *seg,
                           const struct lvx_lv *lv)
{
    bool pool_kind = seg->kind == LVX_SEG_THIN_POOL;

    for (uint32_t a = 0; a < seg->area_count; a++) {
        if (seg->areas[a].lv == lv)
            consider(best, seg, area_role(seg), RANK_STRUCTURAL);
        if (seg->meta_areas && seg->meta_areas[a].lv == lv)
            consider(best, seg, "rmeta", RANK_STRUCTURAL);
    }
    if (seg->log_lv == lv)
        consider(best, seg, "mlog", RANK_STRUCTURAL);
    if (seg->data_lv == lv)
        consider(best, seg, pool_kind ? "tdata" : "cdata", RANK_STRUCTURAL);
    if (seg->metadata_lv == lv)
        consider(best, seg, pool_kind ? "tmeta" : "cmeta", RANK_STRUCTURAL);
    if (seg->cow_lv == lv)
        consider(best, seg, "cow", RANK_STRUCTURAL);
    if (seg->pool_lv == lv)
        consider(best, seg, "pool", RANK_REFERENCE);
    for (unsigned r = 0; r < seg->ref_count; r++)
        if (seg->refs[r] == lv)
            consider(best, seg, seg->ref_keys[r], RANK_STRUCTURAL);
    if (seg->origin_lv == lv) {
        if (seg->kind == LVX_SEG_CACHE)
            consider(best, seg, "origin", RANK_STRUCTURAL);
        else
            consider(best, seg, seg->kind == LVX_SEG_THIN ? "thin_origin" : "origin",
                     RANK_REFERENCE);
    }
}

const struct lvx_seg *lvx_lv_used_by(const struct lvx_lv *lv, const char **role)
{
    struct used_by best = { NULL, NULL, RANK_NONE };
    const struct lvx_vg *vg = lv->vg;

    if (vg) {
        for (unsigned l = 0; l < vg->lv_count && best.rank != RANK_STRUCTURAL; l++) {
            const struct lvx_lv *other = vg->lvs[l];
            if (other == lv)
                continue;
            for (unsigned s = 0; s < other->seg_count; s++)
                check_seg_uses(&best, &other->segs[s], lv);
        }
    }
    if (role)
        *role = best.role;
    return best.seg;
}

const struct lvx_lv *lvx_lv_top(const struct lvx_lv *lv)
{
    const char *role;
    const struct lvx_seg *seg;
    for (unsigned depth = 0; depth < 16 && (seg = lvx_lv_used_by(lv, &role)); depth++) {
        if (role && (!strcmp(role, "origin") || !strcmp(role, "cow")))
            break;                  /* a snapshot's origin and COW are LVs of their own */
        lv = seg->lv;
    }
    return lv;
}

struct lvx_lv *lvx_seg_ref(const struct lvx_seg *seg, const char *key)
{
    for (unsigned r = 0; seg && r < seg->ref_count; r++)
        if (!strcmp(seg->ref_keys[r], key))
            return seg->refs[r];
    return NULL;
}

bool lvx_seg_is_writecache(const struct lvx_seg *seg)
{
    return seg && seg->kind == LVX_SEG_OTHER && seg->type_name &&
           !strcmp(seg->type_name, "writecache");
}

const char *lvx_seg_report_type(const struct lvx_seg *seg)
{
    if (seg->kind == LVX_SEG_STRIPED && seg->stripe_count == 1)
        return "linear";
    return seg->type_name ? seg->type_name : seg->type;
}

uint32_t lvx_seg_report_stripes(const struct lvx_seg *seg)
{
    switch (seg->kind) {
    case LVX_SEG_STRIPED:
    case LVX_SEG_MIRROR:
    case LVX_SEG_RAID:
        return seg->stripe_count;
    default:
        return seg->area_count;
    }
}
