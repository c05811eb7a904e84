/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/getters_pv.c - values of the PV and PV-segment fields.
 *
 * What comes from the device (dev_size, metadata areas, bootloader area) is in
 * pv->ondisk; what comes from the VG metadata (pe_start, pe_count, status) is in
 * the PV itself.  An orphan PV (no VG) shows its label's values and "---" attrs.
 * Metadata-area free space follows lvm2-format.md §13.1.
 */
#include "report/report_int.h"

#include <stdio.h>
#include <string.h>

static uint64_t bytes_to_sectors(uint64_t b)
{
    return b / 512;
}

static uint64_t pv_dev_sectors(const struct lvx_pv *pv)
{
    if (pv->ondisk.present && pv->ondisk.dev_bytes)
        return bytes_to_sectors(pv->ondisk.dev_bytes);
    if (pv->has_dev_size)
        return pv->dev_size;
    return bytes_to_sectors(pv->ondisk.hdr_device_size);
}

static uint64_t pv_size_sectors(const struct lvx_pv *pv)
{
    if (pv->ondisk.no_label)
        return 0;
    if (pv->vg)
        return (uint64_t)pv->pe_count * pv->vg->extent_size;
    if (pv->ondisk.hdr_device_size)
        return bytes_to_sectors(pv->ondisk.hdr_device_size);
    return pv_dev_sectors(pv);
}

/* free bytes of one metadata area: max text size minus the committed text */
static uint64_t mda_free_bytes(const struct lvx_pv_mda *m)
{
    if (m->ignored || m->size < 1024)
        return 0;
    uint64_t max = (m->size - 512) / 2;
    if (max < 512)
        return 0;
    max -= 512;
    return max > m->text_size ? (max - m->text_size) / 512 * 512 : 0;
}

LVX_RGETTER(pv_fmt) { (void)rc; lvx_rval_str(v, row->pv->ondisk.no_label ? "" : "lvm2"); }

LVX_RGETTER(pv_uuid)
{
    if (row->pv->ondisk.no_label) {
        lvx_rval_str(v, "");
        return;
    }
    char *s = lvx_pool_alloc(rc->pool, LVX_UUID_DASHED_LEN + 1);
    lvx_report_uuid_format(row->pv->uuid, s);
    lvx_rval_str(v, s);
}

LVX_RGETTER(pv_name) { (void)rc; lvx_rval_str(v, lvx_report_pv_dev_name(row->pv)); }

LVX_RGETTER(pv_major)
{
    lvx_rval_str(v, lvx_pool_printf(rc->pool, "%u", row->pv->ondisk.dev_major));
}

LVX_RGETTER(pv_minor)
{
    lvx_rval_str(v, lvx_pool_printf(rc->pool, "%u", row->pv->ondisk.dev_minor));
}

LVX_RGETTER(dev_size) { (void)rc; lvx_rval_size(v, pv_dev_sectors(row->pv)); }
LVX_RGETTER(pv_size) { (void)rc; lvx_rval_size(v, pv_size_sectors(row->pv)); }

LVX_RGETTER(pe_start)
{
    (void)rc;
    const struct lvx_pv *pv = row->pv;
    lvx_rval_size(v, pv->vg ? pv->pe_start : bytes_to_sectors(pv->ondisk.hdr_pe_start));
}

LVX_RGETTER(pv_used)
{
    (void)rc;
    const struct lvx_pv *pv = row->pv;
    uint64_t ext = pv->vg ? pv->vg->extent_size : 0;
    lvx_rval_size(v, lvx_report_pv_alloc(row->rvg, pv) * ext);
}

LVX_RGETTER(pv_free)
{
    (void)rc;
    const struct lvx_pv *pv = row->pv;
    if (!pv->vg) {
        lvx_rval_size(v, lvx_report_pv_used_orphan(pv) ? 0 : pv_size_sectors(pv));
        return;
    }
    uint64_t used = lvx_report_pv_alloc(row->rvg, pv);
    uint64_t free_pe = pv->pe_count > used ? pv->pe_count - used : 0;
    lvx_rval_size(v, free_pe * pv->vg->extent_size);
}

LVX_RGETTER(pv_pe_count) { (void)rc; lvx_rval_num(v, row->pv->vg ? row->pv->pe_count : 0); }

LVX_RGETTER(pv_pe_alloc_count)
{
    (void)rc;
    lvx_rval_num(v, lvx_report_pv_alloc(row->rvg, row->pv));
}

LVX_RGETTER(pv_attr)
{
    const struct lvx_pv *pv = row->pv;
    char *a = lvx_pool_alloc(rc->pool, 4);
    bool exported = (pv->status & LVX_PV_EXPORTED) || (pv->vg && (pv->vg->status & LVX_VG_EXPORTED));
    /* (a)llocatable, or (u)sed: in a VG but not allocatable (pvchange -x n) */
    a[0] = !pv->vg ? (lvx_report_pv_used_orphan(pv) ? 'u' : '-')
                   : (pv->status & LVX_PV_ALLOCATABLE) ? 'a' : 'u';
    a[1] = exported ? 'x' : '-';
    a[2] = pv->vg && lvx_report_pv_missing(pv) ? 'm' : '-';
    lvx_rval_str(v, a);
}

