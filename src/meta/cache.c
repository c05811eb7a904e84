/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/cache.c - the scan cache of a session (rules in cache.h).
 *
 * The cache keeps: the device list it was made for (each device opened read-only by
 * the cache itself, so checking costs no open), a record of the bytes that vouch for
 * the scan (first 4 KiB of every device, header of every metadata area named by a
 * label found there, device sizes), and the scan.  While the scan is lent, commits
 * through it report their writes (the record is patched with the bytes written) and
 * their end; the texts and trees they put into the scan live in per-VG pools here.
 * Entry points: lvx_cache_new/free(), lvx_cache_scan(), lvx_cache_return(),
 * lvx_cache_text_pool(), lvx_cache_note_write(), lvx_cache_note_commit().
 */
#include "meta/cache.h"
#include "format/label.h"
#include "format/mda.h"
#include "dev/io.h"
#include "meta/index.h"
#include "config/config.h"
#include "util/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAD_BYTES 4096u

struct cache_dev {
    char *path;
    struct lvx_dev tmpl;         /* the listed device (closed), copied into new scans */
    int fd;                      /* the cache's own read-only descriptor, -1 if none */
};

/* The text and tree of a VG version written by a commit through the kept scan: areas
 * of the scan point into its pool. */
struct cache_text {
    char vg_uuid[LVX_UUID_LEN + 1];
    struct lvx_pool *pool;
    const char *text;            /* NULL until the commit succeeded */
    size_t size;
    bool retired;                /* replaced by a newer version: freed at the scan's return */
};

/* One range read for the check: device index, offset, bytes seen. */
struct cache_rec {
    unsigned dev;
    uint64_t offset;
    size_t len;
    uint8_t *bytes;
};

struct cache_record {
    unsigned count;
    struct cache_rec *recs;
    uint64_t *sizes;             /* per device (lseek end), 0 when unknown */
};

struct lvx_cache {
    const struct lvx_dev_ops *io;
    unsigned ndev;
    struct cache_dev *devs;
    struct lvx_buf list_key;     /* what the system device list was built from (lvx_scan_list_key()),
                                  * empty when the list came from --devices or is unknown */
    struct cache_record record;
    struct lvx_scan *scan;
    bool lent;
    /* while lent: what commits through the scan reported (lvx_cache_note_commit) */
    bool commit_failed;
    unsigned committed_count, written_count;
    struct lvx_dev **committed;  /* devices written by successful commits */
    struct lvx_dev **written;    /* devices written by the commit under way */
    unsigned text_count;
    struct cache_text *texts;
    unsigned hits, misses;
    /* The VG set of the last LV command, as its successful commit left it (cache.h):
     * good while `generation` (bumped by every rescan, drop and commit) is unchanged. */
    unsigned generation;
    struct lvx_vgset *kept_set;
    unsigned kept_generation;
};

struct lvx_cache *lvx_cache_new(void)
{
    return lvx_xcalloc(1, sizeof(struct lvx_cache));
}

static void record_free(struct cache_record *r)
{
    for (unsigned i = 0; i < r->count; i++)
        free(r->recs[i].bytes);
    free(r->recs);
    free(r->sizes);
    memset(r, 0, sizeof(*r));
}

/* Free the texts (all, or the retired ones), keeping the others in order. */
static void free_texts(struct lvx_cache *c, bool all)
{
    unsigned kept = 0;
    for (unsigned i = 0; i < c->text_count; i++) {
        if (all || c->texts[i].retired)
            lvx_pool_destroy(c->texts[i].pool);
        else
            c->texts[kept++] = c->texts[i];
    }
    c->text_count = kept;
    if (!kept) {
        free(c->texts);
        c->texts = NULL;
    }
}

static void drop_kept_set(struct lvx_cache *c)
{
    lvx_vgset_free(c->kept_set);
    c->kept_set = NULL;
}

static void drop_scan(struct lvx_cache *c)
{
    drop_kept_set(c);             /* its PVs point at the scan's devices */
    c->generation++;
    if (c->scan) {
        lvx_scan_origin(c->scan)->cache = NULL;
        lvx_scan_release(c->scan);
    }
    c->scan = NULL;
    c->lent = false;
    free_texts(c, true);          /* after the scan that pointed into them */
    record_free(&c->record);
}

static void forget_commits(struct lvx_cache *c)
{
    free(c->committed);
    free(c->written);
    c->committed = c->written = NULL;
    c->committed_count = c->written_count = 0;
    c->commit_failed = false;
}

static void close_devices(struct lvx_cache *c)
{
    for (unsigned i = 0; i < c->ndev; i++) {
        if (c->devs[i].fd >= 0)
            c->io->close(c->io->arg, c->devs[i].fd);
        free(c->devs[i].path);
    }
    free(c->devs);
    c->devs = NULL;
    c->ndev = 0;
}

