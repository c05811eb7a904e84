/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgrename.c - `lvx vgrename OLD NEW` (OLD may be the VG UUID).  Takes the
 * global lock and both VG locks (in name order, so two renames cannot deadlock),
 * then commits the VG under its new name; the old backup file is removed and the
 * new one written.
 */
#include "cmd/vgcmd.h"

#include "nodes/dm_nodes.h"

#include <string.h>

static int rename_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *new_name)
{
    struct lvx_vg *vg = u->vg;
    const char *old_name = lvx_pool_strdup(env->pool, vg->name);
    if (strcmp(old_name, new_name) == 0) {
        lvx_cmd_errorf("New VG name must differ from the old VG name.");   /* named by UUID */
        return LVX_EXIT_FAILED;
    }
    if (lvx_vgcmd_find_named(u->set, new_name)) {
        lvx_cmd_errorf("New VG name \"%s\" already exists", new_name);
        return LVX_EXIT_FAILED;
    }
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (!lvx_lv_full_name_fits(new_name, vg->lvs[i]->name)) {
            lvx_cmd_errorf("Internal error: LV name \"%s/%s\" length %zu is not supported.",
                           new_name, vg->lvs[i]->name,
                           strlen(new_name) + strlen(vg->lvs[i]->name) + 3);
            return LVX_EXIT_FAILED;
        }
    vg->name = lvx_pool_strdup(vg->pool, new_name);
    int rc = lvx_vgcmd_commit(env, u);
    if (rc)
        return rc;
    if (!env->args->count[LVX_OPT_TEST])
        lvx_vg_remove_backup(env->ctx, old_name);
    lvx_vg_backup_warning(env->ctx);          /* LVM2: before its message */
    lvx_notice(env->ctx, "Volume group \"%s\" successfully renamed to \"%s\"", old_name, new_name);
    return 0;
}

int lvx_cmd_vgrename(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    if (a->argc != 2) {
        lvx_cmd_errorf("Old and new volume group names need specifying");
        return LVX_EXIT_INVALID;
    }
    const char *old_arg = a->argv[0], *new_name = a->argv[1];
    /* as LVM2: the path /dev/<new> must fit a name, and every refusal here is exit 5 */
    size_t dir_len = strlen(lvx_dm_dev_dir()) + 1;
    size_t max = LVX_NAME_MAX + 1 > dir_len + 2 ? LVX_NAME_MAX + 1 - dir_len - 2 : 0;
    if (strlen(new_name) > max) {
        lvx_cmd_errorf("New volume group path exceeds maximum length of %zu!", max);
        return LVX_EXIT_FAILED;
    }
    int name_rc = lvx_vgcmd_new_name(env, new_name, LVX_EXIT_FAILED);
    if (name_rc)
        return name_rc;
    if (strcmp(old_arg, new_name) == 0) {
        lvx_cmd_errorf("Old and new volume group names must differ");
        return LVX_EXIT_FAILED;
    }
    struct lvx_lock global = LVX_LOCK_INIT, lock_old = LVX_LOCK_INIT, lock_new = LVX_LOCK_INIT;
    struct lvx_lock lock_found = LVX_LOCK_INIT;
    int rc = 0;
    if (lvx_lock_global(env->ctx, true, &global) < 0) {
        rc = lvx_cmd_fail(env);
        goto out;
    }
    if (lvx_name_valid(old_arg) && strcmp(old_arg, new_name) != 0)
        rc = lvx_vgcmd_lock_pair(env, old_arg, new_name, &lock_old, &lock_new);
    else
        rc = lvx_lock_vg(env->ctx, new_name, true, &lock_new) < 0 ? lvx_cmd_fail(env) : 0;
    if (rc)
        goto out;
    struct lvx_vg_update u;
    /* an exported VG may be renamed (LVM2: ALLOW_EXPORTED) */
    if ((rc = lvx_vgcmd_begin(env, old_arg, LVX_UPDATE_NO_VG_LOCK | LVX_UPDATE_ALLOW_EXPORTED,
                              &u)) != 0)
        goto out;
    /* named by UUID: lock the real name too */
    if (strcmp(u.vg->name, old_arg) != 0 && strcmp(u.vg->name, new_name) != 0 &&
        lvx_lock_vg(env->ctx, u.vg->name, true, &lock_found) < 0)
        rc = lvx_cmd_fail(env);
    if (!rc)
        rc = rename_vg(env, &u, new_name);
    lvx_vg_update_end(&u);
out:
    lvx_unlock(&lock_found);
    lvx_unlock(&lock_new);
    lvx_unlock(&lock_old);
    lvx_unlock(&global);
    return rc;
}
