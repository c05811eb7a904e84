/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/activatable.c - can an LV be served (by device-mapper or by the lvx daemon)?
 * Its segments must be of kinds the targets map (striped/linear over PVs, error,
 * zero), and none of its areas may be on a missing PV unless partial activation was
 * asked.  Both the activation backends (activate/) and the daemon check this.
 * COW snapshots and their origins are served by the daemon's snapshot targets
 * (daemon/target_snapshot.c); lvx_map_refuse_snapshots() keeps the daemon's plain target
 * from serving them.
 * Entry points: lvx_map_lv_partial(), lvx_map_check_activatable(), lvx_map_refuse_snapshots().
 */
#include "map/map.h"

#include <errno.h>

#include "model/snapshot.h"

bool lvx_map_pv_missing(const struct lvx_pv *pv)
{
    return (pv->flags & LVX_PVF_MISSING) || !pv->ondisk.present;
}

static bool lv_partial(const struct lvx_lv *lv, unsigned depth)
{
    if (!lv || depth > 8)
        return false;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        for (uint32_t a = 0; seg->areas && a < seg->area_count; a++)
            if ((seg->areas[a].pv && lvx_map_pv_missing(seg->areas[a].pv)) ||
                ((seg->kind == LVX_SEG_RAID || seg->kind == LVX_SEG_MIRROR ||
                  (seg->areas[a].lv && (seg->areas[a].lv->status & LVX_LV_PVMOVE))) &&
                 lv_partial(seg->areas[a].lv, depth + 1)))
                return true;
        if (seg->kind == LVX_SEG_MIRROR && lv_partial(seg->log_lv, depth + 1))
            return true;
        for (uint32_t a = 0; seg->kind == LVX_SEG_RAID && seg->meta_areas && a < seg->area_count; a++)
            if (lv_partial(seg->meta_areas[a].lv, depth + 1))
                return true;
    }
    return false;
}

bool lvx_map_lv_partial(const struct lvx_lv *lv)
{
    return lv_partial(lv, 0);
}

static bool seg_supported(const struct lvx_seg *seg)
{
    if (seg->kind == LVX_SEG_ERROR || seg->kind == LVX_SEG_ZERO)
        return true;
    if (seg->kind != LVX_SEG_STRIPED)
        return false;
    /* an area on a pvmove LV (LVM2's layer of a move in progress) */
    for (uint32_t a = 0; a < seg->area_count; a++)
        if (!seg->areas || (!seg->areas[a].pv &&
                            !(seg->areas[a].lv && (seg->areas[a].lv->status & LVX_LV_PVMOVE))))
            return false;
    return true;
}

int lvx_map_check_activatable(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial)
{
    const char *vg = lv->vg->name;
    if (lv->seg_count == 0)
        return lvx_error(ctx, EINVAL, "Logical volume %s/%s has no segments.", vg, lv->name);
    for (unsigned s = 0; s < lv->seg_count; s++)
        if (!seg_supported(&lv->segs[s]))
            return lvx_error(ctx, ENOTSUP, "Activation of logical volume %s/%s (segment type %s) "
                             "is not supported by lvx yet.", vg, lv->name,
                             lv->segs[s].type_name ? lv->segs[s].type_name : "?");
    if (!partial && lvx_map_lv_partial(lv))
        return lvx_error(ctx, ENODEV, "Refusing activation of partial LV %s/%s.  Use "
                         "'--activationmode partial' to override.", vg, lv->name);
    return 0;
}

int lvx_map_refuse_snapshots(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    if (!lvx_lv_is_cow(lv) && lvx_lv_snapshot_segs(lv, NULL, 0) == 0)
        return 0;
    return lvx_error(ctx, ENOTSUP, "Activation of logical volume %s/%s (%s) is not supported by "
                     "the user-space backend yet.", lv->vg->name, lv->name,
                     lvx_lv_is_cow(lv) ? "a snapshot" : "an origin of snapshots");
}
