/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nodes/user_nodes.h - the /dev entries of a user-space-activated LV:
 * <dev dir>/mapper/<dm name> and <dev dir>/<vg>/<lv>, symlinks to the loop device
 * that serves it ("/dev/loopN").  Made by the user backend at activation and by
 * the lvx daemon when it attaches a restored LV again after a crash; removed only
 * when they are such symlinks (never a device-mapper node or link).
 *
 * Entry points: lvx_user_nodes_add(), lvx_user_nodes_remove().
 */
#ifndef LVX_NODES_USER_NODES_H
#define LVX_NODES_USER_NODES_H

#include <stdbool.h>

#include "util/ctx.h"

/* Both links -> loop, replacing what is there (atomically: rename); vg_link false: only
 * the mapper link (a used thin pool, which LVM2 keeps private), the other one removed. */
int lvx_user_nodes_add(struct lvx_ctx *ctx, const char *dev_dir, const char *vg, const char *lv,
                       const char *loop, bool vg_link);
/* Remove both when they link to a loop device, and <dev dir>/<vg> when empty. */
void lvx_user_nodes_remove(const char *dev_dir, const char *vg, const char *lv);
/* Remove only <dev dir>/<vg>/<lv> when it links to a loop device (and the empty dir). */
void lvx_user_nodes_remove_vg_link(const char *dev_dir, const char *vg, const char *lv);

#endif
