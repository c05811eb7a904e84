/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgchange_systemid.c - `vgchange --systemid ID VG`: a VG of this host (or one
 * without a system ID) gets another system ID, or none with "" (meta/systemid.h).  As
 * LVM2 2.03.16: the ID is cleaned of characters LVM2 does not keep; the same ID is
 * refused; dropping the ID, or setting one other than the local ID (the VG becomes
 * foreign), asks first unless -y, and the latter needs every LV inactive.  A foreign
 * VG cannot be changed (the update cycle refuses it).
 */
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"

#include <stdio.h>
#include <string.h>

#include "cmd/lvcmd.h"
#include "meta/systemid.h"

static int change_sysid(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit, void *arg)
{
    struct lvx_vg *vg = u->vg;
    const char *id = lvx_system_id_clean(env->ctx, env->pool, env->args->value[LVX_OPT_SYSTEMID]);
    const char *now = vg->system_id ? vg->system_id : "";
    bool yes = env->args->count[LVX_OPT_YES] > 0;
    char q[512];
    if (!id) {
        lvx_cmd_errorf("Unable to set system ID.");
        return LVX_EXIT_FAILED;
    }
    if (strcmp(now, id) == 0) {
        lvx_cmd_errorf("Volume Group system ID is already \"%s\".", now);
        return LVX_EXIT_FAILED;
    }
    const char *local = lvx_system_id_local(env->ctx, env->pool, NULL);
    if (!*id && *local) {
        lvx_warn(env->ctx, "WARNING: Removing the system ID allows unsafe access from other "
                 "hosts.");
        snprintf(q, sizeof(q), "Remove system ID %s from volume group %s?", now, vg->name);
        if (!yes && !lvx_lvcmd_confirm(q)) {
            lvx_cmd_errorf("System ID of volume group %s not changed.", vg->name);
            return LVX_EXIT_FAILED;
        }
    }
    if (*id && strcmp(id, local) != 0) {
        if (lvx_vgcmd_has_active_lv(env, vg)) {
            lvx_cmd_errorf("Logical Volumes in VG %s must be deactivated before system ID can "
                           "be changed.", vg->name);
            return LVX_EXIT_FAILED;
        }
        if (*local)
            lvx_warn(env->ctx, "WARNING: Requested system ID %s does not match local system "
                     "ID %s.", id, local);
        else
            lvx_warn(env->ctx, "WARNING: No local system ID is set.");
        lvx_warn(env->ctx, "WARNING: Volume group %s might become inaccessible from this "
                 "machine.", vg->name);
        snprintf(q, sizeof(q), "Set foreign system ID %s on volume group %s?", id, vg->name);
        if (!yes && !lvx_lvcmd_confirm(q)) {
            lvx_cmd_errorf("Volume group %s system ID not changed.", vg->name);
            return LVX_EXIT_FAILED;
        }
    }
    vg->system_id = *id ? lvx_pool_strdup(vg->pool, id) : NULL;
    *commit = true;
    return 0;
}

static int changed(struct lvx_cmd_env *env, struct lvx_vg_update *u, void *arg)
{
    lvx_notice(env->ctx, "Volume group \"%s\" successfully changed", u->vg->name);
    return 0;
}

int lvx_vgchange_systemid(struct lvx_cmd_env *env)
{
    /* LVM2's command form "vgchange --systemid String VG": nothing else */
    static const enum lvx_opt_id other[] = {
        LVX_OPT_ACTIVATE, LVX_OPT_RESIZEABLE, LVX_OPT_VGMETADATACOPIES, LVX_OPT_METADATACOPIES_VG,
        LVX_OPT_ALLOC, LVX_OPT_ADDTAG, LVX_OPT_DELTAG, LVX_OPT_UUID, LVX_OPT_MAXLOGICALVOLUMES,
        LVX_OPT_MAXPHYSICALVOLUMES, LVX_OPT_SETAUTOACTIVATION, LVX_OPT_LOCKSTART,
        LVX_OPT_LOCKSTOP, LVX_OPT_MONITOR,
    };
    for (size_t i = 0; i < sizeof(other) / sizeof(*other); i++)
        if (env->args->count[other[i]]) {
            lvx_cmd_errorf("Command does not accept option: --systemid %s.",
                           env->args->value[LVX_OPT_SYSTEMID]);
            return LVX_EXIT_INVALID;
        }
    if (env->args->argc < 1) {
        lvx_cmd_errorf("No command with matching syntax recognised.  Run 'vgchange --help' "
                       "for more information.");
        lvx_cmd_errorf("Nearest similar command has syntax:");
        static const char near[] = "  vgchange --systemid String VG\n"
                                   "  Change the system ID of a VG.\n\n";
        lvx_cmd_write(near, sizeof(near) - 1);      /* on stdout, as LVM2 */
        return LVX_EXIT_INVALID;
    }
    struct lvx_tk_vg_ops ops = { .vg = change_sysid, .done = changed };
    return lvx_process_each_vg(env, &ops);
}
