/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/model.h - the in-memory volume group: VG, PV, LV, segment, area.
 *
 * A VG and everything hanging off it live in vg->pool.  Sizes follow LVM2: sectors
 * (512 B) for extent_size, pe_start, dev_size; extents for counts.  The model knows
 * no devices: what was read from a PV's label (device name, header sizes, metadata
 * areas) is copied into pv->ondisk by meta/ as plain data.
 *
 * Metadata lvx does not interpret is never lost: unknown keys of VG/PV/LV sections
 * are kept in `extra`, unknown compatible flag words in `flags_extra`, and every
 * segment that is not striped/linear keeps its parsed section in `raw`, which the
 * exporter writes back (renaming pvN references if PV numbering changed).  Segments
 * lvx creates itself (RAID, snapshot) carry typed fields only (raw NULL); the exporter
 * writes their sections from those fields.
 *
 * Entry points: model/vg.c (lookups, add/remove), model/derive.c (counts and
 * properties the reports need), model/uuid.c, model/names.c.
 */
#ifndef LVX_MODEL_MODEL_H
#define LVX_MODEL_MODEL_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/ctx.h"
#include "util/pool.h"

struct lvx_cfg_node;

#define LVX_UUID_LEN 32        /* raw characters */
#define LVX_UUID_DASHED_LEN 38 /* 6-4-4-4-4-4-6 */
#define LVX_NAME_MAX 127

struct lvx_strlist {
    unsigned n;
    const char **v;
};

/* allocation policies; INHERIT is the LV default, NORMAL the VG default */
enum lvx_alloc {
    LVX_ALLOC_INHERIT = 0,
    LVX_ALLOC_CONTIGUOUS,
    LVX_ALLOC_CLING,
    LVX_ALLOC_CLING_BY_TAGS,
    LVX_ALLOC_NORMAL,
    LVX_ALLOC_ANYWHERE,
};
const char *lvx_alloc_name(enum lvx_alloc a);              /* "inherit", "contiguous", ... */
int lvx_alloc_parse(const char *s, enum lvx_alloc *out);   /* 0 or -EINVAL */

/* VG status words (status array) */
enum {
    LVX_VG_EXPORTED   = 1u << 0,
    LVX_VG_RESIZEABLE = 1u << 1,
    LVX_VG_PVMOVE     = 1u << 2,
    LVX_VG_READ       = 1u << 3,
    LVX_VG_WRITE      = 1u << 4,
    LVX_VG_CLUSTERED  = 1u << 5,
    LVX_VG_SHARED     = 1u << 6,
};
/* VG flags words (flags array) */
enum {
    LVX_VGF_WRITE_LOCKED   = 1u << 0,
    LVX_VGF_NOAUTOACTIVATE = 1u << 1,
};
/* PV status words */
enum {
    LVX_PV_ALLOCATABLE = 1u << 0,
    LVX_PV_EXPORTED    = 1u << 1,
};
/* PV flags words */
enum {
    LVX_PVF_MISSING = 1u << 0,
};
/* LV status words */
enum {
    LVX_LV_READ        = 1u << 0,
    LVX_LV_WRITE       = 1u << 1,
    LVX_LV_FIXED_MINOR = 1u << 2,
    LVX_LV_VISIBLE     = 1u << 3,
    LVX_LV_PVMOVE      = 1u << 4,
    LVX_LV_LOCKED      = 1u << 5,
    LVX_LV_NOTSYNCED   = 1u << 6,
    LVX_LV_REBUILD     = 1u << 7,
    LVX_LV_WRITEMOSTLY = 1u << 8,
};
/* LV flags words */
enum {
    LVX_LVF_WRITE_LOCKED    = 1u << 0,
    LVX_LVF_ACTIVATION_SKIP = 1u << 1,
    LVX_LVF_NOAUTOACTIVATE  = 1u << 2,
    LVX_LVF_ERROR_WHEN_FULL = 1u << 3,
    LVX_LVF_CACHE_VOL       = 1u << 4,
};

