/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_scan.c - label scan and VG assembly (meta/scan.h) on the LVM2
 * fixture images rebuilt as files, and on damaged copies of them; backup files
 * (meta/backup.h).  Expected values come from LVM2's own reports in the manifests
 * and from its backup files.
 */
#include "tap.h"

#include "meta/read.h"
#include "meta/dup_prefer.h"
#include "meta/backup.h"
#include "dev/io.h"
#include "format/cfg.h"
#include "format/crc.h"
#include "format/mda.h"
#include "format/vg_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

static char tmpdir[256];

/* ---- crude manifest lookups --------------------------------------------------------- */

/* Value of "key": "value" found after `from` (and before `limit` if not NULL); caller frees. */
static char *json_str(const char *from, const char *limit, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof(pat), "\"%s\": \"", key);
    const char *p = strstr(from, pat);
    if (!p || (limit && p > limit))
        return NULL;
    p += strlen(pat);
    const char *e = strchr(p, '"');
    return e ? strndup(p, (size_t)(e - p)) : NULL;
}

static long long json_num(const char *from, const char *limit, const char *key)
{
    char *s = json_str(from, limit, key);
    long long v = s ? atoll(s) : -1;
    free(s);
    return v;
}

struct expect_pv {
    char *name, *uuid, *disk;
    long long mda_count, mda_used, dev_size, pe_start;
};

struct expect {
    char *manifest;
    char *vg_name, *vg_uuid;
    long long seqno, pv_count, lv_count, mda_count, mda_used;
    unsigned npv;
    struct expect_pv pv[16];
};

static void expect_load(const char *scen, struct expect *e)
{
    memset(e, 0, sizeof(*e));
    e->manifest = fixture_read_file(scen, "manifest.json", NULL);
    const char *vgs = strstr(e->manifest, "\"vgs\": {");
    e->vg_name = json_str(vgs, NULL, "vg_name");
    e->vg_uuid = json_str(vgs, NULL, "vg_uuid");
    e->seqno = json_num(vgs, NULL, "vg_seqno");
    e->pv_count = json_num(vgs, NULL, "pv_count");
    e->lv_count = json_num(vgs, NULL, "lv_count");
    e->mda_count = json_num(vgs, NULL, "vg_mda_count");
    e->mda_used = json_num(vgs, NULL, "vg_mda_used_count");
    const char *p = strstr(e->manifest, "\"pvs\": {");
    const char *map = strstr(e->manifest, "\"device_to_pv\"");
    while (p && (p = strstr(p, "\"pv_name\": \"")) && p < vgs && e->npv < 16) {
        struct expect_pv *x = &e->pv[e->npv++];
        x->name = json_str(p, NULL, "pv_name");
        x->uuid = json_str(p, NULL, "pv_uuid");
        x->mda_count = json_num(p, NULL, "pv_mda_count");
        x->mda_used = json_num(p, NULL, "pv_mda_used_count");
        x->dev_size = json_num(p, NULL, "dev_size");
        x->pe_start = json_num(p, NULL, "pe_start");
        char key[128];
        snprintf(key, sizeof(key), "%s", x->name);
        x->disk = json_str(map, NULL, key);
        p++;
    }
}

static void expect_free(struct expect *e)
{
    free(e->manifest);
    free(e->vg_name);
    free(e->vg_uuid);
    for (unsigned i = 0; i < e->npv; i++) {
        free(e->pv[i].name);
        free(e->pv[i].uuid);
        free(e->pv[i].disk);
    }
}

/* ---- images and scanning ------------------------------------------------------------ */

static void image_path(char *out, size_t len, const char *scen, const char *disk)
{
    snprintf(out, len, "%s/%.3s-%s.img", tmpdir, scen, disk);
}

/* Rebuild every disk of a scenario; fills paths (static storage) and returns their count. */
static unsigned build_scenario(const char *scen, const char **paths)
{
    static char store[16][512];
    static unsigned next;
    const char *const *disks = fixture_disks(scen);
    unsigned n = 0;
    for (; disks[n]; n++) {
        char *p = store[next++ % 16];
        image_path(p, 512, scen, disks[n]);
        if (fixture_build_image(scen, disks[n], p) != 0)
            tap_diag("cannot build %s", p);
        paths[n] = p;
    }
    return n;
}

static int copy_file(const char *from, const char *to)
{
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "cp --sparse=always '%s' '%s'", from, to);
    return system(cmd);
}

static unsigned warn_lines;
static void count_log(void *arg, int level, const char *msg)
{
    (void)arg;
    if (level == LVX_LOG_WARN) {
        warn_lines++;
        tap_diag("log: %s", msg);
    }
}

static void ctx_setup(struct lvx_ctx *ctx)
{
    lvx_ctx_init(ctx);
    ctx->log_fn = count_log;
    ctx->log_level = LVX_LOG_WARN;
}

