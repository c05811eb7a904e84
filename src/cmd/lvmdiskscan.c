/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvmdiskscan.c - `lvx lvmdiskscan [-l]`: every device the filters accept, as
 * LVM2 2.03 lists it: "  NAME [      64.00 MiB] LVM physical volume" (the name padded
 * to the longest one, the size right-aligned in 15 columns, the words only for a
 * device with a PV label), then the counts: disks and partitions (LVM2 tells them
 * apart by the name's last character: a digit makes a partition) and the same two
 * counts for the PVs.  -l/--lvmpartition lists the PVs only, without the first two
 * counts, after "WARNING: only considering LVM devices" on stderr.
 *
 * Only labels are read (no VG is assembled, so no VG warning is printed); devices
 * below devices/pv_min_size are left out, as LVM2's filters leave them out.  The order
 * is LVM2's: its device cache is a binary tree keyed by the device number (the 32
 * low bits of glibc's dev_t) with the key's bytes reversed, walked in key order.
 */
#include "cmd/commands.h"
#include "cmd/vgcmd.h"
#include "dev/dev.h"
#include "meta/read.h"

#include <stdlib.h>
#include <string.h>

struct entry {
    struct lvx_dev *dev;
    uint32_t key;
    unsigned index;            /* scan order: ties (regular files) keep it */
    bool pv;
    uint64_t bytes;
};

static int by_key(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

struct counts {
    unsigned disks, parts, pv_disks, pv_parts;
};

static void count(const char *name, unsigned *disks, unsigned *parts)
{
    size_t n = strlen(name);
    if (n && name[n - 1] >= '0' && name[n - 1] <= '9')
        (*parts)++;
    else
        (*disks)++;
}

static const char *plural(unsigned n)
{
    return n == 1 ? "" : "s";
}

/* The size of a device not held open by the scan: opened for it (the system list's
 * size comes from /proc/partitions in KiB).  false when it cannot be opened (LVM2's
 * filters leave such a device out). */
static bool device_size(struct lvx_cmd_env *env, struct lvx_dev *dev, uint64_t *bytes)
{
    if (dev->fd < 0) {
        if (lvx_dev_open(env->ctx, dev, false) < 0) {
            lvx_error_clear(env->ctx);
            return false;
        }
        *bytes = dev->size;
        lvx_dev_close(env->ctx, dev);
        return true;
    }
    *bytes = dev->size;
    return true;
}

static void list_line(struct lvx_cmd_env *env, struct lvx_buf *b, int width, const char *name,
                      uint64_t bytes, const char *what)
{
    struct lvx_buf size = LVX_BUF_INIT;
    lvx_cmd_display_size(&size, bytes / 512, env->args->units, env->args->unit_bytes);
    lvx_buf_printf(b, "  %-*s [%15s] %s\n", width, name, lvx_buf_str(&size), what);
    lvx_buf_free(&size);
}

int lvx_cmd_lvmdiskscan(struct lvx_cmd_env *env)
{
    if (env->args->argc > 0)
        return lvx_vgcmd_extra_arg(env->args->argv[0]);
    bool only_pvs = env->args->count[LVX_OPT_LVMPARTITION] > 0;
    if (only_pvs)
        lvx_warn(env->ctx, "WARNING: only considering LVM devices");

    struct lvx_scan_opts opts = { .devices = env->args->devices,
                                  .device_count = env->args->device_count };
    struct lvx_scan *scan = NULL;
    if (lvx_scan(env->ctx, &opts, &scan) < 0)
        return lvx_cmd_fail(env);

    unsigned n = scan->devs.count, listed = 0;
    uint64_t min_bytes = lvx_scan_pv_min_bytes(env->ctx);
    struct entry *e = lvx_pool_alloc(env->pool, (n + 1) * sizeof(*e));
    int width = 0;
    for (unsigned i = 0; i < n; i++) {
        struct lvx_dev *dev = scan->devs.devs[i];
        struct entry *x = &e[listed];
        *x = (struct entry){ dev, lvx_dev_tree_key(dev->major, dev->minor), i, false, 0 };
        for (unsigned j = 0; j < scan->pv_count && !x->pv; j++)
            x->pv = scan->pvs[j].dev == dev;
        if (!device_size(env, dev, &x->bytes) || (x->bytes < min_bytes && !x->pv))
            continue;                       /* left out by LVM2's filters */
        int len = (int)strlen(dev->path);
        width = len > width ? len : width;
        listed++;
    }
    n = listed;
    qsort(e, n, sizeof(*e), by_key);

    struct lvx_buf b = LVX_BUF_INIT;
    struct counts c = { 0 };
    int rc;
    for (unsigned i = 0; i < n; i++) {
        const char *name = e[i].dev->path;
        if (e[i].pv) {
            list_line(env, &b, width, name, e[i].bytes, "LVM physical volume");
            count(name, &c.pv_disks, &c.pv_parts);
        } else if (!only_pvs) {
            list_line(env, &b, width, name, e[i].bytes, "");
            count(name, &c.disks, &c.parts);
        }
    }
    if (!only_pvs) {
        lvx_buf_printf(&b, "  %u disk%s\n", c.disks, plural(c.disks));
        lvx_buf_printf(&b, "  %u partition%s\n", c.parts, plural(c.parts));
    }
    lvx_buf_printf(&b, "  %u LVM physical volume whole disk%s\n", c.pv_disks, plural(c.pv_disks));
    lvx_buf_printf(&b, "  %u LVM physical volume%s\n", c.pv_parts, plural(c.pv_parts));
    rc = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    lvx_scan_free(scan);
    return rc;
}
