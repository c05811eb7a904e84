/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lockd_sanlock.h - the sanlock leases of a shared VG as lvmlockd lays them out
 * (docs/lvm2-format.md §10.7) on its lvmlock LV, written through sanlock's client
 * library and the running sanlock daemon: the lockspace "lvm_<vg>", the global lock,
 * the VG lock and the free LV lease slots; joining/leaving the lockspace and holding
 * the VG lease around a change, as lvmlockd does for LVM2's commands.
 */
#ifndef LVX_META_LOCKD_SANLOCK_H
#define LVX_META_LOCKD_SANLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "util/ctx.h"

/* The lvmlock LV's place: a device path and the byte offset of the LV's start on it
 * (lvx reaches the LV through its PV: no device-mapper needed), its size in bytes, and
 * the device's sector size (512: leases 1 MiB apart, 4096: 8 MiB). */
struct lvx_sanlock_area {
    const char *path;
    uint64_t offset;
    uint64_t size;
    unsigned sector_size;
};

/* Size of a new lvmlock LV for that sector size (LVM2: 256 MiB / 1 GiB). */
uint64_t lvx_sanlock_lv_bytes(unsigned sector_size);

/* Write the lockspace and the resources of a new VG (vgcreate --shared): GLLK when
 * global is set (else "_GLLK_disabled"), VGLK, "#unused" in every LV slot to the end of
 * the area.  Needs the sanlock daemon; -errno with the error set. */
int lvx_sanlock_init_vg(struct lvx_ctx *ctx, const char *vgname,
                        const struct lvx_sanlock_area *a, bool global);

/* Join the VG's lockspace (vgchange --lockstart) as host_id, sanlock's I/O timeout
 * io_timeout seconds (0: sanlock's default): the lockspace's sizes are read from the
 * area first.  Returns when joined (sanlock takes 2-3 I/O timeouts); 0 when it already
 * was. */
int lvx_sanlock_start(struct lvx_ctx *ctx, const char *vgname, const struct lvx_sanlock_area *a,
                      uint64_t host_id, unsigned io_timeout);
/* Leave it (vgchange --lockstop): -ENOENT when not joined. */
int lvx_sanlock_stop(struct lvx_ctx *ctx, const char *vgname);
/* The VG's lockspace is joined on this host. */
bool lvx_sanlock_started(struct lvx_ctx *ctx, const char *vgname);
/* Take the VG lease (lvmlockd's VGLK) exclusively for this process, trying retries
 * more times while another host holds it; *sock holds it until lvx_sanlock_vg_unlock
 * (or the process's end: sanlock then releases it).  LVM2's lines on failure. */
int lvx_sanlock_vg_lock(struct lvx_ctx *ctx, const char *vgname, unsigned retries, int *sock);
/* Take the global lock (lvmlockd's GLLK) exclusively for this process, from the joined
 * lockspace whose GLLK slot is enabled, trying retries more times while another host
 * holds it (then LVM2's "Global lock failed: held by other host.", -EAGAIN).  *sock
 * -1 and 0 when no joined lockspace holds it (or no sanlock runs here). */
int lvx_sanlock_gl_lock(struct lvx_ctx *ctx, unsigned retries, int *sock);
/* Take an LV's lease (lvmlockd's LV lock: the resource named lv_uuid, dashed, at byte
 * offset of the lvmlock LV), exclusive or shared, for this process; retries more tries
 * while it is held (activation: none, as lvmlockd).
 * -EAGAIN "LV locked by other host: vg/lv" (LVM2's line) or, the lockspace not joined
 * here, "Cannot access VG vg due to failed lock.". */
int lvx_sanlock_lv_lock(struct lvx_ctx *ctx, const char *vgname, const char *lvname,
                        const char *lv_uuid, uint64_t offset, bool shared, unsigned retries,
                        int *sock);
/* Release what *sock holds (a VG or an LV lease). */
void lvx_sanlock_unlock(int *sock);
/* A removed LV's slot back to the free list (lvmlockd's free_lv): the lease is taken
 * exclusively first (a few seconds of tries: a local deactivation may still be
 * releasing it) (-EAGAIN "LV locked by other host" when it is active elsewhere),
 * then the resource is written as "#unused". */
int lvx_sanlock_free_lv(struct lvx_ctx *ctx, const char *vgname, const char *lvname,
                        const char *lv_uuid, uint64_t offset);
/* A lease for a new LV (lvmlockd's init_lv): the first free LV slot of the lockspace
 * (joined here) gets the resource named lv_uuid (dashed); *offset its byte offset in
 * the lvmlock LV, for the LV's lock_args "1.0.0:<offset>". */
int lvx_sanlock_init_lv(struct lvx_ctx *ctx, const char *vgname, const char *lv_uuid,
                        uint64_t *offset);

#endif
