/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/mirror_repair.c - old-style mirrors with images or a log on missing PVs
 * (cmd/mirror_repair.h), as LVM2 2.03.16 repairs them:
 *
 *   removal     the images on missing PVs go (the survivors keep their names and
 *               order), a log on a missing PV goes (core log); one image left: the LV
 *               becomes it (linear, no log).  vgreduce --removemissing --force stops
 *               here; a mirror without a usable image is removed ("No usable images
 *               left in VG/LV.").  A mirror LVM2 left CONVERTING (its resync layer
 *               NAME_mimagetmp_N under the top) loses its images as LVM2's
 *               remove_mirror_images walks it: the top's own first, then those under
 *               the layer; a top left with the layer alone takes the layer over, a
 *               layer left with one image is collapsed into the top (its survivor
 *               among the top's images, its log the top's); nothing removed leaves a
 *               sub-LV behind (a mirrored log's images, a layer's).
 *   replacement lvconvert --repair then asks for the original image and log counts
 *               (without --use-policies: both replaced, -f: neither, no -y: asked; with
 *               --use-policies: lvm.conf's activation/mirror_image_fault_policy,
 *               default "remove", and mirror_log_fault_policy, default "allocate"),
 *               "Trying to up-convert to N images, M logs." and, when that fails, one
 *               image fewer (down to 2), then one log fewer; allocated on the PVs named
 *               after the LV, or on every PV (LVM2's use_pvh: a failed image's PV still
 *               present is a candidate again once the image is removed).  A linear LV
 *               becomes a mirror again as lvconvert --type mirror makes one ("Conversion starts
 *               after activation."); a log comes back as --mirrorlog disk adds one.
 *               A mirror of 2 or more survivors gets its new images as lvconvert
 *               -m +N adds them (cmd/lvconvert_mirror.c: the lost image's name, the
 *               collapsed layout where LVM2 goes through a temporary resync layer, the
 *               log's header zeroed when inactive).  Active in the user backend with
 *               its log kept, LVM2's layer itself (NAME_mimagetmp_N over the survivors
 *               and the log, cmd/mirror_layer.c): the daemon serves it, only the new
 *               images copied, then LVM2's poll lines and the live collapse.
 *   active      the user backend's daemon reloads the LV onto the new layout (new
 *               images copied from the survivor first); in the dm backend the failed
 *               legs go by a live table reload (no-flush suspend), the replacements
 *               as an active -m +N (LVM2's resync layer, polled); only a core-log
 *               mirror given images back, or a new log, is deactivated and activated
 *               again (refused when in use).
 */
#include "cmd/mirror_repair.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_mirror.h"
#include "cmd/lvconvert_raid.h"
#include "cmd/mirror_layer.h"
#include "cmd/mirror_mlog.h"
#include "config/config.h"
#include "map/map.h"
#include "model/snapshot.h"

#include <string.h>

/* Not found, or back but still flagged MISSING (in use when a write flagged it): LVM2's
 * is_missing_pv */
static bool pv_lost(const struct lvx_pv *pv)
{
    return pv && (!pv->ondisk.present || (pv->flags & LVX_PVF_MISSING));
}

static bool partial_at(const struct lvx_lv *lv, unsigned depth)
{
    if (depth > 16)
        return false;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        for (unsigned a = 0; a < seg->area_count; a++)
            if (pv_lost(seg->areas[a].pv) ||
                (seg->areas[a].lv && partial_at(seg->areas[a].lv, depth + 1)) ||
                (seg->meta_areas && seg->meta_areas[a].lv &&
                 partial_at(seg->meta_areas[a].lv, depth + 1)))
                return true;
        if (seg->log_lv && partial_at(seg->log_lv, depth + 1))
            return true;
    }
    return false;
}

bool lvx_lv_is_partial(const struct lvx_lv *lv)
{
    return partial_at(lv, 0);
}

/* lv out of the VG with the sub-LVs under it (a mirrored log's images, a resync layer's
 * images and log): none left behind in the metadata */
