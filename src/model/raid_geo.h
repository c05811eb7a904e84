/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid_geo.h - md's placement of a RAID LV's sectors on its legs, one
 * geometry at a time (docs/dm-formats.md §5.2): raid4/5/6 parity and Q legs and
 * data legs per stripe by md's layout number, raid6 Q coefficients and GF(2^8)
 * arithmetic, raid10 near copies.  Pure arithmetic shared by the daemon's targets
 * (daemon/target_parity.c, daemon/target_raid.c) and the reshape model
 * (model/raid_reshape.c), which needs two geometries of one array at once.
 */
#ifndef LVX_MODEL_RAID_GEO_H
#define LVX_MODEL_RAID_GEO_H

#include <stddef.h>
#include <stdint.h>

struct lvx_raid_geo {
    unsigned legs;                  /* raid_disks */
    unsigned parity;                /* parity legs: 0 (raid10), 1 (raid4/5), 2 (raid6) */
    unsigned copies;                /* raid10 near copies (1 for parity RAID) */
    uint32_t layout;                /* md's layout number (raid10: ignored) */
    uint64_t chunk;                 /* sectors per chunk */
    uint64_t data_offset;           /* sectors into each rimage where row 0 starts */
};

/* Data legs of a stripe (parity RAID). */
static inline unsigned lvx_raid_geo_data_legs(const struct lvx_raid_geo *g)
{
    return g->legs - g->parity;
}

/* Parity RAID: the P leg of stripe `stripe`; the Q leg (raid6; g->legs without one);
 * the leg of data index k (0 .. data legs - 1); the power of g that data index k has
 * in Q (md's DDF layouts zr, nr, nc number every leg, the others the data legs in
 * leg order). */
unsigned lvx_raid_geo_p_leg(const struct lvx_raid_geo *g, uint64_t stripe);
unsigned lvx_raid_geo_q_leg(const struct lvx_raid_geo *g, uint64_t stripe);
unsigned lvx_raid_geo_data_leg(const struct lvx_raid_geo *g, uint64_t stripe, unsigned k);
unsigned lvx_raid_geo_q_exp(const struct lvx_raid_geo *g, uint64_t stripe, unsigned k);

/* Parity RAID: LV sector s -> its stripe, the offset in the chunk, and (returned) its
 * data leg.  The rimage sector is data_offset + stripe * chunk + *off. */
unsigned lvx_raid_geo_locate(const struct lvx_raid_geo *g, uint64_t s, uint64_t *stripe,
                             uint64_t *off);

/* raid10 near: copy j (< copies) of LV sector s -> (returned) its leg, its rimage
 * sector (data_offset included) in *leg_sector, sectors to the chunk's end in *run. */
unsigned lvx_raid_geo_copy(const struct lvx_raid_geo *g, uint64_t s, unsigned j,
                           uint64_t *leg_sector, uint64_t *run);

/* GF(2^8), polynomial 0x11D, generator 2 (md's raid6 Q).  lvx_gf_init() before the
 * rest (idempotent, thread-safe). */
void lvx_gf_init(void);
uint8_t lvx_gf_exp(unsigned i);     /* g^i, i < 510 */
uint8_t lvx_gf_log(uint8_t x);      /* x != 0 */
/* q ^= g^j * src; dst ^= c * src; dst = c * dst (c != 0); bytes long. */
void lvx_gf_q_acc(uint8_t *q, const uint8_t *src, size_t bytes, unsigned j);
void lvx_gf_mul_acc(uint8_t *dst, const uint8_t *src, size_t bytes, uint8_t c);
void lvx_gf_scale(uint8_t *dst, size_t bytes, uint8_t c);

#endif
