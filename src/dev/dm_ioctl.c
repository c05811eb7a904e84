/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/dm_ioctl.c - device-mapper ioctls on /dev/mapper/control (see
 * dm_ioctl.h for why there is no libdevmapper).
 *
 * Every call builds one buffer: struct dm_ioctl, then (from data_start) the
 * payload: target specs each followed by its NUL-terminated parameters and
 * padded to 8 bytes (TABLE_LOAD; `next` = offset from this spec to the next),
 * or the new name (DEV_RENAME).  Answers come back in the same buffer; when the
 * kernel sets DM_BUFFER_FULL_FLAG the call is repeated with a larger one.
 * Answer layouts: TABLE_STATUS specs' `next` counts from the start of the data
 * area, LIST_DEVICES entries' `next` from the entry itself (0 = last).
 *
 * A suspend is issued from a thread of its own, every signal blocked there: the kernel
 * waits for the device's I/O interruptibly, and an interrupted suspend has already run
 * the targets' presuspend, which dm-mirror does not undo (its recovery stopped for
 * good: the restarted ioctl, and any later suspend, waits forever in
 * dm_rh_stop_recovery).  Not only signals interrupt that wait: lvx's suspend was seen
 * to return ERESTARTSYS with no signal delivered (a TIF_NOTIFY_SIGNAL wakeup, presumably
 * the task work the kernel's teardown of a closed io_uring ring queues on the thread
 * that used it: dev/io.c's batched reads); a new thread has used no ring.  LVM2
 * (libaio, signals blocked around a suspend) is not exposed.
 */
#include "dev/dm_ioctl.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dm-ioctl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CONTROL_PATH "/dev/mapper/control"
#define INITIAL_BUFFER 16384u
#define MAX_BUFFER (64u << 20)

bool lvx_dm_test_fail(const char *op)
{
    const char *v = getenv("LVX_TEST_DM_FAIL");
    return v && strcmp(v, op) == 0;
}

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* A zeroed request buffer of `size` bytes with header fields set. */
static struct dm_ioctl *request_new(size_t size, const char *name)
{
    struct dm_ioctl *io = lvx_xcalloc(1, size);
    io->version[0] = DM_VERSION_MAJOR;
    io->version[1] = 0;
    io->version[2] = 0;
    io->data_size = (uint32_t)size;
    io->data_start = (uint32_t)align8(sizeof(*io));
    if (name)
        snprintf(io->name, sizeof(io->name), "%s", name);
    return io;
}

static const char *op_name(unsigned long req)
{
    switch (req) {
    case DM_VERSION: return "DM_VERSION";
    case DM_DEV_CREATE: return "DM_DEV_CREATE";
    case DM_TABLE_LOAD: return "DM_TABLE_LOAD";
    case DM_DEV_SUSPEND: return "DM_DEV_SUSPEND";
    case DM_TABLE_CLEAR: return "DM_TABLE_CLEAR";
    case DM_DEV_REMOVE: return "DM_DEV_REMOVE";
    case DM_DEV_RENAME: return "DM_DEV_RENAME";
    case DM_DEV_STATUS: return "DM_DEV_STATUS";
    case DM_TABLE_STATUS: return "DM_TABLE_STATUS";
    case DM_LIST_DEVICES: return "DM_LIST_DEVICES";
    case DM_TARGET_MSG: return "DM_TARGET_MSG";
    case DM_DEV_ARM_POLL: return "DM_DEV_ARM_POLL";
    default: return "DM ioctl";
    }
}

struct quiet_ioctl {
    int fd;
    unsigned long req;
    struct dm_ioctl *io;
    int err;   /* errno, 0 when the ioctl succeeded */
};

static void *quiet_ioctl_run(void *arg)
{
    struct quiet_ioctl *q = arg;
    q->err = ioctl(q->fd, q->req, q->io) == 0 ? 0 : errno;
    return NULL;
}

/* ioctl(fd, req, io) from a new thread that blocks every signal and has no io_uring
 * (see the top of this file); the calling thread when no thread can be made.  0 or
 * -1 with errno set, as ioctl. */
static int quiet_ioctl(int fd, unsigned long req, struct dm_ioctl *io)
{
    struct quiet_ioctl q = { .fd = fd, .req = req, .io = io };
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* the new thread inherits the mask */
    pthread_t t;
    bool made = pthread_create(&t, NULL, quiet_ioctl_run, &q) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!made)
        return ioctl(fd, req, io);
    pthread_join(t, NULL);
    errno = q.err;
    return q.err ? -1 : 0;
}

