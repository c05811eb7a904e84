/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvchange.c - `lvx pvchange [-x y|n] [--metadataignore y|n] [-u] [--addtag T]
 * [--deltag T] (-a | PV ...)`: change PV properties.
 *
 * PVs of a VG are changed in the model and committed once per PV (LVM2's seqno +1
 * a PV: cmd/toolkit.c) through meta/update (locks, archive, three-phase commit,
 * backup).  Orphan PVs have no
 * metadata text: only their UUID (label rewrite) and the ignored flag of their
 * metadata areas (mda header rewrite) can change; allocatability and tags are
 * refused as LVM2 refuses them.
 */
#include "cmd/actcmd.h"
#include "cmd/commands.h"
#include "cmd/pvcmd.h"
#include "cmd/toolkit.h"
#include "cmd/vgcmd.h"

#include <string.h>

#include "meta/commit.h"
#include "meta/lock.h"
#include "meta/pv_init.h"
#include "meta/update.h"

struct pvchange_opts {
    bool set_alloc, alloc;
    bool set_ignore, ignore;
    bool new_uuid;
};

/* ---- options --------------------------------------------------------------- */

static int parse_opts(struct lvx_cmd_env *env, struct pvchange_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    memset(o, 0, sizeof(*o));
    o->set_alloc = a->count[LVX_OPT_ALLOCATABLE] > 0;
    o->set_ignore = a->count[LVX_OPT_METADATAIGNORE] > 0;
    o->new_uuid = a->count[LVX_OPT_UUID] > 0;
    o->alloc = lvx_cmd_bool(env, LVX_OPT_ALLOCATABLE, false);
    o->ignore = lvx_cmd_bool(env, LVX_OPT_METADATAIGNORE, false);
    if (!o->set_alloc && !o->set_ignore && !o->new_uuid && !lvx_cmd_has_tag_changes(env)) {
        lvx_cmd_errorf("No change requested: give -x, --metadataignore, -u, --addtag or --deltag.");
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_ALL] && a->argc) {
        lvx_cmd_errorf("Option --all and PV names are mutually exclusive.");
        return LVX_EXIT_INVALID;
    }
    if (!a->count[LVX_OPT_ALL] && !a->argc && !a->count[LVX_OPT_SELECT]) {
        lvx_cmd_errorf("Please give a physical volume path or use --all.");
        return LVX_EXIT_INVALID;
    }
    return 0;
}

/* ---- PVs of a VG ------------------------------------------------------------ */

static unsigned vg_mdas_in_use(const struct lvx_vg *vg)
{
    unsigned n = 0;
    for (unsigned i = 0; i < vg->pv_count; i++) {
        const struct lvx_pv *pv = vg->pvs[i];
        for (unsigned m = 0; pv->ondisk.present && m < pv->ondisk.mda_count; m++)
            n += !pv->ondisk.mda[m].ignored && !pv->ondisk.mda[m].bad;
    }
    return n;
}

/* 1 changed, 0 unchanged, -1 refused (message printed). */
static int change_mda_ignore(const char *name, struct lvx_pv *pv, bool ignore)
{
    struct lvx_pv_ondisk *od = &pv->ondisk;
    if (od->mda_count == 0) {
        lvx_cmd_errorf("Physical volume \"%s\" has no metadata areas.", name);
        return -1;
    }
    bool all_same = true;
    for (unsigned m = 0; m < od->mda_count; m++)
        all_same &= od->mda[m].ignored == ignore;
    if (all_same) {
        lvx_cmd_errorf("Metadata areas on physical volume \"%s\" already %s.", name,
                       ignore ? "ignored" : "marked as in use");
        return -1;
    }
    bool saved[2] = { od->mda[0].ignored, od->mda_count > 1 && od->mda[1].ignored };
    for (unsigned m = 0; m < od->mda_count; m++)
        od->mda[m].ignored = ignore;
    if (vg_mdas_in_use(pv->vg) == 0) {
        for (unsigned m = 0; m < od->mda_count; m++)
            od->mda[m].ignored = saved[m];
        lvx_cmd_errorf("Cannot disable all metadata areas in volume group %s.", pv->vg->name);
        return -1;
    }
    /* a managed vgmetadatacopies follows the resulting number of areas in use (§12.6) */
    if (pv->vg->metadata_copies > 0) {
        pv->vg->metadata_copies = vg_mdas_in_use(pv->vg);
        pv->vg->has_metadata_copies = true;
    }
    return 1;
}

/* A PV of a VG in memory: 1 changed, 0 unchanged, -1 refused. */
static int change_vg_pv(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *name,
                        struct lvx_pv *pv, void *arg)
{
    const struct pvchange_opts *o = arg;
    bool changed = false;
    if (o->new_uuid && lvx_vgcmd_has_active_lv(env, pv->vg)) {
        lvx_cmd_errorf("Volume group containing %s has active logical volumes", name);
        return -1;
    }
    if (o->set_alloc) {
        bool now = pv->status & LVX_PV_ALLOCATABLE;
        if (now == o->alloc) {
            lvx_cmd_errorf("Physical volume \"%s\" is already %s.", name,
                           now ? "allocatable" : "unallocatable");
        } else {
            pv->status = o->alloc ? pv->status | LVX_PV_ALLOCATABLE : pv->status & ~LVX_PV_ALLOCATABLE;
            changed = true;
        }
    }
    if (o->set_ignore) {
        int r = change_mda_ignore(name, pv, o->ignore);
        if (r < 0)
            return -1;
        changed |= r > 0;
    }
    changed |= lvx_cmd_apply_tags(env, pv->vg->pool, &pv->tags);
    if (o->new_uuid) {
        struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, pv->uuid);
        char uuid[LVX_UUID_LEN + 1];
        if (!spv || lvx_uuid_generate(uuid) < 0) {
            lvx_cmd_errorf("Cannot change the UUID of %s.", name);
            return -1;
        }
        memcpy(pv->uuid, uuid, sizeof(uuid));
        memcpy(spv->label.pv_uuid, uuid, sizeof(uuid));
        changed = true;
    }
    return changed ? 1 : 0;
}

