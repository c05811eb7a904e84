/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/scan.c - the label scan (lvm2-format.md §2-§6, §8.1).
 *
 * lvx_scan() works in three batched phases, each one submission through the I/O seam:
 *   0. every device opened (on a few threads for many devices; block devices with
 *      O_DIRECT, see dev.h lvx_dev_open_direct);
 *   1. the first 4.5 KiB of every device (lvx_dev_read_many, O_DIRECT: no page cache to
 *      fill, no readahead) -> labels and, where LVM2 puts it, mda0's header;
 *   2. the 512-byte mda_header of every metadata area listed by a label (headers that
 *      lie inside the first 4.5 KiB are taken from phase 1, never read again); the
 *      devices read from here on are switched back to buffered I/O;
 *   3. the committed text (slot 0, one or two pieces when it wraps) of every area that
 *      is valid, not ignored and not empty.
 * Each text is checked (CRC, leading VG name) and parsed just enough to learn the VG
 * name, UUID and seqno; byte-identical copies are parsed once.  Nothing is logged for
 * damaged areas here: they are marked bad with a problem string for lvx_scan_vgs().
 *
 * A plain reader: which devices to read (the session cache, the device index, every
 * device) is decided above it, by the read front (meta/read.c).
 * Entry points: lvx_scan_devices(), lvx_scan_list_devices(), lvx_scan_judge_named(),
 * lvx_scan_reread_devices(), lvx_scan_release().
 */
#include "meta/scan.h"
#include "meta/scan_lvs.h"
#include "dev/devices_file.h"
#include "meta/devfile_check.h"
#include "util/phase.h"
#include "config/config.h"
#include "dev/aliases.h"
#include "dev/filter.h"
#include "dev/scandirs.h"
#include "dev/io.h"
#include "format/cfg.h"
#include "format/crc.h"
#include "util/buf.h"
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define SCAN_HEAD_BYTES 4608u               /* phase 1 read: labels and mda0's header
                                             * (at 4096 as LVM2 places it): one read per PV */
#define SCAN_MIN_DEVICE_BYTES LVX_LABEL_SCAN_BYTES

/* One read of a multi-offset batch. */
struct scan_read {
    struct lvx_dev *dev;
    uint64_t offset;
    size_t len;
    uint8_t *buf;
    int err;                 /* 0 or -errno after scan_read_batch */
};

/* Per labelled device: the bytes of phase 1 (to reuse headers found in them). */
struct scan_head {
    const uint8_t *buf;
    size_t len;
};

/* Finish a short read with plain preads (io_uring may return partial results). */
static int scan_read_rest(struct lvx_ctx *ctx, struct scan_read *r, size_t done)
{
    while (done < r->len) {
        ssize_t n = lvx_io(ctx)->pread(lvx_io(ctx)->arg, r->dev->fd, r->buf + done, r->len - done,
                                   r->offset + done);
        if (n < 0)
            return (int)n;
        if (n == 0)
            return -EIO;     /* end of device */
        done += (size_t)n;
    }
    return 0;
}

/* Read many (device, offset, length) ranges in one submission; per-read errors in r[i].err. */
static int scan_read_batch(struct lvx_ctx *ctx, struct scan_read *r, unsigned n)
{
    if (n == 0)
        return 0;
    struct lvx_io_req *reqs = lvx_xcalloc(n, sizeof(*reqs));
    for (unsigned i = 0; i < n; i++) {
        lvx_dev_end_direct(ctx, r[i].dev);    /* unaligned ranges: through the page cache */
        reqs[i].fd = r[i].dev->fd;
        reqs[i].buf = r[i].buf;
        reqs[i].len = r[i].len;
        reqs[i].offset = r[i].offset;
    }
    int rc = 0;
    if (lvx_io(ctx)->read_batch) {
        rc = lvx_io(ctx)->read_batch(lvx_io(ctx)->arg, reqs, n);
    } else {
        for (unsigned i = 0; i < n; i++)
            reqs[i].result = 0;     /* scan_read_rest does the whole read */
    }
    if (rc < 0) {
        free(reqs);
        return lvx_error(ctx, -rc, "batched read of %u metadata ranges failed: %s", n,
                         strerror(-rc));
    }
    for (unsigned i = 0; i < n; i++) {
        if (reqs[i].result < 0)
            r[i].err = (int)reqs[i].result;
        else
            r[i].err = scan_read_rest(ctx, &r[i], (size_t)reqs[i].result);
    }
    free(reqs);
    return 0;
}

/* ---- phase 0: the device list ------------------------------------------------ */

static int scan_open_devices(struct lvx_ctx *ctx, struct lvx_scan *scan, bool named,
                             struct lvx_dev **usable, unsigned *usable_count)
{
    unsigned n = 0;
    uint64_t min_bytes = lvx_scan_pv_min_bytes(ctx);
    int *opened = lvx_xcalloc(scan->devs.count + 1, sizeof(*opened));
    lvx_dev_open_direct_many(ctx, scan->devs.devs, scan->devs.count, opened);
    for (unsigned i = 0; i < scan->devs.count; i++) {
        struct lvx_dev *dev = scan->devs.devs[i];
        if (opened[i] < 0 && lvx_dev_open_direct(ctx, dev) < 0) {   /* again: the message */
            if (named)
                lvx_warn(ctx, "WARNING: Cannot open device %s: %s", dev->path, ctx->errmsg);
            lvx_error_clear(ctx);
            continue;
        }
        if (dev->size < SCAN_MIN_DEVICE_BYTES) {
            if (named)
                lvx_warn(ctx, "WARNING: Device %s is too small to hold a PV label (%" PRIu64
                         " bytes).", dev->path, dev->size);
            lvx_dev_close(ctx, dev);
            continue;
        }
        if (dev->size < min_bytes) {             /* devices/pv_min_size, as LVM2's filter */
            lvx_debug(ctx, "%s: smaller than devices/pv_min_size", dev->path);
            lvx_dev_close(ctx, dev);
            continue;
        }
        usable[n++] = dev;
    }
    free(opened);
    *usable_count = n;
    return 0;
}

