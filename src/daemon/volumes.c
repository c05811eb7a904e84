/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/volumes.c - the LVs the daemon serves.  Each is read from its devices by
 * the daemon itself (a lock-free scan of the device list the client sent: the
 * client's view is never trusted, the LV UUID must match), its PVs opened with
 * O_DIRECT through the daemon's I/O seam (lvxd_ops()), and kept with its model (map/ needs it) until deactivated.  The
 * state file lists them (node id, names, loop device, devices) so that a new
 * daemon serves the same files with the same node ids.
 *
 * Entry points: lvxd_volume_add(), lvxd_volume_reload(), lvxd_volume_remove(),
 * lvxd_volume_find(), lvxd_volume_get(), lvxd_volume_put(), lvxd_volume_name(),
 * lvxd_volume_attach(), lvxd_state_save(), lvxd_state_load(), lvxd_state_fix_loops().
 */
#include "daemon/daemon.h"
#include "daemon/daemon_int.h"
#include "meta/read.h"
#include "model/raid.h"
#include "model/restripe.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "map/dm_names.h"
#include "meta/lockd.h"
#include "map/map.h"
#include "model/snapshot.h"
#include "model/thin.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/pool.h"

#define DEFAULT_MAX_PIECE_KB 512u
#define PAGE 4096u

pthread_mutex_t lvxd_lvs_mutex = PTHREAD_MUTEX_INITIALIZER;
struct lvxd_lv *lvxd_lvs;
static uint64_t next_ino = 2;

int lvxd_volume_name(char *out, size_t n, const char *vg, const char *lv)
{
    struct lvx_buf b = LVX_BUF_INIT;
    int rc = lvx_dm_lv_name(&b, vg, lv, NULL);
    if (rc == 0 && strlen(lvx_buf_str(&b)) < n)
        snprintf(out, n, "%s", lvx_buf_str(&b));
    else
        rc = -ENAMETOOLONG;
    lvx_buf_free(&b);
    return rc;
}

static unsigned read_sysfs_uint(const char *path, unsigned dflt)
{
    FILE *f = fopen(path, "r");
    unsigned v = dflt;
    if (f) {
        if (fscanf(f, "%u", &v) != 1)
            v = dflt;
        fclose(f);
    }
    return v;
}

/* Largest piece (sectors) a PV takes without being split by the block layer:
 * max_sectors_kb, and max_segments pages (user buffers: one segment per page). */
static uint32_t queue_limit(dev_t rdev)
{
    char path[128];
    unsigned kb, segs;
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/max_sectors_kb", major(rdev),
             minor(rdev));
    if (access(path, F_OK) != 0)   /* a partition: its disk's queue */
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/max_sectors_kb",
                 major(rdev), minor(rdev));
    kb = read_sysfs_uint(path, DEFAULT_MAX_PIECE_KB);
    char *leaf = strrchr(path, '/');
    snprintf(leaf, sizeof(path) - (size_t)(leaf - path), "/max_segments");
    segs = read_sysfs_uint(path, 0);
    if (segs && segs * (PAGE / 1024) < kb)
        kb = segs * (PAGE / 1024);
    if (kb < 4)
        kb = 4;
    return kb * 2;
}

static int open_pv(struct lvx_ctx *ctx, const struct lvx_pv *pv, bool ro, struct lvxd_pv *out)
{
    out->fd = -1;
    out->path = pv->ondisk.dev_name;
    out->max_piece = LVXD_MAX_IO / 512;
    out->lbs = 512;
    if (!pv->ondisk.present || !pv->ondisk.dev_name || (pv->flags & LVX_PVF_MISSING))
        return 0;
    const struct lvx_dev_ops *ops = lvxd_ops();
    int fd = ops->open(ops->arg, pv->ondisk.dev_name, (ro ? O_RDONLY : O_RDWR) | O_DIRECT);
    if (fd < 0)
        return lvx_error(ctx, -fd, "Cannot open PV %s: %s", pv->ondisk.dev_name,
                         strerror(-fd));
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        ops->close(ops->arg, fd);
        return lvx_error(ctx, e, "Cannot stat PV %s: %s", pv->ondisk.dev_name, strerror(e));
    }
    out->fd = fd;
    out->is_blk = S_ISBLK(st.st_mode);
    if (out->is_blk) {
        int lbs = 512;
        if (ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs >= 512)
            out->lbs = (uint32_t)lbs;
        out->max_piece = queue_limit(st.st_rdev);
    }
    return 0;
}

