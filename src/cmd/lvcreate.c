/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcreate.c - `lvx lvcreate -an -L SIZE|-l N[%VG|%FREE|%PVS] [-n NAME] [-i N [-I SIZE]]
 * [--type linear|striped] [--alloc P|-C y] [-p r|rw] [-r RA] [--addtag T] [-Z y|n]
 * [-W y|n] VG [PV[:PE-PE]...]`: a new linear or striped LV placed by the extent
 * allocator (model/alloc.h), LVM2's rounding and messages.  After the commit the
 * first 4 KiB of the LV are zeroed through its mapping (unless -Z n).
 *
 * Without -a n the new LV is activated (cmd/activation.c) when an activation backend
 * is usable; when none is, the command refuses before touching anything.  Under
 * lvm.conf global/activation = 0 it is created inactive after LVM2's warning
 * ("Activation disabled"), exit 0.  Deliberate difference: LVM2 then skips zeroing
 * ("Skipping zeroing and wipping, compiled without activation support."); lvx still
 * zeroes the first 4 KiB through its own mapping (no device is needed for that).
 */
#include "cmd/lvcmd.h"

#include "cmd/actcmd.h"
#include "cmd/lvcreate_raid.h"
#include "cmd/lvcreate_extorig.h"
#include "cmd/lvcreate_thin.h"
#include "cmd/snapshot_cmd.h"
#include "activate/activate.h"
#include "map/map.h"

#include <errno.h>
#include <stdlib.h>

#include "model/snapshot.h"
#include "model/thin.h"
#include <string.h>

#include "config/config.h"
#include <time.h>

#define DEFAULT_STRIPE_SIZE 128u    /* sectors: 64 KiB */
#define ZERO_BYTES 4096u

struct create_opts {
    const char *vg_name;
    const char *lv_name;            /* NULL: first free lvolN */
    struct lvx_lvcmd_size size;
    uint32_t stripes;
    uint32_t stripe_size;           /* sectors, 0 for linear */
    enum lvx_alloc policy;          /* stored in the LV */
    bool zero;
    bool wipe;                      /* -W, else zero and wipe_signatures_when_zeroing_new_lvs */
    bool read_only;
    int64_t read_ahead;             /* 0 auto, -1 none, else sectors */
    char **pv_args;
    unsigned pv_arg_count;
    const struct lvx_opt_val *tags; /* --addtag values */
    bool snapshot;                  /* -s: a COW snapshot of origin_name */
    const char *origin_name;
    uint32_t chunk;                 /* -s: chunk size, sectors */
    struct lvx_lv *origin;          /* -s: found in the VG */
    bool fixed_leak;                /* -s: the kernel's snapshot target does not leak
                                       (LVM2 asks it; lvx: the dm backend is in use) */
    struct lvx_raid_opts raid;      /* raid.type NULL: linear/striped */
    enum lvx_seg_kind virt;         /* --type zero|error: LVX_SEG_ZERO/ERROR, else STRIPED */
    bool fixed_minor;               /* -My / --minor */
    bool activation_skip;           /* -ky: flagged to be skipped at activation */
    const char *profile;            /* --profile/--metadataprofile: the LV's metadata profile */
    int64_t major, minor;
    bool sparse;                    /* -s with -V: a sparse snapshot over NAME_vorigin */
    uint64_t virtual_sectors;       /* -V, sectors */
};

/* ---- command line ------------------------------------------------------------- */

/* -s [VG/]ORIGIN: the first argument is the origin (its VG, or the one of -n VG/NAME). */
static int origin_arg(struct lvx_cmd_env *env, struct create_opts *o)
{
    if (env->args->argc < 1) {
        lvx_cmd_errorf("Please specify a logical volume to act as the snapshot origin.");
        return LVX_EXIT_INVALID;
    }
    const char *arg = env->args->argv[0], *vg = NULL, *lv = arg;
    if (strchr(arg, '/') && (!lvx_lvcmd_split_name(env, arg, &vg, &lv) || !lv)) {
        lvx_cmd_errorf("Invalid logical volume name %s.", arg);
        return LVX_EXIT_INVALID;
    }
    o->vg_name = vg;
    o->origin_name = lv;
    o->pv_args = env->args->argv + 1;
    o->pv_arg_count = (unsigned)env->args->argc - 1;
    return 0;
}

static int names_arg(struct lvx_cmd_env *env, struct create_opts *o)
{
    const char *n = env->args->value[LVX_OPT_NAME];
    int orc;
    bool origin_given = o->snapshot && !o->sparse;
    if (origin_given && (orc = origin_arg(env, o)))
        return orc;
    if (!origin_given && env->args->argc > 0) {
        const char *vg, *lv;
        if (!lvx_lvcmd_split_name(env, env->args->argv[0], &vg, &lv) || lv) {
            lvx_cmd_errorf("Invalid volume group name %s.", env->args->argv[0]);
            return LVX_EXIT_INVALID;
        }
        o->vg_name = vg;
        o->pv_args = env->args->argv + 1;
        o->pv_arg_count = (unsigned)env->args->argc - 1;
    }
    if (n && strchr(n, '/')) {
        const char *vg, *lv;
        if (!lvx_lvcmd_split_name(env, n, &vg, &lv) || !lv) {
            lvx_cmd_errorf("Logical volume name \"%s\" is invalid.", n);
            return LVX_EXIT_INVALID;
        }
        if (o->vg_name && strcmp(o->vg_name, vg) != 0) {
            lvx_cmd_errorf("Inconsistent volume group names given: \"%s\" and \"%s\"", vg,
                           o->vg_name);
            return LVX_EXIT_INVALID;
        }
        o->vg_name = vg;
        n = lv;
    }
    o->lv_name = n;
    if (!o->vg_name && origin_given) {
        lvx_cmd_errorf("The origin name should include the volume group.");
        return LVX_EXIT_INVALID;
    }
    if (!o->vg_name && getenv("LVM_VG_NAME") && *getenv("LVM_VG_NAME"))
        o->vg_name = getenv("LVM_VG_NAME");     /* LVM2's default VG */
    if (!o->vg_name) {
        lvx_cmd_errorf("Please provide a volume group name");
        return LVX_EXIT_INVALID;
    }
    if (n) {
        int rc = lvx_lvcmd_check_new_name(NULL, n);
        if (rc)
            return rc;
    }
    return 0;
}

