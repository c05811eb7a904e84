/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/loopdev.c - the loop device of an active LV: attached to the LV's FUSE
 * file with LOOP_CONFIGURE (direct I/O, the PVs' logical block size), detached
 * with LOOP_CLR_FD, re-bound with LOOP_CHANGE_FD (read-only devices only: the
 * kernel refuses it for writable ones).  "Busy" means held exclusively (a
 * mounted file system, an O_EXCL opener), tested with an O_EXCL open.
 *
 * Opening the LV's FUSE file is a request to the daemon itself: it is done in a
 * short-lived child process (the result comes back through a pipe), so that it
 * never waits on a lock of the serving process (valgrind's, for one).
 *
 * An attached device node is made root:disk 0660 (what LVM2's udev rules give
 * an LV's node).  Whose a device is, is told by its backing file
 * (lvxd_loop_backing()), never by its number.
 *
 * Entry points: lvxd_loop_attach(), lvxd_loop_detach(), lvxd_loop_busy(), lvxd_loop_opened(),
 * lvxd_loop_open_count(),
 * lvxd_loop_attached(), lvxd_loop_backing(), lvxd_loop_change_fd(), lvxd_loop_read_ahead(),
 * lvxd_loop_max_request(), lvxd_loop_dirty_limit(), lvxd_loop_set_capacity(),
 * lvxd_file_stat().
 */
#include "daemon/daemon_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nodes/dm_nodes.h"

#define LOOP_MAJOR 7
#define ATTACH_TRIES 20

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* /dev/loopN, made when devtmpfs has not (yet) created it. */
static int open_loop(int nr, int flags)
{
    char dev[32];
    snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
    int fd = open(dev, flags | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && mknod(dev, S_IFBLK | 0660, makedev(LOOP_MAJOR, nr)) == 0)
        fd = open(dev, flags | O_CLOEXEC);
    return fd;
}

static int free_loop(struct lvx_ctx *ctx)
{
    int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (ctl < 0)
        return lvx_error(ctx, errno, "Cannot open /dev/loop-control: %s", strerror(errno));
    int nr = ioctl(ctl, LOOP_CTL_GET_FREE);
    int e = errno;
    close(ctl);
    if (nr < 0)
        return lvx_error(ctx, e, "No free loop device: %s", strerror(e));
    return nr;
}

static int configure(int lfd, int ffd, const char *file, bool ro, uint32_t lbs)
{
    struct loop_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.fd = (uint32_t)ffd;
    cfg.block_size = lbs;
    cfg.info.lo_flags = LO_FLAGS_DIRECT_IO | (ro ? LO_FLAGS_READ_ONLY : 0);
    snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", file);
    return ioctl(lfd, LOOP_CONFIGURE, &cfg) < 0 ? -errno : 0;
}

static int attach_here(struct lvx_ctx *ctx, const char *file, bool ro, uint32_t lbs, int want_nr,
                       char *dev, size_t devlen, int *major_out, int *minor_out)
{
    int ffd = open(file, (ro ? O_RDONLY : O_RDWR) | O_DIRECT | O_CLOEXEC);
    if (ffd < 0)
        return lvx_error(ctx, errno, "Cannot open %s: %s", file, strerror(errno));
    int rc = -EBUSY;
    for (int i = 0; i < ATTACH_TRIES && rc == -EBUSY; i++) {
        int nr = want_nr >= 0 && i < ATTACH_TRIES / 2 ? want_nr : free_loop(ctx);
        if (nr < 0) {
            rc = nr;
            break;
        }
        int lfd = open_loop(nr, ro ? O_RDONLY : O_RDWR);
        if (lfd < 0) {
            rc = lvx_error(ctx, errno, "Cannot open /dev/loop%d: %s", nr, strerror(errno));
            break;
        }
        rc = configure(lfd, ffd, file, ro, lbs);
        if (rc == 0) {
            struct stat st;
            /* the LV's block device: root:disk 0660, as LVM2's udev rules make its nodes */
            if (fchown(lfd, 0, LVX_NODE_GID) < 0 || fchmod(lfd, LVX_NODE_MODE) < 0) {
                rc = lvx_error(ctx, errno, "Cannot set the owner of /dev/loop%d: %s", nr,
                               strerror(errno));
                ioctl(lfd, LOOP_CLR_FD, 0);
                close(lfd);
                break;
            }
            fstat(lfd, &st);
            snprintf(dev, devlen, "/dev/loop%d", nr);
            *major_out = (int)major(st.st_rdev);
            *minor_out = (int)minor(st.st_rdev);
        } else if (rc == -EBUSY) {
            sleep_ms(50);     /* taken meanwhile, or still being detached */
        }
        close(lfd);
    }
    close(ffd);
    if (rc < 0 && !ctx->err)
        lvx_error(ctx, -rc, "Cannot attach %s to a loop device: %s", file, strerror(-rc));
    return rc < 0 ? (ctx->err ? ctx->err : rc) : 0;
}

/* The open counts of every block device under /dev/ from one pass over /proc (the
 * daemon and `except` left out), kept for the requests the same process makes within
 * OPEN_SCAN_REUSE_NS: `lvs` of N active LVs asks for N statuses, which one pass
 * answers (a pass is 1-3 ms; one per LV made lvs of 40 LVs 5x slower).  A later
 * command, another process, scans again. */
#define OPEN_SCAN_REUSE_NS 200000000LL
struct open_scan {
    pid_t except;
    long long at;                   /* CLOCK_MONOTONIC ns; 0: none */
    struct { dev_t dev; unsigned n; } *devs;
    unsigned count, cap;
};
static struct open_scan open_scan;
static pthread_mutex_t open_scan_mutex = PTHREAD_MUTEX_INITIALIZER;

static void open_scan_add(struct open_scan *sc, dev_t dev)
{
    for (unsigned i = 0; i < sc->count; i++)
        if (sc->devs[i].dev == dev) {
            sc->devs[i].n++;
            return;
        }
    if (sc->count == sc->cap) {
        sc->cap = sc->cap ? 2 * sc->cap : 64;
        sc->devs = realloc(sc->devs, sc->cap * sizeof(*sc->devs));
        if (!sc->devs)
            abort();
    }
    sc->devs[sc->count].dev = dev;
    sc->devs[sc->count++].n = 1;
}

static void open_scan_run(struct open_scan *sc, pid_t except)
{
    sc->count = 0;
    sc->except = except;
    DIR *procs = opendir("/proc");
    if (!procs)
        return;
    pid_t self = getpid();
    struct dirent *p;
    while ((p = readdir(procs))) {
        char *end;
        long pid = strtol(p->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self || (except > 0 && pid == except))
            continue;
        char dir[64];
        snprintf(dir, sizeof(dir), "/proc/%ld/fd", pid);
        DIR *fds = opendir(dir);
        struct dirent *f;
        while (fds && (f = readdir(fds))) {
            char target[16];
            struct stat st;
            ssize_t len = f->d_name[0] == '.' ? -1
                          : readlinkat(dirfd(fds), f->d_name, target, sizeof(target) - 1);
            if (len < 5 || memcmp(target, "/dev/", 5) != 0)
                continue;
            if (fstatat(dirfd(fds), f->d_name, &st, 0) == 0 && S_ISBLK(st.st_mode))
                open_scan_add(sc, st.st_rdev);
        }
        if (fds)
            closedir(fds);
    }
    closedir(procs);
}

static unsigned open_scan_find(const struct open_scan *sc, dev_t dev)
{
    for (unsigned i = 0; i < sc->count; i++)
        if (sc->devs[i].dev == dev)
            return sc->devs[i].n;
    return 0;
}

bool lvxd_loop_opened(int maj, int min, pid_t except)
{
    struct open_scan sc = { 0 };        /* always a fresh pass: deactivation asks */
    open_scan_run(&sc, except);
    bool opened = open_scan_find(&sc, makedev((unsigned)maj, (unsigned)min)) > 0;
    free(sc.devs);
    return opened;
}

unsigned lvxd_loop_open_count(const char *dev, int maj, int min, pid_t except)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    dev_t want = makedev((unsigned)maj, (unsigned)min);
    unsigned n = 0;
    pthread_mutex_lock(&open_scan_mutex);
    if (!open_scan.at || open_scan.except != except || except <= 0 ||
        now - open_scan.at > OPEN_SCAN_REUSE_NS) {
        open_scan_run(&open_scan, except);
        open_scan.at = now;
    }
    n = open_scan_find(&open_scan, want);
    pthread_mutex_unlock(&open_scan_mutex);
    /* held with no descriptor anywhere: a mounted file system (the kernel's holder) */
    return n ? n : lvxd_loop_busy(dev) ? 1 : 0;
}

bool lvxd_loop_busy(const char *dev)
{
    int fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
    if (fd < 0)
        return errno == EBUSY;
    close(fd);
    return false;
}

bool lvxd_loop_attached(const char *dev)
{
    struct stat st;
    char path[128];
    if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
        return false;
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop/backing_file", major(st.st_rdev),
             minor(st.st_rdev));
    return access(path, F_OK) == 0;
}

int lvxd_loop_backing(const char *dev, char *out, size_t n)
{
    struct stat st;
    char path[128];
    if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode) || major(st.st_rdev) != LOOP_MAJOR)
        return -ENODEV;
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/loop/backing_file", major(st.st_rdev),
             minor(st.st_rdev));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t len = read(fd, out, n - 1);
    int e = errno;
    close(fd);
    if (len < 0)
        return -e;
    out[len] = 0;
    out[strcspn(out, "\n")] = 0;
    return 0;
}