/* ---- phase 1: labels ----------------------------------------------------------- */

/* Page-aligned memory for O_DIRECT reads (freed with free()). */
static uint8_t *scan_aligned_alloc(size_t len)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, len) != 0)
        abort();                     /* out of memory, as the pool allocators do */
    return p;
}

/* The head buffers are one block (*block, freed by the caller once the headers are
 * decoded), not zeroed: a scan of a thousand devices must not fault in and clear
 * megabytes it overwrites anyway (short reads are zero-filled by lvx_dev_read_many). */
static int scan_labels(struct lvx_ctx *ctx, struct lvx_scan *scan, bool named,
                       struct lvx_dev **devs, unsigned count, struct scan_head *heads,
                       uint8_t **block)
{
    const unsigned first = scan->pv_count;
    uint8_t **bufs = lvx_xcalloc(count + 1, sizeof(*bufs));
    int *errs = lvx_xcalloc(count + 1, sizeof(*errs));
    size_t *lens = lvx_xcalloc(count + 1, sizeof(*lens));
    *block = scan_aligned_alloc((size_t)(count + 1) * SCAN_HEAD_BYTES);     /* O_DIRECT reads */
    for (unsigned i = 0; i < count; i++)
        bufs[i] = *block + (size_t)i * SCAN_HEAD_BYTES;

    int rc = count ? lvx_dev_read_many(ctx, devs, count, 0, SCAN_HEAD_BYTES, bufs, errs, lens) : 0;
    if (rc < 0)
        goto out;

    for (unsigned i = 0; i < count; i++) {
        struct lvx_dev *dev = devs[i];
        size_t len = lens[i] ? lens[i] : SCAN_HEAD_BYTES;
        if (len > dev->size)
            len = (size_t)dev->size;
        if (errs[i] < 0) {
            if (named)
                lvx_warn(ctx, "WARNING: Cannot read device %s: %s", dev->path, strerror(-errs[i]));
            lvx_dev_close(ctx, dev);
            continue;
        }
        struct lvx_scan_pv *pv = &scan->pvs[scan->pv_count];
        int lrc = lvx_label_find(ctx, bufs[i], len, &pv->label);
        if (lrc < 0) {
            if (lrc != -ENOENT)
                lvx_warn(ctx, "WARNING: Ignoring damaged label on %s: %s", dev->path, ctx->errmsg);
            lvx_error_clear(ctx);
            memset(&pv->label, 0, sizeof(pv->label));
            lvx_dev_close(ctx, dev);     /* not a PV: no more reads */
            continue;
        }
        pv->dev = dev;
        heads[scan->pv_count - first].buf = bufs[i];    /* heads[0]: the first new PV */
        heads[scan->pv_count - first].len = len;
        scan->pv_count++;
    }
out:
    free(bufs);
    free(errs);
    free(lens);
    return rc;
}

/* ---- phase 2: mda headers ------------------------------------------------------ */

static void mda_mark_bad(struct lvx_scan *scan, struct lvx_scan_mda *m, const char *problem)
{
    m->bad = true;
    m->problem = lvx_pool_strdup(scan->pool, problem);
    m->text = NULL;
    m->tree = NULL;
}

/* Zero bytes only between the end of the label sector and the first area's header,
 * both within the head read (struct lvx_scan_pv head_gap_zero)? */
static bool head_gap_zero(const struct lvx_scan_pv *pv, const struct scan_head *head)
{
    uint64_t from = ((uint64_t)pv->label.sector + 1) * LVX_SECTOR_SIZE;
    uint64_t to = pv->label.mda_count ? pv->label.mda[0].offset : 0;
    static const uint8_t zeros[SCAN_HEAD_BYTES];      /* memcmp: a thousand PVs, fast */
    if (to < from || to + LVX_MDA_HEADER_SIZE > head->len || to > sizeof(zeros))
        return false;
    return memcmp(head->buf + from, zeros, (size_t)(to - from)) == 0;
}

/* Set up the areas of one PV; queue header reads not covered by the phase 1 bytes. */
static void scan_queue_headers(struct lvx_scan *scan, struct lvx_scan_pv *pv,
                               const struct scan_head *head, struct scan_read *reads,
                               unsigned *nreads, uint8_t **hdr_bufs)
{
    pv->mda_count = pv->label.mda_count < 2 ? pv->label.mda_count : 2;
    pv->head_gap_zero = head_gap_zero(pv, head);
    for (unsigned i = 0; i < pv->mda_count; i++) {
        struct lvx_scan_mda *m = &pv->mda[i];
        m->start = pv->label.mda[i].offset;
        m->area_size = pv->label.mda[i].size;
        hdr_bufs[i] = NULL;
        if (m->start > pv->dev->size || pv->dev->size - m->start < LVX_MDA_HEADER_SIZE) {
            char msg[160];
            snprintf(msg, sizeof(msg), "header at offset %" PRIu64 " lies beyond the end of "
                     "the device (%" PRIu64 " bytes)", m->start, pv->dev->size);
            mda_mark_bad(scan, m, msg);
            continue;
        }
        if (m->start + LVX_MDA_HEADER_SIZE <= head->len) {
            hdr_bufs[i] = (uint8_t *)head->buf + m->start;   /* already read in phase 1 */
            continue;
        }
        hdr_bufs[i] = lvx_pool_alloc(scan->pool, LVX_MDA_HEADER_SIZE);
        reads[*nreads] = (struct scan_read){ .dev = pv->dev, .offset = m->start,
                                             .len = LVX_MDA_HEADER_SIZE, .buf = hdr_bufs[i] };
        (*nreads)++;
    }
}