/* Issue req (a suspend through quiet_ioctl).  -errno with a message naming the device
 * and the call. */
static int dm_call(struct lvx_ctx *ctx, struct lvx_dm *dm, unsigned long req, struct dm_ioctl *io,
                   const char *what)
{
    bool suspend = req == DM_DEV_SUSPEND && (io->flags & DM_SUSPEND_FLAG);
    if ((suspend ? quiet_ioctl(dm->fd, req, io) : ioctl(dm->fd, req, io)) == 0)
        return 0;
    int e = errno;
    if (io->name[0])
        return lvx_error(ctx, e, "device-mapper: %s of %s failed: %s", what ? what : op_name(req),
                         io->name, strerror(e));
    return lvx_error(ctx, e, "device-mapper: %s failed: %s", what ? what : op_name(req),
                     strerror(e));
}

/* Issue an answer-returning req, growing the buffer while the kernel says it is full.
 * *iop is replaced by the final buffer (caller frees). */
static int dm_call_grow(struct lvx_ctx *ctx, struct lvx_dm *dm, unsigned long req,
                        struct dm_ioctl **iop)
{
    for (;;) {
        struct dm_ioctl *io = *iop;
        int r = dm_call(ctx, dm, req, io, NULL);
        if (r < 0 || !(io->flags & DM_BUFFER_FULL_FLAG))
            return r;
        size_t size = (size_t)io->data_size * 2;
        if (size > MAX_BUFFER)
            return lvx_error(ctx, ENOBUFS, "device-mapper: answer of %s too large", op_name(req));
        struct dm_ioctl *bigger = request_new(size, NULL);
        memcpy(bigger, io, sizeof(*io));
        bigger->data_size = (uint32_t)size;
        bigger->flags &= ~(uint32_t)DM_BUFFER_FULL_FLAG;
        free(io);
        *iop = bigger;
    }
}

static void fill_info(const struct dm_ioctl *io, struct lvx_dm_info *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof(*out));
    out->exists = true;
    out->major = major(io->dev);
    out->minor = minor(io->dev);
    out->open_count = io->open_count;
    out->target_count = io->target_count;
    out->event_nr = io->event_nr;
    out->suspended = (io->flags & DM_SUSPEND_FLAG) != 0;
    out->read_only = (io->flags & DM_READONLY_FLAG) != 0;
    out->live_table = (io->flags & DM_ACTIVE_PRESENT_FLAG) != 0;
    out->inactive_table = (io->flags & DM_INACTIVE_PRESENT_FLAG) != 0;
    snprintf(out->name, sizeof(out->name), "%.*s", (int)sizeof(io->name), io->name);
    snprintf(out->uuid, sizeof(out->uuid), "%.*s", (int)sizeof(io->uuid), io->uuid);
}

/* The control node is missing: make it from the misc minor /proc/misc lists. */
static void make_control_node(void)
{
    FILE *f = fopen("/proc/misc", "r");
    unsigned minor_nr;
    char name[64];
    if (!f)
        return;
    while (fscanf(f, "%u %63s", &minor_nr, name) == 2) {
        if (strcmp(name, "device-mapper") == 0) {
            mkdir("/dev/mapper", 0755);
            mknod(CONTROL_PATH, S_IFCHR | 0600, makedev(10, minor_nr));
            break;
        }
    }
    fclose(f);
}

int lvx_dm_open(struct lvx_ctx *ctx, struct lvx_dm *dm)
{
    dm->fd = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
    if (dm->fd < 0 && errno == ENOENT) {
        make_control_node();
        dm->fd = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
    }
    if (dm->fd < 0) {
        int e = errno;
        return lvx_error(ctx, ENODEV, "device-mapper not available: %s: %s", CONTROL_PATH,
                         strerror(e));
    }
    struct dm_ioctl *io = request_new(INITIAL_BUFFER, NULL);
    int r = ioctl(dm->fd, DM_VERSION, io);
    int e = errno;
    if (r == 0)
        memcpy(dm->version, io->version, sizeof(dm->version));
    free(io);
    if (r < 0) {
        close(dm->fd);
        dm->fd = -1;
        return lvx_error(ctx, ENODEV, "device-mapper not available: DM_VERSION on %s: %s",
                         CONTROL_PATH, strerror(e));
    }
    return 0;
}

