/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/vgsplit.c - moving PVs and LVs between two VGs in memory, with LVM2's rules
 * (vgsplit, vgmerge): which LVs follow the PVs that moved, in which order they are
 * appended to the destination (LVM2's passes: RAID stacks, plain LVs, mirrors, thin
 * pools and thin LVs, snapshots), and the refusals ("Can't split ... between two
 * Volume Groups").
 * Objects keep their addresses (segment areas point at them); both VGs must live in
 * the same pool.
 */
#include "model/model.h"

#include <errno.h>
#include <string.h>

static bool on_vg_pvs(const struct lvx_lv *lv, const struct lvx_vg *vg, unsigned depth)
{
    if (depth > 16)
        return false;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        for (unsigned a = 0; a < seg->area_count; a++) {
            if (seg->areas[a].pv && seg->areas[a].pv->vg == vg)
                return true;
            if (seg->areas[a].lv && on_vg_pvs(seg->areas[a].lv, vg, depth + 1))
                return true;
            if (seg->meta_areas && seg->meta_areas[a].lv &&
                on_vg_pvs(seg->meta_areas[a].lv, vg, depth + 1))
                return true;
            if (seg->meta_areas && seg->meta_areas[a].pv && seg->meta_areas[a].pv->vg == vg)
                return true;
        }
        if (seg->log_lv && on_vg_pvs(seg->log_lv, vg, depth + 1))
            return true;
        const struct lvx_lv *more[] = { seg->pool_lv, seg->metadata_lv, seg->data_lv,
                                        seg->external_lv };
        for (unsigned i = 0; i < 4; i++)
            if (more[i] && more[i] != lv && on_vg_pvs(more[i], vg, depth + 1))
                return true;
    }
    return false;
}

bool lvx_lv_on_vg_pvs(const struct lvx_lv *lv, const struct lvx_vg *vg)
{
    return on_vg_pvs(lv, vg, 0);
}

static enum lvx_seg_kind first_kind(const struct lvx_lv *lv)
{
    return lv->seg_count ? lv->segs[0].kind : LVX_SEG_STRIPED;
}

struct split {
    struct lvx_ctx *ctx;
    struct lvx_vg *from, *to;
    lvx_lv_active_fn active;
    void *arg;
};

/* The LV (or NULL) of which lv is a hidden image, log or pool data/metadata (LVM2's
 * lv_parent: not a snapshot's COW, an origin or a visible LV). */
