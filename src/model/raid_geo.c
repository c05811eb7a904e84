/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/raid_geo.c - md's placement of sectors on RAID legs, one geometry
 * (model/raid_geo.h).
 *
 *   parity RAID, LV chunk c: stripe s = c div d, data index k = c mod d (d data
 *   legs); P and data legs by md's layout number: la (0): P = d - s mod n, k (+1 past
 *   P); ra (1): P = s mod n, k (+1 past P); ls (2) / rs (3): P as la / ra, data
 *   (P + 1 + k) mod n; raid4 PARITY_0 (4): P = 0, k + 1; PARITY_N (5: raid5_n,
 *   raid6_n_6): P = d, Q = d + 1, k; raid6 zr (8): P = s mod n, nr (9): P = n-1 -
 *   (s+1) mod n, both Q = P + 1 (0 after the last leg), data k + 1 when P is the last
 *   leg, else k (+2 past P); nc (10): P = n-1 - s mod n, Q = P - 1 (n-1 before leg 0),
 *   data (P + 1 + k) mod n; la_6 .. ra_6, PARITY_0_6 (16..20): raid5's layout over
 *   legs 0..n-2, Q = n-1.
 *   raid10 near: chunk k's copies on legs (k*c + j) mod n, row (k*c + j) div n.
 */
#include "model/raid_geo.h"

#include <pthread.h>

unsigned lvx_raid_geo_p_leg(const struct lvx_raid_geo *g, uint64_t stripe)
{
    unsigned n = g->legs, d = n - g->parity, m = (unsigned)(stripe % n);
    switch (g->layout) {
    case 0: case 2: return d - m;          /* left asymmetric / symmetric */
    case 1: case 3: return m;              /* right asymmetric / symmetric */
    case 4: return 0;                      /* PARITY_0: raid4 */
    case 8: return m;                      /* raid6 ROTATING_ZERO_RESTART */
    case 9: return n - 1 - (unsigned)((stripe + 1) % n);   /* ROTATING_N_RESTART */
    case 10: return n - 1 - m;             /* raid6 ROTATING_N_CONTINUE */
    /* raid6 *_6: raid5's layout over legs 0..n-2, Q on the last leg */
    case 16: case 18: return d - (unsigned)(stripe % (n - 1));
    case 17: case 19: return (unsigned)(stripe % (n - 1));
    case 20: return 0;
    default: return d;                     /* PARITY_N (raid5_n, raid6_n_6) */
    }
}

unsigned lvx_raid_geo_q_leg(const struct lvx_raid_geo *g, uint64_t stripe)
{
    if (g->parity < 2)
        return g->legs;
    unsigned p = lvx_raid_geo_p_leg(g, stripe);
    if (g->layout == 10)
        return (p + g->legs - 1) % g->legs;
    if (g->layout >= 16)
        return g->legs - 1;
    return p == g->legs - 1 ? 0 : p + 1;
}

unsigned lvx_raid_geo_data_leg(const struct lvx_raid_geo *g, uint64_t stripe, unsigned k)
{
    unsigned p = lvx_raid_geo_p_leg(g, stripe);
    switch (g->layout) {
    case 0: case 1: return k >= p ? k + 1 : k;
    case 2: case 3: case 10: return (p + 1 + k) % g->legs;
    case 4: return k + 1;
    case 8: case 9: return p == g->legs - 1 ? k + 1 : k >= p ? k + 2 : k;
    case 16: case 17: return k >= p ? k + 1 : k;
    case 18: case 19: return (p + 1 + k) % (g->legs - 1);
    case 20: return k + 1;
    default: return k;
    }
}

unsigned lvx_raid_geo_q_exp(const struct lvx_raid_geo *g, uint64_t stripe, unsigned k)
{
    unsigned leg = lvx_raid_geo_data_leg(g, stripe, k);
    if (g->layout >= 8 && g->layout <= 10)
        return leg;
    return leg - (leg > lvx_raid_geo_p_leg(g, stripe)) - (leg > lvx_raid_geo_q_leg(g, stripe));
}

unsigned lvx_raid_geo_locate(const struct lvx_raid_geo *g, uint64_t s, uint64_t *stripe,
                             uint64_t *off)
{
    uint64_t c = s / g->chunk;
    unsigned d = lvx_raid_geo_data_legs(g);
    *stripe = c / d;
    *off = s % g->chunk;
    return lvx_raid_geo_data_leg(g, *stripe, (unsigned)(c % d));
}

unsigned lvx_raid_geo_copy(const struct lvx_raid_geo *g, uint64_t s, unsigned j,
                           uint64_t *leg_sector, uint64_t *run)
{
    uint64_t k = s / g->chunk, in = s % g->chunk;
    uint64_t slot = k * g->copies + j;
    *leg_sector = g->data_offset + slot / g->legs * g->chunk + in;
    *run = g->chunk - in;
    return (unsigned)(slot % g->legs);
}

/* --- GF(2^8) ------------------------------------------------------------------- */

static uint8_t gf_exp[512], gf_log[256];
static pthread_once_t gf_once = PTHREAD_ONCE_INIT;

static void gf_fill(void)
{
    unsigned x = 1;
    for (unsigned i = 0; i < 255; i++) {
        gf_exp[i] = gf_exp[i + 255] = (uint8_t)x;
        gf_log[x] = (uint8_t)i;
        x <<= 1;
        if (x & 0x100)
            x ^= 0x11D;
    }
}

void lvx_gf_init(void)
{
    pthread_once(&gf_once, gf_fill);
}

uint8_t lvx_gf_exp(unsigned i)
{
    return gf_exp[i];
}

uint8_t lvx_gf_log(uint8_t x)
{
    return gf_log[x];
}

void lvx_gf_q_acc(uint8_t *q, const uint8_t *src, size_t bytes, unsigned j)
{
    for (size_t i = 0; i < bytes; i++)
        if (src[i])
            q[i] ^= gf_exp[gf_log[src[i]] + j % 255];
}

void lvx_gf_mul_acc(uint8_t *dst, const uint8_t *src, size_t bytes, uint8_t c)
{
    for (size_t i = 0; i < bytes; i++)
        if (src[i])
            dst[i] ^= gf_exp[gf_log[src[i]] + gf_log[c]];
}

void lvx_gf_scale(uint8_t *dst, size_t bytes, uint8_t c)
{
    for (size_t i = 0; i < bytes; i++)
        if (dst[i])
            dst[i] = gf_exp[gf_log[dst[i]] + gf_log[c]];
}
