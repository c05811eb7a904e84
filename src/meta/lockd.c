/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lockd.c - shared VGs: the lock types lvmlockd manages, LVM2's access rule
 * for them, and the locks lvx takes itself where lvmlockd would (see lockd.h).
 */
#include "meta/lockd.h"
#include "meta/lockd_sanlock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "format/cfg.h"
#include "util/file.h"
#include "util/pool.h"

/* more tries for the VG lease while another host holds it (lvmlockd: none for ex) */
#define LOCK_RETRIES 40

bool lvx_lockd_use(struct lvx_ctx *ctx)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);         /* checked by the dispatcher: default then */
        return false;
    }
    bool use = lvx_config_int(cfg, "global/use_lvmlockd", 0) != 0;
    lvx_config_free(cfg);
    return use;
}

int lvx_lockd_access(struct lvx_ctx *ctx, const struct lvx_vg *vg, bool write)
{
    if (!lvx_vg_is_lockd(vg))
        return 0;
    if (!lvx_lockd_use(ctx))
        return lvx_error(ctx, EPERM, "Cannot access VG %s with lock type %s that requires "
                         "lvmlockd.", vg->name, vg->lock_type);
    if (write)
        return lvx_error(ctx, EAGAIN, "Cannot access VG %s due to failed lock.", vg->name);
    lvx_warn(ctx, "Reading VG %s without a lock.", vg->name);
    return 0;
}

/* ---- sanlock: start, stop, the VG lease ----------------------------------------- */

/* lvm.conf (or --config) local/host_id, else lvmlocal.conf's, as lvmlockd reads it. */
static int64_t host_id(struct lvx_ctx *ctx)
{
    struct lvx_config *cfg = NULL;
    int64_t id = 0;
    if (lvx_config_load(ctx, &cfg) == 0)
        id = lvx_config_int(cfg, "local/host_id", 0);
    else
        lvx_error_clear(ctx);
    lvx_config_free(cfg);
    if (id)
        return id;
    char path[4096];
    snprintf(path, sizeof(path), "%s/lvmlocal.conf", lvx_config_system_dir());
    struct lvx_pool *pool = lvx_pool_create();
    size_t len = 0;
    char *text = lvx_pool_read_file(NULL, pool, path, LVX_FILE_MAX_CONFIG, &len);
    struct lvx_cfg_node *root = NULL;
    if (text && lvx_cfg_parse(NULL, pool, text, len, &root) == 0 && root) {
        const struct lvx_cfg_node *local = lvx_cfg_find(root, "local");
        if (local)
            lvx_cfg_get_int(local, "host_id", &id);
    }
    lvx_pool_destroy(pool);
    return id;
}

/* The lvmlock LV's place on its PV (the last word of the VG's lock_args names it). */
static int lock_area(struct lvx_ctx *ctx, const struct lvx_vg *vg, struct lvx_sanlock_area *a)
{
    const char *name = vg->lock_args ? strrchr(vg->lock_args, ':') : NULL;
    name = name ? name + 1 : "lvmlock";
    const struct lvx_lv *lv = lvx_vg_find_lv(vg, name);
    if (!lv || lv->seg_count == 0 || !lv->segs[0].areas || !lv->segs[0].areas[0].pv)
        return lvx_error(ctx, EINVAL, "VG %s has no lock LV %s.", vg->name, name);
    const struct lvx_pv *pv = lv->segs[0].areas[0].pv;
    if (!pv->ondisk.present || !pv->ondisk.dev_name)
        return lvx_error(ctx, ENODEV, "VG %s start failed: the PV of its lock LV is missing.",
                         vg->name);
    a->path = pv->ondisk.dev_name;
    a->offset = (pv->pe_start + lv->segs[0].areas[0].start * vg->extent_size) * 512;
    a->size = lv->le_count * (uint64_t)vg->extent_size * 512;
    a->sector_size = 0;
    return 0;
}

static int sanlock_only(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    if (strcmp(vg->lock_type, "sanlock") != 0)
        return lvx_error(ctx, ENOTSUP, "VG %s: lvx takes locks of lock type sanlock only, not %s.",
                         vg->name, vg->lock_type);
    return 0;
}

int lvx_lockd_start(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    struct lvx_sanlock_area a;
    int r;
    if ((r = sanlock_only(ctx, vg)) < 0 || (r = lock_area(ctx, vg, &a)) < 0)
        return r;
    int64_t id = host_id(ctx);
    if (id < 1 || id > 2000)
        return lvx_error(ctx, EINVAL, "VG %s start failed: invalid host_id %lld (set local/host_id "
                         "in lvmlocal.conf, 1-2000).", vg->name, (long long)id);
    const char *t = getenv("LVX_SANLOCK_IO_TIMEOUT");
    unsigned timeout = t ? (unsigned)strtoul(t, NULL, 10) : 0;
    return lvx_sanlock_start(ctx, vg->name, &a, (uint64_t)id, timeout);
}

int lvx_lockd_stop(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    int r = sanlock_only(ctx, vg);
    if (r < 0)
        return r;
    r = lvx_sanlock_stop(ctx, vg->name);
    if (r == -ENOENT)
        return 0;                 /* not started: nothing to stop, as LVM2 */
    return r;
}

int lvx_lockd_vg_lock(struct lvx_ctx *ctx, const struct lvx_vg *vg, int *hold)
{
    *hold = 0;
    if (!lvx_lockd_use(ctx))
        return lvx_lockd_access(ctx, vg, true);
    if (strcmp(vg->lock_type, "sanlock") != 0)
        return lvx_error(ctx, EAGAIN, "Cannot access VG %s due to failed lock.", vg->name);
    int sock = -1;
    int r = lvx_sanlock_vg_lock(ctx, vg->name, LOCK_RETRIES, &sock);
    if (r == 0) {
        *hold = sock + 1;
        const char *t = getenv("LVX_TEST_LOCKD_HOLD");   /* tests: a change that lasts */
        if (t)
            sleep((unsigned)strtoul(t, NULL, 10));
    }
    return r;
}

