/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_thin_meta.c - the thin pool metadata module (map/thin_meta.c and its
 * btree, space map and block files) against the real thin-provisioning-tools:
 * metadata thin_restore made from generated XML (several devices, shared data blocks,
 * trees of three levels) read back mapping by mapping; metadata lvx formats and
 * changes (thins, snapshots, thousands of mappings, replaced and discarded blocks,
 * deletes, several commits) passing thin_check with thin_dump's XML equal to the
 * expected model; uncommitted changes and commits failing at chosen writes leaving the
 * last commit; damaged superblocks and nodes refused with one clear line.
 * Skipped when thin_check / thin_dump / thin_restore are not installed.  With arguments
 * it is the driver of tests/kernel/thin_meta.sh (the kernel's side of the round trip).
 */
#include "map/thin_int.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dev/io.h"
#include "format/endian.h"

#define TOOLS "/usr/sbin/"
#define MAXDEV 8
#define VMAX 80000u

/* ---- the expected state ---- */
struct mdev {
    bool exists;
    uint64_t mapped, trans;
    uint32_t ctime, stime;
    uint64_t *data;     /* per vblock: data block + 1, 0 = unmapped */
    uint32_t *time;
};
struct model {
    struct mdev d[MAXDEV];
    uint64_t trans;
    uint32_t time;
    uint64_t nr_data;
};

static char dir[64];

static void model_init(struct model *m)
{
    memset(m, 0, sizeof(*m));
    for (int i = 0; i < MAXDEV; i++) {
        m->d[i].data = calloc(VMAX, sizeof(uint64_t));
        m->d[i].time = calloc(VMAX, sizeof(uint32_t));
    }
}

static void model_free(struct model *m)
{
    for (int i = 0; i < MAXDEV; i++) {
        free(m->d[i].data);
        free(m->d[i].time);
    }
}

static void model_copy(struct model *dst, const struct model *src)
{
    for (int i = 0; i < MAXDEV; i++) {
        uint64_t *data = dst->d[i].data;
        uint32_t *time = dst->d[i].time;
        dst->d[i] = src->d[i];
        dst->d[i].data = data;
        dst->d[i].time = time;
        memcpy(data, src->d[i].data, VMAX * sizeof(uint64_t));
        memcpy(time, src->d[i].time, VMAX * sizeof(uint32_t));
    }
    dst->trans = src->trans;
    dst->time = src->time;
    dst->nr_data = src->nr_data;
}

/* "" when equal, else the first difference (static buffer). */
static const char *model_diff(const struct model *a, const struct model *b)
{
    static char why[200];
    if (a->trans != b->trans || a->time != b->time) {
        snprintf(why, sizeof(why), "superblock trans/time %llu/%u vs %llu/%u",
                 (unsigned long long)a->trans, a->time, (unsigned long long)b->trans, b->time);
        return why;
    }
    for (int i = 0; i < MAXDEV; i++) {
        const struct mdev *x = &a->d[i], *y = &b->d[i];
        if (x->exists != y->exists || (x->exists && (x->mapped != y->mapped || x->trans != y->trans ||
                                                     x->ctime != y->ctime || x->stime != y->stime))) {
            snprintf(why, sizeof(why), "device %d: exists %d/%d mapped %llu/%llu trans %llu/%llu times %u,%u/%u,%u",
                     i, x->exists, y->exists, (unsigned long long)x->mapped, (unsigned long long)y->mapped,
                     (unsigned long long)x->trans, (unsigned long long)y->trans, x->ctime, x->stime,
                     y->ctime, y->stime);
            return why;
        }
        if (!x->exists)
            continue;
        for (uint32_t v = 0; v < VMAX; v++)
            if (x->data[v] != y->data[v] || (x->data[v] && x->time[v] != y->time[v])) {
                snprintf(why, sizeof(why), "device %d vblock %u: data+1 %llu/%llu time %u/%u", i, v,
                         (unsigned long long)x->data[v], (unsigned long long)y->data[v], x->time[v], y->time[v]);
                return why;
            }
    }
    return "";
}

/* ---- the tools ---- */
static bool have_tools(void)
{
    return access(TOOLS "thin_check", X_OK) == 0 && access(TOOLS "thin_dump", X_OK) == 0 &&
           access(TOOLS "thin_restore", X_OK) == 0;
}

static int run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool thin_check_ok(const char *file)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), TOOLS "thin_check -q %s >/dev/null 2>&1", file);
    if (run(cmd) == 0)
        return true;
    snprintf(cmd, sizeof(cmd), TOOLS "thin_check %s 2>&1 | head -20 | sed 's/^/# /'", file);
    run(cmd);
    return false;
}

static uint64_t attr(const char *line, const char *name)
{
    char key[48];
    snprintf(key, sizeof(key), " %s=\"", name);
    const char *p = strstr(line, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : UINT64_MAX;
}

/* thin_dump's XML of file into m; false when it cannot be read. */
static bool dump_model(const char *file, struct model *m)
{
    char cmd[256], line[512];
    snprintf(cmd, sizeof(cmd), TOOLS "thin_dump %s 2>/dev/null", file);
    FILE *f = popen(cmd, "r");
    if (!f)
        return false;
    struct model empty;
    model_init(&empty);
    model_copy(m, &empty);
    model_free(&empty);
    struct mdev *d = NULL;
    bool okay = true;
    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, "<superblock")) {
            m->trans = attr(line, "transaction");
            m->time = (uint32_t)attr(line, "time");
            m->nr_data = attr(line, "nr_data_blocks");
        } else if (strstr(line, "<device")) {
            uint64_t id = attr(line, "dev_id");
            if (id >= MAXDEV) {
                okay = false;
                continue;
            }
            d = &m->d[id];
            d->exists = true;
            d->mapped = attr(line, "mapped_blocks");
            d->trans = attr(line, "transaction");
            d->ctime = (uint32_t)attr(line, "creation_time");
            d->stime = (uint32_t)attr(line, "snap_time");
        } else if (strstr(line, "_mapping") && d) {
            uint64_t o, b, len = 1, t = attr(line, "time");
            if (strstr(line, "range_mapping")) {
                o = attr(line, "origin_begin");
                b = attr(line, "data_begin");
                len = attr(line, "length");
            } else {
                o = attr(line, "origin_block");
                b = attr(line, "data_block");
            }
            for (uint64_t i = 0; i < len; i++) {
                if (o + i >= VMAX) {
                    okay = false;
                    break;
                }
                d->data[o + i] = b + i + 1;
                d->time[o + i] = (uint32_t)t;
            }
        }
    }
    return pclose(f) == 0 && okay;
}