static void scan_decode_header(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_scan_mda *m,
                               const uint8_t *buf)
{
    if (lvx_mda_header_decode(ctx, buf, m->start, &m->hdr) < 0) {
        mda_mark_bad(scan, m, ctx->errmsg);
        lvx_error_clear(ctx);
        return;
    }
    m->hdr_valid = true;
    m->area_size = m->hdr.size;
    m->ignored = (m->hdr.slot[0].flags & LVX_RAW_LOCN_IGNORED) != 0;
    if (!m->ignored && m->hdr.slot[0].offset != 0)
        m->text_size = m->hdr.slot[0].size;
}

/* Headers of the PVs from scan->pvs[first] on (heads[0] is the head of pvs[first]). */
static int scan_headers(struct lvx_ctx *ctx, struct lvx_scan *scan, unsigned first,
                        const struct scan_head *heads)
{
    struct scan_read *reads = lvx_xcalloc(scan->pv_count * 2 + 1, sizeof(*reads));
    uint8_t **bufs = lvx_xcalloc(scan->pv_count * 2 + 1, sizeof(*bufs));
    unsigned n = 0;
    for (unsigned p = first; p < scan->pv_count; p++)
        scan_queue_headers(scan, &scan->pvs[p], &heads[p - first], reads, &n, &bufs[p * 2]);

    int rc = scan_read_batch(ctx, reads, n);
    if (rc < 0)
        goto out;

    unsigned r = 0;
    for (unsigned p = first; p < scan->pv_count; p++) {
        struct lvx_scan_pv *pv = &scan->pvs[p];
        for (unsigned i = 0; i < pv->mda_count; i++) {
            struct lvx_scan_mda *m = &pv->mda[i];
            uint8_t *buf = bufs[p * 2 + i];
            if (m->bad || !buf)
                continue;
            /* reads were queued in the same (pv, area) order */
            if (r < n && reads[r].buf == buf) {
                int err = reads[r++].err;
                if (err < 0) {
                    char msg[160];
                    snprintf(msg, sizeof(msg), "cannot read header at offset %" PRIu64 ": %s",
                             m->start, strerror(-err));
                    mda_mark_bad(scan, m, msg);
                    continue;
                }
            }
            scan_decode_header(ctx, scan, m, buf);
        }
    }
out:
    free(reads);
    free(bufs);
    return rc;
}

/* ---- phase 3: committed texts ------------------------------------------------------ */

/* Queue the 1 or 2 pieces of an area's committed text. */
static void scan_queue_text(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_scan_pv *pv,
                            struct lvx_scan_mda *m, struct scan_read *reads, unsigned *nreads)
{
    struct lvx_mda_range rng[2];
    unsigned count = 0;
    if (lvx_mda_text_ranges(ctx, m->hdr.size, &m->hdr.slot[0], rng, &count) < 0) {
        mda_mark_bad(scan, m, ctx->errmsg);
        lvx_error_clear(ctx);
        return;
    }
    for (unsigned k = 0; k < count; k++) {
        uint64_t end = m->start + rng[k].offset + rng[k].len;
        if (end > pv->dev->size || end < m->start) {
            char msg[200];
            snprintf(msg, sizeof(msg), "metadata text at offset %" PRIu64 " (%" PRIu64
                     " bytes) extends past the end of the device (%" PRIu64 " bytes)",
                     m->start + rng[k].offset, rng[k].len, pv->dev->size);
            mda_mark_bad(scan, m, msg);
            return;
        }
    }
    char *text = lvx_pool_alloc_uninit(scan->pool, m->text_size + 1);   /* filled by the reads */
    text[m->text_size] = '\0';                                           /* NUL guard */
    size_t pos = 0;
    for (unsigned k = 0; k < count; k++) {
        reads[*nreads] = (struct scan_read){ .dev = pv->dev, .offset = m->start + rng[k].offset,
                                             .len = (size_t)rng[k].len,
                                             .buf = (uint8_t *)text + pos };
        (*nreads)++;
        pos += (size_t)rng[k].len;
    }
    m->text = text;
}

