/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_raid_reshape.c - model/raid_reshape.c and the crash simulator of
 * docs/reshape-user.md §3.2/§3.4: an in-memory array (each leg a byte array, each
 * rmeta a dm-raid superblock) is reshaped step by step by the model's rules with
 * the daemon's order (start rounds S1, S2; per step: checkpoint when md's rule asks
 * (flush, superblock of every leg, safe = pos), read A's rows, write B's rows with
 * P/Q computed from the data; finish rounds F1, F2).  The run is repeated with a
 * crash after every single device write (data or one leg's superblock), once with
 * every write kept and once with the data writes since the last flush lost; after
 * each crash the legs are read as md reads them (freshest superblock, each leg's own
 * offsets; mapping restated here from the superblock fields) and must hold the LV's
 * bytes, md's start checks must accept the state, and a restart by the daemon's rules
 * (complete a half-written round, resume from the recorded position) must end with
 * the LV's bytes in B, B's parity right, and every superblock in the finished state.
 * For every 32nd crash point (all with LVX_RESHAPE_SIM_ALL=1) the restart itself is
 * crashed after each of its first writes (the completion of a half-written round and
 * a few more) and restarted again, with the same checks.
 * Every other step is followed by a regular write (§3.3), by turns to the moved but
 * unrecorded range (recorded first), the moved side (B) and the unmoved side (A),
 * acknowledged after a flush: acknowledged bytes must survive, a torn write may read
 * old or new (its stripes resynced after the restart, as the bitmap would).  Broken
 * walkers (no checkpoints; superblocks before the flush; a write to the unrecorded
 * range not recorded first) must be caught.
 * Geometries: raid5 la/ra/ls/rs/n, raid4, raid6 zr/nr/nc/n_6/ls_6 with 3..6 legs
 * (raid6 4..7), stripes +1, +2, -1, -2, chunk x2 and /2 and a layout change in both
 * directions, reshape space 1..3 steps; raid10 near 2 copies 3..6 legs + 1, + 2, and
 * 2..5 legs with the chunk x2 and /2 in both directions.
 * The default run takes one leg count and one space size per layout and change, in
 * rotation; LVX_RESHAPE_SIM_ALL=1 runs every combination with legs twice as long.
 */
#include "model/raid_reshape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define SS 8u                       /* bytes per simulated sector */
#define MAXL 10u
static uint64_t dev_len = 32;      /* data sectors per leg (64 with LVX_RESHAPE_SIM_ALL) */
#define CHUNK 4u

struct jent {                       /* a data write not yet flushed */
    unsigned leg;
    uint64_t sec, cnt;
    uint8_t *old;
};

struct sim {
    unsigned nlegs;                 /* max of A's and B's legs */
    uint64_t img;                   /* sectors of each leg: reshape space + dev_len */
    uint8_t *leg[MAXL];
    uint8_t meta[MAXL][512];        /* superblock of each leg (no magic: none) */
    struct jent *j;
    size_t nj, capj;
    long writes, crash_at;          /* crash_at: writes allowed, -1 none */
    bool crashed, lose;
    bool no_flush;                  /* broken walker: rounds without the flush */
    bool no_checkpoint;             /* broken walker: md's rule ignored */
    uint64_t events;
    int every;                      /* extra checkpoint every N steps (md's 10 s) */
    /* regular writes during the reshape (§3.3) */
    bool lv_writes;                 /* one every other step of the first run */
    bool no_write_checkpoint;       /* broken: a write to [safe, pos) not recorded first */
    uint64_t live;                  /* the LV's sectors during the reshape */
    uint8_t *ref;                   /* the LV's bytes acknowledged so far */
    uint8_t *alt, *maybe;           /* a write in flight: its bytes, its sectors */
    uint64_t wrng;
};

struct cfg {
    char name[96];
    uint32_t level;
    struct lvx_raid_geo a, b;
};

static uint64_t rng = 88172645463325252ull;
static uint8_t rnd8(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint8_t)rng;
}

/* --- the simulated disks ----------------------------------------------------------- */

static bool gate(struct sim *S)
{
    if (S->crashed)
        return false;
    if (S->crash_at >= 0 && S->writes == S->crash_at) {
        S->crashed = true;
        return false;
    }
    S->writes++;
    return true;
}

static bool write_data(struct sim *S, unsigned leg, uint64_t sec, uint64_t cnt, const uint8_t *buf)
{
    if (!gate(S))
        return false;
    if (S->nj == S->capj) {
        S->capj = S->capj ? 2 * S->capj : 64;
        S->j = realloc(S->j, S->capj * sizeof(*S->j));
    }
    uint8_t *old = malloc(cnt * SS);
    memcpy(old, S->leg[leg] + sec * SS, cnt * SS);
    S->j[S->nj++] = (struct jent){ leg, sec, cnt, old };
    memcpy(S->leg[leg] + sec * SS, buf, cnt * SS);
    return true;
}

static void flush(struct sim *S)
{
    for (size_t i = 0; i < S->nj; i++)
        free(S->j[i].old);
    S->nj = 0;
}

/* the crash: unflushed data writes lost (lose) or kept */
static void crash(struct sim *S)
{
    for (size_t i = S->nj; S->lose && i-- > 0;)
        memcpy(S->leg[S->j[i].leg] + S->j[i].sec * SS, S->j[i].old, S->j[i].cnt * SS);
    flush(S);
}

static bool get_sb(const struct sim *S, unsigned leg, struct lvx_raid_sb *sb)
{
    return lvx_raid_sb_decode(S->meta[leg], sizeof(S->meta[leg]), sb);
}

/* the superblock a leg gets: its own fields, then the round's */
static bool write_sb(struct sim *S, unsigned leg, const struct lvx_raid_sb *sb)
{
    if (!gate(S))
        return false;
    lvx_raid_sb_encode(sb, S->meta[leg], sizeof(S->meta[leg]));
    return true;
}

static struct lvx_raid_sb leg_sb(const struct sim *S, unsigned leg)
{
    struct lvx_raid_sb sb;
    memset(&sb, 0, sizeof(sb));
    sb.compat_features = 1;
    sb.array_position = leg;
    sb.events = S->events;
    sb.disk_recovery_offset = sb.array_resync_offset = LVX_RAID_MAX_SECTOR;
    sb.sectors = dev_len;
    return sb;
}

