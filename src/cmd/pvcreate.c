/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvcreate.c - `lvx pvcreate [options] PV ...`: initialise devices as orphan
 * PVs with the layout LVM2 would write (format/pv_layout.c).
 *
 * Three passes, so that bad input writes nothing:
 *   1. options (exit 3 on a bad value);
 *   2. under the global lock, one scan of the named devices, then per device: size,
 *      existing PV (a PV of a VG needs -ff and a confirmation), foreign signatures
 *      (libblkid; wiped only with -f or -y), layout; what each check reads from a
 *      device (libblkid's probe, the exclusive open, the head, the topology) is read
 *      first for all devices on a few threads (util/parallel.h), through one exclusive
 *      open per device, the checks then run in order;
 *   3. only when every device passed: wipe signatures (each wiped device flushed),
 *      then the PVs as a few batches of writes over all devices (meta/pv_new.h:
 *      old labels removed, area headers durable, then the labels), LVM2's order.
 */
#include "cmd/commands.h"
#include "cmd/pvcmd.h"
#include "cmd/devfile_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/io.h"
#include "dev/signature.h"
#include "meta/backup.h"
#include "meta/commit.h"
#include "meta/lock.h"
#include "meta/pv_init.h"
#include "meta/pv_new.h"
#include "meta/read.h"
#include "util/parallel.h"
#include "util/phase.h"

struct pvcreate_opts {
    struct lvx_pv_layout_req req;   /* without device size and topology */
    unsigned label_sector;
    bool mda_ignored;
    bool zero;
    bool has_uuid;
    char uuid[LVX_UUID_LEN + 1];
    uint64_t set_size;              /* bytes, 0 = the device's size */
    uint64_t min_bytes;             /* devices/pv_min_size (read once, not per device) */
};

struct pvcreate_dev {
    const char *name;
    struct lvx_dev *dev;
    struct lvx_scan_pv *spv;
    struct lvx_dev_sig *sigs;
    unsigned sig_count;
    struct lvx_label label;
    uint8_t old[LVX_LABEL_SCAN_BYTES];  /* sectors 0-3 as read by probe_all (wipes applied
                                         * by prepare_pv): old labels, -Z n */
    bool probed;                    /* sigs/sig_count (or probe_rc) filled by probe_all */
    int probe_rc;
    bool held;                      /* by probe_all: open exclusively elsewhere (mounted) */
    bool legacy;                    /* by probe_all: an LVM1 or pool label at the head */
    int head_rc;                    /* by probe_all: reading the head, 0 or -errno */
    char head_msg[sizeof(((struct lvx_ctx *)0)->errmsg)];
    const struct pvcreate_dev *first;   /* the same device named before, or NULL */
    int result;                     /* of the writes: 0 or -errno, message in errmsg (also
                                     * the read-write open's, by write_all's threads) */
    char errmsg[sizeof(((struct lvx_ctx *)0)->errmsg)];
};

/* ---- pass 1: options ------------------------------------------------------- */

static int usage_error(const char *msg)
{
    lvx_cmd_errorf("%s", msg);
    return LVX_EXIT_INVALID;
}

static int parse_metadata_copies(struct lvx_cmd_env *env, struct pvcreate_opts *o)
{
    unsigned copies = 1;
    int rc = lvx_pvcmd_uint_opt(env, LVX_OPT_METADATACOPIES_PV, 2, &copies);
    if (!rc)
        rc = lvx_pvcmd_uint_opt(env, LVX_OPT_PVMETADATACOPIES, 2, &copies);
    o->req.mda_copies = copies;
    return rc;
}

static int parse_sizes(struct lvx_cmd_env *env, struct pvcreate_opts *o)
{
    lvx_pvcmd_size_opt(env, LVX_OPT_BOOTLOADERAREASIZE, &o->req.ba_size);
    lvx_pvcmd_size_opt(env, LVX_OPT_SETPHYSICALVOLUMESIZE, &o->set_size);
    return lvx_pvcmd_layout_opts(env, &o->req);
}

static int parse_uuid(struct lvx_cmd_env *env, struct pvcreate_opts *o)
{
    const struct lvx_cmd_args *a = env->args;
    if (a->count[LVX_OPT_RESTOREFILE] && a->count[LVX_OPT_BOOTLOADERAREASIZE]) {
        /* LVM2's command definition (its two spaces included) */
        lvx_cmd_errorf("Command does not accept option combination: --bootloaderareasize  with "
                       "--restorefile");
        return LVX_EXIT_INVALID;
    }
    if (a->count[LVX_OPT_RESTOREFILE] && !a->count[LVX_OPT_UUID_STR])
        return usage_error("--uuid is required with --restorefile");
    if (!a->count[LVX_OPT_UUID_STR])
        return 0;
    if (!a->count[LVX_OPT_RESTOREFILE] && !a->count[LVX_OPT_NORESTOREFILE])
        return usage_error("--restorefile is required with --uuid");
    if (a->argc > 1)
        return usage_error("Can only set uuid on one volume at once");
    if (lvx_uuid_parse(a->value[LVX_OPT_UUID_STR], o->uuid) < 0) {
        lvx_cmd_errorf("Couldn't read uuid %s: invalid format.", a->value[LVX_OPT_UUID_STR]);
        return LVX_EXIT_INVALID;
    }
    o->has_uuid = true;
    return 0;
}

static int parse_opts(struct lvx_cmd_env *env, struct pvcreate_opts *o)
{
    int rc;
    memset(o, 0, sizeof(*o));
    o->label_sector = 1;
    if (env->args->argc == 0)
        return usage_error("Please enter a physical volume path.");
    if ((rc = parse_sizes(env, o)) || (rc = parse_metadata_copies(env, o)) ||
        (rc = parse_uuid(env, o)))
        return rc;
    if ((rc = lvx_pvcmd_uint_opt(env, LVX_OPT_LABELSECTOR, 1000000, &o->label_sector)))
        return rc;
    if (o->label_sector >= LVX_LABEL_SCAN_SECTORS)
        return usage_error("labelsector must be less than 4.");
    o->mda_ignored = lvx_cmd_bool(env, LVX_OPT_METADATAIGNORE, false);
    /* LVM2: no zeroing by default when restoring a PV */
    o->zero = lvx_cmd_bool(env, LVX_OPT_ZERO, !env->args->count[LVX_OPT_UUID_STR] &&
                                              !env->args->count[LVX_OPT_RESTOREFILE]);
    if (o->mda_ignored && o->req.mda_copies == 0)
        o->mda_ignored = false;
    return 0;
}

/* --restorefile: pe_start, dev_size and the bootloader area of the PV with --uuid in a
 * backup file. */
static int apply_restorefile(struct lvx_cmd_env *env, struct pvcreate_opts *o)
{
    const char *path = env->args->value[LVX_OPT_RESTOREFILE];
    if (!path)
        return 0;
    struct lvx_vg *vg;
    bool bad_text;
    if (lvx_backup_read(env->ctx, env->pool, path, &vg, &bad_text) < 0) {
        if (bad_text)
            lvx_cmd_errorf("Couldn't read volume group metadata from file %s: %s", path,
                           env->ctx->errmsg);
        else
            lvx_cmd_errorf("%s", env->ctx->errmsg);
        lvx_error_clear(env->ctx);
        return LVX_EXIT_INVALID;   /* as LVM2 */
    }
    struct lvx_pv *pv = lvx_vg_find_pv_uuid(vg, o->uuid);
    if (!pv) {
        char dashed[LVX_UUID_DASHED_LEN + 1];
        lvx_uuid_format(o->uuid, dashed);
        lvx_cmd_errorf("Can't find uuid %s in backup file %s", dashed, path);
        return LVX_EXIT_INVALID;
    }
    o->req.pe_start_fixed = pv->pe_start * 512;
    if (pv->pe_count)            /* a second mda must fit after the restored extents */
        o->req.pe_end_fixed = (pv->pe_start + (uint64_t)pv->pe_count * vg->extent_size) * 512;
    /* --dataalignment[offset] that cannot give the restored pe_start: ignored (LVM2) */
    uint64_t da = o->req.data_alignment / 512, off = o->req.alignment_offset / 512;
    if (da + off && (da ? pv->pe_start % da : pv->pe_start) != off) {
        struct lvx_buf a = LVX_BUF_INIT, p = LVX_BUF_INIT;
        lvx_cmd_display_size(&a, da + off, env->args->units, env->args->unit_bytes);
        lvx_cmd_display_size(&p, pv->pe_start, env->args->units, env->args->unit_bytes);
        lvx_warn(env->ctx, "WARNING: Ignoring data alignment %s incompatible with restored "
                 "pe_start value %s.", lvx_buf_str(&a), lvx_buf_str(&p));
        lvx_buf_free(&a);
        lvx_buf_free(&p);
        o->req.data_alignment = 0;
        o->req.alignment_offset = 0;
        o->req.has_alignment_offset = false;
    }
    if (pv->has_ba && pv->ba_size && !env->args->count[LVX_OPT_BOOTLOADERAREASIZE])
        o->req.ba_size = pv->ba_size * 512;      /* the bootloader area comes back too */
    if (pv->has_dev_size && pv->dev_size && !o->set_size)
        o->set_size = pv->dev_size * 512;
    return 0;
}

/* ---- pass 2: checks -------------------------------------------------------- */

/* --uuid: no other device may carry a PV with that UUID (LVM2's line, exit 5). */
static int check_uuid_unused(struct lvx_cmd_env *env, const struct pvcreate_opts *o)
{
    if (!o->has_uuid)
        return 0;
    struct lvx_scan_opts so = { .devices = env->args->devices,
                                .device_count = env->args->device_count };
    struct lvx_scan *scan = NULL;
    if (lvx_scan(env->ctx, &so, &scan) < 0)
        return lvx_cmd_fail(env);
    int rc = 0;
    for (unsigned j = 0; j < scan->pv_count && !rc; j++) {
        const struct lvx_scan_pv *spv = &scan->pvs[j];
        bool named = false;
        for (int i = 0; i < env->args->argc && !named; i++)
            named = lvx_cmd_same_device(env->args->argv[i], spv->dev->path);
        if (!named && strcmp(spv->label.pv_uuid, o->uuid) == 0) {
            char dashed[LVX_UUID_DASHED_LEN + 1];
            lvx_uuid_format(o->uuid, dashed);
            lvx_cmd_errorf("UUID %s already in use on \"%s\".", dashed, spv->dev->path);
            rc = LVX_EXIT_FAILED;
        }
    }
    lvx_scan_free(scan);
    return rc;
}

/* A mounted (or otherwise exclusively held) device: LVM2's words, exit 5. */
static bool check_not_held(struct lvx_cmd_env *env, struct pvcreate_dev *d)
{
    if (!d->held)
        return true;
    lvx_cmd_errorf("Can't open %s exclusively.  Mounted filesystem?", d->name);
    return false;
}

static bool check_existing_pv(struct lvx_cmd_env *env, struct pvcreate_dev *d)
{
    if (!d->spv || !lvx_pv_scanned_in_vg(d->spv))
        return true;
    const char *vg = lvx_pv_scanned_vg_name(d->spv);
    if (env->args->count[LVX_OPT_FORCE] < 2) {
        if (vg) {
            lvx_cmd_errorf("Can't initialize physical volume \"%s\" of volume group \"%s\" without -ff",
                           d->name, vg);
        } else {    /* marked in use (PV_EXT_USED), no metadata of its own naming the VG */
            lvx_cmd_errorf("PV %s is used by a VG but its metadata is missing.", d->name);
            lvx_cmd_errorf("Can't initialize PV '%s' without -ff.", d->name);
        }
        lvx_cmd_errorf("%s: physical volume not initialized.", d->name);
        return false;
    }
    if (!lvx_pvcmd_confirm(env, "Really INITIALIZE physical volume \"%s\" of volume group \"%s\"?",
                           d->name, vg ? vg : "<unknown>")) {
        lvx_cmd_errorf("%s: physical volume not initialized (-ff needs confirmation: add -y).",
                       d->name);
        return false;
    }
    return true;
}

/* libblkid probes of all devices on a few threads (each reads dozens of blocks: a
 * thousand devices probed one after the other take seconds).  Each job has its own
 * ctx and pool; the results are copied into env->pool by the calling thread. */
struct probe_job {
    const struct lvx_dev_ops *io;
    struct pvcreate_dev *devs;
    struct lvx_pool **pools;
};

/* Whether the head of the device holds an LVM1 or GFS pool label (LVM2 does not see
 * such a device at all, its signature filter), its sectors 0-3 kept in keep (the labels
 * there are removed first, -Z n keeps the rest); 0 or -errno. */
static int read_head(struct lvx_ctx *ctx, struct lvx_dev *dev, bool *legacy,
                     uint8_t keep[LVX_LABEL_SCAN_BYTES])
{
    uint8_t head[4096] = {0};
    size_t len = dev->size < sizeof(head) ? (size_t)dev->size : sizeof(head);
    int r = lvx_dev_open(ctx, dev, false);
    if (r == 0)
        r = lvx_dev_read(ctx, dev, head, len, 0);
    *legacy = r == 0 && lvx_dev_has_legacy_label(head, len);
    memcpy(keep, head, LVX_LABEL_SCAN_BYTES);
    return r;
}

/* One exclusive open of a block device for everything the checks read from it (LVM2's
 * held check: an EBUSY here is "mounted or in use"; libblkid's probe through it; the
 * head; the topology): one open per device instead of three.  False when the device
 * cannot be opened so (held, a file): probe_one then goes the long way. */
static bool probe_exclusive(struct lvx_ctx *ctx, struct lvx_pool *pool, struct pvcreate_dev *d)
{
    const struct lvx_dev_ops *io = lvx_io(ctx);
    if (d->dev->is_file)
        return false;
    int fd = io->open(io->arg, d->dev->path, O_RDONLY | O_EXCL);
    if (fd < 0)
        return false;
    d->probe_rc = lvx_dev_find_signatures_fd(ctx, pool, d->dev, fd, &d->sigs, &d->sig_count);
    if (d->probe_rc < 0)
        snprintf(d->errmsg, sizeof(d->errmsg), "%s", ctx->errmsg);
    uint8_t head[4096] = {0};
    size_t len = d->dev->size < sizeof(head) ? (size_t)d->dev->size : sizeof(head);
    ssize_t n = io->pread(io->arg, fd, head, len, 0);
    if (n < 0 || (size_t)n < len) {
        d->head_rc = n < 0 ? (int)n : -EIO;
        snprintf(d->head_msg, sizeof(d->head_msg), "Read of %zu bytes at offset 0 from %s failed: %s",
                 len, d->dev->path, strerror(-d->head_rc));
    }
    d->legacy = d->head_rc == 0 && lvx_dev_has_legacy_label(head, len);
    memcpy(d->old, head, LVX_LABEL_SCAN_BYTES);
    lvx_dev_read_topology_fd(d->dev, fd);       /* for plan_layout, here on the thread */
    io->close(io->arg, fd);
    return true;
}

static void probe_one(void *arg, unsigned i)
{
    struct probe_job *j = arg;
    struct pvcreate_dev *d = &j->devs[i];
    struct lvx_ctx own;
    lvx_ctx_init(&own);
    own.io = j->io;
    j->pools[i] = lvx_pool_create();
    if (!d->first && probe_exclusive(&own, j->pools[i], d))
        return;
    d->probe_rc = lvx_dev_find_signatures(&own, j->pools[i], d->dev, &d->sigs, &d->sig_count);
    if (d->probe_rc < 0)
        snprintf(d->errmsg, sizeof(d->errmsg), "%s", own.errmsg);
    if (d->first)
        return;                      /* named twice: refused, its results copied */
    lvx_error_clear(&own);
    d->held = lvx_dev_held(&own, d->dev);
    d->head_rc = read_head(&own, d->dev, &d->legacy, d->old);
    if (d->head_rc < 0)
        snprintf(d->head_msg, sizeof(d->head_msg), "%s", own.errmsg);
    lvx_dev_read_topology(d->dev);       /* for plan_layout, here on the device's thread */
}

static void probe_all(struct lvx_cmd_env *env, struct pvcreate_dev *devs, unsigned count)
{
    struct lvx_dev_sig *first;
    unsigned n;
    if (count > 1 && lvx_dev_find_signatures(env->ctx, env->pool, devs[0].dev, &first, &n) < 0)
        lvx_error_clear(env->ctx);   /* libblkid's one-time set-up, before the threads */
    struct lvx_pool **pools = lvx_xcalloc(count + 1, sizeof(*pools));
    struct probe_job job = { lvx_io(env->ctx), devs, pools };
    lvx_parallel_for(count, 0, probe_one, &job);
    for (unsigned i = 0; i < count; i++) {
        struct pvcreate_dev *d = &devs[i];
        if (d->probe_rc == 0 && d->sig_count) {
            struct lvx_dev_sig *copy = lvx_pool_alloc(env->pool, d->sig_count * sizeof(*copy));
            for (unsigned k = 0; k < d->sig_count; k++) {
                copy[k] = d->sigs[k];
                copy[k].type = lvx_pool_strdup(env->pool, d->sigs[k].type);
            }
            d->sigs = copy;
        }
        d->probed = true;
        if (d->first) {
            d->held = d->first->held;
            d->legacy = d->first->legacy;
            d->head_rc = d->first->head_rc;
            memcpy(d->head_msg, d->first->head_msg, sizeof(d->head_msg));
        }
        lvx_pool_destroy(pools[i]);
    }
    free(pools);
}

/* An LVM1 or GFS pool label: LVM2 does not see the device at all (its signature
 * filter), -ff or not. */
static bool check_legacy_label(struct lvx_cmd_env *env, struct pvcreate_dev *d)
{
    if (d->head_rc < 0) {
        lvx_error(env->ctx, d->head_rc, "%s", d->head_msg);
        lvx_cmd_fail(env);
        return false;
    }
    if (!d->legacy)
        return true;
    lvx_cmd_errorf("Cannot use %s: device has a signature", d->name);
    return false;
}

static bool check_signatures(struct lvx_cmd_env *env, struct pvcreate_dev *d)
{
    if (d->probed && d->probe_rc < 0) {
        lvx_cmd_errorf("%s", d->errmsg);
        return false;
    }
    if (!d->probed &&
        lvx_dev_find_signatures(env->ctx, env->pool, d->dev, &d->sigs, &d->sig_count) < 0) {
        lvx_cmd_fail(env);
        return false;
    }
    if (d->sig_count == 0 || env->args->count[LVX_OPT_FORCE] || env->args->count[LVX_OPT_YES])
        return true;
    for (unsigned i = 0; i < d->sig_count; i++) {
        const struct lvx_dev_sig *s = &d->sigs[i];
        if (!lvx_pvcmd_confirm(env, "WARNING: %s signature detected on %s at offset %llu. Wipe it?",
                               s->type, d->name, (unsigned long long)s->offset)) {
            lvx_cmd_errorf("Cannot use %s: %s signature detected at offset %llu "
                           "(use -f or -y to wipe it).", d->name, s->type,
                           (unsigned long long)s->offset);
            return false;
        }
    }
    return true;
}

static bool check_size(struct lvx_cmd_env *env, const struct pvcreate_opts *o, struct pvcreate_dev *d,
                       uint64_t *size)
{
    *size = o->set_size ? o->set_size : d->dev->size;
    if (d->dev->size < o->min_bytes || *size < LVX_MIN_PV_SIZE) {
        lvx_cmd_errorf("Cannot use %s: device is too small (pv_min_size)", d->name);
        return false;
    }
    if (o->set_size > d->dev->size) {
        if (!lvx_pvcmd_confirm(env, "%s: Requested size %s exceeds real size %s. Proceed?", d->name,
                               lvx_cmd_size_str(env->pool, o->set_size / 512, 0, 0),
                               lvx_cmd_size_str(env->pool, d->dev->size / 512, 0, 0))) {
            lvx_cmd_errorf("%s: requested size exceeds the device size (confirm with -y).", d->name);
            return false;
        }
        lvx_warn(env->ctx, "WARNING: %s: Overriding real size %s. You could lose data.", d->name,
                 lvx_cmd_size_str(env->pool, d->dev->size / 512, 0, 0));
    }
    return true;
}

static bool plan_layout(struct lvx_cmd_env *env, const struct pvcreate_opts *o, struct pvcreate_dev *d)
{
    uint64_t size;
    if (!check_size(env, o, d, &size))
        return false;
    struct lvx_pv_layout_req req = o->req;
    req.dev_size = size;
    if (lvx_pv_plan_label(env->ctx, req, d->dev, o->has_uuid ? o->uuid : NULL, o->label_sector,
                          &d->label) < 0) {
        if (env->ctx->err == -ENOSPC) {     /* no room for a restored PV's second mda */
            lvx_cmd_errorf("%s on PV %s.", env->ctx->errmsg, d->name);
            lvx_cmd_errorf("Failed to add metadata area for new physical volume %s", d->name);
            lvx_cmd_errorf("Failed to setup physical volume \"%s\".", d->name);
            lvx_error_clear(env->ctx);
            return false;
        }
        lvx_cmd_errorf("Failed to set up physical volume \"%s\": %s", d->name, env->ctx->errmsg);
        lvx_error_clear(env->ctx);
        return false;
    }
    return true;
}

/* ---- pass 3: writing ------------------------------------------------------- */

/* Each device opened read-write (O_DIRECT) on a few threads; the result kept for
 * prepare_pv, which reports a failure on the calling thread. */
struct open_job {
    const struct lvx_dev_ops *io;
    struct pvcreate_dev *devs;
};

static void open_one(void *arg, unsigned i)
{
    struct open_job *j = arg;
    struct pvcreate_dev *d = &j->devs[i];
    struct lvx_ctx own;
    lvx_ctx_init(&own);
    own.io = j->io;
    d->result = lvx_dev_open_write_direct(&own, d->dev);
    if (d->result < 0)
        snprintf(d->errmsg, sizeof(d->errmsg), "%s", own.errmsg);
}

/* Before the batches: wipe the signatures (with their notices; -Z n: in the kept head
 * too), each wiped device flushed, so that no label lands before its wipes.  LVM2 wipes
 * every device before it writes the first PV, too. */
static int prepare_pv(struct lvx_cmd_env *env, struct pvcreate_dev *d)
{
    struct lvx_ctx *ctx = env->ctx;
    if (d->result < 0)
        return lvx_error(ctx, d->result, "%s", d->errmsg);
    for (unsigned i = 0; i < d->sig_count; i++) {
        const struct lvx_dev_sig *s = &d->sigs[i];
        lvx_notice(ctx, "Wiping %s signature on %s.", s->type, d->name);
        int r = lvx_dev_wipe_signature(ctx, d->dev, s);
        if (r < 0)
            return r;
        for (uint64_t b = s->offset; b < s->offset + s->len && b < sizeof(d->old); b++)
            d->old[b] = 0;
    }
    return d->sig_count ? lvx_dev_flush(ctx, d->dev) : 0;
}

static int write_all(struct lvx_cmd_env *env, const struct pvcreate_opts *o,
                     struct pvcreate_dev *devs, unsigned count)
{
    uint64_t t = lvx_phase_start();
    struct open_job job = { lvx_io(env->ctx), devs };
    lvx_parallel_for(count, 0, open_one, &job);
    lvx_phase_end("pvcreate.open", t);
    struct lvx_pv_new *pvs = lvx_xcalloc(count + 1, sizeof(*pvs));
    unsigned n = 0;
    unsigned *of = lvx_xcalloc(count + 1, sizeof(*of));
    t = lvx_phase_start();
    for (unsigned i = 0; i < count; i++) {
        struct pvcreate_dev *d = &devs[i];
        d->result = prepare_pv(env, d);
        if (d->result < 0) {
            snprintf(d->errmsg, sizeof(d->errmsg), "%s", env->ctx->errmsg);
            lvx_error_clear(env->ctx);
            continue;
        }
        pvs[n] = (struct lvx_pv_new){ .dev = d->dev, .label = &d->label, .head = d->old,
                                      .keep_head = !o->zero };
        of[n++] = i;
    }
    lvx_phase_end("pvcreate.prepare", t);
    t = lvx_phase_start();
    lvx_pv_write_new_many(env->ctx, pvs, n, o->mda_ignored, false);
    lvx_phase_end("pvcreate.batches", t);
    t = lvx_phase_start();
    for (unsigned k = 0; k < n; k++)
        if (pvs[k].result < 0) {
            devs[of[k]].result = pvs[k].result;
            snprintf(devs[of[k]].errmsg, sizeof(devs[of[k]].errmsg), "%s", pvs[k].errmsg);
        }
    free(pvs);
    free(of);
    int rc = 0;
    for (unsigned i = 0; i < count; i++) {
        struct pvcreate_dev *d = &devs[i];
        if (d->result < 0) {
            lvx_cmd_errorf("Failed to write physical volume \"%s\": %s", d->name, d->errmsg);
            rc = LVX_EXIT_FAILED;
            continue;
        }
        lvx_notice(env->ctx, "Physical volume \"%s\" successfully created.", d->name);
    }
    /* the new PVs in the devices file, when one is in use */
    struct lvx_dev **made = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*made));
    const char **pvids = lvx_pool_alloc(env->pool, (count + 1) * sizeof(*pvids));
    unsigned m = 0;
    for (unsigned i = 0; i < count; i++) {
        if (devs[i].result < 0)
            continue;
        made[m] = devs[i].dev;
        pvids[m++] = devs[i].label.pv_uuid;
    }
    lvx_phase_end("pvcreate.report", t);
    t = lvx_phase_start();
    lvx_cmd_devfile_note(env, made, pvids, m, true, NULL, NULL);
    lvx_phase_end("pvcreate.devfile", t);
    return rc;
}

