/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/dm_backend.c - the `dm` activation backend: LVs as kernel
 * device-mapper devices, named, UUID'd and tabled as LVM2 does (format §15), so
 * that LVM2 and lvx each see and manage the other's active LVs.
 *
 *   activate   DEV_CREATE (name, uuid[, fixed minor]) -> TABLE_LOAD (read-only
 *              flag for LVs without WRITE) -> resume -> /dev nodes -> read-ahead;
 *              a failure at any step removes what was made (no half devices);
 *   deactivate refuses an open device (unless forced), DEV_REMOVE, nodes removed;
 *   stage/swap/unstage: TABLE_LOAD next to the live table / suspend + resume /
 *              TABLE_CLEAR, for resizing an active LV (a raid LV's sub-LV devices are
 *              made live first: lvconvert's new images);
 *   rename     DEV_RENAME + nodes; status  DEV_STATUS + sysfs read-ahead;
 *   shared VGs: the LV's sanlock lease is taken by the lvx daemon before anything is
 *              made (activate/daemon_lease.c) and released after the devices are gone
 *              or when the activation fails;
 *   monitor    thin pools, snapshots, mirrors and RAID LVs watched by the lvx daemon
 *              after an activation in the command's monitoring mode, no longer once
 *              their devices are gone (activate/dm_watch.c).
 *
 * Tables: one line per segment from map/ (linear, striped, error, zero); with
 * partial activation a segment touching a missing PV becomes one `error` line
 * (whole segment, also for a striped segment with a single missing stripe).
 *
 * RAID LVs (one raid segment): as LVM2, every rmeta/rimage sub-LV is a device of its
 * own (name vg-lv_rimage_0, UUID LVM-<vg><sub-LV>, /dev/mapper node only: hidden
 * LVs get no /dev/<vg> link), activated first; the raid device's line (map/raid.c)
 * names them by major:minor.  Deactivation removes the raid device, then them.  A
 * failure removes the sub-LV devices this call made.  A sub-LV segment on a missing PV
 * (degraded or partial activation) is, as LVM2 makes it, "linear" over an error device
 * of its own, "<vg>-<sub-LV>-missing_<segment>_<area>" (UUID: the sub-LV's with
 * "-missing_S_A"), removed with the sub-LV.  (Only for one-area segments, what RAID
 * sub-LVs have; a striped sub-LV segment on a missing PV is one `error` line.)
 *
 * An origin with COW snapshots and its snapshots are one device set, activated and
 * deactivated together by activate/dm_snapshot.c.  Thin pools and thin LVs (their
 * stacked devices, pool messages, status) are activate/dm_thin.c's.
 */
#include "activate/activate.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "activate/daemon_lease.h"
#include "activate/dm_int.h"
#include "dev/lv_dev.h"
#include "model/snapshot.h"
#include "model/thin.h"
#include "nodes/dm_nodes.h"
#include "map/map.h"

#define REMOVE_RETRIES 10
#define REMOVE_RETRY_USEC 100000

/* The /dev/<vg>/<lv> link name: none for hidden LVs (RAID sub-LVs), as LVM2. */
static const char *link_of(const struct lvx_lv *lv)
{
    return (lv->status & LVX_LV_VISIBLE) ? lv->name : NULL;
}

int lvx_dm_ids_of(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *layer,
                  struct lvx_dm_ids *ids)
{
    const char *vg_name = lv->vg->name;
    struct lvx_buf name = LVX_BUF_INIT, uuid = LVX_BUF_INIT;
    int rc = lvx_dm_lv_name(&name, vg_name, lv->name, layer);
    if (rc < 0) {
        rc = lvx_error(ctx, ENAMETOOLONG, "Device-mapper name of %s/%s is too long.", vg_name,
                       lv->name);
    } else if ((rc = lvx_dm_lv_uuid(&uuid, lv->vg->uuid, lv->uuid, layer)) < 0) {
        rc = lvx_error(ctx, EINVAL, "Bad UUID of %s/%s.", vg_name, lv->name);
    } else {
        snprintf(ids->name, sizeof(ids->name), "%s", lvx_buf_str(&name));
        snprintf(ids->uuid, sizeof(ids->uuid), "%s", lvx_buf_str(&uuid));
    }
    lvx_buf_free(&name);
    lvx_buf_free(&uuid);
    return rc;
}

static int ids_of(struct lvx_ctx *ctx, const char *vg_name, const struct lvx_lv *lv,
                  struct lvx_dm_ids *ids)
{
    (void)vg_name;
    return lvx_dm_ids_of(ctx, lv, NULL, ids);
}

/* The device of lv that its own segments are loaded into (stage/swap/unstage, and the
 * RAID/mirror status): a COW LV's "-cow" layer (its own name carries the snapshot
 * target), an origin's "-real" (its top device is the snapshot-origin over it), else
 * the LV's own device; messages (RAID --syncaction) go there too. */
static const char *own_layer(const struct lvx_lv *lv)
{
    return lvx_lv_is_cow(lv) ? "cow" : lvx_lv_snapshot_segs(lv, NULL, 0) > 0 ? "real" : NULL;
}

static bool seg_touches_missing(const struct lvx_seg *seg)
{
    for (uint32_t a = 0; seg->areas && a < seg->area_count; a++) {
        const struct lvx_pv *pv = seg->areas[a].pv;
        if (pv && ((pv->flags & LVX_PVF_MISSING) || !pv->ondisk.present))
            return true;
    }
    return false;
}

/* A present PV must be a block device (the kernel cannot map an image file). */
static int check_block_devices(struct lvx_ctx *ctx, const struct lvx_seg *seg)
{
    for (uint32_t a = 0; seg->areas && a < seg->area_count; a++) {
        const struct lvx_pv *pv = seg->areas[a].pv;
        if (pv && !pv->ondisk.dev_major && !pv->ondisk.dev_minor)
            return lvx_error(ctx, ENODEV, "Cannot activate %s/%s: PV %s is not a block device "
                             "(attach the image to a loop device).", seg->lv->vg->name,
                             seg->lv->name, pv->ondisk.dev_name ? pv->ondisk.dev_name : "?");
    }
    return 0;
}

static int subdev_of(struct lvx_ctx *ctx, void *arg, const struct lvx_lv *sub,
                     struct lvx_buf *out);
static int deactivate_one(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                          const struct lvx_activate_opts *opts);

/* A raid or mirror LV: a device over its sub-LVs' devices. */
static bool stacked(const struct lvx_lv *lv)
{
    return lvx_map_lv_is_raid(lv) || lvx_map_lv_is_mirror(lv);
}

/* The raid or mirror line of a stacked LV. */
static int stacked_table(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool nosync,
                         struct lvx_dm *dm, struct lvx_buf *out)
{
    uint32_t e = lv->vg->extent_size;
    return lvx_map_lv_is_mirror(lv)
               ? lvx_map_mirror_table(ctx, &lv->segs[0], e, nosync, subdev_of, dm, out)
               : lvx_map_raid_table(ctx, &lv->segs[0], e, nosync, subdev_of, dm, out);
}

int lvx_activation_dm_table(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial,
                            struct lvx_buf *out)
{
    uint32_t e = lv->vg->extent_size;
    if (lvx_dm_pvmove_of(lv))          /* needs the pvmove LV's device */
        return lvx_dm_pvmove_user_table(ctx, lv, out);
    if (stacked(lv)) {      /* needs the sub-LVs' devices */
        struct lvx_dm dm;
        int rc = lvx_dm_open(ctx, &dm);
        if (rc < 0)
            return rc;
        rc = stacked_table(ctx, lv, false, &dm, out);
        lvx_dm_close(&dm);
        return rc;
    }
    uint64_t limit = lvx_lv_table_limit(lv);     /* a cropped _tmeta: libdevmapper's cut */
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        uint64_t start = seg->start_extent * (uint64_t)e, len = seg->extent_count * (uint64_t)e;
        if (start >= limit)
            break;
        if (len > limit - start)
            len = limit - start;
        if (partial && seg_touches_missing(seg)) {
            lvx_buf_printf(out, "%" PRIu64 " %" PRIu64 " error\n", start, len);
            continue;
        }
        int rc;
        const struct lvx_map_target *t = lvx_map_target_of(ctx, seg);
        if (!t)
            return ctx->err ? ctx->err : -ENOTSUP;
        if ((rc = check_block_devices(ctx, seg)) < 0 || (rc = t->check(ctx, seg, e)) < 0)
            return rc;
        lvx_buf_printf(out, "%" PRIu64 " %" PRIu64 " %s", start, len, t->name);
        if ((rc = t->table(ctx, seg, e, out)) < 0)
            return rc;
        lvx_buf_putc(out, '\n');
    }
    return 0;
}

