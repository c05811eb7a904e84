/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_reshape.c - the lvconvert forms by which LVM2 2.03.16 reshapes a
 * raid4/5/6/10 LV in the kernel (lv_raid_convert, facts only): another layout at the
 * same level (raid5_ls -> raid5_rs/la/ra/n, raid6_zr -> raid6_nr ...), another stripe
 * size (--stripesize), stripes added or removed (--stripes).  LVM2 allocates reshape
 * space in each image (the segment's reshape_count, the images' data_offset), loads
 * the new layout and leaves the kernel's md to move the data.
 *
 * lvx recognises these forms and answers as LVM2 does where LVM2 refuses (the line
 * "Using default stripesize 64.00 KiB." when no -I is given, then "VG/LV must be
 * active to perform this operation." for an inactive LV).  Of an active LV in the
 * kernel (dm backend) it adds stripes to a raid4/5/6 LV as LVM2 does (add_stripes);
 * the other forms (removing stripes, another layout or stripe size, raid10, an LV
 * the daemon serves) are refused with lvx's own line: lvx does not reshape it yet.
 * The daemon refuses to serve an LV that LVM2 or lvx reshaped or is reshaping
 * (model/raid.h lvx_raid_reshape_state).
 */
#include "cmd/lvconvert_raid.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_restripe.h"
#include "map/map.h"
#include "model/raid.h"

#include <errno.h>
#include <string.h>

/* md's level of a RAID type name: 4, 5, 6, 10; 0 for the others (raid0, raid1). */
static unsigned level(const char *t)
{
    const struct lvx_raid_type *rt = t ? lvx_raid_type_find(t) : NULL;
    if (!rt || rt->raid0 || !strcmp(rt->name, "raid1"))
        return 0;
    if (rt->mirrored)
        return 10;
    if (!strcmp(rt->name, "raid4"))
        return 4;
    return rt->parity == 2 ? 6 : 5;
}

bool lvx_reshape_wanted(const struct lvx_cmd_env *env, const struct lvx_lv *lv, const char *type)
{
    const struct lvx_cmd_args *a = env->args;
    if (!lvx_map_lv_is_raid(lv) || lv->seg_count != 1)
        return false;
    const char *from = lv->segs[0].type_name;
    unsigned l = level(from);
    if (!l || a->count[LVX_OPT_MIRRORS])
        return false;
    if (a->count[LVX_OPT_STRIPES] || a->count[LVX_OPT_STRIPESIZE])
        return !type || level(type) == l;
    if (!type || level(type) != l || l == 4 || l == 10)
        return false;
    /* the same level in another layout (raid5 is raid5_ls, raid6 raid6_zr) */
    const struct lvx_raid_type *f = lvx_raid_type_find(from), *t = lvx_raid_type_find(type);
    return strcmp(f->dm_name, t->dm_name) != 0;
}

/* The first `r` extents of an image: its last r extents (the reshape space allocated
 * at its end) moved in front of its data, as LVM2's "(Re)allocating reshape space"
 * does for a forward reshape; the moved segment carries reshape_count r.  Only when
 * they are the tail of one linear segment (space_movable; LVM2 moves several
 * segments: not recorded, so add_stripes refuses before its first commit). */
static bool space_movable(const struct lvx_lv *img, uint32_t r)
{
    const struct lvx_seg *last = &img->segs[img->seg_count - 1];
    return last->kind == LVX_SEG_STRIPED && last->stripe_count == 1 &&
           last->extent_count >= r && last->areas[0].pv;
}

static int space_to_front(struct lvx_cmd_env *env, struct lvx_lv *img, uint32_t r)
{
    struct lvx_seg *last = &img->segs[img->seg_count - 1];
    if (!space_movable(img, r))
        return lvx_error(env->ctx, EINVAL, "image %s: its reshape space is not one linear "
                         "segment", img->name);
    unsigned n = img->seg_count + (last->extent_count > r);
    struct lvx_seg *segs = lvx_pool_alloc(img->vg->pool, n * sizeof(*segs));
    struct lvx_area *a = lvx_pool_alloc(img->vg->pool, sizeof(*a));
    segs[0] = *last;
    *a = last->areas[0];
    a->start += last->extent_count - r;
    segs[0].areas = a;
    segs[0].extent_count = r;
    segs[0].reshape_count = r;
    segs[0].extra = NULL;
    memcpy(segs + 1, img->segs, img->seg_count * sizeof(*segs));
    if (last->extent_count > r)
        segs[n - 1].extent_count -= r;
    uint64_t le = 0;
    for (unsigned i = 0; i < n; i++) {
        segs[i].lv = img;
        segs[i].start_extent = le;
        le += segs[i].extent_count;
    }
    img->segs = segs;
    img->seg_count = n;
    return 0;
}

/* Stage the new table, commit, swap (suspend/resume): 0 or the exit code. */
static int commit_reload(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                         struct lvx_actcmd *act, struct lvx_lv *lv)
{
    int rc;
    if (env->args->count[LVX_OPT_TEST])
        return lvx_lvcmd_commit(env, u);
    if (act->be->stage(env->ctx, lv, &act->opts) < 0)
        return lvx_cmd_fail(env);
    if ((rc = lvx_lvcmd_commit(env, u))) {
        if (act->be->unstage(env->ctx, lv) < 0)
            lvx_error_clear(env->ctx);
        return rc;
    }
    return lvx_actcmd_finish(env, act, lv, true);
}

/* --stripes N above the data stripes of an active raid4/5/6 LV, LVM2's three steps
 * (guest record, tests/kernel/raid-stripes.sh): (1) the new image pairs added (REBUILD)
 * and reshape space (`r` extents) allocated at the end of every image, committed and
 * loaded with "rebuild N" and the new size; (2) the reshape space moved in front of
 * the data of every image, the segment type "+RESHAPE+RESHAPE_DATA_OFFSET", REBUILD
 * cleared on the new rimages (not on their rmeta: LVM2 leaves it), committed and
 * loaded with "delta_disks D data_offset r*extent_size": the kernel reshapes; (3)
 * committed once more and loaded without them.  LVM2 does not wait for the kernel's
 * reshape and leaves the type's flags and reshape_count in the metadata. */
static int add_stripes(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                       struct lvx_lv *lv, const struct lvx_raid_type *t,
                       const struct lvx_restripe_opts *o, const char *full)
{
    struct lvx_seg *seg = &lv->segs[0];
    struct lvx_vg *vg = u->vg;
    uint32_t old_n = seg->area_count, new_n = o->stripes + t->parity, es = vg->extent_size;
    uint64_t img_ext = seg->areas[0].lv->le_count;
    uint64_t new_le = img_ext * o->stripes;
    /* LVM2's reshape space per image: max(1 MiB, the stripe size) in whole extents,
     * rounded down, at least one */
    uint32_t sz = seg->stripe_size > 2048 ? seg->stripe_size : 2048;
    uint32_t r = sz / es ? sz / es : 1;
    struct lvx_raid_change ch;
    int rc;

    lvx_warn(env->ctx, "WARNING: Adding stripes to active logical volume %s will grow it from "
             "%llu to %llu extents!", full, (unsigned long long)lv->le_count,
             (unsigned long long)new_le);
    lvx_notice(env->ctx, "Run \"lvresize -l%llu %s\" to shrink it or use the additional "
               "capacity.", (unsigned long long)lv->le_count, full);
    /* LVM2's question (_raid_reshape_add_images): no answer is no */
    if (!env->args->count[LVX_OPT_YES] &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to add %u images "
                                           "to %s LV %s?", new_n - old_n, seg->type_name, full))) {
        lvx_cmd_errorf("Logical volume %s NOT converted.", full);
        lvx_cmd_errorf("Reshape request failed on LV %s.", full);
        return LVX_EXIT_FAILED;
    }
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)))
        return rc;
    struct lvx_free_maps *maps;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    if (lvx_raid_add_images(env, vg, maps, lv, new_n, seg->region_size, pvs, pv_count, &ch) < 0)
        return lvx_cmd_fail(env);
    seg = &lv->segs[0];
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, lv->alloc);
    for (uint32_t s = 0; s < new_n; s++)
        if ((rc = lvx_raid_grow_image(env, u, lv, s, r, NULL, 0, policy)))
            return rc;
    /* step 2 moves one linear segment per image: known before anything is written */
    for (uint32_t s = 0; s < new_n; s++)
        if (!space_movable(seg->areas[s].lv, r)) {
            lvx_cmd_errorf("lvx cannot reshape %s: the reshape space of %s (%u extents) is "
                           "not one linear segment on one PV; free %u contiguous extents "
                           "there first.", full, seg->areas[s].lv->name, r, r);
            return LVX_EXIT_FAILED;
        }
    seg->reshape_count = r;
    /* LVM2 counts the reshape space in the segment (and so in the LV's extents); the
     * LV's size and its table leave it out (model/raid.h lvx_raid_reshape_extents) */
    seg->extent_count = lv->le_count = (img_ext + r) * o->stripes;
    seg->raw = NULL;
    if (!env->args->count[LVX_OPT_TEST]) {
        for (unsigned i = 0; i < ch.added_n; i++)
            if (!strstr(ch.added[i]->name, "_rimage_") &&
                lvx_lvcmd_zero_start(env, u, ch.added[i], 4096) < 0)
                return lvx_cmd_fail(env);
    }
    if ((rc = commit_reload(env, u, act, lv)))
        return rc;

    for (uint32_t s = 0; s < new_n; s++)
        if (space_to_front(env, seg->areas[s].lv, r) < 0)
            return lvx_cmd_fail(env);
    for (uint32_t s = old_n; s < new_n; s++)
        seg->areas[s].lv->status &= ~(uint32_t)LVX_LV_REBUILD;
    seg->type = lvx_pool_printf(vg->pool, "%s+RESHAPE+RESHAPE_DATA_OFFSET", seg->type_name);
    seg->kernel_delta_disks = (int32_t)(new_n - old_n);
    seg->kernel_offset = true;
    seg->kernel_data_offset = r * es;
    if ((rc = commit_reload(env, u, act, lv)))
        return rc;
    seg->kernel_delta_disks = 0;
    seg->kernel_offset = false;
    if ((rc = commit_reload(env, u, act, lv)))
        return rc;
    lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
    return 0;
}

