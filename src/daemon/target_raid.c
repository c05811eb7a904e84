/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/target_raid.c - the daemon's RAID target: raid1 and raid10 (near, as LVM2
 * creates it) LVs served over prepared mappings of their rimage and rmeta sub-LVs,
 * with the on-disk state kept as the kernel's dm-raid keeps it (model/raid_sb.h,
 * docs/dm-formats.md §2-§3), so that the same disks move between this daemon and
 * LVM2 + the kernel without a full resync.
 *
 *   copies   raid1: every leg holds the LV; raid10 near: chunk k has its c copies
 *            on legs (k*c + j) mod n, row (k*c + j) div n (j < c).
 *   reads    one in-sync copy per chunk, round robin over the legs; a copy that
 *            fails is marked failed and the read is retried on the next copy.
 *   writes   the regions' bits are set in the write-intent bitmap (written to every
 *            live rmeta) before the data goes to every live copy in one batch; a leg
 *            whose writes fail is marked failed (its bit in the superblocks of the
 *            others, events + 1, as dm-raid does) and the LV keeps serving while a
 *            copy of every chunk is left.  Bits are cleared after a flush made the
 *            regions' data durable (regions written meanwhile stay dirty), and all at
 *            a clean stop.
 *   start    the superblocks of the present legs are read, the freshest (highest
 *            events) is the array's; legs missing (absent PVs, activation mode
 *            degraded) or failed are left out; dirty bitmap regions (and the whole
 *            LV on first use, a stale or absent bitmap, or an interrupted resync) are
 *            resynced from an in-sync copy, a leg that comes back after a failure
 *            (or with an older superblock) is rebuilt in full; then every live
 *            superblock and bitmap is written clean with events + 1.  The resync is
 *            synchronous: activation returns when the LV is in sync.
 *   read-only activation: nothing is written (no resync, no superblock update).
 *
 * Entry point: lvxd_target_raid (one line in target.c's table).
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "model/raid.h"
#include "model/raid_sb.h"

#define SB_BYTES 4096u              /* written at rmeta 0: superblock + zeroes */
#define COPY_BYTES (1u << 20)       /* resync buffer */
#define MAX_LEGS 64u

struct leg {
    const struct lvx_map_prepared *data, *meta;
    bool absent;                    /* not activated (a missing PV) */
    atomic_bool failed;             /* absent, or its I/O failed */
    bool rebuild;                   /* needs a full copy at start */
    bool has_sb;
    struct lvx_raid_sb sb;          /* as read at start */
    uint8_t *sbuf;                  /* SB_BYTES, aligned */
};

struct raid {
    pthread_mutex_t mu;             /* bitmap, superblock writes, failing legs */
    const struct lvx_raid_type *type;
    char dm_name[16];
    unsigned n, copies;
    uint64_t chunk;                 /* sectors per chunk (raid1: the LV) */
    uint64_t sectors;               /* of the LV */
    uint64_t leg_sectors;           /* of each rimage */
    uint64_t data_offset;           /* sectors into each rimage */
    uint32_t region;                /* sectors per bitmap bit */
    uint64_t regions;
    bool started;
    struct lvx_raid_sb sb;          /* the array's (freshest) superblock */
    struct lvx_raid_bm bm;
    uint8_t *area;                  /* bitmap area: superblock + bits (aligned) */
    size_t area_bytes;
    uint32_t *pending;              /* writes in flight per region */
    uint8_t *touched, *cand;        /* per region: written since / clearable at the flush */
    atomic_uint rr;                 /* read balancing */
    struct leg legs[];
};

static bool raid_serves(const struct lvx_lv *lv)
{
    return lvx_map_lv_is_raid(lv);
}

static void raid_free(struct raid *r)
{
    if (!r)
        return;
    for (unsigned i = 0; i < r->n; i++)
        free(r->legs[i].sbuf);
    free(r->area);
    free(r->pending);
    free(r->touched);
    free(r->cand);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

static int raid_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                    bool partial, const struct lvx_map_prepared **map, void **state)
{
    *state = NULL;
    *map = NULL;
    const struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_raid_type *t = lvx_raid_type_find(seg->type_name);
    /* the client enforced the activation mode; here: what can run at all */
    int rc = lvx_map_check_raid_activatable(ctx, lv, partial, true);
    if (rc < 0)
        return rc;
    /* an image under a pvmove would be written on its old place only (the pvmove
     * target mirrors top-level LVs): refused until the move is done */
    for (uint32_t i = 0; seg->areas && i < seg->area_count; i++) {
        const struct lvx_lv *img = seg->areas[i].lv;
        for (unsigned s = 0; img && s < img->seg_count; s++)
            for (uint32_t a = 0; img->segs[s].areas && a < img->segs[s].area_count; a++)
                if (img->segs[s].areas[a].lv && (img->segs[s].areas[a].lv->status & LVX_LV_PVMOVE))
                    return lvx_error(ctx, EBUSY, "RAID LV %s/%s: its image %s is being moved by "
                                     "pvmove; the user-space backend serves it after the move.",
                                     lv->vg->name, lv->name, img->name);
    }
    if (!t || !t->mirrored)
        return lvx_error(ctx, ENOTSUP, "Activation of RAID LV %s/%s (%s) is not supported by "
                         "the user-space backend yet (raid1 and raid10 are).", lv->vg->name,
                         lv->name, seg->type_name ? seg->type_name : "?");
    if (seg->area_count < 2 || seg->area_count > MAX_LEGS)
        return lvx_error(ctx, EINVAL, "RAID LV %s/%s: %u images (2 to %u served).",
                         lv->vg->name, lv->name, seg->area_count, MAX_LEGS);
    uint32_t e = lv->vg->extent_size;
    struct raid *r = calloc(1, sizeof(*r) + seg->area_count * sizeof(struct leg));
    if (!r)
        return lvx_error(ctx, ENOMEM, "Out of memory loading %s/%s.", lv->vg->name, lv->name);
    pthread_mutex_init(&r->mu, NULL);
    r->type = t;
    snprintf(r->dm_name, sizeof(r->dm_name), "%s", t->dm_name);
    r->n = seg->area_count;
    r->sectors = lv->le_count * (uint64_t)e;
    r->leg_sectors = seg->areas[0].lv->le_count * (uint64_t)e;
    bool raid10 = !strcmp(t->name, "raid10");
    r->copies = raid10 ? (seg->data_copies >= 2 ? seg->data_copies : 2) : r->n;
    r->chunk = raid10 ? seg->stripe_size : r->sectors;
    r->data_offset = seg->has_data_offset ? seg->data_offset : 0;
    r->region = seg->region_size ? seg->region_size : LVX_RAID_DEFAULT_REGION;
    if (raid10 && (!r->chunk || r->copies > r->n))
        rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: raid10 needs a stripe size and at most "
                       "%u copies.", lv->vg->name, lv->name, r->n);
    if (rc == 0 && (r->region < 8 || (r->region & (r->region - 1))))
        rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: region size %u is not a power of two of "
                       "at least 4 KiB.", lv->vg->name, lv->name, r->region);
    r->regions = (r->sectors + r->region - 1) / r->region;
    r->area_bytes = lvx_raid_bm_area_bytes(r->regions);
    if (rc == 0 && (posix_memalign((void **)&r->area, 4096, r->area_bytes) ||
                    !(r->pending = calloc(r->regions, sizeof(*r->pending))) ||
                    !(r->touched = calloc(r->regions, 1)) || !(r->cand = calloc(r->regions, 1))))
        rc = lvx_error(ctx, ENOMEM, "Out of memory loading %s/%s.", lv->vg->name, lv->name);
    for (unsigned i = 0; rc == 0 && i < r->n; i++) {
        struct leg *g = &r->legs[i];
        struct lvx_map_prepared *m;
        if (posix_memalign((void **)&g->sbuf, 4096, SB_BYTES)) {
            rc = lvx_error(ctx, ENOMEM, "Out of memory loading %s/%s.", lv->vg->name, lv->name);
            break;
        }
        if (lvx_map_raid_image_missing(seg, i)) {
            g->absent = true;
            atomic_store(&g->failed, true);
            continue;
        }
        if (seg->areas[i].lv->le_count * (uint64_t)e != r->leg_sectors)
            rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: images of different sizes.",
                           lv->vg->name, lv->name);
        if (rc == 0 && (rc = lvx_map_prepare(ctx, pool, seg->areas[i].lv, 0, &m)) == 0)
            g->data = m;
        if (rc == 0 && (rc = lvx_map_prepare(ctx, pool, seg->meta_areas[i].lv, 0, &m)) == 0)
            g->meta = m;
        if (rc == 0 && lvx_map_prepared_sectors(g->meta) * 512 < SB_BYTES + r->area_bytes)
            rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: rmeta %s is too small for the bitmap.",
                           lv->vg->name, lv->name, seg->meta_areas[i].lv->name);
    }
    if (rc == 0 && (raid10 ? r->sectors / r->chunk * r->copies > r->leg_sectors / r->chunk * r->n
                           : r->leg_sectors < r->sectors))
        rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: images too small for the LV.", lv->vg->name,
                       lv->name);
    if (rc < 0) {
        raid_free(r);
        return rc;
    }
    *state = r;
    return 0;
}

