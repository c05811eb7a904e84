/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/privdir.h - is a directory private to root (or to this uid)?  For the
 * run directory that holds the device index and the lvx daemon's files: a real
 * directory (no symlink) owned by root or this uid, no group or other permission
 * bits (0700), inside directories that only root or this uid can change (a
 * sticky directory such as /tmp is fine); LVX_PRIVDIR_ENTERABLE only asks that
 * nobody else can change it (files kept there are 0600).  Failures are one line
 * naming the directory and its mode.
 *
 * Entry point: lvx_privdir_check().
 */
#ifndef LVX_UTIL_PRIVDIR_H
#define LVX_UTIL_PRIVDIR_H

#include "util/ctx.h"

#define LVX_PRIVDIR_CREATE 1u       /* mkdir 0700 when missing (else missing is fine: 0) */
#define LVX_PRIVDIR_ENTERABLE 2u    /* others may read and enter it, not change it */

/* what: how the message names it ("lvx run directory").  0 or -errno (lvx_error). */
int lvx_privdir_check(struct lvx_ctx *ctx, const char *what, const char *dir, unsigned flags);

#endif
