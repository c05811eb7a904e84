/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/parallel.c - lvx_parallel_for(): a shared atomic counter hands job indexes to
 * the calling thread and to up to LVX_PARALLEL_MAX_THREADS - 1 helper threads.
 */
#include "util/parallel.h"

#include <pthread.h>
#include <stdatomic.h>

struct job_set {
    atomic_uint next;
    unsigned count;
    void (*fn)(void *arg, unsigned i);
    void *arg;
};

static void *run_jobs(void *p)
{
    struct job_set *js = p;
    for (;;) {
        unsigned i = atomic_fetch_add(&js->next, 1);
        if (i >= js->count)
            return NULL;
        js->fn(js->arg, i);
    }
}

void lvx_parallel_for(unsigned count, unsigned max_threads, void (*fn)(void *arg, unsigned i),
                      void *arg)
{
    struct job_set js = { .count = count, .fn = fn, .arg = arg };
    atomic_init(&js.next, 0);
    if (max_threads == 0 || max_threads > LVX_PARALLEL_MAX_THREADS)
        max_threads = LVX_PARALLEL_MAX_THREADS;
    unsigned helpers = (count < max_threads ? count : max_threads);
    helpers = helpers ? helpers - 1 : 0;
    pthread_t tids[LVX_PARALLEL_MAX_THREADS];
    unsigned started = 0;
    for (; started < helpers; started++)
        if (pthread_create(&tids[started], NULL, run_jobs, &js) != 0)
            break;
    run_jobs(&js);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
}