/* lv or one of its sub-LVs (RAID images and metadata, mirror logs, ...) has an area on pv. */
static bool lv_uses_pv(const struct lvx_lv *lv, const struct lvx_pv *pv, unsigned depth)
{
    if (!lv || depth > 8)
        return false;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        for (uint32_t a = 0; seg->areas && a < seg->area_count; a++)
            if (seg->areas[a].pv == pv || lv_uses_pv(seg->areas[a].lv, pv, depth + 1))
                return true;
        for (uint32_t a = 0; seg->meta_areas && a < seg->area_count; a++)
            if (seg->meta_areas[a].pv == pv || lv_uses_pv(seg->meta_areas[a].lv, pv, depth + 1))
                return true;
        if (lv_uses_pv(seg->log_lv, pv, depth + 1))       /* a mirror's disk log */
            return true;
    }
    return false;
}

/* A thin LV or pool: the pool's data LV (target_thin.c; the metadata has its own) and
 * a thin LV's external origin. */
static bool thin_uses_pv(const struct lvx_lv *lv, const struct lvx_pv *pv)
{
    const struct lvx_seg *ts = lvx_lv_thin_seg(lv);
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(ts ? ts->pool_lv : lv);
    return (ps && lv_uses_pv(ps->data_lv, pv, 0)) || (ts && lv_uses_pv(ts->external_lv, pv, 0));
}

/* ... or an LV served with it (a COW LV's origin, an origin's COW LVs: the snapshot
 * targets, target_snapshot.c, copy between them; a thin origin's pool data; the
 * reservation LV of a restripe, target_pvmove.c). */
static bool set_uses_pv(const struct lvx_lv *lv, const struct lvx_pv *pv)
{
    const struct lvx_seg *segs[64], *cs = lvx_lv_cow_snapshot_seg(lv);
    unsigned n = cs ? 0 : lvx_lv_snapshot_segs(lv, segs, 64);
    bool uses = lv_uses_pv(lv, pv, 0) || (cs && lv_uses_pv(cs->origin_lv, pv, 0)) ||
                lv_uses_pv(lvx_restripe_rsv(lv), pv, 0) || thin_uses_pv(lv, pv) ||
                (cs && cs->origin_lv && thin_uses_pv(cs->origin_lv, pv));
    for (unsigned i = 0; i < n && i < 64 && !uses; i++)
        uses = lv_uses_pv(segs[i]->cow_lv, pv, 0);
    return uses;
}

/* The model of one LV, read from the devices. */
struct loaded {
    struct lvx_scan *scan;
    struct lvx_vgset *set;
    const struct lvx_lv *lv;
    const struct lvx_map_prepared *map;   /* lv compiled for serving, in set's pool */
    const struct lvxd_target *target;
    void *tstate;
    struct lvxd_pv *pvs;
    unsigned pv_count;
};

/* v: the volume l was applied to (the target's dtr may need its PVs), or NULL */
static void loaded_free(struct loaded *l, struct lvxd_lv *v)
{
    if (l->target && l->target->dtr && (l->tstate || v))
        l->target->dtr(v, l->tstate);
    const struct lvx_dev_ops *ops = lvxd_ops();
    for (unsigned i = 0; l->pvs && i < l->pv_count; i++)
        if (l->pvs[i].fd >= 0)
            ops->close(ops->arg, l->pvs[i].fd);
    free(l->pvs);
    if (l->set)
        lvx_vgset_free(l->set);
    if (l->scan)
        lvx_scan_free(l->scan);
    memset(l, 0, sizeof(*l));
}

static int no_memory(struct lvx_ctx *ctx, const char *vgname, const char *lvname)
{
    return lvx_error(ctx, ENOMEM, "Out of memory loading %s/%s.", vgname, lvname);
}

