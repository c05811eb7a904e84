/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/getters_lv.c - values of the LV fields, and the constant getters used
 * by fields whose value needs kernel state lvx does not have ("unknown", -1,
 * blank percentages).  A row without an LV (a free run in pvs --segments) shows
 * every LV field blank.  Names of hidden LVs are shown in brackets.
 */
#include "report/report_int.h"

#include "map/map.h"
#include "model/pvmove.h"
#include "model/snapshot.h"
#include "model/thin.h"

#include <stddef.h>
#include <string.h>
#include <time.h>

static const struct lvx_seg *first_seg(const struct lvx_lv *lv)
{
    return lv && lv->seg_count ? &lv->segs[0] : NULL;
}

static enum lvx_seg_kind lv_kind(const struct lvx_lv *lv)
{
    const struct lvx_seg *s = first_seg(lv);
    return s ? s->kind : LVX_SEG_OTHER;
}

/* a free run of pvs --segments: LVM2 reports it through an empty pseudo LV */
static bool pseudo_lv(const struct lvx_rrow *row)
{
    return !row->lv && row->free_run;
}

static const char *vg_name_of(const struct lvx_rrow *row)
{
    return row->vg ? row->vg->name : "";
}

static void list_from_csv(struct lvx_pool *pool, struct lvx_rval *v, const char *csv)
{
    struct lvx_strlist l = { 0, NULL };
    unsigned n = 1;
    for (const char *p = csv; *p; p++)
        n += *p == ',';
    l.v = lvx_pool_alloc(pool, sizeof(*l.v) * n);
    const char *start = csv;
    for (const char *p = csv;; p++) {
        if (*p == ',' || *p == '\0') {
            l.v[l.n++] = lvx_pool_strndup(pool, start, (size_t)(p - start));
            if (!*p)
                break;
            start = p + 1;
        }
    }
    lvx_rval_list(v, &l);
}

static void lv_name_value(struct lvx_rctx *rc, const struct lvx_rrow *row,
                          const struct lvx_lv *lv, struct lvx_rval *v)
{
    lvx_rval_str(v, lv ? lvx_report_lv_display_name(rc->pool, row->rvg, lv,
                                                    rc->opts->unmark_hidden) : "");
    if (lv)
        v->key = lv->name;
}

static void lv_uuid_value(struct lvx_rctx *rc, const struct lvx_lv *lv, struct lvx_rval *v)
{
    if (!lv) {
        lvx_rval_str(v, "");
        return;
    }
    char *s = lvx_pool_alloc(rc->pool, LVX_UUID_DASHED_LEN + 1);
    lvx_report_uuid_format(lv->uuid, s);
    lvx_rval_str(v, s);
}

/* --- RAID settings of the metadata: the raid segment's value, blank when 0 or not RAID */
static void raid_seg_num(const struct lvx_rrow *row, struct lvx_rval *v, size_t off)
{
    const struct lvx_lv *lv = row->lv;
    uint32_t n = 0;
    if (lv && lv->seg_count && lv->segs[0].kind == LVX_SEG_RAID)
        memcpy(&n, (const char *)&lv->segs[0] + off, sizeof(n));
    if (n)
        lvx_rval_num(v, n);
    else
        lvx_rval_blank(v, LVX_FT_NUM);
}
LVX_RGETTER(raid_write_behind) { (void)rc; raid_seg_num(row, v, offsetof(struct lvx_seg, writebehind)); }
LVX_RGETTER(raid_min_recovery_rate)
{
    (void)rc;
    raid_seg_num(row, v, offsetof(struct lvx_seg, min_recovery_rate));
}
LVX_RGETTER(raid_max_recovery_rate)
{
    (void)rc;
    raid_seg_num(row, v, offsetof(struct lvx_seg, max_recovery_rate));
}

/* --- constants for state lvx cannot know ------------------------------- */
LVX_RGETTER(unknown) { (void)rc; lvx_rval_str(v, row->lv || pseudo_lv(row) ? "unknown" : ""); }
LVX_RGETTER(blank_str) { (void)rc; (void)row; lvx_rval_str(v, ""); }
LVX_RGETTER(blank_num) { (void)rc; (void)row; lvx_rval_blank(v, LVX_FT_NUM); }
LVX_RGETTER(blank_size) { (void)rc; (void)row; lvx_rval_blank(v, LVX_FT_SIZE); }
LVX_RGETTER(blank_pct) { (void)rc; (void)row; lvx_rval_blank(v, LVX_FT_PERCENT); }
LVX_RGETTER(blank_list) { (void)rc; (void)row; lvx_rval_list(v, NULL); }

