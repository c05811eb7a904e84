/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcreate_thin.h - the thin part of lvcreate (cmd/lvcreate_thin.c): thin pools
 * (`-T -L SIZE VG/POOL`, `--type thin-pool`, `--thinpool POOL -L`), thin LVs (`-V SIZE
 * -T VG/POOL`, `--type thin`), both at once, and thin snapshots (`-s VG/THIN` without a
 * size), with LVM2's defaults, messages and metadata.
 */
#ifndef LVX_CMD_LVCREATE_THIN_H
#define LVX_CMD_LVCREATE_THIN_H

#include "cmd/actcmd.h"
#include "cmd/lvcmd.h"
#include "model/alloc.h"
#include "model/thin.h"

/* A pool's settings from the command line and lvm.conf (-c, --poolmetadatasize,
 * --discards, -Z, --errorwhenfull, --poolmetadataspare). */
struct lvx_thin_pool_args {
    uint32_t chunk;             /* 0: LVM2's choice */
    uint32_t start_chunk;       /* where that choice starts (chunk size policy) */
    bool chunk_from_config;     /* chunk is allocation/thin_pool_chunk_size */
    uint64_t meta_sectors;      /* 0: LVM2's choice */
    const char *discards;
    bool error_when_full;       /* --errorwhenfull, else activation/error_when_full */
    bool zero;
    bool spare;
};

/* Does the command line ask for a thin pool or a thin LV (-T, --thinpool, --type
 * thin|thin-pool)? */
bool lvx_lvcreate_is_thin(struct lvx_cmd_env *env);
/* Is lvm.conf's global/sparse_segtype_default "snapshot" (LVM2's default: "thin")?  Then
 * -V without --type makes a sparse snapshot (cmd/lvcreate.c), not a thin LV. */
bool lvx_lvcreate_sparse_default_snapshot(struct lvx_cmd_env *env);
/* lvcreate of a thin pool and/or thin LV, or (-T|--thin|--type thin VG/THIN without a
 * size, -V or --thinpool) of a thin snapshot.  0 or an exit code (printed). */
int lvx_lvcreate_thin(struct lvx_cmd_env *env);
/* lvcreate -s of a thin LV without a size: a thin snapshot named name (NULL: lvolN),
 * in the update u (VG locked and read).  0 or an exit code (printed). */
int lvx_lvcreate_thin_snapshot(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                               struct lvx_lv *origin, const char *name);

/* Parse the pool options (new_pool false: refuse those only a new pool takes).  0 or
 * an exit code (printed). */
int lvx_thin_pool_args(struct lvx_cmd_env *env, bool new_pool, struct lvx_thin_pool_args *out);
/* LVM2's update_thin_pool_params for a pool of data extents (extent size e): chunk and
 * metadata size in *p, with LVM2's notices and warnings.  0 or an exit code (printed). */
int lvx_thin_pool_plan(struct lvx_cmd_env *env, uint64_t data, uint32_t e,
                       const struct lvx_thin_pool_args *pa, struct lvx_thin_params *p);
/* The new metadata of pool VG/POOL could not be zeroed (lvx_lvcmd_zero_metadata):
 * LVM2's lines with the cause; the exit code. */
int lvx_thin_wipe_failed(struct lvx_cmd_env *env, const char *vg, const char *pool);
/* LVM2's handle_pool_metadata_spare: u's VG's lvol0_pmspare made (and zeroed, as new
 * pool metadata is: lvx_lvcmd_zero_metadata) or grown to the
 * largest pool metadata (at least meta_extents), or the warning when !wanted.  0 or an
 * exit code (printed). */
int lvx_thin_pmspare(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_free_maps *maps,
                     uint64_t meta_extents, bool wanted, enum lvx_alloc policy,
                     const struct lvx_alloc_pv *pvs, unsigned pv_count, uint64_t now);

/* LVM2's over-provisioning warnings (pool_check_overprovisioning, with lvm.conf
 * activation/thin_pool_autoextend_threshold and _percent) after pool has grown users
 * or shrunk. */
void lvx_thin_overprovisioning(struct lvx_cmd_env *env, const struct lvx_lv *pool);
/* The same for all the thin pools of vg (pool NULL: after an LV that is none of theirs
 * took space, as LVM2 checks after every lvcreate). */
void lvx_thin_overprovisioning_vg(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                  const struct lvx_lv *pool);

#endif
