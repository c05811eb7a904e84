/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/common.c - helpers shared by the command files: load the VGs a command
 * looks at (scan + assembly), pick the VGs named on the command line, print
 * errors the way LVM2 does, and format sizes as the display commands show them.
 *
 * This is the command layer: it is the one place of liblvx allowed to write to
 * stdout/stderr (on behalf of lvx_main()), and only when the context of the running
 * command (lvx_cmd_bind_ctx) has no output/log callbacks of its own: a library or
 * shell session routes everything through its callbacks.
 */
#include "cmd/commands.h"
#include "cmd/cmdlog.h"
#include "cmd/vgcmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "meta/scan.h"
#include "meta/scan_lvs.h"
#include "meta/lockd.h"
#include "meta/read.h"
#include "meta/systemid.h"
#include "util/detach.h"

/* Commands whose arguments all name VGs (VG, VG/LV, /dev/VG/LV): they read only those
 * VGs' devices when the device index allows (meta/read.h).  NULL for the others. */
static const char *const *vg_names_of_args(struct lvx_cmd_env *env, unsigned *count)
{
    static const char *const vg_arg_commands[] = {
        "vgs", "lvs", "vgdisplay", "lvdisplay", "vgcfgbackup", "lvtable",
    };
    const struct lvx_cmd_args *a = env->args;
    bool listed = false;
    for (size_t i = 0; env->command && i < sizeof(vg_arg_commands) / sizeof(*vg_arg_commands); i++)
        listed |= strcmp(env->command->name, vg_arg_commands[i]) == 0;
    if (!listed || a->argc <= 0)
        return NULL;
    const char **names = lvx_pool_alloc(env->pool, ((size_t)a->argc + 1) * sizeof(*names));
    for (int i = 0; i < a->argc; i++) {
        const char *arg = a->argv[i];
        arg = lvx_cmd_skip_dev_dir(env, arg);
        const char *slash = strchr(arg, '/');
        names[i] = slash ? lvx_pool_strndup(env->pool, arg, (size_t)(slash - arg)) : arg;
        if (!names[i][0] || names[i][0] == '@')
            return NULL;              /* a tag, or not a VG: every device */
    }
    *count = (unsigned)a->argc;
    return names;
}

/* Shared VGs (meta/lockd.h): without lvmlockd LVM2 leaves them out of every list and
 * refuses them by name, unless a report asks with --shared; with lvmlockd they are read
 * (without a lock: said once per VG). */
static void hide_shared_vgs(struct lvx_cmd_env *env, struct lvx_cmd_vgs *v)
{
    struct lvx_vgset *set = v->set;
    bool any = false;
    for (unsigned i = 0; i < set->vg_count; i++)
        any |= lvx_vg_is_lockd(set->vgs[i]);
    if (!any)
        return;
    bool use = lvx_lockd_use(env->ctx);
    if (use || env->args->count[LVX_OPT_SHARED]) {
        for (unsigned i = 0; i < set->vg_count && use; i++)
            if (lvx_vg_is_lockd(set->vgs[i]))
                lvx_lockd_access(env->ctx, set->vgs[i], false);
        return;
    }
    v->hidden = lvx_pool_alloc(env->pool, (set->vg_count + 1) * sizeof(*v->hidden));
    unsigned kept = 0;
    for (unsigned i = 0; i < set->vg_count; i++) {
        if (lvx_vg_is_lockd(set->vgs[i]))
            v->hidden[v->hidden_count++] = set->vgs[i];
        else
            set->vgs[kept++] = set->vgs[i];
    }
    set->vg_count = kept;
}

/* Reports show a foreign VG with LVs active here (LVM2's include_active_foreign_vgs),
 * with LVM2's warning. */
static bool report_active_foreign(struct lvx_cmd_env *env, const struct lvx_vg *vg)
{
    static const char *const reports[] = { "vgs", "lvs", "pvs", "fullreport" };
    bool report = false;
    for (size_t i = 0; env->command && i < sizeof(reports) / sizeof(*reports); i++)
        report |= strcmp(env->command->name, reports[i]) == 0;
    if (!report || !lvx_vgcmd_has_active_lv(env, vg))
        return false;
    lvx_warn(env->ctx, "WARNING: Found LVs active in VG %s with foreign system ID %s.  "
             "Possible data corruption.", vg->name, vg->system_id);
    return true;
}

/* Foreign VGs (meta/systemid.h): left out of every list and refused by name, unless
 * the command asks with --foreign (reports, vgcfgbackup). */
/* LVM2 reads (and says it cannot access) a foreign VG when the command names no VG, or
 * names it and no VG of this host has the name. */
static bool foreign_read(struct lvx_cmd_env *env, const struct lvx_vgset *set,
                         const struct lvx_vg *vg)
{
    unsigned n = 0;
    const char *const *names = vg_names_of_args(env, &n);
    if (!names)
        return true;
    bool named = false;
    for (unsigned i = 0; i < n && !named; i++)
        named = strcmp(names[i], vg->name) == 0;
    for (unsigned i = 0; i < set->vg_count && named; i++)
        if (set->vgs[i] != vg && strcmp(set->vgs[i]->name, vg->name) == 0 &&
            !lvx_vg_is_foreign(env->ctx, set->vgs[i]))
            return false;
    return named;
}

static void hide_foreign_vgs(struct lvx_cmd_env *env, struct lvx_cmd_vgs *v)
{
    struct lvx_vgset *set = v->set;
    if (env->args->count[LVX_OPT_FOREIGN])
        return;
    unsigned kept = 0;
    for (unsigned i = 0; i < set->vg_count; i++) {
        if (!lvx_vg_is_foreign(env->ctx, set->vgs[i]) ||
            report_active_foreign(env, set->vgs[i])) {
            set->vgs[kept++] = set->vgs[i];
            continue;
        }
        if (!v->hidden)
            v->hidden = lvx_pool_alloc(env->pool, (set->vg_count + 1) * sizeof(*v->hidden));
        v->hidden[v->hidden_count++] = set->vgs[i];
        if (!env->ctx->foreign_said && lvx_system_id_unknown(env->ctx) &&
            foreign_read(env, set, set->vgs[i]))     /* as LVM2: for every such VG read */
            lvx_cmd_errorf("Cannot access VG %s with system ID %s with unknown local "
                           "system ID.", set->vgs[i]->name, set->vgs[i]->system_id);
    }
    set->vg_count = kept;
    env->ctx->foreign_said |= v->hidden_count > 0;    /* once per command */
}

