/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_cow_store.c - the COW snapshot exception store in the kernel's
 * persistent format (map/cow_store.c): the header bytes of docs/dm-formats.md §7's
 * example, area locations, allocation stepping over metadata chunks, ENOSPC at the
 * COW's end, records committed into an area and read back by a second store (as a
 * restarted daemon or the kernel loads them), a full area followed by the next one,
 * corrupt records refused, and the usage numbers of the kernel's status line; the
 * merge: records leave from the store's end, area by area, the table and the usage
 * follow, and a store loaded from the areas in the middle of a merge holds exactly
 * the records left (a merge interrupted by a crash resumes from there).
 */
#include "map/cow_store.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void test_header(void)
{
    uint8_t b[4096];
    lvx_cow_header_encode(b, sizeof(b), true, 8);
    static const uint8_t want[16] = { 0x53, 0x6e, 0x41, 0x70, 1, 0, 0, 0, 1, 0, 0, 0, 8, 0, 0, 0 };
    ok(memcmp(b, want, 16) == 0, "header bytes as dm-formats.md's example (SnAp, 1, 1, 8)");
    struct lvx_cow_header h;
    lvx_cow_header_decode(b, &h);
    is_int(lvx_cow_header_check(&h), 1, "an existing store");
    lvx_cow_header_encode(b, sizeof(b), false, 16);
    lvx_cow_header_decode(b, &h);
    is_int(h.valid, 0, "invalid header: valid 0");
    is_int(h.chunk, 16, "chunk size kept");
    memset(b, 0, 16);
    lvx_cow_header_decode(b, &h);
    is_int(lvx_cow_header_check(&h), 0, "magic 0: a new store");
    b[0] = 'X';
    lvx_cow_header_decode(b, &h);
    is_int(lvx_cow_header_check(&h), -EINVAL, "another magic: refused");
    lvx_cow_header_encode(b, sizeof(b), true, 8);
    b[8] = 2;
    lvx_cow_header_decode(b, &h);
    is_int(lvx_cow_header_check(&h), -EINVAL, "version 2: refused");
    lvx_cow_header_encode(b, sizeof(b), true, 12);
    lvx_cow_header_decode(b, &h);
    is_int(lvx_cow_header_check(&h), -EINVAL, "chunk size 12 (no power of two): refused");
}

