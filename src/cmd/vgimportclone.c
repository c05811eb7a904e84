/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgimportclone.c - `lvx vgimportclone [-n BASE] [-i] PV...`: the PVs of a disk copy
 * (duplicates of another VG's PVs) become a VG of their own, as LVM2: every PV gets a
 * new UUID, the VG a new UUID and a new name (BASE, or the old name, with a number
 * appended while the name is taken by a VG on the other devices), lock type and
 * system ID are cleared, -i also imports an exported VG.
 *
 * The names taken are read from the labels and metadata areas of every other device
 * (one scan, not assembled: the duplicates would only warn); the VG itself is then read
 * from the named devices alone.  All its PVs must be named, and only they.  The new
 * metadata is committed first, then each PV label gets its new UUID (as pvchange -u).
 */
#include "cmd/vgcmd.h"

#include <stdio.h>
#include <string.h>

#include "meta/commit.h"
#include "meta/read.h"

/* Is the scanned device one of the arguments? */
static bool named(char **argv, int argc, const struct lvx_dev *dev)
{
    for (int i = 0; i < argc; i++)
        if (lvx_cmd_same_device(argv[i], dev->path))
            return true;
    return false;
}

static bool taken(const struct lvx_strlist *names, const char *name)
{
    return lvx_strlist_has(names, name);
}

/* The old VG name (from the named devices) and the names of the VGs on the others. */
static int read_names(struct lvx_cmd_env *env, char **argv, int argc, const char **old,
                      struct lvx_strlist *others)
{
    struct lvx_scan_opts o = lvx_vgcmd_scan_opts(env);
    struct lvx_scan *scan = NULL;
    if (lvx_scan(env->ctx, &o, &scan) < 0)
        return lvx_cmd_fail(env);
    int rc = 0;
    for (int i = 0; i < argc && !rc; i++) {
        const struct lvx_scan_pv *spv = NULL;
        bool dev_found = false;
        for (unsigned d = 0; d < scan->devs.count; d++)
            dev_found |= lvx_cmd_same_device(argv[i], scan->devs.devs[d]->path);
        for (unsigned p = 0; p < scan->pv_count && !spv; p++)
            if (lvx_cmd_same_device(argv[i], scan->pvs[p].dev->path))
                spv = &scan->pvs[p];
        if (!dev_found) {
            lvx_cmd_errorf("Failed to find device %s.", argv[i]);
            rc = LVX_EXIT_FAILED;
        } else if (!spv) {
            lvx_cmd_errorf("Failed to find PVID for device %s.", argv[i]);
            rc = LVX_EXIT_FAILED;
        }
        for (unsigned m = 0; spv && !rc && m < spv->mda_count; m++) {
            const char *vg = spv->mda[m].text ? spv->mda[m].vg_name : NULL;
            if (!vg)
                continue;
            if (!*old) {
                *old = lvx_pool_strdup(env->pool, vg);
            } else if (strcmp(*old, vg) != 0) {
                lvx_cmd_errorf("Devices must be from the same VG.");
                rc = LVX_EXIT_FAILED;
            }
        }
    }
    if (!rc && !*old) {
        lvx_cmd_errorf("No VG found on devices.");
        rc = LVX_EXIT_FAILED;
    }
    for (unsigned p = 0; !rc && p < scan->pv_count; p++) {
        if (named(argv, argc, scan->pvs[p].dev))
            continue;
        for (unsigned m = 0; m < scan->pvs[p].mda_count; m++)
            if (scan->pvs[p].mda[m].text && !taken(others, scan->pvs[p].mda[m].vg_name))
                lvx_strlist_add(env->pool, others, scan->pvs[p].mda[m].vg_name);
    }
    lvx_scan_free(scan);
    return rc;
}

/* LVM2's choice: BASE (or OLD1), then BASE<n> with n counting up while taken. */
static const char *new_name(struct lvx_cmd_env *env, const char *old, const struct lvx_strlist *others)
{
    const char *base = env->args->count[LVX_OPT_BASEVGNAME] ? env->args->value[LVX_OPT_BASEVGNAME]
                                                            : old;
    unsigned n = env->args->count[LVX_OPT_BASEVGNAME] ? 0 : 1;
    char *name = n ? lvx_pool_printf(env->pool, "%s%u", base, n) : lvx_pool_strdup(env->pool, base);
    while (taken(others, name))
        name = lvx_pool_printf(env->pool, "%s%u", base, ++n);
    return name;
}

/* The VG read from the named devices only: checks, then the change in memory. */
static int update_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, char **argv, int argc,
                     const char *name)
{
    struct lvx_vg *vg = u->vg;
    bool import = env->args->count[LVX_OPT_IMPORT] != 0;
    if ((vg->status & LVX_VG_EXPORTED) && !import) {
        lvx_cmd_errorf("VG %s is exported, use the --import option.", vg->name);
        return LVX_EXIT_FAILED;
    }
    for (int i = 0; i < argc; i++) {
        bool in = false;
        for (unsigned p = 0; p < vg->pv_count && !in; p++)
            in = lvx_cmd_same_device(argv[i], vg->pvs[p]->ondisk.dev_name);
        if (!in) {
            lvx_cmd_errorf("Device %s was not found in VG %s.", argv[i], vg->name);
            lvx_cmd_errorf("The devices to import must match the devices in the VG.");
            return LVX_EXIT_FAILED;
        }
    }
    if (import)
        vg->status &= ~LVX_VG_EXPORTED;
    lvx_uuid_generate(vg->uuid);
    vg->name = lvx_pool_strdup(vg->pool, name);
    vg->lock_type = vg->lock_args = NULL;
    vg->system_id = NULL;
    for (unsigned i = 0; i < vg->pv_count; i++) {
        struct lvx_pv *pv = vg->pvs[i];
        struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, pv->uuid);
        if (!spv) {
            lvx_cmd_errorf("Internal error: no device for a PV of VG %s.", vg->name);
            return LVX_EXIT_FAILED;
        }
        if (import)
            pv->status &= ~LVX_PV_EXPORTED;
        lvx_uuid_generate(pv->uuid);
        memcpy(spv->label.pv_uuid, pv->uuid, sizeof(spv->label.pv_uuid));
    }
    for (unsigned i = 0; i < vg->lv_count; i++)
        vg->lvs[i]->lock_args = NULL;
    return 0;
}