/* Top-level checks of §8.1 step 5, and the VG name / id / seqno. */
static int scan_identity_from_tree(struct lvx_ctx *ctx, const struct lvx_cfg_node *root,
                                   struct lvx_scan_mda *m)
{
    const struct lvx_cfg_node *vg = root->child;
    while (vg && vg->kind != LVX_CFG_SECTION)
        vg = vg->next;
    if (!vg || !vg->key)
        return lvx_error(ctx, EINVAL, "metadata text holds no volume group section");
    const char *contents = NULL;
    if (lvx_cfg_get_str(root, "contents", &contents) < 0 ||
        strcmp(contents, "Text Format Volume Group") != 0)
        return lvx_error(ctx, EINVAL, "metadata text lacks contents = \"Text Format Volume Group\"");
    int64_t version = 0;
    if (lvx_cfg_get_int(root, "version", &version) < 0 || version != 1)
        return lvx_error(ctx, EINVAL, "metadata text is not version 1");
    if (strlen(vg->key) >= sizeof(m->vg_name))
        return lvx_error(ctx, EINVAL, "VG name in metadata text is too long");
    const char *id = NULL;
    if (lvx_cfg_get_str(vg, "id", &id) < 0 || lvx_uuid_parse(id, m->vg_uuid) < 0)
        return lvx_error(ctx, EINVAL, "VG %s: missing or invalid id", vg->key);
    int64_t seqno = -1;
    if (lvx_cfg_get_int(vg, "seqno", &seqno) < 0 || seqno < 0 || seqno > UINT32_MAX)
        return lvx_error(ctx, EINVAL, "VG %s: missing or invalid seqno", vg->key);
    snprintf(m->vg_name, sizeof(m->vg_name), "%s", vg->key);
    m->seqno = (uint32_t)seqno;
    return 0;
}

/* Parse once: the tree is kept in the scan's pool for the import (one parse per
 * distinct text, however large the VG). */
static int scan_text_identity(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_scan_mda *m)
{
    struct lvx_cfg_node *root = NULL;
    int rc = lvx_cfg_parse(ctx, scan->pool, m->text, (size_t)m->text_size, &root);
    if (rc == 0)
        rc = scan_identity_from_tree(ctx, root, m);
    m->tree = rc == 0 ? root : NULL;
    return rc;
}

/* An earlier area (already verified: areas are checked in order) holding exactly the
 * same text, or NULL. */
static const struct lvx_scan_mda *scan_find_same_text(const struct lvx_scan *scan,
                                                      const struct lvx_scan_mda *m)
{
    for (unsigned p = 0; p < scan->pv_count; p++) {
        const struct lvx_scan_pv *pv = &scan->pvs[p];
        for (unsigned i = 0; i < pv->mda_count; i++) {
            const struct lvx_scan_mda *o = &pv->mda[i];
            if (o == m)
                return NULL;
            if (o->text && !o->bad && o->text_size == m->text_size &&
                o->hdr.slot[0].checksum == m->hdr.slot[0].checksum &&
                memcmp(o->text, m->text, (size_t)m->text_size) == 0)
                return o;
        }
    }
    return NULL;
}

/* CRC, leading VG name, then name/uuid/seqno (copied from an identical earlier text). */
static void scan_verify_text(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_scan_mda *m)
{
    /* a byte-identical copy of a text already verified against the same checksum has
     * the same CRC: compare (fast) instead of computing it again (8 copies of a large
     * VG's text) */
    const struct lvx_scan_mda *same = scan_find_same_text(scan, m);
    if (same) {
        m->seqno = same->seqno;
        m->tree = same->tree;
        memcpy(m->vg_name, same->vg_name, sizeof(m->vg_name));
        memcpy(m->vg_uuid, same->vg_uuid, sizeof(m->vg_uuid));
        return;
    }
    uint32_t crc = lvx_crc(LVX_CRC_INITIAL, m->text, (size_t)m->text_size);
    if (crc != m->hdr.slot[0].checksum) {
        char msg[160];
        snprintf(msg, sizeof(msg), "metadata text checksum mismatch (computed 0x%08x, header "
                 "says 0x%08x)", crc, m->hdr.slot[0].checksum);
        mda_mark_bad(scan, m, msg);
        m->crc_bad = true;
        return;
    }
    char name[128];
    if (lvx_mda_text_vgname(ctx, m->text, (size_t)m->text_size, name) < 0 ||
        scan_text_identity(ctx, scan, m) < 0) {
        mda_mark_bad(scan, m, ctx->errmsg);
        lvx_error_clear(ctx);
    }
}

/* Texts of the PVs from scan->pvs[first] on. */
static int scan_texts(struct lvx_ctx *ctx, struct lvx_scan *scan, unsigned first)
{
    struct scan_read *reads = lvx_xcalloc(scan->pv_count * 4 + 1, sizeof(*reads));
    unsigned n = 0;
    for (unsigned p = first; p < scan->pv_count; p++) {
        struct lvx_scan_pv *pv = &scan->pvs[p];
        for (unsigned i = 0; i < pv->mda_count; i++) {
            struct lvx_scan_mda *m = &pv->mda[i];
            if (m->hdr_valid && !m->bad && !m->ignored && m->text_size)
                scan_queue_text(ctx, scan, pv, m, reads, &n);
        }
    }
    int rc = scan_read_batch(ctx, reads, n);
    if (rc < 0)
        goto out;
    /* a failed piece spoils its area's text */
    for (unsigned r = 0; r < n; r++) {
        if (reads[r].err == 0)
            continue;
        for (unsigned p = first; p < scan->pv_count; p++) {
            struct lvx_scan_pv *pv = &scan->pvs[p];
            for (unsigned i = 0; i < pv->mda_count; i++) {
                struct lvx_scan_mda *m = &pv->mda[i];
                const uint8_t *t = (const uint8_t *)m->text;
                if (t && reads[r].buf >= t && reads[r].buf < t + m->text_size) {
                    char msg[160];
                    snprintf(msg, sizeof(msg), "cannot read metadata text at offset %" PRIu64
                             ": %s", reads[r].offset, strerror(-reads[r].err));
                    mda_mark_bad(scan, m, msg);
                }
            }
        }
    }
    for (unsigned p = first; p < scan->pv_count; p++) {
        struct lvx_scan_pv *pv = &scan->pvs[p];
        for (unsigned i = 0; i < pv->mda_count; i++)
            if (pv->mda[i].text && !pv->mda[i].bad)
                scan_verify_text(ctx, scan, &pv->mda[i]);
    }
out:
    free(reads);
    return rc;
}

