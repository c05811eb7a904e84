/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/user_backend.c - the `user` activation backend: LVs served by the lvx
 * daemon (daemon/daemon.h) as files of its FUSE mount, each behind a loop
 * device with direct I/O, for machines without device-mapper.
 *
 *   activate   ask the daemon (started on demand) to serve the LV: it re-reads
 *              the VG from the devices itself (this command's view is only used
 *              to name them), attaches the loop device; then the /dev entries
 *              /dev/<vg>/<lv> and /dev/mapper/<dm name> (symlinks to the loop
 *              device, user_nodes.c; the daemon is told $DM_DEV_DIR so that it
 *              can point them at a new loop device after a crash) and the stripe
 *              geometry hint for mkfs (the loop device hides it); partial
 *              (--activationmode partial): the daemon serves the LV with its missing
 *              PVs' extents failing I/O with EIO;
 *   deactivate refused while the loop device is held (mounted) unless forced;
 *   stage/swap: the new size and mapping go live at swap (after the commit):
 *              the daemon re-reads the metadata, the loop device its capacity; a
 *              RAID reshape's starting table (delta_disks, data_offset) is the
 *              daemon's raidreshape request, a reload that starts the reshape;
 *   rename, status (open = the loop device's open count: descriptors of it in any process
 *              but the daemon and the asking command, or held (mounted): 1;
 *              monitored = the daemon watches the pool or snapshot);
 *   monitor    the daemon watches a thin pool or snapshot (daemon/monitor.c: dmeventd's
 *              thin and snapshot plugins), set after an activation by the command's
 *              monitoring mode and by lvchange/vgchange --monitor;
 *   a snapshot added to a served origin: the origin reloaded (the daemon copies for
 *              the new snapshot from then on) with its filesystem frozen meanwhile
 *              (user_freeze.c), as LVM2's suspend with lockfs.
 *
 * probe: /dev/fuse and /dev/loop-control usable, root; a daemon that died
 * while LVs were active is restarted here, so the next lvx command brings them
 * back.
 */
#include "activate/activate.h"
#include "activate/daemon_lease.h"
#include "activate/thin_check.h"
#include "activate/user_freeze.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map/dm_names.h"
#include "map/lv_file.h"
#include "map/map.h"
#include "model/snapshot.h"
#include "model/thin.h"
#include "nodes/dm_nodes.h"
#include "nodes/user_nodes.h"
#include "daemon/daemon.h"

static bool user_probe(struct lvx_ctx *ctx)
{
    if (access("/dev/fuse", R_OK | W_OK) != 0 || access("/dev/loop-control", R_OK | W_OK) != 0) {
        lvx_error(ctx, ENODEV, "User-space activation needs /dev/fuse and /dev/loop-control.");
        return false;
    }
    if (geteuid() != 0) {
        lvx_error(ctx, EPERM, "User-space activation needs root.");
        return false;
    }
    if (!lvx_daemon_alive() && lvx_daemon_has_state() && lvx_daemon_start(ctx) < 0) {
        lvx_warn(ctx, "WARNING: %s", ctx->errmsg);
        lvx_error_clear(ctx);
    }
    return true;
}

/* "su=256k,sw=4" hint for striped LVs. */
static void geometry_hint(struct lvx_ctx *ctx, uint64_t io_min, uint64_t io_opt)
{
    if (!io_min || io_opt <= io_min || io_opt % io_min)
        return;
    lvx_notice(ctx, "Stripe geometry hidden by the loop device: use mkfs.xfs -d su=%" PRIu64
               "k,sw=%" PRIu64, io_min / 1024, io_opt / io_min);
}

/* LVM2's _lv_has_mknode: a /dev/<vg>/<lv> link, except for a used thin pool and for a
 * sparse snapshot's hidden NAME_vorigin */
static bool vg_link(const struct lvx_lv *lv)
{
    return !lvx_lv_thin_pool_private(lv) && !lvx_lv_is_virtual_origin(lv);
}

