/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/toolkit.c - the command toolkit (see toolkit.h): the read walk (load, pick the
 * objects the arguments name, hand them over, print, free) and the change walks over
 * VGs, LVs and PVs with the VG update cycle (begin, callback, commit, end) run here
 * once for every command.
 */
#include "cmd/toolkit.h"
#include "cmd/cmdlog.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/lvcmd.h"
#include "cmd/vgcmd.h"
#include "meta/systemid.h"
#include "model/thin.h"
#include "report/report.h"

/* ---- reading ------------------------------------------------------------------ */

/* LVM_VG_NAME (LVM2's default VG): LV arguments without a VG ("lv", not "vg/lv",
 * "/dev/...", "@tag") name an LV of that VG.  The arguments are rewritten in place. */
void lvx_tk_default_vg_names(struct lvx_cmd_env *env)
{
    const char *vg = getenv("LVM_VG_NAME");
    if (!vg || !*vg || strchr(vg, '/'))
        return;
    char **argv = env->args->argv;
    for (int i = 0; i < env->args->argc; i++)
        if (argv[i][0] != '@' && !strchr(argv[i], '/'))
            argv[i] = lvx_pool_printf(env->pool, "%s/%s", vg, argv[i]);
}

/* Does an argument name vg (VG, VG/LV, /dev/VG/LV, /dev/mapper is not LVM2's form)? */
static bool names_vg(char **names, unsigned count, const char *vg)
{
    size_t l = strlen(vg);
    for (unsigned i = 0; i < count; i++) {
        const char *n = names[i];
        if (strncmp(n, "/dev/", 5) == 0)
            n += 5;
        if (strncmp(n, vg, l) == 0 && (n[l] == '\0' || n[l] == '/'))
            return true;
    }
    return false;
}

/* LVX_TK_NO_EXPORTED: the exported VGs out of sel, the named ones refused. */
static void drop_exported(struct lvx_tk_sel *sel, char **names, unsigned count)
{
    unsigned k = 0;
    for (unsigned i = 0; i < sel->vg_count; i++) {
        struct lvx_vg *vg = sel->vgs[i];
        if (!(vg->status & LVX_VG_EXPORTED)) {
            sel->vgs[k++] = vg;
            continue;
        }
        if (names_vg(names, count, vg->name)) {
            lvx_cmd_errorf("Volume group %s is exported", vg->name);
            sel->failed = true;
        }
    }
    sel->vg_count = k;
}

int lvx_tk_read_nothing(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel,
                        struct lvx_buf *out, void *arg)
{
    (void)env, (void)sel, (void)out, (void)arg;
    return 0;
}

/* The command log's status lines of a read walk (cmd/cmdlog.h), in LVM2's order: per
 * VG its LVs (lvs) or PVs (pvs), then the VG; the orphans' after the VGs (pvs). */
