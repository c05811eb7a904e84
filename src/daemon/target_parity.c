/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/target_parity.c - the daemon's parity RAID target: raid4, raid5 (ls, la,
 * rs, ra, n) and raid6 (zr, nr, nc, n_6, ls_6, la_6, rs_6, ra_6) LVs served over prepared mappings of their rimage
 * and rmeta sub-LVs with md's stripe geometry (docs/dm-formats.md §5.2), the dm-raid
 * superblock and bitmap kept by raid_core.c, so the same disks move between this
 * daemon and the kernel.
 *
 *   geometry LV chunk c (C sectors): stripe s = c div d, data index k = c mod d
 *            (d = legs - parity legs); the parity leg P and data leg of (s, k) by md's
 *            layout (computed by model/raid_geo.c):
 *            la: P = d - s mod n, k (+1 past P); ra: P = s mod n, k (+1 past P);
 *            ls: P = d - s mod n, (P + 1 + k) mod n; rs: P = s mod n, (P + 1 + k)
 *            mod n; raid4 (PARITY_0): P = 0, k + 1; raid5_n: P = d, k; raid6 zr:
 *            P = s mod n, nr: P = n-1 - (s+1) mod n, both Q = P + 1 (0 after the last
 *            leg), data k + 1 when P is the last leg, else k (+2 past P); nc
 *            (ROTATING_N_CONTINUE): P = n-1 - s mod n, Q = P - 1 (n-1 before leg 0),
 *            data (P + 1 + k) mod n; n_6 (PARITY_N): P = d, Q = d + 1, data k; ls_6,
 *            la_6, rs_6, ra_6: raid5's layout over legs 0..n-2, Q = n-1.  Row s of
 *            every leg is its sectors [s*C, (s+1)*C) after the data offset.
 *            P = XOR of the stripe's data chunks; raid6 Q = XOR of g^j * chunk over
 *            the data chunks (GF(2^8), 0x11D): j is the chunk's leg in md's DDF
 *            layouts (zr, nr, nc), else its position among the stripe's data legs
 *            in leg order (n_6, *_6).
 *   reads    from the data chunk; a chunk on a failed or missing leg is rebuilt
 *            from the other legs of its rows (data and P XORed, or from Q): with one
 *            data leg failed, in the same batch as the rest of the request (the other
 *            data it covers read once, in place), else piece by piece.
 *   writes   bitmap bits of the rows first (the bitmap counts leg sectors), then
 *            per stripe under its lock: a request covering the whole stripe writes
 *            data and parity without reading; a partial one reads the old data of
 *            the written ranges and the old P/Q (read-modify-write: P ^= old ^ new,
 *            Q ^= g^j (old ^ new)), or, with a data leg failed, the rows of the
 *            other legs (reconstruct-write).  A leg
 *            whose I/O fails is marked failed and the LV keeps serving on the rest:
 *            raid6 with two legs gone (a data chunk rebuilt from P or Q, two from
 *            both: Dx = (Q' ^ g^y P') / (g^x ^ g^y), Dy = P' ^ Dx).
 *   reshape  a reshape in progress, frozen (docs/reshape-user.md step 3): a request is
 *            cut at the recorded position and each piece served as above in the
 *            geometry that holds it (the new one on the moved side, the old one on the
 *            other); every function of the request path takes its geometry.
 *   resync   dirty regions: P (and Q) of their rows recomputed from the data; a
 *            rebuilt leg: data from P and the other data, P and Q from the data.
 *
 * Entry point: lvxd_target_parity (one line in target.c's table).
 */
#include "daemon/raid_core.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"
#include "model/raid_geo.h"

static const struct raid_geom parity_geom;

static bool parity_serves(const struct lvx_lv *lv)
{
    const struct lvx_raid_type *t = lvx_raid_type_find(lv->segs[0].type_name);
    return lvx_map_lv_is_raid(lv) && t && t->parity;
}

static int parity_ctr(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                      bool partial, const struct lvx_map_prepared **map, void **state)
{
    *state = NULL;
    *map = NULL;
    const struct lvx_seg *seg = &lv->segs[0];
    struct raid *r;
    int rc = raid_core_new(ctx, pool, lv, partial, &parity_geom, &r);
    if (rc < 0)
        return rc;
    uint32_t level = 0;
    r->parity = r->type->parity;
    lvx_gf_init();
    r->copies = 1;
    r->chunk = seg->stripe_size;
    r->stripe_sectors = (uint32_t)r->chunk;
    r->sync_size = r->leg_sectors;
    r->lv_per_bm = r->n - r->parity;
    if (!lvx_raid_md_level(r->dm_name, 0, &level, &r->md_layout) ||
        !(level == 5 ? r->md_layout <= 5
                     : r->md_layout == 5 || (r->md_layout >= 8 && r->md_layout <= 10) ||
                           (r->md_layout >= 16 && r->md_layout <= 20)))
        rc = lvx_error(ctx, ENOTSUP, "RAID LV %s/%s: layout %s is not served by the user-space "
                       "backend.", lv->vg->name, lv->name, r->dm_name);
    else if (r->n < (r->parity == 1 ? 2u : 4u) || !r->chunk)    /* md's minimum */
        rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: %s needs at least %u images and a stripe "
                       "size.", lv->vg->name, lv->name, r->type->name, r->parity == 1 ? 2u : 4u);
    else if (r->sectors > r->leg_sectors / r->chunk * r->chunk * (r->n - r->parity))
        rc = lvx_error(ctx, EINVAL, "RAID LV %s/%s: images too small for the LV.", lv->vg->name,
                       lv->name);
    if (rc == 0)
        rc = raid_core_alloc(ctx, lv, r);
    if (rc < 0) {
        raid_core_free(r);
        return rc;
    }
    *state = r;
    return 0;
}

/* --- geometry (model/raid_geo.c: md's placement, GF(2^8)) -------------------- */

/* The array's one geometry (outside a reshape); during one, each piece of a request
 * is served in the geometry that holds it (model/raid_reshape.h) and the helpers below
 * take that geometry. */
static inline struct lvx_raid_geo geo_of(const struct raid *r)
{
    return (struct lvx_raid_geo){ .legs = r->an, .parity = r->parity, .copies = 1,
                                  .layout = r->md_layout, .chunk = r->chunk,
                                  .data_offset = r->data_offset };
}

#define parity_leg lvx_raid_geo_p_leg
#define q_leg lvx_raid_geo_q_leg         /* raid6; g->legs without one */
#define data_leg lvx_raid_geo_data_leg
#define q_exp lvx_raid_geo_q_exp         /* raid6: power of g of data chunk k in Q */
#define locate lvx_raid_geo_locate       /* LV sector -> stripe, offset, data leg */
#define q_acc lvx_gf_q_acc
#define gf_mul_acc lvx_gf_mul_acc
#define gf_scale lvx_gf_scale

static inline unsigned dlegs(const struct lvx_raid_geo *G)
{
    return G->legs - G->parity;
}

/* Byte offset in the rimage of row offset `off` of stripe `stripe`. */
static uint64_t leg_byte(const struct lvx_raid_geo *G, uint64_t stripe, uint64_t off)
{
    return (G->data_offset + stripe * G->chunk + off) * 512;
}

static void xor_into(uint8_t *dst, const uint8_t *src, size_t bytes)
{
    uint64_t *a = (uint64_t *)(void *)dst;
    const uint64_t *b = (const uint64_t *)(const void *)src;
    for (size_t i = 0; i < bytes / 8; i++)
        a[i] ^= b[i];
}

static unsigned failed_legs(const struct raid *r, int *which)
{
    unsigned f = 0;
    *which = -1;
    for (unsigned i = 0; i < r->n; i++)
        if (!raid_leg_ok(r, i)) {
            f++;
            *which = (int)i;
        }
    return f;
}

static bool parity_covered(const struct raid *r)
{
    int w;
    return failed_legs(r, &w) <= r->parity;
}

/* --- leg I/O: a batch, and each op alone when it fails ---------------------------- */

struct lop {
    unsigned leg;
    bool write;
    uint64_t off;                   /* bytes into the rimage */
    uint32_t len;
    uint8_t *buf;
};

static int lop_add(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, const struct lop *o,
                   unsigned *n)
{
    return lvxd_io_map_add(io, v, r->legs[o->leg].data, o->write, o->off, o->len, o->buf, n);
}

/* Run ops (on live legs) together.  0: all done; 1: legs failed (marked, the
 * superblocks written); -errno: no leg to blame. */
static int run_lops(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, struct lop *ops,
                    unsigned cnt, bool locked)
{
    unsigned n = 0;
    int rc = 0;
    for (unsigned i = 0; i < cnt && rc == 0; i++)
        if (raid_leg_ok(r, ops[i].leg))
            rc = lop_add(io, v, r, &ops[i], &n);
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    if (rc == 0)
        return 0;
    if (!locked)
        pthread_mutex_lock(&r->mu);
    bool any = false;
    for (unsigned i = 0; i < cnt; i++) {
        unsigned m = 0;
        if (!raid_leg_ok(r, ops[i].leg))
            continue;
        int e = lop_add(io, v, r, &ops[i], &m);
        if (e == 0 && m)
            e = lvxd_io_run(io, m);
        if (e < 0) {
            raid_mark_failed_locked(v, r, ops[i].leg, ops[i].write ? "write error" : "read error");
            any = true;
        }
    }
    if (any && !locked)
        raid_write_state_locked(io, v, r, false);
    if (!locked)
        pthread_mutex_unlock(&r->mu);
    return any ? 1 : rc;
}

/* --- reads ------------------------------------------------------------------------ */

/* The data rows [off, off + bytes) (off: sectors into the chunk) of every data index
 * of stripe st into rowbuf (index k at k * bytes), read from the legs in `usable`;
 * up to `parity` data legs outside it are rebuilt: one from P (or from Q), two from P
 * and Q.  pb and qb (bytes each) are scratch.  0, 1 (a leg failed: marked; call
 * again with the new mask), or -errno. */
static int load_rows(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                     const struct lvx_raid_geo *G, uint64_t st,
                     uint64_t off, size_t bytes, uint64_t usable, uint8_t *rowbuf,
                     uint8_t *pb, uint8_t *qb, bool locked)
{
    unsigned d = dlegs(G), p = parity_leg(G, st), q = q_leg(G, st);
    unsigned miss[2], nm = 0, c = 0;
    struct lop ops[RAID_MAX_LEGS];
    for (unsigned k = 0; k < d; k++) {
        unsigned leg = data_leg(G, st, k);
        if ((usable >> leg) & 1)
            ops[c++] = (struct lop){ leg, false, leg_byte(G, st, off), (uint32_t)bytes,
                                     rowbuf + k * bytes };
        else if (nm == 2)
            return -EIO;
        else
            miss[nm++] = k;
    }
    bool pu = (usable >> p) & 1, qu = q < G->legs && ((usable >> q) & 1);
    bool use_p = nm && pu, use_q = qu && (nm == 2 || (nm == 1 && !pu));
    if ((nm == 1 && !pu && !qu) || (nm == 2 && !(pu && qu)))
        return -EIO;
    if (use_p)
        ops[c++] = (struct lop){ p, false, leg_byte(G, st, off), (uint32_t)bytes, pb };
    if (use_q)
        ops[c++] = (struct lop){ q, false, leg_byte(G, st, off), (uint32_t)bytes, qb };
    int rc = run_lops(io, v, r, ops, c, locked);
    if (rc != 0 || !nm)
        return rc;
    uint8_t *dx = rowbuf + miss[0] * bytes;
    if (nm == 1 && use_p) {                /* D = P ^ the other data */
        memcpy(dx, pb, bytes);
        for (unsigned k = 0; k < d; k++)
            if (k != miss[0])
                xor_into(dx, rowbuf + k * bytes, bytes);
        return 0;
    }
    /* Q' = Q ^ sum of g^leg * D over the data read */
    for (unsigned k = 0; k < d; k++)
        if (k != miss[0] && (nm == 1 || k != miss[1]))
            q_acc(qb, rowbuf + k * bytes, bytes, q_exp(G, st, k));
    unsigned lx = q_exp(G, st, miss[0]);
    if (nm == 1) {                         /* D = Q' / g^leg */
        memcpy(dx, qb, bytes);
        gf_scale(dx, bytes, lvx_gf_exp(255 - lx));
        return 0;
    }
    /* two: Dx ^ Dy = P' (P ^ the other data), g^x Dx ^ g^y Dy = Q' */
    unsigned ly = q_exp(G, st, miss[1]);
    uint8_t *dy = rowbuf + miss[1] * bytes;
    memcpy(dy, pb, bytes);
    for (unsigned k = 0; k < d; k++)
        if (k != miss[0] && k != miss[1])
            xor_into(dy, rowbuf + k * bytes, bytes);
    uint8_t gx = lvx_gf_exp(lx), gy = lvx_gf_exp(ly);
    gf_mul_acc(qb, dy, bytes, gy);         /* g^x Dx ^ g^y Dx ... = Q' ^ g^y P' */
    gf_scale(qb, bytes, lvx_gf_exp(255 - lvx_gf_log(gx ^ gy)));
    memcpy(dx, qb, bytes);
    xor_into(dy, dx, bytes);
    return 0;
}

static uint64_t ok_mask(const struct raid *r)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < r->n; i++)
        if (raid_leg_ok(r, i))
            m |= (uint64_t)1 << i;
    return m;
}

