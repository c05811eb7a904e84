/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/lv_slaves.h - which block devices the kernel's active LVM devices sit on, read
 * from sysfs (/sys/block/dm-N/dm/uuid "LVM-<vg id><lv id>[-layer]" and its slaves/),
 * as LVM2's device cache indexes them: what the device-mismatch check of active LVs
 * (cmd/devs_used.c) compares with the devices a VG's metadata names now.  Nothing is
 * listed when the kernel has no device-mapper (no /sys/class/misc/device-mapper), and
 * only the virtual block devices when it has.
 */
#ifndef LVX_DEV_LV_SLAVES_H
#define LVX_DEV_LV_SLAVES_H

#include <stdint.h>

#include "util/pool.h"

/* One device an active LV of VG vgid sits on (a slave of one of its dm devices that
 * is not another dm device of the same VG). */
struct lvx_lv_slave {
    char vgid[33];           /* raw VG UUID (32 characters) */
    char lvid[33];           /* raw LV UUID */
    uint32_t major, minor;   /* the slave */
    const char *kname;       /* its kernel name (sdb, loop3, dm-4) */
    const char *dm_name;     /* a dm device's name (its /dev/mapper entry), else NULL */
};

/* All of them (sysfs under LVX_SYSFS_DIR, default /sys), in pool; *n may be 0. */
void lvx_lv_slaves(struct lvx_pool *pool, struct lvx_lv_slave **out, unsigned *n);

#endif