static void log_read_statuses(struct lvx_cmd_env *env, enum lvx_tk_kind kind,
                              const struct lvx_tk_sel *sel, char **names, unsigned count)
{
    if (!lvx_cmdlog_on() || (kind == LVX_TK_PVS && count))
        return;                  /* named PVs: their labels' lines (cmd/common.c) */
    char vgid[LVX_UUID_DASHED_LEN + 1], id[LVX_UUID_DASHED_LEN + 1];
    bool all = env->args->count[LVX_OPT_ALL] > 0;
    for (unsigned p = 0; p < sel->vg_count; p++) {
        const struct lvx_vg *vg = sel->vgs[p];
        unsigned long key = kind == LVX_TK_PVS ? LVX_CMDLOG_ARG_KEY(p)
                                               : lvx_cmd_vg_arg_key(names, count, vg->name, p);
        lvx_uuid_format(vg->uuid, vgid);
        if (kind == LVX_TK_LVS) {
            /* named LVs: in the VG's metadata order (sel has them in argument order) */
            const struct lvx_vg *whole = lvx_vgset_find(sel->load.set, vg->name);
            for (unsigned j = 0; j < vg->lv_count; j++) {
                if (!all && !lvx_lv_is_visible(vg->lvs[j]))
                    continue;
                unsigned at = j;
                for (unsigned w = 0; whole && w < whole->lv_count; w++)
                    if (strcmp(whole->lvs[w]->name, vg->lvs[j]->name) == 0)
                        at = w;
                lvx_uuid_format(vg->lvs[j]->uuid, id);
                lvx_cmdlog_object_at(key + at + 1, "lv", vg->lvs[j]->name, id, vg->name, vgid);
                lvx_cmdlog_status(0);
            }
        } else if (kind == LVX_TK_PVS) {
            for (unsigned j = 0; j < vg->pv_count; j++) {
                lvx_uuid_format(vg->pvs[j]->uuid, id);
                lvx_cmdlog_object_at(key + j + 1, "pv", vg->pvs[j]->ondisk.dev_name, id, vg->name,
                                     vgid);
                lvx_cmdlog_status(0);
            }
        }
        lvx_cmdlog_object_at(key + LVX_CMDLOG_VG_LAST, "vg", vg->name, vgid, NULL, NULL);
        lvx_cmdlog_status(lvx_cmdlog_group_failed(vg->name) ? LVX_EXIT_FAILED : 0);
    }
    if (kind == LVX_TK_PVS && count == 0) {
        unsigned long key = LVX_CMDLOG_ARG_KEY(sel->vg_count);
        for (unsigned j = 0; j < sel->orphan_count; j++) {
            lvx_uuid_format(sel->orphans[j]->uuid, id);
            lvx_cmdlog_object_at(key + j + 1, "pv", sel->orphans[j]->ondisk.dev_name, id, NULL,
                                 NULL);
            lvx_cmdlog_status(0);
        }
        lvx_cmdlog_object_at(key + LVX_CMDLOG_VG_LAST, "orphan", "lvm2", NULL, NULL, NULL);
        lvx_cmdlog_status(0);
    }
    lvx_cmdlog_object_done();
}

int lvx_process_read(struct lvx_cmd_env *env, enum lvx_tk_kind kind_flags, lvx_tk_read_fn fn,
                     void *arg)
{
    enum lvx_tk_kind kind = kind_flags & LVX_TK_KIND_MASK;
    if (kind == LVX_TK_LVS)
        lvx_tk_default_vg_names(env);
    struct lvx_tk_sel sel;
    char **names = env->args->argv;
    unsigned count = (unsigned)env->args->argc;

    memset(&sel, 0, sizeof(sel));
    int rc = lvx_cmd_load(env, &sel.load);
    if (rc)
        return rc;
    /* VGs in the order LVM2 processes them (what displays, scans, unbuffered reports
     * and reports sorted by nothing (-O '') show): named VGs in the arguments' order,
     * else its lvmcache order; a PV's VG always in its lvmcache order */
    if (kind == LVX_TK_VGS) {
        sel.vgs = lvx_cmd_pick_vgs(env, &sel.load, names, count, &sel.vg_count, &sel.failed);
        if (count == 0)
            lvx_cmd_vgs_lvm2_order(sel.vgs, sel.vg_count);
    } else if (kind == LVX_TK_PVS) {
        struct lvx_cmd_pvsel p;
        lvx_cmd_pick_pvs(env, &sel.load, names, count, &p, &sel.failed);
        sel.vgs = p.vgs;
        sel.vg_count = p.vg_count;
        lvx_cmd_vgs_lvm2_order(sel.vgs, sel.vg_count);
        sel.orphans = p.orphans;
        sel.orphan_count = p.orphan_count;
    } else {
        struct lvx_cmd_lvsel l;
        lvx_cmd_pick_lvs(env, &sel.load, names, count, &l, &sel.failed);
        sel.vgs = l.vgs;
        sel.vg_count = l.vg_count;
        sel.only_named = l.only_named;
        lvx_cmd_vgs_arg_order(sel.vgs, sel.vg_count, names, count);
    }
    if (kind == LVX_TK_LVS || (kind_flags & LVX_TK_NO_EXPORTED))
        drop_exported(&sel, names, count);
    log_read_statuses(env, kind, &sel, names, count);
    struct lvx_buf out = LVX_BUF_INIT;
    rc = fn(env, &sel, &out, arg);
    int wrc = out.len ? lvx_cmd_output(&out) : 0;
    lvx_buf_free(&out);
    lvx_cmd_unload(&sel.load);
    return rc ? rc : wrc ? wrc : sel.failed ? LVX_EXIT_FAILED : LVX_EXIT_OK;
}