static int check_all(struct lvx_cmd_env *env, const struct pvcreate_opts *o,
                     const struct lvx_pvcmd_devs *named, struct pvcreate_dev *devs)
{
    bool ok = true;
    for (unsigned i = 0; i < named->count; i++) {
        devs[i].dev = named->devs[i];
        devs[i].name = env->args->argv[i];
        for (unsigned j = 0; j < i && !devs[i].first; j++)
            if (devs[j].dev == devs[i].dev)
                devs[i].first = &devs[j];
    }
    uint64_t tp = lvx_phase_start();
    probe_all(env, devs, named->count);
    lvx_phase_end("pvcreate.probe", tp);
    uint64_t t = lvx_phase_start();
    for (unsigned i = 0; i < named->count; i++) {
        struct pvcreate_dev *d = &devs[i];
        d->spv = named->spvs[i];
        for (unsigned j = 0; j < i; j++)
            if (devs[j].dev == d->dev) {
                lvx_cmd_errorf("Device %s is named more than once.", d->name);
                ok = false;
            }
        ok = check_not_held(env, d) && check_legacy_label(env, d) && check_existing_pv(env, d) &&
             check_signatures(env, d) && plan_layout(env, o, d) && ok;
    }
    lvx_phase_end("pvcreate.checks", t);
    return ok ? 0 : LVX_EXIT_FAILED;
}