static int activate_one(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                        const struct lvx_activate_opts *opts)
{
    struct lvx_buf req = LVX_BUF_INIT, reply = LVX_BUF_INIT;
    /* FLAGS: 1 read-only, 2 partial (the daemon serves the present PVs, the missing
     * ones' extents fail with EIO), 4 a shared VG's LV lease taken shared, 16 a mirror's
     * regions start in sync (dm-log's "nosync" of a first table) */
    const char *dev_dir = lvx_dm_dev_dir();
    lvx_buf_printf(&req, "activate %s %s %s %d %s", lv->vg->name, lv->name, lv->uuid,
                   (lvx_activation_read_only(lv, opts) ? 1 : 0) |
                       (opts && opts->partial ? 2 : 0) | (opts && opts->lock_shared ? 4 : 0) |
                       (opts && opts->nosync && lvx_map_lv_is_mirror(lv) ? 16 : 0),
                   dev_dir);
    int rc = strpbrk(dev_dir, " \t\n") || dev_dir[0] != '/'
                 ? lvx_error(ctx, EINVAL, "DM_DEV_DIR \"%s\" must be an absolute path without "
                             "blanks.", dev_dir)
                 : lvx_daemon_device_words(ctx, lv->vg, &req);
    if (rc == 0)
        rc = lvx_daemon_call(ctx, lvx_buf_str(&req), true, &reply);
    if (rc == 0) {
        char loop[64] = "", file[PATH_MAX];
        int maj, min;
        uint64_t io_min = 0, io_opt = 0;
        if (sscanf(lvx_buf_str(&reply), "%63s %d %d %4095s %" SCNu64 " %" SCNu64, loop, &maj,
                   &min, file, &io_min, &io_opt) < 4) {
            rc = lvx_error(ctx, EPROTO, "Unexpected answer of the lvx daemon: %s",
                           lvx_buf_str(&reply));
        } else if ((rc = lvx_user_nodes_add(ctx, dev_dir, lv->vg->name, lv->name, loop,
                                            vg_link(lv))) == 0) {
            geometry_hint(ctx, io_min, io_opt);
        }
    }
    lvx_buf_free(&req);
    lvx_buf_free(&reply);
    return rc;
}

static int deactivate_one(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                          const struct lvx_activate_opts *opts)
{
    char req[512];
    snprintf(req, sizeof(req), "deactivate %s %s %d", lv->vg->name, lv->name,
             opts && opts->force ? 1 : 0);
    int rc = lvx_daemon_call(ctx, req, false, NULL);
    if (rc == -ENOTCONN) {     /* no daemon: nothing is active */
        lvx_error_clear(ctx);
        rc = 0;
    }
    if (rc == 0)
        lvx_user_nodes_remove(lvx_dm_dev_dir(), lv->vg->name, lv->name);
    return rc;
}

static int user_swap(struct lvx_ctx *ctx, const struct lvx_lv *lv);
static int swap_one(struct lvx_ctx *ctx, const struct lvx_lv *lv);
static int user_status(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_lv_kstate *out);

/* The daemon's status words of lv: 1 served (more: the target's own words), 0 not. */
static int served(struct lvx_ctx *ctx, const struct lvx_lv *lv, char *more, size_t n)
{
    char req[512];
    struct lvx_buf reply = LVX_BUF_INIT;
    snprintf(req, sizeof(req), "status %s %s", lv->vg->name, lv->name);
    more[0] = 0;
    int rc = lvx_daemon_call(ctx, req, false, &reply);
    if (rc == -ENOTCONN) {
        lvx_error_clear(ctx);
        rc = 0;
    } else if (rc == 0 && strncmp(lvx_buf_str(&reply), "active ", 7) == 0) {
        const char *w = lvx_buf_str(&reply) + 7;
        for (int i = 0; i < 6 && w; i++)        /* loop maj min ro open size */
            if ((w = strchr(w, ' ')))
                w++;
        snprintf(more, n, "%s%s", w ? " " : "", w ? w : "");
        rc = 1;
    }
    lvx_buf_free(&reply);
    return rc;
}

/* One LV served, or reloaded when it is served already. */
static int serve_one(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                     const struct lvx_activate_opts *opts)
{
    char more[128];
    int st = served(ctx, lv, more, sizeof(more));
    return st < 0 ? st : st ? swap_one(ctx, lv) : activate_one(ctx, lv, opts);
}

/* A thin LV's pool up first (the daemon's pool object, the pool LV's file, as LVM2's
 * -tpool device comes with it; its metadata checked first, as LVM2); one served
 * already is reloaded (an lvextend of the pool's data goes live).  A pool served
 * while new and used now loses its /dev/<vg> link, as LVM2's. */
