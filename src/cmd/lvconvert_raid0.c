/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_raid0.c - `lvconvert --type striped|raid0|raid0_meta` between striped,
 * raid0 and raid0_meta LVs (cmd/lvconvert_raid.h), as LVM2 2.03.16 does these
 * takeovers (raid_manip.c, facts only).  The data never moves: a raid0 LV over N
 * equal rimages maps its stripes exactly as a striped LV with N areas does.
 *
 *   striped -> raid0       each stripe becomes a hidden sub-LV "<lv>_rimage_N" holding
 *                          that stripe's areas of every segment (adjacent ones merged);
 *                          the LV gets one raid0 segment with the stripe size, region
 *                          size 0.  Refused for varying stripe counts or sizes and for
 *                          a stripe size that is not a power of 2 (LVM2's words).
 *   raid0 -> raid0_meta    an rmeta "<lv>_rmeta_N" per rimage, sized for it at the
 *                          default region size, on the rimage's own PVs (on the PVs
 *                          named, if any); when that fails, on the PVs allowed; never
 *                          on a PV of an rmeta placed before it; zeroed.
 *   raid0_meta -> raid0    the rmeta sub-LVs removed.
 *   raid0* -> striped      the rimages' segments split at common boundaries, each
 *                          boundary run one striped segment over the N stripes; the
 *                          rimage (and rmeta) sub-LVs removed.
 * The new sub-LVs are READ/WRITE, without REBUILD, allocation inherit.  Changing the
 * level asks "Are you sure you want to convert <from> LV VG/LV to <to> type? [y/n]:"
 * (-y: yes; no: LVM2's list of the types it could convert to).  As LVM2 2.03.16, every
 * such lvconvert also prints "Using default stripesize 64.00 KiB." (to raid0*) and
 * says that --stripes and -R/--regionsize are not allowed, given or not.
 *
 * LVM2 wants the LV active; lvx converts an inactive LV too (a deliberate difference:
 * only the metadata changes).  An active LV is reloaded as for -m N
 * (lvx_lvconvert_reload), in either backend (the daemon serves a raid0 LV as the
 * striped LV it equals, model/raid0.h).
 */
#include "cmd/lvconvert_raid.h"

#include "activate/activate.h"
#include "cmd/actcmd.h"
#include "cmd/lvcreate_raid.h"
#include "model/pvmove.h"
#include "model/raid0.h"
#include "model/snapshot.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define RMETA_ZERO 4096u

static bool is_striped(const struct lvx_lv *lv)
{
    if (!lv->seg_count)
        return false;
    for (unsigned i = 0; i < lv->seg_count; i++)
        if (lv->segs[i].kind != LVX_SEG_STRIPED)
            return false;
    return lv->segs[0].area_count > 1;
}

bool lvx_raid0_takeover_wanted(const struct lvx_lv *lv, const char *type)
{
    if (!type)
        return false;
    if (!strcmp(type, "raid0") || !strcmp(type, "raid0_meta"))
        return is_striped(lv) || lvx_raid0_is(lv);
    return !strcmp(type, "striped") && lvx_raid0_is(lv);
}

static struct lvx_lv *new_sub(struct lvx_vg *vg, const struct lvx_lv *top, const char *kind,
                              struct lvx_raid_change *ch)
{
    /* LVM2's "%d" names: one above the highest in use */
    uint32_t i = 0;
    for (;; i++) {
        const char *n = lvx_pool_printf(vg->pool, "%s_%s_%u", top->name, kind, i);
        if (!lvx_vg_find_lv(vg, n))
            break;
    }
    struct lvx_lv *s = lvx_raid_new_sub(vg, top, kind, i, false);
    s->alloc = LVX_ALLOC_INHERIT;
    s->creation_time = (uint64_t)time(NULL);
    ch->added[ch->added_n++] = s;
    return s;
}

static void drop_sub(struct lvx_vg *vg, struct lvx_lv *sub, struct lvx_raid_change *ch)
{
    ch->gone_old[ch->gone_n] = sub->name;
    ch->gone[ch->gone_n++] = sub;
    lvx_vg_remove_lv(vg, sub);
}

/* pvs without those holding one of meta[0..n) (LVM2 marks those PVs allocation
 * prohibited until the last rmeta is placed). */
static unsigned avoid_metas(struct lvx_cmd_env *env, const struct lvx_alloc_pv *pvs, unsigned pv_n,
                            struct lvx_lv *const *meta, uint32_t n, struct lvx_alloc_pv **out)
{
    struct lvx_alloc_pv *v = lvx_pool_alloc(env->pool, (pv_n ? pv_n : 1) * sizeof(*v));
    unsigned k = 0;
    for (unsigned i = 0; i < pv_n; i++) {
        bool used = false;
        for (uint32_t m = 0; m < n && !used; m++) {
            struct lvx_alloc_pv *on;
            unsigned on_n = lvx_raid_own_pvs(env, meta[m], &on);
            for (unsigned j = 0; j < on_n && !used; j++)
                used = on[j].pv == pvs[i].pv;
        }
        if (!used)
            v[k++] = pvs[i];
    }
    *out = v;
    return k;
}

/* raid0 -> raid0_meta: an rmeta for each rimage (see the top of the file). */
static int add_metas(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                     const struct lvx_alloc_pv *pvs, unsigned pv_count, struct lvx_raid_change *ch)
{
    struct lvx_vg *vg = u->vg;
    /* the PVs allowed: those named, else every PV of the VG */
    struct lvx_alloc_pv *all = (struct lvx_alloc_pv *)pvs;
    unsigned all_n = pv_count;
    if (!pv_count) {
        all = lvx_pool_alloc(env->pool, (vg->pv_count ? vg->pv_count : 1) * sizeof(*all));
        for (unsigned i = 0; i < vg->pv_count; i++)
            all[all_n++] = (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
    }
    struct lvx_free_maps *maps;
    int rc = lvx_lvcmd_free_maps(env, u, &maps);
    if (rc)
        return rc;
    struct lvx_seg *seg = &lv->segs[0];
    struct lvx_lv **meta = lvx_pool_alloc(env->pool, seg->area_count * sizeof(*meta));
    struct lvx_area *metas = lvx_pool_alloc(vg->pool, seg->area_count * sizeof(*metas));
    for (uint32_t s = 0; s < seg->area_count; s++) {
        struct lvx_lv *img = seg->areas[s].lv;
        enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, img->alloc == LVX_ALLOC_INHERIT
                                                           ? lv->alloc : img->alloc);
        uint32_t ext = lvx_raid_rmeta_extents(img->le_count, lvx_raid_default_region(env),
                                              vg->extent_size);
        /* the rimage's own PVs (those named, if any), never one of an rmeta before */
        struct lvx_alloc_pv *first, *where;
        unsigned first_n = pv_count ? all_n : lvx_raid_own_pvs(env, img, &first);
        unsigned where_n = avoid_metas(env, pv_count ? all : first, first_n, meta, s, &where);
        meta[s] = new_sub(vg, lv, "rmeta", ch);
        int r = lvx_raid_alloc_images(env, maps, lv->name, 1, 0, ext, policy, where, where_n,
                                      (struct lvx_lv *[]){ NULL }, &meta[s]);
        if (r < 0) {                     /* LVM2 says why, then tries every PV allowed */
            lvx_cmd_fail(env);
            lvx_error_clear(env->ctx);
            where_n = avoid_metas(env, all, all_n, meta, s, &where);
            if ((r = lvx_raid_alloc_images(env, maps, lv->name, 1, 0, ext, policy, where,
                                           where_n, (struct lvx_lv *[]){ NULL }, &meta[s])) < 0) {
                lvx_cmd_fail(env);
                lvx_cmd_errorf("Failed to allocate metadata LV for %s/%s.", vg->name, img->name);
                lvx_cmd_errorf("Failed to allocate metadata LVs for %s/%s.", vg->name, lv->name);
                return LVX_EXIT_FAILED;
            }
        }
        metas[s] = (struct lvx_area){ NULL, meta[s], 0 };
    }
    seg->meta_areas = metas;
    return 0;
}

/* striped -> raid0: the stripes move into new rimage sub-LVs. */
static void striped_to_raid0(struct lvx_vg *vg, struct lvx_lv *lv, struct lvx_raid_change *ch)
{
    uint32_t n = lv->segs[0].area_count, stripe = lv->segs[0].stripe_size;
    struct lvx_area *areas = lvx_pool_alloc(vg->pool, n * sizeof(*areas));
    for (uint32_t s = 0; s < n; s++) {
        struct lvx_lv *img = new_sub(vg, lv, "rimage", ch);
        img->segs = lvx_pool_alloc(vg->pool, lv->seg_count * sizeof(*img->segs));
        img->seg_count = lv->seg_count;
        uint64_t le = 0;
        for (unsigned i = 0; i < lv->seg_count; i++) {
            const struct lvx_seg *from = &lv->segs[i];
            struct lvx_seg *to = &img->segs[i];
            uint64_t len = from->extent_count / from->area_count;
            memset(to, 0, sizeof(*to));
            to->lv = img;
            to->start_extent = le;
            to->extent_count = len;
            to->type = to->type_name = lvx_pool_strdup(vg->pool, "striped");
            to->kind = LVX_SEG_STRIPED;
            to->stripe_count = to->area_count = 1;
            to->areas = lvx_pool_alloc(vg->pool, sizeof(*to->areas));
            to->areas[0] = from->areas[s];
            le += len;
        }
        img->le_count = le;
        lvx_lv_merge_segments(img);
        areas[s] = (struct lvx_area){ NULL, img, 0 };
    }
    struct lvx_seg *seg = lvx_pool_alloc(vg->pool, sizeof(*seg));
    memset(seg, 0, sizeof(*seg));
    seg->lv = lv;
    seg->extent_count = lv->le_count;
    seg->type = seg->type_name = lvx_pool_strdup(vg->pool, "raid0");
    seg->kind = LVX_SEG_RAID;
    seg->stripe_count = seg->area_count = n;
    seg->stripe_size = stripe;
    seg->areas = areas;
    lv->segs = seg;
    lv->seg_count = 1;
}

/* raid0 (without rmeta) -> striped: segments split at the rimages' common boundaries. */
static int raid0_to_striped(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_lv *lv,
                            struct lvx_raid_change *ch)
{
    struct lvx_seg *segs;
    unsigned n;
    if (lvx_raid0_striped_segs(env->ctx, vg->pool, lv, &segs, &n) < 0)
        return -EINVAL;
    const struct lvx_seg *raid = &lv->segs[0];
    for (uint32_t s = 0; s < raid->area_count; s++)
        drop_sub(vg, raid->areas[s].lv, ch);
    lv->segs = segs;
    lv->seg_count = n;
    return 0;
}

static void drop_metas(struct lvx_vg *vg, struct lvx_lv *lv, struct lvx_raid_change *ch)
{
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; seg->meta_areas && s < seg->area_count; s++)
        drop_sub(vg, seg->meta_areas[s].lv, ch);
    seg->meta_areas = NULL;
}