/* --- copies -------------------------------------------------------------------- */

/* Copy j of LV sector s: its leg and the sector in the rimage; *run: sectors to the
 * end of the chunk. */
static unsigned copy_of(const struct raid *r, uint64_t s, unsigned j, uint64_t *leg_sector,
                        uint64_t *run)
{
    uint64_t k = s / r->chunk, in = s % r->chunk;
    uint64_t slot = k * r->copies + j;
    *leg_sector = r->data_offset + slot / r->n * r->chunk + in;
    *run = r->chunk - in;
    return (unsigned)(slot % r->n);
}

static bool leg_ok(const struct raid *r, unsigned i)
{
    return !atomic_load(&r->legs[i].failed);
}

/* --- rmeta I/O ------------------------------------------------------------------ */

static int meta_add(struct lvxd_io *io, struct lvxd_lv *v, struct leg *g, bool write,
                    uint64_t off, uint32_t len, uint8_t *buf, unsigned *n)
{
    return lvxd_io_map_add(io, v, g->meta, write, off, len, buf, n);
}

static void mark_failed_locked(struct lvxd_lv *v, struct raid *r, unsigned i, const char *why)
{
    if (atomic_exchange(&r->legs[i].failed, true))
        return;
    lvx_raid_sb_set_failed(&r->sb, i, true);
    lvxd_log("%s/%s: RAID leg %u failed (%s): served from the other legs", v->vg, v->lv, i,
             why);
}

