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
    LVX_OPT_UNBUFFERED, LVX_OPT_NAMEPREFIXES, LVX_OPT_UNQUOTED, LVX_OPT_ROWS, LVX_OPT_PARTIAL, \
    LVX_OPT_READONLY, LVX_OPT_IGNORELOCKINGFAILURE

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
static const enum lvx_opt_id pvcreate_opts[] = {
    LVX_OPT_PVMETADATACOPIES, LVX_OPT_METADATACOPIES_PV, LVX_OPT_METADATASIZE,
    LVX_OPT_DATAALIGNMENT, LVX_OPT_DATAALIGNMENTOFFSET, LVX_OPT_LABELSECTOR,
    LVX_OPT_BOOTLOADERAREASIZE, LVX_OPT_METADATAIGNORE, LVX_OPT_UUID_STR, LVX_OPT_RESTOREFILE,
    LVX_OPT_NORESTOREFILE, LVX_OPT_ZERO, LVX_OPT_SETPHYSICALVOLUMESIZE, END };
static const enum lvx_opt_id lvcreate_opts[] = {
    LVX_OPT_SIZE, LVX_OPT_EXTENTS, LVX_OPT_NAME, LVX_OPT_STRIPES, LVX_OPT_STRIPESIZE,
    LVX_OPT_TYPE, LVX_OPT_ALLOC, LVX_OPT_CONTIGUOUS, LVX_OPT_PERMISSION, LVX_OPT_READAHEAD,
    LVX_OPT_ADDTAG, LVX_OPT_ZERO, LVX_OPT_WIPESIGNATURES, LVX_OPT_ACTIVATE,
    LVX_OPT_IGNOREACTIVATIONSKIP, LVX_OPT_NOUDEVSYNC, LVX_OPT_SNAPSHOT, LVX_OPT_CHUNKSIZE, END };
static const enum lvx_opt_id lvresize_opts[] = {
    LVX_OPT_SIZE, LVX_OPT_EXTENTS, LVX_OPT_STRIPES, LVX_OPT_STRIPESIZE, LVX_OPT_ALLOC, END };
static const enum lvx_opt_id lvchange_opts[] = {
    LVX_OPT_PERMISSION, LVX_OPT_READAHEAD, LVX_OPT_ADDTAG, LVX_OPT_DELTAG, LVX_OPT_ALLOC,
    LVX_OPT_CONTIGUOUS, LVX_OPT_ACTIVATE, LVX_OPT_ACTIVATIONMODE, LVX_OPT_PARTIAL,
    LVX_OPT_IGNOREACTIVATIONSKIP, LVX_OPT_IGNORELOCKINGFAILURE, LVX_OPT_NOUDEVSYNC, END };
static const enum lvx_opt_id pvchange_opts[] = {
    LVX_OPT_ALLOCATABLE, LVX_OPT_METADATAIGNORE, LVX_OPT_UUID, LVX_OPT_ADDTAG, LVX_OPT_DELTAG,
    LVX_OPT_ALL, END };
static const enum lvx_opt_id pvresize_opts[] = { LVX_OPT_SETPHYSICALVOLUMESIZE, END };
static const enum lvx_opt_id vgcreate_opts[] = {
    LVX_OPT_PHYSICALEXTENTSIZE, LVX_OPT_VGMETADATACOPIES, LVX_OPT_METADATACOPIES_VG,
    LVX_OPT_ALLOC, LVX_OPT_ADDTAG, LVX_OPT_MAXLOGICALVOLUMES, LVX_OPT_MAXPHYSICALVOLUMES, END };
static const enum lvx_opt_id vgchange_opts[] = {
    LVX_OPT_RESIZEABLE, LVX_OPT_VGMETADATACOPIES, LVX_OPT_METADATACOPIES_VG, LVX_OPT_ALLOC,
    LVX_OPT_ADDTAG, LVX_OPT_DELTAG, LVX_OPT_UUID, LVX_OPT_MAXLOGICALVOLUMES,
    LVX_OPT_MAXPHYSICALVOLUMES, LVX_OPT_ACTIVATE, LVX_OPT_ACTIVATIONMODE, LVX_OPT_PARTIAL,
    LVX_OPT_IGNOREACTIVATIONSKIP, LVX_OPT_IGNORELOCKINGFAILURE, LVX_OPT_NOUDEVSYNC,
    LVX_OPT_AUTOACTIVATION, END };
