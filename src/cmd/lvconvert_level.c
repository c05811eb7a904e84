/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_level.c - `lvconvert --type` between the levels of a RAID LV with
 * rmeta sub-LVs (cmd/lvconvert_raid.h), the takeovers LVM2 2.03.16 makes without
 * moving data (raid_manip.c, facts only):
 *
 *   raid4|raid5_X -> raid6    a Q pair added at the end (on a PV the LV's images do
 *                             not use, carrying REBUILD): raid5_n -> raid6_n_6,
 *                             raid5_ls/la/rs/ra -> raid6_ls_6/la_6/rs_6/ra_6; raid4
 *                             goes to raid5_n first (below); 4 images at least.
 *   raid6_X_6 -> raid5_X      the Q pair (the last) taken off; raid6_n_6 -> raid4 then
 *                             raid5_n -> raid4.
 *   raid4 <-> raid5_n         within those two: the parity pair moved from the front
 *                             to the end (or back), every pair renamed by its position
 *                             "_rimage__N" for one reload, "_rimage_N" for a second,
 *                             the rmeta cleared before (LVM2's _clear_meta_lvs), without
 *                             a resync.  (Asked for directly LVM2 reshapes: not here.)
 *   raid1 (2 images) <-> raid4|raid5_X
 *                             the segment type only: md's raid5 of 2 devices keeps a
 *                             copy of each chunk on both legs (stripe size 64 KiB).
 *
 * Another layout asked for is replaced by the one reachable with LVM2's two warnings
 * ("Replaced LV type ...", "Repeat this command ..."); raid1 of 2 images asked for
 * striped/raid0/raid0_meta/raid10 becomes raid5_n (stripe size -I, else 64 KiB), asked
 * for raid6 raid5_ls.  LVM2's interim steps of a raid4/raid5_X LV (lvx_lvconvert_interim,
 * one command each) go to cmd/lvconvert_reshape.c where they are reshapes (raid4 <->
 * raid5_n, raid5_X -> raid5_n on the way to raid4/striped/raid0/raid10, stripes added
 * to a raid5_n of 2 images or to --stripes S on the way to striped, stripes removed to
 * 2 images on the way to raid1/linear), to cmd/lvconvert_parity.c for raid4/raid5_n ->
 * raid10 (raid0_meta first), here for raid4/5 of 2 images -> linear (raid1 first).
 * A raid4/5 of 3 images asked for raid6 adds a stripe first.  Each asks
 * LVM2's question (-y: yes), wants the LV active and in sync, and reloads through
 * lvx_lvconvert_reload.  In the user backend the daemon finds superblocks of another
 * level and serves the new level after a full resync
 * (daemon/raid_core.c).
 */
#include "cmd/lvconvert_raid.h"

#include "activate/activate.h"
#include "cmd/actcmd.h"
#include "cmd/lvconvert_restripe.h"
#include "cmd/lvcreate_raid.h"
#include "model/snapshot.h"

#include <stdio.h>
#include <string.h>

/* The dm layout of a type name ("raid5" -> "raid5_ls"), the name itself otherwise. */
static const char *layout(const char *t)
{
    const struct lvx_raid_type *rt = t ? lvx_raid_type_find(t) : NULL;
    return rt ? rt->dm_name : t;
}

static bool is4(const char *t)
{
    return t && !strcmp(t, "raid4");
}

static bool is5(const char *t)
{
    return t && !strncmp(t, "raid5", 5);
}

static bool is6(const char *t)
{
    return t && !strncmp(t, "raid6", 5);
}

static bool is1(const char *t)
{
    return t && !strcmp(t, "raid1");
}

/* striped, raid0, raid0_meta, raid10: the levels a raid1/4/5 LV reaches through raid5_n */
static bool is_down(const char *t)
{
    return t && (!strcmp(t, "striped") || !strncmp(t, "raid0", 5) || !strcmp(t, "raid10"));
}

/* raid6_X_6 of raid5_X (X one of ls, la, rs, ra, n), NULL for another layout. */
static const char *to6(const char *l5)
{
    static const char *const p[][2] = { { "raid5_ls", "raid6_ls_6" }, { "raid5_la", "raid6_la_6" },
                                        { "raid5_rs", "raid6_rs_6" }, { "raid5_ra", "raid6_ra_6" },
                                        { "raid5_n", "raid6_n_6" } };
    for (unsigned i = 0; i < sizeof(p) / sizeof(p[0]); i++)
        if (!strcmp(l5, p[i][0]))
            return p[i][1];
    return NULL;
}

