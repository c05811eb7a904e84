/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgchange.c - `lvx vgchange OPTIONS [VG...]` (all VGs when none is named):
 * -x/--resizeable y|n, --vgmetadatacopies N|all|unmanaged (alias --metadatacopies),
 * --alloc POLICY, --addtag/--deltag TAG, -u/--uuid (new VG UUID),
 * -l/--maxlogicalvolumes N, -p/--maxphysicalvolumes N, -s/--physicalextentsize SIZE
 * (model/extent_size.c), --profile/--metadataprofile NAME, --detachprofile (the
 * VG's metadata profile).  Each VG is changed in its own update (VG lock, commit,
 * backup); the vgmetadatacopies policy is applied by
 * the commit (meta/mda_policy.c).  -a y|n [--activationmode partial] activates or
 * deactivates the VGs' LVs (cmd/activation.c), after any metadata change.
 * --lockstart/--lockstop join/leave the sanlock lockspaces of shared VGs (meta/lockd.h;
 * other VGs are passed over, as by LVM2); --locktype none|sanlock: cmd/vgchange_locktype.c,
 * --systemid: cmd/vgchange_systemid.c.
 */
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"

#include "cmd/actcmd.h"
#include "cmd/lvcmd.h"
#include "cmd/vgchange_locktype.h"

#include <string.h>

#include "meta/lockd.h"
#include "meta/mda_policy.h"
#include "meta/scan.h"

struct change {
    bool x_given, resizeable;
    bool mda_given, mda_all;
    uint32_t mda_copies;
    bool alloc_given;
    enum lvx_alloc alloc;
    bool maxlv_given, maxpv_given;
    uint32_t max_lv, max_pv;
    bool uuid;
    bool pesize_given;
    uint32_t pesize;                /* -s: sectors */
    bool autoact_given, autoact;    /* --setautoactivation y|n */
    bool profile_given;             /* --profile/--metadataprofile NAME, --detachprofile */
    const char *profile;            /* NULL: detach */
    bool metadata;      /* a metadata change was asked (not only -a) */
};