/* Rows [off, off+cnt) of data index k of `stripe`, rebuilt from the other legs. */
static int reconstruct(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                       const struct lvx_raid_geo *G, uint64_t stripe,
                       uint64_t off, uint64_t cnt, unsigned k, uint8_t *out)
{
    size_t bytes = cnt * 512;
    uint8_t *tmp;
    if (posix_memalign((void **)&tmp, 4096, bytes * (r->n + 2)))
        return -ENOMEM;
    int rc = 1;
    for (int attempt = 0; attempt < 3 && rc == 1; attempt++)
        rc = load_rows(io, v, r, G, stripe, off, bytes, ok_mask(r), tmp + 2 * bytes, tmp,
                       tmp + bytes, false);
    if (rc == 0)
        memcpy(out, tmp + (2 + k) * bytes, bytes);
    free(tmp);
    return rc < 0 ? rc : (rc ? -EIO : 0);
}

/* Take shared (lock true) or release the stripe locks in mask (bit st % 64), in index
 * order. */
static void lock_stripes(struct raid *r, uint64_t mask, bool lock)
{
    for (unsigned i = 0; i < 64; i++)
        if ((mask >> i) & 1) {
            if (lock)
                pthread_rwlock_rdlock(&r->stripe_mu[i]);
            else
                pthread_rwlock_unlock(&r->stripe_mu[i]);
        }
}

