/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/dm_thin.c - the device-mapper devices of thin pools and thin LVs, named,
 * UUID'd and tabled as LVM2 2.03 builds them (lib/activate/dev_manager.c,
 * lib/misc/lvm-string.c build_dm_uuid; docs/dm-formats.md §1, §9):
 *
 *   <vg>-<pool>_tmeta  uuid LVM-<vg><tmeta>-tmeta  the metadata LV's segments
 *   <vg>-<pool>_tdata  uuid LVM-<vg><tdata>-tdata  the data LV's segments
 *   (a raid _tmeta/_tdata: its raid line over <vg>-<pool>_t{meta,data}_r{meta,image}_N,
 *   plain LVM-<vg><sub> UUIDs, made before it and removed after it, as LVM2's tree)
 *   a pool whose transaction_id is 0 ("new", no thin LV was ever made in it):
 *   <vg>-<pool>        uuid LVM-<vg><pool>-tpool   thin-pool <tmeta> <tdata> ...
 *   a used pool:
 *   <vg>-<pool>-tpool  uuid LVM-<vg><pool>-tpool   thin-pool <tmeta> <tdata> ...
 *   <vg>-<pool>        uuid LVM-<vg><pool>-pool    linear <tpool> 0, read-only
 *                      (only while the pool LV itself is active)
 *   <vg>-<thin>        uuid LVM-<vg><thin>         thin <tpool> <device_id> [<ext>-real]
 *   <vg>-<ext>-real    uuid LVM-<vg><ext>-real     a thin LV's external origin: its own
 *                      segments, read-only (gone with the last active thin LV using it
 *                      and the origin's own device)
 *   <vg>-<ext>         uuid LVM-<vg><ext>          the external origin active itself:
 *                      linear <ext>-real 0 (LVM2's layer), read-only
 *
 * When a new pool becomes used, its live thin-pool device is renamed to <pool>-tpool
 * (its UUID stays), as LVM2 does.  A thin LV brings up its pool's -tpool stack; the
 * stack goes when neither the pool LV nor any of its thin LVs is active.
 *
 * Messages (create_thin, create_snap, delete) go to the thin-pool device after it is
 * loaded, then set_transaction_id; before them the kernel's transaction id must be the
 * metadata's minus the number of messages (LVM2's check).  A thin origin that is
 * active is suspended around create_snap (with its -real layer when it has COW
 * snapshots).  A thin origin of COW snapshots (dm_snapshot.c) gets its thin table as
 * its -real layer from lvx_dm_thin_table().
 *
 * Before a thin-pool device is made, thin_check runs on its metadata as LVM2 runs it
 * (global/thin_check_executable and _options; skipped for a new, zeroed pool).
 *
 * Status: "<tid> <used meta>/<total meta> <used data>/<total data> ..." of the pool,
 * "<mapped sectors> <highest>" of a thin LV (dm-thin.c pool_status/thin_status).
 */
#include "activate/dm_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "activate/thin_check.h"
#include "config/config.h"

#include "map/map.h"
#include "model/thin.h"
#include "nodes/dm_nodes.h"

static const char *link_of(const struct lvx_lv *lv)
{
    return (lv->status & LVX_LV_VISIBLE) ? lv->name : NULL;
}

/* ids of lv's device with a UUID suffix but no name layer (tmeta, tdata, a new pool) */
static int ids_suffixed(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *suffix,
                        struct lvx_dm_ids *ids)
{
    int rc = lvx_dm_ids_of(ctx, lv, NULL, ids);
    if (rc == 0 && suffix) {
        size_t len = strlen(ids->uuid);
        snprintf(ids->uuid + len, sizeof(ids->uuid) - len, "-%s", suffix);
    }
    return rc;
}

static bool pool_used(const struct lvx_lv *pool)
{
    const struct lvx_seg *s = lvx_lv_thin_pool_seg(pool);
    return s && s->transaction_id != 0;
}

/* The ids of the pool's thin-pool device (name by the pool's state) and of its top. */
static int tpool_ids(struct lvx_ctx *ctx, const struct lvx_lv *pool, struct lvx_dm_ids *tp)
{
    int rc = pool_used(pool) ? lvx_dm_ids_of(ctx, pool, "tpool", tp)
                             : ids_suffixed(ctx, pool, "tpool", tp);
    return rc;
}

int lvx_dm_thin_pool_ids(struct lvx_ctx *ctx, const struct lvx_lv *pool, struct lvx_dm_ids *ids)
{
    return tpool_ids(ctx, pool, ids);
}

static bool exists_as(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_dm_ids *ids,
                      struct lvx_dm_info *info)
{
    return lvx_dm_info(ctx, dm, ids->name, info) == 0 && info->exists &&
           strcmp(info->uuid, ids->uuid) == 0;
}

static void devno(const struct lvx_dm_info *info, char *out, size_t size)
{
    snprintf(out, size, "%u:%u", info->major, info->minor);
}

/* activation/thin_pool_autoextend_threshold (100 when unset or unreadable): the pool's
 * low water mark follows it, as LVM2's table. */
static int64_t autoextend_threshold(struct lvx_ctx *ctx)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return 100;
    }
    int64_t t = lvx_config_int(cfg, "activation/thin_pool_autoextend_threshold", 100);
    lvx_config_free(cfg);
    return t;
}

