/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/daemon_lease.c - the lease requests of the `dm` backend to the lvx daemon
 * and the device words of every daemon request (see daemon_lease.h).
 */
#include "activate/daemon_lease.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon.h"
#include "meta/lockd.h"

int lvx_daemon_device_words(struct lvx_ctx *ctx, const struct lvx_vg *vg, struct lvx_buf *out)
{
    for (unsigned i = 0; i < vg->pv_count; i++) {
        const struct lvx_pv *pv = vg->pvs[i];
        if (!pv->ondisk.present || !pv->ondisk.dev_name)
            continue;
        char abs[PATH_MAX];
        const char *name = pv->ondisk.dev_name;
        if (name[0] != '/' && realpath(name, abs))
            name = abs;
        if (strpbrk(name, " \t\n"))
            return lvx_error(ctx, EINVAL, "Device name \"%s\" contains blanks.", name);
        lvx_buf_printf(out, " %s", name);
    }
    return 0;
}

bool lvx_dm_lease_needed(const struct lvx_lv *lv)
{
    return lvx_vg_is_lockd(lv->vg) && lvx_lockd_lease_owner(lv) != NULL;
}

int lvx_dm_lease_take(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool shared, bool *taken)
{
    struct lvx_buf req = LVX_BUF_INIT, reply = LVX_BUF_INIT;
    *taken = false;
    lvx_buf_printf(&req, "lease %s %s %s %d", lv->vg->name, lv->name, lv->uuid, shared ? 4 : 0);
    int rc = lvx_daemon_device_words(ctx, lv->vg, &req);
    if (rc == 0)
        rc = lvx_daemon_call(ctx, lvx_buf_str(&req), true, &reply);
    if (rc == 0)
        *taken = strncmp(lvx_buf_str(&reply), "new", 3) == 0;
    lvx_buf_free(&req);
    lvx_buf_free(&reply);
    return rc;
}

int lvx_dm_lease_drop(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    char req[512];
    snprintf(req, sizeof(req), "unlease %s %s", lv->vg->name, lv->name);
    int rc = lvx_daemon_call(ctx, req, false, NULL);
    if (rc == -ENOTCONN) {     /* no daemon: no lease held */
        lvx_error_clear(ctx);
        rc = 0;
    }
    return rc;
}
