/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/version.c - `lvx version` (also `--version`): the lvx version and the
 * LVM2 metadata format it reads and writes.
 */
#include "cmd/commands.h"
#include "util/version.h"

int lvx_cmd_version(struct lvx_cmd_env *env)
{
    struct lvx_buf b = LVX_BUF_INIT;
    (void)env;
    lvx_buf_puts(&b, "  lvx version:     " LVX_VERSION "\n");
    lvx_buf_puts(&b, "  Metadata format: lvm2 (text metadata, LVM2 2.03 compatible)\n");
    int rc = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    return rc;
}
