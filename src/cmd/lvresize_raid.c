/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvresize_raid.c - lvextend/lvreduce/lvresize of RAID LVs (one raid segment over
 * rimage/rmeta sub-LVs), as LVM2 2.03.16 does it (facts from lib/metadata/lv_manip.c):
 *
 *   the size change is rounded to a multiple of the data stripes (raid0/4/5/6: the
 *   images without parity, raid10: images / copies, raid1: 1), up when extending and
 *   down when reducing (LVM2's "Rounding size ... to stripe boundary size" lines, its
 *   "Extending N mirror images." for raid1/raid10); every rimage grows or shrinks by its share
 *   (model/raid.h lvx_raid_image_extents), the rmeta sub-LVs are left as they are.
 *   Extension places each image's new extents as LVM2's allocation does for a raid
 *   segment: after the image's last extent when free (contiguous), else on the PVs
 *   the image uses (cling), else on any allowed PV, never on a PV another image of the
 *   LV uses (LVM2's parallel areas).  LVM2 allocates all images in one pass; lvx one
 *   image after the other, which gives the same result while each image's PV has
 *   room (compared with LVM2 in t0713/t0614).  NOT the same: for raid0/4/5/6, when
 *   an image's PV is full LVM2 may put its new extents on a PV another image uses
 *   (its new areas only need distinct PVs among themselves); lvx keeps images apart.
 *   Reduction takes the extents from the end of every image.  An extension raises
 *   the region size (doubling) until the bitmap's 2^21 regions cover the new size.
 * Old-style mirrors (segment type "mirror") are resized the same way as raid1: every
 * mimage by the change, the log left as it is (its region count follows the LV's size
 * when the kernel loads the table), as LVM2 does (compared on the host: t0695).  A
 * striped mirror (its first image striped): a reduction rounded up to whole stripes
 * ("Rounding size (N extents) up to stripe boundary size for segment ..."), an
 * extension made of segments of that many stripes in every image (t1074).
 * Entry point: lvx_lvresize_raid(), called by cmd/lvresize.c after the common checks, and
 * for a thin pool's raid _tdata/_tmeta when the pool grows (cmd/lvresize.c extend_pool_sub).
 */
#include "cmd/lvcmd.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_raid.h"
#include "map/map.h"

#include <string.h>

/* Data stripes of a raid segment: the extents of the LV per extent of an image. */
static uint32_t data_stripes(const struct lvx_seg *seg, const struct lvx_raid_type *t)
{
    if (!strcmp(t->name, "raid1"))
        return 1;
    if (t->mirrored)
        return seg->area_count / (seg->data_copies >= 2 ? seg->data_copies : 2);
    return seg->area_count - t->parity;
}

/* Does `lv` (a sub-LV) have extents on pv? */
static bool sub_on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv)
{
    for (unsigned i = 0; lv && i < lv->seg_count; i++)
        for (uint32_t a = 0; lv->segs[i].areas && a < lv->segs[i].area_count; a++)
            if (lv->segs[i].areas[a].pv == pv)
                return true;
    return false;
}

/* The PVs image `img` may grow onto: the allowed ones (all when none are named) that no
 * other image's rimage or rmeta uses. */
