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
 * (FUSE_NOTIFY_RESEND, Linux 6.9+).  That covers /dev/fuse reads only: the
 * kernel never resends what an io_uring ring entry holds, so by default the ring
 * entries are the supervisor's (fuse_ring.c: its SQPOLL rings and shared
 * buffers) and the restarted worker adopts them: it serves again the requests
 * its predecessor had taken and not committed, and waits for the next ones.
 * With rings of the worker's own (LVX_FUSE_URING=worker) the supervisor aborts
 * the dead worker's connection (lvxd_fuse_abort()) and serves on a new one.
 *
 * Transports: /dev/fuse reads and writes, or io_uring ring entries
 * (FUSE_OVER_IO_URING, Linux 6.14+) when the kernel offers them; see the
 * transport sections below.  The requests are served the same way either way.
 *
 * Entry points: lvxd_fuse_mount(), lvxd_fuse_start(), lvxd_fuse_join(),
 * lvxd_fuse_tune_bdi(), lvxd_fuse_log_counts(), lvxd_fuse_abort(),
 * lvxd_fuse_close_in_child().
 */
#include "daemon/daemon_int.h"
#include "daemon/fuse_ring.h"

#include <errno.h>
#include <liburing.h>
#include <stdatomic.h>
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

#define PAGE LVXD_FUSE_PAGE
#define HDR_LEN (sizeof(struct fuse_in_header) + sizeof(struct fuse_write_in))
#define BUF_SIZE LVXD_FUSE_BUF_SIZE
#define STACK_SIZE (256u * 1024)
#define OUR_MINOR 38
#define ROOT_INO FUSE_ROOT_ID

struct worker {
    pthread_t th;
    int fd;
    uint8_t *base;          /* BUF_SIZE, page aligned */
    struct lvxd_io io;
    bool started;
    bool shared_base;       /* base is a ring slot's buffer (fuse_ring.c) */
    /* io_uring transport (workers 1..n-1): the supervisor's ring and slot */
    bool has_ring;
    struct io_uring *ring;
    struct lvxd_ring_slot *slot;
    struct lvx_fuse_uring_req_header *hdr;
    uint16_t qid;
    bool ring_req;          /* the request being served came through the ring */
    bool replied;
};

static struct worker *workers;
static unsigned nworkers;
static int fuse_fd = -1;
static volatile int *uring_used;    /* shared with the supervisor */

/* The transport: 0 undecided (until INIT is answered), 1 rings, -1 /dev/fuse. */
static pthread_mutex_t tp_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tp_cond = PTHREAD_COND_INITIALIZER;
static int tp_state;
static bool rings_made;             /* every worker but 0 has its ring */
static bool rings_kept;             /* restarted: the rings are in use, adopt them */
static const char *ring_why = "";   /* why not, when not */
static unsigned nqueues;            /* the kernel's: one per possible CPU */
static unsigned reg_done, reg_ok;
static int reg_error;
static atomic_ulong served_ring, served_dev;

static void set_transport(int state)
{
    pthread_mutex_lock(&tp_mutex);
    tp_state = state;
    pthread_cond_broadcast(&tp_cond);
    pthread_mutex_unlock(&tp_mutex);
}

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
/* A reply to a request read from /dev/fuse is written there; one that came
 * through the worker's ring entry is put into the entry (the out header, the
 * body at the start of the payload buffer) and committed by uring_serve(). */
static void send_iov(struct worker *w, uint64_t unique, int err, struct iovec *iov, int cnt)
{
    struct fuse_out_header out = { .error = -abs(err), .unique = unique };
    size_t len = sizeof(out);
    if (w->ring_req) {
        uint8_t *p = w->base + PAGE;
        size_t body = 0;
        for (int i = 1; i < cnt; i++) {
            if ((uint8_t *)iov[i].iov_base != p + body)
                memmove(p + body, iov[i].iov_base, iov[i].iov_len);
            body += iov[i].iov_len;
        }
        out.len = (uint32_t)(len + body);
        memcpy(w->hdr->in_out, &out, sizeof(out));
        w->hdr->ring_ent_in_out.payload_sz = (uint32_t)body;
        w->replied = true;
        return;
    }
    iov[0].iov_base = &out;
    iov[0].iov_len = sizeof(out);
    for (int i = 1; i < cnt; i++)
        len += iov[i].iov_len;
    out.len = (uint32_t)len;
    if (writev(w->fd, iov, cnt) < 0 && errno != ENOENT)
        lvxd_log("warning: FUSE reply %llu: %s", (unsigned long long)unique, strerror(errno));
}

