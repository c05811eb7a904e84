/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/fuse.c - the FUSE file system of the daemon, speaking the kernel
 * protocol (linux/fuse.h) directly on /dev/fuse: a root directory holding one
 * regular file per active LV (node id = the LV's id, stable across daemon
 * restarts).  A fixed set of threads, each with its buffer and io_uring made
 * before serving, reads requests and replies; nothing is allocated while
 * serving, so the daemon never waits for memory that writeback through it
 * would have to free.
 *
 * Buffers: a request is read at 4096 - 80 bytes into the thread's buffer, so a
 * WRITE's payload (after the 40-byte header and the 40-byte fuse_write_in) is
 * page aligned and goes to the PVs with O_DIRECT without a copy; READs land in
 * the same aligned area and are replied from it.  Negotiated: 1 MiB max_write
 * and max_read (max_pages 256, and max_read as a mount option), async direct
 * I/O, many background requests; files are opened FOPEN_DIRECT_IO.
 *
 * Access: root only (mount option default_permissions: the kernel checks the
 * modes, root's 0700 directory and 0600 files; and the requests' uid, see
 * needs_root()).
 *
 * A restarted worker (the previous one died, the supervisor kept the
 * connection) asks the kernel to resend the requests the dead one had read
 * (FUSE_NOTIFY_RESEND, Linux 6.9+).
 *
 * Entry points: lvxd_fuse_mount(), lvxd_fuse_start(), lvxd_fuse_join(),
 * lvxd_fuse_tune_bdi().
 */
#include "daemon/daemon_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef FUSE_NOTIFY_RESEND
#define FUSE_NOTIFY_RESEND 7
#endif

#define PAGE 4096u
#define HDR_LEN (sizeof(struct fuse_in_header) + sizeof(struct fuse_write_in))
#define BUF_SIZE (PAGE + LVXD_MAX_IO + 2 * PAGE)
#define STACK_SIZE (256u * 1024)
#define OUR_MINOR 38
#define ROOT_INO FUSE_ROOT_ID

struct worker {
    pthread_t th;
    int fd;
    uint8_t *base;          /* BUF_SIZE, page aligned */
    struct lvxd_io io;
    bool started;
};

static struct worker *workers;
static unsigned nworkers;

int lvxd_fuse_mount(int fd, const char *dir)
{
    char opts[256];
    snprintf(opts, sizeof(opts),
             "fd=%d,rootmode=40700,user_id=0,group_id=0,allow_other,default_permissions,"
             "max_read=%u", fd,
             LVXD_MAX_IO);
    if (mount("lvx", dir, "fuse.lvx", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0)
        return -errno;
    return 0;
}

/* major:minor of the file system mounted at dir, from /proc/self/mountinfo (no
 * stat(2): that would be a request to ourselves). */
static bool mount_dev(const char *dir, unsigned *maj, unsigned *min)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    char line[4096], mp[4096];
    bool found = false;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "%*s %*s %u:%u %*s %4095s", maj, min, mp) == 3 && strcmp(mp, dir) == 0)
            found = true;   /* the last one: the top of the stack */
    if (f)
        fclose(f);
    return found;
}

void lvxd_fuse_tune_bdi(const char *dir)
{
    unsigned maj, min;
    char path[128];
    if (!mount_dev(dir, &maj, &min))
        return;
    snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb", maj, min);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "4096\n", 5) < 0)
        lvxd_log("warning: cannot raise %s", path);
    if (fd >= 0)
        close(fd);
}

/* --- replies ---------------------------------------------------------------- */
static void send_iov(int fd, uint64_t unique, int err, struct iovec *iov, int cnt)
{
    struct fuse_out_header out = { .error = -abs(err), .unique = unique };
    size_t len = sizeof(out);
    iov[0].iov_base = &out;
    iov[0].iov_len = sizeof(out);
    for (int i = 1; i < cnt; i++)
        len += iov[i].iov_len;
    out.len = (uint32_t)len;
    if (writev(fd, iov, cnt) < 0 && errno != ENOENT)
        lvxd_log("warning: FUSE reply %llu: %s", (unsigned long long)unique, strerror(errno));
}

