/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvresize_policy.h - lvextend --use-policies: the growth lvm.conf's autoextend
 * policy asks for (cmd/lvresize_policy.c).
 */
#ifndef LVX_CMD_LVRESIZE_POLICY_H
#define LVX_CMD_LVRESIZE_POLICY_H

#include "activate/activate.h"
#include "cmd/lvcmd.h"

#include <stdint.h>

/* For a thin pool or COW snapshot lv: 0 with *data_pct the percent of its size (a
 * pool's data) to add and *meta_pct that of a pool's metadata LV (both 0: nothing to
 * do, nothing printed but the policy's warning); else the exit code after LVM2's
 * message (not such an LV, percent 0, not active). */
int lvx_lvresize_policy(struct lvx_cmd_env *env, const struct lvx_lv *lv, uint32_t *data_pct,
                        uint32_t *meta_pct);

/* Does the active thin pool (state ks) take new thin LVs by
 * activation/thin_pool_autoextend_threshold, as LVM2's pool_below_threshold decides?
 * LVM2's warnings are printed (a failed, full, erroring or read-only pool; metadata at
 * its minimal threshold). */
bool lvx_thin_pool_below_threshold(struct lvx_cmd_env *env, const struct lvx_lv *pool,
                                   const struct lvx_lv_kstate *ks);

#endif
