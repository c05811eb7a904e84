/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/vgops.c - VG membership operations (see vgops.h): extent size rule, orphan
 * PV -> VG member, on-disk state from a scan, removal of LVs on missing PVs.
 *
 * Entry points: lvx_vgops_check_extent_size(), lvx_vgops_pe_count(),
 * lvx_vgops_add_orphan(), lvx_vgops_has_partial_lvs(),
 * lvx_vgops_remove_partial_lvs(), lvx_vgops_spv_holds_vg().
 */
#include "meta/vgops.h"
#include "format/label.h"
#include "config/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int lvx_vgops_check_extent_size(struct lvx_ctx *ctx, uint64_t sectors)
{
    if (sectors == 0)
        return lvx_error(ctx, EINVAL, "Physical extent size may not be zero");
    if (sectors > UINT32_MAX)
        return lvx_error(ctx, EINVAL, "Physical extent size must be smaller than <2.00 TiB.");
    if ((sectors & (sectors - 1)) != 0 && sectors % 256 != 0)
        return lvx_error(ctx, EINVAL, "Physical Extent size must be a multiple of 128.00 KiB "
                         "when not a power of 2.");
    return 0;
}

uint32_t lvx_vgops_pe_count(const struct lvx_pv *pv, uint32_t extent_size)
{
    uint64_t end = pv->dev_size;                 /* sectors */
    for (unsigned m = 0; m < pv->ondisk.mda_count && m < 2; m++) {
        uint64_t start = pv->ondisk.mda[m].start / LVX_SECTOR_SIZE;
        if (start >= pv->pe_start && start < end)
            end = start;                         /* mda1 ends the data area */
    }
    if (!extent_size || end <= pv->pe_start)
        return 0;
    uint64_t n = (end - pv->pe_start) / extent_size;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static const char *dup_or_null(struct lvx_pool *pool, const char *s)
{
    return s ? lvx_pool_strdup(pool, s) : NULL;
}

int lvx_vgops_add_orphan(struct lvx_ctx *ctx, struct lvx_vg *vg, const struct lvx_pv *orphan,
                         struct lvx_pv **out)
{
    if (vg->max_pv && vg->pv_count >= vg->max_pv)
        return lvx_error(ctx, EINVAL, "No space for '%s' - volume group '%s' holds max %u "
                         "physical volume(s).", orphan->ondisk.dev_name ? orphan->ondisk.dev_name
                         : "?", vg->name, vg->max_pv);
    struct lvx_pv *pv = lvx_vg_add_pv(vg);
    memcpy(pv->uuid, orphan->uuid, sizeof(pv->uuid));
    pv->device_hint = dup_or_null(vg->pool, orphan->ondisk.dev_name ? orphan->ondisk.dev_name
                                                                    : orphan->device_hint);
    pv->status = LVX_PV_ALLOCATABLE;
    pv->has_dev_size = true;
    /* the PV's size is its label's (pvcreate --setphysicalvolumesize may have set it
     * apart from the device's), as LVM2 */
    uint64_t label = orphan->ondisk.hdr_device_size;
    pv->dev_size = !orphan->ondisk.present ? orphan->dev_size
                   : (label ? label : orphan->ondisk.dev_bytes) / LVX_SECTOR_SIZE;
    uint64_t dev = orphan->ondisk.dev_bytes / LVX_SECTOR_SIZE;
    if (orphan->ondisk.present && dev && dev < pv->dev_size &&
        lvx_config_flag(ctx, "metadata/check_pv_device_sizes", true))
        lvx_warn(ctx, "WARNING: Device %s has size of %" PRIu64 " sectors which is smaller "
                 "than corresponding PV size of %" PRIu64 " sectors. Was device resized?",
                 orphan->ondisk.dev_name ? orphan->ondisk.dev_name : "?", dev, pv->dev_size);
    pv->pe_start = orphan->pe_start;
    pv->has_ba = orphan->has_ba;
    pv->ba_start = orphan->ba_start;
    pv->ba_size = orphan->ba_size;
    pv->ondisk = orphan->ondisk;
    pv->ondisk.dev_name = dup_or_null(vg->pool, orphan->ondisk.dev_name);
    pv->device_id_type = dup_or_null(vg->pool, orphan->device_id_type);  /* devices file */
    pv->device_id = dup_or_null(vg->pool, orphan->device_id);
    pv->pe_count = lvx_vgops_pe_count(pv, vg->extent_size);
    if (out)
        *out = pv;
    return 0;
}

bool lvx_vgops_has_partial_lvs(const struct lvx_vg *vg)
{
    for (unsigned l = 0; l < vg->lv_count; l++)
        for (unsigned s = 0; s < vg->lvs[l]->seg_count; s++) {
            const struct lvx_seg *seg = &vg->lvs[l]->segs[s];
            for (unsigned a = 0; a < seg->area_count; a++)
                if (seg->areas[a].pv && !seg->areas[a].pv->ondisk.present)
                    return true;
        }
    return false;
}

bool lvx_vgops_spv_holds_vg(const struct lvx_scan_pv *spv, const char *vg_uuid)
{
    for (unsigned m = 0; m < spv->mda_count; m++)
        if (spv->mda[m].text && strcmp(spv->mda[m].vg_uuid, vg_uuid) == 0)
            return true;
    return false;
}

/* ---- removal of partial LVs ------------------------------------------------------- */

enum ref_kind { REF_USE, REF_ORIGIN, REF_SHARED_POOL, REF_COW };

struct doom_state {
    bool *doomed;            /* per LV index */
    const bool *visible;
    bool changed;
};

typedef bool (*ref_fn)(enum ref_kind kind, const struct lvx_lv *lv, struct doom_state *st);

/* Call want() for every LV a segment refers to; true as soon as one returns true. */
static bool seg_refs_any(const struct lvx_seg *seg, struct doom_state *doomed, ref_fn want)
{
    for (unsigned a = 0; a < seg->area_count; a++) {
        if (seg->areas[a].lv && want(REF_USE, seg->areas[a].lv, doomed))
            return true;
        if (seg->meta_areas && seg->meta_areas[a].lv && want(REF_USE, seg->meta_areas[a].lv, doomed))
            return true;
    }
    const struct lvx_lv *single[] = { seg->log_lv, seg->metadata_lv, seg->data_lv };
    for (unsigned i = 0; i < 3; i++)
        if (single[i] && want(REF_USE, single[i], doomed))
            return true;
    if (seg->pool_lv && want(seg->kind == LVX_SEG_THIN ? REF_SHARED_POOL : REF_USE, seg->pool_lv,
                             doomed))
        return true;
    if (seg->origin_lv && want(REF_ORIGIN, seg->origin_lv, doomed))
        return true;
    if (seg->cow_lv && want(REF_COW, seg->cow_lv, doomed))
        return true;
    return false;
}

static bool ref_is_doomed(enum ref_kind kind, const struct lvx_lv *lv, struct doom_state *st)
{
    (void)kind;
    return st->doomed[lv->index];
}

static bool on_missing_pv(const struct lvx_lv *lv)
{
    for (unsigned s = 0; s < lv->seg_count; s++)
        for (unsigned a = 0; a < lv->segs[s].area_count; a++)
            if (lv->segs[s].areas[a].pv && !lv->segs[s].areas[a].pv->ondisk.present)
                return true;
    return false;
}

/* Sub-LVs used by a doomed LV go with it: hidden ones, and a snapshot's COW. */
static bool doom_sub_lv(enum ref_kind kind, const struct lvx_lv *lv, struct doom_state *st)
{
    if (kind == REF_ORIGIN || kind == REF_SHARED_POOL || st->doomed[lv->index])
        return false;
    if (kind == REF_COW || !st->visible[lv->index]) {
        st->doomed[lv->index] = true;
        st->changed = true;
    }
    return false;
}

unsigned lvx_vgops_remove_partial_lvs(struct lvx_vg *vg, struct lvx_strlist *removed)
{
    unsigned n = vg->lv_count;
    bool *doomed = lvx_xcalloc(n + 1, sizeof(bool));
    bool *visible = lvx_xcalloc(n + 1, sizeof(bool));
    lvx_vg_lv_visibility(vg, visible);
    struct doom_state st = { .doomed = doomed, .visible = visible };

    bool changed = true;
    while (changed) {
        changed = false;
        for (unsigned l = 0; l < n; l++) {
            const struct lvx_lv *lv = vg->lvs[l];
            if (doomed[l])
                continue;
            bool doom = on_missing_pv(lv);
            for (unsigned s = 0; s < lv->seg_count && !doom; s++)
                doom = seg_refs_any(&lv->segs[s], &st, ref_is_doomed);
            if (doom)
                doomed[l] = changed = true;
        }
        st.changed = false;
        for (unsigned l = 0; l < n; l++)
            if (doomed[l])
                for (unsigned s = 0; s < vg->lvs[l]->seg_count; s++)
                    seg_refs_any(&vg->lvs[l]->segs[s], &st, doom_sub_lv);
        changed |= st.changed;
    }

    unsigned count = 0;
    for (unsigned l = n; l-- > 0;) {
        if (!doomed[l])
            continue;
        if (visible[l] && removed)
            lvx_strlist_add(vg->pool, removed, vg->lvs[l]->name);
        lvx_vg_remove_lv(vg, vg->lvs[l]);
        count++;
    }
    free(doomed);
    free(visible);
    return count;
}