static unsigned image_targets(struct lvx_cmd_env *env, const struct lvx_seg *seg, uint32_t img,
                              const struct lvx_alloc_pv *pvs, unsigned pv_count,
                              struct lvx_alloc_pv **out)
{
    const struct lvx_vg *vg = seg->lv->vg;
    unsigned cap = pv_count ? pv_count : vg->pv_count, n = 0;
    struct lvx_alloc_pv *v = lvx_pool_alloc(env->pool, (cap ? cap : 1) * sizeof(*v));
    for (unsigned i = 0; i < cap; i++) {
        struct lvx_alloc_pv p = pv_count ? pvs[i] : (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
        bool used = false;
        for (uint32_t s = 0; s < seg->area_count && !used; s++)
            used = s != img && (sub_on_pv(seg->areas[s].lv, p.pv) ||
                                (seg->meta_areas && sub_on_pv(seg->meta_areas[s].lv, p.pv)));
        if (!used)
            v[n++] = p;
    }
    *out = v;
    return n;
}

int lvx_lvresize_raid_check(struct lvx_cmd_env *env, const struct lvx_lv *lv, bool lvreduce)
{
    const char *role = NULL;
    const struct lvx_seg *user = lvx_lv_used_by(lv, &role);
    if (user && user->kind == LVX_SEG_RAID) {      /* a sub-LV named on the command line */
        lvx_cmd_errorf("Cannot resize a RAID %s directly", role && !strcmp(role, "rmeta") ?
                       "metadata area" : "image");
        return LVX_EXIT_FAILED;
    }
    if (lvreduce && lvx_map_lv_is_raid(lv)) {
        /* lvreduce (not lvresize) asks the kernel's dm-raid target whether it can
         * shrink: without device-mapper (or with activation off) LVM2 refuses */
        struct lvx_actcmd act;
        if (lvx_actcmd_init(env, &act) || act.off || act.be != &lvx_activation_dm) {
            lvx_cmd_errorf("RAID module does not support shrinking.");
            return LVX_EXIT_FAILED;
        }
    }
    return 0;
}

static int grow_image(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      uint32_t s, uint64_t extents, uint32_t stripes, uint32_t stripe_size,
                      const struct lvx_alloc_pv *pvs, unsigned pv_count, enum lvx_alloc policy);

int lvx_raid_grow_image(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        uint32_t s, uint64_t extents, const struct lvx_alloc_pv *pvs,
                        unsigned pv_count, enum lvx_alloc policy)
{
    return grow_image(env, u, lv, s, extents, 1, 0, pvs, pv_count, policy);
}

/* Image s of lv grows by `extents`, in one segment of `stripes` stripes. */
static int grow_image(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      uint32_t s, uint64_t extents, uint32_t stripes, uint32_t stripe_size,
                      const struct lvx_alloc_pv *pvs, unsigned pv_count, enum lvx_alloc policy)
{
    const struct lvx_seg *seg = &lv->segs[0];
    struct lvx_lv *img = seg->areas[s].lv;
    struct lvx_free_maps *maps;
    struct lvx_alloc_pv *where;
    unsigned where_n = image_targets(env, seg, s, pvs, pv_count, &where);
    int rc;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    struct lvx_alloc_request req = {
        .extents = extents,
        .stripes = stripes,
        .stripe_size = stripes > 1 ? stripe_size : 0,
        .policy = policy,
        .pv_count = where_n,
        .pvs = where,
        /* LVM2 continues only the one-area segments it ends with (its contiguous check
         * skips striped ones) */
        .lv = img->seg_count && img->segs[img->seg_count - 1].area_count > 1 ? NULL : img,
        .lv_name = lv->name,
    };
    struct lvx_alloc_result res;
    if (!where_n) {
        lvx_cmd_errorf("Insufficient suitable allocatable extents for logical volume %s: "
                       "%llu more required", lv->name,
                       (unsigned long long)extents * seg->area_count);
        return LVX_EXIT_FAILED;
    }
    if (lvx_lvcmd_allocate(env, u->vg, maps, &req, false, &res) < 0)
        return lvx_cmd_fail(env);
    for (unsigned i = 0; !req.lv && i < res.seg_count; i++)    /* placed as for a new LV */
        res.segs[i].start_extent += img->le_count;
    if (lvx_alloc_append(env->ctx, img, &res) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

int lvx_lvresize_raid(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      uint64_t *new_count, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                      enum lvx_alloc policy)
{
    struct lvx_seg *seg = &lv->segs[0];
    bool mirror = seg->kind == LVX_SEG_MIRROR;      /* an old-style mirror: its images */
    const struct lvx_raid_type *t = mirror ? lvx_raid_type_find("raid1")
                                           : lvx_raid_type_find(seg->type_name);
    if (!t || !seg->area_count || !seg->areas) {
        lvx_cmd_errorf("Can't resize logical volume %s/%s: lvx does not handle segment type "
                       "%s yet.", lv->vg->name, lv->name, seg->type_name);
        return LVX_EXIT_FAILED;
    }
    uint32_t ds = data_stripes(seg, t);
    uint64_t cur = lv->le_count, e = lv->vg->extent_size;
    bool extend = *new_count > cur;
    /* a striped mirror: the stripes of its first image (LVM2's _lvseg_get_stripes; its
     * last segment when extending), every image's new extents striped alike */
    uint32_t mst = 1, mss = 0;
    const struct lvx_lv *i0 = mirror ? seg->areas[0].lv : NULL;
    if (i0 && i0->seg_count) {
        const struct lvx_seg *is = &i0->segs[extend ? i0->seg_count - 1 : 0];
        if (is->kind == LVX_SEG_STRIPED && is->area_count > 1) {
            mst = is->area_count;
            mss = is->stripe_size;
        }
    }
    if (extend)
        *new_count = cur + lvx_lvcmd_round_to_stripes(env, *new_count - cur, ds, e);
    if (!extend && ds > 1 && (cur - *new_count) % ds) {
        uint64_t delta = cur - *new_count, down = delta / ds * ds;
        lvx_notice(env->ctx, "Rounding size %s (%llu extents) down to stripe boundary size %s "
                   "(%llu extents).", lvx_lvcmd_size(env, delta * e), (unsigned long long)delta,
                   down ? lvx_lvcmd_size(env, down * e) : "0   ", (unsigned long long)down);
        *new_count = cur - down;
    }
    if (extend && seg->stripe_size && ds > 1 && !t->mirrored)
        lvx_notice(env->ctx, "Using stripesize of last segment %s",
                   lvx_lvcmd_size(env, seg->stripe_size));
    if (extend && t->mirrored && !env->args->count[LVX_OPT_MIRRORS])   /* -m: LVM2 is quiet */
        lvx_notice(env->ctx, "Extending %u mirror images.", !strcmp(t->name, "raid1") ?
                   seg->area_count : (seg->data_copies >= 2 ? seg->data_copies : 2));
    if (extend && mst > 1 && mss)
        lvx_notice(env->ctx, "Using stripesize of last segment %s", lvx_lvcmd_size(env, mss));
    /* the segment's size (the change when extending) in whole stripes, rounded toward
     * the original size */
    uint64_t rest = mst > 1 ? (extend ? *new_count - cur : *new_count) % mst : 0;
    if (rest) {
        lvx_notice(env->ctx, "Rounding size (%llu extents) up to stripe boundary size for "
                   "segment (%llu extents).", (unsigned long long)*new_count,
                   (unsigned long long)(*new_count - rest + mst));
        *new_count = *new_count - rest + mst;
    }
    if (*new_count == cur) {
        lvx_cmd_errorf("New size (%llu extents) matches existing size (%llu extents).",
                       (unsigned long long)*new_count, (unsigned long long)cur);
        return LVX_EXIT_FAILED;
    }
    /* LVM2's lvresize check: an LV with reshape space (a reshape's, ended or not) only
     * while the kernel (or the daemon) says it is in sync: not while it reshapes */
    if (!mirror && seg->reshape_count) {
        struct lvx_actcmd a;
        struct lvx_lv_kstate ks;
        memset(&ks, 0, sizeof(ks));
        bool active = lvx_actcmd_init(env, &a) == 0 && lvx_actcmd_is_active(env, &a, lv, &ks);
        if (!active || !ks.raid)
            lvx_cmd_errorf("Unable to determine sync status of %s/%s.", lv->vg->name, lv->name);
        if (!active || !ks.raid || !lvx_lvconvert_in_sync(lv, &ks)) {
            lvx_cmd_errorf("Can't resize reshaping LV %s/%s.", lv->vg->name, lv->name);
            return LVX_EXIT_FAILED;
        }
    }
    if (!extend && !mirror) {   /* LVM2 (VM, t0713): this line alone for an active RAID LV */
        struct lvx_actcmd a;
        if (lvx_actcmd_init(env, &a) == 0 && lvx_actcmd_is_active(env, &a, lv, NULL))
            lvx_warn(env->ctx, "THIS MAY DESTROY YOUR DATA (filesystem etc.)");
    }
    uint64_t img_ext = lvx_raid_image_extents(t, *new_count, seg->area_count, seg->data_copies);
    for (uint32_t s = 0; s < seg->area_count; s++) {
        struct lvx_lv *img = seg->areas[s].lv;
        if (!img || img->seg_count == 0 || img->segs[0].kind != LVX_SEG_STRIPED) {
            lvx_cmd_errorf("Can't resize logical volume %s/%s: image %u is not a plain "
                           "sub-LV.", lv->vg->name, lv->name, s);
            return LVX_EXIT_FAILED;
        }
        if (img_ext < img->le_count) {
            lvx_lvresize_truncate(img, img_ext);
            continue;
        }
        int rc = grow_image(env, u, lv, s, img_ext - img->le_count, mst, mss, pvs, pv_count,
                            policy);
        if (rc)
            return rc;
    }
    /* the kernel's bitmap tracks at most 2^21 regions: the region size doubles until the
     * new size fits (LVM2's lv_extend, raid_ensure_min_region_size; raid0 has none) */
    if (extend && !mirror && !t->raid0)
        seg->region_size = lvx_raid_min_region_size(*new_count * e, seg->region_size);
    seg->extent_count = *new_count;
    lv->le_count = *new_count;
    seg->raw = NULL;
    return 0;
}
