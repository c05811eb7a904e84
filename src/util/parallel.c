/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/parallel.c - lvx_parallel_for(): a shared atomic counter hands job indexes to
 * the calling thread and to up to LVX_PARALLEL_MAX_THREADS - 1 helper threads.
 *
 * Helpers are kept: started on first need, they wait for the next job set, so a
 * session doing two flush rounds per commit does not start (and fault in the stacks
 * of) new threads each time.  One caller at a time uses the kept helpers; a second
 * concurrent caller (another thread of a library user) starts its own as before.  A
 * forked child starts with none (pthread_atfork).
 */
#include "util/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct job_set {
    atomic_uint next;
    unsigned count;
    void (*fn)(void *arg, unsigned i);
    void *arg;
};

static void run_jobs(struct job_set *js)
{
    for (;;) {
        unsigned i = atomic_fetch_add(&js->next, 1);
        if (i >= js->count)
            return;
        js->fn(js->arg, i);
    }
}

/* ---- helpers started per call (fallback) ------------------------------------- */

static void *run_jobs_thread(void *p)
{
    run_jobs(p);
    return NULL;
}

static void run_with_new_threads(struct job_set *js, unsigned helpers)
{
    pthread_t tids[LVX_PARALLEL_MAX_THREADS];
    unsigned started = 0;
    for (; started < helpers; started++)
        if (pthread_create(&tids[started], NULL, run_jobs_thread, js) != 0)
            break;
    run_jobs(js);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
}

/* ---- kept helpers ---------------------------------------------------------------- */

static pthread_mutex_t owner = PTHREAD_MUTEX_INITIALIZER;  /* one caller at a time */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;   /* the fields below */
static pthread_cond_t work_ready = PTHREAD_COND_INITIALIZER;
static pthread_cond_t work_done = PTHREAD_COND_INITIALIZER;
static unsigned helper_count;       /* helpers started (and waiting or working) */
static unsigned round_number;       /* bumped for each job set handed out */
static unsigned round_helpers;      /* helpers 0 .. round_helpers-1 take part */
static unsigned round_busy;         /* taking part and not finished yet */
static struct job_set *round_jobs;
static pthread_once_t fork_hook_once = PTHREAD_ONCE_INIT;

/* p: the helper's number (low 8 bits) and the round current when it was started (rounds
 * after that one are its work, however late it first takes the lock). */
static void *helper_main(void *p)
{
    unsigned me = (unsigned)((uintptr_t)p & 0xff);
    unsigned seen = (unsigned)((uintptr_t)p >> 8);
    pthread_mutex_lock(&lock);
    for (;;) {
        while (round_number == seen)
            pthread_cond_wait(&work_ready, &lock);
        seen = round_number;
        if (me >= round_helpers)
            continue;
        struct job_set *js = round_jobs;
        pthread_mutex_unlock(&lock);
        run_jobs(js);
        pthread_mutex_lock(&lock);
        if (--round_busy == 0)
            pthread_cond_signal(&work_done);
    }
    return NULL;
}

/* In a forked child the helpers do not exist (and the locks may be held). */
static void forget_helpers_in_child(void)
{
    pthread_mutex_init(&owner, NULL);
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&work_ready, NULL);
    pthread_cond_init(&work_done, NULL);
    helper_count = round_helpers = round_busy = 0;
    round_jobs = NULL;
}

static void install_fork_hook(void)
{
    pthread_atfork(NULL, NULL, forget_helpers_in_child);
}

/* Start helpers up to `want` (the caller holds `owner`); the number available. */
static unsigned ensure_helpers(unsigned want)
{
    pthread_once(&fork_hook_once, install_fork_hook);
    while (helper_count < want) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        uintptr_t start = (uintptr_t)helper_count | ((uintptr_t)round_number << 8);
        int r = pthread_create(&t, &attr, helper_main, (void *)start);
        if (r == 0)
            helper_count++;
        pthread_attr_destroy(&attr);
        if (r != 0)
            break;
    }
    return helper_count < want ? helper_count : want;
}

static void run_with_kept_threads(struct job_set *js, unsigned helpers)
{
    helpers = ensure_helpers(helpers);
    pthread_mutex_lock(&lock);
    round_jobs = js;
    round_helpers = round_busy = helpers;
    round_number++;
    pthread_cond_broadcast(&work_ready);
    pthread_mutex_unlock(&lock);
    run_jobs(js);
    pthread_mutex_lock(&lock);
    while (round_busy)
        pthread_cond_wait(&work_done, &lock);
    round_jobs = NULL;
    pthread_mutex_unlock(&lock);
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
    if (helpers == 0) {
        run_jobs(&js);
    } else if (pthread_mutex_trylock(&owner) == 0) {
        run_with_kept_threads(&js, helpers);
        pthread_mutex_unlock(&owner);
    } else {
        run_with_new_threads(&js, helpers);   /* kept helpers busy (or nested use) */
    }
}
