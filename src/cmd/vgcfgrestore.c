/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgcfgrestore.c - `lvx vgcfgrestore [-f FILE] VG` and `vgcfgrestore -l VG`.
 *
 * Restore: the file (default: the VG's backup file) is parsed and its VG written,
 * under the global and the VG lock, to the PVs found by PV UUID (their labels must
 * exist; a PV listed in the file without a device refuses the restore).  The new
 * version is max(file seqno, current seqno) + 1 so it wins over every copy on disk.
 * VGs with thin pools need --force (as LVM2).  PVs of the current VG that the file
 * does not list become orphans (detached by the commit, before its commit point).
 * List: the VG's archive files (index order) and its backup file, each with its
 * description and creation time, as LVM2 prints them.
 */
#include "cmd/vgcmd.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "config/config.h"
#include "meta/backup.h"
#include "meta/commit.h"
#include "meta/vgops.h"

/* The VG of a backup or archive file; NULL with the error printed. */
static struct lvx_vg *load_file(struct lvx_cmd_env *env, struct lvx_pool *pool, const char *path)
{
    struct lvx_vg *vg;
    bool bad_text;
    if (lvx_backup_read(env->ctx, pool, path, &vg, &bad_text) == 0)
        return vg;
    if (bad_text)
        lvx_cmd_errorf("Couldn't read volume group metadata from %s: %s", path, env->ctx->errmsg);
    else
        lvx_cmd_errorf("%s", env->ctx->errmsg);
    lvx_error_clear(env->ctx);
    return NULL;
}

static const char *dir_setting(struct lvx_cmd_env *env, const char *key, const char *sub)
{
    struct lvx_config *cfg = NULL;
    const char *dflt = lvx_pool_printf(env->pool, "%s/%s", lvx_config_system_dir(), sub);
    if (lvx_config_load(env->ctx, &cfg) < 0)
        return dflt;
    const char *v = lvx_pool_strdup(env->pool, lvx_config_str(cfg, key, dflt));
    lvx_config_free(cfg);
    return v;
}

/* ---- -l / --list ---------------------------------------------------------------- */

struct archive_file {
    const char *path;
    unsigned long index;
};

static int by_index(const void *a, const void *b)
{
    const struct archive_file *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void list_one(struct lvx_cmd_env *env, struct lvx_buf *out, const char *path)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = load_file(env, pool, path);
    if (vg) {
        char when[64] = "";
        time_t t = (time_t)vg->creation_time;
        struct tm tm;
        if (localtime_r(&t, &tm))
            strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
        lvx_buf_printf(out, "   \n  File:\t\t%s\n  VG name:    \t%s\n  Description:\t%s\n"
                       "  Backup Time:\t%s\n\n", path, vg->name,
                       vg->description ? vg->description : "", when);
    }
    lvx_pool_destroy(pool);
}

static int list_archives(struct lvx_cmd_env *env, const char *vgname)
{
    const char *dir = dir_setting(env, "backup/archive_dir", "archive");
    size_t vlen = strlen(vgname);
    unsigned n = 0, cap = 16;
    struct archive_file *v = lvx_pool_alloc(env->pool, cap * sizeof(*v));
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *name = e->d_name;
        size_t nl = strlen(name);
        char *end;
        if (strncmp(name, vgname, vlen) || name[vlen] != '_' || nl < vlen + 9 ||
            strcmp(name + nl - 3, ".vg"))
            continue;
        unsigned long idx = strtoul(name + vlen + 1, &end, 10);
        if (end != name + vlen + 6 || *end != '-')
            continue;
        if (n == cap) {
            v = lvx_pool_realloc(env->pool, v, cap * sizeof(*v), 2 * cap * sizeof(*v));
            cap *= 2;
        }
        v[n].path = lvx_pool_printf(env->pool, "%s/%s", dir, name);
        v[n++].index = idx;
    }
    if (d)
        closedir(d);
    if (n == 0) {
        lvx_notice(env->ctx, "No archives found in %s.", dir);
        return 0;
    }
    qsort(v, n, sizeof(*v), by_index);
    struct lvx_buf out = LVX_BUF_INIT;
    for (unsigned i = 0; i < n; i++)
        list_one(env, &out, v[i].path);
    const char *backup = lvx_pool_printf(env->pool, "%s/%s",
                                         dir_setting(env, "backup/backup_dir", "backup"), vgname);
    struct stat st;
    if (stat(backup, &st) == 0)
        list_one(env, &out, backup);
    int rc = lvx_cmd_output(&out);
    lvx_buf_free(&out);
    return rc;
}

/* ---- restore ---------------------------------------------------------------------- */

static bool has_thin_pool(const struct lvx_vg *vg)
{
    for (unsigned l = 0; l < vg->lv_count; l++)
        for (unsigned s = 0; s < vg->lvs[l]->seg_count; s++)
            if (vg->lvs[l]->segs[s].kind == LVX_SEG_THIN_POOL)
                return true;
    return false;
}

