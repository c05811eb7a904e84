/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/raid_reshape.c - the daemon's reshape walker (docs/reshape-user.md §3.4,
 * steps 4 and 6): a raid4/5/6 reshape or a raid10 growth recorded in the superblocks
 * (the kernel's, interrupted, or the daemon's own start) is continued to its end, as
 * md's reshape thread would, while the LV is served.
 *
 *   step        the next unit of the model (model/raid_reshape.h): its LV range read
 *               in the old geometry A and written in the new one B with P/Q from the
 *               data (the target's reshape_copy), under the LV's lock held exclusive:
 *               no request runs during a step (the window of §3.3 is the whole LV for
 *               the step's time: one unit, e.g. 128 KiB x legs), then pos moves.
 *   checkpoint  when the model asks for one (the next step's B rows would reach A rows
 *               a restart from `safe` reads), 10 s after the last, before a write into
 *               the moved but unrecorded range (target_parity.c asks), and at a stop:
 *               the legs flushed, every leg's superblock with reshape_position = pos
 *               (events + 1), flushed, then safe = pos.  A crash anywhere leaves each
 *               leg's superblock at pos or at the previous position, both valid.
 *   finish      F1 (the reshape recorded at its end, both offsets B's, `sectors` the
 *               final value), then F2 (B's geometry, no reshape, the new size), each a
 *               round after a flush; struct raid then takes B (layout, chunk, data
 *               offset, legs) and serves the LV's whole size (a growth) or md's new
 *               size (a stripe removal: the legs past B's count leave its geometry);
 *               a raid10 growth's new space is then resynced (F2 records md's resync
 *               offset, the old size) by the resync walk, run in this thread.
 *   rate        --maxrecoveryrate (KiB/s per device) as the resync walker.
 *   stop        deactivation or reload (raid_resync_stop): the current step ends, the
 *               position is recorded; the next activation resumes there.
 */
#include "daemon/raid_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RESHAPE_CHECKPOINT_NS 10000000000LL  /* md's reshape_checkpoint + 10 s */

int raid_reshape_checkpoint_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r)
{
    if (r->rs.safe == r->rs.pos)
        return 0;
    int rc = raid_flush_pvs(io, v, r);   /* every step's B rows durable before the record */
    if (rc < 0)
        return rc;
    uint64_t keep = r->sb.reshape_position;
    r->sb.reshape_position = r->rs.pos;
    rc = raid_write_state_locked(io, v, r, false);
    if (rc == 0)
        rc = raid_flush_pvs(io, v, r);
    if (rc < 0) {
        r->sb.reshape_position = keep;
        return rc;
    }
    r->rs.safe = r->rs.pos;
    return 0;
}

/* Every bit of the bitmap clear and every leg live (the state may say clean). */
static bool bits_clear(const struct raid *r)
{
    if (raid_degraded(r))
        return false;
    for (uint64_t g = 0; g < r->regions; g++)
        if (lvx_raid_bm_bit(r->area, g))
            return false;
    return true;
}

/* A raid10 growth's new space, LV sectors [old size, new size), to resync after the
 * reshape (md's raid10_finish_reshape: recovery_cp = the old size): its regions dirty
 * in the bitmap and to sync from the live legs; F2 records the old size as the resync
 * offset until the resync walk ends.  mu held. */
static void grow_resync_locked(struct raid *r)
{
    uint64_t all = 0, from = r->rs.old_sectors;
    for (unsigned i = 0; i < r->n; i++)
        if (raid_leg_ok(r, i))
            all |= (uint64_t)1 << i;
    r->insync = r->all = all;
    r->rebuild = 0;
    r->full = true;
    r->grow_resync = from;
    for (uint64_t g = from / r->region; g < r->regions; g++) {
        if (!r->need[g])
            atomic_fetch_add(&r->unsynced, 1);
        r->need[g] |= RAID_NEED_DIRTY;
        lvx_raid_bm_set(r->area, g, true);
    }
    r->pos = from / r->region;
    raid_progress_durable_locked(r);
}

/* The end: F1 then F2, each round after a flush; struct raid takes B.  mu held, no
 * request running (the LV's lock). */
static int finish_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r)
{
    int rc = raid_flush_pvs(io, v, r);
    if (rc < 0)
        return rc;
    lvx_reshape_sb_round(&r->rs, LVX_RESHAPE_F1, 0, &r->sb);
    r->sb.sectors = r->leg_sectors;
    if ((rc = raid_write_state_locked(io, v, r, false)) < 0 ||
        (rc = raid_flush_pvs(io, v, r)) < 0)
        return rc;
    r->rs.safe = r->rs.pos;
    if (r->rs.level == 10 && r->rs.new_sectors > r->rs.old_sectors)
        grow_resync_locked(r);
    lvx_reshape_sb_round(&r->rs, LVX_RESHAPE_F2, 0, &r->sb);
    r->sb.sectors = r->leg_sectors;
    if ((rc = raid_write_state_locked(io, v, r, bits_clear(r))) < 0 ||
        (rc = raid_flush_pvs(io, v, r)) < 0)
        return rc;
    r->md_layout = r->rs.b.layout;
    r->chunk = r->rs.b.chunk;
    r->stripe_sectors = (uint32_t)r->rs.b.chunk;
    r->data_offset = r->rs.b.data_offset;
    /* a growth serves its new space from now on; a shrink keeps md's smaller size, and
     * its last legs leave the geometry (kept current until the second lvconvert takes
     * them out) */
    r->io_sectors = r->rs.new_sectors < r->sectors ? r->rs.new_sectors : r->sectors;
    r->an = r->rs.b.legs;
    r->reshaping = false;
    return 0;
}

/* The LV's lock, exclusive, unless the walker is asked to stop first (a reload or a
 * removal holds the lock while it stops the walker).  true: taken. */
static bool lock_lv(struct lvxd_lv *v, struct raid *r)
{
    for (;;) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 20000000L;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        if (pthread_rwlock_timedwrlock(&v->lock, &t) == 0)
            return true;
        pthread_mutex_lock(&r->mu);
        bool stop = r->stop;
        pthread_mutex_unlock(&r->mu);
        if (stop)
            return false;
    }
}

