/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vg_common.c - helpers of the VG commands (see vgcmd.h): option values, the
 * update begin/commit with errors printed, and resolving the PVs named for
 * vgcreate/vgextend (with LVM2 2.03's implicit pvcreate of unlabelled devices).
 */
#include "cmd/vgcmd.h"
#include "cmd/cmdlog.h"
#include "cmd/pvcmd.h"
#include "cmd/toolkit.h"
#include "cmd/actcmd.h"
#include "cmd/devfile_cmd.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nodes/dm_nodes.h"
#include "dev/io.h"
#include "dev/signature.h"
#include "meta/scan_lvs.h"
#include "meta/commit.h"
#include "meta/pv_init.h"
#include "meta/pv_new.h"
#include "meta/read.h"
#include "meta/vgops.h"
#include "util/parallel.h"
#include "util/phase.h"

int lvx_vgcmd_new_name(struct lvx_cmd_env *env, const char *name, int rc)
{
    if (!lvx_name_valid(name)) {
        lvx_cmd_errorf("New volume group name \"%s\" is invalid.", name);
        return rc;
    }
    const char *dir = lvx_dm_dev_dir();
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    const char *path = lvx_pool_printf(env->pool, "%.*s/%s", (int)n, dir, name);
    struct stat st;
    if (stat(path, &st) == 0) {
        lvx_cmd_errorf("%s: already exists in filesystem", path);
        return rc;
    }
    return 0;
}

struct lvx_scan_opts lvx_vgcmd_scan_opts(const struct lvx_cmd_env *env)
{
    /* vgcreate/vgextend: the devices they name count even if the devices file lacks them */
    if (strcmp(env->command->name, "vgcreate") == 0 || strcmp(env->command->name, "vgextend") == 0) {
        env->ctx->devices_also = (const char *const *)env->args->argv;
        env->ctx->devices_also_count = (unsigned)env->args->argc;
    }
    struct lvx_scan_opts o = { .devices = env->args->devices,
                               .device_count = env->args->device_count };
    return o;
}

const char *lvx_vgcmd_command_line(struct lvx_cmd_env *env)
{
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_buf_puts(&b, env->command->name);
    for (int i = 1; i < env->args->full_argc; i++)
        lvx_buf_printf(&b, " %s", env->args->full_argv[i]);
    if (b.len > 2040) {          /* LVM2 also keeps descriptions short */
        b.len = 2040;
        b.data[b.len] = '\0';
    }
    const char *s = lvx_pool_strdup(env->pool, lvx_buf_str(&b));
    lvx_buf_free(&b);
    return s;
}

int lvx_vgcmd_begin(struct lvx_cmd_env *env, const char *vgname, unsigned flags,
                    struct lvx_vg_update *u)
{
    struct lvx_scan_opts o = lvx_vgcmd_scan_opts(env);
    if ((flags & LVX_UPDATE_NAMED_ORPHANS) && env->args->argc > 1) {
        o.also_devices = (const char *const *)env->args->argv + 1;   /* after the VG name */
        o.also_count = (unsigned)env->args->argc - 1;
    }
    if (vgname)
        lvx_cmdlog_object("vg", vgname, NULL, NULL, NULL);
    if (lvx_vg_update_begin(env->ctx, &o, vgname, flags, u) < 0)
        return lvx_cmd_fail(env);
    lvx_vgcmd_log_id(u);
    return 0;
}

void lvx_vgcmd_log_id(const struct lvx_vg_update *u)
{
    if (!lvx_cmdlog_on() || !u->vg)
        return;
    char id[LVX_UUID_DASHED_LEN + 1];
    lvx_uuid_format(u->vg->uuid, id);
    lvx_cmdlog_object_id(id);
}

int lvx_vgcmd_commit(struct lvx_cmd_env *env, struct lvx_vg_update *u)
{
    return lvx_tk_commit(env, u, lvx_vgcmd_command_line(env));
}

/* ---- option values ------------------------------------------------------------- */

int lvx_vgcmd_extent_size(struct lvx_cmd_env *env, uint32_t *out)
{
    if (!env->args->count[LVX_OPT_PHYSICALEXTENTSIZE])
        return 0;
    uint64_t sectors = env->args->val[LVX_OPT_PHYSICALEXTENTSIZE].sectors_floor;
    if (lvx_vgops_check_extent_size(env->ctx, sectors) < 0) {
        lvx_cmd_fail(env);
        /* zero and too large are command-line errors for LVM2, the 128 KiB rule is not */
        return sectors == 0 || sectors > UINT32_MAX ? LVX_EXIT_INVALID : LVX_EXIT_FAILED;
    }
    *out = (uint32_t)sectors;
    return 0;
}

void lvx_vgcmd_uint_opt(struct lvx_cmd_env *env, enum lvx_opt_id id, uint32_t *out)
{
    if (env->args->count[id])
        *out = (uint32_t)env->args->val[id].n;     /* NUMBER: at most UINT32_MAX */
}

int lvx_vgcmd_mda_copies(struct lvx_cmd_env *env, bool *given, uint32_t *n, bool *all)
{
    enum lvx_opt_id id = LVX_OPT_VGMETADATACOPIES;
    if (!env->args->count[id] && env->args->count[LVX_OPT_METADATACOPIES_VG])
        id = LVX_OPT_METADATACOPIES_VG;
    const char *s = env->args->count[id] ? env->args->value[id] : NULL;
    uint64_t v = 0;
    *given = s != NULL;
    *all = s && !strcmp(s, "all");
    *n = 0;
    if (!s || *all || !strcmp(s, "unmanaged"))
        return 0;
    if (lvx_opt_parse_number(s, UINT32_MAX, &v) < 0)
        return lvx_opts_invalid(lvx_opt_def(id)->long_name, s, NULL);
    *n = (uint32_t)v;
    return 0;
}

int lvx_vgcmd_settings(struct lvx_cmd_env *env, struct lvx_vgcmd_settings *s)
{
    lvx_vgcmd_uint_opt(env, LVX_OPT_MAXLOGICALVOLUMES, &s->max_lv);
    lvx_vgcmd_uint_opt(env, LVX_OPT_MAXPHYSICALVOLUMES, &s->max_pv);
    uint32_t n = 0;
    int rc = lvx_vgcmd_mda_copies(env, &s->mda_given, &n, &s->mda_all);
    if (rc)
        return rc;
    if (s->mda_given)
        s->mda_copies = n;
    const char *alloc = env->args->count[LVX_OPT_ALLOC] ? env->args->value[LVX_OPT_ALLOC] : NULL;
    if (alloc && lvx_alloc_parse(alloc, &s->alloc) < 0) {
        lvx_cmd_errorf("Invalid argument for --alloc: %s", alloc);
        return LVX_EXIT_INVALID;
    }
    if (s->alloc == LVX_ALLOC_INHERIT) {
        lvx_cmd_errorf("Volume Group allocation policy cannot inherit from anything");
        return LVX_EXIT_INVALID;
    }
    return 0;
}

struct lvx_vg *lvx_vgcmd_new_vg(struct lvx_pool *pool, const char *name,
                                const struct lvx_vgcmd_settings *s)
{
    struct lvx_vg *vg = lvx_vg_new(pool);
    vg->name = lvx_pool_strdup(pool, name);
    lvx_uuid_generate(vg->uuid);
    vg->seqno = 0;                       /* the commit writes seqno 1 */
    vg->format = "lvm2";
    vg->status = LVX_VG_RESIZEABLE | LVX_VG_READ | LVX_VG_WRITE;
    vg->has_flags = true;
    vg->extent_size = s->extent_size;
    vg->max_lv = s->max_lv;
    vg->max_pv = s->max_pv;
    vg->alloc = s->alloc;
    vg->has_metadata_copies = true;
    vg->metadata_copies = s->mda_copies;
    return vg;
}

/* ---- PVs named for vgcreate / vgextend --------------------------------------------------- */

/* The scanned device of a name: the exact path first (cheap even for a thousand names
 * and devices), then any alias of it (symlinks resolved). */
static struct lvx_dev *find_dev(const struct lvx_scan *scan, const char *name)
{
    for (unsigned i = 0; i < scan->devs.count; i++)
        if (strcmp(name, scan->devs.devs[i]->path) == 0)
            return scan->devs.devs[i];
    for (unsigned i = 0; i < scan->devs.count; i++)
        if (lvx_cmd_same_device(name, scan->devs.devs[i]->path))
            return scan->devs.devs[i];
    return NULL;
}

static const struct lvx_vg *vg_of_uuid(const struct lvx_vgset *set, const char *pv_uuid)
{
    for (unsigned i = 0; i < set->vg_count; i++)
        if (lvx_vg_find_pv_uuid(set->vgs[i], pv_uuid))
            return set->vgs[i];
    return NULL;
}

static bool is_outdated(const struct lvx_vgset *set, const char *pv_uuid)
{
    for (unsigned i = 0; i < set->outdated_count; i++)
        if (strcmp(set->outdated[i]->uuid, pv_uuid) == 0)
            return true;
    return false;
}

/* Lookups for the names of one vgcreate/vgextend: scanned devices by path, scanned PVs
 * by device, orphans by UUID, each sorted once (a thousand names against a thousand
 * devices and orphans were millions of string comparisons).  Each finds what the linear
 * searches above find: the first match in scan or set order. */
struct sorted_ref {
    const void *key;                /* a path, a device, a UUID */
    unsigned order;
    void *item;
};

struct named_lookup {
    struct sorted_ref *devs, *spvs, *orphans;
    unsigned dev_count, spv_count, orphan_count;
};

static int ref_cmp_str(const void *a, const void *b)
{
    const struct sorted_ref *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int ref_cmp_ptr(const void *a, const void *b)
{
    const struct sorted_ref *x = a, *y = b;
    uintptr_t p = (uintptr_t)x->key, q = (uintptr_t)y->key;
    return p != q ? (p > q) - (p < q) : (x->order > y->order) - (x->order < y->order);
}

static void lookup_build(struct named_lookup *l, struct lvx_pool *pool, const struct lvx_scan *scan,
                         const struct lvx_vgset *set)
{
    l->dev_count = scan->devs.count;
    l->spv_count = scan->pv_count;
    l->orphan_count = set->orphan_count;
    l->devs = lvx_pool_alloc(pool, (l->dev_count + 1) * sizeof(*l->devs));
    l->spvs = lvx_pool_alloc(pool, (l->spv_count + 1) * sizeof(*l->spvs));
    l->orphans = lvx_pool_alloc(pool, (l->orphan_count + 1) * sizeof(*l->orphans));
    for (unsigned i = 0; i < l->dev_count; i++)
        l->devs[i] = (struct sorted_ref){ scan->devs.devs[i]->path, i, scan->devs.devs[i] };
    for (unsigned i = 0; i < l->spv_count; i++)
        l->spvs[i] = (struct sorted_ref){ scan->pvs[i].dev, i, &scan->pvs[i] };
    for (unsigned i = 0; i < l->orphan_count; i++)
        l->orphans[i] = (struct sorted_ref){ set->orphans[i]->uuid, i, set->orphans[i] };
    qsort(l->devs, l->dev_count, sizeof(*l->devs), ref_cmp_str);
    qsort(l->spvs, l->spv_count, sizeof(*l->spvs), ref_cmp_ptr);
    qsort(l->orphans, l->orphan_count, sizeof(*l->orphans), ref_cmp_str);
}

/* The first ref (lowest order) with this key, or NULL. */
static void *lookup_find(const struct sorted_ref *refs, unsigned count, const void *key,
                         int (*cmp)(const void *, const void *))
{
    struct sorted_ref probe = { key, 0, NULL };
    unsigned lo = 0, hi = count;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (cmp(&refs[mid], &probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < count && cmp(&refs[lo], &(struct sorted_ref){ key, refs[lo].order, NULL }) == 0
               ? refs[lo].item : NULL;
}

static struct lvx_dev *lookup_dev(const struct named_lookup *l, const struct lvx_scan *scan,
                                  const char *name)
{
    struct lvx_dev *dev = lookup_find(l->devs, l->dev_count, name, ref_cmp_str);
    return dev ? dev : find_dev(scan, name);      /* an alias: the linear walk */
}

static struct lvx_scan_pv *lookup_spv(const struct named_lookup *l, const struct lvx_dev *dev)
{
    return lookup_find(l->spvs, l->spv_count, dev, ref_cmp_ptr);
}

static struct lvx_pv *lookup_orphan(const struct named_lookup *l, const char *pv_uuid)
{
    return lookup_find(l->orphans, l->orphan_count, pv_uuid, ref_cmp_str);
}

/* One-line refusal for a device that cannot join a VG; 0 if it can. */
static int check_candidate(struct lvx_cmd_env *env, const struct lvx_vg_update *u, const char *name,
                           const struct lvx_dev *dev, const struct lvx_scan_pv *spv,
                           const struct named_lookup *l)
{
    const char *why;
    if (!dev && (why = lvx_cmd_named_refusal(env, name)) != NULL) {   /* LVM2's two lines */
        lvx_cmd_errorf("Cannot use %s: %s", name, why);
        lvx_cmd_errorf("Command requires all devices to be found.");
        return LVX_EXIT_FAILED;
    }
    if (!dev) {
        lvx_cmd_errorf("No device found for %s.", name);
        return LVX_EXIT_FAILED;
    }
    if (!spv)
        return 0;                 /* implicit pvcreate */
    if (lvx_vgset_pv_duplicated(u->set, spv->label.pv_uuid)) {
        lvx_cmd_errorf("Cannot use device %s with duplicates.", dev->path);
        return LVX_EXIT_FAILED;
    }
    if (lvx_pv_scanned_in_vg(spv) && !lvx_pv_scanned_vg_name(spv) &&
        env->args->count[LVX_OPT_FORCE] < 2) {
        /* marked in use (PV_EXT_USED), no metadata of its own naming the VG: LVM2's
         * implicit pvcreate refuses it so, whether or not another PV's metadata lists it */
        lvx_cmd_errorf("PV %s is used by a VG but its metadata is missing.", dev->path);
        lvx_cmd_errorf("Can't initialize PV '%s' without -ff.", dev->path);
        lvx_cmd_errorf("%s: physical volume not initialized.", dev->path);
        return LVX_EXIT_FAILED;
    }
    const struct lvx_vg *vg = vg_of_uuid(u->set, spv->label.pv_uuid);
    if (vg) {
        lvx_cmd_errorf("Physical volume '%s' is already in volume group '%s'", dev->path, vg->name);
        return LVX_EXIT_FAILED;
    }
    if (is_outdated(u->set, spv->label.pv_uuid)) {
        lvx_cmd_errorf("Physical volume '%s' holds outdated metadata of a volume group: run "
                       "vgck --updatemetadata first", dev->path);
        return LVX_EXIT_FAILED;
    }
    if (!lookup_orphan(l, spv->label.pv_uuid)) {
        lvx_cmd_errorf("Physical volume '%s' cannot be used (duplicate PV UUID?)", dev->path);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* libblkid's probe of a named device without a PV label, made once for the check and
 * the wipe of the implicit pvcreate, on a few threads for all of them (one after the
 * other, and twice each, a thousand devices took about 20 s). */
struct sig_probe {
    struct lvx_dev *dev;
    struct lvx_dev_sig *sigs;       /* in env->pool once copied back */
    unsigned n;
    int rc;                         /* 0 or -errno (errmsg then) */
    char errmsg[sizeof(((struct lvx_ctx *)0)->errmsg)];
};

struct sig_job {
    const struct lvx_dev_ops *io;
    struct sig_probe *probes;
    struct lvx_pool **pools;
};

static void sig_probe_one(void *arg, unsigned i)
{
    struct sig_job *j = arg;
    struct sig_probe *p = &j->probes[i];
    struct lvx_ctx own;
    lvx_ctx_init(&own);
    own.io = j->io;
    j->pools[i] = lvx_pool_create();
    p->rc = lvx_dev_find_signatures(&own, j->pools[i], p->dev, &p->sigs, &p->n);
    if (p->rc < 0)
        snprintf(p->errmsg, sizeof(p->errmsg), "%s", own.errmsg);
}

static void sig_probe_all(struct lvx_cmd_env *env, struct sig_probe *probes, unsigned count)
{
    if (!count)
        return;
    struct lvx_dev_sig *first;
    unsigned n;
    if (count > 1 && lvx_dev_find_signatures(env->ctx, env->pool, probes[0].dev, &first, &n) < 0)
        lvx_error_clear(env->ctx);   /* libblkid's one-time set-up, before the threads */
    struct lvx_pool **pools = lvx_xcalloc(count + 1, sizeof(*pools));
    struct sig_job job = { lvx_io(env->ctx), probes, pools };
    lvx_parallel_for(count, 0, sig_probe_one, &job);
    for (unsigned i = 0; i < count; i++) {
        struct sig_probe *p = &probes[i];
        if (p->rc == 0 && p->n) {
            struct lvx_dev_sig *copy = lvx_pool_alloc(env->pool, p->n * sizeof(*copy));
            for (unsigned k = 0; k < p->n; k++) {
                copy[k] = p->sigs[k];
                copy[k].type = lvx_pool_strdup(env->pool, p->sigs[k].type);
            }
            p->sigs = copy;
        }
        lvx_pool_destroy(pools[i]);
    }
    free(pools);
}

static const struct sig_probe *sig_probe_of(const struct sig_probe *probes, unsigned count,
                                            const struct lvx_dev *dev)
{
    for (unsigned i = 0; i < count; i++)
        if (probes[i].dev == dev)
            return &probes[i];
    return NULL;
}

/* Refuse a device carrying another signature unless -y/-f (LVM2 would ask). */
static int check_signatures(struct lvx_cmd_env *env, const struct sig_probe *p)
{
    if (p->rc < 0) {
        lvx_error(env->ctx, -p->rc, "%s", p->errmsg);
        return lvx_cmd_fail(env);
    }
    if (p->n == 0)
        return 0;
    if (!env->args->count[LVX_OPT_YES] && !env->args->count[LVX_OPT_FORCE]) {
        lvx_cmd_errorf("%s signature detected on %s: use -y to wipe it.", p->sigs[0].type,
                       p->dev->path);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* pvcreate with default settings, first step: the device opened for direct writes and
 * its label planned with the PV options vgcreate/vgextend take (as pvcreate's).  Every
 * device passes this before any is wiped (implicit_wipe), as LVM2's pvcreate checks
 * them all first: a device refused here leaves every device as it was. */
static int implicit_plan(struct lvx_cmd_env *env, const struct sig_probe *p,
                         struct lvx_label *label)
{
    struct lvx_ctx *ctx = env->ctx;
    struct lvx_dev *dev = p->dev;
    struct lvx_pv_layout_req req = { .dev_size = dev->size, .mda_copies = 1 };
    unsigned sector = 1;
    int rc;
    if ((rc = lvx_pvcmd_layout_opts(env, &req)) ||
        (rc = lvx_pvcmd_uint_opt(env, LVX_OPT_PVMETADATACOPIES, 2, &req.mda_copies)) ||
        (rc = lvx_pvcmd_uint_opt(env, LVX_OPT_LABELSECTOR, LVX_LABEL_SCAN_SECTORS - 1, &sector)))
        return rc;
    if (lvx_pv_plan_label(ctx, req, dev, NULL, sector, label) < 0) {
        lvx_cmd_errorf("Cannot use %s: %s", dev->path, ctx->errmsg);
        return LVX_EXIT_FAILED;
    }
    if (lvx_dev_open_write_direct(ctx, dev) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

/* Second step: the signatures its probe found (checked before) wiped and flushed, so
 * no label lands before its wipes.  The labels and empty metadata areas of every such
 * device are then written together (implicit_pvcreate_all). */
static int implicit_wipe(struct lvx_cmd_env *env, const struct sig_probe *p)
{
    struct lvx_ctx *ctx = env->ctx;
    for (unsigned i = 0; i < p->n; i++) {
        if (lvx_dev_wipe_signature(ctx, p->dev, &p->sigs[i]) < 0)
            return lvx_cmd_fail(env);
        lvx_notice(ctx, "Wiping %s signature on %s.", p->sigs[i].type, p->dev->path);
    }
    if (p->n && lvx_dev_flush(ctx, p->dev) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

/* The implicit pvcreate of the named devices without a label: each prepared, then
 * every label and metadata area in meta/pv_new.c's three batches (as pvcreate, but
 * the labels durable: the VG's FUA commit writes follow and would not make a label
 * still in a device's cache durable), so 1000 new PVs cost three rounds of writes,
 * not 1000 flushed pairs.  Sectors 0-3 of
 * each become zeros around the label (pvcreate's default -Z y).  made[] gets the
 * devices written; a device that failed is named and the command fails. */
static int implicit_pvcreate_all(struct lvx_cmd_env *env, const struct sig_probe *probes,
                                 unsigned np, struct lvx_dev **devs, unsigned n,
                                 struct lvx_dev **made, unsigned *made_n)
{
    static const uint8_t no_label[LVX_LABEL_SCAN_BYTES];   /* the scan found none */
    struct lvx_label *labels = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*labels));
    struct lvx_pv_new *news = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*news));
    const struct sig_probe **plan = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*plan));
    unsigned m = 0;
    int rc;
    for (unsigned i = 0; i < n; i++) {
        const struct sig_probe *p = sig_probe_of(probes, np, devs[i]);
        if (!p)
            continue;                         /* labelled already */
        if ((rc = implicit_plan(env, p, &labels[m])) != 0)
            return rc;
        plan[m] = p;
        news[m] = (struct lvx_pv_new){ .dev = devs[i], .label = &labels[m], .head = no_label };
        made[m++] = devs[i];
    }
    for (unsigned k = 0; k < m; k++)
        if ((rc = implicit_wipe(env, plan[k])) != 0)
            return rc;
    lvx_pv_write_new_many(env->ctx, news, m, lvx_cmd_bool(env, LVX_OPT_METADATAIGNORE, false),
                          true);
    rc = 0;
    for (unsigned k = 0; k < m; k++) {
        if (news[k].result < 0) {
            lvx_cmd_errorf("Failed to write physical volume \"%s\": %s", news[k].dev->path,
                           news[k].errmsg);
            rc = LVX_EXIT_FAILED;
            continue;
        }
        lvx_notice(env->ctx, "Physical volume \"%s\" successfully created.", news[k].dev->path);
    }
    *made_n = m;
    return rc;
}

/* After an implicit pvcreate of devs: read those devices again (not the others) and
 * assemble again. */
static int rescan(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_dev **devs,
                  unsigned count)
{
    char vg_uuid[LVX_UUID_LEN + 1] = "";
    if (u->vg)
        memcpy(vg_uuid, u->vg->uuid, sizeof(vg_uuid));
    if (u->old_pv_uuids) {     /* they live in the set's pool (meta/update.c): keep them */
        char (*keep)[LVX_UUID_LEN + 1] = lvx_pool_alloc(env->pool, (u->old_pv_count + 1) *
                                                                   sizeof(*keep));
        memcpy(keep, u->old_pv_uuids, u->old_pv_count * sizeof(*keep));
        u->old_pv_uuids = keep;
    }
    lvx_vgset_free(u->set);
    u->set = NULL;
    u->vg = NULL;
    if (lvx_scan_reread_devices(env->ctx, u->scan, devs, count) < 0 ||
        lvx_read_vgs(env->ctx, u->scan, &u->set) < 0)
        return lvx_cmd_fail(env);
    if (vg_uuid[0] && !(u->vg = lvx_vgset_find(u->set, vg_uuid))) {
        lvx_cmd_errorf("Volume group disappeared while adding physical volumes.");
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* lvm.conf devices/allow_mixed_block_sizes (LVM2's default 0). */
static bool mixed_block_sizes_allowed(struct lvx_cmd_env *env)
{
    return lvx_cmd_config_flag(env, "devices/allow_mixed_block_sizes", false);
}

/* vgcreate: its devices' logical block sizes agree (LVM2's pvcreate_each_device check,
 * before anything is written). */
static int vgcreate_block_sizes(struct lvx_cmd_env *env, struct lvx_dev **devs, unsigned n)
{
    unsigned prev = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned lbs = lvx_dev_logical_block_size_now(devs[i]);
        if (!lbs || !prev || lbs == prev) {
            prev = prev ? prev : lbs;
            continue;
        }
        if (mixed_block_sizes_allowed(env))
            return 0;
        lvx_cmd_errorf("Devices have inconsistent logical block sizes (%u and %u).", prev, lbs);
        lvx_notice(env->ctx, "See lvm.conf allow_mixed_block_sizes.");
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static const struct lvx_dev *pv_dev(struct lvx_vg_update *u, const struct lvx_pv *pv)
{
    const struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, pv->uuid);
    return spv ? spv->dev : NULL;
}

int lvx_vgcmd_check_block_sizes(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                                const struct lvx_vg *vg, struct lvx_pv **pvs, unsigned n)
{
    unsigned prev = 0;
    for (unsigned i = 0; i < vg->pv_count; i++) {
        const struct lvx_dev *d = pv_dev(u, vg->pvs[i]);
        unsigned lbs = d ? lvx_dev_logical_block_size_now(d) : 0;
        if (lbs && prev && lbs != prev)
            return 0;                   /* mixed already: not enforced (as LVM2) */
        prev = prev ? prev : lbs;
    }
    for (unsigned i = 0; i < n && prev; i++) {
        const struct lvx_dev *d = pv_dev(u, pvs[i]);
        unsigned lbs = d ? lvx_dev_logical_block_size_now(d) : 0;
        if (!lbs || lbs == prev || mixed_block_sizes_allowed(env))
            continue;
        lvx_cmd_errorf("Devices have inconsistent logical block sizes (%u and %u).", prev, lbs);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

static int vgcmd_orphans(struct lvx_cmd_env *env, struct lvx_vg_update *u, char **names,
                         unsigned count, struct lvx_pv ***out, unsigned *out_count)
{
    struct lvx_dev **devs = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*devs));
    unsigned n = 0, unlabelled = 0;
    int rc;
    struct named_lookup l;
    lookup_build(&l, env->pool, u->scan, u->set);

    /* the named devices without a PV label, each once, probed first */
    struct sig_probe *probes = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*probes));
    unsigned np = 0;
    for (unsigned i = 0; i < count; i++) {
        struct lvx_dev *dev = lookup_dev(&l, u->scan, names[i]);
        if (dev && !lookup_spv(&l, dev) && !sig_probe_of(probes, np, dev))
            probes[np++] = (struct sig_probe){ .dev = dev };
    }
    sig_probe_all(env, probes, np);

    for (unsigned i = 0; i < count; i++) {
        struct lvx_dev *dev = lookup_dev(&l, u->scan, names[i]);
        struct lvx_scan_pv *spv = dev ? lookup_spv(&l, dev) : NULL;
        int r = check_candidate(env, u, names[i], dev, spv, &l);
        if (r == 0 && !spv)
            r = check_signatures(env, sig_probe_of(probes, np, dev));
        if (r)
            return r;             /* nothing written yet: stop at the first refusal */
        bool dup = false;
        for (unsigned j = 0; j < n; j++)
            dup |= devs[j] == dev;
        if (!dup) {
            devs[n++] = dev;
            unlabelled += !spv;
        }
    }
    if (env->command && strcmp(env->command->name, "vgcreate") == 0 &&
        (rc = vgcreate_block_sizes(env, devs, n)) != 0)
        return rc;
    if (unlabelled && env->args->count[LVX_OPT_TEST]) {
        lvx_cmd_errorf("TEST MODE: devices without a PV label cannot be used.");
        return LVX_EXIT_FAILED;
    }
    if (unlabelled) {
        const char **paths = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*paths));
        struct lvx_dev **made = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*made));
        unsigned m = 0;
        for (unsigned i = 0; i < n; i++)
            paths[i] = lvx_pool_strdup(env->pool, devs[i]->path);
        if ((rc = implicit_pvcreate_all(env, probes, np, devs, n, made, &m)) != 0)
            return rc;
        /* only the new PVs are read again: the others did not change */
        if ((rc = rescan(env, u, made, m)) != 0)
            return rc;
        lookup_build(&l, env->pool, u->scan, u->set);
        for (unsigned i = 0; i < n; i++) {
            devs[i] = lookup_dev(&l, u->scan, paths[i]);
            struct lvx_scan_pv *spv = devs[i] ? lookup_spv(&l, devs[i]) : NULL;
            if (!spv) {
                lvx_cmd_errorf("Physical volume %s not found after pvcreate.", paths[i]);
                return LVX_EXIT_FAILED;
            }
        }
    }
    struct lvx_pv **pvs = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*pvs));
    const char **pvids = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*pvids));
    for (unsigned i = 0; i < n; i++) {
        struct lvx_scan_pv *spv = lookup_spv(&l, devs[i]);
        pvs[i] = lookup_orphan(&l, spv->label.pv_uuid);
        if (!pvs[i]) {
            lvx_cmd_errorf("Physical volume '%s' is not an orphan PV.", devs[i]->path);
            return LVX_EXIT_FAILED;
        }
        pvids[i] = pvs[i]->uuid;
    }
    /* the devices join the devices file, when one is in use (as LVM2) */
    lvx_cmd_devfile_note(env, devs, pvids, n, true, pvs, u->scan);
    *out = pvs;
    *out_count = n;
    return 0;
}

