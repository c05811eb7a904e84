/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/lv_file.c - an LV's extents as one device behind the I/O seam (map/lv_file.h):
 * the LV compiled once (lvx_map_prepare), its runs copied into the handle (LV sector,
 * length, PV, PV sector), each PV opened once through the caller's seam (O_DIRECT, or
 * buffered where the file system refuses it); the handle's own lvx_dev_ops cut a
 * read or write at run ends and bounce it through an aligned buffer.  And the thin
 * pool's metadata opened over its _tmeta (lvx_thin_pool_meta_open).
 *
 * Entry points: lvx_lv_file_open(), lvx_lv_file_grow(), lvx_lv_file_close(), lvx_lv_file_ctx(),
 * lvx_lv_file_fd(), lvx_lv_file_bytes(), lvx_lv_file_save(), lvx_lv_file_load() (an LV's
 * bytes to and from a regular file, for the thin tools), lvx_thin_pool_meta_open().
 */
#include "map/lv_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/io.h"
#include "map/map.h"
#include "model/raid.h"
#include "model/raid_sb.h"
#include "model/thin.h"

#define BOUNCE (64u * 1024)

struct run {
    uint64_t start, len;     /* LV sectors */
    int pv;                  /* index into fds; -1: zero run (reads zeroes) */
    uint64_t pv_sector;
};

struct lvx_lv_file {
    struct lvx_dev_ops ops;  /* ours: arg = this handle */
    const struct lvx_dev_ops *under;
    struct lvx_ctx ctx;
    struct run *runs;
    size_t nruns;
    int *fds;
    const struct lvx_pv **pvs;
    unsigned nfds;
    uint64_t bytes;
    uint8_t *bounce;
};

static const struct run *find_run(const struct lvx_lv_file *f, uint64_t sector)
{
    size_t lo = 0, hi = f->nruns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->runs[mid].start + f->runs[mid].len <= sector)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->nruns && f->runs[lo].start <= sector ? &f->runs[lo] : NULL;
}

static ssize_t lf_io(struct lvx_lv_file *f, bool write, void *buf, size_t len, uint64_t off)
{
    size_t done = 0;
    if (off % 512 || len % 512)
        return -EINVAL;
    while (done < len) {
        uint64_t o = off + done;
        const struct run *r = find_run(f, o / 512);
        if (!r)
            return done ? (ssize_t)done : -EIO;
        uint64_t in_run = (r->start + r->len) * 512 - o;
        size_t piece = len - done;
        if (piece > in_run)
            piece = (size_t)in_run;
        if (piece > BOUNCE)
            piece = BOUNCE;
        uint8_t *b = (uint8_t *)buf + done;
        if (r->pv < 0) {
            if (!write)
                memset(b, 0, piece);
        } else {
            uint64_t at = (r->pv_sector + (o / 512 - r->start)) * 512;
            ssize_t n;
            if (write) {
                memcpy(f->bounce, b, piece);
                n = f->under->pwrite(f->under->arg, f->fds[r->pv], f->bounce, piece, at);
            } else {
                n = f->under->pread(f->under->arg, f->fds[r->pv], f->bounce, piece, at);
                if (n > 0)
                    memcpy(b, f->bounce, (size_t)n);
            }
            if (n < 0)
                return n;
            if ((size_t)n != piece)
                return (ssize_t)(done + (size_t)n);
        }
        done += piece;
    }
    return (ssize_t)done;
}

static ssize_t lf_pread(void *arg, int fd, void *buf, size_t len, uint64_t off)
{
    (void)fd;
    return lf_io(arg, false, buf, len, off);
}

static ssize_t lf_pwrite(void *arg, int fd, const void *buf, size_t len, uint64_t off)
{
    (void)fd;
    return lf_io(arg, true, (void *)buf, len, off);
}