/* ---- what a system device list is built from ---------------------------------- */

/* Everything a system device list is built from, except the device nodes themselves:
 * the block devices of the system, lvm.conf (filters, devices/scan) and the --config
 * text.  The same key gives the same list, so a session lists the devices again (a
 * stat and a filter match per device of the system) only when it changes.
 * The devices are vouched for by the kernel's uevent sequence number: every device
 * added or removed, every loop device attached or detached, every capacity change of a
 * non-empty disk sends a uevent and counts (whether anybody listens or not).  Without
 * it, /proc/partitions itself (whose reading costs about as much as the listing on a
 * system of a thousand devices: the kernel walks its disks for each 4 KiB read). */
static void key_append_file(struct lvx_buf *b, const char *path, size_t max)
{
    if (lvx_buf_read_file(NULL, b, path, max) < 0)   /* unreadable, odd or huge: nothing */
        lvx_buf_puts(b, "-");
    lvx_buf_append(b, "", 1);       /* separator (NUL): keeps the parts apart */
}

void lvx_scan_list_key(const struct lvx_ctx *ctx, struct lvx_buf *key)
{
    char path[4200];
    lvx_buf_reset(key);
    lvx_buf_puts(key, "uevent ");
    size_t before = key->len;
    key_append_file(key, "/sys/kernel/uevent_seqnum", LVX_FILE_MAX_PROC);
    if (key->len - before < 2) {    /* unreadable: the partition list itself */
        key->len = 0;
        lvx_buf_puts(key, "partitions ");
        key_append_file(key, "/proc/partitions", LVX_FILE_MAX_PROC);
    }
    snprintf(path, sizeof(path), "%s/lvm.conf", lvx_config_system_dir());
    lvx_buf_puts(key, path);
    lvx_buf_append(key, "", 1);
    key_append_file(key, path, LVX_FILE_MAX_CONFIG);
    /* the devices file (the system one, or --devicesfile's) decides which devices count */
    snprintf(path, sizeof(path), "%s/devices/%s", lvx_config_system_dir(),
             ctx->devices_file && ctx->devices_file[0] ? ctx->devices_file : "system.devices");
    lvx_buf_puts(key, path);
    lvx_buf_append(key, "", 1);
    key_append_file(key, path, LVX_FILE_MAX_CONFIG);
    if (ctx->devices_file)
        lvx_buf_printf(key, "--devicesfile=%s", ctx->devices_file);
    /* the devices vgcreate/vgextend name join the list only through a devices file (no
     * file, no devices file): without one they leave the key as other commands have it */
    bool devices_file = ctx->devices_also_count && access(path, F_OK) == 0;
    for (unsigned i = 0; i < ctx->devices_also_count && devices_file; i++)
        lvx_buf_printf(key, "%c+%s", '\0', ctx->devices_also[i]);
    if (ctx->config_override)
        lvx_buf_puts(key, ctx->config_override);
}

uint64_t lvx_scan_list_key_hash(const struct lvx_ctx *ctx)
{
    uint64_t t = lvx_phase_start();
    struct lvx_buf key = LVX_BUF_INIT;
    lvx_scan_list_key(ctx, &key);
    uint64_t h = 14695981039346656037ull;            /* FNV-1a */
    for (size_t i = 0; i < key.len; i++)
        h = (h ^ (unsigned char)key.data[i]) * 1099511628211ull;
    lvx_buf_free(&key);
    lvx_phase_end("listkey", t);
    return h ? h : 1;
}

/* ---- entry points ------------------------------------------------------------------- */

uint64_t lvx_scan_pv_min_bytes(struct lvx_ctx *ctx)
{
    struct lvx_config *cfg = NULL;
    int64_t kib = 2048;
    if (lvx_config_load(ctx, &cfg) == 0)
        kib = lvx_config_int(cfg, "devices/pv_min_size", 2048);
    else
        lvx_error_clear(ctx);   /* a bad lvm.conf is reported by the scan's own load */
    lvx_config_free(cfg);
    if (kib < 512) {
        if (!ctx->pv_min_size_said)
            lvx_warn(ctx, "Ignoring too small pv_min_size %lldKB, using default 512KB.",
                     (long long)kib);
        ctx->pv_min_size_said = true;
        kib = 512;
    }
    return (uint64_t)kib * 1024;
}

/* lvm.conf devices/scan: keep the devices with a node in those directories. */
static int scan_config_dirs(struct lvx_ctx *ctx, const struct lvx_config *cfg,
                            struct lvx_pool *pool, struct lvx_devlist *devs)
{
    const struct lvx_cfg_node *n = lvx_config_node(cfg, "devices/scan");
    if (!n)
        return 0;
    const char *dirs[64];
    unsigned count = 0;
    if (n->kind == LVX_CFG_STRING)
        dirs[count++] = n->str;
    for (const struct lvx_cfg_node *e = n->kind == LVX_CFG_ARRAY ? n->child : NULL; e; e = e->next) {
        if (e->kind != LVX_CFG_STRING || count == 64)
            return lvx_error(ctx, EINVAL, "devices/scan must be an array of directory names");
        dirs[count++] = e->str;
    }
    if (n->kind != LVX_CFG_STRING && n->kind != LVX_CFG_ARRAY)
        return lvx_error(ctx, EINVAL, "devices/scan must be an array of directory names");
    return lvx_devs_restrict_to_dirs(ctx, pool, devs, dirs, count);
}

