/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/lv_dev.h - is a block device an active LV (LVM2's devices/scan_lvs)?  In the
 * kernel backend an LV is a device-mapper device whose DM UUID starts "LVM-"; in the
 * user-space backend it is a loop device bound to a file of the lvx daemon's FUSE
 * mount (<run dir>/vol/<dm name>, the run dir $LVX_RUN_DIR or /run/lvx).  Also the
 * other names LVM2's filters match such a device by: $DM_DEV_DIR/mapper/<dm name> and
 * $DM_DEV_DIR/<vg>/<lv>.
 *
 * Cheap by design (the system list calls it per device): a probe made once per list
 * knows device-mapper's major (/proc/devices) and whether the daemon has active LVs;
 * a device of another major costs nothing, a dm device (or a loop device while the
 * daemon serves LVs) one sysfs read.
 *
 * Entry points: lvx_lvdev_probe_init(), lvx_lvdev_is_lv(), lvx_lvdev_dm_name(),
 * lvx_lvdev_aliases(), lvx_lvdev_drop_own_opens(), lvx_lvdev_read_line(),
 * lvx_lvdev_has_holders(), lvx_lvdev_used_by_lv().
 */
#ifndef LVX_DEV_LV_DEV_H
#define LVX_DEV_LV_DEV_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/pool.h"

struct lvx_lvdev_probe {
    int dm_major;                 /* device-mapper's major, -1 when it has none */
    bool have_vols;               /* the daemon has active LVs (its state file) */
    char vol_dir[PATH_MAX];       /* <run dir>/vol */
};

void lvx_lvdev_probe_init(struct lvx_lvdev_probe *p);
/* The first line of a (sysfs) file into out, newline cut; false when unreadable. */
bool lvx_lvdev_read_line(const char *path, char *out, size_t n);
/* Is maj:min an active LV?  When it is and dm_name is not NULL, its dm name
 * ("vg-lv", dashes doubled) is copied there (n bytes). */
bool lvx_lvdev_is_lv(const struct lvx_lvdev_probe *p, uint32_t maj, uint32_t min,
                     char *dm_name, size_t n);
/* The dm name of device-mapper device maj:min (sysfs dm/name) into name (n bytes);
 * false for a device of another major or when it is unreadable. */
bool lvx_lvdev_dm_name(const struct lvx_lvdev_probe *p, uint32_t maj, uint32_t min,
                       char *name, size_t n);
/* Is dm device maj:min one of an LV's private layers: a DM UUID "LVM-" followed by
 * more than the VG's and LV's 64 characters (a layer suffix: -tpool, -tdata, -pool,
 * -real, -cow, ...)?  LVM2's "Reserved uuid ... not usable". */
bool lvx_lvdev_layer(const struct lvx_lvdev_probe *p, uint32_t maj, uint32_t min);
/* The LV's other names for the filters: out[0] = $DM_DEV_DIR/mapper/<dm name>,
 * out[1] = $DM_DEV_DIR/<vg>/<lv> (NULL when the name does not split); in pool. */
void lvx_lvdev_aliases(struct lvx_pool *pool, const char *dm_name, const char *out[2]);

/* This process's own file descriptors open on block device maj:min (a scan with
 * scan_lvs 1 keeps an LV it read as a PV open) are pointed at /dev/null, so that the
 * kernel no longer counts them before the LV is deactivated, as LVM2 closes an LV's
 * device first; the descriptors stay valid for their owners' close().  Returns how
 * many. */
unsigned lvx_lvdev_drop_own_opens(uint32_t maj, uint32_t min);

/* Does the kernel list holders of maj:min (/sys/dev/block/MAJ:MIN/holders/: a dm
 * table maps onto it, e.g. an LV of a VG stacked on this LV)? */
bool lvx_lvdev_has_holders(uint32_t maj, uint32_t min);
/* Is one of those holders an active LV (a dm device with an "LVM-" UUID)? */
bool lvx_lvdev_used_by_lv(uint32_t maj, uint32_t min);

#endif
