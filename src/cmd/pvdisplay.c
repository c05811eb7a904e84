/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvdisplay.c - `lvx pvdisplay [PV ...]`: LVM2's multi-line PV display,
 * with -m the PV's extent map ("--- Physical Segments ---"), -c one colon
 * separated line per PV, -s one short line per PV, -C the pvs report.
 */
#include "cmd/toolkit.h"

#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* One used run of extents of a PV. */
struct pv_run {
    uint64_t pe_start, pe_count;
    const struct lvx_lv *lv;
    uint64_t le_start, le_count;
};

static int run_cmp(const void *a, const void *b)
{
    const struct pv_run *x = a, *y = b;
    return x->pe_start < y->pe_start ? -1 : x->pe_start > y->pe_start;
}

/* The used runs of pv, sorted by first PE. */
static struct pv_run *pv_runs(struct lvx_pool *pool, const struct lvx_pv *pv, unsigned *count)
{
    const struct lvx_vg *vg = pv->vg;
    struct pv_run *runs = NULL;
    unsigned n = 0, cap = 0;

    for (unsigned i = 0; vg && i < vg->lv_count; i++) {
        const struct lvx_lv *lv = vg->lvs[i];
        for (unsigned s = 0; s < lv->seg_count; s++) {
            const struct lvx_seg *seg = &lv->segs[s];
            for (unsigned a = 0; a < seg->area_count; a++) {
                if (seg->areas[a].pv != pv)
                    continue;
                if (n == cap) {
                    unsigned ncap = cap ? cap * 2 : 16;
                    runs = lvx_pool_realloc(pool, runs, cap * sizeof(*runs), ncap * sizeof(*runs));
                    cap = ncap;
                }
                runs[n++] = (struct pv_run){ seg->areas[a].start, lvx_seg_area_len(seg), lv,
                                             seg->start_extent, seg->extent_count };
            }
        }
    }
    if (n)
        qsort(runs, n, sizeof(*runs), run_cmp);
    *count = n;
    return runs;
}

static void display_pv_map(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_pv *pv)
{
    unsigned n;
    struct pv_run *runs = pv_runs(env->pool, pv, &n);
    uint64_t next = 0;

    lvx_buf_puts(b, "  --- Physical Segments ---\n");
    for (unsigned i = 0; i <= n; i++) {
        uint64_t start = i < n ? runs[i].pe_start : pv->pe_count;
        if (start > next)
            lvx_buf_printf(b, "  Physical extent %llu to %llu:\n    FREE\n",
                           (unsigned long long)next, (unsigned long long)(start - 1));
        if (i == n)
            break;
        const struct pv_run *r = &runs[i];
        lvx_buf_printf(b, "  Physical extent %llu to %llu:\n", (unsigned long long)r->pe_start,
                       (unsigned long long)(r->pe_start + r->pe_count - 1));
        lvx_buf_printf(b, "    Logical volume\t%s\n", lvx_cmd_lv_path(env->pool, r->lv));
        lvx_buf_printf(b, "    Logical extents\t%llu to %llu\n", (unsigned long long)r->le_start,
                       (unsigned long long)(r->le_start + r->le_count - 1));
        if (r->pe_start + r->pe_count > next)
            next = r->pe_start + r->pe_count;
    }
    lvx_buf_puts(b, "   \n");
}

/* LVM2 announces an orphan PV before its full or colon display. */
static void print_new_pv(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_pv *pv)
{
    lvx_buf_printf(b, "  \"%s\" is a new physical volume of \"%s\"\n", lvx_cmd_pv_name(pv),
                   lvx_cmd_size_str(env->pool, lvx_cmd_pv_size(pv), env->args->units,
                                    env->args->unit_bytes));
}

