/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/activation.c - activation in the commands (see cmd/actcmd.h): vgchange -a,
 * lvchange -a, the hooks of lvcreate/lvremove/lvresize/lvrename and the report's
 * kernel state (a backend without sub-LV devices: the hidden sub-LVs of an active RAID
 * or mirror stack reported active and held open, as on dm).  Messages are LVM2's:
 *   "N logical volume(s) in volume group "vg" now active"      (vgchange -a)
 *   "Logical volume vg/lv is used by another device."           (an LV maps onto it)
 *   "Logical volume vg/lv contains a filesystem in use."        (mounted)
 *   "Logical volume vg/lv in use."                              (open)
 *   "Refusing activation of partial LV vg/lv.  Use '--activationmode partial' to override."
 *   "PARTIAL MODE. Incomplete logical volumes will be processed."  (partial mode)
 *   "WARNING: Activation disabled. No device-mapper interaction will be attempted."
 * The mode: lvm.conf activation/activation_mode, --activationmode, -P/--partial.
 * Under lvm.conf global/activation = 0 (wins over LVX_ACTIVATION_BACKEND) nothing is
 * activated or deactivated and the commands succeed, as LVM2's: vgchange -a reports
 * "0 logical volume(s) ... now active", lvcreate leaves the new LV inactive.
 * vgchange -ay of a VG with a pvmove in progress that the kernel now runs starts a
 * background copier for it (cmd/pvmove.c), as LVM2's activation polls it (--poll n:
 * none).
 */
#include "cmd/cmdlog.h"
#include "cmd/actcmd.h"
#include "cmd/lvconvert_merge.h"
#include "cmd/mirror_layer.h"
#include "cmd/thin_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/lvcmd.h"
#include "dev/lv_dev.h"
#include "cmd/vgcmd.h"
#include "config/config.h"
#include "map/map.h"
#include "meta/lockd.h"
#include "meta/systemid.h"
#include "model/pvmove.h"
#include "model/snapshot.h"
#include "model/thin.h"
#include "report/report.h"

/* The activation mode as LVM2 takes it: lvm.conf activation/activation_mode (default
 * "degraded"), overridden by --activationmode; -P/--partial means partial. */
static int activation_mode(struct lvx_cmd_env *env, const struct lvx_config *cfg,
                           struct lvx_actcmd *a, bool quiet)
{
    const struct lvx_cmd_args *args = env->args;
    const char *mode = cfg ? lvx_config_str(cfg, "activation/activation_mode", "degraded")
                           : "degraded";
    if (args->count[LVX_OPT_ACTIVATIONMODE]) {
        mode = args->value[LVX_OPT_ACTIVATIONMODE];
        if (args->count[LVX_OPT_PARTIAL] && strcmp(mode, "partial") != 0) {
            lvx_cmd_errorf("--partial and --activationmode are mutually exclusive arguments");
            return LVX_EXIT_INVALID;
        }
    } else if (args->count[LVX_OPT_PARTIAL]) {
        mode = "partial";
    }
    if (strcmp(mode, "partial") == 0) {
        a->opts.partial = true;
        if (!quiet)
            lvx_warn(env->ctx, "PARTIAL MODE. Incomplete logical volumes will be processed.");
    } else if (strcmp(mode, "degraded") == 0) {
        a->opts.degraded = true;     /* differs from complete only for RAID LVs */
    } else if (strcmp(mode, "complete") != 0) {
        lvx_cmd_errorf("Invalid activation mode given.");
        return LVX_EXIT_INVALID;
    }
    return 0;
}

/* LVM2's monitoring mode (get_activation_monitoring_mode): --monitor y|n, else
 * nothing with --ignoremonitoring, activation/monitoring = 0 or in a command the
 * monitor runs (LVM_RUN_BY_DMEVENTD, as dmeventd's), else on. */
static enum lvx_monitor_mode monitor_mode(struct lvx_cmd_env *env, const struct lvx_config *cfg)
{
    const struct lvx_cmd_args *args = env->args;
    const char *by = getenv("LVM_RUN_BY_DMEVENTD");
    if (by && *by && strcmp(by, "0") != 0)
        return LVX_MONITOR_IGNORE;
    if (args->count[LVX_OPT_MONITOR])
        return args->val[LVX_OPT_MONITOR].b ? LVX_MONITOR_ON : LVX_MONITOR_OFF;
    if (args->count[LVX_OPT_IGNOREMONITORING] ||
        (cfg && lvx_config_int(cfg, "activation/monitoring", 1) == 0))
        return LVX_MONITOR_IGNORE;
    return LVX_MONITOR_ON;
}

bool lvx_actcmd_monitor_conflict(struct lvx_cmd_env *env)
{
    if (!env->args->count[LVX_OPT_MONITOR] || !env->args->count[LVX_OPT_IGNOREMONITORING])
        return false;
    lvx_cmd_errorf("--ignoremonitoring or --sysinit option not allowed with --monitor option.");
    return true;
}

/* lvm.conf merged with --config, or NULL (defaults) when it cannot be read. */
static struct lvx_config *load_config(struct lvx_cmd_env *env)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0)
        cfg = NULL;
    lvx_error_clear(env->ctx);
    return cfg;
}