static int lf_flush(void *arg, int fd)
{
    struct lvx_lv_file *f = arg;
    int rc = 0;
    (void)fd;
    for (unsigned i = 0; i < f->nfds; i++) {
        int r = f->under->flush(f->under->arg, f->fds[i]);
        if (r < 0 && rc == 0)
            rc = r;
    }
    return rc;
}

static int lf_open(void *arg, const char *path, int flags)
{
    (void)arg, (void)path, (void)flags;
    return -ENOTSUP;
}

static int lf_close(void *arg, int fd)
{
    (void)arg, (void)fd;
    return 0;
}

static int lf_read_batch(void *arg, struct lvx_io_req *reqs, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        reqs[i].result = lf_io(arg, false, reqs[i].buf, reqs[i].len, reqs[i].offset);
    return 0;
}

static int lf_queue_open(void *arg, unsigned depth, struct lvx_io_queue **q)
{
    (void)arg, (void)depth, (void)q;
    return -ENOTSUP;
}

static void lf_queue_close(void *arg, struct lvx_io_queue *q)
{
    (void)arg, (void)q;
}

static int lf_submit(void *arg, struct lvx_io_queue *q, struct lvx_io_op *ops, unsigned n)
{
    (void)arg, (void)q, (void)ops, (void)n;
    return -ENOTSUP;
}

static int pv_slot(struct lvx_ctx *ctx, struct lvx_lv_file *f, const struct lvx_pv *pv, bool rw)
{
    for (unsigned i = 0; i < f->nfds; i++)
        if (f->pvs[i] == pv)
            return (int)i;
    if (!pv->ondisk.present || !pv->ondisk.dev_name)
        return lvx_error(ctx, ENODEV, "A PV of the LV is missing.");
    int flags = rw ? O_RDWR : O_RDONLY;
    int fd = f->under->open(f->under->arg, pv->ondisk.dev_name, flags | O_DIRECT);
    if (fd == -EINVAL)
        fd = f->under->open(f->under->arg, pv->ondisk.dev_name, flags);
    if (fd < 0)
        return lvx_error(ctx, -fd, "Cannot open PV %s: %s", pv->ondisk.dev_name, strerror(-fd));
    f->fds = lvx_xrealloc(f->fds, (f->nfds + 1) * sizeof(*f->fds));
    f->pvs = lvx_xrealloc(f->pvs, (f->nfds + 1) * sizeof(*f->pvs));
    f->fds[f->nfds] = fd;
    f->pvs[f->nfds] = pv;
    return (int)f->nfds++;
}

/* The dm-raid superblock in the first 4 KiB of rmeta (read as any LV here); false
 * when it cannot be read or holds none (a new leg).  ctx's error left as it was. */
static bool read_sb(struct lvx_ctx *ctx, const struct lvx_lv *rmeta, struct lvx_raid_sb *sb)
{
    int err = ctx->err;
    char msg[sizeof(ctx->errmsg)];
    memcpy(msg, ctx->errmsg, sizeof(msg));
    struct lvx_lv_file *mf = NULL;
    uint8_t buf[4096];
    bool ok = rmeta && lvx_lv_file_open(ctx, rmeta, false, &mf) == 0 &&
              lf_io(mf, false, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) &&
              lvx_raid_sb_decode(buf, sizeof(buf), sb);
    lvx_lv_file_close(mf);
    ctx->err = err;
    memcpy(ctx->errmsg, msg, sizeof(msg));
    return ok;
}

/* The image a read of a raid1 LV goes to (a pool's raid1 _tmeta read for thin_check
 * or thin_repair): the first one on present PVs that is not to be rebuilt, holding the
 * LV's sectors at its own start (no data offset), and in sync by the kernel's record
 * when there is one: its rmeta's dm-raid superblock says it is not recovering
 * (disk_recovery_offset MaxSector) and the superblock with the most events does not
 * mark it failed (a leg half-rebuilt when the LV went down keeps no REBUILD flag).
 * When no rmeta holds a superblock (never activated) the first such image.  NULL when
 * none (then the mapper's refusal). */
