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
 * active to perform this operation." for an inactive LV).  Of an active raid4/5/6 LV
 * in the kernel (dm backend) it makes LVM2's reshapes with LVM2's commits and tables:
 * stripes added (add_stripes, also LVM2's interim stripe of a raid4/5 LV of 3 images
 * going to raid6), another layout or stripe size (keep_images), stripes removed in two
 * commands (remove_stripes), the reshape space freed (--stripes N unchanged, and
 * before a takeover: lvx_raid_free_reshape_space); stripes, stripe size and region size
 * together (LVM2's _raid_reshape: -R with the step, -I unless 2 images are left);
 * stripes added to a raid10 LV (2 images a stripe, its old reshape space freed first);
 * another stripe size of a raid10 LV (keep_images, as LVM2's _raid_reshape_keep_images
 * does it for raid10 too) and its reshape space freed (--stripes N unchanged).  Of an
 * LV the daemon serves (user backend) the same commits run, the starting table being
 * the daemon's raidreshape request (the backend's swap; docs/reshape-user.md step 5,
 * §10, §12, §13, §14): stripes added or removed and another layout or stripe size of
 * raid4/5/6, stripes added to raid10 and another stripe size of raid10, the reshape
 * space freed (where the data lies behind it: "data_offset 0" as the daemon's
 * `raidreshape VG LV 0 0`); the rest (a region size change, a takeover's interim
 * reshape, a read-only or degraded LV) is refused with one line before any commit
 * (user_refusal).
 */
#include "cmd/lvconvert_raid.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_restripe.h"
#include "map/map.h"
#include "model/pvmove.h"
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

/* raid4 and raid5_n, either way: one level for LVM2 (its _is_same_level), a reshape. */
static bool r4_r5n(const char *a, const char *b)
{
    const struct lvx_raid_type *x = a ? lvx_raid_type_find(a) : NULL;
    const struct lvx_raid_type *y = b ? lvx_raid_type_find(b) : NULL;
    return x && y && ((!strcmp(x->name, "raid4") && !strcmp(y->dm_name, "raid5_n")) ||
                      (!strcmp(y->name, "raid4") && !strcmp(x->dm_name, "raid5_n")));
}

static bool same_level(const char *a, const char *b)
{
    return level(a) == level(b) || r4_r5n(a, b);
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
        return !type || same_level(type, from);
    if (r4_r5n(from, type))
        return true;
    if (!type || level(type) != l || l == 4 || l == 10)
        return false;
    /* the same level in another layout (raid5 is raid5_ls, raid6 raid6_zr) */
    const struct lvx_raid_type *f = lvx_raid_type_find(from), *t = lvx_raid_type_find(type);
    return strcmp(f->dm_name, t->dm_name) != 0;
}

/* Can the last r extents of an image (its reshape space) move in front of its data
 * (space_to_front)?  Only when they are the tail of one linear segment (LVM2 moves
 * several segments: not recorded, so add_stripes refuses before its first commit). */
static bool space_movable(const struct lvx_lv *img, uint32_t r)
{
    const struct lvx_seg *last = &img->segs[img->seg_count - 1];
    return last->kind == LVX_SEG_STRIPED && last->stripe_count == 1 &&
           last->extent_count >= r && last->areas[0].pv;
}

/* The first k extents of an image moved behind the others (LVM2's relocation of the
 * reshape space from the front to the end), start LEs renumbered, neighbours merged;
 * the first segment carries reshape_count r. */
static void rotate_front_to_end(struct lvx_lv *img, uint64_t k, uint32_t r)
{
    unsigned i = 0;
    for (uint64_t le = 0; i < img->seg_count && le + img->segs[i].extent_count <= k; i++)
        le += img->segs[i].extent_count;
    if (i < img->seg_count && img->segs[i].start_extent < k)
        lvx_lv_split_seg(img, i, k - img->segs[i].start_extent), i++;
    unsigned n = img->seg_count;
    struct lvx_seg *segs = lvx_pool_alloc(img->vg->pool, n * sizeof(*segs));
    memcpy(segs, img->segs + i, (n - i) * sizeof(*segs));
    memcpy(segs + (n - i), img->segs, i * sizeof(*segs));
    uint64_t le = 0;
    for (unsigned j = 0; j < n; j++) {
        segs[j].lv = img;
        segs[j].start_extent = le;
        segs[j].reshape_count = 0;
        le += segs[j].extent_count;
    }
    img->segs = segs;
    lvx_lv_merge_segments(img);
    img->segs[0].reshape_count = r;
}

/* The last r extents of an image (the reshape space allocated at its end) moved in
 * front of its data, as LVM2's "(Re)allocating reshape space" does for a forward
 * reshape; the first segment carries reshape_count r. */