/* Is dev one of the devices a command names to add (ctx->devices_also)? */
static bool named_also(const struct lvx_ctx *ctx, const struct lvx_dev *dev)
{
    struct stat st;
    for (unsigned i = 0; i < ctx->devices_also_count; i++)
        if (strcmp(ctx->devices_also[i], dev->path) == 0 ||
            (stat(ctx->devices_also[i], &st) == 0 && S_ISBLK(st.st_mode) &&
             major(st.st_rdev) == dev->major && minor(st.st_rdev) == dev->minor))
            return true;
    return false;
}

int lvx_scan_devices_file(struct lvx_ctx *ctx, const struct lvx_config *cfg,
                          struct lvx_pool *pool, struct lvx_devlist *devs, bool *used)
{
    *used = false;
    const char *path = lvx_config_devices_file(ctx, cfg, pool);
    if (!path)
        return 0;
    struct lvx_devices_file df;
    int rc = lvx_devices_file_read(ctx, pool, path, &df);
    if (rc < 0 || !df.exists)          /* as LVM2: no file, no devices file */
        return rc;
    *used = true;
    ctx->devices_file_used = true;
    lvx_devices_file_match(pool, &df, devs);
    bool say = !ctx->devices_file_said;          /* once per command, as LVM2 */
    ctx->devices_file_said = true;
    for (unsigned i = 0; i < df.count && say; i++)
        if (!df.entries[i].dev)
            lvx_warn(ctx, "%s", lvx_devices_file_not_found(pool, &df.entries[i]));
    if (say && lvx_config_node(cfg, "devices/global_filter"))
        lvx_warn(ctx, "Please remove the lvm.conf global_filter, it is ignored with the devices file.");
    if (say && lvx_config_node(cfg, "devices/filter"))
        lvx_warn(ctx, "Please remove the lvm.conf filter, it is ignored with the devices file.");
    unsigned kept = 0;
    for (unsigned i = 0; i < devs->count; i++) {
        if (lvx_devices_file_for_dev(&df, devs->devs[i]) || named_also(ctx, devs->devs[i]))
            devs->devs[kept++] = devs->devs[i];
        else
            lvx_debug(ctx, "%s: not in the devices file", devs->devs[i]->path);
    }
    devs->count = kept;
    return 0;
}

/* Drop the devices lvm.conf's devices/global_filter and devices/filter reject, before
 * anything opens them.  A device is matched by all its names (dev/aliases.h).  As
 * LVM2 does, devices named with --devices are not filtered (system scan only).  named:
 * devices named on the command line (devices/scan's directories do not apply); *used_file
 * (may be NULL): whether the devices file, not the filters, decided. */
static int scan_filter_devices(struct lvx_ctx *ctx, struct lvx_pool *pool,
                               struct lvx_devlist *devs, bool named, bool *used_file)
{
    struct lvx_config *cfg = NULL;
    struct lvx_filter *filter = NULL;
    bool devices_file = false;
    int rc = lvx_config_load(ctx, &cfg);
    if (rc == 0 && !named)
        rc = scan_config_dirs(ctx, cfg, pool, devs);
    uint64_t t = lvx_phase_start();
    if (rc == 0)
        rc = lvx_scan_devices_file(ctx, cfg, pool, devs, &devices_file);
    if (used_file)
        *used_file = devices_file;
    if (rc == 0 && !devices_file)
        rc = lvx_config_device_filter(ctx, cfg, &filter);
    lvx_phase_end("filter.compile", t);
    lvx_config_free(cfg);
    if (rc < 0 || !filter)
        return rc;
    t = lvx_phase_start();
    unsigned kept = 0;
    struct lvx_dev_aliases aliases;
    lvx_dev_aliases_init(&aliases);
    for (unsigned i = 0; i < devs->count; i++) {
        struct lvx_dev *dev = devs->devs[i];
        const char *names[LVX_DEV_ALIASES_MAX];
        unsigned n = lvx_dev_alias_names(&aliases, pool, dev, names, LVX_DEV_ALIASES_MAX);
        if (lvx_filter_accepts(filter, names, n)) {
            struct stat st;
            if (!named && names[0] != dev->path) {     /* accepted by another name */
                dev->path = names[0];
                dev->is_link = lstat(names[0], &st) == 0 && S_ISLNK(st.st_mode);
            }
            devs->devs[kept++] = dev;
        } else
            lvx_debug(ctx, "%s: skipped by the device filter", dev->path);
    }
    lvx_dev_aliases_free(&aliases);
    devs->count = kept;
    lvx_filter_free(filter);
    lvx_phase_end("filter", t);
    return 0;
}