static bool round_(struct sim *S, const struct lvx_reshape *rs, enum lvx_reshape_round r,
                   uint64_t position, unsigned legs)
{
    if (!S->no_flush)
        flush(S);
    S->events++;
    for (unsigned i = 0; i < legs; i++) {
        struct lvx_raid_sb sb = leg_sb(S, i);
        lvx_reshape_sb_round(rs, r, position, &sb);
        if (!write_sb(S, i, &sb))
            return false;
    }
    return true;
}

/* --- md's view: the freshest superblock, each leg's own offsets ---------------------- */

static int freshest(const struct sim *S, struct lvx_raid_sb *f)
{
    int w = -1;
    for (unsigned i = 0; i < S->nlegs; i++) {
        struct lvx_raid_sb sb;
        if (get_sb(S, i, &sb) && (w < 0 || sb.events > f->events)) {
            *f = sb;
            w = (int)i;
        }
    }
    return w;
}

/* LV sector s as md maps it by the superblocks: false when a leg it needs has none */
static bool md_locate(const struct sim *S, const struct lvx_raid_sb *f, uint64_t s,
                      unsigned *leg, uint64_t *sec)
{
    bool active = f->flags & LVX_RAID_SB_RESHAPE_ACTIVE;
    bool back = f->flags & LVX_RAID_SB_RESHAPE_BACKWARDS;
    bool use_new = active && (back ? s >= f->reshape_position : s < f->reshape_position);
    struct lvx_raid_geo g = { .legs = f->num_devices, .copies = 1,
                              .layout = use_new ? f->new_layout : f->layout,
                              .chunk = use_new ? f->new_stripe_sectors : f->stripe_sectors };
    if (active && !use_new)
        g.legs = (unsigned)((int)f->num_devices - f->delta_disks);
    if (f->level == 10) {
        g.copies = f->layout & 0xff;
        uint64_t run;
        *leg = lvx_raid_geo_copy(&g, s, 0, sec, &run);
    } else {
        g.parity = f->level == 6 ? 2 : 1;
        uint64_t st, off;
        *leg = lvx_raid_geo_locate(&g, s, &st, &off);
        *sec = st * g.chunk + off;
    }
    struct lvx_raid_sb own;
    if (*leg >= S->nlegs || !get_sb(S, *leg, &own))
        return false;
    *sec += use_new ? own.new_data_offset : own.data_offset;
    return *sec < S->img;
}

/* The LV's first `len` sectors as md reads them equal ref?  0, else the first bad
 * sector + 1. */
static uint64_t md_check(const struct sim *S, uint64_t len)
{
    struct lvx_raid_sb f;
    if (freshest(S, &f) < 0)
        return 1;
    for (uint64_t s = 0; s < len; s++) {
        unsigned leg;
        uint64_t sec;
        if (!md_locate(S, &f, s, &leg, &sec))
            return s + 1;
        const uint8_t *b = S->leg[leg] + sec * SS;
        if (memcmp(b, S->ref + s * SS, SS) && !(S->maybe[s] && !memcmp(b, S->alt + s * SS, SS)))
            return s + 1;
    }
    return 0;
}

/* --- the walker (the daemon's order, §3.4) ------------------------------------------- */

static const uint8_t *at(const struct sim *S, const struct lvx_raid_geo *g, uint32_t level,
                         uint64_t s, unsigned copy)
{
    uint64_t sec, st, off, run;
    unsigned leg;
    if (level == 10) {
        leg = lvx_raid_geo_copy(g, s, copy, &sec, &run);
    } else {
        leg = lvx_raid_geo_locate(g, s, &st, &off);
        sec = g->data_offset + st * g->chunk + off;
    }
    return S->leg[leg] + sec * SS;
}

/* B's rows of the next step from A's, written leg by leg */
static bool copy_step(struct sim *S, const struct lvx_reshape *rs, unsigned nstep)
{
    uint64_t lv0, lv1, a0, a1, b0, b1;
    lvx_reshape_step(rs, &lv0, &lv1);
    lvx_reshape_step_dev(rs, &a0, &a1, &b0, &b1);
    if (rs->level == 10) {
        uint8_t buf[LVX_RESHAPE_RAID10_STEP * SS];
        for (uint64_t s = lv0; s < lv1; s++)
            memcpy(buf + (s - lv0) * SS, at(S, &rs->a, 10, s, nstep % rs->a.copies), SS);
        for (unsigned j = 0; j < rs->b.copies; j++) {
            uint64_t sec, run;
            unsigned leg = lvx_raid_geo_copy(&rs->b, lv0, j, &sec, &run);
            if (!write_data(S, leg, sec, lv1 - lv0, buf))
                return false;
        }
        return true;
    }
    const struct lvx_raid_geo *b = &rs->b;
    unsigned ndd = lvx_raid_geo_data_legs(b);
    uint64_t rows = b1 - b0;
    uint8_t *buf = calloc(b->legs, rows * SS);
    for (uint64_t st = b0 / b->chunk; st < b1 / b->chunk; st++) {
        uint64_t r0 = st * b->chunk - b0;
        uint8_t *p = buf + (size_t)lvx_raid_geo_p_leg(b, st) * rows * SS + r0 * SS;
        unsigned ql = lvx_raid_geo_q_leg(b, st);
        uint8_t *q = ql < b->legs ? buf + (size_t)ql * rows * SS + r0 * SS : NULL;
        for (unsigned k = 0; k < ndd; k++) {
            uint8_t *d = buf + (size_t)lvx_raid_geo_data_leg(b, st, k) * rows * SS + r0 * SS;
            for (uint64_t i = 0; i < b->chunk; i++) {
                uint64_t s = (st * ndd + k) * b->chunk + i;
                if (s < rs->old_sectors)        /* past A's end: zeros (md) */
                    memcpy(d + i * SS, at(S, &rs->a, rs->level, s, 0), SS);
            }
            for (size_t x = 0; x < b->chunk * SS; x++)
                p[x] ^= d[x];
            if (q)
                lvx_gf_q_acc(q, d, b->chunk * SS, lvx_raid_geo_q_exp(b, st, k));
        }
    }
    bool ok_ = true;
    for (unsigned l = 0; l < b->legs && ok_; l++)
        ok_ = write_data(S, l, b->data_offset + b0, rows, buf + (size_t)l * rows * SS);
    free(buf);
    return ok_;
}

struct owner {                      /* A's map: which LV sector each leg sector holds */
    int64_t *of;                    /* [leg * img + sector], -1: none */
};

/* invariant 2 checked directly: no B write reaches A's rows of LV sectors a restart
 * from `safe` reads again */
