/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvremove.c - `lvx pvremove [-f|-ff] [-y] PV ...`: wipe the label of PVs.
 *
 * Every named device is checked before anything is written: it must carry a PV
 * label (with -f, as in LVM2, a device without one is accepted: only sectors that
 * look like a label are ever zeroed, so nothing is written to it); a PV belonging to
 * a VG needs -ff and a confirmation (-y or an answer on a terminal).  Then every
 * label sector among 0-3 of every device is zeroed, all as one batch of durable
 * writes (meta/pv_new.h lvx_pv_wipe_labels_many).
 */
#include "cmd/commands.h"
#include "cmd/pvcmd.h"
#include "cmd/devfile_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/commit.h"
#include "meta/lock.h"
#include "dev/io.h"
#include "meta/pv_init.h"
#include "meta/pv_new.h"
#include "util/parallel.h"

static bool check_pv(struct lvx_cmd_env *env, const char *name, struct lvx_scan_pv *spv)
{
    if (!spv) {
        if (env->args->count[LVX_OPT_FORCE])
            return true;
        lvx_cmd_errorf("No PV found on device %s.", name);
        return false;
    }
    if (!lvx_pv_scanned_in_vg(spv))
        return true;
    const char *vg = lvx_pv_scanned_vg_name(spv);
    if (env->args->count[LVX_OPT_FORCE] < 2) {
        if (vg)
            lvx_cmd_errorf("PV %s is used by VG %s so please use vgreduce first.", name, vg);
        else        /* marked in use (PV_EXT_USED), no metadata of its own naming the VG */
            lvx_cmd_errorf("PV %s is used by a VG but its metadata is missing.", name);
        lvx_cmd_errorf("(If you are certain you need pvremove, then confirm by using --force "
                       "twice.)");
        lvx_cmd_errorf("%s: physical volume label not removed.", name);
        return false;
    }
    if (!vg)
        vg = "<unknown>";   /* LVM2's words here */
    lvx_warn(env->ctx, "WARNING: PV %s is used by VG %s.", name, vg);   /* before the question */
    if (!lvx_pvcmd_confirm(env, "Really WIPE LABELS from physical volume \"%s\" of volume group \"%s\"?",
                           name, vg)) {
        lvx_cmd_errorf("%s: physical volume label not removed (-ff needs confirmation: add -y).",
                       name);
        return false;
    }
    lvx_warn(env->ctx, "WARNING: Wiping physical volume label from %s of volume group \"%s\".",
             name, vg);
    return true;
}

/* Each device opened read-write (O_DIRECT) on a few threads. */
struct open_job {
    const struct lvx_dev_ops *io;
    struct lvx_dev **devs;
    int *results;
    char (*errmsgs)[sizeof(((struct lvx_ctx *)0)->errmsg)];
};

static void open_one(void *arg, unsigned i)
{
    struct open_job *j = arg;
    struct lvx_ctx own;
    lvx_ctx_init(&own);
    own.io = j->io;
    j->results[i] = lvx_dev_open_write_direct(&own, j->devs[i]);
    if (j->results[i] < 0)
        snprintf(j->errmsgs[i], sizeof(*j->errmsgs), "%s", own.errmsg);
}

/* The labels of the named devices (each once) zeroed as one batch (meta/pv_new.h);
 * wiped[] gets the devices wiped (all of them under --test), *wiped_count their number:
 * the devices file is updated for those even when another failed, as LVM2. */
static int wipe_all(struct lvx_cmd_env *env, const struct lvx_pvcmd_devs *named,
                    struct lvx_dev **wiped, unsigned *wiped_count)
{
    unsigned count = named->count, n = 0;
    struct lvx_dev **devs = lvx_xcalloc(count + 1, sizeof(*devs));
    const char **names = lvx_xcalloc(count + 1, sizeof(*names));
    for (unsigned i = 0; i < count; i++) {
        bool dup = false;
        for (unsigned j = 0; j < n && !dup; j++)
            dup = devs[j] == named->devs[i];
        if (!dup) {
            names[n] = env->args->argv[i];
            devs[n++] = named->devs[i];
        }
    }
    int *results = lvx_xcalloc(n + 1, sizeof(*results));
    char (*errmsgs)[sizeof(env->ctx->errmsg)] = lvx_xcalloc(n + 1, sizeof(*errmsgs));
    int rc = 0;
    if (!env->args->count[LVX_OPT_TEST]) {
        struct open_job job = { lvx_io(env->ctx), devs, results, errmsgs };
        lvx_parallel_for(n, 0, open_one, &job);
        unsigned m = 0;                  /* the opened ones, to the front */
        for (unsigned i = 0; i < n; i++)
            if (results[i] < 0) {
                lvx_cmd_errorf("Failed to wipe the label of %s: %s", names[i], errmsgs[i]);
                rc = LVX_EXIT_FAILED;
            } else {
                names[m] = names[i];
                devs[m++] = devs[i];
            }
        n = m;
        lvx_pv_wipe_labels_many(env->ctx, devs, n, results, errmsgs);
    }
    for (unsigned i = 0; i < n; i++) {
        if (results[i] < 0) {
            lvx_cmd_errorf("Failed to wipe the label of %s: %s", names[i], errmsgs[i]);
            rc = LVX_EXIT_FAILED;
            continue;
        }
        lvx_notice(env->ctx, "Labels on physical volume \"%s\" successfully wiped.", names[i]);
        wiped[(*wiped_count)++] = devs[i];
    }
    free(errmsgs);
    free(results);
    free(names);
    free(devs);
    return rc;
}

int lvx_cmd_pvremove(struct lvx_cmd_env *env)
{
    unsigned count = (unsigned)env->args->argc;
    struct lvx_lock global = LVX_LOCK_INIT;
    struct lvx_pvcmd_devs named;

    if (count == 0) {
        lvx_cmd_errorf("Please enter a physical volume path.");
        return LVX_EXIT_INVALID;
    }
    if (lvx_lock_global(env->ctx, true, &global) < 0)
        return lvx_cmd_fail(env);
    int rc = lvx_pvcmd_scan_named(env, env->args->argv, count, &named);
    if (rc) {
        lvx_unlock(&global);
        return rc;
    }
    bool ok = true;
    for (unsigned i = 0; i < count; i++)
        ok = check_pv(env, env->args->argv[i], named.spvs[i]) && ok;
    rc = ok ? 0 : LVX_EXIT_FAILED;
    struct lvx_dev **wiped = lvx_xcalloc(count + 1, sizeof(*wiped));
    unsigned n = 0;
    if (!rc)
        rc = wipe_all(env, &named, wiped, &n);
    if (n)        /* their entries in the devices file keep the device, without PVID */
        lvx_cmd_devfile_note(env, wiped, NULL, n, false, NULL, NULL);
    free(wiped);
    lvx_pvcmd_devs_free(&named);
    lvx_unlock(&global);
    return rc;
}
