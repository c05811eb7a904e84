/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid_reshape.c - md's reshape of raid4/5/6 and raid10 near as a pure model
 * (model/raid_reshape.h; the facts: docs/reshape-user.md §1.2, §1.3, §3.2-§3.5).
 *
 *   raid4/5/6  a step copies `unit` = max(chunk A, chunk B) device sectors of B's
 *              rows: LV sectors [pos, pos + unit * B's data legs) (backward: below
 *              pos); the walk covers B's whole rows, [0, dev_sectors * B's data legs)
 *              (a growth's new space is written as zeros).  Checkpoint before a step
 *              when md's writepos passes its safepos while readpos is still ahead
 *              (the three shifted by the offsets' difference).
 *   raid10     stripes added (forward) or another chunk size with the same legs
 *              (either direction, by the offsets); a step is at most 64 KiB and
 *              stays in one chunk of the smaller chunk size; the walk covers the old
 *              size (md resyncs a growth's new space after the reshape); checkpoint
 *              when the last device address of B's step passes the first of A at
 *              `safe` plus the offsets' difference (backward: mirrored).
 */
#include "model/raid_reshape.h"

#include <stddef.h>

static bool pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* raid10 near: array sectors of legs of dev sectors (md's raid10_size) */
static uint64_t raid10_size(const struct lvx_raid_geo *g, uint64_t dev)
{
    return dev / g->chunk * g->legs / g->copies * g->chunk;
}

/* dir 0: the direction from the offsets, with the space checked; 1 / -1: forward /
 * backward with the data already at B's offset on every leg (the finish, F1) */
static const char *setup(struct lvx_reshape *rs, uint32_t level, const struct lvx_raid_geo *a,
                         const struct lvx_raid_geo *b, uint64_t dev_sectors, int dir)
{
    *rs = (struct lvx_reshape){ .a = *a, .b = *b, .level = level, .dev_sectors = dev_sectors };
    rs->delta_disks = (int)b->legs - (int)a->legs;
    bool r10 = level == 10;
    unsigned parity = level == 6 ? 2 : level == 5 ? 1 : 0;
    if (level != 5 && level != 6 && !r10)
        return "only raid4/5/6 and raid10 are reshaped";
    if (a->parity != parity || b->parity != parity)
        return "parity legs do not match the level";
    if (!pow2(a->chunk) || !pow2(b->chunk))
        return "chunk sizes must be powers of two";
    if (r10) {
        if (a->copies != b->copies || a->copies < 2 || b->legs > 64)
            return "raid10 keeps its number of copies";
        /* LVM2's two raid10 reshapes: stripes added (the chunk kept) and another
         * chunk size with the same legs (md picks the direction by the offsets) */
        if (b->legs < a->legs || (b->legs > a->legs && a->chunk != b->chunk))
            return "raid10 is only reshaped by adding stripes or by another chunk size";
        if (b->legs == a->legs && a->chunk == b->chunk)
            return "nothing to reshape";
        rs->unit = min64(min64(a->chunk, b->chunk), LVX_RESHAPE_RAID10_STEP);
        if (dev_sectors % max64(a->chunk, b->chunk))
            return "leg size not a multiple of the chunk";
        rs->old_sectors = raid10_size(a, dev_sectors);
        rs->new_sectors = raid10_size(b, dev_sectors);
        rs->end = rs->old_sectors;
    } else {
        unsigned min = parity == 2 ? 4 : 2;
        if (a->legs < min || b->legs < min || b->legs > 64 || a->copies != 1 || b->copies != 1)
            return "too few legs for the level";
        rs->unit = max64(a->chunk, b->chunk);
        if (dev_sectors % rs->unit)
            return "leg size not a multiple of the larger chunk";
        rs->old_sectors = dev_sectors * lvx_raid_geo_data_legs(a);
        rs->new_sectors = dev_sectors * lvx_raid_geo_data_legs(b);
        rs->end = rs->new_sectors;
        if (!rs->delta_disks && a->layout == b->layout && a->chunk == b->chunk)
            return "nothing to reshape";
    }
    if (!dev_sectors)
        return "no data";
    if (dir) {
        rs->forward = dir > 0;
        rs->pos = rs->safe = rs->forward ? rs->end : 0;
        return NULL;
    }
    if (a->data_offset == b->data_offset)
        return "no reshape space: both geometries at the same data offset";
    rs->forward = rs->delta_disks > 0 || (!rs->delta_disks && b->data_offset < a->data_offset);
    if (rs->forward != (b->data_offset < a->data_offset))
        return rs->forward ? "stripes added need the reshape space in front of the data"
                           : "stripes removed need the reshape space behind the data";
    uint64_t space = rs->forward ? a->data_offset - b->data_offset
                                 : b->data_offset - a->data_offset;
    if (r10 ? space < max64(a->chunk, b->chunk) : space < rs->unit)
        return "reshape space smaller than one step (md could not resume after a crash)";
    rs->pos = rs->safe = rs->forward ? 0 : rs->end;
    return NULL;
}

const char *lvx_reshape_init(struct lvx_reshape *rs, uint32_t level,
                             const struct lvx_raid_geo *a, const struct lvx_raid_geo *b,
                             uint64_t dev_sectors)
{
    return setup(rs, level, a, b, dev_sectors, 0);
}

const char *lvx_reshape_from_sb(struct lvx_reshape *rs, const struct lvx_raid_sb *sb,
                                uint64_t dev_sectors)
{
    if (!(sb->flags & LVX_RAID_SB_RESHAPE_ACTIVE) || sb->reshape_position == LVX_RAID_MAX_SECTOR)
        return "no reshape recorded";
    if (sb->new_level != sb->level)
        return "unsupported reshape required";
    if ((int64_t)sb->num_devices - sb->delta_disks < 1)
        return "delta_disks larger than the array";
    struct lvx_raid_geo a = { .legs = (unsigned)((int64_t)sb->num_devices - sb->delta_disks),
                              .copies = 1, .layout = sb->layout, .chunk = sb->stripe_sectors,
                              .data_offset = sb->data_offset };
    struct lvx_raid_geo b = { .legs = sb->num_devices, .copies = 1, .layout = sb->new_layout,
                              .chunk = sb->new_stripe_sectors,
                              .data_offset = sb->new_data_offset };
    if (sb->level == 10) {
        if ((sb->layout & ~0xffu) != 0x100u || sb->new_layout != sb->layout)
            return "far raid10 layouts cannot be reshaped";
        a.copies = b.copies = sb->layout & 0xffu;
    } else {
        a.parity = b.parity = sb->level == 6 ? 2 : 1;
    }
    bool back = sb->flags & LVX_RAID_SB_RESHAPE_BACKWARDS;
    bool moved = a.data_offset == b.data_offset;    /* F1: every leg's data in B */
    const char *why = setup(rs, sb->level, &a, &b, dev_sectors, moved ? (back ? -1 : 1) : 0);
    if (why)
        return why;
    if (rs->forward == back)
        return "the direction recorded does not match the data offsets";
    if (sb->reshape_position > rs->end)
        return "reshape_position past the end of the array";
    if (moved && sb->reshape_position != rs->pos)
        return "both data offsets equal before the reshape's end";
    rs->pos = rs->safe = sb->reshape_position;
    return NULL;
}

/* raid10: the first device sector that may hold LV sector s's chunk; the one after
 * the last (md's first_dev_address, last_dev_address; near layouts) */
static uint64_t r10_first_dev(uint64_t s, const struct lvx_raid_geo *g)
{
    return s / g->chunk * g->copies / g->legs * g->chunk;
}

static uint64_t r10_last_dev(uint64_t s, const struct lvx_raid_geo *g)
{
    uint64_t c = (s / g->chunk + 1) * g->copies;
    return (c + g->legs - 1) / g->legs * g->chunk;
}

const char *lvx_reshape_start_check(const struct lvx_reshape *rs, bool read_only)
{
    int64_t diff = (int64_t)rs->b.data_offset - (int64_t)rs->a.data_offset;
    if (rs->level == 10) {
        int64_t room = rs->forward ? -diff : diff;
        if (room < 0 || (uint64_t)room < max64(rs->a.chunk, rs->b.chunk))
            return "offset difference not enough to continue reshape";
        return NULL;
    }
    uint64_t cs = max64(rs->a.chunk, rs->b.chunk);
    uint64_t ndd = lvx_raid_geo_data_legs(&rs->b), odd = lvx_raid_geo_data_legs(&rs->a);
    if (rs->safe % (cs * ndd))
        return "reshape_position not on a stripe boundary";
    int64_t here_new = (int64_t)(rs->safe / (cs * ndd) * cs);
    int64_t here_old = (int64_t)(rs->safe / (cs * odd) * cs);
    uint64_t adiff = (uint64_t)(diff < 0 ? -diff : diff);
    if (!rs->delta_disks) {
        if ((adiff < rs->a.chunk || adiff < rs->b.chunk) && !read_only)
            return "in-place reshape must be started in read-only mode";
    } else if (rs->forward ? here_new >= here_old - diff : here_new + diff <= here_old) {
        return "reshape_position too early for auto-recovery";
    }
    return NULL;
}

void lvx_reshape_step(const struct lvx_reshape *rs, uint64_t *lv0, uint64_t *lv1)
{
    uint64_t len = rs->level == 10 ? rs->unit : rs->unit * lvx_raid_geo_data_legs(&rs->b);
    if (rs->forward) {
        *lv0 = rs->pos;
        *lv1 = min64(rs->pos + len, rs->end);
    } else {
        *lv1 = rs->pos;
        *lv0 = rs->pos > len ? rs->pos - len : 0;
    }
}

/* raid10: the device rows of B or A that LV range [s0, s1) (one chunk) uses */
static void r10_dev(const struct lvx_raid_geo *g, uint64_t s0, uint64_t s1, uint64_t *d0,
                    uint64_t *d1)
{
    uint64_t k = s0 / g->chunk;
    *d0 = (k * g->copies) / g->legs * g->chunk + s0 % g->chunk;
    *d1 = (k * g->copies + g->copies - 1) / g->legs * g->chunk + (s1 - 1) % g->chunk + 1;
}

void lvx_reshape_step_dev(const struct lvx_reshape *rs, uint64_t *a0, uint64_t *a1,
                          uint64_t *b0, uint64_t *b1)
{
    uint64_t lv0, lv1;
    lvx_reshape_step(rs, &lv0, &lv1);
    *a0 = *a1 = *b0 = *b1 = 0;
    if (lv1 <= lv0)
        return;
    if (rs->level == 10) {
        r10_dev(&rs->a, lv0, lv1, a0, a1);
        r10_dev(&rs->b, lv0, lv1, b0, b1);
        return;
    }
    *b0 = lv0 / lvx_raid_geo_data_legs(&rs->b);
    *b1 = *b0 + rs->unit;
    uint64_t l1 = min64(lv1, rs->old_sectors);
    if (lv0 >= l1)
        return;
    uint64_t sa = rs->a.chunk * lvx_raid_geo_data_legs(&rs->a);
    *a0 = lv0 / sa * rs->a.chunk;
    *a1 = (l1 + sa - 1) / sa * rs->a.chunk;
}

/* md's own rule (reshape_request in raid5.c / raid10.c) */
static bool md_rule(const struct lvx_reshape *rs)
{
    int64_t diff = (int64_t)rs->b.data_offset - (int64_t)rs->a.data_offset;
    if (rs->level == 10) {
        if (rs->forward) {
            int64_t next = (int64_t)r10_last_dev(rs->pos, &rs->b);
            int64_t safe = (int64_t)r10_first_dev(rs->safe, &rs->a);
            return next > safe + (diff < 0 ? -diff : 0);
        }
        int64_t next = (int64_t)r10_first_dev(rs->pos - 1, &rs->b);
        int64_t safe = rs->safe ? (int64_t)r10_last_dev(rs->safe - 1, &rs->a) : 0;
        return next + (diff > 0 ? diff : 0) < safe;
    }
    int64_t unit = (int64_t)rs->unit;
    int64_t ndd = lvx_raid_geo_data_legs(&rs->b), odd = lvx_raid_geo_data_legs(&rs->a);
    int64_t writepos = (int64_t)rs->pos / ndd, readpos = (int64_t)rs->pos / odd;
    int64_t safepos = (int64_t)rs->safe / odd;
    if (rs->forward) {
        writepos += unit;
        readpos -= readpos < unit ? readpos : unit;
        safepos -= safepos < unit ? safepos : unit;
    } else {
        writepos -= unit;
        readpos += unit;
        safepos += unit;
    }
    if (diff < 0) {
        safepos -= diff;
        readpos -= diff;
    } else {
        writepos += diff;
    }
    return rs->forward ? safepos < writepos && readpos > writepos
                       : safepos > writepos && readpos < writepos;
}

/* A's rows (absolute) that a restart from `safe` reads again: from the row of the
 * stripe holding `safe` up (forward), or below the end of that stripe (backward). */
static uint64_t needed_edge(const struct lvx_reshape *rs)
{
    const struct lvx_raid_geo *a = &rs->a;
    uint64_t s = min64(rs->safe, rs->old_sectors);
    if (rs->level == 10)
        return a->data_offset + (rs->forward ? r10_first_dev(s, a)
                                             : (s ? r10_last_dev(s - 1, a) : 0));
    uint64_t sa = a->chunk * lvx_raid_geo_data_legs(a);
    return a->data_offset + (rs->forward ? s / sa : (s + sa - 1) / sa) * a->chunk;
}

bool lvx_reshape_need_checkpoint(const struct lvx_reshape *rs)
{
    if (lvx_reshape_done(rs))
        return false;
    if (md_rule(rs))
        return true;
    /* md's rule gives up when its pessimistic readpos is behind writepos ("no way to
     * ensure safety"); with one step of reshape space that happens while a checkpoint
     * would still make the step safe.  So also: the step's B rows reach A's rows a
     * restart from safe reads. */
    uint64_t a0, a1, b0, b1, edge = needed_edge(rs);
    lvx_reshape_step_dev(rs, &a0, &a1, &b0, &b1);
    return rs->forward ? rs->b.data_offset + b1 > edge : rs->b.data_offset + b0 < edge;
}

void lvx_reshape_advance(struct lvx_reshape *rs)
{
    uint64_t lv0, lv1;
    lvx_reshape_step(rs, &lv0, &lv1);
    rs->pos = rs->forward ? lv1 : lv0;
}

enum lvx_reshape_side lvx_reshape_side(const struct lvx_reshape *rs, uint64_t s)
{
    uint64_t lv0, lv1;
    lvx_reshape_step(rs, &lv0, &lv1);
    bool win = !lvx_reshape_done(rs) && s >= lv0 && s < lv1;
    if (rs->forward)
        return s < rs->safe ? LVX_RESHAPE_MOVED : s < rs->pos ? LVX_RESHAPE_UNRECORDED
               : win        ? LVX_RESHAPE_WINDOW : LVX_RESHAPE_UNMOVED;
    return s >= rs->safe ? LVX_RESHAPE_MOVED : s >= rs->pos ? LVX_RESHAPE_UNRECORDED
           : win         ? LVX_RESHAPE_WINDOW : LVX_RESHAPE_UNMOVED;
}

unsigned lvx_reshape_map(const struct lvx_reshape *rs, uint64_t s, unsigned j,
                         uint64_t *leg_sector)
{
    const struct lvx_raid_geo *g = lvx_reshape_geo_of(rs, s);
    if (rs->level == 10) {
        uint64_t run;
        return lvx_raid_geo_copy(g, s, j, leg_sector, &run);
    }
    uint64_t stripe, off;
    unsigned leg = lvx_raid_geo_locate(g, s, &stripe, &off);
    *leg_sector = g->data_offset + stripe * g->chunk + off;
    return leg;
}

void lvx_reshape_sb_round(const struct lvx_reshape *rs, enum lvx_reshape_round round,
                          uint64_t position, struct lvx_raid_sb *sb)
{
    bool end = round == LVX_RESHAPE_F2;
    const struct lvx_raid_geo *cur = end ? &rs->b : &rs->a;
    const struct lvx_raid_geo *nxt = round == LVX_RESHAPE_S1 ? &rs->a : &rs->b;
    sb->level = sb->new_level = rs->level;
    sb->layout = cur->layout;
    sb->stripe_sectors = (uint32_t)cur->chunk;
    sb->new_layout = nxt->layout;
    sb->new_stripe_sectors = (uint32_t)nxt->chunk;
    sb->num_devices = round == LVX_RESHAPE_S1 ? rs->a.legs : rs->b.legs;
    bool active = round == LVX_RESHAPE_RUN || round == LVX_RESHAPE_F1;
    sb->flags = active ? LVX_RAID_SB_RESHAPE_ACTIVE |
                             (rs->forward ? 0 : LVX_RAID_SB_RESHAPE_BACKWARDS)
                       : 0;
    sb->delta_disks = active ? rs->delta_disks : 0;
    sb->reshape_position = round == LVX_RESHAPE_RUN  ? position
                           : round == LVX_RESHAPE_F1 ? (rs->forward ? rs->end : 0)
                                                     : LVX_RAID_MAX_SECTOR;
    /* md's array size: the smaller of the two while reshaping (a growth's new space is
     * served at the end, a shrink's is given up at the start) */
    sb->array_sectors = end                      ? rs->new_sectors
                        : round == LVX_RESHAPE_S1 ? rs->old_sectors
                                                  : min64(rs->old_sectors, rs->new_sectors);
    bool moved = round == LVX_RESHAPE_F1 || end;
    sb->data_offset = moved ? rs->b.data_offset : rs->a.data_offset;
    sb->new_data_offset = rs->b.data_offset;
    if (end && rs->level == 10 && rs->new_sectors > rs->old_sectors &&
        sb->array_resync_offset > rs->old_sectors)
        sb->array_resync_offset = rs->old_sectors;    /* the new space resynced after */
}
