/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/update.c - begin / commit / end of a VG change (see update.h), with LVM2's
 * archive and backup files:
 *   archive: <system_dir>/archive/<vg>_<NNNNN>-<random>.vg, the version before the
 *            change, NNNNN one more than the highest present; pruned to keep at least
 *            backup/retain_min (10) files and none older than backup/retain_days (30)
 *            beyond those;
 *   backup:  <system_dir>/backup/<vg>, the version after the change.
 */
#include "meta/update.h"
#include "meta/backup.h"
#include "meta/cache.h"
#include "meta/commit.h"
#include "meta/index.h"
#include "meta/lockd.h"
#include "meta/systemid.h"
#include "meta/mda_policy.h"
#include "meta/read.h"
#include "config/config.h"
#include "format/vg_text.h"
#include "util/phase.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* lvm.conf backup/archive (on unless 0; an unreadable lvm.conf fails the commit later). */
static bool archive_enabled(struct lvx_ctx *ctx)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return true;
    }
    bool on = lvx_config_int(cfg, "backup/archive", 1) != 0;
    lvx_config_free(cfg);
    return on;
}

/* The scan and VG set: the set a session kept (KEEP_SET, meta/cache.h) when it is still
 * good for the revalidated scan and holds the VG, else assembled afresh. */
static int update_assemble(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                           const char *vgname, struct lvx_vg_update *u)
{
    if ((u->flags & LVX_UPDATE_KEEP_SET) && ctx->cache && vgname) {
        int r = lvx_scan(ctx, opts, &u->scan);
        if (r < 0)
            return r;
        if (u->scan->origin && u->scan->origin->cache)
            u->set = lvx_cache_take_set(u->scan->origin->cache, u->scan);
        if (u->set && lvx_vgset_find(u->set, vgname)) {
            lvx_debug(ctx, "Scan cache: reusing VG %s as the previous command committed it",
                      vgname);
            return 0;
        }
        lvx_vgset_free(u->set);
        u->set = NULL;
        return lvx_scan_assemble_from(ctx, opts, &u->scan, &u->set);   /* the same scan */
    }
    return lvx_scan_assemble(ctx, opts, &u->scan, &u->set);
}

int lvx_vg_update_begin(struct lvx_ctx *ctx, const struct lvx_scan_opts *scan_opts,
                        const char *vgname, unsigned flags, struct lvx_vg_update *u)
{
    memset(u, 0, sizeof(*u));
    u->flags = flags;
    u->ctx = ctx;
    u->global_lock.fd = u->vg_lock.fd = -1;
    bool exclusive = !(flags & LVX_UPDATE_READ_ONLY);
    int r;

    if ((flags & LVX_UPDATE_GLOBAL_LOCK) &&
        (r = lvx_lock_global(ctx, exclusive, &u->global_lock)) < 0)
        goto fail;
    if (vgname && !(flags & LVX_UPDATE_NO_VG_LOCK) && lvx_name_valid(vgname) &&
        (r = lvx_lock_vg(ctx, vgname, exclusive, &u->vg_lock)) < 0)
        goto fail;
    /* Only the VG's devices (meta/index.h), unless the command also looks at orphans or
     * other VGs' names (global lock, rename); the orphans it names are read with them */
    struct lvx_scan_opts opts = scan_opts ? *scan_opts : (struct lvx_scan_opts){ 0 };
    const char *names[1] = { vgname };
    if (vgname && !(flags & LVX_UPDATE_NO_VG_LOCK) &&
        (!(flags & LVX_UPDATE_GLOBAL_LOCK) || (flags & LVX_UPDATE_NAMED_ORPHANS))) {
        opts.vg_names = names;
        opts.vg_name_count = 1;
    }
    if ((r = update_assemble(ctx, &opts, vgname, u)) < 0)
        goto fail;
    if (!vgname)
        return 0;

    bool dup;
    u->vg = lvx_vgset_find_usable(ctx, u->set, vgname, &dup);
    if (!u->vg) {
        r = dup ? lvx_vg_dup_name_error(ctx, vgname)
                : lvx_error(ctx, ENOENT, "Volume group \"%s\" not found", vgname);
        goto fail;
    }
    /* a shared VG first, as LVM2's vg_read checks its lock type before anything else;
     * a change holds its lease, and the VG is read again under it (another host may
     * have changed it since) */
    if (lvx_vg_is_lockd(u->vg) && exclusive && !(flags & LVX_UPDATE_LOCKD_UNLOCKED)) {
        if ((r = lvx_lockd_vg_lock(ctx, u->vg, &u->lockd_hold)) < 0)
            goto fail;
        lvx_vgset_free(u->set);
        lvx_scan_free(u->scan);
        u->set = NULL;
        u->scan = NULL;
        if ((r = lvx_scan_assemble(ctx, &opts, &u->scan, &u->set)) < 0)
            goto fail;
        u->vg = lvx_vgset_find_usable(ctx, u->set, vgname, &dup);
        if (!u->vg) {
            r = lvx_error(ctx, ENOENT, "Volume group \"%s\" not found", vgname);
            goto fail;
        }
    } else if (!(flags & LVX_UPDATE_LOCKD_UNLOCKED) &&
               (r = lvx_lockd_access(ctx, u->vg, exclusive)) < 0) {
        goto fail;
    }
    if ((r = lvx_vg_update_check(ctx, u->vg, flags)) < 0)
        goto fail;
    u->old_seqno = u->vg->seqno;
    lvx_vg_update_set_old(ctx, u, u->vg);
    return 0;
fail:
    lvx_vg_update_end(u);
    return r;
}