static const struct lvx_lv *parent_of(const struct lvx_lv *lv)
{
    static const char *const roles[] = { "mimage", "mlog", "rmeta", "cdata", "cmeta", "tdata",
                                         "tmeta" };
    const char *role = NULL;
    const struct lvx_seg *seg = lvx_lv_used_by(lv, &role);
    if (!seg || !role || (lv->status & LVX_LV_VISIBLE))
        return NULL;
    if (!strcmp(role, "image"))
        return seg->kind == LVX_SEG_RAID ? seg->lv : NULL;
    for (unsigned i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
        if (!strcmp(role, roles[i]))
            return seg->lv;
    return NULL;
}

/* The LV with its first segment's LV areas (LVM2's tree move): -1 refused. */
static int tree_move(struct split *sp, struct lvx_lv *lv)
{
    lvx_vg_move_lv(sp->to, lv);
    if (!lv->seg_count)
        return 0;
    const struct lvx_seg *seg = &lv->segs[0];
    for (unsigned a = 0; a < seg->area_count; a++) {
        struct lvx_lv *sub = seg->areas[a].lv;
        if (!sub)
            continue;
        if (sub->vg == sp->from) {
            if (tree_move(sp, sub) < 0)
                return -1;
        } else if (sub->vg != sp->to) {
            return lvx_error(sp->ctx, EINVAL, "Internal error: LV %s has a sub-LV in no VG",
                             lv->name);
        }
    }
    return 0;
}

static int move_one(struct split *sp, struct lvx_lv *lv)
{
    if (sp->active && sp->active(lv, sp->arg)) {
        const struct lvx_lv *parent = parent_of(lv);
        if (parent)
            return lvx_error(sp->ctx, EBUSY, "Logical volume %s/%s (part of %s) must be inactive.",
                             lv->vg->name, lv->name, parent->name);
        return lvx_error(sp->ctx, EBUSY, "Logical volume %s/%s must be inactive.", lv->vg->name,
                         lv->name);
    }
    if (lvx_lv_on_vg_pvs(lv, sp->from))
        return lvx_error(sp->ctx, EINVAL, "Can't split LV %s between two Volume Groups", lv->name);
    return tree_move(sp, lv);
}

/* A copy of from's LV list: the passes walk it while LVs leave. */
static struct lvx_lv **lv_list(struct split *sp, unsigned *n)
{
    *n = sp->from->lv_count;
    struct lvx_lv **v = lvx_pool_alloc(sp->from->pool, (*n + 1) * sizeof(*v));
    if (*n)                     /* a VG without LVs may have no array at all */
        memcpy(v, sp->from->lvs, *n * sizeof(*v));
    return v;
}

static int move_raids(struct split *sp)
{
    unsigned n;
    struct lvx_lv **v = lv_list(sp, &n);
    for (unsigned i = 0; i < n; i++)
        if (v[i]->vg == sp->from && first_kind(v[i]) == LVX_SEG_RAID &&
            lvx_lv_on_vg_pvs(v[i], sp->to) && move_one(sp, v[i]) < 0)
            return -1;
    return 0;
}

static bool stack_kind(enum lvx_seg_kind k)
{
    return k == LVX_SEG_THIN_POOL || k == LVX_SEG_THIN || k == LVX_SEG_CACHE ||
           k == LVX_SEG_CACHE_POOL;
}

/* Plain LVs (and the sub-LVs of the others): all their PVs moved, they move. */
static int move_plain(struct split *sp)
{
    unsigned n;
    struct lvx_lv **v = lv_list(sp, &n);
    for (unsigned i = 0; i < n; i++) {
        struct lvx_lv *lv = v[i];
        enum lvx_seg_kind k = first_kind(lv);
        if (lv->vg != sp->from || k == LVX_SEG_SNAPSHOT || k == LVX_SEG_RAID ||
            k == LVX_SEG_MIRROR || stack_kind(k))
            continue;
        const struct lvx_vg *with = NULL;
        for (unsigned s = 0; s < lv->seg_count; s++) {
            const struct lvx_seg *seg = &lv->segs[s];
            for (unsigned a = 0; a < seg->area_count; a++) {
                const struct lvx_pv *pv = seg->areas[a].pv;
                if (!pv)
                    continue;
                if (with && pv->vg != with)
                    return lvx_error(sp->ctx, EINVAL, "Can't split Logical Volume %s between "
                                     "two Volume Groups", lv->name);
                with = pv->vg;
            }
        }
        if (with == sp->from)
            continue;
        if (move_one(sp, lv) < 0)
            return -1;
    }
    return 0;
}

static int move_mirrors(struct split *sp)
{
    unsigned n;
    struct lvx_lv **v = lv_list(sp, &n);
    for (unsigned i = 0; i < n; i++) {
        struct lvx_lv *lv = v[i];
        if (lv->vg != sp->from || first_kind(lv) != LVX_SEG_MIRROR || !lvx_lv_on_vg_pvs(lv, sp->to))
            continue;
        const struct lvx_seg *seg = &lv->segs[0];
        unsigned in = 0;
        for (unsigned a = 0; a < seg->area_count; a++)
            in += seg->areas[a].lv && seg->areas[a].lv->vg == sp->to;
        bool log_in = !seg->log_lv;
        if (seg->log_lv) {
            if (first_kind(seg->log_lv) == LVX_SEG_MIRROR) {
                const struct lvx_seg *ls = &seg->log_lv->segs[0];
                log_in = true;
                for (unsigned a = 0; a < ls->area_count; a++)
                    log_in = log_in && ls->areas[a].lv && ls->areas[a].lv->vg == sp->to;
            } else {
                log_in = seg->log_lv->vg == sp->to;
            }
        }
        if ((in && in < seg->area_count) || (in && seg->log_lv && !log_in) ||
            (!in && seg->log_lv && log_in))
            return lvx_error(sp->ctx, EINVAL, "Can't split mirror %s between two Volume Groups",
                             lv->name);
        if (in == seg->area_count && log_in && move_one(sp, lv) < 0)
            return -1;
    }
    return 0;
}

static int move_snapshots(struct split *sp)
{
    unsigned n;
    struct lvx_lv **v = lv_list(sp, &n);
    for (unsigned i = 0; i < n; i++) {
        struct lvx_lv *lv = v[i];
        if (lv->vg != sp->from || first_kind(lv) != LVX_SEG_SNAPSHOT)
            continue;
        for (unsigned s = 0; s < lv->seg_count && lv->vg == sp->from; s++) {
            const struct lvx_seg *seg = &lv->segs[s];
            bool cow_from = seg->cow_lv && seg->cow_lv->vg == sp->from;
            bool origin_from = seg->origin_lv && seg->origin_lv->vg == sp->from;
            if (cow_from && origin_from)
                continue;
            if (cow_from != origin_from)
                return lvx_error(sp->ctx, EINVAL, "Can't split snapshot %s between two Volume "
                                 "Groups", seg->cow_lv ? seg->cow_lv->name : lv->name);
            if (seg->cow_lv && seg->origin_lv && seg->cow_lv->vg == sp->to &&
                seg->origin_lv->vg == sp->to && move_one(sp, lv) < 0)
                return -1;
        }
    }
    return 0;
}

/* A thin pool's data LV (its first area), or NULL. */
static struct lvx_lv *pool_data(const struct lvx_lv *pool)
{
    const struct lvx_seg *ps = pool && pool->seg_count ? &pool->segs[0] : NULL;
    return ps && ps->area_count ? ps->areas[0].lv : NULL;
}

static bool in_vg(const struct lvx_lv *lv, const struct lvx_vg *vg)
{
    return lv && lv->vg == vg;
}

/* A thin LV goes where its pool's data went, with its external origin (which the plain
 * pass moved or left): refused when the two would part. */
static int move_thin_lv(struct split *sp, struct lvx_lv *lv)
{
    const struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_lv *data = pool_data(seg->pool_lv), *ext = seg->external_lv;
    if (!data)
        return 0;
    /* LVM2 passes over it only when neither the data nor an external origin is on a
     * moved PV (a thin LV without one is always looked at) */
    if (!lvx_lv_on_vg_pvs(data, sp->to) && ext && !lvx_lv_on_vg_pvs(ext, sp->to))
        return 0;
    if (!in_vg(data, sp->to) && !in_vg(ext, sp->to))
        return 0;
    if (ext && (in_vg(ext, sp->from) || in_vg(data, sp->from)))
        return lvx_error(sp->ctx, EINVAL, "Can't split external origin %s/%s and pool %s/%s "
                         "between two Volume Groups.", ext->vg->name, ext->name,
                         seg->pool_lv->vg->name, seg->pool_lv->name);
    return move_one(sp, lv);
}

/* A thin pool goes when its data (or metadata) went, refused when they part. */
static int move_thin_pool(struct split *sp, struct lvx_lv *lv)
{
    const struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_lv *data = pool_data(lv), *meta = seg->metadata_lv;
    if (!data || !lvx_lv_on_vg_pvs(data, sp->to))
        return 0;
    if (!in_vg(data, sp->to) && !in_vg(meta, sp->to))
        return 0;
    if (in_vg(meta, sp->from) || in_vg(data, sp->from))
        return lvx_error(sp->ctx, EINVAL, "Can't split pool data and metadata %s between two "
                         "Volume Groups.", lv->name);
    return move_one(sp, lv);
}

/* LVM2's thin pass, in list order: the pools' _tdata/_tmeta, the spare and the external
 * origins moved (or stayed) as plain LVs before. */
static int move_thins(struct split *sp)
{
    unsigned n;
    struct lvx_lv **v = lv_list(sp, &n);
    for (unsigned i = 0; i < n; i++) {
        struct lvx_lv *lv = v[i];
        if (lv->vg != sp->from)
            continue;
        enum lvx_seg_kind k = first_kind(lv);
        int r = k == LVX_SEG_THIN ? move_thin_lv(sp, lv)
                : k == LVX_SEG_THIN_POOL ? move_thin_pool(sp, lv) : 0;
        if (r < 0)
            return -1;
    }
    return 0;
}

/* Cache LVs and cache pools: LVM2 moves them with their own rules, lvx refuses when
 * one of them would be touched. */
static int refuse_caches(struct split *sp)
{
    for (unsigned i = 0; i < sp->from->lv_count; i++) {
        const struct lvx_lv *lv = sp->from->lvs[i];
        enum lvx_seg_kind k = first_kind(lv);
        if ((k == LVX_SEG_CACHE || k == LVX_SEG_CACHE_POOL) && lvx_lv_on_vg_pvs(lv, sp->to))
            return lvx_error(sp->ctx, ENOTSUP, "Cannot split cache LV %s: lvx does not move "
                             "cache LVs between VGs.", lv->name);
    }
    return 0;
}

int lvx_vg_split_lvs(struct lvx_ctx *ctx, struct lvx_vg *from, struct lvx_vg *to,
                     lvx_lv_active_fn active, void *arg)
{
    struct split sp = { ctx, from, to, active, arg };
    if (move_raids(&sp) < 0 || move_plain(&sp) < 0 || move_mirrors(&sp) < 0 ||
        move_thins(&sp) < 0 || refuse_caches(&sp) < 0 || move_snapshots(&sp) < 0)
        return -EINVAL;
    return 0;
}

/* The PVs of lv's own PV areas, in area order (LVM2's move_pv on each, PVs already
 * moved skipped). */
static void move_own_pvs(struct lvx_vg *from, struct lvx_vg *to, const struct lvx_lv *lv)
{
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        for (unsigned a = 0; a < seg->area_count; a++) {
            struct lvx_pv *pv = seg->areas[a].pv;
            if (pv && pv->vg == from)
                lvx_vg_move_pv(to, pv);
        }
    }
}

