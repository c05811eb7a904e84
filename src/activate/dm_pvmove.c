/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/dm_pvmove.c - pvmove in the dm backend: the pvmoveN device and the tables
 * of the LVs moved through it, as LVM2 2.03 loads them (seen with `dmsetup table` at
 * each stage of LVM2's pvmove in the test guest, tests/cli/t0719-kernel-pvmove.sh).
 *
 *   pvmoveN    one line per pvmove segment: a segment copied (extents_moved
 *              complete) is "linear" on its new area; the first one not copied is
 *              "mirror core 1 <region> 2 <old> <new>" (the kernel copies it: dm-mirror's
 *              recovery, writes go to both legs where a region is in sync, to the old
 *              one where it is not yet); the ones after it "linear" on their old area.
 *              Name vg-pvmoveN, UUID LVM-<vg uuid><pvmove LV uuid>, no /dev/<vg> link.
 *   users      an LV with areas on pvmoveN: its lines name pvmoveN's device (major:minor)
 *              and the area's offset in it (a striped line mixes PVs and pvmoveN).
 *
 *   atomic     (pvmove --atomic) pvmoveN_mimage_0 and _1 are devices of their own
 *              (vg-pvmoveN_mimage_K, UUID LVM-<vg uuid><image uuid>, a "linear" line per
 *              segment, the old areas and the new), brought up before pvmoveN, which is
 *              one line over its whole length: "mirror core 1 <region> 2 <mimage_0> 0
 *              <mimage_1> 0" (the kernel copies every segment at once), "linear" on
 *              mimage_1 once extents_moved is complete, on mimage_0 when safe.  They go
 *              with pvmoveN.
 *
 * The copy is the kernel's; `pvmove` (cmd/pvmove.c) waits until the running mirror is
 * in sync, commits the checkpoint, and reloads pvmoveN (the next segment's mirror:
 * lvx_dm_pvmove_sync).  The first time, pvmoveN is made live with every segment
 * "linear" on its old area before the users are reloaded over it (a write between the
 * users' reload and the mirror's start must reach the mirror too), then loaded with
 * its real table.  At the end (or --abort) the users are reloaded with their new
 * tables and pvmoveN is removed (lvx_dm_pvmove_end).  An LV activated while a move is
 * in progress brings pvmoveN up first (lvx_dm_pvmove_up); the last user deactivated
 * takes it down (lvx_dm_pvmove_down).
 */
#include "activate/dm_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "map/map.h"
#include "model/pvmove.h"
#include "nodes/dm_nodes.h"

const struct lvx_lv *lvx_dm_pvmove_of(const struct lvx_lv *lv)
{
    for (unsigned s = 0; s < lv->seg_count; s++)
        for (uint32_t a = 0; lv->segs[s].areas && a < lv->segs[s].area_count; a++) {
            const struct lvx_lv *m = lv->segs[s].areas[a].lv;
            if (m && (m->status & LVX_LV_PVMOVE))
                return m;
        }
    return NULL;
}

/* "maj:min offset" of area k of the pvmove segment ms (a PV area). */
static int pv_area(struct lvx_ctx *ctx, const struct lvx_seg *ms, uint32_t k, uint32_t e,
                   struct lvx_buf *out)
{
    const struct lvx_pv *pv = ms->areas[k].pv;
    if (!pv)
        return lvx_error(ctx, EINVAL, "pvmove LV %s: segment at %" PRIu64 " is not on a PV.",
                         ms->lv->name, ms->start_extent);
    int rc = lvx_map_device(ctx, pv, out);
    if (rc == 0)
        lvx_buf_printf(out, " %" PRIu64, lvx_map_area_sector(ms, k, e));
    return rc;
}

/* "maj:min" of the device of lv, which must exist. */
static int lv_devnum(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                     struct lvx_buf *out)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    int rc = lvx_dm_ids_of(ctx, lv, NULL, &ids);
    if (rc == 0)
        rc = lvx_dm_info(ctx, dm, ids.name, &info);
    if (rc == 0 && !info.exists)
        rc = lvx_error(ctx, ENXIO, "%s/%s is not active: its device is not known.",
                       lv->vg->name, lv->name);
    if (rc == 0)
        lvx_buf_printf(out, "%u:%u", info.major, info.minor);
    return rc;
}

