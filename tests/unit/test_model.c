/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_model.c - model/: UUID syntax (lvm2-format.md §11.1), name and tag
 * rules (§11.2, §11.3), and the derived values of §13.1 / §10.4 on a small VG built
 * by hand, plus lvx_vg_validate() on broken variants of it.
 */
#include "tap.h"

#include <errno.h>
#include <string.h>

#include "model/model.h"
#include "model/snapshot.h"

static void test_uuid(void)
{
    char raw[LVX_UUID_LEN + 1], dashed[LVX_UUID_DASHED_LEN + 1], again[LVX_UUID_LEN + 1];
    /* the example of §11.1 */
    const char *text = "0JDVfX-PfbI-S2aR-iR77-C561-TYlV-5tGXKn";

    is_int(lvx_uuid_parse(text, raw), 0, "dashed uuid parses");
    is_str(raw, "0JDVfXPfbIS2aRiR77C561TYlV5tGXKn", "dashes are stripped");
    lvx_uuid_format(raw, dashed);
    is_str(dashed, text, "format gives the 6-4-4-4-4-4-6 form back");
    is_int(lvx_uuid_parse(raw, again), 0, "raw form parses too");
    ok(lvx_uuid_parse("0JDVfX-PfbI-S2aR-iR77-C561-TYlV-5tGXK", raw) < 0, "31 characters rejected");
    ok(lvx_uuid_parse("0JDVfX-PfbI-S2aR-iR77-C561-TYlV-5tGXKnn", raw) < 0, "33 characters rejected");
    ok(lvx_uuid_parse("0JDVfX-PfbI-S2aR-iR77-C561-TYlV-5tGXK$", raw) < 0, "'$' rejected");
    is_int(lvx_uuid_parse("!#DVfX-PfbI-S2aR-iR77-C561-TYlV-5tGXKn", raw), 0,
           "'!' and '#' are legal letters");
    ok(lvx_uuid_parse("", raw) < 0, "empty rejected");

    char a[LVX_UUID_LEN + 1], b[LVX_UUID_LEN + 1];
    is_int(lvx_uuid_generate(a), 0, "generate works");
    is_int((int)strlen(a), 32, "generated uuid has 32 characters");
    bool alnum = true;
    for (int i = 0; i < 32; i++)
        alnum &= (a[i] >= '0' && a[i] <= '9') || (a[i] >= 'a' && a[i] <= 'z') ||
                 (a[i] >= 'A' && a[i] <= 'Z');
    ok(alnum, "generated uuid uses only [0-9a-zA-Z]");
    lvx_uuid_generate(b);
    ok(strcmp(a, b) != 0, "two generated uuids differ");
    is_int(lvx_uuid_parse(a, again), 0, "generated uuid is valid");
}

static void test_names(void)
{
    ok(lvx_name_valid("vg0"), "vg0 valid");
    ok(lvx_name_valid("a+b_c.d-e"), "all allowed characters");
    ok(!lvx_name_valid(""), "empty invalid");
    ok(!lvx_name_valid("-x"), "leading dash invalid");
    ok(!lvx_name_valid("."), "'.' invalid");
    ok(!lvx_name_valid(".."), "'..' invalid");
    ok(!lvx_name_valid("a/b"), "slash invalid");
    ok(!lvx_name_valid("a b"), "space invalid");
    char longname[200];
    memset(longname, 'x', sizeof(longname));
    longname[127] = '\0';
    ok(lvx_name_valid(longname), "127 characters valid");
    longname[127] = 'x';
    longname[128] = '\0';
    ok(!lvx_name_valid(longname), "128 characters invalid");

    ok(lvx_lv_name_reserved("snapshot0"), "snapshot* reserved");
    ok(lvx_lv_name_reserved("pvmove0"), "pvmove* reserved");
    ok(lvx_lv_name_reserved("r1_rimage_0"), "_rimage reserved");
    ok(lvx_lv_name_reserved("tp_tmeta"), "_tmeta reserved");
    ok(lvx_lv_name_reserved("lvol0_pmspare"), "_pmspare reserved");
    ok(lvx_lv_name_reserved("x_vorigin"), "_vorigin reserved");
    ok(!lvx_lv_name_reserved("lv_linear"), "lv_linear not reserved");
    ok(!lvx_lv_name_reserved("mysnapshot"), "snapshot not at the start is fine");

    ok(lvx_tag_valid("a_b+c.d-e/f=g!h:i&j#k"), "tag characters of §11.3");
    ok(!lvx_tag_valid(""), "empty tag invalid");
    ok(!lvx_tag_valid("a b"), "space in tag invalid");
    ok(!lvx_tag_valid("a,b"), "comma in tag invalid");

    enum lvx_alloc a;
    is_int(lvx_alloc_parse("cling_by_tags", &a), 0, "alloc name parses");
    is_int(a, LVX_ALLOC_CLING_BY_TAGS, "cling_by_tags");
    is_str(lvx_alloc_name(LVX_ALLOC_CONTIGUOUS), "contiguous", "alloc name");
    ok(lvx_alloc_parse("bogus", &a) < 0, "unknown policy rejected");
}

