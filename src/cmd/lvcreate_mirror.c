/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcreate_mirror.c - `lvcreate --type mirror` (the old dm-mirror segment type)
 * for lvcreate, next to the RAID code it shares its option record with
 * (cmd/lvcreate_raid.h).
 *
 * Options as LVM2 2.03.16 takes them: -m N (N+1 images, default 1; at least 1, at
 * most 7), --mirrorlog disk|core|mirrored ("mirrored" only under
 * global/support_mirrored_mirror_log = 1, else refused as deprecated, exit 5, after the
 * activation check as LVM2; built by cmd/mirror_mlog.c),
 * --corelog (= core), -R/--regionsize (LVM2's checks and default, shared with RAID),
 * --nosync (NOTSYNCED on the LV: the kernel table says "nosync"), -i N [-I S]: a
 * striped mirror, each image one striped segment of N areas (the size rounded up to
 * a multiple of N, as a striped LV's).  With activation disabled in lvm.conf,
 * LVM2 refuses to create a mirror; lvcreate.c does the same.
 *
 * Layout, as observed with LVM2 in the VM (tests/kernel/mirror.sh): the images are
 * linear sub-LVs NAME_mimage_K placed as RAID images are (one area per image, on
 * distinct PVs); the disk log NAME_mlog (1 extent for any LV lvx can make with 4 MiB
 * extents) is allocated after them, as LVM2's lvcreate adds it (add_mirror_log, the
 * same as lvconvert --mirrorlog disk): on the last PV of the list without an image
 * when there is one, else on the PV of the last image (also under --alloc anywhere;
 * never with lvm.conf's allocation/mirror_logs_require_separate_pvs = 1), at the start
 * of the smallest free area there (t1095 compares with LVM2's).  Sub-LVs are
 * READ/WRITE, hidden, with the LV's creation time/host and allocation policy, no tags;
 * the LV lists them in that order (images, then the log).  The region size is reduced to the largest
 * power of 2 not above the LV size ("Using reduced mirror region size of ...").  A
 * percentage size (-l 100%FREE) is LVM2's approximate allocation: the largest images
 * that fit with their log (3 PVs in the guest: a whole PV per image, the log on the
 * third; 2 PVs: one extent less, the log after the second image).
 */
#include "cmd/lvcreate_raid.h"
#include "cmd/mirror_mlog.h"

#include "config/config.h"
#include "model/pvmove.h"

#include <errno.h>
#include <string.h>

#define MIRROR_MAX_IMAGES 8u
#define LOG_ZERO_BYTES 4096u
#define DEFAULT_STRIPE_SIZE 128u    /* sectors: 64 KiB */

static const struct lvx_raid_type mirror_type = { "mirror", "mirror", 0, true, false, false };

bool lvx_raid_opts_mirror(const struct lvx_raid_opts *o)
{
    return o->type == &mirror_type;
}

static int log_arg(struct lvx_cmd_env *env, struct lvx_raid_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    o->core_log = a->count[LVX_OPT_CORELOG] > 0;
    if (!a->count[LVX_OPT_MIRRORLOG])
        return 0;
    const char *v = a->value[LVX_OPT_MIRRORLOG];
    if (!strcmp(v, "core")) {
        o->core_log = true;
    } else if (!strcmp(v, "mirrored")) {
        o->mirrored_log = true;         /* gated in lvx_lvcreate_mirror_build */
    } else if (strcmp(v, "disk") != 0) {
        lvx_cmd_errorf("Mirror log type \"%s\" is unknown.", v);
        lvx_cmd_errorf("Invalid argument for --mirrorlog: %s", v);
        lvx_cmd_errorf("Error during parsing of command line.");
        return LVX_EXIT_INVALID;
    }
    return 0;
}

int lvx_lvcreate_mirror_args(struct lvx_cmd_env *env, struct lvx_raid_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    int rc;
    o->type = &mirror_type;
    o->mirrors = 2;
    if (a->count[LVX_OPT_MIRRORS]) {
        uint64_t m = a->val[LVX_OPT_MIRRORS].n + 1;
        if (m == 1) {
            lvx_cmd_errorf("--mirrors must be at least 1 with segment type mirror.");
            return LVX_EXIT_INVALID;
        }
        if (m > MIRROR_MAX_IMAGES) {
            lvx_cmd_errorf("Only up to %u images in mirror supported currently.",
                           MIRROR_MAX_IMAGES);
            return LVX_EXIT_INVALID;
        }
        o->mirrors = (uint32_t)m;
    }
    uint32_t stripes, ss;
    if ((rc = lvx_lvcmd_stripe_args(env, &stripes, &ss)))
        return rc;
    if (stripes <= 1) {
        if (stripes == 1 && ss)
            lvx_notice(env->ctx, "Ignoring stripesize argument with single stripe.");
        stripes = 1;
        ss = 0;
    } else if (!ss) {
        ss = DEFAULT_STRIPE_SIZE;
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, ss));
    }
    o->stripes = stripes;           /* each image striped (LVM2's striped mirror) */
    o->stripe_size = ss;
    if ((rc = log_arg(env, o)))
        return rc;
    bool given;
    if ((rc = lvx_raid_region_arg(env, &o->region_size, &given)))
        return rc;
    o->nosync = a->count[LVX_OPT_NOSYNC] > 0;
    return 0;
}

uint32_t lvx_mirror_log_extents(uint64_t lv_sectors, uint32_t region_size, uint32_t extent_size)
{
    uint64_t regions = (lv_sectors + region_size - 1) / region_size;
    uint64_t sectors = (1024 + (regions + 7) / 8 + 511) / 512;
    return (uint32_t)((sectors + extent_size - 1) / extent_size);
}

static bool holds_image(struct lvx_lv *const *img, uint32_t count, const struct lvx_pv *pv)
{
    for (uint32_t i = 0; i < count; i++)
        for (unsigned s = 0; s < img[i]->seg_count; s++)
            for (uint32_t a = 0; img[i]->segs[s].areas && a < img[i]->segs[s].area_count; a++)
                if (img[i]->segs[s].areas[a].pv == pv)
                    return true;
    return false;
}

int lvx_mirror_alloc_images(struct lvx_cmd_env *env, struct lvx_free_maps *maps,
                            const char *lv_name, uint32_t count, uint32_t stripes,
                            uint32_t stripe_size, uint64_t image_ext, enum lvx_alloc policy,
                            const struct lvx_alloc_pv *pvs, unsigned pv_count,
                            struct lvx_lv **img)
{
    if (stripes <= 1)
        return lvx_raid_alloc_images(env, maps, lv_name, count, image_ext, 0, policy, pvs,
                                     pv_count, img, NULL);
    struct lvx_alloc_result res;
    int r = lvx_raid_alloc_parallel(env, maps, lv_name, count * stripes, image_ext / stripes,
                                    stripe_size, policy, pvs, pv_count, &res);
    if (r < 0)
        return r;
    for (uint32_t i = 0; i < count; i++)
        for (unsigned s = 0; s < res.seg_count; s++) {
            const struct lvx_alloc_seg *as = &res.segs[s];
            uint64_t per = as->extent_count / as->stripe_count;
            struct lvx_alloc_seg one = { img[i]->le_count, per * stripes, stripes, stripe_size,
                                         &as->areas[i * stripes] };
            struct lvx_alloc_result part = { 1, &one };
            if ((r = lvx_alloc_append(env->ctx, img[i], &part)) < 0)
                return r;
        }
    return 0;
}

bool lvx_mirror_conf_on(struct lvx_cmd_env *env, const char *path)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0) {
        lvx_error_clear(env->ctx);
        return false;
    }
    bool on = lvx_config_int(cfg, path, 0) != 0;
    lvx_config_free(cfg);
    return on;
}