/* A VG name the arguments give is not in the set: LVM2's message for it. */
static void vg_not_found(struct lvx_cmd_env *env, const struct lvx_cmd_vgs *v, const char *name,
                         bool dup)
{
    if (dup) {                   /* several VGs of this name */
        lvx_vg_dup_name_error(env->ctx, name);
        lvx_cmd_errorf("%s", env->ctx->errmsg);
        lvx_error_clear(env->ctx);
        return;
    }
    for (unsigned i = 0; i < v->hidden_count; i++)
        if (strcmp(v->hidden[i]->name, name) == 0 && !lvx_vg_is_lockd(v->hidden[i])) {
            lvx_vg_foreign_error(env->ctx, v->hidden[i]);
            lvx_cmd_errorf("%s", env->ctx->errmsg);
            lvx_error_clear(env->ctx);
            return;
        }
    for (unsigned i = 0; i < v->hidden_count; i++)
        if (strcmp(v->hidden[i]->name, name) == 0) {
            lvx_cmd_errorf("Cannot access VG %s with lock type %s that requires lvmlockd.",
                           name, v->hidden[i]->lock_type);
            return;
        }
    lvx_cmd_errorf("Volume group \"%s\" not found", name);
    lvx_cmd_errorf("Cannot process volume group %s", name);
}

int lvx_cmd_load(struct lvx_cmd_env *env, struct lvx_cmd_vgs *out)
{
    struct lvx_scan_opts opts = {
        .devices = env->args->devices,
        .device_count = env->args->device_count,
    };
    opts.vg_names = vg_names_of_args(env, &opts.vg_name_count);

    memset(out, 0, sizeof(*out));
    if (lvx_scan_assemble(env->ctx, &opts, &out->scan, &out->set) < 0) {
        lvx_cmd_unload(out);
        return lvx_cmd_fail(env);
    }
    hide_shared_vgs(env, out);
    hide_foreign_vgs(env, out);
    return 0;
}

void lvx_cmd_unload(struct lvx_cmd_vgs *v)
{
    if (v->set)
        lvx_vgset_free(v->set);
    if (v->scan)
        lvx_scan_free(v->scan);
    v->set = NULL;
    v->scan = NULL;
}

static void add_vg_once(struct lvx_vg **vgs, unsigned *n, struct lvx_vg *vg)
{
    for (unsigned j = 0; j < *n; j++)
        if (vgs[j] == vg)
            return;
    vgs[(*n)++] = vg;
}

/* Where the label scan finds vg first: the lowest device number among its PVs with a
 * metadata area in use (UINT64_MAX: none, e.g. every area ignored). */
static uint64_t vg_found_at(const struct lvx_vg *vg)
{
    uint64_t best = UINT64_MAX;
    for (unsigned i = 0; i < vg->pv_count; i++) {
        const struct lvx_pv_ondisk *d = &vg->pvs[i]->ondisk;
        bool used = false;
        for (unsigned m = 0; m < d->mda_count && m < 2; m++)
            used = used || !d->mda[m].ignored;
        uint64_t key = ((uint64_t)d->dev_major << 32) | d->dev_minor;
        if (d->present && used && key < best)
            best = key;
    }
    return best;
}

struct vg_found {
    uint64_t at;
    unsigned idx;
    struct lvx_vg *vg;
};

