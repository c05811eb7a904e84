/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/thin_check.c - the thin pool metadata check before activation, as LVM2
 * 2.03.16 runs it (lib/activate/dev_manager.c _pool_callback, registered only for a
 * thin-pool device about to be made): global/thin_check_executable (default
 * /usr/sbin/thin_check; "" = none) with global/thin_check_options (default ["-q"], the
 * Debian build's: LVM2 adds "--clear-needs-check-flag" only when built so) and the
 * metadata path; skipped when the first 64 bytes are zero (a new pool: the kernel
 * formats it); a missing executable is a warning; any other failure refuses the
 * activation ("Check of pool VG/POOL failed (status:N). Manual repair required!", after
 * the tool's own lines, which go to the terminal as LVM2 lets them).
 * The dm backend checks the _tmeta device; the user backend, which has none, a copy of
 * the _tmeta extents read through map/lv_file.c (so the tool's repairs of the
 * needs_check flag, if configured, do not reach the PVs).
 */
#include "activate/thin_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "dev/io.h"
#include "map/lv_file.h"
#include "model/thin.h"
#include "util/spawn.h"

#define HEAD 64

static bool zero_head(const unsigned char *b)
{
    for (unsigned i = 0; i < HEAD; i++)
        if (b[i])
            return false;
    return true;
}

/* Run the configured tool on path (its head already known not to be zero). */
static int run(struct lvx_ctx *ctx, const struct lvx_lv *pool, const char *path)
{
    struct lvx_config *cfg = NULL;
    const char *argv[19];
    unsigned argc = 0;
    int rc = 0;
    if (lvx_config_load(ctx, &cfg) < 0)
        return -EINVAL;
    const char *exe = lvx_config_str(cfg, "global/thin_check_executable", "/usr/sbin/thin_check");
    if (!exe || !*exe)
        goto out;
    if (access(exe, X_OK) < 0) {
        lvx_warn(ctx, "WARNING: Check is skipped, please install recommended missing binary %s!",
                 exe);
        goto out;
    }
    argv[argc++] = exe;
    const struct lvx_cfg_node *opts = lvx_config_node(cfg, "global/thin_check_options");
    if (opts && opts->kind == LVX_CFG_ARRAY) {
        for (const struct lvx_cfg_node *o = opts->child; o && argc < 17; o = o->next)
            if (o->kind == LVX_CFG_STRING)
                argv[argc++] = o->str;
    } else if (opts && opts->kind == LVX_CFG_STRING) {
        argv[argc++] = opts->str;
    } else {
        argv[argc++] = "-q";
    }
    argv[argc++] = path;
    argv[argc] = NULL;
    int st = 0, r = lvx_spawn_wait(argv, false, &st);   /* its lines shown, as LVM2's */
    if (r < 0)
        rc = lvx_error(ctx, -r, "Cannot run %s: %s", exe, strerror(-r));
    else if (st != 0)
        rc = lvx_error(ctx, EIO, "Check of pool %s/%s failed (status:%d). Manual repair required!",
                       pool->vg->name, pool->name, st);
out:
    lvx_config_free(cfg);
    return rc;
}

int lvx_thin_check_path(struct lvx_ctx *ctx, const struct lvx_lv *pool, const char *path)
{
    unsigned char head[HEAD];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lvx_error(ctx, errno, "Cannot open %s to check the pool metadata: %s", path,
                         strerror(errno));
    ssize_t n = pread(fd, head, sizeof(head), 0);
    close(fd);
    if (n == (ssize_t)sizeof(head) && zero_head(head))
        return 0;
    return run(ctx, pool, path);
}

int lvx_thin_check_pvs(struct lvx_ctx *ctx, const struct lvx_lv *pool)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    struct lvx_lv_file *f;
    if (!ps || !ps->metadata_lv)
        return 0;
    int rc = lvx_lv_file_open(ctx, ps->metadata_lv, false, &f);
    if (rc < 0)
        return rc;
    struct lvx_ctx *fc = lvx_lv_file_ctx(f);
    const struct lvx_dev_ops *io = lvx_io(fc);
    unsigned char head[4096];
    ssize_t n = io->pread(io->arg, lvx_lv_file_fd(f), head, sizeof(head), 0);
    if (n != (ssize_t)sizeof(head)) {
        lvx_lv_file_close(f);
        return lvx_error(ctx, EIO, "Cannot read the metadata of thin pool %s/%s.",
                         pool->vg->name, pool->name);
    }
    if (zero_head(head)) {
        lvx_lv_file_close(f);
        return 0;
    }
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/lvx-tmeta-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        rc = lvx_error(ctx, errno, "Cannot make a file to check the metadata of thin pool "
                       "%s/%s: %s", pool->vg->name, pool->name, strerror(errno));
        lvx_lv_file_close(f);
        return rc;
    }
    rc = lvx_lv_file_save(f, fd);
    lvx_lv_file_close(f);
    close(fd);
    if (rc < 0)
        rc = lvx_error(ctx, -rc, "Cannot copy the metadata of thin pool %s/%s: %s",
                       pool->vg->name, pool->name, strerror(-rc));
    else
        rc = run(ctx, pool, path);
    unlink(path);
    return rc;
}
