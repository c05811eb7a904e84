/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * daemon/stacked.c - is an LV's loop device a PV of another LV the daemon serves (a
 * VG stacked on an LV, devices/scan_lvs = 1)?  Then it is in use, as the kernel
 * counts an LV a dm table maps onto as open: it is not deactivated before the LVs
 * on it.  The daemon's PV opens are not exclusive, so lvxd_loop_busy() cannot tell.
 *
 * Entry point: lvxd_loop_stacked().
 */
#include "daemon/daemon_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Does the space-separated device list name the device rdev? */
static bool lists_device(const char *devices, dev_t rdev)
{
    char name[4096];
    for (const char *p = devices; p && *p;) {
        size_t n = strcspn(p, " ");
        struct stat st;
        if (n && n < sizeof(name)) {
            memcpy(name, p, n);
            name[n] = '\0';
            if (stat(name, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == rdev)
                return true;
        }
        p += n + (p[n] == ' ');
    }
    return false;
}

bool lvxd_loop_stacked(const char *loop)
{
    struct stat st;
    if (!loop || !loop[0] || stat(loop, &st) < 0 || !S_ISBLK(st.st_mode))
        return false;
    bool held = false;
    pthread_mutex_lock(&lvxd_lvs_mutex);
    for (const struct lvxd_lv *v = lvxd_lvs; v && !held; v = v->next)
        held = !v->dying && strcmp(v->loop, loop) != 0 && lists_device(v->devices, st.st_rdev);
    pthread_mutex_unlock(&lvxd_lvs_mutex);
    return held;
}
