/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_raid_split.c - `lvconvert --splitmirrors N --name NEW VG/LV [PV...]`,
 * `lvconvert --splitmirrors 1 --trackchanges VG/LV [PV...]` of raid1 LVs and
 * `lvconvert --merge VG/LV_rimage_N` of a tracked image, as LVM2 2.03.16 does them
 * (lib/metadata/raid_manip.c lv_raid_split, lv_raid_split_and_track, lv_raid_merge;
 * tools/lvconvert.c for the option checks), facts only:
 *
 *   split    one image leaves (as `-m -1` picks it: the highest-numbered one on the
 *            PVs named, images above it move down and are renamed); its rimage stays
 *            in the VG where it was, visible, named NEW (its rmeta goes); down to one
 *            image the LV becomes linear as with -m 0.  Nothing printed on success.
 *            The new LV keeps the rimage's UUID: in dm its device is renamed, then the
 *            LV is activated (its /dev link).
 *   track    the highest-numbered image on the PVs named stays in the raid1 segment
 *            but becomes visible and read-only (no LVM_WRITE): the raid table has
 *            "- -" in its slot (map/raid.c), so the kernel's bitmap records the
 *            regions written meanwhile; the image is activated read-only as the LV
 *            VG/LV_rimage_N.  While an image is tracked, every conversion of the LV (a
 *            split too, as 2.03.16's lvconvert) and of its images is refused
 *            (cmd/lvconvert.c).
 *   merge    the image's devices go, it is hidden and writable again, and the raid LV
 *            is reloaded with it: the kernel recovers only the regions in its bitmap.
 *
 * The user-space backend serves split LVs and tracked images: the daemon's raid1
 * target leaves the tracked image out (daemon/raid_core.c, as the "- -" slot) and the
 * image is served read-only as an LV of its own; at the merge the daemon's reload
 * brings it back and resyncs it.  A mirror LV's split is lvx_mirror_split
 * (cmd/lvconvert_mirror.c).
 */
#include "cmd/lvconvert_raid_split.h"

#include "cmd/lvconvert_mirror.h"
#include "cmd/lvconvert_raid.h"

#include "cmd/actcmd.h"
#include "map/map.h"

#include <string.h>

/* The image of raid1 lv being tracked (visible and read-only), or NULL. */
struct lvx_lv *lvx_raid_tracked_image(const struct lvx_lv *lv)
{
    if (!lvx_map_lv_is_raid(lv))
        return NULL;
    const struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; seg->areas && s < seg->area_count; s++) {
        struct lvx_lv *img = seg->areas[s].lv;
        if (img && (img->status & LVX_LV_VISIBLE) && !(img->status & LVX_LV_WRITE))
            return img;
    }
    return NULL;
}

/* Does lv (its segments' PVs, one level of sub-LVs) use a PV of pvs? */
static bool on_pvs(const struct lvx_lv *lv, const struct lvx_alloc_pv *pvs, unsigned n)
{
    for (unsigned i = 0; i < lv->seg_count; i++) {
        const struct lvx_seg *s = &lv->segs[i];
        for (uint32_t a = 0; s->areas && a < s->area_count; a++)
            for (unsigned p = 0; p < n; p++)
                if (s->areas[a].pv && s->areas[a].pv == pvs[p].pv)
                    return true;
    }
    return false;
}

