/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvdisplay.c - `lvx lvdisplay [VG|VG/LV ...]`: LVM2's multi-line LV display
 * (-a hidden LVs too, -m the segments "--- Segments ---", -c one colon separated
 * line per LV, -C the lvs report).  lvx_cmd_display_lv_full() is shared with
 * vgdisplay -v.  The lines that need the LV's device (LV Status, # open, the
 * kernel's read-ahead, Block device, the snapshot and thin pool usage) come from
 * the activation backend's status, as LVM2 takes them from device-mapper: left out
 * when activation is off (lvm.conf global/activation = 0), "NOT available" when the
 * LV has no device.
 */
#include "cmd/toolkit.h"

#include <string.h>
#include <time.h>

#include "cmd/actcmd.h"
#include "map/map.h"
#include "model/thin.h"
#include "report/report.h"

static const char *raw_str(const struct lvx_seg *seg, const char *key, const char *dflt)
{
    const char *s = lvx_report_seg_raw_str(seg, key);
    return s ? s : dflt;
}

static int64_t raw_int(const struct lvx_seg *seg, const char *key, int64_t dflt)
{
    int64_t v;
    return lvx_report_seg_raw_int(seg, key, &v) ? v : dflt;
}

/* --- the header block ------------------------------------------------------ */

static bool lv_is_mirrored(const struct lvx_lv *lv)
{
    if (!lv->seg_count)
        return false;
    const struct lvx_seg *seg = &lv->segs[0];
    if (seg->kind == LVX_SEG_MIRROR)
        return true;
    return seg->kind == LVX_SEG_RAID && seg->type_name &&
           (strcmp(seg->type_name, "raid1") == 0 || strncmp(seg->type_name, "raid10", 6) == 0);
}

static void print_creation(struct lvx_buf *b, const struct lvx_lv *lv)
{
    char when[64] = "";
    time_t t = (time_t)lv->creation_time;
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
    lvx_buf_printf(b, "  LV Creation host, time %s, %s\n",
                   lv->creation_host ? lv->creation_host : "", when);
}

/* The kernel state of an LV's device: false (ks zeroed) when it has none or
 * activation is off. */
static bool lv_state(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                     const struct lvx_lv *lv, struct lvx_lv_kstate *ks)
{
    memset(ks, 0, sizeof(*ks));
    return act && !act->off && lvx_actcmd_is_active(env, act, lv, ks);
}

/* A COW LV's snapshot usage when its device is active and valid (LVM2's "active"). */
static bool snap_usage(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                       const struct lvx_lv *cow, const char **pct)
{
    struct lvx_lv_kstate ks;
    if (!lv_state(env, act, cow, &ks) || !ks.snapshot || ks.snap_invalid)
        return false;
    if (pct)
        *pct = lvx_report_percent_str(env->pool, ks.snap_used == ks.snap_meta ? 0 : ks.snap_used,
                                      ks.snap_total);
    return true;
}

/* "LV snapshot status" of an origin: one line per snapshot (cow LV) of it. */
static void print_origin_status(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                struct lvx_buf *b, const struct lvx_lv *lv, bool inkernel)
{
    const struct lvx_vg *vg = lv->vg;
    bool first = true;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_lv *s = vg->lvs[i];
        for (unsigned k = 0; k < s->seg_count; k++) {
            const struct lvx_seg *seg = &s->segs[k];
            if (seg->kind != LVX_SEG_SNAPSHOT || seg->origin_lv != lv || !seg->cow_lv)
                continue;
            if (first)
                lvx_buf_puts(b, "  LV snapshot status     source of\n");
            first = false;
            bool on = inkernel && snap_usage(env, act, seg->cow_lv, NULL);
            lvx_buf_printf(b, "                         %s [%s]\n", seg->cow_lv->name,
                           on ? "active" : "INACTIVE");
        }
    }
}

