/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/backup.c - write LVM2 backup files (lvm2-format.md §14), see backup.h.
 *
 * The text is rendered with lvx_vg_export_text(..., LVX_CFG_LAYOUT_FILE), written to
 * "<path>.tmp.XXXXXX" in the same directory, fsync'ed, renamed over the target, and
 * the directory is fsync'ed, so a crash leaves either the old or the new file.
 *
 * Entry points: lvx_backup_write_file(), lvx_backup_expand_name(), path helpers.
 */
#include "meta/backup.h"
#include "format/vg_text.h"
#include "util/buf.h"
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *lvx_backup_system_dir(void)
{
    const char *d = getenv("LVM_SYSTEM_DIR");
    return d && *d ? d : "/etc/lvm";
}

char *lvx_backup_dir(struct lvx_pool *pool)
{
    return lvx_pool_printf(pool, "%s/backup", lvx_backup_system_dir());
}

char *lvx_backup_default_path(struct lvx_pool *pool, const char *vg_name)
{
    return lvx_pool_printf(pool, "%s/backup/%s", lvx_backup_system_dir(), vg_name);
}

int lvx_backup_make_dir(struct lvx_ctx *ctx, const char *dir)
{
    if (!dir[0])
        return lvx_error(ctx, EINVAL, "Empty backup directory name");
    char *copy = lvx_xstrdup(dir);
    int rc = 0;
    for (char *p = copy + 1; ; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(copy, 0700) < 0 && errno != EEXIST) {
            rc = lvx_error(ctx, errno, "Cannot create directory %s: %s", copy, strerror(errno));
            break;
        }
        *p = saved;
        if (saved == '\0')
            break;
    }
    free(copy);
    return rc;
}

bool lvx_backup_template_has_vg(const char *tmpl)
{
    for (const char *p = tmpl; *p; p++) {
        if (p[0] == '%' && p[1] == '%')
            p++;
        else if (p[0] == '%' && p[1] == 's')
            return true;
    }
    return false;
}

int lvx_backup_expand_name(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *tmpl,
                           const char *vg_name, char **out)
{
    struct lvx_buf b = LVX_BUF_INIT;
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%') {
            lvx_buf_putc(&b, *p);
        } else if (p[1] == 's') {
            lvx_buf_puts(&b, vg_name);
            p++;
        } else if (p[1] == '%') {
            lvx_buf_putc(&b, '%');
            p++;
        } else {
            lvx_buf_free(&b);
            return lvx_error(ctx, EINVAL, "Invalid backup file name %s: only %%s (VG name) and "
                             "%%%% may follow '%%'", tmpl);
        }
    }
    *out = lvx_pool_strdup(pool, lvx_buf_str(&b));
    lvx_buf_free(&b);
    return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

static int fsync_dir_of(const char *path)
{
    char *copy = lvx_xstrdup(path);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return rc;
}

/* Write data to a temporary sibling of path, then rename it over path. */
static int replace_file(struct lvx_ctx *ctx, const char *path, const char *data, size_t len)
{
    size_t plen = strlen(path);
    char *tmp = lvx_xmalloc(plen + 16);
    snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        int rc = lvx_error(ctx, errno, "Cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return rc;
    }
    int err = fchmod(fd, 0600) < 0 ? -errno : 0;
    if (!err)
        err = write_all(fd, data, len);
    if (!err && fsync(fd) < 0)
        err = -errno;
    if (close(fd) < 0 && !err)
        err = -errno;
    if (!err && rename(tmp, path) < 0)
        err = -errno;
    if (err) {
        unlink(tmp);
        free(tmp);
        return lvx_error(ctx, -err, "Cannot write backup file %s: %s", path, strerror(-err));
    }
    free(tmp);
    err = fsync_dir_of(path);
    if (err)
        return lvx_error(ctx, -err, "Cannot sync the directory of %s: %s", path, strerror(-err));
    return 0;
}

int lvx_backup_write_file(struct lvx_ctx *ctx, const struct lvx_vg *vg, const char *path,
                          const char *description)
{
    struct lvx_text_header hdr;
    lvx_text_header_default(&hdr, description ? description : "");
    struct lvx_buf text = LVX_BUF_INIT;
    lvx_vg_export_text(&text, vg, &hdr, LVX_CFG_LAYOUT_FILE);
    int rc = replace_file(ctx, path, lvx_buf_str(&text), text.len);
    lvx_buf_free(&text);
    return rc;
}

int lvx_backup_read(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *path,
                    struct lvx_vg **out, bool *bad_text)
{
    size_t len;
    *bad_text = false;
    char *text = lvx_pool_read_file(ctx, pool, path, LVX_FILE_MAX_METADATA, &len);
    if (!text)
        return -(errno ? errno : EIO);
    int rc = lvx_vg_import_text(ctx, pool, text, len, out);
    *bad_text = rc < 0;
    return rc;
}
