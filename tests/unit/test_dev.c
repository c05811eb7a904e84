/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_dev.c - device layer (dev/dev.c) and I/O seam (dev/io.c) on
 * regular temp files: device lists from names, open/size, exact-length I/O,
 * batched reads over many files (io_uring), short reads, and the test hooks
 * LVX_TEST_FAIL_WRITE / LVX_TEST_CRASH_AFTER_WRITE / LVX_TEST_IO_LOG (in children).
 */
#include "dev/dev.h"
#include "dev/io.h"
#include "util/ctx.h"
#include "util/pool.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NFILES 50

static char dir[] = "/tmp/lvx-test-dev-XXXXXX";

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

/* A file of `size` bytes whose byte i is (seed + i * 7) & 0xFF. */
static void make_file(const char *path, size_t size, unsigned seed)
{
    uint8_t *b = malloc(size ? size : 1);
    for (size_t i = 0; i < size; i++)
        b[i] = (uint8_t)(seed + i * 7);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ssize_t w = write(fd, b, size);
    (void)w;
    close(fd);
    free(b);
}

static bool pattern_ok(const uint8_t *b, size_t len, uint64_t offset, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        if (b[i] != (uint8_t)(seed + (offset + i) * 7))
            return false;
    return true;
}

static bool msg_has(const struct lvx_ctx *ctx, const char *what)
{
    if (strstr(ctx->errmsg, what))
        return true;
    tap_diag("message was: %s", ctx->errmsg);
    return false;
}

static void test_from_names(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_pool *pool = lvx_pool_create();
    char a[256], b[256], link[256], missing[256];
    path_of(a, sizeof(a), "a.img");
    path_of(b, sizeof(b), "b.img");
    path_of(link, sizeof(link), "a.link");
    path_of(missing, sizeof(missing), "nope.img");
    make_file(a, 4096, 1);
    make_file(b, 8192, 2);
    ok(symlink(a, link) == 0, "symlink created");

    struct lvx_devlist l;
    const char *names[] = { a, b, link, a };
    is_int(lvx_devs_from_names(&ctx, pool, names, 4, &l), 0, "files accepted");
    is_int(l.count, 2, "same file by two names listed once");
    if (l.count == 2) {
        is_str(l.devs[0]->path, a, "first name kept");
        ok(l.devs[0]->is_file && l.devs[1]->is_file, "marked as files");
        ok(l.devs[0]->fd == -1, "not opened yet");
        is_int(l.devs[1]->size, 8192, "file size known from stat");
    }

    const char *bad1[] = { a, missing };
    is_int(lvx_devs_from_names(&ctx, pool, bad1, 2, &l), -ENOENT, "missing file: -ENOENT");
    char want[300];
    snprintf(want, sizeof(want), "Device %s not found", missing);
    is_str(ctx.errmsg, want, "missing file: message");
    is_int(l.count, 0, "missing file: empty list");

    const char *bad2[] = { dir };
    is_int(lvx_devs_from_names(&ctx, pool, bad2, 1, &l), -EINVAL, "directory: -EINVAL");
    snprintf(want, sizeof(want), "%s is not a block device or regular file", dir);
    is_str(ctx.errmsg, want, "directory: message");
    const char *bad3[] = { "/dev/null" };
    is_int(lvx_devs_from_names(&ctx, pool, bad3, 1, &l), -EINVAL, "character device: -EINVAL");

    is_int(lvx_devs_from_system(&ctx, pool, &l), 0, "devices from /proc/partitions");
    bool sane = true;
    for (unsigned i = 0; i < l.count; i++)
        if (strncmp(l.devs[i]->path, "/dev/", 5) != 0 || l.devs[i]->is_file || !l.devs[i]->size)
            sane = false;
    ok(sane, "system devices: %u block devices under /dev with a size", l.count);
    lvx_pool_destroy(pool);
}

static struct lvx_dev file_dev(const char *path)
{
    struct lvx_dev d;
    memset(&d, 0, sizeof(d));
    d.path = path;
    d.fd = -1;
    d.is_file = true;
    return d;
}