/* One metadata area as found on the PV (filled by meta/ from the label and mda_header). */
struct lvx_pv_mda {
    uint64_t start;        /* absolute byte offset of the mda_header */
    uint64_t size;         /* bytes, header included */
    bool ignored;          /* RAW_LOCN_IGNORED in slot 0 */
    bool bad;              /* header or text failed validation */
    uint64_t text_size;    /* slot 0 size (bytes, NUL included), 0 when empty */
    uint32_t seqno;        /* seqno of the text it holds, 0 if none/unknown */
};

/* What the PV's label said, copied by meta/ (plain data, no device handles). */
struct lvx_pv_ondisk {
    bool present;              /* a device carrying this PV's label was found */
    bool no_label;             /* not a PV: a device without a label (pvs -a lists it) */
    const char *dev_name;      /* e.g. "/dev/loop3" or the image path */
    uint32_t dev_major, dev_minor; /* 0:0 for regular files */
    uint64_t dev_bytes;        /* current size of the device in bytes */
    unsigned label_sector;     /* 0..3 */
    uint64_t hdr_device_size;  /* pv_header device_size, bytes */
    uint64_t hdr_pe_start;     /* pv_header data area offset, bytes */
    uint32_t ext_version;
    uint32_t ext_flags;
    uint64_t ba_start, ba_size;    /* bytes; 0/0 if no bootloader area */
    unsigned mda_count;
    struct lvx_pv_mda mda[2];
};

struct lvx_vg;
struct lvx_lv;

struct lvx_pv {
    struct lvx_vg *vg;             /* NULL for an orphan PV */
    unsigned index;                /* position in vg->pvs: text name "pv<index>" */
    char uuid[LVX_UUID_LEN + 1];   /* raw form, no dashes */
    const char *device_hint;       /* text "device" (hint only), may be NULL */
    const char *device_id_type;    /* optional */
    const char *device_id;         /* optional */
    uint32_t status;               /* LVX_PV_* */
    uint32_t flags;                /* LVX_PVF_* */
    struct lvx_strlist flags_extra;/* unknown words of "flags", kept */
    struct lvx_strlist tags;
    bool has_dev_size;
    uint64_t dev_size;             /* sectors (text) */
    uint64_t pe_start;             /* sectors */
    uint32_t pe_count;
    bool has_ba;
    uint64_t ba_start, ba_size;    /* sectors (text) */
    struct lvx_cfg_node *extra;    /* unknown keys of the pv section (a detached SECTION), or NULL */
    bool missing_cleared;          /* read flagged MISSING, found again unused: the flag was
                                    * dropped by the read (vgextend --restoremissing) */
    struct lvx_pv_ondisk ondisk;
};

enum lvx_seg_kind {
    LVX_SEG_STRIPED,     /* linear is striped with one stripe */
    LVX_SEG_MIRROR,
    LVX_SEG_RAID,        /* raid0, raid0_meta, raid1, raid4, raid5*, raid6*, raid10* */
    LVX_SEG_THIN_POOL,
    LVX_SEG_THIN,
    LVX_SEG_SNAPSHOT,
    LVX_SEG_CACHE_POOL,
    LVX_SEG_CACHE,
    LVX_SEG_ERROR,
    LVX_SEG_ZERO,
    LVX_SEG_OTHER,       /* writecache, integrity, vdo, vdo-pool, free, unknown */
};

/* One area of a segment: a PV extent run or an LV extent run (exactly one of pv/lv). */
struct lvx_area {
    struct lvx_pv *pv;
    struct lvx_lv *lv;
    uint64_t start;      /* first PE (pv) or LE (lv) */
};

/* A thin pool message queued in the VG metadata (LVM2's "messageN" subsections of the
 * pool segment): recorded and committed before it reaches the pool's kernel metadata,
 * kept there while it could not be sent (sent at the pool's next update). */
struct lvx_thin_msg {
    struct lvx_lv *create;         /* "create = <thin LV>" (create_thin / create_snap) */
    uint32_t delete_id;            /* "delete = <device id>" when create is NULL */
};

