/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcreate_raid.c - RAID LVs for lvcreate (cmd/lvcreate_raid.h).
 *
 * Options follow LVM2 2.03.16's lvcreate: --type raid0|raid0_meta|raid1|raid10|raid4|
 * raid5[_ls|_la|_rs|_ra|_n]|raid6[_zr|_nr|_nc|_n_6]; -m without --type is raid1 (raid10
 * with -i > 1; mirror when lvm.conf's global/mirror_segtype_default says so); default
 * stripes 2 (raid6: 3), stripe size 64 KiB, region size 2 MiB
 * (reduced to the LV size, raised until the LV has at most 2^21 regions, never below
 * the stripe size); --nosync refused for raid6; recovery rates in KiB/s.
 *
 * Layout, as LVM2's allocator does it for RAID ("alloc_and_split_meta"): every image
 * gets one area holding its rmeta extents followed by its rimage extents, all images
 * on different PVs; the area is split, rmeta first.  Sub-LVs are created in LVM2's
 * order (rimage_0, rmeta_0, rimage_1, ...), READ/WRITE and hidden, with the LV's
 * allocation policy; the rmeta sub-LVs carry the LV's tags (LVM2 copies them so that
 * they can be activated for wiping).  The segment carries typed fields only (image
 * count, data_copies for raid10, region and stripe size, recovery rates, the sub-LVs);
 * format/vg_export.c writes its section as LVM2 does.  --nosync sets NOTSYNCED on the LV.
 */
#include "cmd/lvcreate_raid.h"

#include "config/config.h"
#include "model/pvmove.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define DEFAULT_STRIPE_SIZE 128u    /* sectors: 64 KiB */
#define ZERO_BYTES 4096u

static bool is_raid1(const struct lvx_raid_type *t)
{
    return !strcmp(t->name, "raid1");
}

static bool is_raid10(const struct lvx_raid_type *t)
{
    return !strcmp(t->name, "raid10");
}

/* The segment type asked for: --type, or -m's default (raid1, raid10 with -i > 1). */
static int pick_type(struct lvx_cmd_env *env, const struct lvx_raid_type **out)
{
    const struct lvx_cmd_args *a = env->args;
    const char *type = a->value[LVX_OPT_TYPE];
    *out = NULL;
    if (type && strncmp(type, "raid", 4) != 0) {
        if (a->count[LVX_OPT_MIRRORS] && a->val[LVX_OPT_MIRRORS].n > 0) {
            lvx_cmd_errorf("--mirrors is supported only with mirrors or raids");
            return LVX_EXIT_INVALID;
        }
        return 0;
    }
    if (!type) {
        if (!a->count[LVX_OPT_MIRRORS] || a->val[LVX_OPT_MIRRORS].n == 0)
            return 0;
        type = a->count[LVX_OPT_STRIPES] && a->val[LVX_OPT_STRIPES].n > 1 ? "raid10" : "raid1";
    }
    if (!(*out = lvx_raid_type_find(type))) {
        lvx_cmd_errorf("lvx lvcreate does not know segment type %s.", type);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static int mirrors_arg(struct lvx_cmd_env *env, struct lvx_raid_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    const struct lvx_raid_type *t = o->type;
    if (!a->count[LVX_OPT_MIRRORS]) {
        o->mirrors = t->mirrored ? 2 : 1;
        return 0;
    }
    uint64_t m = a->val[LVX_OPT_MIRRORS].n + 1;
    if (!t->mirrored) {
        lvx_cmd_errorf("Mirror argument cannot be used with segment type, %s", t->name);
        return LVX_EXIT_INVALID;
    }
    if (m > 2 && is_raid10(t)) {
        lvx_cmd_errorf("RAID10 currently supports only 2-way mirroring (i.e. '-m 1')");
        return LVX_EXIT_INVALID;
    }
    if (m == 1) {
        lvx_cmd_errorf("--mirrors must be at least 1 with segment type %s.", t->name);
        return LVX_EXIT_INVALID;
    }
    if (m > LVX_RAID1_MAX_IMAGES) {
        lvx_cmd_errorf("Only up to %u mirrors in %s supported currently.", LVX_RAID1_MAX_IMAGES,
                       t->name);
        return LVX_EXIT_INVALID;
    }
    o->mirrors = (uint32_t)m;
    return 0;
}

/* LVM2's get_stripe_params and _read_raid_params for the raid types. */
static int stripes_arg(struct lvx_cmd_env *env, struct lvx_raid_opts *o)
{
    const struct lvx_raid_type *t = o->type;
    uint32_t stripes, ss;
    int rc = lvx_lvcmd_stripe_args(env, &stripes, &ss);
    if (rc)
        return rc;
    bool supplied = stripes != 0;
    if (!supplied)
        stripes = is_raid1(t) ? 1 : t->parity == 2 ? 3 : 2;
    if (is_raid1(t)) {
        if (ss)
            lvx_notice(env->ctx, "Ignoring stripesize argument for %s devices.", t->name);
        ss = 0;
        if (stripes > 1) {
            lvx_cmd_errorf("Stripes argument cannot be used with segment type, %s", t->name);
            return LVX_EXIT_INVALID;
        }
    } else if (stripes > 1 && !ss) {
        ss = DEFAULT_STRIPE_SIZE;
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, ss));
    }
    unsigned min = is_raid1(t) ? 1 : t->parity == 2 ? 3 : 2;
    if (stripes < min) {
        lvx_cmd_errorf("Minimum of %u stripes required for %s.", min, t->name);
        return LVX_EXIT_INVALID;
    }
    unsigned max = LVX_RAID_MAX_IMAGES - t->parity;
    if (!t->mirrored && stripes > max) {
        lvx_cmd_errorf("Only up to %u stripes in %s supported currently.", max, t->name);
        return LVX_EXIT_INVALID;
    }
    o->stripes = stripes;
    o->stripe_size = ss;
    return 0;
}

