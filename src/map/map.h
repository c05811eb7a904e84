/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/map.h - where an LV's sectors live (lvm2-format.md §13) and the device-mapper
 * table of an LV (§15).
 *
 * Each segment kind has a target (struct lvx_map_target, dm-style): `check`
 * validates the segment like a dm constructor would, `map` is pure arithmetic from
 * an offset inside the segment to a PV sector, `table` renders the target's dm
 * arguments, `io_hints` gives the I/O sizes a filesystem should align to.
 * Targets: linear (striped with one stripe), striped, error, zero; every other
 * segment kind is refused with -ENOTSUP naming its type.
 *
 * Entry points: lvx_map_lv_sector(), lvx_map_dm_table(), lvx_map_io_hints(); for
 * serving, lvx_map_prepare() and lvx_map_prepared_lookup() (map/prepared.c).
 */
#ifndef LVX_MAP_MAP_H
#define LVX_MAP_MAP_H

#include <stdint.h>

#include "model/model.h"
#include "util/buf.h"
#include "util/ctx.h"
#include "util/pool.h"

enum lvx_map_kind {
    LVX_MAP_PV,      /* data on pv at pv_sector */
    LVX_MAP_ZERO,    /* reads return zeros, writes are dropped (zero target) */
    LVX_MAP_ERROR,   /* every I/O fails (error target) */
};

/* Where a run of LV sectors lives. */
struct lvx_map_loc {
    enum lvx_map_kind kind;
    const struct lvx_pv *pv;   /* LVX_MAP_PV only */
    uint64_t pv_sector;        /* absolute: pe_start + pe * extent_size + offset */
    uint64_t len;              /* sectors from the asked sector up to the next chunk or
                                  segment boundary (all contiguous on pv) */
};

/* Sizes a filesystem should align to, bytes (0 = no hint). */
struct lvx_io_hints {
    uint64_t io_min;           /* striped: chunk */
    uint64_t io_opt;           /* striped: chunk x stripes */
};

struct lvx_map_target {
    const char *name;          /* dm target name */
    /* 0, or -EINVAL/-ENOTSUP with a message naming the LV and segment */
    int (*check)(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size);
    /* pure: sector `offset` from the start of a checked segment -> location */
    void (*map)(const struct lvx_seg *seg, uint32_t extent_size, uint64_t offset,
                struct lvx_map_loc *out);
    /* the arguments after "<start> <len> <name>" (leading space included) */
    int (*table)(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                 struct lvx_buf *out);
    void (*io_hints)(const struct lvx_seg *seg, struct lvx_io_hints *out);
};

/* The target of a segment, or NULL with -ENOTSUP recorded ("segment type "thin" of
 * LV vg/lv is not supported by the mapper"). */
const struct lvx_map_target *lvx_map_target_of(struct lvx_ctx *ctx, const struct lvx_seg *seg);

/* Map one LV sector.  -EINVAL beyond the end of the LV or on a malformed segment,
 * -ENOTSUP for an unsupported segment type. */
int lvx_map_lv_sector(struct lvx_ctx *ctx, const struct lvx_lv *lv, uint64_t lv_sector,
                      struct lvx_map_loc *out);

/* Can lv be activated (map/activatable.c)?  Its segments of mapped kinds over PVs, no
 * area on a missing PV unless partial.  0, or -EINVAL/-ENOTSUP/-ENODEV with LVM2's
 * message ("Refusing activation of partial LV vg/lv. ..."). */
int lvx_map_check_activatable(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial);
/* -ENOTSUP with a one-line message when lv is a snapshot (COW LV) or the origin of
 * snapshots (the user-space datapath has no exception store yet), else 0. */
int lvx_map_refuse_snapshots(struct lvx_ctx *ctx, const struct lvx_lv *lv);
/* Does lv have an area on a missing PV (a RAID LV: through its sub-LVs, as LVM2's
 * PARTIAL_LV)? */
