/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/daemon_int.h - what the daemon's files share (not used outside
 * src/daemon/): the served LVs (volumes.c), the datapath (datapath.c), the FUSE
 * protocol threads (fuse.c), loop devices (loopdev.c), the control server
 * (control.c), process set-up (proc.c), the log (log.c), callers and private
 * files (access.c), how an LV is served (target.c and one file per target), the
 * leases held for LVs that device-mapper runs (leases.c), the watch of monitored
 * thin pools and snapshots (monitor.c; those device-mapper runs: dm_watch.c).
 */
#ifndef LVX_DAEMON_DAEMON_INT_H
#define LVX_DAEMON_DAEMON_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dev/io.h"
#include "meta/scan.h"
#include "model/model.h"
#include "util/ctx.h"

#define LVXD_MAX_IO (1u << 20)          /* FUSE max_read / max_write */
#define LVXD_DIRTY_LIMIT (256ull << 20) /* dirty pages of an LV's loop device (bdi) */
#define LVXD_READ_AHEAD_KB 16384u       /* least read-ahead of an LV's loop device */
#define LVXD_RING_ENTRIES 256
#define LVXD_MAX_PIECES 512             /* pieces of one request (4 KiB stripes: 256) */

/* --- log.c ---------------------------------------------------------------- */
void lvxd_log_open(void);
void lvxd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* ctx log callback writing to the log */
void lvxd_log_cb(void *arg, int level, const char *msg);

/* --- access.c: who may use the daemon --------------------------------------- */
/* root or the daemon's own uid */
bool lvxd_caller_allowed(uint32_t uid);
/* Log a refused request (at most one line a second). */
void lvxd_refused(const char *what, uint32_t uid, uint32_t gid, uint32_t pid);
/* open(2) a file of the run directory: no symlink, created 0600, must be a regular
 * file of ours (made 0600 if it was not).  fd or -errno. */
int lvxd_open_private(const char *path, int flags);

/* --- volumes.c: the served LVs -------------------------------------------- */
struct lvxd_pv {
    int fd;                      /* O_DIRECT, -1 for a missing PV */
    bool is_blk;
    uint32_t max_piece;          /* sectors: queue limits of the PV */
    uint32_t lbs;                /* logical block size, bytes */
    const char *path;
};

struct lvxd_target;

/* What a monitored LV is to monitor.c (and dm_watch.c's entries: no NONE there) */
enum lvxd_watch_kind { LVXD_WATCH_NONE, LVXD_WATCH_POOL, LVXD_WATCH_SNAPSHOT, LVXD_WATCH_MIRROR,
                       LVXD_WATCH_RAID };
/* Its word in the watch request and the state file ("pool", "snapshot", "mirror",
 * "raid"), and back (LVXD_WATCH_NONE: no such word). */
const char *lvxd_watch_kind_word(enum lvxd_watch_kind k);
enum lvxd_watch_kind lvxd_watch_kind_of(const char *word);

/* monitor.c's view of a monitored LV (dmeventd's plugin state) */
struct lvxd_watch {
    int32_t data_check, meta_check;  /* next step (dm_percent_t) */
    uint64_t known_data, known_meta; /* sizes the steps belong to */
    unsigned fails, max_fails;       /* a failing policy's back-off */
    bool dropped;                    /* an invalid snapshot: no longer watched */
    uint64_t dead_legs;              /* mirror, RAID: the failed legs already reported */
    bool repair_ran, sync_warned;    /* RAID: dmeventd's raid plugin's failed, warned */
    const void *layout;              /* mirror, RAID: the model they belong to (a reload,
                                      * a repair's new legs: reported afresh) */
};