/* --- a small VG by hand -------------------------------------------------- */

static struct lvx_pv *add_pv(struct lvx_vg *vg, uint32_t pe_count)
{
    struct lvx_pv *pv = lvx_vg_add_pv(vg);
    lvx_uuid_generate(pv->uuid);
    pv->pe_count = pe_count;
    pv->pe_start = 2048;
    pv->status = LVX_PV_ALLOCATABLE;
    return pv;
}

static struct lvx_lv *add_lv(struct lvx_vg *vg, const char *name, uint32_t status,
                             unsigned nsegs)
{
    struct lvx_lv *lv = lvx_vg_add_lv(vg);
    lv->name = name;
    lvx_uuid_generate(lv->uuid);
    lv->status = status;
    lv->seg_count = nsegs;
    lv->segs = lvx_pool_alloc(vg->pool, nsegs * sizeof(*lv->segs));
    return lv;
}

static struct lvx_seg *set_seg(struct lvx_lv *lv, unsigned i, const char *type, uint64_t start,
                               uint64_t count, uint32_t nareas)
{
    struct lvx_seg *seg = &lv->segs[i];
    seg->lv = lv;
    seg->type = seg->type_name = type;
    seg->kind = lvx_seg_kind_of(type);
    seg->start_extent = start;
    seg->extent_count = count;
    seg->area_count = nareas;
    seg->areas = lvx_pool_alloc(lv->vg->pool, (nareas ? nareas : 1) * sizeof(*seg->areas));
    lv->le_count = start + count;
    return seg;
}

static void linear(struct lvx_lv *lv, unsigned i, uint64_t start, uint64_t count,
                   struct lvx_pv *pv, uint64_t pe)
{
    struct lvx_seg *seg = set_seg(lv, i, "striped", start, count, 1);
    seg->stripe_count = 1;
    seg->areas[0].pv = pv;
    seg->areas[0].start = pe;
}

#define RW (LVX_LV_READ | LVX_LV_WRITE)
#define RWV (LVX_LV_READ | LVX_LV_WRITE | LVX_LV_VISIBLE)

/* pv0 (20 PEs), pv1 (10 PEs); lv_a two linear segments, lv_s 2-stripe,
 * raid1 r1 over r1_rimage_0/1 + rmeta, classic snapshot orig/snap/snapshot0. */
static struct lvx_vg *build_vg(struct lvx_pool *pool)
{
    struct lvx_vg *vg = lvx_vg_new(pool);
    vg->name = "vgt";
    lvx_uuid_generate(vg->uuid);
    vg->extent_size = 8192;
    struct lvx_pv *p0 = add_pv(vg, 20), *p1 = add_pv(vg, 10);

    struct lvx_lv *a = add_lv(vg, "lv_a", RWV, 2);
    linear(a, 0, 0, 3, p0, 0);
    linear(a, 1, 3, 2, p1, 0);

    struct lvx_lv *s = add_lv(vg, "lv_s", RWV, 1);
    struct lvx_seg *seg = set_seg(s, 0, "striped", 0, 4, 2);
    seg->stripe_count = 2;
    seg->stripe_size = 128;
    seg->areas[0] = (struct lvx_area){ p0, NULL, 3 };
    seg->areas[1] = (struct lvx_area){ p1, NULL, 2 };

