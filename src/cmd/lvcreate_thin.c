/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcreate_thin.c - lvcreate of thin pools, thin LVs and thin snapshots, as
 * LVM2 2.03.16 makes them (tools/lvcreate.c, lib/metadata/thin_manip.c,
 * pool_manip.c, lv_manip.c; model/thin.c has the layout and the size rules):
 *
 *   lvcreate -T -L SIZE VG/POOL | --type thin-pool -L SIZE -n POOL VG |
 *            --thinpool POOL -L SIZE VG        a pool: lvol0_pmspare (first, grown to
 *                                              the new metadata size), then the data
 *                                              (<pool>_tdata) and the metadata
 *                                              (<pool>_tmeta, placed as LVM2 places it:
 *                                              meta_place, meta_place_after, for -i1 to -iN);
 *                                              the metadata's first 4 KiB zeroed
 *                                              (the kernel formats it on first load);
 *   lvcreate -V SIZE -T VG/POOL [-n THIN] | --type thin -V SIZE --thinpool POOL VG
 *                                              a thin LV: device id, transaction id,
 *                                              then create_thin sent to the pool;
 *   lvcreate -T -L SIZE -V SIZE -n THIN VG/POOL   both;
 *   lvcreate -s VG/THIN [-n NAME] [-k y|n]     a thin snapshot: create_snap, flagged
 *                                              ACTIVATION_SKIP unless -kn; also
 *                                              -T|--thin|--type thin VG/THIN.
 *
 * Options: -c (pool chunk), --poolmetadatasize, -Z (zero_new_blocks), --discards,
 * --poolmetadataspare, -i/-I (striped data), -a, --addtag, -p, -r.
 *
 * A pool can be made without device-mapper (its metadata is only zeroed).  A thin LV
 * needs the pool's kernel metadata to record it: only a backend that sends pool
 * messages (dm) can make one; without it lvx refuses before writing anything.  After
 * a thin LV or snapshot the over-provisioning warnings of LVM2 are printed.
 */
#include "cmd/lvcreate_thin.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cmd/lvresize_policy.h"
#include "cmd/thin_cmd.h"
#include "config/config.h"
#include "model/thin.h"


struct thin_opts {
    const char *vg_name;
    const char *pool_name;      /* NULL: lvolN (new pool) */
    const char *thin_name;      /* NULL: lvolN */
    bool make_pool, make_thin;
    struct lvx_lvcmd_size size; /* pool data */
    uint64_t virtual_sectors;
    uint32_t stripes, stripe_size;
    struct lvx_thin_pool_args pa;
    enum lvx_alloc policy;
    bool read_only;
    int64_t read_ahead;
    char **pv_args;
    unsigned pv_arg_count;
    bool activate;
};

bool lvx_lvcreate_sparse_default_snapshot(struct lvx_cmd_env *env)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0)
        lvx_error_clear(env->ctx);
    bool snap = !strcmp(lvx_config_str(cfg, "global/sparse_segtype_default", "thin"), "snapshot");
    lvx_config_free(cfg);
    return snap;
}

bool lvx_lvcreate_is_thin(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    const char *type = a->value[LVX_OPT_TYPE];
    /* -V without -s or --type: LVM2 infers --type thin (global/sparse_segtype_default),
     * "lvcreate -V Size VG/POOL" naming the pool in its first argument, -L/-l making
     * a new one */
    bool inferred = a->count[LVX_OPT_VIRTUALSIZE] && !type && !a->count[LVX_OPT_SNAPSHOT] &&
                    !a->count[LVX_OPT_VIRTUALORIGINSIZE] && !lvx_lvcreate_sparse_default_snapshot(env);
    return a->count[LVX_OPT_THIN] || a->count[LVX_OPT_THINPOOL] || inferred ||
           (type && (!strcmp(type, "thin") || !strcmp(type, "thin-pool")));
}

/* ---- command line ------------------------------------------------------------- */

static int split(struct lvx_cmd_env *env, const char *arg, const char **vg, const char **lv)
{
    if (!lvx_lvcmd_split_name(env, arg, vg, lv)) {
        lvx_cmd_errorf("Invalid logical volume name %s.", arg);
        return LVX_EXIT_INVALID;
    }
    return 0;
}

static int set_vg(const char **have, const char *vg)
{
    if (*have && vg && strcmp(*have, vg) != 0) {
        lvx_cmd_errorf("Inconsistent volume group names given: \"%s\" and \"%s\"", vg, *have);
        return LVX_EXIT_INVALID;
    }
    if (vg)
        *have = vg;
    return 0;
}

static int names_args(struct lvx_cmd_env *env, struct thin_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    const char *type = a->value[LVX_OPT_TYPE];
    const char *vg = NULL, *lv = NULL, *name = a->value[LVX_OPT_NAME];
    int rc;
    if (a->count[LVX_OPT_THINPOOL] && a->count[LVX_OPT_MIRRORS] && a->val[LVX_OPT_MIRRORS].n > 0) {
        /* LVM2: -m N makes it a mirror command line, which takes no --thinpool */
        lvx_cmd_errorf("Command does not accept option: --thinpool %s.", a->value[LVX_OPT_THINPOOL]);
        return LVX_EXIT_INVALID;
    }
    if (a->argc > 0) {
        if ((rc = split(env, a->argv[0], &vg, &lv)))
            return rc;
        o->vg_name = vg;
        if (lv)
            o->pool_name = lv;
        o->pv_args = a->argv + 1;
        o->pv_arg_count = (unsigned)a->argc - 1;
    }
    if (a->count[LVX_OPT_THINPOOL]) {
        const char *tp = a->value[LVX_OPT_THINPOOL];
        if (strchr(tp, '/')) {
            if ((rc = split(env, tp, &vg, &lv)) || (rc = set_vg(&o->vg_name, vg)))
                return rc;
            tp = lv;
        }
        if (o->pool_name && tp && strcmp(o->pool_name, tp) != 0) {
            lvx_cmd_errorf("Please specify either the thin pool name or --thinpool, not both.");
            return LVX_EXIT_INVALID;
        }
        o->pool_name = tp;
    }
    if (name && strchr(name, '/')) {
        if ((rc = split(env, name, &vg, &lv)) || (rc = set_vg(&o->vg_name, vg)))
            return rc;
        name = lv;
    }
    bool has_size = a->count[LVX_OPT_SIZE] || a->count[LVX_OPT_EXTENTS];
    o->make_thin = a->count[LVX_OPT_VIRTUALSIZE] > 0;
    o->make_pool = has_size;      /* --type thin with -L/-l: its pool made first (LVM2) */
    if (type && !strcmp(type, "thin-pool")) {
        if (o->make_thin) {
            lvx_cmd_errorf("Command does not accept option: --virtualsize %s.",
                           a->value[LVX_OPT_VIRTUALSIZE]);
            return LVX_EXIT_INVALID;
        }
        o->make_pool = true;
    }
    if (type && !strcmp(type, "thin") && !o->make_thin) {
        lvx_cmd_errorf("--virtualsize is required for --type thin.");
        return LVX_EXIT_INVALID;
    }
    if (!o->make_pool && !o->make_thin) {
        lvx_cmd_errorf("Please specify either size or extents for a new thin pool, or "
                       "--virtualsize for a thin LV.");
        return LVX_EXIT_INVALID;
    }
    bool persistent = a->count[LVX_OPT_MINOR] || a->count[LVX_OPT_MAJOR] ||
                      (a->count[LVX_OPT_PERSISTENT] && a->val[LVX_OPT_PERSISTENT].b);
    if (o->make_pool && !o->make_thin && persistent) {      /* LVM2's lines, exit 5 */
        lvx_cmd_errorf("Persistent major and minor numbers are unsupported with pools.");
        return LVX_EXIT_FAILED;
    }
    if (o->make_pool && o->make_thin && a->count[LVX_OPT_READAHEAD]) {
        lvx_cmd_errorf("Ambigous --readahead parameter specified. Please use either with pool "
                       "or volume.");
        return LVX_EXIT_FAILED;
    }
    if (o->make_thin)
        o->thin_name = name;
    else if (!o->pool_name)
        o->pool_name = name;
    else if (name && strcmp(name, o->pool_name) != 0) {
        lvx_cmd_errorf("Please specify either the thin pool name or -n, not both.");
        return LVX_EXIT_INVALID;
    }
    if (!o->vg_name) {
        lvx_cmd_errorf("Please provide a volume group name");
        return LVX_EXIT_INVALID;
    }
    if (o->make_thin && !o->make_pool && !o->pool_name) {
        lvx_cmd_errorf("Please specify the name of the thin pool (-T VG/POOL or --thinpool).");
        return LVX_EXIT_INVALID;
    }
    if (o->pool_name && o->make_pool && (rc = lvx_lvcmd_check_new_name(NULL, o->pool_name)))
        return rc;
    if (o->thin_name && (rc = lvx_lvcmd_check_new_name(NULL, o->thin_name)))
        return rc;
    return 0;
}

