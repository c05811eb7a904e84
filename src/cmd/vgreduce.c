/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgreduce.c - `lvx vgreduce VG PV...` (a PV named by device or @tag: the VG's PVs
 * with the tag), `vgreduce -a VG` (every unused PV),
 * `vgreduce --removemissing [--force [--mirrorsonly]] VG`.  PVs holding extents are
 * refused ("Physical volume "/dev/x" still in use"), as is the VG's last PV.  One commit
 * without the removed PVs, which detaches them (meta/update.c: metadata slots
 * cleared, PV_EXT_USED dropped), so they are orphans afterwards.
 * --removemissing follows LVM2's repair: partial LVs are reported and the VG is written
 * anyway (missing PVs flagged MISSING) with exit 5; --force removes them, one commit per
 * removed LV as LVM2, then the missing PVs; --mirrorsonly --force only names the
 * non-mirror partial LVs ("can't remove") and writes the VG unchanged.  With --force
 * mirrors first lose their images and logs on missing PVs (cmd/mirror_repair.c: one
 * image left, the mirror becomes linear).  With --force RAID LVs with missing images
 * keep them as error segments (rimage and rmeta; an active LV reloaded), as LVM2's
 * lv_raid_remove_missing: `lvconvert --repair` replaces them.
 */
#include "cmd/vgcmd.h"
#include "cmd/actcmd.h"
#include "cmd/lvconvert_mirror.h"
#include "cmd/lvconvert_raid.h"
#include "cmd/mirror_repair.h"
#include "map/map.h"
#include "model/pvmove.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "meta/vgops.h"

static bool named(char **names, unsigned count, const struct lvx_pv *pv)
{
    for (unsigned i = 0; i < count; i++) {
        if (names[i][0] == '@' ? lvx_strlist_has(&pv->tags, names[i] + 1)
                               : pv->ondisk.present &&
                                     lvx_cmd_same_device(names[i], pv->ondisk.dev_name))
            return true;
    }
    return false;
}

/* Pick the PVs to remove into out[]; errors printed, *failed set. */
static unsigned pick(struct lvx_cmd_env *env, struct lvx_vg *vg, char **names, unsigned count,
                     struct lvx_pv **out, bool *failed)
{
    bool all = env->args->count[LVX_OPT_ALL] != 0;
    uint32_t *used = lvx_pool_alloc(env->pool, (vg->pv_count + 1) * sizeof(*used));
    lvx_vg_pv_alloc_counts(vg, used);
    unsigned n = 0;

    for (unsigned i = 0; i < count; i++) {
        bool found = names[i][0] == '@';     /* a tag no PV has selects nothing, as LVM2 */
        for (unsigned p = 0; p < vg->pv_count && !found; p++)
            found = named(&names[i], 1, vg->pvs[p]);
        if (!found) {
            lvx_cmd_errorf("Failed to find physical volume \"%s\".", names[i]);
            *failed = true;
        }
    }
    for (unsigned p = 0; p < vg->pv_count; p++) {
        struct lvx_pv *pv = vg->pvs[p];
        if (!all && !named(names, count, pv))
            continue;
        if (used[p]) {
            lvx_cmd_errorf("Physical volume \"%s\" still in use", lvx_cmd_pv_name(pv));
            *failed = true;
            continue;
        }
        if (n + 1 >= vg->pv_count) {
            /* -a too keeps the last PV and fails (exit 5), as LVM2 */
            lvx_cmd_errorf("Can't remove final physical volume \"%s\" from volume group \"%s\"",
                           lvx_cmd_pv_name(pv), vg->name);
            *failed = true;
            continue;
        }
        out[n++] = pv;
    }
    return n;
}

/* ---- --removemissing, as LVM2's vgreduce repair ------------------------------------ */

/* LVM2's consolidation: with partial LVs left only messages (false), else the missing
 * PVs leave the VG (false when one cannot). */
static bool consolidate(struct lvx_cmd_env *env, struct lvx_vg *vg)
{
    bool ok = true;
    for (unsigned l = 0; l < vg->lv_count; l++)
        if (lvx_lv_is_partial(vg->lvs[l])) {
            lvx_warn(env->ctx, "WARNING: Partial LV %s needs to be repaired or removed. ",
                     vg->lvs[l]->name);
            ok = false;
        }
    if (!ok) {
        lvx_cmd_errorf("There are still partial LVs in VG %s.", vg->name);
        lvx_cmd_errorf("To remove them unconditionally use: vgreduce --removemissing --force.");
        lvx_cmd_errorf("To remove them unconditionally from mirror LVs use: vgreduce "
                       "--removemissing --mirrorsonly --force.");
        lvx_warn(env->ctx, "WARNING: Proceeding to remove empty missing PVs.");
        return false;
    }
    uint32_t *used = lvx_pool_alloc(env->pool, (vg->pv_count + 1) * sizeof(*used));
    lvx_vg_pv_alloc_counts(vg, used);
    for (unsigned p = 0, orig = 0; p < vg->pv_count; orig++) {
        struct lvx_pv *pv = vg->pvs[p];
        if (pv->ondisk.present) {
            p++;
            continue;
        }
        char dashed[LVX_UUID_DASHED_LEN + 1];
        lvx_uuid_format(pv->uuid, dashed);
        if (vg->pv_count == 1) {
            lvx_cmd_errorf("Volume Groups must always contain at least one PV.");
            return false;
        }
        if (used[orig]) {
            lvx_cmd_errorf("LVs still present on PV with UUID %s: Can't remove from VG %s.",
                           dashed, vg->name);
            return false;
        }
        lvx_vg_remove_pv(vg, pv);
    }
    return true;
}

