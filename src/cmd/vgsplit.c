/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgsplit.c - `lvx vgsplit FROM TO PV...` and `vgsplit -n LV FROM TO`: the PVs
 * named (or those LV uses) leave FROM for TO, a new VG (attributes inherited from
 * FROM unless -l/-p/--alloc/--vgmetadatacopies say otherwise) or an existing one (same
 * extent size, limits, no LV name in both, as LVM2's vgs_are_compatible).  The LVs
 * whose PVs all moved follow them (model/vgsplit.c): thin pools with their data and
 * metadata, thin LVs with their pool and external origin, snapshots with origin and
 * COW; an LV on both sides (a pool parted from its metadata, a thin LV from its
 * external origin) or active is refused.  Then each side gets its pool metadata spare
 * as LVM2's handle_pool_metadata_spare leaves it (made or grown for the pools there,
 * dropped where none is left).  Nothing is written before every check passed.
 *
 * The writes follow LVM2's order (docs/design.md "VG surgery"): TO is committed
 * EXPORTED first (its PVs: the moved ones and its own), then FROM without the moved
 * PVs, then TO again without EXPORTED.  A crash after the first leaves TO exported
 * and FROM still listing the moved PVs; after the second, FROM split and TO exported
 * (vgimport TO finishes it), as with LVM2.
 */
#include "cmd/vgcmd.h"

#include <string.h>

#include "cmd/lvcreate_thin.h"
#include "meta/mda_policy.h"

static bool new_vg_option(const struct lvx_cmd_args *a)
{
    return a->count[LVX_OPT_ALLOC] || a->count[LVX_OPT_MAXPHYSICALVOLUMES] ||
           a->count[LVX_OPT_MAXLOGICALVOLUMES] || a->count[LVX_OPT_VGMETADATACOPIES] ||
           a->count[LVX_OPT_METADATACOPIES_VG];
}

/* A new destination: vgcreate's defaults taken from FROM, then the options. */
static int new_dest(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *name,
                    struct lvx_vg **out)
{
    const struct lvx_vg *from = u->vg;
    struct lvx_vgcmd_settings s = {
        .extent_size = from->extent_size, .max_lv = from->max_lv, .max_pv = from->max_pv,
        .mda_copies = from->metadata_copies, .alloc = from->alloc,
    };
    int rc = lvx_vgcmd_settings(env, &s);
    if (rc)
        return rc;
    *out = lvx_vgcmd_new_vg(u->set->pool, name, &s);
    (*out)->system_id = from->system_id;
    return 0;
}

static bool has_mda(const struct lvx_vg *vg)
{
    for (unsigned i = 0; i < vg->pv_count; i++)
        if (vg->pvs[i]->ondisk.mda_count)
            return true;
    return false;
}

