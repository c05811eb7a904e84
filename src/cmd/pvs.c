/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvs.c - `lvx pvs [PV ...]`: the PV report (one row per PV segment with
 * --segments; -a adds the devices that are not PVs).  Named PVs narrow the report;
 * unknown names fail with exit 5.
 */
#include "cmd/toolkit.h"
#include "meta/scan.h"
#include "report/report.h"

#include <string.h>

/* -a without names: the scanned devices without a PV label become rows of their own
 * (LVM2: empty format and UUID, sizes 0, the device's size as dev_size), after the
 * orphans.  The orphan array returned lives in env->pool; *count is updated. */
static struct lvx_pv **with_unlabelled(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel,
                                       unsigned *count)
{
    const struct lvx_scan *scan = sel->load.scan;
    const struct lvx_devlist *dl = &scan->devs;
    struct lvx_pv **all = lvx_pool_alloc(env->pool, (sel->orphan_count + dl->count + 1) *
                                                        sizeof(*all));
    if (sel->orphan_count)
        memcpy(all, sel->orphans, sel->orphan_count * sizeof(*all));
    unsigned n = sel->orphan_count;
    for (unsigned i = 0; i < dl->count; i++) {
        const struct lvx_dev *dev = dl->devs[i];
        bool labelled = false;
        for (unsigned j = 0; j < scan->pv_count && !labelled; j++)
            labelled = scan->pvs[j].dev == dev;
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
    *count = n;
    return all;
}

static int report(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *out,
                  void *arg)
{
    (void)out;
    (void)arg;
    int kind = env->args->count[LVX_OPT_SEGMENTS] ? LVX_REPORT_PVSEGS : LVX_REPORT_PVS;
    struct lvx_pv **orphans = sel->orphans;
    unsigned orphan_count = sel->orphan_count;
    if (env->args->count[LVX_OPT_ALL] && kind == LVX_REPORT_PVS && !env->args->argc)
        orphans = with_unlabelled(env, sel, &orphan_count);
    return lvx_cmd_report(env, kind, sel->vgs, sel->vg_count, orphans, orphan_count, false);
}

int lvx_cmd_pvs(struct lvx_cmd_env *env)
{
    return lvx_process_read(env, LVX_TK_PVS, report, NULL);
}
