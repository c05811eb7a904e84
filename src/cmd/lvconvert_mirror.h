/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_mirror.h - lvconvert of old-style mirrors (cmd/lvconvert_mirror.c):
 * mirror -> linear, fewer images, more images, --mirrorlog core|disk, linear -> mirror,
 * as LVM2 does them.
 */
#ifndef LVX_CMD_LVCONVERT_MIRROR_H
#define LVX_CMD_LVCONVERT_MIRROR_H

#include "cmd/lvcmd.h"

struct lvx_mirror_conv {
    bool mirrors_given;
    uint32_t mirrors;
    int mirrors_sign;          /* -m +N / -m -N */
    const char *type;          /* "mirror", "linear", other, or NULL */
    bool core_log, disk_log;   /* --mirrorlog core (or --corelog) / disk */
    bool mirrored_log;         /* --mirrorlog mirrored (cmd/mirror_mlog.c) */
    uint32_t region_size;      /* sectors: -R or the default */
    uint32_t stripes;          /* --stripes of new images (linear -> mirror; 0 or 1: linear) */
    uint32_t stripe_size;      /* -I (sectors), 0: the default */
    enum lvx_alloc alloc;      /* --alloc of new images (LVX_ALLOC_INHERIT: the LV's) */
    char **pv_args;
    unsigned pv_arg_count;
    bool background;           /* -b: a poll goes to a detached lvpoll (cmd/mirror_poll.c) */
    unsigned interval;         /* -i N: seconds between a poll's looks */
    bool wait_first;           /* -i +N: the poll waits before its first look */
};

/* Convert lv (a mirror, or a linear LV with --type mirror) as c asks; the exit code
 * (messages printed). */
int lvx_lvconvert_mirror(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                         const struct lvx_mirror_conv *c);

/* A disk log NAME_mlog for lv's first segment (a mirror, or a raid1 becoming one), sized
 * for its region size, away from the images, on pvs or every PV, placed as
 * lvx_mirror_alloc_log places it with with_images (0: as --mirrorlog disk adds a log;
 * the LV's extents: as LVM2's raid1 -> mirror asks for it); set as the segment's log.
 * 0 or the exit code (printed). */
int lvx_mirror_add_log(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                       uint64_t with_images, const struct lvx_alloc_pv *pvs, unsigned pv_count);

/* More images for the mirror lv, up to `want`: NAME_mimage_<k> (k one above the highest), on
 * pvs (or any PV) holding none of its images nor its log, appended to its segment
 * (the collapsed layout; the caller zeroes the log's header of an inactive LV so that
 * every region is copied again, the daemon copies the new images of an active one);
 * missing PVs are no candidates.  No room gets the lines of LVM2's add_mirror_images
 * (no LV named), and with_logs new logs to be added with the images (a repair's) need
 * PVs of their own among the candidates (LVM2 allocates them together).  0 or the
 * exit code (printed). */
int lvx_mirror_add_images(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                          uint32_t want, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                          uint32_t with_logs);

/* The mirror lv becomes linear: it takes its first image's segments; the other images
 * and the log go. */
void lvx_mirror_to_linear(struct lvx_lv *lv);

/* The linear lv becomes a mirror of `images` images (its segments NAME_mimage_0), with
 * a disk log unless core_log, as lvconvert --type mirror places them on pvs (pv_count
 * 0: every PV a candidate).  0 or the exit code (printed). */
int lvx_mirror_from_linear(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                           uint32_t images, bool core_log, uint32_t region_size,
                           const struct lvx_alloc_pv *pvs, unsigned pv_count);

/* The change to the mirror (or once-mirror) lv committed; a new log (not old_log)
 * zeroed; when active (in the user backend: act's) staged before and swapped after,
 * the daemon copying new images from image 0.  0 or the exit code (printed). */
struct lvx_actcmd;
int lvx_mirror_commit_live(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                           const struct lvx_actcmd *act, struct lvx_lv *lv, bool active,
                           const struct lvx_lv *old_log);

/* An active mirror given new images: waits for its copy as LVM2's poll ("VG/LV:
 * Converted: 100.00%"), then, for a mirror with a log (LVM2's CONVERTING resync
 * layer collapsed), "Logical volume VG/LV converted.".  0 or the exit code. */
int lvx_mirror_poll_converted(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                              const struct lvx_lv *lv, bool with_log);

/* Does every area of img lie on a PV of pvs (n of them)? */
bool lvx_mirror_image_on(const struct lvx_lv *img, const struct lvx_alloc_pv *pvs, unsigned n);

/* Fewer images with PVs named: the images of lv wholly on them, from the last one down,
 * moved to the end (the last ones go), as LVM2's _remove_mirror_images; the first image
 * only when the mirror is in sync (or partial; else LVM2's words).  0 or the exit code
 * (printed). */
int lvx_mirror_removable_to_end(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                struct lvx_lv *lv, uint32_t count,
                                const struct lvx_alloc_pv *pvs, unsigned pv_count, bool active);

/* lvconvert --splitmirrors COUNT --name NAME of an active, in-sync mirror lv (LVM2's
 * lv_split_mirror_images): the last COUNT images (the last ones wholly on the PVs named)
 * leave the mirror, in their order, as the LV NAME, activated: linear for one image, else
 * a core-log mirror of them (NAME_mimage_0 the first one's segments, NAME_mimage_1...
 * the others); down to one image lv becomes linear, its log gone.  The exit code
 * (messages printed). */
int lvx_mirror_split(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                     uint32_t count, const char *name, bool track, char **pv_args,
                     unsigned pv_arg_count);

/* The sub-LVs of mirror lv (images, log, a mirrored log's images) into out (up to
 * LVX_RAID_CHANGE_MAX); none for a linear LV. */
unsigned lvx_mirror_subs(const struct lvx_lv *lv, struct lvx_lv **out);
/* lv active in the dm backend, changed in the model from the sub-LVs before[]: the
 * change committed and the LV reloaded (lvx_lvconvert_reload), new sub-LVs' devices
 * made, those that went taken down (a mirrored log before its images), moved[moved_n]
 * (images that left, now named otherwise) renamed from moved_old[].  0 or the exit
 * code. */
struct lvx_actcmd;
int lvx_mirror_reload_dm(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                         struct lvx_lv *lv, struct lvx_lv *const *before, unsigned before_n,
                         struct lvx_lv *const *moved, const char *const *moved_old,
                         unsigned moved_n);

#endif
