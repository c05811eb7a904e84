/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/mirror_core.h - what the daemon's old-style mirror target (target_mirror.c)
 * shares with its background resync (mirror_resync.c): the mirror, its legs, the
 * dm-log image (header + region bits, 1 = in sync; on every image of a mirrored log)
 * and the region copy.
 */
#ifndef LVX_DAEMON_MIRROR_CORE_H
#define LVX_DAEMON_MIRROR_CORE_H

#include "daemon/daemon_int.h"

#include <pthread.h>
#include <stdatomic.h>

#define MIRROR_COPY_BYTES (1u << 20)  /* resync buffer */
#define MIRROR_LOG_LEGS 8u            /* images of a mirrored log served */

struct mirror_leg {
    const struct lvx_map_prepared *data;
    atomic_bool failed;              /* absent, or its I/O failed */
};

struct mirror {
    pthread_mutex_t mu;              /* bits, need, log writes, failing legs */
    const struct lvx_map_prepared *log[MIRROR_LOG_LEGS];  /* the log LV, or the images
                                                       of a mirrored log (nlog 0: core) */
    unsigned nlog;
    unsigned n;
    uint64_t sectors;
    uint32_t region;
    uint64_t regions;
    bool nosync;                     /* NOTSYNCED: new regions count as in sync */
    bool layer;                      /* an LVM2 CONVERTING layer served flattened: legs
                                        = the layer's images then the top's new ones
                                        (fresh), log = the layer's, whose bits keep
                                        speaking for the layer's images only */
    bool started;
    bool synced;                     /* every region in sync at start (read-only reads) */
    uint8_t *hdr;                    /* log image: header + bits (aligned) */
    size_t log_bytes;
    uint32_t *pending;               /* writes in flight per region */
    uint8_t *touched, *cand;         /* written since / settable at the flush */
    /* background resync (mirror_resync.c): need, pos, wtouch under mu */
    uint8_t *need;                   /* region still to copy from the first live leg: to
                                        every other leg (1), or to the fresh legs (2) */
    uint64_t fresh;                  /* legs a reload added beside a kept log (adopt):
                                        every region copied to them, the rest only where
                                        the log says out of sync */
    uint8_t *wtouch;                 /* written since the walker's last checkpoint */
    uint8_t *held;                   /* lvxd_mirror_hold_log: the log image written
                                        instead (header, every bit 0) until the reload */
    uint8_t *adopted;                /* the held old state's bits (log image) that
                                        start takes instead of the held log's */
    atomic_uint_fast64_t unsynced;   /* regions with need set */
    uint64_t pos;                    /* the walker's next region */
    struct lvxd_lv *owner;
    pthread_t walker;
    bool walking, stop, walk_failed;
    atomic_uint rr;
    struct mirror_leg legs[];
};

/* target_mirror.c */
bool mirror_bit(const struct mirror *m, uint64_t g);
void mirror_set_bit(struct mirror *m, uint64_t g, bool on);
bool mirror_any_failed(const struct mirror *m);
/* The header and bits to the log LV (mu held); nothing for a core log. */
int mirror_write_log_locked(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m);
/* The PVs flushed (legs_flush.c): a leg on a PV whose datasync fails is failed while
 * another leg is live (dm-raid1's flush error), and the PVs only failed legs use are
 * left out (a lost disk's datasync fails for ever). */
int mirror_flush_pvs(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m);
/* Copy regions [g0, g1) from the first live leg to the other live legs in `to` (mu held). */
int mirror_copy_locked(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m, uint64_t g0,
                       uint64_t g1, uint64_t to, uint8_t *buf);

/* mirror_resync.c */
/* Regions [r0, r1] still in need copied first (mu held / taken). */
int mirror_sync_gate_locked(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m,
                            uint64_t r0, uint64_t r1);
int mirror_sync_gate(struct lvxd_io *io, struct lvxd_lv *v, struct mirror *m, uint64_t r0,
                     uint64_t r1);
int mirror_resync_spawn(struct lvxd_lv *v, struct mirror *m);
void mirror_resync_stop(struct mirror *m);

#endif