static void reply(int fd, uint64_t unique, int err, const void *data, size_t len)
{
    struct iovec iov[2] = { { 0, 0 }, { (void *)data, len } };
    send_iov(fd, unique, err, iov, err || !len ? 1 : 2);
}

/* --- attributes -------------------------------------------------------------- */
static void root_attr(struct fuse_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->ino = ROOT_INO;
    a->mode = S_IFDIR | 0700;
    a->nlink = 2;
    a->blksize = PAGE;
}

static void lv_attr(const struct lvxd_lv *v, struct fuse_attr *a)
{
    memset(a, 0, sizeof(*a));
    a->ino = v->ino;
    a->size = v->size;
    a->blocks = v->size / 512;
    a->mode = S_IFREG | (v->read_only ? 0400 : 0600);
    a->nlink = 1;
    a->blksize = PAGE;
}

/* Attributes of a node; false when it does not exist. */
static bool node_attr(uint64_t ino, struct fuse_attr *a)
{
    if (ino == ROOT_INO) {
        root_attr(a);
        return true;
    }
    bool found = false;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (struct lvxd_lv *v = lvxd_lvs; v && !found; v = v->next)
        if (v->ino == ino) {
            lv_attr(v, a);
            found = true;
        }
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    return found;
}

/* --- requests ------------------------------------------------------------------ */
static void do_init(int fd, const struct fuse_in_header *h, const void *arg)
{
    const struct fuse_init_in *in = arg;
    struct fuse_init_out out;
    memset(&out, 0, sizeof(out));
    out.major = FUSE_KERNEL_VERSION;
    out.minor = in->minor < OUR_MINOR ? in->minor : OUR_MINOR;
    out.max_readahead = in->max_readahead;
    out.flags = in->flags & (FUSE_ASYNC_READ | FUSE_BIG_WRITES | FUSE_ASYNC_DIO |
                             FUSE_MAX_PAGES | FUSE_PARALLEL_DIROPS);
    out.max_background = 256;
    out.congestion_threshold = 192;
    out.max_write = LVXD_MAX_IO;
    out.time_gran = 1;
    out.max_pages = LVXD_MAX_IO / PAGE;
    lvxd_log("FUSE init: kernel %u.%u, flags 0x%x -> 0x%x, max_write %u", in->major, in->minor,
             in->flags, out.flags, out.max_write);
    reply(fd, h->unique, 0, &out, sizeof(out));
}

static void do_lookup(int fd, const struct fuse_in_header *h, const char *name)
{
    struct fuse_entry_out e;
    memset(&e, 0, sizeof(e));
    bool found = false;
    if (h->nodeid == ROOT_INO) {
        pthread_mutex_lock(&lvxd_lvs_mutex);
        for (struct lvxd_lv *v = lvxd_lvs; v && !found; v = v->next)
            if (!v->dying && strcmp(v->name, name) == 0) {
                e.nodeid = v->ino;
                e.generation = 1;
                lv_attr(v, &e.attr);
                found = true;
            }
        pthread_mutex_unlock(&lvxd_lvs_mutex);
    }
    reply(fd, h->unique, found ? 0 : -ENOENT, &e, sizeof(e));
}

static void do_getattr(int fd, const struct fuse_in_header *h)
{
    struct fuse_attr_out out;
    memset(&out, 0, sizeof(out));
    bool found = node_attr(h->nodeid, &out.attr);
    reply(fd, h->unique, found ? 0 : -ENOENT, &out, sizeof(out));
}

static void do_setattr(int fd, const struct fuse_in_header *h, const struct fuse_setattr_in *in)
{
    struct fuse_attr_out out;
    memset(&out, 0, sizeof(out));
    if (!node_attr(h->nodeid, &out.attr))
        reply(fd, h->unique, -ENOENT, NULL, 0);
    else if ((in->valid & FATTR_SIZE) && in->size != out.attr.size)
        reply(fd, h->unique, -EPERM, NULL, 0);   /* an LV is resized with lvresize */
    else
        reply(fd, h->unique, 0, &out, sizeof(out));
}

