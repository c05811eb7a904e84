/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_pvmove.c - model/pvmove.c on LVM2's own metadata of a running pvmove
 * (tests/fixtures/lvm2/pvmove_in_progress/during.vg: "one" half moved, its first
 * segment copied, "two" not copied yet):
 *   - the mirror segments written from typed fields (no raw section) are LVM2's text;
 *   - find / source / copied count as LVM2 does;
 *   - detach (the end of the move, or --abort): the complete segment takes its new
 *     area, the other its old one, LOCKED goes, pvmove0 becomes one error segment
 *     without PVMOVE; the result validates and survives export + import;
 *   - adjacent segments merge only when they continue each other on the same PV;
 *   - an atomic move (tests/fixtures/lvm2/pvmove_atomic/setup.vg, LVM2's pvmove --atomic
 *     setup): written back as LVM2's text, found, its source; detach copied keeps the new
 *     areas, detach --abort the old ones, both drop the images.
 */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include "format/vg_text.h"
#include "model/model.h"
#include "model/pvmove.h"

static struct lvx_vg *load(struct lvx_ctx *ctx, struct lvx_pool *pool, char **text)
{
    struct lvx_vg *vg = NULL;
    *text = fixture_read_file("pvmove_in_progress", "during.vg", NULL);
    if (!*text || lvx_vg_import_text(ctx, pool, *text, strlen(*text), &vg) < 0)
        return NULL;
    return vg;
}

static void test_typed_mirror(void)
{
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    char *text;
    lvx_ctx_init(&ctx);
    struct lvx_vg *vg = load(&ctx, pool, &text);
    if (!ok(vg != NULL, "during.vg imports: %s", ctx.errmsg))
        goto out;
    struct lvx_buf a = LVX_BUF_INIT, b = LVX_BUF_INIT;
    lvx_vg_export_text(&a, vg, NULL, LVX_CFG_LAYOUT_RAW);
    struct lvx_lv *mv = lvx_vg_find_lv(vg, "pvmove0");
    for (unsigned s = 0; s < mv->seg_count; s++)
        mv->segs[s].raw = NULL;
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_RAW);
    is_str(b.data, a.data, "pvmove mirror segments from typed fields: LVM2's text");
    is_int(mv->segs[0].extents_moved, 2, "extents_moved read (segment 1)");
    is_int(mv->segs[1].extents_moved, 0, "extents_moved read (segment 2)");
    lvx_buf_free(&a);
    lvx_buf_free(&b);
out:
    free(text);
    lvx_pool_destroy(pool);
}

static void test_find_detach(void)
{
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    char *text;
    lvx_ctx_init(&ctx);
    struct lvx_vg *vg = load(&ctx, pool, &text);
    if (!ok(vg != NULL, "during.vg imports: %s", ctx.errmsg))
        goto out;
    struct lvx_lv *mv = lvx_vg_find_lv(vg, "pvmove0");
    ok(lvx_pvmove_find(vg, vg->pvs[0]) == mv, "the move off pv0 is pvmove0");
    ok(lvx_pvmove_find(vg, vg->pvs[1]) == NULL, "no move off pv1");
    ok(lvx_pvmove_source(mv) == vg->pvs[0], "source: pv0");
    is_int(lvx_pvmove_copied(mv), 2, "2 of 5 extents copied (LVM2's copy_percent 40%%)");
    struct lvx_lv *users[8];
    is_int(lvx_pvmove_users(vg, mv, users), 2, "two LVs use pvmove0");
    is_str(lvx_pvmove_free_name(vg), "pvmove1", "the next pvmove LV name");

    is_int(lvx_pvmove_detach(&ctx, vg, mv, false), 0, "detach: %s", ctx.errmsg);
    struct lvx_lv *one = lvx_vg_find_lv(vg, "one"), *two = lvx_vg_find_lv(vg, "two");
    ok(one->segs[0].areas[0].pv == vg->pvs[2] && one->segs[0].areas[0].start == 0,
       "one: the copied segment is on its new PV (pv2:0)");
    is_int(one->seg_count, 2, "one: its second segment (pv1:1) is not merged with pv2:0-1");
    ok(two->segs[0].areas[0].pv == vg->pvs[0] && two->segs[0].areas[0].start == 2,
       "two: not copied, back on its old extents (pv0:2)");
    ok(!(one->status & LVX_LV_LOCKED) && !(two->status & LVX_LV_LOCKED), "LOCKED cleared");
    ok(mv->seg_count == 1 && mv->segs[0].kind == LVX_SEG_ERROR && mv->le_count == 5,
       "pvmove0: one error segment of 5 extents");
    ok(!(mv->status & (LVX_LV_PVMOVE | LVX_LV_LOCKED)), "pvmove0: no PVMOVE, no LOCKED");
    ok(lvx_pvmove_is_leftover(vg, mv), "pvmove0 is a leftover a resume removes");
    ok(lvx_pvmove_find(vg, NULL) == NULL, "no move in progress any more");
    is_int(lvx_vg_validate(&ctx, vg), 0, "the VG validates: %s", ctx.errmsg);
    struct lvx_buf b = LVX_BUF_INIT;
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_RAW);
    ok(strstr(b.data, "type = \"error\"") != NULL, "the error segment is written");
    struct lvx_vg *back = NULL;
    is_int(lvx_vg_import_text(&ctx, pool, b.data, b.len, &back), 0, "and imports again: %s",
           ctx.errmsg);
    lvx_vg_remove_lv(vg, mv);
    is_int(lvx_vg_validate(&ctx, vg), 0, "without pvmove0: validates");
    lvx_buf_free(&b);
