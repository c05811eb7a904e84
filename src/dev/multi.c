/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/multi.c - lvx_dev_flush_many(): fdatasync of many devices on a few threads;
 * lvx_dev_write_many(): many writes as one batch through the seam's queue, FUA writes
 * when they must be durable (lvx_dev_write_durable_many()); from 256 writes on, two
 * queues on two threads, all the writes still in flight together.  Threads call the
 * I/O seam directly (it is thread-safe) and keep their result per device; only the
 * calling thread touches ctx.
 */
#include "dev/multi.h"
#include "dev/io.h"
#include "util/parallel.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
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

/* ---- batched writes ------------------------------------------------------------ */

#define WRITE_ALIGN 4096u              /* O_DIRECT buffer alignment (any sector size) */
#define WRITE_QUEUE_MAX 1024u          /* ring depth: the labels of 1000 PVs in one go */

static size_t aligned_len(size_t len)
{
    return (len + WRITE_ALIGN - 1) / WRITE_ALIGN * WRITE_ALIGN;
}

/* From this many writes on, a batch goes out through two queues on two threads: the
 * submitting thread does the block layer's work of each write (a thousand loop-device
 * writes: tens of milliseconds of one CPU), and the devices start on the first writes
 * of both halves at once.  All of them are still in flight together. */
#define WRITE_SPLIT_MIN 256u
#define WRITE_PARTS 2u

struct queue_part {
    const struct lvx_dev_ops *io;
    struct lvx_io_queue *q;
    struct lvx_io_op *ops;
    unsigned count;
    int r;
};

static void submit_part(void *arg, unsigned i)
{
    struct queue_part *p = &((struct queue_part *)arg)[i];
    p->r = p->io->submit(p->io->arg, p->q, p->ops, p->count);
}

/* The writes as ops of one submitted batch (FUA ops when durable); -ENOSYS/-errno: no
 * queue (nothing written), else 0 with each entry's result set. */
static int write_by_queue(const struct lvx_dev_ops *io, struct lvx_dev_write *w, unsigned count,
                          uint8_t *copies, bool durable)
{
    if (!io->queue_open || !io->submit || !io->queue_close)
        return -ENOSYS;
    struct queue_part parts[WRITE_PARTS] = { 0 };
    unsigned nparts = count >= WRITE_SPLIT_MIN && !io->ordered ? WRITE_PARTS : 1;
    for (unsigned k = 0; k < nparts; k++) {
        unsigned lo = count * k / nparts, hi = count * (k + 1) / nparts;
        parts[k] = (struct queue_part){ .io = io, .count = hi - lo };
        int r = io->queue_open(io->arg, parts[k].count < WRITE_QUEUE_MAX ? parts[k].count
                                                                         : WRITE_QUEUE_MAX,
                               &parts[k].q);
        if (r < 0 && k == 0)
            return r;
        if (r < 0) {                  /* one queue after all */
            nparts = 1;
            break;
        }
    }
    struct lvx_io_op *ops = lvx_xcalloc(count, sizeof(*ops));
    size_t at = 0;
    for (unsigned i = 0; i < count; i++) {
        ops[i] = (struct lvx_io_op){ .fd = w[i].dev->fd, .kind = durable ? LVX_IO_WRITE_FUA : LVX_IO_WRITE,
                                     .len = (uint32_t)w[i].len, .off = w[i].offset,
                                     .buf = copies + at, .dev = i };
        at += aligned_len(w[i].len);
    }
    if (nparts == 1) {
        parts[0].ops = ops;
        parts[0].count = count;
        submit_part(parts, 0);
    } else {
        for (unsigned k = 0; k < nparts; k++)
            parts[k].ops = ops + count * k / nparts;
        lvx_parallel_for(nparts, nparts, submit_part, parts);
    }
    for (unsigned k = 0; k < WRITE_PARTS; k++)
        if (parts[k].q)
            io->queue_close(io->arg, parts[k].q);
    for (unsigned k = 0; k < nparts; k++)
        for (unsigned i = 0; i < parts[k].count; i++) {
            const struct lvx_io_op *op = &parts[k].ops[i];
            int r = parts[k].r;
            w[op->dev].result = r < 0 ? r : op->result < 0 ? op->result
                                  : (size_t)op->result < w[op->dev].len ? -EAGAIN : 0;
        }
    free(ops);
    return 0;
}

