/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/commands.h - what the command files share: the command table
 * (cmd/commands.c), the environment a command runs in, exit codes, and the
 * helpers of cmd/common.c (loading VGs, printing errors, display-style sizes).
 *
 * Adding a command: write cmd/<name>.c with `int lvx_cmd_<name>(struct lvx_cmd_env *)`,
 * declare it below and add one line to the table in cmd/commands.c (with the short
 * paragraph of its man page: `make man` generates the pages and the shell completion
 * from the two tables).  The walk over the VGs/PVs/LVs its arguments name (and the VG
 * update cycle) is cmd/toolkit.h's.
 */
#ifndef LVX_CMD_COMMANDS_H
#define LVX_CMD_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/options.h"
#include "util/buf.h"
#include "util/ctx.h"
#include "util/pool.h"
#include "model/model.h"

/* Exit codes, LVM2's values. */
enum {
    LVX_EXIT_OK = 0,
    LVX_EXIT_NO_SUCH_CMD = 2,     /* ENO_SUCH_CMD */
    LVX_EXIT_INVALID = 3,         /* EINVALID_CMD_LINE */
    LVX_EXIT_INIT = 4,            /* EINIT_FAILED: lvm.conf cannot be loaded */
    LVX_EXIT_FAILED = 5,          /* ECMD_FAILED */
};

struct lvx_command;
struct lvx_report_opts;

/* Everything a command gets. */
struct lvx_cmd_env {
    struct lvx_ctx *ctx;
    struct lvx_pool *pool;               /* freed when the command returns */
    struct lvx_cmd_args *args;
    const struct lvx_command *command;
    const char *prog;                    /* "lvm" when called as lvm (or as an LVM2
                                          * command name), else "lvx": help texts */
};

/* A command returns its exit code (LVX_EXIT_*). */
typedef int (*lvx_cmd_fn)(struct lvx_cmd_env *env);

struct lvx_command {
    const char *name;
    lvx_cmd_fn fn;
    const char *summary;                 /* one line for `lvx help` */
    const char *positional;              /* usage of the positional arguments, e.g. "[PV ...]" */
    const enum lvx_opt_id *opts;         /* accepted options, LVX_OPT_COUNT-terminated */
    const char *description;             /* a short paragraph for the man page (tools/docgen.c) */
};

/* --- commands.c: the table ------------------------------------------------ */
const struct lvx_command *lvx_command_find(const char *name);
const struct lvx_command *lvx_command_table(unsigned *count);
/* Usage text of one command ("lvx pvs [options] [PV ...]" + its options). */
void lvx_command_usage(struct lvx_buf *out, const struct lvx_command *cmd);
/* "Available lvx commands:" and one line per command. */
void lvx_command_list(struct lvx_buf *out);
/* The same naming the program prog ("lvm": "Available lvm commands:", as LVM2). */
void lvx_command_list_as(struct lvx_buf *out, const char *prog);
/* Is name one of LVM2's command names (cmd/lvm_names.c)?  Those lvx lacks are refused
 * when lvx is called through a link of that name. */
bool lvx_lvm2_command_name(const char *name);

