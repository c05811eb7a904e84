/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/commit.c - the metadata commit (lvm2-format.md §7) and PV label writes.
 *
 * lvx_vg_commit() renders the VG text once, then runs three phases over the set of
 * in-use areas, each phase finished (durable) on every area before the next.  The
 * writes of a step are one batch of durable (FUA) writes, all in flight together
 * (dev/multi.h lvx_dev_write_durable_many: no device flush, no per-device round trip):
 *   1. text into the circular buffer at the §6.4 location (headers untouched);
 *   2. precommit: slot 1 = new location, header rewritten; in the same batch as
 *      phase 1: nothing reads slot 1, so a crash that keeps a precommit header but
 *      loses its text still reads as the old version;
 *   3. commit: slot 0 = new location (ignored flag as desired), slot 1 cleared.
 * The first slot-0 write is the commit point: a crash before it leaves every area at
 * the old version; after it, readers pick the highest seqno.  Phases 1-2 complete
 * (durable) before it, so the text is durable before any header points at it.  A
 * failure in phase 1 or 2 reverts the headers already written (slot 1 cleared).
 *
 * Labels are ordered around the commit point so that every crash reads as the old or
 * the new version (LVM2 reports a PV flagged PV_EXT_USED that no VG lists as
 * "[unknown]", and a listed PV lacking the flag normally, with a warning):
 *   - PVs leaving the VG (detach list, or carrying this VG's metadata without being
 *     listed: outdated, §8.4) get PV_EXT_USED cleared and their areas emptied after
 *     phase 2, before the commit point;
 *   - PVs of the VG lacking PV_EXT_USED get it after phase 3 (one more batch).
 *
 * Empty areas switched to ignored (a PV joining a VG that keeps only a few areas in use:
 * vgcreate of 1000 PVs switches 992 off) have their header written in that last batch,
 * with the labels, instead of in phase 3: such an area held no text and no location
 * before, so until its flag lands it reads as an area without metadata whether it is
 * ignored or not.  Before the commit point its PV is then exactly as before (phase 3
 * writing it first could leave an orphan with its area switched off); after the commit
 * point (every in-use area committed, phase 3 done) a crash may leave some of these
 * areas unflagged and some labels unflagged, which reads as the new version with areas
 * not yet updated, as a crash inside phase 3 already may (an area still at precommit
 * holds no committed text either).  A VG of 1000 PVs: two rounds of 1000 durable writes
 * instead of three (phase 3 writes the 8 in-use areas only).
 */
#include "meta/commit.h"
#include "meta/cache.h"
#include "meta/mda_pvs.h"
#include "format/crc.h"
#include "format/label.h"
#include "format/mda.h"
#include "format/vg_text.h"
#include "dev/multi.h"
#include "util/buf.h"
#include "util/parallel.h"
#include "util/phase.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct commit_area {
    struct lvx_scan_pv *spv;
    struct lvx_pv *pv;
    unsigned index;                 /* mda index on the PV */
    struct lvx_mda_header old;      /* header as found */
    struct lvx_mda_header next;     /* header being written */
    bool ignore_after;              /* desired RAW_LOCN_IGNORED after the commit */
    bool flag_only;                 /* an area switched to ignored without text: only its
                                     * header is written, in phase 3 */
    bool with_labels;               /* flag_only and empty before (no text, nothing
                                     * committed: a PV joining a large VG): its header
                                     * goes in the batch of the labels (see the top) */
    bool header_touched;            /* precommit written */
};


struct lvx_scan_pv *lvx_scan_find_pv(struct lvx_scan *scan, const char *raw_uuid)
{
    for (unsigned i = 0; i < scan->pv_count; i++)
        if (memcmp(scan->pvs[i].label.pv_uuid, raw_uuid, LVX_UUID_LEN) == 0)
            return &scan->pvs[i];
    return NULL;
}

/* Sorted UUID lookups for one commit (a VG of a thousand PVs would otherwise cost a
 * million comparisons per pass): scan PVs by label UUID (first in device order wins,
 * as lvx_scan_find_pv), VG PV UUIDs. */
struct uuid_ref {
    const char *uuid;
    unsigned order;
    void *ptr;
};