static int init(struct lvx_cmd_env *env, struct lvx_actcmd *a, bool announce)
{
    memset(a, 0, sizeof(*a));
    a->test = env->args->count[LVX_OPT_TEST] > 0;
    struct lvx_config *cfg = load_config(env);
    a->off = cfg && lvx_config_int(cfg, "global/activation", 1) == 0;
    a->volume_list = cfg && lvx_config_node(cfg, "activation/volume_list");
    if (a->off && announce)   /* LVM2's words (it prints them in every command) */
        lvx_warn(env->ctx, "WARNING: Activation disabled. No device-mapper interaction will "
                 "be attempted.");
    int rc = activation_mode(env, cfg, a, false);
    a->opts.monitor = monitor_mode(env, cfg);
    lvx_config_free(cfg);
    /* -asy: a shared VG's LV lease shared; -ay, -aey (and -aly) exclusive, as LVM2 */
    const char *av = env->args->count[LVX_OPT_ACTIVATE] ? env->args->value[LVX_OPT_ACTIVATE] : "";
    a->opts.lock_shared = av[0] == 's';
    if (rc)
        return rc;
    a->be = lvx_activation_choose(env->ctx, NULL);
    if (!a->be)
        a->why = lvx_pool_strdup(env->pool, env->ctx->errmsg[0] ? env->ctx->errmsg
                                                               : "no activation backend");
    if (a->off && announce)
        lvx_info(env->ctx, "%s", a->why);
    lvx_error_clear(env->ctx);
    return 0;
}

int lvx_actcmd_init(struct lvx_cmd_env *env, struct lvx_actcmd *a)
{
    return init(env, a, false);
}

int lvx_actcmd_check_mode(struct lvx_cmd_env *env)
{
    struct lvx_actcmd a;
    memset(&a, 0, sizeof(a));
    struct lvx_config *cfg = load_config(env);
    int rc = activation_mode(env, cfg, &a, true);
    lvx_config_free(cfg);
    return rc;
}

int lvx_actcmd_init_activating(struct lvx_cmd_env *env, struct lvx_actcmd *a)
{
    return init(env, a, true);
}

void lvx_actcmd_print_why(const struct lvx_actcmd *a)
{
    if (!a->be)
        lvx_cmd_errorf("%s", a->why ? a->why : "No activation backend.");
}

bool lvx_actcmd_is_active(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                          const struct lvx_lv *lv, struct lvx_lv_kstate *ks)
{
    struct lvx_lv_kstate local;
    if (!ks)
        ks = &local;
    memset(ks, 0, sizeof(*ks));
    if (!a->be)
        return false;
    if (a->be->status(env->ctx, lv, ks) < 0) {
        lvx_error_clear(env->ctx);
        return false;
    }
    return ks->active;
}

/* Is the device major:minor mounted (/proc/self/mountinfo)? */
static bool mounted(int64_t major, int64_t minor)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char line[4096];
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f)) {
        long long maj, min;
        if (sscanf(line, "%*s %*s %lld:%lld", &maj, &min) == 2 && maj == major && min == minor)
            found = true;
    }
    if (f)
        fclose(f);
    return found;
}

/* Is the LV's device a holder's (the kernel's holders/: a dm table maps onto it)?
 * LVM2 then says "... is used by another device." */
static bool held_by_device(const struct lvx_lv_kstate *ks)
{
    return ks->held_by_lv || (ks->major >= 0 && ks->minor >= 0 &&
                              lvx_lvdev_has_holders((uint32_t)ks->major, (uint32_t)ks->minor));
}

/* An open LV that this command itself holds (read as a PV, devices/scan_lvs 1): its
 * descriptors let go and the state read again. */
static void drop_own_opens(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                           const struct lvx_lv *lv, struct lvx_lv_kstate *ks)
{
    if (ks->open_count > 0 && ks->major >= 0 && ks->minor >= 0 &&
        lvx_lvdev_drop_own_opens((uint32_t)ks->major, (uint32_t)ks->minor) > 0)
        lvx_actcmd_is_active(env, a, lv, ks);
}

bool lvx_actcmd_in_use(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                       const struct lvx_lv *lv)
{
    struct lvx_lv_kstate ks;
    if (!lvx_actcmd_is_active(env, a, lv, &ks))
        return false;
    drop_own_opens(env, a, lv, &ks);
    if (ks.open_count <= 0)
        return false;
    if (held_by_device(&ks))
        lvx_cmd_errorf("Logical volume %s/%s is used by another device.", lv->vg->name,
                       lv->name);
    else if (mounted(ks.major, ks.minor))
        lvx_cmd_errorf("Logical volume %s/%s contains a filesystem in use.", lv->vg->name,
                       lv->name);
    else
        lvx_cmd_errorf("Logical volume %s/%s in use.", lv->vg->name, lv->name);
    return true;
}

int lvx_actcmd_activate(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                        const struct lvx_lv *lv)
{
    if (a->off)           /* global/activation = 0: the LV stays inactive, as LVM2 */
        return 0;
    if (a->volume_list && !lvx_lvcmd_passes_volume_list(env->ctx, lv)) {   /* silently */
        lvx_info(env->ctx, "Not activating %s/%s since it does not pass activation filter.",
                 lv->vg->name, lv->name);
        return 0;
    }
    if (!a->be) {
        lvx_actcmd_print_why(a);
        return LVX_EXIT_FAILED;
    }
    /* the LV's lease is held by the lvx daemon while the LV is active (both backends) */
    bool lockd = lvx_vg_is_lockd(lv->vg);
    if (lockd && lvx_lockd_lv_mode_check(env->ctx, lv, a->opts.lock_shared) < 0) {
        int rc = lvx_cmd_fail(env);
        lvx_cmd_errorf("Failed to lock logical volume %s/%s.", lv->vg->name, lv->name);
        return rc == LVX_EXIT_INVALID ? LVX_EXIT_FAILED : rc;
    }
    if (a->test)
        return 0;
    if (lvx_activate_lv(env->ctx, a->be, lv, &a->opts) < 0) {
        bool lock_failed = lockd && env->ctx->err == -EAGAIN;
        int rc = lvx_cmd_fail(env);
        if (lock_failed)      /* LVM2's second line */
            lvx_cmd_errorf("Failed to lock logical volume %s/%s.", lv->vg->name, lv->name);
        return rc;
    }
    return 0;
}