/* Scan the named files and assemble; returns the set (NULL on scan failure). */
static struct lvx_vgset *scan_files(struct lvx_ctx *ctx, const char **paths, unsigned n,
                                    struct lvx_scan **scan_out)
{
    struct lvx_scan_opts opts = { .devices = paths, .device_count = n };
    struct lvx_scan *scan = NULL;
    if (lvx_scan(ctx, &opts, &scan) != 0) {
        tap_diag("scan failed: %s", ctx->errmsg);
        *scan_out = NULL;
        return NULL;
    }
    struct lvx_vgset *set = NULL;
    if (lvx_scan_vgs(ctx, scan, &set) != 0) {
        tap_diag("assembly failed: %s", ctx->errmsg);
        set = NULL;
    }
    *scan_out = scan;
    return set;
}

static struct lvx_pv *vg_pv_by_dashed(struct lvx_vg *vg, const char *dashed)
{
    char raw[LVX_UUID_LEN + 1];
    if (lvx_uuid_parse(dashed, raw) != 0)
        return NULL;
    return lvx_vg_find_pv_uuid(vg, raw);
}

static const char *path_of_disk(const char *scen, const char **paths, unsigned n, const char *disk)
{
    char want[512];
    image_path(want, sizeof(want), scen, disk);
    for (unsigned i = 0; i < n; i++)
        if (strcmp(paths[i], want) == 0)
            return paths[i];
    return NULL;
}

/* ---- I/O recording: no byte of a device is read twice ----------------------------------- */

struct range { int fd; uint64_t off, len; };
static struct range ranges[4096];
static unsigned nranges, nbatches;
static const struct lvx_dev_ops *real_ops;

static void record(int fd, uint64_t off, uint64_t len)
{
    if (nranges < 4096)
        ranges[nranges++] = (struct range){ fd, off, len };
}

static ssize_t rec_pread(void *arg, int fd, void *buf, size_t len, uint64_t off)
{
    record(fd, off, len);
    return real_ops->pread(real_ops->arg, fd, buf, len, off);
}

static int rec_batch(void *arg, struct lvx_io_req *reqs, unsigned count)
{
    nbatches++;
    for (unsigned i = 0; i < count; i++)
        record(reqs[i].fd, reqs[i].offset, reqs[i].len);
    return real_ops->read_batch(real_ops->arg, reqs, count);
}

static bool ranges_overlap(void)
{
    for (unsigned i = 0; i < nranges; i++)
        for (unsigned j = i + 1; j < nranges; j++)
            if (ranges[i].fd == ranges[j].fd && ranges[i].off < ranges[j].off + ranges[j].len &&
                ranges[j].off < ranges[i].off + ranges[i].len)
                return true;
    return false;
}

/* ---- the intact scenarios -------------------------------------------------------------- */

