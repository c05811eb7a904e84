/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_dm_names.c - device-mapper names and UUIDs of LVs (format §15),
 * the dm backend's table with partial activation, the activation checks, and the
 * backend choice on a host whose kernel has no device-mapper (the `dm` probe must
 * say "not usable" with a reason, without crashing).  The real kernel path is
 * tested in a QEMU guest (tests/cli/t0700-kernel-dm.sh).
 */
#include "activate/activate.h"
#include "dev/dm_ioctl.h"
#include "map/dm_names.h"
#include "tap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *dm_name(struct lvx_buf *b, const char *vg, const char *lv, const char *layer)
{
    lvx_buf_reset(b);
    int r = lvx_dm_lv_name(b, vg, lv, layer);
    return r < 0 ? "(error)" : lvx_buf_str(b);
}

static void test_names(void)
{
    struct lvx_buf b = LVX_BUF_INIT;
    /* §15: every '-' inside the VG and LV names is doubled */
    is_str(dm_name(&b, "vg-a", "lv-b", NULL), "vg--a-lv--b", "spec example vg-a + lv-b");
    is_str(dm_name(&b, "vg0", "lv0", NULL), "vg0-lv0", "plain names");
    is_str(dm_name(&b, "vg0", "thin", "tpool"), "vg0-thin-tpool", "layer suffix");
    is_str(dm_name(&b, "a--b", "-x", NULL), "a----b---x", "runs of dashes all doubled");
    is_str(dm_name(&b, "v.g+_1", "l.v+_", NULL), "v.g+_1-l.v+_", "other name characters kept");

    char long_name[128];
    memset(long_name, '-', 100);
    long_name[100] = '\0';
    lvx_buf_reset(&b);
    is_int(lvx_dm_lv_name(&b, "vg", long_name, NULL), -ENAMETOOLONG,
           "a doubled name longer than 127 characters is refused");
    is_int((long long)b.len, 0, "nothing appended on refusal");

    struct lvx_pool *pool = lvx_pool_create();
    const char *vg, *lv, *layer;
    ok(lvx_dm_split_name(pool, "vg--a-lv--b", &vg, &lv, &layer), "split vg--a-lv--b");
    is_str(vg, "vg-a", "split: VG name");
    is_str(lv, "lv-b", "split: LV name");
    ok(layer == NULL, "split: no layer");
    ok(lvx_dm_split_name(pool, "vg0-pool-tdata", &vg, &lv, &layer) && layer &&
       strcmp(layer, "tdata") == 0 && strcmp(lv, "pool") == 0, "split with a layer");
    ok(!lvx_dm_split_name(pool, "novg", &vg, &lv, &layer), "a name without '-' is no LV");
    ok(!lvx_dm_split_name(pool, "vg0-", &vg, &lv, &layer), "an empty LV part is no LV");
    lvx_pool_destroy(pool);
    lvx_buf_free(&b);
}

static void test_uuids(void)
{
    struct lvx_buf b = LVX_BUF_INIT;
    /* the spec's example UUID, cut into its VG and LV halves and dashed 6-4-4-4-4-4-6 */
    const char *spec = "LVM-4ZJsXqLb5EtGtASAY4F5HPwVg46uXK6KA3TZmt3Jnspgt0GKbO03NHzzs93aZcfQ";
    char vg_raw[33], lv_raw[33], vg_dashed[39], lv_dashed[39];
    memcpy(vg_raw, spec + 4, 32);
    vg_raw[32] = '\0';
    memcpy(lv_raw, spec + 36, 32);
    lv_raw[32] = '\0';
    lvx_uuid_format(vg_raw, vg_dashed);
    lvx_uuid_format(lv_raw, lv_dashed);
    is_int(lvx_dm_lv_uuid(&b, vg_dashed, lv_dashed, NULL), 0, "uuid from dashed UUIDs");
    is_str(lvx_buf_str(&b), spec, "LVM- + VG UUID + LV UUID, no dashes (spec example)");
    lvx_buf_reset(&b);
    is_int(lvx_dm_lv_uuid(&b, vg_raw, lv_raw, "real"), 0, "uuid with a layer");
    ok(strncmp(lvx_buf_str(&b), spec, strlen(spec)) == 0 &&
       strcmp(lvx_buf_str(&b) + strlen(spec), "-real") == 0, "layer appended as -real");
    lvx_buf_reset(&b);
    is_int(lvx_dm_lv_uuid(&b, "short", lv_raw, NULL), -EINVAL, "a bad VG UUID is refused");
    is_int((long long)b.len, 0, "nothing appended on refusal");
    lvx_buf_free(&b);
}

