/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/mirror_poll.c - the convert poll of a CONVERTING mirror (LVM2's NAME_mimagetmp_N
 * layer, cmd/mirror_layer.c), as LVM2's polldaemon runs it (tools/polldaemon.c
 * wait_for_single_lv with the convert functions): `lvx lvpoll --polloperation convert`
 * (cmd/lvpoll.c), the detached poller `lvconvert -b VG/LV` starts, and those an
 * activation starts for each CONVERTING mirror active after it (cmd/activation.c; dm,
 * and the user backend whose daemon serves the layer), every
 * activation/polling_interval seconds as LVM2's lv_spawn_background_polling.
 * Each look takes the VG's lock and lets it go again: the LV by name and uuid ("Can't
 * find LV in VG for VG/LV." when renamed or removed), active ("VG/LV: Interrupted: No
 * longer active."), a mirror ("ABORTING: Mirror percentage check failed."), the progress
 * line "VG/LV: Converted: P%", and once the top mirror is in sync the collapse
 * (lvx_mirror_layer_finish: "Logical volume VG/LV converted."; a plain mirror: nothing
 * to do).  `-i +N` sleeps N seconds before the first look (LVM2's wait_before_testing).
 */
#include "cmd/mirror_layer.h"

#include "cmd/actcmd.h"
#include "map/map.h"
#include "util/detach.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define UUID_ENV "LVX_POLL_LV_UUID"     /* the detached poller's LV uuid */

/* One look under the VG's lock; true when the poll is over (*rc its exit code). */
static bool look(struct lvx_cmd_env *env, const char *vgname, const char *lvname,
                 const char *display, const char *uuid, bool show, int *rc)
{
    struct lvx_vg_update u;
    if ((*rc = lvx_lvcmd_begin(env, vgname, &u)))
        return true;
    struct lvx_lv *lv = lvx_vg_find_lv(u.vg, lvname);
    if (lv && uuid && strcmp(lv->uuid, uuid))
        lv = NULL;
    struct lvx_actcmd act;
    struct lvx_lv_kstate ks;
    memset(&ks, 0, sizeof(ks));
    bool over = true;
    if (!lv) {
        lvx_notice(env->ctx, "Can't find LV in %s for %s.", u.vg->name, display);
    } else if ((*rc = lvx_actcmd_init(env, &act))) {
    } else if (act.off || !act.be || !lvx_actcmd_is_active(env, &act, lv, NULL)) {
        lvx_notice(env->ctx, "%s: Interrupted: No longer active.", display);
    } else if (!lvx_map_lv_is_mirror(lv) || !act.be->status ||
               act.be->status(env->ctx, lv, &ks) < 0 || !ks.active || !ks.mirror) {
        lvx_error_clear(env->ctx);
        lvx_cmd_errorf("ABORTING: Mirror percentage check failed.");
        *rc = LVX_EXIT_FAILED;
    } else {
        bool done = ks.sync_done >= ks.sync_total;
        if (show)
            lvx_notice(env->ctx, "%s: Converted: %.2f%%", display,
                       done ? 100.0 : 100.0 * (double)ks.sync_done / (double)ks.sync_total);
        if (!done)
            over = false;
        else if (lvx_map_mirror_sync_layer(lv))
            *rc = lvx_mirror_layer_finish(env, &u, &act, lv);
    }
    lvx_vg_update_end(&u);
    return over;
}

int lvx_mirror_poll_unlocked(struct lvx_cmd_env *env, const char *vgname, const char *lvname,
                             const char *display, const char *uuid, unsigned interval,
                             bool wait_first, bool show)
{
    /* LVM2's sleep: the interval, at least a tenth of a second */
    struct timespec ts = { interval, 0 };
    if (!interval)
        ts = (struct timespec){ 0, 100000000 };
    if (wait_first)
        nanosleep(&ts, NULL);
    for (;;) {
        int rc = 0;
        if (look(env, vgname, lvname, display, uuid, show, &rc))
            return rc;
        nanosleep(&ts, NULL);
    }
}

int lvx_mirror_poll_background(struct lvx_cmd_env *env, const char *vgname, const char *lvname,
                               const char *uuid, unsigned interval, bool wait_first,
                               bool locked)
{
    char exe[4096];
    bool self = lvx_self_is_lvx(exe, sizeof(exe));
    if (!self && locked)       /* the child would wait for the lock its parent holds */
        return -1;
    const char *display = lvx_pool_printf(env->pool, "%s/%s", vgname, lvname);
    int r = lvx_cmd_detach();
    if (r)
        return r < 0 ? LVX_EXIT_FAILED : 0;
    if (self) {
        const char *argv[16];
        unsigned k = 0;
        argv[k++] = "lvx";
        argv[k++] = "lvpoll";
        argv[k++] = "--polloperation";
        argv[k++] = "convert";
        k = lvx_cmd_scope_args(env, argv, k);
        argv[k++] = "-i";
        argv[k++] = lvx_pool_printf(env->pool, "%s%u", wait_first ? "+" : "", interval);
        argv[k++] = display;
        argv[k] = NULL;
        setenv(UUID_ENV, uuid, 1);
        execv(exe, (char *const *)argv);
    }
    _exit(lvx_mirror_poll_unlocked(env, vgname, lvname, display, uuid, interval, wait_first,
                                   false));
}

const char *lvx_mirror_poll_uuid_env(void)
{
    const char *v = getenv(UUID_ENV);
    if (!v || !*v)
        return NULL;
    char *copy = strdup(v);
    unsetenv(UUID_ENV);           /* not handed down to what the poll runs */
    return copy;
}

void lvx_mirror_pollers_collect(struct lvx_cmd_env *env, const struct lvx_actcmd *act,
                                const struct lvx_vg *vg, struct lvx_mirror_pollers *p)
{
    p->n = 0;
    p->vg = lvx_pool_strdup(env->pool, vg->name);
    if (act->off || !act->be || act->test ||
        !(act->be->collapse_layer || lvx_mirror_layer_served(act)))
        return;
    for (unsigned i = 0; i < vg->lv_count && p->n < LVX_MIRROR_POLLERS; i++) {
        const struct lvx_lv *lv = vg->lvs[i];
        if (!lvx_map_mirror_sync_layer(lv) || !lvx_actcmd_is_active(env, act, lv, NULL))
            continue;
        p->lv[p->n] = lvx_pool_strdup(env->pool, lv->name);
        p->uuid[p->n++] = lvx_pool_strdup(env->pool, lv->uuid);
    }
}

int lvx_mirror_pollers_spawn(struct lvx_cmd_env *env, const struct lvx_mirror_pollers *p)
{
    int rc = 0;
    unsigned interval = p->n ? lvx_lvcmd_polling_interval(env) : 0;
    for (unsigned i = 0; i < p->n; i++) {
        int r = lvx_mirror_poll_background(env, p->vg, p->lv[i], p->uuid[i], interval, false,
                                           false);
        if (r > rc)
            rc = r;
    }
    return rc;
}
