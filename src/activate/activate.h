/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/activate.h - making LVs usable as block devices: ONE interface for
 * every activation backend.
 *
 *   dm    the kernel device-mapper (activate/dm_backend.c): devices named, UUID'd
 *         and tabled exactly as LVM2 does (format §15), so either tool can manage
 *         what the other activated;
 *   user  the lvx daemon's user-space datapath (io_uring over the PVs) exported
 *         as a FUSE file behind a loop device (activate/user_backend.c), for
 *         machines without device-mapper.
 *
 * Choosing: lvx_activation_choose() takes, in order, the name forced by the
 * caller (an option), lvm.conf `global/activation = 0` (none, as in LVM2: it
 * wins over the environment), the environment variable LVX_ACTIVATION_BACKEND
 * (dm|user|none), then the first backend whose probe says it is usable here
 * (dm: when /dev/mapper/control answers DM_VERSION).
 *
 * Backends act on one LV of the model (top-level linear/striped/error/zero LVs;
 * lvx_activation_check() says why others cannot be activated).  Devices are
 * created read-only when the LV (or the VG) lacks WRITE; missing PVs refuse
 * activation unless opts->partial, then their areas map to the error target.
 *
 * Changing an active LV (lvextend/lvreduce, lvconvert): stage() loads the table
 * computed from the new metadata next to the live one (before the metadata commit;
 * a raid LV's sub-LV devices are made live first), swap() makes it live (suspend +
 * resume, after the commit), unstage() drops it (commit failed).
 */
#ifndef LVX_ACTIVATE_ACTIVATE_H
#define LVX_ACTIVATE_ACTIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "util/buf.h"
#include "util/ctx.h"

/* What an activation does with monitoring (LVM2's dmeventd_monitor_mode): nothing
 * (the zero value: --ignoremonitoring, activation/monitoring = 0, or a command run by
 * the monitor itself), or the thin pools, snapshots, mirrors and RAID LVs it activates
 * watched or not. */
enum lvx_monitor_mode { LVX_MONITOR_IGNORE = 0, LVX_MONITOR_OFF, LVX_MONITOR_ON };

struct lvx_activate_opts {
    bool read_only;        /* also when the LV or VG lacks WRITE */
    bool partial;          /* --activationmode partial: missing areas -> error target */
    bool degraded;         /* --activationmode degraded (LVM2's default): RAID LVs that
                              keep their data run without the images on missing PVs */
    bool force;            /* deactivate: also an open LV (its table is replaced by the
                              error target, removal deferred to the last close) */
    bool snapshot_only;    /* deactivate a COW LV: only its snapshot devices (the origin
                              and its other snapshots stay), for removing it */
    bool nosync;           /* RAID: the first activation of an LV made with --nosync;
                            * mirror: its first table says "nosync" (split images) */
    bool refresh;          /* --refresh: a RAID device whose table stays is suspended and
                              resumed all the same (LVM2's lv_refresh: dm-raid takes back
                              legs that failed and are readable again on such a resume) */
    bool component;        /* a hidden sub-LV activated alone (read-only, LVM2's component
                              activation): linked under /dev/VG by its name as LVM2 does */
    bool lock_shared;      /* shared VG: the LV's lease shared (-asy), else exclusive; the
                              lvx daemon holds it while the LV is active (both backends) */
    enum lvx_monitor_mode monitor;   /* monitorable LVs activated: watched? */
};

