/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/dm_snapshot.c - the device-mapper devices of an origin with COW
 * snapshots, named, UUID'd and tabled as LVM2 2.03 builds them (docs/dm-formats.md §1):
 *
 *   <vg>-<origin>-real   uuid LVM-<vg><origin>-real  the origin's own segments
 *   <vg>-<snap>-cow      uuid LVM-<vg><snap>-cow     the COW LV's own segments
 *   <vg>-<snap>          uuid LVM-<vg><snap>         0 N snapshot <real> <cow> P <chunk>
 *   <vg>-<origin>        uuid LVM-<vg><origin>       0 N snapshot-origin <real>
 *
 * (<snap> is the COW LV the user named; the internal snapshotN LV has no device.)
 * An old-style mirror origin: -real is its mirror table, over its sub-LV devices
 * (made before -real, removed after it).  A thin origin: -real is its thin table over
 * the pool's stack (brought up before -real, taken down after it when unused).
 * The set is activated and deactivated as a whole, as LVM2 does for an origin and
 * for any of its snapshots.  Activating: the live origin (if any) is suspended
 * first, so no write reaches the PVs past a snapshot being set up; then -real, each
 * -cow and snapshot (created, or reloaded when their live table differs), then the
 * origin's snapshot-origin table, resumed last.  A failure removes the devices this
 * call created and resumes the origin.  A persistent minor (lvcreate --minor, lvchange
 * -My) goes to the LV's top device, as LVM2's dev_manager.c gives it to the layer-less
 * node only: the origin's snapshot-origin device, the COW LV's snapshot device; -real
 * and -cow get the kernel's.
 *
 * An origin with a merging snapshot (lvconvert --merge) gets LVM2's merge layout
 * when the merge can run (it already runs, or neither the origin nor the merging
 * snapshot is open, as dev_manager.c decides): the origin's table is
 * `snapshot-merge <real> <cow> P <chunk>` and the merging snapshot's own device the
 * error target (the kernel copies the COW's chunks back into -real); otherwise the
 * usual tables, and the merge waits for the next activation.
 *
 * Snapshot status ("<used>/<total> <metadata>", "Invalid", "Overflow", "Merge
 * failed", dm-snap.c snapshot_status) gives the snap_percent of the reports and,
 * on a merging origin (target snapshot-merge), the merge's progress.
 */
#include "activate/dm_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "model/snapshot.h"
#include "model/thin.h"
#include "nodes/dm_nodes.h"

#define MAX_SNAPS 256

const struct lvx_lv *lvx_dm_set_head(const struct lvx_lv *lv, bool *has_snapshots)
{
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv);
    if (cs && cs->origin_lv)
        lv = cs->origin_lv;
    *has_snapshots = lvx_lv_snapshot_segs(lv, NULL, 0) > 0;
    return lv;
}

/* The device exists with uuid, or is created (remembered for undo).  *info filled. */
static int ensure_device(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_dm_ids *ids,
                         const struct lvx_lv *lv, struct lvx_dm_info *info)
{
    uint32_t fmaj = 0, fmin = 0;
    int rc = lvx_dm_info(ctx, &r->dm, ids->name, info);
    if (rc < 0)
        return rc;
    if (info->exists) {
        if (strcmp(info->uuid, ids->uuid) != 0)
            return lvx_error(ctx, EEXIST, "Cannot activate: device-mapper device %s already "
                             "exists with UUID \"%s\".", ids->name, info->uuid);
        return 0;
    }
    if (lv)
        lvx_dm_fixed_devno(lv, &fmaj, &fmin);
    if ((rc = lvx_dm_create(ctx, &r->dm, ids->name, ids->uuid, fmaj, fmin, NULL)) < 0)
        return rc;
    snprintf(r->made[r->made_count++].name, sizeof(r->made[0].name), "%s", ids->name);
    info->live_table = false;
    return 0;
}

int lvx_dm_put_table(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_dm_ids *ids,
                     const char *table, bool ro, struct lvx_dm_info *info)
{
    return lvx_dm_put_lv_table(ctx, r, ids, NULL, table, ro, info);
}

/* Make table live on the device (created when missing, with lv's persistent minor),
 * unless it already is. */
int lvx_dm_put_lv_table(struct lvx_ctx *ctx, struct lvx_dm_run *r, const struct lvx_dm_ids *ids,
                        const struct lvx_lv *lv, const char *table, bool ro,
                        struct lvx_dm_info *info)
{
    int rc = ensure_device(ctx, r, ids, lv, info);
    if (rc < 0)
        return rc;
    if (info->live_table) {
        struct lvx_buf live = LVX_BUF_INIT;
        rc = lvx_dm_table(ctx, &r->dm, ids->name, false, &live);
        bool same = rc == 0 && info->read_only == ro && strcmp(lvx_buf_str(&live), table) == 0;
        lvx_buf_free(&live);
        if (rc < 0)
            return rc;
        if (same && !info->suspended)
            return 0;
        if (!same && (rc = lvx_dm_load(ctx, &r->dm, ids->name, table, ro)) < 0)
            return rc;
        if (!info->suspended && (rc = lvx_dm_suspend(ctx, &r->dm, ids->name)) < 0)
            return rc;
    } else if ((rc = lvx_dm_load(ctx, &r->dm, ids->name, table, ro)) < 0) {
        return rc;
    }
    return lvx_dm_resume(ctx, &r->dm, ids->name, info);
}

void lvx_dm_run_undo(struct lvx_ctx *ctx, struct lvx_dm_run *r)
{
    int err = ctx->err;
    char msg[sizeof(ctx->errmsg)];
    memcpy(msg, ctx->errmsg, sizeof(msg));
    while (r->made_count > 0) {
        const char *name = r->made[--r->made_count].name;
        lvx_dm_remove_retry(ctx, &r->dm, name, false);
        lvx_dm_nodes_remove(name, NULL, NULL);
    }
    ctx->err = err;
    memcpy(ctx->errmsg, msg, sizeof(msg));
}

static int layer_table(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial,
                       struct lvx_buf *out)
{
    return lvx_activation_dm_table(ctx, lv, partial, out);
}

/* The live target of device name ("" when none or no device). */
static void live_target(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, char *out,
                        size_t size)
{
    struct lvx_buf t = LVX_BUF_INIT;
    unsigned long long start, len;
    out[0] = 0;
    if (lvx_dm_table(ctx, dm, name, false, &t) == 0 &&
        sscanf(lvx_buf_str(&t), "%llu %llu %31s", &start, &len, out) != 3)
        out[0] = 0;
    (void)size;
    lvx_buf_free(&t);
    lvx_error_clear(ctx);
}

/* Can the merge of origin's merging snapshot run now (LVM2's dev_manager rules)? */
static bool merge_can_run(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_dm_ids *top,
                          const struct lvx_dm_info *top_info, const struct lvx_seg *merge)
{
    struct lvx_dm_ids sid;
    struct lvx_dm_info info;
    char target[32];
    if (top_info->exists && top_info->live_table) {
        live_target(ctx, dm, top->name, target, sizeof(target));
        if (!strcmp(target, "snapshot-merge"))
            return true;                  /* already merging */
        if (top_info->open_count > 0)
            return false;
    }
    if (lvx_dm_ids_of(ctx, merge->cow_lv, NULL, &sid) < 0) {
        lvx_error_clear(ctx);
        return false;
    }
    bool open = lvx_dm_info(ctx, dm, sid.name, &info) == 0 && info.exists && info.open_count > 0;
    lvx_error_clear(ctx);
    return !open;
}

int lvx_dm_activate_set(struct lvx_ctx *ctx, const struct lvx_lv *origin,
                        const struct lvx_activate_opts *opts)
{
    const struct lvx_seg *snaps[MAX_SNAPS];
    unsigned n = lvx_lv_snapshot_segs(origin, snaps, MAX_SNAPS);
    if (n > MAX_SNAPS)
        return lvx_error(ctx, ENOTSUP, "Origin %s/%s has more than %u snapshots.",
                         origin->vg->name, origin->name, MAX_SNAPS);
    bool partial = opts && opts->partial;
    uint64_t sectors = origin->le_count * (uint64_t)origin->vg->extent_size;
    struct lvx_dm_ids top, real;
    struct lvx_dm_info top_info, info;
    struct lvx_buf t = LVX_BUF_INIT;
    struct lvx_dm_run *r = calloc(1, sizeof(*r));
    bool suspended = false;
    int rc;
    if (!r)
        abort();
    if ((rc = lvx_dm_ids_of(ctx, origin, NULL, &top)) < 0 ||
        (rc = lvx_dm_ids_of(ctx, origin, "real", &real)) < 0 ||
        (rc = lvx_dm_open(ctx, &r->dm)) < 0) {
        free(r);
        return rc;
    }
    bool ro = lvx_activation_read_only(origin, opts);
    if ((rc = lvx_dm_info(ctx, &r->dm, top.name, &top_info)) < 0)
        goto out;
    if (top_info.exists && strcmp(top_info.uuid, top.uuid) != 0) {
        rc = lvx_error(ctx, EEXIST, "Cannot activate %s/%s: device-mapper device %s already "
                       "exists with UUID \"%s\".", origin->vg->name, origin->name, top.name,
                       top_info.uuid);
        goto out;
    }
    const struct lvx_seg *merge = lvx_lv_merging_snapshot(origin);
    if (merge && !merge_can_run(ctx, &r->dm, &top, &top_info, merge))
        merge = NULL;
    uint32_t mcow_maj = 0, mcow_min = 0;
    /* hold the origin's I/O while its snapshots are set up */
    if (top_info.exists && top_info.live_table && !top_info.suspended) {
        if ((rc = lvx_dm_suspend(ctx, &r->dm, top.name)) < 0)
            goto out;
        suspended = true;
    }
    bool stacked = lvx_map_lv_is_mirror(origin);    /* -real is the mirror over its subs */
    if (stacked && (rc = lvx_dm_stacked_subs_up(ctx, &r->dm, origin)) < 0)
        goto fail;
    bool thin = lvx_lv_is_thin(origin);     /* -real is the thin LV over its pool */
    if ((rc = thin ? lvx_dm_thin_table(ctx, r, origin, opts, &t)
                   : layer_table(ctx, origin, partial, &t)) < 0 ||
        (rc = lvx_dm_put_table(ctx, r, &real, lvx_buf_str(&t), ro, &info)) < 0 ||
        (rc = lvx_dm_nodes_add(ctx, real.name, info.major, info.minor, NULL, NULL)) < 0)
        goto fail;
    uint32_t real_maj = info.major, real_min = info.minor;
    for (unsigned i = 0; i < n; i++) {
        const struct lvx_lv *cow = snaps[i]->cow_lv;
        struct lvx_dm_ids cid, sid;
        if ((rc = lvx_dm_ids_of(ctx, cow, "cow", &cid)) < 0 ||
            (rc = lvx_dm_ids_of(ctx, cow, NULL, &sid)) < 0)
            goto fail;
        lvx_buf_reset(&t);
        if ((rc = layer_table(ctx, cow, partial, &t)) < 0 ||
            (rc = lvx_dm_put_table(ctx, r, &cid, lvx_buf_str(&t), false, &info)) < 0 ||
            (rc = lvx_dm_nodes_add(ctx, cid.name, info.major, info.minor, NULL, NULL)) < 0)
            goto fail;
        lvx_buf_reset(&t);
        if (snaps[i] == merge) {      /* its chunks go back to -real: no snapshot device */
            mcow_maj = info.major;
            mcow_min = info.minor;
            lvx_buf_printf(&t, "0 %" PRIu64 " error\n", sectors);
        } else {
            lvx_buf_printf(&t, "0 %" PRIu64 " snapshot %u:%u %u:%u P %u\n", sectors, real_maj,
                           real_min, info.major, info.minor, snaps[i]->chunk_size);
        }
        if ((rc = lvx_dm_put_lv_table(ctx, r, &sid, cow, lvx_buf_str(&t),
                                      lvx_activation_read_only(cow, opts), &info)) < 0 ||
            (rc = lvx_dm_nodes_add(ctx, sid.name, info.major, info.minor, cow->vg->name,
                                   cow->name)) < 0)
            goto fail;
    }
    lvx_buf_reset(&t);
    if (merge)
        lvx_buf_printf(&t, "0 %" PRIu64 " snapshot-merge %u:%u %u:%u P %u\n", sectors, real_maj,
                       real_min, mcow_maj, mcow_min, merge->chunk_size);
    else
        lvx_buf_printf(&t, "0 %" PRIu64 " snapshot-origin %u:%u\n", sectors, real_maj, real_min);
    if (suspended) {
        if ((rc = lvx_dm_load(ctx, &r->dm, top.name, lvx_buf_str(&t), ro)) < 0 ||
            (rc = lvx_dm_resume(ctx, &r->dm, top.name, &info)) < 0)
            goto fail;
        suspended = false;
    } else if ((rc = lvx_dm_put_lv_table(ctx, r, &top, origin, lvx_buf_str(&t), ro, &info)) < 0) {
        goto fail;
    }
    /* no /dev/VG link for a hidden origin (a sparse snapshot's _vorigin), as LVM2 */
    rc = lvx_dm_nodes_add(ctx, top.name, info.major, info.minor, origin->vg->name,
                          (origin->status & LVX_LV_VISIBLE) ? origin->name : NULL);
    goto out;
fail:
    if (suspended) {
        /* the origin goes back to what it was: its old table, resumed */
        int err = ctx->err;
        char msg[sizeof(ctx->errmsg)];
        memcpy(msg, ctx->errmsg, sizeof(msg));
        lvx_dm_clear(ctx, &r->dm, top.name);
        lvx_dm_resume(ctx, &r->dm, top.name, NULL);
        ctx->err = err;
        memcpy(ctx->errmsg, msg, sizeof(msg));
    }
    lvx_dm_run_undo(ctx, r);
out:
    lvx_buf_free(&t);
    lvx_dm_close(&r->dm);
    free(r);
    return rc;
}

/* Remove one device of the set (nodes too); a missing one is fine. */
int lvx_dm_remove_one(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_dm_ids *ids,
                      const struct lvx_lv *link_lv, bool force)
{
    struct lvx_dm_info info;
    int rc = lvx_dm_info(ctx, dm, ids->name, &info);
    if (rc < 0 || !info.exists)
        goto nodes;
    if (info.open_count > 0 && !force)
        return lvx_error(ctx, EBUSY, "Logical volume %s/%s in use.",
                         link_lv ? link_lv->vg->name : "?", link_lv ? link_lv->name : ids->name);
    if ((rc = lvx_dm_remove_retry(ctx, dm, ids->name, info.open_count > 0)) < 0)
        return rc;
nodes:
    lvx_dm_nodes_remove(ids->name, link_lv ? link_lv->vg->name : NULL,
                        link_lv ? link_lv->name : NULL);
    return rc;
}

static int open_count(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_dm_ids *ids)
{
    struct lvx_dm_info info;
    if (lvx_dm_info(ctx, dm, ids->name, &info) < 0 || !info.exists)
        return 0;
    return info.open_count;
}

int lvx_dm_deactivate_set(struct lvx_ctx *ctx, const struct lvx_lv *origin,
                          const struct lvx_activate_opts *opts)
{
    const struct lvx_seg *snaps[MAX_SNAPS];
    unsigned n = lvx_lv_snapshot_segs(origin, snaps, MAX_SNAPS);
    bool force = opts && opts->force;
    struct lvx_dm dm;
    struct lvx_dm_ids top, real, ids;
    int rc;
    if (n > MAX_SNAPS)
        n = MAX_SNAPS;
    if ((rc = lvx_dm_ids_of(ctx, origin, NULL, &top)) < 0 ||
        (rc = lvx_dm_ids_of(ctx, origin, "real", &real)) < 0 || (rc = lvx_dm_open(ctx, &dm)) < 0)
        return rc;
    /* refuse before removing anything when a visible device is open */
    if (!force) {
        const struct lvx_lv *busy = open_count(ctx, &dm, &top) > 0 ? origin : NULL;
        for (unsigned i = 0; !busy && i < n; i++)
            if (lvx_dm_ids_of(ctx, snaps[i]->cow_lv, NULL, &ids) == 0 &&
                open_count(ctx, &dm, &ids) > 0)
                busy = snaps[i]->cow_lv;
        if (busy) {
            rc = lvx_error(ctx, EBUSY, "Logical volume %s/%s in use.", busy->vg->name, busy->name);
            goto out;
        }
    }
    for (unsigned i = 0; i < n && rc == 0; i++)
        if ((rc = lvx_dm_ids_of(ctx, snaps[i]->cow_lv, NULL, &ids)) == 0)
            rc = lvx_dm_remove_one(ctx, &dm, &ids, snaps[i]->cow_lv, force);
    if (rc == 0)
        rc = lvx_dm_remove_one(ctx, &dm, &top, origin, force);
    for (unsigned i = 0; i < n && rc == 0; i++)
        if ((rc = lvx_dm_ids_of(ctx, snaps[i]->cow_lv, "cow", &ids)) == 0)
            rc = lvx_dm_remove_one(ctx, &dm, &ids, NULL, true);
    if (rc == 0)
        rc = lvx_dm_remove_one(ctx, &dm, &real, NULL, true);
    if (rc == 0 && lvx_map_lv_is_mirror(origin))    /* the mirror's sub-LV devices */
        rc = lvx_dm_stacked_subs_down(ctx, origin);
    if (rc == 0 && lvx_lv_is_thin(origin))          /* the pool's, when unused now */
        rc = lvx_dm_thin_origin_gone(ctx, &dm, origin);
out:
    lvx_dm_close(&dm);
    return rc;
}

int lvx_dm_deactivate_snapshot(struct lvx_ctx *ctx, const struct lvx_lv *cow,
                               const struct lvx_activate_opts *opts)
{
    struct lvx_dm dm;
    struct lvx_dm_ids sid, cid;
    int rc;
    if ((rc = lvx_dm_ids_of(ctx, cow, NULL, &sid)) < 0 ||
        (rc = lvx_dm_ids_of(ctx, cow, "cow", &cid)) < 0 || (rc = lvx_dm_open(ctx, &dm)) < 0)
        return rc;
    if ((rc = lvx_dm_remove_one(ctx, &dm, &sid, cow, opts && opts->force)) == 0)
        rc = lvx_dm_remove_one(ctx, &dm, &cid, NULL, true);
    lvx_dm_close(&dm);
    return rc;
}

int lvx_dm_drop_real(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *origin)
{
    struct lvx_dm_ids real;
    struct lvx_dm_info info;
    int rc;
    if ((rc = lvx_dm_ids_of(ctx, origin, "real", &real)) < 0 ||
        (rc = lvx_dm_info(ctx, dm, real.name, &info)) < 0 || !info.exists)
        return rc;
    if (strcmp(info.uuid, real.uuid) != 0)
        return 0;   /* not ours */
    return lvx_dm_remove_one(ctx, dm, &real, NULL, false);
}

int lvx_dm_snapshot_usage(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                          struct lvx_lv_kstate *out)
{
    struct lvx_buf st = LVX_BUF_INIT;
    int rc = lvx_dm_table(ctx, dm, name, true, &st);
    if (rc < 0) {
        lvx_buf_free(&st);
        return rc;
    }
    /* "<start> <len> snapshot <status>" */
    unsigned long long start, len, used, total, meta;
    char target[32];
    int off = 0;
    const char *s = lvx_buf_str(&st);
    if (sscanf(s, "%llu %llu %31s %n", &start, &len, target, &off) == 3 &&
        (strcmp(target, "snapshot") == 0 || strcmp(target, "snapshot-merge") == 0)) {
        out->snapshot = true;
        out->snap_merging = strcmp(target, "snapshot-merge") == 0;
        const char *p = s + off;
        if (sscanf(p, "%llu/%llu %llu", &used, &total, &meta) == 3) {
            out->snap_used = used;
            out->snap_total = total;
            out->snap_meta = meta;
        } else {
            /* "Invalid", "Overflow", "Merge failed": the snapshot is unusable */
            out->snap_invalid = true;
        }
    }
    lvx_buf_free(&st);
    return 0;
}

/* "maj:min" of a device of the set when it exists in the kernel, else its DM name. */
static void dev_ref(struct lvx_ctx *ctx, struct lvx_dm *dm, bool have_dm, const struct lvx_lv *lv,
                    const char *layer, struct lvx_buf *out)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    if (lvx_dm_ids_of(ctx, lv, layer, &ids) < 0) {
        lvx_error_clear(ctx);
        lvx_buf_puts(out, "?");
        return;
    }
    if (have_dm && lvx_dm_info(ctx, dm, ids.name, &info) == 0 && info.exists &&
        strcmp(info.uuid, ids.uuid) == 0)
        lvx_buf_printf(out, "%u:%u", info.major, info.minor);
    else
        lvx_buf_puts(out, ids.name);
    lvx_error_clear(ctx);
}