/* A read with one failed data leg, in one batch: the pieces on live legs read in
 * place, each piece of the failed leg rebuilt as P ^ the other data of its rows (read
 * in place too when the request covers them, else into scratch).  The locks of the
 * stripes rebuilt held shared across (the others are read as a healthy read is,
 * without); shared, as reads do not change a stripe: 16 requests of 1 MiB in flight
 * span more than the 64 locks).  0, 1 (not this case: not exactly one leg failed, or no piece on it), or
 * -errno (the caller goes piece by piece). */
static int read_degraded(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                         const struct lvx_raid_geo *G, uint64_t s,
                         uint64_t end, uint8_t *buf)
{
    int bad;
    if (failed_legs(r, &bad) != 1)
        return 1;
    unsigned d = dlegs(G);
    uint64_t sw = d * G->chunk, st0 = s / sw, st1 = (end - 1) / sw;
    uint64_t nst = st1 - st0 + 1;
    /* per stripe at most one piece on the failed leg: its sources (P and the other
     * data) and scratch for those the request does not cover (at most d times the
     * pieces on the failed leg, which are at most the request) */
    uint8_t *scratch, **srcs, *sc;
    if (posix_memalign((void **)&scratch, 4096, d * (end - s) * 512))
        return -ENOMEM;
    srcs = malloc(nst * (d + 2) * sizeof(*srcs));
    if (!srcs) {
        free(scratch);
        return -ENOMEM;
    }
    sc = scratch;
    uint64_t locks = 0;
    for (uint64_t x = s; x < end;) {
        uint64_t st, o;
        if (!raid_leg_ok(r, locate(G, x, &st, &o)))
            locks |= (uint64_t)1 << (st % 64);
        x += G->chunk - o < end - x ? G->chunk - o : end - x;
    }
    lock_stripes(r, locks, true);
    unsigned n = 0, nmiss = 0;
    int rc = 0;
    for (uint64_t x = s; x < end && rc == 0;) {
        uint64_t st, o;
        unsigned leg = locate(G, x, &st, &o);
        uint64_t cnt = G->chunk - o < end - x ? G->chunk - o : end - x;
        uint32_t bytes = (uint32_t)(cnt * 512);
        uint8_t *dst = buf + (x - s) * 512;
        x += cnt;
        if (raid_leg_ok(r, leg)) {
            rc = lvxd_io_map_add(io, v, r->legs[leg].data, false, leg_byte(G, st, o), bytes,
                                 dst, &n);
            continue;
        }
        /* a row of srcs: dst, P, the d-1 other data, the length (as a pointer) */
        uint8_t **row = srcs + nmiss * (d + 2);
        unsigned p = parity_leg(G, st), k = (unsigned)((x - cnt) / G->chunk % d), m = 0;
        nmiss++;
        row[m++] = dst;
        rc = lvxd_io_map_add(io, v, r->legs[p].data, false, leg_byte(G, st, o), bytes, sc, &n);
        row[m++] = sc;
        sc += bytes;
        for (unsigned j = 0; j < d && rc == 0; j++) {
            uint64_t at = st * sw + j * G->chunk + o;   /* LV sector of the same rows */
            if (j == k)
                continue;
            if (at >= s && at + cnt <= end) {
                row[m++] = buf + (at - s) * 512;        /* read in place by this batch */
                continue;
            }
            row[m++] = sc;
            rc = lvxd_io_map_add(io, v, r->legs[data_leg(G, st, j)].data, false,
                                 leg_byte(G, st, o), bytes, sc, &n);
            sc += bytes;
        }
        row[d + 1] = (uint8_t *)(uintptr_t)bytes;
    }
    if (rc == 0 && !nmiss)
        rc = 1;
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    for (unsigned i = 0; i < nmiss && rc == 0; i++) {
        uint8_t **row = srcs + i * (d + 2);
        size_t bytes = (size_t)(uintptr_t)row[d + 1];
        memcpy(row[0], row[1], bytes);
        for (unsigned j = 2; j <= d; j++)
            xor_into(row[0], row[j], bytes);
    }
    lock_stripes(r, locks, false);
    free(srcs);
    free(scratch);
    return rc;
}