/* A thin pool's "crop_metadata" key: absent, 0 (the full _tmeta in the table), 1 (cut). */
enum lvx_thin_crop { LVX_THIN_CROP_NONE = 0, LVX_THIN_CROP_NO, LVX_THIN_CROP_YES };

struct lvx_seg {
    struct lvx_lv *lv;
    uint64_t start_extent;     /* first LE of the LV covered */
    uint64_t extent_count;     /* LEs covered */
    const char *type;          /* as written, e.g. "striped", "thin-pool+CROP_METADATA" */
    const char *type_name;     /* type without "+FLAGS" */
    enum lvx_seg_kind kind;
    uint32_t stripe_count;     /* striped, raid0: stripes; raid: device_count; mirror: mirror_count */
    uint32_t stripe_size;      /* sectors, 0 if none */
    uint32_t region_size;      /* sectors, 0 if none */
    uint32_t chunk_size;       /* sectors (thin-pool, snapshot, cache-pool), 0 if none */
    uint32_t data_copies;      /* raid10; 0 when not written */
    uint32_t min_recovery_rate;    /* raid: KiB/s per device, 0 when not written */
    uint32_t max_recovery_rate;    /* raid: KiB/s per device, 0 when not written */
    uint32_t writebehind;          /* raid1: max outstanding writes to write-mostly images, 0 if none */
    bool has_data_offset;          /* raid: "data_offset" written */
    uint32_t data_offset;          /* raid: sectors */
    uint32_t reshape_count;        /* raid: reshape space in each image, extents ("reshape_count") */
    /* raid, never written to the metadata: what a reshape step passes to the kernel in
       the table line only, as LVM2 does ("delta_disks D", "data_offset O") */
    int32_t kernel_delta_disks;
    bool kernel_offset;            /* kernel_data_offset goes into the line */
    uint32_t kernel_data_offset;   /* sectors */
    /* raid10: no "raid10_copies" in the line (LVM2 2.03.16 leaves it out of every load
       of the command that allocates a raid10 LV's reshape space) */
    bool kernel_no_copies;
    uint32_t extents_moved;        /* mirror of a pvmove LV: extents copied ("extents_moved") */
    uint32_t area_count;
    struct lvx_area *areas;        /* stripes / mirrors / raid images / raid0_lvs / pool data */
    struct lvx_area *meta_areas;   /* raid: the rmeta LVs (area_count of them) or NULL */
    struct lvx_lv *log_lv;         /* mirror_log */
    struct lvx_lv *pool_lv;        /* thin: thin_pool; cache: cache_pool */
    struct lvx_lv *origin_lv;      /* thin/snapshot/cache origin */
    struct lvx_lv *cow_lv;         /* snapshot cow_store (or merging_store) */
    bool merging;                  /* snapshot: written as merging_store (LVM2's MERGING);
                                      thin: "merge" = its origin (a thin snapshot merge
                                      waiting for the origin's next activation) */
    struct lvx_lv *metadata_lv;    /* thin-pool / cache-pool metadata LV */
    struct lvx_lv *data_lv;        /* thin-pool "pool" / cache-pool data LV */
    struct lvx_lv *external_lv;    /* thin: external_origin, or NULL */
    uint64_t transaction_id;       /* thin-pool / thin: "transaction_id" (has_thin_ids) */
    uint32_t device_id;            /* thin: "device_id" */
    bool has_thin_ids;             /* thin-pool / thin: transaction_id (and device_id) read or set */
    bool zero_new_blocks;          /* thin-pool: "zero_new_blocks = 1" */
    enum lvx_thin_crop crop_metadata;  /* thin-pool: "crop_metadata" (none: absent) */
    const char *discards;          /* thin-pool: "passdown", "nopassdown", "ignore"; NULL if absent */
    unsigned msg_count;            /* thin-pool: queued messages (the transaction_id already
                                      counts them: one more than the pool's kernel metadata) */
    struct lvx_thin_msg *msgs;
    struct lvx_strlist tags;
    /* OTHER (writecache, integrity, vdo...): the LVs its section names (string values,
       in arrays too), in order, so they count as used by it (model/derive.c) */
    unsigned ref_count;
    struct lvx_lv **refs;
    const char **ref_keys;         /* the key naming each */
    struct lvx_cfg_node *raw;      /* kind != STRIPED read from metadata: the parsed section, exported
                                      as is; NULL for RAID/SNAPSHOT segments lvx made (the exporter
                                      writes them from the typed fields) */
    struct lvx_cfg_node *extra;    /* STRIPED: unknown keys of the section (detached SECTION) or NULL */
};

