/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_mda.c - mda_header and circular text buffer (format/mda.c):
 * §5.3 vectors 3/4 as headers, every metadata area of every fixture PV (header
 * decode and byte-identical re-encode, committed text CRC incl. p07's wrapped copy,
 * values against LVM2's pvs/vgs reports), the §6.4 next-location rule checked
 * against where LVM2 actually put consecutive copies, and damaged headers.
 */
#include "format/mda.h"
#include "format/label.h"
#include "format/crc.h"
#include "format/endian.h"
#include "util/ctx.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_COPIES 64

static bool msg_has(const struct lvx_ctx *ctx, const char *what)
{
    if (strstr(ctx->errmsg, what))
        return true;
    tap_diag("message was: %s", ctx->errmsg);
    return false;
}

/* §5.3 vector 3 (slot 0 flags for vector 4), checksum as the spec gives it. */
static void build_vector_header(uint8_t s[512], uint32_t flags, uint32_t crc)
{
    memset(s, 0, 512);
    lvx_put_le32(s, crc);
    memcpy(s + 4, " LVM2 x[5A%r0N*>", 16);
    lvx_put_le32(s + 20, 1);
    lvx_put_le64(s + 24, 4096);
    lvx_put_le64(s + 32, 1044480);
    lvx_put_le32(s + 60, flags);
}

static void test_vectors(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    uint8_t s[512], again[512];
    struct lvx_mda_header h;

    build_vector_header(s, 0, 0xDB8ED616u);
    static const uint8_t head[] = { 0x16, 0xD6, 0x8E, 0xDB, 0x20, 0x4C, 0x56, 0x4D };
    ok(memcmp(s, head, sizeof(head)) == 0, "vector 3 bytes as printed in §5.3");
    is_int(lvx_mda_header_decode(&ctx, s, 4096, &h), 0, "vector 3 decodes");
    ok(h.version == 1 && h.start == 4096 && h.size == 1044480, "vector 3: version, start, size");
    ok(h.slot[0].offset == 0 && h.slot[0].size == 0 && h.slot[1].offset == 0, "vector 3: empty");
    lvx_mda_header_encode(&h, again);
    ok(memcmp(s, again, 512) == 0, "vector 3 re-encodes byte-identically");

    build_vector_header(s, 1, 0x4524581Eu);
    is_int(lvx_mda_header_decode(&ctx, s, 4096, &h), 0, "vector 4 decodes");
    is_int(h.slot[0].flags, LVX_RAW_LOCN_IGNORED, "vector 4: ignored flag");
    lvx_mda_header_encode(&h, again);
    ok(memcmp(s, again, 512) == 0, "vector 4 re-encodes byte-identically");
}

static void fix_crc(uint8_t *s)
{
    lvx_put_le32(s, lvx_crc(LVX_CRC_INITIAL, s + 4, 508));
}

static int decode_in(struct lvx_ctx *ctx, const uint8_t *s, uint64_t start)
{
    struct lvx_mda_header h;
    lvx_error_clear(ctx);
    return lvx_mda_header_decode(ctx, s, start, &h);
}

static void set_slot0(uint8_t *s, uint64_t off, uint64_t size)
{
    lvx_put_le64(s + 40, off);
    lvx_put_le64(s + 48, size);
    fix_crc(s);
}

static void test_damage(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    uint8_t good[512], s[512];
    build_vector_header(good, 0, 0xDB8ED616u);

    memcpy(s, good, 512);
    s[1] ^= 0x80;
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "flipped checksum byte: -EINVAL");
    ok(msg_has(&ctx, "checksum mismatch"), "flipped checksum: message");
    memcpy(s, good, 512);
    s[300] = 7;
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "changed padding byte: -EINVAL");

    memcpy(s, good, 512);
    s[5] = 'X';
    fix_crc(s);
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "bad magic: -EINVAL");
    ok(msg_has(&ctx, "bad magic"), "bad magic: message");

    memcpy(s, good, 512);
    lvx_put_le32(s + 20, 2);
    fix_crc(s);
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "version 2: -EINVAL");
    ok(msg_has(&ctx, "version 2"), "version: message");

    is_int(decode_in(&ctx, good, 8192), -EINVAL, "start differs from the pv_header: -EINVAL");
    ok(msg_has(&ctx, "records start 4096"), "wrong start: message");

    memcpy(s, good, 512);
    lvx_put_le64(s + 32, 256);
    fix_crc(s);
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "area size 256: -EINVAL");
    ok(msg_has(&ctx, "size"), "area size: message");

    memcpy(s, good, 512);
    set_slot0(s, 1044480, 100);
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "slot 0 offset = area size: -EINVAL");
    ok(msg_has(&ctx, "slot 0"), "slot 0 offset: message");
    set_slot0(s, 1 << 30, 100);
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "slot 0 offset far past the area: -EINVAL");
    set_slot0(s, 256, 100);
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "slot 0 offset inside the header: -EINVAL");
    set_slot0(s, 512, lvx_mda_max_text_size(1044480) + 1);
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "slot 0 size above the maximum: -EINVAL");
    ok(msg_has(&ctx, "exceeds the maximum"), "slot 0 size: message");
    set_slot0(s, 512, ~0ull);
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "slot 0 size 2^64-1: -EINVAL");
    set_slot0(s, 512, 0);
    is_int(decode_in(&ctx, s, 4096), -EINVAL, "slot 0 with offset but size 0: -EINVAL");
    set_slot0(s, 1044480 - 512, 1000);
    is_int(decode_in(&ctx, s, 4096), 0, "slot 0 wrapping within bounds: valid");
}

