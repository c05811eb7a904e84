/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcreate_raid.h - the RAID part of lvcreate (cmd/lvcreate_raid.c): options
 * (--type raid*, -m, -i, -I, -R, --nosync, --min/--maxrecoveryrate) with LVM2's
 * defaults and messages, and building a new RAID LV: rimage/rmeta sub-LVs placed by
 * the extent allocator as LVM2 places them, the raid segment written as LVM2 2.03.16
 * writes it.
 */
#ifndef LVX_CMD_LVCREATE_RAID_H
#define LVX_CMD_LVCREATE_RAID_H

#include "cmd/lvcmd.h"
#include "model/raid.h"

struct lvx_raid_opts {
    const struct lvx_raid_type *type;   /* NULL: not a RAID LV */
    uint32_t stripes;          /* data stripes (raid1: 1; raid10: stripes of mirror pairs) */
    uint32_t mirrors;          /* copies: raid1 images, raid10 2, else 1 */
    uint32_t stripe_size;      /* sectors, 0 for raid1 */
    uint32_t region_size;      /* sectors, 0 for raid0 */
    bool nosync;
    uint32_t min_rate, max_rate;   /* KiB/s per device, 0 = not set */
    bool core_log;             /* --type mirror: --mirrorlog core / --corelog (no log LV) */
    bool mirrored_log;         /* --type mirror --mirrorlog mirrored (cmd/mirror_mlog.c) */
};

/* RAID options of the command line: *out->type NULL when the LV is not RAID (no raid
 * --type, no -m).  0 or an exit code (message printed). */
int lvx_lvcreate_raid_args(struct lvx_cmd_env *env, struct lvx_raid_opts *out);

/* Allocate and add the sub-LVs and the raid segment of lv (new, empty) for `extents`
 * logical extents (with `approx`, a percentage size: fewer when that many do not fit,
 * as LVM2).  policy/pvs as for the allocator.  0 or negative errno (ctx). */
int lvx_lvcreate_raid_build(struct lvx_cmd_env *env, struct lvx_vg *vg,
                            struct lvx_free_maps *maps, struct lvx_raid_opts *ro,
                            struct lvx_lv *lv, uint64_t extents, enum lvx_alloc policy,
                            const struct lvx_alloc_pv *pvs, unsigned pv_count, bool approx);

/* lvm.conf allocation/raid_stripe_all_devices = 1 and no -i: a striped RAID LV's
 * stripes are its devs PVs (those named, else the VG's), less the parity devices, or
 * halved for raid10 (LVM2 2.03's old behaviour).  0 or an exit code (message printed). */
int lvx_raid_stripe_all_devices(struct lvx_cmd_env *env, struct lvx_raid_opts *o, unsigned devs);

/* LVM2's default region size (sectors): lvm.conf activation/raid_region_size (KiB;
 * mirror_region_size where it is 0), rounded down to a power of 2, 2 MiB when not a
 * multiple of the page size. */
uint32_t lvx_raid_default_region(struct lvx_cmd_env *env);

/* The region size reduced to the largest power of 2 not above the LV's size (sectors),
 * with LVM2's notice "Using reduced mirror region size of ...". */
void lvx_raid_reduce_region(struct lvx_cmd_env *env, struct lvx_raid_opts *o, uint64_t sectors);

/* -R/--regionsize checked as LVM2 checks it (exit code after the message), or the
 * default region size; *given says whether it was on the command line. */
int lvx_raid_region_arg(struct lvx_cmd_env *env, uint32_t *out, bool *given);

/* A new sub-LV "<top>_<kind>_<i>" of top appended to vg: READ/WRITE, hidden, top's
 * allocation policy and creation time (and tags when `tags`). */
struct lvx_lv *lvx_raid_new_sub(struct lvx_vg *vg, const struct lvx_lv *top, const char *kind,
                                uint32_t i, bool tags);

/* The one segment of a new RAID or mirror LV lv over the image sub-LVs img[0..images):
 * type, kind, extents, region size from o, le_count set, NOTSYNCED with o->nosync. */
struct lvx_seg *lvx_raid_new_seg(struct lvx_vg *vg, struct lvx_lv *lv, const char *type,
                                 enum lvx_seg_kind kind, uint64_t extents, uint32_t images,
                                 struct lvx_lv *const *img, const struct lvx_raid_opts *o);

/* Allocate `count` images as LVM2 does for RAID: one area per image on distinct PVs,
 * holding meta_ext rmeta extents (appended to meta[i]; none when meta is NULL) followed
 * by image_ext rimage extents (appended to img[i]).  0 or negative errno (ctx). */
int lvx_raid_alloc_images(struct lvx_cmd_env *env, struct lvx_free_maps *maps,
                          const char *lv_name, uint32_t count, uint64_t image_ext,
                          uint32_t meta_ext, enum lvx_alloc policy, const struct lvx_alloc_pv *pvs,
                          unsigned pv_count, struct lvx_lv **img, struct lvx_lv **meta);

/* Zero the first 4 KiB of every rmeta (always, as LVM2 wipes them for the kernel to
 * write a new superblock) and, with zero_data, of every rimage (the LV's first
 * 4 KiB: a whole stripe row of zeros has zero parity).  0 or negative errno. */
