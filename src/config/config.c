/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config/config.c - loading lvm.conf and looking up settings (see config.h).
 */
#include "config/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *lvx_config_system_dir(void)
{
    const char *d = getenv("LVM_SYSTEM_DIR");
    return d && *d ? d : "/etc/lvm";
}

static char *read_whole_file(struct lvx_pool *pool, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct lvx_buf b = LVX_BUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        lvx_buf_append(&b, chunk, n);
    fclose(f);
    char *s = lvx_pool_strndup(pool, lvx_buf_str(&b), b.len);
    *len = b.len;
    lvx_buf_free(&b);
    return s;
}

int lvx_config_load(struct lvx_ctx *ctx, struct lvx_config **out)
{
    struct lvx_pool *pool = lvx_pool_create();
    struct lvx_config *cfg = lvx_pool_alloc(pool, sizeof(*cfg));
    cfg->pool = pool;
    cfg->path = lvx_pool_printf(pool, "%s/lvm.conf", lvx_config_system_dir());
    size_t len = 0;
    char *text = read_whole_file(pool, cfg->path, &len);
    if (text) {
        int r = lvx_cfg_parse(ctx, pool, text, len, &cfg->root);
        if (r < 0) {
            lvx_error(ctx, EINVAL, "%s: %s", cfg->path, ctx->errmsg);
            lvx_pool_destroy(pool);
            return -EINVAL;
        }
    }
    *out = cfg;
    return 0;
}

void lvx_config_free(struct lvx_config *cfg)
{
    if (cfg)
        lvx_pool_destroy(cfg->pool);
}

int64_t lvx_config_int(const struct lvx_config *cfg, const char *path, int64_t dflt)
{
    if (!cfg || !cfg->root)
        return dflt;
    struct lvx_cfg_node *n = lvx_cfg_find_path(cfg->root, path);
    return n && n->kind == LVX_CFG_INT ? n->num : dflt;
}

const char *lvx_config_str(const struct lvx_config *cfg, const char *path, const char *dflt)
{
    if (!cfg || !cfg->root)
        return dflt;
    struct lvx_cfg_node *n = lvx_cfg_find_path(cfg->root, path);
    return n && n->kind == LVX_CFG_STRING ? n->str : dflt;
}
