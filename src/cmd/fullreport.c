/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/fullreport.c - `lvx fullreport [VG ...]` (LVM2's `lvm fullreport`): for each VG,
 * by name, its vg, pv, lv, pvseg and seg reports one after the other; then, when no
 * VG is named, the orphan PVs (pv and pvseg reports).  Each report has LVM2's
 * *_cols_full columns and *_sort_full keys; `--configreport NAME` makes the -o, -O
 * and -S after it apply to that report (before the first one they apply to none, as
 * LVM2).  JSON (`--reportformat json`) holds one object per VG (and one for the
 * orphans) with the five arrays, as LVM2 prints it.
 */
#include "cmd/commands.h"
#include "cmd/cmdlog.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/actcmd.h"
#include "report/report.h"

enum { FR_VG, FR_PV, FR_LV, FR_PVSEG, FR_SEG, FR_COUNT, FR_LOG = FR_COUNT };

static const struct {
    const char *name;
    enum lvx_report_kind kind;
    const char *cols, *sort;        /* LVM2's report/<x>_cols_full and _sort_full */
    const char *title;              /* its heading in text with the command log */
} parts[FR_COUNT] = {
    [FR_VG] = { "vg", LVX_REPORT_VGS, "vg_all", "vg_name", "Volume Group" },
    [FR_PV] = { "pv", LVX_REPORT_PVS, "pv_all", "pv_name", "Physical Volume" },
    [FR_LV] = { "lv", LVX_REPORT_LVS, "lv_all", "vg_name,lv_name", "Logical Volume" },
    [FR_PVSEG] = { "pvseg", LVX_REPORT_PVSEGS, "pvseg_all,pv_uuid,lv_uuid", "pv_uuid,pvseg_start",
                   "Physical Volume Segment" },
    [FR_SEG] = { "seg", LVX_REPORT_SEGS, "seg_all,lv_uuid", "lv_uuid,seg_start",
                 "Logical Volume Segment" },
};

/* The -o/-O/-S of each report from the command line's --configreport groups; -1 after
 * printing the error for a bad report name. */
static int split_groups(struct lvx_cmd_env *env, struct lvx_report_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    int cur = -1;
    for (unsigned i = 0; i < a->seq_count; i++) {
        const char *v = a->seq_value[i];
        switch (a->seq_id[i]) {
        case LVX_OPT_CONFIGREPORT:
            cur = -1;
            for (int p = 0; p < FR_COUNT; p++)
                if (strcmp(v, parts[p].name) == 0)
                    cur = p;
            if (strcmp(v, "log") == 0)
                cur = FR_LOG;
            if (cur < 0) {
                lvx_opts_invalid("configreport", v, NULL);
                return -1;
            }
            break;
        case LVX_OPT_OPTIONS:
            if (cur >= 0 && cur < FR_COUNT)
                o[cur].fields = o[cur].fields
                                    ? lvx_pool_printf(env->pool, "%s\n%s", o[cur].fields, v)
                                    : v;
            break;
        case LVX_OPT_SORT:
            if (cur >= 0 && cur < FR_COUNT)
                o[cur].sort = v;
            break;
        case LVX_OPT_SELECT:
            if (cur >= 0 && cur < FR_COUNT)
                o[cur].select = v;
            break;
        default:
            break;
        }
    }
    return 0;
}

static int vg_name_cmp(const void *a, const void *b)
{
    return strcmp((*(struct lvx_vg *const *)a)->name, (*(struct lvx_vg *const *)b)->name);
}

/* One VG's (or the orphans') reports, in the order of parts[]; a JSON object of them. */
static int report_group(struct lvx_cmd_env *env, struct lvx_report_opts *o, struct lvx_vg *vg,
                        struct lvx_pv *const *orphans, unsigned orphan_count, bool json,
                        struct lvx_buf *out)
{
    bool first = true;
    if (json)
        lvx_buf_puts(out, "          {\n");
    for (int p = 0; p < FR_COUNT; p++) {
        if (!vg && p != FR_PV && p != FR_PVSEG)
            continue;
        if (json && !first)
            lvx_buf_puts(out, "              ,\n");
        first = false;
        bool titled = !json && lvx_cmdlog_on();      /* a report group: headings */
        struct lvx_buf part = LVX_BUF_INIT;
        int r = lvx_report(env->ctx, parts[p].kind, &o[p], vg ? &vg : NULL, vg ? 1 : 0, orphans,
                           orphan_count, titled ? &part : out);
        if (titled)
            lvx_cmdlog_section(out, o[p].line_prefix, parts[p].title, &part);
        lvx_buf_free(&part);
        if (r < 0)
            return lvx_cmd_fail(env);
    }
    if (json)
        lvx_buf_puts(out, "          }\n");
    return 0;
}

int lvx_cmd_fullreport(struct lvx_cmd_env *env)
{
    struct lvx_report_opts o[FR_COUNT];
    struct lvx_cmd_vgs v;
    struct lvx_cmd_pvsel sel;
    bool failed = false, json;
    unsigned n;

    for (int p = 0; p < FR_COUNT; p++) {
        lvx_cmd_report_opts(env, &o[p]);
        json = o[p].json;
        o[p].fields = o[p].sort = o[p].select = NULL;
        o[p].default_fields = parts[p].cols;
        o[p].default_sort = parts[p].sort;
        o[p].json_section = json;
        if (p == FR_LV || p == FR_SEG)
            lvx_actcmd_report_hook(env, &o[p]);
    }
    if (split_groups(env, o) < 0)
        return LVX_EXIT_INVALID;

    int rc = lvx_cmd_load(env, &v);
    if (rc)
        return rc;
    struct lvx_vg **vgs = lvx_cmd_pick_vgs(env, &v, env->args->argv, (unsigned)env->args->argc,
                                           &n, &failed);
    struct lvx_vg **sorted = lvx_pool_alloc(env->pool, sizeof(*sorted) * (n + 1));
    memcpy(sorted, vgs, sizeof(*sorted) * n);
    qsort(sorted, n, sizeof(*sorted), vg_name_cmp);
    if (env->args->argc == 0)
        lvx_cmd_vgs_lvm2_order(sorted, n);   /* LVM2's processing order */
    memset(&sel, 0, sizeof(sel));
    if (env->args->argc == 0)
        lvx_cmd_pick_pvs(env, &v, NULL, 0, &sel, &failed);

    struct lvx_buf out = LVX_BUF_INIT;
    if (json)
        lvx_buf_puts(&out, "  {\n      \"report\": [\n");
    for (unsigned g = 0; g < n && rc == 0; g++) {
        if (json && g)
            lvx_buf_puts(&out, "          ,\n");
        rc = report_group(env, o, sorted[g], NULL, 0, json, &out);
    }
    if (rc == 0 && sel.orphan_count) {
        if (json && n)
            lvx_buf_puts(&out, "          ,\n");
        rc = report_group(env, o, NULL, sel.orphans, sel.orphan_count, json, &out);
    }
    if (json)
        lvx_buf_puts(&out, "      ]\n  }\n");
    if (rc == 0)
        rc = lvx_cmd_output(&out);
    lvx_buf_free(&out);
    lvx_cmd_unload(&v);
    return rc ? rc : failed ? LVX_EXIT_FAILED : LVX_EXIT_OK;
}