int lvx_scan_list_devices(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                          struct lvx_pool *pool, struct lvx_devlist *out)
{
    int rc;
    if (opts && opts->named) {
        enum lvx_named *why = opts->named_why;
        if (!why)
            why = lvx_pool_alloc(pool, (opts->named_count + 1) * sizeof(*why));
        rc = lvx_scan_judge_named(ctx, opts, pool, opts->named, opts->named_count, why, out);
        if (rc > 0) {            /* the caller says why (named_why) */
            out->count = 0;
            rc = -ENODEV;
        }
    } else if (opts && opts->devices) {
        if ((rc = lvx_devs_from_names(ctx, pool, opts->devices, opts->device_count, out)) == 0 &&
            !opts->with_lvs)
            lvx_scan_drop_lvs(ctx, pool, out);
    } else if ((rc = lvx_devs_from_system(ctx, pool, out)) == 0) {
        lvx_scan_drop_lvs(ctx, pool, out);
        rc = scan_filter_devices(ctx, pool, out, false, NULL);
    }
    return rc;
}

const char *lvx_named_reason(enum lvx_named why)
{
    switch (why) {
    case LVX_NAMED_LV:
        return "device is an LV";
    case LVX_NAMED_UNLISTED:
        return "device is not in devices list";
    case LVX_NAMED_FILTERED:
        return "device is rejected by filter config";
    default:
        return NULL;
    }
}

/* Two listings of one device: the same disk, or the same image file. */
static bool same_dev(const struct lvx_dev *a, const struct lvx_dev *b)
{
    if (a->is_file != b->is_file)
        return false;
    if (!a->is_file)
        return a->major == b->major && a->minor == b->minor;
    if (strcmp(a->path, b->path) == 0)
        return true;
    char *ra = realpath(a->path, NULL), *rb = realpath(b->path, NULL);
    bool same = ra && rb && strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

/* The --devices list (its names that are devices) holds dev. */
static bool in_devices_list(const struct lvx_devlist *list, const struct lvx_dev *dev)
{
    for (unsigned i = 0; i < list->count; i++)
        if (same_dev(list->devs[i], dev))
            return true;
    return false;
}

/* Mark LVX_NAMED_FILTERED the names whose device the filters (or the devices file)
 * would leave out of a system scan: judged as a list, the filters keep its order. */
static int judge_filter(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_devlist *devs,
                        struct lvx_dev **each, unsigned count, enum lvx_named *why)
{
    struct lvx_devlist kept = { .devs = lvx_pool_alloc(pool, (devs->count + 1) * sizeof(*kept.devs)),
                                .count = devs->count };
    memcpy(kept.devs, devs->devs, devs->count * sizeof(*kept.devs));
    bool used_file = false;
    int rc = scan_filter_devices(ctx, pool, &kept, true, &used_file);
    if (rc < 0 || used_file || kept.count == devs->count)   /* devices file: the commands */
        return rc;
    unsigned nrefused = 0, k = 0;
    struct lvx_dev **refused = lvx_pool_alloc(pool, (devs->count + 1) * sizeof(*refused));
    for (unsigned j = 0; j < devs->count; j++) {
        if (k < kept.count && kept.devs[k] == devs->devs[j])
            k++;
        else
            refused[nrefused++] = devs->devs[j];
    }
    for (unsigned i = 0; i < count; i++)
        for (unsigned r = 0; why[i] == LVX_NAMED_OK && r < nrefused; r++)
            if (each[i] == refused[r])
                why[i] = LVX_NAMED_FILTERED;
    return 0;
}

int lvx_scan_judge_named(struct lvx_ctx *ctx, const struct lvx_scan_opts *opts,
                         struct lvx_pool *pool, const char *const *names, unsigned count,
                         enum lvx_named *why, struct lvx_devlist *devs)
{
    struct lvx_devlist list, given = { 0 };
    struct lvx_dev **each = lvx_pool_alloc(pool, (count + 1) * sizeof(*each));
    int rc = lvx_devs_from_names_each(ctx, pool, names, count, &list, each);
    if (rc == 0 && opts && opts->devices)
        rc = lvx_devs_from_names_each(ctx, pool, opts->devices, opts->device_count, &given,
                                      lvx_pool_alloc(pool, (opts->device_count + 1) *
                                                               sizeof(struct lvx_dev *)));
    if (rc < 0)
        return rc;
    bool lvs = false;
    for (unsigned j = 0; j < list.count; j++)
        lvs |= list.devs[j]->is_lv;
    bool lvs_refused = lvs && !(opts && opts->with_lvs) && !lvx_scan_lvs_on(ctx);
    for (unsigned i = 0; i < count; i++)
        why[i] = !each[i]                                     ? LVX_NAMED_NO_DEVICE
                 : each[i]->is_lv && lvs_refused              ? LVX_NAMED_LV
                 : opts && opts->devices && !in_devices_list(&given, each[i]) ? LVX_NAMED_UNLISTED
                                                              : LVX_NAMED_OK;
    if (!(opts && opts->devices) && list.count)   /* --devices lists are not filtered */
        rc = judge_filter(ctx, pool, &list, each, count, why);
    if (rc < 0)
        return rc;
    unsigned refused = 0;
    for (unsigned i = 0; i < count; i++)
        refused += why[i] != LVX_NAMED_OK;
    if (devs)
        *devs = list;
    return (int)refused;
}

/* Raise the soft RLIMIT_NOFILE (up to the hard limit) so that `count` devices can be
 * open at once (a scan keeps PVs open), and grow the fd table to that size in one step:
 * the devices are opened on a few threads, and the kernel waits for an RCU grace period
 * each time a table shared by threads doubles (64 -> 2048: five waits, 20 ms of the
 * 24 ms the opens of 1000 devices took on a loaded 2-CPU machine; 4 ms after this). */
static void raise_fd_limit(unsigned count)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)count + 256;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return;
    if (rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need ? rl.rlim_max : need;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (count < 64)
        return;
    int top = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC,
                    (int)(rl.rlim_cur < need ? rl.rlim_cur : need) - 1);
    if (top < 0)
        top = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, (int)count);
    if (top >= 0)
        close(top);
}

