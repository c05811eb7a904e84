/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/target_mirror.c - the daemon's old-style mirror target (segment type
 * "mirror", dm-raid1's job in the kernel): the LV's mimage sub-LVs each hold the LV,
 * its mlog sub-LV (disk log) or nothing (core log) says which regions are in sync,
 * kept as the kernel's dm-log keeps it (docs/dm-formats.md §6: "MiRr", version 2,
 * nr_regions, bits at byte 1024, 1 = region in sync), so the same disks move between
 * this daemon and LVM2 + the kernel.
 *
 *   log      a disk log, or a mirrored log's images (each written alike, the first
 *            readable one read at start), or none (core log).
 *   writes   the regions' in-sync bits cleared and the log written before the data
 *            goes to every live leg in one batch; a leg whose write fails is marked
 *            failed (dm-mirror's handle_errors) and the LV keeps serving from the
 *            others while one is left.
 *   flush    data durable first, then the bits of regions with nothing in flight and
 *            not written since are set again (lazily written); never while a leg is
 *            failed (its copy is behind: the next activation resyncs them).  Every
 *            flush goes through legs_flush.c (mirror_flush_pvs): a leg on a PV whose
 *            datasync fails is failed (dm-raid1's flush error) while another is live,
 *            and the PVs only failed legs use are left out (a lost disk's datasync
 *            fails for ever: fsync and the resync's checkpoints go on).
 *   start    the log read (a log without the magic is new: every region out of sync,
 *            or in sync for a NOTSYNCED mirror, as dm-log's nosync; a core log is new
 *            at every activation; a reload that added images beside the same log
 *            copies every region to them, marked out of sync until then); the LV is
 *            served at once, its out-of-sync regions copied from the first live leg
 *            that holds the data (never an added one; a source failing a read is
 *            failed and the next read) to the others in the background
 *            (mirror_resync.c: a request touching one copies it first, EIO when no
 *            source is left; progress in the log's bits).  A reload whose added legs
 *            are all that is live is not served.  Read-only: nothing written, reads
 *            from the first live leg while a region is out of sync.
 *   reads    round robin over the live legs; a leg that fails a read is marked failed
 *            and the next one tried.
 *   stop     data flushed, the log written with every quiet region in sync.
 *   hold     (lvxd_mirror_hold_log, before lvconvert commits new images beside the
 *            log) every log write is the header with no region in sync until the
 *            reload, whose new state takes the real bits from the old one (adopt).
 *
 *   layer    (LVM2's CONVERTING NAME_mimagetmp_N under the top, map/mirror.c) served
 *            flattened: legs = the layer's images then the top's new ones (fresh:
 *            copied whole from the first old image), log = the layer's, whose bits
 *            keep speaking for the old images only (regions in sync are copied to the
 *            new legs without clearing them; no hold), so a crash or LVM2 reading the
 *            disks copies only the new images again; at the collapse reload adopt
 *            finds every leg in the old state and the bits then speak for all.
 *
 * A mirror that is the origin of COW snapshots is served by this target under the
 * snapshot-origin one (target_snapshot.c's `inner`): mirror_of() finds the state.
 *
 * Entry point: lvxd_target_mirror (one line in target.c's table).
 */
#include "daemon/mirror_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"

#define MIRROR_MAGIC 0x4D695272u     /* dm-log's "MiRr" */
#define MIRROR_VERSION 2u
#define LOG_BITS_OFF 1024u           /* dm-log's LOG_OFFSET: 2 sectors */
#define MIRROR_MAX_LEGS 64u
#define COPY_BYTES MIRROR_COPY_BYTES

bool mirror_bit(const struct mirror *m, uint64_t g)
{
    return (m->hdr[LOG_BITS_OFF + g / 8] >> (g % 8)) & 1;
}

void mirror_set_bit(struct mirror *m, uint64_t g, bool on)
{
    uint8_t *b = &m->hdr[LOG_BITS_OFF + g / 8];
    *b = on ? (uint8_t)(*b | (1u << (g % 8))) : (uint8_t)(*b & ~(1u << (g % 8)));
}

static bool leg_ok(const struct mirror *m, unsigned i)
{
    return !atomic_load(&m->legs[i].failed);
}

bool mirror_any_failed(const struct mirror *m)
{
    for (unsigned i = 0; i < m->n; i++)
        if (!leg_ok(m, i))
            return true;
    return false;
}

static void mirror_free(struct mirror *m)
{
    if (!m)
        return;
    free(m->hdr);
    free(m->pending);
    free(m->touched);
    free(m->cand);
    free(m->need);
    free(m->wtouch);
    free(m->held);
    free(m->adopted);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static bool mirror_serves(const struct lvx_lv *lv)
{
    return lvx_map_lv_is_mirror(lv);
}

/* The mirror state of a served LV: its own target's, or under a snapshot-origin (a
 * mirror origin of COW snapshots, target_snapshot.c) the inner target's; NULL when
 * neither is this target. */
static struct mirror *mirror_of(const struct lvxd_lv *v)
{
    void *state = v->tstate;
    const struct lvxd_target *t = v->target;
    if (t == &lvxd_target_origin)
        t = lvxd_origin_inner(v, &state);
    return t == &lvxd_target_mirror ? state : NULL;
}

static int mirror_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                      bool partial, const struct lvx_map_prepared **map, void **state)
{
    *state = NULL;
    *map = NULL;
    const struct lvx_seg *seg = &lv->segs[0];
    /* a CONVERTING layer (LVM2's NAME_mimagetmp_N under the top): served flattened */
    const struct lvx_lv *layer = lvx_map_mirror_sync_layer(lv);
    const struct lvx_seg *lseg = layer ? &layer->segs[0] : NULL;
    int rc = lvx_map_check_mirror_activatable(ctx, lv, partial);     /* the layer too */
    if (rc < 0)
        return rc;
    uint32_t legs = layer ? lseg->area_count + seg->area_count - 1 : seg->area_count;
    if (legs < 1 || legs > MIRROR_MAX_LEGS)
        return lvx_error(ctx, EINVAL, "Mirror LV %s/%s: %u images (1 to %u served).",
                         lv->vg->name, lv->name, legs, MIRROR_MAX_LEGS);
    uint32_t region = layer ? lseg->region_size : seg->region_size;
    if (region < 8 || (region & (region - 1)))
        return lvx_error(ctx, EINVAL, "Mirror LV %s/%s: region size %u is not a power of two "
                         "of at least 4 KiB.", lv->vg->name, lv->name, region);
    struct mirror *m = calloc(1, sizeof(*m) + legs * sizeof(struct mirror_leg));
    if (!m)
        return lvx_error(ctx, ENOMEM, "Out of memory loading %s/%s.", lv->vg->name, lv->name);
    pthread_mutex_init(&m->mu, NULL);
    uint32_t e = lv->vg->extent_size;
    m->n = legs;
    m->layer = layer != NULL;
    if (layer)      /* the top's new images: copied whole, the layer's log not theirs */
        for (uint32_t i = lseg->area_count; i < legs; i++)
            m->fresh |= (uint64_t)1 << i;
    m->sectors = lv->le_count * (uint64_t)e;
    m->region = region;
    m->regions = (m->sectors + region - 1) / region;
    m->nosync = (lv->status & LVX_LV_NOTSYNCED) != 0;
    /* the log image: dm-log's buffer (header, bits rounded to 32) in 4 KiB units */
    m->log_bytes = (LOG_BITS_OFF + (m->regions + 31) / 32 * 4 + 4095) / 4096 * 4096;
    unsigned live = 0;
    if (posix_memalign((void **)&m->hdr, 4096, m->log_bytes) ||
        !(m->pending = calloc(m->regions, sizeof(*m->pending))) ||
        !(m->touched = calloc(m->regions, 1)) || !(m->cand = calloc(m->regions, 1)) ||
        !(m->need = calloc(m->regions, 1)) || !(m->wtouch = calloc(m->regions, 1)))
        rc = lvx_error(ctx, ENOMEM, "Out of memory loading %s/%s.", lv->vg->name, lv->name);
    for (unsigned i = 0; rc == 0 && i < m->n; i++) {
        const struct lvx_lv *img = !layer ? seg->areas[i].lv
                                   : i < lseg->area_count ? lseg->areas[i].lv
                                   : seg->areas[i - lseg->area_count + 1].lv;
        struct lvx_map_prepared *p;
        if (lvx_map_lv_partial(img)) {
            atomic_store(&m->legs[i].failed, true);
            continue;
        }
        if (img->le_count * (uint64_t)e < m->sectors)
            rc = lvx_error(ctx, EINVAL, "Mirror LV %s/%s: image %s is smaller than the LV.",
                           lv->vg->name, lv->name, img->name);
        else if ((rc = lvx_map_prepare(ctx, pool, img, 0, &p)) == 0)
            m->legs[i].data = p;
        live += rc == 0;
    }
    if (rc == 0 && !live)
        rc = lvx_error(ctx, EIO, "Mirror LV %s/%s: no image is present.", lv->vg->name,
                       lv->name);
    /* the log, or each present image of a mirrored log (its copies written alike, as
     * the kernel's core-log mirror under the mlog keeps them) */
    const struct lvx_lv *log = layer ? lseg->log_lv : seg->log_lv;
    bool mirrored = log && lvx_map_lv_is_mirror(log);
    unsigned nlog = !log ? 0 : mirrored ? log->segs[0].area_count : 1;
    for (unsigned i = 0; rc == 0 && i < nlog && m->nlog < MIRROR_LOG_LEGS; i++) {
        const struct lvx_lv *l = mirrored ? log->segs[0].areas[i].lv : log;
        struct lvx_map_prepared *p;
        if (lvx_map_lv_partial(l))
            continue;
        if ((rc = lvx_map_prepare(ctx, pool, l, 0, &p)) == 0) {
            m->log[m->nlog++] = p;
            if (lvx_map_prepared_sectors(p) * 512 < m->log_bytes)
                rc = lvx_error(ctx, EINVAL, "Mirror LV %s/%s: log %s is too small for %" PRIu64
                               " regions.", lv->vg->name, lv->name, l->name, m->regions);
        }
    }
    if (rc < 0) {
        mirror_free(m);
        return rc;
    }
    *state = m;
    return 0;
}

/* --- the log --------------------------------------------------------------------- */

static void put_le32(uint8_t *p, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = bytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* The header and bits to the log LV (mu held); nothing for a core log. */
int mirror_write_log_locked(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m)
{
    if (!m->nlog || v->read_only)
        return 0;
    put_le32(m->hdr, MIRROR_MAGIC);
    put_le32(m->hdr + 4, MIRROR_VERSION);
    put_le32(m->hdr + 8, (uint32_t)m->regions);
    put_le32(m->hdr + 12, (uint32_t)(m->regions >> 32));
    uint8_t *img = m->hdr;
    if (m->held) {                   /* held: the header, every region out of sync */
        memcpy(m->held, m->hdr, LOG_BITS_OFF);
        img = m->held;
    }
    unsigned n = 0;
    int rc = 0;
    for (unsigned i = 0; i < m->nlog && rc == 0; i++)
        rc = lvxd_io_map_add(io, v, m->log[i], true, 0, (uint32_t)m->log_bytes, img, &n);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    if (rc < 0 && m->nlog > 1) {     /* a mirrored log: written while one image takes it */
        unsigned ok = 0;
        for (unsigned i = 0; i < m->nlog; i++) {
            unsigned k = 0;
            int e = lvxd_io_map_add(io, v, m->log[i], true, 0, (uint32_t)m->log_bytes, img,
                                    &k);
            if (e == 0 && k)
                e = lvxd_io_run(io, k);
            ok += e == 0;
        }
        if (ok)
            rc = 0;
    }
    if (rc < 0)
        lvxd_log("%s/%s: writing the mirror log failed: %s", v->vg, v->lv, strerror(-rc));
    return rc;
}

static void mark_failed_locked(struct lvxd_lv *v, struct mirror *m, unsigned i, const char *why)
{
    if (!atomic_exchange(&m->legs[i].failed, true))
    {
        lvxd_log("%s/%s: mirror leg %u failed (%s): served from the other legs", v->vg, v->lv,
                 i, why);
        lvxd_monitor_kick();                /* a monitored mirror is repaired (monitor.c) */
    }
}

/* --- flushes --------------------------------------------------------------------- */

struct mirror_flush_arg {
    struct lvxd_lv *v;
    struct mirror *m;
};

/* legs_flush.c's question: the legs on the PV that failed its datasync failed (while
 * a leg elsewhere stays live: the last one's failure is the flush's), then the PVs
 * that only failed legs use (a log's PVs are never left out).  mu held or not: the
 * failed flags are atomic. */
static uint64_t mirror_gone_pvs(void *arg, int failed_pv)
{
    struct mirror_flush_arg *a = arg;
    struct mirror *m = a->m;
    uint64_t bit = failed_pv >= 0 ? (uint64_t)1 << (failed_pv % 64) : 0, legs[MIRROR_MAX_LEGS];
    bool elsewhere = false;
    for (unsigned i = 0; i < m->n; i++) {
        legs[i] = lvxd_map_pv_bits(m->legs[i].data);
        elsewhere |= leg_ok(m, i) && !(legs[i] & bit);
    }
    for (unsigned i = 0; i < m->n && elsewhere; i++)
        if (leg_ok(m, i) && (legs[i] & bit))
            mark_failed_locked(a->v, m, i, "flush error");
    uint64_t gone = 0, live = 0;
    for (unsigned i = 0; i < m->n; i++)
        *(leg_ok(m, i) ? &live : &gone) |= legs[i];
    for (unsigned i = 0; i < m->nlog; i++)
        live |= lvxd_map_pv_bits(m->log[i]);
    return gone & ~live;
}

int mirror_flush_pvs(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m)
{
    struct mirror_flush_arg a = { v, m };
    return lvxd_io_flush_live_pvs(io, v, mirror_gone_pvs, &a);
}

/* --- data path ------------------------------------------------------------------- */

static int leg_io(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m, unsigned leg,
                  bool write, uint64_t off, uint32_t len, uint8_t *buf)
{
    unsigned n = 0;
    int rc = lvxd_io_map_add(io, v, m->legs[leg].data, write, off, len, buf, &n);
    return rc == 0 && n ? lvxd_io_run(io, n) : rc;
}

static int first_live(const struct mirror *m)
{
    for (unsigned i = 0; i < m->n; i++)
        if (leg_ok(m, i))
            return (int)i;
    return -1;
}

/* The leg a copy reads: the first live one that holds the data, never a leg a reload
 * added (fresh: nothing copied to it yet); -1 when none is left. */
static int copy_source(const struct mirror *m)
{
    for (unsigned i = 0; i < m->n; i++)
        if (leg_ok(m, i) && !((m->fresh >> i) & 1))
            return (int)i;
    return -1;
}

static int mirror_read(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m, uint64_t off,
                       uint32_t len, uint8_t *buf)
{
    uint64_t r0 = off / 512 / m->region, r1 = (off + len - 1) / 512 / m->region;
    if (!v->read_only && mirror_sync_gate(io, v, m, r0, r1) < 0)
        return -EIO;
    unsigned first = m->synced ? atomic_fetch_add(&m->rr, 1) % m->n : 0;
    int rc = -EIO;
    for (unsigned t = 0; t < m->n; t++) {
        unsigned leg = (first + t) % m->n;
        if (!leg_ok(m, leg))
            continue;
        if ((rc = leg_io(io, v, m, leg, false, off, len, buf)) == 0)
            return 0;
        pthread_mutex_lock(&m->mu);
        mark_failed_locked(v, m, leg, "read error");
        pthread_mutex_unlock(&m->mu);
    }
    return rc;
}

/* Add the writes of [off, off+len) to the live legs in `only`. */
static int add_writes(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m, uint64_t off,
                      uint32_t len, uint8_t *buf, uint64_t only, unsigned *n)
{
    int rc = 0;
    for (unsigned i = 0; i < m->n && rc == 0; i++)
        if (leg_ok(m, i) && ((only >> i) & 1))
            rc = lvxd_io_map_add(io, v, m->legs[i].data, true, off, len, buf, n);
    return rc;
}

static int mirror_write(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m, uint64_t off,
                        uint32_t len, uint8_t *buf)
{
    uint64_t r0 = off / 512 / m->region, r1 = (off + len - 1) / 512 / m->region;
    int rc = 0;
    bool dirtied = false;
    /* the regions copied first, out of sync on disk before the data goes out */
    pthread_mutex_lock(&m->mu);
    if (mirror_sync_gate_locked(io, v, m, r0, r1) < 0) {
        pthread_mutex_unlock(&m->mu);
        return -EIO;
    }
    for (uint64_t g = r0; g <= r1; g++) {
        m->pending[g]++;
        m->touched[g] = 1;
        m->wtouch[g] = 1;
        if (mirror_bit(m, g)) {
            mirror_set_bit(m, g, false);
            dirtied = true;
        }
    }
    if (dirtied)
        rc = mirror_write_log_locked(io, v, m);
    pthread_mutex_unlock(&m->mu);
    if (rc == 0) {
        unsigned n = 0;
        rc = add_writes(io, v, m, off, len, buf, ~(uint64_t)0, &n);
        if (rc == 0 && n)
            rc = lvxd_io_run(io, n);
        if (rc < 0) {       /* which legs fail: each one alone */
            pthread_mutex_lock(&m->mu);
            for (unsigned i = 0; i < m->n; i++) {
                unsigned k = 0;
                if (!leg_ok(m, i))
                    continue;
                int e = add_writes(io, v, m, off, len, buf, (uint64_t)1 << i, &k);
                if (e == 0 && k)
                    e = lvxd_io_run(io, k);
                if (e < 0)
                    mark_failed_locked(v, m, i, "write error");
            }
            rc = first_live(m) >= 0 ? 0 : -EIO;
            pthread_mutex_unlock(&m->mu);
        }
    }
    pthread_mutex_lock(&m->mu);
    for (uint64_t g = r0; g <= r1; g++)
        m->pending[g]--;
    pthread_mutex_unlock(&m->mu);
    return rc;
}

static int mirror_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off,
                     uint32_t len, uint8_t *buf)
{
    struct mirror *m = mirror_of(v);
    if (!m || !m->started)
        return -EIO;
    if (!len)
        return 0;
    return write ? mirror_write(io, v, m, off, len, buf) : mirror_read(io, v, m, off, len, buf);
}

/* Zeroing: written as zeroes through the write path (log and legs). */
static int mirror_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    uint8_t *z;
    if (posix_memalign((void **)&z, 4096, COPY_BYTES))
        return -ENOMEM;
    memset(z, 0, COPY_BYTES);
    int rc = 0;
    while (len && rc == 0) {
        uint32_t k = len < COPY_BYTES ? (uint32_t)len : COPY_BYTES;
        rc = mirror_rw(io, v, true, off, k, z);
        off += k;
        len -= k;
    }
    free(z);
    return rc;
}

/* Data durable, then quiet regions written before the flush back in sync. */
static int mirror_flush(struct lvxd_io *io, struct lvxd_lv *v)
{
    struct mirror *m = mirror_of(v);
    if (!m || !m->started)
        return -EIO;
    bool any = false;
    pthread_mutex_lock(&m->mu);
    bool failed = mirror_any_failed(m);
    for (uint64_t g = 0; g < m->regions; g++) {
        m->cand[g] = !failed && !mirror_bit(m, g) && !m->pending[g] && !m->need[g];
        m->touched[g] = 0;
        any |= m->cand[g];
    }
    pthread_mutex_unlock(&m->mu);
    int rc = mirror_flush_pvs(io, v, m);
    if (rc < 0 || !any || v->read_only)
        return rc;
    pthread_mutex_lock(&m->mu);
    bool set = false, failed_now = mirror_any_failed(m);
    for (uint64_t g = 0; g < m->regions && !failed_now; g++)
        if (m->cand[g] && !m->pending[g] && !m->touched[g] && !m->need[g]) {
            mirror_set_bit(m, g, true);
            set = true;
        }
    if (set)
        rc = mirror_write_log_locked(io, v, m);
    pthread_mutex_unlock(&m->mu);
    return rc;
}

void lvxd_mirror_assume_synced(void *tstate)
{
    ((struct mirror *)tstate)->nosync = true;
}

int lvxd_mirror_hold_log(struct lvx_ctx *ctx, struct lvxd_lv *v, bool on)
{
    pthread_rwlock_rdlock(&v->lock);
    struct mirror *m = mirror_of(v);
    int rc = 0;
    if (!m || !m->started) {
        pthread_rwlock_unlock(&v->lock);
        return lvx_error(ctx, EINVAL, "%s/%s is not a mirror served here.", v->vg, v->lv);
    }
    struct lvxd_io io;
    if ((rc = lvxd_io_init(&io)) < 0) {
        pthread_rwlock_unlock(&v->lock);
        return lvx_error(ctx, -rc, "Mirror LV %s/%s: no I/O queue: %s", v->vg, v->lv,
                         strerror(-rc));
    }
    pthread_mutex_lock(&m->mu);
    if (on && !m->held && (posix_memalign((void **)&m->held, 4096, m->log_bytes) != 0 ||
                           !m->held)) {
        m->held = NULL;
        rc = -ENOMEM;
    } else if (on) {
        memset(m->held, 0, m->log_bytes);
    } else {
        free(m->held);
        m->held = NULL;
    }
    if (rc == 0 && m->nlog && !v->read_only)
        rc = mirror_write_log_locked(&io, v, m);
    pthread_mutex_unlock(&m->mu);
    if (rc == 0 && m->nlog && !v->read_only)
        rc = mirror_flush_pvs(&io, v, m);
    lvxd_io_exit(&io);
    pthread_rwlock_unlock(&v->lock);
    if (rc < 0)
        return lvx_error(ctx, -rc, "Mirror LV %s/%s: the log was not %s: %s", v->vg, v->lv,
                         on ? "held out of sync" : "released", strerror(-rc));
    if (on)
        lvxd_log("%s/%s: mirror log held out of sync for a conversion", v->vg, v->lv);
    return 0;
}

/* --- start and stop -------------------------------------------------------------- */

/* mirror as the daemon serves it: its log, through a CONVERTING layer (the layer's) */
static const struct lvx_lv *flat_log(const struct lvx_lv *mirror)
{
    const struct lvx_lv *layer = lvx_map_mirror_sync_layer(mirror);
    return layer ? layer->segs[0].log_lv : mirror->segs[0].log_lv;
}

/* Is uuid one of mirror's legs as served (through a CONVERTING layer: its images)? */
static bool has_image(const struct lvx_lv *mirror, const char *uuid)
{
    const struct lvx_lv *layer = lvx_map_mirror_sync_layer(mirror);
    const struct lvx_seg *seg = &mirror->segs[0];
    for (uint32_t i = layer ? 1 : 0; i < seg->area_count; i++)
        if (seg->areas[i].lv && !strcmp(seg->areas[i].lv->uuid, uuid))
            return true;
    return layer && has_image(layer, uuid);
}

/* A reload that added images beside the same (disk or mirrored) log, as lvconvert -m +N
 * and --repair do: the old images stay in sync where the old state's bits say so (its
 * log held all out of sync on disk since before the commit: the bits taken from its
 * memory here), the new ones are copied whole (LVM2's temporary resync layer).  A
 * CONVERTING layer collapsed (lvconvert's poll, once the new images were copied): the
 * layer's images and the top's were all the old state's legs, none fresh, and the
 * log's bits, which the old state's stop writes just before this one starts, now speak
 * for every leg.  A reload into a layer: fresh from the metadata (ctr), bits from the
 * log (the old images' word, as before). */
static void mirror_adopt(void *state, const struct lvx_lv *lv, const struct lvx_lv *old,
                         const struct lvxd_target *old_target, void *old_state)
{
    struct mirror *m = state;
    const struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_lv *log = flat_log(lv), *old_log;
    if (m->layer || !lvx_map_lv_is_mirror(old) || !log || !(old_log = flat_log(old)) ||
        strcmp(log->uuid, old_log->uuid) != 0)
        return;
    /* (an origin's old state comes unwrapped: target_snapshot.c's origin_adopt) */
    struct mirror *o = old_target == &lvxd_target_mirror ? old_state : NULL;
    if (o) {
        pthread_mutex_lock(&o->mu);
        if (o->held && o->started && o->regions == m->regions && o->region == m->region &&
            o->log_bytes == m->log_bytes && !m->adopted &&
            (m->adopted = malloc(m->log_bytes)) != NULL) {
            memcpy(m->adopted, o->hdr, m->log_bytes);
            /* as its stop would (the data was flushed before this call): quiet regions
             * in sync, none while a leg is failed */
            for (uint64_t g = 0; g < o->regions && !mirror_any_failed(o); g++)
                if (!o->pending[g] && !o->need[g])
                    m->adopted[LOG_BITS_OFF + g / 8] |= (uint8_t)(1u << (g % 8));
        }
        pthread_mutex_unlock(&o->mu);
    }
    uint64_t fresh = 0;
    for (uint32_t i = 0; i < seg->area_count && i < m->n; i++)
        if (seg->areas[i].lv && !has_image(old, seg->areas[i].lv->uuid))
            fresh |= (uint64_t)1 << i;
    if (fresh != (m->n < 64 ? ((uint64_t)1 << m->n) - 1 : ~(uint64_t)0))
        m->fresh = fresh;
}

int mirror_copy_locked(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m, uint64_t g0,
                       uint64_t g1, uint64_t to, uint8_t *buf)
{
    uint64_t s = g0 * m->region, end = g1 * m->region < m->sectors ? g1 * m->region : m->sectors;
    while (s < end) {
        uint32_t cnt = end - s < COPY_BYTES / 512 ? (uint32_t)(end - s) : COPY_BYTES / 512;
        /* a source that fails to read is failed and the next one read */
        int live, rc = -EIO;
        while ((live = copy_source(m)) >= 0 &&
               (rc = leg_io(io, v, m, (unsigned)live, false, s * 512, cnt * 512, buf)) < 0)
            mark_failed_locked(v, m, (unsigned)live, "read error during resync");
        if (live < 0)
            return rc;
        unsigned from = (unsigned)live;
        for (unsigned i = 0; i < m->n; i++)
            if (i != from && ((to >> i) & 1) && leg_ok(m, i) &&
                leg_io(io, v, m, i, true, s * 512, cnt * 512, buf) < 0)
                mark_failed_locked(v, m, i, "write error during resync");
        s += cnt;
    }
    return 0;
}

static int start_io(struct lvx_ctx *ctx, struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m)
{
    uint64_t known = 0;                  /* regions the log on disk speaks for */
    memset(m->hdr, 0, m->log_bytes);
    if (m->nlog) {
        int rc = -EIO;
        for (unsigned i = 0; i < m->nlog && rc < 0; i++) {  /* the first readable copy */
            unsigned n = 0;
            rc = lvxd_io_map_add(io, v, m->log[i], false, 0, (uint32_t)m->log_bytes, m->hdr, &n);
            if (rc == 0 && n)
                rc = lvxd_io_run(io, n);
        }
        if (rc < 0)
            return lvx_error(ctx, EIO, "Mirror LV %s/%s: reading the log failed: %s", v->vg,
                             v->lv, strerror(-rc));
        if (get_le(m->hdr, 4) == MIRROR_MAGIC) {
            known = get_le(m->hdr + 8, 8);
            if (get_le(m->hdr + 4, 4) != MIRROR_VERSION)
                return lvx_error(ctx, EINVAL, "Mirror LV %s/%s: log version %u is not served.",
                                 v->vg, v->lv, (unsigned)get_le(m->hdr + 4, 4));
        } else {
            memset(m->hdr, 0, m->log_bytes);
        }
    }
    if (m->adopted) {                /* the held old state's bits, not the held log's */
        memcpy(m->hdr, m->adopted, m->log_bytes);
        known = m->regions;
        free(m->adopted);
        m->adopted = NULL;
    }
    if (known > m->regions)
        known = m->regions;
    for (uint64_t g = known; g < m->regions; g++)       /* new (or grown) regions */
        mirror_set_bit(m, g, m->nosync);
    for (uint64_t g = m->regions; g < (m->regions + 31) / 32 * 32; g++)
        mirror_set_bit(m, g, false);
    memset(m->hdr + LOG_BITS_OFF + (m->regions + 31) / 32 * 4, 0,
           m->log_bytes - LOG_BITS_OFF - (m->regions + 31) / 32 * 4);
    int from = copy_source(m);
    uint64_t dirty = 0;
    if (from < 0 && m->fresh)     /* the new legs hold nothing: no data left to serve */
        return lvx_error(ctx, EIO, "Mirror LV %s/%s: no image holding its data is left to "
                         "copy the new images from: not served.", v->vg, v->lv);
    for (uint64_t g = 0; g < m->regions; g++) {
        /* added legs: every region copied to them, out of sync on disk until then */
        uint8_t need = !mirror_bit(m, g) ? 1 : m->fresh ? 2 : 0;
        if (m->fresh && !m->layer)  /* a layer's log: still the old images' word */
            mirror_set_bit(m, g, false);
        m->need[g] = v->read_only ? 0 : need;
        dirty += need != 0;
    }
    atomic_store(&m->unsynced, v->read_only ? 0 : dirty);
    m->pos = 0;
    /* read-only: reads from the first live leg while a region is out of sync; else
     * the gate copies a region before a request touches it */
    m->synced = !dirty || !v->read_only;
    if (dirty && !v->read_only)
        lvxd_log("%s/%s: %" PRIu64 " of %" PRIu64 " mirror regions out of sync: copied from "
                 "leg %d in the background", v->vg, v->lv, dirty, m->regions, from);
    if (v->read_only || !m->nlog)
        return 0;
    int rc = mirror_write_log_locked(io, v, m);
    if (rc == 0)
        rc = mirror_flush_pvs(io, v, m);
    return rc < 0 ? lvx_error(ctx, EIO, "Mirror LV %s/%s: writing the log failed.", v->vg, v->lv)
                  : 0;
}

static int mirror_start(struct lvx_ctx *ctx, struct lvxd_lv *v)
{
    struct mirror *m = mirror_of(v);
    struct lvxd_io io;
    int rc = lvxd_io_init(&io);
    if (rc < 0)
        return lvx_error(ctx, -rc, "Mirror LV %s/%s: no I/O queue: %s", v->vg, v->lv,
                         strerror(-rc));
    pthread_mutex_lock(&m->mu);
    rc = start_io(ctx, &io, v, m);
    pthread_mutex_unlock(&m->mu);
    lvxd_io_exit(&io);
    m->started = rc == 0;
    if (rc == 0 && atomic_load(&m->unsynced) && (rc = mirror_resync_spawn(v, m)) < 0)
        rc = lvx_error(ctx, -rc, "Mirror LV %s/%s: no resync thread: %s", v->vg, v->lv,
                       strerror(-rc));
    if (rc < 0)
        m->started = false;
    return rc;
}

/* A clean stop: data flushed, quiet regions in sync (none while a leg is failed). */
static void mirror_dtr(struct lvxd_lv *v, void *state)
{
    struct mirror *m = state;
    if (!m)
        return;
    mirror_resync_stop(m);
    if (v && m->started && !v->read_only) {
        struct lvxd_io io;
        if (lvxd_io_init(&io) == 0) {
            pthread_mutex_lock(&m->mu);
            int rc = mirror_flush_pvs(&io, v, m);
            if (rc == 0 && m->nlog) {
                for (uint64_t g = 0; g < m->regions && !mirror_any_failed(m); g++)
                    if (!m->pending[g] && !m->need[g])   /* still to copy: kept */
                        mirror_set_bit(m, g, true);
                rc = mirror_write_log_locked(&io, v, m);
                if (rc == 0)
                    rc = mirror_flush_pvs(&io, v, m);
            }
            pthread_mutex_unlock(&m->mu);
            if (rc < 0)
                lvxd_log("%s/%s: the mirror log was not written clean: %s", v->vg, v->lv,
                         strerror(-rc));
            lvxd_io_exit(&io);
        }
    }
    mirror_free(m);
}

/* " mirror <in-sync>/<regions> <health>" as dm-mirror's status (A alive, D dead): the
 * regions resynced (dm-mirror's sync bits, not the log's clean bits cleared by writes
 * in flight): those not left to the background resync, the log's in-sync bits while
 * a leg is failed or read-only. */
static void mirror_status(struct lvxd_lv *v, char *out, size_t n)
{
    struct mirror *m = mirror_of(v);
    if (!m || n < m->n + 64)
        return;
    char h[MIRROR_MAX_LEGS + 1];
    uint64_t in = 0;
    pthread_mutex_lock(&m->mu);
    for (unsigned i = 0; i < m->n; i++)
        h[i] = leg_ok(m, i) ? 'A' : 'D';
    h[m->n] = 0;
    if (mirror_any_failed(m) || v->read_only)
        for (uint64_t g = 0; g < m->regions; g++)
            in += mirror_bit(m, g);
    else
        in = m->regions - atomic_load(&m->unsynced);
    pthread_mutex_unlock(&m->mu);
    snprintf(out, n, " mirror %" PRIu64 "/%" PRIu64 " %s", in, m->regions, h);
}

const struct lvxd_target lvxd_target_mirror = {
    .name = "mirror",
    .serves = mirror_serves,
    .ctr = mirror_ctr,
    .start = mirror_start,
    .adopt = mirror_adopt,
    .dtr = mirror_dtr,
    .rw = mirror_rw,
    .zero = mirror_zero,
    .flush = mirror_flush,
    .status = mirror_status,
};
