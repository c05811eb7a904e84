/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/endian.h - little-endian load/store helpers for the on-disk structures.
 * Never cast a struct over a disk buffer: read and write fields through these.
 */
#ifndef LVX_FORMAT_ENDIAN_H
#define LVX_FORMAT_ENDIAN_H

#include <stdint.h>

static inline uint32_t lvx_get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t lvx_get_le64(const uint8_t *p)
{
    return (uint64_t)lvx_get_le32(p) | (uint64_t)lvx_get_le32(p + 4) << 32;
}

static inline void lvx_put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void lvx_put_le64(uint8_t *p, uint64_t v)
{
    lvx_put_le32(p, (uint32_t)v);
    lvx_put_le32(p + 4, (uint32_t)(v >> 32));
}

#endif
