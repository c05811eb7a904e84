/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/version.c - `lvx version` (also `--version`, `lvm version`): LVM2's lines, so that
 * programs reading them (libblockdev looks for "LVM version: X.Y.Z") work, with lvx's
 * own version stated on each: the LVM2 release lvx follows, the library, the kernel's
 * device-mapper driver when there is one, and what this lvx reads, writes and activates.
 */
#include "cmd/commands.h"
#include "util/version.h"

#include "dev/dm_ioctl.h"

int lvx_cmd_version(struct lvx_cmd_env *env)
{
    struct lvx_buf b = LVX_BUF_INIT;
    struct lvx_ctx quiet;
    struct lvx_dm dm;

    lvx_buf_puts(&b, "  LVM version:     " LVX_LVM2_VERSION " (" LVX_LVM2_DATE ") (lvx " LVX_VERSION
                     ")\n");
    lvx_buf_puts(&b, "  Library version: liblvx " LVX_VERSION "\n");
    lvx_ctx_init(&quiet);
    quiet.io = env->ctx->io;
    if (lvx_dm_open(&quiet, &dm) == 0) {
        lvx_buf_printf(&b, "  Driver version:  %u.%u.%u\n", dm.version[0], dm.version[1],
                       dm.version[2]);
        lvx_dm_close(&dm);
    }
    lvx_buf_puts(&b, "  Configuration:   lvx " LVX_VERSION ": LVM2 text metadata, activation through "
                     "device-mapper or the lvx daemon\n");
    lvx_buf_puts(&b, "  lvx version:     " LVX_VERSION "\n");
    lvx_buf_puts(&b, "  Metadata format: lvm2 (text metadata, LVM2 2.03 compatible)\n");
    int rc = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    return rc;
}