struct lvxd_lv {
    uint64_t ino;                /* FUSE node id, also the fh; stable across restarts */
    char name[260];              /* the file name: dm name "<vg>-<lv>" */
    char vg[128], lv[128], uuid[LVX_UUID_LEN + 1];
    char *devices;               /* the device list, space separated (heap) */
    bool read_only;
    bool partial;                /* --activationmode partial: extents on missing PVs fail
                                    with EIO, the rest is served */
    uint64_t size;               /* bytes */
    uint32_t lbs;                /* largest PV logical block size */
    uint64_t io_min, io_opt;     /* bytes (stripe geometry) */
    /* the model, read from the devices; swapped by reload (write lock) */
    pthread_rwlock_t lock;
    struct lvx_scan *scan;
    struct lvx_vgset *set;
    const struct lvx_lv *model;
    const struct lvx_map_prepared *map;  /* model compiled once: lookups are arithmetic */
    const struct lvxd_target *target;    /* how it is served (target.c) */
    void *tstate;                /* the target's, from its ctr (freed by its dtr) */
    struct lvxd_pv *pvs;         /* by pv->index */
    unsigned pv_count;
    atomic_uint_fast64_t dirty;  /* bit i % 64: pvs[i] written since the last flush (with
                                  * more than 64 PVs a bit stands for every 64th PV:
                                  * a flush syncs them all) */
    atomic_int opens;            /* FUSE opens */
    bool dying;                  /* deactivated while open: freed at the last release */
    char loop[32];               /* "/dev/loopN" or "" */
    int loop_major, loop_minor;
    char loop_name[260];         /* the file name the loop device was attached with
                                  * (the kernel keeps it across a rename) */
    char dev_dir[256];           /* where the client made the LV's /dev links */
    int lease;                   /* shared VG: the LV's sanlock lease (meta/lockd.h), held
                                  * while served; 0: none (or borrowed, below) */
    char lease_uuid[LVX_UUID_LEN + 1];   /* the LV whose lease covers this one (a thin
                                  * LV: its pool's, shared by every served LV of the
                                  * pool and held by one of them; handed over when
                                  * that one goes), or "" */
    bool lease_shared;
    /* monitor.c: watched (lvchange --monitor y; thin pools' and snapshots' files only)
     * and its steps; under lvxd_lvs_mutex */
    bool monitored;
    struct lvxd_watch watch;
    struct lvxd_lv *next;
};

/* All served LVs; the mutex guards the list (not the LVs' data paths). */
extern pthread_mutex_t lvxd_lvs_mutex;
extern struct lvxd_lv *lvxd_lvs;

/* Flags of an activation (the FLAGS word of the protocol, the state file). */
#define LVXD_FLAG_RO 1u          /* read-only */
#define LVXD_FLAG_PARTIAL 2u     /* missing PVs allowed: their extents fail with EIO */
#define LVXD_FLAG_LOCK_SH 4u     /* shared VG: the LV's lease shared (-asy), else exclusive */
#define LVXD_FLAG_MONITOR 8u     /* the state file: the LV is monitored (monitor.c) */
#define LVXD_FLAG_NOSYNC 16u     /* a mirror: its new regions in sync (dm-log's "nosync" of
                                  * a first table: the mirror lvconvert --splitmirrors N
                                  * makes of in-sync images) */

/* Read the VG from devs (space separated), open the LV's PVs, add it as a file.
 * flags: LVXD_FLAG_*.  ino 0: a new node id.  *out the LV (already served: the
 * existing one). */
int lvxd_volume_add(struct lvx_ctx *ctx, const char *vg, const char *lv, const char *uuid,
                    unsigned flags, const char *devs, uint64_t ino, struct lvxd_lv **out);
/* Read the VGs of devs (space separated device names): *scan and *set, freed by the
 * caller (lvx_vgset_free, lvx_scan_free) also after a failure. */
int lvxd_read_vgs(struct lvx_ctx *ctx, const char *devs, struct lvx_scan **scan,
                  struct lvx_vgset **set);
/* Re-read the metadata (resize): the new size and mapping become live.  reshape
 * (NULL: none): a raidreshape request, {delta_disks, data_offset} handed to the
 * reloaded RAID target's start (lvxd_raid_reshape_request). */
int lvxd_volume_reload(struct lvx_ctx *ctx, struct lvxd_lv *v, const char *devs,
                       const int64_t *reshape);
