/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lockd_sanlock.h - the sanlock leases of a shared VG as lvmlockd lays them out
 * (docs/lvm2-format.md §10.7) on its lvmlock LV, written through sanlock's client
 * library and the running sanlock daemon: the lockspace "lvm_<vg>", the global lock,
 * the VG lock and the free LV lease slots.
 */
#ifndef LVX_META_LOCKD_SANLOCK_H
#define LVX_META_LOCKD_SANLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "util/ctx.h"

/* The lvmlock LV's place: a device path and the byte offset of the LV's start on it
 * (lvx reaches the LV through its PV: no device-mapper needed), its size in bytes, and
 * the device's sector size (512: leases 1 MiB apart, 4096: 8 MiB). */
struct lvx_sanlock_area {
    const char *path;
    uint64_t offset;
    uint64_t size;
    unsigned sector_size;
};

/* Size of a new lvmlock LV for that sector size (LVM2: 256 MiB / 1 GiB). */
uint64_t lvx_sanlock_lv_bytes(unsigned sector_size);

/* Write the lockspace and the resources of a new VG (vgcreate --shared): GLLK when
 * global is set (else "_GLLK_disabled"), VGLK, "#unused" in every LV slot to the end of
 * the area.  Needs the sanlock daemon; -errno with the error set. */
int lvx_sanlock_init_vg(struct lvx_ctx *ctx, const char *vgname,
                        const struct lvx_sanlock_area *a, bool global);

#endif
