/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_mirror.c - lvconvert of old-style mirrors (cmd/lvconvert_mirror.h),
 * for inactive LVs, as LVM2 2.03.16 does them without device-mapper (seen with
 * activation disabled: the same metadata text):
 *
 *   mirror -> linear  (-m 0, --type linear): the LV takes its first image's segments;
 *                     the other images and the log go;
 *   fewer images      (-m N, -m -N): the last images go; with PVs named, those wholly
 *                     on them first (the first image only from an in-sync mirror);
 *   --mirrorlog core  the log goes; --mirrorlog disk: a new NAME_mlog, placed as a log
 *                     added alone (on a PV without an image, best fit);
 *   linear -> mirror  (--type mirror [-m N] [--stripes S]; a striped LV too): the LV's
 *                     segments become NAME_mimage_0, N new images (linear, or of S
 *                     stripes) on other PVs and a log (the log created first, then
 *                     the images: LVM2's order in the metadata), the log's first 4 KiB
 *                     zeroed; "Conversion starts after activation."
 *
 *   --splitmirrors N  (--name NEW) of an active, in-sync mirror: its last N images (the
 *                     last ones on the PVs named) become the LV NEW, activated: linear
 *                     for one, else a core-log mirror of them (NEW_mimage_0 a new layer
 *                     with the first one's segments, the others renamed NEW_mimage_1...),
 *                     its first table "nosync"; down to one image the mirror becomes
 *                     linear (lvx_mirror_split);
 *   more images       (-m N, -m +N of a core-, disk- or mirrored-log mirror, with
 *                     --mirrorlog too: the log changed after the images are added,
 *                     but a log going to core or a mirrored log to disk first, as LVM2,
 *                     so that the PVs it frees take images):
 *                     NAME_mimage_<k>... (k above the highest in use) on PVs holding
 *                     none of its images nor its log, appended.  An inactive mirror
 *                     with a log (once --mirrorlog changed it, first) gets LVM2's
 *                     NAME_mimagetmp_N resync layer instead (add_images_layered, the
 *                     same metadata as LVM2's; cmd/mirror_layer.c collapses it at
 *                     dm activation), so does one active in the user backend whose
 *                     log is kept as it is or becomes a disk log (a new one zeroed
 *                     first; the daemon serves the layer; lvconvert then polls and
 *                     collapses it live: lvx_mirror_layer_poll), and one active in dm
 *                     whose log is kept or becomes a disk log (the layer's device
 *                     staged inactive, resumed under the suspended top: dm_backend.c;
 *                     open LVs too); other active ones the collapsed layout at once
 *                     (README: a deliberate
 *                     difference); refused (LVM2's words) for a
 *                     NOTSYNCED mirror (a mirror under snapshots: cmd/lvconvert.c).
 *
 * `lvconvert VG/LV` alone waits for an active mirror to be in sync ("VG/LV: Converted:
 * 100.00%", LVM2's poll), nothing written; a mirror LVM2 left CONVERTING (its
 * NAME_mimagetmp_N layer) is finished by cmd/mirror_layer.c, reduced or given another
 * log by cmd/mirror_layer_convert.c (then, the layer gone, as any mirror here).
 * Each prints "Logical volume VG/LV converted." (linear -> mirror and more images:
 * "... being converted.").  LVs active in the user backend are converted live: the
 * new layout staged, committed, new logs zeroed, then the daemon reloads the LV (its
 * mirror target copies image 0 to the new images in the background; lvconvert waits
 * for the copy as LVM2's poll does: "Converted: 100.00%", and for a mirror with a log
 * "Logical volume VG/LV converted.", the end of LVM2's CONVERTING resync layer).  A
 * disk or mirrored log is kept as it is there: the daemon sees the images the reload added beside
 * the same log and copies every region to them, the old images only where the log says
 * out of sync (what LVM2's resync layer copies).  Active in the dm backend,
 * the LV's table is reloaded as for RAID LVs (lvx_lvconvert_reload: new sub-LV devices
 * made, a new log's start zeroed, the table staged, committed, swapped, the devices of
 * the sub-LVs that went removed).  More images for a core-log mirror active in the dm
 * backend (not given a disk log) or with a new mirrored log:
 * it is deactivated for the change (refused when in use) and activated again, the
 * kernel copying every region (no resync layer: the old table would write a zeroed
 * log back in sync at a reload); so does a new mirrored log there;
 * --type raid1 of an inactive mirror gets LVM2's "must be active" refusal.
 */
#include "cmd/lvconvert_mirror.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_raid.h"
#include "cmd/lvcreate_raid.h"
#include "cmd/mirror_layer.h"
#include "cmd/mirror_mlog.h"
#include "map/map.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define LOG_ZERO_BYTES 4096u
#define DEFAULT_STRIPE_SIZE 128u    /* sectors: 64 KiB */

/* A new hidden sub-LV of lv for lvconvert: created now. */
static struct lvx_lv *new_sub(struct lvx_vg *vg, const struct lvx_lv *lv, const char *suffix)
{
    struct lvx_lv *s = lvx_raid_new_sub(vg, lv, "x", 0, false);
    s->name = lvx_pool_printf(vg->pool, "%s_%s", lv->name, suffix);
    s->creation_time = (uint64_t)time(NULL);
    return s;
}

/* lv, or a sub-LV under it (a mirrored log's images), has an area on pv */
static bool on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv)
{
    for (unsigned s = 0; s < lv->seg_count; s++)
        for (uint32_t a = 0; lv->segs[s].areas && a < lv->segs[s].area_count; a++)
            if (lv->segs[s].areas[a].pv == pv ||
                (lv->segs[s].areas[a].lv && lv->segs[s].areas[a].lv != lv &&
                 on_pv(lv->segs[s].areas[a].lv, pv)))
                return true;
    return false;
}

/* The mirror's images from index `keep` on go (with `log` the log too). */
static void drop_subs(struct lvx_lv *lv, uint32_t keep, bool log)
{
    struct lvx_seg *seg = &lv->segs[0];
    seg->raw = NULL;                /* written from its typed fields now */
    for (uint32_t i = keep; i < seg->area_count; i++)
        lvx_vg_remove_lv(lv->vg, seg->areas[i].lv);
    seg->area_count = seg->stripe_count = keep;
    if (log && seg->log_lv) {
        if (lvx_mirror_log_is_mirrored(seg->log_lv))    /* its images first */
            lvx_mirror_mlog_unmirror(seg->log_lv);
        lvx_vg_remove_lv(lv->vg, seg->log_lv);
        seg->log_lv = NULL;
    }
}

void lvx_mirror_to_linear(struct lvx_lv *lv)
{
    struct lvx_lv *img = lv->segs[0].areas[0].lv;
    drop_subs(lv, 1, true);
    lvx_vg_remove_lv(lv->vg, img);
    lv->segs = img->segs;
    lv->seg_count = img->seg_count;
    for (unsigned s = 0; s < lv->seg_count; s++)
        lv->segs[s].lv = lv;
    lv->status &= ~(uint32_t)LVX_LV_NOTSYNCED;
}

int lvx_mirror_add_log(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                       uint64_t with_images, const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_seg *seg = &lv->segs[0];
    struct lvx_free_maps *maps;
    int rc;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    struct lvx_lv *log = new_sub(vg, lv, "mlog");
    struct lvx_lv **img = lvx_pool_alloc(env->pool, seg->area_count * sizeof(*img));
    for (uint32_t i = 0; i < seg->area_count; i++)
        img[i] = seg->areas[i].lv;
    uint32_t ext = lvx_mirror_log_extents(lv->le_count * vg->extent_size, seg->region_size,
                                          vg->extent_size);
    if (lvx_mirror_alloc_log(env, vg, maps, lv->name, log, ext, img, seg->area_count, with_images,
                             lvx_lvcmd_effective_policy(vg, lv->alloc), pvs, pv_count) < 0) {
        lvx_vg_remove_lv(vg, log);             /* nothing changed: a repair goes on */
        return lvx_cmd_fail(env);
    }
    seg->log_lv = log;
    seg->raw = NULL;
    return 0;
}

/* --mirrorlog mirrored of a mirror with a core or disk log (LVM2's warning first). */
static int add_mirrored_log(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                            const struct lvx_alloc_pv *pvs, unsigned pv_count, bool warn)
{
    struct lvx_vg *vg = u->vg;
    const struct lvx_seg *seg = &lv->segs[0];
    struct lvx_free_maps *maps;
    int rc;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    if (warn)
        lvx_cmd_errorf("%s", LVX_MLOG_WARNING);
    uint32_t ext = seg->log_lv ? seg->log_lv->le_count
                   : lvx_mirror_log_extents(lv->le_count * vg->extent_size, seg->region_size,
                                            vg->extent_size);
    if (lvx_mirror_mlog_build(env, vg, maps, lv, ext, lv->le_count,
                              lvx_lvcmd_effective_policy(vg, lv->alloc), pvs, pv_count, true) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

/* linear -> mirror of `images` images: the LV's segments become NAME_mimage_0. */
/* from_linear's changes taken back: lv holds its segments again, the new sub-LVs go
 * (the free maps are made anew from the VG by the next allocation) */
static void undo_from_linear(struct lvx_vg *vg, struct lvx_lv *lv, struct lvx_lv **img,
                             uint32_t images, struct lvx_lv *log)
{
    lv->segs = img[0]->segs;
    lv->seg_count = img[0]->seg_count;
    for (unsigned s = 0; s < lv->seg_count; s++)
        lv->segs[s].lv = lv;
    img[0]->segs = NULL;
    img[0]->seg_count = 0;
    for (uint32_t i = 0; i < images; i++)
        lvx_vg_remove_lv(vg, img[i]);
    if (log)
        lvx_vg_remove_lv(vg, log);
}

static int from_linear(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                       const struct lvx_mirror_conv *c, uint32_t images,
                       const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_free_maps *maps;
    int rc;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    struct lvx_raid_opts o = { .region_size = c->region_size };
    lvx_raid_reduce_region(env, &o, lv->le_count * vg->extent_size);
    struct lvx_lv *log = c->core_log ? NULL : new_sub(vg, lv, "mlog");
    struct lvx_lv **img = lvx_pool_alloc(env->pool, images * sizeof(*img));
    img[0] = new_sub(vg, lv, "mimage_0");
    img[0]->segs = lv->segs;
    img[0]->seg_count = lv->seg_count;
    img[0]->le_count = lv->le_count;
    for (unsigned s = 0; s < img[0]->seg_count; s++)
        img[0]->segs[s].lv = img[0];
    for (uint32_t i = 1; i < images; i++)
        img[i] = new_sub(vg, lv, lvx_pool_printf(env->pool, "mimage_%u", i));
    /* the new images on PVs without the data */
    unsigned n = pv_count ? pv_count : vg->pv_count, k = 0;
    struct lvx_alloc_pv *others = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*others));
    for (unsigned i = 0; i < n; i++) {
        struct lvx_alloc_pv cand = pvs ? pvs[i] : (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
        if (!on_pv(img[0], cand.pv))
            others[k++] = cand;
    }
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, lv->alloc);
    uint32_t stripes = c->stripes > 1 ? c->stripes : 1;
    if (stripes > 1 && lv->le_count % stripes) {     /* LVM2's allocator's words */
        undo_from_linear(vg, lv, img, images, log);
        lvx_cmd_errorf("Number of extents requested (%u) needs to be divisible by %u.",
                       (unsigned)lv->le_count, stripes);
        lvx_cmd_errorf("Unable to allocate extents for mirror(s).");
        return LVX_EXIT_FAILED;
    }
    if (!k) {
        undo_from_linear(vg, lv, img, images, log);
        lvx_cmd_errorf("Insufficient suitable allocatable extents for logical volume %s: %llu "
                       "more required", lv->name,
                       (unsigned long long)((images - 1) * lv->le_count));
        return LVX_EXIT_FAILED;
    }
    if (lvx_mirror_alloc_images(env, maps, lv->name, images - 1, stripes, c->stripe_size,
                                lv->le_count, policy, others, k, img + 1) < 0 ||
        (log && lvx_mirror_alloc_log(env, vg, maps, lv->name, log,
                                     lvx_mirror_log_extents(lv->le_count * vg->extent_size,
                                                            o.region_size, vg->extent_size),
                                     img, images, lv->le_count, policy, pvs, pv_count) < 0)) {
        /* LVM2 allocates the images and the log together, for no LV: its two lines; the
         * LV as it was (a repair then tries one image fewer) */
        lvx_error_clear(env->ctx);
        undo_from_linear(vg, lv, img, images, log);
        lvx_cmd_errorf("Insufficient suitable allocatable extents for logical volume : %llu "
                       "more required", (unsigned long long)((images - 1) * lv->le_count));
        lvx_cmd_errorf("Unable to allocate extents for mirror(s).");
        return LVX_EXIT_FAILED;
    }
    o.nosync = false;
    struct lvx_seg *seg = lvx_raid_new_seg(vg, lv, "mirror", LVX_SEG_MIRROR, lv->le_count,
                                           images, img, &o);
    seg->log_lv = log;
    return 0;
}

/* The new images appended to the mirror's segment. */
static void append_images(struct lvx_lv *lv, struct lvx_lv **img, uint32_t want)
{
    struct lvx_seg *seg = &lv->segs[0];
    uint32_t cur = seg->area_count;
    struct lvx_area *areas = lvx_pool_alloc(lv->vg->pool, want * sizeof(*areas));
    memcpy(areas, seg->areas, cur * sizeof(*areas));
    for (uint32_t i = cur; i < want; i++) {
        memset(&areas[i], 0, sizeof(areas[i]));
        areas[i].lv = img[i];
    }
    seg->areas = areas;
    seg->area_count = seg->stripe_count = want;
    seg->raw = NULL;
}

/* --alloc anywhere when too few PVs are free of the mirror's images and log: as LVM2's
 * allocator then does (seen on the host, t1074), each new image goes on the next PV in
 * VG order (or order named) with room for it, beside the images and log there. */
static int add_images_anywhere(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                               struct lvx_lv *lv, uint32_t want, const struct lvx_alloc_pv *pvs,
                               unsigned pv_count, struct lvx_free_maps *maps)
{
    struct lvx_vg *vg = u->vg;
    uint32_t cur = lv->segs[0].area_count;
    unsigned n = pv_count ? pv_count : vg->pv_count, next = 0;
    struct lvx_lv **img = lvx_pool_alloc(env->pool, want * sizeof(*img));
    for (uint32_t i = 0; i < cur; i++)
        img[i] = lv->segs[0].areas[i].lv;
    for (uint32_t i = cur; i < want; i++) {
        img[i] = new_sub(vg, lv, lvx_pool_printf(env->pool, "mimage_%u",
                                                  lvx_mirror_next_image(vg, lv->name)));
        int r = -1;
        for (; next < n && r < 0; next++) {
            struct lvx_alloc_pv cand = pvs ? pvs[next]
                                           : (struct lvx_alloc_pv){ vg->pvs[next], 0, NULL };
            if (!cand.pv->ondisk.present || (cand.pv->flags & LVX_PVF_MISSING))
                continue;
            r = lvx_raid_alloc_images(env, maps, lv->name, 1, lv->le_count, 0,
                                      LVX_ALLOC_ANYWHERE, &cand, 1, img + i, NULL);
            if (r < 0)
                lvx_error_clear(env->ctx);
        }
        if (r < 0) {
            for (uint32_t j = cur; j <= i; j++)
                lvx_vg_remove_lv(vg, img[j]);
            lvx_cmd_errorf("Insufficient suitable allocatable extents for logical volume : %llu "
                           "more required",
                           (unsigned long long)((want - cur) * (uint64_t)lv->le_count));
            lvx_cmd_errorf("Unable to allocate extents for mirror(s).");
            return LVX_EXIT_FAILED;
        }
    }
    append_images(lv, img, want);
    return 0;
}

/* More images for a mirror: NAME_mimage_<k> (k one above the highest in use) on PVs
 * holding none of its images nor its log (those under its resync layer when
 * add_images_layered put one), appended to the mirror's segment.  Without a layer (an
 * active LV with a log: the collapsed layout of LVM2's layer at once) the daemon
 * serving the LV copies the new images whole and keeps the log (target_mirror.c's
 * adopt); dm cycles the LV. */
static int add_images(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      uint32_t want, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                      uint32_t with_logs, enum lvx_alloc alloc);

int lvx_mirror_add_images(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                          uint32_t want, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                          uint32_t with_logs)
{
    return add_images(env, u, lv, want, pvs, pv_count, with_logs, LVX_ALLOC_INHERIT);
}

/* ... with --alloc `alloc` (LVX_ALLOC_INHERIT: the LV's policy) */
static int add_images(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      uint32_t want, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                      uint32_t with_logs, enum lvx_alloc alloc)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_seg *seg = &lv->segs[0];
    uint32_t cur = seg->area_count;
    /* the PVs in use: the old mirror's images and log, under the resync layer when
     * there is one (lv's own area is then the layer alone) */
    const struct lvx_lv *layer = lvx_map_mirror_sync_layer(lv);
    const struct lvx_seg *old = layer ? &layer->segs[0] : seg;
    struct lvx_free_maps *maps;
    int rc;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    unsigned n = pv_count ? pv_count : vg->pv_count, k = 0;
    struct lvx_alloc_pv *others = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*others));
    for (unsigned i = 0; i < n; i++) {
        struct lvx_alloc_pv cand = pvs ? pvs[i] : (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
        bool used = !cand.pv->ondisk.present || (cand.pv->flags & LVX_PVF_MISSING) ||
                    (old->log_lv && on_pv(old->log_lv, cand.pv));
        for (uint32_t a = 0; a < old->area_count && !used; a++)
            used = on_pv(old->areas[a].lv, cand.pv);
        if (!used)
            others[k++] = cand;
    }
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, alloc ? alloc : lv->alloc);
    bool anywhere = policy == LVX_ALLOC_ANYWHERE && !with_logs;
    if (k < want - cur && anywhere)
        return add_images_anywhere(env, u, lv, want, pvs, pv_count, maps);
    if (k < want - cur + with_logs) {    /* a repair's new log wants a PV of its own too */
        /* no LV named: LVM2's add_mirror_images allocates for no LV */
        lvx_cmd_errorf("Insufficient suitable allocatable extents for logical volume : %llu "
                       "more required",
                       (unsigned long long)((want - cur) * (uint64_t)lv->le_count));
        lvx_cmd_errorf("Unable to allocate extents for mirror(s).");
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv **img = lvx_pool_alloc(env->pool, want * sizeof(*img));
    for (uint32_t i = 0; i < cur; i++)
        img[i] = seg->areas[i].lv;
    /* NAME_mimage_<one above the highest in use> (LVM2's generate_lv_name): after a
     * repair kept mimage_0 and mimage_2 of three, the new image is mimage_3 */
    for (uint32_t i = cur; i < want; i++)
        img[i] = new_sub(vg, lv, lvx_pool_printf(env->pool, "mimage_%u",
                                                  lvx_mirror_next_image(vg, lv->name)));
    if (lvx_raid_alloc_images(env, maps, lv->name, want - cur, lv->le_count, 0,
                              anywhere ? LVX_ALLOC_NORMAL : policy, others, k, img + cur,
                              NULL) < 0) {
        for (uint32_t i = cur; i < want; i++)     /* nothing changed: a repair goes on */
            lvx_vg_remove_lv(vg, img[i]);
        if (!anywhere)
            return lvx_cmd_fail(env);
        lvx_error_clear(env->ctx);
        if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))     /* the failed try's maps */
            return rc;
        return add_images_anywhere(env, u, lv, want, pvs, pv_count, maps);
    }
    append_images(lv, img, want);
    return 0;
}