/* LVM2's lv_raid_remove_missing: the images with a sub-LV on a missing PV become error
 * segments (rimage and rmeta), committed, an active LV reloaded (one commit, as LVM2's
 * lv_update_and_reload); lvconvert --repair replaces them later.  0 or an exit code. */
static int raid_remove_missing(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv)
{
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; s < seg->area_count; s++) {
        struct lvx_lv *img = seg->areas[s].lv, *meta = seg->meta_areas ? seg->meta_areas[s].lv : NULL;
        if (!(img && lvx_lv_is_partial(img)) && !(meta && lvx_lv_is_partial(meta)))
            continue;
        if (img)
            lvx_lv_replace_with_error(img);
        if (meta)
            lvx_lv_replace_with_error(meta);
    }
    seg->raw = NULL;
    struct lvx_actcmd act;
    int rc = lvx_actcmd_init(env, &act);
    if (rc)
        return rc;
    if (!lvx_actcmd_is_active(env, &act, lv, NULL))
        return lvx_vgcmd_commit(env, u);
    struct lvx_raid_change ch;
    memset(&ch, 0, sizeof(ch));
    return lvx_lvconvert_reload(env, u, &act, lv, &ch);
}

static int remove_missing(struct lvx_cmd_env *env, struct lvx_vg_update *u)
{
    struct lvx_vg *vg = u->vg;
    unsigned missing = 0;
    for (unsigned p = 0; p < vg->pv_count; p++)
        missing += !vg->pvs[p]->ondisk.present;
    if (!missing) {
        lvx_notice(env->ctx, "Volume group \"%s\" is already consistent.", vg->name);
        return 0;
    }
    if (!(vg->status & LVX_VG_RESIZEABLE)) {
        lvx_cmd_errorf("Volume group %s is not resizeable.", vg->name);
        return LVX_EXIT_FAILED;
    }
    bool fixed, force = env->args->count[LVX_OPT_FORCE] != 0;
    int rc;
    if (force) {
        /* LVM2's mirror_remove_missing: the mirrors lose their failed images and logs;
         * one without a usable image goes */
        for (unsigned l = 0; l < vg->lv_count; l++) {
            struct lvx_lv *lv = vg->lvs[l];
            enum lvx_seg_kind k = lv->seg_count ? lv->segs[0].kind : LVX_SEG_STRIPED;
            if (k == LVX_SEG_RAID && lvx_lv_is_partial(lv) && (rc = raid_remove_missing(env, u, lv)))
                return rc;
        }
        for (unsigned l = 0; l < vg->lv_count; l++) {
            struct lvx_lv *lv = vg->lvs[l];
            if (!lvx_map_lv_is_mirror(lv) || !lvx_lv_is_partial(lv))
                continue;
            bool usable = false;
            for (uint32_t i = 0; i < lv->segs[0].area_count; i++)
                usable |= lv->segs[0].areas[i].lv && lvx_mirror_image_usable(lv->segs[0].areas[i].lv);
            if (!usable) {
                lvx_cmd_errorf("No usable images left in %s/%s.", vg->name, lv->name);
                continue;      /* removed below with the other partial LVs */
            }
            uint32_t fi, fl;
            struct lvx_lv *before[LVX_RAID_CHANGE_MAX];
            unsigned before_n = lvx_mirror_subs(lv, before);
            struct lvx_actcmd act;
            if ((rc = lvx_actcmd_init(env, &act)))
                return rc;
            bool active = act.be && lvx_actcmd_is_active(env, &act, lv, NULL);
            lvx_mirror_remove_missing(lv, active, 0, false, &fi, &fl);
            /* active in dm: reloaded now, the devices of what went taken down (the
             * old table keeps the missing PV's device open) */
            if (act.be && act.be->rename_sub && active &&
                (rc = lvx_mirror_reload_dm(env, u, &act, lv, before, before_n, NULL, NULL, 0)))
                return rc;
        }
        if (env->args->count[LVX_OPT_MIRRORSONLY]) {
            for (unsigned l = 0; l < vg->lv_count; l++)
                if (lvx_lv_is_partial(vg->lvs[l]))
                    lvx_cmd_errorf("Non-mirror-image LV %s found: can't remove.", vg->lvs[l]->name);
        } else {
            struct lvx_strlist removed = {0};
            lvx_vgops_remove_partial_lvs(vg, &removed);
            /* LVM2 removes them one by one in VG order, one commit each */
            for (unsigned i = removed.n; i-- > 0;) {
                lvx_warn(env->ctx, "WARNING: Removing partial LV %s/%s.", vg->name, removed.v[i]);
                if ((rc = lvx_vgcmd_commit(env, u)))
                    return rc;
                lvx_notice(env->ctx, "Logical volume \"%s\" successfully removed.", removed.v[i]);
            }
        }
        consolidate(env, vg);
        fixed = true;
    } else {
        fixed = consolidate(env, vg);
    }
    if ((rc = lvx_vgcmd_commit(env, u))) {
        lvx_cmd_errorf("Failed to write out a consistent VG for %s", vg->name);
        return rc;
    }
    if (!fixed)
        return LVX_EXIT_FAILED;
    lvx_notice(env->ctx, "Wrote out consistent volume group %s.", vg->name);
    return 0;
}