static int vg_found_cmp(const void *x, const void *y)
{
    const struct vg_found *a = x, *b = y;
    if (a->at != b->at)
        return a->at > b->at ? -1 : 1;      /* found later goes first */
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

void lvx_cmd_vgs_lvm2_order(struct lvx_vg **vgs, unsigned n)
{
    /* each key taken once (a VG's PVs walked once), then one sort; on no memory the
     * order given stays */
    struct vg_found *f = n > 1 ? malloc(n * sizeof(*f)) : NULL;
    if (!f)
        return;
    for (unsigned i = 0; i < n; i++)
        f[i] = (struct vg_found){ vg_found_at(vgs[i]), i, vgs[i] };
    qsort(f, n, sizeof(*f), vg_found_cmp);
    for (unsigned i = 0; i < n; i++)
        vgs[i] = f[i].vg;
    free(f);
}

void lvx_cmd_vgs_arg_order(struct lvx_vg **vgs, unsigned n, char **names, unsigned count)
{
    lvx_cmd_vgs_lvm2_order(vgs, n);
    /* then VGs named by an argument first, in the arguments' order: each VG's key (its
     * first argument, count for none) taken once, one stable sort */
    struct vg_found *f = n > 1 ? malloc(n * sizeof(*f)) : NULL;
    if (!f)
        return;
    for (unsigned i = 0; i < n; i++)
        f[i] = (struct vg_found){ UINT64_MAX - lvx_cmd_vg_arg_key(names, count, vgs[i]->name, 0),
                                  i, vgs[i] };
    qsort(f, n, sizeof(*f), vg_found_cmp);   /* the highest `at` first: the lowest key */
    for (unsigned i = 0; i < n; i++)
        vgs[i] = f[i].vg;
    free(f);
}

struct lvx_vg **lvx_cmd_pick_vgs(struct lvx_cmd_env *env, const struct lvx_cmd_vgs *v,
                                 char **names, unsigned count, unsigned *out_count, bool *failed)
{
    const struct lvx_vgset *set = v->set;
    struct lvx_vg **vgs;
    unsigned n = 0;

    if (count == 0) {
        vgs = lvx_pool_alloc(env->pool, (set->vg_count + 1) * sizeof(*vgs));
        for (unsigned i = 0; i < set->vg_count; i++)
            vgs[n++] = set->vgs[i];
        *out_count = n;
        return vgs;
    }
    bool tagged = false;
    for (unsigned i = 0; i < count; i++)
        tagged = tagged || names[i][0] == '@';
    vgs = lvx_pool_alloc(env->pool, (count + set->vg_count + 1) * sizeof(*vgs));
    for (unsigned i = 0; i < count; i++) {
        for (unsigned k = 0; names[i][0] == '@' && k < set->vg_count; k++)
            if (lvx_strlist_has(&set->vgs[k]->tags, names[i] + 1))
                add_vg_once(vgs, &n, set->vgs[k]);   /* "@tag": the VGs with the tag */
        if (names[i][0] == '@')
            continue;
        bool dup;
        struct lvx_vg *vg = lvx_vgset_find_usable(env->ctx, set, names[i], &dup);
        if (!vg && tagged)              /* as process_each_lv below */
            continue;
        if (!vg) {
            lvx_cmdlog_object_at(LVX_CMDLOG_ARG_KEY(i), "vg", names[i], NULL, NULL, NULL);
            vg_not_found(env, v, names[i], dup);
            lvx_cmdlog_status(LVX_EXIT_FAILED);
            *failed = true;
            continue;
        }
        add_vg_once(vgs, &n, vg);
    }
    *out_count = n;
    return vgs;
}

static void add_name_once(char **names, unsigned *n, char *name)
{
    for (unsigned j = 0; j < *n; j++)
        if (strcmp(names[j], name) == 0)
            return;
    names[(*n)++] = name;
}

static bool has_tag_arg(const struct lvx_cmd_args *a)
{
    for (int i = 0; i < a->argc; i++)
        if (a->argv[i][0] == '@')
            return true;
    return false;
}

bool lvx_cmd_skips_exported(const struct lvx_cmd_env *env, const struct lvx_vg *vg)
{
    /* LVM2's commands with ALLOW_EXPORTED (tools/commands.h of 2.03) read them */
    static const char *const allowed[] = {
        "fullreport", "lvmdiskscan", "pvck", "pvdisplay", "pvs", "pvscan", "vgcfgbackup",
        "vgcfgrestore", "vgdisplay", "vgimport", "vgimportclone", "vgimportdevices",
        "vgrename", "vgs", "vgscan",
    };
    if (!(vg->status & LVX_VG_EXPORTED) || !env->command)
        return false;
    for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
        if (strcmp(env->command->name, allowed[i]) == 0)
            return false;
    return true;
}

char **lvx_cmd_vg_names(struct lvx_cmd_env *env, unsigned *count)
{
    char **args = env->args->argv;
    unsigned n = (unsigned)env->args->argc;
    *count = n;
    if (n && !has_tag_arg(env->args))
        return args;
    struct lvx_cmd_vgs v;
    if (lvx_cmd_load(env, &v) != 0)
        return NULL;
    const struct lvx_vgset *set = v.set;
    char **names = lvx_pool_alloc(env->pool, (n + set->vg_count + 1) * sizeof(*names));
    unsigned k = 0;
    /* all VGs: in LVM2's lvmcache order (the order its messages come in) */
    struct lvx_vg **all = lvx_pool_alloc(env->pool, (set->vg_count + 1) * sizeof(*all));
    memcpy(all, set->vgs, set->vg_count * sizeof(*all));
    lvx_cmd_vgs_lvm2_order(all, set->vg_count);
    for (unsigned i = 0; i < set->vg_count && n == 0; i++) {
        const struct lvx_vg *vg = all[i];
        if (lvx_cmd_skips_exported(env, vg))
            continue;
        /* all VGs: local ones sharing a name are each taken by UUID (as LVM2's walk
         * of every VG) */
        bool dup = false;
        lvx_vgset_find_usable(env->ctx, set, vg->name, &dup);
        lvx_error_clear(env->ctx);
        bool by_uuid = dup && !lvx_vg_is_foreign(env->ctx, vg);
        names[k++] = lvx_pool_strdup(env->pool, by_uuid ? vg->uuid : vg->name);
    }
    for (unsigned i = 0; i < n; i++) {
        if (args[i][0] != '@') {
            /* a missing VG: the command says so; not beside a tag (LVM2 then reads
             * every VG and keeps the named ones it finds) */
            if (!lvx_vgset_find(set, args[i]))
                continue;
            add_name_once(names, &k, args[i]);
            continue;
        }
        for (unsigned j = 0; j < set->vg_count; j++)
            if (lvx_strlist_has(&set->vgs[j]->tags, args[i] + 1) &&
                !lvx_cmd_skips_exported(env, set->vgs[j]))
                add_name_once(names, &k, lvx_pool_strdup(env->pool, set->vgs[j]->name));
    }
    *count = k;
    lvx_cmd_unload(&v);
    return names;
}

char **lvx_cmd_lv_args(struct lvx_cmd_env *env, unsigned *count)
{
    char **args = env->args->argv;
    unsigned n = (unsigned)env->args->argc;
    *count = n;
    if (!has_tag_arg(env->args))
        return args;
    struct lvx_cmd_vgs v;
    if (lvx_cmd_load(env, &v) != 0)
        return NULL;
    const struct lvx_vgset *set = v.set;
    unsigned cap = n;
    for (unsigned j = 0; j < set->vg_count; j++)
        cap += set->vgs[j]->lv_count;
    char **out = lvx_pool_alloc(env->pool, (cap + 1) * sizeof(*out));
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++) {
        if (args[i][0] != '@') {
            add_name_once(out, &k, args[i]);
            continue;
        }
        for (unsigned j = 0; j < set->vg_count; j++) {       /* as lvx_cmd_pick_lvs */
            const struct lvx_vg *vg = set->vgs[j];
            if (lvx_cmd_skips_exported(env, vg))
                continue;
            bool whole = lvx_strlist_has(&vg->tags, args[i] + 1);
            for (unsigned l = 0; l < vg->lv_count; l++)
                if (lvx_lv_is_visible(vg->lvs[l]) &&
                    (whole || lvx_strlist_has(&vg->lvs[l]->tags, args[i] + 1)))
                    add_name_once(out, &k, lvx_pool_printf(env->pool, "%s/%s", vg->name,
                                                           vg->lvs[l]->name));
        }
    }
    *count = k;
    lvx_cmd_unload(&v);
    return out;
}

