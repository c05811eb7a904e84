/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_raid.c - raid1 image count changes in the model (cmd/lvconvert_raid.h).
 *
 * As LVM2 2.03.16 (lib/metadata/raid_manip.c), facts only:
 *   adding   a linear LV first gets an rmeta sub-LV ("<lv>_rmeta_N", N one above the
 *            highest in use) on its own PVs, sized for its extents at the default
 *            region size; each new image is an rmeta + rimage pair placed as lvcreate
 *            places RAID images (one area per image, rmeta first) on PVs the LV does
 *            not use, created in the order rmeta, rimage; a linear LV's segments then
 *            move to a new sub-LV "<lv>_rimage_0" (created last) and the LV gets one
 *            raid1 segment.  New sub-LVs are READ/WRITE/REBUILD, hidden, allocation
 *            inherit, without tags.  The new images are numbered after the old ones.
 *   removing images whose rimage or rmeta is an error segment go first, then the
 *            highest-numbered ones on the PVs allowed; after each one the images above
 *            move down a slot and take the names of their new numbers.  Down to one
 *            image the LV takes rimage_0's segments back and rmeta_0/rimage_0 go;
 *            NOTSYNCED and WRITEMOSTLY are cleared.
 * A raid segment read from metadata is written from its typed fields afterwards
 * (raw dropped).
 */
#include "cmd/lvconvert_raid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cmd/lvcreate_raid.h"
#include "map/map.h"

#define RMETA_ZERO 4096u

bool lvx_raid_lv_is_linear(const struct lvx_lv *lv)
{
    return lv->seg_count >= 1 && lv->segs[0].kind == LVX_SEG_STRIPED &&
           lv->segs[0].area_count == 1;
}

uint32_t lvx_raid_image_count(const struct lvx_lv *lv)
{
    if (lv->seg_count == 1 && lv->segs[0].kind == LVX_SEG_RAID)
        return lv->segs[0].area_count;
    return 1;
}

static bool sub_failed(const struct lvx_lv *sub)
{
    if (!sub)
        return true;
    for (unsigned i = 0; i < sub->seg_count; i++) {
        const struct lvx_seg *s = &sub->segs[i];
        if (s->kind == LVX_SEG_ERROR || s->kind == LVX_SEG_ZERO)
            return true;
        for (uint32_t a = 0; s->areas && a < s->area_count; a++)
            if (s->areas[a].pv && (!s->areas[a].pv->ondisk.present ||
                                   (s->areas[a].pv->flags & LVX_PVF_MISSING)))
                return true;
    }
    return false;
}

uint32_t lvx_raid_failed_images(const struct lvx_lv *lv)
{
    if (lv->seg_count != 1 || lv->segs[0].kind != LVX_SEG_RAID)
        return 0;
    const struct lvx_seg *seg = &lv->segs[0];
    uint32_t n = 0;
    for (uint32_t i = 0; i < seg->area_count; i++)
        if (sub_failed(seg->areas[i].lv) || (seg->meta_areas && sub_failed(seg->meta_areas[i].lv)))
            n++;
    return n;
}

/* Does lv (or a sub-LV of it) have extents on pv? */
static bool lv_on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv, unsigned depth)
{
    if (!lv || depth > 8)
        return false;
    for (unsigned i = 0; i < lv->seg_count; i++) {
        const struct lvx_seg *s = &lv->segs[i];
        for (uint32_t a = 0; s->areas && a < s->area_count; a++)
            if (s->areas[a].pv == pv || (s->areas[a].lv && lv_on_pv(s->areas[a].lv, pv, depth + 1)))
                return true;
        for (uint32_t a = 0; s->meta_areas && a < s->area_count; a++)
            if (lv_on_pv(s->meta_areas[a].lv, pv, depth + 1))
                return true;
    }
    return false;
}

bool lvx_raid_lv_on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv)
{
    return lv_on_pv(lv, pv, 0);
}

static bool on_any(const struct lvx_lv *lv, const struct lvx_alloc_pv *pvs, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (lv_on_pv(lv, pvs[i].pv, 0))
            return true;
    return false;
}

/* One above the highest N of "<lv>_<kind>_N" among the VG's LVs and historical LVs
 * (LVM2's generate_lv_name). */