uint32_t lvx_raid_default_region(struct lvx_cmd_env *env)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0) {
        lvx_error_clear(env->ctx);
        return LVX_RAID_DEFAULT_REGION;
    }
    /* KiB; the old mirror_region_size counts only where raid_region_size is 0 */
    int64_t mrs = 2 * lvx_config_int(cfg, "activation/mirror_region_size", 2048);
    int64_t rrs = 2 * lvx_config_int(cfg, "activation/raid_region_size", 2048);
    lvx_config_free(cfg);
    int64_t r = rrs ? rrs : mrs ? mrs : LVX_RAID_DEFAULT_REGION;
    if (r <= 0 || r > INT32_MAX)
        r = LVX_RAID_DEFAULT_REGION;
    if (r & (r - 1)) {              /* rounded down to a power of 2 */
        int64_t p = 1;
        while (p * 2 <= r)
            p *= 2;
        lvx_info(env->ctx, "Reducing region size to %lld kiB (power of 2).",
                    (long long)(p / 2));
        r = p;
    }
    if (r % 8) {                    /* a multiple of the page size */
        r = LVX_RAID_DEFAULT_REGION;
        lvx_info(env->ctx, "Using default region size %u kiB (multiple of page size).",
                    LVX_RAID_DEFAULT_REGION / 2);
    }
    return (uint32_t)r;
}

int lvx_raid_region_arg(struct lvx_cmd_env *env, uint32_t *out, bool *given)
{
    const struct lvx_cmd_args *a = env->args;
    *out = lvx_raid_default_region(env);
    *given = a->count[LVX_OPT_REGIONSIZE] > 0;
    if (*given) {      /* LVM2's regionsize_mb_arg */
        uint64_t r = a->val[LVX_OPT_REGIONSIZE].sectors;
        const char *why = r > UINT32_MAX ? "Region size is too big (max 4294967295)."
                        : r == 0 ? "Region size may not be zero."
                        : r % 8 ? "Region size must be a multiple of machine memory page size "
                                  "(4096 bytes)."
                        : (r & (r - 1)) ? "Region size must be a power of 2." : NULL;
        if (why) {          /* LVM2's three lines */
            lvx_cmd_errorf("%s", why);
            lvx_cmd_errorf("Invalid argument for --regionsize: %s", a->value[LVX_OPT_REGIONSIZE]);
            lvx_cmd_errorf("Error during parsing of command line.");
            return LVX_EXIT_INVALID;
        }
        *out = (uint32_t)r;
    }
    return 0;
}

