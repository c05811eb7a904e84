/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_report.c - the report engine (report/report.h).
 *
 * Expected values come from LVM2 2.03.16 itself: the JSON reports stored in the
 * fixture manifests (every field of every scenario, compared after scanning the
 * rebuilt images), and outputs of the real `lvm` binary run on the same fixture
 * images attached to loop devices (default columns, separators, json layout, sort
 * order, selections, units).  The loop device names in those outputs are the
 * fixture's own creation-time names for p04 (/dev/loop1..4), so they match.
 * lvx_report_values() (the object API's reader) is checked against lvx_report() itself:
 * every field of every row, as values and as printed.
 */
#include "tap.h"

#include "report/report.h"
#include "meta/read.h"
#include "format/vg_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

/* ---- fixtures: rebuild, scan, give PVs the manifest's device names ---------- */

struct loaded {
    struct lvx_scan *scan;
    struct lvx_vgset *set;
    char *manifest;
};

static void quiet_log(void *arg, int level, const char *msg)
{
    (void)arg;
    (void)level;
    tap_diag("log: %s", msg);
}

static void ctx_setup(struct lvx_ctx *ctx)
{
    lvx_ctx_init(ctx);
    ctx->log_fn = quiet_log;
    ctx->log_level = LVX_LOG_ERROR;
}

/* "/dev/loopN" that the manifest maps to disk (device_to_pv), or NULL; caller frees */
static char *device_of_disk(const char *manifest, const char *disk)
{
    const char *map = strstr(manifest, "\"device_to_pv\"");
    char pat[64];
    snprintf(pat, sizeof(pat), "\": \"%s\"", disk);
    const char *hit = map ? strstr(map, pat) : NULL;
    if (!hit)
        return NULL;
    const char *start = hit;
    while (start > map && start[-1] != '"')
        start--;
    return strndup(start, (size_t)(hit - start));
}

static bool load_scenario(struct lvx_ctx *ctx, const char *scen, struct loaded *l)
{
    memset(l, 0, sizeof(*l));
    size_t len;
    l->manifest = fixture_read_file(scen, "manifest.json", &len);
    const char *const *disks = fixture_disks(scen);
    static char paths[8][512];
    const char *pp[8];
    unsigned n = 0;
    for (; disks[n] && n < 8; n++) {
        snprintf(paths[n], sizeof(paths[n]), "%s/%.3s-%s.img", tmpdir, scen, disks[n]);
        if (fixture_build_image(scen, disks[n], paths[n]) != 0)
            return false;
        pp[n] = paths[n];
    }
    struct lvx_scan_opts opts = { .devices = pp, .device_count = n };
    if (lvx_scan(ctx, &opts, &l->scan) != 0 || lvx_scan_vgs(ctx, l->scan, &l->set) != 0) {
        tap_diag("%s: %s", scen, ctx->errmsg);
        return false;
    }
    /* report PVs under the names LVM2 saw when it wrote the manifest */
    for (unsigned g = 0; g < l->set->vg_count; g++) {
        struct lvx_vg *vg = l->set->vgs[g];
        for (unsigned p = 0; p < vg->pv_count; p++) {
            struct lvx_pv *pv = vg->pvs[p];
            for (unsigned d = 0; d < n; d++)
                if (pv->ondisk.dev_name && strcmp(pv->ondisk.dev_name, paths[d]) == 0) {
                    char *dev = device_of_disk(l->manifest, disks[d]);
                    if (dev)
                        pv->ondisk.dev_name = lvx_pool_strdup(vg->pool, dev);
                    free(dev);
                }
        }
    }
    for (unsigned d = 0; d < n; d++)
        unlink(paths[d]);
    return true;
}

static void unload(struct loaded *l)
{
    if (l->set)
        lvx_vgset_free(l->set);
    if (l->scan)
        lvx_scan_free(l->scan);
    free(l->manifest);
}

/* ---- the manifest's reports: rows of "key": "value" ---------------------------- */

struct mrow {
    unsigned n;
    char *key[32];
    char *val[32];
};

/* rows of reports.<name> (each row one {...} object); returns the row count */
static unsigned manifest_rows(const char *manifest, const char *name, struct mrow *rows,
                              unsigned max)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\": {", name);
    const char *p = strstr(strstr(manifest, "\"reports\""), pat);
    if (!p)
        return 0;
    p = strchr(p, '[');             /* "report": [ */
    p = p ? strchr(p + 1, '[') : NULL;   /* "pv": [ */
    unsigned count = 0;
    while (p && count < max) {
        p++;
        while (*p == ' ' || *p == '\n' || *p == ',')
            p++;
        if (*p != '{')
            break;
        const char *end = strchr(p, '}');
        struct mrow *r = &rows[count++];
        r->n = 0;
        const char *q = p;
        while (r->n < 32) {
            const char *k = strchr(q, '"');
            if (!k || k > end)
                break;
            const char *ke = strchr(k + 1, '"');
            const char *v = strchr(ke + 1, '"');
            const char *ve = strchr(v + 1, '"');
            r->key[r->n] = strndup(k + 1, (size_t)(ke - k - 1));
            r->val[r->n] = strndup(v + 1, (size_t)(ve - v - 1));
            r->n++;
            q = ve + 1;
        }
        p = end;
    }
    return count;
}

static void free_rows(struct mrow *rows, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned k = 0; k < rows[i].n; k++) {
            free(rows[i].key[k]);
            free(rows[i].val[k]);
        }
}