static const enum lvx_opt_id vgreduce_opts[] = { LVX_OPT_ALL, LVX_OPT_REMOVEMISSING, END };
static const enum lvx_opt_id vgck_opts[] = { LVX_OPT_UPDATEMETADATA, END };
static const enum lvx_opt_id vgcfgrestore_opts[] = { LVX_OPT_FILE, LVX_OPT_LIST,
                                                     LVX_OPT_FORCE_LONG, END };
static const enum lvx_opt_id config_opts[] = { LVX_OPT_TYPE, LVX_OPT_TYPECONFIG,
    LVX_OPT_WITHCOMMENTS, LVX_OPT_MERGEDCONFIG, END };
static const enum lvx_opt_id pvscan_opts[] = { LVX_OPT_CACHE, LVX_OPT_ACTIVATE, LVX_OPT_EXPORTED,
    LVX_OPT_NOVOLUMEGROUP, LVX_OPT_SHORT, LVX_OPT_UUID, LVX_OPT_IGNORELOCKINGFAILURE,
    LVX_OPT_NOUDEVSYNC, LVX_OPT_AUTOACTIVATION, LVX_OPT_IGNOREACTIVATIONSKIP, END };
static const enum lvx_opt_id vgscan_opts[] = { LVX_OPT_MKNODES, LVX_OPT_IGNORELOCKINGFAILURE, END };
static const enum lvx_opt_id lvscan_opts[] = { LVX_OPT_ALL, LVX_OPT_BLOCKDEVICE,
    LVX_OPT_IGNORELOCKINGFAILURE, LVX_OPT_READONLY, END };
static const enum lvx_opt_id vgmknodes_opts[] = { LVX_OPT_IGNORELOCKINGFAILURE, END };
static const enum lvx_opt_id no_opts[] = { END };
static const enum lvx_opt_id daemon_opts[] = { LVX_OPT_FORCE, END };

