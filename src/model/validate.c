/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/validate.c - structural invariants of a VG (lvx_vg_validate):
 *   - names and UUIDs valid; LV names, LV UUIDs and PV UUIDs unique;
 *   - vg->pvs[i]->index == i, vg->lvs[i]->index == i, back pointers right;
 *   - each LV's segments tile [0, le_count) in order, without gap or overlap;
 *   - striped: area_count == stripe_count and extent_count divisible by it;
 *   - every PV area lies inside [0, pe_count) and no PE is used twice;
 *   - every PV/LV a segment refers to belongs to this VG.
 * Cost: O(A log A) for A areas (one sort of all PV areas), O(n) for names (hashed).
 */
#include "model/model.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool pv_in_vg(const struct lvx_vg *vg, const struct lvx_pv *pv)
{
    return pv && pv->index < vg->pv_count && vg->pvs[pv->index] == pv;
}

static bool lv_in_vg(const struct lvx_vg *vg, const struct lvx_lv *lv)
{
    return lv && lv->index < vg->lv_count && vg->lvs[lv->index] == lv;
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;            /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* First duplicate (in list order) in a list of strings, or NULL: an open-addressing
 * hash set, so a commit of a VG with many LVs pays O(n), not a sort. */
static const char *find_duplicate(const char **v, unsigned n)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    const char **slots = lvx_xcalloc(cap, sizeof(*slots));
    const char *dup = NULL;
    for (unsigned i = 0; i < n && !dup; i++) {
        size_t at = (size_t)str_hash(v[i]) & (cap - 1);
        while (slots[at] && strcmp(slots[at], v[i]) != 0)
            at = (at + 1) & (cap - 1);
        if (slots[at])
            dup = v[i];
        else
            slots[at] = v[i];
    }
    free(slots);
    return dup;
}

static int check_pvs(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    const char **uuids = lvx_xcalloc(vg->pv_count + 1, sizeof(*uuids));
    int r = 0;

    for (unsigned i = 0; i < vg->pv_count && !r; i++) {
        const struct lvx_pv *pv = vg->pvs[i];
        if (!pv || pv->index != i || pv->vg != vg)
            r = lvx_error(ctx, EINVAL, "Volume group %s: physical volume list is inconsistent at pv%u",
                          vg->name, i);
        else if (!lvx_uuid_raw_valid(pv->uuid))
            r = lvx_error(ctx, EINVAL, "Physical volume pv%u: invalid UUID \"%s\"", i, pv->uuid);
        else
            uuids[i] = pv->uuid;
    }
    if (!r) {
        const char *dup = find_duplicate(uuids, vg->pv_count);
        if (dup) {
            char dashed[LVX_UUID_DASHED_LEN + 1];
            lvx_uuid_format(dup, dashed);
            r = lvx_error(ctx, EINVAL, "Volume group %s: duplicate physical volume UUID %s",
                          vg->name, dashed);
        }
    }
    free(uuids);
    return r;
}

static int check_lv_identity(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    const char **names = lvx_xcalloc(vg->lv_count + 1, sizeof(*names));
    const char **uuids = lvx_xcalloc(vg->lv_count + 1, sizeof(*uuids));
    const char *dup;
    int r = 0;

    for (unsigned i = 0; i < vg->lv_count && !r; i++) {
        const struct lvx_lv *lv = vg->lvs[i];
        if (!lv || lv->index != i || lv->vg != vg)
            r = lvx_error(ctx, EINVAL, "Volume group %s: logical volume list is inconsistent at %u",
                          vg->name, i);
        else if (!lvx_name_valid(lv->name))
            r = lvx_error(ctx, EINVAL, "Volume group %s: invalid logical volume name \"%s\"",
                          vg->name, lv->name ? lv->name : "");
        else if (!lvx_uuid_raw_valid(lv->uuid))
            r = lvx_error(ctx, EINVAL, "Logical volume %s: invalid UUID \"%s\"", lv->name, lv->uuid);
        else {
            names[i] = lv->name;
            uuids[i] = lv->uuid;
        }
    }
    if (!r && (dup = find_duplicate(names, vg->lv_count)))
        r = lvx_error(ctx, EINVAL, "Volume group %s: duplicate logical volume name %s",
                      vg->name, dup);
    if (!r && (dup = find_duplicate(uuids, vg->lv_count))) {
        char dashed[LVX_UUID_DASHED_LEN + 1];
        lvx_uuid_format(dup, dashed);
        r = lvx_error(ctx, EINVAL, "Volume group %s: duplicate logical volume UUID %s",
                      vg->name, dashed);
    }
    free(names);
    free(uuids);
    return r;
}