struct lvx_scan_origin *lvx_scan_origin(struct lvx_scan *scan)
{
    if (!scan->origin)
        scan->origin = lvx_pool_alloc(scan->pool, sizeof(*scan->origin));
    return scan->origin;
}

int lvx_scan_devices(struct lvx_ctx *ctx, struct lvx_pool *pool, const struct lvx_devlist *devs,
                     bool named, struct lvx_scan **out)
{
    *out = NULL;
    struct lvx_scan *scan = lvx_pool_alloc(pool, sizeof(*scan));
    scan->pool = pool;
    scan->io = lvx_io(ctx);
    scan->devs = *devs;
    raise_fd_limit(scan->devs.count);
    int rc;
    unsigned ndev = scan->devs.count;
    struct lvx_dev **usable = lvx_xcalloc(ndev + 1, sizeof(*usable));
    struct scan_head *heads = lvx_xcalloc(ndev + 1, sizeof(*heads));
    scan->pvs = lvx_pool_alloc(pool, (ndev + 1) * sizeof(*scan->pvs));
    unsigned nusable = 0;

    uint8_t *head_block = NULL;
    uint64_t t = lvx_phase_start();
    rc = scan_open_devices(ctx, scan, named, usable, &nusable);
    lvx_phase_end("open", t);
    t = lvx_phase_start();
    if (rc == 0)
        rc = scan_labels(ctx, scan, named, usable, nusable, heads, &head_block);
    lvx_phase_end("labels", t);
    t = lvx_phase_start();
    if (rc == 0)
        rc = scan_headers(ctx, scan, 0, heads);
    free(head_block);                /* headers decoded: the heads are no longer needed */
    if (rc == 0)
        rc = scan_texts(ctx, scan, 0);
    lvx_phase_end("texts", t);
    free(usable);
    free(heads);
    if (rc < 0) {
        lvx_scan_release(scan);
        return rc;
    }
    if (!named)
        lvx_devfile_check_scan(ctx, scan);
    *out = scan;
    return 0;
}

/* Position of dev in scan->devs (devs.count if absent). */
static unsigned scan_dev_index(const struct lvx_scan *scan, const struct lvx_dev *dev)
{
    unsigned i = 0;
    while (i < scan->devs.count && scan->devs.devs[i] != dev)
        i++;
    return i;
}

/* Move the PVs from pvs[first] on to their places in device order. */
static void scan_order_new_pvs(struct lvx_scan *scan, unsigned first)
{
    for (unsigned k = first; k < scan->pv_count; k++) {
        struct lvx_scan_pv moved = scan->pvs[k];
        unsigned at = scan_dev_index(scan, moved.dev), pos = 0;
        while (pos < k && scan_dev_index(scan, scan->pvs[pos].dev) < at)
            pos++;
        memmove(&scan->pvs[pos + 1], &scan->pvs[pos], (k - pos) * sizeof(*scan->pvs));
        scan->pvs[pos] = moved;
    }
}

int lvx_scan_reread_devices(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_dev **devs,
                            unsigned count)
{
    struct lvx_dev **usable = lvx_xcalloc(count + 1, sizeof(*usable));
    unsigned n = 0;
    for (unsigned i = 0; i < count; i++) {
        if (scan_dev_index(scan, devs[i]) == scan->devs.count) {
            free(usable);
            return lvx_error(ctx, EINVAL, "Device %s is not part of this scan", devs[i]->path);
        }
        for (unsigned p = 0; p < scan->pv_count; p++) {
            if (scan->pvs[p].dev == devs[i]) {        /* read again: drop what it had */
                memmove(&scan->pvs[p], &scan->pvs[p + 1],
                        (scan->pv_count - p - 1) * sizeof(*scan->pvs));
                scan->pv_count--;
                break;
            }
        }
        bool dup = false;
        for (unsigned k = 0; k < n; k++)
            dup |= usable[k] == devs[i];
        if (!dup && (devs[i]->fd >= 0 || lvx_dev_open_direct(ctx, devs[i]) == 0) &&
            devs[i]->size >= SCAN_MIN_DEVICE_BYTES)
            usable[n++] = devs[i];
        lvx_error_clear(ctx);
    }
    unsigned first = scan->pv_count;
    struct scan_head *heads = lvx_xcalloc(n + 1, sizeof(*heads));
    uint8_t *head_block = NULL;
    uint64_t t = lvx_phase_start();
    int rc = scan_labels(ctx, scan, false, usable, n, heads, &head_block);
    if (rc == 0)
        rc = scan_headers(ctx, scan, first, heads);
    free(head_block);
    if (rc == 0)
        rc = scan_texts(ctx, scan, first);
    scan_order_new_pvs(scan, first);
    lvx_phase_end("reread", t);
    free(heads);
    free(usable);
    return rc;
}

void lvx_scan_release(struct lvx_scan *scan)
{
    if (!scan)
        return;
    struct lvx_ctx quiet;
    lvx_ctx_init(&quiet);
    if (scan->io)
        quiet.io = scan->io;
    uint64_t t = lvx_phase_start();
    lvx_dev_close_many(quiet.io, scan->devs.devs, scan->devs.count);
    lvx_pool_destroy(scan->pool);
    lvx_phase_end("close", t);
}