    struct lvx_lv *m0 = add_lv(vg, "r1_rmeta_0", RW, 1), *i0 = add_lv(vg, "r1_rimage_0", RW, 1);
    struct lvx_lv *m1 = add_lv(vg, "r1_rmeta_1", RW, 1), *i1 = add_lv(vg, "r1_rimage_1", RW, 1);
    linear(m0, 0, 0, 1, p0, 5);
    linear(i0, 0, 0, 2, p0, 6);
    linear(m1, 0, 0, 1, p1, 4);
    linear(i1, 0, 0, 2, p1, 5);
    struct lvx_lv *r1 = add_lv(vg, "r1", RWV, 1);
    seg = set_seg(r1, 0, "raid1", 0, 2, 2);
    seg->stripe_count = 2;
    seg->meta_areas = lvx_pool_alloc(pool, 2 * sizeof(*seg->meta_areas));
    seg->areas[0].lv = i0;
    seg->areas[1].lv = i1;
    seg->meta_areas[0].lv = m0;
    seg->meta_areas[1].lv = m1;

    struct lvx_lv *orig = add_lv(vg, "orig", RWV, 1);
    linear(orig, 0, 0, 2, p0, 8);
    struct lvx_lv *snap = add_lv(vg, "snap", RW, 1);
    linear(snap, 0, 0, 1, p0, 10);
    struct lvx_lv *s0 = add_lv(vg, "snapshot0", RWV, 1);
    seg = set_seg(s0, 0, "snapshot", 0, 2, 0);
    seg->origin_lv = orig;
    seg->cow_lv = snap;
    seg->chunk_size = 8;
    return vg;
}

