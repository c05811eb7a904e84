/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_region.c - `lvx lvconvert -R SIZE VG/LV` (and `--type T -R SIZE` of an LV
 * already of type T) of a RAID LV: its region size changed, as LVM2 2.03.16's
 * _region_size_change_requested (lib/metadata/raid_manip.c; facts only):
 *
 *   refused with LVM2's lines, nothing written: the same size ("Region size is already
 *   ..."), smaller than the stripe size, larger than the LV, the size the bitmap's 2^21
 *   regions force back to the old one ("... due to adjustment."), answered n, a bitmap
 *   that would not fit the rmeta sub-LVs, an LV not in sync;
 *   else the segment's region_size set (raised for the 2^21 regions as LVM2 does), one
 *   commit, the active LV reloaded ("Changed region size on raid1 LV VG/LV to ...").
 * The kernel resizes its write-intent bitmap on the reload; the daemon (user backend)
 * finds a bitmap of another chunk size and resyncs the whole LV (the data stays: the
 * legs agree), see docs/design.md.
 */
#include "cmd/lvcmd.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_raid.h"
#include "cmd/lvconvert_region.h"
#include "map/map.h"
#include "model/raid.h"

#include <string.h>

bool lvx_lvconvert_region_wanted(const struct lvx_lv *lv, const char *type, bool region_given)
{
    if (!region_given || !lvx_map_lv_is_raid(lv) || lv->seg_count != 1)
        return false;
    const struct lvx_raid_type *t = lvx_raid_type_find(lv->segs[0].type_name);
    if (!t || t->raid0)
        return false;
    /* --type of the LV's own segment type, spelt as in its metadata: LVM2 compares the
     * segment types, so `--type raid5` of a raid5_ls LV goes elsewhere (a no-op) */
    return !type || !strcmp(type, lv->segs[0].type_name);
}

int lvx_lvconvert_region(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                         uint32_t region_size, bool yes, bool typed)
{
    struct lvx_seg *seg = &lv->segs[0];
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    const char *segname = seg->type_name;
    uint64_t lv_sectors = lv->le_count * (uint64_t)lv->vg->extent_size;
    if (region_size == seg->region_size) {
        lvx_cmd_errorf("Region size is already %s on %s LV %s.", lvx_lvcmd_size(env, region_size),
                       segname, full);
        return LVX_EXIT_FAILED;
    }
    if (region_size < seg->stripe_size) {
        lvx_cmd_errorf("Region size may not be smaller than stripe size on %s LV %s.", segname,
                       full);
        return LVX_EXIT_FAILED;
    }
    if (region_size > lv_sectors) {
        lvx_cmd_errorf("Region size is too large for %s LV %s.", segname, full);
        return LVX_EXIT_FAILED;
    }
    uint32_t old = seg->region_size;
    uint32_t adjusted = lvx_raid_min_region_size(lv_sectors, region_size);
    if (adjusted != region_size)
        lvx_notice(env->ctx, "Adjusting region size of %s LV from %s to %s.", full,
                   lvx_lvcmd_size(env, region_size), lvx_lvcmd_size(env, adjusted));
    if (adjusted == old) {
        lvx_cmd_errorf("Region size is already matching %s on %s LV %s due to adjustment.",
                       lvx_lvcmd_size(env, adjusted), segname, full);
        return LVX_EXIT_FAILED;
    }
    if (!yes && !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Do you really want to change the "
                                                   "region_size %s of LV %s to %s?",
                                                   lvx_lvcmd_size(env, old), full,
                                                   lvx_lvcmd_size(env, region_size)))) {
        lvx_cmd_errorf("Logical volume %s NOT converted.", full);
        return LVX_EXIT_FAILED;
    }
    if (seg->meta_areas && seg->meta_areas[0].lv &&
        seg->meta_areas[0].lv->le_count <
            lvx_raid_rmeta_extents(lv->le_count, adjusted, lv->vg->extent_size)) {
        lvx_cmd_errorf("Region size %s on %s is too small for metadata LV size.",
                       lvx_lvcmd_size(env, region_size), full);
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv_kstate ks = { 0 };
    struct lvx_actcmd act;
    int rc = lvx_actcmd_init(env, &act);
    if (rc)
        return rc;
    bool active = act.be && lvx_actcmd_is_active(env, &act, lv, &ks);
    if (!active || !lvx_lvconvert_in_sync(lv, &ks)) {
        lvx_cmd_errorf("Unable to change region size on %s LV %s while it is not in-sync.",
                       segname, full);
        return LVX_EXIT_FAILED;
    }
    if ((rc = lvx_lvconvert_refuse_read_only(env, &act, lv)))
        return rc;
    seg->region_size = adjusted;
    seg->raw = NULL;
    struct lvx_raid_change ch;
    memset(&ch, 0, sizeof(ch));
    if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
        return rc;
    lvx_notice(env->ctx, "Changed region size on %s LV %s to %s.", segname, full,
               lvx_lvcmd_size(env, adjusted));
    if (typed)
        lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
    return 0;
}
