/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_parity.c - `lvconvert --type raid4|raid5_n|raid6_n_6|raid10 VG/LV` of
 * a striped, raid0 or raid0_meta LV and `--type raid0|raid0_meta|striped` of a raid4,
 * raid5_n, raid6_n_6 or raid10 LV (cmd/lvconvert_raid.h): the takeovers LVM2 2.03.16
 * makes between these levels (raid_manip.c, facts only).  The data never moves:
 *
 *   up      striped -> raid0 -> raid0_meta as cmd/lvconvert_raid0.c does it, then
 *           image pairs added at the end (cmd/lvconvert_raid.c's lvx_raid_add_images,
 *           on PVs the LV does not use, carrying REBUILD): one parity image for
 *           raid5_n, two for raid6_n_6, one mirror of each stripe for raid10 (the
 *           areas reordered "near": stripe i at 2i, its new mirror at 2i+1, names
 *           kept; raid4: the parity pair moved to the front, every pair renamed by
 *           its position, "<lv>_rimage__N" for one reload, then "<lv>_rimage_N" for
 *           a second; the rmeta of a raid0_meta LV cleared first, as LVM2's
 *           _clear_meta_lvs: out of the live table, then wiped); -R or the default region size (raised for a big
 *           LV), the stripe size kept.  Other raid5/raid6 layouts asked for are replaced by raid5_n /
 *           raid6_n_6 (raid5_n under 3 stripes) with LVM2's two warnings.
 *   down    the LV in sync; raid10's areas reordered back (the first copy of each
 *           stripe first), raid4's parity pair moved to the end, the parity or mirror
 *           pairs taken off the end, the images left renamed by position; then
 *           raid0_meta (its rmeta cleared after, as LVM2 does), raid0 or striped.
 *
 * Both want the LV active (LVM2's "must be active" otherwise) and ask "Are you sure
 * you want to convert FROM LV VG/LV to TO type? [y/n]:" (-y: yes).  The devices follow
 * through lvx_lvconvert_reload.  In the user backend the daemon serves the new level
 * from rmeta superblocks wiped here: its first load is a full sync, which computes the
 * parity (or copies each stripe to its new mirror) from the data images.  Also the
 * helpers cmd/lvconvert_level.c shares (declared in cmd/lvconvert_raid.h).
 */
#include "cmd/lvconvert_raid.h"

#include "activate/activate.h"
#include "cmd/actcmd.h"
#include "cmd/lvcreate_raid.h"
#include "model/raid0.h"
#include "model/snapshot.h"

#include <string.h>
#include <time.h>

#define SB_ZERO 4096u

enum level { L_NONE, L_R4, L_R5, L_R6, L_R10 };

static enum level level_of(const char *t)
{
    if (!t)
        return L_NONE;
    if (!strcmp(t, "raid4"))
        return L_R4;
    if (!strncmp(t, "raid5", 5))
        return L_R5;
    if (!strncmp(t, "raid6", 5))
        return L_R6;
    if (!strcmp(t, "raid10"))
        return L_R10;
    return L_NONE;
}

static bool is_down_target(const char *t)
{
    return t && (!strcmp(t, "raid0") || !strcmp(t, "raid0_meta") || !strcmp(t, "striped"));
}

/* a raid5_n, raid6_n_6 or raid10 LV (the levels whose takeover lvx makes) */
static enum level lv_level(const struct lvx_lv *lv)
{
    if (lv->seg_count != 1 || lv->segs[0].kind != LVX_SEG_RAID || !lv->segs[0].meta_areas)
        return L_NONE;
    const char *t = lv->segs[0].type_name;
    if (!strcmp(t, "raid4"))
        return L_R4;
    if (!strcmp(t, "raid5_n"))
        return L_R5;
    if (!strcmp(t, "raid6_n_6"))
        return L_R6;
    if (!strcmp(t, "raid10") && lv->segs[0].area_count % 2 == 0 &&
        (!lv->segs[0].data_copies || lv->segs[0].data_copies == 2))
        return L_R10;
    return L_NONE;
}

bool lvx_parity_takeover_wanted(const struct lvx_lv *lv, const char *type)
{
    if (level_of(type) != L_NONE)
        return lvx_raid0_takeover_wanted(lv, "raid0");
    return is_down_target(type) && lv_level(lv) != L_NONE;
}

const char *lvx_parity_alias(const char *t)
{
    static const char *const pairs[][2] = { { "raid5", "raid5_ls" }, { "raid6", "raid6_zr" },
                                            { "raid10", "raid10_near" } };
    for (unsigned i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        for (int k = 0; k < 2; k++)
            if (!strcmp(t, pairs[i][k]))
                return pairs[i][!k];
    return NULL;
}

/* LVM2's replacement of a level it cannot reach directly from a striped/raid0* LV of
 * n stripes: any raid5 layout -> raid5_n, any raid6 -> raid6_n_6 (raid5_n under 3
 * stripes), with its two warnings. */
static const char *replace_type(struct lvx_cmd_env *env, const char *to, uint32_t n)
{
    const char *want = level_of(to) == L_R5 ? "raid5_n"
                       : level_of(to) == L_R6 ? (n < 3 ? "raid5_n" : "raid6_n_6") : to;
    if (strcmp(want, to)) {
        const char *a = lvx_parity_alias(to);
        /* LVM2's log_warn lines: on stderr, without a "WARNING:" */
        lvx_cmd_errorf("Replaced LV type %s%s%s%s with possible type %s.", to,
                 a ? " (same as " : "", a ? a : "", a ? ")" : "", want);
        lvx_cmd_errorf("Repeat this command to convert to %s after an interim conversion "
                       "has finished.", to);
    }
    return want;
}

/* raid10 "near" order: stripe i at 2i, its mirror (image n + i) at 2i + 1. */
static void reorder_near(struct lvx_seg *seg)
{
    uint32_t n = seg->area_count / 2;
    struct lvx_area a[2 * LVX_RAID_MAX_IMAGES], m[2 * LVX_RAID_MAX_IMAGES];
    for (uint32_t s = 0; s < n; s++) {
        a[2 * s] = seg->areas[s];
        m[2 * s] = seg->meta_areas[s];
        a[2 * s + 1] = seg->areas[n + s];
        m[2 * s + 1] = seg->meta_areas[n + s];
    }
    memcpy(seg->areas, a, 2 * n * sizeof(*a));
    memcpy(seg->meta_areas, m, 2 * n * sizeof(*m));
}

/* ... and back: the first copy of each stripe first, the mirrors after them. */
static void reorder_from_near(struct lvx_seg *seg)
{
    uint32_t n = seg->area_count / 2;
    struct lvx_area a[2 * LVX_RAID_MAX_IMAGES], m[2 * LVX_RAID_MAX_IMAGES];
    for (uint32_t s = 0; s < n; s++) {
        a[s] = seg->areas[2 * s];
        m[s] = seg->meta_areas[2 * s];
        a[n + s] = seg->areas[2 * s + 1];
        m[n + s] = seg->meta_areas[2 * s + 1];
    }
    memcpy(seg->areas, a, 2 * n * sizeof(*a));
    memcpy(seg->meta_areas, m, 2 * n * sizeof(*m));
}

/* The sub-LVs of lv named by their position, "<lv>_rimage<sfx>_N" (LVM2's
 * _rename_area_lvs: "_" while pairs move, "" after); those that exist already (not
 * new in ch) and change name listed as moved. */
void lvx_parity_rename(struct lvx_lv *lv, const char *sfx, struct lvx_raid_change *ch)
{
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; s < seg->area_count; s++) {
        struct lvx_lv *subs[2] = { seg->meta_areas[s].lv, seg->areas[s].lv };
        const char *kinds[2] = { "rmeta", "rimage" };
        for (int k = 0; k < 2; k++) {
            const char *want = lvx_pool_printf(lv->vg->pool, "%s_%s%s_%u", lv->name, kinds[k],
                                               sfx, s);
            bool added = false;
            for (unsigned i = 0; i < ch->added_n; i++)
                added |= ch->added[i] == subs[k];
            if (!strcmp(want, subs[k]->name))
                continue;
            if (!added) {
                ch->moved[ch->moved_n] = subs[k];
                ch->moved_old[ch->moved_n++] = subs[k]->name;
            }
            subs[k]->name = want;
        }
    }
}

/* raid4's parity pair first (LVM2's _shift_parity_dev): the last pair moved to the
 * front (to_front) or the first to the end. */
void lvx_parity_shift(struct lvx_seg *seg, bool to_front)
{
    uint32_t n = seg->area_count;
    struct lvx_area a, m;
    if (to_front) {
        a = seg->areas[n - 1];
        m = seg->meta_areas[n - 1];
        memmove(seg->areas + 1, seg->areas, (n - 1) * sizeof(a));
        memmove(seg->meta_areas + 1, seg->meta_areas, (n - 1) * sizeof(m));
        seg->areas[0] = a;
        seg->meta_areas[0] = m;
    } else {
        a = seg->areas[0];
        m = seg->meta_areas[0];
        memmove(seg->areas, seg->areas + 1, (n - 1) * sizeof(a));
        memmove(seg->meta_areas, seg->meta_areas + 1, (n - 1) * sizeof(m));
        seg->areas[n - 1] = a;
        seg->meta_areas[n - 1] = m;
    }
}

/* The pairs from position keep on taken out of the VG (named *_extracted while the
 * devices go), the images left renamed by their position. */
void lvx_parity_drop_tail(struct lvx_lv *lv, uint32_t keep, struct lvx_raid_change *ch)
{
    struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = keep; s < seg->area_count; s++) {
        struct lvx_lv *subs[2] = { seg->meta_areas[s].lv, seg->areas[s].lv };
        for (int k = 0; k < 2; k++) {
            ch->gone_old[ch->gone_n] = subs[k]->name;
            subs[k]->name = lvx_pool_printf(lv->vg->pool, "%s_extracted", subs[k]->name);
            ch->gone[ch->gone_n++] = subs[k];
            lvx_vg_remove_lv(lv->vg, subs[k]);
        }
    }
    seg->area_count = seg->stripe_count = keep;
    lvx_parity_rename(lv, "", ch);
}

