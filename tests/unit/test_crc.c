/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_crc.c - LVM2's CRC-32 variant (format/crc.c) against the test
 * vectors of lvm2-format.md §5.3, the bit-serial definition of §5.1, zlib's crc32
 * relation, and the continuation property used for wrapped text.
 */
#include "format/crc.h"
#include "format/endian.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The bit-serial definition of §5.1, as an independent reference. */
static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return crc;
}

/* §5.3 vector 3: the mda_header pvcreate writes on a default PV (flags for vector 4). */
static void build_default_mda_header(uint8_t s[512], uint32_t slot0_flags)
{
    memset(s, 0, 512);
    memcpy(s + 4, " LVM2 x[5A%r0N*>", 16);
    lvx_put_le32(s + 20, 1);
    lvx_put_le64(s + 24, 4096);
    lvx_put_le64(s + 32, 1044480);
    lvx_put_le32(s + 40 + 20, slot0_flags);
}

/* §3.4: the label sector of an orphan 64 MiB PV. */
static void build_worked_label(uint8_t s[512])
{
    memset(s, 0, 512);
    memcpy(s, "LABELONE", 8);
    lvx_put_le64(s + 8, 1);
    lvx_put_le32(s + 0x14, 32);
    memcpy(s + 0x18, "LVM2 001", 8);
    memcpy(s + 0x20, "BZIxJeW8TTH0gUWhpeiOf1ruKc8BHg4H", 32);
    lvx_put_le64(s + 0x40, 0x04000000);
    lvx_put_le64(s + 0x48, 0x100000);
    lvx_put_le64(s + 0x68, 4096);
    lvx_put_le64(s + 0x70, 1044480);
    lvx_put_le32(s + 0x88, 2);
}

int main(void)
{
    uint8_t s[512];

    is_int(lvx_crc(LVX_CRC_INITIAL, "", 0), 0xF597A6CFu, "vector 1: empty input");
    is_int(lvx_crc(LVX_CRC_INITIAL, "123456789", 9), 0x4991CF02u, "vector 2: \"123456789\"");

    build_default_mda_header(s, 0);
    is_int(lvx_crc(LVX_CRC_INITIAL, s + 4, 508), 0xDB8ED616u, "vector 3: default mda_header");
    static const uint8_t v3_head[] = { 0x16, 0xD6, 0x8E, 0xDB };
    lvx_put_le32(s, lvx_crc(LVX_CRC_INITIAL, s + 4, 508));
    ok(memcmp(s, v3_head, 4) == 0, "vector 3: stored little-endian as 16 D6 8E DB");

    build_default_mda_header(s, 1);
    is_int(lvx_crc(LVX_CRC_INITIAL, s + 4, 508), 0x4524581Eu,
           "vector 4: mda_header with slot 0 ignored flag");

    build_worked_label(s);
    is_int(lvx_crc(LVX_CRC_INITIAL, s + 20, 492), 0xCF31E66Bu, "vector 5: §3.4 label sector");

    /* random data: table == bit-serial == zlib relation; continuation */
    size_t n = 100000;
    uint8_t *buf = malloc(n);
    srand(12345);
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)rand();
    uint32_t whole = lvx_crc(LVX_CRC_INITIAL, buf, n);
    is_int(whole, crc_bitwise(LVX_CRC_INITIAL, buf, n), "table matches bit-serial definition");
    uint32_t z = (uint32_t)crc32(0x0A685930u, buf, (uInt)n) ^ 0xFFFFFFFFu;
    is_int(whole, z, "matches zlib crc32(0x0A685930) ^ 0xFFFFFFFF");
    bool cont_ok = true;
    for (size_t cut = 0; cut <= n; cut += 9973)
        if (lvx_crc(lvx_crc(LVX_CRC_INITIAL, buf, cut), buf + cut, n - cut) != whole)
            cont_ok = false;
    ok(cont_ok, "CRC continues across split pieces");
    bool short_ok = true;
    for (size_t len = 0; len < 64; len++)
        if (lvx_crc(0x12345678u, buf + 3, len) != crc_bitwise(0x12345678u, buf + 3, len))
            short_ok = false;
    ok(short_ok, "short unaligned lengths with arbitrary seed agree with bit-serial");
    bool sliced_ok = true;     /* lengths through the 8-byte folding, unaligned starts */
    for (size_t len = 64; len < 200; len++)
        for (size_t off = 0; off < 8; off++)
            if (lvx_crc(0x9ABCDEF0u, buf + off, len) != crc_bitwise(0x9ABCDEF0u, buf + off, len))
                sliced_ok = false;
    ok(sliced_ok, "lengths 64..199 at every start alignment agree with bit-serial");
    free(buf);
    return tap_done();
}