/* A VG with two PVs (7:0, 7:1) and one LV: linear 4 extents on pv0, then linear 2 on
 * pv1, then 2-stripe 64 KiB (4 extents) on pv0+pv1. */
static struct lvx_lv *mk_lv(struct lvx_pool *pool)
{
    struct lvx_vg *vg = lvx_vg_new(pool);
    vg->name = "vg-a";
    vg->extent_size = 8192;
    vg->status = LVX_VG_READ | LVX_VG_WRITE;
    memcpy(vg->uuid, "4ZJsXqLb5EtGtASAY4F5HPwVg46uXK6K", 33);
    for (unsigned i = 0; i < 2; i++) {
        struct lvx_pv *pv = lvx_vg_add_pv(vg);
        pv->pe_start = 2048;
        pv->pe_count = 100;
        pv->ondisk.present = true;
        pv->ondisk.dev_major = 7;
        pv->ondisk.dev_minor = i;
    }
    struct lvx_lv *lv = lvx_vg_add_lv(vg);
    lv->name = "lv-b";
    lv->status = LVX_LV_READ | LVX_LV_WRITE | LVX_LV_VISIBLE;
    memcpy(lv->uuid, "A3TZmt3Jnspgt0GKbO03NHzzs93aZcfQ", 33);
    lv->seg_count = 3;
    lv->segs = lvx_pool_alloc(pool, 3 * sizeof(*lv->segs));
    const uint32_t stripes[3] = { 1, 1, 2 };
    const uint64_t counts[3] = { 4, 2, 4 };
    uint64_t le = 0;
    for (unsigned s = 0; s < 3; s++) {
        struct lvx_seg *seg = &lv->segs[s];
        seg->lv = lv;
        seg->start_extent = le;
        seg->extent_count = counts[s];
        seg->type = seg->type_name = "striped";
        seg->kind = LVX_SEG_STRIPED;
        seg->stripe_count = seg->area_count = stripes[s];
        seg->stripe_size = stripes[s] > 1 ? 128 : 0;
        seg->areas = lvx_pool_alloc(pool, stripes[s] * sizeof(*seg->areas));
        for (uint32_t j = 0; j < stripes[s]; j++) {
            seg->areas[j].pv = vg->pvs[s == 1 ? 1 : j];
            seg->areas[j].start = s == 0 ? 0 : s == 1 ? 0 : 10;
        }
        le += counts[s];
    }
    lv->le_count = le;
    return lv;
}

static void test_tables(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_lv *lv = mk_lv(pool);
    struct lvx_buf b = LVX_BUF_INIT;
    struct lvx_activate_opts partial = { .partial = true };

    /* §15: linear offset = pe_start + pe * E; striped: <k> <chunk> dev offset ... */
    is_int(lvx_activation_dm_table(&ctx, lv, false, &b), 0, "table of a complete LV");
    is_str(lvx_buf_str(&b),
           "0 32768 linear 7:0 2048\n"
           "32768 16384 linear 7:1 2048\n"
           "49152 32768 striped 2 128 7:0 83968 7:1 83968\n", "three lines as §15");
    is_int(lvx_activation_check(&ctx, lv, NULL), 0, "a complete LV may be activated");
    ok(!lvx_activation_lv_partial(lv), "not partial");

    lv->vg->pvs[1]->ondisk.present = false;           /* pv1 goes missing */
    ok(lvx_activation_lv_partial(lv), "partial once pv1 is missing");
    is_int(lvx_activation_check(&ctx, lv, NULL), -ENODEV, "refused without partial");
    is_str(ctx.errmsg, "Refusing activation of partial LV vg-a/lv-b.  Use '--activationmode "
           "partial' to override.", "LVM2's refusal message");
    is_int(lvx_activation_check(&ctx, lv, &partial), 0, "allowed with partial");
    lvx_buf_reset(&b);
    is_int(lvx_activation_dm_table(&ctx, lv, true, &b), 0, "partial table");
    is_str(lvx_buf_str(&b),
           "0 32768 linear 7:0 2048\n"
           "32768 16384 error\n"
           "49152 32768 error\n", "segments on the missing PV map to the error target");

    lv->vg->pvs[1]->ondisk.present = true;             /* an image file, not a block device */
    lv->vg->pvs[1]->ondisk.dev_major = lv->vg->pvs[1]->ondisk.dev_minor = 0;
    lv->vg->pvs[1]->ondisk.dev_name = "/tmp/disk.img";
    lvx_buf_reset(&b);
    is_int(lvx_activation_dm_table(&ctx, lv, false, &b), -ENODEV,
           "a PV on an image file cannot be mapped by the kernel");
    ok(strstr(ctx.errmsg, "/tmp/disk.img") && strstr(ctx.errmsg, "not a block device"),
       "message names the image: %s", ctx.errmsg);

    lv->segs[2].kind = LVX_SEG_THIN;
    lv->segs[2].type_name = "thin";
    is_int(lvx_activation_check(&ctx, lv, &partial), -ENOTSUP, "thin segments are refused");
    ok(strstr(ctx.errmsg, "thin") != NULL, "message names the type: %s", ctx.errmsg);

    lv->status &= ~(uint32_t)LVX_LV_WRITE;
    ok(lvx_activation_read_only(lv, NULL), "an LV without WRITE is activated read-only");
    lv->status |= LVX_LV_WRITE;
    ok(!lvx_activation_read_only(lv, NULL), "a writable LV is not");
    lvx_buf_free(&b);
    lvx_pool_destroy(pool);
}

