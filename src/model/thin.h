/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/thin.h - thin pools and thin LVs in the model (model/thin.c): LVM2's pool
 * parameter rules (chunk size, metadata size, the metadata spare), the pool's sub-LVs
 * (<pool>_tdata, <pool>_tmeta, lvol0_pmspare), thin LVs and thin snapshots with their
 * device and transaction ids, and the lookups the commands and activation need.
 */
#ifndef LVX_MODEL_THIN_H
#define LVX_MODEL_THIN_H

#include "model/model.h"

#define LVX_THIN_MIN_CHUNK 128u                 /* sectors: 64 KiB (DM_THIN_MIN_DATA_BLOCK_SIZE) */
#define LVX_THIN_MAX_CHUNK 2097152u             /* sectors: 1 GiB */
#define LVX_THIN_DEFAULT_CHUNK 128u             /* allocation/thin_pool_chunk_size_policy generic */
#define LVX_THIN_PERFORMANCE_CHUNK 1024u        /* ... performance */
#define LVX_THIN_MIN_META 4096u                 /* sectors: 2 MiB */
#define LVX_THIN_OPTIMAL_META 262144u           /* sectors: 128 MiB */
/* without crop_metadata: 255 bitmaps of 16320 blocks of 4 KiB, in sectors */
#define LVX_THIN_MAX_META (UINT64_C(255) * ((1u << 14) - 64) * 4 * 2)
/* with allocation/thin_pool_crop_metadata=1: libdevmapper's DM_THIN_MAX_METADATA_SIZE,
 * 255 x 16384 blocks of 4 KiB less 128 MiB, in sectors; also the most of a _tmeta a
 * pool with crop_metadata = 1 puts in the kernel's table */
#define LVX_THIN_MAX_META_CROP (UINT64_C(255) * (1u << 14) * 8 - 256 * 1024)
#define LVX_THIN_MAX_DEVICE_ID ((1u << 24) - 1)
#define LVX_THIN_SPARE_MAX_SECTORS (UINT64_C(32) * 1024 * 1024)   /* 16 GiB */

/* What LVM2's update_thin_pool_params decides for a new pool of data_extents. */
struct lvx_thin_params {
    uint32_t chunk;              /* sectors; in: 0 = choose */
    uint32_t start_chunk;        /* in: where that choice starts (0: the generic 64 KiB) */
    uint64_t meta_extents;       /* in: 0 = choose */
    bool crop_config;            /* in: allocation/thin_pool_crop_metadata */
    bool meta_lv;                /* in: meta_extents is a given LV's (never clamped) */
    bool meta_too_small;         /* meta_lv below the 2 MiB minimum (LVM2 refuses it) */
    uint64_t meta_max;           /* the max the metadata was held to (sectors, extents' multiple) */
    enum lvx_thin_crop crop;     /* the pool's crop_metadata */
    bool chunk_too_small;        /* chunk given, metadata would need more than the max */
    uint32_t suggested_chunk;    /* for that warning (sectors) */
    uint64_t meta_clamped_from;  /* != 0: a given metadata size was raised/lowered (sectors) */
    uint64_t max_data_sectors;   /* what the chunk size can address */
};
/* The pool's crop_metadata for metadata of meta_sectors under the setting crop_config
 * (LVM2's get_thin_pool_crop_metadata): none unless it exceeds LVX_THIN_MAX_META_CROP. */
enum lvx_thin_crop lvx_thin_crop_for(bool crop_config, uint64_t meta_sectors);
/* The largest metadata under the setting (sectors). */
uint64_t lvx_thin_max_meta(bool crop_config);
/* Set a pool's crop_metadata (and the segment type's "+CROP_METADATA" as LVM2 writes it:
 * with a new pool's "crop_metadata = 0", or whenever the key is read or changed). */
void lvx_thin_pool_set_crop(struct lvx_seg *pool_seg, enum lvx_thin_crop crop, bool flag);
/* Sectors of lv that go into its dm table: all of it, but a _tmeta of a pool with
 * crop_metadata = 1 only up to LVX_THIN_MAX_META_CROP (libdevmapper's cut). */
uint64_t lvx_lv_table_limit(const struct lvx_lv *lv);
/* Fill p for a pool of data_extents (extent_size sectors).  -EINVAL when the chunk
 * cannot address the data (p->max_data_sectors says how much it could). */
