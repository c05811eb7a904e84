/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/mda.c - the mda_header sector and the circular text buffer of a metadata
 * area (lvm2-format.md §4, §6).  Pure byte work and arithmetic, no device I/O.
 *
 * Entry points: lvx_mda_header_decode() / lvx_mda_header_encode(),
 * lvx_mda_text_ranges() (where a slot's text lies, wrap included),
 * lvx_mda_max_text_size(), lvx_mda_next_location() (where a writer puts the next
 * copy, §6.4) and lvx_mda_text_vgname() (the "<vgname> {" check before parsing).
 *
 * All positions are relative to the area start; the text buffer is [512, S).
 */
#include "format/mda.h"
#include "format/crc.h"
#include "format/endian.h"

#include <errno.h>
#include <string.h>

#define MDA_CRC_OFF 0u
#define MDA_MAGIC_OFF 4u
#define MDA_VERSION_OFF 20u
#define MDA_START_OFF 24u
#define MDA_SIZE_OFF 32u
#define MDA_SLOT0_OFF 40u
#define RAW_LOCN_SIZE 24u
#define MDA_NAME_MAX 127u

static void decode_raw_locn(const uint8_t *p, struct lvx_raw_locn *out)
{
    out->offset = lvx_get_le64(p);
    out->size = lvx_get_le64(p + 8);
    out->checksum = lvx_get_le32(p + 16);
    out->flags = lvx_get_le32(p + 20);
}

static void encode_raw_locn(uint8_t *p, const struct lvx_raw_locn *locn)
{
    lvx_put_le64(p, locn->offset);
    lvx_put_le64(p + 8, locn->size);
    lvx_put_le32(p + 16, locn->checksum);
    lvx_put_le32(p + 20, locn->flags);
}

uint64_t lvx_mda_max_text_size(uint64_t area_size)
{
    if (area_size <= LVX_MDA_HEADER_SIZE)
        return 0;
    uint64_t half = (area_size - LVX_MDA_HEADER_SIZE) / 2;
    return half > LVX_MDA_HEADER_SIZE ? half - LVX_MDA_HEADER_SIZE : 0;
}

static bool locn_is_empty(const struct lvx_raw_locn *locn)
{
    return locn->offset == 0 && locn->size == 0;
}

/* Bounds of a non-empty slot inside an area of area_size bytes. */
static int check_locn_bounds(struct lvx_ctx *ctx, uint64_t area_size,
                             const struct lvx_raw_locn *locn)
{
    uint64_t max = lvx_mda_max_text_size(area_size);

    if (area_size < 2 * LVX_MDA_HEADER_SIZE || area_size % LVX_MDA_HEADER_SIZE)
        return lvx_error(ctx, EINVAL, "metadata area size %llu cannot hold text",
                         (unsigned long long)area_size);
    if (locn->offset < LVX_MDA_HEADER_SIZE || locn->offset >= area_size)
        return lvx_error(ctx, EINVAL,
                         "metadata text offset %llu is outside the text buffer [512, %llu)",
                         (unsigned long long)locn->offset, (unsigned long long)area_size);
    if (locn->size == 0)
        return lvx_error(ctx, EINVAL, "metadata text at offset %llu has size 0",
                         (unsigned long long)locn->offset);
    if (locn->size > max || locn->size > UINT32_MAX)
        return lvx_error(ctx, EINVAL,
                         "metadata text size %llu exceeds the maximum of %llu for an area of "
                         "%llu bytes", (unsigned long long)locn->size, (unsigned long long)max,
                         (unsigned long long)area_size);
    return 0;
}

static int check_header_fields(struct lvx_ctx *ctx, const uint8_t *s, uint64_t expected_start)
{
    unsigned long long at = (unsigned long long)expected_start;
    uint32_t want = lvx_get_le32(s + MDA_CRC_OFF);
    uint32_t got = lvx_crc(LVX_CRC_INITIAL, s + MDA_MAGIC_OFF,
                           LVX_MDA_HEADER_SIZE - MDA_MAGIC_OFF);

    if (want != got)
        return lvx_error(ctx, EINVAL, "mda header checksum mismatch at offset %llu", at);
    if (memcmp(s + MDA_MAGIC_OFF, LVX_MDA_MAGIC, 16) != 0)
        return lvx_error(ctx, EINVAL, "bad magic in mda header at offset %llu", at);
    uint32_t version = lvx_get_le32(s + MDA_VERSION_OFF);
    if (version != LVX_MDA_VERSION)
        return lvx_error(ctx, EINVAL, "unsupported mda header version %u at offset %llu",
                         version, at);
    uint64_t start = lvx_get_le64(s + MDA_START_OFF);
    if (start != expected_start)
        return lvx_error(ctx, EINVAL, "mda header at offset %llu records start %llu", at,
                         (unsigned long long)start);
    uint64_t size = lvx_get_le64(s + MDA_SIZE_OFF);
    if (size < LVX_MDA_HEADER_SIZE || size % LVX_MDA_HEADER_SIZE)
        return lvx_error(ctx, EINVAL, "mda header at offset %llu has invalid area size %llu", at,
                         (unsigned long long)size);
    return 0;
}

int lvx_mda_header_decode(struct lvx_ctx *ctx, const uint8_t *sector_buf,
                          uint64_t expected_start, struct lvx_mda_header *out)
{
    const uint8_t *s = sector_buf;

    memset(out, 0, sizeof(*out));
    int r = check_header_fields(ctx, s, expected_start);
    if (r < 0)
        return r;
    out->checksum = lvx_get_le32(s + MDA_CRC_OFF);
    out->version = lvx_get_le32(s + MDA_VERSION_OFF);
    out->start = lvx_get_le64(s + MDA_START_OFF);
    out->size = lvx_get_le64(s + MDA_SIZE_OFF);
    decode_raw_locn(s + MDA_SLOT0_OFF, &out->slot[0]);
    decode_raw_locn(s + MDA_SLOT0_OFF + RAW_LOCN_SIZE, &out->slot[1]);
    if (locn_is_empty(&out->slot[0]))
        return 0;
    r = check_locn_bounds(ctx, out->size, &out->slot[0]);
    if (r < 0) {
        char why[sizeof(ctx->errmsg)];
        memcpy(why, ctx->errmsg, sizeof(why));
        return lvx_error(ctx, EINVAL, "mda header at offset %llu: slot 0: %s",
                         (unsigned long long)expected_start, why);
    }
    return 0;
}

void lvx_mda_header_encode(const struct lvx_mda_header *hdr, uint8_t sector_buf[512])
{
    uint8_t *s = sector_buf;

    memset(s, 0, LVX_MDA_HEADER_SIZE);
    memcpy(s + MDA_MAGIC_OFF, LVX_MDA_MAGIC, 16);
    lvx_put_le32(s + MDA_VERSION_OFF, LVX_MDA_VERSION);
    lvx_put_le64(s + MDA_START_OFF, hdr->start);
    lvx_put_le64(s + MDA_SIZE_OFF, hdr->size);
    encode_raw_locn(s + MDA_SLOT0_OFF, &hdr->slot[0]);
    encode_raw_locn(s + MDA_SLOT0_OFF + RAW_LOCN_SIZE, &hdr->slot[1]);
    lvx_put_le32(s + MDA_CRC_OFF, lvx_crc(LVX_CRC_INITIAL, s + MDA_MAGIC_OFF,
                                          LVX_MDA_HEADER_SIZE - MDA_MAGIC_OFF));
}

int lvx_mda_text_ranges(struct lvx_ctx *ctx, uint64_t area_size, const struct lvx_raw_locn *locn,
                        struct lvx_mda_range out[2], unsigned *count)
{
    *count = 0;
    if (locn_is_empty(locn))
        return 0;
    int r = check_locn_bounds(ctx, area_size, locn);
    if (r < 0)
        return r;
    uint64_t room = area_size - locn->offset;       /* bytes up to the area end, > 0 */
    out[0].offset = locn->offset;
    if (locn->size <= room) {
        out[0].len = locn->size;
        *count = 1;
        return 0;
    }
    out[0].len = room;
    out[1].offset = LVX_MDA_HEADER_SIZE;
    out[1].len = locn->size - room;
    *count = 2;
    return 0;
}

/* Relative position of the last byte of an old copy (§6.4 step 2). */
static uint64_t last_byte_of(uint64_t area_size, const struct lvx_raw_locn *old)
{
    uint64_t room = area_size - old->offset;
    if (old->size <= room)
        return old->offset + old->size - 1;
    return LVX_MDA_HEADER_SIZE + (old->size - room) - 1;
}

int lvx_mda_next_location(struct lvx_ctx *ctx, uint64_t area_size, const struct lvx_raw_locn *old,
                          uint64_t new_size, struct lvx_raw_locn *out)
{
    uint64_t max = lvx_mda_max_text_size(area_size);

    memset(out, 0, sizeof(*out));
    if (new_size == 0)
        return lvx_error(ctx, EINVAL, "metadata text of size 0 cannot be written");
    if (new_size > max)
        return lvx_error(ctx, ENOSPC,
                         "metadata text of %llu bytes exceeds the maximum metadata size of %llu "
                         "bytes for a metadata area of %llu bytes", (unsigned long long)new_size,
                         (unsigned long long)max, (unsigned long long)area_size);

    uint64_t next = LVX_MDA_HEADER_SIZE;
    bool has_old = old && old->offset != 0 && !(old->flags & LVX_RAW_LOCN_IGNORED);
    if (has_old) {
        int r = check_locn_bounds(ctx, area_size, old);
        if (r < 0)
            return r;
        uint64_t last = last_byte_of(area_size, old);
        if (area_size - last >= LVX_MDA_HEADER_SIZE) {
            uint64_t up = (last / LVX_MDA_HEADER_SIZE + 1) * LVX_MDA_HEADER_SIZE;
            if (up <= area_size - LVX_MDA_HEADER_SIZE)
                next = up;
        }
    }
    out->offset = next;
    out->size = new_size;
    return 0;
}

static bool vgname_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '+' || c == '_' || c == '.' || c == '-';
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int lvx_mda_text_vgname(struct lvx_ctx *ctx, const char *text, size_t len, char name[128])
{
    size_t n = 0;

    name[0] = '\0';
    while (n < len && vgname_char(text[n]))
        n++;
    if (n == 0 || n > MDA_NAME_MAX || text[0] == '-' ||
        (n == 1 && text[0] == '.') || (n == 2 && text[0] == '.' && text[1] == '.'))
        return lvx_error(ctx, EINVAL, "metadata text does not start with a valid VG name");
    size_t i = n;
    while (i < len && is_space(text[i]))
        i++;
    if (i >= len || text[i] != '{')
        return lvx_error(ctx, EINVAL, "metadata text does not start with \"<vgname> {\"");
    memcpy(name, text, n);
    name[n] = '\0';
    return 0;
}