/* LVM2's for_each_sub_lv order: the COWs of an origin, then per segment the log and
 * metadata LVs, the LV areas, the RAID metadata areas; each sub-LV before its own. */
static void move_sub_lv_pvs(struct lvx_vg *from, struct lvx_vg *to, const struct lvx_lv *lv,
                            unsigned depth)
{
    if (depth > 16)
        return;
    const struct lvx_vg *vg = lv->vg;
    for (unsigned i = 0; vg && i < vg->lv_count; i++) {
        const struct lvx_lv *o = vg->lvs[i];
        for (unsigned s = 0; s < o->seg_count; s++)
            if (o->segs[s].kind == LVX_SEG_SNAPSHOT && o->segs[s].origin_lv == lv &&
                o->segs[s].cow_lv) {
                move_own_pvs(from, to, o->segs[s].cow_lv);
                move_sub_lv_pvs(from, to, o->segs[s].cow_lv, depth + 1);
            }
    }
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        const struct lvx_lv *first[] = { seg->log_lv, seg->metadata_lv };
        for (unsigned i = 0; i < 2; i++)
            if (first[i] && first[i] != lv) {
                move_own_pvs(from, to, first[i]);
                move_sub_lv_pvs(from, to, first[i], depth + 1);
            }
        for (unsigned a = 0; a < seg->area_count; a++)
            if (seg->areas[a].lv) {
                move_own_pvs(from, to, seg->areas[a].lv);
                move_sub_lv_pvs(from, to, seg->areas[a].lv, depth + 1);
            }
        for (unsigned a = 0; seg->meta_areas && a < seg->area_count; a++)
            if (seg->meta_areas[a].lv) {
                move_own_pvs(from, to, seg->meta_areas[a].lv);
                move_sub_lv_pvs(from, to, seg->meta_areas[a].lv, depth + 1);
            }
    }
}

void lvx_vg_move_pvs_of_lv(struct lvx_vg *from, struct lvx_vg *to, const struct lvx_lv *lv)
{
    move_sub_lv_pvs(from, to, lv, 0);
    move_own_pvs(from, to, lv);
}

void lvx_vg_merge(struct lvx_vg *to, struct lvx_vg *from)
{
    while (from->pv_count)
        lvx_vg_move_pv(to, from->pvs[0]);
    /* an LV UUID of from that to already has gets a new one, as LVM2 */
    unsigned old_count = to->lv_count;
    for (unsigned i = 0; i < from->lv_count; i++)
        for (unsigned j = 0; j < old_count; j++)
            if (!strcmp(from->lvs[i]->uuid, to->lvs[j]->uuid))
                lvx_uuid_generate(from->lvs[i]->uuid);
    while (from->lv_count)
        lvx_vg_move_lv(to, from->lvs[0]);
}