/* The cache LV whose origin lv is, or NULL. */
static const struct lvx_lv *cache_of_origin(const struct lvx_lv *lv)
{
    for (unsigned i = 0; i < lv->vg->lv_count; i++) {
        const struct lvx_lv *c = lv->vg->lvs[i];
        if (c->seg_count && c->segs[0].kind == LVX_SEG_CACHE && c->segs[0].origin_lv == lv)
            return c;
    }
    return NULL;
}

/* ks: the LV's kernel state when active (a cache LV's pool and origin are named only
 * with its dm-cache status, as LVM2), else NULL */
static void print_pool_lines(struct lvx_buf *b, const struct lvx_lv *lv,
                             const struct lvx_lv_kstate *ks)
{
    const struct lvx_seg *seg = lv->seg_count ? &lv->segs[0] : NULL;
    const struct lvx_lv *cache = seg ? cache_of_origin(lv) : NULL;
    if (!seg)
        return;
    if (cache) {
        lvx_buf_printf(b, "  LV origin of Cache LV  %s\n", cache->name);
        return;
    }
    if (seg->kind == LVX_SEG_CACHE) {
        if (ks && ks->cache && seg->pool_lv && seg->origin_lv)
            lvx_buf_printf(b, "  LV Cache pool name     %s\n  LV Cache origin name   %s\n",
                           seg->pool_lv->name, seg->origin_lv->name);
        return;
    }
    if (seg->kind == LVX_SEG_THIN_POOL || seg->kind == LVX_SEG_CACHE_POOL) {
        if (seg->metadata_lv)
            lvx_buf_printf(b, "  LV Pool metadata       %s\n", seg->metadata_lv->name);
        if (seg->data_lv)
            lvx_buf_printf(b, "  LV Pool data           %s\n", seg->data_lv->name);
    } else if (seg->kind == LVX_SEG_THIN) {
        if (seg->pool_lv)
            lvx_buf_printf(b, "  LV Pool name           %s\n", seg->pool_lv->name);
        if (seg->origin_lv)
            lvx_buf_printf(b, "  LV Thin origin name    %s\n", seg->origin_lv->name);
        if (seg->external_lv)
            lvx_buf_printf(b, "  LV External origin name %s\n", seg->external_lv->name);
        if (seg->merging && seg->origin_lv)      /* a thin merge waiting (cmd/thin_cmd.c) */
            lvx_buf_printf(b, "  LV merging to          %s\n", seg->origin_lv->name);
        const struct lvx_seg *m = lvx_thin_merging_into(lv);
        if (m)
            lvx_buf_printf(b, "  LV merged with         %s\n", m->lv->name);
    }
}

static const char *read_ahead_str(struct lvx_pool *pool, const struct lvx_lv *lv)
{
    if (!lv->has_read_ahead || lv->read_ahead == 0)
        return "auto";
    if (lv->read_ahead < 0)
        return "0";
    return lvx_pool_printf(pool, "%lld", (long long)lv->read_ahead);
}

/* --- segments (-m) --------------------------------------------------------- */

static void print_area(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_area *a,
                       uint64_t len, const char *indent)
{
    if (a->pv) {
        lvx_buf_printf(b, "%sPhysical volume\t%s\n", indent, lvx_cmd_pv_name(a->pv));
        lvx_buf_printf(b, "%sPhysical extents\t%llu to %llu\n", indent,
                       (unsigned long long)a->start, (unsigned long long)(a->start + len - 1));
    } else if (a->lv) {
        lvx_buf_printf(b, "%sLogical volume\t%s\n", indent, a->lv->name);
        lvx_buf_printf(b, "%sLogical extents\t%llu to %llu\n", indent,
                       (unsigned long long)a->start, (unsigned long long)(a->start + len - 1));
    }
    (void)env;
}