void lvx_cache_free(struct lvx_cache *c)
{
    if (!c)
        return;
    drop_scan(c);
    close_devices(c);
    forget_commits(c);
    free_texts(c, true);
    lvx_buf_free(&c->list_key);
    free(c);
}

void lvx_cache_stats(const struct lvx_cache *c, unsigned *hits, unsigned *misses)
{
    *hits = c->hits;
    *misses = c->misses;
}

/* ---- the kept VG set ------------------------------------------------------------ */

bool lvx_cache_keep_set(struct lvx_cache *c, const struct lvx_scan *scan, struct lvx_vgset *set)
{
    if (!c || !c->lent || scan != c->scan || c->commit_failed || c->written_count)
        return false;
    drop_kept_set(c);
    c->kept_set = set;
    c->kept_generation = c->generation;
    return true;
}

struct lvx_vgset *lvx_cache_take_set(struct lvx_cache *c, const struct lvx_scan *scan)
{
    struct lvx_vgset *set = c->kept_set;
    c->kept_set = NULL;
    if (set && (scan != c->scan || c->kept_generation != c->generation)) {
        lvx_vgset_free(set);
        set = NULL;
    }
    return set;
}

/* ---- the device list ------------------------------------------------------------ */

static bool same_devices(const struct lvx_cache *c, const struct lvx_devlist *list)
{
    if (c->ndev != list->count)
        return false;
    for (unsigned i = 0; i < c->ndev; i++) {
        const struct lvx_dev *d = list->devs[i];
        const struct cache_dev *k = &c->devs[i];
        if (strcmp(k->path, d->path) != 0 || k->tmpl.is_file != d->is_file ||
            k->tmpl.major != d->major || k->tmpl.minor != d->minor)
            return false;
    }
    return true;
}

static void take_devices(struct lvx_cache *c, const struct lvx_devlist *list)
{
    close_devices(c);
    c->ndev = list->count;
    c->devs = lvx_xcalloc(list->count + 1, sizeof(*c->devs));
    for (unsigned i = 0; i < list->count; i++) {
        const struct lvx_dev *d = list->devs[i];
        struct cache_dev *k = &c->devs[i];
        k->path = lvx_xstrdup(d->path);
        k->tmpl = *d;
        k->tmpl.path = k->path;
        k->tmpl.fd = -1;
        k->tmpl.writable = false;
        k->fd = c->io->open(c->io->arg, d->path, O_RDONLY);
        if (k->fd < 0)
            k->fd = -1;
    }
}