int lvxd_read_vgs(struct lvx_ctx *ctx, const char *devs, struct lvx_scan **scan,
                  struct lvx_vgset **set)
{
    *scan = NULL;
    *set = NULL;
    /* every device named (no limit: a VG of any number of PVs) */
    size_t words = 1;
    for (const char *c = devs; *c; c++)
        words += *c == ' ';
    char *copy = strdup(devs);
    const char **names = calloc(words, sizeof(*names));
    if (!copy || !names) {
        free(copy);
        free(names);
        return lvx_error(ctx, ENOMEM, "Out of memory reading the VGs.");
    }
    unsigned n = 0;
    char *save = NULL;
    for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
        names[n++] = t;
    struct lvx_scan_opts so = { .devices = names, .device_count = n, .with_lvs = true };
    int rc = n ? lvx_scan_uncached(ctx, &so, scan) : lvx_error(ctx, EINVAL, "No devices given.");
    if (rc == 0)
        rc = lvx_scan_vgs(ctx, *scan, set);
    free(names);
    free(copy);
    return rc;
}

/* The origin of a waiting thin merge maps its snapshot's thin device (model/thin.c,
 * LVM2's merge at activation) unless the merge must wait on: its snapshot is served,
 * or the origin is served already (a reload) with its own device.  Then the merge
 * is dropped from this private model, which maps the origin's own device. */
static void thin_merge_postponed(struct lvx_vg *vg, const struct lvx_lv *lv,
                                 const struct lvxd_lv *old)
{
    struct lvx_seg *m = lvx_lv_is_thin(lv) ? lvx_thin_merging_into(lv) : NULL;
    if (!m)
        return;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    bool snap_served = lvxd_volume_find(vg->name, m->lv->name) != NULL;
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    int64_t cur = old ? lvxd_thin_dev_mapped_id(old) : -1;
    if (snap_served || (cur >= 0 && cur != (int64_t)m->device_id))
        m->merging = false;
}

static int load(struct lvx_ctx *ctx, const char *vgname, const char *lvname, const char *uuid,
                bool ro, bool partial, const char *devs, const struct lvxd_lv *old,
                struct loaded *l)
{
    memset(l, 0, sizeof(*l));
    int rc = lvxd_read_vgs(ctx, devs, &l->scan, &l->set);
    if (rc < 0)
        goto fail;
    struct lvx_vg *vg = lvx_vgset_find(l->set, vgname);
    const struct lvx_lv *lv = vg ? lvx_vg_find_lv(vg, lvname) : NULL;
    if (!vg || !lv) {
        rc = lvx_error(ctx, ENOENT, "Logical volume %s/%s not found on its devices.", vgname,
                       lvname);
        goto fail;
    }
    if (uuid && *uuid && strcmp(uuid, "-") != 0 && strcmp(lv->uuid, uuid) != 0) {
        rc = lvx_error(ctx, ESTALE, "Logical volume %s/%s on the devices has another UUID.",
                       vgname, lvname);
        goto fail;
    }
    thin_merge_postponed(vg, lv, old);
    /* partial: a missing PV keeps fd -1 and its areas map to error: EIO there */
    l->target = lvxd_target_for(lv);
    if ((rc = l->target->ctr(ctx, l->set->pool, lv, partial, &l->map, &l->tstate)) < 0)
        goto fail;
    l->lv = lv;
    l->pvs = calloc(vg->pv_count ? vg->pv_count : 1, sizeof(*l->pvs));
    if (!l->pvs) {
        rc = no_memory(ctx, vgname, lvname);
        goto fail;
    }
    l->pv_count = vg->pv_count;
    for (unsigned i = 0; i < vg->pv_count; i++)
        l->pvs[i].fd = -1;
    for (unsigned i = 0; i < vg->pv_count; i++)      /* pvs[] by pv->index = position */
        if (set_uses_pv(lv, vg->pvs[i]) &&
            (rc = open_pv(ctx, vg->pvs[i], ro, &l->pvs[vg->pvs[i]->index])) < 0)
            goto fail;
    return 0;
fail:
    loaded_free(l, NULL);
    return rc;
}

static void apply(struct lvxd_lv *v, struct loaded *l)
{
    v->scan = l->scan;
    v->set = l->set;
    v->model = l->lv;
    v->map = l->map;
    v->target = l->target;
    v->tstate = l->tstate;
    v->pvs = l->pvs;
    v->pv_count = l->pv_count;
    /* a RAID LV's reshape space (LVM2 counts it in the extents) is not served */
    uint64_t le = l->lv->le_count;
    for (unsigned s = 0; s < l->lv->seg_count; s++)
        le -= lvx_raid_reshape_extents(&l->lv->segs[s]);
    v->size = le * (uint64_t)l->lv->vg->extent_size * 512;
    v->lbs = 512;
    for (unsigned i = 0; i < v->pv_count; i++)
        if (v->pvs[i].fd >= 0 && v->pvs[i].lbs > v->lbs)
            v->lbs = v->pvs[i].lbs;
    struct lvx_io_hints h = { 0, 0 };
    struct lvx_ctx tmp;
    lvx_ctx_init(&tmp);
    lvx_map_io_hints(&tmp, l->lv, &h);
    v->io_min = h.io_min;
    v->io_opt = h.io_opt;
}