void lvx_dm_close(struct lvx_dm *dm)
{
    if (dm->fd >= 0)
        close(dm->fd);
    dm->fd = -1;
}

static bool name_fits(struct lvx_ctx *ctx, const char *name, int *rc)
{
    if (name && strlen(name) < DM_NAME_LEN)
        return true;
    *rc = lvx_error(ctx, ENAMETOOLONG, "device-mapper: bad device name \"%s\"", name ? name : "");
    return false;
}

static int injected(struct lvx_ctx *ctx, const char *op, const char *name)
{
    return lvx_error(ctx, EIO, "device-mapper: %s of %s failed: injected failure "
                     "(LVX_TEST_DM_FAIL=%s)", op, name, op);
}

int lvx_dm_create(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, const char *uuid,
                  uint32_t fixed_major, uint32_t fixed_minor, struct lvx_dm_info *out)
{
    int rc = 0;
    if (!name_fits(ctx, name, &rc))
        return rc;
    if (uuid && strlen(uuid) >= DM_UUID_LEN)
        return lvx_error(ctx, ENAMETOOLONG, "device-mapper: bad device UUID \"%s\"", uuid);
    if (lvx_dm_test_fail("create"))
        return injected(ctx, "create", name);
    struct dm_ioctl *io = request_new(INITIAL_BUFFER, name);
    if (uuid)
        snprintf(io->uuid, sizeof(io->uuid), "%s", uuid);
    if (fixed_major || fixed_minor) {
        io->flags |= DM_PERSISTENT_DEV_FLAG;
        io->dev = makedev(fixed_major, fixed_minor);
    }
    rc = dm_call(ctx, dm, DM_DEV_CREATE, io, "create");
    if (rc == 0)
        fill_info(io, out);
    free(io);
    return rc;
}

/* One parsed table line. */
struct table_line {
    uint64_t start, len;
    char target[DM_MAX_TYPE_NAME];
    const char *params;          /* points into the table text */
    size_t params_len;
};

/* Parse the next non-empty line at *p; 1 when one was parsed, 0 at the end, <0 on error. */
static int parse_line(struct lvx_ctx *ctx, const char **p, struct table_line *tl)
{
    const char *s = *p;
    while (*s == '\n' || *s == ' ')
        s++;
    if (!*s) {
        *p = s;
        return 0;
    }
    const char *eol = strchr(s, '\n');
    if (!eol)
        eol = s + strlen(s);
    int type_len = 0, used = 0;
    char target[DM_MAX_TYPE_NAME + 1];
    if (sscanf(s, "%" SCNu64 " %" SCNu64 " %16s%n", &tl->start, &tl->len, target, &used) != 3 ||
        s + used > eol || (type_len = (int)strlen(target)) >= DM_MAX_TYPE_NAME)
        return lvx_error(ctx, EINVAL, "device-mapper: bad table line \"%.*s\"", (int)(eol - s), s);
    memcpy(tl->target, target, (size_t)type_len + 1);
    const char *params = s + used;
    while (params < eol && *params == ' ')
        params++;
    tl->params = params;
    tl->params_len = (size_t)(eol - params);
    *p = eol;
    return 1;
}