struct lvx_lv {
    struct lvx_vg *vg;
    unsigned index;                /* position in vg->lvs */
    const char *name;
    char uuid[LVX_UUID_LEN + 1];
    uint32_t status;               /* LVX_LV_* */
    uint32_t flags;                /* LVX_LVF_* */
    struct lvx_strlist flags_extra;
    struct lvx_strlist tags;
    bool has_creation;
    uint64_t creation_time;
    const char *creation_host;
    const char *lock_args;
    const char *profile;
    enum lvx_alloc alloc;          /* INHERIT unless set */
    bool has_read_ahead;
    int64_t read_ahead;            /* sectors; -1 = none; absent/0 = auto */
    bool has_major, has_minor;
    int64_t major, minor;
    uint64_t le_count;             /* sum of segment extent counts */
    unsigned seg_count;
    struct lvx_seg *segs;          /* array, ordered by start_extent */
    struct lvx_cfg_node *extra;    /* unknown keys of the LV section, or NULL */
};

struct lvx_vg {
    struct lvx_pool *pool;
    const char *name;
    char uuid[LVX_UUID_LEN + 1];
    uint32_t seqno;
    const char *format;            /* "lvm2" (NULL if the key was absent) */
    uint32_t status;               /* LVX_VG_* */
    uint32_t flags;                /* LVX_VGF_* */
    bool has_flags;                /* "flags" key present */
    struct lvx_strlist flags_extra;
    struct lvx_strlist tags;
    const char *system_id;
    const char *lock_type;
    const char *lock_args;
    const char *profile;
    uint32_t extent_size;          /* sectors */
    uint32_t max_lv, max_pv;
    enum lvx_alloc alloc;          /* NORMAL unless set */
    bool has_metadata_copies;
    uint32_t metadata_copies;      /* 0 = unmanaged */
    unsigned pv_count;
    struct lvx_pv **pvs;
    unsigned lv_count;             /* all LVs, hidden included (see lvx_vg_visible_lv_count) */
    struct lvx_lv **lvs;
    struct lvx_cfg_node *historical; /* historical_logical_volumes section, kept raw, or NULL */
    struct lvx_strlist historical_names; /* the names of its historical LVs (import) */
    struct lvx_cfg_node *extra;      /* unknown keys of the VG section, or NULL */

    /* header block of the text this VG was imported from (NULL/0 if none) */
    const char *description;
    const char *creation_host;
    uint64_t creation_time;

    /* A view listing only some of a VG's PVs or LVs (the objects a report names): the
     * whole VG, whose figures (sizes, counts) the view reports; NULL for a real VG. */
    const struct lvx_vg *whole;
};

/* --- uuid.c ------------------------------------------------------------- */
/* Validate and strip dashes: text may be dashed or raw; out gets 32 chars + NUL. */
int lvx_uuid_parse(const char *text, char out[LVX_UUID_LEN + 1]);
/* A raw (undashed) UUID: exactly LVX_UUID_LEN letters of the UUID alphabet. */
bool lvx_uuid_raw_valid(const char *raw);
/* 6-4-4-4-4-4-6 dashed form; out must hold 39 bytes. */
void lvx_uuid_format(const char *raw, char out[LVX_UUID_DASHED_LEN + 1]);
/* 32 random characters from [0-9a-zA-Z] (getrandom). */
int lvx_uuid_generate(char out[LVX_UUID_LEN + 1]);