static int parse_change(struct lvx_cmd_env *env, struct change *c)
{
    struct lvx_cmd_args *a = env->args;
    int rc;
    c->maxlv_given = a->count[LVX_OPT_MAXLOGICALVOLUMES] != 0;
    c->maxpv_given = a->count[LVX_OPT_MAXPHYSICALVOLUMES] != 0;
    c->uuid = a->count[LVX_OPT_UUID] != 0;
    c->x_given = a->count[LVX_OPT_RESIZEABLE] != 0;
    c->resizeable = lvx_cmd_bool(env, LVX_OPT_RESIZEABLE, false);
    c->pesize_given = a->count[LVX_OPT_PHYSICALEXTENTSIZE] != 0;
    if ((rc = lvx_vgcmd_extent_size(env, &c->pesize)))
        return rc;
    lvx_vgcmd_uint_opt(env, LVX_OPT_MAXLOGICALVOLUMES, &c->max_lv);
    lvx_vgcmd_uint_opt(env, LVX_OPT_MAXPHYSICALVOLUMES, &c->max_pv);
    if ((rc = lvx_vgcmd_mda_copies(env, &c->mda_given, &c->mda_copies, &c->mda_all)))
        return rc;
    if (a->count[LVX_OPT_ALLOC]) {
        c->alloc_given = true;
        if (lvx_alloc_parse(a->value[LVX_OPT_ALLOC], &c->alloc) < 0) {
            lvx_cmd_errorf("Invalid argument for --alloc: %s", a->value[LVX_OPT_ALLOC]);
            return LVX_EXIT_INVALID;
        }
        if (c->alloc == LVX_ALLOC_INHERIT) {
            lvx_cmd_errorf("Volume Group allocation policy cannot inherit from anything");
            return LVX_EXIT_INVALID;
        }
    }
    c->autoact_given = a->count[LVX_OPT_SETAUTOACTIVATION] > 0;
    c->autoact = c->autoact_given && a->val[LVX_OPT_SETAUTOACTIVATION].b;
    c->profile = lvx_cmd_metadata_profile(env);
    c->profile_given = c->profile || a->count[LVX_OPT_DETACHPROFILE];
    if (c->profile && a->count[LVX_OPT_DETACHPROFILE]) {
        lvx_cmd_errorf("Only one of --metadataprofile and --detachprofile permitted.");
        lvx_cmd_errorf("Run `vgchange --help' for more information.");
        return LVX_EXIT_INVALID;
    }
    c->metadata = c->profile_given || c->autoact_given || c->pesize_given || c->x_given ||
                  c->mda_given || c->alloc_given || c->maxlv_given || c->maxpv_given || c->uuid ||
                  a->count[LVX_OPT_ADDTAG] || a->count[LVX_OPT_DELTAG];
    /* LVM2's command forms: --ignorelockingfailure only with -a, --monitor, --poll,
     * --refresh; --monitor and --poll only with -ay* */
    if (c->metadata && a->count[LVX_OPT_IGNORELOCKINGFAILURE]) {
        lvx_cmd_errorf("Command does not accept option: --ignorelockingfailure.");
        return LVX_EXIT_INVALID;
    }
    const char *av = a->count[LVX_OPT_ACTIVATE] ? a->value[LVX_OPT_ACTIVATE] : NULL;
    if (av && strchr(av, 'n') && (a->count[LVX_OPT_MONITOR] || a->count[LVX_OPT_POLL])) {
        lvx_cmd_errorf("Only -ay* allowed with --monitor or --poll.");
        lvx_cmd_errorf("Run `vgchange --help' for more information.");
        return LVX_EXIT_INVALID;
    }
    if (!c->metadata && !a->count[LVX_OPT_ACTIVATE] && a->count[LVX_OPT_MONITOR])
        return -1;                  /* --monitor alone: only the VGs are checked */
    if (!c->metadata && !a->count[LVX_OPT_ACTIVATE]) {
        lvx_cmd_errorf("No change requested: give one of -x, -u, -l, -p, --alloc, --addtag, "
                       "--deltag, --vgmetadatacopies.");
        return LVX_EXIT_INVALID;
    }
    return 0;
}

static void change_mda_copies(struct lvx_cmd_env *env, struct lvx_vg *vg, const struct change *c)
{
    if (c->mda_all) {
        lvx_mda_policy_use_all(vg);
    } else if (vg->metadata_copies == c->mda_copies) {
        if (c->mda_copies)
            lvx_notice(env->ctx, "Number of metadata copies for VG %s is already %u.", vg->name,
                       c->mda_copies);
        else
            lvx_notice(env->ctx, "Number of metadata copies for VG %s is already unmanaged.",
                       vg->name);
    }
    vg->has_metadata_copies = true;
    vg->metadata_copies = c->mda_copies;
}

/* -s, as LVM2's vgchange: only a resizeable VG; the same size is a note, no change. */
static void change_extent_size(struct lvx_cmd_env *env, struct lvx_vg *vg, uint32_t size,
                               bool *failed, bool *changed)
{
    if (!(vg->status & LVX_VG_RESIZEABLE)) {
        lvx_cmd_errorf("Volume group \"%s\" must be resizeable to change PE size", vg->name);
        *failed = true;
        return;
    }
    if (size == vg->extent_size) {      /* LVM2 writes the VG all the same */
        lvx_warn(env->ctx, "Physical extent size of VG %s is already %s.", vg->name,
                 lvx_cmd_size_str(env->pool, size, 0, 0));
        *changed = true;
        return;
    }
    if (lvx_vg_set_extent_size(env->ctx, vg, size) < 0) {
        lvx_cmd_fail(env);
        *failed = true;
        return;
    }
    *changed = true;
}

/* Apply the change to one VG in memory; errors printed, *failed set, *changed set when
 * something is to be written. */