static bool step_is_safe(const struct sim *S, const struct owner *o, const struct lvx_reshape *rs)
{
    uint64_t lv0, lv1, a0, a1, b0, b1;
    lvx_reshape_step(rs, &lv0, &lv1);
    lvx_reshape_step_dev(rs, &a0, &a1, &b0, &b1);
    for (unsigned l = 0; l < rs->b.legs; l++)
        for (uint64_t x = rs->b.data_offset + b0; x < rs->b.data_offset + b1; x++) {
            int64_t s = o->of[l * S->img + x];
            if (s >= 0 && (rs->forward ? (uint64_t)s >= rs->safe : (uint64_t)s < rs->safe))
                return false;
        }
    return true;
}

static bool checkpoint(struct sim *S, struct lvx_reshape *rs)
{
    if (!round_(S, rs, LVX_RESHAPE_RUN, rs->pos, S->nlegs))
        return false;
    rs->safe = rs->pos;
    return true;
}

/* P (and Q) of stripe st of g recomputed from its data, whole chunk rows; *w: the
 * stripe's bytes per leg (g->legs * chunk sectors), data placed by the caller */
static void stripe_parity(const struct lvx_raid_geo *g, uint64_t st, uint8_t *w)
{
    size_t cb = g->chunk * SS;
    uint8_t *p = w + lvx_raid_geo_p_leg(g, st) * cb;
    unsigned ql = lvx_raid_geo_q_leg(g, st);
    uint8_t *q = ql < g->legs ? w + ql * cb : NULL;
    memset(p, 0, cb);
    if (q)
        memset(q, 0, cb);
    for (unsigned k = 0; k < lvx_raid_geo_data_legs(g); k++) {
        const uint8_t *d = w + lvx_raid_geo_data_leg(g, st, k) * cb;
        for (size_t x = 0; x < cb; x++)
            p[x] ^= d[x];
        if (q)
            lvx_gf_q_acc(q, d, cb, lvx_raid_geo_q_exp(g, st, k));
    }
}

/* stripe st of g (data and parity) rewritten with LV sectors [s0, s1) from src */
static bool write_stripe(struct sim *S, const struct lvx_raid_geo *g, uint32_t level,
                         uint64_t st, uint64_t s0, uint64_t s1, const uint8_t *src)
{
    size_t cb = g->chunk * SS;
    unsigned ndd = lvx_raid_geo_data_legs(g);
    uint8_t *w = malloc(g->legs * cb);
    for (unsigned k = 0; k < ndd; k++)
        for (uint64_t i = 0; i < g->chunk; i++) {
            uint64_t s = (st * ndd + k) * g->chunk + i;
            memcpy(w + lvx_raid_geo_data_leg(g, st, k) * cb + i * SS,
                   s >= s0 && s < s1 ? src + s * SS : at(S, g, level, s, 0), SS);
        }
    stripe_parity(g, st, w);
    bool ok_ = true;
    for (unsigned l = 0; l < g->legs && ok_; l++)
        ok_ = write_data(S, l, g->data_offset + st * g->chunk, g->chunk, w + l * cb);
    free(w);
    return ok_;
}

static long lvw_count[4];           /* regular writes by side (the first runs) */

/* A regular write between two steps (§3.3), by turns into the unrecorded range (it is
 * recorded first), the moved side and the unmoved side; acknowledged (flushed) at its
 * end.  false at the crash. */
static bool lv_write(struct sim *S, struct lvx_reshape *rs, unsigned n)
{
    uint64_t lv0, lv1, len = rs->level == 10 ? rs->unit : CHUNK, s0 = UINT64_MAX;
    lvx_reshape_step(rs, &lv0, &lv1);
    enum lvx_reshape_side want = n / 2 % 3 == 0 ? LVX_RESHAPE_UNRECORDED
                                 : n / 2 % 3 == 1 ? LVX_RESHAPE_MOVED : LVX_RESHAPE_UNMOVED;
    for (uint64_t s = 0; s < S->live && s0 == UINT64_MAX; s++)
        if (lvx_reshape_side(rs, s) == want && (s + n) % 3 == 0)
            s0 = s;
    if (s0 == UINT64_MAX)
        return true;
    uint64_t s1 = s0;
    while (s1 < S->live && s1 < s0 + len && lvx_reshape_side(rs, s1) == want)
        s1++;
    if (S->crash_at < 0)
        lvw_count[want]++;
    if (want == LVX_RESHAPE_UNRECORDED && !S->no_write_checkpoint && !checkpoint(S, rs))
        return false;
    for (uint64_t s = s0; s < s1; s++) {
        for (unsigned x = 0; x < SS; x++) {
            S->wrng = S->wrng * 6364136223846793005ull + 1442695040888963407ull;
            S->alt[s * SS + x] = (uint8_t)(S->wrng >> 56);
        }
        S->maybe[s] = 1;
    }
    const struct lvx_raid_geo *g = lvx_reshape_geo_of(rs, s0);
    if (rs->level == 10) {
        for (uint64_t s = s0, run = 0; s < s1; s += run)
            for (unsigned j = 0; j < g->copies; j++) {
                uint64_t sec;
                unsigned leg = lvx_raid_geo_copy(g, s, j, &sec, &run);
                run = s1 - s < run ? s1 - s : run;
                if (!write_data(S, leg, sec, run, S->alt + s * SS))
                    return false;
            }
    } else {
        uint64_t ss = g->chunk * lvx_raid_geo_data_legs(g);
        for (uint64_t st = s0 / ss; st <= (s1 - 1) / ss; st++)
            if (!write_stripe(S, g, rs->level, st, s0, s1, S->alt))
                return false;
    }
    flush(S);
    for (uint64_t s = s0; s < s1; s++) {
        memcpy(S->ref + s * SS, S->alt + s * SS, SS);
        S->maybe[s] = 0;
    }
    return true;
}

/* After a restart: B's stripes (copies) holding a torn write brought in line, as the
 * bitmap's resync does. */
static void resync_torn(struct sim *S, const struct lvx_reshape *rs)
{
    const struct lvx_raid_geo *b = &rs->b;
    for (uint64_t s = 0; s < S->live; s++) {
        if (!S->maybe[s])
            continue;
        if (rs->level == 10) {
            for (unsigned j = 1; j < b->copies; j++)
                memcpy((uint8_t *)at(S, b, 10, s, j), at(S, b, 10, s, 0), SS);
            continue;
        }
        uint64_t st = s / (b->chunk * lvx_raid_geo_data_legs(b));
        long saved = S->crash_at;
        S->crash_at = -1;
        write_stripe(S, b, rs->level, st, 0, 0, NULL);
        S->crash_at = saved;
    }
}

/* walk to the end and finish; false at the crash.  *unsafe counts steps that broke
 * invariant 2. */
