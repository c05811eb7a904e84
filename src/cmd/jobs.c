/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/jobs.c - `lvx jobs [--abort|--pause|--resume] [VG/LV|PV...]`: the copies as jobs
 * (lvx's own command; LVM2 has lvs -o copy_percent and pvmove --abort, which lvx has
 * too).  A job is a pvmove (its pvmove LV) or a restripe (its LV, lvconvert --stripes):
 *   running  a copier holds its job file (meta/jobs.h): VG, LV, source, pid, percentage;
 *   paused   the move is in the metadata with no copier (stopped by --pause, a crash or
 *            a reboot): pid "-", the percentage of its checkpoints.
 * --abort stops the moves named (all when none is) exactly as `pvmove --abort`
 * (lvx_pvmove_abort; a restripe cannot be rolled back: it is paused); --pause stops
 * running copiers and leaves their moves in progress; --resume copies paused moves
 * again in a detached process (`pvmove -b SOURCE`, `lvconvert VG/LV`).
 */
#include "cmd/cmd.h"
#include "cmd/vgcmd.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meta/jobs.h"
#include "model/pvmove.h"
#include "model/restripe.h"
#include "util/buf.h"
#include "util/detach.h"

struct job_row {
    struct lvx_job job;
    bool paused;
    bool restripe;
};

static bool named(const struct lvx_cmd_args *a, const struct lvx_job *j)
{
    if (a->argc == 0)
        return true;
    for (int i = 0; i < a->argc; i++) {
        const char *arg = a->argv[i];
        size_t l = strlen(j->vg);
        if ((!strncmp(arg, j->vg, l) && arg[l] == '/' && !strcmp(arg + l + 1, j->lv)) ||
            lvx_cmd_same_device(arg, j->source) || !strcmp(arg, j->uuid))
            return true;
    }
    return false;
}

static bool running(const struct lvx_job *jobs, unsigned n, const char *uuid)
{
    for (unsigned i = 0; i < n; i++)
        if (!strcmp(jobs[i].uuid, uuid))
            return true;
    return false;
}

/* The running jobs, then the paused ones found in the VGs.  Count; rows in pool. */
static unsigned collect(struct lvx_cmd_env *env, struct job_row **out)
{
    struct lvx_job *jobs;
    unsigned n = lvx_jobs_list(env->pool, &jobs), k = 0, cap = n + 16;
    struct job_row *rows = lvx_pool_alloc(env->pool, cap * sizeof(*rows));
    for (unsigned i = 0; i < n; i++) {
        rows[k].job = jobs[i];
        rows[k].paused = false;
        rows[k++].restripe = strncmp(jobs[i].source, "stripes:", 8) == 0;
    }
    struct lvx_cmd_vgs v;
    if (lvx_cmd_load(env, &v) == 0) {
        for (unsigned i = 0; i < v.set->vg_count; i++) {
            const struct lvx_vg *vg = v.set->vgs[i];
            for (unsigned l = 0; l < vg->lv_count; l++) {
                const struct lvx_lv *lv = vg->lvs[l];
                bool mv = lv->status & LVX_LV_PVMOVE;
                const struct lvx_lv *rsv = mv ? NULL : lvx_restripe_rsv(lv);
                bool held = !mv && !rsv && lvx_restripe_old(lv);   /* copied, not freed */
                if ((!mv && !rsv && !held) || running(jobs, n, lv->uuid))
                    continue;
                if (k == cap) {
                    struct job_row *more = lvx_pool_alloc(env->pool, 2 * cap * sizeof(*more));
                    memcpy(more, rows, k * sizeof(*rows));
                    rows = more;
                    cap *= 2;
                }
                struct job_row *r = &rows[k++];
                memset(r, 0, sizeof(*r));
                r->paused = true;
                r->restripe = rsv || held;
                r->job.pid = -1;
                r->job.uuid = lvx_pool_strdup(env->pool, lv->uuid);
                r->job.vg = lvx_pool_strdup(env->pool, vg->name);
                r->job.lv = lvx_pool_strdup(env->pool, lv->name);
                r->job.total = lv->le_count;
                if (rsv || held) {
                    const struct lvx_lv *to = rsv ? rsv : lv;
                    r->job.source = lvx_pool_printf(env->pool, "stripes:%u",
                                                    to->seg_count ? to->segs[0].area_count : 0);
                    r->job.done = rsv ? lvx_restripe_done(lv, rsv) : lv->le_count;
                } else {
                    const struct lvx_pv *src = lvx_pvmove_source(lv);
                    r->job.source = lvx_pool_strdup(env->pool, src ? lvx_cmd_pv_name(src)
                                                                   : lv->name);
                    r->job.done = lvx_pvmove_copied(lv);
                }
            }
        }
        lvx_cmd_unload(&v);
    }
    lvx_error_clear(env->ctx);
    *out = rows;
    return k;
}

