/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/report.c - lvx_report(): columns and sort keys (columns.c), the report
 * type they need, rows (rows.c), selection (select.c), sorting, rendering of
 * every cell with --units, output (output.c); lvx_report_values(): the same rows and
 * getters, the cells handed back as values (the liblvx object API).
 *
 * Report type: as LVM2, fields of a "wider" object turn a report into the one
 * that has rows for them: pvs with LV/segment fields becomes pvs --segments, vgs
 * with LV fields becomes lvs, lvs with segment fields becomes lvs --segments; LV
 * and PV fields cannot be mixed outside PV segments.
 */
#include "report/report_int.h"

#include "activate/activate.h"
#include "model/thin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(enum lvx_report_kind kind)
{
    static const char *const names[] = {
        [LVX_REPORT_PVS] = "pv", [LVX_REPORT_VGS] = "vg", [LVX_REPORT_LVS] = "lv",
        [LVX_REPORT_SEGS] = "seg", [LVX_REPORT_PVSEGS] = "pvseg",
    };
    return names[kind];
}

static unsigned list_objects(const struct lvx_collist *l)
{
    unsigned m = 0;
    for (unsigned i = 0; i < l->n; i++)
        m |= l->f[i]->obj;
    return m;
}

/* the report type that has rows for every object in `need` */
static int final_kind(struct lvx_ctx *ctx, enum lvx_report_kind base, unsigned need,
                      enum lvx_report_kind *out)
{
    const unsigned lv_side = LVX_ROBJ_LV | LVX_ROBJ_SEG;
    const unsigned pv_side = LVX_ROBJ_PV | LVX_ROBJ_PVSEG;
    enum lvx_report_kind k = base;
    if (base == LVX_REPORT_PVS && (need & (lv_side | LVX_ROBJ_PVSEG)))
        k = LVX_REPORT_PVSEGS;
    else if (base == LVX_REPORT_VGS && (need & lv_side) && (need & pv_side))
        goto mixed;
    else if (base == LVX_REPORT_VGS && (need & LVX_ROBJ_PVSEG))
        k = LVX_REPORT_PVSEGS;
    else if (base == LVX_REPORT_VGS && (need & LVX_ROBJ_PV))
        k = LVX_REPORT_PVS;
    else if (base == LVX_REPORT_VGS && (need & LVX_ROBJ_SEG))
        k = LVX_REPORT_SEGS;
    else if (base == LVX_REPORT_VGS && (need & LVX_ROBJ_LV))
        k = LVX_REPORT_LVS;
    else if (base == LVX_REPORT_LVS && (need & pv_side))
        goto mixed;
    else if (base == LVX_REPORT_LVS && (need & LVX_ROBJ_SEG))
        k = LVX_REPORT_SEGS;
    else if (base == LVX_REPORT_SEGS && (need & pv_side))
        goto mixed;
    *out = k;
    return 0;
mixed:
    return lvx_error(ctx, EINVAL,
                     "Can't report LV and PV fields at the same time in report type \"%s\".",
                     kind_name(base));
}

/* qsort has no context argument in C11: the comparator reads the keys here */
static _Thread_local const struct lvx_collist *sort_keys;

static int row_cmp(const void *a, const void *b)
{
    const struct lvx_rrow *x = *(struct lvx_rrow *const *)a;
    const struct lvx_rrow *y = *(struct lvx_rrow *const *)b;
    for (unsigned k = 0; k < sort_keys->n; k++) {
        int c = lvx_rval_cmp(&x->vals[k], &y->vals[k]);
        if (c)
            return sort_keys->desc[k] ? -c : c;
    }
    return x->order < y->order ? -1 : x->order > y->order;
}

static void sort_rows(struct lvx_rctx *rc, struct lvx_rrow **rows, unsigned n,
                      const struct lvx_collist *keys)
{
    for (unsigned r = 0; r < n; r++) {
        rows[r]->vals = lvx_pool_alloc(rc->pool, sizeof(struct lvx_rval) * (keys->n + 1));
        for (unsigned k = 0; k < keys->n; k++)
            keys->f[k]->get(rc, rows[r], &rows[r]->vals[k]);
    }
    if (n < 2)
        return;
    sort_keys = keys;
    qsort(rows, n, sizeof(*rows), row_cmp);
    sort_keys = NULL;
}