/* Move what the command line names into `to`; errors printed. */
static int move(struct lvx_cmd_env *env, struct lvx_vg *from, struct lvx_vg *to)
{
    struct lvx_cmd_args *a = env->args;
    if (a->count[LVX_OPT_NAME]) {
        const char *name = a->value[LVX_OPT_NAME];
        const char *slash = strrchr(name, '/');
        struct lvx_lv *lv = lvx_vg_find_lv(from, slash ? slash + 1 : name);
        if (!lv) {
            lvx_cmd_errorf("Logical volume %s not in volume group %s", name, from->name);
            return LVX_EXIT_FAILED;
        }
        if (!(from->status & LVX_VG_RESIZEABLE)) {
            lvx_cmd_errorf("Cannot move PV(s) from non resize volume group %s.", from->name);
            return LVX_EXIT_FAILED;
        }
        if (!(to->status & LVX_VG_RESIZEABLE)) {
            lvx_cmd_errorf("Cannot move PV(s) to non resize volume group %s.", to->name);
            return LVX_EXIT_FAILED;
        }
        lvx_vg_move_pvs_of_lv(from, to, lv);
    }
    for (int i = 2; i < a->argc; i++) {
        struct lvx_pv *pv = NULL;
        for (unsigned p = 0; p < from->pv_count && !pv; p++)
            if (from->pvs[p]->ondisk.present &&
                lvx_cmd_same_device(a->argv[i], from->pvs[p]->ondisk.dev_name))
                pv = from->pvs[p];
        if (!pv) {
            lvx_cmd_errorf("Physical volume %s not in volume group %s", a->argv[i], from->name);
            return LVX_EXIT_FAILED;
        }
        const struct lvx_vg *bad = !(from->status & LVX_VG_RESIZEABLE) ? from
                                   : !(to->status & LVX_VG_RESIZEABLE) ? to : NULL;
        if (bad) {
            lvx_cmd_errorf("Volume group %s is not resizeable.", bad->name);
            return LVX_EXIT_FAILED;
        }
        lvx_vg_move_pv(to, pv);
    }
    if (lvx_vg_split_lvs(env->ctx, from, to, lvx_vgcmd_lv_active, env) < 0)
        return lvx_cmd_fail(env);
    if (from->pv_count && (!has_mda(from) || !has_mda(to))) {
        lvx_cmd_errorf("Cannot split: Nowhere to store metadata for new Volume Group");
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* The three writes (see the top of the file). */
static int write_both(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_vg_update *ut)
{
    const char *line = lvx_vgcmd_command_line(env);
    ut->vg->status |= LVX_VG_EXPORTED;
    if (lvx_vg_update_commit(env->ctx, ut, line) < 0)
        return lvx_cmd_fail(env);
    lvx_buf_reset(&ut->archive_text);      /* archived once */
    if (u->vg->pv_count) {
        u->old_pv_count = 0;     /* the moved PVs now carry TO: nothing to detach */
        if (lvx_vg_update_commit(env->ctx, u, line) < 0)
            return lvx_cmd_fail(env);
    }
    ut->vg->status &= ~LVX_VG_EXPORTED;
    if (lvx_vg_update_commit(env->ctx, ut, line) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

static int split(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *to_name)
{
    struct lvx_vg *from = u->vg;
    struct lvx_vg *to = lvx_vgcmd_find_named(u->set, to_name);
    bool existing = to != NULL;
    int rc;
    struct lvx_vg_update ut;
    memset(&ut, 0, sizeof(ut));
    ut.global_lock.fd = ut.vg_lock.fd = -1;
    ut.scan = u->scan;
    ut.set = u->set;
    if (existing) {
        if (lvx_vg_update_check(env->ctx, to, 0) < 0) {
            lvx_cmd_fail(env);
            lvx_cmd_errorf("Failed to read VG %s.", to_name);
            return LVX_EXIT_FAILED;
        }
        if (new_vg_option(env->args)) {
            lvx_cmd_errorf("Volume group \"%s\" exists, but new VG option specified", to_name);
            return LVX_EXIT_FAILED;
        }
        if ((rc = lvx_vgcmd_compatible(env, from, to)))
            return rc;
        lvx_vg_update_set_old(env->ctx, &ut, to);      /* its archive, before the change */
    } else if ((rc = new_dest(env, u, to_name, &to))) {
        return rc;
    }
    ut.vg = to;
    /* LVM2's handle_pool_metadata_spare on each side, TO first: a spare made where
     * pools are left without one (or grown), dropped where none is */
    if (!(rc = move(env, from, to)) && !(rc = lvx_thin_vg_spare(env, &ut, true)))
        rc = lvx_thin_vg_spare(env, u, true);
    if (!rc) {
        if (!env->args->count[LVX_OPT_TEST])
            rc = write_both(env, u, &ut);
    }
    lvx_buf_free(&ut.archive_text);
    lvx_vg_backup_warning(env->ctx);          /* LVM2: before its message */
    if (!rc)
        lvx_notice(env->ctx, "%s volume group \"%s\" successfully split from \"%s\"",
                   existing ? "Existing" : "New", to_name, from->name);
    return rc;
}

int lvx_cmd_vgsplit(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    bool by_lv = a->count[LVX_OPT_NAME] != 0;
    /* LVM2's two command forms: VG VG PV..., --name LV VG VG */
    if (a->argc < 2 || (!by_lv && a->argc < 3)) {
        return lvx_vgcmd_syntax(env, NULL);
    }
    if (by_lv && a->argc > 2)
        return lvx_vgcmd_extra_arg(a->argv[2]);
    const char *from = lvx_vgcmd_skip_dev_dir(a->argv[0]), *to = lvx_vgcmd_skip_dev_dir(a->argv[1]);
    if (strcmp(from, to) == 0) {
        lvx_cmd_errorf("Duplicate volume group name \"%s\"", from);
        return LVX_EXIT_FAILED;
    }
    struct lvx_lock global = LVX_LOCK_INIT, lock_from = LVX_LOCK_INIT, lock_to = LVX_LOCK_INIT;
    int rc = 0;
    if (lvx_lock_global(env->ctx, true, &global) < 0) {
        rc = lvx_cmd_fail(env);
        goto out;
    }
    if (!lvx_name_valid(to)) {
        lvx_cmd_errorf("Invalid vg name %s.", to);
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    if (lvx_name_valid(from) && (rc = lvx_vgcmd_lock_pair(env, from, to, &lock_from, &lock_to)))
        goto out;
    struct lvx_vg_update u;
    if ((rc = lvx_vgcmd_begin(env, from, LVX_UPDATE_NO_VG_LOCK, &u)) != 0) {
        lvx_cmd_errorf("Failed to read VG %s.", to);    /* LVM2 names the destination */
        goto out;
    }
    rc = split(env, &u, to);
    lvx_vg_update_end(&u);
out:
    lvx_unlock(&lock_to);
    lvx_unlock(&lock_from);
    lvx_unlock(&global);
    return rc;
}