static int rates_and_region(struct lvx_cmd_env *env, struct lvx_raid_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    const struct lvx_raid_type *t = o->type;
    bool given;
    int rc = lvx_raid_region_arg(env, &o->region_size, &given);
    if (rc)
        return rc;
    if (t->raid0) {
        o->region_size = 0;
        return 0;
    }
    o->min_rate = (uint32_t)(a->val[LVX_OPT_MINRECOVERYRATE].sectors / 2);
    o->max_rate = (uint32_t)(a->val[LVX_OPT_MAXRECOVERYRATE].sectors / 2);
    if (o->min_rate > o->max_rate) {
        lvx_cmd_errorf("Minimum recovery rate cannot be higher than maximum.");
        return LVX_EXIT_INVALID;
    }
    if (o->region_size < o->stripe_size) {
        lvx_notice(env->ctx, "Adjusting %s %s region size to required minimum of stripe size %s.",
                   t->name, lvx_lvcmd_size(env, o->region_size),
                   lvx_lvcmd_size(env, o->stripe_size));
        o->region_size = o->stripe_size;
    }
    return 0;
}

bool lvx_raid_default_is_mirror(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    if (a->count[LVX_OPT_STRIPES] && a->val[LVX_OPT_STRIPES].n > 1)
        return false;
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0) {
        lvx_error_clear(env->ctx);
        return false;
    }
    bool mirror = !strcmp(lvx_config_str(cfg, "global/mirror_segtype_default", "raid1"), "mirror");
    lvx_config_free(cfg);
    return mirror;
}

int lvx_lvcreate_raid_args(struct lvx_cmd_env *env, struct lvx_raid_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    int rc;
    memset(o, 0, sizeof(*o));
    const char *type = a->value[LVX_OPT_TYPE];
    bool m = a->count[LVX_OPT_MIRRORS] && a->val[LVX_OPT_MIRRORS].n > 0;
    if ((type && !strcmp(type, "mirror")) || (!type && m && lvx_raid_default_is_mirror(env)))
        return lvx_lvcreate_mirror_args(env, o);
    for (int k = 0; k < 2; k++) {
        enum lvx_opt_id id = k ? LVX_OPT_CORELOG : LVX_OPT_MIRRORLOG;
        if (a->count[id] && !type && m) {   /* -m of the default raid1 */
            lvx_cmd_errorf("--%s is supported only with mirrors.", k ? "corelog" : "mirrorlog");
            return LVX_EXIT_INVALID;
        }
        if (a->count[id]) {     /* mirror options only */
            lvx_cmd_errorf("Command does not accept option: --mirrorlog%s%s.", k ? "" : " ",
                           k ? "" : a->value[id]);     /* LVM2 names --corelog so too */
            return LVX_EXIT_INVALID;
        }
    }
    if ((rc = pick_type(env, &o->type)))
        return rc;
    if (!o->type) {             /* -m 0 of a linear/striped LV: LVM2's note */
        if (a->count[LVX_OPT_MIRRORS] && a->val[LVX_OPT_MIRRORS].n == 0)
            lvx_notice(env->ctx, "Redundant mirrors argument: default is 0");
        return 0;
    }
    if ((rc = stripes_arg(env, o)) || (rc = mirrors_arg(env, o)))
        return rc;
    if (is_raid10(o->type) && o->stripes * o->mirrors > LVX_RAID_MAX_IMAGES) {
        lvx_cmd_errorf("Only up to %u stripes in %s supported currently.",
                       LVX_RAID_MAX_IMAGES / o->mirrors, o->type->name);
        return LVX_EXIT_INVALID;
    }
    o->nosync = a->count[LVX_OPT_NOSYNC] > 0;
    if (o->nosync && o->type->parity == 2) {
        lvx_cmd_errorf("nosync option prohibited on RAID6.");
        return LVX_EXIT_INVALID;
    }
    if (o->nosync && o->type->raid0)
        o->nosync = false;
    return rates_and_region(env, o);
}

