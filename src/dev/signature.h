/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/signature.h - foreign signatures on a device (filesystems, RAID members,
 * partition tables) found with libblkid, and wiping them, as pvcreate does before
 * it writes a label.  Probing reads the device through libblkid; wiping zeroes the
 * magic bytes blkid reports through the I/O seam (lvx_dev_write).
 *
 * Entry points: lvx_dev_find_signatures(), lvx_dev_find_signatures_fd(),
 * lvx_dev_find_signatures_at(),
 * lvx_dev_wipe_signature(),
 * lvx_dev_has_legacy_label().
 */
#ifndef LVX_DEV_SIGNATURE_H
#define LVX_DEV_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dev/dev.h"
#include "util/ctx.h"
#include "util/pool.h"

struct lvx_dev_sig {
    const char *type;        /* "xfs", "ext4", "dos", "gpt", ... */
    uint64_t offset;         /* absolute byte offset of the magic */
    size_t len;              /* bytes of the magic */
    bool partition_table;
};

/* All signatures blkid finds on dev->path (superblocks with bad checksums and partition
 * tables included), except LVM2's own label (LVM2_member).  Array in pool; 0 or a
 * negative errno with a message when the device cannot be probed. */
int lvx_dev_find_signatures(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_dev *dev,
                            struct lvx_dev_sig **out, unsigned *count);

/* The same through fd, a buffered open of dev the caller made (pvcreate's exclusive
 * open: probe, head and held check with one open); the probe opens nothing itself. */
int lvx_dev_find_signatures_fd(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_dev *dev,
                               int fd, struct lvx_dev_sig **out, unsigned *count);

/* The same for the size bytes of dev from offset (a range holding an LV's start);
 * offsets of the result are the device's.  The range's cached pages are dropped
 * first. */
int lvx_dev_find_signatures_at(struct lvx_ctx *ctx, struct lvx_pool *pool,
                               const struct lvx_dev *dev, uint64_t offset, uint64_t size,
                               struct lvx_dev_sig **out, unsigned *count);

/* The first 4 KiB of a device carry an LVM1 PV header ("HM", version 1 or 2) or a GFS
 * pool label (magic 0x011670, version 4.1.x): LVM2's signature filter leaves such a device
 * out (pvcreate: "device has a signature"). */
bool lvx_dev_has_legacy_label(const uint8_t *head, size_t len);

/* Zero the magic bytes of one signature; dev must be open read-write. */
int lvx_dev_wipe_signature(struct lvx_ctx *ctx, struct lvx_dev *dev, const struct lvx_dev_sig *sig);

#endif