int lvx_process_display(struct lvx_cmd_env *env, enum lvx_tk_kind kind, lvx_cmd_fn columns,
                        lvx_tk_read_fn fn)
{
    int rc = lvx_cmd_display_check_args(env);
    if (rc)
        return rc;
    if (env->args->count[LVX_OPT_COLUMNS])
        return columns(env);
    return lvx_process_read(env, kind, fn, NULL);
}

/* ---- the update cycle ----------------------------------------------------------- */

int lvx_tk_commit(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *description)
{
    if (env->args->count[LVX_OPT_TEST]) {
        lvx_vg_backup_skipped(env->ctx);
        return 0;
    }
    if (lvx_vg_update_commit(env->ctx, u, description) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

/* ---- -S/--select for changing commands ------------------------------------------- */

static const char *select_expr(const struct lvx_cmd_env *env)
{
    return env->args->count[LVX_OPT_SELECT] ? env->args->value[LVX_OPT_SELECT] : NULL;
}

/* The report of kind over vgs with fields, filtered by -S: *vals (rows x cols). */
static int selected_rows(struct lvx_cmd_env *env, enum lvx_report_kind kind, const char *fields,
                         struct lvx_vg *const *vgs, unsigned n, struct lvx_report_value **vals,
                         unsigned *rows, unsigned *cols)
{
    struct lvx_report_opts o = { .fields = fields, .select = select_expr(env), .all = true };
    *rows = 0;
    if (!n)
        return 0;
    return lvx_report_values(env->ctx, env->pool, kind, &o, vgs, n, vals, rows, cols);
}

static bool name_in(const char *name, char **names, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        if (!strcmp(names[i], name))
            return true;
    return false;
}

char **lvx_tk_select_vgs(struct lvx_cmd_env *env, char **names, unsigned count,
                         unsigned *out_count)
{
    *out_count = count;
    if (!select_expr(env))
        return names;
    struct lvx_cmd_vgs load;
    if (lvx_cmd_load(env, &load))
        return NULL;
    /* the VGs lvx_cmd_vg_names() gave by UUID (local ones sharing a name) by name
     * again: the selection below tells them apart itself */
    char **named = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*named));
    for (unsigned i = 0; i < count; i++) {
        named[i] = names[i];
        for (unsigned j = 0; j < load.set->vg_count; j++)
            if (strcmp(load.set->vgs[j]->uuid, names[i]) == 0)
                named[i] = lvx_pool_strdup(env->pool, load.set->vgs[j]->name);
    }
    names = named;
    unsigned n = 0, rows, cols;
    struct lvx_report_value *v;
    struct lvx_vg **vgs = lvx_pool_alloc(env->pool, (load.set->vg_count + 1) * sizeof(*vgs));
    for (unsigned i = 0; i < load.set->vg_count; i++)
        if (name_in(load.set->vgs[i]->name, names, count))
            vgs[n++] = load.set->vgs[i];
    char **out = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*out));
    if (selected_rows(env, LVX_REPORT_VGS, "vg_name,vg_uuid", vgs, n, &v, &rows, &cols) < 0) {
        lvx_cmd_errorf("%s", env->ctx->errmsg);
        lvx_cmd_unload(&load);
        return NULL;
    }
    n = 0;
    for (unsigned i = 0; i < count; i++) {   /* the argument order, each VG once */
        bool dup = false;                    /* a name several VGs have: by UUID */
        lvx_vgset_find_usable(env->ctx, load.set, names[i], &dup);
        for (unsigned r = 0; r < rows; r++) {
            const char *name = v[r * cols].str, *uuid = v[r * cols + 1].str;
            if (!name || strcmp(name, names[i]) != 0)
                continue;
            const char *as = dup && uuid ? uuid : names[i];
            if (!name_in(as, out, n))
                out[n++] = lvx_pool_strdup(env->pool, as);
        }
    }
    lvx_cmd_unload(&load);
    *out_count = n;
    return out;
}

