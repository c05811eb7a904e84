/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcmd.h - what the LV-changing commands share (cmd/lvcmd_common.c):
 * parsing of sizes ("-L +5m"), extent counts ("-l 50%FREE"), stripe options,
 * PV lists with PE ranges ("/dev/sdb:0-99:200-"), LV names in their VG/LV and
 * /dev/VG/LV forms; the activation refusal; begin/commit of a VG change with
 * the command line as description; writing zeros at the start of an LV
 * through its mapping (map/) and the I/O seam.
 *
 * Commands: lvcreate.c, lvresize.c (lvextend, lvreduce, lvresize), lvremove.c,
 * lvrename.c, lvchange.c, lvtable.c.
 */
#ifndef LVX_CMD_LVCMD_H
#define LVX_CMD_LVCMD_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/commands.h"
#include "meta/update.h"
#include "model/alloc.h"

/* A -L or -l argument as given. */
struct lvx_lvcmd_size {
    bool given;
    int sign;                      /* 0, +1 ("+5m"), -1 ("-5m") */
    bool in_extents;               /* -l */
    uint64_t value;                /* -L: sectors; -l: extents or percent */
    enum lvx_pct percent;          /* -l's percentage base (cmd/options.h) */
};

/* The -L or -l of the command line, as the option parser converted it (exactly one
 * may be given; none is an error when required; a minus sign only when allow_sign).
 * 0 or LVX_EXIT_INVALID (printed). */
int lvx_lvcmd_size_args(struct lvx_cmd_env *env, bool allow_sign, bool required,
                        struct lvx_lvcmd_size *out);

/* Stripe options: stripes (0 = not given) and stripe size in sectors (0 = not given);
 * checks the stripe size (power of two, >= 4 KiB) as LVM2.  0 or LVX_EXIT_INVALID. */
int lvx_lvcmd_stripe_args(struct lvx_cmd_env *env, uint32_t *stripes, uint32_t *stripe_size);

/* Allocation policy from --alloc and -C/--contiguous (*given false when neither).
 * 0 or LVX_EXIT_INVALID (printed). */
int lvx_lvcmd_alloc_arg(struct lvx_cmd_env *env, enum lvx_alloc *policy, bool *given);
/* The policy the allocator uses for lv (or a new LV whose policy is lv_policy). */
enum lvx_alloc lvx_lvcmd_effective_policy(const struct lvx_vg *vg, enum lvx_alloc lv_policy);

/* -a: true when the command line asks for activation (or does not say -a n and
 * activate_by_default).  Callers activate (cmd/actcmd.h) or refuse without a backend. */
bool lvx_lvcmd_wants_activation(struct lvx_cmd_env *env, bool activate_by_default);
/* Print the refusal and return LVX_EXIT_FAILED. */
int lvx_lvcmd_refuse_activation(void);

/* LVM2's activation/polling_interval (lvm.conf merged with --config; 15 when unset):
 * the seconds between a poll's looks when -i is not given. */
unsigned lvx_lvcmd_polling_interval(struct lvx_cmd_env *env);

/* -i/--interval [+]N seconds into *interval (left as it is when not given); 0 or
 * LVX_EXIT_INVALID after LVM2's message. */
int lvx_lvcmd_interval_arg(struct lvx_cmd_env *env, unsigned *interval);
/* The same, *plus set for "+N" (LVM2's poll: wait N seconds before the first look). */
int lvx_lvcmd_interval_sign(struct lvx_cmd_env *env, unsigned *interval, bool *plus);
/* -r auto|none|N[unit] (sectors by default): *ra 0 = auto, -1 = none (also for 0),
 * else sectors (rounded down to 4 KiB, at least 8, with LVM2's warning).
 * 0 or LVX_EXIT_INVALID (printed). */
int lvx_lvcmd_read_ahead_arg(struct lvx_cmd_env *env, bool *given, int64_t *ra);

/* Parse y|n (also yes/no) for option opt.  0 or LVX_EXIT_INVALID (printed). */
int lvx_lvcmd_yes_no(struct lvx_cmd_env *env, enum lvx_opt_id opt, bool dflt, bool *out);