/* More images for an inactive mirror with a log, as LVM2 2.03.16 adds them
 * (_lvconvert_mirrors_aux): the log type changed first as --mirrorlog asks (a disk log
 * added alone, a mirrored log made or unmirrored), then its resync layer inserted
 * (cmd/mirror_layer.c: NAME_mimagetmp_N over the old images and the log, N the next
 * NAME_mimage_N), then `more` images NAME_mimage_N... added to the top (a core-log
 * mirror) on PVs holding none of the old images nor the log.  The log is not zeroed: it
 * speaks for the old images still; the top copies the new ones whole once active. */
static int add_images_layered(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                              struct lvx_lv *lv, const struct lvx_mirror_conv *c, uint32_t more,
                              const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    struct lvx_lv *log = lv->segs[0].log_lv;
    int rc;
    if (c->disk_log && lvx_mirror_log_is_mirrored(log)) {
        lvx_mirror_mlog_unmirror(log);
        lv->segs[0].raw = NULL;
    }
    if (c->disk_log && !log) {
        if ((rc = lvx_mirror_add_log(env, u, lv, 0, pvs, pv_count)))
            return rc;
        /* zeroed before the commit (lvx_mirror_commit_live sees the top's core log
         * only): the old images resynced among themselves, never a stale header trusted */
        if (!env->args->count[LVX_OPT_TEST] &&
            lvx_mirror_log_zero(env, u, lv->segs[0].log_lv, LOG_ZERO_BYTES) < 0)
            return lvx_cmd_fail(env);
    }
    if (c->mirrored_log && !lvx_mirror_log_is_mirrored(log) &&
        (rc = add_mirrored_log(env, u, lv, pvs, pv_count, true)))
        return rc;
    lvx_mirror_insert_layer(lv, lvx_mirror_next_image(u->vg, lv->name));
    return add_images(env, u, lv, 1 + more, pvs, pv_count, 0, c->alloc);
}

