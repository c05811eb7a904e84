/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/raid_resync.c - the background resync of the daemon's RAID targets
 * (raid_core.h): the LV is served while its regions are brought in sync.
 *
 *   need     per bitmap region, set at start (raid_core.c): dirty (copies or parity
 *            may differ: synced from the in-sync legs) and/or rebuild (legs coming
 *            back are written).  A region still in need keeps its bitmap bit set.
 *   gate     a request touching a region still in need syncs that region first,
 *            under the array's mutex (the region lock): no region is ever copied
 *            under a request, and no request sees a region out of sync.
 *   walker   one thread per LV (after a raid10 growth the reshape walker's own, which
 *            then resyncs the new space: raid_resync_run), its own I/O queue, walks
 *            the regions in order and syncs those still in need, paced by --maxrecoveryrate (KiB/s per device;
 *            it never yields to requests, so --minrecoveryrate is met by itself).
 *            About twice a second the legs are flushed, the bits of regions done and
 *            not written since are cleared, and the superblocks record the progress
 *            (a whole-array resync: array_resync_offset 0 with the regions left dirty
 *            in the bitmap, which dm-raid resyncs by the bitmap, skipping the clean
 *            ones; legs being rebuilt record disk_recovery_offset, md's per-device
 *            recovery_offset: every region below it is rebuilt), so a stop or a crash
 *            resumes there in this daemon and in the kernel (t0751, t1005).
 *   rate     --maxrecoveryrate as loaded; lvchange changes it by a reload, which
 *            stops the walker at a checkpoint and starts it again from there.
 *   status   "resync" (every leg 'a') or "recover" (rebuilt legs 'a') with the
 *            walker's position, "idle" when done, "frozen" after an error.
 */
#include "daemon/raid_core.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECKPOINT_NS 500000000LL   /* progress recorded this often */

int64_t raid_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Sync region g as its need says.  mu held. */
static int sync_region_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t g,
                              uint8_t *buf)
{
    int rc = 0;
    if (r->need[g] & RAID_NEED_DIRTY)
        rc = r->geom->sync(io, v, r, g, g + 1, r->insync, r->all, buf);
    if (rc == 0 && (r->need[g] & RAID_NEED_REBUILD))
        rc = r->geom->sync(io, v, r, g, g + 1, r->insync, r->rebuild, buf);
    if (rc < 0) {
        lvxd_log("%s/%s: resync of region %" PRIu64 " failed: %s", v->vg, v->lv, g,
                 strerror(-rc));
        return rc;
    }
    r->need[g] = 0;
    atomic_fetch_sub(&r->unsynced, 1);
    return 0;
}

int raid_sync_gate_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t r0,
                          uint64_t r1)
{
    if (!atomic_load(&r->unsynced))
        return 0;
    uint8_t *buf = NULL;
    int rc = 0;
    for (uint64_t g = r0; g <= r1 && g < r->regions && rc == 0; g++) {
        if (!r->need[g])
            continue;
        if (!buf && posix_memalign((void **)&buf, 4096, RAID_COPY_BYTES))
            return -ENOMEM;
        rc = sync_region_locked(io, v, r, g, buf);
    }
    free(buf);
    return rc < 0 ? -EIO : 0;
}