static int run_thin_check(struct lvx_ctx *ctx, const struct lvx_lv *pool, const char *meta_dm);

/* Bring up tmeta, tdata and the thin-pool device; its "maj:min" in dev. */
static int pool_up(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_lv *pool,
                   bool partial, char *dev, size_t size)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    struct lvx_dm_ids meta, data, tp;
    struct lvx_dm_info info;
    struct lvx_buf t = LVX_BUF_INIT;
    char mdev[32], ddev[32];
    int rc;
    if ((rc = ids_suffixed(ctx, ps->metadata_lv, "tmeta", &meta)) < 0 ||
        (rc = ids_suffixed(ctx, ps->data_lv, "tdata", &data)) < 0 ||
        (rc = tpool_ids(ctx, pool, &tp)) < 0)
        return rc;
    /* a raid1 _tmeta/_tdata: its rmeta/rimage devices first (LVM2's tree) */
    if ((lvx_map_lv_is_raid(ps->metadata_lv) &&
         (rc = lvx_dm_stacked_subs_up(ctx, &r->dm, ps->metadata_lv)) < 0) ||
        (rc = lvx_activation_dm_table(ctx, ps->metadata_lv, partial, &t)) < 0 ||
        (rc = lvx_dm_put_table(ctx, r, &meta, lvx_buf_str(&t), false, &info)) < 0 ||
        (rc = lvx_dm_nodes_add(ctx, meta.name, info.major, info.minor, NULL, NULL)) < 0)
        goto out;
    devno(&info, mdev, sizeof(mdev));
    lvx_buf_reset(&t);
    if ((lvx_map_lv_is_raid(ps->data_lv) &&
         (rc = lvx_dm_stacked_subs_up(ctx, &r->dm, ps->data_lv)) < 0) ||
        (rc = lvx_activation_dm_table(ctx, ps->data_lv, partial, &t)) < 0 ||
        (rc = lvx_dm_put_table(ctx, r, &data, lvx_buf_str(&t), false, &info)) < 0 ||
        (rc = lvx_dm_nodes_add(ctx, data.name, info.major, info.minor, NULL, NULL)) < 0)
        goto out;
    devno(&info, ddev, sizeof(ddev));
    /* a pool that was new when activated and is used now: its device is renamed */
    if (pool_used(pool)) {
        struct lvx_dm_ids top;
        if ((rc = lvx_dm_ids_of(ctx, pool, NULL, &top)) < 0)
            goto out;
        if (lvx_dm_info(ctx, &r->dm, top.name, &info) == 0 && info.exists &&
            !strcmp(info.uuid, tp.uuid)) {
            if ((rc = lvx_dm_rename(ctx, &r->dm, top.name, tp.name)) < 0)
                goto out;
            lvx_dm_nodes_remove(top.name, pool->vg->name, link_of(pool));
        }
    }
    lvx_buf_reset(&t);
    /* a thin-pool device about to be made: its metadata is checked first, as LVM2 */
    if (lvx_dm_info(ctx, &r->dm, tp.name, &info) == 0 && !info.exists &&
        (rc = run_thin_check(ctx, pool, meta.name)) < 0)
        goto out;
    if ((rc = lvx_map_thin_pool_line(ctx, ps, pool->vg->extent_size, autoextend_threshold(ctx),
                                     mdev, ddev, &t)) < 0 ||
        (rc = lvx_dm_put_table(ctx, r, &tp, lvx_buf_str(&t), false, &info)) < 0)
        goto out;
    if (pool_used(pool))
        rc = lvx_dm_nodes_add(ctx, tp.name, info.major, info.minor, NULL, NULL);
    else
        rc = lvx_dm_nodes_add(ctx, tp.name, info.major, info.minor, pool->vg->name,
                              link_of(pool));
    devno(&info, dev, size);
