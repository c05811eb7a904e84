/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lockd.c - shared VGs: the lock types lvmlockd manages and LVM2's access rule
 * for them (see lockd.h).
 */
#include "meta/lockd.h"

#include <errno.h>
#include <string.h>

#include "config/config.h"

bool lvx_lockd_use(struct lvx_ctx *ctx)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);         /* checked by the dispatcher: default then */
        return false;
    }
    bool use = lvx_config_int(cfg, "global/use_lvmlockd", 0) != 0;
    lvx_config_free(cfg);
    return use;
}

int lvx_lockd_access(struct lvx_ctx *ctx, const struct lvx_vg *vg, bool write)
{
    if (!lvx_vg_is_lockd(vg))
        return 0;
    if (!lvx_lockd_use(ctx))
        return lvx_error(ctx, EPERM, "Cannot access VG %s with lock type %s that requires "
                         "lvmlockd.", vg->name, vg->lock_type);
    if (write)
        return lvx_error(ctx, EAGAIN, "Cannot access VG %s due to failed lock.", vg->name);
    lvx_warn(ctx, "Reading VG %s without a lock.", vg->name);
    return 0;
}