static void check_scenario(const char *scen)
{
    const char *paths[16];
    unsigned n = build_scenario(scen, paths);
    struct expect e;
    expect_load(scen, &e);

    struct lvx_dev_ops rec = *lvx_dev_ops_default();
    real_ops = lvx_dev_ops_default();
    rec.pread = rec_pread;
    rec.read_batch = rec_batch;
    nranges = nbatches = 0;

    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    ctx.io = &rec;
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, paths, n, &scan);
    ok(set != NULL, "%s: scan and assembly succeed", scen);
    if (!set) {
        lvx_scan_free(scan);
        expect_free(&e);
        return;
    }
    is_int(scan->pv_count, n, "%s: every image carries a label", scen);
    ok(!ranges_overlap(), "%s: no byte was read twice (%u reads)", scen, nranges);
    ok(nbatches <= 3, "%s: reads done in at most 3 batches (%u)", scen, nbatches);
    is_int(ctx.warnings, 0, "%s: no warnings (LVM2 printed none)", scen);
    is_int(set->vg_count, 1, "%s: one VG", scen);
    is_int(set->orphan_count, 0, "%s: no orphans", scen);
    struct lvx_vg *vg = set->vg_count ? set->vgs[0] : NULL;
    if (!vg) {
        lvx_vgset_free(set);
        lvx_scan_free(scan);
        expect_free(&e);
        return;
    }
    is_str(vg->name, e.vg_name, "%s: VG name", scen);
    char raw[LVX_UUID_LEN + 1] = "";
    lvx_uuid_parse(e.vg_uuid, raw);
    is_str(vg->uuid, raw, "%s: VG uuid", scen);
    is_int(vg->seqno, e.seqno, "%s: seqno", scen);
    is_int(vg->pv_count, e.pv_count, "%s: pv_count", scen);
    is_int(lvx_vg_visible_lv_count(vg), e.lv_count, "%s: lv_count", scen);
    ok(lvx_vgset_find(set, e.vg_name) == vg, "%s: found by name", scen);
    ok(lvx_vgset_find(set, e.vg_uuid) == vg, "%s: found by dashed uuid", scen);

    unsigned ignored = 0, mdas = 0;
    for (unsigned i = 0; i < e.npv; i++) {
        struct expect_pv *x = &e.pv[i];
        struct lvx_pv *pv = vg_pv_by_dashed(vg, x->uuid);
        ok(pv && pv->ondisk.present, "%s: PV %s placed", scen, x->uuid);
        if (!pv)
            continue;
        is_str(pv->ondisk.dev_name, path_of_disk(scen, paths, n, x->disk),
               "%s: PV %s is on image %s", scen, x->uuid, x->disk);
        is_int(pv->ondisk.mda_count, x->mda_count, "%s: %s mda count", scen, x->disk);
        unsigned used = 0;
        for (unsigned k = 0; k < pv->ondisk.mda_count; k++) {
            used += !pv->ondisk.mda[k].ignored;
            ignored += pv->ondisk.mda[k].ignored;
            ok(!pv->ondisk.mda[k].bad, "%s: %s area %u not bad", scen, x->disk, k);
            if (!pv->ondisk.mda[k].ignored)
                is_int(pv->ondisk.mda[k].seqno, e.seqno, "%s: %s area %u seqno", scen, x->disk, k);
        }
        mdas += pv->ondisk.mda_count;
        is_int(used, x->mda_used, "%s: %s used mda count", scen, x->disk);
        is_int(pv->ondisk.dev_bytes, x->dev_size, "%s: %s dev_size", scen, x->disk);
        is_int(pv->ondisk.hdr_pe_start, x->pe_start, "%s: %s pe_start in header", scen, x->disk);
    }
    is_int(mdas, e.mda_count, "%s: vg mda count", scen);
    is_int(ignored, e.mda_count - e.mda_used, "%s: ignored areas", scen);

    /* the scan view: ignored areas have no text; p07's committed copy wraps */
    bool wrapped = false;
    for (unsigned p = 0; p < scan->pv_count; p++)
        for (unsigned k = 0; k < scan->pvs[p].mda_count; k++) {
            const struct lvx_scan_mda *m = &scan->pvs[p].mda[k];
            if (m->ignored)
                ok(m->text == NULL && m->hdr_valid, "%s: ignored area skipped", scen);
            if (m->text && m->hdr.slot[0].offset + m->hdr.slot[0].size > m->hdr.size)
                wrapped = true;
        }
    if (strncmp(scen, "p07", 3) == 0)
        ok(wrapped, "%s: wrapped committed copy was read", scen);
    if (strncmp(scen, "p04", 3) == 0)
        ok(ignored == 1, "%s: the ignored area was seen", scen);

    lvx_vgset_free(set);
    lvx_scan_free(scan);
    expect_free(&e);
}

/* ---- damage helpers ------------------------------------------------------------------ */

static int read_header(const char *path, uint64_t start, struct lvx_mda_header *hdr)
{
    uint8_t buf[512];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t r = pread(fd, buf, 512, (off_t)start);
    close(fd);
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    return r == 512 ? lvx_mda_header_decode(&ctx, buf, start, hdr) : -1;
}

static int write_at(const char *path, const void *buf, size_t len, uint64_t off)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t w = pwrite(fd, buf, len, (off_t)off);
    close(fd);
    return w == (ssize_t)len ? 0 : -1;
}

static void flip_byte(const char *path, uint64_t off)
{
    uint8_t b = 0;
    int fd = open(path, O_RDWR);
    if (fd < 0 || pread(fd, &b, 1, (off_t)off) != 1)
        tap_diag("cannot read %s", path);
    b ^= 0x20;
    if (fd >= 0 && pwrite(fd, &b, 1, (off_t)off) != 1)
        tap_diag("cannot write %s", path);
    if (fd >= 0)
        close(fd);
}

/* The committed text of mda0 (non-wrapping copies only); caller frees. */
static char *read_text(const char *path, const struct lvx_mda_header *hdr)
{
    char *t = calloc(1, hdr->slot[0].size + 1);
    int fd = open(path, O_RDONLY);
    if (fd < 0 || pread(fd, t, hdr->slot[0].size, (off_t)(hdr->start + hdr->slot[0].offset)) !=
                      (ssize_t)hdr->slot[0].size) {
        free(t);
        t = NULL;
    }
    if (fd >= 0)
        close(fd);
    return t;
}