int lvx_thin_pool_params(uint64_t data_extents, uint32_t extent_size, struct lvx_thin_params *p);
/* The chunk size LVM2 estimates for data_extents with meta_sectors of metadata. */
uint32_t lvx_thin_estimate_chunk(uint64_t data_extents, uint32_t extent_size, uint64_t meta_sectors);

/* The pool segment of a thin pool LV (or NULL), the pool segment of a thin LV's pool. */
/* Queue a message in pool segment ps (create: a thin LV of the pool, else delete_id):
 * the first queued one moves the transaction_id on (LVM2's attach_pool_message). */
void lvx_thin_pool_queue(struct lvx_vg *vg, struct lvx_seg *ps, struct lvx_lv *create,
                         uint32_t delete_id);
/* The queued message i in the kernel's syntax ("create_thin 1", "create_snap 2 1",
 * "delete 3") into buf. */
void lvx_thin_pool_msg_text(const struct lvx_seg *ps, unsigned i, char *buf, size_t size);

struct lvx_seg *lvx_lv_thin_pool_seg(const struct lvx_lv *lv);
struct lvx_seg *lvx_lv_thin_seg(const struct lvx_lv *lv);
bool lvx_lv_is_thin_pool(const struct lvx_lv *lv);
bool lvx_lv_is_thin(const struct lvx_lv *lv);
/* A used thin pool (transaction_id != 0: a thin LV was made in it): LVM2 keeps its device
 * private, with no /dev/<vg>/<pool> link (dev_manager's _lv_has_mknode: only a new pool,
 * transaction_id 0, gets one). */
bool lvx_lv_thin_pool_private(const struct lvx_lv *lv);
/* Thin LVs of pool (up to max in out); the count. */
unsigned lvx_thin_pool_users(const struct lvx_lv *pool, struct lvx_lv **out, unsigned max);
/* The next free device id of a pool (LVM2: highest in use + 1); 0 when exhausted. */
uint32_t lvx_thin_free_device_id(const struct lvx_lv *pool);
/* The VG's pool metadata spare LV (lvol0_pmspare), or NULL. */
struct lvx_lv *lvx_vg_pmspare(const struct lvx_vg *vg);
/* Extents the spare should have: the largest pool metadata LV, capped at 16 GiB. */
uint64_t lvx_vg_pmspare_wanted(const struct lvx_vg *vg, uint64_t at_least);

/* pool (an LV with no segments yet, its creation data set) becomes a thin pool over
 * tdata and tmeta (which lose VISIBLE and are renamed <pool>_tdata / <pool>_tmeta). */
void lvx_vg_make_thin_pool(struct lvx_vg *vg, struct lvx_lv *pool, struct lvx_lv *tdata,
                           struct lvx_lv *tmeta, uint32_t chunk, const char *discards, bool zero);
/* thin (an LV with no segments) becomes a thin LV of pool with extents le; origin
 * (NULL or a thin LV of the same pool) makes it a thin snapshot (keeping origin's
 * external origin), any other origin its external origin (made read-only, as
 * LVM2's attach_thin_external_origin).  Takes the next
 * device id and the pool's transaction id (which moves on by one). */
void lvx_vg_make_thin(struct lvx_vg *vg, struct lvx_lv *thin, struct lvx_lv *pool, uint64_t le,
                      struct lvx_lv *origin);

/* Is lv the external origin of a thin LV of its VG? */
bool lvx_lv_is_external_origin(const struct lvx_lv *lv);

/* The thin snapshot whose merge into origin waits for origin's next activation
 * (its segment has merging set), or NULL. */
struct lvx_seg *lvx_thin_merging_into(const struct lvx_lv *origin);
/* The pool's thin device a thin LV's table maps: its own device id, or for the origin
 * of a waiting merge its snapshot's (LVM2's activation merges by that swap alone; the
 * metadata follows when the merge is finished, cmd/thin_cmd.c). */
uint32_t lvx_thin_table_device_id(const struct lvx_lv *thin);
/* origin leaves the VG: its thin snapshots become plain thin LVs (LVM2's
 * detach_pool_lv: their origin and any waiting merge are dropped). */
void lvx_thin_detach_snapshots(struct lvx_lv *origin);
/* LVM2's thin_merge_finish in the model: snap (a thin snapshot of origin) takes
 * origin's name, UUID and attributes (status, flags, allocation policy, profile,
 * read-ahead, major/minor, creation time and host, tags); origin gets snap's name and
 * UUID and is what the caller removes then (its thin device deleted from the pool). */
void lvx_thin_merge_swap(struct lvx_lv *origin, struct lvx_lv *snap);

#endif
