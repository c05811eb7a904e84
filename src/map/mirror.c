/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/mirror.c - the dm-mirror table line of an old-style mirror LV (segment type
 * "mirror", not a pvmove), as LVM2 2.03.16 loads it (seen with `dmsetup table` in
 * the VM, docs/dm-formats.md §1 and §6):
 *
 *   <start> <len> mirror disk 2 <mlog> <region>[ nosync -> disk 3 ...]
 *       <#images> <mimage_0> 0 <mimage_1> 0 ... 1 handle_errors
 *   <start> <len> mirror core 1 <region>[ nosync -> core 2 ...] <#images> ...
 *
 * A mirrored log (itself a 2-image mirror, cmd/mirror_mlog.c) gets the same line with
 * a core log, its images' devices made before it (activate/dm_backend.c).
 * "nosync" only when the caller asks (the first table of lvcreate --nosync: LVM2
 * does not pass it when it activates a NOTSYNCED mirror again); the
 * devices are the sub-LVs' dm devices, given by the caller (map/raid.c's
 * lvx_map_subdev_fn).  Entry points: lvx_map_lv_is_mirror(), lvx_map_mirror_table(),
 * lvx_map_check_mirror_activatable(), lvx_map_mirror_sync_layer().
 */
#include "map/map.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

bool lvx_map_lv_is_mirror(const struct lvx_lv *lv)
{
    return lv->seg_count == 1 && lv->segs[0].kind == LVX_SEG_MIRROR &&
           !(lv->status & LVX_LV_PVMOVE) && lv->segs[0].area_count && lv->segs[0].areas &&
           lv->segs[0].areas[0].lv;
}

/* LVM2 marks an LV CONVERTING when it reads it: a mirror whose first image's name holds
 * "_mimagetmp" (its is_temporary_mirror_layer: that image a mirror itself) */
const struct lvx_lv *lvx_map_mirror_sync_layer(const struct lvx_lv *lv)
{
    if (!lv || !lvx_map_lv_is_mirror(lv))
        return NULL;
    const struct lvx_lv *tmp = lv->segs[0].areas[0].lv;
    return strstr(tmp->name, "_mimagetmp") && lvx_map_lv_is_mirror(tmp) ? tmp : NULL;
}

int lvx_map_mirror_table(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                         bool nosync, lvx_map_subdev_fn dev, void *arg, struct lvx_buf *out)
{
    const struct lvx_lv *lv = seg->lv;
    for (uint32_t i = 0; i < seg->area_count; i++)
        if (!seg->areas[i].lv)
            return lvx_error(ctx, EINVAL, "Mirror LV %s/%s: image %u is not a sub-LV",
                             lv->vg->name, lv->name, i);
    if (!seg->region_size)
        return lvx_error(ctx, EINVAL, "Mirror LV %s/%s has no region size", lv->vg->name,
                         lv->name);
    int r;
    lvx_buf_printf(out, "%" PRIu64 " %" PRIu64 " mirror ", seg->start_extent * extent_size,
                   seg->extent_count * extent_size);
    if (seg->log_lv) {
        lvx_buf_printf(out, "disk %u ", nosync ? 3 : 2);
        if ((r = dev(ctx, arg, seg->log_lv, out)) < 0)
            return r;
        lvx_buf_printf(out, " %u", seg->region_size);
    } else {
        lvx_buf_printf(out, "core %u %u", nosync ? 2 : 1, seg->region_size);
    }
    lvx_buf_printf(out, "%s %u", nosync ? " nosync" : "", seg->area_count);
    for (uint32_t i = 0; i < seg->area_count; i++) {
        lvx_buf_putc(out, ' ');
        if ((r = dev(ctx, arg, seg->areas[i].lv, out)) < 0)
            return r;
        lvx_buf_puts(out, " 0");
    }
    lvx_buf_puts(out, " 1 handle_errors\n");
    return 0;
}

int lvx_map_check_mirror_activatable(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial)
{
    const struct lvx_seg *seg = &lv->segs[0];
    int r;
    if (seg->log_lv && (r = lvx_map_lv_is_mirror(seg->log_lv) && !seg->log_lv->segs[0].log_lv
                                ? lvx_map_check_mirror_activatable(ctx, seg->log_lv, partial)
                                : lvx_map_check_activatable(ctx, seg->log_lv, partial)) < 0)
        return r;
    for (uint32_t i = 0; i < seg->area_count; i++) {
        const struct lvx_lv *img = seg->areas[i].lv;
        if (!img)
            return lvx_error(ctx, EINVAL, "Mirror LV %s/%s: image %u is not a sub-LV",
                             lv->vg->name, lv->name, i);
        /* a CONVERTING layer (lvx_map_mirror_sync_layer): a mirror itself */
        bool layer = i == 0 && lvx_map_mirror_sync_layer(lv) == img;
        if ((r = layer ? lvx_map_check_mirror_activatable(ctx, img, partial)
                       : lvx_map_check_activatable(ctx, img, partial)) < 0)
            return r;
    }
    return 0;
}
