/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/run_dir.c - the run directory's path (util/run_dir.h).
 */
#include "util/run_dir.h"

#include <stdlib.h>

const char *lvx_run_dir(void)
{
    const char *d = getenv("LVX_RUN_DIR");
    return d && *d ? d : LVX_RUN_DIR_DEFAULT;
}
