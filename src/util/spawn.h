/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/spawn.h - running an outside tool to its end (the thin tools LVM2 runs:
 * thin_check before a pool is activated, thin_repair in a pool's repair): fork, exec by
 * path, wait (util/spawn.c).
 */
#ifndef LVX_UTIL_SPAWN_H
#define LVX_UTIL_SPAWN_H

#include <stdbool.h>

/* Run argv[0] (a path) with argv (NULL-terminated), stdin from /dev/null, and wait for
 * it.  quiet: its stdout and stderr to /dev/null, else inherited.  0 with *status its
 * exit code (127 when it could not be executed, 128 + N when killed by signal N), or
 * -errno when no process could be made. */
int lvx_spawn_wait(const char *const argv[], bool quiet, int *status);

#endif
