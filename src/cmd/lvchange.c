/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvchange.c - `lvx lvchange [-p r|rw] [-r auto|none|N] [--addtag T] [--deltag T]
 * [--alloc P|-C y|n] [-a n] VG|VG/LV ...`: change LV attributes kept in the
 * metadata.  One commit per argument; "Logical volume vg/lv changed." per LV.
 * --errorwhenfull, --discards and -Z y|n change a thin pool (its table reloaded when active).
 * --profile/--metadataprofile NAME, --detachprofile: the LV's metadata profile.
 * --minrecoveryrate/--maxrecoveryrate R: a RAID LV's recovery rates (KiB/s per device, 0
 * no limit), as LVM2's _lvchange_recovery_rate: an active LV is reloaded, so the kernel
 * or the daemon's resync takes the new rate at once (the resync goes on from its offset).
 * --writemostly PV[:t|n|y], --writebehind N: a raid1 LV's images and segment
 * (cmd/lvchange_wmostly.c), the active LV reloaded as for the rates.
 * -a y|n [--activationmode partial] activates or deactivates the LVs after any
 * metadata change (cmd/activation.c).
 */
#include "cmd/lvcmd.h"
#include "cmd/toolkit.h"

#include "cmd/actcmd.h"
#include "cmd/lvchange_wmostly.h"
#include "cmd/lvconvert_raid.h"
#include "map/map.h"
#include "model/thin.h"

#include <string.h>

struct again {
    const struct lvx_lv *lv;
    struct again *next;
};

struct change_opts {
    bool perm_given, read_only;
    bool ra_given;
    int64_t read_ahead;          /* -1 none, 0 auto, else sectors */
    bool alloc_given;
    enum lvx_alloc alloc;
    bool ewf_given, ewf;         /* --errorwhenfull (thin pools) */
    const char *discards;        /* --discards ignore|nopassdown|passdown (thin pools) */
    bool zero_given, zero;       /* -Z y|n: the pool's zero_new_blocks */
    struct again *again;         /* pools whose --discards/-Z refusals are printed again */
    bool skip_given, skip;       /* -k/--setactivationskip y|n */
    bool autoact_given, autoact; /* --setautoactivation y|n */
    bool persist_given, fixed;   /* -M y|n [--major M] --minor N */
    bool profile_given;          /* --profile/--metadataprofile NAME, --detachprofile */
    const char *profile;         /* NULL: detach */
    bool minrate_given, maxrate_given;
    uint32_t minrate, maxrate;   /* --min/--maxrecoveryrate, KiB/s per device */
    int64_t major, minor;
    const struct lvx_cmd_env *env; /* --addtag/--deltag are applied from its args */
    struct react *react;         /* -My: the active LVs deactivated for it */
};

/* LVM2's lvchange -My of an active LV: deactivated before the commit, activated again
 * after it (with the new device number). */
#define REACT_MAX 64
struct react {
    bool init;
    int init_rc;
    struct lvx_actcmd act;
    unsigned n;
    const char *names[REACT_MAX];   /* VG/LV */
};

/* LVM2's command definitions for -M: "lvchange -M y --minor N [--major M] LV" and
 * "lvchange -M n LV"; other forms are refused with its lines, exit 3. */
static int persistent_syntax(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    bool minor = a->count[LVX_OPT_MINOR] > 0, major = a->count[LVX_OPT_MAJOR] > 0;
    bool m = a->count[LVX_OPT_PERSISTENT] > 0;
    if (m && !a->val[LVX_OPT_PERSISTENT].b && (minor || major)) {
        lvx_cmd_errorf("Command does not accept option: --%s.", minor ? "minor" : "major");
        return LVX_EXIT_INVALID;
    }
    if ((m && a->val[LVX_OPT_PERSISTENT].b && !minor) || (!m && (minor || major))) {
        lvx_cmd_errorf("No command with matching syntax recognised.  Run 'lvchange --help' "
                       "for more information.");
        if (m || minor) {            /* the nearest form, on stdout as LVM2 */
            lvx_cmd_errorf("Nearest similar command has syntax:");
            static const char near[] = "  lvchange -M|--persistent y --minor Number LV\n"
                                       "  Make the minor device number persistent for an LV.\n\n";
            lvx_cmd_write(near, sizeof(near) - 1);
        }
        return LVX_EXIT_INVALID;
    }
    return 0;
}