static int uuid_ref_cmp(const void *a, const void *b)
{
    const struct uuid_ref *x = a, *y = b;
    int c = memcmp(x->uuid, y->uuid, LVX_UUID_LEN);
    return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

struct uuid_index {
    unsigned count;
    struct uuid_ref *refs;
};

static void index_scan_pvs(struct uuid_index *ix, struct lvx_scan *scan)
{
    ix->refs = lvx_xcalloc(scan->pv_count + 1, sizeof(*ix->refs));
    ix->count = scan->pv_count;
    for (unsigned i = 0; i < scan->pv_count; i++)
        ix->refs[i] = (struct uuid_ref){ scan->pvs[i].label.pv_uuid, i, &scan->pvs[i] };
    qsort(ix->refs, ix->count, sizeof(*ix->refs), uuid_ref_cmp);
}

static void index_vg_pvs(struct uuid_index *ix, const struct lvx_vg *vg)
{
    ix->refs = lvx_xcalloc(vg->pv_count + 1, sizeof(*ix->refs));
    ix->count = vg->pv_count;
    for (unsigned i = 0; i < vg->pv_count; i++)
        ix->refs[i] = (struct uuid_ref){ vg->pvs[i]->uuid, i, vg->pvs[i] };
    qsort(ix->refs, ix->count, sizeof(*ix->refs), uuid_ref_cmp);
}

/* The first entry (lowest order) with this UUID, or NULL. */
static void *index_find(const struct uuid_index *ix, const char *uuid)
{
    unsigned lo = 0, hi = ix->count;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (memcmp(ix->refs[mid].uuid, uuid, LVX_UUID_LEN) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->count && memcmp(ix->refs[lo].uuid, uuid, LVX_UUID_LEN) == 0 ? ix->refs[lo].ptr
                                                                               : NULL;
}

static bool index_has(const void *ix, const char *uuid)
{
    return index_find(ix, uuid) != NULL;
}

/* A copy of the last error message, to quote it in a new one (vsnprintf into errmsg must
 * not read errmsg itself). */
struct saved_error { char text[sizeof(((struct lvx_ctx *)0)->errmsg)]; };

static const char *saved_error(const struct lvx_ctx *ctx, struct saved_error *e)
{
    snprintf(e->text, sizeof(e->text), "%s", ctx->errmsg);
    return e->text;
}

/* Open for writing, O_DIRECT where it can be: the commit's writes go out as FUA writes
 * (dev/multi.h). */
static int ensure_writable(struct lvx_ctx *ctx, struct lvx_dev *dev)
{
    return lvx_dev_open_write_direct(ctx, dev);
}

/* A write of the commit; with `cache` (the session cache the scan was lent by, or NULL)
 * reported to it when it succeeded (meta/cache.h). */
static int commit_write(struct lvx_ctx *ctx, struct lvx_cache *cache, struct lvx_dev *dev,
                        const void *buf, size_t len, uint64_t offset)
{
    int r = lvx_dev_write(ctx, dev, buf, len, offset);
    if (r == 0 && cache)
        lvx_cache_note_write(cache, dev, offset, buf, len);
    return r;
}

static int write_header(struct lvx_ctx *ctx, struct lvx_cache *cache, struct lvx_dev *dev,
                        const struct lvx_mda_header *hdr)
{
    uint8_t sector[LVX_MDA_HEADER_SIZE];
    lvx_mda_header_encode(hdr, sector);
    return commit_write(ctx, cache, dev, sector, sizeof(sector), hdr->start);
}

static int write_label(struct lvx_ctx *ctx, struct lvx_cache *cache, struct lvx_scan_pv *spv)
{
    uint8_t sector[LVX_SECTOR_SIZE] = {0};
    int r = lvx_label_encode(ctx, &spv->label, sector);
    if (r < 0)
        return r;
    return commit_write(ctx, cache, spv->dev, sector, sizeof(sector),
                        (uint64_t)spv->label.sector * LVX_SECTOR_SIZE);
}

/* The writes of one commit step, made durable together (lvx_dev_write_durable_many:
 * one batch of FUA writes, no device flush after it); each buffer owned here. */
struct write_list {
    struct lvx_dev_write *w;
    unsigned n, cap;
};

static void list_add(struct write_list *l, struct lvx_dev *dev, const void *buf, size_t len,
                     uint64_t offset)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        struct lvx_dev_write *w = lvx_xcalloc(l->cap, sizeof(*w));
        if (l->n)
            memcpy(w, l->w, l->n * sizeof(*w));
        free(l->w);
        l->w = w;
    }
    void *copy = lvx_xmalloc(len);
    memcpy(copy, buf, len);
    l->w[l->n++] = (struct lvx_dev_write){ .dev = dev, .buf = copy, .len = len, .offset = offset };
}

/* Write the list, report the writes that succeeded to `cache` (the session cache the scan
 * was lent by, or NULL: meta/cache.h), empty it. */
static int list_write(struct lvx_ctx *ctx, struct lvx_cache *cache, struct write_list *l)
{
    int r = lvx_dev_write_durable_many(ctx, l->w, l->n);
    for (unsigned i = 0; i < l->n; i++) {
        if (cache && l->w[i].result == 0)
            lvx_cache_note_write(cache, l->w[i].dev, l->w[i].offset, l->w[i].buf, l->w[i].len);
        free((void *)l->w[i].buf);
    }
    free(l->w);
    *l = (struct write_list){ 0 };
    return r;
}

static void list_free(struct write_list *l)
{
    for (unsigned i = 0; i < l->n; i++)
        free((void *)l->w[i].buf);
    free(l->w);
    *l = (struct write_list){ 0 };
}

static void list_header(struct write_list *l, struct lvx_dev *dev, const struct lvx_mda_header *hdr)
{
    uint8_t sector[LVX_MDA_HEADER_SIZE];
    lvx_mda_header_encode(hdr, sector);
    list_add(l, dev, sector, sizeof(sector), hdr->start);
}