void lvx_parity_set_type(struct lvx_lv *lv, const char *type)
{
    lv->segs[0].type = lv->segs[0].type_name = lvx_pool_strdup(lv->vg->pool, type);
    lv->segs[0].raw = NULL;
}

/* The rmeta superblocks of lv wiped (LVM2's _clear_meta_lvs; the user backend's daemon
 * then starts the new level with a full sync). */
int lvx_parity_wipe(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv)
{
    if (env->args->count[LVX_OPT_TEST])
        return 0;
    const struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; seg->meta_areas && s < seg->area_count; s++)
        if (lvx_lvcmd_zero_start(env, u, seg->meta_areas[s].lv, SB_ZERO) < 0)
            return lvx_cmd_fail(env);
    return 0;
}

int lvx_parity_clear_metas(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                           struct lvx_actcmd *act, struct lvx_lv *lv,
                           const struct lvx_raid_change *moves)
{
    if (!act->be->rename_sub || env->args->count[LVX_OPT_TEST])
        return lvx_parity_wipe(env, u, lv);    /* the daemon: a full sync from zero */
    struct lvx_seg *seg = &lv->segs[0];
    struct lvx_area *metas = seg->meta_areas;
    const char *type = seg->type_name;
    struct lvx_raid_change ch;
    uint32_t n = seg->area_count;
    const char **names = lvx_pool_alloc(env->pool, n * sizeof(*names));
    const char **devs = lvx_pool_alloc(env->pool, n * sizeof(*devs));
    int rc;
    memset(&ch, 0, sizeof(ch));
    /* the renames asked for, but those of the rmeta: their devices keep their names */
    for (unsigned i = 0; moves && i < moves->moved_n; i++) {
        bool meta = false;
        for (uint32_t s = 0; s < n && !meta; s++)
            meta = moves->moved[i] == metas[s].lv;
        if (!meta) {
            ch.moved[ch.moved_n] = moves->moved[i];
            ch.moved_old[ch.moved_n++] = moves->moved_old[i];
        }
    }
    /* detached: "*_extracted", visible, out of the table (raid0_meta reloaded as raid0) */
    for (uint32_t s = 0; s < n; s++) {
        struct lvx_lv *m = metas[s].lv;
        names[s] = devs[s] = m->name;
        for (unsigned i = 0; moves && i < moves->moved_n; i++)
            if (moves->moved[i] == m)
                devs[s] = moves->moved_old[i];
        m->name = lvx_pool_printf(lv->vg->pool, "%s_extracted", m->name);
        m->status |= LVX_LV_VISIBLE;
    }
    seg->meta_areas = NULL;
    if (!strcmp(type, "raid0_meta"))
        lvx_parity_set_type(lv, "raid0");
    if ((rc = lvx_lvconvert_reload(env, u, act, lv, &ch)))
        return rc;
    /* their devices removed, their superblocks wiped, attached again under their names */
    for (uint32_t s = 0; s < n; s++) {
        struct lvx_lv *m = metas[s].lv;
        m->name = devs[s];
        m->status &= ~(uint32_t)LVX_LV_VISIBLE;
        rc = act->be->deactivate(env->ctx, m, NULL);
        m->name = names[s];
        if (rc < 0 || lvx_lvcmd_zero_start(env, u, m, SB_ZERO) < 0)
            return lvx_cmd_fail(env);
    }
    seg->meta_areas = metas;
    lvx_parity_set_type(lv, type);
    return 0;
}