int lvx_mirror_from_linear(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                           uint32_t images, bool core_log, uint32_t region_size,
                           const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    struct lvx_mirror_conv c = { .core_log = core_log, .region_size = region_size };
    return from_linear(env, u, lv, &c, images, pvs, pv_count);
}

/* The sub-LVs of a mirror (images, log, a mirrored log's images) into out; none for a
 * linear LV. */
unsigned lvx_mirror_subs(const struct lvx_lv *lv, struct lvx_lv **out)
{
    unsigned n = 0;
    if (!lvx_map_lv_is_mirror(lv))
        return 0;
    const struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t i = 0; i < seg->area_count && n < LVX_RAID_CHANGE_MAX; i++)
        out[n++] = seg->areas[i].lv;
    if (seg->log_lv && n < LVX_RAID_CHANGE_MAX)
        out[n++] = seg->log_lv;
    if (lvx_mirror_log_is_mirrored(seg->log_lv))
        for (uint32_t i = 0; i < seg->log_lv->segs[0].area_count && n < LVX_RAID_CHANGE_MAX; i++)
            out[n++] = seg->log_lv->segs[0].areas[i].lv;
    return n;
}

static bool listed(const struct lvx_lv *lv, struct lvx_lv *const *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (v[i] == lv)
            return true;
    return false;
}