/* --- one function per command --------------------------------------------- */
int lvx_cmd_pvs(struct lvx_cmd_env *env);
int lvx_cmd_vgs(struct lvx_cmd_env *env);
int lvx_cmd_fullreport(struct lvx_cmd_env *env);
int lvx_cmd_lastlog(struct lvx_cmd_env *env);
int lvx_cmd_lvs(struct lvx_cmd_env *env);
int lvx_cmd_pvdisplay(struct lvx_cmd_env *env);
int lvx_cmd_vgdisplay(struct lvx_cmd_env *env);
int lvx_cmd_lvdisplay(struct lvx_cmd_env *env);
int lvx_cmd_vgcfgbackup(struct lvx_cmd_env *env);
int lvx_cmd_version(struct lvx_cmd_env *env);
int lvx_cmd_help(struct lvx_cmd_env *env);
int lvx_cmd_vgcreate(struct lvx_cmd_env *env);      /* VG commands: cmd/vg*.c, cmd/vgcmd.h */
int lvx_cmd_vgextend(struct lvx_cmd_env *env);
int lvx_cmd_vgreduce(struct lvx_cmd_env *env);
int lvx_cmd_vgsplit(struct lvx_cmd_env *env);
int lvx_cmd_vgmerge(struct lvx_cmd_env *env);
int lvx_cmd_vgexport(struct lvx_cmd_env *env);
int lvx_cmd_vgimport(struct lvx_cmd_env *env);
int lvx_cmd_vgimportclone(struct lvx_cmd_env *env);
int lvx_cmd_vgremove(struct lvx_cmd_env *env);
int lvx_cmd_vgrename(struct lvx_cmd_env *env);
int lvx_cmd_vgchange(struct lvx_cmd_env *env);
int lvx_cmd_vgck(struct lvx_cmd_env *env);
int lvx_cmd_pvck(struct lvx_cmd_env *env);
int lvx_cmd_vgcfgrestore(struct lvx_cmd_env *env);
int lvx_cmd_lvcreate(struct lvx_cmd_env *env);      /* cmd/lvcreate.c */
int lvx_cmd_lvextend(struct lvx_cmd_env *env);      /* cmd/lvresize.c */
int lvx_cmd_lvreduce(struct lvx_cmd_env *env);      /* cmd/lvresize.c */
int lvx_cmd_lvresize(struct lvx_cmd_env *env);      /* cmd/lvresize.c */
int lvx_cmd_lvpoll(struct lvx_cmd_env *env);        /* cmd/lvpoll.c */
int lvx_cmd_lvremove(struct lvx_cmd_env *env);      /* cmd/lvremove.c */
int lvx_cmd_lvrename(struct lvx_cmd_env *env);      /* cmd/lvrename.c */
int lvx_cmd_lvchange(struct lvx_cmd_env *env);      /* cmd/lvchange.c */
int lvx_cmd_lvconvert(struct lvx_cmd_env *env);     /* cmd/lvconvert.c */
int lvx_cmd_lvtable(struct lvx_cmd_env *env);       /* cmd/lvtable.c */
int lvx_cmd_daemon(struct lvx_cmd_env *env);        /* cmd/daemon_cmd.c */
int lvx_cmd_config(struct lvx_cmd_env *env);        /* cmd/config_cmd.c */
int lvx_cmd_shell(struct lvx_cmd_env *env);         /* cmd/shell.c (the binary runs the shell) */
int lvx_cmd_pvcreate(struct lvx_cmd_env *env);
int lvx_cmd_pvremove(struct lvx_cmd_env *env);
int lvx_cmd_pvchange(struct lvx_cmd_env *env);
int lvx_cmd_pvresize(struct lvx_cmd_env *env);
int lvx_cmd_pvscan(struct lvx_cmd_env *env);        /* cmd/pvscan.c */
int lvx_cmd_pvmove(struct lvx_cmd_env *env);        /* cmd/pvmove.c */
/* Abort the move of pvmove LV uuid in vgname (pvmove --abort of one move). */
int lvx_pvmove_abort(struct lvx_cmd_env *env, const char *vgname, const char *uuid);
/* Continue the move of pvmove LV uuid in vgname (source device name) in a detached
 * copier, as `pvmove -b` (activation of a VG with a move in progress polls it; lvx
 * jobs --resume). */
int lvx_pvmove_background(struct lvx_cmd_env *env, const char *vgname, const char *uuid,
                          const char *name);
/* Stop the copier of job uuid (a pvmove or a restripe), leaving the move in
 * progress (lvx jobs --pause): 0, or LVX_EXIT_FAILED after the message. */
int lvx_pvmove_pause(struct lvx_cmd_env *env, const char *uuid);
/* cmd/pvmove.c's pieces other copies use (the restripe, cmd/lvconvert_restripe.c):
 * the copier lock of job uuid (its job file, meta/jobs.h): fd >= 0, or -EBUSY when
 * another copier holds it, and its release; lv is active in the user-space backend
 * (the daemon serves it); the daemon re-reads lv's metadata when it serves lv (0, or
 * LVX_EXIT_FAILED with a message). */
