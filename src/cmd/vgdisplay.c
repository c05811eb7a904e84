/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/vgdisplay.c - `lvx vgdisplay [VG ...]`: LVM2's multi-line VG display;
 * -v adds the VG's LVs and PVs, -c one colon separated line, -s one short line,
 * -A only the VGs with an active LV, -C the vgs report.
 */
#include "cmd/toolkit.h"

#include "cmd/actcmd.h"

static unsigned vg_mda_count(const struct lvx_vg *vg)
{
    unsigned n = 0;
    for (unsigned i = 0; i < vg->pv_count; i++)
        n += vg->pvs[i]->ondisk.mda_count;
    return n;
}

static unsigned vg_present_pvs(const struct lvx_vg *vg)
{
    unsigned n = 0;
    for (unsigned i = 0; i < vg->pv_count; i++)
        n += vg->pvs[i]->ondisk.present;
    return n;
}

static bool vg_writable(const struct lvx_vg *vg)
{
    return (vg->status & LVX_VG_WRITE) || (vg->flags & LVX_VGF_WRITE_LOCKED);
}

/* "Open LV": the VG's visible LVs whose device is open (0 when activation is off). */
static unsigned vg_open_lvs(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                            const struct lvx_vg *vg)
{
    unsigned n = 0;
    for (unsigned i = 0; i < vg->lv_count; i++)
        n += lvx_lv_is_visible(vg->lvs[i]) && lvx_cmd_display_lv_open(env, act, vg->lvs[i]);
    return n;
}

static void display_vg_full(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                            struct lvx_buf *b, const struct lvx_vg *vg)
{
    char units = env->args->units;
    uint64_t unit_bytes = env->args->unit_bytes;
    char uuid[LVX_UUID_DASHED_LEN + 1];
    uint64_t total = lvx_vg_extent_count(vg), free_pe = lvx_vg_free_count(vg);
    uint64_t alloc = total - free_pe;

    lvx_uuid_format(vg->uuid, uuid);
    lvx_buf_puts(b, "  --- Volume group ---\n");
    lvx_buf_printf(b, "  VG Name               %s\n", vg->name);
    lvx_buf_printf(b, "  System ID             %s\n", vg->system_id ? vg->system_id : "");
    lvx_buf_printf(b, "  Format                %s\n", vg->format ? vg->format : "lvm2");
    lvx_buf_printf(b, "  Metadata Areas        %u\n", vg_mda_count(vg));
    lvx_buf_printf(b, "  Metadata Sequence No  %u\n", vg->seqno);
    lvx_buf_printf(b, "  VG Access             %s\n", vg_writable(vg) ? "read/write" : "read");
    lvx_buf_printf(b, "  VG Status             %s%s\n",
                   vg->status & LVX_VG_EXPORTED ? "exported/" : "",
                   vg->status & LVX_VG_RESIZEABLE ? "resizable" : "");
    if (vg->status & LVX_VG_CLUSTERED)
        lvx_buf_puts(b, "  Clustered             yes\n");
    if (vg->status & LVX_VG_SHARED)
        lvx_buf_puts(b, "  Shared                yes\n");
    lvx_buf_printf(b, "  MAX LV                %u\n", vg->max_lv);
    lvx_buf_printf(b, "  Cur LV                %u\n", lvx_vg_visible_lv_count(vg));
    lvx_buf_printf(b, "  Open LV               %u\n", vg_open_lvs(env, act, vg));
    lvx_buf_printf(b, "  Max PV                %u\n", vg->max_pv);
    lvx_buf_printf(b, "  Cur PV                %u\n", vg->pv_count);
    lvx_buf_printf(b, "  Act PV                %u\n", vg_present_pvs(vg));
    lvx_buf_printf(b, "  VG Size               %s\n",
                   lvx_cmd_size_str(env->pool, total * vg->extent_size, units, unit_bytes));
    lvx_buf_printf(b, "  PE Size               %s\n",
                   lvx_cmd_size_str(env->pool, vg->extent_size, units, unit_bytes));
    lvx_buf_printf(b, "  Total PE              %llu\n", (unsigned long long)total);
    lvx_buf_printf(b, "  Alloc PE / Size       %llu / %s\n", (unsigned long long)alloc,
                   lvx_cmd_size_str(env->pool, alloc * vg->extent_size, units, unit_bytes));
    lvx_buf_printf(b, "  Free  PE / Size       %llu / %s\n", (unsigned long long)free_pe,
                   lvx_cmd_size_str(env->pool, free_pe * vg->extent_size, units, unit_bytes));
    lvx_buf_printf(b, "  VG UUID               %s\n", uuid);
    lvx_buf_puts(b, "   \n");
}