static void print_seg_striped(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_seg *seg)
{
    uint64_t len = lvx_seg_area_len(seg);
    if (seg->area_count <= 1) {
        lvx_buf_puts(b, "    Type\t\tlinear\n");
        if (seg->area_count)
            print_area(env, b, &seg->areas[0], len, "    ");
        return;
    }
    lvx_buf_puts(b, "    Type\t\tstriped\n");
    lvx_buf_printf(b, "    Stripes\t\t%u\n", seg->area_count);
    lvx_buf_printf(b, "    Stripe size\t\t%s\n",
                   lvx_cmd_size_str(env->pool, seg->stripe_size, env->args->units,
                                    env->args->unit_bytes));
    for (unsigned i = 0; i < seg->area_count; i++) {
        lvx_buf_printf(b, "    Stripe %u:\n", i);
        print_area(env, b, &seg->areas[i], len, "      ");
    }
}

static void print_seg_raid(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_seg *seg)
{
    bool raid0 = seg->type_name && strncmp(seg->type_name, "raid0", 5) == 0;
    bool raid10 = seg->type_name && strncmp(seg->type_name, "raid10", 6) == 0;
    /* LVM2 shows a raid10 image as covering the whole segment (lvs reports the real
     * image length); the display follows it */
    uint64_t len = raid10 ? seg->extent_count : lvx_seg_area_len(seg);
    lvx_buf_printf(b, "    Type\t\t%s\n", seg->type_name);
    lvx_buf_printf(b, "    Monitoring\t\t%s\n", raid0 ? "not monitored" : "");
    for (unsigned i = 0; i < seg->area_count; i++) {
        lvx_buf_printf(b, "    Raid Data LV %u\n", i);
        print_area(env, b, &seg->areas[i], len, "      ");
    }
    for (unsigned i = 0; seg->meta_areas && i < seg->area_count; i++)
        if (seg->meta_areas[i].lv)
            lvx_buf_printf(b, "    Raid Metadata LV %u\t%s\n", i, seg->meta_areas[i].lv->name);
}

static void print_seg_mirror(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_seg *seg)
{
    uint64_t len = lvx_seg_area_len(seg);
    /* LVM2 never monitors the mirror of a pvmove */
    lvx_buf_printf(b, "    Type\t\tmirror\n    Monitoring\t\t%s\n",
                   seg->lv->status & LVX_LV_PVMOVE ? "not monitored" : "");
    lvx_buf_printf(b, "    Mirrors\t\t%u\n", seg->area_count);
    lvx_buf_printf(b, "    Mirror size\t\t%llu\n", (unsigned long long)len);
    if (seg->log_lv)
        lvx_buf_printf(b, "    Mirror log volume\t%s\n", seg->log_lv->name);
    if (seg->region_size)
        lvx_buf_printf(b, "    Mirror region size\t%s\n",
                       lvx_cmd_size_str(env->pool, seg->region_size, env->args->units,
                                    env->args->unit_bytes));
    for (unsigned i = 0; i < seg->area_count; i++) {
        if (i == 0)
            lvx_buf_puts(b, "    Mirror original:\n");
        else if (i == 1)
            lvx_buf_puts(b, "    Mirror destinations:\n");
        print_area(env, b, &seg->areas[i], len, "      ");
    }
}

static unsigned thin_count(const struct lvx_lv *pool_lv)
{
    unsigned n = 0;
    for (unsigned i = 0; i < pool_lv->vg->lv_count; i++) {
        const struct lvx_lv *lv = pool_lv->vg->lvs[i];
        if (lv->seg_count && lv->segs[0].kind == LVX_SEG_THIN && lv->segs[0].pool_lv == pool_lv)
            n++;
    }
    return n;
}

/* ks: the active pool's state (its monitor: "monitored"/"not monitored" as LVM2's
 * dmeventd registration), NULL when inactive */
