/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_restripe.c - model/restripe.c on an LV of a linear segment (2
 * extents) and a 3-stripe one (6 extents), restriped to 2 stripes on pv3 and pv4:
 *   - setup: the hidden reservation LV of 8 extents, the LV LOCKED, found again;
 *   - cuts: multiples of 2 that never split a 3-stripe row (2, then 8: 4 and 6 would);
 *   - the future view maps LEs past the copied prefix to the reservation;
 *   - each step validates and survives export + import, the old extents of its window
 *     appended to the hidden holding LV lv_restripe_old; the last one removes the
 *     reservation and leaves one 2-stripe segment, the LV still LOCKED; the release
 *     then removes the holding LV (the old extents free) and unlocks the LV.
 */
#include "tap.h"

#include <string.h>

#include "format/vg_text.h"
#include "model/alloc.h"
#include "model/model.h"
#include "model/restripe.h"

/* The VG: five PVs of 20 extents (pv0..pv4, written by vg_text()), and the LV. */
static const char vg_head[] =
    "vgrs {\n"
    "id = \"BBBBBB-BBBB-BBBB-BBBB-BBBB-BBBB-BBBBBB\"\n"
    "seqno = 3\n"
    "format = \"lvm2\"\n"
    "status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\n"
    "flags = []\n"
    "extent_size = 8192\n"
    "max_lv = 0\n"
    "max_pv = 0\n"
    "metadata_copies = 0\n"
    "physical_volumes {\n";
static const char vg_tail[] =
    "}\n"
    "logical_volumes {\n"
    "lv {\n"
    "id = \"CCCCCC-CCCC-CCCC-CCCC-CCCC-CCCC-CCCCCC\"\n"
    "status = [\"READ\", \"WRITE\", \"VISIBLE\"]\n"
    "flags = []\n"
    "segment_count = 2\n"
    "segment1 {\n"
    "start_extent = 0\n"
    "extent_count = 2\n"
    "type = \"striped\"\n"
    "stripe_count = 1\n"
    "stripes = [\n"
    "\"pv0\", 0\n"
    "]\n"
    "}\n"
    "segment2 {\n"
    "start_extent = 2\n"
    "extent_count = 6\n"
    "type = \"striped\"\n"
    "stripe_count = 3\n"
    "stripe_size = 128\n"
    "stripes = [\n"
    "\"pv0\", 2,\n"
    "\"pv1\", 0,\n"
    "\"pv2\", 0\n"
    "]\n"
    "}\n"
    "}\n"
    "}\n"
    "}\n";

static void vg_text(struct lvx_buf *b)
{
    lvx_buf_puts(b, vg_head);
    for (int i = 0; i < 5; i++)
        lvx_buf_printf(b, "pv%d {\nid = \"AAAAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAAA%d\"\n"
                       "device = \"/dev/vd%c\"\nstatus = [\"ALLOCATABLE\"]\nflags = []\n"
                       "dev_size = 184320\npe_start = 2048\npe_count = 20\n}\n", i, i, 'a' + i);
    lvx_buf_puts(b, vg_tail);
}

static bool roundtrip(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_vg *vg)
{
    struct lvx_buf b = LVX_BUF_INIT;
    struct lvx_vg *back = NULL;
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_RAW);
    int r = lvx_vg_import_text(ctx, pool, b.data, b.len, &back);
    bool same = r == 0 && back && lvx_vg_find_lv(back, "lv") &&
                lvx_vg_find_lv(back, "lv")->seg_count == lvx_vg_find_lv(vg, "lv")->seg_count;
    lvx_buf_free(&b);
    return same;
}

