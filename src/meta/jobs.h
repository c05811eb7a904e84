/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/jobs.h - running copies as jobs: a pvmove copier holds an flock on
 * <locking_dir>/lvx_pvmove_<pvmove LV uuid> (cmd/pvmove.c) and keeps one line in it,
 * "PID VG LV SOURCE DONE TOTAL" (sectors), rewritten as it copies; a file whose lock
 * nobody holds is no job (a copier that died).  Read by `lvx jobs` and the
 * copy_percent field of the pvmove LV.
 */
#ifndef LVX_META_JOBS_H
#define LVX_META_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/pool.h"

struct lvx_job {
    long pid;
    const char *uuid, *vg, *lv, *source;
    uint64_t done, total;      /* sectors */
};

/* The file of the job of pvmove LV uuid (in pool). */
const char *lvx_job_path(struct lvx_pool *pool, const char *uuid);
/* Rewrite the line of the job whose lock fd is held by this process. */
void lvx_job_write(int fd, const char *vg, const char *lv, const char *source, uint64_t done,
                   uint64_t total);
/* The running job of pvmove LV uuid into *out (strings in pool): true when one runs. */
bool lvx_job_find(struct lvx_pool *pool, const char *uuid, struct lvx_job *out);
/* Every running job (sorted by VG, LV), in pool.  Count. */
unsigned lvx_jobs_list(struct lvx_pool *pool, struct lvx_job **out);

#endif
