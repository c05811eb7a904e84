/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/raid_core.c - the part of the daemon's RAID targets that does not depend on
 * where the data lives (raid_core.h): the on-disk state kept as the kernel's dm-raid
 * keeps it (model/raid_sb.h, docs/dm-formats.md §2-§3), so that the same disks move
 * between this daemon and LVM2 + the kernel without a full resync.
 *
 *   bitmap   a write's regions have their bits set and written to every live rmeta
 *            before the data goes out; bits are cleared after a flush made the
 *            regions' data durable (regions written meanwhile stay dirty), and all
 *            at a clean stop.
 *   failing  a leg whose I/O fails is marked failed (its bit in the superblocks of
 *            the others, events + 1, as dm-raid does).
 *   start    the superblocks of the present legs are read, the freshest (highest
 *            events) is the array's; legs missing (absent PVs, activation mode
 *            degraded) or failed are left out; dirty bitmap regions (and the whole
 *            array on first use, a stale or absent bitmap, or an interrupted resync)
 *            are resynced by the target's geometry, a leg that comes back after a
 *            failure (or with an older superblock) is rebuilt in full; then every live
 *            superblock and bitmap is written with events + 1.  The resync itself runs
 *            in the background (raid_resync.c): activation returns at once.
 *   read-only activation: nothing is written (no resync, no superblock update); legs
 *            that would be rebuilt are not read (failed in memory).
 *   reshaped an LV a finished reshape left behind (reshape space in each image, LVM2's
 *            RESHAPE flags) is served at the superblocks' data offset (docs/reshape-user.md
 *            step 1); a raid4/5/6 reshape in progress (the kernel's, interrupted) is
 *            served in its two geometries, its superblock fields kept (step 3), and,
 *            read-write, continued to its end by raid_reshape.c's walker (step 4); a
 *            raid10 growth the same way (step 6), its new space resynced after it.
 */
#include "daemon/raid_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"

void raid_core_free(struct raid *r)
{
    if (!r)
        return;
    for (unsigned i = 0; i < r->n; i++)
        free(r->legs[i].sbuf);
    free(r->area);
    free(r->pending);
    free(r->touched);
    free(r->cand);
    free(r->need);
    free(r->wtouch);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    for (unsigned i = 0; i < 64; i++)
        pthread_rwlock_destroy(&r->stripe_mu[i]);
    free(r);
}

int raid_core_new(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                  bool partial, const struct raid_geom *geom, struct raid **out)
{
    *out = NULL;
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
    /* a reshape (LVM2's, in the kernel) leaves reshape space in each image and the
     * data at an offset only the superblocks know; one that changes the image set and
     * is not completed (its flags on the images) is not served */
    char why[160];
    unsigned leaving = lvx_raid_images_leaving(seg);
    if (leaving && (!t || !t->parity))
        snprintf(why, sizeof(why), "images flagged to be taken out by a reshape");
    if ((leaving && (!t || !t->parity)) || lvx_raid_reshape_pending(lv, why, sizeof(why)))
        return lvx_error(ctx, ENOTSUP, "RAID LV %s/%s: %s: its reshape is not completed; the "
                         "user-space backend serves a RAID LV once its reshape has ended "
                         "(activate it with the dm backend).", lv->vg->name, lv->name, why);
    if (!t || t->raid0 || !t->meta)
        return lvx_error(ctx, ENOTSUP, "Activation of RAID LV %s/%s (%s) is not supported by "
                         "the user-space backend yet (raid1, raid10, raid4, raid5 and raid6 "
                         "zr/nr are).",
                         lv->vg->name, lv->name, seg->type_name ? seg->type_name : "?");
    if (seg->area_count < 2 || seg->area_count > RAID_MAX_LEGS)
        return lvx_error(ctx, EINVAL, "RAID LV %s/%s: %u images (2 to %u served).",
                         lv->vg->name, lv->name, seg->area_count, RAID_MAX_LEGS);
    uint32_t e = lv->vg->extent_size;
    struct raid *r = calloc(1, sizeof(*r) + seg->area_count * sizeof(struct raid_leg));
    if (!r)
        return lvx_error(ctx, ENOMEM, "Out of memory loading %s/%s.", lv->vg->name, lv->name);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->max_rate = seg->max_recovery_rate;
    for (unsigned i = 0; i < 64; i++)
        pthread_rwlock_init(&r->stripe_mu[i], NULL);
    r->type = t;
    r->geom = geom;
    snprintf(r->dm_name, sizeof(r->dm_name), "%s", t->dm_name);
    r->n = r->an = seg->area_count;
    r->leaving = leaving;
    /* reshape space: in each image beside the data (before or after it: the
     * superblocks' data_offset says), left out of the LV's size */
    r->sectors = (lv->le_count - lvx_raid_reshape_extents(seg)) * (uint64_t)e;
    r->io_sectors = r->sectors;
    r->image_sectors = seg->areas[0].lv->le_count * (uint64_t)e;
    r->leg_sectors = r->image_sectors - (uint64_t)seg->reshape_count * e;
    r->data_offset = 0;
    if (lvx_raid_reshape_state(lv, why, sizeof(why)))
        snprintf(r->reshaped, sizeof(r->reshaped), "%s", why);
    if (seg->reshape_count && seg->reshape_count >= seg->areas[0].lv->le_count)
        rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: reshape space of %u extents in images of "
                       "%" PRIu64 ".", lv->vg->name, lv->name, seg->reshape_count,
                       (uint64_t)seg->areas[0].lv->le_count);
    r->region = seg->region_size ? seg->region_size : LVX_RAID_DEFAULT_REGION;
    r->lv_per_bm = 1;
    if (r->region < 8 || (r->region & (r->region - 1)))
        rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: region size %u is not a power of two of "
                       "at least 4 KiB.", lv->vg->name, lv->name, r->region);
    for (unsigned i = 0; rc == 0 && i < r->n; i++) {
        struct raid_leg *g = &r->legs[i];
        struct lvx_map_prepared *m;
        if (posix_memalign((void **)&g->sbuf, 4096, RAID_SB_BYTES)) {
            rc = lvx_error(ctx, ENOMEM, "Out of memory loading %s/%s.", lv->vg->name, lv->name);
            break;
        }
        /* a raid1 image split off with --trackchanges (visible, read-only) is served
         * as an LV of its own: here absent, as dm-raid's "- -" slot (its superblock
         * untouched, failed in the others'), rebuilt when it is merged back */
        const struct lvx_lv *img = seg->areas[i].lv;
        bool tracked = img && !strcmp(t->name, "raid1") && (img->status & LVX_LV_VISIBLE) &&
                       !(img->status & LVX_LV_WRITE);
        if (lvx_map_raid_image_missing(seg, i) || lvx_map_raid_image_error(seg, i) || tracked) {
            g->absent = true;          /* missing PV, or an error image (dm-raid: failed) */
            atomic_store(&g->failed, true);
            continue;
        }
        g->writemostly = !strcmp(r->type->name, "raid1") &&
                         (seg->areas[i].lv->status & LVX_LV_WRITEMOSTLY);
        g->table_rebuild = (seg->areas[i].lv->status & LVX_LV_REBUILD) != 0;
        if (seg->areas[i].lv->le_count * (uint64_t)e != r->image_sectors)
            rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: images of different sizes.",
                           lv->vg->name, lv->name);
        if (rc == 0 && (rc = lvx_map_prepare(ctx, pool, seg->areas[i].lv, 0, &m)) == 0)
            g->data = m;
        if (rc == 0 && (rc = lvx_map_prepare(ctx, pool, seg->meta_areas[i].lv, 0, &m)) == 0)
            g->meta = m;
    }
    if (rc < 0) {
        raid_core_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

int raid_core_alloc(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct raid *r)
{
    r->regions = (r->sync_size + r->region - 1) / r->region;
    r->area_bytes = lvx_raid_bm_area_bytes(r->regions);
    if (posix_memalign((void **)&r->area, 4096, r->area_bytes) ||
        !(r->pending = calloc(r->regions, sizeof(*r->pending))) ||
        !(r->touched = calloc(r->regions, 1)) || !(r->cand = calloc(r->regions, 1)) ||
        !(r->need = calloc(r->regions, 1)) || !(r->wtouch = calloc(r->regions, 1)))
        return lvx_error(ctx, ENOMEM, "Out of memory loading %s/%s.", lv->vg->name, lv->name);
    const struct lvx_seg *seg = &lv->segs[0];
    for (unsigned i = 0; i < r->n; i++)
        if (r->legs[i].meta &&
            lvx_map_prepared_sectors(r->legs[i].meta) * 512 < RAID_SB_BYTES + r->area_bytes)
            return lvx_error(ctx, EINVAL, "RAID LV %s/%s: rmeta %s is too small for the bitmap.",
                             lv->vg->name, lv->name, seg->meta_areas[i].lv->name);
    return 0;
}

/* --- rmeta I/O ------------------------------------------------------------------ */

static int meta_add(struct lvxd_io *io, struct lvxd_lv *v, struct raid_leg *g, bool write,
                    uint64_t off, uint32_t len, uint8_t *buf, unsigned *n)
{
    return lvxd_io_map_add(io, v, g->meta, write, off, len, buf, n);
}

void raid_mark_failed_locked(struct lvxd_lv *v, struct raid *r, unsigned i, const char *why)
{
    if (atomic_exchange(&r->legs[i].failed, true))
        return;
    lvx_raid_sb_set_failed(&r->sb, i, true);
    lvxd_log("%s/%s: RAID leg %u failed (%s): served from the other legs", v->vg, v->lv, i,
             why);
    lvxd_monitor_kick();                    /* a monitored RAID LV: its policy (monitor.c) */
}

/* The PVs only failed legs use (degraded): they hold nothing the array still needs
 * (legs_flush.c).  A flush failure on a live leg's PV stands (md's own rules). */
static uint64_t raid_gone_pvs(void *arg, int failed_pv)
{
    const struct raid *r = arg;
    if (!raid_degraded(r))
        return 0;
    uint64_t gone = 0, live = 0;
    for (unsigned i = 0; i < r->n; i++)
        *(raid_leg_ok(r, i) ? &live : &gone) |=
            lvxd_map_pv_bits(r->legs[i].data) | lvxd_map_pv_bits(r->legs[i].meta);
    return gone & ~live;
}

int raid_flush_pvs(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r)
{
    return lvxd_io_flush_live_pvs(io, v, raid_gone_pvs, r);
}

/* Write the superblock (events + 1) and the whole bitmap area to every live leg;
 * legs whose write fails are marked failed and the others written again.  mu held. */
int raid_write_state_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, bool clean)
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
            struct raid_leg *g = &r->legs[i];
            if (!raid_leg_ok(r, i))
                continue;
            struct lvx_raid_sb s = r->sb;
            s.array_position = i;
            /* a leg being rebuilt records how far: a crash resumes its rebuild there */
            s.disk_recovery_offset = (r->rebuild >> i) & 1 ? raid_recovery_offset_locked(r)
                                     : r->reshaping ? g->sb.disk_recovery_offset
                                                    : LVX_RAID_MAX_SECTOR;
            s.array_resync_offset = raid_resync_offset_locked(r);
            lvx_raid_sb_encode(&s, g->sbuf, RAID_SB_BYTES);
            live++;
            if ((rc = meta_add(io, v, g, true, 0, RAID_SB_BYTES, g->sbuf, &n)) == 0)
                rc = meta_add(io, v, g, true, RAID_SB_BYTES, (uint32_t)r->area_bytes, r->area,
                              &n);
        }
        if (!live)
            return -EIO;
        if (rc == 0 && (!n || (rc = lvxd_io_run(io, n)) == 0))
            return 0;
        /* find the legs that fail, one at a time */
        bool any = false;
        for (unsigned i = 0; i < r->n; i++) {
            struct raid_leg *g = &r->legs[i];
            unsigned m = 0;
            if (!raid_leg_ok(r, i))
                continue;
            int e = meta_add(io, v, g, true, 0, RAID_SB_BYTES, g->sbuf, &m);
            if (e == 0)
                e = meta_add(io, v, g, true, RAID_SB_BYTES, (uint32_t)r->area_bytes, r->area, &m);
            if (e == 0 && m)
                e = lvxd_io_run(io, m);
            if (e < 0) {
                raid_mark_failed_locked(v, r, i, "superblock write failed");
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
        if (raid_leg_ok(r, i))
            rc = meta_add(io, v, &r->legs[i], true, RAID_SB_BYTES + first * 4096, len,
                          r->area + first * 4096, &n);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    if (rc < 0) {                /* a leg failing: the superblocks say so, bits included */
        for (unsigned i = 0; i < r->n; i++) {
            unsigned m = 0;
            if (!raid_leg_ok(r, i))
                continue;
            int e = meta_add(io, v, &r->legs[i], true, RAID_SB_BYTES + first * 4096, len,
                             r->area + first * 4096, &m);
            if ((e == 0 && m && (e = lvxd_io_run(io, m)) < 0) || e < 0)
                raid_mark_failed_locked(v, r, i, "bitmap write failed");
        }
        rc = raid_write_state_locked(io, v, r, false);
    }
    return rc;
}

static size_t page_of(uint64_t region)
{
    return (LVX_RAID_BM_SB_SIZE + region / 8) / 4096;
}

/* Set region g's bit to on in the in-memory bitmap and widen [*pfirst, *plast] to the
 * bitmap page that holds it (the pages to write). */
static void bit_set_span(struct raid *r, uint64_t g, bool on, size_t *pfirst, size_t *plast)
{
    lvx_raid_bm_set(r->area, g, on);
    size_t p = page_of(g);
    *pfirst = p < *pfirst ? p : *pfirst;
    *plast = p > *plast ? p : *plast;
}

int raid_bits_begin(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t r0,
                    uint64_t r1)
{
    pthread_mutex_lock(&r->mu);
    int rc = raid_sync_gate_locked(io, v, r, r0, r1);
    size_t pfirst = SIZE_MAX, plast = 0;
    for (uint64_t g = r0; g <= r1; g++) {
        r->pending[g]++;
        r->touched[g] = 1;
        r->wtouch[g] = 1;
        if (!lvx_raid_bm_bit(r->area, g))
            bit_set_span(r, g, true, &pfirst, &plast);
    }
    if (pfirst != SIZE_MAX && rc == 0)
        rc = write_pages_locked(io, v, r, pfirst, plast);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void raid_bits_end(struct raid *r, uint64_t r0, uint64_t r1)
{
    pthread_mutex_lock(&r->mu);
    for (uint64_t g = r0; g <= r1; g++)
        r->pending[g]--;
    pthread_mutex_unlock(&r->mu);
}

const struct lvxd_target *raid_target_of(const struct lvxd_lv *v)
{
    void *state = NULL;
    const struct lvxd_target *t = v->target;
    if (t == &lvxd_target_origin)
        t = lvxd_origin_inner(v, &state);
    return t && t->start == raid_core_start ? t : NULL;
}

struct raid *raid_of(const struct lvxd_lv *v)
{
    void *state = v->tstate;
    const struct lvxd_target *t = v->target;
    if (t == &lvxd_target_origin)
        t = lvxd_origin_inner(v, &state);
    return t && t->start == raid_core_start ? state : NULL;
}

/* Zeroing: written as zeroes through the target's write path (bitmap and legs). */
int raid_core_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    uint8_t *z;
    if (posix_memalign((void **)&z, 4096, RAID_COPY_BYTES))
        return -ENOMEM;
    memset(z, 0, RAID_COPY_BYTES);
    int rc = 0;
    while (len && rc == 0) {
        uint32_t m = len < RAID_COPY_BYTES ? (uint32_t)len : RAID_COPY_BYTES;
        rc = raid_target_of(v)->rw(io, v, true, off, m, z);
        off += m;
        len -= m;
    }
    free(z);
    return rc;
}

/* Data durable first, then the bits of regions with nothing in flight and not
 * written since the flush began are cleared (lazily: not flushed themselves). */
int raid_core_flush(struct lvxd_io *io, struct lvxd_lv *v)
{
    struct raid *r = raid_of(v);
    if (!r || !r->started)
        return -EIO;
    bool any = false;
    pthread_mutex_lock(&r->mu);
    for (uint64_t g = 0; g < r->regions; g++) {
        r->cand[g] = lvx_raid_bm_bit(r->area, g) && !r->pending[g] && !r->need[g];
        r->touched[g] = 0;
        any |= r->cand[g];
    }
    pthread_mutex_unlock(&r->mu);
    int rc = raid_flush_pvs(io, v, r);
    if (rc < 0 || !any || v->read_only || raid_degraded(r))
        return rc;
    pthread_mutex_lock(&r->mu);
    size_t pfirst = SIZE_MAX, plast = 0;
    for (uint64_t g = 0; g < r->regions; g++)
        if (r->cand[g] && !r->pending[g] && !r->touched[g])
            bit_set_span(r, g, false, &pfirst, &plast);
    if (pfirst != SIZE_MAX)
        rc = write_pages_locked(io, v, r, pfirst, plast);
    pthread_mutex_unlock(&r->mu);
    return rc;
}

/* --- start: superblocks, bitmap, resync ------------------------------------------ */

static int read_legs(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint8_t *areas)
{
    for (unsigned i = 0; i < r->n; i++) {
        struct raid_leg *g = &r->legs[i];
        if (g->absent)
            continue;
        unsigned n = 0;
        uint8_t *a = areas + i * r->area_bytes;
        int rc = meta_add(io, v, g, false, 0, RAID_SB_BYTES, g->sbuf, &n);
        if (rc == 0)
            rc = meta_add(io, v, g, false, RAID_SB_BYTES, (uint32_t)r->area_bytes, a, &n);
        if (rc == 0 && n)
            rc = lvxd_io_run(io, n);
        if (rc < 0) {
            raid_mark_failed_locked(v, r, i, "superblock read failed");
            continue;
        }
        g->has_sb = lvx_raid_sb_decode(g->sbuf, RAID_SB_BYTES, &g->sb);
    }
    return 0;
}

/* Leg superblock s is the round of a reshape before the freshest b (docs/reshape-user.md
 * §3.4: a crash inside a checkpoint, F1 or F2 leaves some legs one round behind): the
 * events one below, a reshape recorded in s, the same new geometry and new offset, and
 * (b finished, F2) the data offset b's.  Such a leg is current: the start's superblock
 * writes complete the round from b. */
static bool half_round(const struct lvx_raid_sb *s, const struct lvx_raid_sb *b)
{
    if (raid_reshape_s1_of(s, b))       /* the start's S2 half-written */
        return true;
    return s->events + 1 == b->events && (s->flags & LVX_RAID_SB_RESHAPE_ACTIVE) &&
           s->num_devices == b->num_devices && s->new_level == b->new_level &&
           s->new_layout == b->new_layout && s->new_stripe_sectors == b->new_stripe_sectors &&
           s->new_data_offset == b->new_data_offset &&
           ((b->flags & LVX_RAID_SB_RESHAPE_ACTIVE) || s->data_offset == b->data_offset);
}

/* A reshape recorded in the freshest superblock (image `best`), parity RAID: taken as
 * md left it (model/raid_reshape.h), its new geometry the metadata's, every leg
 * current and in sync, its bitmap clean, then served frozen (no walker yet: the
 * kernel goes on with it at its next activation).  Sets r->rs.  mu held. */
static int reshape_taken(struct lvx_ctx *ctx, struct lvxd_lv *v, struct raid *r, int best,
                         uint32_t layout)
{
    const struct lvx_raid_sb *b = &r->legs[best].sb;
    const char *why = NULL;
    char buf[96];
    /* raid10's F1 (both offsets at the new place, the end recorded) fails md's own
     * start ("offset difference not enough"): only this daemon finishes it (§3.4) */
    if (r->copies == r->n)
        why = "the user-space backend serves raid4/5/6 and raid10 reshapes in progress only";
    else if (!(why = lvx_reshape_from_sb(&r->rs, b, r->leg_sectors)) &&
             (r->parity || r->rs.a.data_offset != r->rs.b.data_offset))
        why = lvx_reshape_start_check(&r->rs, true);
    if (!why) {
        /* a stripe removal: B without the images flagged to be taken out */
        unsigned want = r->n - (r->rs.delta_disks < 0 ? r->leaving : 0);
        if (r->rs.b.legs != want || r->rs.a.legs > r->n || r->rs.b.layout != layout ||
            r->rs.b.chunk != r->stripe_sectors ||
            (r->leaving && r->rs.delta_disks != -(int)r->leaving))
            why = "its new geometry is not the metadata's";
        else if ((r->rs.a.data_offset > r->rs.b.data_offset ? r->rs.a.data_offset
                                                            : r->rs.b.data_offset) +
                 r->leg_sectors > r->image_sectors)
            why = "its data offsets put the data past the images";
    }
    uint64_t out = 0;                    /* legs missing, failed or behind */
    for (unsigned i = 0; !why && i < r->n; i++) {
        const struct lvx_raid_sb *s = &r->legs[i].sb;
        bool half = r->legs[i].has_sb && !lvx_raid_sb_failed(b, i) && half_round(s, b);
        if (!raid_leg_ok(r, i) || !r->legs[i].has_sb || lvx_raid_sb_failed(b, i) ||
            (s->events != b->events && !half)) {
            out |= (uint64_t)1 << i;
        } else if (half) {
            /* its data offset may be the previous round's (F1 moves it): b's counts */
            lvxd_log("%s/%s: image %u is one superblock round behind (reshape_position %"
                     PRIu64 "): the round is completed", v->vg, v->lv, i, s->reshape_position);
        } else if (s->data_offset != b->data_offset || s->new_data_offset != b->new_data_offset) {
            snprintf(buf, sizeof(buf), "image %u's data offsets (%" PRIu64 ", new %" PRIu64
                     ") differ from image %d's", i, s->data_offset, s->new_data_offset, best);
            why = buf;
        }
    }
    if (!why && out && !r->parity) {
        snprintf(buf, sizeof(buf), "%d images are missing or behind (a raid10 reshape is not "
                 "continued degraded here)", __builtin_popcountll(out));
        why = buf;
    } else if (!why && (unsigned)__builtin_popcountll(out) > r->parity) {
        snprintf(buf, sizeof(buf), "%d images are missing or behind, more than its parity "
                 "covers", __builtin_popcountll(out));
        why = buf;
    }
    if (why)
        return lvx_error(ctx, EBUSY, "RAID LV %s/%s: a reshape in progress (the superblock of "
                         "image %d: reshape_position %" PRIu64 ", delta_disks %d): %s; not "
                         "served (activate it with the dm backend: the kernel goes on with it).",
                         v->vg, v->lv, best, b->reshape_position == LVX_RAID_MAX_SECTOR ? 0 :
                         b->reshape_position, b->delta_disks, why);
    /* degraded (docs/reshape-user.md §3.6, step 7): as md's raid5/6, the reshape goes on
     * without them, their chunks rebuilt from parity; a leg behind holds rows of an
     * earlier position and is not read: rebuilt (in B) once the reshape has ended */
    for (unsigned i = 0; i < r->n; i++)
        if ((out >> i) & 1) {
            bool gone = !raid_leg_ok(r, i) || !r->legs[i].has_sb;
            raid_mark_failed_locked(v, r, i, gone ? "missing" : "behind the reshape");
            lvxd_log("%s/%s: image %u is %s: the reshape goes on degraded, the image is "
                     "rebuilt after its end", v->vg, v->lv, i, gone ? "missing" : "behind");
        }
    r->reshaping = true;
    r->data_offset = b->data_offset;
    r->io_sectors = b->array_sectors && b->array_sectors < r->sectors ? b->array_sectors
                                                                       : r->sectors;
    lvxd_log("%s/%s: a reshape in progress at sector %" PRIu64 " (%s, %u -> %u legs, chunk %"
             PRIu64 " -> %" PRIu64 ", data at %" PRIu64 " -> %" PRIu64 "): served frozen, %"
             PRIu64 " sectors", v->vg, v->lv, r->rs.pos, r->rs.forward ? "forward" : "backward",
             r->rs.a.legs, r->rs.b.legs, r->rs.a.chunk, r->rs.b.chunk, r->rs.a.data_offset,
             r->rs.b.data_offset, r->io_sectors);
    return 0;
}

/* The freshest superblock (image `best`) against a reshape: one in progress is
 * reshape_taken's; after one (or for any array) the data offset is the superblocks',
 * the same on every leg that is current, with the data inside the image beside its
 * reshape space.  Sets r->data_offset.  mu held. */
static int reshape_ended(struct lvx_ctx *ctx, struct lvxd_lv *v, struct raid *r, int best,
                         uint32_t layout)
{
    const struct lvx_raid_sb *b = &r->legs[best].sb;
    r->io_sectors = r->sectors;
    if ((b->flags & 1) || b->reshape_position != LVX_RAID_MAX_SECTOR || b->delta_disks)
        return reshape_taken(ctx, v, r, best, layout);
    if (r->leaving && b->num_devices != r->n - r->leaving)
        return lvx_error(ctx, EINVAL, "RAID LV %s/%s: %u images flagged to be taken out by a "
                         "reshape, and its superblocks record no reshape and %u devices: not "
                         "served.", v->vg, v->lv, r->leaving, b->num_devices);
    if (r->leaving) {
        /* a stripe removal's reshape ended (the second lvconvert --stripes still to
         * run): the array is the first n - leaving legs at the smaller size md
         * recorded; the last images stay current, unread */
        r->an = b->num_devices;
        if (b->array_sectors && b->array_sectors < r->sectors)
            r->io_sectors = b->array_sectors;
        lvxd_log("%s/%s: a stripe removal ended: %u of %u legs, %" PRIu64 " sectors; images %u-%u "
                 "are to be taken out", v->vg, v->lv, r->an, r->n, r->io_sectors, r->an, r->n - 1);
    }
    for (unsigned i = 0; i < r->n; i++) {
        const struct lvx_raid_sb *s = &r->legs[i].sb;
        if (!raid_leg_ok(r, i) || !r->legs[i].has_sb || s->events != b->events)
            continue;
        if (s->data_offset != b->data_offset || s->new_data_offset != b->data_offset)
            return lvx_error(ctx, EINVAL, "RAID LV %s/%s: the superblock of image %u puts its "
                             "data at sector %" PRIu64 " (new %" PRIu64 "), image %d's at %"
                             PRIu64 ": not served.", v->vg, v->lv, i, s->data_offset,
                             s->new_data_offset, best, b->data_offset);
    }
    if (b->data_offset + r->leg_sectors > r->image_sectors)
        return lvx_error(ctx, EINVAL, "RAID LV %s/%s: the superblocks put its data at sector %"
                         PRIu64 " of images of %" PRIu64 " sectors with %" PRIu64 " of reshape "
                         "space: not served.", v->vg, v->lv, b->data_offset, r->image_sectors,
                         r->image_sectors - r->leg_sectors);
    if (b->data_offset || r->reshaped[0])
        lvxd_log("%s/%s: reshaped (%s): its data at sector %" PRIu64 " of each image", v->vg,
                 v->lv, r->reshaped[0] ? r->reshaped : "a data offset", b->data_offset);
    r->data_offset = b->data_offset;
    return 0;
}

/* The live leg with the freshest superblock, -1 when none has one. */
static int freshest(const struct raid *r)
{
    int best = -1;
    for (unsigned i = 0; i < r->n; i++)
        if (raid_leg_ok(r, i) && r->legs[i].has_sb &&
            (best < 0 || r->legs[i].sb.events > r->legs[best].sb.events))
            best = (int)i;
    return best;
}

static int start_io(struct lvx_ctx *ctx, struct lvxd_io *io, struct lvxd_lv *v,
                    struct raid *r, uint8_t *areas)
{
    read_legs(io, v, r, areas);
    int best = freshest(r);
    uint32_t level, layout;
    lvx_raid_md_level(r->dm_name, r->copies, &level, &layout);
    /* raidreshape: the reshape's start written (raid_reshape_start.c), then taken as
     * a recorded one */
    if (r->start_req) {
        int rc = raid_reshape_begin_locked(ctx, io, v, r, best, level, layout, areas);
        if (rc < 0)
            return rc;
        read_legs(io, v, r, areas);
        best = freshest(r);
    }
    bool full = best < 0;                /* first use: every leg new */
    if (full && r->reshaped[0])
        return lvx_error(ctx, EINVAL, "RAID LV %s/%s: %s and no dm-raid superblock that says "
                         "where its data is: not served.", v->vg, v->lv, r->reshaped);
    uint64_t cleared = 0;                /* the bitmap's events_cleared on disk */
    if (best >= 0) {
        struct lvx_raid_sb nb = r->legs[best].sb;
        const struct lvx_raid_sb *b = &nb;
        const char *bad = NULL;
        int rc;
        /* md's record of a reshape that ended without its geometry reset (no reshape
         * active, new_* recorded): the new geometry, as dm-raid takes it
         * (rs_reset_inconclusive_reshape) */
        if (!(nb.flags & 1) && nb.reshape_position == LVX_RAID_MAX_SECTOR && !nb.delta_disks &&
            (nb.compat_features & 1) && (nb.new_level != nb.level || nb.new_layout != nb.layout ||
                                         nb.new_stripe_sectors != nb.stripe_sectors)) {
            lvxd_log("%s/%s: the superblocks record a reshape that ended: md level %u layout "
                     "%u, %u sectors a chunk taken", v->vg, v->lv, nb.new_level, nb.new_layout,
                     nb.new_stripe_sectors);
            nb.level = nb.new_level;
            nb.layout = nb.new_layout;
            nb.stripe_sectors = nb.new_stripe_sectors;
        }
        /* another level: a takeover by lvconvert (the data in place, parity or Q
         * images added or taken off, moved); the kernel's md takes it over, the daemon
         * resyncs it fully.  Another layout or number of devices at the same level
         * (raid1 aside: -m N) would be a reshape: refused, but for raid4 <-> raid5_n
         * (md's raid5 with its parity on the first or the last leg) */
        bool rsh = nb.flags & 1;         /* a reshape in progress: new_* is B, the LV's */
        bool takeover = !rsh && (b->level != level ||
                                 (level == 5 && b->num_devices == r->n && b->layout != layout &&
                                  (b->layout == 4 || b->layout == 5) &&
                                  (layout == 4 || layout == 5)));
        if (b->incompat_features || (b->compat_features & ~1u))
            bad = "unknown feature flags";
        else if (!takeover && b->num_devices != r->n && level != 1 &&
                 !(r->leaving && b->num_devices == r->n - r->leaving))
            bad = "another number of devices";
        else if (!takeover && (rsh ? b->new_layout : b->layout) != layout)
            bad = "another RAID level or layout";
        else if (!takeover && r->stripe_sectors &&
                 (rsh ? b->new_stripe_sectors : b->stripe_sectors) != r->stripe_sectors)
            bad = "another stripe size";
        /* the metadata of a reshape beside superblocks that record none: the start
         * of a reshape was interrupted before its second round (docs/reshape-user.md
         * §3.5, §10) */
        bool half_start = !rsh && r->reshaped[0] && (bad || b->data_offset != b->new_data_offset);
        if (half_start)
            return lvx_error(ctx, EINVAL, "RAID LV %s/%s: a reshape's start was interrupted: "
                             "its metadata records the reshape (%s), the superblock of image "
                             "%d none (%s, data_offset %" PRIu64 ", new_data_offset %" PRIu64
                             "): not served.", v->vg, v->lv, r->reshaped, best,
                             bad ? bad : "the first round written", b->data_offset,
                             b->new_data_offset);
        if (bad)
            return lvx_error(ctx, EINVAL, "RAID LV %s/%s: the superblock of image %d says %s: "
                             "not served.", v->vg, v->lv, best, bad);
        if ((rc = reshape_ended(ctx, v, r, best, layout)) < 0)
            return rc;
        if (takeover) {
            lvxd_log("%s/%s: taken over from md level %u layout %u, %u devices: full resync",
                     v->vg, v->lv, b->level, b->layout, b->num_devices);
            full = true;
        }
        r->sb = *b;
        bool any_rebuild = false;
        for (unsigned i = 0; i < r->n; i++) {
            struct raid_leg *g = &r->legs[i];
            if (!raid_leg_ok(r, i))
                continue;
            /* raid1 with images added or taken out (lvconvert -m): the failed bits
             * name the old positions, so only the events count (a leg that failed
             * missed the later writes) and the leg's own state say it is behind */
            bool same_set = b->num_devices == r->n;
            bool half = g->has_sb && g->sb.events < b->events && half_round(&g->sb, b);
            bool behind = !g->has_sb || (g->sb.events < b->events && !half) ||
                          (same_set && lvx_raid_sb_failed(b, i));
            if (half && !r->reshaping)  /* F1 left on this leg, F2 on the freshest */
                lvxd_log("%s/%s: image %u is one superblock round behind (reshape_position %"
                         PRIu64 "): the round is completed", v->vg, v->lv, i,
                         g->sb.reshape_position);
            g->rebuild = behind || (g->sb.disk_recovery_offset != LVX_RAID_MAX_SECTOR &&
                                    !r->reshaping);
            /* md's re-add: a raid1 leg that left in sync (its own superblock said so)
             * after the bitmap last cleared a bit misses only the regions whose bits
             * are set (checked against the bitmap below) */
            g->by_bitmap = behind && g->has_sb && same_set && r->copies == r->n &&
                           g->sb.disk_recovery_offset == LVX_RAID_MAX_SECTOR &&
                           g->sb.array_resync_offset == LVX_RAID_MAX_SECTOR &&
                           !lvx_raid_sb_failed(&g->sb, i);
            /* a rebuild interrupted (here or in the kernel) goes on from its offset */
            uint64_t from = behind || !g->rebuild ? 0 :
                            raid_recovery_from_leg(r, g->sb.disk_recovery_offset);
            if (g->rebuild && from)
                lvxd_log("%s/%s: recovery of RAID leg %u resumed at sector %" PRIu64, v->vg,
                         v->lv, i, g->sb.disk_recovery_offset);
            else if (g->rebuild)
                lvxd_log("%s/%s: RAID leg %u is rebuilt from the others", v->vg, v->lv, i);
            if (g->rebuild && (!any_rebuild || from < r->rebuild_from))
                r->rebuild_from = from;
            any_rebuild |= g->rebuild;
        }
        /* the bitmap of the freshest leg: stale or absent means a full resync */
        const uint8_t *a = areas + (size_t)best * r->area_bytes;
        struct lvx_raid_bm bm;
        if (!lvx_raid_bm_decode(a, &bm) || lvx_raid_bm_invalid(&bm) || bm.events < b->events ||
            (bm.state & LVX_RAID_BM_STALE) || bm.chunksize != r->region * 512u)
            full = true;
        else
            memcpy(r->area, a, r->area_bytes);
        /* the legs to rebuild by the bitmap alone: every one qualifies, none cleared a
         * bit since it left, and the array was in sync */
        r->rebuild_by_bitmap = any_rebuild && !full &&
                               b->array_resync_offset == LVX_RAID_MAX_SECTOR;
        for (unsigned i = 0; i < r->n; i++) {
            struct raid_leg *g = &r->legs[i];
            if (raid_leg_ok(r, i) && g->rebuild &&
                (!g->by_bitmap || g->sb.events < bm.events_cleared))
                r->rebuild_by_bitmap = false;
        }
        cleared = bm.events_cleared;
        if (r->rebuild_by_bitmap)
            lvxd_log("%s/%s: the legs come back in the bitmap's range: only the regions of "
                     "the bitmap are rebuilt", v->vg, v->lv);
        /* a resync interrupted (or never done): with a valid bitmap resumed from its
         * recorded offset (the kernel's: its dirty regions below it too), or by the
         * bitmap when the offset is 0 (this daemon's record: the regions left keep
         * their bits; a new kernel array's bitmap has every bit set); from 0 without */
        if (b->array_resync_offset != LVX_RAID_MAX_SECTOR && !full) {
            r->full = true;
            uint64_t from = b->array_resync_offset;
            if (from)
                for (uint64_t g = from / r->region; g < r->regions; g++)
                    lvx_raid_bm_set(r->area, g, true);
            else
                while (from / r->region < r->regions && !lvx_raid_bm_bit(r->area, from / r->region))
                    from += r->region;
            if (from)
                lvxd_log("%s/%s: resync resumed at sector %" PRIu64, v->vg, v->lv, from);
        } else if (b->array_resync_offset != LVX_RAID_MAX_SECTOR) {
            full = true;
        }
        /* a reshape is served only clean: its resync (md's, after the reshape) and
         * rebuilds are the walker's steps (docs/reshape-user.md §3.6) */
        if (r->reshaping && (full || any_rebuild || b->array_resync_offset != LVX_RAID_MAX_SECTOR))
            return lvx_error(ctx, EBUSY, "RAID LV %s/%s: a reshape in progress with %s: not "
                             "served (activate it with the dm backend).", v->vg, v->lv,
                             any_rebuild ? "images to rebuild" : "a resync pending");
        /* degraded, the bits are the record of the writes a missing leg lacks (as md:
         * never cleared while degraded), not a resync's: they stay, unused */
        for (uint64_t g = 0; r->reshaping && !raid_degraded(r) && g < r->regions; g++)
            if (lvx_raid_bm_bit(r->area, g))
                return lvx_error(ctx, EBUSY, "RAID LV %s/%s: a reshape in progress with dirty "
                                 "regions in its bitmap: not served (activate it with the dm "
                                 "backend).", v->vg, v->lv);
        if (b->array_sectors && b->array_sectors < r->sectors && !full && !r->reshaping &&
            r->an == r->n)
            for (uint64_t g = b->array_sectors / r->lv_per_bm / r->region; g < r->regions; g++)
                lvx_raid_bm_set(r->area, g, true);     /* extended since */
        r->sb.failed[0] = r->sb.failed[1] = r->sb.failed[2] = r->sb.failed[3] = 0;
    } else {
        memset(&r->sb, 0, sizeof(r->sb));
        r->sb.events = 0;
        /* no superblock yet, some raid1 images flagged to rebuild and others not (LVM2's
         * linear -> raid1: the linear LV is image 0): as dm-raid, the others are in
         * sync and the flagged ones are recovered from them ("recover", not "resync") */
        unsigned flagged = 0, live = 0;
        for (unsigned i = 0; i < r->n; i++)
            if (raid_leg_ok(r, i)) {
                live++;
                flagged += r->legs[i].table_rebuild;
            }
        if (level == 1 && flagged && flagged < live) {
            full = false;
            for (unsigned i = 0; i < r->n; i++)
                if (raid_leg_ok(r, i) && r->legs[i].table_rebuild) {
                    r->legs[i].rebuild = true;
                    lvxd_log("%s/%s: new RAID set: leg %u is rebuilt from the others", v->vg,
                             v->lv, i);
                }
            memset(r->area, 0, r->area_bytes);
        } else {
            lvxd_log("%s/%s: new RAID set: full initial sync", v->vg, v->lv);
        }
    }
    if (full) {
        memset(r->area, 0, r->area_bytes);
        for (uint64_t g = 0; g < r->regions; g++)
            lvx_raid_bm_set(r->area, g, true);
    }
    /* the array's superblock as dm-raid writes it (a reshape's fields as md left them:
     * its geometries, position, direction, offsets, array size and `sectors`) */
    r->sb.compat_features = 1;
    if (!r->reshaping) {
        r->sb.num_devices = r->an;
        r->sb.level = r->sb.new_level = level;
        r->sb.layout = r->sb.new_layout = layout;
        r->sb.stripe_sectors = r->sb.new_stripe_sectors = r->stripe_sectors;
        r->sb.flags = 0;
        r->sb.reshape_position = LVX_RAID_MAX_SECTOR;
        r->sb.delta_disks = 0;
        r->sb.array_sectors = r->io_sectors;
        r->sb.data_offset = r->sb.new_data_offset = r->data_offset;
        /* each leg's data sectors, the rimage less its reshape space: what dm-raid writes
         * after its next activation (md's end of a reshape leaves another value, 0 after a
         * backward one, which dm-raid then refuses: "Invalid rdev size"; t0785) */
        r->sb.sectors = r->leg_sectors;
    }
    r->sb.incompat_features = 0;
    r->sb.array_resync_offset = LVX_RAID_MAX_SECTOR;
    for (unsigned i = 0; i < r->n; i++)
        if (!raid_leg_ok(r, i))
            lvx_raid_sb_set_failed(&r->sb, i, true);
    r->bm.version = 4;
    /* degraded: the bits stay, and so does the record of when they were last cleared */
    r->bm.events_cleared = raid_degraded(r) && !full && cleared ? cleared : r->sb.events;
    r->bm.sync_size = r->sync_size;
    r->bm.state = 0;
    r->bm.chunksize = r->region * 512u;
    r->bm.daemon_sleep = 5;
    r->bm.write_behind = 0;
    if (v->read_only) {
        /* nothing is synced or rebuilt: a leg behind is not read (as a failed one,
         * in memory only), so no read returns what it has not got yet */
        for (unsigned i = 0; i < r->n; i++)
            if (raid_leg_ok(r, i) && r->legs[i].rebuild) {
                atomic_store(&r->legs[i].failed, true);
                r->ro_behind |= (uint64_t)1 << i;
                lvxd_log("%s/%s: RAID leg %u is behind and the LV read-only: not rebuilt, "
                         "not read", v->vg, v->lv, i);
            }
        if (!r->geom->covered(r))
            return lvx_error(ctx, EIO, "RAID LV %s/%s: read-only and not every chunk has an "
                             "in-sync copy: not served.", v->vg, v->lv);
        return 0;
    }
    /* what is to sync: dirty regions (from the in-sync legs to all), every region of
     * rebuilt legs; done in the background (raid_resync.c), before any request
     * touches a region */
    uint64_t insync = 0, rebuild = 0, all = 0;
    for (unsigned i = 0; i < r->an; i++) {      /* legs taken out by a removal: none */
        if (!raid_leg_ok(r, i))
            continue;
        all |= (uint64_t)1 << i;
        *(r->legs[i].rebuild ? &rebuild : &insync) |= (uint64_t)1 << i;
    }
    if (!insync)
        return lvx_error(ctx, EIO, "RAID LV %s/%s: no image is in sync: not served.", v->vg,
                         v->lv);
    if (!r->geom->covered(r))
        return lvx_error(ctx, EIO, "RAID LV %s/%s: not every chunk has a live copy: not "
                         "served.", v->vg, v->lv);
    r->insync = insync;
    r->rebuild = rebuild;
    r->all = all;
    r->full |= full;
    uint64_t dirty = 0;
    for (uint64_t g = 0; g < r->regions; g++) {
        bool rebuilt = (g + 1) * r->region <= r->rebuild_from;   /* before a crash */
        r->need[g] = (lvx_raid_bm_bit(r->area, g) ? RAID_NEED_DIRTY : 0) |
                     (rebuild && !rebuilt &&
                              (!r->rebuild_by_bitmap || lvx_raid_bm_bit(r->area, g))
                          ? RAID_NEED_REBUILD : 0);
        dirty += (r->need[g] & RAID_NEED_DIRTY) != 0;
        if (r->need[g])
            atomic_fetch_add(&r->unsynced, 1);
    }
    if (dirty && !r->full)
        lvxd_log("%s/%s: %" PRIu64 " dirty regions of the bitmap to resync (in the "
                 "background)", v->vg, v->lv, dirty);
    bool clean = atomic_load(&r->unsynced) == 0 && !raid_degraded(r);
    raid_progress_durable_locked(r);      /* nothing synced yet: the start's offsets */
    int rc = raid_flush_pvs(io, v, r);
    if (rc == 0)
        rc = raid_write_state_locked(io, v, r, clean);
    if (rc == 0)
        rc = raid_flush_pvs(io, v, r);
    if (rc < 0)
        return lvx_error(ctx, EIO, "RAID LV %s/%s: writing the superblocks failed.", v->vg,
                         v->lv);
    return 0;
}

int raid_core_start(struct lvx_ctx *ctx, struct lvxd_lv *v)
{
    struct raid *r = raid_of(v);
    struct lvxd_io io;
    uint8_t *areas = NULL;
    int rc = lvxd_io_init(&io);
    if (rc < 0)
        return lvx_error(ctx, -rc, "RAID LV %s/%s: no I/O queue: %s", v->vg, v->lv,
                         strerror(-rc));
    if (posix_memalign((void **)&areas, 4096, r->n * r->area_bytes))
        rc = lvx_error(ctx, ENOMEM, "Out of memory starting %s/%s.", v->vg, v->lv);
    else {
        pthread_mutex_lock(&r->mu);
        rc = start_io(ctx, &io, v, r, areas);
        pthread_mutex_unlock(&r->mu);
    }
    free(areas);
    lvxd_io_exit(&io);
    r->started = rc == 0;
    /* a reshape recorded is continued (md's order: before any resync, none is pending
     * then: reshape_taken), unless read-only; LVX_TEST_RESHAPE_FROZEN keeps it frozen
     * (step 3's state, for the tests that check it) */
    if (rc == 0 && !v->read_only && r->reshaping && !getenv("LVX_TEST_RESHAPE_FROZEN") &&
        (rc = raid_reshape_spawn(v, r)) < 0)
        rc = lvx_error(ctx, -rc, "RAID LV %s/%s: no reshape thread: %s", v->vg, v->lv,
                       strerror(-rc));
    if (rc == 0 && !v->read_only && atomic_load(&r->unsynced) &&
        (rc = raid_resync_spawn(v, r)) < 0)
        rc = lvx_error(ctx, -rc, "RAID LV %s/%s: no resync thread: %s", v->vg, v->lv,
                       strerror(-rc));
    if (rc < 0)
        r->started = false;
    return rc;
}

/* A clean stop: data flushed, every bit cleared, superblocks events + 1. */
void raid_core_dtr(struct lvxd_lv *v, void *state)
{
    struct raid *r = state;
    if (!r)
        return;
    raid_resync_stop(r);
    if (v && r->started && !v->read_only) {
        struct lvxd_io io;
        if (lvxd_io_init(&io) == 0) {
            pthread_mutex_lock(&r->mu);
            int rc = raid_flush_pvs(&io, v, r);
            if (rc == 0) {
                raid_progress_durable_locked(r);
                /* regions still to sync keep their bits (and the resync offset); a
                 * degraded array every bit */
                bool degraded = raid_degraded(r);
                for (uint64_t g = 0; g < r->regions && !degraded; g++)
                    if (!r->pending[g] && !r->need[g])
                        lvx_raid_bm_set(r->area, g, false);
                rc = raid_write_state_locked(&io, v, r,
                                             atomic_load(&r->unsynced) == 0 && !degraded);
            }
            if (rc == 0)
                rc = raid_flush_pvs(&io, v, r);
            pthread_mutex_unlock(&r->mu);
            if (rc < 0)
                lvxd_log("%s/%s: the RAID state was not written clean: %s", v->vg, v->lv,
                         strerror(-rc));
            lvxd_io_exit(&io);
        }
    }
    raid_core_free(r);
}

/* " raid <health> <done>/<total> <action> <mismatches> <data_offset> <devices>" as
 * dm-raid's status (the live resync's part from raid_resync.c), the mismatches the
 * last check/repair found, where the data starts in each image (sectors), and md's
 * device count (dm-raid's <#devs>: B's from a reshape's start, fewer than the images
 * once a stripe removal has started) */
void raid_core_status(struct lvxd_lv *v, char *out, size_t n)
{
    struct raid *r = raid_of(v);
    if (!r || n < r->n + 64)
        return;
    char part[RAID_MAX_LEGS + 96];
    raid_resync_status(r, part, sizeof(part));
    pthread_mutex_lock(&r->mu);
    unsigned devs = r->reshaping ? r->rs.b.legs : r->an;
    pthread_mutex_unlock(&r->mu);
    snprintf(out, n, " raid%s %" PRIu64 " %" PRIu64 " %u", part, r->mismatches, r->data_offset,
             devs);
}

int lvxd_raid_check(struct lvx_ctx *ctx, struct lvxd_lv *v, bool repair)
{
    struct lvxd_io io;
    uint8_t *buf = NULL;
    int rc = lvxd_io_init(&io);
    if (rc < 0)
        return lvx_error(ctx, -rc, "RAID LV %s/%s: no I/O queue: %s", v->vg, v->lv,
                         strerror(-rc));
    if (posix_memalign((void **)&buf, 4096, RAID_COPY_BYTES)) {
        lvxd_io_exit(&io);
        return lvx_error(ctx, ENOMEM, "Out of memory checking %s/%s.", v->vg, v->lv);
    }
    uint64_t mism = 0;
    /* region by region, each under the LV's write lock: no request runs while its
     * copies are compared, and requests go on between regions */
    for (uint64_t g = 0;; g++) {
        pthread_rwlock_wrlock(&v->lock);
        struct raid *r = raid_of(v);
        if (!r || !r->started) {
            rc = lvx_error(ctx, EINVAL, "%s/%s is not a RAID LV served here.", v->vg, v->lv);
        } else if (g == 0 && (v->read_only || !r->geom->check)) {
            rc = lvx_error(ctx, EROFS, "%s/%s: no check of a read-only RAID LV.", v->vg, v->lv);
        } else if (g == 0 && r->reshaping) {
            /* md's check walks one geometry; dm-raid refuses it while reshaping */
            rc = lvx_error(ctx, EBUSY, "%s/%s: a reshape in progress: no %s before it has "
                           "ended.", v->vg, v->lv, repair ? "repair" : "check");
        } else if (g == 0 && atomic_load(&r->unsynced)) {
            rc = lvx_error(ctx, EBUSY, "%s/%s is being synchronised: no check before it is "
                           "in sync.", v->vg, v->lv);
        } else if (g < r->regions) {
            for (unsigned i = 0; i < r->n && rc == 0; i++)
                if (!raid_leg_ok(r, i))
                    rc = lvx_error(ctx, EIO, "%s/%s: image %u is failed: no check of a "
                                   "degraded RAID LV.", v->vg, v->lv, i);
            if (g == 0)
                r->mismatches = 0;
            if (rc == 0) {
                pthread_mutex_lock(&r->mu);
                rc = r->geom->check(&io, v, r, g, g + 1, repair, &mism, buf);
                pthread_mutex_unlock(&r->mu);
                if (rc < 0)
                    lvx_error(ctx, -rc, "%s/%s: %s failed: %s", v->vg, v->lv,
                              repair ? "repair" : "check", strerror(-rc));
            }
        } else {
            r->mismatches = mism;
            pthread_rwlock_unlock(&v->lock);
            break;
        }
        pthread_rwlock_unlock(&v->lock);
        if (rc < 0)
            break;
    }
    if (rc == 0)
        lvxd_log("%s/%s: %s done, %" PRIu64 " mismatched sectors", v->vg, v->lv,
                 repair ? "repair" : "check", mism);
    free(buf);
    lvxd_io_exit(&io);
    return rc;
}