/* `size` bytes of text (NUL included) at the new slot-0 location of an area, zero-padded
 * to a 512-byte boundary (a wrapped copy: first piece to the area end). */
static int list_text(struct lvx_ctx *ctx, struct write_list *l, struct commit_area *a,
                     const char *text, const struct lvx_raw_locn *locn)
{
    struct lvx_mda_range ranges[2];
    unsigned count;
    int r = lvx_mda_text_ranges(ctx, a->old.size, locn, ranges, &count);
    if (r < 0)
        return r;
    uint64_t done = 0;
    for (unsigned i = 0; i < count; i++) {
        uint64_t padded = (ranges[i].len + 511) / 512 * 512;
        uint8_t *buf = lvx_xcalloc(1, padded);
        memcpy(buf, text + done, ranges[i].len);
        list_add(l, a->spv->dev, buf, padded, a->old.start + ranges[i].offset);
        free(buf);
        done += ranges[i].len;
    }
    return 0;
}

/* Flush the devices of the areas (each once), in parallel (dev/multi.h). */
static int flush_devices(struct lvx_ctx *ctx, struct commit_area *areas, unsigned count)
{
    struct lvx_dev **devs = lvx_xcalloc(count + 1, sizeof(*devs));
    for (unsigned i = 0; i < count; i++)
        devs[i] = areas[i].spv->dev;
    int r = lvx_dev_flush_many(ctx, devs, count);
    free(devs);
    return r;
}

/* Device opens of a commit from PARALLEL_DEVICES devices on (a VG of hundreds of PVs)
 * run on a few threads, each with its own ctx over the same seam; the first failure in
 * item order is reported. */
#define PARALLEL_DEVICES 64

struct item_job {
    const struct lvx_ctx *parent;
    void **items;
    int (*fn)(struct lvx_ctx *ctx, void *item);
    int *rc;
    char (*msg)[sizeof(((struct lvx_ctx *)0)->errmsg)];
};

static void item_one(void *arg, unsigned i)
{
    struct item_job *j = arg;
    struct lvx_ctx own;
    lvx_ctx_init(&own);
    own.io = j->parent->io;
    j->rc[i] = j->fn(&own, j->items[i]);
    if (j->rc[i] < 0)
        memcpy(j->msg[i], own.errmsg, sizeof(own.errmsg));
}

static int each_item(struct lvx_ctx *ctx, void **items, unsigned n,
                     int (*fn)(struct lvx_ctx *ctx, void *item))
{
    struct item_job job = { ctx, items, fn, lvx_xcalloc(n + 1, sizeof(int)),
                            lvx_xcalloc(n + 1, sizeof(*job.msg)) };
    lvx_parallel_for(n, 0, item_one, &job);
    int r = 0;
    for (unsigned i = 0; i < n && r == 0; i++)
        if (job.rc[i] < 0)
            r = lvx_error(ctx, job.rc[i], "%s", job.msg[i]);
    free(job.rc);
    free(job.msg);
    return r;
}

static int open_item(struct lvx_ctx *ctx, void *dev)
{
    return ensure_writable(ctx, dev);
}

/* Each device of the list (each once; the list may repeat adjacent entries) open for
 * writing (the scan opened them read-only: a read-only fd is replaced, dev.h). */
static int open_devices(struct lvx_ctx *ctx, struct lvx_dev **list, unsigned count)
{
    void **devs = lvx_xcalloc(count + 1, sizeof(*devs));
    unsigned n = 0;
    for (unsigned i = 0; i < count; i++)
        if ((i == 0 || list[i - 1] != list[i]) && !(list[i]->fd >= 0 && list[i]->writable))
            devs[n++] = list[i];
    int r = 0;
    if (n < PARALLEL_DEVICES)
        for (unsigned i = 0; i < n && r == 0; i++)
            r = ensure_writable(ctx, devs[i]);
    else
        r = each_item(ctx, devs, n, open_item);
    free(devs);
    return r;
}

/* phase 1: the text at the new slot-0 location */
static int plan_text(struct lvx_ctx *ctx, struct write_list *l, struct commit_area *a,
                     const char *text)
{
    return a->flag_only ? 0 : list_text(ctx, l, a, text, &a->next.slot[0]);
}

/* phase 2: the precommit header.  Slot 0 keeps its ignored flag (LVM2 already switches
 * it here): a crash before the commit point then leaves the old version whole, per-area
 * "in use" state included, and the next write clears slot 1. */
static void plan_precommit(struct write_list *l, struct commit_area *a)
{
    if (a->flag_only)
        return;
    struct lvx_mda_header pre = a->old;
    pre.slot[1] = a->next.slot[0];
    pre.slot[1].flags = 0;
    a->header_touched = true;
    list_header(l, a->spv->dev, &pre);
}

/* phase 3: the committed header, areas switching to ignored first (pass 0), as LVM2;
 * pass 2: the empty areas switched to ignored, written with the labels */