static int space_to_front(struct lvx_cmd_env *env, struct lvx_lv *img, uint32_t r)
{
    if (!space_movable(img, r))
        return lvx_error(env->ctx, EINVAL, "image %s: its reshape space is not one linear "
                         "segment", img->name);
    rotate_front_to_end(img, img->le_count - r, r);
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

/* A reshape's first commit (reshape space allocated, images added): loaded as LVM2
 * loads it in the dm backend; the user backend's daemon keeps serving the LV as it was
 * until the second commit's raidreshape starts the reshape from its superblocks (a
 * reload here would find the superblocks and the metadata apart). */
static int commit_first(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                        struct lvx_actcmd *act, struct lvx_lv *lv)
{
    if (!strcmp(act->be->name, "dm") || env->args->count[LVX_OPT_TEST])
        return commit_reload(env, u, act, lv);
    return lvx_lvcmd_commit(env, u);
}

/* LVM2's last update of a reshape: the table line without delta_disks and data_offset,
 * committed and loaded. */
static int last_load(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                     struct lvx_lv *lv, const char *full)
{
    lv->segs[0].kernel_delta_disks = 0;
    lv->segs[0].kernel_offset = false;
    int rc = commit_reload(env, u, act, lv);
    if (!rc)
        lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
    return rc;
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
                       const struct lvx_restripe_opts *o, const char *full,
                       const struct lvx_lv_kstate *ks)
{
    struct lvx_seg *seg = &lv->segs[0];
    struct lvx_vg *vg = u->vg;
    /* raid10: 2 images a stripe (LVM2's "--stripes N" of raid10 is 2N images) */
    bool r10 = level(seg->type_name) == 10;
    uint32_t old_n = seg->area_count, es = vg->extent_size;
    uint32_t new_n = r10 ? o->stripes * 2 : o->stripes + t->parity;
    /* reshape space there already (an earlier reshape): reused, no first commit */
    uint32_t have = seg->reshape_count;
    uint64_t img_ext = seg->areas[0].lv->le_count - have;
    uint64_t new_le = img_ext * o->stripes;
    /* LVM2's reshape space per image: max(1 MiB, the stripe size) in whole extents,
     * rounded down, at least one */
    uint32_t sz = seg->stripe_size > 2048 ? seg->stripe_size : 2048;
    uint32_t r = have ? have : sz / es ? sz / es : 1;
    /* the space goes in front of the data unless the kernel's data starts behind it */
    bool move = !have || !(ks && ks->raid && ks->raid_data_offset > 0);
    struct lvx_raid_change ch;
    int rc;

    lvx_warn(env->ctx, "WARNING: Adding stripes to active logical volume %s will grow it from "
             "%llu to %llu extents!", full, (unsigned long long)(lv->le_count - (uint64_t)have *
                                                                 (old_n - t->parity)),
             (unsigned long long)new_le);
    lvx_notice(env->ctx, "Run \"lvresize -l%llu %s\" to shrink it or use the additional "
               "capacity.", (unsigned long long)(lv->le_count - (uint64_t)have *
                                                 (old_n - t->parity)), full);
    /* LVM2's question (_raid_reshape_add_images): no answer is no */
    if (!env->args->count[LVX_OPT_YES] &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to add %u images "
                                           "to %s LV %s?", new_n - old_n, seg->type_name, full))) {
        lvx_cmd_errorf("Logical volume %s NOT converted.", full);
        lvx_cmd_errorf("Reshape request failed on LV %s.", full);
        return LVX_EXIT_FAILED;
    }
    if (r10 && have) {
        /* LVM2 frees a raid10's reshape space before adding images (moved to the end
         * of every image and loaded with "data_offset 0" first where the kernel's data
         * starts behind it), then allocates it anew */
        if ((rc = lvx_raid_free_reshape_space(env, u, act, lv, ks, NULL)))
            return rc;
        seg = &lv->segs[0];
        have = 0;
        r = sz / es ? sz / es : 1;
        move = true;
    }
    if (have && have < (sz / es ? sz / es : 1)) {
        lvx_cmd_errorf("lvx cannot reshape %s: its reshape space (%u extents) is smaller than "
                       "its stripe size wants.", full, have);
        return LVX_EXIT_FAILED;
    }
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)))
        return rc;
    struct lvx_free_maps *maps;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    /* no room: LVM2's allocation line, then its "Reshape request failed" */
    if (lvx_raid_add_images(env, vg, maps, lv, new_n, seg->region_size, pvs, pv_count, &ch) < 0) {
        rc = lvx_cmd_fail(env);
        lvx_cmd_errorf("Reshape request failed on LV %s.", full);
        return rc;
    }
    seg = &lv->segs[0];
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, lv->alloc);
    seg->kernel_no_copies = r10 && !have;    /* LVM2's loads from here on */
    for (uint32_t s = 0; !have && s < new_n; s++)
        if ((rc = lvx_raid_grow_image(env, u, lv, s, r, NULL, 0, policy))) {
            lvx_cmd_errorf("Reshape request failed on LV %s.", full);
            return rc;
        }
    /* step 2 moves one linear segment per image: known before anything is written */
    for (uint32_t s = 0; move && s < new_n; s++)
        if (!space_movable(seg->areas[s].lv, r)) {
            lvx_cmd_errorf("lvx cannot reshape %s: the reshape space of %s (%u extents) is "
                           "not one linear segment on one PV; free %u contiguous extents "
                           "there first.", full, seg->areas[s].lv->name, r, r);
            return LVX_EXIT_FAILED;
        }
    seg->reshape_count = r;
    /* LVM2 counts the reshape space in the segment (and so in the LV's extents), r for
     * every image but the parity ones (raid10: every image); the LV's size and its
     * table leave it out (model/raid.h lvx_raid_reshape_extents) */
    seg->extent_count = lv->le_count = img_ext * o->stripes + (uint64_t)r * (new_n - t->parity);
    seg->raw = NULL;
    if (!env->args->count[LVX_OPT_TEST]) {
        for (unsigned i = 0; i < ch.added_n; i++)
            if (!strstr(ch.added[i]->name, "_rimage_") &&
                lvx_lvcmd_zero_start(env, u, ch.added[i], 4096) < 0)
                return lvx_cmd_fail(env);
    }
    if (!have && (rc = commit_first(env, u, act, lv)))
        return rc;

    for (uint32_t s = 0; s < new_n; s++) {
        struct lvx_lv *img = seg->areas[s].lv;
        if (move) {
            if (space_to_front(env, img, r) < 0)
                return lvx_cmd_fail(env);
        }
        for (unsigned k = 0; k < img->seg_count; k++)
            img->segs[k].reshape_count = k ? 0 : r;
    }
    for (uint32_t s = old_n; s < new_n; s++)
        seg->areas[s].lv->status &= ~(uint32_t)LVX_LV_REBUILD;
    seg->type = lvx_pool_printf(vg->pool, "%s+RESHAPE+RESHAPE_DATA_OFFSET", seg->type_name);
    if (o->stripe_size)             /* LVM2's new stripe size and region size go here */
        seg->stripe_size = o->stripe_size;
    if (o->region_size)
        seg->region_size = o->region_size;
    seg->kernel_delta_disks = (int32_t)(new_n - old_n);
    seg->kernel_offset = true;
    seg->kernel_data_offset = r * es;
    if ((rc = commit_reload(env, u, act, lv)))
        return rc;
    return last_load(env, u, act, lv, full);
}