static int reduce(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool missing)
{
    if (missing)
        return remove_missing(env, u);
    struct lvx_vg *vg = u->vg;
    bool failed = false;
    if (!(vg->status & LVX_VG_RESIZEABLE)) {
        lvx_cmd_errorf("Volume group %s is not resizeable.", vg->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_pv **rm = lvx_pool_alloc(env->pool, (vg->pv_count + 1) * sizeof(*rm));
    unsigned n = pick(env, vg, env->args->argv + 1, (unsigned)env->args->argc - 1, rm, &failed);
    if (n == 0)             /* a @tag no PV has: nothing to do, as LVM2 */
        return failed ? LVX_EXIT_FAILED : 0;
    const char **paths = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*paths));
    for (unsigned i = 0; i < n; i++) {
        paths[i] = lvx_pool_strdup(env->pool, lvx_cmd_pv_name(rm[i]));
        lvx_vg_remove_pv(vg, rm[i]);
    }
    /* the commit detaches the PVs it no longer lists (label first, before its commit
     * point): they are orphans once it returns */
    int rc = lvx_vgcmd_commit(env, u);
    if (rc)
        return rc;
    for (unsigned i = 0; i < n; i++)
        lvx_notice(env->ctx, "Removed \"%s\" from volume group \"%s\"", paths[i], vg->name);
    return failed ? LVX_EXIT_FAILED : 0;
}

int lvx_cmd_vgreduce(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    bool missing = a->count[LVX_OPT_REMOVEMISSING] != 0;
    bool all = a->count[LVX_OPT_ALL] != 0;
    if (a->count[LVX_OPT_MIRRORSONLY] && !missing)
        return lvx_vgcmd_syntax(env, NULL);
    if (a->argc < 1) {
        lvx_cmd_errorf("Please give volume group name");
        return LVX_EXIT_INVALID;
    }
    if ((missing || all) ? a->argc != 1 : a->argc < 2) {
        lvx_cmd_errorf((missing || all) ? "Please give only the volume group name with %s"
                                        : "Please enter physical volume paths%s",
                       missing ? " --removemissing" : all ? " --all" : "");
        return LVX_EXIT_INVALID;
    }
    if (missing && all) {
        lvx_cmd_errorf("--removemissing and --all are incompatible");
        return LVX_EXIT_INVALID;
    }
    /* as LVM2: a named device that does not exist is left out first, with its line */
    bool gone = false;
    int kept = 1;
    for (int i = 1; i < a->argc; i++) {
        struct stat st;
        if (a->argv[i][0] != '@' && stat(a->argv[i], &st) < 0) {
            lvx_cmd_errorf("Cannot use %s: device not found", a->argv[i]);
            gone = true;
        } else {
            a->argv[kept++] = a->argv[i];
        }
    }
    if (gone && kept == 1)
        return LVX_EXIT_FAILED;
    a->argc = kept;
    struct lvx_vg_update u;
    unsigned flags = LVX_UPDATE_GLOBAL_LOCK | LVX_UPDATE_NAMED_ORPHANS |
                     (missing ? LVX_UPDATE_ALLOW_MISSING : 0);
    struct lvx_scan_opts o = lvx_vgcmd_scan_opts(env);
    const char **also = lvx_pool_alloc(env->pool, (size_t)a->argc * sizeof(*also));
    for (int i = 1; i < a->argc; i++)      /* the devices after the VG name (not @tags) */
        if (a->argv[i][0] != '@')
            also[o.also_count++] = a->argv[i];
    o.also_devices = also;
    if (lvx_vg_update_begin(env->ctx, &o, a->argv[0], flags, &u) < 0) {
        bool not_found = env->ctx->err == -ENOENT;
        int rc = lvx_cmd_fail(env);
        /* LVM2 then names each PV it could not take from the VG it did not find */
        for (int i = 1; i < a->argc && not_found; i++)
            lvx_cmd_errorf("Failed to find physical volume \"%s\".", a->argv[i]);
        return rc;
    }
    int rc = reduce(env, &u, missing);
    lvx_vg_update_end(&u);
    return gone ? LVX_EXIT_FAILED : rc;
}