static const struct lvx_lv *raid1_read_image(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    if (!lvx_map_lv_is_raid(lv) || strcmp(lv->segs[0].type_name, "raid1"))
        return NULL;
    const struct lvx_seg *s = &lv->segs[0];
    if (s->data_offset || s->reshape_count || s->area_count > LVX_RAID_MAX_IMAGES)
        return NULL;
    struct lvx_raid_sb sbs[LVX_RAID_MAX_IMAGES];
    bool has[LVX_RAID_MAX_IMAGES];
    int newest = -1;
    for (uint32_t i = 0; i < s->area_count; i++) {
        has[i] = s->meta_areas && read_sb(ctx, s->meta_areas[i].lv, &sbs[i]);
        if (has[i] && (newest < 0 || sbs[i].events > sbs[newest].events))
            newest = (int)i;
    }
    for (uint32_t i = 0; i < s->area_count; i++) {
        const struct lvx_lv *img = s->areas[i].lv;
        if (!img || s->areas[i].start || (img->status & LVX_LV_REBUILD) ||
            lvx_map_lv_partial(img) || img->le_count < lv->le_count)
            continue;
        if (newest >= 0 && (!has[i] || sbs[i].disk_recovery_offset != LVX_RAID_MAX_SECTOR ||
                            lvx_raid_sb_failed(&sbs[newest], i)))
            continue;
        return img;
    }
    return NULL;
}

int lvx_lv_file_open(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool rw,
                     struct lvx_lv_file **out)
{
    const struct lvx_lv *img = rw ? NULL : raid1_read_image(ctx, lv);
    if (img)
        lv = img;
    struct lvx_pool *tmp = lvx_pool_create();
    struct lvx_map_prepared *m;
    struct lvx_lv_file *f = lvx_xcalloc(1, sizeof(*f));
    int rc = lvx_map_prepare(ctx, tmp, lv, 0, &m);
    f->under = lvx_io(ctx);
    f->ops = (struct lvx_dev_ops){ lf_open, lf_close, lf_pread, lf_pwrite, lf_flush, NULL,
                                   lf_read_batch, lf_queue_open, lf_queue_close, lf_submit, f,
                                   f->under->ordered };
    lvx_ctx_init(&f->ctx);
    f->ctx.io = &f->ops;
    if (rc == 0 && posix_memalign((void **)&f->bounce, 4096, BOUNCE) != 0) {
        f->bounce = NULL;
        rc = lvx_error(ctx, ENOMEM, "Out of memory.");
    }
    uint64_t sectors = rc == 0 ? lvx_map_prepared_sectors(m) : 0, s = 0;
    while (rc == 0 && s < sectors) {
        struct lvx_map_loc loc;
        if ((rc = lvx_map_prepared_lookup(m, s, &loc)) < 0) {
            rc = lvx_error(ctx, -rc, "Cannot map %s/%s.", lv->vg->name, lv->name);
            break;
        }
        if (loc.kind == LVX_MAP_ERROR) {
            rc = lvx_error(ctx, EIO, "%s/%s maps to the error target.", lv->vg->name, lv->name);
            break;
        }
        int slot = loc.kind == LVX_MAP_PV ? pv_slot(ctx, f, loc.pv, rw) : -1;
        if (loc.kind == LVX_MAP_PV && slot < 0) {
            rc = slot;
            break;
        }
        uint64_t len = loc.len && loc.len <= sectors - s ? loc.len : sectors - s;
        f->runs = lvx_xrealloc(f->runs, (f->nruns + 1) * sizeof(*f->runs));
        f->runs[f->nruns++] = (struct run){ s, len, slot, loc.pv_sector };
        s += len;
    }
    lvx_pool_destroy(tmp);
    f->bytes = sectors * 512;
    if (rc < 0) {
        lvx_lv_file_close(f);
        return rc;
    }
    *out = f;
    return 0;
}

