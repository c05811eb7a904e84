/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvs.c - `lvx pvs [PV ...]`: the PV report (one row per PV segment with
 * --segments).  Named PVs narrow the report; unknown names fail with exit 5.
 */
#include "cmd/toolkit.h"
#include "report/report.h"

static int report(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *out,
                  void *arg)
{
    int kind = env->args->count[LVX_OPT_SEGMENTS] ? LVX_REPORT_PVSEGS : LVX_REPORT_PVS;
    return lvx_cmd_report(env, kind, sel->vgs, sel->vg_count, sel->orphans, sel->orphan_count,
                          false);
}

int lvx_cmd_pvs(struct lvx_cmd_env *env)
{
    return lvx_process_read(env, LVX_TK_PVS, report, NULL);
}