static void apply(struct lvx_cmd_env *env, struct lvx_vg *vg, const struct change *c, bool *failed,
                  bool *changed)
{
    *changed = c->mda_given || c->alloc_given || c->uuid || c->profile_given;
    if (c->profile_given)       /* the dispatcher checked the profile (cmd/dispatch.c) */
        vg->profile = c->profile ? lvx_pool_strdup(vg->pool, c->profile) : NULL;
    if (c->x_given) {
        bool now = (vg->status & LVX_VG_RESIZEABLE) != 0;
        if (now == c->resizeable) {
            lvx_cmd_errorf("Volume group \"%s\" is already %sresizeable", vg->name,
                           now ? "" : "not ");
            *failed = true;
        } else {
            vg->status ^= LVX_VG_RESIZEABLE;
            *changed = true;
        }
    }
    if (c->autoact_given) {
        bool now = !(vg->flags & LVX_VGF_NOAUTOACTIVATE);
        if (now == c->autoact) {
            lvx_cmd_errorf("Volume group autoactivation is already %s.", now ? "yes" : "no");
            *failed = true;
        } else {
            vg->flags ^= LVX_VGF_NOAUTOACTIVATE;
            *changed = true;
        }
    }
    if (c->mda_given)
        change_mda_copies(env, vg, c);
    if (c->alloc_given)
        vg->alloc = c->alloc;
    if (c->maxlv_given) {
        unsigned n = lvx_vg_visible_lv_count(vg);
        if (c->max_lv && c->max_lv < n) {
            lvx_cmd_errorf("MaxLogicalVolume is less than the current number %u of LVs for %s",
                           n, vg->name);
            *failed = true;
        } else {
            vg->max_lv = c->max_lv;
            *changed = true;
        }
    }
    if (c->maxpv_given) {
        if (c->max_pv && c->max_pv < vg->pv_count) {
            lvx_cmd_errorf("MaxPhysicalVolumes is less than the current number %u of PVs for "
                           "\"%s\"", vg->pv_count, vg->name);
            *failed = true;
        } else {
            vg->max_pv = c->max_pv;
            *changed = true;
        }
    }
    if (c->uuid)
        lvx_uuid_generate(vg->uuid);
    if (c->pesize_given)
        change_extent_size(env, vg, c->pesize, failed, changed);
}

static int change_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit, void *arg)
{
    bool failed = false, changed = false;
    struct lvx_vg *vg = u->vg;
    apply(env, vg, arg, &failed, &changed);
    changed |= lvx_cmd_apply_tags(env, vg->pool, &vg->tags);
    *commit = changed || (!failed && lvx_cmd_has_tag_changes(env));
    return failed ? LVX_EXIT_FAILED : 0;
}

static int changed_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, void *arg)
{
    lvx_notice(env->ctx, "Volume group \"%s\" successfully changed", u->vg->name);
    return 0;
}

/* --lockstart in LVM2's order: the VGs' lines first, then the wait for all of them. */
struct lockstart {
    bool start, announce;
    unsigned started;
};

