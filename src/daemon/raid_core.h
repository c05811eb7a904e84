/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/raid_core.h - what the daemon's RAID targets share (target_raid.c: raid1,
 * raid10; target_parity.c: raid4, raid5, raid6): the array and its legs, the dm-raid
 * superblock and md write-intent bitmap kept as the kernel keeps them (raid_core.c),
 * start-up (freshest superblock, dirty regions, legs to rebuild), the bitmap bits set
 * before writes and cleared after flushes, failed legs, the clean stop and the
 * status words.  A target supplies its geometry as struct raid_geom.  The resync runs
 * in the background (raid_resync.c): regions not yet in sync are synced before any
 * request touches them.
 */
#ifndef LVX_DAEMON_RAID_CORE_H
#define LVX_DAEMON_RAID_CORE_H

#include "daemon/daemon_int.h"
#include "model/raid.h"
#include "model/raid_reshape.h"
#include "model/raid_sb.h"

#define RAID_SB_BYTES 4096u         /* written at rmeta 0: superblock + zeroes */
#define RAID_COPY_BYTES (1u << 20)  /* resync buffer */
#define RAID_MAX_LEGS 64u

struct raid;

struct raid_leg {
    const struct lvx_map_prepared *data, *meta;
    bool absent;                    /* not activated (a missing PV) */
    atomic_bool failed;             /* absent, or its I/O failed */
    bool rebuild;                   /* needs a full copy at start */
    bool by_bitmap;                 /* ... or only the bitmap's regions (a raid1 leg that
                                       left while no bit was cleared: a tracked image) */
    bool writemostly;               /* raid1 WRITEMOSTLY image: read only when no other */
    bool table_rebuild;             /* the image's REBUILD flag (dm-raid's "rebuild N") */
    bool has_sb;
    struct lvx_raid_sb sb;          /* as read at start */
    uint8_t *sbuf;                  /* RAID_SB_BYTES, aligned */
};

/* The geometry of a target (mu held for both, at start). */
struct raid_geom {
    /* Resync bitmap regions [g0, g1): read from legs in `insync`, write the legs in
     * `to` (mirrors: the copies; parity: rebuilt legs, or the parity of the rows). */
    int (*sync)(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t g0,
                uint64_t g1, uint64_t insync, uint64_t to, uint8_t *buf);
    /* Every byte of the LV can still be served from the live legs? */
    bool (*covered)(const struct raid *r);
    /* --syncaction check (repair) of bitmap regions [g0, g1), every leg live: the
     * copies (mirrors) or the parity (recomputed from the data) compared, the
     * mismatched sectors added to *mism as md counts them; repair rewrites the
     * other copies from the first (mirrors) or the parity (as md).  mu held. */
    int (*check)(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t g0,
                 uint64_t g1, bool repair, uint64_t *mism, uint8_t *buf);
    /* A reshape's step (raid_reshape.c): LV sectors [lv0, lv1) read in r->rs.a (zeros
     * past its old size) and written in r->rs.b, P/Q from the data (raid10: one copy
     * read, every copy written), no bitmap bit.
     * buf holds (lv1 - lv0) sectors.  No request runs meanwhile (the LV's lock). */
    int (*reshape_copy)(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t lv0,
                        uint64_t lv1, uint8_t *buf);
};

