/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/tags.c - `lvx tags` (`lvm tags`): this host's tags (config/host_tags.c), one per
 * line in the order LVM2 finds them; printed even with -qq, as LVM2's.
 */
#include "cmd/commands.h"

#include "config/config.h"

int lvx_cmd_tags(struct lvx_cmd_env *env)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0)
        return lvx_cmd_fail(env);
    struct lvx_buf b = LVX_BUF_INIT;
    for (unsigned i = 0; i < cfg->host_tag_count; i++)
        lvx_buf_printf(&b, "  %s\n", cfg->host_tags[i]);
    lvx_config_free(cfg);
    int rc = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    return rc;
}