int lvx_vg_update_check(struct lvx_ctx *ctx, const struct lvx_vg *vg, unsigned flags)
{
    bool exclusive = !(flags & LVX_UPDATE_READ_ONLY);
    if (!(flags & LVX_UPDATE_ALLOW_FOREIGN) &&
        lvx_vg_is_foreign(ctx, vg))      /* another host's VG (meta/systemid.h) */
        return lvx_vg_foreign_refuse(ctx, vg);
    if (!(flags & LVX_UPDATE_ALLOW_MISSING)) {
        for (unsigned i = 0; i < vg->pv_count; i++) {
            const struct lvx_pv *pv = vg->pvs[i];
            /* not found, or back with extents in use after a write flagged it MISSING
             * (meta/assemble.c clears the flag of a PV that came back unused) */
            if (!pv->ondisk.present || (pv->flags & LVX_PVF_MISSING))
                return lvx_error(ctx, ENODEV, "Cannot change VG %s while PVs are missing.",
                                 vg->name);
        }
    }
    if (exclusive && (vg->status & LVX_VG_EXPORTED) && !(flags & LVX_UPDATE_ALLOW_EXPORTED))
        return lvx_error(ctx, EPERM, "Volume group %s is exported", vg->name);
    if (exclusive && !(vg->status & LVX_VG_WRITE) && !(vg->flags & LVX_VGF_WRITE_LOCKED))
        return lvx_error(ctx, EPERM, "Volume group %s is read-only", vg->name);
    if (!lvx_vg_is_lockd(vg) && exclusive && !(flags & LVX_UPDATE_LOCKD_UNLOCKED) &&
        ((vg->lock_type && strcmp(vg->lock_type, "none") != 0) || (vg->status & (LVX_VG_CLUSTERED | LVX_VG_SHARED))))
        return lvx_error(ctx, EPERM, "Volume group %s is shared/clustered (lock_type %s): lvx does "
                         "not change such VGs", vg->name, vg->lock_type ? vg->lock_type : "clvm");
    return 0;
}

void lvx_vg_update_end(struct lvx_vg_update *u)
{
    if (u->committed && u->set && u->scan && u->scan->origin && u->scan->origin->cache &&
        lvx_cache_keep_set(u->scan->origin->cache, u->scan, u->set))
        u->set = NULL;
    if (u->set)
        lvx_vgset_free(u->set);
    if (u->scan)
        lvx_scan_free(u->scan);
    lvx_buf_free(&u->archive_text);
    u->set = NULL;
    u->scan = NULL;
    u->vg = NULL;
    u->old_pv_uuids = NULL;     /* lived in set's pool */
    u->old_pv_count = 0;
    lvx_lockd_vg_unlock(&u->lockd_hold);
    lvx_unlock(&u->vg_lock);
    lvx_unlock(&u->global_lock);
    if (u->ctx)
        lvx_vg_backup_warning(u->ctx);
}