out:
    lvx_buf_free(&t);
    return rc;
}

/* LVM2's check before a pool's thin-pool table is loaded (activate/thin_check.c) on
 * the node of its _tmeta device under $DM_DEV_DIR. */
static int run_thin_check(struct lvx_ctx *ctx, const struct lvx_lv *pool, const char *meta_dm)
{
    char path[LVX_DM_NAME_MAX + 4128];
    snprintf(path, sizeof(path), "%s/mapper/%s", lvx_dm_dev_dir(), meta_dm);
    return lvx_thin_check_path(ctx, pool, path);
}

/* "<start> <len> thin-pool <tid> <um>/<tm> <ud>/<td> <held root> ro|rw|out_of_data_space
 * <discards> <no space> needs_check|- ..." of the thin-pool device, or "... thin-pool
 * Fail".  flush: the pool commits its metadata first (a transaction id to check); a
 * report reads it without, as LVM2's. */
static int pool_status(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, bool flush,
                       struct lvx_lv_kstate *out)
{
    struct lvx_buf st = LVX_BUF_INIT;
    int rc = flush ? lvx_dm_table(ctx, dm, name, true, &st)
                   : lvx_dm_status_noflush(ctx, dm, name, &st);
    unsigned long long s, l, tid, um, tm, ud, td;
    char root[24], mode[24], disc[24], space[24], check[16];
    int n = 0;
    if (rc == 0 && sscanf(lvx_buf_str(&st), "%llu %llu thin-pool Fai%n", &s, &l, &n) == 2 && n) {
        out->thin_pool = true;
        out->pool_fail = true;
    } else if (rc == 0 && sscanf(lvx_buf_str(&st), "%llu %llu thin-pool %llu %llu/%llu %llu/%llu", &s,
                          &l, &tid, &um, &tm, &ud, &td) == 7) {
        if (sscanf(lvx_buf_str(&st), "%*u %*u thin-pool %*u %*u/%*u %*u/%*u %23s %23s %23s %23s "
                   "%15s", root, mode, disc, space, check) == 5) {
            out->pool_out_of_data = !strcmp(mode, "out_of_data_space");
            out->pool_read_only = !strcmp(mode, "ro");
            out->pool_needs_check = !strcmp(check, "needs_check");
        }
        out->thin_pool = true;
        out->pool_tid = tid;
        out->meta_used = um;
        out->meta_total = tm;
        out->data_used = ud;
        out->data_total = td;
        lvx_activation_pool_discards(lvx_buf_str(&st), out->pool_discards);
    }
    lvx_buf_free(&st);
    return rc;
}

static int check_tid(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *pool,
                     const char *tpname, uint64_t want)
{
    struct lvx_lv_kstate ks;
    memset(&ks, 0, sizeof(ks));
    int rc = pool_status(ctx, dm, tpname, true, &ks);
    if (rc < 0)
        return rc;
    if (!ks.thin_pool || ks.pool_fail)
        return lvx_error(ctx, EIO, "Cannot read the status of thin pool %s%s.", tpname,
                         ks.pool_fail ? " (failed)" : "");
    /* messages queued in the VG metadata: the kernel's may be one behind (libdm's
     * check of a pool's transaction_id before its messages are sent) */
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    unsigned queued = ps && ps->msg_count && want ? 1 : 0;
    if (ks.pool_tid != want && ks.pool_tid + queued != want)
        return lvx_error(ctx, EINVAL, "Thin pool %s transaction_id is %" PRIu64 ", while "
                         "expected %" PRIu64 ".", tpname, ks.pool_tid, want - queued);
    return 0;
}

/* Is any thin LV of pool active (other than except)? */
static bool thins_active(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *pool,
                         const struct lvx_lv *except)
{
    const struct lvx_vg *vg = pool->vg;
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_seg *s = lvx_lv_thin_seg(vg->lvs[i]);
        if (!s || s->pool_lv != pool || vg->lvs[i] == except)
            continue;
        if (lvx_dm_ids_of(ctx, vg->lvs[i], NULL, &ids) == 0 && exists_as(ctx, dm, &ids, &info))
            return true;
    }
    lvx_error_clear(ctx);
    return false;
}

/* The used pool's own device (linear over -tpool, read-only) is active? */
static bool pool_top_active(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *pool)
{
    struct lvx_dm_ids top;
    struct lvx_dm_info info;
    return ids_suffixed(ctx, pool, "pool", &top) == 0 && exists_as(ctx, dm, &top, &info);
}