static void plan_commit(struct write_list *l, struct commit_area *a, int pass)
{
    bool switching_off = a->ignore_after && !a->spv->mda[a->index].ignored;
    if (pass == 2 ? !a->with_labels : a->with_labels || (pass == 0) != switching_off)
        return;
    memset(&a->next.slot[1], 0, sizeof(a->next.slot[1]));
    list_header(l, a->spv->dev, &a->next);
}

static void revert_headers(struct lvx_ctx *ctx, struct commit_area *areas, unsigned count)
{
    struct lvx_ctx quiet = *ctx;   /* keep the original error message */
    for (unsigned i = 0; i < count; i++) {
        if (!areas[i].header_touched)
            continue;
        struct lvx_mda_header h = areas[i].old;
        memset(&h.slot[1], 0, sizeof(h.slot[1]));
        write_header(&quiet, NULL, areas[i].spv->dev, &h);
    }
    flush_devices(&quiet, areas, count);
}

static bool header_in_use(const struct lvx_mda_header *h);

/* Collect the areas this commit writes. */
static unsigned collect_areas(const struct uuid_index *scan_ix, struct lvx_vg *vg, bool repair,
                              struct commit_area *areas)
{
    unsigned n = 0;
    for (unsigned p = 0; p < vg->pv_count; p++) {
        struct lvx_pv *pv = vg->pvs[p];
        struct lvx_scan_pv *spv = index_find(scan_ix, pv->uuid);
        if (!spv)
            continue;                   /* missing PV */
        for (unsigned m = 0; m < spv->mda_count; m++) {
            struct lvx_scan_mda *sm = &spv->mda[m];
            bool want_ignored = m < pv->ondisk.mda_count ? pv->ondisk.mda[m].ignored : sm->ignored;
            if (!sm->hdr_valid)
                continue;               /* bad magic/start: never written (§8.5) */
            if (sm->bad && !repair)
                continue;
            if (sm->ignored && want_ignored)
                continue;               /* stays switched off */
            struct commit_area *a = &areas[n++];
            memset(a, 0, sizeof(*a));
            a->spv = spv;
            a->pv = pv;
            a->index = m;
            a->old = sm->hdr;
            a->ignore_after = want_ignored;
            a->flag_only = want_ignored && !sm->ignored && !sm->bad && !header_in_use(&sm->hdr);
            a->with_labels = a->flag_only;
        }
    }
    return n;
}

/* Every area's device open for writing (the areas of one PV are adjacent). */
static int open_writable(struct lvx_ctx *ctx, struct commit_area *areas, unsigned count)
{
    struct lvx_dev **devs = lvx_xcalloc(count + 1, sizeof(*devs));
    for (unsigned i = 0; i < count; i++)
        devs[i] = areas[i].spv->dev;
    int r = open_devices(ctx, devs, count);
    free(devs);
    return r;
}

/* A label to write and, when the PV's first area is an empty one switched off and the
 * bytes between them are known zero (struct lvx_scan_pv head_gap_zero), that area's
 * header with it: label sector, zero gap and header as one write (a crash may tear it
 * at any sector, which leaves what the two separate writes of one batch may leave). */
struct label_write {
    struct lvx_scan_pv *spv;
    struct commit_area *late;      /* merged header, or NULL */
};

static int label_write_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const struct label_write *)a)->spv;
    uintptr_t y = (uintptr_t)((const struct label_write *)b)->spv;
    return x < y ? -1 : x > y;
}

/* The label write of spv in `sorted` (by spv), or NULL. */
static struct label_write *find_label_write(struct label_write *sorted, unsigned n,
                                            const struct lvx_scan_pv *spv)
{
    struct label_write key = { (struct lvx_scan_pv *)spv, NULL };
    return bsearch(&key, sorted, n, sizeof(key), label_write_cmp);
}

static void list_label(struct lvx_ctx *ctx, struct write_list *l, const struct label_write *lw,
                       int *r)
{
    struct lvx_scan_pv *spv = lw->spv;
    uint64_t at = (uint64_t)spv->label.sector * LVX_SECTOR_SIZE;
    size_t len = lw->late ? (size_t)(lw->late->old.start - at) + LVX_MDA_HEADER_SIZE
                          : LVX_SECTOR_SIZE;
    uint8_t *buf = lvx_xcalloc(1, len);
    *r = lvx_label_encode(ctx, &spv->label, buf);
    if (*r == 0 && lw->late) {
        memset(&lw->late->next.slot[1], 0, sizeof(lw->late->next.slot[1]));
        lvx_mda_header_encode(&lw->late->next, buf + len - LVX_MDA_HEADER_SIZE);
    }
    if (*r == 0)
        list_add(l, spv->dev, buf, len, at);
    free(buf);
}

/* The last batch, after the commit point (see the top of the file): the headers of the
 * empty areas switched off (pass 2 of plan_commit) and the label sectors of the VG's
 * PVs lacking PV_EXT_USED, all written durably together (a VG created on hundreds of
 * PVs rewrites hundreds of labels); a PV's label and such a header of its first area
 * as one write where they can be. */