static void print_seg_thin_pool(struct lvx_cmd_env *env, struct lvx_buf *b,
                                const struct lvx_seg *seg, const struct lvx_lv_kstate *ks)
{
    const char *mon = !ks || ks->monitored < 0 ? "" : ks->monitored ? "monitored" : "not monitored";
    lvx_buf_printf(b, "    Type\t\t%s\n    Monitoring\t\t%s\n", seg->type_name, mon);
    lvx_buf_printf(b, "    Chunk size\t\t%s\n",
                   lvx_cmd_size_str(env->pool, seg->chunk_size, env->args->units,
                                    env->args->unit_bytes));
    lvx_buf_printf(b, "    Discards\t\t%s\n", raw_str(seg, "discards", "passdown"));
    lvx_buf_printf(b, "    Thin count\t\t%u\n", thin_count(seg->lv));
    lvx_buf_printf(b, "    Transaction ID\t%lld\n", (long long)raw_int(seg, "transaction_id", 0));
    lvx_buf_printf(b, "    Zero new blocks\t%s\n", raw_int(seg, "zero_new_blocks", 0) ? "yes" : "no");
}

/* A cache pool's or cache LV's segment: its settings (a cache LV shows its pool's, or its
 * own on a cachevol), each line only when the metadata has it, as LVM2 2.03.16. */
static void print_seg_cache(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_seg *seg)
{
    const struct lvx_seg *set = lvx_report_cache_settings_seg(seg);
    int64_t fmt = 0;
    lvx_buf_printf(b, "    Type\t\t%s\n", seg->type_name);
    if (!set)
        return;
    lvx_buf_printf(b, "    Chunk size\t\t%s\n",
                   lvx_cmd_size_str(env->pool, set->chunk_size, env->args->units,
                                    env->args->unit_bytes));
    if (lvx_report_seg_raw_int(set, "metadata_format", &fmt) && (fmt == 1 || fmt == 2))
        lvx_buf_printf(b, "    Metadata format\t%lld\n", (long long)fmt);
    if (lvx_report_seg_raw_str(set, "cache_mode"))
        lvx_buf_printf(b, "    Mode\t\t%s\n", lvx_report_seg_raw_str(set, "cache_mode"));
    if (lvx_report_seg_raw_str(set, "policy"))
        lvx_buf_printf(b, "    Policy\t\t%s\n", lvx_report_seg_raw_str(set, "policy"));
    struct lvx_strlist l;
    lvx_report_cache_settings(seg, env->pool, &l);
    for (unsigned i = 0; i < l.n; i++)
        lvx_buf_printf(b, "      Setting\t\t%s\n", l.v[i]);
}

static void print_segment(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_seg *seg,
                          const struct lvx_lv_kstate *ks)
{
    const char *what = seg->kind == LVX_SEG_THIN ? "Virtual" : "Logical";
    lvx_buf_printf(b, "  %s extents %llu to %llu:\n", what, (unsigned long long)seg->start_extent,
                   (unsigned long long)(seg->start_extent + seg->extent_count - 1));
    switch (seg->kind) {
    case LVX_SEG_STRIPED:
        print_seg_striped(env, b, seg);
        break;
    case LVX_SEG_RAID:
        print_seg_raid(env, b, seg);
        break;
    case LVX_SEG_MIRROR:
        print_seg_mirror(env, b, seg);
        break;
    case LVX_SEG_THIN_POOL:
        print_seg_thin_pool(env, b, seg, ks);
        break;
    case LVX_SEG_CACHE_POOL:
    case LVX_SEG_CACHE:
        print_seg_cache(env, b, seg);
        break;
    case LVX_SEG_THIN:
        lvx_buf_puts(b, "    Type\t\tthin\n");
        lvx_buf_printf(b, "    Device ID\t\t%lld\n", (long long)raw_int(seg, "device_id", 0));
        break;
    default:
        lvx_buf_printf(b, "    Type\t\t%s\n", seg->type_name ? seg->type_name : seg->type);
        if (lvx_seg_is_writecache(seg))   /* LVM2 2.03.16: no blank line of its own */
            return;
        break;
    }
    lvx_buf_puts(b, "   \n");
}

/* --- one LV ---------------------------------------------------------------- */

