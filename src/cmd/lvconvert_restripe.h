/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_restripe.h - `lvconvert --stripes N [-I SIZE] VG/LV [PV...]` and
 * `--type striped|linear` of linear/striped LVs (cmd/lvconvert_restripe.c).
 */
#ifndef LVX_CMD_LVCONVERT_RESTRIPE_H
#define LVX_CMD_LVCONVERT_RESTRIPE_H

#include "cmd/lvcmd.h"

struct lvx_restripe_opts {
    bool stripes_given;
    uint32_t stripes;
    uint32_t stripe_size;          /* sectors, 0: not given */
    enum lvx_alloc policy;         /* INHERIT: the VG's */
    char **pv_args;
    unsigned pv_arg_count;
    uint32_t region_size;          /* a RAID reshape's -R (sectors), 0: kept */
    bool said;                     /* a RAID reshape's first lines printed already
                                    * (cmd/lvconvert_level.c lvx_lvconvert_interim) */
};

/* The restripe of a linear/striped LV is asked for: --stripes, -I or --type striped,
 * --type linear of a striped LV, or no option for an LV being restriped. */
bool lvx_restripe_wanted(const struct lvx_cmd_env *env, const struct lvx_lv *lv,
                         const char *type, bool mirrors_given);
/* Set up (or find) the restripe of lv in u (committed here).  0 and *job set to the
 * reservation LV's uuid when the copy is to run (lvx_lvconvert_restripe_run, after u
 * ended), or an exit code (message printed). */
int lvx_lvconvert_restripe(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                           const struct lvx_restripe_opts *o, char job[LVX_UUID_LEN + 1]);
/* Copy and commit the steps of the restripe of LV lv_uuid of VG vgname to its end. */
int lvx_lvconvert_restripe_run(struct lvx_cmd_env *env, const char *vgname, const char *lv_uuid);

#endif