static void reply(struct worker *w, uint64_t unique, int err, const void *data, size_t len)
{
    struct iovec iov[2] = { { 0, 0 }, { (void *)data, len } };
    send_iov(w, unique, err, iov, err || !len ? 1 : 2);
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
static void do_init(struct worker *w, const struct fuse_in_header *h, const void *arg)
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
    bool offered = (in->flags & FUSE_INIT_EXT) && (in->flags2 & (FUSE_OVER_IO_URING >> 32));
    bool ring = offered && rings_made;
    if (ring) {
        out.flags |= FUSE_INIT_EXT;
        out.flags2 = (uint32_t)(FUSE_OVER_IO_URING >> 32);
        if (uring_used)
            *uring_used = 1;    /* before the kernel can hand a request to a ring */
    }
    lvxd_log("FUSE init: kernel %u.%u, flags 0x%x -> 0x%x, max_write %u", in->major, in->minor,
             in->flags, out.flags, out.max_write);
    reply(w, h->unique, 0, &out, sizeof(out));
    if (!ring)
        lvxd_log("FUSE transport: /dev/fuse reads (%s)",
                 !offered ? "the kernel does not offer io_uring" : ring_why);
    set_transport(ring ? 1 : -1);   /* the kernel is initialised: rings may register */
}

static void do_lookup(struct worker *w, const struct fuse_in_header *h, const char *name)
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
    reply(w, h->unique, found ? 0 : -ENOENT, &e, sizeof(e));
}

static void do_getattr(struct worker *w, const struct fuse_in_header *h)
{
    struct fuse_attr_out out;
    memset(&out, 0, sizeof(out));
    bool found = node_attr(h->nodeid, &out.attr);
    reply(w, h->unique, found ? 0 : -ENOENT, &out, sizeof(out));
}

static void do_setattr(struct worker *w, const struct fuse_in_header *h, const struct fuse_setattr_in *in)
{
    struct fuse_attr_out out;
    memset(&out, 0, sizeof(out));
    if (!node_attr(h->nodeid, &out.attr))
        reply(w, h->unique, -ENOENT, NULL, 0);
    else if ((in->valid & FATTR_SIZE) && in->size != out.attr.size)
        reply(w, h->unique, -EPERM, NULL, 0);   /* an LV is resized with lvresize */
    else
        reply(w, h->unique, 0, &out, sizeof(out));
}

static void do_open(struct worker *w, const struct fuse_in_header *h, const struct fuse_open_in *in)
{
    struct fuse_open_out out;
    memset(&out, 0, sizeof(out));
    if (h->nodeid == ROOT_INO) {
        reply(w, h->unique, -EISDIR, NULL, 0);
        return;
    }
    struct lvxd_lv *v = lvxd_volume_get(h->nodeid, true);
    if (!v) {
        reply(w, h->unique, -ENOENT, NULL, 0);
        return;
    }
    if (v->read_only && (in->flags & O_ACCMODE) != O_RDONLY) {
        lvxd_volume_put(v);
        reply(w, h->unique, -EROFS, NULL, 0);
        return;
    }
    out.fh = v->ino;
    out.open_flags = FOPEN_DIRECT_IO | FOPEN_PARALLEL_DIRECT_WRITES;
    reply(w, h->unique, 0, &out, sizeof(out));
}

static void do_release(struct worker *w, const struct fuse_in_header *h, const struct fuse_release_in *in)
{
    struct lvxd_lv *v = lvxd_volume_get(in->fh, false);
    if (v)
        lvxd_volume_put(v);
    reply(w, h->unique, 0, NULL, 0);
}

