/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvmdevices.c - `lvmdevices`: list (no option), --check, --update, --adddev,
 * --deldev, --addpvid, --delpvid the entries of the devices file, with LVM2's messages
 * and exit codes; and the opening of the devices file that vgimportdevices shares
 * (lvx_cmd_devfile_open: configuration, LVM2's D_<file> lock, read, matched to the
 * system's devices).  The file itself is dev/devices_file.c's.
 */
#include "cmd/commands.h"
#include "cmd/devfile_cmd.h"
#include "config/config.h"
#include "dev/filter.h"
#include "meta/read.h"
#include "meta/scan.h"
#include "meta/scan_lvs.h"
#include "model/model.h"

#include <stdio.h>
#include <string.h>

int lvx_cmd_devfile_open(struct lvx_cmd_env *env, bool modify, struct lvx_cmd_devfile *f)
{
    struct lvx_ctx *ctx = env->ctx;
    memset(f, 0, sizeof(*f));
    f->lock.fd = -1;
    if (lvx_config_load(ctx, &f->cfg) < 0) {
        lvx_cmd_errorf("%s", ctx->errmsg);
        return LVX_EXIT_FAILED;
    }
    const char *path = lvx_config_devices_file(ctx, f->cfg, env->pool);
    if (!path) {
        lvx_cmd_errorf("Devices file not enabled.");
        return LVX_EXIT_FAILED;
    }
    const char *base = strrchr(path, '/') + 1;
    if (lvx_lock_devices_file(ctx, base, modify, &f->lock) < 0) {
        lvx_cmd_errorf(modify ? "Failed to lock the devices file to create."
                              : "Failed to lock the devices file.");
        return LVX_EXIT_FAILED;
    }
    if (lvx_devices_file_read(ctx, env->pool, path, &f->df) < 0) {
        lvx_cmd_errorf("Failed to read the devices file.");
        return LVX_EXIT_FAILED;
    }
    if (!f->df.exists && !modify) {
        lvx_cmd_errorf("Devices file does not exist.");
        return LVX_EXIT_FAILED;
    }
    if (!f->df.exists && lvx_devices_file_touch(ctx, &f->df) < 0) {
        lvx_cmd_errorf("Failed to create the devices file.");
        return LVX_EXIT_FAILED;
    }
    f->devpool = lvx_pool_create();
    if (lvx_devs_from_system(ctx, f->devpool, &f->devs) < 0) {
        lvx_cmd_errorf("%s", ctx->errmsg);
        return LVX_EXIT_FAILED;
    }
    lvx_scan_drop_lvs(ctx, f->devpool, &f->devs);
    lvx_devices_file_match(env->pool, &f->df, &f->devs);
    for (unsigned i = 0; i < f->df.count; i++)
        if (!f->df.entries[i].dev)
            lvx_warn(ctx, "%s", lvx_devices_file_not_found(env->pool, &f->df.entries[i]));
    return 0;
}

void lvx_cmd_devfile_close(struct lvx_cmd_devfile *f)
{
    lvx_unlock(&f->lock);
    lvx_config_free(f->cfg);
    if (f->devpool)
        lvx_pool_destroy(f->devpool);
    f->cfg = NULL;
    f->devpool = NULL;
}

void lvx_cmd_devfile_filter_warnings(struct lvx_cmd_env *env, struct lvx_cmd_devfile *f)
{
    if (f->filters_said)
        return;
    f->filters_said = true;
    if (lvx_config_node(f->cfg, "devices/global_filter"))
        lvx_warn(env->ctx, "Please remove the lvm.conf global_filter, it is ignored with the devices file.");
    if (lvx_config_node(f->cfg, "devices/filter"))
        lvx_warn(env->ctx, "Please remove the lvm.conf filter, it is ignored with the devices file.");
}

/* Did the scan find metadata of any VG? */
static bool scan_has_vgs(const struct lvx_scan *scan)
{
    for (unsigned i = 0; scan && i < scan->pv_count; i++)
        for (unsigned m = 0; m < scan->pvs[i].mda_count; m++)
            if (scan->pvs[i].mda[m].text && scan->pvs[i].mda[m].vg_uuid[0])
                return true;
    return false;
}

void lvx_cmd_devfile_note(struct lvx_cmd_env *env, struct lvx_dev **devs, const char *const *pvids,
                          unsigned count, bool add, struct lvx_pv **pvs,
                          const struct lvx_scan *scan)
{
    struct lvx_ctx *ctx = env->ctx;
    struct lvx_config *cfg = NULL;
    struct lvx_lock lock = LVX_LOCK_INIT;
    struct lvx_devices_file df;
    const char *path = NULL;
    if (env->args->count[LVX_OPT_TEST] || lvx_config_load(ctx, &cfg) < 0 ||
        !(path = lvx_config_devices_file(ctx, cfg, env->pool)) ||
        lvx_lock_devices_file(ctx, strrchr(path, '/') + 1, true, &lock) < 0 ||
        lvx_devices_file_read(ctx, env->pool, path, &df) < 0) {
        lvx_error_clear(ctx);
        lvx_unlock(&lock);
        lvx_config_free(cfg);
        return;
    }
    /* a missing system devices file is made by pvcreate and vgcreate (LVM2 2.03: not
     * by vgextend, and another file named by --devicesfile silently) */
    bool create = add && !df.exists &&
                  (!strcmp(env->command->name, "pvcreate") || !strcmp(env->command->name, "vgcreate"));
    if (!df.exists && !create) {
        lvx_unlock(&lock);
        lvx_config_free(cfg);
        return;
    }
    struct lvx_scan *sys = NULL;        /* pvcreate read only its devices: all of them now */
    if (create && !scan && lvx_scan(ctx, NULL, &sys) < 0)
        lvx_error_clear(ctx);
    bool vgs = create && scan_has_vgs(scan ? scan : sys);
    if (sys)
        lvx_scan_free(sys);
    if (vgs) {   /* they would no longer be seen: as LVM2 */
        lvx_warn(ctx, "Not creating system devices file due to existing VGs.");
        create = false;
    }
    if (!df.exists && !create) {
        lvx_unlock(&lock);
        lvx_config_free(cfg);
        return;
    }
    if (create && !ctx->devices_file)
        lvx_warn(ctx, "Creating devices file %s", path);
    struct lvx_devlist list = { 0, lvx_pool_alloc(env->pool, (count + 1) * sizeof(void *)) };
    for (unsigned i = 0; i < count; i++)
        if (!devs[i]->is_file)
            list.devs[list.count++] = devs[i];
    lvx_devices_file_match(env->pool, &df, &list);
    bool changed = false;
    for (unsigned i = 0; i < count; i++) {
        if (devs[i]->is_file)
            continue;
        if (add) {
            const char *why = NULL;
            struct lvx_df_entry *e = lvx_devices_file_add(env->pool, &df, devs[i], pvids[i], NULL, &why);
            /* the PV's device ID in the VG, as LVM2 writes it (none for devname IDs) */
            if (pvs && e && e->idtype && e->idname && strcmp(e->idtype, "devname")) {
                pvs[i]->device_id_type = e->idtype;
                pvs[i]->device_id = e->idname;
            }
            changed = true;
        } else {
            struct lvx_df_entry *e = lvx_devices_file_for_dev(&df, devs[i]);
            if (e) {
                e->pvid = NULL;
                changed = true;
            }
        }
    }
    if (changed && lvx_devices_file_write(ctx, &df, env->command->name) < 0) {
        lvx_warn(ctx, "WARNING: %s", ctx->errmsg);
        lvx_error_clear(ctx);
    }
    lvx_unlock(&lock);
    lvx_config_free(cfg);
}

/* The PVID (32 characters) on each of devs[0..n), "" where there is no PV label: one
 * batched label read of copies of the devices (the scan owns its pool). */
static void read_pvids(struct lvx_cmd_env *env, struct lvx_dev **devs, unsigned n,
                       char (*pvids)[LVX_UUID_LEN + 1])
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_devlist list = { .count = n, .devs = lvx_pool_alloc(pool, (n + 1) * sizeof(void *)) };
    for (unsigned i = 0; i < n; i++) {
        pvids[i][0] = '\0';
        list.devs[i] = lvx_dev_new_listed(pool, devs[i]->path, devs[i]->major, devs[i]->minor,
                                          devs[i]->size, devs[i]->is_link);
    }
    struct lvx_scan *scan = NULL;
    if (lvx_scan_devices(env->ctx, pool, &list, false, &scan) < 0) {
        lvx_error_clear(env->ctx);
        return;                               /* the scan freed the pool */
    }
    for (unsigned p = 0; p < scan->pv_count; p++)
        for (unsigned i = 0; i < n; i++)
            if (scan->pvs[p].dev == list.devs[i])
                memcpy(pvids[i], scan->pvs[p].label.pv_uuid, LVX_UUID_LEN + 1);
    lvx_scan_release(scan);
}