/* The served LV that holds the lease of the LV with this UUID (lvxd_lvs_mutex held). */
static struct lvxd_lv *lease_holder(const char *uuid)
{
    for (struct lvxd_lv *v = lvxd_lvs; v; v = v->next)
        if (v->lease > 0 && strcmp(v->lease_uuid, uuid) == 0)
            return v;
    return NULL;
}

struct lvxd_lv *lvxd_volume_find(const char *vg, const char *lv)
{
    for (struct lvxd_lv *v = lvxd_lvs; v; v = v->next)
        if (!v->dying && strcmp(v->vg, vg) == 0 && strcmp(v->lv, lv) == 0)
            return v;
    return NULL;
}

int lvxd_volume_add(struct lvx_ctx *ctx, const char *vg, const char *lv, const char *uuid,
                    unsigned flags, const char *devs, uint64_t ino, struct lvxd_lv **out)
{
    bool ro = flags & LVXD_FLAG_RO, partial = flags & LVXD_FLAG_PARTIAL;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    struct lvxd_lv *v = lvxd_volume_find(vg, lv);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    if (v) {
        *out = v;
        if (uuid && strcmp(uuid, "-") != 0 && strcmp(v->uuid, uuid) != 0)
            return lvx_error(ctx, EEXIST, "%s/%s is served with another UUID.", vg, lv);
        return 0;
    }
    struct loaded l;
    int rc = load(ctx, vg, lv, uuid, ro, partial, devs, NULL, &l);
    if (rc < 0)
        return rc;
    if ((flags & LVXD_FLAG_NOSYNC) && l.target == &lvxd_target_mirror)
        lvxd_mirror_assume_synced(l.tstate);
    /* a shared VG's LV: its lease, held by this process as long as the LV is served;
     * a thin LV's is its pool's, taken once for every served LV of the pool */
    int lease = 0;
    bool shared = flags & LVXD_FLAG_LOCK_SH;
    const struct lvx_lv *owner = lvx_lockd_lease_owner(l.lv);
    pthread_mutex_lock(&lvxd_lvs_mutex);
    bool borrowed = owner && !shared && lease_holder(owner->uuid);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    if (!borrowed && (rc = lvx_lockd_lv_lock(ctx, l.lv, shared, 0, &lease)) < 0) {
        loaded_free(&l, NULL);
        return rc;
    }
    v = calloc(1, sizeof(*v));
    char *devices = strdup(devs);
    if (!v || !devices) {
        lvx_lockd_lv_unlock(&lease);
        loaded_free(&l, NULL);
        free(v);
        free(devices);
        return no_memory(ctx, vg, lv);
    }
    if ((rc = lvxd_volume_name(v->name, sizeof(v->name), vg, lv)) < 0) {
        lvx_lockd_lv_unlock(&lease);
        loaded_free(&l, NULL);
        free(v);
        free(devices);
        return lvx_error(ctx, ENAMETOOLONG, "The name of %s/%s is too long.", vg, lv);
    }
    snprintf(v->vg, sizeof(v->vg), "%s", vg);
    snprintf(v->lv, sizeof(v->lv), "%s", lv);
    snprintf(v->uuid, sizeof(v->uuid), "%s", l.lv->uuid);
    v->devices = devices;
    v->read_only = ro;
    v->partial = partial;
    v->lease = lease;
    v->lease_shared = shared && lease;
    snprintf(v->lease_uuid, sizeof(v->lease_uuid), "%s", owner ? owner->uuid : "");
    pthread_rwlock_init(&v->lock, NULL);
    apply(v, &l);
    if (v->target->start && (rc = v->target->start(ctx, v)) < 0) {
        lvx_lockd_lv_unlock(&v->lease);
        loaded_free(&l, v);
        pthread_rwlock_destroy(&v->lock);
        free(v);
        free(devices);
        return rc;
    }
    pthread_mutex_lock(&lvxd_lvs_mutex);
    v->ino = ino ? ino : next_ino++;
    if (v->ino >= next_ino)
        next_ino = v->ino + 1;
    v->next = lvxd_lvs;
    lvxd_lvs = v;
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    lvxd_log("serving %s/%s (%" PRIu64 " bytes) as %s, node %" PRIu64, vg, lv, v->size,
             v->name, v->ino);
    *out = v;
    return 0;
}