/* Keep the first error message across clean-up calls that may record their own. */
struct saved_error {
    int err;
    char msg[sizeof(((struct lvx_ctx *)0)->errmsg)];
};

static void save_error(const struct lvx_ctx *ctx, struct saved_error *s)
{
    s->err = ctx->err;
    memcpy(s->msg, ctx->errmsg, sizeof(s->msg));
}

static int restore_error(struct lvx_ctx *ctx, const struct saved_error *s)
{
    ctx->err = s->err;
    memcpy(ctx->errmsg, s->msg, sizeof(s->msg));
    return s->err ? s->err : -EIO;
}

static bool dm_probe(struct lvx_ctx *ctx)
{
    struct lvx_dm dm;
    if (lvx_dm_open(ctx, &dm) < 0)
        return false;
    lvx_dm_close(&dm);
    return true;
}

/* LVM2's automatic read-ahead (sectors, 0: none to ask for): twice the widest stripe
 * of the LV's segments, else the read-ahead of the device of its first segment's
 * first PV (blockdev --setra on a PV carries over to its linear LVs). */
static unsigned long auto_read_ahead(const struct lvx_lv *lv)
{
    unsigned long widest = 0;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        if (seg->kind == LVX_SEG_STRIPED && seg->stripe_size &&
            (unsigned long)seg->stripe_size * seg->area_count > widest)
            widest = (unsigned long)seg->stripe_size * seg->area_count;
    }
    if (widest)
        return widest * 2;
    const struct lvx_seg *first = lv->seg_count ? &lv->segs[0] : NULL;
    const struct lvx_pv *pv = first && first->area_count ? first->areas[0].pv : NULL;
    if (!pv || !pv->ondisk.present || !pv->ondisk.dev_name)
        return 0;
    long ra = 0;
    int fd = open(pv->ondisk.dev_name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (ioctl(fd, BLKRAGET, &ra) < 0 || ra < 0)
        ra = 0;
    close(fd);
    return (unsigned long)ra;
}

/* read_ahead of the LV: none -> 0; N -> N sectors; auto: LVM2's value as a minimum
 * (the kernel's own, e.g. from the stripe geometry, is kept when larger). */
static void set_read_ahead(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *name)
{
    bool is_auto = !lv->has_read_ahead || lv->read_ahead == 0;
    unsigned long ra = is_auto ? auto_read_ahead(lv)
                       : lv->read_ahead < 0 ? 0 : (unsigned long)lv->read_ahead;
    if (is_auto && !ra)
        return;
    char path[256];
    snprintf(path, sizeof(path), "%s/mapper/%s", lvx_dm_dev_dir(), name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    long cur = 0;
    if (fd >= 0 && is_auto && ioctl(fd, BLKRAGET, &cur) == 0 && cur >= 0 &&
        (unsigned long)cur >= ra) {
        close(fd);
        return;
    }
    if (fd < 0 || ioctl(fd, BLKRASET, ra) < 0)
        lvx_warn(ctx, "WARNING: cannot set read-ahead of %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
}

/* Remove a device, retrying while something (e.g. a udev probe) briefly holds it. */
int lvx_dm_remove_retry(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, bool deferred)
{
    int rc = 0;
    for (int i = 0; i < REMOVE_RETRIES; i++) {
        rc = lvx_dm_remove(ctx, dm, name, deferred);
        if (rc != -EBUSY || deferred)
            break;
        usleep(REMOVE_RETRY_USEC);
    }
    return rc;
}

/* Undo a half-made activation: remove the device and its nodes. */
static int undo_create(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_dm_ids *ids,
                       const struct lvx_lv *lv)
{
    struct saved_error first;
    save_error(ctx, &first);
    lvx_dm_remove_retry(ctx, dm, ids->name, false);
    lvx_dm_nodes_remove(ids->name, lv->vg->name, link_of(lv));
    return restore_error(ctx, &first);
}

static int make_live(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                     const struct lvx_dm_ids *ids, const char *table, bool ro)
{
    struct lvx_dm_info info;
    int rc;
    if ((rc = lvx_dm_load(ctx, dm, ids->name, table, ro)) < 0 ||
        (rc = lvx_dm_resume(ctx, dm, ids->name, &info)) < 0 ||
        (rc = lvx_dm_nodes_add(ctx, ids->name, info.major, info.minor, lv->vg->name,
                               link_of(lv))) < 0)
        return rc;
    set_read_ahead(ctx, lv, ids->name);
    return 0;
}

/* Suspend (noflush: without waiting for the I/O in flight, which dm issues to the new
 * table) + resume: a loaded inactive table becomes live.  A failed resume drops the
 * new table and resumes the old one (an LV is never left suspended). */
static int swap_tables(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, bool noflush)
{
    int rc = noflush ? lvx_dm_suspend_noflush(ctx, dm, name) : lvx_dm_suspend(ctx, dm, name);
    if (rc < 0)
        return rc;
    rc = lvx_dm_resume(ctx, dm, name, NULL);
    if (rc < 0) {
        struct saved_error first;
        save_error(ctx, &first);
        lvx_dm_clear(ctx, dm, name);
        lvx_dm_resume(ctx, dm, name, NULL);
        rc = restore_error(ctx, &first);
    }
    return rc;
}

int lvx_dm_swap_tables(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name)
{
    return swap_tables(ctx, dm, name, false);
}

/* Is name's live table dm-mirror's?  LVM2 suspends a mirror without flushing: after a
 * leg failed dm-mirror holds the writes that reached the other legs until it is
 * reloaded (handle_errors), and a flushing suspend would fail them. */
static bool live_mirror(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name)
{
    struct lvx_buf live = LVX_BUF_INIT;
    unsigned long long start, len;
    char target[16] = "";
    bool mirror = lvx_dm_table(ctx, dm, name, false, &live) == 0 &&
                  sscanf(lvx_buf_str(&live), "%llu %llu %15s", &start, &len, target) == 3 &&
                  strcmp(target, "mirror") == 0;
    lvx_buf_free(&live);
    lvx_error_clear(ctx);
    return mirror;
}

/* A dm-raid line without its one-time parameters ("nosync", "rebuild N": what the
 * table of a new LV or of new images carried when it was loaded), the parameter count
 * adjusted; other lines as they are. */
static void raid_line_settled(const char *line, struct lvx_buf *out)
{
    char type[16];
    unsigned long long start, len;
    unsigned nparams;
    int pos = 0;
    if (sscanf(line, "%llu %llu raid %15s %u %n", &start, &len, type, &nparams, &pos) != 4 ||
        !pos) {
        lvx_buf_puts(out, line);
        return;
    }
    const char *p = line + pos;
    struct lvx_buf params = LVX_BUF_INIT;
    unsigned kept = 0;
    for (unsigned i = 0; i < nparams && *p; i++) {   /* <chunk> then the optional words */
        size_t n = strcspn(p, " \n");
        bool drop = (n == 6 && !strncmp(p, "nosync", 6)) || (n == 7 && !strncmp(p, "rebuild", 7));
        if (drop && n == 7) {                         /* "rebuild N": two words */
            p += n + (p[n] == ' ');
            n = strcspn(p, " \n");
            i++;
        }
        if (!drop) {
            lvx_buf_printf(&params, " %.*s", (int)n, p);
            kept++;
        }
        p += n + (p[n] == ' ');
    }
    lvx_buf_printf(out, "%llu %llu raid %s %u%s %s", start, len, type, kept,
                   lvx_buf_str(&params), p);
    lvx_buf_free(&params);
}

/* A dm-mirror line without "nosync" (the log's argument count one less); other lines
 * as they are. */
static void mirror_line_settled(const char *line, struct lvx_buf *out)
{
    const char *m = strstr(line, " mirror "), *ns = strstr(line, " nosync ");
    const char *sp = m ? strchr(m + 8, ' ') : NULL;     /* after the log type */
    unsigned n;
    int pos = 0;
    if (!sp || ns < sp || sscanf(sp + 1, "%u%n", &n, &pos) != 1 || !n) {
        lvx_buf_puts(out, line);
        return;
    }
    const char *rest = sp + 1 + pos;
    lvx_buf_printf(out, "%.*s %u%.*s%s", (int)(sp - line), line, n - 1, (int)(ns - rest), rest,
                   ns + 7);
}

/* Equal tables, one-time dm-raid/dm-mirror parameters aside (LVM2 does not reload an
 * active RAID or mirror LV to drop them either). */
static bool same_table(const char *live, const char *want)
{
    if (!strcmp(live, want))
        return true;
    struct lvx_buf a = LVX_BUF_INIT, b = LVX_BUF_INIT, c = LVX_BUF_INIT, d = LVX_BUF_INIT;
    raid_line_settled(live, &a);
    raid_line_settled(want, &b);
    mirror_line_settled(lvx_buf_str(&a), &c);
    mirror_line_settled(lvx_buf_str(&b), &d);
    bool same = !strcmp(lvx_buf_str(&c), lvx_buf_str(&d));
    lvx_buf_free(&a);
    lvx_buf_free(&b);
    lvx_buf_free(&c);
    lvx_buf_free(&d);
    return same;
}

/* An LV already active: reload when its live table or permission differs from the
 * metadata (e.g. changed by another tool while active), then make sure of the nodes. */
static int refresh(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                   const struct lvx_dm_ids *ids, const struct lvx_dm_info *info, const char *table,
                   bool ro)
{
    struct lvx_buf live = LVX_BUF_INIT;
    int rc = lvx_dm_table(ctx, dm, ids->name, false, &live);
    bool same = rc == 0 && info->read_only == ro && same_table(lvx_buf_str(&live), table);
    lvx_buf_free(&live);
    if (rc < 0)
        return rc;
    if (!same && ((rc = lvx_dm_load(ctx, dm, ids->name, table, ro)) < 0 ||
                  (rc = lvx_dm_swap_tables(ctx, dm, ids->name)) < 0))
        return rc;
    return lvx_dm_nodes_add(ctx, ids->name, info->major, info->minor, lv->vg->name, link_of(lv));
}

uint32_t lvx_activation_dm_major(void)
{
    FILE *f = fopen("/proc/devices", "r");
    char line[128], name[64];
    unsigned nr;
    uint32_t found = 0;
    bool block = false;
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "Block devices:", 14) == 0)
            block = true;
        else if (block && sscanf(line, "%u %63s", &nr, name) == 2 &&
                 strcmp(name, "device-mapper") == 0)
            found = nr;
    }
    if (f)
        fclose(f);
    return found;
}