out:
    free(text);
    lvx_pool_destroy(pool);
}

static void test_merge(void)
{
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    char *text;
    lvx_ctx_init(&ctx);
    struct lvx_vg *vg = load(&ctx, pool, &text);
    if (!ok(vg != NULL, "during.vg imports: %s", ctx.errmsg))
        goto out;
    struct lvx_lv *mv = lvx_vg_find_lv(vg, "pvmove0");
    mv->segs[1].extents_moved = 3;              /* both copied */
    is_int(lvx_pvmove_detach(&ctx, vg, mv, false), 0, "detach with both segments copied");
    struct lvx_lv *one = lvx_vg_find_lv(vg, "one");
    struct lvx_lv *three = lvx_vg_find_lv(vg, "three");
    /* make three continue one's first segment on pv2: pv2:0-1 then pv2:2-4 are "two" */
    ok(lvx_vg_find_lv(vg, "two")->segs[0].areas[0].pv == vg->pvs[2], "two on pv2 now");
    one->segs[1].areas[0].pv = vg->pvs[2];       /* pretend one's 2nd segment is pv2:2 */
    one->segs[1].areas[0].start = 2;
    lvx_lv_merge_segments(one);
    is_int(one->seg_count, 1, "segments continuing each other on one PV merge");
    is_int(one->segs[0].extent_count, 3, "... into one of 3 extents");
    lvx_lv_merge_segments(three);
    is_int(three->seg_count, 1, "a single segment stays");
out:
    free(text);
    lvx_pool_destroy(pool);
}

static struct lvx_vg *load_atomic(struct lvx_ctx *ctx, struct lvx_pool *pool, char **text)
{
    struct lvx_vg *vg = NULL;
    *text = fixture_read_file("pvmove_atomic", "setup.vg", NULL);
    if (!*text || lvx_vg_import_text(ctx, pool, *text, strlen(*text), &vg) < 0)
        return NULL;
    return vg;
}

static void test_atomic(bool abort)
{
    struct lvx_ctx ctx;
    struct lvx_pool *pool = lvx_pool_create();
    char *text;
    lvx_ctx_init(&ctx);
    struct lvx_vg *vg = load_atomic(&ctx, pool, &text);
    if (!ok(vg != NULL, "setup.vg (atomic) imports: %s", ctx.errmsg))
        goto out;
    struct lvx_lv *mv = lvx_vg_find_lv(vg, "pvmove0");
    struct lvx_buf a = LVX_BUF_INIT, b = LVX_BUF_INIT;
    lvx_vg_export_text(&a, vg, NULL, LVX_CFG_LAYOUT_RAW);
    for (unsigned s = 0; s < mv->seg_count; s++)
        mv->segs[s].raw = NULL;
    lvx_vg_export_text(&b, vg, NULL, LVX_CFG_LAYOUT_RAW);
    is_str(b.data, a.data, "atomic mirror segment from typed fields: LVM2's text");
    lvx_buf_free(&a);
    lvx_buf_free(&b);
    ok(lvx_pvmove_is_atomic(mv), "pvmove0 is atomic");
    ok(lvx_pvmove_source(mv) == vg->pvs[0], "source: pv0 (mimage_0's first segment)");
    ok(lvx_pvmove_find(vg, vg->pvs[0]) == mv, "the move off pv0 is pvmove0");
    ok(lvx_pvmove_find(vg, vg->pvs[1]) == NULL, "no move off pv1");
    is_int(lvx_pvmove_copied(mv), 0, "nothing copied");
    if (!abort)
        mv->segs[0].extents_moved = (uint32_t)mv->segs[0].extent_count;
    is_int(lvx_pvmove_detach(&ctx, vg, mv, abort), 0, "detach%s: %s", abort ? " --abort" : "",
           ctx.errmsg);
    ok(!lvx_vg_find_lv(vg, "pvmove0_mimage_0") && !lvx_vg_find_lv(vg, "pvmove0_mimage_1"),
       "the images are gone");
    struct lvx_lv *two = lvx_vg_find_lv(vg, "two"), *four = lvx_vg_find_lv(vg, "four");
    ok(two->segs[0].areas[0].pv == vg->pvs[abort ? 0 : 1] &&
       two->segs[0].areas[0].start == (abort ? 2 : 4) &&
       four->segs[0].areas[0].pv == vg->pvs[abort ? 0 : 1] &&
       four->segs[0].areas[0].start == (abort ? 5 : 7),
       abort ? "--abort: everything back (two pv0:2, four pv0:5)"
             : "copied: the new areas (two pv1:4, four pv1:7)");
    ok(!(two->status & LVX_LV_LOCKED), "LOCKED cleared");
    ok(mv->seg_count == 1 && mv->segs[0].kind == LVX_SEG_ERROR && mv->le_count == 7,
       "pvmove0: one error segment of 7 extents");
    ok(lvx_pvmove_is_leftover(vg, mv), "pvmove0 is a leftover a resume removes");
    lvx_vg_remove_lv(vg, mv);
    is_int(lvx_vg_validate(&ctx, vg), 0, "without pvmove0: validates: %s", ctx.errmsg);
out:
    free(text);
    lvx_pool_destroy(pool);
}

int main(void)
{
    test_atomic(false);
    test_atomic(true);
    test_typed_mirror();
    test_find_detach();
    test_merge();
    return tap_done();
}