static bool lv_is_thin_pool(const struct lvx_lv *lv)
{
    return lv->seg_count && lv->segs[0].kind == LVX_SEG_THIN_POOL;
}

const struct lvx_lv **lvx_cmd_display_order(struct lvx_pool *pool, const struct lvx_vg *vg,
                                           unsigned *count)
{
    const struct lvx_lv **lvs = lvx_pool_alloc(pool, (vg->lv_count + 1) * sizeof(*lvs));
    unsigned n = 0;
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < vg->lv_count; i++)
            if (lv_is_thin_pool(vg->lvs[i]) == (pass == 0))
                lvs[n++] = vg->lvs[i];
    *count = n;
    return lvs;
}

/* "Allocated pool data", "Allocated metadata" (an active thin pool) and "Mapped size"
 * (an active thin LV), after LV Size as LVM2 prints them. */
static void print_thin_usage(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_lv *lv,
                             const struct lvx_lv_kstate *ks)
{
    if (ks->thin_pool && lvx_lv_is_thin_pool(lv)) {
        lvx_buf_printf(b, "  Allocated pool data    %s%%\n",
                       lvx_report_percent_str(env->pool, ks->data_used, ks->data_total));
        lvx_buf_printf(b, "  Allocated metadata     %s%%\n",
                       lvx_report_percent_str(env->pool, ks->meta_used, ks->meta_total));
    } else if (ks->thin && lvx_lv_is_thin(lv)) {
        lvx_buf_printf(b, "  Mapped size            %s%%\n",
                       lvx_report_percent_str(env->pool, ks->thin_mapped,
                                              lv->le_count * (uint64_t)lv->vg->extent_size));
    }
}

/* An active cache LV's dm-cache counters after LV Size, as LVM2 prints them. */
static void print_cache_usage(struct lvx_cmd_env *env, struct lvx_buf *b,
                              const struct lvx_lv_kstate *ks)
{
    if (ks->cache_fail)
        return;
    lvx_buf_printf(b, "  Cache used blocks      %s%%\n",
                   lvx_report_percent_str(env->pool, ks->cache_used, ks->cache_total));
    lvx_buf_printf(b, "  Cache metadata blocks  %s%%\n",
                   lvx_report_percent_str(env->pool, ks->cache_meta_used, ks->cache_meta_total));
    lvx_buf_printf(b, "  Cache dirty blocks     %s%%\n",
                   ks->cache_used ? lvx_report_percent_str(env->pool, ks->cache_dirty, ks->cache_used)
                                  : "0.00");
    lvx_buf_printf(b, "  Cache read hits/misses %llu / %llu\n",
                   (unsigned long long)ks->cache_read_hits, (unsigned long long)ks->cache_read_misses);
    lvx_buf_printf(b, "  Cache wrt hits/misses  %llu / %llu\n",
                   (unsigned long long)ks->cache_write_hits, (unsigned long long)ks->cache_write_misses);
    lvx_buf_printf(b, "  Cache demotions        %llu\n  Cache promotions       %llu\n",
                   (unsigned long long)ks->cache_demotions, (unsigned long long)ks->cache_promotions);
}

bool lvx_cmd_display_lv_open(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             const struct lvx_lv *lv)
{
    struct lvx_lv_kstate ks;
    return lv_state(env, act, lv, &ks) && ks.open_count > 0;
}