/* The table of an atomic pvmove LV (its images' devices up). */
static int mv_table_atomic(struct lvx_ctx *ctx, const struct lvx_lv *mv, bool safe,
                           struct lvx_buf *out)
{
    const struct lvx_seg *ms = &mv->segs[0];
    uint64_t len = mv->le_count * (uint64_t)mv->vg->extent_size;
    struct lvx_dm dm;
    int rc = lvx_dm_open(ctx, &dm);
    if (rc < 0)
        return rc;
    bool copied = ms->extents_moved >= ms->extent_count;
    if (copied || safe) {
        lvx_buf_printf(out, "0 %" PRIu64 " linear ", len);
        rc = lv_devnum(ctx, &dm, ms->areas[copied ? 1 : 0].lv, out);
        lvx_buf_puts(out, " 0\n");
    } else {
        lvx_buf_printf(out, "0 %" PRIu64 " mirror core 1 %u 2 ", len,
                       lvx_pvmove_region(ms->region_size, len));
        if ((rc = lv_devnum(ctx, &dm, ms->areas[0].lv, out)) == 0) {
            lvx_buf_puts(out, " 0 ");
            if ((rc = lv_devnum(ctx, &dm, ms->areas[1].lv, out)) == 0)
                lvx_buf_puts(out, " 0\n");
        }
    }
    lvx_dm_close(&dm);
    return rc;
}

/* The table of pvmove LV mv (safe: no mirror, the running segment on its old area). */
static int mv_table(struct lvx_ctx *ctx, const struct lvx_lv *mv, bool safe,
                    struct lvx_buf *out)
{
    if (lvx_pvmove_is_atomic(mv))
        return mv_table_atomic(ctx, mv, safe, out);
    uint32_t e = mv->vg->extent_size;
    bool running = false;
    for (unsigned i = 0; i < mv->seg_count; i++) {
        const struct lvx_seg *ms = &mv->segs[i];
        uint64_t start = ms->start_extent * (uint64_t)e, len = ms->extent_count * (uint64_t)e;
        int rc;
        if (ms->kind != LVX_SEG_MIRROR || ms->area_count != 2) {
            struct lvx_lv one = *mv;
            one.segs = (struct lvx_seg *)ms;
            one.seg_count = 1;
            if ((rc = lvx_activation_dm_table(ctx, &one, false, out)) < 0)
                return rc;
            continue;
        }
        bool copied = ms->extents_moved >= ms->extent_count;
        if (copied || running || safe) {
            lvx_buf_printf(out, "%" PRIu64 " %" PRIu64 " linear ", start, len);
            if ((rc = pv_area(ctx, ms, copied ? 1 : 0, e, out)) < 0)
                return rc;
        } else {
            running = true;
            lvx_buf_printf(out, "%" PRIu64 " %" PRIu64 " mirror core 1 %u 2 ", start, len,
                           lvx_pvmove_region(ms->region_size, len));
            if ((rc = pv_area(ctx, ms, 0, e, out)) < 0)
                return rc;
            lvx_buf_putc(out, ' ');
            if ((rc = pv_area(ctx, ms, 1, e, out)) < 0)
                return rc;
        }
        lvx_buf_putc(out, '\n');
    }
    return 0;
}

/* The device of mv: ids and state. */
static int mv_info(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *mv,
                   struct lvx_dm_ids *ids, struct lvx_dm_info *info)
{
    int rc = lvx_dm_ids_of(ctx, mv, NULL, ids);
    return rc < 0 ? rc : lvx_dm_info(ctx, dm, ids->name, info);
}

/* The control device opened and mv's device looked up (closed again on failure). */
static int open_mv(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *mv,
                   struct lvx_dm_ids *ids, struct lvx_dm_info *info)
{
    int rc = lvx_dm_open(ctx, dm);
    if (rc == 0 && (rc = mv_info(ctx, dm, mv, ids, info)) < 0)
        lvx_dm_close(dm);
    return rc;
}