/* ---- lvx's view ---- */
static int fill_entry(void *arg, uint64_t vblock, uint64_t data, uint32_t time)
{
    struct mdev *d = arg;
    if (vblock >= VMAX)
        return -ERANGE;
    d->data[vblock] = data + 1;
    d->time[vblock] = time;
    return 0;
}

/* What the open handle says, into m (by walks); false on an error. */
static bool lvx_model(struct lvx_thin_meta *tm, struct model *m)
{
    struct model empty;
    model_init(&empty);
    model_copy(m, &empty);
    model_free(&empty);
    struct lvx_thin_info info;
    lvx_thin_meta_info(tm, &info);
    m->trans = info.trans_id;
    m->time = info.time;
    m->nr_data = info.nr_data;
    struct lvx_thin_details det[MAXDEV];
    size_t n = lvx_thin_meta_devices(tm, det, MAXDEV);
    for (size_t i = 0; i < n && i < MAXDEV; i++) {
        if (det[i].id >= MAXDEV)
            return false;
        struct mdev *d = &m->d[det[i].id];
        d->exists = true;
        d->mapped = det[i].mapped_blocks;
        d->trans = det[i].trans_id;
        d->ctime = det[i].creation_time;
        d->stime = det[i].snapshotted_time;
        if (lvx_thin_walk(tm, det[i].id, fill_entry, d) != 0)
            return false;
    }
    return n <= MAXDEV;
}

static struct lvx_ctx ctx;

static int open_file(const char *path, bool create, uint64_t size)
{
    int fd = open(path, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), 0600);
    if (fd >= 0 && create && ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Bytes of a file or a block device (the kernel round trip runs on /dev/vda). */
static uint64_t file_size(const char *path)
{
    int fd = open(path, O_RDONLY);
    off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
    if (fd >= 0)
        close(fd);
    return end > 0 ? (uint64_t)end : 0;
}

/* Reopen path read-only and compare with want. */
static void check_reopen(const char *path, const struct model *want, const char *what)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    struct model got;
    model_init(&got);
    int fd = open_file(path, false, 0);
    int r = lvx_thin_meta_open(&ctx, pool, fd, file_size(path), false, &tm);
    if (!ok(r == 0, "%s: lvx reopens it", what))
        tap_diag("%s", ctx.errmsg);
    else
        is_str(lvx_model(tm, &got) ? model_diff(&got, want) : "walk failed", "",
               "%s: lvx reads what is expected", what);
    close(fd);
    model_free(&got);
    lvx_pool_destroy(pool);
}

static void check_data_counts(const char *meta, const char *what);
static bool data_counts_same(const char *meta);

/* thin_check passes and thin_dump's XML is the model. */
static void check_tools(const char *path, const struct model *want, const char *what)
{
    struct model got;
    model_init(&got);
    ok(thin_check_ok(path), "%s: thin_check passes", what);
    check_data_counts(path, what);
    bool dumped = dump_model(path, &got);
    is_str(dumped ? model_diff(&got, want) : "thin_dump failed", "", "%s: thin_dump shows what is expected", what);
    model_free(&got);
}

/* ---- 1. checksum ---- */
static void test_crc(void)
{
    /* CRC-32C("123456789") = 0xE3069283; the metadata keeps the register uninverted */
    is_int(tm_crc32c((const uint8_t *)"123456789", 9), 0x1CF96D7Cu, "crc32c register of the check string");
    is_int(tm_node_max(8), 252, "252 entries of 8 bytes per node");
    is_int(tm_node_max(24), 126, "126 device details per node");
    is_int(tm_node_max(16), 168, "168 index entries per node");
    is_int(tm_node_max(4), 336, "336 counts per node");
}