/* A thin pool chunk size of c sectors is in range and a multiple of 64 KiB; else
 * LVM2's messages (both when both apply). */
static bool chunk_ok(struct lvx_cmd_env *env, uint64_t c)
{
    bool range = c < LVX_THIN_MIN_CHUNK || c > LVX_THIN_MAX_CHUNK;
    if (range)
        lvx_cmd_errorf("Thin pool chunk size %s is not in the range %s to %s.",
                       lvx_lvcmd_size(env, c), lvx_lvcmd_size(env, LVX_THIN_MIN_CHUNK),
                       lvx_lvcmd_size(env, LVX_THIN_MAX_CHUNK));
    if (c & (LVX_THIN_MIN_CHUNK - 1))
        lvx_cmd_errorf("Thin pool chunk size %s must be a multiple of %s.",
                       lvx_lvcmd_size(env, c), lvx_lvcmd_size(env, LVX_THIN_MIN_CHUNK));
    return !range && !(c & (LVX_THIN_MIN_CHUNK - 1));
}

/* Without --chunksize: allocation/thin_pool_chunk_size (KiB, taken as given: checked
 * once the pool's sizes are known, as LVM2), else the start of the estimate from
 * allocation/thin_pool_chunk_size_policy (generic 64 KiB, performance 512 KiB). */
static int config_chunk(struct lvx_cmd_env *env, const struct lvx_config *cfg,
                        struct lvx_thin_pool_args *o)
{
    int64_t kib = lvx_config_int(cfg, "allocation/thin_pool_chunk_size", 0);
    if (kib > 0) {
        o->chunk = kib > UINT32_MAX / 2 ? UINT32_MAX : (uint32_t)kib * 2;
        o->chunk_from_config = true;
        return 0;
    }
    const char *policy = lvx_config_str(cfg, "allocation/thin_pool_chunk_size_policy", "generic");
    if (!strcasecmp(policy, "performance"))
        o->start_chunk = LVX_THIN_PERFORMANCE_CHUNK;
    else if (strcasecmp(policy, "generic")) {
        lvx_cmd_errorf("Thin pool chunk size calculation policy \"%s\" is unrecognised.", policy);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

int lvx_thin_pool_args(struct lvx_cmd_env *env, bool new_pool, struct lvx_thin_pool_args *o)
{
    const struct lvx_cmd_args *a = env->args;
    memset(o, 0, sizeof(*o));
    if (a->count[LVX_OPT_CHUNKSIZE]) {
        uint64_t c = a->val[LVX_OPT_CHUNKSIZE].sectors;
        o->chunk = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
        /* checked with the command line, as LVM2 (both messages, exit 3) */
        if (!chunk_ok(env, c))
            return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_POOLMETADATASIZE]) {
        if (a->val[LVX_OPT_POOLMETADATASIZE].sign) {
            lvx_cmd_errorf("Invalid argument for --poolmetadatasize: %s",
                           a->value[LVX_OPT_POOLMETADATASIZE]);
            return LVX_EXIT_INVALID;
        }
        o->meta_sectors = a->val[LVX_OPT_POOLMETADATASIZE].sectors;
        if (!o->meta_sectors) {        /* LVM2's get_pool_params */
            lvx_cmd_errorf("--poolmetadatasize may not be zero.");
            lvx_cmd_errorf("Run `lvcreate --help' for more information.");
            return LVX_EXIT_INVALID;
        }
    }
    if ((o->chunk || o->meta_sectors || a->count[LVX_OPT_DISCARDS] ||
         a->count[LVX_OPT_ERRORWHENFULL]) && !new_pool) {
        lvx_cmd_errorf("Command does not accept option: %s%s.",
                       o->chunk ? "--chunksize" : o->meta_sectors ? "--poolmetadatasize"
                       : a->count[LVX_OPT_DISCARDS] ? "--discards" : "--errorwhenfull ",
                       o->chunk || o->meta_sectors || a->count[LVX_OPT_DISCARDS]
                           ? "" : a->value[LVX_OPT_ERRORWHENFULL]);
        return LVX_EXIT_INVALID;
    }
    /* lvm.conf's defaults: allocation/thin_pool_discards, allocation/thin_pool_zero,
     * activation/error_when_full */
    o->discards = "passdown";
    o->zero = true;
    if (new_pool) {
        struct lvx_config *cfg;
        if (lvx_config_load(env->ctx, &cfg) == 0) {
            o->discards = lvx_pool_strdup(env->pool, lvx_config_str(cfg, "allocation/thin_pool_discards",
                                                                    "passdown"));
            o->zero = lvx_config_int(cfg, "allocation/thin_pool_zero", 1) != 0;
            o->error_when_full = lvx_config_int(cfg, "activation/error_when_full", 0) != 0;
            int rc = a->count[LVX_OPT_CHUNKSIZE] ? 0 : config_chunk(env, cfg, o);
            lvx_config_free(cfg);
            if (rc)
                return rc;
        } else {
            lvx_error_clear(env->ctx);
        }
    }
    if (a->count[LVX_OPT_DISCARDS])
        o->discards = a->value[LVX_OPT_DISCARDS];
    if (strcmp(o->discards, "passdown") && strcmp(o->discards, "nopassdown") &&
        strcmp(o->discards, "ignore")) {
        lvx_cmd_errorf("Thin pool discards type \"%s\" is unknown.", o->discards);
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_ERRORWHENFULL])
        o->error_when_full = a->val[LVX_OPT_ERRORWHENFULL].b;
    o->zero = lvx_cmd_bool(env, LVX_OPT_ZERO, o->zero);
    o->spare = lvx_cmd_bool(env, LVX_OPT_POOLMETADATASPARE, true);
    return 0;
}