/* Write the superblock (events + 1) and the whole bitmap area to every live leg;
 * legs whose write fails are marked failed and the others written again.  mu held. */
static int write_state_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, bool clean)
{
    for (unsigned attempt = 0; attempt <= r->n; attempt++) {
        r->sb.events++;
        r->bm.events = r->sb.events;
        if (clean)                        /* every bit clear */
            r->bm.events_cleared = r->sb.events;
        lvx_raid_bm_encode(&r->bm, r->area);
        unsigned n = 0, live = 0;
        int rc = 0;
        for (unsigned i = 0; i < r->n && rc == 0; i++) {
            struct leg *g = &r->legs[i];
            if (!leg_ok(r, i))
                continue;
            struct lvx_raid_sb s = r->sb;
            s.array_position = i;
            s.disk_recovery_offset = LVX_RAID_MAX_SECTOR;
            lvx_raid_sb_encode(&s, g->sbuf, SB_BYTES);
            live++;
            if ((rc = meta_add(io, v, g, true, 0, SB_BYTES, g->sbuf, &n)) == 0)
                rc = meta_add(io, v, g, true, SB_BYTES, (uint32_t)r->area_bytes, r->area, &n);
        }
        if (!live)
            return -EIO;
        if (rc == 0 && (!n || (rc = lvxd_io_run(io, n)) == 0))
            return 0;
        /* find the legs that fail, one at a time */
        bool any = false;
        for (unsigned i = 0; i < r->n; i++) {
            struct leg *g = &r->legs[i];
            unsigned m = 0;
            if (!leg_ok(r, i))
                continue;
            int e = meta_add(io, v, g, true, 0, SB_BYTES, g->sbuf, &m);
            if (e == 0)
                e = meta_add(io, v, g, true, SB_BYTES, (uint32_t)r->area_bytes, r->area, &m);
            if (e == 0 && m)
                e = lvxd_io_run(io, m);
            if (e < 0) {
                mark_failed_locked(v, r, i, "superblock write failed");
                any = true;
            }
        }
        if (!any)
            return rc;          /* not a leg's fault: give up */
    }
    return -EIO;
}