/* After the commit: a new UUID goes to the label too.  1, or 0 when that failed. */
static int write_label(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *name,
                       struct lvx_pv *pv, void *arg)
{
    const struct pvchange_opts *o = arg;
    if (!o->new_uuid)
        return 1;
    struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, pv->uuid);
    if (!spv || lvx_dev_open(env->ctx, spv->dev, true) < 0 || lvx_pv_write_label(env->ctx, spv) < 0) {
        lvx_cmd_fail(env);
        return 0;
    }
    return 1;
}

/* ---- orphan PVs ----------------------------------------------------------------- */

static int change_orphan_pv(struct lvx_cmd_env *env, const char *name, struct lvx_scan_pv *spv,
                            const struct pvchange_opts *o)
{
    if (!spv) {
        lvx_cmd_errorf("Failed to find physical volume \"%s\".", name);
        return -1;
    }
    if (lvx_pv_scanned_vg_name(spv)) {
        lvx_cmd_errorf("Physical volume %s joined a volume group meanwhile: not changed.", name);
        return -1;
    }
    if (lvx_pv_scanned_in_vg(spv) && env->args->count[LVX_OPT_FORCE] < 2) {
        /* marked in use (PV_EXT_USED) but no VG seen lists it: LVM2 wants -ff */
        lvx_cmd_errorf("PV %s is used by a VG but its metadata is missing.", name);
        lvx_cmd_errorf("Can't change PV '%s' without -ff.", name);
        lvx_cmd_errorf("Physical volume %s not changed", name);
        return -1;
    }
    if (o->set_alloc) {
        lvx_cmd_errorf("Allocatability not supported by orphan lvm2 format PV %s", name);
        lvx_cmd_errorf("Physical volume %s not changed", name);     /* LVM2 */
        return -1;
    }
    if (lvx_cmd_has_tag_changes(env)) {
        lvx_cmd_errorf("Can't change tag on Physical Volume %s not in volume group", name);
        lvx_cmd_errorf("Physical volume %s not changed", name);     /* LVM2 */
        return -1;
    }
    if (o->set_ignore) {
        bool all_same = spv->mda_count > 0;
        for (unsigned m = 0; m < spv->mda_count; m++)
            all_same &= spv->mda[m].ignored == o->ignore;
        if (spv->mda_count == 0 || all_same) {
            lvx_cmd_errorf(spv->mda_count ? "Metadata areas on physical volume \"%s\" already %s."
                                          : "Physical volume \"%s\" has no metadata areas%s.",
                           name, spv->mda_count ? (o->ignore ? "ignored" : "marked as in use") : "");
            return -1;
        }
    }
    if (env->args->count[LVX_OPT_TEST])
        return 1;
    if (lvx_dev_open(env->ctx, spv->dev, true) < 0)
        goto fail;
    if (o->set_ignore && lvx_pv_set_orphan_mdas_ignored(env->ctx, spv, o->ignore) < 0)
        goto fail;
    if (o->new_uuid) {
        char uuid[LVX_UUID_LEN + 1];
        if (lvx_uuid_generate(uuid) < 0)
            goto fail;
        memcpy(spv->label.pv_uuid, uuid, sizeof(uuid));
        if (lvx_pv_write_label(env->ctx, spv) < 0)
            goto fail;
    }
    return 1;
fail:
    lvx_cmd_errorf("Failed to change physical volume %s: %s", name, env->ctx->errmsg);
    lvx_error_clear(env->ctx);
    return -1;
}

static bool change_orphan(struct lvx_cmd_env *env, const char *name, struct lvx_scan_pv *spv,
                          const void *opts)
{
    return change_orphan_pv(env, name, spv, opts) > 0;
}


static const char *plural(unsigned n)
{
    return n == 1 ? "" : "s";
}

int lvx_cmd_pvchange(struct lvx_cmd_env *env)
{
    struct pvchange_opts o;
    struct lvx_pvcmd_count cnt = {0};

    int rc = parse_opts(env, &o);
    if (rc)
        return rc;
    struct lvx_tk_pv_ops ops = {
        .all = env->args->count[LVX_OPT_ALL] > 0 ||
               (env->args->count[LVX_OPT_SELECT] && !env->args->argc), .say_unchanged = true,
        .vg_pv = change_vg_pv, .committed_pv = write_label, .orphan = change_orphan, .arg = &o,
        .backup_warning_first = true,
    };
    if ((rc = lvx_process_each_pv(env, &ops, &cnt)))
        return rc;
    lvx_notice(env->ctx, "%u physical volume%s changed / %u physical volume%s not changed",
               cnt.changed, plural(cnt.changed), cnt.unchanged, plural(cnt.unchanged));
    return cnt.failed ? LVX_EXIT_FAILED : LVX_EXIT_OK;
}