static void test_ranges(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_mda_range r[2];
    unsigned n = 9;
    struct lvx_raw_locn l = { 0, 0, 0, 0 };

    is_int(lvx_mda_text_ranges(&ctx, 61440, &l, r, &n), 0, "empty slot: ok");
    is_int(n, 0, "empty slot: no pieces");

    l = (struct lvx_raw_locn){ 59904, 1676, 0, 0 };          /* §6.3 p07 example */
    is_int(lvx_mda_text_ranges(&ctx, 61440, &l, r, &n), 0, "p07 wrapped slot: ok");
    ok(n == 2 && r[0].offset == 59904 && r[0].len == 1536 && r[1].offset == 512 &&
       r[1].len == 140, "p07 wrapped slot: 1536 bytes at the end, 140 from offset 512");

    l = (struct lvx_raw_locn){ 61440 - 1000, 1000, 0, 0 };
    is_int(lvx_mda_text_ranges(&ctx, 61440, &l, r, &n), 0, "text ending at the area end: ok");
    ok(n == 1 && r[0].offset == 60440 && r[0].len == 1000, "text ending at the area end: 1 piece");

    l = (struct lvx_raw_locn){ 61440, 10, 0, 0 };
    is_int(lvx_mda_text_ranges(&ctx, 61440, &l, r, &n), -EINVAL, "offset = area size: -EINVAL");
    is_int(n, 0, "invalid slot: no pieces");
    l = (struct lvx_raw_locn){ 0, 10, 0, 0 };
    is_int(lvx_mda_text_ranges(&ctx, 61440, &l, r, &n), -EINVAL, "offset 0 with size: -EINVAL");
    l = (struct lvx_raw_locn){ 512, 29953, 0, 0 };
    is_int(lvx_mda_text_ranges(&ctx, 61440, &l, r, &n), -EINVAL, "size above maximum: -EINVAL");
    l = (struct lvx_raw_locn){ 512, 100, 0, 0 };
    is_int(lvx_mda_text_ranges(&ctx, 512, &l, r, &n), -EINVAL, "area without text buffer: -EINVAL");
    is_int(lvx_mda_text_ranges(&ctx, 1000, &l, r, &n), -EINVAL, "area size not sector multiple");

    /* §6.4 size limit formula: floor((S - 512) / 2) - 512 */
    is_int(lvx_mda_max_text_size(61440), 29952, "max text for 61440");
    is_int(lvx_mda_max_text_size(1044480), 521472, "max text for 1044480");
    is_int(lvx_mda_max_text_size(1024), 0, "max text for a tiny area is 0");
    is_int(lvx_mda_max_text_size(0), 0, "max text for size 0");
}

