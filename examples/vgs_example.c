/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vgs_example.c - the smallest liblvx program: run "vgs --noheadings VG" in-process
 * and print what arrives through the log callback.
 *
 *   cc vgs_example.c $(pkg-config --cflags --libs lvx) -o vgs_example
 *   ./vgs_example [VG] [extra vgs arguments ...]
 *
 * Report lines arrive with level LVX_MSG_OUTPUT and are printed on stdout as is;
 * messages are printed on stderr with their level.  Exit status 0 when the command
 * succeeded, else 1 (the error is also printed).
 */
#include <stdio.h>
#include <string.h>

#include <lvx.h>

static void log_line(int level, const char *file, int line, int dm_errno, const char *message)
{
    (void)file;
    (void)line;
    (void)dm_errno;
    if (level == LVX_MSG_OUTPUT)
        printf("%s\n", message);
    else
        fprintf(stderr, "[level %d] %s\n", level, message);
}

int main(int argc, char **argv)
{
    char cmdline[4096];
    int n = snprintf(cmdline, sizeof(cmdline), "vgs --noheadings %s", argc > 1 ? argv[1] : "vg1");
    for (int i = 2; i < argc && n > 0 && (size_t)n < sizeof(cmdline); i++)
        n += snprintf(cmdline + n, sizeof(cmdline) - (size_t)n, " %s", argv[i]);

    lvx_handle *h = lvx_init();
    lvx_log_fn(h, log_line);
    int rc = lvx_run(h, cmdline);
    if (rc != LVX_ECMD_PROCESSED)
        fprintf(stderr, "vgs failed (%d): %s\n", rc, lvx_errmsg(h));
    lvx_exit(h);
    return rc == LVX_ECMD_PROCESSED ? 0 : 1;
}