static bool same_key(const struct lvx_buf *a, const struct lvx_buf *b)
{
    return a->len && a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* ---- the record ------------------------------------------------------------------- */

static void add_rec(struct cache_record *r, unsigned dev, uint64_t offset, const uint8_t *bytes,
                    size_t len)
{
    r->recs = lvx_xrealloc(r->recs, (r->count + 1) * sizeof(*r->recs));
    struct cache_rec *x = &r->recs[r->count++];
    x->dev = dev;
    x->offset = offset;
    x->len = len;
    x->bytes = lvx_xmalloc(len ? len : 1);
    memcpy(x->bytes, bytes, len);
}

/* Read [offset, offset+len) of device i; the bytes read (a short read at the end of the
 * device is fine: the length is part of the record). */
static size_t read_range(const struct lvx_cache *c, unsigned i, uint64_t offset, uint8_t *buf,
                         size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = c->io->pread(c->io->arg, c->devs[i].fd, buf + done, len - done, offset + done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    return done;
}

/* Read everything that vouches for a scan of the current devices. */
static void take_record(struct lvx_cache *c, struct lvx_ctx *ctx, struct cache_record *r)
{
    uint8_t head[HEAD_BYTES], hdr[LVX_MDA_HEADER_SIZE];
    memset(r, 0, sizeof(*r));
    r->sizes = lvx_xcalloc(c->ndev + 1, sizeof(*r->sizes));
    for (unsigned i = 0; i < c->ndev; i++) {
        if (c->devs[i].fd < 0)
            continue;
        off_t end = lseek(c->devs[i].fd, 0, SEEK_END);
        r->sizes[i] = end > 0 ? (uint64_t)end : 0;
        size_t got = read_range(c, i, 0, head, sizeof(head));
        add_rec(r, i, 0, head, got);
        struct lvx_label label;
        if (lvx_label_find(ctx, head, got, &label) < 0) {
            lvx_error_clear(ctx);
            continue;
        }
        for (unsigned m = 0; m < label.mda_count && m < 2; m++) {
            size_t n = read_range(c, i, label.mda[m].offset, hdr, sizeof(hdr));
            add_rec(r, i, label.mda[m].offset, hdr, n);
        }
    }
}

static bool same_record(const struct cache_record *a, const struct cache_record *b, unsigned ndev)
{
    if (a->count != b->count || memcmp(a->sizes, b->sizes, ndev * sizeof(*a->sizes)) != 0)
        return false;
    for (unsigned i = 0; i < a->count; i++) {
        const struct cache_rec *x = &a->recs[i], *y = &b->recs[i];
        if (x->dev != y->dev || x->offset != y->offset || x->len != y->len ||
            memcmp(x->bytes, y->bytes, x->len) != 0)
            return false;
    }
    return true;
}

/* ---- lending ---------------------------------------------------------------------- */

static bool still_valid(struct lvx_cache *c, struct lvx_ctx *ctx)
{
    struct cache_record now;
    take_record(c, ctx, &now);
    bool same = same_record(&now, &c->record, c->ndev);
    record_free(&now);
    return same;
}

/* Scan the cache's device list (just listed or checked unchanged): no second listing. */
static int scan_listed(struct lvx_ctx *ctx, const struct lvx_cache *c, bool system,
                       struct lvx_scan **out)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_devlist list = { c->ndev, lvx_pool_alloc(pool, (c->ndev + 1) * sizeof(*list.devs)) };
    for (unsigned i = 0; i < c->ndev; i++) {
        struct lvx_dev *d = lvx_pool_alloc(pool, sizeof(*d));
        *d = c->devs[i].tmpl;
        d->path = lvx_pool_strdup(pool, c->devs[i].path);
        list.devs[i] = d;
    }
    uint64_t hash = system ? lvx_index_hash_devices(&list) : 0;
    int rc = lvx_scan_devices(ctx, pool, &list, !system, out);
    if (rc == 0 && system) {
        lvx_scan_origin(*out)->full_system = true;
        lvx_scan_origin(*out)->devs_hash = hash;
    }
    return rc;
}

static void lend(struct lvx_cache *c, struct lvx_scan *scan, struct lvx_scan **out)
{
    forget_commits(c);
    c->lent = true;
    lvx_scan_origin(scan)->cache = c;
    *out = scan;
}

int lvx_cache_scan(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts, struct lvx_scan **out)
{
    struct lvx_cache *c = ctx->cache;
    *out = NULL;
    if (c->lent)
        return -EBUSY;            /* nested use within one command: the front reads uncached */
    if (c->io && c->io != lvx_io(ctx)) {                /* another I/O seam: start over */
        drop_scan(c);
        close_devices(c);
    }
    c->io = lvx_io(ctx);

    /* the key is read before the list it vouches for: a change racing with the listing
     * makes the next key differ */
    struct lvx_buf key = LVX_BUF_INIT;
    bool system = !(opts && (opts->devices || opts->named));
    if (system)
        lvx_scan_list_key(ctx, &key);
    struct lvx_pool *tmp = lvx_pool_create();
    struct lvx_devlist list = { 0 };
    bool same = system && c->devs && same_key(&key, &c->list_key);
    int rc = same ? 0 : lvx_scan_list_devices(ctx, opts, tmp, &list);
    if (rc < 0) {
        lvx_buf_free(&key);
        lvx_buf_free(&c->list_key);
        lvx_pool_destroy(tmp);
        return rc;
    }
    if (!same) {
        same = same_devices(c, &list);
        if (!same)
            take_devices(c, &list);
    }
    lvx_buf_free(&c->list_key);
    c->list_key = key;              /* empty for --devices: never matches */
    lvx_pool_destroy(tmp);
    if (same && c->scan && still_valid(c, ctx)) {
        c->hits++;
        lvx_debug(ctx, "Scan cache: reusing the scan of %u devices (checked unchanged)", c->ndev);
        lend(c, c->scan, out);
        return 0;
    }
    c->misses++;
    lvx_debug(ctx, "Scan cache: %s", !c->scan ? "no scan kept, scanning" :
              same ? "devices changed on disk, scanning again" : "device list changed, scanning");
    drop_scan(c);
    take_record(c, ctx, &c->record);        /* before the scan: see cache.h */
    struct lvx_scan *scan;
    rc = scan_listed(ctx, c, system, &scan);
    if (rc < 0) {
        record_free(&c->record);
        return rc;
    }
    c->scan = scan;
    lend(c, scan, out);
    return 0;
}

/* ---- commits through a lent scan ------------------------------------------------ */

static int dev_index(const struct lvx_cache *c, const struct lvx_dev *dev)
{
    for (unsigned i = 0; i < c->ndev; i++)
        if (c->devs[i].tmpl.major == dev->major && c->devs[i].tmpl.minor == dev->minor &&
            strcmp(c->devs[i].path, dev->path) == 0)
            return (int)i;
    return -1;
}

static bool listed(struct lvx_dev *const *v, unsigned n, const struct lvx_dev *dev)
{
    for (unsigned i = n; i-- > 0;)
        if (v[i] == dev)
            return true;
    return false;
}

void lvx_cache_note_write(struct lvx_cache *c, struct lvx_dev *dev, uint64_t offset,
                          const void *bytes, size_t len)
{
    if (!c || !c->lent)
        return;
    if (!listed(c->written, c->written_count, dev)) {
        c->written = lvx_xrealloc(c->written, (c->written_count + 1) * sizeof(*c->written));
        c->written[c->written_count++] = dev;
    }
    int i = dev_index(c, dev);
    if (i < 0)
        return;                   /* not recorded: a range it changed makes the check fail */
    for (unsigned r = 0; r < c->record.count; r++) {
        struct cache_rec *x = &c->record.recs[r];
        if (x->dev != (unsigned)i || offset >= x->offset + x->len || offset + len <= x->offset)
            continue;
        uint64_t from = offset > x->offset ? offset : x->offset;
        uint64_t to = offset + len < x->offset + x->len ? offset + len : x->offset + x->len;
        memcpy(x->bytes + (from - x->offset), (const uint8_t *)bytes + (from - offset),
               (size_t)(to - from));
    }
}

struct lvx_pool *lvx_cache_text_pool(struct lvx_cache *c, const char *vg_uuid)
{
    for (unsigned i = 0; i < c->text_count; i++)
        if (strcmp(c->texts[i].vg_uuid, vg_uuid) == 0)
            c->texts[i].retired = true;
    c->texts = lvx_xrealloc(c->texts, (c->text_count + 1) * sizeof(*c->texts));
    struct cache_text *t = &c->texts[c->text_count++];
    memset(t, 0, sizeof(*t));
    snprintf(t->vg_uuid, sizeof(t->vg_uuid), "%s", vg_uuid);
    t->pool = lvx_pool_create();
    return t->pool;
}

void lvx_cache_note_commit(struct lvx_cache *c, bool ok, const char *text, size_t size)
{
    if (!c || !c->lent)
        return;
    c->generation++;              /* a set kept before this commit is stale */
    if (!ok)
        c->commit_failed = true;
    if (ok && c->text_count && !c->texts[c->text_count - 1].text) {
        c->texts[c->text_count - 1].text = text;
        c->texts[c->text_count - 1].size = size;
    }
    for (unsigned i = 0; ok && i < c->written_count; i++) {
        if (listed(c->committed, c->committed_count, c->written[i]))
            continue;
        c->committed = lvx_xrealloc(c->committed, (c->committed_count + 1) * sizeof(*c->committed));
        c->committed[c->committed_count++] = c->written[i];
    }
    free(c->written);
    c->written = NULL;
    c->written_count = 0;
}

/* Does an area of the scan still point into a retired text (it should not: every area
 * holding a VG's text is rewritten by the commit that retires it)? */
static bool points_into_retired(const struct lvx_cache *c, const struct lvx_scan *scan)
{
    for (unsigned t = 0; t < c->text_count; t++) {
        const struct cache_text *x = &c->texts[t];
        if (!x->retired || !x->text)
            continue;
        for (unsigned p = 0; p < scan->pv_count; p++)
            for (unsigned m = 0; m < scan->pvs[p].mda_count; m++) {
                const char *s = scan->pvs[p].mda[m].text;
                if (s && s >= x->text && s < x->text + x->size)
                    return true;
            }
    }
    return false;
}

/* May the scan be kept?  Every device written by the command was written by a
 * successful commit through it (whose writes patched the record), none was closed. */
static bool scan_still_cacheable(const struct lvx_cache *c, const struct lvx_scan *scan)
{
    if (c->commit_failed || c->written_count || points_into_retired(c, scan))
        return false;             /* written_count: a commit that never finished */
    for (unsigned i = 0; i < scan->devs.count; i++)
        if (scan->devs.devs[i]->writable &&
            !listed(c->committed, c->committed_count, scan->devs.devs[i]))
            return false;
    for (unsigned i = 0; i < scan->pv_count; i++)
        if (scan->pvs[i].dev->fd < 0)
            return false;
    return true;
}

void lvx_cache_return(struct lvx_cache *c, struct lvx_scan *scan)
{
    lvx_scan_origin(scan)->cache = NULL;
    if (scan != c->scan) {            /* not ours (should not happen): free it */
        lvx_scan_release(scan);
        return;
    }
    bool keep = scan_still_cacheable(c, scan);
    c->lent = false;
    forget_commits(c);
    if (!keep)
        drop_scan(c);
    else
        free_texts(c, false);     /* the command's VG set, imported from them, is gone */
}
