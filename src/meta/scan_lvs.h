/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/scan_lvs.h - LVM2's devices/scan_lvs in the device lists: with the default 0
 * the devices that are active LVs (dev/lv_dev.h) are left out of every list (the
 * system's and --devices'), as LVM2's usable filter does; with 1 they are listed,
 * scanned and usable as PVs.  And the names the filters match a device by.
 *
 * Entry points: lvx_scan_lvs_on(), lvx_scan_drop_lvs(),
 * lvx_scan_filter_names().
 */
#ifndef LVX_META_SCAN_LVS_H
#define LVX_META_SCAN_LVS_H

#include <stdbool.h>

#include "dev/dev.h"
#include "util/ctx.h"
#include "util/pool.h"

/* lvm.conf / --config devices/scan_lvs (default 0). */
bool lvx_scan_lvs_on(struct lvx_ctx *ctx);
/* Drop the LVs of devs unless scan_lvs is on. */
void lvx_scan_drop_lvs(struct lvx_ctx *ctx, struct lvx_devlist *devs);
/* The names of dev the filters look at (LVM2 matches any of a device's names): its
 * path, its canonical path for a symlink (*real, malloc'd: the caller frees it) and,
 * for an LV, $DM_DEV_DIR/mapper/<dm name> and $DM_DEV_DIR/<vg>/<lv> (in pool).
 * Returns how many of names[4] are set. */
unsigned lvx_scan_filter_names(struct lvx_pool *pool, const struct lvx_dev *dev,
                               const char *names[4], char **real);

#endif
