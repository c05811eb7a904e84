/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/ctx.c - error recording and logging for struct lvx_ctx (see ctx.h).
 */
#include "util/ctx.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>

void lvx_ctx_init(struct lvx_ctx *ctx)
{
    memset(ctx, 0, sizeof(*ctx));
    ctx->log_level = LVX_LOG_NOTICE;
}

int lvx_verror(struct lvx_ctx *ctx, int err, const char *fmt, va_list ap)
{
    if (err < 0)
        err = -err;
    if (err == 0)
        err = EINVAL;
    /* formatted apart first: a message may quote the one it replaces (ctx->errmsg as an
     * argument), which vsnprintf into the same buffer would overwrite while reading it */
    char msg[sizeof(ctx->errmsg)];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    memcpy(ctx->errmsg, msg, sizeof(msg));
    /* keep it one line */
    for (char *p = ctx->errmsg; *p; p++)
        if (*p == '\n')
            *p = ' ';
    ctx->err = -err;
    return -err;
}

int lvx_error(struct lvx_ctx *ctx, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = lvx_verror(ctx, err, fmt, ap);
    va_end(ap);
    return r;
}

void lvx_error_clear(struct lvx_ctx *ctx)
{
    ctx->err = 0;
    ctx->errmsg[0] = '\0';
}

void lvx_log(struct lvx_ctx *ctx, int level, const char *fmt, ...)
{
    if (level == LVX_LOG_WARN)
        ctx->warnings++;
    if (!ctx->log_fn || level > ctx->log_level)
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    ctx->log_fn(ctx->log_arg, level, msg);
}
