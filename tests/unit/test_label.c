/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_label.c - label + pv_header + extension (format/label.c):
 * the worked example of lvm2-format.md §3.4, every PV of every fixture scenario
 * checked against LVM2's own pvs report in the manifest, byte-identical
 * re-encoding, and damaged / hostile label sectors.
 */
#include "format/label.h"
#include "format/crc.h"
#include "format/endian.h"
#include "util/ctx.h"
#include "tap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKED_UUID "BZIxJeW8TTH0gUWhpeiOf1ruKc8BHg4H"

/* §3.4 byte by byte. */
static void build_worked_label(uint8_t s[512])
{
    memset(s, 0, 512);
    memcpy(s, "LABELONE", 8);
    lvx_put_le64(s + 8, 1);
    static const uint8_t crc[4] = { 0x6B, 0xE6, 0x31, 0xCF };
    memcpy(s + 0x10, crc, 4);
    lvx_put_le32(s + 0x14, 32);
    memcpy(s + 0x18, "LVM2 001", 8);
    memcpy(s + 0x20, WORKED_UUID, 32);
    lvx_put_le64(s + 0x40, 0x04000000);
    lvx_put_le64(s + 0x48, 0x100000);
    lvx_put_le64(s + 0x68, 4096);
    lvx_put_le64(s + 0x70, 1044480);
    lvx_put_le32(s + 0x88, 2);
}

static void fix_label_crc(uint8_t *s)
{
    lvx_put_le32(s + 16, lvx_crc(LVX_CRC_INITIAL, s + 20, 492));
}

/* A label whose pv_header sits at `off`, with 1 data area and 8 mdas. */
static void build_shifted(uint8_t *s, unsigned off)
{
    memset(s, 0, 512);
    memcpy(s, "LABELONE", 8);
    lvx_put_le64(s + 8, 1);
    lvx_put_le32(s + 20, off);
    memcpy(s + 24, "LVM2 001", 8);
    memcpy(s + off, WORKED_UUID, 32);
    unsigned p = off + 40;
    lvx_put_le64(s + p, 1u << 20);
    p += 32;
    for (unsigned i = 0; i < 8; i++, p += 16)
        lvx_put_le64(s + p, 4096 + 4096ull * i);
    p += 16;
    if (p + 4 <= 512)
        lvx_put_le32(s + p, 2);     /* extension version 2: a BA list follows */
    fix_label_crc(s);
}

static void test_worked_example(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    uint8_t want[512], got[512];
    build_worked_label(want);

    struct lvx_label l;
    memset(&l, 0, sizeof(l));
    l.sector = 1;
    strcpy(l.pv_uuid, WORKED_UUID);
    l.device_size = 64u << 20;
    l.data_count = 1;
    l.data[0].offset = 1u << 20;
    l.mda_count = 1;
    l.mda[0].offset = 4096;
    l.mda[0].size = 1044480;
    l.ext_version = 2;
    is_int(lvx_label_encode(&ctx, &l, got), 0, "encode §3.4 label");
    ok(memcmp(got, want, 512) == 0, "encoded §3.4 label is byte-identical to the spec (CRC included)");

    uint8_t dev[2048];
    memset(dev, 0, sizeof(dev));
    memcpy(dev + 512, want, 512);
    struct lvx_label d;
    is_int(lvx_label_find(&ctx, dev, sizeof(dev), &d), 0, "find §3.4 label");
    is_int(d.sector, 1, "label sector 1");
    is_int(d.offset, 32, "pv_header offset 32");
    is_str(d.pv_uuid, WORKED_UUID, "PV UUID");
    is_int(d.device_size, 67108864, "device_size 64 MiB");
    is_int(d.data_count, 1, "one data area");
    is_int(d.data[0].offset, 1048576, "pe_start 1 MiB");
    is_int(d.data[0].size, 0, "data area size 0");
    is_int(d.mda_count, 1, "one mda");
    is_int(d.mda[0].offset, 4096, "mda0 at 4096");
    is_int(d.mda[0].size, 1044480, "mda0 size 1044480");
    is_int(d.ext_version, 2, "extension version 2");
    is_int(d.ext_flags, 0, "orphan: flags 0");
    is_int(d.ba_count, 0, "no bootloader area");
    ok(lvx_label_sector_looks_like_label(want), "looks like a label");
    ok(!lvx_label_sector_looks_like_label(dev), "zero sector does not look like a label");
}

/* ---- fixtures ---- */

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