/* Take the pool's stack down (thin-pool device, tdata, tmeta) when nothing uses it. */
static int pool_down(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *pool,
                     const struct lvx_lv *except)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    struct lvx_dm_ids tp, meta, data, top;
    int rc;
    if (thins_active(ctx, dm, pool, except) || pool_top_active(ctx, dm, pool))
        return 0;
    if ((rc = tpool_ids(ctx, pool, &tp)) < 0 ||
        (rc = ids_suffixed(ctx, ps->metadata_lv, "tmeta", &meta)) < 0 ||
        (rc = ids_suffixed(ctx, ps->data_lv, "tdata", &data)) < 0 ||
        (rc = lvx_dm_ids_of(ctx, pool, "tpool", &top)) < 0)
        return rc;
    if (!pool_used(pool))
        rc = lvx_dm_remove_one(ctx, dm, &tp, pool, false);
    else
        rc = lvx_dm_remove_one(ctx, dm, &tp, NULL, false);
    if (rc == 0)
        rc = lvx_dm_remove_one(ctx, dm, &data, NULL, false);
    if (rc == 0 && lvx_map_lv_is_raid(ps->data_lv))      /* its rmeta/rimage devices */
        rc = lvx_dm_stacked_subs_down(ctx, ps->data_lv);
    if (rc == 0)
        rc = lvx_dm_remove_one(ctx, dm, &meta, NULL, false);
    if (rc == 0 && lvx_map_lv_is_raid(ps->metadata_lv))
        rc = lvx_dm_stacked_subs_down(ctx, ps->metadata_lv);
    return rc;
}

static int activate_pool(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_lv *pool,
                         const struct lvx_activate_opts *opts)
{
    char dev[32];
    struct lvx_dm_ids top;
    struct lvx_dm_info info;
    struct lvx_buf t = LVX_BUF_INIT;
    int rc = pool_up(ctx, r, pool, opts && opts->partial, dev, sizeof(dev));
    if (rc < 0 || !pool_used(pool))
        return rc;
    if ((rc = check_tid(ctx, &r->dm, pool, lvx_dm_ids_of(ctx, pool, "tpool", &top) == 0
                                               ? top.name : "?",
                        lvx_lv_thin_pool_seg(pool)->transaction_id)) < 0 ||
        (rc = ids_suffixed(ctx, pool, "pool", &top)) < 0)
        return rc;
    lvx_buf_printf(&t, "0 %" PRIu64 " linear %s 0\n",
                   pool->le_count * (uint64_t)pool->vg->extent_size, dev);
    /* a used pool's device has no /dev/<vg>/<pool> link (LVM2's _lv_has_mknode): one left
     * from when the pool was new goes */
    lvx_dm_nodes_remove(top.name, pool->vg->name, link_of(pool));
    if ((rc = lvx_dm_put_table(ctx, r, &top, lvx_buf_str(&t), true, &info)) == 0)
        rc = lvx_dm_nodes_add(ctx, top.name, info.major, info.minor, NULL, NULL);
    lvx_buf_free(&t);
    return rc;
}

/* The external origin's <vg>-<ext>-real device, its own segments loaded read-only
 * (LVM2's layer of an external origin), created or reused; "major:minor" in dev. */
static int ext_real_up(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_lv *ext,
                       bool partial, char *dev, size_t n)
{
    struct lvx_dm_ids real;
    struct lvx_dm_info info;
    struct lvx_buf t = LVX_BUF_INIT;
    int rc = lvx_dm_ids_of(ctx, ext, "real", &real);
    if (rc == 0 && (rc = lvx_activation_dm_table(ctx, ext, partial, &t)) == 0 &&
        (rc = lvx_dm_put_table(ctx, r, &real, lvx_buf_str(&t), true, &info)) == 0 &&
        (rc = lvx_dm_nodes_add(ctx, real.name, info.major, info.minor, NULL, NULL)) == 0)
        snprintf(dev, n, "%u:%u", info.major, info.minor);
    lvx_buf_free(&t);
    return rc;
}

/* The external origin's -real device goes when neither the origin's own device nor
 * an active thin LV but except uses it. */
