/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_vgops.c - the VG-level rules of meta/vgops.c and meta/mda_policy.c:
 * extent size rule and pe_count (lvm2-format.md §12.2), the vgmetadatacopies policy
 * (§12.6: exactly min(N, usable) areas in use, areas in use kept first, spread over
 * PVs, missing/bad areas never chosen, unmanaged keeps at least one), and the removal
 * of LVs on missing PVs (vgreduce --removemissing --force).
 */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include "meta/mda_policy.h"
#include "meta/vgops.h"

static void test_extent_size(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    /* §12.2 examples accepted by vgcreate: 1 MiB, 64 MiB, 1536 KiB; 4 MiB default */
    is_int(lvx_vgops_check_extent_size(&ctx, 2048), 0, "1 MiB extents allowed");
    is_int(lvx_vgops_check_extent_size(&ctx, 131072), 0, "64 MiB extents allowed");
    is_int(lvx_vgops_check_extent_size(&ctx, 3072), 0, "1536 KiB (multiple of 128 KiB) allowed");
    is_int(lvx_vgops_check_extent_size(&ctx, 1), 0, "one sector (power of two) allowed");
    ok(lvx_vgops_check_extent_size(&ctx, 6) < 0, "3 KiB (not a power of two, not 128 KiB) refused");
    ok(strstr(ctx.errmsg, "128.00 KiB") != NULL, "message names the 128 KiB rule");
    ok(lvx_vgops_check_extent_size(&ctx, 0) < 0, "zero refused");
    ok(lvx_vgops_check_extent_size(&ctx, (uint64_t)1 << 32) < 0, "2 TiB (over u32 sectors) refused");
}

static void test_pe_count(void)
{
    struct lvx_pv pv;
    memset(&pv, 0, sizeof(pv));
    pv.dev_size = 131072;            /* 64 MiB */
    pv.pe_start = 2048;              /* 1 MiB */
    pv.ondisk.mda_count = 1;
    pv.ondisk.mda[0].start = 4096;
    pv.ondisk.mda[0].size = 1044480;
    is_int(lvx_vgops_pe_count(&pv, 8192), 15, "64 MiB PV, 4 MiB extents: 15 PEs");
    is_int(lvx_vgops_pe_count(&pv, 1024), 126, "64 MiB PV, 512 KiB extents: 126 PEs");
    /* a second area of 2040 sectors at the end shortens the data area */
    pv.ondisk.mda_count = 2;
    pv.ondisk.mda[1].start = (131072 - 2040) * 512ull;
    pv.ondisk.mda[1].size = 2040 * 512;
    is_int(lvx_vgops_pe_count(&pv, 1024), 124, "mda1 is excluded: floor((131072-2048-2040)/1024)");
    is_int(lvx_vgops_pe_count(&pv, (uint32_t)1 << 31), 0, "extent larger than the PV: 0 PEs");
}

/* A VG of n PVs, each with `mdas` areas, all present and in use. */
static struct lvx_vg *policy_vg(struct lvx_pool *pool, unsigned n, unsigned mdas)
{
    struct lvx_vg *vg = lvx_vg_new(pool);
    vg->name = "vgp";
    for (unsigned i = 0; i < n; i++) {
        struct lvx_pv *pv = lvx_vg_add_pv(vg);
        pv->ondisk.present = true;
        pv->ondisk.mda_count = mdas;
    }
    return vg;
}

static unsigned in_use(const struct lvx_vg *vg)
{
    return lvx_mda_policy_in_use(vg, NULL);
}