/* Remove from the list; freed now, or at the last release when open. */
void lvxd_volume_remove(struct lvxd_lv *v);
struct lvxd_lv *lvxd_volume_find(const char *vg, const char *lv);
/* By node id, taking an open reference (NULL when unknown or dying). */
struct lvxd_lv *lvxd_volume_get(uint64_t ino, bool open);
void lvxd_volume_put(struct lvxd_lv *v);
/* Fill the file name of vg/lv (dm name).  -ENAMETOOLONG. */
int lvxd_volume_name(char *out, size_t n, const char *vg, const char *lv);
/* (Re)attach the loop device of v to its file; nr: wanted loop number or -1. */
int lvxd_volume_attach(struct lvx_ctx *ctx, struct lvxd_lv *v, const char *mount_dir, int nr);
/* v's loop device is bound to v's file of the mount at mount_dir (by the kernel's
 * backing file, not by the device's name). */
bool lvxd_volume_loop_ours(const struct lvxd_lv *v, const char *mount_dir);

/* --- leases.c: leases held for LVs that device-mapper runs (no serving) ---------- */
/* Read vg/lv from devs (UUID uuid) and hold its lease (flags LVXD_FLAG_LOCK_SH: shared);
 * *taken: a new entry (false: vg/lv had one already, nothing changed).  LVM2's
 * "LV locked by other host" (-EAGAIN) when another host holds it. */
int lvxd_lease_take(struct lvx_ctx *ctx, const char *vg, const char *lv, const char *uuid,
                    unsigned flags, const char *devs, bool *taken);
/* Release vg/lv's entry (its lease, unless another entry shares it); false: none. */
bool lvxd_lease_drop(const char *vg, const char *lv);
unsigned lvxd_lease_count(void);

/* --- monitor.c: dmeventd's thin pool and snapshot watch ----------------------------- */
/* Start the watching thread (worker start). */
void lvxd_monitor_start(void);
/* Wake it: a target's usage moved on (a pool out of space, 5% more handed out). */
void lvxd_monitor_kick(void);
/* Watch v or stop (lvchange --monitor); -EINVAL when v is neither the file of a thin
 * pool nor a snapshot's. */
int lvxd_monitor_set(struct lvx_ctx *ctx, struct lvxd_lv *v, bool on);
/* v is a thin pool's, a snapshot's, a mirror's or a RAID LV's file (can be monitored). */
bool lvxd_monitorable(const struct lvxd_lv *v);
/* Log "Monitoring thin pool|snapshot NAME." (on) or "No longer monitoring ..." (for a
 * mirror or RAID LV dmeventd's plugins' "Monitoring mirror|RAID device NAME for
 * events."). */
void lvxd_monitor_log_change(enum lvxd_watch_kind k, const char *name, bool on);

/* --- dm_watch.c: monitored thin pools, snapshots, mirrors and RAID LVs that
 * device-mapper runs ------------------------------------------------------------- */
/* Watch vg/lv of kind k (a pool: its thin-pool device dm_name; else the LV's own
 * device) whose device has dm UUID dm_uuid; the policy runs with DM_DEV_DIR dev_dir.
 * Watched already under the same device: its steps kept. */
int lvxd_dm_watch_add(struct lvx_ctx *ctx, const char *vg, const char *lv,
                      enum lvxd_watch_kind k, const char *dm_name, const char *dm_uuid,
                      const char *dev_dir);
/* Stop watching vg/lv; false: it was not. */
bool lvxd_dm_watch_drop(const char *vg, const char *lv);
bool lvxd_dm_watched(const char *vg, const char *lv);
/* One watched device as the monitor sees it (valid during the callback only). */
struct lvxd_dm_look {
    const char *vg, *lv, *name, *dev_dir;
    enum lvxd_watch_kind kind;
    uint64_t sectors;            /* the device's length */
    /* as the daemon's targets word it: " thin-pool ...", " snapshot VALID USED TOTAL
     * META", " mirror IN/REGIONS HEALTH[ log L] devs M:m...[ M:m]" (the images' and
     * then the disk log's devices), " raid HEALTH DONE/TOTAL ACTION" */
    const char *status;
    const char *raid_type;       /* a RAID LV's: the kernel's type word ("raid1") */
    struct lvxd_watch *watch;
};
/* fn for every watched device whose status was read (the list's mutex held: fn must
 * not call back here); entries whose device is gone are dropped.  A status is read
 * for a new entry, one whose device raised an event, and at a poll tick (tick) one
 * whose underlying devices wrote since its last read. */
