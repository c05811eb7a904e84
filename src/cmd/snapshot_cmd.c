/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/snapshot_cmd.c - which LVs may be the origin of a COW snapshot, and LVM2's
 * smallest COW, shared by lvcreate -s and lvconvert -s (declared in cmd/snapshot_cmd.h).
 */
#include "cmd/snapshot_cmd.h"

#include "cmd/lvcmd.h"
#include "map/map.h"
#include "model/snapshot.h"
#include "model/thin.h"

int lvx_snapshot_origin_check(struct lvx_cmd_env *env, const struct lvx_lv *org,
                              const struct lvx_actcmd *act)
{
    const struct lvx_vg *vg = org->vg;
    const char *err = lvx_lv_is_cow(org) ? "snapshots"
                      : lvx_lv_is_snapshot_internal(org) || !lvx_lv_is_visible(org)
                          ? "hidden volumes"
                      : lvx_lv_is_thin_pool(org) ? "thin pool type volumes"
                      : lvx_lv_merging_snapshot(org) ? "an origin that has a merging snapshot"
                                                     : NULL;
    if (err) {
        lvx_cmd_errorf("Snapshots of %s are not supported.", err);
        return LVX_EXIT_FAILED;
    }
    /* every backend serves these origins (the daemon's snapshot targets copy from an
     * origin's extents or through the target serving it: a thin origin's pool, a RAID
     * or mirror origin's own target) */
    (void)act;
    bool mirror = lvx_map_lv_is_mirror(org), raid = lvx_map_lv_is_raid(org);
    bool thin = lvx_lv_is_thin(org);
    for (unsigned i = 0; !mirror && !raid && !thin && i < org->seg_count; i++)
        if (org->segs[i].kind != LVX_SEG_STRIPED) {
            lvx_cmd_errorf("lvx makes snapshots of linear, striped, mirror and RAID LVs only "
                           "(%s/%s has a %s segment).", vg->name, org->name,
                           org->segs[i].type_name);
            return LVX_EXIT_FAILED;
        }
    return 0;
}

int lvx_snapshot_cow_size_check(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                uint64_t extents, uint32_t chunk)
{
    if (lvx_cow_min_ok(vg, extents, chunk))
        return 0;
    uint64_t min = (uint64_t)LVX_SNAPSHOT_MIN_CHUNKS * chunk;
    lvx_cmd_errorf("Snapshot volume cannot be smaller than %u chunks (%llu extents, %s).",
                   LVX_SNAPSHOT_MIN_CHUNKS,
                   (unsigned long long)((min + vg->extent_size - 1) / vg->extent_size),
                   lvx_lvcmd_size(env, min));
    return LVX_EXIT_FAILED;
}