/* lvm.conf allocation/mirror_logs_require_separate_pvs (LVM2's default 0). */
static bool separate_log_pvs(struct lvx_cmd_env *env)
{
    return lvx_mirror_conf_on(env, "allocation/mirror_logs_require_separate_pvs");
}

/* Where LVM2 puts a log: every candidate PV offers its smallest free area holding
 * `need` (the image size when LVM2 allocates the log together with images, as
 * lvconvert of a linear LV does; else the log's own size: lvcreate adds the log after
 * the images, as --mirrorlog disk of a mirror does), the highest such area on a tie
 * (LVM2 keeps equal areas in PE order and takes the last).
 * LVM2 asks each of them for `need` extents only, sorts these (equal) amounts largest
 * first and puts the log on the last that holds it: the last candidate, at the start of
 * its area.  *out is that PV with a range of ext extents there.  False when no area
 * holds `need`. */
static bool log_area(const struct lvx_free_maps *maps, const struct lvx_alloc_pv *c, unsigned n,
                     uint64_t need, uint32_t ext, struct lvx_alloc_pv *out,
                     struct lvx_pe_run *run)
{
    bool found = false;
    for (unsigned i = 0; i < n; i++) {
        const struct lvx_pv_free *f = &maps->pvs[c[i].pv->index];
        uint64_t fit = 0, fit_start = 0;
        for (unsigned r = 0; f->usable && r < f->run_count; r++) {
            uint64_t s0 = f->runs[r].start, e0 = s0 + f->runs[r].count;
            for (unsigned g = 0; g < (c[i].range_count ? c[i].range_count : 1); g++) {
                uint64_t s = s0, e = e0;
                if (c[i].range_count) {       /* inside the PV's ranges only */
                    const struct lvx_pe_run *pr = &c[i].ranges[g];
                    s = s > pr->start ? s : pr->start;
                    e = e < pr->start + pr->count ? e : pr->start + pr->count;
                }
                if (e > s && e - s >= need && (!fit || e - s <= fit)) {
                    fit = e - s;
                    fit_start = s;
                }
            }
        }
        if (fit) {                      /* the later candidate wins */
            found = true;
            *run = (struct lvx_pe_run){ fit_start, ext };
            *out = (struct lvx_alloc_pv){ c[i].pv, 1, run };
        }
    }
    return found;
}

