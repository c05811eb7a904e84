/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/mda_pvs.c - the PV UUIDs a scanned metadata copy lists (meta/mda_pvs.h), read
 * from the copy's parsed text: the first section (the VG), its physical_volumes, each
 * PV's id.
 */
#include "meta/mda_pvs.h"

#include "format/cfg.h"
#include "model/model.h"

bool lvx_mda_lists_pv(const struct lvx_scan_mda *m,
                      bool (*has)(const void *arg, const char *raw_uuid), const void *arg)
{
    const struct lvx_cfg_node *vg = NULL;
    for (const struct lvx_cfg_node *c = m->tree ? m->tree->child : NULL; c && !vg; c = c->next)
        if (c->kind == LVX_CFG_SECTION)
            vg = c;
    const struct lvx_cfg_node *pvs = vg ? lvx_cfg_find(vg, "physical_volumes") : NULL;
    if (!pvs || pvs->kind != LVX_CFG_SECTION)
        return true;
    for (const struct lvx_cfg_node *pv = pvs->child; pv; pv = pv->next) {
        const struct lvx_cfg_node *id = pv->kind == LVX_CFG_SECTION ? lvx_cfg_find(pv, "id") : NULL;
        char raw[LVX_UUID_LEN + 1];
        if (id && id->kind == LVX_CFG_STRING && lvx_uuid_parse(id->str, raw) == 0 &&
            has(arg, raw))
            return true;
    }
    return false;
}