static int thin_pool_up(struct lvx_ctx *ctx, const struct lvx_lv *pool)
{
    char more[128];
    int rc = served(ctx, pool, more, sizeof(more));
    if (rc > 0)
        rc = swap_one(ctx, pool);
    else if (rc == 0 && (rc = lvx_thin_check_pvs(ctx, pool)) == 0)
        rc = activate_one(ctx, pool, NULL);
    if (rc == 0 && lvx_lv_thin_pool_private(pool))
        lvx_user_nodes_remove_vg_link(lvx_dm_dev_dir(), pool->vg->name, pool->name);
    return rc;
}

/* An origin with snapshots and its COW LVs are served as one set (the daemon's
 * snapshot-origin and snapshot targets share each COW's exception store): the
 * origin first (reloaded when it is served already, so that it copies for the
 * snapshots of the new metadata, or for none any more), then each COW LV.  A thin
 * LV (also one that is the origin of such a set) brings its pool up first. */
static int user_activate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                         const struct lvx_activate_opts *opts)
{
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv), *segs[64];
    const struct lvx_lv *origin = cs && cs->origin_lv ? cs->origin_lv : lv;
    unsigned n = lvx_lv_snapshot_segs(origin, segs, 64);
    if (lvx_map_lv_is_thin_kind(origin)) {
        const struct lvx_lv *pool = lvx_lv_is_thin(origin) ? lvx_lv_thin_seg(origin)->pool_lv
                                                           : origin;
        int rc = thin_pool_up(ctx, pool);
        if (rc < 0 || origin == pool)
            return rc;
        if (!n)         /* served already: reloaded (an lvextend of the thin LV) */
            return serve_one(ctx, origin, opts);
    }
    char more[128];
    int st = n || cs ? served(ctx, origin, more, sizeof(more)) : 0;
    if (st < 0)
        return st;
    int rc;
    if (st > 0 && (n || strstr(more, " origin "))) {
        /* a new snapshot of the served origin: its writes so far reach the daemon and
         * none runs while the daemon switches to copying for it (a dm suspend with
         * lockfs: the mounted filesystem frozen) */
        struct lvx_user_freeze fr = { .fd = -1 };
        bool added = false;
        for (unsigned i = 0; i < n && i < 64 && !added; i++)
            added = served(ctx, segs[i]->cow_lv, more, sizeof(more)) == 0;
        struct lvx_lv_kstate ks;
        if (added && user_status(ctx, origin, &ks) == 0 && ks.active)
            lvx_user_freeze(&fr, (int)ks.major, (int)ks.minor);
        rc = user_swap(ctx, origin);
        lvx_user_thaw(&fr);
    } else {
        rc = activate_one(ctx, origin, opts);
    }
    for (unsigned i = 0; i < n && i < 64 && rc == 0; i++)
        rc = activate_one(ctx, segs[i]->cow_lv, opts);
    if (rc < 0 && st == 0 && (n || cs)) {       /* a failure leaves nothing behind */
        int keep = ctx->err;
        char msg[sizeof(ctx->errmsg)];
        memcpy(msg, ctx->errmsg, sizeof(msg));
        for (unsigned i = 0; i < n && i < 64; i++)
            deactivate_one(ctx, segs[i]->cow_lv, NULL);
        deactivate_one(ctx, origin, NULL);
        ctx->err = keep;
        memcpy(ctx->errmsg, msg, sizeof(msg));
    }
    return rc;
}

/* A COW LV or an origin: the whole set (its COW LVs first), unless only the
 * snapshot is asked for (lvremove of a snapshot). */
static int user_deactivate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                           const struct lvx_activate_opts *opts)
{
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv), *segs[64];
    if (cs && opts && opts->snapshot_only)
        return deactivate_one(ctx, lv, opts);
    const struct lvx_lv *origin = cs && cs->origin_lv ? cs->origin_lv : lv;
    unsigned n = lvx_lv_snapshot_segs(origin, segs, 64);
    int rc = 0;
    for (unsigned i = 0; i < n && i < 64 && rc == 0; i++)
        rc = deactivate_one(ctx, segs[i]->cow_lv, opts);
    return rc < 0 ? rc : deactivate_one(ctx, origin, opts);
}

