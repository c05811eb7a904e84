/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nodes/user_nodes.c - /dev links of user-space-activated LVs (see user_nodes.h).
 */
#include "nodes/user_nodes.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "map/dm_names.h"
#include "util/buf.h"

#define LOOP_PREFIX "/dev/loop"

/* path -> target, replacing what is there. */
static int link_replace(struct lvx_ctx *ctx, const char *target, const char *path)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof(tmp), "%s.lvx-tmp", path);
    unlink(tmp);
    if (symlink(target, tmp) < 0 || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return lvx_error(ctx, e, "Cannot create %s: %s", path, strerror(e));
    }
    return 0;
}

/* 0755 as LVM2's, whatever the umask (the daemon's is 077) */
static void make_dir(const char *path)
{
    if (mkdir(path, 0755) == 0 && chmod(path, 0755) < 0) {
        /* left as the umask made it: root can still use it */
    }
}

int lvx_user_nodes_add(struct lvx_ctx *ctx, const char *dev, const char *vg, const char *lv,
                       const char *loop, bool vg_link)
{
    char path[PATH_MAX];
    struct lvx_buf name = LVX_BUF_INIT;
    int rc = 0;
    if (lvx_dm_lv_name(&name, vg, lv, NULL) < 0)
        rc = lvx_error(ctx, ENAMETOOLONG, "The device name of %s/%s is too long.", vg, lv);
    if (rc == 0) {
        snprintf(path, sizeof(path), "%s/mapper", dev);
        make_dir(path);
        snprintf(path, sizeof(path), "%s/mapper/%s", dev, lvx_buf_str(&name));
        rc = link_replace(ctx, loop, path);
    }
    if (rc == 0 && !vg_link) {
        lvx_user_nodes_remove_vg_link(dev, vg, lv);
    } else if (rc == 0) {
        snprintf(path, sizeof(path), "%s/%s", dev, vg);
        make_dir(path);
        snprintf(path, sizeof(path), "%s/%s/%s", dev, vg, lv);
        rc = link_replace(ctx, loop, path);
    }
    lvx_buf_free(&name);
    return rc;
}

static void unlink_if_loop_link(const char *path)
{
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof(target) - 1);
    if (n <= 0)
        return;
    target[n] = 0;
    if (strncmp(target, LOOP_PREFIX, strlen(LOOP_PREFIX)) == 0)
        unlink(path);
}

void lvx_user_nodes_remove(const char *dev, const char *vg, const char *lv)
{
    char path[PATH_MAX];
    struct lvx_buf name = LVX_BUF_INIT;
    if (lvx_dm_lv_name(&name, vg, lv, NULL) == 0) {
        snprintf(path, sizeof(path), "%s/mapper/%s", dev, lvx_buf_str(&name));
        unlink_if_loop_link(path);
    }
    lvx_buf_free(&name);
    lvx_user_nodes_remove_vg_link(dev, vg, lv);
}

void lvx_user_nodes_remove_vg_link(const char *dev, const char *vg, const char *lv)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s/%s", dev, vg, lv);
    unlink_if_loop_link(path);
    snprintf(path, sizeof(path), "%s/%s", dev, vg);
    rmdir(path);   /* only when empty */
}
