/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/devfile_check.c - after a scan: the PVID each devices file entry records against
 * the PV label the scan found on its device (meta/devfile_check.h).
 */
#include "meta/devfile_check.h"

#include "config/config.h"
#include "dev/devices_file.h"
#include "meta/lock.h"

#include <string.h>

/* The PVID the scan read on dev, NULL when it holds no PV label. */
static const char *scanned_pvid(const struct lvx_scan *scan, const struct lvx_dev *dev)
{
    for (unsigned i = 0; i < scan->pv_count; i++)
        if (scan->pvs[i].dev == dev)
            return scan->pvs[i].label.pv_uuid;
    return NULL;
}

/* Set each matched entry's PVID to the scanned one; say: LVM2's line for each change.
 * Returns the number of entries changed. */
static unsigned correct(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_devices_file *df,
                        const struct lvx_scan *scan, bool say)
{
    unsigned changed = 0;
    lvx_devices_file_match(pool, df, &scan->devs);
    for (unsigned i = 0; i < df->count; i++) {
        struct lvx_df_entry *e = &df->entries[i];
        if (!e->dev)
            continue;
        const char *now = scanned_pvid(scan, e->dev);
        if (now && !now[0])
            now = NULL;
        if ((!now && !e->pvid) || (now && e->pvid && !strcmp(now, e->pvid)))
            continue;
        if (say && now)
            lvx_warn(ctx, "Device %s has PVID %s (devices file %s)", e->dev->path, now,
                     e->pvid ? e->pvid : "none");
        else if (say)
            lvx_warn(ctx, "Device %s has no PVID (devices file %s)", e->dev->path, e->pvid);
        e->pvid = now ? lvx_pool_strdup(pool, now) : NULL;
        changed++;
    }
    return changed;
}

void lvx_devfile_check_scan(struct lvx_ctx *ctx, const struct lvx_scan *scan)
{
    if (ctx->devices_file_check == LVX_DFCHECK_OFF || !ctx->devices_file_used ||
        ctx->devices_file_checked)
        return;
    ctx->devices_file_checked = true;
    struct lvx_config *cfg = NULL;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_lock lock = LVX_LOCK_INIT;
    struct lvx_devices_file df;
    const char *path = NULL;
    if (lvx_config_load(ctx, &cfg) < 0 || !(path = lvx_config_devices_file(ctx, cfg, pool)) ||
        lvx_devices_file_read(ctx, pool, path, &df) < 0 || !df.exists ||
        !correct(ctx, pool, &df, scan, true) || ctx->devices_file_check != LVX_DFCHECK_FIX)
        goto out;
    /* read again under the lock: another command may have changed it meanwhile */
    if (lvx_lock_devices_file(ctx, strrchr(path, '/') + 1, true, &lock) < 0 ||
        lvx_devices_file_read(ctx, pool, path, &df) < 0 || !df.exists)
        goto out;
    if (correct(ctx, pool, &df, scan, false) &&
        lvx_devices_file_write(ctx, &df, ctx->command_name ? ctx->command_name : "lvx") < 0)
        lvx_warn(ctx, "WARNING: %s", ctx->errmsg);
out:
    lvx_error_clear(ctx);
    lvx_unlock(&lock);
    lvx_config_free(cfg);
    lvx_pool_destroy(pool);
}