static void do_read(struct worker *w, const struct fuse_in_header *h,
                    const struct fuse_read_in *in)
{
    struct lvxd_lv *v = lvxd_volume_get(in->fh, false);
    if (!v) {
        reply(w, h->unique, -EBADF, NULL, 0);
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
    send_iov(w, h->unique, rc, iov, rc || !size ? 1 : 2);
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
    reply(w, h->unique, rc, &out, sizeof(out));
}

static void do_fsync(struct worker *w, const struct fuse_in_header *h,
                     const struct fuse_fsync_in *in)
{
    struct lvxd_lv *v = lvxd_volume_get(in->fh, false);
    int rc = v ? lvxd_io_flush(&w->io, v) : 0;
    reply(w, h->unique, rc, NULL, 0);
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
    else if (in->mode & FALLOC_FL_PUNCH_HOLE)    /* the loop device's discard */
        rc = lvxd_io_discard(&w->io, v, in->offset, in->length);
    else
        rc = lvxd_io_zero(&w->io, v, in->offset, in->length);
    reply(w, h->unique, rc, NULL, 0);
}

static void do_statfs(struct worker *w, const struct fuse_in_header *h)
{
    struct fuse_statfs_out out;
    memset(&out, 0, sizeof(out));
    out.st.bsize = PAGE;
    out.st.frsize = PAGE;
    out.st.namelen = 255;
    reply(w, h->unique, 0, &out, sizeof(out));
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
        reply(w, h->unique, -ENOTDIR, NULL, 0);
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
    reply(w, h->unique, 0, buf, used);
}

static void do_opendir(struct worker *w, const struct fuse_in_header *h)
{
    struct fuse_open_out out;
    memset(&out, 0, sizeof(out));
    reply(w, h->unique, h->nodeid == ROOT_INO ? 0 : -ENOTDIR, &out, sizeof(out));
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

/* One request: its header, the opcode's first argument (op) and what follows it
 * (data: a WRITE's payload, a LOOKUP's name).  From /dev/fuse they are one
 * message; from a ring entry op is the header buffer's op_in, data the payload. */
struct request {
    struct fuse_in_header h;
    void *op;
    uint8_t *data;
    size_t data_len;
};

static void dispatch(struct worker *w, struct request *r)
{
    const struct fuse_in_header *h = &r->h;
    void *arg = r->op;
    if (needs_root(h->opcode) && !lvxd_caller_allowed(h->uid)) {
        char what[48];
        snprintf(what, sizeof(what), "FUSE request %u on node %llu", h->opcode,
                 (unsigned long long)h->nodeid);
        lvxd_refused(what, h->uid, h->gid, h->pid);
        reply(w, h->unique, -EACCES, NULL, 0);
        return;
    }
    switch (h->opcode) {
    case FUSE_INIT: do_init(w, h, arg); break;
    case FUSE_LOOKUP:
        if (!r->data_len)
            reply(w, h->unique, -EINVAL, NULL, 0);
        else {
            r->data[r->data_len - 1] = 0;
            do_lookup(w, h, (const char *)r->data);
        }
        break;
    case FUSE_FORGET: case FUSE_BATCH_FORGET: case FUSE_INTERRUPT: break;   /* no reply */
    case FUSE_GETATTR: do_getattr(w, h); break;
    case FUSE_SETATTR: do_setattr(w, h, arg); break;
    case FUSE_OPEN: do_open(w, h, arg); break;
    case FUSE_RELEASE: do_release(w, h, arg); break;
    case FUSE_READ: do_read(w, h, arg); break;
    case FUSE_WRITE: do_write(w, h, arg, r->data); break;
    case FUSE_FSYNC: do_fsync(w, h, arg); break;
    case FUSE_FALLOCATE: do_fallocate(w, h, arg); break;
    case FUSE_STATFS: do_statfs(w, h); break;
    case FUSE_OPENDIR: do_opendir(w, h); break;
    case FUSE_READDIR: do_readdir(w, h, arg); break;
    case FUSE_FLUSH: case FUSE_RELEASEDIR: case FUSE_FSYNCDIR: case FUSE_ACCESS:
        reply(w, h->unique, 0, NULL, 0);
        break;
    case FUSE_DESTROY:
        reply(w, h->unique, 0, NULL, 0);
        break;
    default:
        reply(w, h->unique, -ENOSYS, NULL, 0);
        break;
    }
}

/* --- transport: /dev/fuse reads ------------------------------------------------ */
static void dev_serve(struct worker *w)
{
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
        struct request r;
        if ((size_t)n < sizeof(r.h))
            continue;
        memcpy(&r.h, msg, sizeof(r.h));
        r.op = msg + sizeof(r.h);
        r.data = r.h.opcode == FUSE_WRITE ? msg + HDR_LEN : msg + sizeof(r.h);
        r.data_len = (size_t)n > (size_t)(r.data - msg) ? (size_t)n - (size_t)(r.data - msg) : 0;
        atomic_fetch_add(&served_dev, 1);
        dispatch(w, &r);
    }
}

/* --- transport: io_uring --------------------------------------------------------
 * Workers 1..n-1 each own a ring (128-byte SQEs) with one registered entry: the
 * header buffer w->hdr and the payload w->base + PAGE (the buffer /dev/fuse reads
 * would use: READ data is read into it and replied from it, WRITE data arrives
 * page aligned in it).  Worker i serves queue (i - 1) % nqueues (the kernel keeps
 * one queue per possible CPU and hands a request to the queue of the CPU that
 * issued it; it switches to the rings once every queue has an entry).  Worker 0
 * keeps reading /dev/fuse: INIT, and what the kernel never sends through the rings
 * (FORGETs, INTERRUPTs).  Used when the kernel offers FUSE_OVER_IO_URING in INIT
 * (module parameter fuse.enable_uring; set by tests and benches, not by the daemon)
 * and the rings could be made (fuse_ring.c); a registration the kernel refuses
 * leaves the connection on /dev/fuse (the kernel drops io_uring for it) and the
 * worker reads /dev/fuse like the others.  By default the rings are SQPOLL rings
 * of the supervisor: submitting is publishing the SQE (the SQ thread issues it),
 * and the slot records each step (fuse_ring.h) for a successor to adopt; with
 * LVX_FUSE_URING=worker they are the worker's own (the SQE is issued by
 * io_uring_submit() itself). */
static struct io_uring_sqe *prep_cmd(struct io_uring *ring, int fd, uint32_t op, uint16_t qid,
                                     uint64_t commit)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (!sqe)
        return NULL;        /* never: one SQE in use at a time */
    uint8_t *raw = (uint8_t *)sqe;
    memset(raw, 0, 128);    /* a 128-byte SQE */
    sqe->opcode = IORING_OP_URING_CMD;
    sqe->fd = fd;
    sqe->cmd_op = op;
    struct lvx_fuse_uring_cmd_req req = { .commit_id = commit, .qid = qid };
    memcpy(raw + 48, &req, sizeof(req));   /* the command area */
    return sqe;
}

