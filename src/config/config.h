/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config/config.h - LVM2's configuration file (lvm.conf, same grammar as the metadata
 * text) for the settings lvx uses: <system_dir>/lvm.conf where system_dir is
 * $LVM_SYSTEM_DIR or /etc/lvm, with lvmlocal.conf beside it merged over it (as LVM2).
 * A missing file means built-in defaults.  The text of
 * --config (ctx->config_override) is merged over the file: its settings replace the
 * file's, sections are merged key by key; "section/key = value" is accepted as well as
 * "section { key = value }".
 *
 * Settings lvx reads (defaults in lvx_config_defaults()):
 *   devices/filter, devices/global_filter   accept/reject regex lists (dev/filter.h)
 *   devices/scan                            directories of the system scan ("/dev")
 *   backup/backup, backup/backup_dir, backup/archive, backup/archive_dir,
 *   backup/retain_min, backup/retain_days   (meta/update.c)
 *   global/activation                       0 = never activate
 *   global/units, global/suffix, report/output_format   report defaults (cmd/report_cmd.c)
 *   log/report_command_log, log/command_log_selection   the shell's command log
 *                                           (cmd/shell_report.c)
 * Host tags (config/host_tags.c): lvm.conf's `tags` section (tags/hosttags, tags/NAME
 * with an optional host_list) gives this host tags; each one's lvm_TAG.conf beside
 * lvm.conf is merged over lvm.conf and lvmlocal.conf (under a profile and --config), and
 * the merged tree has no `tags` section, as LVM2's.
 * The profile LVM_COMMAND_PROFILE names ($LVM_SYSTEM_DIR/profile/NAME.profile) is merged
 * over lvm.conf (under --config), as LVM2's command profile.
 *   lvx/activation_backend                  "dm" or "user"
 *   lvx/auto_metadata_copies                areas kept in use when PVs join a VG
 *                                           (meta/mda_policy.c, default 8, 0 = off)
 */
#ifndef LVX_CONFIG_CONFIG_H
#define LVX_CONFIG_CONFIG_H

#include <stdint.h>
#include <stdbool.h>

#include "util/ctx.h"
#include "util/pool.h"
#include "format/cfg.h"

struct lvx_filter;

struct lvx_config {
    struct lvx_pool *pool;
    struct lvx_cfg_node *root;      /* file merged with the override; NULL when neither */
    const char *path;
    const char **host_tags;         /* LVM2's host tags, in the order found (host_tags.c) */
    unsigned host_tag_count;
};

/* Load lvm.conf and merge ctx->config_override over it (a parse error is -EINVAL with
 * the file name / "--config" and the line; an lvm.conf that is not a regular file or is
 * larger than LVX_FILE_MAX_CONFIG is -EINVAL too; a missing one is no configuration). */
int lvx_config_load(struct lvx_ctx *ctx, struct lvx_config **out);
void lvx_config_free(struct lvx_config *cfg);
/* "section/key" lookups with defaults. */
int64_t lvx_config_int(const struct lvx_config *cfg, const char *path, int64_t dflt);
const char *lvx_config_str(const struct lvx_config *cfg, const char *path, const char *dflt);
/* One integer setting read on its own (load, look up, free): its value as a flag, dflt
 * when it is absent or the configuration cannot be read (that error is dropped). */
bool lvx_config_flag(struct lvx_ctx *ctx, const char *path, bool dflt);
/* The node at "section/key", or NULL. */
const struct lvx_cfg_node *lvx_config_node(const struct lvx_config *cfg, const char *path);
/* The host tags of the loaded tree (from cfg->root, which loses its `tags` section) and
 * their lvm_TAG.conf files merged into it; -EINVAL with LVM2's line for an invalid tag. */
int lvx_config_host_tags(struct lvx_ctx *ctx, struct lvx_config *cfg);
/* Is tag one of this host's tags (activation lists' "@*")? */
bool lvx_config_is_host_tag(const struct lvx_config *cfg, const char *tag);
/* The system directory: $LVM_SYSTEM_DIR or /etc/lvm. */
const char *lvx_config_system_dir(void);

/* Does a --config text parse and hold a setting (as LVM2, an empty text or one of only
 * comments is refused)?  0 or -EINVAL with the message.  Like lvm.conf, it must not
 * nest deeper than LVX_CFG_MAX_DEPTH sections, counting each "a/" of a key as one (the
 * merge splits such keys into sections). */
int lvx_config_check_override(struct lvx_ctx *ctx, const char *text);
/* Merge the items of src (a parsed tree's root) over dst (a root SECTION), in pool:
 * values replace values of the same key, sections merge recursively, "a/b" keys are
 * split into sections. */
void lvx_config_merge(struct lvx_pool *pool, struct lvx_cfg_node *dst,
                      const struct lvx_cfg_node *src);

/* The device filter of a configuration: devices/global_filter followed by
 * devices/filter (both apply to every device, as LVM2).  *out NULL when there is no
 * pattern.  -EINVAL for a malformed pattern (message names the setting). */
int lvx_config_device_filter(struct lvx_ctx *ctx, const struct lvx_config *cfg,
                             struct lvx_filter **out);

/* The devices file commands use (<system dir>/devices/NAME): --devicesfile NAME
 * (ctx->devices_file; "" is none), else devices/devicesfile (default system.devices)
 * when devices/use_devicesfile is set; NULL when none is used.  In pool. */
const char *lvx_config_devices_file(const struct lvx_ctx *ctx, const struct lvx_config *cfg,
                                    struct lvx_pool *pool);

/* The built-in defaults of the settings above, as a tree in pool. */
struct lvx_cfg_node *lvx_config_defaults(struct lvx_pool *pool);

#endif