void lvx_lv_file_close(struct lvx_lv_file *f)
{
    if (!f)
        return;
    for (unsigned i = 0; i < f->nfds; i++)
        f->under->close(f->under->arg, f->fds[i]);
    free(f->fds);
    free(f->pvs);
    free(f->runs);
    free(f->bounce);
    free(f);
}

int lvx_lv_file_grow(struct lvx_ctx *ctx, struct lvx_lv_file *f, const struct lvx_lv *lv, bool rw)
{
    struct lvx_lv_file *g;
    int rc = lvx_lv_file_open(ctx, lv, rw, &g);
    if (rc < 0)
        return rc;
    if (g->bytes < f->bytes) {
        lvx_lv_file_close(g);
        return lvx_error(ctx, EINVAL, "%s/%s is smaller than before.", lv->vg->name, lv->name);
    }
    /* f takes g's runs and PVs (its ops and ctx stay: the module doing I/O keeps them);
     * g goes with f's old ones */
    struct run *runs = f->runs;
    int *fds = f->fds;
    const struct lvx_pv **pvs = f->pvs;
    size_t nruns = f->nruns;
    unsigned nfds = f->nfds;
    f->runs = g->runs, f->nruns = g->nruns, f->fds = g->fds, f->pvs = g->pvs;
    f->nfds = g->nfds, f->bytes = g->bytes;
    g->runs = runs, g->nruns = nruns, g->fds = fds, g->pvs = pvs, g->nfds = nfds;
    lvx_lv_file_close(g);
    return 0;
}

struct lvx_ctx *lvx_lv_file_ctx(struct lvx_lv_file *f)
{
    return &f->ctx;
}

int lvx_lv_file_fd(const struct lvx_lv_file *f)
{
    (void)f;
    return 0;
}

uint64_t lvx_lv_file_bytes(const struct lvx_lv_file *f)
{
    return f->bytes;
}

int lvx_lv_file_flush(struct lvx_lv_file *f)
{
    return lf_flush(f, 0);
}

#define COPY_CHUNK (1u << 20)
#define COPY_BLOCK 4096u

static bool all_zero(const uint8_t *b, size_t len)
{
    return len == 0 || (b[0] == 0 && memcmp(b, b + 1, len - 1) == 0);
}

static int write_all(int fd, const uint8_t *b, size_t len, uint64_t off)
{
    for (size_t done = 0; done < len;) {
        ssize_t w = pwrite(fd, b + done, len - done, (off_t)(off + done));
        if (w < 0 && errno != EINTR)
            return -errno;
        if (w > 0)
            done += (size_t)w;
    }
    return 0;
}

int lvx_lv_file_save(struct lvx_lv_file *f, int fd)
{
    uint8_t *buf = lvx_xcalloc(1, COPY_CHUNK);
    int rc = ftruncate(fd, (off_t)f->bytes) < 0 ? -errno : 0;
    for (uint64_t off = 0; off < f->bytes && rc == 0; off += COPY_CHUNK) {
        size_t len = f->bytes - off < COPY_CHUNK ? (size_t)(f->bytes - off) : COPY_CHUNK;
        ssize_t n = lf_io(f, false, buf, len, off);
        if (n != (ssize_t)len)
            rc = n < 0 ? (int)n : -EIO;
        else if (!all_zero(buf, len))
            rc = write_all(fd, buf, len, off);
    }
    free(buf);
    return rc;
}

