/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_export_tree.c - lvx_vg_export_text_tree(): the tree a commit keeps
 * in a session's scan (meta/cache.h) instead of parsing the text it just wrote must
 * import exactly as that text parsed would.  For every VG of the LVM2 fixtures (LVM2's
 * own backup files): import, export text + tree, then import the tree and the parsed
 * text; both must give the same VG (same export), the same counts as LVM2's file, and
 * the text printed with the tree must be what lvx_vg_export_text() prints.
 */
#include "tap.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/cfg.h"
#include "format/vg_text.h"
#include "util/buf.h"
#include "util/ctx.h"
#include "util/pool.h"

static void fixed_header(struct lvx_text_header *hdr)
{
    memset(hdr, 0, sizeof(*hdr));
    hdr->description = "Write from test.";
    hdr->creation_host = "host";
    hdr->uname_line = "Linux host 6.1.0 #1 SMP x86_64";
    hdr->creation_time = 1700000000;
}

static void check_backup(const char *scenario, const char *name)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    size_t len;
    char *file = fixture_read_file(scenario, name, &len);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_vg *vg = NULL;
    if (!ok(file && lvx_vg_import_text(&ctx, pool, file, len, &vg) == 0, "%s/%s imports",
            scenario, name)) {
        printf("# %s\n", ctx.errmsg);
        free(file);
        lvx_pool_destroy(pool);
        return;
    }
    struct lvx_text_header hdr;
    fixed_header(&hdr);
    struct lvx_buf text = LVX_BUF_INIT, plain = LVX_BUF_INIT;
    struct lvx_cfg_node *tree = lvx_vg_export_text_tree(&text, pool, vg, &hdr, LVX_CFG_LAYOUT_RAW);
    lvx_vg_export_text(&plain, vg, &hdr, LVX_CFG_LAYOUT_RAW);
    is_str(lvx_buf_str(&text), lvx_buf_str(&plain), "%s: text printed with the tree kept = "
           "lvx_vg_export_text()", scenario);

    struct lvx_vg *from_tree = NULL, *from_text = NULL;
    ok(tree && lvx_vg_import(&ctx, pool, tree, &from_tree) == 0, "%s: the kept tree imports",
       scenario);
    ok(lvx_vg_import_text(&ctx, pool, text.data, text.len, &from_text) == 0,
       "%s: the printed text imports", scenario);
    if (from_tree && from_text) {
        struct lvx_buf a = LVX_BUF_INIT, b = LVX_BUF_INIT;
        lvx_vg_export_text(&a, from_tree, NULL, LVX_CFG_LAYOUT_FILE);
        lvx_vg_export_text(&b, from_text, NULL, LVX_CFG_LAYOUT_FILE);
        is_str(lvx_buf_str(&a), lvx_buf_str(&b), "%s: tree and parsed text give the same VG "
               "(header included)", scenario);
        is_int(from_tree->lv_count, vg->lv_count, "%s: LV count of LVM2's file", scenario);
        is_int(from_tree->pv_count, vg->pv_count, "%s: PV count of LVM2's file", scenario);
        is_int(from_tree->seqno, vg->seqno, "%s: seqno of LVM2's file", scenario);
        is_str(from_tree->description ? from_tree->description : "", "Write from test.",
               "%s: description from the tree's header keys", scenario);
        lvx_buf_free(&a);
        lvx_buf_free(&b);
    }
    lvx_buf_free(&text);
    lvx_buf_free(&plain);
    free(file);
    lvx_pool_destroy(pool);
}

int main(void)
{
    unsigned seen = 0;
    for (const char *const *s = fixture_scenarios(); *s; s++) {
        char dir[4096];
        snprintf(dir, sizeof(dir), "%s/%s", fixture_dir(), *s);
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            size_t n = strlen(e->d_name);
            if (strncmp(e->d_name, "backup-", 7) == 0 && n > 3 &&
                strcmp(e->d_name + n - 3, ".vg") == 0) {
                check_backup(*s, e->d_name);
                seen++;
            }
        }
        if (d)
            closedir(d);
    }
    ok(seen >= 5, "LVM2 backup files found in the fixtures (%u)", seen);
    return tap_done();
}