static void test_derive(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_vg *vg = build_vg(pool);

    is_int(lvx_vg_validate(&ctx, vg), 0, "hand-built VG validates");
    if (ctx.err)
        tap_diag("%s", ctx.errmsg);
    /* pv0: lv_a 3 + stripe 2 + rmeta 1 + rimage 2 + orig 2 + snap 1 = 11 */
    is_int(lvx_pv_alloc_count(vg->pvs[0]), 11, "pv0 allocated extents");
    /* pv1: lv_a 2 + stripe 2 + rmeta 1 + rimage 2 = 7 */
    is_int(lvx_pv_alloc_count(vg->pvs[1]), 7, "pv1 allocated extents");
    uint32_t counts[2];
    lvx_vg_pv_alloc_counts(vg, counts);
    ok(counts[0] == 11 && counts[1] == 7, "one-pass counts agree");
    is_int(lvx_vg_extent_count(vg), 30, "vg extent count");
    is_int(lvx_vg_free_count(vg), 12, "vg free count");

    struct lvx_lv *snap = lvx_vg_find_lv(vg, "snap"), *s0 = lvx_vg_find_lv(vg, "snapshot0");
    struct lvx_lv *orig = lvx_vg_find_lv(vg, "orig"), *i0 = lvx_vg_find_lv(vg, "r1_rimage_0");
    ok(snap && s0 && orig && i0, "lookups by name");
    ok(!lvx_vg_find_lv(vg, "nope"), "unknown name not found");
    ok(lvx_vg_find_pv_uuid(vg, vg->pvs[1]->uuid) == vg->pvs[1], "PV by uuid");
    ok(lvx_lv_is_cow(snap), "snap is a COW LV");
    ok(!lvx_lv_is_cow(orig), "orig is not a COW LV");
    ok(lvx_lv_is_snapshot_internal(s0), "snapshot0 is internal");
    ok(lvx_lv_cow_snapshot_seg(snap) == &s0->segs[0], "snapshot segment of snap");
    ok(lvx_lv_is_visible(snap), "COW LV visible because its origin is");
    ok(!lvx_lv_is_visible(s0), "snapshot0 not visible");
    ok(!lvx_lv_is_visible(i0), "raid image hidden");
    /* visible: lv_a lv_s r1 orig snap */
    is_int(lvx_vg_visible_lv_count(vg), 5, "lv_count with the snapshot rule");
    {
        bool vis[16];
        bool agree = true;
        lvx_vg_lv_visibility(vg, vis);
        for (unsigned i = 0; i < vg->lv_count; i++)
            agree &= vis[i] == lvx_lv_is_visible(vg->lvs[i]);
        ok(agree, "one-pass visibility agrees with lvx_lv_is_visible");
    }
    ok(!lvx_lv_is_virtual_origin(orig), "a visible origin is no virtual origin");
    orig->status &= ~LVX_LV_VISIBLE;
    /* a hidden origin is LVM2's virtual origin (a sparse snapshot's _vorigin): its COW
     * LV is listed itself */
    ok(lvx_lv_is_virtual_origin(orig), "a hidden origin is a virtual origin");
    ok(lvx_lv_is_visible(snap), "COW LV of a hidden origin visible (sparse snapshot)");
    is_int(lvx_vg_visible_lv_count(vg), 4, "lv_count follows (orig hidden, snap listed)");
    orig->status |= LVX_LV_VISIBLE;
    {
        struct lvx_lv *cow = add_lv(vg, "sp", RW, 1);
        linear(cow, 0, 0, 1, vg->pvs[1], 9);
        struct lvx_lv *vo = lvx_vg_add_virtual_origin(vg, cow, 1000);
        lvx_vg_add_snapshot(vg, vo, cow, 8);
        is_str(vo->name, "sp_vorigin", "virtual origin named <cow>_vorigin");
        ok(vo->status == LVX_LV_READ, "virtual origin: READ only, hidden");
        ok(vo->seg_count == 1 && vo->segs[0].kind == LVX_SEG_ZERO &&
           vo->segs[0].extent_count == 1000 && vo->le_count == 1000,
           "virtual origin: one zero segment of the virtual size");
        ok(lvx_lv_is_virtual_origin(vo) && lvx_lv_is_visible(cow) && !lvx_lv_is_visible(vo),
           "sparse COW listed, its _vorigin not");
        bool vis[16], agree = true;
        lvx_vg_lv_visibility(vg, vis);
        for (unsigned i = 0; i < vg->lv_count; i++)
            agree &= vis[i] == lvx_lv_is_visible(vg->lvs[i]);
        ok(agree, "one-pass visibility agrees with a sparse snapshot too");
        lvx_vg_remove_snapshot(vg, cow);
        lvx_vg_remove_lv(vg, cow);
        lvx_vg_remove_lv(vg, vo);
    }

    const char *role = NULL;
    const struct lvx_lv *r1 = lvx_vg_find_lv(vg, "r1");
    ok(lvx_lv_used_by(i0, &role) == &r1->segs[0] && role && !strcmp(role, "image"),
       "rimage used by r1 as image");
    ok(lvx_lv_used_by(lvx_vg_find_lv(vg, "r1_rmeta_1"), &role) == &r1->segs[0] &&
       !strcmp(role, "rmeta"), "rmeta used by r1 as rmeta");
    ok(lvx_lv_used_by(snap, &role) == &s0->segs[0] && !strcmp(role, "cow"), "snap is cow");
    ok(lvx_lv_used_by(orig, &role) == &s0->segs[0] && !strcmp(role, "origin"), "orig is origin");
    ok(lvx_lv_used_by(lvx_vg_find_lv(vg, "lv_a"), &role) == NULL, "lv_a is used by nobody");

    const struct lvx_lv *lv_a = lvx_vg_find_lv(vg, "lv_a"), *lv_s = lvx_vg_find_lv(vg, "lv_s");
    is_str(lvx_seg_report_type(&lv_a->segs[0]), "linear", "one stripe reported as linear");
    is_str(lvx_seg_report_type(&lv_s->segs[0]), "striped", "two stripes reported as striped");
    is_int(lvx_seg_report_stripes(&lv_s->segs[0]), 2, "stripes of lv_s");
    is_int(lvx_seg_area_len(&lv_s->segs[0]), 2, "each stripe 2 extents");
    is_int(lvx_seg_area_len(&r1->segs[0]), 2, "raid1 image as long as the LV");
    is_int(lvx_lv_size_sectors(lv_a), 5 * 8192, "lv_a size");

    /* raid area lengths of §10.4: raid5 (3 images) 4 LEs -> 2, raid6 (5) 3 -> 1,
     * raid10 (4, 2 copies) 4 -> 2, raid0 (2) 4 -> 2 */
    struct lvx_seg t = { .kind = LVX_SEG_RAID, .type_name = "raid5", .extent_count = 4,
                         .stripe_count = 3 };
    is_int(lvx_seg_area_len(&t), 2, "raid5 image length");
    t.type_name = "raid6";
    t.extent_count = 3;
    t.stripe_count = 5;
    is_int(lvx_seg_area_len(&t), 1, "raid6 image length");
    t.type_name = "raid10";
    t.extent_count = 4;
    t.stripe_count = 4;
    t.data_copies = 2;
    is_int(lvx_seg_area_len(&t), 2, "raid10 image length");
    t.type_name = "raid0";
    t.stripe_count = 2;
    is_int(lvx_seg_area_len(&t), 2, "raid0 image length");

    is_int(lvx_seg_kind_of("raid5_ls"), LVX_SEG_RAID, "raid5_ls is raid");
    is_int(lvx_seg_kind_of("thin-pool"), LVX_SEG_THIN_POOL, "thin-pool kind");
    is_int(lvx_seg_kind_of("writecache"), LVX_SEG_OTHER, "writecache is other");

    /* removal keeps indexes dense */
    struct lvx_lv *lv_gone = lvx_vg_find_lv(vg, "lv_s");
    unsigned before = vg->lv_count;
    lvx_vg_remove_lv(vg, lv_gone);
    is_int(vg->lv_count, before - 1, "lv removed");
    bool dense = true;
    for (unsigned i = 0; i < vg->lv_count; i++)
        dense &= vg->lvs[i]->index == i;
    ok(dense, "indexes renumbered");
    is_int(lvx_pv_alloc_count(vg->pvs[0]), 9, "pv0 allocation drops by the removed stripe");
    lvx_pool_destroy(pool);
}

