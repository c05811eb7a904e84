/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvs.c - `lvx pvs [PV ...]`: the PV report (one row per PV segment with
 * --segments).  Named PVs narrow the report; unknown names fail with exit 5.
 */
#include "cmd/commands.h"
#include "report/report.h"

int lvx_cmd_pvs(struct lvx_cmd_env *env)
{
    struct lvx_cmd_vgs v;
    struct lvx_cmd_pvsel sel;
    bool failed = false;

    int rc = lvx_cmd_load(env, &v);
    if (rc)
        return rc;
    lvx_cmd_pick_pvs(env, &v, env->args->argv, (unsigned)env->args->argc, &sel, &failed);
    int kind = env->args->count[LVX_OPT_SEGMENTS] ? LVX_REPORT_PVSEGS : LVX_REPORT_PVS;
    rc = lvx_cmd_report(env, kind, sel.vgs, sel.vg_count, sel.orphans, sel.orphan_count, false);
    lvx_cmd_unload(&v);
    return rc ? rc : failed ? LVX_EXIT_FAILED : LVX_EXIT_OK;
}
