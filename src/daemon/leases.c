/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/leases.c - lease-only entries: the sanlock leases of shared VGs' LVs that
 * the kernel's device-mapper runs (the `dm` backend asks, activate/dm_lease.c).  A
 * sanlock lease belongs to the process that acquired it and is dropped when that
 * process dies, so it needs a process that lives as long as the dm device: this
 * worker holds it (as lvmlockd does for LVM2) and serves nothing for it.  The LV is
 * read from the devices the client names (its UUID must match), its lease taken with
 * meta/lockd.h (a thin LV: its pool's, taken once for every entry of the pool, and
 * handed to another entry when the holder goes).  Entries live in this worker only:
 * a worker that dies loses them and sanlock releases the leases (the dm devices
 * stay, as with an lvmlockd that dies).  Used by the control loop only (one request
 * at a time): no lock.
 *
 * Entry points: lvxd_lease_take(), lvxd_lease_drop(), lvxd_lease_count().
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/lockd.h"
#include "meta/read.h"

struct entry {
    char vg[128], lv[128], uuid[LVX_UUID_LEN + 1];
    char owner[LVX_UUID_LEN + 1];   /* the LV whose lease covers this one */
    int hold;                       /* meta/lockd.h's; 0: held by another entry */
    bool shared;
    struct entry *next;
};

static struct entry *entries;

static struct entry *find(const char *vg, const char *lv)
{
    for (struct entry *e = entries; e; e = e->next)
        if (strcmp(e->vg, vg) == 0 && strcmp(e->lv, lv) == 0)
            return e;
    return NULL;
}

static struct entry *holder(const char *owner)
{
    for (struct entry *e = entries; e; e = e->next)
        if (e->hold > 0 && strcmp(e->owner, owner) == 0)
            return e;
    return NULL;
}

int lvxd_lease_take(struct lvx_ctx *ctx, const char *vg, const char *lv, const char *uuid,
                    unsigned flags, const char *devs, bool *taken)
{
    *taken = false;
    const struct entry *had = find(vg, lv);
    if (had && strcmp(had->uuid, uuid) != 0)
        return lvx_error(ctx, ESTALE, "Logical volume %s/%s holds a lease with another UUID.",
                         vg, lv);
    if (had)
        return 0;                   /* active already: its lease is held */
    if (strlen(vg) >= sizeof(entries->vg) || strlen(lv) >= sizeof(entries->lv))
        return lvx_error(ctx, ENAMETOOLONG, "The name of %s/%s is too long.", vg, lv);
    struct lvx_scan *scan = NULL;
    struct lvx_vgset *set = NULL;
    int rc = lvxd_read_vgs(ctx, devs, &scan, &set);
    const struct lvx_vg *g = rc == 0 ? lvx_vgset_find(set, vg) : NULL;
    const struct lvx_lv *l = g ? lvx_vg_find_lv(g, lv) : NULL;
    if (rc == 0 && !l)
        rc = lvx_error(ctx, ENOENT, "Logical volume %s/%s not found on its devices.", vg, lv);
    else if (rc == 0 && strcmp(l->uuid, uuid) != 0)
        rc = lvx_error(ctx, ESTALE, "Logical volume %s/%s on the devices has another UUID.",
                       vg, lv);
    const struct lvx_lv *owner = rc == 0 ? lvx_lockd_lease_owner(l) : NULL;
    bool shared = flags & LVXD_FLAG_LOCK_SH;
    int hold = 0;
    if (rc == 0 && owner && !(holder(owner->uuid) && !shared))
        rc = lvx_lockd_lv_lock(ctx, l, shared, 0, &hold);
    if (rc == 0 && owner) {
        struct entry *e = calloc(1, sizeof(*e));
        if (!e) {
            lvx_lockd_lv_unlock(&hold);
            rc = lvx_error(ctx, ENOMEM, "Out of memory holding the lease of %s/%s.", vg, lv);
        } else {
            snprintf(e->vg, sizeof(e->vg), "%s", vg);
            snprintf(e->lv, sizeof(e->lv), "%s", lv);
            snprintf(e->uuid, sizeof(e->uuid), "%s", l->uuid);
            snprintf(e->owner, sizeof(e->owner), "%s", owner->uuid);
            e->hold = hold;
            e->shared = shared && hold;
            e->next = entries;
            entries = e;
            *taken = true;
            lvxd_log("holding the lease of %s/%s (%s%s) for device-mapper", vg, lv,
                     shared ? "shared" : "exclusive", hold ? "" : ", its pool's, held already");
        }
    }
    lvx_vgset_free(set);
    lvx_scan_free(scan);
    return rc;
}

bool lvxd_lease_drop(const char *vg, const char *lv)
{
    struct entry **p = &entries;
    while (*p && !(strcmp((*p)->vg, vg) == 0 && strcmp((*p)->lv, lv) == 0))
        p = &(*p)->next;
    struct entry *e = *p;
    if (!e)
        return false;
    *p = e->next;
    /* a lease other entries share (a thin pool's) goes to one of them */
    for (struct entry *o = entries; o && e->hold > 0; o = o->next)
        if (o->hold == 0 && strcmp(o->owner, e->owner) == 0) {
            o->hold = e->hold;
            e->hold = 0;
        }
    lvx_lockd_lv_unlock(&e->hold);
    lvxd_log("released the lease of %s/%s", vg, lv);
    free(e);
    return true;
}

unsigned lvxd_lease_count(void)
{
    unsigned n = 0;
    for (struct entry *e = entries; e; e = e->next)
        n++;
    return n;
}
