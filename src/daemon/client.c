/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/client.c - talking to the lvx daemon (see daemon.h): its paths, is it
 * alive (pid file lock), starting it (double fork; the grandchild becomes
 * `lvx daemon run` when the program is lvx, which sets its I/O seam up from the
 * environment again, else runs lvx_daemon_serve() itself with the caller's ctx->io),
 * and one request/reply over the control socket (after checking the run
 * directory, access.c, and that the daemon at the other end is root's).
 *
 * Entry points: lvx_daemon_run_dir(), lvx_daemon_path(), lvx_daemon_alive(),
 * lvx_daemon_has_state(), lvx_daemon_start(), lvx_daemon_call(); lvxd_control_socket()
 * (the control socket's address, shared with the server).
 */
#include "daemon/daemon.h"
#include "daemon/daemon_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/detach.h"
#include "util/run_dir.h"

#define START_WAIT_MS 15000
#define START_ALIVE_MS 5000
#define REPLY_WAIT_MS 300000

const char *lvx_daemon_run_dir(void)
{
    return lvx_run_dir();
}

void lvx_daemon_path(char *out, size_t n, const char *leaf)
{
    snprintf(out, n, "%s/%s", lvx_daemon_run_dir(), leaf);
}

bool lvx_daemon_alive(void)
{
    char path[4096];
    lvx_daemon_path(path, sizeof(path), LVX_DAEMON_PIDFILE);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool alive = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
    close(fd);
    return alive;
}

bool lvx_daemon_has_state(void)
{
    char path[4096];
    struct stat st;
    lvx_daemon_path(path, sizeof(path), LVX_DAEMON_STATE);
    return stat(path, &st) == 0 && st.st_size > 0;
}

int lvxd_control_socket(struct sockaddr_un *sa, char *path)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    lvx_daemon_path(path, 4096, LVX_DAEMON_SOCKET);
    if (strlen(path) >= sizeof(sa->sun_path))
        return -ENAMETOOLONG;
    strcpy(sa->sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    return fd < 0 ? -errno : fd;
}

static int connect_socket(void)
{
    struct sockaddr_un sa;
    char path[4096];
    int fd = lvxd_control_socket(&sa, path);
    if (fd < 0)
        return fd;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

/* When this program is lvx itself, become `lvx daemon run` (a clean process image,
 * and `ps` names it); other programs using liblvx run the daemon in the fork. */
static void exec_lvx_daemon(void)
{
    char exe[4096];
    if (!getenv("LVX_DAEMON_NO_EXEC") && lvx_self_is_lvx(exe, sizeof(exe)))
        execl(exe, "lvx", "daemon", "run", (char *)NULL);
}

static void spawn_daemon(const struct lvx_dev_ops *io)
{
    if (lvx_detach_fork() != 0)
        return;            /* the caller (or a failed fork: the wait below reports it) */
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    if (chdir("/") < 0)
        _exit(1);
    umask(077);
    exec_lvx_daemon();
    _exit(lvx_daemon_serve(io));
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

int lvx_daemon_start(struct lvx_ctx *ctx)
{
    int rc = lvx_daemon_check_run_dir(ctx, true);
    if (rc < 0)
        return rc;
    if (!lvx_daemon_alive())
        spawn_daemon(lvx_io(ctx));
    for (int waited = 0; waited < START_WAIT_MS; waited += 20) {
        int fd = connect_socket();
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        /* give up early only when no daemon holds the pid file after a while: a new
         * daemon takes it right after exec, which on a loaded machine (or a sanitized
         * build) can take well over half a second */
        if (waited > START_ALIVE_MS && !lvx_daemon_alive())
            break;
        sleep_ms(20);
    }
    char log[4096];
    lvx_daemon_path(log, sizeof(log), LVX_DAEMON_LOG);
    return lvx_error(ctx, ECONNREFUSED, "The lvx daemon did not start (see %s).", log);
}

/* Longest reply accepted: a status listing is a line of about 200 bytes per active LV,
 * so 64 MiB is some 300000 LVs; anything longer is not the daemon speaking. */
#define REPLY_MAX ((size_t)64 << 20)

static int read_reply(struct lvx_ctx *ctx, int fd, struct lvx_buf *out)
{
    char chunk[4096];
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int r = poll(&pfd, 1, REPLY_WAIT_MS);
        if (r == 0)
            return lvx_error(ctx, ETIMEDOUT, "The lvx daemon did not answer.");
        if (r < 0 && errno == EINTR)
            continue;
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return lvx_error(ctx, errno, "Reading from the lvx daemon: %s", strerror(errno));
        if (n == 0)
            return 0;
        if (out->len + (size_t)n > REPLY_MAX)
            return lvx_error(ctx, EPROTO, "The lvx daemon's reply is longer than %zu bytes.",
                             REPLY_MAX);
        lvx_buf_append(out, chunk, (size_t)n);
    }
}

static int parse_reply(struct lvx_ctx *ctx, const char *text, struct lvx_buf *reply)
{
    if (strncmp(text, "ok", 2) == 0 && (text[2] == 0 || text[2] == ' ' || text[2] == '\n')) {
        const char *rest = text + 2;
        if (*rest == ' ')
            rest++;
        if (reply)
            lvx_buf_puts(reply, rest);
        return 0;
    }
    int err = EIO;
    const char *msg = text;
    if (strncmp(text, "err ", 4) == 0) {
        char *end;
        err = (int)strtol(text + 4, &end, 10);
        msg = *end == ' ' ? end + 1 : end;
    }
    size_t len = strcspn(msg, "\n");
    if (len == 0) {
        /* no text: an empty reply is a daemon that closed the connection without
         * answering (it stopped or died in the request).  Said apart: "%.*s" with
         * len 0 cut any fallback to "", so the command only said "<cmd> failed." */
        char log[4096];
        lvx_daemon_path(log, sizeof(log), LVX_DAEMON_LOG);
        return lvx_error(ctx, err > 0 ? err : EIO, "The lvx daemon gave no answer (see %s).",
                         log);
    }
    return lvx_error(ctx, err > 0 ? err : EIO, "%.*s", (int)len, msg);
}

/* The process at the other end is root or runs as this uid (not an impostor that
 * bound the socket). */
static int check_peer(struct lvx_ctx *ctx, int fd)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
        return lvx_error(ctx, errno, "Cannot identify the lvx daemon: %s", strerror(errno));
    if (cred.uid != 0 && cred.uid != geteuid())
        return lvx_error(ctx, EPERM, "The lvx daemon socket is served by uid %u, not root: "
                         "refusing it.", (unsigned)cred.uid);
    return 0;
}

/* The request and its newline in one stream, without SIGPIPE (a library call must not
 * kill its caller when the daemon closed the connection): 0 or an errno. */
static int send_request(int fd, const char *request)
{
    size_t len = strlen(request);
    char *line = malloc(len + 1);
    if (!line)
        return ENOMEM;
    memcpy(line, request, len);
    line[len++] = '\n';
    int err = 0;
    for (size_t done = 0; done < len && !err;) {
        ssize_t n = send(fd, line + done, len - done, MSG_NOSIGNAL);
        if (n > 0)
            done += (size_t)n;
        else if (n < 0 && errno != EINTR)
            err = errno;
    }
    free(line);
    return err;
}

int lvx_daemon_call(struct lvx_ctx *ctx, const char *request, bool start, struct lvx_buf *reply)
{
    int rc = lvx_daemon_check_run_dir(ctx, false);
    if (rc < 0)
        return rc;
    int fd = connect_socket();
    if (fd < 0 && start) {
        rc = lvx_daemon_start(ctx);
        if (rc < 0)
            return rc;
        fd = connect_socket();
    }
    if (fd == -EACCES || fd == -EPERM) {
        char path[4096];
        lvx_daemon_path(path, sizeof(path), LVX_DAEMON_SOCKET);
        return lvx_error(ctx, -fd, "Cannot connect to the lvx daemon at %s: %s", path,
                         strerror(-fd));
    }
    if (fd < 0)
        return lvx_error(ctx, ENOTCONN, "The lvx daemon is not running.");
    if ((rc = check_peer(ctx, fd)) < 0) {
        close(fd);
        return rc;
    }
    struct lvx_buf all = LVX_BUF_INIT;
    int err = send_request(fd, request);
    if (err && err != EPIPE && err != ECONNRESET) {
        rc = lvx_error(ctx, err, "Writing to the lvx daemon: %s", strerror(err));
    } else {             /* a daemon that closed early may have answered: its reply read */
        shutdown(fd, SHUT_WR);
        rc = read_reply(ctx, fd, &all);
        if (rc == 0)
            rc = parse_reply(ctx, lvx_buf_str(&all), reply);
    }
    close(fd);
    lvx_buf_free(&all);
    return rc;
}
