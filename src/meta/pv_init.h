/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/pv_init.h - small PV-level operations of the pv* commands that touch the
 * label and mda headers of a single device outside a VG commit:
 *   - the label of a new PV: layout for its device, then the label (pvcreate,
 *     the implicit pvcreate of vgcreate/vgextend);
 *   - switching the metadata areas of an orphan PV to ignored / in use (pvchange);
 *   - the metadata-area-related facts a command needs about a scanned PV.
 * Writing goes through meta/commit.c (lvx_pv_write_new, lvx_pv_write_label) and the
 * I/O seam.
 */
#ifndef LVX_META_PV_INIT_H
#define LVX_META_PV_INIT_H

#include <stdbool.h>
#include <stdint.h>

#include "format/label.h"
#include "format/pv_layout.h"
#include "meta/scan.h"

/* Fill a label for an orphan PV: one data area at layout->pe_start, the layout's
 * metadata areas and bootloader area, extension version 2, flags 0. */
void lvx_pv_label_from_layout(struct lvx_label *label, const struct lvx_pv_layout *layout,
                              const char raw_uuid[LVX_UUID_LEN + 1], uint64_t device_size,
                              unsigned sector);

/* The label of a new PV on dev: req (with dev_size set by the caller) completed with
 * the device's topology, LVM2's layout computed (format/pv_layout.c), a new UUID unless
 * raw_uuid is given, the label at sector.  0, or -EINVAL with the layout's message. */
int lvx_pv_plan_label(struct lvx_ctx *ctx, struct lvx_pv_layout_req req, struct lvx_dev *dev,
                      const char *raw_uuid, unsigned sector, struct lvx_label *out);

/* Rewrite the headers of an orphan PV's valid metadata areas with slot 0's
 * RAW_LOCN_IGNORED set (ignored) or cleared; the device must be open read-write. */
int lvx_pv_set_orphan_mdas_ignored(struct lvx_ctx *ctx, struct lvx_scan_pv *spv, bool ignored);

/* Name of the VG whose metadata a scanned PV carries (first area with text), or NULL. */
const char *lvx_pv_scanned_vg_name(const struct lvx_scan_pv *spv);

/* A PV belongs to a VG when one of its areas holds VG text, or when its label has
 * PV_EXT_USED (a PV without metadata areas of its own). */
bool lvx_pv_scanned_in_vg(const struct lvx_scan_pv *spv);

#endif
