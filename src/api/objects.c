/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * api/objects.c - the object level of the public API (include/lvx.h): VG handles,
 * their properties, PV and LV lists, and LV changes.
 *
 * How: open and refresh read the VG as `vgs VG` does in a session (no lock; the scan
 * through the session's cache; warnings to the log callback, once) and take properties
 * and lists from the report code's rows and getters (lvx_report_values(): the vgs / pvs
 * / lvs fields, hidden LVs left out as lvs without -a, lv_attr with the kernel state
 * lvs shows), so they are exactly what the commands report, without printing or parsing
 * text.  Changes run the lvcreate / lvextend / lvremove / lvchange commands in-process
 * with built argument vectors (no shell quoting involved) and turn their exit code and
 * message into a negative errno; each change locks the VG, re-reads it and commits,
 * like the command.
 */
#include "api/api.h"
#include "activate/activate.h"
#include "cmd/actcmd.h"
#include "cmd/commands.h"
#include "dev/io.h"
#include "meta/read.h"
#include "meta/scan.h"
#include "report/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lvx_vg_handle {
    lvx_handle *h;
    char *name;
    bool writable;
    struct lvx_pool *pool;           /* properties and lists; replaced by each refresh */
    struct lvx_vg_info info;
    struct lvx_pv_info *pvs;
    unsigned pv_count;
    struct lvx_lv_info *lvs;
    unsigned lv_count;
};

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---- reading the VG ------------------------------------------------------------------ */

/* The context a command of the handle's session gets (cmd/dispatch.c): the session's log
 * sink (warnings and errors reach the user's callback, errors are remembered), the I/O
 * seam from the environment, the scan cache and the configuration override. */
static void session_ctx(lvx_handle *h, struct lvx_ctx *ctx)
{
    const struct lvx_run_opts *o = &h->session.run;
    lvx_ctx_init(ctx);
    ctx->log_fn = o->log_fn;
    ctx->log_arg = o->log_arg;
    ctx->io = o->io;                          /* NULL: the default seam */
    ctx->cache = o->cache;
    ctx->config_override = o->config_override;
    ctx->log_level = o->log_level ? o->log_level : LVX_LOG_NOTICE;
}

/* An error as the vgs command prints it: to the log sink (which remembers it as the
 * handle's message), with the errno lvx_run() gives a failed command with that message. */
static int fail_logged(lvx_handle *h, struct lvx_ctx *ctx, const char *msg)
{
    if (ctx->log_fn)
        ctx->log_fn(ctx->log_arg, LVX_LOG_ERROR, msg);
    else
        lvx_api_fail(h, EIO, "%s", msg);
    h->err = lvx_api_errno_of(h, LVX_EXIT_FAILED);
    return h->err;
}

/* The cells of one report over the VG (api/objects.c's fields, report/report.h). */
struct cells {
    struct lvx_report_value *v;
    unsigned rows, cols;
};

static int report_cells(lvx_vg_handle *vg, struct lvx_ctx *ctx, struct lvx_cmd_env *env,
                        enum lvx_report_kind kind, const char *fields, struct lvx_vg *model,
                        unsigned want_cols, struct cells *c)
{
    struct lvx_report_opts opts = { .fields = fields };
    if (kind == LVX_REPORT_LVS)
        lvx_actcmd_report_hook(env, &opts);     /* kernel state, as lvs (lv_attr) */
    if (lvx_report_values(ctx, vg->pool, kind, &opts, &model, 1, &c->v, &c->rows, &c->cols) < 0)
        return fail_logged(vg->h, ctx, ctx->errmsg);
    if (c->cols != want_cols)
        return lvx_api_fail(vg->h, EIO, "Internal error: %u report fields for %u", c->cols,
                            want_cols);
    return 0;
}

static const char *str(const struct lvx_report_value *v)
{
    return v->str ? v->str : "";
}

static int fill_vg(lvx_vg_handle *vg, struct lvx_ctx *ctx, struct lvx_cmd_env *env,
                   struct lvx_vg *model)
{
    static const char vg_fields[] = "vg_name,vg_uuid,vg_attr,vg_size,vg_free,vg_extent_size,"
                                    "vg_extent_count,vg_free_count,pv_count,lv_count,vg_seqno";
    static const char pv_fields[] = "pv_name,pv_uuid,vg_name,pv_attr,pv_size,pv_free,"
                                    "pv_pe_count,pv_pe_alloc_count";
    static const char lv_fields[] = "lv_name,lv_uuid,vg_name,lv_attr,lv_path,lv_size";
    struct cells c;

    int r = report_cells(vg, ctx, env, LVX_REPORT_VGS, vg_fields, model, 11, &c);
    if (r < 0)
        return r;
    if (c.rows != 1)
        return lvx_api_fail(vg->h, EIO, "Internal error: %u rows for one VG", c.rows);
    const struct lvx_report_value *f = c.v;
    vg->info = (struct lvx_vg_info){ .name = str(&f[0]), .uuid = str(&f[1]), .attr = str(&f[2]),
                                     .size = f[3].num, .free = f[4].num,
                                     .extent_size = f[5].num, .extent_count = f[6].num,
                                     .free_count = f[7].num, .pv_count = f[8].num,
                                     .lv_count = f[9].num, .seqno = f[10].num };

