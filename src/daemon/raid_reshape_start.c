/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/raid_reshape_start.c - a raid4/5/6 reshape, a raid10 growth or stripe size
 * change started by the daemon (docs/reshape-user.md §3.5, §10, §12, §14; the walker
 * that then runs it is raid_reshape.c).
 *
 * The user backend's counterpart of dm-raid's starting table ("delta_disks D
 * data_offset O" beside the new layout) is the control request `raidreshape VG LV D O
 * DEV...` (control.c): a reload of the LV (the metadata of the reshape's second
 * commit re-read) whose target start, instead of refusing superblocks that differ
 * from the metadata, starts the reshape they lead to:
 *
 *   can_start  before the reload, nothing written: dm-raid's rs_check_reshape
 *              refusals with its words (degraded, recovering, already reshaping) and
 *              a read-only LV;
 *   begin      at the new target's start (the old one stopped clean by the reload):
 *              A from the freshest superblock (level, layout, chunk, devices), B from
 *              the metadata, the data offsets as rs_adjust_data_offsets sets them
 *              from D and O (stripes added: A at O, B at 0; removed: A at 0, B at O,
 *              B without the images flagged to be taken out, which A still holds;
 *              same count: from the current offset to the other place); the model
 *              (lvx_reshape_init) refuses what md could not run (raid10: anything
 *              but stripes added or another chunk size); raid10's bitmap covers the
 *              new size from here on (md resizes it at a growth's start), the new
 *              regions clean; then the rounds:
 *              S1 (every leg, the new legs' rmeta included: no reshape recorded, A's
 *              geometry, new_data_offset B's) and S2 (the reshape recorded at its
 *              start), each after a flush.  The start then goes on as for a reshape
 *              found recorded (raid_core.c reshape_taken), and the walker runs it.
 *   crashes    inside S2: the legs left at S1 are one round behind (s1_of); the next
 *              start completes the round.  Before S2 (nothing recorded): the metadata
 *              describes B, the superblocks A; the start refuses it naming the state.
 *   offset 0   `raidreshape VG LV 0 0` (dm-raid's "data_offset 0" of LVM2's reshape
 *              space freed where it lay in front of the data, the images' extents
 *              rotated in the metadata): every superblock's data offsets set to 0 in
 *              one round, nothing moved (offsets_to_zero).
 */
#include "daemon/raid_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MIN_FREE_RESHAPE_SPACE 32u      /* sectors: dm-raid's to_sector(4 * 4096) */

int raid_reshape_can_start(struct lvx_ctx *ctx, struct lvxd_lv *v)
{
    struct raid *r = raid_of(v);
    if (!r || !r->started)
        return lvx_error(ctx, EINVAL, "%s/%s is not a RAID LV served here: no reshape started.",
                         v->vg, v->lv);
    if (v->read_only)
        return lvx_error(ctx, EROFS, "RAID LV %s/%s is served read-only: no reshape started.",
                         v->vg, v->lv);
    const char *why = NULL;
    pthread_mutex_lock(&r->mu);
    if (raid_degraded(r))
        why = "Can't reshape degraded raid set";
    else if (r->reshaping)
        why = "raid set already reshaping!";
    else if (atomic_load(&r->unsynced))
        why = "Convert request on recovering raid set prohibited";
    else if (r->copies == r->n)
        why = "the user-space backend reshapes raid4/5/6 and raid10 only";
    pthread_mutex_unlock(&r->mu);
    if (why)
        return lvx_error(ctx, EPERM, "RAID LV %s/%s: %s: no reshape started.", v->vg, v->lv, why);
    return 0;
}

bool raid_reshape_s1_of(const struct lvx_raid_sb *s, const struct lvx_raid_sb *b)
{
    uint64_t start = (b->flags & LVX_RAID_SB_RESHAPE_BACKWARDS) ? b->array_sectors : 0;
    return s->events + 1 == b->events && (b->flags & LVX_RAID_SB_RESHAPE_ACTIVE) &&
           !(s->flags & LVX_RAID_SB_RESHAPE_ACTIVE) && b->reshape_position == start &&
           (int64_t)s->num_devices == (int64_t)b->num_devices - b->delta_disks &&
           s->level == b->level && s->layout == b->layout &&
           s->stripe_sectors == b->stripe_sectors && s->data_offset == b->data_offset &&
           s->new_data_offset == b->new_data_offset;
}

/* Why the legs cannot start a reshape from superblock b (old_n devices), or NULL. */
static const char *legs_ready(struct raid *r, const struct lvx_raid_sb *b, unsigned old_n,
                              const uint8_t *areas, int best)
{
    for (unsigned i = 0; i < r->n; i++) {
        const struct raid_leg *g = &r->legs[i];
        if (!raid_leg_ok(r, i))
            return "Can't reshape degraded raid set";
        if (i >= old_n)
            continue;                   /* a new leg: no superblock of this array yet */
        if (!g->has_sb || g->sb.events != b->events || lvx_raid_sb_failed(b, i))
            return "Can't reshape degraded raid set";
        if (g->sb.disk_recovery_offset != LVX_RAID_MAX_SECTOR)
            return "Convert request on recovering raid set prohibited";
    }
    if (b->array_resync_offset != LVX_RAID_MAX_SECTOR)
        return "Convert request on recovering raid set prohibited";
    struct lvx_raid_bm bm;
    const uint8_t *a = areas + (size_t)best * r->area_bytes;
    if (!lvx_raid_bm_decode(a, &bm) || lvx_raid_bm_invalid(&bm) || bm.events < b->events ||
        bm.chunksize != r->region * 512u)
        return "Convert request on recovering raid set prohibited (its bitmap is stale)";
    memcpy(r->area, a, r->area_bytes);
    /* raid10: the bitmap covers array sectors; a growth resizes it to the new size (md's
     * raid10_start_reshape): the regions past the old size start clean (the bits the
     * old bitmap left past its end mean nothing) and are resynced after the reshape */
    uint64_t used = r->regions;
    if (!r->parity && b->array_sectors < r->sectors) {
        used = (b->array_sectors + r->region - 1) / r->region;
        for (uint64_t g = used; g < r->regions; g++)
            lvx_raid_bm_set(r->area, g, false);
    }
    for (uint64_t g = 0; g < used; g++)
        if (lvx_raid_bm_bit(r->area, g))
            return "Convert request on recovering raid set prohibited (dirty bitmap regions)";
    return NULL;
}

/* One round: the legs flushed, every live leg's superblock and bitmap, flushed. */
static int round_locked(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r)
{
    int rc = lvxd_io_flush_pvs(io, v);
    if (rc == 0)
        rc = raid_write_state_locked(io, v, r, true);
    if (rc == 0)
        rc = lvxd_io_flush_pvs(io, v);
    return rc;
}

/* The state every leg gets from superblock b (its bitmap clean, legs_ready). */
static void state_from(struct raid *r, const struct lvx_raid_sb *b)
{
    lvx_raid_bm_decode(r->area, &r->bm);
    r->bm.version = 4;
    r->bm.sync_size = r->sync_size;
    r->bm.state = 0;
    r->bm.chunksize = r->region * 512u;
    r->bm.daemon_sleep = 5;
    r->bm.write_behind = 0;
    r->sb = *b;
    r->sb.compat_features = 1;
    r->sb.incompat_features = 0;
    r->sb.failed[0] = r->sb.failed[1] = r->sb.failed[2] = r->sb.failed[3] = 0;
    r->sb.array_resync_offset = LVX_RAID_MAX_SECTOR;
    r->sb.sectors = r->leg_sectors;
}

/* "data_offset 0" with the images kept (raidreshape 0 0): LVM2 frees reshape space that
 * lies in front of the data by moving it to the end of every image in the metadata
 * (the images now start where the data does) and loading that; dm-raid's
 * rs_adjust_data_offsets then records both offsets 0 (RT_FLAG_UPDATE_SBS): nothing
 * moves, one round. */
static int offsets_to_zero(struct lvx_ctx *ctx, struct lvxd_io *io, struct lvxd_lv *v,
                           struct raid *r, int best, const uint8_t *areas)
{
    const struct lvx_raid_sb *b = best >= 0 ? &r->legs[best].sb : NULL;
    const char *why = NULL;
    if (!b)
        why = "no dm-raid superblock on its images";
    else if ((b->flags & LVX_RAID_SB_RESHAPE_ACTIVE) || b->reshape_position != LVX_RAID_MAX_SECTOR ||
             b->delta_disks)
        why = "raid set already reshaping!";
    else if (b->num_devices != r->n || r->leaving)
        why = "another number of devices in its superblocks";
    else if (b->data_offset != b->new_data_offset)
        why = "its superblocks' data offsets differ";
    else
        why = legs_ready(r, b, b->num_devices, areas, best);
    if (why)
        return lvx_error(ctx, EPERM, "RAID LV %s/%s: %s: data offset not changed.", v->vg,
                         v->lv, why);
    uint64_t was = b->data_offset;
    state_from(r, b);
    r->sb.data_offset = r->sb.new_data_offset = 0;
    int rc = round_locked(io, v, r);
    if (rc < 0)
        return lvx_error(ctx, -rc, "RAID LV %s/%s: its data offset was not written: %s",
                         v->vg, v->lv, strerror(-rc));
    lvxd_log("%s/%s: data offset %" PRIu64 " -> 0 (the reshape space moved behind the data)",
             v->vg, v->lv, was);
    return 0;
}

int raid_reshape_begin_locked(struct lvx_ctx *ctx, struct lvxd_io *io, struct lvxd_lv *v,
                              struct raid *r, int best, uint32_t level, uint32_t layout,
                              const uint8_t *areas)
{
    r->start_req = false;
    if (!r->req_delta && !r->req_offset)
        return offsets_to_zero(ctx, io, v, r, best, areas);
    const struct lvx_raid_sb *b = best >= 0 ? &r->legs[best].sb : NULL;
    const char *why = NULL;
    char buf[160];
    unsigned old_n = b ? b->num_devices : 0;
    if (!b)
        why = "no dm-raid superblock on its images";
    else if (r->copies == r->n)
        why = "the user-space backend reshapes raid4/5/6 and raid10 only";
    else if ((b->flags & LVX_RAID_SB_RESHAPE_ACTIVE) || b->reshape_position != LVX_RAID_MAX_SECTOR ||
             b->delta_disks)
        why = "raid set already reshaping!";
    else if (b->level != level || b->new_level != level)
        why = "another RAID level in its superblocks (a takeover, not a reshape)";
    else if (r->req_delta < 0 ? old_n != r->n || r->leaving != (unsigned)-r->req_delta
                              : (int64_t)old_n + r->req_delta != (int64_t)r->n || r->leaving) {
        /* stripes removed: the metadata keeps every image, the last -D flagged */
        snprintf(buf, sizeof(buf), "delta_disks %d: its superblocks record %u devices, its "
                 "metadata %u images (%u flagged to be taken out)", r->req_delta, old_n, r->n,
                 r->leaving);
        why = buf;
    } else if (b->data_offset != b->new_data_offset)
        why = "its superblocks' data offsets differ";
    else if (r->req_offset < MIN_FREE_RESHAPE_SPACE)
        why = r->req_delta >= 0 ? "No space for forward reshape" : "No space for backward reshape";
    else
        why = legs_ready(r, b, old_n, areas, best);
    uint64_t a_off = 0, b_off = 0;
    if (!why) {
        /* dm-raid's rs_adjust_data_offsets: where A's rows are now, where B's go */
        uint64_t cur = b->data_offset, o = r->req_offset;
        if (r->req_delta > 0)
            a_off = o, b_off = 0;
        else if (r->req_delta < 0)
            a_off = 0, b_off = o;
        else
            a_off = cur, b_off = cur ? 0 : o;
        unsigned copies = r->parity ? 1 : r->copies;      /* raid10 near: its copies */
        struct lvx_raid_geo ga = { .legs = old_n, .parity = r->parity, .copies = copies,
                                   .layout = b->layout, .chunk = b->stripe_sectors,
                                   .data_offset = a_off };
        struct lvx_raid_geo gb = { .legs = r->n - r->leaving, .parity = r->parity,
                                   .copies = copies, .layout = layout, .chunk = r->stripe_sectors,
                                   .data_offset = b_off };
        why = lvx_reshape_init(&r->rs, level, &ga, &gb, r->leg_sectors);
        if (!why && (a_off > b_off ? a_off : b_off) + r->leg_sectors > r->image_sectors)
            why = r->rs.forward ? "No space for forward reshape" : "No space for backward reshape";
    }
    if (why)
        return lvx_error(ctx, EPERM, "RAID LV %s/%s: %s: no reshape started.", v->vg, v->lv,
                         why);
    /* the bitmap (clean, legs_ready) goes to every leg with the superblocks */
    state_from(r, b);
    lvx_reshape_sb_round(&r->rs, LVX_RESHAPE_S1, 0, &r->sb);
    int rc = round_locked(io, v, r);
    if (rc == 0) {
        lvx_reshape_sb_round(&r->rs, LVX_RESHAPE_RUN, r->rs.pos, &r->sb);
        rc = round_locked(io, v, r);
    }
    if (rc < 0)
        return lvx_error(ctx, -rc, "RAID LV %s/%s: the reshape's start was not written: %s",
                         v->vg, v->lv, strerror(-rc));
    lvxd_log("%s/%s: reshape started (%s, %u -> %u legs, layout %u -> %u, chunk %" PRIu64
             " -> %" PRIu64 ", data at %" PRIu64 " -> %" PRIu64 ")", v->vg, v->lv,
             r->rs.forward ? "forward" : "backward", r->rs.a.legs, r->rs.b.legs,
             r->rs.a.layout, r->rs.b.layout, r->rs.a.chunk, r->rs.b.chunk, a_off, b_off);
    return 0;
}

int lvxd_raid_reshape_request(struct lvx_ctx *ctx, struct lvxd_lv *v, int delta, uint64_t offset)
{
    struct raid *r = raid_of(v);
    if (!r)
        return lvx_error(ctx, EINVAL, "%s/%s is not a RAID LV: no reshape started.", v->vg,
                         v->lv);
    r->start_req = true;
    r->req_delta = delta;
    r->req_offset = offset;
    return 0;
}
