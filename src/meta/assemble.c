/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/assemble.c - VG assembly from a label scan (lvm2-format.md §8.2, §8.4).
 *
 * Copies of VG text found by lvx_scan() are grouped by VG UUID; in each group the
 * first copy (device order) with the highest seqno is imported into the set's pool.
 * LVM2-style warnings are logged for damaged areas, older copies, same-seqno copies
 * that differ (marked bad), PVs listed in the text but not found, duplicate PV UUIDs
 * (LVM2's preferred device wins, meta/dup_prefer.h), outdated PVs, devices smaller than their PV size
 * (metadata/check_pv_device_sizes) and VG name clashes (messages as LVM2
 * 2.03.16 prints them).  Every VG PV found on a device gets its `ondisk` state from
 * the scan; labelled PVs that no VG lists become orphans, except outdated PVs (they
 * hold metadata of a VG that dropped them), which are kept apart as LVM2 hides them.
 *
 * Entry points: lvx_scan_vgs(), lvx_vgset_find(), lvx_vgset_free(),
 * lvx_scan_fill_ondisk().
 */
#include "meta/dup_prefer.h"
#include "meta/mda_pvs.h"
#include "meta/scan.h"
#include "meta/systemid.h"
#include "config/config.h"
#include "format/vg_text.h"
#include "util/phase.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One usable text copy: an area of a (non-duplicate) scanned PV. */
struct copy {
    struct lvx_scan_pv *pv;
    struct lvx_scan_mda *mda;
    bool failed;              /* import failed: do not choose it again */
};

/* All copies of one VG (same VG UUID; one name, or several when a rename relates
 * them: merge_renamed). */
struct group {
    const char *uuid;
    const char *name;
    unsigned count;
    struct copy *copies;
    struct lvx_scan_mda *chosen;
    struct lvx_scan_pv *chosen_pv;
    struct lvx_vg *vg;
};

struct assembly {
    struct lvx_ctx *ctx;
    struct lvx_scan *scan;
    struct lvx_vgset *set;
    struct lvx_pool *tmp;
    bool *duplicate;          /* per scan PV: same PV UUID as an earlier device */
    bool *claimed;            /* per scan PV: listed by an assembled VG */
    bool *outdated;           /* per scan PV: holds metadata of a VG that does not list it */
    unsigned *by_uuid;        /* scan PV indexes by (PV UUID, device order) */
    unsigned group_count;
    struct group *groups;
};

static const char *dashed(struct lvx_pool *pool, const char *raw)
{
    char buf[LVX_UUID_DASHED_LEN + 1];
    lvx_uuid_format(raw, buf);
    return lvx_pool_strdup(pool, buf);
}

/* ---- duplicates and damaged areas ------------------------------------------------ */

/* Scan PV indexes sorted by (PV UUID, device order): equal UUIDs are adjacent, the
 * first of a run is the device that wins.  O(N log N) for VGs of thousands of PVs. */
static _Thread_local const struct lvx_scan *sort_scan;

static int by_uuid_then_order(const void *x, const void *y)
{
    unsigned i = *(const unsigned *)x, j = *(const unsigned *)y;
    int c = strcmp(sort_scan->pvs[i].label.pv_uuid, sort_scan->pvs[j].label.pv_uuid);
    return c ? c : (i < j ? -1 : i > j);
}

static void sort_by_uuid(struct assembly *a)
{
    unsigned n = a->scan->pv_count;
    a->by_uuid = lvx_pool_alloc(a->tmp, (n + 1) * sizeof(*a->by_uuid));
    for (unsigned i = 0; i < n; i++)
        a->by_uuid[i] = i;
    sort_scan = a->scan;          /* qsort has no context argument */
    qsort(a->by_uuid, n, sizeof(*a->by_uuid), by_uuid_then_order);
    sort_scan = NULL;
}

/* The runs of equal PV UUIDs in by_uuid: the device LVM2 prefers (meta/dup_prefer.h)
 * is moved to the front of its run, the others are duplicates. */
static void find_duplicates(struct assembly *a)
{
    struct lvx_scan *scan = a->scan;
    unsigned *first = lvx_pool_alloc(a->tmp, (scan->pv_count + 1) * sizeof(*first));
    const char **reason = lvx_pool_alloc(a->tmp, (scan->pv_count + 1) * sizeof(*reason));
    struct lvx_lvdev_probe probe;
    bool probed = false;
    for (unsigned k = 0, end; k < scan->pv_count; k = end) {
        const char *uuid = scan->pvs[a->by_uuid[k]].label.pv_uuid;
        for (end = k + 1; end < scan->pv_count &&
                          strcmp(scan->pvs[a->by_uuid[end]].label.pv_uuid, uuid) == 0; end++)
            ;
        unsigned best = k;
        const char *why = NULL;
        if (end - k > 1) {
            if (!probed)
                lvx_lvdev_probe_init(&probe);
            probed = true;
            struct lvx_dup_facts fb, f;
            lvx_dup_facts_of(scan, a->by_uuid[k], &probe, &fb);
            for (unsigned m = k + 1; m < end; m++) {
                lvx_dup_facts_of(scan, a->by_uuid[m], &probe, &f);
                if (lvx_dup_prefer_second(&fb, &f, &why)) {
                    best = m;
                    fb = f;
                }
            }
            unsigned w = a->by_uuid[best];          /* the run keeps device order after it */
            memmove(&a->by_uuid[k + 1], &a->by_uuid[k], (best - k) * sizeof(*a->by_uuid));
            a->by_uuid[k] = w;
        }
        if (end - k > 1) {
            a->set->dup_uuids = lvx_pool_realloc(a->set->pool, a->set->dup_uuids,
                                                 a->set->dup_count * sizeof(char *),
                                                 (a->set->dup_count + 1) * sizeof(char *));
            a->set->dup_uuids[a->set->dup_count++] = lvx_pool_strdup(a->set->pool, uuid);
        }
        for (unsigned m = k; m < end; m++) {
            unsigned i = a->by_uuid[m];
            first[i] = a->by_uuid[k];
            a->duplicate[i] = m > k;
            reason[i] = why;
        }
    }
    /* warnings in device order, LVM2's "Not using" lines before its "prefers" lines */
    for (unsigned i = 0; i < scan->pv_count; i++)
        if (a->duplicate[i])
            lvx_warn(a->ctx, "WARNING: Not using device %s for PV %s.", scan->pvs[i].dev->path,
                     dashed(a->tmp, scan->pvs[i].label.pv_uuid));
    for (unsigned i = 0; i < scan->pv_count; i++)
        if (a->duplicate[i])
            lvx_warn(a->ctx, "WARNING: PV %s prefers device %s because %s.",
                     dashed(a->tmp, scan->pvs[i].label.pv_uuid), scan->pvs[first[i]].dev->path,
                     reason[i]);
}

static void warn_bad_areas(struct assembly *a)
{
    for (unsigned p = 0; p < a->scan->pv_count; p++) {
        const struct lvx_scan_pv *pv = &a->scan->pvs[p];
        if (a->duplicate[p])
            continue;
        for (unsigned i = 0; i < pv->mda_count; i++) {
            const struct lvx_scan_mda *m = &pv->mda[i];
            if (!m->bad)
                continue;
            if (m->crc_bad) {       /* LVM2's words (its offset: the text's) */
                lvx_warn(a->ctx, "WARNING: Checksum error on %s at offset %" PRIu64 ".",
                         pv->dev->path, m->start + m->hdr.slot[0].offset);
                continue;
            }
            lvx_warn(a->ctx, "WARNING: bad metadata %s on %s at %" PRIu64 ": %s.",
                     m->hdr_valid ? "text" : "header", pv->dev->path, m->start,
                     m->problem ? m->problem : "unknown problem");
        }
    }
}

/* ---- grouping and choosing ----------------------------------------------------------- */

static struct group *group_for(struct assembly *a, const char *uuid, const char *name)
{
    for (unsigned g = 0; g < a->group_count; g++)
        if (strcmp(a->groups[g].uuid, uuid) == 0 && strcmp(a->groups[g].name, name) == 0)
            return &a->groups[g];
    a->groups = lvx_pool_realloc(a->tmp, a->groups, a->group_count * sizeof(*a->groups),
                                 (a->group_count + 1) * sizeof(*a->groups));
    struct group *g = &a->groups[a->group_count++];
    memset(g, 0, sizeof(*g));
    g->uuid = uuid;
    g->name = name;
    return g;
}

static bool group_holds_pv(const void *arg, const char *raw_uuid)
{
    const struct group *g = arg;
    for (unsigned c = 0; c < g->count; c++)
        if (memcmp(g->copies[c].pv->label.pv_uuid, raw_uuid, LVX_UUID_LEN) == 0)
            return true;
    return false;
}

/* Does a copy of x list a PV that holds a copy of y, or the reverse? */
static bool related(const struct group *x, const struct group *y)
{
    for (unsigned c = 0; c < x->count; c++)
        if (lvx_mda_lists_pv(x->copies[c].mda, group_holds_pv, y))
            return true;
    for (unsigned c = 0; c < y->count; c++)
        if (lvx_mda_lists_pv(y->copies[c].mda, group_holds_pv, x))
            return true;
    return false;
}

static int copy_order(const void *x, const void *y)
{
    const struct copy *p = x, *q = y;
    if (p->pv != q->pv)
        return p->pv < q->pv ? -1 : 1;
    return p->mda < q->mda ? -1 : p->mda > q->mda;
}

/* Copies of one VG UUID under different names are one VG, its highest seqno chosen (a
 * rename that reached only some PVs), when one lists a PV that holds the other; when
 * neither does they are two VGs that share the UUID (a cloned disk renamed and given
 * new PV UUIDs), each assembled alone, as LVM2 lists them. */
static void merge_renamed(struct assembly *a)
{
    for (unsigned i = 0; i < a->group_count; i++) {
        for (unsigned j = i + 1; j < a->group_count;) {
            struct group *gi = &a->groups[i], *gj = &a->groups[j];
            if (strcmp(gi->uuid, gj->uuid) != 0 || !related(gi, gj)) {
                j++;
                continue;
            }
            gi->copies = lvx_pool_realloc(a->tmp, gi->copies, gi->count * sizeof(*gi->copies),
                                          (gi->count + gj->count) * sizeof(*gi->copies));
            memcpy(gi->copies + gi->count, gj->copies, gj->count * sizeof(*gj->copies));
            gi->count += gj->count;
            qsort(gi->copies, gi->count, sizeof(*gi->copies), copy_order);   /* device order */
            memmove(gj, gj + 1, (a->group_count - j - 1) * sizeof(*gj));
            a->group_count--;
            j = i + 1;          /* gi grew: the others again */
        }
    }
}

static void collect_copies(struct assembly *a)
{
    for (unsigned p = 0; p < a->scan->pv_count; p++) {
        struct lvx_scan_pv *pv = &a->scan->pvs[p];
        if (a->duplicate[p])
            continue;
        for (unsigned i = 0; i < pv->mda_count; i++) {
            struct lvx_scan_mda *m = &pv->mda[i];
            if (!m->text || m->bad || m->ignored)
                continue;
            struct group *g = group_for(a, m->vg_uuid, m->vg_name);
            g->copies = lvx_pool_realloc(a->tmp, g->copies, g->count * sizeof(*g->copies),
                                         (g->count + 1) * sizeof(*g->copies));
            g->copies[g->count++] = (struct copy){ .pv = pv, .mda = m };
        }
    }
}

static bool same_text(const struct lvx_scan_mda *x, const struct lvx_scan_mda *y)
{
    return x->text_size == y->text_size && x->hdr.slot[0].checksum == y->hdr.slot[0].checksum &&
           memcmp(x->text, y->text, (size_t)x->text_size) == 0;
}

/* First copy (device order) with the highest seqno among those not failed. */
static struct copy *best_copy(struct group *g)
{
    struct copy *best = NULL;
    for (unsigned c = 0; c < g->count; c++)
        if (!g->copies[c].failed && (!best || g->copies[c].mda->seqno > best->mda->seqno))
            best = &g->copies[c];
    return best;
}

/* Import the best copy; on failure, try the next best distinct text. */
static void import_group(struct assembly *a, struct group *g)
{
    struct copy *best;
    while ((best = best_copy(g)) != NULL) {
        struct lvx_vg *vg = NULL;
        int r = best->mda->tree      /* parsed once, by the scan */
                    ? lvx_vg_import(a->ctx, a->set->pool, best->mda->tree, &vg)
                    : lvx_vg_import_text(a->ctx, a->set->pool, best->mda->text,
                                         (size_t)best->mda->text_size, &vg);
        if (r == 0) {
            g->vg = vg;
            g->chosen = best->mda;
            g->chosen_pv = best->pv;
            return;
        }
        lvx_warn(a->ctx, "WARNING: Cannot use metadata seqno %" PRIu32 " of VG %s on %s: %s",
                 best->mda->seqno, best->mda->vg_name, best->pv->dev->path, a->ctx->errmsg);
        lvx_error_clear(a->ctx);
        const struct lvx_scan_mda *failed = best->mda;
        for (unsigned c = 0; c < g->count; c++)
            if (same_text(g->copies[c].mda, failed)) {
                g->copies[c].failed = true;
                g->copies[c].mda->bad = true;
                g->copies[c].mda->problem = "metadata text cannot be imported";
            }
    }
    lvx_warn(a->ctx, "WARNING: Volume group %s has no usable metadata and is ignored.",
             g->count ? g->copies[0].mda->vg_name : g->uuid);
}

/* Warnings for copies other than the chosen one: older seqno, or same seqno and different. */
static void check_other_copies(struct assembly *a, struct group *g)
{
    bool inconsistent = false;
    const struct lvx_scan_mda *best = g->chosen;
    for (unsigned c = 0; c < g->count; c++) {
        struct copy *cp = &g->copies[c];
        if (cp->failed || cp->mda == best)
            continue;
        if (cp->mda->seqno < best->seqno) {
            lvx_warn(a->ctx, "WARNING: ignoring metadata seqno %" PRIu32 " on %s for seqno %" PRIu32
                     " on %s for VG %s.", cp->mda->seqno, cp->pv->dev->path, best->seqno,
                     g->chosen_pv->dev->path, g->vg->name);
            inconsistent = true;
        } else if (!same_text(cp->mda, best)) {
            lvx_warn(a->ctx, "WARNING: Scanning %s mda%u found mismatch with other metadata "
                     "for VG %s (seqno %" PRIu32 ", checksum 0x%08x size %" PRIu64 " vs 0x%08x %"
                     PRIu64 " on %s).", cp->pv->dev->path,
                     (unsigned)(cp->mda - cp->pv->mda) + 1, g->vg->name, cp->mda->seqno,
                     cp->mda->hdr.slot[0].checksum, cp->mda->text_size, best->hdr.slot[0].checksum,
                     best->text_size, g->chosen_pv->dev->path);
            cp->mda->bad = true;
            cp->mda->problem = "metadata differs from another copy with the same seqno";
            inconsistent = true;
        }
    }
    if (inconsistent) {
        lvx_warn(a->ctx, "WARNING: Inconsistent metadata found for VG %s.", g->vg->name);
        lvx_warn(a->ctx, "See vgck --updatemetadata to correct inconsistency.");
    }
}

/* ---- PV placement ------------------------------------------------------------------- */

void lvx_scan_fill_ondisk(struct lvx_pool *pool, struct lvx_pv_ondisk *od,
                          const struct lvx_scan_pv *spv)
{
    const struct lvx_label *l = &spv->label;
    memset(od, 0, sizeof(*od));
    od->present = true;
    od->dev_name = lvx_pool_strdup(pool, spv->dev->path);
    od->dev_major = spv->dev->major;
    od->dev_minor = spv->dev->minor;
    od->dev_bytes = spv->dev->size;
    od->label_sector = l->sector;
    od->hdr_device_size = l->device_size;
    od->hdr_pe_start = l->data_count ? l->data[0].offset : 0;
    od->ext_version = l->ext_version;
    od->ext_flags = l->ext_flags;
    if (l->ext_version && l->ba_count) {
        od->ba_start = l->ba[0].offset;
        od->ba_size = l->ba[0].size;
    }
    od->mda_count = spv->mda_count;
    for (unsigned i = 0; i < spv->mda_count; i++) {
        const struct lvx_scan_mda *m = &spv->mda[i];
        od->mda[i].start = m->start;
        od->mda[i].size = m->area_size;
        od->mda[i].ignored = m->ignored;
        od->mda[i].bad = m->bad;
        od->mda[i].text_size = m->hdr_valid ? m->hdr.slot[0].size : 0;
        od->mda[i].seqno = m->text && !m->bad ? m->seqno : 0;
    }
}

/* The first non-duplicate scanned PV with this UUID, or -1 (binary search). */
static int find_scan_pv(const struct assembly *a, const char *uuid)
{
    unsigned lo = 0, hi = a->scan->pv_count;
    while (lo < hi) {                  /* first entry whose UUID is >= uuid */
        unsigned mid = lo + (hi - lo) / 2;
        if (strcmp(a->scan->pvs[a->by_uuid[mid]].label.pv_uuid, uuid) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < a->scan->pv_count && strcmp(a->scan->pvs[a->by_uuid[lo]].label.pv_uuid, uuid) == 0)
        return (int)a->by_uuid[lo];
    return -1;
}

/* A PV flagged MISSING by a write made while it was gone, found again (LVM2's words):
 * unused, it is a PV of the VG again (the flag goes with the next write); with extents
 * in use it keeps the flag, and the VG is not changed until it is restored
 * (meta/update.c).  A PV without metadata areas in use (none, or all ignored) loses
 * the flag silently, as in LVM2. */
static void reappeared(struct assembly *a, const struct lvx_vg *vg, struct lvx_pv *pv)
{
    const char *dev = pv->ondisk.dev_name, *u = dashed(a->tmp, pv->uuid);
    unsigned used = 0;              /* LVM2's pv_mda_used_count: areas not ignored */
    for (unsigned i = 0; i < pv->ondisk.mda_count && i < 2; i++)
        used += !pv->ondisk.mda[i].ignored;
    if (!used) {
        pv->flags &= ~(uint32_t)LVX_PVF_MISSING;
        return;
    }
    lvx_warn(a->ctx, "WARNING: VG %s was previously updated while PV %s was missing.", vg->name,
             dev);
    if (lvx_pv_alloc_count(pv) == 0) {
        lvx_warn(a->ctx, "WARNING: VG %s has unused reappeared PV %s %s.", vg->name, dev, u);
        pv->flags &= ~(uint32_t)LVX_PVF_MISSING;
        pv->missing_cleared = true;
    } else {
        lvx_warn(a->ctx, "WARNING: VG %s was missing PV %s %s.", vg->name, dev, u);
    }
}

static void place_pvs(struct assembly *a, struct group *g)
{
    struct lvx_vg *vg = g->vg;
    for (unsigned i = 0; i < vg->pv_count; i++) {
        struct lvx_pv *pv = vg->pvs[i];
        int p = find_scan_pv(a, pv->uuid);
        if (p < 0) {
            memset(&pv->ondisk, 0, sizeof(pv->ondisk));
            const char *u = dashed(a->tmp, pv->uuid);
            lvx_warn(a->ctx, "WARNING: Couldn't find device with uuid %s.", u);
            lvx_warn(a->ctx, "WARNING: VG %s is missing PV %s (last written to %s).", vg->name, u,
                     pv->device_hint ? pv->device_hint : "[unknown]");
            continue;
        }
        a->claimed[p] = true;
        lvx_scan_fill_ondisk(a->set->pool, &pv->ondisk, &a->scan->pvs[p]);
        if (pv->flags & LVX_PVF_MISSING)
            reappeared(a, vg, pv);
    }
}

/* Devices holding copies of the VG but not listed in the chosen text (§8.4). */
static void warn_outdated(struct assembly *a, struct group *g)
{
    bool any = false;
    for (unsigned c = 0; c < g->count; c++) {
        const struct copy *cp = &g->copies[c];
        if (lvx_vg_find_pv_uuid(g->vg, cp->pv->label.pv_uuid))
            continue;
        if (c > 0 && g->copies[c - 1].pv == cp->pv)
            continue;    /* second area of the same PV */
        lvx_warn(a->ctx, "WARNING: outdated PV %s seqno %" PRIu32 " has been removed in current "
                 "VG %s seqno %" PRIu32 ".", cp->pv->dev->path, cp->mda->seqno, g->vg->name,
                 g->vg->seqno);
        a->outdated[cp->pv - a->scan->pvs] = true;
        any = true;
    }
    if (any)
        lvx_warn(a->ctx, "See vgck --updatemetadata to clear outdated metadata.");
}

/* Devices smaller than the PV size the text records (LVM2's check_pv_dev_sizes()
 * wording); the allocator does not use the extents past their end (model/alloc.c). */
static void warn_shrunk(struct assembly *a, struct group *g)
{
    const struct lvx_vg *vg = g->vg;
    bool any = false, checked = false;
    for (unsigned i = 0; i < vg->pv_count; i++) {
        const struct lvx_pv *pv = vg->pvs[i];
        uint64_t dev = pv->ondisk.dev_bytes / LVX_SECTOR_SIZE;
        if (!pv->ondisk.present || !dev || !pv->has_dev_size || dev >= pv->dev_size)
            continue;
        if (!checked && !lvx_config_flag(a->ctx, "metadata/check_pv_device_sizes", true))
            return;
        checked = any = true;
        lvx_warn(a->ctx, "WARNING: Device %s has size of %" PRIu64 " sectors which is smaller "
                 "than corresponding PV size of %" PRIu64 " sectors. Was device resized?",
                 pv->ondisk.dev_name, dev, pv->dev_size);
    }
    if (any)
        lvx_warn(a->ctx, "WARNING: One or more devices used as PVs in VG %s have changed sizes.",
                 vg->name);
}

/* ---- orphans, name clashes, ordering --------------------------------------------------- */

static bool holds_copy_of_vg(const struct lvx_scan_pv *pv)
{
    for (unsigned i = 0; i < pv->mda_count; i++)
        if (pv->mda[i].text && !pv->mda[i].bad)
            return true;
    return false;
}

static struct lvx_pv *make_orphan(struct lvx_pool *pool, const struct lvx_scan_pv *spv)
{
    struct lvx_pv *pv = lvx_pool_alloc(pool, sizeof(*pv));
    memcpy(pv->uuid, spv->label.pv_uuid, sizeof(pv->uuid));
    pv->uuid[LVX_UUID_LEN] = '\0';
    pv->has_dev_size = true;
    pv->dev_size = spv->dev->size / LVX_SECTOR_SIZE;
    pv->pe_start = spv->label.data_count ? spv->label.data[0].offset / LVX_SECTOR_SIZE : 0;
    if (spv->label.ext_version && spv->label.ba_count) {
        pv->has_ba = true;
        pv->ba_start = spv->label.ba[0].offset / LVX_SECTOR_SIZE;
        pv->ba_size = spv->label.ba[0].size / LVX_SECTOR_SIZE;
    }
    pv->device_hint = lvx_pool_strdup(pool, spv->dev->path);
    lvx_scan_fill_ondisk(pool, &pv->ondisk, spv);
    return pv;
}

static void collect_orphans(struct assembly *a)
{
    struct lvx_vgset *set = a->set;
    set->orphans = lvx_pool_alloc(set->pool, (a->scan->pv_count + 1) * sizeof(*set->orphans));
    set->outdated = lvx_pool_alloc(set->pool, (a->scan->pv_count + 1) * sizeof(*set->outdated));
    for (unsigned p = 0; p < a->scan->pv_count; p++) {
        const struct lvx_scan_pv *spv = &a->scan->pvs[p];
        if (a->duplicate[p] || a->claimed[p])
            continue;
        if (a->outdated[p]) {       /* reported by warn_outdated(); LVM2 does not list them */
            set->outdated[set->outdated_count++] = make_orphan(set->pool, spv);
            continue;
        }
        if (!holds_copy_of_vg(spv) && spv->label.ext_version >= 2 &&
            (spv->label.ext_flags & LVX_PV_EXT_USED)) {
            lvx_warn(a->ctx, "WARNING: PV %s is marked in use but no VG was found using it.",
                     spv->dev->path);
            lvx_warn(a->ctx, "WARNING: PV %s might need repairing.", spv->dev->path);
        }
        set->orphans[set->orphan_count++] = make_orphan(set->pool, spv);
    }
}

/* Said once per command (its first read), as LVM2, and not for a pair with a foreign
 * VG (meta/systemid.h: the name stands for the other one). */
static void warn_name_clashes(struct assembly *a)
{
    const struct lvx_vgset *set = a->set;
    bool said = false;
    for (unsigned i = 0; i < set->vg_count && !a->ctx->name_clash_said; i++)
        for (unsigned j = i + 1; j < set->vg_count; j++) {
            if (strcmp(set->vgs[i]->name, set->vgs[j]->name) != 0 ||
                lvx_vg_is_foreign(a->ctx, set->vgs[i]) || lvx_vg_is_foreign(a->ctx, set->vgs[j]))
                continue;
            lvx_warn(a->ctx, "WARNING: VG name %s is used by VGs %s and %s.", set->vgs[i]->name,
                     dashed(a->tmp, set->vgs[i]->uuid), dashed(a->tmp, set->vgs[j]->uuid));
            lvx_warn(a->ctx, "Fix duplicate VG names with vgrename uuid, a device filter, or "
                     "system IDs.");
            said = true;
        }
    a->ctx->name_clash_said |= said;
}

static int vg_order(const void *x, const void *y)
{
    const struct lvx_vg *a = *(const struct lvx_vg *const *)x;
    const struct lvx_vg *b = *(const struct lvx_vg *const *)y;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->uuid, b->uuid);
}

/* ---- entry points ----------------------------------------------------------------------- */

static int lvx_scan_vgs_unt(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_vgset **out)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vgset *set = lvx_pool_alloc(pool, sizeof(*set));
    set->pool = pool;
    struct assembly a = { .ctx = ctx, .scan = scan, .set = set, .tmp = lvx_pool_create() };
    a.duplicate = lvx_pool_alloc(a.tmp, (scan->pv_count + 1) * sizeof(bool));
    a.claimed = lvx_pool_alloc(a.tmp, (scan->pv_count + 1) * sizeof(bool));
    a.outdated = lvx_pool_alloc(a.tmp, (scan->pv_count + 1) * sizeof(bool));

    sort_by_uuid(&a);
    find_duplicates(&a);
    warn_bad_areas(&a);
    collect_copies(&a);
    merge_renamed(&a);
    set->vgs = lvx_pool_alloc(pool, (a.group_count + 1) * sizeof(*set->vgs));
    for (unsigned i = 0; i < a.group_count; i++) {
        struct group *g = &a.groups[i];
        import_group(&a, g);
        if (!g->vg)
            continue;
        check_other_copies(&a, g);
        place_pvs(&a, g);
        warn_outdated(&a, g);
        warn_shrunk(&a, g);
        set->vgs[set->vg_count++] = g->vg;
    }
    qsort(set->vgs, set->vg_count, sizeof(*set->vgs), vg_order);
    warn_name_clashes(&a);
    collect_orphans(&a);
    lvx_pool_destroy(a.tmp);
    *out = set;
    return 0;
}