static const char *to5(const char *l6)
{
    static const char *const p[][2] = { { "raid6_ls_6", "raid5_ls" }, { "raid6_la_6", "raid5_la" },
                                        { "raid6_rs_6", "raid5_rs" }, { "raid6_ra_6", "raid5_ra" },
                                        { "raid6_n_6", "raid5_n" } };
    for (unsigned i = 0; i < sizeof(p) / sizeof(p[0]); i++)
        if (!strcmp(l6, p[i][0]))
            return p[i][1];
    return NULL;
}

static const char *from_type(const struct lvx_lv *lv)
{
    if (lv->seg_count != 1 || lv->segs[0].kind != LVX_SEG_RAID || !lv->segs[0].meta_areas)
        return NULL;
    return lv->segs[0].type_name;
}

bool lvx_level_takeover_wanted(const struct lvx_lv *lv, const char *type)
{
    const char *f = from_type(lv);
    if (!f || !type)
        return false;
    if (is1(f))                    /* to striped/raid0/raid0_meta/raid10/raid6: through raid5 */
        return is4(type) || is5(type) || is6(type) || is_down(type);
    if (is4(f) || is5(f))          /* raid4 <-> raid5_n asked for: LVM2 reshapes */
        return is6(type) || is1(type);
    if (is6(f) && to5(layout(f)))
        return is5(type) || is4(type);
    return false;
}

/* LVM2's other name of a type: raid5_ls for raid5 and back, "" for none. */
static const char *alias_of(const char *t)
{
    const char *a = lvx_parity_alias(t);
    return a ? a : "";
}

/* ... as LVM2's text: " (same as raid5_ls)". */
static const char *alias(struct lvx_cmd_env *env, const char *t)
{
    const char *a = alias_of(t);
    return *a ? lvx_pool_printf(env->pool, " (same as %s)", a) : "";
}

/* LVM2's _set_convenient_raid145610_segtype_to: the type lv goes to for `to`, its
 * warnings printed; NULL when a reshape would have to come first (LVM2's line
 * printed, the caller refuses). */
static const char *resolve(struct lvx_cmd_env *env, const struct lvx_lv *lv, const char *to,
                           const char *full)
{
    const char *f = lv->segs[0].type_name, *lf = layout(f), *want = to;
    uint32_t n = lv->segs[0].area_count;
    if (is1(f)) {
        if (n != 2) {
            lvx_cmd_errorf("Convert raid1 LV %s to 2 images first.", full);
            return NULL;
        }
        want = is_down(to) ? "raid5_n" : is6(to) ? "raid5_ls" : to;
    } else if (is6(to)) {
        if (n < 4) {
            lvx_cmd_errorf("Converting %s LV %s to 4 stripes first.", f, full);
            return NULL;
        }
        want = is4(f) ? "raid6_n_6" : to6(lf);
    } else if (is1(to)) {
        if (n != 2) {
            lvx_cmd_errorf("Converting %s LV %s to 2 stripes first.", f, full);
            return NULL;
        }
    } else if (is6(f)) {
        want = is4(to) ? to : to5(lf);
    }
    if (want && strcmp(want, to)) {
        /* LVM2's log_warn lines: on stderr, without a "WARNING:" */
        lvx_cmd_errorf("Replaced LV type %s%s with possible type %s.", to, alias(env, to), want);
        lvx_cmd_errorf("Repeat this command to convert to %s after an interim conversion "
                       "has finished.", to);
    }
    return want;
}

/* LVM2's segment type flags, in their bit order (the order of its lists). */
enum {
    F_MIRROR = 1u << 0, F_R0 = 1u << 1, F_R0M = 1u << 2, F_R1 = 1u << 3, F_R10 = 1u << 4,
    F_R4 = 1u << 5, F_R5N = 1u << 6, F_R5LA = 1u << 7, F_R5LS = 1u << 8, F_R5RA = 1u << 9,
    F_R5RS = 1u << 10, F_R6NC = 1u << 11, F_R6NR = 1u << 12, F_R6ZR = 1u << 13,
    F_R6LA6 = 1u << 14, F_R6LS6 = 1u << 15, F_R6RA6 = 1u << 16, F_R6RS6 = 1u << 17,
    F_R6N6 = 1u << 18, F_STRIPED = 1u << 19,
    F_R5 = F_R5N | F_R5LA | F_R5LS | F_R5RA | F_R5RS,
    F_R6 = F_R6NC | F_R6NR | F_R6ZR | F_R6LA6 | F_R6LS6 | F_R6RA6 | F_R6RS6 | F_R6N6,
};
static const char *const flag_names[] = { "mirror", "raid0", "raid0_meta", "raid1", "raid10_near",
                                          "raid4", "raid5_n", "raid5_la", "raid5_ls", "raid5_ra",
                                          "raid5_rs", "raid6_nc", "raid6_nr", "raid6_zr",
                                          "raid6_la_6", "raid6_ls_6", "raid6_ra_6", "raid6_rs_6",
                                          "raid6_n_6", "striped" };