static int parity_read(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                       const struct lvx_raid_geo *G, uint64_t off,
                       uint32_t len, uint8_t *buf)
{
    uint64_t s = off / 512, end = (off + len) / 512, sw = (dlegs(G)) * G->chunk;
    unsigned n = 0;
    /* the regions of the stripes still out of sync are synced before they are read */
    uint64_t r1 = ((end - 1) / sw + 1) * G->chunk - 1;
    r1 /= r->region;
    int rc = raid_sync_gate(io, v, r, s / sw * G->chunk / r->region,
                            r1 < r->regions ? r1 : r->regions - 1);
    if (rc < 0)
        return rc;
    /* fast path: every piece from its data leg, one batch */
    for (uint64_t x = s; x < end && rc == 0;) {
        uint64_t st, o;
        unsigned leg = locate(G, x, &st, &o);
        uint64_t cnt = G->chunk - o < end - x ? G->chunk - o : end - x;
        rc = !raid_leg_ok(r, leg) ? -EIO
                                  : lvxd_io_map_add(io, v, r->legs[leg].data, false,
                                                    leg_byte(G, st, o), (uint32_t)(cnt * 512),
                                                    buf + (x - s) * 512, &n);
        x += cnt;
    }
    if (rc == 0 && n)
        rc = lvxd_io_run(io, n);
    if (rc == 0 || (rc = read_degraded(io, v, r, G, s, end, buf)) == 0)
        return 0;
    /* slow path: piece by piece, failed legs rebuilt from the others */
    for (uint64_t x = s; x < end;) {
        uint64_t st, o;
        unsigned leg = locate(G, x, &st, &o);
        uint64_t cnt = G->chunk - o < end - x ? G->chunk - o : end - x;
        uint8_t *p = buf + (x - s) * 512;
        struct lop op = { leg, false, leg_byte(G, st, o), (uint32_t)(cnt * 512), p };
        rc = raid_leg_ok(r, leg) ? run_lops(io, v, r, &op, 1, false) : 1;
        if (rc == 1) {
            pthread_rwlock_rdlock(&r->stripe_mu[st % 64]);
            rc = reconstruct(io, v, r, G, st, o, cnt,
                             (unsigned)(x / G->chunk % (dlegs(G))), p);
            pthread_rwlock_unlock(&r->stripe_mu[st % 64]);
        }
        if (rc < 0)
            return rc;
        x += cnt;
    }
    return 0;
}

