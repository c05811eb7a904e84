/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/mirror_layer_convert.c - image and log conversions of a mirror LVM2 left
 * CONVERTING (cmd/mirror_layer.c: NAME over NAME_mimagetmp_N and the new images, the
 * layer the old mirror with its log), for LVs not active, as LVM2 2.03.16's
 * remove_mirror_images and _lv_update_log_type do them (seen on the host with
 * activation off, tests/cli/t1098):
 *
 *   -m -N, -m N, -m 0, --type linear   the top's images go first (the last ones; with
 *                      PVs named those wholly on them), never the layer; a top left
 *                      with one area loses the layer (NAME takes its segment: images
 *                      and log, as the collapse does without the merge) and the rest
 *                      goes from that plain mirror (cmd/lvconvert_mirror.c); still
 *                      layered, the rest from the layer (the PVs named preferred, its
 *                      first image only when in sync: LVM2's words naming the layer);
 *   --mirrorlog core|disk   on the layer (LVM2's _original_lv): its log goes, or a new
 *                      one is added named NAME_mlog (no _mimagetmp_N in it).
 *
 * Active in the user backend the same, committed and the daemon reloaded live
 * (lvx_mirror_commit_live; daemon/target_mirror.c serves the layer flattened: the
 * reload re-reads the layer's log, the top's new images copied whole again; a new log
 * under the layer is zeroed first, the old images resynced among themselves).  An LV
 * active in dm may have its layer's log changed (core or disk: the layer's new table
 * loaded inactive, resumed under the suspended top, the log's device gone after;
 * mirror-names.sh :140).  lvx refuses (its own words) a layer reduced to one image
 * (LVM2 re-initialises its log in sync, which it cannot do with activation off
 * either), a mirrored log, and the other conversions of an LV active in dm.
 */
#include "cmd/mirror_layer.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_mirror.h"
#include "cmd/mirror_mlog.h"
#include "map/map.h"

#include <string.h>

/* The images of seg from index `keep` on removed from the VG and the segment. */
static void cut_images(struct lvx_lv *lv, uint32_t keep)
{
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t i = keep; i < seg->area_count; i++)
        lvx_vg_remove_lv(lv->vg, seg->areas[i].lv);
    seg->area_count = seg->stripe_count = keep;
    seg->raw = NULL;
}

/* Up to `count` of the top's images (not the layer, area 0), wholly on pvs when some
 * are named, from the last one down, moved to the end and removed; how many. */
static uint32_t cut_top(struct lvx_lv *lv, uint32_t count, const struct lvx_alloc_pv *pvs,
                        unsigned pv_count)
{
    struct lvx_seg *top = &lv->segs[0];
    uint32_t moved = 0;
    for (uint32_t s = top->area_count; s-- > 1 && moved < count;) {
        if (pv_count && !lvx_mirror_image_on(top->areas[s].lv, pvs, pv_count))
            continue;
        struct lvx_area a = top->areas[s];
        memmove(top->areas + s, top->areas + s + 1, (top->area_count - 1 - s) * sizeof(a));
        top->areas[top->area_count - 1] = a;
        moved++;
    }
    cut_images(lv, top->area_count - moved);
    return moved;
}

static int refuse(const struct lvx_lv *lv, const struct lvx_lv *layer, const char *what)
{
    lvx_cmd_errorf("lvx does not %s %s/%s while LVM2's resync layer %s is there: activate "
                   "it, or run lvconvert %s/%s, to finish it first.", what, lv->vg->name,
                   lv->name, layer->name, lv->vg->name, lv->name);
    return LVX_EXIT_FAILED;
}