static void render_cells(struct lvx_rctx *rc, struct lvx_rrow **rows, unsigned n,
                         const struct lvx_collist *cols, char units,
                         uint64_t unit_bytes, bool nosuffix)
{
    struct lvx_buf b = LVX_BUF_INIT;
    for (unsigned r = 0; r < n; r++) {
        rows[r]->cells = lvx_pool_alloc(rc->pool, sizeof(char *) * (cols->n + 1));
        for (unsigned c = 0; c < cols->n; c++) {
            struct lvx_rval v;
            cols->f[c]->get(rc, rows[r], &v);
            lvx_buf_reset(&b);
            lvx_rval_format(&b, &v, units, unit_bytes, nosuffix);
            const char *cell = lvx_buf_str(&b);
            if (rc->opts->binary && lvx_report_field_binary(cols->f[c]))
                cell = !*cell ? "0" : strcmp(cell, "unknown") == 0 ? "-1" : "1";
            rows[r]->cells[c] = lvx_pool_strdup(rc->pool, cell);
        }
    }
    lvx_buf_free(&b);
}

static unsigned select_rows(struct lvx_rctx *rc, const struct lvx_sel *sel, struct lvx_rrow **rows,
                            unsigned n)
{
    unsigned kept = 0;
    for (unsigned r = 0; r < n; r++)
        if (lvx_report_select_match(rc, sel, rows[r]))
            rows[kept++] = rows[r];
    return kept;
}

/* What lvx_report() and lvx_report_values() share: the columns of opts->fields, the rows
 * (hidden LVs only with opts->all, selected, sorted) and the context their getters use. */
struct prepared {
    enum lvx_report_kind kind;
    struct lvx_collist cols;
    struct lvx_rrow **rows;
    unsigned nrows;
    struct lvx_rctx rc;
};

/* LVM2's lvs of the origin of a waiting thin merge (tools/reporter.c): when its live
 * table maps the snapshot's thin device, the merge is done in the kernel and the row's
 * segment fields (thin_id, transaction_id, ...) are the snapshot's segment's until the
 * metadata catch up; its LV fields stay the origin's. */
static void merged_thin_rows(const struct lvx_report_opts *opts, struct lvx_rrow **rows,
                             unsigned n)
{
    const struct lvx_vg *vg = NULL;
    bool merges = false;
    for (unsigned i = 0; opts->lv_kstate && i < n; i++) {
        const struct lvx_lv *lv = rows[i]->lv;
        if (!lv || !lvx_lv_is_thin(lv))
            continue;
        if (lv->vg != vg) {     /* one look over each VG for a waiting merge */
            vg = lv->vg;
            merges = false;
            for (unsigned l = 0; l < vg->lv_count && !merges; l++) {
                const struct lvx_seg *ts = lvx_lv_thin_seg(vg->lvs[l]);
                merges = ts && ts->merging;
            }
        }
        const struct lvx_seg *m = merges ? lvx_thin_merging_into(lv) : NULL;
        struct lvx_lv_kstate k;
        memset(&k, 0, sizeof(k));
        if (m && opts->lv_kstate(opts->kstate_arg, lv, &k) == 0 && k.active &&
            k.thin_dev_known && k.thin_dev_id == m->device_id && rows[i]->seg)
            rows[i]->seg = m;
    }
}

static int prepare(struct lvx_ctx *ctx, struct lvx_pool *pool, enum lvx_report_kind base,
                   const struct lvx_report_opts *opts, struct lvx_vg *const *vgs,
                   unsigned vg_count, struct lvx_pv *const *orphans, unsigned orphan_count,
                   struct lvx_sel **sel, struct prepared *p)
{
    struct lvx_collist keys;
    p->kind = base;
    int r = lvx_report_parse_columns(ctx, pool, base, opts->default_fields, opts->fields,
                                     &p->cols);
    if (r == 0)
        r = lvx_report_parse_sort(ctx, pool, base, opts->default_sort, opts->sort, &keys);
    if (r == 0 && opts->select)
        r = lvx_report_select_parse(ctx, pool, opts->select, lvx_report_kind_obj(base), sel);
    if (r == 0)
        r = final_kind(ctx, base,
                       list_objects(&p->cols) | list_objects(&keys) |
                           lvx_report_select_objects(*sel),
                       &p->kind);
    if (r < 0)
        return r;