char **lvx_tk_select_lvs(struct lvx_cmd_env *env, char **args, unsigned count,
                         unsigned *out_count)
{
    *out_count = count;
    if (!select_expr(env))
        return args;
    struct lvx_cmd_vgs load;
    if (lvx_cmd_load(env, &load))
        return NULL;
    struct lvx_vgset *set = load.set;
    unsigned rows = 0, cols = 0, n = 0, nvgs = 0;
    struct lvx_report_value *v = NULL;
    /* without names, exported VGs are left out (as by LVM2's LV walks) */
    struct lvx_vg **vgs = lvx_pool_alloc(env->pool, (set->vg_count + 1) * sizeof(*vgs));
    for (unsigned i = 0; i < set->vg_count; i++)
        if (count || !lvx_cmd_skips_exported(env, set->vgs[i]))
            vgs[nvgs++] = set->vgs[i];
    if (selected_rows(env, LVX_REPORT_LVS, "vg_name,lv_name", vgs, nvgs, &v, &rows, &cols) < 0) {
        /* as LVM2: the selection fails for each LV, which is left alone */
        for (unsigned i = 0; i < set->vg_count; i++)
            for (unsigned j = 0; j < set->vgs[i]->lv_count; j++)
                if (lvx_lv_is_visible(set->vgs[i]->lvs[j])) {
                    lvx_cmd_errorf("%s", env->ctx->errmsg);
                    lvx_cmd_errorf("Selection failed for LV %s.", set->vgs[i]->lvs[j]->name);
                }
        rows = 0;
    }
    char **out = lvx_pool_alloc(env->pool, (rows + 1) * sizeof(*out));
    for (unsigned r = 0; r < rows; r++) {
        const char *vg = v[r * cols].str, *lv = v[r * cols + 1].str;
        if (!vg || !lv)
            continue;
        const char *full = lvx_pool_printf(env->pool, "%s/%s", vg, lv);
        bool want = count == 0;
        for (unsigned i = 0; i < count && !want; i++)
            want = !strcmp(args[i], full) || !strcmp(args[i], vg);
        if (want && !name_in(full, out, n))
            out[n++] = (char *)full;
    }
    lvx_cmd_unload(&load);
    *out_count = n;
    return out;
}

/* A PV of u's VG in the report of PVs that -S selects (true without -S); a selection
 * that cannot be applied selects nothing (its message printed once per PV). */
static bool pv_selected(struct lvx_cmd_env *env, struct lvx_vg_update *u, const struct lvx_pv *pv)
{
    if (!select_expr(env))
        return true;
    struct lvx_report_value *v;
    unsigned rows, cols;
    char id[LVX_UUID_DASHED_LEN + 1];
    if (selected_rows(env, LVX_REPORT_PVS, "pv_uuid", &u->vg, 1, &v, &rows, &cols) < 0) {
        lvx_cmd_errorf("%s", env->ctx->errmsg);
        return false;
    }
    lvx_uuid_format(pv->uuid, id);
    for (unsigned r = 0; r < rows; r++)
        if (v[r * cols].str && !strcmp(v[r * cols].str, id))
            return true;
    return false;
}

