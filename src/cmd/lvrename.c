/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvrename.c - `lvx lvrename VG OLD NEW`, `lvx lvrename VG/OLD VG/NEW` (also
 * `VG/OLD NEW`): rename an LV inside its VG, with LVM2's checks and messages.
 * Only LVs whose name no other segment refers to and whose own segments are
 * linear/striped are renamed (sub-LV names of raid/thin/... LVs would have to
 * follow, which lvx does not do yet), COW snapshots and their origins, thin LVs,
 * and mirrors (lvcreate --type mirror), whose
 * NAME_mimage_K and NAME_mlog sub-LVs take the new name as LVM2's do, as does a sparse
 * snapshot's hidden NAME_vorigin.  An active LV's
 * device (and a mirror's sub-LV devices) is renamed after the commit (DM rename, new
 * /dev nodes).
 */
#include "cmd/lvcmd.h"

#include "cmd/actcmd.h"
#include "map/map.h"
#include "model/snapshot.h"
#include "model/thin.h"

#include <string.h>

struct rename_args {
    const char *vg, *old_name, *new_name;
};

static int usage_error(const char *msg)
{
    lvx_cmd_errorf("%s", msg);
    return LVX_EXIT_INVALID;
}

/* "VG OLD NEW" or "[VG/]OLD [VG/]NEW" with one VG. */
static int parse_rename_args(struct lvx_cmd_env *env, struct rename_args *r)
{
    char **argv = env->args->argv;
    const char *vg1, *lv1, *vg2, *lv2;

    memset(r, 0, sizeof(*r));
    if (env->args->argc == 3) {
        if (!lvx_lvcmd_split_name(env, argv[0], &vg1, &lv1) || lv1)
            return usage_error("Please provide a valid volume group name");
        r->vg = vg1;
        r->old_name = argv[1];
        r->new_name = argv[2];
        /* "VG VG/OLD VG/NEW" is accepted by LVM2 too */
        if (lvx_lvcmd_split_name(env, argv[1], &vg2, &lv2) && lv2) {
            if (strcmp(vg2, vg1) != 0)
                return usage_error("Logical volume names must have the same volume group");
            r->old_name = lv2;
        }
        if (lvx_lvcmd_split_name(env, argv[2], &vg2, &lv2) && lv2) {
            if (strcmp(vg2, vg1) != 0)
                return usage_error("Logical volume names must have the same volume group");
            r->new_name = lv2;
        }
        return 0;
    }
    if (env->args->argc != 2)
        return usage_error("Old and new logical volume names required");
    if (!lvx_lvcmd_split_name(env, argv[0], &vg1, &lv1) || !lv1) {
        return usage_error(lvx_pool_printf(env->pool, "Path required for Logical Volume "
                                           "\"%s\": please provide a valid volume group name.",
                                           argv[0]));
    }
    r->vg = vg1;
    r->old_name = lv1;
    r->new_name = argv[1];
    if (strchr(argv[1], '/')) {
        if (!lvx_lvcmd_split_name(env, argv[1], &vg2, &lv2) || !lv2)
            return usage_error("Please provide a valid new logical volume name");
        if (strcmp(vg1, vg2) != 0)
            return usage_error(lvx_pool_printf(env->pool, "Logical volume names must have the "
                                               "same volume group (\"%s\" or \"%s\")", vg1, vg2));
        r->new_name = lv2;
    }
    return 0;
}

/* Does any segment of the VG refer to lv (by name in kept raw sections too)? */
static bool referenced(const struct lvx_lv *lv)
{
    const char *role = NULL;
    if (lvx_lv_used_by(lv, &role))
        return true;
    for (unsigned i = 0; i < lv->vg->lv_count; i++) {
        const struct lvx_lv *o = lv->vg->lvs[i];
        for (unsigned j = 0; j < o->seg_count; j++)
            if (o->segs[j].origin_lv == lv || o->segs[j].pool_lv == lv)
                return true;
    }
    return false;
}

/* A COW snapshot, the origin of COW snapshots, or a thin LV (thin snapshots may name
 * it as their origin): the references follow it (they are pointers), its active
 * devices are renamed by the backend (a COW's "-cow", an origin's "-real" layer too).
 * Not while a snapshot merges. */
