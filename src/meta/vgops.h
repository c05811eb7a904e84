/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/vgops.h - VG membership operations shared by the VG commands: the extent
 * size rule (lvm2-format.md §12.2), turning an orphan PV into a VG member with its
 * pe_count, filling a PV's on-disk state from a scan (vgcfgrestore), and removing
 * the LVs that depend on missing PVs (vgreduce --removemissing --force).
 */
#ifndef LVX_META_VGOPS_H
#define LVX_META_VGOPS_H

#include <stdint.h>
#include <stdbool.h>

#include "meta/scan.h"
#include "model/model.h"

#define LVX_DEFAULT_EXTENT_SIZE 8192u   /* sectors: 4 MiB */

/* §12.2: non-zero, at most UINT32_MAX sectors, a power of two or a multiple of
 * 128 KiB.  0 or -EINVAL with LVM2's message. */
int lvx_vgops_check_extent_size(struct lvx_ctx *ctx, uint64_t sectors);

/* pe_count = floor((dev_size - pe_start - mda1_size) / extent_size) (§12.2), where
 * the data area ends at the first metadata area placed after pe_start; 0 when the
 * PV is too small; clamped to UINT32_MAX. */
uint32_t lvx_vgops_pe_count(const struct lvx_pv *pv, uint32_t extent_size);

/* Append a copy of an orphan PV (from a vgset) to vg: identity, sizes and on-disk
 * state copied (the PV's size is its label's), status ALLOCATABLE, pe_count for
 * vg->extent_size; LVM2's warning when the device is smaller than that size
 * (metadata/check_pv_device_sizes).  Refuses (-EINVAL) when vg->max_pv would be
 * exceeded. */
int lvx_vgops_add_orphan(struct lvx_ctx *ctx, struct lvx_vg *vg, const struct lvx_pv *orphan,
                         struct lvx_pv **out);


/* True if an LV segment area of the VG lies on a PV without a device. */
bool lvx_vgops_has_partial_lvs(const struct lvx_vg *vg);

/* Remove every LV with an area on a missing PV, the LVs using those, and the hidden
 * sub-LVs they used.  Names of the removed visible LVs are appended to `removed`
 * (strings in vg->pool).  Returns the number of LVs removed. */
unsigned lvx_vgops_remove_partial_lvs(struct lvx_vg *vg, struct lvx_strlist *removed);

/* Does the scanned PV carry metadata text of the VG with this raw UUID? */
bool lvx_vgops_spv_holds_vg(const struct lvx_scan_pv *spv, const char *vg_uuid);

#endif