/* Read-ahead of the LV's loop device.  The LV's own when its metadata fixes one
 * (lvcreate/lvchange -r N: N sectors; -r none: 0), as LVM2 sets it on its dm device.
 * Auto: twice a full stripe, at least LVXD_READ_AHEAD_KB.  A buffered reader
 * has at most about two read-ahead windows in flight, and each request crosses
 * several hand-offs between threads (the loop device's worker, the FUSE queue,
 * the daemon's thread, the PVs and back): with a window of 4 MiB (4 FUSE requests
 * of 1 MiB) the latency of those hand-offs, not the disks, bounded a buffered read
 * to ~300 MiB/s at 4 and 8 disks; 16 MiB keeps every FUSE thread of the daemon
 * (LVX_DAEMON_THREADS, 16) busy.  See docs/design.md.  Set at attach and after each
 * reload (lvchange -r of an active LV). */
static void set_read_ahead(const struct lvxd_lv *v)
{
    const struct lvx_lv *lv = v->model;
    if (!v->loop[0])
        return;
    if (lv && lv->has_read_ahead && lv->read_ahead != 0) {
        lvxd_loop_read_ahead(v->loop, lv->read_ahead < 0 ? 0 : (unsigned long)lv->read_ahead);
        return;
    }
    uint64_t ra_kb = 2 * v->io_opt / 1024;
    lvxd_loop_read_ahead(v->loop, 2 * (ra_kb > LVXD_READ_AHEAD_KB ? ra_kb : LVXD_READ_AHEAD_KB));
}

static void drop_model(struct lvxd_lv *v)
{
    struct loaded old = { v->scan, v->set, v->model, v->map, v->target, v->tstate, v->pvs,
                          v->pv_count };
    loaded_free(&old, v);
    v->target = NULL;
    v->tstate = NULL;
    v->scan = NULL;
    v->set = NULL;
    v->pvs = NULL;
}

int lvxd_volume_reload(struct lvx_ctx *ctx, struct lvxd_lv *v, const char *devs,
                       const int64_t *reshape)
{
    struct loaded l;
    int rc = load(ctx, v->vg, v->lv, v->uuid, v->read_only, v->partial, devs, v, &l);
    if (rc < 0)
        return rc;
    char *devices = strdup(devs);
    if (!devices) {
        loaded_free(&l, NULL);
        return no_memory(ctx, v->vg, v->lv);
    }
    const struct lvx_dev_ops *ops = lvxd_ops();
    pthread_rwlock_wrlock(&v->lock);
    for (unsigned i = 0; i < v->pv_count; i++)
        if (v->pvs[i].fd >= 0 && !v->read_only && ops->flush(ops->arg, v->pvs[i].fd) < 0)
            lvxd_log("warning: %s/%s: flushing %s before the reload failed", v->vg, v->lv,
                     v->pvs[i].path);
    if (l.target->adopt && l.tstate && v->model)
        l.target->adopt(l.tstate, l.lv, v->model, v->target, v->tstate);
    drop_model(v);
    apply(v, &l);
    free(v->devices);
    v->devices = devices;
    /* a target that cannot start on the new model fails its requests (its own
     * state says so) until the next reload */
    if (reshape)
        rc = lvxd_raid_reshape_request(ctx, v, (int)reshape[0], (uint64_t)reshape[1]);
    if (rc == 0 && v->target->start && (rc = v->target->start(ctx, v)) < 0)
        lvxd_log("%s/%s: the %s target did not start after the reload", v->vg, v->lv,
                 v->target->name);
    set_read_ahead(v);
    pthread_rwlock_unlock(&v->lock);
    if (rc < 0)
        return rc;
    lvxd_log("reloaded %s/%s: %" PRIu64 " bytes", v->vg, v->lv, v->size);
    return 0;
}

static void volume_free(struct lvxd_lv *v)
{
    drop_model(v);
    lvx_lockd_lv_unlock(&v->lease);
    pthread_rwlock_destroy(&v->lock);
    free(v->devices);
    free(v);
}


