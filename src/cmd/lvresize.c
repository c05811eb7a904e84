/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvresize.c - `lvx lvextend|lvreduce|lvresize -L [+|-]SIZE | -l [+|-]N[%VG|%FREE|%PVS|%LV]
 * [-i N [-I SIZE]] [--alloc P] [-f] VG/LV [PV[:PE-PE] ...]`.
 *
 * Extending allocates one more segment after the LV's end (model/alloc.h; merged into
 * the last one when it continues it), with the last segment's stripe geometry unless
 * -i/-I say otherwise.  Reducing drops extents from the end, splitting the segment the
 * new end falls into (a striped segment keeps a multiple of its stripe count).
 * lvreduce asks for confirmation unless -f or -y (no answer on stdin = no).
 * Only linear/striped LVs (and zero/error ones: --type zero|error adds such a segment) that
 * are not sub-LVs of others are handled here; RAID LVs by cmd/lvresize_raid.c.  An active LV
 * gets its new table loaded before the commit and swapped in after it (suspend/resume).
 */
#include "cmd/lvcmd.h"
#include "cmd/thin_cmd.h"

#include "cmd/actcmd.h"
#include "model/snapshot.h"
#include "model/thin.h"
#include "cmd/lvcreate_thin.h"
#include "cmd/lvconvert_raid.h"
#include "cmd/lvresize_policy.h"
#include "map/map.h"
#include "config/config.h"

#include <errno.h>
#include <string.h>

enum direction { EXTEND, REDUCE, EITHER };

struct resize_opts {
    enum direction dir;
    const char *vg_name, *lv_name;
    struct lvx_lvcmd_size size;
    uint32_t stripes, stripe_size;     /* 0 = keep the last segment's */
    uint32_t mirrors;                  /* lvextend -m N: N + 1 images (0: -m0 or none) */
    const char *type;                  /* --type, or NULL: the last segment's */
    enum lvx_alloc policy;
    bool policy_given;
    char **pv_args;
    unsigned pv_arg_count;
    bool use_policies;                 /* --usepolicies: the size from lvm.conf's policy */
    uint32_t meta_pct;                 /* ... a pool's metadata grows by this % (0: not) */
    bool meta_by_size;                 /* lvresize -L|-l of <pool>_tmeta itself: its new
                                          size is `size`, not --poolmetadatasize's */
    uint64_t meta_to_sectors;          /* a pool's data grows: its metadata to this size,
                                          LVM2's estimate for the new data size */
};

