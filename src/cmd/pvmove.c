/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvmove.c - `lvx pvmove SRC[:PE-PE...] [DST[:PE-PE]...]`, `-n LV`, `--alloc`,
 * `-b`, `-i [+]N`, `--abort`, and `pvmove` without arguments (resume every unfinished
 * move, or abort them all with --abort).
 *
 * The metadata is LVM2's (model/pvmove.c); the commits are LVM2's too: the setup,
 * one checkpoint per pvmove segment copied (its extents_moved complete), then the
 * end in two commits (the LVs on their new extents and pvmoveN an error segment;
 * then pvmoveN removed).  A move another tool started is continued the same way.
 *
 * The copy: lvx copies the extents of inactive LVs itself, through the I/O seam
 * (read the old area, write the new one, flush it), with no lock held, so readers
 * (lvx or LVM2) see the VG at every checkpoint; each checkpoint re-reads the VG under
 * its lock and checks that the segment is still the one copied.  An LV active in
 * the user-space backend is moved while in use: after the setup commit, each
 * checkpoint and the end the daemon reloads it (its pvmove target mirrors writes to
 * both legs), and the daemon copies its segments (`pvcopy` requests, against the
 * writes); an LV activated during a direct copy is copied again through the daemon.
 * An LV active in the kernel backend is moved by the kernel: pvmoveN's device copies
 * the running segment with dm-mirror (activate/dm_pvmove.c); the copier waits for its
 * status to say in sync, commits the checkpoint and reloads pvmoveN (LVM2's way); the
 * end reloads the LVs on their new extents and removes pvmoveN's device.  One copier
 * per move: it holds an flock on
 * <locking_dir>/lvx_pvmove_<pvmove LV uuid> with its pid in it; --abort stops it
 * (SIGTERM) and waits for the lock before detaching; another `pvmove` of the same
 * move reports its progress until it is gone.  A copier killed at any point
 * leaves the last checkpoint, and `pvmove` resumes from it.  The background copier
 * of `-b` is this program again, `lvx pvmove SRC`, told the move's uuid in its
 * environment: it copies that move or nothing (an --abort may end the move before the
 * copier starts; it must not then set up a new one).
 */
#include "cmd/cmd.h"
#include "cmd/actcmd.h"
#include "cmd/lvcmd.h"
#include "cmd/lvcreate_raid.h"
#include "cmd/mirror_layer.h"
#include "cmd/vgcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "activate/activate.h"
#include "daemon/daemon.h"
#include "dev/io.h"
#include "meta/jobs.h"
#include "meta/lock.h"
#include "model/pvmove.h"
#include "util/detach.h"

#define COPY_CHUNK (1u << 20)          /* bytes per read/write of the copy */
#define COPY_GROUP 4u                  /* chunks read (and written) by each batch */

struct mv_opts {
    bool abort;
    bool atomic;                       /* --atomic: one mirror of two sub-LVs */
    bool background;
    unsigned interval;                 /* seconds between progress lines (0: none) */
    const char *lv_name;
    enum lvx_alloc policy;             /* INHERIT: the VG's */
    uint64_t max_rate;                 /* --maxrecoveryrate: copy bytes per second (0: no
                                        * limit), an lvx extension */
    const char *resume_uuid;           /* the background copier: the one move it copies */
};

/* The environment variable that tells a background copier (this program again, run by
 * `pvmove -b`) which move it copies: started after that move has ended (an --abort
 * ahead of it), it must exit, not set up a new move of the same PV. */
#define RESUME_ENV "LVX_PVMOVE_RESUME_UUID"

static volatile sig_atomic_t stop_requested;

static void on_term(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* ---- progress ------------------------------------------------------------------ */

/* LVM2's display of a percentage: two decimals, never 0.00 for a started copy nor
 * 100.00 for an unfinished one. */
static const char *percent_text(char *buf, size_t size, uint64_t num, uint64_t den)
{
    double p = den ? 100.0 * (double)num / (double)den : 100.0;
    if (num && num < den && p < 0.01)
        p = 0.01;
    if (num < den && p > 99.99)
        p = 99.99;
    snprintf(buf, size, "%.2f", p);
    return buf;
}

struct progress {
    struct lvx_cmd_env *env;
    const struct mv_opts *o;
    const char *name;                  /* the source PV's device */
    uint64_t total, done;              /* extents of the move, copied before this segment */
    time_t last;
    /* the job file (meta/jobs.h): the copier's lock */
    int job_fd;
    const char *vg, *lv;
    uint32_t extent_size;
    /* --maxrecoveryrate: bytes copied since started (this command's copy) */
    uint64_t rated;
    struct timespec started;
};

/* --maxrecoveryrate: after bytes more were copied, sleep until the copy is not ahead of
 * the rate (the average since the copy began; rate_wait(p, 0) starts the clock). */
static void rate_wait(struct progress *p, uint64_t bytes)
{
    if (!p->o->max_rate)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!p->started.tv_sec && !p->started.tv_nsec)
        p->started = now;           /* rate_wait(p, 0) as the copy begins */
    p->rated += bytes;
    int64_t due_ns = (int64_t)((double)p->rated * 1e9 / (double)p->o->max_rate);
    int64_t spent_ns = (int64_t)(now.tv_sec - p->started.tv_sec) * 1000000000 +
                       (now.tv_nsec - p->started.tv_nsec);
    if (due_ns > spent_ns && !stop_requested) {
        int64_t w = due_ns - spent_ns;
        struct timespec ts = { .tv_sec = w / 1000000000, .tv_nsec = w % 1000000000 };
        nanosleep(&ts, NULL);
    }
}

/* The job line: copied sectors (done extents + sectors of the segment in copy). */
static void job_update(struct progress *p, uint64_t seg_sectors)
{
    if (p->job_fd >= 0 && p->lv)
        lvx_job_write(p->job_fd, p->vg, p->lv, p->name,
                      p->done * p->extent_size + seg_sectors, p->total * p->extent_size);
}

static void progress_line(struct progress *p, uint64_t copied)
{
    char pct[32];
    percent_text(pct, sizeof(pct), copied, p->total);
    if (p->o->interval)
        lvx_notice(p->env->ctx, "%s: Moved: %s%%", p->name, pct);
    else
        lvx_info(p->env->ctx, "%s: Moved: %s%%", p->name, pct);
    p->last = time(NULL);
}

/* ---- the copy of one segment --------------------------------------------------- */

struct piece {
    const char *src_path, *dst_path;
    uint64_t src_off, dst_off, bytes;  /* byte offsets on the devices */
    uint64_t extents;
    uint64_t seg_le;                   /* start_extent of the pvmove segment */
    struct lvx_pv *src_pv, *dst_pv;    /* for the re-check */
    char src_uuid[LVX_UUID_LEN + 1], dst_uuid[LVX_UUID_LEN + 1];
    uint64_t src_pe, dst_pe;
};

/* One transfer of copy_piece's batch failed or came back short: say which. */
static int copy_failed(const struct piece *pc, const struct lvx_io_op *op, bool write)
{
    int err = op->result < 0 ? -op->result : EIO;
    lvx_cmd_errorf("%s: %s failed at %llu: %s", write ? pc->dst_path : pc->src_path,
                   write ? "write" : "read", (unsigned long long)op->off, strerror(err));
    return LVX_EXIT_FAILED;
}

/* open with O_DIRECT when the piece allows it (4 KiB-aligned) and the device takes it
 * (a file on tmpfs does not): buffered writes would reach the disk only at the flush,
 * after every read, and the copy would take the sum of the two times */
static int open_for_copy(const struct lvx_dev_ops *io, const struct piece *pc, const char *path,
                         int flags)
{
    bool aligned = pc->src_off % 4096 == 0 && pc->dst_off % 4096 == 0 && pc->bytes % 4096 == 0;
    int fd = aligned ? io->open(io->arg, path, flags | O_DIRECT) : -EINVAL;
    return fd == -EINVAL ? io->open(io->arg, path, flags) : fd;
}

/* The copy of one piece, COPY_GROUP chunks at a time with reads and writes overlapping:
 * each batch writes group k and reads group k+1 (two halves of the buffer), so the copy
 * runs at the slower disk's speed, not at the sum of the read and write times.  The
 * destination is flushed at the end. */
static int copy_piece(struct lvx_cmd_env *env, const struct piece *pc, struct progress *pr)
{
    const struct lvx_dev_ops *io = lvx_io(env->ctx);
    int in = open_for_copy(io, pc, pc->src_path, O_RDONLY);
    if (in < 0) {
        lvx_cmd_errorf("%s: open failed: %s", pc->src_path, strerror(-in));
        return LVX_EXIT_FAILED;
    }
    int out = open_for_copy(io, pc, pc->dst_path, O_RDWR);
    if (out < 0) {
        io->close(io->arg, in);
        lvx_cmd_errorf("%s: open failed: %s", pc->dst_path, strerror(-out));
        return LVX_EXIT_FAILED;
    }
    struct lvx_io_queue *q = NULL;
    int rc = io->queue_open(io->arg, 2 * COPY_GROUP, &q);
    if (rc < 0) {
        io->close(io->arg, out);
        io->close(io->arg, in);
        lvx_cmd_errorf("%s: no I/O queue for the copy: %s", pc->src_path, strerror(-rc));
        return LVX_EXIT_FAILED;
    }
    /* two halves of COPY_GROUP chunks, 4 KiB-aligned for O_DIRECT */
    uintptr_t base = (uintptr_t)lvx_pool_alloc_uninit(env->pool, 2 * COPY_GROUP * COPY_CHUNK + 4096);
    char *half[2] = { (char *)((base + 4095) & ~(uintptr_t)4095), NULL };
    half[1] = half[0] + COPY_GROUP * COPY_CHUNK;
    rate_wait(pr, 0);
    uint64_t group_bytes = (uint64_t)COPY_GROUP * COPY_CHUNK;
    uint64_t groups = (pc->bytes + group_bytes - 1) / group_bytes;
    /* batch k (0..groups): the writes of group k-1 and the reads of group k, every
     * chunk of both in flight at once */
    for (uint64_t k = 0; k <= groups && !rc; k++) {
        if (stop_requested) {
            rc = -EINTR;
            break;
        }
        struct lvx_io_op ops[2 * COPY_GROUP];
        unsigned n = 0;
        uint64_t written = 0;
        for (int side = 0; side < 2; side++) {       /* 0: writes of k-1, 1: reads of k */
            uint64_t g = k - 1 + (uint64_t)side;
            if ((side == 0 && k == 0) || (side == 1 && k == groups))
                continue;
            for (unsigned c = 0; c < COPY_GROUP; c++) {
                uint64_t off = g * group_bytes + (uint64_t)c * COPY_CHUNK;
                if (off >= pc->bytes)
                    break;
                uint32_t len = (uint32_t)(pc->bytes - off < COPY_CHUNK ? pc->bytes - off : COPY_CHUNK);
                ops[n++] = (struct lvx_io_op){
                    .fd = side ? in : out, .kind = side ? LVX_IO_READ : LVX_IO_WRITE,
                    .buf = half[g & 1] + (size_t)c * COPY_CHUNK, .len = len, .dev = side ? 0 : 1,
                    .off = (side ? pc->src_off : pc->dst_off) + off };
                if (!side)
                    written = off + len;
            }
        }
        int s = io->submit(io->arg, q, ops, n);
        if (s < 0) {
            lvx_cmd_errorf("%s: copy failed: %s", pc->src_path, strerror(-s));
            rc = LVX_EXIT_FAILED;
            break;
        }
        for (unsigned i = 0; i < n && !rc; i++)
            if (ops[i].result != (int32_t)ops[i].len)
                rc = copy_failed(pc, &ops[i], ops[i].kind == LVX_IO_WRITE);
        if (!rc && k > 0) {
            rate_wait(pr, written - (k - 1) * group_bytes);   /* this batch's writes */
            job_update(pr, written / 512);
            if (pr->o->interval && time(NULL) - pr->last >= (time_t)pr->o->interval)
                progress_line(pr, pr->done + pc->extents * written / pc->bytes);
        }
    }
    io->queue_close(io->arg, q);
    if (!rc) {
        int f = io->flush(io->arg, out);
        if (f < 0) {
            lvx_cmd_errorf("%s: flush failed: %s", pc->dst_path, strerror(-f));
            rc = LVX_EXIT_FAILED;
        }
    }
    io->close(io->arg, out);
    io->close(io->arg, in);
    return rc;
}

/* ---- LVs active in the daemon -------------------------------------------------- */

/* The LV with an area on extent le of the pvmove LV mv (NULL when none). */
static struct lvx_lv *owner_of(const struct lvx_vg *vg, const struct lvx_lv *mv, uint64_t le)
{
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_lv *lv = vg->lvs[i];
        for (unsigned s = 0; s < lv->seg_count; s++)
            for (unsigned a = 0; a < lv->segs[s].area_count; a++) {
                const struct lvx_area *ar = &lv->segs[s].areas[a];
                if (ar->lv == mv && le >= ar->start &&
                    le < ar->start + lvx_seg_area_len(&lv->segs[s]))
                    return lv;
            }
    }
    return NULL;
}

