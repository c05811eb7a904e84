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
 *              the daemon re-reads the metadata, the loop device its capacity;
 *   rename, status (open = the loop device is held exclusively, e.g. mounted).
 *
 * probe: /dev/fuse and /dev/loop-control usable, root; a daemon that died
 * while LVs were active is restarted here, so the next lvx command brings them
 * back.
 */
#include "activate/activate.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map/dm_names.h"
#include "map/map.h"
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

/* " /abs/dev1 /abs/dev2 ..." of the VG's present PVs. */
static int device_words(struct lvx_ctx *ctx, const struct lvx_vg *vg, struct lvx_buf *out)
{
    for (unsigned i = 0; i < vg->pv_count; i++) {
        const struct lvx_pv *pv = vg->pvs[i];
        if (!pv->ondisk.present || !pv->ondisk.dev_name)
            continue;
        char abs[PATH_MAX];
        const char *name = pv->ondisk.dev_name;
        if (name[0] != '/' && realpath(name, abs))
            name = abs;
        if (strpbrk(name, " \t\n"))
            return lvx_error(ctx, EINVAL, "Device name \"%s\" contains blanks.", name);
        lvx_buf_printf(out, " %s", name);
    }
    return 0;
}

/* "su=256k,sw=4" hint for striped LVs. */
static void geometry_hint(struct lvx_ctx *ctx, uint64_t io_min, uint64_t io_opt)
{
    if (!io_min || io_opt <= io_min || io_opt % io_min)
        return;
    lvx_notice(ctx, "Stripe geometry hidden by the loop device: use mkfs.xfs -d su=%" PRIu64
               "k,sw=%" PRIu64, io_min / 1024, io_opt / io_min);
}

static int user_activate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                         const struct lvx_activate_opts *opts)
{
    if (lvx_map_refuse_snapshots(ctx, lv) < 0)
        return ctx->err;
    struct lvx_buf req = LVX_BUF_INIT, reply = LVX_BUF_INIT;
    /* FLAGS: 1 read-only, 2 partial (the daemon serves the present PVs, the missing
     * ones' extents fail with EIO) */
    const char *dev_dir = lvx_dm_dev_dir();
    lvx_buf_printf(&req, "activate %s %s %s %d %s", lv->vg->name, lv->name, lv->uuid,
                   (lvx_activation_read_only(lv, opts) ? 1 : 0) |
                       (opts && opts->partial ? 2 : 0), dev_dir);
    int rc = strpbrk(dev_dir, " \t\n") || dev_dir[0] != '/'
                 ? lvx_error(ctx, EINVAL, "DM_DEV_DIR \"%s\" must be an absolute path without "
                             "blanks.", dev_dir)
                 : device_words(ctx, lv->vg, &req);
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
        } else if ((rc = lvx_user_nodes_add(ctx, dev_dir, lv->vg->name, lv->name, loop)) == 0) {
            geometry_hint(ctx, io_min, io_opt);
        }
    }
    lvx_buf_free(&req);
    lvx_buf_free(&reply);
    return rc;
}

static int user_deactivate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
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

static int user_stage(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                      const struct lvx_activate_opts *opts)
{
    int rc = lvx_activation_check(ctx, lv, opts);   /* the new mapping goes live at swap */
    return rc < 0 ? rc : lvx_map_refuse_snapshots(ctx, lv);
}

static int user_swap(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    struct lvx_buf req = LVX_BUF_INIT;
    lvx_buf_printf(&req, "reload %s %s", lv->vg->name, lv->name);
    int rc = device_words(ctx, lv->vg, &req);
    if (rc == 0)
        rc = lvx_daemon_call(ctx, lvx_buf_str(&req), false, NULL);
    lvx_buf_free(&req);
    return rc;
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
            out->major = maj;
            out->minor = min;
            char path[128];
            snprintf(path, sizeof(path), "/sys/dev/block/%d:%d/queue/read_ahead_kb", maj, min);
            FILE *f = fopen(path, "r");
            long long kb;
            if (f && fscanf(f, "%lld", &kb) == 1)
                out->read_ahead = kb * 2;
            if (f)
                fclose(f);
            /* RAID LVs: " raid <health> <done>/<total> <action>" after the size */
            const char *raid = strstr(lvx_buf_str(&reply), " raid ");
            if (raid && sscanf(raid, " raid %256s %" SCNu64 "/%" SCNu64 " %15s", out->raid_health,
                               &out->sync_done, &out->sync_total, out->sync_action) == 4)
                out->raid = true;
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
    return lvx_user_nodes_add(ctx, lvx_dm_dev_dir(), new_vg, new_lv, loop);
}

const struct lvx_activation_backend lvx_activation_user = {
    .name = "user",
    .raid = true,          /* the daemon's RAID target (raid1, raid10) refuses the rest */
    .probe = user_probe,
    .activate = user_activate,
    .deactivate = user_deactivate,
    .stage = user_stage,
    .swap = user_swap,
    .unstage = user_unstage,
    .rename = user_rename,
    .status = user_status,
};
