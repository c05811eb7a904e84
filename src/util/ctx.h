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
    LVX_LOG_ERROR = 3,
    LVX_LOG_WARN = 4,
    LVX_LOG_NOTICE = 5,  /* normal informative output of a command ("Logical volume created") */
    LVX_LOG_INFO = 6,    /* -v */
    LVX_LOG_DEBUG = 7,   /* -vv and more */
};

typedef void (*lvx_log_fn)(void *arg, int level, const char *msg);

struct lvx_dev_ops;      /* dev/io.h: the I/O seam */

struct lvx_ctx {
    int err;                 /* negative errno of the last failure, 0 if none */
    char errmsg[1024];       /* one line, no trailing newline */
    lvx_log_fn log_fn;       /* NULL: messages are dropped */
    void *log_arg;
    int log_level;           /* messages above this level are dropped (default NOTICE) */
    const struct lvx_dev_ops *io;  /* every device read/write goes through here */
    unsigned warnings;       /* number of warnings logged so far */
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
