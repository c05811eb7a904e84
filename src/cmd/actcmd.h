/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/actcmd.h - activation in the commands (cmd/activation.c): choosing the
 * backend once per command, --activationmode, activating/deactivating LVs with
 * LVM2's messages, `vgchange -a y|n` and `lvchange -a y|n`, the kernel-state hook
 * of the LV reports, and the hooks the LV-changing commands call (lvcreate,
 * lvremove, lvextend/lvreduce, lvrename).
 *
 * Backend: LVX_ACTIVATION_BACKEND=dm|user|none forces one (activate/activate.h);
 * lvm.conf/--config global/activation=0 turns activation off (and wins over it).
 * Every int function returns 0 or an exit code (LVX_EXIT_*) after printing.
 */
#ifndef LVX_CMD_ACTCMD_H
#define LVX_CMD_ACTCMD_H

#include <stdbool.h>

#include "activate/activate.h"
#include "cmd/commands.h"
#include "meta/update.h"

struct lvx_report_opts;

struct lvx_actcmd {
    const struct lvx_activation_backend *be;   /* NULL: no usable backend */
    const char *why;                           /* the reason when be is NULL */
    bool off;                                  /* lvm.conf global/activation = 0: LVs are
                                                  left as they are, commands succeed */
    struct lvx_activate_opts opts;             /* --activationmode partial, -f, the
                                                  monitoring mode */
    bool test;                                 /* --test: change nothing in the kernel */
    bool volume_list;                          /* lvm.conf sets activation/volume_list */
};

/* Parse --activationmode/-P (and lvm.conf activation/activation_mode; partial mode
 * prints LVM2's "PARTIAL MODE" warning) and choose the backend.  0 or
 * LVX_EXIT_INVALID. */
int lvx_actcmd_init(struct lvx_cmd_env *env, struct lvx_actcmd *a);
/* Only check the mode options (before a command changes metadata): 0 or
 * LVX_EXIT_INVALID after LVM2's message. */
int lvx_actcmd_check_mode(struct lvx_cmd_env *env);
/* The same as lvx_actcmd_init() for a command that activates (lvcreate, vgchange -a, lvchange -a): under
 * global/activation = 0 it first prints LVM2's "WARNING: Activation disabled. ..." */
int lvx_actcmd_init_activating(struct lvx_cmd_env *env, struct lvx_actcmd *a);
/* --monitor with --ignoremonitoring: LVM2's line printed, true (the command then does
 * nothing and exits 0, as LVM2's). */
bool lvx_actcmd_monitor_conflict(struct lvx_cmd_env *env);
/* lvchange --monitor y|n of the arguments (VG/LV each, active: their thin pools and
 * snapshots watched or not; inactive: LVM2's "is not active"), vgchange --monitor of
 * the named VGs (LVM2's "N logical volume(s) in volume group "VG" monitored"). */
int lvx_actcmd_lvmonitor(struct lvx_cmd_env *env, char **args, unsigned count);
int lvx_actcmd_vgmonitor(struct lvx_cmd_env *env, char **names, unsigned count);

/* Print why activation is unavailable (when a->be is NULL). */
void lvx_actcmd_print_why(const struct lvx_actcmd *a);

/* Is lv active (state in *ks when ks is not NULL)?  false without a backend. */
bool lvx_actcmd_is_active(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                          const struct lvx_lv *lv, struct lvx_lv_kstate *ks);
/* Is lv active and open?  Then LVM2's line why it cannot be deactivated ("... contains
 * a filesystem in use." or "... in use.") is printed. */
bool lvx_actcmd_in_use(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                       const struct lvx_lv *lv);
/* Activate / deactivate one LV, LVM2's messages on failure (activate: 0 doing
 * nothing when activation is off). */
int lvx_actcmd_activate(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                        const struct lvx_lv *lv);
int lvx_actcmd_deactivate(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                          const struct lvx_lv *lv, bool force);
/* Deactivate only the snapshot of a COW LV (its origin and other snapshots stay). */
int lvx_actcmd_deactivate_snapshot(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                                   const struct lvx_lv *cow, bool force);

/* vgchange -a y|n over the named VGs (lvx_cmd_vg_names()). */
int lvx_actcmd_vgchange(struct lvx_cmd_env *env, char **names, unsigned count, bool activate);
/* lvchange -a y|n of the arguments (VG or VG/LV each). */
int lvx_actcmd_lvchange(struct lvx_cmd_env *env, char **args, unsigned count, bool activate);

/* lvchange --refresh of the arguments (VG or VG/LV each): the active LVs' tables
 * loaded again from the metadata (a partial LV only with --activationmode partial). */
int lvx_actcmd_refresh(struct lvx_cmd_env *env, char **args, unsigned count);

/* lvchange --syncaction check|repair of the VG/LV arguments (RAID LVs, active, idle):
 * the message to the kernel, LVM2's checks and messages. */
int lvx_actcmd_syncaction(struct lvx_cmd_env *env, char **args, unsigned count, const char *msg);

/* Hooks around a metadata change of an active LV (lvextend/lvreduce): stage the
 * new table before the commit (*staged set when the LV is active), then after the
 * commit finish (swap, or unstage when the commit failed: committed false). */
int lvx_actcmd_stage(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                     const struct lvx_lv *lv, bool *staged);
int lvx_actcmd_finish(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                      const struct lvx_lv *lv, bool committed);

/* New tables for a changed thin pool or thin LV: lv itself when active, else (a pool)
 * through one of its active thin LVs, whose activation reloads the pool's stack. */
int lvx_actcmd_reload_thin(struct lvx_cmd_env *env, const struct lvx_actcmd *a,
                           const struct lvx_lv *lv);

/* Point the report's kernel-state hook at the chosen backend (LV reports). */
void lvx_actcmd_report_hook(struct lvx_cmd_env *env, struct lvx_report_opts *opts);

#endif