/* ---- running reports ------------------------------------------------------------- */

static int run(struct lvx_ctx *ctx, enum lvx_report_kind kind, const struct lvx_report_opts *o,
               struct lvx_vg *const *vgs, unsigned nvg, struct lvx_pv *const *orph, unsigned norph,
               struct lvx_buf *out)
{
    lvx_buf_reset(out);
    lvx_error_clear(ctx);
    return lvx_report(ctx, kind, o, vgs, nvg, orph, norph, out);
}

/* split line `i` (0-based) of a "--noheadings --separator |" output into fields */
static unsigned split_line(const char *text, unsigned i, char **fields, unsigned max)
{
    const char *line = text;
    for (unsigned k = 0; k < i && line; k++) {
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    if (!line || !*line)
        return 0;
    const char *eol = strchr(line, '\n');
    char *copy = strndup(line, eol ? (size_t)(eol - line) : strlen(line));
    char *s = copy + (strncmp(copy, "  ", 2) == 0 ? 2 : 0);
    unsigned n = 0;
    for (char *tok = s; n < max;) {
        char *bar = strchr(tok, '|');
        if (bar)
            *bar = '\0';
        fields[n++] = strdup(tok);
        if (!bar)
            break;
        tok = bar + 1;
    }
    free(copy);
    return n;
}

static unsigned count_lines(const char *s)
{
    unsigned n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Compare one manifest report with ours, field by field. */
static void check_manifest_report(struct lvx_ctx *ctx, const char *scen, struct loaded *l,
                                  const char *report, enum lvx_report_kind kind, bool all)
{
    static struct mrow rows[160];
    unsigned nrows = manifest_rows(l->manifest, report, rows, 160);
    if (nrows == 0) {
        ok(0, "%s: manifest has rows for %s", scen, report);
        return;
    }
    char fields[1024] = "";
    for (unsigned k = 0; k < rows[0].n; k++) {
        if (k)
            strcat(fields, ",");
        strcat(fields, rows[0].key[k]);
    }
    struct lvx_report_opts o = { .fields = fields, .units = 'b', .nosuffix = true,
                                 .noheadings = true, .separator = "|", .all = all };
    struct lvx_buf out = LVX_BUF_INIT;
    int r = run(ctx, kind, &o, l->set->vgs, l->set->vg_count, l->set->orphans,
                l->set->orphan_count, &out);
    if (!is_int(r, 0, "%s %s: report runs (%s)", scen, report, ctx->errmsg)) {
        lvx_buf_free(&out);
        free_rows(rows, nrows);
        return;
    }
    is_int(count_lines(lvx_buf_str(&out)), nrows, "%s %s: LVM2's row count", scen, report);
    unsigned bad = 0;
    for (unsigned i = 0; i < nrows; i++) {
        char *got[32] = { 0 };
        unsigned n = split_line(lvx_buf_str(&out), i, got, 32);
        for (unsigned k = 0; k < rows[i].n; k++) {
            const char *g = k < n ? got[k] : "(missing)";
            if (strcmp(g, rows[i].val[k]) != 0) {
                if (bad++ < 10)
                    tap_diag("%s %s row %u %s: got '%s', LVM2 '%s'", scen, report, i,
                             rows[i].key[k], g, rows[i].val[k]);
            }
        }
        for (unsigned k = 0; k < n; k++)
            free(got[k]);
    }
    is_int(bad, 0, "%s %s: every field equals LVM2's", scen, report);
    lvx_buf_free(&out);
    free_rows(rows, nrows);
}

static void check_all_values(struct lvx_ctx *ctx, const char *scen, struct loaded *l);

static void test_manifests(void)
{
    for (const char *const *s = fixture_scenarios(); *s; s++) {
        struct lvx_ctx ctx;
        ctx_setup(&ctx);
        struct loaded l;
        if (!ok(load_scenario(&ctx, *s, &l), "%s: images scanned", *s)) {
            unload(&l);
            continue;
        }
        check_manifest_report(&ctx, *s, &l, "pvs", LVX_REPORT_PVS, false);
        check_manifest_report(&ctx, *s, &l, "vgs", LVX_REPORT_VGS, false);
        check_manifest_report(&ctx, *s, &l, "lvs", LVX_REPORT_LVS, true);
        check_manifest_report(&ctx, *s, &l, "segs", LVX_REPORT_SEGS, true);
        check_manifest_report(&ctx, *s, &l, "pvsegs", LVX_REPORT_PVSEGS, false);
        check_all_values(&ctx, *s, &l);      /* lvx_report_values() below */
        unload(&l);
    }
}

/* ---- layouts, checked against the real lvm on the p04/p08 images ----------------- */

static void expect_report(struct lvx_ctx *ctx, struct loaded *l, enum lvx_report_kind kind,
                          const struct lvx_report_opts *o, const char *want, const char *what)
{
    struct lvx_buf out = LVX_BUF_INIT;
    int r = run(ctx, kind, o, l->set->vgs, l->set->vg_count, NULL, 0, &out);
    is_int(r, 0, "%s runs", what);
    is_str(lvx_buf_str(&out), want, "%s", what);
    lvx_buf_free(&out);
}

static void test_layouts_p04(void)
{
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct loaded l;
    if (!ok(load_scenario(&ctx, "p04_pvmetadatacopies0_mixed", &l), "p04 loaded")) {
        unload(&l);
        return;
    }
    struct lvx_report_opts o = { 0 };
    expect_report(&ctx, &l, LVX_REPORT_PVS, &o,
                  "  PV         VG   Fmt  Attr PSize  PFree\n"
                  "  /dev/loop1 vg04 lvm2 a--  60.00m    0 \n"
                  "  /dev/loop2 vg04 lvm2 a--  60.00m    0 \n"
                  "  /dev/loop3 vg04 lvm2 a--  60.00m    0 \n"
                  "  /dev/loop4 vg04 lvm2 a--  60.00m    0 \n", "pvs default columns");
    o.separator = ",";
    expect_report(&ctx, &l, LVX_REPORT_PVS, &o,
                  "  PV,VG,Fmt,Attr,PSize,PFree\n"
                  "  /dev/loop1,vg04,lvm2,a--,60.00m,0 \n"
                  "  /dev/loop2,vg04,lvm2,a--,60.00m,0 \n"
                  "  /dev/loop3,vg04,lvm2,a--,60.00m,0 \n"
                  "  /dev/loop4,vg04,lvm2,a--,60.00m,0 \n", "pvs --separator ,");
    o.rows = true;
    expect_report(&ctx, &l, LVX_REPORT_PVS, &o,
                  "  PV,/dev/loop1,/dev/loop2,/dev/loop3,/dev/loop4\n"
                  "  VG,vg04,vg04,vg04,vg04\n"
                  "  Fmt,lvm2,lvm2,lvm2,lvm2\n"
                  "  Attr,a--,a--,a--,a--\n"
                  "  PSize,60.00m,60.00m,60.00m,60.00m\n"
                  "  PFree,0 ,0 ,0 ,0 \n", "pvs --rows --separator ,");
    memset(&o, 0, sizeof(o));
    o.noheadings = true;
    o.nosuffix = true;
    o.units = 'm';
    expect_report(&ctx, &l, LVX_REPORT_PVS, &o,
                  "  /dev/loop1 vg04 lvm2 a--  60.00     0\n"
                  "  /dev/loop2 vg04 lvm2 a--  60.00     0\n"
                  "  /dev/loop3 vg04 lvm2 a--  60.00     0\n"
                  "  /dev/loop4 vg04 lvm2 a--  60.00     0\n", "pvs --noheadings --nosuffix --units m");
    memset(&o, 0, sizeof(o));
    o.noheadings = true;
    o.nameprefixes = true;
    o.fields = "pv_name,pv_free";
    expect_report(&ctx, &l, LVX_REPORT_PVS, &o,
                  "  LVM2_PV_NAME='/dev/loop1' LVM2_PV_FREE='0 '\n"
                  "  LVM2_PV_NAME='/dev/loop2' LVM2_PV_FREE='0 '\n"
                  "  LVM2_PV_NAME='/dev/loop3' LVM2_PV_FREE='0 '\n"
                  "  LVM2_PV_NAME='/dev/loop4' LVM2_PV_FREE='0 '\n", "pvs --nameprefixes");
    memset(&o, 0, sizeof(o));
    o.separator = "|";
    o.aligned = true;
    o.fields = "pv_name,pv_free,pv_used";
    expect_report(&ctx, &l, LVX_REPORT_PVS, &o,
                  "  PV        |PFree|Used  \n"
                  "  /dev/loop1|   0 |60.00m\n"
                  "  /dev/loop2|   0 |60.00m\n"
                  "  /dev/loop3|   0 |60.00m\n"
                  "  /dev/loop4|   0 |60.00m\n", "pvs --separator | --aligned");
    memset(&o, 0, sizeof(o));
    expect_report(&ctx, &l, LVX_REPORT_PVSEGS, &o,
                  "  PV         VG   Fmt  Attr PSize  PFree Start SSize\n"
                  "  /dev/loop1 vg04 lvm2 a--  60.00m    0      0    12\n"
                  "  /dev/loop1 vg04 lvm2 a--  60.00m    0     12     3\n"
                  "  /dev/loop2 vg04 lvm2 a--  60.00m    0      0    15\n"
                  "  /dev/loop3 vg04 lvm2 a--  60.00m    0      0    15\n"
                  "  /dev/loop4 vg04 lvm2 a--  60.00m    0      0    15\n", "pvs --segments default");
    o.fields = "lv_name,lv_size,seg_count,lv_attr";
    o.units = 'k';
    expect_report(&ctx, &l, LVX_REPORT_LVS, &o,
                  "  LV      LSize      #Seg Attr      \n"
                  "  lv_a     49152.00k    1 -wi-XX----\n"
                  "  lv_span 196608.00k    4 -wi-XX----\n", "lvs --units k");
    memset(&o, 0, sizeof(o));
    o.json = true;
    expect_report(&ctx, &l, LVX_REPORT_VGS, &o,
                  "  {\n"
                  "      \"report\": [\n"
                  "          {\n"
                  "              \"vg\": [\n"
                  "                  {\"vg_name\":\"vg04\", \"pv_count\":\"4\", \"lv_count\":\"2\", "
                  "\"snap_count\":\"0\", \"vg_attr\":\"wz--n-\", \"vg_size\":\"240.00m\", "
                  "\"vg_free\":\"0 \"}\n"
                  "              ]\n"
                  "          }\n"
                  "      ]\n"
                  "  }\n", "vgs --reportformat json");
    o.select = "lv_name=nothing";
    expect_report(&ctx, &l, LVX_REPORT_LVS, &o,
                  "  {\n"
                  "      \"report\": [\n"
                  "          {\n"
                  "              \"lv\": [\n"
                  "              ]\n"
                  "          }\n"
                  "      ]\n"
                  "  }\n", "json with no rows");
    o.json = false;
    expect_report(&ctx, &l, LVX_REPORT_LVS, &o, "", "columns with no rows print nothing");
    unload(&l);
}

/* lvs -a and lvs -a --segments on p08 (every segment type), as the real lvm prints them */
static const char p08_lvs[] =
    "  LV              VG   Attr       LSize  Pool Origin Data%  Meta%  Move Log       Cpy%Sync Convert\n"
    "  [lvol0_pmspare] vg08 ewi-XX----  4.00m                                                          \n"
    "  m1              vg08 mwi-XXm---  8.00m                                [m1_mlog]                 \n"
    "  [m1_mimage_0]   vg08 Iwi-XXm---  8.00m                                                          \n"
    "  [m1_mimage_1]   vg08 Iwi-XXm---  8.00m                                                          \n"
    "  [m1_mlog]       vg08 lwi-XXm---  4.00m                                                          \n"
    "  orig            vg08 owi-XXs---  8.00m                                                          \n"
    "  r0              vg08 rwi-XXr-X- 16.00m                                                          \n"
    "  [r0_rimage_0]   vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r0_rimage_1]   vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  r1              vg08 rwi-XXr-X-  8.00m                                                          \n"
    "  r10             vg08 rwi-XXr-X- 16.00m                                                          \n"
    "  [r10_rimage_0]  vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r10_rimage_1]  vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r10_rimage_2]  vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r10_rimage_3]  vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r10_rmeta_0]   vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r10_rmeta_1]   vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r10_rmeta_2]   vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r10_rmeta_3]   vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r1_rimage_0]   vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r1_rimage_1]   vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r1_rmeta_0]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r1_rmeta_1]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  r5              vg08 rwi-XXr-X- 16.00m                                                          \n"
    "  [r5_rimage_0]   vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r5_rimage_1]   vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r5_rimage_2]   vg08 Iwi-XXr-X-  8.00m                                                          \n"
    "  [r5_rmeta_0]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r5_rmeta_1]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r5_rmeta_2]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  r6              vg08 rwi-XXr-X- 12.00m                                                          \n"
    "  [r6_rimage_0]   vg08 Iwi-XXr-X-  4.00m                                                          \n"
    "  [r6_rimage_1]   vg08 Iwi-XXr-X-  4.00m                                                          \n"
    "  [r6_rimage_2]   vg08 Iwi-XXr-X-  4.00m                                                          \n"
    "  [r6_rimage_3]   vg08 Iwi-XXr-X-  4.00m                                                          \n"
    "  [r6_rimage_4]   vg08 Iwi-XXr-X-  4.00m                                                          \n"
    "  [r6_rmeta_0]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r6_rmeta_1]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r6_rmeta_2]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r6_rmeta_3]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  [r6_rmeta_4]    vg08 ewi-XXr-X-  4.00m                                                          \n"
    "  snap            vg08 swi-XXs---  4.00m      orig                                                \n"
    "  thin1           vg08 Vwi-XXtz-- 32.00m tp                                                       \n"
    "  thin1_snap      vg08 Vwi-XXtz-k 32.00m tp   thin1                                               \n"
    "  tp              vg08 twi-XXtz-- 16.00m                                                          \n"
    "  [tp_tdata]      vg08 Twi-XX---- 16.00m                                                          \n"
    "  [tp_tmeta]      vg08 ewi-XX----  4.00m                                                          \n";

static const char p08_vgs[] =
    "  VG   #PV #LV #SN Attr   VSize   VFree  \n"
    "  vg08   5  11   1 wz--n- 620.00m 400.00m\n";

static const char p08_segs_head[] =
    "  LV              VG   Attr       #Str Type      SSize \n"
    "  [lvol0_pmspare] vg08 ewi-XX----    1 linear     4.00m\n"
    "  m1              vg08 mwi-XXm---    2 mirror     8.00m\n";

/* names printed by `lvs -a -o lv_name --noheadings -S <expr> vg08` (real lvm) */
static const struct {
    const char *expr;
    const char *names;
} selections[] = {
    { "lv_size>8", "r0 r10 r5 r6 thin1 thin1_snap tp [tp_tdata]" },
    { "lv_size>8m && lv_size<=16m", "r0 r10 r5 r6 tp [tp_tdata]" },
    { "lv_name=~^r[0-9]$", "r0 r1 r5 r6" },
    { "lv_name=~\"^r1\"", "r1 r10 [r10_rimage_0] [r10_rimage_1] [r10_rimage_2] [r10_rimage_3] "
                          "[r10_rmeta_0] [r10_rmeta_1] [r10_rmeta_2] [r10_rmeta_3] [r1_rimage_0] "
                          "[r1_rimage_1] [r1_rmeta_0] [r1_rmeta_1]" },
    { "name=m1", "m1" },
    { "lv_name=m1_mimage_0", "[m1_mimage_0]" },
    { "vg_name=vg08 && (lv_name=r1 || lv_name=r5)", "r1 r5" },
    { "!(lv_attr=~^[Ie])", "m1 [m1_mlog] orig r0 r1 r10 r5 r6 snap thin1 thin1_snap tp [tp_tdata]" },
    { "segtype=thin", "thin1 thin1_snap" },
    { "origin=orig || pool_lv=tp", "snap thin1 thin1_snap" },
    { "lv_attr=~^.w && lv_size>=16m, segtype!=linear", "r0 r10 r5 thin1 thin1_snap tp" },
    { "lv_size<5000k && lv_name!~_", "snap" },
    { "lv_read_ahead=auto && size=32", "thin1 thin1_snap" },
    { "lv_tags=\"\" && lv_name=~snap", "snap thin1_snap" },
    { "lv_size = 12m # lv_size = 4m && lv_name =~ pmspare", "[lvol0_pmspare] r6" },
    { "lv_major=-1 && seg_count>1", "" },
    { "mirror_log=m1_mlog", "m1" },
    { "lv_parent=m1", "[m1_mimage_0] [m1_mimage_1] [m1_mlog]" },
    { "lv_name=\"[m1_mlog]\"", "" },
};

static void test_p08(void)
{
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct loaded l;
    if (!ok(load_scenario(&ctx, "p08_segtype_zoo", &l), "p08 loaded")) {
        unload(&l);
        return;
    }
    struct lvx_report_opts o = { .all = true };
    expect_report(&ctx, &l, LVX_REPORT_LVS, &o, p08_lvs, "lvs -a default columns (p08)");
    memset(&o, 0, sizeof(o));
    expect_report(&ctx, &l, LVX_REPORT_VGS, &o, p08_vgs, "vgs default columns (p08)");

    struct lvx_buf out = LVX_BUF_INIT;
    o.all = true;
    is_int(run(&ctx, LVX_REPORT_SEGS, &o, l.set->vgs, 1, NULL, 0, &out), 0, "lvs --segments runs");
    ok(strncmp(lvx_buf_str(&out), p08_segs_head, strlen(p08_segs_head)) == 0,
       "lvs -a --segments default columns (p08)");

    /* selections */
    for (size_t i = 0; i < sizeof(selections) / sizeof(selections[0]); i++) {
        struct lvx_report_opts s = { .all = true, .noheadings = true, .separator = " ",
                                     .fields = "lv_name", .select = selections[i].expr };
        int r = run(&ctx, LVX_REPORT_LVS, &s, l.set->vgs, 1, NULL, 0, &out);
        struct lvx_buf names = LVX_BUF_INIT;
        for (const char *p = lvx_buf_str(&out); *p;) {
            const char *eol = strchr(p, '\n');
            if (names.len)
                lvx_buf_putc(&names, ' ');
            lvx_buf_append(&names, p + 2, (size_t)(eol - p - 2));
            p = eol + 1;
        }
        ok(r == 0 && strcmp(lvx_buf_str(&names), selections[i].names) == 0, "-S '%s'",
           selections[i].expr);
        if (r != 0 || strcmp(lvx_buf_str(&names), selections[i].names) != 0)
            tap_diag("got '%s' (%s)", lvx_buf_str(&names), ctx.errmsg);
        lvx_buf_free(&names);
    }

    /* sorting: -O -lv_size,lv_name gives non-increasing sizes, names ascending on ties */
    struct lvx_report_opts s = { .noheadings = true, .separator = "|", .units = 's',
                                 .nosuffix = true, .fields = "lv_size,lv_name",
                                 .sort = "-lv_size,lv_name" };
    is_int(run(&ctx, LVX_REPORT_LVS, &s, l.set->vgs, 1, NULL, 0, &out), 0, "sorted report runs");
    unsigned long long prev = ~0ULL;
    char prev_name[64] = "";
    bool sorted = true;
    unsigned rows = 0;
    for (const char *p = lvx_buf_str(&out); *p; rows++) {
        unsigned long long size = strtoull(p + 2, NULL, 10);
        const char *bar = strchr(p, '|'), *eol = strchr(p, '\n');
        char name[64];
        snprintf(name, sizeof(name), "%.*s", (int)(eol - bar - 1), bar + 1);
        if (size > prev || (size == prev && strcmp(name, prev_name) < 0))
            sorted = false;
        prev = size;
        snprintf(prev_name, sizeof(prev_name), "%s", name);
        p = eol + 1;
    }
    ok(sorted && rows == 11, "-O -lv_size,lv_name orders the 11 visible LVs");
    /* LVM2's tie order for -O -lv_size: thin pools first, then metadata order */
    s.fields = "lv_name";
    s.sort = "-lv_size";
    s.separator = " ";
    s.select = "lv_size=16m";
    is_int(run(&ctx, LVX_REPORT_LVS, &s, l.set->vgs, 1, NULL, 0, &out), 0, "tie order runs");
    is_str(lvx_buf_str(&out), "  tp\n  r5\n  r10\n  r0\n", "-O -lv_size keeps LVM2's order on ties");

    /* report type follows the fields: lvs with a segment field lists segments */
    struct lvx_report_opts t = { .noheadings = true, .fields = "lv_name,seg_size_pe",
                                 .select = "lv_name=r6" };
    is_int(run(&ctx, LVX_REPORT_LVS, &t, l.set->vgs, 1, NULL, 0, &out), 0, "lvs -o seg field");
    is_str(lvx_buf_str(&out), "  r6       3\n", "lvs -o lv_name,seg_size_pe");
    lvx_buf_free(&out);
    unload(&l);
}

/* ---- hand-built: an orphan PV (values of a 32 MiB pvcreate'd loop device, printed
 * by the real lvm), and a VG with a missing PV (attribute letters of lvs(8)/pvs(8)) */

static struct lvx_pv *orphan_pv(struct lvx_pool *pool)
{
    struct lvx_pv *pv = lvx_pool_alloc(pool, sizeof(*pv));
    memcpy(pv->uuid, "8AYXoY1eM3JWd5VuO0kZ20Mgqa0o6vYP", LVX_UUID_LEN);
    pv->ondisk.present = true;
    pv->ondisk.dev_name = "/dev/loop13";
    pv->ondisk.dev_bytes = 33554432;
    pv->ondisk.hdr_device_size = 33554432;
    pv->ondisk.hdr_pe_start = 1048576;
    pv->ondisk.ext_version = 2;
    pv->ondisk.mda_count = 1;
    pv->ondisk.mda[0].start = 4096;
    pv->ondisk.mda[0].size = 1044480;
    pv->ondisk.mda[0].text_size = 256;
    return pv;
}

static void test_orphan_and_missing(void)
{
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_pv *orphan = orphan_pv(pool);
    struct lvx_buf out = LVX_BUF_INIT;
    struct lvx_report_opts o = { 0 };
    is_int(run(&ctx, LVX_REPORT_PVS, &o, NULL, 0, &orphan, 1, &out), 0, "orphan pvs runs");
    is_str(lvx_buf_str(&out),
           "  PV          VG Fmt  Attr PSize  PFree \n"
           "  /dev/loop13    lvm2 ---  32.00m 32.00m\n", "orphan PV in pvs");
    is_int(run(&ctx, LVX_REPORT_PVSEGS, &o, NULL, 0, &orphan, 1, &out), 0, "orphan pvsegs runs");
    is_str(lvx_buf_str(&out),
           "  PV          VG Fmt  Attr PSize  PFree  Start SSize\n"
           "  /dev/loop13    lvm2 ---  32.00m 32.00m     0     0\n", "orphan PV in pvs --segments");
    o.fields = "pv_name,vg_name,pv_attr,pv_size,pv_free,pv_used,pe_start,pv_pe_count,vg_attr,"
               "vg_size,vg_extent_size,lv_count,vg_mda_copies,pv_in_use";
    is_int(run(&ctx, LVX_REPORT_PVS, &o, NULL, 0, &orphan, 1, &out), 0, "orphan VG fields run");
    is_str(lvx_buf_str(&out),
           "  PV          VG Attr PSize  PFree  Used 1st PE  PE  Attr   VSize Ext #LV #VMdaCps  PInUse\n"
           "  /dev/loop13    ---  32.00m 32.00m   0    1.00m   0 r-----    0   0    0 unmanaged       \n",
           "orphan PV with VG fields");
    o.fields = "dev_size,pv_mda_size,pv_mda_free";
    o.units = 'b';
    is_int(run(&ctx, LVX_REPORT_PVS, &o, NULL, 0, &orphan, 1, &out), 0, "orphan mda fields run");
    is_str(lvx_buf_str(&out),
           "  DevSize   PMdaSize  PMdaFree \n"
           "  33554432B  1044480B   521216B\n", "orphan PV metadata area fields");

    /* a VG whose second PV was not found */
    struct lvx_vg *vg = lvx_vg_new(pool);
    vg->name = "vgm";
    vg->extent_size = 8192;
    vg->status = LVX_VG_READ | LVX_VG_WRITE | LVX_VG_RESIZEABLE;
    vg->alloc = LVX_ALLOC_NORMAL;
    struct lvx_pv *pv0 = lvx_vg_add_pv(vg), *pv1 = lvx_vg_add_pv(vg);
    pv0->status = pv1->status = LVX_PV_ALLOCATABLE;
    pv0->pe_count = pv1->pe_count = 10;
    pv0->ondisk.present = true;
    pv0->ondisk.dev_name = "/dev/sda";
    struct lvx_lv *lv = lvx_vg_add_lv(vg);
    lv->name = "data";
    lv->status = LVX_LV_READ | LVX_LV_WRITE | LVX_LV_VISIBLE;
    lv->seg_count = 1;
    lv->segs = lvx_pool_alloc(pool, sizeof(*lv->segs));
    struct lvx_seg *seg = &lv->segs[0];
    seg->lv = lv;
    seg->extent_count = 4;
    seg->type = seg->type_name = "striped";
    seg->kind = LVX_SEG_STRIPED;
    seg->stripe_count = seg->area_count = 2;
    seg->stripe_size = 128;
    seg->areas = lvx_pool_alloc(pool, 2 * sizeof(*seg->areas));
    seg->areas[0].pv = pv0;
    seg->areas[1].pv = pv1;
    seg->areas[1].start = 3;
    lv->le_count = 4;
    struct lvx_report_opts m = { .noheadings = true, .separator = "|",
                                 .fields = "pv_name,pv_attr,vg_attr,pv_free,vg_missing_pv_count" };
    is_int(run(&ctx, LVX_REPORT_PVS, &m, &vg, 1, NULL, 0, &out), 0, "missing PV report runs");
    is_str(lvx_buf_str(&out),
           "  /dev/sda|a--|wz-pn-|32.00m|1\n"
           "  [unknown]|a-m|wz-pn-|32.00m|1\n", "missing PV: [unknown], m and p attributes");
    m.fields = "lv_name,lv_attr,seg_pe_ranges,devices,stripes,stripe_size";
    is_int(run(&ctx, LVX_REPORT_SEGS, &m, &vg, 1, NULL, 0, &out), 0, "missing PV segs run");
    is_str(lvx_buf_str(&out),
           "  data|-wi-XX--p-|/dev/sda:0-1 [unknown]:3-4|/dev/sda(0),[unknown](3)|2|64.00k\n",
           "partial LV: health p, areas of extent_count/stripes");
    m.fields = "pv_name,pvseg_start,pvseg_size,lv_name,segtype";
    is_int(run(&ctx, LVX_REPORT_PVSEGS, &m, &vg, 1, NULL, 0, &out), 0, "pvsegs run");
    is_str(lvx_buf_str(&out),
           "  /dev/sda|0|2|data|striped\n"
           "  /dev/sda|2|8||free\n"
           "  [unknown]|0|3||free\n"
           "  [unknown]|3|2|data|striped\n"
           "  [unknown]|5|5||free\n", "free runs around used runs");
    lvx_buf_free(&out);
    lvx_pool_destroy(pool);
}

/* ---- errors ------------------------------------------------------------------------- */

static void expect_error(enum lvx_report_kind kind, const struct lvx_report_opts *o,
                         const char *msg, const char *what)
{
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = lvx_vg_new(pool);
    vg->name = "vg";
    vg->extent_size = 8192;
    struct lvx_buf out = LVX_BUF_INIT;
    int r = lvx_report(&ctx, kind, o, &vg, 1, NULL, 0, &out);
    is_int(r, -EINVAL, "%s: -EINVAL", what);
    is_str(ctx.errmsg, msg, "%s: message", what);
    is_int(out.len, 0, "%s: nothing printed", what);
    lvx_buf_free(&out);
    lvx_pool_destroy(pool);
}

static void test_errors(void)
{
    struct lvx_report_opts o = { .fields = "foo" };
    expect_error(LVX_REPORT_LVS, &o, "Unrecognised field: foo", "-o foo");
    o.fields = "+lv_name,bar";
    expect_error(LVX_REPORT_LVS, &o, "Unrecognised field: bar", "-o +lv_name,bar");
    o.fields = "lv_name,pv_name";
    expect_error(LVX_REPORT_LVS, &o,
                 "Can't report LV and PV fields at the same time in report type \"lv\".",
                 "lvs -o lv_name,pv_name");
    o.fields = "pv_name,lv_name";
    expect_error(LVX_REPORT_VGS, &o,
                 "Can't report LV and PV fields at the same time in report type \"vg\".",
                 "vgs -o pv_name,lv_name");
    o.fields = NULL;
    o.sort = "nosuch";
    expect_error(LVX_REPORT_VGS, &o, "Unrecognised field: nosuch", "-O nosuch");
    o.sort = NULL;
    o.units = 'x';
    expect_error(LVX_REPORT_VGS, &o, "Invalid units specification: x", "--units x");
    o.units = 0;

    static const struct { const char *expr, *msg; } bad[] = {
        { "foo=1", "Unrecognised selection field: foo" },
        { "(lv_name=a", "Syntax error: right parenthesis expected at ''" },
        { "lv_name=a)", "Selection syntax error at ')'." },
        { "lv_size>8x", "Selection syntax error at 'x'." },
        { "lv_name<5", "Operator can be used only with number, size, time or percent fields: lv_name<5" },
        { "lv_name", "Selection syntax error at 'lv_name'." },
        { "&& lv_name=a", "Selection syntax error at '&& lv_name=a'." },
        { "lv_name=~\"(\"", "Invalid regular expression '(' in selection." },
        { "lv_size=~1", "Regular expression not supported for size field lv_size in selection." },
        { "lv_name=\"a", "Selection syntax error: unterminated quote at '\"a'." },
        { "lv_tags=[a,b||c]", "Selection syntax error at 'c]'." },
        { "lv_size=big", "Selection syntax error at 'big'." },
        { "lv_name=~a && nosuch=1", "Unrecognised selection field: nosuch" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct lvx_report_opts s = { .select = bad[i].expr };
        char what[128];
        snprintf(what, sizeof(what), "-S '%s'", bad[i].expr);
        expect_error(LVX_REPORT_LVS, &s, bad[i].msg, what);
    }
    /* deep nesting is refused, not a stack overflow */
    char deep[4096];
    size_t n = 0;
    for (; n < 2000; n++)
        deep[n] = '(';
    snprintf(deep + n, sizeof(deep) - n, "lv_name=a");
    struct lvx_report_opts s = { .select = deep };
    expect_error(LVX_REPORT_LVS, &s, "Selection nested too deeply.", "-S with 2000 parentheses");
}

/* ---- units: values printed by the real lvm for loop devices of these sizes -------- */

static void test_units(void)
{
    static const struct {
        uint64_t sectors;
        char units;
        bool nosuffix;
        const char *want;
    } t[] = {
        { 3145728, 'r', false, "1.50g" },     /* 1.5 GiB exactly */
        { 3145727, 'r', false, "<1.50g" },    /* one sector less: rounded up, marked */
        { 3145727, 'h', false, "1.50g" },     /* h never marks */
        { 3145729, 'r', false, "1.50g" },     /* rounded down: no mark */
        { 2097151, 'r', false, "<1024.00m" }, /* below 1 GiB stays in MiB */
        { 10475520, 'r', false, "<5.00g" },
        { 1953125, 'r', false, "953.67m" },   /* 10^9 bytes */
        { 1953125, 'H', false, "1.00G" },
        { 1953124, 'H', false, "1000.00M" },
        { 1953124, 'R', false, "<1000.00M" },
        { 123459289, 'r', false, "<58.87g" },
        { 8192000, 'r', false, "<3.91g" },
        { 2147483648ULL, 'r', false, "1.00t" },
        { 1, 'h', false, "512b" },
        { 1, 'H', false, "512B" },
        { 1, 'r', true, "512b" },             /* human units keep their suffix */
        { 3145727, 'r', true, "<1.50g" },
        { 0, 'r', false, "0 " },
        { 0, 'r', true, "0" },
        { 0, 'k', false, "0k" },
        { 0, 'b', false, "0B" },
        { 0, 'S', false, "0S" },
        { 0, 'M', false, "0M" },
        { 3145727, 'k', false, "1572863.50k" },
        { 3145728, 'K', false, "1610612.74K" },
        { 3145728, 'b', false, "1610612736B" },
        { 3145728, 'B', true, "1610612736" },
        { 3145728, 's', false, "3145728S" },
        { 2097151, 'm', false, "1024.00m" },
        { 2048, 'g', false, "0.00g" },
        { 4096, 'M', true, "2.10" },
        { 3145728, 'e', false, "0.00e" },
        { 2147483648ULL, 'T', false, "1.10T" },
        { 131072, 'R', false, "<67.11M" },
        { 3145728, 0, false, "1.50g" },       /* 0 = LVM2's default units (r) */
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct lvx_buf b = LVX_BUF_INIT;
        lvx_report_format_size(&b, t[i].sectors, t[i].units, t[i].nosuffix, 0);
        is_str(lvx_buf_str(&b), t[i].want, "%llu sectors --units %c%s",
               (unsigned long long)t[i].sectors, t[i].units ? t[i].units : '0',
               t[i].nosuffix ? " --nosuffix" : "");
        lvx_buf_free(&b);
    }
}

/* ---- lvx_report_values(): the cells of lvx_report() as values -------------------- */

/* Every field of every row of `kind` (fields = "vg_all", ...) as values against the same
 * report printed with --units b --nosuffix --separator '|': texts equal, numbers and
 * sizes print as the text (sizes in bytes), blanks are "". */
static void check_values(struct lvx_ctx *ctx, const char *scen, struct loaded *l,
                         enum lvx_report_kind kind, const char *fields, bool all)
{
    struct lvx_report_opts o = { .fields = fields, .units = 'b', .nosuffix = true,
                                 .noheadings = true, .separator = "|", .all = all };
    struct lvx_buf out = LVX_BUF_INIT;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_report_value *v;
    unsigned rows, cols, bad = 0;
    int r = run(ctx, kind, &o, l->set->vgs, l->set->vg_count, NULL, 0, &out);
    int rv = lvx_report_values(ctx, pool, kind, &o, l->set->vgs, l->set->vg_count, &v, &rows,
                               &cols);
    if (is_int(r, 0, "%s %s: report runs", scen, fields) &&
        is_int(rv, 0, "%s %s: values run", scen, fields) &&
        is_int(rows, count_lines(lvx_buf_str(&out)), "%s %s%s: as many rows as the report",
               scen, fields, all ? " -a" : "")) {
        for (unsigned i = 0; i < rows; i++) {
            char *got[256] = { 0 };
            unsigned n = split_line(lvx_buf_str(&out), i, got, 256);
            if (n != cols && bad++ < 10)
                tap_diag("%s %s row %u: %u cells printed, %u values", scen, fields, i, n, cols);
            for (unsigned k = 0; k < cols && k < n; k++) {
                const struct lvx_report_value *x = &v[(size_t)i * cols + k];
                char num[2][32];
                snprintf(num[0], sizeof(num[0]), "%llu", (unsigned long long)x->num);
                snprintf(num[1], sizeof(num[1]), "%lld", (long long)x->num);
                bool same = x->blank ? got[k][0] == '\0' && !x->str
                          : x->str ? strcmp(x->str, got[k]) == 0
                                   : strcmp(num[0], got[k]) == 0 || strcmp(num[1], got[k]) == 0;
                if (!same && bad++ < 10)
                    tap_diag("%s %s row %u col %u: printed '%s', value '%s' / %s", scen,
                             fields, i, k, got[k], x->str ? x->str : "(number)", num[0]);
            }
            for (unsigned k = 0; k < n; k++)
                free(got[k]);
        }
        is_int(bad, 0, "%s %s%s: every value is what the report prints", scen, fields,
               all ? " -a" : "");
    }
    lvx_pool_destroy(pool);
    lvx_buf_free(&out);
}

static void check_all_values(struct lvx_ctx *ctx, const char *scen, struct loaded *l)
{
    check_values(ctx, scen, l, LVX_REPORT_VGS, "vg_all", false);
    check_values(ctx, scen, l, LVX_REPORT_PVS, "pv_all,vg_name", false);
    check_values(ctx, scen, l, LVX_REPORT_LVS, "lv_all,vg_name", false);
    check_values(ctx, scen, l, LVX_REPORT_LVS, "lv_all,vg_name", true);
}

static void test_values_errors(void)
{
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_report_value *v;
    unsigned rows, cols;
    struct lvx_report_opts o = { .fields = "vg_name,nosuchfield" };
    is_int(lvx_report_values(&ctx, pool, LVX_REPORT_VGS, &o, NULL, 0, &v, &rows, &cols), -EINVAL,
           "values: unknown field refused");
    ok(strstr(ctx.errmsg, "nosuchfield") != NULL, "values: ... with the report's message (%s)",
       ctx.errmsg);
    lvx_pool_destroy(pool);
}

int main(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/lvx-test-report-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_units();
    test_errors();
    test_orphan_and_missing();
    test_layouts_p04();
    test_p08();
    test_manifests();
    test_values_errors();
    rmdir(tmpdir);
    return tap_done();
}