static int write_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u)
{
    if (env->args->count[LVX_OPT_TEST])
        return 0;
    u->old_pv_count = 0;        /* the PVs stay; their old UUIDs are gone */
    if (lvx_vg_update_commit(env->ctx, u, lvx_vgcmd_command_line(env)) < 0)
        return lvx_cmd_fail(env);
    for (unsigned i = 0; i < u->vg->pv_count; i++) {
        struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, u->vg->pvs[i]->uuid);
        if (!spv || lvx_dev_open(env->ctx, spv->dev, true) < 0 ||
            lvx_pv_write_label(env->ctx, spv) < 0)
            return lvx_cmd_fail(env);
    }
    return 0;
}

int lvx_cmd_vgimportclone(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    if (a->argc < 1)
        return lvx_vgcmd_syntax(env, "vgimportclone PV ...");
    if (a->count[LVX_OPT_BASEVGNAME] && !lvx_name_valid(a->value[LVX_OPT_BASEVGNAME])) {
        lvx_cmd_errorf("Invalid argument for --basevgname: %s", a->value[LVX_OPT_BASEVGNAME]);
        return LVX_EXIT_INVALID;
    }
    struct lvx_lock global = LVX_LOCK_INIT, lock_new = LVX_LOCK_INIT, lock_old = LVX_LOCK_INIT;
    int rc;
    if (lvx_lock_global(env->ctx, true, &global) < 0)
        return lvx_cmd_fail(env);
    const char *old = NULL;
    struct lvx_strlist others = {0};
    if ((rc = read_names(env, a->argv, a->argc, &old, &others)))
        goto out;
    const char *name = new_name(env, old, &others);
    if (!lvx_name_valid(name)) {
        lvx_cmd_errorf("Failed to generated temporary vg name, %s is too long.", name);
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    if (lvx_lock_vg(env->ctx, name, true, &lock_new) < 0 ||
        (strcmp(name, old) && lvx_lock_vg(env->ctx, old, true, &lock_old) < 0)) {
        rc = lvx_cmd_fail(env);
        goto out;
    }
    struct lvx_scan_opts o = { .devices = (const char *const *)a->argv,
                               .device_count = (unsigned)a->argc };
    struct lvx_vg_update u;
    if (lvx_vg_update_begin(env->ctx, &o, old, LVX_UPDATE_NO_VG_LOCK | LVX_UPDATE_ALLOW_MISSING |
                                                    LVX_UPDATE_ALLOW_EXPORTED, &u) < 0) {
        lvx_cmd_fail(env);
        lvx_cmd_errorf("Failed to read VG %s from devices being imported.", old);
        rc = LVX_EXIT_FAILED;
        goto out;
    }
    for (unsigned i = 0; i < u.vg->pv_count; i++)
        if (!u.vg->pvs[i]->ondisk.present) {      /* LVM2 2.03's read refuses it */
            lvx_cmd_errorf("Cannot change VG %s while PVs are missing.", old);
            lvx_cmd_errorf("See vgreduce --removemissing and vgextend --restoremissing.");
            lvx_cmd_errorf("Failed to read VG %s from devices being imported.", old);
            rc = LVX_EXIT_FAILED;
            lvx_vg_update_end(&u);
            goto out;
        }
    rc = update_vg(env, &u, a->argv, a->argc, name);
    if (rc)
        lvx_cmd_errorf("Failed to update VG on devices being imported.");
    else
        rc = write_vg(env, &u);
    lvx_vg_update_end(&u);
out:
    lvx_unlock(&lock_old);
    lvx_unlock(&lock_new);
    lvx_unlock(&global);
    return rc;
}
