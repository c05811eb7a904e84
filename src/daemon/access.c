/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/access.c - who may use the lvx daemon, and where it keeps its files
 * (the security model, docs/design.md "User-space activation"):
 *   - the run directory must be a real directory owned by root (or by the
 *     daemon's uid), with no group or other permission bits (0700), inside
 *     directories that only root (or that uid) can change (sticky ones, like
 *     /tmp, are fine).  lvx creates it 0700 and refuses one that is not safe,
 *     with one line naming it and its mode; it never loosens or "repairs" it;
 *   - the daemon's files in it (state, log, pid file) are opened without
 *     following symlinks, made 0600 and must belong to the daemon's uid;
 *   - callers: root or the daemon's own uid (FUSE requests by their
 *     fuse_in_header uid, control connections by SO_PEERCRED); refusals are
 *     logged at most once a second.
 *
 * Entry points: lvx_daemon_check_run_dir(); lvxd_caller_allowed(), lvxd_refused(),
 * lvxd_open_private().
 */
#include "daemon/daemon.h"
#include "daemon/daemon_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool owner_ok(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

bool lvxd_caller_allowed(uint32_t uid)
{
    return owner_ok((uid_t)uid);
}

static atomic_long last_refusal;
static atomic_uint suppressed;

void lvxd_refused(const char *what, uint32_t uid, uint32_t gid, uint32_t pid)
{
    long now = (long)time(NULL);
    long last = atomic_load(&last_refusal);
    if (now == last || !atomic_compare_exchange_strong(&last_refusal, &last, now)) {
        atomic_fetch_add(&suppressed, 1);
        return;
    }
    unsigned more = atomic_exchange(&suppressed, 0);
    char extra[64] = "";
    if (more)
        snprintf(extra, sizeof(extra), " (and %u refusal(s) not logged)", more);
    lvxd_log("refused %s from uid %u gid %u pid %u: only root may use the daemon%s", what,
             (unsigned)uid, (unsigned)gid, (unsigned)pid, extra);
}

/* Parent directories of dir, up to "/" (or "." for a relative path): none may be
 * changed by others (write permission without the sticky bit, or another owner). */
static int check_ancestors(struct lvx_ctx *ctx, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s", dir);
    for (;;) {
        size_t len = strlen(path);
        while (len > 1 && path[len - 1] == '/')
            path[--len] = 0;
        char *slash = strrchr(path, '/');
        if (!slash) {
            if (strcmp(path, ".") == 0)
                return 0;
            snprintf(path, sizeof(path), ".");
        } else if (slash == path) {
            if (path[1] == 0)
                return 0;
            path[1] = 0;
        } else {
            *slash = 0;
        }
        struct stat st;
        if (stat(path, &st) < 0)
            return 0;   /* the run directory's own check reports it */
        bool others_write = (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX);
        if (others_write || !owner_ok(st.st_uid))
            return lvx_error(ctx, EPERM,
                             "The lvx run directory %s is inside %s (mode %04o, uid %u), which "
                             "other users can change.", dir, path,
                             (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
        if (strcmp(path, "/") == 0 || strcmp(path, ".") == 0)
            return 0;
    }
}

int lvx_daemon_check_run_dir(struct lvx_ctx *ctx, bool create)
{
    const char *dir = lvx_daemon_run_dir();
    struct stat st;
    if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
        return lvx_error(ctx, errno, "Cannot create the lvx run directory %s: %s", dir,
                         strerror(errno));
    if (lstat(dir, &st) < 0) {
        if (errno == ENOENT && !create)
            return 0;   /* no daemon can run there */
        return lvx_error(ctx, errno, "Cannot use the lvx run directory %s: %s", dir,
                         strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return lvx_error(ctx, ENOTDIR, "The lvx run directory %s is not a directory%s.", dir,
                         S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
    if (!owner_ok(st.st_uid))
        return lvx_error(ctx, EPERM, "The lvx run directory %s belongs to uid %u, not root.",
                         dir, (unsigned)st.st_uid);
    if (st.st_mode & 077)
        return lvx_error(ctx, EPERM,
                         "The lvx run directory %s has mode %04o: other users can %s it "
                         "(it must be 0700).", dir, (unsigned)(st.st_mode & 07777),
                         st.st_mode & 022 ? "change" : "enter");
    return check_ancestors(ctx, dir);
}

int lvxd_open_private(const char *path, int flags)
{
    int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        ((st.st_mode & 077) && fchmod(fd, 0600) < 0)) {
        close(fd);
        return -EPERM;
    }
    return fd;
}