int main(void)
{
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = NULL;
    struct lvx_buf text = LVX_BUF_INIT;
    lvx_ctx_init(&ctx);
    vg_text(&text);
    if (!ok(lvx_vg_import_text(&ctx, pool, text.data, text.len, &vg) == 0, "imports: %s",
            ctx.errmsg))
        goto out;
    struct lvx_lv *lv = lvx_vg_find_lv(vg, "lv");
    ok(lvx_restripe_rsv(lv) == NULL, "no restripe in progress at first");

    struct lvx_free_maps *maps;
    struct lvx_alloc_pv dst[2] = { { .pv = vg->pvs[3] }, { .pv = vg->pvs[4] } };
    struct lvx_alloc_request req = { .extents = 8, .stripes = 2, .stripe_size = 128,
                                     .policy = LVX_ALLOC_NORMAL, .pv_count = 2, .pvs = dst,
                                     .lv_name = "lv_restripe" };
    struct lvx_alloc_result res;
    is_int(lvx_alloc_free_maps(&ctx, pool, vg, &maps), 0, "free maps");
    is_int(lvx_alloc_extents(&ctx, pool, maps, &req, &res), 0, "8 extents in 2 stripes: %s",
           ctx.errmsg);
    is_int(lvx_restripe_setup(&ctx, lv, &res, 1, "host"), 0, "setup: %s", ctx.errmsg);
    struct lvx_lv *rsv = lvx_restripe_rsv(lv);
    ok(rsv != NULL && !strcmp(rsv->name, "lv_restripe"), "the reservation LV lv_restripe");
    ok(rsv && !(rsv->status & LVX_LV_VISIBLE) && (lv->status & LVX_LV_LOCKED),
       "hidden, and the LV LOCKED");
    ok(rsv && lvx_restripe_is_rsv(rsv) && !lvx_restripe_is_rsv(lv), "is_rsv tells which");
    is_int(lvx_vg_validate(&ctx, vg), 0, "validates after the setup: %s", ctx.errmsg);
    ok(roundtrip(&ctx, pool, vg), "export + import after the setup");
    if (!rsv)
        goto out;
    is_int(lvx_restripe_done(lv, rsv), 0, "nothing copied yet");
    is_int(lvx_restripe_next_cut(lv, rsv, 1), 2, "first cut: 2 (the end of the linear part)");
    is_int(lvx_restripe_step(&ctx, lv, rsv, 2), 0, "step to 2: %s", ctx.errmsg);
    is_int(lvx_restripe_done(lv, rsv), 2, "2 extents on the new layout");
    is_int(rsv->le_count, 6, "the reservation: 6 extents left");
    ok(lv->segs[0].area_count == 2 && lv->segs[0].areas[0].pv == vg->pvs[3] &&
       lv->segs[0].areas[0].start == 0, "LE 0-1: 2 stripes from pv3:0");
    ok(lv->segs[1].start_extent == 2 && lv->segs[1].area_count == 3, "LE 2-7: the old 3 stripes");
    struct lvx_lv *old = lvx_restripe_old(lv);
    ok(old && !strcmp(old->name, "lv_restripe_old") && !(old->status & LVX_LV_VISIBLE) &&
       old->le_count == 2 && old->seg_count == 1 && old->segs[0].area_count == 1 &&
       old->segs[0].areas[0].pv == vg->pvs[0] && old->segs[0].areas[0].start == 0,
       "the old extents of LE 0-1 (pv0:0-1) held by the hidden lv_restripe_old");
    ok(old && lvx_restripe_is_rsv(old), "is_rsv: the holding LV too");
    is_int(lvx_vg_validate(&ctx, vg), 0, "validates after step 1: %s", ctx.errmsg);
    ok(roundtrip(&ctx, pool, vg), "export + import after step 1");

    struct lvx_lv *t = lvx_restripe_target(pool, lv, rsv);
    ok(t->le_count == 8 && t->seg_count == 2 && t->segs[1].start_extent == 2 &&
       t->segs[1].areas[0].pv == vg->pvs[3] && t->segs[1].areas[0].start == 1,
       "the future view: LE 2 on the reservation (pv3:1)");

    is_int(lvx_restripe_next_cut(lv, rsv, 2), 8, "next cut: 8 (4 and 6 split a 3-stripe row)");
    ok(lvx_restripe_step(&ctx, lv, rsv, 6) < 0, "a step to 6 is refused");
    lvx_error_clear(&ctx);
    is_int(lvx_restripe_step(&ctx, lv, rsv, 8), 0, "step to 8: %s", ctx.errmsg);
    ok(lvx_vg_find_lv(vg, "lv_restripe") == NULL, "the reservation LV is gone");
    ok(lv->seg_count == 1 && lv->segs[0].area_count == 2 && lv->segs[0].extent_count == 8 &&
       lv->segs[0].stripe_size == 128, "one 2-stripe segment of 8 extents");
    old = lvx_restripe_old(lv);
    ok((lv->status & LVX_LV_LOCKED) && old && old->le_count == 8 && old->seg_count == 2 &&
       old->segs[1].start_extent == 2 && old->segs[1].area_count == 3 &&
       old->segs[1].areas[0].pv == vg->pvs[0] && old->segs[1].areas[0].start == 2,
       "the LV still LOCKED, every old extent held (LE 2-7's 3 stripes from pv0:2)");
    is_int(lvx_vg_validate(&ctx, vg), 0, "validates after the last step: %s", ctx.errmsg);
    ok(roundtrip(&ctx, pool, vg), "export + import after the last step");
    lvx_restripe_release(lv);
    ok(lvx_vg_find_lv(vg, "lv_restripe_old") == NULL && lvx_restripe_old(lv) == NULL,
       "release: the holding LV is gone");
    ok(!(lv->status & LVX_LV_LOCKED), "the LV unlocked");
    is_int(lvx_vg_validate(&ctx, vg), 0, "validates at the end: %s", ctx.errmsg);
    ok(roundtrip(&ctx, pool, vg), "export + import at the end");
out:
    lvx_buf_free(&text);
    lvx_pool_destroy(pool);
    return tap_done();
}
