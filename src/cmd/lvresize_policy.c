/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvresize_policy.c - `lvextend --use-policies VG/LV`: how much a thin pool's data
 * and metadata or a COW snapshot grow by lvm.conf's autoextend policy, decided as
 * LVM2 2.03.16 does (activation/thin_pool_autoextend_threshold and _percent,
 * snapshot_autoextend_*):
 *   - a threshold of 100 or more: nothing, silently; below 50: raised to 50 with
 *     LVM2's warning; a percent of 0: refused;
 *   - the usage comes from the backend's status (the LV must be active), as LVM2's
 *     dm_percent_t (percent * 1000000); a usage at or below the threshold (or at or
 *     below 50%) asks for nothing, above it the LV grows by the policy's percent of
 *     its size or by the percent that brings the usage back to the threshold, when
 *     that is more;
 *   - a pool's metadata: the same against the lower of the threshold and the pool's
 *     minimal metadata threshold (25% or 4 MiB free, whichever is less), plus 1%.
 * The same threshold decides whether a pool takes new thin LVs (LVM2's
 * pool_below_threshold): its data used above the threshold, its metadata above it or
 * at the minimal metadata threshold, or the pool failed, out of data space, erroring,
 * read-only or needing a check: no.
 * Entry points: lvx_lvresize_policy(), lvx_thin_pool_below_threshold().
 */
#include "cmd/lvresize_policy.h"

#include "activate/activate.h"
#include "cmd/actcmd.h"
#include "config/config.h"
#include "model/model.h"
#include "model/thin.h"
#include "report/report.h"

#include <string.h>

#define PCT_1 1000000
#define PCT_100 (100 * PCT_1)

/* The percent of an LV's size to add for usage pct (dm_percent_t) against threshold
 * (whole percent) and the policy's amount; 0: nothing to do. */
static uint32_t growth(int64_t pct, int64_t threshold, int64_t amount)
{
    if (pct <= 50 * (int64_t)PCT_1 || pct > PCT_100 || pct <= threshold * PCT_1)
        return 0;
    int64_t t = threshold * (PCT_1 / 100);
    int64_t need = (pct + t - 1) / t - 100;           /* back to the threshold */
    return (uint32_t)(amount < need ? need : amount);
}

/* An integer setting; a string or a float: LVM2's warning and the default (its config
 * check drops the setting). */
static int64_t policy_int(struct lvx_cmd_env *env, const struct lvx_config *cfg, const char *path,
                          int64_t dflt)
{
    const struct lvx_cfg_node *n = lvx_config_node(cfg, path);
    if (n && (n->kind == LVX_CFG_STRING || n->kind == LVX_CFG_FLOAT))
        lvx_warn(env->ctx, "WARNING: Configuration setting \"%s\" has invalid type. Found %s "
                 "but expected integer.", path, n->kind == LVX_CFG_STRING ? "string" : "float");
    return lvx_config_int(cfg, path, dflt);
}

/* The policy's settings for a pool or a snapshot; false when it asks for nothing. */
static bool read_policy(struct lvx_cmd_env *env, bool pool, int64_t *threshold,
                        int64_t *amount)
{
    struct lvx_config *cfg;
    *threshold = 100;
    *amount = 20;
    if (lvx_config_load(env->ctx, &cfg) == 0) {
        *threshold = policy_int(env, cfg, pool ? "activation/thin_pool_autoextend_threshold"
                                               : "activation/snapshot_autoextend_threshold", 100);
        *amount = policy_int(env, cfg, pool ? "activation/thin_pool_autoextend_percent"
                                            : "activation/snapshot_autoextend_percent", 20);
        lvx_config_free(cfg);
    } else {
        lvx_error_clear(env->ctx);
    }
    if (*threshold < 50) {
        if (pool)
            lvx_warn(env->ctx, "WARNING: Thin pool autoextend threshold %lld%% is set below "
                     "minimum supported 50%%.", (long long)*threshold);
        else    /* LVM2's spelling */
            lvx_warn(env->ctx, "WARNING: Snapshot autoextend threshold %lld%% is set bellow "
                     "minimal supported value 50%%.", (long long)*threshold);
        *threshold = 50;
    }
    return *threshold < 100;
}

/* The pool's lowest metadata threshold as a dm_percent_t: 25% or 4 MiB of its
 * metadata LV free, whichever is less. */
