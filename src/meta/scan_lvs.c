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
 * hold another LV's data, so a PV label on them is a stacked VG's, seen twice.
 * *vg_lv gets the LV's $DM_DEV_DIR/<vg>/<lv> name (in pool), NULL if none. */
static bool private_lv(struct lvx_ctx *ctx, struct lvx_pool *pool,
                       const struct lvx_lvdev_probe *probe, const struct lvx_dev *d,
                       const char **vg_lv)
{
    char dm_name[NAME_MAX + 1];
    const char *alias[2] = { NULL, NULL };
    bool priv = false;
    *vg_lv = NULL;
    if (lvx_lvdev_layer(probe, d->major, d->minor)) {
        lvx_debug(ctx, "%s: Reserved uuid on internal LV device not usable.", d->path);
        priv = true;
    } else if (lvx_lvdev_is_lv(probe, d->major, d->minor, dm_name, sizeof(dm_name))) {
        lvx_lvdev_aliases(pool, dm_name, alias);
        const char *lv = alias[1] ? strrchr(alias[1], '/') + 1 : NULL;
        if (lv && lvx_lv_name_reserved(lv)) {
            lvx_debug(ctx, "%s: Reserved internal LV device %s not usable.", d->path, lv);
            priv = true;
        }
        *vg_lv = alias[1];
    }
    return priv;
}

/* A kernel LV listed as /dev/dm-N is reported by its /dev/<vg>/<lv> link, LVM2's
 * preferred name, when that link is the device. */
static void name_lv(const struct lvx_lvdev_probe *probe, struct lvx_dev *d, const char *vg_lv)
{
    struct stat st;
    if (!vg_lv || probe->dm_major < 0 || d->major != (uint32_t)probe->dm_major ||
        strncmp(d->path, "/dev/dm-", 8) != 0 || stat(vg_lv, &st) < 0 || !S_ISBLK(st.st_mode) ||
        st.st_rdev != makedev(d->major, d->minor))
        return;
    d->path = vg_lv;
    d->is_link = lstat(vg_lv, &st) == 0 && S_ISLNK(st.st_mode);
}

void lvx_scan_drop_lvs(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_devlist *devs)
{
    unsigned kept = 0, lvs = 0;
    for (unsigned i = 0; i < devs->count; i++)
        lvs += devs->devs[i]->is_lv;
    if (!lvs)
        return;
    if (lvx_scan_lvs_on(ctx)) {
        struct lvx_lvdev_probe probe;
        lvx_lvdev_probe_init(&probe);
        for (unsigned i = 0; i < devs->count; i++) {
            struct lvx_dev *d = devs->devs[i];
            const char *vg_lv = NULL;
            if (d->is_lv && private_lv(ctx, pool, &probe, d, &vg_lv))
                continue;
            if (d->is_lv)
                name_lv(&probe, d, vg_lv);
            devs->devs[kept++] = d;
        }
        devs->count = kept;
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
