/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/dev.c - devices (dev.h): which ones a command looks at, opening them with
 * size and topology, and exact-length I/O through the I/O seam (ctx->io).
 *
 * The system list names a device /dev/<kernel name>, except a device-mapper device
 * that is not an LV: /dev/mapper/<dm name> when that node is the device (LVM2's
 * preferred name, dev/aliases.h).
 *
 * Entry points: lvx_devs_from_names(), lvx_devs_from_names_each(), lvx_devs_from_system(), lvx_dev_open(),
 * lvx_dev_open_direct(), lvx_dev_end_direct(), lvx_dev_close(), lvx_dev_read(),
 * lvx_dev_write(), lvx_dev_flush(), lvx_dev_read_many(), lvx_dev_read_topology().
 *
 * Size: BLKGETSIZE64 for block devices, st_size for regular files.  Topology
 * (io_min, io_opt, alignment_offset) comes from the open device's ioctls (BLKIOMIN,
 * BLKIOOPT, BLKALIGNOFF), else from /sys/dev/block/MAJ:MIN; a partition has no queue/
 * directory of its own, so its parent's is used.
 */
#include "dev/dev.h"
#include "dev/aliases.h"
#include "dev/io.h"
#include "dev/lv_dev.h"
#include "util/buf.h"
#include "util/file.h"
#include "util/parallel.h"
#include "util/phase.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- device lists ------------------------------------------------------------- */

/* Identity of a device for de-duplication: the device number of a block device
 * (any node name reaches the same disk), inode + filesystem for an image file. */
struct dev_key {
    bool is_file;
    dev_t dev;
    ino_t ino;
};

static struct dev_key key_of(const struct stat *st)
{
    struct dev_key k = { S_ISREG(st->st_mode), 0, 0 };
    if (k.is_file) {
        k.dev = st->st_dev;
        k.ino = st->st_ino;
    } else {
        k.dev = st->st_rdev;
    }
    return k;
}

static bool key_equal(const struct dev_key *a, const struct dev_key *b)
{
    return a->is_file == b->is_file && a->dev == b->dev && a->ino == b->ino;
}

static struct lvx_dev *dev_new(struct lvx_pool *pool, const char *path, const struct stat *st)
{
    struct lvx_dev *d = lvx_pool_alloc(pool, sizeof(*d));
    d->path = lvx_pool_strdup(pool, path);
    d->is_file = S_ISREG(st->st_mode);
    if (!d->is_file) {
        d->major = major(st->st_rdev);
        d->minor = minor(st->st_rdev);
    } else {
        d->size = (uint64_t)st->st_size;
    }
    d->logical_block_size = 512;
    d->fd = -1;
    return d;
}

/* Append to a list growing in the pool; keys[] runs parallel to devs[]. */
struct list_builder {
    struct lvx_pool *pool;
    struct lvx_devlist *out;
    struct dev_key *keys;
    unsigned cap;
};

static int builder_find(const struct list_builder *b, const struct dev_key *k)
{
    for (unsigned i = 0; i < b->out->count; i++)
        if (key_equal(&b->keys[i], k))
            return (int)i;
    return -1;
}

static void builder_add(struct list_builder *b, struct lvx_dev *d, const struct dev_key *k)
{
    if (b->out->count == b->cap) {
        unsigned ncap = b->cap ? b->cap * 2 : 16;
        b->out->devs = lvx_pool_realloc(b->pool, b->out->devs, b->cap * sizeof(*b->out->devs),
                                        ncap * sizeof(*b->out->devs));
        b->keys = lvx_xrealloc(b->keys, ncap * sizeof(*b->keys));
        b->cap = ncap;
    }
    b->keys[b->out->count] = *k;
    b->out->devs[b->out->count++] = d;
}

static int stat_device(struct lvx_ctx *ctx, const char *name, struct stat *st)
{
    if (stat(name, st) < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return lvx_error(ctx, ENOENT, "Device %s not found", name);
        return lvx_error(ctx, errno, "Cannot access device %s: %s", name, strerror(errno));
    }
    if (!S_ISBLK(st->st_mode) && !S_ISREG(st->st_mode))
        return lvx_error(ctx, EINVAL, "%s is not a block device or regular file", name);
    return 0;
}