struct write_job {
    const struct lvx_dev_ops *io;
    struct lvx_dev_write *w;
    uint8_t *copies;
    size_t *at;
    bool durable;
};

/* After a plain write: on the device (seen by O_DIRECT readers), or also flushed. */
static int settle(const struct lvx_dev_ops *io, int fd, bool durable)
{
    return durable || !io->writeback ? io->flush(io->arg, fd) : io->writeback(io->arg, fd);
}

static void write_one(void *arg, unsigned i)
{
    struct write_job *j = arg;
    struct lvx_dev_write *w = &j->w[i];
    ssize_t n = j->io->pwrite(j->io->arg, w->dev->fd, j->copies + j->at[i], w->len, w->offset);
    w->result = n < 0 ? (int)n : (size_t)n < w->len ? -EAGAIN : settle(j->io, w->dev->fd, j->durable);
}

int lvx_dev_write_durable_many(struct lvx_ctx *ctx, struct lvx_dev_write *w, unsigned count)
{
    return lvx_dev_write_many(ctx, w, count, true);
}

int lvx_dev_write_many(struct lvx_ctx *ctx, struct lvx_dev_write *w, unsigned count, bool durable)
{
    if (count == 0)
        return 0;
    for (unsigned i = 0; i < count; i++)       /* nothing written unless all can be */
        if (w[i].dev->fd < 0 || !w[i].dev->writable)
            return lvx_error(ctx, EBADF, "Device %s is not open for writing", w[i].dev->path);
    const struct lvx_dev_ops *io = lvx_io(ctx);
    size_t total = 0;
    size_t *at = lvx_xcalloc(count, sizeof(*at));
    for (unsigned i = 0; i < count; i++) {
        at[i] = total;
        total += aligned_len(w[i].len);
    }
    uint8_t *copies;
    if (posix_memalign((void **)&copies, WRITE_ALIGN, total) != 0)
        abort();                                  /* out of memory, as lvx_xmalloc */
    memset(copies, 0, total);
    bool *direct = lvx_xcalloc(count, sizeof(*direct));    /* as submitted: a retry clears it */
    for (unsigned i = 0; i < count; i++) {
        memcpy(copies + at[i], w[i].buf, w[i].len);
        w[i].result = 0;
        direct[i] = w[i].dev->direct;
    }
    if (write_by_queue(io, w, count, copies, durable) < 0) {
        struct write_job job = { io, w, copies, at, durable };
        lvx_parallel_for(count, 0, write_one, &job);
    } else if (!durable) {
        /* a plain write on a buffered fd is in the page cache only: onto the device */
        for (unsigned i = 0; i < count; i++)
            if (w[i].result == 0 && !direct[i])
                w[i].result = settle(io, w[i].dev->fd, false);
    }
    int r = 0;
    for (unsigned i = 0; i < count; i++) {
        struct lvx_dev_write *e = &w[i];
        if (e->result == -EAGAIN || (e->result == -EINVAL && direct[i])) {
            /* refused by O_DIRECT (alignment) or short: again buffered, then flushed (or
             * written back); after a first failure, quietly (its message stays) */
            struct lvx_ctx quiet = *ctx;
            struct lvx_ctx *c = r ? &quiet : ctx;
            e->result = lvx_dev_write(c, e->dev, e->buf, e->len, e->offset);
            if (e->result == 0)
                e->result = durable ? lvx_dev_flush(c, e->dev) : lvx_dev_writeback(c, e->dev);
        } else if (e->result < 0 && r == 0) {
            lvx_error(ctx, e->result, "Write of %zu bytes at offset %llu to %s failed: %s",
                      e->len, (unsigned long long)e->offset, e->dev->path,
                      strerror(-e->result));
        }
        if (e->result < 0 && r == 0)
            r = e->result;
    }
    free(direct);
    free(copies);
    free(at);
    return r;
}
