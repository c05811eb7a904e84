/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/aliases.h - the names of a block device besides the one it is listed by, as
 * LVM2's device cache knows them and its filters match them: the canonical path of a
 * symlink; for a device-mapper device /dev/dm-N and $DM_DEV_DIR/mapper/<dm name> (and,
 * for an LV, $DM_DEV_DIR/<vg>/<lv>); the /dev/disk/by-* symlinks pointing at it.  And
 * the name LVM2 reports a dm device that is not an LV by: its /dev/mapper node (LVM2's
 * path preference: /dev/block/ < /dev/dm-* < /dev/disk/ < /dev/mapper/ < others).
 *
 * Cost: nothing for a device of another major than device-mapper's but the symlink's
 * realpath; one sysfs read per dm device; /dev/disk is read once per set of aliases
 * (struct lvx_dev_aliases), at the first device asked about, and costs one failed
 * opendir where there is no /dev/disk (no udev).
 *
 * Entry points: lvx_dev_aliases_init(), lvx_dev_alias_names(), lvx_dev_aliases_free(),
 * lvx_dev_mapper_path().
 */
#ifndef LVX_DEV_ALIASES_H
#define LVX_DEV_ALIASES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "dev/dev.h"
#include "dev/lv_dev.h"
#include "util/pool.h"

struct lvx_disk_link {
    dev_t rdev;
    char *path;
};

struct lvx_dev_aliases {
    struct lvx_lvdev_probe probe;
    bool disk_loaded;              /* /dev/disk read (links may still be none) */
    unsigned disk_count;
    struct lvx_disk_link *disk;    /* the /dev/disk/<dir>/<name> block device links */
};

/* The most names lvx_dev_alias_names() gives for one device. */
#define LVX_DEV_ALIASES_MAX 16

void lvx_dev_aliases_init(struct lvx_dev_aliases *a);
void lvx_dev_aliases_free(struct lvx_dev_aliases *a);
/* All names of dev, its path first, each once (in pool); returns how many (at most
 * max). */
unsigned lvx_dev_alias_names(struct lvx_dev_aliases *a, struct lvx_pool *pool,
                             const struct lvx_dev *dev, const char **names, unsigned max);
/* $DM_DEV_DIR/mapper/<dm name> of dm device maj:min when that node exists and is
 * that device (*is_link: the node is a symlink, as udev makes it), in pool; NULL for
 * another device or when there is no such node. */
const char *lvx_dev_mapper_path(const struct lvx_lvdev_probe *p, struct lvx_pool *pool,
                                uint32_t maj, uint32_t min, bool *is_link);

#endif