static void display_pv_full(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_pv *pv)
{
    const struct lvx_vg *vg = pv->vg;
    char units = env->args->units;
    uint64_t unit_bytes = env->args->unit_bytes;
    char uuid[LVX_UUID_DASHED_LEN + 1];
    uint64_t size = lvx_cmd_pv_size(pv);
    uint32_t extent = vg ? vg->extent_size : 0;
    uint64_t alloc = vg ? lvx_pv_alloc_count(pv) : 0;
    uint64_t pe_count = vg ? pv->pe_count : 0;

    lvx_uuid_format(pv->uuid, uuid);
    if (!vg) {
        print_new_pv(env, b, pv);
        lvx_buf_puts(b, "  --- NEW Physical volume ---\n");
    } else {
        lvx_buf_puts(b, "  --- Physical volume ---\n");
    }
    lvx_buf_printf(b, "  PV Name               %s\n", lvx_cmd_pv_name(pv));
    lvx_buf_printf(b, "  VG Name               %s%s\n", vg ? vg->name : "",
                   vg && (vg->status & LVX_VG_EXPORTED) ? " (exported)" : "");
    lvx_buf_printf(b, "  PV Size               %s", lvx_cmd_size_str(env->pool, size, units, unit_bytes));
    if (extent && pe_count) {
        uint64_t used = pe_count * extent;
        lvx_buf_printf(b, " / not usable %s",
                       lvx_cmd_size_str(env->pool, size > used ? size - used : 0, units, unit_bytes));
    }
    lvx_buf_putc(b, '\n');
    if (!vg || !(pv->status & LVX_PV_ALLOCATABLE))
        lvx_buf_puts(b, "  Allocatable           NO\n");
    else if (alloc == pe_count)
        lvx_buf_puts(b, "  Allocatable           yes (but full)\n");
    else
        lvx_buf_puts(b, "  Allocatable           yes \n");
    lvx_buf_printf(b, "  PE Size               %s\n", lvx_cmd_size_str(env->pool, extent, units, unit_bytes));
    lvx_buf_printf(b, "  Total PE              %llu\n", (unsigned long long)pe_count);
    lvx_buf_printf(b, "  Free PE               %llu\n", (unsigned long long)(pe_count - alloc));
    lvx_buf_printf(b, "  Allocated PE          %llu\n", (unsigned long long)alloc);
    lvx_buf_printf(b, "  PV UUID               %s\n", uuid);
    lvx_buf_puts(b, "   \n");
    if (env->args->count[LVX_OPT_MAPS]) {
        if (vg)
            display_pv_map(env, b, pv);
        else
            lvx_buf_puts(b, "   \n");
    }
}

/* pv_name:vg_name:size:-1:status:allocatable:-1:pe_size_kib:total:free:alloc:uuid */
static void display_pv_colon(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_pv *pv)
{
    const struct lvx_vg *vg = pv->vg;
    char uuid[LVX_UUID_DASHED_LEN + 1];
    uint64_t alloc = vg ? lvx_pv_alloc_count(pv) : 0;
    uint64_t pe_count = vg ? pv->pe_count : 0;
    unsigned allocatable = vg && (pv->status & LVX_PV_ALLOCATABLE) ? 8 : 0;
    unsigned status = allocatable | (pv->status & LVX_PV_EXPORTED ? 2 : 0);

    lvx_uuid_format(pv->uuid, uuid);
    if (!vg)
        print_new_pv(env, b, pv);
    lvx_buf_printf(b, "  %s:%s:%llu:-1:%u:%u:-1:%u:%llu:%llu:%llu:%s\n", lvx_cmd_pv_name(pv),
                   vg ? vg->name : "", (unsigned long long)lvx_cmd_pv_size(pv), status,
                   allocatable, vg ? vg->extent_size / 2 : 0, (unsigned long long)pe_count,
                   (unsigned long long)(pe_count - alloc), (unsigned long long)alloc, uuid);
}

static void display_pv_short(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_pv *pv)
{
    uint64_t free_sectors;
    if (pv->vg)
        free_sectors = (pv->pe_count - lvx_pv_alloc_count(pv)) * (uint64_t)pv->vg->extent_size;
    else
        free_sectors = lvx_cmd_pv_size(pv);
    lvx_buf_printf(b, "  Device \"%s\" has a capacity of %s\n", lvx_cmd_pv_name(pv),
                   lvx_cmd_size_str(env->pool, free_sectors, env->args->units,
                                    env->args->unit_bytes));
}

