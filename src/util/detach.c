/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/detach.c - the double fork of a process that outlives the command, and the
 * "is this the lvx binary" check (see detach.h).
 */
#include "util/detach.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int lvx_detach_fork(void)
{
    fflush(NULL);
    pid_t p = fork();
    if (p < 0)
        return -1;
    if (p > 0) {
        waitpid(p, NULL, 0);
        return 1;
    }
    setsid();
    if (fork() != 0)
        _exit(0);          /* the intermediate child: the grandchild is re-parented */
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        if (null > 2)
            close(null);
    }
    return 0;
}

bool lvx_self_is_lvx(char *exe, size_t size)
{
    if (size < 2)
        return false;
    ssize_t n = readlink("/proc/self/exe", exe, size - 1);
    if (n <= 0)
        return false;
    exe[n] = 0;
    const char *base = strrchr(exe, '/');
    base = base ? base + 1 : exe;
    return strcmp(base, "lvx") == 0;
}
