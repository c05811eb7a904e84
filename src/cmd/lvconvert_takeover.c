/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_takeover.c - `lvconvert --type raid1 VG/MIRROR` and `lvconvert --type
 * mirror VG/RAID1` of active LVs (cmd/lvconvert_raid.h), as LVM2 2.03.16 does them
 * (raid_manip.c, facts only):
 *
 *   mirror -> raid1  an rmeta sub-LV for each image on the image's own PVs, zeroed;
 *                    the mirror log removed; the images renamed _mimage_N -> _rimage_N;
 *                    the segment raid1 with the mirror's region size (-R: that one).
 *   raid1 -> mirror  asks "Are you sure you want to convert VG/LV back to the older
 *                    mirror type?" (-y: yes); a disk log allocated as for the LV's
 *                    extents (LVM2's prepare_mirror_log; while the rmeta still hold
 *                    their extents) with the VG's allocation policy written, its start
 *                    zeroed; the rmeta sub-LVs removed; the images renamed _rimage_N ->
 *                    _mimage_N.
 *
 * Both want the LV active (LVM2's "must be active" otherwise), in the dm backend (the
 * user backend's daemon is not taught these yet: refused, exit 5), and a raid1 LV in
 * sync (a mirror's copy state is not checked: LVM2 checks it).  The devices follow as for -m N
 * (lvx_lvconvert_reload: renames, the new table staged, commit, swap, devices of the
 * sub-LVs that left removed).
 */
#include "cmd/lvconvert_raid.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_mirror.h"

#include <string.h>

int lvx_lvconvert_takeover(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                           bool to_raid1, bool region_given, uint32_t region_size, bool yes,
                           char **pv_args, unsigned pv_arg_count)
{
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    struct lvx_raid_change ch;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    int rc;

    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    if ((rc = lvx_lvconvert_need_active(env, &act, lv, &ks)))
        return rc;
    /* LVM2's _raid_in_sync: a mirror's own sync percentage, a raid1 LV's */
    bool mirror_syncing = to_raid1 && !(ks.mirror && ks.sync_total &&
                                        ks.sync_done == ks.sync_total);
    if (mirror_syncing || !lvx_lvconvert_in_sync(lv, &ks)) {
        lvx_cmd_errorf("Unable to convert %s while it is not in-sync.", full);
        return LVX_EXIT_FAILED;
    }
    uint32_t rs = region_given ? region_size : lv->segs[0].region_size;
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, u->vg, pv_args, pv_arg_count, &pvs, &pv_count)))
        return rc;
    memset(&ch, 0, sizeof(ch));
    if (to_raid1) {
        struct lvx_free_maps *maps;
        if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
            return rc;
        if (lvx_raid_from_mirror(env, u->vg, maps, lv, rs, &ch) < 0)
            return lvx_cmd_fail(env);
    } else {
        if (!yes && !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to "
                                                       "convert %s back to the older mirror "
                                                       "type?", full))) {
            lvx_cmd_errorf("Logical volume %s NOT converted to \"mirror\".", full);
            return LVX_EXIT_FAILED;
        }
        lv->segs[0].region_size = rs;
        if ((rc = lvx_mirror_add_log(env, u, lv, lv->le_count, pvs, pv_count)))
            return rc;
        lv->segs[0].log_lv->alloc = u->vg->alloc;   /* LVM2 gives it the VG's policy */
        ch.added[ch.added_n++] = lv->segs[0].log_lv;
        lvx_raid_to_mirror(lv, rs, &ch);
    }
    act.opts.nosync = to_raid1;       /* LVM2: the images are in sync (first table only) */
    if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
        return rc;
    lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
    return 0;
}