static int parse_change_args(struct lvx_cmd_env *env, struct change_opts *o)
{
    const char *p = env->args->value[LVX_OPT_PERMISSION];
    int rc;

    memset(o, 0, sizeof(*o));
    o->env = env;
    o->perm_given = env->args->count[LVX_OPT_PERMISSION] > 0;
    if (o->perm_given) {
        if (strcmp(p, "r") && strcmp(p, "rw")) {
            lvx_cmd_errorf("Invalid argument for --permission: %s", p);
            return LVX_EXIT_INVALID;
        }
        o->read_only = !strcmp(p, "r");
    }
    o->ewf_given = env->args->count[LVX_OPT_ERRORWHENFULL] > 0;
    o->ewf = o->ewf_given && env->args->val[LVX_OPT_ERRORWHENFULL].b;
    o->discards = env->args->value[LVX_OPT_DISCARDS];
    if (o->discards && strcmp(o->discards, "passdown") && strcmp(o->discards, "nopassdown") &&
        strcmp(o->discards, "ignore"))
        return lvx_opts_invalid("discards", o->discards, NULL);
    o->zero_given = env->args->count[LVX_OPT_ZERO] > 0;
    o->zero = o->zero_given && env->args->val[LVX_OPT_ZERO].b;
    o->skip_given = env->args->count[LVX_OPT_SETACTIVATIONSKIP] > 0;
    o->skip = o->skip_given && env->args->val[LVX_OPT_SETACTIVATIONSKIP].b;
    o->autoact_given = env->args->count[LVX_OPT_SETAUTOACTIVATION] > 0;
    o->autoact = o->autoact_given && env->args->val[LVX_OPT_SETAUTOACTIVATION].b;
    o->minrate_given = env->args->count[LVX_OPT_MINRECOVERYRATE] > 0;
    o->maxrate_given = env->args->count[LVX_OPT_MAXRECOVERYRATE] > 0;
    o->minrate = (uint32_t)(env->args->val[LVX_OPT_MINRECOVERYRATE].sectors / 2);
    o->maxrate = (uint32_t)(env->args->val[LVX_OPT_MAXRECOVERYRATE].sectors / 2);
    o->persist_given = env->args->count[LVX_OPT_PERSISTENT] || env->args->count[LVX_OPT_MINOR] ||
                       env->args->count[LVX_OPT_MAJOR];
    o->profile = lvx_cmd_metadata_profile(env);
    o->profile_given = o->profile || env->args->count[LVX_OPT_DETACHPROFILE];
    if (o->profile && env->args->count[LVX_OPT_DETACHPROFILE]) {
        lvx_cmd_errorf("Only one of --metadataprofile and --detachprofile permitted.");
        lvx_cmd_errorf("Run `lvchange --help' for more information.");
        return LVX_EXIT_INVALID;
    }
    if (o->persist_given && (rc = persistent_syntax(env)))
        return rc;
    if (o->persist_given &&
        (rc = lvx_lvcmd_persistent_args(env, &o->fixed, &o->major, &o->minor)))
        return rc;
    if ((rc = lvx_lvcmd_read_ahead_arg(env, &o->ra_given, &o->read_ahead)) ||
        (rc = lvx_lvcmd_alloc_arg(env, &o->alloc, &o->alloc_given)))
        return rc;
    return 0;
}