static int devs_from_names(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *const *names,
                           unsigned count, struct lvx_devlist *out, struct lvx_dev **each)
{
    struct list_builder b = { pool, out, NULL, 0 };
    struct lvx_lvdev_probe probe;
    bool probed = false;
    int r = 0;

    out->count = 0;
    out->devs = NULL;
    for (unsigned i = 0; i < count && r == 0; i++) {
        struct stat st;
        r = stat_device(ctx, names[i], &st);
        if (r < 0 && each) {            /* no device: told by each[i], not an error */
            lvx_error_clear(ctx);
            each[i] = NULL;
            r = 0;
            continue;
        }
        if (r < 0)
            break;
        struct dev_key k = key_of(&st);
        int at = builder_find(&b, &k);
        if (at >= 0) {
            if (each)
                each[i] = out->devs[at];
            continue;
        }
        struct lvx_dev *d = dev_new(pool, names[i], &st);
        if (!d->is_file) {
            if (!probed)
                lvx_lvdev_probe_init(&probe);
            probed = true;
            d->is_lv = lvx_lvdev_is_lv(&probe, d->major, d->minor, NULL, 0);
        }
        builder_add(&b, d, &k);
        if (each)
            each[i] = d;
    }
    free(b.keys);
    if (r < 0)
        out->count = 0;
    return r;
}

int lvx_devs_from_names(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *const *names,
                        unsigned count, struct lvx_devlist *out)
{
    return devs_from_names(ctx, pool, names, count, out, NULL);
}

int lvx_devs_from_names_each(struct lvx_ctx *ctx, struct lvx_pool *pool,
                             const char *const *names, unsigned count, struct lvx_devlist *out,
                             struct lvx_dev **each)
{
    return devs_from_names(ctx, pool, names, count, out, each);
}

/* One "major minor #blocks name" line of /proc/partitions; false for the header. */
static bool parse_partition_line(const char *line, unsigned *maj, unsigned *min,
                                 unsigned long long *blocks, char name[64])
{
    char *end;
    unsigned long long v[3];
    const char *p = line;
    for (unsigned i = 0; i < 3; i++) {       /* strtoull: sscanf costs ~1 us a line */
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p < '0' || *p > '9')
            return false;
        v[i] = strtoull(p, &end, 10);
        p = end;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strcspn(p, " \t\r\n");
    if (n == 0 || n >= 64 || v[0] > UINT32_MAX || v[1] > UINT32_MAX)
        return false;
    memcpy(name, p, n);
    name[n] = '\0';
    *maj = (unsigned)v[0];
    *min = (unsigned)v[1];
    *blocks = v[2];
    return true;
}

/* The whole of /proc/partitions in one buffer (NUL-terminated, freed by the caller).
 * Read in large chunks (util/file.c): every read(2) of it makes the kernel walk the
 * block devices from the start again (unattached loop devices included), so 1 KiB stdio
 * reads cost a few milliseconds on a machine with a thousand loop devices. */
static int read_partitions(struct lvx_ctx *ctx, char **out)
{
    struct lvx_buf b = LVX_BUF_INIT;
    int r = lvx_buf_read_file(ctx, &b, "/proc/partitions", LVX_FILE_MAX_PROC);
    if (r < 0) {
        lvx_buf_free(&b);
        char why[sizeof(ctx->errmsg)];
        snprintf(why, sizeof(why), "%s", ctx->errmsg);
        return lvx_error(ctx, -r, "Cannot read /proc/partitions: %s", why);
    }
    lvx_buf_reserve(&b, 0);         /* data is never NULL */
    b.data[b.len] = '\0';
    *out = b.data;
    return 0;
}

/* Names of the block device nodes directly in /dev (readdir's d_type, no stat): a
 * hash set, so that listing the devices costs no system call per device.  devtmpfs
 * creates /dev/<name> for the kernel's device <name>; such a node is taken to be that
 * device (the number of /proc/partitions).  Other names (symlinks, subdirectories,
 * d_type unknown) are checked with lstat/stat. */