uint32_t lvx_raid_next_index(const struct lvx_vg *vg, const char *lv_name, const char *kind)
{
    size_t l = strlen(lv_name), k = strlen(kind);
    long high = -1;
    for (unsigned i = 0; i < vg->lv_count + vg->historical_names.n; i++) {
        const char *n = i < vg->lv_count ? vg->lvs[i]->name
                                         : vg->historical_names.v[i - vg->lv_count];
        if (strncmp(n, lv_name, l) || n[l] != '_' || strncmp(n + l + 1, kind, k) ||
            n[l + 1 + k] != '_')
            continue;
        const char *d = n + l + k + 2;
        long v = 0;
        if (*d < '0' || *d > '9')
            continue;
        while (*d >= '0' && *d <= '9' && v < 1000000)
            v = v * 10 + (*d++ - '0');
        if (v > high)
            high = v;
    }
    return (uint32_t)(high + 1);
}

static struct lvx_lv *new_sub(struct lvx_vg *vg, const struct lvx_lv *top, const char *kind,
                              uint32_t i, bool rebuild, struct lvx_raid_change *ch)
{
    struct lvx_lv *s = lvx_raid_new_sub(vg, top, kind, i, false);
    s->alloc = LVX_ALLOC_INHERIT;
    s->creation_time = (uint64_t)time(NULL);
    if (rebuild)
        s->status |= LVX_LV_REBUILD;
    if (ch && ch->added_n < LVX_RAID_CHANGE_MAX)
        ch->added[ch->added_n++] = s;
    return s;
}

unsigned lvx_raid_own_pvs(struct lvx_cmd_env *env, const struct lvx_lv *lv, struct lvx_alloc_pv **out)
{
    unsigned n = 0, cap = 0;
    for (unsigned i = 0; i < lv->seg_count; i++)
        cap += lv->segs[i].area_count;
    struct lvx_alloc_pv *v = lvx_pool_alloc(env->pool, (cap ? cap : 1) * sizeof(*v));
    for (unsigned i = 0; i < lv->seg_count; i++) {
        const struct lvx_seg *s = &lv->segs[i];
        for (uint32_t a = 0; s->areas && a < s->area_count; a++) {
            struct lvx_pv *pv = s->areas[a].pv;
            bool seen = !pv;
            for (unsigned k = 0; k < n && !seen; k++)
                seen = v[k].pv == pv;
            if (!seen)
                v[n++] = (struct lvx_alloc_pv){ pv, 0, NULL };
        }
    }
    *out = v;
    return n;
}

/* Do lv's data areas (its images, not their rmeta) have extents on pv?  Images whose
 * skip[a] is set (being replaced) do not count. */
static bool data_on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv, const bool *skip)
{
    for (unsigned i = 0; i < lv->seg_count; i++) {
        const struct lvx_seg *s = &lv->segs[i];
        for (uint32_t a = 0; s->areas && a < s->area_count; a++)
            if (!(skip && s->kind == LVX_SEG_RAID && skip[a]) &&
                (s->areas[a].pv == pv || (s->areas[a].lv && lv_on_pv(s->areas[a].lv, pv, 1))))
                return true;
    }
    return false;
}

/* The PVs images may go to: those allowed (every PV of the VG when none are named),
 * without the ones lv's images use (LVM2's parallel areas: the rmeta's PVs may be
 * taken; so may the PVs of images being replaced, skip[]). */