/* ---- 2. thin_restore -> lvx ---- */
static void test_restore(void)
{
    char xml[96], meta[96], cmd[320];
    snprintf(xml, sizeof(xml), "%s/r.xml", dir);
    snprintf(meta, sizeof(meta), "%s/r.meta", dir);
    struct model m;
    model_init(&m);
    m.trans = 7;
    m.time = 3;
    m.nr_data = 200000;
    /* dev 1: 70000 mappings (three levels), dev 2 shares half of them (a snapshot),
     * dev 3 sparse, dev 5 empty */
    for (uint32_t v = 0; v < 70000; v++) {
        m.d[1].data[v] = (uint64_t)(v * 2 % 140000) + 1;
        m.d[1].time[v] = v % 3;
    }
    for (uint32_t v = 0; v < 70000; v += 2) {
        m.d[2].data[v] = m.d[1].data[v];
        m.d[2].time[v] = m.d[1].time[v];
    }
    for (uint32_t v = 1; v < VMAX; v += 97) {
        m.d[3].data[v] = 140001 + v / 97 + 1;
        m.d[3].time[v] = 2;
    }
    uint64_t counts[MAXDEV] = { 0 };
    for (int i = 1; i < MAXDEV; i++)
        for (uint32_t v = 0; v < VMAX; v++)
            counts[i] += m.d[i].data[v] != 0;
    int ids[] = { 1, 2, 3, 5 };
    FILE *f = fopen(xml, "w");
    fprintf(f, "<superblock uuid=\"\" time=\"3\" transaction=\"7\" data_block_size=\"128\" nr_data_blocks=\"200000\">\n");
    for (int k = 0; k < 4; k++) {
        struct mdev *d = &m.d[ids[k]];
        d->exists = true;
        d->mapped = counts[ids[k]];
        d->trans = (uint64_t)k;
        d->ctime = (uint32_t)k;
        d->stime = (uint32_t)(k + 1);
        fprintf(f, "<device dev_id=\"%d\" mapped_blocks=\"%llu\" transaction=\"%d\" creation_time=\"%d\" snap_time=\"%d\">\n",
                ids[k], (unsigned long long)d->mapped, k, k, k + 1);
        for (uint32_t v = 0; v < VMAX; v++)
            if (d->data[v])
                fprintf(f, "<single_mapping origin_block=\"%u\" data_block=\"%llu\" time=\"%u\"/>\n", v,
                        (unsigned long long)(d->data[v] - 1), d->time[v]);
        fprintf(f, "</device>\n");
    }
    fprintf(f, "</superblock>\n");
    fclose(f);
    int fd = open_file(meta, true, 64ull << 20);
    close(fd);
    snprintf(cmd, sizeof(cmd), TOOLS "thin_restore -q -i %s -o %s >/dev/null 2>&1", xml, meta);
    is_int(run(cmd), 0, "thin_restore writes the generated XML");
    check_reopen(meta, &m, "thin_restore's metadata");

    /* lookups, and the tree really has three levels */
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    fd = open_file(meta, false, 0);
    ok(lvx_thin_meta_open(&ctx, pool, fd, file_size(meta), true, &tm) == 0, "opened read-write");
    uint64_t data = 0;
    uint32_t time = 9;
    bool all = true;
    for (uint32_t v = 0; v < VMAX && tm; v += 13) {
        int r = lvx_thin_lookup(tm, 2, v, &data, &time);
        if (r != (m.d[2].data[v] != 0) || (r == 1 && (data + 1 != m.d[2].data[v] || time != m.d[2].time[v])))
            all = false;
    }
    ok(all, "lookups of device 2 agree with the XML");
    /* the lookup from cached blocks only: the same answers once the blocks are read */
    all = true;
    for (uint32_t v = 0; v < VMAX && tm; v += 13) {
        uint64_t d2 = 0;
        uint32_t t2 = 0;
        int r = lvx_thin_lookup(tm, 2, v, &data, &time);
        int c = lvx_thin_lookup_cached(tm, 2, v, &d2, &t2);
        if (c != r || (r == 1 && (d2 != data || t2 != time)))
            all = false;
    }
    ok(all, "lvx_thin_lookup_cached agrees with lvx_thin_lookup");
    size_t i2 = 0;
    while (tm && i2 < tm->ndevs && tm->devs[i2].id != 2)
        i2++;
    if (tm && i2 < tm->ndevs) {
        uint64_t root2 = tm->devs[i2].root;
        uint8_t *keep = tm->cache[root2];
        tm->cache[root2] = NULL;                 /* as if never read */
        is_int(lvx_thin_lookup_cached(tm, 2, 0, &data, &time), -EAGAIN,
               "a block not in the cache: EAGAIN (nothing read)");
        ok(tm->cache[root2] == NULL, "... and nothing cached by it");
        tm->cache[root2] = keep;
    } else {
        ok(false, "device 2 in the handle");
    }
    is_int(tm ? lvx_thin_lookup_cached(tm, 4, 0, &data, &time) : 0, -EAGAIN,
           "a missing device, cached lookup: EAGAIN");
    is_int(tm ? lvx_thin_lookup(tm, 4, 0, &data, &time) : 0, -ENOENT, "a missing device: ENOENT");
    struct lvx_thin_info info;
    if (tm) {
        lvx_thin_meta_info(tm, &info);
        is_int(info.version, 1, "thin_restore writes version 1");
        is_int(info.data_used, 70000 + counts[3], "data blocks in use: 70000 + device 3's");
        uint64_t root = tm->devs[0].root;
        uint8_t *n = tm_get(tm, root, TM_NODE_XOR);
        uint8_t *c = n ? tm_get(tm, lvx_get_le64(n + 32 + 8 * 252), TM_NODE_XOR) : NULL;
        ok(n && c && lvx_get_le32(n + 4) == TM_NODE_INTERNAL && lvx_get_le32(c + 4) == TM_NODE_INTERNAL,
           "device 1's tree has three levels");
        /* lvx changes thin_restore's metadata: thin_check still passes */
        for (uint32_t v = 0; v < 70000; v += 3) {
            if (m.d[2].data[v]) {
                lvx_thin_remove(tm, 2, v);
                m.d[2].data[v] = 0;
                m.d[2].mapped--;
            }
        }
        ok(lvx_thin_delete(tm, 3) == 0, "delete device 3");
        m.d[3].exists = false;
        is_int(lvx_thin_commit(tm), 0, "commit");
        check_tools(meta, &m, "lvx's changes to thin_restore's metadata");
    }
    close(fd);
    lvx_pool_destroy(pool);
    model_free(&m);
}

/* ---- 3. lvx formats and writes ---- */
static bool map_new(struct lvx_thin_meta *tm, struct model *m, uint64_t id, uint32_t v)
{
    uint64_t d;
    if (lvx_thin_map_new(tm, id, v, &d) != 0)
        return false;
    if (!m->d[id].data[v])
        m->d[id].mapped++;
    m->d[id].data[v] = d + 1;
    m->d[id].time[v] = m->time;
    return true;
}

static bool discard(struct lvx_thin_meta *tm, struct model *m, uint64_t id, uint32_t v)
{
    int r = lvx_thin_remove(tm, id, v);
    if (r != (m->d[id].data[v] != 0))
        return false;
    if (r == 1) {
        m->d[id].data[v] = 0;
        m->d[id].mapped--;
    }
    return true;
}

