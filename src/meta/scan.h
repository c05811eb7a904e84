/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/scan.h - label scan and VG assembly (lvm2-format.md §8): the plain reader
 * under the read front (meta/read.h, which picks what to read: the session cache, the
 * device index, every device).
 *
 * lvx_scan_devices() reads the labels of a device list in one batch, then the mda headers
 * and committed text of every PV's non-ignored metadata areas, and groups what it
 * found by VG.  lvx_scan_vgs() assembles the VGs: the highest valid seqno wins,
 * stale/damaged copies and missing PVs produce LVM2-style warnings through
 * ctx, PVs without (or with ignored) metadata areas are placed by UUID through the
 * chosen text.  Orphan PVs (label, no VG) are listed too.
 */
#ifndef LVX_META_SCAN_H
#define LVX_META_SCAN_H

#include <stdint.h>
#include <stdbool.h>

#include "util/ctx.h"
#include "util/pool.h"
#include "util/buf.h"
#include "dev/dev.h"
#include "format/label.h"
#include "format/mda.h"
#include "model/model.h"

struct lvx_cfg_node;

/* One metadata area of a scanned PV. */
struct lvx_scan_mda {
    uint64_t start;           /* absolute offset of the header (from the pv_header) */
    uint64_t area_size;       /* bytes (from the pv_header; hdr.size once validated) */
    struct lvx_mda_header hdr;
    bool hdr_valid;
    bool ignored;
    bool bad;                 /* header or text invalid: message in `problem` (hdr_valid
                               * tells which); also set by lvx_scan_vgs for a same-seqno
                               * copy that differs from the one chosen */
    const char *problem;
    bool crc_bad;             /* bad because of the text's checksum (LVM2 words it so) */
    const char *text;         /* committed text (NUL-terminated), NULL if none/ignored/bad */
    const struct lvx_cfg_node *tree; /* that text parsed (in the scan's pool, shared by
                                      * identical copies), imported by lvx_scan_vgs()
                                      * without parsing again; NULL when text is NULL */
    uint64_t text_size;       /* slot 0 size, NUL included */
    uint32_t seqno;           /* from the parsed text */
    char vg_name[128];
    char vg_uuid[LVX_UUID_LEN + 1];
};

/* A device carrying a valid label. */
struct lvx_scan_pv {
    struct lvx_dev *dev;
    struct lvx_label label;
    unsigned mda_count;
    struct lvx_scan_mda mda[2];
    bool head_gap_zero;       /* the first area's header lay in the bytes the scan read
                               * first (the head, 4608) and every byte between the label
                               * sector and it was zero: a commit may write label, gap and
                               * header as one write (meta/commit.c) */
};

/* What the read front (meta/read.c) and the session cache / device index below it
 * record about where a scan came from; the scanner itself never reads it. */
struct lvx_scan_origin {
    struct lvx_cache *cache;     /* set while lent by a session's cache (meta/cache.h):
                                  * lvx_scan_free() then gives it back instead of freeing */
    bool full_system;            /* every device of the system scan was listed: the device
                                  * index may be rebuilt from it (meta/index.h) */
    bool narrowed;               /* only the devices the index gives for opts->vg_names */
    uint64_t devs_hash;          /* of the system device list (lvx_index_hash_devices) */
    uint64_t list_key_hash;      /* lvx_scan_list_key_hash() taken before that list was
                                  * made, 0 if not: the index may keep the list under it */
};

struct lvx_scan {
    struct lvx_pool *pool;
    const struct lvx_dev_ops *io;/* the I/O seam of the scanning ctx (used to close devices) */
    struct lvx_devlist devs;     /* every device looked at; labelled ones stay open
                                  * read-only until lvx_scan_free() */
    unsigned pv_count;
    struct lvx_scan_pv *pvs;     /* devices with a label, in device order */
    struct lvx_scan_origin *origin; /* NULL for a plain read; lvx_scan_origin() makes it */
};

/* What a device named on the command line is to a command (lvx_scan_judge_named). */
enum lvx_named {
    LVX_NAMED_OK,                /* a device the command may use */
    LVX_NAMED_NO_DEVICE,         /* no block device or regular file by that name */
    LVX_NAMED_LV,                /* an LV while devices/scan_lvs is off */
    LVX_NAMED_UNLISTED,          /* not in the --devices list */
    LVX_NAMED_FILTERED,          /* rejected by lvm.conf's global_filter or filter */
};

struct lvx_scan_opts {
    const char *const *devices;  /* --devices names (never filtered, as LVM2), NULL = the
                                  * system's devices through lvm.conf's filters */
    unsigned device_count;
    /* Devices named on the command line (pvcreate X, pvremove X...): read instead of
     * the above, and judged first as those would be (lvx_scan_judge_named).  When one
     * is refused or no device, the listing fails with -ENODEV, nothing is read and
     * nothing logged: named_why[i] (if given) says why for named[i]. */
    const char *const *named;
    unsigned named_count;
    enum lvx_named *named_why;
    /* The VGs (names or UUIDs) the command is about, or NULL for all.  A system scan
     * then reads only their devices when the device index is valid (meta/index.h);
     * use lvx_scan_assemble(), which falls back to reading every device. */
    const char *const *vg_names;
    unsigned vg_name_count;
    /* Devices the command names besides those VGs (the PVs vgextend adds): read too,
     * through the index only when each is provably an orphan or no PV (meta/index.h). */
    const char *const *also_devices;
    unsigned also_count;
    /* Keep the devices that are LVs whatever devices/scan_lvs says (meta/scan_lvs.h):
     * the daemon reading the devices its client chose. */
    bool with_lvs;
};