static bool walk(struct sim *S, struct lvx_reshape *rs, const struct owner *o, long *unsafe)
{
    for (unsigned n = 0; !lvx_reshape_done(rs); n++) {
        bool need = lvx_reshape_need_checkpoint(rs) && !S->no_checkpoint;
        if ((need || (S->every && n % S->every == 0)) && rs->pos != rs->safe &&
            !checkpoint(S, rs))
            return false;
        if (o && !step_is_safe(S, o, rs))
            (*unsafe)++;
        if (!copy_step(S, rs, n))
            return false;
        lvx_reshape_advance(rs);
        if (S->lv_writes && n % 2 && !lvx_reshape_done(rs) && !lv_write(S, rs, n))
            return false;
    }
    return round_(S, rs, LVX_RESHAPE_F1, 0, S->nlegs) &&
           round_(S, rs, LVX_RESHAPE_F2, 0, S->nlegs);
}

static bool start(struct sim *S, struct lvx_reshape *rs)
{
    return round_(S, rs, LVX_RESHAPE_S1, 0, rs->a.legs) &&
           round_(S, rs, LVX_RESHAPE_RUN, rs->pos, S->nlegs);
}

/* After a crash, by the daemon's rules: complete a half-written round from the
 * freshest superblock, then go on from what it records.  NULL or what went wrong. */
static const char *restart(struct sim *S, const struct cfg *c, const struct lvx_reshape *orig)
{
    struct lvx_raid_sb f;
    if (freshest(S, &f) < 0)
        return "no superblock";
    struct lvx_reshape rs;
    bool active = f.flags & LVX_RAID_SB_RESHAPE_ACTIVE;
    if (active) {
        const char *why = lvx_reshape_from_sb(&rs, &f, dev_len);
        if (why)
            return why;
        bool f1 = f.data_offset == f.new_data_offset;
        if ((!f1 && rs.a.data_offset != c->a.data_offset) || rs.b.data_offset != c->b.data_offset ||
            rs.a.layout != c->a.layout || rs.b.chunk != c->b.chunk || rs.b.legs != c->b.legs)
            return "the superblock's reshape is not the one started";
    } else {
        rs = *orig;
    }
    S->events = f.events;
    S->events++;
    for (unsigned i = 0; i < S->nlegs; i++) {       /* complete the round */
        struct lvx_raid_sb sb = leg_sb(S, i);
        bool s1 = !active && f.layout == c->a.layout && f.num_devices == c->a.legs &&
                  f.stripe_sectors == c->a.chunk;
        if (s1 && i >= c->a.legs)
            break;
        sb.level = f.level;
        sb.num_devices = f.num_devices;
        sb.layout = f.layout;
        sb.stripe_sectors = f.stripe_sectors;
        sb.flags = f.flags;
        sb.reshape_position = f.reshape_position;
        sb.new_level = f.new_level;
        sb.new_layout = f.new_layout;
        sb.new_stripe_sectors = f.new_stripe_sectors;
        sb.delta_disks = f.delta_disks;
        sb.array_sectors = f.array_sectors;
        sb.data_offset = f.data_offset;
        sb.new_data_offset = f.new_data_offset;
        sb.array_resync_offset = f.array_resync_offset;
        write_sb(S, i, &sb);
    }
    if (active) {
        long unsafe = 0;
        walk(S, &rs, NULL, &unsafe);
    } else if (f.layout == c->a.layout && f.num_devices == c->a.legs &&
               f.stripe_sectors == c->a.chunk && f.data_offset == c->a.data_offset) {
        long unsafe = 0;                                 /* before S2: start again */
        if (!start(S, &rs))
            return "start";
        walk(S, &rs, NULL, &unsafe);
    }
    return NULL;
}

/* --- one case: the uninterrupted run, then a crash after every write ------------------ */

struct totals {
    long cases, crash_points, md_refused_f1, failures;
};

static void sim_init(struct sim *S, const struct cfg *c, const uint8_t *ref, uint64_t old)
{
    memset(S, 0, sizeof(*S));
    S->nlegs = c->a.legs > c->b.legs ? c->a.legs : c->b.legs;
    uint64_t space = c->a.data_offset > c->b.data_offset ? c->a.data_offset : c->b.data_offset;
    S->img = space + dev_len;
    S->crash_at = -1;
    S->events = 10;
    uint64_t seed = rng;
    rng = 0x9E3779B97F4A7C15ull;                    /* the same garbage every time */
    for (unsigned l = 0; l < S->nlegs; l++) {
        S->leg[l] = malloc(S->img * SS);
        for (uint64_t x = 0; x < S->img * SS; x++)
            S->leg[l][x] = rnd8();
    }
    rng = seed;
    for (uint64_t s = 0; s < old; s++)              /* the LV in A (parity not needed) */
        memcpy((uint8_t *)at(S, &c->a, c->level, s, 0), ref + s * SS, SS);
    if (c->level == 10)
        for (uint64_t s = 0; s < old; s++)
            for (unsigned j = 1; j < c->a.copies; j++)
                memcpy((uint8_t *)at(S, &c->a, 10, s, j), ref + s * SS, SS);
    struct lvx_reshape rs;                          /* the superblocks before: A */
    (void)lvx_reshape_init(&rs, c->level, &c->a, &c->b, dev_len);
    rs.b.data_offset = c->a.data_offset;
    for (unsigned i = 0; i < c->a.legs; i++) {
        struct lvx_raid_sb sb = leg_sb(S, i);
        lvx_reshape_sb_round(&rs, LVX_RESHAPE_S1, 0, &sb);
        lvx_raid_sb_encode(&sb, S->meta[i], sizeof(S->meta[i]));
    }
}

static void sim_free(struct sim *S)
{
    flush(S);
    free(S->j);
    free(S->ref);
    free(S->alt);
    free(S->maybe);
    for (unsigned l = 0; l < S->nlegs; l++)
        free(S->leg[l]);
}

/* The finished array: md's view equals ref over `len`, B's parity (copies) right,
 * every superblock finished.  NULL or what is wrong. */