/* Break the hand-built VG one way at a time; the validator must say what is wrong. */
static void expect_invalid(struct lvx_vg *vg, struct lvx_ctx *ctx, const char *fragment,
                           const char *what)
{
    lvx_error_clear(ctx);
    int r = lvx_vg_validate(ctx, vg);
    ok(r == -EINVAL && strstr(ctx->errmsg, fragment), "%s: \"%s\"", what, ctx->errmsg);
}

static void test_validate(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_pool *pool;
    struct lvx_vg *vg;

#define FRESH() (pool = lvx_pool_create(), vg = build_vg(pool))
#define DONE() lvx_pool_destroy(pool)

    FRESH();
    lvx_vg_find_lv(vg, "lv_a")->segs[1].start_extent = 2;
    expect_invalid(vg, &ctx, "lv_a: segment 2 overlaps segment 1", "overlap");
    DONE();

    FRESH();
    lvx_vg_find_lv(vg, "lv_a")->segs[1].start_extent = 4;
    expect_invalid(vg, &ctx, "lv_a: gap before segment 2", "gap");
    DONE();

    FRESH();
    lvx_vg_find_lv(vg, "lv_s")->segs[0].extent_count = 3;
    lvx_vg_find_lv(vg, "lv_s")->le_count = 3;
    expect_invalid(vg, &ctx, "not divisible by 2 stripes", "stripes divisible");
    DONE();

    FRESH();
    lvx_vg_find_lv(vg, "lv_a")->segs[1].areas[0].start = 9;
    expect_invalid(vg, &ctx, "beyond its pe_count 10", "PE beyond pe_count");
    DONE();

    FRESH();
    lvx_vg_find_lv(vg, "snap")->segs[0].areas[0].start = 9;
    expect_invalid(vg, &ctx, "pv0: extents 9-9 are used by both", "PE used twice");
    DONE();

    FRESH();
    lvx_vg_find_lv(vg, "snap")->name = "lv_a";
    expect_invalid(vg, &ctx, "duplicate logical volume name lv_a", "duplicate LV name");
    DONE();

    FRESH();
    memcpy(vg->pvs[1]->uuid, vg->pvs[0]->uuid, sizeof(vg->pvs[0]->uuid));
    expect_invalid(vg, &ctx, "duplicate physical volume UUID", "duplicate PV uuid");
    DONE();

    FRESH();
    memcpy(lvx_vg_find_lv(vg, "orig")->uuid, lvx_vg_find_lv(vg, "snap")->uuid, LVX_UUID_LEN);
    expect_invalid(vg, &ctx, "duplicate logical volume UUID", "duplicate LV uuid");
    DONE();

    FRESH();
    lvx_vg_find_lv(vg, "lv_a")->name = "bad name";
    expect_invalid(vg, &ctx, "invalid logical volume name", "bad LV name");
    DONE();

    FRESH();
    lvx_vg_find_lv(vg, "lv_a")->segs[0].areas[0].pv = NULL;
    expect_invalid(vg, &ctx, "area 1 is unset", "unresolved area");
    DONE();

    FRESH();
    {
        struct lvx_pool *other = lvx_pool_create();
        struct lvx_vg *vg2 = build_vg(other);
        lvx_vg_find_lv(vg, "lv_a")->segs[0].areas[0].pv = vg2->pvs[0];
        expect_invalid(vg, &ctx, "refers to a PV outside the VG", "foreign PV");
        lvx_pool_destroy(other);
    }
    DONE();
}

int main(void)
{
    test_uuid();
    test_names();
    test_derive();
    test_validate();
    return tap_done();
}