static int split_off(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                     struct lvx_lv *lv, uint32_t new_count, const char *name,
                     const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_raid_change ch, out;
    unsigned order_n = vg->lv_count;
    struct lvx_lv **order = lvx_pool_alloc(env->pool, (order_n ? order_n : 1) * sizeof(*order));
    memcpy(order, vg->lvs, order_n * sizeof(*order));
    if (lvx_raid_remove_images(env, lv, new_count, pvs, pv_count, &ch) < 0) {
        lvx_cmd_fail(env);
        lvx_cmd_errorf("Failed to extract images from %s/%s.", vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    /* the extracted rimage stays, as NEW, where it was in the VG's list */
    struct lvx_lv *img = NULL;
    memset(&out, 0, sizeof(out));
    out.added_n = ch.added_n;
    for (unsigned i = 0; i < ch.gone_n; i++) {
        const char *n = ch.gone[i]->name;
        size_t l = strlen(n), x = strlen("_extracted");
        if (!img && strstr(n, "_rimage_") && l > x && !strcmp(n + l - x, "_extracted")) {
            img = ch.gone[i];
            out.moved[out.moved_n] = img;
            out.moved_old[out.moved_n++] = ch.gone_old[i];
            continue;
        }
        out.gone[out.gone_n] = ch.gone[i];
        out.gone_old[out.gone_n++] = ch.gone_old[i];
    }
    if (!img) {
        lvx_cmd_errorf("Failed to extract images from %s/%s.", vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    for (unsigned i = 0; i < ch.moved_n && out.moved_n < LVX_RAID_CHANGE_MAX; i++) {
        out.moved[out.moved_n] = ch.moved[i];
        out.moved_old[out.moved_n++] = ch.moved_old[i];
    }
    img->name = lvx_pool_strdup(vg->pool, name);
    img->status |= LVX_LV_VISIBLE;
    unsigned n = 0, now_n = vg->lv_count;
    struct lvx_lv **now = lvx_pool_alloc(env->pool, (now_n ? now_n : 1) * sizeof(*now));
    memcpy(now, vg->lvs, now_n * sizeof(*now));
    for (unsigned i = 0; i < order_n; i++) {
        bool keep = order[i] == img;
        for (unsigned k = 0; !keep && k < now_n; k++)
            keep = now[k] == order[i];
        if (keep) {
            vg->lvs[n] = order[i];
            vg->lvs[n]->index = n;
            n++;
        }
    }
    vg->lv_count = n;
    int rc = lvx_lvconvert_reload(env, u, act, lv, &out);
    if (rc || env->args->count[LVX_OPT_TEST])
        return rc;
    if ((rc = lvx_actcmd_activate(env, act, img)))
        return rc;
    return lvx_lvcmd_commit(env, u);   /* LVM2 writes once more after removing the rest */
}

static int split_track(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                       struct lvx_lv *lv, bool yes, const struct lvx_alloc_pv *pvs,
                       unsigned pv_count)
{
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    struct lvx_seg *seg = &lv->segs[0];
    if (lvx_raid_tracked_image(lv)) {
        lvx_cmd_errorf("Cannot track more than one split image at a time.");
        return LVX_EXIT_FAILED;
    }
    if (seg->area_count == 2 && !yes &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to split and track "
                                           "%s LV %s losing resilience for any newly written "
                                           "data?", lvx_seg_report_type(seg), full))) {
        lvx_cmd_errorf("Logical volume %s NOT split.", full);
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv *img = NULL;
    for (uint32_t s = seg->area_count; s-- > 0 && !img;)
        if (!pv_count || on_pvs(seg->areas[s].lv, pvs, pv_count))
            img = seg->areas[s].lv;
    if (!img) {
        lvx_cmd_errorf("Unable to find image to satisfy request.");
        return LVX_EXIT_FAILED;
    }
    img->status |= LVX_LV_VISIBLE;
    img->status &= ~(uint32_t)LVX_LV_WRITE;
    seg->raw = NULL;
    struct lvx_raid_change ch;
    memset(&ch, 0, sizeof(ch));
    int rc = lvx_lvconvert_reload(env, u, act, lv, &ch);
    if (rc)
        return rc;
    const char *ifull = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, img->name);
    lvx_notice(env->ctx, "%s split from %s for read-only purposes.", ifull, full);
    if (!env->args->count[LVX_OPT_TEST] && (rc = lvx_actcmd_activate(env, act, img)))
        return rc;
    if (seg->area_count == 2)
        lvx_warn(env->ctx, "WARNING: Any newly written data will be non-resilient on LV %s "
                 "during the split!", full);
    lvx_notice(env->ctx, "Use 'lvconvert --merge %s' to merge back into %s.", ifull, full);
    return 0;
}

int lvx_lvconvert_split(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        const struct lvx_split_opts *o)
{
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    int rc;
    if (lvx_map_lv_is_mirror(lv))
        return lvx_mirror_split(env, u, lv, o->count, o->name, o->track, o->pv_args,
                                o->pv_arg_count);
    if (!lvx_map_lv_is_raid(lv) || strcmp(lv->segs[0].type_name, "raid1")) {
        lvx_cmd_errorf("lvx lvconvert --splitmirrors splits raid1 and mirror LVs only, not %s "
                       "(%s).", full,
                       lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "empty");
        return LVX_EXIT_FAILED;
    }
    uint32_t old = lv->segs[0].area_count;
    if (o->count >= old) {
        lvx_cmd_errorf("Unable to split images by specified amount.");
        return LVX_EXIT_FAILED;
    }
    if (o->track && o->count != 1) {
        lvx_cmd_errorf("Exactly one image must be split off from %s when tracking changes.", full);
        return LVX_EXIT_FAILED;
    }
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    if ((rc = lvx_lvconvert_need_active(env, &act, lv, &ks)))
        return rc;
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, u->vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)))
        return rc;
    if (o->track) {
        if (!lvx_lvconvert_in_sync(lv, &ks)) {
            lvx_cmd_errorf("Unable to split image from %s while not in-sync.", full);
            return LVX_EXIT_FAILED;
        }
        return split_track(env, u, &act, lv, o->yes, pvs, pv_count);
    }
    if (o->count != 1) {
        lvx_cmd_errorf("Unable to split more than one image from %s.", full);
        return LVX_EXIT_FAILED;
    }
    if (lvx_vg_find_lv(u->vg, o->name)) {
        lvx_cmd_errorf("Logical Volume \"%s\" already exists in %s.", o->name, u->vg->name);
        return LVX_EXIT_FAILED;
    }
    if (!lvx_lvconvert_in_sync(lv, &ks)) {
        lvx_cmd_errorf("Unable to split %s while it is not in-sync.", full);
        return LVX_EXIT_FAILED;
    }
    uint32_t new_count = old - o->count;
    if (new_count == 1 && !o->yes &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to split %s LV %s "
                                           "losing all resilience?",
                                           lvx_seg_report_type(&lv->segs[0]), full))) {
        lvx_cmd_errorf("Logical volume %s NOT split.", full);
        return LVX_EXIT_FAILED;
    }
    return split_off(env, u, &act, lv, new_count, o->name, pvs, pv_count);
}