static void test_policy(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = policy_vg(pool, 5, 1);
    unsigned total;

    vg->metadata_copies = 2;
    is_int(lvx_mda_policy_apply(vg), 2, "N=2 of 5 areas: 2 in use");
    is_int(in_use(vg), 2, "the desired states say 2 in use");
    ok(!vg->pvs[0]->ondisk.mda[0].ignored && !vg->pvs[1]->ondisk.mda[0].ignored,
       "deterministic: the first PVs keep theirs");

    /* areas already in use are kept */
    for (unsigned i = 0; i < 5; i++)
        vg->pvs[i]->ondisk.mda[0].ignored = i < 3;
    lvx_mda_policy_apply(vg);
    ok(!vg->pvs[3]->ondisk.mda[0].ignored && !vg->pvs[4]->ondisk.mda[0].ignored &&
       in_use(vg) == 2, "areas in use are preferred");

    vg->metadata_copies = 3;
    lvx_mda_policy_apply(vg);
    ok(in_use(vg) == 3 && !vg->pvs[0]->ondisk.mda[0].ignored,
       "growing to 3 switches the first ignored area on");

    vg->metadata_copies = 9;
    is_int(lvx_mda_policy_apply(vg), 5, "N above the number of areas: all in use");

    /* missing PVs and bad areas are never counted or chosen */
    vg->metadata_copies = 4;
    vg->pvs[1]->ondisk.present = false;
    vg->pvs[2]->ondisk.mda[0].bad = true;
    lvx_mda_policy_apply(vg);
    is_int(lvx_mda_policy_in_use(vg, &total), 3, "only the 3 usable areas can be in use");
    is_int(total, 3, "missing and bad areas are not usable");

    /* unmanaged: nothing changes, except that one area stays in use */
    struct lvx_vg *u = policy_vg(pool, 3, 2);
    for (unsigned i = 0; i < 3; i++)
        u->pvs[i]->ondisk.mda[0].ignored = u->pvs[i]->ondisk.mda[1].ignored = true;
    is_int(lvx_mda_policy_apply(u), 1, "unmanaged with every area ignored: one switched on");
    ok(!u->pvs[0]->ondisk.mda[0].ignored, "the first area is the one switched on");
    u->pvs[2]->ondisk.mda[1].ignored = false;
    is_int(lvx_mda_policy_apply(u), 2, "unmanaged leaves the chosen states alone");

    /* spread: with two areas per PV, N = PVs uses one area on each PV */
    struct lvx_vg *s = policy_vg(pool, 3, 2);
    s->metadata_copies = 3;
    lvx_mda_policy_apply(s);
    bool spread = true;
    for (unsigned i = 0; i < 3; i++)
        spread &= !s->pvs[i]->ondisk.mda[0].ignored && s->pvs[i]->ondisk.mda[1].ignored;
    ok(spread, "N=3 on 3 PVs with 2 areas each: mda0 of every PV");
    lvx_mda_policy_use_all(s);
    is_int(in_use(s), 6, "use_all switches every area on");
    lvx_pool_destroy(pool);
}

/* An LV with one linear segment on pv (or, when pv is NULL, on the LV `on`). */
static struct lvx_lv *add_lv(struct lvx_vg *vg, const char *name, struct lvx_pv *pv,
                             struct lvx_lv *on)
{
    struct lvx_lv *lv = lvx_vg_add_lv(vg);
    lv->name = name;
    lv->status = LVX_LV_VISIBLE | LVX_LV_READ | LVX_LV_WRITE;
    lv->le_count = 1;
    lv->seg_count = 1;
    lv->segs = lvx_pool_alloc(vg->pool, sizeof(*lv->segs));
    struct lvx_seg *seg = &lv->segs[0];
    seg->lv = lv;
    seg->extent_count = 1;
    seg->type = seg->type_name = "striped";
    seg->kind = LVX_SEG_STRIPED;
    seg->stripe_count = 1;
    seg->area_count = 1;
    seg->areas = lvx_pool_alloc(vg->pool, sizeof(*seg->areas));
    seg->areas[0].pv = pv;
    seg->areas[0].lv = on;
    return lv;
}

static void test_partial_lvs(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = policy_vg(pool, 2, 1);
    vg->pvs[0]->pe_count = vg->pvs[1]->pe_count = 10;
    vg->pvs[1]->ondisk.present = false;
    add_lv(vg, "keep", vg->pvs[0], NULL);
    struct lvx_lv *gone = add_lv(vg, "gone", vg->pvs[1], NULL);
    add_lv(vg, "user", NULL, gone);       /* uses the LV on the missing PV */

    ok(lvx_vgops_has_partial_lvs(vg), "an LV on a missing PV is found");
    struct lvx_strlist removed = {0};
    is_int(lvx_vgops_remove_partial_lvs(vg, &removed), 2, "the LV and the LV using it are removed");
    is_int(vg->lv_count, 1, "one LV left");
    is_str(vg->lv_count ? vg->lvs[0]->name : "", "keep", "the LV on the present PV stays");
    ok(!lvx_vgops_has_partial_lvs(vg), "no partial LV left");
    lvx_pool_destroy(pool);
}

int main(void)
{
    test_extent_size();
    test_pe_count();
    test_policy();
    test_partial_lvs();
    return tap_done();
}
