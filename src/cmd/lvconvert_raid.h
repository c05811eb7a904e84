/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_raid.h - changing the image count of raid1 LVs in the model, as LVM2
 * 2.03.16's raid_manip.c does it (cmd/lvconvert_raid.c): images added to a raid1 LV
 * or to a linear LV (which becomes raid1: its segments move to a new rimage_0 layer
 * and it gets an rmeta_0), images removed from a raid1 LV (down to linear: the layer
 * goes away).  No devices: the command (cmd/lvconvert.c) reloads the kernel.
 */
#ifndef LVX_CMD_LVCONVERT_RAID_H
#define LVX_CMD_LVCONVERT_RAID_H

#include "cmd/lvcmd.h"
#include "model/raid.h"

#define LVX_RAID_CHANGE_MAX (2 * LVX_RAID1_MAX_IMAGES + 2)

/* What a change did to the sub-LVs, for the kernel reload. */
struct lvx_raid_change {
    unsigned added_n;                      /* new sub-LVs (rmeta and rimage) */
    struct lvx_lv *added[LVX_RAID_CHANGE_MAX];
    unsigned gone_n;                       /* sub-LVs taken out of the VG */
    struct lvx_lv *gone[LVX_RAID_CHANGE_MAX];
    const char *gone_old[LVX_RAID_CHANGE_MAX];  /* their names while they were images */
    unsigned moved_n;                      /* images renamed by the shift down */
    struct lvx_lv *moved[LVX_RAID_CHANGE_MAX];
    const char *moved_old[LVX_RAID_CHANGE_MAX];
    /* a takeover (LVM2's _lv_update_reload_fns_reset_eliminate_lvs): after the swap
     * REBUILD is cleared on the images only (the rmeta keep theirs) and the LV is
     * committed and reloaded once more, so its table carries no rebuild */
    bool takeover;
};

/* A linear LV as LVM2's seg_is_linear(first_seg) sees it. */
bool lvx_raid_lv_is_linear(const struct lvx_lv *lv);
/* One above the highest N of "<lv_name>_<kind>_N" in the VG (LVM2's generate_lv_name). */
uint32_t lvx_raid_next_index(const struct lvx_vg *vg, const char *lv_name, const char *kind);
/* Images of a raid1 LV (1 for a linear LV). */
uint32_t lvx_raid_image_count(const struct lvx_lv *lv);

/* Sub-LVs of a raid LV that cannot be used (a missing PV or an error segment), as
 * LVM2's _lv_get_nr_failed_components counts them (per image). */
uint32_t lvx_raid_failed_images(const struct lvx_lv *lv);

/* Add images to lv (raid1 or linear) up to new_count, region_size the LV's region size
 * after the change (sectors).  pvs/pv_count: where the images may go (0 = every PV);
 * PVs the LV's images already use are never taken (those of its rmeta may be).  New sub-LVs carry REBUILD (the kernel
 * recovers them instead of resyncing the whole LV).  0 or negative errno (ctx). */
int lvx_raid_add_images(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                        struct lvx_lv *lv, uint32_t new_count, uint32_t region_size,
                        const struct lvx_alloc_pv *pvs, unsigned pv_count,
                        struct lvx_raid_change *ch);

/* How many PVs (of pvs, every PV when pv_count is 0) new images of lv may go to. */
unsigned lvx_raid_image_pv_count(struct lvx_cmd_env *env, const struct lvx_lv *lv,
                                 const struct lvx_alloc_pv *pvs, unsigned pv_count);

/* Remove images of raid1 lv down to new_count (1: the LV becomes linear), as LVM2
 * chooses them: images on error segments first, then the highest-numbered ones on the
 * PVs named (every PV when pv_count is 0); later images move down and are renamed.
 * 0 or negative errno (ctx). */
int lvx_raid_remove_images(struct lvx_cmd_env *env, struct lvx_lv *lv, uint32_t new_count,
                           const struct lvx_alloc_pv *pvs, unsigned pv_count,
                           struct lvx_raid_change *ch);

