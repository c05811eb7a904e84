/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_thin.c - model/thin.c: LVM2 2.03.16's thin pool parameters (default
 * chunk doubled while the metadata estimate passes 128 MiB, metadata rounded up to
 * extents with a 2 MiB floor, a given metadata size choosing the chunk, the data a
 * chunk size can address).  Expected values are what LVM2 chose in a VM for the same
 * sizes (tests/fixtures/lvm2-thin/capture-big-pools.txt, capture-log.txt), 4 MiB extents.
 */
#include "model/thin.h"

#include "tap.h"

#define E 8192u                         /* sectors per 4 MiB extent */

static void params(uint64_t data_mib, uint64_t meta_ext, uint32_t chunk, uint32_t want_chunk,
                   uint64_t want_meta_ext, const char *what)
{
    struct lvx_thin_params p = { .chunk = chunk, .meta_extents = meta_ext };
    int rc = lvx_thin_pool_params(data_mib / 4, E, &p);
    ok(rc == 0 && p.chunk == want_chunk && p.meta_extents == want_meta_ext,
       "%s: chunk %u sectors, metadata %llu extents (got %d, %u, %llu)", what, want_chunk,
       (unsigned long long)want_meta_ext, rc, p.chunk, (unsigned long long)p.meta_extents);
}

int main(void)
{
    params(16, 0, 0, 128, 1, "16 MiB pool: 64 KiB chunks, 4 MiB metadata (2 MiB floor, one extent)");
    params(1024, 0, 0, 128, 1, "1 GiB: 64 KiB, 4 MiB");
    params(10240, 0, 0, 128, 3, "10 GiB: 64 KiB, 12 MiB (10 MiB estimate rounded up)");
    params(102400, 0, 0, 128, 25, "100 GiB: 64 KiB, 100 MiB");
    params(307200, 0, 0, 512, 19, "300 GiB: 256 KiB, 76 MiB (chunk doubled twice)");
    params(1048576, 0, 0, 1024, 32, "1 TiB: 512 KiB, 128 MiB");
    params(10240, 1, 0, 512, 1, "10 GiB with 4 MiB metadata given: 256 KiB chunks");
    params(102400, 0, 512, 512, 7, "100 GiB with 256 KiB chunks given: 25 MiB -> 28 MiB");

    struct lvx_thin_params p = { 0 };
    lvx_thin_pool_params(4, E, &p);
    ok(p.max_data_sectors == UINT64_C(34091827200),
       "64 KiB chunks address 255 x 16320 x 4 KiB of metadata's worth: <15.88 TiB");
    p = (struct lvx_thin_params){ .chunk = 128 };
    ok(lvx_thin_pool_params(UINT64_C(17) * 1024 * 256, E, &p) < 0 && p.chunk_too_small,
       "17 TiB with 64 KiB chunks: more than the chunk can address, chunk too small");
    is_int(lvx_thin_estimate_chunk(2560, E, 8192), 512, "chunk for 10 GiB and 4 MiB of metadata");
    is_int(lvx_thin_estimate_chunk(1, E, 8192), 128, "estimates below 64 KiB become 64 KiB");
    is_int(lvx_thin_estimate_chunk(UINT64_C(1) << 32, E, 8192), 2097152 / 2 * 2,
           "a huge pool gets at most 1 GiB chunks");
    return tap_done();
}
