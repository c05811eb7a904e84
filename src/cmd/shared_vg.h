/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/shared_vg.h - a VG made shared in memory (lock type sanlock, docs/lvm2-format.md
 * §10.7), for vgcreate --shared and vgchange --locktype sanlock (cmd/shared_vg.c).
 */
#ifndef LVX_CMD_SHARED_VG_H
#define LVX_CMD_SHARED_VG_H

#include <stdbool.h>

#include "cmd/commands.h"
#include "meta/lockd_sanlock.h"
#include "model/model.h"

/* The VG gets lvmlockd's lock type and arguments ("sanlock", "1.0.0:lvmlock"), its
 * WRITE becomes WRITE_LOCKED, and the hidden lvmlock LV is allocated (contiguous, first
 * free extents); *area its place for lvx_sanlock_init_vg.  0 or an exit code. */
int lvx_shared_vg_make(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_sanlock_area *area);
/* No shared VG in set: a new one holds the global lock (lvmlockd). */
bool lvx_shared_vg_first(const struct lvx_vgset *set);

#endif
