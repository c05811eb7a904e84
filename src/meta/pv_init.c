/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/pv_init.c - PV-level label / mda header operations of the pv* commands
 * (see pv_init.h).
 */
#include "meta/pv_init.h"

#include <string.h>

#include "dev/dev.h"

void lvx_pv_label_from_layout(struct lvx_label *label, const struct lvx_pv_layout *layout,
                              const char raw_uuid[LVX_UUID_LEN + 1], uint64_t device_size,
                              unsigned sector)
{
    memset(label, 0, sizeof(*label));
    label->sector = sector;
    label->offset = 32;
    memcpy(label->pv_uuid, raw_uuid, LVX_UUID_LEN);
    label->pv_uuid[LVX_UUID_LEN] = '\0';
    label->device_size = device_size;
    label->data_count = 1;
    label->data[0].offset = layout->pe_start;
    label->data[0].size = 0;
    label->mda_count = layout->mda_count;
    for (unsigned i = 0; i < layout->mda_count; i++) {
        label->mda[i].offset = layout->mda_start[i];
        label->mda[i].size = layout->mda_size[i];
    }
    label->ext_version = 2;
    label->ext_flags = 0;
    if (layout->ba_size) {
        label->ba_count = 1;
        label->ba[0].offset = layout->ba_start;
        label->ba[0].size = layout->ba_size;
    }
}

int lvx_pv_set_orphan_mdas_ignored(struct lvx_ctx *ctx, struct lvx_scan_pv *spv, bool ignored)
{
    for (unsigned m = 0; m < spv->mda_count; m++) {
        struct lvx_scan_mda *sm = &spv->mda[m];
        if (!sm->hdr_valid)
            continue;
        struct lvx_mda_header h = sm->hdr;
        if (ignored)
            h.slot[0].flags |= LVX_RAW_LOCN_IGNORED;
        else
            h.slot[0].flags &= ~LVX_RAW_LOCN_IGNORED;
        uint8_t sector[LVX_MDA_HEADER_SIZE];
        lvx_mda_header_encode(&h, sector);
        int r = lvx_dev_write(ctx, spv->dev, sector, sizeof(sector), h.start);
        if (r < 0)
            return r;
        sm->hdr = h;
        sm->ignored = ignored;
    }
    return lvx_dev_flush(ctx, spv->dev);
}

const char *lvx_pv_scanned_vg_name(const struct lvx_scan_pv *spv)
{
    for (unsigned m = 0; m < spv->mda_count; m++)
        if (spv->mda[m].vg_name[0] && !spv->mda[m].ignored && !spv->mda[m].bad)
            return spv->mda[m].vg_name;
    return NULL;
}

bool lvx_pv_scanned_in_vg(const struct lvx_scan_pv *spv)
{
    return lvx_pv_scanned_vg_name(spv) != NULL ||
           (spv->label.ext_version >= 2 && (spv->label.ext_flags & LVX_PV_EXT_USED));
}

int lvx_pv_plan_label(struct lvx_ctx *ctx, struct lvx_pv_layout_req req, struct lvx_dev *dev,
                      const char *raw_uuid, unsigned sector, struct lvx_label *out)
{
    struct lvx_pv_layout layout;
    char uuid[LVX_UUID_LEN + 1];
    lvx_dev_read_topology(dev);
    req.io_min = dev->io_min;
    req.io_opt = dev->io_opt;
    req.topo_alignment_offset = dev->alignment_offset;
    int rc = lvx_pv_layout_compute(ctx, &req, &layout);
    if (rc < 0)
        return rc;
    if (raw_uuid)
        memcpy(uuid, raw_uuid, sizeof(uuid));
    else if ((rc = lvx_uuid_generate(uuid)) < 0)
        return lvx_error(ctx, -rc, "Cannot generate a UUID: %s", strerror(-rc));
    lvx_pv_label_from_layout(out, &layout, uuid, req.dev_size, sector);
    return 0;
}
