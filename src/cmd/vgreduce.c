/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgreduce.c - `lvx vgreduce VG PV...`, `vgreduce -a VG` (every unused PV),
 * `vgreduce --removemissing [--force] VG`.  PVs holding extents are refused
 * ("Physical volume "/dev/x" still in use"), as is the VG's last PV.  One commit
 * without the removed PVs, which detaches them (meta/update.c: metadata slots
 * cleared, PV_EXT_USED dropped), so they are orphans afterwards.  --removemissing refuses when LVs use a
 * missing PV unless --force, which removes those LVs.
 */
#include "cmd/vgcmd.h"

#include <string.h>

#include "meta/vgops.h"

static bool named(char **names, unsigned count, const struct lvx_pv *pv)
{
    for (unsigned i = 0; i < count; i++)
        if (pv->ondisk.present && lvx_cmd_same_device(names[i], pv->ondisk.dev_name))
            return true;
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
        bool found = false;
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

/* --removemissing: the PVs without a device; their LVs go only with --force. */
static unsigned pick_missing(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_pv **out,
                             bool *failed)
{
    if (lvx_vgops_has_partial_lvs(vg)) {
        if (!env->args->count[LVX_OPT_FORCE]) {
            lvx_cmd_errorf("There are still partial LVs in VG %s: to remove them unconditionally "
                           "use: vgreduce --removemissing --force.", vg->name);
            *failed = true;
            return 0;
        }
        struct lvx_strlist removed = {0};
        lvx_vgops_remove_partial_lvs(vg, &removed);
        for (unsigned i = 0; i < removed.n; i++)
            lvx_notice(env->ctx, "Logical volume \"%s\" successfully removed.", removed.v[i]);
    }
    uint32_t *used = lvx_pool_alloc(env->pool, (vg->pv_count + 1) * sizeof(*used));
    lvx_vg_pv_alloc_counts(vg, used);
    unsigned n = 0;
    for (unsigned p = 0; p < vg->pv_count; p++)
        if (!vg->pvs[p]->ondisk.present && !used[p])
            out[n++] = vg->pvs[p];
    if (n == vg->pv_count) {
        lvx_cmd_errorf("Volume group %s has no PV left after removing the missing ones.", vg->name);
        *failed = true;
        return 0;
    }
    return n;
}

static int reduce(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool missing)
{
    struct lvx_vg *vg = u->vg;
    bool failed = false;
    if (!(vg->status & LVX_VG_RESIZEABLE)) {
        lvx_cmd_errorf("Volume group %s is not resizeable.", vg->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_pv **rm = lvx_pool_alloc(env->pool, (vg->pv_count + 1) * sizeof(*rm));
    unsigned n = missing ? pick_missing(env, vg, rm, &failed)
                         : pick(env, vg, env->args->argv + 1, (unsigned)env->args->argc - 1, rm,
                                &failed);
    if (n == 0) {
        if (missing && !failed) {
            lvx_notice(env->ctx, "Volume group \"%s\" is already consistent.", vg->name);
            return 0;
        }
        return LVX_EXIT_FAILED;
    }
    const char **paths = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*paths));
    char **uuids = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*uuids));
    for (unsigned i = 0; i < n; i++) {
        paths[i] = lvx_pool_strdup(env->pool, lvx_cmd_pv_name(rm[i]));
        uuids[i] = lvx_pool_strdup(env->pool, rm[i]->uuid);
        lvx_vg_remove_pv(vg, rm[i]);
    }
    /* the commit detaches the PVs it no longer lists (label first, before its commit
     * point): they are orphans once it returns */
    int rc = lvx_vgcmd_commit(env, u);
    if (rc)
        return rc;
    for (unsigned i = 0; i < n; i++) {
        if (missing) {
            char dashed[LVX_UUID_DASHED_LEN + 1];
            lvx_uuid_format(uuids[i], dashed);
            lvx_notice(env->ctx, "Removed missing PV %s from volume group \"%s\"", dashed, vg->name);
        } else {
            lvx_notice(env->ctx, "Removed \"%s\" from volume group \"%s\"", paths[i], vg->name);
        }
    }
    if (missing)
        lvx_notice(env->ctx, "Wrote out consistent volume group %s.", vg->name);
    return failed ? LVX_EXIT_FAILED : 0;
}

int lvx_cmd_vgreduce(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    bool missing = a->count[LVX_OPT_REMOVEMISSING] != 0;
    bool all = a->count[LVX_OPT_ALL] != 0;
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
    struct lvx_vg_update u;
    unsigned flags = LVX_UPDATE_GLOBAL_LOCK | LVX_UPDATE_NAMED_ORPHANS |
                     (missing ? LVX_UPDATE_ALLOW_MISSING : 0);
    int rc = lvx_vgcmd_begin(env, a->argv[0], flags, &u);
    if (rc)
        return rc;
    rc = reduce(env, &u, missing);
    lvx_vg_update_end(&u);
    return rc;
}
