/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert.c - `lvx lvconvert -m N | --type raid1|linear [-R SIZE] [-y] VG/LV
 * [PV ...]`: the image count of raid1 LVs (linear -> raid1, more or fewer images,
 * raid1 -> linear), with LVM2 2.03.16's checks, prompts and messages.
 *
 * As LVM2, the LV must be active (a conversion is done on the live device), in the
 * kernel (dm) backend or in the user-space one (the daemon serves the RAID LV as one
 * file: no sub-LV devices to rename or remove; at the swap it re-reads the images and
 * rebuilds a new one, whose superblock is blank, from the others before serving on).
 * Sequence (LVM2's lv_update_and_reload): the model is changed (cmd/lvconvert_raid.c);
 * new rmeta sub-LVs get their first 4 KiB zeroed; devices of images that leave or move
 * down are renamed to their new names; the new table is staged (new sub-LV devices
 * made live first, the raid line with "rebuild N" for new images loaded next to the
 * live one); the metadata is committed; the table is swapped in (suspend/resume); the
 * devices of sub-LVs that left are removed; then the REBUILD flags, now in the kernel,
 * are cleared with a second commit.
 * --stripes N / -I / --type striped of linear and striped LVs (and --type linear of a
 * striped one) restripe them instead: cmd/lvconvert_restripe.c; --type raid1 of a
 * mirror and --type mirror of a raid1 LV: cmd/lvconvert_takeover.c; --type
 * striped|raid0|raid0_meta between striped, raid0 and raid0_meta LVs:
 * cmd/lvconvert_raid0.c; between RAID levels of a raid1/4/5/6 LV: cmd/lvconvert_level.c.
 */
#include "cmd/lvcmd.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_merge.h"
#include "cmd/thin_cmd.h"
#include "cmd/lvconvert_mirror.h"
#include "cmd/mirror_mlog.h"
#include "cmd/mirror_layer.h"
#include "cmd/mirror_repair.h"
#include "cmd/lvconvert_raid.h"
#include "cmd/lvconvert_region.h"
#include "cmd/lvconvert_raid_split.h"
#include "cmd/lvconvert_thin.h"
#include "cmd/lvconvert_restripe.h"
#include "cmd/lvcreate_raid.h"
#include "cmd/snapshot_cmd.h"
#include "config/config.h"
#include "map/map.h"
#include "model/restripe.h"
#include "model/snapshot.h"
#include "model/thin.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define ZERO_BYTES 4096u

struct convert_opts {
    const char *vg_name, *lv_name;
    char **pv_args;
    unsigned pv_arg_count;
    bool mirrors_given;
    uint32_t mirrors;
    int mirrors_sign;           /* -m +N / -m -N: relative to the image count */
    const char *type;           /* --type or NULL */
    const char *mirrorlog;      /* --mirrorlog (--corelog: "core") or NULL */
    bool region_given;
    uint32_t region_size;
    bool yes;
    bool repair;                /* --repair */
    char **replace;             /* --replace PVs */
    unsigned replace_count;
    bool merge;                 /* --merge, --mergethin, --mergesnapshot (cmd/lvconvert_merge.c) */
    bool background;            /* -b */
    unsigned interval;          /* -i, seconds between merge progress lines */
    bool wait_first;            /* -i +N: the poll waits N seconds before its first look */
    struct lvx_restripe_opts rs; /* --stripes, -I, --alloc (cmd/lvconvert_restripe.c) */
    char job[LVX_UUID_LEN + 1]; /* the LV whose restripe copy runs after the setup */
    bool split;                 /* --splitmirrors (cmd/lvconvert_raid_split.c) */
    struct lvx_split_opts so;
};

/* --splitmirrors N [--name NEW | --trackchanges]: LVM2's _read_params checks. */
static int split_args(struct lvx_cmd_env *env, struct convert_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    const char *t = a->value[LVX_OPT_TYPE];
    if (a->count[LVX_OPT_MIRRORS] ||
        (t && (!strcmp(t, "mirror") || !strncmp(t, "raid", 4)))) {
        lvx_cmd_errorf("--mirrors/--type mirror/--type raid* and --splitmirrors are "
                       "mutually exclusive.");
        return LVX_EXIT_INVALID;
    }
    o->so.track = a->count[LVX_OPT_TRACKCHANGES] > 0;
    o->so.name = a->value[LVX_OPT_NAME];
    if (!o->so.name && !o->so.track) {
        lvx_cmd_errorf("Please name the new logical volume using '--name'");
        return LVX_EXIT_INVALID;
    }
    if (o->so.name) {
        const char *slash = strrchr(o->so.name, '/');
        if (slash) {
            size_t l = (size_t)(slash - o->so.name);
            if (strlen(o->vg_name) != l || strncmp(o->so.name, o->vg_name, l)) {
                lvx_cmd_errorf("Logical volume name \"%s\" is invalid.", o->so.name);
                return LVX_EXIT_INVALID;
            }
            o->so.name = slash + 1;
        }
        int rc = lvx_lvcmd_check_new_name(NULL, o->so.name);
        if (rc)
            return rc;
    }
    o->split = true;
    o->so.count = (uint32_t)a->val[LVX_OPT_SPLITMIRRORS].n;
    o->so.yes = a->count[LVX_OPT_YES] > 0;
    o->so.pv_args = o->pv_args;
    o->so.pv_arg_count = o->pv_arg_count;
    return 0;
}

/* LVM2's command forms the options given match none of, exit 3 with its parser's
 * line: `lvconvert VG/LV` (no option choosing a conversion nor --startpoll: the plain
 * form, secondary syntax) is matched by LVM2 only when no option but -v is given (its
 * parser's special case: -q, -y, -b, -i, --config, --devices... all leave no form);
 * --mirrorlog alone takes neither -R nor -i; `lvconvert --startpoll LV` takes neither -i
 * (its OO_LVCONVERT: -b, --alloc, -f, --noudevsync) nor an option choosing a conversion
 * (that conversion's form, which refuses --startpoll). */
static int poll_form_args(struct lvx_cmd_env *env)
{
    const struct lvx_cmd_args *a = env->args;
    static const enum lvx_opt_id convs[] = {
        LVX_OPT_MIRRORS, LVX_OPT_TYPE, LVX_OPT_REGIONSIZE, LVX_OPT_REPAIR, LVX_OPT_REPLACE,
        LVX_OPT_MIRRORLOG, LVX_OPT_CORELOG, LVX_OPT_STRIPES, LVX_OPT_STRIPESIZE,
        LVX_OPT_USEPOLICIES, LVX_OPT_USE_POLICIES, LVX_OPT_THINPOOL, LVX_OPT_THIN,
        LVX_OPT_POOLMETADATA, LVX_OPT_POOLMETADATASIZE, LVX_OPT_POOLMETADATASPARE,
        LVX_OPT_CHUNKSIZE, LVX_OPT_ZERO, LVX_OPT_DISCARDS, LVX_OPT_ERRORWHENFULL,
        LVX_OPT_ORIGINNAME, LVX_OPT_READAHEAD, LVX_OPT_SWAPMETADATA, LVX_OPT_SNAPSHOT,
        LVX_OPT_SPLITSNAPSHOT, LVX_OPT_SPLITMIRRORS, LVX_OPT_TRACKCHANGES, LVX_OPT_NAME,
    };
    /* --mirrorlog alone (LVM2's `lvconvert --mirrorlog MirrorLog LV_mirror`) takes
     * neither -R nor -i */
    if (a->count[LVX_OPT_MIRRORLOG] && !a->count[LVX_OPT_MIRRORS] && !a->count[LVX_OPT_TYPE] &&
        (a->count[LVX_OPT_REGIONSIZE] || a->count[LVX_OPT_INTERVAL])) {
        bool region = a->count[LVX_OPT_REGIONSIZE] != 0;
        lvx_cmd_errorf("Command does not accept option: --%s %s.",
                       region ? "mirrorlog" : "interval",
                       a->value[region ? LVX_OPT_MIRRORLOG : LVX_OPT_INTERVAL]);
        return LVX_EXIT_INVALID;
    }
    for (unsigned i = 0; i < sizeof(convs) / sizeof(convs[0]); i++)
        if (a->count[convs[i]]) {
            if (!a->count[LVX_OPT_STARTPOLL])
                return 0;
            lvx_cmd_errorf("Command does not accept option: --startpoll.");
            return LVX_EXIT_INVALID;
        }
    if (a->count[LVX_OPT_STARTPOLL] && a->count[LVX_OPT_INTERVAL]) {
        lvx_cmd_errorf("Command does not accept option: --interval %s.",
                       a->value[LVX_OPT_INTERVAL]);
        return LVX_EXIT_INVALID;
    }
    unsigned given = 0;
    for (unsigned i = 0; i < LVX_OPT_COUNT; i++)
        if (i != LVX_OPT_VERBOSE)
            given += a->count[i];
    if (!a->count[LVX_OPT_STARTPOLL] && given) {
        lvx_cmd_errorf("No command with matching syntax recognised.  Run 'lvconvert --help' "
                       "for more information.");
        return LVX_EXIT_INVALID;
    }
    return 0;
}

static int parse_args(struct lvx_cmd_env *env, struct convert_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    int rc;
    memset(o, 0, sizeof(*o));
    if (a->argc < 1) {
        lvx_cmd_errorf("Please provide logical volume path.");
        return LVX_EXIT_INVALID;
    }
    if (!lvx_lvcmd_split_name(env, a->argv[0], &o->vg_name, &o->lv_name) || !o->lv_name) {
        lvx_cmd_errorf("Path required for Logical Volume \"%s\".", a->argv[0]);
        return LVX_EXIT_INVALID;
    }
    o->pv_args = a->argv + 1;
    o->pv_arg_count = (unsigned)a->argc - 1;
    o->merge = a->count[LVX_OPT_MERGE] || a->count[LVX_OPT_MERGETHIN] ||
               a->count[LVX_OPT_MERGESNAPSHOT];
    o->background = a->count[LVX_OPT_BACKGROUND] > 0;
    /* LVM2's activation/polling_interval unless -i */
    o->interval = a->count[LVX_OPT_INTERVAL] ? 0 : lvx_lvcmd_polling_interval(env);
    if ((rc = lvx_lvcmd_interval_sign(env, &o->interval, &o->wait_first)))
        return rc;
    if (o->merge) {                  /* LVM2's command definition: only -b and -i */
        static const enum lvx_opt_id others[] = { LVX_OPT_MIRRORS, LVX_OPT_TYPE,
            LVX_OPT_REGIONSIZE, LVX_OPT_REPAIR, LVX_OPT_REPLACE };
        for (unsigned i = 0; i < sizeof(others) / sizeof(others[0]); i++)
            if (a->count[others[i]]) {   /* LVM2 picks the other command, which refuses --merge */
                lvx_cmd_errorf("Command does not accept option: --merge.");
                return LVX_EXIT_INVALID;
            }
        if (a->argc > 1) {
            lvx_cmd_errorf("Too many arguments.");
            return LVX_EXIT_INVALID;
        }
        return 0;
    }
    if ((rc = poll_form_args(env)))
        return rc;
    if (a->count[LVX_OPT_SPLITMIRRORS])
        return split_args(env, o);
    if (a->count[LVX_OPT_TRACKCHANGES] || a->count[LVX_OPT_NAME]) {
        lvx_cmd_errorf("Command does not accept option: %s.",
                       a->count[LVX_OPT_NAME] ? "--name" : "--trackchanges");
        return LVX_EXIT_INVALID;
    }
    if ((rc = lvx_lvcmd_stripe_args(env, &o->rs.stripes, &o->rs.stripe_size)))
        return rc;
    o->rs.stripes_given = a->count[LVX_OPT_STRIPES] > 0;
    bool given;
    if ((rc = lvx_lvcmd_alloc_arg(env, &o->rs.policy, &given)))
        return rc;
    o->rs.pv_args = a->argv + 1;
    o->rs.pv_arg_count = (unsigned)a->argc - 1;
    bool mirror_type = (a->count[LVX_OPT_TYPE] && !strcmp(a->value[LVX_OPT_TYPE], "mirror")) ||
                       a->count[LVX_OPT_MIRRORLOG] || a->count[LVX_OPT_CORELOG];
    if (a->count[LVX_OPT_MIRRORS] && !mirror_type &&
        (a->count[LVX_OPT_STRIPES] || a->count[LVX_OPT_STRIPESIZE])) {
        lvx_cmd_errorf("lvx lvconvert does not combine --mirrors with --stripes or "
                       "--stripesize.");
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_TYPE] && !strcmp(a->value[LVX_OPT_TYPE], "linear") &&
        o->rs.stripes_given && o->rs.stripes != 1) {
        lvx_cmd_errorf("Command does not accept option: --stripes %s.",
                       a->value[LVX_OPT_STRIPES]);
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_TYPE] && !strcmp(a->value[LVX_OPT_TYPE], "linear")) {
        o->rs.stripes_given = true;
        o->rs.stripes = 1;
    }
    o->mirrors_given = a->count[LVX_OPT_MIRRORS] > 0;
    o->mirrors = o->mirrors_given ? (uint32_t)a->val[LVX_OPT_MIRRORS].n : 0;
    o->mirrors_sign = o->mirrors_given ? a->val[LVX_OPT_MIRRORS].sign : 0;
    o->type = a->value[LVX_OPT_TYPE];
    o->yes = a->count[LVX_OPT_YES] > 0;
    if ((rc = lvx_raid_region_arg(env, &o->region_size, &o->region_given)))
        return rc;
    o->repair = a->count[LVX_OPT_REPAIR] > 0;
    o->replace = (char **)a->val[LVX_OPT_REPLACE].items;
    o->replace_count = a->val[LVX_OPT_REPLACE].item_count;
    if (o->repair || o->replace_count) {
        if (o->repair && o->replace_count) {
            lvx_cmd_errorf("--repair and --replace are incompatible");   /* as LVM2's rules */
            return LVX_EXIT_INVALID;
        }
        if (o->mirrors_given || o->type) {
            lvx_cmd_errorf("Command does not accept option: %s.",
                           o->mirrors_given ? "--mirrors" : "--type");
            return LVX_EXIT_INVALID;
        }
        return 0;
    }
    o->mirrorlog = a->count[LVX_OPT_MIRRORLOG] ? a->value[LVX_OPT_MIRRORLOG]
                   : a->count[LVX_OPT_CORELOG] ? "core" : NULL;
    if (o->mirrorlog && strcmp(o->mirrorlog, "core") && strcmp(o->mirrorlog, "disk")) {
        if (!strcmp(o->mirrorlog, "mirrored") && lvx_mirror_mlog_allowed(env)) {
            /* cmd/mirror_mlog.c */
        } else if (!strcmp(o->mirrorlog, "mirrored")) {
            lvx_cmd_errorf("%s", LVX_MLOG_DEPRECATED);
            return LVX_EXIT_FAILED;
        } else {
            lvx_cmd_errorf("Mirror log type \"%s\" is unknown.", o->mirrorlog);
            lvx_cmd_errorf("Invalid argument for --mirrorlog: %s", o->mirrorlog);
            lvx_cmd_errorf("Error during parsing of command line.");
            return LVX_EXIT_INVALID;
        }
    }
    if ((o->type && !strcmp(o->type, "mirror")) || o->mirrorlog)
        return 0;                   /* cmd/lvconvert_mirror.c */
    if (o->type && strcmp(o->type, "raid1") && strcmp(o->type, "linear") &&
        strcmp(o->type, "striped") && strcmp(o->type, "raid0") && strcmp(o->type, "raid0_meta") &&
        strncmp(o->type, "raid5", 5) && strncmp(o->type, "raid6", 5) && strcmp(o->type, "raid10") &&
        strcmp(o->type, "raid4")) {
        lvx_cmd_errorf("lvx lvconvert does not convert to --type %s yet.", o->type);
        return LVX_EXIT_FAILED;
    }
    if (o->type && !strcmp(o->type, "linear")) {
        if (o->mirrors_given && o->mirrors) {      /* LVM2's command definitions */
            lvx_cmd_errorf("Command does not accept option: --mirrors %u.", o->mirrors);
            return LVX_EXIT_INVALID;
        }
        o->mirrors_given = true;
        o->mirrors = 0;
    }
    return 0;
}

