/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_vg_text.c - VG text import/export (format/vg_text.h) against the
 * LVM2-made fixtures:
 *   - import the backup file and every PV's committed on-disk copy of each scenario,
 *     check the values against LVM2's own reports in manifest.json;
 *   - RAW export reproduces the on-disk VG section byte for byte, FILE export the
 *     backup file from the VG line on;
 *   - export -> parse -> import -> export is stable (also for p08's raid, mirror,
 *     thin and snapshot segments);
 *   - malformed metadata is refused with a message naming the problem.
 */
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/cfg.h"
#include "format/endian.h"
#include "format/vg_text.h"
#include "model/model.h"

#define MDA_MAGIC " LVM2 x[5A%r0N*>"

/* --- crude manifest.json access ------------------------------------------ */

/* Value of "key": "..." between p and end, copied to out; false if absent. */
static bool json_field(const char *p, const char *end, const char *key, char *out, size_t outlen)
{
    char pat[128];
    snprintf(pat, sizeof(pat), "\"%s\": \"", key);
    const char *s = strstr(p, pat);
    if (!s || s >= end)
        return false;
    s += strlen(pat);
    const char *e = strchr(s, '"');
    size_t n = (size_t)(e - s) < outlen - 1 ? (size_t)(e - s) : outlen - 1;
    memcpy(out, s, n);
    out[n] = '\0';
    return true;
}

static long long json_num(const char *p, const char *end, const char *key)
{
    char buf[64];
    if (!json_field(p, end, key, buf, sizeof(buf)))
        return -999;
    return strtoll(buf, NULL, 10);
}

/* Iterate the flat objects of report array `name` ("vg", "pv", "lv", "seg"). */
struct json_iter {
    const char *pos, *arr_end;
    const char *obj, *obj_end;
};

static void json_iter_init(struct json_iter *it, const char *manifest, const char *report,
                           const char *name)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\": {", report);
    const char *r = strstr(manifest, pat);
    snprintf(pat, sizeof(pat), "\"%s\": [", name);
    it->pos = r ? strstr(r, pat) : NULL;
    it->arr_end = it->pos ? strchr(it->pos, ']') : NULL;
}

static bool json_next(struct json_iter *it)
{
    if (!it->pos)
        return false;
    const char *o = strchr(it->pos, '{');
    if (!o || o > it->arr_end)
        return false;
    it->obj = o;
    it->obj_end = strchr(o, '}');
    it->pos = it->obj_end + 1;
    return true;
}

/* --- on-disk copies ------------------------------------------------------- */

/* Committed text of the mda whose header is at buf+hdr (§4.1, §6.3); malloc'd. */
static char *mda_text(const uint8_t *buf, size_t buflen, size_t hdr, size_t *len)
{
    if (hdr + 512 > buflen || memcmp(buf + hdr + 4, MDA_MAGIC, 16))
        return NULL;
    uint64_t size = lvx_get_le64(buf + hdr + 32);
    uint64_t off = lvx_get_le64(buf + hdr + 40);
    uint64_t n = lvx_get_le64(buf + hdr + 48);
    if (!off || !n || hdr + size > buflen)
        return NULL;
    char *t = malloc(n + 1);
    if (off + n <= size) {
        memcpy(t, buf + hdr + off, n);
    } else {
        uint64_t first = size - off;
        memcpy(t, buf + hdr + off, first);
        memcpy(t + first, buf + hdr + 512, n - first);
    }
    t[n] = '\0';
    *len = strlen(t);   /* the copy ends with its NUL */
    return t;
}

struct text_copy {
    char *text;
    size_t len;
    char where[64];
};

/* All committed copies of a scenario: head mda of each disk, tail mda if any. */
static unsigned disk_copies(const char *scen, struct text_copy *out, unsigned max)
{
    unsigned n = 0;
    const char *const *disks = fixture_disks(scen);
    for (unsigned d = 0; disks && disks[d] && n < max; d++) {
        char name[64];
        size_t len;
        snprintf(name, sizeof(name), "%s.head.gz", disks[d]);
        uint8_t *head = fixture_read_gz(scen, name, &len);
        if (head) {
            out[n].text = mda_text(head, len, 4096, &out[n].len);
            snprintf(out[n].where, sizeof(out[n].where), "%s mda0", disks[d]);
            if (out[n].text)
                n++;
            free(head);
        }
        snprintf(name, sizeof(name), "%s.tail.gz", disks[d]);
        uint8_t *tail = fixture_read_gz(scen, name, &len);
        if (tail) {
            for (size_t off = 0; off + 512 <= len && n < max; off += 512) {
                if (memcmp(tail + off + 4, MDA_MAGIC, 16))
                    continue;
                out[n].text = mda_text(tail, len, off, &out[n].len);
                snprintf(out[n].where, sizeof(out[n].where), "%s mda1", disks[d]);
                if (out[n].text)
                    n++;
                break;
            }
            free(tail);
        }
    }
    return n;
}

/* --- checks against LVM2's reports ---------------------------------------- */

static void check_vg_report(const char *scen, const struct lvx_vg *vg, const char *manifest)
{
    struct json_iter it;
    json_iter_init(&it, manifest, "vgs", "vg");
    while (json_next(&it)) {
        char name[128], uuid[64], dashed[LVX_UUID_DASHED_LEN + 1];
        json_field(it.obj, it.obj_end, "vg_name", name, sizeof(name));
        if (strcmp(name, vg->name))
            continue;
        json_field(it.obj, it.obj_end, "vg_uuid", uuid, sizeof(uuid));
        lvx_uuid_format(vg->uuid, dashed);
        is_str(dashed, uuid, "%s: vg uuid", scen);
        is_int(vg->seqno, json_num(it.obj, it.obj_end, "vg_seqno"), "%s: seqno", scen);
        is_int((long long)vg->extent_size * 512, json_num(it.obj, it.obj_end, "vg_extent_size"),
               "%s: extent size", scen);
        is_int(lvx_vg_extent_count(vg), json_num(it.obj, it.obj_end, "vg_extent_count"),
               "%s: extent count", scen);
        is_int(lvx_vg_free_count(vg), json_num(it.obj, it.obj_end, "vg_free_count"),
               "%s: free count", scen);
        is_int(vg->pv_count, json_num(it.obj, it.obj_end, "pv_count"), "%s: pv_count", scen);
        is_int(lvx_vg_visible_lv_count(vg), json_num(it.obj, it.obj_end, "lv_count"),
               "%s: lv_count", scen);
        is_int(vg->max_lv, json_num(it.obj, it.obj_end, "max_lv"), "%s: max_lv", scen);
        is_int(vg->max_pv, json_num(it.obj, it.obj_end, "max_pv"), "%s: max_pv", scen);
        return;
    }
    ok(0, "%s: vg %s in the vgs report", scen, vg->name);
}

