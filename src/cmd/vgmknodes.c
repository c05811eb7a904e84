/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgmknodes.c - `lvx vgmknodes [VG|VG/LV ...]` (also `vgscan --mknodes`): make the
 * /dev entries of the active LVs again and remove those of inactive ones, as LVM2's
 * vgmknodes.  The activation backend says which LVs are active: device-mapper LVs
 * get /dev/mapper/<name> and /dev/<vg>/<lv> (nodes/dm_nodes.c), LVs of the lvx daemon
 * their links to its loop device (nodes/user_nodes.c).  Without a backend nothing can
 * be known: exit 5 with the reason (LVM2 fails the same way without device-mapper).
 * An exported VG is left out, or refused when named ("Volume group X is exported").
 */
#include "cmd/actcmd.h"
#include "cmd/commands.h"
#include "cmd/toolkit.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "map/dm_names.h"
#include "model/thin.h"
#include "nodes/dm_nodes.h"
#include "nodes/user_nodes.h"

static int mknodes_lv(struct lvx_cmd_env *env, const struct lvx_actcmd *a, const struct lvx_lv *lv)
{
    struct lvx_lv_kstate ks;
    struct lvx_buf name = LVX_BUF_INIT;
    int rc = 0;
    bool active = lvx_actcmd_is_active(env, a, lv, &ks);
    bool user = strcmp(a->be->name, "user") == 0;
    bool pool_private = lvx_lv_thin_pool_private(lv);

    lvx_dm_lv_name(&name, lv->vg->name, lv->name, NULL);
    if (!active) {
        if (user)
            lvx_user_nodes_remove(lvx_dm_dev_dir(), lv->vg->name, lv->name);
        else
            lvx_dm_nodes_remove(lvx_buf_str(&name), lv->vg->name, lv->name);
    } else if (user) {
        char loop[64];
        snprintf(loop, sizeof(loop), "/dev/loop%" PRId64, ks.minor);   /* loop: minor = number */
        rc = lvx_user_nodes_add(env->ctx, lvx_dm_dev_dir(), lv->vg->name, lv->name, loop,
                                !pool_private);
    } else {
        if (pool_private)      /* a used thin pool: the node only, as LVM2 */
            lvx_dm_nodes_remove(lvx_buf_str(&name), lv->vg->name, lv->name);
        rc = lvx_dm_nodes_add(env->ctx, lvx_buf_str(&name), (uint32_t)ks.major,
                              (uint32_t)ks.minor, lv->vg->name, pool_private ? NULL : lv->name);
    }
    lvx_buf_free(&name);
    return rc < 0 ? lvx_cmd_fail(env) : 0;
}

static int mknodes_vgs(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *out,
                       void *arg)
{
    const struct lvx_actcmd *a = arg;
    int rc = 0;
    (void)out;
    for (unsigned i = 0; i < sel->vg_count; i++)
        for (unsigned j = 0; j < sel->vgs[i]->lv_count; j++) {
            const struct lvx_lv *lv = sel->vgs[i]->lvs[j];
            if (!lvx_lv_is_visible(lv))
                continue;
            int r = mknodes_lv(env, a, lv);
            if (r > rc)
                rc = r;
        }
    return rc;
}

int lvx_cmd_vgmknodes(struct lvx_cmd_env *env)
{
    struct lvx_actcmd a = { 0 };
    a.be = lvx_activation_choose(env->ctx, NULL);
    if (!a.be) {
        lvx_cmd_fail(env);
        return LVX_EXIT_FAILED;
    }
    /* the LV walk: exported VGs are left out, a named one is refused (as LVM2) */
    return lvx_process_read(env, LVX_TK_LVS, mknodes_vgs, &a);
}