static uint32_t wanted_images(const struct lvx_mirror_conv *c, uint32_t cur, bool linear)
{
    if (c->type && !strcmp(c->type, "linear"))
        return 1;
    if (!c->mirrors_given)
        return linear ? 2 : cur;
    if (c->mirrors_sign)
        return c->mirrors_sign > 0 ? cur + c->mirrors : cur - c->mirrors;
    return c->mirrors + 1;
}

int lvx_mirror_reload_dm(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                         struct lvx_lv *lv, struct lvx_lv *const *before, unsigned before_n,
                         struct lvx_lv *const *moved, const char *const *moved_old,
                         unsigned moved_n)
{
    struct lvx_lv *after[LVX_RAID_CHANGE_MAX];
    unsigned after_n = lvx_mirror_subs(lv, after);
    struct lvx_raid_change ch;
    memset(&ch, 0, sizeof(ch));
    for (unsigned i = 0; i < moved_n && i < LVX_RAID_CHANGE_MAX; i++) {
        ch.moved[i] = moved[i];
        ch.moved_old[i] = moved_old[i];
        ch.moved_n++;
    }
    for (unsigned i = 0; i < after_n; i++)
        if (!listed(after[i], before, before_n))
            ch.added[ch.added_n++] = after[i];
    /* taken down from the end of the list: a mirrored log before its images */
    for (unsigned i = before_n; i-- > 0;)
        if (!listed(before[i], moved, moved_n) && !listed(before[i], after, after_n)) {
            ch.gone_old[ch.gone_n] = before[i]->name;
            ch.gone[ch.gone_n++] = before[i];
        }
    return lvx_lvconvert_reload(env, u, act, lv, &ch);
}