static int user_stage(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                      const struct lvx_activate_opts *opts)
{
    /* the new mapping goes live at swap: here only the checks of an activation */
    if (lvx_map_lv_is_thin_kind(lv)) {
        int rc = lvx_map_refuse_thin_on_raid(ctx, lv);
        return rc < 0 ? rc : lvx_map_check_thin_activatable(ctx, lv, opts && opts->partial);
    }
    if (lvx_map_lv_is_raid(lv))
        return lvx_map_check_raid_activatable(ctx, lv, opts && opts->partial,
                                              opts && opts->degraded);
    if (lvx_map_lv_is_mirror(lv))
        return lvx_map_check_mirror_activatable(ctx, lv, opts && opts->partial);
    return lvx_activation_check(ctx, lv, opts);
}

static int swap_one(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    struct lvx_buf req = LVX_BUF_INIT;
    const struct lvx_seg *seg = lvx_map_lv_is_raid(lv) ? &lv->segs[0] : NULL;
    /* a RAID reshape's starting table (dm-raid's delta_disks / data_offset, the
     * segment's transient kernel_* values): the daemon's raidreshape, a reload that
     * starts the reshape (daemon/raid_reshape_start.c) */
    if (seg && (seg->kernel_delta_disks || seg->kernel_offset))
        lvx_buf_printf(&req, "raidreshape %s %s %d %u", lv->vg->name, lv->name,
                       (int)seg->kernel_delta_disks,
                       seg->kernel_offset ? seg->kernel_data_offset : 0);
    else
        lvx_buf_printf(&req, "reload %s %s", lv->vg->name, lv->name);
    int rc = lvx_daemon_device_words(ctx, lv->vg, &req);
    if (rc == 0)
        rc = lvx_daemon_call(ctx, lvx_buf_str(&req), false, NULL);
    lvx_buf_free(&req);
    return rc;
}

/* A snapshot set: the origin first, then its served COW LVs (an extended COW is
 * used by the origin's copies from then on). */
static int user_swap(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv), *segs[64];
    const struct lvx_lv *origin = cs && cs->origin_lv ? cs->origin_lv : lv;
    unsigned n = lvx_lv_snapshot_segs(origin, segs, 64);
    int rc = swap_one(ctx, origin);
    char more[128];
    for (unsigned i = 0; i < n && i < 64 && rc == 0; i++)
        if ((rc = served(ctx, segs[i]->cow_lv, more, sizeof(more))) > 0)
            rc = swap_one(ctx, segs[i]->cow_lv);
    return rc < 0 ? rc : 0;
}

static int user_unstage(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    return 0;
}

