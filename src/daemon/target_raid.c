/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/target_raid.c - the daemon's mirrored RAID target: raid1 and raid10 (near,
 * as LVM2 creates it) LVs served over prepared mappings of their rimage and rmeta
 * sub-LVs; the dm-raid superblock and bitmap are kept by raid_core.c.
 *
 *   copies   raid1: every leg holds the LV; raid10 near: chunk k has its c copies
 *            on legs (k*c + j) mod n, row (k*c + j) div n (j < c).
 *   reads    one in-sync copy per chunk, round robin over the legs, a writemostly
 *            raid1 leg only when no other is live (dm-raid's write_mostly); a copy
 *            that fails is marked failed and the read is retried on the next copy.
 *            max_write_behind is not kept: writes to writemostly legs complete
 *            with the others' (synchronous).
 *   writes   the regions' bits set first (raid_core.c), then the data goes to every
 *            live copy in one batch; a leg whose writes fail is marked failed and the
 *            LV keeps serving while a copy of every chunk is left.
 *   resync   dirty regions copied from an in-sync copy to the others; rebuilt legs
 *            in full (the start-up itself, superblocks and bitmap: raid_core.c).
 *   reshape  raid10 stripes added or another chunk size (docs/reshape-user.md §12,
 *            §14): a request is cut at the reshape's position and each piece served
 *            in its geometry (the new one on the moved side: below the position
 *            forward, above it backward; a write into the moved but unrecorded range
 *            records the position first); the walker's step (raid_reshape.c) reads one
 *            copy in the old geometry and writes every copy of the new one.
 *
 * Entry point: lvxd_target_raid (one line in target.c's table).
 */
#include "daemon/raid_core.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "model/raid_geo.h"

static const struct raid_geom mirror_geom;

static bool raid_serves(const struct lvx_lv *lv)
{
    const struct lvx_raid_type *t = lvx_raid_type_find(lv->segs[0].type_name);
    /* raid0: the plain target (target.c); others refused by the core */
    return lvx_map_lv_is_raid(lv) && (!t || (!t->parity && !t->raid0));
}

static int raid_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                    bool partial, const struct lvx_map_prepared **map, void **state)
{
    *state = NULL;
    *map = NULL;
    const struct lvx_seg *seg = &lv->segs[0];
    struct raid *r;
    int rc = raid_core_new(ctx, pool, lv, partial, &mirror_geom, &r);
    if (rc < 0)
        return rc;
    bool raid10 = !strcmp(r->type->name, "raid10");
    r->copies = raid10 ? (seg->data_copies >= 2 ? seg->data_copies : 2) : r->n;
    r->chunk = raid10 ? seg->stripe_size : r->sectors;
    r->stripe_sectors = raid10 ? (uint32_t)r->chunk : 0;
    r->sync_size = raid10 ? r->sectors : r->leg_sectors;
    if (raid10 && (!r->chunk || r->copies > r->n))
        rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: raid10 needs a stripe size and at most "
                       "%u copies.", lv->vg->name, lv->name, r->n);
    if (rc == 0 && (raid10 ? r->sectors / r->chunk * r->copies > r->leg_sectors / r->chunk * r->n
                           : r->leg_sectors < r->sectors))
        rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: images too small for the LV.", lv->vg->name,
                       lv->name);
    if (rc == 0)
        rc = raid_core_alloc(ctx, lv, r);
    if (rc < 0) {
        raid_core_free(r);
        return rc;
    }
    *state = r;
    return 0;
}

/* --- copies -------------------------------------------------------------------- */

/* The array's one geometry (outside a reshape; during one, each piece of a request is
 * served in the geometry that holds it, model/raid_reshape.h). */
static struct lvx_raid_geo geo_of(const struct raid *r)
{
    return (struct lvx_raid_geo){ .legs = r->n, .copies = r->copies, .chunk = r->chunk,
                                  .data_offset = r->data_offset };
}

/* Copy j of LV sector s in geometry G: its leg and the sector in the rimage; *run:
 * sectors to the end of the chunk. */
static unsigned copy_of(const struct lvx_raid_geo *G, uint64_t s, unsigned j,
                        uint64_t *leg_sector, uint64_t *run)
{
    return lvx_raid_geo_copy(G, s, j, leg_sector, run);
}

/* --- data path ------------------------------------------------------------------ */

/* The copy of LV sector x (geometry G) to read from, round robin from `first`: a live
 * leg, not a writemostly one while another is live; UINT_MAX when none is. */