/* --- names.c ------------------------------------------------------------ */
/* VG/LV name syntax (1..127 of [A-Za-z0-9+_.-], not starting with '-', not "." or ".."). */
bool lvx_name_valid(const char *name);
/* LV name reserved for LVM2's internal use (snapshot*, pvmove*, *_mlog, *_rimage, ...). */
bool lvx_lv_name_reserved(const char *name);
/* Does an LV of that name fit a VG of that name (LVM2 writes no VG where
 * len(vg) + len(lv) + 3 >= 128: "Internal error: LV name ... is not supported")? */
bool lvx_lv_full_name_fits(const char *vg_name, const char *lv_name);
bool lvx_tag_valid(const char *tag);

/* --- vg.c --------------------------------------------------------------- */
struct lvx_vg *lvx_vg_new(struct lvx_pool *pool);     /* empty VG in pool */
/* Single lookups scan the list (O(n)); code looking up many objects builds an index. */
struct lvx_pv *lvx_vg_find_pv_uuid(const struct lvx_vg *vg, const char *raw_uuid);
struct lvx_lv *lvx_vg_find_lv(const struct lvx_vg *vg, const char *name);
/* A shared VG: its lock_type is one lvmlockd manages (sanlock, dlm, idm), LVM2's
 * vg_is_shared(): the `s` of vg_attr, vg_shared, and the locks it needs (meta/lockd.h) */
bool lvx_vg_is_lockd(const struct lvx_vg *vg);
/* Appended, zeroed, index and vg set; arrays grow by doubling (amortised O(1)). */
struct lvx_pv *lvx_vg_add_pv(struct lvx_vg *vg);
struct lvx_lv *lvx_vg_add_lv(struct lvx_vg *vg);
/* Remove from the VG's list (keeps order, renumbers index); the object stays in the pool. */
void lvx_vg_remove_pv(struct lvx_vg *vg, struct lvx_pv *pv);
void lvx_vg_remove_lv(struct lvx_vg *vg, struct lvx_lv *lv);
/* Segment kind of a type name without "+FLAGS" ("striped" -> STRIPED, "raid5_ls" -> RAID). */
enum lvx_seg_kind lvx_seg_kind_of(const char *type_name);
/* Append a copy of s (lists must be grown only through this: capacity doubles). */
void lvx_strlist_add(struct lvx_pool *pool, struct lvx_strlist *l, const char *s);
bool lvx_strlist_has(const struct lvx_strlist *l, const char *s);
/* Remove every copy of s; true when there was one. */
bool lvx_strlist_remove(struct lvx_strlist *l, const char *s);

/* --- derive.c: properties the reports and the allocator need ----------- */
uint32_t lvx_pv_alloc_count(const struct lvx_pv *pv);     /* PEs covered by PV areas; O(areas of VG) */
/* counts[i] = lvx_pv_alloc_count(vg->pvs[i]) for every PV, in one pass over all areas. */
void lvx_vg_pv_alloc_counts(const struct lvx_vg *vg, uint32_t *counts);
uint64_t lvx_vg_extent_count(const struct lvx_vg *vg);    /* sum of pe_count */
uint64_t lvx_vg_free_count(const struct lvx_vg *vg);
/* vgchange -s (model/extent_size.c): every extent count rescaled to new_size (sectors);
 * -EINVAL with LVM2's message when one does not come out whole, -ENOTSUP for segments
 * lvx keeps as text only; nothing changed then. */
int lvx_vg_set_extent_size(struct lvx_ctx *ctx, struct lvx_vg *vg, uint32_t new_size);
unsigned lvx_vg_visible_lv_count(const struct lvx_vg *vg);/* LVM2's lv_count */
bool lvx_lv_is_visible(const struct lvx_lv *lv);          /* snapshot rule of format §10.4;
                                                             O(segments of the VG) for hidden LVs */
