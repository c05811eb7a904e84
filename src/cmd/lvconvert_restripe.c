/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvconvert_restripe.c - restriping a linear or striped LV, active or not:
 * `lvconvert --stripes N [-I SIZE] [--alloc P] VG/LV [PV...]`, `--type striped` (with
 * --stripes) and `--type linear` of a striped LV.  lvx's own (LVM2 reshapes RAID LVs
 * only); the metadata at every commit is an LVM2 layout (model/restripe.h).
 *
 * Setup (one commit): the new layout is allocated whole from free extents (the PVs
 * named, or any) as the hidden LV_restripe; LV is LOCKED.  Then steps, each under the
 * VG lock: a window of LEs [P, C) (about STEP_BYTES) is copied from its old place to
 * its new one, the step is committed (model/restripe.c: the old extents go to the
 * hidden LV_restripe_old), and the daemon reloads LV when it serves it; the last step
 * removes LV_restripe; a last commit, after that reload, frees the old extents
 * (removes LV_restripe_old) and unlocks LV.
 *
 * The copy: an inactive LV is copied here through the I/O seam (reads mapped through
 * the LV as committed, writes through the LV as it will be, destinations flushed
 * before the commit).  An LV active in the user-space backend is copied by the daemon
 * (`rscopy` requests): its restripe target writes every write to both layouts, so a
 * copy and a commit may be interrupted anywhere (what was copied and written since is
 * in the new place; the old place stays complete until the commit that frees it).  An
 * LV active in the kernel backend is refused (exit 5): lvx has no dm table that
 * mirrors writes to a second layout yet.
 *
 * Crash safety: a SIGKILL leaves the last commit; rerunning the same command (or
 * `lvconvert VG/LV` without options) resumes it: the daemon reloads LV first (a crash
 * between a commit and its reload), then the next window is copied again from P.  One
 * copier per LV: the copier lock of the LV's uuid (cmd/pvmove.c), which also makes it a
 * job in `lvx jobs` (SOURCE "stripes:N"); `lvx jobs --abort VG/LV` stops it (SIGTERM:
 * it ends at the next window, its restripe resumable).
 */
#include "cmd/lvconvert_restripe.h"

#include "cmd/actcmd.h"
#include "cmd/lvconvert_raid.h"
#include "daemon/daemon.h"
#include "dev/io.h"
#include "map/map.h"
#include "meta/jobs.h"
#include "model/restripe.h"
#include "model/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define STEP_BYTES (32ull << 20)       /* LV bytes per step (window) */
#define DIRECT_BYTES (4u << 20)        /* bytes per read/write batch of a direct copy */
#define DIRECT_DEPTH 64u               /* operations in flight */
#define DAEMON_SECTORS 16384u          /* sectors per rscopy request (8 MiB) */
#define DEFAULT_STRIPE_SIZE 128u       /* sectors: 64 KiB, as lvcreate */

static volatile sig_atomic_t stop_requested;

static void on_term(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static bool plain_striped(const struct lvx_lv *lv)
{
    if (!lv->seg_count)
        return false;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        if (seg->kind != LVX_SEG_STRIPED || !seg->area_count)
            return false;
        for (uint32_t a = 0; a < seg->area_count; a++)
            if (!seg->areas[a].pv)
                return false;
    }
    return true;
}

bool lvx_restripe_wanted(const struct lvx_cmd_env *env, const struct lvx_lv *lv,
                         const char *type, bool mirrors_given)
{
    const struct lvx_cmd_args *a = env->args;
    if (type && !strcmp(type, "mirror"))        /* --stripes of the new images */
        return false;
    if (a->count[LVX_OPT_STRIPES] || a->count[LVX_OPT_STRIPESIZE])
        return true;
    if (type && !strcmp(type, "striped"))
        return true;
    if (type && !strcmp(type, "linear") && !a->count[LVX_OPT_MIRRORS])
        return plain_striped(lv) && (!lvx_raid_lv_is_linear(lv) || lvx_restripe_rsv(lv) ||
                                     lvx_restripe_old(lv));
    return !type && !mirrors_given && (lvx_restripe_rsv(lv) || lvx_restripe_old(lv));
}

/* ---- setup -------------------------------------------------------------------------- */

