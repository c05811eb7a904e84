/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/filter.h - LVM2's device filters (lvm.conf devices/filter and
 * devices/global_filter): a list of patterns "a<d>REGEX<d>" (accept) or
 * "r<d>REGEX<d>" (reject), <d> any delimiter character repeated at the end
 * ("a|^/dev/sd|", "r/.*\/").  Each of a device's names is judged by the first
 * pattern matching it; the device is accepted when one name is, rejected when a name
 * is rejected and none accepted, accepted when no pattern matches any of its names
 * (LVM2's regex filter).  Regexes are POSIX extended.
 *
 * Entry points: lvx_filter_add(), lvx_filter_chain(), lvx_filter_accepts(),
 * lvx_filter_free().
 */
#ifndef LVX_DEV_FILTER_H
#define LVX_DEV_FILTER_H

#include <stdbool.h>

#include "util/ctx.h"

struct lvx_filter;

/* Append one pattern to *f (created on first use).  -EINVAL with a message naming the
 * pattern when it is malformed ("Invalid filter pattern \"x\": ..."). */
int lvx_filter_add(struct lvx_ctx *ctx, struct lvx_filter **f, const char *pattern);
/* Does the filter accept a device known by these names (its path, its canonical
 * name...)?  NULL filter accepts everything.  A list accepting the device by another
 * name than names[0] moves that name to names[0]: LVM2 then reports the device by it
 * (dev_set_preferred_name). */
bool lvx_filter_accepts(const struct lvx_filter *f, const char **names, unsigned count);
/* A filter accepting what both a and b accept (LVM2's global_filter then filter: each
 * list decides on its own).  Takes ownership of both; either may be NULL. */
struct lvx_filter *lvx_filter_chain(struct lvx_filter *a, struct lvx_filter *b);
/* Number of patterns. */
unsigned lvx_filter_count(const struct lvx_filter *f);
void lvx_filter_free(struct lvx_filter *f);

#endif
