/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/scandirs.h - lvm.conf devices/scan: the directories where device nodes are
 * looked for (default "/dev").  The system scan lists /proc/partitions; with other
 * directories configured, only devices having a node under one of them are kept, and
 * a device with no node directly in /dev takes the name of the first node found.
 *
 * Entry point: lvx_devs_restrict_to_dirs().
 */
#ifndef LVX_DEV_SCANDIRS_H
#define LVX_DEV_SCANDIRS_H

#include "dev/dev.h"

/* dirs: the configured directories.  Nothing is done when the list is just "/dev". */
int lvx_devs_restrict_to_dirs(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_devlist *devs,
                              const char *const *dirs, unsigned ndirs);

#endif
