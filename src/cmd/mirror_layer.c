/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/mirror_layer.c - mirrors LVM2 left CONVERTING (cmd/mirror_layer.h).  LVM2 2.03.16
 * adds images to a mirror with a disk log through a temporary layer:
 *
 *   m              mirror (core log)  m_mimagetmp_N, m_mimage_<new>...
 *   m_mimagetmp_N  mirror (the old m) m_mimage_0, m_mimage_1..., log m_mlog
 *
 * (no flag on disk: LVM2 sets CONVERTING when it reads a mirror whose first image is
 * named *_mimagetmp*; map/mirror.c's lvx_map_mirror_sync_layer), and its poll
 * collapses it once the top mirror is in sync: m takes the layer's segment (images
 * and log), the new images appended, the layer removed (LVM2's collapse_mirrored_lv:
 * remove_layer_from_lv, then the removed images merged back).  A VG that LVM2 left so
 * (a command interrupted, a background poll that never ended, disks moved) is
 * reported as LVM2 reports it (report/).  lvx writes the layer too
 * (lvx_mirror_insert_layer) when lvconvert -m +N adds images to an inactive mirror with
 * a log (cmd/lvconvert_mirror.c).  Either is finished here:
 *   - dm: activation stacks it as LVM2 does (activate/dm_backend.c raid_subs_dir; the
 *     layer's log kept) and starts a detached poller (cmd/mirror_poll.c), which
 *     collapses it live once the top is in sync (lvx_mirror_layer_finish, the
 *     backend's collapse_layer);
 *   - user: the daemon serves the layer as it is (daemon/target_mirror.c's flattened
 *     view: only the new images copied, the layer's log kept); the collapse is
 *     committed and the daemon reloaded live (lvx_mirror_layer_finish);
 *   - by `lvconvert [-b] VG/LV` (cmd/lvconvert_mirror.c) and `lvpoll --polloperation
 *     convert`: LVM2's poll.
 * Another image conversion of it gets LVM2's refusal (lvconvert_mirror.c), as do
 * lvresize (cmd/lvresize.c) and pvmove of a PV under it (lvx_mirror_layer_refuse_pvmove);
 * lvrename renames the layer, its images and its log with it (cmd/lvrename.c).
 */
#include "cmd/mirror_layer.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_mirror.h"
#include "cmd/lvconvert_raid.h"
#include "cmd/lvcreate_raid.h"
#include "map/map.h"

#include <string.h>
#include <time.h>

uint32_t lvx_mirror_next_image(const struct lvx_vg *vg, const char *name)
{
    return lvx_raid_next_index(vg, name, "mimage");   /* historical LVs included */
}

struct lvx_lv *lvx_mirror_insert_layer(struct lvx_lv *lv, uint32_t n)
{
    struct lvx_vg *vg = lv->vg;
    struct lvx_lv *tmp = lvx_raid_new_sub(vg, lv, "mimagetmp", n, false);
    tmp->status = LVX_LV_READ | (lv->status & LVX_LV_WRITE);     /* hidden */
    tmp->alloc = LVX_ALLOC_INHERIT;
    tmp->creation_time = (uint64_t)time(NULL);
    tmp->segs = lv->segs;                   /* the old mirror, with its log */
    tmp->seg_count = lv->seg_count;
    tmp->le_count = lv->le_count;
    for (unsigned s = 0; s < tmp->seg_count; s++)
        tmp->segs[s].lv = tmp;
    struct lvx_raid_opts o = { .region_size = tmp->segs[0].region_size };
    lvx_raid_new_seg(vg, lv, "mirror", LVX_SEG_MIRROR, tmp->le_count, 1, &tmp, &o);
    return tmp;
}

void lvx_mirror_collapse_layer(struct lvx_lv *lv)
{
    struct lvx_seg *top = &lv->segs[0];
    struct lvx_lv *tmp = top->areas[0].lv;
    uint32_t extra = top->area_count - 1;
    const struct lvx_area *added = top->areas + 1;
    lvx_vg_remove_lv(lv->vg, tmp);
    lv->segs = tmp->segs;
    lv->seg_count = tmp->seg_count;
    for (unsigned s = 0; s < lv->seg_count; s++)
        lv->segs[s].lv = lv;
    struct lvx_seg *seg = &lv->segs[0];
    uint32_t n = seg->area_count;
    struct lvx_area *areas = lvx_pool_alloc(lv->vg->pool, (n + extra) * sizeof(*areas));
    memcpy(areas, seg->areas, n * sizeof(*areas));
    memcpy(areas + n, added, extra * sizeof(*areas));
    seg->areas = areas;
    seg->area_count = seg->stripe_count = n + extra;
    seg->raw = NULL;                /* written from its typed fields */
}

unsigned lvx_mirror_leaves(const struct lvx_lv *lv, struct lvx_lv **img, unsigned max,
                           struct lvx_lv **log)
{
    unsigned n = 0;
    *log = NULL;
    if (!lvx_map_lv_is_mirror(lv))
        return 0;
    const struct lvx_seg *top = &lv->segs[0];
    const struct lvx_lv *layer = lvx_map_mirror_sync_layer(lv);
    if (layer) {
        const struct lvx_seg *ls = &layer->segs[0];
        for (uint32_t i = 0; i < ls->area_count && n < max; i++)
            img[n++] = ls->areas[i].lv;
        *log = ls->log_lv;
    }
    for (uint32_t i = layer ? 1 : 0; i < top->area_count && n < max; i++)
        img[n++] = top->areas[i].lv;
    if (top->log_lv)
        *log = top->log_lv;
    return n;
}

bool lvx_mirror_leaves_on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv)
{
    struct lvx_lv *img[LVX_MIRROR_LEAVES_MAX], *log;
    unsigned n = lvx_mirror_leaves(lv, img, LVX_MIRROR_LEAVES_MAX, &log);
    for (unsigned i = 0; i < n; i++)
        if (lvx_raid_lv_on_pv(img[i], pv))
            return true;
    return log && lvx_raid_lv_on_pv(log, pv);
}

int lvx_mirror_layer_refuse_pvmove(const struct lvx_vg *vg, const struct lvx_pv *pv,
                                   const char *lv_name)
{
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_lv *lv = vg->lvs[i];
        if ((lv_name && strcmp(lv->name, lv_name)) || !lvx_map_mirror_sync_layer(lv) ||
            !lvx_mirror_leaves_on_pv(lv, pv))
            continue;
        lvx_cmd_errorf("Unable to pvmove when converting volume %s/%s is present.", vg->name,
                       lv->name);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

bool lvx_mirror_layer_served(const struct lvx_actcmd *act)
{
    return act->be && !strcmp(act->be->name, "user");
}

/* The top mirror's copy state: 1 in sync, 0 not yet, -1 not known. */
static int top_in_sync(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                       const struct lvx_lv *lv)
{
    struct lvx_lv_kstate ks;
    memset(&ks, 0, sizeof(ks));
    if (!act->be->status || act->be->status(env->ctx, lv, &ks) < 0 || !ks.active ||
        !ks.mirror) {
        lvx_error_clear(env->ctx);
        return -1;
    }
    return ks.sync_done >= ks.sync_total;
}

int lvx_mirror_layer_finish(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                            const struct lvx_actcmd *act, struct lvx_lv *lv)
{
    int rc;
    if (env->args->count[LVX_OPT_TEST])
        return 0;
    if (!act->be->collapse_layer) {
        /* user: the daemon serves the layer flattened; in sync, the collapse committed
         * while it says the new images are copied (every write since reached every
         * leg, so the log's bits now speak for all), then reloaded (its adopt: no leg
         * fresh, bits kept) */
        lvx_mirror_collapse_layer(lv);
        if (act->be->stage(env->ctx, lv, &act->opts) < 0)
            return lvx_cmd_fail(env);
        if ((rc = lvx_lvcmd_commit(env, u)) || (rc = lvx_actcmd_finish(env, act, lv, true)))
            return rc;
    } else {
        /* live (dm): the collapsed table staged over the devices already there, the
         * copy checked again (an image failing since the look: no collapse), the
         * commit, then the swap in LVM2's order (dm_collapse_layer) */
        struct lvx_lv *layer = lv->segs[0].areas[0].lv;
        lvx_mirror_collapse_layer(lv);
        if (act->be->stage(env->ctx, lv, &act->opts) < 0)
            return lvx_cmd_fail(env);
        if (top_in_sync(env, act, lv) != 1) {
            if (act->be->unstage(env->ctx, lv) < 0)
                lvx_error_clear(env->ctx);
            lvx_cmd_errorf("Failed to remove temporary sync layer.");
            return LVX_EXIT_FAILED;
        }
        if ((rc = lvx_lvcmd_commit(env, u))) {
            if (act->be->unstage(env->ctx, lv) < 0)
                lvx_error_clear(env->ctx);
            return rc;
        }
        if (act->be->collapse_layer(env->ctx, lv, layer) < 0)
            return lvx_cmd_fail(env);
    }
    lvx_notice(env->ctx, "Logical volume %s/%s converted.", u->vg->name, lv->name);
    return 0;
}

int lvx_mirror_layer_poll(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                          const struct lvx_actcmd *act, struct lvx_lv *lv, bool active,
                          const struct lvx_mirror_conv *c)
{
    int rc;
    if (c->background && active && !act->test &&
        (rc = lvx_mirror_poll_background(env, u->vg->name, lv->name, lv->uuid, c->interval,
                                         c->wait_first, true)) >= 0)
        return rc;
    if (active && c->wait_first && c->interval) {
        struct timespec ts = { c->interval, 0 };
        nanosleep(&ts, NULL);
    }
    if (!active) {
        lvx_notice(env->ctx, "%s/%s: Interrupted: No longer active.", u->vg->name, lv->name);
        return 0;
    }
    if ((rc = lvx_mirror_poll_converted(env, act, lv, false)))
        return rc;
    return lvx_mirror_layer_finish(env, u, act, lv);
}
