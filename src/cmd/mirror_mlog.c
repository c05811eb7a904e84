/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/mirror_mlog.c - the "mirrored" log of an old-style mirror (cmd/mirror_mlog.h):
 * `lvcreate --type mirror --mirrorlog mirrored` and `lvconvert --mirrorlog mirrored`,
 * and the way back to a disk log.
 *
 * LVM2 2.03.16 makes one only under lvm.conf's global/support_mirrored_mirror_log = 1
 * (with a warning); else "Log type "mirrored" is DEPRECATED ..." and exit 5.  The log
 * NAME_mlog is itself a 2-image mirror (seen with LVM2 lvconvert on the host, activation
 * off): its segment "mirror" with no log of its own, its region size the mirror's, reduced
 * to the largest power of 2 not above the log's size; its images NAME_mlog_mimage_0 (the
 * log's first area) and NAME_mlog_mimage_1, linear, hidden, allocation inherited (the
 * log keeps the LV's policy), listed after the log.  Placement (LVM2 allocates both log
 * areas at once, avoiding the LV's PVs when it can): on PVs without an image (and not
 * the disk log's PV when one becomes mirrored) when there are enough of them, else on
 * the images' PVs in PV order, each area on a PV of its own (--alloc anywhere: one PV
 * may take both).  mirrored -> disk keeps the log's first image's area as the log.
 */
#include "cmd/mirror_mlog.h"

#include "cmd/lvcreate_raid.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define MLOG_IMAGES 2u

bool lvx_mirror_mlog_allowed(struct lvx_cmd_env *env)
{
    return lvx_mirror_conf_on(env, "global/support_mirrored_mirror_log");
}

bool lvx_mirror_log_is_mirrored(const struct lvx_lv *log)
{
    return log && log->seg_count == 1 && log->segs[0].kind == LVX_SEG_MIRROR;
}

static bool lv_on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv, unsigned depth)
{
    if (!lv || depth > 4)
        return false;
    for (unsigned s = 0; s < lv->seg_count; s++)
        for (uint32_t a = 0; lv->segs[s].areas && a < lv->segs[s].area_count; a++)
            if (lv->segs[s].areas[a].pv == pv || lv_on_pv(lv->segs[s].areas[a].lv, pv, depth + 1))
                return true;
    return false;
}

static bool images_on_pv(const struct lvx_seg *seg, const struct lvx_pv *pv)
{
    for (uint32_t i = 0; i < seg->area_count; i++)
        if (lv_on_pv(seg->areas[i].lv, pv, 0))
            return true;
    return false;
}

/* A new hidden sub-LV NAME of top, allocation inherited unless keep_policy. */
static struct lvx_lv *new_sub(struct lvx_vg *vg, const struct lvx_lv *top, const char *name,
                              bool keep_policy, bool now)
{
    struct lvx_lv *s = lvx_raid_new_sub(vg, top, "x", 0, false);
    s->name = lvx_pool_strdup(vg->pool, name);
    if (!keep_policy)
        s->alloc = LVX_ALLOC_INHERIT;
    if (now)
        s->creation_time = (uint64_t)time(NULL);
    return s;
}

/* A log area LVM2's allocator considers: a PV and what it counts for it. */
struct offer {
    struct lvx_alloc_pv c;
    uint64_t used;
};

/* The PVs for `need` log areas as LVM2's allocator picks them: one area per PV, in PV
 * order, first the PVs the mirror does not use (not with --alloc anywhere), then, when
 * those are too few, the others too; sorted by size, largest first (equal sizes keep
 * their order), the last `need` taken.  --alloc anywhere takes PVs until there are
 * enough areas (a PV again when it is alone).  *out gets them in area order. */
