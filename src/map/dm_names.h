/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/dm_names.h - the device-mapper names and UUIDs LVM2 gives LVs
 * (lvm2-format.md §15), pure string functions:
 *   name  "<vg>-<lv>[-<layer>]", every '-' inside the VG and LV names doubled
 *         ("vg-a" + "lv-b" -> "vg--a-lv--b");
 *   uuid  "LVM-<vg uuid, 32 chars><lv uuid, 32 chars>[-<layer>]".
 * VG and LV names only use [A-Za-z0-9+_.-] (model/names.c), so no other
 * character needs device-mapper's \xNN mangling.
 *
 * Entry points: lvx_dm_lv_name(), lvx_dm_lv_uuid(), lvx_dm_split_name().
 */
#ifndef LVX_MAP_DM_NAMES_H
#define LVX_MAP_DM_NAMES_H

#include <stdbool.h>

#include "util/buf.h"
#include "util/pool.h"

#define LVX_DM_NAME_MAX 127   /* DM_NAME_LEN - 1 */
#define LVX_DM_UUID_MAX 128   /* DM_UUID_LEN - 1 */
#define LVX_DM_UUID_PREFIX "LVM-"

/* Append the DM name of vg/lv (layer NULL for the LV itself) to out.
 * -ENAMETOOLONG when it would not fit a DM name (nothing appended), else 0. */
int lvx_dm_lv_name(struct lvx_buf *out, const char *vg, const char *lv, const char *layer);

/* Append the DM UUID from raw (32-character, undashed or dashed) VG and LV UUIDs.
 * -EINVAL when a UUID is not 32 characters once dashes are removed. */
int lvx_dm_lv_uuid(struct lvx_buf *out, const char *vg_uuid, const char *lv_uuid,
                   const char *layer);

/* Split a DM name made by lvx_dm_lv_name() back into VG, LV and layer (NULL when
 * none); strings in pool.  false when the name is not of that form. */
bool lvx_dm_split_name(struct lvx_pool *pool, const char *name, const char **vg,
                       const char **lv, const char **layer);

#endif