/* Write the bitmap pages [first, last] to every live leg (mu held). */
static int write_pages_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                              size_t first, size_t last)
{
    unsigned n = 0;
    int rc = 0;
    uint32_t len = (uint32_t)((last - first + 1) * 4096);
    for (unsigned i = 0; i < r->n && rc == 0; i++)
        if (leg_ok(r, i))
            rc = meta_add(io, v, &r->legs[i], true, SB_BYTES + first * 4096, len,
                          r->area + first * 4096, &n);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    if (rc < 0) {                /* a leg failing: the superblocks say so, bits included */
        for (unsigned i = 0; i < r->n; i++) {
            unsigned m = 0;
            if (!leg_ok(r, i))
                continue;
            int e = meta_add(io, v, &r->legs[i], true, SB_BYTES + first * 4096, len,
                             r->area + first * 4096, &m);
            if ((e == 0 && m && (e = lvxd_io_run(io, m)) < 0) || e < 0)
                mark_failed_locked(v, r, i, "bitmap write failed");
        }
        rc = write_state_locked(io, v, r, false);
    }
    return rc;
}

static size_t page_of(uint64_t region)
{
    return (LVX_RAID_BM_SB_SIZE + region / 8) / 4096;
}

/* --- data path ------------------------------------------------------------------ */

/* Read [s, s+cnt) (within one chunk) from one of its copies, round robin; copies that
 * fail are marked failed and the next one tried. */
static int read_piece(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t s,
                      uint64_t cnt, uint8_t *buf, unsigned first)
{
    int rc = -EIO;
    for (unsigned t = 0; t < r->copies; t++) {
        uint64_t ls, run;
        unsigned leg = copy_of(r, s, (first + t) % r->copies, &ls, &run);
        if (!leg_ok(r, leg))
            continue;
        unsigned n = 0;
        rc = lvxd_io_map_add(io, v, r->legs[leg].data, false, ls * 512, (uint32_t)(cnt * 512),
                             buf, &n);
        if (rc == 0 && n)
            rc = lvxd_io_run(io, n);
        if (rc == 0)
            return 0;
        pthread_mutex_lock(&r->mu);
        mark_failed_locked(v, r, leg, "read error");
        write_state_locked(io, v, r, false);
        pthread_mutex_unlock(&r->mu);
    }
    return rc;
}

static int raid_read(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t off,
                     uint32_t len, uint8_t *buf)
{
    unsigned first = atomic_fetch_add(&r->rr, 1);
    uint64_t s = off / 512, end = (off + len) / 512;
    unsigned n = 0;
    int rc = 0;
    /* fast path: every piece from one live copy, one batch */
    for (uint64_t x = s; x < end && rc == 0;) {
        uint64_t ls = 0, run = 0;
        unsigned leg = 0, t;
        for (t = 0; t < r->copies; t++) {
            leg = copy_of(r, x, (first + t) % r->copies, &ls, &run);
            if (leg_ok(r, leg))
                break;
        }
        uint64_t cnt = run < end - x ? run : end - x;
        rc = t == r->copies ? -EIO
                            : lvxd_io_map_add(io, v, r->legs[leg].data, false, ls * 512,
                                              (uint32_t)(cnt * 512), buf + (x - s) * 512, &n);
        x += cnt;
    }
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    if (rc == 0)
        return 0;
    /* slow path: piece by piece, failing copies marked */
    for (uint64_t x = s; x < end;) {
        uint64_t ls, run;
        copy_of(r, x, 0, &ls, &run);
        uint64_t cnt = run < end - x ? run : end - x;
        if ((rc = read_piece(io, v, r, x, cnt, buf + (x - s) * 512, first)) < 0)
            return rc;
        x += cnt;
    }
    return 0;
}

/* Add the writes of [s, end) to every live copy (only legs in `only` when not ~0). */
static int add_writes(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t s,
                      uint64_t end, uint8_t *buf, uint64_t only, unsigned *n)
{
    int rc = 0;
    for (uint64_t x = s; x < end && rc == 0;) {
        uint64_t ls, run = 0;
        for (unsigned j = 0; j < r->copies && rc == 0; j++) {
            unsigned leg = copy_of(r, x, j, &ls, &run);
            if (!leg_ok(r, leg) || !((only >> leg) & 1))
                continue;
            rc = lvxd_io_map_add(io, v, r->legs[leg].data, true, ls * 512,
                                 (uint32_t)((run < end - x ? run : end - x) * 512),
                                 buf + (x - s) * 512, n);
        }
        x += run < end - x ? run : end - x;
    }
    return rc;
}

