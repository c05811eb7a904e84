/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/mda_policy.c - vgmetadatacopies: choose the metadata areas in use before a
 * commit (see mda_policy.h).  Cost O(#PVs): one pass to count, one to choose.
 *
 * Entry points: lvx_mda_policy_apply(), lvx_mda_policy_use_all(),
 * lvx_mda_policy_in_use(), lvx_mda_policy_join(),
 * lvx_mda_policy_auto_limit().
 */
#include "meta/mda_policy.h"
#include "config/config.h"

static bool usable(const struct lvx_pv *pv, unsigned m)
{
    return pv->ondisk.present && m < pv->ondisk.mda_count && !pv->ondisk.mda[m].bad;
}

unsigned lvx_mda_policy_in_use(const struct lvx_vg *vg, unsigned *total)
{
    unsigned used = 0, all = 0;
    for (unsigned p = 0; p < vg->pv_count; p++)
        for (unsigned m = 0; m < 2; m++) {
            if (!usable(vg->pvs[p], m))
                continue;
            all++;
            used += !vg->pvs[p]->ondisk.mda[m].ignored;
        }
    if (total)
        *total = all;
    return used;
}

void lvx_mda_policy_use_all(struct lvx_vg *vg)
{
    for (unsigned p = 0; p < vg->pv_count; p++)
        for (unsigned m = 0; m < 2; m++)
            if (usable(vg->pvs[p], m))
                vg->pvs[p]->ondisk.mda[m].ignored = false;
}

/* Walk the usable areas in spread order (mda0 of each PV, then mda1 of each PV) and
 * set their state: `keep` in-use areas stay in use, then `add` ignored areas are
 * switched on; every other area is ignored. */
static void choose(struct lvx_vg *vg, unsigned keep, unsigned add)
{
    for (unsigned m = 0; m < 2; m++)
        for (unsigned p = 0; p < vg->pv_count; p++) {
            struct lvx_pv *pv = vg->pvs[p];
            if (!usable(pv, m))
                continue;
            struct lvx_pv_mda *a = &pv->ondisk.mda[m];
            if (!a->ignored && keep) {
                keep--;
            } else if (a->ignored && add) {
                a->ignored = false;
                add--;
            } else {
                a->ignored = true;
            }
        }
}

unsigned lvx_mda_policy_apply(struct lvx_vg *vg)
{
    unsigned total;
    unsigned used = lvx_mda_policy_in_use(vg, &total);
    if (vg->metadata_copies == 0) {
        if (used == 0 && total > 0) {
            choose(vg, 0, 1);     /* every area was ignored: switch the first one on */
            used = 1;
        }
        return used;
    }
    unsigned want = vg->metadata_copies < total ? vg->metadata_copies : total;
    if (used >= want)
        choose(vg, want, 0);
    else
        choose(vg, used, want - used);
    return want;
}

unsigned lvx_mda_policy_join(struct lvx_vg *vg, unsigned first_new, unsigned limit)
{
    if (vg->metadata_copies != 0 || limit == 0)
        return 0;
    unsigned used = 0, switched = 0;
    for (unsigned p = 0; p < first_new && p < vg->pv_count; p++)
        for (unsigned m = 0; m < 2; m++)
            used += usable(vg->pvs[p], m) && !vg->pvs[p]->ondisk.mda[m].ignored;
    for (unsigned m = 0; m < 2; m++)
        for (unsigned p = first_new; p < vg->pv_count; p++) {
            struct lvx_pv *pv = vg->pvs[p];
            if (!usable(pv, m) || pv->ondisk.mda[m].ignored)
                continue;
            if (used < limit) {
                used++;
            } else {
                pv->ondisk.mda[m].ignored = true;
                switched++;
            }
        }
    return switched;
}

unsigned lvx_mda_policy_auto_limit(struct lvx_ctx *ctx)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return LVX_MDA_AUTO_LIMIT;
    }
    int64_t v = lvx_config_int(cfg, "lvx/auto_metadata_copies", LVX_MDA_AUTO_LIMIT);
    lvx_config_free(cfg);
    return v < 0 ? 0 : v > 1000000 ? 1000000u : (unsigned)v;
}
