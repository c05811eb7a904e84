/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lockd_sanlock.c - lvmlockd's sanlock lease layout written with libsanlock_client
 * (see lockd_sanlock.h).  The library is opened when a shared VG needs it (dlopen), so
 * lvx and every program linked with liblvx run where sanlock is not installed.
 */
#include "meta/lockd_sanlock.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sanlock.h>
#include <sanlock_admin.h>

#define MIB (UINT64_C(1) << 20)
/* slots of align bytes on the LV (lvmlockd): 0 lockspace, 65 global, 66 VG, 67.. LVs */
#define SLOT_GL 65
#define SLOT_VG 66
#define SLOT_LV 67

struct sanlock_fns {
    int (*write_lockspace)(struct sanlk_lockspace *, int, uint32_t, uint32_t);
    int (*write_resource)(struct sanlk_resource *, int, int, uint32_t);
};

static int load(struct lvx_ctx *ctx, struct sanlock_fns *f)
{
    void *h = dlopen("libsanlock_client.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return lvx_error(ctx, ENOENT, "Cannot load sanlock's client library: %s", dlerror());
    f->write_lockspace = (int (*)(struct sanlk_lockspace *, int, uint32_t, uint32_t))
        dlsym(h, "sanlock_write_lockspace");
    f->write_resource = (int (*)(struct sanlk_resource *, int, int, uint32_t))
        dlsym(h, "sanlock_write_resource");
    if (!f->write_lockspace || !f->write_resource)
        return lvx_error(ctx, ENOENT, "sanlock's client library lacks sanlock_write_lockspace");
    return 0;                     /* kept loaded for the rest of the process */
}

uint64_t lvx_sanlock_lv_bytes(unsigned sector_size)
{
    return sector_size == 4096 ? 1024 * MIB : 256 * MIB;
}

static void set_name(char *dst, const char *src)
{
    memset(dst, 0, SANLK_NAME_LEN);
    memcpy(dst, src, strnlen(src, SANLK_NAME_LEN));
}

int lvx_sanlock_init_vg(struct lvx_ctx *ctx, const char *vgname,
                        const struct lvx_sanlock_area *a, bool global)
{
    struct sanlock_fns f = { 0 };
    int r = load(ctx, &f);
    if (r < 0)
        return r;
    bool big = a->sector_size == 4096;
    uint64_t align = big ? 8 * MIB : MIB;
    char ls_name[SANLK_NAME_LEN + 1];
    snprintf(ls_name, sizeof(ls_name), "lvm_%s", vgname);
    if (strlen(a->path) >= SANLK_PATH_LEN)
        return lvx_error(ctx, ENAMETOOLONG, "Device path too long for sanlock: %s", a->path);

    struct sanlk_lockspace ls;
    memset(&ls, 0, sizeof(ls));
    set_name(ls.name, ls_name);
    strcpy(ls.host_id_disk.path, a->path);
    ls.host_id_disk.offset = a->offset;
    ls.flags = big ? SANLK_LSF_SECTOR4K | SANLK_LSF_ALIGN8M : SANLK_LSF_SECTOR512 | SANLK_LSF_ALIGN1M;
    if ((r = f.write_lockspace(&ls, 0, 0, 0)) < 0)
        return lvx_error(ctx, r < -1 ? -r : EIO, "VG %s init failed: sanlock write_lockspace "
                         "error %d on %s", vgname, r, a->path);

    /* a resource with its one disk (the struct ends in a flexible array) */
    _Alignas(struct sanlk_resource) char rbuf[sizeof(struct sanlk_resource) +
                                              sizeof(struct sanlk_disk)];
    struct sanlk_resource *rs = (struct sanlk_resource *)(void *)rbuf;
    uint64_t slots = a->size / align;
    for (uint64_t slot = SLOT_GL; slot < slots; slot++) {
        memset(rbuf, 0, sizeof(rbuf));
        set_name(rs->lockspace_name, ls_name);
        set_name(rs->name, slot >= SLOT_LV ? "#unused" : slot == SLOT_VG ? "VGLK"
                             : global ? "GLLK" : "_GLLK_disabled");
        rs->num_disks = 1;
        rs->flags = big ? SANLK_RES_SECTOR4K | SANLK_RES_ALIGN8M
                          : SANLK_RES_SECTOR512 | SANLK_RES_ALIGN1M;
        strcpy(rs->disks[0].path, a->path);
        rs->disks[0].offset = a->offset + slot * align;
        if ((r = f.write_resource(rs, 0, 0, 0)) < 0)
            return lvx_error(ctx, r < -1 ? -r : EIO, "VG %s init failed: sanlock write_resource "
                             "error %d at %llu on %s", vgname, r,
                             (unsigned long long)rs->disks[0].offset, a->path);
    }
    return 0;
}