static void set_type(struct lvx_vg *vg, struct lvx_lv *lv, const char *type)
{
    lv->segs[0].type = lv->segs[0].type_name = lvx_pool_strdup(vg->pool, type);
    lv->segs[0].raw = NULL;
}

/* LVM2's checks of a striped LV before raid0: 0 or the exit code (printed). */
static int striped_ok(const struct lvx_lv *lv)
{
    const struct lvx_seg *f = &lv->segs[0];
    for (unsigned i = 1; i < lv->seg_count; i++)
        if (lv->segs[i].area_count != f->area_count || lv->segs[i].stripe_size != f->stripe_size) {
            lvx_cmd_errorf("Cannot convert striped LV %s/%s with varying stripe count to raid0.",
                           lv->vg->name, lv->name);
            return LVX_EXIT_FAILED;
        }
    if (f->stripe_size & (f->stripe_size - 1)) {
        lvx_cmd_errorf("Cannot convert striped LV %s/%s with non-power of 2 stripe size %u.",
                       lv->vg->name, lv->name, f->stripe_size);
        return LVX_EXIT_FAILED;
    }
    if (f->area_count > LVX_RAID_MAX_IMAGES) {
        lvx_cmd_errorf("Unable to handle %u stripes in %s/%s (at most %u).", f->area_count,
                       lv->vg->name, lv->name, LVX_RAID_MAX_IMAGES);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* LVM2's list after a refused takeover (_log_possible_conversion_types): the types
 * its takeover table offers a striped or raid0* LV of 2+ stripes, its own left out. */
void lvx_raid0_log_possible(const char *full, const char *from)
{
    static const char *const types[] = { "raid0", "raid0_meta", "striped", "raid10_near", "raid4",
                                         "raid5_n", "raid6_n_6" };
    lvx_cmd_errorf("Converting %s from %s is directly possible to the following layouts:", full,
                   from);
    for (unsigned i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(types[i], from))
            lvx_cmd_errorf("  %s", types[i]);
}

int lvx_raid0_to_meta(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      const struct lvx_alloc_pv *pvs, unsigned pv_count, struct lvx_raid_change *ch)
{
    int rc;
    if (!lvx_raid0_is(lv)) {
        if ((rc = striped_ok(lv)))
            return rc;
        striped_to_raid0(u->vg, lv, ch);
    }
    if (!lv->segs[0].meta_areas && (rc = add_metas(env, u, lv, pvs, pv_count, ch)))
        return rc;
    set_type(u->vg, lv, "raid0_meta");
    return 0;
}

int lvx_raid0_from_meta(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_lv *lv,
                        const char *to, struct lvx_raid_change *ch)
{
    if (!strcmp(to, "raid0_meta")) {
        set_type(vg, lv, to);
        return 0;
    }
    drop_metas(vg, lv, ch);
    if (!strcmp(to, "raid0")) {
        set_type(vg, lv, to);
        return 0;
    }
    set_type(vg, lv, "raid0");
    return raid0_to_striped(env, vg, lv, ch) < 0 ? lvx_cmd_fail(env) : 0;
}

int lvx_lvconvert_raid0(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        const char *to, bool yes, char **pv_args, unsigned pv_arg_count)
{
    struct lvx_vg *vg = u->vg;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", vg->name, lv->name);
    const char *from = lvx_raid0_is(lv) ? lv->segs[0].type_name : "striped";
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    struct lvx_raid_change ch;
    int rc;

    /* LVM2's lvconvert reads stripe parameters for a raid0* type (-I not given) */
    if (strcmp(to, "striped"))
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, 128));
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    bool active = act.be && lvx_actcmd_is_active(env, &act, lv, &ks);
    if (active && !act.be->raid) {
        lvx_cmd_errorf("Can't convert active LV %s to %s: the %s backend does not serve RAID "
                       "LVs (deactivate it first).", full, to, act.be->name);
        return LVX_EXIT_FAILED;
    }
    /* LVM2 names the options no takeover between these types takes, given or not (it
     * passes the LV's stripes and a default region size on) */
    if (!strcmp(from, to)) {
        lvx_cmd_errorf("--stripes not allowed when converting %s LV %s.", from, full);
        lvx_cmd_errorf("-R/--regionsize not allowed when converting %s LV %s.", from, full);
        lvx_cmd_errorf("Logical volume %s is already of requested type %s.", full, from);
        return LVX_EXIT_FAILED;
    }
    lvx_cmd_errorf("--stripes not allowed for LV %s when converting from %s to %s.", full, from, to);
    lvx_cmd_errorf("-R/--regionsize not allowed for LV %s when converting from %s to %s.", full,
                   from, to);
    bool same_level = strcmp(from, "striped") && strcmp(to, "striped");
    if (!same_level && !yes &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to convert %s LV "
                                           "%s to %s type?", from, full, to))) {
        lvx_cmd_errorf("Logical volume %s NOT converted.", full);
        lvx_raid0_log_possible(full, from);
        return LVX_EXIT_FAILED;
    }
    if (lv->status & LVX_LV_LOCKED || lvx_lv_snapshot_segs(lv, NULL, 0) > 0) {
        lvx_cmd_errorf("Can't convert RAID LV %s while under snapshot.", full);
        return LVX_EXIT_FAILED;
    }
    if (!strcmp(from, "striped") && (rc = striped_ok(lv)))
        return rc;
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, vg, pv_args, pv_arg_count, &pvs, &pv_count)))
        return rc;
    memset(&ch, 0, sizeof(ch));
    if (!strcmp(from, "striped"))
        striped_to_raid0(vg, lv, &ch);
    if (!strcmp(to, "raid0_meta")) {
        if ((rc = add_metas(env, u, lv, pvs, pv_count, &ch)))
            return rc;
    } else {
        drop_metas(vg, lv, &ch);
    }
    if (!strcmp(to, "striped")) {
        if (raid0_to_striped(env, vg, lv, &ch) < 0)
            return lvx_cmd_fail(env);
    } else {
        set_type(vg, lv, to);
    }
    if (active) {
        if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
            return rc;
    } else {
        for (unsigned i = 0; !env->args->count[LVX_OPT_TEST] && i < ch.added_n; i++)
            if (strstr(ch.added[i]->name, "_rmeta_") &&
                lvx_lvcmd_zero_start(env, u, ch.added[i], RMETA_ZERO) < 0)
                return lvx_cmd_fail(env);
        if ((rc = lvx_lvcmd_commit(env, u)))
            return rc;
    }
    lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
    return 0;
}