/* a writecache LV's block size (its segment's writecache_block_size), else -1 */
LVX_RGETTER(writecache_block_size)
{
    const struct lvx_seg *s = row->lv ? first_seg(row->lv) : NULL;
    int64_t n;
    if (lvx_seg_is_writecache(s) && lvx_report_seg_raw_int(s, "writecache_block_size", &n))
        lvx_rval_num(v, n);
    else
        lvx_rget_minus_one(rc, row, v);
}

LVX_RGETTER(minus_one)
{
    (void)rc;
    if (row->lv || pseudo_lv(row))
        lvx_rval_num(v, -1);
    else
        lvx_rval_blank(v, LVX_FT_NUM);
}

/* --- identity ------------------------------------------------------------ */
LVX_RGETTER(lv_uuid) { lv_uuid_value(rc, row->lv, v); }
LVX_RGETTER(lv_name) { lv_name_value(rc, row, row->lv, v); }

/* The PV a pvmove LV moves from: its mirror's first leg, the first leg's first PV for
 * an atomic move (as LVM2: only the pvmove LV itself shows it). */
static const struct lvx_pv *move_source(const struct lvx_rrow *row)
{
    const struct lvx_lv *lv = row->lv;
    if (!lv || !(lv->status & LVX_LV_PVMOVE) || !lv->seg_count || !lv->segs[0].area_count)
        return NULL;
    if (lvx_pvmove_is_atomic(lv))
        return lvx_pvmove_source(lv);
    return lv->segs[0].areas[0].pv;
}

LVX_RGETTER(move_pv)
{
    (void)rc;
    const struct lvx_pv *pv = move_source(row);
    lvx_rval_str(v, pv ? lvx_report_pv_dev_name(pv) : "");
}

LVX_RGETTER(move_pv_uuid)
{
    const struct lvx_pv *pv = move_source(row);
    char uuid[LVX_UUID_DASHED_LEN + 1] = "";
    if (pv)
        lvx_uuid_format(pv->uuid, uuid);
    lvx_rval_str(v, lvx_pool_strdup(rc->pool, uuid));
}

LVX_RGETTER(lv_full_name)
{
    if (pseudo_lv(row))
        lvx_rval_str(v, lvx_pool_printf(rc->pool, "%s/", vg_name_of(row)));
    else
        lvx_rval_str(v, row->lv ? lvx_pool_printf(rc->pool, "%s/%s", row->vg->name, row->lv->name) : "");
}

/* A visible LV but a thin pool; an unused cache pool has its path (LVM2 2.03.16) */
static bool lv_public(const struct lvx_rrow *row)
{
    const struct lvx_rlv *r = lvx_report_rlv(row->rvg, row->lv);
    return r->visible && lv_kind(row->lv) != LVX_SEG_THIN_POOL;
}

LVX_RGETTER(lv_path)
{
    if (pseudo_lv(row)) {
        lvx_rval_str(v, row->vg ? lvx_pool_printf(rc->pool, "/dev/%s/", row->vg->name) : "");
        return;
    }
    if (!row->lv || !lv_public(row)) {
        lvx_rval_str(v, "");
        return;
    }
    lvx_rval_str(v, lvx_pool_printf(rc->pool, "/dev/%s/%s", row->vg->name, row->lv->name));
}

/* device-mapper name part: every '-' doubled */
static void dm_escape(struct lvx_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '-')
            lvx_buf_putc(b, '-');
        lvx_buf_putc(b, *s);
    }
}

LVX_RGETTER(lv_dm_path)
{
    if (pseudo_lv(row)) {
        lvx_rval_str(v, row->vg ? lvx_pool_printf(rc->pool, "/dev/mapper/%s-", row->vg->name) : "");
        return;
    }
    if (!row->lv) {
        lvx_rval_str(v, "");
        return;
    }
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_buf_puts(&b, "/dev/mapper/");
    dm_escape(&b, row->vg->name);
    lvx_buf_putc(&b, '-');
    dm_escape(&b, row->lv->name);
    lvx_rval_str(v, lvx_pool_strdup(rc->pool, lvx_buf_str(&b)));
    lvx_buf_free(&b);
}