int lvx_lvconvert_reshape(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                          const struct lvx_restripe_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    int rc;
    if (!a->count[LVX_OPT_STRIPESIZE])     /* LVM2's get_stripe_params */
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, 128));
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    if (!lvx_actcmd_is_active(env, &act, lv, &ks)) {
        lvx_cmd_errorf("%s/%s must be active to perform this operation.", lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    const struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_raid_type *t = lvx_raid_type_find(seg->type_name);
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    char why[160];
    unsigned l = level(seg->type_name);
    /* what lvx does: stripes added to a raid4/5/6 LV without reshape state, in the
     * kernel (dm backend), stripe size and layout kept */
    if (o->stripes_given && (l == 4 || l == 5 || l == 6) && !strcmp(act.be->name, "dm") &&
        (!a->count[LVX_OPT_STRIPESIZE] || o->stripe_size == seg->stripe_size) &&
        !a->count[LVX_OPT_TYPE] && !lvx_raid_reshape_state(lv, why, sizeof(why)) &&
        o->stripes > seg->area_count - t->parity) {
        if (!lvx_lvconvert_in_sync(lv, &ks)) {
            lvx_cmd_errorf("Unable to convert %s while it is not in-sync.", full);
            return LVX_EXIT_FAILED;
        }
        return add_stripes(env, u, &act, lv, t, o, full);
    }
    lvx_cmd_errorf("lvx lvconvert does not reshape %s (%s) yet.", full, seg->type_name);
    return LVX_EXIT_FAILED;
}