static int deactivate(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                      const struct lvx_lv *lv, bool force, bool snapshot_only);

int lvx_actcmd_deactivate(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                          const struct lvx_lv *lv, bool force)
{
    return deactivate(env, a, lv, force, false);
}

int lvx_actcmd_deactivate_snapshot(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                                   const struct lvx_lv *cow, bool force)
{
    return deactivate(env, a, cow, force, true);
}

static int deactivate(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                      const struct lvx_lv *lv, bool force, bool snapshot_only)
{
    struct lvx_lv_kstate ks;
    if (!lvx_actcmd_is_active(env, a, lv, &ks))
        return 0;
    drop_own_opens(env, a, lv, &ks);
    /* the user backend's LV under another active LV (devices/scan_lvs); the dm
     * backend refuses an LV its holders keep open itself (activate/dm_backend.c) */
    if (ks.open_count > 0 && !force && ks.held_by_lv) {
        lvx_cmd_errorf("Logical volume %s/%s is used by another device.", lv->vg->name,
                       lv->name);
        return LVX_EXIT_FAILED;
    }
    if (ks.open_count > 0 && mounted(ks.major, ks.minor)) {
        lvx_cmd_errorf("Logical volume %s/%s contains a filesystem in use.", lv->vg->name,
                       lv->name);
        return LVX_EXIT_FAILED;
    }
    if (a->test)
        return 0;
    struct lvx_activate_opts o = a->opts;
    o.force = force;
    o.snapshot_only = snapshot_only;
    if (a->be->deactivate(env->ctx, lv, &o) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

/* Is lv flagged to be skipped at activation (and no -K/--ignoreactivationskip)? */
static bool skipped_lv(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    return (lv->flags & LVX_LVF_ACTIVATION_SKIP) &&
           !env->args->count[LVX_OPT_IGNOREACTIVATIONSKIP];
}

/* -aay leaves out (as LVM2, silently) an LV flagged NOAUTOACTIVATE, of a VG so
 * flagged, or not in lvm.conf activation/auto_activation_volume_list. */
static bool not_autoactivated(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    return lvx_lvcmd_autoactivating(env) &&
           ((lv->flags & LVX_LVF_NOAUTOACTIVATE) || (lv->vg->flags & LVX_VGF_NOAUTOACTIVATE) ||
            !lvx_lvcmd_passes_auto_list(env->ctx, lv));
}

/* LVs that vgchange/lvchange -a act on: visible, not skipped, of the VG. */
static bool wanted_lv(struct lvx_cmd_env *env, const struct lvx_lv *lv, bool activate)
{
    if (!lvx_lv_is_visible(lv))
        return false;
    return !activate || (!skipped_lv(env, lv) && !not_autoactivated(env, lv));
}

static unsigned count_active(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                             const struct lvx_vg *vg)
{
    unsigned n = 0;
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (lvx_lv_is_visible(vg->lvs[i]) && lvx_actcmd_is_active(env, a, vg->lvs[i], NULL))
            n++;
    return n;
}

/* A foreign VG (meta/systemid.h) with LVs active here may be read for -a (LVM2 lets
 * them be deactivated, with a warning, and refuses to activate more); any other
 * foreign VG is refused.  0 or the exit code (printed). */
static int foreign_access(struct lvx_cmd_env *env, struct lvx_vg_update *u, int activate)
{
    struct lvx_vg *vg = u->vg;
    if (!lvx_vg_is_foreign(env->ctx, vg))
        return 0;
    if (activate >= 0 && lvx_vgcmd_has_active_lv(env, vg)) {
        lvx_warn(env->ctx, "WARNING: Found LVs active in VG %s with foreign system ID %s.  "
                 "Possible data corruption.", vg->name, vg->system_id);
        if (!activate)
            return 0;
        lvx_cmd_errorf("Cannot activate LVs in a foreign VG.");
        return LVX_EXIT_FAILED;
    }
    lvx_vg_foreign_refuse(env->ctx, vg);
    return lvx_cmd_fail(env);
}

/* The VG of a (de)activation (activate 1/0) or another kernel change (-1), read. */
static int begin_read(struct lvx_cmd_env *env, const char *vgname, struct lvx_vg_update *u,
                      int activate)
{
    struct lvx_scan_opts so = lvx_vgcmd_scan_opts(env);
    lvx_cmdlog_object("vg", vgname, NULL, NULL, NULL);
    if (lvx_vg_update_begin(env->ctx, &so, vgname, LVX_UPDATE_READ_ONLY |
                            LVX_UPDATE_ALLOW_MISSING | LVX_UPDATE_ALLOW_FOREIGN, u) < 0)
        return lvx_cmd_fail(env);
    int rc = foreign_access(env, u, activate);
    if (rc) {
        lvx_vg_update_end(u);
        return rc;
    }
    lvx_vgcmd_log_id(u);
    if (u->vg->status & LVX_VG_EXPORTED) {      /* LVM2: no (de)activation either */
        lvx_cmd_errorf("Volume group %s is exported", u->vg->name);
        lvx_vg_update_end(u);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* begin_read() for an activation: thin merges waiting in the VG end first
 * (cmd/thin_cmd.c), then the VG is read again. */
static bool polling(struct lvx_cmd_env *env)
{
    return !(env->args->count[LVX_OPT_POLL] && !env->args->val[LVX_OPT_POLL].b);
}

static int begin_activation(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                            const char *vgname, const char *lvname, struct lvx_vg_update *u,
                            int activate)
{
    int rc = begin_read(env, vgname, u, activate);
    /* --poll n (--sysinit): LVM2's activation merges in the kernel only (the origin
     * maps its snapshot's thin device, map/thin.c); the metadata wait for a later
     * activation or refresh (finish_thin_merges) */
    if (rc || activate != 1 || !polling(env) || !lvx_thin_cmd_has_merges(u->vg))
        return rc;
    lvx_vg_update_end(u);
    if ((rc = lvx_thin_cmd_finish_merges(env, a, vgname)))
        return rc;
    return begin_read(env, vgname, u, activate);
}

/* After activating LVs of vgname: a merge into an origin that now runs (the kernel's
 * snapshot-merge, or the daemon's merge, which the poll drives) is waited for and
 * finished, as LVM2's background poller does. */
static int finish_merges(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                         const char *vgname)
{
    struct lvx_vg_update u;
    int rc = 0;
    if (a->off || !a->be || a->test || (strcmp(a->be->name, "dm") != 0 && !a->be->merge_step) ||
        (env->args->count[LVX_OPT_POLL] && !env->args->val[LVX_OPT_POLL].b))
        return 0;
    if ((rc = lvx_lvcmd_begin(env, vgname, &u)))
        return rc;
    for (unsigned i = 0; i < u.vg->lv_count && !rc; i++) {
        struct lvx_lv *lv = u.vg->lvs[i];
        struct lvx_lv_kstate ks;
        if (lvx_lv_merging_snapshot(lv) && lvx_actcmd_is_active(env, a, lv, &ks) &&
            ks.snap_merging)
            rc = lvx_merge_poll(env, &u, a, lv, 0, false);
    }
    lvx_vg_update_end(&u);
    return rc;
}

/* After an activation or refresh of vgname: the thin merges the kernel now does (an
 * origin mapping its snapshot's thin device) finished in the metadata, as LVM2's
 * poller does (not with --poll n, --sysinit). */
static int finish_thin_merges(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                              const char *vgname, bool thin_merges)
{
    return thin_merges && polling(env) ? lvx_thin_cmd_finish_kernel_merges(env, a, vgname) : 0;
}

/* Does the VG hold an origin whose merge waits for an activation? */
static bool has_merges(const struct lvx_vg *vg)
{
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (lvx_lv_merging_snapshot(vg->lvs[i]))
            return true;
    return false;
}

/* lvchange --refresh of one LV: an active LV activated again, which loads the tables
 * the metadata gives where the kernel's differ (the dm backend), with the activation
 * checks (a partial LV needs --activationmode partial); an inactive LV is left alone. */
static int refresh_lv(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                      const struct lvx_lv *lv)
{
    if (a->off || !lvx_actcmd_is_active(env, a, lv, NULL))
        return 0;
    struct lvx_actcmd r = *a;
    r.opts.refresh = true;
    return lvx_actcmd_activate(env, &r, lv);
}

/* LVM2's lv_change_activate and lv_refresh for the origin of a thin merge that waits
 * (cmd/thin_cmd.c): its hidden snapshot is deactivated first.  While the snapshot
 * cannot be (open): a refresh goes on after "Delaying merge ...", a deactivation goes
 * on but fails (-1 here), an activation is refused (LVX_EXIT_FAILED).  0: go on. */
static int merging_snapshot_down(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                                 const struct lvx_lv *lv, bool activate, bool refresh)
{
    /* only a thin LV pays for the look over the VG's LVs */
    const struct lvx_seg *m = lvx_lv_is_thin(lv) ? lvx_thin_merging_into(lv) : NULL;
    if (!m || a->off || !a->be || a->test || !lvx_actcmd_is_active(env, a, m->lv, NULL) ||
        lvx_actcmd_deactivate(env, a, m->lv, false) == 0)
        return 0;
    const char *o = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    const char *sn = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, m->lv->name);
    if (refresh) {
        lvx_notice(env->ctx, "Delaying merge for origin volume %s since snapshot volume %s is "
                   "still active.", o, sn);
        return 0;
    }
    if (activate) {
        lvx_cmd_errorf("Refusing to activate merging volume %s while snapshot volume %s is "
                       "still active.", o, sn);
        return LVX_EXIT_FAILED;
    }
    lvx_cmd_errorf("Cannot fully deactivate merging origin volume %s while snapshot volume %s "
                   "is still active.", o, sn);
    return -1;
}

/* -a y|n, or --refresh (lvchange). */
static int change_lv(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                     const struct lvx_lv *lv, bool activate)
{
    bool refresh = env->args->count[LVX_OPT_REFRESH] > 0;
    int first = merging_snapshot_down(env, a, lv, activate, refresh);
    if (first > 0)
        return first;
    int rc = refresh ? refresh_lv(env, a, lv)
             : activate ? lvx_actcmd_activate(env, a, lv)
                        : lvx_actcmd_deactivate(env, a, lv, env->args->count[LVX_OPT_FORCE] > 0);
    return rc ? rc : first < 0 ? LVX_EXIT_FAILED : 0;
}

/* A thin snapshot whose merge waits for its origin (hidden, cmd/thin_cmd.c). */
static bool merging_thin_snapshot(const struct lvx_lv *lv)
{
    const struct lvx_seg *seg = lvx_lv_thin_seg(lv);
    return seg && seg->merging;
}

/* Is lv the origin of a thin merge that waits whose snapshot is active (and a a real
 * activation)? */
static bool snapshot_first(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                           const struct lvx_lv *lv)
{
    const struct lvx_seg *m = lv && lvx_lv_is_thin(lv) ? lvx_thin_merging_into(lv) : NULL;
    return m && !a->off && a->be && !a->test && lvx_actcmd_is_active(env, a, m->lv, NULL);
}

/* lvchange -ay of the origin of a thin merge that waits, whose snapshot is active: the
 * snapshot goes down first (or the activation is refused), then the VG is read again:
 * begin_activation ends the merge before the origin is activated.  0: go on with u. */
static int merge_first(struct lvx_cmd_env *env, const struct lvx_actcmd *a, const char *vgname,
                       const char *lvname, struct lvx_vg_update *u)
{
    const struct lvx_lv *lv = lvx_vg_find_lv(u->vg, lvname);
    if (!snapshot_first(env, a, lv))
        return 0;
    int rc = merging_snapshot_down(env, a, lv, true, false);
    lvx_vg_update_end(u);
    if (rc)
        return rc;
    return begin_activation(env, a, vgname, lvname, u, 1);
}

/* merge_first for all the LVs vgchange/lvchange -ay of a VG activates (LVM2's
 * lv_change_activate for each): each such origin's snapshot goes down, then the VG is
 * read again, which ends those merges before any origin is activated.  An origin
 * whose snapshot stays (open) is refused here, *rc set; the caller's loop leaves it
 * out (snapshot_first still true).  0: go on with u; else u is ended. */
static int merges_first(struct lvx_cmd_env *env, const struct lvx_actcmd *a, const char *vgname,
                        struct lvx_vg_update *u, int *rc)
{
    bool down = false;
    for (unsigned i = 0; i < u->vg->lv_count; i++) {
        const struct lvx_lv *lv = u->vg->lvs[i];
        if (!wanted_lv(env, lv, true) || !snapshot_first(env, a, lv))
            continue;
        int r = merging_snapshot_down(env, a, lv, true, false);
        if (r > *rc)
            *rc = r;
        down = down || !r;
    }
    if (!down)
        return 0;
    lvx_vg_update_end(u);
    return begin_activation(env, a, vgname, NULL, u, 1);
}

/* vgchange -an of a VG with open visible LVs (mounted, or the PVs of a VG stacked on
 * them): refused whole, as LVM2: the first one's "in use." line, then the count. */
static bool vg_has_open_lvs(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                            const struct lvx_vg *vg)
{
    unsigned open = 0;
    const struct lvx_lv *first = NULL;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_lv_kstate ks;
        const struct lvx_lv *lv = vg->lvs[i];
        /* a thin pool is held by its own thin LVs (LVM2's visible pool device is not) */
        if (!lvx_lv_is_visible(lv) || lvx_lv_is_thin_pool(lv) ||
            !lvx_actcmd_is_active(env, a, lv, &ks))
            continue;
        drop_own_opens(env, a, lv, &ks);
        if (ks.open_count > 0) {
            open++;
            first = first ? first : lv;
        }
    }
    if (!open || !lvx_actcmd_in_use(env, a, first))
        return false;
    lvx_cmd_errorf("Can't deactivate volume group \"%s\" with %u open logical volume(s)",
                   vg->name, open);
    return true;
}

static int vg_activation(struct lvx_cmd_env *env, const struct lvx_actcmd *a, const char *name,
                         bool activate)
{
    struct lvx_vg_update u;
    int refused = 0, rc = begin_activation(env, a, name, NULL, &u, activate);
    if (rc)
        return rc;
    if (activate && lvx_lvcmd_autoactivating(env) && (u.vg->flags & LVX_VGF_NOAUTOACTIVATE)) {
        lvx_vg_update_end(&u);          /* LVM2: "Autoactivation is disabled", no count */
        return 0;
    }
    if (!activate && !a->off && !env->args->count[LVX_OPT_REFRESH] &&
        vg_has_open_lvs(env, a, u.vg)) {
        lvx_vg_update_end(&u);
        return LVX_EXIT_FAILED;
    }
    if (activate && (rc = merges_first(env, a, name, &u, &refused)))
        return rc;
    rc = refused;
    for (unsigned i = 0; i < u.vg->lv_count; i++) {
        const struct lvx_lv *lv = u.vg->lvs[i];
        if (!wanted_lv(env, lv, activate) || (activate && snapshot_first(env, a, lv)))
            continue;
        int r = change_lv(env, a, lv, activate);
        if (r > rc)
            rc = r;
    }
    lvx_notice(env->ctx, "%u logical volume(s) in volume group \"%s\" now active",
               count_active(env, a, u.vg), u.vg->name);
    bool merges = activate && has_merges(u.vg);
    bool thin_merges = activate && lvx_thin_cmd_has_merges(u.vg);
    /* moves whose pvmoveN the kernel now runs: polled by a background copier, as
     * LVM2's activation starts its poller (not with --poll n) */
    const char *moves[8][3];
    unsigned nmoves = 0;
    bool poll = polling(env);
    for (unsigned i = 0; activate && poll && !a->test && a->be == &lvx_activation_dm &&
                         i < u.vg->lv_count && nmoves < 8; i++) {
        const struct lvx_lv *lv = u.vg->lvs[i];
        const struct lvx_pv *src = (lv->status & LVX_LV_PVMOVE) ? lvx_pvmove_source(lv) : NULL;
        if (src && lvx_dm_pvmove_live(env->ctx, lv)) {
            moves[nmoves][0] = lvx_pool_strdup(env->pool, u.vg->name);
            moves[nmoves][1] = lvx_pool_strdup(env->pool, lv->uuid);
            moves[nmoves][2] = lvx_pool_strdup(env->pool, lvx_cmd_pv_name(src));
            nmoves++;
        }
    }
    /* CONVERTING mirrors now stacked in dm: one poller each, as LVM2's activation */
    struct lvx_mirror_pollers pollers = { 0 };
    if (activate && poll)
        lvx_mirror_pollers_collect(env, a, u.vg, &pollers);
    lvx_vg_update_end(&u);
    if (merges) {
        int r = finish_merges(env, a, name);
        if (r > rc)
            rc = r;
    }
    int tr = finish_thin_merges(env, a, name, thin_merges);
    if (tr > rc)
        rc = tr;
    tr = lvx_mirror_pollers_spawn(env, &pollers);
    if (tr > rc)
        rc = tr;
    for (unsigned i = 0; i < nmoves; i++) {
        int r = lvx_pvmove_background(env, moves[i][0], moves[i][1], moves[i][2]);
        if (r > rc)
            rc = r;
    }
    return rc;
}

/* fn over the names with one backend chosen for all: the highest exit code. */
static int activate_each(struct lvx_cmd_env *env, char **names, unsigned count, bool activate,
                         int (*fn)(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                                   const char *name, bool activate))
{
    struct lvx_actcmd a;
    int rc = lvx_actcmd_init_activating(env, &a);
    if (rc)
        return rc;
    if (!a.be && !a.off) {
        lvx_actcmd_print_why(&a);
        return LVX_EXIT_FAILED;
    }
    for (unsigned i = 0; i < count; i++) {
        int r = fn(env, &a, names[i], activate);
        if (r > rc)
            rc = r;
    }
    return rc;
}

/* lvchange --syncaction: LVM2's lv_raid_message for one VG/LV argument. */
static int syncaction_one(struct lvx_cmd_env *env, const struct lvx_actcmd *a, const char *arg,
                          const char *msg)
{
    const char *vgname, *lvname;
    struct lvx_vg_update u;
    struct lvx_lv_kstate ks;
    if (!lvx_lvcmd_split_name(env, arg, &vgname, &lvname) || !lvname) {
        lvx_cmd_errorf("\"%s\": Invalid path for Logical Volume.", arg);
        return LVX_EXIT_FAILED;
    }
    int rc = begin_read(env, vgname, &u, -1);
    if (rc)
        return rc;
    const struct lvx_lv *lv = lvx_vg_find_lv(u.vg, lvname);
    if (!lv) {
        lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vgname, lvname);
        rc = LVX_EXIT_FAILED;
    } else if (!lvx_map_lv_is_raid(lv)) {
        /* LVM2's command definitions take only RAID LVs for --syncaction */
        lvx_cmd_errorf("Command on LV %s/%s does not accept LV type %s.", vgname, lvname,
                       lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "linear");
        lvx_cmd_errorf("Command not permitted on LV %s/%s.", vgname, lvname);
        rc = LVX_EXIT_FAILED;
    } else if (!lvx_actcmd_is_active(env, a, lv, &ks)) {
        lvx_cmd_errorf("Unable to send message to an inactive logical volume.");
        rc = LVX_EXIT_FAILED;
    } else if (!a->be->message || !ks.raid || !ks.sync_action[0]) {
        lvx_cmd_errorf("Kernel driver does not support this action: %s", msg);
        rc = LVX_EXIT_FAILED;
    } else if (strcmp(msg, "check") && strcmp(msg, "repair")) {
        lvx_cmd_errorf("\"%s\" is not a supported sync operation.", msg);
        rc = LVX_EXIT_FAILED;
    } else if (strcmp(ks.sync_action, "idle")) {
        lvx_cmd_errorf("%s/%s state is currently \"%s\".  Unable to switch to \"%s\".", vgname,
                       lvname, ks.sync_action, msg);
        rc = LVX_EXIT_FAILED;
    } else if (a->be->message(env->ctx, lv, msg) < 0) {
        rc = lvx_cmd_fail(env);
    }
    lvx_vg_update_end(&u);
    return rc;
}

int lvx_actcmd_syncaction(struct lvx_cmd_env *env, char **args, unsigned count, const char *msg)
{
    struct lvx_actcmd a;
    int rc = lvx_actcmd_init(env, &a);
    if (rc)
        return rc;
    for (unsigned i = 0; i < count; i++) {
        int r = syncaction_one(env, &a, args[i], msg);
        if (r > rc)
            rc = r;
    }
    return rc;
}



int lvx_actcmd_vgchange(struct lvx_cmd_env *env, char **names, unsigned count, bool activate)
{
    return activate_each(env, names, count, activate, vg_activation);
}

/* lvchange -a of a COW LV changes its origin and all its snapshots: LVM2's question
 * first (not with -y).  0, or LVX_EXIT_FAILED when the answer is no. */
static int confirm_snapshot_change(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv);
    if (!cs || !cs->origin_lv || env->args->count[LVX_OPT_YES] ||
        lvx_lv_is_virtual_origin(cs->origin_lv))      /* a sparse LV: not asked (LVM2) */
        return 0;
    unsigned others = lvx_lv_snapshot_segs(cs->origin_lv, NULL, 0) - 1;
    const char *more = others ? lvx_pool_printf(env->pool, " and %u other snapshot(s)", others)
                              : "";
    const char *q = lvx_pool_printf(env->pool, "Change of snapshot %s/%s will also change its "
                                    "origin %s/%s%s. Proceed?", lv->vg->name, lv->name,
                                    lv->vg->name, cs->origin_lv->name, more);
    if (lvx_lvcmd_confirm(q))
        return 0;
    lvx_cmd_errorf("Logical volume %s/%s not changed.", lv->vg->name, lv->name);
    return LVX_EXIT_FAILED;
}