static bool has_changes(const struct change_opts *o)
{
    return o->perm_given || o->ra_given || lvx_cmd_has_tag_changes(o->env) || o->alloc_given ||
           o->ewf_given || o->skip_given || o->persist_given || o->autoact_given ||
           o->discards || o->zero_given || o->profile_given || o->minrate_given ||
           o->maxrate_given || lvx_lvchange_wmostly_given(o->env);
}

/* Whether the pool or one of its thin LVs is active (LVM2's pool_is_active). */
static bool pool_active(struct lvx_cmd_env *env, const struct lvx_lv *pool)
{
    struct lvx_actcmd act;
    if (lvx_actcmd_init(env, &act) || !act.be)
        return false;
    if (lvx_actcmd_is_active(env, &act, pool, NULL))
        return true;
    for (unsigned i = 0; i < pool->vg->lv_count; i++) {
        const struct lvx_seg *s = lvx_lv_thin_seg(pool->vg->lvs[i]);
        if (s && s->pool_lv == pool && lvx_actcmd_is_active(env, &act, pool->vg->lvs[i], NULL))
            return true;
    }
    return false;
}

/* --discards and -Z of a thin pool, as LVM2's _lvchange_pool_update: each refusal is one
 * line, and the LV counts as changed when either was taken.  1 changed, -1 not. */
static int change_pool(struct lvx_cmd_env *env, struct lvx_lv *lv, const struct change_opts *o)
{
    struct lvx_seg *ps = lvx_lv_thin_pool_seg(lv);
    int update = 0;
    if (o->discards) {
        const char *cur = ps->discards ? ps->discards : "passdown";
        if (!strcmp(cur, o->discards))
            lvx_cmd_errorf("Logical volume %s/%s already uses --discards %s.", lv->vg->name,
                           lv->name, o->discards);
        else if ((!strcmp(cur, "ignore") || !strcmp(o->discards, "ignore")) &&
                 pool_active(env, lv))
            lvx_cmd_errorf("Cannot change support for discards while pool volume %s/%s is "
                           "active.", lv->vg->name, lv->name);
        else {
            ps->discards = lvx_pool_strdup(lv->vg->pool, o->discards);
            update++;
        }
    }
    if (o->zero_given) {
        if (o->zero == ps->zero_new_blocks)     /* LVM2 2.03.16 words -Zn so as well */
            lvx_cmd_errorf("Logical volume %s/%s already zero new blocks.", lv->vg->name,
                           lv->name);
        else {
            ps->zero_new_blocks = o->zero;
            update++;
        }
    }
    return update ? 1 : -1;
}

/* Does an argument name lv itself (not its VG)? */
static bool named_arg(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    for (int i = 0; i < env->args->argc; i++) {
        const char *vg = NULL, *name = NULL;
        if (lvx_lvcmd_split_name(env, env->args->argv[i], &vg, &name) && name && vg &&
            !strcmp(vg, lv->vg->name) && !strcmp(name, lv->name))
            return true;
    }
    return false;
}

/* After a command rule's warning (LVM2's _check_lv_rules/_check_lv_types): an LV an
 * argument names fails the command ("Command not permitted"), one of a named VG is
 * only left out. */
static int rule_refused(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    if (!named_arg(env, lv))
        return 0;
    lvx_cmd_errorf("Command not permitted on LV %s/%s.", lv->vg->name, lv->name);
    return -1;
}

/* Apply the changes to one LV: 1, 0 nothing done, or -1 (message printed) when a change
 * is refused. */