/* The judgement of the scan (meta/scan.h) for names the command did not find. */
static void judge_named(struct lvx_cmd_env *env, const char *const *names, unsigned count,
                        enum lvx_named *why)
{
    struct lvx_scan_opts o = { .devices = env->args->devices,
                               .device_count = env->args->device_count };
    if (lvx_scan_judge_named(env->ctx, &o, env->pool, names, count, why, NULL) < 0) {
        lvx_error_clear(env->ctx);
        memset(why, 0, count * sizeof(*why));
    }
}

const char *lvx_cmd_named_refusal(struct lvx_cmd_env *env, const char *name)
{
    enum lvx_named why;
    judge_named(env, &name, 1, &why);
    return lvx_named_reason(why);
}

/* A PV argument: its device name, or "@tag" for the PVs with the tag. */
static bool name_matches_pv(char **names, unsigned count, const struct lvx_pv *pv)
{
    for (unsigned i = 0; i < count; i++) {
        if (names[i][0] == '@' ? lvx_strlist_has(&pv->tags, names[i] + 1)
                               : pv->ondisk.present &&
                                     lvx_cmd_same_device(names[i], pv->ondisk.dev_name))
            return true;
    }
    return false;
}

/* A PV argument matching no PV, which the scan did not refuse. */
static void report_unmatched_pv(const struct lvx_cmd_vgs *v, const char *name)
{
    for (unsigned i = 0; i < v->hidden_count; i++) {
        const struct lvx_vg *vg = v->hidden[i];
        for (unsigned j = 0; j < vg->pv_count; j++)
            if (vg->pvs[j]->ondisk.present &&
                lvx_cmd_same_device(name, vg->pvs[j]->ondisk.dev_name)) {
                lvx_cmd_errorf("Cannot use PV %s in %s VG %s.", name,
                               lvx_vg_is_lockd(vg) ? "shared" : "foreign", vg->name);
                return;
            }
    }
    for (unsigned i = 0; i < v->scan->devs.count; i++)
        if (lvx_cmd_same_device(name, v->scan->devs.devs[i]->path)) {
            lvx_cmd_errorf("Failed to find physical volume \"%s\".", name);
            return;
        }
    lvx_cmd_errorf("Cannot use %s: device not found", name);
}

void lvx_cmd_pick_pvs(struct lvx_cmd_env *env, const struct lvx_cmd_vgs *v, char **names,
                      unsigned count, struct lvx_cmd_pvsel *out, bool *failed)
{
    const struct lvx_vgset *set = v->set;

    memset(out, 0, sizeof(*out));
    out->vgs = lvx_pool_alloc(env->pool, (set->vg_count + 1) * sizeof(*out->vgs));
    out->orphans = lvx_pool_alloc(env->pool, (set->orphan_count + 1) * sizeof(*out->orphans));
    for (unsigned i = 0; i < set->vg_count; i++) {
        struct lvx_vg *vg = set->vgs[i];
        if (count == 0) {
            out->vgs[out->vg_count++] = vg;
            continue;
        }
        struct lvx_pv **pvs = lvx_pool_alloc(env->pool, (vg->pv_count + 1) * sizeof(*pvs));
        unsigned n = 0;
        for (unsigned j = 0; j < vg->pv_count; j++)
            if (name_matches_pv(names, count, vg->pvs[j]))
                pvs[n++] = vg->pvs[j];
        if (n)
            out->vgs[out->vg_count++] = lvx_cmd_vg_with_pvs(env, vg, pvs, n);
    }
    for (unsigned i = 0; i < set->orphan_count; i++)
        if (count == 0 || name_matches_pv(names, count, set->orphans[i]))
            out->orphans[out->orphan_count++] = set->orphans[i];

    unsigned nmiss = 0, *miss = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*miss));
    for (unsigned k = 0; k < count; k++) {
        bool found = names[k][0] == '@';     /* a tag that no PV has selects nothing */
        for (unsigned i = 0; i < out->vg_count && !found; i++)
            for (unsigned j = 0; j < out->vgs[i]->pv_count && !found; j++)
                found = name_matches_pv(&names[k], 1, out->vgs[i]->pvs[j]);
        for (unsigned i = 0; i < out->orphan_count && !found; i++)
            found = name_matches_pv(&names[k], 1, out->orphans[i]);
        if (found && names[k][0] != '@') {     /* LVM2 walks the named devices' labels */
            lvx_cmdlog_object_at(LVX_CMDLOG_ARG_KEY(k), "label", names[k], NULL, NULL, NULL);
            lvx_cmdlog_status(0);
        }
        if (!found)
            miss[nmiss++] = k;
    }
    if (!nmiss)
        return;
    /* LVM2 reports the devices it cannot find before it walks the others: first those
     * it refuses (filters, LVs, outside --devices: the scan's judgement), then the rest */
    const char **missed = lvx_pool_alloc(env->pool, nmiss * sizeof(*missed));
    enum lvx_named *why = lvx_pool_alloc(env->pool, nmiss * sizeof(*why));
    for (unsigned m = 0; m < nmiss; m++)
        missed[m] = names[miss[m]];
    judge_named(env, missed, nmiss, why);
    for (unsigned pass = 0; pass < 2; pass++)
        for (unsigned m = 0; m < nmiss; m++) {
            const char *reason = lvx_named_reason(why[m]);
            if (!reason != (pass == 1))
                continue;
            lvx_cmdlog_object_at(miss[m], "pv", "", NULL, NULL, NULL);
            if (reason)
                lvx_cmd_errorf("Cannot use %s: %s", missed[m], reason);
            else
                report_unmatched_pv(v, missed[m]);
            lvx_cmdlog_object_done();
        }
    *failed = true;
}