static void check_pv_report(const char *scen, const struct lvx_vg *vg, const char *manifest)
{
    struct json_iter it;
    uint32_t *counts = calloc(vg->pv_count + 1, sizeof(*counts));
    unsigned seen = 0, good = 0;

    lvx_vg_pv_alloc_counts(vg, counts);
    json_iter_init(&it, manifest, "pvs", "pv");
    while (json_next(&it)) {
        char uuid[64], raw[LVX_UUID_LEN + 1];
        json_field(it.obj, it.obj_end, "pv_uuid", uuid, sizeof(uuid));
        if (lvx_uuid_parse(uuid, raw) < 0)
            continue;
        const struct lvx_pv *pv = lvx_vg_find_pv_uuid(vg, raw);
        if (!pv)
            continue;
        seen++;
        good += pv->pe_count == json_num(it.obj, it.obj_end, "pv_pe_count") &&
                counts[pv->index] == json_num(it.obj, it.obj_end, "pv_pe_alloc_count") &&
                (long long)pv->pe_start * 512 == json_num(it.obj, it.obj_end, "pe_start") &&
                (long long)pv->dev_size * 512 == json_num(it.obj, it.obj_end, "dev_size") &&
                lvx_pv_alloc_count(pv) == counts[pv->index];
    }
    is_int(seen, vg->pv_count, "%s: every PV is in the pvs report", scen);
    is_int(good, seen, "%s: pe_count, pe_alloc_count, pe_start, dev_size match pvs", scen);
    free(counts);
}

static void check_lv_report(const char *scen, const struct lvx_vg *vg, const char *manifest)
{
    struct json_iter it;
    unsigned seen = 0, good = 0;

    json_iter_init(&it, manifest, "lvs", "lv");
    while (json_next(&it)) {
        char vgname[128], name[160], uuid[64], raw[LVX_UUID_LEN + 1];
        json_field(it.obj, it.obj_end, "vg_name", vgname, sizeof(vgname));
        if (strcmp(vgname, vg->name))
            continue;
        json_field(it.obj, it.obj_end, "lv_name", name, sizeof(name));
        bool hidden = name[0] == '[';
        char *plain = name + hidden;
        if (hidden)
            plain[strlen(plain) - 1] = '\0';
        const struct lvx_lv *lv = lvx_vg_find_lv(vg, plain);
        seen++;
        json_field(it.obj, it.obj_end, "lv_uuid", uuid, sizeof(uuid));
        bool same = lv && lvx_uuid_parse(uuid, raw) == 0 && !strcmp(raw, lv->uuid) &&
                    lv->seg_count == json_num(it.obj, it.obj_end, "seg_count") &&
                    (long long)lvx_lv_size_sectors(lv) * 512 == json_num(it.obj, it.obj_end, "lv_size") &&
                    lvx_lv_is_visible(lv) == !hidden;
        if (!same)
            tap_diag("%s: LV %s differs from the lvs report", scen, plain);
        good += same;
    }
    ok(seen > 0 || vg->lv_count == 0, "%s: lvs report has LVs", scen);
    is_int(good, seen, "%s: uuid, seg_count, size, visibility match lvs", scen);
}

/* seg_pe_ranges as LVM2 prints it: "<dev>:<first>-<last>" per area. */
static void pe_ranges(const struct lvx_seg *seg, char *out, size_t outlen)
{
    uint64_t len = lvx_seg_area_len(seg);
    size_t o = 0;
    out[0] = '\0';
    for (uint32_t a = 0; a < seg->area_count && o < outlen; a++) {
        const struct lvx_area *ar = &seg->areas[a];
        const char *dev = ar->pv ? (ar->pv->device_hint ? ar->pv->device_hint : "?")
                                 : (ar->lv ? ar->lv->name : "?");
        o += (size_t)snprintf(out + o, outlen - o, "%s%s:%llu-%llu", a ? " " : "", dev,
                              (unsigned long long)ar->start,
                              (unsigned long long)(ar->start + len - 1));
    }
}

static void check_seg_report(const char *scen, const struct lvx_vg *vg, const char *manifest)
{
    struct json_iter it;
    unsigned seen = 0, good = 0;

    json_iter_init(&it, manifest, "segs", "seg");
    while (json_next(&it)) {
        char vgname[128], name[160], type[64], ranges[1024], mine[1024];
        json_field(it.obj, it.obj_end, "vg_name", vgname, sizeof(vgname));
        if (strcmp(vgname, vg->name))
            continue;
        json_field(it.obj, it.obj_end, "lv_name", name, sizeof(name));
        char *plain = name + (name[0] == '[');
        if (name[0] == '[')
            plain[strlen(plain) - 1] = '\0';
        const struct lvx_lv *lv = lvx_vg_find_lv(vg, plain);
        long long start = json_num(it.obj, it.obj_end, "seg_start_pe");
        const struct lvx_seg *seg = NULL;
        for (unsigned s = 0; lv && s < lv->seg_count; s++)
            if ((long long)lv->segs[s].start_extent == start)
                seg = &lv->segs[s];
        seen++;
        if (!seg) {
            tap_diag("%s: no segment of %s at %lld", scen, plain, start);
            continue;
        }
        json_field(it.obj, it.obj_end, "segtype", type, sizeof(type));
        json_field(it.obj, it.obj_end, "seg_pe_ranges", ranges, sizeof(ranges));
        pe_ranges(seg, mine, sizeof(mine));
        bool same = !strcmp(type, lvx_seg_report_type(seg)) &&
                    (long long)seg->extent_count == json_num(it.obj, it.obj_end, "seg_size_pe") &&
                    lvx_seg_report_stripes(seg) == json_num(it.obj, it.obj_end, "stripes") &&
                    (long long)seg->stripe_size * 512 == json_num(it.obj, it.obj_end, "stripe_size") &&
                    (long long)seg->region_size * 512 == json_num(it.obj, it.obj_end, "region_size") &&
                    (seg->kind != LVX_SEG_THIN_POOL ||
                     (long long)seg->chunk_size * 512 == json_num(it.obj, it.obj_end, "chunk_size")) &&
                    !strcmp(ranges, mine);
        if (!same)
            tap_diag("%s: segment of %s: report %s '%s', ours %s '%s'", scen, plain, type, ranges,
                     lvx_seg_report_type(seg), mine);
        good += same;
    }
    is_int(good, seen, "%s: segtype, size, stripes, stripe/region/chunk size, pe ranges match segs",
           scen);
}

