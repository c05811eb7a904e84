/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/activate.c - choosing an activation backend and the checks every
 * backend shares (supported segment types, missing PVs, read-only), see
 * activate.h.
 *
 * Entry points: lvx_activation_choose(), lvx_activation_enabled(), lvx_activation_find(),
 * lvx_activation_check(), lvx_activate_lv(), lvx_activation_reload().
 */
#include "activate/activate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "map/map.h"
#include "model/snapshot.h"
#include "model/thin.h"

#define BACKEND_ENV "LVX_ACTIVATION_BACKEND"

static const struct lvx_activation_backend *const backends[] = {
    &lvx_activation_dm,
    &lvx_activation_user,
};

const struct lvx_activation_backend *lvx_activation_find(const char *name)
{
    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

bool lvx_activation_enabled(struct lvx_ctx *ctx)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return true;
    }
    bool on = lvx_config_int(cfg, "global/activation", 1) != 0;
    lvx_config_free(cfg);
    return on;
}

static const struct lvx_activation_backend *choose_named(struct lvx_ctx *ctx, const char *name,
                                                         const char *origin)
{
    if (strcmp(name, "none") == 0) {
        lvx_error(ctx, ENODEV, "Activation is turned off (%s=none).", origin);
        return NULL;
    }
    const struct lvx_activation_backend *be = lvx_activation_find(name);
    if (!be) {
        lvx_error(ctx, EINVAL, "Unknown activation backend \"%s\" (%s): use dm, user or none.",
                  name, origin);
        return NULL;
    }
    return be->probe(ctx) ? be : NULL;
}

const struct lvx_activation_backend *lvx_activation_choose(struct lvx_ctx *ctx,
                                                           const char *forced)
{
    if (forced && *forced)
        return choose_named(ctx, forced, "option");
    const char *env = getenv(BACKEND_ENV);
    /* lvm.conf global/activation = 0 wins over the environment (docs/design.md
     * "Activation"): the administrator's configuration says no device is made */
    if (!lvx_activation_enabled(ctx)) {
        if (env && *env && strcmp(env, "none") != 0)
            lvx_error(ctx, ENODEV, "Activation is turned off (lvm.conf global/activation = 0; "
                      "%s=%s ignored).", BACKEND_ENV, env);
        else
            lvx_error(ctx, ENODEV, "Activation is turned off (lvm.conf global/activation = 0).");
        return NULL;
    }
    if (env && *env)
        return choose_named(ctx, env, BACKEND_ENV);
    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
        if (backends[i]->probe(ctx)) {
            lvx_error_clear(ctx);
            return backends[i];
        }
    }
    return NULL;   /* the last probe's reason stays in ctx */
}

void lvx_activation_pool_discards(const char *status, char out[12])
{
    static const char *const tok[][2] = {
        { "ignore_discard", "ignore" },
        { "no_discard_passdown", "nopassdown" },
        { "discard_passdown", "passdown" },
    };
    out[0] = '\0';
    for (const char *p = status; p && *p;) {
        p += strspn(p, " \t\n");
        size_t len = strcspn(p, " \t\n");
        for (unsigned i = 0; i < sizeof(tok) / sizeof(tok[0]); i++)
            if (len == strlen(tok[i][0]) && !strncmp(p, tok[i][0], len)) {
                snprintf(out, 12, "%s", tok[i][1]);
                return;
            }
        p += len;
    }
}

bool lvx_activation_lv_partial(const struct lvx_lv *lv)
{
    return lvx_map_lv_partial(lv);
}

int lvx_activation_check(struct lvx_ctx *ctx, const struct lvx_lv *lv,
                         const struct lvx_activate_opts *opts)
{
    bool partial = opts && opts->partial;
    /* a COW LV is activated with its origin, an origin with its snapshots */
    const struct lvx_seg *cs = lvx_lv_cow_snapshot_seg(lv);
    if (cs && cs->origin_lv)
        lv = cs->origin_lv;
    int rc = lvx_lv_is_thin(lv)        ? lvx_map_check_thin_activatable(ctx, lv, partial)
             : lvx_map_lv_is_mirror(lv) ? lvx_map_check_mirror_activatable(ctx, lv, partial)
                                        : lvx_map_check_activatable(ctx, lv, partial);
    const struct lvx_seg *snaps[64];
    unsigned n = lvx_lv_snapshot_segs(lv, snaps, 64);
    for (unsigned i = 0; rc == 0 && i < n && i < 64; i++)
        rc = lvx_map_check_activatable(ctx, snaps[i]->cow_lv, partial);
    return rc;
}

