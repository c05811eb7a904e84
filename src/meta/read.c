/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/read.c - the VG read front (see read.h): the choice between the session cache,
 * the device index and every device; the plain scanner (meta/scan.c) reads, the
 * assembly (meta/assemble.c) builds the VGs, and this file refreshes the index after
 * a full read.
 * Entry points: lvx_scan(), lvx_scan_uncached(), lvx_scan_free(), lvx_read_vgs(),
 * lvx_scan_assemble(), lvx_scan_assemble_from().
 */
#include "meta/read.h"
#include "meta/cache.h"
#include "meta/index.h"

#include <errno.h>

int lvx_scan(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts, struct lvx_scan **out)
{
    if (ctx->cache) {
        int rc = lvx_cache_scan(ctx, opts, out);   /* a session's cache (meta/cache.c) */
        if (rc != -EBUSY)
            return rc;
        return lvx_scan_uncached(ctx, opts, out);   /* nested use within one command */
    }
    if (opts && opts->vg_names && !opts->devices && !opts->named) {
        int rc = lvx_index_scan(ctx, opts, out);  /* only the named VGs' devices */
        if (rc != -ESTALE)
            return rc;
    }
    return lvx_scan_uncached(ctx, opts, out);
}

int lvx_scan_uncached(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                      struct lvx_scan **out)
{
    *out = NULL;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_devlist devs;
    bool named = opts && (opts->devices || opts->named);
    uint64_t key = named ? 0 : lvx_scan_list_key_hash(ctx);   /* before the list: see scan.h */
    int rc = 0;
    if (named || lvx_index_listed_devices(ctx, pool, key, &devs) < 0)
        rc = lvx_scan_list_devices(ctx, opts, pool, &devs);
    if (rc < 0) {
        lvx_pool_destroy(pool);
        return rc;
    }
    uint64_t hash = named ? 0 : lvx_index_hash_devices(&devs);
    rc = lvx_scan_devices(ctx, pool, &devs, named, out);
    if (rc == 0 && !named) {
        struct lvx_scan_origin *o = lvx_scan_origin(*out);
        o->full_system = true;
        o->devs_hash = hash;
        o->list_key_hash = key;
    }
    return rc;
}

void lvx_scan_free(struct lvx_scan *scan)
{
    if (scan && scan->origin && scan->origin->cache)
        lvx_cache_return(scan->origin->cache, scan);   /* lent by a session's cache: kept */
    else
        lvx_scan_release(scan);
}

int lvx_read_vgs(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_vgset **set)
{
    int rc = lvx_scan_vgs(ctx, scan, set);
    if (rc == 0 && scan->origin && scan->origin->full_system)
        lvx_index_update(ctx, scan, *set);     /* every device seen: refresh meta/index.c */
    return rc;
}

/* ---- scan + assembly with the fallback ------------------------------------------------ */

struct log_counter {
    unsigned messages;
};

static void count_message(void *arg, int level, const char *msg)
{
    (void)msg;
    if (level <= LVX_LOG_WARN)
        ((struct log_counter *)arg)->messages++;
}

int lvx_scan_assemble(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                      struct lvx_scan **scan, struct lvx_vgset **set)
{
    *scan = NULL;
    *set = NULL;
    int rc = lvx_scan(ctx, opts, scan);
    if (rc < 0)
        return rc;
    return lvx_scan_assemble_from(ctx, opts, scan, set);
}

int lvx_scan_assemble_from(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                           struct lvx_scan **scan, struct lvx_vgset **set)
{
    int rc;
    *set = NULL;
    if (!(*scan)->origin || !(*scan)->origin->narrowed)
        return lvx_read_vgs(ctx, *scan, set);

    /* narrowed: assemble quietly, keep it only when nothing was out of the ordinary */
    struct log_counter counter = { 0 };
    lvx_log_cb saved_fn = ctx->log_fn;
    void *saved_arg = ctx->log_arg;
    unsigned saved_warnings = ctx->warnings;
    bool saved_clash = ctx->name_clash_said;
    ctx->log_fn = count_message;          /* held back: printed by the full pass if needed */
    ctx->log_arg = &counter;
    rc = lvx_scan_vgs(ctx, *scan, set);
    ctx->log_fn = saved_fn;
    ctx->log_arg = saved_arg;
    ctx->name_clash_said = saved_clash;
    bool clean = counter.messages == 0 && ctx->warnings == saved_warnings;
    ctx->warnings = saved_warnings;
    if (rc == 0 && clean && lvx_index_vgs_whole(*set, opts->vg_names, opts->vg_name_count))
        return 0;
    lvx_error_clear(ctx);
    lvx_debug(ctx, "Device index: the volume group(s) read from the indexed devices are not "
              "whole or not clean; reading every device");
    lvx_vgset_free(*set);
    lvx_scan_free(*scan);
    *set = NULL;
    *scan = NULL;
    struct lvx_scan_opts all = *opts;
    all.vg_names = NULL;
    all.vg_name_count = 0;
    if ((rc = lvx_scan(ctx, &all, scan)) < 0)
        return rc;
    return lvx_read_vgs(ctx, *scan, set);
}