static void test_next_rules(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_raw_locn out, old;
    const uint64_t S = 61440;

    is_int(lvx_mda_next_location(&ctx, S, NULL, 1000, &out), 0, "no old copy");
    is_int(out.offset, 512, "rule 1: no old copy -> 512");
    old = (struct lvx_raw_locn){ 4096, 1000, 0, LVX_RAW_LOCN_IGNORED };
    lvx_mda_next_location(&ctx, S, &old, 1000, &out);
    is_int(out.offset, 512, "ignored old copy -> 512");
    old = (struct lvx_raw_locn){ 512, 1000, 0, 0 };
    lvx_mda_next_location(&ctx, S, &old, 700, &out);
    ok(out.offset == 1536 && out.size == 700, "rule 4: after 512+1000 -> 1536");
    old = (struct lvx_raw_locn){ 512, 1024, 0, 0 };
    lvx_mda_next_location(&ctx, S, &old, 700, &out);
    is_int(out.offset, 1536, "rule 4: copy ending on a boundary -> next sector");
    old = (struct lvx_raw_locn){ S - 1024, 600, 0, 0 };     /* last byte at S-425 */
    lvx_mda_next_location(&ctx, S, &old, 700, &out);
    is_int(out.offset, 512, "rule 3: S - old_last < 512 -> 512");
    old = (struct lvx_raw_locn){ S - 2048, 1000, 0, 0 };    /* last byte at S-1049 */
    lvx_mda_next_location(&ctx, S, &old, 700, &out);
    is_int(out.offset, S - 1024, "rule 4: rounds up to S-1024");
    old = (struct lvx_raw_locn){ S - 1536, 1000, 0, 0 };    /* last at S-537, up = S-512 */
    lvx_mda_next_location(&ctx, S, &old, 700, &out);
    is_int(out.offset, S - 512, "rule 4: S-512 itself is allowed (new copy wraps)");
    old = (struct lvx_raw_locn){ S - 512, 1000, 0, 0 };     /* wraps: last at 512+488-1 */
    lvx_mda_next_location(&ctx, S, &old, 700, &out);
    is_int(out.offset, 1024, "rule 2: after a wrapped copy");
    is_int(lvx_mda_next_location(&ctx, S, NULL, 29952, &out), 0, "maximum size accepted");
    is_int(lvx_mda_next_location(&ctx, S, NULL, 29953, &out), -ENOSPC, "one byte more: -ENOSPC");
    ok(msg_has(&ctx, "exceeds the maximum metadata size"), "too big: message");
    is_int(lvx_mda_next_location(&ctx, S, NULL, 0, &out), -EINVAL, "size 0: -EINVAL");
    old = (struct lvx_raw_locn){ S + 512, 10, 0, 0 };
    is_int(lvx_mda_next_location(&ctx, S, &old, 100, &out), -EINVAL, "bogus old copy: -EINVAL");
}

