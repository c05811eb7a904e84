/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/datapath.c - LV I/O of one FUSE thread: a request goes to the LV's target
 * (target.c) under the LV's read lock, and comes back logged when it failed.  The
 * targets' batch helpers live here: a range is mapped through a prepared mapping
 * (lvx_map_prepared_lookup), cut at stripe/segment boundaries
 * (the run length) and at the PV's queue limits (so that the block layer never splits a
 * piece, which throttling would charge twice), and all its pieces go to the PVs
 * at once through the I/O seam's submit (dev/io.h) on the thread's queue (the
 * default ops: one io_uring per thread), O_DIRECT from the request's aligned
 * buffer.  Flushes fdatasync every PV written since the last flush, in parallel; a
 * PV is marked written when its write is queued and again when the run ends
 * (lvxd_io_mark_written), so a flush that raced with the write leaves it to the next;
 * zeroing coalesces the mapped ranges per PV and fallocates them all at once.
 * The targets' zeroing writes take their source from lvxd_zeroes() (mapped on first use).
 * Errors: any piece's error fails the whole request (the FUSE reply carries it to
 * the writer or reader); a short piece is continued, one without progress is EIO;
 * a failed flush leaves its PVs dirty (the next flush syncs them again) and is
 * reported to the fsync that asked.  Each failed request is logged (LV, offset,
 * PV and byte on it; the first LOGGED_ERRORS of the process).
 *
 * Entry points: lvxd_use_ops(), lvxd_ops(), lvxd_io_init(), lvxd_io_exit(),
 * lvxd_io_rw(), lvxd_io_flush(), lvxd_io_zero(); for targets lvxd_io_map_add(),
 * lvxd_io_run(), lvxd_io_mark_written(), lvxd_io_map_zero(), lvxd_io_flush_pvs().
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "map/map.h"

static pthread_mutex_t flush_mutex = PTHREAD_MUTEX_INITIALIZER;
static const struct lvx_dev_ops *daemon_ops;

void lvxd_use_ops(const struct lvx_dev_ops *ops)
{
    daemon_ops = ops;
}

const struct lvx_dev_ops *lvxd_ops(void)
{
    return daemon_ops ? daemon_ops : lvx_dev_ops_default();
}

static uint8_t *zeroes;
static pthread_once_t zeroes_once = PTHREAD_ONCE_INIT;

