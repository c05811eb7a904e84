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
    const char *meta_lv;        /* VG/LV when meta_sectors is that LV's (lvconvert --poolmetadata) */
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
 * in the update u (VG locked and read), in pool (NULL: origin's); an origin that is
 * not a thin LV of pool becomes the new thin LV's external origin (it must be
 * read-only and inactive, as LVM2 wants).  0 or an exit code (printed). */
int lvx_lvcreate_thin_snapshot(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                               struct lvx_lv *pool, struct lvx_lv *origin, const char *name);

/* -n [VG/]NAME of lvcreate into *name (NULL without -n), its VG checked against *vg
 * (set when NULL) and the name against LVM2's rules.  0 or an exit code (printed). */
int lvx_lvcreate_name_arg(struct lvx_cmd_env *env, const char **vg, const char **name);
/* LVM2's pool_supports_external_origin: lv's size a multiple of pool's chunk, unless
 * the thin target takes any size (it does unless activation is off, where LVM2 cannot
 * ask the kernel, or global/thin_disabled_features lists external_origin_extend).
 * 0 or an exit code (printed). */
int lvx_thin_external_fits(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                           const struct lvx_lv *pool, const struct lvx_lv *lv);
/* LVM2's THIN_FEATURE_EXTERNAL_ORIGIN_EXTEND: a thin LV may be larger than its external
 * origin (not with activation off, nor when global/thin_disabled_features lists
 * external_origin_extend). */
bool lvx_thin_external_extend_ok(struct lvx_cmd_env *env, const struct lvx_actcmd *act);
/* The first free lvolN name of vg (also free with suffix appended). */
const char *lvx_thin_free_lv_name(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                  const char *suffix);
/* LVM2's generate_lv_name(vg, "lvol%d"): one more than the highest N of the names
 * that start with lvolN (lvol0_pmspare counts as 0), the VG's historical LVs' too. */
const char *lvx_thin_next_lv_name(struct lvx_cmd_env *env, const struct lvx_vg *vg);
/* 0 when act's backend sends pool messages, else lvx's refusal (what: "thin LV"...)
 * printed and an exit code. */
int lvx_thin_need_messages(const struct lvx_actcmd *act, const struct lvx_vg *vg,
                           const char *what);
/* A new thin LV name of le extents in pool (origin: lvx_vg_make_thin's), committed and
 * create_thin / create_snap sent through act's backend; a failed message takes the LV
 * out again.  A pool not made by this command (pool_made false) is first looked at as
 * LVM2 does (its transaction id, its threshold).  *out the new LV.  0 or an exit code
 * (printed). */
int lvx_lvcreate_thin_lv(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                         const struct lvx_actcmd *act, struct lvx_lv *pool, bool pool_made,
                         const char *name, uint64_t le, struct lvx_lv *origin,
                         struct lvx_lv **out);

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

/* LVM2's handle_pool_metadata_spare over a whole VG (vgmerge, vgsplit): u's VG's spare
 * made (with the over-provisioning warnings LVM2's lvcreate of it prints) or grown to
 * its largest pool metadata, dropped when no pool is left; !wanted: left as it is,
 * with LVM2's warning when pools are there.  0 or an exit code (printed). */
int lvx_thin_vg_spare(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool wanted);

/* LVM2's over-provisioning warnings (pool_check_overprovisioning, with lvm.conf
 * activation/thin_pool_autoextend_threshold and _percent) after pool has grown users
 * or shrunk. */
void lvx_thin_overprovisioning(struct lvx_cmd_env *env, const struct lvx_lv *pool);
/* The same for all the thin pools of vg (pool NULL: after an LV that is none of theirs
 * took space, as LVM2 checks after every lvcreate). */
void lvx_thin_overprovisioning_vg(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                  const struct lvx_lv *pool);

#endif