struct node_set {
    unsigned mask;               /* capacity - 1 (a power of two) */
    char **slot;                 /* NULL = empty */
    char *names;                 /* all names, NUL-separated */
};

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void node_set_load(struct node_set *set)
{
    memset(set, 0, sizeof(*set));
    DIR *d = opendir("/dev");
    if (!d)
        return;
    size_t len = 0, cap = 65536;
    unsigned count = 0;
    set->names = lvx_xmalloc(cap);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_type != DT_BLK)
            continue;
        size_t n = strlen(e->d_name) + 1;
        if (len + n > cap) {
            cap *= 2;
            set->names = lvx_xrealloc(set->names, cap);
        }
        memcpy(set->names + len, e->d_name, n);
        len += n;
        count++;
    }
    closedir(d);
    unsigned size = 64;
    while (size < count * 2)
        size *= 2;
    set->mask = size - 1;
    set->slot = lvx_xcalloc(size, sizeof(*set->slot));
    for (size_t off = 0; off < len; off += strlen(set->names + off) + 1) {
        char *name = set->names + off;
        unsigned i = name_hash(name) & set->mask;
        while (set->slot[i])
            i = (i + 1) & set->mask;
        set->slot[i] = name;
    }
}

static bool node_set_has(const struct node_set *set, const char *name)
{
    if (!set->slot)
        return false;
    for (unsigned i = name_hash(name) & set->mask; set->slot[i]; i = (i + 1) & set->mask)
        if (strcmp(set->slot[i], name) == 0)
            return true;
    return false;
}

static void node_set_free(struct node_set *set)
{
    free(set->slot);
    free(set->names);
}

/* A block device of the system list (its node found by readdir, or read back from the
 * device index, meta/index.c). */
struct lvx_dev *lvx_dev_new_listed(struct lvx_pool *pool, const char *path, uint32_t major,
                                   uint32_t minor, uint64_t size_hint, bool is_link)
{
    struct lvx_dev *d = lvx_pool_alloc(pool, sizeof(*d));
    d->path = lvx_pool_strdup(pool, path);
    d->major = major;
    d->minor = minor;
    d->size = size_hint;
    d->logical_block_size = 512;
    d->fd = -1;
    d->is_link = is_link;
    return d;
}

/* The node /dev/<name> of a /proc/partitions device, with one lstat: a block node of
 * that number, or a symlink to one (dev->is_link); false when there is none. */
static bool node_matches(const char *path, unsigned maj, unsigned min, struct stat *st,
                         bool *is_link)
{
    *is_link = false;
    if (lstat(path, st) < 0)
        return false;
    if (S_ISLNK(st->st_mode)) {
        *is_link = true;
        if (stat(path, st) < 0)
            return false;
    }
    return S_ISBLK(st->st_mode) && major(st->st_rdev) == maj && minor(st->st_rdev) == min;
}

static int lvx_devs_from_system_unt(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_devlist *out)
{
    out->count = 0;
    out->devs = NULL;
    char *text = NULL;
    int r = read_partitions(ctx, &text);
    if (r < 0)
        return r;

    /* /proc/partitions lists each device number once and every entry is tied to its
     * own node: no de-duplication needed */
    struct node_set nodes;
    node_set_load(&nodes);
    struct lvx_lvdev_probe probe;
    lvx_lvdev_probe_init(&probe);
    unsigned cap = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        unsigned maj, min;
        unsigned long long blocks;
        char name[64], path[80];
        if (!parse_partition_line(line, &maj, &min, &blocks, name) || blocks == 0)
            continue;          /* header, blank line, or an empty device (unused loop) */
        snprintf(path, sizeof(path), "/dev/%s", name);
        struct lvx_dev *d;
        if (node_set_has(&nodes, name)) {
            d = lvx_dev_new_listed(pool, path, maj, min, 0, false);
        } else {
            struct stat st;
            bool is_link;
            if (!node_matches(path, maj, min, &st, &is_link)) {
                lvx_debug(ctx, "Skipping %s: no matching device node", path);
                continue;
            }
            d = dev_new(pool, path, &st);
            d->is_link = is_link;
        }
        if (out->count == cap) {
            unsigned ncap = cap ? cap * 2 : 64;
            out->devs = lvx_pool_realloc(pool, out->devs, cap * sizeof(*out->devs),
                                         ncap * sizeof(*out->devs));
            cap = ncap;
        }
        d->size = (uint64_t)blocks * 1024;     /* a hint; lvx_dev_open() gets the exact size */
        d->is_lv = lvx_lvdev_is_lv(&probe, maj, min, NULL, 0);
        if (!d->is_lv && probe.dm_major >= 0 && maj == (unsigned)probe.dm_major) {
            bool link;                /* LVM2 names it by its /dev/mapper node */
            const char *mapper = lvx_dev_mapper_path(&probe, pool, maj, min, &link);
            if (mapper) {
                d->path = mapper;
                d->is_link = link;
            }
        }
        out->devs[out->count++] = d;
    }
    node_set_free(&nodes);
    free(text);
    return 0;
}

