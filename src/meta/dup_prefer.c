/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/dup_prefer.c - the preferred device of a duplicated PV (see dup_prefer.h).
 */
#include "meta/dup_prefer.h"
#include "format/cfg.h"
#include "model/model.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The physical_volumes entry of PV UUID `dashed` in a VG text tree, or NULL. */
static const struct lvx_cfg_node *pv_section(const struct lvx_cfg_node *root, const char *dashed)
{
    for (const struct lvx_cfg_node *vg = root ? root->child : NULL; vg; vg = vg->next) {
        if (vg->kind != LVX_CFG_SECTION)
            continue;
        const struct lvx_cfg_node *pvs = lvx_cfg_find(vg, "physical_volumes");
        for (const struct lvx_cfg_node *pv = pvs ? pvs->child : NULL; pv; pv = pv->next) {
            const char *id;
            if (pv->kind == LVX_CFG_SECTION && lvx_cfg_get_str(pv, "id", &id) == 0 &&
                strcmp(id, dashed) == 0)
                return pv;
        }
    }
    return NULL;
}

/* The VG metadata's record of the PV (LVM2's PV summary): from the PV's own areas
 * first, then from any other PV's. */
static const struct lvx_cfg_node *pv_summary(const struct lvx_scan *scan, unsigned p,
                                             const char *dashed)
{
    for (unsigned k = 0; k <= scan->pv_count; k++) {
        unsigned q = k == 0 ? p : k - 1;           /* p itself, then all of them */
        if (k > 0 && q == p)
            continue;
        for (unsigned i = 0; i < scan->pvs[q].mda_count; i++) {
            const struct lvx_cfg_node *s = pv_section(scan->pvs[q].mda[i].tree, dashed);
            if (s)
                return s;
        }
    }
    return NULL;
}

void lvx_dup_facts_of(const struct lvx_scan *scan, unsigned p,
                      const struct lvx_lvdev_probe *probe, struct lvx_dup_facts *out)
{
    const struct lvx_dev *dev = scan->pvs[p].dev;
    char dashed[LVX_UUID_DASHED_LEN + 1];
    lvx_uuid_format(scan->pvs[p].label.pv_uuid, dashed);
    memset(out, 0, sizeof(*out));
    out->is_dm = !dev->is_file && probe->dm_major >= 0 && dev->major == (uint32_t)probe->dm_major;
    out->used_by_lv = !dev->is_file && lvx_lvdev_used_by_lv(dev->major, dev->minor);
    const struct lvx_cfg_node *s = pv_summary(scan, p, dashed);
    int64_t size;
    const char *hint;
    if (s && lvx_cfg_get_int(s, "dev_size", &size) == 0)
        out->size_correct = (uint64_t)size * 512 == dev->size;
    if (s && lvx_cfg_get_str(s, "device", &hint) == 0)
        out->name_matches = strcmp(hint, dev->path) == 0;
}

bool lvx_dup_prefer_second(const struct lvx_dup_facts *a, const struct lvx_dup_facts *b,
                           const char **reason)
{
    static const struct {
        size_t offset;
        const char *why;
    } order[] = {
        { offsetof(struct lvx_dup_facts, used_by_lv), "device is used by LV" },
        { offsetof(struct lvx_dup_facts, size_correct), "device size is correct" },
        { offsetof(struct lvx_dup_facts, name_matches), "device name matches previous" },
        { offsetof(struct lvx_dup_facts, is_dm), "device is in dm subsystem" },
    };
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        bool x = *(const bool *)((const char *)a + order[i].offset);
        bool y = *(const bool *)((const char *)b + order[i].offset);
        if (x != y) {
            *reason = order[i].why;
            return y;
        }
    }
    *reason = "device was seen first";
    return false;
}
