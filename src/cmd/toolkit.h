/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/toolkit.h - the command toolkit (cmd/toolkit.c), lvx's small toollib: the walk
 * over the objects a command line names, done once for every command, so that a
 * command file holds only its own per-object logic (a callback).
 *
 * Arguments: names, "@tag" (the objects with the tag; for LVs also every LV of a VG
 * with the tag) and, with no argument, everything.  -S/--select is applied by the
 * report layer to what the read walk hands over (cmd/report_cmd.c); the changing
 * commands narrow their VG and LV arguments with lvx_tk_select_vgs()/_lvs() and the
 * PV walk checks each PV of a VG (LVM2: an object is selected when a row of the
 * report of its kind over its VG, with the joined LV/segment/PV fields, matches).
 *
 * Reading (vgs, pvs, lvs, displays, lvtable, vgck, vgcfgbackup, ...):
 *     lvx_process_read(env, LVX_TK_VGS | LVX_TK_PVS | LVX_TK_LVS, fn, arg)
 *   one unlocked scan + assembly (through the device index when every argument names
 *   a VG), the objects picked by the arguments (unknown names print LVM2's message),
 *   fn(env, sel, out, arg), `out` printed, everything freed.  Exit code: fn's, else 5
 *   when a name was not found, else 0.
 *
 * Changing, with the VG update cycle (meta/update.h) run here, not in commands:
 *   begin (locks, scan, assembly, archive text) -> callback changes the VG in memory
 *   -> commit (archive, three-phase commit, backup; with --test nothing written, the
 *   backup warning still due) -> end (free, unlock), one cycle per VG:
 *     lvx_process_each_vg(env, &ops)   VG arguments (vgchange, vgck --updatemetadata,
 *                                      vgremove ...); ops.vg per VG
 *     lvx_process_each_lv(env, &ops)   LV arguments VG|VG/LV|/dev/VG/LV|@tag (lvchange,
 *                                      lvremove ...); ops.lv per LV, one commit per
 *                                      argument, ops.done after it
 *     lvx_process_each_pv(env, &ops)   PV arguments or --all (pvchange, pvresize ...);
 *                                      ops.vg_pv per PV of a VG (one commit per VG),
 *                                      ops.orphan per orphan PV; "N physical volumes
 *                                      ..." counts kept in ops.count
 * A new command: cmd/<name>.c with its callbacks and `lvx_cmd_<name>()` calling one of
 * these, a declaration in cmd/commands.h and a line in cmd/commands.c.
 */
#ifndef LVX_CMD_TOOLKIT_H
#define LVX_CMD_TOOLKIT_H

#include <stdbool.h>

#include "cmd/commands.h"
#include "cmd/pvcmd.h"
#include "meta/update.h"

/* ---- reading ------------------------------------------------------------------ */

enum lvx_tk_kind {
    LVX_TK_VGS,          /* arguments name VGs (or @tags) */
    LVX_TK_PVS,          /* PV device names (or @tags): VGs narrowed to them + orphans */
    LVX_TK_LVS,          /* VG, VG/LV, /dev/VG/LV (or @tags): VGs narrowed to the LVs */
    LVX_TK_KIND_MASK = 3,
    /* or'ed in (implied by LVX_TK_LVS): exported VGs are not read, as LVM2's commands
     * without READ_ALLOW_EXPORTED (lvs, lvdisplay, lvscan, vgck): one named by an
     * argument gets "Volume group X is exported" (exit 5), the others are left out */
    LVX_TK_NO_EXPORTED = 4,
};

/* What the arguments of a read command stand for (in env->pool, valid during fn). */
struct lvx_tk_sel {
    struct lvx_cmd_vgs load;     /* the scan and the assembled set */
    struct lvx_vg **vgs;
    unsigned vg_count;
    struct lvx_pv **orphans;     /* LVX_TK_PVS only */
    unsigned orphan_count;
    bool only_named;             /* LVX_TK_LVS: every VG came through LV names */
    bool failed;                 /* a name was not found (message printed) */
};

/* fn returns an exit code (0 ok); what it puts in `out` is printed afterwards. */
typedef int (*lvx_tk_read_fn)(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel,
                              struct lvx_buf *out, void *arg);
int lvx_process_read(struct lvx_cmd_env *env, enum lvx_tk_kind kind, lvx_tk_read_fn fn,
                     void *arg);
/* LVM_VG_NAME (LVM2's default VG): LV arguments without a VG become "VG/LV" (the LV
 * walks do it themselves; commands that check their LV names first call it). */
void lvx_tk_default_vg_names(struct lvx_cmd_env *env);
/* A callback that does nothing: the walk alone (names checked, exported VGs refused). */
int lvx_tk_read_nothing(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel,
                        struct lvx_buf *out, void *arg);

/* A display command (pvdisplay, vgdisplay, lvdisplay): its argument checks
 * (lvx_cmd_display_check_args), -C/--columns run as the report command `columns`, else
 * lvx_process_read() with fn. */
int lvx_process_display(struct lvx_cmd_env *env, enum lvx_tk_kind kind, lvx_cmd_fn columns,
                        lvx_tk_read_fn fn);

/* ---- -S/--select for changing commands ------------------------------------------- */

/* The VG names among names[0..count) that -S selects (all of them without -S), in
 * env->pool; NULL after a printed error (a bad selection, a failed scan). */
char **lvx_tk_select_vgs(struct lvx_cmd_env *env, char **names, unsigned count,
                         unsigned *out_count);
/* The LV arguments ("VG/LV", or "VG" for its visible LVs; none: every VG) narrowed by
 * -S to "VG/LV" names (the arguments themselves without -S).  A selection that
 * cannot be applied to LVs prints LVM2's "Selection failed for LV ..." lines and
 * selects nothing.  NULL after a printed error. */
char **lvx_tk_select_lvs(struct lvx_cmd_env *env, char **args, unsigned count,
                         unsigned *out_count);

/* ---- changing VGs ------------------------------------------------------------- */

struct lvx_tk_vg_ops {
    unsigned update_flags;       /* LVX_UPDATE_* for the begin */
    /* The VG u->vg, begun.  Change it in memory and set *commit for the toolkit to
     * commit it (or do the writes itself, as vgremove).  Exit code (0 ok). */
    int (*vg)(struct lvx_cmd_env *env, struct lvx_vg_update *u, bool *commit, void *arg);
    /* After a successful commit (or --test), optional: notices.  Exit code. */
    int (*done)(struct lvx_cmd_env *env, struct lvx_vg_update *u, void *arg);
    void *arg;
};
/* ops for each VG the arguments name (lvx_cmd_vg_names(): names, @tags, all VGs when
 * none), the highest exit code. */
int lvx_process_each_vg(struct lvx_cmd_env *env, const struct lvx_tk_vg_ops *ops);
/* The same for a list of VG names already expanded. */
int lvx_process_vg_names(struct lvx_cmd_env *env, char **names, unsigned count,
                         const struct lvx_tk_vg_ops *ops);
/* Commit u; with --test nothing is written (the dispatcher printed LVM2's TEST MODE
 * line) but the "NOT backed up" warning is due as after a commit.
 * description: the command line (lvx_vgcmd_command_line() ...).  0 or
 * LVX_EXIT_FAILED (printed). */
int lvx_tk_commit(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                  const char *description);

/* ---- changing LVs ------------------------------------------------------------- */

struct lvx_tk_lv_ops {
    /* One LV in memory: 1 changed, 0 nothing to do, -1 refused (message printed). */
    int (*lv)(struct lvx_cmd_env *env, struct lvx_lv *lv, void *arg);
    /* After the commit (or --test) of an argument's VG, with the LVs changed (their
     * structures stay readable even when removed from the VG).  true when something
     * failed (message printed). */
    bool (*done)(struct lvx_cmd_env *env, struct lvx_lv **lvs, unsigned n, void *arg);
    void *arg;
    unsigned update_flags;       /* more LVX_UPDATE_* for the begin (ALLOW_MISSING:
                                  * lvremove, lvchange's metadata changes, as LVM2's
                                  * handles_missing_pvs) */
    bool gone_ok;                /* a named LV no longer there is skipped silently (-S
                                  * selected it, an earlier one took it along) */
};
/* Every argument checked first (lvx_lvcmd_check_names: one bad name changes nothing),
 * @tags expanded (lvx_cmd_lv_args), then one VG update per argument: "VG/LV" names one
 * LV, "VG" all its visible LVs.  The highest exit code. */
int lvx_process_each_lv(struct lvx_cmd_env *env, const struct lvx_tk_lv_ops *ops);
/* The per-argument part, for arguments already checked and expanded. */
int lvx_process_lv_args(struct lvx_cmd_env *env, char **args, unsigned count,
                        const struct lvx_tk_lv_ops *ops);

/* ---- changing PVs ------------------------------------------------------------- */

struct lvx_tk_pv_ops {
    bool all;                    /* --all: every PV (no names) */
    bool say_unchanged;          /* "Physical volume X not changed" for each PV of a VG
                                  * left unchanged */
    bool backup_warning_first;   /* LVM2's "NOT backed up" before the "changed" lines
                                  * (pvchange; pvresize: after them) */
    /* A PV of the VG u->vg, in memory: 1 changed, 0 unchanged, -1 refused (printed). */
    int (*vg_pv)(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *name,
                 struct lvx_pv *pv, void *arg);
    /* After the VG's commit of this PV (not with --test), optional (label
     * writes): 1 ok, 0 failed but the change stands, -1 failed and not changed. */
    int (*committed_pv)(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *name,
                        struct lvx_pv *pv, void *arg);
    /* An orphan PV (under the global lock, after one scan of them). */
    lvx_pvcmd_orphan_fn orphan;
    void *arg;
};
/* The PVs of the command line: each VG holding some of them in one update (committed
 * once per PV changed, as LVM2), then the orphans.  Counts the PVs changed or not into *cnt (failed set on any failure, also
 * for unknown names).  0 or an exit code for the arguments themselves. */
int lvx_process_each_pv(struct lvx_cmd_env *env, const struct lvx_tk_pv_ops *ops,
                        struct lvx_pvcmd_count *cnt);

#endif