/* Value of "key": "..." in the pvs report object that holds this PV UUID. */
static bool pv_report_field(const char *manifest, const char *dashed, const char *key, char *out,
                            size_t n)
{
    char pat[128];
    snprintf(pat, sizeof(pat), "\"pv_uuid\": \"%s\"", dashed);
    const char *p = strstr(manifest, pat);
    if (!p)
        return false;
    while (p > manifest && *p != '{')
        p--;
    const char *end = strchr(p, '}');
    snprintf(pat, sizeof(pat), "\"%s\": \"", key);
    const char *v = strstr(p, pat);
    if (!v || !end || v > end)
        return false;
    v += strlen(pat);
    size_t len = strcspn(v, "\"");
    if (len >= n)
        return false;
    memcpy(out, v, len);
    out[len] = '\0';
    return true;
}

static unsigned long long pv_report_num(const char *manifest, const char *dashed, const char *key)
{
    char v[64];
    if (!pv_report_field(manifest, dashed, key, v, sizeof(v)))
        return ~0ull;
    return strtoull(v, NULL, 10);
}

static void check_fixture_pv(const char *sc, const char *disk, const char *manifest)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    char name[64];
    size_t len;
    snprintf(name, sizeof(name), "%s.head.gz", disk);
    uint8_t *head = fixture_read_gz(sc, name, &len);
    if (!ok(head && len >= 2048, "%s/%s: head image read", sc, disk)) {
        free(head);
        return;
    }
    struct lvx_label l;
    int r = lvx_label_find(&ctx, head, len, &l);
    if (!is_int(r, 0, "%s/%s: label found (%s)", sc, disk, ctx.errmsg)) {
        free(head);
        return;
    }
    ok(memcmp(head + l.sector * 512, "LABELONE", 8) == 0 && lvx_get_le64(head + l.sector * 512 + 8)
       == l.sector, "%s/%s: label sector %u holds LABELONE and records itself", sc, disk, l.sector);
    for (unsigned s = 0; s < l.sector; s++)
        ok(!lvx_label_sector_looks_like_label(head + s * 512), "%s/%s: no label before sector %u",
           sc, disk, l.sector);

    char dashed[39];
    dashed_uuid(l.pv_uuid, dashed);
    char vg[128];
    bool in_report = pv_report_field(manifest, dashed, "vg_name", vg, sizeof(vg));
    ok(in_report, "%s/%s: PV UUID %s is in LVM2's pvs report", sc, disk, dashed);
    if (in_report) {
        is_int(l.device_size, pv_report_num(manifest, dashed, "dev_size"),
               "%s/%s: device_size = dev_size", sc, disk);
        is_int(l.data_count, 1, "%s/%s: one data area", sc, disk);
        is_int(l.data[0].offset, pv_report_num(manifest, dashed, "pe_start"),
               "%s/%s: data area offset = pe_start", sc, disk);
        is_int(l.mda_count, pv_report_num(manifest, dashed, "pv_mda_count"),
               "%s/%s: mda count = pv_mda_count", sc, disk);
        unsigned long long mda_min = 0;
        for (unsigned i = 0; i < l.mda_count; i++)
            if (i == 0 || l.mda[i].size < mda_min)
                mda_min = l.mda[i].size;
        is_int(mda_min, pv_report_num(manifest, dashed, "pv_mda_size"),
               "%s/%s: smallest mda size = pv_mda_size", sc, disk);
        is_int(l.ext_version, pv_report_num(manifest, dashed, "pv_ext_vsn"),
               "%s/%s: extension version = pv_ext_vsn", sc, disk);
        is_int(l.ext_flags & LVX_PV_EXT_USED, vg[0] ? 1 : 0,
               "%s/%s: PV_EXT_USED matches VG membership (\"%s\")", sc, disk, vg);
        unsigned long long ba_size = pv_report_num(manifest, dashed, "pv_ba_size");
        is_int(l.ba_count, ba_size ? 1 : 0, "%s/%s: BA count matches pv_ba_size", sc, disk);
        if (l.ba_count) {
            is_int(l.ba[0].offset, pv_report_num(manifest, dashed, "pv_ba_start"),
                   "%s/%s: BA start", sc, disk);
            is_int(l.ba[0].size, ba_size, "%s/%s: BA size", sc, disk);
        }
    }
    uint8_t again[512];
    is_int(lvx_label_encode(&ctx, &l, again), 0, "%s/%s: re-encode", sc, disk);
    ok(memcmp(again, head + l.sector * 512, 512) == 0, "%s/%s: re-encoded label is identical",
       sc, disk);
    free(head);
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
            check_fixture_pv(*sc, *d, manifest);
        free(manifest);
    }
}

/* ---- damaged input ---- */