static void create_thin(struct lvx_thin_meta *tm, struct model *m, uint64_t id)
{
    ok(lvx_thin_create_thin(tm, id) == 0, "create_thin %llu", (unsigned long long)id);
    m->d[id].exists = true;
    m->d[id].trans = m->trans;
    m->d[id].ctime = m->d[id].stime = m->time;
}

static void create_snap(struct lvx_thin_meta *tm, struct model *m, uint64_t id, uint64_t origin)
{
    ok(lvx_thin_create_snap(tm, id, origin) == 0, "create_snap %llu %llu", (unsigned long long)id,
       (unsigned long long)origin);
    m->time++;
    struct mdev *d = &m->d[id], *o = &m->d[origin];
    memcpy(d->data, o->data, VMAX * sizeof(uint64_t));
    memcpy(d->time, o->time, VMAX * sizeof(uint32_t));
    d->exists = true;
    d->mapped = o->mapped;
    d->trans = m->trans;
    d->ctime = d->stime = o->stime = m->time;
}

static bool same_sharing(struct lvx_thin_meta *tm, const struct model *m)
{
    /* the data space map's counts are the number of mappings of each block */
    uint32_t *want = calloc(tm->nr_data, sizeof(uint32_t));
    for (int i = 0; i < MAXDEV; i++)
        if (m->d[i].exists)
            for (uint32_t v = 0; v < VMAX; v++)
                if (m->d[i].data[v])
                    want[m->d[i].data[v] - 1]++;
    bool same = true;
    uint64_t bad = 0;
    for (uint64_t b = 0; b < tm->nr_data; b++)
        if ((want[b] != 0) != (tm->drc[b] != 0) || tm->drc[b] > want[b]) {
            same = false;
            bad = b;
            break;
        }
    if (!same)
        tap_diag("data block %llu: count %u, %u mappings", (unsigned long long)bad, tm->drc[bad], want[bad]);
    free(want);
    return same;
}

/* The checks can fail: a reference count lvx gets wrong on purpose is caught. */
static void check_mutation(const char *meta, const struct model *m)
{
    char bad[96], cmd[256];
    snprintf(bad, sizeof(bad), "%s/mut.meta", dir);
    snprintf(cmd, sizeof(cmd), "cp %s %s", meta, bad);
    run(cmd);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    int fd = open_file(bad, false, 0);
    if (lvx_thin_meta_open(&ctx, pool, fd, file_size(bad), true, &tm) == 0) {
        tm->mrc[tm->devs[0].root]++;        /* one reference too many */
        lvx_thin_commit(tm);
    }
    close(fd);
    lvx_pool_destroy(pool);
    snprintf(cmd, sizeof(cmd), TOOLS "thin_check -q %s >/dev/null 2>&1", bad);
    ok(run(cmd) != 0, "thin_check refuses a metadata block counted twice");

    snprintf(cmd, sizeof(cmd), "cp %s %s", meta, bad);
    run(cmd);
    pool = lvx_pool_create();
    fd = open_file(bad, false, 0);
    if (lvx_thin_meta_open(&ctx, pool, fd, file_size(bad), true, &tm) == 0) {
        for (uint32_t v = 0; v < VMAX; v++)
            if (m->d[4].data[v]) {
                tm->drc[m->d[4].data[v] - 1] = 0;   /* a mapped block counted free */
                break;
            }
        lvx_thin_commit(tm);
    }
    close(fd);
    lvx_pool_destroy(pool);
    ok(!data_counts_same(bad), "the data count check finds a mapped block counted free");
}

/* Data block counts as the kernel keeps them: one per leaf holding the block, a leaf
 * shared by several trees counted once (thin_check 0.9 does not check them). */
static void count_refs(struct lvx_thin_meta *tm, uint64_t b, uint8_t *seen, uint32_t *want)
{
    if (seen[b])
        return;
    seen[b] = 1;
    uint8_t *n = tm_get(tm, b, TM_NODE_XOR);
    if (!n)
        return;
    uint32_t nr = lvx_get_le32(n + 16), max = lvx_get_le32(n + 20);
    for (uint32_t i = 0; i < nr; i++) {
        uint64_t v = lvx_get_le64(n + 32 + 8 * max + 8 * i);
        if (lvx_get_le32(n + 4) == TM_NODE_LEAF)
            want[v >> 24]++;
        else
            count_refs(tm, v, seen, want);
    }
}

static bool data_counts_same(const char *meta)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    int fd = open_file(meta, false, 0);
    bool same = false;
    if (lvx_thin_meta_open(&ctx, pool, fd, file_size(meta), false, &tm) == 0) {
        uint8_t *seen = calloc(tm->nr_meta, 1);
        uint32_t *want = calloc(tm->nr_data, sizeof(uint32_t));
        for (size_t i = 0; i < tm->ndevs; i++)
            count_refs(tm, tm->devs[i].root, seen, want);
        same = memcmp(want, tm->drc, tm->nr_data * sizeof(uint32_t)) == 0;
        for (uint64_t b = 0, shown = 0; b < tm->nr_data && shown < 8; b++)
            if (want[b] != tm->drc[b] && ++shown)
                fprintf(stderr, "# data block %llu: %u leaves map it, the space map counts %u\n",
                        (unsigned long long)b, want[b], tm->drc[b]);
        free(seen);
        free(want);
    } else {
        fprintf(stderr, "# %s: %s\n", meta, ctx.errmsg);
    }
    close(fd);
    lvx_pool_destroy(pool);
    return same;
}

static void check_data_counts(const char *meta, const char *what)
{
    ok(data_counts_same(meta), "%s: the data space map on disk counts the leaves of every block", what);
}

