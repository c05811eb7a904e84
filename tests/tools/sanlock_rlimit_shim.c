/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/tools/sanlock_rlimit_shim.c - LD_PRELOAD for the sanlock daemons of the shared
 * VG tests (tests/tools/sanlock_host.sh).  sanlock's daemon refuses to start when it
 * cannot raise RLIMIT_MEMLOCK/RLIMIT_RTPRIO to unlimited, which needs CAP_SYS_RESOURCE
 * that a container may not have.  The test daemons run with `-l 0` (no mlockall) and
 * `-h 0` (no real-time priority), so those limits are not used: a setrlimit() of these
 * two that fails with EPERM is reported as done.  Every other call is passed through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/resource.h>

int setrlimit(__rlimit_resource_t resource, const struct rlimit *rlim)
{
    int (*real)(__rlimit_resource_t, const struct rlimit *) =
        (int (*)(__rlimit_resource_t, const struct rlimit *))dlsym(RTLD_NEXT, "setrlimit");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    int rc = real(resource, rlim);
    if (rc < 0 && errno == EPERM && (resource == RLIMIT_MEMLOCK || resource == RLIMIT_RTPRIO))
        return 0;
    return rc;
}
