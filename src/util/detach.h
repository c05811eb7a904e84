/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/detach.h - starting a process that outlives the command: the double fork the
 * daemon's start (daemon/client.c) and `pvmove -b` (cmd/pvmove.c) share, and the check
 * whether the running program is the lvx binary (so the detached process can exec a
 * clean `lvx ...` that `ps` names, instead of running on in the fork).
 */
#ifndef LVX_UTIL_DETACH_H
#define LVX_UTIL_DETACH_H

#include <stdbool.h>
#include <stddef.h>

/* Fork a detached grandchild (new session, stdin/stdout/stderr on /dev/null).  Returns 0
 * in the grandchild, 1 in the caller once the intermediate child has exited, -1 (errno
 * set) when the first fork failed.  stdio buffers are flushed first. */
int lvx_detach_fork(void);

/* True when /proc/self/exe is a file named "lvx"; its path is left in exe. */
bool lvx_self_is_lvx(char *exe, size_t size);

#endif