static int ext_real_down(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *ext,
                         const struct lvx_lv *except)
{
    const struct lvx_vg *vg = ext->vg;
    struct lvx_dm_ids own;
    struct lvx_dm_info own_info;
    if (lvx_dm_ids_of(ctx, ext, NULL, &own) == 0 && exists_as(ctx, dm, &own, &own_info))
        return 0;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_lv *o = vg->lvs[i];
        const struct lvx_seg *s = lvx_lv_thin_seg(o);
        struct lvx_dm_ids ids;
        struct lvx_dm_info info;
        if (o != except && s && s->external_lv == ext && lvx_dm_ids_of(ctx, o, NULL, &ids) == 0 &&
            exists_as(ctx, dm, &ids, &info))
            return 0;
    }
    return lvx_dm_drop_real(ctx, dm, ext);
}

/* An external origin active itself: LVM2's layer, its own device "0 <len> linear
 * <ext>-real 0" (read-only as the LV) over the -real device its thin LVs use too. */
static int activate_ext(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_lv *ext,
                        const struct lvx_activate_opts *opts)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    struct lvx_buf t = LVX_BUF_INIT;
    char edev[32];
    int rc;
    if ((rc = lvx_dm_ids_of(ctx, ext, NULL, &ids)) < 0 ||
        (rc = ext_real_up(ctx, r, ext, opts && opts->partial, edev, sizeof(edev))) < 0)
        return rc;
    lvx_buf_printf(&t, "0 %" PRIu64 " linear %s 0\n",
                   ext->le_count * (uint64_t)ext->vg->extent_size, edev);
    if ((rc = lvx_dm_put_table(ctx, r, &ids, lvx_buf_str(&t),
                               lvx_activation_read_only(ext, opts), &info)) == 0)
        rc = lvx_dm_nodes_add(ctx, ids.name, info.major, info.minor, ext->vg->name,
                              link_of(ext));
    lvx_buf_free(&t);
    return rc;
}

/* The thin device thin's table maps: its own, or for the origin of a waiting merge its
 * snapshot's (LVM2's merge at activation, lib/activate/dev_manager.c) unless the merge
 * must wait: the snapshot is active, or the origin is active and open with its own
 * device still mapped. */
static uint32_t thin_device_id(struct lvx_ctx *ctx, struct lvx_dm *dm,
                               const struct lvx_lv *thin)
{
    uint32_t own = lvx_lv_thin_seg(thin)->device_id;
    const struct lvx_seg *m = lvx_thin_merging_into(thin);
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    if (!m)
        return own;
    if (lvx_dm_ids_of(ctx, m->lv, NULL, &ids) == 0 &&
        lvx_dm_info(ctx, dm, ids.name, &info) == 0 && info.exists)
        return own;
    if (lvx_dm_ids_of(ctx, thin, NULL, &ids) == 0 &&
        lvx_dm_info(ctx, dm, ids.name, &info) == 0 && info.exists) {
        struct lvx_buf t = LVX_BUF_INIT;
        unsigned long long s, l;
        unsigned id = 0;
        bool mapped = lvx_dm_table(ctx, dm, ids.name, false, &t) == 0 &&
                      sscanf(lvx_buf_str(&t), "%llu %llu thin %*s %u", &s, &l, &id) == 3;
        lvx_buf_free(&t);
        if (mapped && id == m->device_id)
            return id;
        if (info.open_count > 0)
            return own;
    }
    return m->device_id;
}

int lvx_dm_thin_table(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_lv *thin,
                      const struct lvx_activate_opts *opts, struct lvx_buf *out)
{
    const struct lvx_lv *pool = lvx_lv_thin_seg(thin)->pool_lv;
    char dev[32];
    struct lvx_dm_ids tp;
    int rc;
    const struct lvx_lv *ext = lvx_lv_thin_seg(thin)->external_lv;
    char edev[32];
    if (!pool_used(pool))
        return lvx_error(ctx, EINVAL, "Thin pool %s/%s of %s has transaction_id 0.",
                         pool->vg->name, pool->name, thin->name);
    if ((rc = pool_up(ctx, r, pool, opts && opts->partial, dev, sizeof(dev))) < 0 ||
        (rc = tpool_ids(ctx, pool, &tp)) < 0 ||
        (rc = check_tid(ctx, &r->dm, pool, tp.name,
                        lvx_lv_thin_pool_seg(pool)->transaction_id)) < 0)
        return rc;
    if (ext && (rc = ext_real_up(ctx, r, ext, opts && opts->partial, edev, sizeof(edev))) < 0)
        return rc;
    lvx_map_thin_line(thin, thin_device_id(ctx, &r->dm, thin), dev, ext ? edev : NULL, out);
    return 0;
}

int lvx_dm_thin_origin_gone(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *thin)
{
    return pool_down(ctx, dm, lvx_lv_thin_seg(thin)->pool_lv, thin);
}