static int max_rc(int a, int b)
{
    return a > b ? a : b;
}

/* ---- VGs ------------------------------------------------------------------------ */

static int one_vg(struct lvx_cmd_env *env, const char *name, const struct lvx_tk_vg_ops *ops)
{
    struct lvx_vg_update u;
    int rc = lvx_vgcmd_begin(env, name, ops->update_flags, &u);
    if (rc) {
        lvx_cmdlog_status(rc);
        return rc;
    }
    bool commit = false;
    rc = ops->vg(env, &u, &commit, ops->arg);
    if (commit) {
        int r = lvx_vgcmd_commit(env, &u);
        if (r)
            rc = r;
        else if (ops->done)
            rc = max_rc(rc, ops->done(env, &u, ops->arg));
    }
    lvx_vg_update_end(&u);
    lvx_cmdlog_status(rc);
    return rc;
}

int lvx_process_vg_names(struct lvx_cmd_env *env, char **names, unsigned count,
                         const struct lvx_tk_vg_ops *ops)
{
    int rc = 0;
    for (unsigned i = 0; i < count; i++)
        rc = max_rc(rc, one_vg(env, names[i], ops));
    return rc;
}

int lvx_process_each_vg(struct lvx_cmd_env *env, const struct lvx_tk_vg_ops *ops)
{
    unsigned count;
    char **names = lvx_cmd_vg_names(env, &count);    /* the arguments, tags, or all VGs */
    if (!names || !(names = lvx_tk_select_vgs(env, names, count, &count)))
        return LVX_EXIT_FAILED;
    return lvx_process_vg_names(env, names, count, ops);
}

/* ---- LVs ------------------------------------------------------------------------ */

/* One LV argument: "VG/LV" (or /dev forms) names one LV, "VG" all its visible LVs.  Begins
 * the VG update and lists the LVs in *lvs (env->pool, a copy: callbacks may remove LVs
 * while it is walked).  0 (with *missing set and a message printed when the named LV is
 * not there), or the exit code (no update left open). */
/* The command log's object: LV lv (or one named name that is not there) of vg; the VG
 * itself with lv and name NULL. */
static void log_lv_object(const struct lvx_vg *vg, const struct lvx_lv *lv, const char *name)
{
    if (!lvx_cmdlog_on())
        return;
    char vgid[LVX_UUID_DASHED_LEN + 1], id[LVX_UUID_DASHED_LEN + 1] = "";
    lvx_uuid_format(vg->uuid, vgid);
    if (lv)
        lvx_uuid_format(lv->uuid, id);
    if (lv || name)
        lvx_cmdlog_object("lv", lv ? lv->name : name, id, vg->name, vgid);
    else
        lvx_cmdlog_object("vg", vg->name, vgid, NULL, NULL);
}

static int begin_lv_arg(struct lvx_cmd_env *env, const char *arg, const struct lvx_tk_lv_ops *ops,
                        struct lvx_vg_update *u, struct lvx_lv ***lvs, unsigned *n, bool *missing)
{
    const char *vgname, *lvname;
    int rc;