/* What every such lvconvert does first, as LVM2: the default stripe size named (a
 * raid target), the LV active (its state in *ks; up() checks it before it replaces the
 * type: checked), the question (-y: yes; no: NOT converted, and the list of types for
 * a striped/raid0* LV).  0 or the exit code. */
static int begin(struct lvx_cmd_env *env, struct lvx_actcmd *act, struct lvx_lv_kstate *ks,
                 const struct lvx_lv *lv, const char *from, const char *to, bool yes, bool said,
                 bool checked)
{
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    int rc;
    if (!said && lv_level(lv) != L_NONE && strcmp(to, "striped"))   /* up(): said already */
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, 128));
    if (!checked &&
        ((rc = lvx_actcmd_init(env, act)) || (rc = lvx_lvconvert_need_active(env, act, lv, ks))))
        return rc;
    if (!yes && !lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "Are you sure you want to convert "
                                                   "%s LV %s to %s type?", from, full, to))) {
        lvx_cmd_errorf("Logical volume %s NOT converted.", full);
        if (lv_level(lv) == L_NONE)
            lvx_raid0_log_possible(full, from);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static int up(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
              const char *to, bool yes, uint32_t region_size, char **pv_args,
              unsigned pv_arg_count)
{
    struct lvx_vg *vg = u->vg;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", vg->name, lv->name);
    const char *from = lvx_raid0_is(lv) ? lv->segs[0].type_name : "striped";
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    struct lvx_raid_change ch, more;
    int rc;

    lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, 128));
    /* LVM2 wants the LV active before it replaces the type (its two lines) */
    if ((rc = lvx_actcmd_init(env, &act)) || (rc = lvx_lvconvert_need_active(env, &act, lv, &ks)))
        return rc;
    to = replace_type(env, to, lv->segs[0].area_count);
    enum level lvl = level_of(to);
    if ((rc = begin(env, &act, &ks, lv, from, to, yes, false, true)))
        return rc;
    uint32_t n = lv->segs[0].area_count;
    if (lv->status & LVX_LV_LOCKED || lvx_lv_snapshot_segs(lv, NULL, 0) > 0) {
        lvx_cmd_errorf("Can't convert RAID LV %s while under snapshot.", full);
        return LVX_EXIT_FAILED;
    }
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, vg, pv_args, pv_arg_count, &pvs, &pv_count)))
        return rc;
    /* new images are copied by whoever serves the LV: not a read-only daemon */
    if ((rc = lvx_lvconvert_refuse_read_only(env, &act, lv)))
        return rc;
    memset(&ch, 0, sizeof(ch));
    if ((rc = lvx_raid0_to_meta(env, u, lv, pvs, pv_count, &ch)))
        return rc;
    uint32_t add = lvl == L_R10 ? n : lvl == L_R6 ? 2 : 1;
    uint32_t region = lvx_raid_min_region_size(lv->le_count * (uint64_t)vg->extent_size,
                                               region_size ? region_size
                                                           : lvx_raid_default_region(env));
    struct lvx_free_maps *maps;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    lv->segs[0].region_size = region;
    if (lvx_raid_image_pv_count(env, lv, pvs, pv_count) < add) {   /* LVM2's allocator */
        uint64_t image = lv->segs[0].areas[0].lv->le_count;
        lvx_cmd_errorf("Insufficient suitable allocatable extents for logical volume : %llu "
                       "more required", (unsigned long long)(add * (image +
                       lvx_raid_rmeta_extents(image, region, vg->extent_size))));
        return LVX_EXIT_FAILED;
    }
    bool user = !act.be->rename_sub;
    /* LVM2's _clear_meta_lvs of a raid0_meta LV going to raid4: out of the live
     * table before their superblocks are wiped */
    if (!user && lvl == L_R4 && !strcmp(from, "raid0_meta") &&
        (rc = lvx_parity_clear_metas(env, u, &act, lv, NULL)))
        return rc;
    if (lvx_raid_add_images(env, vg, maps, lv, n + add, region, pvs, pv_count, &more) < 0)
        return lvx_cmd_fail(env);
    for (unsigned i = 0; i < more.added_n; i++)
        ch.added[ch.added_n++] = more.added[i];
    struct lvx_seg *seg = &lv->segs[0];
    if (lvl == L_R10) {              /* LVM2 leaves REBUILD on the new rimages only */
        reorder_near(seg);
        seg->data_copies = 2;
        for (uint32_t s = 0; s < seg->area_count; s++)
            seg->meta_areas[s].lv->status &= ~(uint32_t)LVX_LV_REBUILD;
    }
    if (lvl == L_R4) {               /* the parity pair first, names by position */
        lvx_parity_shift(seg, true);
        lvx_parity_rename(lv, "_", &ch);
    }
    lvx_parity_set_type(lv, to);
    ch.takeover = true;
    if (user && (rc = lvx_parity_wipe(env, u, lv)))
        return rc;
    if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
        return rc;
    if (lvl == L_R4) {               /* LVM2's second rename: the names without "_" */
        memset(&ch, 0, sizeof(ch));
        lvx_parity_rename(lv, "", &ch);
        ch.takeover = true;
        if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
            return rc;
    }
    lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
    return 0;
}

