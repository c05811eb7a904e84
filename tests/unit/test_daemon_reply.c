/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_daemon_reply.c - a daemon that closes the control connection without
 * answering (a worker that stopped mid-request): lvx_daemon_call fails with EIO and a
 * message saying so, naming the daemon's log, never an empty one (the command then
 * printed only "vgchange failed."); a bare "err 16" reply keeps its errno and gets the
 * same words; an "err 2 text" reply keeps its text.  A forked child plays the daemon on
 * $LVX_RUN_DIR/control.sock.
 */
#include "daemon/daemon.h"
#include "util/ctx.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/lvx-test-reply.XXXXXX";

/* A child serving one connection: the request read, `answer` written, closed. */
static pid_t serve_once(const char *answer)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, LVX_DAEMON_SOCKET);
    unlink(path);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(a.sun_path))
        return -1;
    memcpy(a.sun_path, path, strlen(path) + 1);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 1) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int c = accept(s, NULL, NULL);
        char buf[512];
        if (c >= 0 && read(c, buf, sizeof(buf)) >= 0 && *answer &&
            write(c, answer, strlen(answer)) < 0)
            _exit(1);
        _exit(0);
    }
    close(s);
    return pid;
}

static int call(struct lvx_ctx *ctx, const char *answer)
{
    lvx_ctx_init(ctx);
    pid_t pid = serve_once(answer);
    int rc = pid > 0 ? lvx_daemon_call(ctx, "deactivate vg m 0", false, NULL) : -999;
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return rc;
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    chmod(dir, 0700);
    setenv("LVX_RUN_DIR", dir, 1);
    struct lvx_ctx ctx;

    int rc = call(&ctx, "");
    is_int(rc, -EIO, "no answer at all: EIO");
    ok(strstr(ctx.errmsg, "The lvx daemon gave no answer") != NULL,
       "... and a message saying so (got \"%s\")", ctx.errmsg);
    ok(strstr(ctx.errmsg, LVX_DAEMON_LOG) != NULL, "... naming the daemon's log");

    rc = call(&ctx, "err 16\n");
    is_int(rc, -EBUSY, "\"err 16\" without text: its errno");
    ok(strstr(ctx.errmsg, "gave no answer") != NULL, "... and the same words, not \"\"");

    rc = call(&ctx, "err 2 Logical volume vg/m not found.\n");
    is_int(rc, -ENOENT, "\"err 2 text\": its errno");
    is_str(ctx.errmsg, "Logical volume vg/m not found.", "... and its text");

    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, LVX_DAEMON_SOCKET);
    unlink(path);
    rmdir(dir);
    return tap_done();
}