static unsigned image_pvs(struct lvx_cmd_env *env, const struct lvx_lv *lv,
                          const struct lvx_alloc_pv *pvs, unsigned pv_count, const bool *skip,
                          struct lvx_alloc_pv **out)
{
    const struct lvx_vg *vg = lv->vg;
    unsigned cap = pv_count ? pv_count : vg->pv_count, n = 0;
    struct lvx_alloc_pv *v = lvx_pool_alloc(env->pool, (cap ? cap : 1) * sizeof(*v));
    for (unsigned i = 0; i < cap; i++) {
        struct lvx_alloc_pv p = pv_count ? pvs[i] : (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
        if (!data_on_pv(lv, p.pv, skip))
            v[n++] = p;
    }
    *out = v;
    return n;
}

unsigned lvx_raid_image_pv_count(struct lvx_cmd_env *env, const struct lvx_lv *lv,
                                 const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    struct lvx_alloc_pv *v;
    return image_pvs(env, lv, pvs, pv_count, NULL, &v);
}

int lvx_raid_add_images(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                        struct lvx_lv *lv, uint32_t new_count, uint32_t region_size,
                        const struct lvx_alloc_pv *pvs, unsigned pv_count,
                        struct lvx_raid_change *ch)
{
    bool linear = lvx_raid_lv_is_linear(lv);
    uint32_t old = lvx_raid_image_count(lv), count = new_count - old;
    uint32_t es = vg->extent_size;
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, lv->alloc);
    uint64_t image_ext = linear ? lv->le_count : lv->segs[0].areas[0].lv->le_count;
    /* LVM2 sizes the new rmeta LVs with the region size the LV has at that point: a
     * linear LV's is the default, raised for the 2^21-region bitmap */
    uint32_t alloc_region = linear ? lvx_raid_min_region_size(lv->le_count * (uint64_t)es,
                                                              lvx_raid_default_region(env))
                                   : lv->segs[0].region_size;
    uint32_t meta_ext = lvx_raid_rmeta_extents(image_ext, alloc_region, es);
    struct lvx_lv *rmeta0 = NULL;
    int r;

    memset(ch, 0, sizeof(*ch));
    if (linear) {
        struct lvx_alloc_pv *own;
        unsigned own_n = lvx_raid_own_pvs(env, lv, &own);
        rmeta0 = new_sub(vg, lv, "rmeta", lvx_raid_next_index(vg, lv->name, "rmeta"), true, ch);
        if ((r = lvx_raid_alloc_images(env, maps, lv->name, 1, 0, meta_ext, policy, own, own_n,
                                       (struct lvx_lv *[]){ NULL }, &rmeta0)) < 0)
            return r;
    }
    struct lvx_lv **img = lvx_pool_alloc(env->pool, count * sizeof(*img));
    struct lvx_lv **meta = lvx_pool_alloc(env->pool, count * sizeof(*meta));
    uint32_t first_img = linear ? 1 : lvx_raid_next_index(vg, lv->name, "rimage");
    for (uint32_t s = 0; s < count; s++) {
        meta[s] = new_sub(vg, lv, "rmeta", lvx_raid_next_index(vg, lv->name, "rmeta"), true, ch);
        img[s] = new_sub(vg, lv, "rimage", first_img + s, true, ch);
    }
    struct lvx_alloc_pv *where;
    unsigned where_n = image_pvs(env, lv, pvs, pv_count, NULL, &where);
    if (!where_n)       /* every PV allowed holds an image already (an empty list is "any") */
        return lvx_error(env->ctx, ENOSPC, "Insufficient suitable allocatable extents for "
                         "logical volume : %llu more required",
                         (unsigned long long)(count * (image_ext + meta_ext)));
    if ((r = lvx_raid_alloc_images(env, maps, lv->name, count, image_ext, meta_ext, policy,
                                   where, where_n, img, meta)) < 0)
        return r;

    struct lvx_seg *seg;
    if (linear) {
        /* the LV's segments become the rimage_0 layer (LVM2's insert_layer_for_lv) */
        struct lvx_lv *layer = new_sub(vg, lv, "rimage", 0, false, NULL);
        layer->segs = lv->segs;
        layer->seg_count = lv->seg_count;
        layer->le_count = lv->le_count;
        for (unsigned i = 0; i < layer->seg_count; i++)
            layer->segs[i].lv = layer;
        lv->segs = lvx_pool_alloc(vg->pool, sizeof(*lv->segs));
        lv->seg_count = 1;
        seg = &lv->segs[0];
        seg->lv = lv;
        seg->start_extent = 0;
        seg->extent_count = lv->le_count;
        seg->type = seg->type_name = lvx_pool_strdup(vg->pool, "raid1");
        seg->kind = LVX_SEG_RAID;
        seg->areas = lvx_pool_alloc(vg->pool, sizeof(*seg->areas));
        seg->meta_areas = lvx_pool_alloc(vg->pool, sizeof(*seg->meta_areas));
        seg->areas[0].lv = layer;
        seg->meta_areas[0].lv = rmeta0;
        seg->area_count = 1;
    } else {
        seg = &lv->segs[0];
    }
    struct lvx_area *areas = lvx_pool_alloc(vg->pool, new_count * sizeof(*areas));
    struct lvx_area *metas = lvx_pool_alloc(vg->pool, new_count * sizeof(*metas));
    memcpy(areas, seg->areas, old * sizeof(*areas));
    memcpy(metas, seg->meta_areas, old * sizeof(*metas));
    for (uint32_t s = 0; s < count; s++) {
        areas[old + s] = (struct lvx_area){ NULL, img[s], 0 };
        metas[old + s] = (struct lvx_area){ NULL, meta[s], 0 };
    }
    seg->areas = areas;
    seg->meta_areas = metas;
    seg->area_count = seg->stripe_count = new_count;
    seg->region_size = region_size;
    seg->raw = NULL;
    return 0;
}

