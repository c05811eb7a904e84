/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/rows.c - the rows of each report type: one per PV (orphans last), VG,
 * LV (hidden ones with -a; the internal snapshotN LVs never), LV segment, or PV
 * segment (runs of a PV used by one LV segment area, and free runs between them;
 * an orphan PV has one empty free run).
 */
#include "report/report_int.h"

#include <stdlib.h>

struct lvx_rowvec {
    struct lvx_rrow **v;
    unsigned n, cap;
};

static struct lvx_rrow *new_row(struct lvx_pool *pool, struct lvx_rowvec *rows,
                                const struct lvx_rvg *rvg)
{
    if (rows->n == rows->cap) {
        unsigned cap = rows->cap ? rows->cap * 2 : 64;
        rows->v = lvx_pool_realloc(pool, rows->v, sizeof(*rows->v) * rows->cap,
                                   sizeof(*rows->v) * cap);
        rows->cap = cap;
    }
    struct lvx_rrow *r = lvx_pool_alloc(pool, sizeof(*r));
    r->rvg = rvg;
    r->vg = rvg ? rvg->vg : NULL;
    r->order = rows->n;
    rows->v[rows->n++] = r;
    return r;
}

static bool lv_listed(const struct lvx_rvg *rvg, const struct lvx_lv *lv, bool all)
{
    const struct lvx_rlv *r = lvx_report_rlv(rvg, lv);
    if (r->snapshot_internal)
        return false;
    return all || r->visible;
}

/* one PV extent run used by a segment area */
struct run {
    uint64_t start, len;
    const struct lvx_lv *lv;
    const struct lvx_seg *seg;
};

static int run_cmp(const void *a, const void *b)
{
    const struct run *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static unsigned collect_runs(const struct lvx_vg *vg, const struct lvx_pv *pv, struct run **out)
{
    unsigned n = 0, cap = 0;
    struct run *runs = NULL;
    for (unsigned l = 0; l < vg->lv_count; l++) {
        const struct lvx_lv *lv = vg->lvs[l];
        for (unsigned s = 0; s < lv->seg_count; s++) {
            const struct lvx_seg *seg = &lv->segs[s];
            for (uint32_t a = 0; seg->areas && a < seg->area_count; a++) {
                if (seg->areas[a].pv != pv)
                    continue;
                if (n == cap) {
                    cap = cap ? cap * 2 : 16;
                    runs = lvx_xrealloc(runs, sizeof(*runs) * cap);
                }
                runs[n++] = (struct run){ seg->areas[a].start, lvx_report_seg_area_len(seg), lv, seg };
            }
        }
    }
    if (n)
        qsort(runs, n, sizeof(*runs), run_cmp);
    *out = runs;
    return n;
}

static void free_row(struct lvx_pool *pool, struct lvx_rowvec *rows, const struct lvx_rvg *rvg,
                     const struct lvx_pv *pv, uint64_t start, uint64_t len)
{
    struct lvx_rrow *r = new_row(pool, rows, rvg);
    r->pv = pv;
    r->free_run = true;
    r->pvseg_start = start;
    r->pvseg_size = len;
}

static void pvseg_rows(struct lvx_pool *pool, struct lvx_rowvec *rows, const struct lvx_rvg *rvg,
                       const struct lvx_pv *pv)
{
    if (!rvg) {
        free_row(pool, rows, NULL, pv, 0, 0);
        return;
    }
    struct run *runs;
    unsigned n = collect_runs(rvg->vg, pv, &runs);
    uint64_t pos = 0;
    for (unsigned i = 0; i < n; i++) {
        if (runs[i].start > pos)
            free_row(pool, rows, rvg, pv, pos, runs[i].start - pos);
        struct lvx_rrow *r = new_row(pool, rows, rvg);
        r->pv = pv;
        r->lv = runs[i].lv;
        r->seg = runs[i].seg;
        r->pvseg_start = runs[i].start;
        r->pvseg_size = runs[i].len;
        if (runs[i].start + runs[i].len > pos)
            pos = runs[i].start + runs[i].len;
    }
    if (pos < pv->pe_count || (n == 0 && pv->pe_count == 0))
        free_row(pool, rows, rvg, pv, pos, pv->pe_count > pos ? pv->pe_count - pos : 0);
    free(runs);
}

static void lv_rows(struct lvx_pool *pool, struct lvx_rowvec *rows, const struct lvx_rvg *rvg,
                    const struct lvx_lv *lv, enum lvx_report_kind kind)
{
    if (kind == LVX_REPORT_LVS) {
        new_row(pool, rows, rvg)->lv = lv;
        return;
    }
    for (unsigned s = 0; s < lv->seg_count; s++) {
        struct lvx_rrow *r = new_row(pool, rows, rvg);
        r->lv = lv;
        r->seg = &lv->segs[s];
    }
}

void lvx_report_build_rows(struct lvx_pool *pool, enum lvx_report_kind kind, bool all,
                           bool orphans_too, struct lvx_rvg *const *rvgs, unsigned vg_count,
                           struct lvx_pv *const *orphans, unsigned orphan_count,
                           struct lvx_rrow ***out, unsigned *out_n)
{
    struct lvx_rowvec rows = { NULL, 0, 0 };
    for (unsigned g = 0; g < vg_count; g++) {
        const struct lvx_rvg *rvg = rvgs[g];
        const struct lvx_vg *vg = rvg->listed;
        if (kind == LVX_REPORT_VGS) {
            new_row(pool, &rows, rvg);
            continue;
        }
        if (kind == LVX_REPORT_PVS || kind == LVX_REPORT_PVSEGS) {
            for (unsigned p = 0; p < vg->pv_count; p++) {
                if (kind == LVX_REPORT_PVS)
                    new_row(pool, &rows, rvg)->pv = vg->pvs[p];
                else
                    pvseg_rows(pool, &rows, rvg, vg->pvs[p]);
            }
            continue;
        }
        /* LVM2 processes thin pools first, then the other LVs in metadata order */
        for (int pass = 0; pass < 2; pass++)
            for (unsigned l = 0; l < vg->lv_count; l++) {
                const struct lvx_lv *lv = vg->lvs[l];
                bool thin_pool = lv->seg_count && lv->segs[0].kind == LVX_SEG_THIN_POOL;
                if (thin_pool != (pass == 0) || !lv_listed(rvg, lv, all))
                    continue;
                lv_rows(pool, &rows, rvg, lv, kind);
            }
    }
    if (orphans_too && (kind == LVX_REPORT_PVS || kind == LVX_REPORT_PVSEGS))
        for (unsigned p = 0; p < orphan_count; p++) {
            if (kind == LVX_REPORT_PVS)
                new_row(pool, &rows, NULL)->pv = orphans[p];
            else
                pvseg_rows(pool, &rows, NULL, orphans[p]);
        }
    *out = rows.v;
    *out_n = rows.n;
}
