/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/devs_used.c - LVM2's check, in its report commands, that the kernel's active
 * LVs still use the devices the VG's metadata names now: when an active LV of a VG
 * sits on a device that is none of the VG's PVs (a PV's disk cloned, or replaced,
 * while the LV stayed active on the old one), each such LV gets "WARNING: Device
 * mismatch detected for VG/LV which is accessing OLD instead of NEW." (OLD: what it
 * sits on and is no PV of the VG; NEW: its PVs' devices no active LV of the VG sits
 * on).  The devices under the active LVs come from sysfs (dev/lv_slaves.c); nothing
 * is read or said when the kernel has no LVM device.
 */
#include "cmd/commands.h"

#include <string.h>

#include "dev/lv_slaves.h"
#include "nodes/dm_nodes.h"

static bool pv_has_dev(const struct lvx_pv *pv, uint32_t ma, uint32_t mi)
{
    return pv->ondisk.present && !(pv->flags & LVX_PVF_MISSING) && pv->ondisk.dev_major == ma &&
           pv->ondisk.dev_minor == mi && (ma || mi);
}

/* Is the device one of vg's PVs (LVM2's DEV_ASSUMED_FOR_LV)? */
static bool assumed(const struct lvx_vg *vg, uint32_t ma, uint32_t mi)
{
    for (unsigned i = 0; i < vg->pv_count; i++)
        if (pv_has_dev(vg->pvs[i], ma, mi))
            return true;
    return false;
}

/* Does an active LV of vg sit on PV pv's device (LVM2's DEV_USED_FOR_LV)? */
static bool used(const struct lvx_lv_slave *sl, unsigned n, const struct lvx_vg *vg,
                 const struct lvx_pv *pv)
{
    for (unsigned i = 0; i < n; i++)
        if (strcmp(sl[i].vgid, vg->uuid) == 0 && pv_has_dev(pv, sl[i].major, sl[i].minor))
            return true;
    return false;
}

static const char *slave_name(struct lvx_pool *pool, const struct lvx_lv_slave *s)
{
    return s->dm_name ? lvx_pool_printf(pool, "%s/mapper/%s", lvx_dm_dev_dir(), s->dm_name)
                      : lvx_pool_printf(pool, "/dev/%s", s->kname);
}

static const char *joined(struct lvx_pool *pool, const char *list, const char *name)
{
    return list ? lvx_pool_printf(pool, "%s, %s", list, name) : name;
}

static void check_lv(struct lvx_cmd_env *env, const struct lvx_lv_slave *sl, unsigned n,
                     const struct lvx_vg *vg, const struct lvx_lv *lv)
{
    const char *old = NULL, *now = NULL;
    for (unsigned i = 0; i < n; i++)
        if (strcmp(sl[i].vgid, vg->uuid) == 0 && strcmp(sl[i].lvid, lv->uuid) == 0 &&
            !assumed(vg, sl[i].major, sl[i].minor))
            old = joined(env->pool, old, slave_name(env->pool, &sl[i]));
    if (!old)
        return;
    for (unsigned s = 0; s < lv->seg_count; s++) {
        const struct lvx_seg *seg = &lv->segs[s];
        for (unsigned a = 0; a < seg->area_count; a++) {
            const struct lvx_pv *pv = seg->areas[a].pv;
            if (pv && pv->ondisk.present && !used(sl, n, vg, pv))
                now = joined(env->pool, now, pv->ondisk.dev_name);
        }
    }
    if (now)
        lvx_warn(env->ctx, "WARNING: Device mismatch detected for %s/%s which is accessing %s "
                 "instead of %s.", vg->name, lv->name, old, now);
}

void lvx_cmd_check_devs_used(struct lvx_cmd_env *env, struct lvx_vg *const *vgs, unsigned count)
{
    struct lvx_lv_slave *sl;
    unsigned n;
    lvx_lv_slaves(env->pool, &sl, &n);
    for (unsigned v = 0; n && v < count; v++) {
        const struct lvx_vg *vg = vgs[v];
        bool strange = false;
        for (unsigned i = 0; i < n && !strange; i++)
            strange = strcmp(sl[i].vgid, vg->uuid) == 0 && !assumed(vg, sl[i].major, sl[i].minor);
        for (unsigned l = 0; strange && l < vg->lv_count; l++)
            check_lv(env, sl, n, vg, vg->lvs[l]);
    }
}