int lvx_cmd_pvcreate(struct lvx_cmd_env *env)
{
    struct pvcreate_opts o;
    struct lvx_lock global = LVX_LOCK_INIT;
    struct lvx_pvcmd_devs named;
    unsigned count = (unsigned)env->args->argc;

    int rc = parse_opts(env, &o);
    if (rc)
        return rc;
    if ((rc = apply_restorefile(env, &o)))
        return rc;
    o.min_bytes = lvx_scan_pv_min_bytes(env->ctx);
    if (lvx_lock_global(env->ctx, true, &global) < 0)
        return lvx_cmd_fail(env);
    if ((rc = check_uuid_unused(env, &o))) {
        lvx_unlock(&global);
        return rc;
    }
    rc = lvx_pvcmd_scan_named(env, env->args->argv, count, &named);
    if (rc) {
        lvx_unlock(&global);
        return rc;
    }
    struct pvcreate_dev *devs = lvx_pool_alloc(env->pool, count * sizeof(*devs));
    memset(devs, 0, count * sizeof(*devs));
    rc = check_all(env, &o, &named, devs);
    if (!rc && env->args->count[LVX_OPT_TEST] == 0) {
        uint64_t t = lvx_phase_start();
        rc = write_all(env, &o, devs, count);
        lvx_phase_end("pvcreate.write", t);
    } else {
        for (unsigned i = 0; i < count && !rc; i++)
            lvx_notice(env->ctx, "Physical volume \"%s\" successfully created.", devs[i].name);
    }
    lvx_pvcmd_devs_free(&named);
    lvx_unlock(&global);
    return rc;
}