static void zeroes_map(void)
{
    void *p = mmap(NULL, LVXD_MAX_IO, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    zeroes = p == MAP_FAILED ? NULL : p;
}

uint8_t *lvxd_zeroes(void)
{
    pthread_once(&zeroes_once, zeroes_map);
    return zeroes;
}

int lvxd_io_init(struct lvxd_io *io)
{
    memset(io, 0, sizeof(*io));
    lvx_ctx_init(&io->ctx);
    io->ops = lvxd_ops();
    io->ctx.io = io->ops;
    io->pieces = calloc(LVXD_MAX_PIECES, sizeof(*io->pieces));
    if (!io->pieces)
        return -ENOMEM;
    int rc = io->ops->queue_open(io->ops->arg, LVXD_RING_ENTRIES, &io->queue);
    if (rc < 0) {
        free(io->pieces);
        io->pieces = NULL;
    }
    return rc;
}

void lvxd_io_exit(struct lvxd_io *io)
{
    if (io->queue)
        io->ops->queue_close(io->ops->arg, io->queue);
    io->queue = NULL;
    free(io->pieces);
    io->pieces = NULL;
}

/* Run the n pieces (kind set in each) through the I/O seam, all in flight together.
 * A transfer that comes back short is continued (the rest of every short piece
 * again, in place); one that makes no progress is an I/O error.  0 or the first
 * error: never a partial success. */
static int run_batch(struct lvxd_io *io, unsigned n);

/* A FUSE request starts: no error yet, no PV written by it yet. */
static void new_request(struct lvxd_io *io)
{
    io->err_dev = -1;
    io->written_lv = NULL;
    io->written = 0;
}

void lvxd_io_mark_written(struct lvxd_io *io, struct lvxd_lv *v, unsigned idx)
{
    uint_fast64_t bit = (uint_fast64_t)1 << (idx % 64);
    atomic_fetch_or(&v->dirty, bit);
    if (io->written_lv && io->written_lv != &v->dirty && io->written)
        atomic_fetch_or(io->written_lv, io->written);   /* another LV's, left over */
    if (io->written_lv != &v->dirty)
        io->written = 0;
    io->written_lv = &v->dirty;
    io->written |= bit;
}

int lvxd_io_run(struct lvxd_io *io, unsigned n)
{
    int rc = run_batch(io, n);
    if (io->written_lv && io->written)  /* kept till the next request (a retry runs again) */
        atomic_fetch_or(io->written_lv, io->written);
    return rc;
}

static int run_batch(struct lvxd_io *io, unsigned n)
{
    struct lvx_io_op *p = io->pieces;
    io->err_dev = -1;
    while (n) {
        int rc = io->ops->submit(io->ops->arg, io->queue, p, n);
        if (rc < 0)
            return rc;
        unsigned again = 0;
        for (unsigned i = 0; i < n; i++) {
            struct lvx_io_op *op = &p[i];
            if (op->result < 0 || (op->result == 0 && op->len &&
                                   op->kind != LVX_IO_DATASYNC && op->kind != LVX_IO_PUNCH &&
                                   op->kind != LVX_IO_ZERO)) {
                io->err_dev = (int)op->dev;
                io->err_off = op->off;
                return op->result < 0 ? op->result : -EIO;   /* 0: no progress */
            }
            if (op->kind == LVX_IO_DATASYNC || op->kind == LVX_IO_PUNCH ||
                op->kind == LVX_IO_ZERO ||
                (uint32_t)op->result >= op->len)
                continue;
            struct lvx_io_op *rest = &p[again++];
            uint32_t done = (uint32_t)op->result;
            *rest = *op;
            rest->off += done;
            rest->buf = (uint8_t *)rest->buf + done;
            rest->len -= done;
        }
        n = again;
    }
    return 0;
}

/* One log line per failed request (the first LOGGED_ERRORS of the process, then one
 * saying that the rest are not logged): which LV, what, where, which PV. */
#define LOGGED_ERRORS 100
static atomic_uint errors_logged;

static int logged(struct lvxd_io *io, const struct lvxd_lv *v, const char *what, uint64_t off,
                  uint64_t len, int rc)
{
    if (rc >= 0)
        return rc;
    unsigned n = atomic_fetch_add(&errors_logged, 1);
    if (n > LOGGED_ERRORS)
        return rc;
    if (n == LOGGED_ERRORS) {
        lvxd_log("more I/O errors: not logged");
        return rc;
    }
    char where[64] = "", onpv[300] = "";
    if (len)
        snprintf(where, sizeof(where), " of %" PRIu64 " bytes at %" PRIu64, len, off);
    if (io->err_dev >= 0 && (unsigned)io->err_dev < v->pv_count)
        snprintf(onpv, sizeof(onpv), " (PV %s, byte %" PRIu64 ")", v->pvs[io->err_dev].path,
                 io->err_off);
    lvxd_log("%s/%s: %s%s failed: %s%s", v->vg, v->lv, what, where, strerror(-rc), onpv);
    return rc;
}

static void set_kind(struct lvxd_io *io, unsigned n, enum lvx_io_kind kind)
{
    for (unsigned i = 0; i < n; i++)
        io->pieces[i].kind = (uint8_t)kind;
}

static void add_piece(struct lvxd_io *io, unsigned *n, const struct lvxd_pv *p, unsigned pv,
                      uint8_t kind, uint64_t pv_sector, uint64_t sectors, uint8_t *buf)
{
    while (sectors) {
        uint64_t room = p->max_piece - pv_sector % p->max_piece;
        uint64_t m = sectors < room ? sectors : room;
        struct lvx_io_op *pc = &io->pieces[(*n)++];
        pc->fd = p->fd;
        pc->kind = kind;
        pc->dev = pv;
        pc->off = pv_sector * 512;
        pc->len = (uint32_t)(m * 512);
        pc->buf = buf;
        buf += pc->len;
        pv_sector += m;
        sectors -= m;
    }
}

int lvxd_io_map_add(struct lvxd_io *io, struct lvxd_lv *v, const struct lvx_map_prepared *map,
                    bool write, uint64_t off, uint32_t len, uint8_t *buf, unsigned *np)
{
    int rc = 0;
    unsigned n = *np;
    uint64_t sector = off / 512, end = (off + len) / 512;
    uint32_t boff = 0;
    while (sector < end && rc == 0) {
        struct lvx_map_loc loc;
        if (lvx_map_prepared_lookup(map, sector, &loc) < 0 || loc.len == 0) {
            rc = -EIO;
            break;
        }
        uint64_t cnt = loc.len < end - sector ? loc.len : end - sector;
        if (loc.kind == LVX_MAP_ERROR) {
            rc = -EIO;
        } else if (loc.kind == LVX_MAP_ZERO) {
            if (!write)
                memset(buf + boff, 0, cnt * 512);
        } else {
            unsigned idx = loc.pv->index;
            const struct lvxd_pv *p = idx < v->pv_count ? &v->pvs[idx] : NULL;
            if (!p || p->fd < 0) {
                rc = -EIO;
                break;
            }
            /* worst case pieces of this run; flush the batch first when it may not fit */
            uint64_t worst = cnt / p->max_piece + 2;
            if (n + worst > LVXD_MAX_PIECES) {
                if ((rc = lvxd_io_run(io, n)) < 0)
                    break;
                n = 0;
            }
            add_piece(io, &n, p, idx,
                      !write ? LVX_IO_READ : io->fua ? LVX_IO_WRITE_FUA : LVX_IO_WRITE,
                      loc.pv_sector, cnt,
                      buf + boff);
            if (write)
                lvxd_io_mark_written(io, v, idx);
        }
        sector += cnt;
        boff += (uint32_t)(cnt * 512);
    }
    *np = rc < 0 ? 0 : n;
    return rc;
}

int lvxd_io_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off, uint32_t len,
               uint8_t *buf)
{
    int rc;
    new_request(io);
    pthread_rwlock_rdlock(&v->lock);
    if (off + len > v->size)
        rc = write ? -ENOSPC : -EINVAL;
    else
        rc = v->target->rw(io, v, write, off, len, buf);
    rc = logged(io, v, write ? "write" : "read", off, len, rc);
    pthread_rwlock_unlock(&v->lock);
    return rc;
}

