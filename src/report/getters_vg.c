/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/getters_vg.c - values of the VG fields.  A row without a VG (an orphan
 * PV in pvs) shows what LVM2 shows for its orphan VG: empty name, "r-----",
 * zero sizes and counts.
 */
#include <string.h>

#include "report/report_int.h"

static bool vg_writeable(const struct lvx_vg *vg)
{
    return (vg->status & LVX_VG_WRITE) || (vg->flags & LVX_VGF_WRITE_LOCKED);
}

static char vg_alloc_letter(enum lvx_alloc a)
{
    switch (a) {
    case LVX_ALLOC_CONTIGUOUS: return 'c';
    case LVX_ALLOC_CLING:
    case LVX_ALLOC_CLING_BY_TAGS: return 'l';
    case LVX_ALLOC_ANYWHERE: return 'a';
    default: return 'n';
    }
}

static const char *alloc_name(enum lvx_alloc a)
{
    switch (a) {
    case LVX_ALLOC_INHERIT: return "inherit";
    case LVX_ALLOC_CONTIGUOUS: return "contiguous";
    case LVX_ALLOC_CLING: return "cling";
    case LVX_ALLOC_CLING_BY_TAGS: return "cling_by_tags";
    case LVX_ALLOC_NORMAL: return "normal";
    case LVX_ALLOC_ANYWHERE: return "anywhere";
    }
    return "unknown";
}

const char *lvx_report_alloc_name(enum lvx_alloc a)
{
    return alloc_name(a);
}

/* an orphan's free run in pvs --segments has no format, its PV row has */
LVX_RGETTER(vg_fmt) { (void)rc; lvx_rval_str(v, !row->vg && row->free_run ? "" : "lvm2"); }
LVX_RGETTER(vg_name)
{
    (void)rc;
    lvx_rval_str(v, row->vg ? row->vg->name
                    : row->pv && lvx_report_pv_used_orphan(row->pv) ? "[unknown]" : "");
}

LVX_RGETTER(vg_uuid)
{
    if (!row->vg) {
        lvx_rval_str(v, "");
        return;
    }
    char *s = lvx_pool_alloc(rc->pool, LVX_UUID_DASHED_LEN + 1);
    lvx_report_uuid_format(row->vg->uuid, s);
    lvx_rval_str(v, s);
}

LVX_RGETTER(vg_attr)
{
    const struct lvx_vg *vg = row->vg;
    if (!vg) {
        lvx_rval_str(v, "r-----");
        return;
    }
    char *a = lvx_pool_alloc(rc->pool, 7);
    a[0] = vg_writeable(vg) ? 'w' : 'r';
    a[1] = (vg->status & LVX_VG_RESIZEABLE) ? 'z' : '-';
    a[2] = (vg->status & LVX_VG_EXPORTED) ? 'x' : '-';
    a[3] = row->rvg && row->rvg->missing_pvs ? 'p' : '-';
    a[4] = vg_alloc_letter(vg->alloc);
    a[5] = (vg->status & LVX_VG_CLUSTERED) ? 'c'
           : (vg->status & LVX_VG_SHARED) || lvx_vg_is_lockd(vg) ? 's' : '-';
    lvx_rval_str(v, a);
}

LVX_RGETTER(vg_permissions)
{
    (void)rc;
    lvx_rval_str(v, row->vg && vg_writeable(row->vg) ? "writeable" : "read-only");
}

LVX_RGETTER(vg_extendable)
{
    (void)rc;
    lvx_rval_str(v, row->vg && (row->vg->status & LVX_VG_RESIZEABLE) ? "extendable" : "");
}

LVX_RGETTER(vg_exported)
{
    (void)rc;
    lvx_rval_str(v, row->vg && (row->vg->status & LVX_VG_EXPORTED) ? "exported" : "");
}

LVX_RGETTER(vg_autoactivation)
{
    (void)rc;
    lvx_rval_str(v, !row->vg || !(row->vg->flags & LVX_VGF_NOAUTOACTIVATE) ? "enabled" : "");
}

LVX_RGETTER(vg_partial)
{
    (void)rc;
    lvx_rval_str(v, row->rvg && row->rvg->missing_pvs ? "partial" : "");
}

LVX_RGETTER(vg_clustered)
{
    (void)rc;
    lvx_rval_str(v, row->vg && (row->vg->status & LVX_VG_CLUSTERED) ? "clustered" : "");
}

LVX_RGETTER(vg_shared)
{
    (void)rc;
    lvx_rval_str(v, row->vg && ((row->vg->status & LVX_VG_SHARED) || lvx_vg_is_lockd(row->vg))
                        ? "shared" : "");
}

LVX_RGETTER(vg_allocation_policy)
{
    (void)rc;
    lvx_rval_str(v, row->vg ? alloc_name(row->vg->alloc) : "unknown");
}