    if ((r = report_cells(vg, ctx, env, LVX_REPORT_PVS, pv_fields, model, 8, &c)) < 0)
        return r;
    vg->pvs = lvx_pool_alloc(vg->pool, (c.rows + 1) * sizeof(*vg->pvs));
    for (unsigned i = 0; i < c.rows; i++) {
        f = &c.v[(size_t)i * c.cols];
        vg->pvs[vg->pv_count++] = (struct lvx_pv_info){
            .name = str(&f[0]), .uuid = str(&f[1]), .vg_name = str(&f[2]), .attr = str(&f[3]),
            .size = f[4].num, .free = f[5].num, .pe_count = f[6].num,
            .pe_alloc_count = f[7].num };
    }

    if ((r = report_cells(vg, ctx, env, LVX_REPORT_LVS, lv_fields, model, 6, &c)) < 0)
        return r;
    vg->lvs = lvx_pool_alloc(vg->pool, (c.rows + 1) * sizeof(*vg->lvs));
    for (unsigned i = 0; i < c.rows; i++) {
        f = &c.v[(size_t)i * c.cols];
        vg->lvs[vg->lv_count++] = (struct lvx_lv_info){
            .name = str(&f[0]), .uuid = str(&f[1]), .vg_name = str(&f[2]), .attr = str(&f[3]),
            .path = str(&f[4]), .size = f[5].num };
    }
    return 0;
}

/* Read the VG as `vgs VG` does (cmd/vgs.c: lvx_cmd_load, lvx_cmd_pick_vgs): no lock,
 * scan and assemble (the session's cache; the device index without one), the VG by name
 * or "not found"; the assembly's warnings go to the log callback once. */
static int load_vg(lvx_vg_handle *vg)
{
    lvx_handle *h = vg->h;
    struct lvx_ctx ctx;
    const char *names[] = { vg->name };
    struct lvx_scan_opts opts = { .vg_names = names, .vg_name_count = 1 };
    struct lvx_scan *scan = NULL;
    struct lvx_vgset *set = NULL;
    struct lvx_pool *scratch = lvx_pool_create();
    struct lvx_cmd_env env;
    int r;

    if (vg->pool)
        lvx_pool_destroy(vg->pool);
    vg->pool = lvx_pool_create();
    vg->pvs = NULL;
    vg->lvs = NULL;
    vg->pv_count = vg->lv_count = 0;
    memset(&vg->info, 0, sizeof(vg->info));

    session_ctx(h, &ctx);
    env = (struct lvx_cmd_env){ .ctx = &ctx, .pool = scratch };
    if (lvx_scan_assemble(&ctx, &opts, &scan, &set) < 0) {
        r = fail_logged(h, &ctx, ctx.errmsg[0] ? ctx.errmsg : "vgs failed.");
    } else {
        struct lvx_vg *model = lvx_vgset_find(set, vg->name);
        if (model) {
            r = fill_vg(vg, &ctx, &env, model);
        } else {
            char msg[sizeof(h->errmsg)];
            snprintf(msg, sizeof(msg), "Volume group \"%s\" not found", vg->name);
            r = fail_logged(h, &ctx, msg);
        }
    }
    if (set)
        lvx_vgset_free(set);
    if (scan)
        lvx_scan_free(scan);
    lvx_pool_destroy(scratch);
    return r;
}

lvx_vg_handle *lvx_vg_open(lvx_handle *h, const char *vgname, const char *mode)
{
    lvx_api_begin(h);
    if (!vgname || !*vgname) {
        lvx_api_fail(h, EINVAL, "No volume group name given.");
        return NULL;
    }
    if (!mode || (strcmp(mode, "r") != 0 && strcmp(mode, "w") != 0)) {
        lvx_api_fail(h, EINVAL, "Invalid open mode \"%s\": use \"r\" or \"w\".", mode ? mode : "");
        return NULL;
    }
    lvx_vg_handle *vg = lvx_xcalloc(1, sizeof(*vg));
    vg->h = h;
    vg->name = lvx_xstrdup(vgname);
    vg->writable = mode[0] == 'w';
    if (load_vg(vg) < 0) {
        lvx_vg_close(vg);
        return NULL;
    }
    if (vg->writable && (vg->info.attr[0] != 'w' || vg->info.attr[2] == 'x')) {
        lvx_api_fail(h, EPERM, "Volume group %s is %s.", vgname,
                     vg->info.attr[2] == 'x' ? "exported" : "read-only");
        lvx_vg_close(vg);
        return NULL;
    }
    h->open_vgs++;
    return vg;
}