/* The segment types LVM2 2.03 knows (the names of its segtype libraries):
 * an unknown --type is a command-line error (exit 3), a known one lvx cannot create a
 * failure (exit 5). */
static bool segtype_known(const char *type)
{
    static const char *const known[] = {
        "linear", "striped", "mirror", "snapshot", "thin", "thin-pool", "cache", "cache-pool",
        "writecache", "integrity", "vdo", "vdo-pool", "error", "zero", "raid0", "raid0_meta",
        "raid1", "raid10", "raid10_near", "raid4", "raid5", "raid5_la", "raid5_ra", "raid5_ls",
        "raid5_rs", "raid5_n", "raid6", "raid6_zr", "raid6_nr", "raid6_nc", "raid6_ls_6",
        "raid6_rs_6", "raid6_la_6", "raid6_ra_6", "raid6_n_6",
    };
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (!strcmp(type, known[i]))
            return true;
    return false;
}

static int stripes_arg(struct lvx_cmd_env *env, struct create_opts *o)
{
    const char *type = env->args->value[LVX_OPT_TYPE];
    int rc = lvx_lvcreate_raid_args(env, &o->raid);
    if (rc)
        return rc;
    if (o->raid.type && o->snapshot) {
        lvx_cmd_errorf("lvx lvcreate -s makes COW snapshots only, not %s LVs.", o->raid.type->name);
        return LVX_EXIT_INVALID;
    }
    if (o->raid.type) {             /* rounding follows the data stripes */
        o->stripes = o->raid.stripes;
        o->stripe_size = o->raid.stripe_size;
        return 0;
    }
    if ((rc = lvx_lvcmd_stripe_args(env, &o->stripes, &o->stripe_size)))
        return rc;
    if (type && (!strcmp(type, "zero") || !strcmp(type, "error"))) {
        /* no PV space: stripes do not apply (LVM2 ignores them) */
        o->virt = !strcmp(type, "zero") ? LVX_SEG_ZERO : LVX_SEG_ERROR;
        o->stripes = 1;
        o->stripe_size = 0;
        return 0;
    }
    if (type && strcmp(type, "linear") != 0 && strcmp(type, "striped") != 0 &&
        strcmp(type, "snapshot") != 0) {
        if (!segtype_known(type)) {
            lvx_warn(env->ctx, "WARNING: Unrecognised segment type %s", type);
            lvx_cmd_errorf("Invalid argument for --type: %s", type);
            return LVX_EXIT_INVALID;
        }
        lvx_cmd_errorf("lvx lvcreate supports only --type linear and striped (not %s).", type);
        return LVX_EXIT_FAILED;
    }
    if (type && !strcmp(type, "linear") && o->stripes > 1) {
        lvx_cmd_errorf("Command does not accept option: --stripes %s.",
                       env->args->value[LVX_OPT_STRIPES]);
        return LVX_EXIT_INVALID;
    }
    if (o->stripe_size && !o->stripes) {
        lvx_cmd_errorf("Command does not accept option: --stripesize %s.",
                       env->args->value[LVX_OPT_STRIPESIZE]);
        return LVX_EXIT_INVALID;
    }
    if (!o->stripes)
        o->stripes = 1;
    if (o->stripes == 1 && o->stripe_size) {
        lvx_notice(env->ctx, "Ignoring stripesize argument with single stripe.");
        o->stripe_size = 0;
    }
    if (o->stripes > 1 && !o->stripe_size) {
        o->stripe_size = DEFAULT_STRIPE_SIZE;
        lvx_notice(env->ctx, "Using default stripesize %s.",
                   lvx_lvcmd_size(env, o->stripe_size));
    }
    return 0;
}

static int permission_arg(struct lvx_cmd_env *env, bool *read_only, bool *given)
{
    const char *v = env->args->value[LVX_OPT_PERMISSION];
    *read_only = false;
    *given = env->args->count[LVX_OPT_PERMISSION] > 0;
    if (!*given)
        return 0;
    if (!strcmp(v, "r")) {
        *read_only = true;
        return 0;
    }
    if (!strcmp(v, "rw"))
        return 0;
    lvx_cmd_errorf("Invalid argument for --permission: %s", v);
    return LVX_EXIT_INVALID;
}

static int persistent_args(struct lvx_cmd_env *env, struct create_opts *o)
{
    return lvx_lvcmd_persistent_args(env, &o->fixed_minor, &o->major, &o->minor);
}

/* -c (only with -s and a size, as LVM2) */
static int snapshot_args(struct lvx_cmd_env *env, struct create_opts *o)
{
    bool given = env->args->count[LVX_OPT_CHUNKSIZE] > 0;
    if (given && !o->snapshot) {
        lvx_cmd_errorf("Command does not accept option: --chunksize %s.",
                       env->args->value[LVX_OPT_CHUNKSIZE]);
        return LVX_EXIT_INVALID;
    }
    o->chunk = LVX_SNAPSHOT_DEFAULT_CHUNK;
    if (given) {
        uint64_t c = env->args->val[LVX_OPT_CHUNKSIZE].sectors;
        if (c < LVX_SNAPSHOT_DEFAULT_CHUNK || c > LVX_SNAPSHOT_MAX_CHUNK || (c & (c - 1))) {
            lvx_cmd_errorf("Chunk size must be a power of 2 in the range 4K to 512K.");
            return LVX_EXIT_INVALID;
        }
        o->chunk = (uint32_t)c;
    }
    return 0;
}

