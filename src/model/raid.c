/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid.c - the RAID segment type table and LVM2 2.03.16's size rules
 * (model/raid.h).  Facts from LVM2's lib/metadata/raid_manip.c (rmeta size,
 * minimum region size) and libdm's raid type names ("raid5" is raid5_ls and
 * "raid6" raid6_zr for the kernel, raid0_meta is raid0).
 */
#include "model/raid.h"

#include <stdio.h>
#include <string.h>

static const struct lvx_raid_type types[] = {
    { "raid0", "raid0", 0, false, true, false },
    { "raid0_meta", "raid0", 0, false, true, true },
    { "raid1", "raid1", 0, true, false, true },
    { "raid10", "raid10", 0, true, false, true },
    { "raid4", "raid4", 1, false, false, true },
    { "raid5", "raid5_ls", 1, false, false, true },
    { "raid5_ls", "raid5_ls", 1, false, false, true },
    { "raid5_la", "raid5_la", 1, false, false, true },
    { "raid5_rs", "raid5_rs", 1, false, false, true },
    { "raid5_ra", "raid5_ra", 1, false, false, true },
    { "raid5_n", "raid5_n", 1, false, false, true },
    { "raid6", "raid6_zr", 2, false, false, true },
    { "raid6_zr", "raid6_zr", 2, false, false, true },
    { "raid6_nr", "raid6_nr", 2, false, false, true },
    { "raid6_nc", "raid6_nc", 2, false, false, true },
    { "raid6_n_6", "raid6_n_6", 2, false, false, true },
    /* raid5's layouts with Q on the last image: LVM2 makes them by taking a raid5 over */
    { "raid6_ls_6", "raid6_ls_6", 2, false, false, true },
    { "raid6_la_6", "raid6_la_6", 2, false, false, true },
    { "raid6_rs_6", "raid6_rs_6", 2, false, false, true },
    { "raid6_ra_6", "raid6_ra_6", 2, false, false, true },
};

const struct lvx_raid_type *lvx_raid_type_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (!strcmp(types[i].name, name))
            return &types[i];
    return NULL;
}

uint32_t lvx_raid_rmeta_extents(uint64_t rimage_extents, uint32_t region_size,
                                uint32_t extent_size)
{
    if (!region_size)
        region_size = LVX_RAID_DEFAULT_REGION;
    uint64_t regions = rimage_extents * extent_size / region_size;
    uint64_t bytes = 2 * 4096 + (regions + 7) / 8;
    uint64_t sectors = (bytes + 511) / 512;
    return (uint32_t)((sectors + extent_size - 1) / extent_size);
}

uint32_t lvx_raid_min_region_size(uint64_t raid_sectors, uint32_t region_size)
{
    uint64_t min = raid_sectors >> 21;
    while (region_size && region_size < min)
        region_size *= 2;
    return region_size;
}

uint32_t lvx_raid_images(const struct lvx_raid_type *t, uint32_t stripes, uint32_t mirrors)
{
    if (t->mirrored && !strcmp(t->name, "raid1"))
        return mirrors;
    if (t->mirrored)
        return stripes * mirrors;
    return stripes + t->parity;
}

uint64_t lvx_raid_image_extents(const struct lvx_raid_type *t, uint64_t le_count,
                                uint32_t images, uint32_t data_copies)
{
    if (!images)
        return 0;
    if (!strcmp(t->name, "raid1"))
        return le_count;
    if (t->mirrored)
        return le_count * (data_copies ? data_copies : 2) / images;
    return le_count / (images - t->parity);
}

static const char *reshape_flag(const struct lvx_seg *seg)
{
    const char *plus = seg->type ? strchr(seg->type, '+') : NULL;
    return plus && strstr(plus, "RESHAPE") ? seg->type : NULL;
}

const char *lvx_raid_reshape_state(const struct lvx_lv *lv, char *buf, size_t size)
{
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        const char *f = reshape_flag(seg);
        for (uint32_t i = 0; !f && seg->kind == LVX_SEG_RAID && seg->areas && i < seg->area_count; i++)
            for (unsigned k = 0; !f && seg->areas[i].lv && k < seg->areas[i].lv->seg_count; k++)
                f = reshape_flag(&seg->areas[i].lv->segs[k]);
        if (f)
            snprintf(buf, size, "reshape flags in its metadata (%s)", f);
        else if (seg->reshape_count)
            snprintf(buf, size, "reshape space in its images (reshape_count %u)",
                     seg->reshape_count);
        else if (seg->has_data_offset && seg->data_offset)
            snprintf(buf, size, "its data at an offset in its images (data_offset %u)",
                     seg->data_offset);
        else
            continue;
        return buf;
    }
    return NULL;
}

/* The first of LVM2's image-set flags in an image's segment types ("striped+..."). */
static const char *set_flag(const struct lvx_lv *img)
{
    static const char *const flags[] = { "RESHAPE_DELTA_DISKS_PLUS", "RESHAPE_DELTA_DISKS_MINUS",
                                         "REMOVE_AFTER_RESHAPE" };
    for (unsigned k = 0; k < img->seg_count; k++) {
        const char *plus = img->segs[k].type ? strchr(img->segs[k].type, '+') : NULL;
        for (unsigned f = 0; plus && f < 3; f++)
            if (strstr(plus, flags[f]))
                return flags[f];
    }
    return NULL;
}

unsigned lvx_raid_images_leaving(const struct lvx_seg *seg)
{
    if (seg->kind != LVX_SEG_RAID || !seg->areas)
        return 0;
    unsigned k = 0;
    for (uint32_t i = seg->area_count; i-- > 0;) {
        const char *f = seg->areas[i].lv ? set_flag(seg->areas[i].lv) : NULL;
        if (!f || !strcmp(f, "RESHAPE_DELTA_DISKS_PLUS"))
            break;
        k++;
    }
    return k;
}

const char *lvx_raid_reshape_pending(const struct lvx_lv *lv, char *buf, size_t size)
{
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        if (seg->kind != LVX_SEG_RAID || !seg->areas)
            continue;
        /* a removal's last images (served: the daemon runs the shrink) */
        uint32_t keep = seg->area_count - lvx_raid_images_leaving(seg);
        for (uint32_t i = 0; i < keep; i++) {
            const char *f = seg->areas[i].lv ? set_flag(seg->areas[i].lv) : NULL;
            if (f) {
                snprintf(buf, size, "image %s flagged %s", seg->areas[i].lv->name, f);
                return buf;
            }
        }
    }
    return NULL;
}

uint64_t lvx_raid_reshape_extents(const struct lvx_seg *seg)
{
    const struct lvx_raid_type *t = seg->kind == LVX_SEG_RAID ? lvx_raid_type_find(seg->type_name)
                                                              : NULL;
    if (!t || !seg->reshape_count || seg->area_count <= t->parity)
        return 0;
    return (uint64_t)seg->reshape_count * (seg->area_count - t->parity);
}
