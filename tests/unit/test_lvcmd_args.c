/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_lvcmd_args.c - the arguments of the LV commands: the option parser's
 * size and extent values (cmd/options.h) and their use by cmd/lvcmd.h: -L sizes (binary units whatever the case, default unit, fractions rounded up to a
 * sector, LVM2's "not a multiple of 512" and ">= 16 EiB" refusals), -l extents with
 * their percentage bases, and LV names in VG/LV, /dev/VG/LV and /dev/mapper forms.
 * Expected values are the unit definitions of LVM2's documentation (lvm(8): sizes are
 * powers of 1024, k default for stripe sizes, m for -L) and lvm2-format.md §15 names.
 * Error paths print one line on stderr; only their return codes are checked here.
 */
#include "tap.h"

#include <string.h>

#include "cmd/lvcmd.h"

static uint64_t size_of(const char *s, char unit)
{
    struct lvx_opt_val v;
    const char *reason;
    if (lvx_opt_parse_size(s, unit, &v, &reason) != 0)
        return UINT64_MAX;
    return v.sectors;
}

/* lvx_lvcmd_size_args() over a parsed "lvcreate|lvresize OPT VALUE" command line. */
static int size_args(const char *opt, const char *value, bool allow_sign,
                     struct lvx_lvcmd_size *sz)
{
    static const enum lvx_opt_id allowed[] = { LVX_OPT_SIZE, LVX_OPT_EXTENTS, LVX_OPT_COUNT };
    char *argv[] = { "lvresize", (char *)opt, (char *)value, NULL };
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_ctx ctx;
    struct lvx_cmd_args args;
    struct lvx_cmd_env env = { .ctx = &ctx, .pool = pool, .args = &args };
    lvx_ctx_init(&ctx);
    int rc = lvx_opts_parse(&ctx, pool, "lvresize", allowed, 3, argv, &args);
    if (rc == 0)
        rc = lvx_lvcmd_size_args(&env, allow_sign, true, sz);
    lvx_pool_destroy(pool);
    return rc;
}

static void test_sizes(void)
{
    is_int(size_of("4", 'm'), 8192, "-L 4: MiB by default (8192 sectors)");
    is_int(size_of("4m", 'm'), 8192, "-L 4m");
    is_int(size_of("4M", 'm'), 8192, "-L 4M: upper case is binary too");
    is_int(size_of("4100K", 'm'), 8200, "-L 4100K = 4100 KiB");
    is_int(size_of("1.5m", 'm'), 3072, "-L 1.5m");
    is_int(size_of("1.5", 'm'), 3072, "-L 1.5 (default MiB)");
    is_int(size_of("0.004g", 'm'), 8389, "-L 0.004g rounds up to a whole sector");
    is_int(size_of("8191s", 'm'), 8191, "-L 8191s: sectors");
    is_int(size_of("4194304b", 'm'), 8192, "-L 4194304b: bytes");
    is_int(size_of("4mb", 'm'), 8192, "-L 4mb: trailing b after the unit");
    is_int(size_of("1t", 'm'), 1ull << 31, "-L 1t");
    is_int(size_of("15E", 'm'), 15ull << 51, "-L 15E fits");
    is_int(size_of("64", 'k'), 128, "-I 64: KiB by default (128 sectors)");
    is_int(size_of("16E", 'm'), UINT64_MAX, "-L 16E is refused (>= 16 EiB)");
    is_int(size_of("99999999999999999999999999m", 'm'), UINT64_MAX, "huge numbers are refused");
    is_int(size_of("4194305B", 'm'), UINT64_MAX, "bytes not a multiple of 512 are refused");
    is_int(size_of("4x", 'm'), UINT64_MAX, "unknown unit refused");
    is_int(size_of("m", 'm'), UINT64_MAX, "no digits refused");
    is_int(size_of("", 'm'), UINT64_MAX, "empty refused");

    struct lvx_lvcmd_size sz;
    is_int(size_args("-L", "+8m", false, &sz), 0, "+8m parses");
    is_int(sz.sign, 1, "+8m: sign +");
    is_int(size_args("-L", "-8m", true, &sz), 0, "-8m parses where allowed");
    is_int(sz.sign, -1, "-8m: sign -");
    ok(size_args("-L", "-8m", false, &sz) != 0, "-8m refused for lvcreate");
}

static void test_extents(void)
{
    struct lvx_lvcmd_size sz;
    is_int(size_args("-l", "10", true, &sz), 0, "-l 10");
    ok(sz.in_extents && sz.value == 10 && sz.percent == LVX_PCT_NONE, "-l 10: 10 extents");
    is_int(size_args("-l", "+50%FREE", true, &sz), 0, "-l +50%%FREE");
    ok(sz.sign == 1 && sz.value == 50 && sz.percent == LVX_PCT_FREE, "+50%%FREE understood");
    is_int(size_args("-l", "33%vg", true, &sz), 0, "-l 33%%vg (case ignored)");
    is_int(sz.percent, LVX_PCT_VG, "%%vg is %%VG");
    is_int(size_args("-l", "100%PVS", false, &sz), 0, "-l 100%%PVS");
    is_int(sz.percent, LVX_PCT_PVS, "%%PVS");
    is_int(size_args("-l", "-3%LV", true, &sz), 0, "-l -3%%LV");
    ok(sz.sign == -1 && sz.percent == LVX_PCT_LV, "-3%%LV understood");
    ok(size_args("-l", "10%BOGUS", true, &sz) != 0, "unknown %%type refused");
    ok(size_args("-l", "ten", true, &sz) != 0, "non-number refused");
    ok(size_args("-l", "99999999999999999999999", true, &sz) != 0, "overflow refused");
    ok(size_args("-l", "-1", false, &sz) != 0, "negative refused for lvcreate");
}

static void test_names(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_ctx ctx;
    struct lvx_cmd_env env = { .ctx = &ctx, .pool = pool };
    const char *vg, *lv;

    lvx_ctx_init(&ctx);
    ok(lvx_lvcmd_split_name(&env, "vg1/lv1", &vg, &lv) && !strcmp(vg, "vg1") &&
       !strcmp(lv, "lv1"), "VG/LV");
    ok(lvx_lvcmd_split_name(&env, "/dev/vg1/lv1", &vg, &lv) && !strcmp(vg, "vg1") &&
       !strcmp(lv, "lv1"), "/dev/VG/LV");
    ok(lvx_lvcmd_split_name(&env, "vg1", &vg, &lv) && !strcmp(vg, "vg1") && lv == NULL,
       "plain VG");
    ok(lvx_lvcmd_split_name(&env, "/dev/mapper/vg--a-lv--b", &vg, &lv) && !strcmp(vg, "vg-a") &&
       !strcmp(lv, "lv-b"), "/dev/mapper name with doubled dashes (format §15)");
    ok(!lvx_lvcmd_split_name(&env, "vg1/", &vg, &lv), "VG/ with no LV refused");
    ok(!lvx_lvcmd_split_name(&env, "vg1/a/b", &vg, &lv), "two slashes refused");
    lvx_pool_destroy(pool);
}

int main(void)
{
    test_sizes();
    test_extents();
    test_names();
    return tap_done();
}