static bool same_layout(const struct lvx_lv *lv, uint32_t n, uint32_t size)
{
    for (unsigned s = 0; s < lv->seg_count; s++)
        if (lv->segs[s].area_count != n || (n > 1 && lv->segs[s].stripe_size != size))
            return false;
    return true;
}

int lvx_lvconvert_restripe(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_lv *lv,
                           const struct lvx_restripe_opts *o, char job[LVX_UUID_LEN + 1])
{
    struct lvx_vg *vg = u->vg;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", vg->name, lv->name);
    job[0] = '\0';
    struct lvx_lv *rsv = lvx_restripe_rsv(lv);
    /* the reservation, or with every window done LV itself: the layout it goes to */
    const struct lvx_lv *to = rsv ? rsv : lvx_restripe_old(lv) ? lv : NULL;
    if (to) {
        uint32_t n = to->segs[0].area_count;
        if ((o->stripes_given && o->stripes != n) ||
            (o->stripe_size && n > 1 && o->stripe_size != to->segs[0].stripe_size)) {
            lvx_cmd_errorf("Logical volume %s is being restriped to %u stripes: rerun "
                           "lvconvert %s to finish that first.", full, n, full);
            return LVX_EXIT_FAILED;
        }
        lvx_notice(env->ctx, "Resuming the restripe of %s to %u stripes.", full, n);
        memcpy(job, lv->uuid, LVX_UUID_LEN + 1);
        return 0;
    }
    if (!o->stripes_given) {
        lvx_cmd_errorf("--stripes is required to restripe %s.", full);
        return LVX_EXIT_INVALID;
    }
    uint32_t n = o->stripes, size = o->stripe_size;
    if (lv->status & LVX_LV_LOCKED) {
        lvx_cmd_errorf("Can't convert locked logical volume %s.", full);
        return LVX_EXIT_FAILED;
    }
    if (!plain_striped(lv) || lvx_lv_snapshot_segs(lv, NULL, 0) > 0 || lvx_lv_is_cow(lv)) {
        lvx_cmd_errorf("lvx restripes linear and striped LVs only, not %s (%s%s).", full,
                       lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "empty",
                       lvx_lv_snapshot_segs(lv, NULL, 0) > 0 ? ", origin" : "");
        return LVX_EXIT_FAILED;
    }
    if (n == 1 && size) {
        lvx_warn(env->ctx, "Ignoring stripesize argument with single stripe.");
        size = 0;
    }
    if (n > 1 && !size) {
        size = DEFAULT_STRIPE_SIZE;
        lvx_notice(env->ctx, "Using default stripesize %s.", lvx_lvcmd_size(env, size));
    }
    if (size > vg->extent_size) {
        lvx_notice(env->ctx, "Reducing requested stripe size %s to maximum, physical extent "
                   "size %s.", lvx_lvcmd_size(env, size), lvx_lvcmd_size(env, vg->extent_size));
        size = vg->extent_size;
    }
    if (same_layout(lv, n, size)) {
        lvx_cmd_errorf("Logical volume %s already has %u stripe%s%s%s.", full, n,
                       n > 1 ? "s of " : "", n > 1 ? lvx_lvcmd_size(env, size) : "",
                       n > 1 ? " each" : "");
        return LVX_EXIT_FAILED;
    }
    if (lv->le_count % n) {
        lvx_cmd_errorf("Size of logical volume %s (%llu extents) is not a multiple of %u "
                       "stripes.", full, (unsigned long long)lv->le_count, n);
        return LVX_EXIT_FAILED;
    }
    struct lvx_actcmd act;
    int rc;
    if ((rc = lvx_actcmd_init(env, &act)))
        return rc;
    if (lvx_actcmd_is_active(env, &act, lv, NULL) && act.be != &lvx_activation_user) {
        lvx_cmd_errorf("Logical volume %s is active in the kernel: lvx restripes active LVs "
                       "only in the user-space backend (deactivate it first).", full);
        return LVX_EXIT_FAILED;
    }
    const char *rname = lvx_restripe_name(env->pool, lv);
    const char *oname = lvx_pool_printf(env->pool, "%s_old", rname);
    if (lvx_vg_find_lv(vg, rname) || lvx_vg_find_lv(vg, oname)) {
        lvx_cmd_errorf("Logical volume %s/%s already exists: it would hold the restripe of %s.",
                       vg->name, lvx_vg_find_lv(vg, rname) ? rname : oname, full);
        return LVX_EXIT_FAILED;
    }
    struct lvx_alloc_pv *pvs = NULL;
    unsigned pv_count = 0;
    if (o->pv_arg_count &&
        (rc = lvx_lvcmd_pv_args(env, vg, o->pv_args, o->pv_arg_count, &pvs, &pv_count)))
        return rc;
    struct lvx_free_maps *maps;
    if ((rc = lvx_lvcmd_free_maps(env, u, &maps)))
        return rc;
    struct lvx_alloc_request req = {
        .extents = lv->le_count, .stripes = n, .stripe_size = size,
        .policy = o->policy == LVX_ALLOC_INHERIT ? vg->alloc : o->policy,
        .pv_count = pv_count, .pvs = pvs, .lv_name = rname,
    };
    if (req.policy == LVX_ALLOC_INHERIT)
        req.policy = LVX_ALLOC_NORMAL;
    struct lvx_alloc_result res;
    struct utsname un;
    if (lvx_lvcmd_allocate(env, vg, maps, &req, false, &res) < 0 ||
        lvx_restripe_setup(env->ctx, lv, &res, (uint64_t)time(NULL),
                           uname(&un) == 0 ? un.nodename : "unknown") < 0)
        return lvx_cmd_fail(env);
    lvx_notice(env->ctx, "Restriping %s to %u stripe%s.", full, n, n > 1 ? "s" : "");
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    if (env->args->count[LVX_OPT_TEST])
        return 0;
    /* the daemon writes to both layouts before anything is copied */
    if ((rc = lvx_pvmove_reload_lv(env, &act, lv)))
        return rc;
    memcpy(job, lv->uuid, LVX_UUID_LEN + 1);
    return 0;
}