/* --- export comparisons ---------------------------------------------------- */

static const char *after_vg_line(const char *text, const char *vgname)
{
    char pat[160];
    snprintf(pat, sizeof(pat), "\n%s {\n", vgname);
    const char *p = strstr(text, pat);
    return p ? p + 1 : NULL;
}

static size_t before_generated(const char *text)
{
    const char *p = strstr(text, "# Generated by");
    return p ? (size_t)(p - text) : strlen(text);
}

static void show_first_difference(const char *a, const char *b, size_t n)
{
    size_t i = 0, line = 1;
    while (i < n && a[i] == b[i]) {
        line += a[i] == '\n';
        i++;
    }
    tap_diag("first difference at byte %zu (line %zu)", i, line);
}

/* export RAW -> import -> export RAW is identical, trees equal. */
static void check_round_trip(const char *scen, const struct lvx_vg *vg)
{
    struct lvx_ctx ctx;
    struct lvx_buf a = LVX_BUF_INIT, b = LVX_BUF_INIT;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *back = NULL;
    struct lvx_text_header hdr = { "round trip", "host", "Linux host", 1700000000, NULL };

    lvx_ctx_init(&ctx);
    for (int layout = LVX_CFG_LAYOUT_RAW; layout <= LVX_CFG_LAYOUT_FILE; layout++) {
        lvx_buf_reset(&a);
        lvx_buf_reset(&b);
        lvx_vg_export_text(&a, vg, &hdr, (enum lvx_cfg_layout)layout);
        int r = lvx_vg_import_text(&ctx, pool, a.data, a.len, &back);
        is_int(r, 0, "%s: %s export imports again", scen, layout ? "FILE" : "RAW");
        if (r < 0) {
            tap_diag("%s", ctx.errmsg);
            continue;
        }
        lvx_vg_export_text(&b, back, &hdr, (enum lvx_cfg_layout)layout);
        ok(a.len == b.len && !memcmp(a.data, b.data, a.len), "%s: %s round trip is identical",
           scen, layout ? "FILE" : "RAW");
        struct lvx_cfg_node *ta = lvx_vg_export_tree(pool, vg, &hdr, (enum lvx_cfg_layout)layout);
        struct lvx_cfg_node *tb = lvx_vg_export_tree(pool, back, &hdr, (enum lvx_cfg_layout)layout);
        struct lvx_cfg_node *parsed = NULL;
        ok(lvx_cfg_equal(ta, tb), "%s: %s trees equal after the round trip", scen,
           layout ? "FILE" : "RAW");
        is_int(lvx_cfg_parse(&ctx, pool, a.data, a.len, &parsed), 0, "%s: export parses", scen);
        ok(parsed && lvx_cfg_equal(parsed, ta), "%s: %s parsed text equals the exported tree",
           scen, layout ? "FILE" : "RAW");
    }
    lvx_buf_free(&a);
    lvx_buf_free(&b);
    lvx_pool_destroy(pool);
}

/* Non-striped segments survive unchanged: compare each raw section of the
 * original with the one in the re-imported VG. */
static void check_raw_kept(const char *scen, const struct lvx_vg *vg)
{
    struct lvx_ctx ctx;
    struct lvx_buf a = LVX_BUF_INIT;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *back = NULL;
    unsigned raw = 0, same = 0;

    lvx_ctx_init(&ctx);
    lvx_vg_export_text(&a, vg, NULL, LVX_CFG_LAYOUT_RAW);
    if (lvx_vg_import_text(&ctx, pool, a.data, a.len, &back) == 0) {
        for (unsigned l = 0; l < vg->lv_count; l++) {
            const struct lvx_lv *lv = vg->lvs[l], *lb = lvx_vg_find_lv(back, lv->name);
            for (unsigned s = 0; s < lv->seg_count; s++) {
                if (!lv->segs[s].raw)
                    continue;
                raw++;
                same += lb && s < lb->seg_count && lb->segs[s].raw &&
                        lvx_cfg_equal(lv->segs[s].raw, lb->segs[s].raw) &&
                        lb->segs[s].kind == lv->segs[s].kind;
            }
        }
    }
    if (raw)
        is_int(same, raw, "%s: all %u non-striped segments kept unchanged", scen, raw);
    lvx_buf_free(&a);
    lvx_pool_destroy(pool);
}

/* Header of a text as LVM2 wrote it: the imported values plus the uname comment. */
static void header_of(const struct lvx_vg *vg, const char *text, char *uname, size_t ulen,
                      struct lvx_text_header *hdr)
{
    const char *p = strstr(text, "\ncreation_host = ");
    const char *c = p ? strstr(p, "\t# ") : NULL;
    const char *e = c ? strchr(c, '\n') : NULL;
    uname[0] = '\0';
    if (c && e && (size_t)(e - c - 3) < ulen) {
        memcpy(uname, c + 3, (size_t)(e - c - 3));
        uname[e - c - 3] = '\0';
    }
    *hdr = (struct lvx_text_header){ vg->description, vg->creation_host, uname,
                                     vg->creation_time, NULL };
}

