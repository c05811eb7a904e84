/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pv_common.c - helpers of the PV commands (see pvcmd.h): size / y|n / number
 * arguments worded as LVM2 words them, confirmation prompts, one scan of the
 * devices named on the command line, and classification of named PVs into VG
 * members and orphans.
 */
#include "cmd/pvcmd.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "meta/scan.h"
#include "meta/scan_lvs.h"
#include "meta/lock.h"
#include "meta/pv_init.h"
#include "meta/read.h"
#include "util/buf.h"

/* ---- arguments ------------------------------------------------------------ */

void lvx_pvcmd_size_opt(struct lvx_cmd_env *env, enum lvx_opt_id id, uint64_t *bytes)
{
    if (env->args->count[id])
        *bytes = env->args->val[id].sectors_floor * 512;
}

int lvx_pvcmd_uint_opt(struct lvx_cmd_env *env, enum lvx_opt_id id, unsigned max, unsigned *out)
{
    if (!env->args->count[id])
        return 0;
    if (env->args->val[id].n > max)
        return lvx_opts_invalid(lvx_opt_def(id)->long_name, env->args->value[id], NULL);
    *out = (unsigned)env->args->val[id].n;
    return 0;
}

int lvx_pvcmd_layout_opts(struct lvx_cmd_env *env, struct lvx_pv_layout_req *req)
{
    const struct lvx_cmd_args *a = env->args;
    lvx_pvcmd_size_opt(env, LVX_OPT_METADATASIZE, &req->mda_size);
    lvx_pvcmd_size_opt(env, LVX_OPT_DATAALIGNMENT, &req->data_alignment);
    lvx_pvcmd_size_opt(env, LVX_OPT_DATAALIGNMENTOFFSET, &req->alignment_offset);
    req->has_alignment_offset = a->count[LVX_OPT_DATAALIGNMENTOFFSET] > 0;
    if (a->count[LVX_OPT_DATAALIGNMENT] && a->val[LVX_OPT_DATAALIGNMENT].sectors > UINT32_MAX) {
        lvx_cmd_errorf("Physical volume data alignment is too big.");
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_DATAALIGNMENTOFFSET] &&
        a->val[LVX_OPT_DATAALIGNMENTOFFSET].sectors > UINT32_MAX) {
        lvx_cmd_errorf("Physical volume data alignment offset is too big.");
        return LVX_EXIT_INVALID;
    }
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0) {
        lvx_error_clear(env->ctx);
        return 0;
    }
    int64_t v;
    if (!a->count[LVX_OPT_METADATASIZE] && (v = lvx_config_int(cfg, "metadata/pvmetadatasize", 0)) > 0)
        req->mda_size = (uint64_t)v * 512;
    if (!a->count[LVX_OPT_DATAALIGNMENT] && (v = lvx_config_int(cfg, "devices/data_alignment", 0)) > 0)
        req->data_alignment = (uint64_t)v * 1024;
    /* devices/default_data_alignment in MiB (LVM2 2.03 treats 0 as the default 1) */
    if ((v = lvx_config_int(cfg, "devices/default_data_alignment", 1)) > 0)
        req->default_alignment = (uint64_t)v << 20;
    lvx_config_free(cfg);
    return 0;
}

bool lvx_pvcmd_confirm(struct lvx_cmd_env *env, const char *fmt, ...)
{
    if (env->args->count[LVX_OPT_YES])
        return true;
    char question[1024];
    bool answer;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(question, sizeof(question), fmt, ap);
    va_end(ap);
    if (lvx_cmd_ask_hook(question, &answer))    /* a shell or library session */
        return answer;
    if (!isatty(STDIN_FILENO))
        return false;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf(" [y/n]: ");
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof(line), stdin))
        return false;
    return line[0] == 'y' || line[0] == 'Y';
}

/* ---- devices named on the command line ------------------------------------ */

static struct lvx_dev *find_scanned_dev(struct lvx_scan *scan, const char *name)
{
    for (unsigned i = 0; i < scan->devs.count; i++)
        if (strcmp(scan->devs.devs[i]->path, name) == 0)
            return scan->devs.devs[i];
    for (unsigned i = 0; i < scan->devs.count; i++)
        if (lvx_cmd_same_device(name, scan->devs.devs[i]->path))
            return scan->devs.devs[i];
    return NULL;
}

int lvx_pvcmd_scan_named(struct lvx_cmd_env *env, char **names, unsigned count,
                         struct lvx_pvcmd_devs *out)
{
    memset(out, 0, sizeof(*out));
    enum lvx_named *why = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*why));
    struct lvx_scan_opts opts = lvx_pvcmd_scan_opts(env);
    opts.named = (const char *const *)names;      /* judged as the scan lists them */
    opts.named_count = count;
    opts.named_why = why;
    int rc = lvx_scan(env->ctx, &opts, &out->scan);
    bool refused = false;
    for (unsigned i = 0; i < count; i++) {
        if (why[i] == LVX_NAMED_NO_DEVICE)
            lvx_cmd_errorf("No device found for %s.", names[i]);
        else if (why[i] != LVX_NAMED_OK)
            lvx_cmd_errorf("Cannot use %s: %s", names[i], lvx_named_reason(why[i]));
        refused |= why[i] != LVX_NAMED_OK;
    }
    if (refused) {
        lvx_error_clear(env->ctx);
        lvx_pvcmd_devs_free(out);
        return LVX_EXIT_FAILED;
    }
    if (rc < 0)
        return lvx_cmd_fail(env);
    out->count = count;
    out->devs = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*out->devs));
    out->spvs = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*out->spvs));
    for (unsigned i = 0; i < count; i++) {
        out->devs[i] = find_scanned_dev(out->scan, names[i]);
        out->spvs[i] = NULL;
        for (unsigned j = 0; out->devs[i] && j < out->scan->pv_count; j++)
            if (out->scan->pvs[j].dev == out->devs[i])
                out->spvs[i] = &out->scan->pvs[j];
        if (!out->devs[i]) {
            lvx_cmd_errorf("No device found for %s.", names[i]);
            lvx_pvcmd_devs_free(out);
            return LVX_EXIT_FAILED;
        }
    }
    return 0;
}