/* `lvx lvconvert VG/LV` in a detached process: the restripe continues there. */
static int resume_restripe(struct lvx_cmd_env *env, const struct lvx_job *j)
{
    char exe[4096];
    if (!lvx_self_is_lvx(exe, sizeof(exe))) {
        lvx_cmd_errorf("Resume the restripe of %s/%s with lvconvert %s/%s.", j->vg, j->lv, j->vg,
                       j->lv);
        return LVX_EXIT_FAILED;
    }
    const char *target = lvx_pool_printf(env->pool, "%s/%s", j->vg, j->lv);
    int r = lvx_cmd_detach();
    if (r)
        return r < 0 ? LVX_EXIT_FAILED : 0;
    const char *argv[] = { "lvx", "lvconvert", target, NULL };
    execv(exe, (char *const *)argv);
    _exit(LVX_EXIT_FAILED);
}

static int act_on(struct lvx_cmd_env *env, const struct job_row *r)
{
    const struct lvx_cmd_args *a = env->args;
    if (a->count[LVX_OPT_ABORT])
        return r->restripe ? (r->paused ? 0 : lvx_pvmove_pause(env, r->job.uuid))
                           : lvx_pvmove_abort(env, r->job.vg, r->job.uuid);
    if (a->count[LVX_OPT_PAUSE])
        return r->paused ? 0 : lvx_pvmove_pause(env, r->job.uuid);
    if (!r->paused)
        return 0;
    return r->restripe ? resume_restripe(env, &r->job)
                       : lvx_pvmove_background(env, r->job.vg, r->job.uuid, r->job.source);
}

int lvx_cmd_jobs(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    unsigned acts = (a->count[LVX_OPT_ABORT] > 0) + (a->count[LVX_OPT_PAUSE] > 0) +
                    (a->count[LVX_OPT_RESUME] > 0);
    if (acts > 1) {
        lvx_cmd_errorf("Options --abort, --pause and --resume are incompatible.");
        return LVX_EXIT_INVALID;
    }
    struct job_row *rows;
    unsigned n = collect(env, &rows);
    if (acts) {
        int rc = 0;
        for (unsigned i = 0; i < n; i++) {
            if (!named(a, &rows[i].job))
                continue;
            int r = act_on(env, &rows[i]);
            if (r > rc)
                rc = r;
        }
        return rc;
    }
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_buf_printf(&b, "  %-10s %-10s %-20s %8s %8s\n", "VG", "LV", "Move", "PID", "Cpy%Sync");
    for (unsigned i = 0; i < n; i++) {
        const struct lvx_job *j = &rows[i].job;
        if (!named(a, j))
            continue;
        uint64_t h = j->total ? j->done * 10000 / j->total : 10000;
        if (h >= 10000 && j->done < j->total)
            h = 9999;
        const char *pid = rows[i].paused ? "-" : lvx_pool_printf(env->pool, "%ld", j->pid);
        lvx_buf_printf(&b, "  %-10s %-10s %-20s %8s %5llu.%02llu\n", j->vg, j->lv, j->source, pid,
                       (unsigned long long)(h / 100), (unsigned long long)(h % 100));
    }
    int rc = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    return rc;
}