bool lvx_raid_merge_wanted(const struct lvx_lv *lv)
{
    const struct lvx_seg *user = lvx_lv_used_by(lv, NULL);
    if (!user || user->kind != LVX_SEG_RAID || !strstr(lv->name, "_rimage_"))
        return false;
    for (uint32_t s = 0; user->areas && s < user->area_count; s++)
        if (user->areas[s].lv == lv)
            return true;
    return false;
}

int lvx_lvconvert_raid_merge(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *img)
{
    struct lvx_vg *vg = u->vg;
    const char *ifull = lvx_pool_printf(env->pool, "%s/%s", vg->name, img->name);
    if (img->status & LVX_LV_WRITE) {
        lvx_cmd_errorf("%s cannot be merged because --trackchanges was not used.", ifull);
        return LVX_EXIT_FAILED;
    }
    char *top = lvx_pool_strdup(env->pool, img->name);
    *strstr(top, "_rimage_") = '\0';
    struct lvx_lv *lv = lvx_vg_find_lv(vg, top);
    if (!lv) {
        lvx_cmd_errorf("Unable to find containing RAID array for %s.", ifull);
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv *meta = NULL;
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; lvx_map_lv_is_raid(lv) && seg->meta_areas && s < seg->area_count; s++)
        if (seg->areas[s].lv == img)
            meta = seg->meta_areas[s].lv;
    if (!meta) {
        lvx_cmd_errorf("Failed to find meta for %s in RAID array %s/%s.", ifull, vg->name,
                       lv->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    int rc;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    if ((rc = lvx_lvconvert_need_active(env, &act, lv, &ks)))
        return rc;
    if (!env->args->count[LVX_OPT_TEST]) {
        if (act.be->deactivate(env->ctx, meta, NULL) < 0) {
            lvx_cmd_fail(env);
            lvx_cmd_errorf("Failed to deactivate %s/%s before merging.", vg->name, meta->name);
            return LVX_EXIT_FAILED;
        }
        if (act.be->deactivate(env->ctx, img, NULL) < 0) {
            lvx_cmd_fail(env);
            lvx_cmd_errorf("Failed to deactivate %s before merging.", ifull);
            return LVX_EXIT_FAILED;
        }
    }
    img->status &= ~(uint32_t)LVX_LV_VISIBLE;
    img->status |= lv->status & LVX_LV_WRITE;
    seg->raw = NULL;
    struct lvx_raid_change ch;
    memset(&ch, 0, sizeof(ch));
    if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
        return rc;
    lvx_notice(env->ctx, "%s successfully merged back into %s/%s.", ifull, vg->name, lv->name);
    return 0;
}
