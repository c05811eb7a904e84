/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/mirror_layer.h - LVM2's CONVERTING mirrors (cmd/mirror_layer.c): the temporary
 * resync layer NAME_mimagetmp_N that LVM2's lvconvert -m +N of a disk-log mirror
 * writes, finished (collapsed) by lvx as LVM2's poll does.
 */
#ifndef LVX_CMD_MIRROR_LAYER_H
#define LVX_CMD_MIRROR_LAYER_H

#include "cmd/lvcmd.h"

struct lvx_actcmd;
struct lvx_mirror_conv;

/* lv's resync layer removed from the metadata (LVM2's collapse_mirrored_lv): lv takes
 * the layer's mirror (its images and log), the top mirror's other images appended. */
void lvx_mirror_collapse_layer(struct lvx_lv *lv);

/* Does vg hold a CONVERTING mirror? */
bool lvx_mirror_vg_has_layers(const struct lvx_vg *vg);

/* Before vgname's LVs are activated by a backend that serves no layer (user; dm stacks
 * it and starts a poller): each inactive CONVERTING mirror (only the one named `only`
 * when not NULL) collapsed, its log zeroed first (every region copied from image 0
 * again once active: the new images were never in sync), committed.  LVM2's
 * activation starts its poll, which does the same once the new images are in sync.
 * 0 or the exit code (printed). */
int lvx_mirror_finish_layers(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             const char *vgname, const char *only);

/* lv, a CONVERTING mirror whose top copy is done, collapsed (LVM2's
 * lvconvert_mirror_finish): dm live (the collapsed table staged, the copy checked again,
 * the commit, the backend's collapse_layer), user deactivated, collapsed, activated
 * again; "Logical volume VG/LV converted.".  0 or the exit code (printed). */
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
