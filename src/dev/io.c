/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/io.c - the I/O seam (io.h): the default ops table (plain syscalls, io_uring
 * for batched reads and submitted batches) and the test wrapper built from the
 * environment.
 *
 * Entry points: lvx_dev_ops_default(), lvx_dev_ops_from_env(), lvx_dev_dp_fault_check().
 *
 * Default ops: pread/pwrite loop until the whole length is done (retrying EINTR);
 * pread stops early only at end of file and returns the bytes read.  read_batch
 * uses one io_uring per call (depth min(count, 1024)), submits everything, waits
 * for everything and completes short reads with pread; when no ring can be set up
 * it falls back to a pread loop.  submit runs on the caller's queue (one io_uring
 * made by queue_open): everything goes in flight as far as the ring holds, one
 * system call submits and waits, completions are reaped as they come and short
 * transfers are continued in the same ring (left short only when the ring is full
 * or the device made no progress: the caller then continues or fails them).
 *
 * Test wrapper (counters are process-wide, configuration is re-read from the
 * environment on every lvx_dev_ops_from_env() call):
 *   LVX_TEST_FAIL_WRITE=N         the Nth write returns -EIO without writing
 *   LVX_TEST_CRASH_AFTER_WRITE=N  the Nth write is done, fdatasync'ed, then _exit(99)
 *   LVX_TEST_IO_LOG=FILE          one line appended per event:
 *                                   "open PATH"
 *                                   "read FD OFFSET LEN PATH"  (plain and batched reads)
 *                                   "write FD OFFSET LEN PATH"
 *                                   "failwrite FD OFFSET LEN PATH"   (injected EIO)
 *                                   "flush FD PATH"
 *                                   "crash after write N"
 *                                   "dpfault KIND DEV OFFSET LEN PATH" (LVX_TEST_DP_FAULT)
 *                                 (submit()'s ops too: a WRITE op counts and logs as
 *                                 a pwrite; under FAIL/CRASH a batch runs op by op)
 *   LVX_TEST_DP_FAULT=RULE;...    faults of submit() ops (io.h).  Parsed again only
 *                                 when the value changes (its counters then restart).
 */
