/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/daemon_lease.h - what the backends ask the lvx daemon (daemon/daemon.h) for
 * beyond serving: the sanlock lease of a shared VG's LV that the `dm` backend
 * activates (a lease belongs to the process that took it, so it is the daemon's, held
 * while the dm device exists, as lvmlockd holds it for LVM2), and the device list both
 * backends send with a request.
 */
#ifndef LVX_ACTIVATE_DAEMON_LEASE_H
#define LVX_ACTIVATE_DAEMON_LEASE_H

#include <stdbool.h>

#include "model/model.h"
#include "util/buf.h"
#include "util/ctx.h"

/* " /abs/dev1 /abs/dev2 ..." of the VG's present PVs appended to out (-EINVAL for a
 * name with blanks). */
int lvx_daemon_device_words(struct lvx_ctx *ctx, const struct lvx_vg *vg, struct lvx_buf *out);

/* Does activating lv in the dm backend need a lease (an LV of a shared VG whose lease
 * owner, meta/lockd.h, has one)? */
bool lvx_dm_lease_needed(const struct lvx_lv *lv);
/* The daemon (started when it does not run) takes and holds lv's lease, shared or
 * exclusive; *taken: it was not held before (false: lv holds it already).  LVM2's
 * "LV locked by other host: vg/lv" (-EAGAIN) when another host holds it. */
int lvx_dm_lease_take(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool shared, bool *taken);
/* The daemon releases lv's lease (nothing when no daemon runs or it holds none). */
int lvx_dm_lease_drop(struct lvx_ctx *ctx, const struct lvx_lv *lv);

#endif
