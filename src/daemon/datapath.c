/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/datapath.c - LV I/O of one FUSE thread: a request is mapped through the
 * LV's prepared mapping (lvx_map_prepared_lookup), cut at stripe/segment boundaries
 * (the run length) and at the PV's queue limits (so that the block layer never splits a
 * piece, which throttling would charge twice), and all its pieces go to the PVs
 * at once through the thread's io_uring, O_DIRECT from the request's aligned
 * buffer.  Flushes fdatasync every PV written since the last flush, in parallel;
 * zeroing coalesces the mapped ranges per PV and fallocates them all at once.
 *
 * Entry points: lvxd_io_init(), lvxd_io_exit(), lvxd_io_rw(), lvxd_io_flush(),
 * lvxd_io_zero().
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map/map.h"

static pthread_mutex_t flush_mutex = PTHREAD_MUTEX_INITIALIZER;

int lvxd_io_init(struct lvxd_io *io)
{
    memset(io, 0, sizeof(*io));
    lvx_ctx_init(&io->ctx);
    int rc = io_uring_queue_init(LVXD_RING_ENTRIES, &io->ring, 0);
    if (rc < 0)
        return rc;
    io->pieces = calloc(LVXD_MAX_PIECES, sizeof(*io->pieces));
    return 0;
}

void lvxd_io_exit(struct lvxd_io *io)
{
    io_uring_queue_exit(&io->ring);
    free(io->pieces);
    io->pieces = NULL;
}

enum op { OP_READ, OP_WRITE, OP_DATASYNC, OP_PUNCH, OP_ZERO };

static void prep(struct io_uring_sqe *sqe, enum op op, const struct lvxd_piece *p, uint8_t *buf)
{
    switch (op) {
    case OP_READ:
        io_uring_prep_read(sqe, p->fd, buf + p->buf_off, p->len, p->off);
        break;
    case OP_WRITE:
        io_uring_prep_write(sqe, p->fd, buf + p->buf_off, p->len, p->off);
        break;
    case OP_DATASYNC:
        io_uring_prep_fsync(sqe, p->fd, IORING_FSYNC_DATASYNC);
        break;
    case OP_PUNCH:
        io_uring_prep_fallocate(sqe, p->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, p->off,
                                p->len);
        break;
    case OP_ZERO:
        io_uring_prep_fallocate(sqe, p->fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, p->off,
                                p->len);
        break;
    }
}

/* Run n pieces, all in flight together (as many as the ring holds).  Short
 * transfers are continued.  0 or the first error. */
static int run(struct lvxd_io *io, enum op op, unsigned n, uint8_t *buf)
{
    unsigned next = 0, inflight = 0;
    int rc = 0;
    while (next < n || inflight) {
        struct io_uring_sqe *sqe;
        while (next < n && (sqe = io_uring_get_sqe(&io->ring))) {
            prep(sqe, op, &io->pieces[next], buf);
            io_uring_sqe_set_data64(sqe, next);
            next++;
            inflight++;
        }
        int r = io_uring_submit_and_wait(&io->ring, 1);
        if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
            rc = r;
            break;   /* the ring is unusable: nothing we can wait for */
        }
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&io->ring, head, cqe) {
            struct lvxd_piece *p = &io->pieces[io_uring_cqe_get_data64(cqe)];
            int res = cqe->res;
            seen++;
            inflight--;
            if (res < 0) {
                if (!rc)
                    rc = res;
            } else if ((op == OP_READ || op == OP_WRITE) && (uint32_t)res < p->len) {
                if (res == 0) {
                    if (!rc)
                        rc = -EIO;
                    continue;
                }
                p->off += (uint32_t)res;   /* continue the rest */
                p->buf_off += (uint32_t)res;
                p->len -= (uint32_t)res;
                struct io_uring_sqe *again = io_uring_get_sqe(&io->ring);
                if (again) {
                    prep(again, op, p, buf);
                    io_uring_sqe_set_data64(again, (uint64_t)(p - io->pieces));
                    inflight++;
                } else if (!rc) {
                    rc = -EIO;
                }
            }
        }
        io_uring_cq_advance(&io->ring, seen);
    }
    return rc;
}

static void add_piece(struct lvxd_io *io, unsigned *n, const struct lvxd_pv *p, unsigned pv,
                      uint64_t pv_sector, uint64_t sectors, uint32_t buf_off)
{
    while (sectors) {
        uint64_t room = p->max_piece - pv_sector % p->max_piece;
        uint64_t m = sectors < room ? sectors : room;
        struct lvxd_piece *pc = &io->pieces[(*n)++];
        pc->fd = p->fd;
        pc->pv = pv;
        pc->off = pv_sector * 512;
        pc->len = (uint32_t)(m * 512);
        pc->buf_off = buf_off;
        buf_off += pc->len;
        pv_sector += m;
        sectors -= m;
    }
}