uint64_t lvx_mirror_log_offer(const struct lvx_free_maps *maps, const struct lvx_alloc_pv *c,
                              uint64_t with_images, uint32_t ext)
{
    struct lvx_alloc_pv at;
    struct lvx_pe_run run;
    if (with_images && log_area(maps, c, 1, with_images, ext, &at, &run))
        return with_images;
    uint64_t best = 0;
    const struct lvx_pv_free *f = &maps->pvs[c->pv->index];
    for (unsigned r = 0; f->usable && r < f->run_count; r++)      /* the largest left */
        if (f->runs[r].count > best)
            best = f->runs[r].count;
    return best >= ext ? best : 0;
}

int lvx_mirror_alloc_log_among(struct lvx_cmd_env *env, struct lvx_free_maps *maps,
                               struct lvx_lv *log, uint32_t ext, uint64_t with_images,
                               enum lvx_alloc policy, const struct lvx_alloc_pv *c, unsigned n,
                               const struct lvx_pv **chosen)
{
    struct lvx_alloc_pv at;
    struct lvx_pe_run run;
    if (!(with_images && log_area(maps, c, n, with_images, ext, &at, &run)) &&
        !log_area(maps, c, n, ext, ext, &at, &run))
        return lvx_error(env->ctx, ENOSPC, "Insufficient suitable allocatable extents for "
                         "logical volume %s: %u more required", log->name, ext);
    struct lvx_alloc_request req = {
        .extents = ext, .stripes = 1, .policy = policy, .pv_count = 1, .pvs = &at,
        .lv_name = log->name,
    };
    struct lvx_alloc_result res;
    int r = lvx_alloc_extents(env->ctx, env->pool, maps, &req, &res);
    if (r < 0)
        return r;
    *chosen = at.pv;
    return lvx_alloc_append(env->ctx, log, &res);
}