/* set_transaction_id N-1 N, commit N, check it with the tools. */
static void commit_step(struct lvx_thin_meta *tm, struct model *m, const char *meta, uint64_t n)
{
    char what[32];
    snprintf(what, sizeof(what), "commit %llu", (unsigned long long)n);
    is_int(lvx_thin_set_transaction_id(tm, n - 1, n), 0, "set_transaction_id %llu %llu",
           (unsigned long long)n - 1, (unsigned long long)n);
    m->trans = n;
    is_int(lvx_thin_commit(tm), 0, "%s", what);
    check_tools(meta, m, what);
}

static void test_write(void)
{
    char meta[96];
    snprintf(meta, sizeof(meta), "%s/w.meta", dir);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    struct model m;
    model_init(&m);
    m.nr_data = 40000;
    int fd = open_file(meta, true, 8ull << 20);
    int r = lvx_thin_meta_format(&ctx, pool, fd, 8ull << 20, 128, 40000, &tm);
    if (!ok(r == 0, "format 8 MiB of metadata for 40000 blocks of 64 KiB")) {
        tap_diag("%s", ctx.errmsg);
        return;
    }
    check_tools(meta, &m, "empty metadata");
    struct lvx_thin_info info;
    lvx_thin_meta_info(tm, &info);
    is_int(info.nr_meta, 2048, "2048 metadata blocks");
    is_int(info.version, 2, "version 2");

    create_thin(tm, &m, 1);
    bool all = true;
    for (uint32_t i = 0; i < 6000; i++)
        all &= map_new(tm, &m, 1, i * 7919u % 20000u);
    ok(all, "6000 mappings in device 1, scattered");
    commit_step(tm, &m, meta, 1);

    create_snap(tm, &m, 2, 1);
    all = true;
    for (uint32_t v = 0; v < 20000 && all; v += 5)
        if (m.d[2].data[v])
            all &= map_new(tm, &m, 2, v);       /* writes to the snapshot break sharing */
    for (uint32_t v = 20000; v < 21000 && all; v++)
        all &= map_new(tm, &m, 2, v);
    for (uint32_t v = 1; v < 20000 && all; v += 11)
        all &= discard(tm, &m, 1, v);           /* discards in the origin */
    ok(all, "snapshot rewrites and new blocks, origin discards");
    ok(same_sharing(tm, &m), "data block counts follow the sharing");
    create_thin(tm, &m, 3);
    for (uint32_t v = 0; v < 3000 && all; v++)
        all &= map_new(tm, &m, 3, v);
    ok(all, "3000 mappings in device 3");
    commit_step(tm, &m, meta, 2);

    create_snap(tm, &m, 4, 2);
    ok(lvx_thin_delete(tm, 3) == 0, "delete 3");
    m.d[3].exists = false;
    ok(lvx_thin_delete(tm, 1) == 0, "delete 1 (its blocks shared with 2 stay)");
    m.d[1].exists = false;
    all = true;
    for (uint32_t v = 0; v < 21000 && all; v += 2)
        all &= discard(tm, &m, 4, v);
    for (uint32_t v = 0; v < 21000 && all; v += 3)
        all &= discard(tm, &m, 2, v);
    ok(all, "discards in both snapshots, merging and evening out nodes");
    ok(same_sharing(tm, &m), "data block counts after deletes and discards");
    is_int(lvx_thin_set_transaction_id(tm, 5, 6), -EINVAL, "set_transaction_id with a wrong old id refused");
    is_int(lvx_thin_create_thin(tm, 2), -EEXIST, "create_thin of an existing id refused");
    is_int(lvx_thin_create_snap(tm, 6, 9), -ENOENT, "create_snap of a missing origin refused");
    is_int(lvx_thin_commit(tm), 0, "commit 3");
    check_tools(meta, &m, "commit 3");
    check_reopen(meta, &m, "commit 3");
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "cp %s %s/c.meta", meta, dir);
    is_int(run(cmd), 0, "commit 3 kept for the crash tests");

    /* freed blocks come back: fill the pool to the end */
    lvx_thin_meta_info(tm, &info);
    uint64_t free_blocks = info.nr_data - info.data_used, got = 0;
    uint64_t d;
    for (uint32_t v = 30000; v < VMAX && lvx_thin_map_new(tm, 4, v, &d) == 0; v++) {
        m.d[4].data[v] = d + 1;
        m.d[4].time[v] = m.time;
        m.d[4].mapped++;
        got++;
    }
    is_int(got, free_blocks, "every free data block handed out");
    is_int(ctx.err, -ENOSPC, "then ENOSPC: %s", ctx.errmsg);
    is_int(lvx_thin_commit(tm), 0, "commit 4 (pool full)");
    check_mutation(meta, &m);
    check_tools(meta, &m, "commit 4");
    close(fd);
    lvx_pool_destroy(pool);
    model_free(&m);
}