int lvxd_io_flush_pvs(struct lvxd_io *io, struct lvxd_lv *v)
{
    int rc = 0;
    pthread_mutex_lock(&flush_mutex);
    uint_fast64_t bits = atomic_exchange(&v->dirty, 0);
    unsigned n = 0;
    for (unsigned i = 0; i < v->pv_count && rc == 0; i++) {
        if (v->pvs[i].fd < 0 || !(bits & ((uint_fast64_t)1 << (i % 64))))
            continue;
        /* a whole piece: a slot left by an earlier write kept its offset, which a
         * failed flush's log line then gave as "byte N" (t0930 check 51, at times) */
        io->pieces[n] = (struct lvx_io_op){ .fd = v->pvs[i].fd, .kind = LVX_IO_DATASYNC,
                                            .dev = i };
        if (++n == LVXD_MAX_PIECES) {       /* more PVs than a batch holds */
            rc = lvxd_io_run(io, n);
            n = 0;
        }
    }
    if (n && rc == 0)
        rc = lvxd_io_run(io, n);
    if (rc < 0)
        atomic_fetch_or(&v->dirty, bits);   /* still to be flushed */
    pthread_mutex_unlock(&flush_mutex);
    return rc;
}

int lvxd_io_flush(struct lvxd_io *io, struct lvxd_lv *v)
{
    new_request(io);
    pthread_rwlock_rdlock(&v->lock);
    int rc = v->target->flush ? v->target->flush(io, v) : lvxd_io_flush_pvs(io, v);
    rc = logged(io, v, "flush", 0, 0, rc);
    pthread_rwlock_unlock(&v->lock);
    return rc;
}

