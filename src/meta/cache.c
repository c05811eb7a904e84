/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/cache.c - the scan cache of a session (rules in cache.h).
 *
 * The cache keeps: the device list it was made for (each device opened read-only by
 * the cache itself, so checking costs no open), a record of the bytes that vouch for
 * the scan (first 4 KiB of every device, header of every metadata area named by a
 * label found there, device sizes), and the scan.
 */
#include "meta/cache.h"
#include "format/label.h"
#include "format/mda.h"
#include "dev/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAD_BYTES 4096u

struct cache_dev {
    char *path;
    bool is_file;
    uint32_t major, minor;
    int fd;                      /* the cache's own read-only descriptor, -1 if none */
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
    struct cache_record record;
    struct lvx_scan *scan;
    bool lent;
    unsigned hits, misses;
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

static void drop_scan(struct lvx_cache *c)
{
    if (c->scan) {
        c->scan->cache = NULL;
        lvx_scan_free(c->scan);
    }
    c->scan = NULL;
    c->lent = false;
    record_free(&c->record);
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
    free(c);
}

void lvx_cache_stats(const struct lvx_cache *c, unsigned *hits, unsigned *misses)
{
    *hits = c->hits;
    *misses = c->misses;
}

/* ---- the device list ------------------------------------------------------------ */

static bool same_devices(const struct lvx_cache *c, const struct lvx_devlist *list)
{
    if (c->ndev != list->count)
        return false;
    for (unsigned i = 0; i < c->ndev; i++) {
        const struct lvx_dev *d = list->devs[i];
        const struct cache_dev *k = &c->devs[i];
        if (strcmp(k->path, d->path) != 0 || k->is_file != d->is_file || k->major != d->major ||
            k->minor != d->minor)
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
        k->is_file = d->is_file;
        k->major = d->major;
        k->minor = d->minor;
        k->fd = c->io->open(c->io->arg, d->path, O_RDONLY);
        if (k->fd < 0)
            k->fd = -1;
    }
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

int lvx_cache_scan(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts, struct lvx_scan **out)
{
    struct lvx_cache *c = ctx->cache;
    *out = NULL;
    if (c->lent)
        return lvx_scan_uncached(ctx, opts, out);   /* nested use within one command */
    if (c->io && c->io != ctx->io) {                /* another I/O seam: start over */
        drop_scan(c);
        close_devices(c);
    }
    c->io = ctx->io;

    struct lvx_pool *tmp = lvx_pool_create();
    struct lvx_devlist list;
    int rc = lvx_scan_list_devices(ctx, opts, tmp, &list);
    if (rc < 0) {
        lvx_pool_destroy(tmp);
        return rc;
    }
    bool same = same_devices(c, &list);
    if (same && c->scan && still_valid(c, ctx)) {
        lvx_pool_destroy(tmp);
        c->hits++;
        lvx_debug(ctx, "Scan cache: reusing the scan of %u devices (checked unchanged)", c->ndev);
        c->lent = true;
        c->scan->cache = c;
        *out = c->scan;
        return 0;
    }
    c->misses++;
    lvx_debug(ctx, "Scan cache: %s", !c->scan ? "no scan kept, scanning" :
              same ? "devices changed on disk, scanning again" : "device list changed, scanning");
    drop_scan(c);
    if (!same)
        take_devices(c, &list);
    lvx_pool_destroy(tmp);
    take_record(c, ctx, &c->record);        /* before the scan: see cache.h */
    struct lvx_scan *scan;
    rc = lvx_scan_uncached(ctx, opts, &scan);
    if (rc < 0) {
        record_free(&c->record);
        return rc;
    }
    c->scan = scan;
    c->lent = true;
    scan->cache = c;
    *out = scan;
    return 0;
}

/* Did the command that had the scan write, or close a device of it? */
static bool scan_touched(const struct lvx_scan *scan)
{
    for (unsigned i = 0; i < scan->devs.count; i++)
        if (scan->devs.devs[i]->writable)
            return true;
    for (unsigned i = 0; i < scan->pv_count; i++)
        if (scan->pvs[i].dev->fd < 0)
            return true;
    return false;
}

void lvx_cache_return(struct lvx_cache *c, struct lvx_scan *scan)
{
    if (scan != c->scan) {            /* not ours (should not happen): free it */
        scan->cache = NULL;
        lvx_scan_free(scan);
        return;
    }
    c->lent = false;
    scan->cache = NULL;
    if (scan_touched(scan))
        drop_scan(c);
}