static int activate_thin(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_lv *thin,
                         const struct lvx_activate_opts *opts)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    struct lvx_buf t = LVX_BUF_INIT;
    int rc;
    if ((rc = lvx_dm_ids_of(ctx, thin, NULL, &ids)) < 0 ||
        (rc = lvx_dm_thin_table(ctx, r, thin, opts, &t)) < 0) {
        lvx_buf_free(&t);
        return rc;
    }
    if ((rc = lvx_dm_put_lv_table(ctx, r, &ids, thin, lvx_buf_str(&t),
                                  lvx_activation_read_only(thin, opts), &info)) == 0)
        rc = lvx_dm_nodes_add(ctx, ids.name, info.major, info.minor, thin->vg->name,
                              link_of(thin));
    if (rc == 0)    /* an origin whose last COW snapshot went: its -real layer goes */
        rc = lvx_dm_drop_real(ctx, &r->dm, thin);
    lvx_buf_free(&t);
    return rc;
}

int lvx_dm_thin_activate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                         const struct lvx_activate_opts *opts)
{
    struct lvx_dm_run *r = calloc(1, sizeof(*r));
    if (!r)
        abort();
    int rc = lvx_dm_open(ctx, &r->dm);
    if (rc == 0) {
        rc = lvx_lv_is_thin(lv)              ? activate_thin(ctx, r, lv, opts)
             : lvx_lv_is_external_origin(lv) ? activate_ext(ctx, r, lv, opts)
                                             : activate_pool(ctx, r, lv, opts);
        if (rc < 0)
            lvx_dm_run_undo(ctx, r);
        lvx_dm_close(&r->dm);
    }
    free(r);
    return rc;
}

int lvx_dm_thin_deactivate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                           const struct lvx_activate_opts *opts)
{
    struct lvx_dm dm;
    struct lvx_dm_ids ids;
    bool force = opts && opts->force;
    int rc = lvx_dm_open(ctx, &dm);
    if (rc < 0)
        return rc;
    const struct lvx_lv *pool = lv;
    if (!lvx_lv_is_thin(lv) && lvx_lv_is_external_origin(lv)) {
        if ((rc = lvx_dm_ids_of(ctx, lv, NULL, &ids)) == 0 &&
            (rc = lvx_dm_remove_one(ctx, &dm, &ids, lv, force)) == 0)
            rc = ext_real_down(ctx, &dm, lv, NULL);
    } else if (lvx_lv_is_thin(lv)) {
        pool = lvx_lv_thin_seg(lv)->pool_lv;
        const struct lvx_lv *ext = lvx_lv_thin_seg(lv)->external_lv;
        if ((rc = lvx_dm_ids_of(ctx, lv, NULL, &ids)) == 0)
            rc = lvx_dm_remove_one(ctx, &dm, &ids, lv, force);
        if (rc == 0)    /* an origin whose COW snapshots were just taken away */
            rc = lvx_dm_drop_real(ctx, &dm, lv);
        if (rc == 0 && ext)
            rc = ext_real_down(ctx, &dm, ext, lv);
        if (rc == 0)
            rc = pool_down(ctx, &dm, pool, lv);
    } else if (pool_used(lv)) {
        if ((rc = ids_suffixed(ctx, lv, "pool", &ids)) == 0)
            rc = lvx_dm_remove_one(ctx, &dm, &ids, lv, force);
        if (rc == 0)
            rc = pool_down(ctx, &dm, lv, NULL);
    } else {
        rc = pool_down(ctx, &dm, lv, NULL);
    }
    lvx_dm_close(&dm);
    return rc;
}