/* Take image i out of the segment (its slot is left empty). */
static void extract(struct lvx_lv *lv, uint32_t i, struct lvx_raid_change *ch)
{
    struct lvx_seg *seg = &lv->segs[0];
    struct lvx_lv *subs[2] = { seg->meta_areas[i].lv, seg->areas[i].lv };
    for (int k = 0; k < 2; k++) {
        if (!subs[k])
            continue;
        ch->gone_old[ch->gone_n] = subs[k]->name;
        subs[k]->name = lvx_pool_printf(lv->vg->pool, "%s_extracted", subs[k]->name);
        ch->gone[ch->gone_n++] = subs[k];
        lvx_vg_remove_lv(lv->vg, subs[k]);
    }
    seg->areas[i].lv = seg->meta_areas[i].lv = NULL;
}

/* Move images above empty slots down, renaming them (LVM2's
 * _shift_and_rename_image_components). */
static void shift_down(struct lvx_lv *lv, struct lvx_raid_change *ch)
{
    struct lvx_seg *seg = &lv->segs[0];
    uint32_t missing = 0;
    for (uint32_t s = 0; s < seg->area_count; s++) {
        if (!seg->areas[s].lv) {
            missing++;
            continue;
        }
        if (!missing)
            continue;
        struct lvx_lv *subs[2] = { seg->meta_areas[s].lv, seg->areas[s].lv };
        const char *kinds[2] = { "rmeta", "rimage" };
        for (int k = 0; k < 2; k++) {
            unsigned m = 0;
            while (m < ch->moved_n && ch->moved[m] != subs[k])
                m++;
            if (m == ch->moved_n && ch->moved_n < LVX_RAID_CHANGE_MAX) {
                ch->moved[m] = subs[k];
                ch->moved_old[m] = subs[k]->name;
                ch->moved_n++;
            }
            subs[k]->name = lvx_pool_printf(lv->vg->pool, "%s_%s_%u", lv->name, kinds[k],
                                            s - missing);
        }
        seg->areas[s - missing] = seg->areas[s];
        seg->meta_areas[s - missing] = seg->meta_areas[s];
    }
    seg->area_count -= missing;
    seg->stripe_count = seg->area_count;
}

static bool is_error_sub(const struct lvx_lv *sub)
{
    return sub && sub->seg_count && sub->segs[0].kind == LVX_SEG_ERROR;
}