void lvx_dm_fixed_devno(const struct lvx_lv *lv, uint32_t *major, uint32_t *minor)
{
    *major = *minor = 0;
    if (!(lv->status & LVX_LV_FIXED_MINOR) || !lv->has_minor || lv->minor < 0)
        return;
    *major = lv->has_major && lv->major > 0 ? (uint32_t)lv->major : 0;
    *minor = (uint32_t)lv->minor;
    if (!*major)
        *major = lvx_activation_dm_major();
    if (!*major)
        *major = 253;
}

/* Make one LV's device live with `table` (created, or refreshed when it exists with
 * its UUID).  *created: a new device was made. */
static int activate_one(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                        const char *table, bool ro, bool *created)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    int rc;

    if (created)
        *created = false;
    if ((rc = ids_of(ctx, lv->vg->name, lv, &ids)) < 0 ||
        (rc = lvx_dm_info(ctx, dm, ids.name, &info)) < 0)
        return rc;
    if (info.exists) {
        if (strcmp(info.uuid, ids.uuid) != 0)
            return lvx_error(ctx, EEXIST, "Cannot activate %s/%s: device-mapper device %s "
                             "already exists with UUID \"%s\".", lv->vg->name, lv->name, ids.name,
                             info.uuid);
        if (info.live_table && !info.suspended)
            rc = refresh(ctx, dm, lv, &ids, &info, table, ro);
        else
            rc = make_live(ctx, dm, lv, &ids, table, ro);
        /* an origin whose last snapshot went: its -real layer is unused now */
        if (rc == 0)
            rc = lvx_dm_drop_real(ctx, dm, lv);
        return rc;
    }
    uint32_t fmaj = 0, fmin = 0;
    lvx_dm_fixed_devno(lv, &fmaj, &fmin);
    if ((rc = lvx_dm_create(ctx, dm, ids.name, ids.uuid, fmaj, fmin, NULL)) < 0)
        return rc;
    if ((rc = make_live(ctx, dm, lv, &ids, table, ro)) < 0)
        return undo_create(ctx, dm, &ids, lv);
    if (created)
        *created = true;
    return 0;
}

/* "maj:min" of an active sub-LV's device (lvx_map_subdev_fn over an open control fd). */
static int subdev_of(struct lvx_ctx *ctx, void *arg, const struct lvx_lv *sub, struct lvx_buf *out)
{
    struct lvx_dm *dm = arg;
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    int rc;
    if ((rc = ids_of(ctx, sub->vg->name, sub, &ids)) < 0 ||
        (rc = lvx_dm_info(ctx, dm, ids.name, &info)) < 0)
        return rc;
    if (!info.exists)
        return lvx_error(ctx, ENXIO, "Sub-LV %s/%s is not active: its device is not known.",
                         sub->vg->name, sub->name);
    lvx_buf_printf(out, "%u:%u", info.major, info.minor);
    return 0;
}

/* The layer name of the error device standing for area a of segment s of a sub-LV on
 * a missing PV (LVM2's "missing_S_A"). */
static void missing_layer(char *buf, size_t size, unsigned s, uint32_t a)
{
    snprintf(buf, size, "missing_%u_%u", s, a);
}

/* One-area segment s of lv on a missing PV: its error device made live when it is not
 * there yet ("0 <len> error"); "maj:min" appended to out. */
static int missing_dev(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                       unsigned s, struct lvx_buf *out)
{
    char layer[32], table[64];
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    int rc;
    missing_layer(layer, sizeof(layer), s, 0);
    if ((rc = lvx_dm_ids_of(ctx, lv, layer, &ids)) < 0 ||
        (rc = lvx_dm_info(ctx, dm, ids.name, &info)) < 0)
        return rc;
    if (!info.exists) {
        snprintf(table, sizeof(table), "0 %" PRIu64 " error\n",
                 lv->segs[s].extent_count * (uint64_t)lv->vg->extent_size);
        if ((rc = lvx_dm_create(ctx, dm, ids.name, ids.uuid, 0, 0, NULL)) < 0)
            return rc;
        if ((rc = lvx_dm_load(ctx, dm, ids.name, table, false)) < 0 ||
            (rc = lvx_dm_resume(ctx, dm, ids.name, &info)) < 0 ||
            (rc = lvx_dm_nodes_add(ctx, ids.name, info.major, info.minor, lv->vg->name,
                                   NULL)) < 0) {
            struct saved_error first;
            save_error(ctx, &first);
            lvx_dm_remove_retry(ctx, dm, ids.name, false);
            lvx_dm_nodes_remove(ids.name, lv->vg->name, NULL);
            return restore_error(ctx, &first);
        }
    }
    lvx_buf_printf(out, "%u:%u", info.major, info.minor);
    return 0;
}

