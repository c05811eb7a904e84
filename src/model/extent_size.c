/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/extent_size.c - a VG's extent size changed in place (vgchange -s): every count
 * in extents (PV pe_count, LV le_count, segment starts and lengths, area starts) is
 * rescaled, as LVM2 rescales them; a count that does not come out whole refuses the
 * change with LVM2's words, nothing changed.  Segments lvx keeps only as text (types
 * it does not model) refuse it too.
 */
#include "model/model.h"

#include <errno.h>
#include <inttypes.h>

struct rescale {
    struct lvx_ctx *ctx;
    uint64_t old_size, new_size;
    bool apply;          /* false: only check */
};

/* x extents of the old size as extents of the new size; false after the error. */
static bool rescale(struct rescale *r, uint64_t *x, const char *what, const char *part)
{
    uint64_t size = *x * r->old_size;
    if (size % r->new_size) {
        lvx_error(r->ctx, EINVAL, "New size %" PRIu64 " for %s%s not an exact number of new "
                  "extents.", size, what, part);
        return false;
    }
    if (size / r->new_size > UINT32_MAX) {
        lvx_error(r->ctx, EINVAL, "New extent count %" PRIu64 " for %s%s exceeds 32 bits.",
                  size / r->new_size, what, part);
        return false;
    }
    if (r->apply)
        *x = size / r->new_size;
    return true;
}

static bool rescale32(struct rescale *r, uint32_t *x, const char *what, const char *part)
{
    uint64_t v = *x;
    if (!rescale(r, &v, what, part))
        return false;
    *x = (uint32_t)v;
    return true;
}

static bool rescale_seg(struct rescale *r, struct lvx_seg *s, const char *lv)
{
    uint64_t len = lvx_seg_area_len(s);
    if (!rescale(r, &s->start_extent, lv, " segment start") ||
        !rescale(r, &s->extent_count, lv, " segment length") ||
        !rescale(r, &len, lv, " area length") ||
        !rescale32(r, &s->extents_moved, lv, " extents moved"))
        return false;
    for (unsigned a = 0; a < s->area_count; a++) {
        if (!rescale(r, &s->areas[a].start, lv, s->areas[a].pv ? " pvseg start" : " area start"))
            return false;
        if (s->meta_areas && !rescale(r, &s->meta_areas[a].start, lv, " area start"))
            return false;
    }
    return true;
}

static bool rescale_vg(struct rescale *r, struct lvx_vg *vg)
{
    uint64_t count = lvx_vg_extent_count(vg), free_count = lvx_vg_free_count(vg);
    if (!rescale(r, &count, vg->name, "") || !rescale(r, &free_count, vg->name, " free space"))
        return false;
    for (unsigned i = 0; i < vg->pv_count; i++) {
        struct lvx_pv *pv = vg->pvs[i];
        const char *name = pv->ondisk.dev_name ? pv->ondisk.dev_name
                           : pv->device_hint ? pv->device_hint : "unknown device";
        uint64_t alloc = lvx_pv_alloc_count(pv);
        if (!rescale32(r, &pv->pe_count, name, "") ||
            !rescale(r, &alloc, name, " allocated space"))
            return false;
    }
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_lv *lv = vg->lvs[i];
        if (!rescale(r, &lv->le_count, lv->name, ""))
            return false;
        for (unsigned s = 0; s < lv->seg_count; s++)
            if (!rescale_seg(r, &lv->segs[s], lv->name))
                return false;
    }
    return true;
}

int lvx_vg_set_extent_size(struct lvx_ctx *ctx, struct lvx_vg *vg, uint32_t new_size)
{
    if (new_size == vg->extent_size)
        return 0;
    for (unsigned i = 0; i < vg->lv_count; i++)
        for (unsigned s = 0; s < vg->lvs[i]->seg_count; s++)
            if (vg->lvs[i]->segs[s].kind == LVX_SEG_OTHER)
                return lvx_error(ctx, ENOTSUP, "lvx cannot change the extent size of VG %s: "
                                 "LV %s has segments of type %s.", vg->name, vg->lvs[i]->name,
                                 vg->lvs[i]->segs[s].type_name);
    if (new_size > vg->extent_size &&
        (lvx_vg_extent_count(vg) * vg->extent_size) % new_size)
        return lvx_error(ctx, EINVAL, "New extent size is not a perfect fit");
    struct rescale r = { .ctx = ctx, .old_size = vg->extent_size, .new_size = new_size };
    if (!rescale_vg(&r, vg))            /* check everything first: nothing half done */
        return -EINVAL;
    r.apply = true;
    rescale_vg(&r, vg);
    vg->extent_size = new_size;
    return 0;
}