/* Kernel-side state of an LV as a backend sees it. */
struct lvx_lv_kstate {
    bool active;            /* a device exists for the LV */
    bool live_table, inactive_table;
    bool suspended;
    bool read_only;
    int32_t open_count;
    bool held_by_lv;        /* open because another active LV maps onto it (user backend;
                             * the dm backend's holders are read from sysfs) */
    int64_t major, minor;   /* -1 when inactive */
    int64_t read_ahead;     /* sectors, -1 unknown */
    const char *backend;    /* the backend's name */
    /* a COW LV's snapshot device (dm-snap status line), when snapshot is true */
    bool snapshot;
    bool snap_invalid;      /* "Invalid"/"Overflow"/"Merge failed" */
    bool snap_merging;      /* an origin's snapshot-merge status (its merge runs) */
    uint64_t snap_used, snap_total, snap_meta;   /* sectors */
    /* a thin pool, a snapshot, a mirror or RAID LV: watched by the monitor (seg_monitor;
     * -1: the backend cannot tell, 0 no, 1 yes) */
    int8_t monitored;
    /* thin pools: the -tpool device's status (thin_pool false when none was read) */
    bool thin_pool;
    uint64_t pool_tid;
    char pool_discards[12];   /* "ignore", "nopassdown", "passdown" as loaded; "" unknown */
    bool pool_fail;           /* "Fail": no counters (thin_pool true all the same) */
    bool pool_out_of_data;    /* mode out_of_data_space */
    bool pool_read_only;      /* mode ro (metadata read-only) */
    bool pool_needs_check;    /* needs_check set in the pool's superblock */
    uint64_t meta_used, meta_total, data_used, data_total;   /* blocks */
    /* thin LVs: the thin device's status (thin false when none was read) */
    bool thin;
    uint64_t thin_mapped;   /* sectors */
    bool thin_fail;         /* "Fail": its pool failed */
    bool thin_dev_known;    /* thin_dev_id read (dm: the origin of a waiting thin merge only) */
    uint32_t thin_dev_id;   /* the pool's thin device the live table maps */
    /* RAID LVs: the dm-raid status line (raid false when none was read) */
    bool raid;
    char raid_health[257];  /* one letter per image: A in sync, a not yet, D dead */
    uint64_t sync_done, sync_total;  /* "<done>/<total>" sectors */
    char sync_action[16];   /* idle frozen resync recover check repair reshape */
    uint64_t mismatches;
    int64_t raid_data_offset;   /* sectors: where the data starts in each image; -1 unknown */
    uint32_t raid_devs;         /* the device count dm-raid reports (after a shrinking
                                 * reshape: fewer than raid_health's letters) */
    /* mirror LVs: the dm-mirror status line (mirror false when none was read); its
     * in-sync/total region counts are sync_done/sync_total, its images' health letters
     * raid_health (A alive; the kernel's D write, F flush, S sync, R read, U unknown
     * failure; the daemon's D) */
    bool mirror;
    char mirror_log_health;     /* a disk log's letter (A or D); 0 core log or unknown */
    /* cache LVs, and a used cache pool (its cache LV's, the pool itself never active):
     * the dm-cache status line (cache false when none was read) */
    bool cache;
    bool cache_fail;            /* "Fail" (or "Error") instead of the counters */
    bool cache_read_only;       /* metadata mode "ro" */
    bool cache_needs_check;
    bool cache_metadata2;       /* feature "metadata2" */
    bool cache_no_discard_passdown;
    uint64_t cache_meta_used, cache_meta_total;     /* metadata blocks */
    uint64_t cache_used, cache_total, cache_dirty;  /* cache blocks */
    uint64_t cache_read_hits, cache_read_misses, cache_write_hits, cache_write_misses;
    uint64_t cache_demotions, cache_promotions;
    char cache_policy[32];
    char cache_settings[512];   /* "key=value" of the core, then the policy arguments, ','-joined */
    /* writecache LVs: the dm-writecache status line (writecache false when none was
     * read): error indicator, blocks in all, free, under writeback */
    bool writecache;
    uint64_t wc_error, wc_total, wc_free, wc_writeback;
};