static void test_alloc_commit_load(void)
{
    /* 4 KiB chunks: 256 records an area, area a at chunk 1 + 257 a */
    struct lvx_cow s, t;
    uint64_t sectors = 600 * 8;          /* 600 chunks */
    is_int(lvx_cow_init(&s, 8, sectors, 1000), 0, "init");
    is_int(s.epa, 256, "256 records per 4 KiB area");
    is_int(lvx_cow_area_chunk(&s, 0), 1, "area 0 at chunk 1");
    is_int(lvx_cow_area_chunk(&s, 1), 258, "area 1 at chunk 258");
    uint8_t *area = calloc(1, 4096), *areas[3] = { NULL, NULL, NULL };
    uint64_t c = 0, got[600];
    unsigned n = 0, full = 0;
    while (lvx_cow_alloc(&s, &c) == 0) {
        got[n] = c;
        if (lvx_cow_commit(&s, area, 1000 + n, c)) {
            areas[full++] = area;
            lvx_cow_next_area(&s);
            area = calloc(1, 4096);
        }
        lvx_cow_insert(&s, 1000 + n, c);
        n++;
    }
    areas[full] = area;
    is_int(got[0], 2, "first data chunk 2");
    is_int(got[255], 257, "256th data chunk 257");
    is_int(got[256], 259, "the next steps over area 1 (chunk 258)");
    /* 600 chunks: header, areas 0 and 1 (area 2 at 515), data up to chunk 599 */
    is_int(n, 600 - 1 - 3, "every data chunk handed out, then ENOSPC");
    is_int(got[n - 1], 599, "the last chunk of the COW");
    is_int(lvx_cow_alloc(&s, &c), -ENOSPC, "a full COW: ENOSPC");
    is_int(full, 2, "two areas filled");
    is_int(lvx_cow_lookup(&s, 1000), 2, "lookup of the first record");
    is_int(lvx_cow_lookup(&s, 1000 + 300), got[300], "lookup in area 1");
    is_int(lvx_cow_lookup(&s, 5), 0, "no record: 0");
    uint64_t used, total, meta;
    lvx_cow_usage(&s, &used, &total, &meta);
    is_int(total, sectors, "usage: total = COW sectors");
    is_int(meta, (2 + 2) * 8, "usage: metadata = (area + 2) chunks");

    /* a second store loads the areas as the kernel does */
    is_int(lvx_cow_init(&t, 8, sectors, 1000), 0, "second store");
    int r = 1;
    for (unsigned a = 0; a < 3 && r == 1; a++) {
        r = lvx_cow_load_area(&t, areas[a]);
        if (r == 1)
            lvx_cow_next_area(&t);
    }
    is_int(r, 0, "the list ends in area 2");
    is_int(t.count, n, "every record loaded");
    is_int(t.next_free, s.next_free, "next free chunk recomputed");
    is_int(t.area, 2, "current area 2");
    is_int(t.committed, n - 512, "records of the current area");
    is_int(lvx_cow_lookup(&t, 1000 + 511), got[511], "a record of area 1 found");
    is_int(lvx_cow_alloc(&t, &c), -ENOSPC, "still full after loading");

    /* corrupt record: COW chunk of a metadata area */
    struct lvx_cow u;
    lvx_cow_init(&u, 8, sectors, 1000);
    uint8_t bad[4096] = { 0 };
    bad[0] = 7;
    bad[8] = 1;                          /* new chunk 1 = area 0 */
    is_int(lvx_cow_load_area(&u, bad), -EINVAL, "a record naming a metadata chunk: refused");
    lvx_cow_free(&u);
    lvx_cow_init(&u, 8, sectors, 1000);
    memset(bad, 0, sizeof(bad));
    bad[8] = 0x58;
    bad[9] = 0x02;                       /* 600: past the COW */
    is_int(lvx_cow_load_area(&u, bad), -EINVAL, "a record past the COW: refused");
    lvx_cow_free(&u);
    for (unsigned a = 0; a < 3; a++)
        free(areas[a]);
    lvx_cow_free(&s);
    lvx_cow_free(&t);
}

/* Load a store of `sectors` from the on-disk areas (the kernel's read). */
static int load_from(struct lvx_cow *t, uint64_t sectors, uint8_t *const *disk, unsigned areas)
{
    int r = 1;
    lvx_cow_init(t, 8, sectors, 1000);
    for (unsigned a = 0; a < areas && r == 1; a++) {
        r = lvx_cow_load_area(t, disk[a]);
        if (r == 1)
            lvx_cow_next_area(t);
    }
    return r;
}

