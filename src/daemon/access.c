/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/access.c - who may use the lvx daemon, and where it keeps its files
 * (the security model, docs/design.md "User-space activation"):
 *   - the run directory must be private (util/privdir.c: a real directory of
 *     root or the daemon's uid, mode 0700, inside directories others cannot
 *     change).  lvx creates it 0700 and refuses one that is not, with one line
 *     naming it and its mode; it never changes the mode of an existing one;
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

#include "util/privdir.h"

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

int lvx_daemon_check_run_dir(struct lvx_ctx *ctx, bool create)
{
    return lvx_privdir_check(ctx, "lvx run directory", lvx_daemon_run_dir(),
                             create ? LVX_PRIVDIR_CREATE : 0);
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