/*
 * Read a device list built in `pool`; the scan takes the pool over (also on failure).
 * `named`: devices named by the user: those that cannot be opened or are too small give
 * a warning (devices of a system scan are skipped silently).  Per-area problems are
 * recorded in the areas (bad/problem), not logged: lvx_scan_vgs() reports them.
 * Returns 0, or a negative errno when the batched read cannot run.
 */
int lvx_scan_devices(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_devlist *devs,
                     bool named, struct lvx_scan **out);
/* lvm.conf devices/pv_min_size in bytes (KiB there, default 2048): smaller devices are
 * left out of scans and refused by pvcreate.  A value under 512 KiB counts as 512, with
 * LVM2's warning (once per command). */
uint64_t lvx_scan_pv_min_bytes(struct lvx_ctx *ctx);
/* Read again some devices of a scan (e.g. just made PVs by an implicit pvcreate):
 * their labels, areas and texts replace what the scan had for them, the other devices
 * are not read.  Assemble again (lvx_scan_vgs) afterwards.  Every device must be in
 * scan->devs; one that cannot be opened or read ends up without a label. */
int lvx_scan_reread_devices(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_dev **devs,
                            unsigned count);
/* Everything a system device list is built from, except the device nodes themselves
 * (the kernel's uevent counter, lvm.conf, --config): the same key gives the same list.
 * Read it *before* listing.  The hash form is never 0. */
void lvx_scan_list_key(const struct lvx_ctx *ctx, struct lvx_buf *key);
uint64_t lvx_scan_list_key_hash(const struct lvx_ctx *ctx);

/* Free a scan as the scanner made it (closes its devices).  Users of the read front
 * call lvx_scan_free() (meta/read.h), which gives a lent scan back instead. */
void lvx_scan_release(struct lvx_scan *scan);
/* The scan's origin record (made zeroed in its pool on first use). */
struct lvx_scan_origin *lvx_scan_origin(struct lvx_scan *scan);
/* The devices a scan looks at: opts->named (judged), else the --devices names, else the
 * system's block devices that the devices file lists when one is in use (lvm.conf's
 * devices/use_devicesfile or --devicesfile, and the file exists), else those lvm.conf's
 * devices/global_filter and devices/filter accept (nothing is opened). */
int lvx_scan_list_devices(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                          struct lvx_pool *pool, struct lvx_devlist *out);
/* Judge devices named on the command line (names[i]: why[i]) as the devices a scan
 * with opts lists are judged, so that a command refuses what it would not see: with
 * opts->devices a name must be in that list (not filtered, as LVM2); else lvm.conf's
 * filters must accept it as they would accept it in a system scan (while a devices file
 * is in use, the commands check it themselves); and it is no LV unless
 * devices/scan_lvs.  One listing and one filter compile for all names.  devs (may be
 * NULL) gets the devices of the names, each once.  Returns how many names are refused
 * or no device, or a negative errno. */
int lvx_scan_judge_named(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                         struct lvx_pool *pool, const char *const *names, unsigned count,
                         enum lvx_named *why, struct lvx_devlist *devs);
/* LVM2's reason after "Cannot use NAME: " for a refused name; NULL for LVX_NAMED_OK
 * and LVX_NAMED_NO_DEVICE (LVM2: "No device found for NAME."). */
const char *lvx_named_reason(enum lvx_named why);

/* Keep only the devices of devs the devices file lists, when one is in use (*used then
 * true): LVM2's warnings for entries without a device and for filters it ignores. */
struct lvx_config;
int lvx_scan_devices_file(struct lvx_ctx *ctx, const struct lvx_config *cfg,
                          struct lvx_pool *pool, struct lvx_devlist *devs, bool *used);

/* Result of assembling VGs from a scan. */
struct lvx_vgset {
    struct lvx_pool *pool;
    unsigned vg_count;
    struct lvx_vg **vgs;         /* sorted by name */
    unsigned orphan_count;
    struct lvx_pv **orphans;     /* PVs not in any VG (vg == NULL), ondisk filled */
    unsigned outdated_count;     /* PVs carrying metadata of a VG that no longer lists */
    struct lvx_pv **outdated;    /* them (§8.4): vg == NULL, ondisk filled, not orphans */    unsigned dup_count;          /* PV UUIDs (raw) that more than one device carries */
    const char **dup_uuids;      /* (LVM2's duplicates), sorted */
};

/* Assemble all VGs found by the scan.  Damaged copies and missing PVs give warnings;
 * a VG whose every copy is damaged gives a warning and is left out (error if named). */
int lvx_scan_vgs(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_vgset **out);
void lvx_vgset_free(struct lvx_vgset *set);
/* Does more than one device carry this PV UUID (raw)?  LVM2 then refuses the PV to
 * vgcreate, vgextend and pvcreate ("Cannot use device ... with duplicates."). */
bool lvx_vgset_pv_duplicated(const struct lvx_vgset *set, const char *pv_uuid);
/* A PV's on-disk state (device, label, metadata areas) from its scan record; strings
 * are copied into pool.  Assembly does it for every PV it places; vgcfgrestore for
 * the PVs of a restored VG. */
void lvx_scan_fill_ondisk(struct lvx_pool *pool, struct lvx_pv_ondisk *od,
                          const struct lvx_scan_pv *spv);
/* The VG with this name (or raw/dashed VG UUID) in a set, or NULL (also NULL when two
 * VGs share the name: the caller must then ask by UUID). */
struct lvx_vg *lvx_vgset_find(const struct lvx_vgset *set, const char *name_or_uuid);

#endif