static const char *check_end(const struct sim *S, const struct lvx_reshape *rs, uint64_t len)
{
    if (md_check(S, len))
        return "the LV's bytes differ after the end";
    const struct lvx_raid_geo *b = &rs->b;
    struct lvx_raid_sb f, sb;
    if (freshest(S, &f) < 0 || f.flags || f.reshape_position != LVX_RAID_MAX_SECTOR ||
        f.layout != b->layout || f.stripe_sectors != b->chunk || f.num_devices != b->legs ||
        f.array_sectors != rs->new_sectors || f.data_offset != b->data_offset)
        return "the freshest superblock is not the finished state";
    for (unsigned i = 0; i < S->nlegs; i++)
        if (!get_sb(S, i, &sb) || sb.events != f.events || sb.data_offset != b->data_offset ||
            sb.new_data_offset != b->data_offset || sb.flags || sb.delta_disks)
            return "a leg's superblock is not the finished state";
    if (rs->level == 10) {
        for (uint64_t s = 0; s < rs->old_sectors; s++)
            for (unsigned j = 1; j < b->copies; j++)
                if (memcmp(at(S, b, 10, s, 0), at(S, b, 10, s, j), SS))
                    return "raid10 copies differ";
        return NULL;
    }
    unsigned ndd = lvx_raid_geo_data_legs(b);
    uint8_t p[SS], q[SS];
    for (uint64_t st = 0; st < dev_len / b->chunk; st++)
        for (uint64_t i = 0; i < b->chunk; i++) {
            memset(p, 0, SS);
            memset(q, 0, SS);
            for (unsigned k = 0; k < ndd; k++) {
                const uint8_t *d = at(S, b, rs->level, (st * ndd + k) * b->chunk + i, 0);
                for (unsigned x = 0; x < SS; x++)
                    p[x] ^= d[x];
                lvx_gf_q_acc(q, d, SS, lvx_raid_geo_q_exp(b, st, k));
            }
            uint64_t sec = b->data_offset + st * b->chunk + i;
            if (memcmp(S->leg[lvx_raid_geo_p_leg(b, st)] + sec * SS, p, SS))
                return "P wrong in B";
            unsigned ql = lvx_raid_geo_q_leg(b, st);
            if (ql < b->legs && memcmp(S->leg[ql] + sec * SS, q, SS))
                return "Q wrong in B";
        }
    return NULL;
}

/* A's owner map for invariant 2 */
static void owners(const struct sim *S, const struct cfg *c, uint64_t old, struct owner *o)
{
    o->of = malloc(S->nlegs * S->img * sizeof(*o->of));
    for (uint64_t x = 0; x < S->nlegs * S->img; x++)
        o->of[x] = -1;
    for (uint64_t s = 0; s < old; s++)
        for (unsigned j = 0; j < (c->level == 10 ? c->a.copies : 1u); j++) {
            const uint8_t *p = at(S, &c->a, c->level, s, j);
            for (unsigned l = 0; l < S->nlegs; l++)
                if (p >= S->leg[l] && p < S->leg[l] + S->img * SS)
                    o->of[l * S->img + (uint64_t)(p - S->leg[l]) / SS] = (int64_t)s;
        }
}

enum broken { NO_CHECKPOINT = 1, NO_FLUSH = 2, NO_WRITE_CHECKPOINT = 4 };

static bool sim_all;                /* LVX_RESHAPE_SIM_ALL=1 */
static long nested_points;          /* second crashes, inside a restart */

/* A copy of a crashed S (its journal already applied) for a second crash. */
static void sim_clone(struct sim *d, const struct sim *S, size_t reflen)
{
    *d = *S;
    d->j = NULL;
    d->nj = d->capj = 0;
    for (unsigned l = 0; l < S->nlegs; l++) {
        d->leg[l] = malloc(S->img * SS);
        memcpy(d->leg[l], S->leg[l], S->img * SS);
    }
    d->ref = malloc(reflen * SS);
    memcpy(d->ref, S->ref, reflen * SS);
    d->alt = malloc(reflen * SS);
    memcpy(d->alt, S->alt, reflen * SS);
    d->maybe = malloc(reflen);
    memcpy(d->maybe, S->maybe, reflen);
}

/* After the crash of S: a second crash after each of the restart's first writes (the
 * completion of a half-written round and beyond), then a full restart.  NULL or what
 * went wrong (in msg). */
static const char *nested(const struct sim *S, const struct cfg *c, const struct lvx_reshape *rs0,
                          size_t reflen, uint64_t keep, uint64_t endlen, char *msg, size_t sz)
{
    for (long j = 0; j <= (long)S->nlegs + 2; j++) {
        struct sim N;
        sim_clone(&N, S, reflen);
        N.writes = 0;
        N.crash_at = j;
        const char *r = restart(&N, c, rs0);
        bool crashed = N.crashed;
        if (crashed) {
            nested_points++;
            crash(&N);
            uint64_t b = md_check(&N, keep);
            N.crashed = false;
            N.crash_at = -1;
            r = b ? "md reads the LV wrong" : restart(&N, c, rs0);
            struct lvx_reshape fin = *rs0;
            if (!r)
                resync_torn(&N, &fin);
            if (!r)
                r = check_end(&N, &fin, endlen);
        }
        sim_free(&N);
        if (r) {
            snprintf(msg, sz, "then after write %ld of the restart: %s", j, r);
            return msg;
        }
        if (!crashed)
            break;
    }
    return NULL;
}

/* Run case c with a crash after every write (both variants).  Returns the failures;
 * broken: a broken walker (expect failures). */