/* ---- 3b. growth, messages, sharing ---- */
static void test_grow(void)
{
    char meta[96];
    snprintf(meta, sizeof(meta), "%s/w.meta", dir);
    struct model m;
    model_init(&m);
    ok(dump_model(meta, &m), "the last commit of the write test");
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    int fd = open_file(meta, false, 0);
    if (!ok(fd >= 0 && ftruncate(fd, 16 << 20) == 0 &&
            lvx_thin_meta_open(&ctx, pool, fd, 8 << 20, true, &tm) == 0, "reopened read-write")) {
        model_free(&m);
        return;
    }
    uint32_t shared_v = VMAX, own_v = VMAX;
    for (uint32_t v = 0; v < VMAX; v++) {
        if (shared_v == VMAX && m.d[2].data[v] && m.d[2].data[v] == m.d[4].data[v])
            shared_v = v;
        if (own_v == VMAX && v >= 30000 && m.d[4].data[v])
            own_v = v;
    }
    ok(shared_v < VMAX && lvx_thin_data_shared(tm, m.d[2].data[shared_v] - 1),
       "a block of snapshot 4 still in device 2 is shared");
    ok(own_v < VMAX && !lvx_thin_data_shared(tm, m.d[4].data[own_v] - 1), "a block only snapshot 4 maps is not");
    is_int(lvx_thin_resize_data(tm, 30000), -EINVAL, "the data cannot shrink: %s", ctx.errmsg);
    is_int(lvx_thin_resize_data(tm, 50000), 0, "data grown to 50000 blocks");
    is_int(lvx_thin_resize_meta(tm, 16 << 20), 0, "metadata grown to 16 MiB");
    bool all = true;
    for (uint32_t v = 0; v < 500; v++)
        all &= map_new(tm, &m, 4, v);
    ok(all, "500 blocks mapped in the new data space");
    is_int(lvx_thin_message(tm, "create_thin 6"), 0, "message create_thin 6");
    m.d[6] = (struct mdev){ true, 0, m.trans, m.time, m.time, m.d[6].data, m.d[6].time };
    is_int(lvx_thin_message(tm, "create_snap 7 4"), 0, "message create_snap 7 4");
    is_int(lvx_thin_message(tm, "delete 7"), 0, "message delete 7");
    m.time++;
    m.d[4].stime = m.time;
    is_int(lvx_thin_message(tm, "set_transaction_id 2 9"), 0, "message set_transaction_id 2 9");
    m.trans = 9;
    is_int(lvx_thin_message(tm, "create_thin 16777216"), -EINVAL, "an id of 25 bits refused: %s", ctx.errmsg);
    is_int(lvx_thin_message(tm, "create_thin"), -EINVAL, "a message without its id refused");
    is_int(lvx_thin_message(tm, "reserve_metadata_snap"), -EINVAL, "metadata snapshots not supported");
    is_int(lvx_thin_commit(tm), 0, "commit after growing");
    check_tools(meta, &m, "grown pool");
    struct lvx_thin_info info;
    lvx_thin_meta_info(tm, &info);
    is_int(info.nr_meta, 4096, "4096 metadata blocks");
    struct model g;
    model_init(&g);
    is_int(dump_model(meta, &g) ? g.nr_data : 0, 50000, "thin_dump shows 50000 data blocks");
    model_free(&g);
    close(fd);
    lvx_pool_destroy(pool);
    model_free(&m);
}

/* ---- 4. interrupted transactions ---- */
struct failing {
    struct lvx_dev_ops ops;
    int writes, fail_at;      /* fail the fail_at-th write (1-based) and all after;
                               * -1: the write of the superblock */
};

static struct failing failing;

static ssize_t failing_pwrite(void *arg, int fd, const void *buf, size_t len, uint64_t off)
{
    if (failing.fail_at < 0 ? off == 0 : ++failing.writes >= failing.fail_at)
        return -EIO;
    return lvx_dev_ops_default()->pwrite(lvx_dev_ops_default()->arg, fd, buf, len, off);
}

static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    *n = (size_t)file_size(path);
    char *b = malloc(*n ? *n : 1);
    if (f) {
        *n = fread(b, 1, *n, f);
        fclose(f);
    }
    return b;
}

/* One transaction on top of the committed model; not committed or committed with a
 * write failing at fail_at (0 = not committed). */
static void crash_case(const char *meta, const struct model *committed, int fail_at)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    struct model m;
    model_init(&m);
    model_copy(&m, committed);
    size_t n0, n1;
    char *before = read_all(meta, &n0);
    int fd = open_file(meta, false, 0);
    ok(lvx_thin_meta_open(&ctx, pool, fd, file_size(meta), true, &tm) == 0, "open for the transaction");
    bool all = tm != NULL;
    if (tm) {
        lvx_thin_create_snap(tm, 5, 4);
        for (uint32_t v = 0; v < 4000 && all; v++)
            all &= map_new(tm, &m, 5, v);
        lvx_thin_delete(tm, 2);
        all &= lvx_thin_set_transaction_id(tm, committed->trans, committed->trans + 1) == 0;
    }
    char what[64];
    if (fail_at) {
        if (fail_at < 0)
            snprintf(what, sizeof(what), "commit failing at the superblock write");
        else
            snprintf(what, sizeof(what), "commit failing at write %d", fail_at);
        failing.ops = *lvx_dev_ops_default();
        failing.ops.pwrite = failing_pwrite;
        failing.writes = 0;
        failing.fail_at = fail_at;
        ctx.io = &failing.ops;
        ok(all && lvx_thin_commit(tm) == -EIO, "%s: the commit fails", what);
        ctx.io = NULL;
        is_int(tm ? lvx_thin_map_new(tm, 5, 1, &(uint64_t){ 0 }) : 0, -EIO, "%s: then the handle refuses changes", what);
    } else {
        snprintf(what, sizeof(what), "transaction not committed");
        char *after = read_all(meta, &n1);
        ok(all && n0 == n1 && memcmp(before, after, n0) == 0, "%s: nothing written", what);
        free(after);
    }
    close(fd);
    free(before);
    check_tools(meta, committed, what);
    check_reopen(meta, committed, what);
    model_free(&m);
    lvx_pool_destroy(pool);
}

static void test_crash(void)
{
    char meta[96];
    snprintf(meta, sizeof(meta), "%s/c.meta", dir);
    struct model m;
    model_init(&m);
    if (!ok(dump_model(meta, &m), "commit 3 of the write test")) {
        model_free(&m);
        return;
    }
    crash_case(meta, &m, 0);
    crash_case(meta, &m, 1);
    crash_case(meta, &m, 20);
    crash_case(meta, &m, -1);      /* everything but the superblock written */
    model_free(&m);
}

/* ---- 5. bad input ---- */
static int count_entry(void *arg, uint64_t vblock, uint64_t data, uint32_t time)
{
    (*(uint64_t *)arg)++;
    return 0;
}