int lvx_mirror_alloc_log(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                         const char *top_name, struct lvx_lv *log, uint32_t ext,
                         struct lvx_lv *const *img, uint32_t count, uint64_t with_images,
                         enum lvx_alloc policy, const struct lvx_alloc_pv *pvs, unsigned pv_count)
{
    unsigned n = pv_count ? pv_count : vg->pv_count;
    struct lvx_alloc_pv *others = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*others));
    struct lvx_alloc_pv *all = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*all));
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        all[i] = pvs ? pvs[i] : (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
        if (!holds_image(img, count, all[i].pv))
            others[k++] = all[i];
    }
    const struct lvx_pv *last = img[count - 1]->segs[img[count - 1]->seg_count - 1].areas[0].pv;
    struct lvx_alloc_pv last_pv = { (struct lvx_pv *)last, 0, NULL };
    for (unsigned i = 0; pvs && i < pv_count; i++)
        if (pvs[i].pv == last)
            last_pv = pvs[i];
    const struct { const struct lvx_alloc_pv *pvs; unsigned n; } tries[] = {
        { others, k }, { &last_pv, 1 }, { all, n },
    };
    unsigned tries_n = separate_log_pvs(env) ? 1 : 3;
    if (k == 0 && tries_n == 1)
        return lvx_error(env->ctx, ENOSPC, "Insufficient suitable allocatable extents for "
                         "logical volume %s: %u more required", top_name, ext);
    for (unsigned t = 0; t < tries_n; t++) {
        if (t == 0 && k == 0)
            continue;
        struct lvx_alloc_pv at;
        struct lvx_pe_run run;
        bool one = with_images ?
                   log_area(maps, tries[t].pvs, tries[t].n, with_images, ext, &at, &run) ||
                   log_area(maps, tries[t].pvs, tries[t].n, ext, ext, &at, &run) :
                   policy != LVX_ALLOC_ANYWHERE &&
                   log_area(maps, tries[t].pvs, tries[t].n, ext, ext, &at, &run);
        struct lvx_alloc_request req = {
            .extents = ext, .stripes = 1, .policy = policy, .pv_count = one ? 1 : tries[t].n,
            .pvs = one ? &at : tries[t].pvs, .lv_name = log->name,
        };
        struct lvx_alloc_result res;
        int r = lvx_alloc_extents(env->ctx, env->pool, maps, &req, &res);
        if (r == 0)
            return lvx_alloc_append(env->ctx, log, &res);
        if (t == tries_n - 1)
            return r;
        lvx_error_clear(env->ctx);
    }
    return -ENOSPC;
}

/* Do images of `extents` (and their disk log) fit?  Tried on fresh maps of the VG with
 * stand-in sub-LVs outside it. */
static bool mirror_fits(struct lvx_cmd_env *env, struct lvx_vg *vg, const struct lvx_raid_opts *o,
                        uint64_t extents, enum lvx_alloc policy, const struct lvx_alloc_pv *pvs,
                        unsigned pv_count)
{
    struct lvx_ctx probe = *env->ctx;
    struct lvx_cmd_env penv = *env;
    penv.ctx = &probe;
    struct lvx_free_maps *fresh;
    if (lvx_alloc_free_maps(&probe, env->pool, vg, &fresh) < 0)
        return false;
    struct lvx_lv **img = lvx_pool_alloc(env->pool, o->mirrors * sizeof(*img));
    for (uint32_t i = 0; i < o->mirrors; i++) {
        img[i] = lvx_pool_alloc(env->pool, sizeof(**img));
        memset(img[i], 0, sizeof(**img));
        img[i]->vg = vg;
        img[i]->name = "probe";
    }
    if (lvx_mirror_alloc_images(&penv, fresh, "probe", o->mirrors, o->stripes, o->stripe_size,
                                extents, policy, pvs, pv_count, img) < 0)
        return false;
    if (o->core_log || o->mirrored_log)
        return true;
    struct lvx_lv *log = lvx_pool_alloc(env->pool, sizeof(*log));
    memset(log, 0, sizeof(*log));
    log->vg = vg;
    log->name = "probe";
    uint64_t size = extents * vg->extent_size;
    uint32_t region = size < UINT32_MAX && o->region_size > size ?
                      lvx_pvmove_region(o->region_size, size) : o->region_size;
    return lvx_mirror_alloc_log(&penv, vg, fresh, "probe", log,
                                lvx_mirror_log_extents(size, region, vg->extent_size), img,
                                o->mirrors, 0, policy, pvs, pv_count) == 0;
}

