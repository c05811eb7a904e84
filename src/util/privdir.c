/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/privdir.c - is a directory private to root or this uid (see privdir.h).
 */
#include "util/privdir.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool owner_ok(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

/* Parent directories of dir, up to "/" (or "." for a relative path): none may be
 * changed by others (write permission without the sticky bit, or another owner). */
static int check_ancestors(struct lvx_ctx *ctx, const char *what, const char *dir)
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
            return 0;   /* the directory's own check reports it */
        bool others_write = (st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX);
        if (others_write || !owner_ok(st.st_uid))
            return lvx_error(ctx, EPERM,
                             "The %s %s is inside %s (mode %04o, uid %u), which other users "
                             "can change.", what, dir, path,
                             (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
        if (strcmp(path, "/") == 0 || strcmp(path, ".") == 0)
            return 0;
    }
}

int lvx_privdir_check(struct lvx_ctx *ctx, const char *what, const char *dir, unsigned flags)
{
    struct stat st;
    bool create = flags & LVX_PRIVDIR_CREATE;
    mode_t denied = flags & LVX_PRIVDIR_ENTERABLE ? 022 : 077;
    if (create && mkdir(dir, 0700) < 0 && errno != EEXIST)
        return lvx_error(ctx, errno, "Cannot create the %s %s: %s", what, dir,
                         strerror(errno));
    if (lstat(dir, &st) < 0) {
        if (errno == ENOENT && !create)
            return 0;   /* nothing there to trust or fear */
        return lvx_error(ctx, errno, "Cannot use the %s %s: %s", what, dir,
                         strerror(errno));
    }
    if (!S_ISDIR(st.st_mode))
        return lvx_error(ctx, ENOTDIR, "The %s %s is not a directory%s.", what, dir,
                         S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
    if (!owner_ok(st.st_uid))
        return lvx_error(ctx, EPERM, "The %s %s belongs to uid %u, not root.", what,
                         dir, (unsigned)st.st_uid);
    if (st.st_mode & denied)
        return lvx_error(ctx, EPERM,
                         "The %s %s has mode %04o: other users can %s it (it must be %s).",
                         what, dir, (unsigned)(st.st_mode & 07777),
                         st.st_mode & 022 ? "change" : "enter",
                         denied == 077 ? "0700" : "0700 or 0755");
    return check_ancestors(ctx, what, dir);
}