void lvxd_dm_watch_scan(bool tick, void (*fn)(const struct lvxd_dm_look *look, void *arg),
                        void *arg);
struct lvx_dm;
/* Mark the entries whose device raised an event since their last read (or went);
 * their number, -1 when nothing is watched (dm_events.c, after each device-mapper
 * event).  dm NULL: only -1 or 0 (is anything watched?). */
int lvxd_dm_watch_events(struct lvx_ctx *ctx, struct lvx_dm *dm);
/* --- dm_events.c: the thread that waits for device-mapper events ------------------- */
/* Start it (worker start); poll_secs: the fallback's period where the kernel cannot
 * be polled. */
void lvxd_dm_events_start(int poll_secs);
/* An entry was added or dropped (dm_watch.c): the thread asks again at once (and
 * closes the control device when nothing is watched any more). */
void lvxd_dm_events_wake(void);
/* fn on vg/lv's watch state (under the list's mutex), when watched. */
void lvxd_dm_watch_update(const char *vg, const char *lv,
                          void (*fn)(struct lvxd_watch *w, void *arg), void *arg);

/* The watch lines of the state file (restore.c); a line that is one ("watch ...")
 * is watched again (true; a bad one is logged). */
void lvxd_dm_watch_save(FILE *f);
bool lvxd_dm_watch_load_line(struct lvx_ctx *ctx, const char *line);

/* --- restore.c: the state file and a restarted daemon ----------------------- */
/* Write the state file (every served LV). */
void lvxd_state_save(void);
/* Serve the LVs of the state file again (daemon or worker start), before the
 * FUSE threads run: requests the kernel resends find them.  Count restored. */
unsigned lvxd_state_load(struct lvx_ctx *ctx);
/* After the FUSE threads started.  new_mount (a new daemon): bind the restored
 * LVs' loop devices to the new files (re-bind read-only ones, else release the
 * old device and attach a new one; a device not bound to our file is never
 * touched).  Always: every restored LV's /dev links point at the loop device
 * bound to its file or are removed, those of LVs that could not be restored are
 * removed.  Then saves the state. */
void lvxd_state_settle(struct lvx_ctx *ctx, const char *mount_dir, bool new_mount);

/* --- datapath.c: one per FUSE thread --------------------------------------- */
/* The I/O seam of the daemon (every PV open, read, write, flush): set once by
 * lvx_daemon_serve() before any thread starts; the default ops until then. */
void lvxd_use_ops(const struct lvx_dev_ops *ops);
const struct lvx_dev_ops *lvxd_ops(void);

struct lvxd_io {
    const struct lvx_dev_ops *ops;
    struct lvx_io_queue *queue;  /* the thread's (ops->queue_open, LVXD_RING_ENTRIES) */
    struct lvx_ctx ctx;
    struct lvx_io_op *pieces;    /* LVXD_MAX_PIECES; op.dev = the PV's index */
    int err_dev;                 /* the last failed run(): the PV index, or -1 */
    uint64_t err_off;            /* ... and the byte on it */
    /* PVs the pieces being run write (lvxd_io_mark_written): set in *written_lv's dirty
     * bits again when the run ends, so that a flush racing with the writes (it took
     * the bits set before they were submitted) leaves them for the next flush */
    atomic_uint_fast64_t *written_lv;
    uint_fast64_t written;
    bool fua;                    /* lvxd_io_map_add's writes durable when done
                                  * (LVX_IO_WRITE_FUA): set around one use */
};

int lvxd_io_init(struct lvxd_io *io);
void lvxd_io_exit(struct lvxd_io *io);
/* LVXD_MAX_IO zero bytes, page aligned, the source of the targets' zeroing writes
 * (never written): an anonymous mapping made on first use, so that a command, which
 * never zeroes through a target, has no megabyte of zeroes in its data (a sanitizer's
 * leak check scans every writable global at exit).  NULL when it cannot be mapped. */
uint8_t *lvxd_zeroes(void);
/* What the FUSE threads call: v's read lock held, the target's rw/zero/flush, a
 * failure logged.  Read/write len bytes at LV offset off (both multiples of the LV's
 * block size) from/to buf (aligned).  0 or -errno. */
