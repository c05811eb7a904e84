/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/phase.c - summed phase times for profiling (see phase.h).  A small fixed table
 * under a mutex: phases end on helper threads too (the parallel device opens).
 */
#include "util/phase.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#define PHASE_MAX 48

struct phase {
    const char *name;
    uint64_t ns;
    unsigned count;
};

static bool enabled;
static uint64_t enabled_at;
static struct phase phases[PHASE_MAX];
static unsigned phase_count;
static pthread_mutex_t phase_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void lvx_phase_enable(void)
{
    enabled_at = now_ns();
    enabled = true;
}

uint64_t lvx_phase_start(void)
{
    return enabled ? now_ns() : 0;
}

void lvx_phase_end(const char *name, uint64_t start)
{
    if (!start)
        return;
    uint64_t d = now_ns() - start;
    pthread_mutex_lock(&phase_lock);
    unsigned i = 0;
    while (i < phase_count && phases[i].name != name && strcmp(phases[i].name, name) != 0)
        i++;
    if (i == phase_count && phase_count < PHASE_MAX)
        phases[phase_count++] = (struct phase){ .name = name };
    if (i < phase_count) {
        phases[i].ns += d;
        phases[i].count++;
    }
    pthread_mutex_unlock(&phase_lock);
}

void lvx_phase_report(struct lvx_buf *out)
{
    if (!enabled)
        return;
    pthread_mutex_lock(&phase_lock);
    for (unsigned i = 0; i < phase_count; i++)
        lvx_buf_printf(out, "phase %s %.3f %u\n", phases[i].name, phases[i].ns / 1e6,
                       phases[i].count);
    pthread_mutex_unlock(&phase_lock);
    lvx_buf_printf(out, "phase total %.3f 1\n", (now_ns() - enabled_at) / 1e6);
}
