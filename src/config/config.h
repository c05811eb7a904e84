/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config/config.h - LVM2's configuration file (lvm.conf, same grammar as the metadata
 * text) for the settings lvx uses: <system_dir>/lvm.conf where system_dir is
 * $LVM_SYSTEM_DIR or /etc/lvm.  A missing file means built-in defaults.
 */
#ifndef LVX_CONFIG_CONFIG_H
#define LVX_CONFIG_CONFIG_H

#include <stdint.h>
#include <stdbool.h>

#include "util/ctx.h"
#include "util/pool.h"
#include "format/cfg.h"

struct lvx_config {
    struct lvx_pool *pool;
    struct lvx_cfg_node *root;      /* NULL when there is no file */
    const char *path;
};

/* Load lvm.conf (a parse error is -EINVAL with the file name and line). */
int lvx_config_load(struct lvx_ctx *ctx, struct lvx_config **out);
void lvx_config_free(struct lvx_config *cfg);
/* "section/key" lookups with defaults. */
int64_t lvx_config_int(const struct lvx_config *cfg, const char *path, int64_t dflt);
const char *lvx_config_str(const struct lvx_config *cfg, const char *path, const char *dflt);
/* The system directory: $LVM_SYSTEM_DIR or /etc/lvm. */
const char *lvx_config_system_dir(void);

#endif