/* Replace the images (rmeta + rimage) that have a sub-LV on a PV of `remove`, a
 * failed sub-LV (missing PV, error segment) or, with dead (one flag per slot, NULL for
 * none), an image the kernel or the daemon reports dead ('D' in the status: LVM2's
 * lv_check_transient) by new ones allocated on pvs (0 = every PV) away from the PVs
 * the LV uses; each new pair takes the slot and names of the pair it replaces and
 * carries REBUILD (LVM2's _lv_raid_rebuild_or_replace, action "replace").  *replaced:
 * how many (0: nothing to do).  0 or negative errno (ctx: LVM2's message). */
int lvx_raid_replace_images(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                            struct lvx_lv *lv, const struct lvx_alloc_pv *remove, unsigned remove_n,
                            const bool *dead, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                            const char *action, struct lvx_raid_change *ch, uint32_t *replaced);

/* lvchange --rebuild: REBUILD set on the images (rmeta and rimage) with a sub-LV on a
 * PV of pvs, LVM2's refusals as for a replacement (action "rebuild").  *marked: how
 * many (0: none on those PVs).  0 or negative errno (ctx: LVM2's message). */
int lvx_raid_mark_rebuild(struct lvx_cmd_env *env, struct lvx_lv *lv,
                          const struct lvx_alloc_pv *pvs, unsigned pv_count, uint32_t *marked);

/* The commands' side (cmd/lvconvert.c), shared with lvchange --rebuild:
 * lv active and served by a backend that changes RAID LVs (its state in *ks), else
 * LVM2's message and the exit code; */
struct lvx_actcmd;
struct lvx_lv_kstate;
int lvx_lvconvert_need_active(struct lvx_cmd_env *env, struct lvx_actcmd *act,
                              const struct lvx_lv *lv, struct lvx_lv_kstate *ks);
/* new images (or images to rebuild) of an LV the daemon serves read-only are never
 * copied: the daemon writes nothing through such an LV, and reads only its in-sync
 * images.  0 when lv is not served read-only by act's user backend, else the error
 * printed and its exit code (called before any change); */
int lvx_lvconvert_refuse_read_only(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                   const struct lvx_lv *lv);
/* the kernel says the RAID LV is in sync (true for a non-RAID LV); */
bool lvx_lvconvert_in_sync(const struct lvx_lv *lv, const struct lvx_lv_kstate *ks);
/* a changed RAID LV reloaded as LVM2 does: new rmeta zeroed, devices renamed, the new
 * table staged, commit, swap, devices of sub-LVs that left removed, REBUILD flags
 * cleared by a second commit.  0 or the exit code (printed). */
int lvx_lvconvert_reload(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                         struct lvx_lv *lv, const struct lvx_raid_change *ch);

/* lvchange --rebuild PV... / --resync VG/LV... (cmd/lvchange_raid.c): the exit code. */
int lvx_lvchange_raid(struct lvx_cmd_env *env);

/* lvextend/lvreduce of a RAID LV (cmd/lvresize_raid.c): *new_count rounded up to the
 * data stripes (LVM2's line), every rimage grown (placed as LVM2 places a raid
 * extension, on pvs or every PV, policy resolved) or shrunk by its share, the rmeta
 * sub-LVs untouched.  0 or the exit code (printed).  Before it, the check of any LV
 * given to lvextend/lvreduce/lvresize: a RAID image or rmeta is refused, and lvreduce
 * (not lvresize) of a RAID LV wants a kernel whose dm-raid can shrink (LVM2's words). */
/* Image s of RAID lv grown by `extents` at its end, placed as a raid extension places
 * it (on pvs or every PV, never on a PV another image uses).  0 or the exit code. */
int lvx_raid_grow_image(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        uint32_t s, uint64_t extents, const struct lvx_alloc_pv *pvs,
                        unsigned pv_count, enum lvx_alloc policy);
/* lv cut to new_count extents from the end (cmd/lvresize.c). */
void lvx_lvresize_truncate(struct lvx_lv *lv, uint64_t new_count);
int lvx_lvresize_raid_check(struct lvx_cmd_env *env, const struct lvx_lv *lv, bool lvreduce);
int lvx_lvresize_raid(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      uint64_t *new_count, const struct lvx_alloc_pv *pvs, unsigned pv_count,
                      enum lvx_alloc policy);

