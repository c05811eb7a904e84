/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/proc.c - making the daemon safe to serve I/O under memory pressure:
 * a process that writeback waits on must never wait for memory itself.
 *   - leave a memory-limited cgroup (v1 memory controller) for an unlimited one
 *     (<memory root>/lvx-daemon), so that the limit of the caller that started
 *     it never applies to the daemon;
 *   - oom_score_adj -1000; PR_SET_IO_FLUSHER (no I/O recursion in reclaim);
 *   - mlockall(MCL_CURRENT|MCL_FUTURE) (not under ASan/valgrind: their shadow
 *     memory is huge; LVX_DAEMON_NO_MLOCK=1 turns it off too).
 * The unlimited cgroup is "lvx-daemon" under the deepest ancestor that has no
 * limit itself nor above it (so the daemon stays inside its starter's hierarchy).
 * The FUSE threads and their buffers are allocated before serving (fuse.c).
 *
 * Entry points: lvxd_proc_harden(), lvxd_proc_mlock().
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PR_SET_IO_FLUSHER
#define PR_SET_IO_FLUSHER 57
#endif

#define MEMCG_ROOT "/sys/fs/cgroup/memory"
#define UNLIMITED (1ULL << 62)

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, text, strlen(text));
    int e = n < 0 ? -errno : 0;
    close(fd);
    return e;
}

static unsigned long long read_ull(const char *path)
{
    FILE *f = fopen(path, "r");
    unsigned long long v = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%llu", &v) != 1)
        v = 0;
    fclose(f);
    return v;
}

/* Our v1 memory cgroup path ("/a/b"), or false. */
static bool memcg_path(char *out, size_t n)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024];
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f)) {
        char *ctrl = strchr(line, ':');
        char *path = ctrl ? strchr(ctrl + 1, ':') : NULL;
        if (!path)
            continue;
        *path++ = 0;
        path[strcspn(path, "\n")] = 0;
        for (char *c = strtok(ctrl + 1, ","); c; c = strtok(NULL, ","))
            if (strcmp(c, "memory") == 0) {
                snprintf(out, n, "%s", path);
                found = true;
            }
    }
    if (f)
        fclose(f);
    return found;
}

static bool memcg_own_limit(const char *cg)
{
    char file[1100];
    snprintf(file, sizeof(file), MEMCG_ROOT "%s/memory.limit_in_bytes", cg);
    unsigned long long lim = read_ull(file);
    return lim && lim < UNLIMITED;
}

/* The deepest ancestor of cg (cg included) that is unlimited along with all of its
 * own ancestors, into out ("" = the root); false when cg itself qualifies. */
static bool unlimited_ancestor(const char *cg, char *out, size_t n)
{
    char dir[1024];
    bool limited_below = false;
    snprintf(dir, sizeof(dir), "%s", strcmp(cg, "/") == 0 ? "" : cg);
    snprintf(out, n, "%s", dir);
    for (;;) {
        if (memcg_own_limit(dir)) {
            limited_below = true;
            char *slash = strrchr(dir, '/');
            if (!slash)
                break;
            *slash = 0;
            snprintf(out, n, "%s", dir);
            continue;
        }
        char *slash = strrchr(dir, '/');
        if (!slash)
            break;
        *slash = 0;
    }
    return limited_below;
}

static void leave_limited_memcg(void)
{
    char cg[1024], base[1024], target[1200], procs[1300];
    if (access(MEMCG_ROOT "/cgroup.procs", F_OK) != 0 || !memcg_path(cg, sizeof(cg)) ||
        !unlimited_ancestor(cg, base, sizeof(base)))
        return;
    snprintf(target, sizeof(target), MEMCG_ROOT "%s/lvx-daemon", base);
    if (mkdir(target, 0755) < 0 && errno != EEXIST) {
        lvxd_log("warning: cannot create %s: %s", target, strerror(errno));
        return;
    }
    char pid[32];
    snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
    snprintf(procs, sizeof(procs), "%s/cgroup.procs", target);
    int rc = write_file(procs, pid);
    if (rc < 0)
        lvxd_log("warning: cannot leave the memory-limited cgroup %s: %s", cg, strerror(-rc));
    else
        lvxd_log("left the memory-limited cgroup %s for %s", cg, target);
}

bool lvxd_proc_mlock(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return false;
#else
    const char *e = getenv("LVX_DAEMON_NO_MLOCK");
    const char *pre = getenv("LD_PRELOAD");
    if ((e && *e && strcmp(e, "0") != 0) || (pre && strstr(pre, "vgpreload")))
        return false;
    return true;
#endif
}

void lvxd_proc_harden(void)
{
    leave_limited_memcg();
    int rc = write_file("/proc/self/oom_score_adj", "-1000\n");
    if (rc < 0)
        lvxd_log("warning: cannot set oom_score_adj: %s", strerror(-rc));
    if (prctl(PR_SET_IO_FLUSHER, 1, 0, 0, 0) < 0)
        lvxd_log("warning: PR_SET_IO_FLUSHER refused: %s", strerror(errno));
    if (!lvxd_proc_mlock())
        lvxd_log("memory not locked (sanitizer, valgrind or LVX_DAEMON_NO_MLOCK)");
    else if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
        lvxd_log("warning: mlockall: %s", strerror(errno));
}
