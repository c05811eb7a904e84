/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/scandirs.c - devices/scan directories (see scandirs.h): walk the directories
 * (symlinks not followed, depth limited) for block device nodes, keep the listed
 * devices that have one (named by their node under a mapper/ directory when they
 * have several).
 */
#include "dev/scandirs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define WALK_DEPTH 8

struct node {
    dev_t rdev;
    char *path;
};

struct nodes {
    unsigned count, cap;
    struct node *v;
};

static void add_node(struct nodes *n, dev_t rdev, const char *path)
{
    if (n->count == n->cap) {
        n->cap = n->cap ? n->cap * 2 : 64;
        n->v = lvx_xrealloc(n->v, n->cap * sizeof(*n->v));
    }
    n->v[n->count].rdev = rdev;
    n->v[n->count].path = lvx_xstrdup(path);
    n->count++;
}

static void walk(struct nodes *n, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        if (snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name) >=
            (int)sizeof(path))
            continue;
        struct stat st;
        if (lstat(path, &st) < 0)
            continue;
        if (S_ISBLK(st.st_mode))
            add_node(n, st.st_rdev, path);
        else if (S_ISDIR(st.st_mode) && depth < WALK_DEPTH)
            walk(n, path, depth + 1);
    }
    closedir(d);
}

static bool only_dev(const char *const *dirs, unsigned ndirs)
{
    return ndirs == 1 && (strcmp(dirs[0], "/dev") == 0 || strcmp(dirs[0], "/dev/") == 0);
}

static bool under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

int lvx_devs_restrict_to_dirs(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_devlist *devs,
                              const char *const *dirs, unsigned ndirs)
{
    if (ndirs == 0 || only_dev(dirs, ndirs))
        return 0;
    struct nodes n = { 0, 0, NULL };
    for (unsigned i = 0; i < ndirs; i++)
        walk(&n, dirs[i], 0);
    unsigned kept = 0;
    for (unsigned i = 0; i < devs->count; i++) {
        struct lvx_dev *dev = devs->devs[i];
        const char *found = NULL;
        bool name_ok = false;
        for (unsigned k = 0; k < n.count; k++) {
            if (n.v[k].rdev != makedev(dev->major, dev->minor))
                continue;
            /* a node under a mapper/ directory before others (a stray copy of a dm
             * device's node elsewhere in the directory must not hide its name) */
            if (!found || (!strstr(found, "/mapper/") && strstr(n.v[k].path, "/mapper/")))
                found = n.v[k].path;
            if (strcmp(n.v[k].path, dev->path) == 0)
                name_ok = true;
        }
        if (!found) {
            lvx_debug(ctx, "%s: no node under the devices/scan directories", dev->path);
            continue;
        }
        bool dev_dir_listed = false;
        for (unsigned d = 0; d < ndirs; d++)
            dev_dir_listed |= under(dev->path, dirs[d]);
        if (!name_ok || !dev_dir_listed) {
            dev->path = lvx_pool_strdup(pool, found);
            dev->is_link = false;        /* walk() keeps block nodes only */
        }
        devs->devs[kept++] = dev;
    }
    devs->count = kept;
    for (unsigned k = 0; k < n.count; k++)
        free(n.v[k].path);
    free(n.v);
    return 0;
}