int raid_rw_pieces(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, bool write,
                   uint64_t off, uint32_t len, uint8_t *buf, const struct lvx_raid_geo *g0,
                   raid_piece_fn piece)
{
    uint64_t s = off / 512, end = (off + len) / 512;
    for (uint64_t x = s; x < end;) {
        uint64_t cut = end;
        if (r->reshaping && x < r->rs.pos && r->rs.pos < cut)
            cut = r->rs.pos;
        if (x < r->io_sectors && r->io_sectors < cut)
            cut = r->io_sectors;
        uint32_t blen = (uint32_t)((cut - x) * 512);
        uint8_t *p = buf + (x - s) * 512;
        int rc = 0;
        if (x >= r->io_sectors) {
            if (write)
                return -EIO;
            memset(p, 0, blen);
        } else {
            const struct lvx_raid_geo *g = r->reshaping ? lvx_reshape_geo_of(&r->rs, x) : g0;
            uint64_t u0 = r->rs.safe < r->rs.pos ? r->rs.safe : r->rs.pos;
            uint64_t u1 = r->rs.safe < r->rs.pos ? r->rs.pos : r->rs.safe;
            if (r->reshaping && write && x < u1 && cut > u0) {
                pthread_mutex_lock(&r->mu);
                rc = raid_reshape_checkpoint_locked(io, v, r);
                pthread_mutex_unlock(&r->mu);
            }
            if (rc == 0)
                rc = piece(io, v, r, g, write, x * 512, blen, p);
        }
        if (rc < 0)
            return rc;
        x = cut;
    }
    return 0;
}