static int user_status(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_lv_kstate *out)
{
    char req[512];
    struct lvx_buf reply = LVX_BUF_INIT;
    memset(out, 0, sizeof(*out));
    out->backend = "user";
    out->major = out->minor = -1;
    out->read_ahead = -1;
    snprintf(req, sizeof(req), "status %s %s", lv->vg->name, lv->name);
    int rc = lvx_daemon_call(ctx, req, false, &reply);
    if (rc == -ENOTCONN) {
        lvx_error_clear(ctx);
        rc = 0;
    } else if (rc == 0 && strncmp(lvx_buf_str(&reply), "active ", 7) == 0) {
        char loop[64];
        int maj, min, ro, open;
        if (sscanf(lvx_buf_str(&reply) + 7, "%63s %d %d %d %d", loop, &maj, &min, &ro,
                   &open) == 5) {
            out->active = true;
            out->live_table = true;
            out->read_only = ro != 0;
            out->open_count = open;
            out->monitored = strstr(lvx_buf_str(&reply), " monitored") != NULL;
            out->held_by_lv = strstr(lvx_buf_str(&reply), " stacked") != NULL;
            out->major = maj;
            out->minor = min;
            /* a snapshot: " snapshot VALID USED TOTAL META" (sectors); an origin
             * whose snapshot merges: " snapshot-merge VALID USED TOTAL META" */
            const char *sn = strstr(lvx_buf_str(&reply), " snapshot ");
            const char *mg = strstr(lvx_buf_str(&reply), " snapshot-merge ");
            int valid;
            uint64_t used, total, meta;
            int got = mg ? sscanf(mg, " snapshot-merge %d %" SCNu64 " %" SCNu64 " %" SCNu64,
                                  &valid, &used, &total, &meta)
                      : sn ? sscanf(sn, " snapshot %d %" SCNu64 " %" SCNu64 " %" SCNu64, &valid,
                                    &used, &total, &meta)
                           : 0;
            if (got == 4) {
                out->snapshot = true;
                out->snap_merging = mg != NULL;
                out->snap_invalid = !valid;
                out->snap_used = used;
                out->snap_total = total;
                out->snap_meta = meta;
            }
            char path[128];
            snprintf(path, sizeof(path), "/sys/dev/block/%d:%d/queue/read_ahead_kb", maj, min);
            FILE *f = fopen(path, "r");
            long long kb;
            if (f && fscanf(f, "%lld", &kb) == 1)
                out->read_ahead = kb * 2;
            if (f)
                fclose(f);
            /* thin pools: " thin-pool TID USED/TOTAL(meta) USED/TOTAL(data)" (blocks);
             * thin LVs: " thin MAPPED_SECTORS DEVICE_ID" */
            const char *tp = strstr(lvx_buf_str(&reply), " thin-pool ");
            const char *th = strstr(lvx_buf_str(&reply), " thin ");
            if (tp && sscanf(tp, " thin-pool %" SCNu64 " %" SCNu64 "/%" SCNu64 " %" SCNu64
                             "/%" SCNu64, &out->pool_tid, &out->meta_used, &out->meta_total,
                             &out->data_used, &out->data_total) == 5) {
                out->thin_pool = true;
                lvx_activation_pool_discards(tp, out->pool_discards);
                out->pool_fail = strstr(tp, " fail") != NULL;   /* the daemon's failed pool */
            }
            else if (th && sscanf(th, " thin %" SCNu64, &out->thin_mapped) == 1) {
                out->thin = true;
                out->thin_dev_known = sscanf(th, " thin %*u %" SCNu32, &out->thin_dev_id) == 1;
            }
            /* RAID LVs: " raid <health> <done>/<total> <action> <mismatches>
             * <data_offset> <devices>" after the size (dm-raid's words) */
            const char *raid = strstr(lvx_buf_str(&reply), " raid ");
            uint64_t doff = 0;
            unsigned devs = 0;
            int words = raid ? sscanf(raid, " raid %256s %" SCNu64 "/%" SCNu64 " %15s %" SCNu64
                                      " %" SCNu64 " %u", out->raid_health, &out->sync_done,
                                      &out->sync_total, out->sync_action, &out->mismatches,
                                      &doff, &devs) : 0;
            if (words >= 4) {
                out->raid = true;
                out->raid_devs = words == 7 ? devs : (unsigned)strlen(out->raid_health);
                out->raid_data_offset = words >= 6 ? (int64_t)doff : -1;
            }
            /* mirror LVs: " mirror <in-sync>/<regions> <health>" */
            const char *mir = strstr(lvx_buf_str(&reply), " mirror ");
            if (mir && sscanf(mir, " mirror %" SCNu64 "/%" SCNu64 " %256s", &out->sync_done,
                              &out->sync_total, out->raid_health) == 3)
                out->mirror = true;
        }
    }
    lvx_buf_free(&reply);
    return rc;
}

static int user_rename(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *new_vg,
                       const char *new_lv)
{
    struct lvx_lv_kstate ks;
    int rc = user_status(ctx, lv, &ks);
    if (rc < 0 || !ks.active)
        return rc;
    char req[512], loop[PATH_MAX];
    snprintf(req, sizeof(req), "rename %s %s %s %s", lv->vg->name, lv->name, new_vg, new_lv);
    if ((rc = lvx_daemon_call(ctx, req, false, NULL)) < 0)
        return rc;
    snprintf(loop, sizeof(loop), "/dev/loop%" PRId64, ks.minor);   /* loop: minor = number */
    char old[PATH_MAX];
    snprintf(old, sizeof(old), "%s/%s/%s", lvx_dm_dev_dir(), lv->vg->name, lv->name);
    ssize_t n = readlink(old, loop, sizeof(loop) - 1);
    if (n > 0)
        loop[n] = 0;
    lvx_user_nodes_remove(lvx_dm_dev_dir(), lv->vg->name, lv->name);
    /* a link even for a sparse LV's hidden _vorigin: LVM2's rename of its device makes one */
    return lvx_user_nodes_add(ctx, lvx_dm_dev_dir(), new_vg, new_lv, loop,
                              !lvx_lv_thin_pool_private(lv));
}

