/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgcmd.h - helpers shared by the VG commands (vgcreate.c, vgextend.c,
 * vgreduce.c, vgremove.c, vgrename.c, vgchange.c, vgck.c, vgcfgrestore.c),
 * implemented in cmd/vg_common.c: option values (extent size, counts,
 * vgmetadatacopies, y|n), beginning an update with the error printed, and the PVs
 * named for vgcreate/vgextend (orphans; devices without a label get an implicit
 * pvcreate with default settings, as LVM2 2.03 does).
 *
 * Every function returning int returns 0 or an exit code (LVX_EXIT_*) after
 * printing one error line.
 */
#ifndef LVX_CMD_VGCMD_H
#define LVX_CMD_VGCMD_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/commands.h"
#include "meta/update.h"

/* A name for a new VG (vgcreate, vgrename) as LVM2 checks it: the name syntax, then no
 * file of that name in /dev ($DM_DEV_DIR): "mapper", "null", "shm", a device node or a
 * VG active under that name would otherwise get LV links among them.  0, or rc after
 * printing LVM2's message. */
int lvx_vgcmd_new_name(struct lvx_cmd_env *env, const char *name, int rc);

/* Scan options of the command (--devices or the system). */
struct lvx_scan_opts lvx_vgcmd_scan_opts(const struct lvx_cmd_env *env);
/* The command line as one string ("vgextend vg1 /dev/sdc"), in env->pool. */
const char *lvx_vgcmd_command_line(struct lvx_cmd_env *env);

/* lvx_vg_update_begin() with the error printed. */
int lvx_vgcmd_begin(struct lvx_cmd_env *env, const char *vgname, unsigned flags,
                    struct lvx_vg_update *u);
/* The command log (cmd/cmdlog.h): the UUID of the VG u begins to change. */
void lvx_vgcmd_log_id(const struct lvx_vg_update *u);
/* lvx_vg_update_commit() with the error printed. */
int lvx_vgcmd_commit(struct lvx_cmd_env *env, struct lvx_vg_update *u);

/* -s/--physicalextentsize (default unit MiB, §12.2 rules) into sectors; *out is left
 * unchanged when the option is absent. */
int lvx_vgcmd_extent_size(struct lvx_cmd_env *env, uint32_t *out);
/* Number option (left unchanged when absent). */
void lvx_vgcmd_uint_opt(struct lvx_cmd_env *env, enum lvx_opt_id id, uint32_t *out);
/* --vgmetadatacopies / --metadatacopies: N, "all" (*all set, *n = 0) or "unmanaged"
 * (*n = 0).  *given false when absent. */
int lvx_vgcmd_mda_copies(struct lvx_cmd_env *env, bool *given, uint32_t *n, bool *all);

/* The attributes of a new VG (vgcreate, vgsplit into a new VG): the caller sets the
 * defaults, lvx_vgcmd_settings() applies -l/-p, --vgmetadatacopies and --alloc (LVM2's
 * refusals: exit 3), lvx_vgcmd_new_vg() makes the VG (new UUID, seqno 0: the commit
 * writes 1). */
struct lvx_vgcmd_settings {
    uint32_t extent_size, max_lv, max_pv, mda_copies;
    bool mda_given, mda_all;
    enum lvx_alloc alloc;
};
int lvx_vgcmd_settings(struct lvx_cmd_env *env, struct lvx_vgcmd_settings *s);
struct lvx_vg *lvx_vgcmd_new_vg(struct lvx_pool *pool, const char *name,
                                const struct lvx_vgcmd_settings *s);


/*
 * Resolve the devices named for vgcreate/vgextend into orphan PVs of u->set
 * (out[i] for names[i], duplicates dropped, *out_count set).  Devices without a
 * label are made PVs first (implicit pvcreate, default layout), after which the
 * update's scan is redone (u->vg is looked up again by UUID).  Refuses - before
 * writing anything - unknown devices, PVs of a VG ("Physical volume '/dev/x' is
 * already in volume group 'vg0'") and devices carrying other signatures (unless
 * -y/-f).
 */
int lvx_vgcmd_orphans(struct lvx_cmd_env *env, struct lvx_vg_update *u, char **names,
                      unsigned count, struct lvx_pv ***out, unsigned *out_count);

/* lvm.conf devices/allow_mixed_block_sizes = 0 (LVM2's default), as LVM2's vgextend: the
 * new PVs' logical block size must be that of the VG's PVs (unless these differ among
 * themselves already): "Devices have inconsistent logical block sizes (A and B).",
 * exit 5.  (vgcreate's check of its devices is in lvx_vgcmd_orphans.) */
int lvx_vgcmd_check_block_sizes(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                                const struct lvx_vg *vg, struct lvx_pv **pvs, unsigned n);

/* Is lv active (an lvx_lv_active_fn, arg = env)?  Has vg an active LV?  false when no
 * activation backend answers. */
bool lvx_vgcmd_lv_active(const struct lvx_lv *lv, void *arg);
bool lvx_vgcmd_has_active_lv(struct lvx_cmd_env *env, const struct lvx_vg *vg);

/* vgchange --systemid (cmd/vgchange_systemid.c): the exit code. */
int lvx_vgchange_systemid(struct lvx_cmd_env *env);

/* vgexport/vgimport: VG names or -a, not both (LVM2's two forms). */
int lvx_vgcmd_export_args(struct lvx_cmd_env *env);
/* Set or clear EXPORTED on the VG and its PVs; the VG's system ID becomes system_id
 * (NULL: none; vgexport clears it, vgimport sets the local one). */
void lvx_vgcmd_set_exported(struct lvx_vg *vg, bool exported, const char *system_id);

/* Lock two different VG names exclusively in strcmp order (no deadlock between two
 * commands taking the same pair).  0 or the exit code (printed). */
int lvx_vgcmd_lock_pair(struct lvx_cmd_env *env, const char *a, const char *b, struct lvx_lock *la,
                        struct lvx_lock *lb);
/* LVM2's rules for moving PVs and LVs of `from` into the existing VG `to` (vgsplit into
 * an existing VG, vgmerge): no active LV in from, equal extent sizes, to's PV and LV
 * limits, no LV name in both.  0 or LVX_EXIT_FAILED after LVM2's message. */
int lvx_vgcmd_compatible(struct lvx_cmd_env *env, const struct lvx_vg *from, const struct lvx_vg *to);
/* The VG of that exact name in the set (not a UUID), or NULL. */
struct lvx_vg *lvx_vgcmd_find_named(const struct lvx_vgset *set, const char *name);

/* A VG argument without a leading "/dev/" (LVM2's skip_dev_dir). */
const char *lvx_vgcmd_skip_dev_dir(const char *name);

/* LVM2's refusals of a command line that fits none of the command's forms: "No command
 * with matching syntax recognised ..." (with the usage of a one-form command), and
 * "Command does not accept argument: ARG.".  LVX_EXIT_INVALID. */
int lvx_vgcmd_syntax(struct lvx_cmd_env *env, const char *usage);
int lvx_vgcmd_extra_arg(const char *arg);

#endif
