/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid_reshape.h - a RAID reshape as md runs it (docs/reshape-user.md §1-§3):
 * the old geometry A and the new B of raid4/5/6 (any layout, stripe count or chunk
 * change) and raid10 near (stripes added, or another chunk size), the direction
 * and data offsets, md's step ("unit"), its checkpoint rule, its start checks,
 * which geometry serves an LV sector at a given position (moved, moved but
 * unrecorded, the window, not moved), and the dm-raid superblock fields of each
 * round of a reshape (§3.4, §3.5).
 * Pure: no devices, no allocation.  The daemon's reshape (steps 3-6 of the plan)
 * builds on it; tests/unit/test_raid_reshape.c simulates whole reshapes with a
 * crash after every write.
 *
 * Units: positions and LV ranges are array (LV) sectors, md's reshape_position;
 * device ranges are sectors of a leg relative to the geometry's data offset.
 */
#ifndef LVX_MODEL_RAID_RESHAPE_H
#define LVX_MODEL_RAID_RESHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/raid_geo.h"
#include "model/raid_sb.h"

#define LVX_RESHAPE_RAID10_STEP 128u    /* md raid10's RESYNC_BLOCK_SIZE in sectors */
#define LVX_RAID_SB_RESHAPE_ACTIVE 0x1u /* superblock flags */
#define LVX_RAID_SB_RESHAPE_BACKWARDS 0x2u

struct lvx_reshape {
    struct lvx_raid_geo a, b;       /* old and new geometry (data offsets included) */
    uint32_t level;                 /* md level: 4, 5, 6 or 10 */
    int delta_disks;                /* b.legs - a.legs */
    bool forward;                   /* from LV sector 0 up (else from the end down) */
    uint64_t dev_sectors;           /* data sectors of each leg (md's dev_sectors) */
    uint64_t unit;                  /* raid4/5/6: device sectors per step, max of the
                                       chunks (md's reshape_sectors); raid10: LV
                                       sectors per step (64 KiB cut at the smaller chunk) */
    uint64_t old_sectors, new_sectors;  /* array sectors before and after */
    uint64_t end;                   /* the walk covers LV sectors [0, end) */
    uint64_t pos;                   /* md's reshape_progress: the walker's position */
    uint64_t safe;                  /* md's reshape_safe: the position on disk */
};

/* Set up a reshape from A to B of an array at its start (pos = safe = 0 forward, the
 * end backward).  Direction as dm-raid's rs_adjust_data_offsets: stripes added:
 * forward, removed: backward, same count: forward when B's data offset is below A's.
 * NULL, or why md could not run it (another level, raid10 copies or stripes removed
 * or stripes added with another chunk, a chunk that does not divide dev_sectors,
 * reshape space smaller than one step (a crash could not be recovered: md's in-place
 * case), ...). */
const char *lvx_reshape_init(struct lvx_reshape *rs, uint32_t level,
                             const struct lvx_raid_geo *a, const struct lvx_raid_geo *b,
                             uint64_t dev_sectors);

/* The reshape a superblock records (RESHAPE_ACTIVE set): A from level/layout/
 * stripe_sectors/num_devices - delta_disks/data_offset, B from the new_* fields,
 * num_devices and new_data_offset, direction from the flags, pos = safe =
 * reshape_position.  NULL, or md's or the model's reason ("unsupported reshape
 * required", ...). */
const char *lvx_reshape_from_sb(struct lvx_reshape *rs, const struct lvx_raid_sb *sb,
                                uint64_t dev_sectors);

/* md's checks before it resumes a recorded reshape (raid5_run, raid10_run): NULL, or
 * md's message ("reshape_position not on a stripe boundary", "reshape_position too
 * early for auto-recovery", "in-place reshape must be started in read-only mode",
 * "offset difference not enough to continue reshape").  read_only: the array starts
 * read-only (dm-raid's arrays do). */
const char *lvx_reshape_start_check(const struct lvx_reshape *rs, bool read_only);

static inline bool lvx_reshape_done(const struct lvx_reshape *rs)
{
    return rs->forward ? rs->pos >= rs->end : rs->pos == 0;
}

/* The next step's LV range [*lv0, *lv1) (forward from pos, backward below pos). */
void lvx_reshape_step(const struct lvx_reshape *rs, uint64_t *lv0, uint64_t *lv1);

/* The device ranges (relative to each geometry's data offset) of the next step: the
 * rows of A it reads (empty when the step lies past A's end) and of B it writes. */
void lvx_reshape_step_dev(const struct lvx_reshape *rs, uint64_t *a0, uint64_t *a1,
                          uint64_t *b0, uint64_t *b1);

/* md's rule: must the position be recorded before the next step is copied (its B
 * writes would reach A's rows that a restart from `safe` reads)? */
bool lvx_reshape_need_checkpoint(const struct lvx_reshape *rs);

/* The step is copied: pos moves past it. */
void lvx_reshape_advance(struct lvx_reshape *rs);

enum lvx_reshape_side {
    LVX_RESHAPE_MOVED,              /* in B, recorded: served by B */
    LVX_RESHAPE_UNRECORDED,         /* in B and still in A, not recorded: reads by B,
                                       a write needs a checkpoint first */
    LVX_RESHAPE_WINDOW,             /* the next step: held while it is copied */
    LVX_RESHAPE_UNMOVED,            /* in A only: served by A */
};
enum lvx_reshape_side lvx_reshape_side(const struct lvx_reshape *rs, uint64_t lv_sector);

/* The geometry that holds LV sector s now: B on the moved side of pos, else A. */
static inline const struct lvx_raid_geo *lvx_reshape_geo_of(const struct lvx_reshape *rs,
                                                            uint64_t s)
{
    return (rs->forward ? s < rs->pos : s >= rs->pos) ? &rs->b : &rs->a;
}

/* Where LV sector s lives now (copy j for raid10, ignored for parity): its leg and
 * its rimage sector (the geometry's data offset included). */
unsigned lvx_reshape_map(const struct lvx_reshape *rs, uint64_t s, unsigned j,
                         uint64_t *leg_sector);

/* The superblock rounds of a reshape (§3.4, §3.5); each sets the reshape fields of sb
 * (the leg's other fields, events and array_position are the caller's):
 *   S1   no reshape recorded, A's geometry, data_offset A's, new_data_offset B's;
 *   RUN  reshape recorded at `position` (S2: the start; then every checkpoint);
 *   F1   reshape recorded at the end, both offsets B's;
 *   F2   finished: B's geometry, no reshape, both offsets B's, the new size. */
enum lvx_reshape_round { LVX_RESHAPE_S1, LVX_RESHAPE_RUN, LVX_RESHAPE_F1, LVX_RESHAPE_F2 };
void lvx_reshape_sb_round(const struct lvx_reshape *rs, enum lvx_reshape_round round,
                          uint64_t position, struct lvx_raid_sb *sb);

#endif
