/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/monitor.c - what LVM2's dmeventd does with its thin, snapshot, mirror and raid
 * plugins, for the LVs this worker serves and those device-mapper runs (thin pools and
 * snapshots only there): a monitored mirror or RAID LV whose leg fails gets `lvx
 * lvconvert --repair --use-policies VG/LV` (mirror_due, raid_due: dmeventd's lines and
 * once-per-failure rules); a monitored thin pool (the
 * pool LV's own file, or its -tpool device: dm_watch.c) or COW snapshot (the COW LV's
 * file, or its snapshot device) is watched, and when its usage passes the next 5% step
 * above 50% the policy runs: `lvx lvextend --use-policies VG/LV` (dmeventd's `lvm
 * lvextend --use-policies`), whose reload of the LV (the `reload` request) makes the
 * daemon serve the bigger LV at once (a thin pool's waiting writes go on).
 *
 *   watch     one thread; it looks at every monitored LV every LVXD_MONITOR_INTERVAL
 *             seconds (default 10, dmeventd's timeout: the poll tick) and when kicked
 *             (lvxd_monitor_kick(): a target's pool out of space, 5% more of a pool
 *             or COW handed out; a watched device's device-mapper event,
 *             dm_events.c), at most every 100 ms.  A device device-mapper runs is
 *             read when there is cause only (dm_watch.c: new, an event, or at a tick
 *             when its underlying devices wrote), so an idle one costs nothing.  The steps are dmeventd's: checks
 *             at >50%, >55%, ... >95%, 100% (data and metadata apart for a pool,
 *             started again at 50% when the size changed), "WARNING: Thin pool
 *             VG-POOL-tpool data is now 81.23% full." (and "metadata", "Snapshot
 *             VG-SNAP is now ...") from 80% on; an invalid snapshot is reported once
 *             and no longer watched.
 *   command   run by the thread itself (posix_spawn of this executable; stdin
 *             /dev/null, its output lines into lvxd.log, no other descriptor of the
 *             daemon's: /dev/fuse, PVs, sockets), with LVM_RUN_BY_DMEVENTD=1
 *             (the command leaves monitoring alone), LVX_ACTIVATION_BACKEND=user (dm
 *             for a watched device: the command reloads the kernel's tables) and
 *             the LV's DM_DEV_DIR.  A pool's failing command is retried as dmeventd
 *             does: after 1, 2, 4 ... up to 256 skipped checks.
 *   state     v->monitored (the `monitor` request, the state file's flag 8) and
 *             v->watch, which only this thread and lvxd_monitor_set() touch, under
 *             lvxd_lvs_mutex; a watched device's, under dm_watch.c's mutex.
 *
 * Entry points: lvxd_monitor_start(), lvxd_monitor_kick(), lvxd_monitor_set(),
 * lvxd_monitorable(), lvxd_monitor_log_change().
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/thin.h"
#include "report/report.h"

extern char **environ;

#define PCT_1 1000000
#define PCT_100 (100 * PCT_1)
#define WARNING_AT (80 * PCT_1)          /* dmeventd's first warning */
#define CHECK_STEP (5 * PCT_1)
#define CHECK_MINIMUM (50 * PCT_1)
#define MAX_FAILS 256

static pthread_mutex_t kick_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kick_cond;     /* on CLOCK_MONOTONIC (kick_init) */
static pthread_once_t kick_once = PTHREAD_ONCE_INIT;
static bool kicked;

/* The tick's deadline is monotonic: a step of the wall clock (NTP, the admin) neither
 * holds the ticks back until it catches up nor runs them early. */
static void kick_init(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&kick_cond, &a);
    pthread_condattr_destroy(&a);
}

void lvxd_monitor_kick(void)
{
    pthread_once(&kick_once, kick_init);
    pthread_mutex_lock(&kick_mutex);
    kicked = true;
    pthread_cond_signal(&kick_cond);
    pthread_mutex_unlock(&kick_mutex);
}

static const char *const kind_words[] = { "", "pool", "snapshot", "mirror", "raid" };

const char *lvxd_watch_kind_word(enum lvxd_watch_kind k)
{
    return (unsigned)k < sizeof(kind_words) / sizeof(kind_words[0]) ? kind_words[k] : "";
}

enum lvxd_watch_kind lvxd_watch_kind_of(const char *word)
{
    for (unsigned k = LVXD_WATCH_POOL; k < sizeof(kind_words) / sizeof(kind_words[0]); k++)
        if (strcmp(word, kind_words[k]) == 0)
            return (enum lvxd_watch_kind)k;
    return LVXD_WATCH_NONE;
}

/* v's read lock held, or by the control loop (which alone reloads) */
static enum lvxd_watch_kind kind_of(const struct lvxd_lv *v)
{
    const char *t = v->target ? v->target->name : "";
    if (strcmp(t, "thin") == 0 && lvx_lv_is_thin_pool(v->model))
        return LVXD_WATCH_POOL;
    if (strcmp(t, "snapshot") == 0)
        return LVXD_WATCH_SNAPSHOT;
    if (strcmp(t, "mirror") == 0)
        return LVXD_WATCH_MIRROR;
    if (strcmp(t, "raid") == 0 || strcmp(t, "raid-parity") == 0)
        return LVXD_WATCH_RAID;
    return LVXD_WATCH_NONE;
}

bool lvxd_monitorable(const struct lvxd_lv *v)
{
    return kind_of(v) != LVXD_WATCH_NONE;
}

/* The dm name dmeventd names the LV by: a pool's -tpool device, the others' own. */
static void watch_name(const struct lvxd_lv *v, char *out, size_t n)
{
    snprintf(out, n, "%s%s", v->name, kind_of(v) == LVXD_WATCH_POOL ? "-tpool" : "");
}

int lvxd_monitor_set(struct lvx_ctx *ctx, struct lvxd_lv *v, bool on)
{
    char name[300];
    pthread_mutex_lock(&lvxd_lvs_mutex);
    enum lvxd_watch_kind k = kind_of(v);
    bool ok = k != LVXD_WATCH_NONE, was = v->monitored;
    if (ok) {
        v->monitored = on;
        memset(&v->watch, 0, sizeof(v->watch));
        watch_name(v, name, sizeof(name));
    }
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    if (!ok)
        return lvx_error(ctx, EINVAL, "%s/%s is not a thin pool, a snapshot, a mirror or a "
                         "RAID LV.", v->vg, v->lv);
    if (on != was)
        lvxd_monitor_log_change(k, name, on);
    if (on)
        lvxd_monitor_kick();
    return 0;
}

/* dmeventd's plugins' lines at (un)registration */
void lvxd_monitor_log_change(enum lvxd_watch_kind k, const char *name, bool on)
{
    if (k == LVXD_WATCH_MIRROR || k == LVXD_WATCH_RAID)
        lvxd_log("%s %s device %s for events.", on ? "Monitoring" : "No longer monitoring",
                 k == LVXD_WATCH_MIRROR ? "mirror" : "RAID", name);
    else
        lvxd_log("%s %s %s.", on ? "Monitoring" : "No longer monitoring",
                 k == LVXD_WATCH_POOL ? "thin pool" : "snapshot", name);
}

/* dm_percent_to_round_float(p, 2) printed with two decimals */
static void pct_text(int32_t p, char *out, size_t n)
{
    if (p > PCT_100 - PCT_1 / 100 && p < PCT_100)
        p = PCT_100 - PCT_1 / 100;
    snprintf(out, n, "%.2f", p / (double)PCT_1);
}

/* dmeventd's step rule for one usage p against *check: true when the policy is due;
 * the warning from 80% on. */
static bool step(int32_t p, int32_t *check, const char *name, const char *what)
{
    char t[16];
    bool due = false;
    if (p > WARNING_AT && p > *check) {
        pct_text(p, t, sizeof(t));
        lvxd_log("WARNING: Thin pool %s %s is now %s%% full.", name, what, t);
    }
    if (p > CHECK_MINIMUM) {
        due = p > *check;
        *check = (p / CHECK_STEP + 1) * CHECK_STEP;
        if (*check == PCT_100)
            (*check)--;
    } else {
        *check = CHECK_MINIMUM;
    }
    return due;
}

/* A pool: " thin-pool TID MU/MT DU/DT" (w's mutex held). */
static bool pool_due(struct lvxd_watch *w, const char *st, const char *name)
{
    uint64_t tid, mu, mt, du, dt;
    const char *s = strstr(st, " thin-pool ");
    if (!s || sscanf(s, " thin-pool %" SCNu64 " %" SCNu64 "/%" SCNu64 " %" SCNu64 "/%" SCNu64,
                     &tid, &mu, &mt, &du, &dt) != 5 || !mt || !dt)
        return false;
    if (w->known_meta != mt) {
        w->meta_check = CHECK_MINIMUM;
        w->known_meta = mt;
        w->fails = 0;
    }
    if (w->known_data != dt) {
        w->data_check = CHECK_MINIMUM;
        w->known_data = dt;
        w->fails = 0;
    }
    bool due = step(lvx_report_dm_percent(mu, mt), &w->meta_check, name, "metadata");
    due |= step(lvx_report_dm_percent(du, dt), &w->data_check, name, "data");
    if (w->fails) {                  /* a failing policy: retried less and less often */
        if (w->fails++ <= w->max_fails)
            return false;
        if (w->max_fails < MAX_FAILS)
            w->max_fails <<= 1;
        w->fails = 1;
        return true;
    }
    w->max_fails = 1;
    return due;
}

/* A snapshot of sectors sectors: " snapshot VALID USED TOTAL META" (sectors). */
static bool snapshot_due(struct lvxd_watch *w, uint64_t sectors, const char *st,
                         const char *name)
{
    int valid;
    uint64_t used, total, meta;
    const char *s = strstr(st, " snapshot ");
    if (w->dropped || !s ||
        sscanf(s, " snapshot %d %" SCNu64 " %" SCNu64 " %" SCNu64, &valid, &used, &total,
               &meta) != 4)
        return false;
    if (!valid || !total) {
        lvxd_log("WARNING: Snapshot %s changed state to: Invalid and should be removed.", name);
        w->dropped = true;
        return false;
    }
    if (sectors <= used - meta) {
        lvxd_log("Dropping monitoring of fully provisioned snapshot %s.", name);
        w->dropped = true;
        return false;
    }
    if (w->known_data != total) {
        w->data_check = CHECK_MINIMUM;
        w->known_data = total;
    }
    int32_t p = lvx_report_dm_percent(used, total);
    if (p < w->data_check)
        return false;
    w->data_check = (p / CHECK_STEP) * CHECK_STEP + CHECK_STEP;
    if (p >= WARNING_AT) {
        char t[16];
        pct_text(p, t, sizeof(t));
        lvxd_log("WARNING: Snapshot %s is now %s%% full.", name, t);
    }
    return true;
}

/* The failed legs of a health word (a letter per leg; 'A' alive, RAID's 'a' not yet in
 * sync: a mirror's every other letter, RAID's 'D'). */
static uint64_t dead_mask(const char *health, bool raid)
{
    uint64_t m = 0;
    for (unsigned i = 0; health[i] && i < 64; i++)
        if (raid ? health[i] == 'D' : health[i] != 'A')
            m |= (uint64_t)1 << i;
    return m;
}

/* A mirror: " mirror IN/REGIONS HEALTH[ log L][ devs D0 D1 ...[ LOGDEV]]" (the kernel's
 * mirror adds its disk log's letter and the devices: dm_watch.c).  As dmeventd's
 * mirror plugin: a leg (or the disk log) newly failed is reported and the repair runs
 * (lvm.conf's mirror fault policies); its device named when known, as dmeventd names
 * it (major:minor).  The log is bit 63 of w->dead_legs. */
static bool mirror_due(struct lvxd_watch *w, const char *st, const char *name)
{
    uint64_t in, regions;
    char health[65], log[2] = "", devs[65][16];
    int off = 0;
    const char *s = strstr(st, " mirror ");
    if (!s || sscanf(s, " mirror %" SCNu64 "/%" SCNu64 " %64s%n", &in, &regions, health,
                     &off) != 3)
        return false;
    s += off;
    if (sscanf(s, " log %1s%n", log, &off) == 1)
        s += off;
    unsigned n = 0, legs = (unsigned)strlen(health);
    if (strncmp(s, " devs", 5) == 0)
        for (s += 5; n < 65 && sscanf(s, " %15s%n", devs[n], &off) == 1; s += off)
            n++;
    bool named = n >= legs;
    uint64_t dead = dead_mask(health, false) & ~((uint64_t)1 << 63);
    if (log[0] && log[0] != 'A')
        dead |= (uint64_t)1 << 63;
    uint64_t fresh = dead & ~w->dead_legs;
    w->dead_legs = dead;
    if (!fresh)
        return false;
    for (unsigned i = 0; health[i] && i < 63; i++) {
        if (!((fresh >> i) & 1))
            continue;
        if (named)
            lvxd_log("%s mirror device %s has failed (%c).", i ? "Secondary" : "Primary",
                     devs[i], health[i]);
        else
            lvxd_log("%s mirror device %u of %s has failed (%c).", i ? "Secondary" : "Primary",
                     i, name, health[i]);
    }
    if ((fresh >> 63) & 1)
        lvxd_log("Log device %s has failed (%c).", n > legs ? devs[legs] : name, log[0]);
    lvxd_log("Device failure in %s.", name);
    return true;
}

/* A RAID LV: " raid HEALTH DONE/TOTAL ACTION ...".  As dmeventd's raid plugin: each leg
 * newly 'D' warned about; the repair (lvm.conf's raid_fault_policy) once the array is
 * in sync with its live legs, once per failure. */
static bool raid_due(struct lvxd_watch *w, const char *type, const char *st, const char *name)
{
    uint64_t done, total;
    char health[257], action[16];
    const char *s = strstr(st, " raid ");
    if (!s || sscanf(s, " raid %256s %" SCNu64 "/%" SCNu64 " %15s", health, &done, &total,
                     action) != 4)
        return false;
    uint64_t dead = dead_mask(health, true);
    for (unsigned i = 0; health[i] && i < 64; i++)
        if (((dead & ~w->dead_legs) >> i) & 1)
            lvxd_log("WARNING: Device #%u of %s array, %s, has failed.", i, type, name);
    w->dead_legs |= dead;
    if (!dead) {
        w->repair_ran = false;
        if (done == total)
            w->dead_legs = 0;
        return false;
    }
    if (done < total) {
        if (!w->sync_warned)
            lvxd_log("WARNING: waiting for resynchronization to finish before initiating "
                     "repair on RAID device %s.", name);
        w->sync_warned = true;
        return false;
    }
    if (w->repair_ran)
        return false;
    w->repair_ran = true;
    return true;
}

/* --- the command ----------------------------------------------------------------- */

struct job {
    char vg[128], lv[128], name[300], dev_dir[256];
    enum lvxd_watch_kind kind;
    bool pool;
    bool dm;                         /* a device device-mapper runs (dm_watch.c) */
    struct job *next;
};

static char *env_pair(const char *k, const char *val)
{
    size_t n = strlen(k) + strlen(val) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s=%s", k, val);
    return s;
}

/* The environment of the command: ours, with the three variables set. */
static char **command_env(const struct job *j)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **e = calloc(n + 4, sizeof(*e));
    if (!e)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LVM_RUN_BY_DMEVENTD=", 20) &&
            strncmp(environ[i], "LVX_ACTIVATION_BACKEND=", 23) && strncmp(environ[i], "DM_DEV_DIR=", 11))
            e[k++] = environ[i];
    e[k++] = env_pair("LVM_RUN_BY_DMEVENTD", "1");
    e[k++] = env_pair("LVX_ACTIVATION_BACKEND", j->dm ? "dm" : "user");
    e[k++] = env_pair("DM_DEV_DIR", j->dev_dir[0] ? j->dev_dir : "/dev");
    for (size_t i = k - 3; i < k; i++)
        if (!e[i]) {
            for (size_t f = k - 3; f < k; f++)
                free(e[f]);
            free(e);
            return NULL;
        }
    return e;
}

/* The policy's command: lvextend for pools and snapshots, lvconvert for the others. */
static const char *command_name(const struct job *j)
{
    return j->kind == LVXD_WATCH_MIRROR || j->kind == LVXD_WATCH_RAID ? "lvconvert" : "lvextend";
}

/* Log the command's output, line by line, until it closes its end. */
static void log_output(int fd, const struct job *j)
{
    char buf[4096];
    size_t have = 0;
    for (;;) {
        ssize_t r = read(fd, buf + have, sizeof(buf) - 1 - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
        buf[have] = 0;
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n'))) {
            *nl = 0;
            lvxd_log("%s %s/%s: %s", command_name(j), j->vg, j->lv, line);
            line = nl + 1;
        }
        have = strlen(line);
        memmove(buf, line, have);
        if (have == sizeof(buf) - 1) {      /* a line longer than the buffer */
            buf[have] = 0;
            lvxd_log("%s %s/%s: %s", command_name(j), j->vg, j->lv, buf);
            have = 0;
        }
    }
    if (have) {
        buf[have] = 0;
        lvxd_log("%s %s/%s: %s", command_name(j), j->vg, j->lv, buf);
    }
}

/* Run `lvx lvextend --use-policies VG/LV` (`lvx lvconvert --repair --use-policies VG/LV`
 * for a mirror or RAID LV): true when it exited 0. */
static bool run_policy(const struct job *j)
{
    char exe[PATH_MAX], arg[260];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0)
        return false;
    exe[n] = 0;
    snprintf(arg, sizeof(arg), "%s/%s", j->vg, j->lv);
    char *extend[] = { "lvx", "lvextend", "--use-policies", arg, NULL };
    char *repair[] = { "lvx", "lvconvert", "--repair", "--use-policies", arg, NULL };
    char **argv = strcmp(command_name(j), "lvconvert") == 0 ? repair : extend;
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return false;
    char **env = command_env(j);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_adddup2(&fa, p[1], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);   /* as dmeventd: no fd of ours */
#endif
    pid_t pid = -1;
    int rc = env ? posix_spawn(&pid, exe, &fa, NULL, argv, env) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    if (env) {
        size_t k = 0;
        while (env[k])
            k++;
        for (size_t i = k - 3; i < k; i++)
            free(env[i]);
        free(env);
    }
    close(p[1]);
    if (rc != 0) {
        close(p[0]);
        lvxd_log("cannot run %s for %s: %s", command_name(j), j->name, strerror(rc));
        return false;
    }
    log_output(p[0], j);
    close(p[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status)) {
        lvxd_log("%s %s/%s was terminated by signal %d.", command_name(j), j->vg, j->lv,
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        return false;
    }
    /* dmeventd: "Child N exited with status S." */
    lvxd_log("%s %s/%s exited with status %d.", command_name(j), j->vg, j->lv,
             WEXITSTATUS(status));
    return WEXITSTATUS(status) == 0;
}

/* --- the thread -------------------------------------------------------------------- */

/* A job for vg/lv pushed onto *jobs; false when out of memory. */
static bool job_push(struct job **jobs, const char *vg, const char *lv, const char *name,
                     const char *dev_dir, enum lvxd_watch_kind kind, bool dm)
{
    bool pool = kind == LVXD_WATCH_POOL;
    struct job *j = calloc(1, sizeof(*j));
    if (!j)
        return false;
    snprintf(j->vg, sizeof(j->vg), "%s", vg);
    snprintf(j->lv, sizeof(j->lv), "%s", lv);
    snprintf(j->name, sizeof(j->name), "%s", name);
    snprintf(j->dev_dir, sizeof(j->dev_dir), "%s", dev_dir);
    j->kind = kind;
    j->pool = pool;
    j->dm = dm;
    j->next = *jobs;
    *jobs = j;
    return true;
}

/* A watched device (dm_watch.c): a job when due. */
static void dm_look(const struct lvxd_dm_look *l, void *arg)
{
    bool due = l->kind == LVXD_WATCH_POOL     ? pool_due(l->watch, l->status, l->name)
               : l->kind == LVXD_WATCH_MIRROR ? mirror_due(l->watch, l->status, l->name)
               : l->kind == LVXD_WATCH_RAID
                   ? raid_due(l->watch, l->raid_type, l->status, l->name)
                   : snapshot_due(l->watch, l->sectors, l->status, l->name);
    if (due)
        job_push(arg, l->vg, l->lv, l->name, l->dev_dir, l->kind, true);
}

/* The jobs due now (the served LVs' status looked at under the list's mutex, then the
 * watched devices'). */
static struct job *collect(bool tick)
{
    struct job *jobs = NULL;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (struct lvxd_lv *v = lvxd_lvs; v; v = v->next) {
        if (!v->monitored || v->dying)
            continue;
        char st[512] = "", name[300], type[32] = "";
        pthread_rwlock_rdlock(&v->lock);        /* a reload swaps the model */
        enum lvxd_watch_kind k = kind_of(v);
        bool ok = k != LVXD_WATCH_NONE && v->target->status;
        if (ok)
            v->target->status(v, st, sizeof(st));
        if (ok && k == LVXD_WATCH_RAID && v->model && v->model->seg_count)
            snprintf(type, sizeof(type), "%s", lvx_seg_report_type(&v->model->segs[0]));
        if (ok && (k == LVXD_WATCH_MIRROR || k == LVXD_WATCH_RAID) && v->watch.layout != v->model) {
            v->watch.layout = v->model;      /* reloaded: its legs' failures are new */
            v->watch.dead_legs = 0;
            v->watch.repair_ran = v->watch.sync_warned = false;
        }
        pthread_rwlock_unlock(&v->lock);
        if (!ok)
            continue;
        watch_name(v, name, sizeof(name));
        bool due = k == LVXD_WATCH_POOL     ? pool_due(&v->watch, st, name)
                   : k == LVXD_WATCH_MIRROR ? mirror_due(&v->watch, st, name)
                   : k == LVXD_WATCH_RAID   ? raid_due(&v->watch, type, st, name)
                                       : snapshot_due(&v->watch, v->size / 512, st, name);
        if (!due)
            continue;
        if (!job_push(&jobs, v->vg, v->lv, name, v->dev_dir, k, false))
            break;
    }
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    lvxd_dm_watch_scan(tick, dm_look, &jobs);
    return jobs;
}

/* dmeventd's fails counter of a pool after its command (ok: it exited 0) */
static void note_result(struct lvxd_watch *w, void *arg)
{
    bool ok = *(bool *)arg;
    if (!ok && !w->fails)
        w->fails = 1;
    else if (ok)
        w->fails = 0;
}

static void run_jobs(struct job *jobs)
{
    while (jobs) {
        struct job *j = jobs;
        jobs = j->next;
        bool ok = run_policy(j);
        if (j->kind == LVXD_WATCH_MIRROR && ok)
            lvxd_log("Repair of mirrored device %s finished successfully.", j->name);
        else if (j->kind == LVXD_WATCH_MIRROR)
            lvxd_log("Repair of mirrored device %s failed.", j->name);
        else if (j->kind == LVXD_WATCH_RAID && !ok)
            lvxd_log("Repair of RAID device %s failed.", j->name);
        else if (!ok && j->kind != LVXD_WATCH_RAID)
            lvxd_log(j->pool ? "Failed command for %s." : "Failed to extend snapshot %s.",
                     j->name);
        if (j->pool && j->dm) {
            lvxd_dm_watch_update(j->vg, j->lv, note_result, &ok);
        } else if (j->pool) {
            pthread_mutex_lock(&lvxd_lvs_mutex);
            struct lvxd_lv *v = lvxd_volume_find(j->vg, j->lv);
            if (v)
                note_result(&v->watch, &ok);
            pthread_mutex_unlock(&lvxd_lvs_mutex);
        }
        free(j);
    }
}

static int interval(void)
{
    const char *e = getenv("LVXD_MONITOR_INTERVAL");
    int t = e && *e ? atoi(e) : 10;
    return t < 1 ? 1 : t;
}

static void *monitor_main(void *arg)
{
    (void)arg;
    int secs = interval();
    struct timespec until;
    pthread_once(&kick_once, kick_init);
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += secs;
    for (;;) {
        pthread_mutex_lock(&kick_mutex);
        while (!kicked && pthread_cond_timedwait(&kick_cond, &kick_mutex, &until) != ETIMEDOUT)
            ;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        bool tick = now.tv_sec > until.tv_sec ||
                    (now.tv_sec == until.tv_sec && now.tv_nsec >= until.tv_nsec);
        if (tick) {                      /* the next tick a period on, kicks or not */
            until = now;
            until.tv_sec += secs;
        }
        kicked = false;
        pthread_mutex_unlock(&kick_mutex);
        run_jobs(collect(tick));
        struct timespec pause = { 0, 100 * 1000000L };
        nanosleep(&pause, NULL);
    }
    return NULL;
}

void lvxd_monitor_start(void)
{
    pthread_t th;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&th, &attr, monitor_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        lvxd_log("warning: no monitoring thread: %s", strerror(rc));
    lvxd_dm_events_start(interval());
}