/* Segments of one LV tile [0, le_count) in order. */
static int check_tiling(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    uint64_t next = 0;

    if (lv->seg_count == 0)
        return lvx_error(ctx, EINVAL, "Logical volume %s: no segments", lv->name);
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        if (seg->lv != lv)
            return lvx_error(ctx, EINVAL, "Logical volume %s: segment %u belongs to another LV",
                             lv->name, s + 1);
        if (seg->extent_count == 0)
            return lvx_error(ctx, EINVAL, "Logical volume %s: segment %u has zero extents",
                             lv->name, s + 1);
        if (seg->start_extent < next)
            return lvx_error(ctx, EINVAL, "Logical volume %s: segment %u overlaps segment %u",
                             lv->name, s + 1, s);
        if (seg->start_extent > next)
            return lvx_error(ctx, EINVAL,
                             "Logical volume %s: gap before segment %u (extents %llu-%llu unmapped)",
                             lv->name, s + 1, (unsigned long long)next,
                             (unsigned long long)seg->start_extent - 1);
        if (seg->extent_count > UINT64_MAX / 2 - next)
            return lvx_error(ctx, EINVAL, "Logical volume %s: segment %u is too large",
                             lv->name, s + 1);
        next = seg->start_extent + seg->extent_count;
    }
    if (next != lv->le_count)
        return lvx_error(ctx, EINVAL, "Logical volume %s: segments cover %llu extents, le_count is %llu",
                         lv->name, (unsigned long long)next, (unsigned long long)lv->le_count);
    return 0;
}

static int check_seg_refs(struct lvx_ctx *ctx, const struct lvx_vg *vg, const struct lvx_lv *lv,
                          unsigned segno, const struct lvx_seg *seg)
{
    const struct lvx_lv *refs[] = { seg->log_lv, seg->pool_lv, seg->origin_lv, seg->cow_lv,
                                    seg->metadata_lv, seg->data_lv };

    for (size_t i = 0; i < sizeof(refs) / sizeof(refs[0]); i++)
        if (refs[i] && !lv_in_vg(vg, refs[i]))
            return lvx_error(ctx, EINVAL,
                             "Logical volume %s: segment %u refers to a logical volume outside the VG",
                             lv->name, segno);
    for (uint32_t a = 0; a < seg->area_count; a++) {
        const struct lvx_area *area = &seg->areas[a];
        if (!area->pv && !area->lv)
            return lvx_error(ctx, EINVAL, "Logical volume %s: segment %u area %u is unset",
                             lv->name, segno, a + 1);
        if (area->pv && !pv_in_vg(vg, area->pv))
            return lvx_error(ctx, EINVAL,
                             "Logical volume %s: segment %u area %u refers to a PV outside the VG",
                             lv->name, segno, a + 1);
        if (area->lv && !lv_in_vg(vg, area->lv))
            return lvx_error(ctx, EINVAL,
                             "Logical volume %s: segment %u area %u refers to an LV outside the VG",
                             lv->name, segno, a + 1);
        if (seg->meta_areas && seg->meta_areas[a].lv && !lv_in_vg(vg, seg->meta_areas[a].lv))
            return lvx_error(ctx, EINVAL,
                             "Logical volume %s: segment %u metadata area %u refers to an LV outside the VG",
                             lv->name, segno, a + 1);
    }
    return 0;
}

