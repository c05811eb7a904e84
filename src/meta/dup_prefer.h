/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/dup_prefer.h - which of several devices carrying the same PV UUID a command
 * uses (the others are LVM2's "unused duplicates"), in LVM2 2.03.16's order: the
 * device an active LV uses (sysfs holders with an "LVM-" DM UUID), the device whose
 * size is the PV's dev_size in the VG metadata, the device named as the metadata's
 * device hint, a device-mapper device (multipath, LUKS, or any dm device over the
 * disk), else the device seen first.  The first device is compared with each other
 * one in device order, the preferred one carried on; the reason of the last
 * comparison is LVM2's "because ..." words.  Not done: LVM2's previous preference and
 * device id (devices file), mounted file systems, md/drbd subsystems.
 *
 * Entry points: lvx_dup_facts_of(), lvx_dup_prefer_second().
 */
#ifndef LVX_META_DUP_PREFER_H
#define LVX_META_DUP_PREFER_H

#include <stdbool.h>

#include "dev/lv_dev.h"
#include "meta/scan.h"

struct lvx_dup_facts {
    bool used_by_lv;      /* an active LV maps onto it */
    bool size_correct;    /* its size is the dev_size the VG metadata records */
    bool name_matches;    /* its name is the device hint the VG metadata records */
    bool is_dm;           /* a device-mapper device */
};

/* The facts of scan->pvs[p]'s device (probe: device-mapper's major). */
void lvx_dup_facts_of(const struct lvx_scan *scan, unsigned p,
                      const struct lvx_lvdev_probe *probe, struct lvx_dup_facts *out);
/* LVM2's comparison of the device preferred so far (a) with the next one (b): true to
 * prefer b; *reason gets LVM2's words ("device is in dm subsystem", "device was seen
 * first", ...). */
bool lvx_dup_prefer_second(const struct lvx_dup_facts *a, const struct lvx_dup_facts *b,
                           const char **reason);

#endif