static long run_case(const struct cfg *c, int every, struct totals *t, unsigned broken,
                     char *first, size_t firstsz)
{
    struct lvx_reshape rs0;
    const char *why = lvx_reshape_init(&rs0, c->level, &c->a, &c->b, dev_len);
    if (why) {
        snprintf(first, firstsz, "init: %s", why);
        return 1;
    }
    uint64_t old = rs0.old_sectors, keep = old < rs0.new_sectors ? old : rs0.new_sectors;
    uint64_t endlen = c->level == 10 ? old : rs0.new_sectors;
    size_t reflen = endlen > old ? endlen : old;
    uint8_t *ref = calloc(reflen, SS);
    for (uint64_t x = 0; x < old * SS; x++)
        ref[x] = rnd8();
    long fails = 0, total = -1;
    for (long k = -1; k < total || total < 0; k++) {
        for (int lose = 0; lose < 2; lose++) {
            if (k < 0 && lose)
                continue;
            struct sim S;
            sim_init(&S, c, ref, old);
            S.every = every;
            S.no_checkpoint = broken & NO_CHECKPOINT;
            S.no_flush = broken & NO_FLUSH;
            S.no_write_checkpoint = broken & NO_WRITE_CHECKPOINT;
            S.crash_at = k;
            S.lose = lose;
            S.lv_writes = true;
            S.live = keep;
            S.wrng = 12345;
            S.ref = malloc(reflen * SS);
            memcpy(S.ref, ref, reflen * SS);
            S.alt = calloc(reflen, SS);
            S.maybe = calloc(reflen, 1);
            struct owner o = { NULL };
            if (k < 0)
                owners(&S, c, old, &o);
            struct lvx_reshape rs = rs0;
            long unsafe = 0;
            bool done = start(&S, &rs) && walk(&S, &rs, k < 0 ? &o : NULL, &unsafe);
            const char *bad = NULL;
            char msg[160];
            if (k < 0) {
                total = S.writes;
                if (!done)
                    bad = "the run did not end";
                else if (unsafe && !(broken & NO_CHECKPOINT))
                    bad = "a step overwrote A's rows a restart needs (invariant 2)";
                else
                    bad = check_end(&S, &rs, endlen);
                free(o.of);
            } else if (!S.crashed) {
                bad = "no crash at the crash point";
            } else {
                crash(&S);
                t->crash_points++;
                struct lvx_raid_sb f;
                uint64_t badsec = md_check(&S, keep);
                if (badsec) {
                    snprintf(msg, sizeof(msg), "crash after write %ld%s: md reads LV sector "
                             "%llu wrong", k, lose ? " (unflushed lost)" : "",
                             (unsigned long long)badsec - 1);
                    bad = msg;
                } else if (freshest(&S, &f) >= 0 && (f.flags & LVX_RAID_SB_RESHAPE_ACTIVE)) {
                    struct lvx_reshape m;
                    const char *w = lvx_reshape_from_sb(&m, &f, dev_len);
                    if (!w)
                        w = lvx_reshape_start_check(&m, true);
                    /* known: md refuses the finish round F1 (offsets equal) of a
                     * shrink (position 0) and of raid10: the daemon finishes those */
                    if (w && m.a.data_offset == m.b.data_offset &&
                        (!strcmp(w, "offset difference not enough to continue reshape") ||
                         (!strcmp(w, "reshape_position too early for auto-recovery") &&
                          !m.forward && m.pos == 0))) {
                        t->md_refused_f1++;
                        w = NULL;
                    }
                    if (w) {
                        snprintf(msg, sizeof(msg), "crash after write %ld: md refuses: %s", k, w);
                        bad = msg;
                    }
                }
                if (!bad) {
                    S.crashed = false;
                    S.crash_at = -1;
                    S.lv_writes = false;
                    char nmsg[120];
                    const char *r = sim_all || k % 32 == 0
                                        ? nested(&S, c, &rs0, reflen, keep, endlen, nmsg,
                                                 sizeof(nmsg))
                                        : NULL;
                    if (!r)
                        r = restart(&S, c, &rs0);
                    struct lvx_reshape fin = rs0;
                    if (!r)
                        resync_torn(&S, &fin);
                    if (r || (r = check_end(&S, &fin, endlen))) {
                        snprintf(msg, sizeof(msg), "crash after write %ld%s, restart: %.90s", k,
                                 lose ? " (unflushed lost)" : "", r);
                        bad = msg;
                    }
                }
            }
            if (bad && !fails++)
                snprintf(first, firstsz, "%.190s", bad);
            sim_free(&S);
        }
    }
    free(ref);
    t->cases++;
    return fails;
}

/* --- the cases ---------------------------------------------------------------------- */

struct lay {
    const char *name;
    uint32_t level, layout;
    unsigned parity;
};

static const struct lay lays[] = {
    { "raid5_la", 5, 0, 1 },  { "raid5_ra", 5, 1, 1 },  { "raid5_ls", 5, 2, 1 },
    { "raid5_rs", 5, 3, 1 },  { "raid5_n", 5, 5, 1 },   { "raid4", 5, 4, 1 },
    { "raid6_zr", 6, 8, 2 },  { "raid6_nr", 6, 9, 2 },  { "raid6_nc", 6, 10, 2 },
    { "raid6_n_6", 6, 5, 2 }, { "raid6_ls_6", 6, 18, 2 },
};

enum var { V_ADD1, V_ADD2, V_DEL1, V_DEL2, V_CHUNK2_F, V_CHUNK2_B, V_CHUNKH_F, V_CHUNKH_B,
           V_LAYOUT_F, V_LAYOUT_B, V_NVAR };
static const char *const var_name[] = { "+1 stripe", "+2 stripes", "-1 stripe", "-2 stripes",
    "chunk x2 forward", "chunk x2 backward", "chunk /2 forward", "chunk /2 backward",
    "layout change forward", "layout change backward" };

/* case (layout, legs, variant, space in steps) -> cfg; false when not a valid one */
static bool make_cfg(const struct lay *l, unsigned n, enum var v, unsigned space, struct cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->level = l->level;
    c->a = (struct lvx_raid_geo){ .legs = n, .parity = l->parity, .copies = 1,
                                  .layout = l->layout, .chunk = CHUNK };
    c->b = c->a;
    unsigned min = l->parity == 2 ? 4 : 2;
    switch (v) {
    case V_ADD1: case V_ADD2: c->b.legs = n + (v == V_ADD1 ? 1 : 2); break;
    case V_DEL1: case V_DEL2:
        if (n < min + (v == V_DEL1 ? 1 : 2))
            return false;
        c->b.legs = n - (v == V_DEL1 ? 1 : 2);
        break;
    case V_CHUNK2_F: case V_CHUNK2_B: c->b.chunk = CHUNK * 2; break;
    case V_CHUNKH_F: case V_CHUNKH_B: c->b.chunk = CHUNK / 2; break;
    default: c->b.layout = l->layout == 5 ? (l->parity == 2 ? 8u : 2u) : 5u; break;
    }
    bool fwd = v == V_ADD1 || v == V_ADD2 || v == V_CHUNK2_F || v == V_CHUNKH_F || v == V_LAYOUT_F;
    uint64_t unit = c->a.chunk > c->b.chunk ? c->a.chunk : c->b.chunk;
    (fwd ? &c->a : &c->b)->data_offset = space * unit;
    snprintf(c->name, sizeof(c->name), "%s %u legs, %s, space %u step%s", l->name, n,
             var_name[v], space, space > 1 ? "s" : "");
    return true;
}

