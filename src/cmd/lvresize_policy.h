/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvresize_policy.h - lvextend --use-policies: the growth lvm.conf's autoextend
 * policy asks for (cmd/lvresize_policy.c).
 */
#ifndef LVX_CMD_LVRESIZE_POLICY_H
#define LVX_CMD_LVRESIZE_POLICY_H

#include "cmd/lvcmd.h"

#include <stdint.h>

/* For a thin pool or COW snapshot lv: 0 with *data_pct the percent of its size (a
 * pool's data) to add and *meta_pct that of a pool's metadata LV (both 0: nothing to
 * do, nothing printed but the policy's warning); else the exit code after LVM2's
 * message (not such an LV, percent 0, not active). */
int lvx_lvresize_policy(struct lvx_cmd_env *env, const struct lvx_lv *lv, uint32_t *data_pct,
                        uint32_t *meta_pct);

#endif