/* --check / --update: PVIDs and device names of the matched entries against the devices. */
static int check_update(struct lvx_cmd_env *env, struct lvx_cmd_devfile *f, bool update)
{
    struct lvx_devices_file *df = &f->df;
    lvx_cmd_devfile_filter_warnings(env, f);
    struct lvx_dev **devs = lvx_pool_alloc(env->pool, (df->count + 1) * sizeof(*devs));
    unsigned n = 0;
    for (unsigned i = 0; i < df->count; i++)
        if (df->entries[i].dev)
            devs[n++] = df->entries[i].dev;
    char (*pvids)[LVX_UUID_LEN + 1] = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*pvids));
    read_pvids(env, devs, n, pvids);
    bool needed = false;
    for (unsigned i = 0, k = 0; i < df->count; i++) {
        struct lvx_df_entry *e = &df->entries[i];
        if (!e->dev)
            continue;
        const char *disk = pvids[k++];
        if (disk[0] && (!e->pvid || strcmp(e->pvid, disk) != 0)) {
            lvx_warn(env->ctx, "Device %s has PVID %s (devices file %s)", e->dev->path, disk,
                     e->pvid ? e->pvid : "none");
            e->pvid = lvx_pool_strdup(env->pool, disk);
            needed = true;
        } else if (!disk[0] && e->pvid) {
            lvx_warn(env->ctx, "Device %s has no PVID (devices file %s)", e->dev->path, e->pvid);
            e->pvid = NULL;
            needed = true;
        }
        if (strcmp(e->idtype ? e->idtype : "", "devname") != 0 &&
            (!e->devname || strcmp(e->devname, e->dev->path) != 0)) {
            lvx_warn(env->ctx, "Device %s has updated name (devices file %s)", e->dev->path,
                     e->devname ? e->devname : "none");
            e->devname = e->dev->path;
            needed = true;
        }
    }
    if (!update) {
        if (needed) {
            lvx_cmd_errorf("Updates needed for devices file.");
            return LVX_EXIT_FAILED;
        }
        return LVX_EXIT_OK;
    }
    if (!needed) {
        lvx_notice(env->ctx, "No update for devices file is needed.");
        return LVX_EXIT_OK;
    }
    if (lvx_devices_file_write(env->ctx, df, "lvmdevices") < 0) {
        lvx_cmd_errorf("%s", env->ctx->errmsg);
        return LVX_EXIT_FAILED;
    }
    lvx_notice(env->ctx, "Updated devices file to version %s", df->version);
    return LVX_EXIT_OK;
}