int lvx_dm_pvmove_user_table(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_buf *out)
{
    uint32_t e = lv->vg->extent_size;
    struct lvx_dm dm;
    int rc = lvx_dm_open(ctx, &dm);
    if (rc < 0)
        return rc;
    for (unsigned s = 0; s < lv->seg_count && rc == 0; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        bool layered = false;
        for (uint32_t a = 0; seg->areas && a < seg->area_count; a++)
            layered |= seg->areas[a].lv != NULL;
        if (!layered) {
            struct lvx_lv one = *lv;
            one.segs = (struct lvx_seg *)seg;
            one.seg_count = 1;
            rc = lvx_activation_dm_table(ctx, &one, false, out);
            continue;
        }
        if (seg->kind != LVX_SEG_STRIPED || !seg->stripe_count ||
            seg->area_count != seg->stripe_count) {
            rc = lvx_error(ctx, ENOTSUP, "Activation of logical volume %s/%s (segment type %s "
                           "under a pvmove) is not supported by lvx yet.", lv->vg->name,
                           lv->name, seg->type_name ? seg->type_name : "?");
            break;
        }
        lvx_buf_printf(out, "%" PRIu64 " %" PRIu64, seg->start_extent * (uint64_t)e,
                       seg->extent_count * (uint64_t)e);
        if (seg->stripe_count == 1)
            lvx_buf_puts(out, " linear");
        else
            lvx_buf_printf(out, " striped %u %u", seg->stripe_count, seg->stripe_size);
        for (uint32_t a = 0; a < seg->area_count && rc == 0; a++) {
            const struct lvx_area *ar = &seg->areas[a];
            lvx_buf_putc(out, ' ');
            if (!ar->lv) {
                if ((rc = lvx_map_device(ctx, ar->pv, out)) == 0)
                    lvx_buf_printf(out, " %" PRIu64, lvx_map_area_sector(seg, a, e));
                continue;
            }
            struct lvx_dm_ids ids;
            struct lvx_dm_info info;
            if ((rc = mv_info(ctx, &dm, ar->lv, &ids, &info)) < 0)
                break;
            if (!info.exists) {
                rc = lvx_error(ctx, ENXIO, "%s/%s is not active: its device is not known.",
                               lv->vg->name, ar->lv->name);
                break;
            }
            lvx_buf_printf(out, "%u:%u %" PRIu64, info.major, info.minor,
                           ar->start * (uint64_t)e);
        }
        lvx_buf_putc(out, '\n');
    }
    lvx_dm_close(&dm);
    return rc;
}

/* Make mv's device live with its table (safe: no mirror) when it is not, or reload it
 * when its table differs (fresh: also when equal, a new mirror that copies the running
 * segment again).  *made: created here.  An image of an atomic move (no PVMOVE flag):
 * its own linear table. */
static int mv_put(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *mv, bool safe,
                  bool fresh, bool *made)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    struct lvx_buf table = LVX_BUF_INIT, live = LVX_BUF_INIT;
    int rc = mv_info(ctx, dm, mv, &ids, &info);
    if (made)
        *made = false;
    if (rc == 0 && (info.exists && info.live_table) && safe)
        goto out;                        /* live already: its table is the real one */
    if (rc == 0)
        rc = (mv->status & LVX_LV_PVMOVE) ? mv_table(ctx, mv, safe, &table)
                                          : lvx_activation_dm_table(ctx, mv, false, &table);
    if (rc < 0)
        goto out;
    if (!info.exists) {
        if ((rc = lvx_dm_create(ctx, dm, ids.name, ids.uuid, 0, 0, NULL)) < 0)
            goto out;
        if (made)
            *made = true;
    }
    if (info.exists && info.live_table && !fresh) {
        if ((rc = lvx_dm_table(ctx, dm, ids.name, false, &live)) < 0)
            goto out;
        if (!strcmp(lvx_buf_str(&live), lvx_buf_str(&table)) && !info.suspended)
            goto out;
    }
    if ((rc = lvx_dm_load(ctx, dm, ids.name, lvx_buf_str(&table), false)) < 0)
        goto undo;
    if (info.exists && info.live_table) {
        rc = lvx_dm_swap_tables(ctx, dm, ids.name);
    } else if ((rc = lvx_dm_resume(ctx, dm, ids.name, &info)) == 0) {
        rc = lvx_dm_nodes_add(ctx, ids.name, info.major, info.minor, mv->vg->name, NULL);
    }
undo:
    if (rc < 0 && made && *made) {
        struct lvx_dm_ids keep = ids;
        int err = ctx->err;
        char msg[sizeof(ctx->errmsg)];
        memcpy(msg, ctx->errmsg, sizeof(msg));
        lvx_dm_remove_retry(ctx, dm, keep.name, false);
        lvx_dm_nodes_remove(keep.name, mv->vg->name, NULL);
        ctx->err = err;
        memcpy(ctx->errmsg, msg, sizeof(msg));
        *made = false;
    }
out:
    lvx_buf_free(&table);
    lvx_buf_free(&live);
    return rc;
}

/* The image devices of an atomic move made live (nothing for a move by segments). */
static int images_put(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *mv)
{
    if (!lvx_pvmove_is_atomic(mv))
        return 0;
    int rc = 0;
    for (uint32_t k = 0; k < mv->segs[0].area_count && rc == 0; k++)
        rc = mv_put(ctx, dm, mv->segs[0].areas[k].lv, false, false, NULL);
    return rc;
}