    struct lvx_rvg **rvgs = lvx_pool_alloc(pool, sizeof(*rvgs) * (vg_count + 1));
    for (unsigned g = 0; g < vg_count; g++)
        rvgs[g] = lvx_report_rvg_build(pool, vgs[g]);   /* figures of the whole VG */
    lvx_report_build_rows(pool, p->kind, opts->all, base != LVX_REPORT_VGS, rvgs, vg_count,
                          orphans, orphan_count, &p->rows, &p->nrows);
    if (base == LVX_REPORT_LVS)
        merged_thin_rows(opts, p->rows, p->nrows);

    p->rc = (struct lvx_rctx){ .pool = pool, .opts = opts };
    p->nrows = select_rows(&p->rc, *sel, p->rows, p->nrows);
    if (!opts->unbuffered || opts->sort)
        sort_rows(&p->rc, p->rows, p->nrows, &keys);
    return 0;
}

/* LVM2's compaction: the columns asked for (-o#a,b, report/compact_output_cols, or all
 * with report/compact_output) that are blank in every row are left out.  Without rows
 * nothing is left out. */
static int compact_columns(struct lvx_ctx *ctx, struct lvx_pool *pool,
                           const struct lvx_report_opts *opts, enum lvx_report_kind kind,
                           struct prepared *p, bool *tail)
{
    *tail = false;
    const char *spec = lvx_report_compact_spec(pool, opts->fields);
    if (!spec)
        spec = opts->compact;
    if (!p->nrows || (!spec && !opts->compact_all))
        return 0;
    struct lvx_collist want = { 0 };
    if (spec && !opts->compact_all) {
        int r = lvx_report_parse_columns(ctx, pool, kind, "", spec, &want);
        if (r < 0)
            return r;
    }
    unsigned kept = 0;
    for (unsigned c = 0; c < p->cols.n; c++) {
        bool asked = opts->compact_all;
        for (unsigned i = 0; i < want.n && !asked; i++)
            asked = want.f[i] == p->cols.f[c];
        bool blank = asked;
        for (unsigned r = 0; r < p->nrows && blank; r++)
            blank = !p->rows[r]->cells[c][0];
        *tail = blank;
        if (blank)
            continue;
        p->cols.f[kept] = p->cols.f[c];
        for (unsigned r = 0; r < p->nrows; r++)
            p->rows[r]->cells[kept] = p->rows[r]->cells[c];
        kept++;
    }
    p->cols.n = kept;
    return 0;
}

static int run_report(struct lvx_ctx *ctx, struct lvx_pool *pool, enum lvx_report_kind base,
                      const struct lvx_report_opts *opts, struct lvx_vg *const *vgs,
                      unsigned vg_count, struct lvx_pv *const *orphans, unsigned orphan_count,
                      struct lvx_buf *out, struct lvx_sel **sel)
{
    struct prepared p;
    char units = opts->units ? opts->units : 'r';
    if (!lvx_report_units_valid(units) && !(opts->unit_bytes && units == 'U'))
        return lvx_error(ctx, EINVAL, "Invalid units specification: %c", units);
    int r = prepare(ctx, pool, base, opts, vgs, vg_count, orphans, orphan_count, sel, &p);
    if (r < 0)
        return r;
    render_cells(&p.rc, p.rows, p.nrows, &p.cols, units, opts->unit_bytes, opts->nosuffix);
    bool tail;
    if ((r = compact_columns(ctx, pool, opts, p.kind, &p, &tail)) < 0)
        return r;
    /* JSON names the report after the command asked for (lvs -o seg_size stays "lv") */
    struct lvx_rout ro = { opts, kind_name(base), p.cols.f, p.cols.n, p.rows, p.nrows,
                           opts->unbuffered && !opts->sort, tail, false };
    lvx_report_render(out, &ro);
    return 0;
}

