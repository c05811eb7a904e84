/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvscan.c - `lvx pvscan`, as LVM2's:
 *   - without --cache: one line per PV ("PV /dev/x   VG vg   lvm2 [size / free free]",
 *     orphans with their size only), LVM2's column widths, and the "Total:" line;
 *     -s names only, -u with the PV UUID, -e only PVs of exported VGs, -n only PVs in
 *     no VG;
 *   - --cache [DEV ...]: record the PVs found as online ("pvscan[PID] PV /dev/x online.",
 *     "... not used." for PVs in no VG); without DEV the records are made again from
 *     nothing.  With -aay each VG whose every PV is online is autoactivated once
 *     ("VG vg run autoactivation.", then as `vgchange -aay`; "skip autoactivation."
 *     when it was already done since the records were last made from nothing).
 *   - --cache --listvg|--listlvs PV (the udev rule's call): "VG vg" (and "LV vg/lv" for
 *     each visible LV using the PV); --checkcomplete adds LVM2's "PV ... online, VG ..."
 *     line and "complete"/"incomplete" (with --vgonline the VG's online record is made,
 *     "finished" when it was there), --udevoutput prints only
 *     LVM_VG_NAME_COMPLETE='vg' / LVM_VG_NAME_INCOMPLETE='vg' (LVM_EVENT_ACTIVATION=0
 *     with global/event_activation = 0), --autoactivation other than "event" skips.
 * The records are LVM2's pvs_online / vgs_online files (same content: "MAJ:MIN",
 * "vg:NAME", "dev:PATH"), kept in lvx's run directory ($LVX_RUN_DIR, /run/lvx), not in
 * LVM2's /run/lvm: lvx's autoactivation state is its own.
 */
#include "cmd/actcmd.h"
#include "cmd/commands.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "config/config.h"
#include "dev/dev.h"
#include "util/privdir.h"
#include "util/run_dir.h"

#define ORPHAN_VG_NAME "#orphans_lvm2"     /* LVM2 counts it in the VG column width */

struct entry {
    const struct lvx_pv *pv;
    const struct lvx_vg *vg;               /* NULL: in no VG */
    uint32_t key;                          /* orphans: lvx_dev_tree_key, for the order */
    unsigned index;                        /* orphans: the scan's order, for ties */
};

/* A PV in no VG: its device's place in LVM2's device cache (lvx_dev_tree_key); a
 * regular file or a device gone sorts last, in scan order. */
static uint32_t orphan_key(const struct lvx_pv *pv)
{
    struct stat st;
    if (!pv->ondisk.dev_name || stat(pv->ondisk.dev_name, &st) < 0 || !S_ISBLK(st.st_mode))
        return UINT32_MAX;
    return lvx_dev_tree_key(major(st.st_rdev), minor(st.st_rdev));
}

