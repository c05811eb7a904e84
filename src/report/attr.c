/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/attr.c - the 10-character lv_attr string as LVM2 prints it when
 * device-mapper state is unknown (activation unavailable: state and open
 * letters are 'X', raid health 'X').
 *
 *   1 volume type   2 permissions   3 allocation policy (upper case: locked)
 *   4 fixed minor   5 state         6 device open
 *   7 target type   8 zero new blocks   9 health   10 skip activation
 */
#include "model/snapshot.h"
#include "model/thin.h"
#include "report/report_int.h"

#include "map/map.h"

#include <ctype.h>
#include <string.h>

static const struct lvx_seg *first_seg(const struct lvx_lv *lv)
{
    return lv->seg_count ? &lv->segs[0] : NULL;
}

static enum lvx_seg_kind lv_kind(const struct lvx_lv *lv)
{
    const struct lvx_seg *s = first_seg(lv);
    return s ? s->kind : LVX_SEG_OTHER;
}

static bool seg_type_is(const struct lvx_lv *lv, const char *name)
{
    const struct lvx_seg *s = first_seg(lv);
    return s && strcmp(lvx_report_seg_type(s), name) == 0;
}

static char volume_type(const struct lvx_lv *lv, const struct lvx_rlv *r)
{
    enum lvx_seg_kind k = lv_kind(lv);
    bool notsynced = (lv->status & LVX_LV_NOTSYNCED) != 0;
    if (lv->status & LVX_LV_PVMOVE)
        return 'p';
    if (lvx_map_mirror_sync_layer(lv))     /* LVM2's CONVERTING */
        return 'c';
    /* LVM2: an origin (of COW snapshots, or external) before mirror, RAID and thin */
    if (r->snapshots || r->ext_thins)
        return lvx_lv_merging_snapshot(lv) ? 'O' : 'o';
    if (r->role == LVX_RROLE_TMETA || r->role == LVX_RROLE_CMETA)
        return 'e';                         /* a pool's raid1 metadata too (LVM2's order) */
    if (k == LVX_SEG_MIRROR)
        return notsynced ? 'M' : 'm';
    if (k == LVX_SEG_RAID)
        return notsynced ? 'R' : 'r';
    switch (r->role) {
    case LVX_RROLE_MIMAGE:
    case LVX_RROLE_RIMAGE:
        return 'I';
    case LVX_RROLE_MLOG:
        return 'l';
    case LVX_RROLE_RMETA:
    case LVX_RROLE_TMETA:
    case LVX_RROLE_CMETA:
        return 'e';
    case LVX_RROLE_TDATA:
        return 'T';
    case LVX_RROLE_CDATA:
        return 'C';
    default:
        break;
    }
    if (r->pmspare)
        return 'e';
    if (k == LVX_SEG_THIN)      /* a thin merge waiting: the origin 'O', the snapshot 'S' */
        return lvx_thin_merging_into(lv) ? 'O' : lv->segs[0].merging ? 'S' : 'V';
    if (k == LVX_SEG_THIN_POOL)
        return 't';
    if (k == LVX_SEG_CACHE || k == LVX_SEG_CACHE_POOL || (lv->flags & LVX_LVF_CACHE_VOL) ||
        lvx_seg_is_writecache(first_seg(lv)))
        return 'C';
    if (seg_type_is(lv, "vdo-pool"))
        return 'd';
    if (r->cow_of)
        return r->cow_of->merging ? 'S' : 's';
    if (k == LVX_SEG_ERROR || k == LVX_SEG_ZERO)
        return 'v';
    if (r->role == LVX_RROLE_CORIGIN || r->role == LVX_RROLE_WCORIGIN)
        return 'o';                         /* a cache's origin (LVM2 2.03.16, kernel guest) */
    return '-';
}

static char alloc_letter(const struct lvx_lv *lv)
{
    char c;
    switch (lv->alloc) {
    case LVX_ALLOC_CONTIGUOUS: c = 'c'; break;
    case LVX_ALLOC_CLING:
    case LVX_ALLOC_CLING_BY_TAGS: c = 'l'; break;
    case LVX_ALLOC_NORMAL: c = 'n'; break;
    case LVX_ALLOC_ANYWHERE: c = 'a'; break;
    default: c = 'i'; break;
    }
    return (lv->status & LVX_LV_LOCKED) ? (char)toupper((unsigned char)c) : c;
}

static bool raid_type(const struct lvx_lv *lv, const struct lvx_rlv *r)
{
    return lv_kind(lv) == LVX_SEG_RAID || r->role == LVX_RROLE_RIMAGE ||
           r->role == LVX_RROLE_RMETA;
}

static char target_type(const struct lvx_lv *lv, const struct lvx_rlv *r)
{
    enum lvx_seg_kind k = lv_kind(lv);
    /* a cache pool's _cdata/_cmeta are not (LVM2 2.03.16: '-', checked on the host) */
    if (k == LVX_SEG_CACHE || k == LVX_SEG_CACHE_POOL || r->role == LVX_RROLE_CORIGIN ||
        r->role == LVX_RROLE_WCORIGIN || (lv->flags & LVX_LVF_CACHE_VOL) ||
        lvx_seg_is_writecache(first_seg(lv)))
        return 'C';
    if (k == LVX_SEG_MIRROR || r->role == LVX_RROLE_MIMAGE || r->role == LVX_RROLE_MLOG)
        return 'm';
    if (raid_type(lv, r))
        return 'r';
    if (k == LVX_SEG_THIN || k == LVX_SEG_THIN_POOL)   /* also a thin origin of COW snapshots */
        return 't';
    if (r->cow_of || r->snapshots)
        return 's';
    if (k == LVX_SEG_ERROR || k == LVX_SEG_ZERO)
        return 'v';
    return '-';
}

/* An area on a missing PV, also through RAID sub-LVs (LVM2's PARTIAL_LV). */
static bool lv_partial(const struct lvx_lv *lv)
{
    return lvx_map_lv_partial(lv);
}

const char *lvx_report_lv_attr(struct lvx_pool *pool, const struct lvx_rvg *rvg,
                               const struct lvx_lv *lv)
{
    const struct lvx_rlv *r = lvx_report_rlv(rvg, lv);
    const struct lvx_seg *s = first_seg(lv);
    char *a = lvx_pool_alloc(pool, 11);
    a[0] = volume_type(lv, r);
    a[1] = (lv->status & LVX_LV_WRITE) || (lv->flags & LVX_LVF_WRITE_LOCKED) ? 'w' : 'r';
    if (lv->status & LVX_LV_PVMOVE)
        a[1] = '-';                      /* LVM2: a pvmove LV shows no permission */
    a[2] = alloc_letter(lv);
    a[3] = (lv->status & LVX_LV_FIXED_MINOR) ? 'm' : '-';
    a[4] = 'X';
    a[5] = 'X';
    a[6] = target_type(lv, r);
    a[7] = s && lvx_report_seg_zero(s) ? 'z' : '-';
    a[8] = lv_partial(lv) ? 'p' : raid_type(lv, r) ? 'X' : '-';
    a[9] = (lv->flags & LVX_LVF_ACTIVATION_SKIP) ? 'k' : '-';
    a[10] = '\0';
    return a;
}
