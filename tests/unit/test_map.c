/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_map.c - LV -> PV mapping and dm tables (map/).
 *
 * Every chunk of linear, 2/3/4/5-stripe and multi-segment LVs is mapped, by the
 * one-off lookup and by the prepared mapping the daemon serves with, and compared
 * with the formula of lvm2-format.md §13 written out independently here;
 * the run lengths must walk the LV chunk by chunk and the chunks of each stripe
 * must cover its PV area exactly once.  dm tables are compared with the examples
 * of §15 (built from the fixtures' backup files of LVM2) and with the example of
 * the issue (512 MiB, 4 x 256 KiB on four PVs).
 */
#include "map/map.h"
#include "format/vg_text.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Hand-built VGs                                                             */

static struct lvx_vg *mkvg(struct lvx_pool *pool, unsigned npv, uint32_t extent_size,
                           const uint64_t *pe_start)
{
    struct lvx_vg *vg = lvx_vg_new(pool);
    vg->name = "vgm";
    vg->extent_size = extent_size;
    for (unsigned i = 0; i < npv; i++) {
        struct lvx_pv *pv = lvx_vg_add_pv(vg);
        pv->status = LVX_PV_ALLOCATABLE;
        pv->pe_start = pe_start ? pe_start[i] : 2048;
        pv->pe_count = 1000;
        pv->ondisk.dev_major = 7;
        pv->ondisk.dev_minor = i;
    }
    return vg;
}

static struct lvx_lv *mklv(struct lvx_vg *vg, const char *name)
{
    struct lvx_lv *lv = lvx_vg_add_lv(vg);
    lv->name = name;
    return lv;
}

/* Append a striped segment: k stripes of `per_stripe` extents, stripe j on
 * pv[j] from PE pe[j]. */
static struct lvx_seg *add_seg(struct lvx_lv *lv, uint32_t k, uint32_t chunk, uint64_t per_stripe,
                               const unsigned *pv, const uint64_t *pe)
{
    lv->segs = lvx_pool_realloc(lv->vg->pool, lv->segs, lv->seg_count * sizeof(*lv->segs),
                                (lv->seg_count + 1) * sizeof(*lv->segs));
    struct lvx_seg *seg = &lv->segs[lv->seg_count++];
    seg->lv = lv;
    seg->start_extent = lv->le_count;
    seg->extent_count = per_stripe * k;
    seg->type = seg->type_name = "striped";
    seg->kind = LVX_SEG_STRIPED;
    seg->stripe_count = seg->area_count = k;
    seg->stripe_size = k > 1 ? chunk : 0;
    seg->areas = lvx_pool_alloc(lv->vg->pool, k * sizeof(*seg->areas));
    for (uint32_t j = 0; j < k; j++) {
        seg->areas[j].pv = lv->vg->pvs[pv[j]];
        seg->areas[j].start = pe[j];
    }
    lv->le_count += seg->extent_count;
    return seg;
}

/* ------------------------------------------------------------------------- */
/* The reference formula (§13), independent of map/                          */

struct ref_loc {
    const struct lvx_pv *pv;
    uint64_t pv_sector, len;
    uint32_t stripe;
    uint64_t row;
    const struct lvx_seg *seg;
};

static void ref_map(const struct lvx_lv *lv, uint64_t s, struct ref_loc *out)
{
    uint64_t e = lv->vg->extent_size;
    memset(out, 0, sizeof(*out));
    for (unsigned i = 0; i < lv->seg_count; i++) {
        const struct lvx_seg *seg = &lv->segs[i];
        uint64_t first = seg->start_extent * e, size = seg->extent_count * e;
        if (s < first || s >= first + size)
            continue;
        uint64_t x = s - first;
        out->seg = seg;
        if (seg->stripe_count == 1) {
            out->pv = seg->areas[0].pv;
            out->pv_sector = out->pv->pe_start + seg->areas[0].start * e + x;
            out->len = size - x;
            out->stripe = 0;
            out->row = 0;
            return;
        }
        uint64_t c = seg->stripe_size, chunk = x / c;
        uint32_t j = (uint32_t)(chunk % seg->stripe_count);
        out->stripe = j;
        out->row = chunk / seg->stripe_count;
        out->pv = seg->areas[j].pv;
        out->pv_sector = out->pv->pe_start + seg->areas[j].start * e + out->row * c + x % c;
        out->len = c - x % c;
        if (out->len > size - x)
            out->len = size - x;
        return;
    }
    out->seg = NULL;
}

/* Map every chunk of the LV (first, middle and last sector of each chunk) and
 * compare with the formula; walk the LV by run lengths; check each stripe's chunks
 * cover its area once.  Returns the number of disagreements. */
static unsigned check_every_chunk(const struct lvx_lv *lv)
{
    struct lvx_ctx ctx;
    unsigned bad = 0;
    uint64_t e = lv->vg->extent_size, total = lv->le_count * e;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_map_prepared *pm = NULL;
    lvx_ctx_init(&ctx);
    if (lvx_map_prepare(&ctx, pool, lv, 0, &pm) < 0 || lvx_map_prepared_sectors(pm) != total) {
        lvx_pool_destroy(pool);
        return 1000;
    }

    for (unsigned i = 0; i < lv->seg_count; i++) {
        const struct lvx_seg *seg = &lv->segs[i];
        uint64_t c = seg->stripe_count > 1 ? seg->stripe_size : seg->extent_count * e;
        uint64_t rows = seg->extent_count / seg->stripe_count * e / c;
        uint8_t *seen = calloc(seg->stripe_count * rows, 1);
        for (uint64_t x = 0; x < seg->extent_count * e; x += c) {
            uint64_t probes[3] = { x, x + c / 2, x + c - 1 };
            for (int p = 0; p < 3; p++) {
                uint64_t s = seg->start_extent * e + probes[p];
                struct lvx_map_loc got = { 0 };
                struct ref_loc want;
                ref_map(lv, s, &want);
                if (!want.seg) {
                    bad++;
                    continue;
                }
                if (lvx_map_lv_sector(&ctx, lv, s, &got) < 0 || got.kind != LVX_MAP_PV ||
                    got.pv != want.pv || got.pv_sector != want.pv_sector || got.len != want.len) {
                    if (bad++ < 5)
                        tap_diag("sector %llu: got pv%d:%llu+%llu, want pv%u:%llu+%llu",
                                 (unsigned long long)s, got.pv ? (int)got.pv->index : -1,
                                 (unsigned long long)got.pv_sector, (unsigned long long)got.len,
                                 want.pv->index, (unsigned long long)want.pv_sector,
                                 (unsigned long long)want.len);
                }
                struct lvx_map_loc prep = { 0 };
                if (lvx_map_prepared_lookup(pm, s, &prep) < 0 || prep.kind != got.kind ||
                    prep.pv != got.pv || prep.pv_sector != got.pv_sector || prep.len != got.len) {
                    if (bad++ < 5)
                        tap_diag("sector %llu: prepared mapping gives %llu+%llu",
                                 (unsigned long long)s, (unsigned long long)prep.pv_sector,
                                 (unsigned long long)prep.len);
                }
                /* inside the area the stripes list names */
                uint64_t a0 = want.pv->pe_start + seg->areas[want.stripe].start * e;
                uint64_t a1 = a0 + seg->extent_count / seg->stripe_count * e;
                if (got.pv_sector < a0 || got.pv_sector >= a1)
                    bad++;
                if (p == 0)
                    seen[want.stripe * rows + want.row]++;
            }
        }
        for (uint64_t r = 0; r < seg->stripe_count * rows; r++)
            bad += seen[r] != 1;
        free(seen);
    }
    /* walking by run lengths visits every chunk boundary and ends exactly at the end */
    uint64_t s = 0, steps = 0, want_steps = 0;
    for (unsigned i = 0; i < lv->seg_count; i++)
        want_steps += lv->segs[i].stripe_count > 1
                          ? lv->segs[i].extent_count * e / lv->segs[i].stripe_size : 1;
    while (s < total) {
        struct lvx_map_loc got;
        if (lvx_map_lv_sector(&ctx, lv, s, &got) < 0 || got.len == 0) {
            bad++;
            break;
        }
        s += got.len;
        steps++;
    }
    bad += s != total || steps != want_steps;
    /* the prepared walk takes the same steps and ends past the end */
    struct lvx_map_loc loc;
    for (s = 0, steps = 0; s < total && lvx_map_prepared_lookup(pm, s, &loc) == 0; s += loc.len)
        steps++;
    bad += s != total || steps != want_steps;
    bad += lvx_map_prepared_lookup(pm, total, &loc) != -ERANGE;
    lvx_pool_destroy(pool);
    return bad;
}

/* Partial activation: a stripe on a missing PV maps to error, the others still map. */
static void test_prepared_missing(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = mkvg(pool, 2, 8192, NULL);
    struct lvx_lv *lv = mklv(vg, "part");
    add_seg(lv, 2, 128, 4, (unsigned[]){ 0, 1 }, (uint64_t[]){ 0, 0 });
    vg->pvs[0]->ondisk.present = true;          /* pv0 found, pv1 missing */
    vg->pvs[1]->flags |= LVX_PVF_MISSING;
    struct lvx_ctx ctx;
    struct lvx_map_prepared *pm;
    struct lvx_map_loc a, b;
    lvx_ctx_init(&ctx);
    is_int(lvx_map_prepare(&ctx, pool, lv, LVX_MAP_MISSING_IS_ERROR, &pm), 0,
           "an LV with a missing PV prepares in partial mode");
    ok(lvx_map_prepared_lookup(pm, 0, &a) == 0 && a.kind == LVX_MAP_PV && a.pv == vg->pvs[0] &&
       a.len == 128, "chunk 0 (present PV) maps to pv0");
    ok(lvx_map_prepared_lookup(pm, 128, &b) == 0 && b.kind == LVX_MAP_ERROR && b.len == 128,
       "chunk 1 (missing PV) maps to error, one chunk long");
    is_int(lvx_map_prepare(&ctx, pool, lv, 0, &pm), 0, "without the flag it prepares too");
    ok(lvx_map_prepared_lookup(pm, 128, &b) == 0 && b.kind == LVX_MAP_PV && b.pv == vg->pvs[1],
       "... and maps to the PV (refused later, where a device is needed)");
    lv->segs[0].stripe_size = 0;
    ok(lvx_map_prepare(&ctx, pool, lv, 0, &pm) == -EINVAL && strstr(ctx.errmsg, "no stripe size"),
       "a malformed segment is refused once, at preparation: %s", ctx.errmsg);
    lvx_pool_destroy(pool);
}

static void test_brute_force(void)
{
    static const uint64_t starts[6] = { 2048, 384, 3072, 2432, 2048, 1 };
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = mkvg(pool, 6, 8192, starts);

    struct lvx_lv *lin = mklv(vg, "lin");
    add_seg(lin, 1, 0, 10, (unsigned[]){ 2 }, (uint64_t[]){ 3 });
    is_int(check_every_chunk(lin), 0, "linear: every sector probe matches §13");

    static const uint32_t chunks[3] = { 128, 256, 512 };
    for (uint32_t k = 2; k <= 4; k++) {
        for (int c = 0; c < 3; c++) {
            struct lvx_lv *lv = mklv(vg, "st");
            unsigned pvs[4] = { 3, 0, 5, 1 };
            uint64_t pes[4] = { 7, 0, 100, 42 };
            add_seg(lv, k, chunks[c], 6, pvs, pes);
            is_int(check_every_chunk(lv), 0, "%u stripes x %u KiB: every chunk where stripes "
                   "says", k, chunks[c] / 2);
        }
    }

    struct lvx_lv *multi = mklv(vg, "multi");
    add_seg(multi, 1, 0, 3, (unsigned[]){ 0 }, (uint64_t[]){ 200 });
    add_seg(multi, 3, 128, 4, (unsigned[]){ 1, 2, 3 }, (uint64_t[]){ 300, 301, 302 });
    add_seg(multi, 4, 256, 2, (unsigned[]){ 5, 4, 3, 2 }, (uint64_t[]){ 400, 401, 402, 403 });
    add_seg(multi, 1, 0, 5, (unsigned[]){ 4 }, (uint64_t[]){ 500 });
    add_seg(multi, 2, 512, 3, (unsigned[]){ 0, 1 }, (uint64_t[]){ 600, 610 });
    is_int(check_every_chunk(multi), 0, "5-segment LV (linear, 3x64k, 4x128k, linear, 2x256k)");

    /* general (division) path: chunk and stripe count not powers of two */
    struct lvx_vg *odd = mkvg(pool, 6, 24576, starts);
    struct lvx_lv *o3 = mklv(odd, "o3");
    add_seg(o3, 3, 384, 4, (unsigned[]){ 0, 1, 2 }, (uint64_t[]){ 1, 2, 3 });
    is_int(check_every_chunk(o3), 0, "3 stripes, 192 KiB chunks (division path)");
    struct lvx_lv *o5 = mklv(vg, "o5");
    add_seg(o5, 5, 128, 2, (unsigned[]){ 0, 1, 2, 3, 4 }, (uint64_t[]){ 9, 8, 7, 6, 5 });
    is_int(check_every_chunk(o5), 0, "5 stripes (non power of two stripe count)");
    lvx_pool_destroy(pool);
}

/* ------------------------------------------------------------------------- */
/* Tables: the spec's examples from LVM2's fixtures                           */

static struct lvx_vg *import_fixture(struct lvx_pool *pool, const char *scenario,
                                     const char *file)
{
    size_t len;
    struct lvx_ctx ctx;
    struct lvx_vg *vg = NULL;
    char *text = fixture_read_file(scenario, file, &len);
    lvx_ctx_init(&ctx);
    if (!text || lvx_vg_import_text(&ctx, pool, text, len, &vg) < 0) {
        tap_diag("import %s/%s: %s", scenario, file, text ? ctx.errmsg : "unreadable");
        vg = NULL;
    }
    free(text);
    /* the spec shows the PVs as 7:0, 7:1, ... in pv order */
    for (unsigned i = 0; vg && i < vg->pv_count; i++) {
        vg->pvs[i]->ondisk.dev_major = 7;
        vg->pvs[i]->ondisk.dev_minor = i;
    }
    return vg;
}

static void check_table(struct lvx_vg *vg, const char *lvname, const char *want, const char *what)
{
    struct lvx_ctx ctx;
    struct lvx_buf b = LVX_BUF_INIT;
    const struct lvx_lv *lv = vg ? lvx_vg_find_lv(vg, lvname) : NULL;
    lvx_ctx_init(&ctx);
    int r = lv ? lvx_map_dm_table(&ctx, lv, &b) : -ENOENT;
    ok(r == 0, "%s: table built%s%s", what, r ? ": " : "", r ? ctx.errmsg : "");
    is_str(lvx_buf_str(&b), want, "%s", what);
    if (lv)
        is_int(check_every_chunk(lv), 0, "%s: every chunk maps as §13 says", what);
    lvx_buf_free(&b);
}

static void test_spec_tables(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg02 = import_fixture(pool, "p02_striped4_256k", "backup-vg02.vg");
    check_table(vg02, "lv_stripe4", "0 65536 striped 4 512 7:0 10240 7:1 2048 7:2 2048 7:3 2048\n",
                "p02 lv_stripe4 (spec §15)");
    if (vg02) {
        /* §13 worked example */
        struct lvx_ctx ctx;
        struct lvx_map_loc m;
        const struct lvx_lv *lv = lvx_vg_find_lv(vg02, "lv_stripe4");
        lvx_ctx_init(&ctx);
        ok(lvx_map_lv_sector(&ctx, lv, 0, &m) == 0 && m.pv == vg02->pvs[0] && m.pv_sector == 10240 &&
           m.len == 512, "§13: LV sector 0 -> pv0 sector 10240, 512 sectors to the chunk end");
        ok(lvx_map_lv_sector(&ctx, lv, 511, &m) == 0 && m.pv == vg02->pvs[0] &&
           m.pv_sector == 10751 && m.len == 1, "§13: LV sector 511 -> pv0 sector 10751");
        ok(lvx_map_lv_sector(&ctx, lv, 512, &m) == 0 && m.pv == vg02->pvs[1] && m.pv_sector == 2048,
           "§13: LV sector 512 -> pv1 sector 2048");
        ok(lvx_map_lv_sector(&ctx, lv, 2048, &m) == 0 && m.pv == vg02->pvs[0] &&
           m.pv_sector == 10752, "§13: LV sector 2048 (chunk 4) -> pv0 sector 10752");
        struct lvx_io_hints h;
        ok(lvx_map_io_hints(&ctx, lv, &h) == 0 && h.io_min == 256 * 1024 &&
           h.io_opt == 1024 * 1024, "io hints: io_min = chunk, io_opt = chunk x 4");
        check_table(vg02, "lv_pad", "0 8192 linear 7:0 2048\n", "p02 lv_pad linear");
        ok(lvx_map_io_hints(&ctx, lvx_vg_find_lv(vg02, "lv_pad"), &h) == 0 && h.io_min == 0 &&
           h.io_opt == 0, "linear: no io hints");
    }

    struct lvx_vg *vg05 = import_fixture(pool, "p05_custom_mdasize_dataalignment",
                                         "backup-vg05.vg");
    check_table(vg05, "lv_s3", "0 49152 striped 3 128 7:0 3072 7:1 2432 7:2 384\n",
                "p05 lv_s3 (spec §15)");

    struct lvx_vg *vg06 = import_fixture(pool, "p06_multiseg_extended", "backup-vg06.vg");
    check_table(vg06, "lv_grow",
                "0 16384 linear 7:0 2048\n"
                "16384 16384 linear 7:1 2048\n"
                "32768 24576 linear 7:2 2048\n"
                "57344 16384 linear 7:0 34816\n"
                "73728 8192 linear 7:1 26624\n",
                "p06 lv_grow, five linear lines (spec §15)");

    /* segment types the mapper does not handle */
    struct lvx_vg *vg08 = import_fixture(pool, "p08_segtype_zoo", "backup-vg08.vg");
    static const char *const unsupported[][2] = {
        { "r1", "raid1" }, { "tp", "thin-pool" }, { "thin1", "thin" }, { "m1", "mirror" },
        { "r0", "raid0" },
    };
    for (unsigned i = 0; vg08 && i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
        struct lvx_ctx ctx;
        struct lvx_buf b = LVX_BUF_INIT;
        struct lvx_map_loc m;
        char quoted[64];
        const struct lvx_lv *lv = lvx_vg_find_lv(vg08, unsupported[i][0]);
        lvx_ctx_init(&ctx);
        snprintf(quoted, sizeof(quoted), "\"%s\"", unsupported[i][1]);
        ok(lv && lvx_map_dm_table(&ctx, lv, &b) == -ENOTSUP && strstr(ctx.errmsg, quoted),
           "%s: -ENOTSUP naming %s (%s)", unsupported[i][0], quoted, ctx.errmsg);
        is_str(lvx_buf_str(&b), "", "%s: no partial table", unsupported[i][0]);
        ok(lv && lvx_map_lv_sector(&ctx, lv, 0, &m) == -ENOTSUP, "%s: mapping refused too",
           unsupported[i][0]);
        lvx_buf_free(&b);
    }
    if (vg08) {
        /* the raid images are plain linear LVs */
        struct lvx_ctx ctx;
        struct lvx_buf b = LVX_BUF_INIT;
        lvx_ctx_init(&ctx);
        ok(lvx_map_dm_table(&ctx, lvx_vg_find_lv(vg08, "r1_rimage_0"), &b) == 0 &&
           strstr(lvx_buf_str(&b), " linear 7:") != NULL, "a raid image maps linearly");
        lvx_buf_free(&b);
    }
    lvx_pool_destroy(pool);
}

static int subdev_name(struct lvx_ctx *ctx, void *arg, const struct lvx_lv *sub,
                       struct lvx_buf *out)
{
    lvx_buf_puts(out, sub->name);
    return 0;
}

/* The raid line reads the segment's typed fields, as format/vg_import.c fills them from
 * LVM2's keys (min/max_recovery_rate, writebehind, data_offset, region_size). */
static void test_raid_line(void)
{
    static const char add[] = "min_recovery_rate = 100\nmax_recovery_rate = 2000\n"
                              "writebehind = 64\ndata_offset = 0\n";
    struct lvx_pool *pool = lvx_pool_create();
    size_t len;
    char *text = fixture_read_file("p08_segtype_zoo", "backup-vg08.vg", &len);
    const char *t1 = text ? strstr(text, "type = \"raid1\"") : NULL;
    const char *at = t1 ? strstr(t1, "region_size = 4096\n") : NULL;
    ok(at != NULL, "p08 has a raid1 segment with region_size");
    for (int pass = 0; at && pass < 2; pass++) {
        struct lvx_buf in = LVX_BUF_INIT, b = LVX_BUF_INIT;
        size_t cut = (size_t)(at - text) + strlen("region_size = 4096\n");
        lvx_buf_append(&in, text, cut);
        if (pass)
            lvx_buf_puts(&in, add);
        lvx_buf_puts(&in, text + cut);
        struct lvx_ctx ctx;
        struct lvx_vg *vg = NULL;
        lvx_ctx_init(&ctx);
        int r = lvx_vg_import_text(&ctx, pool, in.data, in.len, &vg);
        const struct lvx_lv *lv = r == 0 ? lvx_vg_find_lv(vg, "r1") : NULL;
        ok(lv != NULL, "raid1 text imports (pass %d) %s", pass, ctx.errmsg);
        /* text alone has no devices: its PVs are present as a scan would find them */
        for (unsigned i = 0; r == 0 && i < vg->pv_count; i++)
            vg->pvs[i]->ondisk.present = true;
        if (lv) {
            ok(lvx_map_raid_table(&ctx, &lv->segs[0], vg->extent_size, false, subdev_name, NULL,
                                  &b) == 0, "raid1 line (pass %d)", pass);
            is_str(lvx_buf_str(&b), pass
                   ? "0 16384 raid raid1 11 0 min_recovery_rate 100 max_recovery_rate 2000 "
                     "max_write_behind 64 region_size 4096 data_offset 0 2 r1_rmeta_0 "
                     "r1_rimage_0 r1_rmeta_1 r1_rimage_1\n"
                   : "0 16384 raid raid1 3 0 region_size 4096 2 r1_rmeta_0 r1_rimage_0 "
                     "r1_rmeta_1 r1_rimage_1\n",
                   "raid1 line %s", pass ? "with rates, write-behind, data_offset" : "plain");
            if (!pass) {    /* a reshape step: delta_disks and data_offset in the line
                             * only, in LVM2's order (guest, --stripes 4 of raid5) */
                struct lvx_seg *sg = (struct lvx_seg *)&lv->segs[0];
                sg->kernel_delta_disks = 1;
                sg->kernel_offset = true;
                sg->kernel_data_offset = 8192;
                lvx_buf_reset(&b);
                ok(lvx_map_raid_table(&ctx, sg, vg->extent_size, false, subdev_name, NULL,
                                      &b) == 0, "raid line of a reshape step");
                is_str(lvx_buf_str(&b), "0 16384 raid raid1 7 0 region_size 4096 delta_disks 1 "
                       "data_offset 8192 2 r1_rmeta_0 r1_rimage_0 r1_rmeta_1 r1_rimage_1\n",
                       "delta_disks and data_offset after region_size, params 7");
                struct lvx_buf t = LVX_BUF_INIT;
                sg->raw = NULL;     /* written from the typed fields, as after a reshape */
                lvx_vg_export_text(&t, vg, NULL, LVX_CFG_LAYOUT_FILE);
                ok(strstr(lvx_buf_str(&t), "device_count = 2") && !strstr(lvx_buf_str(&t), "delta") &&
                   !strstr(lvx_buf_str(&t), "data_offset"), "... and never in the metadata");
                lvx_buf_free(&t);
                sg->kernel_delta_disks = 0;
                sg->kernel_offset = false;
            }
            if (!pass) {    /* every PV gone: the images still named (the backend maps them
                             * over error devices, as LVM2) */
                for (unsigned i = 0; i < vg->pv_count; i++)
                    vg->pvs[i]->ondisk.present = false;
                lvx_buf_reset(&b);
                ok(lvx_map_raid_table(&ctx, &lv->segs[0], vg->extent_size, false, subdev_name,
                                      NULL, &b) == 0, "raid1 line with its PVs missing");
                is_str(lvx_buf_str(&b), "0 16384 raid raid1 3 0 region_size 4096 2 r1_rmeta_0 "
                       "r1_rimage_0 r1_rmeta_1 r1_rimage_1\n",
                       "missing images are named as LVM2 names them (not \"- -\")");
            }
        }
        lvx_buf_free(&b);
        lvx_buf_free(&in);
    }
    free(text);
    lvx_pool_destroy(pool);
}

/* The dm-mirror line of LVM2's mirror in p08 (disk log, region 1024), with nosync, and
 * with a core log (LVM2's lines, seen with dmsetup table in the VM: t0718). */
static void test_mirror_line(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    size_t len;
    char *text = fixture_read_file("p08_segtype_zoo", "backup-vg08.vg", &len);
    struct lvx_ctx ctx;
    struct lvx_vg *vg = NULL;
    lvx_ctx_init(&ctx);
    int r = text ? lvx_vg_import_text(&ctx, pool, text, len, &vg) : -1;
    struct lvx_lv *lv = r == 0 ? lvx_vg_find_lv(vg, "m1") : NULL;
    ok(lv && lvx_map_lv_is_mirror(lv), "p08's m1 is a mirror lvx activates %s", ctx.errmsg);
    ok(!lvx_map_lv_is_mirror(lvx_vg_find_lv(vg, "m1_mimage_0")), "its image is not");
    for (int pass = 0; lv && pass < 3; pass++) {
        struct lvx_buf b = LVX_BUF_INIT;
        if (pass == 2)
            lv->segs[0].log_lv = NULL;
        ok(lvx_map_mirror_table(&ctx, &lv->segs[0], vg->extent_size, pass == 1, subdev_name,
                                NULL, &b) == 0, "mirror line (pass %d)", pass);
        static const char *const want[] = {
            "0 16384 mirror disk 2 m1_mlog 1024 2 m1_mimage_0 0 m1_mimage_1 0 1 handle_errors\n",
            "0 16384 mirror disk 3 m1_mlog 1024 nosync 2 m1_mimage_0 0 m1_mimage_1 0 1 "
            "handle_errors\n",
            "0 16384 mirror core 1 1024 2 m1_mimage_0 0 m1_mimage_1 0 1 handle_errors\n",
        };
        is_str(lvx_buf_str(&b), want[pass], "mirror line: %s",
               pass == 0 ? "disk log" : pass == 1 ? "nosync" : "core log");
        lvx_buf_free(&b);
    }
    free(text);
    lvx_pool_destroy(pool);
}

/* The issue's example: 512 MiB, 4 stripes of 256 KiB, four PVs with pe_start 1 MiB. */
static void test_issue_example(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = mkvg(pool, 4, 8192, NULL);
    for (unsigned i = 0; i < 4; i++) {
        vg->pvs[i]->ondisk.dev_major = 254;
        vg->pvs[i]->ondisk.dev_minor = 16 * i;
    }
    struct lvx_lv *lv = mklv(vg, "lv512");
    add_seg(lv, 4, 512, 32, (unsigned[]){ 0, 1, 2, 3 }, (uint64_t[]){ 0, 0, 0, 0 });
    struct lvx_ctx ctx;
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_ctx_init(&ctx);
    ok(lvx_map_dm_table(&ctx, lv, &b) == 0, "issue example: table");
    is_str(lvx_buf_str(&b),
           "0 1048576 striped 4 512 254:0 2048 254:16 2048 254:32 2048 254:48 2048\n",
           "issue example: 512 MiB 4x256k");
    is_int(check_every_chunk(lv), 0, "issue example: every chunk");

    /* an image file PV (0:0) is named by its path */
    vg->pvs[2]->ondisk.dev_major = 0;
    vg->pvs[2]->ondisk.dev_minor = 0;
    vg->pvs[2]->ondisk.dev_name = "/tmp/disk3.img";
    lvx_buf_reset(&b);
    ok(lvx_map_dm_table(&ctx, lv, &b) == 0 &&
       !strcmp(lvx_buf_str(&b), "0 1048576 striped 4 512 254:0 2048 254:16 2048 "
                                "/tmp/disk3.img 2048 254:48 2048\n"),
       "0:0 device written as its path");
    vg->pvs[2]->ondisk.dev_name = NULL;
    lvx_buf_reset(&b);
    is_int(lvx_map_dm_table(&ctx, lv, &b), -ENODEV, "no device at all: -ENODEV");
    ok(strstr(ctx.errmsg, "pv2") != NULL, "message names the PV: %s", ctx.errmsg);
    vg->pvs[2]->ondisk.dev_minor = 32;
    vg->pvs[0]->ondisk.present = true;          /* pv0 found, pv1 missing */
    vg->pvs[1]->flags |= LVX_PVF_MISSING;
    is_int(lvx_map_dm_table(&ctx, lv, &b), -ENODEV, "missing PV: -ENODEV");
    vg->pvs[1]->flags = 0;
    lvx_buf_free(&b);
    lvx_pool_destroy(pool);
}

static void test_errors(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = mkvg(pool, 3, 8192, NULL);
    struct lvx_ctx ctx;
    struct lvx_map_loc m;
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_ctx_init(&ctx);

    struct lvx_lv *lv = mklv(vg, "l");
    add_seg(lv, 1, 0, 2, (unsigned[]){ 0 }, (uint64_t[]){ 0 });
    is_int(lvx_map_lv_sector(&ctx, lv, 16384, &m), -EINVAL, "sector beyond the LV");
    ok(strstr(ctx.errmsg, "beyond the end") != NULL, "message: %s", ctx.errmsg);
    ok(lvx_map_lv_sector(&ctx, lv, 16383, &m) == 0 && m.len == 1, "last sector maps, len 1");

    struct lvx_lv *bad = mklv(vg, "bad");
    struct lvx_seg *seg = add_seg(bad, 2, 128, 2, (unsigned[]){ 0, 1 }, (uint64_t[]){ 10, 10 });
    seg->stripe_size = 0;
    is_int(lvx_map_lv_sector(&ctx, bad, 0, &m), -EINVAL, "striped without stripe size");
    seg->stripe_size = 3000;
    is_int(lvx_map_dm_table(&ctx, bad, &b), -EINVAL, "stripe size not dividing the stripe");
    seg->stripe_size = 128;
    seg->area_count = 1;
    is_int(lvx_map_lv_sector(&ctx, bad, 0, &m), -EINVAL, "areas != stripes");
    seg->area_count = 2;
    seg->areas[1].lv = lv;
    seg->areas[1].pv = NULL;
    is_int(lvx_map_lv_sector(&ctx, bad, 0, &m), -ENOTSUP, "striped over LVs refused");

    struct lvx_lv *z = mklv(vg, "z");
    seg = add_seg(z, 1, 0, 2, (unsigned[]){ 0 }, (uint64_t[]){ 0 });
    seg->kind = LVX_SEG_ZERO;
    seg->type = seg->type_name = "zero";
    seg = add_seg(z, 1, 0, 1, (unsigned[]){ 0 }, (uint64_t[]){ 0 });
    seg->kind = LVX_SEG_ERROR;
    seg->type = seg->type_name = "error";
    lvx_buf_reset(&b);
    ok(lvx_map_dm_table(&ctx, z, &b) == 0, "zero + error table");
    is_str(lvx_buf_str(&b), "0 16384 zero\n16384 8192 error\n", "zero and error lines");
    ok(lvx_map_lv_sector(&ctx, z, 100, &m) == 0 && m.kind == LVX_MAP_ZERO && m.len == 16284,
       "zero segment maps to zeros up to its end");
    ok(lvx_map_lv_sector(&ctx, z, 16384, &m) == 0 && m.kind == LVX_MAP_ERROR,
       "error segment maps to errors");

    struct lvx_lv *empty = mklv(vg, "empty");
    is_int(lvx_map_dm_table(&ctx, empty, &b), -EINVAL, "LV without segments");
    lvx_buf_free(&b);
    lvx_pool_destroy(pool);
}

int main(void)
{
    test_brute_force();
    test_prepared_missing();
    test_spec_tables();
    test_issue_example();
    test_raid_line();
    test_mirror_line();
    test_errors();
    return tap_done();
}
