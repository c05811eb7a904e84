/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/label.c - the LVM2 label sector: label_header, pv_header and
 * pv_header_extension (lvm2-format.md §2, §3).  Pure byte work.
 *
 * Entry points: lvx_label_find() (first valid label of sectors 0..3),
 * lvx_label_decode() (one sector), lvx_label_encode(),
 * lvx_label_sector_looks_like_label().
 *
 * Invariant: every byte position derived from the sector (pv_header offset, the
 * three disk_locn lists, the extension) is bounds-checked against the 512-byte
 * sector before it is read or written.
 */
#include "format/label.h"
#include "format/crc.h"
#include "format/endian.h"

#include <errno.h>
#include <string.h>

#define LABEL_ID_OFF 0u
#define LABEL_SECTOR_OFF 8u
#define LABEL_CRC_OFF 16u
#define LABEL_OFFSET_OFF 20u
#define LABEL_TYPE_OFF 24u
#define LABEL_HEADER_SIZE 32u
#define PVH_UUID_LEN 32u
#define PVH_FIXED_SIZE 40u        /* uuid + device_size */
#define LOCN_SIZE 16u
#define EXT_FIXED_SIZE 8u         /* version + flags */

static const char uuid_alphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#";

static bool uuid_chars_valid(const char *p)
{
    for (unsigned i = 0; i < PVH_UUID_LEN; i++)
        if (p[i] == '\0' || !strchr(uuid_alphabet, p[i]))
            return false;
    return true;
}

bool lvx_label_sector_looks_like_label(const uint8_t *sector_buf)
{
    return memcmp(sector_buf + LABEL_ID_OFF, LVX_LABEL_ID, 8) == 0;
}

/*
 * Read one disk_locn list starting at *pos, up to and including its terminator.
 * `what` names the list in messages.
 */
static int decode_locn_list(struct lvx_ctx *ctx, const uint8_t *s, size_t *pos,
                            struct lvx_disk_locn *list, unsigned *count, const char *what)
{
    unsigned n = 0;

    for (;;) {
        if (*pos + LOCN_SIZE > LVX_SECTOR_SIZE)
            return lvx_error(ctx, EINVAL, "pv_header %s list runs past the label sector", what);
        uint64_t offset = lvx_get_le64(s + *pos);
        uint64_t size = lvx_get_le64(s + *pos + 8);
        *pos += LOCN_SIZE;
        if (offset == 0)
            break;
        if (n >= LVX_LABEL_MAX_LOCNS)
            return lvx_error(ctx, EINVAL, "pv_header %s list has more than %u entries", what,
                             LVX_LABEL_MAX_LOCNS);
        list[n].offset = offset;
        list[n].size = size;
        n++;
    }
    *count = n;
    return 0;
}

static int decode_header_fields(struct lvx_ctx *ctx, const uint8_t *s, unsigned sector)
{
    if (lvx_get_le64(s + LABEL_SECTOR_OFF) != sector)
        return lvx_error(ctx, ENOENT, "label in sector %u records sector %llu: ignored", sector,
                         (unsigned long long)lvx_get_le64(s + LABEL_SECTOR_OFF));
    uint32_t want = lvx_get_le32(s + LABEL_CRC_OFF);
    uint32_t got = lvx_crc(LVX_CRC_INITIAL, s + LABEL_OFFSET_OFF,
                           LVX_SECTOR_SIZE - LABEL_OFFSET_OFF);
    if (want != got)
        return lvx_error(ctx, EINVAL, "label checksum mismatch in sector %u", sector);
    if (memcmp(s + LABEL_TYPE_OFF, LVX_LABEL_TYPE, 8) != 0)
        return lvx_error(ctx, EINVAL, "label in sector %u has unknown type (not \"%s\")", sector,
                         LVX_LABEL_TYPE);
    return 0;
}

static int decode_extension(struct lvx_ctx *ctx, const uint8_t *s, size_t pos,
                            struct lvx_label *out)
{
    if (pos + EXT_FIXED_SIZE > LVX_SECTOR_SIZE)
        return lvx_error(ctx, EINVAL, "pv_header extension runs past the label sector");
    out->ext_version = lvx_get_le32(s + pos);
    out->ext_flags = lvx_get_le32(s + pos + 4);
    if (out->ext_version == 0) {
        out->ext_flags = 0;     /* no extension: flags and bootloader areas do not exist */
        return 0;
    }
    pos += EXT_FIXED_SIZE;
    return decode_locn_list(ctx, s, &pos, out->ba, &out->ba_count, "bootloader area");
}

int lvx_label_decode(struct lvx_ctx *ctx, const uint8_t *sector_buf, unsigned sector,
                     struct lvx_label *out)
{
    const uint8_t *s = sector_buf;

    memset(out, 0, sizeof(*out));
    if (!lvx_label_sector_looks_like_label(s))
        return lvx_error(ctx, ENOENT, "no label in sector %u", sector);
    int r = decode_header_fields(ctx, s, sector);
    if (r < 0)
        return r;

    uint32_t off = lvx_get_le32(s + LABEL_OFFSET_OFF);
    if (off < LABEL_HEADER_SIZE || off > LVX_SECTOR_SIZE - PVH_FIXED_SIZE)
        return lvx_error(ctx, EINVAL, "pv_header offset %u in sector %u is outside the label sector",
                         off, sector);
    const uint8_t *pvh = s + off;
    if (!uuid_chars_valid((const char *)pvh))
        return lvx_error(ctx, EINVAL, "invalid PV UUID in label (sector %u)", sector);