/* Every chunk of [s, end) still has a live copy? */
static bool covered(const struct raid *r, uint64_t s, uint64_t end)
{
    if (r->copies == r->n) {
        for (unsigned i = 0; i < r->n; i++)
            if (leg_ok(r, i))
                return true;
        return false;
    }
    for (uint64_t x = s; x < end;) {
        uint64_t ls, run = 0;
        bool any = false;
        for (unsigned j = 0; j < r->copies; j++)
            any |= leg_ok(r, copy_of(r, x, j, &ls, &run));
        if (!any)
            return false;
        x += run;
    }
    return true;
}

static int raid_write(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t off,
                      uint32_t len, uint8_t *buf)
{
    uint64_t s = off / 512, end = (off + len) / 512;
    uint64_t r0 = s / r->region, r1 = (end - 1) / r->region;
    int rc = 0;
    /* bits first: on disk before the data */
    pthread_mutex_lock(&r->mu);
    size_t pfirst = SIZE_MAX, plast = 0;
    for (uint64_t g = r0; g <= r1; g++) {
        r->pending[g]++;
        r->touched[g] = 1;
        if (!lvx_raid_bm_bit(r->area, g)) {
            lvx_raid_bm_set(r->area, g, true);
            size_t p = page_of(g);
            pfirst = p < pfirst ? p : pfirst;
            plast = p > plast ? p : plast;
        }
    }
    if (pfirst != SIZE_MAX)
        rc = write_pages_locked(io, v, r, pfirst, plast);
    pthread_mutex_unlock(&r->mu);
    if (rc == 0) {
        unsigned n = 0;
        rc = add_writes(io, v, r, s, end, buf, ~(uint64_t)0, &n);
        if (rc == 0 && n)
            rc = lvxd_io_run(io, n);
        if (rc < 0) {
            /* which legs fail: each one alone */
            pthread_mutex_lock(&r->mu);
            for (unsigned i = 0; i < r->n; i++) {
                unsigned m = 0;
                if (!leg_ok(r, i))
                    continue;
                int e = add_writes(io, v, r, s, end, buf, (uint64_t)1 << i, &m);
                if (e == 0 && m)
                    e = lvxd_io_run(io, m);
                if (e < 0)
                    mark_failed_locked(v, r, i, "write error");
            }
            rc = covered(r, s, end) ? write_state_locked(io, v, r, false) : -EIO;
            pthread_mutex_unlock(&r->mu);
        }
    }
    pthread_mutex_lock(&r->mu);
    for (uint64_t g = r0; g <= r1; g++)
        r->pending[g]--;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

static int raid_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off,
                   uint32_t len, uint8_t *buf)
{
    struct raid *r = v->tstate;
    if (!r || !r->started)
        return -EIO;
    if (!len)
        return 0;
    return write ? raid_write(io, v, r, off, len, buf) : raid_read(io, v, r, off, len, buf);
}

/* Zeroing: written as zeroes through the write path (bitmap and copies alike). */
static int raid_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    uint8_t *z;
    if (posix_memalign((void **)&z, 4096, COPY_BYTES))
        return -ENOMEM;
    memset(z, 0, COPY_BYTES);
    int rc = 0;
    while (len && rc == 0) {
        uint32_t m = len < COPY_BYTES ? (uint32_t)len : COPY_BYTES;
        rc = raid_rw(io, v, true, off, m, z);
        off += m;
        len -= m;
    }
    free(z);
    return rc;
}

/* Data durable first, then the bits of regions with nothing in flight and not
 * written since the flush began are cleared (lazily: not flushed themselves). */
