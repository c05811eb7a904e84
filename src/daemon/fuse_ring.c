/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/fuse_ring.c - FUSE-over-io_uring rings and ring entry buffers, by
 * default made to survive the death of the worker.  The kernel ties a ring entry to the task that submitted its
 * io_uring command: requests are copied into the entry's buffers in that task's
 * context, and when it exits, io_uring cancels its commands (an idle entry is
 * cancelled, a request the entry holds is never resent).  So the supervisor
 * makes the rings (SQPOLL: commands are submitted by the ring's kernel SQ
 * thread, a thread of the supervisor) and the entries' buffers (MAP_SHARED,
 * mapped before the first fork: at the same address in the supervisor and in
 * every worker) before it forks a worker.  A worker only writes SQEs, reads CQEs
 * and the shared buffers; its death cancels nothing.  Its successor adopts each
 * entry (lvxd_ring_adopt()): it waits for the kernel's next request on entries
 * that had a command published, and serves again, from the slot's shadow, a
 * request that was taken but not committed.  The price: every command goes
 * through the SQ thread (one per queue), a hand-off per request.  With
 * LVX_FUSE_URING=worker the rings are the worker's own (no SQPOLL, made after the
 * fork): no hand-off, and a dead worker's connection is aborted (server.c).
 *
 * Entry points: lvxd_fuse_uring_mode(), lvxd_fuse_rings_make(),
 * lvxd_fuse_rings_kept(), lvxd_fuse_rings(), lvxd_fuse_rings_why(), lvxd_ring_adopt().
 */
#include "daemon/fuse_ring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SQ_IDLE_MS 2        /* the SQ thread sleeps after this long without SQEs */

static struct lvxd_ring_set set;
static bool made, kept_rings;
static const char *why = "the supervisor made no rings";

const struct lvxd_ring_set *lvxd_fuse_rings(void)
{
    return made ? &set : NULL;
}

bool lvxd_fuse_rings_kept(void)
{
    return made && kept_rings;
}

int lvxd_fuse_uring_mode(void)
{
    const char *e = getenv("LVX_FUSE_URING");
    if (e && strcmp(e, "0") == 0)
        return LVXD_URING_OFF;
    if (e && strcmp(e, "worker") == 0)
        return LVXD_URING_WORKER;
    return LVXD_URING_KEPT;
}

const char *lvxd_fuse_rings_why(void)
{
    if (lvxd_fuse_uring_mode() == LVXD_URING_OFF)
        return "LVX_FUSE_URING=0";
    return why;
}

/* The number of possible CPUs, the kernel's number of ring queues (0: unknown;
 * /sys/devices/system/cpu/possible: "0-1", "0,2-5"). */
static unsigned possible_cpus(void)
{
    char buf[256] = "";
    int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    unsigned max = 0;
    for (char *p = buf; *p;) {
        if (*p >= '0' && *p <= '9') {
            unsigned long v = strtoul(p, &p, 10);
            if (v + 1 > max)
                max = (unsigned)v + 1;
        } else
            p++;
    }
    return max;
}

static void unmake(unsigned rings_made)
{
    for (unsigned i = 0; i < rings_made; i++)
        io_uring_queue_exit(&set.rings[i]);
    free(set.rings);
    if (set.slots)
        munmap(set.slots, set.count * sizeof(*set.slots));
    if (set.bufs)
        munmap(set.bufs, (size_t)set.count * LVXD_FUSE_BUF_SIZE);
    memset(&set, 0, sizeof(set));
}

/* One ring per FUSE thread but the first; kept: SQPOLL, one SQ thread per queue
 * (the rings of a queue share it). */
static int make_rings(bool kept)
{
    int *first = calloc(set.nqueues, sizeof(*first));
    if (!first)
        return -ENOMEM;
    unsigned i;
    int rc = 0;
    for (i = 0; i < set.count; i++) {
        uint16_t qid = (uint16_t)(i % set.nqueues);
        struct io_uring_params p;
        memset(&p, 0, sizeof(p));
        p.flags = IORING_SETUP_SQE128;
        if (kept) {
            p.flags |= IORING_SETUP_SQPOLL;
            p.sq_thread_idle = SQ_IDLE_MS;
        }
        if (kept && i >= set.nqueues) {
            p.flags |= IORING_SETUP_ATTACH_WQ;
            p.wq_fd = (unsigned)first[qid];
        }
        rc = io_uring_queue_init_params(4, &set.rings[i], &p);
        if (rc < 0)
            break;
        if (i < set.nqueues)
            first[qid] = set.rings[i].ring_fd;
        set.slots[i].qid = qid;
    }
    free(first);
    if (rc < 0)
        unmake(i);
    return rc;
}

void lvxd_fuse_rings_make(unsigned nthreads, bool kept)
{
    if (lvxd_fuse_uring_mode() == LVXD_URING_OFF) {
        why = "LVX_FUSE_URING=0";
        return;
    }
    set.nqueues = possible_cpus();
    if (!set.nqueues || set.nqueues > 0xffff || nthreads < set.nqueues + 1) {
        why = "fewer threads than CPUs";
        return;
    }
    set.count = nthreads - 1;
    set.rings = calloc(set.count, sizeof(*set.rings));
    set.slots = mmap(NULL, set.count * sizeof(*set.slots), PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    set.bufs = mmap(NULL, (size_t)set.count * LVXD_FUSE_BUF_SIZE, PROT_READ | PROT_WRITE,
                    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (set.slots == MAP_FAILED)
        set.slots = NULL;
    if (set.bufs == MAP_FAILED)
        set.bufs = NULL;
    if (!set.rings || !set.slots || !set.bufs) {
        unmake(0);
        why = "out of memory";
        return;
    }
    /* touched: resident (and locked) before the first request */
    memset(set.slots, 0, set.count * sizeof(*set.slots));
    memset(set.bufs, 0, (size_t)set.count * LVXD_FUSE_BUF_SIZE);
    int rc = make_rings(kept);
    if (rc < 0) {
        why = rc == -EINVAL ? "io_uring with 128-byte SQEs (and SQPOLL) not available"
                            : "cannot make the io_uring rings";
        lvxd_log("FUSE rings: %s", strerror(-rc));
        return;
    }
    made = true;
    kept_rings = kept;
}

bool lvxd_ring_adopt(struct io_uring *ring, struct lvxd_ring_slot *slot, uint8_t *payload)
{
    unsigned tail = atomic_load_explicit((_Atomic unsigned *)ring->sq.ktail,
                                         memory_order_acquire);
    ring->sq.sqe_head = ring->sq.sqe_tail = tail;
    if (atomic_load(&slot->state) != LVXD_SLOT_SERVING)
        return false;
    if (slot->committing && (int)(tail - slot->pub_tail) >= 0) {
        atomic_store(&slot->state, LVXD_SLOT_FETCH);   /* the commit was published */
        return false;
    }
    /* taken from the CQ but maybe not marked seen: the same request */
    struct io_uring_cqe *cqe;
    if (io_uring_peek_cqe(ring, &cqe) == 0)
        io_uring_cqe_seen(ring, cqe);
    memcpy(slot->hdr.in_out, slot->in_out, sizeof(slot->in_out));
    memcpy(slot->hdr.op_in, slot->op_in, sizeof(slot->op_in));
    memcpy(payload, slot->payload, sizeof(slot->payload));
    slot->committing = 0;
    return true;
}
