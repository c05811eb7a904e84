/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvchange_wmostly.c - `lvx lvchange --writemostly PV[:t|:n|:y] ... --writebehind N
 * VG/LV` of a raid1 LV, as LVM2 2.03.16's _lvchange_writemostly (tools/lvchange.c;
 * facts only).
 *
 *   --writemostly PV     y (the default) sets WRITEMOSTLY on the images (rimage sub-LVs)
 *                        with extents on PV, n clears it, t toggles it; repeatable, in
 *                        command-line order.  Not every image may end up writemostly.
 *   --writebehind N      the raid1 segment's writebehind (0 clears it).
 * Both need the LV active and in sync (its status read from the backend).  The caller
 * (cmd/lvchange.c) commits and reloads the active LV: map/raid.c writes "write_mostly
 * <idx>" and "max_write_behind <N>" into the dm-raid line; the daemon's raid1 target
 * reads from the other legs (daemon/target_raid.c).
 */
#include "cmd/lvcmd.h"

#include "cmd/actcmd.h"
#include "cmd/lvchange_wmostly.h"
#include "cmd/lvconvert_raid.h"
#include "map/map.h"

#include <string.h>

static struct lvx_pv *pv_named(const struct lvx_vg *vg, const char *name)
{
    for (unsigned i = 0; i < vg->pv_count; i++)
        if (vg->pvs[i]->ondisk.present && lvx_cmd_same_device(name, vg->pvs[i]->ondisk.dev_name))
            return vg->pvs[i];
    return NULL;
}

bool lvx_lvchange_wmostly_given(const struct lvx_cmd_env *env)
{
    return env->args->count[LVX_OPT_WRITEMOSTLY] || env->args->count[LVX_OPT_WRITEBEHIND];
}

int lvx_lvchange_wmostly(struct lvx_cmd_env *env, struct lvx_lv *lv)
{
    const struct lvx_cmd_args *a = env->args;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    struct lvx_seg *seg = lv->seg_count ? &lv->segs[0] : NULL;
    if (!lvx_map_lv_is_raid(lv) || !seg || strcmp(seg->type_name, "raid1") ||
        !seg->meta_areas) {                        /* LVM2's rule: LV_raid1 */
        lvx_cmd_errorf("Command on LV %s uses options that require LV types raid1 .", full);
        lvx_cmd_errorf("Command not permitted on LV %s.", full);
        return -1;
    }
    bool mostly = a->count[LVX_OPT_WRITEMOSTLY] > 0;
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    memset(&ks, 0, sizeof(ks));
    bool active = !lvx_actcmd_init(env, &act) && act.be && lvx_actcmd_is_active(env, &act, lv, &ks);
    if (!active)        /* LVM2 reads the dm-raid status: none for an inactive LV */
        lvx_cmd_errorf("Unable to determine sync status of %s.", full);
    if (!active || !ks.raid || !ks.sync_total || ks.sync_done != ks.sync_total) {
        lvx_cmd_errorf("Unable to change write%s on %s while it is not in-sync.",
                       mostly ? "mostly" : "behind", full);
        return -1;
    }
    uint32_t *flags = lvx_pool_alloc(env->pool, seg->area_count * sizeof(*flags));
    for (uint32_t s = 0; s < seg->area_count; s++)
        flags[s] = seg->areas[s].lv->status & LVX_LV_WRITEMOSTLY;
    const struct lvx_opt_val *v = &a->val[LVX_OPT_WRITEMOSTLY];
    for (unsigned i = 0; i < v->item_count; i++) {
        char *name = lvx_pool_strdup(env->pool, v->items[i]);
        size_t len = strlen(name);
        char mode = 'y';
        if (len >= 3 && name[len - 2] == ':') {
            mode = name[len - 1];
            name[len - 2] = '\0';
        }
        struct lvx_pv *pv = pv_named(lv->vg, name);
        if (!pv) {
            lvx_cmd_errorf("%s not found in volume group, %s", name, lv->vg->name);
            return -1;
        }
        if (mode != 'y' && mode != 'n' && mode != 't') {
            lvx_cmd_errorf("Invalid argument for --writemostly: %s (the mode is y, n or t).",
                           v->items[i]);
            return -1;
        }
        for (uint32_t s = 0; s < seg->area_count; s++) {
            if (!lvx_raid_lv_on_pv(seg->areas[s].lv, pv))
                continue;
            if (mode == 'y')
                flags[s] = LVX_LV_WRITEMOSTLY;
            else if (mode == 'n')
                flags[s] = 0;
            else
                flags[s] ^= LVX_LV_WRITEMOSTLY;
        }
    }
    uint32_t count = 0;
    for (uint32_t s = 0; s < seg->area_count; s++)
        count += flags[s] != 0;
    if (mostly && count == seg->area_count) {
        lvx_cmd_errorf("Can't set all images of raid1 LV %s to writemostly.", full);
        return -1;
    }
    for (uint32_t s = 0; s < seg->area_count; s++)
        seg->areas[s].lv->status = (seg->areas[s].lv->status & ~(uint32_t)LVX_LV_WRITEMOSTLY) |
                                   flags[s];
    if (a->count[LVX_OPT_WRITEBEHIND])
        seg->writebehind = (uint32_t)a->val[LVX_OPT_WRITEBEHIND].n;
    return 1;
}