struct raid {
    pthread_mutex_t mu;             /* bitmap, superblock writes, failing legs */
    const struct lvx_raid_type *type;
    const struct raid_geom *geom;
    char dm_name[16];
    unsigned n, copies;             /* legs; copies of a chunk (mirrors) */
    unsigned leaving;               /* the last images a stripe removal takes out (their
                                       metadata flags, model/raid.h) */
    unsigned an;                    /* legs in the array's geometry: n, or n - leaving
                                       once the removal's reshape has ended (the others
                                       kept current, not read, shown 'a' as dm-raid) */
    unsigned parity;                /* parity legs (raid4/5: 1) */
    uint32_t md_layout;             /* md's layout number (parity placement) */
    uint64_t chunk;                 /* sectors per chunk (raid1: the LV) */
    uint32_t stripe_sectors;        /* the superblock's (0 for raid1) */
    uint64_t sectors;               /* of the LV */
    uint64_t image_sectors;         /* of each rimage */
    uint64_t leg_sectors;           /* of each rimage's data: the rimage less its reshape
                                       space (LVM2's reshape_count) */
    uint64_t sync_size;             /* sectors the bitmap covers */
    uint64_t data_offset;           /* sectors into each rimage: the superblocks' (0 or
                                       past the reshape space in front) */
    bool reshaping;                 /* a reshape recorded in the superblocks: served
                                       in its two geometries (docs/reshape-user.md steps
                                       3, 4 and 6: raid4/5/6, raid10 growth) */
    struct lvx_reshape rs;          /* ... its geometries and position (pos and safe
                                       under mu; pos moves only under the LV's lock
                                       held exclusive, so a request sees it fixed) */
    bool rs_running;                /* the reshape walker moves it (raid_reshape.c) */
    bool start_req;                 /* raidreshape: start a reshape at this start
                                       (raid_reshape_start.c), with dm-raid's two
                                       transient table values: */
    int req_delta;                  /* ... delta_disks */
    uint64_t req_offset;            /* ... data_offset (sectors) */
    uint64_t io_sectors;            /* LV sectors served: the array's size as md records
                                       it (a growth: the old size until the end) */
    char reshaped[160];             /* what in the metadata says the LV was reshaped
                                       (model/raid.h): served only with superblocks */
    uint32_t region;                /* sectors per bitmap bit */
    uint64_t regions;
    unsigned lv_per_bm;             /* LV sectors per bitmap sector (parity: data legs) */
    bool started;
    uint64_t mismatches;            /* found by the last check/repair (status) */
    struct lvx_raid_sb sb;          /* the array's (freshest) superblock */
    struct lvx_raid_bm bm;
    uint8_t *area;                  /* bitmap area: superblock + bits (aligned) */
    size_t area_bytes;
    uint32_t *pending;              /* writes in flight per region */
    uint8_t *touched, *cand;        /* per region: written since / clearable at the flush */
    /* background resync (raid_resync.c); need/pos/rebuild under mu */
    uint8_t *need;                  /* per region: RAID_NEED_* still to do */
    uint8_t *wtouch;                /* per region: written since the walker's mark */
    atomic_uint_fast64_t unsynced;  /* regions with need set */
    uint64_t insync, rebuild, all;  /* leg masks: copy from, rebuilt legs, live legs */
    uint64_t pos;                   /* the walker's next region */
    uint64_t rebuild_from;          /* sync sectors: rebuilt legs in sync below (resumed) */
    uint64_t resync_mark, rebuild_mark; /* first region to resync / rebuild as of the
                                       last flush of the legs: the offsets recorded */
    bool full;                      /* a whole-array resync: its offset recorded */
    uint64_t grow_resync;           /* a raid10 growth's new space resynced after the
                                       reshape from here (sectors; md's recovery_cp =
                                       the old size): the offset recorded until done */
    bool rebuild_by_bitmap;         /* the rebuilt legs get the bitmap's regions only */
    bool walk_failed;               /* the walker stopped on an error */
    uint64_t ro_behind;             /* read-only: legs to rebuild, not read (failed in
                                       memory), shown 'a' with the sync frozen */
    uint32_t max_rate;              /* KiB/s per device (--maxrecoveryrate), 0: no limit */
    struct lvxd_lv *owner;
    pthread_t walker;
    bool walking;
    bool stop;                      /* the walker is asked to end (mu) */
    pthread_cond_t cv;              /* wakes the walker's pause (mu) */
    atomic_uint rr;                 /* read balancing */
    pthread_rwlock_t stripe_mu[64]; /* parity: rows of a stripe (by stripe % 64):
                                       writers exclusive, rebuilding readers shared */
    struct raid_leg legs[];
};

/* The common part of a RAID target's ctr: checks, legs' mappings, per-leg state.
 * The target then sets chunk, stripe_sectors, sync_size, lv_per_bm, copies/parity
 * and calls raid_core_alloc.  *out freed with raid_core_free. */
int raid_core_new(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                  bool partial, const struct raid_geom *geom, struct raid **out);
/* Bitmap area and per-region counters for r->sync_size / r->region. */
int raid_core_alloc(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct raid *r);
void raid_core_free(struct raid *r);

/* The RAID state of a served LV: its own target's, or under a snapshot-origin (a RAID
 * origin of COW snapshots) the inner target's; NULL when neither is a RAID target.
 * raid_target_of(): the target whose state it is (its rw serves the array). */
const struct lvxd_target *raid_target_of(const struct lvxd_lv *v);
struct raid *raid_of(const struct lvxd_lv *v);

static inline bool raid_leg_ok(const struct raid *r, unsigned i)
{
    return !atomic_load(&r->legs[i].failed);
}
/* A leg is failed or absent: as md, no bitmap bit is cleared (nor events_cleared
 * raised), so a leg that comes back misses only the regions whose bits are set. */
static inline bool raid_degraded(const struct raid *r)
{
    for (unsigned i = 0; i < r->n; i++)
        if (!raid_leg_ok(r, i))
            return true;
    return false;
}
/* Mark leg i failed (its bit in the superblock; logged once).  mu held. */
void raid_mark_failed_locked(struct lvxd_lv *v, struct raid *r, unsigned i, const char *why);
/* The PVs flushed (lvxd_io_flush_pvs); degraded, a PV that only failed legs use is
 * left out when its flush fails. */
int raid_flush_pvs(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r);
/* Superblock (events + 1) and bitmap to every live leg.  mu held. */
int raid_write_state_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, bool clean);

/* Before writing bitmap regions [r0, r1]: pending counts up, bits set and on disk.
 * raid_bits_end after the data is written. */
int raid_bits_begin(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t r0,
                    uint64_t r1);
void raid_bits_end(struct raid *r, uint64_t r0, uint64_t r1);