static void test_scenario(const char *scen)
{
    char bname[128], *manifest = fixture_read_file(scen, "manifest.json", NULL);
    size_t blen;
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = NULL;

    lvx_ctx_init(&ctx);
    /* the backup file: named backup-<vg>.vg; find it through the manifest */
    char *bk = NULL;
    if (manifest) {
        const char *b = strstr(manifest, "\"backups\": [");
        const char *q = b ? strchr(b + 12, '"') : NULL;
        const char *e = q ? strchr(q + 1, '"') : NULL;
        if (q && e && (size_t)(e - q) < sizeof(bname)) {
            memcpy(bname, q + 1, (size_t)(e - q - 1));
            bname[e - q - 1] = '\0';
            bk = fixture_read_file(scen, bname, &blen);
        }
    }
    if (!ok(manifest && bk, "%s: manifest and backup file present", scen))
        goto out;

    int r = lvx_vg_import_text(&ctx, pool, bk, blen, &vg);
    is_int(r, 0, "%s: backup file imports", scen);
    if (r < 0) {
        tap_diag("%s", ctx.errmsg);
        goto out;
    }
    ok(vg->description && !strncmp(vg->description, "vgcfgbackup", 11),
       "%s: header description kept", scen);
    check_vg_report(scen, vg, manifest);
    check_pv_report(scen, vg, manifest);
    check_lv_report(scen, vg, manifest);
    check_seg_report(scen, vg, manifest);

    /* FILE export equals the backup from the VG line on */
    struct lvx_buf out = LVX_BUF_INIT;
    lvx_vg_export_text(&out, vg, NULL, LVX_CFG_LAYOUT_FILE);
    const char *want = after_vg_line(bk, vg->name), *got = after_vg_line(out.data, vg->name);
    bool same = want && got && !strcmp(want, got);
    ok(same, "%s: FILE export reproduces the backup file", scen);
    if (!same && want && got)
        show_first_difference(want, got, strlen(want));
    ok(!strncmp(out.data, "# Generated by LVM2 version", 27), "%s: FILE starts with the header",
       scen);
    {
        char uname[256];
        struct lvx_text_header hdr;
        struct lvx_buf full = LVX_BUF_INIT;
        header_of(vg, bk, uname, sizeof(uname), &hdr);
        lvx_vg_export_text(&full, vg, &hdr, LVX_CFG_LAYOUT_FILE);
        ok(full.len == blen && !memcmp(full.data, bk, blen),
           "%s: FILE export with the backup's header values is the whole file", scen);
        lvx_buf_free(&full);
    }

    /* every committed on-disk copy */
    struct text_copy copies[16];
    unsigned n = disk_copies(scen, copies, 16);
    ok(n > 0, "%s: %u on-disk copies found", scen, n);
    for (unsigned i = 0; i < n; i++) {
        struct lvx_vg *dvg = NULL;
        r = lvx_vg_import_text(&ctx, pool, copies[i].text, copies[i].len, &dvg);
        is_int(r, 0, "%s %s: on-disk text imports", scen, copies[i].where);
        if (r < 0) {
            tap_diag("%s", ctx.errmsg);
            continue;
        }
        ok(dvg->description && !strncmp(dvg->description, "Write", 5),
           "%s %s: description \"%s\"", scen, copies[i].where, dvg->description);
        struct lvx_buf raw = LVX_BUF_INIT;
        lvx_vg_export_text(&raw, dvg, NULL, LVX_CFG_LAYOUT_RAW);
        size_t wl = before_generated(copies[i].text), gl = before_generated(raw.data);
        same = wl == gl && !memcmp(copies[i].text, raw.data, wl);
        ok(same, "%s %s: RAW export reproduces the on-disk VG section (seqno %u)", scen,
           copies[i].where, dvg->seqno);
        if (!same)
            show_first_difference(copies[i].text, raw.data, wl < gl ? wl : gl);
        ok(raw.len >= 2 && !strcmp(raw.data + raw.len - 2, "\n\n"), "%s: RAW ends with \\n\\n",
           scen);
        {
            char uname[256];
            struct lvx_text_header hdr;
            struct lvx_buf full = LVX_BUF_INIT;
            header_of(dvg, copies[i].text, uname, sizeof(uname), &hdr);
            lvx_vg_export_text(&full, dvg, &hdr, LVX_CFG_LAYOUT_RAW);
            ok(full.len == copies[i].len && !memcmp(full.data, copies[i].text, full.len),
               "%s %s: RAW export with the same header is the whole on-disk text", scen,
               copies[i].where);
            lvx_buf_free(&full);
        }
        if (dvg->seqno == vg->seqno) {
            /* same version as the backup: VG sections agree */
            struct lvx_buf f = LVX_BUF_INIT;
            lvx_vg_export_text(&f, dvg, NULL, LVX_CFG_LAYOUT_FILE);
            got = after_vg_line(f.data, vg->name);
            ok(got && want && !strcmp(got, want), "%s %s: disk copy and backup agree", scen,
               copies[i].where);
            lvx_buf_free(&f);
        }
        lvx_buf_free(&raw);
        free(copies[i].text);
    }
    check_round_trip(scen, vg);
    check_raw_kept(scen, vg);
    lvx_buf_free(&out);
out:
    free(bk);
    free(manifest);
    lvx_pool_destroy(pool);
}

/* --- malformed metadata ------------------------------------------------------ */

/* Replace the first occurrence of `from` by `to` in a malloc'd copy. */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *p = strstr(text, from);
    if (!p)
        return NULL;
    size_t n = strlen(text) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    size_t pre = (size_t)(p - text);
    memcpy(out, text, pre);
    strcpy(out + pre, to);
    strcat(out, p + strlen(from));
    return out;
}

static void expect_reject(const char *scen, const char *file, const char *from, const char *to,
                          const char *fragment, const char *what)
{
    char *base = fixture_read_file(scen, file, NULL);
    char *bad = base ? edit(base, from, to) : NULL;
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = (struct lvx_vg *)1;

    lvx_ctx_init(&ctx);
    if (!bad) {
        ok(0, "%s: edit applies (\"%s\" not found)", what, from);
    } else {
        int r = lvx_vg_import_text(&ctx, pool, bad, strlen(bad), &vg);
        ok(r == -EINVAL && vg == NULL && strstr(ctx.errmsg, fragment), "%s rejected: %s", what,
           ctx.errmsg);
    }
    free(bad);
    free(base);
    lvx_pool_destroy(pool);
}

