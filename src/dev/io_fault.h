/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/io_fault.h - the datapath fault rules of the I/O seam's test wrapper
 * (LVX_TEST_DP_FAULT, syntax in dev/io.h): parsing, the devices each rule selects
 * (a path's device number, or the ops' dev numbers), and injecting the faults into
 * a submitted batch.  Used only by dev/io.c.
 */
#ifndef LVX_DEV_IO_FAULT_H
#define LVX_DEV_IO_FAULT_H

#include <stdbool.h>
#include <stddef.h>

#include "dev/io.h"

/* Take spec (NULL/"" = no rules) unless it is the one in use; 0, or -EINVAL with the
 * reason in err (size n; the rules in use are then dropped). */
int lvx_io_fault_configure(const char *spec, char *err, size_t n);
/* Only parse: 0 or -EINVAL with a reason. */
int lvx_io_fault_parse_only(const char *spec, char *err, size_t n);
bool lvx_io_fault_active(void);

typedef int (*lvx_io_submit_fn)(void *arg, struct lvx_io_queue *q, struct lvx_io_op *ops,
                                unsigned n);
/* One injected fault (path: the rule's device, or "-" when selected by number). */
typedef void (*lvx_io_fault_log_fn)(const char *kind, const struct lvx_io_op *op,
                                    const char *path);
/* Run ops through inner with the rules' faults injected. */
int lvx_io_fault_submit(lvx_io_submit_fn inner, void *arg, struct lvx_io_queue *q,
                        struct lvx_io_op *ops, unsigned n, lvx_io_fault_log_fn log);

#endif