static void test_vgname(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    char name[128];
    const char *t = "vg01 {\nid = \"x\"\n";

    is_int(lvx_mda_text_vgname(&ctx, t, strlen(t), name), 0, "\"vg01 {\" accepted");
    is_str(name, "vg01", "name vg01");
    t = "my.vg+_-1\n\t{";
    is_int(lvx_mda_text_vgname(&ctx, t, strlen(t), name), 0, "all name characters accepted");
    is_str(name, "my.vg+_-1", "name with all classes");
    t = "vg01 {";
    is_int(lvx_mda_text_vgname(&ctx, t, 5, name), -EINVAL, "brace beyond len: -EINVAL");
    t = "-vg {";
    is_int(lvx_mda_text_vgname(&ctx, t, strlen(t), name), -EINVAL, "leading '-': -EINVAL");
    t = ". {";
    is_int(lvx_mda_text_vgname(&ctx, t, strlen(t), name), -EINVAL, "\".\": -EINVAL");
    t = ".. {";
    is_int(lvx_mda_text_vgname(&ctx, t, strlen(t), name), -EINVAL, "\"..\": -EINVAL");
    t = "vg/1 {";
    is_int(lvx_mda_text_vgname(&ctx, t, strlen(t), name), -EINVAL, "'/' in name: -EINVAL");
    t = "vg01 = {";
    is_int(lvx_mda_text_vgname(&ctx, t, strlen(t), name), -EINVAL, "assignment: -EINVAL");
    ok(msg_has(&ctx, "<vgname> {"), "not a section: message");
    is_int(lvx_mda_text_vgname(&ctx, "", 0, name), -EINVAL, "empty text: -EINVAL");
    ok(msg_has(&ctx, "valid VG name"), "empty text: message");
    char big[200];
    memset(big, 'a', 128);
    memcpy(big + 128, " {", 3);
    is_int(lvx_mda_text_vgname(&ctx, big, strlen(big), name), -EINVAL, "128-char name: -EINVAL");
    memcpy(big + 127, " {", 3);
    is_int(lvx_mda_text_vgname(&ctx, big, strlen(big), name), 0, "127-char name accepted");
    is_int(strlen(name), 127, "127-char name copied");
}

/* ---- fixtures ---- */

struct copy {
    uint64_t offset, size;
    unsigned long seqno;
    bool wraps;
};

struct area {
    const uint8_t *a;       /* the whole area, a[0] = header */
    uint64_t size;
};

/* The NUL-terminated text that starts at `off` (following a wrap); size incl. NUL. */
static uint64_t text_size_at(const struct area *ar, uint64_t off, bool *wraps)
{
    uint64_t pos = off, n = 0;
    *wraps = false;
    while (n < ar->size) {
        n++;
        if (ar->a[pos] == 0)
            return n;
        if (++pos == ar->size) {
            pos = 512;
            *wraps = true;
        }
    }
    return 0;
}

/* Copy the (possibly wrapped) text of a slot into a NUL-terminated heap string. */
static char *read_text(struct lvx_ctx *ctx, const struct area *ar, const struct lvx_raw_locn *l,
                       uint32_t *crc)
{
    struct lvx_mda_range r[2];
    unsigned n;
    if (lvx_mda_text_ranges(ctx, ar->size, l, r, &n) < 0 || n == 0)
        return NULL;
    char *t = malloc(l->size + 1);
    uint64_t k = 0;
    *crc = LVX_CRC_INITIAL;
    for (unsigned i = 0; i < n; i++) {
        memcpy(t + k, ar->a + r[i].offset, r[i].len);
        *crc = lvx_crc(*crc, ar->a + r[i].offset, r[i].len);
        k += r[i].len;
    }
    t[k] = '\0';
    return t;
}

static unsigned long seqno_of(const char *t)
{
    const char *p = strstr(t, "\nseqno = ");
    return p ? strtoul(p + 9, NULL, 10) : 0;
}