/* LVM2: the LV using a hidden mirror/RAID image or log, pool data or metadata; not
 * a cache's origin */
LVX_RGETTER(lv_parent)
{
    const struct lvx_rlv *r = lvx_report_rlv(row->rvg, row->lv);
    bool has = r->parent_seg && r->role != LVX_RROLE_CORIGIN && r->role != LVX_RROLE_WCORIGIN;
    lv_name_value(rc, row, has ? r->parent_seg->lv : NULL, v);
}

/* --- layout and role ------------------------------------------------------ */
/* "raid,raid5,raid5_ls": the level, then the exact layout when it has one */
static const char *raid_layout(struct lvx_pool *pool, const char *t)
{
    if (strcmp(t, "raid5") == 0)
        return "raid,raid5,raid5_ls";
    if (strcmp(t, "raid6") == 0)
        return "raid,raid6,raid6_zr";
    const char *us = strchr(t, '_');
    if (us)
        return lvx_pool_printf(pool, "raid,%.*s,%s", (int)(us - t), t, t);
    return lvx_pool_printf(pool, "raid,%s", t);
}

LVX_RGETTER(lv_layout)
{
    const struct lvx_seg *s = first_seg(row->lv);
    if (!s) {
        if (pseudo_lv(row))
            list_from_csv(rc->pool, v, "unknown");
        else
            lvx_rval_list(v, NULL);
        return;
    }
    const char *t = lvx_report_seg_type(s);
    const char *csv;
    switch (s->kind) {
    case LVX_SEG_STRIPED:    /* a cachevol: LVM2 names its use, not its mapping */
        csv = !(row->lv->flags & LVX_LVF_CACHE_VOL) ? t
              : lvx_seg_is_writecache(lvx_lv_used_by(row->lv, NULL)) ? "writecache,cachevol"
                                                                     : "cache,cachevol";
        break;
    case LVX_SEG_MIRROR:    /* LVM2 finds no layout for a resync layer (an image too) */
        csv = lvx_report_rlv(row->rvg, row->lv)->role == LVX_RROLE_MIMAGE ? "unknown" : "mirror";
        break;
    case LVX_SEG_THIN_POOL: csv = "thin,pool"; break;
    case LVX_SEG_THIN: csv = "thin,sparse"; break;
    case LVX_SEG_CACHE_POOL: csv = "cache,pool"; break;
    case LVX_SEG_CACHE: csv = "cache"; break;
    case LVX_SEG_ERROR: csv = "error"; break;
    case LVX_SEG_ZERO: csv = "zero"; break;
    case LVX_SEG_RAID: csv = raid_layout(rc->pool, t); break;
    default: csv = lvx_seg_is_writecache(s) ? "writecache" : "unknown"; break;
    }
    list_from_csv(rc->pool, v, csv);
}