static bool sparse_wanted(struct lvx_cmd_env *env);

static int parse_create_args(struct lvx_cmd_env *env, struct create_opts *o)
{
    bool given;
    int rc;

    memset(o, 0, sizeof(*o));
    const char *type = env->args->value[LVX_OPT_TYPE];
    o->snapshot = env->args->count[LVX_OPT_SNAPSHOT] || (type && !strcmp(type, "snapshot"));
    o->sparse = env->args->count[LVX_OPT_VIRTUALSIZE] > 0;   /* sparse_wanted() */
    o->snapshot = o->snapshot || o->sparse;
    o->virtual_sectors = env->args->val[LVX_OPT_VIRTUALSIZE].sectors;
    if (o->sparse && !o->virtual_sectors) {
        lvx_cmd_errorf("Virtual size must be larger than 0.");
        return LVX_EXIT_INVALID;
    }
    if ((rc = snapshot_args(env, o)) || (rc = names_arg(env, o)) ||
        (rc = lvx_lvcmd_size_args(env, false, !o->snapshot || o->sparse, &o->size)) ||
        (rc = stripes_arg(env, o)) || (rc = lvx_lvcmd_alloc_arg(env, &o->policy, &given)) ||
        (rc = permission_arg(env, &o->read_only, &given)) ||
        (rc = lvx_lvcmd_read_ahead_arg(env, &given, &o->read_ahead)) ||
        (rc = persistent_args(env, o)))
        return rc;
    o->zero = lvx_cmd_bool(env, LVX_OPT_ZERO, true);
    o->tags = &env->args->val[LVX_OPT_ADDTAG];
    o->activation_skip = lvx_cmd_bool(env, LVX_OPT_SETACTIVATIONSKIP, false);
    o->profile = lvx_cmd_metadata_profile(env);
    o->wipe = env->args->count[LVX_OPT_WIPESIGNATURES]
                  ? env->args->val[LVX_OPT_WIPESIGNATURES].b
                  : o->zero && lvx_config_flag(env->ctx,
                         "allocation/wipe_signatures_when_zeroing_new_lvs", true);
    if (o->size.percent == LVX_PCT_LV && !o->snapshot) {
        lvx_cmd_errorf("Please express size as %%FREE, %%PVS or %%VG.");
        return LVX_EXIT_FAILED;
    }
    if (o->snapshot && o->size.percent == LVX_PCT_LV) {
        lvx_cmd_errorf("Please express size as %%FREE, %%ORIGIN, %%PVS or %%VG.");
        return LVX_EXIT_FAILED;
    }
    if (o->size.percent == LVX_PCT_ORIGIN && o->sparse) {
        lvx_cmd_errorf("Internal error: Couldn't find origin volume.");   /* LVM2's words */
        return LVX_EXIT_FAILED;
    }
    if (o->size.percent == LVX_PCT_ORIGIN && !o->snapshot) {
        lvx_cmd_errorf("%%ORIGIN is only valid for snapshots: please express size as %%FREE, "
                       "%%PVS or %%VG.");
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* ---- sizing ----------------------------------------------------------------------- */

static uint64_t percent_base(const struct lvx_vg *vg, const struct lvx_free_maps *maps,
                             const struct create_opts *o, const struct lvx_alloc_pv *pvs,
                             unsigned pv_count)
{
    switch (o->size.percent) {
    case LVX_PCT_VG:
        return lvx_vg_extent_count(vg);
    case LVX_PCT_FREE:
        return lvx_vg_free_count(vg);
    case LVX_PCT_PVS:
        return lvx_lvcmd_pvs_free(maps, vg, pvs, pv_count);
    default:
        return 0;
    }
}

/* Extents of the new LV (rounded as LVM2, messages printed); 0 after an error. */
static uint64_t wanted_extents(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                               const struct lvx_free_maps *maps, const struct create_opts *o,
                               const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    uint64_t e = vg->extent_size, ext;

    if (!o->size.in_extents) {
        ext = o->size.value / e + (o->size.value % e != 0);
        if (o->size.value % e)
            lvx_notice(env->ctx, "Rounding up size to full physical extent %s",
                       lvx_lvcmd_size(env, ext * e));
    } else if (o->size.percent == LVX_PCT_ORIGIN) {
        /* the COW's metadata estimate plus the percentage of the origin, rounded up */
        uint64_t ole = o->origin->le_count;
        ext = lvx_cow_max_extents(o->origin, o->chunk, o->fixed_leak) - ole +
              (ole * o->size.value + 99) / 100;
    } else if (o->size.percent != LVX_PCT_NONE) {
        uint64_t pct = o->size.value;
        if (pct > 100 && o->size.percent != LVX_PCT_VG)
            pct = 100;
        ext = (uint64_t)((unsigned __int128)percent_base(vg, maps, o, pvs, pv_count) * pct / 100);
        if (o->raid.type && o->raid.mirrors > 1 && ext)   /* LVM2: per image */
            ext = ext / o->raid.mirrors ? ext / o->raid.mirrors : 1;
        if (ext == 0) {
            lvx_cmd_errorf("Calculated size of logical volume is 0 extents. Needs to be larger.");
            return 0;
        }
    } else {
        ext = o->size.value;
    }
    if (ext > UINT32_MAX) {
        lvx_cmd_errorf("Volume too large (%llu extents) for extent size %s. Upper limit is "
                       "%u extents.", (unsigned long long)ext,
                       lvx_lvcmd_size(env, e), UINT32_MAX);
        return 0;
    }
    if (o->snapshot && !o->sparse) {
        uint64_t max = lvx_cow_max_extents(o->origin, o->chunk, o->fixed_leak);
        if (max < ext) {
            lvx_notice(env->ctx, "Reducing COW size %s down to maximum usable size %s.",
                       lvx_lvcmd_size(env, ext * e), lvx_lvcmd_size(env, max * e));
            ext = max;
        }
    }
    ext = lvx_lvcmd_round_to_stripes(env, ext, o->stripes, e);
    return ext;
}

/* ---- the new LV ------------------------------------------------------------------- */

static struct lvx_lv *new_lv(struct lvx_vg *vg, const struct create_opts *o, const char *name)
{
    struct lvx_lv *lv = lvx_lvcmd_new_lv(vg, name, (uint64_t)time(NULL));
    if (o->read_only)
        lv->status &= ~(uint32_t)LVX_LV_WRITE;
    lv->alloc = o->policy;
    lv->profile = o->profile ? lvx_pool_strdup(vg->pool, o->profile) : NULL;
    lv->has_read_ahead = o->read_ahead != 0;
    lv->read_ahead = o->read_ahead;
    if (o->activation_skip)
        lv->flags |= LVX_LVF_ACTIVATION_SKIP;
    if (o->fixed_minor) {
        lv->status |= LVX_LV_FIXED_MINOR;
        lv->has_major = lv->has_minor = true;
        lv->major = o->major;
        lv->minor = o->minor;
    }
    for (unsigned i = 0; i < o->tags->item_count; i++)
        if (!lvx_strlist_has(&lv->tags, o->tags->items[i]))
            lvx_strlist_add(vg->pool, &lv->tags, o->tags->items[i]);
    return lv;
}

static int check_vg_room(const struct lvx_vg *vg)
{
    if (vg->max_lv && lvx_vg_visible_lv_count(vg) >= vg->max_lv) {
        lvx_cmd_errorf("Maximum number of logical volumes (%u) reached in volume group %s",
                       vg->max_lv, vg->name);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* Take a new LV out again (a second commit) after its initialization failed. */
static int undo_new_lv(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv)
{
    lvx_vg_remove_lv(u->vg, lv);
    if (lvx_lvcmd_commit(env, u) == 0)
        lvx_cmd_errorf("Aborting. Logical volume %s was removed again.", lv->name);
    return LVX_EXIT_FAILED;
}

/* Zero the start; on failure take the LV out again (a second commit). */
static int zero_or_undo(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv)
{
    if (lvx_lvcmd_zero_start(env, u, lv, ZERO_BYTES) == 0)
        return 0;
    /* LVM2's lines (the cause only with -v: LVM2 logs it at debug level) */
    lvx_info(env->ctx, "Zeroing the start of %s/%s: %s", lv->vg->name, lv->name,
             env->ctx->errmsg);
    lvx_cmd_errorf("Failed to initialize logical volume %s/%s at position 0 and size %u.",
                   lv->vg->name, lv->name, ZERO_BYTES);
    lvx_cmd_errorf("Aborting. Failed to wipe start of new LV.");
    lvx_error_clear(env->ctx);
    return undo_new_lv(env, u, lv);
}

/* -s: the origin exists and can have a snapshot (LVM2's validate_snapshot_origin, for the
 * LV kinds lvx makes), a size was given, and the origin's state allows it. */
static int check_origin(struct lvx_cmd_env *env, struct lvx_vg *vg, struct create_opts *o,
                        const struct lvx_actcmd *act)
{
    o->origin = lvx_vg_find_lv(vg, o->origin_name);
    if (!o->origin) {
        lvx_cmd_errorf("Snapshot origin LV %s not found in Volume group %s.", o->origin_name,
                       vg->name);
        return LVX_EXIT_FAILED;
    }
    if (!o->size.given) {
        lvx_cmd_errorf("Please specify either size or extents with snapshots.");
        return LVX_EXIT_FAILED;
    }
    if (lvx_lv_is_virtual_origin(o->origin)) {
        lvx_cmd_errorf("Can't share virtual origins. Use --virtualsize.");
        return LVX_EXIT_FAILED;
    }
    int rc = lvx_snapshot_origin_check(env, o->origin, act);
    if (rc)
        return rc;
    o->fixed_leak = act && act->be == &lvx_activation_dm;
    return 0;
}

static const struct lvx_actcmd *auto_filtered(struct lvx_cmd_env *env,
                                              const struct lvx_actcmd *act,
                                              const struct lvx_lv *lv);

/* -V of a sparse snapshot in extents, rounded up as LVM2's extents_from_size (its
 * line); 0 after an error. */
static uint64_t virtual_extents(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                const struct create_opts *o)
{
    uint64_t e = vg->extent_size, size = o->virtual_sectors;
    if (size % e) {
        size += e - size % e;
        lvx_notice(env->ctx, "Rounding up size to full physical extent %s",
                   lvx_lvcmd_size(env, size));
    }
    if (size > (uint64_t)UINT32_MAX * e) {
        const char *big = lvx_pool_strdup(env->pool, lvx_lvcmd_size(env, size));
        const char *es = lvx_pool_strdup(env->pool, lvx_lvcmd_size(env, e));
        lvx_cmd_errorf("Volume too large (%s) for extent size %s. Upper limit is less than %s.",
                       big, es, lvx_lvcmd_size(env, (uint64_t)UINT32_MAX * e));
        return 0;
    }
    return size / e;
}

/* A sparse snapshot once committed: its _vorigin set activated as LVM2 does (the
 * origin is the LV activation goes through). */
static int activate_sparse(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                           const struct lvx_lv *vorigin)
{
    if (!(act = auto_filtered(env, act, vorigin)) || env->args->count[LVX_OPT_TEST])
        return 0;
    int rc = lvx_actcmd_activate(env, act, vorigin);
    if (rc)
        lvx_cmd_errorf("Failed to activate sparce volume %s/%s.", vorigin->vg->name,
                       vorigin->name);      /* LVM2's spelling */
    return rc;
}

/* -s after the COW LV is committed and zeroed: tie it to its origin (snapshotN; a
 * sparse snapshot's new NAME_vorigin), commit, and load the origin's new device set
 * when it is active. */
static int make_snapshot(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                         struct create_opts *o, struct lvx_lv *cow,
                         const struct lvx_actcmd *act)
{
    struct lvx_vg *vg = u->vg;
    if (o->sparse)
        o->origin = lvx_vg_add_virtual_origin(vg, cow, o->virtual_sectors / vg->extent_size);
    bool active = !o->sparse && act && act->be && lvx_actcmd_is_active(env, act, o->origin, NULL);
    if (o->read_only)
        cow->status &= ~LVX_LV_WRITE;   /* writable only for the zeroing, as LVM2 */
    lvx_vg_add_snapshot(vg, o->origin, cow, o->chunk);
    int rc = lvx_lvcmd_commit(env, u);
    if (rc)
        return rc;
    if (o->sparse)
        return act ? activate_sparse(env, act, o->origin) : 0;
    if (active && !env->args->count[LVX_OPT_TEST] && (rc = lvx_actcmd_activate(env, act, o->origin))) {
        lvx_cmd_errorf("Aborting. Manual intervention required.");
        return rc;
    }
    return 0;
}

/* -aay: a new LV that activation/auto_activation_volume_list does not let through stays
 * inactive (created, no error), as LVM2; so does one flagged -ky (unless -K) */
static const struct lvx_actcmd *auto_filtered(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                              const struct lvx_lv *lv)
{
    if (act && (lv->flags & LVX_LVF_ACTIVATION_SKIP) &&
        !env->args->count[LVX_OPT_IGNOREACTIVATIONSKIP]) {   /* -ky without -K (LVM2) */
        lvx_info(env->ctx, "Activation of logical volume %s/%s is prohibited.", lv->vg->name,
                 lv->name);
        return NULL;
    }
    if (act && lvx_lvcmd_autoactivating(env) && !lvx_lvcmd_passes_auto_list(env->ctx, lv)) {
        lvx_info(env->ctx, "New logical volume %s/%s left inactive: not in "
                 "activation/auto_activation_volume_list.",
                 lv->vg->name, lv->name);
        return NULL;
    }
    return act;
}

/* Activate a new LV; as LVM2, one that cannot be activated is taken out again. */
static int activate_new(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        const struct lvx_actcmd *act)
{
    int rc;
    act = auto_filtered(env, act, lv);
    if (act && (rc = lvx_actcmd_activate(env, act, lv))) {
        struct lvx_vg *vg = u->vg;
        const char *name = lv->name;
        lvx_lvcmd_remove_lv(lv);                 /* with its sub-LVs */
        if (lvx_lvcmd_commit(env, u) == 0)
            lvx_cmd_errorf("Aborting. Failed to activate new LV %s/%s: it was removed again.",
                           vg->name, name);
        return rc;
    }
    lvx_notice(env->ctx, "Logical volume \"%s\" created.", lv->name);
    return 0;
}

static int create_raid(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct create_opts *o,
                       const struct lvx_actcmd *act, struct lvx_free_maps *maps,
                       const struct lvx_alloc_pv *pvs, unsigned pv_count, const char *name,
                       uint64_t ext)
{
    struct lvx_vg *vg = u->vg;
    int rc;
    bool mirror = lvx_raid_opts_mirror(&o->raid), act_off = false;
    struct lvx_actcmd probe;
    if (mirror && !act && (rc = lvx_actcmd_init(env, &probe)) == 0)
        act_off = probe.off;             /* -an: lvm.conf still counts */
    if (mirror && ((act && act->off) || act_off)) {  /* LVM2 needs the kernel for the log */
        lvx_cmd_errorf("Can't create mirror without using device-mapper kernel driver.");
        return LVX_EXIT_FAILED;
    }
    if (act && act->be && !lvx_activation_serves_raid(act->be, o->raid.type->name)) {
        /* refused before anything is written */
        lvx_cmd_errorf("Cannot create %s LV %s/%s active: the %s activation backend does not "
                       "serve %s LVs yet (use the dm backend, or -an).", mirror ? "mirror" : "RAID",
                       vg->name, name, act->be->name, o->raid.type->name);
        return LVX_EXIT_FAILED;
    }
    if (o->raid.nosync)
        lvx_warn(env->ctx, "WARNING: New %s won't be synchronised. Don't read what you didn't "
                 "write!", o->raid.type->name);
    struct lvx_lv *lv = new_lv(vg, o, name);
    if (act && !act->off && (rc = lvx_lvcmd_refuse_unwipeable(env, lv)))
        return rc;
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, o->policy);
    if ((mirror ? lvx_lvcreate_mirror_build(env, vg, maps, &o->raid, lv, ext, policy, pvs, pv_count,
                                            o->size.percent != LVX_PCT_NONE)
                : lvx_lvcreate_raid_build(env, vg, maps, &o->raid, lv, ext, policy, pvs,
                                          pv_count, o->size.percent != LVX_PCT_NONE)) < 0)
        return lvx_cmd_fail(env);
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    /* a mirror is zeroed through its device, as LVM2: not with -an */
    /* signatures live at the start: -W y without -Z is served by the same zeroing */
    bool zero = (o->zero || o->wipe) && !o->read_only && (!mirror || act);
    if (!env->args->count[LVX_OPT_TEST] &&
        (mirror ? lvx_lvcreate_mirror_zero(env, u, lv, zero)
                : lvx_lvcreate_raid_zero(env, u, lv, zero)) < 0) {
        lvx_cmd_errorf("Failed to zero the sub-LVs of %s/%s: %s", vg->name, lv->name,
                       env->ctx->errmsg);
        return LVX_EXIT_FAILED;
    }
    if (!zero)
        lvx_warn(env->ctx, "WARNING: Logical volume %s/%s not zeroed.", vg->name, lv->name);
    if (!act)
        return activate_new(env, u, lv, NULL);
    struct lvx_actcmd first = *act;      /* --nosync: the first table says so (LVM2) */
    first.opts.nosync = o->raid.nosync;
    return activate_new(env, u, lv, &first);
}

/* Activate the new LV; as LVM2, one that cannot be activated is taken out again. */
static int activate_or_remove(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                              const struct lvx_actcmd *act, struct lvx_lv *lv)
{
    if (!(act = auto_filtered(env, act, lv)))
        return 0;
    int rc = lvx_actcmd_activate(env, act, lv);
    if (!rc)
        return 0;
    lvx_vg_remove_lv(u->vg, lv);
    if (lvx_lvcmd_commit(env, u) == 0)
        lvx_cmd_errorf("Aborting. Failed to activate new LV %s/%s: it was removed again.",
                       u->vg->name, lv->name);
    return rc;
}

/* --type zero|error: one segment without PV space, nothing to zero (as LVM2). */
static int create_virtual(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                          const struct create_opts *o, const struct lvx_actcmd *act,
                          const char *name, uint64_t ext)
{
    struct lvx_lv *lv = new_lv(u->vg, o, name);
    lvx_alloc_append_virtual(lv, o->virt, ext);
    int rc = lvx_lvcmd_commit(env, u);
    if (rc)
        return rc;
    if (act && (rc = activate_or_remove(env, u, act, lv)))
        return rc;
    lvx_notice(env->ctx, "Logical volume \"%s\" created.", lv->name);
    return 0;
}

static int create_in_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct create_opts *o,
                        const struct lvx_actcmd *act)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_free_maps *maps;
    struct lvx_alloc_pv *pvs;
    unsigned pv_count;
    int rc;

    const char *name = o->lv_name ? o->lv_name : lvx_lvcmd_next_lvol(env->pool, vg);
    if ((o->snapshot && !o->sparse && (rc = check_origin(env, vg, o, act))) ||
        (rc = lvx_lvcmd_check_new_name(vg, name)) || (rc = check_vg_room(vg)))
        return rc;
    if (o->stripe_size > vg->extent_size) {
        lvx_notice(env->ctx, "Reducing requested stripe size %s to maximum, physical extent "
                   "size %s.", lvx_lvcmd_size(env, o->stripe_size),
                   lvx_lvcmd_size(env, vg->extent_size));
        o->stripe_size = vg->extent_size;
        o->raid.stripe_size = o->raid.type ? vg->extent_size : 0;
    }
    if (o->raid.type) {
        if ((rc = lvx_raid_stripe_all_devices(env, &o->raid,
                                              o->pv_arg_count ? o->pv_arg_count : vg->pv_count)))
            return rc;
        o->stripes = o->raid.stripes;
    }
    if ((rc = lvx_lvcmd_pv_args(env, vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)) ||
        (rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    uint64_t ext = wanted_extents(env, vg, maps, o, pvs, pv_count);
    if (!ext)
        return LVX_EXIT_FAILED;
    if (o->sparse) {
        uint64_t vext = virtual_extents(env, vg, o);
        if (!vext)
            return LVX_EXIT_FAILED;
        o->virtual_sectors = vext * vg->extent_size;
        const char *vname = lvx_pool_printf(env->pool, "%s_vorigin", name);
        if (lvx_vg_find_lv(vg, vname)) {
            lvx_cmd_errorf("Unable to create LV %s in Volume Group %s: name already in use.",
                           vname, vg->name);
            return LVX_EXIT_FAILED;
        }
    }
    if (o->snapshot && (rc = lvx_snapshot_cow_size_check(env, vg, ext, o->chunk)))
        return rc;

    if (o->raid.type)
        return create_raid(env, u, o, act, maps, pvs, pv_count, name, ext);
    if (o->virt != LVX_SEG_STRIPED)
        return create_virtual(env, u, o, act, name, ext);
    struct lvx_alloc_request req = {
        .extents = ext,
        .stripes = o->stripes,
        .stripe_size = o->stripes > 1 ? o->stripe_size : 0,
        .policy = lvx_lvcmd_effective_policy(vg, o->policy),
        .pv_count = pv_count,
        .pvs = pvs,
        .lv_name = name,
    };
    struct lvx_alloc_result res;
    if (lvx_lvcmd_allocate(env, vg, maps, &req, o->size.percent != LVX_PCT_NONE, &res) < 0)
        return lvx_cmd_fail(env);

    struct lvx_lv *lv = new_lv(vg, o, name);
    if (o->snapshot)
        lv->status |= LVX_LV_WRITE;     /* the exception store must be zeroed */
    if (lvx_alloc_append(env->ctx, lv, &res) < 0)
        return lvx_cmd_fail(env);
    bool ro_listed = !o->snapshot &&
                     lvx_lvcmd_in_volume_list(env->ctx, lv, "activation/read_only_volume_list");
    bool zero = o->snapshot || (o->zero && !o->read_only && !ro_listed);
    if (zero && act && !act->off && !o->snapshot && (rc = lvx_lvcmd_refuse_unwipeable(env, lv)))
        return rc;
    lvx_thin_overprovisioning_vg(env, vg, NULL);
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    bool wipe = !o->snapshot && o->wipe && !o->read_only && !ro_listed;
    if (wipe && !env->args->count[LVX_OPT_TEST] &&
        lvx_lvcmd_wipe_signatures(env, u, lv) < 0) {
        lvx_info(env->ctx, "Wiping signatures on %s/%s: %s", vg->name, lv->name,
                 env->ctx->errmsg);
        lvx_error_clear(env->ctx);
        lvx_cmd_errorf("Failed to wipe signatures on logical volume %s/%s.", vg->name, lv->name);
        return undo_new_lv(env, u, lv);
    }
    if (zero && !env->args->count[LVX_OPT_TEST] && (rc = zero_or_undo(env, u, lv)))
        return rc;
    if (ro_listed)
        lvx_warn(env->ctx, "WARNING: Read-only activated logical volume %s/%s not zeroed.",
                 vg->name, lv->name);
    else if (!zero && !wipe)
        lvx_warn(env->ctx, "WARNING: Logical volume %s/%s not zeroed.", vg->name, lv->name);
    if (o->snapshot) {
        if ((rc = make_snapshot(env, u, o, lv, act)))
            return rc;
    } else if (act && (rc = activate_or_remove(env, u, act, lv))) {
        return rc;
    }
    lvx_notice(env->ctx, "Logical volume \"%s\" created.", lv->name);
    return 0;
}

/* LVM2's command definitions give --type snapshot a size (-L or -l) in every form; without
 * one no form matches (a thin snapshot is -s, -T or --type thin): its lines, exit 3. */
static int snapshot_type_syntax(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    const char *type = a->value[LVX_OPT_TYPE];
    if (!type || strcmp(type, "snapshot") || a->count[LVX_OPT_SIZE] || a->count[LVX_OPT_EXTENTS])
        return 0;
    lvx_cmd_errorf("No command with matching syntax recognised.  Run 'lvcreate --help' for more "
                   "information.");
    lvx_cmd_errorf("Nearest similar command has syntax:");
    static const char cow[] = "  lvcreate --type snapshot -L|--size Size[m|UNIT] LV\n"
                              "  Create a COW snapshot LV of an origin LV \n"
                              "  (also see --snapshot).\n\n";
    static const char sparse[] =
        "  lvcreate --type snapshot -L|--size Size[m|UNIT] -V|--virtualsize Size[m|UNIT] VG\n"
        "  Create a sparse COW snapshot LV of a virtual origin LV \n"
        "  (also see --snapshot).\n\n";
    if (a->count[LVX_OPT_VIRTUALSIZE])                       /* on stdout, as LVM2 */
        lvx_cmd_write(sparse, sizeof(sparse) - 1);
    else
        lvx_cmd_write(cow, sizeof(cow) - 1);
    return LVX_EXIT_INVALID;
}

/* -V with --type snapshot, or with -s or alone when lvm.conf's
 * global/sparse_segtype_default is "snapshot" (LVM2's default "thin" makes -s -V a thin
 * LV, lvcreate_thin.c): a sparse snapshot. */
static bool sparse_wanted(struct lvx_cmd_env *env)
{
    const char *type = env->args->value[LVX_OPT_TYPE];
    if (env->args->count[LVX_OPT_VIRTUALORIGINSIZE])   /* always, as LVM2 */
        return true;
    if (type)
        return !strcmp(type, "snapshot");
    return lvx_lvcreate_sparse_default_snapshot(env);
}

/* --virtualoriginsize: LVM2's synonym of -V (its value taken as -V's; the option stays
 * counted: it always means a sparse snapshot).  0 or the exit code. */
static int virtual_origin_synonym(struct lvx_cmd_args *a)
{
    if (!a->count[LVX_OPT_VIRTUALORIGINSIZE])
        return 0;
    if (a->count[LVX_OPT_VIRTUALSIZE]) {
        lvx_cmd_errorf("--virtualoriginsize and --virtualsize are synonyms.  Please only supply "
                       "one.");
        return LVX_EXIT_INVALID;
    }
    a->count[LVX_OPT_VIRTUALSIZE] = a->count[LVX_OPT_VIRTUALORIGINSIZE];
    a->value[LVX_OPT_VIRTUALSIZE] = a->value[LVX_OPT_VIRTUALORIGINSIZE];
    a->val[LVX_OPT_VIRTUALSIZE] = a->val[LVX_OPT_VIRTUALORIGINSIZE];
    return 0;
}

/* Options of pools given to a command form without a pool (no thin or cache type): no
 * LVM2 command definition matches, its line, exit 3 (lvcreate-usage, its line 229). */
static int pool_only_options(struct lvx_cmd_env *env)
{
    static const struct {
        enum lvx_opt_id id;
        const char *name;
    } opts[] = {
        { LVX_OPT_POOLMETADATASPARE, "--poolmetadataspare" },
        { LVX_OPT_POOLMETADATASIZE, "--poolmetadatasize" },
        { LVX_OPT_DISCARDS, "--discards" },
    };
    const char *type = env->args->value[LVX_OPT_TYPE];
    if (type && !strncmp(type, "cache", 5))
        return 0;
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        if (env->args->count[opts[i].id]) {
            lvx_cmd_errorf("Command does not accept option: %s %s.", opts[i].name,
                           env->args->value[opts[i].id]);
            return LVX_EXIT_INVALID;
        }
    return 0;
}

/* -T or --thinpool with another --type (raid1, striped, mirror, ...) or -T with -m N:
 * no LVM2 command definition takes them together: its line, exit 3. */
static int thin_with_other_type(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    const char *type = a->value[LVX_OPT_TYPE];
    bool other = type && strcmp(type, "thin") && strcmp(type, "thin-pool");
    bool plain = other && (!strncmp(type, "raid", 4) || !strcmp(type, "mirror") ||
                           !strcmp(type, "striped") || !strcmp(type, "linear"));
    bool mirrors = a->count[LVX_OPT_MIRRORS] && a->value[LVX_OPT_MIRRORS] &&
                   strcmp(a->value[LVX_OPT_MIRRORS], "0");
    if (a->count[LVX_OPT_THIN] && (other || mirrors)) {
        lvx_cmd_errorf("Command does not accept option: --thin.");
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_THINPOOL] && plain) {
        lvx_cmd_errorf("Command does not accept option: --thinpool %s.", a->value[LVX_OPT_THINPOOL]);
        return LVX_EXIT_INVALID;
    }
    return 0;
}

/* -s -V SIZE VG (no --type) under global/sparse_segtype_default = "thin" (LVM2's
 * default): LVM2 drops -s and makes a thin LV ("Sparse volume via thin-pool", its
 * _lvcreate_name_params), in a new pool with -L/-l; so does lvx.  With VG/LV the
 * snapshot stays (lvx refuses it below). */
static void thin_sparse_volume(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    if (!a->count[LVX_OPT_SNAPSHOT] || !a->count[LVX_OPT_VIRTUALSIZE] || a->value[LVX_OPT_TYPE] ||
        a->count[LVX_OPT_VIRTUALORIGINSIZE] || a->argc < 1)
        return;
    const char *vg = a->argv[0];
    if (!strncmp(vg, "/dev/", 5))
        vg += 5;
    if (!strchr(vg, '/') && !lvx_lvcreate_sparse_default_snapshot(env))
        a->count[LVX_OPT_SNAPSHOT] = 0;
}

int lvx_cmd_lvcreate(struct lvx_cmd_env *env)
{
    int rc = virtual_origin_synonym(env->args);
    if (!rc)
        rc = snapshot_type_syntax(env);
    if (rc)
        return rc;
    struct create_opts o;
    struct lvx_vg_update u;
    if (lvx_actcmd_monitor_conflict(env))     /* LVM2: its line, nothing done, exit 0 */
        return 0;
    if (lvx_lvcreate_external_form(env))
        return lvx_lvcreate_external_cmd(env);
    if (env->args->count[LVX_OPT_SNAPSHOT] && env->args->count[LVX_OPT_THINPOOL] &&
        !env->args->value[LVX_OPT_TYPE] &&
        (env->args->count[LVX_OPT_SIZE] || env->args->count[LVX_OPT_EXTENTS])) {
        /* no command of LVM2's takes -s, a size and --thinpool */
        lvx_cmd_errorf("Command does not accept option: --thinpool %s.",
                       env->args->value[LVX_OPT_THINPOOL]);
        return LVX_EXIT_INVALID;
    }
    if ((rc = thin_with_other_type(env)))
        return rc;
    thin_sparse_volume(env);
    if (lvx_lvcreate_is_thin(env) && !env->args->count[LVX_OPT_SNAPSHOT])
        return lvx_lvcreate_thin(env);
    if (env->args->count[LVX_OPT_ERRORWHENFULL]) {        /* thin pools only */
        lvx_cmd_errorf("Command does not accept option: --errorwhenfull %s.",
                       env->args->value[LVX_OPT_ERRORWHENFULL]);
        return LVX_EXIT_INVALID;
    }
    if ((rc = pool_only_options(env)))
        return rc;
    if (env->args->count[LVX_OPT_VIRTUALSIZE] && !sparse_wanted(env)) {
        lvx_cmd_errorf("lvx lvcreate -s -V makes a sparse snapshot only with --type snapshot "
                       "(or global/sparse_segtype_default = \"snapshot\"); a thin LV takes "
                       "its pool with -T VG/POOL or --thinpool.");
        return LVX_EXIT_FAILED;
    }
    if (env->args->count[LVX_OPT_MIRRORS] && env->args->val[LVX_OPT_MIRRORS].sign < 0) {
        lvx_cmd_errorf("Number may not be negative.");            /* LVM2's three lines */
        lvx_cmd_errorf("Invalid argument for --mirrors: %s", env->args->value[LVX_OPT_MIRRORS]);
        lvx_cmd_errorf("Error during parsing of command line.");
        return LVX_EXIT_INVALID;
    }
    if ((rc = parse_create_args(env, &o)))
        return rc;
    struct lvx_actcmd act;
    bool activate = lvx_lvcmd_wants_activation(env, true);
    if (o.snapshot && !o.sparse && !o.size.given) {
        /* without a size: a thin snapshot (of a thin LV), else LVM2's error */
        if ((rc = lvx_lvcmd_begin(env, o.vg_name, &u)))
            return rc;
        struct lvx_lv *origin = lvx_vg_find_lv(u.vg, o.origin_name);
        if (origin && lvx_lv_is_thin(origin))
            rc = lvx_lvcreate_thin_snapshot(env, &u, NULL, origin, o.lv_name);
        else
            rc = create_in_vg(env, &u, &o, NULL);
        lvx_vg_update_end(&u);
        return rc;
    }
    if (o.snapshot && !o.sparse) {
        /* a snapshot is active when its origin is: the backend is needed only then */
        if ((rc = activate ? lvx_actcmd_init_activating(env, &act) : lvx_actcmd_init(env, &act)))
            return rc;
        if ((rc = lvx_lvcmd_begin(env, o.vg_name, &u)))
            return rc;
        rc = create_in_vg(env, &u, &o, &act);
        lvx_vg_update_end(&u);
        return rc;
    }
    if (activate && (rc = lvx_actcmd_init_activating(env, &act)))
        return rc;
    if (activate && !act.be && !act.off) {
        lvx_actcmd_print_why(&act);
        return lvx_lvcmd_refuse_activation();
    }
    if ((rc = lvx_lvcmd_begin(env, o.vg_name, &u)))
        return rc;
    rc = create_in_vg(env, &u, &o, activate ? &act : NULL);
    lvx_vg_update_end(&u);
    return rc;
}
