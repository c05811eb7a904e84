/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/crc.h - LVM2's CRC-32 variant (lvm2-format.md §5): reflected polynomial
 * 0xEDB88320, initial value 0xF597A6CF, no final XOR.  Continuable: pass the
 * previous result as seed to checksum data split in pieces (wrapped text).
 */
#ifndef LVX_FORMAT_CRC_H
#define LVX_FORMAT_CRC_H

#include <stddef.h>
#include <stdint.h>

#define LVX_CRC_INITIAL 0xF597A6CFu

uint32_t lvx_crc(uint32_t seed, const void *data, size_t len);

#endif
