/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/server.c - the daemon's processes.  The supervisor takes the pid file
 * lock, hardens itself (proc.c), mounts the FUSE file system (after clearing a
 * dead daemon's mount at the same path) and forks the worker; when the worker
 * dies by a signal, a new one is forked on the same /dev/fuse connection (the
 * kernel resends what the dead one had read), so active LVs, mounted file
 * systems included, only see a pause.  FUSE over io_uring too by default: the
 * supervisor makes the rings and their entries' buffers before the first fork
 * (fuse_ring.c), so the entries outlive a worker and the new one adopts them (the
 * kernel never resends what a ring entry holds).  With rings of the worker's own
 * (LVX_FUSE_URING=worker), a dead worker's ring entries keep their requests: that
 * connection is aborted (those requests, and the I/O waiting on them, fail with
 * EIO instead of hanging) and the new worker serves the LVs on a new mount, as
 * after a complete crash (restore.c re-attaches their loop devices).  The worker
 * serves the LVs of the state
 * file, starts the FUSE threads, binds the control socket and answers requests
 * until told to stop; a daemon started after a complete crash re-binds the
 * restored LVs' loop devices to the new files and points their /dev links at
 * them (restore.c).  Nothing is created in an unsafe run directory (access.c).
 *
 * Entry point: lvx_daemon_serve() (with the I/O seam every PV access of the daemon
 * goes through).
 */
#include "daemon/daemon.h"
#include "daemon/daemon_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_THREADS 16
#define MAX_THREADS 256
#define MAX_RESTARTS 10

static volatile pid_t worker_pid;

static unsigned thread_count(void)
{
    const char *e = getenv("LVX_DAEMON_THREADS");
    long n = e && *e ? strtol(e, NULL, 10) : DEFAULT_THREADS;
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

static int bind_socket(void)
{
    struct sockaddr_un sa;
    char path[4096];
    int fd = lvxd_control_socket(&sa, path);
    if (fd < 0)
        return fd;
    unlink(path);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    chmod(path, 0600);
    return fd;
}

static int worker_run(int fuse_fd, const char *mount_dir, bool restarted,
                      volatile int *uring_used)
{
    prctl(PR_SET_NAME, "lvxd-worker", 0, 0, 0);
    signal(SIGTERM, SIG_DFL);
    lvxd_proc_harden();
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    ctx.io = lvxd_ops();
    ctx.log_fn = lvxd_log_cb;
    ctx.log_level = LVX_LOG_WARN;
    unsigned restored = lvxd_state_load(&ctx);
    int rc = lvxd_fuse_start(fuse_fd, thread_count(), restarted, uring_used);
    if (rc < 0) {
        lvxd_log("cannot start the FUSE threads: %s", strerror(-rc));
        return 1;
    }
    if (!restarted)
        lvxd_fuse_tune_bdi(mount_dir);
    lvxd_state_settle(&ctx, mount_dir, !restarted);
    lvxd_monitor_start();
    int lfd = bind_socket();
    if (lfd < 0) {
        lvxd_log("cannot bind the control socket: %s", strerror(-lfd));
        return 1;
    }
    lvxd_log("worker serving %s with %u threads%s, %u LV(s) restored", mount_dir, thread_count(),
             restarted ? " (restarted)" : "", restored);
    rc = lvxd_control_loop(lfd, mount_dir);
    char sock[4096];
    lvx_daemon_path(sock, sizeof(sock), LVX_DAEMON_SOCKET);
    unlink(sock);
    close(lfd);
    if (umount2(mount_dir, 0) < 0 && umount2(mount_dir, MNT_DETACH) < 0)
        lvxd_log("warning: cannot unmount %s: %s", mount_dir, strerror(errno));
    lvxd_fuse_log_counts();
    lvxd_log("worker stopped");
    return rc;   /* the FUSE threads end with the process */
}

/* Clear mounts left at dir by a daemon that died (lazily: loop devices may still
 * hold their files). */
static void clear_stale_mounts(const char *dir)
{
    for (int i = 0; i < 16 && umount2(dir, MNT_DETACH) == 0; i++)
        lvxd_log("cleared a stale mount at %s", dir);
}

static void forward_term(int sig)
{
    if (worker_pid > 0)
        kill(worker_pid, sig);
}

/* Open /dev/fuse and mount it at dir: the fd, or -1 (logged). */
static int new_connection(const char *dir)
{
    int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        lvxd_log("cannot open /dev/fuse: %s", strerror(errno));
        return -1;
    }
    int rc = lvxd_fuse_mount(fd, dir);
    if (rc < 0) {
        lvxd_log("cannot mount %s: %s", dir, strerror(-rc));
        close(fd);
        return -1;
    }
    return fd;
}

/* Fork workers on *fuse_fd until one exits; a new connection replaces one whose
 * dead worker used rings of its own (*fuse_fd is then the new one, or -1). */
static int supervise(int *fuse_fd, const char *mount_dir)
{
    bool restarted = false;
    time_t window = time(NULL);
    int restarts = 0;
    struct sigaction sa = { .sa_handler = forward_term };
    sigaction(SIGTERM, &sa, NULL);
    /* set by the worker when INIT agreed on io_uring; read here after its death */
    volatile int *uring_used = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
                                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (uring_used == MAP_FAILED) {
        lvxd_log("mmap: %s", strerror(errno));
        return 1;
    }
    *uring_used = 0;
    if (lvxd_fuse_uring_mode() == LVXD_URING_KEPT)
        lvxd_fuse_rings_make(thread_count(), true);
    for (;;) {
        pid_t w = fork();
        if (w < 0) {
            lvxd_log("fork: %s", strerror(errno));
            return 1;
        }
        if (w == 0)
            _exit(worker_run(*fuse_fd, mount_dir, restarted, uring_used));
        worker_pid = w;
        int status;
        while (waitpid(w, &status, 0) < 0 && errno == EINTR)
            ;
        worker_pid = 0;
        if (WIFEXITED(status)) {
            /* 0 after "worker stopped"; anything else without it: the worker died in a
             * request (a sanitizer exits with 1, its report above in this log) */
            lvxd_log("worker %d exited with status %d", (int)w, WEXITSTATUS(status));
            return WEXITSTATUS(status);
        }
        if (time(NULL) - window > 60) {
            window = time(NULL);
            restarts = 0;
        }
        if (*uring_used && !lvxd_fuse_rings_kept()) {
            lvxd_log("worker %d killed by signal %d while serving through io_uring: the kernel "
                     "does not resend the requests in its ring entries; aborting the connection "
                     "(they fail with EIO) and serving the LVs on a new one", (int)w,
                     WTERMSIG(status));
            lvxd_fuse_abort(*fuse_fd, mount_dir);
            *uring_used = 0;
            restarted = false;
            if ((*fuse_fd = new_connection(mount_dir)) < 0)
                return 1;
        } else {
            lvxd_log("worker %d killed by signal %d: starting a new one%s", (int)w,
                     WTERMSIG(status), *uring_used ? " (it adopts the io_uring ring entries)" : "");
            restarted = true;
        }
        if (++restarts > MAX_RESTARTS) {
            lvxd_log("too many worker restarts: giving up");
            return 1;
        }
    }
}

int lvx_daemon_serve(const struct lvx_dev_ops *io)
{
    char path[4096], mount_dir[4096];
    lvxd_use_ops(io);
    signal(SIGPIPE, SIG_IGN);
    umask(077);   /* socket, state, log, mount point: the daemon's only */
    struct lvx_ctx check;
    lvx_ctx_init(&check);
    if (lvx_daemon_check_run_dir(&check, true) < 0)
        return 1;   /* nothing written into an unsafe directory (lvx daemon run prints it) */
    lvxd_log_open();
    lvx_daemon_path(path, sizeof(path), LVX_DAEMON_PIDFILE);
    int pfd = lvxd_open_private(path, O_RDWR | O_CREAT);
    if (pfd < 0 || flock(pfd, LOCK_EX | LOCK_NB) < 0)
        return 0;   /* another daemon runs */
    char pid[32];
    int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
    if (ftruncate(pfd, 0) < 0 || write(pfd, pid, (size_t)n) != n)
        lvxd_log("warning: cannot write %s", path);
    lvxd_supervisor_pid = getpid();
    prctl(PR_SET_NAME, "lvxd", 0, 0, 0);
    lvxd_log("lvx daemon starting (run dir %s)", lvx_daemon_run_dir());
    lvxd_proc_harden();

    /* the canonical path: the kernel names loop devices' backing files by it */
    char *run = realpath(lvx_daemon_run_dir(), NULL);
    snprintf(mount_dir, sizeof(mount_dir), "%s/%s", run ? run : lvx_daemon_run_dir(),
             LVX_DAEMON_MOUNT);
    free(run);
    clear_stale_mounts(mount_dir);
    mkdir(mount_dir, 0700);
    int rc = 1;
    int fuse_fd = new_connection(mount_dir);
    if (fuse_fd >= 0) {
        rc = supervise(&fuse_fd, mount_dir);
        umount2(mount_dir, MNT_DETACH);
    }
    if (fuse_fd >= 0)
        close(fuse_fd);
    unlink(path);
    lvxd_log("lvx daemon stopped");
    close(pfd);
    return rc;
}