void lvx_cmd_display_lv_full(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             struct lvx_buf *b, const struct lvx_lv *lv, bool maps)
{
    const struct lvx_vg *vg = lv->vg;
    char units = env->args->units;
    uint64_t unit_bytes = env->args->unit_bytes;
    char uuid[LVX_UUID_DASHED_LEN + 1];
    const struct lvx_seg *snap = lvx_lv_is_cow(lv) ? lvx_lv_cow_snapshot_seg(lv) : NULL;
    const struct lvx_lv *shown = snap && snap->origin_lv ? snap->origin_lv : lv;
    struct lvx_lv_kstate ks;
    bool inkernel = lv_state(env, act, lv, &ks);
    const char *snap_pct = NULL;
    bool snap_active = snap && inkernel && snap_usage(env, act, lv, &snap_pct);

    lvx_uuid_format(lv->uuid, uuid);
    lvx_buf_puts(b, "  --- Logical volume ---\n");
    if (lvx_lv_is_visible(lv)) {
        if (!lv_is_thin_pool(lv))    /* a cache pool shows it (LVM2 2.03.16) */
            lvx_buf_printf(b, "  LV Path                %s\n", lvx_cmd_lv_path(env->pool, lv));
        lvx_buf_printf(b, "  LV Name                %s\n", lv->name);
    } else {
        lvx_buf_printf(b, "  Internal LV Name       %s\n", lv->name);
    }
    lvx_buf_printf(b, "  VG Name                %s\n", vg->name);
    lvx_buf_printf(b, "  LV UUID                %s\n", uuid);
    lvx_buf_printf(b, "  LV Write Access        %s\n",
                   lv->status & LVX_LV_WRITE || lv->flags & LVX_LVF_WRITE_LOCKED ? "read/write"
                                                                                : "read only");
    if (lv->has_creation)
        print_creation(b, lv);
    if (snap && snap->origin_lv)
        lvx_buf_printf(b, "  LV snapshot status     %s destination for %s\n",
                       snap_active ? "active" : "INACTIVE", snap->origin_lv->name);
    else
        print_origin_status(env, act, b, lv, inkernel);
    print_pool_lines(b, lv, inkernel ? &ks : NULL);
    if (inkernel && ks.suspended)
        lvx_buf_puts(b, "  LV Status              suspended\n");
    else if (act && !act->off) {
        /* LVM2: an active RAID LV short of images is "NOT available" too */
        bool serving = inkernel && (!lvx_map_lv_is_raid(lv) || lvx_map_raid_available(lv));
        lvx_buf_printf(b, "  LV Status              %savailable%s\n", serving ? "" : "NOT ",
                       lvx_map_lv_partial(lv) ? " (partial)" : "");
    }
    if (inkernel)
        lvx_buf_printf(b, "  # open                 %d\n", ks.open_count);
    lvx_buf_printf(b, "  LV Size                %s\n",
                   lvx_cmd_size_str(env->pool, lvx_lv_size_sectors(shown), units, unit_bytes));
    if (inkernel && ks.cache && lv->seg_count && lv->segs[0].kind == LVX_SEG_CACHE)
        print_cache_usage(env, b, &ks);
    if (inkernel)
        print_thin_usage(env, b, lv, &ks);
    lvx_buf_printf(b, "  Current LE             %llu\n", (unsigned long long)shown->le_count);
    if (lv_is_mirrored(lv))
        lvx_buf_printf(b, "  Mirrored volumes       %u\n", lv->segs[0].area_count);
    if (snap) {
        lvx_buf_printf(b, "  COW-table size         %s\n",
                       lvx_cmd_size_str(env->pool, lv->le_count * vg->extent_size, units, unit_bytes));
        lvx_buf_printf(b, "  COW-table LE           %llu\n", (unsigned long long)lv->le_count);
        if (snap_active)
            lvx_buf_printf(b, "  Allocated to snapshot  %s%%\n", snap_pct);
        lvx_buf_printf(b, "  Snapshot chunk size    %s\n",
                       lvx_cmd_size_str(env->pool, snap->chunk_size, units, unit_bytes));
    }
    lvx_buf_printf(b, "  Segments               %u\n", lv->seg_count);
    lvx_buf_printf(b, "  Allocation             %s\n", lvx_alloc_name(lv->alloc));
    lvx_buf_printf(b, "  Read ahead sectors     %s\n", read_ahead_str(env->pool, lv));
    /* LVM2 compares its own value (auto never equals a number) with the device's */
    int64_t own_ra = !lv->has_read_ahead || lv->read_ahead == 0 ? -2   /* auto */
                     : lv->read_ahead < 0                      ? 0    /* none */
                                                               : lv->read_ahead;
    if (inkernel && ks.read_ahead >= 0 && ks.read_ahead != own_ra)
        lvx_buf_printf(b, "  - currently set to     %lld\n", (long long)ks.read_ahead);
    if (lv->has_minor) {
        if (lv->has_major && lv->major >= 0)
            lvx_buf_printf(b, "  Persistent major       %lld\n", (long long)lv->major);
        lvx_buf_printf(b, "  Persistent minor       %lld\n", (long long)lv->minor);
    }
    if (inkernel)
        lvx_buf_printf(b, "  Block device           %lld:%lld\n", (long long)ks.major,
                       (long long)ks.minor);
    lvx_buf_puts(b, "   \n");
    if (maps) {
        lvx_buf_puts(b, "  --- Segments ---\n");
        for (unsigned i = 0; i < lv->seg_count; i++)
            print_segment(env, b, &lv->segs[i], inkernel ? &ks : NULL);
        lvx_buf_puts(b, "   \n");
    }
}

