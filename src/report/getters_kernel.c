/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/getters_kernel.c - LV fields that need the kernel state of an LV, asked
 * through the report's lv_kstate hook (an activation backend, activate/).  Without
 * the hook they print what LVM2 prints without device-mapper ("unknown", -1, 'X').
 * With it, as LVM2 2.03 prints them: lv_active "active"/"", lv_device_open
 * "open"/"" (inactive LV: "unknown"), lv_kernel_major/minor (-1 inactive), lv_attr
 * state letter a/s/i/d/- and open letter o/-; lv_activation_backend (lvx's own
 * field) names the backend an active LV runs on ("dm"), "" when inactive.
 * RAID LVs (not raid0) read the dm-raid status line: sync_percent / copy_percent
 * (done/total, LVM2's rounding: 100.00 only when done), raid_sync_action,
 * raid_mismatch_count, lv_health_status ("partial", "refresh needed" for a dead
 * image, "mismatches exist", "writemostly" for such a raid1 image; "" when healthy or
 * inactive, "unknown" without a hook).
 *
 * The state of the last LV asked is kept in the report context: a row's fields
 * cost one status query.
 */
#include "report/report_int.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "map/map.h"
#include "meta/jobs.h"
#include "model/raid.h"
#include "model/thin.h"

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

/* A backend's state was read (dm, or the lvx daemon, which serves a RAID or mirror LV
 * as one device: the commands' hook reports its hidden sub-LVs active and open while
 * the LV is, as LVM2's sub-LV devices, cmd/activation.c; the LV's status speaks for
 * their health). */
static bool backend_state(const struct lvx_lv_kstate *k)
{
    return k && k->backend;
}

/* With a backend's state (device-mapper's, or the daemon's), LVM2's RAID letters: an image is 'i' once its health
 * letter in the RAID LV's status is 'A' ('I' before, and while inactive); the health
 * letter (9th) of RAID LVs and their sub-LVs is 'r' (a dead image: refresh needed),
 * 'm' (mismatches), 'w' (a writemostly raid1 image) or '-' instead of "unknown" ('X'). */
static void raid_attr(struct lvx_rctx *rc, const struct lvx_rrow *row,
                      const struct lvx_lv_kstate *k, char *a)
{
    const struct lvx_report_opts *o = rc->opts;
    if (backend_state(k) && a[0] == 'I' && a[8] == '-') {  /* a mirror image: 'i' once in sync */
        const char *mrole = NULL;
        const struct lvx_seg *m = lvx_lv_used_by(row->lv, &mrole);
        struct lvx_lv_kstate ms;
        memset(&ms, 0, sizeof(ms));
        if (m && m->kind == LVX_SEG_MIRROR && lvx_map_lv_is_mirror(m->lv) &&
            o->lv_kstate(o->kstate_arg, m->lv, &ms) == 0 && ms.active && ms.mirror &&
            ms.sync_total && ms.sync_done == ms.sync_total)
            a[0] = 'i';
        return;
    }
    if (!backend_state(k) || a[8] != 'X')
        return;
    const char *role = NULL;
    const struct lvx_seg *user = lvx_lv_used_by(row->lv, &role);
    struct lvx_lv_kstate parent;
    const struct lvx_lv_kstate *top = k;
    uint32_t image = UINT32_MAX;
    if (user && user->kind == LVX_SEG_RAID) {
        for (uint32_t i = 0; i < user->area_count; i++)
            if (user->areas[i].lv == row->lv)
                image = i;
        memset(&parent, 0, sizeof(parent));
        top = o->lv_kstate(o->kstate_arg, user->lv, &parent) == 0 ? &parent : NULL;
    }
    if (image != UINT32_MAX)
        a[0] = top && top->active && top->raid && image < strlen(top->raid_health) &&
               top->raid_health[image] == 'A' ? 'i' : 'I';
    a[8] = '-';
    if (top && top->active && top->raid) {
        if (strchr(top->raid_health, 'D'))
            a[8] = 'r';
        else if (!(user && user->kind == LVX_SEG_RAID) && top->mismatches)  /* an origin too */
            a[8] = 'm';
    }
    if (a[8] == '-' && user && user->kind == LVX_SEG_RAID && (row->lv->status & LVX_LV_WRITEMOSTLY))
        a[8] = 'w';                            /* a raid1 image marked writemostly */
}

static bool lv_is_cache(const struct lvx_lv *lv)
{
    return lv->seg_count && lv->segs[0].kind == LVX_SEG_CACHE;
}

/* The dm-cache status of a cache LV or a used cache pool (its cache LV's), or NULL. */
static const struct lvx_lv_kstate *cache_state(struct lvx_rctx *rc, const struct lvx_rrow *row)
{
    if (!row->lv || (!lv_is_cache(row->lv) &&
                     !(row->lv->seg_count && row->lv->segs[0].kind == LVX_SEG_CACHE_POOL)))
        return NULL;
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    return k && k->cache ? k : NULL;
}

/* The uint64_t member at off of a kernel state, blank without one. */
static void kstate_num(const struct lvx_lv_kstate *k, struct lvx_rval *v, size_t off)
{
    uint64_t n = 0;
    if (!k) {
        lvx_rval_blank(v, LVX_FT_NUM);
        return;
    }
    memcpy(&n, (const char *)k + off, sizeof(n));
    lvx_rval_num(v, (int64_t)n);
}

static void cache_num(struct lvx_rctx *rc, const struct lvx_rrow *row, struct lvx_rval *v,
                      size_t off)
{
    const struct lvx_lv_kstate *k = cache_state(rc, row);
    kstate_num(k && !k->cache_fail ? k : NULL, v, off);
}

#define CACHE_NUM(field, member)                                                          \
    LVX_RGETTER(field) { cache_num(rc, row, v, offsetof(struct lvx_lv_kstate, member)); }
CACHE_NUM(cache_total_blocks, cache_total)
CACHE_NUM(cache_used_blocks, cache_used)
CACHE_NUM(cache_dirty_blocks, cache_dirty)
CACHE_NUM(cache_read_hits, cache_read_hits)
CACHE_NUM(cache_read_misses, cache_read_misses)
CACHE_NUM(cache_write_hits, cache_write_hits)
CACHE_NUM(cache_write_misses, cache_write_misses)

/* The dm-writecache status of a writecache LV, or NULL. */
static const struct lvx_lv_kstate *writecache_state(struct lvx_rctx *rc,
                                                    const struct lvx_rrow *row)
{
    if (!row->lv || !row->lv->seg_count || !lvx_seg_is_writecache(&row->lv->segs[0]))
        return NULL;
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    return k && k->writecache ? k : NULL;
}

#define WRITECACHE_NUM(field, member)                                                     \
    LVX_RGETTER(field)                                                                    \
    {                                                                                     \
        kstate_num(writecache_state(rc, row), v, offsetof(struct lvx_lv_kstate, member)); \
    }
WRITECACHE_NUM(writecache_total_blocks, wc_total)
WRITECACHE_NUM(writecache_free_blocks, wc_free)
WRITECACHE_NUM(writecache_writeback_blocks, wc_writeback)
WRITECACHE_NUM(writecache_error, wc_error)

LVX_RGETTER(kernel_cache_policy)
{
    const struct lvx_lv_kstate *k = cache_state(rc, row);
    lvx_rval_str(v, k && !k->cache_fail ? lvx_pool_strdup(rc->pool, k->cache_policy) : "");
}

LVX_RGETTER(kernel_metadata_format)
{
    const struct lvx_lv_kstate *k = cache_state(rc, row);
    if (k && !k->cache_fail)
        lvx_rval_num(v, k->cache_metadata2 ? 2 : 1);
    else
        lvx_rval_blank(v, LVX_FT_NUM);
}

/* "key=value" of the kernel's core and policy arguments, in its order */
LVX_RGETTER(kernel_cache_settings)
{
    const struct lvx_lv_kstate *k = cache_state(rc, row);
    if (!k || k->cache_fail || !k->cache_settings[0]) {
        lvx_rval_list(v, NULL);
        return;
    }
    struct lvx_strlist l = { 0, NULL };
    unsigned n = 1;
    for (const char *p = k->cache_settings; *p; p++)
        n += *p == ',';
    l.v = lvx_pool_alloc(rc->pool, sizeof(*l.v) * n);
    for (const char *p = k->cache_settings; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        l.v[l.n++] = lvx_pool_strndup(rc->pool, p, len);
        p += len + (e ? 1 : 0);
    }
    lvx_rval_list(v, &l);
}

/* kernel_discards: an active thin pool's discard mode as loaded, a cache LV's
 * "nopassdown" feature, "" otherwise */
LVX_RGETTER(kernel_discards)
{
    const struct lvx_lv_kstate *p = row->lv && lvx_lv_is_thin_pool(row->lv) ? kstate_of(rc, row)
                                                                              : NULL;
    if (p && p->thin_pool) {
        lvx_rval_str(v, p->pool_discards);
        return;
    }
    const struct lvx_lv_kstate *k = cache_state(rc, row);
    lvx_rval_str(v, k && k->cache_no_discard_passdown ? "nopassdown" : "");
}

/* lv_check_needed: an active cache LV's needs_check ("check needed" or ""), else
 * "unknown" (as without device-mapper) */
LVX_RGETTER(lv_check_needed)
{
    const struct lvx_lv_kstate *k = row->lv && lv_is_cache(row->lv) ? cache_state(rc, row) : NULL;
    if (!k || k->cache_fail)
        lvx_rget_unknown(rc, row, v);
    else
        lvx_rval_str(v, k->cache_needs_check ? "check needed" : "");
}

/* LVM2: an LV with write permission in the metadata is "writeable" while active
 * ("read-only-override" activated read-only), "unknown" inactive; a read-only one
 * "read-only". */
LVX_RGETTER(lv_permissions)
{
    const struct lvx_lv *lv = row->lv;
    if (!lv) {
        lvx_rval_str(v, row->free_run ? "unknown" : "");
        return;
    }
    if (!(lv->status & LVX_LV_WRITE) && !(lv->flags & LVX_LVF_WRITE_LOCKED)) {
        lvx_rval_str(v, "read-only");
        return;
    }
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    lvx_rval_str(v, !k || !k->active ? "unknown" : k->read_only ? "read-only-override" : "writeable");
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
    if (k->active && a[1] != 'r' && k->read_only)
        a[1] = 'R';                           /* activated read-only (LVM2's 'R') */
    if (k->active && k->cache && lv_is_cache(row->lv)) {   /* a cache LV's status */
        if (k->cache_needs_check)
            a[4] = k->suspended ? 'C' : 'c';
        if (k->cache_fail)
            a[8] = 'F';
        else if (k->cache_read_only)
            a[8] = 'M';
    }
    if (k->active && k->thin_pool && lvx_lv_is_thin_pool(row->lv)) {   /* the pool's status */
        if (k->pool_needs_check)
            a[4] = k->suspended ? 'C' : 'c';
        if (k->pool_fail)
            a[8] = 'F';
        else if (k->pool_out_of_data)
            a[8] = 'D';
        else if (k->pool_read_only)
            a[8] = 'M';
    }
    if (k->active && k->thin && k->thin_fail && lvx_lv_is_thin(row->lv))
        a[8] = 'F';                           /* a thin LV of a failed pool */
    raid_attr(rc, row, k, a);
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

static const char *percent_text(struct lvx_pool *pool, int32_t p)
{
    float f = (float)p / PCT_1 + 0.f, r = PCT_1 * .01f;
    if (p < r && p > 0)
        f = .01f;
    else if (p > PCT_100 - r && p < PCT_100)
        f = (float)(PCT_100 - r) / PCT_1;
    return lvx_pool_printf(pool, "%.2f", f);
}

static void percent_value(struct lvx_rctx *rc, struct lvx_rval *v, int32_t p)
{
    v->type = LVX_FT_PERCENT;
    v->blank = false;
    v->num = p;
    v->str = percent_text(rc->pool, p);
}

int32_t lvx_report_dm_percent(uint64_t num, uint64_t den)
{
    return make_percent(num, den);
}

const char *lvx_report_percent_str(struct lvx_pool *pool, uint64_t num, uint64_t den)
{
    return percent_text(pool, make_percent(num, den));
}

/* seg_monitor as LVM2's lvseg_monitor_dup(): raid0 (a segment type dmeventd never
 * watches) "not monitored"; an active thin pool's, COW snapshot's, mirror's or RAID
 * LV's segment "monitored"/"not monitored" as the backend's monitor says; "" otherwise
 * (inactive, a backend without monitoring, activation/monitoring = 0). */
LVX_RGETTER(seg_monitor)
{
    const struct lvx_seg *s = row->seg;
    if (s && s->kind == LVX_SEG_RAID && !strncmp(lvx_report_seg_type(s), "raid0", 5)) {
        lvx_rval_str(v, "not monitored");
        return;
    }
    /* (no LV: a PV's free segment in pvs -o seg_all) */
    bool watched = s && row->lv &&
                   (lvx_lv_is_thin_pool(row->lv) || lvx_lv_is_cow(row->lv) ||
                    lvx_map_lv_is_mirror(row->lv) || s->kind == LVX_SEG_RAID);
    const struct lvx_lv_kstate *k = watched ? kstate_of(rc, row) : NULL;
    lvx_rval_str(v, !k || !k->active || k->monitored < 0 ? ""
                    : k->monitored ? "monitored" : "not monitored");
}

/* snap_percent and data_percent: a snapshot's COW usage from its device's status
 * (invalid: 100.00, only the store's metadata: 0.00); a thin pool's or thin LV's
 * data_percent (LVM2 reports PERCENT_GET_DATA in both); blank for other LVs and
 * inactive snapshots. */
LVX_RGETTER(snap_percent)
{
    if (row->lv && (lvx_lv_is_thin_pool(row->lv) || lvx_lv_is_thin(row->lv))) {
        lvx_rget_data_percent(rc, row, v);
        return;
    }
    const struct lvx_lv_kstate *cs = cache_state(rc, row);
    if (cs) {               /* a cache's used blocks (LVM2's PERCENT_GET_DATA of dm-cache) */
        if (cs->cache_fail)
            lvx_rval_blank(v, LVX_FT_PERCENT);
        else
            percent_value(rc, v, make_percent(cs->cache_used, cs->cache_total));
        return;
    }
    const struct lvx_lv_kstate *ws = writecache_state(rc, row);
    if (ws) {               /* a writecache's blocks in use */
        percent_value(rc, v, make_percent(ws->wc_total - ws->wc_free, ws->wc_total));
        return;
    }
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

/* A thin LV's size in sectors rounded up to whole chunks of its pool. */
static uint64_t thin_chunked_size(const struct lvx_lv *lv)
{
    uint64_t size = lv->le_count * (uint64_t)lv->vg->extent_size;
    const struct lvx_seg *ts = lvx_lv_thin_seg(lv);
    const struct lvx_seg *ps = ts && ts->pool_lv ? lvx_lv_thin_pool_seg(ts->pool_lv) : NULL;
    uint64_t c = ps && ps->chunk_size ? ps->chunk_size : 1;
    return (size + c - 1) / c * c;
}

/* data_percent: a COW LV's snap_percent; a thin pool's used data blocks (also while
 * only its -tpool is up, as LVM2), a thin LV's mapped sectors (dm-thin status) against
 * its size; blank when inactive. */
LVX_RGETTER(data_percent)
{
    const struct lvx_lv *lv = row->lv;
    bool pool = lv && lvx_lv_is_thin_pool(lv), thin = lv && lvx_lv_is_thin(lv);
    if (!pool && !thin) {
        lvx_rget_snap_percent(rc, row, v);
        return;
    }
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    /* a pool's usage also while only its -tpool device is up (for its thin LVs) */
    if (!k || (pool ? !k->thin_pool : !k->active || !k->thin)) {
        lvx_rval_blank(v, LVX_FT_PERCENT);
        return;
    }
    if (pool)
        percent_value(rc, v, make_percent(k->data_used, k->data_total));
    else     /* against the size rounded up to whole pool chunks (LVM2's thin.c) */
        percent_value(rc, v, make_percent(k->thin_mapped, thin_chunked_size(lv)));
}

/* metadata_percent: a thin pool's used metadata blocks, a cache's; blank otherwise. */
LVX_RGETTER(metadata_percent)
{
    const struct lvx_lv *lv = row->lv;
    const struct lvx_lv_kstate *cs = cache_state(rc, row);
    if (cs) {
        if (cs->cache_fail)
            lvx_rval_blank(v, LVX_FT_PERCENT);
        else
            percent_value(rc, v, make_percent(cs->cache_meta_used, cs->cache_meta_total));
        return;
    }
    const struct lvx_lv_kstate *k = lv && lvx_lv_is_thin_pool(lv) ? kstate_of(rc, row) : NULL;
    if (!k || !k->thin_pool)
        lvx_rval_blank(v, LVX_FT_PERCENT);
    else
        percent_value(rc, v, make_percent(k->meta_used, k->meta_total));
}

/* --- RAID status ---------------------------------------------------------------- */

/* The row's LV is a RAID LV with a bitmap (not raid0) */
static bool synced_raid(const struct lvx_rrow *row)
{
    if (!row->lv || !lvx_map_lv_is_raid(row->lv))
        return false;
    const struct lvx_raid_type *t = lvx_raid_type_find(row->lv->segs[0].type_name);
    return t && !t->raid0;
}

/* The kernel's RAID status of the row's LV (any RAID LV; with_sync: not raid0), or
 * NULL. */
static const struct lvx_lv_kstate *raid_state(struct lvx_rctx *rc, const struct lvx_rrow *row,
                                              bool with_sync)
{
    if (!row->lv || !lvx_map_lv_is_raid(row->lv) || (with_sync && !synced_raid(row)))
        return NULL;
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    return k && k->active && k->raid ? k : NULL;
}

LVX_RGETTER(raid_sync_action)
{
    const struct lvx_lv_kstate *k = raid_state(rc, row, false);
    if (!k)
        lvx_rval_blank(v, LVX_FT_STR);
    else
        lvx_rval_str(v, lvx_pool_strdup(rc->pool, k->sync_action));
}

/* data_offset and new_data_offset (the same as LVM2 2.03.16 reports them: its "new"
 * differs only for an image LV it never passes): the data offset in the kernel's
 * status of the RAID LV behind the row (lvx_report_reshapable_lv), when active. */
LVX_RGETTER(data_offset)
{
    const struct lvx_lv *lv = lvx_report_reshapable_lv(row);
    const struct lvx_report_opts *o = rc->opts;
    struct lvx_lv_kstate *k = lvx_pool_alloc(rc->pool, sizeof(*k));
    memset(k, 0, sizeof(*k));
    if (!lv || !o || !o->lv_kstate || o->lv_kstate(o->kstate_arg, lv, k) != 0 || !k->active ||
        !k->raid) {
        lvx_rval_blank(v, LVX_FT_NUM);
        return;
    }
    lvx_rval_num(v, k->raid_data_offset > 0 ? k->raid_data_offset : 0);
}

LVX_RGETTER(raid_mismatch_count)
{
    const struct lvx_lv_kstate *k = raid_state(rc, row, false);
    if (!k)
        lvx_rval_blank(v, LVX_FT_NUM);
    else
        lvx_rval_num(v, (int64_t)k->mismatches);
}

/* done/total as LVM2 prints a percentage: two decimals, 100.00 only when complete,
 * 0.00 only when nothing is done. */
/* The kernel's dm-mirror status of the row's mirror LV, or NULL. */
static const struct lvx_lv_kstate *mirror_state(struct lvx_rctx *rc, const struct lvx_rrow *row)
{
    if (!row->lv || !lvx_map_lv_is_mirror(row->lv))
        return NULL;
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    return k && k->active && k->mirror ? k : NULL;
}

LVX_RGETTER(sync_percent)
{
    const struct lvx_lv_kstate *cs = cache_state(rc, row);
    if (cs) {               /* a cache's dirty blocks of its used ones (LVM2: 0 when none used) */
        if (cs->cache_fail)
            lvx_rval_blank(v, LVX_FT_PERCENT);
        else
            percent_value(rc, v, cs->cache_used ? make_percent(cs->cache_dirty, cs->cache_used) : 0);
        return;
    }
    const struct lvx_lv_kstate *k = raid_state(rc, row, true);
    if (!k)
        k = mirror_state(rc, row);
    uint64_t done = k ? k->sync_done : 0, total = k ? k->sync_total : 0;
    struct lvx_job job;
    /* a pvmove LV: the progress of its running copier (meta/jobs.h); none: blank,
     * as LVM2 for a move that is not active */
    if (row->lv && (row->lv->status & LVX_LV_PVMOVE) &&
        lvx_job_find(rc->pool, row->lv->uuid, &job)) {
        done = job.done;
        total = job.total;
    }
    if (!total) {
        lvx_rval_blank(v, LVX_FT_PERCENT);
        return;
    }
    uint64_t hundredths = (uint64_t)((unsigned __int128)done * 10000 / total);
    if (done >= total)
        hundredths = 10000;
    else if (hundredths == 10000)
        hundredths = 9999;
    else if (hundredths == 0 && done)
        hundredths = 1;
    memset(v, 0, sizeof(*v));
    v->type = LVX_FT_PERCENT;
    v->num = (int64_t)hundredths / 100;
    v->str = lvx_pool_printf(rc->pool, "%llu.%02llu", (unsigned long long)(hundredths / 100),
                             (unsigned long long)(hundredths % 100));
}

/* An active thin pool's or thin LV's health (LVM2's words), NULL for other rows. */
static const char *thin_health(struct lvx_rctx *rc, const struct lvx_rrow *row)
{
    bool pool = row->lv && lvx_lv_is_thin_pool(row->lv), thin = row->lv && lvx_lv_is_thin(row->lv);
    const struct lvx_lv_kstate *k = pool || thin ? kstate_of(rc, row) : NULL;
    if (!k || !k->active)
        return NULL;
    if (pool)
        return k->pool_fail ? "failed" : k->pool_out_of_data ? "out_of_data"
               : k->pool_read_only ? "metadata_read_only" : "";
    return k->thin_fail ? "failed" : "";
}

/* A writemostly raid1 image: "writemostly", or "refresh needed" while an image of its
 * RAID LV is dead (LVM2's order). */
static const char *writemostly_health(struct lvx_rctx *rc, const struct lvx_lv *img)
{
    const char *role = NULL;
    const struct lvx_seg *user = lvx_lv_used_by(img, &role);
    struct lvx_lv_kstate parent;
    memset(&parent, 0, sizeof(parent));
    if (user && rc->opts->lv_kstate(rc->opts->kstate_arg, user->lv, &parent) == 0 &&
        parent.active && parent.raid && strchr(parent.raid_health, 'D'))
        return "refresh needed";
    return "writemostly";
}

LVX_RGETTER(lv_health_status)
{
    const char *th = thin_health(rc, row);
    if (th) {
        lvx_rval_str(v, th);
        return;
    }
    const struct lvx_rlv *r = lvx_report_rlv(row->rvg, row->lv);
    bool raid = row->lv && ((row->lv->seg_count && row->lv->segs[0].kind == LVX_SEG_RAID) || r->role == LVX_RROLE_RIMAGE ||
                            r->role == LVX_RROLE_RMETA);
    if (!raid) {
        lvx_rval_str(v, "");
        return;
    }
    const struct lvx_lv_kstate *k = kstate_of(rc, row);
    if (!backend_state(k)) {
        /* no backend's state (device-mapper's or the daemon's): LVM2's without dm */
        lvx_rval_str(v, "unknown");
        return;
    }
    if (lvx_map_lv_partial(row->lv))
        lvx_rval_str(v, "partial");
    else if (r->role == LVX_RROLE_RIMAGE && (row->lv->status & LVX_LV_WRITEMOSTLY))
        lvx_rval_str(v, writemostly_health(rc, row->lv));
    else if (!k->active || !k->raid)
        lvx_rval_str(v, "");
    else if (strchr(k->raid_health, 'D'))
        lvx_rval_str(v, "refresh needed");
    else if (k->mismatches)
        lvx_rval_str(v, "mismatches exist");
    else
        lvx_rval_str(v, "");
}