int lvx_lockd_gl_lock(struct lvx_ctx *ctx, int *hold)
{
    *hold = 0;
    if (!lvx_lockd_use(ctx))
        return 0;
    int sock = -1;
    int r = lvx_sanlock_gl_lock(ctx, LOCK_RETRIES, &sock);
    if (r == 0 && sock >= 0)
        *hold = sock + 1;
    return r;
}

void lvx_lockd_vg_unlock(int *hold)
{
    if (*hold > 0) {
        int sock = *hold - 1;
        lvx_sanlock_unlock(&sock);
    }
    *hold = 0;
}

int lvx_lockd_init_lvs(struct lvx_ctx *ctx, struct lvx_vg *vg)
{
    if (!lvx_vg_is_lockd(vg) || strcmp(vg->lock_type, "sanlock") != 0)
        return 0;
    const char *lock_lv = vg->lock_args ? strrchr(vg->lock_args, ':') : NULL;
    lock_lv = lock_lv ? lock_lv + 1 : "lvmlock";
    for (unsigned i = 0; i < vg->lv_count; i++) {
        struct lvx_lv *lv = vg->lvs[i];
        if (lv->lock_args || strcmp(lv->name, lock_lv) == 0 || !lvx_lv_is_visible(lv) ||
            lvx_lv_is_cow(lv) || lvx_lv_is_snapshot_internal(lv) ||
            (lv->seg_count && lv->segs[0].kind == LVX_SEG_THIN))
            continue;
        char dashed[LVX_UUID_DASHED_LEN + 1];
        lvx_uuid_format(lv->uuid, dashed);
        uint64_t off = 0;
        int r = lvx_sanlock_init_lv(ctx, vg->name, dashed, &off);
        if (r < 0)
            return r;
        char text[48];
        snprintf(text, sizeof(text), "1.0.0:%llu", (unsigned long long)off);
        lv->lock_args = lvx_pool_strdup(vg->pool, text);
    }
    return 0;
}

/* The LV's lease: its dashed UUID and the offset its lock_args "1.0.0:<offset>" names;
 * false for an LV without one (thin LVs, snapshots, the lock LV). */
static bool lv_lease(const struct lvx_lv *lv, char *dashed, uint64_t *offset)
{
    const char *off = lv->lock_args ? strrchr(lv->lock_args, ':') : NULL;
    if (!lvx_vg_is_lockd(lv->vg) || strcmp(lv->vg->lock_type, "sanlock") != 0 || !off)
        return false;
    char *end = NULL;
    *offset = strtoull(off + 1, &end, 10);
    if (!end || *end || end == off + 1)
        return false;
    lvx_uuid_format(lv->uuid, dashed);
    return true;
}

const struct lvx_lv *lvx_lockd_lease_owner(const struct lvx_lv *lv)
{
    if (lv->seg_count && lv->segs[0].kind == LVX_SEG_THIN && lv->segs[0].pool_lv)
        lv = lv->segs[0].pool_lv;          /* a thin LV: its pool's lease, as lvmlockd */
    char dashed[LVX_UUID_DASHED_LEN + 1];
    uint64_t off;
    return lv_lease(lv, dashed, &off) ? lv : NULL;
}

/* Kinds the kernel cannot run on two hosts at once: lvmlockd refuses their shared
 * activation (thin LVs through their pool, mirrors, RAID, thin pools, cache). */
static bool no_shared(const struct lvx_lv *lv)
{
    if (!lv->seg_count)
        return false;
    switch (lv->segs[0].kind) {
    case LVX_SEG_THIN: case LVX_SEG_THIN_POOL: case LVX_SEG_MIRROR: case LVX_SEG_RAID:
    case LVX_SEG_CACHE: case LVX_SEG_CACHE_POOL:
        return true;
    default:
        return false;
    }
}

int lvx_lockd_lv_mode_check(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool shared)
{
    const struct lvx_lv *owner = lvx_lockd_lease_owner(lv);
    if (owner && shared && (no_shared(lv) || no_shared(owner)))
        return lvx_error(ctx, EINVAL, "Shared activation not compatible with LV type %s of %s/%s",
                         owner->seg_count ? owner->segs[0].type_name : "", owner->vg->name,
                         owner->name);
    return 0;
}

int lvx_lockd_lv_lock(struct lvx_ctx *ctx, const struct lvx_lv *lv, bool shared,
                      unsigned retries, int *hold)
{
    *hold = 0;
    const struct lvx_lv *owner = lvx_lockd_lease_owner(lv);
    if (!owner)
        return 0;
    int r = lvx_lockd_lv_mode_check(ctx, lv, shared);
    if (r < 0)
        return r;
    char dashed[LVX_UUID_DASHED_LEN + 1];
    uint64_t off;
    lv_lease(owner, dashed, &off);
    lv = owner;
    int sock = -1;
    r = lvx_sanlock_lv_lock(ctx, lv->vg->name, lv->name, dashed, off, shared, retries,
                              &sock);
    if (r == 0)
        *hold = sock + 1;
    return r;
}

void lvx_lockd_lv_unlock(int *hold)
{
    lvx_lockd_vg_unlock(hold);
}

int lvx_lockd_free_lv(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    char dashed[LVX_UUID_DASHED_LEN + 1];
    uint64_t off;
    if (!lv_lease(lv, dashed, &off))
        return 0;
    return lvx_sanlock_free_lv(ctx, lv->vg->name, lv->name, dashed, off);
}