/* All copies LVM2 left in the buffer: 512-aligned starts that read as "<vg> {". */
static unsigned find_copies(struct lvx_ctx *ctx, const struct area *ar, const char *vg,
                            struct copy *c)
{
    unsigned n = 0;
    for (uint64_t off = 512; off < ar->size && n < MAX_COPIES; off += 512) {
        char name[128];
        uint64_t avail = ar->size - off;
        if (lvx_mda_text_vgname(ctx, (const char *)ar->a + off, avail < 256 ? avail : 256,
                                name) < 0 || strcmp(name, vg) != 0)
            continue;
        if (off > 512 && ar->a[off - 1] != 0)
            continue;               /* inside another text */
        bool wraps;
        uint64_t size = text_size_at(ar, off, &wraps);
        if (!size)
            continue;
        char head[512];
        uint64_t hl = avail < sizeof(head) - 1 ? avail : sizeof(head) - 1;
        memcpy(head, ar->a + off, hl);
        head[hl] = '\0';
        c[n++] = (struct copy){ off, size, seqno_of(head), wraps };
    }
    return n;
}

/* §6.4 against LVM2's own placement: copy k+1 sits where the rule puts it after copy k.
 * Only copies whose whole text is known to be intact are used: non-wrapping ones, and
 * the committed copy's predecessor (LVM2 never overwrites the copy it commits after). */
static void check_placement(struct lvx_ctx *ctx, const char *what, const struct area *ar,
                            const char *vg, const struct lvx_raw_locn *slot0)
{
    struct copy c[MAX_COPIES];
    unsigned n = find_copies(ctx, ar, vg, c);
    unsigned long cur = 0;
    for (unsigned i = 0; i < n; i++)
        if (c[i].offset == slot0->offset)
            cur = c[i].seqno;
    ok(cur > 0, "%s: committed copy found among %u copies in the buffer", what, n);
    unsigned checked = 0, wrong = 0;
    for (unsigned i = 0; i < n; i++) {
        for (unsigned j = 0; j < n; j++) {
            if (c[j].seqno != c[i].seqno + 1 || (c[i].wraps && c[j].seqno != cur))
                continue;
            struct lvx_raw_locn old = { c[i].offset, c[i].size, 0, 0 }, out;
            if (lvx_mda_next_location(ctx, ar->size, &old, c[j].size, &out) < 0 ||
                out.offset != c[j].offset) {
                tap_diag("seqno %lu at %llu size %llu -> predicted %llu, LVM2 used %llu",
                         c[i].seqno, (unsigned long long)c[i].offset,
                         (unsigned long long)c[i].size, (unsigned long long)out.offset,
                         (unsigned long long)c[j].offset);
                wrong++;
            }
            checked++;
        }
    }
    ok(checked > 0 && wrong == 0, "%s: next location of %u consecutive copies as LVM2 placed them",
       what, checked);
}

struct image {
    uint8_t *head, *tail;
    size_t head_len, tail_len;
    uint64_t tail_off;
};

static const uint8_t *image_at(const struct image *im, uint64_t off, uint64_t len)
{
    if (off + len <= im->head_len)
        return im->head + off;
    if (im->tail && off >= im->tail_off && off + len <= im->tail_off + im->tail_len)
        return im->tail + (off - im->tail_off);
    return NULL;
}

/* Number `key` of the report object (in report `report`, e.g. "pvs") whose obj_key is obj_val. */
static unsigned long long report_num(const char *manifest, const char *report,
                                     const char *obj_key, const char *obj_val, const char *key)
{
    char pat[160];
    snprintf(pat, sizeof(pat), "\"%s\": {", report);
    const char *sec = strstr(manifest, pat);
    if (!sec)
        return ~0ull;
    snprintf(pat, sizeof(pat), "\"%s\": \"%s\"", obj_key, obj_val);
    const char *p = strstr(sec, pat);
    if (!p)
        return ~0ull;
    while (p > manifest && *p != '{')
        p--;
    const char *end = strchr(p, '}');
    snprintf(pat, sizeof(pat), "\"%s\": \"", key);
    const char *v = strstr(p, pat);
    if (!v || v > end)
        return ~0ull;
    return strtoull(v + strlen(pat), NULL, 10);
}