int lvx_lvcreate_raid_zero(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                           const struct lvx_lv *lv, bool zero_data);

/* ---- --type mirror (cmd/lvcreate_mirror.c) ---- */

/* The options of an old-style mirror (--type mirror): out->type becomes the mirror
 * type (lvx_raid_opts_mirror() true).  0 or an exit code (message printed). */
int lvx_lvcreate_mirror_args(struct lvx_cmd_env *env, struct lvx_raid_opts *out);
/* -m without --type (and without -i > 1) makes a mirror: lvm.conf's
 * global/mirror_segtype_default is "mirror" (LVM2's default is raid1). */
bool lvx_raid_default_is_mirror(struct lvx_cmd_env *env);
/* Is o a --type mirror request? */
bool lvx_raid_opts_mirror(const struct lvx_raid_opts *o);
/* Allocate and add the mimage sub-LVs, the mlog (unless core_log) and the mirror
 * segment of lv (new, empty); approx (a percentage size): LVM2's approximate
 * allocation, the largest size up to `extents` whose images and log fit.  0 or
 * negative errno (ctx). */
int lvx_lvcreate_mirror_build(struct lvx_cmd_env *env, struct lvx_vg *vg,
                              struct lvx_free_maps *maps, struct lvx_raid_opts *o,
                              struct lvx_lv *lv, uint64_t extents, enum lvx_alloc policy,
                              const struct lvx_alloc_pv *pvs, unsigned pv_count, bool approx);
/* `areas` parallel areas of area_ext extents each, on distinct PVs (a striped request of
 * stripe_size; 0: the areas become linear sub-LVs) into *res.  0 or negative errno. */
int lvx_raid_alloc_parallel(struct lvx_cmd_env *env, struct lvx_free_maps *maps,
                            const char *lv_name, uint32_t areas, uint64_t area_ext,
                            uint32_t stripe_size, enum lvx_alloc policy,
                            const struct lvx_alloc_pv *pvs, unsigned pv_count,
                            struct lvx_alloc_result *res);
/* Allocate `count` mirror images of image_ext extents each: with stripes > 1 (a striped
 * mirror) count * stripes parallel areas at once, image i taking areas i * stripes
 * onwards as one striped segment (LVM2's _create_mimage_lvs), else as
 * lvx_raid_alloc_images does.  image_ext is a multiple of stripes.  0 or negative
 * errno (ctx). */
int lvx_mirror_alloc_images(struct lvx_cmd_env *env, struct lvx_free_maps *maps,
                            const char *lv_name, uint32_t count, uint32_t stripes,
                            uint32_t stripe_size, uint64_t image_ext, enum lvx_alloc policy,
                            const struct lvx_alloc_pv *pvs, unsigned pv_count,
                            struct lvx_lv **img);
/* The log's size: a 1 KiB header area and one bit per region, whole extents. */
uint32_t lvx_mirror_log_extents(uint64_t lv_sectors, uint32_t region_size, uint32_t extent_size);
/* Place the disk log `log` (ext extents) of the mirror top_name with images img[0..count):
 * on a candidate PV without an image when one can take it, else on the last image's PV,
 * else anywhere allowed (with allocation/mirror_logs_require_separate_pvs only the
 * first).  with_images (the extents of each image allocated with it, LVM2 allocating
 * both at once, as lvconvert of a linear LV): the last candidate with an area holding
 * that many, at the start of the smallest such area there; 0 (a log added after the
 * images, as lvcreate and --mirrorlog disk add it): the last candidate with room for
 * the log, at the start of its smallest area holding it (--alloc anywhere: where the
 * allocator puts it).  0 or negative errno. */
int lvx_mirror_alloc_log(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                         const char *top_name, struct lvx_lv *log, uint32_t ext,
                         struct lvx_lv *const *img, uint32_t count, uint64_t with_images,
                         enum lvx_alloc policy, const struct lvx_alloc_pv *pvs, unsigned pv_count);
/* An lvm.conf boolean (default 0, --config applied). */
bool lvx_mirror_conf_on(struct lvx_cmd_env *env, const char *path);
/* What LVM2's allocator counts for a log area on candidate c: with_images when an area
 * there holds that many, else its largest free area; 0 when none holds ext. */
uint64_t lvx_mirror_log_offer(const struct lvx_free_maps *maps, const struct lvx_alloc_pv *c,
                              uint64_t with_images, uint32_t ext);
/* ext extents of the log (or log image) `log` on one of the candidates c[0..n) where
 * with_images (else ext) extents fit, the last such candidate, at the start of the
 * smallest area there holding them; *chosen that PV.  0 or negative errno (ctx). */
int lvx_mirror_alloc_log_among(struct lvx_cmd_env *env, struct lvx_free_maps *maps,
                               struct lvx_lv *log, uint32_t ext, uint64_t with_images,
                               enum lvx_alloc policy, const struct lvx_alloc_pv *c, unsigned n,
                               const struct lvx_pv **chosen);
/* Zero the first 4 KiB of the log (the kernel then starts a new one: a full resync
 * unless nosync) and, with zero_data, of every image.  0 or negative errno. */
int lvx_lvcreate_mirror_zero(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                             const struct lvx_lv *lv, bool zero_data);

#endif
