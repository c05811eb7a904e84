/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/jobs.c - `lvx jobs [--abort] [VG/LV|PV...]`: the running copies as jobs (lvx's
 * own command; LVM2 has lvs -o copy_percent and pvmove --abort, which lvx has too).
 * Lists the pvmove copiers that hold their job file (meta/jobs.h): VG, pvmove LV,
 * source PV, pid and percentage copied; --abort stops the moves named (all when
 * none is) exactly as `pvmove --abort` (lvx_pvmove_abort).
 */
#include "cmd/cmd.h"
#include "cmd/vgcmd.h"

#include <string.h>

#include "meta/jobs.h"
#include "util/buf.h"

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

int lvx_cmd_jobs(struct lvx_cmd_env *env)
{
    struct lvx_cmd_args *a = env->args;
    struct lvx_job *jobs;
    unsigned n = lvx_jobs_list(env->pool, &jobs);
    if (a->count[LVX_OPT_ABORT]) {
        int rc = 0;
        for (unsigned i = 0; i < n; i++) {
            if (!named(a, &jobs[i]))
                continue;
            int r = lvx_pvmove_abort(env, jobs[i].vg, jobs[i].uuid);
            if (r > rc)
                rc = r;
        }
        return rc;
    }
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_buf_printf(&b, "  %-10s %-10s %-20s %8s %8s\n", "VG", "LV", "Move", "PID", "Cpy%Sync");
    for (unsigned i = 0; i < n; i++) {
        if (!named(a, &jobs[i]))
            continue;
        uint64_t h = jobs[i].total ? jobs[i].done * 10000 / jobs[i].total : 10000;
        if (h >= 10000 && jobs[i].done < jobs[i].total)
            h = 9999;
        lvx_buf_printf(&b, "  %-10s %-10s %-20s %8ld %5llu.%02llu\n", jobs[i].vg, jobs[i].lv,
                       jobs[i].source, jobs[i].pid, (unsigned long long)(h / 100),
                       (unsigned long long)(h % 100));
    }
    int rc = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    return rc;
}
