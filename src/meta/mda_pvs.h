/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/mda_pvs.h - which PVs a scanned metadata copy lists, without importing it:
 * how the reading side (meta/assemble.c) tells two VGs that share a VG UUID apart
 * (a cloned disk renamed and given new PV UUIDs: each copy lists only its own PVs)
 * and how the writing side (meta/commit.c) tells an outdated PV of the VG it commits
 * from a PV of such a twin.
 */
#ifndef LVX_META_MDA_PVS_H
#define LVX_META_MDA_PVS_H

#include <stdbool.h>

#include "meta/scan.h"

/* Does copy m list a PV (physical_volumes/<pv>/id) for which has(arg, raw UUID) is
 * true?  A copy without a parsed text counts as listing one (the cautious answer:
 * the same VG). */
bool lvx_mda_lists_pv(const struct lvx_scan_mda *m,
                      bool (*has)(const void *arg, const char *raw_uuid), const void *arg);

#endif