static int pool_args(struct lvx_cmd_env *env, struct thin_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    int rc;
    bool given;
    if (o->make_pool) {
        if ((rc = lvx_lvcmd_size_args(env, false, true, &o->size)))
            return rc;
        if (o->size.percent == LVX_PCT_LV || o->size.percent == LVX_PCT_ORIGIN) {
            lvx_cmd_errorf("Please express size as %%FREE, %%PVS or %%VG.");
            return LVX_EXIT_FAILED;
        }
    }
    if ((rc = lvx_thin_pool_args(env, o->make_pool, &o->pa)))
        return rc;
    if ((rc = lvx_lvcmd_stripe_args(env, &o->stripes, &o->stripe_size)) ||
        (rc = lvx_lvcmd_alloc_arg(env, &o->policy, &given)) ||
        (rc = lvx_lvcmd_read_ahead_arg(env, &given, &o->read_ahead)))
        return rc;
    if (o->make_thin) {     /* --minor/-My for the thin LV (a pool alone was refused) */
        bool fixed;
        int64_t major, minor;
        if ((rc = lvx_lvcmd_persistent_args(env, &fixed, &major, &minor)))
            return rc;
    }
    if (!o->stripes)
        o->stripes = 1;
    if (o->stripes > 1 && !o->stripe_size) {
        o->stripe_size = 128;
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, 128));
    }
    if (o->stripes == 1)
        o->stripe_size = 0;
    if (a->count[LVX_OPT_PERMISSION]) {
        const char *p = a->value[LVX_OPT_PERMISSION];
        if (strcmp(p, "r") && strcmp(p, "rw")) {
            lvx_cmd_errorf("Invalid argument for --permission: %s", p);
            return LVX_EXIT_INVALID;
        }
        o->read_only = !strcmp(p, "r");
    }
    o->virtual_sectors = a->val[LVX_OPT_VIRTUALSIZE].sectors;
    if (o->make_thin && !o->virtual_sectors) {
        lvx_cmd_errorf("Virtual size must be larger than 0.");
        return LVX_EXIT_INVALID;
    }
    return 0;
}

/* ---- helpers ---------------------------------------------------------------------- */

/* LVM2's generate_lv_name (lvol<highest + 1>), past names taken with suffix too */
const char *lvx_thin_free_lv_name(struct lvx_cmd_env *env, const struct lvx_vg *vg, const char *suffix)
{
    unsigned first = 0;
    if (sscanf(lvx_lvcmd_next_lvol(env->pool, vg), "lvol%u", &first) != 1)
        first = 0;
    for (unsigned i = first;; i++) {
        const char *n = lvx_pool_printf(env->pool, "lvol%u", i);
        if (!lvx_vg_find_lv(vg, n) &&
            !lvx_vg_find_lv(vg, lvx_pool_printf(env->pool, "%s%s", n, suffix)))
            return n;
    }
}

static void add_tags(struct lvx_cmd_env *env, struct lvx_lv *lv)
{
    const struct lvx_opt_val *t = &env->args->val[LVX_OPT_ADDTAG];
    for (unsigned i = 0; i < t->item_count; i++)
        if (!lvx_strlist_has(&lv->tags, t->items[i]))
            lvx_strlist_add(lv->vg->pool, &lv->tags, t->items[i]);
}

void lvx_thin_overprovisioning(struct lvx_cmd_env *env, const struct lvx_lv *pool)
{
    lvx_thin_overprovisioning_vg(env, pool->vg, pool);
}

void lvx_thin_overprovisioning_vg(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                  const struct lvx_lv *pool)
{
    uint64_t e = vg->extent_size, thinsum = 0, poolsum = pool ? pool->le_count * e : 0;
    unsigned more = 0;
    struct lvx_config *cfg = NULL;
    int64_t threshold = 100, percent = 20;
    if (lvx_config_load(env->ctx, &cfg) == 0) {
        threshold = lvx_config_int(cfg, "activation/thin_pool_autoextend_threshold", 100);
        percent = lvx_config_int(cfg, "activation/thin_pool_autoextend_percent", 20);
        lvx_config_free(cfg);
    } else {
        lvx_error_clear(env->ctx);
    }
    for (unsigned i = 0; pool && i < vg->lv_count; i++) {
        const struct lvx_seg *s = lvx_lv_thin_seg(vg->lvs[i]);
        if (s && s->pool_lv == pool)
            thinsum += vg->lvs[i]->le_count * e;
    }
    if (pool && thinsum <= poolsum)
        return;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_lv *p = vg->lvs[i];
        if (!lvx_lv_is_thin_pool(p) || p == pool)
            continue;
        more++;
        poolsum += p->le_count * e;
        for (unsigned j = 0; j < vg->lv_count; j++) {
            const struct lvx_seg *s = lvx_lv_thin_seg(vg->lvs[j]);
            if (s && s->pool_lv == p)
                thinsum += vg->lvs[j]->le_count * e;
        }
    }
    if (thinsum <= poolsum)
        return;
    uint64_t sz;
    const char *txt = "";
    bool nowarn = false;
    if ((sz = lvx_vg_extent_count(vg) * e) < thinsum)
        txt = " and the size of whole volume group";
    else if ((sz = lvx_vg_free_count(vg) * e) < thinsum)
        txt = sz ? " and the amount of free space in volume group" : "";
    else if (threshold > 99 || !percent)
        sz = poolsum;
    else
        nowarn = true;
    if (nowarn)
        return;
    lvx_warn(env->ctx, "WARNING: Sum of all thin volume sizes (%s) exceeds the size of thin "
             "pool%s%s%s (%s).", lvx_lvcmd_size(env, thinsum), more ? "s" : " ",
             more ? "" : lvx_pool_printf(env->pool, "%s/%s", vg->name, pool->name), txt,
             sz ? lvx_lvcmd_size(env, sz) : "no free space in volume group");
    if (threshold > 99 || !percent)
        lvx_notice(env->ctx, "WARNING: You have not turned on protection against thin pools "
                   "running out of space.");
    if (threshold > 99)
        lvx_notice(env->ctx, "WARNING: Set activation/thin_pool_autoextend_threshold below 100 "
                   "to trigger automatic extension of thin pools before they get full.");
    if (!percent)
        lvx_notice(env->ctx, "WARNING: Set activation/thin_pool_autoextend_percent above 0 to "
                   "specify by how much to extend thin pools reaching the threshold.");
}

const char *lvx_thin_next_lv_name(struct lvx_cmd_env *env, const struct lvx_vg *vg)
{
    long high = -1;
    for (unsigned i = 0; i < vg->lv_count + vg->historical_names.n; i++) {   /* historical too */
        const char *n = i < vg->lv_count ? vg->lvs[i]->name
                                         : vg->historical_names.v[i - vg->lv_count];
        const char *d = n + 4;
        char *end;
        if (strncmp(n, "lvol", 4) != 0 || !(isdigit((unsigned char)*d) ||
                                            ((*d == '-' || *d == '+') && isdigit((unsigned char)d[1]))))
            continue;
        long v = strtol(d, &end, 10);
        if (v > high && v < INT_MAX)
            high = v;
    }
    return lvx_pool_printf(env->pool, "lvol%ld", high + 1);
}

/* The backend that will send the pool's messages, or an exit code after the message. */
int lvx_thin_need_messages(const struct lvx_actcmd *act, const struct lvx_vg *vg, const char *what)
{
    if (act->be && act->be->thin_message)
        return 0;
    lvx_cmd_errorf("Cannot create %s in %s without device-mapper: the thin pool's kernel "
                   "metadata must record it (%s%s).", what, vg->name,
                   act->off ? "activation is disabled" : act->be ? "the backend in use is "
                                                                 : "no activation backend",
                   !act->off && act->be ? act->be->name : "");
    return LVX_EXIT_FAILED;
}

/* ---- the pool ----------------------------------------------------------------------- */

