/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/lv_slaves.c - the devices under the kernel's active LVM devices (dev/lv_slaves.h):
 * when the kernel has device-mapper (/sys/class/misc/device-mapper), each dm-* of
 * /sys/devices/virtual/block (read through /sys/block/dm-*) whose dm/uuid starts "LVM-", each entry of its slaves/ with
 * its dev number; a slave that is a dm device of the same VG (a layer: -real, -cow,
 * _tdata ...) is left out, as LVM2 leaves internal LVs out of its index.
 */
#include "dev/lv_slaves.h"
#include "dev/lv_dev.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static const char *sysfs(void)
{
    const char *d = getenv("LVX_SYSFS_DIR");
    return d && *d ? d : "/sys";
}

/* dm device KNAME's LVM ids ("LVM-" + 32 + 32 characters); false for others. */
static bool lvm_ids(const char *kname, char vgid[33], char lvid[33])
{
    char path[1024], uuid[256];
    snprintf(path, sizeof(path), "%s/block/%s/dm/uuid", sysfs(), kname);
    if (!lvx_lvdev_read_line(path, uuid, sizeof(uuid)) || strncmp(uuid, "LVM-", 4) != 0 ||
        strlen(uuid) < 4 + 64)
        return false;
    memcpy(vgid, uuid + 4, 32);
    vgid[32] = '\0';
    memcpy(lvid, uuid + 36, 32);
    lvid[32] = '\0';
    return true;
}

static void add(struct lvx_pool *pool, struct lvx_lv_slave **out, unsigned *n, unsigned *cap,
                const struct lvx_lv_slave *s)
{
    if (*n == *cap) {
        unsigned c = *cap ? *cap * 2 : 16;
        *out = lvx_pool_realloc(pool, *out, *cap * sizeof(**out), c * sizeof(**out));
        *cap = c;
    }
    (*out)[(*n)++] = *s;
}

void lvx_lv_slaves(struct lvx_pool *pool, struct lvx_lv_slave **out, unsigned *n)
{
    char path[1024];
    unsigned cap = 0;
    *out = NULL;
    *n = 0;
    /* no device-mapper in the kernel (its control device's class entry): no dm device,
     * nothing listed (the daemon's hosts: every report saved a walk of /sys/block) */
    snprintf(path, sizeof(path), "%s/class/misc/device-mapper", sysfs());
    if (access(path, F_OK) != 0)
        return;
    /* dm devices are virtual: this list leaves out a SAN host's thousands of disks */
    snprintf(path, sizeof(path), "%s/devices/virtual/block", sysfs());
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct lvx_lv_slave s;
        if (strncmp(e->d_name, "dm-", 3) != 0 || !lvm_ids(e->d_name, s.vgid, s.lvid))
            continue;
        snprintf(path, sizeof(path), "%s/block/%s/slaves", sysfs(), e->d_name);
        DIR *sd = opendir(path);
        if (!sd)
            continue;
        struct dirent *se;
        while ((se = readdir(sd)) != NULL) {
            char dev[64], name[256], vg2[33], lv2[33];
            unsigned ma, mi;
            if (se->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/block/%s/slaves/%s/dev", sysfs(), e->d_name,
                     se->d_name);
            if (!lvx_lvdev_read_line(path, dev, sizeof(dev)) || sscanf(dev, "%u:%u", &ma, &mi) != 2)
                continue;
            bool dm = strncmp(se->d_name, "dm-", 3) == 0;
            if (dm && lvm_ids(se->d_name, vg2, lv2) && strcmp(vg2, s.vgid) == 0)
                continue;                   /* a layer of the same VG */
            s.major = ma;
            s.minor = mi;
            s.kname = lvx_pool_strdup(pool, se->d_name);
            snprintf(path, sizeof(path), "%s/block/%s/dm/name", sysfs(), se->d_name);
            s.dm_name = dm && lvx_lvdev_read_line(path, name, sizeof(name)) ? lvx_pool_strdup(pool, name)
                                                                  : NULL;
            add(pool, out, n, &cap, &s);
        }
        closedir(sd);
    }
    closedir(d);
}