/* Does lv match an lvm.conf activation list at key ("activation/read_only_volume_list"):
 * "VG", "VG/LV" or "@tag" (of the LV or its VG) entries, as LVM2.  false when unset. */
bool lvx_lvcmd_in_volume_list(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *key);
/* -aay: does lv pass activation/auto_activation_volume_list (true when it is not set)? */
bool lvx_lvcmd_passes_auto_list(struct lvx_ctx *ctx, const struct lvx_lv *lv);
/* lvm.conf activation/volume_list lets lv be activated (true when it is not set). */
bool lvx_lvcmd_passes_volume_list(struct lvx_ctx *ctx, const struct lvx_lv *lv);
/* A new LV that must be activated to be wiped (zeroed data, RAID metadata, thin pool
 * metadata) and that activation/volume_list keeps inactive: LVM2's two errors and
 * LVX_EXIT_FAILED, before anything is written; else 0. */
int lvx_lvcmd_refuse_unwipeable(struct lvx_cmd_env *env, const struct lvx_lv *lv);
/* Was the activation argument "ay" (-aay: autoactivation)? */
bool lvx_lvcmd_autoactivating(struct lvx_cmd_env *env);

/* PV list arguments ("PV[:PE[-PE]|:PE+N ...]", "@tag": the VG's PVs with the tag)
 * resolved in vg; pool env->pool.
 * 0 or LVX_EXIT_FAILED / LVX_EXIT_INVALID (printed). */
int lvx_lvcmd_pv_args(struct lvx_cmd_env *env, const struct lvx_vg *vg, char **args,
                      unsigned count, struct lvx_alloc_pv **out, unsigned *out_count);
/* Free extents of the listed PVs (all PVs when count == 0). */
uint64_t lvx_lvcmd_pvs_free(const struct lvx_free_maps *maps, const struct lvx_vg *vg,
                            const struct lvx_alloc_pv *pvs, unsigned count);

/* Split "VG/LV", "/dev/VG/LV" or "/dev/mapper/VG-LV" into names (in env->pool).  *lv is
 * NULL for a plain "VG".  false for something that is not a name at all. */
bool lvx_lvcmd_split_name(struct lvx_cmd_env *env, const char *arg, const char **vg,
                          const char **lv);

/* Every positional argument of an LV command (lvremove, lvchange) is a name
 * lvx_lvcmd_split_name() takes?  0, or LVM2's message for the first that is not
 * ("\"a/b/c\": Invalid path for Logical Volume.") and LVX_EXIT_FAILED: as LVM2, a
 * command line with such an argument changes nothing, not even the valid ones. */
int lvx_lvcmd_check_names(struct lvx_cmd_env *env);

/* The command line as typed ("lvcreate -an -L 4m vg1"), in env->pool. */
const char *lvx_lvcmd_command_line(struct lvx_cmd_env *env);

/* -M/--persistent, --minor, -j/--major (lvcreate, lvchange), with LVM2's rules and
 * messages: -My needs --minor, -Mn refuses both, a supplied major is ignored (the kernel
 * assigns it), the minor must fit 20 bits.  LVM2 checks them once the VG is read:
 * failures exit 5.  *fixed: a persistent minor was asked for (*major, *minor). */
int lvx_lvcmd_persistent_args(struct lvx_cmd_env *env, bool *fixed, int64_t *major,
                              int64_t *minor);
/* Begin a change of VG vgname (lock, scan, find).  0 or LVX_EXIT_FAILED (printed). */
int lvx_lvcmd_begin(struct lvx_cmd_env *env, const char *vgname, struct lvx_vg_update *u);
/* The same with more LVX_UPDATE_* flags (e.g. ALLOW_MISSING). */
int lvx_lvcmd_begin_flags(struct lvx_cmd_env *env, const char *vgname, unsigned flags,
                          struct lvx_vg_update *u);
/* Commit (or, with --test, only say so).  0 or LVX_EXIT_FAILED (printed). */
int lvx_lvcmd_commit(struct lvx_cmd_env *env, struct lvx_vg_update *u);