/* ---- archive ------------------------------------------------------------ */

struct archive_entry {
    char name[512];
    unsigned index;
    time_t mtime;
};

static int archive_cmp(const void *a, const void *b)
{
    const struct archive_entry *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Entries <vg>_NNNNN-R.vg of dir, sorted by index. */
static struct archive_entry *list_archives(const char *dir, const char *vgname, unsigned *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t vlen = strlen(vgname);
    unsigned cap = 16;
    struct archive_entry *v = lvx_xmalloc(cap * sizeof(*v));
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *n = e->d_name;
        size_t nl = strlen(n);
        if (strncmp(n, vgname, vlen) || n[vlen] != '_' || nl < vlen + 9 ||
            strcmp(n + nl - 3, ".vg") || nl >= sizeof(v[0].name))
            continue;
        char *end;
        unsigned long idx = strtoul(n + vlen + 1, &end, 10);
        if (end != n + vlen + 6 || *end != '-')
            continue;
        if (*count == cap)
            v = lvx_xrealloc(v, (cap *= 2) * sizeof(*v));
        struct archive_entry *a = &v[(*count)++];
        snprintf(a->name, sizeof(a->name), "%s/%s", dir, n);
        a->index = (unsigned)idx;
        struct stat st;
        a->mtime = stat(a->name, &st) == 0 ? st.st_mtime : 0;
    }
    closedir(d);
    qsort(v, *count, sizeof(*v), archive_cmp);
    return v;
}

static void prune_archives(struct archive_entry *v, unsigned count, int64_t retain_min,
                           int64_t retain_days)
{
    time_t now = time(NULL);
    for (unsigned i = 0; i + (unsigned)retain_min < count; i++)
        if (now - v[i].mtime > retain_days * 86400)
            unlink(v[i].name);
}

static int write_text_file(struct lvx_ctx *ctx, const char *path, const char *text, size_t len)
{
    char tmp[4200];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return lvx_error(ctx, errno, "Cannot create %s: %s", tmp, strerror(errno));
    ssize_t w = write(fd, text, len);
    int ok = w == (ssize_t)len && fsync(fd) == 0;
    close(fd);
    if (!ok || rename(tmp, path) < 0) {
        unlink(tmp);
        return lvx_error(ctx, EIO, "Cannot write %s", path);
    }
    return 0;
}

/* Replace the description line of the rendered archive text. */
static void set_description(struct lvx_buf *out, const char *text, const char *description)
{
    const char *p = strstr(text, "description = \"");
    if (!p) {
        lvx_buf_puts(out, text);
        return;
    }
    const char *eol = strchr(p, '\n');
    lvx_buf_append(out, text, (size_t)(p - text));
    lvx_buf_puts(out, "description = ");
    lvx_cfg_print_quoted(out, description);
    lvx_buf_puts(out, eol ? eol : "\n");
}