static const struct lvx_command command_table[] = {
    { "config", lvx_cmd_config, "Display the configuration (lvm.conf merged with --config)",
      "[SECTION|SECTION/KEY ...]", config_opts },
    { "shell", lvx_cmd_shell,
      "Run commands from a terminal, stdin or FILE (--status-fd N, --no-cache)", "[FILE]",
      no_opts },
    { "daemon", lvx_cmd_daemon, "Start, stop or show the daemon of user-space activation",
      "[start|stop|status|run]", daemon_opts },
    { "help", lvx_cmd_help, "Display help for commands", "[COMMAND ...]", no_opts },
    { "lvcreate", lvx_cmd_lvcreate, "Create a logical volume", "VG [PV[:PE-PE] ...]",
      lvcreate_opts },
    { "lvchange", lvx_cmd_lvchange, "Change the attributes of logical volume(s)",
      "VG|VG/LV ...", lvchange_opts },
    { "lvdisplay", lvx_cmd_lvdisplay, "Display information about a logical volume",
      "[VG|VG/LV ...]", lvdisplay_opts },
    { "lvextend", lvx_cmd_lvextend, "Add space to a logical volume", "VG/LV [PV[:PE-PE] ...]",
      lvresize_opts },
    { "lvreduce", lvx_cmd_lvreduce, "Reduce the size of a logical volume", "VG/LV",
      lvresize_opts },
    { "lvremove", lvx_cmd_lvremove, "Remove logical volume(s) from the system",
      "VG|VG/LV ...", no_opts },
    { "lvrename", lvx_cmd_lvrename, "Rename a logical volume", "VG OLD NEW | VG/OLD VG/NEW",
      no_opts },
    { "lvresize", lvx_cmd_lvresize, "Resize a logical volume", "VG/LV [PV[:PE-PE] ...]",
      lvresize_opts },
    { "lvs", lvx_cmd_lvs, "Display information about logical volumes", "[VG|VG/LV ...]",
      lvs_opts },
    { "pvchange", lvx_cmd_pvchange, "Change attributes of physical volume(s)", "PV ...",
      pvchange_opts },
    { "lvtable", lvx_cmd_lvtable, "Print the device-mapper table of logical volume(s)",
      "[VG|VG/LV ...]", no_opts },
    { "pvcreate", lvx_cmd_pvcreate, "Initialize physical volume(s) for use by LVM", "PV ...",
      pvcreate_opts },
    { "pvdisplay", lvx_cmd_pvdisplay, "Display various attributes of physical volume(s)",
      "[PV ...]", pvdisplay_opts },
    { "pvremove", lvx_cmd_pvremove, "Remove LVM label(s) from physical volume(s)", "PV ...",
      no_opts },
    { "pvresize", lvx_cmd_pvresize, "Resize physical volume(s)", "PV ...", pvresize_opts },
    { "pvs", lvx_cmd_pvs, "Display information about physical volumes", "[PV ...]", pvs_opts },
    { "vgcfgbackup", lvx_cmd_vgcfgbackup, "Backup volume group configuration(s)", "[VG ...]",
      vgcfgbackup_opts },
    { "vgcfgrestore", lvx_cmd_vgcfgrestore, "Restore volume group configuration", "VG",
      vgcfgrestore_opts },
    { "vgchange", lvx_cmd_vgchange, "Change volume group attributes", "[VG ...]", vgchange_opts },
    { "vgck", lvx_cmd_vgck, "Check the consistency of volume group(s)", "[VG ...]", vgck_opts },
    { "vgcreate", lvx_cmd_vgcreate, "Create a volume group", "VG PV ...", vgcreate_opts },
    { "vgdisplay", lvx_cmd_vgdisplay, "Display volume group information", "[VG ...]",
      vgdisplay_opts },
    { "vgextend", lvx_cmd_vgextend, "Add physical volumes to a volume group", "VG PV ...",
      no_opts },
    { "vgreduce", lvx_cmd_vgreduce, "Remove physical volume(s) from a volume group", "VG [PV ...]",
      vgreduce_opts },
    { "vgremove", lvx_cmd_vgremove, "Remove volume group(s)", "VG ...", no_opts },
    { "vgrename", lvx_cmd_vgrename, "Rename a volume group", "VG|VG_UUID NEW_VG", no_opts },
    { "vgs", lvx_cmd_vgs, "Display information about volume groups", "[VG ...]", vgs_opts },
    { "version", lvx_cmd_version, "Display software and driver version information", "",
      no_opts },
    { "lvmconfig", lvx_cmd_config, "Display and manipulate configuration information",
      "[SECTION|SECTION/KEY ...]", config_opts },
    { "dumpconfig", lvx_cmd_config, "Display and manipulate configuration information",
      "[SECTION|SECTION/KEY ...]", config_opts },
    { "segtypes", lvx_cmd_segtypes, "List available segment types", "", no_opts },
    { "formats", lvx_cmd_formats, "List available metadata formats", "", no_opts },
    { "pvscan", lvx_cmd_pvscan, "List all physical volumes", "[--cache [PV ...]]", pvscan_opts },
    { "vgscan", lvx_cmd_vgscan, "Search for all volume groups", "", vgscan_opts },
    { "lvscan", lvx_cmd_lvscan, "List all logical volumes in all volume groups", "",
      lvscan_opts },
    { "vgmknodes", lvx_cmd_vgmknodes,
      "Create the special files for volume group devices in /dev", "[VG|VG/LV ...]",
      vgmknodes_opts },
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
    lvx_command_list_as(out, "lvx");
}

void lvx_command_list_as(struct lvx_buf *out, const char *prog)
{
    unsigned n;
    const struct lvx_command *t = lvx_command_table(&n);
    lvx_buf_printf(out, "  Available %s commands:\n  Use '%s help <command>' for more information\n   \n",
                   prog, prog);
    for (unsigned i = 0; i < n; i++)
        lvx_buf_printf(out, "  %-15s %s\n", t[i].name, t[i].summary);
}