/* The kernel state of an active LV, or the exit code after LVM2's message. */
int lvx_lvconvert_need_active(struct lvx_cmd_env *env, struct lvx_actcmd *act, const struct lvx_lv *lv,
                       struct lvx_lv_kstate *ks)
{
    if (!lvx_actcmd_is_active(env, act, lv, ks)) {
        lvx_cmd_errorf("%s/%s must be active to perform this operation.", lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    if (!act->be->raid) {
        lvx_cmd_errorf("lvx lvconvert changes RAID LVs through device-mapper only: the %s "
                       "backend does not serve RAID LVs yet.", act->be->name);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

bool lvx_lvconvert_in_sync(const struct lvx_lv *lv, const struct lvx_lv_kstate *ks)
{
    if (!lvx_map_lv_is_raid(lv))
        return true;
    return ks->raid && ks->sync_total && ks->sync_done == ks->sync_total;
}

int lvx_lvconvert_refuse_read_only(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                   const struct lvx_lv *lv)
{
    if (!act->be || !act->be->status || act->be->rename_sub)   /* dm: the kernel copies */
        return 0;
    struct lvx_lv_kstate ks;
    memset(&ks, 0, sizeof(ks));
    if (act->be->status(env->ctx, lv, &ks) < 0)
        return lvx_cmd_fail(env);
    if (!ks.active || !ks.read_only)
        return 0;
    lvx_cmd_errorf("lvx cannot copy new images of %s/%s while it is active read-only: "
                   "change it to read-write first.", lv->vg->name, lv->name);
    return LVX_EXIT_FAILED;
}

/* Does sub have extents on a PV of pvs (every PV when n is 0)? */
static bool sub_on(const struct lvx_lv *sub, const struct lvx_alloc_pv *pvs, unsigned n)
{
    if (!n)
        return true;
    for (unsigned i = 0; sub && i < sub->seg_count; i++)
        for (uint32_t a = 0; sub->segs[i].areas && a < sub->segs[i].area_count; a++)
            for (unsigned p = 0; p < n; p++)
                if (sub->segs[i].areas[a].pv && sub->segs[i].areas[a].pv == pvs[p].pv)
                    return true;
    return false;
}

/* LVM2's _raid_allow_extraction for a raid1 LV that is not in sync: the images on the
 * PVs named (every image when none are), from the first. */
static bool allow_extraction(const struct lvx_lv *lv, const struct lvx_lv_kstate *ks,
                             uint32_t new_count, const struct lvx_alloc_pv *pvs, unsigned n)
{
    if (lvx_lvconvert_in_sync(lv, ks))
        return true;
    const struct lvx_seg *seg = &lv->segs[0];
    if (!ks->raid)
        return true;
    bool meta = seg->meta_areas != NULL;
    if (!strcmp(ks->sync_action, "resync")) {
        if (!sub_on(seg->areas[0].lv, pvs, n) && !(meta && sub_on(seg->meta_areas[0].lv, pvs, n)))
            return true;
        lvx_cmd_errorf("Unable to remove primary RAID image while array resyncing.");
        return false;
    }
    if (strcmp(ks->sync_action, "recover") && strcmp(ks->sync_action, "rebuild") &&
        strcmp(ks->sync_action, "idle")) {
        lvx_cmd_errorf("Unable to remove RAID image while array is performing \"%s\"",
                       ks->sync_action);
        return false;
    }
    uint32_t redundancy = 0, extract = seg->area_count - new_count;
    for (uint32_t s = 0; s < seg->area_count && ks->raid_health[s]; s++)
        redundancy += ks->raid_health[s] == 'A';
    for (uint32_t s = 0; s < seg->area_count && ks->raid_health[s] && extract; s++) {
        if (!sub_on(seg->areas[s].lv, pvs, n) && !(meta && sub_on(seg->meta_areas[s].lv, pvs, n)))
            continue;
        if (ks->raid_health[s] == 'A' && !--redundancy) {
            lvx_cmd_errorf("Unable to remove all primary source devices");
            return false;
        }
        extract--;
    }
    return true;
}

/* The kernel's raid status just after a table was loaded (the command before changed
 * the LV): not in sync, no image 'A' (dm-raid's resyncing flag set before md has
 * started its recovery: "idle", then for a moment "recover"), while a recovery has an
 * in-sync image to copy from.  Read so, every image would count as out of sync and
 * allow_extraction would let the last in-sync image go: read it again, every 100 ms
 * for at most 5 s, until an image shows 'A' (a "resync" has none: not waited for).
 * LVM2's own commands take longer between their reload and their next status read;
 * its lvconvert-raid.sh removes an image right after adding one and expects the
 * refusal. */
static void settle_status(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                          const struct lvx_lv *lv, struct lvx_lv_kstate *ks)
{
    for (int i = 0; i < 50; i++) {
        if (!ks->raid || lvx_lvconvert_in_sync(lv, ks) || !strcmp(ks->sync_action, "resync") ||
            !ks->raid_health[0] || strspn(ks->raid_health, "a") != strlen(ks->raid_health))
            return;
        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        if (!lvx_actcmd_is_active(env, act, lv, ks))
            return;
    }
}

/* Rename the device of sub from old_name to its name (forward) or back (undo). */
static int rename_one(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                      struct lvx_lv *sub, const char *old_name, bool undo)
{
    if (!undo)
        return act->be->rename_sub(env->ctx, sub, old_name);
    const char *now = sub->name;
    sub->name = old_name;
    int rc = act->be->rename_sub(env->ctx, sub, now);
    sub->name = now;
    return rc;
}

/* Rename the devices of images that left or moved (gone ones first: a moved image may
 * take the name a gone one had).  A backend without sub-LV devices (user: the daemon
 * serves the RAID LV as one file and re-reads its images at the reload) has none.
 * undo renames them back, in the reverse order, after a later stage failed; a failed
 * rename undoes the ones before it.  *done counts the renames made. */
static int rename_devices(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                          const struct lvx_raid_change *ch, bool undo, unsigned *done)
{
    if (!act->be->rename_sub)
        return 0;
    struct lvx_lv *sub[2 * LVX_RAID_CHANGE_MAX];
    const char *old[2 * LVX_RAID_CHANGE_MAX];
    unsigned n = 0;
    for (unsigned i = 0; i < ch->gone_n; i++)
        if (strcmp(ch->gone_old[i], ch->gone[i]->name)) {
            sub[n] = ch->gone[i];
            old[n++] = ch->gone_old[i];
        }
    /* moved ones from the lowest new number up: each takes a name freed before */
    for (unsigned i = 0; i < ch->moved_n; i++) {
        sub[n] = ch->moved[i];
        old[n++] = ch->moved_old[i];
    }
    if (undo) {
        for (unsigned i = *done; i-- > 0;)
            if (rename_one(env, act, sub[i], old[i], true) < 0) {
                lvx_cmd_errorf("Failed to rename the device of %s/%s back to %s.",
                               sub[i]->vg->name, sub[i]->name, old[i]);
                lvx_error_clear(env->ctx);
            }
        *done = 0;
        return 0;
    }
    for (*done = 0; *done < n; ++*done)
        if (rename_one(env, act, sub[*done], old[*done], false) < 0) {
            int rc = lvx_cmd_fail(env);
            rename_devices(env, act, ch, true, done);
            return rc;
        }
    return 0;
}

static void drop_devices(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                         struct lvx_lv *const *subs, unsigned n)
{
    if (!act->be->rename_sub)          /* no sub-LV devices (see rename_devices) */
        return;
    for (unsigned i = n; i-- > 0;)
        if (act->be->deactivate(env->ctx, subs[i], NULL) < 0) {
            lvx_cmd_fail(env);
            lvx_error_clear(env->ctx);
        }
}

/* A takeover's end (lvx_raid_change.takeover): REBUILD cleared on the images, then
 * stage, commit, swap once more. */
static int reload_cleared(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                          struct lvx_actcmd *act, struct lvx_lv *lv)
{
    bool any = false;
    const struct lvx_seg *seg = &lv->segs[0];
    for (uint32_t s = 0; lvx_map_lv_is_raid(lv) && s < seg->area_count; s++)
        if (seg->areas[s].lv->status & LVX_LV_REBUILD) {
            seg->areas[s].lv->status &= ~(uint32_t)LVX_LV_REBUILD;
            any = true;
        }
    if (!any)
        return 0;
    if (act->be->stage(env->ctx, lv, &act->opts) < 0)
        return lvx_cmd_fail(env);
    int rc = lvx_lvcmd_commit(env, u);
    if (rc) {
        if (act->be->unstage(env->ctx, lv) < 0)
            lvx_error_clear(env->ctx);
        return rc;
    }
    return lvx_actcmd_finish(env, act, lv, true);
}

int lvx_lvconvert_reload(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                         struct lvx_lv *lv, const struct lvx_raid_change *ch)
{
    int rc;
    if (env->args->count[LVX_OPT_TEST])
        return lvx_lvcmd_commit(env, u);
    for (unsigned i = 0; i < ch->added_n; i++)
        if (!strstr(ch->added[i]->name, "_rimage_") && !strstr(ch->added[i]->name, "_mimage_") &&
            lvx_lvcmd_zero_start(env, u, ch->added[i], ZERO_BYTES) < 0)
            return lvx_cmd_fail(env);
    unsigned renamed = 0;
    if ((rc = rename_devices(env, act, ch, false, &renamed)))
        return rc;
    if (act->be->stage(env->ctx, lv, &act->opts) < 0) {
        rc = lvx_cmd_fail(env);
        rename_devices(env, act, ch, true, &renamed);
        return rc;
    }
    if ((rc = lvx_lvcmd_commit(env, u))) {
        if (act->be->unstage(env->ctx, lv) < 0)
            lvx_error_clear(env->ctx);
        drop_devices(env, act, ch->added, ch->added_n);
        rename_devices(env, act, ch, true, &renamed);
        return rc;
    }
    if ((rc = lvx_actcmd_finish(env, act, lv, true)))
        return rc;
    drop_devices(env, act, ch->gone, ch->gone_n);
    if (ch->takeover)
        return reload_cleared(env, u, act, lv);
    if (lvx_raid_clear_rebuild(lv) && (rc = lvx_lvcmd_commit(env, u))) {
        lvx_cmd_errorf("Failed to clear REBUILD flag for %s/%s components.", lv->vg->name,
                       lv->name);
        return rc;
    }
    return 0;
}

static bool confirm(struct lvx_cmd_env *env, const struct convert_opts *o, const char *q)
{
    if (o->yes)
        return true;
    return lvx_lvcmd_confirm(lvx_pool_printf(env->pool, "%s", q));
}

static int change_images(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                         struct convert_opts *o, struct lvx_lv *lv, uint32_t new_count)
{
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    struct lvx_raid_change ch;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    uint32_t old = lvx_raid_image_count(lv);
    const char *segname = lvx_seg_report_type(&lv->segs[0]);
    int rc;

    if (new_count > LVX_RAID1_MAX_IMAGES) {
        lvx_cmd_errorf("Only up to %u mirrors in raid1 LV %s supported currently.",
                       LVX_RAID1_MAX_IMAGES, full);
        return LVX_EXIT_FAILED;
    }
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    if ((rc = lvx_lvconvert_need_active(env, &act, lv, &ks)))
        return rc;
    if (new_count != 1 &&
        !confirm(env, o, lvx_pool_printf(env->pool, "Are you sure you want to convert %s LV %s "
                                         "to %s%u images %s resilience?", segname, full,
                                         old == 1 ? "raid1 with " : "", new_count,
                                         new_count < old ? "reducing" : "enhancing"))) {
        lvx_cmd_errorf("Logical volume %s NOT converted.", full);
        return LVX_EXIT_FAILED;
    }
    bool degraded = lvx_map_lv_is_raid(lv) && lvx_raid_failed_images(lv) && new_count >= old;
    if (degraded) {
        lvx_cmd_errorf("Can't change number of mirrors of degraded %s.", full);
        lvx_cmd_errorf("Please run \"lvconvert --repair %s\" first.", full);
    }
    if (old == new_count) {
        lvx_warn(env->ctx, "WARNING: %s already has image count of %u.", full, new_count);
        if (degraded)
            return LVX_EXIT_FAILED;
        lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
        return 0;
    }
    if (degraded)
        return LVX_EXIT_FAILED;

    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if ((rc = lvx_lvcmd_pv_args(env, u->vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)))
        return rc;
    if (new_count > old) {
        if ((rc = lvx_lvconvert_refuse_read_only(env, &act, lv)))
            return rc;
        if (lv->status & LVX_LV_NOTSYNCED) {
            lvx_cmd_errorf("Can't add image to out-of-sync RAID LV: use 'lvchange --resync' "
                           "first.");
            return LVX_EXIT_FAILED;
        }
        if (!lvx_lvconvert_in_sync(lv, &ks)) {
            lvx_cmd_errorf("Can't add image to RAID LV that is still initializing.");
            return LVX_EXIT_FAILED;
        }
        /* the region size: -R, else the LV's (a linear LV's: the default), raised for
         * the 2^21-region bitmap (LVM2's _check_and_adjust_region_size) */
        uint32_t rs = o->region_given || old == 1 ? o->region_size : lv->segs[0].region_size;
        uint64_t size = lv->le_count * (uint64_t)u->vg->extent_size;
        uint32_t adj = lvx_raid_min_region_size(size, rs);
        if (adj != rs)
            lvx_notice(env->ctx, "Adjusting region size of %s LV from %s to %s.", full,
                       lvx_lvcmd_size(env, rs), lvx_lvcmd_size(env, adj));
        struct lvx_free_maps *maps;
        if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
            return rc;
        if (lvx_raid_add_images(env, u->vg, maps, lv, new_count, adj, pvs, pv_count, &ch) < 0)
            return lvx_cmd_fail(env);
    } else {
        settle_status(env, &act, lv, &ks);
        if (!allow_extraction(lv, &ks, new_count, pvs, pv_count))
            return LVX_EXIT_FAILED;
        if (new_count == 1 &&
            !confirm(env, o, lvx_pool_printf(env->pool, "Are you sure you want to convert %s "
                                             "LV %s to type linear losing all resilience?",
                                             segname, full))) {
            lvx_cmd_errorf("Logical volume %s NOT converted to \"linear\".", full);
            return LVX_EXIT_FAILED;
        }
        if (lvx_raid_remove_images(env, lv, new_count, pvs, pv_count, &ch) < 0) {
            lvx_cmd_fail(env);
            lvx_cmd_errorf("Failed to extract images from %s.", full);
            return LVX_EXIT_FAILED;
        }
    }
    if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
        return rc;
    lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
    return 0;
}

/* Every segment of lv striped (or linear): what --type mirror turns into _mimage_0. */
static bool all_striped(const struct lvx_lv *lv)
{
    for (unsigned s = 0; s < lv->seg_count; s++)
        if (lv->segs[s].kind != LVX_SEG_STRIPED || !lv->segs[s].area_count)
            return false;
    return lv->seg_count > 0;
}

/* `--type striped --stripes N` (N > 1) or --type raid4|raid5*|raid6*|raid10 of a linear
 * LV active in the kernel: LVM2's interim raid1 of 2 images (lvx restripes such an LV
 * itself in the user backend or inactive, and refuses one active in dm). */
static bool linear_to_striped_in_kernel(struct lvx_cmd_env *env, const struct convert_opts *o,
                                        const struct lvx_lv *lv)
{
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    if (!o->type || o->mirrors_given || !lvx_raid_lv_is_linear(lv))
        return false;
    bool striped = !strcmp(o->type, "striped");
    if (striped ? !o->rs.stripes_given || o->rs.stripes < 2
                : strcmp(o->type, "raid4") && strncmp(o->type, "raid5", 5) &&
                  strncmp(o->type, "raid6", 5) && strcmp(o->type, "raid10"))
        return false;
    if (lvx_restripe_rsv(lv) || lvx_restripe_old(lv) || lvx_actcmd_init(env, &act))
        return false;
    return lvx_actcmd_is_active(env, &act, lv, &ks) && !strcmp(act.be->name, "dm");
}

/* ... LVM2's lines (the type replaced, --stripes and -I not allowed), then raid1. */
static int linear_raid1_interim(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                                struct convert_opts *o, struct lvx_lv *lv)
{
    const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
    /* LVM2's log_warn lines: on stderr, without a "WARNING:" */
    const char *a = lvx_parity_alias(o->type);
    lvx_cmd_errorf("Replaced LV type %s%s%s%s with possible type raid1.", o->type,
                   a ? " (same as " : "", a ? a : "", a ? ")" : "");
    lvx_cmd_errorf("Repeat this command to convert to %s after an interim conversion "
                   "has finished.", o->type);
    if (o->rs.stripes_given && o->rs.stripes > 1)
        lvx_cmd_errorf("--stripes not allowed for LV %s when converting from linear to raid1.",
                       full);
    if (env->args->count[LVX_OPT_STRIPESIZE]) {
        lvx_cmd_errorf("-I/--stripesize not allowed for LV %s when converting from linear to "
                       "raid1.", full);
        lvx_warn(env->ctx, "WARNING: ignoring --stripesize option on takeover of %s (reshape "
                 "afterwards).", full);
    }
    return change_images(env, u, o, lv, 2);
}

/* --repair / --replace: LVM2's lv_raid_replace over the failed (missing) PVs or the
 * PVs named. */
static int replace_images(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                          struct convert_opts *o, struct lvx_lv *lv)
{
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    struct lvx_raid_change ch;
    struct lvx_vg *vg = u->vg;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", vg->name, lv->name);
    const char *action = "replace";
    int rc;

    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    if ((rc = lvx_lvconvert_need_active(env, &act, lv, &ks)))
        return rc;
    if (o->repair && (env->args->count[LVX_OPT_USEPOLICIES] ||
                      env->args->count[LVX_OPT_USE_POLICIES])) {
        /* dmeventd's command: lvm.conf's activation/raid_fault_policy, "warn" unless
         * "allocate" (or "replace") */
        struct lvx_config *cfg = NULL;
        if (lvx_config_load(env->ctx, &cfg) < 0)
            lvx_error_clear(env->ctx);
        const char *policy = lvx_config_str(cfg, "activation/raid_fault_policy", "warn");
        bool replace = !strcmp(policy, "allocate") || !strcmp(policy, "replace");
        lvx_config_free(cfg);
        if (!replace) {
            lvx_warn(env->ctx, "Use 'lvconvert --repair %s' to replace failed device.", full);
            return 0;
        }
    } else if (o->repair && !o->yes &&
               !lvx_lvcmd_confirm("Attempt to replace failed RAID images (requires full "
                                  "device resync)?")) {
        return 0;                       /* LVM2: not an error */
    }
    /* the PVs to leave: the missing ones holding extents, or those named */
    struct lvx_alloc_pv *remove = NULL, *pvs = NULL;
    unsigned remove_n = 0, pv_count = 0;
    if (o->repair) {
        remove = lvx_pool_alloc(env->pool, (vg->pv_count ? vg->pv_count : 1) * sizeof(*remove));
        for (unsigned i = 0; i < vg->pv_count; i++)
            if (!vg->pvs[i]->ondisk.present && lvx_pv_alloc_count(vg->pvs[i]))
                remove[remove_n++] = (struct lvx_alloc_pv){ vg->pvs[i], 0, NULL };
    } else if ((rc = lvx_lvcmd_pv_args(env, vg, o->replace, o->replace_count, &remove,
                                       &remove_n))) {
        return rc;
    }
    if ((rc = lvx_lvcmd_pv_args(env, vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)))
        return rc;
    /* images the kernel (or the daemon) reports dead, their PVs present (a transient
     * failure, LVM2's lv_check_transient): replaced by a repair too */
    bool *dead = NULL;
    uint32_t slots = lv->seg_count ? lv->segs[0].area_count : 0;
    if (o->repair && ks.raid && strlen(ks.raid_health) == slots) {
        dead = lvx_pool_alloc(env->pool, (slots ? slots : 1) * sizeof(*dead));
        for (uint32_t s = 0; s < slots; s++)
            dead[s] = ks.raid_health[s] == 'D';
    }
    if (!lvx_lvconvert_in_sync(lv, &ks)) {
        lvx_cmd_errorf("Unable to replace devices in %s while it is not in-sync.", full);
        return o->repair ? (lvx_cmd_errorf("Failed to replace faulty devices in %s.", full),
                            LVX_EXIT_FAILED) : LVX_EXIT_FAILED;
    }
    if ((rc = lvx_lvconvert_refuse_read_only(env, &act, lv)))
        return rc;
    struct lvx_free_maps *maps;
    uint32_t n;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    if (lvx_raid_replace_images(env, vg, maps, lv, remove, remove_n, dead, pvs, pv_count, action,
                                &ch, &n) < 0) {
        lvx_cmd_fail(env);
        if (o->repair)
            lvx_cmd_errorf("Failed to replace faulty devices in %s.", full);
        return LVX_EXIT_FAILED;
    }
    if (!n) {
        if (remove_n && !o->repair) {
            lvx_cmd_errorf("Logical volume %s does not contain devices specified to %s.", full,
                           action);
            return LVX_EXIT_FAILED;
        }
        lvx_notice(env->ctx, "%s does not contain devices specified to %s.", full, action);
        return 0;
    }
    /* LVM2 reloads twice: with the new images rebuilding, then without REBUILD */
    if ((rc = lvx_lvconvert_reload(env, u, &act, lv, &ch)))
        return rc;
    if (!env->args->count[LVX_OPT_TEST] && lvx_actcmd_stage(env, &act, lv, &(bool){ false }) == 0)
        if (lvx_actcmd_finish(env, &act, lv, true))
            return LVX_EXIT_FAILED;
    if (o->repair)
        lvx_notice(env->ctx, "Faulty devices in %s successfully replaced.", full);
    return 0;
}

static int convert_in_vg(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct convert_opts *o)
{
    struct lvx_lv *lv = lvx_vg_find_lv(u->vg, o->lv_name);
    if (!lv) {
        lvx_cmd_errorf("Failed to find logical volume \"%s/%s\"", o->vg_name, o->lv_name);
        return LVX_EXIT_FAILED;
    }
    if ((env->args->count[LVX_OPT_MERGETHIN] && !lvx_lv_is_thin(lv)) ||
        (env->args->count[LVX_OPT_MERGESNAPSHOT] && !lvx_lv_is_cow(lv))) {
        /* LVM2's command definitions: LV_thin, LV_snapshot */
        lvx_cmd_errorf("Command on LV %s/%s does not accept LV type %s.", lv->vg->name, lv->name,
                       lvx_lvcmd_lv_type(lv));
        lvx_cmd_errorf("Command not permitted on LV %s/%s.", lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    if (o->merge && lvx_raid_merge_wanted(lv))
        return lvx_lvconvert_raid_merge(env, u, lv);
    if (o->merge && lvx_lv_is_thin(lv))
        return lvx_lvconvert_merge_thin(env, u, lv);
    if (o->repair && lvx_lv_is_thin_pool(lv))
        return lvx_lvconvert_thin_repair(env, u, lv, o->pv_args, o->pv_arg_count);
    if (o->merge)
        return lvx_lvconvert_merge(env, u, lv, o->interval, o->background);
    const char *role = NULL;
    const struct lvx_seg *user = lvx_lv_used_by(lv, &role);
    /* a mirror that is the origin of COW snapshots is repaired as LVM2 does, the
     * snapshots kept over it (cmd/mirror_repair.c) */
    bool snap_origin = user && user->kind == LVX_SEG_SNAPSHOT && role && !strcmp(role, "origin");
    if (snap_origin && lvx_map_lv_is_mirror(lv) && !o->repair && o->mirrors_given &&
        o->mirrors_sign >= 0 &&
        (o->mirrors_sign ? o->mirrors : o->mirrors + 1) >
            (o->mirrors_sign ? 0 : lv->segs[0].area_count)) {
        lvx_cmd_errorf("Can't add additional mirror images to mirror %s/%s which is under "
                       "snapshots.", lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    /* LVM2 changes the image count of a raid1 (or linear) origin under its COW
     * snapshots: the origin's own table is what changes (dm: its -real layer; user:
     * the origin's file, its RAID target inner to the snapshot-origin one) */
    bool origin_images = snap_origin && !o->repair && !o->replace_count && o->mirrors_given &&
                         (!o->type || !strcmp(o->type, "raid1")) && !o->mirrorlog &&
                         (lvx_raid_lv_is_linear(lv) ||
                          (lvx_map_lv_is_raid(lv) && !strcmp(lv->segs[0].type_name, "raid1")));
    /* a thin pool's data or metadata LV: LVM2 splits images off a raid1 one
     * (--splitmirrors, --trackchanges), changes the image count of a linear or raid1 one
     * (-m, --type raid1 -m) and takes a striped one over to raid10 (raid4/5/6) and
     * back like a top-level LV's (raid0: lvx's takeover of an inactive LV is not for a
     * pool's sub-LV); in dm only its own device is reloaded, the pool
     * above it stays live */
    bool sub_raid1 = lvx_map_lv_is_raid(lv) && !strcmp(lv->segs[0].type_name, "raid1");
    bool pool_sub = user && user->kind == LVX_SEG_THIN_POOL && role &&
                    (!strcmp(role, "tdata") || !strcmp(role, "tmeta")) && !o->mirrorlog &&
                    !o->repair && !o->replace_count &&
                    ((o->split && sub_raid1) ||
                     (o->mirrors_given && (!o->type || !strcmp(o->type, "raid1")) &&
                      (sub_raid1 || lvx_raid_lv_is_linear(lv))) ||
                     (!o->mirrors_given && !o->split && lvx_parity_takeover_wanted(lv, o->type)));
    /* LVM2 converts a mirror origin under its COW snapshots too (fewer images, the
     * log) and a linear origin to a mirror: in dm its -real layer's table changes, in
     * the user backend the origin's file is reloaded (its mirror target inner) */
    bool origin_mirror = snap_origin && !o->repair && !o->replace_count && !o->split &&
                         (lvx_map_lv_is_mirror(lv) ||
                          (lvx_raid_lv_is_linear(lv) && o->type && !strcmp(o->type, "mirror")));
    /* --type raid1 without -m of a linear origin: LVM2's takeover refuses it late, after
     * its check that the LV is active and its question */
    if (snap_origin && !o->mirrors_given && !o->repair && !o->replace_count && !o->split &&
        o->type && !strcmp(o->type, "raid1") && lvx_raid_lv_is_linear(lv)) {
        const char *full = lvx_pool_printf(env->pool, "%s/%s", lv->vg->name, lv->name);
        struct lvx_actcmd act;
        struct lvx_lv_kstate ks;
        int rc = lvx_actcmd_init(env, &act);
        if (rc)
            return rc;
        if (!lvx_actcmd_is_active(env, &act, lv, &ks)) {
            lvx_cmd_errorf("%s must be active to perform this operation.", full);
            return LVX_EXIT_FAILED;
        }
        if (!confirm(env, o, lvx_pool_printf(env->pool, "Are you sure you want to convert "
                                             "linear LV %s to raid1 type?", full))) {
            lvx_cmd_errorf("Logical volume %s NOT converted.", full);
            return LVX_EXIT_FAILED;
        }
        lvx_cmd_errorf("Can't convert RAID LV %s while under snapshot.", full);
        return LVX_EXIT_FAILED;
    }
    if (user && !(snap_origin && o->repair && lvx_map_lv_is_mirror(lv)) && !origin_images &&
        !origin_mirror && !pool_sub) {
        lvx_cmd_errorf("Can't convert logical volume %s/%s: it is a sub-LV (%s).", lv->vg->name,
                       lv->name, role ? role : "sub-LV");
        return LVX_EXIT_FAILED;
    }
    if (lvx_raid_tracked_image(lv)) {   /* LVM2: a split too */
        lvx_cmd_errorf("Conversion of tracking raid1 LV %s/%s is not supported.", lv->vg->name,
                       lv->name);
        return LVX_EXIT_FAILED;
    }
    if (user && user->kind == LVX_SEG_RAID && lvx_raid_tracked_image(user->lv)) {
        lvx_cmd_errorf("Conversion of tracked raid1 subvolume %s/%s is not supported.",
                       lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    /* LVM2's raid-types path: --type mirror wants -m unless the LV is raid1 (a takeover),
     * before anything else is looked at (the layer, the LV's state) */
    if (o->type && !strcmp(o->type, "mirror") && !o->mirrors_given && !sub_raid1 &&
        (all_striped(lv) || lvx_map_lv_is_mirror(lv) || lvx_map_lv_is_raid(lv))) {
        lvx_cmd_errorf("Conversions to --type mirror require -m/--mirrors");
        return LVX_EXIT_FAILED;
    }
    if (lvx_map_mirror_sync_layer(lv)) {     /* LVM2's CONVERTING (mirror_layer_convert.c) */
        int lrc = lvx_mirror_layer_refuse_other(env, lv, o->split, o->repair, o->type);
        if (lrc)
            return lrc;
    }
    if (o->split && (!user || pool_sub))
        return lvx_lvconvert_split(env, u, lv, &o->so);
    if (lvx_restripe_is_rsv(lv)) {
        lvx_cmd_errorf("Can't convert logical volume %s/%s: it holds the restripe of another LV.",
                       lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    /* LVM2 takes over no LV with images left to remove by lvconvert --stripes */
    if (!o->mirrors_given && !env->args->count[LVX_OPT_STRIPES] && o->type &&
        !lvx_reshape_wanted(env, lv, o->type) && lvx_reshape_removal_pending(lv, o->type))
        return LVX_EXIT_FAILED;
    if (!o->mirrors_given && !env->args->count[LVX_OPT_STRIPES] &&
        !env->args->count[LVX_OPT_STRIPESIZE] &&
        lvx_lvconvert_region_wanted(lv, o->type, o->region_given))
        return lvx_lvconvert_region(env, u, lv, o->region_size, o->yes, o->type != NULL);
    /* (--type linear is -m 0 here) */
    if ((!o->mirrors_given || !strcmp(o->type ? o->type : "", "linear")) &&
        lvx_level_interim_wanted(env, lv, o->type, o->rs.stripes)) {
        o->rs.region_size = o->region_given ? o->region_size : 0;
        return lvx_lvconvert_interim(env, u, lv, o->type, o->yes, &o->rs);
    }
    if (!o->mirrors_given && !env->args->count[LVX_OPT_STRIPES] &&
        !env->args->count[LVX_OPT_STRIPESIZE] && lvx_parity_takeover_wanted(lv, o->type))
        return lvx_lvconvert_parity(env, u, lv, o->type, o->yes,
                                    o->region_given ? o->region_size : 0, o->pv_args,
                                    o->pv_arg_count);
    bool raid1 = lvx_map_lv_is_raid(lv) && !strcmp(lv->segs[0].type_name, "raid1");
    if (!o->mirrors_given && ((!env->args->count[LVX_OPT_STRIPES] &&
                               !env->args->count[LVX_OPT_STRIPESIZE]) || raid1) &&
        lvx_level_takeover_wanted(lv, o->type))
        return lvx_lvconvert_level(env, u, lv, o->type, o->yes,
                                   o->region_given ? o->region_size : 0, o->pv_args,
                                   o->pv_arg_count);
    if (!o->mirrors_given && !env->args->count[LVX_OPT_STRIPES] &&
        !env->args->count[LVX_OPT_STRIPESIZE] && lvx_raid0_takeover_wanted(lv, o->type))
        return lvx_lvconvert_raid0(env, u, lv, o->type, o->yes, o->pv_args, o->pv_arg_count);
    if (o->type && !strncmp(o->type, "raid0", 5)) {
        lvx_cmd_errorf("lvx lvconvert does not convert %s/%s (%s) to --type %s yet.", lv->vg->name,
                       lv->name, lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "empty",
                       o->type);
        return LVX_EXIT_FAILED;
    }
    if (lvx_reshape_wanted(env, lv, o->type)) {
        o->rs.region_size = o->region_given ? o->region_size : 0;
        return lvx_lvconvert_reshape(env, u, lv, o->type, &o->rs);
    }
    if (linear_to_striped_in_kernel(env, o, lv))
        return linear_raid1_interim(env, u, o, lv);
    if (lvx_restripe_wanted(env, lv, o->type, env->args->count[LVX_OPT_MIRRORS] > 0))
        return lvx_lvconvert_restripe(env, u, lv, &o->rs, o->job);
    bool mirror = lvx_map_lv_is_mirror(lv);
    bool to_mirror = (o->type && !strcmp(o->type, "mirror")) ||
                     (!o->type && o->mirrors_given && o->mirrors && lvx_raid_lv_is_linear(lv) &&
                      lvx_raid_default_is_mirror(env));
    if (o->type && !o->mirrors_given && !o->mirrorlog &&
        ((mirror && !strcmp(o->type, "raid1")) || (raid1 && !strcmp(o->type, "mirror"))))
        return lvx_lvconvert_takeover(env, u, lv, mirror, o->region_given, o->region_size,
                                      o->yes, o->pv_args, o->pv_arg_count);
    if (mirror && o->repair) {
        for (unsigned i = 0; i < u->vg->pv_count; i++)       /* written as MISSING */
            if (!u->vg->pvs[i]->ondisk.present)
                u->vg->pvs[i]->flags |= LVX_PVF_MISSING;
        struct lvx_mirror_repair r = {
            .use_policies = env->args->count[LVX_OPT_USEPOLICIES] != 0 ||
                            env->args->count[LVX_OPT_USE_POLICIES] != 0,
            .force = env->args->count[LVX_OPT_FORCE] != 0, .yes = o->yes,
        };
        struct lvx_alloc_pv *pvs = NULL;
        int rc = lvx_lvcmd_pv_args(env, u->vg, o->pv_args, o->pv_arg_count, &pvs, &r.pv_count);
        if (rc)
            return rc;
        r.pvs = pvs;
        return lvx_mirror_repair(env, u, lv, &r);
    }
    if (mirror && !o->mirrors_given && !o->mirrorlog && !o->type && o->region_given) {
        /* LVM2: -R alone is a RAID LV's command (--type mirror without -m: above) */
        lvx_cmd_errorf("Command on LV %s/%s does not accept LV type mirror.", lv->vg->name,
                       lv->name);
        lvx_cmd_errorf("Command not permitted on LV %s/%s.", lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    if (mirror || to_mirror || o->mirrorlog) {
        if (!mirror && !lvx_raid_lv_is_linear(lv) && !(to_mirror && all_striped(lv))) {
            lvx_cmd_errorf("lvx lvconvert makes mirrors of linear LVs only, not of %s/%s (%s).",
                           lv->vg->name, lv->name,
                           lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "empty");
            return LVX_EXIT_FAILED;
        }
        struct lvx_mirror_conv c = {
            .mirrors_given = o->mirrors_given, .mirrors = o->mirrors,
            .mirrors_sign = o->mirrors_sign, .type = to_mirror ? "mirror" : o->type,
            .core_log = o->mirrorlog && !strcmp(o->mirrorlog, "core"),
            .disk_log = o->mirrorlog && !strcmp(o->mirrorlog, "disk"),
            .mirrored_log = o->mirrorlog && !strcmp(o->mirrorlog, "mirrored"),
            .region_size = o->region_size, .pv_args = o->pv_args,
            .pv_arg_count = o->pv_arg_count,
            .stripes = o->rs.stripes ? o->rs.stripes : 1, .stripe_size = o->rs.stripe_size,
            .alloc = o->rs.policy,
            .background = o->background, .interval = o->interval,
            .wait_first = o->wait_first,
        };
        return lvx_lvconvert_mirror(env, u, lv, &c);
    }
    bool none = !o->repair && !o->replace_count && !o->mirrors_given && !o->type;
    static const enum lvx_opt_id pool_opts[] = {
        LVX_OPT_POOLMETADATASIZE, LVX_OPT_POOLMETADATA, LVX_OPT_POOLMETADATASPARE,
        LVX_OPT_CHUNKSIZE, LVX_OPT_DISCARDS, LVX_OPT_ZERO, LVX_OPT_ERRORWHENFULL,
    };
    for (unsigned i = 0; none && i < sizeof(pool_opts) / sizeof(pool_opts[0]); i++)
        if (env->args->count[pool_opts[i]]) {   /* a pool's option without a pool type:
                                                 * no LVM2 command form has it */
            lvx_cmd_errorf("No command with matching syntax recognised.  Run 'lvconvert "
                           "--help' for more information.");
            return LVX_EXIT_INVALID;
        }
    if ((o->repair || o->replace_count || none) && !lvx_map_lv_is_raid(lv)) {
        /* LVM2's command definitions: these forms take RAID (or mirror) LVs */
        lvx_cmd_errorf("Command on LV %s/%s does not accept LV type %s.", lv->vg->name, lv->name,
                       lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "linear");
        lvx_cmd_errorf("Command not permitted on LV %s/%s.", lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    if (none) {
        lvx_cmd_errorf("lvx lvconvert: no conversion requested (use -m/--mirrors, --type "
                       "raid1|linear, --repair or --replace).");
        return LVX_EXIT_INVALID;
    }
    if (o->repair || o->replace_count) {
        /* missing PVs are written as MISSING (LVM2) and never allocated */
        for (unsigned i = 0; i < u->vg->pv_count; i++)
            if (!u->vg->pvs[i]->ondisk.present)
                u->vg->pvs[i]->flags |= LVX_PVF_MISSING;
        return replace_images(env, u, o, lv);
    }
    bool linear = lvx_raid_lv_is_linear(lv);
    if (!linear && !raid1) {
        lvx_cmd_errorf("lvx lvconvert changes the image count of linear and raid1 LVs only, "
                       "not of %s/%s (%s).", lv->vg->name, lv->name,
                       lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "empty");
        return LVX_EXIT_FAILED;
    }
    if (lv->status & LVX_LV_LOCKED || (lvx_lv_snapshot_segs(lv, NULL, 0) > 0 && !origin_images) ||
        lvx_lv_is_cow(lv)) {
        lvx_cmd_errorf("lvx lvconvert does not convert snapshots, origins or locked LVs yet.");
        return LVX_EXIT_FAILED;
    }
    uint32_t new_count, cur = lvx_raid_image_count(lv);
    if (o->mirrors_given && o->mirrors_sign < 0 && o->mirrors >= cur) {
        lvx_cmd_errorf("Unable to reduce images by specified amount.");
        return LVX_EXIT_FAILED;
    }
    if (o->mirrors_given && o->mirrors_sign)
        new_count = o->mirrors_sign > 0 ? cur + o->mirrors : cur - o->mirrors;
    else if (o->mirrors_given)
        new_count = o->mirrors + 1;
    else if (linear)                 /* --type raid1: LVM2's takeover makes 2 images */
        new_count = 2;
    else
        new_count = lvx_raid_image_count(lv);
    if (linear && o->type && strcmp(o->type, "raid1") && new_count > 1) {
        /* inactive: LVM2's refusal before anything else (its interim raid1 needs the
         * LV live: linear_raid1_interim) */
        struct lvx_actcmd act;
        struct lvx_lv_kstate ks;
        if (!lvx_actcmd_init(env, &act) && !lvx_actcmd_is_active(env, &act, lv, &ks)) {
            lvx_cmd_errorf("%s/%s must be active to perform this operation.", lv->vg->name,
                           lv->name);
            return LVX_EXIT_FAILED;
        }
        lvx_cmd_errorf("lvx lvconvert does not convert to --type %s yet.", o->type);
        return LVX_EXIT_FAILED;
    }
    return change_images(env, u, o, lv, new_count);
}

int lvx_cmd_lvconvert(struct lvx_cmd_env *env)
{
    struct convert_opts o;
    struct lvx_vg_update u;
    if (lvx_lvconvert_is_snapshot(env))
        return lvx_lvconvert_snapshot(env);
    if (lvx_lvconvert_is_thin(env))
        return lvx_lvconvert_thin(env);
    if (env->args->count[LVX_OPT_READAHEAD]) {   /* a pool conversion's option only */
        lvx_cmd_errorf("Command does not accept option: --readahead %s.",
                       env->args->value[LVX_OPT_READAHEAD]);
        return LVX_EXIT_INVALID;
    }
    int rc = parse_args(env, &o);
    if (rc)
        return rc;
    if (o.repair) {                  /* the VG has missing PVs: that is the point */
        struct lvx_scan_opts so = { .devices = env->args->devices,
                                    .device_count = env->args->device_count };
        if (lvx_vg_update_begin(env->ctx, &so, o.vg_name,
                                LVX_UPDATE_KEEP_SET | LVX_UPDATE_ALLOW_MISSING, &u) < 0)
            return lvx_cmd_fail(env);
    } else if ((rc = lvx_lvcmd_begin(env, o.vg_name, &u))) {
        return rc;
    }
    rc = convert_in_vg(env, &u, &o);
    char *vgname = lvx_pool_strdup(env->pool, u.vg->name);
    lvx_vg_update_end(&u);
    if (!rc && o.job[0])          /* the restripe's copy, without the setup's update */
        rc = lvx_lvconvert_restripe_run(env, vgname, o.job);
    return rc;
}