static void do_open(int fd, const struct fuse_in_header *h, const struct fuse_open_in *in)
{
    struct fuse_open_out out;
    memset(&out, 0, sizeof(out));
    if (h->nodeid == ROOT_INO) {
        reply(fd, h->unique, -EISDIR, NULL, 0);
        return;
    }
    struct lvxd_lv *v = lvxd_volume_get(h->nodeid, true);
    if (!v) {
        reply(fd, h->unique, -ENOENT, NULL, 0);
        return;
    }
    if (v->read_only && (in->flags & O_ACCMODE) != O_RDONLY) {
        lvxd_volume_put(v);
        reply(fd, h->unique, -EROFS, NULL, 0);
        return;
    }
    out.fh = v->ino;
    out.open_flags = FOPEN_DIRECT_IO | FOPEN_PARALLEL_DIRECT_WRITES;
    reply(fd, h->unique, 0, &out, sizeof(out));
}

static void do_release(int fd, const struct fuse_in_header *h, const struct fuse_release_in *in)
{
    struct lvxd_lv *v = lvxd_volume_get(in->fh, false);
    if (v)
        lvxd_volume_put(v);
    reply(fd, h->unique, 0, NULL, 0);
}

static void do_read(struct worker *w, const struct fuse_in_header *h,
                    const struct fuse_read_in *in)
{
    struct lvxd_lv *v = lvxd_volume_get(in->fh, false);
    if (!v) {
        reply(w->fd, h->unique, -EBADF, NULL, 0);
        return;
    }
    uint64_t off = in->offset, size = in->size > LVXD_MAX_IO ? LVXD_MAX_IO : in->size;
    uint64_t lvsize = v->size;
    if (off >= lvsize)
        size = 0;
    else if (size > lvsize - off)
        size = lvsize - off;
    uint8_t *data = w->base + PAGE;
    int rc = 0;
    uint64_t skip = 0;
    if (size) {
        uint64_t a0 = off & ~(uint64_t)(v->lbs - 1);
        uint64_t a1 = (off + size + v->lbs - 1) & ~(uint64_t)(v->lbs - 1);
        if (a1 > lvsize)
            a1 = lvsize;
        skip = off - a0;
        rc = lvxd_io_rw(&w->io, v, false, a0, (uint32_t)(a1 - a0), data);
    }
    struct iovec iov[2] = { { 0, 0 }, { data + skip, size } };
    send_iov(w->fd, h->unique, rc, iov, rc || !size ? 1 : 2);
}

static void do_write(struct worker *w, const struct fuse_in_header *h,
                     const struct fuse_write_in *in, uint8_t *payload)
{
    struct lvxd_lv *v = lvxd_volume_get(in->fh, false);
    struct fuse_write_out out = { .size = in->size };
    int rc = 0;
    if (!v)
        rc = -EBADF;
    else if (v->read_only)
        rc = -EROFS;
    else if (in->offset % v->lbs || in->size % v->lbs || ((uintptr_t)payload % 512))
        rc = -EINVAL;   /* block-aligned writes only (the loop device's) */
    else if (in->size)
        rc = lvxd_io_rw(&w->io, v, true, in->offset, in->size, payload);
    reply(w->fd, h->unique, rc, &out, sizeof(out));
}

static void do_fsync(struct worker *w, const struct fuse_in_header *h,
                     const struct fuse_fsync_in *in)
{
    struct lvxd_lv *v = lvxd_volume_get(in->fh, false);
    int rc = v ? lvxd_io_flush(&w->io, v) : 0;
    reply(w->fd, h->unique, rc, NULL, 0);
}

static void do_fallocate(struct worker *w, const struct fuse_in_header *h,
                         const struct fuse_fallocate_in *in)
{
    struct lvxd_lv *v = lvxd_volume_get(in->fh, false);
    int rc = 0;
    uint32_t zeroing = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE;
    if (!v)
        rc = -EBADF;
    else if (in->mode & ~(zeroing | FALLOC_FL_KEEP_SIZE))
        rc = -EOPNOTSUPP;
    else if (!(in->mode & zeroing))
        rc = in->offset + in->length > v->size ? -ENOSPC : 0;   /* allocate: always is */
    else if (v->read_only)
        rc = -EROFS;
    else if (in->offset % 512 || in->length % 512)
        rc = -EINVAL;
    else
        rc = lvxd_io_zero(&w->io, v, in->offset, in->length);
    reply(w->fd, h->unique, rc, NULL, 0);
}