/* The error devices of lv's segments on missing PVs removed (after lv's own device). */
static void remove_missing_devs(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv)
{
    for (unsigned s = 0; s < lv->seg_count; s++) {
        char layer[32];
        struct lvx_dm_ids ids;
        struct lvx_dm_info info;
        if (!seg_touches_missing(&lv->segs[s]) || lv->segs[s].area_count != 1)
            continue;
        missing_layer(layer, sizeof(layer), s, 0);
        if (lvx_dm_ids_of(ctx, lv, layer, &ids) < 0 || lvx_dm_info(ctx, dm, ids.name, &info) < 0)
            lvx_error_clear(ctx);
        else if (info.exists && lvx_dm_remove_retry(ctx, dm, ids.name, false) == 0)
            lvx_dm_nodes_remove(ids.name, lv->vg->name, NULL);
    }
}

/* The table of a RAID sub-LV: its segments as any LV's, one-area segments on a missing
 * PV as "linear" over their error devices (made here). */
static int raid_sub_table(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *sub,
                          struct lvx_buf *out)
{
    uint32_t e = sub->vg->extent_size;
    for (unsigned s = 0; s < sub->seg_count; s++) {
        const struct lvx_seg *seg = &sub->segs[s];
        if (seg->area_count != 1 || seg->kind != LVX_SEG_STRIPED || !seg_touches_missing(seg))
            continue;
        struct lvx_buf t = LVX_BUF_INIT;
        int rc = 0;
        for (unsigned k = 0; k < sub->seg_count && rc == 0; k++) {
            const struct lvx_seg *g = &sub->segs[k];
            if (g->area_count == 1 && g->kind == LVX_SEG_STRIPED && seg_touches_missing(g)) {
                lvx_buf_printf(&t, "%" PRIu64 " %" PRIu64 " linear ", g->start_extent * (uint64_t)e,
                               g->extent_count * (uint64_t)e);
                if ((rc = missing_dev(ctx, dm, sub, k, &t)) == 0)
                    lvx_buf_puts(&t, " 0\n");
                continue;
            }
            /* the other segments: their own lines (partial: a missing stripe is error) */
            struct lvx_lv one = *sub;
            one.segs = (struct lvx_seg *)g;
            one.seg_count = 1;
            rc = lvx_activation_dm_table(ctx, &one, true, &t);
        }
        if (rc == 0)
            lvx_buf_puts(out, lvx_buf_str(&t));
        lvx_buf_free(&t);
        return rc;
    }
    return lvx_activation_dm_table(ctx, sub, false, out);
}

/* The sub-LVs of a raid LV in LVM2's table order: rmeta_i, rimage_i; of a mirror:
 * the log, then the images; a mirrored log's own images before it (made first, `up`)
 * or after it (removed after it); so are the log and images of LVM2's resync layer
 * (a CONVERTING mirror's first image, cmd/mirror_layer.c). */
static unsigned raid_subs_dir(const struct lvx_lv *lv, const struct lvx_lv **subs, unsigned cap,
                              bool up)
{
    const struct lvx_seg *seg = &lv->segs[0];
    unsigned n = 0;
    const struct lvx_lv *log = seg->kind == LVX_SEG_MIRROR ? seg->log_lv : NULL;
    bool nested = log && lvx_map_lv_is_mirror(log) && !log->segs[0].log_lv;
    if (nested && !up && cap)
        subs[n++] = log;
    for (uint32_t i = 0; nested && i < log->segs[0].area_count && n + 1 < cap; i++)
        subs[n++] = log->segs[0].areas[i].lv;
    if (log && (up || !nested) && cap > n)
        subs[n++] = log;
    const struct lvx_lv *layer = lvx_map_mirror_sync_layer(lv);
    for (uint32_t i = 0; i < seg->area_count && n + 2 <= cap; i++) {
        if (seg->meta_areas && seg->meta_areas[i].lv)
            subs[n++] = seg->meta_areas[i].lv;
        if (i == 0 && layer && !up)    /* LVM2's resync layer: a mirror under the mirror */
            subs[n++] = layer;
        if (i == 0 && layer)
            n += raid_subs_dir(layer, subs + n, cap - n - (up ? 1 : 0), up);
        if (!(i == 0 && layer && !up))
            subs[n++] = seg->areas[i].lv;
    }
    return n;
}

static unsigned raid_subs(const struct lvx_lv *lv, const struct lvx_lv **subs, unsigned cap)
{
    return raid_subs_dir(lv, subs, cap, true);
}

#define RAID_SUBS_MAX (2 * 256)

/* Remove the devices of subs[] marked in made[] (clean-up after a failure). */
static void remove_made(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv **subs,
                        const bool *made, unsigned n)
{
    struct saved_error first;
    save_error(ctx, &first);
    for (unsigned i = n; i-- > 0;) {
        struct lvx_dm_ids ids;
        if (made[i] && ids_of(ctx, subs[i]->vg->name, subs[i], &ids) == 0 &&
            lvx_dm_remove_retry(ctx, dm, ids.name, false) == 0) {
            lvx_dm_nodes_remove(ids.name, subs[i]->vg->name, link_of(subs[i]));
            remove_missing_devs(ctx, dm, subs[i]);
        }
    }
    restore_error(ctx, &first);
}

/* A mirror's resync layer (LVM2's NAME_mimagetmp_N) new under an active mirror: its
 * device made live with an error table (LVM2's interim LV), its mirror table loaded
 * inactive only.  It runs on the log and images the live top mirror still writes: it
 * is resumed by dm_swap while the top is suspended (LVM2's order), never before. */
static int stage_new_layer(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *layer,
                           const char *table, bool *made)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    char err[64];
    int rc;
    if ((rc = ids_of(ctx, layer->vg->name, layer, &ids)) < 0 ||
        (rc = lvx_dm_info(ctx, dm, ids.name, &info)) < 0)
        return rc;
    if (info.exists) {
        /* already stacked: a new table (its log changed) loaded inactive, resumed by
         * dm_swap under the suspended top as a new layer's */
        struct lvx_buf live = LVX_BUF_INIT;
        bool same = info.live_table && lvx_dm_table(ctx, dm, ids.name, false, &live) == 0 &&
                    same_table(lvx_buf_str(&live), table);
        lvx_buf_free(&live);
        lvx_error_clear(ctx);
        if (same || !info.live_table || info.suspended)
            return activate_one(ctx, dm, layer, table, false, made);
        return lvx_dm_load(ctx, dm, ids.name, table, false);
    }
    snprintf(err, sizeof(err), "0 %" PRIu64 " error\n",
             layer->le_count * (uint64_t)layer->vg->extent_size);
    if ((rc = lvx_dm_create(ctx, dm, ids.name, ids.uuid, 0, 0, NULL)) < 0)
        return rc;
    if ((rc = make_live(ctx, dm, layer, &ids, err, false)) < 0 ||
        (rc = lvx_dm_load(ctx, dm, ids.name, table, false)) < 0)
        return undo_create(ctx, dm, &ids, layer);
    *made = true;
    return 0;
}

/* The sub-LV devices of a raid LV made live (created, or refreshed when they exist:
 * at a stage, the images lvconvert adds or the rimage_0 layer of a linear LV becoming
 * raid1 are new); made[] marks the created ones.  defer: a new resync layer whose
 * mirror table is only loaded (stage_new_layer). */