/* Publish the prepared SQE; the slot knows the SQ tail that publishes it. */
static int publish(struct worker *w)
{
    w->slot->pub_tail = w->ring->sq.sqe_tail;
    w->slot->committing = 1;
    int rc;
    do
        rc = io_uring_submit(w->ring);
    while (rc == -EINTR);
    atomic_store(&w->slot->state, LVXD_SLOT_FETCH);
    return rc < 0 ? rc : 0;
}

/* One registration done (rc 0 or -errno); the last one logs the transport. */
static void registration_done(int rc)
{
    pthread_mutex_lock(&tp_mutex);
    if (rc < 0 && !reg_error)
        reg_error = rc;
    else if (rc == 0)
        reg_ok++;
    if (++reg_done == nworkers - 1) {
        if (rings_kept)
            lvxd_log("FUSE transport: io_uring (%u queues, %u entries kept from the dead "
                     "worker)", nqueues, reg_ok);
        else if (!reg_error)
            lvxd_log("FUSE transport: io_uring (%u queues, %u entries, %s)", nqueues, reg_ok,
                     lvxd_fuse_rings_kept() ? "kept by the supervisor" : "the worker's own");
        else
            lvxd_log("FUSE transport: /dev/fuse reads (io_uring registration: %s; %u of %u "
                     "entries registered)", strerror(-reg_error), reg_ok, nworkers - 1);
    }
    pthread_mutex_unlock(&tp_mutex);
}

/* Register the worker's entry: 0, or -errno when the kernel refused it.  The SQ
 * thread issues it: once it has consumed the SQE, a refusal is in the CQ (it
 * posts the completions of a batch before it moves the SQ head); a request may
 * be there already (*first). */
static int ring_register(struct worker *w, struct io_uring_cqe **first)
{
    struct lvxd_ring_slot *s = w->slot;
    s->reg_iov[0] = (struct iovec){ w->hdr, sizeof(*w->hdr) };
    s->reg_iov[1] = (struct iovec){ w->base + PAGE, BUF_SIZE - PAGE };
    struct io_uring_sqe *sqe = prep_cmd(w->ring, w->fd, LVX_FUSE_IO_URING_CMD_REGISTER, w->qid, 0);
    if (!sqe)
        return -EBUSY;
    sqe->addr = (uintptr_t)s->reg_iov;
    sqe->len = 2;
    int rc = publish(w);
    if (rc < 0)
        return rc;
    _Atomic unsigned *head = (_Atomic unsigned *)w->ring->sq.khead;
    for (int i = 0; i < 5000 && (int)(atomic_load(head) - s->pub_tail) < 0; i++)
        usleep(1000);       /* within 5 s, else taken as queued */
    struct io_uring_cqe *cqe;
    if (io_uring_peek_cqe(w->ring, &cqe) != 0)
        return 0;           /* queued: registered */
    if (cqe->res >= 0) {
        *first = cqe;       /* registered, and a request came already */
        return 0;
    }
    rc = cqe->res;
    io_uring_cqe_seen(w->ring, cqe);
    atomic_store(&s->state, LVXD_SLOT_NONE);
    return rc;
}

