/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/dm_ioctl.h - the kernel device-mapper, spoken directly through the
 * ioctls of /dev/mapper/control (linux/dm-ioctl.h, interface version 4).
 *
 * Why not libdevmapper: it would be one more shared-library dependency for a
 * small surface (a dozen ioctls with a fixed header and a packed payload), and
 * its udev-cookie machinery does not apply to the programs lvx runs in (the test
 * guests have no udev).  Everything here is the documented kernel ABI.
 *
 * Devices are named by their DM name.  Functions return 0 or a negative errno
 * with a one-line message in ctx naming the device and the operation.
 *
 * Entry points: lvx_dm_open(), lvx_dm_close(), lvx_dm_create(), lvx_dm_load(),
 * lvx_dm_suspend(), lvx_dm_suspend_noflush(), lvx_dm_resume(), lvx_dm_clear(),
 * lvx_dm_remove(), lvx_dm_rename(), lvx_dm_info(), lvx_dm_table(), lvx_dm_list(), lvx_dm_arm_poll().
 */
#ifndef LVX_DEV_DM_IOCTL_H
#define LVX_DEV_DM_IOCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"
#include "util/ctx.h"
#include "util/pool.h"

/* An open control device. */
struct lvx_dm {
    int fd;
    uint32_t version[3];     /* the kernel's DM interface version (DM_VERSION) */
};

/* What DEV_STATUS says about a device. */
struct lvx_dm_info {
    bool exists;
    uint32_t major, minor;
    int32_t open_count;
    uint32_t target_count;
    uint32_t event_nr;
    bool suspended;
    bool read_only;
    bool live_table;         /* DM_ACTIVE_PRESENT_FLAG */
    bool inactive_table;     /* DM_INACTIVE_PRESENT_FLAG */
    char name[128];
    char uuid[129];
};

/* Open the control node (creating /dev/mapper/control from /proc/misc when it is
 * missing) and ask DM_VERSION.  -ENODEV (message says why) when the kernel has no
 * device-mapper. */
int lvx_dm_open(struct lvx_ctx *ctx, struct lvx_dm *dm);
void lvx_dm_close(struct lvx_dm *dm);

/* DEV_CREATE: a device without a table.  uuid may be NULL.  fixed_major/minor != 0
 * asks for that device number (DM_PERSISTENT_DEV_FLAG).  out may be NULL. */
int lvx_dm_create(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, const char *uuid,
                  uint32_t fixed_major, uint32_t fixed_minor, struct lvx_dm_info *out);
/* TABLE_LOAD into the inactive slot.  table: lines "<start> <len> <target> <args>".
 * read_only sets DM_READONLY_FLAG. */
int lvx_dm_load(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, const char *table,
                bool read_only);
/* DEV_SUSPEND with DM_SUSPEND_FLAG (I/O is flushed and held). */
int lvx_dm_suspend(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name);
/* ... with DM_NOFLUSH_FLAG: I/O in flight is not waited for but handed back to dm,
 * which issues it to the table live after the resume (dm-mirror's writes held since a
 * leg failed: LVM2 suspends mirrors so). */
int lvx_dm_suspend_noflush(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name);
/* DEV_SUSPEND without the flag: a loaded inactive table becomes live, held I/O
 * continues.  out (may be NULL) gets the device number. */
int lvx_dm_resume(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                  struct lvx_dm_info *out);
/* TABLE_CLEAR: drop the inactive table. */
int lvx_dm_clear(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name);
/* DEV_REMOVE.  deferred: DM_DEFERRED_REMOVE (removed at last close when open). */
int lvx_dm_remove(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, bool deferred);
/* DEV_RENAME to new_name. */
int lvx_dm_rename(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                  const char *new_name);
/* TARGET_MSG: message to the target at sector of name ("create_thin 1" for dm-thin-pool,
 * "check", "repair", "idle" for dm-raid at sector 0). */
int lvx_dm_message(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, uint64_t sector,
                   const char *message);
/* DEV_STATUS.  A device that does not exist is 0 with out->exists false. */
int lvx_dm_info(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                struct lvx_dm_info *out);
/* TABLE_STATUS: the live table (status false: with DM_STATUS_TABLE_FLAG, the
 * "dmsetup table" lines) or the targets' status lines, appended to out. */
int lvx_dm_table(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, bool status,
                 struct lvx_buf *out);
/* The targets' status lines as lvx_dm_table(status true), with DM_NOFLUSH_FLAG: a thin
 * pool or cache does not commit its metadata for it (what LVM2's reports ask). */
int lvx_dm_status_noflush(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                          struct lvx_buf *out);
/* LIST_DEVICES: names of all DM devices (array and strings in pool). */
int lvx_dm_list(struct lvx_ctx *ctx, struct lvx_dm *dm, struct lvx_pool *pool,
                const char ***names, unsigned *count);

/* DEV_ARM_POLL (interface 4.37, Linux 4.13): poll() on dm->fd says POLLIN once any
 * device-mapper event (a target's, or a device created, resumed, renamed, removed)
 * happened after this call.  -ENOTSUP (no message) where the kernel lacks it. */
int lvx_dm_arm_poll(struct lvx_ctx *ctx, struct lvx_dm *dm);

/* Test seam: LVX_TEST_DM_FAIL=<op> makes the next call of that operation ("create",
 * "load", "resume", "suspend", "rename", "message") fail with EIO before reaching the kernel.
 * Returns the value of the variable checked against op. */
bool lvx_dm_test_fail(const char *op);

#endif
