/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/report_cmd.c - what pvs, vgs, lvs (and the display commands with -C) share:
 * turning the command line into struct lvx_report_opts, rendering and printing
 * the report, and narrowing a VG to the PVs/LVs named on the command line.
 */
#include "cmd/commands.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/actcmd.h"
#include "config/config.h"
#include "report/report.h"

/* The -o arguments one per line (lvx_report_opts.fields), or NULL */
const char *lvx_cmd_field_args(struct lvx_pool *pool, const struct lvx_cmd_args *a)
{
    const char *all = NULL;
    for (unsigned i = 0; i < a->seq_count; i++)
        if (a->seq_id[i] == LVX_OPT_OPTIONS)
            all = all ? lvx_pool_printf(pool, "%s\n%s", all, a->seq_value[i]) : a->seq_value[i];
    return all;
}

/* global/units, global/suffix and report/output_format when the command line has no
 * --units, --nosuffix or --reportformat (as LVM2; lvm2-dbusd's profile sets them);
 * report/compact_output and, without -o#, report/compact_output_cols */
static void config_defaults(struct lvx_ctx *ctx, struct lvx_pool *pool,
                            const struct lvx_cmd_args *a, struct lvx_report_opts *o)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return;
    }
    const char *units = lvx_config_str(cfg, "global/units", NULL);
    char u;
    uint64_t ub;
    if (!a->count[LVX_OPT_UNITS] && units && lvx_opts_parse_units(units, &u, &ub) == 0) {
        o->units = u;
        o->unit_bytes = ub;
    }
    if (!a->count[LVX_OPT_NOSUFFIX] && lvx_config_int(cfg, "global/suffix", 1) == 0)
        o->nosuffix = true;
    const char *fmt = lvx_config_str(cfg, "report/output_format", NULL);
    if (!a->count[LVX_OPT_REPORTFORMAT] && fmt && strcmp(fmt, "json") == 0)
        o->json = true;
    o->compact_all = lvx_config_int(cfg, "report/compact_output", 0) != 0;
    o->unmark_hidden = lvx_config_int(cfg, "report/mark_hidden_devices", 1) == 0;
    const char *prefix = lvx_config_str(cfg, "log/prefix", NULL);
    if (prefix)
        o->line_prefix = lvx_pool_strdup(pool, prefix);
    const char *cc = lvx_config_str(cfg, "report/compact_output_cols", NULL);
    if (cc && *cc && !o->compact)
        o->compact = lvx_pool_strdup(pool, cc);
    lvx_config_free(cfg);
}

void lvx_cmd_report_opts(struct lvx_cmd_env *env, struct lvx_report_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    memset(o, 0, sizeof(*o));
    o->fields = lvx_cmd_field_args(env->pool, a);
    o->sort = a->value[LVX_OPT_SORT];
    o->select = a->value[LVX_OPT_SELECT];
    o->noheadings = a->count[LVX_OPT_NOHEADINGS] > 0;
    o->separator = a->value[LVX_OPT_SEPARATOR];
    o->nosuffix = a->count[LVX_OPT_NOSUFFIX] > 0;
    o->units = a->units;
    o->unit_bytes = a->unit_bytes;
    o->json = a->json;
    o->all = a->count[LVX_OPT_ALL] > 0;
    o->aligned = a->count[LVX_OPT_ALIGNED] > 0;
    o->unquoted = a->count[LVX_OPT_UNQUOTED] > 0;
    o->nameprefixes = a->count[LVX_OPT_NAMEPREFIXES] > 0;
    o->rows = a->count[LVX_OPT_ROWS] > 0;
    o->unbuffered = a->count[LVX_OPT_UNBUFFERED] > 0;
    o->binary = a->count[LVX_OPT_BINARY] > 0;
    config_defaults(env->ctx, env->pool, a, o);
}

int lvx_cmd_report(struct lvx_cmd_env *env, int kind, struct lvx_vg *const *vgs, unsigned vg_count,
                   struct lvx_pv *const *orphans, unsigned orphan_count, bool all)
{
    struct lvx_report_opts opts;
    struct lvx_buf out = LVX_BUF_INIT;
    int rc;

    lvx_cmd_check_devs_used(env, vgs, vg_count);
    lvx_cmd_report_opts(env, &opts);
    opts.all |= all;
    if (kind == LVX_REPORT_LVS || kind == LVX_REPORT_SEGS)
        lvx_actcmd_report_hook(env, &opts);    /* kernel state of the LVs */
    if (lvx_report(env->ctx, (enum lvx_report_kind)kind, &opts, vgs, vg_count, orphans,
                   orphan_count, &out) < 0)
        rc = lvx_cmd_fail(env);
    else
        rc = lvx_cmd_output(&out);
    lvx_buf_free(&out);
    return rc;
}

struct lvx_vg *lvx_cmd_vg_with_pvs(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                   struct lvx_pv **pvs, unsigned count)
{
    struct lvx_vg *copy = lvx_pool_alloc(env->pool, sizeof(*copy));
    *copy = *vg;
    copy->pvs = pvs;
    copy->pv_count = count;
    copy->whole = vg->whole ? vg->whole : vg;
    return copy;
}

struct lvx_vg *lvx_cmd_vg_with_lvs(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                   struct lvx_lv **lvs, unsigned count)
{
    struct lvx_vg *copy = lvx_pool_alloc(env->pool, sizeof(*copy));
    *copy = *vg;
    copy->lvs = lvs;
    copy->lv_count = count;
    copy->whole = vg->whole ? vg->whole : vg;
    return copy;
}

bool lvx_cmd_same_device(const char *given, const char *path)
{
    if (!given || !path)
        return false;
    if (strcmp(given, path) == 0)
        return true;
    char a[PATH_MAX], b[PATH_MAX];
    if (!realpath(given, a) || !realpath(path, b))
        return false;
    if (strcmp(a, b) == 0)
        return true;
    /* two nodes of one block device (/dev/mapper/VG-LV made by mknod and /dev/dm-N) */
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && S_ISBLK(sa.st_mode) &&
           S_ISBLK(sb.st_mode) && sa.st_rdev == sb.st_rdev;
}
