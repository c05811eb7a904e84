/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvresize.c - `lvx pvresize [--setphysicalvolumesize SIZE] PV ...`: make PVs
 * use the current device size (or the size given).
 *
 * A PV of a VG gets pe_count = floor((size - pe_start) / extent_size) and dev_size in
 * the metadata (committed per PV, as LVM2, through meta/update), then device_size in its label.
 * Shrinking below allocated extents is refused.  An orphan PV only gets its label's
 * device_size rewritten; its second metadata area (at the end of the device) moves to
 * the new end, emptied, as LVM2 moves it.  A PV of a VG with a second metadata area is
 * resized only when the size does not change its place: moving mda1 of a PV in a VG
 * is not supported.
 */
#include "cmd/commands.h"
#include "cmd/pvcmd.h"
#include "cmd/toolkit.h"

#include <stdlib.h>
#include <string.h>

#include "meta/commit.h"
#include "meta/lock.h"
#include "meta/pv_init.h"
#include "meta/update.h"

/* The size to use for a PV on dev (bytes), after LVM2's warnings and confirmation;
 * 0 when refused (message printed). */
static uint64_t target_size(struct lvx_cmd_env *env, const char *name, const struct lvx_dev *dev,
                            uint64_t set_size)
{
    if (!set_size)
        return dev->size / 512 * 512;
    if (set_size > dev->size) {
        if (!lvx_pvcmd_confirm(env, "%s: Requested size %s exceeds real size %s. Proceed?", name,
                               lvx_cmd_size_str(env->pool, set_size / 512, 0, 0),
                               lvx_cmd_size_str(env->pool, dev->size / 512, 0, 0))) {
            lvx_cmd_errorf("Physical Volume %s not resized: the requested size exceeds the "
                           "device size (confirm with -y).", name);
            return 0;
        }
        lvx_warn(env->ctx, "WARNING: %s: Overriding real size %s. You could lose data.", name,
                 lvx_cmd_size_str(env->pool, dev->size / 512, 0, 0));
    } else if (set_size < dev->size &&
               !lvx_pvcmd_confirm(env, "%s: Requested size %s is less than real size %s. Proceed?",
                                  name, lvx_cmd_size_str(env->pool, set_size / 512, 0, 0),
                                  lvx_cmd_size_str(env->pool, dev->size / 512, 0, 0))) {
        lvx_cmd_errorf("Physical Volume %s not resized: the requested size is less than the "
                       "device size (confirm with -y).", name);
        return 0;
    }
    return set_size;
}

/* LVM2's notice that a size other than the device's is used (once the resize is decided). */
static void warn_pretending(struct lvx_cmd_env *env, const char *name, const struct lvx_dev *dev,
                            uint64_t size)
{
    if (size != dev->size / 512 * 512)
        lvx_warn(env->ctx, "WARNING: %s: Pretending size is %llu not %llu sectors.", name,
                 (unsigned long long)(size / 512), (unsigned long long)(dev->size / 512));
}

/* LVM2's first checks of a new size: the minimum PV size, then the data area start. */
static bool size_above_start(const char *name, const struct lvx_scan_pv *spv, uint64_t size)
{
    if (size < LVX_MIN_PV_SIZE) {
        lvx_cmd_errorf("Size must exceed minimum of %u sectors on PV %s.", LVX_MIN_PV_SIZE / 512, name);
        return false;
    }
    if (spv->label.data_count && size < spv->label.data[0].offset) {
        lvx_cmd_errorf("Size must exceed physical extent start of %llu sectors on PV %s.",
                       (unsigned long long)(spv->label.data[0].offset / 512), name);
        return false;
    }
    return true;
}

static bool size_fits_layout(const char *name, const struct lvx_scan_pv *spv, uint64_t size)
{
    if (!size_above_start(name, spv, size))
        return false;
    for (unsigned m = 0; m < spv->label.mda_count; m++)
        if (spv->label.mda[m].offset + spv->label.mda[m].size > size) {
            lvx_cmd_errorf("Cannot resize %s: its metadata area at offset %llu would lie past the "
                           "new end.", name, (unsigned long long)spv->label.mda[m].offset);
            return false;
        }
    return true;
}