static const char *role_csv(struct lvx_rctx *rc, const struct lvx_rrow *row)
{
    const struct lvx_rlv *r = lvx_report_rlv(row->rvg, row->lv);
    enum lvx_seg_kind k = lv_kind(row->lv);
    switch (r->role) {
    case LVX_RROLE_MIMAGE: return "private,mirror,image";
    case LVX_RROLE_MLOG: return "private,mirror,log";
    case LVX_RROLE_RIMAGE: return "private,raid,image";
    case LVX_RROLE_RMETA: return "private,raid,metadata";
    case LVX_RROLE_TDATA: return "private,thin,pool,data";
    case LVX_RROLE_TMETA: return "private,thin,pool,metadata";
    case LVX_RROLE_CDATA: return "private,cache,pool,data";
    case LVX_RROLE_CMETA: return "private,cache,pool,metadata";
    case LVX_RROLE_CORIGIN: return "private,cache,origin,cacheorigin";
    case LVX_RROLE_WCORIGIN: return "private,writecache,origin,writecacheorigin";
    default: break;
    }
    if (r->pmspare)
        return "private,pool,spare";
    if (k == LVX_SEG_THIN_POOL || k == LVX_SEG_CACHE_POOL)
        return "private";
    if (r->cow_of)
        return "public,snapshot,thicksnapshot";
    if (k == LVX_SEG_THIN) {     /* LVM2: thin origin roles, then the snapshot's (an
                                   * external origin makes a thin LV a snapshot too) */
        const struct lvx_seg *s = &row->lv->segs[0];
        bool snap = s->origin_lv || s->external_lv;
        /* then the roles of an origin of COW snapshots ("origin" once) */
        if (r->thin_snapshots || snap || r->snapshots)
            return lvx_pool_printf(rc->pool, "public%s%s%s%s%s%s",
                                   r->thin_snapshots ? ",origin,thinorigin" : "",
                                   r->thin_snapshots > 1 ? ",multithinorigin" : "",
                                   snap ? ",snapshot,thinsnapshot" : "",
                                   r->snapshots && !r->thin_snapshots ? ",origin" : "",
                                   r->snapshots ? ",thickorigin" : "",
                                   r->snapshots > 1 ? ",multithickorigin" : "");
    }
    if (r->snapshots)       /* private: a sparse snapshot's _vorigin */
        return lvx_pool_printf(rc->pool, "%s,origin,thickorigin%s",
                               r->visible ? "public" : "private",
                               r->snapshots > 1 ? ",multithickorigin" : "");
    if (r->thin_snapshots > 1)
        return "public,origin,thinorigin,multithinorigin";
    if (r->thin_snapshots)
        return "public,origin,thinorigin";
    if (r->ext_thins > 1)
        return "public,origin,extthinorigin,multiextthinorigin";
    if (r->ext_thins)
        return "public,origin,extthinorigin";
    return r->visible ? "public" : "private";
}

LVX_RGETTER(lv_role)
{
    if (!row->lv) {
        if (pseudo_lv(row))
            list_from_csv(rc->pool, v, "public");
        else
            lvx_rval_list(v, NULL);
        return;
    }
    list_from_csv(rc->pool, v, role_csv(rc, row));
}

LVX_RGETTER(lv_modules)
{
    const struct lvx_rlv *r = lvx_report_rlv(row->rvg, row->lv);
    const char *csv = NULL;
    switch (lv_kind(row->lv)) {
    case LVX_SEG_MIRROR: csv = "mirror"; break;
    case LVX_SEG_RAID: csv = "raid"; break;
    case LVX_SEG_THIN: csv = "thin,thin-pool"; break;
    case LVX_SEG_THIN_POOL: csv = "thin-pool"; break;
    case LVX_SEG_CACHE:          /* the kernel's dm-cache for both (LVM2 2.03.16) */
    case LVX_SEG_CACHE_POOL: csv = "cache"; break;
    default:
        if (lvx_seg_is_writecache(first_seg(row->lv)))
            csv = "writecache";
        break;
    }
    if (!csv && row->lv && (r->cow_of || r->snapshots))
        csv = "snapshot";
    if (!csv && row->lv) {      /* the error and zero targets of its segments, sorted */
        bool err = false, zero = false;
        for (unsigned i = 0; i < row->lv->seg_count; i++) {
            err = err || row->lv->segs[i].kind == LVX_SEG_ERROR;
            zero = zero || row->lv->segs[i].kind == LVX_SEG_ZERO;
        }
        csv = err && zero ? "error,zero" : err ? "error" : zero ? "zero" : NULL;
    }
    /* a cache's or writecache's origin is its area: its own module follows (LVM2
     * lists the modules of area sub-LVs too: "cache,raid") */
    const struct lvx_seg *s = row->lv ? first_seg(row->lv) : NULL;
    const struct lvx_lv *o = s && (s->kind == LVX_SEG_CACHE || lvx_seg_is_writecache(s)) &&
                             s->area_count ? s->areas[0].lv : NULL;
    if (csv && o && lv_kind(o) == LVX_SEG_RAID)
        csv = lvx_pool_printf(rc->pool, "%s,raid", csv);
    else if (csv && o && lv_kind(o) == LVX_SEG_MIRROR)
        csv = lvx_pool_printf(rc->pool, "%s,mirror", csv);
    if (csv)
        list_from_csv(rc->pool, v, csv);
    else
        lvx_rval_list(v, NULL);
}

/* --- policy and flags ----------------------------------------------------- */
LVX_RGETTER(lv_allocation_policy)
{
    (void)rc;
    /* a free run's pseudo LV has no policy: LVM2 "unknown" */
    lvx_rval_str(v, row->lv ? lvx_report_alloc_name(row->lv->alloc) : pseudo_lv(row) ? "unknown" : "");
}