struct lvx_activation_backend {
    const char *name;
    bool raid;             /* activates RAID LVs (dm: stacked sub-LV devices) */
    /* usable here?  false with a message in ctx when not */
    bool (*probe)(struct lvx_ctx *ctx);
    /* create + load + resume (+ nodes); an LV already active with its UUID is left
     * as it is.  A failure leaves nothing behind. */
    int (*activate)(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                    const struct lvx_activate_opts *opts);
    /* remove (+ nodes); -EBUSY "Logical volume vg/lv in use." when open and not
     * forced; 0 when not active */
    int (*deactivate)(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                      const struct lvx_activate_opts *opts);
    /* load the table of lv (the new metadata) as the inactive table */
    int (*stage)(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                 const struct lvx_activate_opts *opts);
    /* suspend + resume: the staged table becomes live */
    int (*swap)(struct lvx_ctx *ctx, const struct lvx_lv *lv);
    /* drop a staged table */
    int (*unstage)(struct lvx_ctx *ctx, const struct lvx_lv *lv);
    /* lv (old names) becomes new_vg/new_lv */
    int (*rename)(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *new_vg,
                  const char *new_lv);
    /* the device of a hidden sub-LV (RAID image) called old_name takes sub's name (no
     * links); NULL when the backend has no such devices (then no sub-LV devices are
     * made or removed by conversions either) */
    int (*rename_sub)(struct lvx_ctx *ctx, const struct lvx_lv *sub, const char *old_name);
    /* send a message to the LV's target (dm-raid: "check", "repair"); NULL when the
     * backend cannot */
    int (*message)(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *msg);
    /* An active mirror with a disk or mirrored log about to be committed with new
     * images (lvconvert -m +N, --repair): on, its log written durably with every region
     * out of sync and kept so until the next reload (which carries the real bits to
     * the new state), so a crash between the commit and the new state's start resyncs
     * instead of trusting uncopied images; off (the commit failed), written as it is
     * again.  NULL when the backend needs none (dm: the mirror is cycled). */
    int (*hold_mirror_log)(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool on);
    /* The live collapse of a CONVERTING mirror (cmd/mirror_layer.c), lv's collapsed
     * table staged and committed: LVM2's order (lv suspended, then its old resync layer
     * `layer`, a mirror over the same log and images; the layer's device given the error
     * target while both are suspended, so its mirror goes without writing the log
     * again; lv resumed with the staged table, which reads that log; the layer's device
     * removed).  NULL: the backend serves no layer (user: collapsed by a reload). */
    int (*collapse_layer)(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                          const struct lvx_lv *layer);
    /* state of the LV; 0 with out->active false when it is not active */
    int (*status)(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_lv_kstate *out);
    /* One step of the merge of the active origin's merging COW snapshot, for a backend
     * whose merge does not run by itself (user: the daemon copies up to max chunks
     * back per call); *left: chunks still to merge.  NULL: the merge runs on its own
     * once the origin is (re)activated (dm: the kernel's snapshot-merge). */
    int (*merge_step)(struct lvx_ctx *ctx, const struct lvx_lv *origin, unsigned max,
                      uint64_t *left);
    /* Thin pools (NULL: the backend serves no thin pools or thin LVs).  Send msgs
     * ("create_thin 1", "create_snap 2 1", "delete 2") to the pool, then
     * "set_transaction_id <tid - 1> <tid>" with tid the pool segment's transaction_id
     * (the metadata already counts the messages, one step for all of them as LVM2; the
     * pool's kernel metadata must be at tid - 1; at tid they were sent before: nothing
     * is sent, 0).  An active pool is used as it is; one not active is brought up for
     * it (and taken down again afterwards); suspend (NULL or a thin LV) is held
     * suspended meanwhile. */
    int (*thin_message)(struct lvx_ctx *ctx, const struct lvx_lv *pool,
                        const char *const *msgs, unsigned n, const struct lvx_lv *suspend);
    /* Watch the active thin pool or snapshot lv (dmeventd's monitoring: extended by
     * lvextend --use-policies when it fills), mirror or RAID LV (lvconvert --repair
     * --use-policies when a leg fails) or stop: a thin LV's pool, an origin's
     * snapshots; other LVs: 0, nothing done.  NULL: the backend has no monitoring. */
    int (*monitor)(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool on);
};

extern const struct lvx_activation_backend lvx_activation_dm;
/* activate/user_backend.c: FUSE + loop through the lvx daemon (daemon/daemon.h) */
extern const struct lvx_activation_backend lvx_activation_user;

/* The dm table the `dm` backend loads for lv, appended to out: map/'s lines; with
 * partial, a segment touching a missing PV is one "<start> <len> error" line.
 * -ENODEV for a PV that is not a block device (an image file) or missing. */
int lvx_activation_dm_table(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial,
                            struct lvx_buf *out);

/* pvmove in the dm backend (activate/dm_pvmove.c).  The pvmove LV lv's areas map
 * into, or NULL. */