static int write_archive(struct lvx_ctx *ctx, const struct lvx_config *cfg, struct lvx_vg_update *u,
                         const char *command_line)
{
    if (!lvx_config_int(cfg, "backup/archive", 1) || !u->archive_text.len)
        return 0;
    struct lvx_pool *pool = lvx_pool_create();
    const char *dir = lvx_config_str(cfg, "backup/archive_dir",
                                     lvx_pool_printf(pool, "%s/archive", lvx_config_system_dir()));
    int r = lvx_backup_make_dir(ctx, dir);
    if (r == 0) {
        unsigned count;
        struct archive_entry *v = list_archives(dir, u->vg->name, &count);
        unsigned next = count ? v[count - 1].index + 1 : 0;
        unsigned rnd = 0;
        if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
            rnd = (unsigned)time(NULL);
        char *path = lvx_pool_printf(pool, "%s/%s_%05u-%u.vg", dir, u->vg->name, next,
                                     rnd % 1000000000u);
        char *desc = lvx_pool_printf(pool, "Created *before* executing '%s'", command_line);
        struct lvx_buf text = LVX_BUF_INIT;
        set_description(&text, lvx_buf_str(&u->archive_text), desc);
        r = write_text_file(ctx, path, text.data, text.len);
        lvx_buf_free(&text);
        prune_archives(v, count, lvx_config_int(cfg, "backup/retain_min", 10),
                       lvx_config_int(cfg, "backup/retain_days", 30));
        free(v);
    }
    lvx_pool_destroy(pool);
    if (r < 0)
        lvx_warn(ctx, "WARNING: Failed to archive volume group %s: %s", u->vg->name, ctx->errmsg);
    return 0;     /* as LVM2: a failed archive does not stop the change */
}

void lvx_vg_backup_skipped(struct lvx_ctx *ctx)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return;
    }
    if (!lvx_config_int(cfg, "backup/backup", 1) && !ctx->backup_unsaved)
        ctx->backup_unsaved = 1;
    lvx_config_free(cfg);
}

int lvx_vg_write_backup(struct lvx_ctx *ctx, const struct lvx_vg *vg, const char *command_line)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0)
        return -EINVAL;
    int r = 0;
    if (lvx_config_int(cfg, "backup/backup", 1)) {
        struct lvx_pool *pool = lvx_pool_create();
        const char *dir = lvx_config_str(cfg, "backup/backup_dir",
                                         lvx_pool_printf(pool, "%s/backup", lvx_config_system_dir()));
        r = lvx_backup_make_dir(ctx, dir);
        if (r == 0)
            r = lvx_backup_write_file(ctx, vg, lvx_pool_printf(pool, "%s/%s", dir, vg->name),
                                      lvx_pool_printf(pool, "Created *after* executing '%s'",
                                                      command_line));
        lvx_pool_destroy(pool);
        if (r < 0)
            lvx_warn(ctx, "WARNING: Backup of volume group %s metadata failed: %s", vg->name,
                     ctx->errmsg);
    } else if (!ctx->backup_unsaved) {
        ctx->backup_unsaved = 1;
    }
    lvx_config_free(cfg);
    return 0;
}

void lvx_vg_backup_warning(struct lvx_ctx *ctx)
{
    if (ctx->backup_unsaved != 1)
        return;
    ctx->backup_unsaved = 2;
    lvx_warn(ctx, "WARNING: This metadata update is NOT backed up.");
}

void lvx_vg_remove_backup(struct lvx_ctx *ctx, const char *vgname)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return;
    }
    struct lvx_pool *pool = lvx_pool_create();
    const char *dir = lvx_config_str(cfg, "backup/backup_dir",
                                     lvx_pool_printf(pool, "%s/backup", lvx_config_system_dir()));
    unlink(lvx_pool_printf(pool, "%s/%s", dir, vgname));
    lvx_pool_destroy(pool);
    lvx_config_free(cfg);
}

void lvx_vg_update_archive(struct lvx_ctx *ctx, struct lvx_vg_update *u,
                           const char *command_line)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return;
    }
    write_archive(ctx, cfg, u, command_line);
    lvx_config_free(cfg);
}

/* The PVs as LVM2 writes them: one not found flagged MISSING with device "[unknown]";
 * one found again gets its device name back as the hint. */
static void mark_missing(struct lvx_vg *vg)
{
    for (unsigned i = 0; i < vg->pv_count; i++) {
        struct lvx_pv *pv = vg->pvs[i];
        if (!pv->ondisk.present) {
            pv->flags |= LVX_PVF_MISSING;
            pv->device_hint = "[unknown]";
        } else if ((pv->flags & LVX_PVF_MISSING) ||
                   (pv->device_hint && strcmp(pv->device_hint, "[unknown]") == 0)) {
            pv->device_hint = pv->ondisk.dev_name;
        }
    }
}

/* LVM2's warning for each metadata area in use that holds an older version of the VG
 * (a PV that was away while the VG changed): the commit writes the new one there. */