static int stage_raid_subs(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv **subs,
                           bool *made, unsigned n, const struct lvx_lv *defer, bool nosync)
{
    struct lvx_buf table = LVX_BUF_INIT;
    int rc = 0;
    for (unsigned i = 0; i < n && rc == 0; i++) {
        lvx_buf_reset(&table);
        /* the layer's table "nosync" too when the top's is (LVM2's global in-sync
         * flag: every mirror table a log change of an in-sync layer loads) */
        if (subs[i] == defer && nosync)
            rc = stacked_table(ctx, subs[i], true, dm, &table);
        else
            rc = raid_sub_table(ctx, dm, subs[i], &table);
        if (rc != 0)
            break;
        if (subs[i] == defer)
            rc = stage_new_layer(ctx, dm, subs[i], lvx_buf_str(&table), &made[i]);
        else
            rc = activate_one(ctx, dm, subs[i], lvx_buf_str(&table), false, &made[i]);
    }
    lvx_buf_free(&table);
    return rc;
}

int lvx_dm_stacked_subs_up(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv)
{
    const struct lvx_lv *subs[RAID_SUBS_MAX];
    bool made[RAID_SUBS_MAX] = { false };
    unsigned n = raid_subs(lv, subs, RAID_SUBS_MAX);
    int rc = stage_raid_subs(ctx, dm, subs, made, n, NULL, false);
    if (rc < 0)
        remove_made(ctx, dm, subs, made, n);
    return rc;
}

int lvx_dm_stacked_subs_down(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    const struct lvx_lv *subs[RAID_SUBS_MAX];
    unsigned n = raid_subs_dir(lv, subs, RAID_SUBS_MAX, false);
    int rc = 0;
    for (unsigned i = 0; i < n && rc == 0; i++)
        rc = deactivate_one(ctx, subs[i], NULL);
    return rc;
}

/* A live device (lv's, or its layer's) suspended and resumed as it is (no table loaded). */
static int suspend_resume(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                          const char *layer)
{
    struct lvx_dm_ids ids;
    int rc = lvx_dm_ids_of(ctx, lv, layer, &ids);
    if (rc == 0 && (rc = lvx_dm_suspend(ctx, dm, ids.name)) == 0)
        rc = lvx_dm_resume(ctx, dm, ids.name, NULL);
    return rc;
}

/* A raid LV: its sub-LVs first (linear devices), then the raid device over them. */
static int activate_raid(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                         const struct lvx_activate_opts *opts)
{
    const struct lvx_lv *subs[RAID_SUBS_MAX];
    bool made[RAID_SUBS_MAX] = { false };
    unsigned n = raid_subs(lv, subs, RAID_SUBS_MAX);
    struct lvx_buf table = LVX_BUF_INIT;
    int rc = stage_raid_subs(ctx, dm, subs, made, n, NULL, false);
    if (rc == 0) {
        rc = stacked_table(ctx, lv, opts && opts->nosync, dm, &table);
    }
    bool created = false;
    if (rc == 0)
        rc = activate_one(ctx, dm, lv, lvx_buf_str(&table), lvx_activation_read_only(lv, opts),
                          &created);
    if (rc == 0 && opts && opts->refresh && !created)
        rc = suspend_resume(ctx, dm, lv, NULL);
    if (rc < 0)
        remove_made(ctx, dm, subs, made, n);
    lvx_buf_free(&table);
    return rc;
}

static int activate_devices(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                            const struct lvx_activate_opts *opts)
{
    struct lvx_buf table = LVX_BUF_INIT;
    struct lvx_dm dm;
    int rc;
    bool has_snapshots;
    const struct lvx_lv *head = lvx_dm_set_head(lv, &has_snapshots);

    if (has_snapshots) {
        rc = lvx_dm_activate_set(ctx, head, opts);
        /* a RAID origin's raid device is its -real layer (see activate_raid's refresh) */
        if (rc == 0 && opts && opts->refresh && stacked(lv) && own_layer(lv) &&
            (rc = lvx_dm_open(ctx, &dm)) == 0) {
            rc = suspend_resume(ctx, &dm, lv, own_layer(lv));
            lvx_dm_close(&dm);
        }
        return rc;
    }
    if (lvx_map_lv_is_thin_kind(lv) || lvx_lv_is_external_origin(lv))   /* ext: its layer */
        return lvx_dm_thin_activate(ctx, lv, opts);
    const struct lvx_lv *mv = lvx_dm_pvmove_of(lv);
    bool mv_made = false;
    if (mv && (rc = lvx_dm_pvmove_up(ctx, mv, &mv_made)) < 0)
        return rc;
    if ((!stacked(lv) &&
         (rc = lvx_activation_dm_table(ctx, lv, opts && opts->partial, &table)) < 0) ||
        (rc = lvx_dm_open(ctx, &dm)) < 0)
        goto out;
    if (stacked(lv))
        rc = activate_raid(ctx, &dm, lv, opts);
    else
        rc = activate_one(ctx, &dm, lv, lvx_buf_str(&table), lvx_activation_read_only(lv, opts),
                          NULL);
    lvx_dm_close(&dm);
out:
    lvx_buf_free(&table);
    if (rc < 0 && mv_made) {
        struct saved_error first;
        save_error(ctx, &first);
        lvx_dm_pvmove_down(ctx, mv);
        restore_error(ctx, &first);
    }
    return rc;
}

/* A hidden LV activated alone (a component): /dev/VG/LV too, as LVM2 links it. */
static int link_component(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    struct lvx_dm dm;
    int rc;
    if ((rc = ids_of(ctx, lv->vg->name, lv, &ids)) < 0 || (rc = lvx_dm_open(ctx, &dm)) < 0)
        return rc;
    if ((rc = lvx_dm_info(ctx, &dm, ids.name, &info)) == 0 && info.exists)
        rc = lvx_dm_nodes_add(ctx, ids.name, info.major, info.minor, lv->vg->name, lv->name);
    lvx_dm_close(&dm);
    return rc;
}

/* A shared VG's LV: its lease first, held by the lvx daemon while the device exists
 * (as lvmlockd's before LVM2 loads the table), released again when the activation
 * fails and this call took it. */
static int dm_activate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                       const struct lvx_activate_opts *opts)
{
    bool lease = lvx_dm_lease_needed(lv), taken = false;
    int rc;
    if (lease && (rc = lvx_dm_lease_take(ctx, lv, opts && opts->lock_shared, &taken)) < 0)
        return rc;
    rc = activate_devices(ctx, lv, opts);
    if (rc == 0 && opts && opts->component && !(lv->status & LVX_LV_VISIBLE))
        rc = link_component(ctx, lv);
    if (rc < 0 && taken) {
        struct saved_error first;
        save_error(ctx, &first);
        lvx_dm_lease_drop(ctx, lv);
        restore_error(ctx, &first);
    }
    if (rc == 0 && opts && opts->monitor != LVX_MONITOR_IGNORE)
        rc = lvx_dm_watch(ctx, lv, opts->monitor == LVX_MONITOR_ON);
    return rc;
}

/* Replace the table by the error target (I/O fails) and remove when last closed. */
static int force_remove(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_dm_ids *ids,
                        const struct lvx_lv *lv)
{
    char table[64];
    snprintf(table, sizeof(table), "0 %" PRIu64 " error\n",
             lv->le_count * (uint64_t)lv->vg->extent_size);
    int rc;
    if ((rc = lvx_dm_load(ctx, dm, ids->name, table, false)) < 0 ||
        (rc = lvx_dm_resume(ctx, dm, ids->name, NULL)) < 0)
        return rc;
    return lvx_dm_remove_retry(ctx, dm, ids->name, true);
}