static bool msg_has(const struct lvx_ctx *ctx, const char *what)
{
    if (strstr(ctx->errmsg, what))
        return true;
    tap_diag("message was: %s", ctx->errmsg);
    return false;
}

static int find_in(struct lvx_ctx *ctx, const uint8_t *dev, size_t len)
{
    struct lvx_label l;
    lvx_error_clear(ctx);
    return lvx_label_find(ctx, dev, len, &l);
}

static void test_damage(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    uint8_t good[512], dev[4096];
    build_worked_label(good);

    memset(dev, 0, sizeof(dev));
    memcpy(dev + 512, good, 512);
    dev[512 + 17] ^= 0x01;
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "flipped CRC byte: -EINVAL");
    ok(msg_has(&ctx, "label checksum mismatch in sector 1"), "flipped CRC byte: message");

    memcpy(dev + 512, good, 512);
    dev[512 + 0x100] = 1;          /* a byte in the unused zero tail */
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "changed covered byte: -EINVAL");

    memcpy(dev + 512, good, 512);
    dev[512 + 0x25] = '@';
    fix_label_crc(dev + 512);
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "bad UUID char: -EINVAL");
    ok(msg_has(&ctx, "invalid PV UUID in label"), "bad UUID char: message");

    memcpy(dev + 512, good, 512);
    memcpy(dev + 512 + 24, "LVM2 002", 8);
    fix_label_crc(dev + 512);
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "wrong type: -EINVAL");
    ok(msg_has(&ctx, "type"), "wrong type: message");

    memcpy(dev + 512, good, 512);
    lvx_put_le32(dev + 512 + 20, 480);
    fix_label_crc(dev + 512);
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "pv_header offset past sector: -EINVAL");
    ok(msg_has(&ctx, "outside the label sector"), "pv_header offset: message");

    memcpy(dev + 512, good, 512);
    lvx_put_le32(dev + 512 + 20, 8);
    fix_label_crc(dev + 512);
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "pv_header offset inside label_header: -EINVAL");

    /* data area list that never terminates before the end of the sector */
    memcpy(dev + 512, good, 512);
    lvx_put_le32(dev + 512 + 20, 400);
    memcpy(dev + 512 + 400, WORKED_UUID, 32);
    for (unsigned p = 440; p + 8 <= 512; p += 16)
        lvx_put_le64(dev + 512 + p, 1u << 20);
    fix_label_crc(dev + 512);
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "unterminated data list: -EINVAL");
    ok(msg_has(&ctx, "pv_header data area list runs past the label sector"),
       "unterminated data list: message");

    /* absurd mda count: 20 metadata areas */
    memcpy(dev + 512, good, 512);
    memset(dev + 512 + 0x68, 0, 512 - 0x68);
    for (unsigned i = 0; i < 20; i++) {
        lvx_put_le64(dev + 512 + 0x68 + 16 * i, 4096 + 4096ull * i);
        lvx_put_le64(dev + 512 + 0x70 + 16 * i, 4096);
    }
    fix_label_crc(dev + 512);
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "20 mdas: -EINVAL");
    ok(msg_has(&ctx, "metadata area list"), "20 mdas: message");

    /* pv_header moved down so that the lists end at the end of the sector */
    build_shifted(dev + 512, 296);
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "no room for the extension: -EINVAL");
    ok(msg_has(&ctx, "extension runs past the label sector"), "no room for extension: message");
    build_shifted(dev + 512, 288);
    is_int(find_in(&ctx, dev, 2048), -EINVAL, "no room for the BA terminator: -EINVAL");
    ok(msg_has(&ctx, "bootloader area list runs past the label sector"), "BA list: message");

    /* label copied to sector 2 but recording sector 1: ignored */
    memset(dev, 0, sizeof(dev));
    memcpy(dev + 1024, good, 512);
    is_int(find_in(&ctx, dev, 2048), -ENOENT, "label with wrong sector field: ignored (-ENOENT)");

    /* label in sector 4: not found */
    memset(dev, 0, sizeof(dev));
    memcpy(dev + 2048, good, 512);
    lvx_put_le64(dev + 2048 + 8, 4);
    fix_label_crc(dev + 2048);
    is_int(find_in(&ctx, dev, sizeof(dev)), -ENOENT, "label in sector 4: -ENOENT");
    ok(msg_has(&ctx, "no LVM2 label"), "label in sector 4: message");

    /* truncated buffers */
    memset(dev, 0, sizeof(dev));
    memcpy(dev + 512, good, 512);
    is_int(find_in(&ctx, dev, 700), -ENOENT, "buffer ending inside the label sector: -ENOENT");
    is_int(find_in(&ctx, dev, 0), -ENOENT, "empty buffer: -ENOENT");
    is_int(find_in(&ctx, dev, 1024), 0, "buffer ending right after the label: found");

    /* first valid label wins; damaged earlier sector does not hide a later valid one */
    struct lvx_label l0, got;
    lvx_label_decode(&ctx, good, 1, &l0);
    l0.sector = 0;
    strcpy(l0.pv_uuid, "0123456789abcdefghijABCDEFGHIJ!#");
    memset(dev, 0, sizeof(dev));
    lvx_label_encode(&ctx, &l0, dev);
    memcpy(dev + 512, good, 512);
    lvx_error_clear(&ctx);
    is_int(lvx_label_find(&ctx, dev, 2048, &got), 0, "two labels: found");
    is_int(got.sector, 0, "two labels: sector 0 wins");
    is_str(got.pv_uuid, "0123456789abcdefghijABCDEFGHIJ!#", "two labels: UUID of sector 0");
    dev[20] ^= 0xFF;
    lvx_error(&ctx, EPERM, "earlier error");
    is_int(lvx_label_find(&ctx, dev, 2048, &got), 0, "damaged sector 0, valid sector 1: found");
    is_int(got.sector, 1, "damaged sector 0: sector 1 used");
    is_int(ctx.err, -EPERM, "successful find leaves the context's earlier error alone");
}

