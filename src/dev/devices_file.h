/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/devices_file.h - LVM2's devices file (<system dir>/devices/system.devices): the
 * devices LVM may use, each named by a device ID that survives renames (the loop
 * device's backing file, the disk's WWID or serial, the md or dm UUID, else the device
 * name), with the PVID last seen on it.  This file owns the text (read and written
 * byte for byte as LVM2 2.03 does, VERSION counter included), the device IDs read
 * from sysfs, and matching entries to the devices of a list.  Which file is used, and
 * whether at all, is lvm.conf's business (config/config.h).
 */
#ifndef LVX_DEV_DEVICES_FILE_H
#define LVX_DEV_DEVICES_FILE_H

#include <stdbool.h>

#include "dev/dev.h"
#include "util/ctx.h"
#include "util/pool.h"

struct lvx_df_entry {
    const char *idtype;     /* "loop_file", "sys_wwid", ..., NULL when unknown/"." */
    const char *idname;     /* NULL for "." */
    const char *devname;    /* NULL for "." */
    const char *pvid;       /* 32 characters without dashes, NULL for "." */
    int part;               /* partition number (PART=), 0 for a whole device */
    struct lvx_dev *dev;    /* the device it matched (lvx_devices_file_match), or NULL */
};

struct lvx_devices_file {
    const char *path;
    bool exists;
    char version[64];       /* VERSION= as read ("1.1.7"), "" when none */
    const char *systemid;   /* SYSTEMID= as read, kept when written; NULL when none */
    unsigned count;
    struct lvx_df_entry *entries;
};

/* Read path into df (all in pool).  A missing file is exists = false and no entries
 * (0); an unreadable one -errno with the message recorded. */
int lvx_devices_file_read(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *path,
                          struct lvx_devices_file *df);
/* Replace the file (path_new + rename, mode 0600, directory synced), with LVM2's two
 * comment lines naming cmdname, VERSION raised by one.  A file whose VERSION is not
 * major.minor.counter or has a major above 1 is left alone (LVM2's warning, -EPERM). */
int lvx_devices_file_write(struct lvx_ctx *ctx, struct lvx_devices_file *df,
                           const char *cmdname);
/* An empty file at df->path (and its directory, 0700), as `lvmdevices --adddev` does
 * before its first entry. */
int lvx_devices_file_touch(struct lvx_ctx *ctx, struct lvx_devices_file *df);

/* The ID of type idtype of dev from sysfs (blanks and control characters as '_'), or
 * NULL when the device has none. */
const char *lvx_dev_id_read(struct lvx_pool *pool, const struct lvx_dev *dev, const char *idtype);
/* The ID LVM2 gives a device it adds: dm devices their mpath/crypt/LVM uuid, loop
 * devices their backing file, md devices their uuid, else the WWID, the serial, the
 * name.  *part: the partition number (0 for a whole device). */
void lvx_dev_id_choose(struct lvx_pool *pool, const struct lvx_dev *dev, const char **idtype,
                       const char **idname, int *part);

/* Set entries[i].dev to the device of devs each entry names (NULL when none). */
void lvx_devices_file_match(struct lvx_pool *pool, struct lvx_devices_file *df,
                            const struct lvx_devlist *devs);
/* The entry matched to dev, of pvid (32 characters), of devname; NULL when none. */
struct lvx_df_entry *lvx_devices_file_for_dev(struct lvx_devices_file *df,
                                              const struct lvx_dev *dev);
struct lvx_df_entry *lvx_devices_file_for_pvid(struct lvx_devices_file *df, const char *pvid);
struct lvx_df_entry *lvx_devices_file_for_devname(struct lvx_devices_file *df,
                                                  const char *devname);
/* Add dev (pvid may be NULL) as LVM2's device_id_add does: an entry already matched to
 * the device or unmatched with its ID is taken out and the new one goes to the end.
 * idtype: the ID type asked for (--deviceidtype), NULL for LVM2's choice; *why gets
 * LVM2's warning when it cannot be used (else NULL).  Returns the new entry. */
struct lvx_df_entry *lvx_devices_file_add(struct lvx_pool *pool, struct lvx_devices_file *df,
                                          struct lvx_dev *dev, const char *pvid,
                                          const char *idtype, const char **why);
void lvx_devices_file_remove(struct lvx_devices_file *df, struct lvx_df_entry *e);
/* The warning LVM2 prints for an entry no device matched. */
const char *lvx_devices_file_not_found(struct lvx_pool *pool, const struct lvx_df_entry *e);

#endif