static void do_statfs(int fd, const struct fuse_in_header *h)
{
    struct fuse_statfs_out out;
    memset(&out, 0, sizeof(out));
    out.st.bsize = PAGE;
    out.st.frsize = PAGE;
    out.st.namelen = 255;
    reply(fd, h->unique, 0, &out, sizeof(out));
}

static size_t add_dirent(uint8_t *buf, size_t room, uint64_t ino, uint64_t off, const char *name,
                         uint32_t type)
{
    size_t namelen = strlen(name);
    size_t entlen = FUSE_NAME_OFFSET + namelen, padded = FUSE_DIRENT_ALIGN(entlen);
    if (padded > room)
        return 0;
    struct fuse_dirent d = { .ino = ino, .off = off, .namelen = (uint32_t)namelen, .type = type };
    memcpy(buf, &d, FUSE_NAME_OFFSET);
    memcpy(buf + FUSE_NAME_OFFSET, name, namelen);
    memset(buf + entlen, 0, padded - entlen);
    return padded;
}

static void do_readdir(struct worker *w, const struct fuse_in_header *h,
                       const struct fuse_read_in *in)
{
    uint8_t *buf = w->base + PAGE;
    size_t room = in->size < LVXD_MAX_IO ? in->size : LVXD_MAX_IO, used = 0, n;
    uint64_t idx = 0;
    if (h->nodeid != ROOT_INO) {
        reply(w->fd, h->unique, -ENOTDIR, NULL, 0);
        return;
    }
    if (in->offset <= idx && (n = add_dirent(buf + used, room - used, ROOT_INO, idx + 1, ".",
                                             S_IFDIR >> 12)))
        used += n;
    idx++;
    if (in->offset <= idx && (n = add_dirent(buf + used, room - used, ROOT_INO, idx + 1, "..",
                                             S_IFDIR >> 12)))
        used += n;
    idx++;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (struct lvxd_lv *v = lvxd_lvs; v; v = v->next) {
        if (v->dying)
            continue;
        if (in->offset <= idx) {
            if (!(n = add_dirent(buf + used, room - used, v->ino, idx + 1, v->name,
                                 S_IFREG >> 12)))
                break;
            used += n;
        }
        idx++;
    }
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    reply(w->fd, h->unique, 0, buf, used);
}

static void do_opendir(int fd, const struct fuse_in_header *h)
{
    struct fuse_open_out out;
    memset(&out, 0, sizeof(out));
    reply(fd, h->unique, h->nodeid == ROOT_INO ? 0 : -ENOTDIR, &out, sizeof(out));
}

/* Requests that grant access (names, open, attributes changes, the directory) are
 * root's (or the daemon uid's) only; the kernel refuses others first
 * (default_permissions and the modes: root's, 0700 / 0600), this is the second
 * wall (e.g. for CAP_DAC_OVERRIDE without root).  GETATTR is answered (sizes, as
 * sysfs shows them; loop status ioctls ask it), and requests on an open handle
 * carry what its opener was granted: the loop device's I/O comes from kernel
 * workers or from whoever submits to the block device, whose node decides. */
static bool needs_root(uint32_t opcode)
{
    switch (opcode) {
    case FUSE_INIT: case FUSE_DESTROY: case FUSE_FORGET: case FUSE_BATCH_FORGET:
    case FUSE_INTERRUPT: case FUSE_GETATTR: case FUSE_RELEASE: case FUSE_RELEASEDIR:
    case FUSE_READ: case FUSE_WRITE: case FUSE_FSYNC: case FUSE_FALLOCATE: case FUSE_FLUSH:
        return false;
    default:
        return true;
    }
}