    out->sector = sector;
    out->offset = off;
    memcpy(out->pv_uuid, pvh, PVH_UUID_LEN);
    out->pv_uuid[PVH_UUID_LEN] = '\0';
    out->device_size = lvx_get_le64(pvh + PVH_UUID_LEN);

    size_t pos = off + PVH_FIXED_SIZE;
    r = decode_locn_list(ctx, s, &pos, out->data, &out->data_count, "data area");
    if (r == 0)
        r = decode_locn_list(ctx, s, &pos, out->mda, &out->mda_count, "metadata area");
    if (r == 0)
        r = decode_extension(ctx, s, pos, out);
    return r;
}

int lvx_label_find(struct lvx_ctx *ctx, const uint8_t *buf, size_t len, struct lvx_label *out)
{
    int saved_err = ctx->err;
    char saved_msg[sizeof(ctx->errmsg)];
    char first_msg[sizeof(ctx->errmsg)];
    bool damaged = false;

    memcpy(saved_msg, ctx->errmsg, sizeof(saved_msg));
    for (unsigned s = 0; s < LVX_LABEL_SCAN_SECTORS; s++) {
        if ((size_t)(s + 1) * LVX_SECTOR_SIZE > len)
            break;
        const uint8_t *sec = buf + (size_t)s * LVX_SECTOR_SIZE;
        if (!lvx_label_sector_looks_like_label(sec))
            continue;
        struct lvx_label cand;
        int r = lvx_label_decode(ctx, sec, s, &cand);
        if (r == 0) {
            *out = cand;
            ctx->err = saved_err;
            memcpy(ctx->errmsg, saved_msg, sizeof(saved_msg));
            return 0;
        }
        if (r != -ENOENT && !damaged) {
            damaged = true;
            memcpy(first_msg, ctx->errmsg, sizeof(first_msg));
        }
    }
    memset(out, 0, sizeof(*out));
    if (damaged)
        return lvx_error(ctx, EINVAL, "%s", first_msg);
    return lvx_error(ctx, ENOENT, "no LVM2 label found in sectors 0-%u",
                     LVX_LABEL_SCAN_SECTORS - 1);
}

static int encode_locn_list(struct lvx_ctx *ctx, uint8_t *s, size_t *pos,
                            const struct lvx_disk_locn *list, unsigned count, const char *what)
{
    if (count > LVX_LABEL_MAX_LOCNS)
        return lvx_error(ctx, EINVAL, "cannot encode %u %s entries (at most %u)", count, what,
                         LVX_LABEL_MAX_LOCNS);
    for (unsigned i = 0; i <= count; i++) {
        if (*pos + LOCN_SIZE > LVX_SECTOR_SIZE)
            return lvx_error(ctx, EINVAL, "pv_header %s list does not fit in the label sector",
                             what);
        if (i < count) {
            if (list[i].offset == 0)
                return lvx_error(ctx, EINVAL, "%s entry %u has offset 0, which ends the list",
                                 what, i);
            lvx_put_le64(s + *pos, list[i].offset);
            lvx_put_le64(s + *pos + 8, list[i].size);
        }
        *pos += LOCN_SIZE;       /* the terminator stays zero */
    }
    return 0;
}

int lvx_label_encode(struct lvx_ctx *ctx, const struct lvx_label *label, uint8_t sector_buf[512])
{
    uint8_t *s = sector_buf;

    memset(s, 0, LVX_SECTOR_SIZE);
    if (label->sector >= LVX_LABEL_SCAN_SECTORS)
        return lvx_error(ctx, EINVAL, "label sector %u is not in 0..%u", label->sector,
                         LVX_LABEL_SCAN_SECTORS - 1);
    if (strlen(label->pv_uuid) != PVH_UUID_LEN || !uuid_chars_valid(label->pv_uuid))
        return lvx_error(ctx, EINVAL, "invalid PV UUID \"%.40s\" for the label", label->pv_uuid);

    memcpy(s + LABEL_ID_OFF, LVX_LABEL_ID, 8);
    lvx_put_le64(s + LABEL_SECTOR_OFF, label->sector);
    lvx_put_le32(s + LABEL_OFFSET_OFF, LABEL_HEADER_SIZE);
    memcpy(s + LABEL_TYPE_OFF, LVX_LABEL_TYPE, 8);
    memcpy(s + LABEL_HEADER_SIZE, label->pv_uuid, PVH_UUID_LEN);
    lvx_put_le64(s + LABEL_HEADER_SIZE + PVH_UUID_LEN, label->device_size);

    size_t pos = LABEL_HEADER_SIZE + PVH_FIXED_SIZE;
    int r = encode_locn_list(ctx, s, &pos, label->data, label->data_count, "data area");
    if (r == 0)
        r = encode_locn_list(ctx, s, &pos, label->mda, label->mda_count, "metadata area");
    if (r == 0 && label->ext_version != 0) {
        if (pos + EXT_FIXED_SIZE > LVX_SECTOR_SIZE)
            r = lvx_error(ctx, EINVAL, "pv_header extension does not fit in the label sector");
        else {
            lvx_put_le32(s + pos, label->ext_version);
            lvx_put_le32(s + pos + 4, label->ext_flags);
            pos += EXT_FIXED_SIZE;
            r = encode_locn_list(ctx, s, &pos, label->ba, label->ba_count, "bootloader area");
        }
    }
    if (r < 0) {
        memset(s, 0, LVX_SECTOR_SIZE);
        return r;
    }
    lvx_put_le32(s + LABEL_CRC_OFF, lvx_crc(LVX_CRC_INITIAL, s + LABEL_OFFSET_OFF,
                                            LVX_SECTOR_SIZE - LABEL_OFFSET_OFF));
    return 0;
}
