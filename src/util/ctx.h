/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/ctx.h - the per-caller context of liblvx: error message, log sink, I/O seam.
 *
 * Every library call takes a struct lvx_ctx.  The library never prints and never
 * exits (except abort() on out-of-memory, see pool.h): a failing call records one
 * message with lvx_error() and returns a negative errno; warnings and verbose
 * messages go to the log callback, which the command layer points at stderr.
 */
#ifndef LVX_UTIL_CTX_H
#define LVX_UTIL_CTX_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Log levels, syslog-like (as lvm2_log_fn levels). */
enum lvx_log_level {
    LVX_LOG_ERROR_RAW = 2,  /* an error line printed as is, not indented (getopt-style usage
                             * errors, the command list); sinks may treat it as ERROR */
    LVX_LOG_ERROR = 3,
    LVX_LOG_WARN = 4,
    LVX_LOG_NOTICE = 5,  /* normal informative output of a command ("Logical volume created") */
    LVX_LOG_INFO = 6,    /* -v */
    LVX_LOG_DEBUG = 7,   /* -vv and more */
};

typedef void (*lvx_log_cb)(void *arg, int level, const char *msg);
/* Output of the command layer (report text, display blocks, prompts): raw bytes. */
typedef void (*lvx_out_cb)(void *arg, const char *data, size_t len);

struct lvx_dev_ops;      /* dev/io.h: the I/O seam */
struct lvx_cache;        /* meta/cache.h: scan cache of a shell/library session */

struct lvx_ctx {
    int err;                 /* negative errno of the last failure, 0 if none */
    char errmsg[1024];       /* one line, no trailing newline */
    lvx_log_cb log_fn;       /* NULL: messages are dropped */
    void *log_arg;
    lvx_out_cb out_fn;       /* command output; NULL: stdout (cmd/common.c) */
    void *out_arg;
    /* Yes/no prompts of commands; NULL: ask on stdout, read stdin (cmd/common.c). */
    bool (*ask_fn)(void *arg, const char *question);
    void *ask_arg;
    const char *config_override;   /* --config text merged over lvm.conf (config/config.c) */
    const char *config_profile;    /* text of a --commandprofile/--profile file, merged
                                    * between lvm.conf and config_override */
    const char *devices_file;      /* --devicesfile NAME ("" = none); NULL when not given
                                    * (config/config.c: lvx_config_devices_file) */
    /* devices named by vgcreate/vgextend: used even when the devices file does not list
     * them (as LVM2) */
    const char *const *devices_also;
    unsigned devices_also_count;
    bool devices_file_said;        /* the devices file warnings of this command are out */
    bool devices_file_used;        /* a system scan of this command used the devices file */
    bool devices_file_checked;     /* its PVIDs were checked (meta/devfile_check.c) */
    int devices_file_check;        /* LVX_DFCHECK_*: what that check does (the dispatcher
                                    * sets it per command; library callers: off) */
    const char *command_name;      /* the command running ("pvs"), named in files lvx writes */
    bool system_id_said;           /* the system ID warnings of this command are out
                                    * (meta/systemid.c) */
    bool foreign_said;             /* its foreign VGs were said to be inaccessible */
    bool name_clash_said;          /* its VGs sharing a name were warned about
                                    * (meta/assemble.c) */
    bool pv_min_size_said;         /* the devices/pv_min_size warning of this command is out */
    int backup_unsaved;            /* LVM2's "NOT backed up" warning (backup/backup = 0):
                                    * 1 due, 2 printed (once per command, meta/update.c) */
    struct lvx_cache *cache; /* kept between commands by a session, or NULL (meta/cache.h) */
    int log_level;           /* messages above this level are dropped (default NOTICE) */
    const struct lvx_dev_ops *io;  /* every device read/write goes through here; NULL:
                                    * the default seam (lvx_io() in dev/io.h) */
    unsigned warnings;       /* number of warnings logged so far */
    int lock_mode;           /* LVX_LOCK_MODE_*: --nolocking/--readonly, --ignorelockingfailure */
};

/* The devices file check after a scan (meta/devfile_check.h). */
enum {
    LVX_DFCHECK_OFF = 0,            /* not done (lvmdevices, vgimportdevices: their own) */
    LVX_DFCHECK_WARN,               /* stale PVIDs warned about, the file kept (--test) */
    LVX_DFCHECK_FIX,                /* warned about and corrected in the file, as LVM2 */
};

/* How meta/lock.c takes VG and global locks for a command. */
enum {
    LVX_LOCK_MODE_NORMAL = 0,
    LVX_LOCK_MODE_NONE,             /* --nolocking, --readonly: no lock is taken */
    LVX_LOCK_MODE_IGNORE_FAILURE,   /* --ignorelockingfailure: a lock that cannot be taken
                                     * is a warning, the command goes on without it */
};

void lvx_ctx_init(struct lvx_ctx *ctx);

/* Record an error and return -|err| (err is an errno value such as EINVAL). */
int lvx_error(struct lvx_ctx *ctx, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int lvx_verror(struct lvx_ctx *ctx, int err, const char *fmt, va_list ap);
/* Clear the recorded error. */
void lvx_error_clear(struct lvx_ctx *ctx);

void lvx_log(struct lvx_ctx *ctx, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define lvx_warn(ctx, ...)   lvx_log((ctx), LVX_LOG_WARN, __VA_ARGS__)
#define lvx_notice(ctx, ...) lvx_log((ctx), LVX_LOG_NOTICE, __VA_ARGS__)
#define lvx_info(ctx, ...)   lvx_log((ctx), LVX_LOG_INFO, __VA_ARGS__)
#define lvx_debug(ctx, ...)  lvx_log((ctx), LVX_LOG_DEBUG, __VA_ARGS__)

#endif
