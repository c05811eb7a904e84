/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_raid_sb.c - model/raid_sb.c against the bytes of docs/dm-formats.md:
 * the rmeta_0 superblock of a 2-leg raid1 of 8 MiB after a clean deactivation by the
 * kernel (§2) decodes to its fields and encodes back to the same 148 bytes; the bitmap
 * superblock of the same LV (§3.1) likewise; bit positions (§3.2: byte 256 + c/8, LSB
 * first), area sizes in pages, md levels/layouts (§4), failed bits beyond 64.
 */
#include "model/raid_sb.h"

#include <string.h>

#include "tap.h"

static const uint8_t sb_raid1[0x94] = {
    0x44, 0x6d, 0x52, 0x64, 0x01, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0,        /* 0x00 */
    0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                       /* 0x10 */
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,                          /* 0x20 */
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                       /* 0x30 */
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0, 0, 0, 0, 0, /* 0x40 */
    0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x40, 0, 0, 0, 0, 0, 0,                    /* 0x50 */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,                          /* 0x60 */
    0x00, 0x40, 0, 0, 0, 0, 0, 0,                                            /* 0x70 */
};

static const uint8_t bm_raid1[64] = {
    0x62, 0x69, 0x74, 0x6d, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0x14, 0, 0, 0, 0, 0, 0, 0,
    0x14, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x40, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0x20, 0, 0x05, 0, 0, 0, 0, 0, 0, 0,
};

int main(void)
{
    struct lvx_raid_sb sb;
    uint8_t buf[512], full[512];
    memset(full, 0, sizeof(full));
    memcpy(full, sb_raid1, sizeof(sb_raid1));
    ok(lvx_raid_sb_decode(full, sizeof(full), &sb), "the kernel's raid1 superblock decodes");
    is_int(sb.num_devices, 2, "num_devices 2");
    is_int(sb.array_position, 0, "array_position 0");
    is_int(sb.events, 20, "events 20");
    ok(sb.disk_recovery_offset == LVX_RAID_MAX_SECTOR && sb.array_resync_offset == LVX_RAID_MAX_SECTOR,
       "in sync: both offsets MaxSector");
    ok(sb.level == 1 && sb.layout == 0 && sb.stripe_sectors == 0, "level 1, layout 0, no chunk");
    ok(sb.reshape_position == LVX_RAID_MAX_SECTOR && sb.new_level == 1, "no reshape, new_level 1");
    ok(sb.array_sectors == 16384 && sb.sectors == 16384, "array and leg of 16384 sectors");
    lvx_raid_sb_encode(&sb, buf, sizeof(buf));
    ok(!memcmp(buf, full, sizeof(buf)), "encoding gives the kernel's 512 bytes back");
    memset(full, 0, 4);
    ok(!lvx_raid_sb_decode(full, sizeof(full), &sb), "no magic: a new leg");

    struct lvx_raid_sb f;
    memset(&f, 0, sizeof(f));
    lvx_raid_sb_set_failed(&f, 1, true);
    lvx_raid_sb_set_failed(&f, 70, true);
    ok(f.failed[0] == 2 && f.failed[1] == 64 && lvx_raid_sb_failed(&f, 70) &&
       !lvx_raid_sb_failed(&f, 0), "failed bits: leg 1 in failed_devices, leg 70 in the extended words");
    lvx_raid_sb_encode(&f, buf, sizeof(buf));
    ok(buf[0x18] == 2 && buf[0x78] == 64, "... at 0x18 and 0x78 on disk");
    lvx_raid_sb_set_failed(&f, 1, false);
    ok(!lvx_raid_sb_failed(&f, 1), "a failed bit cleared");

    struct lvx_raid_bm bm;
    uint8_t b[256] = { 0 };
    memcpy(b, bm_raid1, sizeof(bm_raid1));
    ok(lvx_raid_bm_decode(b, &bm), "the kernel's bitmap superblock decodes");
    ok(bm.version == 4 && bm.events == 20 && bm.events_cleared == 20 && bm.sync_size == 16384 &&
       bm.chunksize == 2097152 && bm.daemon_sleep == 5 && bm.state == 0,
       "version 4, events 20/20, sync_size 16384, chunk 2 MiB, sleep 5");
    ok(lvx_raid_bm_invalid(&bm) == NULL, "usable as the kernel loads it");
    uint8_t e[256];
    lvx_raid_bm_encode(&bm, e);
    ok(!memcmp(e, b, sizeof(b)), "encoding gives the kernel's 256 bytes back");
    bm.chunksize = 3000;
    ok(lvx_raid_bm_invalid(&bm) != NULL, "a chunk size not a power of two is refused");

    uint8_t area[8192] = { 0 };
    lvx_raid_bm_set(area, 0, true);
    lvx_raid_bm_set(area, 9, true);
    ok(area[256] == 1 && area[257] == 2 && lvx_raid_bm_bit(area, 9) && !lvx_raid_bm_bit(area, 8),
       "bit c at byte 256 + c/8, LSB first");
    is_int(lvx_raid_bm_area_bytes(4), 4096, "4 regions: one page");
    is_int(lvx_raid_bm_area_bytes((4096 - 256) * 8 + 1), 8192, "one bit past the first page: two");

    uint32_t level, layout;
    ok(lvx_raid_md_level("raid10", 2, &level, &layout) && level == 10 && layout == 0x102,
       "raid10 near 2: level 10 layout 0x102");
    ok(lvx_raid_md_level("raid5_ls", 0, &level, &layout) && level == 5 && layout == 2,
       "raid5_ls: level 5 layout 2");
    ok(lvx_raid_md_level("raid6_zr", 0, &level, &layout) && level == 6 && layout == 8,
       "raid6_zr: level 6 layout 8");
    ok(lvx_raid_md_level("raid4", 0, &level, &layout) && level == 5 && layout == 4,
       "raid4: level 5 layout 4 (parity on the first leg)");
    ok(!lvx_raid_md_level("raid7", 0, &level, &layout), "unknown type");
    return tap_done();
}
