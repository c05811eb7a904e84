/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/scan_lvs.h - LVM2's devices/scan_lvs in the device lists: with the default 0
 * the devices that are active LVs (dev/lv_dev.h) are left out of every list (the
 * system's and --devices'), as LVM2's usable filter does; with 1 they are listed,
 * scanned and usable as PVs.
 *
 * Entry points: lvx_scan_lvs_on(), lvx_scan_drop_lvs().
 */
#ifndef LVX_META_SCAN_LVS_H
#define LVX_META_SCAN_LVS_H

#include <stdbool.h>

#include "dev/dev.h"
#include "util/ctx.h"
#include "util/pool.h"

/* lvm.conf / --config devices/scan_lvs (default 0). */
bool lvx_scan_lvs_on(struct lvx_ctx *ctx);
/* Drop the LVs of devs unless scan_lvs is on; with it, a kernel LV listed as
 * /dev/dm-N gets its /dev/<vg>/<lv> name (in pool), as LVM2 reports it. */
void lvx_scan_drop_lvs(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_devlist *devs);
#endif