static int by_tree_key(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Every PV on a device: VGs in LVM2's lvmcache order (their PVs in metadata order),
 * then the orphans in LVM2's device-cache order. */
static struct entry *collect(struct lvx_cmd_env *env, const struct lvx_vgset *set, unsigned *n)
{
    unsigned cap = set->orphan_count + 1;
    struct lvx_vg **vgs = lvx_pool_alloc(env->pool, (set->vg_count + 1) * sizeof(*vgs));
    for (unsigned i = 0; i < set->vg_count; i++) {
        cap += set->vgs[i]->pv_count;
        vgs[i] = set->vgs[i];
    }
    lvx_cmd_vgs_lvm2_order(vgs, set->vg_count);
    struct entry *e = lvx_pool_alloc(env->pool, cap * sizeof(*e));
    *n = 0;
    for (unsigned i = 0; i < set->vg_count; i++)
        for (unsigned j = 0; j < vgs[i]->pv_count; j++)
            if (vgs[i]->pvs[j]->ondisk.present)
                e[(*n)++] = (struct entry){ vgs[i]->pvs[j], vgs[i], 0, 0 };
    struct entry *orphans = e + *n;
    for (unsigned i = 0; i < set->orphan_count; i++)
        e[(*n)++] = (struct entry){ set->orphans[i], NULL, orphan_key(set->orphans[i]), i };
    qsort(orphans, set->orphan_count, sizeof(*e), by_tree_key);
    return e;
}

static uint64_t orphan_sectors(const struct lvx_pv *pv)
{
    if (pv->ondisk.hdr_device_size)
        return pv->ondisk.hdr_device_size / 512;
    return pv->ondisk.dev_bytes / 512;
}

static uint64_t vg_pv_sectors(const struct lvx_pv *pv)
{
    return (uint64_t)pv->pe_count * pv->vg->extent_size;
}

/* ---- the listing --------------------------------------------------------------- */

static void size_text(struct lvx_cmd_env *env, struct lvx_buf *b, uint64_t sectors)
{
    lvx_cmd_display_size(b, sectors, env->args->units, env->args->unit_bytes);
}

static void list_one(struct lvx_cmd_env *env, struct lvx_buf *b, const struct entry *e,
                     int pv_w, int vg_w)
{
    const char *dev = e->pv->ondisk.dev_name;
    char uuid[LVX_UUID_DASHED_LEN + 1];
    char named[4200];
    if (env->args->count[LVX_OPT_SHORT]) {
        lvx_buf_printf(b, "  %s\n", dev);
        return;
    }
    if (env->args->count[LVX_OPT_UUID]) {
        lvx_uuid_format(e->pv->uuid, uuid);
        snprintf(named, sizeof(named), "%-*s with UUID %s", pv_w - 2, dev, uuid);
        dev = named;
        pv_w += LVX_UUID_DASHED_LEN + 1 + 10 + 1;  /* LVM2: sizeof(uuid[40]) + 10 */
    }
    if (!e->vg) {
        lvx_buf_printf(b, "  PV %-*s    %-*s lvm2 [", pv_w, dev, vg_w, " ");
        size_text(env, b, orphan_sectors(e->pv));
        lvx_buf_puts(b, "]\n");
        return;
    }
    uint64_t size = vg_pv_sectors(e->pv);
    uint64_t free_sectors = size - (uint64_t)lvx_pv_alloc_count(e->pv) * e->vg->extent_size;
    if (e->vg->status & LVX_VG_EXPORTED)
        lvx_buf_printf(b, "  PV %-*s  is in exported VG %s [", pv_w, dev, e->vg->name);
    else
        lvx_buf_printf(b, "  PV %-*s VG %-*s lvm2 [", pv_w, dev, vg_w, e->vg->name);
    size_text(env, b, size);
    lvx_buf_puts(b, " / ");
    size_text(env, b, free_sectors);
    lvx_buf_puts(b, " free]\n");
}

static int list_pvs(struct lvx_cmd_env *env, const struct entry *e, unsigned n)
{
    bool exported = env->args->count[LVX_OPT_EXPORTED], novg = env->args->count[LVX_OPT_NOVOLUMEGROUP];
    int pv_w = 0, vg_w = (int)strlen(ORPHAN_VG_NAME);
    unsigned found = 0, found_new = 0;
    uint64_t total = 0, total_new = 0;
    struct lvx_buf b = LVX_BUF_INIT;

    if (exported && novg) {
        lvx_cmd_errorf("Options -e and -n are incompatible");
        return LVX_EXIT_INVALID;
    }
    if (exported || novg)
        lvx_warn(env->ctx, "WARNING: only considering physical volumes %s",
                 exported ? "of exported volume group(s)" : "in no volume group");
    for (unsigned i = 0; i < n; i++) {
        int l = (int)strlen(e[i].pv->ondisk.dev_name);
        pv_w = l > pv_w ? l : pv_w;
        if (e[i].vg && (int)strlen(e[i].vg->name) > vg_w)
            vg_w = (int)strlen(e[i].vg->name);
    }
    pv_w += 2;
    vg_w += 2;
    for (unsigned i = 0; i < n; i++) {
        if ((exported && !(e[i].vg && (e[i].vg->status & LVX_VG_EXPORTED))) || (novg && e[i].vg))
            continue;
        found++;
        if (!e[i].vg) {
            found_new++;
            total_new += orphan_sectors(e[i].pv);
            total += orphan_sectors(e[i].pv);
        } else {
            total += vg_pv_sectors(e[i].pv);
        }
        list_one(env, &b, &e[i], pv_w, vg_w);
    }
    if (!found) {
        lvx_buf_puts(&b, "  No matching physical volumes found\n");
    } else {
        lvx_buf_printf(&b, "  Total: %u [", found);
        size_text(env, &b, total);
        lvx_buf_printf(&b, "] / in use: %u [", found - found_new);
        size_text(env, &b, total - total_new);
        lvx_buf_printf(&b, "] / in no VG: %u [", found_new);
        size_text(env, &b, total_new);
        lvx_buf_puts(&b, "]\n");
    }
    int rc = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    return rc;
}

/* ---- --cache: the online records ------------------------------------------------- */

struct online {
    char pvs[4200], vgs[4200];
};

static int online_dirs(struct lvx_cmd_env *env, struct online *o)
{
    const char *run = lvx_run_dir();
    if (lvx_privdir_check(env->ctx, "lvx run directory", run, LVX_PRIVDIR_CREATE) < 0)
        return lvx_cmd_fail(env);
    snprintf(o->pvs, sizeof(o->pvs), "%s/pvs_online", run);
    snprintf(o->vgs, sizeof(o->vgs), "%s/vgs_online", run);
    for (const char *d = o->pvs; d; d = d == o->pvs ? o->vgs : NULL)
        if (mkdir(d, 0700) < 0 && errno != EEXIST) {
            lvx_cmd_errorf("Cannot create %s: %s", d, strerror(errno));
            return LVX_EXIT_FAILED;
        }
    return 0;
}

static void clear_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    if (!d)
        return;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.')
            unlinkat(dirfd(d), de->d_name, 0);
    closedir(d);
}