/* A component LV (LVM2's: a hidden LV another one uses as its image, metadata, pool
 * data, cache or writecache origin, cachevol...) named alone: activated read-only
 * after LVM2's question (yes with -y), else LVM2's refusal; writing to it would go
 * around the LV it is part of. */
static bool component_lv(const struct lvx_lv *lv)
{
    const char *role = NULL;
    const struct lvx_seg *user = lvx_lv_is_visible(lv) ? NULL : lvx_lv_used_by(lv, &role);
    /* a snapshot's or thin LV's origin (a sparse LV's _vorigin) is no component */
    if (!user || !role || user->kind == LVX_SEG_SNAPSHOT || user->kind == LVX_SEG_THIN)
        return false;
    return strcmp(role, "pool") != 0 && strcmp(role, "cow") != 0;
}

static int activate_component(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                              const struct lvx_lv *lv)
{
    if (!env->args->count[LVX_OPT_YES] &&
        !lvx_lvcmd_confirm("Do you want to activate component LV in read-only mode?")) {
        lvx_cmd_errorf("Operation not permitted on hidden LV %s/%s.", lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_actcmd ro = *a;
    ro.opts.read_only = true;
    ro.opts.component = true;
    return lvx_actcmd_activate(env, &ro, lv);
}

/* -an of a whole VG takes down component LVs activated on their own too (LVM2's
 * process_component_lvs): those still active whose LV is not. */
static int deactivate_components(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                                 const struct lvx_vg *vg)
{
    int rc = 0;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_lv *lv = vg->lvs[i], *top;
        if (!component_lv(lv) || !lvx_actcmd_is_active(env, a, lv, NULL))
            continue;
        if ((top = lvx_lv_top(lv)) != lv && lvx_actcmd_is_active(env, a, top, NULL))
            continue;
        int r = lvx_actcmd_deactivate(env, a, lv, env->args->count[LVX_OPT_FORCE] > 0);
        if (r > rc)
            rc = r;
    }
    return rc;
}

/* lvchange -a y|n (activate) or --refresh (activate false) of one argument. */
static int lvchange_one(struct lvx_cmd_env *env, const struct lvx_actcmd *a, const char *arg,
                        bool activate)
{
    bool refresh = env->args->count[LVX_OPT_REFRESH] > 0;
    const char *vgname, *lvname;
    struct lvx_vg_update u;
    int rc;
    if (!lvx_lvcmd_split_name(env, arg, &vgname, &lvname)) {
        lvx_cmd_errorf("Invalid logical volume name \"%s\".", arg);
        return LVX_EXIT_INVALID;
    }
    if ((rc = begin_activation(env, a, vgname, lvname, &u, refresh ? -1 : activate)))
        return rc;
    if (lvname && activate && !refresh && (rc = merge_first(env, a, vgname, lvname, &u)))
        return rc;
    if (lvname) {
        const struct lvx_lv *lv = lvx_vg_find_lv(u.vg, lvname);
        if (!lv) {
            lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vgname, lvname);
            rc = LVX_EXIT_FAILED;
        } else if (!lvx_lv_is_visible(lv) && (refresh || merging_thin_snapshot(lv))) {
            /* LVM2's _lvchange_refresh_check / _lvchange_activate_check */
            lvx_cmd_errorf("Operation not permitted on hidden LV %s/%s.", vgname, lvname);
            rc = LVX_EXIT_FAILED;
        } else if (activate && skipped_lv(env, lv)) {       /* LVM2: skipped, exit 0 */
            lvx_info(env->ctx, "Skipping activation of %s/%s: it is flagged to be skipped "
                     "(use -K).", vgname, lvname);
        } else if (activate && not_autoactivated(env, lv)) {  /* LVM2: silently, exit 0 */
        } else if (activate && !refresh && component_lv(lv)) {
            rc = activate_component(env, a, lv);
        } else if (refresh || !(rc = confirm_snapshot_change(env, lv))) {
            rc = change_lv(env, a, lv, activate);
        }
    } else {
        int refused = 0;
        if (activate && !refresh && (rc = merges_first(env, a, vgname, &u, &refused)))
            return rc;
        rc = refused;
        for (unsigned i = 0; i < u.vg->lv_count; i++) {
            if (!wanted_lv(env, u.vg->lvs[i], activate) ||
                (activate && !refresh && snapshot_first(env, a, u.vg->lvs[i])))
                continue;
            /* all of a VG: a COW LV changes with its origin, not asked for (LVM2) */
            if (!refresh && lvx_lv_cow_snapshot_seg(u.vg->lvs[i]))
                continue;
            int r = refresh ? 0 : confirm_snapshot_change(env, u.vg->lvs[i]);
            if (!r)
                r = change_lv(env, a, u.vg->lvs[i], activate);
            if (r > rc)
                rc = r;
        }
        if (!activate && !refresh) {
            int r = deactivate_components(env, a, u.vg);
            if (r > rc)
                rc = r;
        }
    }
    bool merges = activate && has_merges(u.vg);
    bool thin_merges = (activate || refresh) && lvx_thin_cmd_has_merges(u.vg);
    struct lvx_mirror_pollers pollers = { 0 };
    if (activate && !refresh && polling(env)) {
        lvx_mirror_pollers_collect(env, a, u.vg, &pollers);
        if (lvname) {                   /* only the LV named */
            unsigned k = 0;
            for (unsigned i = 0; i < pollers.n; i++)
                if (!strcmp(pollers.lv[i], lvname)) {
                    pollers.lv[k] = pollers.lv[i];
                    pollers.uuid[k++] = pollers.uuid[i];
                }
            pollers.n = k;
        }
    }
    lvx_vg_update_end(&u);
    if (merges) {
        int r = finish_merges(env, a, vgname);
        if (r > rc)
            rc = r;
    }
    int tr = finish_thin_merges(env, a, vgname, thin_merges);
    if (tr > rc)
        rc = tr;
    tr = lvx_mirror_pollers_spawn(env, &pollers);
    return tr > rc ? tr : rc;
}

