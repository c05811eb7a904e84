/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/snapshot_cmd.h - COW snapshot checks and conversions the commands share:
 * whether an LV may be a snapshot origin (cmd/snapshot_cmd.c: lvcreate -s and
 * lvconvert -s), and lvconvert's two snapshot forms (cmd/lvconvert_snapshot.c):
 * --splitsnapshot (a COW snapshot becomes a plain LV) and -s/--type snapshot ORIGIN
 * COW (a plain LV becomes a COW snapshot of ORIGIN).  Each int function returns 0 or
 * an exit code after printing.
 */
#ifndef LVX_CMD_SNAPSHOT_CMD_H
#define LVX_CMD_SNAPSHOT_CMD_H

#include "cmd/actcmd.h"
#include "cmd/commands.h"

/* org can be the origin of a COW snapshot (LVM2's validate_snapshot_origin, for the
 * origin kinds lvx serves: linear, striped, thin, mirror, RAID; act is not consulted:
 * every activation backend serves them). */
int lvx_snapshot_origin_check(struct lvx_cmd_env *env, const struct lvx_lv *org,
                              const struct lvx_actcmd *act);

/* A COW of extents can hold LVM2's minimum of 3 chunks of chunk sectors ("Snapshot
 * volume cannot be smaller than ..." otherwise). */
int lvx_snapshot_cow_size_check(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                uint64_t extents, uint32_t chunk);

/* The command line asks for one of lvconvert's snapshot forms. */
bool lvx_lvconvert_is_snapshot(const struct lvx_cmd_env *env);
/* lvconvert --splitsnapshot VG/COW | -s/--type snapshot VG/ORIGIN VG/COW. */
int lvx_lvconvert_snapshot(struct lvx_cmd_env *env);

#endif
