/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvchange.c - `lvx lvchange [-p r|rw] [-r auto|none|N] [--addtag T] [--deltag T]
 * [--alloc P|-C y|n] [-a n] VG|VG/LV ...`: change LV attributes kept in the
 * metadata.  One commit per argument; "Logical volume vg/lv changed." per LV.
 * -a y|n [--activationmode partial] activates or deactivates the LVs after any
 * metadata change (cmd/activation.c).
 */
#include "cmd/lvcmd.h"

#include "cmd/actcmd.h"

#include <string.h>

struct change_opts {
    bool perm_given, read_only;
    bool ra_given;
    int64_t read_ahead;          /* -1 none, 0 auto, else sectors */
    char **add_tags, **del_tags;
    unsigned add_count, del_count;
    bool alloc_given;
    enum lvx_alloc alloc;
};

static int parse_change_args(struct lvx_cmd_env *env, struct change_opts *o)
{
    const char *p = env->args->value[LVX_OPT_PERMISSION];
    int rc;

    memset(o, 0, sizeof(*o));
    o->perm_given = env->args->count[LVX_OPT_PERMISSION] > 0;
    if (o->perm_given) {
        if (strcmp(p, "r") && strcmp(p, "rw")) {
            lvx_cmd_errorf("Invalid argument for --permission: %s", p);
            return LVX_EXIT_INVALID;
        }
        o->read_only = !strcmp(p, "r");
    }
    if ((rc = lvx_lvcmd_read_ahead_arg(env, &o->ra_given, &o->read_ahead)) ||
        (rc = lvx_lvcmd_tags_arg(env, LVX_OPT_ADDTAG, &o->add_tags, &o->add_count)) ||
        (rc = lvx_lvcmd_tags_arg(env, LVX_OPT_DELTAG, &o->del_tags, &o->del_count)) ||
        (rc = lvx_lvcmd_alloc_arg(env, &o->alloc, &o->alloc_given)))
        return rc;
    return 0;
}

static bool has_changes(const struct change_opts *o)
{
    return o->perm_given || o->ra_given || o->add_count || o->del_count || o->alloc_given;
}

static void del_tag(struct lvx_strlist *l, const char *tag)
{
    unsigned k = 0;
    for (unsigned i = 0; i < l->n; i++)
        if (strcmp(l->v[i], tag) != 0)
            l->v[k++] = l->v[i];
    l->n = k;
}

/* Apply the changes to one LV; false (message printed) when a change is refused. */
static bool change_lv(const struct change_opts *o, struct lvx_lv *lv)
{
    struct lvx_pool *pool = lv->vg->pool;
    if (o->perm_given) {
        bool writable = lv->status & LVX_LV_WRITE;
        if (o->read_only && !writable) {
            lvx_cmd_errorf("Logical volume \"%s/%s\" is already read only.", lv->vg->name,
                           lv->name);
            return false;
        }
        if (!o->read_only && writable) {
            lvx_cmd_errorf("Logical volume \"%s/%s\" is already writable.", lv->vg->name,
                           lv->name);
            return false;
        }
        if (o->read_only)
            lv->status &= ~(uint32_t)LVX_LV_WRITE;
        else
            lv->status |= LVX_LV_WRITE;
    }
    if (o->ra_given) {
        lv->has_read_ahead = o->read_ahead != 0;
        lv->read_ahead = o->read_ahead;
    }
    for (unsigned i = 0; i < o->add_count; i++)
        if (!lvx_strlist_has(&lv->tags, o->add_tags[i]))
            lvx_strlist_add(pool, &lv->tags, o->add_tags[i]);
    for (unsigned i = 0; i < o->del_count; i++)
        del_tag(&lv->tags, o->del_tags[i]);
    if (o->alloc_given)
        lv->alloc = o->alloc;
    return true;
}

/* -p on active LVs: their tables are reloaded with the new permission (cmd/activation.c).
 * true when one failed (message printed). */
static bool reload_active(struct lvx_cmd_env *env, struct lvx_lv **lvs, unsigned n)
{
    struct lvx_actcmd act;
    bool failed = false;
    if (lvx_actcmd_init(env, &act) || !act.be || act.test)
        return false;
    for (unsigned i = 0; i < n; i++) {
        if (!lvx_actcmd_is_active(env, &act, lvs[i], NULL))
            continue;
        if (lvx_activation_reload(env->ctx, act.be, lvs[i], &act.opts) < 0) {
            lvx_cmd_fail(env);
            failed = true;
        }
    }
    return failed;
}

static int change_arg(struct lvx_cmd_env *env, const struct change_opts *o, const char *arg)
{
    const char *vgname, *lvname;
    struct lvx_vg_update u;
    int rc;

    if (!lvx_lvcmd_split_name(env, arg, &vgname, &lvname)) {
        lvx_cmd_errorf("Invalid logical volume name \"%s\".", arg);
        return LVX_EXIT_INVALID;
    }
    if ((rc = lvx_lvcmd_begin(env, vgname, &u)))
        return rc;
    struct lvx_lv **lvs = lvx_pool_alloc(env->pool, (u.vg->lv_count + 1) * sizeof(*lvs));
    unsigned n = 0;
    bool failed = false;
    if (lvname) {
        struct lvx_lv *lv = lvx_vg_find_lv(u.vg, lvname);
        if (!lv) {
            lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vgname, lvname);
            failed = true;
        } else {
            lvs[n++] = lv;
        }
    } else {
        for (unsigned i = 0; i < u.vg->lv_count; i++)
            if (lvx_lv_is_visible(u.vg->lvs[i]))
                lvs[n++] = u.vg->lvs[i];
    }
    unsigned changed = 0;
    for (unsigned i = 0; i < n && has_changes(o); i++) {
        if (change_lv(o, lvs[i]))
            lvs[changed++] = lvs[i];
        else
            failed = true;
    }
    if (changed && (rc = lvx_lvcmd_commit(env, &u))) {
        lvx_vg_update_end(&u);
        return rc;
    }
    for (unsigned i = 0; i < changed; i++)
        lvx_notice(env->ctx, "Logical volume %s/%s changed.", lvs[i]->vg->name, lvs[i]->name);
    if (changed && o->perm_given && reload_active(env, lvs, changed))
        failed = true;
    lvx_vg_update_end(&u);
    return failed ? LVX_EXIT_FAILED : 0;
}

int lvx_cmd_lvchange(struct lvx_cmd_env *env)
{
    struct change_opts o;
    int rc = parse_change_args(env, &o);
    if (rc)
        return rc;
    bool activate_given = env->args->count[LVX_OPT_ACTIVATE] > 0;
    if (!has_changes(&o) && !activate_given) {
        lvx_cmd_errorf("No change requested: give -p, -r, --addtag, --deltag, --alloc, -C or -a.");
        return LVX_EXIT_INVALID;
    }
    if (env->args->argc < 1) {
        lvx_cmd_errorf("Please specify a logical volume path.");
        return LVX_EXIT_INVALID;
    }
    if ((rc = lvx_lvcmd_check_names(env)))
        return rc;
    for (int i = 0; i < env->args->argc && has_changes(&o); i++) {
        int r = change_arg(env, &o, env->args->argv[i]);
        if (r > rc)
            rc = r;
    }
    for (int i = 0; i < env->args->argc && activate_given; i++) {   /* cmd/activation.c */
        int r = lvx_actcmd_lvchange(env, env->args->argv[i],
                                    lvx_lvcmd_wants_activation(env, false));
        if (r > rc)
            rc = r;
    }
    return rc;
}