static void display_pv(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_pv *pv)
{
    if (env->args->count[LVX_OPT_COLON])
        display_pv_colon(env, b, pv);
    else if (env->args->count[LVX_OPT_SHORT])
        display_pv_short(env, b, pv);
    else
        display_pv_full(env, b, pv);
}

static int display_pvs(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *b,
                       void *arg)
{
    for (unsigned i = 0; i < sel->vg_count; i++)
        for (unsigned j = 0; j < sel->vgs[i]->pv_count; j++)
            display_pv(env, b, sel->vgs[i]->pvs[j]);
    for (unsigned i = 0; i < sel->orphan_count; i++)
        display_pv(env, b, sel->orphans[i]);
    return 0;
}

static int incompatible(struct lvx_cmd_env *env, const char *msg)
{
    lvx_cmd_errorf("%s", msg);
    lvx_cmd_errorf("Run `%s --help' for more information.", env->args->cmd);
    return LVX_EXIT_INVALID;
}

/* LVM2's checks of pvdisplay, vgdisplay and lvdisplay (tools/{pv,vg,lv}display.c): with
 * -C no display-only option; without it no report option (pvdisplay: nor -a), then -c
 * against -m and -s.  The report options LVM2 lets through without -C but lvx's
 * displays do not take are refused with lvx's own line. */
int lvx_cmd_display_check_args(struct lvx_cmd_env *env)
{
    static const enum lvx_opt_id lvm2_report[] = {
        LVX_OPT_ALIGNED, LVX_OPT_BINARY, LVX_OPT_NOHEADINGS, LVX_OPT_OPTIONS,
        LVX_OPT_SEPARATOR, LVX_OPT_SORT, LVX_OPT_UNBUFFERED,
    };
    static const enum lvx_opt_id report_only[] = {
        LVX_OPT_SELECT, LVX_OPT_NAMEPREFIXES, LVX_OPT_UNQUOTED, LVX_OPT_ROWS,
        LVX_OPT_REPORTFORMAT,
    };
    const struct lvx_cmd_args *a = env->args;
    bool pv = !strcmp(a->cmd, "pvdisplay"), lv = !strcmp(a->cmd, "lvdisplay");
    bool colon = a->count[LVX_OPT_COLON] > 0, maps = a->count[LVX_OPT_MAPS] > 0;
    bool shrt = a->count[LVX_OPT_SHORT] > 0, active = a->count[LVX_OPT_ACTIVEVOLUMEGROUPS] > 0;

    if (a->count[LVX_OPT_COLUMNS])
        return colon || maps || shrt || active
                   ? incompatible(env, "Incompatible options selected") : 0;
    bool report = pv && a->count[LVX_OPT_ALL];
    for (size_t i = 0; i < sizeof(lvm2_report) / sizeof(lvm2_report[0]); i++)
        report = report || a->count[lvm2_report[i]];
    if (report)   /* LVM2's words: with a full stop in vgdisplay and lvdisplay */
        return incompatible(env, pv ? "Incompatible options selected"
                                    : "Incompatible options selected.");
    if (colon && maps)
        return incompatible(env, lv ? "Options -c and -m are incompatible."
                                    : "Option -c not allowed with option -m");
    if (colon && shrt)
        return incompatible(env, "Option -c is not allowed with option -s");
    if (active && a->argc > 0)
        return incompatible(env, "Option -A is not allowed with volume group names");
    for (size_t i = 0; i < sizeof(report_only) / sizeof(report_only[0]); i++)
        if (a->count[report_only[i]]) {
            lvx_cmd_errorf("Option --%s requires -C/--columns",
                           lvx_opt_def(report_only[i])->long_name);
            return LVX_EXIT_INVALID;
        }
    return 0;
}

int lvx_cmd_pvdisplay(struct lvx_cmd_env *env)
{
    return lvx_process_display(env, LVX_TK_PVS, lvx_cmd_pvs, display_pvs);
}