/* A cell as a value: numbers and sizes (bytes) unformatted, texts as lvx_report() prints
 * them (tag lists joined with ','), copied into pool. */
static void cell_value(struct lvx_pool *pool, struct lvx_buf *b, const struct lvx_rval *v,
                       struct lvx_report_value *out)
{
    memset(out, 0, sizeof(*out));
    out->blank = v->blank;
    if (v->blank)
        return;
    if ((v->type == LVX_FT_NUM || v->type == LVX_FT_PERCENT) && !v->str) {
        out->num = (uint64_t)v->num;
        return;
    }
    if (v->type == LVX_FT_SIZE && !v->str) {
        out->num = v->size * 512;
        return;
    }
    lvx_buf_reset(b);
    lvx_rval_format(b, v, 'b', 0, true);
    out->str = lvx_pool_strdup(pool, lvx_buf_str(b));
}

static int run_values(struct lvx_ctx *ctx, struct lvx_pool *scratch, struct lvx_pool *pool,
                      enum lvx_report_kind base, const struct lvx_report_opts *opts,
                      struct lvx_vg *const *vgs, unsigned vg_count, struct lvx_sel **sel,
                      struct lvx_report_value **out, unsigned *rows, unsigned *cols)
{
    struct prepared p;
    int r = prepare(ctx, scratch, base, opts, vgs, vg_count, NULL, 0, sel, &p);
    if (r < 0)
        return r;
    struct lvx_report_value *vals = lvx_pool_alloc(pool, sizeof(*vals) *
                                                   ((size_t)p.nrows * p.cols.n + 1));
    struct lvx_buf b = LVX_BUF_INIT;
    for (unsigned row = 0; row < p.nrows; row++)
        for (unsigned c = 0; c < p.cols.n; c++) {
            struct lvx_rval v;
            p.cols.f[c]->get(&p.rc, p.rows[row], &v);
            cell_value(pool, &b, &v, &vals[(size_t)row * p.cols.n + c]);
        }
    lvx_buf_free(&b);
    *out = vals;
    *rows = p.nrows;
    *cols = p.cols.n;
    return 0;
}

int lvx_report_values(struct lvx_ctx *ctx, struct lvx_pool *pool, enum lvx_report_kind kind,
                      const struct lvx_report_opts *opts, struct lvx_vg *const *vgs,
                      unsigned vg_count, struct lvx_report_value **out, unsigned *rows,
                      unsigned *cols)
{
    static const struct lvx_report_opts none;
    *out = NULL;
    *rows = *cols = 0;
    if ((unsigned)kind > LVX_REPORT_PVSEGS)
        return lvx_error(ctx, EINVAL, "Unknown report type %d", (int)kind);
    struct lvx_pool *scratch = lvx_pool_create();
    struct lvx_sel *sel = NULL;
    int r = run_values(ctx, scratch, pool, kind, opts ? opts : &none, vgs, vg_count, &sel, out,
                       rows, cols);
    lvx_report_select_free(sel);
    lvx_pool_destroy(scratch);
    return r;
}

int lvx_report(struct lvx_ctx *ctx, enum lvx_report_kind kind, const struct lvx_report_opts *opts,
               struct lvx_vg *const *vgs, unsigned vg_count, struct lvx_pv *const *orphans,
               unsigned orphan_count, struct lvx_buf *out)
{
    static const struct lvx_report_opts none;
    if ((unsigned)kind > LVX_REPORT_PVSEGS)
        return lvx_error(ctx, EINVAL, "Unknown report type %d", (int)kind);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_sel *sel = NULL;
    int r = run_report(ctx, pool, kind, opts ? opts : &none, vgs, vg_count, orphans,
                       orphan_count, out, &sel);
    lvx_report_select_free(sel);
    lvx_pool_destroy(pool);
    return r;
}