/* Take the request of cqe (res >= 0) into the slot: its shadow, then SERVING. */
static void ring_take(struct worker *w, struct io_uring_cqe *cqe)
{
    struct lvxd_ring_slot *s = w->slot;
    s->commit_id = w->hdr->ring_ent_in_out.commit_id;
    s->payload_sz = w->hdr->ring_ent_in_out.payload_sz;
    memcpy(s->in_out, w->hdr->in_out, sizeof(s->in_out));
    memcpy(s->op_in, w->hdr->op_in, sizeof(s->op_in));
    memcpy(s->payload, w->base + PAGE, sizeof(s->payload));
    s->committing = 0;
    atomic_store(&s->state, LVXD_SLOT_SERVING);
    io_uring_cqe_seen(w->ring, cqe);
}

/* Serve the slot's request (taken, SERVING) and publish its commit. */
static int ring_answer(struct worker *w)
{
    struct lvxd_ring_slot *s = w->slot;
    struct request r;
    memcpy(&r.h, w->hdr->in_out, sizeof(r.h));
    r.op = w->hdr->op_in;
    r.data = w->base + PAGE;
    r.data_len = s->payload_sz < BUF_SIZE - PAGE ? s->payload_sz : BUF_SIZE - PAGE;
    w->ring_req = true;
    w->replied = false;
    atomic_fetch_add(&served_ring, 1);
    dispatch(w, &r);
    if (!w->replied)        /* every ring request is committed */
        reply(w, r.h.unique, -ENOSYS, NULL, 0);
    w->ring_req = false;
    struct io_uring_sqe *sqe = prep_cmd(w->ring, w->fd, LVX_FUSE_IO_URING_CMD_COMMIT_AND_FETCH,
                                        w->qid, s->commit_id);
    return sqe ? publish(w) : -EBUSY;
}

/* Serve the worker's ring entry until the connection ends: true; false when the
 * registration was refused (serve /dev/fuse instead). */
static bool uring_serve(struct worker *w)
{
    struct io_uring_cqe *cqe = NULL;
    int rc = 0;
    if (rings_kept && atomic_load(&w->slot->state) != LVXD_SLOT_NONE) {
        registration_done(0);
        if (lvxd_ring_adopt(w->ring, w->slot, w->base + PAGE)) {
            lvxd_log("FUSE ring (queue %u): serving again request %llu, taken by the dead "
                     "worker and not committed", w->qid, (unsigned long long)w->slot->commit_id);
            rc = ring_answer(w);
        }
    } else {
        rc = ring_register(w, &cqe);
        registration_done(rc);
        if (rc < 0)
            return false;
    }
    while (rc >= 0) {
        if (!cqe) {
            rc = io_uring_wait_cqe(w->ring, &cqe);
            if (rc == -EINTR) {
                rc = 0;
                continue;
            }
            if (rc < 0)
                break;
        }
        int res = cqe->res;
        if (res < 0) {
            io_uring_cqe_seen(w->ring, cqe);
            if (res != -ENOTCONN && res != -ECANCELED && res != -ENODEV)
                lvxd_log("FUSE ring (queue %u): %s", w->qid, strerror(-res));
            break;
        }
        ring_take(w, cqe);
        cqe = NULL;
        rc = ring_answer(w);
    }
    if (rc < 0)
        lvxd_log("FUSE ring (queue %u): %s", w->qid, strerror(-rc));
    return true;
}

/* Wait until worker 0 has answered INIT (or, restarted, at once): true when
 * this worker is to serve a ring entry. */
