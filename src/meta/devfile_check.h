/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/devfile_check.h - the devices file's PVIDs checked against what a scan read, as
 * LVM2 validates them after its label scan: an entry whose device now carries another
 * PV (or none) is warned about and, unless the command only tests, corrected in the
 * file (rewritten under LVM2's lock, naming the command).
 */
#ifndef LVX_META_DEVFILE_CHECK_H
#define LVX_META_DEVFILE_CHECK_H

#include "meta/scan.h"
#include "util/ctx.h"

/* Once per command, after a system scan that used the devices file
 * (ctx->devices_file_used) and when ctx->devices_file_check asks for it.  Failures are
 * warnings; the scan is not changed. */
void lvx_devfile_check_scan(struct lvx_ctx *ctx, const struct lvx_scan *scan);

#endif