static int deactivate_one(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                         const struct lvx_activate_opts *opts)
{
    struct lvx_dm_ids ids;
    struct lvx_dm dm;
    struct lvx_dm_info info;
    int rc;
    if ((rc = ids_of(ctx, lv->vg->name, lv, &ids)) < 0 || (rc = lvx_dm_open(ctx, &dm)) < 0)
        return rc;
    if ((rc = lvx_dm_info(ctx, &dm, ids.name, &info)) < 0)
        goto out;
    if (!info.exists) {
        lvx_dm_nodes_remove(ids.name, lv->vg->name, link_of(lv));   /* stale entries */
        remove_missing_devs(ctx, &dm, lv);
        goto out;
    }
    if (info.open_count > 0 && !(opts && opts->force)) {
        /* LVM2's holders check first: another device (an LV of a VG on this LV, with
         * devices/scan_lvs) maps onto it */
        if (lvx_lvdev_has_holders(info.major, info.minor))
            rc = lvx_error(ctx, EBUSY, "Logical volume %s/%s is used by another device.",
                           lv->vg->name, lv->name);
        else
            rc = lvx_error(ctx, EBUSY, "Logical volume %s/%s in use.", lv->vg->name, lv->name);
        goto out;
    }
    if (info.open_count > 0)
        rc = force_remove(ctx, &dm, &ids, lv);
    else
        rc = lvx_dm_remove_retry(ctx, &dm, ids.name, false);
    /* a hidden LV's /dev/VG/LV exists only when it was activated alone (a component) */
    if (rc == 0)
        lvx_dm_nodes_remove(ids.name, lv->vg->name, lv->name);
    if (rc == 0)       /* a RAID sub-LV's error devices of missing PVs */
        remove_missing_devs(ctx, &dm, lv);
    if (rc == 0)       /* an origin whose snapshots were just taken away */
        rc = lvx_dm_drop_real(ctx, &dm, lv);
out:
    lvx_dm_close(&dm);
    return rc;
}

/* A raid LV goes first, then its sub-LVs (only when the raid device is gone). */
static int deactivate_devices(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                              const struct lvx_activate_opts *opts)
{
    bool has_snapshots;
    const struct lvx_lv *head = lvx_dm_set_head(lv, &has_snapshots);
    if (opts && opts->snapshot_only)     /* also a COW LV just taken out of the VG */
        return lvx_dm_deactivate_snapshot(ctx, lv, opts);
    if (has_snapshots)
        return lvx_dm_deactivate_set(ctx, head, opts);
    if (lvx_map_lv_is_thin_kind(lv) || lvx_lv_is_external_origin(lv))
        return lvx_dm_thin_deactivate(ctx, lv, opts);
    int rc = deactivate_one(ctx, lv, opts);
    if (rc == 0)       /* a cache LV (LVM2's activation): the devices under it */
        rc = lvx_dm_cache_subs_down(ctx, lv);
    const struct lvx_lv *mv = lvx_dm_pvmove_of(lv);
    if (rc == 0 && mv)                 /* the last LV over a pvmove takes its device down */
        return lvx_dm_pvmove_down(ctx, mv);
    if (rc < 0 || !stacked(lv))
        return rc;
    return lvx_dm_stacked_subs_down(ctx, lv);
}

/* A shared VG's LV: its lease released once its devices are gone. */
static int dm_deactivate(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                         const struct lvx_activate_opts *opts)
{
    int rc = deactivate_devices(ctx, lv, opts);
    if (rc == 0)
        lvx_dm_watch_gone(ctx, lv);
    if (rc == 0 && !(opts && opts->snapshot_only) && lvx_dm_lease_needed(lv))
        rc = lvx_dm_lease_drop(ctx, lv);
    return rc;
}

/* Open the control device and check that lv is active; *ids filled. */
static int open_active(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *layer,
                       struct lvx_dm *dm, struct lvx_dm_ids *ids, struct lvx_dm_info *info)
{
    const char *vg_name = lv->vg->name;
    int rc;
    if ((rc = lvx_dm_ids_of(ctx, lv, layer, ids)) < 0 || (rc = lvx_dm_open(ctx, dm)) < 0)
        return rc;
    if ((rc = lvx_dm_info(ctx, dm, ids->name, info)) == 0 && !info->exists)
        rc = lvx_error(ctx, ENXIO, "Logical volume %s/%s is not active.", vg_name, lv->name);
    if (rc < 0)
        lvx_dm_close(dm);
    return rc;
}

static int dm_stage(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                    const struct lvx_activate_opts *opts)
{
    struct lvx_dm_ids ids;
    struct lvx_dm dm;
    struct lvx_dm_info info;
    struct lvx_buf table = LVX_BUF_INIT;
    const struct lvx_lv *subs[RAID_SUBS_MAX];
    bool made[RAID_SUBS_MAX] = { false };
    bool raid = stacked(lv);     /* raid or mirror: new sub-LV devices made first */
    unsigned n = raid ? raid_subs(lv, subs, RAID_SUBS_MAX) : 0;
    int rc = lvx_map_lv_is_raid(lv)
                 ? lvx_map_check_raid_activatable(ctx, lv, opts && opts->partial,
                                                  opts && opts->degraded)
             : raid ? lvx_map_check_mirror_activatable(ctx, lv, opts && opts->partial)
                    : lvx_activation_check(ctx, lv, opts);
    if (rc < 0 || (rc = open_active(ctx, lv, own_layer(lv), &dm, &ids, &info)) < 0)
        return rc;
    const struct lvx_lv *layer = raid ? lvx_map_mirror_sync_layer(lv) : NULL;
    if (raid && (rc = stage_raid_subs(ctx, &dm, subs, made, n, layer,
                                      opts && opts->nosync)) == 0)
        rc = stacked_table(ctx, lv, opts && opts->nosync, &dm, &table);
    else if (!raid)
        rc = lvx_activation_dm_table(ctx, lv, opts && opts->partial, &table);
    if (rc == 0)
        rc = lvx_dm_load(ctx, &dm, ids.name, lvx_buf_str(&table),
                         lvx_activation_read_only(lv, opts));
    if (rc < 0)
        remove_made(ctx, &dm, subs, made, n);
    lvx_dm_close(&dm);
    lvx_buf_free(&table);
    return rc;
}

/* A hidden sub-LV's device called <vg>-<old_name> takes the name of sub (lvconvert
 * shifting or extracting RAID images); no /dev/<vg> links are involved. */
static int dm_rename_sub(struct lvx_ctx *ctx, const struct lvx_lv *sub, const char *old_name)
{
    struct lvx_dm dm;
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    struct lvx_buf old = LVX_BUF_INIT;
    int rc;
    if ((rc = ids_of(ctx, sub->vg->name, sub, &ids)) < 0)
        return rc;
    if (lvx_dm_lv_name(&old, sub->vg->name, old_name, NULL) < 0) {
        lvx_buf_free(&old);
        return lvx_error(ctx, ENAMETOOLONG, "Device-mapper name of %s/%s is too long.",
                         sub->vg->name, old_name);
    }
    if ((rc = lvx_dm_open(ctx, &dm)) < 0) {
        lvx_buf_free(&old);
        return rc;
    }
    if ((rc = lvx_dm_info(ctx, &dm, lvx_buf_str(&old), &info)) == 0 && info.exists &&
        (rc = lvx_dm_rename(ctx, &dm, lvx_buf_str(&old), ids.name)) == 0) {
        lvx_dm_nodes_remove(lvx_buf_str(&old), sub->vg->name, NULL);
        rc = lvx_dm_nodes_add(ctx, ids.name, info.major, info.minor, sub->vg->name, NULL);
    }
    lvx_dm_close(&dm);
    lvx_buf_free(&old);
    return rc;
}

/* lv's resync layer staged by stage_new_layer (its mirror table still inactive):
 * *lids filled; false when there is none (or it is live already).  *fresh (may be
 * NULL): its live table is the error one of a layer new with this change. */
