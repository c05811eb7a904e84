/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/pv_new.c - lvx_pv_write_new_many(): new orphan PVs on many devices as three
 * batches of writes (see pv_new.h for the order and what a crash leaves);
 * lvx_pv_wipe_labels_many(): the labels of many devices zeroed in one batch.
 */
#include "meta/pv_new.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/multi.h"
#include "format/mda.h"
#include "meta/commit.h"
#include "util/phase.h"

#define AREA_WRITE 4096u                 /* an area's header and the zeros after it */

/* The batch's writes, and whose device each is. */
struct step {
    struct lvx_dev_write *w;
    unsigned *owner;
    unsigned n;
};

static void step_add(struct step *s, unsigned owner, struct lvx_dev *dev, const void *buf,
                     size_t len, uint64_t offset)
{
    s->w[s->n] = (struct lvx_dev_write){ .dev = dev, .buf = buf, .len = len, .offset = offset };
    s->owner[s->n++] = owner;
}

static void fail(struct lvx_pv_new *p, int err, const char *what, size_t len, uint64_t offset)
{
    if (p->result < 0)
        return;
    p->result = err;
    snprintf(p->errmsg, sizeof(p->errmsg), "Write of %zu bytes (%s) at offset %llu to %s failed: %s",
             len, what, (unsigned long long)offset, p->dev->path, strerror(-err));
}

/* Run one step's writes; a failing write fails its device. */
static void step_run(struct lvx_ctx *ctx, struct lvx_pv_new *pvs, struct step *s, bool durable,
                     const char *what, const char *phase)
{
    if (s->n == 0)
        return;
    uint64_t t = lvx_phase_start();
    struct lvx_ctx quiet = *ctx;           /* messages are the entries' own */
    lvx_dev_write_many(&quiet, s->w, s->n, durable);
    for (unsigned k = 0; k < s->n; k++)
        if (s->w[k].result < 0)
            fail(&pvs[s->owner[k]], s->w[k].result, what, s->w[k].len, s->w[k].offset);
    s->n = 0;
    lvx_phase_end(phase, t);
}

/* Sectors 0-3 as the new PV has them: zeros or the kept head without its labels, the
 * label at its sector; 0 or -errno (a label that does not encode: nothing written). */
static int build_head(struct lvx_ctx *ctx, const struct lvx_pv_new *p, uint8_t *out)
{
    if (p->keep_head) {
        memcpy(out, p->head, LVX_LABEL_SCAN_BYTES);
        for (unsigned s = 0; s < LVX_LABEL_SCAN_SECTORS; s++)
            if (lvx_label_sector_looks_like_label(out + s * LVX_SECTOR_SIZE))
                memset(out + s * LVX_SECTOR_SIZE, 0, LVX_SECTOR_SIZE);
    } else {
        memset(out, 0, LVX_LABEL_SCAN_BYTES);
    }
    return lvx_label_encode(ctx, p->label, out + (size_t)p->label->sector * LVX_SECTOR_SIZE);
}

int lvx_pv_write_new_many(struct lvx_ctx *ctx, struct lvx_pv_new *pvs, unsigned count,
                          bool mda_ignored, bool durable_labels)
{
    static const uint8_t zero[LVX_SECTOR_SIZE];
    uint64_t t = lvx_phase_start();
    size_t mdas = 0;
    for (unsigned i = 0; i < count; i++)
        mdas += pvs[i].label->mda_count;
    uint8_t *heads = lvx_xcalloc(count + 1, LVX_LABEL_SCAN_BYTES);
    uint8_t *areas = lvx_xcalloc(mdas + 1, AREA_WRITE);
    size_t cap = (size_t)count * LVX_LABEL_SCAN_SECTORS + mdas + 1;
    struct step s = { lvx_xcalloc(cap, sizeof(*s.w)), lvx_xcalloc(cap, sizeof(*s.owner)), 0 };
    for (unsigned i = 0; i < count; i++) {
        struct lvx_pv_new *p = &pvs[i];
        p->result = 0;
        p->errmsg[0] = '\0';
        struct lvx_ctx own = *ctx;
        int r = build_head(&own, p, heads + (size_t)i * LVX_LABEL_SCAN_BYTES);
        if (r < 0) {
            p->result = r;
            snprintf(p->errmsg, sizeof(p->errmsg), "%s", own.errmsg);
        }
    }
    lvx_phase_end("pvcreate.build", t);
    /* 1: the labels there are now, as LVM2's label_remove */
    for (unsigned i = 0; i < count; i++)
        for (unsigned sec = 0; sec < LVX_LABEL_SCAN_SECTORS && pvs[i].result == 0; sec++)
            if (lvx_label_sector_looks_like_label(pvs[i].head + sec * LVX_SECTOR_SIZE))
                step_add(&s, i, pvs[i].dev, zero, sizeof(zero), (uint64_t)sec * LVX_SECTOR_SIZE);
    step_run(ctx, pvs, &s, true, "old label", "pvcreate.unlabel");
    /* 2: the metadata area headers */
    uint8_t *buf = areas;
    for (unsigned i = 0; i < count; i++) {
        const struct lvx_label *l = pvs[i].label;
        for (unsigned m = 0; m < l->mda_count && pvs[i].result == 0; m++, buf += AREA_WRITE) {
            struct lvx_mda_header hdr = { .version = LVX_MDA_VERSION, .start = l->mda[m].offset,
                                          .size = l->mda[m].size };
            if (mda_ignored)
                hdr.slot[0].flags = LVX_RAW_LOCN_IGNORED;
            lvx_mda_header_encode(&hdr, buf);
            step_add(&s, i, pvs[i].dev, buf, AREA_WRITE, l->mda[m].offset);
        }
    }
    step_run(ctx, pvs, &s, true, "metadata area header", "pvcreate.areas");
    /* 3: the labels, only after every area header of theirs is durable */
    for (unsigned i = 0; i < count; i++)
        if (pvs[i].result == 0)
            step_add(&s, i, pvs[i].dev, heads + (size_t)i * LVX_LABEL_SCAN_BYTES,
                     LVX_LABEL_SCAN_BYTES, 0);
    bool labelled = s.n > 0;
    step_run(ctx, pvs, &s, durable_labels, "label", "pvcreate.labels");
    if (labelled)
        lvx_lvm2_hints_invalidate();
    int r = 0;
    for (unsigned i = 0; i < count && r == 0; i++)
        r = pvs[i].result;
    free(s.w);
    free(s.owner);
    free(areas);
    free(heads);
    return r;
}