int lvx_raid_remove_images(struct lvx_cmd_env *env, struct lvx_lv *lv, uint32_t new_count,
                           const struct lvx_alloc_pv *pvs, unsigned pv_count,
                           struct lvx_raid_change *ch)
{
    struct lvx_seg *seg = &lv->segs[0];
    int extract_n = (int)(seg->area_count - new_count);
    const struct lvx_vg *vg = lv->vg;
    struct lvx_alloc_pv *all = NULL;
    memset(ch, 0, sizeof(*ch));
    if (!pv_count) {
        all = lvx_pool_alloc(env->pool, (vg->pv_count ? vg->pv_count : 1) * sizeof(*all));
        for (unsigned i = 0; i < vg->pv_count; i++)
            all[i] = (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
    }
    const struct lvx_alloc_pv *targets = pv_count ? pvs : all;
    unsigned target_n = pv_count ? pv_count : vg->pv_count;
    if ((int)target_n < extract_n)
        return lvx_error(env->ctx, EINVAL, "Unable to remove %d images:  Only %u device%s given.",
                         extract_n, target_n, target_n == 1 ? "" : "s");
    /* two passes from the top: error sub-LVs first, then images on the targets */
    for (int ss = (int)seg->area_count * 2 - 1; ss >= 0 && extract_n; ss--) {
        uint32_t s = (uint32_t)ss % seg->area_count;
        const struct lvx_lv *img = seg->areas[s].lv, *meta = seg->meta_areas[s].lv;
        if ((uint32_t)ss / seg->area_count) {
            if (!is_error_sub(img) && !is_error_sub(meta))
                continue;
            if (pv_count)
                return lvx_error(env->ctx, EINVAL, "%s/%s has components with error targets "
                                 "that must be removed first: %s/%s.", vg->name, lv->name,
                                 vg->name, img->name);
        } else if (!on_any(img, targets, target_n) && !on_any(meta, targets, target_n)) {
            continue;
        }
        extract(lv, s, ch);
        shift_down(lv, ch);
        extract_n--;
    }
    if (extract_n)
        return lvx_error(env->ctx, EINVAL, "Unable to extract enough images to satisfy request.");
    seg->raw = NULL;
    if (new_count > 1)
        return 0;

    /* down to linear: the LV takes the segments of its last image back */
    struct lvx_lv *layer = seg->areas[0].lv, *rmeta = seg->meta_areas[0].lv;
    ch->gone_old[ch->gone_n] = rmeta->name;
    ch->gone[ch->gone_n++] = rmeta;
    ch->gone_old[ch->gone_n] = layer->name;
    ch->gone[ch->gone_n++] = layer;
    lvx_vg_remove_lv(lv->vg, rmeta);
    lvx_vg_remove_lv(lv->vg, layer);
    lv->segs = layer->segs;
    lv->seg_count = layer->seg_count;
    for (unsigned i = 0; i < lv->seg_count; i++)
        lv->segs[i].lv = lv;
    lv->status &= ~(uint32_t)(LVX_LV_NOTSYNCED | LVX_LV_WRITEMOSTLY);
    return 0;
}

bool lvx_raid_clear_rebuild(struct lvx_lv *lv)
{
    bool any = false;
    if (!lvx_map_lv_is_raid(lv))
        return false;
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; s < seg->area_count; s++) {
        struct lvx_lv *subs[2] = { seg->areas[s].lv, seg->meta_areas ? seg->meta_areas[s].lv : NULL };
        for (int k = 0; k < 2; k++)
            if (subs[k] && (subs[k]->status & LVX_LV_REBUILD)) {
                subs[k]->status &= ~(uint32_t)LVX_LV_REBUILD;
                any = true;
            }
    }
    return any;
}

/* The images of lv to replace/rebuild (match[]): those with a sub-LV on a PV of
 * `remove` (and, with failed, those whose sub-LVs failed), with LVM2's refusals (ctx
 * message, -EINVAL).  *n: how many (0: none). */
static int select_images(struct lvx_cmd_env *env, struct lvx_lv *lv,
                         const struct lvx_alloc_pv *remove, unsigned remove_n, bool failed,
                         const bool *dead, const char *action, bool *match, uint32_t *n)
{
    struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_raid_type *t = lvx_raid_type_find(seg->type_name);
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    *n = 0;
    if (!t || t->raid0 || !seg->meta_areas)
        return lvx_error(env->ctx, EINVAL, "Can't replace any devices in %s LV %s.",
                         seg->type_name, full);
    for (uint32_t s = 0; s < seg->area_count; s++) {
        const struct lvx_lv *img = seg->areas[s].lv, *meta = seg->meta_areas[s].lv;
        match[s] = (failed && (sub_failed(img) || sub_failed(meta))) || (dead && dead[s]) ||
                   on_any(img, remove, remove_n) || on_any(meta, remove, remove_n);
        *n += match[s];
    }
    if (!*n)
        return 0;
    if (*n == seg->area_count)
        return lvx_error(env->ctx, EINVAL, "Unable to %s all PVs from %s at once.", action, full);
    if (t->parity && *n > t->parity)
        return lvx_error(env->ctx, EINVAL, "Unable to %s more than %u PVs from (%s) %s.", action,
                         t->parity, seg->type_name, full);
    if (!strcmp(t->name, "raid10")) {
        uint32_t per_group = 0;
        for (uint32_t i = 0; i < seg->area_count * 2; i++) {
            uint32_t s = i % seg->area_count;
            if (!(i % 2))
                per_group = 0;
            if (on_any(seg->areas[s].lv, remove, remove_n) ||
                on_any(seg->meta_areas[s].lv, remove, remove_n) || (dead && dead[s]) ||
                is_error_sub(seg->areas[s].lv) || is_error_sub(seg->meta_areas[s].lv))
                per_group++;
            if (per_group >= 2)
                return lvx_error(env->ctx, EINVAL, "Unable to %s all the devices in a RAID10 "
                                 "mirror group.", action);
        }
    }
    return 0;
}