int lvx_raid_stripe_all_devices(struct lvx_cmd_env *env, struct lvx_raid_opts *o, unsigned devs)
{
    const struct lvx_raid_type *t = o->type;
    if (env->args->count[LVX_OPT_STRIPES] || is_raid1(t) || lvx_raid_opts_mirror(o))
        return 0;
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0) {
        lvx_error_clear(env->ctx);
        return 0;
    }
    bool all = lvx_config_int(cfg, "allocation/raid_stripe_all_devices", 0) != 0;
    lvx_config_free(cfg);
    if (!all)
        return 0;
    if (is_raid10(t)) {
        if (devs / o->mirrors < 2) {
            lvx_cmd_errorf("Unable to create RAID(1)0 LV: insufficient number of devices.");
            return LVX_EXIT_FAILED;
        }
        o->stripes = devs / o->mirrors;
        return 0;
    }
    o->stripes = devs > 2 * t->parity ? devs - t->parity : devs;
    if (t->raid0 && o->stripes < 2) {
        lvx_cmd_errorf("Segment type 'raid0' requires 2 or more stripes.");
        return LVX_EXIT_FAILED;
    }
    if (!t->raid0 && o->stripes <= t->parity) {
        lvx_cmd_errorf("Number of stripes must be at least %u for %s", t->parity + 1, t->name);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* ---- building ---------------------------------------------------------------------- */

struct lvx_lv *lvx_raid_new_sub(struct lvx_vg *vg, const struct lvx_lv *top, const char *kind,
                                uint32_t i, bool tags)
{
    struct lvx_lv *lv = lvx_vg_add_lv(vg);
    lv->name = lvx_pool_printf(vg->pool, "%s_%s_%u", top->name, kind, i);
    lvx_uuid_generate(lv->uuid);
    lv->status = LVX_LV_READ | LVX_LV_WRITE;
    lv->has_creation = true;
    lv->creation_time = top->creation_time;
    lv->creation_host = top->creation_host;
    lv->alloc = top->alloc;
    if (tags)
        for (unsigned t = 0; t < top->tags.n; t++)
            lvx_strlist_add(vg->pool, &lv->tags, top->tags.v[t]);
    return lv;
}

struct lvx_seg *lvx_raid_new_seg(struct lvx_vg *vg, struct lvx_lv *lv, const char *type,
                                 enum lvx_seg_kind kind, uint64_t extents, uint32_t images,
                                 struct lvx_lv *const *img, const struct lvx_raid_opts *o)
{
    lv->segs = lvx_pool_alloc(vg->pool, sizeof(*lv->segs));
    lv->seg_count = 1;
    struct lvx_seg *seg = &lv->segs[0];
    memset(seg, 0, sizeof(*seg));
    seg->lv = lv;
    seg->extent_count = extents;
    seg->type = seg->type_name = lvx_pool_strdup(vg->pool, type);
    seg->kind = kind;
    seg->stripe_count = images;
    seg->region_size = o->region_size;
    seg->area_count = images;
    seg->areas = lvx_pool_alloc(vg->pool, images * sizeof(*seg->areas));
    for (uint32_t i = 0; i < images; i++) {
        memset(&seg->areas[i], 0, sizeof(seg->areas[i]));
        seg->areas[i].lv = img[i];
    }
    lv->le_count = extents;
    if (o->nosync)
        lv->status |= LVX_LV_NOTSYNCED;
    return seg;
}

/* Append `len` extents at PV pe `start` to a linear sub-LV. */
static int append_run(struct lvx_cmd_env *env, struct lvx_lv *lv, struct lvx_pv *pv,
                      uint64_t start, uint64_t len)
{
    struct lvx_alloc_area area = { pv, start };
    struct lvx_alloc_seg seg = { lv->le_count, len, 1, 0, &area };
    struct lvx_alloc_result res = { 1, &seg };
    return lvx_alloc_append(env->ctx, lv, &res);
}

/* Region size rules applied at creation (LVM2: adjusted_mirror_region_size, then
 * raid_ensure_min_region_size). */
void lvx_raid_reduce_region(struct lvx_cmd_env *env, struct lvx_raid_opts *o, uint64_t sectors)
{
    if (sectors < UINT32_MAX && o->region_size > sectors) {
        o->region_size = lvx_pvmove_region(o->region_size, sectors);
        lvx_notice(env->ctx, "Using reduced mirror region size of %s",
                   lvx_lvcmd_size(env, o->region_size));
    }
}

static void final_region_size(struct lvx_cmd_env *env, struct lvx_raid_opts *o,
                              uint32_t extent_size, uint64_t extents)
{
    if (o->type->raid0)
        return;
    uint64_t max = extents * extent_size;
    lvx_raid_reduce_region(env, o, max);
    o->region_size = lvx_raid_min_region_size(max, o->region_size);
}

int lvx_raid_alloc_parallel(struct lvx_cmd_env *env, struct lvx_free_maps *maps,
                            const char *lv_name, uint32_t areas, uint64_t area_ext,
                            uint32_t stripe_size, enum lvx_alloc policy,
                            const struct lvx_alloc_pv *pvs, unsigned pv_count,
                            struct lvx_alloc_result *res)
{
    struct lvx_alloc_request req = {
        .extents = (uint64_t)areas * area_ext,
        .stripes = areas,
        .stripe_size = stripe_size ? stripe_size : 8,   /* 8: unused, the areas linear */
        .policy = policy,
        .pv_count = pv_count,
        .pvs = pvs,
        .lv_name = lv_name,
    };
    return lvx_alloc_extents(env->ctx, env->pool, maps, &req, res);
}

int lvx_raid_alloc_images(struct lvx_cmd_env *env, struct lvx_free_maps *maps,
                          const char *lv_name, uint32_t count, uint64_t image_ext,
                          uint32_t meta_ext, enum lvx_alloc policy, const struct lvx_alloc_pv *pvs,
                          unsigned pv_count, struct lvx_lv **img, struct lvx_lv **meta)
{
    struct lvx_alloc_result res;
    int r = lvx_raid_alloc_parallel(env, maps, lv_name, count, image_ext + meta_ext, 0, policy,
                                    pvs, pv_count, &res);
    if (r < 0)
        return r;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t meta_left = meta ? meta_ext : 0;
        for (unsigned s = 0; s < res.seg_count; s++) {
            const struct lvx_alloc_seg *as = &res.segs[s];
            uint64_t len = as->extent_count / as->stripe_count, start = as->areas[i].start;
            uint64_t m = meta_left < len ? meta_left : len;
            if (m && (r = append_run(env, meta[i], as->areas[i].pv, start, m)) < 0)
                return r;
            meta_left -= m;
            if (len > m && (r = append_run(env, img[i], as->areas[i].pv, start + m, len - m)) < 0)
                return r;
        }
    }
    return 0;
}

