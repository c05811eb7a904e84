/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lvx.h - the public C API of liblvx (link with `pkg-config --cflags --libs lvx`).
 *
 * liblvx manages LVM2 volume groups (LVM2's on-disk format, byte for byte).  It offers
 * two levels, both working on a handle (lvx_handle) made by lvx_init():
 *
 *  1. Command entry, like LVM2's lvm2cmd: lvx_run(h, "vgs --noheadings vg1") runs one
 *     lvx command line in-process (the same commands and options as the lvx binary).
 *     Everything the command prints - report lines, messages, errors - is delivered
 *     through the handle's log callback, one line per call, without the trailing
 *     newline; nothing is written to stdout/stderr.
 *
 *  2. Objects: open a VG (lvx_vg_open), read its properties and its PVs and LVs,
 *     create / extend / remove an LV.  These calls return 0 or a negative errno and
 *     leave a one-line message in lvx_errmsg(h); they never print and never exit.
 *
 * A handle keeps a cache of the device scan between calls; it is revalidated before
 * each command (metadata area headers re-read under the VG lock), so changes made
 * meanwhile by other processes (lvx or LVM2) are seen and never overwritten.
 *
 * Threads: a handle must not be used by two threads at once.  Different handles may be
 * used by different threads at the same time: their commands run concurrently and
 * take the same VG and global locks as separate processes do.
 *
 * Configuration: lvm.conf from $LVM_SYSTEM_DIR (default /etc/lvm), plus an override
 * given with lvx_config_override() (same syntax as --config).
 */
#ifndef LVX_PUBLIC_H
#define LVX_PUBLIC_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- handles ------------------------------------------------------------------- */

typedef struct lvx_handle lvx_handle;          /* a library session */
typedef struct lvx_vg_handle lvx_vg_handle;    /* an opened volume group */

/* A new handle (never NULL: out of memory aborts).  Free with lvx_exit(). */
lvx_handle *lvx_init(void);
/* Free the handle (open VG handles must be closed first). */
void lvx_exit(lvx_handle *h);
/* The library version, as "0.1.0" (src/util/version.h). */
const char *lvx_version(void);

/* ---- messages -------------------------------------------------------------------- */

/* Message levels (syslog-like, as lvm2cmd's). */
#define LVX_MSG_OUTPUT 0    /* a line of command output (report row, display block line) */
#define LVX_MSG_ERROR  3    /* an error ("Volume group "x" not found") */
#define LVX_MSG_WARN   4    /* a warning */
#define LVX_MSG_NOTICE 5    /* an informative message ("Logical volume "lv1" created.") */
#define LVX_MSG_INFO   6    /* verbose (-v) */
#define LVX_MSG_DEBUG  7    /* debug (-vv) */

/* lvm2cmd-style callback: file and line are always NULL / 0 and dm_errno 0 (kept for
 * source compatibility with lvm2_log_fn callbacks).  message has no trailing newline and
 * no indentation. */
typedef void (*lvx_log_fn_t)(int level, const char *file, int line, int dm_errno,
                             const char *message);
/* The same with a user pointer. */
typedef void (*lvx_log_user_fn_t)(void *user, int level, const char *message);

/* Set the callback receiving every line (NULL: lines are dropped; errors are still
 * kept for lvx_errmsg()).  Setting one kind replaces the other. */
void lvx_log_fn(lvx_handle *h, lvx_log_fn_t fn);
void lvx_log_fn_user(lvx_handle *h, lvx_log_user_fn_t fn, void *user);
/* Deliver messages up to this level (default LVX_MSG_NOTICE; LVX_MSG_DEBUG for all).
 * Output lines and errors are always delivered. */
void lvx_log_level(lvx_handle *h, int level);

/* The last error message of the last call on h ("" when it succeeded), and its negative
 * errno (0 when it succeeded).  Valid until the next call on h. */
const char *lvx_errmsg(const lvx_handle *h);
int lvx_errno(const lvx_handle *h);

/* Configuration override, lvm.conf syntax, as `--config` ("devices { filter = [...] }"
 * or "devices/filter = [...]"); used by every later call on h (a command's own --config
 * takes precedence).  NULL removes it.  0 or -EINVAL if the text does not parse or holds
 * no setting (an empty text, as LVM2's --config). */
int lvx_config_override(lvx_handle *h, const char *text);

/* ---- level 1: command lines ------------------------------------------------------ */

/* Return values of lvx_run (LVM2's lvm2_run values). */
#define LVX_ECMD_PROCESSED    1   /* success */
#define LVX_ENO_SUCH_CMD      2   /* unknown command */
#define LVX_EINVALID_CMD_LINE 3   /* bad options/arguments, or unbalanced quotes */
#define LVX_EINIT_FAILED      4   /* lvm.conf cannot be loaded (does not parse, not a file) */
#define LVX_ECMD_FAILED       5   /* the command failed */

/* Run one command line, split as a shell would (blanks separate words; '...', "..." and
 * backslashes quote), e.g. "lvcreate -an -Zn -n lv1 -L 8m vg1".  A leading "lvx" is
 * accepted.  Returns LVX_ECMD_PROCESSED on success, else one of the values above (the
 * message is in lvx_errmsg(h) and was sent to the log callback). */
int lvx_run(lvx_handle *h, const char *cmdline);
/* The same with the words already split (argv[0] = the command name). */
int lvx_run_argv(lvx_handle *h, int argc, const char *const *argv);

/* ---- level 2: objects ------------------------------------------------------------ */

/* Open a VG.  mode "r" (read-only: listing) or "w" (also create/extend/remove LVs).
 * No lock is held between calls: each change locks the VG, re-reads it and commits, so
 * it always applies to the current metadata.  NULL on failure (lvx_errmsg(h); errno
 * ENOENT when the VG does not exist, EINVAL for a bad mode, EPERM when "w" is asked for
 * a read-only or exported VG). */
lvx_vg_handle *lvx_vg_open(lvx_handle *h, const char *vgname, const char *mode);
void lvx_vg_close(lvx_vg_handle *vg);
/* Re-read the VG (properties and lists change after a change made by anybody). */
int lvx_vg_refresh(lvx_vg_handle *vg);

struct lvx_vg_info {
    const char *name;
    const char *uuid;          /* dashed form */
    const char *attr;          /* vg_attr, "wz--n-" */
    uint64_t size;             /* bytes */
    uint64_t free;             /* bytes */
    uint64_t extent_size;      /* bytes */
    uint64_t extent_count;
    uint64_t free_count;
    uint64_t pv_count;
    uint64_t lv_count;
    uint64_t seqno;
};

struct lvx_pv_info {
    const char *name;          /* device path, "[unknown]" when missing */
    const char *uuid;
    const char *vg_name;
    const char *attr;          /* pv_attr, "a--" */
    uint64_t size;             /* bytes */
    uint64_t free;             /* bytes */
    uint64_t pe_count;
    uint64_t pe_alloc_count;
};

struct lvx_lv_info {
    const char *name;
    const char *uuid;
    const char *vg_name;
    const char *attr;          /* lv_attr, "-wi-------" */
    const char *path;          /* "/dev/vg/lv" */
    uint64_t size;             /* bytes */
};

/* Properties and lists as of the last open/refresh/change; the pointers stay valid
 * until the next call on vg (or lvx_vg_close).  0 or a negative errno. */
int lvx_vg_get_info(lvx_vg_handle *vg, const struct lvx_vg_info **info);
int lvx_vg_list_pvs(lvx_vg_handle *vg, const struct lvx_pv_info **pvs, unsigned *count);
int lvx_vg_list_lvs(lvx_vg_handle *vg, const struct lvx_lv_info **lvs, unsigned *count);

/* Create a linear LV of size bytes (rounded up to extents), not activated, not zeroed.
 * 0, or -EEXIST (name taken), -ENOSPC (not enough free extents), -EPERM (VG opened "r"),
 * -EINVAL (bad name or size), -EIO (other failure). */
int lvx_lv_create_linear(lvx_vg_handle *vg, const char *lvname, uint64_t size);
/* Grow an LV to new_size bytes (must be larger than the current size). */
int lvx_lv_extend(lvx_vg_handle *vg, const char *lvname, uint64_t new_size);
/* Remove an (inactive) LV.  -ENOENT when it does not exist. */
int lvx_lv_remove(lvx_vg_handle *vg, const char *lvname);
/* Activate / deactivate an LV (lvchange -ay / -an): -ENOTSUP when activation is not
 * available (no backend in this build, or lvm.conf global/activation = 0). */
int lvx_lv_activate(lvx_vg_handle *vg, const char *lvname);
int lvx_lv_deactivate(lvx_vg_handle *vg, const char *lvname);

#ifdef __cplusplus
}
#endif

#endif