/* Highest PE (exclusive) used by a segment area on pv. */
static uint64_t pv_alloc_end(const struct lvx_pv *pv)
{
    uint64_t end = 0;
    const struct lvx_vg *vg = pv->vg;
    for (unsigned l = 0; l < vg->lv_count; l++)
        for (unsigned s = 0; s < vg->lvs[l]->seg_count; s++) {
            const struct lvx_seg *seg = &vg->lvs[l]->segs[s];
            uint64_t len = lvx_seg_area_len(seg);
            for (unsigned a = 0; a < seg->area_count; a++)
                if (seg->areas[a].pv == pv && seg->areas[a].start + len > end)
                    end = seg->areas[a].start + len;
            for (unsigned a = 0; seg->meta_areas && a < seg->area_count; a++)
                if (seg->meta_areas[a].pv == pv && seg->meta_areas[a].start + 1 > end)
                    end = seg->meta_areas[a].start + 1;
        }
    return end;
}

/* New pe_count of a PV in a VG, or -1 when refused (message printed). */
static int64_t new_pe_count(const char *name, const struct lvx_pv *pv, const struct lvx_scan_pv *spv,
                            uint64_t size)
{
    uint64_t sectors = size / 512;
    uint64_t end = sectors;
    if (spv->label.mda_count == 2)
        end = spv->label.mda[1].offset / 512;
    uint32_t es = pv->vg->extent_size;
    uint64_t count = end > pv->pe_start && es ? (end - pv->pe_start) / es : 0;
    if (count == 0) {
        lvx_cmd_errorf("Size must leave space for at least one physical extent of %u sectors on PV %s.",
                       es, name);
        return -1;
    }
    if (count > UINT32_MAX) {
        lvx_cmd_errorf("Cannot resize %s: %llu extents exceed the maximum.", name,
                       (unsigned long long)count);
        return -1;
    }
    uint32_t used = lvx_pv_alloc_count(pv);
    if (count < used) {
        lvx_cmd_errorf("%s: cannot resize to %llu extents as %u are allocated.", name,
                       (unsigned long long)count, used);
        return -1;
    }
    if (count < pv_alloc_end(pv)) {
        lvx_cmd_errorf("%s: cannot resize to %llu extents as later ones are allocated.", name,
                       (unsigned long long)count);
        return -1;
    }
    return (int64_t)count;
}

/* A PV of a VG in memory: 1, or -1 after printing why not. */
static int resize_vg_pv(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *name,
                        struct lvx_pv *pv, void *arg)
{
    uint64_t set_size = *(const uint64_t *)arg;
    struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, pv->uuid);
    if (!spv) {
        lvx_cmd_errorf("Failed to find physical volume \"%s\".", name);
        return -1;
    }
    uint64_t size = target_size(env, name, spv->dev, set_size);
    if (!size || !size_fits_layout(name, spv, size))
        return -1;
    if (spv->label.mda_count == 2 && size != spv->label.device_size) {
        lvx_cmd_errorf("Cannot resize %s: moving its second metadata area is not supported by lvx.",
                       name);
        return -1;
    }
    int64_t count = new_pe_count(name, pv, spv, size);
    if (count < 0)
        return -1;
    warn_pretending(env, name, spv->dev, size);
    pv->pe_count = (uint32_t)count;
    pv->has_dev_size = true;
    pv->dev_size = size / 512;
    pv->ondisk.hdr_device_size = size;
    spv->label.device_size = size;
    return 1;
}

/* After the commit: the label carries the new device size. */
static int write_label(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *name,
                       struct lvx_pv *pv, void *arg)
{
    struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, pv->uuid);
    if (!spv || lvx_dev_open(env->ctx, spv->dev, true) < 0 || lvx_pv_write_label(env->ctx, spv) < 0) {
        lvx_cmd_fail(env);
        return -1;
    }
    return 1;
}

/* Where LVM2 puts the second metadata area of an orphan PV of the new size: its old
 * size at the end, cut down to what lies past the data area start. */
static bool second_area_place(const char *name, const struct lvx_scan_pv *spv, uint64_t size,
                              uint64_t *start, uint64_t *len)
{
    uint64_t limit = spv->label.data_count ? spv->label.data[0].offset : 0;
    uint64_t mda_size = spv->label.mda[1].size;
    if (limit >= size) {
        lvx_cmd_errorf("Not enough space available for metadata area with index 1 on PV %s.",
                       name);
        lvx_cmd_errorf("Failed to move metadata area with index 1 while resizing PV %s.", name);
        lvx_cmd_errorf("Format specific resize of PV %s failed.", name);
        return false;
    }
    if (mda_size > size || size - mda_size < limit)
        mda_size = size - limit;
    if (mda_size < LVX_MDA_HEADER_SIZE * 64) {          /* LVM2's MDA_SIZE_MIN */
        lvx_cmd_errorf("Metadata area size too small: %llu bytes. It must be at least %u bytes.",
                       (unsigned long long)mda_size, LVX_MDA_HEADER_SIZE * 64);
        lvx_cmd_errorf("Not enough space available for metadata area with index 1 on PV %s.",
                       name);
        lvx_cmd_errorf("Failed to move metadata area with index 1 while resizing PV %s.", name);
        lvx_cmd_errorf("Format specific resize of PV %s failed.", name);
        return false;
    }
    *start = size - mda_size;
    *len = mda_size;
    return true;
}