int lvx_dm_thin_message(struct lvx_ctx *ctx, const struct lvx_lv *pool, const char *const *msgs,
                        unsigned n, const struct lvx_lv *suspend)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    struct lvx_dm_run *r = calloc(1, sizeof(*r));
    struct lvx_dm_ids tp, sid, rid;
    struct lvx_dm_info info;
    char dev[32], m[64];
    bool suspended = false, real_suspended = false;
    if (!r)
        abort();
    if (!ps || !ps->transaction_id) {
        free(r);
        return lvx_error(ctx, EINVAL, "Thin pool %s/%s: bad transaction_id.", pool->vg->name,
                         pool->name);
    }
    int rc = lvx_dm_open(ctx, &r->dm);
    if (rc < 0) {
        free(r);
        return rc;
    }
    bool was_up = false;
    if ((rc = tpool_ids(ctx, pool, &tp)) < 0)
        goto out;
    was_up = thins_active(ctx, &r->dm, pool, NULL) || pool_top_active(ctx, &r->dm, pool);
    bool top_was_pool = false;      /* the thin-pool device itself under the pool's name */
    struct lvx_dm_ids top;
    {   /* a new pool active under its own name counts too */
        if (lvx_dm_ids_of(ctx, pool, NULL, &top) == 0 &&
            lvx_dm_info(ctx, &r->dm, top.name, &info) == 0 && info.exists) {
            was_up = true;
            top_was_pool = !strcmp(info.uuid, tp.uuid);
        }
    }
    /* an active pool is used as it is (LVM2 sends messages to the -tpool it finds; its
     * sub-LVs are not reloaded), else brought up for the messages */
    bool tp_up = lvx_dm_info(ctx, &r->dm, tp.name, &info) == 0 && info.exists;
    lvx_error_clear(ctx);
    if (!tp_up && (rc = pool_up(ctx, r, pool, false, dev, sizeof(dev))) < 0)
        goto fail;
    struct lvx_lv_kstate ks;
    memset(&ks, 0, sizeof(ks));
    if ((rc = pool_status(ctx, &r->dm, tp.name, false, &ks)) < 0)
        goto fail;
    if (ks.thin_pool && !ks.pool_fail && ks.pool_tid == ps->transaction_id) {
        n = 0;      /* libdm: the transaction_id matches, the messages were committed */
        goto sent;
    }
    if (!ks.thin_pool || ks.pool_fail || ks.pool_tid + 1 != ps->transaction_id) {
        rc = lvx_error(ctx, EINVAL, "Thin pool %s transaction_id is %" PRIu64 ", while "
                       "expected %" PRIu64 ".", tp.name, ks.pool_tid, ps->transaction_id - 1);
        goto fail;
    }
    if (ks.pool_read_only || ks.pool_needs_check) {
        rc = lvx_error(ctx, EINVAL, "Cannot send messages to thin pool %s%s%s.", tp.name,
                       ks.pool_read_only ? " with read only metadata" : "",
                       ks.pool_needs_check ? " which needs check first" : "");
        goto fail;
    }
    if (suspend && lvx_dm_ids_of(ctx, suspend, NULL, &sid) == 0 &&
        exists_as(ctx, &r->dm, &sid, &info) && !info.suspended) {
        if ((rc = lvx_dm_suspend(ctx, &r->dm, sid.name)) < 0)
            goto fail;
        suspended = true;
    }
    /* an origin with COW snapshots: its thin device is the -real layer under it */
    if (suspended && lvx_dm_ids_of(ctx, suspend, "real", &rid) == 0 &&
        exists_as(ctx, &r->dm, &rid, &info) && !info.suspended) {
        if ((rc = lvx_dm_suspend(ctx, &r->dm, rid.name)) < 0)
            goto resume;
        real_suspended = true;
    }
    for (unsigned i = 0; i < n && rc == 0; i++)
        rc = lvx_dm_message(ctx, &r->dm, tp.name, 0, msgs[i]);
    if (rc == 0) {
        snprintf(m, sizeof(m), "set_transaction_id %" PRIu64 " %" PRIu64,
                 ps->transaction_id - 1, ps->transaction_id);
        rc = lvx_dm_message(ctx, &r->dm, tp.name, 0, m);
    }
    if (rc == 0) {  /* libdm reads it back: a pool that failed on its commit says so */
        memset(&ks, 0, sizeof(ks));
        if ((rc = pool_status(ctx, &r->dm, tp.name, false, &ks)) == 0 &&
            (!ks.thin_pool || ks.pool_fail || ks.pool_tid != ps->transaction_id))
            rc = lvx_error(ctx, EIO, "Thin pool %s transaction_id is %" PRIu64 " and does "
                           "not match expected  %" PRIu64 ".", tp.name, ks.pool_tid,
                           ps->transaction_id);
    }
resume:
    if (suspended) {
        int err = ctx->err;
        char msg[sizeof(ctx->errmsg)];
        memcpy(msg, ctx->errmsg, sizeof(msg));
        int r2 = real_suspended ? lvx_dm_resume(ctx, &r->dm, rid.name, NULL) : 0;
        int r3 = lvx_dm_resume(ctx, &r->dm, sid.name, NULL);
        r2 = r2 < 0 ? r2 : r3;
        if (rc == 0)
            rc = r2;
        else {
            ctx->err = err;
            memcpy(ctx->errmsg, msg, sizeof(msg));
        }
    }
