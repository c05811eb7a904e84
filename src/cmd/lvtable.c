/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvtable.c - `lvx lvtable [VG|VG/LV ...]`: the device-mapper table each LV would
 * be activated with (map/map.h, lvm2-format.md §15), as `dmsetup table` prints it:
 * the bare lines for a single LV, "<dm-name>: <line>" lines when several LVs are
 * shown (all visible LVs of the VGs named, or of every VG, and the hidden _vorigin of
 * each sparse snapshot).  An origin with snapshots
 * and a COW LV have two devices each (snapshot-origin + -real, snapshot + -cow): their
 * lines are always prefixed, other devices of the set named by their kernel device
 * numbers when active (activate/dm_snapshot.c).  A RAID LV's line names its sub-LVs'
 * devices, so it is printed only while they are active (device-mapper).
 */
#include "cmd/lvcmd.h"
#include "cmd/toolkit.h"

#include <string.h>

#include "activate/activate.h"
#include "map/map.h"
#include "model/snapshot.h"

/* "<vg>-<lv>" with '-' inside each name doubled (§15). */
static void dm_name_part(struct lvx_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '-')
            lvx_buf_putc(b, '-');
        lvx_buf_putc(b, *s);
    }
}

static void dm_name(struct lvx_buf *b, const struct lvx_lv *lv)
{
    dm_name_part(b, lv->vg->name);
    lvx_buf_putc(b, '-');
    dm_name_part(b, lv->name);
}

static int table_of(struct lvx_cmd_env *env, struct lvx_buf *out, const struct lvx_lv *lv,
                    bool prefixed)
{
    struct lvx_buf t = LVX_BUF_INIT;
    if (lvx_activation_has_snapshots(lv))     /* two devices each: always prefixed */
        return lvx_activation_dm_set_lines(env->ctx, lv, out) < 0 ? lvx_cmd_fail(env) : 0;
    /* a RAID or mirror LV's line names its active sub-LVs' devices: asked from device-mapper */
    bool stacked = lvx_map_lv_is_raid(lv) || lvx_map_lv_is_mirror(lv);
    int r = stacked ? lvx_activation_dm_table(env->ctx, lv, false, &t)
                    : lvx_map_dm_table(env->ctx, lv, &t);
    if (r < 0) {
        lvx_buf_free(&t);
        return lvx_cmd_fail(env);
    }
    const char *s = lvx_buf_str(&t);
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        if (prefixed) {
            dm_name(out, lv);
            lvx_buf_puts(out, ": ");
        }
        lvx_buf_append(out, s, len);
        lvx_buf_putc(out, '\n');
        s += len + (nl != NULL);
    }
    lvx_buf_free(&t);
    return 0;
}

/* The LVs shown without names: the visible ones and the hidden origins of sparse
 * snapshots (their devices are not the COW LV's). */
static bool shown_lv(const struct lvx_lv *lv)
{
    return lvx_lv_is_visible(lv) || lvx_lv_is_virtual_origin(lv);
}

static int tables(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *out,
                  void *arg)
{
    bool failed = false;
    unsigned shown = 0;
    for (unsigned i = 0; i < sel->vg_count; i++)
        for (unsigned j = 0; j < sel->vgs[i]->lv_count; j++)
            shown += sel->only_named || shown_lv(sel->vgs[i]->lvs[j]);
    for (unsigned i = 0; i < sel->vg_count; i++) {
        for (unsigned j = 0; j < sel->vgs[i]->lv_count; j++) {
            const struct lvx_lv *lv = sel->vgs[i]->lvs[j];
            if (!sel->only_named && !shown_lv(lv))
                continue;
            if (table_of(env, out, lv, shown > 1))
                failed = true;
        }
    }
    return failed ? LVX_EXIT_FAILED : 0;
}

int lvx_cmd_lvtable(struct lvx_cmd_env *env)
{
    return lvx_process_read(env, LVX_TK_LVS, tables, NULL);
}