static unsigned read_copy_of(const struct raid *r, const struct lvx_raid_geo *G, uint64_t x,
                             unsigned first, uint64_t *ls, uint64_t *run)
{
    for (int pass = 0; pass < 2; pass++)
        for (unsigned t = 0; t < r->copies; t++) {
            unsigned leg = copy_of(G, x, (first + t) % r->copies, ls, run);
            if (raid_leg_ok(r, leg) && r->legs[leg].writemostly == (pass == 1))
                return leg;
        }
    return UINT_MAX;
}

/* Read [s, s+cnt) (within one chunk of G) from one of its copies, round robin
 * (writemostly legs last); copies that fail are marked failed and the next one tried. */
static int read_piece(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                      const struct lvx_raid_geo *G, uint64_t s, uint64_t cnt, uint8_t *buf,
                      unsigned first)
{
    int rc = -EIO;
    for (unsigned t = 0; t < 2 * r->copies; t++) {
        uint64_t ls, run;
        unsigned leg = copy_of(G, s, (first + t) % r->copies, &ls, &run);
        if (!raid_leg_ok(r, leg) || r->legs[leg].writemostly != (t >= r->copies))
            continue;
        unsigned n = 0;
        rc = lvxd_io_map_add(io, v, r->legs[leg].data, false, ls * 512, (uint32_t)(cnt * 512),
                             buf, &n);
        if (rc == 0 && n)
            rc = lvxd_io_run(io, n);
        if (rc == 0)
            return 0;
        pthread_mutex_lock(&r->mu);
        raid_mark_failed_locked(v, r, leg, "read error");
        raid_write_state_locked(io, v, r, false);
        pthread_mutex_unlock(&r->mu);
    }
    return rc;
}

/* Read LV sectors [s, end) in geometry G (no resync gate: the caller's). */
static int read_geo(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                    const struct lvx_raid_geo *G, uint64_t s, uint64_t end, uint8_t *buf)
{
    unsigned first = atomic_fetch_add(&r->rr, 1);
    unsigned n = 0;
    int rc = 0;
    /* fast path: every piece from one live copy, one batch */
    for (uint64_t x = s; x < end && rc == 0;) {
        uint64_t ls = 0, run = 0;
        unsigned leg = read_copy_of(r, G, x, first, &ls, &run);
        if (leg == UINT_MAX)
            copy_of(G, x, 0, &ls, &run);
        uint64_t cnt = run < end - x ? run : end - x;
        rc = leg == UINT_MAX ? -EIO
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
        copy_of(G, x, 0, &ls, &run);
        uint64_t cnt = run < end - x ? run : end - x;
        if ((rc = read_piece(io, v, r, G, x, cnt, buf + (x - s) * 512, first)) < 0)
            return rc;
        x += cnt;
    }
    return 0;
}

static int raid_read(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                     const struct lvx_raid_geo *G, uint64_t off, uint32_t len, uint8_t *buf)
{
    uint64_t s = off / 512, end = (off + len) / 512;
    /* regions still out of sync are synced before they are read */
    int rc = raid_sync_gate(io, v, r, s / r->region, (end - 1) / r->region);
    return rc < 0 ? rc : read_geo(io, v, r, G, s, end, buf);
}

/* Add the writes of [s, end) to every live copy in G (only legs in `only` when not
 * ~0). */
static int add_writes(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                      const struct lvx_raid_geo *G, uint64_t s, uint64_t end, uint8_t *buf,
                      uint64_t only, unsigned *n)
{
    int rc = 0;
    for (uint64_t x = s; x < end && rc == 0;) {
        uint64_t ls, run = 0;
        for (unsigned j = 0; j < r->copies && rc == 0; j++) {
            unsigned leg = copy_of(G, x, j, &ls, &run);
            if (!raid_leg_ok(r, leg) || !((only >> leg) & 1))
                continue;
            rc = lvxd_io_map_add(io, v, r->legs[leg].data, true, ls * 512,
                                 (uint32_t)((run < end - x ? run : end - x) * 512),
                                 buf + (x - s) * 512, n);
        }
        x += run < end - x ? run : end - x;
    }
    return rc;
}

