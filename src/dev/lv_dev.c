/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/lv_dev.c - which devices are active LVs, and their LV names (see lv_dev.h).
 */
#include "dev/lv_dev.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/run_dir.h"

#define LOOP_MAJOR 7

void lvx_lvdev_probe_init(struct lvx_lvdev_probe *p)
{
    p->dm_major = -1;
    FILE *f = fopen("/proc/devices", "re");
    char line[128];
    bool block = false;
    while (f && fgets(line, sizeof(line), f)) {
        int maj;
        char name[64];
        if (strncmp(line, "Block devices:", 14) == 0)
            block = true;
        else if (block && sscanf(line, "%d %63s", &maj, name) == 2 &&
                 strcmp(name, "device-mapper") == 0)
            p->dm_major = maj;
    }
    if (f)
        fclose(f);
    /* the daemon's mount: <run dir>/vol, the run directory of daemon/client.c
     * (lvx_daemon_run_dir); looked for only while its state file lists active LVs
     * (lvx_daemon_has_state), so loop devices cost nothing otherwise; the FUSE mount
     * itself is never touched */
    char *real = realpath(lvx_run_dir(), NULL);   /* as the kernel shows it */
    char state[PATH_MAX + 8];
    struct stat st;
    snprintf(state, sizeof(state), "%s/" LVX_RUN_DAEMON_STATE, real ? real : "");
    p->have_vols = real && strlen(real) + 5 < sizeof(p->vol_dir) && stat(state, &st) == 0 &&
                   st.st_size > 0;
    if (p->have_vols)
        snprintf(p->vol_dir, sizeof(p->vol_dir), "%s/" LVX_RUN_DAEMON_MOUNT, real);
    else
        p->vol_dir[0] = '\0';
    free(real);
}

bool lvx_lvdev_read_line(const char *path, char *out, size_t n)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool ok = fgets(out, (int)n, f) != NULL;
    fclose(f);
    if (ok)
        out[strcspn(out, "\n")] = '\0';
    return ok;
}

/* First line of /sys/dev/block/MAJ:MIN/<leaf>; false if unreadable. */
static bool sys_line(uint32_t maj, uint32_t min, const char *leaf, char *out, size_t n)
{
    char path[96];
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", maj, min, leaf);
    return lvx_lvdev_read_line(path, out, n);
}

bool lvx_lvdev_is_lv(const struct lvx_lvdev_probe *p, uint32_t maj, uint32_t min,
                     char *dm_name, size_t n)
{
    char line[PATH_MAX];
    if (p->dm_major >= 0 && maj == (uint32_t)p->dm_major) {
        if (!sys_line(maj, min, "dm/uuid", line, sizeof(line)) || strncmp(line, "LVM-", 4) != 0)
            return false;
        if (dm_name && !sys_line(maj, min, "dm/name", dm_name, n))
            dm_name[0] = '\0';
        return true;
    }
    if (maj != LOOP_MAJOR || !p->have_vols ||
        !sys_line(maj, min, "loop/backing_file", line, sizeof(line)))
        return false;
    size_t len = strlen(p->vol_dir);
    if (strncmp(line, p->vol_dir, len) != 0 || line[len] != '/' || !line[len + 1] ||
        strchr(line + len + 1, '/'))
        return false;
    if (dm_name)
        snprintf(dm_name, n, "%s", line + len + 1);
    return true;
}

bool lvx_lvdev_dm_name(const struct lvx_lvdev_probe *p, uint32_t maj, uint32_t min,
                       char *name, size_t n)
{
    return p->dm_major >= 0 && maj == (uint32_t)p->dm_major && sys_line(maj, min, "dm/name", name, n) &&
           name[0];
}

bool lvx_lvdev_layer(const struct lvx_lvdev_probe *p, uint32_t maj, uint32_t min)
{
    char line[PATH_MAX];
    return p->dm_major >= 0 && maj == (uint32_t)p->dm_major &&
           sys_line(maj, min, "dm/uuid", line, sizeof(line)) && strncmp(line, "LVM-", 4) == 0 &&
           strlen(line) > 4 + 64;
}

/* Undo the doubling of dashes of one half of a dm name (len bytes at s). */
static char *undash(struct lvx_pool *pool, const char *s, size_t len)
{
    char *out = lvx_pool_alloc(pool, len + 1);
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        out[k++] = s[i];
        if (s[i] == '-' && i + 1 < len && s[i + 1] == '-')
            i++;
    }
    out[k] = '\0';
    return out;
}

void lvx_lvdev_aliases(struct lvx_pool *pool, const char *dm_name, const char *out[2])
{
    const char *dir = getenv("DM_DEV_DIR");
    if (!dir || !*dir)
        dir = "/dev";
    out[0] = out[1] = NULL;
    if (!dm_name || !*dm_name)
        return;
    size_t dlen = strlen(dir), nlen = strlen(dm_name);
    char *m = lvx_pool_alloc(pool, dlen + nlen + 9);
    snprintf(m, dlen + nlen + 9, "%s/mapper/%s", dir, dm_name);
    out[0] = m;
    for (size_t i = 0; i < nlen; i++) {
        if (dm_name[i] != '-')
            continue;
        if (dm_name[i + 1] == '-') {         /* a dash of a name, doubled */
            i++;
            continue;
        }
        if (i == 0 || !dm_name[i + 1])
            return;
        char *vg = undash(pool, dm_name, i), *lv = undash(pool, dm_name + i + 1, nlen - i - 1);
        size_t total = dlen + strlen(vg) + strlen(lv) + 3;
        char *v = lvx_pool_alloc(pool, total);
        snprintf(v, total, "%s/%s/%s", dir, vg, lv);
        out[1] = v;
        return;
    }
}

unsigned lvx_lvdev_drop_own_opens(uint32_t maj, uint32_t min)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    unsigned n = 0;
    int null = -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        struct stat st;
        if (*end || end == e->d_name || fd == dirfd(d) || fstat((int)fd, &st) < 0 ||
            !S_ISBLK(st.st_mode) || st.st_rdev != makedev(maj, min))
            continue;
        if (null < 0 && (null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
            break;
        if (dup3(null, (int)fd, O_CLOEXEC) == (int)fd)
            n++;
    }
    closedir(d);
    if (null >= 0)
        close(null);
    return n;
}

/* Holders of maj:min (/sys/dev/block/MAJ:MIN/holders/): any, or (lvs_only) those that
 * are active LVs (an "LVM-" DM UUID, LVM2's dev_is_used_by_active_lv). */
static bool holders(uint32_t maj, uint32_t min, bool lvs_only)
{
    char path[96];
    snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders", maj, min);
    DIR *d = opendir(path);
    if (!d)
        return false;
    bool any = false;
    struct dirent *e;
    while (!any && (e = readdir(d)) != NULL) {
        char uuid_path[PATH_MAX], uuid[160];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(uuid_path, sizeof(uuid_path), "/sys/block/%s/dm/uuid", e->d_name);
        any = !lvs_only || (lvx_lvdev_read_line(uuid_path, uuid, sizeof(uuid)) &&
                            strncmp(uuid, "LVM-", 4) == 0);
    }
    closedir(d);
    return any;
}

bool lvx_lvdev_has_holders(uint32_t maj, uint32_t min)
{
    return holders(maj, min, false);
}

bool lvx_lvdev_used_by_lv(uint32_t maj, uint32_t min)
{
    return holders(maj, min, true);
}