/* vgdisplay -v: the VG's LVs, then its PVs. */
static void display_vg_verbose(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                               struct lvx_buf *b, const struct lvx_vg *vg)
{
    unsigned n;
    const struct lvx_lv **lvs = lvx_cmd_display_order(env->pool, vg, &n);
    for (unsigned i = 0; i < n; i++)
        if (lvx_lv_is_visible(lvs[i]) && !lvx_lv_is_snapshot_internal(lvs[i]))
            lvx_cmd_display_lv_full(env, act, b, lvs[i], false);
    lvx_buf_puts(b, "  --- Physical volumes ---\n");
    for (unsigned i = 0; i < vg->pv_count; i++) {
        const struct lvx_pv *pv = vg->pvs[i];
        char uuid[LVX_UUID_DASHED_LEN + 1];
        lvx_uuid_format(pv->uuid, uuid);
        lvx_buf_printf(b, "  PV Name               %s     \n", lvx_cmd_pv_name(pv));
        lvx_buf_printf(b, "  PV UUID               %s\n", uuid);
        lvx_buf_printf(b, "  PV Status             %sallocatable\n",
                       pv->status & LVX_PV_ALLOCATABLE ? "" : "NOT ");
        lvx_buf_printf(b, "  Total PE / Free PE    %u / %llu\n", pv->pe_count,
                       (unsigned long long)(pv->pe_count - lvx_pv_alloc_count(pv)));
        lvx_buf_puts(b, "   \n");
    }
}

/* name:access:status:-1:max_lv:cur_lv:open_lv:-1:max_pv:cur_pv:act_pv:size_kib:pe_kib:
 * total_pe:alloc_pe:free_pe:uuid */
static void display_vg_colon(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             struct lvx_buf *b, const struct lvx_vg *vg)
{
    char uuid[LVX_UUID_DASHED_LEN + 1];
    uint64_t total = lvx_vg_extent_count(vg), free_pe = lvx_vg_free_count(vg);
    unsigned status = (vg->status & LVX_VG_READ ? 0x100 : 0) | (vg_writable(vg) ? 0x200 : 0) |
                      (vg->status & LVX_VG_RESIZEABLE ? 0x4 : 0) |
                      (vg->status & LVX_VG_EXPORTED ? 0x2 : 0);

    lvx_uuid_format(vg->uuid, uuid);
    lvx_buf_printf(b, "  %s:%s:%u:-1:%u:%u:%u:-1:%u:%u:%u:%llu:%u:%llu:%llu:%llu:%s\n", vg->name,
                   vg_writable(vg) ? "r/w" : "r", status, vg->max_lv,
                   lvx_vg_visible_lv_count(vg), vg_open_lvs(env, act, vg), vg->max_pv, vg->pv_count, vg_present_pvs(vg),
                   (unsigned long long)(total * vg->extent_size / 2), vg->extent_size / 2,
                   (unsigned long long)total, (unsigned long long)(total - free_pe),
                   (unsigned long long)free_pe, uuid);
}

static void display_vg_short(struct lvx_cmd_env *env, struct lvx_buf *b, const struct lvx_vg *vg)
{
    char units = env->args->units;
    uint64_t unit_bytes = env->args->unit_bytes;
    uint64_t total = lvx_vg_extent_count(vg), free_pe = lvx_vg_free_count(vg);
    lvx_buf_printf(b, "  \"%s\" %-9s [%-9s used / %s free]\n", vg->name,
                   lvx_cmd_size_str(env->pool, total * vg->extent_size, units, unit_bytes),
                   lvx_cmd_size_str(env->pool, (total - free_pe) * vg->extent_size, units, unit_bytes),
                   lvx_cmd_size_str(env->pool, free_pe * vg->extent_size, units, unit_bytes));
}

static bool vg_has_active_lv(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                             const struct lvx_vg *vg)
{
    for (unsigned i = 0; act->be && !act->off && i < vg->lv_count; i++)
        if (lvx_actcmd_is_active(env, act, vg->lvs[i], NULL))
            return true;
    return false;
}

static int display_vgs(struct lvx_cmd_env *env, const struct lvx_tk_sel *sel, struct lvx_buf *b,
                       void *arg)
{
    struct lvx_actcmd act;
    int rc = lvx_actcmd_init(env, &act);
    if (rc)
        return rc;
    for (unsigned i = 0; i < sel->vg_count; i++) {
        if (env->args->count[LVX_OPT_ACTIVEVOLUMEGROUPS] && !vg_has_active_lv(env, &act, sel->vgs[i]))
            continue;                 /* -A: only VGs with an active LV, as LVM2 */
        if (env->args->count[LVX_OPT_COLON]) {
            display_vg_colon(env, &act, b, sel->vgs[i]);
        } else if (env->args->count[LVX_OPT_SHORT]) {
            display_vg_short(env, b, sel->vgs[i]);
        } else {
            display_vg_full(env, &act, b, sel->vgs[i]);
            if (env->args->count[LVX_OPT_VERBOSE])
                display_vg_verbose(env, &act, b, sel->vgs[i]);
        }
    }
    return 0;
}

int lvx_cmd_vgdisplay(struct lvx_cmd_env *env)
{
    return lvx_process_display(env, LVX_TK_VGS, lvx_cmd_vgs, display_vgs);
}
