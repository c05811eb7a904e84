/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/raid.c - the dm-raid table line of a RAID segment, as LVM2 2.03.16 loads it
 * (libdm's raid line for dm-raid >= 1.11, docs/dm-formats.md):
 *
 *   <start> <len> raid <type> <#params> <chunk>[ nosync][ rebuild N]...
 *       [ min_recovery_rate R][ max_recovery_rate R][ write_mostly N]...
 *       [ max_write_behind W][ region_size S][ raid10_copies C][ delta_disks D]
 *       [ data_offset O]
 *       <#devs> <meta|-> <data> ...
 *
 * <type> is the kernel's name (raid5 -> raid5_ls, raid6 -> raid6_zr, raid0_meta ->
 * raid0), <chunk> the stripe size in sectors (0 for raid1), <#params> counts the
 * words between it and <#devs> plus one; devices are the sub-LVs' dm devices, given
 * by the caller (they exist only while the sub-LVs are active); raid0 has no rmeta
 * ("-"), and so has a RAID LV whose rmeta are detached (LVM2's _clear_meta_lvs step:
 * no meta_areas).  Rates, write-behind and data_offset come from the segment's typed fields
 * (delta_disks, a reshape step's data_offset and a raid10's raid10_copies left out
 * from its kernel_* fields, which are never in the metadata)
 * (read from the metadata by format/vg_import.c); rebuild / write_mostly from the images' REBUILD / WRITEMOSTLY status.
 * An image whose rmeta or rimage lies on a missing PV is named like any other: as
 * LVM2, the backend activates such a sub-LV over "<vg>-<sub-LV>-missing_S_A" error
 * devices (degraded or partial activation; lvx_map_check_raid_activatable() applies
 * LVM2's rules for when that is allowed), so the kernel sees a failing device.
 * An image split off with --trackchanges (visible, read-only: cmd/lvconvert_raid_split.c)
 * is "- -" as LVM2 writes it: the kernel tracks the regions written in its bitmap.
 * Entry point: lvx_map_raid_table().
 */
#include "map/map.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "model/raid.h"

int lvx_map_raid_table(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                       bool nosync, lvx_map_subdev_fn dev, void *arg, struct lvx_buf *out)
{
    const struct lvx_lv *lv = seg->lv;
    const struct lvx_raid_type *t = lvx_raid_type_find(seg->type_name);
    if (!t || seg->kind != LVX_SEG_RAID || !seg->area_count || !seg->areas)
        return lvx_error(ctx, ENOTSUP, "Segment type \"%s\" of LV %s/%s is not a RAID type lvx "
                         "activates", seg->type_name ? seg->type_name : "?", lv->vg->name, lv->name);
    for (uint32_t i = 0; i < seg->area_count; i++)
        if (!seg->areas[i].lv || (t->meta && seg->meta_areas && !seg->meta_areas[i].lv))
            return lvx_error(ctx, EINVAL, "RAID LV %s/%s: image %u has no sub-LV", lv->vg->name,
                             lv->name, i);
    bool has_offset;
    int32_t delta = 0;
    uint32_t min_rate = 0, max_rate = 0, wb = 0, copies = 0, offset = 0;
    unsigned rebuilds = 0, mostly = 0;
    if (!t->raid0) {
        min_rate = seg->min_recovery_rate;
        max_rate = seg->max_recovery_rate;
        wb = !strcmp(t->name, "raid1") ? seg->writebehind : 0;
        has_offset = seg->has_data_offset || seg->kernel_offset;
        offset = seg->kernel_offset ? seg->kernel_data_offset : seg->data_offset;
        delta = seg->kernel_delta_disks;
        /* LVM2 2.03.16 loads a raid10 LV without raid10_copies in the command that
         * allocates its reshape space, with it otherwise (guest records of its reshape
         * of 8 to 20 images and of its stripe size changes, tests/kernel/raid-reshape-keep.sh) */
        if (!strcmp(t->name, "raid10") && !seg->kernel_no_copies)
            copies = seg->data_copies >= 2 ? seg->data_copies : 2;
        for (uint32_t i = 0; i < seg->area_count; i++) {
            rebuilds += (seg->areas[i].lv->status & LVX_LV_REBUILD) != 0;
            mostly += (seg->areas[i].lv->status & LVX_LV_WRITEMOSTLY) != 0;
        }
    } else {
        has_offset = false;
        nosync = false;
    }
    uint32_t region = t->raid0 ? 0 : seg->region_size;
    unsigned params = 1 + (nosync ? 1 : 0) + 2 * ((region != 0) + (wb != 0) + (min_rate != 0) +
                                                  (max_rate != 0) + (copies > 1) + has_offset +
                                                  (delta != 0)) +
                      2 * (rebuilds + mostly);
    lvx_buf_printf(out, "%" PRIu64 " %" PRIu64 " raid %s %u %u", seg->start_extent * extent_size,
                   (seg->extent_count - lvx_raid_reshape_extents(seg)) * extent_size, t->dm_name, params, seg->stripe_size);
    if (nosync)
        lvx_buf_puts(out, " nosync");
    for (uint32_t i = 0; rebuilds && i < seg->area_count; i++)
        if (seg->areas[i].lv->status & LVX_LV_REBUILD)
            lvx_buf_printf(out, " rebuild %u", i);
    if (min_rate)
        lvx_buf_printf(out, " min_recovery_rate %u", min_rate);
    if (max_rate)
        lvx_buf_printf(out, " max_recovery_rate %u", max_rate);
    for (uint32_t i = 0; mostly && i < seg->area_count; i++)
        if (seg->areas[i].lv->status & LVX_LV_WRITEMOSTLY)
            lvx_buf_printf(out, " write_mostly %u", i);
    if (wb)
        lvx_buf_printf(out, " max_write_behind %u", wb);
    if (region)
        lvx_buf_printf(out, " region_size %u", region);
    if (copies > 1)
        lvx_buf_printf(out, " raid10_copies %u", copies);
    if (delta)
        lvx_buf_printf(out, " delta_disks %d", (int)delta);
    if (has_offset)
        lvx_buf_printf(out, " data_offset %u", offset);
    lvx_buf_printf(out, " %u", seg->area_count);
    for (uint32_t i = 0; i < seg->area_count; i++) {
        int r;
        const struct lvx_lv *img = seg->areas[i].lv;
        if ((img->status & LVX_LV_VISIBLE) && !(img->status & LVX_LV_WRITE)) {
            lvx_buf_puts(out, " - -");     /* a tracked split image (LVM2's "- -") */
            continue;
        }
        lvx_buf_putc(out, ' ');
        if (t->meta && seg->meta_areas) {     /* without: LVM2's _clear_meta_lvs step */
            if ((r = dev(ctx, arg, seg->meta_areas[i].lv, out)) < 0)
                return r;
        } else {
            lvx_buf_putc(out, '-');
        }
        lvx_buf_putc(out, ' ');
        if ((r = dev(ctx, arg, seg->areas[i].lv, out)) < 0)
            return r;
    }
    lvx_buf_putc(out, '\n');
    return 0;
}

bool lvx_map_lv_is_raid(const struct lvx_lv *lv)
{
    return lv->seg_count == 1 && lv->segs[0].kind == LVX_SEG_RAID;
}

bool lvx_map_raid_image_missing(const struct lvx_seg *seg, uint32_t i)
{
    const struct lvx_lv *img = seg->areas ? seg->areas[i].lv : NULL;
    const struct lvx_lv *meta = seg->meta_areas ? seg->meta_areas[i].lv : NULL;
    return (img && lvx_map_lv_partial(img)) || (meta && lvx_map_lv_partial(meta));
}

static bool all_error(const struct lvx_lv *sub)
{
    if (!sub || !sub->seg_count)
        return false;
    for (unsigned k = 0; k < sub->seg_count; k++)
        if (sub->segs[k].kind != LVX_SEG_ERROR)
            return false;
    return true;
}

bool lvx_map_raid_image_error(const struct lvx_seg *seg, uint32_t i)
{
    return all_error(seg->areas ? seg->areas[i].lv : NULL) ||
           all_error(seg->meta_areas ? seg->meta_areas[i].lv : NULL);
}

/* Can a segment of type t run without the images lost(seg, i) says are gone?  raid10:
 * no pair of copies may lose both; raid0: none may go; raid1: all but one; raid4/5/6:
 * at most their parity images. */
static bool survives(const struct lvx_seg *seg, const struct lvx_raid_type *t,
                     bool (*lost)(const struct lvx_seg *seg, uint32_t i))
{
    uint32_t failed = 0;
    if (!strncmp(t->name, "raid10", 6)) {
        for (uint32_t i = 0; i < seg->area_count * 2; i++) {
            failed = (i % 2 ? failed : 0) + lost(seg, i % seg->area_count);
            if (failed >= 2)
                return false;
        }
        return true;
    }
    for (uint32_t i = 0; i < seg->area_count; i++)
        failed += lost(seg, i);
    if (t->raid0)
        return failed == 0;
    return failed < seg->area_count && !(t->parity && failed > t->parity);
}

/* LVM2's lv_is_partial of an image (its rmeta not counted); raid10 counts an error
 * image too (LVM2's lv_is_virtual there). */
static bool image_partial(const struct lvx_seg *seg, uint32_t i)
{
    const struct lvx_lv *img = seg->areas ? seg->areas[i].lv : NULL;
    return img && (lvx_map_lv_partial(img) ||
                   (!strncmp(seg->type_name, "raid10", 6) && all_error(img)));
}

bool lvx_map_raid_available(const struct lvx_lv *lv)
{
    if (!lv->seg_count || lv->segs[0].kind != LVX_SEG_RAID)
        return false;
    const struct lvx_raid_type *t = lvx_raid_type_find(lv->segs[0].type_name);
    return t && survives(&lv->segs[0], t, image_partial);
}

/* LVM2's _partial_raid_lv_is_redundant: can the LV work without its missing images
 * (image or rmeta)?  (raid0 never: the kernel cannot run it degraded.) */
static bool redundant(const struct lvx_seg *seg, const struct lvx_raid_type *t)
{
    return survives(seg, t, lvx_map_raid_image_missing);
}

int lvx_map_check_raid_activatable(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial,
                                   bool degraded)
{
    const struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_raid_type *t = lvx_raid_type_find(seg->type_name);
    if (!t)
        return lvx_error(ctx, ENOTSUP, "Activation of logical volume %s/%s (segment type %s) "
                         "is not supported by lvx yet.", lv->vg->name, lv->name,
                         seg->type_name ? seg->type_name : "?");
    bool missing = false;
    for (uint32_t i = 0; i < seg->area_count; i++) {
        const struct lvx_lv *subs[2] = { seg->areas ? seg->areas[i].lv : NULL,
                                         seg->meta_areas ? seg->meta_areas[i].lv : NULL };
        for (int k = 0; k < 2; k++) {
            int r;
            if (!subs[k]) {
                if (k == 0 || (t->meta && seg->meta_areas))
                    return lvx_error(ctx, EINVAL, "RAID LV %s/%s: image %u has no sub-LV",
                                     lv->vg->name, lv->name, i);
                continue;
            }
            if (lvx_map_lv_is_raid(subs[k]))
                return lvx_error(ctx, ENOTSUP, "RAID LV %s/%s: nested RAID sub-LV %s is not "
                                 "supported.", lv->vg->name, lv->name, subs[k]->name);
            if (lvx_map_raid_image_missing(seg, i)) {
                missing = true;          /* activated over "-missing_S_A" error devices */
                continue;
            }
            if ((r = lvx_map_check_activatable(ctx, subs[k], partial)) < 0)
                return r;
        }
    }
    if (!missing || partial)
        return 0;
    /* LVM2's rules for a partial RAID LV (activation_mode degraded is the default) */
    if (!redundant(seg, t))
        return lvx_error(ctx, ENODEV, "Refusing activation of partial LV %s/%s.  Use "
                         "'--activationmode partial' to override.", lv->vg->name, lv->name);
    if (!degraded)
        return lvx_error(ctx, ENODEV, "Refusing activation of partial LV %s/%s.  Try "
                         "'--activationmode degraded'.", lv->vg->name, lv->name);
    return 0;
}