static void unlink_locked(struct lvxd_lv *v)
{
    for (struct lvxd_lv **p = &lvxd_lvs; *p; p = &(*p)->next)
        if (*p == v) {
            *p = v->next;
            break;
        }
    v->next = NULL;
    /* a lease other served LVs share (a thin pool's) goes to one of them */
    if (v->lease > 0 && v->lease_uuid[0])
        for (struct lvxd_lv *o = lvxd_lvs; o; o = o->next)
            if (o->lease == 0 && strcmp(o->lease_uuid, v->lease_uuid) == 0) {
                o->lease = v->lease;
                v->lease = 0;
                break;
            }
}

void lvxd_volume_remove(struct lvxd_lv *v)
{
    char line[600];
    pthread_mutex_lock(&lvxd_lvs_mutex);
    bool now = atomic_load(&v->opens) == 0;
    v->dying = true;          /* not found by name, open or lookup any more */
    if (now)
        unlink_locked(v);
    /* written while v is sure to live: once the mutex is let go, the last close of a
     * file still open (lvxd_volume_put on a FUSE thread) may free v at once */
    snprintf(line, sizeof(line), "stopped serving %s/%s%s", v->vg, v->lv,
             now ? "" : " (freed at the last close)");
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    lvxd_log("%s", line);
    if (now)
        volume_free(v);
}

struct lvxd_lv *lvxd_volume_get(uint64_t ino, bool open)
{
    struct lvxd_lv *found = NULL;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (struct lvxd_lv *v = lvxd_lvs; v && !found; v = v->next)
        if (v->ino == ino && !(open && v->dying))
            found = v;
    if (found && open)
        atomic_fetch_add(&found->opens, 1);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    return found;
}

void lvxd_volume_put(struct lvxd_lv *v)
{
    pthread_mutex_lock(&lvxd_lvs_mutex);
    bool last = atomic_fetch_sub(&v->opens, 1) == 1 && v->dying;
    if (last)
        unlink_locked(v);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    if (last) {
        lvxd_log("%s/%s closed: freed", v->vg, v->lv);
        volume_free(v);
    }
}

int lvxd_volume_attach(struct lvx_ctx *ctx, struct lvxd_lv *v, const char *mount_dir, int nr)
{
    char file[4400], dev[32];
    int maj, min;
    snprintf(file, sizeof(file), "%s/%s", mount_dir, v->name);
    int rc = lvxd_loop_attach(ctx, file, v->read_only, v->lbs, nr, dev, sizeof(dev), &maj, &min);
    if (rc < 0)
        return rc;
    snprintf(v->loop, sizeof(v->loop), "%s", dev);
    v->loop_major = maj;
    v->loop_minor = min;
    snprintf(v->loop_name, sizeof(v->loop_name), "%s", v->name);
    /* Requests of the loop device as large as a FUSE request and aligned to it: with
     * the kernel's default (1280 KiB) a request is split into a FUSE request of 1 MiB
     * and one of 256 KiB, and the next ones start off the 1 MiB grid (bench/stripe N=8:
     * 3270 FUSE reads for 2 GiB read, 2048 with 1024 KiB). */
    lvxd_loop_max_request(maj, min, LVXD_MAX_IO / 1024);
    set_read_ahead(v);
    /* Writeback of a file system on the LV starts once a part of LVXD_DIRTY_LIMIT is
     * dirty, and the writer is paced at the LV's write rate near the limit (what the
     * kernel does for every FUSE bdi), instead of nothing being written before the
     * global background threshold (10% of memory): a buffered write + fsync then
     * overlaps the copy into the page cache with the disks' writes (bench/stripe;
     * 256 MiB: 64 wrote 14% less at 8 disks, the same at 4). */
    lvxd_loop_dirty_limit(maj, min, LVXD_DIRTY_LIMIT);
    return 0;
}

bool lvxd_volume_loop_ours(const struct lvxd_lv *v, const char *mount_dir)
{
    char backing[4400], file[4400];
    if (!v->loop[0] || lvxd_loop_backing(v->loop, backing, sizeof(backing)) < 0)
        return false;
    /* the name it was attached with; " (deleted)" when the kernel dropped that
     * name after a rename */
    int n = snprintf(file, sizeof(file), "%s/%s", mount_dir, v->loop_name);
    return strncmp(backing, file, (size_t)n) == 0 &&
           (backing[n] == 0 || strcmp(backing + n, " (deleted)") == 0);
}
