/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/thin.c - the dm lines of thin pools and thin LVs, as LVM2 2.03.16 loads them
 * (lib/thin/thin.c _thin_pool_add_target_line, _thin_add_target_line; libdm's
 * _thin_pool_emit_segment_line; docs/dm-formats.md §1, §9):
 *
 *   thin-pool <tmeta> <tdata> <chunk> <low_water_mark> <#features> [skip_block_zeroing]
 *             [ignore_discard] [no_discard_passdown] [error_if_no_space]
 *   thin <tpool> <device_id> [<external origin device>]
 *
 * (device_id: the caller's; a merging origin's is its snapshot's, LVM2's merge at
 * activation, unless that merge must wait)
 *
 * low_water_mark: the free data blocks left at activation/thin_pool_autoextend_threshold
 * (below 50 taken as 50; 0 at 100 or more, LVM2's default), as LVM2 sets it;
 * the features follow the pool segment (zero_new_blocks, discards) and the pool LV's
 * ERROR_WHEN_FULL flag.  Also: can a thin pool / thin LV be activated (its data and
 * metadata sub-LVs must be, and a thin LV's external origin).
 * Entry points: lvx_map_thin_pool_line(), lvx_map_thin_line(), lvx_map_lv_is_thin_kind(),
 * lvx_map_check_thin_activatable().
 */
#include "map/map.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "model/thin.h"

int lvx_map_thin_pool_line(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                           int64_t threshold, const char *meta_dev, const char *data_dev,
                           struct lvx_buf *out)
{
    if (seg->kind != LVX_SEG_THIN_POOL || !seg->chunk_size)
        return lvx_error(ctx, EINVAL, "%s/%s is not a thin pool with a chunk size.",
                         seg->lv->vg->name, seg->lv->name);
    const char *d = seg->discards ? seg->discards : "passdown";
    bool skip_zero = !seg->zero_new_blocks;
    bool ignore = !strcmp(d, "ignore") || (seg->chunk_size & (seg->chunk_size - 1));
    bool nopass = !ignore && !strcmp(d, "nopassdown");
    bool error_full = (seg->lv->flags & LVX_LVF_ERROR_WHEN_FULL) != 0;
    unsigned n = skip_zero + ignore + nopass + error_full;
    uint64_t len = seg->lv->le_count * (uint64_t)extent_size, lwm = 0;
    if (threshold < 50)
        threshold = 50;
    if (threshold < 100)
        lwm = len / seg->chunk_size * (uint64_t)(100 - threshold) / 100;
    lvx_buf_printf(out, "0 %" PRIu64 " thin-pool %s %s %u %" PRIu64 " %u%s%s%s%s\n",
                   len, meta_dev, data_dev, seg->chunk_size, lwm, n, skip_zero ? " skip_block_zeroing" : "",
                   ignore ? " ignore_discard" : "", nopass ? " no_discard_passdown" : "",
                   error_full ? " error_if_no_space" : "");
    return 0;
}

int lvx_map_thin_line(const struct lvx_lv *thin, uint32_t device_id, const char *pool_dev,
                      const char *ext_dev, struct lvx_buf *out)
{
    lvx_buf_printf(out, "0 %" PRIu64 " thin %s %u%s%s\n",
                   thin->le_count * (uint64_t)thin->vg->extent_size, pool_dev,
                   device_id, ext_dev ? " " : "", ext_dev ? ext_dev : "");
    return 0;
}

bool lvx_map_lv_is_thin_kind(const struct lvx_lv *lv)
{
    return lvx_lv_is_thin_pool(lv) || lvx_lv_is_thin(lv);
}

/* A pool's _tmeta/_tdata: a raid one (LVM2's raid1 data or metadata) as a raid LV. */
static int pool_sub_activatable(struct lvx_ctx *ctx, const struct lvx_lv *sub, bool partial)
{
    return lvx_map_lv_is_raid(sub) ? lvx_map_check_raid_activatable(ctx, sub, partial, false)
                                   : lvx_map_check_activatable(ctx, sub, partial);
}

int lvx_map_check_thin_activatable(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial)
{
    const struct lvx_lv *pool = lv;
    const struct lvx_seg *ts = lvx_lv_thin_seg(lv);
    if (ts) {
        if (lv->seg_count != 1 || !ts->pool_lv)
            return lvx_error(ctx, ENOTSUP, "Activation of thin LV %s/%s with %u segments is not "
                             "supported.", lv->vg->name, lv->name, lv->seg_count);
        pool = ts->pool_lv;
    }
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(pool);
    if (!ps || !ps->metadata_lv || !ps->data_lv)
        return lvx_error(ctx, EINVAL, "%s/%s is not a thin pool.", pool->vg->name, pool->name);
    int rc = pool_sub_activatable(ctx, ps->metadata_lv, partial);
    if (rc == 0 && ts && ts->external_lv)
        rc = lvx_map_check_activatable(ctx, ts->external_lv, partial);
    if (rc == 0)
        rc = pool_sub_activatable(ctx, ps->data_lv, partial);
    return rc;
}

bool lvx_map_thin_pool_on_raid(const struct lvx_lv *lv)
{
    const struct lvx_seg *ts = lvx_lv_thin_seg(lv);
    const struct lvx_seg *ps = lvx_lv_thin_pool_seg(ts && ts->pool_lv ? ts->pool_lv : lv);
    return ps && ((ps->metadata_lv && lvx_map_lv_is_raid(ps->metadata_lv)) ||
                  (ps->data_lv && lvx_map_lv_is_raid(ps->data_lv)));
}

int lvx_map_refuse_thin_on_raid(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    if (!lvx_map_thin_pool_on_raid(lv))
        return 0;
    const struct lvx_seg *ts = lvx_lv_thin_seg(lv);
    const struct lvx_lv *pool = ts && ts->pool_lv ? ts->pool_lv : lv;
    return lvx_error(ctx, ENOTSUP, "Thin pool %s/%s with raid data or metadata cannot be served "
                     "by the user-space backend.", pool->vg->name, pool->name);
}