    *n = 0;
    *missing = false;
    if (!lvx_lvcmd_split_name(env, arg, &vgname, &lvname)) {
        lvx_cmd_errorf("Invalid logical volume name \"%s\".", arg);
        return LVX_EXIT_INVALID;
    }
    if ((rc = lvx_lvcmd_begin_flags(env, vgname, ops->update_flags, u))) {
        lvx_cmdlog_status(rc);
        return rc;
    }
    lvx_cmdlog_object_done();          /* the LVs are the objects now, the VG's line last */
    *lvs = lvx_pool_alloc(env->pool, (u->vg->lv_count + 1) * sizeof(**lvs));
    if (lvname) {
        struct lvx_lv *lv = lvx_vg_find_lv(u->vg, lvname);
        if (lv)
            (*lvs)[(*n)++] = lv;
        else if (!ops->gone_ok) {
            log_lv_object(u->vg, NULL, lvname);
            lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", vgname, lvname);
            lvx_cmdlog_status(LVX_EXIT_FAILED);
            *missing = true;
        }
        return 0;
    }
    /* LVM2's process_each_lv_in_vg: thin pools first (each put in front of the list, so
     * the last one first), then the other LVs in the VG's order */
    for (unsigned i = u->vg->lv_count; i-- > 0;)
        if (lvx_lv_is_visible(u->vg->lvs[i]) && lvx_lv_is_thin_pool(u->vg->lvs[i]))
            (*lvs)[(*n)++] = u->vg->lvs[i];
    for (unsigned i = 0; i < u->vg->lv_count; i++)
        if (lvx_lv_is_visible(u->vg->lvs[i]) && !lvx_lv_is_thin_pool(u->vg->lvs[i]))
            (*lvs)[(*n)++] = u->vg->lvs[i];
    return 0;
}

static int one_lv_arg(struct lvx_cmd_env *env, const char *arg, const struct lvx_tk_lv_ops *ops)
{
    struct lvx_vg_update u;
    struct lvx_lv **lvs;
    unsigned n, changed = 0;
    bool failed;
    int rc = begin_lv_arg(env, arg, ops, &u, &lvs, &n, &failed);
    if (rc)
        return rc;
    for (unsigned i = 0; i < n; i++) {
        log_lv_object(u.vg, lvs[i], NULL);
        int r = ops->lv(env, lvs[i], ops->arg);
        if (r > 0)
            lvs[changed++] = lvs[i];
        else if (r < 0)
            failed = true;
    }
    if (changed && (rc = lvx_lvcmd_commit(env, &u))) {
        lvx_vg_update_end(&u);
        lvx_cmdlog_status(rc);
        return rc;
    }
    if (changed && ops->done && ops->done(env, lvs, changed, ops->arg))
        failed = true;
    /* LVM2's order: a removed LV's VG line before the unlock's messages, a changed
     * LV's line (and its VG's) after them */
    bool gone = lvx_cmdlog_lv_gone();
    char vgid[LVX_UUID_DASHED_LEN + 1] = "";
    const char *vgname = lvx_pool_strdup(env->pool, u.vg->name);
    if (lvx_cmdlog_on())
        lvx_uuid_format(u.vg->uuid, vgid);
    if (gone) {
        lvx_cmdlog_object("vg", vgname, vgid, NULL, NULL);
        lvx_cmdlog_status(failed ? LVX_EXIT_FAILED : 0);
    }
    lvx_vg_update_end(&u);
    if (!gone) {
        lvx_cmdlog_status(failed ? LVX_EXIT_FAILED : 0);     /* the last LV's */
        lvx_cmdlog_object("vg", vgname, vgid, NULL, NULL);
        lvx_cmdlog_status(failed ? LVX_EXIT_FAILED : 0);
    }
    return failed ? LVX_EXIT_FAILED : 0;
}

/* Is args[i] an LV another argument covers (its VG named, or the same name earlier)?
 * LVM2 processes each LV once, whatever names it. */
static bool covered(char **args, unsigned count, unsigned i)
{
    const char *a = lvx_vgcmd_skip_dev_dir(args[i]);
    const char *slash = strchr(a, '/');
    for (unsigned j = 0; j < count; j++) {
        const char *b = lvx_vgcmd_skip_dev_dir(args[j]);
        if (j < i && strcmp(a, b) == 0)
            return true;
        if (j != i && slash && !strchr(b, '/') && strlen(b) == (size_t)(slash - a) &&
            strncmp(a, b, (size_t)(slash - a)) == 0)
            return true;
    }
    return false;
}