/* ---- the copy of a window ------------------------------------------------------------ */

struct direct {
    const struct lvx_dev_ops *io;
    struct lvx_io_queue *q;
    int *fds;                          /* by pv->index, -1: not open */
    bool *written;
    const struct lvx_vg *vg;
    char *buf;
};

static int direct_fd(struct direct *d, const struct lvx_pv *pv)
{
    if (d->fds[pv->index] >= 0)
        return d->fds[pv->index];
    const char *path = pv->ondisk.dev_name;
    if (!path || !pv->ondisk.present) {
        lvx_cmd_errorf("PV %s of %s is missing.", pv->uuid, d->vg->name);
        return -1;
    }
    int fd = d->io->open(d->io->arg, path, O_RDWR | O_DIRECT);
    if (fd == -EINVAL)
        fd = d->io->open(d->io->arg, path, O_RDWR);
    if (fd < 0) {
        lvx_cmd_errorf("%s: open failed: %s", path, strerror(-fd));
        return -1;
    }
    return d->fds[pv->index] = fd;
}

/* Read (write) LV sectors [s, s+n) mapped by m into (from) d->buf. */
static int direct_rw(struct direct *d, const struct lvx_map_prepared *m, bool write, uint64_t s,
                     uint64_t n)
{
    struct lvx_io_op ops[DIRECT_DEPTH];
    unsigned k = 0;
    for (uint64_t x = 0; x < n || k;) {
        if (x < n) {
            struct lvx_map_loc loc;
            if (lvx_map_prepared_lookup(m, s + x, &loc) < 0 || loc.kind != LVX_MAP_PV ||
                !loc.pv || !loc.len) {
                lvx_cmd_errorf("%s: LV sector %llu is not on a PV.", d->vg->name,
                               (unsigned long long)(s + x));
                return LVX_EXIT_FAILED;
            }
            int fd = direct_fd(d, loc.pv);
            if (fd < 0)
                return LVX_EXIT_FAILED;
            uint64_t cnt = loc.len < n - x ? loc.len : n - x;
            ops[k++] = (struct lvx_io_op){ .fd = fd, .kind = write ? LVX_IO_WRITE : LVX_IO_READ,
                                           .buf = d->buf + x * 512, .len = (uint32_t)(cnt * 512),
                                           .off = loc.pv_sector * 512, .dev = loc.pv->index };
            if (write)
                d->written[loc.pv->index] = true;
            x += cnt;
            if (k < DIRECT_DEPTH && x < n)
                continue;
        }
        int r = d->io->submit(d->io->arg, d->q, ops, k);
        for (unsigned i = 0; i < k && r >= 0; i++)
            if (ops[i].result != (int32_t)ops[i].len)
                r = ops[i].result < 0 ? ops[i].result : -EIO;
        if (r < 0) {
            lvx_cmd_errorf("%s: %s of the restripe failed: %s", d->vg->name,
                           write ? "write" : "read", strerror(-r));
            return LVX_EXIT_FAILED;
        }
        k = 0;
    }
    return 0;
}

