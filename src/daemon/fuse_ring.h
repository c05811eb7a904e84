/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/fuse_ring.h - FUSE-over-io_uring ring entries that outlive the worker
 * (fuse_ring.c): the slots (one per ring worker) shared by the supervisor and
 * every worker it forks.  Used by daemon/fuse.c and daemon/fuse_ring.c only.
 */
#ifndef LVX_DAEMON_FUSE_RING_H
#define LVX_DAEMON_FUSE_RING_H

#include "daemon/daemon_int.h"
#include "daemon/fuse_uring_abi.h"

#include <liburing.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/uio.h>

#define LVXD_FUSE_PAGE 4096u
/* a worker's buffer: a /dev/fuse message or a ring entry's payload at +PAGE */
#define LVXD_FUSE_BUF_SIZE (LVXD_FUSE_PAGE + LVXD_MAX_IO + 2 * LVXD_FUSE_PAGE)
#define LVXD_RING_SHADOW 256u   /* every reply body but READ's / READDIR's fits */

/* What the slot's ring entry is doing, as its worker last recorded it. */
enum {
    LVXD_SLOT_NONE = 0,     /* never registered */
    LVXD_SLOT_FETCH,        /* a REGISTER or COMMIT_AND_FETCH published: the kernel's */
    LVXD_SLOT_SERVING,      /* a request taken from the CQ, not committed yet */
};

/* One ring entry (shared memory, at the same address in every process).  The
 * shadow is the request as the kernel delivered it: a reply overwrites the
 * header buffer and the start of the payload, so a successor serving it again
 * restores it first. */
struct lvxd_ring_slot {
    _Alignas(64) struct lvx_fuse_uring_req_header hdr;
    struct iovec reg_iov[2];
    _Atomic int state;
    int committing;         /* SERVING: the commit SQE is being published ... */
    unsigned pub_tail;      /* ... and is once the SQ tail reaches this */
    uint16_t qid;
    uint64_t commit_id;
    uint32_t payload_sz;
    char in_out[LVX_FUSE_URING_IN_OUT_HEADER_SZ];
    char op_in[LVX_FUSE_URING_OP_IN_OUT_SZ];
    uint8_t payload[LVXD_RING_SHADOW];
};

/* The rings made by the supervisor (NULL: none; lvxd_fuse_rings_why() says why).
 * Ring i, slot i and buffer i belong to FUSE worker thread i + 1. */
struct lvxd_ring_set {
    unsigned count;
    unsigned nqueues;
    struct io_uring *rings;         /* the supervisor's, inherited by the worker */
    struct lvxd_ring_slot *slots;   /* shared */
    uint8_t *bufs;                  /* shared, LVXD_FUSE_BUF_SIZE each, page aligned */
};
const struct lvxd_ring_set *lvxd_fuse_rings(void);
const char *lvxd_fuse_rings_why(void);
/* In a restarted worker: liburing's view of the SQ taken from the kernel's (what
 * the dead worker had not published is dropped), and the slot's entry brought to
 * FETCH or SERVING: true when its request is to be served again (the shadow
 * restored into the buffers). */
bool lvxd_ring_adopt(struct io_uring *ring, struct lvxd_ring_slot *slot, uint8_t *payload);

#endif