static uint32_t flag_of(const char *t)
{
    const char *l = layout(t);
    if (!strcmp(t, "raid10"))
        l = "raid10_near";
    for (unsigned i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
        if (!strcmp(l, flag_names[i]))
            return 1u << i;
    return 0;
}

/* LVM2's _log_possible_conversion_types after a refusal: its takeover and reshape
 * table's rows for the LV's type and image count, each row's types in flag order,
 * the LV's own type and those named before left out. */
static void log_possible(const struct lvx_lv *lv, const char *full)
{
    static const struct { uint32_t cur, to, areas; } rows[] = {
        { F_STRIPED, F_R1, 1 }, { F_R0 | F_R0M, F_R1, 1 }, { F_R5N, F_STRIPED, 2 },
        { F_STRIPED | F_R0 | F_R0M, F_STRIPED | F_R0 | F_R0M, ~0u },
        { F_STRIPED | F_R0 | F_R0M, F_R4 | F_R5N | F_R6N6 | F_R10, ~0u },
        { F_R4 | F_R5N | F_R6N6 | F_R10, F_STRIPED | F_R0 | F_R0M, ~0u },
        { F_R4 | F_R5N | F_R6N6, F_R4 | F_R5N | F_R6N6, ~0u }, { F_R5, F_R5, ~0u },
        { F_R6, F_R6, ~0u }, { F_R5LS | F_R6LS6, F_R5LS | F_R6LS6, ~0u },
        { F_R5RS | F_R6RS6, F_R5RS | F_R6RS6, ~0u }, { F_R5LA | F_R6LA6, F_R5LA | F_R6LA6, ~0u },
        { F_R5RA | F_R6RA6, F_R5RA | F_R6RA6, ~0u }, { F_R10, F_R10, ~0u },
        { F_MIRROR | F_R1, F_MIRROR | F_R1, ~0u }, { F_R1, F_R4 | F_R5, 2 },
        { F_R4 | F_R5, F_R1, 2 },
    };
    const struct lvx_seg *seg = &lv->segs[0];
    uint32_t own = flag_of(seg->type_name), done = own, n = seg->area_count;
    char list[512] = "";
    size_t len = 0;
    unsigned count = 0;
    for (unsigned r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        if (!(rows[r].cur & own) || !(n == rows[r].areas || (n > 1 && n <= rows[r].areas)))
            continue;
        for (unsigned i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
            if ((rows[r].to & ~done) & (1u << i)) {
                done |= 1u << i;
                count++;
                len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
                                        len ? "\n" : "", flag_names[i]);
            }
    }
    const char *a = alias_of(seg->type_name);
    lvx_cmd_errorf("Converting %s from %s%s%s%s is directly possible to the following layout%s:",
                   full, seg->type_name, *a ? " (same as " : "", a, *a ? ")" : "",
                   count > 1 ? "s" : "");
    for (char *p = list, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        lvx_cmd_errorf("  %s", p);
        if (!nl)
            break;
    }
}

/* raid4 <-> raid5_n (LVM2's _raid45_to_raid54_wrapper): see the top of the file. */
static int r45_r54(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                   struct lvx_lv *lv, const char *to, uint32_t region_size)
{
    struct lvx_raid_change ch;
    struct lvx_seg *seg = &lv->segs[0];
    int rc;
    memset(&ch, 0, sizeof(ch));
    lvx_parity_rename(lv, "_", &ch);
    if ((rc = lvx_parity_clear_metas(env, u, act, lv, &ch)))
        return rc;
    memset(&ch, 0, sizeof(ch));       /* made (no devices to rename in the user backend) */
    lvx_parity_shift(seg, is4(to));
    if (region_size)
        seg->region_size = region_size;
    lvx_parity_set_type(lv, to);
    bool user = !act->be->rename_sub;
    act->opts.nosync = !user;          /* LVM2: no resync (the parity is the same) */
    rc = lvx_lvconvert_reload(env, u, act, lv, &ch);
    act->opts.nosync = false;
    if (rc)
        return rc;
    memset(&ch, 0, sizeof(ch));
    lvx_parity_rename(lv, "", &ch);
    return lvx_lvconvert_reload(env, u, act, lv, &ch);
}

int lvx_lvconvert_level(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                        const char *to, bool yes, uint32_t region_size, char **pv_args,
                        unsigned pv_arg_count)
{
    struct lvx_vg *vg = u->vg;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", vg->name, lv->name);
    struct lvx_seg *seg = &lv->segs[0];
    const char *from = seg->type_name;
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    struct lvx_raid_change ch;
    int rc;

    if (!is1(to) && !strncmp(to, "raid", 4) && !env->args->count[LVX_OPT_STRIPESIZE])
        /* LVM2's get_stripe_params (a raid type) */
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, 128));
    if ((rc = lvx_actcmd_init(env, &act)) || (rc = lvx_lvconvert_need_active(env, &act, lv, &ks)))
        return rc;
    const char *want = resolve(env, lv, to, full);
    if (!want) {
        /* raid4/5 of 3 images to raid6: LVM2 adds a stripe first (its line said so) */
        if (!is1(from) && is6(to) && seg->area_count < 4)
            return lvx_lvconvert_add_stripes(env, u, lv, 4 - 1, pv_args, pv_arg_count);
        if (is1(from))           /* LVM2's own refusal; the others would reshape first */
            log_possible(lv, full);
        else
            lvx_cmd_errorf("lvx lvconvert does not reshape %s/%s (%s) yet.", vg->name, lv->name,
                           from);
        return LVX_EXIT_FAILED;
    }
    if (is1(from))
        lvx_cmd_errorf("--stripes not allowed for LV %s when converting from %s to %s.", full,
                       from, want);
    if (!yes && !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to convert "
                                                   "%s LV %s to %s type?", from, full, want))) {
        lvx_cmd_errorf("Logical volume %s NOT converted.", full);
        log_possible(lv, full);
        return LVX_EXIT_FAILED;
    }
    if (lv->status & LVX_LV_LOCKED || lvx_lv_snapshot_segs(lv, NULL, 0) > 0) {
        lvx_cmd_errorf("Can't convert RAID LV %s while under snapshot.", full);
        return LVX_EXIT_FAILED;
    }
    if (!lvx_lvconvert_in_sync(lv, &ks)) {
        lvx_cmd_errorf("Unable to convert %s while it is not in-sync.", full);
        return LVX_EXIT_FAILED;
    }
    /* LVM2's takeovers free the reshape space of an earlier reshape first */
    if ((rc = lvx_raid_free_reshape_space(env, u, &act, lv, &ks, NULL)))
        return rc;
    seg = &lv->segs[0];
    uint32_t n = seg->area_count;
    memset(&ch, 0, sizeof(ch));
    if (is6(want)) {                          /* the Q pair added */
        struct lvx_alloc_pv *pvs = NULL;
        unsigned pv_count = 0;
        struct lvx_free_maps *maps;
        if ((rc = lvx_lvcmd_pv_args(env, vg, pv_args, pv_arg_count, &pvs, &pv_count)))
            return rc;
        uint32_t region = region_size ? region_size : seg->region_size;
        if (lvx_raid_image_pv_count(env, lv, pvs, pv_count) < 1) {   /* LVM2's allocator */
            uint64_t image = seg->areas[0].lv->le_count;
            lvx_cmd_errorf("Insufficient suitable allocatable extents for logical volume : %llu "
                           "more required", (unsigned long long)(image +
                           lvx_raid_rmeta_extents(image, region, vg->extent_size)));
            return LVX_EXIT_FAILED;
        }
        if ((rc = lvx_lvconvert_refuse_read_only(env, &act, lv)))   /* before any commit */
            return rc;
        if (is4(from) && (rc = r45_r54(env, u, &act, lv, "raid5_n", 0)))
            return rc;
        if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
            return rc;
        if (lvx_raid_add_images(env, vg, maps, lv, n + 1, region, pvs, pv_count, &ch) < 0)
            return lvx_cmd_fail(env);
        lvx_parity_set_type(lv, want);
        ch.takeover = true;
        if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
            return rc;
    } else if (is6(from)) {                          /* the Q pair taken off */
        lvx_parity_drop_tail(lv, n - 1, &ch);
        if (region_size)
            seg->region_size = region_size;
        lvx_parity_set_type(lv, to5(layout(from)));
        ch.takeover = true;
        if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
            return rc;
        if (is4(want) && (rc = r45_r54(env, u, &act, lv, want, 0)))
            return rc;
    } else {                                          /* raid1 <-> raid4/5 of 2 images */
        if (region_size)
            seg->region_size = region_size;
        uint32_t stripes = 0, ss = 0;      /* -I: the stripe size (LVM2 allows it here) */
        if (!is1(want) && (rc = lvx_lvcmd_stripe_args(env, &stripes, &ss)))
            return rc;
        seg->stripe_size = is1(want) ? 0 : env->args->count[LVX_OPT_STRIPESIZE] ? ss : 128;
        lvx_parity_set_type(lv, want);
        ch.takeover = true;
        if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
            return rc;
    }
    lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
    return 0;
}

