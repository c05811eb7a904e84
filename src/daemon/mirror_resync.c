/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/mirror_resync.c - the background resync of the daemon's old-style mirrors
 * (mirror_core.h): the LV is served at once while its out-of-sync regions are copied
 * from the first live leg to the others, as dm-raid1's recovery does in the kernel.
 *
 *   need     per region, set at start for every region whose log bit is clear (a
 *            core log: every region, unless the mirror is NOTSYNCED); after a reload
 *            that added legs beside the same log, every region, the ones in sync
 *            copied to the new legs only.
 *   gate     a request touching a region still in need copies that region first,
 *            under the mirror's mutex: no region is copied under a request, and no
 *            request sees a region out of sync.
 *   walker   one thread per LV, its own I/O queue, copies the regions in order.
 *            About twice a second the legs are flushed and the log bits of the
 *            regions done (and not written since) are set and written: dm-log's
 *            clean bits, so a stop or a crash resumes where it was, in this daemon
 *            or the kernel.  No bit is set while a leg is failed; a leg lost on the
 *            way is left out (its writes skipped, its PV out of the flushes:
 *            mirror_flush_pvs) and the walk goes on to its end on the live legs.
 */
#include "daemon/mirror_core.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECKPOINT_NS 500000000LL   /* progress recorded this often */

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int sync_region_locked(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m,
                              uint64_t g, uint8_t *buf)
{
    int rc = mirror_copy_locked(io, v, m, g, g + 1, m->need[g] == 2 ? m->fresh : ~(uint64_t)0,
                                buf);
    if (rc < 0) {
        lvxd_log("%s/%s: resync of mirror region %" PRIu64 " failed: %s", v->vg, v->lv, g,
                 strerror(-rc));
        return rc;
    }
    m->need[g] = 0;
    atomic_fetch_sub(&m->unsynced, 1);
    return 0;
}

int mirror_sync_gate_locked(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m,
                            uint64_t r0, uint64_t r1)
{
    if (!atomic_load(&m->unsynced))
        return 0;
    uint8_t *buf = NULL;
    int rc = 0;
    for (uint64_t g = r0; g <= r1 && g < m->regions && rc == 0; g++) {
        if (!m->need[g])
            continue;
        if (!buf && posix_memalign((void **)&buf, 4096, MIRROR_COPY_BYTES))
            return -ENOMEM;
        rc = sync_region_locked(io, v, m, g, buf);
    }
    free(buf);
    return rc < 0 ? -EIO : 0;
}

int mirror_sync_gate(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m, uint64_t r0,
                     uint64_t r1)
{
    if (!atomic_load(&m->unsynced))
        return 0;
    pthread_mutex_lock(&m->mu);
    int rc = mirror_sync_gate_locked(io, v, m, r0, r1);
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* Progress to disk: the legs flushed, then the bits of regions [a, b) copied, quiet
 * and not written since the mark set, and the log written.  mu held on entry and
 * exit, dropped for the flush. */
static int checkpoint_locked(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m,
                             uint64_t a, uint64_t b)
{
    for (uint64_t g = a; g < b; g++)
        m->wtouch[g] = 0;
    pthread_mutex_unlock(&m->mu);
    int rc = mirror_flush_pvs(io, v, m);
    pthread_mutex_lock(&m->mu);
    if (rc < 0 || mirror_any_failed(m))
        return rc;
    bool set = false;
    for (uint64_t g = a; g < b; g++)
        if (!m->need[g] && !m->pending[g] && !m->wtouch[g] && !mirror_bit(m, g)) {
            mirror_set_bit(m, g, true);
            set = true;
        }
    if (set && (rc = mirror_write_log_locked(io, v, m)) == 0)
        rc = mirror_flush_pvs(io, v, m);
    return rc;
}

static void *walker(void *arg)
{
    struct mirror *m = arg;
    struct lvxd_lv *v = m->owner;
    struct lvxd_io io;
    uint8_t *buf = NULL;
    if (lvxd_io_init(&io) < 0) {
        pthread_mutex_lock(&m->mu);
        m->walk_failed = true;
        pthread_mutex_unlock(&m->mu);
        return NULL;
    }
    bool ok = posix_memalign((void **)&buf, 4096, MIRROR_COPY_BYTES) == 0;
    int64_t last = now_ns();
    uint64_t mark = 0, synced = 0;
    pthread_mutex_lock(&m->mu);
    while (ok && !m->stop) {
        uint64_t g = m->pos;
        while (g < m->regions && !m->need[g])
            g++;
        if (g >= m->regions) {
            m->pos = m->regions;
            break;
        }
        if (sync_region_locked(&io, v, m, g, buf) < 0) {
            ok = false;
            break;
        }
        m->pos = g + 1;
        synced++;
        if (now_ns() - last >= CHECKPOINT_NS) {
            if (checkpoint_locked(&io, v, m, mark, m->pos) < 0) {
                ok = false;
                break;
            }
            mark = m->pos;
            last = now_ns();
        }
        /* requests get the region lock between regions */
        pthread_mutex_unlock(&m->mu);
        sched_yield();
        pthread_mutex_lock(&m->mu);
    }
    if (ok && !m->stop && !atomic_load(&m->unsynced)) {
        if (checkpoint_locked(&io, v, m, 0, m->regions) < 0)
            ok = false;
        else
            lvxd_log("%s/%s: mirror resync done: %" PRIu64 " regions copied in the background",
                     v->vg, v->lv, synced);
    }
    if (!ok && !m->stop) {
        m->walk_failed = true;
        lvxd_log("%s/%s: the background mirror resync stopped: regions are copied when used",
                 v->vg, v->lv);
    }
    pthread_mutex_unlock(&m->mu);
    free(buf);
    lvxd_io_exit(&io);
    return NULL;
}

int mirror_resync_spawn(struct lvxd_lv *v, struct mirror *m)
{
    m->owner = v;
    m->stop = false;
    int e = pthread_create(&m->walker, NULL, walker, m);
    if (e)
        return -e;
    m->walking = true;
    return 0;
}

void mirror_resync_stop(struct mirror *m)
{
    if (!m->walking)
        return;
    pthread_mutex_lock(&m->mu);
    m->stop = true;
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->walker, NULL);
    m->walking = false;
}