LVX_RGETTER(lv_allocation_locked)
{
    (void)rc;
    lvx_rval_str(v, row->lv && (row->lv->status & LVX_LV_LOCKED) ? "allocation locked" : "");
}

LVX_RGETTER(lv_fixed_minor)
{
    (void)rc;
    lvx_rval_str(v, row->lv && (row->lv->status & LVX_LV_FIXED_MINOR) ? "fixed minor" : "");
}

/* a merging origin or merging COW LV (LVM2's lv_is_merging_origin/_cow), a thin
 * snapshot whose merge waits (its origin is not reported merging, as in LVM2) */
LVX_RGETTER(lv_merging)
{
    (void)rc;
    const struct lvx_seg *cs = row->lv ? lvx_lv_cow_snapshot_seg(row->lv) : NULL;
    const struct lvx_seg *ts = row->lv ? lvx_lv_thin_seg(row->lv) : NULL;
    bool merging = row->lv && ((cs && cs->merging) || lvx_lv_merging_snapshot(row->lv) ||
                               (ts && ts->merging));
    lvx_rval_str(v, merging ? "merging" : "");
}

LVX_RGETTER(lv_skip_activation)
{
    (void)rc;
    lvx_rval_str(v, row->lv && (row->lv->flags & LVX_LVF_ACTIVATION_SKIP) ? "skip activation" : "");
}

LVX_RGETTER(lv_autoactivation)
{
    (void)rc;
    lvx_rval_str(v, (row->lv && !(row->lv->flags & LVX_LVF_NOAUTOACTIVATE)) || pseudo_lv(row) ? "enabled"
                                                                                                 : "");
}

LVX_RGETTER(lv_when_full)
{
    (void)rc;
    if (lv_kind(row->lv) != LVX_SEG_THIN_POOL) {
        lvx_rval_str(v, "");
        return;
    }
    lvx_rval_str(v, (row->lv->flags & LVX_LVF_ERROR_WHEN_FULL) ? "error" : "queue");
}

LVX_RGETTER(lv_initial_image_sync)
{
    (void)rc;
    enum lvx_seg_kind k = lv_kind(row->lv);
    bool synced = row->lv && (k == LVX_SEG_MIRROR || k == LVX_SEG_RAID) &&
                  !(row->lv->status & LVX_LV_NOTSYNCED);
    lvx_rval_str(v, synced ? "initial image sync" : "");
}

/* --- numbers and sizes ---------------------------------------------------- */
LVX_RGETTER(lv_major)
{
    (void)rc;
    const struct lvx_lv *lv = row->lv;
    if (!lv)
        lvx_rval_num(v, -1);
    else
        lvx_rval_num(v, (lv->status & LVX_LV_FIXED_MINOR) && lv->has_major ? lv->major : -1);
    v->blank = !lv && !pseudo_lv(row);
}

LVX_RGETTER(lv_minor)
{
    (void)rc;
    const struct lvx_lv *lv = row->lv;
    if (!lv)
        lvx_rval_num(v, -1);
    else
        lvx_rval_num(v, (lv->status & LVX_LV_FIXED_MINOR) && lv->has_minor ? lv->minor : -1);
    v->blank = !lv && !pseudo_lv(row);
}

LVX_RGETTER(lv_read_ahead)
{
    (void)rc;
    const struct lvx_lv *lv = row->lv;
    if (!lv) {
        lvx_rval_size(v, 0);
        v->blank = !pseudo_lv(row);
        return;
    }
    if (!lv->has_read_ahead || lv->read_ahead == 0) {
        lvx_rval_size(v, 0);
        v->str = "auto";
        return;
    }
    lvx_rval_size(v, lv->read_ahead < 0 ? 0 : (uint64_t)lv->read_ahead);
}

LVX_RGETTER(lv_size)
{
    (void)rc;
    lvx_rval_size(v, row->lv ? lvx_report_lv_size(row->lv) : 0);
    v->blank = !row->lv && !pseudo_lv(row);
}

