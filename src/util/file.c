/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/file.c - bounded whole-file reads (see file.h for the caps and their reasons).
 *
 * The path is checked with stat() before it is opened (opening a FIFO would block,
 * opening some device nodes has effects), opened without blocking, checked again on
 * the descriptor (the path may have changed in between), and read up to one byte past
 * the cap: /proc and /sys files report size 0, and a file may grow while it is read.
 */
#include "util/file.h"
#include "util/buf.h"
#include "util/ctx.h"
#include "util/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(struct lvx_ctx *ctx, int err, const char *path, const char *what)
{
    if (ctx)
        return lvx_error(ctx, err, "%s: %s failed: %s", path, what, strerror(err));
    return -err;
}

static int check_type(struct lvx_ctx *ctx, const struct stat *st, const char *path, size_t max)
{
    if (!S_ISREG(st->st_mode))
        return ctx ? lvx_error(ctx, EINVAL, "%s is not a regular file", path) : -EINVAL;
    if ((unsigned long long)st->st_size > max)
        return ctx ? lvx_error(ctx, EFBIG, "%s is larger than %zu bytes", path, max) : -EFBIG;
    return 0;
}

int lvx_buf_read_file(struct lvx_ctx *ctx, struct lvx_buf *b, const char *path, size_t max)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return fail(ctx, errno, path, "stat");
    int r = check_type(ctx, &st, path, max);
    if (r < 0)
        return r;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return fail(ctx, errno, path, "open");
    if (fstat(fd, &st) < 0)
        r = fail(ctx, errno, path, "stat");
    else
        r = check_type(ctx, &st, path, max);
    /* the announced size and one byte more (to see growth), else (/proc, /sys) chunks of
     * 256 KiB and more: every read(2) of /proc/partitions walks all block devices again */
    size_t start = b->len, want = st.st_size > 0 ? (size_t)st.st_size + 1 : 256 * 1024;
    while (r == 0) {
        size_t got = b->len - start;
        size_t chunk = got < want ? want - got : got;
        if (chunk > max + 1 - got)
            chunk = max + 1 - got;              /* never more than the cap and one byte */
        lvx_buf_reserve(b, chunk);
        ssize_t n = read(fd, b->data + b->len, chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            r = fail(ctx, errno, path, "read");
            break;
        }
        if (n == 0)
            break;
        b->len += (size_t)n;
        if (b->len - start > max)
            r = ctx ? lvx_error(ctx, EFBIG, "%s is larger than %zu bytes", path, max) : -EFBIG;
    }
    close(fd);
    if (r < 0)
        b->len = start;
    if (b->data)
        b->data[b->len] = '\0';
    return r;
}

char *lvx_pool_read_file(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *path,
                         size_t max, size_t *len)
{
    struct lvx_buf b = LVX_BUF_INIT;
    int r = lvx_buf_read_file(ctx, &b, path, max);
    char *text = NULL;
    if (r == 0) {
        text = lvx_pool_alloc(pool, b.len + 1);
        memcpy(text, lvx_buf_str(&b), b.len + 1);
        *len = b.len;
    }
    lvx_buf_free(&b);
    if (r < 0)
        errno = -r;
    return text;
}