/* Commit `text` as slot 0 of the area (the way LVM2 places a new copy). */
static int install_text(const char *path, struct lvx_mda_header *hdr, const char *text)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    size_t size = strlen(text) + 1;
    struct lvx_raw_locn loc;
    if (lvx_mda_next_location(&ctx, hdr->size, &hdr->slot[0], size, &loc) != 0)
        return -1;
    struct lvx_mda_range rng[2];
    unsigned count = 0;
    loc.checksum = lvx_crc(LVX_CRC_INITIAL, text, size);
    loc.flags = 0;
    if (lvx_mda_text_ranges(&ctx, hdr->size, &loc, rng, &count) != 0)
        return -1;
    size_t pos = 0;
    for (unsigned k = 0; k < count; k++) {
        if (write_at(path, text + pos, (size_t)rng[k].len, hdr->start + rng[k].offset) != 0)
            return -1;
        pos += (size_t)rng[k].len;
    }
    hdr->slot[0] = loc;
    uint8_t sector[512] = { 0 };
    lvx_mda_header_encode(hdr, sector);
    return write_at(path, sector, 512, hdr->start);
}

struct damage_env {
    const char *scen;
    const char *orig[16];
    unsigned n;
    char path[16][512];
    const char *paths[16];
    struct expect e;
};

/* Fresh copies of a scenario's images under a test-specific prefix. */
static void damage_setup(struct damage_env *d, const char *scen, const char *tag)
{
    d->scen = scen;
    d->n = build_scenario(scen, d->orig);
    for (unsigned i = 0; i < d->n; i++) {
        snprintf(d->path[i], sizeof(d->path[i]), "%s/%s-%.3s-%u.img", tmpdir, tag, scen, i + 1);
        copy_file(d->orig[i], d->path[i]);
        d->paths[i] = d->path[i];
    }
    expect_load(scen, &d->e);
}

static struct lvx_pv *pv_on(struct lvx_vg *vg, const char *path)
{
    for (unsigned i = 0; vg && i < vg->pv_count; i++)
        if (vg->pvs[i]->ondisk.present && strcmp(vg->pvs[i]->ondisk.dev_name, path) == 0)
            return vg->pvs[i];
    return NULL;
}

static const struct lvx_scan_pv *scan_pv_on(const struct lvx_scan *scan, const char *path)
{
    for (unsigned i = 0; scan && i < scan->pv_count; i++)
        if (strcmp(scan->pvs[i].dev->path, path) == 0)
            return &scan->pvs[i];
    return NULL;
}

/* ---- damage tests ---------------------------------------------------------------------- */

static void test_flipped_text(void)
{
    struct damage_env d;
    damage_setup(&d, "p02_striped4_256k", "flip");
    struct lvx_mda_header hdr;
    ok(read_header(d.path[0], 4096, &hdr) == 0, "flip: header of disk1 decodes");
    flip_byte(d.path[0], 4096 + hdr.slot[0].offset + 20);

    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, d.paths, d.n, &scan);
    ok(set && set->vg_count == 1, "flip: VG still assembled from the other copies");
    struct lvx_vg *vg = set && set->vg_count ? set->vgs[0] : NULL;
    ok(vg && vg->seqno == d.e.seqno, "flip: seqno unchanged");
    ok(ctx.warnings >= 1, "flip: a warning was logged (%u)", ctx.warnings);
    struct lvx_pv *pv = pv_on(vg, d.path[0]);
    ok(pv && pv->ondisk.mda[0].bad, "flip: damaged area marked bad");
    const struct lvx_scan_pv *spv = scan_pv_on(scan, d.path[0]);
    ok(spv && spv->mda[0].bad && spv->mda[0].hdr_valid && spv->mda[0].problem &&
       strstr(spv->mda[0].problem, "checksum"), "flip: problem names the text checksum (%s)",
       spv && spv->mda[0].problem ? spv->mda[0].problem : "-");
    ok(set && set->orphan_count == 0, "flip: the PV stays in its VG");
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    expect_free(&d.e);
}

static void test_bad_header(void)
{
    struct damage_env d;
    damage_setup(&d, "p02_striped4_256k", "hdr");
    flip_byte(d.path[1], 4096 + 300);      /* zero area of the header: checksum breaks */
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, d.paths, d.n, &scan);
    ok(set && set->vg_count == 1, "bad header: VG assembled");
    const struct lvx_scan_pv *spv = scan_pv_on(scan, d.path[1]);
    ok(spv && spv->mda[0].bad && !spv->mda[0].hdr_valid, "bad header: area marked bad, header invalid");
    is_int(ctx.warnings, 1, "bad header: exactly one warning line");
    struct lvx_pv *pv = set && set->vg_count ? pv_on(set->vgs[0], d.path[1]) : NULL;
    ok(pv && pv->ondisk.mda[0].bad, "bad header: ondisk area bad");
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    expect_free(&d.e);
}