static void remove_with_subs(struct lvx_vg *vg, struct lvx_lv *lv, unsigned depth)
{
    for (unsigned s = 0; depth < 8 && s < lv->seg_count; s++) {
        struct lvx_seg *seg = &lv->segs[s];
        for (uint32_t a = 0; seg->areas && a < seg->area_count; a++)
            if (seg->areas[a].lv && seg->areas[a].lv != lv)
                remove_with_subs(vg, seg->areas[a].lv, depth + 1);
        if (seg->log_lv)
            remove_with_subs(vg, seg->log_lv, depth + 1);
    }
    lvx_vg_remove_lv(vg, lv);
}

/* Does the layer still hold an image that is not on a missing PV? */
static bool layer_has_usable(const struct lvx_lv *layer)
{
    const struct lvx_seg *seg = &layer->segs[0];
    for (uint32_t a = 0; a < seg->area_count; a++)
        if (seg->areas[a].lv && !lvx_lv_is_partial(seg->areas[a].lv))
            return true;
    return false;
}

static uint32_t layer_usable_count(const struct lvx_lv *layer)
{
    const struct lvx_seg *seg = &layer->segs[0];
    uint32_t n = 0;
    for (uint32_t a = 0; a < seg->area_count; a++)
        n += seg->areas[a].lv && !lvx_lv_is_partial(seg->areas[a].lv);
    return n;
}

/* The resync layer left with one image: its lost images (and its log, if lost) go, the
 * survivor takes the layer's place among the top's images and the layer's log becomes
 * the top's, the layer itself goes (LVM2 collapses the layer so; mirror-vgreduce-
 * removemissing.sh's test_2way_mirror_plus_2_fail_1_). */
static void collapse_layer(struct lvx_lv *lv, struct lvx_lv *layer, bool active,
                           uint32_t *failed_images, uint32_t *failed_logs)
{
    struct lvx_seg *lseg = &layer->segs[0], *top = &lv->segs[0];
    struct lvx_lv *survivor = NULL;
    for (uint32_t a = 0; a < lseg->area_count; a++) {
        struct lvx_lv *img = lseg->areas[a].lv;
        if (img && !lvx_lv_is_partial(img)) {
            survivor = img;
            continue;
        }
        if (a == 0 && !active)               /* LVM2's in-sync check, as below */
            lvx_cmd_errorf("Unable to determine mirror sync status of %s/%s.", lv->vg->name,
                           layer->name);
        if (img)
            remove_with_subs(lv->vg, img, 0);
        (*failed_images)++;
    }
    struct lvx_lv *log = lseg->log_lv;
    if (log && lvx_lv_is_partial(log)) {
        remove_with_subs(lv->vg, log, 0);
        (*failed_logs)++;
        log = NULL;
    }
    for (uint32_t a = 0; a < top->area_count; a++)
        if (top->areas[a].lv == layer)
            top->areas[a].lv = survivor;
    top->log_lv = log;
    top->raw = NULL;
    lseg->area_count = 0;
    lseg->log_lv = NULL;
    lvx_vg_remove_lv(lv->vg, layer);
}

bool lvx_mirror_image_usable(const struct lvx_lv *img)
{
    const struct lvx_lv *layer = img->seg_count && img->segs[0].kind == LVX_SEG_MIRROR ? img : NULL;
    return layer ? layer_has_usable(layer) : !lvx_lv_is_partial(img);
}

