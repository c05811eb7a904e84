/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvchange_raid.c - `lvx lvchange --rebuild PV [--rebuild PV ...] VG/LV` and
 * `lvx lvchange --resync VG/LV`: the RAID forms of lvchange, as LVM2 2.03.16 does them
 * (tools/lvchange.c, lib/metadata/raid_manip.c; facts only).
 *
 *   --rebuild  after LVM2's question ("Do you really want to rebuild N PVs ..."), the
 *              images with a sub-LV on the PVs named get REBUILD (rmeta and rimage;
 *              LVM2's refusals as for --replace, action "rebuild"); an active LV is
 *              reloaded with "rebuild N" in its table (the kernel recovers those
 *              images), the flags are cleared by a second commit and the table
 *              reloaded without them (cmd/lvconvert.c's reload).  Nothing printed.
 *   --resync   an active LV is deactivated after LVM2's question; NOTSYNCED is
 *              cleared and the rmeta sub-LVs made visible (LVM2's "intermediate"
 *              commit), their first 4 KiB zeroed (the dm-raid superblocks: the kernel
 *              resyncs the whole LV at the next activation), hidden again (second
 *              commit), and the LV activated again when it was active.
 *              An old-style mirror (--resync only): NOTSYNCED cleared and its log's
 *              header zeroed (before the one commit; LVM2 detaches the log for an
 *              intermediate commit, so its seqno runs one higher), activated again
 *              when it was active.
 * Both take RAID LVs with rmeta sub-LVs; --resync mirrors too.
 */
#include "cmd/lvcmd.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_raid.h"
#include "cmd/mirror_mlog.h"
#include "map/map.h"

#include <string.h>

#define RMETA_WIPE 4096u

/* The LV of a VG/LV argument in u, or the exit code after LVM2's message; *begun:
 * u must be ended. */
static int find_raid(struct lvx_cmd_env *env, const char *arg, struct lvx_vg_update *u,
                     bool *begun, struct lvx_lv **out, bool mirror_ok)
{
    const char *vgname, *lvname;
    int rc;
    *begun = false;
    if (!lvx_lvcmd_split_name(env, arg, &vgname, &lvname) || !lvname) {
        lvx_cmd_errorf("Invalid logical volume name \"%s\".", arg);
        return LVX_EXIT_INVALID;
    }
    if ((rc = lvx_lvcmd_begin(env, vgname, u)))
        return rc;
    *begun = true;
    struct lvx_lv *lv = lvx_vg_find_lv(u->vg, lvname);
    if (!lv) {
        lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vgname, lvname);
        return LVX_EXIT_FAILED;
    }
    const struct lvx_raid_type *t = lvx_map_lv_is_raid(lv) ?
                                    lvx_raid_type_find(lv->segs[0].type_name) : NULL;
    if ((!t || !t->meta) && !(mirror_ok && lvx_map_lv_is_mirror(lv))) {  /* LVM2's command
                                                                          * definitions */
        lvx_cmd_errorf("Command on LV %s/%s does not accept LV type %s.", vgname, lvname,
                       lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "linear");
        lvx_cmd_errorf("Command not permitted on LV %s/%s.", vgname, lvname);
        return LVX_EXIT_FAILED;
    }
    *out = lv;
    return 0;
}

static int rebuild_one(struct lvx_cmd_env *env, const char *arg)
{
    const struct lvx_opt_val *v = &env->args->val[LVX_OPT_REBUILD];
    struct lvx_vg_update u;
    struct lvx_lv *lv = NULL;
    bool begun;
    int rc = find_raid(env, arg, &u, &begun, &lv, false);
    if (rc)
        goto out;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    if (!env->args->count[LVX_OPT_YES] &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Do you really want to rebuild %u PVs of "
                                           "logical volume %s", v->item_count, full))) {
        lvx_cmd_errorf("Logical volume %s not rebuild.", full);
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    struct lvx_alloc_pv *pvs;
    unsigned pv_count;
    if ((rc = lvx_lvcmd_pv_args(env, u.vg, (char **)v->items, v->item_count, &pvs, &pv_count)))
        goto out;
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    if ((rc = lvx_actcmd_init(env, &act)))
        goto out;
    bool active = act.be && lvx_actcmd_is_active(env, &act, lv, &ks);
    if (active && (rc = lvx_lvconvert_need_active(env, &act, lv, &ks)))
        goto out;
    if (active && !lvx_lvconvert_in_sync(lv, &ks)) {
        lvx_cmd_errorf("Unable to replace devices in %s while it is not in-sync.", full);
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    if (active && (rc = lvx_lvconvert_refuse_read_only(env, &act, lv)))
        goto out;
    uint32_t n;
    if (lvx_raid_mark_rebuild(env, lv, pvs, pv_count, &n) < 0) {
        rc = lvx_cmd_fail(env);
        goto out;
    }
    if (!n) {
        lvx_cmd_errorf("Logical volume %s does not contain devices specified to rebuild.", full);
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    if (!active) {               /* the flags reach no kernel: committed and cleared */
        if (!(rc = lvx_lvcmd_commit(env, &u)) && lvx_raid_clear_rebuild(lv))
            rc = lvx_lvcmd_commit(env, &u);
        goto out;
    }
    struct lvx_raid_change ch;
    memset(&ch, 0, sizeof(ch));
    if ((rc = lvx_lvconvert_reload(env, &u, &act, lv, &ch)))
        goto out;
    /* LVM2 loads the table once more, without "rebuild" */
    bool staged = false;
    if (!env->args->count[LVX_OPT_TEST] && lvx_actcmd_stage(env, &act, lv, &staged) == 0 &&
        staged && lvx_actcmd_finish(env, &act, lv, true))
        rc = LVX_EXIT_FAILED;
out:
    if (begun)
        lvx_vg_update_end(&u);
    return rc;
}

static void set_rmeta_visible(struct lvx_lv *lv, bool visible)
{
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; s < seg->area_count; s++) {
        struct lvx_lv *m = seg->meta_areas[s].lv;
        if (visible)
            m->status |= LVX_LV_VISIBLE;
        else
            m->status &= ~(uint32_t)LVX_LV_VISIBLE;
    }
}

static int resync_one(struct lvx_cmd_env *env, const char *arg)
{
    struct lvx_vg_update u;
    struct lvx_lv *lv = NULL;
    bool begun;
    int rc = find_raid(env, arg, &u, &begun, &lv, true);
    if (rc)
        goto out;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    if ((rc = lvx_actcmd_init(env, &act)))
        goto out;
    bool active = act.be && lvx_actcmd_is_active(env, &act, lv, &ks);
    if (active && ks.open_count > 0) {
        lvx_cmd_errorf("Can't resync open logical volume %s.", full);
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    if (active && !env->args->count[LVX_OPT_YES] &&
        !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Do you really want to deactivate "
                                           "logical volume %s to resync it?", full))) {
        lvx_cmd_errorf("Logical volume %s not resynced.", full);
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    bool test = env->args->count[LVX_OPT_TEST] > 0;
    if (active && !test && lvx_actcmd_deactivate(env, &act, lv, false)) {
        lvx_cmd_errorf("Unable to deactivate %s for resync.", full);
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    lv->status &= ~(uint32_t)LVX_LV_NOTSYNCED;
    if (lvx_map_lv_is_mirror(lv)) {
        /* a mirror: its log's header zeroed before the commit (every region copied
         * again at the next activation; a core log starts all out of sync anyway) */
        const struct lvx_lv *log = lv->segs[0].log_lv;
        lv->segs[0].raw = NULL;
        if (!test && log && lvx_mirror_log_zero(env, &u, log, RMETA_WIPE) < 0) {
            rc = lvx_cmd_fail(env);
            lvx_cmd_errorf("Unable to reset sync status for %s.", full);
            goto out;
        }
        if ((rc = lvx_lvcmd_commit(env, &u)))
            goto out;
        goto reactivate;
    }
    set_rmeta_visible(lv, true);
    if ((rc = lvx_lvcmd_commit(env, &u)))
        goto out;
    const struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; !test && s < seg->area_count; s++)
        if (lvx_lvcmd_zero_start(env, &u, seg->meta_areas[s].lv, RMETA_WIPE) < 0) {
            rc = lvx_cmd_fail(env);
            lvx_cmd_errorf("Failed to clear %s metadata area for %s.", seg->type_name, full);
            goto out;
        }
    set_rmeta_visible(lv, false);
    if ((rc = lvx_lvcmd_commit(env, &u)))
        goto out;
reactivate:
    if (active && !test && lvx_actcmd_activate(env, &act, lv)) {
        lvx_cmd_errorf("Failed to reactivate %s after resync.", full);
        rc = LVX_EXIT_FAILED;
    }
out:
    if (begun)
        lvx_vg_update_end(&u);
    return rc;
}

int lvx_lvchange_raid(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    bool rebuild = a->count[LVX_OPT_REBUILD] > 0;
    if (rebuild && a->count[LVX_OPT_RESYNC]) {
        lvx_cmd_errorf("--rebuild and --resync cannot be combined.");
        return LVX_EXIT_INVALID;
    }
    if (a->argc < 1) {
        lvx_cmd_errorf("Please specify a logical volume path.");
        return LVX_EXIT_INVALID;
    }
    int rc = 0;
    for (int i = 0; i < a->argc; i++) {
        int r = rebuild ? rebuild_one(env, a->argv[i]) : resync_one(env, a->argv[i]);
        if (r > rc)
            rc = r;
    }
    return rc;
}