static int raid_flush(struct lvxd_io *io, struct lvxd_lv *v)
{
    struct raid *r = v->tstate;
    if (!r || !r->started)
        return -EIO;
    bool any = false;
    pthread_mutex_lock(&r->mu);
    for (uint64_t g = 0; g < r->regions; g++) {
        r->cand[g] = lvx_raid_bm_bit(r->area, g) && !r->pending[g];
        r->touched[g] = 0;
        any |= r->cand[g];
    }
    pthread_mutex_unlock(&r->mu);
    int rc = lvxd_io_flush_pvs(io, v);
    if (rc < 0 || !any || v->read_only)
        return rc;
    pthread_mutex_lock(&r->mu);
    size_t pfirst = SIZE_MAX, plast = 0;
    for (uint64_t g = 0; g < r->regions; g++)
        if (r->cand[g] && !r->pending[g] && !r->touched[g]) {
            lvx_raid_bm_set(r->area, g, false);
            size_t p = page_of(g);
            pfirst = p < pfirst ? p : pfirst;
            plast = p > plast ? p : plast;
        }
    if (pfirst != SIZE_MAX)
        rc = write_pages_locked(io, v, r, pfirst, plast);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

/* --- start: superblocks, bitmap, resync ------------------------------------------ */

/* Copy [s, end) of the LV from an in-sync copy to the copies on legs in `to`. */
static int sync_range(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t s,
                      uint64_t end, uint64_t insync, uint64_t to, uint8_t *buf)
{
    while (s < end) {
        uint64_t cnt = end - s < COPY_BYTES / 512 ? end - s : COPY_BYTES / 512;
        uint64_t ls, run;
        copy_of(r, s, 0, &ls, &run);
        if (run < cnt)
            cnt = run;
        int rc = -EIO;
        for (unsigned j = 0; j < r->copies && rc < 0; j++) {
            unsigned leg = copy_of(r, s, j, &ls, &run), n = 0;
            if (!((insync >> leg) & 1) || !leg_ok(r, leg))
                continue;
            rc = lvxd_io_map_add(io, v, r->legs[leg].data, false, ls * 512,
                                 (uint32_t)(cnt * 512), buf, &n);
            if (rc == 0 && n)
                rc = lvxd_io_run(io, n);
            if (rc < 0)
                mark_failed_locked(v, r, leg, "read error during resync");
        }
        if (rc < 0) {
            lvxd_log("%s/%s: no in-sync copy of sector %" PRIu64 " left", v->vg, v->lv, s);
            return rc;
        }
        for (unsigned j = 0; j < r->copies; j++) {
            unsigned leg = copy_of(r, s, j, &ls, &run), n = 0;
            if (!((to >> leg) & 1) || !leg_ok(r, leg))
                continue;
            int e = lvxd_io_map_add(io, v, r->legs[leg].data, true, ls * 512,
                                    (uint32_t)(cnt * 512), buf, &n);
            if (e == 0 && n)
                e = lvxd_io_run(io, n);
            if (e < 0)
                mark_failed_locked(v, r, leg, "write error during resync");
        }
        s += cnt;
    }
    return 0;
}

static int read_legs(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint8_t *areas)
{
    for (unsigned i = 0; i < r->n; i++) {
        struct leg *g = &r->legs[i];
        if (g->absent)
            continue;
        unsigned n = 0;
        uint8_t *a = areas + i * r->area_bytes;
        int rc = meta_add(io, v, g, false, 0, SB_BYTES, g->sbuf, &n);
        if (rc == 0)
            rc = meta_add(io, v, g, false, SB_BYTES, (uint32_t)r->area_bytes, a, &n);
        if (rc == 0 && n)
            rc = lvxd_io_run(io, n);
        if (rc < 0) {
            mark_failed_locked(v, r, i, "superblock read failed");
            continue;
        }
        g->has_sb = lvx_raid_sb_decode(g->sbuf, SB_BYTES, &g->sb);
    }
    return 0;
}

static int raid_start_io(struct lvx_ctx *ctx, struct lvxd_io *io, struct lvxd_lv *v,
                         struct raid *r, uint8_t *areas, uint8_t *buf)
{
    read_legs(io, v, r, areas);
    int best = -1;
    for (unsigned i = 0; i < r->n; i++)
        if (leg_ok(r, i) && r->legs[i].has_sb &&
            (best < 0 || r->legs[i].sb.events > r->legs[best].sb.events))
            best = (int)i;
    uint32_t level, layout;
    lvx_raid_md_level(r->dm_name, r->copies, &level, &layout);
    bool full = best < 0;                /* first use: every leg new */
    if (best >= 0) {
        const struct lvx_raid_sb *b = &r->legs[best].sb;
        const char *bad = NULL;
        if (b->incompat_features || (b->compat_features & ~1u))
            bad = "unknown feature flags";
        else if (b->num_devices != r->n)
            bad = "another number of devices";
        else if (b->level != level || b->layout != layout)
            bad = "another RAID level or layout";
        else if ((b->flags & 1) || b->reshape_position != LVX_RAID_MAX_SECTOR ||
                 b->new_level != b->level || b->new_layout != b->layout || b->delta_disks)
            bad = "a reshape in progress";
        else if (r->chunk != r->sectors && b->stripe_sectors != r->chunk)
            bad = "another stripe size";
        if (bad)
            return lvx_error(ctx, EINVAL, "RAID LV %s/%s: the superblock of image %d says %s: "
                             "not served.", v->vg, v->lv, best, bad);
        r->sb = *b;
        r->data_offset = b->data_offset;
        for (unsigned i = 0; i < r->n; i++) {
            struct leg *g = &r->legs[i];
            if (!leg_ok(r, i))
                continue;
            g->rebuild = !g->has_sb || g->sb.events < b->events || lvx_raid_sb_failed(b, i) ||
                         g->sb.disk_recovery_offset != LVX_RAID_MAX_SECTOR;
            if (g->rebuild)
                lvxd_log("%s/%s: RAID leg %u is rebuilt from the others", v->vg, v->lv, i);
        }
        /* the bitmap of the freshest leg: stale or absent means a full resync */
        const uint8_t *a = areas + (size_t)best * r->area_bytes;
        struct lvx_raid_bm bm;
        if (!lvx_raid_bm_decode(a, &bm) || lvx_raid_bm_invalid(&bm) || bm.events < b->events ||
            (bm.state & LVX_RAID_BM_STALE) || bm.chunksize != r->region * 512u)
            full = true;
        else
            memcpy(r->area, a, r->area_bytes);
        if (b->array_resync_offset != LVX_RAID_MAX_SECTOR)
            full = true;                     /* resync interrupted (or never done) */
        if (b->array_sectors && b->array_sectors < r->sectors && !full)
            for (uint64_t g = b->array_sectors / r->region; g < r->regions; g++)
                lvx_raid_bm_set(r->area, g, true);     /* extended since */
        r->sb.failed[0] = r->sb.failed[1] = r->sb.failed[2] = r->sb.failed[3] = 0;
    } else {
        memset(&r->sb, 0, sizeof(r->sb));
        r->sb.events = 0;
        lvxd_log("%s/%s: new RAID set: full initial sync", v->vg, v->lv);
    }
    if (full) {
        memset(r->area, 0, r->area_bytes);
        for (uint64_t g = 0; g < r->regions; g++)
            lvx_raid_bm_set(r->area, g, true);
    }
    /* the array's superblock as dm-raid writes it */
    r->sb.compat_features = 1;
    r->sb.num_devices = r->n;
    r->sb.level = r->sb.new_level = level;
    r->sb.layout = r->sb.new_layout = layout;
    r->sb.stripe_sectors = r->sb.new_stripe_sectors = r->chunk == r->sectors ? 0 : (uint32_t)r->chunk;
    r->sb.flags = 0;
    r->sb.reshape_position = LVX_RAID_MAX_SECTOR;
    r->sb.delta_disks = 0;
    r->sb.array_sectors = r->sectors;
    r->sb.data_offset = r->sb.new_data_offset = r->data_offset;
    r->sb.sectors = r->leg_sectors;
    r->sb.incompat_features = 0;
    r->sb.array_resync_offset = LVX_RAID_MAX_SECTOR;
    for (unsigned i = 0; i < r->n; i++)
        if (!leg_ok(r, i))
            lvx_raid_sb_set_failed(&r->sb, i, true);
    r->bm.version = 4;
    r->bm.events_cleared = r->sb.events;
    r->bm.sync_size = r->chunk == r->sectors ? r->leg_sectors : r->sectors;
    r->bm.state = 0;
    r->bm.chunksize = r->region * 512u;
    r->bm.daemon_sleep = 5;
    r->bm.write_behind = 0;
    if (v->read_only)
        return 0;
    /* resync: dirty regions to every in-sync leg, then rebuilt legs in full */
    uint64_t insync = 0, rebuild = 0, all = 0;
    for (unsigned i = 0; i < r->n; i++) {
        if (!leg_ok(r, i))
            continue;
        all |= (uint64_t)1 << i;
        *(r->legs[i].rebuild ? &rebuild : &insync) |= (uint64_t)1 << i;
    }
    if (!insync)
        return lvx_error(ctx, EIO, "RAID LV %s/%s: no image is in sync: not served.", v->vg,
                         v->lv);
    uint64_t dirty = 0;
    for (uint64_t g = 0; g < r->regions; g++) {
        if (!lvx_raid_bm_bit(r->area, g))
            continue;
        uint64_t s = g * r->region, e = s + r->region < r->sectors ? s + r->region : r->sectors;
        if (sync_range(io, v, r, s, e, insync, all, buf) < 0)
            return lvx_error(ctx, EIO, "RAID LV %s/%s: resync failed.", v->vg, v->lv);
        dirty++;
    }
    if (dirty && !full)
        lvxd_log("%s/%s: %" PRIu64 " dirty regions of the bitmap resynced", v->vg, v->lv, dirty);
    if (rebuild && sync_range(io, v, r, 0, r->sectors, insync, rebuild, buf) < 0)
        return lvx_error(ctx, EIO, "RAID LV %s/%s: rebuild failed.", v->vg, v->lv);
    for (unsigned i = 0; i < r->n; i++)
        if (!leg_ok(r, i))
            lvx_raid_sb_set_failed(&r->sb, i, true);
    if (!covered(r, 0, r->sectors))
        return lvx_error(ctx, EIO, "RAID LV %s/%s: not every chunk has a live copy: not "
                         "served.", v->vg, v->lv);
    int rc = lvxd_io_flush_pvs(io, v);
    for (uint64_t g = 0; g < r->regions; g++)
        lvx_raid_bm_set(r->area, g, false);
    if (rc == 0)
        rc = write_state_locked(io, v, r, true);
    if (rc == 0)
        rc = lvxd_io_flush_pvs(io, v);
    if (rc < 0)
        return lvx_error(ctx, EIO, "RAID LV %s/%s: writing the superblocks failed.", v->vg,
                         v->lv);
    return 0;
}

static int raid_start(struct lvx_ctx *ctx, struct lvxd_lv *v)
{
    struct raid *r = v->tstate;
    struct lvxd_io io;
    uint8_t *areas = NULL, *buf = NULL;
    int rc = lvxd_io_init(&io);
    if (rc < 0)
        return lvx_error(ctx, -rc, "RAID LV %s/%s: no I/O queue: %s", v->vg, v->lv,
                         strerror(-rc));
    if (posix_memalign((void **)&areas, 4096, r->n * r->area_bytes) ||
        posix_memalign((void **)&buf, 4096, COPY_BYTES))
        rc = lvx_error(ctx, ENOMEM, "Out of memory starting %s/%s.", v->vg, v->lv);
    else {
        pthread_mutex_lock(&r->mu);
        rc = raid_start_io(ctx, &io, v, r, areas, buf);
        pthread_mutex_unlock(&r->mu);
    }
    free(areas);
    free(buf);
    lvxd_io_exit(&io);
    r->started = rc == 0;
    return rc;
}

/* A clean stop: data flushed, every bit cleared, superblocks events + 1. */
static void raid_dtr(struct lvxd_lv *v, void *state)
{
    struct raid *r = state;
    if (!r)
        return;
    if (v && r->started && !v->read_only) {
        struct lvxd_io io;
        if (lvxd_io_init(&io) == 0) {
            pthread_mutex_lock(&r->mu);
            int rc = lvxd_io_flush_pvs(&io, v);
            if (rc == 0) {
                for (uint64_t g = 0; g < r->regions; g++)
                    if (!r->pending[g])
                        lvx_raid_bm_set(r->area, g, false);
                rc = write_state_locked(&io, v, r, true);
            }
            if (rc == 0)
                rc = lvxd_io_flush_pvs(&io, v);
            pthread_mutex_unlock(&r->mu);
            if (rc < 0)
                lvxd_log("%s/%s: the RAID state was not written clean: %s", v->vg, v->lv,
                         strerror(-rc));
            lvxd_io_exit(&io);
        }
    }
    raid_free(r);
}

/* " raid <health> <done>/<total> <action>" as dm-raid's status: A live, D failed or
 * missing (the resync runs at start: always complete and idle while served) */
static void raid_status(struct lvxd_lv *v, char *out, size_t n)
{
    struct raid *r = v->tstate;
    if (!r || n < r->n + 64)
        return;
    char h[MAX_LEGS + 1];
    for (unsigned i = 0; i < r->n; i++)
        h[i] = leg_ok(r, i) ? 'A' : 'D';
    h[r->n] = 0;
    snprintf(out, n, " raid %s %" PRIu64 "/%" PRIu64 " %s", h, r->sectors, r->sectors,
             r->started ? "idle" : "frozen");
}

const struct lvxd_target lvxd_target_raid = {
    .name = "raid",
    .serves = raid_serves,
    .ctr = raid_ctr,
    .start = raid_start,
    .dtr = raid_dtr,
    .rw = raid_rw,
    .zero = raid_zero,
    .flush = raid_flush,
    .status = raid_status,
};