/* Can `images` images of image_ext extents (and their rmeta) be placed?  Tried on
 * fresh maps of the VG (a successful allocation takes from the maps it is given). */
static bool images_fit(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                       const struct lvx_raid_opts *o, uint32_t images, uint64_t image_ext,
                       enum lvx_alloc policy, const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    uint32_t meta_ext = o->type->meta ? lvx_raid_rmeta_extents(image_ext, o->region_size,
                                                               vg->extent_size) : 0;
    struct lvx_alloc_request req = {
        .extents = (uint64_t)images * (image_ext + meta_ext),
        .stripes = images,
        .stripe_size = 8,
        .policy = policy,
        .pv_count = pv_count,
        .pvs = pvs,
        .lv_name = "",
    };
    struct lvx_ctx probe = *env->ctx;
    struct lvx_free_maps *fresh;
    struct lvx_alloc_result res;
    return lvx_alloc_free_maps(&probe, env->pool, vg, &fresh) == 0 &&
           lvx_alloc_extents(&probe, env->pool, fresh, &req, &res) == 0;
}

/* A percentage size (LVM2's approximate allocation): the largest image size below
 * image_ext whose images fit, as LV extents; 0 when none does. */
static uint64_t approx_extents(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                               const struct lvx_raid_opts *o, uint32_t images, uint32_t copies,
                               uint64_t image_ext, enum lvx_alloc policy,
                               const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    uint64_t ok = 0, bad = image_ext;
    while (bad - ok > 1) {
        uint64_t mid = ok + (bad - ok) / 2;
        if (images_fit(env, vg, o, images, mid, policy, pvs, pv_count))
            ok = mid;
        else
            bad = mid;
    }
    const struct lvx_raid_type *t = o->type;
    return is_raid1(t) ? ok : t->mirrored ? ok * images / copies : ok * (images - t->parity);
}

