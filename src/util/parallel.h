/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/parallel.h - run independent jobs on a few threads (device flushes and
 * per-device writes of commands touching many PVs: pvcreate, vgcreate, commits).
 * The calling thread takes part; jobs are handed out in index order.
 */
#ifndef LVX_UTIL_PARALLEL_H
#define LVX_UTIL_PARALLEL_H

/* Threads used at most (the caller included). */
#define LVX_PARALLEL_MAX_THREADS 32u

/* Call fn(arg, i) once for each i in [0, count), on up to min(count, max_threads)
 * threads (LVX_PARALLEL_MAX_THREADS when max_threads is 0).  Returns when all are
 * done.  fn must be thread-safe for different i.  Falls back to the calling thread
 * alone when threads cannot be created. */
void lvx_parallel_for(unsigned count, unsigned max_threads, void (*fn)(void *arg, unsigned i),
                      void *arg);

#endif