static bool stacked_renamable(const struct lvx_lv *lv)
{
    const char *role = NULL;
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv);
    if (cs)
        return !cs->merging;
    const struct lvx_seg *user = lvx_lv_used_by(lv, &role);
    if (!user || user->kind == LVX_SEG_CACHE || lvx_lv_merging_snapshot(lv) ||
        (strcmp(role, "origin") && strcmp(role, "thin_origin")))
        return lvx_lv_is_thin(lv) && !user;
    for (unsigned i = 0; i < lv->seg_count; i++) {
        enum lvx_seg_kind k = lv->segs[i].kind;
        if (k != LVX_SEG_STRIPED && k != LVX_SEG_ZERO && k != LVX_SEG_ERROR &&
            k != LVX_SEG_THIN)
            return false;
    }
    return true;
}

/* up to 8 images, the log and a mirrored log's 2 images; with LVM2's CONVERTING layer
 * (cmd/mirror_layer.c) the layer's own as many again */
#define LVX_MIRROR_SUBS 24

/* The sub-LVs of a mirror whose names start with `prefix` (the mirror's name, as LVM2
 * names them), appended to subs from *n; a CONVERTING layer's own (its images, log,
 * NAME_mimagetmp_N itself) followed through (LVM2's for_each_sub_lv renames them all). */
static void mirror_subs_of(struct lvx_lv *lv, const char *prefix, struct lvx_lv **subs,
                           unsigned *n)
{
    const struct lvx_seg *seg = &lv->segs[0];
    const struct lvx_lv *log = seg->log_lv;
    const struct lvx_seg *ls = log && lvx_map_lv_is_mirror(log) ? &log->segs[0] : NULL;
    size_t len = strlen(prefix);
    for (uint32_t i = 0; i <= seg->area_count + (ls ? ls->area_count : 0) &&
                         *n < LVX_MIRROR_SUBS; i++) {
        struct lvx_lv *sub = i < seg->area_count ? seg->areas[i].lv
                             : i == seg->area_count ? seg->log_lv
                                                    : ls->areas[i - seg->area_count - 1].lv;
        if (sub && !strncmp(sub->name, prefix, len) && sub->name[len] == '_')
            subs[(*n)++] = sub;
        if (sub && i == 0 && lvx_map_mirror_sync_layer(lv) == sub)
            mirror_subs_of(sub, prefix, subs, n);
    }
}

static unsigned mirror_subs(struct lvx_lv *lv, struct lvx_lv **subs)
{
    unsigned n = 0;
    mirror_subs_of(lv, lv->name, subs, &n);
    return n;
}

/* A sparse snapshot's hidden NAME_vorigin takes the new name (LVM2's _rename_sub_lv:
 * the part after the old name kept), with LVM2's refusals.  *vorigin: it, or NULL for
 * any other LV; *old: its old name.  0 or the exit code. */
static int rename_vorigin(struct lvx_vg *vg, struct lvx_lv *lv, const struct rename_args *r,
                          struct lvx_lv **vorigin, const char **old)
{
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv);
    *vorigin = cs && cs->origin_lv && lvx_lv_is_virtual_origin(cs->origin_lv)
                   ? (struct lvx_lv *)cs->origin_lv : NULL;
    if (!*vorigin)
        return 0;
    struct lvx_lv *vo = *vorigin;
    size_t len = strlen(r->old_name);
    if (strncmp(vo->name, r->old_name, len) || vo->name[len] != '_') {
        lvx_cmd_errorf("Cannot rename \"%s\": name format not recognized for internal LV "
                       "\"%s\"", r->old_name, vo->name);
        return LVX_EXIT_FAILED;
    }
    const char *name = lvx_pool_printf(vg->pool, "%s%s", r->new_name, vo->name + len);
    if (!lvx_name_valid(name)) {
        lvx_cmd_errorf("Cannot rename \"%s\". New logical volume name \"%s\" is invalid.",
                       vo->name, name);
        return LVX_EXIT_FAILED;
    }
    if (lvx_vg_find_lv(vg, name)) {
        lvx_cmd_errorf("Logical Volume \"%s\" already exists in volume group \"%s\"", name,
                       vg->name);
        return LVX_EXIT_FAILED;
    }
    *old = vo->name;
    vo->name = name;
    return 0;
}