static bool report_str(const char *manifest, const char *dashed, const char *key, char *out,
                       size_t n)
{
    char pat[160];
    snprintf(pat, sizeof(pat), "\"pv_uuid\": \"%s\"", dashed);
    const char *p = strstr(manifest, pat);
    if (!p)
        return false;
    while (p > manifest && *p != '{')
        p--;
    snprintf(pat, sizeof(pat), "\"%s\": \"", key);
    const char *v = strstr(p, pat);
    if (!v)
        return false;
    v += strlen(pat);
    size_t len = strcspn(v, "\"");
    if (len >= n)
        return false;
    memcpy(out, v, len);
    out[len] = '\0';
    return true;
}

static void dashed_uuid(const char *raw, char out[39])
{
    static const int groups[] = { 6, 4, 4, 4, 4, 4, 6 };
    int k = 0;
    for (int g = 0; g < 7; g++) {
        if (g)
            out[k++] = '-';
        for (int i = 0; i < groups[g]; i++)
            out[k++] = *raw++;
    }
    out[k] = '\0';
}

static void check_area(struct lvx_ctx *ctx, const char *what, const struct image *im,
                       const struct lvx_disk_locn *locn, const char *manifest,
                       const char *dashed, const char *vg, unsigned *used,
                       uint64_t *min_free)
{
    const uint8_t *a = image_at(im, locn->offset, locn->size);
    if (!ok(a != NULL, "%s: area inside the saved image ranges", what))
        return;
    struct lvx_mda_header h;
    int r = lvx_mda_header_decode(ctx, a, locn->offset, &h);
    if (!is_int(r, 0, "%s: header decodes (%s)", what, ctx->errmsg))
        return;
    is_int(h.size, locn->size, "%s: header size = pv_header size", what);
    uint8_t again[512];
    lvx_mda_header_encode(&h, again);
    ok(memcmp(again, a, 512) == 0, "%s: header re-encodes byte-identically", what);
    ok(h.slot[1].offset == 0 && h.slot[1].size == 0, "%s: no precommitted slot left", what);

    if (h.slot[0].flags & LVX_RAW_LOCN_IGNORED) {
        ok(1, "%s: ignored area", what);
        return;
    }
    (*used)++;
    struct area ar = { a, h.size };
    uint32_t crc = 0;
    char *text = read_text(ctx, &ar, &h.slot[0], &crc);
    if (!ok(text != NULL, "%s: committed text ranges (%s)", what, ctx->errmsg))
        return;
    is_int(crc, h.slot[0].checksum, "%s: text CRC matches slot 0 checksum", what);
    ok(text[h.slot[0].size - 1] == '\0' && strlen(text) == h.slot[0].size - 1,
       "%s: text ends with its only NUL", what);
    char name[128];
    is_int(lvx_mda_text_vgname(ctx, text, h.slot[0].size, name), 0, "%s: text starts with a VG name",
           what);
    is_str(name, vg, "%s: VG name = pvs vg_name", what);
    is_int(seqno_of(text), report_num(manifest, "vgs", "vg_name", vg, "vg_seqno"),
           "%s: seqno = vgs vg_seqno", what);
    uint64_t free_b = (lvx_mda_max_text_size(h.size) - h.slot[0].size) / 512 * 512;
    if (*used == 1 || free_b < *min_free)
        *min_free = free_b;
    check_placement(ctx, what, &ar, vg, &h.slot[0]);
    free(text);
}