void lvx_mirror_remove_missing(struct lvx_lv *lv, bool active, uint64_t dead, bool dead_log,
                               uint32_t *failed_images, uint32_t *failed_logs)
{
    struct lvx_seg *seg = &lv->segs[0];
    uint32_t keep = 0, lost = 0;
    *failed_logs = 0;
    /* LVM2's resync layer (NAME_mimagetmp_N: the old images and the log under the top,
     * beside the new images): as LVM2's remove_mirror_images, the failed images are
     * taken out inside it, not the layer as a whole (while it keeps an image) */
    struct lvx_lv *layer = (struct lvx_lv *)lvx_map_mirror_sync_layer(lv);
    if (layer && layer_has_usable(layer)) {
        /* the top's own images first; left with the layer alone, the top takes the
         * layer's images and log (LVM2 collapses it so) and loses the rest itself */
        for (uint32_t i = 0; i < seg->area_count; i++) {
            struct lvx_lv *img = seg->areas[i].lv;
            if (img && img != layer && (((dead >> (i % 64)) & 1) || lvx_lv_is_partial(img))) {
                remove_with_subs(lv->vg, img, 0);
                lost++;
            } else {
                seg->areas[keep++] = seg->areas[i];
            }
        }
        seg->area_count = seg->stripe_count = keep;
        seg->raw = NULL;
        uint32_t li = 0, ll = 0;
        if (keep == 1) {
            lvx_mirror_to_linear(lv);
            lvx_mirror_remove_missing(lv, active, 0, false, &li, &ll);
        } else if (layer_usable_count(layer) == 1) {
            collapse_layer(lv, layer, active, &li, &ll);
        } else {
            lvx_mirror_remove_missing(layer, active, 0, false, &li, &ll);
        }
        *failed_images = lost + li;
        *failed_logs = ll;
        return;
    }
    if (seg->log_lv && (dead_log || lvx_lv_is_partial(seg->log_lv))) {
        *failed_logs += 1;
        remove_with_subs(lv->vg, seg->log_lv, 0);     /* a mirrored log with its images */
        seg->log_lv = NULL;
    }
    uint32_t top_lost = 0;
    for (uint32_t i = 0; i < seg->area_count; i++) {
        struct lvx_lv *img = seg->areas[i].lv;
        if (img && (((dead >> (i % 64)) & 1) || lvx_lv_is_partial(img))) {
            if (i == 0 && !active && seg->area_count > 1)   /* LVM2's in-sync check */
                lvx_cmd_errorf("Unable to determine mirror sync status of %s/%s.", lv->vg->name,
                               lv->name);
            remove_with_subs(lv->vg, img, 0);
            top_lost++;
        } else {
            seg->areas[keep++] = seg->areas[i];
        }
    }
    *failed_images = lost + top_lost;
    seg->raw = NULL;                       /* written from its typed fields now */
    if (!top_lost)
        return;
    seg->area_count = seg->stripe_count = keep;
    if (keep == 1)
        lvx_mirror_to_linear(lv);
}

/* LVM2's choice between removing and replacing what failed. */
static void ask_policies(struct lvx_cmd_env *env, const struct lvx_mirror_repair *r,
                         uint32_t failed_logs, uint32_t failed_images, bool *replace_logs,
                         bool *replace_images)
{
    if (r->use_policies) {
        struct lvx_config *cfg = NULL;
        if (lvx_config_load(env->ctx, &cfg) < 0)
            lvx_error_clear(env->ctx);
        const char *img = lvx_config_str(cfg, "activation/mirror_image_fault_policy", "remove");
        const char *log = lvx_config_str(cfg, "activation/mirror_log_fault_policy", "allocate");
        *replace_images = strcmp(img, "remove") != 0;
        *replace_logs = strcmp(log, "remove") != 0;
        lvx_config_free(cfg);
        return;
    }
    *replace_logs = *replace_images = !r->force;
    if (r->force || r->yes)
        return;
    if (failed_logs && !lvx_lvcmd_confirm("Attempt to replace failed mirror log?"))
        *replace_logs = false;
    if (failed_images &&
        !lvx_lvcmd_confirm("Attempt to replace failed mirror images (requires full device "
                           "resync)?"))
        *replace_images = false;
}

/* (through a resync layer: its images and the top's new ones, its log) */
static uint32_t image_count(const struct lvx_lv *lv)
{
    struct lvx_lv *img[LVX_MIRROR_LEAVES_MAX], *log;
    return lvx_map_lv_is_mirror(lv) ? lvx_mirror_leaves(lv, img, LVX_MIRROR_LEAVES_MAX, &log)
                                    : 1;
}