/* Index of the VG in the set, or -1 (with the error printed). */
static int find_vg_index(struct lvx_cmd_env *env, const struct lvx_cmd_vgs *v, const char *name)
{
    const struct lvx_vgset *set = v->set;
    bool dup;
    struct lvx_vg *vg = lvx_vgset_find_usable(env->ctx, set, name, &dup);
    for (unsigned i = 0; vg && i < set->vg_count; i++)
        if (set->vgs[i] == vg)
            return (int)i;
    vg_not_found(env, v, name, dup);
    return -1;
}

static void add_lv_once(struct lvx_cmd_env *env, const struct lvx_vgset *set, unsigned i,
                        struct lvx_lv ***subset, unsigned *subset_n, struct lvx_lv *lv)
{
    if (!subset[i])
        subset[i] = lvx_pool_alloc(env->pool, (set->vgs[i]->lv_count + 1) * sizeof(**subset));
    for (unsigned j = 0; j < subset_n[i]; j++)
        if (subset[i][j] == lv)
            return;
    subset[i][subset_n[i]++] = lv;
}

/* The named LVs of a VG in the VG's order (LVM2 walks a VG's LVs and keeps the named
 * ones, whatever order the arguments gave). */
static void in_vg_order(const struct lvx_vg *vg, struct lvx_lv **lvs, unsigned n)
{
    unsigned k = 0;
    for (unsigned j = 0; j < vg->lv_count && k < n; j++)
        for (unsigned m = k; m < n; m++)
            if (lvs[m] == vg->lvs[j]) {
                struct lvx_lv *t = lvs[k];
                lvs[k++] = lvs[m];
                lvs[m] = t;
                break;
            }
}

unsigned long lvx_cmd_vg_arg_key(char **names, unsigned count, const char *vg, unsigned fallback)
{
    size_t len = strlen(vg);
    for (unsigned i = 0; i < count; i++) {
        const char *a = names[i];
        if (strncmp(a, "/dev/", 5) == 0 && strchr(a + 5, '/'))
            a += 5;
        if (strncmp(a, vg, len) == 0 && (a[len] == '\0' || a[len] == '/'))
            return LVX_CMDLOG_ARG_KEY(i);
    }
    return LVX_CMDLOG_ARG_KEY(count + fallback);
}

void lvx_cmd_pick_lvs(struct lvx_cmd_env *env, const struct lvx_cmd_vgs *v, char **names,
                      unsigned count, struct lvx_cmd_lvsel *out, bool *failed)
{
    const struct lvx_vgset *set = v->set;
    unsigned nvg = set->vg_count;
    bool *whole = lvx_pool_alloc(env->pool, (nvg + 1) * sizeof(*whole));
    struct lvx_lv ***subset = lvx_pool_alloc(env->pool, (nvg + 1) * sizeof(*subset));
    unsigned *subset_n = lvx_pool_alloc(env->pool, (nvg + 1) * sizeof(*subset_n));

    bool tagged = false;
    for (unsigned k = 0; k < count; k++)
        tagged = tagged || names[k][0] == '@';
    memset(out, 0, sizeof(*out));
    out->vgs = lvx_pool_alloc(env->pool, (nvg + 1) * sizeof(*out->vgs));
    for (unsigned k = 0; k < count; k++) {
        const char *arg = names[k];
        if (arg[0] == '@') {            /* the LVs with the tag, all of a VG with the tag */
            for (unsigned i = 0; i < nvg; i++) {
                const struct lvx_vg *vg = set->vgs[i];
                whole[i] |= lvx_strlist_has(&vg->tags, arg + 1);
                for (unsigned j = 0; j < vg->lv_count && !whole[i]; j++)
                    if (lvx_lv_is_visible(vg->lvs[j]) &&
                        lvx_strlist_has(&vg->lvs[j]->tags, arg + 1))
                        add_lv_once(env, set, i, subset, subset_n, vg->lvs[j]);
            }
            continue;
        }
        arg = lvx_cmd_skip_dev_dir(env, arg);
        const char *slash = strchr(arg, '/');
        char *vg_name = slash ? lvx_pool_strndup(env->pool, arg, (size_t)(slash - arg))
                              : lvx_pool_strdup(env->pool, arg);
        /* with a tag LVM2 reads every VG and keeps the named ones it finds: a VG name
         * it does not find is no error (process_each_lv) */
        if (tagged && !lvx_vgset_find(set, vg_name))
            continue;
        lvx_cmdlog_object_at(LVX_CMDLOG_ARG_KEY(k), "vg", vg_name, NULL, NULL, NULL);
        int i = find_vg_index(env, v, vg_name);
        if (i < 0) {
            lvx_cmdlog_status(LVX_EXIT_FAILED);
            *failed = true;
            continue;
        }
        lvx_cmdlog_object_done();
        if (!slash || !slash[1]) {
            whole[i] = true;
            continue;
        }
        struct lvx_lv *lv = lvx_vg_find_lv(set->vgs[i], slash + 1);
        if (!lv) {
            char vgid[LVX_UUID_DASHED_LEN + 1];
            lvx_uuid_format(set->vgs[i]->uuid, vgid);
            lvx_cmdlog_object_at(lvx_cmd_vg_arg_key(names, count, vg_name, k) + LVX_CMDLOG_MISSING_LV,
                                 "lv", slash + 1, NULL, vg_name, vgid);
            lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vg_name, slash + 1);
            lvx_cmdlog_status(LVX_EXIT_FAILED);
            *failed = true;
            continue;
        }
        add_lv_once(env, set, (unsigned)i, subset, subset_n, lv);
    }
    out->only_named = count > 0;
    for (unsigned i = 0; i < nvg; i++) {
        in_vg_order(set->vgs[i], subset[i], subset_n[i]);
        if (count == 0 || whole[i]) {
            out->vgs[out->vg_count++] = set->vgs[i];
            out->only_named = out->only_named && count > 0 && !whole[i];
        } else if (subset_n[i]) {
            out->vgs[out->vg_count++] = lvx_cmd_vg_with_lvs(env, set->vgs[i], subset[i],
                                                            subset_n[i]);
        }
    }
}