static void test_open_io(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    char p[256];
    path_of(p, sizeof(p), "io.img");
    make_file(p, 1048576 + 3, 5);
    struct lvx_dev d = file_dev(p);
    uint8_t buf[4096], back[4096];

    is_int(lvx_dev_read(&ctx, &d, buf, 16, 0), -EBADF, "read before open: -EBADF");
    is_int(lvx_dev_open(&ctx, &d, false), 0, "open read-only");
    is_int(d.size, 1048579, "size of a file");
    is_int(d.logical_block_size, 512, "logical block size 512 for files");
    ok(d.fd >= 0 && !d.writable, "fd open, not writable");
    is_int(lvx_dev_read(&ctx, &d, buf, 4096, 8192), 0, "read 4 KiB");
    ok(pattern_ok(buf, 4096, 8192, 5), "read returns the file's bytes");
    is_int(lvx_dev_write(&ctx, &d, buf, 512, 0), -EBADF, "write on read-only open: -EBADF");

    is_int(lvx_dev_read(&ctx, &d, buf, 4096, 1048576 - 100), -EIO, "short read at end: -EIO");
    ok(msg_has(&ctx, p) && msg_has(&ctx, "103 of 4096"), "short read: message names device and count");
    is_int(lvx_dev_read(&ctx, &d, buf, 10, 1048579), -EIO, "read at the end: -EIO");

    is_int(lvx_dev_open(&ctx, &d, true), 0, "reopen read-write");
    ok(d.writable, "writable");
    for (unsigned i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 13 + 1);
    is_int(lvx_dev_write(&ctx, &d, buf, 4096, 65536), 0, "write 4 KiB");
    is_int(lvx_dev_flush(&ctx, &d), 0, "flush");
    lvx_dev_close(&ctx, &d);
    is_int(d.fd, -1, "closed");
    is_int(lvx_dev_flush(&ctx, &d), -EBADF, "flush when closed: -EBADF");
    is_int(lvx_dev_open(&ctx, &d, false), 0, "reopen");
    is_int(lvx_dev_read(&ctx, &d, back, 4096, 65536), 0, "read back");
    ok(memcmp(buf, back, 4096) == 0, "round trip");
    is_int(lvx_dev_read(&ctx, &d, back, 4096, 65536 + 4096), 0, "read after the written part");
    ok(pattern_ok(back, 4096, 65536 + 4096, 5), "neighbouring bytes untouched");
    lvx_dev_close(&ctx, &d);

    char missing[256];
    path_of(missing, sizeof(missing), "gone.img");
    struct lvx_dev m = file_dev(missing);
    ok(lvx_dev_open(&ctx, &m, false) == -ENOENT && msg_has(&ctx, missing),
       "open of a missing file: -ENOENT naming it");
}

static void test_read_many(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    char paths[NFILES][256];
    struct lvx_dev devs[NFILES], *pd[NFILES];
    uint8_t *bufs[NFILES];
    int errs[NFILES];
    size_t lens[NFILES];
    bool opened = true;

    for (unsigned i = 0; i < NFILES; i++) {
        char name[32];
        snprintf(name, sizeof(name), "many%02u.img", i);
        path_of(paths[i], sizeof(paths[i]), name);
        make_file(paths[i], i == 7 ? 1000 : 8192, i * 3);
        devs[i] = file_dev(paths[i]);
        pd[i] = &devs[i];
        bufs[i] = malloc(2048);
        memset(bufs[i], 0xEE, 2048);
        if (i != 9 && lvx_dev_open(&ctx, &devs[i], false) < 0)
            opened = false;
    }
    ok(opened, "49 files opened (one left closed)");
    is_int(lvx_dev_read_many(&ctx, pd, NFILES, 512, 2048, bufs, errs, lens), 0, "batched read");
    bool all = true;
    for (unsigned i = 0; i < NFILES; i++) {
        if (i == 7 || i == 9)
            continue;
        if (errs[i] || lens[i] != 2048 || !pattern_ok(bufs[i], 2048, 512, i * 3))
            all = false;
    }
    ok(all, "48 full reads return each file's bytes");
    is_int(errs[7], 0, "short file: no error");
    is_int(lens[7], 488, "short file: 488 bytes read");
    ok(pattern_ok(bufs[7], 488, 512, 21), "short file: bytes read are right");
    bool zero = true;
    for (unsigned k = 488; k < 2048; k++)
        if (bufs[7][k])
            zero = false;
    ok(zero, "short file: rest zero-filled");
    is_int(errs[9], -EBADF, "closed device: -EBADF");

    /* more requests than one ring holds (256): the default ops chunk them */
    unsigned nreq = 300;
    struct lvx_io_req *reqs = calloc(nreq, sizeof(*reqs));
    uint8_t *space = malloc((size_t)nreq * 64);
    for (unsigned k = 0; k < nreq; k++) {
        unsigned f = k % NFILES == 7 || k % NFILES == 9 ? 0 : k % NFILES;
        reqs[k] = (struct lvx_io_req){ devs[f].fd, space + 64 * k, 64, k * 16, -1 };
    }
    is_int(lvx_dev_ops_default()->read_batch(NULL, reqs, nreq), 0, "300-request batch");
    bool good = true;
    for (unsigned k = 0; k < nreq; k++) {
        unsigned f = k % NFILES == 7 || k % NFILES == 9 ? 0 : k % NFILES;
        if (reqs[k].result != 64 || !pattern_ok(space + 64 * k, 64, k * 16, f * 3))
            good = false;
    }
    ok(good, "300-request batch: every result right");
    free(reqs);
    free(space);

    for (unsigned i = 0; i < NFILES; i++) {
        lvx_dev_close(&ctx, &devs[i]);
        free(bufs[i]);
        unlink(paths[i]);
    }
}

