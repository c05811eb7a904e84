/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/dm_int.h - what the dm backend's files share (activate/dm_backend.c,
 * activate/dm_snapshot.c): device ids of an LV or one of its layers, removal with
 * retries, the suspend/resume swap, and the device sets of origins with COW
 * snapshots.  Not for use outside activate/.
 */
#ifndef LVX_ACTIVATE_DM_INT_H
#define LVX_ACTIVATE_DM_INT_H

#include "activate/activate.h"
#include "dev/dm_ioctl.h"
#include "map/dm_names.h"

struct lvx_dm_ids {
    char name[LVX_DM_NAME_MAX + 1];
    char uuid[LVX_DM_UUID_MAX + 1];
};

/* DM name and UUID of lv (layer NULL) or of its layer device ("real", "cow"). */
int lvx_dm_ids_of(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *layer,
                  struct lvx_dm_ids *ids);
/* DEV_REMOVE, retried while something briefly holds the device. */
int lvx_dm_remove_retry(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, bool deferred);
/* Suspend + resume (a loaded inactive table becomes live; on a failed resume the new
 * table is dropped and the old one resumed). */
int lvx_dm_swap_tables(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name);

/* A set of devices being made (dm_snapshot.c, dm_thin.c): the control device and the
 * names of the devices created so far, removed again by lvx_dm_run_undo(). */
#define LVX_DM_RUN_MAX (2 * 256 + 2)
struct lvx_dm_run {
    struct lvx_dm dm;
    struct {
        char name[LVX_DM_NAME_MAX + 1];
    } made[LVX_DM_RUN_MAX];
    unsigned made_count;
};
/* Make table live on the device ids (created when missing, remembered in r), unless it
 * already is; *info describes the device afterwards. */
int lvx_dm_put_table(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_dm_ids *ids,
                     const char *table, bool ro, struct lvx_dm_info *info);
/* The same for the top device of lv, created with lv's persistent major:minor (lvcreate
 * / lvchange --minor) when it has one. */
int lvx_dm_put_lv_table(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_dm_ids *ids,
                        const struct lvx_lv *lv, const char *table, bool ro,
                        struct lvx_dm_info *info);
/* lv's persistent major:minor for a new device (dm_backend.c), 0:0 when none. */
void lvx_dm_fixed_devno(const struct lvx_lv *lv, uint32_t *major, uint32_t *minor);
/* Remove the devices r made, newest first (the error in ctx is kept). */
void lvx_dm_run_undo(struct lvx_ctx *ctx, struct lvx_dm_run *r);
/* Remove one device and its nodes (link_lv: its /dev/VG/LV link, or NULL); a missing
 * device is fine; an open one is -EBUSY unless force (then removed at last close). */
int lvx_dm_remove_one(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_dm_ids *ids,
                      const struct lvx_lv *link_lv, bool force);

/* dm_backend.c: the sub-LV devices of a raid or mirror LV made (or refreshed), in
 * LVM2's order; removed again (after the device over them).  0 or negative errno. */
int lvx_dm_stacked_subs_up(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv);
int lvx_dm_stacked_subs_down(struct lvx_ctx *ctx, const struct lvx_lv *lv);

/* dm_snapshot.c.  The LV whose device set holds lv (its origin for a COW LV), and
 * whether that set has snapshots. */
const struct lvx_lv *lvx_dm_set_head(const struct lvx_lv *lv, bool *has_snapshots);
/* Activate / deactivate an origin with snapshots and all its devices (origin,
 * origin-real, each snapshot and its -cow). */
int lvx_dm_activate_set(struct lvx_ctx *ctx, const struct lvx_lv *origin,
                        const struct lvx_activate_opts *opts);
int lvx_dm_deactivate_set(struct lvx_ctx *ctx, const struct lvx_lv *origin,
                          const struct lvx_activate_opts *opts);
/* Remove only the snapshot devices of one COW LV (snapshot + -cow), the origin left. */
int lvx_dm_deactivate_snapshot(struct lvx_ctx *ctx, const struct lvx_lv *cow,
                               const struct lvx_activate_opts *opts);
/* After an origin's set lost its last snapshot: remove a leftover <origin>-real. */
int lvx_dm_drop_real(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *origin);
/* Snapshot usage of an active COW LV from its snapshot device's status line. */
int lvx_dm_snapshot_usage(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                          struct lvx_lv_kstate *out);

/* dm_thin.c: the table of thin LV thin (its pool's stack brought up in r first, its
 * transaction id checked): an origin's -real layer.  0 or negative errno. */
int lvx_dm_thin_table(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_lv *thin,
                      const struct lvx_activate_opts *opts, struct lvx_buf *out);
/* After a thin origin's devices went: its pool's stack when nothing else uses it. */
int lvx_dm_thin_origin_gone(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *thin);
/* dm_thin.c: thin pools (tmeta, tdata, thin-pool, the pool's own device) and thin LVs
 * (with their pool's stack); pool messages; status of either. */
int lvx_dm_thin_activate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                         const struct lvx_activate_opts *opts);
int lvx_dm_thin_deactivate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                           const struct lvx_activate_opts *opts);
int lvx_dm_thin_message(struct lvx_ctx *ctx, const struct lvx_lv *pool, const char *const *msgs,
                        unsigned n, const struct lvx_lv *suspend);
/* The ids of a pool's thin-pool device (named by the pool's state: -tpool). */
int lvx_dm_thin_pool_ids(struct lvx_ctx *ctx, const struct lvx_lv *pool, struct lvx_dm_ids *ids);
/* *info: the LV's device (a pool: its thin-pool device's open count), out: the status. */
int lvx_dm_thin_status(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                       struct lvx_dm_info *info, struct lvx_lv_kstate *out);
/* dm_cache.c: a cache LV's dm-cache status (a used cache pool: its cache LV's) into
 * out->cache*; nothing when it is not active.  0, or -errno. */
int lvx_dm_cache_status(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                        struct lvx_lv_kstate *out);
/* dm_cache.c: the devices under a cache LV (origin, pool data/metadata or the
 * cachevol's layers and itself) removed after its own; 0 for other LVs. */
int lvx_dm_cache_subs_down(struct lvx_ctx *ctx, const struct lvx_lv *lv);

/* dm_watch.c: monitoring by the lvx daemon (dmeventd's part).  Watch the devices that
 * stand for lv (a pool, a thin LV's pool, a COW LV, an origin's snapshots, a mirror or
 * RAID LV) or stop
 * (never fails for the daemon: a warning). */
int lvx_dm_watch(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool on);
/* After lv's deactivation: those of its devices that are gone no longer watched. */
void lvx_dm_watch_gone(struct lvx_ctx *ctx, const struct lvx_lv *lv);
/* seg_monitor of a thin pool, COW, mirror or RAID LV: 1 watched, 0 not, -1 another LV. */
int8_t lvx_dm_watch_state(struct lvx_ctx *ctx, const struct lvx_lv *lv);
/* lv (old names) was renamed to new_vg/new_lv: its watch (watched: its
 * lvx_dm_watch_state() before the rename, asked before the daemon's next look could
 * end it) follows it. */
void lvx_dm_watch_renamed(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *new_vg,
                          const char *new_lv, int8_t watched);

#endif
