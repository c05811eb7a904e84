/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcmd_zero_meta.c - a new pool metadata LV cleared as LVM2 clears it before
 * first use: all of it while allocation/zero_metadata is on (LVM2's default since
 * 2.03.10, so that no stale data of a former LV is left in the metadata device), its
 * first 4 KiB otherwise.  The whole LV is zeroed per PV run with the I/O seam's
 * ZERO operations (fallocate ZERO_RANGE: write-zeroes on block devices), all runs in
 * flight together, then each device flushed; a seam without submit writes zero
 * buffers instead.
 */
#include "cmd/lvcmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "dev/dev.h"
#include "dev/io.h"
#include "map/map.h"
#include "meta/commit.h"
#include "meta/scan.h"

#define START_BYTES 4096u
#define OP_MAX (1u << 30)          /* bytes of one ZERO operation */
#define OPS_MAX 64u                /* operations in flight together */
#define BUF_BYTES (1u << 20)       /* the zero buffer of a seam without submit */

/* The device of loc's PV, opened for writing. */
static int pv_dev(struct lvx_cmd_env *env, struct lvx_vg_update *u, const struct lvx_lv *lv,
                  const struct lvx_map_loc *loc, struct lvx_dev **out)
{
    struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, loc->pv->uuid);
    if (!spv || !spv->dev)
        return lvx_error(env->ctx, ENODEV, "No device for PV of %s/%s to zero", lv->vg->name,
                         lv->name);
    if (!spv->dev->writable || spv->dev->fd < 0) {
        if (spv->dev->fd >= 0)
            lvx_dev_close(env->ctx, spv->dev);
        int r = lvx_dev_open(env->ctx, spv->dev, true);
        if (r < 0)
            return r;
    }
    *out = spv->dev;
    return 0;
}

/* A seam without submit, or a device without ZERO_RANGE: zero buffers written. */
static int write_zero(struct lvx_cmd_env *env, struct lvx_dev *dev, uint64_t off, uint64_t len)
{
    static const uint8_t zeros[BUF_BYTES];
    while (len) {
        uint64_t n = len < sizeof(zeros) ? len : sizeof(zeros);
        int r = lvx_dev_write(env->ctx, dev, zeros, (size_t)n, off);
        if (r < 0)
            return r;
        off += n;
        len -= n;
    }
    return 0;
}

/* Run the n ZERO ops queued (op_dev[i]: op i's device); an op the device cannot do
 * (EOPNOTSUPP, EINVAL: a file system without ZERO_RANGE) is done by writing zeroes.
 * 0 or -errno (the first failed op's). */
static int run_zero(struct lvx_cmd_env *env, const struct lvx_dev_ops *ops,
                    struct lvx_io_queue *q, struct lvx_io_op *op, struct lvx_dev **op_dev,
                    unsigned n)
{
    int r = ops->submit(ops->arg, q, op, n);
    if (r < 0)
        return lvx_error(env->ctx, -r, "Zeroing failed");
    for (unsigned i = 0; r == 0 && i < n; i++) {
        if (op[i].result == -EOPNOTSUPP || op[i].result == -EINVAL)
            r = write_zero(env, op_dev[i], op[i].off, op[i].len);
        else if (op[i].result < 0)
            r = lvx_error(env->ctx, -op[i].result, "Zeroing %s at byte %llu failed: %s",
                          op_dev[i]->path, (unsigned long long)op[i].off,
                          strerror(-op[i].result));
    }
    return r;
}

static int zero_all(struct lvx_cmd_env *env, struct lvx_vg_update *u, const struct lvx_lv *lv)
{
    const struct lvx_dev_ops *ops = lvx_io(env->ctx);
    struct lvx_io_queue *q = NULL;
    bool batch = ops->submit && ops->queue_open && ops->queue_open(ops->arg, OPS_MAX, &q) == 0;
    struct lvx_io_op op[OPS_MAX];
    struct lvx_dev *touched[OPS_MAX], *op_dev[OPS_MAX];
    unsigned n = 0, nt = 0;
    uint64_t sector = 0, total = lv->le_count * lv->vg->extent_size;
    int r = 0;
    while (r == 0 && sector < total) {
        struct lvx_map_loc loc;
        if ((r = lvx_map_lv_sector(env->ctx, lv, sector, &loc)) < 0)
            break;
        uint64_t cnt = loc.len < total - sector ? loc.len : total - sector;
        if (loc.kind == LVX_MAP_PV) {
            struct lvx_dev *dev = NULL;
            if ((r = pv_dev(env, u, lv, &loc, &dev)) < 0)
                break;
            unsigned t = 0;
            while (t < nt && touched[t] != dev)
                t++;
            if (t == nt && nt == OPS_MAX) {         /* flush what is touched so far */
                for (t = 0; r == 0 && t < nt; t++)
                    r = lvx_dev_flush(env->ctx, touched[t]);
                nt = t = 0;
            }
            if (t == nt)
                touched[nt++] = dev;
            for (uint64_t done = 0; r == 0 && done < cnt * 512;) {
                uint64_t len = cnt * 512 - done;
                if (len > OP_MAX)
                    len = OP_MAX;
                uint64_t off = loc.pv_sector * 512 + done;
                if (!batch) {
                    r = write_zero(env, dev, off, len);
                } else {
                    op_dev[n] = dev;
                    op[n++] = (struct lvx_io_op){ .fd = dev->fd, .kind = LVX_IO_ZERO,
                                                  .len = (uint32_t)len, .off = off };
                    if (n == OPS_MAX) {
                        r = run_zero(env, ops, q, op, op_dev, n);
                        n = 0;
                    }
                }
                done += len;
            }
        }
        sector += cnt;
    }
    if (r == 0 && n)
        r = run_zero(env, ops, q, op, op_dev, n);
    for (unsigned t = 0; r == 0 && t < nt; t++)
        r = lvx_dev_flush(env->ctx, touched[t]);
    if (q)
        ops->queue_close(ops->arg, q);
    return r;
}

/* A raid LV (a pool's raid1 _tmeta): every image zeroed whole, which leaves the LV's
 * content zero at any level (copies, and XOR/syndrome parity, of zeroes are zeroes);
 * the rmeta LVs stay, so the array stays in sync.  1 when lv is raid, 0 when not,
 * -errno on failure. */
static int zero_raid(struct lvx_cmd_env *env, struct lvx_vg_update *u, const struct lvx_lv *lv)
{
    bool raid = lv->seg_count > 0;
    for (unsigned i = 0; i < lv->seg_count; i++)
        raid = raid && lv->segs[i].kind == LVX_SEG_RAID;
    if (!raid)
        return 0;
    for (unsigned i = 0; i < lv->seg_count; i++)
        for (unsigned k = 0; k < lv->segs[i].area_count; k++) {
            const struct lvx_lv *img = lv->segs[i].areas[k].lv;
            int r = img ? zero_all(env, u, img) : 0;
            if (r < 0)
                return r;
        }
    return 1;
}

int lvx_lvcmd_zero_metadata(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                            const struct lvx_lv *lv)
{
    int rr = zero_raid(env, u, lv);
    if (rr)
        return rr < 0 ? rr : 0;
    struct lvx_config *cfg = NULL;
    bool all = true;
    if (lvx_config_load(env->ctx, &cfg) == 0) {
        all = lvx_config_int(cfg, "allocation/zero_metadata", 1) != 0;
        lvx_config_free(cfg);
    } else {
        lvx_error_clear(env->ctx);
    }
    return all ? zero_all(env, u, lv) : lvx_lvcmd_zero_start(env, u, lv, START_BYTES);
}
