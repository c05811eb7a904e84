/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgimportdevices.c - `vgimportdevices VG ...` / `vgimportdevices -a`: add the PVs
 * of the VGs to the devices file (created when missing), as LVM2 does: the VGs are
 * found on every device the filters accept (the devices file does not narrow this
 * scan), each VG's metadata is written again with the device ID of each PV
 * (device_id_type/device_id, none for a device known only by its name), then the file
 * gets one entry per PV and "Added N devices to devices file." is printed.
 */
#include "cmd/devfile_cmd.h"
#include "cmd/toolkit.h"

#include <string.h>

struct import {
    struct lvx_cmd_devfile *f;
    unsigned added;
};

static int import_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit, void *arg)
{
    struct import *im = arg;
    struct lvx_vg *vg = u->vg;
    for (unsigned i = 0; i < vg->pv_count; i++) {
        struct lvx_pv *pv = vg->pvs[i];
        if (!pv->ondisk.present || !pv->ondisk.dev_name || !pv->ondisk.dev_major)
            continue;
        /* the device as the devices file knows it: from the system list when there */
        struct lvx_dev *dev = NULL;
        for (unsigned d = 0; d < im->f->devs.count && !dev; d++)
            if (im->f->devs.devs[d]->major == pv->ondisk.dev_major &&
                im->f->devs.devs[d]->minor == pv->ondisk.dev_minor)
                dev = im->f->devs.devs[d];
        if (!dev)
            dev = lvx_dev_new_listed(env->pool, pv->ondisk.dev_name, pv->ondisk.dev_major,
                                     pv->ondisk.dev_minor, 0, false);
        const char *why = NULL;
        struct lvx_df_entry *e = lvx_devices_file_add(env->pool, &im->f->df, dev, pv->uuid, NULL,
                                                      &why);
        im->added++;
        bool by_name = !e->idtype || strcmp(e->idtype, "devname") == 0;
        pv->device_id_type = by_name ? NULL : lvx_pool_strdup(u->set->pool, e->idtype);
        pv->device_id = by_name ? NULL : lvx_pool_strdup(u->set->pool, e->idname);
    }
    *commit = true;
    return LVX_EXIT_OK;
}

int lvx_cmd_vgimportdevices(struct lvx_cmd_env *env)
{
    if (env->args->argc == 0 && !env->args->count[LVX_OPT_ALL]) {
        lvx_cmd_errorf("No command with matching syntax recognised.  Run 'vgimportdevices "
                       "--help' for more information.");
        return LVX_EXIT_INVALID;
    }
    struct lvx_cmd_devfile f;
    struct import im = { .f = &f };
    int rc = lvx_cmd_devfile_open(env, true, &f);
    if (rc == 0) {
        /* the VGs are looked for on every device the filters accept */
        const char *saved = env->ctx->devices_file;
        env->ctx->devices_file = "";
        struct lvx_tk_vg_ops ops = { .vg = import_vg, .arg = &im };
        unsigned count;
        char **names = lvx_cmd_vg_names(env, &count);
        rc = names ? 0 : LVX_EXIT_FAILED;
        for (unsigned i = 0; names && i < count; i++) {
            int r = lvx_process_vg_names(env, &names[i], 1, &ops);   /* "Cannot process" */
            rc = r > rc ? r : rc;
        }
        env->ctx->devices_file = saved;
        if (im.added) {
            if (lvx_devices_file_write(env->ctx, &f.df, "vgimportdevices") < 0) {
                lvx_cmd_errorf("%s", env->ctx->errmsg);
                rc = LVX_EXIT_FAILED;
            } else {
                lvx_notice(env->ctx, "Added %u devices to devices file.", im.added);
            }
        }
    }
    lvx_cmd_devfile_close(&f);
    return rc;
}
