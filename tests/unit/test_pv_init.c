/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_pv_init.c - the pieces of pvcreate that are pure: the label built from a
 * computed layout (checked byte for byte against the worked example of
 * lvm2-format.md §3.4, which was read from a real `pvcreate`), and LVM2's size
 * arguments (units are powers of 1024 in either case, a bare number takes the
 * option's default unit, byte sizes must be multiples of 512; lvm(8) / `pvcreate
 * --help`).
 */
#include "tap.h"
#include "cmd/pvcmd.h"
#include "format/label.h"
#include "format/pv_layout.h"
#include "meta/pv_init.h"

#include <stdio.h>
#include <string.h>

static void test_label_worked_example(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_pv_layout_req req = { .dev_size = 64u << 20, .mda_copies = 1 };
    struct lvx_pv_layout layout;
    is_int(lvx_pv_layout_compute(&ctx, &req, &layout), 0, "layout of a default 64 MiB PV");

    struct lvx_label label;
    lvx_pv_label_from_layout(&label, &layout, "BZIxJeW8TTH0gUWhpeiOf1ruKc8BHg4H", 64u << 20, 1);
    uint8_t sector[512] = {0};
    is_int(lvx_label_encode(&ctx, &label, sector), 0, "label encodes");

    /* §3.4: the label sector of that PV */
    uint8_t want[512] = {0};
    memcpy(want, "LABELONE", 8);
    want[0x08] = 1;
    const uint8_t crc[4] = { 0x6B, 0xE6, 0x31, 0xCF };
    memcpy(want + 0x10, crc, 4);
    want[0x14] = 0x20;
    memcpy(want + 0x18, "LVM2 001", 8);
    memcpy(want + 0x20, "BZIxJeW8TTH0gUWhpeiOf1ruKc8BHg4H", 32);
    want[0x43] = 0x04;                      /* device_size 0x04000000 */
    want[0x4A] = 0x10;                      /* data area offset 1 MiB */
    want[0x69] = 0x10;                      /* mda0 offset 4096 */
    want[0x71] = 0xF0; want[0x72] = 0x0F;   /* mda0 size 1044480 = 0x0FF000 */
    want[0x88] = 0x02;                      /* extension version 2, flags 0 */
    ok(memcmp(sector, want, sizeof(want)) == 0, "label sector equals §3.4 byte for byte");
    for (unsigned i = 0; i < 512; i++)
        if (sector[i] != want[i]) {
            tap_diag("first difference at 0x%03x: got %02x want %02x", i, sector[i], want[i]);
            break;
        }

    struct lvx_label back;
    is_int(lvx_label_decode(&ctx, sector, 1, &back), 0, "label decodes");
    is_int(back.mda_count, 1, "one metadata area");
    is_int(back.ba_count, 0, "no bootloader area");
}

static void test_label_with_ba_and_two_mdas(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    /* §12.3: --bootloaderareasize 1m; --pvmetadatacopies 2 on 96 MiB */
    struct lvx_pv_layout_req req = { .dev_size = 96u << 20, .mda_copies = 2, .ba_size = 1u << 20 };
    struct lvx_pv_layout layout;
    struct lvx_label label, back;
    uint8_t sector[512] = {0};
    is_int(lvx_pv_layout_compute(&ctx, &req, &layout), 0, "layout with BA and two mdas");
    lvx_pv_label_from_layout(&label, &layout, "BZIxJeW8TTH0gUWhpeiOf1ruKc8BHg4H", 96u << 20, 3);
    is_int(lvx_label_encode(&ctx, &label, sector), 0, "label encodes");
    is_int(lvx_label_decode(&ctx, sector, 3, &back), 0, "label decodes in sector 3");
    is_int(back.data[0].offset, 2097152, "pe_start after mda0 and the 1 MiB BA");
    is_int(back.ba_count, 1, "one bootloader area");
    is_int(back.ba[0].offset, 1048576, "BA starts at 1 MiB");
    is_int(back.ba[0].size, 1048576, "BA size 1 MiB");
    is_int(back.mda_count, 2, "two metadata areas");
    is_int(back.mda[1].offset, 99614720, "mda1 in the last MiB (§4.4)");
    is_int(back.device_size, 96u << 20, "device_size");
}

struct size_case {
    const char *arg;
    char unit;
    int ok;
    uint64_t bytes;
};

static void test_sizes(void)
{
    static const struct size_case cases[] = {
        { "960K", 'm', 1, 960 * 1024 }, { "960k", 'm', 1, 960 * 1024 },
        { "192k", 'm', 1, 192 * 1024 }, { "1", 'm', 1, 1 << 20 },
        { "1.5", 'm', 1, 3 << 19 }, { "3000s", 'm', 1, 3000 * 512 },
        { "64", 'k', 1, 64 * 1024 }, { "1G", 'm', 1, 1ull << 30 },
        { "1024b", 'm', 1, 1024 }, { "1000000b", 'm', 0, 0 }, { "-1", 'm', 0, 0 },
        { "+5", 'm', 0, 0 }, { "abc", 'm', 0, 0 }, { "5x", 'm', 0, 0 }, { "", 'm', 0, 0 },
        { "1mm", 'm', 0, 0 }, { "99999999999e", 'm', 0, 0 }, { "0", 'm', 1, 0 },
    };
    /* through the option parser: --metadatasize (MiB by default), --dataalignment (KiB) */
    static const enum lvx_opt_id allowed[] = { LVX_OPT_METADATASIZE, LVX_OPT_DATAALIGNMENT,
                                               LVX_OPT_COUNT };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct lvx_ctx ctx;
        struct lvx_cmd_args args;
        struct lvx_pool *pool = lvx_pool_create();
        enum lvx_opt_id id = cases[i].unit == 'k' ? LVX_OPT_DATAALIGNMENT : LVX_OPT_METADATASIZE;
        char opt[64];
        snprintf(opt, sizeof(opt), "--%s=%s", lvx_opt_def(id)->long_name, cases[i].arg);
        char *argv[] = { "pvcreate", opt, "/dev/x", NULL };
        lvx_ctx_init(&ctx);
        int r = lvx_opts_parse(&ctx, pool, "pvcreate", allowed, 3, argv, &args);
        uint64_t bytes = r == 0 ? args.val[id].sectors_floor * 512 : 12345;
        lvx_pool_destroy(pool);
        if (cases[i].ok) {
            is_int(r, 0, "size '%s' (default unit %c) accepted", cases[i].arg, cases[i].unit);
            is_int(bytes, cases[i].bytes, "size '%s' is %llu bytes", cases[i].arg,
                   (unsigned long long)cases[i].bytes);
        } else {
            ok(r < 0 && ctx.errmsg[0], "size '%s' refused with a message (%s)", cases[i].arg,
               ctx.errmsg);
        }
    }
}

int main(void)
{
    test_label_worked_example();
    test_label_with_ba_and_two_mdas();
    test_sizes();
    return tap_done();
}