static void unit_checks(void)
{
    struct lvx_reshape rs;
    struct lvx_raid_geo a = { 4, 1, 1, 2, 8, 16 }, b = { 5, 1, 1, 2, 8, 0 };
    ok(!lvx_reshape_init(&rs, 5, &a, &b, 64) && rs.forward && rs.unit == 8 &&
       rs.old_sectors == 192 && rs.new_sectors == 256 && rs.end == 256 && rs.pos == 0,
       "raid5_ls 4 -> 5 legs: forward, unit 8, sizes 192 -> 256, walk over B's 256");
    uint64_t lv0, lv1, a0, a1, b0, b1;
    rs.pos = rs.safe = 64;
    lvx_reshape_step(&rs, &lv0, &lv1);
    lvx_reshape_step_dev(&rs, &a0, &a1, &b0, &b1);
    ok(lv0 == 64 && lv1 == 96 && b0 == 16 && b1 == 24 && a0 == 16 && a1 == 32,
       "a step at 64: LV [64, 96), B rows [16, 24), A rows [16, 32)");
    rs.safe = 32;
    ok(lvx_reshape_side(&rs, 10) == LVX_RESHAPE_MOVED &&
       lvx_reshape_side(&rs, 40) == LVX_RESHAPE_UNRECORDED &&
       lvx_reshape_side(&rs, 64) == LVX_RESHAPE_WINDOW &&
       lvx_reshape_side(&rs, 95) == LVX_RESHAPE_WINDOW &&
       lvx_reshape_side(&rs, 96) == LVX_RESHAPE_UNMOVED,
       "sides at safe 32, pos 64: moved, unrecorded, window [64, 96), unmoved");
    uint64_t sec;
    unsigned leg = lvx_reshape_map(&rs, 40, 0, &sec);
    ok(leg == 0 && sec == 8, "LV sector 40 (moved) in B: raid5_ls 5 legs, stripe 1 (P on leg "
       "3), data index 1: leg 0, sector 8 (offset 0)");
    leg = lvx_reshape_map(&rs, 100, 0, &sec);
    ok(leg == 0 && sec == 16 + 32 + 4, "LV sector 100 (unmoved) in A: raid5_ls 4 legs, stripe "
       "4 (P on leg 3), data index 0, row 4: leg 0, sector 52 (offset 16)");

    struct lvx_raid_sb sb;
    memset(&sb, 0, sizeof(sb));
    rs.safe = rs.pos = 64;
    lvx_reshape_sb_round(&rs, LVX_RESHAPE_RUN, 64, &sb);
    struct lvx_reshape back;
    ok(!lvx_reshape_from_sb(&back, &sb, 64) && back.a.legs == 4 && back.b.legs == 5 &&
       back.pos == 64 && back.forward && back.a.data_offset == 16 && sb.array_sectors == 192,
       "a RUN superblock gives the same reshape back (A 4 legs at 16, B 5 at 0, pos 64, "
       "array_sectors the old 192)");
    sb.reshape_position = 72;
    const char *w = lvx_reshape_from_sb(&back, &sb, 64) ?: lvx_reshape_start_check(&back, true);
    is_str(w ?: "", "reshape_position not on a stripe boundary", "md refuses a position off "
           "B's stripe boundary");
    sb.new_level = 6;
    is_str(lvx_reshape_from_sb(&back, &sb, 64) ?: "", "unsupported reshape required",
           "md refuses another level");
    lvx_reshape_sb_round(&rs, LVX_RESHAPE_F1, 0, &sb);
    sb.new_level = 5;
    ok(!lvx_reshape_from_sb(&back, &sb, 64) && !lvx_reshape_start_check(&back, false) &&
       lvx_reshape_done(&back), "F1 of a growth: md resumes it as done");

    /* a shrink's F1: md refuses it (position 0, no offset difference) */
    struct lvx_raid_geo a2 = { 5, 1, 1, 2, 8, 0 }, b2 = { 4, 1, 1, 2, 8, 16 };
    ok(!lvx_reshape_init(&rs, 5, &a2, &b2, 64) && !rs.forward && rs.pos == 192,
       "raid5_ls 5 -> 4 legs: backward from 192");
    lvx_reshape_sb_round(&rs, LVX_RESHAPE_F1, 0, &sb);
    w = lvx_reshape_from_sb(&back, &sb, 64) ?: lvx_reshape_start_check(&back, true);
    is_str(w ?: "", "reshape_position too early for auto-recovery",
           "F1 of a shrink: md refuses it (the daemon finishes it)");
    lvx_reshape_sb_round(&rs, LVX_RESHAPE_RUN, 192, &sb);
    ok(!lvx_reshape_from_sb(&back, &sb, 64) && !lvx_reshape_start_check(&back, false) &&
       sb.array_sectors == 192, "a shrink at its start: md resumes it; array_sectors the new size");

    /* same count, space smaller than a chunk: in place, read-only only */
    struct lvx_raid_geo a3 = { 4, 1, 1, 2, 8, 4 }, b3 = { 4, 1, 1, 5, 8, 0 };
    const char *refusal = lvx_reshape_init(&rs, 5, &a3, &b3, 64);
    is_str(refusal ?: "", "reshape space smaller than one step (md could not resume after a crash)",
           "space below one step refused by the model");
    b3.layout = 2;
    a3.data_offset = 8;
    is_str(lvx_reshape_init(&rs, 5, &a3, &b3, 64) ?: "", "nothing to reshape",
           "same geometry: nothing to reshape");
    b3.layout = 5;
    b3.data_offset = 16;
    is_str(lvx_reshape_init(&rs, 5, &a3, &b3, 64) ?: "", "", "layout change with the space "
           "behind: accepted");
    ok(!rs.forward, "... and backward");
    struct lvx_raid_geo a4 = { 4, 1, 1, 2, 8, 0 }, b4 = { 5, 1, 1, 2, 8, 16 };
    is_str(lvx_reshape_init(&rs, 5, &a4, &b4, 64) ?: "",
           "stripes added need the reshape space in front of the data",
           "stripes added with the space behind refused");

    struct lvx_raid_geo ra = { 4, 0, 2, 0x102, 8, 8 }, rb = { 5, 0, 2, 0x102, 8, 0 };
    ok(!lvx_reshape_init(&rs, 10, &ra, &rb, 64) && rs.unit == 8 && rs.old_sectors == 128 &&
       rs.new_sectors == 160 && rs.end == 128, "raid10 2 copies 4 -> 5 legs: unit 8, walk "
       "over the old 128 sectors, new size 160");
    ok(lvx_reshape_need_checkpoint(&rs) == false, "raid10 first step: no checkpoint "
       "(B's rows end at 8, A's start at 0, offset difference 8)");
    is_str(lvx_reshape_init(&rs, 10, &rb, &ra, 64) ?: "",
           "raid10 is only reshaped by adding stripes or by another chunk size",
           "raid10 stripe removal refused");
}

struct group {                      /* the cases of one line of TAP */
    long before, cases, fails;
    char what[400];
};