static int write_last_batch(struct lvx_ctx *ctx, struct lvx_cache *cache,
                            const struct uuid_index *scan_ix, struct lvx_vg *vg,
                            struct commit_area *areas, unsigned count)
{
    struct label_write *lws = lvx_xcalloc(vg->pv_count + 1, sizeof(*lws));
    struct lvx_dev **devs = lvx_xcalloc(vg->pv_count + 1, sizeof(*devs));
    unsigned n = 0;
    for (unsigned p = 0; p < vg->pv_count; p++) {
        struct lvx_scan_pv *spv = index_find(scan_ix, vg->pvs[p]->uuid);
        if (!spv)
            continue;
        if (spv->label.ext_version >= 2 && (spv->label.ext_flags & LVX_PV_EXT_USED))
            continue;
        spv->label.ext_version = 2;
        spv->label.ext_flags |= LVX_PV_EXT_USED;
        lws[n].spv = spv;
        devs[n++] = spv->dev;
        vg->pvs[p]->ondisk.ext_version = 2;
        vg->pvs[p]->ondisk.ext_flags = spv->label.ext_flags;
    }
    struct label_write *sorted = lvx_xcalloc(n + 1, sizeof(*sorted));
    memcpy(sorted, lws, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), label_write_cmp);
    struct write_list l = { 0 };
    for (unsigned i = 0; i < count; i++) {
        struct commit_area *a = &areas[i];
        struct label_write *lw = a->with_labels && a->index == 0 && a->spv->head_gap_zero
                                     ? find_label_write(sorted, n, a->spv) : NULL;
        if (lw)
            lw->late = a;
        else
            plan_commit(&l, a, 2);
    }
    for (unsigned i = 0; i < n; i++)      /* VG order, each with its merged header */
        lws[i].late = find_label_write(sorted, n, lws[i].spv)->late;
    int r = open_devices(ctx, devs, n);
    for (unsigned i = 0; i < n && r == 0; i++)
        list_label(ctx, &l, &lws[i], &r);
    if (r == 0)
        r = list_write(ctx, cache, &l);
    list_free(&l);
    free(sorted);
    free(lws);
    free(devs);
    return r;
}

/* The text of the new version; with `tree_pool`, the tree it is printed from is kept
 * there (what parsing the text would give) and returned. */
static const struct lvx_cfg_node *render_text(struct lvx_vg *vg, const char *command_line,
                                              struct lvx_buf *text, struct lvx_pool *tree_pool)
{
    struct lvx_text_header hdr;
    const struct lvx_cfg_node *tree = NULL;
    size_t len = strlen(command_line) + 16;
    char *description = lvx_xmalloc(len);
    snprintf(description, len, "Write from %s.", command_line);
    lvx_text_header_default(&hdr, description);
    if (tree_pool)
        tree = lvx_vg_export_text_tree(text, tree_pool, vg, &hdr, LVX_CFG_LAYOUT_RAW);
    else
        lvx_vg_export_text(text, vg, &hdr, LVX_CFG_LAYOUT_RAW);
    lvx_buf_putc(text, '\0');     /* the NUL is part of the copy (size and CRC) */
    free(description);
    return tree;
}

/* The scan's areas after the commit.  `kept_text`/`tree` (a session cache keeps the
 * scan, meta/cache.h): the areas in use hold the new text as a fresh scan would read
 * it; otherwise their text is left out (stale). */
static void update_scan_state(struct commit_area *areas, unsigned count, const struct lvx_vg *vg,
                              const char *kept_text, const struct lvx_cfg_node *tree)
{
    uint32_t seqno = vg->seqno;
    for (unsigned i = 0; i < count; i++) {
        struct lvx_scan_mda *sm = &areas[i].spv->mda[areas[i].index];
        struct lvx_pv_mda *pm = areas[i].index < areas[i].pv->ondisk.mda_count
                                    ? &areas[i].pv->ondisk.mda[areas[i].index] : NULL;
        sm->hdr = areas[i].next;
        sm->ignored = areas[i].ignore_after;
        sm->bad = false;
        sm->problem = NULL;
        sm->crc_bad = false;
        sm->text = NULL;           /* the old text pointer is stale now */
        sm->tree = NULL;
        sm->text_size = areas[i].next.slot[0].size;
        sm->seqno = seqno;
        if (kept_text && !areas[i].ignore_after) {
            sm->text = kept_text;
            sm->tree = tree;
            snprintf(sm->vg_name, sizeof(sm->vg_name), "%s", vg->name);
            memcpy(sm->vg_uuid, vg->uuid, sizeof(sm->vg_uuid));
        }
        if (pm) {
            pm->ignored = areas[i].ignore_after;
            pm->bad = false;
            pm->text_size = sm->text_size;
            pm->seqno = seqno;
        }
    }
}