/* Copy LV sectors [from, to) of an inactive LV: old (as committed) -> new (target). */
static int copy_direct(struct lvx_cmd_env *env, const struct lvx_lv *old, const struct lvx_lv *nw,
                       uint64_t from, uint64_t to)
{
    struct lvx_map_prepared *m0, *m1;
    if (lvx_map_prepare(env->ctx, env->pool, old, 0, &m0) < 0 ||
        lvx_map_prepare(env->ctx, env->pool, nw, 0, &m1) < 0)
        return lvx_cmd_fail(env);
    const struct lvx_vg *vg = old->vg;
    struct direct d = { .io = lvx_io(env->ctx), .vg = vg };
    d.fds = lvx_pool_alloc(env->pool, (vg->pv_count + 1) * sizeof(*d.fds));
    d.written = lvx_pool_alloc(env->pool, (vg->pv_count + 1) * sizeof(*d.written));
    for (unsigned i = 0; i < vg->pv_count; i++)
        d.fds[i] = -1;
    uintptr_t base = (uintptr_t)lvx_pool_alloc_uninit(env->pool, DIRECT_BYTES + 4096);
    d.buf = (char *)((base + 4095) & ~(uintptr_t)4095);
    int rc = d.io->queue_open(d.io->arg, DIRECT_DEPTH, &d.q);
    if (rc < 0) {
        lvx_cmd_errorf("%s: no I/O queue for the restripe: %s", vg->name, strerror(-rc));
        return LVX_EXIT_FAILED;
    }
    rc = 0;
    for (uint64_t s = from; s < to && !rc && !stop_requested;) {
        uint64_t n = to - s < DIRECT_BYTES / 512 ? to - s : DIRECT_BYTES / 512;
        if (!(rc = direct_rw(&d, m0, false, s, n)))
            rc = direct_rw(&d, m1, true, s, n);
        s += n;
    }
    d.io->queue_close(d.io->arg, d.q);
    for (unsigned i = 0; i < vg->pv_count; i++) {
        if (d.fds[i] < 0)
            continue;
        int f = !rc && d.written[i] ? d.io->flush(d.io->arg, d.fds[i]) : 0;
        if (f < 0) {
            lvx_cmd_errorf("%s: flush failed: %s", vg->pvs[i]->ondisk.dev_name, strerror(-f));
            rc = LVX_EXIT_FAILED;
        }
        d.io->close(d.io->arg, d.fds[i]);
    }
    return rc;
}

/* Copy LV sectors [from, to) of an LV the daemon serves (its restripe target). */
static int copy_daemon(struct lvx_cmd_env *env, const char *vgname, const char *lvname,
                       uint64_t from, uint64_t to)
{
    for (uint64_t s = from; s < to && !stop_requested;) {
        uint64_t n = to - s < DAEMON_SECTORS ? to - s : DAEMON_SECTORS;
        char req[600];
        snprintf(req, sizeof(req), "rscopy %s %s %llu %llu %d", vgname, lvname,
                 (unsigned long long)s, (unsigned long long)n, s + n == to);
        if (lvx_daemon_call(env->ctx, req, false, NULL) < 0) {
            lvx_cmd_errorf("%s", env->ctx->errmsg[0] ? env->ctx->errmsg : "rscopy failed");
            lvx_error_clear(env->ctx);
            return LVX_EXIT_FAILED;
        }
        s += n;
    }
    return 0;
}

/* ---- the steps ------------------------------------------------------------------------ */

static struct lvx_lv *find_uuid(const struct lvx_vg *vg, const char *uuid)
{
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (!strcmp(vg->lvs[i]->uuid, uuid))
            return vg->lvs[i];
    return NULL;
}

