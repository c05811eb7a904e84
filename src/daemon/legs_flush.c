/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/legs_flush.c - the flush of an LV with redundant legs (RAID, old-style
 * mirror) that goes on without a lost disk: a lost PV's datasync fails for ever, so a
 * plain lvxd_io_flush_pvs would fail every flush after it (a walker's checkpoint, a
 * client's fsync) although the live legs hold everything the LV still needs.  When the
 * flush fails, the target is told which PV failed (it may fail the legs on it, as
 * dm-raid1 fails a leg whose flush fails) and names the PVs that only failed legs use;
 * their dirty marks are dropped and the rest flushed again.
 *
 * Entry points: lvxd_map_pv_bits(), lvxd_io_flush_live_pvs() (daemon_int.h).
 */
#include "daemon/daemon_int.h"

#include "map/map.h"

uint64_t lvxd_map_pv_bits(const struct lvx_map_prepared *map)
{
    uint64_t bits = 0;
    if (!map)
        return 0;
    uint64_t end = lvx_map_prepared_sectors(map);
    struct lvx_map_loc loc;
    for (uint64_t s = 0; s < end; s += loc.len) {
        if (lvx_map_prepared_lookup(map, s, &loc) < 0 || loc.len == 0)
            break;
        if (loc.kind == LVX_MAP_PV && loc.pv)
            bits |= (uint64_t)1 << (loc.pv->index % 64);
    }
    return bits;
}

int lvxd_io_flush_live_pvs(struct lvxd_io *io, struct lvxd_lv *v,
                           uint64_t (*gone)(void *arg, int failed_pv), void *arg)
{
    int rc = lvxd_io_flush_pvs(io, v);
    /* one more round per PV dropped at most: each failure names the next PV */
    for (unsigned round = 0; rc < 0 && round < 64; round++) {
        uint64_t drop = gone(arg, io->err_dev) & atomic_load(&v->dirty);
        if (!drop)
            break;                       /* a live leg's PV failed: the failure stands */
        atomic_fetch_and(&v->dirty, ~(uint_fast64_t)drop);
        rc = lvxd_io_flush_pvs(io, v);
    }
    return rc;
}