const struct lvx_lv *lvx_dm_pvmove_of(const struct lvx_lv *lv);
/* The table of an LV with areas on a pvmove LV (whose device must be live). */
int lvx_dm_pvmove_user_table(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_buf *out);
/* The pvmove LV's device made live with its table when it is not (*made: created). */
int lvx_dm_pvmove_up(struct lvx_ctx *ctx, const struct lvx_lv *mv, bool *made);
/* The pvmove LV's device removed when nothing holds it open. */
int lvx_dm_pvmove_down(struct lvx_ctx *ctx, const struct lvx_lv *mv);
/* The pvmove LV's device exists with a live table. */
bool lvx_dm_pvmove_live(struct lvx_ctx *ctx, const struct lvx_lv *mv);
/* The kernel brought to the metadata of move mv, when an LV it moves is active: its
 * device live (first without the mirror), the active users reloaded over it, then its
 * table (reloaded when it differs; fresh: also when equal, the running segment copied
 * again from its start). */
int lvx_dm_pvmove_sync(struct lvx_ctx *ctx, const struct lvx_vg *vg, const struct lvx_lv *mv,
                       bool fresh);
/* The running mirror of mv's device: *le its pvmove LE (UINT64_MAX: none), regions in
 * sync and in all. */
int lvx_dm_pvmove_progress(struct lvx_ctx *ctx, const struct lvx_lv *mv, uint64_t *le,
                           uint64_t *done, uint64_t *total);
/* The end of a move (after the commit that took the LVs off mv): active LVs of vg
 * reloaded from the metadata, mv's device removed. */
int lvx_dm_pvmove_end(struct lvx_ctx *ctx, const struct lvx_vg *vg, const struct lvx_lv *mv);
/* The dm tables of an origin with snapshots or of a COW LV, as `dmsetup table` prints
 * them: "<name>: <line>" for the LV's device (snapshot-origin / snapshot) and for its
 * layer (-real / -cow, its own segments).  The other devices of the set are named by
 * their device numbers when they exist in the kernel, else by their DM names. */
int lvx_activation_dm_set_lines(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                                struct lvx_buf *out);

/* The backend to use, or NULL (with the reason in ctx, -ENODEV/-EINVAL) when none
 * is usable or activation is turned off.  forced: a backend name, "none", or NULL. */
const struct lvx_activation_backend *lvx_activation_choose(struct lvx_ctx *ctx,
                                                           const char *forced);
/* lvm.conf (with --config) global/activation != 0 (the default). */
bool lvx_activation_enabled(struct lvx_ctx *ctx);
/* The backend called name ("dm", "user"), or NULL. */
const struct lvx_activation_backend *lvx_activation_find(const char *name);

/* Can lv be activated (with opts)?  0, or -ENOTSUP (type), -ENODEV (missing PV and
 * not partial: LVM2's "Refusing activation of partial LV ..." message), -EINVAL. */
int lvx_activation_check(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                         const struct lvx_activate_opts *opts);
/* Is lv a snapshot's COW LV or an origin with snapshots (activated as one set)? */
bool lvx_activation_has_snapshots(const struct lvx_lv *lv);
/* Does be serve RAID LVs of this segment type (metadata name)?  dm: every type; the
 * user backend (the daemon's RAID targets): raid1, raid10, raid4, raid5 and raid6 (every
 * layout), and raid0/raid0_meta (served as the striped LV they equal). */
bool lvx_activation_serves_raid(const struct lvx_activation_backend *be, const char *type);
/* The discard mode of a thin-pool status line (the kernel's ignore_discard,
 * no_discard_passdown, discard_passdown tokens; the daemon's status the same) as LVM2
 * names it in out ("ignore", "nopassdown", "passdown"); "" when none is there. */
void lvx_activation_pool_discards(const char *status, char out[12]);
/* Does lv use a PV whose device is missing? */
bool lvx_activation_lv_partial(const struct lvx_lv *lv);
/* lvx_activation_check() then be->activate(). */
int lvx_activate_lv(struct lvx_ctx *ctx, const struct lvx_activation_backend *be,
                    const struct lvx_lv *lv, const struct lvx_activate_opts *opts);
/* stage + swap, for a change that needs no commit in between. */
int lvx_activation_reload(struct lvx_ctx *ctx, const struct lvx_activation_backend *be,
                          const struct lvx_lv *lv, const struct lvx_activate_opts *opts);
/* The LV is created read-only (opts, LV without WRITE, VG without WRITE). */
bool lvx_activation_read_only(const struct lvx_lv *lv, const struct lvx_activate_opts *opts);

/* device-mapper's block major from /proc/devices, 0 when the kernel has none (the
 * major LVM2 records for a persistent minor). */
uint32_t lvx_activation_dm_major(void);

#endif