int lvx_pv_wipe_labels_many(struct lvx_ctx *ctx, struct lvx_dev **devs, unsigned count,
                            int *results, char (*errmsgs)[sizeof(((struct lvx_ctx *)0)->errmsg)])
{
    static const uint8_t zero[LVX_SECTOR_SIZE];
    uint8_t *heads;
    if (posix_memalign((void **)&heads, 4096, (size_t)(count + 1) * LVX_LABEL_SCAN_BYTES) != 0)
        abort();                                  /* out of memory, as lvx_xmalloc */
    uint8_t **bufs = lvx_xcalloc(count + 1, sizeof(*bufs));
    for (unsigned i = 0; i < count; i++)
        bufs[i] = heads + (size_t)i * LVX_LABEL_SCAN_BYTES;
    struct lvx_ctx quiet = *ctx;
    memset(heads, 0, (size_t)count * LVX_LABEL_SCAN_BYTES);
    int rr = lvx_dev_read_many(&quiet, devs, count, 0, LVX_LABEL_SCAN_BYTES, bufs, results, NULL);
    for (unsigned i = 0; rr < 0 && i < count; i++)   /* the batch failed: no result to trust */
        if (results[i] >= 0)
            results[i] = rr;
    struct step s = { lvx_xcalloc((size_t)count * LVX_LABEL_SCAN_SECTORS + 1, sizeof(*s.w)),
                      lvx_xcalloc((size_t)count * LVX_LABEL_SCAN_SECTORS + 1, sizeof(*s.owner)), 0 };
    for (unsigned i = 0; i < count; i++) {
        if (results[i] < 0) {
            snprintf(errmsgs[i], sizeof(*errmsgs), "Read of the label sectors of %s failed: %s",
                     devs[i]->path, strerror(-results[i]));
            continue;
        }
        errmsgs[i][0] = '\0';
        for (unsigned sec = 0; sec < LVX_LABEL_SCAN_SECTORS; sec++)
            if (lvx_label_sector_looks_like_label(bufs[i] + sec * LVX_SECTOR_SIZE))
                step_add(&s, i, devs[i], zero, sizeof(zero), (uint64_t)sec * LVX_SECTOR_SIZE);
    }
    bool wrote = s.n > 0;
    lvx_dev_write_durable_many(&quiet, s.w, s.n);
    for (unsigned k = 0; k < s.n; k++) {
        unsigned i = s.owner[k];
        if (s.w[k].result < 0 && results[i] == 0) {
            results[i] = s.w[k].result;
            snprintf(errmsgs[i], sizeof(*errmsgs), "Write of %zu bytes at offset %llu to %s failed: %s",
                     s.w[k].len, (unsigned long long)s.w[k].offset, devs[i]->path,
                     strerror(-s.w[k].result));
        }
    }
    if (wrote)
        lvx_lvm2_hints_invalidate();
    int r = 0;
    for (unsigned i = 0; i < count && r == 0; i++)
        r = results[i];
    free(s.w);
    free(s.owner);
    free(bufs);
    free(heads);
    return r;
}
