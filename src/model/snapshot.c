/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/snapshot.c - old-style (COW) snapshots in the model, laid out as LVM2 2.03
 * keeps them (facts from lib/metadata/snapshot_manip.c, lib/snapshot/snapshot.c):
 *
 *   the COW LV  - the LV the user named (`lvcreate -s -n snap`), a plain linear or
 *                 striped LV holding the kernel's persistent exception store; its
 *                 status loses VISIBLE (it is listed through its origin);
 *   snapshotN   - an internal LV (READ, WRITE, VISIBLE in its status, never listed),
 *                 as many extents as the origin, one segment
 *                 `type = "snapshot"`, `chunk_size`, `origin`, `cow_store`; N is one
 *                 more than the highest N in use ("snapshot%d" as LVM2 numbers it).
 *
 * Also the COW sizing rules of LVM2: the largest useful COW for an origin and
 * chunk size (header chunk + one data chunk per origin chunk + metadata chunks, plus
 * 1/64 when the kernel's snapshot target may leak), and the 3-chunk minimum.
 *
 * A merge (lvconvert --merge) marks the snapshot segment merging (written as
 * `merging_store` instead of `cow_store`, LVM2's MERGING) and takes VISIBLE from the
 * snapshotN LV, as LVM2's init_snapshot_merge; the COW LV and its snapshotN go when
 * the kernel has finished (lvx_vg_remove_snapshot + removing the COW LV).
 *
 * A sparse snapshot (`lvcreate --type snapshot -L SIZE -V VSIZE -n NAME VG`, LVM2's
 * _create_virtual_origin) has as origin an LV NAME_vorigin: READ only, not VISIBLE,
 * allocation inherit, one segment `type = "zero"` of the virtual size.  LVM2 takes any
 * origin without VISIBLE for such a virtual origin (its VIRTUAL_ORIGIN, never written):
 * the COW LV of a virtual origin is listed itself, and goes with its origin.
 *
 * Entry points: lvx_vg_add_snapshot(), lvx_vg_remove_snapshot(), lvx_cow_max_extents(),
 * lvx_cow_min_ok(), lvx_lv_snapshot_segs(), lvx_snapshot_start_merge(),
 * lvx_lv_merging_snapshot(), lvx_vg_add_virtual_origin(), lvx_lv_is_virtual_origin().
 */
#include "model/snapshot.h"

#include "model/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXTENT_COUNT UINT32_MAX

uint64_t lvx_cow_max_sectors(uint64_t origin_sectors, uint32_t chunk, bool fixed_leak)
{
    /* chunk 0: header; then metadata chunks, each describing chunk*512/16 data chunks
     * (one more as a terminator when the count divides evenly) */
    uint64_t origin_chunks = (origin_sectors + chunk - 1) / chunk;
    uint64_t per_area = (uint64_t)chunk << (9 - 4);
    uint64_t meta_chunks = (origin_chunks + per_area) / per_area;
    uint64_t n = 1 + origin_chunks + meta_chunks;
    if (!fixed_leak)
        n += (n + 63) / 64;
    return n * chunk;
}

uint32_t lvx_cow_max_extents(const struct lvx_lv *origin, uint32_t chunk, bool fixed_leak)
{
    uint32_t e = origin->vg->extent_size;
    uint64_t size = lvx_cow_max_sectors(origin->le_count * (uint64_t)e, chunk, fixed_leak);
    uint64_t max = (uint64_t)MAX_EXTENT_COUNT * e;
    if (size % e)
        size += e - size % e;
    if (size > max)
        size = max;
    return (uint32_t)(size / e);
}

bool lvx_cow_min_ok(const struct lvx_vg *vg, uint64_t cow_extents, uint32_t chunk)
{
    return (uint64_t)vg->extent_size * cow_extents >= (uint64_t)LVX_SNAPSHOT_MIN_CHUNKS * chunk;
}

unsigned lvx_lv_snapshot_segs(const struct lvx_lv *origin, const struct lvx_seg **out,
                              unsigned max)
{
    const struct lvx_vg *vg = origin->vg;
    unsigned n = 0;
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *lv = vg->lvs[l];
        for (unsigned s = 0; s < lv->seg_count; s++)
            if (lv->segs[s].kind == LVX_SEG_SNAPSHOT && lv->segs[s].origin_lv == origin &&
                lv->segs[s].cow_lv) {
                if (out && n < max)
                    out[n] = &lv->segs[s];
                n++;
            }
    }
    return n;
}

/* "snapshot%d" as LVM2 numbers it: one more than the highest number in use (a name
 * counts when it starts with "snapshot" followed by a number, as sscanf reads it). */
static const char *next_snapshot_name(struct lvx_vg *vg)
{
    long high = -1;
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const char *n = vg->lvs[l]->name;
        if (!n || strncmp(n, "snapshot", 8) != 0)
            continue;
        int i;
        if (sscanf(n + 8, "%d", &i) == 1 && i > high)
            high = i;
    }
    return lvx_pool_printf(vg->pool, "snapshot%ld", high + 1);
}

