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
struct lvx_mirror_conv;

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

/* lvconvert of the CONVERTING mirror lv not active, or active in the user backend
 * (committed, the daemon reloaded; cmd/mirror_layer_convert.c): fewer
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

/* lv, a CONVERTING mirror whose top copy is done, collapsed (LVM2's
 * lvconvert_mirror_finish): dm live (the collapsed table staged, the copy checked again,
 * the commit, the backend's collapse_layer), user committed and the daemon reloaded
 * live; "Logical volume VG/LV converted.".  0 or the exit code (printed). */
int lvx_mirror_layer_finish(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                            const struct lvx_actcmd *act, struct lvx_lv *lv);

/* `lvconvert [-b] [-i [+]N] VG/LV` of a CONVERTING mirror lv: inactive, LVM2's "VG/LV:
 * Interrupted: No longer active." and nothing written; -b: a detached poller
 * (cmd/mirror_poll.c); else (after N seconds with -i +N) its copy waited for
 * ("Converted: 100.00%") and lvx_mirror_layer_finish.  0 or the exit code. */
int lvx_mirror_layer_poll(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                          const struct lvx_actcmd *act, struct lvx_lv *lv, bool active,
                          const struct lvx_mirror_conv *c);

/* ---- cmd/mirror_poll.c: the convert poller ---- */

/* `lvx lvpoll --polloperation convert [-i [+]N] VG/LV` (display: the argument as
 * given): LVM2's poll, the VG's lock taken for each look only.  A look: the LV by name
 * (and uuid, when not NULL), active, a mirror; "DISPLAY: Converted: P%" (show); in sync:
 * a CONVERTING one collapsed (lvx_mirror_layer_finish).  wait_first: a sleep before the
 * first look.  0 or the exit code (printed). */
int lvx_mirror_poll_unlocked(struct lvx_cmd_env *env, const char *vgname, const char *lvname,
                             const char *display, const char *uuid, unsigned interval,
                             bool wait_first, bool show);

/* A detached `lvx lvpoll --polloperation convert` for vgname/lvname (uuid passed in
 * the environment; the rest of the environment kept); when this program is not the lvx
 * binary the poll runs in the detached child, or (locked: the caller holds the VG's
 * lock, which the child would inherit) -1 and nothing is started.  0 in the caller, or
 * the exit code. */
int lvx_mirror_poll_background(struct lvx_cmd_env *env, const char *vgname, const char *lvname,
                               const char *uuid, unsigned interval, bool wait_first,
                               bool locked);

/* The LV uuid a detached poller was given (NULL: none), taken out of the environment. */
const char *lvx_mirror_poll_uuid_env(void);

/* After an activation of vg's LVs (dm, not --poll n): one detached poller for each
 * CONVERTING mirror now active, as LVM2's activation spawns its polls.  Names are
 * collected under the VG's lock (collect), the pollers started once it is let go
 * (spawn).  At most LVX_MIRROR_POLLERS. */
#define LVX_MIRROR_POLLERS 16
struct lvx_mirror_pollers {
    unsigned n;
    const char *vg, *lv[LVX_MIRROR_POLLERS], *uuid[LVX_MIRROR_POLLERS];
};
void lvx_mirror_pollers_collect(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                const struct lvx_vg *vg, struct lvx_mirror_pollers *p);
int lvx_mirror_pollers_spawn(struct lvx_cmd_env *env, const struct lvx_mirror_pollers *p);

#endif
