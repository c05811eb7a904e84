/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/segtypes.c - `lvx segtypes` and `lvx formats`, LVM2's lists in its layout (one
 * indented name per line).  segtypes lists the segment types lvx can create (clients
 * such as libblockdev read it to decide which LV types they may ask for); every other
 * type LVM2 writes is still read, reported and written back intact.  formats: lvm2.
 * The names are messages of print level (LVM2's log_print), not report output: on
 * stdout as "  name", and in the lvm shell with a command log (LVM_REPORT_FD) entries
 * of type "print" in that log, as LVM2's shell gives them.
 */
#include "cmd/commands.h"

static int print_lines(struct lvx_cmd_env *env, const char *const *names)
{
    for (; *names; names++)
        lvx_notice(env->ctx, "%s", *names);
    return 0;
}

int lvx_cmd_segtypes(struct lvx_cmd_env *env)
{
    /* in LVM2's order; not cache, cache-pool, vdo, vdo-pool, writecache, integrity and
     * raid10_near (lvx does not create them) */
    static const char *const created[] = {
        "linear", "striped", "zero", "error", "snapshot", "mirror", "raid0", "raid0_meta",
        "raid1", "raid10", "raid4", "raid5", "raid5_n", "raid5_la", "raid5_ls", "raid5_ra",
        "raid5_rs", "raid6", "raid6_n_6", "raid6_nc", "raid6_nr", "raid6_zr", "raid6_ls_6",
        "raid6_rs_6", "raid6_la_6", "raid6_ra_6", "thin-pool",
        "thin", NULL,
    };
    return print_lines(env, created);
}

int lvx_cmd_formats(struct lvx_cmd_env *env)
{
    static const char *const formats[] = { "lvm2", NULL };
    return print_lines(env, formats);
}