/* path:vg:access:active:-1:open:size:le:-1:alloc:read_ahead:major:minor (the device's
 * numbers, -1 without one) */
static void display_lv_colon(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             struct lvx_buf *b, const struct lvx_lv *lv)
{
    struct lvx_lv_kstate ks;
    bool inkernel = lv_state(env, act, lv, &ks);
    /* access: 1 read, 2 write (metadata), 4 the device is read-only */
    unsigned access = (lv->status & LVX_LV_READ ? 1 : 0) | (lv->status & LVX_LV_WRITE ? 2 : 0);
    long long ra = !lv->has_read_ahead || lv->read_ahead == 0 ? -1
                   : lv->read_ahead < 0                      ? 0
                                                             : (long long)lv->read_ahead;
    lvx_buf_printf(b, "  %s:%s:%u:%d:-1:%d:%llu:%llu:-1:%d:%lld:%lld:%lld\n",
                   lvx_cmd_lv_path(env->pool, lv), lv->vg->name,
                   access | (inkernel && ks.read_only ? 4u : 0u), inkernel ? 1 : 0,
                   inkernel ? ks.open_count : 0,
                   (unsigned long long)(lv->le_count * lv->vg->extent_size),
                   (unsigned long long)lv->le_count, lv->alloc == LVX_ALLOC_CONTIGUOUS ? 2 : 0, ra,
                   inkernel ? (long long)ks.major : -1LL, inkernel ? (long long)ks.minor : -1LL);
}

static int display_lvs(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *b,
                       void *arg)
{
    bool all = env->args->count[LVX_OPT_ALL] > 0;   /* a hidden LV named: nothing, as LVM2 */
    struct lvx_actcmd act;
    int rc = lvx_actcmd_init(env, &act);
    if (rc)
        return rc;
    for (unsigned i = 0; i < sel->vg_count; i++) {
        const struct lvx_vg *vg = sel->vgs[i];
        unsigned n;
        const struct lvx_lv **lvs = lvx_cmd_display_order(env->pool, vg, &n);
        for (unsigned j = 0; j < n; j++) {
            const struct lvx_lv *lv = lvs[j];
            if (lvx_lv_is_snapshot_internal(lv) || (!all && !lvx_lv_is_visible(lv)))
                continue;
            if (env->args->count[LVX_OPT_COLON])
                display_lv_colon(env, &act, b, lv);
            else
                lvx_cmd_display_lv_full(env, &act, b, lv, env->args->count[LVX_OPT_MAPS] > 0);
        }
    }
    return 0;
}

int lvx_cmd_lvdisplay(struct lvx_cmd_env *env)
{
    return lvx_process_display(env, LVX_TK_LVS, lvx_cmd_lvs, display_lvs);
}