bool lvx_pvmove_in_daemon(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                      const struct lvx_lv *lv)
{
    return act->be == &lvx_activation_user && lvx_actcmd_is_active(env, act, lv, NULL);
}

int lvx_pvmove_reload_lv(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                     const struct lvx_lv *lv)
{
    if (!lvx_pvmove_in_daemon(env, act, lv))
        return 0;
    if (act->be->swap(env->ctx, lv) < 0) {
        lvx_cmd_errorf("Failed to reload %s/%s: %s", lv->vg->name, lv->name,
                       env->ctx->errmsg[0] ? env->ctx->errmsg : "failed");
        lvx_error_clear(env->ctx);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* The kernel follows the metadata of move mv (dm backend): pvmoveN's device and the
 * active LVs over it (nothing when none of them is active).  fresh: pvmoveN reloaded
 * even when its table is the same (its mirror copies the running segment again). */
static int kernel_sync(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                       const struct lvx_vg *vg, const struct lvx_lv *mv, bool fresh)
{
    if (act->be != &lvx_activation_dm || !mv)
        return 0;
    if (lvx_dm_pvmove_sync(env->ctx, vg, mv, fresh) < 0) {
        lvx_cmd_errorf("Failed to reload %s/%s: %s", vg->name, mv->name,
                       env->ctx->errmsg[0] ? env->ctx->errmsg : "failed");
        lvx_error_clear(env->ctx);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* Reload every LV with an area on the pvmove LV mv (or named in names). */
static int reload_users(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                        const struct lvx_vg *vg, const struct lvx_lv *mv, char **names)
{
    int rc = 0;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_lv *lv = vg->lvs[i];
        bool user = false;
        for (unsigned s = 0; mv && s < lv->seg_count && !user; s++)
            for (unsigned a = 0; a < lv->segs[s].area_count; a++)
                user |= lv->segs[s].areas[a].lv == mv;
        for (unsigned k = 0; names && names[k] && !user; k++)
            user = !strcmp(names[k], lv->name);
        if (user && !rc)
            rc = lvx_pvmove_reload_lv(env, act, lv);
    }
    return rc;
}

/* The names of the LVs with an area on mv (NULL-terminated, in env's pool). */
static char **user_names(struct lvx_cmd_env *env, const struct lvx_vg *vg, const struct lvx_lv *mv)
{
    char **names = lvx_pool_alloc(env->pool, (vg->lv_count + 1) * sizeof(*names));
    unsigned k = 0;
    for (unsigned i = 0; i < vg->lv_count; i++) {
        const struct lvx_lv *lv = vg->lvs[i];
        bool user = false;
        for (unsigned s = 0; s < lv->seg_count && !user; s++)
            for (unsigned a = 0; a < lv->segs[s].area_count; a++)
                user |= lv->segs[s].areas[a].lv == mv;
        if (user)
            names[k++] = lvx_pool_strdup(env->pool, lv->name);
    }
    names[k] = NULL;
    return names;
}

#define KERNEL_POLL_MS 100              /* between two reads of pvmoveN's mirror status */

/* The kernel copies the segment of the piece (pvmoveN's running mirror, dm backend):
 * wait until its mirror is in sync.  mv: the pvmove LV's names (its VG's too). */
static int copy_piece_kernel(struct lvx_cmd_env *env, const struct piece *pc,
                             const struct lvx_lv *mv, struct progress *pr)
{
    for (;;) {
        if (stop_requested)
            return -EINTR;
        uint64_t le, done, total;
        if (lvx_dm_pvmove_progress(env->ctx, mv, &le, &done, &total) < 0) {
            lvx_cmd_errorf("%s", env->ctx->errmsg[0] ? env->ctx->errmsg : "no pvmove status");
            lvx_error_clear(env->ctx);
            return LVX_EXIT_FAILED;
        }
        if (le != pc->seg_le) {
            lvx_cmd_errorf("%s/%s: the kernel does not copy the segment at extent %llu.",
                           mv->vg->name, mv->name, (unsigned long long)pc->seg_le);
            return LVX_EXIT_FAILED;
        }
        uint64_t sectors = pc->bytes / 512;
        uint64_t copied = total ? sectors * done / total : 0;
        job_update(pr, copied);
        if (total && done >= total)
            return 0;
        if (pr->o->interval && time(NULL) - pr->last >= (time_t)pr->o->interval)
            progress_line(pr, pr->done + pc->extents * copied / (sectors ? sectors : 1));
        struct timespec ts = { 0, KERNEL_POLL_MS * 1000000L };
        nanosleep(&ts, NULL);
    }
}

#define DAEMON_PIECE 16384u            /* sectors per pvcopy request (8 MiB) */

/* The copy of a segment of an LV the daemon serves: the daemon copies (against the
 * LV's writes), a request per DAEMON_PIECE, the last one flushed. */
static int copy_piece_daemon(struct lvx_cmd_env *env, const struct piece *pc, const char *vgname,
                             const char *lvname, struct progress *pr)
{
    uint64_t sectors = pc->bytes / 512;
    /* under a rate limit, 1 MiB requests: the rate holds over shorter spans */
    uint64_t piece = pr->o->max_rate ? 2048 : DAEMON_PIECE;
    rate_wait(pr, 0);
    for (uint64_t off = 0; off < sectors;) {
        if (stop_requested)
            return -EINTR;
        uint64_t n = sectors - off < piece ? sectors - off : piece;
        char req[600];
        snprintf(req, sizeof(req), "pvcopy %s %s %llu %llu %llu %d", vgname, lvname,
                 (unsigned long long)pc->seg_le, (unsigned long long)off, (unsigned long long)n,
                 off + n == sectors);
        if (lvx_daemon_call(env->ctx, req, false, NULL) < 0) {
            lvx_cmd_errorf("%s", env->ctx->errmsg[0] ? env->ctx->errmsg : "pvcopy failed");
            lvx_error_clear(env->ctx);
            return LVX_EXIT_FAILED;
        }
        off += n;
        rate_wait(pr, n * 512);
        job_update(pr, off);
        if (pr->o->interval && time(NULL) - pr->last >= (time_t)pr->o->interval)
            progress_line(pr, pr->done + pc->extents * off / sectors);
    }
    return 0;
}

/* ---- finding the move ----------------------------------------------------------- */

static struct lvx_lv *find_mv_uuid(const struct lvx_vg *vg, const char *uuid)
{
    for (unsigned i = 0; i < vg->lv_count; i++)
        if (!strcmp(vg->lvs[i]->uuid, uuid) &&
            ((vg->lvs[i]->status & LVX_LV_PVMOVE) || lvx_pvmove_is_leftover(vg, vg->lvs[i])))
            return vg->lvs[i];
    return NULL;
}

/* The piece copying extents LEs (LE le of the pvmove LV) from PV area a to PV area b. */
static void set_piece(struct piece *pc, const struct lvx_vg *vg, const struct lvx_area *a,
                      const struct lvx_area *b, uint64_t extents, uint64_t le)
{
    uint64_t es = (uint64_t)vg->extent_size * 512;
    memset(pc, 0, sizeof(*pc));
    pc->src_path = a->pv->ondisk.dev_name;
    pc->dst_path = b->pv->ondisk.dev_name;
    pc->src_off = a->pv->pe_start * 512 + a->start * es;
    pc->dst_off = b->pv->pe_start * 512 + b->start * es;
    pc->bytes = extents * es;
    pc->extents = extents;
    pc->seg_le = le;
    memcpy(pc->src_uuid, a->pv->uuid, sizeof(pc->src_uuid));
    memcpy(pc->dst_uuid, b->pv->uuid, sizeof(pc->dst_uuid));
    pc->src_pe = a->start;
    pc->dst_pe = b->start;
}

/* The first mirror segment of mv not copied yet, as a piece; false when none. */
static bool next_piece(const struct lvx_vg *vg, const struct lvx_lv *mv, struct piece *pc)
{
    for (unsigned i = 0; i < mv->seg_count; i++) {
        const struct lvx_seg *s = &mv->segs[i];
        if (s->kind != LVX_SEG_MIRROR || s->area_count != 2 || s->extents_moved >= s->extent_count)
            continue;
        if (!s->areas[0].pv || !s->areas[1].pv)
            continue;
        set_piece(pc, vg, &s->areas[0], &s->areas[1], s->extent_count, s->start_extent);
        return true;
    }
    return false;
}

/* ---- the copier lock ------------------------------------------------------------ */

static const char *copier_lock_path(struct lvx_cmd_env *env, const char *mv_uuid)
{
    return lvx_pool_printf(env->pool, "%s/lvx_pvmove_%s", lvx_lock_dir(), mv_uuid);
}

int lvx_pvmove_copier_lock(struct lvx_cmd_env *env, const char *mv_uuid)
{
    const char *path = copier_lock_path(env, mv_uuid);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -errno;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        close(fd);
        return -EBUSY;
    }
    char pid[32];
    int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
        /* the pid only serves --abort; the lock itself is what counts */
    }
    return fd;
}

void lvx_pvmove_copier_unlock(struct lvx_cmd_env *env, int fd, const char *mv_uuid)
{
    if (fd < 0)
        return;
    unlink(copier_lock_path(env, mv_uuid));
    close(fd);
}

/* Stop a copier of the move (SIGTERM to the pid in its lock file) and wait until it
 * has let go of the lock.  Returns the lock fd held now, or -errno. */
static int copier_stop(struct lvx_cmd_env *env, const char *mv_uuid)
{
    for (int tries = 0; tries < 600; tries++) {
        int fd = lvx_pvmove_copier_lock(env, mv_uuid);
        if (fd != -EBUSY)
            return fd;
        char buf[32] = "";
        int pf = open(copier_lock_path(env, mv_uuid), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (pf >= 0) {
            ssize_t n = read(pf, buf, sizeof(buf) - 1);
            buf[n > 0 ? n : 0] = 0;
            close(pf);
        }
        long pid = strtol(buf, NULL, 10);
        if (pid > 1 && tries % 10 == 0)
            kill((pid_t)pid, SIGTERM);
        struct timespec ts = { 0, 100 * 1000000L };
        nanosleep(&ts, NULL);
    }
    return -EBUSY;
}

/* ---- update cycles -------------------------------------------------------------- */

static int begin(struct lvx_cmd_env *env, const char *vgname, struct lvx_vg_update *u)
{
    return lvx_vgcmd_begin(env, vgname, 0, u);
}

/* The end of a move, in LVM2's two commits.  The update u is begun and holds mv;
 * it is ended here. */
static int finish(struct lvx_cmd_env *env, struct lvx_vg_update *u, const char *mv_uuid,
                  bool abort)
{
    struct lvx_lv *mv = find_mv_uuid(u->vg, mv_uuid);
    char *vgname = lvx_pool_strdup(env->pool, u->vg->name);
    int rc = 0;
    struct lvx_actcmd act;
    if (lvx_actcmd_init(env, &act))
        act.be = NULL;
    if (mv && !lvx_pvmove_is_leftover(u->vg, mv)) {
        char **names = user_names(env, u->vg, mv);
        if (lvx_pvmove_detach(env->ctx, u->vg, mv, abort) < 0) {
            lvx_vg_update_end(u);
            lvx_cmd_fail(env);
            lvx_cmd_errorf("ABORTING: Removal of temporary mirror failed");
            return LVX_EXIT_FAILED;
        }
        rc = lvx_vgcmd_commit(env, u);
        /* the LVs on their new extents: the daemon serves them so before the end */
        if (!rc)
            rc = reload_users(env, &act, u->vg, NULL, names);
        lvx_vg_update_end(u);
        if (rc)
            return rc;
        if ((rc = begin(env, vgname, u)))
            return rc;
        mv = find_mv_uuid(u->vg, mv_uuid);
    }
    if (mv && act.be == &lvx_activation_dm && lvx_dm_pvmove_end(env->ctx, u->vg, mv) < 0) {
        /* the LVs on their new extents in the kernel, pvmoveN's device gone */
        lvx_cmd_errorf("Failed to reload the LVs of %s/%s: %s", u->vg->name, mv->name,
                       env->ctx->errmsg[0] ? env->ctx->errmsg : "failed");
        lvx_error_clear(env->ctx);
        lvx_vg_update_end(u);
        return LVX_EXIT_FAILED;
    }
    if (mv) {
        lvx_info(env->ctx, "Removing temporary pvmove LV");
        lvx_vg_remove_lv(u->vg, mv);
        lvx_info(env->ctx, "Writing out final volume group after pvmove");
        rc = lvx_vgcmd_commit(env, u);
    }
    lvx_vg_update_end(u);
    return rc;
}

/* Another lvx copies the move: report its progress (from the checkpoints, every
 * interval) until the move is gone, as LVM2's poller does for a move it did not start.
 * 1 when that copier is gone with the move left (killed: its lock free again), for the
 * caller to copy; a resume started while a SIGKILLed copier was still exiting had
 * watched forever (CI, t0685). */
static int watch(struct lvx_cmd_env *env, const struct mv_opts *o, const char *vgname,
                 const char *mv_uuid, const char *name)
{
    struct progress pr = { .env = env, .o = o, .name = name, .job_fd = -1 };
    for (;;) {
        struct lvx_vg_update u;
        int rc = lvx_vgcmd_begin(env, vgname, LVX_UPDATE_READ_ONLY, &u);
        if (rc)
            return rc;
        struct lvx_lv *mv = find_mv_uuid(u.vg, mv_uuid);
        if (mv) {
            pr.total = mv->le_count;
            progress_line(&pr, lvx_pvmove_copied(mv));
        }
        lvx_vg_update_end(&u);
        if (!mv) {
            lvx_notice(env->ctx, "%s: No pvmove in progress - already finished or aborted.",
                       name);
            return 0;
        }
        struct timespec ts = { o->interval ? (time_t)o->interval : 1, 0 };
        nanosleep(&ts, NULL);
        int lock = lvx_pvmove_copier_lock(env, mv_uuid);
        if (lock >= 0) {
            lvx_pvmove_copier_unlock(env, lock, mv_uuid);
            return 1;
        }
    }
}

/* The pieces of an atomic move: image segment i of the two sub-LVs, as a piece. */
static bool atomic_piece(const struct lvx_vg *vg, const struct lvx_lv *mv, unsigned i,
                         struct piece *pc)
{
    const struct lvx_lv *m0 = mv->segs[0].areas[0].lv, *m1 = mv->segs[0].areas[1].lv;
    if (!m0 || !m1 || i >= m0->seg_count || i >= m1->seg_count)
        return false;
    const struct lvx_seg *a = &m0->segs[i], *b = &m1->segs[i];
    if (!a->area_count || !b->area_count || !a->areas[0].pv || !b->areas[0].pv ||
        a->extent_count != b->extent_count)
        return false;
    set_piece(pc, vg, &a->areas[0], &b->areas[0], a->extent_count, a->start_extent);
    return true;
}

/* The copy of an atomic move (the update u holds it; ended here): the kernel's mirror
 * over the two sub-LVs when pvmoveN is live (dm backend), else every segment copied
 * directly; then the end, with no checkpoint between (the mirror's extents_moved set
 * in memory only, as LVM2 goes from the mirror in sync straight to its end).  An LV
 * over the move served by the user-space daemon is refused: its pvmove target mirrors
 * one segment at a time. */
static int copy_atomic(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                       struct lvx_vg_update *u, const char *mv_uuid, const char *name,
                       struct progress *pr)
{
    const char *vgname = lvx_pool_strdup(env->pool, u->vg->name);
    struct lvx_lv *mv = find_mv_uuid(u->vg, mv_uuid);
    bool kernel = act->be == &lvx_activation_dm && lvx_dm_pvmove_live(env->ctx, mv);
    unsigned n = mv->segs[0].areas[0].lv->seg_count;
    struct piece *pcs = lvx_pool_alloc(env->pool, (n ? n : 1) * sizeof(*pcs));
    for (unsigned i = 0; i < n; i++) {
        if (!atomic_piece(u->vg, mv, i, &pcs[i])) {
            lvx_vg_update_end(u);
            lvx_cmd_errorf("%s/%s: the sub-LVs of the atomic move do not match.", vgname, name);
            return LVX_EXIT_FAILED;
        }
        pcs[i].src_path = lvx_pool_strdup(env->pool, pcs[i].src_path);
        pcs[i].dst_path = lvx_pool_strdup(env->pool, pcs[i].dst_path);
        const struct lvx_lv *owner = owner_of(u->vg, mv, pcs[i].seg_le);
        if (!kernel && owner && lvx_pvmove_in_daemon(env, act, owner)) {
            lvx_vg_update_end(u);
            lvx_cmd_errorf("pvmove --atomic of active LV %s/%s is not supported by the "
                           "user-space backend.", vgname, owner->name);
            return LVX_EXIT_FAILED;
        }
    }
    struct lvx_vg kvg = { .name = vgname, .extent_size = u->vg->extent_size };
    struct lvx_lv kmv = { .vg = &kvg, .name = lvx_pool_strdup(env->pool, mv->name) };
    memcpy(kvg.uuid, u->vg->uuid, sizeof(kvg.uuid));
    memcpy(kmv.uuid, mv->uuid, sizeof(kmv.uuid));
    uint64_t total = mv->le_count;
    lvx_vg_update_end(u);               /* no lock held while copying */
    int rc = 0;
    if (kernel) {
        struct piece all = { .seg_le = 0, .extents = total,
                             .bytes = total * kvg.extent_size * 512ull };
        rc = copy_piece_kernel(env, &all, &kmv, pr);
    } else {
        for (unsigned i = 0; i < n && rc == 0; i++) {
            rc = copy_piece(env, &pcs[i], pr);
            pr->done += pcs[i].extents;
        }
    }
    if (rc == -EINTR)                   /* --abort asked us to stop */
        return 0;
    if (rc)
        return rc;
    if ((rc = begin(env, vgname, u)))
        return rc;
    mv = find_mv_uuid(u->vg, mv_uuid);
    if (!mv || !lvx_pvmove_is_atomic(mv)) {
        lvx_vg_update_end(u);
        lvx_notice(env->ctx, "%s: No pvmove in progress - already finished or aborted.", name);
        return 0;
    }
    mv->segs[0].extents_moved = (uint32_t)mv->segs[0].extent_count;
    pr->done = total;
    if (pr->o->interval)
        progress_line(pr, pr->done);
    return finish(env, u, mv_uuid, false);
}

/* Copy every segment of the move left, checkpointing each, then finish.  The move is
 * pvmove LV mv_uuid of VG vgname; name: its source device (progress lines). */
static int run_copy(struct lvx_cmd_env *env, const struct mv_opts *o, const char *vgname,
                    const char *mv_uuid, const char *name)
{
    int lock;
    while ((lock = lvx_pvmove_copier_lock(env, mv_uuid)) == -EBUSY) {
        int rc = watch(env, o, vgname, mv_uuid, name);
        if (rc != 1)
            return rc;
    }
    struct sigaction sa = { .sa_handler = on_term }, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &old);
    stop_requested = 0;
    struct progress pr = { .env = env, .o = o, .name = name, .job_fd = lock,
                           .vg = vgname };
    bool first = true;
    int rc = 0;
    struct lvx_actcmd act;
    if (lvx_actcmd_init(env, &act))
        act.be = NULL;
    for (;;) {
        struct lvx_vg_update u;
        if ((rc = begin(env, vgname, &u)))
            break;
        struct lvx_lv *mv = find_mv_uuid(u.vg, mv_uuid);
        if (!mv) {
            lvx_vg_update_end(&u);
            lvx_notice(env->ctx, "%s: No pvmove in progress - already finished or aborted.",
                       name);
            break;
        }
        /* a copier that resumes: the daemon serves what the metadata says (a crash
         * may have come between a checkpoint and its reload) */
        if ((first && (rc = reload_users(env, &act, u.vg, mv, NULL))) ||
            (rc = kernel_sync(env, &act, u.vg, mv, false))) {
            lvx_vg_update_end(&u);
            break;
        }
        pr.total = mv->le_count;
        pr.done = lvx_pvmove_copied(mv);
        pr.extent_size = u.vg->extent_size;
        if (!pr.lv)
            pr.lv = lvx_pool_strdup(env->pool, mv->name);
        job_update(&pr, 0);
        if (first && (o->interval || o->background))
            progress_line(&pr, pr.done);
        first = false;
        if (lvx_pvmove_is_atomic(mv)) {
            rc = copy_atomic(env, &act, &u, mv_uuid, name, &pr);
            break;
        }
        struct piece pc;
        if (!next_piece(u.vg, mv, &pc)) {
            rc = finish(env, &u, mv_uuid, false);
            break;
        }
        /* the paths live in the VG's pool, which the end frees */
        pc.src_path = lvx_pool_strdup(env->pool, pc.src_path);
        pc.dst_path = lvx_pool_strdup(env->pool, pc.dst_path);
        const struct lvx_lv *owner = owner_of(u.vg, mv, pc.seg_le);
        const char *owner_name = owner ? lvx_pool_strdup(env->pool, owner->name) : NULL;
        bool live = owner && lvx_pvmove_in_daemon(env, &act, owner);
        /* pvmoveN live in the kernel: the kernel copies (names kept for its status) */
        bool kernel = act.be == &lvx_activation_dm && lvx_dm_pvmove_live(env->ctx, mv);
        struct lvx_vg kvg = { .name = lvx_pool_strdup(env->pool, vgname),
                              .extent_size = u.vg->extent_size };
        struct lvx_lv kmv = { .vg = &kvg, .name = lvx_pool_strdup(env->pool, mv->name) };
        memcpy(kvg.uuid, u.vg->uuid, sizeof(kvg.uuid));
        memcpy(kmv.uuid, mv->uuid, sizeof(kmv.uuid));
        lvx_vg_update_end(&u);          /* no lock held while copying */
        if (kernel)
            rc = copy_piece_kernel(env, &pc, &kmv, &pr);
        else
            rc = live ? copy_piece_daemon(env, &pc, vgname, owner_name, &pr)
                      : copy_piece(env, &pc, &pr);
        if (rc == 0 && !kernel && act.be == &lvx_activation_dm &&
            lvx_dm_pvmove_live(env->ctx, &kmv)) {
            /* an LV over the move was activated while we copied directly: the kernel
             * copies the segment again (a fresh mirror), against the writes since */
            struct lvx_vg_update c;
            if ((rc = begin(env, vgname, &c)) == 0) {
                struct lvx_lv *m = find_mv_uuid(c.vg, mv_uuid);
                rc = m ? kernel_sync(env, &act, c.vg, m, true) : 0;
                lvx_vg_update_end(&c);
                if (!rc && m)
                    rc = copy_piece_kernel(env, &pc, &kmv, &pr);
            }
        }
        if (rc == 0 && !live && !kernel && owner_name) {
            /* activated while we copied it directly: copy it again through the
             * daemon, which mirrors the writes made since */
            struct lvx_vg_update c;
            bool now = false;
            if (lvx_vgcmd_begin(env, vgname, LVX_UPDATE_READ_ONLY, &c) == 0) {
                const struct lvx_lv *l = lvx_vg_find_lv(c.vg, owner_name);
                now = l && lvx_pvmove_in_daemon(env, &act, l);
                lvx_vg_update_end(&c);
            }
            if (now)
                rc = copy_piece_daemon(env, &pc, vgname, owner_name, &pr);
        }
        if (rc == -EINTR) {              /* --abort asked us to stop */
            rc = 0;
            break;
        }
        if (rc)
            break;
        /* the checkpoint: the same segment, still there, is complete now */
        if ((rc = begin(env, vgname, &u)))
            break;
        mv = find_mv_uuid(u.vg, mv_uuid);
        struct lvx_seg *s = NULL;
        for (unsigned i = 0; mv && i < mv->seg_count; i++)
            if (mv->segs[i].start_extent == pc.seg_le)
                s = &mv->segs[i];
        if (!s || s->kind != LVX_SEG_MIRROR || s->area_count != 2 || !s->areas[0].pv ||
            !s->areas[1].pv || strcmp(s->areas[0].pv->uuid, pc.src_uuid) ||
            strcmp(s->areas[1].pv->uuid, pc.dst_uuid) || s->areas[0].start != pc.src_pe ||
            s->areas[1].start != pc.dst_pe || s->extent_count != pc.extents) {
            lvx_vg_update_end(&u);
            lvx_notice(env->ctx, "%s: No pvmove in progress - already finished or aborted.",
                       name);
            break;
        }
        s->extents_moved = (uint32_t)s->extent_count;
        rc = lvx_vgcmd_commit(env, &u);
        /* the daemon reads the segment from its new place from now on; the kernel's
         * pvmoveN maps it there and mirrors the next one */
        if (!rc && owner_name) {
            const struct lvx_lv *l = lvx_vg_find_lv(u.vg, owner_name);
            if (l)
                rc = lvx_pvmove_reload_lv(env, &act, l);
        }
        if (!rc)
            rc = kernel_sync(env, &act, u.vg, find_mv_uuid(u.vg, mv_uuid), false);
        if (!rc) {
            pr.done = lvx_pvmove_copied(mv);
            if (o->interval && pr.done != pr.total && time(NULL) - pr.last >= (time_t)o->interval)
                progress_line(&pr, pr.done);
        }
        lvx_vg_update_end(&u);
        if (rc)
            break;
        if (pr.done == pr.total && o->interval)
            progress_line(&pr, pr.done);
    }
    sigaction(SIGTERM, &old, NULL);
    lvx_pvmove_copier_unlock(env, lock, mv_uuid);
    return rc;
}

/* ---- background ----------------------------------------------------------------- */

/* Run the copy of the move off SRC in a detached process: this program again as
 * `lvx pvmove SRC` (a clean process image) when it is lvx, else the fork itself. */
static int background(struct lvx_cmd_env *env, const struct mv_opts *o, const char *vgname,
                      const char *mv_uuid, const char *name)
{
    int r = lvx_cmd_detach();
    if (r)
        return r < 0 ? LVX_EXIT_FAILED : 0;
    char exe[4096];
    if (lvx_self_is_lvx(exe, sizeof(exe))) {
        const char *argv[16];
        unsigned k = 0;
        argv[k++] = "lvx";
        argv[k++] = "pvmove";
        k = lvx_cmd_scope_args(env, argv, k);
        argv[k++] = "-i";
        argv[k++] = lvx_pool_printf(env->pool, "%u", o->interval);
        if (o->max_rate) {
            argv[k++] = "--maxrecoveryrate";
            argv[k++] = lvx_pool_printf(env->pool, "%llus", (unsigned long long)(o->max_rate / 512));
        }
        argv[k++] = name;
        argv[k] = NULL;
        setenv(RESUME_ENV, mv_uuid, 1);
        execv(exe, (char *const *)argv);
    }
    struct mv_opts bo = *o;
    bo.background = false;
    _exit(run_copy(env, &bo, vgname, mv_uuid, name));
}

int lvx_pvmove_background(struct lvx_cmd_env *env, const char *vgname, const char *uuid,
                          const char *name)
{
    struct mv_opts o = { .interval = 15, .policy = LVX_ALLOC_INHERIT, .background = true };
    return background(env, &o, vgname, uuid, name);
}

static int go(struct lvx_cmd_env *env, const struct mv_opts *o, const char *vgname,
              const char *mv_uuid, const char *name)
{
    if (o->background)
        return background(env, o, vgname, mv_uuid, name);
    return run_copy(env, o, vgname, mv_uuid, name);
}

/* ---- setup ---------------------------------------------------------------------- */

struct setup_arg {
    struct lvx_cmd_env *env;
    struct lvx_actcmd act;
    bool refused;
};

static void say_moving(void *arg, const struct lvx_lv *lv, uint64_t n)
{
    struct setup_arg *a = arg;
    lvx_info(a->env->ctx, "Moving %llu extents of logical volume %s/%s.", (unsigned long long)n,
             lv->vg->name, lv->name);
}

static void say_locked(void *arg, const struct lvx_lv *lv)
{
    struct setup_arg *a = arg;
    lvx_notice(a->env->ctx, "Skipping locked LV %s/%s.", lv->vg->name, lv->name);
}

/* An LV in use (active) is moved when it is a linear/striped top-level LV: the daemon's
 * pvmove target (user-space backend) or the kernel's pvmoveN mirror (dm backend)
 * mirrors its writes; in the dm backend also a linear/striped sub-LV that is a device
 * of its own (a thin pool's _tdata/_tmeta, a RAID LV's rimage/rmeta).  Other sub-LVs of
 * active LVs and other types are refused. */
static bool refuse_active(void *arg, const struct lvx_lv *lv)
{
    struct setup_arg *a = arg;
    const struct lvx_lv *top = lv;
    const char *role;
    const struct lvx_seg *seg;
    for (int d = 0; d < 16 && (seg = lvx_lv_used_by(top, &role)); d++)
        top = seg->lv;
    if (!lvx_actcmd_is_active(a->env, &a->act, lv, NULL) &&
        (top == lv || !lvx_actcmd_is_active(a->env, &a->act, top, NULL)))
        return false;
    bool plain = true;
    for (unsigned s = 0; plain && s < lv->seg_count; s++)
        plain = lv->segs[s].kind == LVX_SEG_STRIPED;
    /* the kernel: a thin pool's linear/striped _tdata/_tmeta is a device of its own,
     * reloaded over pvmoveN as a top-level LV is */
    const char *sub_role = NULL;
    const struct lvx_seg *up = lvx_lv_used_by(lv, &sub_role);
    bool pool_sub = up && sub_role && (!strcmp(sub_role, "tdata") || !strcmp(sub_role, "tmeta"));
    /* ... as is an image or rmeta of a RAID LV (top-level, or LVM2's raid1 pool data or
     * metadata): each of those a device of its own under the raid device */
    if (!pool_sub && up && up->kind == LVX_SEG_RAID)
        pool_sub = true;
    if (plain && (top == lv || (pool_sub && a->act.be == &lvx_activation_dm)) &&
        (a->act.be == &lvx_activation_user || a->act.be == &lvx_activation_dm))
        return false;
    lvx_cmd_errorf("Logical volume %s/%s is active: lvx moves active LVs only when they "
                   "are linear or striped (deactivate it first).", lv->vg->name, top->name);
    a->refused = true;
    return true;
}

static struct lvx_pv *find_pv(const struct lvx_vg *vg, const char *dev)
{
    for (unsigned i = 0; i < vg->pv_count; i++)
        if (vg->pvs[i]->ondisk.present && lvx_cmd_same_device(dev, vg->pvs[i]->ondisk.dev_name))
            return vg->pvs[i];
    return NULL;
}

/* The VG holding the PV named dev ("" when an orphan), or NULL (message printed). */
static const char *vg_of_device(struct lvx_cmd_env *env, const char *dev, int *rc)
{
    struct lvx_cmd_vgs v;
    if ((*rc = lvx_cmd_load(env, &v)))
        return NULL;
    const char *name = NULL;
    for (unsigned i = 0; i < v.set->vg_count && !name; i++)
        if (find_pv(v.set->vgs[i], dev))
            name = lvx_pool_strdup(env->pool, v.set->vgs[i]->name);
    for (unsigned i = 0; i < v.set->orphan_count && !name; i++)
        if (v.set->orphans[i]->ondisk.present &&
            lvx_cmd_same_device(dev, v.set->orphans[i]->ondisk.dev_name))
            name = "";
    lvx_cmd_unload(&v);
    if (!name) {
        if (access(dev, F_OK) < 0) {
            lvx_cmd_errorf("Cannot use %s: device not found", dev);
            lvx_cmd_errorf("Run `pvmove --help' for more information.");
            *rc = LVX_EXIT_INVALID;
        } else {
            lvx_cmd_errorf("Failed to find physical volume \"%s\".", dev);
            *rc = LVX_EXIT_INVALID;
        }
        return NULL;
    }
    if (!*name) {
        lvx_cmd_errorf("Physical volume %s not in a volume group.", dev);
        *rc = LVX_EXIT_INVALID;
        return NULL;
    }
    return name;
}

/* -n VG/LV or LV: the LV name in VG (LVM2's rules), or NULL (message printed). */
static const char *lv_name_arg(const char *vgname, const char *arg)
{
    if (!strchr(arg, '/'))
        return arg;
    const char *p = arg;
    if (!strncmp(p, "/dev/", 5))
        p += 5;
    while (*p == '/')
        p++;
    if (!strchr(p, '/')) {
        lvx_cmd_errorf("--name takes a logical volume name.");
        return NULL;
    }
    size_t l = strlen(vgname);
    if (strncmp(p, vgname, l) || p[l] != '/') {
        lvx_cmd_errorf("Named LV and old PV must be in the same VG.");
        return NULL;
    }
    p += l;
    while (*p == '/')
        p++;
    if (!*p) {
        lvx_cmd_errorf("Incomplete LV name supplied with --name.");
        return NULL;
    }
    return p;
}

/* pvmove SRC [DST...]: set up a new move (or find the one in progress), then copy. */
static int move_one(struct lvx_cmd_env *env, const struct mv_opts *o)
{
    struct lvx_cmd_args *a = env->args;
    char *src_arg = a->argv[0];
    char *dev = lvx_pool_strdup(env->pool, src_arg);
    char *colon = strchr(dev, ':');
    if (colon)
        *colon = '\0';
    int rc = 0;
    const char *vgname = vg_of_device(env, dev, &rc);
    if (!vgname)
        return rc;
    struct lvx_vg_update u;
    if ((rc = begin(env, vgname, &u)))
        return rc;
    struct lvx_vg *vg = u.vg;
    struct lvx_pv *pv = find_pv(vg, dev);
    const char *name = pv ? lvx_pool_strdup(env->pool, lvx_cmd_pv_name(pv)) : dev;
    struct lvx_lv *mv = pv ? lvx_pvmove_find(vg, pv) : NULL;
    if (o->resume_uuid && (!mv || strcmp(mv->uuid, o->resume_uuid))) {
        lvx_vg_update_end(&u);
        lvx_notice(env->ctx, "%s: No pvmove in progress - already finished or aborted.", name);
        return 0;
    }
    if (o->abort) {
        if (!mv) {
            lvx_vg_update_end(&u);
            lvx_notice(env->ctx, "%s: No pvmove in progress - already finished or aborted.", name);
            return 0;
        }
        char uuid[LVX_UUID_LEN + 1];
        memcpy(uuid, mv->uuid, sizeof(uuid));
        lvx_vg_update_end(&u);
        return lvx_pvmove_abort(env, vgname, uuid);
    }
    if (mv) {
        lvx_notice(env->ctx, "Detected pvmove in progress for %s.", name);
        if (a->argc > 1 || o->lv_name)
            lvx_warn(env->ctx, "WARNING: Ignoring remaining command line arguments.");
    } else {
        struct setup_arg sa = { .env = env };
        if ((rc = lvx_actcmd_init(env, &sa.act))) {
            lvx_vg_update_end(&u);
            return rc;
        }
        const char *lv_name = NULL;
        if (o->lv_name && !(lv_name = lv_name_arg(vg->name, o->lv_name))) {
            lvx_vg_update_end(&u);
            lvx_cmd_errorf("Failed to find an LV name.");
            lvx_cmd_errorf("Run `pvmove --help' for more information.");
            return LVX_EXIT_INVALID;
        }
        if (lv_name && !lvx_vg_find_lv(vg, lv_name)) {
            lvx_vg_update_end(&u);
            lvx_cmd_errorf("Logical volume %s not found.", lv_name);
            return LVX_EXIT_FAILED;
        }
        struct lvx_alloc_pv *src, *dst;
        unsigned nsrc, ndst;
        if ((rc = lvx_lvcmd_pv_args(env, vg, &src_arg, 1, &src, &nsrc)) ||
            (rc = lvx_lvcmd_pv_args(env, vg, a->argv + 1, (unsigned)a->argc - 1, &dst, &ndst))) {
            lvx_vg_update_end(&u);
            return rc;
        }
        enum lvx_alloc policy = o->policy == LVX_ALLOC_INHERIT ? vg->alloc : o->policy;
        if (!ndst) {
            ndst = vg->pv_count;
            dst = lvx_pool_alloc(env->pool, (ndst + 1) * sizeof(*dst));
            for (unsigned i = 0; i < ndst; i++)
                dst[i] = (struct lvx_alloc_pv){ .pv = vg->pvs[i] };
        }
        uint32_t *used = lvx_pool_alloc(env->pool, (vg->pv_count + 1) * sizeof(*used));
        lvx_vg_pv_alloc_counts(vg, used);
        unsigned k = 0;
        for (unsigned i = 0; i < ndst; i++) {
            if (policy != LVX_ALLOC_ANYWHERE && dst[i].pv == src->pv)
                continue;
            if (used[dst[i].pv->index] >= dst[i].pv->pe_count)
                continue;
            dst[k++] = dst[i];
        }
        if (!k) {
            lvx_vg_update_end(&u);
            lvx_cmd_errorf("No extents available for allocation.");
            return LVX_EXIT_FAILED;
        }
        if ((rc = lvx_mirror_layer_refuse_pvmove(vg, src->pv, lv_name))) {
            lvx_vg_update_end(&u);         /* LVM2's CONVERTING mirror (cmd/mirror_layer.c) */
            return rc;
        }
        struct utsname un;
        struct lvx_pvmove_setup s = {
            .src = src, .lv_name = lv_name, .dst = dst, .dst_count = k, .policy = policy,
            .region_size = lvx_raid_default_region(env), .now = (uint64_t)time(NULL),
            .host = uname(&un) == 0 ? un.nodename : "unknown",
            .moving = say_moving, .skip_locked = say_locked, .refuse = refuse_active, .arg = &sa,
            .atomic = o->atomic,
        };
        bool skipped;
        lvx_info(env->ctx, "Creating logical volume %s", lvx_pvmove_free_name(vg));
        int r = lvx_pvmove_setup(env->ctx, vg, &s, &skipped, &mv);
        if (r < 0) {
            lvx_vg_update_end(&u);
            if (r == -EBUSY)
                return LVX_EXIT_FAILED;
            if (r == -ENODATA && skipped)
                lvx_cmd_errorf("All data on source PV skipped. It contains locked, hidden or "
                               "non-top level LVs only.");
            lvx_cmd_fail(env);
            if (r == -ENOSPC) {
                lvx_cmd_errorf("Unable to allocate mirror extents for %s/%s.", vg->name,
                               "pvmove0");
                lvx_cmd_errorf("Failed to convert pvmove LV to mirrored.");
            }
            return LVX_EXIT_FAILED;
        }
        if ((rc = lvx_vgcmd_commit(env, &u))) {
            lvx_vg_update_end(&u);
            return rc;
        }
        if (a->count[LVX_OPT_TEST]) {
            lvx_vg_update_end(&u);
            return 0;
        }
        /* the daemon mirrors the writes of the LVs it serves before any copy */
        if ((rc = reload_users(env, &sa.act, u.vg, mv, NULL)) ||
            (rc = kernel_sync(env, &sa.act, u.vg, mv, false))) {
            lvx_vg_update_end(&u);
            return rc;
        }
    }
    char uuid[LVX_UUID_LEN + 1];
    memcpy(uuid, mv->uuid, sizeof(uuid));
    lvx_vg_update_end(&u);
    return go(env, o, vgname, uuid, name);
}

int lvx_pvmove_abort(struct lvx_cmd_env *env, const char *vgname, const char *uuid)
{
    int lock = copier_stop(env, uuid), r;
    struct lvx_vg_update u;
    if (!(r = begin(env, vgname, &u)))
        r = find_mv_uuid(u.vg, uuid) ? finish(env, &u, uuid, true) : (lvx_vg_update_end(&u), 0);
    lvx_pvmove_copier_unlock(env, lock, uuid);
    return r;
}

int lvx_pvmove_pause(struct lvx_cmd_env *env, const char *uuid)
{
    int lock = copier_stop(env, uuid);
    if (lock < 0) {
        lvx_cmd_errorf("The copier of %s did not stop.", uuid);
        return LVX_EXIT_FAILED;
    }
    lvx_pvmove_copier_unlock(env, lock, uuid);
    return 0;
}

/* pvmove (no arguments): every unfinished move of every VG, resumed or aborted. */
static int move_all(struct lvx_cmd_env *env, const struct mv_opts *o)
{
    struct lvx_cmd_vgs v;
    int rc = lvx_cmd_load(env, &v);
    if (rc)
        return rc;
    unsigned n = 0;
    for (unsigned i = 0; i < v.set->vg_count; i++)
        n += v.set->vgs[i]->lv_count;
    const char **vgs = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*vgs));
    const char **uuids = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*uuids));
    const char **names = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*names));
    unsigned k = 0;
    for (unsigned i = 0; i < v.set->vg_count; i++) {
        const struct lvx_vg *vg = v.set->vgs[i];
        for (unsigned l = 0; l < vg->lv_count; l++) {
            const struct lvx_lv *lv = vg->lvs[l];
            if (!(lv->status & LVX_LV_PVMOVE) && !lvx_pvmove_is_leftover(vg, lv))
                continue;
            struct lvx_pv *src = lvx_pvmove_source(lv);
            vgs[k] = lvx_pool_strdup(env->pool, vg->name);
            uuids[k] = lvx_pool_strdup(env->pool, lv->uuid);
            names[k] = lvx_pool_strdup(env->pool, src ? lvx_cmd_pv_name(src) : lv->name);
            k++;
        }
    }
    lvx_cmd_unload(&v);
    for (unsigned i = 0; i < k; i++) {
        int r;
        if (o->abort) {
            r = lvx_pvmove_abort(env, vgs[i], uuids[i]);
        } else {
            r = go(env, o, vgs[i], uuids[i], names[i]);
        }
        if (r > rc)
            rc = r;
    }
    return rc;
}

