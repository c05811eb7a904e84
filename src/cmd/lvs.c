/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvs.c - `lvx lvs [VG|VG/LV ...]`: the LV report (one row per LV segment
 * with --segments).  Unknown VGs/LVs print LVM2's messages; the rest is still
 * reported and the exit code is 5.
 */
#include "cmd/toolkit.h"
#include "report/report.h"

static int report(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *out,
                  void *arg)
{
    int kind = env->args->count[LVX_OPT_SEGMENTS] ? LVX_REPORT_SEGS : LVX_REPORT_LVS;
    return lvx_cmd_report(env, kind, sel->vgs, sel->vg_count, NULL, 0, sel->only_named);
}

int lvx_cmd_lvs(struct lvx_cmd_env *env)
{
    return lvx_process_read(env, LVX_TK_LVS, report, NULL);
}