bool lvx_map_lv_partial(const struct lvx_lv *lv);
/* A PV whose device is missing (flagged MISSING in the metadata, or not found). */
bool lvx_map_pv_missing(const struct lvx_pv *pv);

/* An LV prepared for serving (map/prepared.c): checked once, looked up by arithmetic. */
struct lvx_map_prepared;
/* One area of a prepared run: its PV (NULL: served as the error target) and the PV
 * sector where the area starts. */
struct lvx_map_area {
    const struct lvx_pv *pv;
    uint64_t first_sector;
};
enum {
    LVX_MAP_MISSING_IS_ERROR = 1,   /* areas on missing PVs map to error (partial mode) */
};
/* Check every segment of lv once and compile it into runs, allocated in pool (which
 * must outlive the result and keep lv's PVs).  0, or -EINVAL/-ENOTSUP with the
 * message of the segment's check (an area on a missing PV is refused later, when the
 * table or the device is needed, unless flags map it to error). */
int lvx_map_prepare(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_lv *lv,
                    unsigned flags, struct lvx_map_prepared **out);
/* Where lv_sector lives (same result as lvx_map_lv_sector), or -ERANGE past the end.
 * Pure: no checks, no allocation, safe from any thread. */
int lvx_map_prepared_lookup(const struct lvx_map_prepared *m, uint64_t lv_sector,
                            struct lvx_map_loc *out);
/* The LV's size in sectors. */
uint64_t lvx_map_prepared_sectors(const struct lvx_map_prepared *m);

/* Append the LV's dm table to out, one line per segment ending with '\n':
 *   "<start> <len> linear <maj>:<min> <offset>"
 *   "<start> <len> striped <k> <chunk> <maj>:<min> <offset> ..."
 * Devices are pv->ondisk.dev_major:dev_minor, or pv->ondisk.dev_name when that is
 * 0:0 (image files).  -ENODEV for a missing PV or one without a device. */
int lvx_map_dm_table(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_buf *out);

/* I/O hints of the LV: the largest io_min and the least common multiple of io_opt
 * over its segments. */
int lvx_map_io_hints(struct lvx_ctx *ctx, const struct lvx_lv *lv, struct lvx_io_hints *out);

/* "maj:min", or the device path for 0:0; -ENODEV when neither is known. */
int lvx_map_device(struct lvx_ctx *ctx, const struct lvx_pv *pv, struct lvx_buf *out);

/* RAID LVs (map/raid.c): a single raid segment over rimage/rmeta sub-LVs, each its own
 * dm device.  `dev` appends the "maj:min" of a sub-LV's active device (or fails). */
typedef int (*lvx_map_subdev_fn)(struct lvx_ctx *ctx, void *arg, const struct lvx_lv *sub,
                                 struct lvx_buf *out);
/* Append the raid line of seg (ending with '\n'); nosync: the table of a new LV
 * created with --nosync.  0, -ENOTSUP / -EINVAL, or dev's error. */
int lvx_map_raid_table(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                       bool nosync, lvx_map_subdev_fn dev, void *arg, struct lvx_buf *out);
/* lv is one raid segment (what lvx activates as RAID)? */
bool lvx_map_lv_is_raid(const struct lvx_lv *lv);
/* Its type is known and every sub-LV is activatable (lvx_map_check_activatable);
 * images on missing PVs are allowed (the backend maps them over error devices) when
 * partial, or when degraded and the LV keeps its data without them (LVM2's refusals
 * otherwise). */
int lvx_map_check_raid_activatable(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial,
                                   bool degraded);
/* Does image i of a raid segment have a sub-LV on a missing PV? */
bool lvx_map_raid_image_missing(const struct lvx_seg *seg, uint32_t i);
/* Is image i of a raid segment an error image (its rimage or rmeta all error segments:
 * what vgreduce --removemissing --force leaves, LVM2's lv_is_virtual sub-LV)? */