/* The segment type string with LVM2's RESHAPE flags: "raid5_ls+RESHAPE+RESHAPE_DATA_OFFSET". */
static const char *flagged_type(struct lvx_vg *vg, const char *name, bool reshape, bool offset)
{
    return lvx_pool_printf(vg->pool, "%s%s%s", name, reshape ? "+RESHAPE" : "",
                           offset ? "+RESHAPE_DATA_OFFSET" : "");
}

/* LVM2's " (same as raid5)" after raid5_ls (and back, raid6/raid6_zr), "" for others. */
static const char *same_as(struct lvx_cmd_env *env, const char *t)
{
    const char *a = lvx_parity_alias(t);
    return a ? lvx_pool_printf(env->pool, " (same as %s)", a) : "";
}

/* LVM2's reshape space allocated at the end of every image (r extents, counted in
 * the segment, r for every image but the parity ones, and in the first segment of
 * each image), committed and loaded (a raid10 LV from here on without raid10_copies,
 * as LVM2 loads it). */
static int space_at_end(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                        struct lvx_actcmd *act, struct lvx_lv *lv, uint32_t r)
{
    struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_raid_type *t = lvx_raid_type_find(seg->type_name);
    uint32_t n = seg->area_count;
    uint64_t le = lv->le_count;
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(u->vg, lv->alloc);
    int rc;
    for (uint32_t s = 0; s < n; s++)
        if ((rc = lvx_raid_grow_image(env, u, lv, s, r, NULL, 0, policy)))
            return rc;
    seg = &lv->segs[0];
    seg->reshape_count = r;
    for (uint32_t s = 0; s < n; s++)
        seg->areas[s].lv->segs[0].reshape_count = r;
    /* (raid10: the LV's extents are not its images' times its images) */
    seg->extent_count = lv->le_count = le + (uint64_t)r * (n - t->parity);
    seg->kernel_no_copies = level(seg->type_name) == 10;
    seg->raw = NULL;
    return commit_first(env, u, act, lv);
}

/* Another layout or stripe size of an active raid4/5/6 LV keeping its images, as LVM2's
 * _raid_reshape_keep_images: without reshape space yet (or less than the new stripe size
 * wants: refused), `r` extents added at the end of every image and the new stripe size,
 * committed and loaded (the space stays at the end: the kernel picks the direction);
 * then the new type, "+RESHAPE+RESHAPE_DATA_OFFSET", committed and loaded with
 * "data_offset r*extent_size" (the kernel's md reshapes); then the line without it.
 * With the space there already, only the last two. */