static void test_encode(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    uint8_t s[512], good[512];
    build_worked_label(good);
    struct lvx_label l, d;
    lvx_label_decode(&ctx, good, 1, &l);

    /* two mdas + one bootloader area + flags: round trip */
    l.mda_count = 2;
    l.mda[1].offset = 99614720;
    l.mda[1].size = 1048576;
    l.ext_flags = LVX_PV_EXT_USED;
    l.ba_count = 1;
    l.ba[0].offset = 1048576;
    l.ba[0].size = 524288;
    l.data[0].offset = 1572864;
    is_int(lvx_label_encode(&ctx, &l, s), 0, "encode 2 mdas + BA");
    is_int(lvx_label_decode(&ctx, s, 1, &d), 0, "decode it back");
    ok(memcmp(&l, &d, sizeof(l)) == 0, "round trip keeps every field");
    is_int(lvx_get_le32(s + 32 + 40 + 32 + 48), 2, "extension after the 2-entry mda list");

    /* extension version 0: no flags, no BA list */
    l.ext_version = 0;
    is_int(lvx_label_encode(&ctx, &l, s), 0, "encode without extension");
    is_int(lvx_label_decode(&ctx, s, 1, &d), 0, "decode without extension");
    ok(d.ext_version == 0 && d.ext_flags == 0 && d.ba_count == 0,
       "version 0: flags and bootloader areas ignored");

    l.ext_version = 2;
    l.mda_count = 9;
    is_int(lvx_label_encode(&ctx, &l, s), -EINVAL, "encode 9 mdas: -EINVAL");
    l.mda_count = 1;
    l.data_count = 8;
    for (unsigned i = 0; i < 8; i++)
        l.data[i].offset = 1 + i;
    l.mda_count = 8;
    for (unsigned i = 0; i < 8; i++)
        l.mda[i].offset = 1 + i;
    l.ba_count = 8;
    for (unsigned i = 0; i < 8; i++)
        l.ba[i].offset = 1 + i;
    is_int(lvx_label_encode(&ctx, &l, s), 0, "8 entries in each list fill the sector exactly");
    is_int(lvx_label_decode(&ctx, s, 1, &d), 0, "decode the full sector");
    ok(memcmp(&l, &d, sizeof(l)) == 0, "full sector round trip");

    lvx_label_decode(&ctx, good, 1, &l);
    l.data[0].offset = 0;
    is_int(lvx_label_encode(&ctx, &l, s), -EINVAL, "data area at offset 0: -EINVAL");
    lvx_label_decode(&ctx, good, 1, &l);
    l.pv_uuid[3] = '-';
    is_int(lvx_label_encode(&ctx, &l, s), -EINVAL, "encode invalid UUID: -EINVAL");
    lvx_label_decode(&ctx, good, 1, &l);
    l.sector = 4;
    is_int(lvx_label_encode(&ctx, &l, s), -EINVAL, "encode sector 4: -EINVAL");
    l.sector = 3;
    is_int(lvx_label_encode(&ctx, &l, s), 0, "encode sector 3");
    is_int(lvx_get_le64(s + 8), 3, "sector field 3");
    is_int(lvx_label_decode(&ctx, s, 3, &d), 0, "decode in sector 3");
}

int main(void)
{
    test_worked_example();
    test_fixtures();
    test_damage();
    test_encode();
    return tap_done();
}
