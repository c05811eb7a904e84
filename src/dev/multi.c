/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/multi.c - lvx_dev_flush_many(): fdatasync of many devices on a few threads.
 * Threads call the I/O seam directly (it is thread-safe) and keep their result per
 * device; only the calling thread touches ctx.
 */
#include "dev/multi.h"
#include "dev/io.h"
#include "util/parallel.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct flush_job {
    const struct lvx_dev_ops *io;
    struct lvx_dev **devs;
    int *results;
};

static void flush_one(void *arg, unsigned i)
{
    struct flush_job *j = arg;
    j->results[i] = j->devs[i]->fd < 0 ? -EBADF : j->io->flush(j->io->arg, j->devs[i]->fd);
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(struct lvx_dev *const *)a;
    uintptr_t y = (uintptr_t)*(struct lvx_dev *const *)b;
    return x < y ? -1 : x > y;
}

int lvx_dev_flush_many(struct lvx_ctx *ctx, struct lvx_dev **devs, unsigned count)
{
    if (count == 0)
        return 0;
    if (count == 1)
        return lvx_dev_flush(ctx, devs[0]);
    struct lvx_dev **uniq = lvx_xcalloc(count, sizeof(*uniq));
    memcpy(uniq, devs, count * sizeof(*uniq));
    qsort(uniq, count, sizeof(*uniq), cmp_ptr);
    unsigned n = 0;
    for (unsigned i = 0; i < count; i++)
        if (n == 0 || uniq[n - 1] != uniq[i])
            uniq[n++] = uniq[i];
    int *results = lvx_xcalloc(n, sizeof(*results));
    struct flush_job job = { lvx_io(ctx), uniq, results };
    lvx_parallel_for(n, 0, flush_one, &job);
    int r = 0;
    for (unsigned i = 0; i < count && r == 0; i++) {     /* first failure in list order */
        struct lvx_dev **hit = bsearch(&devs[i], uniq, n, sizeof(*uniq), cmp_ptr);
        int res = hit ? results[hit - uniq] : 0;
        if (res < 0)
            r = lvx_error(ctx, res, "Flushing %s failed: %s", devs[i]->path, strerror(-res));
    }
    free(results);
    free(uniq);
    return r;
}