int raid_sync_gate(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t r0,
                   uint64_t r1)
{
    if (!atomic_load(&r->unsynced))
        return 0;
    pthread_mutex_lock(&r->mu);
    int rc = raid_sync_gate_locked(io, v, r, r0, r1);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

static uint64_t first_need(const struct raid *r, unsigned mask)
{
    uint64_t g = 0;
    while (g < r->regions && !(r->need[g] & mask))
        g++;
    return g;
}

void raid_progress_durable_locked(struct raid *r)
{
    r->resync_mark = first_need(r, RAID_NEED_DIRTY | RAID_NEED_REBUILD);
    r->rebuild_mark = first_need(r, RAID_NEED_REBUILD);
}

/* 0, not the walker's position: dm-raid (Linux 6.12) takes any other offset below
 * MaxSector as a requested resync from sector 0 that copies every region, the clean ones
 * too; with 0 it resyncs the regions whose bits are set, i.e. from the walker's position
 * on (every region left keeps its bit), as this daemon does at its next start. */
uint64_t raid_resync_offset_locked(const struct raid *r)
{
    if (!r->full || r->resync_mark >= r->regions)
        return LVX_RAID_MAX_SECTOR;
    return r->grow_resync;    /* a raid10 growth's new space: md's old size, until done */
}

static bool is_raid10(const struct raid *r)
{
    return strcmp(r->dm_name, "raid10") == 0;
}

/* raid10 near: array chunk a has its copies in slots a*c .. a*c+c-1, slot s on leg s % n
 * at row s / n; the chunks below A fill rows below A*c/n, and the rows below R hold
 * every copy of the chunks below R*n/c. */
uint64_t raid_recovery_offset_locked(const struct raid *r)
{
    if (!r->rebuild || r->rebuild_mark >= r->regions)
        return LVX_RAID_MAX_SECTOR;
    uint64_t off = r->rebuild_mark * r->region;
    if (off >= r->sync_size)
        return LVX_RAID_MAX_SECTOR;
    if (is_raid10(r))
        off = off / r->chunk * r->copies / r->n * r->chunk;
    return off;
}

uint64_t raid_recovery_from_leg(const struct raid *r, uint64_t leg)
{
    if (is_raid10(r))
        leg = leg / r->chunk * r->n / r->copies * r->chunk;
    return leg < r->sync_size ? leg : r->sync_size;
}

/* Progress to disk: the legs flushed, the bits of regions [a, b) done and not written
 * since the mark cleared, the superblocks (resync offset) and bitmaps written.  mu
 * held on entry and exit, dropped for the flush. */
static int checkpoint_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t a,
                             uint64_t b, bool done)
{
    for (uint64_t g = a; g < b; g++)
        r->wtouch[g] = 0;
    uint64_t resync_mark = first_need(r, RAID_NEED_DIRTY | RAID_NEED_REBUILD);
    uint64_t rebuild_mark = first_need(r, RAID_NEED_REBUILD);
    pthread_mutex_unlock(&r->mu);
    int rc = raid_flush_pvs(io, v, r);
    pthread_mutex_lock(&r->mu);
    if (rc < 0)
        return rc;
    r->resync_mark = resync_mark;         /* what was synced before the flush */
    r->rebuild_mark = rebuild_mark;
    bool degraded = raid_degraded(r);     /* as md: its bits stay (raid_core.h) */
    for (uint64_t g = a; g < b && !degraded; g++)
        if (!r->need[g] && !r->pending[g] && !r->wtouch[g])
            lvx_raid_bm_set(r->area, g, false);
    if (done)
        r->rebuild = 0;
    bool clean = !degraded;
    for (uint64_t g = 0; g < r->regions && clean; g++)
        clean = !lvx_raid_bm_bit(r->area, g);
    rc = raid_write_state_locked(io, v, r, clean);
    if (rc == 0)
        rc = raid_flush_pvs(io, v, r);
    return rc;
}

void raid_pause_locked(struct raid *r, int64_t until)
{
    while (!r->stop) {
        int64_t left = until - raid_now_ns();
        if (left <= 0)
            return;
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        int64_t ns = t.tv_nsec + (left < 100000000LL ? left : 100000000LL);
        t.tv_sec += ns / 1000000000LL;
        t.tv_nsec = ns % 1000000000LL;
        pthread_cond_timedwait(&r->cv, &r->mu, &t);
    }
}

static void *walker(void *arg)
{
    struct raid *r = arg;
    struct lvxd_lv *v = r->owner;
    struct lvxd_io io;
    uint8_t *buf = NULL;
    if (lvxd_io_init(&io) < 0) {
        pthread_mutex_lock(&r->mu);
        r->walk_failed = true;
        pthread_mutex_unlock(&r->mu);
        return NULL;
    }
    bool ok = posix_memalign((void **)&buf, 4096, RAID_COPY_BYTES) == 0;
    int64_t t0 = raid_now_ns(), last = t0;
    uint64_t bytes = 0, mark = 0, synced = 0;
    pthread_mutex_lock(&r->mu);
    bool recover = r->rebuild != 0;
    if (r->max_rate)
        lvxd_log("%s/%s: %s paced at %u KiB/s per device", v->vg, v->lv,
                 recover ? "recovery" : "resync", r->max_rate);
    else
        lvxd_log("%s/%s: %s not paced (no --maxrecoveryrate)", v->vg, v->lv,
                 recover ? "recovery" : "resync");
    while (ok && !r->stop) {
        uint64_t g = r->pos;
        while (g < r->regions && !r->need[g])
            g++;
        if (g >= r->regions) {
            r->pos = r->regions;
            break;
        }
        if (sync_region_locked(&io, v, r, g, buf) < 0) {
            ok = false;
            break;
        }
        r->pos = g + 1;
        synced++;
        bytes += (uint64_t)r->region * 512;
        int64_t now = raid_now_ns();
        if (now - last >= CHECKPOINT_NS) {
            if (checkpoint_locked(&io, v, r, mark, r->pos, false) < 0) {
                ok = false;
                break;
            }
            mark = r->pos;
            last = raid_now_ns();
        }
        if (r->max_rate)
            raid_pause_locked(r, t0 + (int64_t)(bytes * 1000000000ULL / (r->max_rate * 1024ULL)));
        /* requests get the region lock between regions */
        pthread_mutex_unlock(&r->mu);
        sched_yield();
        pthread_mutex_lock(&r->mu);
    }
    if (ok && !r->stop && !atomic_load(&r->unsynced)) {
        if (checkpoint_locked(&io, v, r, 0, r->regions, true) < 0)
            ok = false;
        else
            lvxd_log("%s/%s: %s done: %" PRIu64 " regions synced in the background", v->vg,
                     v->lv, recover ? "recovery" : "resync", synced);
    }
    if (!ok && !r->stop) {
        r->walk_failed = true;
        lvxd_log("%s/%s: the background resync stopped: regions are synced when used",
                 v->vg, v->lv);
    }
    pthread_mutex_unlock(&r->mu);
    free(buf);
    lvxd_io_exit(&io);
    return NULL;
}

