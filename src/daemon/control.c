/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/control.c - the control socket of the worker: one request line per
 * connection (protocol in daemon.h), handled one at a time; from root (or the
 * daemon's uid, SO_PEERCRED) only, while the run directory is safe.
 *
 * Entry point: lvxd_control_loop().
 */
#include "daemon/daemon.h"
#include "daemon/daemon_int.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodes/user_nodes.h"
#include "util/buf.h"
#include "util/pool.h"

#define MAX_REQUEST (1u << 20)   /* a device list of tens of thousands of PVs */
#define MAX_WORDS 300            /* the last word keeps the rest of the line */

pid_t lvxd_supervisor_pid;
static volatile sig_atomic_t term_requested;

static void on_term(int sig)
{
    (void)sig;
    term_requested = 1;
}

struct request {
    char *w[MAX_WORDS];
    int n;
    const char *mount_dir;
    struct lvx_ctx *ctx;
    struct lvx_buf *out;
    bool stop;
    pid_t caller;       /* the requesting process (SO_PEERCRED): its own opens of an LV it
                           deactivates (a scan_lvs read) do not make the LV busy */
};

static int fail(struct request *r, int err, const char *msg)
{
    lvx_buf_reset(r->out);
    lvx_buf_printf(r->out, "err %d %s\n", err < 0 ? -err : err, msg);
    return -1;
}

static int fail_ctx(struct request *r)
{
    return fail(r, r->ctx->err ? r->ctx->err : -EIO, r->ctx->errmsg[0] ? r->ctx->errmsg : "failed");
}

/* The device words from index i on, joined with spaces. */
static char *join_from(struct request *r, int i)
{
    struct lvx_buf b = LVX_BUF_INIT;
    for (; i < r->n; i++)
        lvx_buf_printf(&b, "%s%s", b.len ? " " : "", r->w[i]);
    char *s = lvx_xstrdup(lvx_buf_str(&b));
    lvx_buf_free(&b);
    return s;
}

static int do_activate(struct request *r)
{
    if (r->n < 7 || r->w[5][0] != '/')
        return fail(r, EINVAL, "usage: activate VG LV UUID FLAGS DEVDIR DEV...");
    char *devs = join_from(r, 6);
    unsigned flags = (unsigned)strtoul(r->w[4], NULL, 10) &
                     (LVXD_FLAG_RO | LVXD_FLAG_PARTIAL | LVXD_FLAG_LOCK_SH | LVXD_FLAG_NOSYNC);
    struct lvxd_lv *v;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    bool existed = lvxd_volume_find(r->w[1], r->w[2]) != NULL;
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    int rc = lvxd_volume_add(r->ctx, r->w[1], r->w[2], r->w[3], flags, devs, 0, &v);
    free(devs);
    if (rc < 0)
        return fail_ctx(r);
    snprintf(v->dev_dir, sizeof(v->dev_dir), "%s", r->w[5]);
    /* a device not bound to this LV's file (never attached, or released after a
     * crash) is not this LV's: attach one */
    if (!lvxd_volume_loop_ours(v, r->mount_dir)) {
        v->loop[0] = 0;
        if ((rc = lvxd_volume_attach(r->ctx, v, r->mount_dir, -1)) < 0) {
            if (!existed)
                lvxd_volume_remove(v);
            return fail_ctx(r);
        }
    }
    lvxd_state_save();
    lvx_buf_printf(r->out, "ok %s %d %d %s/%s %" PRIu64 " %" PRIu64 "\n", v->loop, v->loop_major,
                   v->loop_minor, r->mount_dir, v->name, v->io_min, v->io_opt);
    return 0;
}

static int do_deactivate(struct request *r)
{
    if (r->n < 3)
        return fail(r, EINVAL, "usage: deactivate VG LV [FORCE]");
    bool force = r->n > 3 && strcmp(r->w[3], "1") == 0;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    struct lvxd_lv *v = lvxd_volume_find(r->w[1], r->w[2]);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    if (v && lvxd_volume_loop_ours(v, r->mount_dir)) {   /* never another's device */
        /* held open: checked again for up to 5 s, as LVM2's open count check with
         * activation/retry_deactivation (a device just unmounted, or opened for a
         * moment by a probe, comes free) */
        bool busy = !force && (lvxd_loop_stacked(v->loop) || lvxd_loop_busy(v->loop) ||
                               lvxd_loop_opened(v->loop_major, v->loop_minor, r->caller));
        for (int i = 0; busy && !lvxd_loop_stacked(v->loop) && i < 25; i++) {
            struct timespec pause = { 0, 200 * 1000000L };
            nanosleep(&pause, NULL);
            busy = lvxd_loop_busy(v->loop) ||
                   lvxd_loop_opened(v->loop_major, v->loop_minor, r->caller);
        }
        if (busy) {
            char msg[300];
            snprintf(msg, sizeof(msg), "Logical volume %s/%s in use.", v->vg, v->lv);
            return fail(r, EBUSY, msg);
        }
        if (lvxd_loop_detach(r->ctx, v->loop, force) < 0)
            return fail_ctx(r);
    }
    if (v) {
        lvxd_volume_remove(v);
        lvxd_state_save();
    }
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

/* lease VG LV UUID FLAGS DEV...: hold the LV's lease for device-mapper ("ok new" or
 * "ok held": it was held already); unlease VG LV: release it ("ok", also for none). */
static int do_lease(struct request *r)
{
    if (r->n < 6)
        return fail(r, EINVAL, "usage: lease VG LV UUID FLAGS DEV...");
    char *devs = join_from(r, 5);
    unsigned flags = (unsigned)strtoul(r->w[4], NULL, 10) & LVXD_FLAG_LOCK_SH;
    bool taken = false;
    int rc = lvxd_lease_take(r->ctx, r->w[1], r->w[2], r->w[3], flags, devs, &taken);
    free(devs);
    if (rc < 0)
        return fail_ctx(r);
    lvx_buf_printf(r->out, "ok %s\n", taken ? "new" : "held");
    return 0;
}

static int do_unlease(struct request *r)
{
    if (r->n < 3)
        return fail(r, EINVAL, "usage: unlease VG LV");
    lvxd_lease_drop(r->w[1], r->w[2]);
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

/* watch VG LV pool|snapshot|mirror|raid DMNAME DMUUID DEVDIR: watch a thin pool, a
 * snapshot, a mirror or a RAID LV that device-mapper runs (dm_watch.c); unwatch VG LV:
 * stop ("ok", also when not watched); watched VG LV: "ok 1" or "ok 0". */
static int do_watch(struct request *r)
{
    enum lvxd_watch_kind k = r->n < 7 ? LVXD_WATCH_NONE : lvxd_watch_kind_of(r->w[3]);
    if (k == LVXD_WATCH_NONE)
        return fail(r, EINVAL, "usage: watch VG LV pool|snapshot|mirror|raid DMNAME DMUUID "
                    "DEVDIR");
    char *dev_dir = join_from(r, 6);
    int rc = lvxd_dm_watch_add(r->ctx, r->w[1], r->w[2], k, r->w[4], r->w[5], dev_dir);
    free(dev_dir);
    if (rc < 0)
        return fail_ctx(r);
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

static int do_unwatch(struct request *r)
{
    if (r->n < 3)
        return fail(r, EINVAL, "usage: unwatch VG LV");
    lvxd_dm_watch_drop(r->w[1], r->w[2]);
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

static int do_watched(struct request *r)
{
    if (r->n < 3)
        return fail(r, EINVAL, "usage: watched VG LV");
    lvx_buf_printf(r->out, "ok %d\n", lvxd_dm_watched(r->w[1], r->w[2]));
    return 0;
}

/* The LV that words 1 and 2 of the request name, or NULL after the "not active" answer. */
static struct lvxd_lv *served_lv(struct request *r)
{
    pthread_mutex_lock(&lvxd_lvs_mutex);
    struct lvxd_lv *v = lvxd_volume_find(r->w[1], r->w[2]);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    if (!v)
        fail(r, ENXIO, "not active");
    return v;
}

static int do_status(struct request *r)
{
    if (r->n < 3)
        return fail(r, EINVAL, "usage: status VG LV");
    pthread_mutex_lock(&lvxd_lvs_mutex);
    struct lvxd_lv *v = lvxd_volume_find(r->w[1], r->w[2]);
    char loop[32] = "";
    int maj = -1, min = -1, ro = 0;
    uint64_t size = 0;
    char more[128] = "";        /* the target's own status words */
    bool monitored = false;
    if (v) {
        monitored = v->monitored;
        if (v->target && v->target->status) {
            pthread_rwlock_rdlock(&v->lock);
            v->target->status(v, more, sizeof(more));
            pthread_rwlock_unlock(&v->lock);
        }
        snprintf(loop, sizeof(loop), "%s", v->loop[0] ? v->loop : "-");
        maj = v->loop[0] ? v->loop_major : -1;
        min = v->loop[0] ? v->loop_minor : -1;
        ro = v->read_only;
        size = v->size;
    }
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    if (!v) {
        lvx_buf_puts(r->out, "ok inactive\n");
        return 0;
    }
    bool stacked = loop[0] != '-' && lvxd_loop_stacked(loop);
    /* a PV of another served LV: the daemon's own open, which the scan leaves out */
    unsigned open = loop[0] == '-' ? 0
                    : (stacked ? 1 : 0) + lvxd_loop_open_count(loop, maj, min, r->caller);
    lvx_buf_printf(r->out, "ok active %s %d %d %d %u %" PRIu64 "%s%s%s\n", loop, maj, min, ro,
                   open, size, more, monitored ? " monitored" : "", stacked ? " stacked" : "");
    return 0;
}

/* The served LV v reloaded from the device words at index `from` (reshape: a
 * raidreshape's values, else NULL), the kernel told its new size: "ok" or an error. */
static int reload_served(struct request *r, struct lvxd_lv *v, int from, const int64_t *reshape)
{
    char *devs = join_from(r, from);
    int rc = lvxd_volume_reload(r->ctx, v, devs, reshape);
    free(devs);
    if (rc < 0)
        return fail_ctx(r);
    if (v->loop[0]) {
        char file[4400];
        snprintf(file, sizeof(file), "%s/%s", r->mount_dir, v->name);
        /* the kernel learns the new size (attributes are never cached) */
        if (lvxd_file_stat(r->ctx, file) < 0 || lvxd_loop_set_capacity(r->ctx, v->loop) < 0)
            return fail_ctx(r);
    }
    lvxd_state_save();
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

static int do_reload(struct request *r)
{
    if (r->n < 4)
        return fail(r, EINVAL, "usage: reload VG LV DEV...");
    struct lvxd_lv *v = served_lv(r);
    return v ? reload_served(r, v, 3, NULL) : -1;
}

/* raidreshape VG LV DELTA OFFSET DEV...: a reload that starts a RAID reshape (the
 * user backend's dm-raid "delta_disks DELTA data_offset OFFSET"), answered once the
 * start is on the legs (raid_reshape_start.c); refusals before any write */
static int do_raidreshape(struct request *r)
{
    long long delta;
    unsigned long long off;
    char *end;
    if (r->n < 6 || !*r->w[3] || (delta = strtoll(r->w[3], &end, 10), *end) ||
        !*r->w[4] || *r->w[4] == '-' || (off = strtoull(r->w[4], &end, 10), *end) ||
        delta < -64 || delta > 64)
        return fail(r, EINVAL, "usage: raidreshape VG LV DELTA OFFSET DEV...");
    struct lvxd_lv *v = served_lv(r);
    if (!v)
        return -1;
    if (raid_reshape_can_start(r->ctx, v) < 0)
        return fail_ctx(r);
    int64_t rq[2] = { delta, (int64_t)off };
    return reload_served(r, v, 5, rq);
}

/* monitor VG LV 0|1: watch a served thin pool or snapshot (monitor.c), or stop */
static int do_monitor(struct request *r)
{
    if (r->n < 4 || (strcmp(r->w[3], "0") && strcmp(r->w[3], "1")))
        return fail(r, EINVAL, "usage: monitor VG LV 0|1");
    struct lvxd_lv *v = served_lv(r);
    if (!v)
        return -1;
    if (lvxd_monitor_set(r->ctx, v, strcmp(r->w[3], "1") == 0) < 0)
        return fail_ctx(r);
    lvxd_state_save();
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

/* pvcopy VG LV MVLE OFFSET SECTORS FLUSH: one piece of a pvmove segment's copy */
static int do_pvcopy(struct request *r)
{
    unsigned long long le, off, cnt;
    if (r->n < 7 || sscanf(r->w[3], "%llu", &le) != 1 || sscanf(r->w[4], "%llu", &off) != 1 ||
        sscanf(r->w[5], "%llu", &cnt) != 1)
        return fail(r, EINVAL, "usage: pvcopy VG LV MVLE OFFSET SECTORS FLUSH");
    struct lvxd_lv *v = served_lv(r);
    if (!v)
        return -1;
    if (lvxd_pvmove_copy(r->ctx, v, le, off, cnt, strcmp(r->w[6], "1") == 0) < 0)
        return fail_ctx(r);
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

/* rscopy VG LV OFFSET SECTORS FLUSH: one piece of a restripe's copy (LV sectors) */
static int do_rscopy(struct request *r)
{
    unsigned long long off, cnt;
    if (r->n < 6 || sscanf(r->w[3], "%llu", &off) != 1 || sscanf(r->w[4], "%llu", &cnt) != 1)
        return fail(r, EINVAL, "usage: rscopy VG LV OFFSET SECTORS FLUSH");
    struct lvxd_lv *v = served_lv(r);
    if (!v)
        return -1;
    if (lvxd_restripe_copy(r->ctx, v, off, cnt, strcmp(r->w[5], "1") == 0) < 0)
        return fail_ctx(r);
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

/* raidmsg VG LV check|repair: a RAID LV's --syncaction, run to its end */
static int do_raidmsg(struct request *r)
{
    if (r->n < 4 || (strcmp(r->w[3], "check") && strcmp(r->w[3], "repair")))
        return fail(r, EINVAL, "usage: raidmsg VG LV check|repair");
    struct lvxd_lv *v = served_lv(r);
    if (!v)
        return -1;
    if (lvxd_raid_check(r->ctx, v, strcmp(r->w[3], "repair") == 0) < 0)
        return fail_ctx(r);
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

/* mirrorhold VG LV 1|0: a served mirror's log held all out of sync until the next
 * reload (1, written and flushed before the reply), or released (0) */
static int do_mirrorhold(struct request *r)
{
    if (r->n < 4 || (strcmp(r->w[3], "1") && strcmp(r->w[3], "0")))
        return fail(r, EINVAL, "usage: mirrorhold VG LV 1|0");
    struct lvxd_lv *v = served_lv(r);
    if (!v)
        return -1;
    if (lvxd_mirror_hold_log(r->ctx, v, strcmp(r->w[3], "1") == 0) < 0)
        return fail_ctx(r);
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

/* thinmsg VG POOL OLD_TID NEW_TID MSG...: a served thin pool's messages (each with ':'
 * for its blanks: create_snap:2:1), then set_transaction_id OLD NEW, committed;
 * "err 2" when the pool is not served (the command changes its metadata itself) */
static int do_thinmsg(struct request *r)
{
    uint64_t old_tid, new_tid;
    const char *msgs[8];
    unsigned n = 0;
    if (r->n < 5 || r->n > 13 || sscanf(r->w[3], "%" SCNu64, &old_tid) != 1 ||
        sscanf(r->w[4], "%" SCNu64, &new_tid) != 1)
        return fail(r, EINVAL, "usage: thinmsg VG POOL OLD_TID NEW_TID MSG...");
    for (int i = 5; i < r->n; i++) {
        for (char *c = r->w[i]; *c; c++)
            if (*c == ':')
                *c = ' ';
        msgs[n++] = r->w[i];
    }
    int rc = lvxd_thin_message(r->ctx, r->w[1], r->w[2], old_tid, new_tid, msgs, n);
    if (rc == -ENOENT)
        return fail(r, ENOENT, "thin pool not served");
    if (rc < 0)
        return fail_ctx(r);
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

/* snapmerge VG LV MAX: one step of the merge into origin LV -> ok LEFT (records left) */
static int do_snapmerge(struct request *r)
{
    unsigned max;
    if (r->n < 4 || sscanf(r->w[3], "%u", &max) != 1 || max == 0)
        return fail(r, EINVAL, "usage: snapmerge VG LV MAX");
    struct lvxd_lv *v = served_lv(r);
    if (!v)
        return -1;
    uint64_t left = 0;
    if (lvxd_snapshot_merge(r->ctx, v, max, &left) < 0)
        return fail_ctx(r);
    lvx_buf_printf(r->out, "ok %" PRIu64 "\n", left);
    return 0;
}

static int do_rename(struct request *r)
{
    if (r->n < 5)
        return fail(r, EINVAL, "usage: rename VG LV NEWVG NEWLV");
    char name[260];
    if (lvxd_volume_name(name, sizeof(name), r->w[3], r->w[4]) < 0)
        return fail(r, ENAMETOOLONG, "name too long");
    pthread_mutex_lock(&lvxd_lvs_mutex);
    struct lvxd_lv *v = lvxd_volume_find(r->w[1], r->w[2]);
    bool taken = lvxd_volume_find(r->w[3], r->w[4]) != NULL;
    if (v && !taken) {
        snprintf(v->vg, sizeof(v->vg), "%s", r->w[3]);
        snprintf(v->lv, sizeof(v->lv), "%s", r->w[4]);
        snprintf(v->name, sizeof(v->name), "%s", name);
    }
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    if (!v)
        return fail(r, ENXIO, "not active");
    if (taken)
        return fail(r, EEXIST, "the new name is served already");
    lvxd_state_save();
    lvx_buf_printf(r->out, "ok %s/%s\n", r->mount_dir, name);
    return 0;
}

static int do_list(struct request *r)
{
    lvx_buf_puts(r->out, "ok\n");
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (struct lvxd_lv *v = lvxd_lvs; v; v = v->next)
        if (!v->dying)
            lvx_buf_printf(r->out, "%s %s %s %d:%d %" PRIu64 "\n", v->vg, v->lv,
                           v->loop[0] ? v->loop : "-", v->loop_major, v->loop_minor, v->size);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    return 0;
}

static unsigned active_count(void)
{
    unsigned n = lvxd_lease_count();     /* LVs device-mapper runs under our leases */
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (struct lvxd_lv *v = lvxd_lvs; v; v = v->next)
        n += !v->dying;
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    return n;
}

static int do_stop(struct request *r)
{
    bool force = r->n > 1 && strcmp(r->w[1], "1") == 0;
    unsigned n = active_count();
    if (n && !force) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%u logical volume(s) still active (deactivate them first).",
                 n);
        return fail(r, EBUSY, msg);
    }
    struct lvxd_lv *list[1024];
    unsigned cnt = 0;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (struct lvxd_lv *v = lvxd_lvs; v && cnt < 1024; v = v->next)
        if (!v->dying)
            list[cnt++] = v;
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    for (unsigned i = 0; i < cnt; i++) {
        if (lvxd_volume_loop_ours(list[i], r->mount_dir)) {
            lvxd_loop_detach(r->ctx, list[i]->loop, true);
            /* the LV's /dev/VG/LV and /dev/mapper links (made by the client that
             * activated it, or by a restore) go with it: only links to a loop device
             * are removed (nodes/user_nodes.c) */
            if (list[i]->dev_dir[0])
                lvx_user_nodes_remove(list[i]->dev_dir, list[i]->vg, list[i]->lv);
        }
        lvx_error_clear(r->ctx);
        lvxd_volume_remove(list[i]);
    }
    lvxd_state_save();
    r->stop = true;
    lvx_buf_puts(r->out, "ok\n");
    return 0;
}

static void handle(struct request *r, char *line)
{
    r->n = 0;
    line[strcspn(line, "\r\n")] = 0;
    for (char *t = line; *t;) {
        t += strspn(t, " \t");
        if (!*t)
            break;
        r->w[r->n++] = t;
        if (r->n == MAX_WORDS)
            break;            /* the rest (devices, blank separated) stays one word */
        t += strcspn(t, " \t");
        if (*t)
            *t++ = 0;
    }
    lvx_error_clear(r->ctx);
    if (r->n == 0) {
        fail(r, EINVAL, "empty request");
        return;
    }
    const char *cmd = r->w[0];
    if (strcmp(cmd, "ping") == 0)
        lvx_buf_printf(r->out, "ok %d %d\n", (int)lvxd_supervisor_pid, (int)getpid());
    else if (strcmp(cmd, "activate") == 0)
        do_activate(r);
    else if (strcmp(cmd, "deactivate") == 0)
        do_deactivate(r);
    else if (strcmp(cmd, "status") == 0)
        do_status(r);
    else if (strcmp(cmd, "monitor") == 0)
        do_monitor(r);
    else if (strcmp(cmd, "reload") == 0)
        do_reload(r);
    else if (strcmp(cmd, "raidreshape") == 0)
        do_raidreshape(r);
    else if (strcmp(cmd, "rename") == 0)
        do_rename(r);
    else if (strcmp(cmd, "pvcopy") == 0)
        do_pvcopy(r);
    else if (strcmp(cmd, "rscopy") == 0)
        do_rscopy(r);
    else if (strcmp(cmd, "snapmerge") == 0)
        do_snapmerge(r);
    else if (strcmp(cmd, "raidmsg") == 0)
        do_raidmsg(r);
    else if (strcmp(cmd, "thinmsg") == 0)
        do_thinmsg(r);
    else if (strcmp(cmd, "mirrorhold") == 0)
        do_mirrorhold(r);
    else if (strcmp(cmd, "lease") == 0)
        do_lease(r);
    else if (strcmp(cmd, "unlease") == 0)
        do_unlease(r);
    else if (strcmp(cmd, "watch") == 0)
        do_watch(r);
    else if (strcmp(cmd, "unwatch") == 0)
        do_unwatch(r);
    else if (strcmp(cmd, "watched") == 0)
        do_watched(r);
    else if (strcmp(cmd, "list") == 0)
        do_list(r);
    else if (strcmp(cmd, "stop") == 0)
        do_stop(r);
    else
        fail(r, EINVAL, "unknown request");
}

/* Only root (or the daemon's uid) may send requests, and only while the run
 * directory is safe (access.c). */
static bool allowed(struct request *r, int c)
{
    struct ucred cred = { 0, (uid_t)-1, (gid_t)-1 };
    socklen_t len = sizeof(cred);
    if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
        !lvxd_caller_allowed(cred.uid)) {
        lvxd_refused("a control request", cred.uid, cred.gid, (uint32_t)cred.pid);
        fail(r, EACCES, "Permission denied: only root may send requests to the lvx daemon.");
        return false;
    }
    r->caller = cred.pid;
    lvx_error_clear(r->ctx);
    if (lvx_daemon_check_run_dir(r->ctx, false) < 0) {
        fail_ctx(r);
        return false;
    }
    return true;
}

static bool read_request(int c, char *buf, size_t size)
{
    size_t len = 0;
    while (len < size - 1) {
        struct pollfd p = { .fd = c, .events = POLLIN };
        if (poll(&p, 1, 10000) <= 0)
            return false;
        ssize_t n = read(c, buf + len, size - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (memchr(buf, '\n', len))
            break;
    }
    buf[len] = 0;
    return len > 0;
}

static void write_all(int fd, const char *s, size_t len)
{
    while (len) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        s += n;
        len -= (size_t)n;
    }
}

int lvxd_control_loop(int listen_fd, const char *mount_dir)
{
    struct lvx_ctx ctx;
    struct lvx_buf out = LVX_BUF_INIT;
    char *line = lvx_xmalloc(MAX_REQUEST);
    lvx_ctx_init(&ctx);
    ctx.io = lvxd_ops();
    ctx.log_fn = lvxd_log_cb;
    ctx.log_level = LVX_LOG_WARN;
    struct sigaction sa = { .sa_handler = on_term };
    sigaction(SIGTERM, &sa, NULL);
    struct request r = { .mount_dir = mount_dir, .ctx = &ctx, .out = &out };
    while (!r.stop) {
        if (term_requested) {
            term_requested = 0;
            char stop[] = "stop 0";
            lvx_buf_reset(&out);
            handle(&r, stop);
            lvxd_log("SIGTERM: %s", r.stop ? "stopping" : lvx_buf_str(&out));
            continue;
        }
        struct pollfd p = { .fd = listen_fd, .events = POLLIN };
        if (poll(&p, 1, 500) <= 0)
            continue;
        int c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue;
        lvx_buf_reset(&out);
        if (read_request(c, line, MAX_REQUEST)) {
            char first[200];
            snprintf(first, sizeof(first), "%.*s", (int)strcspn(line, "\n"), line);
            if (allowed(&r, c)) {   /* else refused: the reply says why */
                handle(&r, line);
                lvxd_log("request \"%s\": %.*s", first, (int)strcspn(lvx_buf_str(&out), "\n"),
                         lvx_buf_str(&out));
            }
            write_all(c, lvx_buf_str(&out), out.len);
        }
        close(c);
    }
    free(line);
    lvx_buf_free(&out);
    return 0;
}