static bool record_exists(const char *dir, const char *name)
{
    char path[4500];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static int write_record(const char *dir, const char *name, const char *text)
{
    char path[4500];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -errno;
    ssize_t len = (ssize_t)strlen(text), w = write(fd, text, (size_t)len);
    int e = w == len ? 0 : w < 0 ? -errno : -EIO;
    close(fd);
    return e;
}

/* PVs of vg with no online record. */
static int vg_need(const struct online *o, const struct lvx_vg *vg)
{
    int need = 0;
    for (unsigned i = 0; i < vg->pv_count; i++)
        if (!record_exists(o->pvs, vg->pvs[i]->uuid))
            need++;
    return need;
}

static bool named(struct lvx_cmd_env *env, const struct lvx_pv *pv)
{
    if (env->args->argc == 0)
        return true;
    for (int i = 0; i < env->args->argc; i++)
        if (lvx_cmd_same_device(env->args->argv[i], pv->ondisk.dev_name))
            return true;
    return false;
}

/* A line on stdout as it is (--udevoutput: no indentation). */
static void out_line(const char *fmt, const char *arg)
{
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_buf_printf(&b, fmt, arg);
    lvx_cmd_output(&b);
    lvx_buf_free(&b);
}

/* Does lv use pv, itself or through its sub-LVs? */
static bool lv_uses_pv(const struct lvx_lv *lv, const struct lvx_pv *pv, unsigned depth)
{
    if (depth > 16)
        return false;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        for (unsigned a = 0; a < seg->area_count; a++) {
            if (seg->areas[a].pv == pv ||
                (seg->areas[a].lv && lv_uses_pv(seg->areas[a].lv, pv, depth + 1)))
                return true;
            if (seg->meta_areas && seg->meta_areas[a].lv &&
                lv_uses_pv(seg->meta_areas[a].lv, pv, depth + 1))
                return true;
        }
    }
    return false;
}

/* Every PV lv uses has an online record. */
static bool lv_complete(const struct online *o, const struct lvx_lv *lv)
{
    for (unsigned i = 0; i < lv->vg->pv_count; i++)
        if (lv_uses_pv(lv, lv->vg->pvs[i], 0) && !record_exists(o->pvs, lv->vg->pvs[i]->uuid))
            return false;
    return true;
}

/* --listvg / --listlvs of one PV of a VG (LVM2's lines; see the top of the file). */
static void list_vg(struct lvx_cmd_env *env, const struct online *o, const struct entry *e,
                    bool complete)
{
    const struct lvx_cmd_args *a = env->args;
    const char *vg = e->vg->name;
    bool check = a->count[LVX_OPT_CHECKCOMPLETE] > 0, udev = a->count[LVX_OPT_UDEVOUTPUT] > 0;
    if (!check) {
        lvx_notice(env->ctx, "VG %s", vg);
    } else if (complete) {
        bool created = true;
        if (a->count[LVX_OPT_VGONLINE]) {
            char path[4500];
            snprintf(path, sizeof(path), "%s/%s", o->vgs, vg);
            int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
            created = fd >= 0;
            if (fd >= 0)
                close(fd);
        }
        if (!created)
            lvx_notice(env->ctx, "VG %s finished", vg);
        else if (udev)
            out_line("LVM_VG_NAME_COMPLETE='%s'\n", vg);
        else
            lvx_notice(env->ctx, "VG %s complete", vg);
    } else if (udev) {
        out_line("LVM_VG_NAME_INCOMPLETE='%s'\n", vg);
    } else {
        lvx_notice(env->ctx, "VG %s incomplete", vg);
    }
    if (!a->count[LVX_OPT_LISTLVS])
        return;
    for (unsigned i = 0; i < e->vg->lv_count; i++) {
        const struct lvx_lv *lv = e->vg->lvs[i];
        if (!lvx_lv_is_visible(lv) || !lv_uses_pv(lv, e->pv, 0))
            continue;
        if (!check)
            lvx_notice(env->ctx, "LV %s/%s", vg, lv->name);
        else
            lvx_notice(env->ctx, "LV %s/%s %scomplete", vg, lv->name,
                       complete || lv_complete(o, lv) ? "" : "in");
    }
}

