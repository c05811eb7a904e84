/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/dm_cache.c - the kernel state of cache and writecache LVs for reports: the
 * dm-cache status line of an active cache LV (docs/dm-formats.md) parsed into struct
 * lvx_lv_kstate, and for a cache pool in use the status of the cache LV using it (as
 * LVM2: the pool itself is never a device, its report shows its cache's counters); a
 * writecache LV's dm-writecache status (error, blocks, free, under writeback).  lvx
 * does not activate either (map/activatable.c refuses them); LVM2's are read here.
 * Deactivation: a cache LV's device goes with the devices under it that LVM2 made (its
 * origin, the pool's data and metadata, or the cachevol's -cdata/-cmeta layers and the
 * cachevol itself), a writecache's with its origin and cachevol.
 * Entry points: lvx_dm_cache_status(), lvx_dm_cache_subs_down().
 */
#include "activate/dm_int.h"

#include "map/map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the next space-separated word of *p (NUL-terminated in place), NULL at the end */
static char *word(char **p)
{
    char *s = *p;
    while (*s == ' ' || *s == '\n')
        s++;
    if (!*s)
        return NULL;
    char *e = s;
    while (*e && *e != ' ' && *e != '\n')
        e++;
    if (*e)
        *e++ = '\0';
    *p = e;
    return s;
}

static bool num(char **p, uint64_t *out)
{
    char *w = word(p), *end;
    if (!w)
        return false;
    *out = strtoull(w, &end, 10);
    return *end == '\0';
}

static bool frac(char **p, uint64_t *a, uint64_t *b)
{
    char *w = word(p);
    unsigned long long x, y;
    if (!w || sscanf(w, "%llu/%llu", &x, &y) != 2)
        return false;
    *a = x;
    *b = y;
    return true;
}

/* n "key value" pairs (n counts words) appended to the settings list */
static bool pairs(char **p, uint64_t n, struct lvx_lv_kstate *out)
{
    for (uint64_t i = 0; i + 1 < n; i += 2) {
        char *k = word(p), *v = word(p);
        if (!k || !v)
            return false;
        size_t len = strlen(out->cache_settings);
        snprintf(out->cache_settings + len, sizeof(out->cache_settings) - len, "%s%s=%s",
                 len ? "," : "", k, v);
    }
    return true;
}

/* "<start> <len> cache <md block> <used>/<total> <block> <used>/<total> <read hits>
 * <read misses> <write hits> <write misses> <demotions> <promotions> <dirty> <#features>
 * <feature>... <#core> <core args>... <policy> <#policy args> <args>... <rw|ro>
 * <needs_check|->", or "... cache Fail" / "Error". */
static bool parse_cache_status(char *line, struct lvx_lv_kstate *out)
{
    char *p = line, *w;
    uint64_t x, n;
    if (!num(&p, &x) || !num(&p, &x) || !(w = word(&p)) || strcmp(w, "cache") != 0)
        return false;
    out->cache = true;
    p += strspn(p, " ");
    if (!strncmp(p, "Fail", 4) || !strncmp(p, "Error", 5)) {
        out->cache_fail = true;
        return true;
    }
    if (!num(&p, &x) || !frac(&p, &out->cache_meta_used, &out->cache_meta_total) ||
        !num(&p, &x) || !frac(&p, &out->cache_used, &out->cache_total) ||
        !num(&p, &out->cache_read_hits) || !num(&p, &out->cache_read_misses) ||
        !num(&p, &out->cache_write_hits) || !num(&p, &out->cache_write_misses) ||
        !num(&p, &out->cache_demotions) || !num(&p, &out->cache_promotions) ||
        !num(&p, &out->cache_dirty) || !num(&p, &n))
        goto bad;
    for (uint64_t i = 0; i < n; i++) {
        if (!(w = word(&p)))
            goto bad;
        out->cache_metadata2 |= !strcmp(w, "metadata2");
        out->cache_no_discard_passdown |= !strcmp(w, "no_discard_passdown");
    }
    if (!num(&p, &n) || !pairs(&p, n, out) || !(w = word(&p)))
        goto bad;
    snprintf(out->cache_policy, sizeof(out->cache_policy), "%s", w);
    if (!num(&p, &n) || !pairs(&p, n, out))
        goto bad;
    if ((w = word(&p)))
        out->cache_read_only = !strcmp(w, "ro");
    if ((w = word(&p)))
        out->cache_needs_check = !strcmp(w, "needs_check");
    return true;
bad:
    out->cache = false;
    return false;
}