static int lock_start_stop_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit,
                              void *arg)
{
    struct lockstart *l = arg;
    if (!lvx_vg_is_lockd(u->vg))
        return 0;
    if (!l->start)
        return lvx_lockd_stop(env->ctx, u->vg) < 0 ? LVX_EXIT_FAILED : 0;
    if (l->announce) {
        lvx_notice(env->ctx, "VG %s starting %s lockspace", u->vg->name, u->vg->lock_type);
        l->started++;
        return 0;
    }
    if (lvx_lockd_start(env->ctx, u->vg) < 0) {
        lvx_cmd_errorf("Failed to start locking");
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static int lock_start_stop(struct lvx_cmd_env *env, char **names, unsigned count)
{
    struct lockstart l = { .start = env->args->count[LVX_OPT_LOCKSTART] != 0, .announce = true };
    struct lvx_tk_vg_ops ops = { .vg = lock_start_stop_vg, .arg = &l,
                                 .update_flags = LVX_UPDATE_READ_ONLY |
                                                 LVX_UPDATE_LOCKD_UNLOCKED |
                                                 LVX_UPDATE_ALLOW_EXPORTED };
    if (!l.start)
        return lvx_process_vg_names(env, names, count, &ops);
    int rc = lvx_process_vg_names(env, names, count, &ops);
    if (rc || !l.started)
        return rc;
    lvx_notice(env->ctx, "Starting locking.  Waiting for sanlock may take 20 sec to 3 min...");
    l.announce = false;
    return lvx_process_vg_names(env, names, count, &ops);
}

int lvx_cmd_vgchange(struct lvx_cmd_env *env)
{
    if (env->args->count[LVX_OPT_LOCKTYPE])          /* cmd/vgchange_locktype.c */
        return lvx_vgchange_locktype(env);
    if (env->args->count[LVX_OPT_SYSTEMID])          /* cmd/vgchange_systemid.c */
        return lvx_vgchange_systemid(env);
    if (env->args->count[LVX_OPT_LOCKSTART] || env->args->count[LVX_OPT_LOCKSTOP]) {
        unsigned count;
        char **names = lvx_cmd_vg_names(env, &count);
        return names ? lock_start_stop(env, names, count) : LVX_EXIT_FAILED;
    }
    if (env->args->count[LVX_OPT_REFRESH]) {   /* LVM2's lv_refresh of each visible LV */
        if (env->args->count[LVX_OPT_ACTIVATE]) {      /* LVM2: no command form has both */
            lvx_cmd_errorf("Command does not accept option: --refresh.");
            return LVX_EXIT_INVALID;
        }
        unsigned count;
        char **names = lvx_cmd_vg_names(env, &count);
        if (!names || !(names = lvx_tk_select_vgs(env, names, count, &count)))
            return LVX_EXIT_FAILED;
        return lvx_actcmd_refresh(env, names, count);      /* cmd/activation.c */
    }
    struct change c = {0};
    if (lvx_actcmd_monitor_conflict(env))     /* LVM2: its line, nothing done, exit 0 */
        return 0;
    if (env->args->count[LVX_OPT_ACTIVATE] &&
        (env->args->count[LVX_OPT_MONITOR] || env->args->count[LVX_OPT_POLL]) &&
        !lvx_lvcmd_wants_activation(env, false)) {
        lvx_cmd_errorf("Only -ay* allowed with --monitor or --poll.");
        lvx_cmd_errorf("Run `vgchange --help' for more information.");
        return LVX_EXIT_INVALID;
    }
    int rc = parse_change(env, &c);
    if (rc < 0) {        /* --monitor alone: the VGs' active LVs (cmd/monitor_cmd.c) */
        unsigned n;
        char **names = lvx_cmd_vg_names(env, &n);
        if (!names || !(names = lvx_tk_select_vgs(env, names, n, &n)))
            return LVX_EXIT_FAILED;
        return lvx_actcmd_vgmonitor(env, names, n);
    }
    if (rc || (rc = lvx_actcmd_check_mode(env)))   /* bad modes: nothing changed */
        return rc;
    unsigned count;
    char **names = lvx_cmd_vg_names(env, &count);    /* the arguments, tags, or all VGs */
    if (!names || !(names = lvx_tk_select_vgs(env, names, count, &count)))   /* -S */
        return LVX_EXIT_FAILED;
    struct lvx_tk_vg_ops ops = { .vg = change_vg, .done = changed_vg, .arg = &c };
    /* tags alone may change while PVs are missing (LVM2's shell/vgchange-partial) */
    if (!(c.x_given || c.pesize_given || c.mda_given || c.alloc_given || c.maxlv_given || c.maxpv_given || c.uuid ||
          c.autoact_given))
        ops.update_flags |= LVX_UPDATE_ALLOW_MISSING;
    if (c.metadata)
        rc = lvx_process_vg_names(env, names, count, &ops);
    if (env->args->count[LVX_OPT_ACTIVATE]) {     /* -a y|n (cmd/activation.c) */
        int r = lvx_actcmd_vgchange(env, names, count, lvx_lvcmd_wants_activation(env, false));
        if (r > rc)
            rc = r;
    }
    return rc;
}