static int cache_pvs(struct lvx_cmd_env *env, const struct entry *e, unsigned n)
{
    const char *act = env->args->value[LVX_OPT_ACTIVATE];
    bool aay = act != NULL;
    struct online o;
    int rc;
    int pid = (int)getpid();

    if (aay && strcmp(act, "ay") != 0) {
        lvx_cmd_errorf("Invalid argument for --activate: %s (pvscan --cache takes -aay only)",
                       act);
        return LVX_EXIT_INVALID;
    }
    if ((rc = online_dirs(env, &o)))
        return rc;
    if (env->args->argc == 0) {
        clear_dir(o.pvs);
        clear_dir(o.vgs);
    }
    const char **complete = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*complete));
    unsigned ncomplete = 0;
    bool list = env->args->count[LVX_OPT_LISTVG] || env->args->count[LVX_OPT_LISTLVS];
    bool check = env->args->count[LVX_OPT_CHECKCOMPLETE] > 0;
    for (int k = 0; k < env->args->argc; k++) {       /* named devices that are no PV */
        bool pv = false;
        for (unsigned i = 0; i < n && !pv; i++)
            pv = lvx_cmd_same_device(env->args->argv[k], e[i].pv->ondisk.dev_name);
        if (!pv)
            lvx_notice(env->ctx, "pvscan[%d] %s not an lvm device.", pid, env->args->argv[k]);
    }
    for (unsigned i = 0; i < n; i++) {
        const struct lvx_pv *pv = e[i].pv;
        const char *dev = pv->ondisk.dev_name;
        if (!named(env, pv))
            continue;
        if (!e[i].vg) {
            lvx_notice(env->ctx, "pvscan[%d] PV %s not used.", pid, dev);
            continue;
        }
        if (e[i].vg->status & LVX_VG_EXPORTED) {       /* not online, never autoactivated */
            lvx_notice(env->ctx, "pvscan[%d] PV %s ignore exported VG.", pid, dev);
            continue;
        }
        char text[512];
        snprintf(text, sizeof(text), "%u:%u\nvg:%s\ndev:%s\n", pv->ondisk.dev_major,
                 pv->ondisk.dev_minor, e[i].vg->name, dev);
        int r = write_record(o.pvs, pv->uuid, text);
        if (r < 0) {
            lvx_cmd_errorf("Cannot record PV %s online in %s: %s", dev, o.pvs, strerror(-r));
            rc = LVX_EXIT_FAILED;
            continue;
        }
        if (list && !check) {
            list_vg(env, &o, &e[i], false);
            continue;
        }
        if (!aay && !list) {
            lvx_notice(env->ctx, "pvscan[%d] PV %s online.", pid, dev);
            continue;
        }
        int need = vg_need(&o, e[i].vg);
        if (need) {
            lvx_notice(env->ctx, "pvscan[%d] PV %s online, VG %s incomplete (need %d).", pid,
                       dev, e[i].vg->name, need);
            if (list)
                list_vg(env, &o, &e[i], false);
            continue;
        }
        lvx_notice(env->ctx, "pvscan[%d] PV %s online, VG %s is complete.", pid, dev,
                   e[i].vg->name);
        if (list) {
            list_vg(env, &o, &e[i], true);
            continue;
        }
        bool dup = false;
        for (unsigned k = 0; k < ncomplete && !dup; k++)
            dup = strcmp(complete[k], e[i].vg->name) == 0;
        if (!dup)
            complete[ncomplete++] = e[i].vg->name;
    }
    if (!aay)
        return rc;
    char **run = lvx_pool_alloc(env->pool, (ncomplete + 1) * sizeof(*run));
    unsigned nrun = 0;
    for (unsigned k = 0; k < ncomplete; k++) {
        if (record_exists(o.vgs, complete[k])) {
            lvx_notice(env->ctx, "pvscan[%d] VG %s skip autoactivation.", pid, complete[k]);
            continue;
        }
        write_record(o.vgs, complete[k], "");
        lvx_notice(env->ctx, "pvscan[%d] VG %s run autoactivation.", pid, complete[k]);
        run[nrun++] = lvx_pool_strdup(env->pool, complete[k]);
    }
    if (nrun) {
        int r = lvx_actcmd_vgchange(env, run, nrun, true);
        if (r > rc)
            rc = r;
    }
    return rc;
}

