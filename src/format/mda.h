/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/mda.h - metadata area header (mda_header with raw_locn slots) and the
 * circular text buffer (lvm2-format.md §4, §6).  Pure byte work and arithmetic:
 * the caller (meta/) does the device I/O.
 */
#ifndef LVX_FORMAT_MDA_H
#define LVX_FORMAT_MDA_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/ctx.h"

#define LVX_MDA_HEADER_SIZE 512u
#define LVX_MDA_MAGIC " LVM2 x[5A%r0N*>"    /* 16 bytes, no NUL */
#define LVX_MDA_VERSION 1u
#define LVX_RAW_LOCN_IGNORED 0x1u
#define LVX_MDA_MIN_SIZE 32768u

struct lvx_raw_locn {
    uint64_t offset;     /* relative to the area start; 0 = empty */
    uint64_t size;       /* bytes, NUL included */
    uint32_t checksum;   /* CRC of the text */
    uint32_t flags;      /* LVX_RAW_LOCN_IGNORED (slot 0 only) */
};

struct lvx_mda_header {
    uint32_t checksum;
    uint32_t version;
    uint64_t start;                 /* absolute offset of the header */
    uint64_t size;                  /* area size, header included */
    struct lvx_raw_locn slot[2];    /* 0 committed, 1 precommitted */
};

/* Decode and validate (checksum, magic, version, start == expected_start, size >= 512,
 * slot 0 within the area).  -EINVAL with a precise message on failure. */
int lvx_mda_header_decode(struct lvx_ctx *ctx, const uint8_t *sector_buf,
                          uint64_t expected_start, struct lvx_mda_header *out);
/* Encode into a 512-byte sector (zero padding, magic, version, checksum computed). */
void lvx_mda_header_encode(const struct lvx_mda_header *hdr, uint8_t sector_buf[512]);

/* A piece of the text in the area: [offset, offset+len) relative to the area start. */
struct lvx_mda_range {
    uint64_t offset;
    uint64_t len;
};

/* The 1 or 2 pieces holding the text of a slot (wrap of §6.3).  -EINVAL if the slot
 * does not fit the area (size > max text, offset outside [512, size), ...). */
int lvx_mda_text_ranges(struct lvx_ctx *ctx, uint64_t area_size, const struct lvx_raw_locn *locn,
                        struct lvx_mda_range out[2], unsigned *count);

/* Largest text (NUL included) one copy may have: floor((S-512)/2) - 512. */
uint64_t lvx_mda_max_text_size(uint64_t area_size);

/* Where a writer puts the next copy of `new_size` bytes (§6.4), given the current
 * slot 0 (ignored/empty slot: no old copy).  Fills offset/size; -ENOSPC with a
 * message when new_size exceeds the maximum. */
int lvx_mda_next_location(struct lvx_ctx *ctx, uint64_t area_size, const struct lvx_raw_locn *old,
                          uint64_t new_size, struct lvx_raw_locn *out);

/* Bytes of the text that parse as "<vgname> {": cheap check LVM2 does before parsing.
 * Fills name (up to 128 bytes) on success. */
int lvx_mda_text_vgname(struct lvx_ctx *ctx, const char *text, size_t len, char name[128]);

#endif
