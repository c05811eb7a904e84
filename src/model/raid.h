/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid.h - facts about LVM2's RAID segment types that creation, activation and
 * the reports share: the type table (metadata name, kernel dm-raid name, parity
 * devices, mirrored or striped, with or without rmeta sub-LVs) and LVM2 2.03's size
 * rules (rmeta extents, the region size floor of MD's 2^21-region bitmap).
 * Pure: no devices, no allocation.  Used by cmd/lvcreate_raid.c and map/raid.c.
 */
#ifndef LVX_MODEL_RAID_H
#define LVX_MODEL_RAID_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"

#define LVX_RAID_DEFAULT_REGION 4096u    /* sectors: LVM2's raid_region_size 2 MiB */
#define LVX_RAID_MAX_IMAGES 64u          /* LVM2's DEFAULT_RAID_MAX_IMAGES */
#define LVX_RAID1_MAX_IMAGES 64u         /* LVM2's DEFAULT_RAID1_MAX_IMAGES */

struct lvx_raid_type {
    const char *name;          /* metadata segment type: "raid5", "raid5_la", ... */
    const char *dm_name;       /* the dm-raid type in the table: raid5 -> raid5_ls */
    unsigned parity;           /* parity devices: 0, 1 (raid4/5), 2 (raid6) */
    bool mirrored;             /* raid1, raid10 */
    bool raid0;                /* raid0, raid0_meta: no region size, no bitmap */
    bool meta;                 /* images have rmeta sub-LVs (all but raid0) */
};

/* The type called name (metadata spelling), or NULL. */
const struct lvx_raid_type *lvx_raid_type_find(const char *name);

/* Extents of each rmeta sub-LV for images of rimage_extents (LVM2: superblock and
 * bitmap superblock, 8 KiB, plus one bit per region, rounded up to extents);
 * region_size 0 counts as the default. */
uint32_t lvx_raid_rmeta_extents(uint64_t rimage_extents, uint32_t region_size,
                                uint32_t extent_size);

/* The region size doubled until the LV (raid_sectors) has at most 2^21 regions. */
uint32_t lvx_raid_min_region_size(uint64_t raid_sectors, uint32_t region_size);

/* Images (sub-LV pairs) of a new LV: raid1 `mirrors`, raid10 stripes x mirrors,
 * raid0 stripes, raid4/5/6 stripes + parity. */
uint32_t lvx_raid_images(const struct lvx_raid_type *t, uint32_t stripes, uint32_t mirrors);

/* Extents of each rimage of a raid LV of le_count extents with `images` images. */
uint64_t lvx_raid_image_extents(const struct lvx_raid_type *t, uint64_t le_count,
                                uint32_t images, uint32_t data_copies);

/* The reshape space LVM2 counts in a RAID segment's extent_count (reshape_count
 * extents in each data image; the LV's size and its table leave it out): extents. */
uint64_t lvx_raid_reshape_extents(const struct lvx_seg *seg);

/* What says a RAID LV was reshaped or prepared for one (LVM2 2.03.16's
 * lv_raid_convert: reshape space of `reshape_count` extents in each image, a data
 * offset, the RESHAPE* flags it writes after '+' in the segment types of the LV and its
 * images, kept after the kernel's reshape ended): a phrase for an error line
 * ("reshape flags in its metadata (raid5_rs+RESHAPE)"), or NULL for none.  The
 * metadata does not say whether the kernel's reshape ended: the superblocks do (the
 * daemon serves such an LV when they show it ended, daemon/raid_core.c). */
const char *lvx_raid_reshape_state(const struct lvx_lv *lv, char *buf, size_t size);

/* What in the metadata alone says a reshape changes the LV's set of images and has
 * not been completed in a way the daemon does not serve (images flagged
 * RESHAPE_DELTA_DISKS_PLUS, or removal flags on images other than the last ones): a
 * phrase ("image r_rimage_3 flagged RESHAPE_DELTA_DISKS_PLUS"), or NULL for none. */
const char *lvx_raid_reshape_pending(const struct lvx_lv *lv, char *buf, size_t size);

/* The images a stripe removal takes out (LVM2's two commands): the last images of the
 * RAID segment flagged RESHAPE_DELTA_DISKS_MINUS (the reshape asked for) or
 * REMOVE_AFTER_RESHAPE (the second command still to run); 0 for none. */
unsigned lvx_raid_images_leaving(const struct lvx_seg *seg);

#endif