/* The udev rule's options (--listvg, --listlvs, --checkcomplete, --vgonline,
 * --udevoutput, --autoactivation) checked as LVM2's command definitions and settings
 * do: -1 to go on, else the exit code (after LVM2's line). */
static int udev_options(struct lvx_cmd_env *env, bool *cache)
{
    const struct lvx_cmd_args *a = env->args;
    int pid = (int)getpid();
    bool list = a->count[LVX_OPT_LISTVG] || a->count[LVX_OPT_LISTLVS];
    static const enum lvx_opt_id need_list[] = { LVX_OPT_CHECKCOMPLETE, LVX_OPT_VGONLINE,
                                                 LVX_OPT_UDEVOUTPUT };
    const char *refused = NULL;
    if (a->count[LVX_OPT_UDEVOUTPUT])     /* udev imports stdout: LVM2 says nothing at all */
        env->ctx->log_level = 0;
    for (size_t i = 0; i < sizeof(need_list) / sizeof(need_list[0]) && !list && !refused; i++)
        if (a->count[need_list[i]])
            refused = lvx_opt_def(need_list[i])->long_name;
    if (!refused && list && a->argc != 1)
        refused = a->count[LVX_OPT_LISTVG] ? "listvg" : "listlvs";
    if (!refused && a->count[LVX_OPT_LISTLVS] && a->count[LVX_OPT_UDEVOUTPUT])
        refused = "udevoutput";
    if (refused && list && a->argc > 1) {
        lvx_cmd_errorf("Command does not accept argument: %s.", a->argv[1]);
        return LVX_EXIT_INVALID;
    }
    if (!refused && list && a->count[LVX_OPT_ACTIVATE]) {
        lvx_cmd_errorf("Command does not accept option: --activate %s.", a->value[LVX_OPT_ACTIVATE]);
        return LVX_EXIT_INVALID;
    }
    if (refused) {
        lvx_cmd_errorf("Command does not accept option: --%s.", refused);
        return LVX_EXIT_INVALID;
    }
    if (!list)
        return -1;
    *cache = true;                        /* --listvg/--listlvs are pvscan --cache's */
    const char *aa = a->value[LVX_OPT_AUTOACTIVATION];
    if (aa && strcmp(aa, "event") != 0) {
        lvx_notice(env->ctx, "pvscan[%d] Skip pvscan for unknown autoactivation value.", pid);
        return LVX_EXIT_OK;
    }
    struct lvx_config *cfg = NULL;
    int64_t event = 1;
    if (lvx_config_load(env->ctx, &cfg) == 0)
        event = lvx_config_int(cfg, "global/event_activation", 1);
    lvx_error_clear(env->ctx);
    lvx_config_free(cfg);
    if (a->count[LVX_OPT_CHECKCOMPLETE] && !event) {
        if (a->count[LVX_OPT_UDEVOUTPUT])
            out_line("%s", "LVM_EVENT_ACTIVATION=0\n");
        else
            lvx_notice(env->ctx, "pvscan[%d] Ignoring pvscan with --checkcomplete because "
                       "event_activation is disabled.", pid);
        return LVX_EXIT_OK;
    }
    return -1;
}

int lvx_cmd_pvscan(struct lvx_cmd_env *env)
{
    struct lvx_cmd_vgs v;
    unsigned n;
    bool cache = env->args->count[LVX_OPT_CACHE] > 0;
    int urc = udev_options(env, &cache);
    if (urc >= 0)
        return urc;

    if (!cache && env->args->count[LVX_OPT_ACTIVATE]) {
        lvx_cmd_errorf("The --activate option is only used with --cache.");
        return LVX_EXIT_INVALID;
    }
    if (!cache && env->args->argc > 0) {
        lvx_cmd_errorf("Command does not accept argument: %s.", env->args->argv[0]);
        return LVX_EXIT_INVALID;
    }
    int rc = lvx_cmd_load(env, &v);
    if (rc)
        return rc;
    struct entry *e = collect(env, v.set, &n);
    rc = cache ? cache_pvs(env, e, n) : list_pvs(env, e, n);
    lvx_cmd_unload(&v);
    return rc;
}