/* Append a PV range to the zeroing batch, merged with a range it extends. */
static void add_range(struct lvxd_io *io, unsigned *n, const struct lvxd_pv *p, unsigned pv,
                      uint64_t off, uint64_t len)
{
    for (unsigned i = 0; i < *n; i++) {
        struct lvx_io_op *r = &io->pieces[i];
        if (r->dev == pv && r->off + r->len == off && r->len + len <= (1u << 30)) {
            r->len += (uint32_t)len;
            return;
        }
    }
    struct lvx_io_op *r = &io->pieces[(*n)++];
    r->fd = p->fd;
    r->dev = pv;
    r->off = off;
    r->len = (uint32_t)len;
    r->buf = NULL;
}

/* Zero the batch: punch (files, and block devices that unmap with zeroes), else
 * zero-range (block devices: write-zeroes). */
static int zero_batch(struct lvxd_io *io, unsigned n)
{
    set_kind(io, n, LVX_IO_PUNCH);
    int rc = lvxd_io_run(io, n);
    if (rc == -EOPNOTSUPP || rc == -EINVAL) {
        set_kind(io, n, LVX_IO_ZERO);
        rc = lvxd_io_run(io, n);
    }
    return rc;
}

int lvxd_io_map_zero(struct lvxd_io *io, struct lvxd_lv *v, const struct lvx_map_prepared *map,
                     uint64_t off, uint64_t len)
{
    int rc = 0;
    unsigned n = 0;
    uint64_t sector = off / 512, end = (off + len) / 512;
    while (sector < end && rc == 0) {
        struct lvx_map_loc loc;
        if (lvx_map_prepared_lookup(map, sector, &loc) < 0 || loc.len == 0) {
            rc = -EIO;
            break;
        }
        uint64_t cnt = loc.len < end - sector ? loc.len : end - sector;
        if (loc.kind == LVX_MAP_PV) {
            unsigned idx = loc.pv->index;
            const struct lvxd_pv *p = idx < v->pv_count ? &v->pvs[idx] : NULL;
            if (!p || p->fd < 0) {
                rc = -EIO;
                break;
            }
            if (n == LVXD_MAX_PIECES) {
                if ((rc = zero_batch(io, n)) < 0)
                    break;
                n = 0;
            }
            add_range(io, &n, p, idx, loc.pv_sector * 512, cnt * 512);
            lvxd_io_mark_written(io, v, idx);
        } else if (loc.kind == LVX_MAP_ERROR) {
            rc = -EIO;
        }
        sector += cnt;
    }
    if (rc == 0 && n)
        rc = zero_batch(io, n);
    return rc;
}

static int zero_or_discard(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len,
                           bool discard)
{
    int rc = 0;
    new_request(io);
    pthread_rwlock_rdlock(&v->lock);
    if (off < v->size) {
        if (len > v->size - off)
            len = v->size - off;
        rc = discard && v->target->discard ? v->target->discard(io, v, off, len)
                                           : v->target->zero(io, v, off, len);
    }
    if (rc != -EOPNOTSUPP)          /* a refused discard is the caller's answer */
        rc = logged(io, v, discard ? "discard" : "zeroing", off, len, rc);
    pthread_rwlock_unlock(&v->lock);
    return rc;
}

int lvxd_io_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    return zero_or_discard(io, v, off, len, false);
}

int lvxd_io_discard(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    return zero_or_discard(io, v, off, len, true);
}