/* --- writes ----------------------------------------------------------------------- */

/* Write LV sectors [a, b) of stripe `st` from src (LV sector a).  Stripe lock held.
 * 0, 1 (a leg failed while reading: try again), or -errno. */
static int write_stripe_once(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                             const struct lvx_raid_geo *G,
                             uint64_t st, uint64_t a, uint64_t b, const uint8_t *src)
{
    unsigned d = dlegs(G), p = parity_leg(G, st), q = q_leg(G, st);
    uint64_t base = st * d * G->chunk, C = G->chunk;
    unsigned k0 = (unsigned)((a - base) / C), k1 = (unsigned)((b - 1 - base) / C);
    uint64_t o0 = k0 == k1 ? (a - base) % C : 0, o1 = k0 == k1 ? (b - 1 - base) % C + 1 : C;
    size_t rows = (o1 - o0) * 512;
    bool full = a == base && b == base + d * C;
    int miss;
    if (failed_legs(r, &miss) > r->parity)
        return -EIO;
    bool pok = raid_leg_ok(r, p), qok = q < G->legs && raid_leg_ok(r, q);
    unsigned dmiss = 0;                    /* failed data legs */
    for (unsigned k = 0; k < d; k++)
        dmiss += !raid_leg_ok(r, data_leg(G, st, k));
    uint8_t *pb, *qb, *rowbuf;
    struct lop ops[2 * RAID_MAX_LEGS];
    unsigned c = 0;
    if (posix_memalign((void **)&pb, 4096, rows * (r->n + 2)))
        return -ENOMEM;
    qb = pb + rows;
    rowbuf = qb + rows;                    /* rows of data index k: rowbuf + k*rows */
    int rc = 0;
    /* the new data of data index k: [K_A, K_B) of its chunk, at K_SRC */
#define K_A(k) ((k) == k0 ? (a - base) % C : 0)
#define K_B(k) ((k) == k1 ? (b - 1 - base) % C + 1 : C)
#define K_SRC(k) (src + ((base + (uint64_t)(k) * C + K_A(k)) - a) * 512)
    if (full) {                            /* no reads */
        memset(pb, 0, 2 * rows);
        for (unsigned k = 0; k < d; k++) {
            xor_into(pb, K_SRC(k), rows);
            if (qok)
                q_acc(qb, K_SRC(k), rows, q_exp(G, st, k));
        }
    } else if (!dmiss && (pok || qok)) {   /* read-modify-write */
        if (pok)
            ops[c++] = (struct lop){ p, false, leg_byte(G, st, o0), (uint32_t)rows, pb };
        if (qok)
            ops[c++] = (struct lop){ q, false, leg_byte(G, st, o0), (uint32_t)rows, qb };
        for (unsigned k = k0; k <= k1; k++)
            ops[c++] = (struct lop){ data_leg(G, st, k), false, leg_byte(G, st, K_A(k)),
                                     (uint32_t)((K_B(k) - K_A(k)) * 512),
                                     rowbuf + k * rows + (K_A(k) - o0) * 512 };
        if ((rc = run_lops(io, v, r, ops, c, false)) != 0)
            goto out;
        for (unsigned k = k0; k <= k1; k++) {
            size_t at = (K_A(k) - o0) * 512, sz = (K_B(k) - K_A(k)) * 512;
            uint8_t *delta = rowbuf + k * rows + at;     /* old ^ new */
            xor_into(delta, K_SRC(k), sz);
            xor_into(pb + at, delta, sz);
            if (qok)
                q_acc(qb + at, delta, sz, q_exp(G, st, k));
        }
    } else if (dmiss) {                    /* reconstruct-write: rows of the others */
        if ((rc = load_rows(io, v, r, G, st, o0, rows, ok_mask(r), rowbuf, pb, qb, false)) != 0)
            goto out;
        for (unsigned k = k0; k <= k1; k++)
            memcpy(rowbuf + k * rows + (K_A(k) - o0) * 512, K_SRC(k), (K_B(k) - K_A(k)) * 512);
        memset(pb, 0, 2 * rows);
        for (unsigned k = 0; k < d; k++) {
            xor_into(pb, rowbuf + k * rows, rows);
            if (qok)
                q_acc(qb, rowbuf + k * rows, rows, q_exp(G, st, k));
        }
    }
    /* writes: the data ranges, then parity */
    c = 0;
    for (unsigned k = k0; k <= k1; k++)
        ops[c++] = (struct lop){ data_leg(G, st, k), true, leg_byte(G, st, K_A(k)),
                                 (uint32_t)((K_B(k) - K_A(k)) * 512), (uint8_t *)K_SRC(k) };
    if (pok)
        ops[c++] = (struct lop){ p, true, leg_byte(G, st, o0), (uint32_t)rows, pb };
    if (qok)
        ops[c++] = (struct lop){ q, true, leg_byte(G, st, o0), (uint32_t)rows, qb };
    rc = run_lops(io, v, r, ops, c, false);
    if (rc == 1)                           /* written on the rest: served while one is left */
        rc = parity_covered(r) ? 0 : -EIO;
out:
#undef K_A
#undef K_B
#undef K_SRC
    free(pb);
    return rc;
}