static int change_lv(struct lvx_cmd_env *env, struct lvx_lv *lv, void *arg)
{
    const struct change_opts *o = arg;
    struct lvx_pool *pool = lv->vg->pool;
    if (lv->status & LVX_LV_PVMOVE) {                    /* LVM2's command rules */
        lvx_cmd_errorf("Command on LV %s/%s is invalid on LV with properties: "
                       "lv_is_pvmove .", lv->vg->name, lv->name);
        lvx_cmd_errorf("Command not permitted on LV %s/%s.", lv->vg->name, lv->name);
        return -1;
    }
    if (o->alloc_given && lvx_map_lv_partial(lv)) {    /* LVM2's rule: not lv_is_partial */
        lvx_cmd_errorf("Command on LV %s/%s uses options that are invalid with LV properties: "
                       "lv_is_partial .", lv->vg->name, lv->name);
        lvx_cmd_errorf("Command not permitted on LV %s/%s.", lv->vg->name, lv->name);
        return -1;
    }
    /* LVM2's rule "--permission not lv_is_external_origin ... LV_thinpool" */
    if (o->perm_given && lvx_lv_is_thin_pool(lv)) {
        lvx_cmd_errorf("Command on LV %s/%s uses options invalid with LV type thinpool.",
                       lv->vg->name, lv->name);
        return rule_refused(env, lv);
    }
    if (o->perm_given && lvx_lv_is_external_origin(lv)) {
        lvx_cmd_errorf("Command on LV %s/%s uses options that are invalid with LV properties: "
                       "lv_is_external_origin .", lv->vg->name, lv->name);
        return rule_refused(env, lv);
    }
    if ((o->ewf_given || o->discards || o->zero_given) && !lvx_lv_is_thin_pool(lv)) {
        /* LVM2's rule: LV_thinpool */
        lvx_cmd_errorf("Command on LV %s/%s uses options that require LV types thinpool .",
                       lv->vg->name, lv->name);
        return rule_refused(env, lv);
    }
    if ((o->minrate_given || o->maxrate_given) && !lvx_map_lv_is_raid(lv)) {
        /* LVM2's rule: LV_raid */
        lvx_cmd_errorf("Command on LV %s/%s uses options that require LV types raid .",
                       lv->vg->name, lv->name);
        lvx_cmd_errorf("Command not permitted on LV %s/%s.", lv->vg->name, lv->name);
        return -1;
    }
    if (o->minrate_given || o->maxrate_given) {
        struct lvx_seg *rs = &lv->segs[0];
        uint32_t lo = o->minrate_given ? o->minrate : rs->min_recovery_rate;
        uint32_t hi = o->maxrate_given ? o->maxrate : rs->max_recovery_rate;
        if (hi && hi < lo) {
            lvx_cmd_errorf("Minimum recovery rate cannot be higher than maximum.");
            return -1;
        }
        rs->min_recovery_rate = lo;
        rs->max_recovery_rate = hi;
    }
    if (lvx_lvchange_wmostly_given(env) && lvx_lvchange_wmostly(env, lv) < 0)
        return -1;                        /* cmd/lvchange_wmostly.c */
    if (o->discards || o->zero_given) {
        /* LVM2 runs its pool update once per option given, each taking both: with
         * --discards and -Z, the second run repeats the refusals of what the first
         * refused or set (and fails the command, after the commit of the first) */
        bool twice = o->discards && o->zero_given;
        if (change_pool(env, lv, o) < 0) {
            if (twice)
                change_pool(env, lv, o);
            return -1;
        }
        if (twice) {
            struct change_opts *w = arg;
            struct again *a = lvx_pool_alloc(env->pool, sizeof(*a));
            a->lv = lv;
            a->next = w->again;
            w->again = a;
        }
    }
    if (o->ewf_given) {
        if (o->ewf == !!(lv->flags & LVX_LVF_ERROR_WHEN_FULL)) {
            lvx_cmd_errorf("Error when full is already %sset for %s/%s.", o->ewf ? "" : "un",
                           lv->vg->name, lv->name);
            return -1;
        }
        if (o->ewf)
            lv->flags |= LVX_LVF_ERROR_WHEN_FULL;
        else
            lv->flags &= ~(uint32_t)LVX_LVF_ERROR_WHEN_FULL;
    }
    if (o->perm_given) {
        bool writable = lv->status & LVX_LV_WRITE;
        if (o->read_only && !writable) {
            lvx_cmd_errorf("Logical volume \"%s/%s\" is already read only.", lv->vg->name,
                           lv->name);
            return -1;
        }
        if (!o->read_only && writable) {
            lvx_cmd_errorf("Logical volume %s/%s is already writable.", lv->vg->name,
                           lv->name);
            return -1;
        }
        if (o->read_only)
            lv->status &= ~(uint32_t)LVX_LV_WRITE;
        else
            lv->status |= LVX_LV_WRITE;
    }
    if (o->ra_given) {
        int64_t cur = lv->has_read_ahead ? lv->read_ahead : 0;
        if (cur == o->read_ahead) {                     /* LVM2's message, exit 5 */
            if (cur == 0)
                lvx_cmd_errorf("Read ahead is already auto for %s/%s.", lv->vg->name, lv->name);
            else
                lvx_cmd_errorf("Read ahead is already %lld for %s/%s.", (long long)(cur < 0 ? 0 : cur),
                               lv->vg->name, lv->name);
            return -1;
        }
        lv->has_read_ahead = o->read_ahead != 0;
        lv->read_ahead = o->read_ahead;
    }
    if (o->persist_given && !o->fixed && !(lv->status & LVX_LV_FIXED_MINOR)) {
        lvx_cmd_errorf("Minor number is already not persistent for %s/%s.", lv->vg->name,
                       lv->name);
        return -1;
    }
    struct react *r = o->react;
    if (o->persist_given && o->fixed && r) {
        if (!r->init) {
            r->init = true;
            r->init_rc = lvx_actcmd_init(env, &r->act);
        }
        if (!r->init_rc && r->act.be && !r->act.test && r->n < REACT_MAX &&
            lvx_actcmd_is_active(env, &r->act, lv, NULL)) {
            const char *name = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
            if (!env->args->count[LVX_OPT_YES] && !env->args->count[LVX_OPT_FORCE] &&
                !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Logical volume %s will be "
                                                   "deactivated temporarily. Continue?", name))) {
                lvx_cmd_errorf("%s device number not changed.", name);
                return -1;
            }
            if (lvx_actcmd_deactivate(env, &r->act, lv, false)) {
                lvx_cmd_errorf("Cannot deactivate %s.", name);
                return -1;
            }
            r->names[r->n++] = name;
        }
    }
    if (o->persist_given) {    /* the device number of the next activation (as LVM2's
                                * metadata; an active LV is activated again after it) */
        if (o->fixed)
            lv->status |= LVX_LV_FIXED_MINOR;
        else
            lv->status &= ~(uint32_t)LVX_LV_FIXED_MINOR;
        lv->has_major = lv->has_minor = o->fixed;
        lv->major = o->fixed ? o->major : 0;
        lv->minor = o->fixed ? o->minor : 0;
    }
    lvx_cmd_apply_tags(o->env, pool, &lv->tags);
    if (o->autoact_given && o->autoact)
        lv->flags &= ~(uint32_t)LVX_LVF_NOAUTOACTIVATE;
    else if (o->autoact_given)
        lv->flags |= LVX_LVF_NOAUTOACTIVATE;
    if (o->skip_given && o->skip)
        lv->flags |= LVX_LVF_ACTIVATION_SKIP;
    else if (o->skip_given)
        lv->flags &= ~(uint32_t)LVX_LVF_ACTIVATION_SKIP;
    if (o->alloc_given)
        lv->alloc = o->alloc;
    if (o->profile_given)       /* the dispatcher checked the profile (cmd/dispatch.c) */
        lv->profile = o->profile ? lvx_pool_strdup(pool, o->profile) : NULL;
    return 1;
}