static uint32_t log_count(const struct lvx_lv *lv)
{
    struct lvx_lv *img[LVX_MIRROR_LEAVES_MAX], *log = NULL;
    if (lvx_map_lv_is_mirror(lv))
        lvx_mirror_leaves(lv, img, LVX_MIRROR_LEAVES_MAX, &log);
    return log ? 1 : 0;
}

/* One attempt at `images` images and `logs` logs: 0 done, 1 not possible (nothing
 * changed), else the exit code.  *added: images were added to the mirror (its log's
 * header must be zeroed: every region copied again). */
static int up_convert(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      uint32_t images, uint32_t logs, uint32_t region_size, bool layer,
                      const struct lvx_mirror_repair *r, bool *added)
{
    int rc;
    if (lvx_map_lv_is_mirror(lv) && images > image_count(lv) &&
        lvx_lv_snapshot_segs(lv, NULL, 0) > 0) {
        /* LVM2 adds no image to a mirror under snapshots (a linear origin becomes one) */
        lvx_cmd_errorf("Can't add additional mirror images to mirror %s/%s which is under "
                       "snapshots.", lv->vg->name, lv->name);
        return 1;
    }
    if (!lvx_map_lv_is_mirror(lv)) {
        if (images < 2)
            return 0;
        /* no room (its lines printed, the LV as it was): one image fewer, as LVM2 */
        rc = lvx_mirror_from_linear(env, u, lv, images, logs == 0, region_size, r->pvs,
                                    r->pv_count);
        return rc == LVX_EXIT_FAILED ? 1 : rc;
    }
    struct lvx_seg *seg = &lv->segs[0];
    struct lvx_area *old_areas = seg->areas;
    uint32_t old_count = seg->area_count;
    if (layer && images > old_count && logs == log_count(lv) && logs) {
        /* LVM2's resync layer (as lvconvert -m +N, cmd/lvconvert_mirror.c): the
         * survivors and their log under NAME_mimagetmp_N, the new images beside it */
        lvx_mirror_insert_layer(lv, lvx_mirror_next_image(u->vg, lv->name));
        if ((rc = lvx_mirror_add_images(env, u, lv, 1 + images - old_count, r->pvs,
                                         r->pv_count, 0))) {
            lvx_mirror_collapse_layer(lv);      /* the top's one area: as before */
            return rc == LVX_EXIT_FAILED ? 1 : rc;
        }
        *added = true;
        return 0;
    }
    if (images > old_count) {
        /* no room (its error printed, nothing changed): one image fewer, as LVM2 */
        if ((rc = lvx_mirror_add_images(env, u, lv, images, r->pvs, r->pv_count,
                                         logs > log_count(lv) ? logs - log_count(lv) : 0)))
            return rc == LVX_EXIT_FAILED ? 1 : rc;
    }
    if (logs > log_count(lv) && (rc = lvx_mirror_add_log(env, u, lv, 0, r->pvs, r->pv_count))) {
        /* images and log did not fit together: the images just added go again and the
         * next try has one image fewer (LVM2 allocates them together) */
        for (uint32_t i = old_count; i < seg->area_count; i++)
            lvx_vg_remove_lv(lv->vg, seg->areas[i].lv);
        seg->areas = old_areas;
        seg->area_count = seg->stripe_count = old_count;
        seg->raw = NULL;
        return rc == LVX_EXIT_FAILED ? 1 : rc;
    }
    if (images > old_count)
        *added = true;
    if (logs < log_count(lv)) {
        lvx_vg_remove_lv(lv->vg, lv->segs[0].log_lv);
        lv->segs[0].log_lv = NULL;
        lv->segs[0].raw = NULL;
    }
    return 0;
}