static int write_stripe(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                        const struct lvx_raid_geo *G, uint64_t st,
                        uint64_t a, uint64_t b, const uint8_t *src)
{
    pthread_rwlock_t *mu = &r->stripe_mu[st % 64];
    int rc = 1;
    pthread_rwlock_wrlock(mu);
    for (unsigned attempt = 0; attempt < 3 && rc == 1; attempt++)
        rc = write_stripe_once(io, v, r, G, st, a, b, src);
    pthread_rwlock_unlock(mu);
    return rc == 1 ? -EIO : rc;
}

static int parity_write(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                        const struct lvx_raid_geo *G, uint64_t off,
                        uint32_t len, const uint8_t *buf)
{
    uint64_t s = off / 512, end = (off + len) / 512, sw = (dlegs(G)) * G->chunk;
    uint64_t st0 = s / sw, st1 = (end - 1) / sw;
    uint64_t r0 = st0 * G->chunk / r->region, r1 = ((st1 + 1) * G->chunk - 1) / r->region;
    if (r1 >= r->regions)
        r1 = r->regions - 1;
    /* bits first: on disk before data and parity */
    int rc = raid_bits_begin(io, v, r, r0, r1);
    for (uint64_t st = st0; st <= st1 && rc == 0; st++) {
        uint64_t a = st * sw > s ? st * sw : s, b = (st + 1) * sw < end ? (st + 1) * sw : end;
        rc = write_stripe(io, v, r, G, st, a, b, buf + (a - s) * 512);
    }
    raid_bits_end(r, r0, r1);
    return rc;
}

static int parity_piece(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                        const struct lvx_raid_geo *g, bool write, uint64_t off, uint32_t len,
                        uint8_t *buf)
{
    return write ? parity_write(io, v, r, g, off, len, buf)
                 : parity_read(io, v, r, g, off, len, buf);
}

