/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvscan.c - `lvx lvscan [-a]`: one line per LV of every VG, as LVM2's lvscan:
 * "ACTIVE   " or "inactive ", "Original"/"Snapshot" for old-style snapshots, the
 * /dev path, the size and the allocation policy.  -a adds the hidden LVs.  Whether an
 * LV is active is asked of the activation backend (inactive when there is none).
 */
#include "cmd/actcmd.h"
#include "cmd/commands.h"
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"

#include "activate/activate.h"
#include "nodes/dm_nodes.h"

/* Is lv the origin of an old-style snapshot (a COW segment names it)? */
static bool is_origin(const struct lvx_lv *lv)
{
    const struct lvx_vg *vg = lv->vg;
    for (unsigned i = 0; i < vg->lv_count; i++)
        for (unsigned s = 0; s < vg->lvs[i]->seg_count; s++) {
            const struct lvx_seg *seg = &vg->lvs[i]->segs[s];
            if (seg->kind == LVX_SEG_SNAPSHOT && seg->origin_lv == lv)
                return true;
        }
    return false;
}

static int scan_lines(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *b,
                      void *arg)
{
    struct lvx_actcmd act = { 0 };
    act.be = lvx_activation_choose(env->ctx, NULL);
    lvx_error_clear(env->ctx);
    for (unsigned i = 0; i < sel->vg_count; i++) {
        const struct lvx_vg *vg = sel->vgs[i];
        for (unsigned j = 0; j < vg->lv_count; j++) {
            const struct lvx_lv *lv = vg->lvs[j];
            if (!env->args->count[LVX_OPT_ALL] && !lvx_lv_is_visible(lv))
                continue;
            bool active = act.be && lvx_actcmd_is_active(env, &act, lv, NULL);
            const char *snap = is_origin(lv) ? "Original" : lvx_lv_is_cow(lv) ? "Snapshot"
                                                                              : "        ";
            lvx_buf_printf(b, "  %s%s '%s/%s/%s' [", active ? "ACTIVE   " : "inactive ", snap,
                           lvx_dm_dev_dir(), vg->name, lv->name);
            lvx_cmd_display_size(b, lvx_lv_size_sectors(lv), env->args->units,
                                 env->args->unit_bytes);
            lvx_buf_printf(b, "] %s\n", lvx_alloc_name(lv->alloc));
        }
    }
    return 0;
}

int lvx_cmd_lvscan(struct lvx_cmd_env *env)
{
    if (env->args->argc > 0)
        return lvx_vgcmd_extra_arg(env->args->argv[0]);
    return lvx_process_read(env, LVX_TK_VGS | LVX_TK_NO_EXPORTED, scan_lines, NULL);
}