/* Highest seqno of the VG (by UUID) seen in any area of the scan. */
static uint32_t max_seqno_on_disk(const struct lvx_scan *scan, const char *vg_uuid)
{
    uint32_t max = 0;
    for (unsigned i = 0; i < scan->pv_count; i++)
        for (unsigned m = 0; m < scan->pvs[i].mda_count; m++) {
            const struct lvx_scan_mda *sm = &scan->pvs[i].mda[m];
            if (sm->text && strcmp(sm->vg_uuid, vg_uuid) == 0 && sm->seqno > max)
                max = sm->seqno;
        }
    return max;
}

/* Every PV of the file must be present, and not a member of another VG. */
static int attach_pvs(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_vg *vg)
{
    for (unsigned p = 0; p < vg->pv_count; p++) {
        struct lvx_pv *pv = vg->pvs[p];
        char dashed[LVX_UUID_DASHED_LEN + 1];
        lvx_uuid_format(pv->uuid, dashed);
        struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, pv->uuid);
        if (!spv) {
            lvx_cmd_errorf("Cannot restore Volume Group %s: no device found for PV %s.",
                           vg->name, dashed);
            return LVX_EXIT_FAILED;
        }
        for (unsigned i = 0; i < u->set->vg_count; i++) {
            const struct lvx_vg *other = u->set->vgs[i];
            if (strcmp(other->uuid, vg->uuid) != 0 && lvx_vg_find_pv_uuid(other, pv->uuid)) {
                lvx_cmd_errorf("Cannot restore Volume Group %s: PV %s (%s) belongs to volume "
                               "group %s.", vg->name, spv->dev->path, dashed, other->name);
                return LVX_EXIT_FAILED;
            }
        }
        lvx_scan_fill_ondisk(vg->pool, &pv->ondisk, spv);
    }
    return 0;
}

static struct lvx_vg *current_vg(const struct lvx_vgset *set, const struct lvx_vg *vg)
{
    for (unsigned i = 0; i < set->vg_count; i++)
        if (strcmp(set->vgs[i]->uuid, vg->uuid) == 0)
            return set->vgs[i];
    return NULL;
}

static int restore(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *vgname,
                   const char *path)
{
    int rc;
    if (lvx_lock_vg(env->ctx, vgname, true, &u->vg_lock) < 0)
        return lvx_cmd_fail(env);
    struct lvx_vg *vg = load_file(env, u->set->pool, path);
    if (!vg)
        return LVX_EXIT_FAILED;
    if (strcmp(vg->name, vgname) != 0) {
        lvx_cmd_errorf("'%s' does not contain volume group '%s'.", path, vgname);
        return LVX_EXIT_FAILED;
    }
    if (has_thin_pool(vg) && !env->args->count[LVX_OPT_FORCE_LONG]) {
        lvx_cmd_errorf("Consider using option --force to restore Volume Group %s with thin "
                       "volumes.", vgname);
        return LVX_EXIT_FAILED;
    }
    for (unsigned i = 0; i < u->set->vg_count; i++)
        if (!strcmp(u->set->vgs[i]->name, vgname) && strcmp(u->set->vgs[i]->uuid, vg->uuid)) {
            lvx_cmd_errorf("Cannot restore Volume Group %s: a different VG with that name exists.",
                           vgname);
            return LVX_EXIT_FAILED;
        }
    if ((rc = attach_pvs(env, u, vg)) != 0)
        return rc;
    if (lvx_vg_validate(env->ctx, vg) < 0)
        return lvx_cmd_fail(env);

    struct lvx_vg *cur = current_vg(u->set, vg);
    uint32_t seqno = max_seqno_on_disk(u->scan, vg->uuid);
    if (vg->seqno > seqno)
        seqno = vg->seqno;
    vg->seqno = seqno;                      /* the commit writes seqno + 1 */
    if (cur)            /* its PVs the file does not list are detached by the commit */
        lvx_vg_update_set_old(env->ctx, u, cur);
    u->vg = vg;
    if ((rc = lvx_vgcmd_commit(env, u)) != 0)
        return rc;
    lvx_notice(env->ctx, "Restored volume group %s.", vgname);
    return rc;
}

int lvx_cmd_vgcfgrestore(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    if (a->argc != 1) {
        lvx_cmd_errorf("Please specify a single volume group name to restore");
        return LVX_EXIT_INVALID;
    }
    const char *vgname = a->argv[0];
    if (!lvx_name_valid(vgname)) {
        lvx_cmd_errorf("Volume group name \"%s\" is invalid.", vgname);
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_LIST] && a->count[LVX_OPT_FILE]) {
        struct lvx_buf out = LVX_BUF_INIT;
        list_one(env, &out, a->value[LVX_OPT_FILE]);
        int r = out.len ? lvx_cmd_output(&out) : LVX_EXIT_FAILED;
        lvx_buf_free(&out);
        return r;
    }
    if (a->count[LVX_OPT_LIST])
        return list_archives(env, vgname);
    const char *path = a->count[LVX_OPT_FILE] ? a->value[LVX_OPT_FILE]
        : lvx_pool_printf(env->pool, "%s/%s", dir_setting(env, "backup/backup_dir", "backup"),
                          vgname);
    struct lvx_vg_update u;
    int rc = lvx_vgcmd_begin(env, NULL, LVX_UPDATE_GLOBAL_LOCK, &u);
    if (rc)
        return rc;
    rc = restore(env, &u, vgname, path);
    lvx_vg_update_end(&u);
    return rc;
}