bool lvx_vgset_pv_duplicated(const struct lvx_vgset *set, const char *pv_uuid)
{
    unsigned lo = 0, hi = set->dup_count;        /* dup_uuids: in by_uuid's order */
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        int c = strcmp(set->dup_uuids[mid], pv_uuid);
        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

int lvx_scan_vgs(struct lvx_ctx *ctx, struct lvx_scan *scan, struct lvx_vgset **out)
{
    uint64_t t = lvx_phase_start();
    int rc = lvx_scan_vgs_unt(ctx, scan, out);
    lvx_phase_end("assemble", t);
    return rc;
}

void lvx_vgset_free(struct lvx_vgset *set)
{
    if (set)
        lvx_pool_destroy(set->pool);
}

struct lvx_vg *lvx_vgset_find(const struct lvx_vgset *set, const char *name_or_uuid)
{
    struct lvx_vg *found = NULL;
    unsigned matches = 0;
    for (unsigned i = 0; i < set->vg_count; i++)
        if (strcmp(set->vgs[i]->name, name_or_uuid) == 0) {
            found = found ? found : set->vgs[i];
            matches++;
        }
    if (matches == 1)
        return found;
    if (matches > 1)
        return NULL;
    char raw[LVX_UUID_LEN + 1];
    if (lvx_uuid_parse(name_or_uuid, raw) < 0)
        return NULL;
    for (unsigned i = 0; i < set->vg_count; i++)
        if (strcmp(set->vgs[i]->uuid, raw) == 0)
            return set->vgs[i];
    return NULL;
}
