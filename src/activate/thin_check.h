/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/thin_check.h - LVM2's check of a thin pool's metadata before the pool is
 * activated (lib/activate/dev_manager.c _pool_callback), for both backends
 * (activate/thin_check.c): global/thin_check_executable with global/thin_check_options
 * on the metadata, skipped when its first 64 bytes are zero (a new pool) or the
 * executable is "" (and, with a warning, when it is not installed); a failure refuses
 * the activation with LVM2's "Check of pool VG/POOL failed (status:N). Manual repair
 * required!".
 */
#ifndef LVX_ACTIVATE_THIN_CHECK_H
#define LVX_ACTIVATE_THIN_CHECK_H

#include "model/model.h"
#include "util/ctx.h"

/* The check of pool's metadata held by path (its _tmeta device).  0 or -errno
 * (message in ctx). */
int lvx_thin_check_path(struct lvx_ctx *ctx, const struct lvx_lv *pool, const char *path);
/* The same for a pool no device holds (the user backend): its _tmeta read from the PVs
 * into a private temporary file, which is checked, then removed. */
int lvx_thin_check_pvs(struct lvx_ctx *ctx, const struct lvx_lv *pool);

#endif
