/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvs.c - `lvx pvs [PV ...]`: the PV report (one row per PV segment with
 * --segments; -a adds the devices that are not PVs).  Named PVs narrow the report;
 * unknown names fail with exit 5.
 */
#include "cmd/commands.h"
#include "meta/scan.h"
#include "report/report.h"

#include <string.h>

/* -a without names: the scanned devices without a PV label become rows of their own
 * (LVM2: empty format and UUID, sizes 0, the device's size as dev_size). */
static void add_unlabelled(struct lvx_cmd_env *env, const struct lvx_cmd_vgs *v,
                           struct lvx_cmd_pvsel *sel)
{
    const struct lvx_devlist *dl = &v->scan->devs;
    struct lvx_pv **all = lvx_pool_alloc(env->pool, (sel->orphan_count + dl->count + 1) *
                                                        sizeof(*all));
    memcpy(all, sel->orphans, sel->orphan_count * sizeof(*all));
    unsigned n = sel->orphan_count;
    for (unsigned i = 0; i < dl->count; i++) {
        const struct lvx_dev *dev = dl->devs[i];
        bool labelled = false;
        for (unsigned j = 0; j < v->scan->pv_count && !labelled; j++)
            labelled = v->scan->pvs[j].dev == dev;
        if (labelled)
            continue;
        struct lvx_pv *pv = lvx_pool_alloc(env->pool, sizeof(*pv));
        memset(pv, 0, sizeof(*pv));
        pv->ondisk.present = true;
        pv->ondisk.no_label = true;
        pv->ondisk.dev_name = dev->path;
        pv->ondisk.dev_major = dev->major;
        pv->ondisk.dev_minor = dev->minor;
        pv->ondisk.dev_bytes = dev->size;
        all[n++] = pv;
    }
    sel->orphans = all;
    sel->orphan_count = n;
}

int lvx_cmd_pvs(struct lvx_cmd_env *env)
{
    struct lvx_cmd_vgs v;
    struct lvx_cmd_pvsel sel;
    bool failed = false;

    int rc = lvx_cmd_load(env, &v);
    if (rc)
        return rc;
    lvx_cmd_pick_pvs(env, &v, env->args->argv, (unsigned)env->args->argc, &sel, &failed);
    if (env->args->count[LVX_OPT_ALL] && !env->args->count[LVX_OPT_SEGMENTS] && !env->args->argc)
        add_unlabelled(env, &v, &sel);
    int kind = env->args->count[LVX_OPT_SEGMENTS] ? LVX_REPORT_PVSEGS : LVX_REPORT_PVS;
    rc = lvx_cmd_report(env, kind, sel.vgs, sel.vg_count, sel.orphans, sel.orphan_count, false);
    lvx_cmd_unload(&v);
    return rc ? rc : failed ? LVX_EXIT_FAILED : LVX_EXIT_OK;
}