int lvx_cmd_detach(void)
{
    int r = lvx_detach_fork();
    if (r < 0)
        lvx_cmd_errorf("fork failed: %s", strerror(errno));
    return r;
}

unsigned lvx_cmd_scope_args(struct lvx_cmd_env *env, const char **argv, unsigned k)
{
    if (env->args->count[LVX_OPT_DEVICES]) {
        argv[k++] = "--devices";
        argv[k++] = env->args->value[LVX_OPT_DEVICES];
    }
    if (env->args->count[LVX_OPT_CONFIG]) {
        argv[k++] = "--config";
        argv[k++] = env->args->value[LVX_OPT_CONFIG];
    }
    return k;
}

/* ---- output routing ---------------------------------------------------------
 * Every byte a command prints goes through the context of the command being run
 * (bound by the dispatcher): report text through ctx->out_fn, messages through the
 * log callback.  Without a bound context (or without callbacks) the process's
 * stdout/stderr are used, as LVM2 prints. */

static _Thread_local struct lvx_ctx *bound_ctx;

struct lvx_ctx *lvx_cmd_bind_ctx(struct lvx_ctx *ctx)
{
    struct lvx_ctx *old = bound_ctx;
    bound_ctx = ctx;
    return old;
}

struct lvx_ctx *lvx_cmd_bound_ctx(void)
{
    return bound_ctx;
}

/* Warnings LVM2 prints without "WARNING: " (log_warn of the devices file code, the
 * pv_min_size note, the second line of lvreduce's warning on an active LV, vgchange -s
 * of the VG's own extent size, lvconvert --thinpool's second line). */
bool lvx_cmd_plain_warning(const char *msg)
{
    return strncmp(msg, "VG with system ID ", 18) == 0 ||
           strncmp(msg, "Fix duplicate VG names ", 23) == 0 || strncmp(msg, "Devices file ", 13) == 0 || strncmp(msg, "Creating devices file ", 22) == 0 ||
           strncmp(msg, "Not creating system devices file ", 33) == 0 || strncmp(msg, "Please remove the lvm.conf ", 27) == 0 ||
           strncmp(msg, "Device /", 8) == 0 || strncmp(msg, "Ignoring too small pv_min_size", 30) == 0 ||
           strncmp(msg, "THIS MAY DESTROY YOUR DATA", 26) == 0 ||
           strncmp(msg, "THIS WILL DESTROY CONTENT OF ", 29) == 0 ||
           strncmp(msg, "See vgck --updatemetadata", 25) == 0 ||
           strncmp(msg, "Physical extent size of VG ", 27) == 0 ||
           strncmp(msg, "TEST MODE: ", 11) == 0;
}

void lvx_cmd_log_stdio(void *arg, int level, const char *msg)
{
    (void)arg;
    if (level == LVX_LOG_NOTICE) {
        printf("  %s\n", msg);
        return;
    }
    fflush(stdout);
    if (level == LVX_LOG_ERROR_RAW)
        fprintf(stderr, "%s\n", msg);
    /* LVM2 prints "PARTIAL MODE. ..." and "Reading VG X without a lock." as warnings
     * without the prefix */
    else if (level == LVX_LOG_WARN && strncmp(msg, "WARNING:", 8) != 0 &&
             strncmp(msg, "PARTIAL MODE.", 13) != 0 && strncmp(msg, "Reading VG ", 11) != 0 &&
             !lvx_cmd_plain_warning(msg))
        fprintf(stderr, "  WARNING: %s\n", msg);
    else if (level >= LVX_LOG_INFO)
        fprintf(stderr, "      %s\n", msg);
    else
        fprintf(stderr, "  %s\n", msg);
}

/* Send one message at level through the bound context (or straight to stdio). */
static void emit_message(int level, const char *msg)
{
    struct lvx_ctx *ctx = bound_ctx;
    if (!ctx) {
        lvx_cmd_log_stdio(NULL, level, msg);
        return;
    }
    if (ctx->log_fn && level <= ctx->log_level)
        ctx->log_fn(ctx->log_arg, level, msg);     /* any length (the command list) */
}

void lvx_cmd_error_raw(const char *msg)
{
    emit_message(LVX_LOG_ERROR_RAW, msg);
}

void lvx_cmd_errorf(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    emit_message(LVX_LOG_ERROR, msg);
}

int lvx_cmd_write(const char *data, size_t len)
{
    struct lvx_ctx *ctx = bound_ctx;
    if (ctx && ctx->out_fn) {
        if (len)
            ctx->out_fn(ctx->out_arg, data, len);
        return 0;
    }
    if (len && fwrite(data, 1, len, stdout) != len) {
        lvx_cmd_errorf("Failed to write output: %s", strerror(errno));
        return LVX_EXIT_FAILED;
    }
    if (fflush(stdout) != 0) {
        lvx_cmd_errorf("Failed to write output: %s", strerror(errno));
        return LVX_EXIT_FAILED;
    }
    return 0;
}

bool lvx_cmd_ask_hook(const char *question, bool *answer)
{
    struct lvx_ctx *ctx = bound_ctx;
    if (!ctx || !ctx->ask_fn)
        return false;
    *answer = ctx->ask_fn(ctx->ask_arg, question);
    return true;
}