struct lvx_actcmd;
struct lvx_lv;
int lvx_pvmove_copier_lock(struct lvx_cmd_env *env, const char *uuid);
void lvx_pvmove_copier_unlock(struct lvx_cmd_env *env, int fd, const char *uuid);
bool lvx_pvmove_in_daemon(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                          const struct lvx_lv *lv);
int lvx_pvmove_reload_lv(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                         const struct lvx_lv *lv);
int lvx_cmd_jobs(struct lvx_cmd_env *env);          /* cmd/jobs.c */
int lvx_cmd_lvmdiskscan(struct lvx_cmd_env *env);   /* cmd/lvmdiskscan.c */
int lvx_cmd_vgscan(struct lvx_cmd_env *env);        /* cmd/vgscan.c */
int lvx_cmd_lvscan(struct lvx_cmd_env *env);        /* cmd/lvscan.c */
int lvx_cmd_vgmknodes(struct lvx_cmd_env *env);     /* cmd/vgmknodes.c */
int lvx_cmd_segtypes(struct lvx_cmd_env *env);      /* cmd/segtypes.c */
int lvx_cmd_systemid(struct lvx_cmd_env *env);      /* cmd/systemid.c */
int lvx_cmd_tags(struct lvx_cmd_env *env);          /* cmd/tags.c */
int lvx_cmd_formats(struct lvx_cmd_env *env);       /* cmd/segtypes.c */
int lvx_cmd_lvmdevices(struct lvx_cmd_env *env);    /* cmd/lvmdevices.c */
int lvx_cmd_vgimportdevices(struct lvx_cmd_env *env); /* cmd/vgimportdevices.c */

/* --- common.c: helpers ---------------------------------------------------- */

/* VGs and orphan PVs seen by a command (scan + assembly, freed by lvx_cmd_unload). */
struct lvx_cmd_vgs {
    struct lvx_scan *scan;
    struct lvx_vgset *set;
    unsigned hidden_count;       /* shared VGs left out of set (no lvmlockd, no --shared) */
    struct lvx_vg **hidden;
};

/* Scan the --devices list (or the system) and assemble the VGs.  On failure the
 * error is printed and LVX_EXIT_FAILED returned; 0 on success. */
int lvx_cmd_load(struct lvx_cmd_env *env, struct lvx_cmd_vgs *out);
void lvx_cmd_unload(struct lvx_cmd_vgs *v);

/* VGs named on the command line (all VGs when names == NULL / count 0).  A name
 * not found prints "Volume group "x" not found" and sets *failed.  The array lives
 * in env->pool. */
/* vgs[0..n) put in the order LVM2 processes VGs when none is named (its lvmcache list:
 * each VG put first as the label scan finds it, the scan going up by device number, so
 * the VG whose first in-use metadata area lies on the highest device comes first):
 * what every read command prints when no VG is named (fullreport, reports, displays,
 * scans), and the order of PVs' VGs even when PVs are named. */
void lvx_cmd_vgs_lvm2_order(struct lvx_vg **vgs, unsigned n);
/* vgs[0..n) in the order LVM2 processes the VGs of LV arguments (names[0..count)):
 * the VGs the arguments name in the arguments' order, then the others (selected by a
 * tag) in its lvmcache order. */
void lvx_cmd_vgs_arg_order(struct lvx_vg **vgs, unsigned n, char **names, unsigned count);
struct lvx_vg **lvx_cmd_pick_vgs(struct lvx_cmd_env *env, const struct lvx_cmd_vgs *v,
                                 char **names, unsigned count, unsigned *out_count, bool *failed);
/* The VGs a changing command's arguments stand for: the arguments as given, "@tag"
 * replaced by the VGs with the tag, every VG when there are no arguments (a scan is
 * made only for tags or no arguments).  In env->pool; NULL when the scan failed
 * (printed). */
char **lvx_cmd_vg_names(struct lvx_cmd_env *env, unsigned *count);
/* The LV arguments of a changing command, "@tag" replaced by "VG/LV" for each visible
 * LV with the tag (all of a VG with the tag); the arguments themselves when there is
 * no tag (no scan).  In env->pool; NULL when the scan failed (printed). */
char **lvx_cmd_lv_args(struct lvx_cmd_env *env, unsigned *count);

/* PVs named on the command line (all when count == 0), as VGs narrowed to those PVs
 * plus orphans.  Unknown names print LVM2's message and set *failed. */
struct lvx_cmd_pvsel {
    struct lvx_vg **vgs;
    unsigned vg_count;
    struct lvx_pv **orphans;
    unsigned orphan_count;
};
void lvx_cmd_pick_pvs(struct lvx_cmd_env *env, const struct lvx_cmd_vgs *v, char **names,
                      unsigned count, struct lvx_cmd_pvsel *out, bool *failed);

/* LVs named on the command line as "VG" or "VG/LV" (also "/dev/VG/LV"); all VGs when
 * count == 0.  VGs narrowed to the named LVs; only_named is true when every VG was
 * selected through LV names (hidden LVs named explicitly are then shown).  Unknown
 * names print LVM2's messages and set *failed. */
