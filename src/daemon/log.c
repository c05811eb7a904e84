/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/log.c - the daemon's log file (<run dir>/lvxd.log): one timestamped
 * line per message, written with a single write(2) (no allocation); mode 0600
 * (it names devices).
 *
 * Entry points: lvxd_log_open(), lvxd_log(), lvxd_log_cb().
 */
#include "daemon/daemon.h"
#include "daemon/daemon_int.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static int log_fd = 2;

void lvxd_log_open(void)
{
    char path[4096];
    lvx_daemon_path(path, sizeof(path), LVX_DAEMON_LOG);
    int fd = lvxd_open_private(path, O_WRONLY | O_CREAT | O_APPEND);   /* 0600 */
    if (fd >= 0)
        log_fd = fd;
    /* a daemon started by a command has its stderr on /dev/null (lvx_detach_fork): what
     * reaches stderr (a sanitizer's report, a library's complaint) goes to the log then,
     * so a worker that dies without a word of its own still says why */
    struct stat st;
    if (fd >= 0 && fstat(2, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3))
        dup2(fd, 2);
}

void lvxd_log(const char *fmt, ...)
{
    char line[1200];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    int n = snprintf(line, sizeof(line), "%04d-%02d-%02d %02d:%02d:%02d.%03ld [%d] ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, ts.tv_nsec / 1000000, (int)getpid());
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    if (write(log_fd, line, len) < 0)
        return;
}

void lvxd_log_cb(void *arg, int level, const char *msg)
{
    (void)arg;
    (void)level;
    lvxd_log("%s", msg);
}
