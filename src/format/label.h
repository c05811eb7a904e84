/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/label.h - the LVM2 label (sectors 0-3), pv_header and pv_header_extension
 * (lvm2-format.md §2, §3).  Pure byte work: decode from / encode to buffers.
 */
#ifndef LVX_FORMAT_LABEL_H
#define LVX_FORMAT_LABEL_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/ctx.h"

#define LVX_SECTOR_SIZE 512u
#define LVX_LABEL_SCAN_SECTORS 4u            /* label may be in sectors 0..3 */
#define LVX_LABEL_SCAN_BYTES (LVX_LABEL_SCAN_SECTORS * LVX_SECTOR_SIZE)
#define LVX_LABEL_ID "LABELONE"
#define LVX_LABEL_TYPE "LVM2 001"
#define LVX_PV_EXT_USED 0x1u
#define LVX_LABEL_MAX_LOCNS 8u               /* per list; LVM2 writes 1 data area, <=2 mdas, <=1 BA */

struct lvx_disk_locn {
    uint64_t offset;    /* absolute bytes */
    uint64_t size;      /* bytes (0 for the data area: to the end of the device) */
};

struct lvx_label {
    unsigned sector;                 /* 0..3 */
    uint32_t offset;                 /* pv_header offset inside the sector (32) */
    char pv_uuid[33];                /* raw 32 chars + NUL */
    uint64_t device_size;            /* bytes */
    unsigned data_count;
    struct lvx_disk_locn data[LVX_LABEL_MAX_LOCNS];
    unsigned mda_count;
    struct lvx_disk_locn mda[LVX_LABEL_MAX_LOCNS];
    uint32_t ext_version;            /* 0 = no extension */
    uint32_t ext_flags;
    unsigned ba_count;
    struct lvx_disk_locn ba[LVX_LABEL_MAX_LOCNS];
};

/*
 * Find and decode the label in the first 2048 bytes of a device (buf holds len
 * bytes, len >= 2048 unless the device is smaller).  Returns 0 when a valid label
 * was found, -ENOENT when none of sectors 0..3 carries one, -EINVAL (with a
 * message naming the problem, e.g. "label checksum mismatch in sector 1") when a
 * sector starts with LABELONE but is damaged and no valid label follows it.
 */
int lvx_label_find(struct lvx_ctx *ctx, const uint8_t *buf, size_t len, struct lvx_label *out);

/* Decode one 512-byte sector claimed to hold a label in sector number `sector`. */
int lvx_label_decode(struct lvx_ctx *ctx, const uint8_t *sector_buf, unsigned sector,
                     struct lvx_label *out);

/* Encode a label (id, sector, offset 32, type, pv_header, extension, CRC) into a
 * zeroed 512-byte sector.  -EINVAL if it does not fit in the sector. */
int lvx_label_encode(struct lvx_ctx *ctx, const struct lvx_label *label, uint8_t sector_buf[512]);

/* True if the 512 bytes look like a label (LABELONE id), valid or not: pvremove wipes these. */
bool lvx_label_sector_looks_like_label(const uint8_t *sector_buf);

#endif
