/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/aliases.c - the other names of a block device (see aliases.h).
 */
#include "dev/aliases.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static const char *dm_dev_dir(void)
{
    const char *dir = getenv("DM_DEV_DIR");
    return dir && *dir ? dir : "/dev";
}

void lvx_dev_aliases_init(struct lvx_dev_aliases *a)
{
    memset(a, 0, sizeof(*a));
    lvx_lvdev_probe_init(&a->probe);
}

void lvx_dev_aliases_free(struct lvx_dev_aliases *a)
{
    for (unsigned i = 0; i < a->disk_count; i++)
        free(a->disk[i].path);
    free(a->disk);
    a->disk = NULL;
    a->disk_count = 0;
}

/* The block devices reached through /dev/disk/<dir>/<name> (by-id, by-path, by-uuid...). */
static void load_disk_links(struct lvx_dev_aliases *a)
{
    a->disk_loaded = true;
    DIR *top = opendir("/dev/disk");
    if (!top)
        return;
    unsigned cap = 0;
    struct dirent *e;
    while ((e = readdir(top)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "/dev/disk/%s", e->d_name);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        struct dirent *l;
        while ((l = readdir(d)) != NULL) {
            char path[PATH_MAX];
            struct stat st;
            if (l->d_name[0] == '.' ||
                snprintf(path, sizeof(path), "%s/%s", dir, l->d_name) >= (int)sizeof(path) ||
                stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
                continue;
            if (a->disk_count == cap) {
                cap = cap ? cap * 2 : 32;
                a->disk = lvx_xrealloc(a->disk, cap * sizeof(*a->disk));
            }
            a->disk[a->disk_count].rdev = st.st_rdev;
            a->disk[a->disk_count++].path = lvx_xstrdup(path);
        }
        closedir(d);
    }
    closedir(top);
}

static void add_name(const char **names, unsigned *n, unsigned max, const char *name)
{
    if (!name || *n >= max)
        return;
    for (unsigned i = 0; i < *n; i++)
        if (strcmp(names[i], name) == 0)
            return;
    names[(*n)++] = name;
}

unsigned lvx_dev_alias_names(struct lvx_dev_aliases *a, struct lvx_pool *pool,
                             const struct lvx_dev *dev, const char **names, unsigned max)
{
    unsigned n = 0;
    add_name(names, &n, max, dev->path);
    if (dev->is_link) {
        char *real = realpath(dev->path, NULL);
        if (real)
            add_name(names, &n, max, lvx_pool_strdup(pool, real));
        free(real);
    }
    if (dev->is_file)
        return n;
    char dm_name[NAME_MAX + 1];
    if (dev->is_lv && lvx_lvdev_is_lv(&a->probe, dev->major, dev->minor, dm_name, sizeof(dm_name))) {
        const char *alias[2];
        lvx_lvdev_aliases(pool, dm_name, alias);
        add_name(names, &n, max, alias[0]);
        add_name(names, &n, max, alias[1]);
    } else if (lvx_lvdev_dm_name(&a->probe, dev->major, dev->minor, dm_name, sizeof(dm_name))) {
        size_t len = strlen(dm_dev_dir()) + strlen(dm_name) + 9;
        char *m = lvx_pool_alloc(pool, len);
        snprintf(m, len, "%s/mapper/%s", dm_dev_dir(), dm_name);
        add_name(names, &n, max, m);
    }
    if (a->probe.dm_major >= 0 && dev->major == (uint32_t)a->probe.dm_major) {
        char kname[32];
        snprintf(kname, sizeof(kname), "/dev/dm-%u", dev->minor);
        add_name(names, &n, max, lvx_pool_strdup(pool, kname));
    }
    if (!a->disk_loaded)
        load_disk_links(a);
    for (unsigned i = 0; i < a->disk_count; i++)
        if (a->disk[i].rdev == makedev(dev->major, dev->minor))
            add_name(names, &n, max, a->disk[i].path);
    return n;
}

const char *lvx_dev_mapper_path(const struct lvx_lvdev_probe *p, struct lvx_pool *pool,
                                uint32_t maj, uint32_t min, bool *is_link)
{
    char dm_name[NAME_MAX + 1], path[PATH_MAX];
    struct stat st;
    *is_link = false;
    if (!lvx_lvdev_dm_name(p, maj, min, dm_name, sizeof(dm_name)) ||
        snprintf(path, sizeof(path), "%s/mapper/%s", dm_dev_dir(), dm_name) >= (int)sizeof(path) ||
        lstat(path, &st) < 0)
        return NULL;
    if (S_ISLNK(st.st_mode)) {
        *is_link = true;
        if (stat(path, &st) < 0)
            return NULL;
    }
    if (!S_ISBLK(st.st_mode) || st.st_rdev != makedev(maj, min))
        return NULL;
    return lvx_pool_strdup(pool, path);
}