/* --- background resync (raid_resync.c) --- */
#define RAID_NEED_DIRTY 1u          /* copies/parity may differ: synced from `insync` */
#define RAID_NEED_REBUILD 2u        /* the legs in `rebuild` to be written */

/* Regions [r0, r1] synced first if they still need it (requests call this before
 * touching them; raid_bits_begin does for writes).  mu held. */
int raid_sync_gate_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t r0,
                          uint64_t r1);
/* The same for a read, taking mu only when something is still to sync. */
int raid_sync_gate(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t r0,
                   uint64_t r1);
/* The legs were flushed: the progress so far may be recorded (the offsets below).  mu */
void raid_progress_durable_locked(struct raid *r);
/* The array's resync offset as recorded (sectors; LVX_RAID_MAX_SECTOR when in sync). mu */
uint64_t raid_resync_offset_locked(const struct raid *r);
/* The rebuilt legs' recovery offset as recorded (disk_recovery_offset, the leg's own
 * sectors): every region below it is rebuilt.  mu held. */
uint64_t raid_recovery_offset_locked(const struct raid *r);
/* A recorded disk_recovery_offset (leg sectors, below MaxSector) as sectors of the
 * bitmap's span (raid10: array sectors, rounded down to what is wholly rebuilt). */
uint64_t raid_recovery_from_leg(const struct raid *r, uint64_t leg_sectors);
/* The monotonic clock (ns); a walker's sleep until `until` or a stop (mu held). */
int64_t raid_now_ns(void);
void raid_pause_locked(struct raid *r, int64_t until);
/* Start the walker when something is to sync; stop it (joined) before a stop. */
int raid_resync_spawn(struct lvxd_lv *v, struct raid *r);
/* The resync walk in the calling thread (the reshape walker's, after a raid10
 * growth: the new space); r->owner set, the thread is r->walker. */
void raid_resync_run(struct raid *r);
void raid_resync_stop(struct raid *r);
/* --- the reshape walker (raid_reshape.c) --- */
/* Start it (the reshape recorded, the LV read-write): it continues the reshape to its
 * end; stopped (joined, its position recorded) by raid_resync_stop. */
int raid_reshape_spawn(struct lvxd_lv *v, struct raid *r);
/* Record the walker's position (a write in the moved but unrecorded range waits for
 * this): the legs flushed, then every leg's superblock with reshape_position = pos.
 * Nothing to do when pos = safe.  mu held. */
int raid_reshape_checkpoint_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r);
/* A target's request of one piece served in geometry g (its read or write path). */
typedef int (*raid_piece_fn)(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                             const struct lvx_raid_geo *g, bool write, uint64_t off,
                             uint32_t len, uint8_t *buf);
/* A request of a RAID LV whose reshape is recorded, or which reaches past the array's
 * size as md records it (io_sectors), cut into pieces for `piece`: B on the moved side
 * of the position, A on the other (g0 when no reshape is recorded); past io_sectors
 * (a growth's new space until the end, a removal's old space until the second
 * lvconvert) reads give zeros and writes fail; a write into the moved but unrecorded
 * range records the position first (md's rule: a restart would copy A over it).  The
 * position moves only while no request runs (the walker holds the LV's lock). */
int raid_rw_pieces(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, bool write,
                   uint64_t off, uint32_t len, uint8_t *buf, const struct lvx_raid_geo *g0,
                   raid_piece_fn piece);

/* --- a reshape's start (raid_reshape_start.c, docs/reshape-user.md §3.5, §10) --- */
/* raid_reshape_can_start, lvxd_raid_reshape_request: daemon_int.h. */
/* At the start of the reloaded target (r->start_req, the superblocks read, `best` the
 * freshest, level/layout the metadata's): A from the superblocks, B from the metadata,
 * the offsets from req_delta/req_offset as dm-raid's rs_adjust_data_offsets; refused
 * with a reason before any write; then the legs' superblocks S1 (new legs' rmeta
 * included) and S2, each after a flush.  The caller reads the legs again: the reshape
 * is then a recorded one.  mu held. */
int raid_reshape_begin_locked(struct lvx_ctx *ctx, struct lvxd_io *io, struct lvxd_lv *v,
                              struct raid *r, int best, uint32_t level, uint32_t layout,
                              const uint8_t *areas);
/* Leg superblock s is the start's round S1 of the freshest b's reshape recorded at its
 * start (S2 half-written: completed at the next start). */
bool raid_reshape_s1_of(const struct lvx_raid_sb *s, const struct lvx_raid_sb *b);

/* " <health> <done>/<total> <action>" of the live state. */
void raid_resync_status(struct raid *r, char *out, size_t n);

/* The target hooks shared as they are. */
int raid_core_start(struct lvx_ctx *ctx, struct lvxd_lv *v);
void raid_core_dtr(struct lvxd_lv *v, void *state);
int raid_core_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len);
int raid_core_flush(struct lvxd_io *io, struct lvxd_lv *v);
void raid_core_status(struct lvxd_lv *v, char *out, size_t n);

#endif
