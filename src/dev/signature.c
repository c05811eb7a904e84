/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/signature.c - foreign signatures through libblkid (see signature.h).
 *
 * One probe with the superblock and partition chains enabled, magic reporting on;
 * blkid_do_probe() returns one signature per call until none is left.  Before a
 * whole-device probe the places libblkid's probers read are asked for at once
 * (prefetch_probe_areas): the probe then reads from the page cache instead of
 * waiting for some 34 small reads one after the other.
 */
#include "dev/signature.h"
#include "util/phase.h"

#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SIGNATURES 64

static bool lookup(blkid_probe pr, const char *name, const char **value, size_t *len)
{
    return blkid_probe_lookup_value(pr, name, value, len) == 0 && *value;
}

/* The signature the probe stopped at; false when it has no usable magic. */
static bool current_signature(struct lvx_pool *pool, blkid_probe pr, struct lvx_dev_sig *sig)
{
    const char *type, *off, *magic;
    size_t type_len, off_len, magic_len;
    bool pt = false;

    if (lookup(pr, "TYPE", &type, &type_len)) {
        if (!lookup(pr, "SBMAGIC_OFFSET", &off, &off_len) || !lookup(pr, "SBMAGIC", &magic, &magic_len))
            return false;
    } else if (lookup(pr, "PTTYPE", &type, &type_len)) {
        pt = true;
        if (!lookup(pr, "PTMAGIC_OFFSET", &off, &off_len) || !lookup(pr, "PTMAGIC", &magic, &magic_len))
            return false;
    } else {
        return false;
    }
    char *end;
    unsigned long long offset = strtoull(off, &end, 10);
    if (end == off)
        return false;
    sig->type = lvx_pool_strdup(pool, type);
    sig->offset = offset;
    sig->len = magic_len;
    sig->partition_table = pt;
    return true;
}

/* Every signature of a set-up probe (offsets moved by base); the probe is freed. */
static int probe_all(struct lvx_ctx *ctx, struct lvx_pool *pool, blkid_probe pr, const char *path,
                     uint64_t base, struct lvx_dev_sig **out, unsigned *count)
{
    blkid_probe_enable_superblocks(pr, 1);
    blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_MAGIC |
                                          BLKID_SUBLKS_BADCSUM);
    blkid_probe_enable_partitions(pr, 1);
    blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);

    struct lvx_dev_sig *sigs = lvx_pool_alloc(pool, MAX_SIGNATURES * sizeof(*sigs));
    unsigned n = 0;
    int rc = 1;
    while (n < MAX_SIGNATURES && (rc = blkid_do_probe(pr)) == 0) {
        struct lvx_dev_sig sig;
        if (!current_signature(pool, pr, &sig))
            continue;
        if (strcmp(sig.type, "LVM2_member") == 0)
            continue;       /* our own label: the commands handle existing PVs */
        sig.offset += base;
        sigs[n++] = sig;
    }
    blkid_free_probe(pr);
    if (n < MAX_SIGNATURES && rc < 0)
        return lvx_error(ctx, EIO, "Probing %s for signatures failed", path);
    *out = sigs;
    *count = n;
    return 0;
}

/*
 * Where libblkid 2.38's superblock and partition probers read on a device of size end
 * (seen with strace on empty devices of 16 MiB and 1 GiB): the first 512 KiB (ZFS
 * reads it whole on big devices, most others a sector or two in its first 68 KiB),
 * single sectors at 1, 2 and 4 MiB, the last 512 KiB (RAID metadata, ZFS's two back
 * labels, GPT's backup) and one sector 1580544 bytes before the end.  A hint only:
 * what a prober reads elsewhere (another version, a magic found and followed) is
 * read on demand as before.  On a loop device this is 7 reads of about 1 MiB instead
 * of 34 of 10 KiB one after the other (bench/pvcreate).  The pages stay cached while
 * fd is open; a block device's cache is dropped at its last close.
 */
static void prefetch_probe_areas(int fd)
{
    static const struct { uint64_t off, len; bool from_end; } areas[] = {
        { 0, 512 << 10, false },
        { 1 << 20, 4096, false },
        { 2 << 20, 4096, false },
        { 4 << 20, 4096, false },
        { 512 << 10, 512 << 10, true },
        { 1580544, 4096, true },
    };
    off_t end = lseek(fd, 0, SEEK_END);
    if (end <= 0)
        return;
    for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++) {
        uint64_t len = areas[i].len, off;
        if (areas[i].off >= (uint64_t)end)
            continue;
        off = areas[i].from_end ? ((uint64_t)end - areas[i].off) & ~(uint64_t)4095 : areas[i].off;
        (void)posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);
    }
}