int lvx_lvcreate_mirror_build(struct lvx_cmd_env *env, struct lvx_vg *vg,
                              struct lvx_free_maps *maps, struct lvx_raid_opts *o,
                              struct lvx_lv *lv, uint64_t extents, enum lvx_alloc policy,
                              const struct lvx_alloc_pv *pvs, unsigned pv_count, bool approx)
{
    if (o->mirrored_log && !lvx_mirror_mlog_allowed(env))  /* after the device-mapper check */
        return lvx_error(env->ctx, ENOTSUP, "%s", LVX_MLOG_DEPRECATED);
    /* a percentage size: LVM2 allocates what fits (images and log together), in whole
     * stripes */
    uint32_t step = o->stripes > 1 ? o->stripes : 1;
    if (approx && !o->mirrored_log && !mirror_fits(env, vg, o, extents, policy, pvs, pv_count)) {
        uint64_t ok = 0, bad = extents / step;
        while (bad - ok > 1) {
            uint64_t mid = ok + (bad - ok) / 2;
            if (mirror_fits(env, vg, o, mid * step, policy, pvs, pv_count))
                ok = mid;
            else
                bad = mid;
        }
        if (ok)
            extents = ok * step;
    }
    uint64_t size = extents * vg->extent_size;
    lvx_raid_reduce_region(env, o, size);
    uint32_t images = o->mirrors;
    struct lvx_lv **img = lvx_pool_alloc(env->pool, images * sizeof(*img));
    for (uint32_t i = 0; i < images; i++)
        img[i] = lvx_raid_new_sub(vg, lv, "mimage", i, false);
    struct lvx_lv *log = o->core_log || o->mirrored_log ? NULL
                         : lvx_raid_new_sub(vg, lv, "mlog", 0, false);
    if (log)                /* NAME_mlog: no index */
        log->name = lvx_pool_printf(vg->pool, "%s_mlog", lv->name);
    int r = lvx_mirror_alloc_images(env, maps, lv->name, images, o->stripes, o->stripe_size,
                                    extents, policy, pvs, pv_count, img);
    if (r == -EINVAL && strstr(env->ctx->errmsg, "must not exceed number of physical volumes"))
        r = lvx_error(env->ctx, ENOSPC, "Insufficient suitable allocatable extents for logical "
                      "volume %s: %llu more required", lv->name,
                      (unsigned long long)(images * extents));      /* LVM2's words */
    if (r < 0)
        return r;
    if (log && (r = lvx_mirror_alloc_log(env, vg, maps, lv->name, log,
                                         lvx_mirror_log_extents(size, o->region_size,
                                                                vg->extent_size),
                                         img, images, 0, policy, pvs, pv_count)) < 0)
        return r;

    struct lvx_seg *seg = lvx_raid_new_seg(vg, lv, "mirror", LVX_SEG_MIRROR, extents, images, img,
                                           o);
    seg->log_lv = log;
    if (o->mirrored_log) {          /* LVM2 adds it after the images (add_mirror_log) */
        lvx_cmd_errorf("%s", LVX_MLOG_WARNING);
        return lvx_mirror_mlog_build(env, vg, maps, lv,
                                     lvx_mirror_log_extents(size, o->region_size,
                                                            vg->extent_size),
                                     extents, policy, pvs, pv_count, false);
    }
    return 0;
}

int lvx_lvcreate_mirror_zero(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                             const struct lvx_lv *lv, bool zero_data)
{
    const struct lvx_seg *seg = &lv->segs[0];
    int r;
    if (seg->log_lv && (r = lvx_mirror_log_zero(env, u, seg->log_lv, LOG_ZERO_BYTES)) < 0)
        return r;
    for (uint32_t i = 0; zero_data && i < seg->area_count; i++)
        if ((r = lvx_lvcmd_zero_start(env, u, seg->areas[i].lv, LOG_ZERO_BYTES)) < 0)
            return r;
    return 0;
}