void lvx_pvcmd_devs_free(struct lvx_pvcmd_devs *d)
{
    if (d->scan)
        lvx_scan_free(d->scan);
    d->scan = NULL;
}

/* ---- PVs named on the command line, classified ----------------------------- */

static void add_name(struct lvx_pool *pool, const char ***list, unsigned *n, const char *s)
{
    for (unsigned i = 0; i < *n; i++)
        if (strcmp((*list)[i], s) == 0)
            return;
    *list = lvx_pool_realloc(pool, *list, *n * sizeof(**list), (*n + 1) * sizeof(**list));
    (*list)[(*n)++] = lvx_pool_strdup(pool, s);
}

static void add_vg_pv(struct lvx_cmd_env *env, struct lvx_pvcmd_targets *t, const struct lvx_pv *pv)
{
    t->pv_names = lvx_pool_realloc(env->pool, t->pv_names, t->pv_count * sizeof(*t->pv_names),
                                   (t->pv_count + 1) * sizeof(*t->pv_names));
    t->pv_uuids = lvx_pool_realloc(env->pool, t->pv_uuids, t->pv_count * sizeof(*t->pv_uuids),
                                   (t->pv_count + 1) * sizeof(*t->pv_uuids));
    t->pv_names[t->pv_count] = lvx_pool_strdup(env->pool, lvx_cmd_pv_name(pv));
    t->pv_uuids[t->pv_count] = lvx_pool_strdup(env->pool, pv->uuid);
    t->pv_count++;
    add_name(env->pool, &t->vg_names, &t->vg_count, pv->vg->name);
}

int lvx_pvcmd_classify(struct lvx_cmd_env *env, char **names, unsigned count, bool all,
                       struct lvx_pvcmd_targets *out, bool *failed)
{
    struct lvx_cmd_vgs v;
    struct lvx_cmd_pvsel sel;

    memset(out, 0, sizeof(*out));
    int rc = lvx_cmd_load(env, &v);
    if (rc)
        return rc;
    lvx_cmd_pick_pvs(env, &v, names, all ? 0 : count, &sel, failed);
    for (unsigned i = 0; i < sel.vg_count; i++)
        for (unsigned j = 0; j < sel.vgs[i]->pv_count; j++) {
            const struct lvx_pv *pv = sel.vgs[i]->pvs[j];
            if (pv->ondisk.present)
                add_vg_pv(env, out, pv);
        }
    for (unsigned i = 0; i < sel.orphan_count; i++)
        add_name(env->pool, &out->orphan_names, &out->orphan_count,
                 lvx_cmd_pv_name(sel.orphans[i]));
    lvx_cmd_unload(&v);
    return 0;
}

struct lvx_scan_opts lvx_pvcmd_scan_opts(const struct lvx_cmd_env *env)
{
    struct lvx_scan_opts o = {
        .devices = env->args->devices,
        .device_count = env->args->device_count,
    };
    return o;
}

const char *lvx_pvcmd_command_line(struct lvx_cmd_env *env)
{
    struct lvx_buf b = LVX_BUF_INIT;
    for (int i = 0; i < env->args->full_argc; i++)
        lvx_buf_printf(&b, "%s%s", i ? " " : "", env->args->full_argv[i]);
    const char *s = lvx_pool_strdup(env->pool, lvx_buf_str(&b));
    lvx_buf_free(&b);
    return s;
}

void lvx_pvcmd_change_orphans(struct lvx_cmd_env *env, const struct lvx_pvcmd_targets *t,
                              lvx_pvcmd_orphan_fn fn, const void *arg,
                              struct lvx_pvcmd_count *cnt)
{
    struct lvx_lock global = LVX_LOCK_INIT;
    struct lvx_pvcmd_devs named;
    if (lvx_lock_global(env->ctx, true, &global) < 0) {
        lvx_cmd_fail(env);
        cnt->failed = true;
        return;
    }
    if (lvx_pvcmd_scan_named(env, (char **)t->orphan_names, t->orphan_count, &named)) {
        cnt->failed = true;
        cnt->unchanged += t->orphan_count;
        lvx_unlock(&global);
        return;
    }
    for (unsigned i = 0; i < t->orphan_count; i++) {
        if (fn(env, t->orphan_names[i], named.spvs[i], arg)) {
            lvx_notice(env->ctx, "Physical volume \"%s\" changed", t->orphan_names[i]);
            cnt->changed++;
        } else {
            cnt->failed = true;
            cnt->unchanged++;
        }
    }
    lvx_pvcmd_devs_free(&named);
    lvx_unlock(&global);
}