/* The device of the system list a name given on the command line stands for. */
static struct lvx_dev *system_dev(struct lvx_cmd_env *env, struct lvx_cmd_devfile *f,
                                  const char *name)
{
    struct lvx_devlist one = { 0 };
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_dev *found = NULL;
    if (lvx_devs_from_names(env->ctx, pool, &name, 1, &one) == 0 && one.count == 1 &&
        !one.devs[0]->is_file) {
        for (unsigned i = 0; i < f->devs.count && !found; i++)
            if (f->devs.devs[i]->major == one.devs[0]->major &&
                f->devs.devs[i]->minor == one.devs[0]->minor)
                found = f->devs.devs[i];
    }
    lvx_error_clear(env->ctx);
    lvx_pool_destroy(pool);
    return found;
}

static int write_file(struct lvx_cmd_env *env, struct lvx_devices_file *df)
{
    if (lvx_devices_file_write(env->ctx, df, "lvmdevices") < 0) {
        lvx_cmd_errorf("%s", env->ctx->errmsg);
        return LVX_EXIT_FAILED;
    }
    return LVX_EXIT_OK;
}

static int add_dev(struct lvx_cmd_env *env, struct lvx_cmd_devfile *f, struct lvx_dev *dev,
                   const char *pvid)
{
    const char *why = NULL;
    lvx_devices_file_add(env->pool, &f->df, dev, pvid, env->args->value[LVX_OPT_DEVICEIDTYPE],
                         &why);
    if (why)
        lvx_warn(env->ctx, "%s", why);
    return LVX_EXIT_OK;
}