bool lvx_activation_has_snapshots(const struct lvx_lv *lv)
{
    return lvx_lv_is_cow(lv) || lvx_lv_snapshot_segs(lv, NULL, 0) > 0;
}

bool lvx_activation_serves_raid(const struct lvx_activation_backend *be, const char *type)
{
    if (!be->raid)
        return false;
    return be != &lvx_activation_user ||
           (type && (!strcmp(type, "raid1") || !strcmp(type, "raid10") ||
                     !strncmp(type, "raid0", 5) ||       /* as striped (daemon/target.c) */
                     !strcmp(type, "mirror") ||
                     !strcmp(type, "raid4") || !strncmp(type, "raid5", 5) ||
                     !strncmp(type, "raid6", 5)));
}

int lvx_activate_lv(struct lvx_ctx *ctx, const struct lvx_activation_backend *be,
                    const struct lvx_lv *lv, const struct lvx_activate_opts *opts)
{
    if (lvx_map_lv_is_raid(lv)) {
        const char *type = lv->segs[0].type_name;
        int rc = lvx_activation_serves_raid(be, type)
                     ? lvx_map_check_raid_activatable(ctx, lv, opts && opts->partial,
                                                      opts && opts->degraded)
                     : lvx_error(ctx, ENOTSUP, "Cannot activate RAID LV %s/%s (%s): the %s "
                                 "activation backend does not serve %s LVs yet (use the "
                                 "dm backend).", lv->vg->name, lv->name, type ? type : "?",
                                 be->name, type ? type : "RAID");
        return rc < 0 ? rc : be->activate(ctx, lv, opts);
    }
    if (lvx_map_lv_is_mirror(lv)) {
        int rc = lvx_activation_serves_raid(be, "mirror")
                     ? lvx_map_check_mirror_activatable(ctx, lv, opts && opts->partial)
                     : lvx_error(ctx, ENOTSUP, "Cannot activate mirror LV %s/%s: the %s "
                                 "activation backend does not serve mirror LVs yet (use the "
                                 "dm backend).", lv->vg->name, lv->name, be->name);
        return rc < 0 ? rc : be->activate(ctx, lv, opts);
    }
    if (lvx_map_lv_is_thin_kind(lv)) {
        int rc = be == &lvx_activation_user ? lvx_map_refuse_thin_on_raid(ctx, lv) : 0;
        if (rc < 0)
            return rc;
        rc = be->thin_message
                     ? lvx_map_check_thin_activatable(ctx, lv, opts && opts->partial)
                     : lvx_error(ctx, ENOTSUP, "Cannot activate %s %s/%s: the %s activation "
                                 "backend does not serve thin pools and thin LVs yet (use the dm "
                                 "backend).", lvx_lv_is_thin(lv) ? "thin LV" : "thin pool",
                                 lv->vg->name, lv->name, be->name);
        return rc < 0 ? rc : be->activate(ctx, lv, opts);
    }
    int rc = lvx_activation_check(ctx, lv, opts);
    return rc < 0 ? rc : be->activate(ctx, lv, opts);
}

int lvx_activation_reload(struct lvx_ctx *ctx, const struct lvx_activation_backend *be,
                          const struct lvx_lv *lv, const struct lvx_activate_opts *opts)
{
    int rc = be->stage(ctx, lv, opts);
    if (rc < 0)
        return rc;
    rc = be->swap(ctx, lv);
    if (rc < 0) {
        int keep = ctx->err;
        char msg[sizeof(ctx->errmsg)];
        memcpy(msg, ctx->errmsg, sizeof(msg));
        be->unstage(ctx, lv);
        ctx->err = keep;
        memcpy(ctx->errmsg, msg, sizeof(msg));
    }
    return rc;
}

bool lvx_activation_read_only(const struct lvx_lv *lv, const struct lvx_activate_opts *opts)
{
    return (opts && opts->read_only) || !(lv->status & LVX_LV_WRITE) ||
           !(lv->vg->status & LVX_VG_WRITE);
}