bool lvx_map_raid_image_error(const struct lvx_seg *seg, uint32_t i);
/* LVM2's raid_is_available: enough image sub-LVs without missing PVs to serve lv. */
bool lvx_map_raid_available(const struct lvx_lv *lv);

/* Old-style mirror LVs (map/mirror.c): one "mirror" segment (not a pvmove) over
 * mimage sub-LVs and an optional mlog sub-LV, each its own dm device.  The mirror line
 * of seg (ending with '\n'); nosync: the table of a new LV created with --nosync. */
int lvx_map_mirror_table(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                         bool nosync, lvx_map_subdev_fn dev, void *arg, struct lvx_buf *out);
/* lv is one mirror segment over sub-LVs (what lvx activates as a mirror)? */
bool lvx_map_lv_is_mirror(const struct lvx_lv *lv);
/* LVM2's CONVERTING mirror: lv's first image is its temporary resync layer
 * (NAME_mimagetmp_N, the old mirror with its log, that lvconvert -m +N of a disk-log
 * mirror puts under a new top mirror of it and the new images): that layer, or NULL. */
const struct lvx_lv *lvx_map_mirror_sync_layer(const struct lvx_lv *lv);
/* Every image and the log are activatable (lvx_map_check_activatable). */
int lvx_map_check_mirror_activatable(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial);

/* Thin pools and thin LVs (map/thin.c).  The thin-pool line of a pool segment over the
 * devices of its metadata and data sub-LVs ("maj:min"), its low water mark from
 * threshold (activation/thin_pool_autoextend_threshold), and the thin line of a thin LV
 * over its pool's -tpool device; each ends with '\n'. */
int lvx_map_thin_pool_line(struct lvx_ctx *ctx, const struct lvx_seg *seg, uint32_t extent_size,
                           int64_t threshold, const char *meta_dev, const char *data_dev,
                           struct lvx_buf *out);
/* ext_dev: the external origin's device (its -real layer), NULL without one; device_id:
 * the pool's thin device mapped (lvx_thin_table_device_id(), or the LV's own when the
 * merge of a merging origin must wait) */
int lvx_map_thin_line(const struct lvx_lv *thin, uint32_t device_id, const char *pool_dev,
                      const char *ext_dev, struct lvx_buf *out);
/* lv is a thin pool or a thin LV? */
bool lvx_map_lv_is_thin_kind(const struct lvx_lv *lv);
/* The pool's sub-LVs are activatable (lvx_map_check_activatable), a thin LV has one
 * thin segment (and its external origin, if any, is activatable). */
int lvx_map_check_thin_activatable(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool partial);
/* The pool of lv (a thin pool or thin LV) has a raid _tdata or _tmeta (LVM2's raid1
 * pool data/metadata): the dm backend serves it, the daemon does not (its pool files
 * are map/lv_file.c's linear/striped LVs); lvx_map_refuse_thin_on_raid() is its one
 * line (-ENOTSUP), 0 for other pools. */
bool lvx_map_thin_pool_on_raid(const struct lvx_lv *lv);
int lvx_map_refuse_thin_on_raid(struct lvx_ctx *ctx, const struct lvx_lv *lv);

/* The targets (map/linear.c, map/striped.c, map/fill.c). */
extern const struct lvx_map_target lvx_map_linear;
extern const struct lvx_map_target lvx_map_striped;
extern const struct lvx_map_target lvx_map_error;
extern const struct lvx_map_target lvx_map_zero;

/* Shared by linear and striped: a striped segment's areas are PVs, counts agree. */
int lvx_map_check_pv_areas(struct lvx_ctx *ctx, const struct lvx_seg *seg);
/* Absolute first sector of area j of a segment. */
uint64_t lvx_map_area_sector(const struct lvx_seg *seg, uint32_t j, uint32_t extent_size);

#endif
