/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/shared_vg.c - making a VG shared (lock type sanlock) in memory, for vgcreate
 * --shared and vgchange --locktype sanlock: lvmlockd's lock type and arguments, the
 * WRITE_LOCKED flag and the hidden lvmlock LV (the lease area, allocated as lvmlockd
 * sizes it); and whether a new shared VG is the first (it gets the global lock).
 */
#include "cmd/shared_vg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "meta/scan.h"
#include "model/alloc.h"
#include "util/file.h"

/* The sector size lvmlockd would choose for the device (sysfs: 4096 when either block
 * size is 4096, else 512). */
static unsigned device_sector_size(struct lvx_cmd_env *env, const struct lvx_pv *pv)
{
    unsigned size = 512;
    static const char *const names[] = { "physical_block_size", "logical_block_size" };
    for (unsigned i = 0; i < 2 && pv->ondisk.dev_major; i++) {
        char path[128];
        snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/%s", pv->ondisk.dev_major,
                 pv->ondisk.dev_minor, names[i]);
        size_t len;
        const char *text = lvx_pool_read_file(NULL, env->pool, path, 64, &len);
        if (text && strtoul(text, NULL, 10) == 4096)
            size = 4096;
    }
    return size;
}

/* The hidden lvmlock LV (lvmlockd's lease LV), allocated first; its PV place in *area. */
static int add_lock_lv(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_sanlock_area *area)
{
    struct lvx_free_maps *maps;
    if (lvx_alloc_free_maps(env->ctx, env->pool, vg, &maps) < 0)
        return lvx_cmd_fail(env);
    area->sector_size = device_sector_size(env, vg->pvs[0]);
    area->size = lvx_sanlock_lv_bytes(area->sector_size);
    uint64_t ext_bytes = (uint64_t)vg->extent_size * 512;
    struct lvx_alloc_request req = {
        .extents = (area->size + ext_bytes - 1) / ext_bytes,
        .stripes = 1,
        .policy = LVX_ALLOC_CONTIGUOUS,
        .lv_name = "lvmlock",
    };
    struct lvx_alloc_result res;
    if (lvx_alloc_extents(env->ctx, env->pool, maps, &req, &res) < 0)
        return lvx_cmd_fail(env);
    struct lvx_lv *lv = lvx_vg_add_lv(vg);
    struct utsname un;
    lv->name = "lvmlock";
    lvx_uuid_generate(lv->uuid);
    lv->status = LVX_LV_READ;
    lv->flags = LVX_LVF_WRITE_LOCKED;
    lv->has_creation = true;
    lv->creation_time = (uint64_t)time(NULL);
    lv->creation_host = lvx_pool_strdup(vg->pool, uname(&un) == 0 ? un.nodename : "unknown");
    lv->alloc = LVX_ALLOC_INHERIT;
    lv->has_read_ahead = true;
    lv->read_ahead = -1;
    if (lvx_alloc_append(env->ctx, lv, &res) < 0)
        return lvx_cmd_fail(env);
    const struct lvx_alloc_area *a = &res.segs[0].areas[0];
    area->path = a->pv->ondisk.dev_name;
    area->offset = (a->pv->pe_start + a->start * vg->extent_size) * 512;
    return 0;
}

/* The VG gets lvmlockd's lock type and arguments, its
 * WRITE becomes WRITE_LOCKED, and the lvmlock LV is added. */
int lvx_shared_vg_make(struct lvx_cmd_env *env, struct lvx_vg *vg, struct lvx_sanlock_area *area)
{
    vg->lock_type = "sanlock";
    vg->lock_args = "1.0.0:lvmlock";
    vg->status &= ~LVX_VG_WRITE;
    vg->flags |= LVX_VGF_WRITE_LOCKED;
    return add_lock_lv(env, vg, area);
}

/* The global lock lives in the first sanlock VG (lvmlockd): enabled when no other
 * shared VG is seen. */
bool lvx_shared_vg_first(const struct lvx_vgset *set)
{
    for (unsigned i = 0; i < set->vg_count; i++)
        if (lvx_vg_is_lockd(set->vgs[i]))
            return false;
    return true;
}