int lvx_lv_file_load(struct lvx_lv_file *f, int fd, uint64_t bytes)
{
    uint8_t *buf = lvx_xcalloc(1, COPY_CHUNK);
    int rc = 0;
    if (bytes > f->bytes)
        bytes = f->bytes;
    for (uint64_t off = 0; off < bytes && rc == 0; off += COPY_CHUNK) {
        size_t len = bytes - off < COPY_CHUNK ? (size_t)(bytes - off) : COPY_CHUNK, got = 0;
        while (got < len) {
            ssize_t n = pread(fd, buf + got, len - got, (off_t)(off + got));
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                rc = -errno;
                break;
            }
            if (n == 0) {                 /* a short file: the rest reads as zero */
                memset(buf + got, 0, len - got);
                break;
            }
            got += (size_t)n;
        }
        /* runs of non-zero 4 KiB blocks, each written in one request */
        for (size_t b = 0; rc == 0 && b < len;) {
            size_t bl = len - b < COPY_BLOCK ? len - b : COPY_BLOCK;
            if (all_zero(buf + b, bl)) {
                b += bl;
                continue;
            }
            size_t e = b + bl;
            while (e < len) {
                size_t el = len - e < COPY_BLOCK ? len - e : COPY_BLOCK;
                if (all_zero(buf + e, el))
                    break;
                e += el;
            }
            ssize_t n = lf_io(f, true, buf + b, e - b, off + b);
            if (n != (ssize_t)(e - b))
                rc = n < 0 ? (int)n : -EIO;
            b = e;
        }
    }
    free(buf);
    return rc ? rc : lf_flush(f, 0);
}

int lvx_thin_pool_meta_open(struct lvx_ctx *ctx, struct lvx_pool *mem, const struct lvx_lv *pool_lv,
                            bool rw, struct lvx_lv_file **file, struct lvx_thin_meta **tm)
{
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool_lv);
    struct lvx_lv_file *f;
    if (!ps || !ps->metadata_lv || !ps->data_lv || !ps->chunk_size)
        return lvx_error(ctx, EINVAL, "%s/%s is not a thin pool.", pool_lv->vg->name,
                         pool_lv->name);
    int rc = lvx_lv_file_open(ctx, ps->metadata_lv, rw, &f);
    if (rc < 0)
        return rc;
    struct lvx_ctx *fc = &f->ctx;
    uint64_t nr_data = ps->data_lv->le_count * (uint64_t)pool_lv->vg->extent_size / ps->chunk_size;
    uint8_t *sb = lvx_pool_alloc(mem, 4096);
    ssize_t n = f->ops.pread(f, 0, sb, 4096, 0);
    bool zero = n == 4096;
    for (size_t i = 0; zero && i < 4096; i++)
        zero = sb[i] == 0;
    if (n != 4096)
        rc = lvx_error(fc, n < 0 ? (int)-n : EIO, "Cannot read the metadata of thin pool %s/%s.",
                       pool_lv->vg->name, pool_lv->name);
    else if (zero && !rw)
        rc = lvx_error(fc, EROFS, "Thin pool %s/%s has no metadata yet and is read-only.",
                       pool_lv->vg->name, pool_lv->name);
    else if (zero)
        rc = lvx_thin_meta_format(fc, mem, 0, f->bytes, ps->chunk_size, nr_data, tm);
    else
        rc = lvx_thin_meta_open(fc, mem, 0, f->bytes, rw, tm);
    if (rc == 0 && !zero) {
        struct lvx_thin_info info;
        lvx_thin_meta_info(*tm, &info);
        if (info.data_block_size != ps->chunk_size)
            rc = lvx_error(fc, EINVAL, "Thin pool %s/%s: metadata data block size %u differs "
                           "from the chunk size %u.", pool_lv->vg->name, pool_lv->name,
                           info.data_block_size, ps->chunk_size);
        else if (rw && info.nr_data < nr_data)
            rc = lvx_thin_resize_data(*tm, nr_data);
        if (rc == 0 && rw && info.nr_meta < f->bytes / 4096)
            rc = lvx_thin_resize_meta(*tm, f->bytes);
    }
    if (rc < 0) {
        if (!fc->err)
            lvx_error(fc, -rc, "Thin pool %s/%s: %s", pool_lv->vg->name, pool_lv->name,
                      strerror(-rc));
        rc = lvx_error(ctx, fc->err ? -fc->err : -rc, "%s", fc->errmsg);
        lvx_lv_file_close(f);
        return rc;
    }
    *file = f;
    return 0;
}
