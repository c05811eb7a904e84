/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/fuzz_restore.c - libFuzzer harness for what `vgcfgrestore -f FILE` does with a
 * backup file before it writes anything: the file (read through lvx_pool_read_file()
 * from a private temporary directory) is imported (lvx_vg_import_text) and validated
 * (lvx_vg_validate); a VG that validates is then used the way commands use one: derived
 * counts, the dm table and a few sector mappings of every LV, an "all" report of each
 * kind, and an export in both layouts.  Invariants (abort otherwise): failures leave a
 * message; an exported VG imports and validates again and exports to the same text.
 *
 * Build and run: `bash fuzz/run.sh 60 fuzz_restore` (seeds: fuzz/corpus/restore/).
 */
#include "format/vg_text.h"
#include "map/map.h"
#include "model/model.h"
#include "report/report.h"
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[256];
static char file[300];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/lvx-fuzz-restore.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz_restore: mkdtemp");
        exit(1);
    }
    snprintf(file, sizeof(file), "%s/vg.backup", dir);
    return 0;
}

__attribute__((destructor)) static void cleanup(void)
{
    if (dir[0]) {
        unlink(file);
        rmdir(dir);
    }
}

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_restore: invariant broken: %s\n", what);
        abort();
    }
}

static void use_lv(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    struct lvx_buf b = LVX_BUF_INIT;
    if (lvx_map_dm_table(ctx, lv, &b) < 0)
        require(ctx->errmsg[0] != '\0', "a failed dm table has a message");
    lvx_buf_free(&b);
    struct lvx_io_hints h;
    (void)lvx_map_io_hints(ctx, lv, &h);
    uint64_t sectors = lv->le_count * lv->vg->extent_size;
    const uint64_t probe[] = { 0, 1, sectors / 2, sectors ? sectors - 1 : 0, sectors };
    for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
        struct lvx_map_loc loc;
        if (lvx_map_lv_sector(ctx, lv, probe[i], &loc) == 0 && loc.kind == LVX_MAP_PV)
            require(loc.len > 0 && loc.pv != NULL, "a mapped sector has a PV and a length");
    }
    const char *role;
    (void)lvx_lv_used_by(lv, &role);
    (void)lvx_lv_size_sectors(lv);
    (void)lvx_lv_is_visible(lv);
    for (unsigned s = 0; s < lv->seg_count; s++) {
        (void)lvx_seg_report_type(&lv->segs[s]);
        (void)lvx_seg_report_stripes(&lv->segs[s]);
        (void)lvx_seg_area_len(&lv->segs[s]);
    }
}

static void use_vg(struct lvx_ctx *ctx, struct lvx_vg *vg)
{
    uint32_t *counts = calloc(vg->pv_count + 1, sizeof(*counts));
    bool *visible = calloc(vg->lv_count + 1, sizeof(*visible));
    lvx_vg_pv_alloc_counts(vg, counts);
    lvx_vg_lv_visibility(vg, visible);
    for (unsigned i = 0; i < vg->pv_count; i++)
        require(counts[i] == lvx_pv_alloc_count(vg->pvs[i]), "alloc counts agree");
    for (unsigned i = 0; i < vg->lv_count; i++)
        require(visible[i] == lvx_lv_is_visible(vg->lvs[i]), "visibility agrees");
    free(counts);
    free(visible);
    (void)lvx_vg_free_count(vg);
    (void)lvx_vg_visible_lv_count(vg);
    for (unsigned i = 0; i < vg->lv_count; i++)
        use_lv(ctx, vg->lvs[i]);

    static const struct {
        enum lvx_report_kind kind;
        const char *fields;
    } reports[] = {
        { LVX_REPORT_PVS, "pv_all,vg_all" }, { LVX_REPORT_VGS, "vg_all" },
        { LVX_REPORT_LVS, "lv_all,vg_all" }, { LVX_REPORT_SEGS, "seg_all,lv_all" },
        { LVX_REPORT_PVSEGS, "pvseg_all,pv_all" },
    };
    for (size_t k = 0; k < sizeof(reports) / sizeof(reports[0]); k++) {
        struct lvx_report_opts o = { .fields = reports[k].fields, .all = true, .units = 'h' };
        if (k == 2)
            o.json = true;
        struct lvx_buf out = LVX_BUF_INIT;
        struct lvx_vg *vgs[1] = { vg };
        if (lvx_report(ctx, reports[k].kind, &o, vgs, 1, NULL, 0, &out) < 0) {
            fprintf(stderr, "report of a valid VG fails: %s\n", ctx->errmsg);
            abort();
        }
        lvx_buf_free(&out);
    }
}

/* export -> import -> validate -> export must give the same text */
static void roundtrip(struct lvx_ctx *ctx, const struct lvx_vg *vg, enum lvx_cfg_layout layout)
{
    struct lvx_text_header hdr = { .description = "fuzz", .creation_host = "host",
                                   .uname_line = "Linux host", .creation_time = 1,
                                   .lvm_version = "2.03.16(2)" };
    struct lvx_buf a = LVX_BUF_INIT, b = LVX_BUF_INIT;
    lvx_vg_export_text(&a, vg, &hdr, layout);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *again = NULL;
    if (lvx_vg_import_text(ctx, pool, lvx_buf_str(&a), a.len, &again) < 0 ||
        lvx_vg_validate(ctx, again) < 0) {
        fprintf(stderr, "exported VG does not import again: %s\n---\n%s---\n", ctx->errmsg,
                lvx_buf_str(&a));
        abort();
    }
    lvx_vg_export_text(&b, again, &hdr, layout);
    if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0) {
        fprintf(stderr, "export differs after a round trip\n---\n%s---\n%s---\n", lvx_buf_str(&a),
                lvx_buf_str(&b));
        abort();
    }
    lvx_buf_free(&a);
    lvx_buf_free(&b);
    lvx_pool_destroy(pool);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    require(fd >= 0 && write(fd, data, size) == (ssize_t)size, "backup file written");
    close(fd);

    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_pool *pool = lvx_pool_create();
    size_t len = 0;
    char *text = lvx_pool_read_file(&ctx, pool, file, LVX_FILE_MAX_METADATA, &len);
    require(text != NULL && len == size, "backup file read back");
    struct lvx_vg *vg = NULL;
    int r = lvx_vg_import_text(&ctx, pool, text, len, &vg);
    if (r < 0) {
        require(ctx.errmsg[0] != '\0', "a failed import has a message");
    } else if (lvx_vg_validate(&ctx, vg) < 0) {
        require(ctx.errmsg[0] != '\0', "a failed validation has a message");
    } else {
        use_vg(&ctx, vg);
        roundtrip(&ctx, vg, LVX_CFG_LAYOUT_FILE);
        roundtrip(&ctx, vg, LVX_CFG_LAYOUT_RAW);
    }
    lvx_pool_destroy(pool);
    return 0;
}