bool lvx_vgcmd_lv_active(const struct lvx_lv *lv, void *arg)
{
    struct lvx_cmd_env *env = arg;
    struct lvx_actcmd act;
    return lvx_actcmd_init(env, &act) == 0 && act.be && lvx_actcmd_is_active(env, &act, lv, NULL);
}

bool lvx_vgcmd_has_active_lv(struct lvx_cmd_env *env, const struct lvx_vg *vg)
{
    struct lvx_actcmd act;
    if (lvx_actcmd_init(env, &act) != 0 || !act.be)
        return false;
    for (unsigned l = 0; l < vg->lv_count; l++)
        if (lvx_actcmd_is_active(env, &act, vg->lvs[l], NULL))
            return true;
    return false;
}

/* vgexport and vgimport: the same argument rules (LVM2's wording differs by a word) */
int lvx_vgcmd_export_args(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    if (!a->argc && !a->count[LVX_OPT_ALL])
        return lvx_vgcmd_syntax(env, NULL);
    if (a->count[LVX_OPT_ALL] && a->argc)
        return lvx_vgcmd_extra_arg(a->argv[0]);
    return 0;
}

void lvx_vgcmd_set_exported(struct lvx_vg *vg, bool exported, const char *system_id)
{
    vg->status = exported ? vg->status | LVX_VG_EXPORTED : vg->status & ~LVX_VG_EXPORTED;
    vg->system_id = system_id && *system_id ? system_id : NULL;
    for (unsigned i = 0; i < vg->pv_count; i++)
        vg->pvs[i]->status = exported ? vg->pvs[i]->status | LVX_PV_EXPORTED
                                      : vg->pvs[i]->status & ~LVX_PV_EXPORTED;
}

