/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_thin.c - lvconvert of existing LVs into thin pools, as LVM2 2.03.16
 * (tools/lvconvert.c _lvconvert_to_pool, _lvconvert_swap_pool_metadata;
 * lib/metadata/pool_manip.c alloc_pool_metadata, handle_pool_metadata_spare):
 *
 *   lvconvert --thinpool VG/LV [--poolmetadata META] [PV ...]
 *   lvconvert --type thin-pool [--poolmetadata META] VG/LV [PV ...]
 *       (-c, --poolmetadatasize, -Z, --discards, --errorwhenfull, --poolmetadataspare,
 *       -y): LV keeps its UUID and becomes <LV>_tdata of a new pool LV (new UUID) named
 *       LV; the metadata is a new LV allocated as a plain linear LV on the PVs given
 *       (or all) and named <LV>_tmeta, or META renamed; then lvol0_pmspare made or
 *       grown to it.  LV and META may be raid LVs (LVM2's raid1 data/metadata): their
 *       rimage/rmeta sub-LVs take the new names (LV_tdata_rimage_0, ...), a mirror META
 *       is refused with LVM2's lines.  The metadata's start is zeroed (the kernel, or the lvx daemon,
 *       formats it at the pool's first activation).  An active LV is deactivated and
 *       the pool activated after, as LVM2.
 *   lvconvert --thinpool VG/POOL --poolmetadata META   (POOL a thin pool)
 *       swaps the pool's metadata LV with META (inactive pool only).
 *
 * The prompts and warnings are LVM2's words.  --thin / --type thin (a thin LV with an
 * external origin) is cmd/lvconvert_extorig.c.
 */
#include "cmd/lvconvert_thin.h"

#include <string.h>
#include <time.h>

#include "cmd/actcmd.h"
#include "cmd/lvcreate_thin.h"
#include "model/snapshot.h"


struct conv {
    const char *vg_name, *lv_name;
    const char *meta_name;       /* --poolmetadata or NULL */
    char **pv_args;
    unsigned pv_arg_count;
    bool yes;
    struct lvx_thin_pool_args pa;
    enum lvx_alloc policy;
};

bool lvx_lvconvert_is_thin(struct lvx_cmd_env *env)
{
    const char *type = env->args->value[LVX_OPT_TYPE];
    return env->args->count[LVX_OPT_THINPOOL] || env->args->count[LVX_OPT_THIN] ||
           env->args->count[LVX_OPT_SWAPMETADATA] ||
           (type && (!strcmp(type, "thin-pool") || !strcmp(type, "thin")));
}

static bool is_origin(const struct lvx_lv *lv)
{
    const struct lvx_seg *one[1];
    return lvx_lv_snapshot_segs(lv, one, 1) > 0;
}

static const char *full(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    return lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
}

static bool confirm(const struct conv *c, const char *q)
{
    return c->yes || lvx_lvcmd_confirm(q);
}

static int parse(struct lvx_cmd_env *env, struct conv *c)
{
    const struct lvx_cmd_args *a = env->args;
    const char *type = a->value[LVX_OPT_TYPE];
    bool given;
    int rc;
    memset(c, 0, sizeof(*c));
    if (type && strcmp(type, "thin-pool")) {
        lvx_cmd_errorf("Command does not accept option: --type %s.", type);
        return LVX_EXIT_INVALID;
    }
    const char *arg;
    if (a->count[LVX_OPT_THINPOOL]) {
        arg = a->value[LVX_OPT_THINPOOL];
        c->pv_args = a->argv;
        c->pv_arg_count = (unsigned)a->argc;
    } else {
        if (a->argc < 1) {
            lvx_cmd_errorf("Please provide logical volume path.");
            return LVX_EXIT_INVALID;
        }
        arg = a->argv[0];
        c->pv_args = a->argv + 1;
        c->pv_arg_count = (unsigned)a->argc - 1;
    }
    if (!lvx_lvcmd_split_name(env, arg, &c->vg_name, &c->lv_name) || !c->lv_name) {
        lvx_cmd_errorf("Path required for Logical Volume \"%s\".", arg);
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_SWAPMETADATA] && !a->count[LVX_OPT_POOLMETADATA]) {
        lvx_cmd_errorf("No command with matching syntax recognised.  Run 'lvconvert --help' "
                       "for more information.");
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_POOLMETADATA] && (a->count[LVX_OPT_READAHEAD] ||
                                           a->count[LVX_OPT_STRIPES] ||
                                           a->count[LVX_OPT_STRIPESIZE])) {
        /* LVM2's rule, its line as it prints it (the whole rule, spaces included) */
        lvx_cmd_errorf("Command does not accept option combination: --poolmetadata  with "
                       "--readahead --stripesize --stripes ");
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_POOLMETADATA]) {
        const char *vg = NULL, *lv = NULL, *m = a->value[LVX_OPT_POOLMETADATA];
        if (!lvx_lvcmd_split_name(env, m, &vg, &lv) || (strchr(m, '/') && !lv) ||
            (lv && vg && strcmp(vg, c->vg_name))) {
            lvx_cmd_errorf("Metadata LV %s not found.", m);
            return LVX_EXIT_FAILED;
        }
        c->meta_name = lv ? lv : vg;
    }
    c->yes = a->count[LVX_OPT_YES] > 0;
    if ((rc = lvx_thin_pool_args(env, true, &c->pa)) ||
        (rc = lvx_lvcmd_alloc_arg(env, &c->policy, &given)))
        return rc;
    return 0;
}

