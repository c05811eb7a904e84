/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgmerge.c - `lvx vgmerge TO FROM...`: every PV and LV of each FROM joins TO, with
 * LVM2's refusals (active LVs in FROM, different extent sizes, TO's limits, an LV name
 * in both: lvx_vgcmd_compatible).  -l/--list is accepted and, as in LVM2, prints
 * nothing more.  Both versions are archived; one commit of TO over all the PVs writes
 * the merged VG (LVM2 writes it the same way, docs/design.md "VG surgery").  The pool
 * metadata spare as LVM2 keeps it: of two spares the smaller goes before the merge,
 * and after it the merged VG's spare is made or grown to its largest pool metadata,
 * or dropped when no pool is left (--poolmetadataspare n: left as it is, with LVM2's
 * warning when pools are there).
 */
#include "cmd/vgcmd.h"

#include <string.h>

#include "cmd/lvcreate_thin.h"
#include "model/thin.h"

/* Before the merge: of two spares, the smaller one goes (FROM's on a tie). */
static void drop_smaller_spare(struct lvx_vg *to, struct lvx_vg *from)
{
    struct lvx_lv *st = lvx_vg_pmspare(to), *sf = lvx_vg_pmspare(from);
    if (!st || !sf)
        return;
    if (st->le_count < sf->le_count)
        lvx_vg_remove_lv(to, st);
    else
        lvx_vg_remove_lv(from, sf);
}

/* LVM2's refusals, after the smaller spare went (both VGs may have lvol0_pmspare). */
static int compatible(struct lvx_cmd_env *env, struct lvx_vg *to, struct lvx_vg *from)
{
    drop_smaller_spare(to, from);
    return lvx_vgcmd_compatible(env, from, to);
}

static int merge_one(struct lvx_cmd_env *env, const char *to_name, const char *from_name)
{
    if (strcmp(to_name, from_name) == 0) {
        lvx_cmd_errorf("Duplicate volume group name \"%s\"", from_name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_lock lock_to = LVX_LOCK_INIT, lock_from = LVX_LOCK_INIT;
    int rc = 0;
    if (lvx_name_valid(to_name) && lvx_name_valid(from_name) &&
        (rc = lvx_vgcmd_lock_pair(env, to_name, from_name, &lock_to, &lock_from)))
        return rc;
    struct lvx_vg_update u;
    if ((rc = lvx_vgcmd_begin(env, to_name, LVX_UPDATE_NO_VG_LOCK, &u)) != 0)
        goto out;
    struct lvx_vg *to = u.vg, *from = lvx_vgcmd_find_named(u.set, from_name);
    if (!from) {
        lvx_cmd_errorf("Volume group \"%s\" not found", from_name);
        rc = LVX_EXIT_FAILED;
    } else if (lvx_vg_update_check(env->ctx, from, 0) < 0) {
        rc = lvx_cmd_fail(env);
    } else if (!(rc = compatible(env, to, from))) {
        const char *line = lvx_vgcmd_command_line(env);
        if (!env->args->count[LVX_OPT_TEST]) {
            /* FROM's last version goes to the archive too (TO's by the commit) */
            struct lvx_vg_update uf;
            memset(&uf, 0, sizeof(uf));
            uf.set = u.set;
            uf.vg = from;
            lvx_vg_update_set_old(env->ctx, &uf, from);
            lvx_vg_update_archive(env->ctx, &uf, line);
            lvx_buf_free(&uf.archive_text);
        }
        const char *fname = lvx_pool_strdup(env->pool, from->name);
        lvx_vg_merge(to, from);
        rc = lvx_thin_vg_spare(env, &u, lvx_cmd_bool(env, LVX_OPT_POOLMETADATASPARE, true));
        if (!rc)
            rc = lvx_vgcmd_commit(env, &u);
        lvx_vg_backup_warning(env->ctx);      /* LVM2: before its message */
        if (!rc)
            lvx_notice(env->ctx, "Volume group \"%s\" successfully merged into \"%s\"", fname,
                       to->name);
    }
    lvx_vg_update_end(&u);
out:
    lvx_unlock(&lock_from);
    lvx_unlock(&lock_to);
    return rc;
}

int lvx_cmd_vgmerge(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    if (a->argc < 2)
        return lvx_vgcmd_syntax(env, "vgmerge VG VG");
    if (a->argc > 2)           /* LVM2 2.03's form takes two VGs */
        return lvx_vgcmd_extra_arg(a->argv[2]);
    struct lvx_lock global = LVX_LOCK_INIT;
    if (lvx_lock_global(env->ctx, true, &global) < 0)
        return lvx_cmd_fail(env);
    int rc = merge_one(env, lvx_vgcmd_skip_dev_dir(a->argv[0]), lvx_vgcmd_skip_dev_dir(a->argv[1]));
    lvx_unlock(&global);
    return rc;
}
