/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/vg_flags.c - the status/flags words of VG, PV and LV sections
 * (lvm2-format.md §10.6), in writing order.  Used by the importer (to decode and
 * to refuse unknown status words) and the exporter (to write them in order).
 */
#include "format/vg_text_priv.h"
#include "model/model.h"

const struct lvx_flag_word lvx_vg_flag_words[] = {
    { "EXPORTED", LVX_VG_EXPORTED, false },
    { "RESIZEABLE", LVX_VG_RESIZEABLE, false },
    { "PARTIAL", 0, false },
    { "PVMOVE", LVX_VG_PVMOVE, false },
    { "READ", LVX_VG_READ, false },
    { "WRITE", LVX_VG_WRITE, false },
    { "CLUSTERED", LVX_VG_CLUSTERED, false },
    { "SHARED", LVX_VG_SHARED, false },
    { "WRITE_LOCKED", LVX_VGF_WRITE_LOCKED, true },
    { "NOAUTOACTIVATE", LVX_VGF_NOAUTOACTIVATE, true },
    { NULL, 0, false },
};

const struct lvx_flag_word lvx_pv_flag_words[] = {
    { "ALLOCATABLE", LVX_PV_ALLOCATABLE, false },
    { "EXPORTED", LVX_PV_EXPORTED, false },
    { "MISSING", LVX_PVF_MISSING, true },
    { NULL, 0, false },
};

const struct lvx_flag_word lvx_lv_flag_words[] = {
    { "READ", LVX_LV_READ, false },
    { "WRITE", LVX_LV_WRITE, false },
    { "FIXED_MINOR", LVX_LV_FIXED_MINOR, false },
    { "VISIBLE", LVX_LV_VISIBLE, false },
    { "PVMOVE", LVX_LV_PVMOVE, false },
    { "LOCKED", LVX_LV_LOCKED, false },
    { "NOTSYNCED", LVX_LV_NOTSYNCED, false },
    { "REBUILD", LVX_LV_REBUILD, false },
    { "WRITEMOSTLY", LVX_LV_WRITEMOSTLY, false },
    { "WRITE_LOCKED", LVX_LVF_WRITE_LOCKED, true },
    { "ACTIVATION_SKIP", LVX_LVF_ACTIVATION_SKIP, true },
    { "NOAUTOACTIVATE", LVX_LVF_NOAUTOACTIVATE, true },
    { "ERROR_WHEN_FULL", LVX_LVF_ERROR_WHEN_FULL, true },
    { "CACHE_VOL", LVX_LVF_CACHE_VOL, true },
    { NULL, 0, false },
};
