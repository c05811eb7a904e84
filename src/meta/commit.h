/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/commit.h - writing a new version of a VG (lvm2-format.md §7): the three-phase
 * commit over the VG's in-use metadata areas, and the label/mda writes of PV
 * creation and removal.  All writes go through the I/O seam (dev/io.h).
 */
#ifndef LVX_META_COMMIT_H
#define LVX_META_COMMIT_H

#include "meta/scan.h"
#include "model/model.h"

/*
 * Commit `vg` as version vg->seqno + 1 (vg->seqno is incremented on success).
 * `command_line` goes into the description ("Write from <command_line>.").
 * Areas in use: every metadata area of every present PV of the VG whose desired
 * state (pv->ondisk.mda[i].ignored) is "in use", plus areas switching to ignored
 * by this commit; bad areas are skipped unless `repair` is set (vgck --updatemetadata).
 * Labels of VG PVs lacking PV_EXT_USED (or with an old extension) are rewritten after
 * the commit point (LVM2 does it before; after is crash-safe: a listed PV lacking the
 * flag still reads as a member, a flagged PV no VG lists reads as "[unknown]").
 * PVs carrying this VG's metadata but not listed (outdated, §8.4) are detached before
 * the commit point (see lvx_vg_commit_detach).
 * On a failure before the first commit-slot write the touched headers are reverted
 * and the VG stays at its old version.
 */
int lvx_vg_commit(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_vg *vg,
                  const char *command_line, bool repair);

/* A commit whose text takes at least this share of what the smallest in-use area can
 * hold (lvx_mda_max_text_size) warns, saying how to make room (Large VGs). */
#define LVX_MDA_WARN_PERCENT_LOW 50u
#define LVX_MDA_WARN_PERCENT_HIGH 90u

/*
 * lvx_vg_commit(), also detaching the PVs that leave the VG: the scanned PVs named in
 * `detach` (raw PV UUIDs, e.g. the PVs of the old version) or carrying this VG's
 * metadata, that the new version does not list.  Before the commit point their label
 * loses PV_EXT_USED and their areas are emptied (ignored flag kept), so that a crash
 * anywhere reads as the old or the new version (vgreduce, vgck --updatemetadata).
 */
int lvx_vg_commit_detach(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_vg *vg,
                         const char *command_line, bool repair,
                         const char (*detach)[LVX_UUID_LEN + 1], unsigned detach_count);

/* The scanned PV carrying this PV UUID, or NULL. */
struct lvx_scan_pv *lvx_scan_find_pv(struct lvx_scan *scan, const char *raw_uuid);

/*
 * Turn a device into an orphan PV: zero sectors 0-3, write the label (label->sector),
 * zero the first 4 KiB of each metadata area listed in the label and write an empty
 * mda_header (slot 0 flagged ignored when mda_ignored).  The device must be open
 * read-write.  The areas are flushed before the label is written (no label ever
 * lands without its areas), the label is flushed at the end.
 */
int lvx_pv_write_new(struct lvx_ctx *ctx, struct lvx_dev *dev, const struct lvx_label *label,
                     bool mda_ignored);
/* The two halves of lvx_pv_write_new(), without its flushes, for callers that write
 * many devices and flush them together: the metadata area headers, then (only after
 * those were flushed) the label sectors. */
int lvx_pv_write_new_areas(struct lvx_ctx *ctx, struct lvx_dev *dev,
                           const struct lvx_label *label, bool mda_ignored);
int lvx_pv_write_new_label(struct lvx_ctx *ctx, struct lvx_dev *dev,
                           const struct lvx_label *label);

/* Rewrite only the label sector of a scanned PV (e.g. to set/clear PV_EXT_USED). */
int lvx_pv_write_label(struct lvx_ctx *ctx, struct lvx_scan_pv *spv);

/* Detach a PV from its VG's metadata: rewrite the label with PV_EXT_USED cleared, then
 * clear both slots of each of its areas (keeping the ignored flag); writes only what is
 * not already so (vgremove, vgreduce).  vgremove should clear every label before the
 * first area, so that no PV is left flagged in use without a VG after a crash. */
int lvx_pv_write_orphan(struct lvx_ctx *ctx, struct lvx_scan_pv *spv);

/* LVM2 caches which devices are PVs in /run/lvm/hints; a command that writes labels
 * creates /run/lvm/newhints so that the next LVM2 command rescans (LVM2's own rule). */
void lvx_lvm2_hints_invalidate(void);

#endif