/* The image devices of an atomic move (vg-<mv>_mimage_0/1) removed when nothing holds
 * them.  By name: at the end mv has lost its images in the metadata already. */
static int images_down(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *mv)
{
    int rc = 0;
    for (unsigned k = 0; k < 2 && rc == 0; k++) {
        char name[LVX_DM_NAME_MAX + 1];
        snprintf(name, sizeof(name), "%s_mimage_%u", mv->name, k);
        struct lvx_lv im = *mv;
        im.name = name;
        struct lvx_dm_ids ids;
        struct lvx_dm_info info;
        if ((rc = mv_info(ctx, dm, &im, &ids, &info)) == 0 && info.exists &&
            info.open_count == 0)
            rc = lvx_dm_remove_one(ctx, dm, &ids, NULL, false);
    }
    return rc;
}

int lvx_dm_pvmove_up(struct lvx_ctx *ctx, const struct lvx_lv *mv, bool *made)
{
    struct lvx_dm dm;
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    if (made)
        *made = false;
    int rc = open_mv(ctx, &dm, mv, &ids, &info);
    if (rc < 0)
        return rc;
    /* live: left as it is (a move's sync may have it on its safe table); else nobody
     * maps through it yet: its real table at once */
    if (!(info.exists && info.live_table) && (rc = images_put(ctx, &dm, mv)) == 0)
        rc = mv_put(ctx, &dm, mv, false, false, made);
    lvx_dm_close(&dm);
    return rc;
}

int lvx_dm_pvmove_down(struct lvx_ctx *ctx, const struct lvx_lv *mv)
{
    struct lvx_dm dm;
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    int rc = open_mv(ctx, &dm, mv, &ids, &info);
    if (rc < 0)
        return rc;
    if (info.exists && info.open_count == 0)
        rc = lvx_dm_remove_one(ctx, &dm, &ids, NULL, false);
    if (rc == 0 && !(info.exists && info.open_count))
        rc = images_down(ctx, &dm, mv);
    lvx_dm_close(&dm);
    return rc;
}

/* lv's device exists. */
static bool lv_active(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv)
{
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    if (lvx_dm_ids_of(ctx, lv, NULL, &ids) < 0 || lvx_dm_info(ctx, dm, ids.name, &info) < 0) {
        lvx_error_clear(ctx);
        return false;
    }
    return info.exists;
}

bool lvx_dm_pvmove_live(struct lvx_ctx *ctx, const struct lvx_lv *mv)
{
    struct lvx_dm dm;
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    if (open_mv(ctx, &dm, mv, &ids, &info) < 0) {
        lvx_error_clear(ctx);
        return false;
    }
    lvx_dm_close(&dm);
    return info.exists && info.live_table;
}

/* Bring the kernel to the metadata for lv, an active LV that may map through a pvmove
 * LV: a top-level LV through the backend's activation (reloaded when changed); a
 * thin pool's _tdata/_tmeta (a device of its own, with its layer's UUID), or an image
 * or rmeta of a raid one, by reloading its own table when it differs. */
static bool pool_role(const char *role)
{
    return role && (!strcmp(role, "tdata") || !strcmp(role, "tmeta"));
}

static int user_reload(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    const char *role = NULL, *up_role = NULL;
    const struct lvx_seg *up = lvx_lv_used_by(lv, &role);
    /* an image or rmeta of a raid _tdata/_tmeta: a device of its own too */
    bool raid_sub = up && up->kind == LVX_SEG_RAID && lvx_lv_used_by(up->lv, &up_role) &&
                    pool_role(up_role);
    if (!raid_sub && (!up || !pool_role(role)))
        return lvx_activation_dm.activate(ctx, lv, NULL);
    struct lvx_dm dm;
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    struct lvx_buf table = LVX_BUF_INIT, live = LVX_BUF_INIT;
    int rc = lvx_dm_open(ctx, &dm);
    if (rc < 0)
        return rc;
    if ((rc = mv_info(ctx, &dm, lv, &ids, &info)) < 0 || !info.exists || !info.live_table)
        goto out;
    rc = lvx_dm_pvmove_of(lv) ? lvx_dm_pvmove_user_table(ctx, lv, &table)
                              : lvx_activation_dm_table(ctx, lv, false, &table);
    if (rc < 0 || (rc = lvx_dm_table(ctx, &dm, ids.name, false, &live)) < 0)
        goto out;
    if (strcmp(lvx_buf_str(&live), lvx_buf_str(&table)) &&
        (rc = lvx_dm_load(ctx, &dm, ids.name, lvx_buf_str(&table), false)) == 0)
        rc = lvx_dm_swap_tables(ctx, &dm, ids.name);
out:
    lvx_buf_free(&table);
    lvx_buf_free(&live);
    lvx_dm_close(&dm);
    return rc;
}

