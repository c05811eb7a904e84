/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgcreate.c - `lvx vgcreate [options] VG PV...`: a new VG on orphan PVs
 * (devices without a label become PVs first, as LVM2 2.03 does).  Under the global
 * lock and the new VG's lock: name checks, the VG built in memory (seqno 1 once
 * committed, RESIZEABLE READ WRITE, random UUID, pe_count per PV from §12.2), then
 * the three-phase commit (labels get PV_EXT_USED) and the backup file.
 */
#include "cmd/vgcmd.h"

#include <string.h>

#include "meta/mda_policy.h"
#include "meta/vgops.h"

/* The VG attributes given on the command line. */
struct vg_settings {
    uint32_t extent_size, max_lv, max_pv, mda_copies;
    bool mda_given, mda_all;
    enum lvx_alloc alloc;
};

static int parse_settings(struct lvx_cmd_env *env, struct vg_settings *s)
{
    int rc;
    s->extent_size = LVX_DEFAULT_EXTENT_SIZE;
    s->alloc = LVX_ALLOC_NORMAL;
    lvx_vgcmd_uint_opt(env, LVX_OPT_MAXLOGICALVOLUMES, &s->max_lv);
    lvx_vgcmd_uint_opt(env, LVX_OPT_MAXPHYSICALVOLUMES, &s->max_pv);
    if ((rc = lvx_vgcmd_extent_size(env, &s->extent_size)) ||
        (rc = lvx_vgcmd_mda_copies(env, &s->mda_given, &s->mda_copies, &s->mda_all)))
        return rc;
    const char *alloc = env->args->count[LVX_OPT_ALLOC] ? env->args->value[LVX_OPT_ALLOC] : NULL;
    if (alloc && lvx_alloc_parse(alloc, &s->alloc) < 0) {
        lvx_cmd_errorf("Invalid argument for --alloc: %s", alloc);
        return LVX_EXIT_INVALID;
    }
    if (s->alloc == LVX_ALLOC_INHERIT) {
        lvx_cmd_errorf("Volume Group allocation policy cannot inherit from anything");
        return LVX_EXIT_INVALID;
    }
    return 0;
}

static struct lvx_vg *new_vg(struct lvx_pool *pool, const char *name, const struct vg_settings *s)
{
    struct lvx_vg *vg = lvx_vg_new(pool);
    vg->name = lvx_pool_strdup(pool, name);
    lvx_uuid_generate(vg->uuid);
    vg->seqno = 0;                       /* the commit writes seqno 1 */
    vg->format = "lvm2";
    vg->status = LVX_VG_RESIZEABLE | LVX_VG_READ | LVX_VG_WRITE;
    vg->has_flags = true;
    vg->extent_size = s->extent_size;
    vg->max_lv = s->max_lv;
    vg->max_pv = s->max_pv;
    vg->alloc = s->alloc;
    vg->has_metadata_copies = true;
    vg->metadata_copies = s->mda_copies;
    return vg;
}

static int create(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *name,
                  const struct vg_settings *s)
{
    int rc;
    if (lvx_lock_vg(env->ctx, name, true, &u->vg_lock) < 0)
        return lvx_cmd_fail(env);
    if (lvx_vgcmd_find_named(u->set, name)) {
        lvx_cmd_errorf("A volume group called %s already exists.", name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_pv **orphans;
    unsigned n;
    if ((rc = lvx_vgcmd_orphans(env, u, env->args->argv + 1, (unsigned)env->args->argc - 1,
                                &orphans, &n)) != 0)
        return rc;
    struct lvx_vg *vg = new_vg(u->set->pool, name, s);
    lvx_cmd_apply_tags(env, vg->pool, &vg->tags);
    for (unsigned i = 0; i < n; i++)
        if (lvx_vgops_add_orphan(env->ctx, vg, orphans[i], NULL) < 0)
            return lvx_cmd_fail(env);
    if (s->mda_all)
        lvx_mda_policy_use_all(vg);
    else if (!s->mda_given)
        lvx_mda_policy_join(vg, 0, lvx_mda_policy_auto_limit(env->ctx));   /* Large VGs */
    u->vg = vg;
    if ((rc = lvx_vgcmd_commit(env, u)) != 0)
        return rc;
    lvx_notice(env->ctx, "Volume group \"%s\" successfully created", name);
    return 0;
}

int lvx_cmd_vgcreate(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    if (a->argc < 2) {
        lvx_cmd_errorf(a->argc ? "Please enter physical volume name(s)"
                               : "Please provide volume group name and physical volumes");
        return LVX_EXIT_INVALID;
    }
    const char *name = a->argv[0];
    int rc = lvx_vgcmd_new_name(env, name, LVX_EXIT_INVALID);
    if (rc)
        return rc;
    struct vg_settings s = {0};
    rc = parse_settings(env, &s);
    if (rc)
        return rc;
    struct lvx_vg_update u;
    if ((rc = lvx_vgcmd_begin(env, NULL, LVX_UPDATE_GLOBAL_LOCK, &u)) != 0)
        return rc;
    rc = create(env, &u, name, &s);
    lvx_vg_update_end(&u);
    return rc;
}