int lvx_raid_mark_rebuild(struct lvx_cmd_env *env, struct lvx_lv *lv,
                          const struct lvx_alloc_pv *pvs, unsigned pv_count, uint32_t *marked)
{
    struct lvx_seg *seg = &lv->segs[0];
    bool *match = lvx_pool_alloc(env->pool, (seg->area_count ? seg->area_count : 1) * sizeof(*match));
    int r = select_images(env, lv, pvs, pv_count, false, NULL, "rebuild", match, marked);
    if (r < 0 || !*marked)
        return r;
    for (uint32_t s = 0; s < seg->area_count; s++) {
        if (!match[s])
            continue;
        if ((seg->areas[s].lv->status | seg->meta_areas[s].lv->status) & LVX_LV_REBUILD)
            return lvx_error(env->ctx, EINVAL, "Can't rebuild the same area twice in RAID LV "
                             "%s/%s.", lv->vg->name, lv->name);
        seg->areas[s].lv->status |= LVX_LV_REBUILD;
        seg->meta_areas[s].lv->status |= LVX_LV_REBUILD;
    }
    seg->raw = NULL;
    return 0;
}

int lvx_raid_replace_images(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                            struct lvx_lv *lv, const struct lvx_alloc_pv *remove, unsigned remove_n,
                            const bool *dead, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                            const char *action, struct lvx_raid_change *ch, uint32_t *replaced)
{
    struct lvx_seg *seg = &lv->segs[0];
    bool *match = lvx_pool_alloc(env->pool, (seg->area_count ? seg->area_count : 1) * sizeof(*match));
    uint32_t n = 0;
    int r;

    memset(ch, 0, sizeof(*ch));
    *replaced = 0;
    if ((r = select_images(env, lv, remove, remove_n, true, dead, action, match, &n)) < 0 || !n)
        return r;

    /* new images first (named after the highest in use, as LVM2 allocates them before
     * the old ones leave), on PVs the LV does not use */
    uint64_t image_ext = 0, meta_ext = 0;
    for (uint32_t s = 0; s < seg->area_count; s++)
        if (!match[s]) {
            image_ext = seg->areas[s].lv->le_count;
            meta_ext = seg->meta_areas[s].lv->le_count;
            break;
        }
    struct lvx_lv **img = lvx_pool_alloc(env->pool, n * sizeof(*img));
    struct lvx_lv **meta = lvx_pool_alloc(env->pool, n * sizeof(*meta));
    for (uint32_t k = 0; k < n; k++) {
        meta[k] = new_sub(vg, lv, "rmeta", lvx_raid_next_index(vg, lv->name, "rmeta"), true, ch);
        img[k] = new_sub(vg, lv, "rimage", lvx_raid_next_index(vg, lv->name, "rimage"), true, ch);
    }
    /* on PVs no image uses; a repair of an LV with missing PVs that finds no room there
     * may take the replaced images' own PVs (LVM2's _remove_partial_multi_segment_image
     * fallback) */
    bool partial = lvx_map_lv_partial(lv);
    for (int attempt = 0;; attempt++) {
        struct lvx_alloc_pv *where;
        unsigned where_n = image_pvs(env, lv, pvs, pv_count, attempt ? match : NULL, &where);
        r = !where_n ? lvx_error(env->ctx, ENOSPC, "Insufficient suitable allocatable extents "
                                 "for logical volume : %llu more required",
                                 (unsigned long long)(n * (image_ext + meta_ext)))
                     : lvx_raid_alloc_images(env, maps, lv->name, n, image_ext,
                                             (uint32_t)meta_ext,
                                             lvx_lvcmd_effective_policy(vg, lv->alloc), where,
                                             where_n, img, meta);
        if (r >= 0)
            break;
        if (attempt || !partial)
            return r;
        lvx_error_clear(env->ctx);
    }
    /* the old ones leave their slots (no shift); the new ones take the slots and names */
    uint32_t k = 0;
    for (uint32_t s = 0; s < seg->area_count; s++) {
        if (!match[s])
            continue;
        extract(lv, s, ch);
        meta[k]->name = lvx_pool_printf(vg->pool, "%s_rmeta_%u", lv->name, s);
        img[k]->name = lvx_pool_printf(vg->pool, "%s_rimage_%u", lv->name, s);
        seg->meta_areas[s] = (struct lvx_area){ NULL, meta[k], 0 };
        seg->areas[s] = (struct lvx_area){ NULL, img[k], 0 };
        k++;
    }
    seg->raw = NULL;
    *replaced = n;
    return 0;
}