static int adddev(struct lvx_cmd_env *env, struct lvx_cmd_devfile *f, const char *name)
{
    struct lvx_dev *dev = system_dev(env, f, name);
    if (!dev) {
        lvx_cmd_errorf("No device found for %s.", name);
        return LVX_EXIT_FAILED;
    }
    lvx_cmd_devfile_filter_warnings(env, f);
    char pvid[1][LVX_UUID_LEN + 1];
    read_pvids(env, &dev, 1, pvid);
    add_dev(env, f, dev, pvid[0]);
    return write_file(env, &f->df);
}

static int addpvid(struct lvx_cmd_env *env, struct lvx_cmd_devfile *f, const char *arg)
{
    char pvid[LVX_UUID_LEN + 1];
    if (lvx_uuid_parse(arg, pvid) < 0) {
        lvx_cmd_errorf("Invalid PVID.");
        return LVX_EXIT_FAILED;
    }
    struct lvx_df_entry *e = lvx_devices_file_for_pvid(&f->df, pvid);
    if (e) {
        lvx_cmd_errorf("PVID already exists in devices file for %s.",
                       e->dev ? e->dev->path : "none");
        return LVX_EXIT_FAILED;
    }
    lvx_cmd_devfile_filter_warnings(env, f);
    /* the devices not in the file that the regex filters accept (as LVM2's search) */
    struct lvx_filter *filter = NULL;
    if (lvx_config_device_filter(env->ctx, f->cfg, &filter) < 0) {
        lvx_cmd_errorf("%s", env->ctx->errmsg);
        return LVX_EXIT_FAILED;
    }
    struct lvx_dev **devs = lvx_pool_alloc(env->pool, (f->devs.count + 1) * sizeof(*devs));
    unsigned n = 0;
    for (unsigned i = 0; i < f->devs.count; i++) {
        struct lvx_dev *d = f->devs.devs[i];
        const char *names[1] = { d->path };
        if (!lvx_devices_file_for_dev(&f->df, d) && lvx_filter_accepts(filter, names, 1))
            devs[n++] = d;
    }
    lvx_filter_free(filter);
    char (*pvids)[LVX_UUID_LEN + 1] = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*pvids));
    read_pvids(env, devs, n, pvids);
    for (unsigned i = 0; i < n; i++) {
        if (strcmp(pvids[i], pvid) == 0) {
            lvx_notice(env->ctx, "Found PVID %s on %s.", pvid, devs[i]->path);
            add_dev(env, f, devs[i], pvid);
            return write_file(env, &f->df);
        }
    }
    /* LVM2 says it twice: once from its search, once after */
    lvx_cmd_errorf("PVID %s not found on any devices.", pvid);
    lvx_cmd_errorf("PVID %s not found on any devices.", pvid);
    return LVX_EXIT_FAILED;
}