LVX_RGETTER(lv_metadata_size)
{
    (void)rc;
    const struct lvx_seg *s = first_seg(row->lv);
    int64_t len = 0;
    if (s && s->metadata_lv && (s->kind == LVX_SEG_THIN_POOL || s->kind == LVX_SEG_CACHE_POOL))
        lvx_rval_size(v, lvx_report_lv_size(s->metadata_lv));
    else if (lvx_report_cache_on_cachevol(s))   /* its metadata's part of the cachevol */
        lvx_rval_size(v, lvx_report_seg_raw_int(s, "metadata_len", &len) && len > 0
                             ? (uint64_t)len : 0);
    else
        lvx_rval_blank(v, LVX_FT_SIZE);
}

LVX_RGETTER(seg_count)
{
    (void)rc;
    lvx_rval_num(v, row->lv ? row->lv->seg_count : 0);
    v->blank = !row->lv && !pseudo_lv(row);
}

/* --- related LVs ---------------------------------------------------------- */
static const struct lvx_lv *origin_of(const struct lvx_rrow *row);

/* The origin whose descendant the row's LV is (LVM2's ancestors: snapshots and thin
 * LVs, not a cache's origin) */
static const struct lvx_lv *snap_origin_of(const struct lvx_rrow *row)
{
    const struct lvx_seg *s = first_seg(row->lv);
    return s && (s->kind == LVX_SEG_CACHE || lvx_seg_is_writecache(s)) ? NULL : origin_of(row);
}

static const struct lvx_lv *origin_of(const struct lvx_rrow *row)
{
    const struct lvx_rlv *r = lvx_report_rlv(row->rvg, row->lv);
    const struct lvx_seg *s = first_seg(row->lv);
    if (r->cow_of)
        return r->cow_of->origin_lv;
    if (s && s->kind == LVX_SEG_THIN)      /* a thin snapshot's origin, else the external one */
        return s->origin_lv ? s->origin_lv : s->external_lv;
    if (s && s->kind == LVX_SEG_CACHE)
        return s->origin_lv;
    if (lvx_seg_is_writecache(s))
        return lvx_seg_ref(s, "origin");
    return NULL;
}

LVX_RGETTER(origin) { lv_name_value(rc, row, origin_of(row), v); }
LVX_RGETTER(origin_uuid) { lv_uuid_value(rc, origin_of(row), v); }

LVX_RGETTER(origin_size)
{
    (void)rc;
    const struct lvx_rlv *r = lvx_report_rlv(row->rvg, row->lv);
    const struct lvx_seg *s = first_seg(row->lv);
    if (r->cow_of && r->cow_of->origin_lv)
        lvx_rval_size(v, lvx_report_lv_size(r->cow_of->origin_lv));
    else if (s && s->kind == LVX_SEG_THIN && s->external_lv)
        lvx_rval_size(v, lvx_report_lv_size(s->external_lv));
    else if (row->lv && r->snapshots)
        lvx_rval_size(v, lvx_report_lv_size(row->lv));
    else
        lvx_rval_blank(v, LVX_FT_SIZE);
}

static const struct lvx_lv *pool_of(const struct lvx_rrow *row)
{
    const struct lvx_seg *s = first_seg(row->lv);
    if (lvx_seg_is_writecache(s))
        return lvx_seg_ref(s, "writecache");
    return s && (s->kind == LVX_SEG_THIN || s->kind == LVX_SEG_CACHE) ? s->pool_lv : NULL;
}

static const struct lvx_lv *data_of(const struct lvx_rrow *row)
{
    const struct lvx_seg *s = first_seg(row->lv);
    if (!s || (s->kind != LVX_SEG_THIN_POOL && s->kind != LVX_SEG_CACHE_POOL))
        return NULL;
    if (s->data_lv)
        return s->data_lv;
    return s->areas && s->area_count ? s->areas[0].lv : NULL;
}

static const struct lvx_lv *meta_of(const struct lvx_rrow *row)
{
    const struct lvx_seg *s = first_seg(row->lv);
    if (!s || (s->kind != LVX_SEG_THIN_POOL && s->kind != LVX_SEG_CACHE_POOL))
        return NULL;
    return s->metadata_lv;
}

static const struct lvx_lv *log_of(const struct lvx_rrow *row)
{
    const struct lvx_seg *s = first_seg(row->lv);
    return s && s->kind == LVX_SEG_MIRROR ? s->log_lv : NULL;
}