static int rename_in_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                        const struct rename_args *r)
{
    struct lvx_lv *lv = lvx_vg_find_lv(u->vg, r->old_name);
    int rc;

    if (!lv) {
        lvx_cmd_errorf("Existing logical volume \"%s\" not found in volume group \"%s\"",
                       r->old_name, r->vg);
        return LVX_EXIT_FAILED;
    }
    /* LVM2's lv_rename_update: sub-LVs (a sparse snapshot's NAME_vorigin too) are
     * renamed with their LV only; pools are the exception */
    if (!lvx_lv_is_visible(lv) && !lvx_lv_is_thin_pool(lv) &&
        !(lv->seg_count && lv->segs[0].kind == LVX_SEG_CACHE_POOL)) {
        lvx_cmd_errorf("Cannot rename internal LV \"%s\".", lv->name);
        return LVX_EXIT_FAILED;
    }
    if ((rc = lvx_lvcmd_check_new_name(u->vg, r->new_name)))
        return rc;
    bool stacked = stacked_renamable(lv);
    if (!stacked && referenced(lv)) {
        lvx_cmd_errorf("Can't rename logical volume %s/%s: other LVs refer to it (lvx does "
                       "not rename stacked LVs yet).", r->vg, r->old_name);
        return LVX_EXIT_FAILED;
    }
    const char *role;
    bool mirror = lvx_map_lv_is_mirror(lv) && !(lv->status & LVX_LV_LOCKED) &&
                  !lvx_lv_used_by(lv, &role);
    if (!mirror && (!stacked || (lv->status & LVX_LV_LOCKED)) &&
        lvx_lvcmd_refuse_complex(lv, "rename"))
        return LVX_EXIT_FAILED;
    struct lvx_actcmd act;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    const char *old_name = lv->name;    /* the active device still has the old name */
    bool active = lvx_actcmd_is_active(env, &act, lv, NULL);
    if (active && mirror && !act.be->rename_sub) {
        lvx_cmd_errorf("Can't rename active mirror %s/%s: the %s activation backend does not "
                       "rename sub-LV devices.", r->vg, r->old_name, act.be->name);
        return LVX_EXIT_FAILED;
    }
    struct lvx_lv *subs[LVX_MIRROR_SUBS];
    const char *sub_old[LVX_MIRROR_SUBS];
    unsigned n = mirror ? mirror_subs(lv, subs) : 0;
    for (unsigned i = 0; i < n; i++) {  /* NAME_mimage_K, NAME_mlog follow the LV's name */
        sub_old[i] = subs[i]->name;
        const char *name = lvx_pool_printf(u->vg->pool, "%s%s", r->new_name,
                                           subs[i]->name + strlen(r->old_name));
        if (lvx_vg_find_lv(u->vg, name)) {
            lvx_cmd_errorf("Logical volume \"%s\" already exists in volume group \"%s\"",
                           name, r->vg);
            return LVX_EXIT_FAILED;
        }
        subs[i]->name = name;
    }
    struct lvx_lv *vorigin;
    const char *vorigin_old = NULL;
    if ((rc = rename_vorigin(u->vg, lv, r, &vorigin, &vorigin_old)))
        return rc;
    lv->name = lvx_pool_strdup(u->vg->pool, r->new_name);
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    for (unsigned i = 0; active && !act.test && i < n; i++)
        if (act.be->rename_sub(env->ctx, subs[i], sub_old[i]) < 0)
            return lvx_cmd_fail(env);
    if (active && !act.test) {
        const char *new_name = lv->name;
        lv->name = old_name;            /* the backend finds the devices by the old name */
        rc = act.be->rename(env->ctx, lv, r->vg, new_name);
        lv->name = new_name;
        if (rc == 0 && vorigin) {       /* its devices (-real too) follow, no /dev link */
            new_name = vorigin->name;
            vorigin->name = vorigin_old;
            rc = act.be->rename(env->ctx, vorigin, r->vg, new_name);
            vorigin->name = new_name;
        }
        if (rc < 0)
            return lvx_cmd_fail(env);
    }
    lvx_notice(env->ctx, "Renamed \"%s\" to \"%s\" in volume group \"%s\"", r->old_name,
               r->new_name, r->vg);
    return 0;
}

int lvx_cmd_lvrename(struct lvx_cmd_env *env)
{
    struct rename_args r;
    struct lvx_vg_update u;
    int rc = parse_rename_args(env, &r);
    if (rc)
        return rc;
    if (!strcmp(r.old_name, r.new_name)) {
        lvx_cmd_errorf("Old and new logical volume names must differ");
        return LVX_EXIT_INVALID;
    }
    if (!lvx_name_valid(r.new_name)) {
        lvx_cmd_errorf("New logical volume name \"%s\" is invalid", r.new_name);
        return LVX_EXIT_INVALID;
    }
    if (lvx_lvcmd_name_reserved(r.new_name))
        return LVX_EXIT_INVALID;
    if ((rc = lvx_lvcmd_begin(env, r.vg, &u)))
        return rc;
    rc = rename_in_vg(env, &u, &r);
    lvx_vg_update_end(&u);
    return rc;
}