int lvx_mirror_layer_convert(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                             const struct lvx_actcmd *act, struct lvx_lv *lv,
                             struct lvx_mirror_conv *c, bool active, bool *done)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_seg *top = &lv->segs[0];
    struct lvx_lv *layer = top->areas[0].lv;
    bool linear = c->type && !strcmp(c->type, "linear");
    uint32_t total = layer->segs[0].area_count + top->area_count - 1;
    int rc;
    *done = true;
    /* active in dm: only the layer's log changed (core or disk: the layer's new table
     * loaded inactive and resumed under the suspended top: dm_backend.c); active in the
     * user backend: all of them (the daemon reloaded) */
    bool served = lvx_mirror_layer_served(act);
    bool log_only = !c->mirrors_given && !c->type && (c->core_log || c->disk_log);
    if ((active && !served && (!log_only || !act->be->rename_sub)) || c->mirrored_log ||
        (c->type && !linear && strcmp(c->type, "mirror")))
        return refuse(lv, layer, "convert");
    uint32_t want = total;
    if (linear) {
        want = 1;
    } else if (c->mirrors_given && c->mirrors_sign < 0) {
        if (c->mirrors >= total) {
            lvx_cmd_errorf("Unable to reduce images by specified amount.");
            return LVX_EXIT_FAILED;
        }
        want = total - c->mirrors;
    } else if (c->mirrors_given) {
        want = c->mirrors + 1;
    }
    if (want > total) {          /* an up-convert: LVM2's refusal */
        lvx_cmd_errorf("%s/%s is already being converted.  Unable to start another "
                       "conversion.", vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, vg, c->pv_args, c->pv_arg_count, &pvs, &pv_count)))
        return rc;
    /* LVM2's order: the top's images on the PVs named, the layer's on them, then (too
     * few there) the top's others, the layer's others; without PVs, all count as named */
    uint32_t rm = total - want;
    const struct lvx_lv *old_log = layer->segs[0].log_lv;
    for (int pass = 0; pass < 2 && rm; pass++) {
        bool named = pass == 0 && pv_count;
        if (pass == 1 && !pv_count)
            break;
        rm -= cut_top(lv, rm, named ? pvs : NULL, named ? pv_count : 0);
        if (top->area_count == 1)
            break;
        uint32_t k = rm;
        if (named) {             /* only those wholly on the PVs named */
            k = 0;
            for (uint32_t i = 0; i < layer->segs[0].area_count; i++)
                k += lvx_mirror_image_on(layer->segs[0].areas[i].lv, pvs, pv_count);
            if (k > rm)
                k = rm;
            if (k && (rc = lvx_mirror_removable_to_end(env, act, layer, k, pvs, pv_count,
                                                       false)))
                return rc;       /* (nothing committed: the model is dropped) */
        }
        if (k && k + 2 > layer->segs[0].area_count)
            return refuse(lv, layer, "reduce to one image the layer of");
        if (k)
            cut_images(layer, layer->segs[0].area_count - k);
        rm -= k;
    }
    if (top->area_count == 1) {  /* the layer taken out: a plain mirror for the rest */
        lvx_mirror_collapse_layer(lv);
        if (!linear) {
            c->mirrors_given = true;
            c->mirrors_sign = 0;
            c->mirrors = want - 1;
        }
        *done = false;
        return 0;
    }
    struct lvx_seg *ls = &layer->segs[0];
    if (c->core_log && ls->log_lv) {
        if (lvx_mirror_log_is_mirrored(ls->log_lv))
            lvx_mirror_mlog_unmirror(ls->log_lv);
        lvx_vg_remove_lv(vg, ls->log_lv);
        ls->log_lv = NULL;
        ls->raw = NULL;
    }
    if (c->disk_log && !ls->log_lv) {
        if ((rc = lvx_mirror_add_log(env, u, layer, 0, pvs, pv_count)))
            return rc;
        ls->log_lv->name = lvx_pool_printf(vg->pool, "%s_mlog", lv->name);
        /* zeroed before the commit: the old images resynced among themselves (the
         * top's own log is core: lvx_mirror_commit_live does not see this one) */
        if (!env->args->count[LVX_OPT_TEST] &&
            lvx_mirror_log_zero(env, u, ls->log_lv, 4096) < 0)
            return lvx_cmd_fail(env);
    }
    if (c->disk_log && lvx_mirror_log_is_mirrored(ls->log_lv)) {
        lvx_mirror_mlog_unmirror(ls->log_lv);
        ls->raw = NULL;
    }
    /* LVM2 loads the top's and the layer's tables "nosync" in dm when the layer was in
     * sync (remove_mirror_log / add_mirror_log: init_mirror_in_sync) */
    struct lvx_actcmd a = *act;
    struct lvx_lv_kstate ks;
    memset(&ks, 0, sizeof(ks));
    if (active && !served && !act->test && act->be->status &&
        act->be->status(env->ctx, layer, &ks) == 0 && ks.active && ks.mirror &&
        ks.sync_total && ks.sync_done >= ks.sync_total)
        a.opts.nosync = true;
    lvx_error_clear(env->ctx);
    if ((rc = lvx_mirror_commit_live(env, u, &a, lv, active, old_log)))
        return rc;
    /* the log that went: its dm device no longer under the layer */
    if (active && !served && !act->test && old_log && old_log != ls->log_lv &&
        act->be->deactivate(env->ctx, old_log, NULL) < 0)
        return lvx_cmd_fail(env);
    lvx_notice(env->ctx, "Logical volume %s/%s converted.", vg->name, lv->name);
    return 0;
}

int lvx_mirror_layer_refuse_other(struct lvx_cmd_env *env, const struct lvx_lv *lv,
                                  bool split, bool repair, const char *type)
{
    const struct lvx_lv *layer = lvx_map_mirror_sync_layer(lv);
    bool raid1 = type && !strcmp(type, "raid1");
    struct lvx_actcmd act;
    int rc;
    if (!split && !repair && !raid1)
        return 0;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    if (repair && lvx_map_lv_partial(lv))
        return refuse(lv, layer, "repair");
    if (!lvx_actcmd_is_active(env, &act, lv, NULL))
        return 0;
    return refuse(lv, layer, split ? "split images off" : repair ? "repair" : "take over");
}