#include "dev/io.h"
#include "dev/io_fault.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <linux/falloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Valgrind cannot see the kernel fill buffers through io_uring: tell it (no-op
 * outside valgrind, and absent when its header is not installed). */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define MARK_DEFINED(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#endif
#endif
#ifndef MARK_DEFINED
#define MARK_DEFINED(p, n) ((void)0)
#endif

#define BATCH_MAX_DEPTH 1024u          /* one submission for the labels of 1000 PVs */
#define URING_MAX_READ (1u << 30)

/* ---- default ops ------------------------------------------------------------ */

static int sys_open(void *arg, const char *path, int flags)
{
    int fd;
    do
        fd = open(path, flags | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    return fd < 0 ? -errno : fd;
}

static int sys_close(void *arg, int fd)
{
    return close(fd) < 0 ? -errno : 0;
}

static ssize_t sys_pread(void *arg, int fd, void *buf, size_t len, uint64_t offset)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(offset + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            break;                  /* end of file */
        done += (size_t)r;
    }
    return (ssize_t)done;
}

static ssize_t sys_pwrite(void *arg, int fd, const void *buf, size_t len, uint64_t offset)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = pwrite(fd, (const char *)buf + done, len - done, (off_t)(offset + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            return -EIO;            /* no progress: treat as an I/O error */
        done += (size_t)r;
    }
    return (ssize_t)done;
}

static int sys_flush(void *arg, int fd)
{
    int r;
    do
        r = fdatasync(fd);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

static int sys_writeback(void *arg, int fd)
{
    unsigned flags = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                     SYNC_FILE_RANGE_WAIT_AFTER;
    int r;
    do
        r = sync_file_range(fd, 0, 0, flags);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

static void batch_by_pread(struct lvx_io_req *reqs, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        reqs[i].result = sys_pread(NULL, reqs[i].fd, reqs[i].buf, reqs[i].len, reqs[i].offset);
}

/* Finish a request the ring completed with `res`: short reads and retryable errors
 * are completed synchronously. */
static void complete_req(struct lvx_io_req *req, int res)
{
    if (res == -EINTR || res == -EAGAIN) {
        req->result = sys_pread(NULL, req->fd, req->buf, req->len, req->offset);
        return;
    }
    if (res < 0) {
        req->result = res;
        return;
    }
    size_t got = (size_t)res;
    MARK_DEFINED(req->buf, got);
    if (got < req->len && res > 0) {
        ssize_t more = sys_pread(NULL, req->fd, (char *)req->buf + got, req->len - got,
                                 req->offset + got);
        req->result = more < 0 ? more : (ssize_t)(got + (size_t)more);
        return;
    }
    req->result = (ssize_t)got;
}

/* One chunk of at most the ring depth: submit all, wait for all. */
static int uring_chunk(struct io_uring *ring, struct lvx_io_req *reqs, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
        if (!sqe)
            return -EBUSY;
        unsigned n = reqs[i].len > URING_MAX_READ ? URING_MAX_READ : (unsigned)reqs[i].len;
        io_uring_prep_read(sqe, reqs[i].fd, reqs[i].buf, n, reqs[i].offset);
        io_uring_sqe_set_data(sqe, &reqs[i]);
    }
    unsigned submitted = 0;
    while (submitted < count) {
        /* one system call submits everything and waits for all of it */
        int r = io_uring_submit_and_wait(ring, count - submitted);
        if (r == -EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? r : -EIO;
        submitted += (unsigned)r;
    }
    for (unsigned seen = 0; seen < count; seen++) {
        struct io_uring_cqe *cqe;
        int r;
        do
            r = io_uring_wait_cqe(ring, &cqe);
        while (r == -EINTR);
        if (r < 0)
            return r;
        complete_req(io_uring_cqe_get_data(cqe), cqe->res);
        io_uring_cqe_seen(ring, cqe);
    }
    return 0;
}

static int sys_read_batch(void *arg, struct lvx_io_req *reqs, unsigned count)
{
    if (count == 0)
        return 0;
    unsigned depth = count < BATCH_MAX_DEPTH ? count : BATCH_MAX_DEPTH;
    struct io_uring ring;
    if (io_uring_queue_init(depth, &ring, 0) < 0) {
        batch_by_pread(reqs, count);
        return 0;
    }
    int r = 0;
    for (unsigned i = 0; i < count && r == 0; i += depth) {
        unsigned n = count - i < depth ? count - i : depth;
        r = uring_chunk(&ring, reqs + i, n);
    }
    io_uring_queue_exit(&ring);
    return r;
}

/* ---- submitted batches ------------------------------------------------------- */

struct lvx_io_queue {
    struct io_uring ring;
};

static int sys_queue_open(void *arg, unsigned depth, struct lvx_io_queue **out)
{
    struct lvx_io_queue *q = calloc(1, sizeof(*q));
    if (!q)
        return -ENOMEM;
    int rc = io_uring_queue_init(depth, &q->ring, 0);
    if (rc < 0) {
        free(q);
        return rc;
    }
    *out = q;
    return 0;
}

static void sys_queue_close(void *arg, struct lvx_io_queue *q)
{
    if (!q)
        return;
    io_uring_queue_exit(&q->ring);
    free(q);
}

static bool is_transfer(const struct lvx_io_op *op)
{
    return op->kind == LVX_IO_READ || op->kind == LVX_IO_WRITE || op->kind == LVX_IO_WRITE_FUA;
}

/* The rest of op (result = bytes done so far) into sqe. */
static void prep_op(struct io_uring_sqe *sqe, const struct lvx_io_op *op)
{
    uint32_t done = op->result > 0 ? (uint32_t)op->result : 0;
    switch (op->kind) {
    case LVX_IO_READ:
        io_uring_prep_read(sqe, op->fd, (char *)op->buf + done, op->len - done, op->off + done);
        break;
    case LVX_IO_WRITE:
        io_uring_prep_write(sqe, op->fd, (char *)op->buf + done, op->len - done, op->off + done);
        break;
    case LVX_IO_WRITE_FUA:
        io_uring_prep_write(sqe, op->fd, (char *)op->buf + done, op->len - done, op->off + done);
        sqe->rw_flags = RWF_DSYNC;
        break;
    case LVX_IO_DATASYNC:
        io_uring_prep_fsync(sqe, op->fd, IORING_FSYNC_DATASYNC);
        break;
    case LVX_IO_PUNCH:
        io_uring_prep_fallocate(sqe, op->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, op->off,
                                op->len);
        break;
    default:
        io_uring_prep_fallocate(sqe, op->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, op->off,
                                op->len);
        break;
    }
}

static int sys_submit(void *arg, struct lvx_io_queue *q, struct lvx_io_op *ops, unsigned n)
{
    unsigned next = 0, inflight = 0;
    while (next < n || inflight) {
        struct io_uring_sqe *sqe;
        while (next < n && (sqe = io_uring_get_sqe(&q->ring))) {
            ops[next].result = 0;
            prep_op(sqe, &ops[next]);
            io_uring_sqe_set_data64(sqe, next);
            next++;
            inflight++;
        }
        int r = io_uring_submit_and_wait(&q->ring, 1);
        if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY)
            return r;   /* the ring is unusable: nothing we can wait for */
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&q->ring, head, cqe) {
            struct lvx_io_op *op = &ops[io_uring_cqe_get_data64(cqe)];
            int res = cqe->res;
            seen++;
            inflight--;
            if (res < 0 || !is_transfer(op)) {
                op->result = res < 0 ? res : 0;
                continue;
            }
            MARK_DEFINED((char *)op->buf + op->result, (size_t)res);
            op->result += res;
            if (res > 0 && (uint32_t)op->result < op->len) {
                struct io_uring_sqe *again = io_uring_get_sqe(&q->ring);
                if (again) {     /* else left short: the caller continues it */
                    prep_op(again, op);
                    io_uring_sqe_set_data64(again, (uint64_t)(op - ops));
                    inflight++;
                }
            }
        }
        io_uring_cq_advance(&q->ring, seen);
    }
    return 0;
}

static const struct lvx_dev_ops default_ops = {
    .open = sys_open,
    .close = sys_close,
    .pread = sys_pread,
    .pwrite = sys_pwrite,
    .flush = sys_flush,
    .writeback = sys_writeback,
    .read_batch = sys_read_batch,
    .queue_open = sys_queue_open,
    .queue_close = sys_queue_close,
    .submit = sys_submit,
    .arg = NULL,
};

const struct lvx_dev_ops *lvx_dev_ops_default(void)
{
    return &default_ops;
}

/* ---- test wrapper -------------------------------------------------------------- */

#define FD_TABLE_SIZE 4096           /* fds named in the log (a 1000-PV VG opens ~1000) */
#define FD_PATH_MAX 256

struct fd_name {
    int fd;
    char path[FD_PATH_MAX];
};

static struct {
    pthread_mutex_t lock;
    unsigned long fail_write;       /* 0 = off */
    unsigned long crash_after;      /* 0 = off */
    int log_fd;                     /* -1 = off */
    char log_path[FD_PATH_MAX];
    unsigned long writes;           /* writes seen by the wrapper, whole process */
    /* FD_TABLE_SIZE entries, allocated by the first open the wrapper sees (a megabyte
     * in every command's data otherwise, which a sanitizer's leak check scans) */
    struct fd_name *fds;
} hooks = { .lock = PTHREAD_MUTEX_INITIALIZER, .log_fd = -1 };

static const char *fd_path(int fd)
{
    for (unsigned i = 0; hooks.fds && i < FD_TABLE_SIZE; i++)
        if (hooks.fds[i].path[0] && hooks.fds[i].fd == fd)
            return hooks.fds[i].path;
    return "?";
}

static void fd_remember(int fd, const char *path)
{
    if (!hooks.fds && !(hooks.fds = calloc(FD_TABLE_SIZE, sizeof(*hooks.fds))))
        return;                     /* the log shows "?" for this fd */
    struct fd_name *slot = NULL;
    for (unsigned i = 0; i < FD_TABLE_SIZE && !slot; i++)
        if (!hooks.fds[i].path[0] || hooks.fds[i].fd == fd)
            slot = &hooks.fds[i];
    if (!slot)
        return;                     /* table full: the log shows "?" for this fd */
    slot->fd = fd;
    snprintf(slot->path, sizeof(slot->path), "%s", path);
}

static void fd_forget(int fd)
{
    for (unsigned i = 0; hooks.fds && i < FD_TABLE_SIZE; i++)
        if (hooks.fds[i].path[0] && hooks.fds[i].fd == fd)
            hooks.fds[i].path[0] = '\0';
}

/* Append one line with a single write(2), so it survives _exit() and interleaves
 * safely with other processes appending to the same file. */
static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
    if (hooks.log_fd < 0)
        return;
    char line[FD_PATH_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    ssize_t w = write(hooks.log_fd, line, (size_t)n);
    (void)w;
}

static int hook_open(void *arg, const char *path, int flags)
{
    int fd = sys_open(arg, path, flags);
    pthread_mutex_lock(&hooks.lock);
    if (fd >= 0)
        fd_remember(fd, path);
    log_line("open %s", path);
    pthread_mutex_unlock(&hooks.lock);
    return fd;
}

static int hook_close(void *arg, int fd)
{
    pthread_mutex_lock(&hooks.lock);
    fd_forget(fd);
    pthread_mutex_unlock(&hooks.lock);
    return sys_close(arg, fd);
}

static ssize_t hook_pwrite(void *arg, int fd, const void *buf, size_t len, uint64_t offset)
{
    pthread_mutex_lock(&hooks.lock);
    unsigned long n = ++hooks.writes;
    const char *path = fd_path(fd);
    if (hooks.fail_write && n == hooks.fail_write) {
        log_line("failwrite %d %llu %zu %s", fd, (unsigned long long)offset, len, path);
        pthread_mutex_unlock(&hooks.lock);
        return -EIO;
    }
    ssize_t r = sys_pwrite(arg, fd, buf, len, offset);
    log_line("write %d %llu %zu %s", fd, (unsigned long long)offset, len, path);
    if (hooks.crash_after && n == hooks.crash_after) {
        sys_flush(arg, fd);
        log_line("crash after write %lu", n);
        _exit(99);
    }
    pthread_mutex_unlock(&hooks.lock);
    return r;
}

static ssize_t hook_pread(void *arg, int fd, void *buf, size_t len, uint64_t offset)
{
    ssize_t r = sys_pread(arg, fd, buf, len, offset);
    pthread_mutex_lock(&hooks.lock);
    log_line("read %d %llu %zu %s", fd, (unsigned long long)offset, len, fd_path(fd));
    pthread_mutex_unlock(&hooks.lock);
    return r;
}

static int hook_read_batch(void *arg, struct lvx_io_req *reqs, unsigned count)
{
    int r = sys_read_batch(arg, reqs, count);
    pthread_mutex_lock(&hooks.lock);
    for (unsigned i = 0; i < count; i++)
        log_line("read %d %llu %zu %s", reqs[i].fd, (unsigned long long)reqs[i].offset,
                 reqs[i].len, fd_path(reqs[i].fd));
    pthread_mutex_unlock(&hooks.lock);
    return r;
}

static int hook_flush(void *arg, int fd)
{
    pthread_mutex_lock(&hooks.lock);
    log_line("flush %d %s", fd, fd_path(fd));
    pthread_mutex_unlock(&hooks.lock);
    return sys_flush(arg, fd);
}

static int hook_writeback(void *arg, int fd)
{
    pthread_mutex_lock(&hooks.lock);
    log_line("writeback %d %s", fd, fd_path(fd));
    pthread_mutex_unlock(&hooks.lock);
    return sys_writeback(arg, fd);
}

static void log_dp_fault(const char *kind, const struct lvx_io_op *op, const char *path)
{
    pthread_mutex_lock(&hooks.lock);
    log_line("dpfault %s %u %llu %u %s", kind, op->dev, (unsigned long long)op->off, op->len,
             path);
    pthread_mutex_unlock(&hooks.lock);
}

/* One op of a submitted batch in the log, as the single calls log theirs. */
static void log_op(const struct lvx_io_op *op)
{
    /* a FUA write is a write to whoever counts them (tests/cli/t0500 counts "write" lines) */
    static const char *const names[] = { "read", "write", "flush", "punch", "zero", "write" };
    const char *name = op->kind < sizeof(names) / sizeof(names[0]) ? names[op->kind] : "op";
    if (op->kind == LVX_IO_DATASYNC)
        log_line("flush %d %s", op->fd, fd_path(op->fd));
    else
        log_line("%s %d %llu %u %s", name, op->fd, (unsigned long long)op->off, op->len,
                 fd_path(op->fd));
}

/* Submitted batches under the write hooks: a WRITE op counts as a write as pwrite's do.
 * With LVX_TEST_FAIL_WRITE or LVX_TEST_CRASH_AFTER_WRITE set the ops run one at a time, in
 * order, so the Nth write fails (nothing done) or ends the process right after it is done
 * (and synced), as with pwrite; otherwise the batch runs whole and is logged after. */
static int counted_submit(void *arg, struct lvx_io_queue *q, struct lvx_io_op *ops, unsigned n)
{
    pthread_mutex_lock(&hooks.lock);
    bool one_by_one = hooks.fail_write || hooks.crash_after;
    pthread_mutex_unlock(&hooks.lock);
    if (!one_by_one) {
        int r = sys_submit(arg, q, ops, n);
        pthread_mutex_lock(&hooks.lock);
        for (unsigned i = 0; i < n; i++) {
            hooks.writes += ops[i].kind == LVX_IO_WRITE || ops[i].kind == LVX_IO_WRITE_FUA;
            log_op(&ops[i]);
        }
        pthread_mutex_unlock(&hooks.lock);
        return r;
    }
    for (unsigned i = 0; i < n; i++) {
        struct lvx_io_op *op = &ops[i];
        unsigned long k = 0;
        if (op->kind == LVX_IO_WRITE || op->kind == LVX_IO_WRITE_FUA) {
            pthread_mutex_lock(&hooks.lock);
            k = ++hooks.writes;
            if (k == hooks.fail_write) {
                log_line("failwrite %d %llu %u %s", op->fd, (unsigned long long)op->off, op->len,
                         fd_path(op->fd));
                pthread_mutex_unlock(&hooks.lock);
                op->result = -EIO;
                continue;
            }
            pthread_mutex_unlock(&hooks.lock);
        }
        int r = sys_submit(arg, q, op, 1);
        if (r < 0)
            return r;
        pthread_mutex_lock(&hooks.lock);
        log_op(op);
        if (k && k == hooks.crash_after) {
            sys_flush(arg, op->fd);
            log_line("crash after write %lu", k);
            _exit(99);
        }
        pthread_mutex_unlock(&hooks.lock);
    }
    return 0;
}

static int hook_submit(void *arg, struct lvx_io_queue *q, struct lvx_io_op *ops, unsigned n)
{
    if (!lvx_io_fault_active())
        return counted_submit(arg, q, ops, n);
    return lvx_io_fault_submit(counted_submit, arg, q, ops, n, log_dp_fault);
}

static const struct lvx_dev_ops hook_ops = {
    .open = hook_open,
    .close = hook_close,
    .pread = hook_pread,
    .pwrite = hook_pwrite,
    .flush = hook_flush,
    .writeback = hook_writeback,
    .read_batch = hook_read_batch,
    .queue_open = sys_queue_open,
    .queue_close = sys_queue_close,
    .submit = hook_submit,
    .ordered = true,
    .arg = NULL,
};

static unsigned long env_count(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    return *end ? 0 : n;
}

static void configure_log(const char *path)
{
    if (path && *path && hooks.log_fd >= 0 && strcmp(path, hooks.log_path) == 0)
        return;
    if (hooks.log_fd >= 0)
        close(hooks.log_fd);
    hooks.log_fd = -1;
    hooks.log_path[0] = '\0';
    if (!path || !*path)
        return;
    hooks.log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (hooks.log_fd >= 0)
        snprintf(hooks.log_path, sizeof(hooks.log_path), "%s", path);
}

const struct lvx_dev_ops *lvx_dev_ops_from_env(void)
{
    pthread_mutex_lock(&hooks.lock);
    hooks.fail_write = env_count("LVX_TEST_FAIL_WRITE");
    hooks.crash_after = env_count("LVX_TEST_CRASH_AFTER_WRITE");
    configure_log(getenv("LVX_TEST_IO_LOG"));
    bool active = hooks.fail_write || hooks.crash_after || hooks.log_fd >= 0;
    pthread_mutex_unlock(&hooks.lock);
    char err[256];
    if (lvx_io_fault_configure(getenv("LVX_TEST_DP_FAULT"), err, sizeof(err)) == 0 &&
        lvx_io_fault_active())
        active = true;
    return active ? &hook_ops : &default_ops;
}

int lvx_dev_dp_fault_check(const char *spec, char *err, size_t n)
{
    return lvx_io_fault_parse_only(spec, err, n);
}