int lvxd_io_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off, uint32_t len,
               uint8_t *buf);
/* The target's flush (default: lvxd_io_flush_pvs). */
int lvxd_io_flush(struct lvxd_io *io, struct lvxd_lv *v);
/* Zero [off, off+len) of the LV (clipped at its end). */
int lvxd_io_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len);
/* Discard [off, off+len) (a punched hole: reads as zeroes after; the target's discard,
 * else its zero). */
int lvxd_io_discard(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len);

/* For targets (v's lock held by the caller).  Append the pieces of [off, off+len)
 * (bytes) of map (v->map, or a sub-LV's prepared mapping) to the batch of *n pieces
 * in io, running the batch first when it could overflow; written PVs are marked
 * dirty.  Zero areas read as zeroes; error areas and missing PVs give -EIO. */
int lvxd_io_map_add(struct lvxd_io *io, struct lvxd_lv *v, const struct lvx_map_prepared *map,
                    bool write, uint64_t off, uint32_t len, uint8_t *buf, unsigned *n);
/* Run the batch of n pieces (all in flight together; short ones continued). */
int lvxd_io_run(struct lvxd_io *io, unsigned n);
/* The batch writes PV idx of v: v's dirty bit for it set now and again when the run
 * ends (a flush syncs only what completed before it started). */
void lvxd_io_mark_written(struct lvxd_io *io, struct lvxd_lv *v, unsigned idx);
/* Zero [off, off+len) of map: every PV range in parallel (block devices: fallocate
 * ZERO_RANGE = write-zeroes; files: PUNCH_HOLE). */
int lvxd_io_map_zero(struct lvxd_io *io, struct lvxd_lv *v, const struct lvx_map_prepared *map,
                     uint64_t off, uint64_t len);
/* fdatasync every PV written since the last flush (all at once). */
int lvxd_io_flush_pvs(struct lvxd_io *io, struct lvxd_lv *v);

/* --- legs_flush.c: the flush of an LV with redundant legs, without a lost disk ---- */
/* The dirty bits (v->dirty: PV index % 64) of the PVs map's PV areas lie on (0: NULL). */
uint64_t lvxd_map_pv_bits(const struct lvx_map_prepared *map);
/* lvxd_io_flush_pvs; while it fails, gone(arg, PV index whose datasync failed, or -1)
 * returns the bits of the PVs that only failed legs use (the target may fail the legs
 * on that PV first); those still dirty are dropped and the rest flushed again (a lost
 * disk's datasync fails for ever).  Nothing more to drop: the failure stands. */
int lvxd_io_flush_live_pvs(struct lvxd_io *io, struct lvxd_lv *v,
                           uint64_t (*gone)(void *arg, int failed_pv), void *arg);

/* --- target.c: how an LV is served (a dm target's shape) ----------------------- */
struct lvx_pool;
struct lvx_map_prepared;
struct lvxd_target {
    const char *name;
    /* this target serves lv (its segment types) */
    bool (*serves)(const struct lvx_lv *lv);
    /* Validate lv once and compile it: *map (in pool, freed with the model; may
     * stay NULL) and *state (freed by dtr).  Refusals are one lvx_error line. */
    int (*ctr)(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
               bool partial, const struct lvx_map_prepared **map, void **state);
    /* optional: after the PVs are open and v holds the new model (add, reload under
     * the write lock), e.g. to read on-disk state; a failure fails the activation */
    int (*start)(struct lvx_ctx *ctx, struct lvxd_lv *v);
    /* optional: at a reload, before the old model goes (its dtr) and the new state
     * starts: what the new state takes over from the old model and the old target's
     * state (state from ctr) */
    void (*adopt)(void *state, const struct lvx_lv *lv, const struct lvx_lv *old,
                  const struct lvxd_target *old_target, void *old_state);
    /* optional: free what ctr/start made (before the PVs close; v is NULL when the
     * activation failed before v was made) */
    void (*dtr)(struct lvxd_lv *v, void *state);
    int (*rw)(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off, uint32_t len,
              uint8_t *buf);
    int (*zero)(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len);
    /* optional (default zero): a discard, which a target may refuse (-EOPNOTSUPP) */
    int (*discard)(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len);
    /* optional (default lvxd_io_flush_pvs) */
    int (*flush)(struct lvxd_io *io, struct lvxd_lv *v);
    /* optional: words appended to the status reply (" snapshot ...", " raid AD 16384/16384
     * idle"; v's read lock held) */
    void (*status)(struct lvxd_lv *v, char *out, size_t n);
};
extern const struct lvxd_target lvxd_target_plain;
/* raid_core.c: `--syncaction check|repair` of a served RAID LV, run to its end (its
 * mismatch count then in the status).  0 or -errno (message in ctx). */
