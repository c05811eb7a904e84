/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/pv_new.h - many devices turned into orphan PVs at once (pvcreate DEV...): the
 * writes of every device go out as a few batches through the I/O seam's queue
 * (dev/multi.h), one batch per step, in LVM2's order (its pvcreate_each_device and
 * _text_pv_write: label_remove, metadata area headers, label):
 *   1. the sectors among 0-3 that hold a label now are zeroed (only devices that were
 *      PVs): durable;
 *   2. every device's metadata area headers (4 KiB each: the empty header and zeros):
 *      durable (FUA writes, no separate flush);
 *   3. every device's sectors 0-3: zeros (or the kept head, -Z n) with the new label
 *      (LVM2 zeroes them, then writes the label sector): written, not flushed, as LVM2
 *      flushes nothing (a plain O_DIRECT write: on the device, seen by every reader).
 * A step begins only when the one before it has ended, so a crash leaves each device
 * either without a label (what it was, minus old labels and wiped signatures, maybe
 * with new area headers no label points at) or a complete PV: no label ever lands
 * before its area headers are durable.  A device whose write fails gets no later
 * step; the others go on.
 *
 * Entry points: lvx_pv_write_new_many(), lvx_pv_wipe_labels_many().
 */
#ifndef LVX_META_PV_NEW_H
#define LVX_META_PV_NEW_H

#include <stdbool.h>
#include <stdint.h>

#include "dev/dev.h"
#include "format/label.h"
#include "util/ctx.h"

/* One device of lvx_pv_write_new_many(). */
struct lvx_pv_new {
    struct lvx_dev *dev;            /* open read-write (lvx_dev_open_write_direct) */
    const struct lvx_label *label;  /* the new PV's label (lvx_pv_plan_label) */
    const uint8_t *head;            /* the device's sectors 0-3 as they are now */
    bool keep_head;                 /* -Z n: sectors 0-3 keep `head` (label-like sectors
                                     * zeroed) around the label; else zeros */
    int result;                     /* set: 0 or -errno */
    char errmsg[sizeof(((struct lvx_ctx *)0)->errmsg)];   /* set when result < 0 */
};

/* Write every device of the list as a new orphan PV (steps above); slot 0 of each area
 * header flagged ignored when mda_ignored; step 3 durable too when durable_labels (a
 * VG's commit follows: vgcreate/vgextend's implicit pvcreate, whose FUA commit writes
 * would not carry a label left in a device's cache to stable storage).  Each entry's result is set; returns 0 when
 * every device was written, else the first failure's -errno (ctx holds no message: each
 * failing entry has its own). */
int lvx_pv_write_new_many(struct lvx_ctx *ctx, struct lvx_pv_new *pvs, unsigned count,
                          bool mda_ignored, bool durable_labels);

/* pvremove: every sector among 0-3 of each device that looks like a label (LVM2's
 * label_remove) zeroed, all of them as one batch of durable writes; the devices must be
 * open read-write (lvx_dev_open_write_direct).  results[i] and errmsgs[i] are set per
 * device; returns 0 or the first failure's -errno (no message in ctx). */
int lvx_pv_wipe_labels_many(struct lvx_ctx *ctx, struct lvx_dev **devs, unsigned count,
                            int *results, char (*errmsgs)[sizeof(((struct lvx_ctx *)0)->errmsg)]);

#endif