static void corrupt_case(const char *meta, uint64_t off, uint8_t val, uint32_t reseal, const char *want,
                         const char *what)
{
    char bad[96];
    snprintf(bad, sizeof(bad), "%s/bad.meta", dir);
    size_t n;
    char *img = read_all(meta, &n);
    img[off] = (char)val;
    if (reseal)
        tm_seal((uint8_t *)img + off / TM_BLOCK * TM_BLOCK, reseal);
    FILE *f = fopen(bad, "wb");
    fwrite(img, 1, n, f);
    fclose(f);
    free(img);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    int fd = open_file(bad, false, 0);
    int r = lvx_thin_meta_open(&ctx, pool, fd, n, false, &tm);
    if (r == 0 && tm) {
        /* a damaged node shows when it is read */
        for (size_t i = 0; i < tm->ndevs && r == 0; i++)
            r = lvx_thin_walk(tm, tm->devs[i].id, count_entry, &(uint64_t){ 0 });
    }
    ok(r == -EINVAL && strstr(ctx.errmsg, want), "%s refused: %s", what, ctx.errmsg);
    close(fd);
    lvx_pool_destroy(pool);
}

static void test_bad(void)
{
    char meta[96];
    snprintf(meta, sizeof(meta), "%s/w.meta", dir);
    corrupt_case(meta, 32, 0x55, 0, "wrong superblock magic", "wrong magic");
    corrupt_case(meta, 48, 0x77, 0, "bad superblock checksum", "a changed transaction id");
    corrupt_case(meta, 40, 3, TM_SB_XOR, "unsupported version 3", "version 3");
    corrupt_case(meta, 336, 100, TM_SB_XOR, "invalid data block size", "data block size 100");
    /* a byte of device 4's mapping tree root */
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    int fd = open_file(meta, false, 0);
    uint64_t root = 0;
    if (lvx_thin_meta_open(&ctx, pool, fd, file_size(meta), false, &tm) == 0)
        root = tm->devs[0].root;
    close(fd);
    lvx_pool_destroy(pool);
    corrupt_case(meta, root * TM_BLOCK + 100, 0xEE, 0, "bad checksum in btree node", "a damaged mapping node");
    /* a leaf of that tree mapping a data block beyond the pool (checksum right) */
    pool = lvx_pool_create();
    fd = open_file(meta, false, 0);
    uint64_t leaf = root, max = 0;
    if (lvx_thin_meta_open(&ctx, pool, fd, file_size(meta), false, &tm) == 0) {
        uint8_t *n;
        while ((n = tm_get(tm, leaf, TM_NODE_XOR)) && lvx_get_le32(n + 4) == TM_NODE_INTERNAL)
            leaf = lvx_get_le64(n + 32 + 8 * (size_t)lvx_get_le32(n + 20));
        max = n ? lvx_get_le32(n + 20) : 0;
    }
    close(fd);
    lvx_pool_destroy(pool);
    corrupt_case(meta, leaf * TM_BLOCK + 32 + 8 * max + 7, 0xFF, TM_NODE_XOR, "beyond the",
                 "a mapping to a data block beyond the pool");
    char zero[96], cmd[200];
    snprintf(zero, sizeof(zero), "%s/zero.meta", dir);
    fd = open_file(zero, true, 1 << 20);
    pool = lvx_pool_create();
    is_int(lvx_thin_meta_open(&ctx, pool, fd, 1 << 20, false, &tm), -EINVAL, "zeroed metadata: %s", ctx.errmsg);
    is_int(lvx_thin_meta_format(&ctx, pool, fd, 1 << 20, 100, 10, &tm), -EINVAL, "format with 100-sector blocks: %s", ctx.errmsg);
    close(fd);
    lvx_pool_destroy(pool);
    snprintf(cmd, sizeof(cmd), getenv("THINMETA_KEEP") ? "true %s" : "rm -rf %s", dir);
    run(cmd);
}

/* ---- driver of the kernel round trip (tests/kernel/thin_meta.sh in a guest) ----
 * Data block d holds the 64-bit word d + 1 everywhere (written by lvx's side), so a
 * read through the kernel's thin device shows which data block it mapped. */
#define KBLOCK (64u * 1024u)

static int write_pattern(int fd, uint64_t d)
{
    static uint64_t w[KBLOCK / 8];
    for (size_t i = 0; i < KBLOCK / 8; i++)
        w[i] = d + 1;
    return pwrite(fd, w, KBLOCK, (off_t)(d * KBLOCK)) == (ssize_t)KBLOCK ? 0 : -1;
}

static int drv_fail(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, ctx.errmsg[0] ? ctx.errmsg : strerror(errno));
    return 1;
}

static int drv_open(const char *path, bool rw, struct lvx_pool *pool, struct lvx_thin_meta **tm)
{
    int fd = open(path, rw ? O_RDWR : O_RDONLY);
    uint64_t size = fd >= 0 ? (uint64_t)lseek(fd, 0, SEEK_END) : 0;
    if (fd < 0 || lvx_thin_meta_open(&ctx, pool, fd, size, rw, tm) != 0)
        return -1;
    return fd;
}

/* format-fill META DATA: thin 1 (vblocks 0..299), snapshot 2 of 1 with 60 rewritten
 * and 40 new blocks, thin 5 (vblocks 100..149); transaction 3. */