int lvxd_raid_check(struct lvx_ctx *ctx, struct lvxd_lv *v, bool repair);
/* raidreshape (daemon/raid_reshape_start.c): the served RAID LV can start a reshape
 * (checked before its reload, nothing written); the reloaded target starts one with
 * dm-raid's delta_disks and data_offset at its start. */
int raid_reshape_can_start(struct lvx_ctx *ctx, struct lvxd_lv *v);
int lvxd_raid_reshape_request(struct lvx_ctx *ctx, struct lvxd_lv *v, int delta, uint64_t offset);
/* target_mirror.c: hold (on) a served mirror's disk or mirrored log all out of sync on
 * disk, written and flushed now and at every later log write until the next reload,
 * whose new state takes the real bits over (adopt); or release it (off).  0 or -errno
 * (message in ctx). */
int lvxd_mirror_hold_log(struct lvx_ctx *ctx, struct lvxd_lv *v, bool on);
/* target_mirror.c: a mirror state just made (tstate of its ctr, not started): its new
 * regions (all of a core log's) start in sync, as a NOTSYNCED mirror's (LVXD_FLAG_NOSYNC). */
void lvxd_mirror_assume_synced(void *tstate);
/* target_snapshot.c: one step of the merge of an origin's merging snapshot: up to
 * max chunks copied back to the origin and their records dropped; *left: records
 * still to merge.  0 or -errno (message in ctx). */
int lvxd_snapshot_merge(struct lvx_ctx *ctx, struct lvxd_lv *v, unsigned max, uint64_t *left);
/* target_snapshot.c: the snapshot-origin target, and the target serving the data of an
 * origin it stacks over (a RAID origin: raid1/raid10 or raid4/5/6, or an old-style
 * mirror origin, as dm's -real layer): that target and its state (from its ctr) through *state, or NULL when v is
 * not served as such an origin.  v's lock held. */
extern const struct lvxd_target lvxd_target_origin;
const struct lvxd_target *lvxd_origin_inner(const struct lvxd_lv *v, void **state);
/* target_pvmove.c: an LV with extents under a pvmove (writes to both legs) */
extern const struct lvxd_target lvxd_target_pvmove;
/* Copy sectors [off, off+sectors) of the pvmove segment starting at extent mv_le of
 * the pvmove LV from its leg 0 to its leg 1, against v's concurrent writes (region
 * buckets); flush: then fdatasync the written PVs.  0 or -errno (message in ctx). */
int lvxd_pvmove_copy(struct lvx_ctx *ctx, struct lvxd_lv *v, uint64_t mv_le, uint64_t off,
                     uint64_t sectors, bool flush);
/* target_pvmove.c too: an LV being restriped (model/restripe.h): writes to both its
 * committed and its future layout; the copy of LV sectors [off, off+sectors) from the
 * one to the other, against v's writes */
extern const struct lvxd_target lvxd_target_restripe;
int lvxd_restripe_copy(struct lvx_ctx *ctx, struct lvxd_lv *v, uint64_t off, uint64_t sectors,
                       bool flush);
extern const struct lvxd_target lvxd_target_raid;     /* target_raid.c: raid1, raid10 */
extern const struct lvxd_target lvxd_target_parity;   /* target_parity.c: raid4/5/6 */
/* target_mirror.c: old-style mirrors (dm-raid1 + dm-log's core or disk log) */
extern const struct lvxd_target lvxd_target_mirror;
/* target_thin.c: thin LVs and thin pools over the pool's kernel-format metadata */
extern const struct lvxd_target lvxd_target_thin;
/* Messages to the served thin pool vg/pool (create_thin, create_snap, delete), then
 * set_transaction_id old_tid new_tid (the metadata must be at old_tid), committed.
 * -ENOENT (no message) when the pool is not served; else 0 or -errno (message). */