static void test_malformed(void)
{
    const char *p1 = "p01_single_default", *b1 = "backup-vg01.vg";
    const char *p2 = "p02_striped4_256k", *b2 = "backup-vg02.vg";
    const char *p6 = "p06_multiseg_extended", *b6 = "backup-vg06.vg";
    const char *p8 = "p08_segtype_zoo", *b8 = "backup-vg08.vg";

    expect_reject(p1, b1, "\"RESIZEABLE\",", "\"RESIZEABLE\", \"BOGUS\",",
                  "Volume group vg01: unknown status flag \"BOGUS\"", "unknown VG status word");
    expect_reject(p1, b1, "[\"READ\", \"WRITE\", \"VISIBLE\"]", "[\"READ\", \"SHINY\"]",
                  "Logical volume lv_linear: unknown status flag \"SHINY\"", "unknown LV status word");
    expect_reject(p1, b1, "\tid = \"G3pisC-HGVu-9JlF-Z7rD-a7ty-W1mW-1JRyFX\"\n", "",
                  "Volume group vg01: missing \"id\"", "missing VG id");
    expect_reject(p1, b1, "\t\t\tsegment_count = 1", "\t\t\tsegment_count = 2",
                  "Logical volume lv_linear: segment_count is 2 but 1 segments were found",
                  "segment_count mismatch");
    expect_reject(p6, b6, "start_extent = 2\n", "start_extent = 1\n",
                  "Logical volume lv_grow: segment 2 overlaps segment 1", "overlapping segments");
    expect_reject(p6, b6, "start_extent = 4\n", "start_extent = 5\n",
                  "Logical volume lv_grow: gap before segment 3", "gap between segments");
    expect_reject(p1, b1, "\"pv0\", 0", "\"pv7\", 0",
                  "Logical volume lv_linear segment1: unknown physical volume \"pv7\"",
                  "unknown pvN reference");
    expect_reject(p1, b1, "mYS38O-33CG-1upD-AbXs-yUbc-CzJ1-v8SIcE", "mYS38O-33CG-1upD-AbXs",
                  "Logical volume lv_linear: invalid id", "short LV uuid");
    expect_reject(p1, b1, "2BcvxI-nBBE-rJKz-OJWW-8cop-cb4b-IIiFWi", "2BcvxI-nBBE-rJKz-OJWW-8cop-cb4b-IIiFW$",
                  "Physical volume pv0: invalid id", "bad character in PV uuid");
    expect_reject(p2, b2, "extent_count = 8", "extent_count = 6",
                  "Logical volume lv_stripe4: segment 1 extent count 6 is not divisible by 4 stripes",
                  "stripes not divisible");
    expect_reject(p1, b1, "\"pv0\", 0", "\"pv0\", 13",
                  "Logical volume lv_linear: segment 1 area 1 uses extents 13-15 of pv0 beyond its pe_count 15",
                  "PE beyond pe_count");
    expect_reject(p2, b2, "\"pv0\", 1,", "\"pv0\", 0,",
                  "Physical volume pv0: extents 0-0 are used by both", "PE used twice");
    expect_reject(p1, b1, "extent_size = 8192", "extent_size = 0",
                  "Volume group vg01: extent_size must not be zero", "zero extent size");
    expect_reject(p1, b1, "pe_count = 15", "pe_count = 4294967296",
                  "Physical volume pv0: \"pe_count\" value 4294967296 is out of range",
                  "pe_count beyond 32 bits");
    expect_reject(p1, b1, "seqno = 2", "seqno = \"2\"",
                  "Volume group vg01: \"seqno\" must be an integer", "seqno of the wrong type");
    expect_reject(p1, b1, "\t\t\tpe_start = 2048\n", "",
                  "Physical volume pv0: missing \"pe_start\"", "missing pe_start");
    expect_reject(p8, b8, "mirror_log = \"m1_mlog\"", "mirror_log = \"m1_nolog\"",
                  "Logical volume m1 segment1: unknown logical volume \"m1_nolog\" in \"mirror_log\"",
                  "unknown LV reference");
    expect_reject(p8, b8, "\"r1_rmeta_1\", \"r1_rimage_1\"", "\"r1_rmeta_1\"",
                  "Logical volume r1 segment1: \"raids\" has 3 entries, expected 4",
                  "raids list too short");
    expect_reject(p1, b1, "format = \"lvm2\"", "format = \"lvm1\"",
                  "Volume group vg01: unknown format \"lvm1\"", "unknown format");
    expect_reject(p1, b1, "lv_linear {", "lv linear {", "Parse error", "syntax error");

    const char *no_vg = "contents = \"Text Format Volume Group\"\nversion = 1\n";
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = NULL;
    lvx_ctx_init(&ctx);
    ok(lvx_vg_import_text(&ctx, pool, no_vg, strlen(no_vg), &vg) == -EINVAL &&
       strstr(ctx.errmsg, "no volume group section"), "text without a VG rejected: %s",
       ctx.errmsg);
    ok(lvx_vg_import_text(&ctx, pool, "", 0, &vg) == -EINVAL, "empty text rejected: %s",
       ctx.errmsg);
    lvx_pool_destroy(pool);
}

/* unknown keys and compatible flags are kept and written back */
static void test_unknown_kept(void)
{
    char *base = fixture_read_file("p01_single_default", "backup-vg01.vg", NULL);
    char *t1 = edit(base, "\tflags = []\n\textent_size", "\tflags = [\"FUTURE_FLAG\"]\n\textent_size");
    char *t2 = t1 ? edit(t1, "\t\t\tpe_count = 15\t# 60 Megabytes\n",
                                 "\t\t\tpe_count = 15\t# 60 Megabytes\n\t\t\tfuture_pv_key = 7\n") : NULL;
    char *t3 = t2 ? edit(t2, "\t\t\tsegment_count = 1", "\t\t\tfuture_lv_key = \"x\"\n\t\t\tsegment_count = 1") : NULL;
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = NULL;

    lvx_ctx_init(&ctx);
    if (!ok(t3 != NULL, "edits for unknown keys apply"))
        goto out;
    is_int(lvx_vg_import_text(&ctx, pool, t3, strlen(t3), &vg), 0, "unknown keys accepted");
    if (!vg) {
        tap_diag("%s", ctx.errmsg);
        goto out;
    }
    ok(lvx_strlist_has(&vg->flags_extra, "FUTURE_FLAG"), "unknown VG flag kept");
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_FILE);
    const char *want = after_vg_line(t3, "vg01"), *got = after_vg_line(b.data, "vg01");
    ok(want && got && !strcmp(want, got), "unknown flag and keys written back in place");
    lvx_buf_free(&b);
out:
    free(base);
    free(t1);
    free(t2);
    free(t3);
    lvx_pool_destroy(pool);
}

/* p08's backup (*bk, freed by the caller) imported into pool; a failed check when not. */
static struct lvx_vg *import_p08(struct lvx_ctx *ctx, struct lvx_pool *pool, char **bk,
                                 const char *what)
{
    struct lvx_vg *vg = NULL;
    *bk = fixture_read_file("p08_segtype_zoo", "backup-vg08.vg", NULL);
    lvx_ctx_init(ctx);
    if (!*bk || lvx_vg_import_text(ctx, pool, *bk, strlen(*bk), &vg) < 0) {
        ok(0, "p08 imports for the %s test: %s", what, ctx->errmsg);
        return NULL;
    }
    return vg;
}

/* PV renumbering and LV renames reach the raw segments on export */
static void test_raw_refresh(void)
{
    char *bk;
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = import_p08(&ctx, pool, &bk, "rename");
    if (!vg)
        goto out;
    lvx_vg_find_lv(vg, "m1_mlog")->name = "m1_mlog_renamed";
    lvx_vg_find_lv(vg, "r1_rimage_1")->name = "r1_rimage_x";
    lvx_vg_find_lv(vg, "tp_tmeta")->name = "tp_tmeta2";
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_RAW);
    ok(strstr(b.data, "mirror_log = \"m1_mlog_renamed\"") != NULL, "mirror_log follows a rename");
    ok(strstr(b.data, "\"r1_rmeta_1\", \"r1_rimage_x\"") != NULL, "raids follow a rename");
    ok(strstr(b.data, "metadata = \"tp_tmeta2\"") != NULL, "thin-pool metadata follows a rename");
    struct lvx_vg *back = NULL;
    is_int(lvx_vg_import_text(&ctx, pool, b.data, b.len, &back), 0, "renamed VG imports");
    lvx_buf_free(&b);
