/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/jobs.c - the job files of running pvmove copiers (see jobs.h): written by
 * the copier under its flock, read by anyone; a job runs while its file is locked.
 *
 * Entry points: lvx_job_path(), lvx_job_write(), lvx_job_find(), lvx_jobs_list().
 */
#include "meta/jobs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "meta/lock.h"

#define PREFIX "lvx_pvmove_"

const char *lvx_job_path(struct lvx_pool *pool, const char *uuid)
{
    return lvx_pool_printf(pool, "%s/" PREFIX "%s", lvx_lock_dir(), uuid);
}

void lvx_job_write(int fd, const char *vg, const char *lv, const char *source, uint64_t done,
                   uint64_t total)
{
    char line[1024];
    /* fixed-width numbers: the line never shrinks, readers never see a mix */
    int n = snprintf(line, sizeof(line), "%ld %s %s %s %20" PRIu64 " %20" PRIu64 "\n",
                     (long)getpid(), vg, lv, source, done, total);
    if (n > 0 && (size_t)n < sizeof(line) && pwrite(fd, line, (size_t)n, 0) == n) {
        /* the pid line is informative: the lock is what counts */
    }
}

static bool read_job(struct lvx_pool *pool, const char *path, const char *uuid,
                     struct lvx_job *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    /* a lock we can take: nobody copies */
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
        close(fd);
        return false;
    }
    char buf[1024];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = 0;
    char vg[256], lv[256], src[512];
    long pid;
    uint64_t done, total;
    if (sscanf(buf, "%ld %255s %255s %511s %" SCNu64 " %" SCNu64, &pid, vg, lv, src, &done,
               &total) != 6)
        return false;
    out->pid = pid;
    out->uuid = lvx_pool_strdup(pool, uuid);
    out->vg = lvx_pool_strdup(pool, vg);
    out->lv = lvx_pool_strdup(pool, lv);
    out->source = lvx_pool_strdup(pool, src);
    out->done = done;
    out->total = total;
    return true;
}

bool lvx_job_find(struct lvx_pool *pool, const char *uuid, struct lvx_job *out)
{
    return read_job(pool, lvx_job_path(pool, uuid), uuid, out);
}

static int cmp_job(const void *a, const void *b)
{
    const struct lvx_job *x = a, *y = b;
    int c = strcmp(x->vg, y->vg);
    return c ? c : strcmp(x->lv, y->lv);
}

unsigned lvx_jobs_list(struct lvx_pool *pool, struct lvx_job **out)
{
    unsigned n = 0, cap = 8;
    struct lvx_job *jobs = lvx_pool_alloc(pool, cap * sizeof(*jobs));
    DIR *d = opendir(lvx_lock_dir());
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, PREFIX, strlen(PREFIX)))
            continue;
        if (n == cap) {
            struct lvx_job *bigger = lvx_pool_alloc(pool, 2 * cap * sizeof(*jobs));
            memcpy(bigger, jobs, cap * sizeof(*jobs));
            jobs = bigger;
            cap *= 2;
        }
        const char *path = lvx_pool_printf(pool, "%s/%s", lvx_lock_dir(), e->d_name);
        if (read_job(pool, path, e->d_name + strlen(PREFIX), &jobs[n]))
            n++;
    }
    if (d)
        closedir(d);
    qsort(jobs, n, sizeof(*jobs), cmp_job);
    *out = jobs;
    return n;
}