/* Allocate extents for lv (empty) in maps; pvs order preferred. */
static int alloc_into(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                      struct lvx_lv *lv, uint64_t extents, uint32_t stripes, uint32_t stripe_size,
                      enum lvx_alloc policy, const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    struct lvx_alloc_request req = {
        .extents = extents,
        .stripes = stripes,
        .stripe_size = stripes > 1 ? stripe_size : 0,
        .policy = policy,
        .pv_count = pv_count,
        .pvs = pvs,
        .lv = lv->le_count ? lv : NULL,
        .lv_name = lv->name,
    };
    struct lvx_alloc_result res;
    if (lvx_lvcmd_allocate(env, vg, maps, &req, false, &res) < 0 ||
        lvx_alloc_append(env->ctx, lv, &res) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

int lvx_thin_wipe_failed(struct lvx_cmd_env *env, const char *vg, const char *pool)
{
    lvx_cmd_errorf("Failed to initialize logical volume %s/%s (%s).", vg, pool,
                   env->ctx->errmsg);
    lvx_cmd_errorf("Aborting. Failed to wipe pool metadata %s/%s.", vg, pool);
    lvx_error_clear(env->ctx);
    return LVX_EXIT_FAILED;
}

int lvx_thin_pmspare(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_free_maps *maps,
                     uint64_t meta_extents, bool wanted, enum lvx_alloc policy,
                     const struct lvx_alloc_pv *pvs, unsigned pv_count, uint64_t now)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_lv *spare = lvx_vg_pmspare(vg);
    uint64_t want = lvx_vg_pmspare_wanted(vg, meta_extents);
    if (!wanted) {
        lvx_warn(env->ctx, "WARNING: recovery of pools without pool metadata spare LV is not "
                 "automated.");
    } else if (!spare) {
        const char *base = lvx_thin_free_lv_name(env, vg, "_pmspare");
        spare = lvx_lvcmd_new_lv(vg, lvx_pool_printf(env->pool, "%s_pmspare", base), now);
        spare->status &= ~LVX_LV_VISIBLE;
        int rc = alloc_into(env, vg, maps, spare, want, 1, 0, policy, pvs, pv_count);
        /* a new spare is cleared as new pool metadata is (LVM2: is_metadata) */
        if (!rc && !env->args->count[LVX_OPT_TEST] && lvx_lvcmd_zero_metadata(env, u, spare) < 0)
            return lvx_thin_wipe_failed(env, vg->name, spare->name);
        return rc;
    } else if (spare->le_count < want) {
        return alloc_into(env, vg, maps, spare, want - spare->le_count, 1, 0, policy, pvs,
                          pv_count);
    }
    return 0;
}

int lvx_thin_vg_spare(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool wanted)
{
    struct lvx_vg *vg = u->vg;
    uint64_t want = lvx_vg_pmspare_wanted(vg, 0);
    struct lvx_lv *spare = lvx_vg_pmspare(vg);
    if (!wanted) {
        if (want)
            lvx_warn(env->ctx, "WARNING: recovery of pools without pool metadata spare LV is "
                     "not automated.");
        return 0;
    }
    if (!want) {
        if (spare)
            lvx_vg_remove_lv(vg, spare);
        return 0;
    }
    struct lvx_free_maps *maps;
    int rc = lvx_lvcmd_free_maps(env, u, &maps);
    if (!rc)
        rc = lvx_thin_pmspare(env, u, maps, 0, true,
                              lvx_lvcmd_effective_policy(vg, LVX_ALLOC_INHERIT), NULL, 0,
                              (uint64_t)time(NULL));
    if (!rc && !spare)          /* LVM2 makes it with lvcreate's checks */
        lvx_thin_overprovisioning_vg(env, vg, NULL);
    return rc;
}

/* The free area a PV offers a linear allocation of need extents (model/alloc.c step
 * 3): the smallest that holds all of it, else its largest, the lowest PE on a tie.
 * Its length in *worth (at most need); false when the PV has none. */
static bool offer(const struct lvx_pv_free *pf, uint64_t need, struct lvx_pe_run *out,
                  uint64_t *worth)
{
    const struct lvx_pe_run *fit = NULL, *big = NULL;
    for (unsigned i = 0; pf->usable && i < pf->run_count; i++) {
        const struct lvx_pe_run *r = &pf->runs[i];
        if (r->count >= need && (!fit || r->count < fit->count))
            fit = r;
        if (!big || r->count > big->count)
            big = r;
    }
    const struct lvx_pe_run *r = fit ? fit : big;
    if (!r)
        return false;
    *out = *r;
    *worth = r->count < need ? r->count : need;
    return true;
}

/* Where LVM2 puts a new pool's metadata (lib/metadata/lv_manip.c: the thin pool's
 * metadata is the "log" area of the data's first allocation): each PV offers one area
 * for a piece of data/stripes extents (at least meta), the offers sorted by worth, most
 * first (glibc's stable sort: the earlier PV on a tie); the data's stripes take the
 * first ones, the metadata the last of the others that holds it (the one worth least,
 * the later on a tie), at the start of that offer.  false when no other PV can (LVM2
 * then puts it after the data on a PV the data uses: meta_pvs), when fewer PVs than
 * stripes offer, or the PVs are given with ranges. */
static bool meta_place(struct lvx_cmd_env *env, const struct lvx_free_maps *maps,
                       const struct lvx_vg *vg, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                       uint64_t data, uint32_t stripes, uint64_t meta, struct lvx_alloc_pv *out)
{
    unsigned n = pv_count ? pv_count : vg->pv_count, k = 0;
    uint64_t need = data / (stripes ? stripes : 1);
    if (need < meta)
        need = meta;
    uint64_t *worths = lvx_pool_alloc(env->pool, (n ? n : 1) * sizeof(*worths));
    struct lvx_pe_run *runs = lvx_pool_alloc(env->pool, (n ? n : 1) * sizeof(*runs));
    unsigned *order = lvx_pool_alloc(env->pool, (n ? n : 1) * sizeof(*order));
    for (unsigned i = 0; i < n; i++) {
        const struct lvx_pv *pv = pv_count ? pvs[i].pv : vg->pvs[i];
        if (pv_count && pvs[i].range_count)
            return false;
        if (!offer(&maps->pvs[pv->index], need, &runs[i], &worths[i]))
            continue;
        unsigned j = k++;           /* stable insertion: after the offers worth as much */
        while (j && worths[order[j - 1]] < worths[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    if (k <= stripes || worths[order[stripes]] < meta)
        return false;
    unsigned log = order[stripes];
    for (unsigned j = stripes + 1; j < k && worths[order[j]] >= meta; j++)
        log = order[j];
    struct lvx_pe_run *range = lvx_pool_alloc(env->pool, sizeof(*range));
    *range = (struct lvx_pe_run){ runs[log].start, meta };
    *out = (struct lvx_alloc_pv){ pv_count ? pvs[log].pv : vg->pvs[log], 1, range };
    return true;
}

/* ... and when no other PV holds it, on a PV of the data's first segment (LVM2's extra
 * pass for the "log" over the PVs the data took, in PV order): each offers its free
 * area as it is after the data (the one right after the data's piece when it is big
 * enough), the metadata on the one worth least that holds it, the later on a tie
 * (tdata already allocated from maps).  false when none can (then meta_pvs). */
static bool meta_place_after(struct lvx_cmd_env *env, const struct lvx_free_maps *maps,
                             const struct lvx_vg *vg, const struct lvx_lv *tdata,
                             const struct lvx_alloc_pv *pvs, unsigned pv_count, uint64_t data,
                             uint32_t stripes, uint64_t meta, struct lvx_alloc_pv *out)
{
    unsigned n = pv_count ? pv_count : vg->pv_count;
    uint64_t need = data / (stripes ? stripes : 1), best_worth = 0, worth;
    struct lvx_pe_run run, best_run = { 0, 0 };
    struct lvx_pv *best = NULL;
    if (need < meta)
        need = meta;
    if (!tdata->seg_count)
        return false;
    const struct lvx_seg *seg = &tdata->segs[0];
    for (unsigned i = 0; i < n; i++) {
        struct lvx_pv *pv = pv_count ? pvs[i].pv : vg->pvs[i];
        bool used = false;
        if (pv_count && pvs[i].range_count)
            return false;
        for (uint32_t a = 0; a < seg->area_count; a++)
            used |= seg->areas[a].pv == pv;
        if (!used || !offer(&maps->pvs[pv->index], need, &run, &worth) || worth < meta)
            continue;
        if (!best || worth <= best_worth) {
            best = pv;
            best_worth = worth;
            best_run = run;
        }
    }
    if (!best)
        return false;
    struct lvx_pe_run *range = lvx_pool_alloc(env->pool, sizeof(*range));
    *range = (struct lvx_pe_run){ best_run.start, meta };
    *out = (struct lvx_alloc_pv){ best, 1, range };
    return true;
}

/* The PV list for the metadata: PVs the data does not use first (LVM2 puts the pool's
 * metadata on another PV when it can), then the data's. */
static struct lvx_alloc_pv *meta_pvs(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                     const struct lvx_lv *tdata, const struct lvx_alloc_pv *pvs,
                                     unsigned pv_count, bool unused_only, unsigned *out_count)
{
    unsigned n = pv_count ? pv_count : vg->pv_count, k = 0;
    struct lvx_alloc_pv *out = lvx_pool_alloc(env->pool, (n ? n : 1) * sizeof(*out));
    for (int pass = 0; pass < (unused_only ? 1 : 2); pass++)
        for (unsigned i = 0; i < n; i++) {
            struct lvx_alloc_pv p = pv_count ? pvs[i] : (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
            bool used = false;
            for (unsigned s = 0; s < tdata->seg_count; s++)
                for (uint32_t a = 0; a < tdata->segs[s].area_count; a++)
                    if (tdata->segs[s].areas[a].pv == p.pv)
                        used = true;
            if (used == (pass == 1))
                out[k++] = p;
        }
    *out_count = k;
    return out;
}

int lvx_thin_pool_plan(struct lvx_cmd_env *env, uint64_t data, uint32_t e,
                       const struct lvx_thin_pool_args *pa, struct lvx_thin_params *out)
{
    struct lvx_thin_params p = {
        .chunk = pa->chunk,
        .start_chunk = pa->start_chunk,
        .crop_config = lvx_config_flag(env->ctx, "allocation/thin_pool_crop_metadata", false),
        .meta_lv = pa->meta_lv != NULL,
    };
    if (pa->meta_sectors) {
        p.meta_extents = (pa->meta_sectors + e - 1) / e;
        if (pa->meta_sectors % e)
            lvx_notice(env->ctx, "Rounding up size to full physical extent %s",
                       lvx_lvcmd_size(env, p.meta_extents * e));
    }
    bool bad = lvx_thin_pool_params(data, e, &p) < 0;
    if (p.chunk_too_small)
        lvx_warn(env->ctx, pa->meta_sectors ? "WARNING: Chunk size is smaller then suggested "
                                             "minimum size %s."
                                           : "WARNING: Chunk size is too small for pool, "
                                             "suggested minimum is %s.",
                 lvx_lvcmd_size(env, p.suggested_chunk));
    if (p.meta_too_small) {
        lvx_cmd_errorf("Can't use volume %s with size %s as pool metadata. Minimal required "
                       "size is %s.", pa->meta_lv, lvx_lvcmd_size(env, p.meta_clamped_from),
                       lvx_lvcmd_size(env, p.meta_extents * e));
        return LVX_EXIT_FAILED;
    }
    if (p.meta_clamped_from && pa->meta_lv)
        lvx_notice(env->ctx, "Size %s of pool metadata volume %s is bigger then maximum usable "
                   "size %s.", lvx_lvcmd_size(env, p.meta_clamped_from), pa->meta_lv,
                   lvx_lvcmd_size(env, p.meta_max));
    else if (p.meta_clamped_from)
        lvx_notice(env->ctx, p.meta_clamped_from > p.meta_extents * e
                                 ? "Reducing pool metadata size %s to maximum usable size %s."
                                 : "Extending pool metadata size %s to required minimal size %s.",
                   lvx_lvcmd_size(env, p.meta_clamped_from),
                   lvx_lvcmd_size(env, p.meta_extents * e));
    if (bad) {
        lvx_cmd_errorf("Selected chunk size %s cannot address more then %s of thin pool data "
                       "space.", lvx_lvcmd_size(env, p.chunk),
                       lvx_lvcmd_size(env, p.max_data_sectors));
        return LVX_EXIT_FAILED;
    }
    lvx_notice(env->ctx, "Thin pool volume with chunk size %s can address at most %s of data.",
               lvx_lvcmd_size(env, p.chunk), lvx_lvcmd_size(env, p.max_data_sectors));
    if (pa->chunk_from_config && !chunk_ok(env, p.chunk))
        return LVX_EXIT_FAILED;
    if ((uint64_t)p.chunk > data * e) {
        lvx_cmd_errorf("Size of thin-pool data volume cannot be smaller than chunk size %s.",
                       lvx_lvcmd_size(env, p.chunk));
        return LVX_EXIT_FAILED;
    }
    if (pa->zero && p.chunk >= 1024) {
        lvx_warn(env->ctx, "WARNING: Pool zeroing and %s large chunk size slows down thin "
                 "provisioning.", lvx_lvcmd_size(env, p.chunk));
        lvx_warn(env->ctx, "WARNING: Consider disabling zeroing (-Zn) or using smaller chunk "
                 "size (<%s).", lvx_lvcmd_size(env, 1024));
    }
    *out = p;
    return 0;
}

/* -l N%FREE|%PVS|%VG of a new pool's data (LVM2's _update_extents_params): %VG no more
 * than the free extents, rounded down to a stripe boundary when the next one does not
 * fit.  0 after an error (printed). */
static uint64_t percent_extents(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                const struct lvx_free_maps *maps, const struct thin_opts *o,
                                const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    uint64_t pct = o->size.value, free = lvx_vg_free_count(vg), base, data;
    if (o->size.percent == LVX_PCT_VG)
        base = lvx_vg_extent_count(vg);
    else if (o->size.percent == LVX_PCT_FREE)
        base = free;
    else
        base = pv_count ? lvx_lvcmd_pvs_free(maps, vg, pvs, pv_count) : lvx_vg_extent_count(vg);
    if (pct > 100 && o->size.percent != LVX_PCT_VG)
        pct = 100;
    data = (uint64_t)((unsigned __int128)base * pct / 100);
    if (o->size.percent == LVX_PCT_VG && data > free) {
        data = free;
        lvx_notice(env->ctx, "Reducing %llu%%VG to remaining free space %s in VG.",
                   (unsigned long long)o->size.value, lvx_lvcmd_size(env, data * vg->extent_size));
    }
    if (!data) {
        lvx_cmd_errorf("Calculated size of logical volume is 0 extents. Needs to be larger.");
        return 0;
    }
    uint64_t sse = o->stripe_size / vg->extent_size ? o->stripe_size / vg->extent_size : 1;
    uint64_t rest = o->stripes > 1 ? data % (o->stripes * sse) : 0;
    if (rest && free < data - rest + o->stripes * sse) {
        lvx_notice(env->ctx, "Rounding size (%llu extents) down to stripe boundary size (%llu "
                   "extents)", (unsigned long long)data, (unsigned long long)(data - rest));
        data -= rest;
    }
    return data;
}

static int make_pool(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct thin_opts *o,
                     bool act_off, struct lvx_lv **out)
{
    struct lvx_vg *vg = u->vg;
    uint32_t e = vg->extent_size;
    struct lvx_free_maps *maps;
    struct lvx_alloc_pv *pvs;
    unsigned pv_count;
    int rc;
    const char *name = o->pool_name ? o->pool_name : lvx_thin_free_lv_name(env, vg, "");
    if ((rc = lvx_lvcmd_check_new_name(vg, name)))
        return rc;
    if ((rc = lvx_lvcmd_pv_args(env, vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)) ||
        (rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    uint64_t data = o->size.in_extents ? o->size.value : (o->size.value + e - 1) / e;
    if (o->size.percent != LVX_PCT_NONE && !(data = percent_extents(env, vg, maps, o, pvs,
                                                                    pv_count)))
        return LVX_EXIT_FAILED;
    if (!o->size.in_extents && o->size.value % e)
        lvx_notice(env->ctx, "Rounding up size to full physical extent %s",
                   lvx_lvcmd_size(env, data * e));
    if (o->make_thin && o->virtual_sectors % e)     /* LVM2: -L's rounding, then -V's */
        lvx_notice(env->ctx, "Rounding up size to full physical extent %s",
                   lvx_lvcmd_size(env, (o->virtual_sectors + e - 1) / e * e));
    data = lvx_lvcmd_round_to_stripes(env, data, o->stripes, e);
    struct lvx_thin_params p;
    if ((rc = lvx_thin_pool_plan(env, data, e, &o->pa, &p)))
        return rc;
    if (o->size.percent == LVX_PCT_FREE || o->size.percent == LVX_PCT_PVS) {
        /* room for the metadata and its spare, as LVM2 (whether or not a spare exists) */
        if (data <= 2 * p.meta_extents) {
            lvx_cmd_errorf("Not enough space for thin pool creation.");
            return LVX_EXIT_FAILED;
        }
        data -= 2 * p.meta_extents;
    }
    if (vg->max_lv && lvx_vg_visible_lv_count(vg) >= vg->max_lv) {
        lvx_cmd_errorf("Maximum number of logical volumes (%u) reached in volume group %s",
                       vg->max_lv, vg->name);
        return LVX_EXIT_FAILED;
    }
    enum lvx_alloc policy = lvx_lvcmd_effective_policy(vg, o->policy);
    uint64_t now = (uint64_t)time(NULL);
    /* the spare first, as LVM2 (handle_pool_metadata_spare) */
    if ((rc = lvx_thin_pmspare(env, u, maps, p.meta_extents, o->pa.spare, policy, pvs, pv_count,
                               now)))
        return rc;
    struct lvx_lv *pool = lvx_lvcmd_new_lv(vg, name, now);
    pool->alloc = o->policy;
    if (o->activate && !act_off && (rc = lvx_lvcmd_refuse_unwipeable(env, pool)))
        return rc;
    if (!o->make_thin) {
        pool->has_read_ahead = o->read_ahead != 0;
        pool->read_ahead = o->read_ahead;
        add_tags(env, pool);
    }
    struct lvx_lv *tmeta = lvx_lvcmd_new_lv(vg, lvx_pool_printf(env->pool, "%s_tmeta", name), now);
    struct lvx_lv *tdata = lvx_lvcmd_new_lv(vg, lvx_pool_printf(env->pool, "%s_tdata", name), now);
    struct lvx_alloc_pv mplace;
    /* allocation/thin_pool_metadata_require_separate_pvs: _tmeta on PVs _tdata leaves */
    bool separate = lvx_config_flag(env->ctx, "allocation/thin_pool_metadata_require_separate_pvs",
                                    false);
    bool placed = !separate && policy == LVX_ALLOC_NORMAL &&
                  meta_place(env, maps, vg, pvs, pv_count, data, o->stripes, p.meta_extents,
                             &mplace);
    if (placed && (rc = alloc_into(env, vg, maps, tmeta, p.meta_extents, 1, 0, policy, &mplace, 1)))
        return rc;
    if ((rc = alloc_into(env, vg, maps, tdata, data, o->stripes, o->stripe_size, policy, pvs,
                         pv_count)))
        return rc;
    /* no other PV held it: after the data on one of its PVs, as LVM2 */
    bool after = !placed && !separate && policy == LVX_ALLOC_NORMAL &&
                 meta_place_after(env, maps, vg, tdata, pvs, pv_count, data, o->stripes,
                                  p.meta_extents, &mplace);
    if (after && (rc = alloc_into(env, vg, maps, tmeta, p.meta_extents, 1, 0, policy, &mplace, 1)))
        return rc;
    placed |= after;
    unsigned mcount;
    struct lvx_alloc_pv *mpvs = placed ? NULL : meta_pvs(env, vg, tdata, pvs, pv_count, separate,
                                                         &mcount);
    if (separate && !mcount) {
        lvx_cmd_errorf("Insufficient suitable allocatable extents for logical volume %s: "
                       "%llu more required", tmeta->name, (unsigned long long)p.meta_extents);
        return LVX_EXIT_FAILED;
    }
    if (!placed && (rc = alloc_into(env, vg, maps, tmeta, p.meta_extents, 1, 0, policy, mpvs,
                                    mcount)))
        return rc;
    lvx_vg_make_thin_pool(vg, pool, tdata, tmeta, p.chunk, o->pa.discards, o->pa.zero);
    lvx_thin_pool_set_crop(&pool->segs[0], p.crop, p.crop == LVX_THIN_CROP_NO);
    if (o->pa.error_when_full)
        pool->flags |= LVX_LVF_ERROR_WHEN_FULL;
    /* before the commit, as LVM2 wipes it: a failure leaves the VG as it was */
    if (!env->args->count[LVX_OPT_TEST] && lvx_lvcmd_zero_metadata(env, u, tmeta) < 0)
        return lvx_thin_wipe_failed(env, vg->name, name);
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    *out = pool;
    return 0;
}

/* ---- thin LVs ------------------------------------------------------------------------ */

/* Add thin (origin: a snapshot) to pool, commit, send the message; on a failed message
 * the LV is taken out again.  *out the new LV. */
/* What the command line sets on a new thin LV or snapshot: tags, permission,
 * read-ahead, and for a snapshot ACTIVATION_SKIP (unless -kn). */
static void thin_attrs(struct lvx_cmd_env *env, struct lvx_lv *thin, bool snapshot)
{
    const struct lvx_cmd_args *a = env->args;
    bool given;
    int64_t ra = 0;
    add_tags(env, thin);
    if (a->count[LVX_OPT_PERMISSION] && !strcmp(a->value[LVX_OPT_PERMISSION], "r"))
        thin->status &= ~LVX_LV_WRITE;
    if (a->count[LVX_OPT_READAHEAD] && lvx_lvcmd_read_ahead_arg(env, &given, &ra) == 0 && ra) {
        thin->has_read_ahead = true;
        thin->read_ahead = ra;
    }
    if (snapshot && lvx_cmd_bool(env, LVX_OPT_SETACTIVATIONSKIP, true))
        thin->flags |= LVX_LVF_ACTIVATION_SKIP;
    if (a->count[LVX_OPT_MINOR] == 1 && lvx_cmd_bool(env, LVX_OPT_PERSISTENT, true) &&
        a->val[LVX_OPT_MINOR].n <= 1048575) {     /* checked with the options */
        thin->status |= LVX_LV_FIXED_MINOR;
        thin->has_major = thin->has_minor = true;
        thin->major = lvx_activation_dm_major();
        thin->minor = (int64_t)a->val[LVX_OPT_MINOR].n;
    }
}

/* Room in pool for one more thin LV, by activation/thin_pool_autoextend_threshold: LVM2
 * activates a pool that has had thin LVs (transaction_id above 0) and refuses a thin
 * LV or snapshot when it is above the threshold; a new pool it checks at the message,
 * for new thin LVs only (create_thin), after a first commit it then reverts, and refuses
 * a new pool whose kernel transaction id is not 0 (a foreign user's thin devices).  lvx
 * checks all before writing anything.  A pool activated here for the look is taken down again
 * when the look lets the LV in (the message step activates it as before); after a
 * refusal it stays active, as LVM2 leaves it. */
static int check_pool_room(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                           const struct lvx_lv *pool, bool snapshot)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    bool fresh = ps->transaction_id == 0, activated = false;
    struct lvx_lv_kstate ks;
    int rc;
    if (act->off || !act->be || env->args->count[LVX_OPT_TEST] || (fresh && snapshot))
        return 0;
    memset(&ks, 0, sizeof(ks));
    if (!lvx_actcmd_is_active(env, act, pool, &ks) || !ks.thin_pool) {
        lvx_error_clear(env->ctx);
        if ((rc = lvx_actcmd_activate(env, act, pool))) {
            lvx_cmd_errorf("Aborting. Failed to locally activate thin pool %s/%s.",
                           pool->vg->name, pool->name);
            return rc;
        }
        activated = true;
        memset(&ks, 0, sizeof(ks));
        if (!lvx_actcmd_is_active(env, act, pool, &ks) || !ks.thin_pool) {
            lvx_error_clear(env->ctx);
            lvx_cmd_errorf("Pool %s/%s needs to be locally active for threshold check.",
                           pool->vg->name, pool->name);
            return LVX_EXIT_FAILED;
        }
    }
    if (fresh && ks.pool_tid != 0) {    /* LVM2's check_new_thin_pool: a foreign user's */
        lvx_cmd_errorf("Cannot use thin pool %s/%s with transaction id %llu for thin volumes. "
                       "Expected transaction id 0.", pool->vg->name, pool->name,
                       (unsigned long long)ks.pool_tid);
        return LVX_EXIT_FAILED;
    }
    if (!lvx_thin_pool_below_threshold(env, pool, &ks)) {
        if (fresh)
            lvx_cmd_errorf("Free space in pool %s/%s is above threshold, new volumes are not "
                           "allowed.", pool->vg->name, pool->name);
        else
            lvx_cmd_errorf("Cannot create new thin volume, free space in thin pool %s/%s "
                           "reached threshold.", pool->vg->name, pool->name);
        return LVX_EXIT_FAILED;
    }
    return activated ? lvx_actcmd_deactivate(env, act, pool, false) : 0;
}

int lvx_lvcreate_thin_lv(struct lvx_cmd_env *env, struct lvx_vg_update *u, const struct lvx_actcmd *act,
                         struct lvx_lv *pool, bool pool_made, const char *name, uint64_t le,
                         struct lvx_lv *origin, struct lvx_lv **out)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    int rc;
    if (!act->off && !lvx_lvcmd_passes_volume_list(env->ctx, pool) &&
        !lvx_actcmd_is_active(env, act, pool, NULL)) {
        lvx_cmd_errorf("Cannot activate thin pool %s/%s, perhaps skipped in lvm.conf "
                       "volume_list?", vg->name, pool->name);
        return LVX_EXIT_FAILED;
    }
    if (!lvx_thin_free_device_id(pool)) {
        lvx_cmd_errorf("Free device_id exhausted...");
        return LVX_EXIT_FAILED;
    }
    if (vg->max_lv && lvx_vg_visible_lv_count(vg) >= vg->max_lv) {
        lvx_cmd_errorf("Maximum number of logical volumes (%u) reached in volume group %s",
                       vg->max_lv, vg->name);
        return LVX_EXIT_FAILED;
    }
    if (!pool_made && (rc = check_pool_room(env, act, pool, origin != NULL)))
        return rc;     /* a pool made just now: zeroed metadata, nothing to look at */
    /* LVM2: the messages still queued in the pool's segment are sent first (committed
     * with the new LV) */
    if (!env->args->count[LVX_OPT_TEST] && (rc = lvx_thin_cmd_update_pool(env, act, pool)))
        return rc;
    struct lvx_lv *thin = lvx_lvcmd_new_lv(vg, name, (uint64_t)time(NULL));
    lvx_vg_make_thin(vg, thin, pool, le, origin);
    const struct lvx_seg *ts = lvx_lv_thin_seg(thin);
    thin_attrs(env, thin, ts->origin_lv != NULL);   /* not for an external origin */
    char msg[64];
    if (ts->origin_lv)
        snprintf(msg, sizeof(msg), "create_snap %u %u", ts->device_id,
                 lvx_lv_thin_seg(origin)->device_id);
    else
        snprintf(msg, sizeof(msg), "create_thin %u", ts->device_id);
    *out = thin;
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    if (env->args->count[LVX_OPT_TEST])
        return 0;
    const char *msgs[1] = { msg };
    if (act->be->thin_message(env->ctx, pool, msgs, 1, ts->origin_lv) < 0) {
        lvx_cmd_errorf("Failed to send message to thin pool %s/%s: %s", vg->name, pool->name,
                       env->ctx->errmsg);
        lvx_error_clear(env->ctx);
        lvx_vg_remove_lv(vg, thin);
        ps->transaction_id--;
        if (lvx_lvcmd_commit(env, u) == 0)
            lvx_cmd_errorf("Aborting. Logical volume %s/%s was removed again.", vg->name, name);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static int activate_thin(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                         const struct lvx_lv *thin)
{
    int rc = lvx_actcmd_activate(env, act, thin);
    if (rc)
        lvx_cmd_errorf("Aborting. Failed to activate thin %s.", thin->name);
    return rc;
}

static int create_in_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct thin_opts *o,
                        const struct lvx_actcmd *act)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_lv *pool = NULL, *thin;
    int rc;
    const char *thin_name = NULL;
    if (!o->make_pool) {
        pool = lvx_vg_find_lv(vg, o->pool_name);
        if (!pool) {
            lvx_cmd_errorf("Pool %s not found in Volume group %s.", o->pool_name, vg->name);
            return LVX_EXIT_FAILED;
        }
        if (!lvx_lv_is_thin_pool(pool)) {
            lvx_cmd_errorf("Logical volume %s/%s is not a thin pool.", vg->name, pool->name);
            return LVX_EXIT_FAILED;
        }
    }
    if (o->make_thin) {
        thin_name = o->thin_name;      /* unnamed: lvolN once the new pool has its name */
        if ((thin_name && (rc = lvx_lvcmd_check_new_name(vg, thin_name))) ||
            (rc = lvx_thin_need_messages(act, vg, "thin LV")))
            return rc;
    }
    if (o->make_pool) {
        if (o->activate && act->be && !act->be->thin_message) {
            lvx_cmd_errorf("Cannot create thin pool %s/%s active: the %s activation backend "
                           "does not serve thin pools yet (use the dm backend, or -an).",
                           vg->name, o->pool_name ? o->pool_name : "lvol", act->be->name);
            return LVX_EXIT_FAILED;
        }
        if ((rc = make_pool(env, u, o, act->off, &pool)))
            return rc;
        /* a pool alone is left active as LVM2 leaves it; one for a thin LV comes up with it */
        if (!o->make_thin && o->activate && (rc = lvx_actcmd_activate(env, act, pool)))
            return rc;
        if (!o->make_thin) {
            lvx_notice(env->ctx, "Logical volume \"%s\" created.", pool->name);
            return 0;
        }
    }
    if (!thin_name)                    /* LVM2: pool lvol0 (and lvol0_pmspare), thin lvol1 */
        thin_name = lvx_thin_free_lv_name(env, vg, "");
    uint64_t e = vg->extent_size, le = (o->virtual_sectors + e - 1) / e;
    if (o->virtual_sectors % e && !o->make_pool)   /* else make_pool said it */
        lvx_notice(env->ctx, "Rounding up size to full physical extent %s",
                   lvx_lvcmd_size(env, le * e));
    if ((rc = lvx_lvcreate_thin_lv(env, u, act, pool, o->make_pool, thin_name, le, NULL, &thin)))
        return rc;
    lvx_thin_overprovisioning(env, pool);
    if (o->activate && (rc = activate_thin(env, act, thin)))
        return rc;
    /* a pool made with its first thin LV is left active too, as LVM2 leaves it */
    if (o->make_pool && o->activate && (rc = lvx_actcmd_activate(env, act, pool)))
        return rc;
    lvx_notice(env->ctx, "Logical volume \"%s\" created.", thin->name);
    return 0;
}

/* LVM2's "lvcreate --thin|--type thin LV_thin": a thin snapshot of the first argument
 * (no size, no -V, no --thinpool). */
static bool thin_snapshot_form(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    const char *type = a->value[LVX_OPT_TYPE];
    return (type ? !strcmp(type, "thin") : a->count[LVX_OPT_THIN] > 0) && a->argc > 0 &&
           !a->count[LVX_OPT_SIZE] && !a->count[LVX_OPT_EXTENTS] &&
           !a->count[LVX_OPT_VIRTUALSIZE] && !a->count[LVX_OPT_THINPOOL];
}

int lvx_lvcreate_name_arg(struct lvx_cmd_env *env, const char **vg, const char **name)
{
    const char *nvg, *nlv;
    int rc;
    *name = env->args->value[LVX_OPT_NAME];
    if (*name && strchr(*name, '/')) {
        if ((rc = split(env, *name, &nvg, &nlv)) || (rc = set_vg(vg, nvg)))
            return rc;
        *name = nlv;
    }
    return *name ? lvx_lvcmd_check_new_name(NULL, *name) : 0;
}

static int thin_snapshot_cmd(struct lvx_cmd_env *env)
{
    const char *vg = NULL, *origin = NULL, *name;
    int rc;
    if (!strchr(env->args->argv[0], '/')) {
        lvx_cmd_errorf("The origin name should include the volume group.");
        lvx_cmd_errorf("Run `lvcreate --help' for more information.");
        return LVX_EXIT_INVALID;
    }
    if ((rc = split(env, env->args->argv[0], &vg, &origin)) ||
        (rc = lvx_lvcreate_name_arg(env, &vg, &name)))
        return rc;
    struct lvx_vg_update u;
    if ((rc = lvx_lvcmd_begin(env, vg, &u)))
        return rc;
    struct lvx_lv *org = lvx_vg_find_lv(u.vg, origin);
    if (!org) {
        lvx_cmd_errorf("Snapshot origin LV %s not found in Volume group %s.", origin, vg);
        rc = LVX_EXIT_FAILED;
    } else if (!lvx_lv_is_thin(org)) {
        lvx_cmd_errorf("Logical volume %s/%s is not a thin volume. Thin snapshot supports "
                       "only thin origins.", vg, origin);
        rc = LVX_EXIT_FAILED;
    } else {
        rc = lvx_lvcreate_thin_snapshot(env, &u, NULL, org, name);
    }
    lvx_vg_update_end(&u);
    return rc;
}

int lvx_lvcreate_thin(struct lvx_cmd_env *env)
{
    struct thin_opts o;
    struct lvx_vg_update u;
    struct lvx_actcmd act;
    if (thin_snapshot_form(env))
        return thin_snapshot_cmd(env);
    memset(&o, 0, sizeof(o));
    int rc = names_args(env, &o);
    if (rc || (rc = pool_args(env, &o)))
        return rc;
    o.activate = lvx_lvcmd_wants_activation(env, true);
    if ((rc = o.activate ? lvx_actcmd_init_activating(env, &act) : lvx_actcmd_init(env, &act)))
        return rc;
    if (o.activate && !act.be && !act.off && !o.make_thin) {
        lvx_actcmd_print_why(&act);
        return lvx_lvcmd_refuse_activation();
    }
    if ((rc = lvx_lvcmd_begin(env, o.vg_name, &u)))
        return rc;
    rc = create_in_vg(env, &u, &o, &act);
    lvx_vg_update_end(&u);
    return rc;
}

/* global/thin_disabled_features lists name? */
static bool thin_feature_disabled(struct lvx_cmd_env *env, const char *name)
{
    struct lvx_config *cfg = NULL;
    bool off = false;
    if (lvx_config_load(env->ctx, &cfg) < 0)
        lvx_error_clear(env->ctx);
    const struct lvx_cfg_node *n = lvx_config_node(cfg, "global/thin_disabled_features");
    for (const struct lvx_cfg_node *e = n && n->kind == LVX_CFG_ARRAY ? n->child : NULL; e;
         e = e->next)
        off = off || (e->kind == LVX_CFG_STRING && !strcmp(e->str, name));
    lvx_config_free(cfg);
    return off;
}

bool lvx_thin_external_extend_ok(struct lvx_cmd_env *env, const struct lvx_actcmd *act)
{
    return !act->off && !thin_feature_disabled(env, "external_origin_extend");
}

int lvx_thin_external_fits(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                           const struct lvx_lv *pool, const struct lvx_lv *lv)
{
    uint64_t csize = lvx_lv_thin_pool_seg(pool)->chunk_size;
    uint64_t size = lv->le_count * (uint64_t)lv->vg->extent_size;
    if ((size >= csize && size % csize == 0) ||
        (!act->off && !thin_feature_disabled(env, "external_origin_extend")))
        return 0;
    lvx_cmd_errorf("Can't use \"%s/%s\" as external origin with \"%s/%s\" pool. Size %s is not "
                   "a multiple of pool's chunk size %s.", lv->vg->name, lv->name, pool->vg->name,
                   pool->name, lvx_lvcmd_size(env, size), lvx_lvcmd_size(env, csize));
    return LVX_EXIT_FAILED;
}

/* LVM2's checks of an LV about to become an external origin (lv_manip.c
 * _lv_create_an_lv): read-only and inactive (or an external origin already). */
static int external_usable(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                           const struct lvx_lv *origin)
{
    if (origin->status & LVX_LV_WRITE) {
        lvx_cmd_errorf("Cannot use writable LV as the external origin.");
        return LVX_EXIT_FAILED;
    }
    if (!lvx_lv_is_external_origin(origin) && !act->off &&
        lvx_actcmd_is_active(env, act, origin, NULL)) {
        lvx_cmd_errorf("Cannot use active LV for the external origin.");
        return LVX_EXIT_FAILED;
    }
    return 0;
}

int lvx_lvcreate_thin_snapshot(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                               struct lvx_lv *pool, struct lvx_lv *origin, const char *name)
{
    struct lvx_actcmd act;
    struct lvx_vg *vg = u->vg;
    struct lvx_lv *snap;
    bool activate = lvx_lvcmd_wants_activation(env, true);
    int rc = activate ? lvx_actcmd_init_activating(env, &act) : lvx_actcmd_init(env, &act);
    if (rc)
        return rc;
    if (!pool)
        pool = lvx_lv_thin_seg(origin)->pool_lv;
    const struct lvx_seg *os = lvx_lv_thin_seg(origin);
    bool external = !os || os->pool_lv != pool;
    const char *n = name ? name : external ? lvx_thin_next_lv_name(env, vg)
                                           : lvx_thin_free_lv_name(env, vg, "");
    if ((rc = lvx_lvcmd_check_new_name(vg, n)) ||
        (rc = lvx_thin_need_messages(&act, vg, external ? "thin LV" : "thin snapshot")) ||
        (external && (rc = lvx_thin_external_fits(env, &act, pool, origin))) ||
        (external && (rc = external_usable(env, &act, origin))))
        return rc;
    /* a new pool active under its own name: LVM2 sends the message by reloading it, and
     * the used pool keeps no device of its own then (only its -tpool) */
    bool new_up = external && act.be == &lvx_activation_dm && activate &&
                  !lvx_lv_thin_pool_seg(pool)->transaction_id &&
                  lvx_actcmd_is_active(env, &act, pool, NULL);
    if ((rc = lvx_lvcreate_thin_lv(env, u, &act, pool, false, n, origin->le_count, origin, &snap)))
        return rc;
    bool skip = (snap->flags & LVX_LVF_ACTIVATION_SKIP) != 0;
    lvx_thin_overprovisioning(env, pool);
    bool k = env->args->count[LVX_OPT_IGNOREACTIVATIONSKIP] > 0;
    if (activate && (!skip || k) && (rc = activate_thin(env, &act, snap)))
        return rc;
    if (new_up && lvx_actcmd_deactivate(env, &act, pool, false))
        return LVX_EXIT_FAILED;
    lvx_notice(env->ctx, "Logical volume \"%s\" created.", snap->name);
    return 0;
}
