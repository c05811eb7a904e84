/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcreate_extorig.c - lvcreate of a thin LV with an external origin, as LVM2
 * 2.03.16 (tools/lvcreate.c _determine_snapshot_type; lib/metadata/lv_manip.c
 * _lv_create_an_lv; command-lines.in lvcreate_thin_snapshot_of_external):
 *
 *   lvcreate -s --thinpool VG/POOL VG/LV [-n NAME]
 *   lvcreate --type thin --thinpool POOL VG/LV [-n NAME]
 *
 * The new thin LV has LV's size and LV as its external origin (LV must already be
 * read-only and inactive: LVM2's refusals); a thin LV of POOL as LV makes an ordinary
 * thin snapshot instead.  The pool gets create_thin (lvcreate_thin.c does the rest).
 * Entry points: lvx_lvcreate_external_form(), lvx_lvcreate_external_cmd().
 */
#include "cmd/lvcreate_extorig.h"

#include <string.h>

#include "cmd/lvcreate_thin.h"

bool lvx_lvcreate_external_form(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    const char *type = a->value[LVX_OPT_TYPE];
    bool thin_type = type && !strcmp(type, "thin");
    if (!a->count[LVX_OPT_THINPOOL] || a->argc < 1 ||
        a->count[LVX_OPT_SIZE] || a->count[LVX_OPT_EXTENTS] || a->count[LVX_OPT_VIRTUALSIZE])
        return false;
    if (thin_type)
        return !a->count[LVX_OPT_SNAPSHOT];
    return !type && a->count[LVX_OPT_SNAPSHOT] && !a->count[LVX_OPT_THIN];
}

static int split(struct lvx_cmd_env *env, const char *arg, const char **vg, const char **lv)
{
    if (!lvx_lvcmd_split_name(env, arg, vg, lv)) {
        lvx_cmd_errorf("Invalid logical volume name %s.", arg);
        return LVX_EXIT_INVALID;
    }
    return 0;
}

static int same_vg(const char *have, const char *vg)
{
    if (vg && strcmp(have, vg) != 0) {
        lvx_cmd_errorf("Inconsistent volume group names given: \"%s\" and \"%s\"", vg, have);
        return LVX_EXIT_INVALID;
    }
    return 0;
}

/* The pool options LVM2's lvcreate_thin_snapshot_of_external does not take. */
static const enum lvx_opt_id refused[] = {
    LVX_OPT_CHUNKSIZE, LVX_OPT_POOLMETADATA, LVX_OPT_POOLMETADATASIZE,
    LVX_OPT_POOLMETADATASPARE, LVX_OPT_DISCARDS, LVX_OPT_ERRORWHENFULL, LVX_OPT_STRIPES,
    LVX_OPT_STRIPESIZE,
};

int lvx_lvcreate_external_cmd(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (a->count[refused[i]]) {
            const struct lvx_opt_def *d = lvx_opt_def(refused[i]);
            lvx_cmd_errorf("Command does not accept option: --%s%s%s.", d->long_name,
                           a->value[refused[i]] ? " " : "",
                           a->value[refused[i]] ? a->value[refused[i]] : "");
            return LVX_EXIT_INVALID;
        }
    const char *vg = NULL, *origin = NULL, *pvg = NULL, *pool = a->value[LVX_OPT_THINPOOL];
    const char *name;
    int rc;
    if (a->count[LVX_OPT_ZERO]) {
        lvx_cmd_errorf("Option --zero is unsupported with snapshots.");
        lvx_cmd_errorf("Run `lvcreate --help' for more information.");
        return LVX_EXIT_INVALID;
    }
    if (!strchr(a->argv[0], '/')) {
        lvx_cmd_errorf("The origin name should include the volume group.");
        lvx_cmd_errorf("Run `lvcreate --help' for more information.");
        return LVX_EXIT_INVALID;
    }
    if ((rc = split(env, a->argv[0], &vg, &origin)))
        return rc;
    if (strchr(pool, '/') && ((rc = split(env, pool, &pvg, &pool)) || (rc = same_vg(vg, pvg))))
        return rc;
    if ((rc = lvx_lvcreate_name_arg(env, &vg, &name)))
        return rc;
    struct lvx_vg_update u;
    if ((rc = lvx_lvcmd_begin(env, vg, &u)))
        return rc;
    struct lvx_lv *org = lvx_vg_find_lv(u.vg, origin);
    struct lvx_lv *tp = pool ? lvx_vg_find_lv(u.vg, pool) : NULL;
    if (!org) {
        lvx_cmd_errorf("Snapshot origin LV %s not found in Volume group %s.", origin, vg);
        rc = LVX_EXIT_FAILED;
    } else if (!tp) {
        lvx_cmd_errorf("Thin pool volume %s not found in Volume group %s.", pool, vg);
        rc = LVX_EXIT_FAILED;
    } else if (!lvx_lv_is_thin_pool(tp)) {
        lvx_cmd_errorf("Logical volume %s/%s is not a thin pool volume.", vg, pool);
        rc = LVX_EXIT_FAILED;
    } else {
        rc = lvx_lvcreate_thin_snapshot(env, &u, tp, org, name);
    }
    lvx_vg_update_end(&u);
    return rc;
}
