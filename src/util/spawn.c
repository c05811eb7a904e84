/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/spawn.c - an outside tool run to its end (util/spawn.h).
 *
 * Entry point: lvx_spawn_wait().
 */
#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

int lvx_spawn_wait(const char *const argv[], bool quiet, int *status)
{
    pid_t pid = fork();
    if (pid < 0)
        return -errno;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            if (quiet) {
                dup2(null, 1);
                dup2(null, 2);
            }
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 255;
    return 0;
}
