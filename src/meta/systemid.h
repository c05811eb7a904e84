/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/systemid.h - system IDs (lvmsystemid(7)): the local host's ID from lvm.conf
 * global/system_id_source (none, lvmlocal: local/system_id, uname, machineid:
 * <global/etc>/machine-id, file: global/system_id_file), local/extra_system_ids,
 * and the rule a VG's system_id line puts on its use: a VG without one is anyone's, a
 * VG with one is this host's when the IDs match (or the VG's is an extra ID), else it
 * is foreign: left out of lists, refused by name and for changes, unless a report or
 * vgcfgbackup asks with --foreign.
 */
#ifndef LVX_META_SYSTEMID_H
#define LVX_META_SYSTEMID_H

#include <stdbool.h>

#include "meta/scan.h"
#include "model/model.h"
#include "util/ctx.h"
#include "util/pool.h"

#define LVX_SYSTEM_ID_MAX 128

/* The local system ID in pool ("" when the source is none or gave nothing).
 * *unknown (may be NULL) is set when a source other than none gave no ID: then no VG
 * with a system ID is this host's.  LVM2's warnings (no ID found, unrecognised
 * source, ...) are logged the first time per context. */
const char *lvx_system_id_local(struct lvx_ctx *ctx, struct lvx_pool *pool, bool *unknown);

/* A system ID as LVM2 takes it from a user or file: leading characters up to the first
 * letter or digit dropped, then only [A-Za-z0-9._+-] kept, at most 128 of them.
 * "" for an empty string (warned: "Empty system ID supplied."); NULL, warned, when
 * nothing valid is left or it begins with "localhost". */
const char *lvx_system_id_clean(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *str);

/* Is a VG with this system ID (NULL or "" = none) this host's? */
bool lvx_system_id_allowed(struct lvx_ctx *ctx, const char *vg_system_id);

/* Is vg foreign (a system ID that is not this host's)? */
bool lvx_vg_is_foreign(struct lvx_ctx *ctx, const struct lvx_vg *vg);

/* The local system ID is unknown: no source (none), or the source gave none. */
bool lvx_system_id_unknown(struct lvx_ctx *ctx);

/* LVM2's refusal of a foreign VG ("Cannot access VG X with system ID S with local
 * system ID L." / "... with unknown local system ID."), recorded: -EPERM. */
int lvx_vg_foreign_error(struct lvx_ctx *ctx, const struct lvx_vg *vg);
/* The same for a change: with an unknown local ID LVM2 says it twice (its read, then its
 * refusal), the first logged here. */
int lvx_vg_foreign_refuse(struct lvx_ctx *ctx, const struct lvx_vg *vg);

/* The VG a name stands for in set: the one of that name (or raw/dashed UUID); when
 * several share the name, the one of them that is not foreign (LVM2 prefers the local
 * VG).  NULL when none, or when the name is ambiguous (*dup set: several local ones,
 * or only foreign ones). */
struct lvx_vg *lvx_vgset_find_usable(struct lvx_ctx *ctx, const struct lvx_vgset *set,
                                     const char *name, bool *dup);
/* LVM2's refusal of an ambiguous VG name: "Multiple VGs found with the same name:
 * skipping X" logged, "Use --select vg_uuid=<uuid> in place of the VG name." recorded
 * (-EEXIST). */
int lvx_vg_dup_name_error(struct lvx_ctx *ctx, const char *name);

#endif