/* The kernel's default largest request of a block device (KiB): its hardware limit,
 * at most 1280 KiB (BLK_DEF_MAX_SECTORS).  Written as a number: kernels before 6.3
 * refuse 0 ("the default") with EINVAL. */
static unsigned default_max_request(int maj, int min)
{
    char path[96], val[32] = "";
    snprintf(path, sizeof(path), "/sys/dev/block/%d:%d/queue/max_hw_sectors_kb", maj, min);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    unsigned hw = 0;
    if (fd >= 0) {
        ssize_t n = read(fd, val, sizeof(val) - 1);
        if (n > 0)
            hw = (unsigned)strtoul(val, NULL, 10);
        close(fd);
    }
    return hw && hw < 1280 ? hw : 1280;
}

int lvxd_loop_detach(struct lvx_ctx *ctx, const char *dev, bool force)
{
    if (!force && lvxd_loop_busy(dev))
        return lvx_error(ctx, EBUSY, "%s is in use.", dev);
    int fd = open(dev, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : lvx_error(ctx, errno, "Cannot open %s: %s", dev,
                                                strerror(errno));
    /* the read-ahead and request size set at attach stay with the loop device after
     * it: give the next user of this shared device the kernel's defaults (128 KiB) back */
    if (ioctl(fd, BLKRASET, 256UL) < 0)
        lvxd_log("warning: cannot reset the read-ahead of %s: %s", dev, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISBLK(st.st_mode))
        lvxd_loop_max_request((int)major(st.st_rdev), (int)minor(st.st_rdev),
                              default_max_request((int)major(st.st_rdev), (int)minor(st.st_rdev)));
    int rc = ioctl(fd, LOOP_CLR_FD, 0) < 0 ? -errno : 0;
    close(fd);
    if (rc == -ENXIO)
        rc = 0;   /* not attached */
    if (rc < 0)
        return lvx_error(ctx, -rc, "Cannot detach %s: %s", dev, strerror(-rc));
    /* the detach completes at the last close: wait for it (not when still open) */
    for (int i = 0; i < 100 && lvxd_loop_attached(dev) && !lvxd_loop_busy(dev); i++)
        sleep_ms(10);
    return 0;
}

static int change_fd_here(struct lvx_ctx *ctx, const char *dev, const char *file)
{
    int ffd = open(file, O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (ffd < 0)
        return lvx_error(ctx, errno, "Cannot open %s: %s", file, strerror(errno));
    int fd = open(dev, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 || ioctl(fd, LOOP_CHANGE_FD, ffd) < 0 ? -errno : 0;
    if (fd >= 0)
        close(fd);
    close(ffd);
    if (rc < 0)
        return lvx_error(ctx, -rc, "Cannot re-bind %s: %s", dev, strerror(-rc));
    return 0;
}

void lvxd_loop_read_ahead(const char *dev, unsigned long sectors)
{
    int fd = open(dev, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (ioctl(fd, BLKRASET, sectors) < 0)
        lvxd_log("warning: cannot set the read-ahead of %s: %s", dev, strerror(errno));
    close(fd);
}

static bool write_sysfs(const char *path, const char *val)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
    close(fd);
    return ok;
}

void lvxd_loop_max_request(int maj, int min, unsigned kb)
{
    char path[96], val[32];
    snprintf(val, sizeof(val), "%u\n", kb);
    snprintf(path, sizeof(path), "/sys/dev/block/%d:%d/queue/max_sectors_kb", maj, min);
    if (!write_sysfs(path, val))
        lvxd_log("warning: cannot set %s to %u", path, kb);
}

void lvxd_loop_dirty_limit(int maj, int min, uint64_t bytes)
{
    char path[96], val[32];
    snprintf(val, sizeof(val), "%" PRIu64 "\n", bytes);
    snprintf(path, sizeof(path), "/sys/class/bdi/%d:%d/max_bytes", maj, min);
    bool ok = write_sysfs(path, val);
    snprintf(path, sizeof(path), "/sys/class/bdi/%d:%d/strict_limit", maj, min);
    if (!ok || !write_sysfs(path, "1\n"))
        lvxd_log("warning: cannot set a dirty limit on the bdi of loop %d:%d (%s)", maj, min,
                 path);
}

int lvxd_loop_set_capacity(struct lvx_ctx *ctx, const char *dev)
{
    int fd = open(dev, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 || ioctl(fd, LOOP_SET_CAPACITY, 0) < 0 ? -errno : 0;
    if (fd >= 0)
        close(fd);
    if (rc < 0)
        return lvx_error(ctx, -rc, "Cannot resize %s: %s", dev, strerror(-rc));
    return 0;
}

/* What a child sends back. */
struct child_result {
    int rc;
    int nr, major, minor;
    char msg[sizeof(((struct lvx_ctx *)0)->errmsg)];
};

enum child_op { OP_ATTACH, OP_CHANGE_FD, OP_STAT };

struct child_job {
    enum child_op op;
    const char *file, *dev;
    bool ro;
    uint32_t lbs;
    int want_nr;
};

static void child_run(const struct child_job *job, struct child_result *res)
{
    struct lvx_ctx ctx;
    char dev[32];
    struct stat st;
    lvx_ctx_init(&ctx);
    memset(res, 0, sizeof(*res));
    switch (job->op) {
    case OP_ATTACH:
        res->rc = attach_here(&ctx, job->file, job->ro, job->lbs, job->want_nr, dev, sizeof(dev),
                              &res->major, &res->minor);
        if (res->rc == 0)
            sscanf(dev, "/dev/loop%d", &res->nr);
        break;
    case OP_CHANGE_FD:
        res->rc = change_fd_here(&ctx, job->dev, job->file);
        break;
    case OP_STAT:
        res->rc = stat(job->file, &st) < 0 ? -errno : 0;
        break;
    }
    snprintf(res->msg, sizeof(res->msg), "%s", ctx.errmsg);
}

static int in_child(struct lvx_ctx *ctx, const struct child_job *job, struct child_result *res)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return lvx_error(ctx, errno, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return lvx_error(ctx, errno, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        struct child_result r;
        lvxd_fuse_close_in_child();
        child_run(job, &r);
        _exit(write(p[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
    }
    close(p[1]);
    ssize_t n;
    while ((n = read(p[0], res, sizeof(*res))) < 0 && errno == EINTR)
        ;
    close(p[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof(*res))
        return lvx_error(ctx, EIO, "The loop helper process failed.");
    if (res->rc < 0)
        return lvx_error(ctx, -res->rc, "%s", res->msg[0] ? res->msg : strerror(-res->rc));
    return 0;
}

int lvxd_loop_attach(struct lvx_ctx *ctx, const char *file, bool ro, uint32_t lbs, int want_nr,
                     char *dev, size_t devlen, int *major_out, int *minor_out)
{
    struct child_job job = { .op = OP_ATTACH, .file = file, .ro = ro, .lbs = lbs,
                             .want_nr = want_nr };
    struct child_result res;
    int rc = in_child(ctx, &job, &res);
    if (rc < 0)
        return rc;
    snprintf(dev, devlen, "/dev/loop%d", res.nr);
    *major_out = res.major;
    *minor_out = res.minor;
    return 0;
}

int lvxd_loop_change_fd(struct lvx_ctx *ctx, const char *dev, const char *file)
{
    struct child_job job = { .op = OP_CHANGE_FD, .file = file, .dev = dev };
    struct child_result res;
    return in_child(ctx, &job, &res);
}

int lvxd_file_stat(struct lvx_ctx *ctx, const char *file)
{
    struct child_job job = { .op = OP_STAT, .file = file };
    struct child_result res;
    return in_child(ctx, &job, &res);
}