int lvx_vgcmd_lock_pair(struct lvx_cmd_env *env, const char *a, const char *b, struct lvx_lock *la,
                        struct lvx_lock *lb)
{
    bool a_first = strcmp(a, b) < 0;
    if (lvx_lock_vg(env->ctx, a_first ? a : b, true, a_first ? la : lb) < 0 ||
        lvx_lock_vg(env->ctx, a_first ? b : a, true, a_first ? lb : la) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

int lvx_vgcmd_compatible(struct lvx_cmd_env *env, const struct lvx_vg *from, const struct lvx_vg *to)
{
    if (lvx_vgcmd_has_active_lv(env, from)) {
        lvx_cmd_errorf("Logical volumes in \"%s\" must be inactive", from->name);
        return LVX_EXIT_FAILED;
    }
    if (to->extent_size != from->extent_size) {
        lvx_cmd_errorf("Extent sizes differ: %u (%s) and %u (%s)", to->extent_size, to->name,
                       from->extent_size, from->name);
        return LVX_EXIT_FAILED;
    }
    if (to->max_pv && to->max_pv < to->pv_count + from->pv_count) {
        lvx_cmd_errorf("Maximum number of physical volumes (%u) exceeded  for \"%s\" and \"%s\"",
                       to->max_pv, to->name, from->name);
        return LVX_EXIT_FAILED;
    }
    if (to->max_lv && to->max_lv < lvx_vg_visible_lv_count(to) + lvx_vg_visible_lv_count(from)) {
        lvx_cmd_errorf("Maximum number of logical volumes (%u) exceeded  for \"%s\" and \"%s\"",
                       to->max_lv, to->name, from->name);
        return LVX_EXIT_FAILED;
    }
    for (unsigned i = 0; i < to->lv_count; i++)
        if (lvx_vg_find_lv(from, to->lvs[i]->name)) {
            lvx_cmd_errorf("Duplicate logical volume name \"%s\" in \"%s\" and \"%s\"",
                           to->lvs[i]->name, to->name, from->name);
            return LVX_EXIT_FAILED;
        }
    return 0;
}

struct lvx_vg *lvx_vgcmd_find_named(const struct lvx_vgset *set, const char *name)
{
    for (unsigned i = 0; i < set->vg_count; i++)
        if (strcmp(set->vgs[i]->name, name) == 0)
            return set->vgs[i];
    return NULL;
}

const char *lvx_vgcmd_skip_dev_dir(const char *name)
{
    return strncmp(name, "/dev/", 5) == 0 ? name + 5 : name;
}

int lvx_vgcmd_syntax(struct lvx_cmd_env *env, const char *usage)
{
    lvx_cmd_errorf("No command with matching syntax recognised.  Run '%s --help' for more "
                   "information.", env->args->cmd);
    if (usage) {       /* commands with one form also print it, as LVM2 (on stdout) */
        lvx_cmd_errorf("Correct command syntax is:");
        char line[256];
        int n = snprintf(line, sizeof(line), "  %s\n\n", usage);
        lvx_cmd_write(line, n > 0 && (size_t)n < sizeof(line) ? (size_t)n : 0);
    }
    return LVX_EXIT_INVALID;
}

int lvx_vgcmd_extra_arg(const char *arg)
{
    lvx_cmd_errorf("Command does not accept argument: %s.", arg);
    return LVX_EXIT_INVALID;
}

int lvx_vgcmd_orphans(struct lvx_cmd_env *env, struct lvx_vg_update *u, char **names,
                      unsigned count, struct lvx_pv ***out, unsigned *out_count)
{
    uint64_t t = lvx_phase_start();
    int rc = vgcmd_orphans(env, u, names, count, out, out_count);
    lvx_phase_end("orphans", t);
    return rc;
}