/* LVM2's interim step for a raid4/raid5_X LV asked for a type it does not reach in one
 * (its _set_convenient_raid145610_segtype_to): the type of that step, or NULL when the
 * request goes another way (then *stripes is 0); *stripes > 0: the data stripes LVM2
 * adds first (a reshape, the type then raid5_n). */
static const char *interim(const struct lvx_cmd_env *env, const struct lvx_lv *lv,
                           const char *type, uint32_t want_stripes, uint32_t *stripes)
{
    const char *f = from_type(lv);
    *stripes = 0;
    if (!f || !type || !(is4(f) || is5(f)))
        return NULL;
    bool n5 = !strcmp(layout(f), "raid5_n");
    uint32_t n = lv->segs[0].area_count;
    bool stripes_given = env->args->count[LVX_OPT_STRIPES] > 0;
    if (is4(f) && is5(type))                    /* a reshape to raid5_n */
        return stripes_given ? NULL : "raid5_n";
    if (is5(f) && is4(type))
        return stripes_given ? NULL : n5 ? "raid4" : "raid5_n";
    if (is1(type) || !strcmp(type, "linear")) {  /* through 2 images, then raid1 */
        if (n != 2) {
            *stripes = 1;
            return f;
        }
        return is1(type) ? NULL : "raid1";
    }
    if (!is_down(type))
        return NULL;
    if (!n5 && !is4(f))                         /* the layout first */
        return stripes_given ? NULL : "raid5_n";
    if (stripes_given && want_stripes > 2 && want_stripes != n - 1)
        *stripes = want_stripes;
    else if (n < 3)
        *stripes = 2;
    if (*stripes && is4(f)) {                  /* raid4: lvx adds no stripes with a new */
        *stripes = 0;                          /* layout (another route refuses) */
        return NULL;
    }
    if (!*stripes && (stripes_given || strcmp(type, "raid10")))
        return NULL;                            /* raid4/raid5_n -> striped/raid0, raid0_meta: a takeover */
    if (!*stripes)
        return "raid0_meta";
    return "raid5_n";
}

