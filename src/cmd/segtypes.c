/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/segtypes.c - `lvx segtypes` and `lvx formats`, LVM2's lists in its layout (one
 * indented name per line).  segtypes lists the segment types lvx can create (clients
 * such as libblockdev read it to decide which LV types they may ask for); every other
 * type LVM2 writes is still read, reported and written back intact.  formats: lvm2.
 */
#include "cmd/commands.h"

static int print_lines(const char *const *names)
{
    struct lvx_buf b = LVX_BUF_INIT;
    for (; *names; names++)
        lvx_buf_printf(&b, "  %s\n", *names);
    int rc = lvx_cmd_output(&b);
    lvx_buf_free(&b);
    return rc;
}

int lvx_cmd_segtypes(struct lvx_cmd_env *env)
{
    static const char *const created[] = { "linear", "striped", NULL };
    (void)env;
    return print_lines(created);
}

int lvx_cmd_formats(struct lvx_cmd_env *env)
{
    static const char *const formats[] = { "lvm2", NULL };
    (void)env;
    return print_lines(formats);
}