/* -p, -r (and the recovery rates) on active LVs: their tables are reloaded with the new
 * permission (rates; the read-ahead is set again after the reload, as LVM2's
 * lv_update_and_reload does it) (cmd/activation.c).
 * true when one failed (message printed). */
static bool reload_active(struct lvx_cmd_env *env, struct lvx_lv **lvs, unsigned n)
{
    struct lvx_actcmd act;
    bool failed = false;
    if (lvx_actcmd_init(env, &act) || !act.be || act.test)
        return false;
    for (unsigned i = 0; i < n; i++) {
        if (lvx_lv_is_thin_pool(lvs[i])) {  /* --errorwhenfull, --discards, -Z: its table */
            failed |= lvx_actcmd_reload_thin(env, &act, lvs[i]) != 0;
            continue;
        }
        if (!lvx_actcmd_is_active(env, &act, lvs[i], NULL))
            continue;
        if (lvx_activation_reload(env->ctx, act.be, lvs[i], &act.opts) < 0) {
            lvx_cmd_fail(env);
            failed = true;
        }
    }
    return failed;
}

/* After the commit: one line per LV, new tables for -p. */
static bool changed_lvs(struct lvx_cmd_env *env, struct lvx_lv **lvs, unsigned n, void *arg)
{
    const struct change_opts *o = arg;
    /* LVM2 says nothing after -My (it reactivates an active LV instead) */
    bool quiet = o->persist_given && o->fixed && !o->perm_given && !o->ra_given &&
                 !lvx_cmd_has_tag_changes(env) && !o->alloc_given && !o->ewf_given &&
                 !o->skip_given && !o->autoact_given && !o->discards && !o->zero_given &&
                 !o->profile_given && !o->minrate_given && !o->maxrate_given &&
                 !lvx_lvchange_wmostly_given(env);
    bool failed = false;
    for (unsigned i = 0; i < n && !quiet; i++) {
        lvx_notice(env->ctx, "Logical volume %s/%s changed.", lvs[i]->vg->name, lvs[i]->name);
        for (const struct again *a = o->again; a; a = a->next)
            if (a->lv == lvs[i]) {            /* LVM2's second run: refusals only */
                change_pool(env, lvs[i], o);
                failed = true;
            }
    }
    if ((o->perm_given || o->ewf_given || o->discards || o->zero_given || o->minrate_given ||
         o->maxrate_given || o->ra_given || lvx_lvchange_wmostly_given(env)) &&
        reload_active(env, lvs, n))
        failed = true;
    const struct react *r = o->react;
    for (unsigned i = 0; r && i < n; i++)
        for (unsigned k = 0; k < r->n; k++) {
            const char *slash = strchr(r->names[k], '/');
            if (strncmp(r->names[k], lvs[i]->vg->name, (size_t)(slash - r->names[k])) ||
                lvs[i]->vg->name[slash - r->names[k]] || strcmp(slash + 1, lvs[i]->name))
                continue;
            if (lvx_actcmd_activate(env, &r->act, lvs[i])) {
                lvx_cmd_errorf("%s: reactivation failed.", r->names[k]);
                failed = true;
            }
        }
    return failed;
}