/* ---- env hooks, each in a child process (the counters are process-wide) ---- */

static int child_writes(const char *img, int nwrites)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    ctx.io = lvx_dev_ops_from_env();
    struct lvx_dev d = file_dev(img);
    if (lvx_dev_open(&ctx, &d, true) < 0)
        return 10;
    uint8_t b[512];
    int failed_mask = 0;
    for (int i = 0; i < nwrites; i++) {
        memset(b, 'A' + i, sizeof(b));
        int r = lvx_dev_write(&ctx, &d, b, sizeof(b), (uint64_t)i * 512);
        if (r == -EIO && strstr(ctx.errmsg, img))
            failed_mask |= 1 << i;
        else if (r < 0)
            return 11;
        lvx_dev_flush(&ctx, &d);
    }
    lvx_dev_close(&ctx, &d);
    return failed_mask;
}

static int run_child(const char *img, int nwrites, const char *var, const char *val,
                     const char *log)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv(var, val, 1);
        setenv("LVX_TEST_IO_LOG", log, 1);
        _exit(child_writes(img, nwrites));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Byte 0 of each 512-byte block of the file. */
static void block_marks(const char *img, char out[4])
{
    uint8_t b[2048];
    memset(b, 0, sizeof(b));
    int fd = open(img, O_RDONLY);
    ssize_t n = pread(fd, b, sizeof(b), 0);
    (void)n;
    close(fd);
    for (int i = 0; i < 4; i++)
        out[i] = b[i * 512] ? (char)b[i * 512] : '0';
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return calloc(1, 1);
    char *s = calloc(1, 65536);
    size_t n = fread(s, 1, 65535, f);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void test_hooks(void)
{
    char img[256], log[256], want[512];
    path_of(img, sizeof(img), "hook.img");
    path_of(log, sizeof(log), "io.log");

    unsetenv("LVX_TEST_FAIL_WRITE");
    unsetenv("LVX_TEST_CRASH_AFTER_WRITE");
    unsetenv("LVX_TEST_IO_LOG");
    ok(lvx_dev_ops_from_env() == lvx_dev_ops_default(), "no variables: default ops");

    make_file(img, 2048, 0);
    memset(want, 0, sizeof(want));
    int fdz = open(img, O_WRONLY);
    ssize_t w = pwrite(fdz, want, 512, 0);
    w += pwrite(fdz, want, 512, 1024);
    (void)w;
    close(fdz);
    unlink(log);
    int rc = run_child(img, 3, "LVX_TEST_FAIL_WRITE", "2", log);
    is_int(rc, 1 << 1, "FAIL_WRITE=2: only the second write failed with -EIO naming the device");
    char marks[4];
    block_marks(img, marks);
    ok(marks[0] == 'A' && marks[1] != 'B' && marks[2] == 'C', "FAIL_WRITE=2: writes 1 and 3 landed, "
       "2 did not (%.3s)", marks);
    char *text = slurp(log);
    snprintf(want, sizeof(want), "open %s\n", img);
    ok(strstr(text, want) != NULL, "IO log: open line with the path");
    ok(strstr(text, " 0 512 ") && strstr(text, "\nwrite "), "IO log: write line with offset and length");
    snprintf(want, sizeof(want), " 512 512 %s\n", img);
    ok(strstr(text, "failwrite ") && strstr(text, want), "IO log: failed write logged with the path");
    ok(strstr(text, "\nflush ") != NULL, "IO log: flush line");
    free(text);

    make_file(img, 2048, 0);
    fdz = open(img, O_WRONLY);
    memset(want, 0, sizeof(want));
    w = pwrite(fdz, want, 512, 0);
    w += pwrite(fdz, want, 512, 512);
    w += pwrite(fdz, want, 512, 1024);
    (void)w;
    close(fdz);
    unlink(log);
    rc = run_child(img, 3, "LVX_TEST_CRASH_AFTER_WRITE", "2", log);
    is_int(rc, 99, "CRASH_AFTER_WRITE=2: child exits with 99");
    block_marks(img, marks);
    ok(marks[0] == 'A' && marks[1] == 'B' && marks[2] == '0',
       "CRASH_AFTER_WRITE=2: writes 1-2 landed, 3 never happened (%.3s)", marks);
    text = slurp(log);
    ok(strstr(text, "crash after write 2") != NULL, "IO log: crash recorded");
    free(text);
    unlink(log);
    unlink(img);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        ok(0, "temp dir");
        return tap_done();
    }
    test_from_names();
    test_open_io();
    test_read_many();
    test_hooks();
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    int r = system(cmd);
    (void)r;
    return tap_done();
}