out:
    free(bk);
    lvx_pool_destroy(pool);
}

/* RAID and snapshot segments lvx creates have no raw section: the exporter writes them
 * from the typed fields.  Dropping the raw sections of LVM2's own segments (p08: raid0,
 * raid1, raid10, raid5, raid6, snapshot) must give the same text, byte for byte. */
static void test_typed_export(void)
{
    char *bk;
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = import_p08(&ctx, pool, &bk, "typed export");
    if (!vg)
        goto out;
    struct lvx_buf want[2] = { LVX_BUF_INIT, LVX_BUF_INIT }, got[2] = { LVX_BUF_INIT, LVX_BUF_INIT };
    const enum lvx_cfg_layout layouts[2] = { LVX_CFG_LAYOUT_RAW, LVX_CFG_LAYOUT_FILE };
    for (int l = 0; l < 2; l++)
        lvx_vg_export_text(&want[l], vg, NULL, layouts[l]);
    unsigned raid = 0, snap = 0;
    for (unsigned i = 0; i < vg->lv_count; i++)
        for (unsigned s = 0; s < vg->lvs[i]->seg_count; s++) {
            struct lvx_seg *seg = &vg->lvs[i]->segs[s];
            if (seg->raw && (seg->kind == LVX_SEG_RAID || seg->kind == LVX_SEG_SNAPSHOT)) {
                raid += seg->kind == LVX_SEG_RAID;
                snap += seg->kind == LVX_SEG_SNAPSHOT;
                seg->raw = NULL;
            }
        }
    ok(raid >= 5 && snap >= 1, "p08 has RAID (%u) and snapshot (%u) segments", raid, snap);
    for (int l = 0; l < 2; l++) {
        lvx_vg_export_text(&got[l], vg, NULL, layouts[l]);
        if (strcmp(got[l].data, want[l].data))
            show_first_difference(got[l].data, want[l].data, got[l].len);
        is_str(got[l].data, want[l].data, "%s layout: typed RAID/snapshot segments written as "
               "LVM2 wrote them", l ? "file" : "raw");
        lvx_buf_free(&got[l]);
        lvx_buf_free(&want[l]);
    }
out:
    free(bk);
    lvx_pool_destroy(pool);
}

/* lvchange --min/--maxrecoveryrate on LVM2's own RAID segments (raw sections): the keys
 * are added where LVM2 writes them (the typed export, LVM2's order, gives the same text),
 * changed, and dropped again at 0. */
static void test_raid_rates(void)
{
    char *bk;
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = import_p08(&ctx, pool, &bk, "recovery rate");
    if (!vg)
        goto out;
    unsigned n = 0;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_seg *seg = &vg->lvs[i]->segs[0];
        if (seg->raw && seg->kind == LVX_SEG_RAID && seg->meta_areas) {
            seg->min_recovery_rate = 64 + n;
            seg->max_recovery_rate = 1024 + n++;
        }
    }
    struct lvx_buf raw = LVX_BUF_INIT, typed = LVX_BUF_INIT;
    lvx_vg_export_text(&raw, vg, NULL, LVX_CFG_LAYOUT_FILE);
    ok(n >= 4 && strstr(raw.data, "min_recovery_rate = 64\n") &&
       strstr(raw.data, "max_recovery_rate = 1024\n"), "rates written into %u raw RAID sections", n);
    struct lvx_vg *back = NULL;
    is_int(lvx_vg_import_text(&ctx, pool, raw.data, raw.len, &back), 0, "the VG with rates imports");
    const struct lvx_seg *bs = NULL;
    for (unsigned i = 0; back && i < back->lv_count && !bs; i++)
        if (back->lvs[i]->segs[0].kind == LVX_SEG_RAID && back->lvs[i]->segs[0].max_recovery_rate)
            bs = &back->lvs[i]->segs[0];
    ok(bs && bs->min_recovery_rate >= 64 && bs->max_recovery_rate == bs->min_recovery_rate + 960,
       "the rates read back");
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (vg->lvs[i]->segs[0].kind == LVX_SEG_RAID)
            vg->lvs[i]->segs[0].raw = NULL;
    lvx_vg_export_text(&typed, vg, NULL, LVX_CFG_LAYOUT_FILE);
    if (strcmp(raw.data, typed.data))
        show_first_difference(raw.data, typed.data, raw.len);
    is_str(raw.data, typed.data, "the raw sections have the keys where LVM2's order puts them");
    lvx_buf_free(&raw);
    lvx_buf_free(&typed);
    for (unsigned i = 0; back && i < back->lv_count; i++)      /* read with the rates */
        back->lvs[i]->segs[0].max_recovery_rate = 0;
    if (back) {
        lvx_vg_export_text(&raw, back, NULL, LVX_CFG_LAYOUT_FILE);
        ok(!strstr(raw.data, "max_recovery_rate") && strstr(raw.data, "min_recovery_rate = 64\n"),
           "a maximum of 0 is dropped from the raw sections, the minimum kept");
        lvx_buf_free(&raw);
    }
out:
    free(bk);
    lvx_pool_destroy(pool);
}

/* VG section written by LVM2 2.03.16's vgcfgbackup (this machine, loop device) after
 * vgcreate --addtag, vgchange --alloc cling --setautoactivation n, pvchange --addtag,
 * lvcreate --addtag -r 256 -My --major 253 --minor 7 --alloc contiguous, lvchange -p r
 * --setautoactivation n: optional keys and their order. */