static int probe_fd(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_dev *dev, int fd,
                    uint64_t offset, uint64_t size, struct lvx_dev_sig **out, unsigned *count);

static int lvx_dev_find_signatures_unt(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_dev *dev,
                            struct lvx_dev_sig **out, unsigned *count)
{
    *out = NULL;
    *count = 0;
    /* the flags libblkid's own open by name uses */
    int fd = open(dev->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return lvx_error(ctx, EIO, "Cannot probe %s for signatures", dev->path);
    prefetch_probe_areas(fd);
    int rc = probe_fd(ctx, pool, dev, fd, 0, 0, out, count);
    close(fd);
    return rc;
}

/* A probe over [offset, offset + size) of an open fd (size 0: to the end). */
static int probe_fd(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_dev *dev, int fd,
                    uint64_t offset, uint64_t size, struct lvx_dev_sig **out, unsigned *count)
{
    *out = NULL;
    *count = 0;
    blkid_probe pr = blkid_new_probe();
    if (!pr || blkid_probe_set_device(pr, fd, (blkid_loff_t)offset, (blkid_loff_t)size) != 0) {
        if (pr)
            blkid_free_probe(pr);
        return lvx_error(ctx, EIO, "Cannot probe %s for signatures", dev->path);
    }
    return probe_all(ctx, pool, pr, dev->path, offset, out, count);
}

int lvx_dev_find_signatures_at(struct lvx_ctx *ctx, struct lvx_pool *pool,
                               const struct lvx_dev *dev, uint64_t offset, uint64_t size,
                               struct lvx_dev_sig **out, unsigned *count)
{
    *out = NULL;
    *count = 0;
    int fd = open(dev->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lvx_error(ctx, errno, "Cannot open %s to probe for signatures: %s", dev->path,
                         strerror(errno));
    /* the range was written through another device (an LV's, by a tool): what the
     * page cache of this one holds of it may be old */
    (void)posix_fadvise(fd, (off_t)offset, (off_t)size, POSIX_FADV_DONTNEED);
    int rc = probe_fd(ctx, pool, dev, fd, offset, size, out, count);
    close(fd);
    return rc;
}

int lvx_dev_find_signatures_fd(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_dev *dev,
                               int fd, struct lvx_dev_sig **out, unsigned *count)
{
    uint64_t t = lvx_phase_start();
    prefetch_probe_areas(fd);
    int rc = probe_fd(ctx, pool, dev, fd, 0, 0, out, count);
    lvx_phase_end("signatures", t);
    return rc;
}

int lvx_dev_find_signatures(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_dev *dev, struct lvx_dev_sig **out, unsigned *count)
{
    uint64_t t = lvx_phase_start();
    int rc = lvx_dev_find_signatures_unt(ctx, pool, dev, out, count);
    lvx_phase_end("signatures", t);
    return rc;
}

int lvx_dev_wipe_signature(struct lvx_ctx *ctx, struct lvx_dev *dev, const struct lvx_dev_sig *sig)
{
    uint8_t zero[64] = {0};
    if (sig->len > sizeof(zero) || sig->offset + sig->len > dev->size)
        return lvx_error(ctx, EINVAL, "Cannot wipe %s signature on %s at offset %llu: bad location",
                         sig->type, dev->path, (unsigned long long)sig->offset);
    return lvx_dev_write(ctx, dev, zero, sig->len, sig->offset);
}

/* Big-endian fields of the pool label (its on-disk byte order). */
static uint64_t load_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

bool lvx_dev_has_legacy_label(const uint8_t *head, size_t len)
{
    if (len >= 4 && head[0] == 'H' && head[1] == 'M') {
        unsigned version = head[2] | (unsigned)head[3] << 8;     /* little-endian */
        if (version == 1 || version == 2)
            return true;
    }
    /* pool_disk: pl_magic (8 bytes) at 0, pl_version (4 bytes) after the 256-byte name */
    return len >= 276 && load_be(head, 8) == 0x011670 && (load_be(head + 272, 4) >> 8) == 0x0401;
}