int lvx_cmd_lvchange(struct lvx_cmd_env *env)
{
    struct change_opts o;
    if (lvx_actcmd_monitor_conflict(env))     /* LVM2: its line, nothing done, exit 0 */
        return 0;
    int rc = parse_change_args(env, &o);
    if (rc || (rc = lvx_actcmd_check_mode(env)))   /* bad modes: nothing changed */
        return rc;
    bool activate_given = env->args->count[LVX_OPT_ACTIVATE] > 0;
    const char *sync = env->args->value[LVX_OPT_SYNCACTION];
    if (sync && (has_changes(&o) || activate_given)) {
        lvx_cmd_errorf("--syncaction cannot be combined with other changes.");
        return LVX_EXIT_INVALID;
    }
    if (sync && env->args->argc < 1) {
        lvx_cmd_errorf("Please specify a logical volume path.");
        return LVX_EXIT_INVALID;
    }
    if (sync && strcmp(sync, "check") && strcmp(sync, "repair"))
        return lvx_opts_invalid("syncaction", sync, NULL);
    if (env->args->count[LVX_OPT_REBUILD] || env->args->count[LVX_OPT_RESYNC]) {
        /* LVM2's --resync command takes -a too: the resync, its warning, then the
         * activation change as `lvchange -a` alone */
        bool then_activate = activate_given && !env->args->count[LVX_OPT_REBUILD];
        if (sync || has_changes(&o) || (activate_given && !then_activate)) {
            lvx_cmd_errorf("--rebuild and --resync cannot be combined with other changes.");
            return LVX_EXIT_INVALID;
        }
        rc = lvx_lvchange_raid(env);     /* cmd/lvchange_raid.c */
        if (rc || !then_activate)
            return rc;
        lvx_warn(env->ctx, "WARNING: Combining activation change with other commands is not "
                 "advised.");
    }
    if (sync)      /* cmd/activation.c: a message to the kernel, no metadata change */
        return lvx_actcmd_syncaction(env, env->args->argv, (unsigned)env->args->argc, sync);
    if (env->args->count[LVX_OPT_REFRESH]) {     /* cmd/activation.c: tables reloaded */
        if (has_changes(&o) || activate_given) {
            lvx_cmd_errorf("Command does not accept option: --refresh.");   /* LVM2 */
            return LVX_EXIT_INVALID;
        }
        if (env->args->argc < 1) {
            lvx_cmd_errorf("Please specify a logical volume path.");
            return LVX_EXIT_INVALID;
        }
        return lvx_actcmd_refresh(env, env->args->argv, (unsigned)env->args->argc);
    }
    bool monitor_only = !has_changes(&o) && !activate_given && env->args->count[LVX_OPT_MONITOR];
    if (monitor_only && env->args->argc < 1 && !env->args->count[LVX_OPT_SELECT]) {
        unsigned n;                                  /* every VG's LVs, as LVM2 */
        char **names = lvx_cmd_vg_names(env, &n);
        return names ? lvx_actcmd_lvmonitor(env, names, n) : LVX_EXIT_FAILED;
    }
    if (!has_changes(&o) && !activate_given && !monitor_only) {
        lvx_cmd_errorf("No change requested: give -p, -r, --addtag, --deltag, --alloc, -C, -k, --discards, -Z, --minrecoveryrate, --maxrecoveryrate, --writemostly, --writebehind or -a.");
        return LVX_EXIT_INVALID;
    }
    if (env->args->argc < 1 && !env->args->count[LVX_OPT_SELECT]) {
        lvx_cmd_errorf("Please specify a logical volume path.");
        return LVX_EXIT_INVALID;
    }
    lvx_tk_default_vg_names(env);                     /* LVM_VG_NAME */
    if ((rc = lvx_lvcmd_check_names(env)))
        return rc;
    unsigned count;
    char **args = lvx_cmd_lv_args(env, &count);          /* "@tag": the LVs with the tag */
    if (!args || !(args = lvx_tk_select_lvs(env, args, count, &count)))   /* -S */
        return LVX_EXIT_FAILED;
    /* metadata changes are made while PVs are missing (LVM2's handles_missing_pvs) */
    struct react react;
    memset(&react, 0, sizeof(react));
    o.react = &react;
    struct lvx_tk_lv_ops ops = { .lv = change_lv, .done = changed_lvs, .arg = &o,
                                 .update_flags = LVX_UPDATE_ALLOW_MISSING };
    if (monitor_only)                          /* cmd/monitor_cmd.c */
        return lvx_actcmd_lvmonitor(env, args, count);
    if (has_changes(&o))
        rc = lvx_process_lv_args(env, args, count, &ops);
    if (activate_given) {                                      /* cmd/activation.c */
        int r = lvx_actcmd_lvchange(env, args, count, lvx_lvcmd_wants_activation(env, false));
        if (r > rc)
            rc = r;
    }
    return rc;
}