LVX_RGETTER(vg_size)
{
    (void)rc;
    lvx_rval_size(v, row->vg ? row->rvg->extent_count * row->vg->extent_size : 0);
}

LVX_RGETTER(vg_free)
{
    (void)rc;
    lvx_rval_size(v, row->vg ? row->rvg->free_count * row->vg->extent_size : 0);
}

LVX_RGETTER(vg_sysid) { (void)rc; lvx_rval_str(v, row->vg ? row->vg->system_id : ""); }
LVX_RGETTER(vg_lock_type)     /* LVM2 shows lock_type "none" as blank */
{
    (void)rc;
    const char *t = row->vg ? row->vg->lock_type : NULL;
    lvx_rval_str(v, t && strcmp(t, "none") != 0 ? t : "");
}
LVX_RGETTER(vg_lock_args) { (void)rc; lvx_rval_str(v, row->vg ? row->vg->lock_args : ""); }
LVX_RGETTER(vg_profile) { (void)rc; lvx_rval_str(v, row->vg ? row->vg->profile : ""); }

LVX_RGETTER(vg_tags) { lvx_rval_tags(rc->pool, v, row->vg ? &row->vg->tags : NULL); }

LVX_RGETTER(vg_extent_size)
{
    (void)rc;
    lvx_rval_size(v, row->vg ? row->vg->extent_size : 0);
}

LVX_RGETTER(vg_extent_count)
{
    (void)rc;
    lvx_rval_num(v, row->vg ? (int64_t)row->rvg->extent_count : 0);
}

LVX_RGETTER(vg_free_count)
{
    (void)rc;
    lvx_rval_num(v, row->vg ? (int64_t)row->rvg->free_count : 0);
}

LVX_RGETTER(max_lv) { (void)rc; lvx_rval_num(v, row->vg ? row->vg->max_lv : 0); }
LVX_RGETTER(max_pv) { (void)rc; lvx_rval_num(v, row->vg ? row->vg->max_pv : 0); }
LVX_RGETTER(pv_count) { (void)rc; lvx_rval_num(v, row->vg ? row->vg->pv_count : 0); }
LVX_RGETTER(lv_count) { (void)rc; lvx_rval_num(v, row->vg ? row->rvg->visible_lvs : 0); }
LVX_RGETTER(snap_count) { (void)rc; lvx_rval_num(v, row->vg ? row->rvg->snapshots : 0); }
LVX_RGETTER(vg_seqno) { (void)rc; lvx_rval_num(v, row->vg ? row->vg->seqno : 0); }

LVX_RGETTER(vg_missing_pv_count)
{
    (void)rc;
    lvx_rval_num(v, row->vg ? row->rvg->missing_pvs : 0);
}

LVX_RGETTER(vg_mda_count)
{
    (void)rc;
    unsigned n = 0;
    for (unsigned p = 0; row->vg && p < row->vg->pv_count; p++)
        n += row->vg->pvs[p]->ondisk.mda_count;
    lvx_rval_num(v, n);
}

LVX_RGETTER(vg_mda_used_count)
{
    (void)rc;
    unsigned n = 0;
    for (unsigned p = 0; row->vg && p < row->vg->pv_count; p++) {
        const struct lvx_pv_ondisk *d = &row->vg->pvs[p]->ondisk;
        for (unsigned i = 0; i < d->mda_count && i < 2; i++)
            n += !d->mda[i].ignored;
    }
    lvx_rval_num(v, n);
}

/* smallest size (or free space) over the VG's metadata areas in use */
static uint64_t vg_mda_min(const struct lvx_vg *vg, bool want_free)
{
    bool any = false;
    uint64_t min = 0;
    for (unsigned p = 0; vg && p < vg->pv_count; p++) {
        const struct lvx_pv_ondisk *d = &vg->pvs[p]->ondisk;
        for (unsigned i = 0; i < d->mda_count && i < 2; i++) {
            if (d->mda[i].ignored)
                continue;
            uint64_t x = want_free ? lvx_report_mda_free_bytes(&d->mda[i]) : d->mda[i].size;
            if (!any || x < min)
                min = x;
            any = true;
        }
    }
    return min / 512;
}

LVX_RGETTER(vg_mda_size) { (void)rc; lvx_rval_size(v, vg_mda_min(row->vg, false)); }
LVX_RGETTER(vg_mda_free) { (void)rc; lvx_rval_size(v, vg_mda_min(row->vg, true)); }

LVX_RGETTER(vg_mda_copies)
{
    (void)rc;
    uint32_t n = row->vg && row->vg->has_metadata_copies ? row->vg->metadata_copies : 0;
    lvx_rval_num(v, n);
    if (n == 0)
        v->str = "unmanaged";
}