static bool staged_layer(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                         struct lvx_dm_ids *lids, bool *fresh)
{
    const struct lvx_lv *layer = lvx_map_lv_is_mirror(lv) ? lvx_map_mirror_sync_layer(lv) : NULL;
    struct lvx_dm_info linfo;
    if (!layer)
        return false;
    if (ids_of(ctx, layer->vg->name, layer, lids) < 0 ||
        lvx_dm_info(ctx, dm, lids->name, &linfo) < 0) {
        lvx_error_clear(ctx);
        return false;
    }
    if (!linfo.exists || !linfo.inactive_table)
        return false;
    if (fresh) {
        struct lvx_buf live = LVX_BUF_INIT;
        *fresh = lvx_dm_table(ctx, dm, lids->name, false, &live) == 0 &&
                 strstr(lvx_buf_str(&live), " error") != NULL;
        lvx_buf_free(&live);
        lvx_error_clear(ctx);
    }
    return true;
}

/* The top suspended (its old mirror flushes the log and stops its recovery), the
 * staged layer resumed (its mirror takes over the log and the old images), the top
 * resumed on its new table over the layer: LVM2's order (libdm suspends top-down and
 * resumes bottom-up).  A failure before the top's resume puts the old tables back. */
static int swap_over_layer(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *top,
                           const char *layer)
{
    int rc = lvx_dm_suspend(ctx, dm, top);
    if (rc < 0)
        return rc;
    if ((rc = lvx_dm_resume(ctx, dm, layer, NULL)) < 0) {
        struct saved_error first;
        save_error(ctx, &first);
        lvx_dm_clear(ctx, dm, layer);
        lvx_dm_clear(ctx, dm, top);
        lvx_dm_resume(ctx, dm, top, NULL);
        return restore_error(ctx, &first);
    }
    return lvx_dm_resume(ctx, dm, top, NULL);
}

static int dm_swap(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    struct lvx_dm_ids ids, lids;
    struct lvx_dm dm;
    struct lvx_dm_info info;
    int rc = open_active(ctx, lv, own_layer(lv), &dm, &ids, &info);
    if (rc < 0)
        return rc;
    if (staged_layer(ctx, &dm, lv, &lids, NULL))
        rc = swap_over_layer(ctx, &dm, ids.name, lids.name);
    else
        rc = swap_tables(ctx, &dm, ids.name, live_mirror(ctx, &dm, ids.name));
    lvx_dm_close(&dm);
    return rc;
}

/* A device no table uses any more (open count 0) removed with its nodes. */
static void remove_unused(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    if (ids_of(ctx, lv->vg->name, lv, &ids) < 0 || lvx_dm_info(ctx, dm, ids.name, &info) < 0) {
        lvx_error_clear(ctx);
        return;
    }
    if (info.exists && info.open_count == 0 && lvx_dm_remove_retry(ctx, dm, ids.name, false) == 0)
        lvx_dm_nodes_remove(ids.name, lv->vg->name, link_of(lv));
    lvx_error_clear(ctx);
}

static int dm_unstage(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    struct lvx_dm_ids ids, lids;
    struct lvx_dm dm;
    struct lvx_dm_info info;
    int rc = open_active(ctx, lv, own_layer(lv), &dm, &ids, &info);
    if (rc < 0)
        return rc;
    bool fresh = false;
    bool layer = staged_layer(ctx, &dm, lv, &lids, &fresh);
    if (info.inactive_table)
        rc = lvx_dm_clear(ctx, &dm, ids.name);
    if (rc == 0 && layer && !fresh)      /* a live layer's new table dropped */
        rc = lvx_dm_clear(ctx, &dm, lids.name);
    /* a layer staged and never resumed: it and the top's new images go again */
    if (rc == 0 && layer && fresh) {
        const struct lvx_seg *top = &lv->segs[0];
        remove_unused(ctx, &dm, top->areas[0].lv);
        for (uint32_t i = 1; i < top->area_count; i++)
            remove_unused(ctx, &dm, top->areas[i].lv);
    }
    lvx_dm_close(&dm);
    return rc;
}

static int dm_collapse_layer(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                             const struct lvx_lv *layer)
{
    struct lvx_dm_ids ids, lids;
    struct lvx_dm dm;
    struct lvx_dm_info info, linfo;
    char table[64];
    int rc = open_active(ctx, lv, own_layer(lv), &dm, &ids, &info);
    if (rc < 0)
        return rc;
    snprintf(table, sizeof(table), "0 %" PRIu64 " error\n",
             layer->le_count * (uint64_t)layer->vg->extent_size);
    if ((rc = ids_of(ctx, layer->vg->name, layer, &lids)) < 0 ||
        (rc = lvx_dm_info(ctx, &dm, lids.name, &linfo)) < 0)
        goto out;
    if (!linfo.exists) {                /* nothing under lv but its new devices */
        rc = lvx_dm_swap_tables(ctx, &dm, ids.name);
        goto out;
    }
    /* the error table preloaded, as LVM2 loads the layer's new (error) segment */
    if ((rc = lvx_dm_load(ctx, &dm, lids.name, table, false)) < 0)
        goto out;
    if ((rc = lvx_dm_suspend(ctx, &dm, ids.name)) < 0) {
        struct saved_error first;
        save_error(ctx, &first);
        lvx_dm_clear(ctx, &dm, lids.name);
        rc = restore_error(ctx, &first);
        goto out;
    }
    if ((rc = lvx_dm_suspend(ctx, &dm, lids.name)) < 0 ||
        (rc = lvx_dm_resume(ctx, &dm, lids.name, NULL)) < 0) {
        /* the layer keeps its mirror: lv back on its old table */
        struct saved_error first;
        save_error(ctx, &first);
        lvx_dm_clear(ctx, &dm, lids.name);
        lvx_dm_resume(ctx, &dm, lids.name, NULL);
        lvx_dm_clear(ctx, &dm, ids.name);
        lvx_dm_resume(ctx, &dm, ids.name, NULL);
        rc = restore_error(ctx, &first);
        goto out;
    }
    if ((rc = lvx_dm_resume(ctx, &dm, ids.name, NULL)) < 0)
        goto out;
    if ((rc = lvx_dm_remove_retry(ctx, &dm, lids.name, false)) == 0)
        lvx_dm_nodes_remove(lids.name, layer->vg->name, link_of(layer));
out:
    lvx_dm_close(&dm);
    return rc;
}

/* lv's layer device (when there is one) takes the name of new_vg/new_lv's layer; no
 * /dev links are involved. */
static int rename_layer(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                        const char *layer, const char *new_vg, const char *new_lv)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    struct lvx_buf name = LVX_BUF_INIT;
    int rc = lvx_dm_ids_of(ctx, lv, layer, &ids);
    if (rc == 0 && (rc = lvx_dm_info(ctx, dm, ids.name, &info)) == 0 && info.exists) {
        if (lvx_dm_lv_name(&name, new_vg, new_lv, layer) < 0)
            rc = lvx_error(ctx, ENAMETOOLONG, "Device-mapper name of %s/%s is too long.",
                           new_vg, new_lv);
        else
            rc = lvx_dm_rename(ctx, dm, ids.name, lvx_buf_str(&name));
    }
    lvx_buf_free(&name);
    return rc;
}

static int dm_rename(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *new_vg,
                     const char *new_lv)
{
    struct lvx_dm_ids ids;
    struct lvx_dm dm;
    struct lvx_dm_info info;
    struct lvx_buf new_name = LVX_BUF_INIT;
    bool has_snapshots;
    lvx_dm_set_head(lv, &has_snapshots);
    /* a COW snapshot's "-cow" and an origin's "-real" layer device follow the name */
    const char *layer = !has_snapshots ? NULL : lvx_lv_is_cow(lv) ? "cow" : "real";
    int8_t watched = lvx_dm_watch_state(ctx, lv);    /* before the old device goes */
    int rc = open_active(ctx, lv, NULL, &dm, &ids, &info);
    if (rc < 0)
        return rc;
    if (layer && (rc = rename_layer(ctx, &dm, lv, layer, new_vg, new_lv)) < 0) {
        lvx_dm_close(&dm);
        return rc;
    }
    if (lvx_dm_lv_name(&new_name, new_vg, new_lv, NULL) < 0) {
        rc = lvx_error(ctx, ENAMETOOLONG, "Device-mapper name of %s/%s is too long.", new_vg,
                       new_lv);
    } else if ((rc = lvx_dm_rename(ctx, &dm, ids.name, lvx_buf_str(&new_name))) == 0) {
        lvx_dm_nodes_remove(ids.name, lv->vg->name, lv->name);
        rc = lvx_dm_nodes_add(ctx, lvx_buf_str(&new_name), info.major, info.minor, new_vg,
                              lvx_lv_thin_pool_private(lv) ? NULL : new_lv);   /* LVM2's
                              * fs rename: a link also for a sparse LV's hidden _vorigin */
    }
    if (rc == 0)
        lvx_dm_watch_renamed(ctx, lv, new_vg, new_lv, watched);
    lvx_buf_free(&new_name);
    lvx_dm_close(&dm);
    return rc;
}

