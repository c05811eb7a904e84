/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/run_dir.h - where lvx keeps its run-time files: $LVX_RUN_DIR, or /run/lvx.  The
 * daemon's socket, state file and FUSE mount (daemon/), the device index (meta/index.c),
 * pvscan's online records (cmd/pvscan.c) and the LV-device probe (dev/lv_dev.c) all live
 * there; this is the one place that knows the variable and the default.
 */
#ifndef LVX_UTIL_RUN_DIR_H
#define LVX_UTIL_RUN_DIR_H

#define LVX_RUN_DIR_DEFAULT "/run/lvx"
#define LVX_RUN_DAEMON_STATE "state"   /* the daemon's list of active LVs */
#define LVX_RUN_DAEMON_MOUNT "vol"     /* the daemon's FUSE mount, a file per LV */

/* $LVX_RUN_DIR when set and non-empty, else LVX_RUN_DIR_DEFAULT. */
const char *lvx_run_dir(void);

#endif