/* LVM2's checks of a metadata LV for the pool (or data) LV other. */
static int meta_usable(struct lvx_cmd_env *env, const struct lvx_lv *meta,
                       const struct lvx_lv *other)
{
    if (meta == other) {
        lvx_cmd_errorf("Can't use same LV for pool data and metadata LV %s.", full(env, meta));
        return LVX_EXIT_FAILED;
    }
    if (!(meta->status & LVX_LV_VISIBLE)) {
        lvx_cmd_errorf("Can't convert internal LV %s.", full(env, meta));
        return LVX_EXIT_FAILED;
    }
    if (meta->status & LVX_LV_LOCKED) {
        lvx_cmd_errorf("Can't convert locked LV %s.", full(env, meta));
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* ---- metadata swap ------------------------------------------------------------------ */

static int swap_metadata(struct lvx_cmd_env *env, struct lvx_vg_update *u, const struct conv *c,
                         struct lvx_lv *pool)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    struct lvx_actcmd act;
    int rc;
    if (!c->meta_name) {
        lvx_cmd_errorf("The --poolmetadata option is required to swap metadata.");
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv *meta = lvx_vg_find_lv(vg, c->meta_name);
    if (!meta) {
        lvx_cmd_errorf("Metadata LV %s not found.", c->meta_name);
        return LVX_EXIT_FAILED;
    }
    for (unsigned i = 0; i < meta->seg_count && meta != pool; i++)   /* LVM2: linear,
                                                                      * striped or raid */
        if (meta->segs[i].kind != LVX_SEG_STRIPED && meta->segs[i].kind != LVX_SEG_RAID) {
            lvx_cmd_errorf("LV %s with type %s cannot be used as a metadata LV.",
                           full(env, meta), lvx_seg_report_type(&meta->segs[i]));
            return LVX_EXIT_FAILED;
        }
    if ((rc = meta_usable(env, meta, pool)))
        return rc;
    if (is_origin(meta)) {
        lvx_cmd_errorf("Pool metadata LV %s is of an unsupported type.", full(env, meta));
        return LVX_EXIT_FAILED;
    }
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    struct lvx_lv *users[64];
    unsigned n = lvx_thin_pool_users(pool, users, 64);
    bool active = lvx_actcmd_is_active(env, &act, pool, NULL);
    for (unsigned i = 0; i < n && i < 64 && !active; i++)
        active = lvx_actcmd_is_active(env, &act, users[i], NULL);
    if (active) {
        lvx_cmd_errorf("Cannot convert pool %s with active volumes.", full(env, pool));
        return LVX_EXIT_FAILED;
    }
    if (c->pa.chunk && c->pa.chunk != ps->chunk_size) {
        if (n) {
            lvx_cmd_errorf("lvx lvconvert does not change the chunk size of a used pool.");
            return LVX_EXIT_FAILED;
        }
        ps->chunk_size = c->pa.chunk;
    }
    if (!confirm(c, lvx_pool_printf(env->pool, "Do you want to swap metadata of %s pool with "
                                               "metadata volume %s?", full(env, pool),
                                    full(env, meta)))) {
        lvx_cmd_errorf("Conversion aborted.");
        return LVX_EXIT_FAILED;
    }
    if (lvx_actcmd_is_active(env, &act, meta, NULL) &&
        lvx_actcmd_deactivate(env, &act, meta, false)) {
        lvx_cmd_errorf("Aborting. Failed to deactivate %s.", full(env, meta));
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv *old = ps->metadata_lv;     /* a raid LV's images follow its name */
    const char *swap_name = meta->name;
    lvx_lvconvert_rename_tree(vg, meta, old->name);
    meta->status &= ~LVX_LV_VISIBLE;
    lvx_lvconvert_rename_tree(vg, old, swap_name);
    old->status |= LVX_LV_VISIBLE;
    ps->metadata_lv = meta;
    return lvx_lvcmd_commit(env, u);
}

/* ---- conversion ------------------------------------------------------------------- */

/* LVM2's checks of an existing LV given by --poolmetadata. */
static int check_meta(struct lvx_cmd_env *env, const struct conv *c, struct lvx_lv *lv,
                      struct lvx_lv **out)
{
    struct lvx_lv *meta = lvx_vg_find_lv(lv->vg, c->meta_name);
    *out = meta;
    if (!meta) {
        lvx_cmd_errorf("Unknown pool metadata LV %s.", c->meta_name);
        return LVX_EXIT_FAILED;
    }
    int rc = meta_usable(env, meta, lv);
    if (rc)
        return rc;
    bool plain = !is_origin(meta) && meta->seg_count > 0;
    for (unsigned i = 0; i < meta->seg_count; i++) {
        if (meta->segs[i].kind == LVX_SEG_MIRROR) {
            lvx_cmd_errorf("Mirror logical volumes cannot be used for pool metadata.");
            lvx_notice(env->ctx, "Try \"raid1\" segment type instead.");
            return LVX_EXIT_FAILED;
        }
        /* a raid LV too: its images follow it under the pool
         * (lvx_lvconvert_rename_tree) */
        plain = plain && (meta->segs[i].kind == LVX_SEG_STRIPED || meta->segs[i].kind == LVX_SEG_RAID);
    }
    if (!plain) {
        lvx_cmd_errorf("Pool metadata LV %s is of an unsupported type.", full(env, meta));
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static int check_data(struct lvx_cmd_env *env, struct lvx_lv *lv)
{
    const char *role = NULL;
    if (lvx_lv_used_by(lv, &role) || !(lv->status & LVX_LV_VISIBLE)) {
        lvx_cmd_errorf("Can't convert internal LV %s.", full(env, lv));
        return LVX_EXIT_FAILED;
    }
    for (unsigned i = 0; i < lv->seg_count; i++)   /* zero: LVM2's suite makes huge pools so */
        if (lv->segs[i].kind != LVX_SEG_STRIPED && lv->segs[i].kind != LVX_SEG_ZERO &&
            lv->segs[i].kind != LVX_SEG_RAID) {
            lvx_cmd_errorf("LV %s with type %s cannot be used as a thin pool LV.", full(env, lv),
                           lvx_seg_report_type(&lv->segs[i]));
            return LVX_EXIT_FAILED;
        }
    if (is_origin(lv)) {
        lvx_cmd_errorf("Cannot convert logical volume %s under snapshot.", full(env, lv));
        return LVX_EXIT_FAILED;
    }
    if (lv->status & LVX_LV_LOCKED) {
        lvx_cmd_errorf("Can't convert locked LV %s.", full(env, lv));
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* LVM2's lv_rename_update of a pool's new data or metadata LV: its sub-LVs (a raid
 * LV's NAME_rimage_N and NAME_rmeta_N) take the new name in place of the old one
 * (p_rimage_0 -> p_tdata_rimage_0), theirs in turn. */
void lvx_lvconvert_rename_tree(struct lvx_vg *vg, struct lvx_lv *lv, const char *name)
{
    const char *old = lv->name;
    size_t len = strlen(old);
    lv->name = name;
    for (unsigned i = 0; i < lv->seg_count; i++) {
        struct lvx_seg *s = &lv->segs[i];
        if (s->kind != LVX_SEG_RAID)
            continue;
        for (unsigned k = 0; k < 2 * s->area_count; k++) {
            struct lvx_area *a = k < s->area_count ? &s->areas[k]
                               : s->meta_areas ? &s->meta_areas[k - s->area_count] : NULL;
            struct lvx_lv *sub = a ? a->lv : NULL;
            if (sub && !strncmp(sub->name, old, len) && sub->name[len] == '_')
                lvx_lvconvert_rename_tree(vg, sub, lvx_pool_printf(vg->pool, "%s%s", name,
                                                                   sub->name + len));
        }
    }
}

static int deactivate(struct lvx_cmd_env *env, const struct lvx_actcmd *act, struct lvx_lv *lv,
                      const char *fmt)
{
    if (!lvx_actcmd_is_active(env, act, lv, NULL) || !lvx_actcmd_deactivate(env, act, lv, false))
        return 0;
    lvx_cmd_errorf(fmt, full(env, lv));
    return LVX_EXIT_FAILED;
}

static int to_pool(struct lvx_cmd_env *env, struct lvx_vg_update *u, const struct conv *c,
                   struct lvx_lv *lv)
{
    struct lvx_vg *vg = u->vg;
    uint32_t e = vg->extent_size;
    struct lvx_lv *meta = NULL;
    struct lvx_actcmd act;
    int rc;
    bool ra_given = false;        /* -r/--readahead: the new pool's (LVM2's lp.read_ahead) */
    int64_t ra = 0;
    if ((rc = lvx_lvcmd_read_ahead_arg(env, &ra_given, &ra)) || (rc = check_data(env, lv)) ||
        (c->meta_name && (rc = check_meta(env, c, lv, &meta))))
        return rc;
    if (strlen(lv->name) + 6 > LVX_NAME_MAX) {
        lvx_cmd_errorf("Failed to create internal lv names, pool name is too long.");
        return LVX_EXIT_FAILED;
    }
    struct lvx_thin_pool_args pa = c->pa;
    if (meta) {
        pa.meta_sectors = meta->le_count * (uint64_t)e;
        pa.meta_lv = full(env, meta);
    }
    struct lvx_thin_params p;
    if ((rc = lvx_thin_pool_plan(env, lv->le_count, e, &pa, &p)))
        return rc;
    if (meta && p.meta_extents > meta->le_count) {
        lvx_cmd_errorf("Pool metadata LV %s is too small (%u extents) for required metadata "
                       "(%u extents).", full(env, meta), (unsigned)meta->le_count,
                       (unsigned)p.meta_extents);
        return LVX_EXIT_FAILED;
    }
    const char *names = meta ? lvx_pool_printf(env->pool, "%s and %s", full(env, lv), full(env, meta))
                             : full(env, lv);
    lvx_warn(env->ctx, "WARNING: Converting %s to thin pool's data%s with metadata wiping.",
             names, meta ? " and metadata volumes" : " volume");
    lvx_warn(env->ctx, "THIS WILL DESTROY CONTENT OF LOGICAL VOLUME (filesystem etc.)");
    if (!confirm(c, lvx_pool_printf(env->pool, "Do you really want to convert %s?", names))) {
        lvx_cmd_errorf("Conversion aborted.");
        return LVX_EXIT_FAILED;
    }
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    bool was_active = lvx_actcmd_is_active(env, &act, lv, NULL);
    if (meta && (rc = deactivate(env, &act, meta, "Aborting. Failed to deactivate %s.")))
        return rc;
    if ((rc = deactivate(env, &act, lv, "Aborting. Failed to deactivate logical volume %s.")))
        return rc;
    struct lvx_free_maps *maps;
    struct lvx_alloc_pv *pvs;
    unsigned pv_count;
    if ((rc = lvx_lvcmd_pv_args(env, vg, c->pv_args, c->pv_arg_count, &pvs, &pv_count)) ||
        (rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    uint64_t now = (uint64_t)time(NULL);
    const char *pool_name = lv->name;
    if (!meta) {     /* alloc_pool_metadata: a linear LV made as any other */
        meta = lvx_lvcmd_new_lv(vg, lvx_pool_printf(env->pool, "%s_tmeta", pool_name), now);
        struct lvx_alloc_request req = {
            .extents = p.meta_extents,
            .stripes = 1,
            .policy = lvx_lvcmd_effective_policy(vg, c->policy),
            .pv_count = pv_count,
            .pvs = pvs,
            .lv_name = meta->name,
        };
        struct lvx_alloc_result res;
        if (lvx_lvcmd_allocate(env, vg, maps, &req, false, &res) < 0 ||
            lvx_alloc_append(env->ctx, meta, &res) < 0)
            return lvx_cmd_fail(env);
        meta->alloc = c->policy;
    }
    struct lvx_lv *pool = lvx_lvcmd_new_lv(vg, pool_name, now);
    lvx_lvconvert_rename_tree(vg, lv, lvx_pool_printf(vg->pool, "%s_tdata", pool_name));
    lvx_lvconvert_rename_tree(vg, meta, lvx_pool_printf(vg->pool, "%s_tmeta", pool_name));
    lvx_vg_make_thin_pool(vg, pool, lv, meta, p.chunk, pa.discards, pa.zero);
    lvx_thin_pool_set_crop(&pool->segs[0], p.crop, p.crop == LVX_THIN_CROP_NO);
    if (ra_given) {
        pool->has_read_ahead = ra != 0;
        pool->read_ahead = ra;
    }
    if (pa.error_when_full)
        pool->flags |= LVX_LVF_ERROR_WHEN_FULL;
    if ((rc = lvx_thin_pmspare(env, u, maps, meta->le_count, pa.spare,
                               lvx_lvcmd_effective_policy(vg, LVX_ALLOC_INHERIT), pvs, pv_count,
                               now)))
        return rc;
    /* before the commit, as LVM2 wipes it: a failure leaves the VG as it was */
    if (!env->args->count[LVX_OPT_TEST] && lvx_lvcmd_zero_metadata(env, u, meta) < 0)
        return lvx_thin_wipe_failed(env, vg->name, pool->name);
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    if (was_active && lvx_actcmd_activate(env, &act, pool)) {
        lvx_cmd_errorf("Failed to activate pool logical volume %s.", full(env, pool));
        return LVX_EXIT_FAILED;
    }
    lvx_notice(env->ctx, "Converted %s to thin pool.", names);
    return 0;
}

int lvx_lvconvert_thin_make_pool(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                                 struct lvx_lv *lv)
{
    const struct lvx_cmd_args *a = env->args;
    struct conv c;
    bool given;
    int rc;
    memset(&c, 0, sizeof(c));
    c.vg_name = u->vg->name;
    c.lv_name = lv->name;
    c.yes = a->count[LVX_OPT_YES] > 0;
    if (a->count[LVX_OPT_POOLMETADATA]) {
        const char *vg = NULL, *name = NULL, *m = a->value[LVX_OPT_POOLMETADATA];
        if (!lvx_lvcmd_split_name(env, m, &vg, &name) || (strchr(m, '/') && !name) ||
            (name && vg && strcmp(vg, c.vg_name))) {
            lvx_cmd_errorf("Metadata LV %s not found.", m);
            return LVX_EXIT_FAILED;
        }
        c.meta_name = name ? name : vg;
    }
    if ((rc = lvx_thin_pool_args(env, true, &c.pa)) ||
        (rc = lvx_lvcmd_alloc_arg(env, &c.policy, &given)))
        return rc;
    return to_pool(env, u, &c, lv);
}

int lvx_lvconvert_thin(struct lvx_cmd_env *env)
{
    struct conv c;
    struct lvx_vg_update u;
    const char *type = env->args->value[LVX_OPT_TYPE];
    if (env->args->count[LVX_OPT_THIN] || (type && !strcmp(type, "thin")))
        return lvx_lvconvert_thin_external(env);
    int rc = parse(env, &c);
    if (rc || (rc = lvx_lvcmd_begin(env, c.vg_name, &u)))
        return rc;
    struct lvx_lv *lv = lvx_vg_find_lv(u.vg, c.lv_name);
    if (!lv) {
        lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", c.vg_name, c.lv_name);
        rc = LVX_EXIT_FAILED;
    } else if (lvx_lv_is_thin_pool(lv)) {
        rc = swap_metadata(env, &u, &c, lv);
    } else if (env->args->count[LVX_OPT_SWAPMETADATA]) {  /* LVM2: a pool's form only */
        lvx_cmd_errorf("Command on LV %s does not accept LV type %s.", full(env, lv),
                       lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "linear");
        lvx_cmd_errorf("Command not permitted on LV %s.", full(env, lv));
        rc = LVX_EXIT_FAILED;
    } else {
        rc = to_pool(env, &u, &c, lv);
    }
    lvx_vg_update_end(&u);
    return rc;
}
