/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/fuzz_headers.c - libFuzzer harness for the binary structures of format/:
 * lvx_label_find() on the first bytes of a "device", and lvx_mda_header_decode()
 * plus lvx_mda_text_ranges() / lvx_mda_next_location() on a header sector.  Any
 * input must give 0 or a negative errno with a message, never a crash, and every
 * range returned must lie inside the area.
 *
 * Build and run (from the repo root):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE -Isrc \
 *       fuzz/fuzz_headers.c src/format/crc.c src/format/label.c src/format/mda.c \
 *       src/util/ctx.c src/dev/io.c -luring -lpthread -o build-fuzz/fuzz_headers
 *   mkdir -p build-fuzz/work     (new inputs go there, not into the seed dir)
 *   ./build-fuzz/fuzz_headers -max_total_time=60 build-fuzz/work fuzz/corpus/headers
 * (or `bash fuzz/run.sh 60 fuzz_headers`, which links the whole library).
 * Seeds (fuzz/corpus/headers/): sectors 0-1 of p01/p03 (label), the mda0 header
 * sector + first text sector of p01/p03, p03's mda1 header, p07's header.
 * Each input is also run a second time with its CRCs made valid, so mutations get
 * past the checksum to the list and slot bounds checks.
 */
#include "format/label.h"
#include "format/mda.h"
#include "format/crc.h"
#include "util/ctx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int cond)
{
    if (!cond)
        abort();
}

static void fuzz_label(struct lvx_ctx *ctx, const uint8_t *data, size_t size)
{
    struct lvx_label l;
    int r = lvx_label_find(ctx, data, size, &l);
    require(r == 0 || r == -EINVAL || r == -ENOENT);
    if (r < 0) {
        require(ctx->errmsg[0] != '\0');
        return;
    }
    require(l.sector < LVX_LABEL_SCAN_SECTORS && strlen(l.pv_uuid) == 32);
    require(l.data_count <= LVX_LABEL_MAX_LOCNS && l.mda_count <= LVX_LABEL_MAX_LOCNS &&
            l.ba_count <= LVX_LABEL_MAX_LOCNS);
    uint8_t again[LVX_SECTOR_SIZE];
    require(lvx_label_encode(ctx, &l, again) == 0);
    struct lvx_label back;
    require(lvx_label_decode(ctx, again, l.sector, &back) == 0);
    require(back.mda_count == l.mda_count && back.data_count == l.data_count);
}

static void check_ranges(struct lvx_ctx *ctx, uint64_t area_size, const struct lvx_raw_locn *locn)
{
    struct lvx_mda_range r[2];
    unsigned n = 0;
    if (lvx_mda_text_ranges(ctx, area_size, locn, r, &n) < 0)
        return;
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        require(r[i].offset >= LVX_MDA_HEADER_SIZE && r[i].len > 0);
        require(r[i].offset + r[i].len <= area_size);
        total += r[i].len;
    }
    require(n == 0 || total == locn->size);
    struct lvx_raw_locn next;
    if (lvx_mda_next_location(ctx, area_size, locn, locn->size ? locn->size : 1, &next) == 0)
        require(next.offset >= LVX_MDA_HEADER_SIZE && next.offset < area_size);
}

static void fuzz_mda(struct lvx_ctx *ctx, const uint8_t *data, size_t size)
{
    if (size < LVX_MDA_HEADER_SIZE)
        return;
    struct lvx_mda_header h;
    /* the header's own start, so inputs with a valid checksum reach the slot checks */
    uint64_t start = (uint64_t)data[24] | (uint64_t)data[25] << 8 | (uint64_t)data[26] << 16 |
                     (uint64_t)data[27] << 24;
    start |= (uint64_t)data[28] << 32 | (uint64_t)data[29] << 40 | (uint64_t)data[30] << 48 |
             (uint64_t)data[31] << 56;
    if (lvx_mda_header_decode(ctx, data, start, &h) == 0) {
        uint8_t again[LVX_MDA_HEADER_SIZE];
        lvx_mda_header_encode(&h, again);
        check_ranges(ctx, h.size, &h.slot[0]);
        check_ranges(ctx, h.size, &h.slot[1]);
    } else {
        require(ctx->errmsg[0] != '\0');
    }
    /* the raw slot arithmetic on unvalidated values as well */
    struct lvx_raw_locn raw;
    memcpy(&raw.offset, data + 40, 8);
    memcpy(&raw.size, data + 48, 8);
    raw.checksum = 0;
    raw.flags = 0;
    uint64_t area;
    memcpy(&area, data + 32, 8);
    check_ranges(ctx, area, &raw);
    char name[128];
    if (lvx_mda_text_vgname(ctx, (const char *)data + LVX_MDA_HEADER_SIZE,
                            size - LVX_MDA_HEADER_SIZE, name) == 0)
        require(name[0] != '\0' && strlen(name) < 128);
}

/* Copies of the input with the checksums made valid, so mutations reach the checks
 * behind the CRC (list bounds, slot bounds) instead of stopping at it.  Stores the
 * CRC little-endian, as the format wants. */
static void put_crc(uint8_t *p, uint32_t crc)
{
    p[0] = (uint8_t)crc;
    p[1] = (uint8_t)(crc >> 8);
    p[2] = (uint8_t)(crc >> 16);
    p[3] = (uint8_t)(crc >> 24);
}

static void fix_label_crcs(uint8_t *c, size_t size)
{
    for (size_t s = 0; s < LVX_LABEL_SCAN_SECTORS && (s + 1) * 512 <= size; s++)
        if (lvx_label_sector_looks_like_label(c + s * 512))
            put_crc(c + s * 512 + 16, lvx_crc(LVX_CRC_INITIAL, c + s * 512 + 20, 492));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    fuzz_label(&ctx, data, size);
    lvx_ctx_init(&ctx);
    fuzz_mda(&ctx, data, size);

    uint8_t *c = malloc(size ? size : 1);
    memcpy(c, data, size);
    fix_label_crcs(c, size);
    lvx_ctx_init(&ctx);
    fuzz_label(&ctx, c, size);
    if (size >= LVX_MDA_HEADER_SIZE) {
        memcpy(c, data, size);
        put_crc(c, lvx_crc(LVX_CRC_INITIAL, c + 4, 508));
        lvx_ctx_init(&ctx);
        fuzz_mda(&ctx, c, size);
    }
    free(c);
    return 0;
}