int lvx_dm_load(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, const char *table,
                bool read_only)
{
    int rc = 0;
    if (!name_fits(ctx, name, &rc))
        return rc;
    /* a real kernel refusal for tests: an unknown target type */
    if (lvx_dm_test_fail("load"))
        table = "0 8 lvx-injected\n";
    size_t need = align8(sizeof(struct dm_ioctl));
    unsigned count = 0;
    struct table_line tl;
    for (const char *p = table; (rc = parse_line(ctx, &p, &tl)) > 0; count++)
        need += align8(sizeof(struct dm_target_spec) + tl.params_len + 1);
    if (rc < 0)
        return rc;
    if (count == 0)
        return lvx_error(ctx, EINVAL, "device-mapper: empty table for %s", name);
    struct dm_ioctl *io = request_new(need, name);
    io->target_count = count;
    if (read_only)
        io->flags |= DM_READONLY_FLAG;
    char *pos = (char *)io + io->data_start;
    for (const char *p = table; parse_line(ctx, &p, &tl) > 0;) {
        struct dm_target_spec *spec = (struct dm_target_spec *)pos;
        size_t size = align8(sizeof(*spec) + tl.params_len + 1);
        spec->sector_start = tl.start;
        spec->length = tl.len;
        memcpy(spec->target_type, tl.target, strlen(tl.target) + 1);
        memcpy((char *)(spec + 1), tl.params, tl.params_len);
        spec->next = (uint32_t)size;
        pos += size;
    }
    rc = dm_call(ctx, dm, DM_TABLE_LOAD, io, "table load");
    free(io);
    return rc;
}

static int suspend_call(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, bool suspend,
                        uint32_t flags, struct lvx_dm_info *out)
{
    int rc = 0;
    if (!name_fits(ctx, name, &rc))
        return rc;
    if (lvx_dm_test_fail(suspend ? "suspend" : "resume"))
        return injected(ctx, suspend ? "suspend" : "resume", name);
    struct dm_ioctl *io = request_new(INITIAL_BUFFER, name);
    if (suspend)
        io->flags |= DM_SUSPEND_FLAG | flags;
    rc = dm_call(ctx, dm, DM_DEV_SUSPEND, io, suspend ? "suspend" : "resume");
    if (rc == 0)
        fill_info(io, out);
    free(io);
    return rc;
}

int lvx_dm_suspend(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name)
{
    return suspend_call(ctx, dm, name, true, 0, NULL);
}

int lvx_dm_suspend_noflush(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name)
{
    return suspend_call(ctx, dm, name, true, DM_NOFLUSH_FLAG, NULL);
}

int lvx_dm_resume(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                  struct lvx_dm_info *out)
{
    return suspend_call(ctx, dm, name, false, 0, out);
}

/* A call with just the name and flags. */
static int simple_call(struct lvx_ctx *ctx, struct lvx_dm *dm, unsigned long req,
                       const char *name, uint32_t flags, const char *what)
{
    int rc = 0;
    if (!name_fits(ctx, name, &rc))
        return rc;
    struct dm_ioctl *io = request_new(INITIAL_BUFFER, name);
    io->flags = flags;
    rc = dm_call(ctx, dm, req, io, what);
    free(io);
    return rc;
}

int lvx_dm_clear(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name)
{
    return simple_call(ctx, dm, DM_TABLE_CLEAR, name, 0, "table clear");
}

int lvx_dm_remove(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, bool deferred)
{
    return simple_call(ctx, dm, DM_DEV_REMOVE, name, deferred ? DM_DEFERRED_REMOVE : 0, "remove");
}

int lvx_dm_rename(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                  const char *new_name)
{
    int rc = 0;
    if (!name_fits(ctx, name, &rc) || !name_fits(ctx, new_name, &rc))
        return rc;
    if (lvx_dm_test_fail("rename"))
        return injected(ctx, "rename", name);
    struct dm_ioctl *io = request_new(align8(sizeof(struct dm_ioctl)) + DM_NAME_LEN, name);
    strcpy((char *)io + io->data_start, new_name);
    rc = dm_call(ctx, dm, DM_DEV_RENAME, io, "rename");
    free(io);
    return rc;
}

int lvx_dm_message(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, uint64_t sector,
                   const char *message)
{
    int rc = 0;
    if (!name_fits(ctx, name, &rc))
        return rc;
    if (lvx_dm_test_fail("message"))
        return injected(ctx, "message", name);
    size_t len = strlen(message);
    size_t off = align8(sizeof(struct dm_ioctl));
    struct dm_ioctl *io = request_new(off + sizeof(struct dm_target_msg) + len + 1 + 64, name);
    struct dm_target_msg *msg = (struct dm_target_msg *)((char *)io + off);
    msg->sector = sector;
    memcpy(msg->message, message, len + 1);
    char what[96];
    snprintf(what, sizeof(what), "message \"%.60s\"", message);
    rc = dm_call(ctx, dm, DM_TARGET_MSG, io, what);
    free(io);
    return rc;
}