static void check_pv(const char *sc, const char *disk, const char *manifest)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct image im = { 0 };
    char name[64];
    snprintf(name, sizeof(name), "%s.head.gz", disk);
    im.head = fixture_read_gz(sc, name, &im.head_len);
    snprintf(name, sizeof(name), "%s.tail.gz", disk);
    im.tail = fixture_read_gz(sc, name, &im.tail_len);

    struct lvx_label l;
    if (!im.head || lvx_label_find(&ctx, im.head, im.head_len, &l) < 0) {
        ok(0, "%s/%s: label", sc, disk);
        goto out;
    }
    if (im.tail)
        im.tail_off = l.device_size - im.tail_len;     /* the tail is the last bytes */
    char dashed[39], vg[128];
    dashed_uuid(l.pv_uuid, dashed);
    if (!ok(report_str(manifest, dashed, "vg_name", vg, sizeof(vg)), "%s/%s: in pvs report", sc,
            disk))
        goto out;
    unsigned used = 0;
    uint64_t min_free = 0;
    for (unsigned i = 0; i < l.mda_count; i++) {
        char what[160];
        snprintf(what, sizeof(what), "%s/%s mda%u", sc, disk, i);
        ok(l.mda[i].offset + l.mda[i].size <= l.device_size, "%s: inside the device", what);
        check_area(&ctx, what, &im, &l.mda[i], manifest, dashed, vg, &used, &min_free);
    }
    is_int(min_free, report_num(manifest, "pvs", "pv_uuid", dashed, "pv_mda_free"),
           "%s/%s: smallest (max - size) rounded to sectors = pv_mda_free", sc, disk);
    is_int(used, report_num(manifest, "pvs", "pv_uuid", dashed, "pv_mda_used_count"),
           "%s/%s: non-ignored areas = pv_mda_used_count", sc, disk);
out:
    free(im.head);
    free(im.tail);
}

static void test_fixtures(void)
{
    const char *const *sc = fixture_scenarios();
    ok(sc[0] != NULL, "fixture scenarios present");
    for (; *sc; sc++) {
        char *manifest = fixture_read_file(*sc, "manifest.json", NULL);
        if (!ok(manifest != NULL, "%s: manifest", *sc))
            continue;
        for (const char *const *d = fixture_disks(*sc); *d; d++)
            check_pv(*sc, *d, manifest);
        free(manifest);
    }
}

/* The p03 tail checked through a rebuilt full image too (fixture_build_image). */
static void test_full_image(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    char path[] = "/tmp/lvx-test-mda-XXXXXX";
    int fd = mkstemp(path);
    if (!ok(fd >= 0, "temp file"))
        return;
    close(fd);
    const char *sc = "p03_pvmetadatacopies2";
    if (!ok(fixture_build_image(sc, "disk1", path) == 0, "rebuild p03 disk1 image")) {
        unlink(path);
        return;
    }
    fd = open(path, O_RDONLY);
    uint8_t lab[2048], h0[512], h1[512];
    struct lvx_label l;
    ok(pread(fd, lab, sizeof(lab), 0) == (ssize_t)sizeof(lab), "read label area");
    is_int(lvx_label_find(&ctx, lab, sizeof(lab), &l), 0, "p03 label");
    is_int(l.mda_count, 2, "p03: two mdas");
    if (l.mda_count == 2) {
        ok(pread(fd, h0, 512, (off_t)l.mda[0].offset) == 512, "read mda0 header");
        ok(pread(fd, h1, 512, (off_t)l.mda[1].offset) == 512, "read mda1 header");
        struct lvx_mda_header a, b;
        is_int(lvx_mda_header_decode(&ctx, h0, l.mda[0].offset, &a), 0, "mda0 header");
        is_int(lvx_mda_header_decode(&ctx, h1, l.mda[1].offset, &b), 0, "mda1 header");
        ok(a.slot[0].size == b.slot[0].size && a.slot[0].checksum == b.slot[0].checksum,
           "both areas hold the same text (size and checksum)");
        is_int(l.mda[1].offset + l.mda[1].size, l.device_size, "mda1 ends at the device end");
        is_int(lvx_mda_header_decode(&ctx, h1, l.mda[0].offset, &b), -EINVAL,
               "mda1 header read at mda0's offset: wrong start");
    }
    close(fd);
    unlink(path);
}

int main(void)
{
    test_vectors();
    test_damage();
    test_ranges();
    test_next_rules();
    test_vgname();
    test_fixtures();
    test_full_image();
    return tap_done();
}
