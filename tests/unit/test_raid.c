/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_raid.c - model/raid.c: the RAID type table (kernel names, parity)
 * and LVM2 2.03.16's size rules: rmeta extents (8 KiB of superblocks + one bit per
 * region), the region size floor (at most 2^21 regions), images and image sizes.
 * Expected values are worked out from LVM2's formulas by hand in the comments.
 */
#include "model/raid.h"

#include <string.h>

#include "tap.h"

int main(void)
{
    const struct lvx_raid_type *t;

    ok((t = lvx_raid_type_find("raid5")) && !strcmp(t->dm_name, "raid5_ls") && t->parity == 1,
       "raid5 is raid5_ls for the kernel, one parity device");
    ok((t = lvx_raid_type_find("raid6")) && !strcmp(t->dm_name, "raid6_zr") && t->parity == 2,
       "raid6 is raid6_zr, two parity devices");
    ok((t = lvx_raid_type_find("raid0_meta")) && !strcmp(t->dm_name, "raid0") && t->meta &&
       t->raid0, "raid0_meta: kernel raid0 with rmeta sub-LVs");
    ok((t = lvx_raid_type_find("raid0")) && !t->meta, "raid0 has no rmeta");
    ok(!lvx_raid_type_find("raid7") && !lvx_raid_type_find("mirror"), "unknown types");

    /* 4 MiB extents (8192 sectors), default region 4096 sectors:
     * 1 extent image: 2 regions -> 8192 + 1 bytes -> 17 sectors -> 1 extent */
    is_int(lvx_raid_rmeta_extents(1, 4096, 8192), 1, "small image: one rmeta extent");
    /* 1 TiB image = 262144 extents -> 524288 regions -> 65536 bytes of bits + 8192
     * = 73728 bytes = 144 sectors -> 1 extent */
    is_int(lvx_raid_rmeta_extents(262144, 4096, 8192), 1, "1 TiB image: still one extent");
    /* extent size 8 sectors (4 KiB), region 8 sectors: 100000 extents -> 100000 regions
     * -> 12500 + 8192 bytes = 20692 bytes = 41 sectors -> 6 extents */
    is_int(lvx_raid_rmeta_extents(100000, 8, 8), 6, "tiny extents: several rmeta extents");
    is_int(lvx_raid_rmeta_extents(16, 0, 8), lvx_raid_rmeta_extents(16, 4096, 8),
           "region 0 counts as the default");

    is_int(lvx_raid_min_region_size(16384, 4096), 4096, "small LV keeps its region size");
    /* 2^21 regions of 4096 sectors = 2^33 sectors (4 TiB): kept; twice that: doubled */
    is_int(lvx_raid_min_region_size(1ull << 33, 4096), 4096, "4 TiB: 2^21 regions fit");
    is_int(lvx_raid_min_region_size(1ull << 34, 4096), 8192, "8 TiB: region doubled");
    is_int(lvx_raid_min_region_size((1ull << 34) + 1, 4096), 8192, "just above: doubled once");

    t = lvx_raid_type_find("raid1");
    is_int(lvx_raid_images(t, 1, 3), 3, "raid1 -m2: 3 images");
    is_int(lvx_raid_image_extents(t, 10, 3, 0), 10, "raid1 images are the LV's size");
    t = lvx_raid_type_find("raid10");
    is_int(lvx_raid_images(t, 3, 2), 6, "raid10 -i3 -m1: 6 images");
    is_int(lvx_raid_image_extents(t, 12, 6, 2), 4, "raid10: LV / stripes per image");
    t = lvx_raid_type_find("raid6_nc");
    is_int(lvx_raid_images(t, 3, 1), 5, "raid6 -i3: 5 images");
    is_int(lvx_raid_image_extents(t, 12, 5, 0), 4, "raid6: LV / data stripes");
    t = lvx_raid_type_find("raid0");
    is_int(lvx_raid_image_extents(t, 12, 3, 0), 4, "raid0: LV / stripes");

    /* reshape space (LVM2's reshape_count per data image) and the reshape state */
    struct lvx_vg vg = { .name = "vg", .extent_size = 8192 };
    struct lvx_lv lv = { .name = "r", .vg = &vg };
    struct lvx_lv img = { .name = "r_rimage_0", .vg = &vg };
    struct lvx_seg iseg = { .type = "striped", .type_name = "striped", .kind = LVX_SEG_STRIPED,
                            .lv = &img };
    img.segs = &iseg;
    img.seg_count = 1;
    struct lvx_area areas[4] = { { .lv = &img }, { .lv = &img }, { .lv = &img }, { .lv = &img } };
    struct lvx_seg seg = { .type = "raid5_ls", .type_name = "raid5_ls", .kind = LVX_SEG_RAID,
                           .area_count = 4, .areas = areas, .lv = &lv, .extent_count = 15,
                           .reshape_count = 2 };
    lv.segs = &seg;
    lv.seg_count = 1;
    char buf[160];
    is_int(lvx_raid_reshape_extents(&seg), 6, "raid5 of 4 images, 2 reshape extents each: 6");
    ok(lvx_raid_reshape_state(&lv, buf, sizeof(buf)) &&
       !strcmp(buf, "reshape space in its images (reshape_count 2)"), "reshape space named");
    seg.type_name = seg.type = "raid6_zr";
    is_int(lvx_raid_reshape_extents(&seg), 4, "raid6 of 4 images: 2 data images, 4");
    seg.reshape_count = 0;
    ok(!lvx_raid_reshape_state(&lv, buf, sizeof(buf)), "no reshape: NULL");
    iseg.type = "striped+RESHAPE_DELTA_DISKS_PLUS";
    ok(lvx_raid_reshape_state(&lv, buf, sizeof(buf)) &&
       !strcmp(buf, "reshape flags in its metadata (striped+RESHAPE_DELTA_DISKS_PLUS)"),
       "a flag on an image's segment");
    ok(lvx_raid_reshape_pending(&lv, buf, sizeof(buf)) &&
       !strcmp(buf, "image r_rimage_0 flagged RESHAPE_DELTA_DISKS_PLUS"),
       "pending: images being added");
    /* a stripe removal: the last images flagged are served (the daemon runs it),
     * flags on any other image are not */
    struct lvx_lv last = { .name = "r_rimage_3", .vg = &vg };
    struct lvx_seg lseg = { .type = "striped+REMOVE_AFTER_RESHAPE", .type_name = "striped",
                            .kind = LVX_SEG_STRIPED, .lv = &last };
    last.segs = &lseg;
    last.seg_count = 1;
    areas[3].lv = &last;
    iseg.type = "striped";
    is_int(lvx_raid_images_leaving(&seg), 1, "removal: the last image leaving");
    ok(!lvx_raid_reshape_pending(&lv, buf, sizeof(buf)), "removal's last image: not pending");
    lseg.type = "striped+RESHAPE_DELTA_DISKS_MINUS";
    is_int(lvx_raid_images_leaving(&seg), 1, "removal asked: the last image leaving");
    lseg.type = "striped";
    iseg.type = "striped+REMOVE_AFTER_RESHAPE";     /* images 0-2, not the last */
    is_int(lvx_raid_images_leaving(&seg), 0, "the last image not flagged: none leaving");
    ok(lvx_raid_reshape_pending(&lv, buf, sizeof(buf)) &&
       !strcmp(buf, "image r_rimage_0 flagged REMOVE_AFTER_RESHAPE"),
       "pending: an image to take out that is not among the last");
    lseg.type = "striped+RESHAPE_DELTA_DISKS_PLUS";
    is_int(lvx_raid_images_leaving(&seg), 0, "images being added: none leaving");
    areas[3].lv = &img;
    iseg.type = "striped";
    seg.type = "raid6_zr+RESHAPE+RESHAPE_DATA_OFFSET";
    seg.reshape_count = 1;
    ok(lvx_raid_reshape_state(&lv, buf, sizeof(buf)) &&
           !lvx_raid_reshape_pending(&lv, buf, sizeof(buf)),
       "the segment's RESHAPE flags and reshape space: reshaped, nothing pending");
    seg.type = "raid6_zr";
    seg.reshape_count = 0;
    iseg.type = "striped";
    seg.has_data_offset = true;
    seg.data_offset = 0;
    ok(!lvx_raid_reshape_state(&lv, buf, sizeof(buf)), "data_offset 0: none");
    seg.data_offset = 8192;
    ok(lvx_raid_reshape_state(&lv, buf, sizeof(buf)) && strstr(buf, "data_offset 8192"),
       "data_offset 8192 named");
    return tap_done();
}
