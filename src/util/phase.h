/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/phase.h - where a command's time goes: named phases (listing the devices, the
 * filter, reading labels, assembly, the commit, ...) timed with CLOCK_MONOTONIC and
 * summed per name.  Off unless a program switches it on (the lvx program does with
 * LVX_PHASES=1 in the environment and prints the sums on stderr when a command ends);
 * off, a phase costs one load of a flag.  Phases may nest (the sums then overlap).
 *
 * Entry points: lvx_phase_enable(), lvx_phase_start(), lvx_phase_end(),
 * lvx_phase_report().
 */
#ifndef LVX_UTIL_PHASE_H
#define LVX_UTIL_PHASE_H

#include <stdint.h>

#include "util/buf.h"

void lvx_phase_enable(void);
/* A start time for lvx_phase_end(), or 0 when phases are off. */
uint64_t lvx_phase_start(void);
/* Add the time since start to the phase `name` (a string literal: kept by address). */
void lvx_phase_end(const char *name, uint64_t start);
/* One line per phase, in first-seen order: "phase NAME MS COUNT" (MS with 3 decimals),
 * then "phase total MS 1" since lvx_phase_enable(). */
void lvx_phase_report(struct lvx_buf *out);

#endif