static void dispatch(struct worker *w, uint8_t *msg, size_t len)
{
    struct fuse_in_header h;
    if (len < sizeof(h))
        return;
    memcpy(&h, msg, sizeof(h));
    void *arg = msg + sizeof(h);
    int fd = w->fd;
    if (needs_root(h.opcode) && !lvxd_caller_allowed(h.uid)) {
        char what[48];
        snprintf(what, sizeof(what), "FUSE request %u on node %llu", h.opcode,
                 (unsigned long long)h.nodeid);
        lvxd_refused(what, h.uid, h.gid, h.pid);
        reply(fd, h.unique, -EACCES, NULL, 0);
        return;
    }
    switch (h.opcode) {
    case FUSE_INIT: do_init(fd, &h, arg); break;
    case FUSE_LOOKUP: msg[len - 1] = 0; do_lookup(fd, &h, arg); break;
    case FUSE_FORGET: case FUSE_BATCH_FORGET: case FUSE_INTERRUPT: break;   /* no reply */
    case FUSE_GETATTR: do_getattr(fd, &h); break;
    case FUSE_SETATTR: do_setattr(fd, &h, arg); break;
    case FUSE_OPEN: do_open(fd, &h, arg); break;
    case FUSE_RELEASE: do_release(fd, &h, arg); break;
    case FUSE_READ: do_read(w, &h, arg); break;
    case FUSE_WRITE: do_write(w, &h, arg, msg + HDR_LEN); break;
    case FUSE_FSYNC: do_fsync(w, &h, arg); break;
    case FUSE_FALLOCATE: do_fallocate(w, &h, arg); break;
    case FUSE_STATFS: do_statfs(fd, &h); break;
    case FUSE_OPENDIR: do_opendir(fd, &h); break;
    case FUSE_READDIR: do_readdir(w, &h, arg); break;
    case FUSE_FLUSH: case FUSE_RELEASEDIR: case FUSE_FSYNCDIR: case FUSE_ACCESS:
        reply(fd, h.unique, 0, NULL, 0);
        break;
    case FUSE_DESTROY:
        reply(fd, h.unique, 0, NULL, 0);
        break;
    default:
        reply(fd, h.unique, -ENOSYS, NULL, 0);
        break;
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    uint8_t *msg = w->base + PAGE - HDR_LEN;
    size_t room = BUF_SIZE - (PAGE - HDR_LEN);
    for (;;) {
        ssize_t n = read(w->fd, msg, room);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == ENOENT)
                continue;
            if (errno != ENODEV)
                lvxd_log("FUSE read: %s", strerror(errno));
            break;
        }
        dispatch(w, msg, (size_t)n);
    }
    return NULL;
}

static void resend_in_flight(int fd)
{
    struct fuse_out_header out = { .len = sizeof(out), .error = FUSE_NOTIFY_RESEND, .unique = 0 };
    if (write(fd, &out, sizeof(out)) < 0)
        lvxd_log("warning: FUSE_NOTIFY_RESEND: %s (requests of the previous worker may hang)",
                 strerror(errno));
    else
        lvxd_log("asked the kernel to resend the previous worker's requests");
}

int lvxd_fuse_start(int fd, unsigned nthreads, bool restarted)
{
    workers = calloc(nthreads, sizeof(*workers));
    if (!workers)
        return -ENOMEM;
    nworkers = nthreads;
    for (unsigned i = 0; i < nthreads; i++) {
        struct worker *w = &workers[i];
        w->fd = fd;
        if (posix_memalign((void **)&w->base, PAGE, BUF_SIZE) != 0)
            return -ENOMEM;
        memset(w->base, 0, BUF_SIZE);        /* touch: resident (and locked) now */
        int rc = lvxd_io_init(&w->io);
        if (rc < 0)
            return rc;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_SIZE);
    for (unsigned i = 0; i < nthreads; i++) {
        int rc = pthread_create(&workers[i].th, &attr, worker_main, &workers[i]);
        if (rc) {
            pthread_attr_destroy(&attr);
            return -rc;
        }
        workers[i].started = true;
    }
    pthread_attr_destroy(&attr);
    if (restarted)
        resend_in_flight(fd);
    return 0;
}

void lvxd_fuse_join(void)
{
    for (unsigned i = 0; i < nworkers; i++) {
        if (workers[i].started)
            pthread_join(workers[i].th, NULL);
        lvxd_io_exit(&workers[i].io);
        free(workers[i].base);
    }
    free(workers);
    workers = NULL;
    nworkers = 0;
}