static int keep_images(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                       struct lvx_lv *lv, const struct lvx_raid_type *nt, uint32_t new_ss,
                       uint32_t region, const char *full)
{
    struct lvx_seg *seg = &lv->segs[0];
    struct lvx_vg *vg = u->vg;
    uint32_t es = vg->extent_size;
    uint32_t sz = new_ss > 2048 ? new_ss : 2048;
    uint32_t r = sz / es ? sz / es : 1;
    int rc;
    if (new_ss != seg->stripe_size)
        lvx_notice(env->ctx, "Converting stripesize %s of %s LV %s to %s.",
                   lvx_lvcmd_size(env, seg->stripe_size), seg->type_name, full,
                   lvx_lvcmd_size(env, new_ss));
    if (strcmp(nt->name, seg->type_name))
        lvx_notice(env->ctx, "Converting %s%s LV %s to %s%s.", seg->type_name,
                   same_as(env, seg->type_name), full, nt->name, same_as(env, nt->name));
    if (!env->args->count[LVX_OPT_YES] &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to convert %s LV "
                                           "%s?", seg->type_name, full))) {
        lvx_cmd_errorf("Logical volume %s NOT converted.", full);
        return LVX_EXIT_FAILED;
    }
    if (seg->reshape_count && seg->reshape_count < r) {
        lvx_cmd_errorf("lvx cannot reshape %s: its reshape space (%u extents) is smaller than "
                       "stripe size %s wants (%u).", full, seg->reshape_count,
                       lvx_lvcmd_size(env, new_ss), r);
        return LVX_EXIT_FAILED;
    }
    bool offset_flag = seg->type && strstr(seg->type, "+RESHAPE_DATA_OFFSET");
    seg->stripe_size = new_ss;
    if (!seg->reshape_count) {
        if ((rc = space_at_end(env, u, act, lv, r)))
            return rc;
        seg = &lv->segs[0];
        offset_flag = true;
    }
    seg->type_name = nt->name;
    seg->type = flagged_type(vg, nt->name, true, offset_flag);
    if (region)                     /* LVM2 sets -R with the new layout */
        seg->region_size = region;
    seg->raw = NULL;
    seg->kernel_offset = true;
    seg->kernel_data_offset = seg->reshape_count * es;
    if ((rc = commit_reload(env, u, act, lv)))
        return rc;
    return last_load(env, u, act, lv, full);
}

/* The segment type of every segment of a sub-LV: "striped" plus flag (NULL: none). */
static void sub_flag(struct lvx_lv *sub, const char *flag)
{
    for (unsigned k = 0; k < sub->seg_count; k++) {
        struct lvx_seg *g = &sub->segs[k];
        g->type = flag ? lvx_pool_printf(sub->vg->pool, "%s+%s", g->type_name, flag)
                       : g->type_name;
    }
}

static bool sub_flagged(const struct lvx_lv *sub, const char *flag)
{
    return sub->seg_count && sub->segs[0].type && strstr(sub->segs[0].type, flag);
}

/* --stripes N below the data stripes of an active raid4/5/6 LV, LVM2's two commands
 * (_raid_reshape_remove_images).  The first (the kernel still runs every image; --force
 * wanted): reshape space as keep_images allocates it (moved to the end of every image
 * when the kernel's data starts behind it), the images past the new count flagged
 * RESHAPE_DELTA_DISKS_MINUS, committed and loaded with "delta_disks -D data_offset O":
 * the kernel's md reshapes backwards; then their rimage and rmeta flagged
 * REMOVE_AFTER_RESHAPE, committed, loaded without them.  The LV keeps its size until
 * the second (the kernel runs the new count): the LV's extents cut to the new stripes,
 * the flagged pairs taken out, "+RESHAPE" dropped, committed and loaded. */