static void test_merge(void)
{
    /* 700 records over areas 0 (256), 1 (256) and 2 (188); old chunk 5000 + i */
    const unsigned N = 700;
    uint64_t sectors = 800 * 8;
    struct lvx_cow s, t;
    lvx_cow_init(&s, 8, sectors, 1000);
    uint8_t *disk[4];
    for (unsigned a = 0; a < 4; a++)
        disk[a] = calloc(1, 4096);
    uint64_t newc[700], c;
    for (unsigned i = 0; i < N; i++) {
        lvx_cow_alloc(&s, &c);
        newc[i] = c;
        if (lvx_cow_commit(&s, disk[s.area], 5000 + i, c))
            lvx_cow_next_area(&s);
        lvx_cow_insert(&s, 5000 + i, c);
    }
    lvx_cow_free(&s);
    is_int(load_from(&s, sectors, disk, 4), 0, "merge: the store loaded (700 records)");
    is_int(s.area, 2, "... current area 2");

    uint8_t *buf = calloc(1, 4096);
    memcpy(buf, disk[s.area], 4096);
    uint64_t olds[100], news[100];
    unsigned left = N, steps = 0, order_ok = 1, lookup_ok = 1, resume_ok = 1;
    for (;;) {
        if (lvx_cow_merge_prev_area(&s))
            memcpy(buf, disk[s.area], 4096);         /* the caller reads the area */
        unsigned k = lvx_cow_merge_last(&s, buf, olds, news, 100);
        if (k == 0)
            break;
        for (unsigned i = 0; i < k; i++)
            if (olds[i] != 5000 + left - 1 - i || news[i] != newc[left - 1 - i])
                order_ok = 0;
        lvx_cow_merge_drop(&s, buf, k);
        memcpy(disk[s.area], buf, 4096);             /* the area written back */
        left -= k;
        steps++;
        for (unsigned i = 0; i < N; i += 7)
            if ((lvx_cow_lookup(&s, 5000 + i) != 0) != (i < left))
                lookup_ok = 0;
        if (s.count != left)
            lookup_ok = 0;
        /* a crash here: the kernel (or a restarted daemon) loads what is on disk */
        if (load_from(&t, sectors, disk, 4) != 0 || t.count != left ||
            (left && lvx_cow_lookup(&t, 5000 + left - 1) != newc[left - 1]) ||
            lvx_cow_lookup(&t, 5000 + left) != 0)
            resume_ok = 0;
        lvx_cow_free(&t);
    }
    is_int(left, 0, "merge: every record taken");
    ok(order_ok, "... from the end of the store, last record first, area by area");
    ok(lookup_ok, "... each taken record leaves the table, the others stay found");
    ok(resume_ok, "... the on-disk areas after every step load as the records left");
    is_int(steps, 2 + 3 + 3, "... in steps of at most 100 records within one area (188, 256, 256)");
    is_int(s.area, 0, "... back at area 0");
    uint64_t used, total, meta;
    lvx_cow_usage(&s, &used, &total, &meta);
    is_int(used, meta, "... the usage reads merged (allocated == metadata), as the kernel's");
    uint64_t z = 0;
    for (unsigned a = 0; a < 3; a++)
        for (unsigned i = 0; i < 4096; i++)
            z |= disk[a][i];
    is_int(z, 0, "... every record zeroed on disk");
    free(buf);
    for (unsigned a = 0; a < 4; a++)
        free(disk[a]);
    lvx_cow_free(&s);
}

/* A grown COW LV (lvextend): more chunks to hand out, and the table, sized for the
 * first COW's chunks, rebuilt so that more records fit; the old ones are kept. */
static void test_grow(void)
{
    struct lvx_cow s;
    uint64_t small = 64 * 8, big = 1024 * 8, nc = 0, n = 0;
    is_int(lvx_cow_init(&s, 8, small, 100000), 0, "a store of 64 chunks");
    while (lvx_cow_alloc(&s, &nc) == 0)
        lvx_cow_insert(&s, 1000 + n, nc), n++;
    ok(n > 50 && n < 64, "... full after %llu records", (unsigned long long)n);
    is_int(lvx_cow_grow(&s, small / 2, 100000), 0, "a smaller size: nothing done");
    is_int((long long)s.chunks, 64, "... still 64 chunks");
    is_int(lvx_cow_grow(&s, big, 100000), 0, "grown to 1024 chunks");
    uint64_t m = 0;
    while (lvx_cow_alloc(&s, &nc) == 0)
        lvx_cow_insert(&s, 1000 + n + m, nc), m++;
    ok(n + m > 1000, "... %llu records fit now", (unsigned long long)(n + m));
    bool kept = true;
    for (uint64_t i = 0; i < n + m; i++)
        kept &= lvx_cow_lookup(&s, 1000 + i) != 0;
    ok(kept, "... every record found after the table was rebuilt");
    is_int((long long)s.count, (long long)(n + m), "... counted once each");
    lvx_cow_free(&s);
}

int main(void)
{
    test_header();
    test_alloc_commit_load();
    test_merge();
    test_grow();
    return tap_done();
}