/* visible[i] = lvx_lv_is_visible(vg->lvs[i]) for every LV, in one pass. */
void lvx_vg_lv_visibility(const struct lvx_vg *vg, bool *visible);
bool lvx_lv_is_cow(const struct lvx_lv *lv);              /* named as cow_store by a snapshot segment */
bool lvx_lv_is_snapshot_internal(const struct lvx_lv *lv);/* carries a snapshot segment (snapshotN) */
/* the snapshot segment whose cow_store is lv, or NULL */
const struct lvx_seg *lvx_lv_cow_snapshot_seg(const struct lvx_lv *lv);
uint64_t lvx_lv_size_sectors(const struct lvx_lv *lv);    /* as LVM2 reports lv_size */
/* The segment (and LV) that uses lv as a sub-LV (leg, image, rmeta, log, pool data/metadata,
 * origin), or NULL. *role gets a short role name: "image","rmeta","mlog","mimage","tdata",
 * "tmeta","cdata","cmeta","origin","cow","pool","thin_origin", or for a segment type lvx
 * does not model the key naming lv ("origin", "writecache", ...). */
const struct lvx_seg *lvx_lv_used_by(const struct lvx_lv *lv, const char **role);
/* The LV lv is a sub-LV of, up to the top (lv itself when used by none); a snapshot's
 * origin and COW count as tops of their own. */
const struct lvx_lv *lvx_lv_top(const struct lvx_lv *lv);
/* A segment of a type lvx does not model: the LV its section names under key, or NULL. */
struct lvx_lv *lvx_seg_ref(const struct lvx_seg *seg, const char *key);
/* LVM2's writecache segment (an origin LV and a cachevol, not modelled otherwise). */
bool lvx_seg_is_writecache(const struct lvx_seg *seg);
/* Report name of a segment type: "linear" for one-stripe striped, else type_name. */
const char *lvx_seg_report_type(const struct lvx_seg *seg);
/* Number of areas LVM2 reports as "stripes" for the segment. */
uint32_t lvx_seg_report_stripes(const struct lvx_seg *seg);
/* Extents each area covers (extent_count / stripes for striped, raid images etc). */
uint64_t lvx_seg_area_len(const struct lvx_seg *seg);

/* --- vgsplit.c (the moves themselves in vg.c): PVs and LVs between two VGs of one
 * pool (vgsplit, vgmerge) --- */
/* Append pv / lv to `to`, removed from its VG (addresses kept: areas stay valid). */
void lvx_vg_move_pv(struct lvx_vg *to, struct lvx_pv *pv);
void lvx_vg_move_lv(struct lvx_vg *to, struct lvx_lv *lv);
/* Has lv (or a sub-LV, log, pool data/metadata, pool or external origin of it) an area on
 * a PV of vg? */
bool lvx_lv_on_vg_pvs(const struct lvx_lv *lv, const struct lvx_vg *vg);
/* vgsplit -n: move the PVs lv and its sub-LVs use from `from` to `to`, in LVM2's order. */
void lvx_vg_move_pvs_of_lv(struct lvx_vg *from, struct lvx_vg *to, const struct lvx_lv *lv);
typedef bool (*lvx_lv_active_fn)(const struct lvx_lv *lv, void *arg);
/* After PVs moved from `from` to `to`: move the LVs that follow them, as LVM2's vgsplit
 * (RAID stacks, plain LVs, mirrors, thin pools and thin LVs, snapshots, appended in
 * that order).  An LV left with PVs on both sides, a pool parted from its data or
 * metadata, a thin LV from its external origin, or an active LV (`active`, may be
 * NULL), is refused: -EINVAL with LVM2's message (cache LVs touched by the split:
 * -EINVAL, lvx's message).  The pool metadata spares are the caller's. */
int lvx_vg_split_lvs(struct lvx_ctx *ctx, struct lvx_vg *from, struct lvx_vg *to,
                     lvx_lv_active_fn active, void *arg);
/* Move every PV and LV of from to `to` (vgmerge); an LV UUID that `to` has already
 * gets a new one, as LVM2. */
void lvx_vg_merge(struct lvx_vg *to, struct lvx_vg *from);

/* Check the structural invariants (segments tile the LV, areas inside PVs, no two areas
 * overlap on a PV, references resolve).  0 or -EINVAL with a message. */
int lvx_vg_validate(struct lvx_ctx *ctx, const struct lvx_vg *vg);

#endif