/* The cache LV using a cache pool (or lv itself when it is a cache LV), NULL if none. */
static const struct lvx_lv *cache_lv_of(const struct lvx_lv *lv)
{
    if (!lv->seg_count)
        return NULL;
    if (lv->segs[0].kind == LVX_SEG_CACHE)
        return lv;
    if (lv->segs[0].kind != LVX_SEG_CACHE_POOL)
        return NULL;
    for (unsigned i = 0; i < lv->vg->lv_count; i++) {
        const struct lvx_lv *u = lv->vg->lvs[i];
        if (u->seg_count && u->segs[0].kind == LVX_SEG_CACHE && u->segs[0].pool_lv == lv)
            return u;
    }
    return NULL;
}

/* "<start> <len> writecache <error> <blocks> <free blocks> <writeback blocks> ..." */
static void parse_writecache_status(char *line, struct lvx_lv_kstate *out)
{
    char *p = line, *w;
    uint64_t x;
    if (!num(&p, &x) || !num(&p, &x) || !(w = word(&p)) || strcmp(w, "writecache") != 0)
        return;
    out->writecache = num(&p, &out->wc_error) && num(&p, &out->wc_total) &&
                      num(&p, &out->wc_free) && num(&p, &out->wc_writeback);
}

int lvx_dm_cache_status(struct lvx_ctx *ctx, struct lvx_dm *dm, const struct lvx_lv *lv,
                        struct lvx_lv_kstate *out)
{
    bool wc = lv->seg_count && lvx_seg_is_writecache(&lv->segs[0]);
    const struct lvx_lv *c = wc ? lv : cache_lv_of(lv);
    struct lvx_dm_ids ids;
    struct lvx_dm_info info;
    if (!c || lvx_dm_ids_of(ctx, c, NULL, &ids) < 0 ||
        lvx_dm_info(ctx, dm, ids.name, &info) < 0 || !info.exists || !info.live_table)
        return 0;
    struct lvx_buf st = LVX_BUF_INIT;
    if (lvx_dm_table(ctx, dm, ids.name, true, &st) == 0) {
        char *line = strdup(lvx_buf_str(&st));
        if (line && wc)
            parse_writecache_status(line, out);
        else if (line)
            parse_cache_status(line, out);
        free(line);
    }
    lvx_buf_free(&st);
    return 0;
}

struct sub_dev { const struct lvx_lv *lv; const char *layer; };

/* Each present device of subs (an LV, or its layer) removed unless open; a RAID or
 * mirror one's own image and metadata devices after it. */
static int remove_subs(struct lvx_ctx *ctx, const struct sub_dev *subs, unsigned n)
{
    struct lvx_dm dm;
    int rc = lvx_dm_open(ctx, &dm);
    if (rc < 0)
        return rc;
    for (unsigned i = 0; rc == 0 && i < n; i++) {
        struct lvx_dm_ids ids;
        const struct lvx_lv *sub = subs[i].lv;
        if (sub && (rc = lvx_dm_ids_of(ctx, sub, subs[i].layer, &ids)) == 0)
            rc = lvx_dm_remove_one(ctx, &dm, &ids, NULL, false);
        /* a RAID or mirror origin, data or cachevol: its own image and meta devices */
        if (rc == 0 && sub && !subs[i].layer &&
            (lvx_map_lv_is_raid(sub) || lvx_map_lv_is_mirror(sub)))
            rc = lvx_dm_stacked_subs_down(ctx, sub);
    }
    lvx_dm_close(&dm);
    return rc;
}

/* The devices under an active cache LV (LVM2's), after the cache device itself went:
 * removed when present and not open by anything else (a RAID or mirror sub-LV's own
 * images and metadata after it); an open one stops with -EBUSY. */
int lvx_dm_cache_subs_down(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    const struct lvx_seg *s = lv->seg_count ? &lv->segs[0] : NULL;
    struct sub_dev subs[4];
    unsigned n = 0;
    if (lvx_seg_is_writecache(s)) {
        subs[n].lv = lvx_seg_ref(s, "origin"), subs[n++].layer = NULL;
        subs[n].lv = lvx_seg_ref(s, "writecache"), subs[n++].layer = NULL;
        return remove_subs(ctx, subs, n);
    }
    if (!s || s->kind != LVX_SEG_CACHE || !s->pool_lv)
        return 0;
    const struct lvx_lv *pool = s->pool_lv;
    const struct lvx_seg *ps = pool->seg_count ? &pool->segs[0] : NULL;
    if (pool->flags & LVX_LVF_CACHE_VOL) {
        subs[n].lv = pool, subs[n++].layer = "cdata";
        subs[n].lv = pool, subs[n++].layer = "cmeta";
    } else if (ps && ps->kind == LVX_SEG_CACHE_POOL) {
        subs[n].lv = ps->data_lv, subs[n++].layer = NULL;
        subs[n].lv = ps->metadata_lv, subs[n++].layer = NULL;
    }
    subs[n].lv = s->origin_lv, subs[n++].layer = NULL;
    if (pool->flags & LVX_LVF_CACHE_VOL)
        subs[n].lv = pool, subs[n++].layer = NULL;
    return remove_subs(ctx, subs, n);
}