int lvx_mirror_commit_live(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                           const struct lvx_actcmd *act, struct lvx_lv *lv, bool active,
                           const struct lvx_lv *old_log)
{
    const struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_lv *log = seg->kind == LVX_SEG_MIRROR ? seg->log_lv : NULL;
    /* a resync layer's log (a core-log mirror given a disk log as the layer is put in) */
    const struct lvx_lv *layer = seg->kind == LVX_SEG_MIRROR ? lvx_map_mirror_sync_layer(lv) : NULL;
    const struct lvx_lv *zlog = log ? log : layer ? layer->segs[0].log_lv : NULL;
    bool test = env->args->count[LVX_OPT_TEST] != 0;
    int rc;
    /* a new log, or the kept one of an inactive LV, zeroed BEFORE the commit: a crash
     * between the two must not leave the new images under a log whose regions say in
     * sync (a zeroed log under the old metadata only costs a full resync) */
    if (!test && zlog && zlog != old_log && lvx_mirror_log_zero(env, u, zlog, LOG_ZERO_BYTES) < 0)
        return lvx_cmd_fail(env);
    /* the kept log of a mirror served live: held all out of sync on disk by its server
     * until the reload (the daemon carries the real bits over), for the same reason */
    bool hold = active && !test && log && log == old_log && act->be->hold_mirror_log;
    if (hold && act->be->hold_mirror_log(env->ctx, lv, true) < 0)
        return lvx_cmd_fail(env);
    if (active && !test && act->be->stage(env->ctx, lv, &act->opts) < 0)
        return lvx_cmd_fail(env);
    if ((rc = lvx_lvcmd_commit(env, u))) {
        if (active && !test && act->be->unstage(env->ctx, lv) < 0)
            lvx_error_clear(env->ctx);
        if (hold && act->be->hold_mirror_log(env->ctx, lv, false) < 0)
            lvx_error_clear(env->ctx);     /* held: a full resync at the next start */
        return rc;
    }
    /* live: the daemon serves the new layout (new images and a new or core log: the
     * regions copied from image 0 before the reload returns) */
    return active && !test ? lvx_actcmd_finish(env, act, lv, true) : 0;
}

/* Until the active mirror's regions are in sync (its target copies them in the
 * background), as LVM2's lvconvert polls; a dead leg before the end is an error (the
 * copy cannot finish), as is a status error. */
static int wait_synced(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                       const struct lvx_lv *lv)
{
    if (!act->be || !act->be->status || env->args->count[LVX_OPT_TEST])
        return 0;
    for (;;) {
        struct lvx_lv_kstate ks;
        memset(&ks, 0, sizeof(ks));
        if (act->be->status(env->ctx, lv, &ks) < 0)
            return lvx_cmd_fail(env);
        if (!ks.active || !ks.mirror || ks.sync_done >= ks.sync_total)
            return 0;
        if (strchr(ks.raid_health, 'D')) {
            lvx_cmd_errorf("%s/%s: an image failed before the copy to the new images ended "
                           "(%.2f%%): lvconvert --repair replaces it.", lv->vg->name, lv->name,
                           100.0 * (double)ks.sync_done / (double)ks.sync_total);
            return LVX_EXIT_FAILED;
        }
        struct timespec t = { 0, 100000000L };
        nanosleep(&t, NULL);
    }
}

int lvx_mirror_poll_converted(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                              const struct lvx_lv *lv, bool with_log)
{
    int rc = wait_synced(env, act, lv);
    if (rc)
        return rc;
    lvx_notice(env->ctx, "%s/%s: Converted: 100.00%%", lv->vg->name, lv->name);
    if (with_log)
        lvx_notice(env->ctx, "Logical volume %s/%s converted.", lv->vg->name, lv->name);
    return 0;
}