LVX_RGETTER(pv_allocatable)
{
    (void)rc;
    lvx_rval_str(v, row->pv->vg && (row->pv->status & LVX_PV_ALLOCATABLE) ? "allocatable" : "");
}

LVX_RGETTER(pv_exported)
{
    (void)rc;
    const struct lvx_pv *pv = row->pv;
    bool exported = (pv->status & LVX_PV_EXPORTED) || (pv->vg && (pv->vg->status & LVX_VG_EXPORTED));
    lvx_rval_str(v, exported ? "exported" : "");
}

LVX_RGETTER(pv_missing)
{
    (void)rc;
    lvx_rval_str(v, row->pv->vg && lvx_report_pv_missing(row->pv) ? "missing" : "");
}

LVX_RGETTER(pv_in_use)
{
    (void)rc;
    lvx_rval_str(v, row->pv->vg || lvx_report_pv_used_orphan(row->pv) ? "used" : "");
}
LVX_RGETTER(pv_tags) { lvx_rval_tags(rc->pool, v, &row->pv->tags); }

LVX_RGETTER(pv_device_id)
{
    (void)rc;
    lvx_rval_str(v, row->pv->device_id);
}

LVX_RGETTER(pv_device_id_type)
{
    (void)rc;
    lvx_rval_str(v, row->pv->device_id_type);
}

LVX_RGETTER(pv_mda_count) { (void)rc; lvx_rval_num(v, row->pv->ondisk.mda_count); }

LVX_RGETTER(pv_mda_used_count)
{
    (void)rc;
    const struct lvx_pv_ondisk *d = &row->pv->ondisk;
    unsigned n = 0;
    for (unsigned i = 0; i < d->mda_count && i < 2; i++)
        if (!d->mda[i].ignored)
            n++;
    lvx_rval_num(v, n);
}

LVX_RGETTER(pv_mda_size)
{
    (void)rc;
    const struct lvx_pv_ondisk *d = &row->pv->ondisk;
    uint64_t min = 0;
    for (unsigned i = 0; i < d->mda_count && i < 2; i++)
        if (i == 0 || d->mda[i].size < min)
            min = d->mda[i].size;
    lvx_rval_size(v, bytes_to_sectors(min));
}

LVX_RGETTER(pv_mda_free)
{
    (void)rc;
    const struct lvx_pv_ondisk *d = &row->pv->ondisk;
    uint64_t min = 0;
    for (unsigned i = 0; i < d->mda_count && i < 2; i++) {
        uint64_t f = mda_free_bytes(&d->mda[i]);
        if (i == 0 || f < min)
            min = f;
    }
    lvx_rval_size(v, bytes_to_sectors(min));
}

LVX_RGETTER(pv_ba_start)
{
    (void)rc;
    const struct lvx_pv *pv = row->pv;
    lvx_rval_size(v, pv->has_ba ? pv->ba_start : bytes_to_sectors(pv->ondisk.ba_start));
}

LVX_RGETTER(pv_ba_size)
{
    (void)rc;
    const struct lvx_pv *pv = row->pv;
    lvx_rval_size(v, pv->has_ba ? pv->ba_size : bytes_to_sectors(pv->ondisk.ba_size));
}

LVX_RGETTER(pv_ext_vsn) { (void)rc; lvx_rval_num(v, row->pv->ondisk.ext_version); }

LVX_RGETTER(pvseg_start) { (void)rc; lvx_rval_num(v, (int64_t)row->pvseg_start); }
LVX_RGETTER(pvseg_size) { (void)rc; lvx_rval_num(v, (int64_t)row->pvseg_size); }

/* helpers shared with the VG getters */
uint64_t lvx_report_mda_free_bytes(const struct lvx_pv_mda *m)
{
    return mda_free_bytes(m);
}

void lvx_report_uuid_format(const char *raw, char out[LVX_UUID_DASHED_LEN + 1])
{
    static const int groups[] = { 6, 4, 4, 4, 4, 4, 6 };
    size_t len = strnlen(raw, LVX_UUID_LEN);
    size_t o = 0, r = 0;
    if (len != LVX_UUID_LEN) {
        snprintf(out, LVX_UUID_DASHED_LEN + 1, "%s", raw);
        return;
    }
    for (unsigned g = 0; g < 7; g++) {
        if (g)
            out[o++] = '-';
        for (int i = 0; i < groups[g]; i++)
            out[o++] = raw[r++];
    }
    out[o] = '\0';
}