static int down(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                const char *to, bool yes, bool said)
{
    struct lvx_vg *vg = u->vg;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", vg->name, lv->name);
    enum level lvl = lv_level(lv);
    struct lvx_seg *seg = &lv->segs[0];
    const char *from = seg->type_name;
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    struct lvx_raid_change ch;
    int rc;

    if ((rc = begin(env, &act, &ks, lv, from, to, yes, said, false)))
        return rc;
    if (!lvx_lvconvert_in_sync(lv, &ks)) {
        lvx_cmd_errorf("Unable to convert %s while it is not in-sync.", full);
        return LVX_EXIT_FAILED;
    }
    if ((lvl == L_R4 || lvl == L_R5) && seg->area_count < 3) {
        lvx_cmd_errorf("Can't convert %s LV %s to %s with < 3 legs.", from, full, to);
        return LVX_EXIT_FAILED;
    }
    if (lv->status & LVX_LV_LOCKED || lvx_lv_snapshot_segs(lv, NULL, 0) > 0) {
        lvx_cmd_errorf("Can't convert RAID LV %s while under snapshot.", full);
        return LVX_EXIT_FAILED;
    }
    if ((rc = lvx_raid_free_reshape_space(env, u, &act, lv, &ks, NULL)))
        return rc;
    seg = &lv->segs[0];
    memset(&ch, 0, sizeof(ch));
    uint32_t keep = lvl == L_R10 ? seg->area_count / 2
                                 : seg->area_count - (lvl == L_R6 ? 2 : 1);
    if (lvl == L_R10)
        reorder_from_near(seg);
    if (lvl == L_R4)
        lvx_parity_shift(seg, false);
    lvx_parity_drop_tail(lv, keep, &ch);
    seg->region_size = 0;
    seg->data_copies = 0;
    lvx_parity_set_type(lv, "raid0_meta");
    if ((rc = lvx_raid0_from_meta(env, vg, lv, to, &ch)))
        return rc;
    ch.takeover = true;
    if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
        return rc;
    if (!strcmp(to, "raid0_meta") && act.be->rename_sub) {
        /* LVM2's _clear_meta_lvs, then the rmeta back in the table */
        if ((rc = lvx_parity_clear_metas(env, u, &act, lv, NULL)))
            return rc;
        memset(&ch, 0, sizeof(ch));
        if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
            return rc;
    } else if (!strcmp(to, "raid0_meta") && (rc = lvx_parity_wipe(env, u, lv))) {
        return rc;
    }
    lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
    return 0;
}

int lvx_lvconvert_parity(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                         const char *to, bool yes, uint32_t region_size, char **pv_args,
                         unsigned pv_arg_count)
{
    if (is_down_target(to))
        return down(env, u, lv, to, yes, false);
    return up(env, u, lv, to, yes, region_size, pv_args, pv_arg_count);
}

int lvx_lvconvert_parity_down(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                              const char *to, bool yes)
{
    return down(env, u, lv, to, yes, true);
}
