/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nodes/dm_nodes.h - the /dev entries of an active LV, made by lvx itself
 * (no udev needed): the block node /dev/mapper/<dm name> (mknod from the device
 * number device-mapper returned) and the symlink /dev/<vg>/<lv> ->
 * ../mapper/<dm name>, as LVM2's udev rules lay them out.  When udev runs it
 * makes the same entries; creating them first is harmless (existing correct
 * entries are kept).  $DM_DEV_DIR replaces /dev, as for LVM2.
 *
 * Entry points: lvx_dm_nodes_add(), lvx_dm_nodes_remove(), lvx_dm_dev_dir().
 */
#ifndef LVX_NODES_DM_NODES_H
#define LVX_NODES_DM_NODES_H

#include <stdint.h>

#include "util/ctx.h"

#define LVX_NODE_MODE 0660   /* an LV's block device node: root:disk, rw-rw---- (LVM2's) */
#define LVX_NODE_GID 6        /* "disk" */

/* "/dev" or $DM_DEV_DIR. */
const char *lvx_dm_dev_dir(void);
/* Make /dev/mapper/<name> (block major:minor) and /dev/<vg>/<lv> -> ../mapper/<name>
 * (no link when lv is NULL: a hidden sub-LV or a layer device such as -real, -cow). */
int lvx_dm_nodes_add(struct lvx_ctx *ctx, const char *name, uint32_t major, uint32_t minor,
                     const char *vg, const char *lv);
/* Remove both (missing ones are fine; lv NULL: only the node) and /dev/<vg> when it
 * became empty. */
void lvx_dm_nodes_remove(const char *name, const char *vg, const char *lv);

#endif