/* mirror -> raid1 (LVM2's _convert_mirror_to_raid1): an rmeta for each image on the
 * image's own PVs (without REBUILD: the images are in sync), the log taken out, images
 * renamed _mimage_N -> _rimage_N, the segment raid1 with region_size.  ch: the rmeta
 * added, the log gone, the images moved (renamed).  0 or negative errno (ctx). */
int lvx_raid_from_mirror(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_free_maps *maps,
                         struct lvx_lv *lv, uint32_t region_size, struct lvx_raid_change *ch);
/* raid1 -> mirror without its log (LVM2's _convert_raid1_to_mirror): the rmeta taken
 * out (added to ch->gone), images renamed _rimage_N -> _mimage_N (ch->moved), the
 * segment mirror with region_size; the caller adds the log. */
void lvx_raid_to_mirror(struct lvx_lv *lv, uint32_t region_size, struct lvx_raid_change *ch);

/* mirror <-> raid1 of an active LV (cmd/lvconvert_takeover.c): the exit code. */
int lvx_lvconvert_takeover(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                           bool to_raid1, bool region_given, uint32_t region_size, bool yes,
                           char **pv_args, unsigned pv_arg_count);

/* --type striped|raid0|raid0_meta between striped, raid0 and raid0_meta LVs
 * (cmd/lvconvert_raid0.c): is this such a takeover (lv striped with 2+ stripes, raid0
 * or raid0_meta; type the other kind)?  Then the command: the exit code. */
bool lvx_raid0_takeover_wanted(const struct lvx_lv *lv, const char *type);
int lvx_lvconvert_raid0(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        const char *to, bool yes, char **pv_args, unsigned pv_arg_count);

/* For the takeovers to and from raid4/5/6/10 (cmd/lvconvert_parity.c), from
 * cmd/lvconvert_raid0.c: a striped or raid0 lv made raid0_meta as LVM2 does it
 * (rimages, then rmeta; LVM2's checks of a striped LV, printed: the exit code); a
 * raid0_meta lv (the rimages holding the stripes) made `to` (raid0_meta, raid0 or
 * striped: rmeta and rimages dropped into ch; 0 or the exit code); LVM2's list of the
 * types a raid0* or striped LV converts to. */
int lvx_raid0_to_meta(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                      const struct lvx_alloc_pv *pvs, unsigned pv_count, struct lvx_raid_change *ch);
int lvx_raid0_from_meta(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_lv *lv,
                        const char *to, struct lvx_raid_change *ch);
void lvx_raid0_log_possible(const char *full, const char *from);

/* The forms by which LVM2 reshapes a raid4/5/6/10 LV (cmd/lvconvert_reshape.c): another
 * layout at the same level, --stripes, --stripesize.  Is this one?  Then the command:
 * LVM2's refusal of an inactive LV; of an active raid4/5/6 LV in the kernel, stripes
 * added and another layout or stripe size (type: --type or NULL); the exit code. */
bool lvx_reshape_wanted(const struct lvx_cmd_env *env, const struct lvx_lv *lv, const char *type);
struct lvx_restripe_opts;
/* LVM2's _lv_free_reshape_space before a takeover: the RESHAPE flags dropped; the
 * reshape space of every image (moved to its end first, the LV loaded with
 * "data_offset 0", when the kernel's data starts behind it: ks; *moved then true) cut
 * off, the LV's extents without it; not committed.  0 or the exit code. */
struct lvx_actcmd;
struct lvx_lv_kstate;
int lvx_raid_free_reshape_space(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                                struct lvx_actcmd *act, struct lvx_lv *lv,
                                const struct lvx_lv_kstate *ks, bool *moved);
/* LVM2's interim reshape of a raid4/5 LV under 4 images asked to become raid6
 * ("Converting ... to 4 stripes first."): `stripes` data stripes, in the kernel only. */
/* A takeover (to: the type asked for) of a RAID LV whose images a shrinking reshape
 * left to remove: LVM2's two lines, the exit code; 0 when none is left. */
int lvx_reshape_removal_pending(const struct lvx_lv *lv, const char *to);
int lvx_lvconvert_add_stripes(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                              uint32_t stripes, char **pv_args, unsigned pv_arg_count);
int lvx_lvconvert_reshape(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                          const char *type, const struct lvx_restripe_opts *o);

