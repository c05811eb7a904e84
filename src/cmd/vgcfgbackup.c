/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgcfgbackup.c - `lvx vgcfgbackup [-f FILE] [VG ...]`: write each VG's
 * metadata in LVM2's backup-file layout, to FILE ("%s" in it becomes the VG
 * name, required when several VGs are backed up) or to <system_dir>/backup/<vg>.
 */
#include "cmd/toolkit.h"

#include "meta/backup.h"

/* "vgcfgbackup -f x vg" as LVM2 writes it in the description. */
static const char *command_line(struct lvx_cmd_env *env)
{
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_buf_puts(&b, env->command->name);
    for (int i = 1; i < env->args->full_argc; i++)
        lvx_buf_printf(&b, " %s", env->args->full_argv[i]);
    const char *s = lvx_pool_strdup(env->pool, lvx_buf_str(&b));
    lvx_buf_free(&b);
    return s;
}

static int backup_one(struct lvx_cmd_env *env, const struct lvx_vg *vg, unsigned index,
                      const char *description)
{
    const char *tmpl = env->args->value[LVX_OPT_FILE];
    char *path;

    if (tmpl) {
        if (index > 0 && !lvx_backup_template_has_vg(tmpl)) {
            lvx_cmd_errorf("VGs must be backed up into different files. "
                           "Use %%s in filename for VG name.");
            return LVX_EXIT_FAILED;
        }
        if (lvx_backup_expand_name(env->ctx, env->pool, tmpl, vg->name, &path) < 0)
            return lvx_cmd_fail(env);
    } else {
        if (lvx_backup_make_dir(env->ctx, lvx_backup_dir(env->pool)) < 0)
            return lvx_cmd_fail(env);
        path = lvx_backup_default_path(env->pool, vg->name);
    }
    if (lvx_backup_write_file(env->ctx, vg, path, description) < 0)
        return lvx_cmd_fail(env);
    lvx_notice(env->ctx, "Volume group \"%s\" successfully backed up.", vg->name);
    return LVX_EXIT_OK;
}

static int backup_all(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *out,
                      void *arg)
{
    const char *description = command_line(env);
    bool failed = false;
    for (unsigned i = 0; i < sel->vg_count; i++)
        if (backup_one(env, sel->vgs[i], i, description) != LVX_EXIT_OK)
            failed = true;
    return failed ? LVX_EXIT_FAILED : LVX_EXIT_OK;
}

int lvx_cmd_vgcfgbackup(struct lvx_cmd_env *env)
{
    return lvx_process_read(env, LVX_TK_VGS, backup_all, NULL);
}