void lvx_vg_close(lvx_vg_handle *vg)
{
    if (!vg)
        return;
    if (vg->pool) {
        lvx_pool_destroy(vg->pool);
        if (vg->h->open_vgs)
            vg->h->open_vgs--;
    }
    free(vg->name);
    free(vg);
}

int lvx_vg_refresh(lvx_vg_handle *vg)
{
    lvx_api_begin(vg->h);
    return load_vg(vg);
}

int lvx_vg_get_info(lvx_vg_handle *vg, const struct lvx_vg_info **info)
{
    lvx_api_begin(vg->h);
    *info = &vg->info;
    return 0;
}

int lvx_vg_list_pvs(lvx_vg_handle *vg, const struct lvx_pv_info **pvs, unsigned *count)
{
    lvx_api_begin(vg->h);
    *pvs = vg->pvs;
    *count = vg->pv_count;
    return 0;
}

int lvx_vg_list_lvs(lvx_vg_handle *vg, const struct lvx_lv_info **lvs, unsigned *count)
{
    lvx_api_begin(vg->h);
    *lvs = vg->lvs;
    *count = vg->lv_count;
    return 0;
}

/* ---- changes ------------------------------------------------------------------------ */

/* Run a change command; on success reload the lists. */
static int change(lvx_vg_handle *vg, const char *const *argv, int argc)
{
    lvx_handle *h = vg->h;
    lvx_api_begin(h);
    if (!vg->writable)
        return lvx_api_fail(h, EPERM, "Volume group %s was opened read-only.", vg->name);
    struct lvx_buf out = LVX_BUF_INIT;      /* "Logical volume ... created." etc. */
    int rc = lvx_api_exec(h, argc, argv, &out);
    lvx_buf_free(&out);
    if (rc != LVX_EXIT_OK)
        return lvx_errno(h);
    int r = load_vg(vg);
    if (r == 0)
        lvx_api_begin(h);
    return r;
}

static bool lv_name_ok(lvx_handle *h, const char *lvname)
{
    if (!lvname || !*lvname || strchr(lvname, '/')) {
        lvx_api_fail(h, EINVAL, "Invalid logical volume name \"%s\".", lvname ? lvname : "");
        return false;
    }
    return true;
}

int lvx_lv_create_linear(lvx_vg_handle *vg, const char *lvname, uint64_t size)
{
    if (!lv_name_ok(vg->h, lvname))
        return vg->h->err;
    if (size == 0)
        return lvx_api_fail(vg->h, EINVAL, "Size may not be zero.");
    char sz[32];
    uint64_t sectors = (size + 511) / 512;
    snprintf(sz, sizeof(sz), "%" PRIu64 "s", sectors);
    const char *argv[] = { "lvcreate", "-an", "-Zn", "-y", "--type", "linear", "-n", lvname,
                           "-L", sz, vg->name };
    return change(vg, argv, ARRAY_LEN(argv));
}

static const char *lv_full(lvx_vg_handle *vg, const char *lvname, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", vg->name, lvname);
    return buf;
}

int lvx_lv_extend(lvx_vg_handle *vg, const char *lvname, uint64_t new_size)
{
    char full[512], sz[32];
    if (!lv_name_ok(vg->h, lvname))
        return vg->h->err;
    snprintf(sz, sizeof(sz), "%" PRIu64 "s", (new_size + 511) / 512);
    const char *argv[] = { "lvextend", "-L", sz, lv_full(vg, lvname, full, sizeof(full)) };
    return change(vg, argv, ARRAY_LEN(argv));
}

int lvx_lv_remove(lvx_vg_handle *vg, const char *lvname)
{
    char full[512];
    if (!lv_name_ok(vg->h, lvname))
        return vg->h->err;
    const char *argv[] = { "lvremove", "-f", lv_full(vg, lvname, full, sizeof(full)) };
    return change(vg, argv, ARRAY_LEN(argv));
}

static int set_active(lvx_vg_handle *vg, const char *lvname, bool on)
{
    char full[512];
    if (!lv_name_ok(vg->h, lvname))
        return vg->h->err;
    /* lvchange -a succeeds doing nothing under global/activation = 0 (as LVM2's); the
     * API says so instead (include/lvx.h) */
    struct lvx_ctx c;
    lvx_ctx_init(&c);
    c.config_override = vg->h->config;
    if (!lvx_activation_enabled(&c))
        return lvx_api_fail(vg->h, ENOTSUP,
                            "Activation is turned off (lvm.conf global/activation = 0).");
    const char *argv[] = { "lvchange", on ? "-ay" : "-an", lv_full(vg, lvname, full, sizeof(full)) };
    return change(vg, argv, ARRAY_LEN(argv));
}

int lvx_lv_activate(lvx_vg_handle *vg, const char *lvname)
{
    return set_active(vg, lvname, true);
}

int lvx_lv_deactivate(lvx_vg_handle *vg, const char *lvname)
{
    return set_active(vg, lvname, false);
}