static void *reshape_walker(void *arg)
{
    struct raid *r = arg;
    struct lvxd_lv *v = r->owner;
    struct lvxd_io io;
    uint8_t *buf = NULL;
    bool ok = lvxd_io_init(&io) == 0;
    size_t span = (size_t)(r->rs.unit * lvx_raid_geo_data_legs(&r->rs.b)) * 512;
    bool have_io = ok;
    ok = ok && posix_memalign((void **)&buf, 4096, span) == 0;
    int64_t t0 = raid_now_ns(), last = t0;
    uint64_t bytes = 0, steps = 0;
    pthread_mutex_lock(&r->mu);
    lvxd_log("%s/%s: reshape resumed at sector %" PRIu64 " of %" PRIu64 " (%s), %s%u%s", v->vg,
             v->lv, r->rs.pos, r->rs.end, r->rs.forward ? "forward" : "backward",
             r->max_rate ? "paced at " : "not paced", r->max_rate ? r->max_rate : 0,
             r->max_rate ? " KiB/s per device" : "");
    bool done = false;
    while (ok && !r->stop) {
        pthread_mutex_unlock(&r->mu);
        if (!lock_lv(v, r)) {
            pthread_mutex_lock(&r->mu);
            break;
        }
        pthread_mutex_lock(&r->mu);
        if (r->stop) {
            pthread_rwlock_unlock(&v->lock);
            break;
        }
        if (lvx_reshape_done(&r->rs)) {
            int rc = finish_locked(&io, v, r);
            pthread_rwlock_unlock(&v->lock);
            if (rc < 0) {
                lvxd_log("%s/%s: the reshape's end was not recorded: %s", v->vg, v->lv,
                         strerror(-rc));
                ok = false;
            } else {
                lvxd_log("%s/%s: reshape done after %" PRIu64 " steps: %u legs, chunk %" PRIu64
                         ", data at %" PRIu64 ", %" PRIu64 " sectors", v->vg, v->lv, steps,
                         r->rs.b.legs, r->rs.b.chunk, r->rs.b.data_offset, r->sectors);
                done = true;
            }
            break;
        }
        int64_t now = raid_now_ns();
        if (r->rs.safe != r->rs.pos &&
            (lvx_reshape_need_checkpoint(&r->rs) || now - last >= RESHAPE_CHECKPOINT_NS)) {
            int rc = raid_reshape_checkpoint_locked(&io, v, r);
            if (rc < 0) {
                pthread_rwlock_unlock(&v->lock);
                lvxd_log("%s/%s: reshape checkpoint failed: %s", v->vg, v->lv, strerror(-rc));
                ok = false;
                break;
            }
            lvxd_log("%s/%s: reshape checkpoint at sector %" PRIu64, v->vg, v->lv, r->rs.pos);
            last = now;
        }
        uint64_t lv0, lv1;
        lvx_reshape_step(&r->rs, &lv0, &lv1);
        pthread_mutex_unlock(&r->mu);
        int rc = r->geom->reshape_copy(&io, v, r, lv0, lv1, buf);
        pthread_mutex_lock(&r->mu);
        if (rc == 0)
            lvx_reshape_advance(&r->rs);
        pthread_rwlock_unlock(&v->lock);
        if (rc < 0) {
            lvxd_log("%s/%s: reshape step at sector %" PRIu64 " failed: %s", v->vg, v->lv,
                     lv0, strerror(-rc));
            ok = false;
            break;
        }
        steps++;
        bytes += r->rs.unit * 512;
        if (r->max_rate)
            raid_pause_locked(r, t0 + (int64_t)(bytes * 1000000000ULL / (r->max_rate * 1024ULL)));
    }
    if (!done && have_io) {
        /* stopped (or failed): the position so far recorded, resumed from there */
        if (raid_reshape_checkpoint_locked(&io, v, r) == 0)
            lvxd_log("%s/%s: reshape %s at sector %" PRIu64 " (recorded)", v->vg, v->lv,
                     ok ? "stopped" : "frozen", r->rs.safe);
    }
    if (!ok)
        r->walk_failed = true;
    r->rs_running = false;
    pthread_mutex_unlock(&r->mu);
    free(buf);
    if (have_io)
        lvxd_io_exit(&io);
    /* a raid10 growth: its new space resynced now, in this thread (md's order) */
    if (done && atomic_load(&r->unsynced))
        raid_resync_run(r);
    return NULL;
}

int raid_reshape_spawn(struct lvxd_lv *v, struct raid *r)
{
    r->owner = v;
    r->stop = false;
    r->rs_running = true;
    int e = pthread_create(&r->walker, NULL, reshape_walker, r);
    if (e) {
        r->rs_running = false;
        return -e;
    }
    r->walking = true;
    return 0;
}
