/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgextend.c - `lvx vgextend VG PV...`: add orphan PVs (devices without a label
 * become PVs first) to a resizeable VG, under the global and the VG lock.  With
 * --metadataignore and a VG that keeps a number of metadata copies LVM2's question
 * comes first (no: "Volume group VG not changed", exit 5; -y or -f: go on).
 * `--restoremissing VG PV...`: PVs of the VG that were missing while the VG was written
 * (flagged MISSING) and are back are taken back (the flag cleared), as LVM2.
 */
#include "cmd/vgcmd.h"
#include "cmd/pvcmd.h"

#include "meta/mda_policy.h"
#include "meta/vgops.h"

static int extend(struct lvx_cmd_env *env, struct lvx_vg_update *u)
{
    struct lvx_vg *vg = u->vg;
    if (!(vg->status & LVX_VG_RESIZEABLE)) {
        lvx_cmd_errorf("Volume group %s is not resizeable.", vg->name);
        return LVX_EXIT_FAILED;
    }
    /* --metadataignore against the VG's own number of metadata copies: LVM2 asks */
    if (env->args->count[LVX_OPT_METADATAIGNORE] && !env->args->count[LVX_OPT_FORCE] &&
        vg->metadata_copies &&
        !lvx_pvcmd_confirm(env, "Override preferred number of copies of VG %s metadata?",
                           vg->name)) {
        lvx_cmd_errorf("Volume group %s not changed", vg->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_pv **orphans;
    unsigned n;
    int rc = lvx_vgcmd_orphans(env, u, env->args->argv + 1, (unsigned)env->args->argc - 1,
                               &orphans, &n);
    if (rc)
        return rc;
    vg = u->vg;                       /* may have been re-read after an implicit pvcreate */
    if ((rc = lvx_vgcmd_check_block_sizes(env, u, vg, orphans, n)) != 0)
        return rc;
    unsigned first_new = vg->pv_count;
    for (unsigned i = 0; i < n; i++)
        if (lvx_vgops_add_orphan(env->ctx, vg, orphans[i], NULL) < 0)
            return lvx_cmd_fail(env);
    lvx_mda_policy_join(vg, first_new, lvx_mda_policy_auto_limit(env->ctx));   /* Large VGs */
    if ((rc = lvx_vgcmd_commit(env, u)) != 0)
        return rc;
    lvx_notice(env->ctx, "Volume group \"%s\" successfully extended", vg->name);
    return 0;
}

/* One PV of --restoremissing: true when it is restored (LVM2's warnings otherwise). */
static bool restore_pv(struct lvx_ctx *ctx, struct lvx_vg *vg, const char *name)
{
    struct lvx_pv *pv = NULL;
    for (unsigned i = 0; i < vg->pv_count && !pv; i++)
        if (vg->pvs[i]->ondisk.present && lvx_cmd_same_device(name, vg->pvs[i]->ondisk.dev_name))
            pv = vg->pvs[i];
    if (!pv) {
        lvx_warn(ctx, "WARNING: PV %s not found in VG %s", name, vg->name);
        return false;
    }
    if (!(pv->flags & LVX_PVF_MISSING) && !pv->missing_cleared) {
        lvx_warn(ctx, "WARNING: PV %s was not missing in VG %s", name, vg->name);
        return false;
    }
    pv->flags &= ~(uint32_t)LVX_PVF_MISSING;
    return true;
}

static int restore_missing(struct lvx_cmd_env *env)
{
    struct lvx_vg_update u;
    int rc = lvx_vgcmd_begin(env, env->args->argv[0], LVX_UPDATE_ALLOW_MISSING, &u);
    if (rc)
        return rc;
    unsigned fixed = 0;
    for (int i = 1; i < env->args->argc; i++)
        fixed += restore_pv(env->ctx, u.vg, env->args->argv[i]);
    if (!fixed) {
        lvx_cmd_errorf("No PV has been restored.");
        rc = LVX_EXIT_FAILED;
    } else if ((rc = lvx_vgcmd_commit(env, &u)) == 0) {
        lvx_notice(env->ctx, "Volume group \"%s\" successfully extended", u.vg->name);
    }
    lvx_vg_update_end(&u);
    return rc;
}

int lvx_cmd_vgextend(struct lvx_cmd_env *env)
{
    if (env->args->argc < 2) {
        lvx_cmd_errorf(env->args->argc ? "Please enter physical volume(s)"
                                       : "Please enter volume group name and physical volume(s)");
        return LVX_EXIT_INVALID;
    }
    if (env->args->count[LVX_OPT_RESTOREMISSING])
        return restore_missing(env);
    struct lvx_vg_update u;
    /* the VG through the device index, the devices named with it (meta/update.h) */
    int rc = lvx_vgcmd_begin(env, env->args->argv[0],
                             LVX_UPDATE_GLOBAL_LOCK | LVX_UPDATE_NAMED_ORPHANS, &u);
    if (rc)
        return rc;
    rc = extend(env, &u);
    lvx_vg_update_end(&u);
    return rc;
}