/* Free maps of u->vg in env->pool.  0 or LVX_EXIT_FAILED (printed). */
int lvx_lvcmd_free_maps(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                        struct lvx_free_maps **maps);
/* Allocate req; with `approx` (percentage sizes) take as many extents as can be placed,
 * up to req->extents, in multiples of req->stripes (req->extents is set to the count
 * taken).  maps must be fresh maps of vg.  0 or negative errno (ctx message). */
int lvx_lvcmd_allocate(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                       struct lvx_free_maps *maps, struct lvx_alloc_request *req, bool approx,
                       struct lvx_alloc_result *res);

/* Wipe the signatures libblkid finds at the start of lv (its first run of sectors on
 * one PV), each with LVM2's line "Wiping TYPE signature on /dev/VG/LV.", and flush.
 * 0 or negative errno (ctx message). */
int lvx_lvcmd_wipe_signatures(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                              const struct lvx_lv *lv);

/* lvcmd_zero_meta.c: a new pool metadata LV cleared as LVM2 clears it: all of it
 * with allocation/zero_metadata (default on), else its first 4 KiB; flushed.  0 or
 * negative errno (ctx message). */
int lvx_lvcmd_zero_metadata(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                            const struct lvx_lv *lv);

/* Write `len` zero bytes at the start of lv through its mapping (map/) and the I/O
 * seam of u's scan, and flush.  0 or negative errno (ctx message). */
int lvx_lvcmd_zero_start(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                         const struct lvx_lv *lv, uint64_t len);

/* Which reserved part a name has, as LVM2 words it: "Names starting \"snapshot\" are
 * reserved..." -- prints the message and returns true when lvx_lv_name_reserved(). */
bool lvx_lvcmd_name_reserved(const char *name);
/* Checks a new LV name: valid syntax, not reserved, not taken in vg.  0 or the exit
 * code after printing LVM2's message. */
int lvx_lvcmd_check_new_name(const struct lvx_vg *vg, const char *name);

/* Size as LVM2 prints it in these messages ("8.00 MiB"), in env->pool. */
const char *lvx_lvcmd_size(struct lvx_cmd_env *env, uint64_t sectors);

/* extents rounded up to a multiple of stripes (more than one), with LVM2's
 * "Rounding size ... up to stripe boundary size ..." note when they change;
 * extent_size in sectors. */
uint64_t lvx_lvcmd_round_to_stripes(struct lvx_cmd_env *env, uint64_t extents,
                                    uint32_t stripes, uint64_t extent_size);

/* The name of a new LV given none: "lvol<N+1>" for the highest N of the VG's names that
 * start "lvol<N>" (lvol0_pmspare too), as LVM2's generate_lv_name. */
const char *lvx_lvcmd_next_lvol(struct lvx_pool *pool, const struct lvx_vg *vg);

/* Ask "question [y/n]: " on stderr (LVM2's yes_no_prompt) and read the answer from
 * stdin: true for y/yes.  No answer (end of input) counts as no, shown as "[n]". */
bool lvx_lvcmd_confirm(const char *question);

/* LV-commands' refusal for LVs they cannot handle yet: true (and a message) when lv
 * is not a top-level linear/striped LV. */
bool lvx_lvcmd_refuse_complex(const struct lvx_lv *lv, const char *what);
/* LVM2's name of lv's type in its command definitions' refusals ("Command on LV VG/LV
 * does not accept LV type NAME."): snapshot, thin, thinpool, cachepool, mirror, else
 * the first segment's report type. */
const char *lvx_lvcmd_lv_type(const struct lvx_lv *lv);

/* A new LV named name in vg (the name copied into vg's pool): a fresh UUID, READ,
 * WRITE and VISIBLE, created at now (seconds) on this host, as LVM2 stamps it. */
struct lvx_lv *lvx_lvcmd_new_lv(struct lvx_vg *vg, const char *name, uint64_t now);

/* Take lv out of its VG, a RAID or mirror LV with its sub-LVs (rimage/rmeta; a mirror's
 * images and log, LVM2's resync layer with its own). */
void lvx_lvcmd_remove_lv(struct lvx_lv *lv);

#endif
