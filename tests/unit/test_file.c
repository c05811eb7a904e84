/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_file.c - bounded whole-file reads (util/file.c): a regular file is
 * read whole, up to and exactly at its cap; one byte over the cap, a device node, a
 * directory, a FIFO (without blocking) and a missing path are refused with the errno
 * and the one-line message file.h promises; a /proc file (size 0 in stat) is read in
 * full and still bounded by the cap; nothing is appended on failure.
 */
#include "util/buf.h"
#include "util/ctx.h"
#include "util/file.h"
#include "util/pool.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/lvx-test-file.XXXXXX";

static const char *path_of(const char *leaf)
{
    static char p[256];
    snprintf(p, sizeof(p), "%s/%s", dir, leaf);
    return p;
}

static void write_file(const char *leaf, size_t n)
{
    FILE *f = fopen(path_of(leaf), "w");
    for (size_t i = 0; i < n; i++)
        fputc('a' + (int)(i % 26), f);
    fclose(f);
}

/* lvx_buf_read_file into a buffer holding "x": the result, the errno, the message. */
static int read_into(const char *path, size_t max, struct lvx_buf *b, struct lvx_ctx *ctx)
{
    lvx_buf_reset(b);
    lvx_buf_puts(b, "x");
    lvx_error_clear(ctx);
    return lvx_buf_read_file(ctx, b, path, max);
}

int main(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_buf b = LVX_BUF_INIT;
    char want[512];
    if (!mkdtemp(dir)) {
        tap_skip("no temporary directory");
        return tap_done();
    }

    write_file("small", 100);
    is_int(read_into(path_of("small"), 100, &b, &ctx), 0, "a file at its cap is read");
    is_int((long long)b.len, 101, "appended whole after what the buffer held");
    ok(b.data[0] == 'x' && b.data[1] == 'a' && b.data[100] == 'v' && b.data[101] == '\0',
       "contents in order, NUL-terminated");

    is_int(read_into(path_of("small"), 99, &b, &ctx), -EFBIG, "one byte over the cap: -EFBIG");
    snprintf(want, sizeof(want), "%s is larger than 99 bytes", path_of("small"));
    is_str(ctx.errmsg, want, "the cap named");
    is_int((long long)b.len, 1, "nothing appended on failure");

    is_int(read_into("/dev/zero", 1 << 20, &b, &ctx), -EINVAL, "/dev/zero: -EINVAL");
    is_str(ctx.errmsg, "/dev/zero is not a regular file", "LVM2's words");
    is_int(read_into(dir, 1 << 20, &b, &ctx), -EINVAL, "a directory: -EINVAL");
    ok(mkfifo(path_of("fifo"), 0600) == 0, "make a FIFO");
    is_int(read_into(path_of("fifo"), 1 << 20, &b, &ctx), -EINVAL,
           "a FIFO: -EINVAL (and no wait for a writer)");
    ok(symlink("/dev/zero", path_of("link")) == 0, "make a link to /dev/zero");
    is_int(read_into(path_of("link"), 1 << 20, &b, &ctx), -EINVAL, "a link is followed");

    is_int(read_into(path_of("none"), 1 << 20, &b, &ctx), -ENOENT, "missing: -ENOENT");
    snprintf(want, sizeof(want), "%s: stat failed: No such file or directory", path_of("none"));
    is_str(ctx.errmsg, want, "stat failure as LVM2 words it");

    /* /proc files report size 0: read until EOF, still bounded */
    is_int(read_into("/proc/self/status", 1 << 20, &b, &ctx), 0, "/proc/self/status is read");
    ok(b.len > 100 && strstr(b.data, "\nPid:") != NULL, "whole (its Pid line is there)");
    is_int(read_into("/proc/self/status", 16, &b, &ctx), -EFBIG,
           "a size-0 file over the cap: -EFBIG once the cap is passed");

    /* pool variant and a NULL context */
    struct lvx_pool *pool = lvx_pool_create();
    size_t len = 0;
    char *text = lvx_pool_read_file(NULL, pool, path_of("small"), 100, &len);
    ok(text && len == 100 && text[100] == '\0', "lvx_pool_read_file: whole, NUL-terminated");
    errno = 0;
    ok(!lvx_pool_read_file(NULL, pool, "/dev/zero", 100, &len) && errno == EINVAL,
       "lvx_pool_read_file: NULL with errno, no context needed");
    lvx_pool_destroy(pool);

    lvx_buf_free(&b);
    unlink(path_of("small"));
    unlink(path_of("fifo"));
    unlink(path_of("link"));
    rmdir(dir);
    return tap_done();
}
