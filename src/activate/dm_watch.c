/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/dm_watch.c - the `dm` backend's monitoring (LVM2's dmeventd registration):
 * the lvx daemon (started when it does not run, as for a lease: daemon_lease.c)
 * watches an active thin pool's thin-pool device or a COW snapshot's device and runs
 * `lvx lvextend --use-policies VG/LV` when it fills, and a mirror's or redundant RAID
 * LV's device and runs `lvx lvconvert --repair --use-policies VG/LV` when a leg fails
 * (daemon/dm_watch.c, monitor.c).
 *
 *   watch     after an activation in the command's monitoring mode and by
 *             lvchange/vgchange --monitor y: a thin LV stands for its pool, an origin
 *             for its snapshots, as in the user backend; a mirror or RAID LV (not
 *             raid0, not an origin: as the user backend) for itself; a device that
 *             does not exist is not watched.  A daemon that cannot be asked is a warning, as LVM2's
 *             when dmeventd cannot be reached, never a failed activation.
 *   unwatch   --monitor n, and after a deactivation for every such device that is gone
 *             (a thin LV's pool taken down with it); nothing when no daemon runs.
 *   state     seg_monitor: watched or not (no daemon: not).
 *   rename    a watched pool or snapshot renamed (lvrename, vgrename): the watch
 *             moves to the new names and device (the daemon's entry would end with
 *             the old device name).
 * The daemon keeps its watches in its state file: a restarted worker goes on.
 *
 * Entry points: lvx_dm_watch(), lvx_dm_watch_gone(), lvx_dm_watch_state(),
 * lvx_dm_watch_renamed().
 */
#include "activate/dm_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "daemon/daemon.h"
#include "map/map.h"
#include "model/snapshot.h"
#include "model/thin.h"
#include "nodes/dm_nodes.h"

#define MAX_TARGETS 64

/* A mirror or a RAID LV with a redundant leg, not an origin (dmeventd's mirror and raid
 * plugins' LVs; an origin's -real device is not watched, as in the user backend). */
static bool has_legs(const struct lvx_lv *lv)
{
    return (lvx_map_lv_is_mirror(lv) ||
            (lv->seg_count && lv->segs[0].kind == LVX_SEG_RAID &&
             strncmp(lvx_seg_report_type(&lv->segs[0]), "raid0", 5) != 0)) &&
           !(lv->status & LVX_LV_PVMOVE) && lvx_lv_snapshot_segs(lv, NULL, 0) == 0;
}

static const char *kind_word(const struct lvx_lv *t)
{
    return lvx_lv_is_thin_pool(t) ? "pool" : lvx_lv_is_cow(t) ? "snapshot"
           : lvx_map_lv_is_mirror(t) ? "mirror" : "raid";
}

/* The LVs whose devices stand for lv's monitoring: a pool (a thin LV's), COW LVs (an
 * origin's snapshots), a mirror or RAID LV itself; count. */
static unsigned targets_of(const struct lvx_lv *lv, const struct lvx_lv **out)
{
    if (lvx_lv_is_thin_pool(lv) || lvx_lv_is_cow(lv) || has_legs(lv)) {
        out[0] = lv;
        return 1;
    }
    if (lvx_lv_is_thin(lv)) {
        out[0] = lvx_lv_thin_seg(lv)->pool_lv;
        return out[0] ? 1 : 0;
    }
    const struct lvx_seg *segs[MAX_TARGETS];
    unsigned n = lvx_lv_snapshot_segs(lv, segs, MAX_TARGETS);
    if (n > MAX_TARGETS)
        n = MAX_TARGETS;
    for (unsigned i = 0; i < n; i++)
        out[i] = segs[i]->cow_lv;
    return n;
}

/* The device whose status tells t's usage (a pool's thin-pool device). */
static int watched_ids(struct lvx_ctx *ctx, const struct lvx_lv *t, struct lvx_dm_ids *ids)
{
    return lvx_lv_is_thin_pool(t) ? lvx_dm_thin_pool_ids(ctx, t, ids)
                                  : lvx_dm_ids_of(ctx, t, NULL, ids);
}

/* Does t's device exist with its UUID? */
static bool device_live(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_dm_ids *ids)
{
    struct lvx_dm_info info;
    bool live = lvx_dm_info(ctx, dm, ids->name, &info) == 0 && info.exists &&
                strcmp(info.uuid, ids->uuid) == 0;
    lvx_error_clear(ctx);
    return live;
}

static void unwatch(struct lvx_ctx *ctx, const struct lvx_lv *t)
{
    char req[300];
    snprintf(req, sizeof(req), "unwatch %s %s", t->vg->name, t->name);
    lvx_daemon_call(ctx, req, false, NULL);
    lvx_error_clear(ctx);       /* no daemon: nothing watched */
}

/* kind: kind_word() of the LV as it is in its VG (a renamed copy is no longer found as
 * a snapshot's COW by pointer) */
static void watch(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *t,
                  const char *kind)
{
    struct lvx_dm_ids ids;
    if (watched_ids(ctx, t, &ids) < 0 || !device_live(ctx, dm, &ids)) {
        lvx_error_clear(ctx);
        return;
    }
    const char *dev_dir = lvx_dm_dev_dir();
    char req[1024];
    snprintf(req, sizeof(req), "watch %s %s %s %s %s %s", t->vg->name, t->name, kind,
             ids.name, ids.uuid, dev_dir);
    int rc = strpbrk(dev_dir, " \t\n") ? -EINVAL : lvx_daemon_call(ctx, req, true, NULL);
    if (rc < 0) {
        lvx_warn(ctx, "WARNING: Failed to monitor %s/%s: %s", t->vg->name, t->name,
                 ctx->errmsg[0] ? ctx->errmsg : strerror(-rc));
        lvx_error_clear(ctx);
    }
}

int lvx_dm_watch(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool on)
{
    const struct lvx_lv *t[MAX_TARGETS];
    unsigned n = targets_of(lv, t);
    if (!n)
        return 0;
    if (!on) {
        if (lvx_daemon_alive())
            for (unsigned i = 0; i < n; i++)
                unwatch(ctx, t[i]);
        return 0;
    }
    struct lvx_dm dm;
    int rc = lvx_dm_open(ctx, &dm);
    if (rc < 0)
        return rc;
    for (unsigned i = 0; i < n; i++)
        watch(ctx, &dm, t[i], kind_word(t[i]));
    lvx_dm_close(&dm);
    return 0;
}

void lvx_dm_watch_gone(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    const struct lvx_lv *t[MAX_TARGETS];
    unsigned n = targets_of(lv, t);
    struct lvx_dm dm;
    if (!n || !lvx_daemon_alive() || lvx_dm_open(ctx, &dm) < 0) {
        lvx_error_clear(ctx);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        struct lvx_dm_ids ids;
        if (watched_ids(ctx, t[i], &ids) == 0 && !device_live(ctx, &dm, &ids))
            unwatch(ctx, t[i]);
        lvx_error_clear(ctx);
    }
    lvx_dm_close(&dm);
}

int8_t lvx_dm_watch_state(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    if (!lvx_lv_is_thin_pool(lv) && !lvx_lv_is_cow(lv) && !has_legs(lv))
        return -1;
    if (!lvx_daemon_alive())
        return 0;
    char req[300];
    struct lvx_buf reply = LVX_BUF_INIT;
    snprintf(req, sizeof(req), "watched %s %s", lv->vg->name, lv->name);
    int8_t on = lvx_daemon_call(ctx, req, false, &reply) == 0 &&
                strstr(lvx_buf_str(&reply), "1") != NULL;
    lvx_error_clear(ctx);
    lvx_buf_free(&reply);
    return on;
}

void lvx_dm_watch_renamed(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *new_vg,
                          const char *new_lv, int8_t watched)
{
    if (watched != 1)
        return;
    struct lvx_vg vg = *lv->vg;
    struct lvx_lv renamed = *lv;
    vg.name = new_vg;
    renamed.vg = &vg;
    renamed.name = new_lv;
    struct lvx_dm dm;
    unwatch(ctx, lv);
    if (lvx_dm_open(ctx, &dm) < 0) {
        lvx_error_clear(ctx);
        return;
    }
    watch(ctx, &dm, &renamed, kind_word(lv));
    lvx_dm_close(&dm);
}