static int parity_rw(struct lvxd_io *io, struct lvxd_lv *v, bool write, uint64_t off,
                     uint32_t len, uint8_t *buf)
{
    struct raid *r = raid_of(v);
    if (!r || !r->started)
        return -EIO;
    if (!len)
        return 0;
    struct lvx_raid_geo g0 = geo_of(r);
    if (!r->reshaping && off + len <= r->io_sectors * 512)
        return parity_piece(io, v, r, &g0, write, off, len, buf);
    /* a reshape recorded, or past the array's size as md records it: in pieces
     * (raid_rw_pieces; md writes zeros where it reads them past that size) */
    return raid_rw_pieces(io, v, r, write, off, len, buf, &g0, parity_piece);
}

/* A reshape's step (raid_core.h reshape_copy): LV sectors [lv0, lv1), whole stripes
 * of B, read in A (zeros past A's size), written in B as full stripes (data, P, Q from
 * the data; no bitmap bit, as md's copies). */
static int parity_reshape_copy(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r,
                               uint64_t lv0, uint64_t lv1, uint8_t *buf)
{
    const struct lvx_reshape *rs = &r->rs;
    uint64_t rend = lv1 < rs->old_sectors ? lv1 : rs->old_sectors;
    int rc = 0;
    if (lv0 < rend)
        rc = parity_read(io, v, r, &rs->a, lv0 * 512, (uint32_t)((rend - lv0) * 512), buf);
    if (rc < 0)
        return rc;
    if (rend < lv1)
        memset(buf + (rend > lv0 ? rend - lv0 : 0) * 512, 0,
               (lv1 - (rend > lv0 ? rend : lv0)) * 512);
    uint64_t sw = dlegs(&rs->b) * rs->b.chunk;
    for (uint64_t x = lv0; x < lv1 && rc == 0; x += sw)
        rc = write_stripe(io, v, r, &rs->b, x / sw, x, x + sw < lv1 ? x + sw : lv1,
                          buf + (x - lv0) * 512);
    return rc;
}

/* --- resync ----------------------------------------------------------------------- */

/* A walk over bitmap regions [g0, g1) (leg sectors) in steps of rows: each step the
 * stripe, the offset into its chunk and the sectors taken (within one chunk, at most
 * a slice); the buffer cut into slices: P and Q computed, P and Q read, the rows. */
struct rows {
    uint64_t x, end;
    size_t slice;
    uint8_t *pacc, *qacc, *pb, *qb, *rowbuf;
};

static void rows_init(struct rows *w, const struct raid *r, const struct lvx_raid_geo *G,
                      uint64_t g0, uint64_t g1,
                      uint8_t *buf)
{
    uint64_t used = r->leg_sectors;
    w->x = g0 * r->region;
    w->end = g1 * r->region < used ? g1 * r->region : used;
    w->slice = (RAID_COPY_BYTES / (r->n + 4)) & ~(size_t)4095;
    w->pacc = buf;
    w->qacc = w->pacc + w->slice;
    w->pb = w->qacc + w->slice;
    w->qb = w->pb + w->slice;
    w->rowbuf = w->qb + w->slice;
}

static bool rows_next(struct rows *w, const struct lvx_raid_geo *G, uint64_t *st, uint64_t *o,
                      uint64_t *cnt)
{
    if (w->x >= w->end)
        return false;
    *st = w->x / G->chunk;
    *o = w->x % G->chunk;
    *cnt = G->chunk - *o;
    if (*cnt > w->slice / 512)
        *cnt = w->slice / 512;
    if (*cnt > w->end - w->x)
        *cnt = w->end - w->x;
    w->x += *cnt;
    return true;
}

/* P (and Q) of stripe st's data rows in w->rowbuf into w->pacc (w->qacc). */
static void rows_parity(const struct rows *w, const struct lvx_raid_geo *G, uint64_t st,
                        uint32_t bytes)
{
    unsigned q = q_leg(G, st);
    memset(w->pacc, 0, 2 * w->slice);
    for (unsigned k = 0; k < dlegs(G); k++) {
        xor_into(w->pacc, w->rowbuf + (size_t)k * bytes, bytes);
        if (q < G->legs)
            q_acc(w->qacc, w->rowbuf + (size_t)k * bytes, bytes, q_exp(G, st, k));
    }
}

/* Bitmap regions [g0, g1) (leg sectors): legs in `to` not in `insync` are rebuilt
 * (data from the other data and P/Q, P and Q from the data); without such a leg P
 * and Q of the rows are recomputed from the data (when every leg is live).  mu held. */