/* Replace "seqno = N" by "seqno = N+1" in text (first occurrence); caller frees. */
static char *bump_seqno(const char *text, long long seqno)
{
    char from[64], to[64];
    snprintf(from, sizeof(from), "\nseqno = %lld\n", seqno);
    snprintf(to, sizeof(to), "\nseqno = %lld\n", seqno + 1);
    const char *p = strstr(text, from);
    if (!p)
        return NULL;
    size_t n = strlen(text) + 16;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
    return out;
}

static void test_newer_copy(void)
{
    struct damage_env d;
    damage_setup(&d, "p02_striped4_256k", "newer");
    struct lvx_mda_header hdr;
    int rc = read_header(d.path[2], 4096, &hdr);
    char *text = rc == 0 ? read_text(d.path[2], &hdr) : NULL;
    char *bumped = text ? bump_seqno(text, d.e.seqno) : NULL;
    ok(bumped && install_text(d.path[2], &hdr, bumped) == 0, "newer: seqno+1 copy written to disk3");

    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    warn_lines = 0;
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, d.paths, d.n, &scan);
    struct lvx_vg *vg = set && set->vg_count == 1 ? set->vgs[0] : NULL;
    ok(vg != NULL, "newer: one VG");
    ok(vg && vg->seqno == d.e.seqno + 1, "newer: highest seqno wins");
    ok(ctx.warnings >= 3, "newer: the three older copies are reported (%u warnings)", ctx.warnings);
    struct lvx_pv *p1 = pv_on(vg, d.path[0]), *p3 = pv_on(vg, d.path[2]);
    ok(p1 && p1->ondisk.mda[0].seqno == d.e.seqno, "newer: disk1 area keeps its old seqno");
    ok(p3 && p3->ondisk.mda[0].seqno == d.e.seqno + 1, "newer: disk3 area has the new seqno");
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    free(text);
    free(bumped);
    expect_free(&d.e);
}

static void test_same_seqno_different(void)
{
    struct damage_env d;
    damage_setup(&d, "p02_striped4_256k", "split");
    struct lvx_mda_header hdr;
    int rc = read_header(d.path[3], 4096, &hdr);
    char *text = rc == 0 ? read_text(d.path[3], &hdr) : NULL;
    char *desc = text ? strstr(text, "description = \"") : NULL;
    if (desc)
        desc[strlen("description = \"")] = 'X';
    ok(desc && install_text(d.path[3], &hdr, text) == 0, "split: disk4 rewritten with different text");

    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, d.paths, d.n, &scan);
    struct lvx_vg *vg = set && set->vg_count == 1 ? set->vgs[0] : NULL;
    ok(vg && vg->seqno == d.e.seqno, "split: VG assembled at the same seqno");
    ok(ctx.warnings >= 1, "split: mismatch reported");
    struct lvx_pv *p4 = pv_on(vg, d.path[3]);
    ok(p4 && p4->ondisk.mda[0].bad, "split: the later copy is marked bad");
    struct lvx_pv *p1 = pv_on(vg, d.path[0]);
    ok(p1 && !p1->ondisk.mda[0].bad, "split: the first copy is kept");
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    free(text);
    expect_free(&d.e);
}

static void test_missing_pv(void)
{
    struct damage_env d;
    damage_setup(&d, "p02_striped4_256k", "miss");
    const char *three[3] = { d.paths[0], d.paths[2], d.paths[3] };
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, three, 3, &scan);
    struct lvx_vg *vg = set && set->vg_count == 1 ? set->vgs[0] : NULL;
    ok(vg != NULL, "missing: VG assembled without disk2");
    unsigned missing = 0;
    for (unsigned i = 0; vg && i < vg->pv_count; i++)
        missing += !vg->pvs[i]->ondisk.present;
    ok(vg && vg->pv_count == d.e.pv_count, "missing: all PVs listed");
    is_int(missing, 1, "missing: one PV not present");
    is_int(ctx.warnings, 2, "missing: two warning lines (device, VG)");
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    expect_free(&d.e);
}

/* The four PVs of p02 and a copy of the first (dup: its path), scanned: the copy last,
 * or (grown) 1 MiB larger and first. */
static struct lvx_vgset *scan_with_copy(struct damage_env *d, const char *tag, bool grown,
                                        char dup[512], struct lvx_ctx *ctx, struct lvx_scan **scan)
{
    damage_setup(d, "p02_striped4_256k", tag);
    snprintf(dup, 512, "%s/%s-copy.img", tmpdir, tag);
    copy_file(d->path[0], dup);
    struct stat st;
    if (grown)
        ok(stat(dup, &st) == 0 && truncate(dup, st.st_size + 1048576) == 0, "%s: copy grown 1 MiB", tag);
    const char *five[5] = { d->paths[0], d->paths[1], d->paths[2], d->paths[3], dup };
    const char *grown_first[5] = { dup, d->paths[0], d->paths[1], d->paths[2], d->paths[3] };
    ctx_setup(ctx);
    return scan_files(ctx, grown ? grown_first : five, 5, scan);
}

