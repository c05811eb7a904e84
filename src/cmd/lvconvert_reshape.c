/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_reshape.c - the lvconvert forms by which LVM2 2.03.16 reshapes a
 * raid4/5/6/10 LV in the kernel (lv_raid_convert, facts only): another layout at the
 * same level (raid5_ls -> raid5_rs/la/ra/n, raid6_zr -> raid6_nr ...), another stripe
 * size (--stripesize), stripes added or removed (--stripes).  LVM2 allocates reshape
 * space in each image (the segment's reshape_count, the images' data_offset), loads
 * the new layout and leaves the kernel's md to move the data.
 *
 * lvx recognises these forms and answers as LVM2 does where LVM2 refuses (the line
 * "Using default stripesize 64.00 KiB." when no -I is given, then "VG/LV must be
 * active to perform this operation." for an inactive LV); an active LV is refused
 * with lvx's own line: lvx does not reshape yet.  The daemon refuses to serve an LV
 * that LVM2 reshaped or is reshaping (model/raid.h lvx_raid_reshape_state).
 */
#include "cmd/lvconvert_raid.h"

#include "cmd/actcmd.h"
#include "map/map.h"
#include "model/raid.h"

#include <string.h>

/* md's level of a RAID type name: 4, 5, 6, 10; 0 for the others (raid0, raid1). */
static unsigned level(const char *t)
{
    const struct lvx_raid_type *rt = t ? lvx_raid_type_find(t) : NULL;
    if (!rt || rt->raid0 || !strcmp(rt->name, "raid1"))
        return 0;
    if (rt->mirrored)
        return 10;
    if (!strcmp(rt->name, "raid4"))
        return 4;
    return rt->parity == 2 ? 6 : 5;
}

bool lvx_reshape_wanted(const struct lvx_cmd_env *env, const struct lvx_lv *lv, const char *type)
{
    const struct lvx_cmd_args *a = env->args;
    if (!lvx_map_lv_is_raid(lv) || lv->seg_count != 1)
        return false;
    const char *from = lv->segs[0].type_name;
    unsigned l = level(from);
    if (!l || a->count[LVX_OPT_MIRRORS])
        return false;
    if (a->count[LVX_OPT_STRIPES] || a->count[LVX_OPT_STRIPESIZE])
        return !type || level(type) == l;
    if (!type || level(type) != l || l == 4 || l == 10)
        return false;
    /* the same level in another layout (raid5 is raid5_ls, raid6 raid6_zr) */
    const struct lvx_raid_type *f = lvx_raid_type_find(from), *t = lvx_raid_type_find(type);
    return strcmp(f->dm_name, t->dm_name) != 0;
}

int lvx_lvconvert_reshape(struct lvx_cmd_env *env, struct lvx_lv *lv)
{
    const struct lvx_cmd_args *a = env->args;
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    int rc;
    if (!a->count[LVX_OPT_STRIPESIZE])     /* LVM2's get_stripe_params */
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, 128));
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    if (!lvx_actcmd_is_active(env, &act, lv, &ks)) {
        lvx_cmd_errorf("%s/%s must be active to perform this operation.", lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    lvx_cmd_errorf("lvx lvconvert does not reshape %s/%s (%s) yet.", lv->vg->name, lv->name,
                   lv->segs[0].type_name);
    return LVX_EXIT_FAILED;
}
