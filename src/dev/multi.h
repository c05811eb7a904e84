/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/multi.h - operations on many devices at once, run in parallel through the I/O
 * seam (util/parallel.h): what makes commands touching hundreds of PVs (pvcreate,
 * vgcreate, label rewrites) cost about as much as touching a few.
 */
#ifndef LVX_DEV_MULTI_H
#define LVX_DEV_MULTI_H

#include "dev/dev.h"

/* Flush (fdatasync) every open device of the list, in parallel; a device listed twice
 * is flushed once.  0, or the error of the first failing device (in list order) with
 * lvx_dev_flush()'s message. */
int lvx_dev_flush_many(struct lvx_ctx *ctx, struct lvx_dev **devs, unsigned count);

#endif