static int64_t meta_min_pct(const struct lvx_lv *pool)
{
    const struct lvx_lv *meta = lvx_lv_thin_pool_seg(pool)->metadata_lv;
    int64_t free = lvx_report_dm_percent(8192, meta->le_count * (uint64_t)pool->vg->extent_size);
    if (free > 25 * PCT_1)
        free = 25 * PCT_1;
    return PCT_100 - free;
}

/* The same in whole percent (the policy's growth). */
static int64_t meta_min_threshold(const struct lvx_lv *pool)
{
    return meta_min_pct(pool) / PCT_1;
}

bool lvx_thin_pool_below_threshold(struct lvx_cmd_env *env, const struct lvx_lv *pool,
                                   const struct lvx_lv_kstate *ks)
{
    const char *name = pool->name, *vg = pool->vg->name;
    int64_t threshold = 100;
    struct lvx_config *cfg;
    if (lvx_config_load(env->ctx, &cfg) == 0) {
        threshold = lvx_config_int(cfg, "activation/thin_pool_autoextend_threshold", 100);
        lvx_config_free(cfg);
    } else {
        lvx_error_clear(env->ctx);
    }
    if (threshold > 100)
        threshold = 100;
    threshold *= PCT_1;
    bool below = true;
    if (ks->pool_fail || ks->pool_out_of_data || ks->pool_needs_check || ks->pool_read_only) {
        lvx_warn(env->ctx, "WARNING: Thin pool %s/%s%s%s%s%s.", vg, name,
                 ks->pool_fail ? " is failed" : "",
                 ks->pool_out_of_data ? " is out of data space" : "",
                 ks->pool_needs_check ? " needs check" : "",
                 ks->pool_read_only ? " has read-only metadata" : "");
        if (ks->pool_fail)
            return false;
        below = false;
    }
    int64_t data = lvx_report_dm_percent(ks->data_used, ks->data_total);
    int64_t meta = lvx_report_dm_percent(ks->meta_used, ks->meta_total);
    int64_t meta_min = meta_min_pct(pool);
    if (data > threshold)
        below = false;
    if (meta >= meta_min) {
        lvx_warn(env->ctx, "WARNING: Remaining free space in metadata of thin pool %s/%s is too "
                 "low (%.2f%% >= %.2f%%). Resize is recommended.", vg, name,
                 (double)meta / PCT_1, (double)meta_min / PCT_1);
        below = false;
    }
    if (meta > threshold)
        below = false;
    return below;
}

int lvx_lvresize_policy(struct lvx_cmd_env *env, const struct lvx_lv *lv, uint32_t *data_pct,
                        uint32_t *meta_pct)
{
    bool pool = lvx_lv_is_thin_pool(lv), cow = lvx_lv_is_cow(lv);
    int64_t threshold, amount;
    *data_pct = *meta_pct = 0;
    if (!pool && !cow) {
        lvx_cmd_errorf("Policy-based resize is supported only for snapshot, thin pool and vdo "
                       "pool volumes.");
        return LVX_EXIT_FAILED;
    }
    if (!read_policy(env, pool, &threshold, &amount))
        return 0;
    if (!amount) {
        lvx_cmd_errorf("Can't extend %s/%s with %s autoextend percent set to 0%%.",
                       lv->vg->name, lv->name, lvx_seg_report_type(&lv->segs[0]));
        return LVX_EXIT_FAILED;
    }
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    memset(&ks, 0, sizeof(ks));
    bool known = lvx_actcmd_init(env, &act) == 0 && !act.off &&
                 lvx_actcmd_is_active(env, &act, lv, &ks) && (pool ? ks.thin_pool : ks.snapshot);
    if (!known) {
        lvx_error_clear(env->ctx);
        lvx_cmd_errorf("Can't read state of locally inactive LV %s/%s.", lv->vg->name, lv->name);
        return LVX_EXIT_FAILED;
    }
    if (pool) {
        int64_t mt = meta_min_threshold(lv);
        *meta_pct = growth(lvx_report_dm_percent(ks.meta_used, ks.meta_total),
                           mt < threshold ? mt : threshold, amount);
        if (*meta_pct)      /* LVM2: room for what the kernel uses while resizing */
            (*meta_pct)++;
        *data_pct = growth(lvx_report_dm_percent(ks.data_used, ks.data_total), threshold, amount);
    } else if (!ks.snap_invalid && ks.snap_used != ks.snap_meta) {
        *data_pct = growth(lvx_report_dm_percent(ks.snap_used, ks.snap_total), threshold, amount);
    }
    return 0;
}