int lvx_actcmd_lvchange(struct lvx_cmd_env *env, char **args, unsigned count, bool activate)
{
    return activate_each(env, args, count, activate, lvchange_one);
}

int lvx_actcmd_refresh(struct lvx_cmd_env *env, char **args, unsigned count)
{
    return activate_each(env, args, count, false, lvchange_one);
}

int lvx_actcmd_stage(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                     const struct lvx_lv *lv, bool *staged)
{
    *staged = false;
    if (a->test || !lvx_actcmd_is_active(env, a, lv, NULL))
        return 0;
    if (a->be->stage(env->ctx, lv, &a->opts) < 0)
        return lvx_cmd_fail(env);
    *staged = true;
    return 0;
}

int lvx_actcmd_finish(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                      const struct lvx_lv *lv, bool committed)
{
    if (!committed) {
        if (a->be->unstage(env->ctx, lv) < 0)
            lvx_error_clear(env->ctx);
        return 0;
    }
    if (a->be->swap(env->ctx, lv) < 0) {
        lvx_cmd_fail(env);
        lvx_cmd_errorf("Failed to reload %s/%s: the metadata changed but the active device "
                       "keeps its old table (deactivate and activate it again).",
                       lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* --- the report's kernel-state hook ------------------------------------- */
struct hook_arg {
    struct lvx_cmd_env *env;
    struct lvx_actcmd act;
    bool monitoring;            /* activation/monitoring (seg_monitor "" when 0) */
    const struct lvx_lv *top;   /* sub_lv_kstate: the last RAID/mirror top asked about */
    int top_rc;                 /* ... its status call's result */
    struct lvx_lv_kstate top_ks;/* ... and state (one daemon query per top, not per sub-LV) */
};

int lvx_actcmd_reload_thin(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                           const struct lvx_lv *lv)
{
    if (!a->be || a->test)
        return 0;
    if (lvx_actcmd_is_active(env, a, lv, NULL))
        return lvx_actcmd_activate(env, a, lv);
    if (lvx_lv_is_thin(lv))
        return 0;
    for (unsigned i = 0; i < lv->vg->lv_count; i++) {
        const struct lvx_seg *s = lvx_lv_thin_seg(lv->vg->lvs[i]);
        if (s && s->pool_lv == lv && lvx_actcmd_is_active(env, a, lv->vg->lvs[i], NULL))
            return lvx_actcmd_activate(env, a, lv->vg->lvs[i]);
    }
    return 0;
}

/* A backend without sub-LV devices (rename_sub NULL: the user backend, whose daemon
 * serves a RAID or mirror LV as one device) has no state of its own for the hidden
 * images, rmeta, logs and resync layers under an active RAID or mirror LV, where LVM2
 * on dm has devices, active and held open by the LV above them ("iwi-aor---",
 * "lwi-aom---"): such a sub-LV takes that state from the top of its RAID/mirror stack
 * (no major/minor: there is no device). */
static void sub_lv_kstate(struct hook_arg *h, const struct lvx_lv *lv, struct lvx_lv_kstate *out)
{
    if (out->active || h->act.be->rename_sub || lvx_lv_is_visible(lv))
        return;
    const struct lvx_lv *top = lv;
    const struct lvx_seg *seg;
    for (unsigned depth = 0; depth < 16 && (seg = lvx_lv_used_by(top, NULL)) &&
                             (seg->kind == LVX_SEG_RAID || seg->kind == LVX_SEG_MIRROR);
         depth++)
        top = seg->lv;
    if (top == lv)
        return;
    if (top != h->top) {        /* a report lists a top's sub-LVs one after another */
        h->top = top;
        memset(&h->top_ks, 0, sizeof(h->top_ks));
        h->top_rc = h->act.be->status(h->env->ctx, top, &h->top_ks);
        lvx_error_clear(h->env->ctx);
    }
    const struct lvx_lv_kstate ks = h->top_ks;
    if (h->top_rc < 0 || !ks.active)
        return;
    out->active = out->live_table = true;
    out->suspended = ks.suspended;
    out->open_count = 1;
    out->held_by_lv = true;
    out->backend = ks.backend;
}

static int report_kstate(void *arg, const struct lvx_lv *lv, struct lvx_lv_kstate *out)
{
    struct hook_arg *h = arg;
    int rc = h->act.be->status(h->env->ctx, lv, out);
    if (rc < 0)
        lvx_error_clear(h->env->ctx);
    else
        sub_lv_kstate(h, lv, out);
    if (!h->monitoring)          /* LVM2 reports no monitoring then */
        out->monitored = -1;
    return rc;
}

void lvx_actcmd_report_hook(struct lvx_cmd_env *env, struct lvx_report_opts *opts)
{
    struct hook_arg *h = lvx_pool_alloc(env->pool, sizeof(*h));
    h->env = env;
    memset(&h->act, 0, sizeof(h->act));
    struct lvx_config *cfg = load_config(env);
    h->monitoring = !cfg || lvx_config_int(cfg, "activation/monitoring", 1) != 0;
    lvx_config_free(cfg);
    h->act.be = lvx_activation_choose(env->ctx, NULL);
    lvx_error_clear(env->ctx);
    if (!h->act.be)
        return;
    opts->lv_kstate = report_kstate;
    opts->kstate_arg = h;
}
