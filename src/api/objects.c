/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * api/objects.c - the object level of the public API (include/lvx.h): VG handles,
 * their properties, PV and LV lists, and LV changes.
 *
 * How: properties and lists come from the report code of vgs/pvs/lvs, run in-process
 * with the output captured (--noheadings --separator '|' --units b --nosuffix), so they
 * are exactly what the commands report.  Changes run the lvcreate / lvextend / lvremove
 * / lvchange commands in-process with built argument vectors (no shell quoting
 * involved) and turn their exit code and message into a negative errno; each change
 * locks the VG, re-reads it and commits, like the command.
 */
#include "api/api.h"
#include "activate/activate.h"
#include "cmd/commands.h"

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

#define SEP "|"
#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Run a report command, output captured into out.  0 or a negative errno. */
static int run_report(lvx_handle *h, const char *const *argv, int argc, struct lvx_buf *out)
{
    int rc = lvx_api_exec(h, argc, argv, out);
    return rc == LVX_EXIT_OK ? 0 : lvx_api_errno_of(h, rc);
}

/* Split a report row at '|' into exactly n fields (in pool).  false if the count differs. */
static bool split_row(struct lvx_pool *pool, const char *row, char **fields, unsigned n)
{
    while (*row == ' ')
        row++;
    char *copy = lvx_pool_strdup(pool, row);
    unsigned k = 0;
    for (char *p = copy; k < n; k++) {
        fields[k] = p;
        char *sep = strchr(p, '|');
        if (!sep)
            return k + 1 == n;
        *sep = '\0';
        p = sep + 1;
    }
    return false;
}

static uint64_t num(const char *s)
{
    return strtoull(s, NULL, 10);
}

/* Calls fn for each line of text. */
static int for_each_row(const struct lvx_buf *text, int (*fn)(lvx_vg_handle *, const char *),
                        lvx_vg_handle *vg)
{
    char *copy = lvx_xstrdup(lvx_buf_str(text));
    int r = 0;
    for (char *line = strtok(copy, "\n"); line && r == 0; line = strtok(NULL, "\n"))
        r = fn(vg, line);
    free(copy);
    return r;
}

static int bad_row(lvx_vg_handle *vg, const char *row)
{
    return lvx_api_fail(vg->h, EIO, "Internal error: unexpected report row \"%s\"", row);
}

static int vg_row(lvx_vg_handle *vg, const char *row)
{
    char *f[11];
    if (!split_row(vg->pool, row, f, 11))
        return bad_row(vg, row);
    struct lvx_vg_info *i = &vg->info;
    *i = (struct lvx_vg_info){ .name = f[0], .uuid = f[1], .attr = f[2], .size = num(f[3]),
                               .free = num(f[4]), .extent_size = num(f[5]),
                               .extent_count = num(f[6]), .free_count = num(f[7]),
                               .pv_count = num(f[8]), .lv_count = num(f[9]), .seqno = num(f[10]) };
    return 0;
}

static int pv_row(lvx_vg_handle *vg, const char *row)
{
    char *f[8];
    if (!split_row(vg->pool, row, f, 8))
        return bad_row(vg, row);
    if (strcmp(f[2], vg->name) != 0)
        return 0;      /* another VG's PV or an orphan */
    vg->pvs = lvx_pool_realloc(vg->pool, vg->pvs, vg->pv_count * sizeof(*vg->pvs),
                               (vg->pv_count + 1) * sizeof(*vg->pvs));
    vg->pvs[vg->pv_count++] = (struct lvx_pv_info){
        .name = f[0], .uuid = f[1], .vg_name = f[2], .attr = f[3], .size = num(f[4]),
        .free = num(f[5]), .pe_count = num(f[6]), .pe_alloc_count = num(f[7]) };
    return 0;
}

static int lv_row(lvx_vg_handle *vg, const char *row)
{
    char *f[6];
    if (!split_row(vg->pool, row, f, 6))
        return bad_row(vg, row);
    vg->lvs = lvx_pool_realloc(vg->pool, vg->lvs, vg->lv_count * sizeof(*vg->lvs),
                               (vg->lv_count + 1) * sizeof(*vg->lvs));
    vg->lvs[vg->lv_count++] = (struct lvx_lv_info){
        .name = f[0], .uuid = f[1], .vg_name = f[2], .attr = f[3], .path = f[4],
        .size = num(f[5]) };
    return 0;
}

#define REPORT_ARGS "--noheadings", "--separator", SEP, "--units", "b", "--nosuffix", "-o"

static int load_vg(lvx_vg_handle *vg)
{
    static const char vg_fields[] = "vg_name,vg_uuid,vg_attr,vg_size,vg_free,vg_extent_size,"
                                    "vg_extent_count,vg_free_count,pv_count,lv_count,vg_seqno";
    static const char pv_fields[] = "pv_name,pv_uuid,vg_name,pv_attr,pv_size,pv_free,"
                                    "pv_pe_count,pv_pe_alloc_count";
    static const char lv_fields[] = "lv_name,lv_uuid,vg_name,lv_attr,lv_path,lv_size";
    const char *vgs_argv[] = { "vgs", REPORT_ARGS, vg_fields, vg->name };
    const char *pvs_argv[] = { "pvs", REPORT_ARGS, pv_fields };
    const char *lvs_argv[] = { "lvs", REPORT_ARGS, lv_fields, vg->name };
    struct lvx_buf out = LVX_BUF_INIT;
    int r;

    if (vg->pool)
        lvx_pool_destroy(vg->pool);
    vg->pool = lvx_pool_create();
    vg->pvs = NULL;
    vg->lvs = NULL;
    vg->pv_count = vg->lv_count = 0;
    memset(&vg->info, 0, sizeof(vg->info));

    r = run_report(vg->h, vgs_argv, ARRAY_LEN(vgs_argv), &out);
    if (r == 0 && out.len == 0)
        r = lvx_api_fail(vg->h, ENOENT, "Volume group \"%s\" not found", vg->name);
    if (r == 0)
        r = for_each_row(&out, vg_row, vg);
    lvx_buf_reset(&out);
    if (r == 0)
        r = run_report(vg->h, pvs_argv, ARRAY_LEN(pvs_argv), &out);
    if (r == 0)
        r = for_each_row(&out, pv_row, vg);
    lvx_buf_reset(&out);
    if (r == 0)
        r = run_report(vg->h, lvs_argv, ARRAY_LEN(lvs_argv), &out);
    if (r == 0)
        r = for_each_row(&out, lv_row, vg);
    lvx_buf_free(&out);
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