/* Duplicates: the copy last is not used (the first device is); a copy seen first but
 * 1 MiB larger (grown) than the dev_size the VG metadata records loses to the device
 * whose size is right (LVM2's preference, meta/dup_prefer.h).  Either way the PV is
 * known duplicated (lvx_vgset_pv_duplicated: refused to vgcreate/vgextend). */
static void test_duplicate(bool grown)
{
    struct damage_env d;
    char dup[512];
    struct lvx_ctx ctx;
    struct lvx_scan *scan;
    const char *t = grown ? "duplicate grown first" : "duplicate";
    struct lvx_vgset *set = scan_with_copy(&d, grown ? "dupsize" : "dup", grown, dup, &ctx, &scan);
    struct lvx_vg *vg = set && set->vg_count == 1 ? set->vgs[0] : NULL;
    ok(vg != NULL, "%s: VG assembled", t);
    ok(ctx.warnings >= 1, "%s: warned", t);
    ok(pv_on(vg, d.path[0]) != NULL, "%s: the original used (first seen, or the right size)", t);
    ok(pv_on(vg, dup) == NULL, "%s: copy not used", t);
    ok(set && set->orphan_count == 0, "%s: copy is not an orphan", t);
    ok(set && set->dup_count == 1, "%s: one PV UUID duplicated", t);
    bool dup_known = false, other_known = false;
    for (unsigned i = 0; scan && i < scan->pv_count; i++) {
        if (strcmp(scan->pvs[i].dev->path, dup) == 0)
            dup_known = lvx_vgset_pv_duplicated(set, scan->pvs[i].label.pv_uuid);
        else if (strcmp(scan->pvs[i].dev->path, d.paths[1]) == 0)
            other_known = lvx_vgset_pv_duplicated(set, scan->pvs[i].label.pv_uuid);
    }
    ok(dup_known, "%s: the duplicated PV is known as such", t);
    ok(!other_known, "%s: another PV of the VG is not", t);
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    expect_free(&d.e);
}

/* The order of LVM2's criteria and its words. */
static void test_duplicate_order(void)
{
    const char *why = NULL;
    struct lvx_dup_facts none = { 0 }, lv = { .used_by_lv = true }, size = { .size_correct = true },
                         name = { .name_matches = true }, dm = { .is_dm = true },
                         size_dm = { .size_correct = true, .is_dm = true };
    ok(!lvx_dup_prefer_second(&none, &none, &why) && strcmp(why, "device was seen first") == 0,
       "nothing differs: the first, \"device was seen first\"");
    ok(lvx_dup_prefer_second(&none, &dm, &why) && strcmp(why, "device is in dm subsystem") == 0,
       "a dm device over the disk: \"device is in dm subsystem\"");
    ok(!lvx_dup_prefer_second(&size, &dm, &why) && strcmp(why, "device size is correct") == 0,
       "the right size beats dm: \"device size is correct\"");
    ok(lvx_dup_prefer_second(&dm, &name, &why) && strcmp(why, "device name matches previous") == 0,
       "the metadata's device hint beats dm");
    ok(lvx_dup_prefer_second(&size_dm, &lv, &why) && strcmp(why, "device is used by LV") == 0,
       "a device an active LV uses beats size and dm: \"device is used by LV\"");
    ok(lvx_dup_prefer_second(&name, &size, &why) && strcmp(why, "device size is correct") == 0,
       "size before name");
}

static void test_all_damaged(void)
{
    struct damage_env d;
    damage_setup(&d, "p01_single_default", "alldmg");
    struct lvx_mda_header hdr;
    ok(read_header(d.path[0], 4096, &hdr) == 0, "all damaged: header decodes");
    flip_byte(d.path[0], 4096 + hdr.slot[0].offset + 5);
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, d.paths, d.n, &scan);
    ok(set != NULL, "all damaged: assembly itself succeeds");
    ok(set && set->vg_count == 0, "all damaged: VG absent");
    ok(set && lvx_vgset_find(set, d.e.vg_name) == NULL, "all damaged: find by name gives NULL");
    ok(set && set->orphan_count == 1 && set->orphans[0]->vg == NULL, "all damaged: PV listed as orphan");
    ok(ctx.warnings >= 2, "all damaged: bad area and unused PV reported (%u)", ctx.warnings);
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    expect_free(&d.e);
}