int lvx_process_lv_args(struct lvx_cmd_env *env, char **args, unsigned count,
                        const struct lvx_tk_lv_ops *ops)
{
    int rc = 0;
    for (unsigned i = 0; i < count; i++)
        if (!covered(args, count, i))
            rc = max_rc(rc, one_lv_arg(env, args[i], ops));
    return rc;
}

int lvx_process_each_lv(struct lvx_cmd_env *env, const struct lvx_tk_lv_ops *ops)
{
    lvx_tk_default_vg_names(env);
    int rc = lvx_lvcmd_check_names(env);
    if (rc)
        return rc;
    unsigned count;
    char **args = lvx_cmd_lv_args(env, &count);          /* "@tag": the LVs with the tag */
    if (!args)
        return LVX_EXIT_FAILED;
    return lvx_process_lv_args(env, args, count, ops);
}

/* ---- PVs ------------------------------------------------------------------------ */

/* The named PVs of one VG, in one update committed once per PV changed, as LVM2's
 * pvchange and pvresize write the VG for each PV (seqno +1 each, each write archived),
 * each PV's line right after its write. */
static void one_pv_vg(struct lvx_cmd_env *env, const char *vgname, const struct lvx_pvcmd_targets *t,
                      const struct lvx_tk_pv_ops *ops, struct lvx_pvcmd_count *cnt)
{
    struct lvx_vg_update u;
    if (lvx_vgcmd_begin(env, vgname, 0, &u)) {
        cnt->failed = true;
        return;
    }
    bool test = env->args->count[LVX_OPT_TEST] > 0;
    for (unsigned i = 0; i < t->pv_count; i++) {
        struct lvx_pv *pv = lvx_vg_find_pv_uuid(u.vg, t->pv_uuids[i]);
        if (!pv || !pv_selected(env, &u, pv))
            continue;           /* the PV is in another VG (or left this one), or not selected */
        int r = ops->vg_pv(env, &u, t->pv_names[i], pv, ops->arg);
        if (r < 0)
            cnt->failed = true;
        if (r <= 0) {
            if (ops->say_unchanged)
                lvx_notice(env->ctx, "Physical volume %s not changed", t->pv_names[i]);
            cnt->unchanged++;
            continue;
        }
        if (lvx_tk_commit(env, &u, lvx_pvcmd_command_line(env))) {
            cnt->failed = true;
            cnt->unchanged++;
            break;              /* the change stays in memory: no later write of this VG */
        }
        if (!test)
            lvx_vg_update_archive_next(env->ctx, &u);   /* LVM2's archive before each write */
        r = test || !ops->committed_pv ? 1 : ops->committed_pv(env, &u, t->pv_names[i], pv,
                                                                ops->arg);
        if (r < 1)
            cnt->failed = true;
        if (r < 0) {
            cnt->unchanged++;
            continue;
        }
        if (ops->backup_warning_first)
            lvx_vg_backup_warning(env->ctx);
        lvx_notice(env->ctx, "Physical volume \"%s\" changed", t->pv_names[i]);
        cnt->changed++;
    }
    lvx_vg_update_end(&u);
}

int lvx_process_each_pv(struct lvx_cmd_env *env, const struct lvx_tk_pv_ops *ops,
                        struct lvx_pvcmd_count *cnt)
{
    struct lvx_pvcmd_targets t;
    bool failed = false;
    int rc = lvx_pvcmd_classify(env, env->args->argv, (unsigned)env->args->argc, ops->all, &t,
                                &failed);
    if (rc)
        return rc;
    for (unsigned i = 0; i < t.vg_count; i++)
        one_pv_vg(env, t.vg_names[i], &t, ops, cnt);
    if (t.orphan_count && !select_expr(env))      /* -S: PVs of VGs only (lvx) */
        lvx_pvcmd_change_orphans(env, &t, ops->orphan, ops->arg, cnt);
    cnt->failed |= failed;
    return 0;
}