/* Does this scanned PV leave the VG with this commit?  Named in `detach`, or holding
 * this VG's metadata (outdated PV, §8.4); in both cases not listed by the new version. */
static bool pv_leaves_vg(const struct lvx_scan_pv *spv, const struct lvx_vg *vg,
                         const struct uuid_index *vg_ix,
                         const char (*detach)[LVX_UUID_LEN + 1], unsigned detach_count)
{
    if (index_find(vg_ix, spv->label.pv_uuid))
        return false;
    for (unsigned i = 0; i < detach_count; i++)
        if (memcmp(detach[i], spv->label.pv_uuid, LVX_UUID_LEN) == 0)
            return true;
    for (unsigned m = 0; m < spv->mda_count; m++)
        if (spv->mda[m].text && memcmp(spv->mda[m].vg_uuid, vg->uuid, LVX_UUID_LEN) == 0 &&
            (strcmp(spv->mda[m].vg_name, vg->name) == 0 ||
             lvx_mda_lists_pv(&spv->mda[m], index_has, vg_ix)))
            return true;     /* not a twin VG sharing the UUID (meta/assemble.c) */
    return false;
}

static bool header_in_use(const struct lvx_mda_header *h)
{
    return h->slot[0].offset || h->slot[0].size || h->slot[1].offset || h->slot[1].size;
}

/* Clear PV_EXT_USED first (the old version still lists the PV, so it reads as a member
 * lacking the flag), then empty both slots of each area, keeping the ignored flag. */
static int detach_pv(struct lvx_ctx *ctx, struct lvx_cache *cache, struct lvx_scan_pv *spv)
{
    int r = ensure_writable(ctx, spv->dev);
    if (r < 0)
        return r;
    if (spv->label.ext_version < 2 || (spv->label.ext_flags & LVX_PV_EXT_USED)) {
        spv->label.ext_version = 2;
        spv->label.ext_flags &= ~LVX_PV_EXT_USED;
        if ((r = write_label(ctx, cache, spv)) < 0 || (r = lvx_dev_flush(ctx, spv->dev)) < 0)
            return r;
        lvx_lvm2_hints_invalidate();
    }
    bool wrote = false;
    for (unsigned m = 0; m < spv->mda_count; m++) {
        struct lvx_scan_mda *sm = &spv->mda[m];
        if (!sm->hdr_valid || !header_in_use(&sm->hdr))
            continue;
        struct lvx_mda_header h = sm->hdr;
        uint32_t ignored = h.slot[0].flags & LVX_RAW_LOCN_IGNORED;
        memset(h.slot, 0, sizeof(h.slot));
        h.slot[0].flags = ignored;
        if ((r = write_header(ctx, cache, spv->dev, &h)) < 0)
            return r;
        wrote = true;
        sm->hdr = h;
        sm->text = NULL;
        sm->tree = NULL;
        sm->text_size = 0;
        sm->seqno = 0;
        memset(sm->vg_uuid, 0, sizeof(sm->vg_uuid));
        sm->vg_name[0] = '\0';
    }
    return wrote ? lvx_dev_flush(ctx, spv->dev) : 0;
}

static int detach_pvs(struct lvx_ctx *ctx, struct lvx_cache *cache, struct lvx_scan *scan,
                      const struct lvx_vg *vg,
                      const char (*detach)[LVX_UUID_LEN + 1], unsigned detach_count)
{
    struct uuid_index vg_ix;
    index_vg_pvs(&vg_ix, vg);
    int r = 0;
    for (unsigned i = 0; i < scan->pv_count && r == 0; i++) {
        if (!pv_leaves_vg(&scan->pvs[i], vg, &vg_ix, detach, detach_count))
            continue;
        r = detach_pv(ctx, cache, &scan->pvs[i]);
        struct saved_error e;
        if (r < 0)
            r = lvx_error(ctx, r, "Cannot detach %s from volume group %s: %s",
                          scan->pvs[i].dev->path, vg->name, saved_error(ctx, &e));
    }
    free(vg_ix.refs);
    return r;
}

/* Large VGs: warn while there is still room, at 50% and 90% of the text a circular
 * buffer can take (lvx_mda_max_text_size) in the smallest in-use area. */
static void warn_space(struct lvx_ctx *ctx, const struct lvx_vg *vg,
                       const struct commit_area *areas, unsigned count, uint64_t size)
{
    const struct commit_area *smallest = NULL;
    uint64_t room = 0;
    for (unsigned i = 0; i < count; i++) {
        uint64_t max = lvx_mda_max_text_size(areas[i].old.size);
        if (!areas[i].ignore_after && (!smallest || max < room)) {
            smallest = &areas[i];
            room = max;
        }
    }
    if (!smallest || room == 0 || size * 100 < room * LVX_MDA_WARN_PERCENT_LOW)
        return;
    unsigned pct = (unsigned)(size * 100 / room);
    lvx_warn(ctx, "WARNING: Volume group %s metadata (%llu bytes) uses %u%% of the space of its "
             "smallest metadata area (%s, %llu bytes for a copy)%s.", vg->name,
             (unsigned long long)size, pct, smallest->spv->dev->path, (unsigned long long)room,
             pct >= LVX_MDA_WARN_PERCENT_HIGH ? "; changes will fail when it is full" : "");
    lvx_warn(ctx, "WARNING: To make room: vgextend %s with PVs made by pvcreate --metadatasize "
             "<larger>, then pvchange --metadataignore y the PVs with smaller areas.", vg->name);
}

