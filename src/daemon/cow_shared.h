/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/cow_shared.h - the exception store of one COW LV as the daemon's served files
 * share it (cow_shared.c): loaded once from the COW LV (kernel format, map/cow_store.h),
 * chunks reserved by the requests that copy them (tickets), and the group commit of
 * their records.  The snapshot targets (target_snapshot.c) use it.
 *
 * Locks of a store, taken in this order:
 *   lock  rwlock: snapshot reads that go to the origin hold it shared while they read;
 *         records enter the table under it exclusively, so an origin chunk is never
 *         overwritten while a snapshot read takes it from the origin.  Table lookups
 *         outside mu hold it (shared).
 *   mu    mutex: allocation, the tickets, the copy buffer pool, the commit queue, the
 *         usage numbers and valid (also written under lock).
 * A request that copies chunks: cow_reserve() (waits while another ticket overlaps its
 * chunks, allocates COW chunks for the unrecorded ones and a buffer), its data I/O
 * without locks (the COW writes durable when done: FUA writes, LVX_IO_WRITE_FUA), then
 * cow_commit(): the first waiter commits every queued ticket with one durable write
 * of the metadata area's blocks that hold them (two whole-area writes more when it
 * fills one), then the records enter the
 * table and the tickets end; tickets queued meanwhile wait for the next commit.  No
 * flush of the whole COW PVs: a FUA write is one round trip where a flush is two
 * (fdatasync runs in io_uring's worker threads), and a flush pair per batch made
 * 4 KiB random origin writes wait ~5 ms each for their commit.  Until then the
 * origin chunks stay untouched (a writer of them waits on the ticket) and snapshot
 * reads take them from the origin.
 */
#ifndef LVX_DAEMON_COW_SHARED_H
#define LVX_DAEMON_COW_SHARED_H

#include "daemon/daemon_int.h"
#include "map/cow_store.h"

#define COW_ALIGN 4096
#define COW_MAX_SLOTS (LVXD_MAX_IO / 4096 + 2)   /* chunks one request touches, at most */
#define COW_POOL_BYTES (4u << 20)                /* copy buffers of a store */

struct cow_ticket;

struct cow_shared {
    struct cow_shared *next;
    char key[2 * LVX_UUID_LEN + 2];
    unsigned refs;
    pthread_rwlock_t lock;
    pthread_mutex_t mu;
    pthread_cond_t cond;       /* a ticket ended, a commit ended, units freed */
    pthread_mutex_t hdr;       /* header writes (a first commit's, an invalidation's) */
    bool loaded;
    bool header_pending;       /* a new store not written yet (first loaded read-only) */
    char name[260];            /* vg/snapshot, for the log */
    struct lvx_cow st;
    uint32_t cb;               /* chunk bytes */
    uint32_t slots;            /* chunks of one request, at most */
    uint8_t *area;             /* the current metadata area (the committer's) */
    uint8_t *scratch;          /* one chunk: header, zeroes */
    uint8_t *pool;             /* copy buffers: units chunks */
    uint8_t *pool_used;        /* per unit */
    unsigned units;
    struct cow_ticket *tickets;              /* reserved, not committed yet */
    struct cow_ticket *queue, **queue_tail;  /* data written, waiting for the commit */
    bool committing;
    /* counts since load, logged when the store is dropped (cow_shared_put) */
    uint64_t n_records, n_commits, n_area_writes, n_area_bytes, n_flushes;
};

/* One snapshot as a served file sees it. */
struct snap_ref {
    const struct lvx_lv *cow_lv;
    const struct lvx_map_prepared *cow_map;
    uint32_t chunk;            /* the table's chunk size (a header's wins) */
    uint64_t cow_pvs;          /* bit i % 64: PV i holds part of the COW LV */
    struct cow_shared *sh;     /* from start */
};

/* Chunks one request copies: (olds[i] -> news[i]), i < k, in old chunk order, their
 * data in buf (slot i at i * chunk bytes).  Lives on the requester's stack. */
struct cow_ticket {
    struct cow_ticket *next, *qnext;
    uint64_t first, last;      /* olds[0], olds[k-1] */
    unsigned k;
    uint64_t olds[COW_MAX_SLOTS], news[COW_MAX_SLOTS];
    uint8_t *buf;
    unsigned unit0;
    bool done;
    int rc;
};

/* The store of COW LV cow (a new one, not loaded, when no file uses it yet); NULL
 * when out of memory.  cow_shared_put() drops the reference. */
struct cow_shared *cow_shared_get(const struct lvx_lv *cow);
void cow_shared_put(struct cow_shared *sh);
/* Load r's store from the COW LV for v (origin_sectors: the origin's size); the
 * caller holds sh->lock exclusively.  0 or -errno (message in ctx). */
int cow_shared_load(struct lvx_ctx *ctx, struct lvxd_io *io, struct lvxd_lv *v,
                    uint64_t origin_sectors, struct snap_ref *r);
/* The PVs of r's COW LV into r->cow_pvs. */
void cow_shared_pvs(struct snap_ref *r);

/* Write COW chunk `chunk` from buf (one chunk). */
int cow_write_chunk(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
                    uint64_t chunk, uint8_t *buf);
/* The snapshot is invalid from now on (header valid 0, as the kernel's drop); the
 * caller holds none of the store's locks. */
void cow_invalidate(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
                    const char *why);

/* Reserve the chunks first..last that have no record: t->k of them (0: all have one,
 * nothing to do).  -EIO: the snapshot is invalid; -ENOSPC: the COW is full (now
 * invalidated).  With t->k > 0 the caller writes their data, then cow_commit() (or
 * cow_release() after a failure). */
int cow_reserve(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
                uint64_t first, uint64_t last, struct cow_ticket *t);
/* Commit t's records (its data written): returns once they are durable and in the
 * table, or failed (the snapshot then invalid).  The ticket ends either way. */
int cow_commit(struct lvxd_io *io, struct lvxd_lv *v, const struct snap_ref *r,
               struct cow_ticket *t);
/* End t without committing (its data I/O failed; the caller invalidates). */
void cow_release(struct cow_shared *sh, struct cow_ticket *t);

#endif