/* A fresh (empty) second metadata area at start, its ignored state kept. */
static int move_second_area(struct lvx_ctx *ctx, struct lvx_scan_pv *spv, uint64_t start,
                            uint64_t len)
{
    struct lvx_mda_header hdr = { .version = LVX_MDA_VERSION, .start = start, .size = len };
    if (spv->mda_count == 2 && spv->mda[1].ignored)
        hdr.slot[0].flags = LVX_RAW_LOCN_IGNORED;
    uint8_t *buf = lvx_xcalloc(1, 4096);
    lvx_mda_header_encode(&hdr, buf);
    int r = lvx_dev_write(ctx, spv->dev, buf, 4096, start);
    free(buf);
    if (r < 0)
        return r;
    spv->label.mda[1].offset = start;
    spv->label.mda[1].size = len;
    return lvx_dev_flush(ctx, spv->dev);
}

static bool resize_orphan(struct lvx_cmd_env *env, const char *name, struct lvx_scan_pv *spv,
                          const void *arg)
{
    uint64_t set_size = *(const uint64_t *)arg;
    if (!spv) {
        lvx_cmd_errorf("Failed to find physical volume \"%s\".", name);
        return false;
    }
    if (lvx_pv_scanned_in_vg(spv)) {
        lvx_cmd_errorf("Physical volume %s joined a volume group meanwhile: not resized.", name);
        return false;
    }
    uint64_t size = target_size(env, name, spv->dev, set_size);
    if (!size)
        return false;
    warn_pretending(env, name, spv->dev, size);
    if (!size_above_start(name, spv, size))
        return false;
    /* the second metadata area moves to the new end, as LVM2 does */
    uint64_t mda1_start = 0, mda1_size = 0;
    if (spv->label.mda_count == 2 && !second_area_place(name, spv, size, &mda1_start, &mda1_size))
        return false;
    if (spv->label.mda_count < 2 && !size_fits_layout(name, spv, size))
        return false;
    if (env->args->count[LVX_OPT_TEST])
        return true;
    if (lvx_dev_open(env->ctx, spv->dev, true) < 0 ||
        (mda1_size && move_second_area(env->ctx, spv, mda1_start, mda1_size) < 0)) {
        lvx_cmd_errorf("Failed to move metadata area with index 1 while resizing PV %s.", name);
        lvx_error_clear(env->ctx);
        return false;
    }
    spv->label.device_size = size;
    if (lvx_pv_write_label(env->ctx, spv) < 0) {
        lvx_cmd_errorf("Failed to write the label of %s: %s", name, env->ctx->errmsg);
        lvx_error_clear(env->ctx);
        return false;
    }
    return true;
}


int lvx_cmd_pvresize(struct lvx_cmd_env *env)
{
    struct lvx_pvcmd_count cnt = {0};
    uint64_t set_size = 0;

    if (env->args->argc == 0) {
        lvx_cmd_errorf("Please supply physical volume(s).");
        return LVX_EXIT_INVALID;
    }
    lvx_pvcmd_size_opt(env, LVX_OPT_SETPHYSICALVOLUMESIZE, &set_size);
    if (env->args->count[LVX_OPT_SETPHYSICALVOLUMESIZE] && set_size == 0) {
        lvx_cmd_errorf("Invalid argument for --setphysicalvolumesize: %s (must be positive)",
                       env->args->value[LVX_OPT_SETPHYSICALVOLUMESIZE]);
        return LVX_EXIT_INVALID;
    }
    struct lvx_tk_pv_ops ops = { .vg_pv = resize_vg_pv, .committed_pv = write_label,
                                 .orphan = resize_orphan, .arg = &set_size };
    int rc = lvx_process_each_pv(env, &ops, &cnt);
    if (rc)
        return rc;
    lvx_notice(env->ctx, "%u physical volume(s) resized or updated / %u physical volume(s) not resized",
               cnt.changed, cnt.unchanged);
    return cnt.failed ? LVX_EXIT_FAILED : LVX_EXIT_OK;
}
