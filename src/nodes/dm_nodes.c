/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nodes/dm_nodes.c - /dev/mapper/<name> nodes and /dev/<vg>/<lv> links of
 * active LVs (see dm_nodes.h).
 */
#include "nodes/dm_nodes.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>


const char *lvx_dm_dev_dir(void)
{
    const char *d = getenv("DM_DEV_DIR");
    return d && *d ? d : "/dev";
}

static int make_dir(struct lvx_ctx *ctx, const char *path)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return 0;
    int e = errno;
    return lvx_error(ctx, e, "Cannot create directory %s: %s", path, strerror(e));
}

static int make_node(struct lvx_ctx *ctx, const char *path, dev_t dev)
{
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (S_ISBLK(st.st_mode) && st.st_rdev == dev)
            return 0;
        unlink(path);
    }
    if (mknod(path, S_IFBLK | LVX_NODE_MODE, dev) == 0) {
        if (chown(path, 0, LVX_NODE_GID) < 0 || chmod(path, LVX_NODE_MODE) < 0) {
            /* ownership as LVM2's (root:disk 0660) is cosmetic: keep the node */
        }
        return 0;
    }
    int e = errno;
    return lvx_error(ctx, e, "Cannot create device node %s: %s", path, strerror(e));
}

static int make_link(struct lvx_ctx *ctx, const char *target, const char *path)
{
    char cur[PATH_MAX];
    ssize_t n = readlink(path, cur, sizeof(cur) - 1);
    if (n >= 0) {
        cur[n] = '\0';
        if (strcmp(cur, target) == 0)
            return 0;
    }
    if (n >= 0 || errno != ENOENT)
        unlink(path);
    if (symlink(target, path) == 0)
        return 0;
    int e = errno;
    return lvx_error(ctx, e, "Cannot create symbolic link %s: %s", path, strerror(e));
}

int lvx_dm_nodes_add(struct lvx_ctx *ctx, const char *name, uint32_t major, uint32_t minor,
                     const char *vg, const char *lv)
{
    const char *dev = lvx_dm_dev_dir();
    char dir[PATH_MAX], node[PATH_MAX], target[PATH_MAX], link[PATH_MAX];
    int rc;
    snprintf(dir, sizeof(dir), "%s/mapper", dev);
    snprintf(node, sizeof(node), "%s/mapper/%s", dev, name);
    if ((rc = make_dir(ctx, dir)) < 0 || (rc = make_node(ctx, node, makedev(major, minor))) < 0)
        return rc;
    if (!lv)   /* a hidden sub-LV or a layer device (-real, -cow): no /dev/<vg> link */
        return 0;
    snprintf(dir, sizeof(dir), "%s/%s", dev, vg);
    snprintf(target, sizeof(target), "../mapper/%s", name);
    snprintf(link, sizeof(link), "%s/%s/%s", dev, vg, lv);
    if ((rc = make_dir(ctx, dir)) < 0 || (rc = make_link(ctx, target, link)) < 0)
        return rc;
    return 0;
}

void lvx_dm_nodes_remove(const char *name, const char *vg, const char *lv)
{
    const char *dev = lvx_dm_dev_dir();
    char path[PATH_MAX];
    if (lv) {
        snprintf(path, sizeof(path), "%s/%s/%s", dev, vg, lv);
        unlink(path);
        snprintf(path, sizeof(path), "%s/%s", dev, vg);
        rmdir(path);               /* only when empty */
    }
    snprintf(path, sizeof(path), "%s/mapper/%s", dev, name);
    unlink(path);
}