static const char lvm2_optional_keys[] =
    "vgmo2 {\n"
    "\tid = \"U0FfeJ-TdJe-o2dP-rdBg-2W1H-XMi0-zouuPU\"\n"
    "\tseqno = 5\n"
    "\tformat = \"lvm2\"\t\t\t# informational\n"
    "\tstatus = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\n"
    "\tflags = [\"NOAUTOACTIVATE\"]\n"
    "\ttags = [\"vgt1\", \"vgt2\"]\n"
    "\textent_size = 8192\t\t# 4 Megabytes\n"
    "\tmax_lv = 0\n"
    "\tmax_pv = 0\n"
    "\n"
    "\tallocation_policy = \"cling\"\n"
    "\tmetadata_copies = 0\n"
    "\n"
    "\tphysical_volumes {\n"
    "\n"
    "\t\tpv0 {\n"
    "\t\t\tid = \"7hLVzG-uVZ3-3jR3-5Aki-14f0-86L9-g1RMaJ\"\n"
    "\t\t\tdevice = \"/dev/loop14\"\t# Hint only\n"
    "\n"
    "\t\t\tstatus = [\"ALLOCATABLE\"]\n"
    "\t\t\tflags = []\n"
    "\t\t\ttags = [\"pvtag\"]\n"
    "\t\t\tdev_size = 131072\t# 64 Megabytes\n"
    "\t\t\tpe_start = 2048\n"
    "\t\t\tpe_count = 15\t# 60 Megabytes\n"
    "\t\t}\n"
    "\t}\n"
    "\n"
    "\tlogical_volumes {\n"
    "\n"
    "\t\tl1 {\n"
    "\t\t\tid = \"85J6gc-4FAl-NZph-2DHg-2R3k-lCOu-VLH3T8\"\n"
    "\t\t\tstatus = [\"READ\", \"FIXED_MINOR\", \"VISIBLE\"]\n"
    "\t\t\tflags = [\"NOAUTOACTIVATE\"]\n"
    "\t\t\ttags = [\"lt1\"]\n"
    "\t\t\tcreation_time = 1795983512\t# 2026-11-29 20:18:32 +0000\n"
    "\t\t\tcreation_host = \"vm\"\n"
    "\t\t\tallocation_policy = \"contiguous\"\n"
    "\t\t\tread_ahead = 256\n"
    "\t\t\tmajor = 0\n"
    "\t\t\tminor = 7\n"
    "\t\t\tsegment_count = 1\n"
    "\n"
    "\t\t\tsegment1 {\n"
    "\t\t\t\tstart_extent = 0\n"
    "\t\t\t\textent_count = 1\t# 4 Megabytes\n"
    "\n"
    "\t\t\t\ttype = \"striped\"\n"
    "\t\t\t\tstripe_count = 1\t# linear\n"
    "\n"
    "\t\t\t\tstripes = [\n"
    "\t\t\t\t\t\"pv0\", 0\n"
    "\t\t\t\t]\n"
    "\t\t\t}\n"
    "\t\t}\n"
    "\t}\n"
    "\n"
    "}\n";

static void test_optional_keys(void)
{
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = NULL;
    struct lvx_buf b = LVX_BUF_INIT;

    lvx_ctx_init(&ctx);
    is_int(lvx_vg_import_text(&ctx, pool, lvm2_optional_keys, strlen(lvm2_optional_keys), &vg),
           0, "LVM2 text with optional keys imports");
    if (!vg) {
        tap_diag("%s", ctx.errmsg);
        lvx_pool_destroy(pool);
        return;
    }
    const struct lvx_lv *lv = lvx_vg_find_lv(vg, "l1");
    is_int(vg->alloc, LVX_ALLOC_CLING, "VG allocation policy");
    ok(vg->flags & LVX_VGF_NOAUTOACTIVATE, "VG NOAUTOACTIVATE");
    ok(vg->tags.n == 2 && !strcmp(vg->tags.v[1], "vgt2"), "VG tags");
    ok(vg->pvs[0]->tags.n == 1 && !strcmp(vg->pvs[0]->tags.v[0], "pvtag"), "PV tag");
    ok(lv && lv->alloc == LVX_ALLOC_CONTIGUOUS && lv->has_read_ahead && lv->read_ahead == 256 &&
       lv->has_minor && lv->minor == 7 && lv->has_major && lv->major == 0,
       "LV policy, read_ahead, major, minor");
    ok(lv && !(lv->status & LVX_LV_WRITE) && (lv->status & LVX_LV_FIXED_MINOR) &&
       (lv->flags & LVX_LVF_NOAUTOACTIVATE), "LV status and flags");
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_FILE);
    const char *got = after_vg_line(b.data, "vgmo2");
    ok(got && !strcmp(got, lvm2_optional_keys), "FILE export writes them as LVM2 does");

    /* without LVs LVM2 leaves two blank lines before the VG's closing brace */
    lvx_vg_remove_lv(vg, vg->lvs[0]);
    lvx_buf_reset(&b);
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_FILE);
    ok(b.len > 10 && !strcmp(b.data + b.len - 7, "\t}\n\n\n}\n"), "VG without LVs ends like LVM2's");
    lvx_buf_reset(&b);
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_RAW);
    ok(strstr(b.data, "pe_count = 15\n}\n}\n\n\n}\n# Generated by") != NULL,
       "RAW VG without LVs likewise");
    lvx_buf_free(&b);
    lvx_pool_destroy(pool);
}

/* Segments written out of order are sorted by start_extent on import. */
static void test_segment_order(void)
{
    char *base = fixture_read_file("p06_multiseg_extended", "backup-vg06.vg", NULL);
    char *t1 = base ? edit(base, "start_extent = 0\n", "start_extent = 2\n") : NULL;
    char *t2 = t1 ? edit(t1, "start_extent = 2\n\t\t\t\textent_count = 2\t# 8 Megabytes\n\n"
                             "\t\t\t\ttype = \"striped\"\n\t\t\t\tstripe_count = 1\t# linear\n\n"
                             "\t\t\t\tstripes = [\n\t\t\t\t\t\"pv1\"",
                         "start_extent = 0\n\t\t\t\textent_count = 2\t# 8 Megabytes\n\n"
                         "\t\t\t\ttype = \"striped\"\n\t\t\t\tstripe_count = 1\t# linear\n\n"
                         "\t\t\t\tstripes = [\n\t\t\t\t\t\"pv1\"") : NULL;
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = NULL;

    lvx_ctx_init(&ctx);
    if (ok(t2 != NULL, "segment swap edit applies") &&
        is_int(lvx_vg_import_text(&ctx, pool, t2, strlen(t2), &vg), 0, "swapped segments import")) {
        const struct lvx_lv *lv = lvx_vg_find_lv(vg, "lv_grow");
        ok(lv && lv->segs[0].start_extent == 0 && lv->segs[0].areas[0].pv->index == 1 &&
           lv->segs[1].start_extent == 2 && lv->segs[1].areas[0].pv->index == 0,
           "segments sorted by start_extent");
        struct lvx_buf b = LVX_BUF_INIT;
        lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_RAW);
        const char *s1 = strstr(b.data, "segment1 {\nstart_extent = 0\n");
        ok(s1 && strstr(s1, "\"pv1\", 0") < strstr(s1, "segment2 {"), "written back in LE order");
        lvx_buf_free(&b);
    } else {
        tap_diag("%s", ctx.errmsg);
    }
    free(base);
    free(t1);
    free(t2);
    lvx_pool_destroy(pool);
}

