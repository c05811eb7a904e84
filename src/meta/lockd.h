/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lockd.h - shared VGs (lvmlockd's lock types, lvmlockd(8)): which VGs need
 * lvmlockd's locks (lock_type sanlock, dlm or idm in the metadata), whether this host
 * uses them (lvm.conf global/use_lvmlockd), and the access rule LVM2 applies to such a
 * VG before reading or changing it.  For lock type sanlock lvx does lvmlockd's part
 * itself, through the host's sanlock daemon (meta/lockd_sanlock.c): it joins and
 * leaves the VG's lockspace (vgchange --lockstart/--lockstop), holds the VG lease
 * (VGLK) exclusively around every change, the global lock (GLLK) around changes of VG
 * names and orphan PVs, and an LV's lease while the LV is active (in the daemon that
 * serves it), so lvx hosts and LVM2+lvmlockd hosts take the same leases.  Reads take no lock (LVM2's warning); dlm and idm VGs are read only.
 */
#ifndef LVX_META_LOCKD_H
#define LVX_META_LOCKD_H

#include <stdbool.h>

#include "model/model.h"
#include "util/ctx.h"

/* lvm.conf (with --config and the profile) global/use_lvmlockd is set. */
bool lvx_lockd_use(struct lvx_ctx *ctx);

/* May the command use this VG?  0 for a VG that is not shared; otherwise, without
 * lvmlockd: LVM2's "Cannot access VG ... requires lvmlockd." (-EPERM); with lvmlockd:
 * a change is refused with LVM2's failed-lock line (-EAGAIN) since lvx cannot take
 * the VG lock yet, a read gets LVM2's "Reading VG ... without a lock." warning. */
int lvx_lockd_access(struct lvx_ctx *ctx, const struct lvx_vg *vg, bool write);

/* Before a change of a shared VG: the VG lease, held in *hold (0: none) until
 * lvx_lockd_vg_unlock (without use_lvmlockd: lvx_lockd_access's refusal).  A lease
 * held by another host is tried again for a few seconds, then LVM2's "VG X lock
 * failed: held by other host." and "Cannot access VG X due to failed lock." (-EAGAIN);
 * a lockspace not started here (or no sanlock daemon) gets the second line only.  The caller must read the VG
 * again once it holds the lease. */
int lvx_lockd_vg_lock(struct lvx_ctx *ctx, const struct lvx_vg *vg, int *hold);
void lvx_lockd_vg_unlock(int *hold);
/* Commands that change the VG namespace or the orphan PVs (vgcreate, vgremove,
 * pvcreate, vgextend, ...): the global lock (lvmlockd's GLLK, in the started sanlock VG
 * that has it enabled) exclusively, held in *hold until lvx_lockd_vg_unlock; taken
 * before any VG lease.  Held by another host: retried a few seconds, then LVM2's
 * "Global lock failed: held by other host." (-EAGAIN).  Without use_lvmlockd, or no
 * started VG holding it: 0, nothing held (LVM2 fails then unless it creates the first
 * sanlock VG: a difference). */
int lvx_lockd_gl_lock(struct lvx_ctx *ctx, int *hold);
/* Before a shared VG's commit (its lease held): every LV that needs its own lease
 * (visible, not a thin LV, not a snapshot, not the lock LV) and has no lock_args gets
 * one, as lvmlockd's init_lv: lock_args "1.0.0:<offset in the lvmlock LV>". */
int lvx_lockd_init_lvs(struct lvx_ctx *ctx, struct lvx_vg *vg);
/* Activation: the LV's own lease (lvmlockd's LV lock, the resource named by its UUID
 * at its lock_args offset), exclusive (-aey, -ay) or shared (-asy), held in *hold (0:
 * none: the LV has no lease) by this process until lvx_lockd_lv_unlock or its end (the
 * lvx daemon holds it while the LV is active, for either activation backend).  Another host holding
 * it: LVM2's "LV locked by other host: vg/lv" (-EAGAIN) after retries more tries (0 for
 * activation, as lvmlockd; lvremove waits a few seconds for a local deactivation whose
 * daemon frees the LV at its last close). */
int lvx_lockd_lv_lock(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool shared,
                      unsigned retries, int *hold);
/* The LV whose lease lvx_lockd_lv_lock takes for lv: lv itself, or a thin LV's pool (thin
 * LVs have no lease of their own: they share the pool's, as with lvmlockd); NULL when
 * there is none.  Shared activation of a thin, thin pool, mirror, RAID or cache LV is
 * refused as lvmlockd does ("Shared activation not compatible with LV type T of vg/lv",
 * naming the lease's LV and its type). */
const struct lvx_lv *lvx_lockd_lease_owner(const struct lvx_lv *lv);
/* That refusal alone (-EINVAL with the message; 0: the mode is allowed), for the
 * command to say before the backend activates anything. */
int lvx_lockd_lv_mode_check(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool shared);
void lvx_lockd_lv_unlock(int *hold);
/* lvremove (the VG lease held): the LV's lease slot back to the free list as lvmlockd's
 * free_lv, refused (-EAGAIN, "LV locked by other host") while it is active elsewhere. */
int lvx_lockd_free_lv(struct lvx_ctx *ctx, const struct lvx_lv *lv);
/* vgchange --lockstart: join the VG's lockspace as lvmlocal.conf's local/host_id
 * (sanlock I/O timeout LVX_SANLOCK_IO_TIMEOUT seconds, else sanlock's default). */
int lvx_lockd_start(struct lvx_ctx *ctx, const struct lvx_vg *vg);
/* vgchange --lockstop: leave it (0 when it was not joined). */
int lvx_lockd_stop(struct lvx_ctx *ctx, const struct lvx_vg *vg);

#endif
