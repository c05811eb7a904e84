/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/update.h - the life of a change to a VG, as every writing command runs it:
 *   begin:  lock (global and/or VG, exclusive), scan, assemble, find the VG, render
 *           the archive text of the current version;
 *   (the caller changes update->vg in memory)
 *   commit: archive the old version, three-phase commit (meta/commit.c), backup the
 *           new version (LVM2's <system_dir>/archive and /backup, lvm.conf backup settings);
 *   end:    free everything and unlock.
 * Commands creating a VG (vgcreate) use begin with vgname NULL and set update->vg.
 */
#ifndef LVX_META_UPDATE_H
#define LVX_META_UPDATE_H

#include <stdbool.h>

#include "meta/lock.h"
#include "meta/scan.h"
#include "model/model.h"
#include "util/buf.h"

enum {
    LVX_UPDATE_GLOBAL_LOCK   = 1u << 0,  /* also take P_global (orphans, VG names) */
    LVX_UPDATE_ALLOW_MISSING = 1u << 1,  /* proceed when PVs of the VG are missing */
    LVX_UPDATE_READ_ONLY     = 1u << 2,  /* shared locks, no commit (vgck without repair) */
    LVX_UPDATE_NO_VG_LOCK    = 1u << 3,  /* vgname given but lock it later (vgrename) */
    /* A session (meta/cache.h) may hand over the VG as the previous command's commit left
     * it, and keep this one's after its commit: for callers whose last change to the VG
     * is always a commit (LV commands; --test never reaches lvx_vg_update_commit). */
    LVX_UPDATE_KEEP_SET      = 1u << 4,
    LVX_UPDATE_ALLOW_EXPORTED = 1u << 5, /* an exported VG may be changed (vgimport) */
    /* The command takes the global lock but looks at orphans only through the devices
     * it names (scan_opts->also_devices: vgextend) or not at all (vgreduce): the VG is
     * read through the device index (meta/index.h) as without the global lock. */
    LVX_UPDATE_NAMED_ORPHANS = 1u << 6,
    /* read a shared VG without its lease and without LVM2's warning (--lockstart), or
     * change it so (vgchange --locktype none --lockopt force: recovery) */
    LVX_UPDATE_LOCKD_UNLOCKED = 1u << 7,
    LVX_UPDATE_ALLOW_FOREIGN = 1u << 8,  /* a foreign VG is not refused (the caller
                                          * decides: activation, with its active LVs) */
};

struct lvx_vg_update {
    unsigned flags;
    struct lvx_lock global_lock;
    struct lvx_lock vg_lock;
    int lockd_hold;             /* a shared VG's lease (meta/lockd.h), 0: none */
    struct lvx_scan *scan;
    struct lvx_vgset *set;
    struct lvx_vg *vg;          /* the VG being changed (in set's pool), or one the caller built */
    struct lvx_buf archive_text;/* FILE layout of the version found at begin */
    uint32_t old_seqno;
    char (*old_pv_uuids)[LVX_UUID_LEN + 1]; /* PVs of the version found at begin: those the */
    unsigned old_pv_count;                  /* commit no longer lists are detached first */
    bool committed;             /* KEEP_SET: the last commit succeeded, set may be kept */
    struct lvx_ctx *ctx;        /* set by begin and commit: end prints what is due */
};

int lvx_vg_update_begin(struct lvx_ctx *ctx, const struct lvx_scan_opts *scan_opts,
                        const char *vgname, unsigned flags, struct lvx_vg_update *u);
/* Archive, commit, backup.  command_line: the command as typed ("vgextend vg1 /dev/sdc"). */
int lvx_vg_update_commit(struct lvx_ctx *ctx, struct lvx_vg_update *u, const char *command_line);
/* Unlock and free; then LVM2's "WARNING: This metadata update is NOT backed up."
 * when a commit of this command was not backed up (once per command, as LVM2 prints
 * it when it unlocks the VG). */
void lvx_vg_update_end(struct lvx_vg_update *u);
/* The checks begin makes on the VG it changes (missing PVs unless ALLOW_MISSING,
 * exported unless ALLOW_EXPORTED, read-only, shared), for a second VG a command changes
 * (vgsplit, vgmerge).  0 or a negative errno with LVM2's message. */
int lvx_vg_update_check(struct lvx_ctx *ctx, const struct lvx_vg *vg, unsigned flags);

/* Write the backup file of vg (unless disabled by lvm.conf backup/backup = 0). */
int lvx_vg_write_backup(struct lvx_ctx *ctx, const struct lvx_vg *vg, const char *command_line);
/* --test: no backup written, but the "NOT backed up" warning made due when lvm.conf
 * disables backups, as LVM2 warns before it skips a test-mode backup. */
void lvx_vg_backup_skipped(struct lvx_ctx *ctx);
/* Print the "NOT backed up" warning now if it is due (commands where LVM2 prints it
 * before their own message: vgcreate, vgrename, vgmerge, vgsplit, pvchange). */
void lvx_vg_backup_warning(struct lvx_ctx *ctx);
/* Remove the backup file of a VG that no longer exists under that name (vgremove,
 * vgrename), in lvm.conf's backup/backup_dir. */
void lvx_vg_remove_backup(struct lvx_ctx *ctx, const char *vgname);
/* Archive the version found at begin now (what a commit does first), for commands
 * that remove the VG instead of committing it (vgremove of a VG with LVs, so that
 * vgcfgrestore can bring them back).  Failures only warn, as in a commit. */
void lvx_vg_update_archive(struct lvx_ctx *ctx, struct lvx_vg_update *u,
                           const char *command_line);
/* Make old the version this update replaces (begin does it with the VG it read;
 * vgcfgrestore with the VG on disk that a backup file replaces): the commit detaches
 * the PVs old has and the new version lacks, and archives old's text. */
void lvx_vg_update_set_old(struct lvx_ctx *ctx, struct lvx_vg_update *u, const struct lvx_vg *old);
/* After a commit, for another commit in the same update: the version just written is
 * the one the next commit archives (LVM2 archives before each write: pvchange of
 * several PVs of one VG). */
void lvx_vg_update_archive_next(struct lvx_ctx *ctx, struct lvx_vg_update *u);

#endif