static int parse_resize_args(struct lvx_cmd_env *env, struct resize_opts *o)
{
    int rc;
    if (env->args->argc < 1) {
        lvx_cmd_errorf("Please provide the logical volume name");
        return LVX_EXIT_INVALID;
    }
    if (!lvx_lvcmd_split_name(env, env->args->argv[0], &o->vg_name, &o->lv_name) ||
        !o->lv_name) {
        lvx_cmd_errorf("Path required for Logical Volume \"%s\".", env->args->argv[0]);
        return LVX_EXIT_INVALID;
    }
    o->pv_args = env->args->argv + 1;
    o->pv_arg_count = (unsigned)env->args->argc - 1;
    /* lvextend LV PV... without a size: all free extents of those PVs (as LVM2) */
    bool pvs_only = o->dir == EXTEND && o->pv_arg_count > 0 &&
                    !env->args->count[LVX_OPT_SIZE] && !env->args->count[LVX_OPT_EXTENTS];
    if (pvs_only)
        o->size = (struct lvx_lvcmd_size){ .given = true, .sign = 1, .in_extents = true,
                                           .value = 100, .percent = LVX_PCT_PVS };
    bool meta_only = env->args->count[LVX_OPT_POOLMETADATASIZE] &&
                     !env->args->count[LVX_OPT_SIZE] && !env->args->count[LVX_OPT_EXTENTS];
    o->use_policies = env->args->count[LVX_OPT_USEPOLICIES] ||
                      env->args->count[LVX_OPT_USE_POLICIES];
    if (o->use_policies) {             /* LVM2's command definitions: -l is ignored */
        if (env->args->count[LVX_OPT_SIZE] || env->args->count[LVX_OPT_POOLMETADATASIZE]) {
            lvx_cmd_errorf("Command does not accept option: --usepolicies.");
            return LVX_EXIT_INVALID;
        }
        if (env->args->count[LVX_OPT_STRIPES])
            lvx_cmd_errorf("Command does not accept option: --stripes %s.",
                           env->args->value[LVX_OPT_STRIPES]);
        if (env->args->count[LVX_OPT_STRIPESIZE])
            lvx_cmd_errorf("Command does not accept option: --stripesize %s.",
                           env->args->value[LVX_OPT_STRIPESIZE]);
        if (env->args->count[LVX_OPT_STRIPES] || env->args->count[LVX_OPT_STRIPESIZE])
            return LVX_EXIT_INVALID;
        if (env->args->count[LVX_OPT_EXTENTS])
            lvx_notice(env->ctx, "Ignoring size parameters with --use-policies.");
        pvs_only = meta_only = false;
        o->size = (struct lvx_lvcmd_size){ 0 };    /* not the PVs' free space named */
    }
    if ((!pvs_only && !meta_only && !o->use_policies &&
         (rc = lvx_lvcmd_size_args(env, true, true, &o->size))) ||
        (rc = lvx_lvcmd_stripe_args(env, &o->stripes, &o->stripe_size)) ||
        (rc = lvx_lvcmd_alloc_arg(env, &o->policy, &o->policy_given)))
        return rc;
    if (o->dir == EXTEND && o->size.sign < 0) {
        lvx_cmd_errorf("Negative argument not permitted - use lvreduce");
        return LVX_EXIT_INVALID;
    }
    if (o->dir == REDUCE && o->size.sign > 0) {
        lvx_cmd_errorf("Positive sign not permitted - use lvextend");
        return LVX_EXIT_INVALID;
    }
    if (o->size.percent == LVX_PCT_ORIGIN) {
        lvx_cmd_errorf("%%ORIGIN is only valid for snapshots.");
        return LVX_EXIT_FAILED;
    }
    if (env->args->count[LVX_OPT_MIRRORS]) {      /* lvextend only: images as LVM2 counts */
        const struct lvx_opt_val *m = &env->args->val[LVX_OPT_MIRRORS];
        if (m->sign < 0) {
            lvx_cmd_errorf("Invalid argument for --mirrors: %s", env->args->value[LVX_OPT_MIRRORS]);
            lvx_cmd_errorf("Error during parsing of command line.");
            return LVX_EXIT_INVALID;
        }
        if (m->sign) {
            lvx_cmd_errorf("Mirrors argument may not be signed.");
            lvx_cmd_errorf("Run `%s --help' for more information.", env->args->cmd);
            return LVX_EXIT_INVALID;
        }
        o->mirrors = m->n ? (uint32_t)m->n + 1 : 0;
    }
    o->type = env->args->value[LVX_OPT_TYPE];
    if (o->type && strcmp(o->type, "linear") && strcmp(o->type, "striped") &&
        strcmp(o->type, "zero") && strcmp(o->type, "error") && strcmp(o->type, "mirror")) {
        lvx_cmd_errorf("lvx %s --type supports linear, striped, zero, error and mirror (of a "
                       "mirror LV) (not %s).",
                       env->args->cmd, o->type);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static uint64_t percent_base(const struct lvx_lv *lv, const struct lvx_free_maps *maps,
                             const struct lvx_alloc_pv *pvs, unsigned pv_count,
                             enum lvx_pct pct)
{
    switch (pct) {
    case LVX_PCT_VG: return lvx_vg_extent_count(lv->vg);
    case LVX_PCT_FREE: return lvx_vg_free_count(lv->vg);
    case LVX_PCT_PVS: return lvx_lvcmd_pvs_free(maps, lv->vg, pvs, pv_count);
    case LVX_PCT_LV: return lv->le_count;
    default: return 0;
    }
}

/* The LV's new extent count from -L/-l; false after printing an error. */
static bool new_extent_count(struct lvx_cmd_env *env, const struct lvx_lv *lv,
                             const struct lvx_free_maps *maps, const struct lvx_alloc_pv *pvs,
                             unsigned pv_count, const struct resize_opts *o, uint64_t *out)
{
    uint64_t e = lv->vg->extent_size, cur = lv->le_count, ext;
    if (!o->size.in_extents) {
        ext = o->size.value / e + (o->size.value % e != 0);
        if (o->size.value % e)
            lvx_notice(env->ctx, "Rounding size to boundary between physical extents: %s.",
                       lvx_lvcmd_size(env, ext * e));
    } else if (o->size.percent != LVX_PCT_NONE) {
        /* as LVM2: rounded up unless the size goes down */
        unsigned __int128 p = (unsigned __int128)percent_base(lv, maps, pvs, pv_count,
                                                              o->size.percent) * o->size.value;
        ext = (uint64_t)((p + (o->size.sign < 0 ? 0 : 99)) / 100);
    } else {
        ext = o->size.value;
    }
    if (o->size.sign < 0) {
        if (ext >= cur) {
            lvx_cmd_errorf("Unable to reduce %s/%s below 1 extent.", lv->vg->name, lv->name);
            return false;
        }
        *out = cur - ext;
    } else {
        *out = o->size.sign > 0 ? cur + ext : ext;
    }
    if (*out == 0) {
        lvx_cmd_errorf("Unable to reduce %s/%s below 1 extent.", lv->vg->name, lv->name);
        return false;
    }
    if (*out > UINT32_MAX) {
        lvx_cmd_errorf("Volume too large (%llu extents) for extent size %s. Upper limit is "
                       "%u extents.", (unsigned long long)*out, lvx_lvcmd_size(env, e),
                       UINT32_MAX);
        return false;
    }
    return true;
}

static bool same_size(uint64_t now, uint64_t cur)
{
    if (now != cur)
        return false;
    lvx_cmd_errorf("New size (%llu extents) matches existing size (%llu extents).",
                   (unsigned long long)now, (unsigned long long)cur);
    return true;
}

/* ---- extend ------------------------------------------------------------------------ */

static const struct lvx_seg *last_seg(const struct lvx_lv *lv)
{
    return lv->seg_count ? &lv->segs[lv->seg_count - 1] : NULL;
}

/* Images of a mirrored segment (mirror, raid1, raid10), 0 for any other. */
static uint32_t seg_mirrors(const struct lvx_seg *s)
{
    if (!s)
        return 0;
    if (s->kind == LVX_SEG_MIRROR)
        return s->stripe_count;
    if (s->kind == LVX_SEG_RAID && !strcmp(s->type_name, "raid1"))
        return s->area_count;
    if (s->kind == LVX_SEG_RAID && !strcmp(s->type_name, "raid10"))
        return s->data_copies ? s->data_copies : 2;
    return 0;
}

/* LVM2's note when the new segment's type differs from the last one's */
static void mixing_note(struct lvx_cmd_env *env, const struct lvx_lv *lv,
                        const struct lvx_seg *last, const char *type)
{
    const char *had = last ? (last->kind == LVX_SEG_STRIPED ? "striped" : last->type_name) : NULL;
    if (had && strcmp(had, type))
        lvx_notice(env->ctx, "Logical volume %s/%s is using mixing segment types %s and %s.",
                   lv->vg->name, lv->name, had, type);
}

static int extend(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                  struct lvx_free_maps *maps, struct lvx_alloc_pv *pvs, unsigned pv_count,
                  const struct resize_opts *o, uint64_t *new_count)
{
    const struct lvx_seg *last = last_seg(lv);
    uint32_t stripes = o->stripes, stripe_size = o->stripe_size;
    uint64_t e = lv->vg->extent_size, cur = lv->le_count;
    bool last_virtual = last && (last->kind == LVX_SEG_ZERO || last->kind == LVX_SEG_ERROR);

    /* zero and error segments take no PV space: -i/-I are ignored (as LVM2) */
    if ((o->type && (!strcmp(o->type, "zero") || !strcmp(o->type, "error"))) ||
        (!o->type && last_virtual)) {
        enum lvx_seg_kind k = o->type ? (!strcmp(o->type, "zero") ? LVX_SEG_ZERO : LVX_SEG_ERROR)
                                      : last->kind;
        mixing_note(env, lv, last, k == LVX_SEG_ZERO ? "zero" : "error");
        lvx_alloc_append_virtual(lv, k, *new_count - cur);
        return 0;
    }
    if (last_virtual)
        mixing_note(env, lv, last, "striped");
    if (!stripes)
        stripes = last && !last_virtual ? last->stripe_count : 1;
    if (stripes > 1 && !stripe_size) {
        if (last && last->stripe_count > 1 && last->stripe_size) {
            stripe_size = last->stripe_size;
            lvx_notice(env->ctx, "Using stripesize of last segment %s",
                       lvx_lvcmd_size(env, stripe_size));
        } else {
            stripe_size = 128;
            lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, stripe_size));
        }
    }
    if (stripes == 1)
        stripe_size = 0;
    if (stripe_size > e) {
        lvx_notice(env->ctx, "Reducing stripe size %s to maximum, physical extent "
                   "size %s.", lvx_lvcmd_size(env, stripe_size), lvx_lvcmd_size(env, e));
        stripe_size = (uint32_t)e;
    }
    uint64_t delta = *new_count - cur;
    if (delta % stripes) {
        uint64_t up = (delta / stripes + 1) * stripes;
        lvx_notice(env->ctx, "Rounding size (%llu extents) up to stripe boundary size for "
                   "segment (%llu extents).", (unsigned long long)*new_count,
                   (unsigned long long)(cur + up));
        delta = up;
    }
    struct lvx_alloc_request req = {
        .extents = delta,
        .stripes = stripes,
        .stripe_size = stripe_size,
        .policy = lvx_lvcmd_effective_policy(lv->vg, o->policy_given ? o->policy : lv->alloc),
        .pv_count = pv_count,
        .pvs = pvs,
        .lv = lv,
        .lv_name = lv->name,
    };
    struct lvx_alloc_result res;
    if (lvx_lvcmd_allocate(env, u->vg, maps, &req, o->size.percent != LVX_PCT_NONE, &res) < 0 ||
        lvx_alloc_append(env->ctx, lv, &res) < 0)
        return lvx_cmd_fail(env);
    *new_count = lv->le_count;
    return 0;
}