static int parity_sync(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t g0,
                       uint64_t g1, uint64_t insync, uint64_t to, uint8_t *buf)
{
    struct lvx_raid_geo G0 = geo_of(r);
    const struct lvx_raid_geo *G = &G0;
    struct rows w;
    rows_init(&w, r, G, g0, g1, buf);
    uint64_t all = r->an == 64 ? ~(uint64_t)0 : ((uint64_t)1 << r->an) - 1;
    struct lop ops[RAID_MAX_LEGS];
    uint64_t st, o, cnt;
    while (rows_next(&w, G, &st, &o, &cnt)) {
        uint32_t bytes = (uint32_t)(cnt * 512);
        unsigned p = parity_leg(G, st), q = q_leg(G, st), c = 0;
        uint64_t usable = ok_mask(r) & insync, targets = ok_mask(r) & to & ~insync;
        if (!targets && usable != all)
            continue;                      /* degraded: no parity to recompute */
        int rc = load_rows(io, v, r, G, st, o, bytes, usable, w.rowbuf, w.pb, w.qb, true);
        if (rc != 0) {
            lvxd_log("%s/%s: stripe %" PRIu64 " cannot be rebuilt from the legs left", v->vg,
                     v->lv, st);
            return rc < 0 ? rc : -EIO;
        }
        rows_parity(&w, G, st, bytes);
        for (unsigned k = 0; k < dlegs(G); k++) {
            unsigned leg = data_leg(G, st, k);
            if ((targets >> leg) & 1)
                ops[c++] = (struct lop){ leg, true, leg_byte(G, st, o), bytes, w.rowbuf + k * bytes };
        }
        if (!targets || ((targets >> p) & 1))
            ops[c++] = (struct lop){ p, true, leg_byte(G, st, o), bytes, w.pacc };
        if (q < G->legs && (!targets || ((targets >> q) & 1)))
            ops[c++] = (struct lop){ q, true, leg_byte(G, st, o), bytes, w.qacc };
        if ((rc = run_lops(io, v, r, ops, c, true)) != 0)
            return rc < 0 ? rc : -EIO;
    }
    return 0;
}

/* Check (repair) regions [g0, g1) (leg sectors), every leg live: P (and Q) of each
 * row recomputed from the data and compared with the stored ones, each 4 KiB page
 * that differs counted as md counts a stripe (8 sectors); repair writes the computed
 * parity (md's raid4/5/6 check and repair).  mu held. */
static int parity_check(struct lvxd_io *io, struct lvxd_lv *v, struct raid *r, uint64_t g0,
                        uint64_t g1, bool repair, uint64_t *mism, uint8_t *buf)
{
    struct lvx_raid_geo G0 = geo_of(r);
    const struct lvx_raid_geo *G = &G0;
    struct rows w;
    rows_init(&w, r, G, g0, g1, buf);
    uint64_t all = r->an == 64 ? ~(uint64_t)0 : ((uint64_t)1 << r->an) - 1;
    struct lop ops[2];
    uint64_t st, o, cnt;
    while (rows_next(&w, G, &st, &o, &cnt)) {
        uint32_t bytes = (uint32_t)(cnt * 512);
        unsigned p = parity_leg(G, st), q = q_leg(G, st), c = 0;
        int rc = load_rows(io, v, r, G, st, o, bytes, all, w.rowbuf, w.pb, w.qb, true);
        if (rc != 0)
            return rc < 0 ? rc : -EIO;
        rows_parity(&w, G, st, bytes);
        ops[c++] = (struct lop){ p, false, leg_byte(G, st, o), bytes, w.pb };
        if (q < G->legs)
            ops[c++] = (struct lop){ q, false, leg_byte(G, st, o), bytes, w.qb };
        if ((rc = run_lops(io, v, r, ops, c, true)) != 0)
            return rc < 0 ? rc : -EIO;
        bool differs = false;
        for (uint32_t b = 0; b < bytes; b += 4096) {
            uint32_t l = bytes - b < 4096 ? bytes - b : 4096;
            if (memcmp(w.pacc + b, w.pb + b, l) || (q < G->legs && memcmp(w.qacc + b, w.qb + b, l))) {
                *mism += 8;
                differs = true;
            }
        }
        if (repair && differs) {
            c = 0;
            ops[c++] = (struct lop){ p, true, leg_byte(G, st, o), bytes, w.pacc };
            if (q < G->legs)
                ops[c++] = (struct lop){ q, true, leg_byte(G, st, o), bytes, w.qacc };
            if ((rc = run_lops(io, v, r, ops, c, true)) != 0)
                return rc < 0 ? rc : -EIO;
        }
    }
    return 0;
}

static const struct raid_geom parity_geom = { .sync = parity_sync, .covered = parity_covered,
                                              .check = parity_check,
                                              .reshape_copy = parity_reshape_copy };

const struct lvxd_target lvxd_target_parity = {
    .name = "raid-parity",
    .serves = parity_serves,
    .ctr = parity_ctr,
    .start = raid_core_start,
    .dtr = raid_core_dtr,
    .rw = parity_rw,
    .zero = raid_core_zero,
    .flush = raid_core_flush,
    .status = raid_core_status,
};
