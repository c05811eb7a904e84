/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lock.h - the file locks LVM2 uses, so lvx and LVM2 never interleave changes:
 * flock() on <locking_dir>/V_<vgname> per VG and <locking_dir>/P_global for the
 * global lock (orphan PVs, VG namespace).  locking_dir is /run/lock/lvm, or
 * $LVX_LOCK_DIR when set (tests).
 */
#ifndef LVX_META_LOCK_H
#define LVX_META_LOCK_H

#include <stdbool.h>

#include "util/ctx.h"

struct lvx_lock {
    int fd;              /* -1 when not held */
    char path[4096];
};

#define LVX_LOCK_INIT { -1, "" }

/* Take the VG lock (shared for readers, exclusive for writers), waiting for it. */
int lvx_lock_vg(struct lvx_ctx *ctx, const char *vgname, bool exclusive, struct lvx_lock *lock);
/* Take the global lock. */
int lvx_lock_global(struct lvx_ctx *ctx, bool exclusive, struct lvx_lock *lock);
/* Take LVM2's lock of a devices file (<locking_dir>/D_<file name>). */
int lvx_lock_devices_file(struct lvx_ctx *ctx, const char *file_name, bool exclusive,
                          struct lvx_lock *lock);
void lvx_unlock(struct lvx_lock *lock);
/* The directory holding the lock files. */
const char *lvx_lock_dir(void);

#endif