bool lvx_level_interim_wanted(const struct lvx_cmd_env *env, const struct lvx_lv *lv,
                              const char *type, uint32_t want_stripes)
{
    uint32_t stripes;
    return interim(env, lv, type, want_stripes, &stripes) != NULL;
}

int lvx_lvconvert_interim(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                          const char *type, bool yes, const struct lvx_restripe_opts *o)
{
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    uint32_t stripes;
    const char *want = interim(env, lv, type, o->stripes, &stripes);
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    int rc;
    /* LVM2's get_stripe_params: for a raid type (not striped or linear) */
    if (!env->args->count[LVX_OPT_STRIPESIZE] && !strncmp(type, "raid", 4))
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, 128));
    if ((rc = lvx_actcmd_init(env, &act)) || (rc = lvx_lvconvert_need_active(env, &act, lv, &ks)))
        return rc;
    if (stripes)
        lvx_cmd_errorf("Converting %s LV %s to %u stripes first.", lv->segs[0].type_name, full,
                       stripes + 1);
    if (stripes == 1) {                 /* stripes removed (LVM2's reshape, --force) */
        struct lvx_restripe_opts r = *o;
        r.said = true;
        r.stripes_given = true;
        r.stripes = 1;
        return lvx_lvconvert_reshape(env, u, lv, NULL, &r);
    }
    if (strcmp(want, type)) {
        /* LVM2's log_warn lines: on stderr, without a "WARNING:" */
        lvx_cmd_errorf("Replaced LV type %s%s with possible type %s.", type, alias(env, type),
                       want);
        lvx_cmd_errorf("Repeat this command to convert to %s after an interim conversion "
                       "has finished.", type);
    }
    if (stripes)
        return lvx_lvconvert_add_stripes(env, u, lv, stripes, o->pv_args, o->pv_arg_count);
    if (is1(want))
        return lvx_lvconvert_level(env, u, lv, want, yes, o->region_size, o->pv_args,
                                   o->pv_arg_count);
    if (!strcmp(want, "raid0_meta"))
        return lvx_lvconvert_parity_down(env, u, lv, want, yes);
    struct lvx_restripe_opts r = *o;
    r.said = true;
    return lvx_lvconvert_reshape(env, u, lv, want, &r);
}
