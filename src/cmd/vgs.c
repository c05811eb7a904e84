/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgs.c - `lvx vgs [VG ...]`: the VG report.  A VG name that is not found
 * prints "Volume group "x" not found"; the others are still reported (exit 5).
 */
#include "cmd/commands.h"
#include "report/report.h"

int lvx_cmd_vgs(struct lvx_cmd_env *env)
{
    struct lvx_cmd_vgs v;
    bool failed = false;
    unsigned n;

    int rc = lvx_cmd_load(env, &v);
    if (rc)
        return rc;
    struct lvx_vg **vgs = lvx_cmd_pick_vgs(env, &v, env->args->argv, (unsigned)env->args->argc,
                                           &n, &failed);
    rc = lvx_cmd_report(env, LVX_REPORT_VGS, vgs, n, NULL, 0, false);
    lvx_cmd_unload(&v);
    return rc ? rc : failed ? LVX_EXIT_FAILED : LVX_EXIT_OK;
}