int lvx_lvcreate_raid_build(struct lvx_cmd_env *env, struct lvx_vg *vg,
                            struct lvx_free_maps *maps, struct lvx_raid_opts *o,
                            struct lvx_lv *lv, uint64_t extents, enum lvx_alloc policy,
                            const struct lvx_alloc_pv *pvs, unsigned pv_count, bool approx)
{
    const struct lvx_raid_type *t = o->type;
    uint32_t images = lvx_raid_images(t, o->stripes, o->mirrors);
    uint32_t copies = is_raid10(t) ? o->mirrors : 0;
    uint64_t image_ext = lvx_raid_image_extents(t, extents, images, copies);
    if (approx && !images_fit(env, vg, o, images, image_ext, policy, pvs, pv_count)) {
        uint64_t fit = approx_extents(env, vg, o, images, copies, image_ext, policy, pvs,
                                      pv_count);
        if (fit) {
            extents = fit;
            image_ext = lvx_raid_image_extents(t, extents, images, copies);
        }
    }
    final_region_size(env, o, vg->extent_size, extents);
    uint32_t meta_ext = t->meta ? lvx_raid_rmeta_extents(image_ext, o->region_size,
                                                         vg->extent_size) : 0;

    struct lvx_lv **img = lvx_pool_alloc(env->pool, images * sizeof(*img));
    struct lvx_lv **meta = lvx_pool_alloc(env->pool, images * sizeof(*meta));
    for (uint32_t i = 0; i < images; i++) {
        img[i] = lvx_raid_new_sub(vg, lv, "rimage", i, false);
        meta[i] = t->meta ? lvx_raid_new_sub(vg, lv, "rmeta", i, true) : NULL;
    }
    int r = lvx_raid_alloc_images(env, maps, lv->name, images, image_ext, meta_ext, policy, pvs,
                                  pv_count, img, meta);
    if (r < 0)
        return r;

    struct lvx_seg *seg = lvx_raid_new_seg(vg, lv, t->name, LVX_SEG_RAID, extents, images, img,
                                           o);
    seg->stripe_size = o->stripe_size;
    seg->data_copies = copies;
    seg->min_recovery_rate = o->min_rate;
    seg->max_recovery_rate = o->max_rate;
    seg->meta_areas = t->meta ? lvx_pool_alloc(vg->pool, images * sizeof(*seg->meta_areas)) : NULL;
    for (uint32_t i = 0; seg->meta_areas && i < images; i++)
        seg->meta_areas[i].lv = meta[i];
    return 0;
}

int lvx_lvcreate_raid_zero(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                           const struct lvx_lv *lv, bool zero_data)
{
    const struct lvx_seg *seg = &lv->segs[0];
    int r;
    for (uint32_t i = 0; i < seg->area_count; i++) {
        if (seg->meta_areas && (r = lvx_lvcmd_zero_start(env, u, seg->meta_areas[i].lv,
                                                         ZERO_BYTES)) < 0)
            return r;
        if (zero_data && (r = lvx_lvcmd_zero_start(env, u, seg->areas[i].lv, ZERO_BYTES)) < 0)
            return r;
    }
    return 0;
}
