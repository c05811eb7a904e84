/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/io.h - the I/O seam.  Every open, read, write and flush of a device goes
 * through one table of functions (struct lvx_dev_ops, reached from ctx->io), so
 * tests can wrap it: count opens, fail the Nth write, or stop the process right
 * after the Nth write (crash simulation), or inject faults into the daemon's
 * datapath.  The default table uses plain syscalls, io_uring for batched reads and
 * per-thread io_uring queues for submitted batches (the daemon's datapath).
 */
#ifndef LVX_DEV_IO_H
#define LVX_DEV_IO_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/ctx.h"

/* One read of a batch. */
struct lvx_io_req {
    int fd;
    void *buf;
    size_t len;
    uint64_t offset;
    ssize_t result;       /* bytes read or -errno, filled by read_batch */
};

/* What one operation of a submitted batch does. */
enum lvx_io_kind {
    LVX_IO_READ,          /* read len bytes at off into buf */
    LVX_IO_WRITE,         /* write len bytes at off from buf */
    LVX_IO_DATASYNC,      /* fdatasync the fd (off, len, buf unused) */
    LVX_IO_PUNCH,         /* fallocate PUNCH_HOLE | KEEP_SIZE [off, off+len) */
    LVX_IO_ZERO,          /* fallocate ZERO_RANGE | KEEP_SIZE [off, off+len) */
    LVX_IO_WRITE_FUA,     /* a WRITE that is durable when it completes (RWF_DSYNC: on a
                           * block device opened O_DIRECT, a FUA write), no flush needed */
};

/* One operation of a submitted batch (struct lvx_dev_ops.submit). */
struct lvx_io_op {
    int fd;
    uint8_t kind;         /* enum lvx_io_kind */
    uint32_t len;         /* bytes */
    uint64_t off;         /* bytes on the device */
    void *buf;            /* READ / WRITE: the caller's (O_DIRECT-aligned) buffer */
    unsigned dev;         /* the caller's number for the device (the daemon: the PV's
                           * index in its VG, pvN of the metadata); the seam passes it
                           * to test wrappers, which may select faults by it */
    int32_t result;       /* set by submit: bytes done (READ/WRITE; may be short), 0, or
                           * -errno */
};

/* A submission queue of one thread (an io_uring in the default ops), made before use:
 * nothing is allocated per submission. */
struct lvx_io_queue;

struct lvx_dev_ops {
    int (*open)(void *arg, const char *path, int flags);          /* fd or -errno */
    int (*close)(void *arg, int fd);
    ssize_t (*pread)(void *arg, int fd, void *buf, size_t len, uint64_t offset);
    ssize_t (*pwrite)(void *arg, int fd, const void *buf, size_t len, uint64_t offset);
    int (*flush)(void *arg, int fd);                              /* fdatasync */
    /* Optional (NULL: flush is used): the fd's dirty pages written to the device and
     * waited for, without asking the device to flush its cache (sync_file_range). */
    int (*writeback)(void *arg, int fd);
    /* Submit all reads at once and wait for them; 0, or -errno if the batch could not run
     * (per-request errors go in req->result). */
    int (*read_batch)(void *arg, struct lvx_io_req *reqs, unsigned count);
    /* A queue for submit() of at most depth operations in flight; 0 or -errno. */
    int (*queue_open)(void *arg, unsigned depth, struct lvx_io_queue **q);
    void (*queue_close)(void *arg, struct lvx_io_queue *q);
    /* Run n operations of any kinds, all in flight together (as many as the queue
     * holds at once), and wait for all of them.  Every op gets its result; a READ or
     * WRITE may come back short (0 <= result < len: the caller continues the rest or
     * fails it, never takes it as done).  0, or -errno when the queue itself failed
     * (then no result can be trusted).  One thread per queue at a time. */
    int (*submit)(void *arg, struct lvx_io_queue *q, struct lvx_io_op *ops, unsigned n);
    void *arg;
    /* Writes are numbered in submission order (the test hooks: the Nth write fails or
     * ends the process): a batch must go through one queue on one thread. */
    bool ordered;
};

/* The default ops (syscalls + io_uring). */
const struct lvx_dev_ops *lvx_dev_ops_default(void);
/* The seam a ctx uses: its own (ctx->io), or the default one when it has none (a ctx
 * fresh from lvx_ctx_init()).  Every device access takes its ops from here. */
static inline const struct lvx_dev_ops *lvx_io(const struct lvx_ctx *ctx)
{
    return ctx->io ? ctx->io : lvx_dev_ops_default();
}

/*
 * Test hooks, installed by the lvx program (src/lvx.c) from the environment, never by
 * the library (its commands and lvx_run() use the default unless the caller passes
 * other ops):
 *   LVX_TEST_FAIL_WRITE=N       the Nth device write (1-based) fails with EIO
 *   LVX_TEST_CRASH_AFTER_WRITE=N the process _exit(99)s right after the Nth write
 *   LVX_TEST_IO_LOG=FILE        append one line per open/read/write/flush to FILE:
 *       "open PATH", "read FD OFFSET LEN PATH", "write FD OFFSET LEN PATH",
 *       "failwrite FD OFFSET LEN PATH"
 *       (the injected failure), "flush FD PATH", "crash after write N"
 *   LVX_TEST_DP_FAULT=RULE[;RULE...]  faults of submitted batches (the daemon's
 *       datapath) on chosen devices; RULE is comma-separated key=value:
 *         pv=PATH|INDEX   the device: a path (matched by device number, or inode for a
 *                         file, when opened through these ops) or the op's dev number
 *         op=read|write|flush|zero|any          (default any; flush = DATASYNC,
 *                                               zero = PUNCH/ZERO)
 *         kind=eio        the op fails with -EIO, nothing done
 *         kind=short      a READ/WRITE does only its first half (rounded down to 512
 *                         bytes, possibly nothing) and returns that count
 *         kind=delay=MS   the op is delayed MS milliseconds, then done
 *         kind=lostflush  a DATASYNC is not done and fails with -EIO
 *         kind=kill       the process SIGKILLs itself at the op: the ops before it in its
 *                         batch are done first, it and the rest are not (a crash
 *                         inside one batch, e.g. between two legs' superblocks)
 *         after=N         the first N matching ops pass (default 0)
 *         count=M         then M ops get the fault (default 0: every later one)
 *         off=BYTES       only ops that start at this byte offset of the device
 *       the counts are shared with processes forked after the rules were read (a
 *       daemon's restarted worker goes on counting: a kill hits once);
 *       each injection is logged as "dpfault KIND DEV OFF LEN PATH" when
 *       LVX_TEST_IO_LOG is set.
 * Writes are counted across the whole process, those of submitted batches too (each
 * WRITE op one write; under LVX_TEST_FAIL_WRITE/CRASH_AFTER_WRITE a batch runs one op
 * at a time, in order); every op of a batch is logged as the single calls are ("read",
 * "write", "flush", "punch", "zero" lines).  The variables are re-read on each call.
 * Returns the ops to use (the default when no variable is set).  A bad
 * LVX_TEST_DP_FAULT is ignored (lvx_dev_dp_fault_check() tells why).
 */
const struct lvx_dev_ops *lvx_dev_ops_from_env(void);

/* Check an LVX_TEST_DP_FAULT value: 0, or -EINVAL with a reason in err (size n). */
int lvx_dev_dp_fault_check(const char *spec, char *err, size_t n);

#endif
