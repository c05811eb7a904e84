/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * activate/user_freeze.c - freezing the filesystem on a served LV's loop device
 * around the reload that adds a snapshot (see user_freeze.h): the mount is found in
 * /proc/self/mountinfo by the device number, frozen with FIFREEZE and thawed with
 * FITHAW; a device without a mounted filesystem is flushed (fsync of the device,
 * which writes its cached blocks through the loop device to the daemon).
 */
#include "activate/user_freeze.h"

#include <fcntl.h>
#include <stdbool.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The mount point of the first mount of major:minor into out (mountinfo's escapes
 * \040 etc. decoded), or false. */
static bool mount_point(int major, int minor, char *out, size_t n)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return false;
    char line[8192], dev[32], mnt[4096];
    snprintf(dev, sizeof(dev), "%d:%d", major, minor);
    bool found = false;
    while (!found && fgets(line, sizeof(line), f)) {
        char id[32], parent[32], mm[32], root[4096];
        if (sscanf(line, "%31s %31s %31s %4095s %4095s", id, parent, mm, root, mnt) != 5 ||
            strcmp(mm, dev) != 0)
            continue;
        size_t k = 0;
        for (const char *p = mnt; *p && k + 1 < n; p++) {
            if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
                p[3] >= '0' && p[3] <= '7') {
                out[k++] = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                p += 3;
            } else {
                out[k++] = *p;
            }
        }
        out[k] = 0;
        found = true;
    }
    fclose(f);
    return found;
}

static void flush_device(int major, int minor)
{
    char path[64];
    snprintf(path, sizeof(path), "/dev/block/%d:%d", major, minor);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

void lvx_user_freeze(struct lvx_user_freeze *f, int major, int minor)
{
    char mnt[4096];
    f->fd = -1;
    if (major < 0 || minor < 0)
        return;
    if (mount_point(major, minor, mnt, sizeof(mnt))) {
        int fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0 && ioctl(fd, FIFREEZE, 0) == 0) {
            f->fd = fd;
            return;
        }
        if (fd >= 0) {
            syncfs(fd);
            close(fd);
        }
    }
    flush_device(major, minor);
}

void lvx_user_thaw(struct lvx_user_freeze *f)
{
    if (f->fd < 0)
        return;
    ioctl(f->fd, FITHAW, 0);
    close(f->fd);
    f->fd = -1;
}