static int drv_format(const char *meta, const char *data)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    int mfd = open(meta, O_RDWR), dfd = open(data, O_RDWR);
    if (mfd < 0 || dfd < 0)
        return drv_fail("open");
    uint64_t msize = (uint64_t)lseek(mfd, 0, SEEK_END), dsize = (uint64_t)lseek(dfd, 0, SEEK_END);
    if (lvx_thin_meta_format(&ctx, pool, mfd, msize, 128, dsize / KBLOCK, &tm) != 0)
        return drv_fail("format");
    uint64_t d;
    int r = lvx_thin_create_thin(tm, 1);
    for (uint32_t v = 0; v < 300 && !r; v++)
        if (!(r = lvx_thin_map_new(tm, 1, v, &d)))
            r = write_pattern(dfd, d);
    r = r ? r : lvx_thin_create_snap(tm, 2, 1);
    for (uint32_t v = 0; v < 400 && !r; v += v < 300 ? 5 : 1)
        if (!(r = lvx_thin_map_new(tm, 2, v, &d)))
            r = write_pattern(dfd, d);
    r = r ? r : lvx_thin_create_thin(tm, 5);
    for (uint32_t v = 100; v < 150 && !r; v++)
        if (!(r = lvx_thin_map_new(tm, 5, v, &d)))
            r = write_pattern(dfd, d);
    if (r || lvx_thin_set_transaction_id(tm, 0, 3) || lvx_thin_commit(tm) || fsync(dfd))
        return drv_fail("format-fill");
    close(mfd);
    close(dfd);
    lvx_pool_destroy(pool);
    return 0;
}

/* verify META THINDEV ID FROM TO: each vblock of [FROM, TO) read through the kernel
 * holds the pattern of the data block lvx maps it to, or zeros when lvx maps none. */
static int drv_verify(const char *meta, const char *thin, uint64_t id, uint32_t from, uint32_t to)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    int mfd = drv_open(meta, false, pool, &tm), tfd = open(thin, O_RDONLY);
    if (mfd < 0 || tfd < 0)
        return drv_fail("open");
    static uint64_t w[KBLOCK / 8];
    int bad = 0;
    for (uint32_t v = from; v < to; v++) {
        uint64_t d = 0, want;
        uint32_t t;
        int r = lvx_thin_lookup(tm, id, v, &d, &t);
        if (r < 0)
            return drv_fail("lookup");
        want = r ? d + 1 : 0;
        if (pread(tfd, w, KBLOCK, (off_t)v * KBLOCK) != (ssize_t)KBLOCK)
            return drv_fail("read");
        for (size_t i = 0; i < KBLOCK / 8; i++)
            if (w[i] != want) {
                if (bad++ < 5)
                    fprintf(stderr, "thin %llu vblock %u: word %zu is %llu, lvx maps data block %s%llu\n",
                            (unsigned long long)id, v, i, (unsigned long long)w[i], r ? "" : "(none) ",
                            (unsigned long long)d);
                break;
            }
    }
    close(mfd);
    close(tfd);
    lvx_pool_destroy(pool);
    return bad != 0;
}

/* check META: lvx reads the devices and mappings thin_dump reads. */
static int drv_check(const char *meta)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    int fd = drv_open(meta, false, pool, &tm);
    if (fd < 0)
        return drv_fail("open");
    struct model a, b;
    model_init(&a);
    model_init(&b);
    int bad = !lvx_model(tm, &a) || !dump_model(meta, &b);
    const char *why = bad ? "cannot read" : model_diff(&a, &b);
    if (*why) {
        fprintf(stderr, "lvx vs thin_dump: %s\n", why);
        bad = 1;
    }
    model_free(&a);
    model_free(&b);
    close(fd);
    lvx_pool_destroy(pool);
    return bad;
}

/* modify META DATA ID DELETE: lvx maps vblocks 1000..1099 of ID to new data blocks,
 * deletes device DELETE, transaction +1, commits. */
static int drv_modify(const char *meta, const char *data, uint64_t id, uint64_t del)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_thin_meta *tm = NULL;
    int mfd = drv_open(meta, true, pool, &tm), dfd = open(data, O_RDWR);
    if (mfd < 0 || dfd < 0)
        return drv_fail("open");
    struct lvx_thin_info info;
    lvx_thin_meta_info(tm, &info);
    uint64_t d;
    int r = 0;
    for (uint32_t v = 1000; v < 1100 && !r; v++)
        if (!(r = lvx_thin_map_new(tm, id, v, &d)))
            r = write_pattern(dfd, d);
    if (r || lvx_thin_delete(tm, del) || lvx_thin_set_transaction_id(tm, info.trans_id, info.trans_id + 1) ||
        lvx_thin_commit(tm) || fsync(dfd))
        return drv_fail("modify");
    close(mfd);
    close(dfd);
    lvx_pool_destroy(pool);
    return 0;
}

static int driver(int argc, char **argv)
{
    const char *m = argv[1];
    if (argc == 4 && !strcmp(m, "format-fill"))
        return drv_format(argv[2], argv[3]);
    if (argc == 7 && !strcmp(m, "verify"))
        return drv_verify(argv[2], argv[3], strtoull(argv[4], NULL, 10), (uint32_t)atoi(argv[5]),
                          (uint32_t)atoi(argv[6]));
    if (argc == 3 && !strcmp(m, "check"))
        return drv_check(argv[2]);
    if (argc == 3 && !strcmp(m, "counts"))
        return !data_counts_same(argv[2]);
    if (argc == 6 && !strcmp(m, "modify"))
        return drv_modify(argv[2], argv[3], strtoull(argv[4], NULL, 10), strtoull(argv[5], NULL, 10));
    fprintf(stderr, "usage: %s [format-fill META DATA | verify META THIN ID FROM TO | check|counts META |"
                    " modify META DATA ID DELETE]\n", argv[0]);
    return 2;
}

int main(int argc, char **argv)
{
    lvx_ctx_init(&ctx);
    if (argc > 1)
        return driver(argc, argv);
    test_crc();
    if (!have_tools()) {
        tap_skip("thin-provisioning-tools not installed");
        return tap_done();
    }
    snprintf(dir, sizeof(dir), "/tmp/lvx-thinmeta-XXXXXX");
    if (!mkdtemp(dir)) {
        ok(0, "temporary directory");
        return tap_done();
    }
    test_restore();
    test_write();
    test_grow();
    test_crash();
    test_bad();
    return tap_done();
}
