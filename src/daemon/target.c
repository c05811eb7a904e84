/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/target.c - how the daemon serves an LV, chosen once per load by the LV's
 * segments (as a dm target is chosen by its table line): the table of daemon
 * targets, and the plain one (linear, striped, zero and error segments, and raid0 LVs
 * as the striped LV they equal (model/raid0.h): one prepared mapping, every request
 * pure arithmetic over it).  A target validates and
 * compiles the LV once (ctr, in the model's pool), may do start-up I/O after the PVs
 * are open (start), and serves read/write, zeroing and flush through the datapath's
 * batch helpers (datapath.c), so every byte still goes through the I/O seam.
 *
 * Entry points: lvxd_target_for(), lvxd_target_plain.
 */
#include "daemon/daemon_int.h"

#include <errno.h>

#include "map/map.h"
#include "model/raid.h"
#include "model/raid0.h"

static bool plain_serves(const struct lvx_lv *lv)
{
    (void)lv;
    return true;                /* the last entry: the plain target's own checks refuse */
}

static int plain_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                     bool partial, const struct lvx_map_prepared **map, void **state)
{
    struct lvx_map_prepared *m;
    int rc;
    *state = NULL;
    if (lvx_raid0_is(lv)) {
        /* a raid0 LV: the striped LV it equals, mapped over its rimages' extents */
        struct lvx_lv *as = lvx_pool_alloc(pool, sizeof(*as));
        if ((rc = lvx_map_check_raid_activatable(ctx, lv, partial, true)) < 0)
            return rc;
        char why[160];
        if (lvx_raid_reshape_state(lv, why, sizeof(why)))
            return lvx_error(ctx, ENOTSUP, "RAID LV %s/%s: %s; the user-space backend does not "
                             "serve it.", lv->vg->name, lv->name, why);
        *as = *lv;
        if ((rc = lvx_raid0_striped_segs(ctx, pool, lv, &as->segs, &as->seg_count)) < 0)
            return rc;
        lv = as;
    }
    if ((rc = lvx_map_check_activatable(ctx, lv, partial)) < 0 ||
        (rc = lvx_map_refuse_snapshots(ctx, lv)) < 0 ||
        (rc = lvx_map_prepare(ctx, pool, lv, partial ? LVX_MAP_MISSING_IS_ERROR : 0, &m)) < 0)
        return rc;
    *map = m;
    return 0;
}

static int plain_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off,
                    uint32_t len, uint8_t *buf)
{
    unsigned n = 0;
    int rc = lvxd_io_map_add(io, v, v->map, write, off, len, buf, &n);
    return rc == 0 && n ? lvxd_io_run(io, n) : rc;
}

static int plain_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    return lvxd_io_map_zero(io, v, v->map, off, len);
}

const struct lvxd_target lvxd_target_plain = {
    .name = "plain",
    .serves = plain_serves,
    .ctr = plain_ctr,
    .rw = plain_rw,
    .zero = plain_zero,
};

/* First match wins; a target for a segment type goes before the plain one. */
extern const struct lvxd_target lvxd_target_snapshot;  /* target_snapshot.c */
static const struct lvxd_target *const targets[] = {
    &lvxd_target_pvmove,      /* first: its ctr refuses origins and snapshots being moved */
    &lvxd_target_restripe,
    &lvxd_target_snapshot,
    &lvxd_target_origin,      /* before the RAID and mirror targets: it serves such origins */
    &lvxd_target_mirror,
    &lvxd_target_raid,
    &lvxd_target_parity,
    &lvxd_target_thin,
    &lvxd_target_plain,
};

const struct lvxd_target *lvxd_target_for(const struct lvx_lv *lv)
{
    for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
        if (targets[i]->serves(lv))
            return targets[i];
    return &lvxd_target_plain;
}