/* LVM2's lv_check_transient: the images (a bit per area) and the disk log the active
 * mirror's target reports failed (a health letter other than 'A': the daemon's 'D',
 * the kernel's D, F, S, R or U), their PVs present.  Nothing for a mirror under a
 * resync layer (its status names the layer's legs). */
static void transient_failures(const struct lvx_lv *lv, const struct lvx_lv_kstate *ks,
                               uint64_t *dead, bool *dead_log)
{
    const struct lvx_seg *seg = &lv->segs[0];
    *dead = 0;
    *dead_log = false;
    if (!ks->active || !ks->mirror || lvx_map_mirror_sync_layer(lv) ||
        strlen(ks->raid_health) != seg->area_count)
        return;
    for (uint32_t i = 0; i < seg->area_count && i < 64; i++)
        if (ks->raid_health[i] != 'A')
            *dead |= (uint64_t)1 << i;
    *dead_log = seg->log_lv && ks->mirror_log_health && ks->mirror_log_health != 'A';
}

int lvx_mirror_repair(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      const struct lvx_mirror_repair *r)
{
    const char *vg = lv->vg->name;
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    int rc;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    memset(&ks, 0, sizeof(ks));
    bool active = lvx_actcmd_is_active(env, &act, lv, &ks), was_active = active;
    uint64_t dead;
    bool dead_log;
    transient_failures(lv, &ks, &dead, &dead_log);
    if (!dead && !dead_log && !lvx_lv_is_partial(lv)) {
        lvx_notice(env->ctx, "Volume %s/%s is consistent. Nothing to repair.", vg, lv->name);
        return 0;
    }
    bool test = env->args->count[LVX_OPT_TEST] != 0;
    /* the user backend serves the mirror as one file over its sub-LVs: the daemon
     * re-reads them at the reload.  The dm backend's mirror is repaired live as LVM2
     * does: the failed images and log removed by a reload of its table (the top
     * suspended without flushing: dm-mirror hands back the writes it holds since the
     * failure, which go to the new table), then what replaces them added as lvconvert
     * adds images to an active mirror (lvx_mirror_reload_dm, or LVM2's resync layer
     * for a mirror with a disk log); only a core-log mirror given images, or a new log,
     * is still deactivated and activated again (refused when in use). */
    bool dm = active && act.be->rename_sub;
    struct lvx_lv *before[LVX_RAID_CHANGE_MAX];
    unsigned before_n = dm ? lvx_mirror_subs(lv, before) : 0;
    uint32_t orig_images = image_count(lv), orig_logs = log_count(lv);
    uint32_t region_size = lv->segs[0].region_size, failed_images, failed_logs;
    bool usable = false;
    for (uint32_t i = 0; i < lv->segs[0].area_count; i++)
        usable |= lv->segs[0].areas[i].lv && !((dead >> (i % 64)) & 1) &&
                  lvx_mirror_image_usable(lv->segs[0].areas[i].lv);
    if (!usable) {
        lvx_cmd_errorf("No usable images left in %s/%s.", vg, lv->name);
        return LVX_EXIT_FAILED;
    }
    const struct lvx_lv *old_log = lv->segs[0].log_lv;
    bool was_linear;
    lvx_mirror_remove_missing(lv, was_active, dead, dead_log, &failed_images, &failed_logs);
    if (failed_images)
        lvx_notice(env->ctx, "Mirror status: %u of %u images failed.", failed_images,
                   orig_images);
    if (failed_logs)
        lvx_notice(env->ctx, "Mirror log status: %u of %u images failed.", failed_logs,
                   orig_logs);
    bool replace_logs, replace_images;
    ask_policies(env, r, failed_logs, failed_images, &replace_logs, &replace_images);
    if (active && !dm && replace_images && (rc = lvx_lvconvert_refuse_read_only(env, &act, lv)))
        return rc;
    uint32_t images = replace_images ? orig_images : orig_images - failed_images;
    if (images == 1)
        replace_logs = false;
    uint32_t logs = replace_logs ? orig_logs : orig_logs - failed_logs;
    if (dm && !test && (rc = lvx_mirror_reload_dm(env, u, &act, lv, before, before_n, NULL,
                                                  NULL, 0)))
        return rc;                   /* the failed legs gone live (LVM2's first commit) */
    before_n = dm ? lvx_mirror_subs(lv, before) : 0;
    was_linear = !lvx_map_lv_is_mirror(lv);
    old_log = lv->segs[0].log_lv;
    bool added = false;
    while (replace_images || replace_logs) {
        lvx_warn(env->ctx, "WARNING: Trying to up-convert to %u images, %u logs.", images, logs);
        rc = up_convert(env, u, lv, images, logs, region_size,
                        active && (dm || lvx_mirror_layer_served(&act)), r, &added);
        if (!rc)
            break;
        if (rc != 1)
            return rc;
        if (images > 2)
            images--;
        else if (logs > 0)
            logs--;
        else
            break;
    }
    bool changed = added || log_count(lv) != (old_log ? 1u : 0u) ||
                   was_linear != !lvx_map_lv_is_mirror(lv);
    /* dm: a linear LV made a mirror again, or a mirror without a disk log given images
     * or a log, cannot take LVM2's resync layer: a mirror of them is loaded live when
     * the old one was linear; else the LV is cycled */
    bool cycle = dm && changed && !was_linear && !lvx_map_mirror_sync_layer(lv);
    if (cycle && !test && (rc = lvx_actcmd_deactivate(env, &act, lv, false))) {
        lvx_cmd_errorf("lvx repairs a mirror without a disk log active in the device-mapper "
                       "backend by deactivating it: %s/%s was not deactivated.", vg, lv->name);
        return rc;
    }
    if (cycle)
        dm = active = false;
    if (dm && !test && changed && was_linear) {
        if ((rc = lvx_mirror_reload_dm(env, u, &act, lv, before, before_n, NULL, NULL, 0)))
            return rc;
    } else if ((!dm || test || changed) &&
               (rc = lvx_mirror_commit_live(env, u, &act, lv, active,
                                            added && !active ? NULL : old_log))) {
        /* images added: inactive, the log's header zeroed (every region copied
         * again); served by the daemon beside the same log, the new images copied
         * whole; in dm the resync layer's device staged and swapped in */
        return rc;
    }
    if (cycle && !test && (rc = lvx_actcmd_activate(env, &act, lv)))
        return rc;
    if (cycle && !test)
        dm = active = true;
    if (replace_images && image_count(lv) != orig_images)
        lvx_warn(env->ctx, "WARNING: Failed to replace %u of %u images in volume %s/%s.",
                 orig_images - image_count(lv), orig_images, vg, lv->name);
    if (replace_logs && log_count(lv) != orig_logs)
        lvx_warn(env->ctx, "WARNING: Failed to replace %u of %u logs in volume %s/%s.",
                 orig_logs - log_count(lv), orig_logs, vg, lv->name);
    /* (after the warnings, as LVM2) LVM2 polls no conversion of a repair: an active LV is copied at the reload */
    if (was_linear && lvx_map_lv_is_mirror(lv) && !active && !dm)
        lvx_notice(env->ctx, "Conversion starts after activation.");
    /* images added to a mirror with a log: LVM2 polls its resync layer to the end
     * (written in the user backend: collapsed live once the daemon has copied them) */
    if (added && active && !test && lvx_map_mirror_sync_layer(lv)) {
        struct lvx_mirror_conv c = { 0 };
        return lvx_mirror_layer_poll(env, u, &act, lv, true, &c);
    }
    if (added && active && lv->segs[0].log_lv)
        return lvx_mirror_poll_converted(env, &act, lv, true);
    /* a linear survivor made a mirror again in the kernel: LVM2 polls it ("Converted",
     * no "converted." line: no resync layer) */
    if (was_linear && lvx_map_lv_is_mirror(lv) && dm && !test)
        return lvx_mirror_poll_converted(env, &act, lv, false);
    return 0;
}