struct lvx_lv *lvx_vg_add_snapshot(struct lvx_vg *vg, struct lvx_lv *origin, struct lvx_lv *cow,
                                   uint32_t chunk)
{
    const char *name = next_snapshot_name(vg);
    struct lvx_lv *snap = lvx_vg_add_lv(vg);
    snap->name = name;
    lvx_uuid_generate(snap->uuid);
    snap->status = LVX_LV_READ | LVX_LV_WRITE | LVX_LV_VISIBLE;
    snap->has_creation = cow->has_creation;
    snap->creation_time = cow->creation_time;
    snap->creation_host = cow->creation_host;
    snap->le_count = origin->le_count;
    snap->seg_count = 1;
    snap->segs = lvx_pool_alloc(vg->pool, sizeof(*snap->segs));
    memset(snap->segs, 0, sizeof(*snap->segs));

    struct lvx_seg *seg = &snap->segs[0];
    seg->lv = snap;
    seg->start_extent = 0;
    seg->extent_count = origin->le_count;
    seg->type = seg->type_name = "snapshot";
    seg->kind = LVX_SEG_SNAPSHOT;
    seg->chunk_size = chunk;
    seg->origin_lv = origin;
    seg->cow_lv = cow;     /* raw stays NULL: the exporter writes the typed fields */

    cow->status &= ~LVX_LV_VISIBLE;
    return snap;
}

struct lvx_lv *lvx_vg_remove_snapshot(struct lvx_vg *vg, struct lvx_lv *cow)
{
    const struct lvx_seg *seg = lvx_lv_cow_snapshot_seg(cow);
    if (!seg)
        return NULL;
    struct lvx_lv *origin = seg->origin_lv;
    lvx_vg_remove_lv(vg, seg->lv);
    cow->status |= LVX_LV_VISIBLE;
    return origin;
}

void lvx_snapshot_start_merge(struct lvx_seg *snap_seg)
{
    snap_seg->merging = true;
    snap_seg->raw = NULL;       /* the exporter writes merging_store from the typed fields */
    snap_seg->lv->status &= ~LVX_LV_VISIBLE;
}

struct lvx_seg *lvx_lv_merging_snapshot(const struct lvx_lv *origin)
{
    const struct lvx_vg *vg = origin->vg;
    for (unsigned l = 0; l < vg->lv_count; l++) {
        struct lvx_lv *lv = vg->lvs[l];
        for (unsigned s = 0; s < lv->seg_count; s++)
            if (lv->segs[s].kind == LVX_SEG_SNAPSHOT && lv->segs[s].merging &&
                lv->segs[s].origin_lv == origin && lv->segs[s].cow_lv)
                return &lv->segs[s];
    }
    return NULL;
}

struct lvx_lv *lvx_vg_add_virtual_origin(struct lvx_vg *vg, const struct lvx_lv *cow,
                                         uint64_t extents)
{
    struct lvx_lv *lv = lvx_vg_add_lv(vg);
    lv->name = lvx_pool_printf(vg->pool, "%s_vorigin", cow->name);
    lvx_uuid_generate(lv->uuid);
    lv->status = LVX_LV_READ;
    lv->alloc = LVX_ALLOC_INHERIT;
    lv->has_creation = cow->has_creation;
    lv->creation_time = cow->creation_time;
    lv->creation_host = cow->creation_host;
    lvx_alloc_append_virtual(lv, LVX_SEG_ZERO, extents);
    return lv;
}

bool lvx_lv_is_virtual_origin(const struct lvx_lv *lv)
{
    return !(lv->status & LVX_LV_VISIBLE) && !lvx_lv_is_snapshot_internal(lv) &&
           lvx_lv_snapshot_segs(lv, NULL, 0) > 0;
}