/* Rename every image of lv's segment to "<lv>_<kind>_<slot>", recorded as moved. */
static void rename_images(struct lvx_lv *lv, const char *kind, struct lvx_raid_change *ch)
{
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; s < seg->area_count && ch->moved_n < LVX_RAID_CHANGE_MAX; s++) {
        struct lvx_lv *img = seg->areas[s].lv;
        ch->moved[ch->moved_n] = img;
        ch->moved_old[ch->moved_n++] = img->name;
        img->name = lvx_pool_printf(lv->vg->pool, "%s_%s_%u", lv->name, kind, s);
    }
}

int lvx_raid_from_mirror(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                         struct lvx_lv *lv, uint32_t region_size, struct lvx_raid_change *ch)
{
    struct lvx_seg *seg = &lv->segs[0];
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, lv->alloc);
    struct lvx_area *metas = lvx_pool_alloc(vg->pool, seg->area_count * sizeof(*metas));
    int r;

    memset(ch, 0, sizeof(*ch));
    /* an rmeta for each image, on the image's own PVs, before the log goes */
    for (uint32_t s = 0; s < seg->area_count; s++) {
        struct lvx_lv *img = seg->areas[s].lv, *meta;
        struct lvx_alloc_pv *own;
        unsigned own_n = lvx_raid_own_pvs(env, img, &own);
        uint32_t meta_ext = lvx_raid_rmeta_extents(img->le_count, region_size, vg->extent_size);
        meta = new_sub(vg, lv, "rmeta", lvx_raid_next_index(vg, lv->name, "rmeta"), false, ch);
        if ((r = lvx_raid_alloc_images(env, maps, lv->name, 1, 0, meta_ext, policy, own, own_n,
                                       (struct lvx_lv *[]){ NULL }, &meta)) < 0)
            return r;
        metas[s] = (struct lvx_area){ NULL, meta, 0 };
    }
    if (seg->log_lv) {
        ch->gone_old[ch->gone_n] = seg->log_lv->name;
        ch->gone[ch->gone_n++] = seg->log_lv;
        lvx_vg_remove_lv(vg, seg->log_lv);
        seg->log_lv = NULL;
    }
    rename_images(lv, "rimage", ch);
    seg->type = seg->type_name = lvx_pool_strdup(vg->pool, "raid1");
    seg->kind = LVX_SEG_RAID;
    seg->meta_areas = metas;
    seg->stripe_count = seg->area_count;
    seg->region_size = region_size;
    seg->raw = NULL;
    lv->status &= ~(uint32_t)LVX_LV_NOTSYNCED;
    return 0;
}

void lvx_raid_to_mirror(struct lvx_lv *lv, uint32_t region_size, struct lvx_raid_change *ch)
{
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; s < seg->area_count && ch->gone_n < LVX_RAID_CHANGE_MAX; s++) {
        struct lvx_lv *meta = seg->meta_areas[s].lv;
        ch->gone_old[ch->gone_n] = meta->name;
        ch->gone[ch->gone_n++] = meta;
        lvx_vg_remove_lv(lv->vg, meta);
    }
    seg->meta_areas = NULL;
    rename_images(lv, "mimage", ch);
    seg->type = seg->type_name = lvx_pool_strdup(lv->vg->pool, "mirror");
    seg->kind = LVX_SEG_MIRROR;
    seg->stripe_count = seg->area_count;
    seg->region_size = region_size;
    seg->raw = NULL;
}