/* A pvmove-style mirror has PV areas in its raw section: when PVs are renumbered,
 * the pvN names inside it follow. */
static void test_pvmove_mirror_renumber(void)
{
    char *base = fixture_read_file("p08_segtype_zoo", "backup-vg08.vg", NULL);
    char *t1 = base ? edit(base, "\"m1_mimage_0\", 0,\n\t\t\t\t\t\"m1_mimage_1\", 0",
                           "\"pv2\", 20,\n\t\t\t\t\t\"pv3\", 20") : NULL;
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = NULL, *back = NULL;

    lvx_ctx_init(&ctx);
    if (!ok(t1 != NULL, "pvmove edit applies") ||
        !is_int(lvx_vg_import_text(&ctx, pool, t1, strlen(t1), &vg), 0, "mirror over PVs imports")) {
        tap_diag("%s", ctx.errmsg);
        goto out;
    }
    const struct lvx_seg *seg = &lvx_vg_find_lv(vg, "m1")->segs[0];
    ok(seg->areas[0].pv == vg->pvs[2] && seg->areas[1].pv == vg->pvs[3] &&
       seg->areas[1].start == 20, "mirror legs resolved to PVs");
    uint32_t before = lvx_pv_alloc_count(vg->pvs[2]);
    char u2[LVX_UUID_LEN + 1], u3[LVX_UUID_LEN + 1];
    memcpy(u2, vg->pvs[2]->uuid, sizeof(u2));
    memcpy(u3, vg->pvs[3]->uuid, sizeof(u3));
    /* move pv4 to the front: pv2 -> pv3, pv3 -> pv4 */
    struct lvx_pv *last = vg->pvs[4];
    memmove(&vg->pvs[1], &vg->pvs[0], 4 * sizeof(vg->pvs[0]));
    vg->pvs[0] = last;
    for (unsigned i = 0; i < vg->pv_count; i++)
        vg->pvs[i]->index = i;
    is_int(lvx_vg_validate(&ctx, vg), 0, "renumbered VG validates");
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_RAW);
    ok(strstr(b.data, "mirrors = [\n\"pv3\", 20,\n\"pv4\", 20\n]") != NULL,
       "pvN names in the raw mirror section renumbered");
    if (is_int(lvx_vg_import_text(&ctx, pool, b.data, b.len, &back), 0, "renumbered text imports")) {
        const struct lvx_seg *sb = &lvx_vg_find_lv(back, "m1")->segs[0];
        ok(!strcmp(sb->areas[0].pv->uuid, u2) && !strcmp(sb->areas[1].pv->uuid, u3),
           "legs still on the same PVs (by UUID)");
        is_int(lvx_pv_alloc_count(lvx_vg_find_pv_uuid(back, u2)), before,
               "allocation on that PV unchanged");
    }
    lvx_buf_free(&b);
out:
    free(base);
    free(t1);
    lvx_pool_destroy(pool);
}

/* Mutated fixtures (fixed seed): import either succeeds or fails with a message,
 * never crashes (run under ASan/valgrind); successes export and re-import. */
static void test_mutations(void)
{
    static const char *const muts[] = { "0", "-1", "4294967296", "\"x\"", "[]", "{", "}",
                                        "=", "pv9", "\"pv0\"", "99999999999", "" };
    const char *const *scen = fixture_scenarios();
    unsigned runs = 0, clean = 0, seed = 12345;

    for (unsigned i = 0; scen && scen[i]; i++) {
        char name[128];
        snprintf(name, sizeof(name), "backup-vg%.2s.vg", scen[i] + 1);
        size_t len;
        char *text = fixture_read_file(scen[i], name, &len);
        if (!text)
            continue;
        for (int k = 0; k < 150; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            /* replace the token at `at` (up to the next whitespace) by a mutation */
            size_t end = at;
            while (end < len && text[end] != ' ' && text[end] != '\n' && text[end] != '\t')
                end++;
            const char *m = muts[(seed >> 20) % (sizeof(muts) / sizeof(muts[0]))];
            struct lvx_buf b = LVX_BUF_INIT;
            lvx_buf_append(&b, text, at);
            lvx_buf_puts(&b, m);
            lvx_buf_append(&b, text + end, len - end);
            struct lvx_ctx ctx;
            struct lvx_pool *pool = lvx_pool_create();
            struct lvx_vg *vg = NULL;
            lvx_ctx_init(&ctx);
            int r = lvx_vg_import_text(&ctx, pool, b.data, b.len, &vg);
            bool good;
            if (r == 0) {
                struct lvx_buf e = LVX_BUF_INIT;
                struct lvx_vg *again = NULL;
                lvx_vg_export_text(&e, vg, NULL, LVX_CFG_LAYOUT_RAW);
                good = vg && lvx_vg_import_text(&ctx, pool, e.data, e.len, &again) == 0;
                if (!good)
                    tap_diag("re-import failed: %s", ctx.errmsg);
                lvx_buf_free(&e);
            } else {
                good = vg == NULL && ctx.errmsg[0] && !strchr(ctx.errmsg, '\n');
            }
            runs++;
            clean += good;
            lvx_buf_free(&b);
            lvx_pool_destroy(pool);
        }
        free(text);
    }
    ok(runs > 0 && clean == runs, "%u mutated texts: each imported cleanly or refused with one message",
       runs);

    /* a huge stripe_count must not allocate before the list is checked */
    char *base = fixture_read_file("p01_single_default", "backup-vg01.vg", NULL);
    char *bad = base ? edit(base, "stripe_count = 1", "stripe_size = 128\n\t\t\t\tstripe_count = 2147483648") : NULL;
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = NULL;
    lvx_ctx_init(&ctx);
    ok(bad && lvx_vg_import_text(&ctx, pool, bad, strlen(bad), &vg) == -EINVAL &&
       strstr(ctx.errmsg, "expected 4294967296"), "huge stripe_count refused: %s", ctx.errmsg);
    free(base);
    free(bad);
    lvx_pool_destroy(pool);
}

int main(void)
{
    const char *const *scen = fixture_scenarios();
    ok(scen && scen[0], "fixture scenarios found");
    for (unsigned i = 0; scen && scen[i]; i++)
        test_scenario(scen[i]);
    test_malformed();
    test_unknown_kept();
    test_raw_refresh();
    test_typed_export();
    test_raid_rates();
    test_optional_keys();
    test_segment_order();
    test_pvmove_mirror_renumber();
    test_mutations();
    return tap_done();
}