int lvxd_thin_message(struct lvx_ctx *ctx, const char *vg, const char *pool, uint64_t old_tid,
                      uint64_t new_tid, const char *const *msgs, unsigned n);
/* target_thin.c too: thin LV lv served by another target (the origin of COW snapshots,
 * target_snapshot.c), as the thin target serves it.  ctr in the model's pool (lv stays
 * there until dtr); start takes its pool object (v: the file whose PVs the data goes
 * through: the pool's _tdata and the external origin open); rw, zero (write-zeroes),
 * flush (v's PVs synced, the pool's transaction committed) and status (" thin
 * MAPPED_SECTORS") as the thin target's own.  v's lock held by the caller. */
struct lvxd_thin_dev;
int lvxd_thin_dev_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                      bool partial, struct lvxd_thin_dev **out);
int lvxd_thin_dev_start(struct lvx_ctx *ctx, struct lvxd_lv *v, struct lvxd_thin_dev *d);
void lvxd_thin_dev_dtr(struct lvxd_lv *v, struct lvxd_thin_dev *d);
int lvxd_thin_dev_rw(struct lvxd_io *io, struct lvxd_lv *v, const struct lvxd_thin_dev *d,
                     bool write, uint64_t off, uint32_t len, uint8_t *buf);
int lvxd_thin_dev_zero(struct lvxd_io *io, struct lvxd_lv *v, const struct lvxd_thin_dev *d,
                       uint64_t off, uint64_t len);
int lvxd_thin_dev_flush(struct lvxd_io *io, struct lvxd_lv *v, const struct lvxd_thin_dev *d);
void lvxd_thin_dev_status(const struct lvxd_thin_dev *d, char *out, size_t n);
/* The pool's thin device a served thin LV maps, or -1 (no thin LV). */
int64_t lvxd_thin_dev_mapped_id(const struct lvxd_lv *v);
/* The target serving lv (never NULL: the plain one is last). */
const struct lvxd_target *lvxd_target_for(const struct lvx_lv *lv);

/* --- fuse.c: the FUSE threads ------------------------------------------------ */
/* Mount a FUSE file system for /dev/fuse fd at dir.  0 or -errno. */
int lvxd_fuse_mount(int fd, const char *dir);
/* A new unix stream socket (close-on-exec) and the address of the daemon's control
 * socket in sa (its path in path, PATH_MAX bytes): the fd, or -errno. */
struct sockaddr_un;
int lvxd_control_socket(struct sockaddr_un *sa, char *path);

/* FUSE over io_uring as LVX_FUSE_URING asks: LVXD_URING_OFF ("0": /dev/fuse
 * reads), LVXD_URING_WORKER ("worker": rings of the worker, which die with it:
 * the supervisor then aborts the connection and serves on a new one) or
 * LVXD_URING_KEPT (default: rings of the supervisor, adopted by a new worker). */
enum { LVXD_URING_OFF, LVXD_URING_WORKER, LVXD_URING_KEPT };
int lvxd_fuse_uring_mode(void);
/* The FUSE-over-io_uring rings and ring entry buffers for nthreads FUSE threads
 * (fuse_ring.c): kept (SQPOLL rings, made by the supervisor before the first
 * fork: they outlive the workers) or the worker's own; nothing when they
 * cannot be made (/dev/fuse reads). */
void lvxd_fuse_rings_make(unsigned nthreads, bool kept);
/* True when the supervisor made rings that outlive the workers. */
bool lvxd_fuse_rings_kept(void);
/* Start nthreads threads serving fd (all memory allocated here or by
 * lvxd_fuse_rings_make()).  restarted: the connection was initialised by a
 * previous worker (resend its /dev/fuse requests; when it used io_uring, adopt
 * its ring entries).  *uring_used (memory shared with the supervisor) is set
 * before INIT is answered with FUSE over io_uring. */
int lvxd_fuse_start(int fd, unsigned nthreads, bool restarted, volatile int *uring_used);
/* In a child forked by the worker: drop its copy of the /dev/fuse fd (a child stuck
 * in a request must not keep a dead connection from being aborted). */