int lvx_devs_from_system(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_devlist *out)
{
    uint64_t t = lvx_phase_start();
    int rc = lvx_devs_from_system_unt(ctx, pool, out);
    lvx_phase_end("list", t);
    return rc;
}

/* ---- open, size, topology ------------------------------------------------------ */

static uint64_t sysfs_number(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    unsigned long long v = 0;
    if (fscanf(f, "%llu", &v) != 1)
        v = 0;
    fclose(f);
    return v;
}

/* queue/<attr> of the device, or of its parent disk for a partition. */
static uint64_t sysfs_queue_number(const struct lvx_dev *dev, const char *attr)
{
    char path[128];
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/queue/%s", dev->major, dev->minor, attr);
    if (access(path, R_OK) == 0)
        return sysfs_number(path);
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../queue/%s", dev->major, dev->minor, attr);
    return sysfs_number(path);
}

unsigned lvx_dev_logical_block_size_now(const struct lvx_dev *dev)
{
    if (dev->is_file || (dev->major == 0 && dev->minor == 0))
        return 0;
    int lbs = 0;
    if (dev->fd >= 0 && ioctl(dev->fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
        return (unsigned)lbs;
    uint64_t v = sysfs_queue_number(dev, "logical_block_size");
    return v <= UINT32_MAX ? (unsigned)v : 0;
}

void lvx_dev_read_topology(struct lvx_dev *dev)
{
    lvx_dev_read_topology_fd(dev, dev->fd);
}

void lvx_dev_read_topology_fd(struct lvx_dev *dev, int fd)
{
    if (dev->topology_known || dev->is_file || (dev->major == 0 && dev->minor == 0))
        return;
    dev->topology_known = true;
    if (fd >= 0) {
        int lbs = 0, align = 0;
        unsigned io_min = 0, io_opt = 0;
        dev->logical_block_size = ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0 ? (unsigned)lbs : 512;
        /* the kernel's values behind the sysfs files below (bdev_io_min, bdev_io_opt,
         * bdev_alignment_offset), without three path walks through /sys per device */
        if (ioctl(fd, BLKIOMIN, &io_min) == 0 && ioctl(fd, BLKIOOPT, &io_opt) == 0 &&
            ioctl(fd, BLKALIGNOFF, &align) == 0) {
            dev->io_min = io_min;
            dev->io_opt = io_opt;
            dev->alignment_offset = (uint64_t)(long long)align;   /* -1 as sysfs reads it */
            return;
        }
    }
    char path[128];
    dev->io_min = sysfs_queue_number(dev, "minimum_io_size");
    dev->io_opt = sysfs_queue_number(dev, "optimal_io_size");
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/alignment_offset", dev->major, dev->minor);
    dev->alignment_offset = sysfs_number(path);
}

static int read_size(struct lvx_ctx *ctx, struct lvx_dev *dev)
{
    uint64_t size;
    if (!dev->is_file && (dev->major || dev->minor) && ioctl(dev->fd, BLKGETSIZE64, &size) == 0) {
        dev->size = size;     /* a block device of the list: no fstat (a scan opens thousands) */
        return 0;
    }
    struct stat st;
    if (fstat(dev->fd, &st) < 0)
        return lvx_error(ctx, errno, "Cannot stat %s: %s", dev->path, strerror(errno));
    if (S_ISREG(st.st_mode)) {
        dev->is_file = true;
        dev->size = (uint64_t)st.st_size;
        dev->logical_block_size = 512;
        dev->io_min = dev->io_opt = dev->alignment_offset = 0;
        return 0;
    }
    if (!S_ISBLK(st.st_mode))
        return lvx_error(ctx, EINVAL, "%s is not a block device or regular file", dev->path);
    dev->is_file = false;
    dev->major = major(st.st_rdev);
    dev->minor = minor(st.st_rdev);
    if (ioctl(dev->fd, BLKGETSIZE64, &size) < 0)
        return lvx_error(ctx, errno, "Cannot get the size of %s: %s", dev->path, strerror(errno));
    dev->size = size;
    return 0;
}

/* Open and size without touching ctx (callable from worker threads): 0 or -errno.  A
 * read-write open the device refuses is made read-only. */
static int dev_open_quiet(const struct lvx_dev_ops *io, struct lvx_dev *dev, int flags)
{
    int fd = io->open(io->arg, dev->path, flags);
    if ((fd == -EROFS || fd == -EACCES || fd == -EPERM) && (flags & O_ACCMODE) == O_RDWR) {
        flags = (flags & ~O_ACCMODE) | O_RDONLY;
        fd = io->open(io->arg, dev->path, flags);
    }
    if (fd == -EINVAL && (flags & O_DIRECT)) {
        flags &= ~O_DIRECT;
        fd = io->open(io->arg, dev->path, flags);
    }
    if (fd < 0)
        return fd;
    uint64_t size;
    struct stat st;
    if (!dev->is_file && (dev->major || dev->minor) && ioctl(fd, BLKGETSIZE64, &size) == 0) {
        dev->size = size;
    } else if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        dev->size = (uint64_t)st.st_size;
    } else {
        io->close(io->arg, fd);
        return -EAGAIN;              /* the caller retries with ctx for the message */
    }
    dev->fd = fd;
    dev->writable = (flags & O_ACCMODE) == O_RDWR;
    dev->direct = (flags & O_DIRECT) != 0;
    return 0;
}

struct open_job {
    const struct lvx_dev_ops *io;
    struct lvx_dev **devs;
    int *results;
};

static void open_one(void *arg, unsigned i)
{
    struct open_job *j = arg;
    struct lvx_dev *dev = j->devs[i];
    j->results[i] = dev->fd >= 0 ? 0
                                 : dev_open_quiet(j->io, dev, dev->is_file ? O_RDONLY
                                                                           : O_RDONLY | O_DIRECT);
}

static void close_one(void *arg, unsigned i)
{
    struct open_job *j = arg;
    struct lvx_dev *dev = j->devs[i];
    if (dev->fd < 0)
        return;
    j->io->close(j->io->arg, dev->fd);
    dev->fd = -1;
    dev->writable = false;
    dev->direct = false;
}

/* Threads for opening or closing `count` devices: a block device open or close costs
 * a few microseconds of kernel time, worth spreading over the CPUs from ~100 on. */
static unsigned many_threads(unsigned count)
{
    return count >= 128 ? 4 : 1;
}

void lvx_dev_open_direct_many(struct lvx_ctx *ctx, struct lvx_dev **devs, unsigned count,
                              int *results)
{
    struct open_job job = { lvx_io(ctx), devs, results };
    lvx_parallel_for(count, many_threads(count), open_one, &job);
}

void lvx_dev_close_many(const struct lvx_dev_ops *io, struct lvx_dev **devs, unsigned count)
{
    struct open_job job = { io, devs, NULL };
    lvx_parallel_for(count, many_threads(count), close_one, &job);
}

static int dev_open_flags(struct lvx_ctx *ctx, struct lvx_dev *dev, int flags, bool write)
{
    int fd = lvx_io(ctx)->open(lvx_io(ctx)->arg, dev->path, flags);
    if (fd == -EINVAL && (flags & O_DIRECT))
        fd = lvx_io(ctx)->open(lvx_io(ctx)->arg, dev->path, flags & ~O_DIRECT);   /* no O_DIRECT here */
    else if (fd >= 0 && (flags & O_DIRECT))
        dev->direct = true;
    if (fd < 0)
        return lvx_error(ctx, fd, "Cannot open %s%s: %s", dev->path, write ? " for writing" : "",
                         strerror(-fd));
    dev->fd = fd;
    dev->writable = write;
    /* no fadvise: metadata reads are few and small, and the head read bypasses the cache */
    int r = read_size(ctx, dev);
    if (r < 0)
        lvx_dev_close(ctx, dev);
    return r;
}

int lvx_dev_open(struct lvx_ctx *ctx, struct lvx_dev *dev, bool write)
{
    if (dev->fd >= 0) {
        if (dev->writable || !write) {
            lvx_dev_end_direct(ctx, dev);
            return 0;
        }
        lvx_dev_close(ctx, dev);      /* reopen read-write */
    }
    return dev_open_flags(ctx, dev, write ? O_RDWR : O_RDONLY, write);
}

int lvx_dev_open_direct(struct lvx_ctx *ctx, struct lvx_dev *dev)
{
    if (dev->fd >= 0)
        return 0;
    return dev_open_flags(ctx, dev, dev->is_file ? O_RDONLY : O_RDONLY | O_DIRECT, false);
}

int lvx_dev_open_write_direct(struct lvx_ctx *ctx, struct lvx_dev *dev)
{
    if (dev->fd >= 0 && dev->writable)
        return 0;
    int old = dev->fd;                 /* closed after the new open (see dev.h) */
    dev->fd = -1;
    dev->direct = false;
    int r = dev_open_flags(ctx, dev, dev->is_file ? O_RDWR : O_RDWR | O_DIRECT, true);
    if (old >= 0)
        lvx_io(ctx)->close(lvx_io(ctx)->arg, old);
    return r;
}

void lvx_dev_end_direct(struct lvx_ctx *ctx, struct lvx_dev *dev)
{
    if (dev->fd < 0 || !dev->direct)
        return;
    dev->direct = false;
    if (fcntl(dev->fd, F_SETFL, dev->writable ? O_RDWR : O_RDONLY) == 0) {
        /* buffered from here: no readahead past the metadata asked for */
        posix_fadvise(dev->fd, 0, 0, POSIX_FADV_RANDOM);
        return;
    }
    bool write = dev->writable;           /* F_SETFL refused: reopen without O_DIRECT */
    lvx_dev_close(ctx, dev);
    if (dev_open_flags(ctx, dev, write ? O_RDWR : O_RDONLY, write) < 0)
        lvx_error_clear(ctx);             /* the next I/O reports the closed device */
}

bool lvx_dev_held(struct lvx_ctx *ctx, const struct lvx_dev *dev)
{
    if (dev->is_file)
        return false;
    int fd = lvx_io(ctx)->open(lvx_io(ctx)->arg, dev->path, O_RDONLY | O_EXCL);
    if (fd >= 0)
        lvx_io(ctx)->close(lvx_io(ctx)->arg, fd);
    return fd == -EBUSY;
}

void lvx_dev_close(struct lvx_ctx *ctx, struct lvx_dev *dev)
{
    if (dev->fd < 0)
        return;
    lvx_io(ctx)->close(lvx_io(ctx)->arg, dev->fd);
    dev->fd = -1;
    dev->writable = false;
    dev->direct = false;
}

/* ---- I/O ------------------------------------------------------------------------ */

static int require_open(struct lvx_ctx *ctx, struct lvx_dev *dev, bool write)
{
    lvx_dev_end_direct(ctx, dev);          /* any length and offset from here on */
    if (dev->fd < 0)
        return lvx_error(ctx, EBADF, "Device %s is not open", dev->path);
    if (write && !dev->writable)
        return lvx_error(ctx, EBADF, "Device %s is open read-only", dev->path);
    return 0;
}

int lvx_dev_read(struct lvx_ctx *ctx, struct lvx_dev *dev, void *buf, size_t len, uint64_t offset)
{
    int r = require_open(ctx, dev, false);
    if (r < 0)
        return r;
    ssize_t n = lvx_io(ctx)->pread(lvx_io(ctx)->arg, dev->fd, buf, len, offset);
    if (n < 0)
        return lvx_error(ctx, (int)n, "Read of %zu bytes at offset %llu from %s failed: %s", len,
                         (unsigned long long)offset, dev->path, strerror((int)-n));
    if ((size_t)n < len)
        return lvx_error(ctx, EIO, "Short read from %s: %zd of %zu bytes at offset %llu", dev->path,
                         n, len, (unsigned long long)offset);
    return 0;
}

int lvx_dev_write(struct lvx_ctx *ctx, struct lvx_dev *dev, const void *buf, size_t len,
                  uint64_t offset)
{
    int r = require_open(ctx, dev, true);
    if (r < 0)
        return r;
    ssize_t n = lvx_io(ctx)->pwrite(lvx_io(ctx)->arg, dev->fd, buf, len, offset);
    if (n < 0)
        return lvx_error(ctx, (int)n, "Write of %zu bytes at offset %llu to %s failed: %s", len,
                         (unsigned long long)offset, dev->path, strerror((int)-n));
    if ((size_t)n < len)
        return lvx_error(ctx, EIO, "Short write to %s: %zd of %zu bytes at offset %llu", dev->path,
                         n, len, (unsigned long long)offset);
    return 0;
}

int lvx_dev_flush(struct lvx_ctx *ctx, struct lvx_dev *dev)
{
    int r = require_open(ctx, dev, false);
    if (r < 0)
        return r;
    r = lvx_io(ctx)->flush(lvx_io(ctx)->arg, dev->fd);
    if (r < 0)
        return lvx_error(ctx, r, "Flushing %s failed: %s", dev->path, strerror(-r));
    return 0;
}

int lvx_dev_writeback(struct lvx_ctx *ctx, struct lvx_dev *dev)
{
    const struct lvx_dev_ops *io = lvx_io(ctx);
    if (!io->writeback)
        return lvx_dev_flush(ctx, dev);
    int r = require_open(ctx, dev, false);
    if (r < 0)
        return r;
    r = io->writeback(io->arg, dev->fd);
    if (r < 0)
        return lvx_error(ctx, r, "Writing back %s failed: %s", dev->path, strerror(-r));
    return 0;
}

/* From this many reads on, a batch goes out as two halves on two threads (each its own
 * read_batch, all in flight together): the submitting thread does the block layer's
 * work of each read, tens of milliseconds of one CPU for a thousand devices. */
#define READ_SPLIT_MIN 256u

struct read_part {
    const struct lvx_dev_ops *io;
    struct lvx_io_req *reqs;
    unsigned count;
    int r;
};

static void read_part(void *arg, unsigned i)
{
    struct read_part *p = &((struct read_part *)arg)[i];
    p->r = p->io->read_batch(p->io->arg, p->reqs, p->count);
}

static int read_batch(const struct lvx_dev_ops *io, struct lvx_io_req *reqs, unsigned n)
{
    if (n < READ_SPLIT_MIN)
        return n ? io->read_batch(io->arg, reqs, n) : 0;
    struct read_part parts[2] = { { io, reqs, n / 2, 0 }, { io, reqs + n / 2, n - n / 2, 0 } };
    lvx_parallel_for(2, 2, read_part, parts);
    return parts[0].r < 0 ? parts[0].r : parts[1].r;
}

int lvx_dev_read_many(struct lvx_ctx *ctx, struct lvx_dev **devs, unsigned count, uint64_t offset,
                      size_t len, uint8_t **bufs, int *errs, size_t *lens)
{
    if (count == 0)
        return 0;
    struct lvx_io_req *reqs = lvx_xcalloc(count, sizeof(*reqs));
    unsigned *slot = lvx_xcalloc(count, sizeof(*slot));
    unsigned n = 0;
    for (unsigned i = 0; i < count; i++) {
        errs[i] = 0;
        if (lens)
            lens[i] = 0;
        if (devs[i]->fd < 0) {
            errs[i] = -EBADF;
            continue;
        }
        reqs[n] = (struct lvx_io_req){ devs[i]->fd, bufs[i], len, offset, 0 };
        slot[n++] = i;
    }
    int r = read_batch(lvx_io(ctx), reqs, n);
    if (r < 0) {
        r = lvx_error(ctx, r, "Batched read of %u devices failed: %s", n, strerror(-r));
    } else {
        for (unsigned k = 0; k < n; k++) {
            unsigned i = slot[k];
            ssize_t got = reqs[k].result;
            if (got == -EINVAL && devs[i]->direct) {
                /* O_DIRECT alignment refused (e.g. a 4 KiB-sector device): read buffered */
                lvx_dev_end_direct(ctx, devs[i]);
                got = devs[i]->fd < 0 ? -EBADF
                                      : lvx_io(ctx)->pread(lvx_io(ctx)->arg, devs[i]->fd, bufs[i], len,
                                                       offset);
            }
            if (got < 0) {
                errs[i] = (int)got;
                continue;
            }
            if ((size_t)got < len)
                memset(bufs[i] + got, 0, len - (size_t)got);
            if (lens)
                lens[i] = (size_t)got;
        }
    }
    free(reqs);
    free(slot);
    return r;
}

uint32_t lvx_dev_tree_key(unsigned major, unsigned minor)
{
    uint32_t d = (minor & 0xffu) | ((major & 0xfffu) << 8) | ((minor & ~0xffu) << 12);
    return (d & 0xffu) << 24 | (d & 0xff00u) << 8 | (d & 0xff0000u) >> 8 | d >> 24;
}