int lvx_cmd_fail(struct lvx_cmd_env *env)
{
    const char *msg = env->ctx->errmsg;
    char vg[256];
    int end = 0;
    if (!msg[0]) {
        /* an error that set no text: its code at least says which kind it was */
        const char *name = env->command ? env->command->name : "command";
        if (env->ctx->err)
            lvx_cmd_errorf("%s failed: %s.", name, strerror(-env->ctx->err));
        else
            lvx_cmd_errorf("%s failed.", name);
    } else {
        lvx_cmd_errorf("%s", msg);
        /* a named VG the update cycle did not find (meta/update.c): LVM2's toolkit adds
         * this line (vgsplit reads its VGs outside the toolkit: not there) */
        if (sscanf(msg, "Volume group \"%255[^\"]\" not found%n", vg, &end) == 1 && !msg[end] &&
            !(env->command && strcmp(env->command->name, "vgsplit") == 0))
            lvx_cmd_errorf("Cannot process volume group %s", vg);
        /* meta/update.c's refusal while PVs are missing: LVM2's hint and toolkit line */
        end = 0;
        if (sscanf(msg, "Cannot change VG %255s while PVs are missing.%n", vg, &end) == 1 &&
            !msg[end]) {
            lvx_cmd_errorf("See vgreduce --removemissing and vgextend --restoremissing.");
            lvx_cmd_errorf("Cannot process volume group %s", vg);
        }
    }
    lvx_error_clear(env->ctx);
    return LVX_EXIT_FAILED;
}

int lvx_cmd_output(const struct lvx_buf *b)
{
    return lvx_cmd_write(b->data ? b->data : "", b->len);
}

/* --- sizes as the display commands print them ------------------------------ */

struct unit_def {
    char letter;
    uint64_t bytes;
    const char *long_name;
};

static const struct unit_def display_units[] = {
    { 'e', 1ull << 60, "EiB" }, { 'p', 1ull << 50, "PiB" }, { 't', 1ull << 40, "TiB" },
    { 'g', 1ull << 30, "GiB" }, { 'm', 1ull << 20, "MiB" }, { 'k', 1ull << 10, "KiB" },
    { 'E', 1000000000000000000ull, "EB" }, { 'P', 1000000000000000ull, "PB" },
    { 'T', 1000000000000ull, "TB" }, { 'G', 1000000000ull, "GB" }, { 'M', 1000000ull, "MB" },
    { 'K', 1000ull, "kB" },
};

static const struct unit_def *unit_lookup(char letter)
{
    for (size_t i = 0; i < sizeof(display_units) / sizeof(display_units[0]); i++)
        if (display_units[i].letter == letter)
            return &display_units[i];
    return NULL;
}

/* Human units: the largest unit the size reaches (binary for 'h', SI for 'H'). */
static const struct unit_def *unit_human(uint64_t bytes, bool si)
{
    const char *order = si ? "EPTGMK" : "eptgmk";
    for (const char *c = order; *c; c++) {
        const struct unit_def *u = unit_lookup(*c);
        if (bytes >= u->bytes)
            return u;
    }
    return NULL;   /* below 1 KiB / 1 kB: bytes */
}

/* A size in multiples of a unit ("--units 4k"): b/s letters whole, others with two
 * decimals, named "Un" for the letter 'U'. */
static void display_multiple(struct lvx_buf *out, uint64_t bytes, char units, uint64_t unit_bytes)
{
    char lower = (char)(units | 0x20);
    if (lower == 's' || lower == 'b') {
        lvx_buf_printf(out, lower == 's' ? "%.0Lf Se" : "%.0Lf B ",   /* rounded to nearest */
                       (long double)bytes / (long double)unit_bytes);
        return;
    }
    const struct unit_def *u = unit_lookup(units);
    const char *name = u ? u->long_name : "Un";
    if (bytes == 0) {
        lvx_buf_printf(out, "0 %s", name);
        return;
    }
    unsigned __int128 scaled = (unsigned __int128)bytes * 100;
    uint64_t hundredths = (uint64_t)(scaled / unit_bytes);
    if ((unsigned __int128)(scaled % unit_bytes) * 2 >= unit_bytes)
        hundredths++;
    lvx_buf_printf(out, "%llu.%02llu %s", (unsigned long long)(hundredths / 100),
                   (unsigned long long)(hundredths % 100), name);
}

void lvx_cmd_display_size(struct lvx_buf *out, uint64_t sectors, char units, uint64_t unit_bytes)
{
    uint64_t bytes = sectors * 512;
    if (unit_bytes && !strchr("rRhH", units ? units : 'h')) {
        display_multiple(out, bytes, units, unit_bytes);
        return;
    }
    if (units == 'r' || units == 'R')     /* display commands show 'r' as 'h' */
        units = units == 'r' ? 'h' : 'H';
    bool human = units == 0 || units == 'h' || units == 'H';

    if (units == 0)
        units = 'h';
    if (units == 's' || units == 'S') {
        lvx_buf_printf(out, "%llu Se", (unsigned long long)sectors);
        return;
    }
    if (sectors == 0 && human) {
        lvx_buf_puts(out, "0   ");
        return;
    }
    const struct unit_def *u = human ? unit_human(bytes, units == 'H') : unit_lookup(units);
    if (!u) {   /* 'b'/'B', or a human size below one KiB */
        lvx_buf_printf(out, "%llu B ", (unsigned long long)bytes);
        return;
    }
    if (sectors == 0) {
        lvx_buf_printf(out, "0 %s", u->long_name);
        return;
    }
    /* the value in hundredths of the unit, exact */
    unsigned __int128 scaled = (unsigned __int128)bytes * 100;
    uint64_t hundredths = (uint64_t)(scaled / u->bytes);
    uint64_t rest = (uint64_t)(scaled % u->bytes);
    const char *prefix = "";
    /* printf's rounding of the exact value (an exact half goes to the even hundredth);
     * in human units a value rounded up is marked '<' (libdm's dm_size_to_string) */
    unsigned __int128 twice = (unsigned __int128)rest * 2;
    if (twice > u->bytes || (twice == u->bytes && (hundredths & 1))) {
        hundredths++;
        if (units == 'h')
            prefix = "<";
    }
    lvx_buf_printf(out, "%s%llu.%02llu %s", prefix, (unsigned long long)(hundredths / 100),
                   (unsigned long long)(hundredths % 100), u->long_name);
}