static int deldev(struct lvx_cmd_env *env, struct lvx_cmd_devfile *f, const char *name)
{
    struct lvx_dev *dev = system_dev(env, f, name);
    struct lvx_df_entry *e = dev ? lvx_devices_file_for_dev(&f->df, dev) : NULL;
    if (!e)
        e = lvx_devices_file_for_devname(&f->df, name);
    if (!e) {
        lvx_cmd_errorf("No devices file entry for %s.", name);
        return LVX_EXIT_FAILED;
    }
    lvx_devices_file_remove(&f->df, e);
    return write_file(env, &f->df);
}

static int delpvid(struct lvx_cmd_env *env, struct lvx_cmd_devfile *f, const char *arg)
{
    char pvid[LVX_UUID_LEN + 1];
    if (lvx_uuid_parse(arg, pvid) < 0) {
        lvx_cmd_errorf("Invalid PVID.");
        return LVX_EXIT_FAILED;
    }
    struct lvx_df_entry *e = lvx_devices_file_for_pvid(&f->df, pvid);
    if (!e) {
        lvx_cmd_errorf("PVID not found in devices file.");
        return LVX_EXIT_FAILED;
    }
    const char *first = e->devname;
    lvx_devices_file_remove(&f->df, e);
    struct lvx_df_entry *again = lvx_devices_file_for_pvid(&f->df, pvid);
    if (again) {
        lvx_cmd_errorf("Multiple devices file entries for PVID %s (%s %s), remove by device name.",
                       pvid, first ? first : "(null)", again->devname ? again->devname : "(null)");
        return LVX_EXIT_FAILED;
    }
    return write_file(env, &f->df);
}

int lvx_cmd_lvmdevices(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    if (a->argc > 0) {
        lvx_cmd_errorf("Command does not accept argument: %s.", a->argv[0]);
        return LVX_EXIT_INVALID;
    }
    /* one operation: LVM2 takes the first as the command and refuses the next */
    static const enum lvx_opt_id op_ids[] = { LVX_OPT_CHECK, LVX_OPT_UPDATE, LVX_OPT_ADDDEV,
                                              LVX_OPT_DELDEV, LVX_OPT_ADDPVID, LVX_OPT_DELPVID };
    unsigned ops = 0;
    for (size_t i = 0; i < sizeof(op_ids) / sizeof(op_ids[0]); i++) {
        if (!a->count[op_ids[i]])
            continue;
        if (ops++) {
            lvx_cmd_errorf("Command does not accept option: --%s.",
                           lvx_opt_def(op_ids[i])->long_name);
            return LVX_EXIT_INVALID;
        }
    }
    bool modify = ops && !a->count[LVX_OPT_CHECK];
    struct lvx_cmd_devfile f;
    int rc = lvx_cmd_devfile_open(env, modify, &f);
    if (rc == 0) {
        if (a->count[LVX_OPT_CHECK] || a->count[LVX_OPT_UPDATE])
            rc = check_update(env, &f, a->count[LVX_OPT_UPDATE] > 0);
        else if (a->count[LVX_OPT_ADDDEV])
            rc = adddev(env, &f, a->value[LVX_OPT_ADDDEV]);
        else if (a->count[LVX_OPT_ADDPVID])
            rc = addpvid(env, &f, a->value[LVX_OPT_ADDPVID]);
        else if (a->count[LVX_OPT_DELDEV])
            rc = deldev(env, &f, a->value[LVX_OPT_DELDEV]);
        else if (a->count[LVX_OPT_DELPVID])
            rc = delpvid(env, &f, a->value[LVX_OPT_DELPVID]);
        else {
            for (unsigned i = 0; i < f.df.count; i++) {
                const struct lvx_df_entry *e = &f.df.entries[i];
                char part[32] = "";
                if (e->part)
                    snprintf(part, sizeof(part), " PART=%d", e->part);
                lvx_notice(env->ctx, "Device %s IDTYPE=%s IDNAME=%s DEVNAME=%s PVID=%s%s",
                           e->dev ? e->dev->path : "none", e->idtype ? e->idtype : "none",
                           e->idname ? e->idname : "none", e->devname ? e->devname : "none",
                           e->pvid ? e->pvid : "none", part);
            }
        }
    }
    lvx_cmd_devfile_close(&f);
    return rc;
}