/* --syncaction check|repair: the daemon runs it to its end before answering */
static int user_message(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *msg)
{
    char req[512];
    snprintf(req, sizeof(req), "raidmsg %s %s %s", lv->vg->name, lv->name, msg);
    return lvx_daemon_call(ctx, req, false, NULL);
}

static int user_hold_mirror_log(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool on)
{
    char req[512];
    snprintf(req, sizeof(req), "mirrorhold %s %s %d", lv->vg->name, lv->name, on ? 1 : 0);
    return lvx_daemon_call(ctx, req, false, NULL);
}

static int user_merge_step(struct lvx_ctx *ctx, const struct lvx_lv *origin, unsigned max,
                           uint64_t *left)
{
    char req[512];
    struct lvx_buf reply = LVX_BUF_INIT;
    snprintf(req, sizeof(req), "snapmerge %s %s %u", origin->vg->name, origin->name, max);
    int rc = lvx_daemon_call(ctx, req, false, &reply);
    if (rc == 0 && sscanf(lvx_buf_str(&reply), "%" SCNu64, left) != 1)
        rc = lvx_error(ctx, EPROTO, "Unexpected answer of the lvx daemon: %s",
                       lvx_buf_str(&reply));
    lvx_buf_free(&reply);
    return rc;
}

/* The pool's messages changed in its metadata by this command (no daemon serves the
 * pool): opened over _tmeta (formatted when new, as the kernel's first activation),
 * the transaction id checked, the messages, set_transaction_id, a commit. */
static int thin_message_local(struct lvx_ctx *ctx, const struct lvx_lv *pool,
                              const char *const *msgs, unsigned n, uint64_t old_tid,
                              uint64_t new_tid)
{
    struct lvx_pool *mem = lvx_pool_create();
    struct lvx_lv_file *f;
    struct lvx_thin_meta *tm;
    int rc = lvx_thin_pool_meta_open(ctx, mem, pool, true, &f, &tm);
    if (rc < 0) {
        lvx_pool_destroy(mem);
        return rc;
    }
    struct lvx_ctx *fc = lvx_lv_file_ctx(f);
    struct lvx_thin_info info;
    lvx_thin_meta_info(tm, &info);
    if (info.trans_id == new_tid)
        n = 0;      /* the messages were committed (as libdm: nothing more to send) */
    else if (info.trans_id != old_tid)
        rc = lvx_error(ctx, EINVAL, "Thin pool %s/%s transaction_id is %" PRIu64 ", while "
                       "expected %" PRIu64 ".", pool->vg->name, pool->name, info.trans_id,
                       old_tid);
    char m[64];
    snprintf(m, sizeof(m), "set_transaction_id %" PRIu64 " %" PRIu64, old_tid, new_tid);
    for (unsigned i = 0; i <= n && rc == 0 && info.trans_id != new_tid; i++)
        rc = lvx_thin_message(tm, i < n ? msgs[i] : m);
    if (rc == 0 && info.trans_id != new_tid)
        rc = lvx_thin_commit(tm);
    if (rc < 0 && !ctx->err)
        rc = lvx_error(ctx, fc->err ? -fc->err : -rc, "%s", fc->errmsg[0] ? fc->errmsg
                                                                          : strerror(-rc));
    lvx_lv_file_close(f);
    lvx_pool_destroy(mem);
    return rc;
}

/* A served pool's messages go to the daemon (which owns its metadata while it serves
 * it), with the thin origin of a create_snap frozen meanwhile (a dm suspend with
 * lockfs); else this command changes the metadata itself. */
