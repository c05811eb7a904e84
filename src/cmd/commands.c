/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/commands.c - the one table of commands: name, function, summary, the
 * positional arguments and the options each accepts (ids of cmd/options.c).
 *
 * Entry points: lvx_command_find(), lvx_command_table(), lvx_command_usage().
 */
#include "cmd/commands.h"

#include <string.h>

#define END LVX_OPT_COUNT
#define REPORT_OPTS                                                                           \
    LVX_OPT_OPTIONS, LVX_OPT_SORT, LVX_OPT_SELECT, LVX_OPT_NOHEADINGS, LVX_OPT_SEPARATOR,     \
    LVX_OPT_NOSUFFIX, LVX_OPT_UNITS, LVX_OPT_REPORTFORMAT, LVX_OPT_ALL, LVX_OPT_ALIGNED,      \
    LVX_OPT_UNBUFFERED, LVX_OPT_NAMEPREFIXES, LVX_OPT_UNQUOTED, LVX_OPT_ROWS

static const enum lvx_opt_id pvs_opts[] = { REPORT_OPTS, LVX_OPT_SEGMENTS, END };
static const enum lvx_opt_id vgs_opts[] = { REPORT_OPTS, END };
static const enum lvx_opt_id lvs_opts[] = { REPORT_OPTS, LVX_OPT_SEGMENTS, END };
static const enum lvx_opt_id pvdisplay_opts[] = {
    REPORT_OPTS, LVX_OPT_MAPS, LVX_OPT_COLON, LVX_OPT_COLUMNS, LVX_OPT_SHORT, END };
static const enum lvx_opt_id vgdisplay_opts[] = {
    REPORT_OPTS, LVX_OPT_COLON, LVX_OPT_COLUMNS, LVX_OPT_SHORT, END };
static const enum lvx_opt_id lvdisplay_opts[] = {
    REPORT_OPTS, LVX_OPT_MAPS, LVX_OPT_COLON, LVX_OPT_COLUMNS, END };
static const enum lvx_opt_id vgcfgbackup_opts[] = { LVX_OPT_FILE, END };
static const enum lvx_opt_id no_opts[] = { END };

static const struct lvx_command command_table[] = {
    { "help", lvx_cmd_help, "Display help for commands", "[COMMAND ...]", no_opts },
    { "lvdisplay", lvx_cmd_lvdisplay, "Display information about a logical volume",
      "[VG|VG/LV ...]", lvdisplay_opts },
    { "lvs", lvx_cmd_lvs, "Display information about logical volumes", "[VG|VG/LV ...]",
      lvs_opts },
    { "pvdisplay", lvx_cmd_pvdisplay, "Display various attributes of physical volume(s)",
      "[PV ...]", pvdisplay_opts },
    { "pvs", lvx_cmd_pvs, "Display information about physical volumes", "[PV ...]", pvs_opts },
    { "vgcfgbackup", lvx_cmd_vgcfgbackup, "Backup volume group configuration(s)", "[VG ...]",
      vgcfgbackup_opts },
    { "vgdisplay", lvx_cmd_vgdisplay, "Display volume group information", "[VG ...]",
      vgdisplay_opts },
    { "vgs", lvx_cmd_vgs, "Display information about volume groups", "[VG ...]", vgs_opts },
    { "version", lvx_cmd_version, "Display software and driver version information", "",
      no_opts },
};

const struct lvx_command *lvx_command_table(unsigned *count)
{
    *count = sizeof(command_table) / sizeof(command_table[0]);
    return command_table;
}

const struct lvx_command *lvx_command_find(const char *name)
{
    unsigned n;
    const struct lvx_command *t = lvx_command_table(&n);
    for (unsigned i = 0; i < n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    return NULL;
}

static void usage_option(struct lvx_buf *out, const struct lvx_opt_def *d)
{
    if (d->short_name)
        lvx_buf_printf(out, "\t[ -%c|--%s", d->short_name, d->long_name);
    else
        lvx_buf_printf(out, "\t[    --%s", d->long_name);
    if (d->has_arg)
        lvx_buf_printf(out, " %s", d->arg_name);
    lvx_buf_printf(out, " ]\n");
}

void lvx_command_usage(struct lvx_buf *out, const struct lvx_command *cmd)
{
    lvx_buf_printf(out, "  %s - %s\n\n  %s\n", cmd->name, cmd->summary, cmd->name);
    /* the command's own options first, then the common ones */
    for (const enum lvx_opt_id *o = cmd->opts; *o != LVX_OPT_COUNT; o++)
        usage_option(out, lvx_opt_def(*o));
    lvx_buf_puts(out, "\t[ COMMON_OPTIONS ]\n");
    if (cmd->positional[0])
        lvx_buf_printf(out, "\t%s\n", cmd->positional);
    lvx_buf_puts(out, "\n  Common options for lvx:\n");
    for (int i = 0; i < LVX_OPT_COUNT; i++) {
        enum lvx_opt_id id = (enum lvx_opt_id)i;
        /* common = accepted by a command without options of its own */
        if (lvx_opts_allowed(no_opts, id) && lvx_opts_allowed(cmd->opts, id))
            usage_option(out, lvx_opt_def(id));
    }
}

void lvx_command_list(struct lvx_buf *out)
{
    unsigned n;
    const struct lvx_command *t = lvx_command_table(&n);
    lvx_buf_puts(out, "  Available lvx commands:\n  Use 'lvx help <command>' for more information\n   \n");
    for (unsigned i = 0; i < n; i++)
        lvx_buf_printf(out, "  %-15s %s\n", t[i].name, t[i].summary);
}