static int remove_stripes(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                          struct lvx_actcmd *act, struct lvx_lv *lv,
                          const struct lvx_raid_type *t, bool other_layout, uint32_t stripes,
                          uint32_t new_ss, uint32_t region, const char *full,
                          const struct lvx_lv_kstate *ks)
{
    struct lvx_seg *seg = &lv->segs[0];
    struct lvx_vg *vg = u->vg;
    uint32_t old_n = seg->area_count, new_n = stripes + t->parity, es = vg->extent_size;
    uint32_t old_d = old_n - t->parity, new_d = stripes;
    uint32_t kdevs = ks->raid_devs ? ks->raid_devs : old_n, in_sync = 0, removed = 0;
    int rc;
    for (const char *h = ks->raid_health; *h; h++)
        in_sync += *h == 'A';
    for (uint32_t s = 0; s < old_n; s++)
        removed += sub_flagged(seg->areas[s].lv, "REMOVE_AFTER_RESHAPE");
    if (kdevs == old_n && in_sync < strlen(ks->raid_health)) {
        lvx_cmd_errorf("Can't reshape out of sync LV %s.", full);
        return LVX_EXIT_FAILED;
    }
    if (kdevs < old_n && in_sync != new_n) {
        lvx_cmd_errorf("Device count is incorrect. Forgotten \"lvconvert --stripes %u %s\" to "
                       "remove %u images after reshape?", in_sync - t->parity, full,
                       old_n - in_sync);
        return LVX_EXIT_FAILED;
    }
    if (new_ss != seg->stripe_size)
        lvx_notice(env->ctx, "Converting stripesize %s of %s LV %s to %s.",
                   lvx_lvcmd_size(env, seg->stripe_size), seg->type_name, full,
                   lvx_lvcmd_size(env, new_ss));
    if (t->parity == 2 && stripes < 3) {
        lvx_cmd_errorf("Minimum 3 stripes required for %s LV %s.", seg->type_name, full);
        return LVX_EXIT_FAILED;
    }
    /* LVM2 takes the new stripe size for more than 2 images left, else keeps the old
     * one (with its warning); the region size with the step's commit */
    bool ignore_ss = new_n <= 2 && new_ss && new_ss != seg->stripe_size;
    if (new_n <= 2)
        new_ss = seg->stripe_size;
    uint32_t r = seg->reshape_count;
    if (kdevs == new_n) {                               /* the second command */
        if (removed + new_n != old_n) {
            lvx_cmd_errorf("No correct kernel/lvm total LV count on %s.", full);
            return LVX_EXIT_FAILED;
        }
        uint64_t data = lv->le_count - (uint64_t)r * old_d;
        struct lvx_raid_change ch;
        memset(&ch, 0, sizeof(ch));
        lvx_parity_drop_tail(lv, new_n, &ch);
        seg = &lv->segs[0];
        seg->extent_count = lv->le_count = (uint64_t)r * new_d + data * new_d / old_d;
        seg->type = flagged_type(vg, seg->type_name, false, r != 0);
        seg->stripe_size = new_ss;
        if (region)
            seg->region_size = region;
        if (ignore_ss)
            lvx_warn(env->ctx, "WARNING: ignoring --stripesize on conversion of %s to 1 "
                     "stripe.", full);
        seg->raw = NULL;
        ch.takeover = true;
        if ((rc = lvx_lvconvert_reload(env, u, act, lv, &ch)))
            return rc;
        lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
        return 0;
    }
    /* the first command */
    if (other_layout)
        lvx_notice(env->ctx, "Ignoring layout change on device removing reshape.");
    uint64_t cur = lv->le_count - (uint64_t)r * old_d;
    uint64_t red = cur * new_d / old_d;
    uint64_t ext = red ? cur * cur / red : 0;
    bool yes = env->args->count[LVX_OPT_YES] != 0;
    lvx_warn(env->ctx, "WARNING: Removing stripes from active%s logical volume %s will shrink "
             "it from %s to %s!", ks->open_count > 0 ? " and open" : "", full,
             lvx_lvcmd_size(env, cur * es), lvx_lvcmd_size(env, red * es));
    lvx_cmd_errorf("THIS MAY DESTROY (PARTS OF) YOUR DATA!");     /* LVM2's log_warn */
    if (!yes)
        lvx_cmd_errorf("Interrupt the conversion and run \"lvresize -y -l%llu %s\" to keep "
                       "the current size if not done already!", (unsigned long long)ext, full);
    lvx_notice(env->ctx, "If that leaves the logical volume larger than %llu extents due to "
               "stripe rounding,", (unsigned long long)ext);
    lvx_notice(env->ctx, "you may want to grow the content afterwards (filesystem etc.)");
    lvx_warn(env->ctx, "WARNING: to remove freed stripes after the conversion has finished, "
             "you have to run \"lvconvert --stripes %u %s\"", stripes, full);
    if (!env->args->count[LVX_OPT_FORCE]) {
        lvx_cmd_errorf("Can't remove stripes without --force option.");
        lvx_cmd_errorf("Reshape request failed on LV %s.", full);
        return LVX_EXIT_FAILED;
    }
    if (!yes && !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to remove "
                                                   "%u images from %s LV %s?", old_n - new_n,
                                                   seg->type_name, full))) {
        lvx_cmd_errorf("Logical volume %s NOT converted.", full);
        lvx_cmd_errorf("Reshape request failed on LV %s.", full);
        return LVX_EXIT_FAILED;
    }
    uint32_t sz = seg->stripe_size > 2048 ? seg->stripe_size : 2048;
    uint32_t want = sz / es ? sz / es : 1;
    if (r && r < want) {
        lvx_cmd_errorf("lvx cannot reshape %s: its reshape space (%u extents) is smaller than "
                       "its stripe size wants.", full, r);
        return LVX_EXIT_FAILED;
    }
    if (!r) {                       /* space at the end of every image, committed first */
        if ((rc = space_at_end(env, u, act, lv, want)))
            return rc;
        seg = &lv->segs[0];
        r = want;
    } else if (ks->raid_data_offset > 0) {     /* the space to the end (md goes backwards) */
        for (uint32_t s = 0; s < old_n; s++)
            rotate_front_to_end(seg->areas[s].lv, r, r);
    }
    for (uint32_t s = new_n; s < old_n; s++)
        sub_flag(seg->areas[s].lv, "RESHAPE_DELTA_DISKS_MINUS");
    seg->type = flagged_type(vg, seg->type_name, true, true);
    seg->stripe_size = new_ss;
    if (region)
        seg->region_size = region;
    if (ignore_ss)
        lvx_warn(env->ctx, "WARNING: ignoring --stripesize on conversion of %s to 1 stripe.",
                 full);
    seg->raw = NULL;
    seg->kernel_delta_disks = -(int32_t)(old_n - new_n);
    seg->kernel_offset = true;
    seg->kernel_data_offset = r * es;
    if ((rc = commit_reload(env, u, act, lv)))
        return rc;
    for (uint32_t s = new_n; s < old_n; s++) {
        sub_flag(seg->areas[s].lv, "REMOVE_AFTER_RESHAPE");
        sub_flag(seg->meta_areas[s].lv, "REMOVE_AFTER_RESHAPE");
    }
    return last_load(env, u, act, lv, full);
}