void raid_resync_run(struct raid *r)
{
    walker(r);
}

int raid_resync_spawn(struct lvxd_lv *v, struct raid *r)
{
    r->owner = v;
    r->stop = false;
    int e = pthread_create(&r->walker, NULL, walker, r);
    if (e)
        return -e;
    r->walking = true;
    return 0;
}

void raid_resync_stop(struct raid *r)
{
    if (!r->walking)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->walker, NULL);
    r->walking = false;
}

void raid_resync_status(struct raid *r, char *out, size_t n)
{
    char h[RAID_MAX_LEGS + 1];
    pthread_mutex_lock(&r->mu);
    bool busy = atomic_load(&r->unsynced) != 0 && r->started;
    bool recover = busy && r->rebuild && !r->full;
    for (unsigned i = 0; i < r->n; i++)
        h[i] = (r->ro_behind >> i) & 1 ? 'a'
               : !raid_leg_ok(r, i) ? 'D'
               : busy && (!recover || ((r->rebuild >> i) & 1)) ? 'a' : 'A';
    for (unsigned i = r->an; i < r->n; i++)     /* a removal's legs, out of the array */
        if (h[i] == 'A')
            h[i] = 'a';
    h[r->n] = 0;
    if (r->reshaping) {        /* dm-raid's words for a reshape: moving (the walker) or not */
        uint64_t moved = r->rs.forward ? r->rs.pos : r->sb.array_sectors > r->rs.pos ?
                                                     r->sb.array_sectors - r->rs.pos : 0;
        for (unsigned i = 0; i < r->n; i++)
            if (h[i] == 'A')
                h[i] = 'a';
        /* raid4/5/6: device sectors of B over each leg's; raid10: array sectors over
         * the old size (md's resync_max_sectors while it reshapes) */
        bool r10 = is_raid10(r);
        snprintf(out, n, " %s %" PRIu64 "/%" PRIu64 " %s", h,
                 r10 ? moved : moved / lvx_raid_geo_data_legs(&r->rs.b),
                 r10 ? r->rs.end : r->sync_size,
                 r->rs_running && !r->walk_failed ? "reshape" : "frozen");
        pthread_mutex_unlock(&r->mu);
        return;
    }
    if (r->ro_behind) {        /* read-only: the rebuild waits where it was left */
        snprintf(out, n, " %s %" PRIu64 "/%" PRIu64 " frozen", h,
                 r->rebuild_from < r->sync_size ? r->rebuild_from : r->sync_size - 1,
                 r->sync_size);
        pthread_mutex_unlock(&r->mu);
        return;
    }
    uint64_t done = r->pos * r->region;
    if (busy && done >= r->sync_size)           /* the walker ended with regions left */
        done = r->sync_size - 1;
    if (busy)
        snprintf(out, n, " %s %" PRIu64 "/%" PRIu64 " %s", h, done, r->sync_size,
                 r->walk_failed ? "frozen" : recover ? "recover" : "resync");
    else
        snprintf(out, n, " %s %" PRIu64 "/%" PRIu64 " %s", h, r->sectors, r->sectors,
                 r->started ? "idle" : "frozen");
    pthread_mutex_unlock(&r->mu);
}
