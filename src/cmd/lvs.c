/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvs.c - `lvx lvs [VG|VG/LV ...]`: the LV report (one row per LV segment
 * with --segments).  Unknown VGs/LVs print LVM2's messages; the rest is still
 * reported and the exit code is 5.
 */
#include "cmd/commands.h"
#include "report/report.h"

int lvx_cmd_lvs(struct lvx_cmd_env *env)
{
    struct lvx_cmd_vgs v;
    struct lvx_cmd_lvsel sel;
    bool failed = false;

    int rc = lvx_cmd_load(env, &v);
    if (rc)
        return rc;
    lvx_cmd_pick_lvs(env, &v, env->args->argv, (unsigned)env->args->argc, &sel, &failed);
    int kind = env->args->count[LVX_OPT_SEGMENTS] ? LVX_REPORT_SEGS : LVX_REPORT_LVS;
    rc = lvx_cmd_report(env, kind, sel.vgs, sel.vg_count, NULL, 0, sel.only_named);
    lvx_cmd_unload(&v);
    return rc ? rc : failed ? LVX_EXIT_FAILED : LVX_EXIT_OK;
}