struct lvx_cmd_lvsel {
    struct lvx_vg **vgs;
    unsigned vg_count;
    bool only_named;
};
void lvx_cmd_pick_lvs(struct lvx_cmd_env *env, const struct lvx_cmd_vgs *v, char **names,
                      unsigned count, struct lvx_cmd_lvsel *out, bool *failed);

/* --- output routing (common.c) ---------------------------------------------
 * The dispatcher binds the running command's context; lvx_cmd_errorf(), lvx_cmd_output()
 * and prompts then go through its callbacks (out_fn, log_fn, ask_fn), else stdout/stderr.
 * Returns the previously bound context (NULL if none). */
struct lvx_ctx *lvx_cmd_bind_ctx(struct lvx_ctx *ctx);
struct lvx_ctx *lvx_cmd_bound_ctx(void);
/* The binary's log sink: LVM2's layout ("  msg"; NOTICE on stdout, the rest on stderr). */
void lvx_cmd_log_stdio(void *arg, int level, const char *msg);
/* A warning LVM2 prints without the "WARNING: " prefix (devices file messages). */
bool lvx_cmd_plain_warning(const char *msg);
/* The command log's position (cmd/cmdlog.h) of VG vg in a read walk over the arguments
 * names: the first argument naming it (VG, VG/LV, /dev/VG/LV), else after them all at
 * fallback. */
unsigned long lvx_cmd_vg_arg_key(char **names, unsigned count, const char *vg, unsigned fallback);
/* An exported VG that the running command leaves out when the VG is not named (every
 * command but those LVM2 lets read exported VGs: vgs, pvs, vgimport, vgrename, ...). */
bool lvx_cmd_skips_exported(const struct lvx_cmd_env *env, const struct lvx_vg *vg);
/* An error line printed without indentation (getopt-style messages). */
void lvx_cmd_error_raw(const char *msg);
/* Write bytes of command output (0, or LVX_EXIT_FAILED after a message). */
int lvx_cmd_write(const char *data, size_t len);
/* When the bound context has a prompt callback, ask it (true, answer in *answer);
 * false when prompts should use the terminal (stdin/stdout) as before. */
bool lvx_cmd_ask_hook(const char *question, bool *answer);

/* Print ctx's recorded error as LVM2 does ("  <msg>" on stderr) and return
 * LVX_EXIT_FAILED. */
int lvx_cmd_fail(struct lvx_cmd_env *env);
/* Print a formatted error line ("  <msg>" on stderr). */
void lvx_cmd_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write a buffer to stdout (returns LVX_EXIT_FAILED with a message on a write error). */
int lvx_cmd_output(const struct lvx_buf *b);

/* Display-style size ("4.00 MiB", "<101.00 MiB", "4194304 B ", "8192 Se", "0   ")
 * with --units semantics (0 = 'h'). */
void lvx_cmd_display_size(struct lvx_buf *out, uint64_t sectors, char units, uint64_t unit_bytes);
/* Same, returned as a string in pool. */
const char *lvx_cmd_size_str(struct lvx_pool *pool, uint64_t sectors, char units,
                             uint64_t unit_bytes);

/* --- report_cmd.c: running a report for pvs/vgs/lvs (and display -C) ------ */
/* devs_used.c: LVM2's "Device mismatch detected" warning for the active LVs of these
 * VGs that sit on devices which are not the VG's PVs (report commands). */
void lvx_cmd_check_devs_used(struct lvx_cmd_env *env, struct lvx_vg *const *vgs, unsigned count);

/* Render a report from the command line's report options and print it. */
int lvx_cmd_report(struct lvx_cmd_env *env, int kind, struct lvx_vg *const *vgs, unsigned vg_count,
                   struct lvx_pv *const *orphans, unsigned orphan_count, bool all);
/* The report options of a command line (-o, -O, -S, --units, --reportformat, ...), with
 * lvm.conf's global/units, global/suffix, report/output_format where it has none. */
void lvx_cmd_report_opts(struct lvx_cmd_env *env, struct lvx_report_opts *o);
/* The -o arguments of a command line, one per line (struct lvx_report_opts.fields). */
const char *lvx_cmd_field_args(struct lvx_pool *pool, const struct lvx_cmd_args *a);
/* A shallow copy of vg whose PV (or LV) list is replaced; in env->pool. */
struct lvx_vg *lvx_cmd_vg_with_pvs(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                   struct lvx_pv **pvs, unsigned count);
struct lvx_vg *lvx_cmd_vg_with_lvs(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                                   struct lvx_lv **lvs, unsigned count);
/* lvx_detach_fork() for a command: 0 in the detached process, 1 in the command, -1
 * after printing why the fork failed. */