int lvx_vg_commit(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_vg *vg,
                  const char *command_line, bool repair)
{
    return lvx_vg_commit_detach(ctx, scan, vg, command_line, repair, NULL, 0);
}

int lvx_vg_commit_detach(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_vg *vg,
                         const char *command_line, bool repair,
                         const char (*detach)[LVX_UUID_LEN + 1], unsigned detach_count)
{
    unsigned max_areas = 0;
    for (unsigned p = 0; p < vg->pv_count; p++)
        max_areas += 2;
    struct commit_area *areas = lvx_xcalloc(max_areas ? max_areas : 1, sizeof(*areas));
    struct lvx_buf text = LVX_BUF_INIT;
    uint32_t old_seqno = vg->seqno;
    int r = 0;
    /* a scan lent by a session cache is kept up to date: the new text and its tree */
    struct lvx_cache *cache = scan->origin ? scan->origin->cache : NULL;
    const char *kept_text = NULL;

    struct uuid_index scan_ix;
    index_scan_pvs(&scan_ix, scan);
    unsigned count = collect_areas(&scan_ix, vg, repair, areas);
    bool any_in_use = false;
    for (unsigned i = 0; i < count; i++)
        any_in_use |= !areas[i].ignore_after;
    if (!any_in_use) {
        r = lvx_error(ctx, EINVAL, "Volume group %s would have no metadata area in use: "
                      "refusing to write", vg->name);
        goto out;
    }

    vg->seqno = old_seqno + 1;
    struct lvx_pool *keep_pool = cache ? lvx_cache_text_pool(cache, vg->uuid) : NULL;
    const struct lvx_cfg_node *tree = render_text(vg, command_line, &text, keep_pool);
    uint64_t size = text.len;
    uint32_t crc = lvx_crc(LVX_CRC_INITIAL, text.data, size);

    /* validate space and compute every location before the first write */
    for (unsigned i = 0; i < count; i++) {
        struct commit_area *a = &areas[i];
        const struct lvx_raw_locn *old = a->spv->mda[a->index].ignored || a->spv->mda[a->index].bad
                                             ? NULL : &a->old.slot[0];
        a->next = a->old;
        r = a->flag_only ? 0 : lvx_mda_next_location(ctx, a->old.size, old, size, &a->next.slot[0]);
        if (r < 0 && a->ignore_after) {
            lvx_error_clear(ctx);     /* too small for the text, switching off anyway: */
            a->flag_only = true;      /* readers skip an ignored area whatever it points at */
            r = 0;
        }
        if (a->flag_only) {
            a->next = a->old;
            memset(&a->next.slot[1], 0, sizeof(a->next.slot[1]));
            a->next.slot[0].flags = LVX_RAW_LOCN_IGNORED;
            continue;
        }
        if (r < 0) {
            struct saved_error e;
            lvx_error(ctx, ENOSPC, "Volume group %s metadata (%llu bytes) does not fit in the "
                      "metadata area of %s at offset %llu: %s (add PVs made with a larger "
                      "pvcreate --metadatasize to the VG, then pvchange --metadataignore y "
                      "the PVs with small areas)", vg->name,
                      (unsigned long long)size, a->spv->dev->path,
                      (unsigned long long)a->old.start, saved_error(ctx, &e));
            goto out;
        }
        a->next.slot[0].checksum = crc;
        a->next.slot[0].flags = a->ignore_after ? LVX_RAW_LOCN_IGNORED : 0;
    }

    warn_space(ctx, vg, areas, count, size);
    uint64_t t = lvx_phase_start();
    r = open_writable(ctx, areas, count);
    lvx_phase_end("commit.open", t);
    if (r < 0)
        goto out;
    t = lvx_phase_start();

    /* phase 1: text; phase 2: precommit headers: one batch of durable writes (see the
     * top of the file) */
    struct write_list l = { 0 };
    uint64_t step = lvx_phase_start();
    for (unsigned i = 0; i < count && r == 0; i++)
        r = plan_text(ctx, &l, &areas[i], text.data);
    for (unsigned i = 0; i < count && r == 0; i++)
        plan_precommit(&l, &areas[i]);
    if (r < 0 || (r = list_write(ctx, cache, &l)) < 0) {
        list_free(&l);
        goto fail;
    }
    lvx_phase_end("commit.text", step);

    /* PVs leaving the VG, before the commit point (see the top of the file) */
    if ((r = detach_pvs(ctx, cache, scan, vg, detach, detach_count)) < 0)
        goto fail;

    /* phase 3: commit - areas switching to ignored first, as LVM2 */
    step = lvx_phase_start();
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < count; i++)
            plan_commit(&l, &areas[i], pass);
    if ((r = list_write(ctx, cache, &l)) < 0)
        goto out_committing;
    lvx_phase_end("commit.headers", step);
    if (keep_pool) {
        char *copy = lvx_pool_alloc_uninit(keep_pool, size);
        memcpy(copy, text.data, size);
        kept_text = copy;
    }
    update_scan_state(areas, count, vg, kept_text, tree);
    lvx_phase_end("commit.areas", t);
    /* after the commit point: a listed PV lacking PV_EXT_USED still reads as a member */
    t = lvx_phase_start();
    r = write_last_batch(ctx, cache, &scan_ix, vg, areas, count);
    lvx_phase_end("commit.labels", t);
    if (r < 0) {
        struct saved_error e;
        lvx_error(ctx, EIO, "Volume group %s was committed but a PV label or the header of "
                  "a metadata area switched off could not be updated: %s", vg->name,
                  saved_error(ctx, &e));
        goto out;
    }
    goto out;