static void test_truncated(void)
{
    struct damage_env d;
    damage_setup(&d, "p01_single_default", "trunc");
    struct lvx_mda_header hdr;
    ok(read_header(d.path[0], 4096, &hdr) == 0, "truncated: header decodes");
    uint64_t cuts[3] = { 4096 + hdr.slot[0].offset + 100, 4096 + 300, 100 };
    const char *what[3] = { "text cut", "header cut", "label only" };
    for (int i = 0; i < 3; i++) {
        ok(truncate(d.path[0], (off_t)cuts[i]) == 0, "truncated: %s at %llu", what[i],
           (unsigned long long)cuts[i]);
        struct lvx_ctx ctx;
        ctx_setup(&ctx);
        struct lvx_scan *scan;
        struct lvx_vgset *set = scan_files(&ctx, d.paths, d.n, &scan);
        ok(set != NULL && set->vg_count == 0, "truncated (%s): no VG, no failure", what[i]);
        if (i < 2) {
            /* a few KiB: below devices/pv_min_size (2 MiB by default), so not scanned at
             * all, silently, as LVM2's filter (a cut inside a metadata area of a device
             * that size cannot happen then) */
            ok(ctx.warnings == 0 && scan && scan->pv_count == 0 && !scan_pv_on(scan, d.path[0]),
               "truncated (%s): under pv_min_size, not scanned, nothing said (%u)", what[i],
               ctx.warnings);
        } else {
            ok(ctx.warnings >= 1, "truncated (%s): warned (%u)", what[i], ctx.warnings);
            ok(scan && scan->pv_count == 0, "truncated (%s): too small, not a PV", what[i]);
        }
        lvx_vgset_free(set);
        lvx_scan_free(scan);
    }
    expect_free(&d.e);
}

/* p05's VG renamed to p01's name on every copy: two VGs, one name. */
static void test_name_clash(void)
{
    struct damage_env a, b;
    damage_setup(&a, "p01_single_default", "clash");
    damage_setup(&b, "p05_custom_mdasize_dataalignment", "clash");
    char prefix[160];
    snprintf(prefix, sizeof(prefix), "%s {", b.e.vg_name);
    bool written = true;
    for (unsigned i = 0; i < b.n; i++) {
        struct lvx_mda_header hdr;
        char *text = read_header(b.path[i], 4096, &hdr) == 0 ? read_text(b.path[i], &hdr) : NULL;
        if (!text || strncmp(text, prefix, strlen(prefix)) != 0 ||
            strlen(a.e.vg_name) != strlen(b.e.vg_name)) {
            written = false;
            free(text);
            continue;
        }
        memcpy(text, a.e.vg_name, strlen(a.e.vg_name));
        written &= install_text(b.path[i], &hdr, text) == 0;
        free(text);
    }
    ok(written, "clash: %s renamed to %s on every copy", b.e.vg_name, a.e.vg_name);
    const char *all[4] = { a.paths[0], b.paths[0], b.paths[1], b.paths[2] };
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, all, 4, &scan);
    ok(set && set->vg_count == 2, "clash: both VGs kept");
    ok(set && set->vg_count == 2 && strcmp(set->vgs[0]->name, set->vgs[1]->name) == 0,
       "clash: they share the name");
    is_int(ctx.warnings, 2, "clash: one warning (two lines)");
    ok(set && lvx_vgset_find(set, a.e.vg_name) == NULL, "clash: ambiguous name finds nothing");
    struct lvx_vg *va = set ? lvx_vgset_find(set, a.e.vg_uuid) : NULL;
    struct lvx_vg *vb = set ? lvx_vgset_find(set, b.e.vg_uuid) : NULL;
    ok(va && vb && va != vb, "clash: each found by its uuid");
    ok(vb && vb->seqno == b.e.seqno && vb->pv_count == b.e.pv_count,
       "clash: renamed VG keeps its seqno and PVs");
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    expect_free(&a.e);
    expect_free(&b.e);
}

static void test_damaged_label(void)
{
    struct damage_env d;
    damage_setup(&d, "p01_single_default", "label");
    flip_byte(d.path[0], 512 + 100);      /* inside the pv_header: label CRC breaks */
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, d.paths, d.n, &scan);
    ok(set && scan->pv_count == 0, "damaged label: device not taken as a PV");
    ok(set && set->vg_count == 0 && set->orphan_count == 0, "damaged label: no VG, no orphan");
    is_int(ctx.warnings, 1, "damaged label: one warning");
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    expect_free(&d.e);
}

static void test_nonexistent(void)
{
    char missing[512];
    snprintf(missing, sizeof(missing), "%s/does-not-exist.img", tmpdir);
    const char *names[1] = { missing };
    struct lvx_scan_opts opts = { .devices = names, .device_count = 1 };
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_scan *scan = NULL;
    int rc = lvx_scan(&ctx, &opts, &scan);
    ok(rc < 0 && scan == NULL, "nonexistent device: scan fails");
    ok(ctx.errmsg[0] != '\0', "nonexistent device: message: %s", ctx.errmsg);
}

/* ---- backup files ---------------------------------------------------------------------- */