/* ---- reduce ------------------------------------------------------------------------ */

static bool confirm_reduce(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    if (env->args->count[LVX_OPT_FORCE] || env->args->count[LVX_OPT_YES])
        return true;
    const char *q = lvx_pool_printf(env->pool, "Do you really want to reduce %s/%s? "
                                    "Data beyond the new end is lost.", lv->vg->name, lv->name);
    if (lvx_lvcmd_confirm(q))
        return true;
    lvx_cmd_errorf("Logical volume %s/%s NOT reduced (no confirmation: use -f or -y).",
                   lv->vg->name, lv->name);
    return false;
}

/* Round the new end up to a stripe row of the segment it falls into. */
static uint64_t round_to_stripe_row(struct lvx_cmd_env *env, const struct lvx_lv *lv,
                                    uint64_t new_count)
{
    for (unsigned i = 0; i < lv->seg_count; i++) {
        const struct lvx_seg *s = &lv->segs[i];
        if (new_count <= s->start_extent || new_count > s->start_extent + s->extent_count)
            continue;
        uint64_t off = new_count - s->start_extent, k = s->stripe_count ? s->stripe_count : 1;
        if (off % k == 0)
            return new_count;
        uint64_t up = s->start_extent + (off / k + 1) * k;
        lvx_notice(env->ctx, "Rounding size (%llu extents) up to stripe boundary size for "
                   "segment (%llu extents).", (unsigned long long)new_count,
                   (unsigned long long)up);
        return up;
    }
    return new_count;
}

