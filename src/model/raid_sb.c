/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid_sb.c - byte images of the dm-raid superblock and the md bitmap
 * superblock (model/raid_sb.h; offsets from docs/dm-formats.md §2-§4).
 */
#include "model/raid_sb.h"

#include <string.h>

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

#define SB_SIZE 148u

bool lvx_raid_sb_decode(const uint8_t *p, size_t n, struct lvx_raid_sb *o)
{
    memset(o, 0, sizeof(*o));
    if (n < SB_SIZE || get32(p) != LVX_RAID_SB_MAGIC)
        return false;
    o->compat_features = get32(p + 0x04);
    o->num_devices = get32(p + 0x08);
    o->array_position = get32(p + 0x0C);
    o->events = get64(p + 0x10);
    o->failed[0] = get64(p + 0x18);
    o->disk_recovery_offset = get64(p + 0x20);
    o->array_resync_offset = get64(p + 0x28);
    o->level = get32(p + 0x30);
    o->layout = get32(p + 0x34);
    o->stripe_sectors = get32(p + 0x38);
    if (!(o->compat_features & 1)) {        /* pre-1.9.0: the rest is not valid */
        o->reshape_position = LVX_RAID_MAX_SECTOR;
        o->new_level = o->level;
        o->new_layout = o->layout;
        o->new_stripe_sectors = o->stripe_sectors;
        return true;
    }
    o->flags = get32(p + 0x3C);
    o->reshape_position = get64(p + 0x40);
    o->new_level = get32(p + 0x48);
    o->new_layout = get32(p + 0x4C);
    o->new_stripe_sectors = get32(p + 0x50);
    o->delta_disks = (int32_t)get32(p + 0x54);
    o->array_sectors = get64(p + 0x58);
    o->data_offset = get64(p + 0x60);
    o->new_data_offset = get64(p + 0x68);
    o->sectors = get64(p + 0x70);
    for (int i = 0; i < 3; i++)
        o->failed[1 + i] = get64(p + 0x78 + 8 * i);
    o->incompat_features = get32(p + 0x90);
    return true;
}

void lvx_raid_sb_encode(const struct lvx_raid_sb *s, uint8_t *p, size_t n)
{
    memset(p, 0, n);
    put32(p, LVX_RAID_SB_MAGIC);
    put32(p + 0x04, s->compat_features);
    put32(p + 0x08, s->num_devices);
    put32(p + 0x0C, s->array_position);
    put64(p + 0x10, s->events);
    put64(p + 0x18, s->failed[0]);
    put64(p + 0x20, s->disk_recovery_offset);
    put64(p + 0x28, s->array_resync_offset);
    put32(p + 0x30, s->level);
    put32(p + 0x34, s->layout);
    put32(p + 0x38, s->stripe_sectors);
    put32(p + 0x3C, s->flags);
    put64(p + 0x40, s->reshape_position);
    put32(p + 0x48, s->new_level);
    put32(p + 0x4C, s->new_layout);
    put32(p + 0x50, s->new_stripe_sectors);
    put32(p + 0x54, (uint32_t)s->delta_disks);
    put64(p + 0x58, s->array_sectors);
    put64(p + 0x60, s->data_offset);
    put64(p + 0x68, s->new_data_offset);
    put64(p + 0x70, s->sectors);
    for (int i = 0; i < 3; i++)
        put64(p + 0x78 + 8 * i, s->failed[1 + i]);
    put32(p + 0x90, s->incompat_features);
}

bool lvx_raid_sb_failed(const struct lvx_raid_sb *sb, unsigned i)
{
    return i < 256 && (sb->failed[i / 64] >> (i % 64)) & 1;
}

void lvx_raid_sb_set_failed(struct lvx_raid_sb *sb, unsigned i, bool on)
{
    if (i >= 256)
        return;
    if (on)
        sb->failed[i / 64] |= (uint64_t)1 << (i % 64);
    else
        sb->failed[i / 64] &= ~((uint64_t)1 << (i % 64));
}

bool lvx_raid_bm_decode(const uint8_t *p, struct lvx_raid_bm *o)
{
    memset(o, 0, sizeof(*o));
    if (get32(p) != LVX_RAID_BM_MAGIC)
        return false;
    o->version = get32(p + 4);
    o->events = get64(p + 24);
    o->events_cleared = get64(p + 32);
    o->sync_size = get64(p + 40);
    o->state = get32(p + 48);
    o->chunksize = get32(p + 52);
    o->daemon_sleep = get32(p + 56);
    o->write_behind = get32(p + 60);
    return true;
}

void lvx_raid_bm_encode(const struct lvx_raid_bm *b, uint8_t *p)
{
    memset(p, 0, LVX_RAID_BM_SB_SIZE);
    put32(p, LVX_RAID_BM_MAGIC);
    put32(p + 4, b->version);
    put64(p + 24, b->events);
    put64(p + 32, b->events_cleared);
    put64(p + 40, b->sync_size);
    put32(p + 48, b->state);
    put32(p + 52, b->chunksize);
    put32(p + 56, b->daemon_sleep);
    put32(p + 60, b->write_behind);
}

const char *lvx_raid_bm_invalid(const struct lvx_raid_bm *b)
{
    if (b->version < 3 || b->version > 4)
        return "unsupported bitmap version";
    if (b->chunksize < 512 || (b->chunksize & (b->chunksize - 1)))
        return "bitmap chunk size is not a power of two of at least 512";
    if (b->daemon_sleep < 1 || b->daemon_sleep > 1000)
        return "bitmap daemon sleep out of range";
    if (b->write_behind > 16383)
        return "bitmap write-behind out of range";
    return NULL;
}

size_t lvx_raid_bm_area_bytes(uint64_t regions)
{
    uint64_t bytes = LVX_RAID_BM_SB_SIZE + (regions + 7) / 8;
    return (size_t)((bytes + 4095) / 4096 * 4096);
}

bool lvx_raid_md_level(const char *n, uint32_t copies, uint32_t *level, uint32_t *layout)
{
    static const struct {
        const char *name;
        uint32_t level, layout;
    } t[] = {
        { "raid0", 0, 0 },       { "raid1", 1, 0 },       { "raid4", 5, 4 },
        { "raid5_la", 5, 0 },    { "raid5_ra", 5, 1 },    { "raid5_ls", 5, 2 },
        { "raid5_rs", 5, 3 },    { "raid5_n", 5, 5 },     { "raid6_zr", 6, 8 },
        { "raid6_nr", 6, 9 },    { "raid6_nc", 6, 10 },   { "raid6_n_6", 6, 5 },
        { "raid6_la_6", 6, 16 }, { "raid6_ra_6", 6, 17 }, { "raid6_ls_6", 6, 18 },
        { "raid6_rs_6", 6, 19 },
    };
    if (n && !strcmp(n, "raid10")) {              /* near: copies, one far copy */
        *level = 10;
        *layout = (copies ? copies : 2) | 1u << 8;
        return true;
    }
    for (size_t i = 0; n && i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(t[i].name, n)) {
            *level = t[i].level;
            *layout = t[i].layout;
            return true;
        }
    return false;
}
