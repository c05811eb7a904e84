/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/devfile_cmd.h - the devices file as lvmdevices and vgimportdevices open it
 * (implemented in cmd/lvmdevices.c): the file lvm.conf or --devicesfile names, under
 * LVM2's lock, read and matched to the system's devices, LVM2's warnings printed.
 */
#ifndef LVX_CMD_DEVFILE_CMD_H
#define LVX_CMD_DEVFILE_CMD_H

#include <stdbool.h>

#include "cmd/commands.h"
#include "dev/devices_file.h"
#include "meta/lock.h"

struct lvx_config;

struct lvx_cmd_devfile {
    struct lvx_devices_file df;   /* in env->pool */
    struct lvx_lock lock;
    struct lvx_config *cfg;
    struct lvx_pool *devpool;     /* the system's devices */
    struct lvx_devlist devs;
    bool filters_said;
};

/* modify: exclusive lock, and the file is created when missing (else "Devices file
 * does not exist.").  0, or an exit code after LVM2's message.  Close it in any case. */
int lvx_cmd_devfile_open(struct lvx_cmd_env *env, bool modify, struct lvx_cmd_devfile *f);
void lvx_cmd_devfile_close(struct lvx_cmd_devfile *f);
/* LVM2's "Please remove the lvm.conf (global_)filter" lines, once. */
void lvx_cmd_devfile_filter_warnings(struct lvx_cmd_env *env, struct lvx_cmd_devfile *f);

/* After pvcreate (add: each device with its new PVID) or pvremove (!add: the PVID of its
 * entry cleared), when a devices file is in use: the file updated as LVM2 updates it,
 * naming the command; pvcreate and vgcreate create a missing one ("Creating devices
 * file") unless scan (the command's, before the change; NULL: a system scan is made)
 * found a VG, as LVM2.  pvs (vgcreate/vgextend, else NULL): each PV joining a VG gets the
 * device ID of its entry (device_id_type, device_id in the metadata).  Image files are
 * left out.  Failures are warnings. */
struct lvx_pv;
struct lvx_scan;
void lvx_cmd_devfile_note(struct lvx_cmd_env *env, struct lvx_dev **devs, const char *const *pvids,
                          unsigned count, bool add, struct lvx_pv **pvs,
                          const struct lvx_scan *scan);

#endif
