/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lockd.h - shared VGs (lvmlockd's lock types, lvmlockd(8)): which VGs need
 * lvmlockd's locks (lock_type sanlock, dlm or idm in the metadata), whether this host
 * uses them (lvm.conf global/use_lvmlockd), and the access rule LVM2 applies to such a
 * VG before reading or changing it.  lvx takes no lvmlockd locks yet: a shared VG is
 * refused for every change, and read without a lock, with LVM2's messages.
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

#endif