int lvx_cmd_pvmove(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    struct mv_opts o = { .interval = 15, .policy = LVX_ALLOC_INHERIT };
    o.abort = a->count[LVX_OPT_ABORT] != 0;
    o.atomic = a->count[LVX_OPT_ATOMIC] != 0;
    o.background = a->count[LVX_OPT_BACKGROUND] != 0;
    if (lvx_lvcmd_interval_arg(env, &o.interval))
        return LVX_EXIT_INVALID;
    if (a->count[LVX_OPT_NAME])
        o.lv_name = a->value[LVX_OPT_NAME];
    const char *resume = getenv(RESUME_ENV);
    if (resume && *resume && !o.abort && !o.background && a->argc == 1)
        o.resume_uuid = resume;
    if (a->count[LVX_OPT_MAXRECOVERYRATE])
        o.max_rate = a->val[LVX_OPT_MAXRECOVERYRATE].sectors * 512;
    if (a->count[LVX_OPT_ALLOC] && lvx_alloc_parse(a->value[LVX_OPT_ALLOC], &o.policy) < 0) {
        lvx_cmd_errorf("Unrecognised allocation policy %s", a->value[LVX_OPT_ALLOC]);
        lvx_opts_invalid("alloc", a->value[LVX_OPT_ALLOC], NULL);
        lvx_cmd_errorf("Error during parsing of command line.");
        return LVX_EXIT_INVALID;
    }
    if (a->argc == 0)
        return move_all(env, &o);
    return move_one(env, &o);
}