int lvx_raid_free_reshape_space(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                                struct lvx_actcmd *act, struct lvx_lv *lv,
                                const struct lvx_lv_kstate *ks, bool *moved)
{
    struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_raid_type *t = lvx_raid_type_find(seg->type_name);
    uint32_t r = seg->reshape_count;
    if (moved)
        *moved = false;
    int rc;
    seg->raw = NULL;
    if (!r || !t) {
        seg->type = seg->type_name;
        return 0;
    }
    uint32_t n = seg->area_count, data = n - t->parity;
    /* the kernel's data behind the space: the space moved to the end of every image
     * and the LV loaded with "data_offset 0" (where the data now starts; the user
     * backend sends it as `raidreshape VG LV 0 0`: the daemon records offset 0) */
    if (ks && ks->raid && ks->raid_data_offset > 0) {
        for (uint32_t s = 0; s < n; s++)
            rotate_front_to_end(seg->areas[s].lv, r, r);
        seg->kernel_offset = true;
        seg->kernel_data_offset = 0;
        rc = commit_reload(env, u, act, lv);
        seg->kernel_offset = false;
        if (rc)
            return rc;
        if (moved)
            *moved = true;
    }
    for (uint32_t s = 0; s < n; s++) {
        struct lvx_lv *img = seg->areas[s].lv;
        lvx_lvresize_truncate(img, img->le_count - r);
        for (unsigned k = 0; k < img->seg_count; k++)
            img->segs[k].reshape_count = 0;
    }
    seg->reshape_count = 0;
    seg->type = seg->type_name;
    seg->extent_count = lv->le_count = lv->le_count - (uint64_t)r * data;
    return 0;
}

/* LVM2's _raid_reshape refusing an LV not in sync (a reshape in progress among
 * others), and its caller's line after any refusal of a reshape. */
static int not_in_sync(const char *full)
{
    lvx_cmd_errorf("Unable to convert %s while it is not in-sync.", full);
    lvx_cmd_errorf("Reshape request failed on LV %s.", full);
    return LVX_EXIT_FAILED;
}

/* What the daemon does not reshape (docs/reshape-user.md §10): the user backend's
 * line, nothing written; an LV not in sync gets LVM2's refusal instead, which comes
 * first in LVM2's _raid_reshape. */
static int user_refusal(const char *full, const struct lvx_lv *lv,
                        const struct lvx_lv_kstate *ks, const char *why)
{
    if (ks->raid && !lvx_lvconvert_in_sync(lv, ks))
        return not_in_sync(full);
    lvx_cmd_errorf("lvx cannot reshape %s in the user-space backend: its daemon %s "
                   "(activate it with the dm backend).", full, why);
    return LVX_EXIT_FAILED;
}

int lvx_reshape_removal_pending(const struct lvx_lv *lv, const char *to)
{
    if (!to || !lvx_map_lv_is_raid(lv) || lv->seg_count != 1 || !lv->segs[0].areas)
        return 0;
    const struct lvx_seg *seg = &lv->segs[0];
    uint32_t removed = 0;
    for (uint32_t s = 0; s < seg->area_count; s++)
        removed += seg->areas[s].lv && sub_flagged(seg->areas[s].lv, "REMOVE_AFTER_RESHAPE");
    if (!removed)
        return 0;
    lvx_cmd_errorf("Can't convert %s LV %s/%s to %s containing sub LVs to remove after a "
                   "reshape.", seg->type_name, lv->vg->name, lv->name, to);
    lvx_cmd_errorf("Run \"lvconvert --stripes %u %s/%s\" first.", seg->area_count - removed - 1,
                   lv->vg->name, lv->name);
    return LVX_EXIT_FAILED;
}