/* "<name>: <line>" for each line of table */
static void prefixed(struct lvx_buf *out, const char *name, const char *table)
{
    while (*table) {
        const char *nl = strchr(table, '\n');
        size_t len = nl ? (size_t)(nl - table) : strlen(table);
        lvx_buf_printf(out, "%s: ", name);
        lvx_buf_append(out, table, len);
        lvx_buf_putc(out, '\n');
        table += len + (nl != NULL);
    }
}

int lvx_activation_dm_set_lines(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_buf *out)
{
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv);
    const struct lvx_lv *origin = cs ? cs->origin_lv : lv;
    uint64_t sectors = origin->le_count * (uint64_t)origin->vg->extent_size;
    struct lvx_dm_ids top, layer;
    struct lvx_buf t = LVX_BUF_INIT, real = LVX_BUF_INIT, cow = LVX_BUF_INIT;
    struct lvx_dm dm;
    struct lvx_ctx quiet = *ctx;
    bool have_dm = lvx_dm_open(&quiet, &dm) == 0;
    int rc;
    if ((rc = lvx_dm_ids_of(ctx, lv, NULL, &top)) < 0 ||
        (rc = lvx_dm_ids_of(ctx, lv, cs ? "cow" : "real", &layer)) < 0 ||
        (rc = lvx_map_dm_table(ctx, lv, &t)) < 0)
        goto out;
    dev_ref(&quiet, &dm, have_dm, origin, "real", &real);
    lvx_buf_reset(&t);
    const struct lvx_seg *merge = lvx_lv_merging_snapshot(origin);
    if (cs && cs->merging) {
        lvx_buf_printf(&t, "0 %" PRIu64 " error\n", sectors);
    } else if (cs) {
        dev_ref(&quiet, &dm, have_dm, lv, "cow", &cow);
        lvx_buf_printf(&t, "0 %" PRIu64 " snapshot %s %s P %u\n", sectors, lvx_buf_str(&real),
                       lvx_buf_str(&cow), cs->chunk_size);
    } else if (merge) {
        dev_ref(&quiet, &dm, have_dm, merge->cow_lv, "cow", &cow);
        lvx_buf_printf(&t, "0 %" PRIu64 " snapshot-merge %s %s P %u\n", sectors,
                       lvx_buf_str(&real), lvx_buf_str(&cow), merge->chunk_size);
    } else {
        lvx_buf_printf(&t, "0 %" PRIu64 " snapshot-origin %s\n", sectors, lvx_buf_str(&real));
    }
    prefixed(out, top.name, lvx_buf_str(&t));
    lvx_buf_reset(&t);
    if ((rc = lvx_map_dm_table(ctx, lv, &t)) == 0)
        prefixed(out, layer.name, lvx_buf_str(&t));
out:
    if (have_dm)
        lvx_dm_close(&dm);
    lvx_buf_free(&t);
    lvx_buf_free(&real);
    lvx_buf_free(&cow);
    return rc;
}