static int check_seg_shape(struct lvx_ctx *ctx, const struct lvx_vg *vg, const struct lvx_lv *lv,
                           unsigned segno, const struct lvx_seg *seg)
{
    if (seg->kind == LVX_SEG_STRIPED) {
        if (seg->stripe_count == 0)
            return lvx_error(ctx, EINVAL, "Logical volume %s: segment %u has zero stripes",
                             lv->name, segno);
        if (seg->area_count != seg->stripe_count)
            return lvx_error(ctx, EINVAL,
                             "Logical volume %s: segment %u has %u areas for %u stripes",
                             lv->name, segno, seg->area_count, seg->stripe_count);
        if (seg->extent_count % seg->stripe_count)
            return lvx_error(ctx, EINVAL,
                             "Logical volume %s: segment %u extent count %llu is not divisible by %u stripes",
                             lv->name, segno, (unsigned long long)seg->extent_count,
                             seg->stripe_count);
    }
    if (seg->kind == LVX_SEG_MIRROR && seg->area_count != seg->stripe_count)
        return lvx_error(ctx, EINVAL, "Logical volume %s: segment %u has %u legs for mirror_count %u",
                         lv->name, segno, seg->area_count, seg->stripe_count);

    uint64_t len = lvx_seg_area_len(seg);
    for (uint32_t a = 0; a < seg->area_count; a++) {
        const struct lvx_area *area = &seg->areas[a];
        if (!area->pv)
            continue;
        if (area->start > area->pv->pe_count || len > area->pv->pe_count - area->start)
            return lvx_error(ctx, EINVAL,
                             "Logical volume %s: segment %u area %u uses extents %llu-%llu of pv%u beyond its pe_count %u",
                             lv->name, segno, a + 1, (unsigned long long)area->start,
                             (unsigned long long)(area->start + len - 1), area->pv->index,
                             area->pv->pe_count);
    }
    (void)vg;
    return 0;
}

struct pe_use {
    unsigned pv;
    uint64_t start, len;
    const struct lvx_lv *lv;
};

static int cmp_pe_use(const void *a, const void *b)
{
    const struct pe_use *x = a, *y = b;
    if (x->pv != y->pv)
        return x->pv < y->pv ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return 0;
}

static size_t count_pv_areas(const struct lvx_vg *vg)
{
    size_t n = 0;
    for (unsigned l = 0; l < vg->lv_count; l++)
        for (unsigned s = 0; s < vg->lvs[l]->seg_count; s++) {
            const struct lvx_seg *seg = &vg->lvs[l]->segs[s];
            for (uint32_t a = 0; a < seg->area_count; a++)
                n += seg->areas[a].pv != NULL;
        }
    return n;
}

/* No PE is covered by two areas: sort all PV areas by (pv, start), compare neighbours. */
static int check_pe_overlap(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    size_t n = count_pv_areas(vg), k = 0;
    struct pe_use *use = lvx_xcalloc(n + 1, sizeof(*use));
    int r = 0;

    for (unsigned l = 0; l < vg->lv_count; l++)
        for (unsigned s = 0; s < vg->lvs[l]->seg_count; s++) {
            const struct lvx_seg *seg = &vg->lvs[l]->segs[s];
            uint64_t len = lvx_seg_area_len(seg);
            for (uint32_t a = 0; a < seg->area_count; a++)
                if (seg->areas[a].pv)
                    use[k++] = (struct pe_use){ seg->areas[a].pv->index, seg->areas[a].start,
                                                len, vg->lvs[l] };
        }
    qsort(use, n, sizeof(use[0]), cmp_pe_use);
    for (size_t i = 1; i < n; i++) {
        const struct pe_use *p = &use[i - 1], *c = &use[i];
        if (p->pv == c->pv && c->start < p->start + p->len) {
            uint64_t end = p->start + p->len < c->start + c->len ? p->start + p->len
                                                                : c->start + c->len;
            r = lvx_error(ctx, EINVAL,
                          "Physical volume pv%u: extents %llu-%llu are used by both %s and %s",
                          c->pv, (unsigned long long)c->start, (unsigned long long)end - 1,
                          p->lv->name, c->lv->name);
            break;
        }
    }
    free(use);
    return r;
}

int lvx_vg_validate(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    int r;

    if (!lvx_name_valid(vg->name))
        return lvx_error(ctx, EINVAL, "Invalid volume group name \"%s\"", vg->name ? vg->name : "");
    if (vg->extent_size == 0)
        return lvx_error(ctx, EINVAL, "Volume group %s: extent size is zero", vg->name);
    if ((r = check_pvs(ctx, vg)) < 0 || (r = check_lv_identity(ctx, vg)) < 0)
        return r;
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *lv = vg->lvs[l];
        if ((r = check_tiling(ctx, lv)) < 0)
            return r;
        for (unsigned s = 0; s < lv->seg_count; s++) {
            if ((r = check_seg_refs(ctx, vg, lv, s + 1, &lv->segs[s])) < 0 ||
                (r = check_seg_shape(ctx, vg, lv, s + 1, &lv->segs[s])) < 0)
                return r;
        }
    }
    return check_pe_overlap(ctx, vg);
}