int lvx_lvconvert_add_stripes(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                              uint32_t stripes, char **pv_args, unsigned pv_arg_count)
{
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    int rc;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    const struct lvx_raid_type *t = lvx_raid_type_find(lv->segs[0].type_name);
    if (!lvx_actcmd_is_active(env, &act, lv, &ks)) {
        lvx_cmd_errorf("%s must be active to perform this operation.", full);
        return LVX_EXIT_FAILED;
    }
    if (strcmp(act.be->name, "dm"))
        return user_refusal(full, lv, &ks,
                            "does not make the interim reshape of a takeover yet");
    if (!lvx_lvconvert_in_sync(lv, &ks)) {
        lvx_cmd_errorf("Unable to convert %s while it is not in-sync.", full);
        return LVX_EXIT_FAILED;
    }
    struct lvx_restripe_opts o = { .stripes_given = true, .stripes = stripes,
                                   .pv_args = pv_args, .pv_arg_count = pv_arg_count };
    return add_stripes(env, u, &act, lv, t, &o, full, &ks);
}

int lvx_lvconvert_reshape(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                          const char *type, const struct lvx_restripe_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    int rc;
    /* LVM2's get_stripe_params: -I with --stripes 1 is dropped (the stripe size asked
     * for is then 0: a 2-image raid4/5 keeps its own) */
    bool ss_given = a->count[LVX_OPT_STRIPESIZE] != 0;
    uint32_t ss_arg = o->stripe_size;
    if (ss_given && o->stripes_given && o->stripes == 1 && !o->said) {
        lvx_notice(env->ctx, "Ignoring stripesize argument with single stripe.");
        ss_arg = 0;
    }
    if (!ss_given && !o->said && !(o->stripes_given && o->stripes == 1))
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
    unsigned l = level(seg->type_name);
    uint32_t new_ss = ss_given ? ss_arg : seg->stripe_size;
    uint32_t region = o->region_size ? o->region_size : seg->region_size;
    /* LVM2's _reshape_requested: the region size not under the stripe size (LVM2's
     * refusal, before lvx's of the user backend) */
    uint32_t cur_d = l == 10 ? seg->area_count / 2 : seg->area_count - (t ? t->parity : 0);
    bool no_change = (!type || lvx_raid_type_find(type) == t) && region == seg->region_size &&
                     (!o->stripes_given || o->stripes == cur_d) && new_ss == seg->stripe_size;
    if (!no_change && region < (new_ss ? new_ss : seg->stripe_size)) {
        lvx_cmd_errorf("Region size may not be smaller than stripe size on LV %s.", full);
        lvx_cmd_errorf("Invalid conversion request on %s.", full);
        return LVX_EXIT_FAILED;
    }
    /* raid10 (LVM2: 2 images a stripe) only grows */
    if (l == 10 && o->stripes_given && seg->area_count > 2 && o->stripes * 2 < seg->area_count) {
        lvx_cmd_errorf("Can't remove stripes from raid10.");
        lvx_cmd_errorf("Invalid conversion request on %s.", full);
        return LVX_EXIT_FAILED;
    }
    /* the user backend's daemon serves a finished reshape: freeing its reshape space
     * is metadata and a reload (the superblocks then written by the daemon), with
     * "data_offset 0" first where the space lies in front of the data (the daemon's
     * raidreshape 0 0, docs/reshape-user.md §14) */
    bool dm = !strcmp(act.be->name, "dm");
    bool free_only = (l == 4 || l == 5 || l == 6 || l == 10) && o->stripes_given &&
                     (!type || lvx_raid_type_find(type) == t) && o->stripes == cur_d &&
                     (!o->region_size || o->region_size == seg->region_size) &&
                     new_ss == seg->stripe_size;
    /* the user backend's daemon starts raid4/5/6 reshapes (raidreshape,
     * daemon/raid_reshape_start.c): images added, kept or removed (the images flagged
     * to go are served until the second command takes them out), and raid10's two:
     * stripes added, another stripe size with the same images */
    bool r10_ss = l == 10 && (!o->stripes_given || o->stripes == cur_d) &&
                  (!type || lvx_raid_type_find(type) == t) && new_ss != seg->stripe_size;
    bool r10_other = l == 10 && !(o->stripes_given && o->stripes * 2 > seg->area_count) &&
                     !r10_ss;
    /* (raid10's other changes: lvx's line below, as in the dm backend) */
    if (!dm && !(free_only && ks.raid) && !r10_other) {
        if (o->said)            /* LVM2's interim step of a takeover (lvconvert_level.c) */
            return user_refusal(full, lv, &ks,
                                "does not make the interim reshape of a takeover yet");
        if (region != seg->region_size)     /* the bitmap would be rebuilt: not yet */
            return user_refusal(full, lv, &ks,
                                "does not change the region size in a reshape yet");
        if (ks.raid && !lvx_lvconvert_in_sync(lv, &ks))    /* LVM2's first check */
            return not_in_sync(full);
        if (ks.read_only || !(lv->status & LVX_LV_WRITE)) {     /* its walker would not run */
            lvx_cmd_errorf("lvx cannot reshape %s while it is active read-only: change it to "
                           "read-write first.", full);
            return LVX_EXIT_FAILED;
        }
        /* dm-raid refuses it at the load, after LVM2's commits; here before them */
        if (ks.raid && strchr(ks.raid_health, 'D')) {
            lvx_cmd_errorf("lvx cannot reshape %s: Can't reshape degraded raid set (health "
                           "%s).", full, ks.raid_health);
            return LVX_EXIT_FAILED;
        }
    }
    /* stripes added to a raid4/5/6 LV, or to a raid10 one (2 images a stripe), in the
     * kernel (dm backend) */
    if (o->stripes_given && (((l == 4 || l == 5 || l == 6) &&
                              o->stripes > seg->area_count - t->parity) ||
                             (l == 10 && o->stripes * 2 > seg->area_count && ks.raid))) {
        if (!lvx_lvconvert_in_sync(lv, &ks))
            return not_in_sync(full);
        if (new_ss != seg->stripe_size)
            lvx_notice(env->ctx, "Converting stripesize %s of %s LV %s to %s.",
                       lvx_lvcmd_size(env, seg->stripe_size), seg->type_name, full,
                       lvx_lvcmd_size(env, new_ss));
        if (type && lvx_raid_type_find(type) != t)
            lvx_notice(env->ctx, "Ignoring layout change on device adding reshape.");
        struct lvx_restripe_opts o2 = *o;
        o2.stripe_size = new_ss != seg->stripe_size ? new_ss : 0;
        return add_stripes(env, u, &act, lv, t, &o2, full, &ks);
    }
    /* stripes removed: raid4/5/6 in the kernel or the daemon, the layout kept */
    if ((l == 4 || l == 5 || l == 6) && o->stripes_given && o->stripes &&
        o->stripes < seg->area_count - t->parity && ks.raid) {
        if (!lvx_lvconvert_in_sync(lv, &ks))
            return not_in_sync(full);
        return remove_stripes(env, u, &act, lv, t, type && lvx_raid_type_find(type) != t,
                              o->stripes, new_ss, o->region_size, full, &ks);
    }
    /* nothing to change: LVM2 frees the reshape space */
    if (free_only) {
        if (!lvx_lvconvert_in_sync(lv, &ks))
            return not_in_sync(full);
        bool had = seg->reshape_count != 0, moved = false;
        if ((rc = lvx_raid_free_reshape_space(env, u, &act, lv, &ks, &moved)))
            return rc;
        lvx_notice(env->ctx, "No change in RAID LV %s layout, freeing reshape space.", full);
        if (!had) {
            lvx_cmd_errorf("LV %s does not have reshape space allocated.", full);
            lvx_cmd_errorf("Reshape request failed on LV %s.", full);
            return LVX_EXIT_FAILED;
        }
        struct lvx_seg *sg = &lv->segs[0];
        sg->kernel_offset = moved;          /* LVM2 loads "data_offset 0" once more */
        sg->kernel_data_offset = 0;
        if ((rc = commit_reload(env, u, &act, lv)))
            return rc;
        return last_load(env, u, &act, lv, full);
    }
    /* another layout or stripe size, the images kept: raid4/5/6; another stripe size
     * of raid10 (the kernel's md or the daemon picks the direction by the offsets) */
    const struct lvx_raid_type *nt = type ? lvx_raid_type_find(type) : t;
    if ((l == 4 || l == 5 || l == 6 || (l == 10 && ks.raid)) && nt &&
        same_level(nt->name, t->name) && (!o->stripes_given || o->stripes == cur_d) &&
        (strcmp(nt->name, t->name) || new_ss != seg->stripe_size)) {
        if (new_ss > region) {
            lvx_cmd_errorf("Region size may not be smaller than stripe size on LV %s.", full);
            return LVX_EXIT_FAILED;
        }
        if (!lvx_lvconvert_in_sync(lv, &ks))
            return not_in_sync(full);
        return keep_images(env, u, &act, lv, nt, new_ss, o->region_size, full);
    }
    lvx_cmd_errorf("lvx lvconvert does not reshape %s (%s) yet.", full, seg->type_name);
    return LVX_EXIT_FAILED;
}