int lvx_mirror_removable_to_end(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                struct lvx_lv *lv, uint32_t count,
                                const struct lvx_alloc_pv *pvs, unsigned pv_count, bool active)
{
    struct lvx_seg *seg = &lv->segs[0];
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    uint32_t moved = 0;
    for (uint32_t s = seg->area_count; s-- > 0 && moved < count;) {
        if (!lvx_mirror_image_on(seg->areas[s].lv, pvs, pv_count))
            continue;
        if (s == 0 && !lvx_map_lv_partial(lv)) {
            struct lvx_lv_kstate ks;
            memset(&ks, 0, sizeof(ks));
            if (!active || !act->be->status || act->be->status(env->ctx, lv, &ks) < 0 ||
                !ks.active || !ks.mirror) {
                lvx_error_clear(env->ctx);
                lvx_cmd_errorf("Unable to determine mirror sync status of %s.", full);
                ks.sync_total = 1;
            }
            if (!ks.sync_total || ks.sync_done < ks.sync_total) {
                lvx_cmd_errorf("Unable to remove primary mirror image while mirror volume %s "
                               "is not in-sync.", full);
                return LVX_EXIT_FAILED;
            }
        }
        struct lvx_area a = seg->areas[s];
        memmove(seg->areas + s, seg->areas + s + 1, (seg->area_count - 1 - s) * sizeof(a));
        seg->areas[seg->area_count - 1] = a;
        seg->raw = NULL;
        moved++;
    }
    return 0;
}

int lvx_lvconvert_mirror(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                         const struct lvx_mirror_conv *c)
{
    const char *vg = lv->vg->name;
    bool linear = !lvx_map_lv_is_mirror(lv);
    struct lvx_actcmd act;
    int rc;
    /* --stripes / -I as LVM2 reads them for the mirror type (get_stripe_params) */
    struct lvx_mirror_conv cs = *c;
    if (cs.stripes <= 1 && cs.stripe_size) {
        lvx_notice(env->ctx, "Ignoring stripesize argument with single stripe.");
        cs.stripe_size = 0;
    } else if (cs.stripes > 1 && !cs.stripe_size) {
        cs.stripe_size = DEFAULT_STRIPE_SIZE;
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, cs.stripe_size));
    }
    c = &cs;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    bool active = lvx_actcmd_is_active(env, &act, lv, NULL);
    bool poll = !c->type && !c->mirrors_given && !c->core_log && !c->disk_log &&
                !c->mirrored_log;
    if (lvx_map_mirror_sync_layer(lv)) {     /* LVM2 left it CONVERTING (mirror_layer.c) */
        if (poll)
            return lvx_mirror_layer_poll(env, u, &act, lv, active, c);
        if (c->mirrors_given && c->mirrors_sign > 0) {
            lvx_cmd_errorf("%s/%s is already being converted.  Unable to start another "
                           "conversion.", vg, lv->name);
            return LVX_EXIT_FAILED;
        }
        /* fewer images, the layer's log (cmd/mirror_layer_convert.c); the layer gone,
         * the rest as for any mirror below */
        bool done;
        if ((rc = lvx_mirror_layer_convert(env, u, &act, lv, &cs, active, &done)) || done)
            return rc;
    }
    if (!linear && poll)      /* `lvconvert VG/LV`: LVM2's poll, until in sync; no write */
        return active ? lvx_mirror_poll_converted(env, &act, lv, false) : 0;
    if (!linear && c->type && !strcmp(c->type, "raid1") && !active) {
        lvx_cmd_errorf("%s/%s must be active to perform this operation.", vg, lv->name);
        return LVX_EXIT_FAILED;
    }
    /* the user backend serves the LV as one file over its sub-LVs: the daemon re-reads
     * them at the reload; the dm backend's stacked devices are reloaded (dm_reload) */
    bool dm = active && act.be->rename_sub;
    if (c->type && strcmp(c->type, "mirror") && strcmp(c->type, "linear")) {
        lvx_cmd_errorf("lvx lvconvert does not convert mirror %s/%s to --type %s yet.", vg,
                       lv->name, c->type);
        return LVX_EXIT_FAILED;
    }
    uint32_t cur = linear ? 1 : lv->segs[0].area_count;
    if (c->mirrors_given && c->mirrors_sign < 0 && c->mirrors >= cur) {
        lvx_cmd_errorf("Unable to reduce images by specified amount.");
        return LVX_EXIT_FAILED;
    }
    uint32_t want = wanted_images(c, cur, linear);
    if (want > 8) {
        lvx_cmd_errorf("Only up to 8 images in mirror supported currently.");
        return LVX_EXIT_FAILED;
    }
    bool adding = !linear && want > cur;
    /* LVM2's resync layer: more images for an inactive mirror that has a log once
     * --mirrorlog changed it (LVM2's order) */
    bool layered = adding && !active &&
                   (c->disk_log || c->mirrored_log || (!c->core_log && lv->segs[0].log_lv));
    /* active, the log kept as it is or a disk log asked for (a new one zeroed before
     * the commit): the layer written too, the poll below collapsing it live.  The
     * user backend's daemon serves it (mirror_layer.c; its bits keep the old images'
     * meaning across the commit: no hold); in dm the layer's device is staged with its
     * table inactive and resumed while the top is suspended (LVM2's order: never two
     * mirrors running on one log), the LV open or not */
    const struct lvx_lv *log0 = linear ? NULL : lv->segs[0].log_lv;
    bool layered_live = adding && active && !c->mirrored_log && !c->core_log &&
                        (dm ? (c->disk_log ? !lvx_mirror_log_is_mirrored(log0) : log0 != NULL)
                            : lvx_mirror_layer_served(&act) && (c->disk_log || log0 != NULL));
    layered |= layered_live;
    /* a new mirrored log: its stacked devices are not reloaded in dm (see cycle) */
    bool new_mlog = c->mirrored_log && want > 1 &&
                    (linear || !lvx_mirror_log_is_mirrored(lv->segs[0].log_lv));
    if (adding && (lv->status & LVX_LV_NOTSYNCED)) {
        lvx_cmd_errorf("Can't add mirror to out-of-sync mirrored LV: use lvchange --resync "
                       "first.");
        return LVX_EXIT_FAILED;
    }
    if (active && !dm && (adding || (linear && want > 1)) &&
        (rc = lvx_lvconvert_refuse_read_only(env, &act, lv)))
        return rc;
    /* without the resync layer in dm (a core-log mirror kept so, a log going to core
     * or becoming mirrored): the LV is deactivated for the change and activated again,
     * the kernel's mirror copying every region from image 0 (its log zeroed); so is a
     * new mirrored log (its own images stacked under the log's device) */
    bool cycle = dm && (adding || new_mlog) && !layered_live;
    bool test = env->args->count[LVX_OPT_TEST] != 0;
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, u->vg, c->pv_args, c->pv_arg_count, &pvs, &pv_count)))
        return rc;
    const struct lvx_lv *old_log = linear ? NULL : lv->segs[0].log_lv;
    bool had_log = old_log != NULL;
    struct lvx_lv *before[LVX_RAID_CHANGE_MAX];
    unsigned before_n = lvx_mirror_subs(lv, before);
    if (!linear && want < cur && pv_count &&
        (rc = lvx_mirror_removable_to_end(env, &act, lv, cur - want, pvs, pv_count, active)))
        return rc;
    if (linear && want > 1) {
        /* a mirrored log made after the images (both its areas placed at once, as LVM2
         * allocates them with the images; no warning from LVM2 here) */
        struct lvx_mirror_conv cl = *c;
        cl.core_log = c->core_log || c->mirrored_log;
        if ((rc = from_linear(env, u, lv, &cl, want, pvs, pv_count)))
            return rc;
        if (c->mirrored_log && (rc = add_mirrored_log(env, u, lv, pvs, pv_count, false)))
            return rc;
    } else if (!linear && want == 1) {
        lvx_mirror_to_linear(lv);
    } else if (layered) {
        if ((rc = add_images_layered(env, u, lv, c, want - cur, pvs, pv_count)))
            return rc;
    } else if (!linear) {
        /* more images (the collapsed layout of LVM2's temporary layer), or fewer, then
         * the log as --mirrorlog asks */
        /* a log going to core, or a mirrored log going to disk, changes first (LVM2
         * changes the log type before it adds images): the PVs and extents it frees
         * are free for the new images */
        if (adding && c->core_log)
            drop_subs(lv, cur, true);
        if (adding && c->disk_log && lvx_mirror_log_is_mirrored(lv->segs[0].log_lv)) {
            lvx_mirror_mlog_unmirror(lv->segs[0].log_lv);
            lv->segs[0].raw = NULL;
        }
        if (adding && (rc = add_images(env, u, lv, want, pvs, pv_count, 0, c->alloc)))
            return rc;
        drop_subs(lv, want, c->core_log);
        struct lvx_lv *log = lv->segs[0].log_lv;
        /* a log added with new images: placed as LVM2 allocates them together */
        if (c->disk_log && !log &&
            (rc = lvx_mirror_add_log(env, u, lv, adding ? lv->le_count : 0, pvs, pv_count)))
            return rc;
        if (c->disk_log && lvx_mirror_log_is_mirrored(log)) {
            lvx_mirror_mlog_unmirror(log);
            lv->segs[0].raw = NULL;
        }
        if (c->mirrored_log && !lvx_mirror_log_is_mirrored(log) &&
            (rc = add_mirrored_log(env, u, lv, pvs, pv_count, true)))
            return rc;
    }
    if (cycle && !test && (rc = lvx_actcmd_deactivate(env, &act, lv, false))) {
        lvx_cmd_errorf("lvx %s a mirror active in the device-mapper backend by deactivating "
                       "it: %s/%s was not deactivated.",
                       adding ? "adds images to" : "gives a mirrored log to", vg, lv->name);
        return rc;
    }
    if (cycle && !test) {
        /* the devices of sub-LVs the change took away (a log going to core) are not
         * under the LV's new layout: taken down too, in list order (a mirrored log
         * before its images) */
        struct lvx_lv *after[LVX_RAID_CHANGE_MAX];
        unsigned after_n = lvx_mirror_subs(lv, after);
        for (unsigned i = 0; i < before_n; i++)
            if (!listed(before[i], after, after_n) &&
                act.be->deactivate(env->ctx, before[i], NULL) < 0) {
                lvx_cmd_fail(env);
                return LVX_EXIT_FAILED;
            }
    }
    if (cycle)
        dm = active = false;
    if (adding && !active && !layered)  /* the log's header zeroed: every region copied again */
        old_log = NULL;
    if (dm && !layered_live) {
        if ((rc = lvx_mirror_reload_dm(env, u, &act, lv, before, before_n, NULL, NULL, 0)))
            return rc;
    } else if ((rc = lvx_mirror_commit_live(env, u, &act, lv, active, old_log))) {
        return rc;
    }
    if (cycle && !test && (rc = lvx_actcmd_activate(env, &act, lv)))
        return rc;
    if (cycle)
        active = true;
    if ((linear && want > 1) || adding) {
        lvx_notice(env->ctx, "Logical volume %s/%s being converted.", vg, lv->name);
        if (layered_live)
            return lvx_mirror_layer_poll(env, u, &act, lv, true, c);
        if (active && (rc = lvx_mirror_poll_converted(env, &act, lv, adding && had_log)))
            return rc;
        if (!active)
            lvx_notice(env->ctx, "Conversion starts after activation.");
    } else {
        lvx_notice(env->ctx, "Logical volume %s/%s converted.", vg, lv->name);
    }
    return 0;
}