static int dm_message(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *msg)
{
    struct lvx_dm_ids ids;
    struct lvx_dm dm;
    struct lvx_dm_info info;
    int rc = open_active(ctx, lv, own_layer(lv), &dm, &ids, &info);
    if (rc < 0)
        return rc;
    rc = lvx_dm_message(ctx, &dm, ids.name, 0, msg);
    lvx_dm_close(&dm);
    return rc;
}

/* Read-ahead in sectors from sysfs (opening the device would count as an open). */
static int64_t sysfs_read_ahead(uint32_t major, uint32_t minor)
{
    char path[128];
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/read_ahead_kb", major, minor);
    FILE *f = fopen(path, "r");
    long long kb = -1;
    if (f) {
        if (fscanf(f, "%lld", &kb) != 1)
            kb = -1;
        fclose(f);
    }
    return kb < 0 ? -1 : kb * 2;
}

/* "<start> <len> raid <type> <#devs> <health> <done>/<total> <action> <mismatches>
 * <data_offset> ..." (dm-raid's status line, docs/dm-formats.md) into out; false when it is not one. */
static bool parse_raid_status(const char *line, struct lvx_lv_kstate *out)
{
    unsigned long long start, len, done, total, mism, off;
    unsigned devs;
    char type[32], health[257], action[16];
    int n = sscanf(line, "%llu %llu raid %31s %u %256s %llu/%llu %15s %llu %llu", &start, &len,
                   type, &devs, health, &done, &total, action, &mism, &off);
    if (n < 9)
        return false;
    out->raid_data_offset = n == 10 ? (int64_t)off : -1;
    out->raid_devs = devs;
    out->raid = true;
    snprintf(out->raid_health, sizeof(out->raid_health), "%s", health);
    snprintf(out->sync_action, sizeof(out->sync_action), "%s", action);
    out->sync_done = done;
    out->sync_total = total;
    out->mismatches = mism;
    return true;
}

/* "<start> <len> mirror <#images> <dev>... <in-sync>/<regions> 1 <health> <#log args>
 * <log type> [<log dev> <log health>]" (dm-mirror's status line) into out; false when it
 * is not one. */
static bool parse_mirror_status(const char *line, struct lvx_lv_kstate *out)
{
    unsigned long long start, len, done, total;
    unsigned images;
    int pos = 0;
    if (sscanf(line, "%llu %llu mirror %u %n", &start, &len, &images, &pos) != 3 || images > 64)
        return false;
    const char *p = line + pos;
    for (unsigned i = 0; i < images; i++) {       /* skip the image devices */
        p = strchr(p, ' ');
        if (!p)
            return false;
        p++;
    }
    char health[65] = "", log_type[16] = "", log_dev[32], log_health = 0;
    unsigned health_args = 0, log_args = 0;
    int n = sscanf(p, "%llu/%llu %u %64s %u %15s %31s %c", &done, &total, &health_args, health,
                   &log_args, log_type, log_dev, &log_health);
    if (n < 2)
        return false;
    out->mirror = true;
    out->sync_done = done;
    out->sync_total = total;
    /* "1 <a letter per image> 1 core" or "... 3 disk <log dev> <letter>" */
    if (n >= 4 && health_args == 1 && strlen(health) == images)
        snprintf(out->raid_health, sizeof(out->raid_health), "%s", health);
    if (n == 8 && log_args == 3 && strcmp(log_type, "disk") == 0)
        out->mirror_log_health = log_health;
    return true;
}

static int dm_status(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_lv_kstate *out)
{
    struct lvx_dm_ids ids;
    struct lvx_dm dm;
    struct lvx_dm_info info;
    int rc;
    memset(out, 0, sizeof(*out));
    out->backend = lvx_activation_dm.name;
    out->major = out->minor = -1;
    out->read_ahead = -1;
    if ((rc = ids_of(ctx, lv->vg->name, lv, &ids)) < 0 || (rc = lvx_dm_open(ctx, &dm)) < 0)
        return rc;
    if (lvx_map_lv_is_thin_kind(lv)) {
        rc = lvx_dm_thin_status(ctx, &dm, lv, &info, out);
    } else {
        rc = lvx_dm_info(ctx, &dm, ids.name, &info);
        /* a device of that name made for another LV (a foreign VG's of the same name;
         * LVM2 tells them apart by UUID) is not this LV's; a sub-LV's own UUID carries
         * its layer suffix ("-tdata", "-tmeta", ...) */
        size_t n = strlen(ids.uuid);
        if (rc == 0 && info.exists && info.uuid[0] &&
            (strncmp(info.uuid, ids.uuid, n) != 0 || (info.uuid[n] && info.uuid[n] != '-')))
            info.exists = false;
    }
    if (rc == 0 && info.exists && (lvx_lv_is_cow(lv) || lvx_lv_merging_snapshot(lv)))
        rc = lvx_dm_snapshot_usage(ctx, &dm, ids.name, out);
    if (rc == 0)      /* a cache LV, or a used cache pool (its cache LV's, while inactive) */
        rc = lvx_dm_cache_status(ctx, &dm, lv, out);
    if (rc == 0 && info.exists && info.live_table && stacked(lv)) {
        /* a RAID or mirror origin's own table is on its -real layer */
        struct lvx_buf st = LVX_BUF_INIT, layer = LVX_BUF_INIT;
        const char *own = own_layer(lv), *name = ids.name;
        if (own && lvx_dm_lv_name(&layer, lv->vg->name, lv->name, own) == 0)
            name = lvx_buf_str(&layer);
        if (lvx_dm_table(ctx, &dm, name, true, &st) == 0 &&
            !parse_raid_status(lvx_buf_str(&st), out))
            parse_mirror_status(lvx_buf_str(&st), out);
        else
            lvx_error_clear(ctx);
        lvx_buf_free(&st);
        lvx_buf_free(&layer);
    }
    lvx_dm_close(&dm);
    if (rc < 0 || !info.exists)
        return rc;
    out->active = true;
    out->live_table = info.live_table;
    out->inactive_table = info.inactive_table;
    out->suspended = info.suspended;
    out->read_only = info.read_only;
    out->open_count = info.open_count;
    out->major = info.major;
    out->minor = info.minor;
    out->read_ahead = sysfs_read_ahead(info.major, info.minor);
    out->monitored = lvx_dm_watch_state(ctx, lv);   /* pools, COW, mirror, RAID; else -1 */
    return 0;
}

const struct lvx_activation_backend lvx_activation_dm = {
    .name = "dm",
    .raid = true,
    .probe = dm_probe,
    .activate = dm_activate,
    .deactivate = dm_deactivate,
    .stage = dm_stage,
    .swap = dm_swap,
    .unstage = dm_unstage,
    .collapse_layer = dm_collapse_layer,
    .rename = dm_rename,
    .rename_sub = dm_rename_sub,
    .message = dm_message,
    .status = dm_status,
    .thin_message = lvx_dm_thin_message,
    .monitor = lvx_dm_watch,
};