void lvxd_fuse_close_in_child(void);
/* End the connection of fd mounted at dir: fusectl's abort when mounted, close(fd)
 * (the last /dev/fuse reference: the kernel aborts), the mount detached.  Every
 * request not answered fails (the loop devices' I/O with EIO). */
void lvxd_fuse_abort(int fd, const char *dir);
/* Stop serving: threads exit after the unmount. */
void lvxd_fuse_join(void);
/* Log how many requests went through each transport (io_uring, /dev/fuse). */
void lvxd_fuse_log_counts(void);
/* Raise the read-ahead of the mount's bdi. */
void lvxd_fuse_tune_bdi(const char *dir);

/* --- loopdev.c --------------------------------------------------------------- */
/* Attach file (path) to a free loop device (direct I/O, block size lbs). */
int lvxd_loop_attach(struct lvx_ctx *ctx, const char *file, bool ro, uint32_t lbs,
                     int want_nr, char *dev, size_t devlen, int *major, int *minor);
/* Detach; -EBUSY when open and not force (force: detach at the last close). */
int lvxd_loop_detach(struct lvx_ctx *ctx, const char *dev, bool force);
/* Is the loop device held (mounted or opened exclusively)? */
bool lvxd_loop_busy(const char *dev);
/* Does a process other than the daemon and `except` (the requesting command, whose
 * own reads of the device do not count) hold block device maj:min open (a file
 * descriptor of it in /proc/PID/fd)?  What the kernel's open count tells for a dm
 * device, which a loop device does not show; a scan of /proc, for deactivation. */
bool lvxd_loop_opened(int maj, int min, pid_t except);
/* The open count the status reports for loop device dev (maj:min): the descriptors
 * lvxd_loop_opened() looks for, or 1 when there are none but the device is held (a
 * mounted file system).  LVM2's dm open count, which counts every open. */
unsigned lvxd_loop_open_count(const char *dev, int maj, int min, pid_t except);
/* Is the loop device (an LV's) a PV of another LV the daemon serves (stacked.c)? */
bool lvxd_loop_stacked(const char *loop);
/* The loop device dev is attached (any file). */
bool lvxd_loop_attached(const char *dev);
/* The backing file of loop device dev as the kernel shows it
 * (/sys/block/loopN/loop/backing_file) into out: 0, or -errno (not attached). */
int lvxd_loop_backing(const char *dev, char *out, size_t n);
/* Bind a read-only loop device to a new file (LOOP_CHANGE_FD). */
int lvxd_loop_change_fd(struct lvx_ctx *ctx, const char *dev, const char *file);
/* Set the read-ahead of a loop device (sectors). */
void lvxd_loop_read_ahead(const char *dev, unsigned long sectors);
/* Set the largest request of loop device maj:min (queue/max_sectors_kb, KiB; 0 = the
 * kernel's default), best effort (a warning in the log when refused). */
void lvxd_loop_max_request(int maj, int min, unsigned kb);
/* A dirty page limit of the loop device's own (its bdi's max_bytes and strict_limit),
 * best effort (a warning in the log when refused). */
void lvxd_loop_dirty_limit(int maj, int min, uint64_t bytes);
/* stat(2) of one of our FUSE files (from a child process: the kernel then asks
 * the daemon for its attributes, e.g. the new size before LOOP_SET_CAPACITY). */
int lvxd_file_stat(struct lvx_ctx *ctx, const char *file);
/* Tell the loop device that the file size changed. */
int lvxd_loop_set_capacity(struct lvx_ctx *ctx, const char *dev);

/* --- proc.c: process set-up --------------------------------------------------- */
/* mlockall (unless sanitized or LVX_DAEMON_NO_MLOCK), oom_score_adj -1000,
 * PR_SET_IO_FLUSHER, move out of a memory-limited cgroup.  Warnings logged. */
void lvxd_proc_harden(void);
bool lvxd_proc_mlock(void);

/* --- control.c ----------------------------------------------------------------- */
/* Serve the control socket until a stop request; returns the exit code. */
int lvxd_control_loop(int listen_fd, const char *mount_dir);
extern pid_t lvxd_supervisor_pid;

#endif
