/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid_sb.h - the on-disk state of a dm-raid array in each rmeta sub-LV
 * (docs/dm-formats.md §2, §3): the dm-raid superblock at byte 0 and the md
 * write-intent bitmap (its superblock at byte 4096, one bit per region after it).
 * Pure: decode/encode of little-endian byte images, no devices, no allocation.
 * Used by the daemon's RAID target (daemon/target_raid.c).
 */
#ifndef LVX_MODEL_RAID_SB_H
#define LVX_MODEL_RAID_SB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LVX_RAID_SB_MAGIC 0x64526D44u         /* "DmRd" */
#define LVX_RAID_BM_MAGIC 0x6D746962u         /* "bitm" */
#define LVX_RAID_MAX_SECTOR UINT64_MAX        /* md's MaxSector: in sync / no reshape */
#define LVX_RAID_BM_OFFSET 4096u              /* bitmap superblock: rmeta byte 4096 */
#define LVX_RAID_BM_SB_SIZE 256u              /* the bits follow it */

struct lvx_raid_sb {
    uint32_t compat_features;   /* bit0: the v1.9.0 fields are valid */
    uint32_t num_devices;
    uint32_t array_position;
    uint64_t events;
    uint64_t failed[4];         /* failed_devices (0..63), extended (64..255) */
    uint64_t disk_recovery_offset;
    uint64_t array_resync_offset;
    uint32_t level, layout, stripe_sectors, flags;
    uint64_t reshape_position;
    uint32_t new_level, new_layout, new_stripe_sectors;
    int32_t delta_disks;
    uint64_t array_sectors, data_offset, new_data_offset, sectors;
    uint32_t incompat_features;
};

struct lvx_raid_bm {
    uint32_t version;
    uint64_t events, events_cleared, sync_size;
    uint32_t state, chunksize, daemon_sleep, write_behind;
};
#define LVX_RAID_BM_STALE 0x2u

/* Decode the 148-byte superblock at p (n bytes available): false when the magic is
 * not there (a new leg). */
bool lvx_raid_sb_decode(const uint8_t *p, size_t n, struct lvx_raid_sb *out);
/* Encode sb into p (n >= 148; the rest of the n bytes zeroed), magic included. */
void lvx_raid_sb_encode(const struct lvx_raid_sb *sb, uint8_t *p, size_t n);
/* Failed bit of leg i (0..255). */
bool lvx_raid_sb_failed(const struct lvx_raid_sb *sb, unsigned i);
void lvx_raid_sb_set_failed(struct lvx_raid_sb *sb, unsigned i, bool on);

/* Decode the bitmap superblock (256 bytes at p): false on a bad magic. */
bool lvx_raid_bm_decode(const uint8_t *p, struct lvx_raid_bm *out);
/* Encode it into p (256 bytes; uuid, nodes, cluster name and padding zero). */
void lvx_raid_bm_encode(const struct lvx_raid_bm *bm, uint8_t *p);
/* The bitmap is usable as the kernel loads it (version 3..4, chunk size a power of
 * two >= 512, daemon_sleep 1..1000, write_behind <= 16383)?  NULL, or why not. */
const char *lvx_raid_bm_invalid(const struct lvx_raid_bm *bm);
/* Bytes of the bitmap area (superblock + one bit per region) rounded up to 4 KiB
 * pages, as md writes it. */
size_t lvx_raid_bm_area_bytes(uint64_t regions);
/* Bit of region r in the area (bits LSB first after the 256-byte superblock). */
static inline bool lvx_raid_bm_bit(const uint8_t *area, uint64_t r)
{
    return (area[LVX_RAID_BM_SB_SIZE + r / 8] >> (r % 8)) & 1;
}
static inline void lvx_raid_bm_set(uint8_t *area, uint64_t r, bool on)
{
    uint8_t m = (uint8_t)(1u << (r % 8));
    if (on)
        area[LVX_RAID_BM_SB_SIZE + r / 8] |= m;
    else
        area[LVX_RAID_BM_SB_SIZE + r / 8] &= (uint8_t)~m;
}

/* md level and layout of a dm-raid type name ("raid1", "raid10", "raid5_ls", ...;
 * raid10: near with `copies`).  false for an unknown name. */
bool lvx_raid_md_level(const char *dm_name, uint32_t copies, uint32_t *level,
                       uint32_t *layout);

#endif