static void group_run(struct group *g, const struct cfg *c, unsigned idx, struct totals *t)
{
    char first[200];
    long f = run_case(c, (idx & 1) ? 3 : 0, t, 0, first, sizeof(first));
    g->cases++;
    if (f && !g->fails)
        snprintf(g->what, sizeof(g->what), "%s: %s", c->name, first);
    g->fails += f;
}

static void group_end(const struct group *g)
{
    if (g->fails)
        tap_diag("%ld failures; first: %s", g->fails, g->what);
}

int main(void)
{
    lvx_gf_init();
    unit_checks();
    bool all = getenv("LVX_RESHAPE_SIM_ALL") && *getenv("LVX_RESHAPE_SIM_ALL") == '1';
    sim_all = all;
    if (all)
        dev_len = 64;
    struct totals t = { 0, 0, 0, 0 };
    unsigned idx = 0;
    for (size_t li = 0; li < sizeof(lays) / sizeof(lays[0]); li++) {
        const struct lay *l = &lays[li];
        struct group g = { .before = t.crash_points };
        unsigned n0 = l->parity == 2 ? 4 : 3;
        for (unsigned n = n0; n < n0 + 4; n++)
            for (int v = 0; v < V_NVAR; v++, idx++)
                for (unsigned sp = 1; sp <= 3; sp++) {
                    if (!all && (sp != 1 + idx % 3 || n != n0 + (idx / 3 + v) % 4))
                        continue;
                    struct cfg c;
                    if (make_cfg(l, n, (enum var)v, sp, &c))
                        group_run(&g, &c, idx, &t);
                }
        ok(!g.fails, "%s: %ld reshapes (%u..%u legs, stripes +1 +2 -1 -2, chunk x2 /2, layout "
           "change, both directions), %ld crash points: the LV intact and resumed each time",
           l->name, g.cases, n0, n0 + 3, t.crash_points - g.before);
        group_end(&g);
    }
    struct group g = { .before = t.crash_points };
    for (unsigned n = 3; n <= 6; n++)
        for (unsigned d = 1; d <= 2; d++, idx++)
            for (unsigned sp = 1; sp <= 3; sp++) {
                if (!all && sp != 1 + idx % 3)
                    continue;
                struct cfg c = { .level = 10 };
                c.a = (struct lvx_raid_geo){ n, 0, 2, 0x102, CHUNK, sp * CHUNK };
                c.b = c.a;
                c.b.legs = n + d;
                c.b.data_offset = 0;
                snprintf(c.name, sizeof(c.name), "raid10 %u legs +%u, space %u", n, d, sp);
                group_run(&g, &c, idx, &t);
            }
    ok(!g.fails, "raid10 near 2 copies: %ld reshapes (3..6 legs, +1 +2), %ld crash points: the "
       "LV intact and resumed each time", g.cases, t.crash_points - g.before);
    group_end(&g);
    /* raid10's other reshape: the same legs, the chunk doubled or halved, forward
     * (B's data in front of A's) or backward (behind: LVM2's first --stripesize) */
    struct group g10 = { .before = t.crash_points };
    for (unsigned n = 2; n <= 5; n++)
        for (unsigned v = 0; v < 4; v++, idx++)
            for (unsigned sp = 1; sp <= 3; sp++) {
                if (!all && sp != 1 + idx % 3)
                    continue;
                struct cfg c = { .level = 10 };
                uint64_t bc = v & 1 ? CHUNK / 2 : CHUNK * 2, big = bc > CHUNK ? bc : CHUNK;
                bool fwd = v < 2;
                c.a = (struct lvx_raid_geo){ n, 0, 2, 0x102, CHUNK, fwd ? sp * big : 0 };
                c.b = c.a;
                c.b.chunk = bc;
                c.b.data_offset = fwd ? 0 : sp * big;
                snprintf(c.name, sizeof(c.name), "raid10 %u legs, chunk %s %s, space %u", n,
                         v & 1 ? "/2" : "x2", fwd ? "forward" : "backward", sp);
                group_run(&g10, &c, idx, &t);
            }
    ok(!g10.fails, "raid10 near 2 copies: %ld chunk changes (2..5 legs, x2 /2, both "
       "directions), %ld crash points: the LV intact and resumed each time", g10.cases,
       t.crash_points - g10.before);
    group_end(&g10);
    char first[200];
    /* the simulator catches broken walkers */
    struct cfg c;
    struct totals t2 = { 0, 0, 0, 0 };
    make_cfg(&lays[2], 4, V_ADD1, 1, &c);
    ok(run_case(&c, 0, &t2, NO_CHECKPOINT, first, sizeof(first)) > 0,
       "a walker that never checkpoints is caught (%s)", first);
    make_cfg(&lays[2], 4, V_DEL1, 1, &c);
    ok(run_case(&c, 0, &t2, NO_CHECKPOINT, first, sizeof(first)) > 0,
       "... backward too (%s)", first);
    make_cfg(&lays[2], 4, V_ADD1, 2, &c);
    ok(run_case(&c, 0, &t2, NO_FLUSH, first, sizeof(first)) > 0,
       "a walker that records positions before flushing the data is caught (%s)", first);
    make_cfg(&lays[2], 4, V_ADD1, 3, &c);
    ok(run_case(&c, 0, &t2, NO_WRITE_CHECKPOINT, first, sizeof(first)) > 0,
       "a write to the moved but unrecorded range not recorded first is caught (%s)", first);
    struct cfg c10 = { .level = 10 };
    c10.a = (struct lvx_raid_geo){ 4, 0, 2, 0x102, CHUNK, 3 * CHUNK };
    c10.b = c10.a;
    c10.b.legs = 5;
    c10.b.data_offset = 0;
    snprintf(c10.name, sizeof(c10.name), "raid10 4 legs +1");
    ok(run_case(&c10, 0, &t2, NO_WRITE_CHECKPOINT, first, sizeof(first)) > 0,
       "... raid10 too (%s)", first);
    tap_diag("%ld reshapes, %ld crash points checked; md refused %ld finish-round (F1) "
             "states of shrinks and raid10 (the daemon finishes those)", t.cases,
             t.crash_points, t.md_refused_f1);
    tap_diag("second crashes inside a restart: %ld", nested_points);
    tap_diag("regular writes in the uninterrupted runs: %ld to the unrecorded range, %ld to the "
             "moved side, %ld to the unmoved side", lvw_count[LVX_RESHAPE_UNRECORDED],
             lvw_count[LVX_RESHAPE_MOVED], lvw_count[LVX_RESHAPE_UNMOVED]);
    return tap_done();
}