static int pick_log_pvs(struct lvx_cmd_env *env, struct lvx_vg *vg, const struct lvx_free_maps *maps,
                        const struct lvx_seg *seg, unsigned need, uint32_t ext,
                        uint64_t with_images, bool anywhere, const struct lvx_alloc_pv *pvs,
                        unsigned pv_count, struct lvx_alloc_pv *out)
{
    unsigned n = pv_count ? pv_count : vg->pv_count, k = 0;
    struct offer *o = lvx_pool_alloc(env->pool, (2 * n + need + 1) * sizeof(*o));
    bool *taken = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*taken));
    for (unsigned pass = 0; pass < 2 + (anywhere ? need : 0) && k < need; pass++) {
        for (unsigned i = 0; i < n && !(anywhere && k >= need); i++) {
            struct lvx_alloc_pv c = pvs ? pvs[i] : (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
            bool parallel = images_on_pv(seg, c.pv) || lv_on_pv(seg->log_lv, c.pv, 0);
            if ((!anywhere && taken[i]) || (!anywhere && pass == 0 && parallel))
                continue;
            uint64_t used = lvx_mirror_log_offer(maps, &c, with_images, ext);
            if (!used)
                continue;
            o[k++] = (struct offer){ c, used };
            taken[i] = true;
        }
        if (!anywhere && pass == 0 && k >= need)
            break;
    }
    if (k < need)
        return lvx_error(env->ctx, ENOSPC, "Insufficient suitable allocatable extents for "
                         "logical volume %s_mlog: %u more required", seg->lv->name,
                         need * ext);
    for (unsigned i = 1; i < k; i++) {         /* stable: insertion sort, largest first */
        struct offer t = o[i];
        unsigned j = i;
        for (; j > 0 && o[j - 1].used < t.used; j--)
            o[j] = o[j - 1];
        o[j] = t;
    }
    for (unsigned a = 0; a < need; a++)
        out[a] = o[k - need + a].c;
    return 0;
}

int lvx_mirror_mlog_build(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                          struct lvx_lv *top, uint32_t ext, uint64_t with_images,
                          enum lvx_alloc policy, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                          bool now)
{
    struct lvx_seg *seg = &top->segs[0];
    struct lvx_lv *log = seg->log_lv;      /* a disk log becoming mirrored, or NULL */
    unsigned need = log ? 1 : MLOG_IMAGES;
    struct lvx_alloc_pv at[MLOG_IMAGES];
    int r = pick_log_pvs(env, vg, maps, seg, need, ext, with_images, policy == LVX_ALLOC_ANYWHERE,
                         pvs, pv_count, at);
    if (r < 0)
        return r;
    const char *base = lvx_pool_printf(env->pool, "%s_mlog", top->name);
    struct lvx_lv *img[MLOG_IMAGES];
    const struct lvx_pv *chosen = NULL;
    if (!log) {
        log = new_sub(vg, top, base, true, now);
        if ((r = lvx_mirror_alloc_log_among(env, maps, log, ext, with_images, policy, &at[0], 1,
                                            &chosen)) < 0)
            return r;
    }
    img[0] = new_sub(vg, top, lvx_pool_printf(env->pool, "%s_mimage_0", base), false, now);
    img[0]->segs = log->segs;
    img[0]->seg_count = log->seg_count;
    img[0]->le_count = log->le_count;
    for (unsigned s = 0; s < img[0]->seg_count; s++)
        img[0]->segs[s].lv = img[0];
    img[1] = new_sub(vg, top, lvx_pool_printf(env->pool, "%s_mimage_1", base), false, now);
    if ((r = lvx_mirror_alloc_log_among(env, maps, img[1], ext, with_images, policy,
                                        &at[need - 1], 1, &chosen)) < 0)
        return r;
    /* the kernel wants a mirror of at least one region */
    uint64_t size = (uint64_t)ext * vg->extent_size;
    uint32_t region = seg->region_size;
    if (region > size) {
        region = 1;
        while ((uint64_t)region * 2 <= size)
            region *= 2;
    }
    struct lvx_raid_opts o = { .region_size = region };
    log->segs = NULL;
    log->seg_count = 0;
    lvx_raid_new_seg(vg, log, "mirror", LVX_SEG_MIRROR, ext, MLOG_IMAGES, img, &o);
    seg->log_lv = log;
    seg->raw = NULL;
    return 0;
}

void lvx_mirror_mlog_unmirror(struct lvx_lv *log)
{
    struct lvx_seg *ls = &log->segs[0];
    struct lvx_lv *img0 = ls->areas[0].lv;
    for (uint32_t i = 1; i < ls->area_count; i++)
        lvx_vg_remove_lv(log->vg, ls->areas[i].lv);
    lvx_vg_remove_lv(log->vg, img0);
    log->segs = img0->segs;
    log->seg_count = img0->seg_count;
    for (unsigned s = 0; s < log->seg_count; s++)
        log->segs[s].lv = log;
}

int lvx_mirror_log_zero(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                        const struct lvx_lv *log, uint64_t bytes)
{
    if (!lvx_mirror_log_is_mirrored(log))
        return lvx_lvcmd_zero_start(env, u, log, bytes);
    const struct lvx_seg *ls = &log->segs[0];
    for (uint32_t i = 0; i < ls->area_count; i++) {
        int r = lvx_lvcmd_zero_start(env, u, ls->areas[i].lv, bytes);
        if (r < 0)
            return r;
    }
    return 0;
}
