/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/io.h - the I/O seam.  Every open, read, write and flush of a device goes
 * through one table of functions (struct lvx_dev_ops, reached from ctx->io), so
 * tests can wrap it: count opens, fail the Nth write, or stop the process right
 * after the Nth write (crash simulation).  The default table uses plain syscalls
 * and io_uring for batched reads.
 */
#ifndef LVX_DEV_IO_H
#define LVX_DEV_IO_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/* One read of a batch. */
struct lvx_io_req {
    int fd;
    void *buf;
    size_t len;
    uint64_t offset;
    ssize_t result;       /* bytes read or -errno, filled by read_batch */
};

struct lvx_dev_ops {
    int (*open)(void *arg, const char *path, int flags);          /* fd or -errno */
    int (*close)(void *arg, int fd);
    ssize_t (*pread)(void *arg, int fd, void *buf, size_t len, uint64_t offset);
    ssize_t (*pwrite)(void *arg, int fd, const void *buf, size_t len, uint64_t offset);
    int (*flush)(void *arg, int fd);                              /* fdatasync */
    /* Submit all reads at once and wait for them; 0, or -errno if the batch could not run
     * (per-request errors go in req->result). */
    int (*read_batch)(void *arg, struct lvx_io_req *reqs, unsigned count);
    void *arg;
};

/* The default ops (syscalls + io_uring). */
const struct lvx_dev_ops *lvx_dev_ops_default(void);

/*
 * Test hooks, installed by the lvx binary from the environment (never by default):
 *   LVX_TEST_FAIL_WRITE=N       the Nth device write (1-based) fails with EIO
 *   LVX_TEST_CRASH_AFTER_WRITE=N the process _exit(99)s right after the Nth write
 *   LVX_TEST_IO_LOG=FILE        append one line per open/read/write/flush to FILE:
 *       "open PATH", "read FD OFFSET LEN PATH", "write FD OFFSET LEN PATH",
 *       "failwrite FD OFFSET LEN PATH"
 *       (the injected failure), "flush FD PATH", "crash after write N"
 * Writes are counted across the whole process; the variables are re-read on each call.
 * Returns the ops to use (the default when no variable is set).
 */
const struct lvx_dev_ops *lvx_dev_ops_from_env(void);

#endif