sent:
    if (rc < 0) {   /* the pool as it was: a failed message changed nothing in it */
        int err = ctx->err;
        char msg[sizeof(ctx->errmsg)];
        memcpy(msg, ctx->errmsg, sizeof(msg));
        if (top_was_pool && lvx_dm_info(ctx, &r->dm, top.name, &info) == 0 && !info.exists &&
            lvx_dm_info(ctx, &r->dm, tp.name, &info) == 0 && info.exists &&
            lvx_dm_rename(ctx, &r->dm, tp.name, top.name) == 0) {
            lvx_dm_nodes_remove(tp.name, NULL, NULL);
            (void)lvx_dm_nodes_add(ctx, top.name, info.major, info.minor, pool->vg->name,
                                   link_of(pool));
        }
        ctx->err = err;
        memcpy(ctx->errmsg, msg, sizeof(msg));
        goto fail;
    }
    /* the pool LV was active as a new pool: its read-only top device comes with the rename */
    if (was_up && pool_used(pool) && !thins_active(ctx, &r->dm, pool, NULL) &&
        !pool_top_active(ctx, &r->dm, pool))
        rc = activate_pool(ctx, r, pool, NULL);
    else if (!was_up)
        rc = pool_down(ctx, &r->dm, pool, NULL);
    goto out;
fail:
    lvx_dm_run_undo(ctx, r);
out:
    lvx_dm_close(&r->dm);
    free(r);
    return rc;
}

int lvx_dm_thin_status(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                       struct lvx_dm_info *info, struct lvx_lv_kstate *out)
{
    struct lvx_dm_ids ids;
    int rc;
    if (lvx_lv_is_thin(lv)) {
        if ((rc = lvx_dm_ids_of(ctx, lv, NULL, &ids)) < 0 ||
            (rc = lvx_dm_info(ctx, dm, ids.name, info)) < 0 || !info->exists)
            return rc;
        struct lvx_buf st = LVX_BUF_INIT;
        unsigned long long s, l, mapped;
        if ((rc = lvx_dm_table(ctx, dm, ids.name, true, &st)) == 0 &&
            strstr(lvx_buf_str(&st), " snapshot-origin") &&    /* COW snapshots: -real's */
            lvx_dm_ids_of(ctx, lv, "real", &ids) == 0) {
            lvx_buf_reset(&st);
            rc = lvx_dm_table(ctx, dm, ids.name, true, &st);
        }
        int n = 0;
        if (rc == 0 && sscanf(lvx_buf_str(&st), "%llu %llu thin %llu", &s, &l, &mapped) == 3) {
            out->thin = true;
            out->thin_mapped = mapped;
        } else if (rc == 0 && sscanf(lvx_buf_str(&st), "%llu %llu thin Fai%n", &s, &l, &n) == 2 &&
                   n) {
            out->thin = true;           /* its pool failed */
            out->thin_fail = true;
        }
        /* the origin of a waiting thin merge: which thin device its table maps (the
         * merge is done in the kernel when it is the snapshot's) */
        unsigned id;
        if (rc == 0 && out->thin && lvx_thin_merging_into(lv)) {
            lvx_buf_reset(&st);
            if ((rc = lvx_dm_table(ctx, dm, ids.name, false, &st)) == 0 &&
                sscanf(lvx_buf_str(&st), "%llu %llu thin %*s %u", &s, &l, &id) == 3) {
                out->thin_dev_known = true;
                out->thin_dev_id = id;
            }
        }
        lvx_buf_free(&st);
        return rc;
    }
    /* a pool: active when its own device exists (as LVM2 sees it); the open count
     * and the status are the thin-pool device's */
    struct lvx_dm_ids tp, top;
    struct lvx_dm_info ti;
    if ((rc = tpool_ids(ctx, lv, &tp)) < 0 || (rc = lvx_dm_ids_of(ctx, lv, NULL, &top)) < 0 ||
        (rc = lvx_dm_info(ctx, dm, top.name, info)) < 0 ||
        (rc = lvx_dm_info(ctx, dm, tp.name, &ti)) < 0 || !ti.exists)
        return rc;
    if (!info->exists)      /* the pool LV inactive, its -tpool up for thin LVs: LVM2
                             * reports the pool's usage all the same */
        return pool_status(ctx, dm, tp.name, false, out);
    if (strcmp(tp.name, top.name) != 0)
        *info = ti;         /* the pool's own device is LVM2's read-only layer over the
                             * -tpool; LVM2 reports the -tpool's state ('w', "writeable") */
    return pool_status(ctx, dm, tp.name, false, out);
}
