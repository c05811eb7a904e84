/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config/profile.h - the check LVM2 makes of a profile before applying it
 * (<system dir>/profile/NAME.profile): every item must be a setting or section LVM2
 * knows, that a profile may set, and of the profile's kind: a command profile
 * (--commandprofile, --profile of most commands) holds the global, log and report
 * settings a profile may set; a metadata profile (--metadataprofile, --profile of
 * lvcreate/lvconvert/vgcreate/lvchange/vgchange, the profile attached to a VG or LV)
 * the allocation and activation ones.  The facts come from LVM2's settings table
 * (config/lvm2_settings.c); values are not checked.
 */
#ifndef LVX_CONFIG_PROFILE_H
#define LVX_CONFIG_PROFILE_H

#include <stdbool.h>

#include "format/cfg.h"

enum lvx_profile_kind {
    LVX_PROFILE_COMMAND,
    LVX_PROFILE_METADATA,
};

/* Whether the setting at path ("allocation/thin_pool_zero") is one a metadata profile
 * sets (else a command profile sets it, when a profile may set it at all). */
bool lvx_profile_metadata_setting(const char *path);

/* Called with LVM2's line for each item the profile may not hold ("Configuration
 * option \"log/prefix\" is not customizable by a profile."). */
typedef void (*lvx_profile_say_fn)(void *arg, const char *line);

/* Whether the parsed profile (root: the parser's root section) is valid for kind;
 * each bad item is passed to say (when not NULL), in the profile's order. */
bool lvx_profile_check(const struct lvx_cfg_node *root, enum lvx_profile_kind kind,
                       lvx_profile_say_fn say, void *arg);

#endif
