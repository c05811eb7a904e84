/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_io_submit.c - the I/O seam's submitted batches (dev/io.h submit on a
 * queue) on temp files: mixed writes, reads, datasync, punch and zero-range in one
 * batch, a FUA (RWF_DSYNC) write, more ops than the queue depth, per-op errors; and
 * the datapath fault rules of the test wrapper (LVX_TEST_DP_FAULT): eio, short (half,
 * rounded down to 512), delay, lostflush, kill (a forked child killed inside its
 * batch), after/count, selection by path, dev number and offset, parse errors.
 */
#include "dev/io.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/lvx-test-submit-XXXXXX";

static int make_file(const char *name, size_t size, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0 && ftruncate(fd, (off_t)size) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static struct lvx_io_op op_of(int fd, enum lvx_io_kind kind, void *buf, uint32_t len,
                              uint64_t off, unsigned dev)
{
    struct lvx_io_op op = { .fd = fd, .kind = (uint8_t)kind, .len = len, .off = off,
                            .buf = buf, .dev = dev, .result = 12345 };
    return op;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_default_submit(void)
{
    const struct lvx_dev_ops *ops = lvx_dev_ops_default();
    char path[256];
    int fd = make_file("a.img", 1 << 20, path, sizeof(path));
    struct lvx_io_queue *q = NULL;
    ok(ops->submit && ops->queue_open && ops->queue_close, "default ops have submit and queues");
    is_int(ops->queue_open(ops->arg, 8, &q), 0, "queue_open (depth 8)");

    /* 40 writes of 4 KiB (more than the depth), each its own byte */
    enum { N = 40 };
    uint8_t *buf = aligned_alloc(4096, N * 4096);
    for (int i = 0; i < N; i++)
        memset(buf + i * 4096, 'a' + i % 26, 4096);
    struct lvx_io_op w[N];
    for (int i = 0; i < N; i++)
        w[i] = op_of(fd, LVX_IO_WRITE, buf + i * 4096, 4096, (uint64_t)i * 4096, 0);
    is_int(ops->submit(ops->arg, q, w, N), 0, "40 writes on a depth-8 queue");
    int good = 0;
    for (int i = 0; i < N; i++)
        good += w[i].result == 4096;
    is_int(good, N, "every write's result is its length");
    uint8_t chk[4096];
    ssize_t r = pread(fd, chk, 4096, 39 * 4096);
    ok(r == 4096 && chk[0] == 'a' + 39 % 26 && chk[4095] == 'a' + 39 % 26, "the last write landed");

    /* read back, datasync, punch and zero in one batch */
    uint8_t *rb = aligned_alloc(4096, 2 * 4096);
    memset(rb, 0, 2 * 4096);
    struct lvx_io_op m[4] = {
        op_of(fd, LVX_IO_READ, rb, 8192, 4096, 0),
        op_of(fd, LVX_IO_DATASYNC, NULL, 0, 0, 0),
        op_of(fd, LVX_IO_PUNCH, NULL, 4096, 0, 0),
        op_of(fd, LVX_IO_ZERO, NULL, 4096, 10 * 4096, 0),
    };
    is_int(ops->submit(ops->arg, q, m, 4), 0, "mixed batch");
    ok(m[0].result == 8192 && rb[0] == 'b' && rb[4096] == 'c', "read: both blocks (%d)", m[0].result);
    is_int(m[1].result, 0, "datasync: 0");
    ok(m[2].result == 0 || m[2].result == -EOPNOTSUPP, "punch: 0 (%d)", m[2].result);
    r = pread(fd, chk, 4096, 10 * 4096);
    ok(m[3].result != 0 || (r == 4096 && chk[0] == 0 && chk[4095] == 0), "zero range zeroed block 10");

    /* a read past the end is short (0 bytes), an op on a bad fd fails alone */
    struct lvx_io_op e[2] = {
        op_of(fd, LVX_IO_READ, rb, 4096, 1 << 20, 0),
        op_of(987654, LVX_IO_READ, rb + 4096, 4096, 0, 0),
    };
    is_int(ops->submit(ops->arg, q, e, 2), 0, "batch with failing ops still runs");
    is_int(e[0].result, 0, "read at the end of the file: 0 bytes (short, the caller decides)");
    is_int(e[1].result, -EBADF, "bad fd: -EBADF in that op only");

    /* a durable write (RWF_DSYNC) is a write like the others */
    memset(buf, 'F', 4096);
    struct lvx_io_op f = op_of(fd, LVX_IO_WRITE_FUA, buf, 4096, 20 * 4096, 0);
    is_int(ops->submit(ops->arg, q, &f, 1), 0, "a FUA write");
    is_int(f.result, 4096, "... its result is its length");
    r = pread(fd, chk, 4096, 20 * 4096);
    ok(r == 4096 && chk[0] == 'F' && chk[4095] == 'F', "... and it landed");
    ops->queue_close(ops->arg, q);
    close(fd);
    free(buf);
    free(rb);
}

static void test_parse(void)
{
    char err[256];
    char path[512];
    snprintf(path, sizeof(path), "pv=%s/a.img,op=write,kind=eio;pv=3,kind=delay=5,after=2,count=1",
             dir);
    is_int(lvx_dev_dp_fault_check(path, err, sizeof(err)), 0, "two good rules");
    static const char *const bad[] = {
        "kind=eio", "pv=0", "pv=/no/such/dev,kind=eio", "pv=0,kind=zap", "pv=0,op=nope,kind=eio",
        "pv=0,kind=eio,after=-1", "pv=0,kind=eio,count=1x", "pv=0,op=flush,kind=short",
        "pv=0,op=write,kind=lostflush", "pv=0,kind=delay=", "pv=0,kind=eio,x=1", "pv=0,eio",
        "pv=0,kind=kill,off=100", "pv=0,kind=kill,off=-512", "pv=0,kind=kill,off=",
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        int rc = lvx_dev_dp_fault_check(bad[i], err, sizeof(err));
        ok(rc == -EINVAL && err[0], "refused: %s (%s)", bad[i], err);
    }
}

/* The wrapper with spec set; the ops. */
static const struct lvx_dev_ops *with_faults(const char *spec)
{
    setenv("LVX_TEST_DP_FAULT", spec, 1);
    return lvx_dev_ops_from_env();
}

static void test_faults(void)
{
    char a[256], b[256], spec[700];
    int fa = make_file("fa.img", 1 << 20, a, sizeof(a));
    int fb = make_file("fb.img", 1 << 20, b, sizeof(b));
    uint8_t *buf = aligned_alloc(4096, 8 * 4096);
    memset(buf, 'x', 8 * 4096);

    /* eio on writes of file b, after 1, count 2 */
    snprintf(spec, sizeof(spec), "pv=%s,op=write,kind=eio,after=1,count=2", b);
    const struct lvx_dev_ops *ops = with_faults(spec);
    ok(ops != lvx_dev_ops_default(), "LVX_TEST_DP_FAULT installs the wrapper");
    struct lvx_io_queue *q = NULL;
    is_int(ops->queue_open(ops->arg, 16, &q), 0, "wrapper queue_open");
    struct lvx_io_op w[6];
    for (int i = 0; i < 6; i++)
        w[i] = op_of(i % 2 ? fb : fa, LVX_IO_WRITE, buf, 4096, (uint64_t)i * 4096, (unsigned)i % 2);
    is_int(ops->submit(ops->arg, q, w, 6), 0, "batch with faults runs");
    ok(w[0].result == 4096 && w[2].result == 4096 && w[4].result == 4096, "file a: all written");
    ok(w[1].result == 4096, "file b: the first write passes (after=1)");
    ok(w[3].result == -EIO && w[5].result == -EIO, "file b: the next two fail with -EIO");
    uint8_t chk[4096];
    memset(chk, 1, sizeof(chk));
    ssize_t r = pread(fb, chk, 4096, 3 * 4096);
    ok(r == 4096 && chk[0] == 0, "a failed write wrote nothing");
    w[0] = op_of(fb, LVX_IO_WRITE, buf, 4096, 7 * 4096, 1);
    is_int(ops->submit(ops->arg, q, w, 1), 0, "count exhausted");
    is_int(w[0].result, 4096, "the fourth write on b passes (count=2)");
    ops->queue_close(ops->arg, q);

    /* short reads by dev number: half, rounded down to 512; 512 bytes -> nothing */
    ops = with_faults("pv=7,op=read,kind=short");
    is_int(ops->queue_open(ops->arg, 16, &q), 0, "queue for short reads");
    struct lvx_io_op s[3] = {
        op_of(fa, LVX_IO_READ, buf, 8192, 0, 7),
        op_of(fa, LVX_IO_READ, buf + 8192, 3072, 0, 7),
        op_of(fa, LVX_IO_READ, buf + 16384, 512, 0, 7),
    };
    is_int(ops->submit(ops->arg, q, s, 3), 0, "short batch runs");
    is_int(s[0].result, 4096, "8 KiB read: 4 KiB done");
    is_int(s[1].result, 1536, "3 KiB read: 1.5 KiB done");
    is_int(s[2].result, 0, "512-byte read: nothing done");
    ok(s[0].len == 8192 && s[1].len == 3072, "the ops' lengths are given back");
    struct lvx_io_op other = op_of(fa, LVX_IO_READ, buf, 8192, 0, 6);
    ops->submit(ops->arg, q, &other, 1);
    is_int(other.result, 8192, "another dev number is not hit");
    ops->queue_close(ops->arg, q);

    /* lostflush and delay */
    snprintf(spec, sizeof(spec), "pv=%s,op=flush,kind=lostflush,count=1;pv=%s,op=write,kind=delay=150",
             a, b);
    ops = with_faults(spec);
    is_int(ops->queue_open(ops->arg, 16, &q), 0, "queue for flush faults");
    struct lvx_io_op f[2] = { op_of(fa, LVX_IO_DATASYNC, NULL, 0, 0, 0),
                              op_of(fb, LVX_IO_DATASYNC, NULL, 0, 0, 1) };
    is_int(ops->submit(ops->arg, q, f, 2), 0, "flush batch");
    ok(f[0].result == -EIO && f[1].result == 0, "lost flush on a: -EIO, b flushed");
    f[0] = op_of(fa, LVX_IO_DATASYNC, NULL, 0, 0, 0);
    ops->submit(ops->arg, q, f, 1);
    is_int(f[0].result, 0, "the next flush of a works (count=1)");
    double t0 = now_ms();
    w[0] = op_of(fb, LVX_IO_WRITE, buf, 4096, 0, 1);
    ops->submit(ops->arg, q, w, 1);
    double took = now_ms() - t0;
    ok(w[0].result == 4096 && took >= 150, "delayed write done after %.0f ms", took);
    ops->queue_close(ops->arg, q);

    /* kill at the second write starting at byte 8192 of b (off=, after=1): a child
     * submits a batch of 4 writes ('k': a@64k, b@8192, a@68k, b@80k), then one of 3 ('m':
     * a@72k, b@8192, a@76k) and dies inside it: a@72k written, b@8192 and a@76k not */
    snprintf(spec, sizeof(spec), "pv=%s,op=write,off=8192,kind=kill,after=1", b);
    uint8_t *mb = aligned_alloc(4096, 4096);
    memset(buf, 'k', 4096);
    memset(mb, 'm', 4096);
    pid_t pid = fork();
    if (pid == 0) {
        ops = with_faults(spec);
        if (ops->queue_open(ops->arg, 16, &q) != 0)
            _exit(2);
        struct lvx_io_op k1[4] = {
            op_of(fa, LVX_IO_WRITE, buf, 4096, 65536, 0), op_of(fb, LVX_IO_WRITE, buf, 4096, 8192, 1),
            op_of(fa, LVX_IO_WRITE, buf, 4096, 69632, 0), op_of(fb, LVX_IO_WRITE, buf, 4096, 81920, 1),
        };
        struct lvx_io_op k2[3] = {
            op_of(fa, LVX_IO_WRITE, mb, 4096, 73728, 0), op_of(fb, LVX_IO_WRITE, mb, 4096, 8192, 1),
            op_of(fa, LVX_IO_WRITE, mb, 4096, 77824, 0),
        };
        if (ops->submit(ops->arg, q, k1, 4) != 0)
            _exit(3);
        ops->submit(ops->arg, q, k2, 3);
        _exit(4);                                       /* not reached: killed */
    }
    int wst = 0;
    ok(pid > 0 && waitpid(pid, &wst, 0) == pid && WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL,
       "kind=kill: the child is SIGKILLed inside its second batch (status %#x)", (unsigned)wst);
    static const struct { int b; uint64_t off; char want; const char *what; } after_kill[] = {
        { 0, 65536, 'k', "first batch: a@64k written" },
        { 1, 8192, 'k', "first batch: b@8192 written (after=1: the first match passes)" },
        { 1, 81920, 'k', "first batch: b@80k written" },
        { 0, 73728, 'm', "second batch: a@72k (before the kill) written" },
        { 1, 8192, 'k', "second batch: b@8192 (the killed op) not written" },
        { 0, 77824, 0, "second batch: a@76k (after the kill) not written" },
    };
    for (unsigned i = 0; i < sizeof(after_kill) / sizeof(after_kill[0]); i++) {
        chk[0] = '?';
        ssize_t got = pread(after_kill[i].b ? fb : fa, chk, 4096, (off_t)after_kill[i].off);
        ok(got == 4096 && chk[0] == after_kill[i].want, "%s (byte %#x)", after_kill[i].what, chk[0]);
    }
    free(mb);

    /* counts shared with forked children (a daemon's restarted worker): eio on the second
     * write of b only; the parent's first passes, a child's gets the fault, and the
     * parent's next passes (it counts the child's) */
    snprintf(spec, sizeof(spec), "pv=%s,op=write,kind=eio,after=1,count=1", b);
    ops = with_faults(spec);
    is_int(ops->queue_open(ops->arg, 16, &q), 0, "queue for shared counts");
    w[0] = op_of(fb, LVX_IO_WRITE, buf, 4096, 90112, 1);
    ops->submit(ops->arg, q, w, 1);
    is_int(w[0].result, 4096, "parent: the first write passes");
    pid = fork();
    if (pid == 0) {
        w[0] = op_of(fb, LVX_IO_WRITE, buf, 4096, 94208, 1);
        ops->submit(ops->arg, q, w, 1);
        _exit(w[0].result == -EIO ? 0 : 1);
    }
    ok(pid > 0 && waitpid(pid, &wst, 0) == pid && WIFEXITED(wst) && WEXITSTATUS(wst) == 0,
       "child: the second write (counted from the parent's) fails with -EIO");
    w[0] = op_of(fb, LVX_IO_WRITE, buf, 4096, 98304, 1);
    ops->submit(ops->arg, q, w, 1);
    is_int(w[0].result, 4096, "parent: the third write passes (the child's was counted)");
    ops->queue_close(ops->arg, q);
    ops = lvx_dev_ops_default();
    close(fa);
    close(fb);
    unlink(a);
    unlink(b);
    free(buf);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        ok(0, "temp dir");
        return tap_done();
    }
    unsetenv("LVX_TEST_FAIL_WRITE");
    unsetenv("LVX_TEST_CRASH_AFTER_WRITE");
    unsetenv("LVX_TEST_IO_LOG");
    unsetenv("LVX_TEST_DP_FAULT");
    test_default_submit();
    char p[300];
    int fd = make_file("a.img", 4096, p, sizeof(p));   /* for the parse test's path */
    close(fd);
    test_parse();
    test_faults();
    unlink(p);
    rmdir(dir);
    return tap_done();
}
