/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz/fuzz_text.c - libFuzzer harness for the LVM2 text parser (format/cfg.h).
 * Arbitrary bytes go to lvx_cfg_parse(); when they parse, the tree is printed in
 * both layouts and parsed again, and the result must be lvx_cfg_equal() to the
 * first tree (abort otherwise).  Lookups and clone are exercised on the way.
 *
 * Build and run (from the repository root):
 *   mkdir -p build-fuzz/corpus-text
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE -Isrc \
 *       fuzz/fuzz_text.c src/format/cfg_parse.c src/format/cfg_print.c \
 *       src/format/cfg_tree.c src/util/buf.c src/util/ctx.c src/util/pool.c \
 *       -o build-fuzz/fuzz_text
 *   ./build-fuzz/fuzz_text -max_total_time=60 build-fuzz/corpus-text fuzz/corpus/text
 * (new inputs go to the first, scratch directory; fuzz/corpus/text is the seed set).
 */
#include "format/cfg.h"
#include "dev/io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* util/ctx.c wants the default I/O table; the harness does no I/O.  Weak, so the
 * real one wins when src/dev/io.c is linked too. */
__attribute__((weak)) const struct lvx_dev_ops *lvx_dev_ops_default(void)
{
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reparse(struct lvx_ctx *ctx, struct lvx_pool *pool,
                          const struct lvx_cfg_node *root, enum lvx_cfg_layout layout)
{
    struct lvx_buf out = LVX_BUF_INIT;
    lvx_cfg_print(&out, root, layout);
    struct lvx_cfg_node *again = NULL;
    if (lvx_cfg_parse(ctx, pool, lvx_buf_str(&out), out.len, &again) != 0) {
        fprintf(stderr, "reprinted text does not parse: %s\n---\n%s---\n", ctx->errmsg,
                lvx_buf_str(&out));
        abort();
    }
    if (!lvx_cfg_equal(root, again)) {
        fprintf(stderr, "reparsed tree differs\n---\n%s---\n", lvx_buf_str(&out));
        abort();
    }
    lvx_buf_free(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lvx_ctx ctx;
    lvx_ctx_init(&ctx);
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_cfg_node *root = NULL;
    if (lvx_cfg_parse(&ctx, pool, (const char *)data, size, &root) == 0) {
        check_reparse(&ctx, pool, root, LVX_CFG_LAYOUT_RAW);
        check_reparse(&ctx, pool, root, LVX_CFG_LAYOUT_FILE);
        if (!lvx_cfg_equal(root, lvx_cfg_clone(pool, root)))
            abort();
        const struct lvx_cfg_node *n = lvx_cfg_find_path(root, "vg/physical_volumes/pv0");
        int64_t v;
        const char *s;
        (void)lvx_cfg_get_int(n, "pe_count", &v);
        (void)lvx_cfg_get_str(root, "contents", &s);
        (void)lvx_cfg_array_at(lvx_cfg_find(root, "a"), lvx_cfg_array_len(lvx_cfg_find(root, "a")));
    } else if (ctx.err == 0 && ctx.errmsg[0] == '\0') {
        abort();   /* a failure must leave a message */
    }
    lvx_pool_destroy(pool);
    return 0;
}