const char *lvx_cmd_size_str(struct lvx_pool *pool, uint64_t sectors, char units,
                             uint64_t unit_bytes)
{
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_cmd_display_size(&b, sectors, units, unit_bytes);
    const char *s = lvx_pool_strdup(pool, lvx_buf_str(&b));
    lvx_buf_free(&b);
    return s;
}

const char *lvx_cmd_lv_path(struct lvx_pool *pool, const struct lvx_lv *lv)
{
    return lvx_pool_printf(pool, "/dev/%s/%s", lv->vg->name, lv->name);
}

const char *lvx_cmd_pv_name(const struct lvx_pv *pv)
{
    if (pv->ondisk.present && pv->ondisk.dev_name)
        return pv->ondisk.dev_name;
    return "[unknown]";
}

uint64_t lvx_cmd_pv_size(const struct lvx_pv *pv)
{
    if (pv->has_dev_size && pv->dev_size)
        return pv->dev_size;
    if (pv->ondisk.dev_bytes)
        return pv->ondisk.dev_bytes / 512;
    return pv->ondisk.hdr_device_size / 512;
}

/* ---- typed option values shared by every family ------------------------------- */

bool lvx_cmd_attaches_profile(const struct lvx_cmd_env *env)
{
    static const char *const attaching[] = {
        "lvcreate", "lvconvert", "vgcreate", "lvchange", "vgchange",
    };
    for (size_t i = 0; i < sizeof(attaching) / sizeof(*attaching); i++)
        if (strcmp(env->command->name, attaching[i]) == 0)
            return true;
    return false;
}

const char *lvx_cmd_metadata_profile(const struct lvx_cmd_env *env)
{
    if (env->args->value[LVX_OPT_METADATAPROFILE])
        return env->args->value[LVX_OPT_METADATAPROFILE];
    return lvx_cmd_attaches_profile(env) ? env->args->value[LVX_OPT_PROFILE] : NULL;
}

bool lvx_cmd_bool(const struct lvx_cmd_env *env, enum lvx_opt_id id, bool dflt)
{
    return env->args->count[id] ? env->args->val[id].b : dflt;
}

bool lvx_cmd_apply_tags(const struct lvx_cmd_env *env, struct lvx_pool *pool,
                        struct lvx_strlist *tags)
{
    const struct lvx_opt_val *add = &env->args->val[LVX_OPT_ADDTAG];
    const struct lvx_opt_val *del = &env->args->val[LVX_OPT_DELTAG];
    bool changed = false;
    for (unsigned i = 0; i < add->item_count; i++)
        if (!lvx_strlist_has(tags, add->items[i])) {
            lvx_strlist_add(pool, tags, add->items[i]);
            changed = true;
        }
    for (unsigned i = 0; i < del->item_count; i++)
        changed |= lvx_strlist_remove(tags, del->items[i]);
    return changed;
}

bool lvx_cmd_has_tag_changes(const struct lvx_cmd_env *env)
{
    return env->args->count[LVX_OPT_ADDTAG] || env->args->count[LVX_OPT_DELTAG];
}

/* "DIR/rest" -> "rest" for DIR = dir (trailing '/' ignored); NULL when arg is elsewhere. */
static const char *under_dir(const char *arg, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (strncmp(arg, dir, n) != 0 || arg[n] != '/')
        return NULL;
    arg += n;
    while (*arg == '/')
        arg++;
    return arg;
}

bool lvx_cmd_config_flag(struct lvx_cmd_env *env, const char *path, bool dflt)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0) {
        lvx_error_clear(env->ctx);
        return dflt;
    }
    bool on = lvx_config_int(cfg, path, dflt) != 0;
    lvx_config_free(cfg);
    return on;
}

/* lvm.conf devices/dir (LVM2's device directory, default /dev), in the pool. */
static const char *dev_dir(struct lvx_cmd_env *env)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0) {
        lvx_error_clear(env->ctx);
        return "/dev";
    }
    const char *d = lvx_pool_strdup(env->pool, lvx_config_str(cfg, "devices/dir", "/dev"));
    lvx_config_free(cfg);
    return d;
}

const char *lvx_cmd_skip_dev_dir(struct lvx_cmd_env *env, const char *arg)
{
    if (arg[0] != '/')
        return arg;
    const char *rest = under_dir(arg, dev_dir(env));
    if (!rest) {            /* lvx also takes /dev/VG/LV under another devices/dir */
        rest = under_dir(arg, "/dev");
        if (!rest || !strchr(rest, '/'))
            return arg;
    }
    if (strncmp(rest, "mapper/", 7) != 0)
        return rest;
    /* device-mapper's name: "vg-lv", a '-' inside either name doubled */
    const char *p = rest + 7;
    char *out = lvx_pool_alloc(env->pool, strlen(p) + 2);
    size_t k = 0;
    bool split = false;
    for (; *p; p++) {
        if (p[0] == '-' && p[1] == '-') {
            out[k++] = '-';
            p++;
        } else if (p[0] == '-' && !split) {
            out[k++] = '/';
            split = true;
        } else {
            out[k++] = *p;
        }
    }
    out[k] = '\0';
    if (!split)                 /* "vg" alone names the VG */
        return out[0] ? out : arg;
    return out[0] != '/' && out[k - 1] != '/' ? out : arg;
}
