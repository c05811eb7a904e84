/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgck.c - `lvx vgck [VG...]`: check VG metadata.  The read reports stale,
 * damaged or mismatching copies, missing and outdated PVs (lvm2-format.md §8) as
 * warnings (exit status 0 for those, as LVM2); the VG is also checked for
 * structural consistency and missing PVs (exit 5 when that fails, as LVM2).
 * `vgck --updatemetadata VG...` repairs: a commit that also rewrites the damaged
 * areas that can be repaired (§8.5) and clears outdated PVs carrying the VG's
 * metadata (§8.4, done by lvx_vg_commit), then the backup file is rewritten.  It
 * writes with PVs missing too, as LVM2 (absent PVs flagged MISSING).
 */
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"

#include <string.h>

#include "meta/commit.h"
#include "meta/mda_policy.h"
#include "meta/vgops.h"

/* Read-only check of the named VGs (all when none): the read itself reports stale,
 * damaged or mismatching copies, missing and outdated PVs as warnings; a VG failing
 * the structural validation or missing PVs is an error (exit 5, as LVM2). */
static int check_vgs(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *out,
                     void *arg)
{
    bool failed = false;
    for (unsigned i = 0; i < sel->vg_count; i++) {
        const struct lvx_vg *vg = sel->vgs[i];
        if (lvx_vg_validate(env->ctx, vg) < 0) {
            lvx_cmd_fail(env);
            failed = true;
            continue;
        }
        unsigned missing = 0;       /* not found, or flagged MISSING and still in use */
        for (unsigned p = 0; p < vg->pv_count; p++)
            missing += !vg->pvs[p]->ondisk.present || (vg->pvs[p]->flags & LVX_PVF_MISSING);
        if (missing) {
            lvx_cmd_errorf("The volume group is missing %u physical volumes.", missing);
            failed = true;
        }
    }
    return failed ? LVX_EXIT_FAILED : 0;
}

/* The repair writes itself (a commit that also rewrites damaged areas), no toolkit commit. */
static int update_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit, void *arg)
{
    const char *cmdline = lvx_vgcmd_command_line(env);
    if (env->args->count[LVX_OPT_TEST]) {
        lvx_vg_backup_skipped(env->ctx);
        return 0;
    }
    /* outdated PVs (§8.4): the commit detaches them */
    const char **outdated = lvx_pool_alloc(env->pool, (u->scan->pv_count + 1) * sizeof(char *));
    unsigned n = 0;
    for (unsigned i = 0; i < u->scan->pv_count; i++) {
        const struct lvx_scan_pv *spv = &u->scan->pvs[i];
        if (!lvx_vg_find_pv_uuid(u->vg, spv->label.pv_uuid) &&
            lvx_vgops_spv_holds_vg(spv, u->vg->uuid))
            outdated[n++] = lvx_pool_strdup(env->pool, spv->dev->path);
    }
    for (unsigned i = 0; i < u->vg->pv_count; i++)
        if (!u->vg->pvs[i]->ondisk.present)
            u->vg->pvs[i]->flags |= LVX_PVF_MISSING;
    lvx_mda_policy_apply(u->vg);
    if (lvx_vg_commit(env->ctx, u->scan, u->vg, cmdline, true) < 0)
        return lvx_cmd_fail(env);
    for (unsigned i = 0; i < n; i++) {           /* LVM2's words */
        lvx_warn(env->ctx, "WARNING: wiping mda on outdated PV %s", outdated[i]);
        lvx_warn(env->ctx, "WARNING: wiping header on outdated PV %s", outdated[i]);
    }
    lvx_vg_write_backup(env->ctx, u->vg, cmdline);
    return 0;
}

int lvx_cmd_vgck(struct lvx_cmd_env *env)
{
    if (!env->args->count[LVX_OPT_UPDATEMETADATA])
        return lvx_process_read(env, LVX_TK_VGS | LVX_TK_NO_EXPORTED, check_vgs, NULL);
    if (env->args->argc == 0) {
        lvx_cmd_errorf("vgck --updatemetadata needs a volume group name");
        return LVX_EXIT_INVALID;
    }
    /* every device is read (not only the VG's, through the device index): outdated PVs
     * are no longer listed by the VG */
    /* written with PVs missing too, as LVM2 (absent PVs flagged MISSING): the command
     * LVM2's tests use to write metadata in that state (shell/missing-pv) */
    struct lvx_tk_vg_ops ops = { .vg = update_vg,
                                 .update_flags = LVX_UPDATE_GLOBAL_LOCK | LVX_UPDATE_ALLOW_MISSING };
    return lvx_process_each_vg(env, &ops);
}
