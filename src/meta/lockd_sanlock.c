/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/lockd_sanlock.c - lvmlockd's sanlock lease layout written with libsanlock_client
 * (see lockd_sanlock.h), joining and leaving a VG's lockspace, and the VG lease taken
 * around a change.  The library is opened when a shared VG needs it (dlopen), so lvx
 * and every program linked with liblvx run where sanlock is not installed.
 */
#include "meta/lockd_sanlock.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sanlock.h>
#include <sanlock_admin.h>
#include <sanlock_resource.h>
#include <sanlock_rv.h>

#define MIB (UINT64_C(1) << 20)
/* slots of align bytes on the LV (lvmlockd): 0 lockspace, 65 global, 66 VG, 67.. LVs */
#define SLOT_GL 65
#define SLOT_VG 66
#define SLOT_LV 67

struct sanlock_fns {
    int (*write_lockspace)(struct sanlk_lockspace *, int, uint32_t, uint32_t);
    int (*write_resource)(struct sanlk_resource *, int, int, uint32_t);
    int (*read_lockspace)(struct sanlk_lockspace *, uint32_t, uint32_t *);
    int (*read_resource)(struct sanlk_resource *, uint32_t);
    int (*add_lockspace_timeout)(struct sanlk_lockspace *, uint32_t, uint32_t);
    int (*rem_lockspace)(struct sanlk_lockspace *, uint32_t);
    int (*get_lockspaces)(struct sanlk_lockspace **, int *, uint32_t);
    int (*reg)(void);
    int (*acquire)(int, int, uint32_t, int, struct sanlk_resource **, struct sanlk_options *);
    int (*release)(int, int, uint32_t, int, struct sanlk_resource **);
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
    f->read_lockspace = (int (*)(struct sanlk_lockspace *, uint32_t, uint32_t *))
        dlsym(h, "sanlock_read_lockspace");
    f->read_resource = (int (*)(struct sanlk_resource *, uint32_t))dlsym(h, "sanlock_read_resource");
    f->add_lockspace_timeout = (int (*)(struct sanlk_lockspace *, uint32_t, uint32_t))
        dlsym(h, "sanlock_add_lockspace_timeout");
    f->rem_lockspace = (int (*)(struct sanlk_lockspace *, uint32_t))dlsym(h, "sanlock_rem_lockspace");
    f->get_lockspaces = (int (*)(struct sanlk_lockspace **, int *, uint32_t))
        dlsym(h, "sanlock_get_lockspaces");
    f->reg = (int (*)(void))dlsym(h, "sanlock_register");
    f->acquire = (int (*)(int, int, uint32_t, int, struct sanlk_resource **,
                          struct sanlk_options *))dlsym(h, "sanlock_acquire");
    f->release = (int (*)(int, int, uint32_t, int, struct sanlk_resource **))
        dlsym(h, "sanlock_release");
    if (!f->write_lockspace || !f->write_resource || !f->read_lockspace || !f->read_resource ||
        !f->add_lockspace_timeout || !f->rem_lockspace || !f->get_lockspaces || !f->reg ||
        !f->acquire || !f->release)
        return lvx_error(ctx, ENOENT, "sanlock's client library lacks a function lvx needs");
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

/* A resource with its one disk (the struct ends in a flexible array). */
struct one_res {
    _Alignas(struct sanlk_resource) char buf[sizeof(struct sanlk_resource) +
                                             sizeof(struct sanlk_disk)];
};

/* The lease of slot (align bytes each) of the lvmlock LV at area_off on path, in lockspace
 * ls_name (up to SANLK_NAME_LEN bytes), named name (NULL: left empty, to be read). */
static struct sanlk_resource *slot_res(struct one_res *b, const char *ls_name, const char *path,
                                       uint64_t area_off, bool big, uint64_t slot,
                                       const char *name)
{
    uint64_t align = big ? 8 * MIB : MIB;
    memset(b, 0, sizeof(*b));
    struct sanlk_resource *rs = (struct sanlk_resource *)(void *)b->buf;
    set_name(rs->lockspace_name, ls_name);
    if (name)
        set_name(rs->name, name);
    rs->num_disks = 1;
    rs->flags = big ? SANLK_RES_SECTOR4K | SANLK_RES_ALIGN8M : SANLK_RES_SECTOR512 | SANLK_RES_ALIGN1M;
    memcpy(rs->disks[0].path, path, strnlen(path, SANLK_PATH_LEN - 1));
    rs->disks[0].offset = area_off + slot * align;
    return rs;
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

    struct one_res rb;
    uint64_t slots = a->size / align;
    for (uint64_t slot = SLOT_GL; slot < slots; slot++) {
        struct sanlk_resource *rs = slot_res(&rb, ls_name, a->path, a->offset, big, slot,
                                             slot >= SLOT_LV ? "#unused" : slot == SLOT_VG ? "VGLK"
                                             : global ? "GLLK" : "_GLLK_disabled");
        if ((r = f.write_resource(rs, 0, 0, 0)) < 0)
            return lvx_error(ctx, r < -1 ? -r : EIO, "VG %s init failed: sanlock write_resource "
                             "error %d at %llu on %s", vgname, r,
                             (unsigned long long)rs->disks[0].offset, a->path);
    }
    return 0;
}

static void ls_name_of(char *out, const char *vgname)
{
    memset(out, 0, SANLK_NAME_LEN + 1);
    snprintf(out, SANLK_NAME_LEN + 1, "lvm_%s", vgname);
}

/* The joined lockspace of vgname on this host's sanlock daemon into *out: 0, -ENOENT. */
static int find_lockspace(struct lvx_ctx *ctx, const struct sanlock_fns *f, const char *vgname,
                          struct sanlk_lockspace *out)
{
    char want[SANLK_NAME_LEN + 1];
    ls_name_of(want, vgname);
    struct sanlk_lockspace *all = NULL;
    int n = 0;
    int r = f->get_lockspaces(&all, &n, 0);
    if (r < 0 && r != -ENOSPC) {
        free(all);
        return lvx_error(ctx, EIO, "Cannot ask the sanlock daemon for its lockspaces: error %d", r);
    }
    int found = -ENOENT;
    for (int i = 0; i < n && all; i++)
        if (strncmp(all[i].name, want, SANLK_NAME_LEN) == 0) {
            *out = all[i];
            found = 0;
            break;
        }
    free(all);
    return found;
}

int lvx_sanlock_start(struct lvx_ctx *ctx, const char *vgname, const struct lvx_sanlock_area *a,
                      uint64_t host_id, unsigned io_timeout)
{
    struct sanlock_fns f = { 0 };
    int r = load(ctx, &f);
    if (r < 0)
        return r;
    struct sanlk_lockspace ls;
    memset(&ls, 0, sizeof(ls));
    if (strlen(a->path) >= SANLK_PATH_LEN)
        return lvx_error(ctx, ENAMETOOLONG, "Device path too long for sanlock: %s", a->path);
    strcpy(ls.host_id_disk.path, a->path);
    ls.host_id_disk.offset = a->offset;
    uint32_t timeout = 0;
    if ((r = f.read_lockspace(&ls, 0, &timeout)) < 0)    /* the sizes the VG was made with */
        return lvx_error(ctx, EIO, "VG %s start failed: sanlock read_lockspace error %d on %s",
                         vgname, r, a->path);
    char want[SANLK_NAME_LEN + 1];
    ls_name_of(want, vgname);
    if (strncmp(ls.name, want, SANLK_NAME_LEN) != 0)
        return lvx_error(ctx, EINVAL, "VG %s start failed: the lease area holds lockspace %.48s",
                         vgname, ls.name);
    ls.host_id = host_id;
    ls.host_id_disk.offset = a->offset;
    strcpy(ls.host_id_disk.path, a->path);
    r = f.add_lockspace_timeout(&ls, 0, io_timeout);
    if (r == -EEXIST)
        return 0;                 /* already joined */
    if (r < 0)
        return lvx_error(ctx, EIO, "VG %s start failed: sanlock add_lockspace error %d", vgname, r);
    return 0;
}

int lvx_sanlock_stop(struct lvx_ctx *ctx, const char *vgname)
{
    struct sanlock_fns f = { 0 };
    int r = load(ctx, &f);
    if (r < 0)
        return r;
    struct sanlk_lockspace ls;
    if ((r = find_lockspace(ctx, &f, vgname, &ls)) < 0)
        return r;
    if ((r = f.rem_lockspace(&ls, 0)) < 0)
        return lvx_error(ctx, EBUSY, "VG %s stop failed: sanlock rem_lockspace error %d", vgname, r);
    return 0;
}

bool lvx_sanlock_started(struct lvx_ctx *ctx, const char *vgname)
{
    struct sanlock_fns f = { 0 };
    struct sanlk_lockspace ls;
    if (load(ctx, &f) < 0) {
        lvx_error_clear(ctx);
        return false;
    }
    bool on = find_lockspace(ctx, &f, vgname, &ls) == 0;
    lvx_error_clear(ctx);
    return on;
}

/* Lease contention: sanlock says another host holds it, or won the ballot. */
static bool held_elsewhere(int r)
{
    return r == -EAGAIN || r == SANLK_ACQUIRE_IDLIVE || r == SANLK_ACQUIRE_OWNED ||
           r == SANLK_ACQUIRE_OTHER || r == SANLK_ACQUIRE_OWNED_RETRY ||
           r == SANLK_DBLOCK_LVER || r == SANLK_DBLOCK_MBAL;
}

/* Acquire the lease of slot (or of the byte offset lv_off in the lvmlock LV when slot is
 * 0) named name, exclusive or shared, for a new sanlock client of this process, trying
 * retries more times while another host holds it.  *sock the client (its close
 * releases the lease); -EAGAIN held elsewhere, -ENOENT lockspace not joined, both
 * without a message; other failures with one. */
static int acquire(struct lvx_ctx *ctx, const char *vgname, uint64_t slot, uint64_t lv_off,
                   const char *name, bool shared, unsigned retries, int *sock)
{
    *sock = -1;
    struct sanlock_fns f = { 0 };
    int r = load(ctx, &f);
    if (r < 0)
        return r;
    struct sanlk_lockspace ls;
    if ((r = find_lockspace(ctx, &f, vgname, &ls)) < 0) {
        /* no sanlock daemon, or the lockspace not joined here (vgchange --lockstart) */
        lvx_error_clear(ctx);
        lvx_debug(ctx, "VG %s: lockspace lvm_%s is not started on this host.", vgname, vgname);
        return -ENOENT;
    }
    bool big = ls.flags & SANLK_LSF_SECTOR4K;
    struct one_res rb;
    struct sanlk_resource *rs = slot_res(&rb, ls.name, ls.host_id_disk.path,
                                         ls.host_id_disk.offset, big, slot, name);
    if (!slot)
        rs->disks[0].offset = ls.host_id_disk.offset + lv_off;
    if (shared)
        rs->flags |= SANLK_RES_SHARED;
    /* a process-owned lease (not persistent): released by sanlock if the holder dies */
    int s = f.reg();
    if (s < 0)
        return lvx_error(ctx, EIO, "VG %s lock failed: cannot register with sanlock (error %d).",
                         vgname, s);
    struct sanlk_options opt;
    memset(&opt, 0, sizeof(opt));
    snprintf(opt.owner_name, sizeof(opt.owner_name), "lvx");
    struct timespec pause = { 0, 0 };
    for (unsigned attempt = 0;; attempt++) {
        r = f.acquire(s, -1, SANLK_ACQUIRE_OWNER_NOWAIT, 1, &rs, &opt);
        /* -EEXIST: a process of this host holds it, or sanlock is still releasing it
         * after its holder let go (a daemon's deactivation): both pass */
        bool busy = held_elsewhere(r) || r == -EEXIST;
        if (r == 0 || !busy || attempt >= retries)
            break;
        /* another host's change takes a few sanlock I/Os: wait 50-300 ms and retry */
        pause.tv_nsec = (long)(50 + (unsigned)rand() % 250) * 1000000L;
        nanosleep(&pause, NULL);
    }
    if (r < 0) {
        close(s);
        if (held_elsewhere(r) || r == -EEXIST)
            return -EAGAIN;
        return lvx_error(ctx, EIO, "sanlock acquire error %d.", r);
    }
    *sock = s;
    return 0;
}

int lvx_sanlock_vg_lock(struct lvx_ctx *ctx, const char *vgname, unsigned retries, int *sock)
{
    int r = acquire(ctx, vgname, SLOT_VG, 0, "VGLK", false, retries, sock);
    if (r == -EAGAIN)
        lvx_log(ctx, LVX_LOG_ERROR, "VG %s lock failed: held by other host.", vgname);
    else if (r < 0 && r != -ENOENT)
        lvx_log(ctx, LVX_LOG_ERROR, "VG %s lock failed: %s", vgname, ctx->errmsg);
    if (r < 0)
        return lvx_error(ctx, EAGAIN, "Cannot access VG %s due to failed lock.", vgname);
    return 0;
}

int lvx_sanlock_gl_lock(struct lvx_ctx *ctx, unsigned retries, int *sock)
{
    *sock = -1;
    struct sanlock_fns f = { 0 };
    if (load(ctx, &f) < 0) {
        lvx_error_clear(ctx);
        return 0;                 /* no sanlock here: no global lock to take */
    }
    struct sanlk_lockspace *all = NULL;
    int n = 0;
    int r = f.get_lockspaces(&all, &n, 0);
    if (r < 0 && r != -ENOSPC) {
        free(all);
        return 0;                 /* no sanlock daemon */
    }
    char vgname[SANLK_NAME_LEN + 1] = "";
    for (int i = 0; i < n && all && !vgname[0]; i++) {
        if (strncmp(all[i].name, "lvm_", 4) != 0)
            continue;
        /* lvmlockd's global lock: slot 65 named "GLLK" (else "_GLLK_disabled") */
        struct one_res rb;
        struct sanlk_resource *rs = slot_res(&rb, all[i].name, all[i].host_id_disk.path,
                                             all[i].host_id_disk.offset,
                                             all[i].flags & SANLK_LSF_SECTOR4K, SLOT_GL, NULL);
        if (f.read_resource(rs, 0) == 0 && strncmp(rs->name, "GLLK", SANLK_NAME_LEN) == 0)
            snprintf(vgname, sizeof(vgname), "%.*s", SANLK_NAME_LEN - 4, all[i].name + 4);
    }
    free(all);
    if (!vgname[0])
        return 0;                 /* no started VG holds it */
    r = acquire(ctx, vgname, SLOT_GL, 0, "GLLK", false, retries, sock);
    if (r == -EAGAIN)
        return lvx_error(ctx, EAGAIN, "Global lock failed: held by other host.");
    if (r == -ENOENT)
        return 0;
    if (r < 0)
        return lvx_error(ctx, EIO, "Global lock failed: %s", ctx->errmsg);
    return 0;
}

int lvx_sanlock_lv_lock(struct lvx_ctx *ctx, const char *vgname, const char *lvname,
                        const char *lv_uuid, uint64_t offset, bool shared, unsigned retries,
                        int *sock)
{
    int r = acquire(ctx, vgname, 0, offset, lv_uuid, shared, retries, sock);
    if (r == -EAGAIN)
        return lvx_error(ctx, EAGAIN, "LV locked by other host: %s/%s", vgname, lvname);
    if (r == -ENOENT)
        return lvx_error(ctx, EAGAIN, "Cannot access VG %s due to failed lock.", vgname);
    if (r < 0)
        return lvx_error(ctx, EIO, "LV lock %s error: %s/%s: %s", shared ? "sh" : "ex", vgname,
                         lvname, ctx->errmsg);
    return 0;
}

void lvx_sanlock_unlock(int *sock)
{
    if (*sock < 0)
        return;
    /* released now, not when sanlock notices the closed connection: a lease taken
     * again at once (lvremove after deactivation, another host) must find it free */
    struct sanlock_fns f = { 0 };
    struct lvx_ctx tmp;
    lvx_ctx_init(&tmp);
    if (load(&tmp, &f) == 0)
        f.release(*sock, -1, SANLK_REL_ALL, 0, NULL);
    close(*sock);                 /* anything left goes with the connection */
    *sock = -1;
}

int lvx_sanlock_init_lv(struct lvx_ctx *ctx, const char *vgname, const char *lv_uuid,
                        uint64_t *offset)
{
    struct sanlock_fns f = { 0 };
    int r = load(ctx, &f);
    if (r < 0)
        return r;
    struct sanlk_lockspace ls;
    if ((r = find_lockspace(ctx, &f, vgname, &ls)) < 0)
        return r == -ENOENT ? lvx_error(ctx, ENOENT, "VG %s: lockspace is not started.", vgname)
                            : r;
    bool big = ls.flags & SANLK_LSF_SECTOR4K;
    uint64_t align = big ? 8 * MIB : MIB;
    struct one_res rb;
    /* the first slot that is "#unused" or was never written, as lvmlockd looks */
    for (uint64_t slot = SLOT_LV;; slot++) {
        struct sanlk_resource *rs = slot_res(&rb, ls.name, ls.host_id_disk.path,
                                             ls.host_id_disk.offset, big, slot, NULL);
        r = f.read_resource(rs, 0);
        if (r == -EMSGSIZE || r == -ENOSPC)
            return lvx_error(ctx, ENOSPC, "VG %s: no free lease for a new LV in its lvmlock LV.",
                             vgname);
        if (r != SANLK_LEADER_MAGIC && r < 0)
            return lvx_error(ctx, EIO, "VG %s: sanlock read_resource error %d.", vgname, r);
        if (r == 0 && strncmp(rs->name, "#unused", SANLK_NAME_LEN) != 0)
            continue;
        set_name(rs->name, lv_uuid);
        set_name(rs->lockspace_name, ls.name);
        if ((r = f.write_resource(rs, 0, 0, 0)) < 0)
            return lvx_error(ctx, EIO, "VG %s: sanlock write_resource error %d for LV lease.",
                             vgname, r);
        *offset = slot * align;
        return 0;
    }
}

int lvx_sanlock_free_lv(struct lvx_ctx *ctx, const char *vgname, const char *lvname,
                        const char *lv_uuid, uint64_t offset)
{
    /* not active on any host: an exclusive lease we can take (and drop) */
    int sock = -1;
    int r = lvx_sanlock_lv_lock(ctx, vgname, lvname, lv_uuid, offset, false, 20, &sock);
    if (r < 0)
        return r;
    lvx_sanlock_unlock(&sock);
    struct sanlock_fns f = { 0 };
    struct sanlk_lockspace ls;
    if ((r = load(ctx, &f)) < 0 || (r = find_lockspace(ctx, &f, vgname, &ls)) < 0)
        return r;
    struct one_res rb;
    struct sanlk_resource *rs = slot_res(&rb, ls.name, ls.host_id_disk.path,
                                         ls.host_id_disk.offset, ls.flags & SANLK_LSF_SECTOR4K,
                                         0, "#unused");
    rs->disks[0].offset = ls.host_id_disk.offset + offset;
    if ((r = f.write_resource(rs, 0, 0, 0)) < 0)
        return lvx_error(ctx, EIO, "VG %s: sanlock write_resource error %d freeing the lease of "
                         "LV %s.", vgname, r, lvname);
    return 0;
}