static bool wait_transport(void)
{
    pthread_mutex_lock(&tp_mutex);
    while (tp_state == 0)
        pthread_cond_wait(&tp_cond, &tp_mutex);
    bool ring = tp_state > 0;
    pthread_mutex_unlock(&tp_mutex);
    return ring;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    if (w->has_ring && wait_transport() && uring_serve(w))
        return NULL;
    dev_serve(w);
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

/* Workers 1..n-1 take the supervisor's rings, slots and buffers (io_uring is
 * offered to the kernel in INIT only when they exist).  restarted: the rings are
 * adopted when the connection uses them (INIT agreed on io_uring); else the
 * worker keeps the connection's /dev/fuse reads. */
static void take_rings(unsigned nthreads, bool restarted)
{
    /* the worker's own: asked for, or the supervisor could not make them */
    if (!restarted && !lvxd_fuse_rings() && lvxd_fuse_uring_mode() != LVXD_URING_OFF)
        lvxd_fuse_rings_make(nthreads, false);
    const struct lvxd_ring_set *set = lvxd_fuse_rings();
    ring_why = lvxd_fuse_rings_why();
    if (!set || set->count != nthreads - 1)
        return;
    nqueues = set->nqueues;
    if (restarted && !(uring_used && *uring_used)) {
        ring_why = "a restarted worker keeps the /dev/fuse reads of its connection";
        return;
    }
    for (unsigned i = 1; i < nthreads; i++) {
        struct worker *w = &workers[i];
        w->has_ring = true;
        w->ring = &set->rings[i - 1];
        w->slot = &set->slots[i - 1];
        w->hdr = &w->slot->hdr;
        w->qid = w->slot->qid;
        w->base = set->bufs + (size_t)(i - 1) * BUF_SIZE;
        w->shared_base = true;
    }
    rings_made = true;
    rings_kept = restarted;     /* only kept rings reach a restarted worker in use */
}

int lvxd_fuse_start(int fd, unsigned nthreads, bool restarted, volatile int *used)
{
    fuse_fd = fd;
    uring_used = used;
    workers = calloc(nthreads, sizeof(*workers));
    if (!workers)
        return -ENOMEM;
    nworkers = nthreads;
    take_rings(nthreads, restarted);
    for (unsigned i = 0; i < nthreads; i++) {
        struct worker *w = &workers[i];
        w->fd = fd;
        if (!w->shared_base) {
            if (posix_memalign((void **)&w->base, PAGE, BUF_SIZE) != 0)
                return -ENOMEM;
            memset(w->base, 0, BUF_SIZE);    /* touch: resident (and locked) now */
        }
        int rc = lvxd_io_init(&w->io);
        if (rc < 0)
            return rc;
    }
    /* restarted: the connection is initialised, on the adopted rings or on
     * /dev/fuse reads (no ring is registered on a connection that did not agree on
     * io_uring: the kernel would take one even where INIT never agreed on it) */
    if (restarted)
        tp_state = rings_kept ? 1 : -1;
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

void lvxd_fuse_log_counts(void)
{
    lvxd_log("FUSE requests served: %lu through io_uring, %lu through /dev/fuse reads",
             (unsigned long)atomic_load(&served_ring), (unsigned long)atomic_load(&served_dev));
}

void lvxd_fuse_join(void)
{
    set_transport(-1);      /* threads still waiting for INIT: on to /dev/fuse (ends) */
    for (unsigned i = 0; i < nworkers; i++) {
        if (workers[i].started)
            pthread_join(workers[i].th, NULL);
        lvxd_io_exit(&workers[i].io);
        if (!workers[i].shared_base)    /* the rings and slots are the supervisor's */
            free(workers[i].base);
    }
    free(workers);
    workers = NULL;
    nworkers = 0;
}

void lvxd_fuse_close_in_child(void)
{
    if (fuse_fd >= 0)
        close(fuse_fd);
    fuse_fd = -1;
}

/* fusectl's directory of the connection mounted at dir: /sys/fs/fuse/connections/
 * <the superblock's dev_t, the kernel's own encoding: major << 20 | minor>. */
void lvxd_fuse_abort(int fd, const char *dir)
{
    unsigned maj, min;
    char path[128];
    bool aborted = false;
    if (mount_dev(dir, &maj, &min)) {
        snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", (maj << 20) | min);
        int afd = open(path, O_WRONLY | O_CLOEXEC);
        aborted = afd >= 0 && write(afd, "1", 1) == 1;
        if (afd >= 0)
            close(afd);
    }
    lvxd_log("FUSE connection of %s: %s", dir,
             aborted ? "aborted through fusectl" : "closing its last /dev/fuse reference");
    if (fd >= 0)
        close(fd);
    if (umount2(dir, MNT_DETACH) < 0)
        lvxd_log("warning: cannot detach %s: %s", dir, strerror(errno));
}