static const struct lvx_cfg_node *vg_section(const struct lvx_cfg_node *root)
{
    const struct lvx_cfg_node *n = root ? root->child : NULL;
    while (n && n->kind != LVX_CFG_SECTION)
        n = n->next;
    return n;
}

static unsigned count_dir_entries(const char *dir)
{
    DIR *dh = opendir(dir);
    unsigned n = 0;
    struct dirent *de;
    while (dh && (de = readdir(dh)))
        n += de->d_name[0] != '.';
    if (dh)
        closedir(dh);
    return n;
}

static void test_backup(void)
{
    const char *paths[16];
    unsigned n = build_scenario("p01_single_default", paths);
    struct lvx_ctx ctx;
    ctx_setup(&ctx);
    struct lvx_scan *scan;
    struct lvx_vgset *set = scan_files(&ctx, paths, n, &scan);
    struct lvx_vg *vg = set && set->vg_count ? set->vgs[0] : NULL;
    ok(vg != NULL, "backup: VG read");

    struct lvx_pool *pool = lvx_pool_create();
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/backups/sub", tmpdir);
    ok(lvx_backup_make_dir(&ctx, dir) == 0, "backup: directory created");
    char tmpl[600];
    snprintf(tmpl, sizeof(tmpl), "%s/%%s.vg", dir);
    char *path = NULL;
    ok(lvx_backup_expand_name(&ctx, pool, tmpl, vg ? vg->name : "x", &path) == 0,
       "backup: template expanded");
    char want[700];
    snprintf(want, sizeof(want), "%s/%s.vg", dir, vg ? vg->name : "x");
    is_str(path, want, "backup: %%s replaced by the VG name");
    char *bad = NULL;
    ok(lvx_backup_expand_name(&ctx, pool, "/tmp/%d", "vg", &bad) < 0, "backup: %%d refused");
    char *pct = NULL;
    lvx_backup_expand_name(&ctx, pool, "a%%b%s", "vg", &pct);
    is_str(pct, "a%bvg", "backup: %%%% gives a percent sign");
    ok(lvx_backup_template_has_vg("x%s") && !lvx_backup_template_has_vg("x%%s"),
       "backup: template VG detection");

    const char *descr = "vgcfgbackup -f /tmp/x";
    ok(vg && lvx_backup_write_file(&ctx, vg, path, descr) == 0, "backup: file written");
    struct stat st;
    ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "backup: mode 0600");
    is_int(count_dir_entries(dir), 1, "backup: no temporary file left");

    size_t len = 0;
    FILE *f = fopen(path, "r");
    char *ours = calloc(1, 1 << 20);
    if (f) {
        len = fread(ours, 1, (1 << 20) - 1, f);
        fclose(f);
    }
    ok(strstr(ours, "description = \"vgcfgbackup -f /tmp/x\"") != NULL, "backup: description written");
    char *theirs = fixture_read_file("p01_single_default", "backup-vg01.vg", NULL);
    struct lvx_cfg_node *r1 = NULL, *r2 = NULL;
    ok(lvx_cfg_parse(&ctx, pool, ours, len, &r1) == 0, "backup: our file parses");
    ok(theirs && lvx_cfg_parse(&ctx, pool, theirs, strlen(theirs), &r2) == 0, "backup: LVM2's parses");
    ok(r1 && r2 && lvx_cfg_equal(vg_section(r1), vg_section(r2)),
       "backup: VG section equals LVM2's vgcfgbackup");
    struct lvx_vg *back = NULL;
    ok(lvx_vg_import_text(&ctx, pool, ours, len, &back) == 0 && back && vg &&
       strcmp(back->uuid, vg->uuid) == 0 && back->seqno == vg->seqno, "backup: file imports back");

    char nodir[600];
    snprintf(nodir, sizeof(nodir), "%s/no/such/dir/file", tmpdir);
    ok(vg && lvx_backup_write_file(&ctx, vg, nodir, descr) < 0 && ctx.errmsg[0],
       "backup: unwritable path gives an error: %s", ctx.errmsg);
    free(ours);
    free(theirs);
    lvx_pool_destroy(pool);
    lvx_vgset_free(set);
    lvx_scan_free(scan);
}

int main(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/lvx-test-scan-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    for (const char *const *s = fixture_scenarios(); *s; s++)
        check_scenario(*s);
    test_flipped_text();
    test_bad_header();
    test_newer_copy();
    test_same_seqno_different();
    test_missing_pv();
    test_duplicate(false);
    test_duplicate(true);
    test_duplicate_order();
    test_all_damaged();
    test_truncated();
    test_name_clash();
    test_damaged_label();
    test_nonexistent();
    test_backup();

    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        tap_diag("cannot remove %s", tmpdir);
    return tap_done();
}