static void test_backend_choice(void)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_dm dm;

    unsetenv("LVX_ACTIVATION_BACKEND");
    /* no lvm.conf: the caller's (a test sandbox may turn activation off) must not decide */
    setenv("LVM_SYSTEM_DIR", "/nonexistent/lvx-test-no-lvm-conf", 1);
    ok(lvx_activation_find("dm") == &lvx_activation_dm, "the dm backend is registered");
    ok(lvx_activation_find("nope") == NULL, "unknown names are not");

    int r = lvx_dm_open(&ctx, &dm);
    bool have_dm = r == 0;
    if (have_dm)
        lvx_dm_close(&dm);
    bool probe = lvx_activation_dm.probe(&ctx);
    ok(probe == have_dm, "probe agrees with opening the control device (%s)",
       have_dm ? "device-mapper present" : "no device-mapper here");
    if (!have_dm) {
        is_int(r, -ENODEV, "no device-mapper: -ENODEV");
        ok(strstr(ctx.errmsg, "device-mapper not available") != NULL, "with a reason: %s",
           ctx.errmsg);
        ok(lvx_activation_choose(&ctx, NULL) != &lvx_activation_dm,
           "the dm backend is not chosen (another backend may be)");
        ok(lvx_activation_choose(&ctx, "dm") == NULL && ctx.err == -ENODEV,
           "forcing dm does not help: %s", ctx.errmsg);
    }
    setenv("LVX_ACTIVATION_BACKEND", "none", 1);
    ok(lvx_activation_choose(&ctx, NULL) == NULL && ctx.err == -ENODEV &&
       strstr(ctx.errmsg, "turned off"), "LVX_ACTIVATION_BACKEND=none turns activation off");
    setenv("LVX_ACTIVATION_BACKEND", "bogus", 1);
    ok(lvx_activation_choose(&ctx, NULL) == NULL && ctx.err == -EINVAL &&
       strstr(ctx.errmsg, "bogus"), "an unknown backend name is an error: %s", ctx.errmsg);
    ok(lvx_activation_choose(&ctx, "none") == NULL, "an option may refuse activation too");
    /* lvm.conf global/activation = 0 wins over the environment (issue 14, item 8) */
    ctx.config_override = "global/activation=0";
    ok(!lvx_activation_enabled(&ctx), "--config global/activation=0 turns activation off");
    setenv("LVX_ACTIVATION_BACKEND", "user", 1);
    ok(lvx_activation_choose(&ctx, NULL) == NULL && ctx.err == -ENODEV &&
       strstr(ctx.errmsg, "global/activation = 0") &&
       strstr(ctx.errmsg, "LVX_ACTIVATION_BACKEND=user ignored"),
       "global/activation=0 wins over LVX_ACTIVATION_BACKEND=user: %s", ctx.errmsg);
    ctx.config_override = "global/activation=1";
    ok(lvx_activation_enabled(&ctx), "global/activation=1: on");
    ctx.config_override = NULL;
    unsetenv("LVX_ACTIVATION_BACKEND");

    /* a table that cannot be parsed is refused before any ioctl */
    struct lvx_dm closed = { .fd = -1 };
    is_int(lvx_dm_load(&ctx, &closed, "x", "0 8\n", false), -EINVAL, "a line without target");
    ok(strstr(ctx.errmsg, "bad table line") != NULL, "message: %s", ctx.errmsg);
    is_int(lvx_dm_load(&ctx, &closed, "x", "\n", false), -EINVAL, "an empty table");
    is_int(lvx_dm_load(&ctx, &closed, "x", "0 8 zero\n", false), -EBADF,
           "a good table reaches the (closed) control device");
    char long_name[200];
    memset(long_name, 'n', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    is_int(lvx_dm_remove(&ctx, &closed, long_name, false), -ENAMETOOLONG, "too long DM names");
}

int main(void)
{
    test_names();
    test_uuids();
    test_tables();
    test_backend_choice();
    return tap_done();
}