static void warn_old_copies(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    for (unsigned i = 0; i < vg->pv_count; i++) {
        const struct lvx_pv_ondisk *o = &vg->pvs[i]->ondisk;
        bool old = false;
        for (unsigned m = 0; o->present && m < o->mda_count; m++)
            old |= o->mda[m].seqno && o->mda[m].seqno < vg->seqno;
        for (unsigned m = 0; old && m < o->mda_count; m++)
            if (!o->mda[m].ignored)
                lvx_warn(ctx, "WARNING: updating old metadata to %" PRIu32 " on %s for VG %s.",
                         vg->seqno + 1, o->dev_name, vg->name);
    }
}

static int lvx_vg_update_commit_unt(struct lvx_ctx *ctx, struct lvx_vg_update *u, const char *command_line)
{
    struct lvx_config *cfg = NULL;
    u->committed = false;
    u->ctx = ctx;
    int r = lvx_config_load(ctx, &cfg);
    if (r < 0)
        return r;
    if (u->lockd_hold && (r = lvx_lockd_init_lvs(ctx, u->vg)) < 0) {  /* new LVs' leases */
        lvx_config_free(cfg);
        return r;
    }
    if ((r = lvx_vg_validate(ctx, u->vg)) < 0) {
        lvx_config_free(cfg);
        char why[sizeof(ctx->errmsg)];
        snprintf(why, sizeof(why), "%s", ctx->errmsg);
        return lvx_error(ctx, EINVAL, "Internal error: refusing to write invalid metadata: %s",
                         why);
    }
    mark_missing(u->vg);
    write_archive(ctx, cfg, u, command_line);
    lvx_config_free(cfg);
    lvx_mda_policy_apply(u->vg);     /* vgmetadatacopies (§12.6) */
    warn_old_copies(ctx, u->vg);
    r = lvx_vg_commit_detach(ctx, u->scan, u->vg, command_line, false, u->old_pv_uuids,
                             u->old_pv_count);
    if (r < 0)
        return r;
    if (u->set)
        lvx_index_update_vg(ctx, u->scan, u->set, u->vg);   /* new members: meta/index.h */
    r = lvx_vg_write_backup(ctx, u->vg, command_line);
    u->committed = r == 0 && (u->flags & LVX_UPDATE_KEEP_SET) && u->set &&
                   lvx_vgset_find(u->set, u->vg->name) == u->vg;
    return r;
}

int lvx_vg_update_commit(struct lvx_ctx *ctx, struct lvx_vg_update *u, const char *command_line)
{
    uint64_t t = lvx_phase_start();
    int rc = lvx_vg_update_commit_unt(ctx, u, command_line);
    lvx_phase_end("commit", t);
    return rc;
}

void lvx_vg_update_archive_next(struct lvx_ctx *ctx, struct lvx_vg_update *u)
{
    lvx_buf_reset(&u->archive_text);
    if (archive_enabled(ctx)) {
        struct lvx_text_header hdr;
        lvx_text_header_default(&hdr, "");
        lvx_vg_export_text(&u->archive_text, u->vg, &hdr, LVX_CFG_LAYOUT_FILE);
    }
}

void lvx_vg_update_set_old(struct lvx_ctx *ctx, struct lvx_vg_update *u, const struct lvx_vg *old)
{
    u->old_pv_count = old->pv_count;
    u->old_pv_uuids = lvx_pool_alloc(u->set->pool, (old->pv_count + 1) * sizeof(*u->old_pv_uuids));
    for (unsigned i = 0; i < old->pv_count; i++)
        memcpy(u->old_pv_uuids[i], old->pvs[i]->uuid, sizeof(u->old_pv_uuids[i]));
    lvx_buf_reset(&u->archive_text);
    if (archive_enabled(ctx)) {      /* the version before the change, for the archive */
        struct lvx_text_header hdr;
        lvx_text_header_default(&hdr, "");
        lvx_vg_export_text(&u->archive_text, old, &hdr, LVX_CFG_LAYOUT_FILE);
    }
}