LVX_RGETTER(pool_lv) { lv_name_value(rc, row, pool_of(row), v); }
LVX_RGETTER(pool_lv_uuid) { lv_uuid_value(rc, pool_of(row), v); }
LVX_RGETTER(data_lv) { lv_name_value(rc, row, data_of(row), v); }
LVX_RGETTER(data_lv_uuid) { lv_uuid_value(rc, data_of(row), v); }
LVX_RGETTER(metadata_lv) { lv_name_value(rc, row, meta_of(row), v); }
LVX_RGETTER(metadata_lv_uuid) { lv_uuid_value(rc, meta_of(row), v); }
LVX_RGETTER(mirror_log) { lv_name_value(rc, row, log_of(row), v); }
LVX_RGETTER(mirror_log_uuid) { lv_uuid_value(rc, log_of(row), v); }
/* LVM2's lv_convert_lv: a CONVERTING mirror's resync layer (NAME_mimagetmp_N) */
LVX_RGETTER(convert_lv) { lv_name_value(rc, row, lvx_map_mirror_sync_layer(row->lv), v); }
LVX_RGETTER(convert_lv_uuid) { lv_uuid_value(rc, lvx_map_mirror_sync_layer(row->lv), v); }
LVX_RGETTER(lv_converting)
{
    (void)rc;
    lvx_rval_str(v, row->lv && lvx_map_mirror_sync_layer(row->lv) ? "converting" : "");
}

/* The LVs with of as their origin or external origin, each followed by its own
 * descendants (depth first, each once: LVM2's _find_descendants). */
static void add_descendants(const struct lvx_rrow *row, const struct lvx_lv *of,
                            struct lvx_strlist *l)
{
    const struct lvx_vg *vg = row->vg;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_rrow r = *row;
        r.lv = vg->lvs[i];
        const struct lvx_seg *s = first_seg(vg->lvs[i]);
        bool ext = s && s->kind == LVX_SEG_THIN && s->external_lv == of;
        bool seen = false;
        for (unsigned k = 0; k < l->n && !seen; k++)
            seen = !strcmp(l->v[k], vg->lvs[i]->name);
        if (seen || (snap_origin_of(&r) != of && !ext) ||
            !lvx_report_rlv(row->rvg, vg->lvs[i])->visible)
            continue;
        l->v[l->n++] = vg->lvs[i]->name;
        add_descendants(row, vg->lvs[i], l);
    }
}

static void lv_relatives(struct lvx_rctx *rc, const struct lvx_rrow *row, struct lvx_rval *v,
                         bool descendants)
{
    struct lvx_strlist l = { 0, NULL };
    const struct lvx_vg *vg = row->vg;
    if (!row->lv) {
        lvx_rval_list(v, NULL);
        return;
    }
    l.v = lvx_pool_alloc(rc->pool, sizeof(*l.v) * (vg->lv_count + 1));
    if (!descendants) {
        struct lvx_rrow r = *row;
        const struct lvx_lv *o;
        while ((o = snap_origin_of(&r)) != NULL && l.n < vg->lv_count) {
            l.v[l.n++] = o->name;
            r.lv = o;
        }
    } else {
        add_descendants(row, row->lv, &l);
    }
    lvx_rval_list(v, &l);
}

LVX_RGETTER(lv_ancestors) { lv_relatives(rc, row, v, false); }
LVX_RGETTER(lv_descendants) { lv_relatives(rc, row, v, true); }

/* --- metadata strings ----------------------------------------------------- */
LVX_RGETTER(lv_tags) { lvx_rval_tags(rc->pool, v, row->lv ? &row->lv->tags : NULL); }
LVX_RGETTER(lv_profile) { (void)rc; lvx_rval_str(v, row->lv ? row->lv->profile : ""); }
LVX_RGETTER(lv_lockargs) { (void)rc; lvx_rval_str(v, row->lv ? row->lv->lock_args : ""); }
LVX_RGETTER(lv_host) { (void)rc; lvx_rval_str(v, row->lv ? row->lv->creation_host : ""); }

LVX_RGETTER(lv_time)
{
    if (!row->lv || !row->lv->has_creation) {
        lvx_rval_str(v, "");
        return;
    }
    time_t t = (time_t)row->lv->creation_time;
    struct tm tm;
    char buf[64];
    localtime_r(&t, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", &tm);
    lvx_rval_str(v, lvx_pool_strdup(rc->pool, buf));
    v->num = (int64_t)row->lv->creation_time;
}