out_committing:
    /* past the commit point some areas may hold the new version: the next write or
     * vgck --updatemetadata completes it; report the failure */
    {
        struct saved_error e;
        lvx_error(ctx, EIO, "Failed to commit metadata of volume group %s: %s", vg->name,
                  saved_error(ctx, &e));
    }
    vg->seqno = old_seqno;
    goto out;
fail:
    revert_headers(ctx, areas, count);
    vg->seqno = old_seqno;
out:
    if (cache)
        lvx_cache_note_commit(cache, r == 0, kept_text, text.len);
    lvx_buf_free(&text);
    free(areas);
    free(scan_ix.refs);
    return r;
}

/* LVM2 caches which devices are PVs in /run/lvm/hints; a command that writes labels
 * creates /run/lvm/newhints so that the next LVM2 command rescans (LVM2's own rule). */
void lvx_lvm2_hints_invalidate(void)
{
    struct stat st;
    if (stat("/run/lvm", &st) < 0 || !S_ISDIR(st.st_mode))
        return;
    int fd = open("/run/lvm/newhints", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

int lvx_pv_write_label(struct lvx_ctx *ctx, struct lvx_scan_pv *spv)
{
    uint8_t sector[LVX_SECTOR_SIZE] = {0};
    int r = lvx_label_encode(ctx, &spv->label, sector);
    if (r < 0)
        return r;
    r = lvx_dev_write(ctx, spv->dev, sector, sizeof(sector),
                      (uint64_t)spv->label.sector * LVX_SECTOR_SIZE);
    if (r < 0)
        return r;
    int flushed = lvx_dev_flush(ctx, spv->dev);
    lvx_lvm2_hints_invalidate();
    return flushed;
}

int lvx_pv_write_new_areas(struct lvx_ctx *ctx, struct lvx_dev *dev,
                           const struct lvx_label *label, bool mda_ignored)
{
    for (unsigned m = 0; m < label->mda_count; m++) {
        uint8_t *zero = lvx_xcalloc(1, 4096);
        struct lvx_mda_header hdr = {.version = LVX_MDA_VERSION,
                                     .start = label->mda[m].offset,
                                     .size = label->mda[m].size};
        if (mda_ignored)
            hdr.slot[0].flags = LVX_RAW_LOCN_IGNORED;
        lvx_mda_header_encode(&hdr, zero);
        int r = lvx_dev_write(ctx, dev, zero, 4096, label->mda[m].offset);
        free(zero);
        if (r < 0)
            return r;
    }
    return 0;
}

int lvx_pv_write_new_label(struct lvx_ctx *ctx, struct lvx_dev *dev,
                           const struct lvx_label *label)
{
    uint8_t head[LVX_LABEL_SCAN_BYTES] = {0};
    int r = lvx_label_encode(ctx, label, head + (size_t)label->sector * LVX_SECTOR_SIZE);
    if (r < 0)
        return r;
    r = lvx_dev_write(ctx, dev, head, sizeof(head), 0);
    lvx_lvm2_hints_invalidate();
    return r;
}

int lvx_pv_write_new(struct lvx_ctx *ctx, struct lvx_dev *dev, const struct lvx_label *label,
                     bool mda_ignored)
{
    uint8_t sector[LVX_SECTOR_SIZE];
    int r = lvx_label_encode(ctx, label, sector);     /* a bad label: nothing written */
    if (r < 0)
        return r;
    r = lvx_pv_write_new_areas(ctx, dev, label, mda_ignored);
    if (r < 0 || (r = lvx_dev_flush(ctx, dev)) < 0)
        return r;
    /* the label last: until it lands the device is not a PV */
    if ((r = lvx_pv_write_new_label(ctx, dev, label)) < 0)
        return r;
    return lvx_dev_flush(ctx, dev);
}

int lvx_pv_write_orphan(struct lvx_ctx *ctx, struct lvx_scan_pv *spv)
{
    return detach_pv(ctx, NULL, spv);
}