void lvx_lvresize_truncate(struct lvx_lv *lv, uint64_t new_count)
{
    unsigned keep = 0;
    for (unsigned i = 0; i < lv->seg_count; i++) {
        struct lvx_seg *s = &lv->segs[i];
        if (s->start_extent >= new_count)
            break;
        if (s->start_extent + s->extent_count > new_count)
            s->extent_count = new_count - s->start_extent;
        keep = i + 1;
    }
    lv->seg_count = keep;
    lv->le_count = new_count;
}

/* ---- the command ------------------------------------------------------------------- */

static int check_direction(const struct lvx_lv *lv, enum direction *dir, uint64_t new_count)
{
    uint64_t cur = lv->le_count;
    if (same_size(new_count, cur))
        return LVX_EXIT_FAILED;
    if (*dir == EITHER)
        *dir = new_count > cur ? EXTEND : REDUCE;
    if (*dir == EXTEND && new_count < cur) {
        lvx_cmd_errorf("New size given (%llu extents) not larger than existing size (%llu "
                       "extents)", (unsigned long long)new_count, (unsigned long long)cur);
        return LVX_EXIT_FAILED;
    }
    if (*dir == REDUCE && new_count > cur) {
        lvx_cmd_errorf("New size given (%llu extents) not less than existing size (%llu "
                       "extents)", (unsigned long long)new_count, (unsigned long long)cur);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* An origin of snapshots, as LVM2: never reduced, resized only while inactive (lvx
 * does not resize them at all yet). */
static int check_origin(struct lvx_cmd_env *env, const struct lvx_lv *lv, enum direction dir)
{
    struct lvx_actcmd act;
    if (dir != EXTEND) {
        lvx_cmd_errorf("Snapshot origin volumes cannot be reduced in size yet.");
        return LVX_EXIT_FAILED;
    }
    if (lvx_actcmd_init(env, &act) == 0 && lvx_actcmd_is_active(env, &act, lv, NULL)) {
        lvx_cmd_errorf("Snapshot origin volumes can be resized only while inactive: try "
                       "lvchange -an.");
        return LVX_EXIT_FAILED;
    }
    lvx_cmd_errorf("Can't resize logical volume %s/%s: lvx does not resize snapshot origins "
                   "yet.", lv->vg->name, lv->name);
    return LVX_EXIT_FAILED;
}

/* A COW LV grows no larger than its origin can fill (LVM2's "Reached maximum COW
 * size").  true when it is there already: nothing to do. */
static bool cap_cow(struct lvx_cmd_env *env, const struct lvx_lv *lv, uint64_t *new_count)
{
    const struct lvx_seg *snap = lvx_lv_cow_snapshot_seg(lv);
    struct lvx_actcmd act;
    bool fixed_leak = lvx_actcmd_init(env, &act) == 0 && act.be == &lvx_activation_dm;
    uint64_t max = lvx_cow_max_extents(snap->origin_lv, snap->chunk_size, fixed_leak);
    if (max >= *new_count)
        return false;
    lvx_notice(env->ctx, "Reached maximum COW size %s (%llu extents).",
               lvx_lvcmd_size(env, max * lv->vg->extent_size), (unsigned long long)max);
    *new_count = max;
    return max <= lv->le_count;
}

/* ---- thin pools and thin LVs -------------------------------------------------------- */

static void set_le(struct lvx_lv *lv, uint64_t le)
{
    lv->le_count = le;
    lv->segs[0].extent_count = le;
}

static void size_changed(struct lvx_cmd_env *env, const struct lvx_lv *lv, uint64_t old_count)
{
    uint64_t e = lv->vg->extent_size;
    lvx_notice(env->ctx, "Size of logical volume %s/%s changed from %s (%llu extents) to %s "
               "(%llu extents).", lv->vg->name, lv->name, lvx_lvcmd_size(env, old_count * e),
               (unsigned long long)old_count, lvx_lvcmd_size(env, lv->le_count * e),
               (unsigned long long)lv->le_count);
}

/* LVM2's _lvresize_check_type: a pool's data LV is never reduced. */
static int refuse_pool_reduce(const struct lvx_seg *ps)
{
    lvx_cmd_errorf("Thin pool volumes %s/%s cannot be reduced in size yet.",
                   ps->data_lv->vg->name, ps->data_lv->name);
    return LVX_EXIT_FAILED;
}

/* Grow a pool's data or metadata LV to *new_count: a raid one (lvconvert --thinpool of
 * raid LVs) as cmd/lvresize_raid.c grows any RAID LV (every image by its share, the size
 * rounded to the data stripes: LVM2's lv_extend of the sub-LV with its own segment type),
 * any other by a segment appended. */
static int extend_pool_sub(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *sub,
                           struct lvx_free_maps *maps, struct lvx_alloc_pv *pvs,
                           unsigned pv_count, const struct resize_opts *o, uint64_t *new_count)
{
    if (!lvx_map_lv_is_raid(sub))
        return extend(env, u, sub, maps, pvs, pv_count, o, new_count);
    int rc = lvx_lvresize_raid(env, u, sub, new_count, pvs, pv_count,
                               lvx_lvcmd_effective_policy(sub->vg, o->policy_given ? o->policy
                                                                                   : sub->alloc));
    *new_count = sub->le_count;
    /* the images were placed on maps of their own: the caller's are made again */
    struct lvx_free_maps *fresh;
    if (!rc && !(rc = lvx_lvcmd_free_maps(env, u, &fresh)))
        *maps = *fresh;
    return rc;
}

/* Grow a pool's metadata LV by --poolmetadatasize or o->meta_pct (and the pool
 * metadata spare with it, as LVM2). */
static int grow_meta(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_seg *ps,
                     struct lvx_free_maps *maps, struct lvx_alloc_pv *pvs, unsigned pv_count,
                     const struct resize_opts *o)
{
    struct lvx_lv *target = ps->metadata_lv;
    uint64_t e = u->vg->extent_size, new_count;
    int rc;
    if (o->meta_pct) {              /* +N% of the LV, rounded up (LVM2's percent_of_extents) */
        new_count = target->le_count + (target->le_count * o->meta_pct + 99) / 100;
    } else if (o->meta_to_sectors) {    /* rounded up to an extent, as LVM2 says */
        new_count = (o->meta_to_sectors + e - 1) / e;
        if (o->meta_to_sectors % e)
            lvx_notice(env->ctx, "Rounding size to boundary between physical extents: %s.",
                       lvx_lvcmd_size(env, new_count * e));
    } else if (o->meta_by_size) {   /* -L/-l given for the _tmeta LV */
        uint64_t ext = o->size.in_extents ? o->size.value : (o->size.value + e - 1) / e;
        new_count = o->size.sign > 0 ? target->le_count + ext : ext;
        if (!o->size.in_extents && o->size.value % e)   /* the size given, rounded (LVM2) */
            lvx_notice(env->ctx, "Rounding size to boundary between physical extents: %s.",
                       lvx_lvcmd_size(env, ext * e));
    } else {
        const struct lvx_opt_val *v = &env->args->val[LVX_OPT_POOLMETADATASIZE];
        uint64_t ext = (v->sectors + e - 1) / e;
        new_count = v->sign > 0 ? target->le_count + ext : ext;
        if (v->sectors % e)
            lvx_notice(env->ctx, "Rounding size to boundary between physical extents: %s.",
                       lvx_lvcmd_size(env, new_count * e));
    }
    if (new_count <= target->le_count) {
        lvx_cmd_errorf("New size (%llu extents) matches existing size (%llu extents).",
                       (unsigned long long)new_count, (unsigned long long)target->le_count);
        return LVX_EXIT_FAILED;
    }
    /* LVM2: no more than the setting's maximum (allocation/thin_pool_crop_metadata), the
     * pool's crop_metadata chosen again for the new size (a change alone reloads) */
    bool crop_cfg = lvx_config_flag(env->ctx, "allocation/thin_pool_crop_metadata", false);
    uint64_t max = lvx_thin_max_meta(crop_cfg);
    if (new_count * e > max) {
        new_count = (max + e - 1) / e;
        lvx_notice(env->ctx, "Reached maximum pool metadata size %s (%llu extents).",
                   lvx_lvcmd_size(env, max), (unsigned long long)new_count);
    }
    if (new_count < target->le_count)
        new_count = target->le_count;
    enum lvx_thin_crop crop = lvx_thin_crop_for(crop_cfg, new_count * e);
    if (ps->crop_metadata != crop) {
        lvx_thin_pool_set_crop(ps, crop, true);
        lvx_notice(env->ctx, "Thin pool will use metadata without cropping.");
    }
    if (new_count == target->le_count) {    /* LVM2's line; a crop change still reloads */
        lvx_notice(env->ctx, "Size of logical volume %s/%s unchanged from %s (%llu extents).",
                   target->vg->name, target->name, lvx_lvcmd_size(env, new_count * e),
                   (unsigned long long)new_count);
        return 0;
    }
    uint64_t old = target->le_count;
    struct resize_opts mo = *o;
    mo.size.percent = LVX_PCT_NONE;
    if ((rc = extend_pool_sub(env, u, target, maps, pvs, pv_count, &mo, &new_count)))
        return rc;
    size_changed(env, target, old);
    struct lvx_lv *spare = lvx_vg_pmspare(u->vg);
    uint64_t want = lvx_vg_pmspare_wanted(u->vg, 0);
    if (spare && spare->le_count < want) {
        uint64_t sc = want, need = want - spare->le_count, free = lvx_vg_free_count(u->vg);
        if (need > free) {          /* LVM2 says so and keeps the smaller spare */
            lvx_cmd_errorf("Insufficient free space: %llu extents needed, but only %llu "
                           "available", (unsigned long long)need, (unsigned long long)free);
            return 0;
        }
        if ((rc = extend(env, u, spare, maps, NULL, 0, &mo, &sc)))
            return rc;
    }
    return 0;
}

/* lvextend of a thin LV (its virtual size), of a pool's data (-L/-l: <pool>_tdata) or
 * metadata (--poolmetadatasize: <pool>_tmeta, and the spare grown to match), as LVM2;
 * --use-policies: the metadata and/or the data by the policy's percents.
 * An active pool or thin LV gets its new tables after the commit. */
static int resize_thin(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                       struct resize_opts *o)
{
    struct lvx_free_maps *maps;
    struct lvx_alloc_pv *pvs;
    unsigned pv_count;
    struct lvx_actcmd act;
    uint64_t new_count;
    int rc;
    bool thin = lvx_lv_is_thin(lv);
    struct lvx_seg *ps = thin ? NULL : lvx_lv_thin_pool_seg(lv);
    struct lvx_lv *pool = thin ? lvx_lv_thin_seg(lv)->pool_lv : lv;
    struct lvx_lv *target = lv;      /* the LV whose size the message names */
    bool reducing = o->dir == REDUCE || (o->size.given && o->size.sign < 0), shrunk = false;
    if (reducing && !thin)
        return refuse_pool_reduce(ps);
    if (!reducing)
        o->dir = EXTEND;
    if (o->type && !strcmp(o->type, "mirror") && !lvx_map_lv_is_mirror(lv)) {
        lvx_cmd_errorf("lvx %s --type mirror resizes mirror LVs only, not %s/%s.",
                       env->args->cmd, lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    if ((rc = lvx_lvcmd_pv_args(env, u->vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)) ||
        (rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    /* --poolmetadatasize: the metadata LV only; --use-policies: the metadata, then the
     * data (LVM2's order), each when the policy asks */
    bool meta = ps && (env->args->count[LVX_OPT_POOLMETADATASIZE] || o->meta_pct ||
                       o->meta_by_size);
    bool data = !o->meta_by_size &&
                (!meta || o->size.given);    /* --poolmetadatasize with -L/-l: both */
    if (meta && (rc = grow_meta(env, u, ps, maps, pvs, pv_count, o)))
        return rc;
    if (meta)
        target = ps->metadata_lv;
    if (data) {
        if (!o->size.given) {
            lvx_cmd_errorf("Please specify either size or extents.");
            return LVX_EXIT_INVALID;
        }
        if (!new_extent_count(env, lv, maps, pvs, pv_count, o, &new_count))
            return LVX_EXIT_FAILED;
        if (same_size(new_count, lv->le_count))
            return LVX_EXIT_FAILED;
        if (new_count < lv->le_count && !thin)
            return refuse_pool_reduce(ps);
        /* LVM2: a pool's data grown without PVs named or the metadata resized otherwise
         * takes its metadata along, first, to the size it estimates for the new data
         * (data sectors / chunk sectors * 64 bytes), when that is more */
        if (!thin && !meta && !o->pv_arg_count && new_count > lv->le_count) {
            uint64_t est = new_count * u->vg->extent_size / ((uint64_t)ps->chunk_size * 8);
            if (est > ps->metadata_lv->le_count * (uint64_t)u->vg->extent_size) {
                struct resize_opts mo = *o;
                mo.meta_to_sectors = est;
                if ((rc = grow_meta(env, u, ps, maps, pvs, pv_count, &mo)))
                    return rc;
            }
        }
        const struct lvx_lv *ext = thin ? lvx_lv_thin_seg(lv)->external_lv : NULL;
        struct lvx_actcmd ea;
        if (ext && new_count > lv->le_count && new_count > ext->le_count &&
            lvx_actcmd_init(env, &ea) == 0 && !lvx_thin_external_extend_ok(env, &ea)) {
            lvx_cmd_errorf("Thin target does not support external origin smaller then thin "
                           "volume.");
            return LVX_EXIT_FAILED;
        }
        if (new_count < lv->le_count) {  /* a thin LV: its blocks past the end stay mapped */
            struct lvx_actcmd a;
            if (lvx_actcmd_init(env, &a) == 0 && lvx_actcmd_is_active(env, &a, lv, NULL)) {
                lvx_warn(env->ctx, "WARNING: Reducing active logical volume to %s.",
                         lvx_lvcmd_size(env, new_count * u->vg->extent_size));
                lvx_warn(env->ctx, "THIS MAY DESTROY YOUR DATA (filesystem etc.)");
            }
            if (!confirm_reduce(env, lv))
                return LVX_EXIT_FAILED;
            shrunk = true;
        }
        uint64_t old = lv->le_count;
        if (thin) {
            set_le(lv, new_count);
        } else {
            target = ps->data_lv;
            uint64_t data_new = new_count;
            old = target->le_count;
            if ((rc = extend_pool_sub(env, u, target, maps, pvs, pv_count, o, &data_new)))
                return rc;
            set_le(lv, target->le_count);
        }
        size_changed(env, target, old);
    }
    if (!shrunk)                           /* LVM2 warns when a pool's LVs grow */
        lvx_thin_overprovisioning(env, pool);
    if ((rc = lvx_actcmd_init(env, &act)) || (rc = lvx_lvcmd_commit(env, u)))
        return rc;
    if ((rc = lvx_actcmd_reload_thin(env, &act, lv)))     /* the new tables */
        return rc;
    /* LVM2's update_pool_lv: messages left queued in the pool's segment go now */
    struct lvx_seg *qs = thin ? NULL : lvx_lv_thin_pool_seg(pool);
    if (qs && qs->msg_count && !act.test &&
        ((rc = lvx_thin_cmd_update_pool(env, &act, pool)) || (rc = lvx_lvcmd_commit(env, u))))
        return rc;
    lvx_notice(env->ctx, "Logical volume %s/%s successfully resized.", u->vg->name,
               meta && !data ? target->name : lv->name);
    return 0;
}

static int resize_in_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct resize_opts *o)
{
    struct lvx_lv *lv = lvx_vg_find_lv(u->vg, o->lv_name);
    struct lvx_free_maps *maps;
    struct lvx_alloc_pv *pvs;
    unsigned pv_count;
    uint64_t new_count, e = u->vg->extent_size;
    int rc;

    if (!lv) {
        lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", o->vg_name, o->lv_name);
        return LVX_EXIT_FAILED;
    }
    if (o->use_policies) {                                 /* cmd/lvresize_policy.c */
        uint32_t pct;
        if ((rc = lvx_lvresize_policy(env, lv, &pct, &o->meta_pct)))
            return rc;
        if (!pct && !o->meta_pct)
            return 0;
        if (pct)
            o->size = (struct lvx_lvcmd_size){ .given = true, .sign = 1, .in_extents = true,
                                               .value = pct, .percent = LVX_PCT_LV };
        o->dir = EXTEND;
    }
    if (lvx_lv_is_external_origin(lv)) {          /* read-only under its thin LVs */
        lvx_cmd_errorf("Cannot resize external origin logical volume %s/%s.", lv->vg->name,
                       lv->name);
        return LVX_EXIT_FAILED;
    }
    if ((rc = lvx_lvresize_raid_check(env, lv, o->dir == REDUCE)))
        return rc;
    if (lvx_map_mirror_sync_layer(lv)) {          /* LVM2's CONVERTING (cmd/mirror_layer.c) */
        lvx_cmd_errorf("Can't resize logical volume %s/%s while lvconvert in progress.",
                       lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    if (env->args->count[LVX_OPT_POOLMETADATASIZE] && !lvx_lv_is_thin_pool(lv)) {
        /* LVM2 takes a pool's metadata LV for its pool (without -L/-l) */
        const char *role = NULL;
        const struct lvx_seg *user = lvx_lv_used_by(lv, &role);
        bool tmeta = user && user->kind == LVX_SEG_THIN_POOL && role && !strcmp(role, "tmeta");
        if (!tmeta) {
            lvx_cmd_errorf("--poolmetadatasize can be used only with thin pools.");
            return LVX_EXIT_FAILED;
        }
        if (env->args->count[LVX_OPT_SIZE] || env->args->count[LVX_OPT_EXTENTS]) {
            lvx_cmd_errorf("--poolmetadatasize for thin-pool metadata cannot be used with size.");
            return LVX_EXIT_FAILED;
        }
        return resize_thin(env, u, user->lv, o);
    }
    {   /* -L/-l of a pool's _tmeta: LVM2 resizes the pool's metadata (grow only) */
        const char *role = NULL;
        const struct lvx_seg *user = lvx_lv_used_by(lv, &role);
        if (user && user->kind == LVX_SEG_THIN_POOL && role && !strcmp(role, "tmeta") &&
            o->size.given && o->size.percent == LVX_PCT_NONE && o->dir != REDUCE &&
            o->size.sign >= 0) {
            o->meta_by_size = true;
            o->dir = EXTEND;
            return resize_thin(env, u, user->lv, o);
        }
    }
    if (lvx_lv_is_thin(lv) || lvx_lv_is_thin_pool(lv))
        return resize_thin(env, u, lv, o);
    bool cow = lvx_lv_is_cow(lv), origin = lvx_lv_snapshot_segs(lv, NULL, 0) > 0;
    bool raid = (lvx_map_lv_is_raid(lv) || lvx_map_lv_is_mirror(lv)) &&
                !(lv->status & LVX_LV_LOCKED);
    if (!cow && !origin && !raid && lvx_lvcmd_refuse_complex(lv, "resize"))
        return LVX_EXIT_FAILED;
    if ((rc = lvx_lvcmd_pv_args(env, u->vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)) ||
        (rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    if (!new_extent_count(env, lv, maps, pvs, pv_count, o, &new_count))
        return LVX_EXIT_FAILED;
    if (raid && new_count == lv->le_count && o->dir != REDUCE && seg_mirrors(last_seg(lv)) &&
        !env->args->count[LVX_OPT_MIRRORS])    /* LVM2 says it before refusing the size */
        lvx_notice(env->ctx, "Extending %u mirror images.", seg_mirrors(last_seg(lv)));
    if ((rc = check_direction(lv, &o->dir, new_count)))
        return rc;
    if (origin && (rc = check_origin(env, lv, o->dir)))
        return rc;
    if (o->dir == EXTEND && o->mirrors && o->mirrors != seg_mirrors(last_seg(lv))) {
        lvx_cmd_errorf("Cannot vary number of mirrors in LV yet.");
        return LVX_EXIT_FAILED;
    }
    if (cow && o->dir == EXTEND && cap_cow(env, lv, &new_count))
        return 0;

    uint64_t old_count = lv->le_count;
    if (raid) {                                             /* cmd/lvresize_raid.c */
        if (o->dir == REDUCE && !confirm_reduce(env, lv))
            return LVX_EXIT_FAILED;
        if ((rc = lvx_lvresize_raid(env, u, lv, &new_count, pvs, pv_count,
                                    lvx_lvcmd_effective_policy(lv->vg, o->policy_given ?
                                                               o->policy : lv->alloc))))
            return rc;
    } else if (o->dir == EXTEND) {
        if ((rc = extend(env, u, lv, maps, pvs, pv_count, o, &new_count)))
            return rc;
    } else {
        new_count = round_to_stripe_row(env, lv, new_count);
        if (same_size(new_count, old_count))
            return LVX_EXIT_FAILED;
        if (!confirm_reduce(env, lv))
            return LVX_EXIT_FAILED;
        lvx_lvresize_truncate(lv, new_count);
    }
    lvx_notice(env->ctx, "Size of logical volume %s/%s changed from %s (%llu extents) to %s "
               "(%llu extents).", lv->vg->name, lv->name, lvx_lvcmd_size(env, old_count * e),
               (unsigned long long)old_count, lvx_lvcmd_size(env, new_count * e),
               (unsigned long long)new_count);
    /* an active LV: the new table is loaded next to the live one before the metadata
     * commit and made live (suspend/resume) after it (cmd/activation.c) */
    struct lvx_actcmd act;
    bool staged = false;
    if ((rc = lvx_actcmd_init(env, &act)) || (rc = lvx_actcmd_stage(env, &act, lv, &staged)))
        return rc;
    rc = lvx_lvcmd_commit(env, u);
    if (staged) {
        int r = lvx_actcmd_finish(env, &act, lv, rc == 0);
        if (!rc)
            rc = r;
    }
    if (rc)
        return rc;
    lvx_notice(env->ctx, "Logical volume %s/%s successfully resized.", lv->vg->name, lv->name);
    return 0;
}

static int resize_main(struct lvx_cmd_env *env, enum direction dir)
{
    struct resize_opts o;
    struct lvx_vg_update u;
    memset(&o, 0, sizeof(o));
    o.dir = dir;
    int rc = parse_resize_args(env, &o);
    if (rc)
        return rc;
    if ((rc = lvx_lvcmd_begin(env, o.vg_name, &u)))
        return rc;
    rc = resize_in_vg(env, &u, &o);
    lvx_vg_update_end(&u);
    return rc;
}

int lvx_cmd_lvextend(struct lvx_cmd_env *env)
{
    return resize_main(env, EXTEND);
}

int lvx_cmd_lvreduce(struct lvx_cmd_env *env)
{
    return resize_main(env, REDUCE);
}

int lvx_cmd_lvresize(struct lvx_cmd_env *env)
{
    return resize_main(env, EITHER);
}