int lvx_dm_arm_poll(struct lvx_ctx *ctx, struct lvx_dm *dm)
{
    if (dm->version[0] < 4 || (dm->version[0] == 4 && dm->version[1] < 37))
        return -ENOTSUP;
    struct dm_ioctl *io = request_new(INITIAL_BUFFER, NULL);
    int rc = dm_call(ctx, dm, DM_DEV_ARM_POLL, io, NULL);
    free(io);
    return rc;
}

int lvx_dm_info(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                struct lvx_dm_info *out)
{
    int rc = 0;
    memset(out, 0, sizeof(*out));
    if (!name_fits(ctx, name, &rc))
        return rc;
    struct dm_ioctl *io = request_new(INITIAL_BUFFER, name);
    if (ioctl(dm->fd, DM_DEV_STATUS, io) == 0) {
        fill_info(io, out);
    } else if (errno != ENXIO) {
        int e = errno;
        rc = lvx_error(ctx, e, "device-mapper: status of %s failed: %s", name, strerror(e));
    }
    free(io);
    return rc;
}

static int table_status(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                        uint32_t flags, struct lvx_buf *out)
{
    int rc = 0;
    if (!name_fits(ctx, name, &rc))
        return rc;
    struct dm_ioctl *io = request_new(INITIAL_BUFFER, name);
    io->flags = flags;
    rc = dm_call_grow(ctx, dm, DM_TABLE_STATUS, &io);
    if (rc == 0) {
        const char *data = (const char *)io + io->data_start;
        const char *end = (const char *)io + io->data_size;
        size_t off = 0;
        for (uint32_t i = 0; i < io->target_count; i++) {
            const struct dm_target_spec *spec = (const void *)(data + off);
            if ((const char *)(spec + 1) > end)
                break;
            lvx_buf_printf(out, "%llu %llu %.*s", (unsigned long long)spec->sector_start,
                           (unsigned long long)spec->length, DM_MAX_TYPE_NAME,
                           spec->target_type);
            const char *params = (const char *)(spec + 1);
            size_t plen = strnlen(params, (size_t)(end - params));
            if (plen)
                lvx_buf_printf(out, " %.*s", (int)plen, params);
            lvx_buf_putc(out, '\n');
            off = spec->next;
        }
    }
    free(io);
    return rc;
}

int lvx_dm_table(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name, bool status,
                 struct lvx_buf *out)
{
    return table_status(ctx, dm, name, status ? 0 : DM_STATUS_TABLE_FLAG, out);
}

int lvx_dm_status_noflush(struct lvx_ctx *ctx, struct lvx_dm *dm, const char *name,
                          struct lvx_buf *out)
{
    return table_status(ctx, dm, name, DM_NOFLUSH_FLAG, out);
}

int lvx_dm_list(struct lvx_ctx *ctx, struct lvx_dm *dm, struct lvx_pool *pool,
                const char ***names, unsigned *count)
{
    struct dm_ioctl *io = request_new(INITIAL_BUFFER, NULL);
    *names = NULL;
    *count = 0;
    int rc = dm_call_grow(ctx, dm, DM_LIST_DEVICES, &io);
    if (rc == 0) {
        const char *data = (const char *)io + io->data_start;
        const char *end = (const char *)io + io->data_size;
        const struct dm_name_list *nl = (const void *)data;
        unsigned n = 0, cap = 0;
        const char **v = NULL;
        while ((const char *)(nl + 1) <= end && nl->dev) {
            if (n == cap) {
                unsigned ncap = cap ? cap * 2 : 16;
                v = lvx_pool_realloc(pool, v, cap * sizeof(*v), ncap * sizeof(*v));
                cap = ncap;
            }
            v[n++] = lvx_pool_strndup(pool, nl->name, (size_t)(end - nl->name));
            if (!nl->next)
                break;
            nl = (const void *)((const char *)nl + nl->next);
        }
        *names = v;
        *count = n;
    }
    free(io);
    return rc;
}
