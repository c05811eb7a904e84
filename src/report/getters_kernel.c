/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/getters_kernel.c - LV fields that need the kernel state of an LV, asked
 * through the report's lv_kstate hook (an activation backend, activate/).  Without
 * the hook they print what LVM2 prints without device-mapper ("unknown", -1, 'X').
 * With it, as LVM2 2.03 prints them: lv_active "active"/"", lv_device_open
 * "open"/"" (inactive LV: "unknown"), lv_kernel_major/minor (-1 inactive), lv_attr
 * state letter a/s/i/d/- and open letter o/-; lv_activation_backend (lvx's own
 * field) names the backend an active LV runs on ("dm"), "" when inactive.
 *
 * The state of the last LV asked is kept in the report context: a row's fields
 * cost one status query.
 */
#include "report/report_int.h"

#include <string.h>

#include "activate/activate.h"

/* Kernel state of the row's LV, or NULL when unknown (no hook, no LV, query failed). */
static const struct lvx_lv_kstate *kstate_of(struct lvx_rctx *rc, const struct lvx_rrow *row)
{
    const struct lvx_report_opts *o = rc->opts;
    if (!row->lv || !o || !o->lv_kstate)
        return NULL;
    if (rc->kstate_lv != row->lv) {
        if (!rc->kstate)
            rc->kstate = lvx_pool_alloc(rc->pool, sizeof(*rc->kstate));
        memset(rc->kstate, 0, sizeof(*rc->kstate));
        rc->kstate_known = o->lv_kstate(o->kstate_arg, row->lv, rc->kstate) == 0;
        rc->kstate_lv = row->lv;
    }
    return rc->kstate_known ? rc->kstate : NULL;
}

/* A string that is `on` when active and flag, "" when active, "unknown" inactive. */
static void active_flag_str(struct lvx_rctx *rc, const struct lvx_rrow *row, struct lvx_rval *v,
                            bool (*flag)(const struct lvx_lv_kstate *), const char *on)
{
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    if (!k) {
        lvx_rget_unknown(rc, row, v);
        return;
    }
    lvx_rval_str(v, !k->active ? "unknown" : flag(k) ? on : "");
}

static bool is_open(const struct lvx_lv_kstate *k) { return k->open_count > 0; }
static bool is_suspended(const struct lvx_lv_kstate *k) { return k->suspended; }
static bool has_live(const struct lvx_lv_kstate *k) { return k->live_table; }
static bool has_inactive(const struct lvx_lv_kstate *k) { return k->inactive_table; }

/* "" when inactive, `on` when active. */
static void active_str(struct lvx_rctx *rc, const struct lvx_rrow *row, struct lvx_rval *v,
                       const char *on)
{
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    if (!k)
        lvx_rget_unknown(rc, row, v);
    else
        lvx_rval_str(v, k->active ? on : "");
}

LVX_RGETTER(lv_active) { active_str(rc, row, v, "active"); }
LVX_RGETTER(lv_active_locally) { active_str(rc, row, v, "active locally"); }
LVX_RGETTER(lv_active_exclusively) { active_str(rc, row, v, "active exclusively"); }
LVX_RGETTER(lv_active_remotely)
{
    if (!kstate_of(rc, row))
        lvx_rget_unknown(rc, row, v);
    else
        lvx_rval_str(v, "");
}

LVX_RGETTER(lv_device_open) { active_flag_str(rc, row, v, is_open, "open"); }
LVX_RGETTER(lv_suspended) { active_flag_str(rc, row, v, is_suspended, "suspended"); }
LVX_RGETTER(lv_live_table) { active_flag_str(rc, row, v, has_live, "live table present"); }
LVX_RGETTER(lv_inactive_table)
{
    active_flag_str(rc, row, v, has_inactive, "inactive table present");
}

LVX_RGETTER(lv_kernel_major)
{
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    if (!k)
        lvx_rget_minus_one(rc, row, v);
    else
        lvx_rval_num(v, k->active ? k->major : -1);
}

LVX_RGETTER(lv_kernel_minor)
{
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    if (!k)
        lvx_rget_minus_one(rc, row, v);
    else
        lvx_rval_num(v, k->active ? k->minor : -1);
}

LVX_RGETTER(lv_kernel_read_ahead)
{
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    if (!k || !k->active || k->read_ahead < 0) {
        lvx_rval_size(v, 0);
        v->str = "-1";
        v->blank = !row->lv && !k;
        if (v->blank)
            v->str = NULL;
        return;
    }
    lvx_rval_size(v, (uint64_t)k->read_ahead);
}

LVX_RGETTER(lv_activation_backend)
{
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    lvx_rval_str(v, k && k->active && k->backend ? k->backend : "");
}

LVX_RGETTER(lv_attr)
{
    if (!row->lv) {
        lvx_rval_str(v, "");
        return;
    }
    const char *base = lvx_report_lv_attr(rc->pool, row->rvg, row->lv);
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    if (!k) {
        lvx_rval_str(v, base);
        return;
    }
    char *a = lvx_pool_strdup(rc->pool, base);
    if (!k->active)
        a[4] = '-';
    else if (k->suspended)
        a[4] = 's';
    else if (k->live_table)
        a[4] = 'a';
    else
        a[4] = k->inactive_table ? 'i' : 'd';
    if (k->active && k->snapshot && k->snap_invalid)
        a[4] = k->suspended ? 'S' : 'I';      /* LVM2's invalid (suspended) snapshot */
    a[5] = k->active && k->open_count > 0 ? 'o' : '-';
    lvx_rval_str(v, a);
}

/* LVM2's dm_percent_t: percent scaled by 1000000, made and rounded as libdevmapper
 * does (dm_make_percent, dm_percent_to_round_float), printed with two decimals. */
#define PCT_1 1000000
#define PCT_100 (100 * PCT_1)

static int32_t make_percent(uint64_t num, uint64_t den)
{
    if (!den || num == den)
        return PCT_100;
    if (!num)
        return 0;
    int32_t p = (int32_t)(PCT_100 * ((double)num / (double)den));
    return p == PCT_100 ? PCT_100 - 1 : p == 0 ? 1 : p;
}

static void percent_value(struct lvx_rctx *rc, struct lvx_rval *v, int32_t p)
{
    float f = (float)p / PCT_1 + 0.f, r = PCT_1 * .01f;
    if (p < r && p > 0)
        f = .01f;
    else if (p > PCT_100 - r && p < PCT_100)
        f = (float)(PCT_100 - r) / PCT_1;
    v->type = LVX_FT_PERCENT;
    v->blank = false;
    v->num = p;
    v->str = lvx_pool_printf(rc->pool, "%.2f", f);
}

/* snap_percent and data_percent: a snapshot's COW usage from its device's status
 * (invalid: 100.00, only the store's metadata: 0.00); blank for other LVs and
 * inactive snapshots. */
LVX_RGETTER(snap_percent)
{
    const struct lvx_lv_kstate *k = row->lv && lvx_lv_is_cow(row->lv) ? kstate_of(rc, row) : NULL;
    if (!k || !k->active || !k->snapshot) {
        lvx_rval_blank(v, LVX_FT_PERCENT);
        return;
    }
    int32_t p;
    if (k->snap_invalid)
        p = PCT_100;
    else if (k->snap_used == k->snap_meta)
        p = 0;
    else
        p = make_percent(k->snap_used, k->snap_total);
    percent_value(rc, v, p);
}
