/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/mirror_layer.h - LVM2's CONVERTING mirrors (cmd/mirror_layer.c): the temporary
 * resync layer NAME_mimagetmp_N that LVM2's lvconvert -m +N of a disk-log mirror
 * writes (lvx too, for an inactive LV), finished (collapsed) by lvx as LVM2's poll does.
 */
#ifndef LVX_CMD_MIRROR_LAYER_H
#define LVX_CMD_MIRROR_LAYER_H

#include "cmd/lvcmd.h"

struct lvx_actcmd;

#define LVX_MIRROR_LEAVES_MAX 16u    /* 8 images on a layer, 8 on its top */

/* lv's resync layer removed from the metadata (LVM2's collapse_mirrored_lv): lv takes
 * the layer's mirror (its images and log), the top mirror's other images appended. */
void lvx_mirror_collapse_layer(struct lvx_lv *lv);

/* The leaves of mirror lv (LVM2's images and log as seen through a CONVERTING layer):
 * the layer's images then the top's other images into img (up to max), the count
 * returned; *log the layer's log (a top's own log if it has one, NULL for a core log).
 * A mirror without a layer: its images and log. */
unsigned lvx_mirror_leaves(const struct lvx_lv *lv, struct lvx_lv **img, unsigned max,
                           struct lvx_lv **log);

/* Does the mirror lv, through its layer, have extents on pv (its images, its log and a
 * mirrored log's images)? */
bool lvx_mirror_leaves_on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv);

/* pvmove of a source PV: LVM2's "Unable to pvmove when converting volume VG/LV is
 * present." for the first CONVERTING mirror (VG order; only lv_name when not NULL)
 * with extents on pv, exit 5; 0 otherwise. */
int lvx_mirror_layer_refuse_pvmove(const struct lvx_vg *vg, const struct lvx_pv *pv,
                                   const char *lv_name);

/* lvconvert of the CONVERTING mirror lv not active (cmd/mirror_layer_convert.c): fewer
 * images (-m, --type linear: the top's first, the PVs named preferred), --mirrorlog
 * core|disk on the layer, as LVM2 does them.  *done false: the layer was taken out and
 * c now asks the plain mirror lv for the rest (an image count, not relative), the
 * caller goes on as for any mirror; true: committed and said, or refused.  0 or the
 * exit code (printed). */
struct lvx_mirror_conv;
int lvx_mirror_layer_convert(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                             const struct lvx_actcmd *act, struct lvx_lv *lv,
                             struct lvx_mirror_conv *c, bool active, bool *done);

/* --splitmirrors (split), --repair, --type raid1 (type) of the CONVERTING mirror lv:
 * lvx's refusal (exit 5) when lv is active, or for a repair with a PV missing under it
 * (lvx neither splits, repairs nor takes over through the layer); else 0 (the command
 * goes on: inactive, LVM2's own refusals; a repair finds nothing to do). */
int lvx_mirror_layer_refuse_other(struct lvx_cmd_env *env, const struct lvx_lv *lv,
                                  bool split, bool repair, const char *type);

/* N of the next NAME_mimage_N of mirror `name`: one above the highest in vg, historical
 * LVs included (LVM2's generate_lv_name). */
uint32_t lvx_mirror_next_image(const struct lvx_vg *vg, const char *name);

/* LVM2's resync layer put under mirror lv before `lvconvert -m +N` adds images to it
 * (its _insert_lvconvert_layer): a hidden NAME_mimagetmp_<n> (READ, WRITE as lv's, new
 * id and creation time) appended to the VG's list takes lv's segments (the old mirror
 * and its log); lv becomes a core-log mirror of that one area, the old region size.
 * n: lvx_mirror_next_image() taken before (the first new image gets it too).  The
 * layer, for the caller to add images to lv after. */
struct lvx_lv *lvx_mirror_insert_layer(struct lvx_lv *lv, uint32_t n);

/* Does act's backend serve a CONVERTING mirror as it is (the user backend's daemon:
 * the layer's images and the top's new ones as one mirror, daemon/target_mirror.c),
 * so that activation keeps the layer and the poll collapses it live? */
bool lvx_mirror_layer_served(const struct lvx_actcmd *act);

/* Does vg hold a CONVERTING mirror? */
bool lvx_mirror_vg_has_layers(const struct lvx_vg *vg);

/* Before vgname's LVs are activated (not in a backend that serves the layer,
 * lvx_mirror_layer_served): each inactive CONVERTING mirror (only the one
 * named `only` when not NULL) collapsed, its log
 * zeroed first (every region copied from image 0 again once active: the new images
 * were never in sync), committed.  LVM2's activation starts its poll, which does the
 * same once the new images are in sync.  0 or the exit code (printed). */
int lvx_mirror_finish_layers(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             const char *vgname, const char *only);

/* `lvconvert VG/LV` of a CONVERTING mirror lv: inactive, LVM2's "VG/LV: Interrupted:
 * No longer active." and nothing written; active, its copy waited for ("Converted:
 * 100.00%"), the LV deactivated, collapsed, activated again (user backend: the
 * collapse committed and the daemon reloaded, the LV staying open), "Logical volume
 * VG/LV converted.".  0 or the exit code. */
int lvx_mirror_layer_poll(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                          const struct lvx_actcmd *act, struct lvx_lv *lv, bool active);

#endif