int lvxd_io_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off, uint32_t len,
               uint8_t *buf)
{
    int rc = 0;
    unsigned n = 0;
    uint64_t sector = off / 512, end = (off + len) / 512;
    uint32_t boff = 0;
    pthread_rwlock_rdlock(&v->lock);
    if (off + len > v->size) {
        rc = write ? -ENOSPC : -EINVAL;
        goto out;
    }
    while (sector < end && rc == 0) {
        struct lvx_map_loc loc;
        if (lvx_map_prepared_lookup(v->map, sector, &loc) < 0 || loc.len == 0) {
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
                if ((rc = run(io, write ? OP_WRITE : OP_READ, n, buf)) < 0)
                    break;
                n = 0;
            }
            add_piece(io, &n, p, idx, loc.pv_sector, cnt, boff);
            if (write)
                atomic_fetch_or(&v->dirty, (uint_fast64_t)1 << (idx % 64));
        }
        sector += cnt;
        boff += (uint32_t)(cnt * 512);
    }
    if (rc == 0 && n)
        rc = run(io, write ? OP_WRITE : OP_READ, n, buf);
out:
    pthread_rwlock_unlock(&v->lock);
    return rc;
}

int lvxd_io_flush(struct lvxd_io *io, struct lvxd_lv *v)
{
    int rc = 0;
    pthread_mutex_lock(&flush_mutex);
    pthread_rwlock_rdlock(&v->lock);
    uint_fast64_t bits = atomic_exchange(&v->dirty, 0);
    unsigned n = 0;
    for (unsigned i = 0; i < v->pv_count && n < LVXD_MAX_PIECES; i++) {
        if (v->pvs[i].fd < 0 || !(bits & ((uint_fast64_t)1 << (i % 64))))
            continue;
        io->pieces[n].fd = v->pvs[i].fd;
        io->pieces[n].pv = i;
        n++;
    }
    if (n)
        rc = run(io, OP_DATASYNC, n, NULL);
    if (rc < 0)
        atomic_fetch_or(&v->dirty, bits);   /* still to be flushed */
    pthread_rwlock_unlock(&v->lock);
    pthread_mutex_unlock(&flush_mutex);
    return rc;
}

/* Append a PV range to the zeroing batch, merged with a range it extends. */
static void add_range(struct lvxd_io *io, unsigned *n, const struct lvxd_pv *p, unsigned pv,
                      uint64_t off, uint64_t len)
{
    for (unsigned i = 0; i < *n; i++) {
        struct lvxd_piece *r = &io->pieces[i];
        if (r->pv == pv && r->off + r->len == off && r->len + len <= (1u << 30)) {
            r->len += (uint32_t)len;
            return;
        }
    }
    struct lvxd_piece *r = &io->pieces[(*n)++];
    r->fd = p->fd;
    r->pv = pv;
    r->off = off;
    r->len = (uint32_t)len;
    r->buf_off = p->is_blk;
}

/* Zero the batch: punch (files, and block devices that unmap with zeroes), else
 * zero-range (block devices: write-zeroes). */
static int zero_batch(struct lvxd_io *io, unsigned n)
{
    int rc = run(io, OP_PUNCH, n, NULL);
    if (rc == -EOPNOTSUPP || rc == -EINVAL)
        rc = run(io, OP_ZERO, n, NULL);
    return rc;
}

int lvxd_io_zero(struct lvxd_io *io, struct lvxd_lv *v, uint64_t off, uint64_t len)
{
    int rc = 0;
    unsigned n = 0;
    pthread_rwlock_rdlock(&v->lock);
    if (off >= v->size)
        goto out;
    if (len > v->size - off)
        len = v->size - off;
    uint64_t sector = off / 512, end = (off + len) / 512;
    while (sector < end && rc == 0) {
        struct lvx_map_loc loc;
        if (lvx_map_prepared_lookup(v->map, sector, &loc) < 0 || loc.len == 0) {
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
            atomic_fetch_or(&v->dirty, (uint_fast64_t)1 << (idx % 64));
        } else if (loc.kind == LVX_MAP_ERROR) {
            rc = -EIO;
        }
        sector += cnt;
    }
    if (rc == 0 && n)
        rc = zero_batch(io, n);
out:
    pthread_rwlock_unlock(&v->lock);
    return rc;
}