/* One step under u: copy the next window, commit.  1 when the restripe is done. */
static int step(struct lvx_cmd_env *env, struct lvx_vg_update *u, struct lvx_actcmd *act,
                const char *lv_uuid, bool first, int job)
{
    struct lvx_vg *vg = u->vg;
    struct lvx_lv *lv = find_uuid(vg, lv_uuid);
    struct lvx_lv *rsv = lv ? lvx_restripe_rsv(lv) : NULL;
    if (!rsv && !(lv && lvx_restripe_old(lv)))
        return 1;
    const char *full = lvx_pool_printf(env->pool, "%s/%s", vg->name, lv->name);
    bool live = lvx_pvmove_in_daemon(env, act, lv);
    if (!live && lvx_actcmd_is_active(env, act, lv, NULL)) {
        lvx_cmd_errorf("Logical volume %s is active in the kernel: lvx restripes active LVs "
                       "only in the user-space backend (deactivate it first).", full);
        return LVX_EXIT_FAILED;
    }
    int rc;
    /* a resumed copier: the daemon serves what the metadata says */
    if (first && live && (rc = lvx_pvmove_reload_lv(env, act, lv)))
        return rc;
    if (!rsv) {
        /* every window committed and (above, or after the last step) the daemon
         * reloaded: nothing writes the old extents any more */
        lvx_restripe_release(lv);
        return (rc = lvx_lvcmd_commit(env, u)) ? rc : 1;
    }
    uint64_t es = vg->extent_size, p = lvx_restripe_done(lv, rsv);
    uint64_t want = STEP_BYTES / 512 / es;
    uint64_t cut = lvx_restripe_next_cut(lv, rsv, want ? want : 1);
    uint32_t n = rsv->segs[0].area_count;
    if (job >= 0)
        lvx_job_write(job, vg->name, lv->name, lvx_pool_printf(env->pool, "stripes:%u", n),
                      p * es, lv->le_count * es);
    lvx_info(env->ctx, "%s: Restriped: %.2f%%", full, 100.0 * (double)p / (double)lv->le_count);
    rc = live ? copy_daemon(env, vg->name, lv->name, p * es, cut * es)
              : copy_direct(env, lv, lvx_restripe_target(env->pool, lv, rsv), p * es, cut * es);
    if (rc || stop_requested)
        return rc;
    if (lvx_restripe_step(env->ctx, lv, rsv, cut) < 0)
        return lvx_cmd_fail(env);
    if ((rc = lvx_lvcmd_commit(env, u)))
        return rc;
    if (live && (rc = lvx_pvmove_reload_lv(env, act, lv)))
        return rc;
    return 0;
}

int lvx_lvconvert_restripe_run(struct lvx_cmd_env *env, const char *vgname, const char *lv_uuid)
{
    int job = lvx_pvmove_copier_lock(env, lv_uuid);
    if (job == -EBUSY) {
        lvx_cmd_errorf("Another lvx is restriping this logical volume of %s (see lvx jobs).",
                       vgname);
        return LVX_EXIT_FAILED;
    }
    struct lvx_actcmd act;
    int rc = lvx_actcmd_init(env, &act);
    if (rc) {
        lvx_pvmove_copier_unlock(env, job, lv_uuid);
        return rc;
    }
    struct sigaction sa = { .sa_handler = on_term }, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old);
    stop_requested = 0;
    const char *full = NULL;
    for (bool first = true; !rc && !stop_requested; first = false) {
        struct lvx_vg_update u;
        if ((rc = lvx_lvcmd_begin(env, vgname, &u)))
            break;
        const struct lvx_lv *lv = find_uuid(u.vg, lv_uuid);
        if (lv && !full)
            full = lvx_pool_printf(env->pool, "%s/%s", vgname, lv->name);
        rc = step(env, &u, &act, lv_uuid, first, job);
        lvx_vg_update_end(&u);
        if (rc == 1) {
            rc = 0;
            if (full)
                lvx_notice(env->ctx, "Logical volume %s successfully converted.", full);
            break;
        }
    }
    if (stop_requested && !rc)
        lvx_notice(env->ctx, "Restripe of %s stopped: rerun lvconvert to resume it.",
                   full ? full : vgname);
    sigaction(SIGTERM, &old, NULL);
    lvx_pvmove_copier_unlock(env, job, lv_uuid);
    return rc;
}