static int user_thin_message(struct lvx_ctx *ctx, const struct lvx_lv *pool,
                             const char *const *msgs, unsigned n, const struct lvx_lv *suspend)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    if (!ps || !ps->transaction_id || n > 8)
        return lvx_error(ctx, EINVAL, "Thin pool %s/%s: bad transaction_id.", pool->vg->name,
                         pool->name);
    uint64_t new_tid = ps->transaction_id, old_tid = new_tid - 1;   /* LVM2: one step */
    struct lvx_buf req = LVX_BUF_INIT;
    lvx_buf_printf(&req, "thinmsg %s %s %" PRIu64 " %" PRIu64, pool->vg->name, pool->name,
                   old_tid, new_tid);
    for (unsigned i = 0; i < n; i++) {
        lvx_buf_puts(&req, " ");
        for (const char *c = msgs[i]; *c; c++)
            lvx_buf_printf(&req, "%c", *c == ' ' ? ':' : *c);
    }
    struct lvx_user_freeze fr = { .fd = -1 };
    struct lvx_lv_kstate ks;
    if (suspend && user_status(ctx, suspend, &ks) == 0 && ks.active)
        lvx_user_freeze(&fr, (int)ks.major, (int)ks.minor);
    lvx_error_clear(ctx);
    int rc = lvx_daemon_call(ctx, lvx_buf_str(&req), false, NULL);
    lvx_buf_free(&req);
    if (rc == -ENOTCONN || rc == -ENOENT) {
        lvx_error_clear(ctx);
        rc = thin_message_local(ctx, pool, msgs, n, old_tid, new_tid);
    }
    lvx_user_thaw(&fr);
    return rc;
}

/* `monitor VG LV 0|1` for one served LV; not served: nothing. */
static int monitor_one(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool on)
{
    char req[512], more[128];
    int st = served(ctx, lv, more, sizeof(more));
    if (st <= 0)
        return st;
    snprintf(req, sizeof(req), "monitor %s %s %d", lv->vg->name, lv->name, on ? 1 : 0);
    return lvx_daemon_call(ctx, req, false, NULL);
}

/* The daemon watches a pool's file (a thin LV's pool), each COW LV's file (an
 * origin's snapshots) and a mirror's or RAID LV's file (its legs' health, dmeventd's
 * mirror and raid plugins); other LVs have nothing to watch. */
static int user_monitor(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool on)
{
    if (lvx_lv_is_thin_pool(lv))
        return monitor_one(ctx, lv, on);
    if (lvx_lv_is_cow(lv))
        return monitor_one(ctx, lv, on);
    /* (an origin's file is its snapshot-origin target: not watched; raid0 has no
     * redundant leg) */
    bool legs = (lvx_map_lv_is_mirror(lv) ||
                 (lv->seg_count && lv->segs[0].kind == LVX_SEG_RAID &&
                  strncmp(lvx_seg_report_type(&lv->segs[0]), "raid0", 5) != 0)) &&
                lvx_lv_snapshot_segs(lv, NULL, 0) == 0;
    /* a thin LV: its pool, and its COW snapshots when it has some */
    int rc = lvx_lv_is_thin(lv) ? monitor_one(ctx, lvx_lv_thin_seg(lv)->pool_lv, on) : 0;
    if (legs && monitor_one(ctx, lv, on) < 0)
        lvx_error_clear(ctx);    /* served under another target (an origin's wrapper kept
                                  * until its next activation): not watched, no error */
    const struct lvx_seg *segs[64];
    unsigned n = lvx_lv_snapshot_segs(lv, segs, 64);
    for (unsigned i = 0; i < n && i < 64 && rc == 0; i++)
        rc = monitor_one(ctx, segs[i]->cow_lv, on);
    return rc;
}

/* The activation, then the monitoring the command asks for (its mode: none, on, off). */
static int user_activate_monitored(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                                   const struct lvx_activate_opts *opts)
{
    int rc = user_activate(ctx, lv, opts);
    if (rc == 0 && opts && opts->monitor != LVX_MONITOR_IGNORE)
        rc = user_monitor(ctx, lv, opts->monitor == LVX_MONITOR_ON);
    return rc;
}

const struct lvx_activation_backend lvx_activation_user = {
    .name = "user",
    .raid = true,          /* the daemon's RAID targets (lvx_activation_serves_raid) */
    .probe = user_probe,
    .activate = user_activate_monitored,
    .deactivate = user_deactivate,
    .stage = user_stage,
    .swap = user_swap,
    .unstage = user_unstage,
    .rename = user_rename,
    .message = user_message,
    .hold_mirror_log = user_hold_mirror_log,
    .status = user_status,
    .merge_step = user_merge_step,
    .thin_message = user_thin_message,
    .monitor = user_monitor,
};