/* Every chunk of [s, end) still has a live copy in G? */
static bool covered(const struct raid *r, const struct lvx_raid_geo *G, uint64_t s,
                    uint64_t end)
{
    if (r->copies == r->n) {
        for (unsigned i = 0; i < r->n; i++)
            if (raid_leg_ok(r, i))
                return true;
        return false;
    }
    for (uint64_t x = s; x < end;) {
        uint64_t ls, run = 0;
        bool any = false;
        for (unsigned j = 0; j < r->copies; j++)
            any |= raid_leg_ok(r, copy_of(G, x, j, &ls, &run));
        if (!any)
            return false;
        x += run;
    }
    return true;
}

/* The data of [s, end) to every live copy in G, one batch; when it fails, each leg
 * alone: the failing ones marked failed, the write kept while every chunk has a copy. */
static int write_copies(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                        const struct lvx_raid_geo *G, uint64_t s, uint64_t end, uint8_t *buf)
{
    unsigned n = 0;
    int rc = add_writes(io, v, r, G, s, end, buf, ~(uint64_t)0, &n);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    if (rc == 0)
        return 0;
    pthread_mutex_lock(&r->mu);
    for (unsigned i = 0; i < r->n; i++) {
        unsigned m = 0;
        if (!raid_leg_ok(r, i))
            continue;
        int e = add_writes(io, v, r, G, s, end, buf, (uint64_t)1 << i, &m);
        if (e == 0 && m)
            e = lvxd_io_run(io, m);
        if (e < 0)
            raid_mark_failed_locked(v, r, i, "write error");
    }
    rc = covered(r, G, s, end) ? raid_write_state_locked(io, v, r, false) : -EIO;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

static int raid_write(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                      const struct lvx_raid_geo *G, uint64_t off, uint32_t len, uint8_t *buf)
{
    uint64_t s = off / 512, end = (off + len) / 512;
    uint64_t r0 = s / r->region, r1 = (end - 1) / r->region;
    /* bits first: on disk before the data (raid10's bitmap covers LV sectors: the same
     * regions in either geometry of a reshape) */
    int rc = raid_bits_begin(io, v, r, r0, r1);
    if (rc == 0)
        rc = write_copies(io, v, r, G, s, end, buf);
    raid_bits_end(r, r0, r1);
    return rc;
}

static int raid_piece(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                      const struct lvx_raid_geo *g, bool write, uint64_t off, uint32_t len,
                      uint8_t *buf)
{
    return write ? raid_write(io, v, r, g, off, len, buf) : raid_read(io, v, r, g, off, len, buf);
}

static int raid_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off,
                   uint32_t len, uint8_t *buf)
{
    struct raid *r = raid_of(v);
    if (!r || !r->started)
        return -EIO;
    if (!len)
        return 0;
    struct lvx_raid_geo g0 = geo_of(r);
    if (!r->reshaping)
        return raid_piece(io, v, r, &g0, write, off, len, buf);
    /* a raid10 reshape recorded (docs/reshape-user.md step 6): each piece in the
     * geometry that holds it (raid_rw_pieces) */
    return raid_rw_pieces(io, v, r, write, off, len, buf, &g0, raid_piece);
}

/* A reshape's step (raid_core.h reshape_copy; raid10, either direction): LV sectors
 * [lv0, lv1), inside one chunk of both geometries, read from one copy in A (another
 * copy when it fails) and written to every copy in B, no bitmap bit (md's
 * reshape_request). */
static int mirror_reshape_copy(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                               uint64_t lv0, uint64_t lv1, uint8_t *buf)
{
    int rc = read_geo(io, v, r, &r->rs.a, lv0, lv1, buf);
    return rc < 0 ? rc : write_copies(io, v, r, &r->rs.b, lv0, lv1, buf);
}

/* --- resync --------------------------------------------------------------------- */

/* Copy bitmap regions [g0, g1) of the LV from an in-sync copy to the copies on the
 * legs in `to`. */