int lvx_dm_pvmove_sync(struct lvx_ctx *ctx, const struct lvx_vg *vg, const struct lvx_lv *mv,
                       bool fresh)
{
    struct lvx_dm dm;
    int rc = lvx_dm_open(ctx, &dm);
    if (rc < 0)
        return rc;
    const struct lvx_lv *users[256];
    unsigned n = 0;
    for (unsigned i = 0; i < vg->lv_count && n < 256; i++) {
        const struct lvx_lv *lv = vg->lvs[i];
        if (lv != mv && lvx_dm_pvmove_of(lv) == mv && lv_active(ctx, &dm, lv))
            users[n++] = lv;
    }
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    if ((rc = mv_info(ctx, &dm, mv, &ids, &info)) < 0 || (!n && !info.exists))
        goto out;
    /* live first, without the mirror: the users' writes reach pvmoveN before it copies */
    if ((rc = images_put(ctx, &dm, mv)) < 0 || (rc = mv_put(ctx, &dm, mv, true, false, NULL)) < 0)
        goto out;
    lvx_dm_close(&dm);
    for (unsigned i = 0; i < n && rc == 0; i++)
        rc = user_reload(ctx, users[i]);     /* reloaded when changed */
    if (rc < 0 || (rc = lvx_dm_open(ctx, &dm)) < 0)
        return rc;
    rc = mv_put(ctx, &dm, mv, false, fresh, NULL);
out:
    lvx_dm_close(&dm);
    return rc;
}

int lvx_dm_pvmove_progress(struct lvx_ctx *ctx, const struct lvx_lv *mv, uint64_t *le,
                           uint64_t *done, uint64_t *total)
{
    struct lvx_dm dm;
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    struct lvx_buf st = LVX_BUF_INIT;
    *le = UINT64_MAX;
    *done = *total = 0;
    int rc = open_mv(ctx, &dm, mv, &ids, &info);
    if (rc < 0)
        return rc;
    if (!info.exists)
        rc = lvx_error(ctx, ENXIO, "%s/%s is not active.", mv->vg->name, mv->name);
    if (rc == 0)
        rc = lvx_dm_table(ctx, &dm, ids.name, true, &st);
    lvx_dm_close(&dm);
    /* "<start> <len> mirror 2 <dev> <dev> <in-sync>/<regions> ..." */
    for (const char *p = lvx_buf_str(&st); rc == 0 && p && *p;) {
        unsigned long long start, len, d, t;
        unsigned legs;
        char a[32], b[32];
        if (sscanf(p, "%llu %llu mirror %u %31s %31s %llu/%llu", &start, &len, &legs, a, b, &d,
                   &t) == 7 && legs == 2) {
            *le = start / mv->vg->extent_size;
            *done = d;
            *total = t;
            break;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    lvx_buf_free(&st);
    return rc;
}

int lvx_dm_pvmove_end(struct lvx_ctx *ctx, const struct lvx_vg *vg, const struct lvx_lv *mv)
{
    struct lvx_dm dm;
    int rc = lvx_dm_open(ctx, &dm);
    if (rc < 0)
        return rc;
    /* every active LV of the VG that may map through pvmoveN: reloaded when its
     * table (from the metadata, no longer on pvmoveN) differs */
    const struct lvx_lv *act[256];
    unsigned n = 0;
    for (unsigned i = 0; i < vg->lv_count && n < 256; i++) {
        const struct lvx_lv *lv = vg->lvs[i];
        bool plain = lv != mv && lv->seg_count > 0;
        for (unsigned s = 0; plain && s < lv->seg_count; s++)
            plain = lv->segs[s].kind == LVX_SEG_STRIPED;
        if (plain && lv_active(ctx, &dm, lv))
            act[n++] = lv;
    }
    lvx_dm_close(&dm);
    for (unsigned i = 0; i < n && rc == 0; i++)
        rc = user_reload(ctx, act[i]);
    return rc < 0 ? rc : lvx_dm_pvmove_down(ctx, mv);
}