/* Does every area of image lie on a PV of pvs (LVM2's is_mirror_image_removable)? */
bool lvx_mirror_image_on(const struct lvx_lv *img, const struct lvx_alloc_pv *pvs, unsigned n)
{
    for (unsigned s = 0; s < img->seg_count; s++)
        for (uint32_t a = 0; img->segs[s].areas && a < img->segs[s].area_count; a++) {
            const struct lvx_pv *pv = img->segs[s].areas[a].pv;
            bool found = pv == NULL;
            for (unsigned p = 0; p < n && !found; p++)
                found = pvs[p].pv == pv;
            if (!found)
                return false;
        }
    return true;
}

/* The images split off (split[0] already named NAME and visible, the others in the
 * order taken) made the mirror NAME, as LVM2's _split_mirror_images: a layer
 * NAME_mimage_0 takes NAME's segments, the others are renamed NAME_mimage_<next> and
 * follow it; the mirror has lv's region size and a core log. */
static void split_to_mirror(struct lvx_cmd_env *env, const struct lvx_lv *lv,
                            struct lvx_lv **split, uint32_t count)
{
    struct lvx_vg *vg = lv->vg;
    struct lvx_lv *top = split[0];
    struct lvx_lv **img = lvx_pool_alloc(env->pool, count * sizeof(*img));
    img[0] = new_sub(vg, top, "mimage_0");
    img[0]->alloc = LVX_ALLOC_INHERIT;
    img[0]->segs = top->segs;
    img[0]->seg_count = top->seg_count;
    img[0]->le_count = top->le_count;
    for (unsigned s = 0; s < img[0]->seg_count; s++)
        img[0]->segs[s].lv = img[0];
    for (uint32_t k = 1; k < count; k++) {
        img[k] = split[k];
        img[k]->name = lvx_pool_printf(vg->pool, "%s_mimage_%u", top->name,
                                       lvx_raid_next_index(vg, top->name, "mimage"));
    }
    struct lvx_raid_opts o = { .region_size = lv->segs[0].region_size };
    lvx_raid_new_seg(vg, top, "mirror", LVX_SEG_MIRROR, top->le_count, count, img, &o);
}