/* raid0/raid0_meta/striped <-> raid4/raid5_n/raid6_n_6/raid10 (cmd/lvconvert_parity.c):
 * is this such a takeover?  Then the command (region_size: -R in sectors, 0: the
 * default): the exit code. */
bool lvx_parity_takeover_wanted(const struct lvx_lv *lv, const char *type);
int lvx_lvconvert_parity(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                         const char *to, bool yes, uint32_t region_size, char **pv_args,
                         unsigned pv_arg_count);

/* Shared by cmd/lvconvert_parity.c (which defines them) and cmd/lvconvert_level.c:
 * the sub-LV pairs named by position, "<lv>_rimage<sfx>_N" (LVM2's _rename_area_lvs;
 * those that exist and change name listed in ch->moved); raid4's parity pair moved
 * from the end to the front (to_front) or back; the pairs from position keep on
 * taken out of the VG into ch->gone; the rmeta superblocks wiped; LVM2's
 * _clear_meta_lvs: in the dm backend the rmeta detached ("*_extracted", a raid0_meta
 * LV reloaded as raid0; the device renames of moves, NULL for none, made with that
 * reload, the rmeta's left out), their devices removed, wiped, attached again (the
 * next reload puts them back in the table), in the user backend only wiped.  0 or
 * the exit code. */
void lvx_parity_rename(struct lvx_lv *lv, const char *sfx, struct lvx_raid_change *ch);
/* (also: LVM2's other name of a type, raid5 <-> raid5_ls ..., or NULL; the segment's
 * type set, its raw text dropped) */
const char *lvx_parity_alias(const char *t);
void lvx_parity_set_type(struct lvx_lv *lv, const char *type);
void lvx_parity_shift(struct lvx_seg *seg, bool to_front);
void lvx_parity_drop_tail(struct lvx_lv *lv, uint32_t keep, struct lvx_raid_change *ch);
int lvx_parity_wipe(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv);
int lvx_parity_clear_metas(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                           struct lvx_actcmd *act, struct lvx_lv *lv,
                           const struct lvx_raid_change *moves);

/* raid4/raid5* -> raid6 (a Q pair added), raid6_X_6 -> raid5_X or raid4,
 * raid1 of 2 images <-> raid4 or raid5_X (cmd/lvconvert_level.c): is this such a takeover?
 * Then the command: the exit code. */
bool lvx_level_takeover_wanted(const struct lvx_lv *lv, const char *type);
int lvx_lvconvert_level(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        const char *to, bool yes, uint32_t region_size, char **pv_args,
                        unsigned pv_arg_count);

/* LVM2's interim step of a raid4/raid5_X LV asked for a level it does not reach in one
 * (cmd/lvconvert_level.c): raid4 -> any raid5 and raid5_X -> raid4 (a reshape to
 * raid5_n / raid4), raid5_X -> striped/raid0/raid0_meta/raid10 (a reshape to raid5_n first),
 * raid5_n -> raid10 (raid0_meta first), raid5_n under 3 images or with --stripes S to
 * striped/raid0/raid0_meta/raid10 (S stripes added first), each with LVM2's lines; is this one
 * (want_stripes: --stripes)?  Then the command: the exit code.  Also the takeover of
 * cmd/lvconvert_parity.c to raid0_meta with its first lines printed already. */
bool lvx_level_interim_wanted(const struct lvx_cmd_env *env, const struct lvx_lv *lv,
                              const char *type, uint32_t want_stripes);
int lvx_lvconvert_interim(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                          const char *type, bool yes, const struct lvx_restripe_opts *o);
int lvx_lvconvert_parity_down(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                              const char *to, bool yes);

/* The distinct PVs of lv's own segments in order of appearance (LVM2's
 * get_pv_list_for_lv), allocated in env's pool; their count. */
unsigned lvx_raid_own_pvs(struct lvx_cmd_env *env, const struct lvx_lv *lv, struct lvx_alloc_pv **out);

/* Clear REBUILD on the images and rmeta sub-LVs of lv; true when one had it. */
bool lvx_raid_clear_rebuild(struct lvx_lv *lv);

/* Does lv (or a sub-LV of it, rmeta included) have extents on pv? */
bool lvx_raid_lv_on_pv(const struct lvx_lv *lv, const struct lvx_pv *pv);

#endif
