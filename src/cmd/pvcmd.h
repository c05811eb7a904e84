/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvcmd.h - helpers shared by the PV commands (pvcreate.c, pvremove.c,
 * pvchange.c, pvresize.c), implemented in cmd/pv_common.c: LVM2-style size, y|n
 * and number arguments, confirmation prompts, the devices named on the command
 * line, and the VG/orphan classification of named PVs.
 */
#ifndef LVX_CMD_PVCMD_H
#define LVX_CMD_PVCMD_H

#include <stdbool.h>
#include <stdint.h>

#include "cmd/commands.h"
#include "meta/scan.h"

/* The value of size option `id` in bytes (whole sectors, truncated as LVM2), left
 * unchanged when the option is absent. */
void lvx_pvcmd_size_opt(struct lvx_cmd_env *env, enum lvx_opt_id id, uint64_t *bytes);
/* Unsigned number option in [0, max] (left unchanged when absent).  0 or LVX_EXIT_INVALID. */
int lvx_pvcmd_uint_opt(struct lvx_cmd_env *env, enum lvx_opt_id id, unsigned max, unsigned *out);

/* The layout options of a new PV (pvcreate, and the implicit pvcreate of vgcreate and
 * vgextend): --metadatasize, --dataalignment, --dataalignmentoffset into req, else
 * lvm.conf metadata/pvmetadatasize (sectors) and devices/data_alignment (KiB).  0, or
 * LVX_EXIT_INVALID after LVM2's message for an alignment of 2^32 sectors or more. */
struct lvx_pv_layout_req;
int lvx_pvcmd_layout_opts(struct lvx_cmd_env *env, struct lvx_pv_layout_req *req);

/* Ask a yes/no question: true with -y; on a terminal the question is asked on stdout
 * and answered from stdin; otherwise false (nothing printed). */
bool lvx_pvcmd_confirm(struct lvx_cmd_env *env, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Devices named on the command line, read by one scan (labels + metadata).  devs[i]
 * is the scanned device of names[i]; spvs[i] its label (NULL when it carries none). */
struct lvx_pvcmd_devs {
    struct lvx_scan *scan;
    unsigned count;
    struct lvx_dev **devs;
    struct lvx_scan_pv **spvs;
};
/* Every name must exist ("No device found for X." otherwise, LVX_EXIT_FAILED after
 * all names were checked).  0 or an exit code. */
int lvx_pvcmd_scan_named(struct lvx_cmd_env *env, char **names, unsigned count,
                         struct lvx_pvcmd_devs *out);
void lvx_pvcmd_devs_free(struct lvx_pvcmd_devs *d);

/* The PVs named on the command line (or every PV with `all`), classified after an
 * unlocked read: the names of the VGs holding some of them, and which names are
 * orphan PVs.  Unknown names print LVM2's message and set *failed. */
struct lvx_pvcmd_targets {
    unsigned vg_count;
    const char **vg_names;       /* distinct, in env->pool */
    unsigned orphan_count;
    const char **orphan_names;   /* device names of orphan PVs, in env->pool */
    unsigned pv_count;           /* PVs in VGs */
    const char **pv_names;       /* device names of PVs in VGs */
    char **pv_uuids;             /* their raw UUIDs */
};
int lvx_pvcmd_classify(struct lvx_cmd_env *env, char **names, unsigned count, bool all,
                       struct lvx_pvcmd_targets *out, bool *failed);

/* What a PV command did to the PVs it named (its closing "N physical volume(s) ..." line). */
struct lvx_pvcmd_count {
    unsigned changed, unchanged;
    bool failed;
};

/* Change one orphan PV (name, its scanned label or NULL, the command's arg): true when
 * changed, false after printing why not. */
typedef bool (*lvx_pvcmd_orphan_fn)(struct lvx_cmd_env *env, const char *name,
                                    struct lvx_scan_pv *spv, const void *arg);
/* Apply fn to every orphan PV of t under the global lock, after one scan of them,
 * printing "Physical volume \"X\" changed" for each change and counting into cnt. */
void lvx_pvcmd_change_orphans(struct lvx_cmd_env *env, const struct lvx_pvcmd_targets *t,
                              lvx_pvcmd_orphan_fn fn, const void *arg,
                              struct lvx_pvcmd_count *cnt);

/* Scan options of the command (--devices or the system). */
struct lvx_scan_opts lvx_pvcmd_scan_opts(const struct lvx_cmd_env *env);

/* The command line as one string ("pvchange -x n /dev/sdb"), for metadata descriptions. */
const char *lvx_pvcmd_command_line(struct lvx_cmd_env *env);

#endif