static int sync_range(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t g0,
                      uint64_t g1, uint64_t insync, uint64_t to, uint8_t *buf)
{
    uint64_t s = g0 * r->region, end = g1 * r->region < r->sectors ? g1 * r->region : r->sectors;
    struct lvx_raid_geo G = geo_of(r);
    while (s < end) {
        uint64_t cnt = end - s < RAID_COPY_BYTES / 512 ? end - s : RAID_COPY_BYTES / 512;
        uint64_t ls, run;
        copy_of(&G, s, 0, &ls, &run);
        if (run < cnt)
            cnt = run;
        int rc = -EIO;
        for (unsigned j = 0; j < r->copies && rc < 0; j++) {
            unsigned leg = copy_of(&G, s, j, &ls, &run), n = 0;
            if (!((insync >> leg) & 1) || !raid_leg_ok(r, leg))
                continue;
            rc = lvxd_io_map_add(io, v, r->legs[leg].data, false, ls * 512,
                                 (uint32_t)(cnt * 512), buf, &n);
            if (rc == 0 && n)
                rc = lvxd_io_run(io, n);
            if (rc < 0)
                raid_mark_failed_locked(v, r, leg, "read error during resync");
        }
        if (rc < 0) {
            lvxd_log("%s/%s: no in-sync copy of sector %" PRIu64 " left", v->vg, v->lv, s);
            return rc;
        }
        for (unsigned j = 0; j < r->copies; j++) {
            unsigned leg = copy_of(&G, s, j, &ls, &run), n = 0;
            if (!((to >> leg) & 1) || !raid_leg_ok(r, leg))
                continue;
            int e = lvxd_io_map_add(io, v, r->legs[leg].data, true, ls * 512,
                                    (uint32_t)(cnt * 512), buf, &n);
            if (e == 0 && n)
                e = lvxd_io_run(io, n);
            if (e < 0)
                raid_mark_failed_locked(v, r, leg, "write error during resync");
        }
        s += cnt;
    }
    return 0;
}

static bool all_covered(const struct raid *r)
{
    struct lvx_raid_geo g = geo_of(r);
    if (!r->reshaping)
        return covered(r, &g, 0, r->sectors);
    /* the unmoved side in A, the moved side in B (backward: below pos is A's) */
    uint64_t p = r->rs.pos, end = r->rs.old_sectors;
    if (!r->rs.forward)
        return covered(r, &r->rs.a, 0, p) && covered(r, &r->rs.b, p, end);
    return covered(r, &r->rs.a, p, end) && covered(r, &r->rs.b, 0, p);
}

#define CHECK_UNIT 128u         /* sectors md's mirror check compares at once (64 KiB) */

static int read_copy(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, unsigned leg,
                     uint64_t ls, uint64_t cnt, uint8_t *buf, bool write)
{
    unsigned n = 0;
    int rc = lvxd_io_map_add(io, v, r->legs[leg].data, write, ls * 512, (uint32_t)(cnt * 512),
                             buf, &n);
    return rc == 0 && n ? lvxd_io_run(io, n) : rc;
}

/* Check (repair) regions [g0, g1): each 64 KiB of every copy compared with the first
 * copy; a unit that differs counts its sectors; repair writes the first copy over the
 * others (md's raid1/raid10 check and repair). */
static int mirror_check(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t g0,
                        uint64_t g1, bool repair, uint64_t *mism, uint8_t *buf)
{
    uint64_t s = g0 * r->region, end = g1 * r->region < r->sectors ? g1 * r->region : r->sectors;
    uint8_t *ref = buf, *cmp = buf + CHECK_UNIT * 512;
    struct lvx_raid_geo G = geo_of(r);
    while (s < end) {
        uint64_t cnt = CHECK_UNIT - s % CHECK_UNIT, ls, run;
        if (cnt > end - s)
            cnt = end - s;
        unsigned first = copy_of(&G, s, 0, &ls, &run);
        if (run < cnt)
            cnt = run;
        int rc = read_copy(io, v, r, first, ls, cnt, ref, false);
        bool differs = false;
        for (unsigned j = 1; j < r->copies && rc == 0; j++) {
            unsigned leg = copy_of(&G, s, j, &ls, &run);
            if ((rc = read_copy(io, v, r, leg, ls, cnt, cmp, false)) < 0 ||
                memcmp(ref, cmp, cnt * 512) == 0)
                continue;
            differs = true;
            if (repair)
                rc = read_copy(io, v, r, leg, ls, cnt, ref, true);
        }
        if (rc < 0)
            return rc;
        if (differs)
            *mism += cnt;
        s += cnt;
    }
    return 0;
}

static const struct raid_geom mirror_geom = { .sync = sync_range, .covered = all_covered,
                                              .check = mirror_check,
                                              .reshape_copy = mirror_reshape_copy };

const struct lvxd_target lvxd_target_raid = {
    .name = "raid",
    .serves = raid_serves,
    .ctr = raid_ctr,
    .start = raid_core_start,
    .dtr = raid_core_dtr,
    .rw = raid_rw,
    .zero = raid_core_zero,
    .flush = raid_core_flush,
    .status = raid_core_status,
};
