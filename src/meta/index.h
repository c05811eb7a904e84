/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/index.h - the persistent device index: which device holds which PV of which VG,
 * so that a command about one VG reads only that VG's devices.
 *
 * File: $LVX_RUN_DIR/index (default /run/lvx/index; "index-<hash>" when LVM_SYSTEM_DIR
 * is set, one per configuration), text, one line per labelled device:
 *     lvx-index 1
 *     devices <hash of the filtered system device list: path, major:minor, KiB>
 *     pv <major>:<minor> <PV UUID> <VG UUID or -> <VG name or ->
 * It is rewritten (atomically, only when its content changes) after every assembly of
 * a scan of all devices, and never trusted beyond these checks:
 *   1. the system device list (/proc/partitions through the lvm.conf filters: device
 *      numbers, names, sizes) hashes to the recorded value - a device attached,
 *      detached, moved to another number or resized makes the index stale;
 *   2. every device it gives for the VGs is read (label, metadata areas) and must carry
 *      a label with the recorded PV UUID - a PV wiped or replaced makes it stale;
 *   3. after assembly (lvx_scan_assemble) every named VG must be found, whole (each PV
 *      its metadata lists was found: a PV added behind lvx's back, e.g. by LVM2's
 *      vgextend, is not in the index), and nothing may have been warned about.
 * Any failed check: the command reads every device instead, and that rebuilds the index.
 * LVX_INDEX=0 in the environment switches the index off.
 */
#ifndef LVX_META_INDEX_H
#define LVX_META_INDEX_H

#include <stdint.h>

#include "meta/scan.h"

/* A scan of the devices the valid index gives for opts->vg_names (origin narrowed), or
 * -ESTALE when the index cannot be used (missing, stale, VG not in it); other negative
 * errnos as lvx_scan(). */
int lvx_index_scan(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts, struct lvx_scan **out);

/* The system device list the index keeps under list key `key` (lvx_scan_list_key_hash()
 * taken before any listing), in `pool`, when no devices file is in use: 0, or -ESTALE
 * (list it). */
int lvx_index_listed_devices(struct lvx_ctx *ctx, struct lvx_pool *pool, uint64_t key,
                             struct lvx_devlist *out);

/* Check 3 above: every named VG found, with every PV its metadata lists present. */
bool lvx_index_vgs_whole(const struct lvx_vgset *set, const char *const *names, unsigned count);

/* Rewrite the index from a full system scan and its assembly (origin full_system); errors
 * are ignored (the index is only an accelerator). */
void lvx_index_update(struct lvx_ctx *ctx, const struct lvx_scan *scan,
                      const struct lvx_vgset *set);

/* The same after a commit changed `vg`'s PVs (vgcreate, vgextend, ...): `vg` replaces
 * the set's VG of its UUID (or is added), so that the next command about it can use
 * the index at once.  Does nothing unless the scan read every device. */
void lvx_index_update_vg(struct lvx_ctx *ctx, const struct lvx_scan *scan,
                         const struct lvx_vgset *set, const struct lvx_vg *vg);

/* FNV-1a hash of a system device list (path, device number, size in KiB). */
uint64_t lvx_index_hash_devices(const struct lvx_devlist *devs);

/* The index file of this configuration (static buffer). */
const char *lvx_index_path(void);

#endif
