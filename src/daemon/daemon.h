/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/daemon.h - the lvx daemon ("lvxd"): user-space activation without
 * device-mapper.  One daemon per host serves every active LV as a file of one
 * FUSE mount (<run dir>/vol/<vg>-<lv>, the dm name); a loop device with direct
 * I/O over that file is the LV's block device.  Every FUSE request is mapped
 * through map/ and its pieces (cut at stripe and PV queue-limit boundaries) are
 * submitted together to the PVs with io_uring and O_DIRECT.
 *
 * Processes: a supervisor (holds the pid file lock and the /dev/fuse fd of the
 * mount) and one worker it forks (FUSE threads, control socket, state).  A
 * worker that dies is replaced by the supervisor on the same FUSE connection
 * (requests in flight are resent by the kernel, FUSE_NOTIFY_RESEND), so active
 * LVs, even mounted ones, survive it.  When both die, the next lvx command
 * starts a new daemon which restores the LVs from the state file.
 *
 * Files under the run directory ($LVX_RUN_DIR, default /run/lvx):
 *   control.sock  the control socket (one request line, reply until EOF)
 *   lvxd.pid      supervisor pid (flock'ed while it runs)   lvxd.log  the log
 *   state         the active LVs (restored by a new daemon) vol/      the FUSE mount
 *
 * Control protocol (text, one request per connection; names never contain blanks):
 *   ping                                   -> ok <supervisor pid> <worker pid>
 *   activate VG LV LVUUID FLAGS DEVDIR DEV... -> ok <loop dev> <major> <minor> <file>
 *                                             FLAGS: 1 read-only | 2 partial (extents
 *                                             on missing PVs fail with EIO) | 4 a
 *                                             shared VG's LV lease shared (else
 *                                             exclusive; meta/lockd.h) | 16 a
 *                                             mirror's new regions in sync; DEVDIR:
 *                                             where the client links the LV
 *   deactivate VG LV FORCE                 -> ok
 *   status VG LV                           -> ok active <loop> <maj> <min> <ro> <open> <bytes>
 *                                             [target words] [" monitored"] | ok inactive
 *   monitor VG LV 0|1                      -> ok (a served thin pool or snapshot watched,
 *                                             and extended by lvextend --use-policies as
 *                                             dmeventd does, or no longer; monitor.c)
 *   reload VG LV DEV...                    -> ok (metadata re-read, new size live)
 *   raidreshape VG LV DELTA OFFSET DEV...  -> ok (a reload that starts a raid4/5/6
 *                                             reshape: dm-raid's delta_disks DELTA and
 *                                             data_offset OFFSET; answered once the
 *                                             start is on the legs, the walker running)
 *   rename VG LV NEWVG NEWLV               -> ok <file>
 *   pvcopy VG LV MVLE OFFSET SECTORS FLUSH -> ok (sectors of the pvmove segment at
 *                                             extent MVLE copied leg 0 -> leg 1 against
 *                                             the LV's writes; FLUSH 1: then synced)
 *   rscopy VG LV OFFSET SECTORS FLUSH      -> ok (LV sectors of a restripe copied from
 *                                             the committed layout to the new one
 *                                             against the LV's writes; FLUSH 1: synced)
 *   raidmsg VG LV check|repair             -> ok (the RAID LV's --syncaction, run to
 *                                             its end; the status then counts mismatches)
 *   snapmerge VG LV MAX                    -> ok <left> (one step of the merge of the
 *                                             origin's merging snapshot: up to MAX
 *                                             chunks copied back; <left> records remain)
 *   lease VG LV LVUUID FLAGS DEV...        -> ok new|held (a shared VG's LV that the
 *                                             kernel's device-mapper runs: its sanlock
 *                                             lease held by the worker, nothing served;
 *                                             FLAGS 4: shared; held: it was already)
 *   unlease VG LV                          -> ok (that lease released)
 *   watch VG LV KIND DMNAME DMUUID DEVDIR  -> ok (a monitored thin pool, snapshot,
 *                                             mirror or RAID LV that device-mapper
 *                                             runs, KIND pool|snapshot|mirror|raid:
 *                                             its device DMNAME (a pool's -tpool)
 *                                             watched as monitor's, dm_watch.c)
 *   unwatch VG LV                          -> ok (no longer watched)
 *   watched VG LV                          -> ok 1|0
 *   list                                   -> ok, then "<vg> <lv> <loop> <maj>:<min> <bytes>"
 *   stop FORCE                             -> ok (then the daemon exits; refused while
 *                                             LVs are served or leases held, unless FORCE)
 * Errors: "err <errno> <message>".
 *
 * Security (access.c, docs/design.md): the run directory is 0700 and owned by root
 * (lvx refuses any other), its files 0600; only root (or the daemon's uid) may
 * send requests (SO_PEERCRED) or use the FUSE files (fuse_in_header uid, and the
 * kernel's default_permissions); loop devices are root:disk 0660 like LVM2's nodes.
 *
 * Entry points: lvx_daemon_run_dir(), lvx_daemon_check_run_dir(), lvx_daemon_path(),
 * lvx_daemon_call(), lvx_daemon_alive(), lvx_daemon_start(), lvx_daemon_serve().
 */
#ifndef LVX_DAEMON_DAEMON_H
#define LVX_DAEMON_DAEMON_H

#include <stdbool.h>
#include <stddef.h>

#include "util/buf.h"
#include "util/ctx.h"
#include "util/run_dir.h"

#define LVX_DAEMON_SOCKET "control.sock"
#define LVX_DAEMON_PIDFILE "lvxd.pid"
#define LVX_DAEMON_LOG "lvxd.log"
#define LVX_DAEMON_STATE LVX_RUN_DAEMON_STATE
#define LVX_DAEMON_MOUNT LVX_RUN_DAEMON_MOUNT

/* lvx_run_dir() (util/run_dir.h). */
const char *lvx_daemon_run_dir(void);
/* The run directory is safe (access.c): a directory of root (or this uid), mode 0700,
 * inside directories others cannot change; create: make it (0700) when missing.
 * -EPERM etc. with a one-line error naming it and its mode. */
int lvx_daemon_check_run_dir(struct lvx_ctx *ctx, bool create);
/* <run dir>/<leaf> into out (size n). */
void lvx_daemon_path(char *out, size_t n, const char *leaf);

/* Is a daemon running (its pid file is locked)? */
bool lvx_daemon_alive(void);
/* Does the state file list active LVs (left by a daemon that died)? */
bool lvx_daemon_has_state(void);
/* Start the daemon unless it runs; wait until its control socket answers. */
int lvx_daemon_start(struct lvx_ctx *ctx);
/* Send one request line (no '\n'); reply (without the "ok" word) appended to
 * reply.  start: start the daemon when it is not running.  -ENOTCONN when it is
 * not running and start is false; the daemon's errno and message on "err". */
int lvx_daemon_call(struct lvx_ctx *ctx, const char *request, bool start, struct lvx_buf *reply);

/* Run the daemon in this process (supervisor); returns when it stops (exit code).
 * io: the I/O seam for every PV access (scans, the datapath); NULL = the default. */
struct lvx_dev_ops;
int lvx_daemon_serve(const struct lvx_dev_ops *io);

#endif
