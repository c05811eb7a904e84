/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lock.c - flock()-based VG and global locks compatible with LVM2's file
 * locking (see lock.h).  A lock file that was unlinked while we waited for it is
 * reopened, so two processes never believe they hold the same lock.
 */
#include "meta/lock.h"
#include "util/phase.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

const char *lvx_lock_dir(void)
{
    const char *d = getenv("LVX_LOCK_DIR");
    return d && *d ? d : "/run/lock/lvm";
}

static int make_dirs(const char *dir)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s", dir);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(tmp, 0700) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

static int take_file(struct lvx_ctx *ctx, const char *name, bool exclusive, struct lvx_lock *lock);

/* ctx->lock_mode: no lock at all, or going on without one that failed (as LVM2's
 * --nolocking / --readonly and --ignorelockingfailure). */
static int take(struct lvx_ctx *ctx, const char *name, bool exclusive, struct lvx_lock *lock)
{
    lock->fd = -1;
    if (ctx->lock_mode == LVX_LOCK_MODE_NONE)
        return 0;
    int r = take_file(ctx, name, exclusive, lock);
    if (r < 0 && ctx->lock_mode == LVX_LOCK_MODE_IGNORE_FAILURE) {
        lvx_warn(ctx, "WARNING: %s (going on without the lock: --ignorelockingfailure).",
                 ctx->errmsg);
        lvx_error_clear(ctx);
        lock->fd = -1;
        return 0;
    }
    return r;
}

static int take_file(struct lvx_ctx *ctx, const char *name, bool exclusive, struct lvx_lock *lock)
{
    const char *dir = lvx_lock_dir();
    int r = make_dirs(dir);
    if (r < 0)
        return lvx_error(ctx, -r, "Cannot create lock directory %s: %s", dir, strerror(-r));
    snprintf(lock->path, sizeof(lock->path), "%s/%s", dir, name);
    for (;;) {
        int fd = open(lock->path, O_CREAT | O_APPEND | O_RDWR | O_CLOEXEC, 0777);
        if (fd < 0)
            return lvx_error(ctx, errno, "Cannot open lock file %s: %s", lock->path, strerror(errno));
        while (flock(fd, exclusive ? LOCK_EX : LOCK_SH) < 0) {
            if (errno != EINTR) {
                int e = errno;
                close(fd);
                return lvx_error(ctx, e, "Cannot lock %s: %s", lock->path, strerror(e));
            }
        }
        /* still the file at that path? (the holder may have removed it) */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(lock->path, &b) == 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev) {
            lock->fd = fd;
            return 0;
        }
        close(fd);
    }
}

int lvx_lock_vg(struct lvx_ctx *ctx, const char *vgname, bool exclusive, struct lvx_lock *lock)
{
    char name[300];
    snprintf(name, sizeof(name), "V_%s", vgname);
    return take(ctx, name, exclusive, lock);
}

int lvx_lock_global(struct lvx_ctx *ctx, bool exclusive, struct lvx_lock *lock)
{
    uint64_t t = lvx_phase_start();
    int rc = take(ctx, "P_global", exclusive, lock);
    lvx_phase_end("lock", t);
    return rc;
}

int lvx_lock_devices_file(struct lvx_ctx *ctx, const char *file_name, bool exclusive,
                          struct lvx_lock *lock)
{
    char name[300];
    snprintf(name, sizeof(name), "D_%s", file_name);
    return take(ctx, name, exclusive, lock);
}

void lvx_unlock(struct lvx_lock *lock)
{
    if (lock->fd >= 0) {
        flock(lock->fd, LOCK_UN);
        close(lock->fd);
    }
    lock->fd = -1;
}