int lvx_cmd_detach(void);
/* Append to argv[k...] the options that say where a command looks (--devices,
 * --config) as this command line gave them, for this program run again in the
 * background; the new k. */
unsigned lvx_cmd_scope_args(struct lvx_cmd_env *env, const char **argv, unsigned k);
/* Does a device name given on the command line name this device path? */
bool lvx_cmd_same_device(const char *given, const char *path);
/* LVM2's reason for "Cannot use NAME: <reason>" when the scan refuses a device named on
 * the command line (meta/scan.h: lvx_scan_judge_named: an LV, outside --devices, rejected
 * by lvm.conf's filters), else NULL (also for a name that is no device). */
const char *lvx_cmd_named_refusal(struct lvx_cmd_env *env, const char *name);
/* A VG or LV argument as LVM2's skip_dev_dir reads it: "DIR/vg/lv" -> "vg/lv" and
 * "DIR/mapper/vg-lv" -> "vg/lv" ("--" inside a name is '-'), DIR being /dev or lvm.conf
 * devices/dir; other arguments unchanged. */
const char *lvx_cmd_skip_dev_dir(struct lvx_cmd_env *env, const char *arg);
/* An lvm.conf number read as a flag (non-zero = true); dflt when the configuration
 * cannot be read. */
bool lvx_cmd_config_flag(struct lvx_cmd_env *env, const char *path, bool dflt);

/* --- display commands (pvdisplay.c, lvdisplay.c) --------------------------- */
/* -c excludes -s; report options need -C.  0, or the exit code after the message. */
int lvx_cmd_display_check_args(struct lvx_cmd_env *env);
/* lvdisplay's full block of one LV (with its segments when maps is set); used by
 * vgdisplay -v too.  act (cmd/actcmd.h, lvx_actcmd_init()) gives the lines that need
 * the LV's device: none when activation is off, "NOT available" when inactive. */
struct lvx_actcmd;
void lvx_cmd_display_lv_full(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             struct lvx_buf *b, const struct lvx_lv *lv, bool maps);
/* Is the LV's device open (vgdisplay's "Open LV")? false without a backend. */
bool lvx_cmd_display_lv_open(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             const struct lvx_lv *lv);

/* The VG's LVs in the order LVM2's display commands show them: thin pools first,
 * then the others, each group in VG order.  Array in pool. */
const struct lvx_lv **lvx_cmd_display_order(struct lvx_pool *pool, const struct lvx_vg *vg,
                                           unsigned *count);

/* "/dev/<vg>/<lv>" */
const char *lvx_cmd_lv_path(struct lvx_pool *pool, const struct lvx_lv *lv);
/* The PV's device name, "[unknown]" when its device is missing. */
const char *lvx_cmd_pv_name(const struct lvx_pv *pv);
/* PV size in sectors as LVM2 reports pv_size (text dev_size, else device size). */
uint64_t lvx_cmd_pv_size(const struct lvx_pv *pv);

/* The metadata profile the command line names: --metadataprofile, or --profile of the
 * commands that attach one (vgcreate, vgchange, lvcreate, lvchange, lvconvert, as
 * LVM2); NULL when none.  The dispatcher checked it before the command ran. */
const char *lvx_cmd_metadata_profile(const struct lvx_cmd_env *env);
/* Whether the command's --profile is a metadata profile (the commands above). */
bool lvx_cmd_attaches_profile(const struct lvx_cmd_env *env);

/* The value of a BOOL option (y|n), or dflt when the command line did not give it. */
bool lvx_cmd_bool(const struct lvx_cmd_env *env, enum lvx_opt_id id, bool dflt);
/* Apply the command line's --addtag values, then its --deltag values (validated and
 * without '@' by the parser) to tags; true when tags changed. */
bool lvx_cmd_apply_tags(const struct lvx_cmd_env *env, struct lvx_pool *pool,
                        struct lvx_strlist *tags);
/* Did the command line give --addtag or --deltag? */
bool lvx_cmd_has_tag_changes(const struct lvx_cmd_env *env);

#endif