int lvx_mirror_split(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                     uint32_t count, const char *name, bool track, char **pv_args,
                     unsigned pv_arg_count)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_seg *seg = &lv->segs[0];
    const char *full = lvx_pool_printf(env->pool, "%s/%s", vg->name, lv->name);
    uint32_t cur = seg->area_count;
    int rc;
    if (track) {             /* LVM2's command definitions: raid1 LVs only */
        lvx_cmd_errorf("Command on LV %s does not accept LV type mirror.", full);
        lvx_cmd_errorf("Command not permitted on LV %s.", full);
        return LVX_EXIT_FAILED;
    }
    if (count >= cur) {
        lvx_cmd_errorf("Unable to reduce images by specified amount - only %u in %s", cur,
                       lv->name);
        return LVX_EXIT_FAILED;
    }
    if (lvx_vg_find_lv(vg, name)) {
        lvx_cmd_errorf("Logical Volume \"%s\" already exists in volume group \"%s\".", name,
                       vg->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    memset(&ks, 0, sizeof(ks));
    if (!lvx_actcmd_is_active(env, &act, lv, NULL) || !act.be->status ||
        act.be->status(env->ctx, lv, &ks) < 0 || !ks.active || !ks.mirror) {
        lvx_error_clear(env->ctx);
        lvx_cmd_errorf("Unable to determine mirror sync status of %s.", full);
        lvx_cmd_errorf("Unable to split mirror %s that is not in-sync.", full);
        return LVX_EXIT_FAILED;
    }
    if (!ks.sync_total || ks.sync_done < ks.sync_total) {
        lvx_cmd_errorf("Unable to split mirror %s that is not in-sync.", full);
        return LVX_EXIT_FAILED;
    }
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, vg, pv_args, pv_arg_count, &pvs, &pv_count)))
        return rc;
    /* the images to split: the last `count` ones (wholly on the PVs named), each moved to
     * the end from the last one down (LVM2's _move_removable_mimages_to_end, every PV of
     * the VG when none is named): they end up last, the lowest one at the very end */
    struct lvx_area *areas = lvx_pool_alloc(vg->pool, cur * sizeof(*areas));
    memcpy(areas, seg->areas, cur * sizeof(*areas));
    uint32_t need = count;
    for (uint32_t i = cur; i-- > 0 && need;) {
        if (pv_count && !lvx_mirror_image_on(areas[i].lv, pvs, pv_count))
            continue;
        struct lvx_area a = areas[i];
        memmove(areas + i, areas + i + 1, (cur - 1 - i) * sizeof(*areas));
        areas[cur - 1] = a;
        need--;
    }
    if (need) {
        lvx_cmd_errorf("Insufficient removable PVs given to satisfy request.");
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv *before[LVX_RAID_CHANGE_MAX];
    unsigned before_n = lvx_mirror_subs(lv, before);
    const struct lvx_lv *old_log = seg->log_lv;
    /* taken from the end: the first one taken is NAME, the others its images in the
     * order taken (their order in the mirror) */
    struct lvx_lv **split = lvx_pool_alloc(env->pool, count * sizeof(*split));
    const char **split_old = lvx_pool_alloc(env->pool, count * sizeof(*split_old));
    for (uint32_t k = 0; k < count; k++) {
        split[k] = areas[cur - 1 - k].lv;
        split_old[k] = split[k]->name;
    }
    seg->areas = areas;
    seg->area_count = seg->stripe_count = cur - count;
    seg->raw = NULL;
    struct lvx_lv *img = split[0];
    img->name = lvx_pool_strdup(vg->pool, name);
    img->status |= LVX_LV_VISIBLE;
    if (count > 1)
        split_to_mirror(env, lv, split, count);
    if (seg->area_count == 1)          /* the rest becomes linear, its log goes */
        lvx_mirror_to_linear(lv);
    /* LVM2 sets its in-sync flag for the split of more than one image: the tables it
     * loads next (the mirror's reload, the new mirror's first) say "nosync" */
    act.opts.nosync = count > 1;
    bool dm = act.be->rename_sub != NULL;
    if (dm) {
        rc = lvx_mirror_reload_dm(env, u, &act, lv, before, before_n, split, split_old, count);
    } else {
        rc = lvx_mirror_commit_live(env, u, &act, lv, true, old_log);
    }
    if (rc || env->args->count[LVX_OPT_TEST])
        return rc;
    if ((rc = lvx_actcmd_activate(env, &act, img)))
        return rc;
    lvx_notice(env->ctx, "Logical volume %s converted.", full);
    return 0;
}
