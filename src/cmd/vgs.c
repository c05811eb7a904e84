/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgs.c - `lvx vgs [VG ...]`: the VG report.  A VG name that is not found
 * prints "Volume group "x" not found"; the others are still reported (exit 5).
 */
#include "cmd/toolkit.h"
#include "report/report.h"

static int report(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *out,
                  void *arg)
{
    return lvx_cmd_report(env, LVX_REPORT_VGS, sel->vgs, sel->vg_count, NULL, 0, false);
}

int lvx_cmd_vgs(struct lvx_cmd_env *env)
{
    return lvx_process_read(env, LVX_TK_VGS, report, NULL);
}
