/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/scan_lvs.c - devices/scan_lvs and the filter names of a device (see scan_lvs.h).
 */
#include "meta/scan_lvs.h"
#include "config/config.h"
#include "dev/lv_dev.h"
#include "model/model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

bool lvx_scan_lvs_on(struct lvx_ctx *ctx)
{
    return lvx_config_flag(ctx, "devices/scan_lvs", false);
}

/* An LV device LVM2 never reads as a PV, even with scan_lvs: a private layer (its DM
 * UUID has a suffix) or a hidden sub-LV by its name (_tdata, _rimage_N ...).  Both
 * hold another LV's data, so a PV label on them is a stacked VG's, seen twice. */
static bool private_lv(struct lvx_ctx *ctx, struct lvx_pool *pool,
                       const struct lvx_lvdev_probe *probe, const struct lvx_dev *d)
{
    char dm_name[NAME_MAX + 1];
    const char *alias[2] = { NULL, NULL };
    bool priv = false;
    if (lvx_lvdev_layer(probe, d->major, d->minor)) {
        lvx_debug(ctx, "%s: Reserved uuid on internal LV device not usable.", d->path);
        priv = true;
    } else if (pool && lvx_lvdev_is_lv(probe, d->major, d->minor, dm_name, sizeof(dm_name))) {
        lvx_lvdev_aliases(pool, dm_name, alias);
        const char *lv = alias[1] ? strrchr(alias[1], '/') + 1 : NULL;
        if (lv && lvx_lv_name_reserved(lv)) {
            lvx_debug(ctx, "%s: Reserved internal LV device %s not usable.", d->path, lv);
            priv = true;
        }
    }
    return priv;
}

void lvx_scan_drop_lvs(struct lvx_ctx *ctx, struct lvx_devlist *devs)
{
    unsigned kept = 0, lvs = 0;
    for (unsigned i = 0; i < devs->count; i++)
        lvs += devs->devs[i]->is_lv;
    if (!lvs)
        return;
    if (lvx_scan_lvs_on(ctx)) {
        struct lvx_lvdev_probe probe;
        struct lvx_pool *pool = lvx_pool_create();     /* the aliases of all of them */
        lvx_lvdev_probe_init(&probe);
        for (unsigned i = 0; i < devs->count; i++)
            if (!devs->devs[i]->is_lv || !private_lv(ctx, pool, &probe, devs->devs[i]))
                devs->devs[kept++] = devs->devs[i];
        devs->count = kept;
        lvx_pool_destroy(pool);
        return;
    }
    for (unsigned i = 0; i < devs->count; i++) {
        if (devs->devs[i]->is_lv)
            lvx_debug(ctx, "%s: Skipping: device is an LV (scan_lvs 0)", devs->devs[i]->path);
        else
            devs->devs[kept++] = devs->devs[i];
    }
    devs->count = kept;
}

unsigned lvx_scan_filter_names(struct lvx_pool *pool, const struct lvx_dev *dev,
                               const char *names[4], char **real)
{
    unsigned n = 0;
    names[n++] = dev->path;
    *real = dev->is_link ? realpath(dev->path, NULL) : NULL;
    if (*real)
        names[n++] = *real;
    if (dev->is_lv) {
        struct lvx_lvdev_probe probe;
        char dm_name[NAME_MAX + 1];
        const char *alias[2];
        lvx_lvdev_probe_init(&probe);
        if (lvx_lvdev_is_lv(&probe, dev->major, dev->minor, dm_name, sizeof(dm_name))) {
            lvx_lvdev_aliases(pool, dm_name, alias);
            for (unsigned i = 0; i < 2; i++)
                if (alias[i])
                    names[n++] = alias[i];
        }
    }
    return n;
}
