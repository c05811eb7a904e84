/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgcreate.c - `lvx vgcreate [options] VG PV...`: a new VG on orphan PVs
 * (devices without a label become PVs first, as LVM2 2.03 does).  Under the global
 * lock and the new VG's lock: name checks, the VG built in memory (seqno 1 once
 * committed, RESIZEABLE READ WRITE, random UUID, pe_count per PV from §12.2), then
 * the three-phase commit (labels get PV_EXT_USED) and the backup file.
 */
#include "cmd/vgcmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/shared_vg.h"
#include "meta/lockd.h"
#include "meta/lockd_sanlock.h"
#include "meta/mda_policy.h"
#include "meta/systemid.h"
#include "meta/vgops.h"

static int parse_settings(struct lvx_cmd_env *env, struct lvx_vgcmd_settings *s)
{
    s->extent_size = LVX_DEFAULT_EXTENT_SIZE;
    s->alloc = LVX_ALLOC_NORMAL;
    int rc = lvx_vgcmd_extent_size(env, &s->extent_size);
    return rc ? rc : lvx_vgcmd_settings(env, s);
}

/* The new VG's system ID: --systemid (cleaned; "" none), else the local one.  LVM2
 * reads the option twice, so its warnings come twice.  NULL: refused (printed). */
static const char *new_system_id(struct lvx_cmd_env *env)
{
    bool unknown;
    const char *local = lvx_system_id_local(env->ctx, env->pool, &unknown);
    if (!env->args->count[LVX_OPT_SYSTEMID])
        return local;
    const char *arg = env->args->value[LVX_OPT_SYSTEMID];
    const char *id = lvx_system_id_clean(env->ctx, env->pool, arg);
    if (!id)
        return NULL;
    if (*local && strcmp(id, local) != 0) {
        if (*id)
            lvx_warn(env->ctx, "VG with system ID %s might become inaccessible as local "
                     "system ID is %s", id, local);
        else
            lvx_warn(env->ctx, "WARNING: A VG without a system ID allows unsafe access from "
                     "other hosts.");
    }
    id = lvx_system_id_clean(env->ctx, env->pool, arg);
    if (!id)
        return NULL;
    if (!*id)
        lvx_warn(env->ctx, "WARNING: A VG without a system ID allows unsafe access from "
                 "other hosts.");
    if (*local && strcmp(id, local) != 0)
        lvx_warn(env->ctx, "VG with system ID %s might become inaccessible as local system "
                 "ID is %s", id, local);
    return id;
}

static int create(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *name,
                  const struct lvx_vgcmd_settings *s, const char *system_id)
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
    struct lvx_vg *vg = lvx_vgcmd_new_vg(u->set->pool, name, s);
    lvx_cmd_apply_tags(env, vg->pool, &vg->tags);
    vg->system_id = *system_id ? lvx_pool_strdup(vg->pool, system_id) : NULL;
    const char *profile = lvx_cmd_metadata_profile(env);     /* checked by the dispatcher */
    vg->profile = profile ? lvx_pool_strdup(vg->pool, profile) : NULL;
    for (unsigned i = 0; i < n; i++)
        if (lvx_vgops_add_orphan(env->ctx, vg, orphans[i], NULL) < 0)
            return lvx_cmd_fail(env);
    if (s->mda_all)
        lvx_mda_policy_use_all(vg);
    else if (!s->mda_given)
        lvx_mda_policy_join(vg, 0, lvx_mda_policy_auto_limit(env->ctx));   /* Large VGs */
    bool shared = env->args->count[LVX_OPT_SHARED] > 0;
    struct lvx_sanlock_area area = { 0 };
    bool global = shared && lvx_shared_vg_first(u->set);
    if (shared && (rc = lvx_shared_vg_make(env, vg, &area)) != 0)
        return rc;
    u->vg = vg;
    if (global)
        lvx_notice(env->ctx, "Enabling sanlock global lock");
    if ((rc = lvx_vgcmd_commit(env, u)) != 0)
        return rc;
    if (shared)
        lvx_notice(env->ctx, "Logical volume \"lvmlock\" created.");
    if (shared && !env->args->count[LVX_OPT_TEST]) {
        if (lvx_sanlock_init_vg(env->ctx, name, &area, global) < 0) {
            lvx_cmd_fail(env);
            lvx_cmd_errorf("Failed to initialize lock args for lock type sanlock");
            return LVX_EXIT_FAILED;
        }
    }
    lvx_vg_backup_warning(env->ctx);          /* LVM2: before its message */
    if (vg->system_id)
        lvx_notice(env->ctx, "Volume group \"%s\" successfully created with system ID %s",
                   name, vg->system_id);
    else
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
    struct lvx_vgcmd_settings s = {0};
    rc = parse_settings(env, &s);
    if (rc)
        return rc;
    if (a->count[LVX_OPT_SHARED] && !lvx_lockd_use(env->ctx)) {    /* before any write */
        lvx_cmd_errorf("Using a shared lock type requires lvmlockd (lvm.conf use_lvmlockd.)");
        lvx_cmd_errorf("Run `vgcreate --help' for more information.");
        return LVX_EXIT_INVALID;
    }
    const char *system_id = new_system_id(env);
    if (!system_id) {
        lvx_cmd_errorf("Run `vgcreate --help' for more information.");
        return LVX_EXIT_INVALID;
    }
    struct lvx_vg_update u;
    if ((rc = lvx_vgcmd_begin(env, NULL, LVX_UPDATE_GLOBAL_LOCK, &u)) != 0)
        return rc;
    rc = create(env, &u, name, &s, system_id);
    lvx_vg_update_end(&u);
    return rc;
}
