/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/backup.h - LVM2 backup files (lvm2-format.md §14): the VG text in file layout,
 * written atomically (temporary file in the same directory, fsync, rename, fsync of
 * the directory), mode 0600 like LVM2's.
 *
 * Used by `lvx vgcfgbackup [-f FILE] [VG]` and by the commit path (backup after a
 * change).  Paths: <system_dir>/backup/<vg>, system_dir = $LVM_SYSTEM_DIR or /etc/lvm.
 */
#ifndef LVX_META_BACKUP_H
#define LVX_META_BACKUP_H

#include <stdbool.h>

#include "util/ctx.h"
#include "util/pool.h"
#include "model/model.h"

/* Write vg to path in backup-file layout; `description` goes in the header block
 * (the command line for vgcfgbackup, "Created *after* executing '...'" for backups). */
int lvx_backup_write_file(struct lvx_ctx *ctx, const struct lvx_vg *vg, const char *path,
                          const char *description);

/* $LVM_SYSTEM_DIR, else "/etc/lvm" (static storage / environment). */
const char *lvx_backup_system_dir(void);
/* "<system_dir>/backup" in pool. */
char *lvx_backup_dir(struct lvx_pool *pool);
/* "<system_dir>/backup/<vg_name>" in pool. */
char *lvx_backup_default_path(struct lvx_pool *pool, const char *vg_name);
/* Create a directory (and missing parents) with mode 0700; 0 if it already exists. */
int lvx_backup_make_dir(struct lvx_ctx *ctx, const char *dir);

/* Expand a `vgcfgbackup -f` template: every "%s" becomes the VG name, "%%" a '%';
 * any other '%' sequence is -EINVAL with a message.  *out in pool. */
int lvx_backup_expand_name(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *tmpl,
                           const char *vg_name, char **out);
/* True if the template contains "%s" (needed when backing up several VGs to files). */
bool lvx_backup_template_has_vg(const char *tmpl);

/* Read a backup or archive file (a regular file of at most LVX_FILE_MAX_METADATA bytes)
 * and import its VG into pool (vgcfgrestore -f, pvcreate --restorefile).  0, or a
 * negative errno with the reason in ctx: the file's error, or (*bad_text set) why the
 * text is no VG metadata. */
int lvx_backup_read(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *path,
                    struct lvx_vg **out, bool *bad_text);

#endif
