/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgremove.c - `lvx vgremove [-f] VG...`: remove whole VGs.  A VG holding LVs is
 * removed with them after LVM2's prompt is answered yes (-f or -y: no prompt); no
 * (or no answer) leaves it, "not removed", exit 5.
 * Every metadata area of every PV of the VG gets both slots cleared and the labels
 * lose PV_EXT_USED (lvm2-format.md §7.5); outdated PVs still carrying the VG's
 * metadata are cleared the same way (§8.4).  The VG's backup file is removed.  Active
 * LVs are deactivated first, as LVM2 does (cmd/activation.c); one that stays active
 * (open) stops the removal of its VG before anything is written.
 */
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"

#include <string.h>

#include "cmd/actcmd.h"
#include "cmd/lvcmd.h"
#include "meta/commit.h"
#include "meta/vgops.h"
#include "model/snapshot.h"

/* Deactivate every active LV of vg; false (message printed) when one stays active. */
static bool deactivate_lvs(struct lvx_cmd_env *env, const struct lvx_vg *vg)
{
    struct lvx_actcmd act;
    if (lvx_actcmd_init(env, &act) != 0)
        return false;
    for (unsigned l = 0; act.be && l < vg->lv_count; l++)
        if (lvx_actcmd_is_active(env, &act, vg->lvs[l], NULL) &&
            lvx_actcmd_deactivate(env, &act, vg->lvs[l], false) != 0)
            return false;
    return true;
}

static void report_removed(struct lvx_cmd_env *env, const struct lvx_lv *lv, bool *said)
{
    if (said[lv->index])
        return;
    said[lv->index] = true;
    lvx_notice(env->ctx, "Logical volume \"%s\" successfully removed.", lv->name);
}

/* In LVM2's order: an origin's snapshots just before it. */
static void report_removed_lvs(struct lvx_cmd_env *env, const struct lvx_vg *vg)
{
    bool *visible = lvx_pool_alloc(env->pool, (vg->lv_count + 1) * sizeof(bool));
    bool *said = lvx_pool_alloc(env->pool, (vg->lv_count + 1) * sizeof(bool));
    memset(said, 0, (vg->lv_count + 1) * sizeof(bool));
    lvx_vg_lv_visibility(vg, visible);
    for (unsigned l = 0; l < vg->lv_count; l++) {
        if (!visible[l])
            continue;
        unsigned n = lvx_lv_snapshot_segs(vg->lvs[l], NULL, 0);
        const struct lvx_seg **snaps = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*snaps));
        lvx_lv_snapshot_segs(vg->lvs[l], snaps, n);
        for (unsigned i = 0; i < n; i++)
            report_removed(env, snaps[i]->cow_lv, said);
        report_removed(env, vg->lvs[l], said);
    }
}

static bool carries_vg(const struct lvx_vg *vg, const struct lvx_scan_pv *spv)
{
    return lvx_vg_find_pv_uuid(vg, spv->label.pv_uuid) || lvx_vgops_spv_holds_vg(spv, vg->uuid);
}

/* PV_EXT_USED off on every label first, so that a crash never leaves a PV flagged in use
 * without a VG; then the metadata slots of every area carrying the VG are cleared. */
static int wipe_pvs(struct lvx_cmd_env *env, struct lvx_vg_update *u)
{
    const struct lvx_vg *vg = u->vg;
    struct lvx_ctx *ctx = env->ctx;
    for (unsigned i = 0; i < u->scan->pv_count; i++) {
        struct lvx_scan_pv *spv = &u->scan->pvs[i];
        if (!carries_vg(vg, spv) ||
            (spv->label.ext_version >= 2 && !(spv->label.ext_flags & LVX_PV_EXT_USED)))
            continue;
        if (!spv->dev->writable) {
            if (spv->dev->fd >= 0)
                lvx_dev_close(ctx, spv->dev);
            if (lvx_dev_open(ctx, spv->dev, true) < 0)
                return lvx_cmd_fail(env);
        }
        spv->label.ext_version = 2;
        spv->label.ext_flags &= ~LVX_PV_EXT_USED;
        if (lvx_pv_write_label(ctx, spv) < 0)
            return lvx_cmd_fail(env);
    }
    int rc = 0;
    for (unsigned i = 0; i < u->scan->pv_count; i++) {
        struct lvx_scan_pv *spv = &u->scan->pvs[i];
        if (carries_vg(vg, spv) && lvx_pv_write_orphan(ctx, spv) < 0)
            rc = lvx_cmd_fail(env);
    }
    return rc;
}

/* The removal writes itself (labels and areas wiped), no toolkit commit. */
static int remove_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit, void *arg)
{
    bool force = env->args->count[LVX_OPT_FORCE] || env->args->count[LVX_OPT_YES];
    struct lvx_vg *vg = u->vg;
    int rc = 0;
    unsigned lvs = lvx_vg_visible_lv_count(vg);
    if (vg->lv_count && !force &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Do you really want to remove volume "
                                           "group \"%s\" containing %u logical volumes?",
                                           vg->name, lvs))) {
        lvx_cmd_errorf("Volume group \"%s\" not removed", vg->name);
        rc = LVX_EXIT_FAILED;
    } else if (env->args->count[LVX_OPT_TEST]) {
        /* nothing written (the TEST MODE line came first, lvx_cmd_dispatch); LVM2's
         * messages as if it had been, its LVs' removal warning of the backup */
        report_removed_lvs(env, vg);
        lvx_notice(env->ctx, "Volume group \"%s\" successfully removed", vg->name);
        if (vg->lv_count)
            lvx_vg_backup_skipped(env->ctx);
    } else if (!deactivate_lvs(env, vg)) {
        lvx_cmd_errorf("Volume group \"%s\" not removed.", vg->name);
        rc = LVX_EXIT_FAILED;
    } else {
        if (vg->lv_count)      /* as LVM2: the LVs can be brought back with vgcfgrestore */
            lvx_vg_update_archive(env->ctx, u, lvx_vgcmd_command_line(env));
        if ((rc = wipe_pvs(env, u)) == 0) {
            report_removed_lvs(env, vg);
            lvx_vg_remove_backup(env->ctx, vg->name);
            lvx_notice(env->ctx, "Volume group \"%s\" successfully removed", vg->name);
            if (vg->lv_count)       /* LVM2's warning of its LVs' removal, backups off */
                lvx_vg_backup_skipped(env->ctx);
        }
    }
    return rc;
}

int lvx_cmd_vgremove(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    if (a->argc < 1 && !a->count[LVX_OPT_SELECT]) {
        lvx_cmd_errorf("Please enter one or more volume group paths or use --select for selection.");
        return LVX_EXIT_INVALID;
    }
    struct lvx_tk_vg_ops ops = {
        .update_flags = LVX_UPDATE_GLOBAL_LOCK |
                        (a->count[LVX_OPT_FORCE] ? LVX_UPDATE_ALLOW_MISSING : 0),
        .vg = remove_vg,
    };
    return lvx_process_each_vg(env, &ops);
}
