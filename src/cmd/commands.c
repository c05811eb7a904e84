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
    LVX_OPT_READONLY, LVX_OPT_IGNORELOCKINGFAILURE, LVX_OPT_BINARY, LVX_OPT_SHARED,         \
    LVX_OPT_FOREIGN

/* the options of the implicit pvcreate of vgcreate and vgextend */
#define NEW_PV_OPTS                                                                           \
    LVX_OPT_METADATATYPE, LVX_OPT_ZERO, LVX_OPT_LABELSECTOR, LVX_OPT_METADATASIZE,            \
    LVX_OPT_PVMETADATACOPIES, LVX_OPT_DATAALIGNMENT, LVX_OPT_DATAALIGNMENTOFFSET

static const enum lvx_opt_id pvs_opts[] = { REPORT_OPTS, LVX_OPT_SEGMENTS, END };
static const enum lvx_opt_id vgs_opts[] = { REPORT_OPTS, END };
static const enum lvx_opt_id fullreport_opts[] = { REPORT_OPTS, LVX_OPT_CONFIGREPORT, END };
static const enum lvx_opt_id lvs_opts[] = { REPORT_OPTS, LVX_OPT_SEGMENTS, END };
static const enum lvx_opt_id pvdisplay_opts[] = {
    REPORT_OPTS, LVX_OPT_MAPS, LVX_OPT_COLON, LVX_OPT_COLUMNS, LVX_OPT_SHORT, END };
/* LVM2's vgdisplay has no --all */
static const enum lvx_opt_id vgdisplay_opts[] = {
    LVX_OPT_OPTIONS, LVX_OPT_SORT, LVX_OPT_SELECT, LVX_OPT_NOHEADINGS, LVX_OPT_SEPARATOR,
    LVX_OPT_NOSUFFIX, LVX_OPT_UNITS, LVX_OPT_REPORTFORMAT, LVX_OPT_ALIGNED,
    LVX_OPT_UNBUFFERED, LVX_OPT_NAMEPREFIXES, LVX_OPT_UNQUOTED, LVX_OPT_ROWS, LVX_OPT_PARTIAL,
    LVX_OPT_READONLY, LVX_OPT_IGNORELOCKINGFAILURE, LVX_OPT_BINARY, LVX_OPT_SHARED,
    LVX_OPT_FOREIGN, LVX_OPT_COLON, LVX_OPT_COLUMNS, LVX_OPT_SHORT, LVX_OPT_ACTIVEVOLUMEGROUPS,
    END };
static const enum lvx_opt_id lvdisplay_opts[] = {
    REPORT_OPTS, LVX_OPT_MAPS, LVX_OPT_COLON, LVX_OPT_COLUMNS, END };
static const enum lvx_opt_id vgcfgbackup_opts[] = { LVX_OPT_FILE, LVX_OPT_FOREIGN, END };
static const enum lvx_opt_id pvcreate_opts[] = {
    LVX_OPT_PVMETADATACOPIES, LVX_OPT_METADATACOPIES_PV, LVX_OPT_METADATASIZE,
    LVX_OPT_DATAALIGNMENT, LVX_OPT_DATAALIGNMENTOFFSET, LVX_OPT_LABELSECTOR,
    LVX_OPT_BOOTLOADERAREASIZE, LVX_OPT_METADATAIGNORE, LVX_OPT_UUID_STR, LVX_OPT_RESTOREFILE,
    LVX_OPT_NORESTOREFILE, LVX_OPT_ZERO, LVX_OPT_SETPHYSICALVOLUMESIZE, LVX_OPT_METADATATYPE,
    END };
static const enum lvx_opt_id lvcreate_opts[] = {
    LVX_OPT_SIZE, LVX_OPT_EXTENTS, LVX_OPT_NAME, LVX_OPT_STRIPES, LVX_OPT_STRIPESIZE,
    LVX_OPT_TYPE, LVX_OPT_ALLOC, LVX_OPT_CONTIGUOUS, LVX_OPT_PERMISSION, LVX_OPT_READAHEAD,
    LVX_OPT_ADDTAG, LVX_OPT_ZERO, LVX_OPT_WIPESIGNATURES, LVX_OPT_ACTIVATE, LVX_OPT_PERSISTENT,
    LVX_OPT_MAJOR, LVX_OPT_MINOR, LVX_OPT_IGNOREACTIVATIONSKIP, LVX_OPT_NOUDEVSYNC,
    LVX_OPT_MIRRORS, LVX_OPT_REGIONSIZE, LVX_OPT_NOSYNC, LVX_OPT_MINRECOVERYRATE,
    LVX_OPT_MAXRECOVERYRATE, LVX_OPT_SNAPSHOT, LVX_OPT_CHUNKSIZE, LVX_OPT_THIN,
    LVX_OPT_THINPOOL, LVX_OPT_VIRTUALSIZE, LVX_OPT_VIRTUALORIGINSIZE, LVX_OPT_POOLMETADATASIZE,
    LVX_OPT_POOLMETADATASPARE,
    LVX_OPT_ERRORWHENFULL, LVX_OPT_MONITOR, LVX_OPT_IGNOREMONITORING,
    LVX_OPT_DISCARDS, LVX_OPT_SETACTIVATIONSKIP, LVX_OPT_MIRRORLOG, LVX_OPT_CORELOG,
    LVX_OPT_METADATAPROFILE, END };
#define RESIZE_OPTS                                                                           \
    LVX_OPT_SIZE, LVX_OPT_EXTENTS, LVX_OPT_STRIPES, LVX_OPT_STRIPESIZE, LVX_OPT_ALLOC,        \
    LVX_OPT_POOLMETADATASIZE, LVX_OPT_TYPE
static const enum lvx_opt_id lvresize_opts[] = { RESIZE_OPTS, END };
/* LVM2's lvextend also takes -m, and --usepolicies (its lvresize/lvreduce know neither) */
static const enum lvx_opt_id lvextend_opts[] = {
    RESIZE_OPTS, LVX_OPT_MIRRORS, LVX_OPT_USEPOLICIES, LVX_OPT_USE_POLICIES, END };
static const enum lvx_opt_id lvconvert_opts[] = {
    LVX_OPT_MIRRORS, LVX_OPT_TYPE, LVX_OPT_REGIONSIZE, LVX_OPT_REPAIR, LVX_OPT_REPLACE,
    LVX_OPT_MERGE, LVX_OPT_BACKGROUND, LVX_OPT_INTERVAL, LVX_OPT_MIRRORLOG, LVX_OPT_CORELOG,
    LVX_OPT_STRIPES, LVX_OPT_STRIPESIZE, LVX_OPT_ALLOC, LVX_OPT_USEPOLICIES, LVX_OPT_USE_POLICIES,
    LVX_OPT_THINPOOL, LVX_OPT_THIN, LVX_OPT_POOLMETADATA, LVX_OPT_POOLMETADATASIZE,
    LVX_OPT_POOLMETADATASPARE, LVX_OPT_CHUNKSIZE, LVX_OPT_ZERO, LVX_OPT_DISCARDS,
    LVX_OPT_ERRORWHENFULL, LVX_OPT_ORIGINNAME, LVX_OPT_READAHEAD, LVX_OPT_SWAPMETADATA,
    LVX_OPT_SNAPSHOT, LVX_OPT_SPLITSNAPSHOT, LVX_OPT_MERGETHIN, LVX_OPT_MERGESNAPSHOT,
    LVX_OPT_SPLITMIRRORS, LVX_OPT_TRACKCHANGES, LVX_OPT_NAME, LVX_OPT_STARTPOLL, END };
static const enum lvx_opt_id lvchange_opts[] = {
    LVX_OPT_PERMISSION, LVX_OPT_READAHEAD, LVX_OPT_ADDTAG, LVX_OPT_DELTAG, LVX_OPT_ALLOC,
    LVX_OPT_CONTIGUOUS, LVX_OPT_ACTIVATE, LVX_OPT_ACTIVATIONMODE, LVX_OPT_PARTIAL,
    LVX_OPT_IGNOREACTIVATIONSKIP, LVX_OPT_IGNORELOCKINGFAILURE, LVX_OPT_NOUDEVSYNC,
    LVX_OPT_SYNCACTION, LVX_OPT_SELECT, LVX_OPT_REBUILD, LVX_OPT_RESYNC,
    LVX_OPT_WRITEMOSTLY, LVX_OPT_WRITEBEHIND,
    LVX_OPT_POLL, LVX_OPT_ERRORWHENFULL, LVX_OPT_SETACTIVATIONSKIP, LVX_OPT_MONITOR,
    LVX_OPT_IGNOREMONITORING, LVX_OPT_SYSINIT,
    LVX_OPT_PERSISTENT, LVX_OPT_MAJOR, LVX_OPT_MINOR, LVX_OPT_SETAUTOACTIVATION,
    LVX_OPT_REFRESH, LVX_OPT_DISCARDS, LVX_OPT_ZERO, LVX_OPT_METADATAPROFILE,
    LVX_OPT_DETACHPROFILE, LVX_OPT_MINRECOVERYRATE, LVX_OPT_MAXRECOVERYRATE, END };
static const enum lvx_opt_id pvchange_opts[] = {
    LVX_OPT_ALLOCATABLE, LVX_OPT_METADATAIGNORE, LVX_OPT_UUID, LVX_OPT_ADDTAG, LVX_OPT_DELTAG,
    LVX_OPT_ALL, LVX_OPT_SELECT, END };
static const enum lvx_opt_id pvck_opts[] = {
    LVX_OPT_DUMP, LVX_OPT_REPAIRTYPE, LVX_OPT_REPAIR, LVX_OPT_FILE, LVX_OPT_LABELSECTOR,
    LVX_OPT_PVMETADATACOPIES, LVX_OPT_SETTINGS, END };
static const enum lvx_opt_id pvresize_opts[] = { LVX_OPT_SETPHYSICALVOLUMESIZE, END };
static const enum lvx_opt_id vgcreate_opts[] = {
    LVX_OPT_PHYSICALEXTENTSIZE, LVX_OPT_VGMETADATACOPIES, LVX_OPT_METADATACOPIES_VG,
    LVX_OPT_ALLOC, LVX_OPT_ADDTAG, LVX_OPT_MAXLOGICALVOLUMES, LVX_OPT_MAXPHYSICALVOLUMES,
    NEW_PV_OPTS, LVX_OPT_SHARED, LVX_OPT_SYSTEMID, LVX_OPT_METADATAPROFILE, END };
static const enum lvx_opt_id vgchange_opts[] = {
    LVX_OPT_RESIZEABLE, LVX_OPT_VGMETADATACOPIES, LVX_OPT_METADATACOPIES_VG, LVX_OPT_ALLOC,
    LVX_OPT_ADDTAG, LVX_OPT_DELTAG, LVX_OPT_UUID, LVX_OPT_MAXLOGICALVOLUMES,
    LVX_OPT_MAXPHYSICALVOLUMES, LVX_OPT_ACTIVATE, LVX_OPT_ACTIVATIONMODE, LVX_OPT_PARTIAL,
    LVX_OPT_IGNOREACTIVATIONSKIP, LVX_OPT_IGNORELOCKINGFAILURE, LVX_OPT_NOUDEVSYNC,
    LVX_OPT_AUTOACTIVATION, LVX_OPT_LOCKSTART, LVX_OPT_LOCKSTOP, LVX_OPT_LOCKTYPE, LVX_OPT_SELECT,
    LVX_OPT_POLL, LVX_OPT_MONITOR, LVX_OPT_IGNOREMONITORING, LVX_OPT_SYSINIT, LVX_OPT_REFRESH,
    LVX_OPT_SETAUTOACTIVATION, LVX_OPT_PHYSICALEXTENTSIZE,
    LVX_OPT_SYSTEMID, LVX_OPT_METADATAPROFILE, LVX_OPT_DETACHPROFILE, END };
static const enum lvx_opt_id vgremove_opts[] = { LVX_OPT_SELECT, END };
static const enum lvx_opt_id vgextend_opts[] = { NEW_PV_OPTS, LVX_OPT_METADATAIGNORE,
    LVX_OPT_RESTOREMISSING, END };
static const enum lvx_opt_id vgreduce_opts[] = { LVX_OPT_ALL, LVX_OPT_REMOVEMISSING,
    LVX_OPT_MIRRORSONLY, END };
static const enum lvx_opt_id vgsplit_opts[] = { LVX_OPT_NAME, LVX_OPT_ALLOC,
    LVX_OPT_MAXLOGICALVOLUMES, LVX_OPT_MAXPHYSICALVOLUMES, LVX_OPT_VGMETADATACOPIES,
    LVX_OPT_METADATACOPIES_VG, LVX_OPT_METADATATYPE, END };
static const enum lvx_opt_id vgmerge_opts[] = { LVX_OPT_LIST, LVX_OPT_POOLMETADATASPARE, END };
static const enum lvx_opt_id vgexport_opts[] = { LVX_OPT_ALL, END };
static const enum lvx_opt_id vgimportclone_opts[] = { LVX_OPT_BASEVGNAME, LVX_OPT_IMPORT, END };
static const enum lvx_opt_id vgck_opts[] = { LVX_OPT_UPDATEMETADATA, END };
static const enum lvx_opt_id vgcfgrestore_opts[] = { LVX_OPT_FILE, LVX_OPT_LIST,
                                                     LVX_OPT_FORCE_LONG, LVX_OPT_METADATATYPE, END };
static const enum lvx_opt_id config_opts[] = { LVX_OPT_CONFIG_TYPE, LVX_OPT_TYPECONFIG,
    LVX_OPT_WITHCOMMENTS, LVX_OPT_MERGEDCONFIG, LVX_OPT_FILE, LVX_OPT_WITHVERSIONS,
    LVX_OPT_IGNOREADVANCED, LVX_OPT_WITHSUMMARY, END };
static const enum lvx_opt_id pvscan_opts[] = { LVX_OPT_CACHE, LVX_OPT_ACTIVATE, LVX_OPT_EXPORTED,
    LVX_OPT_NOVOLUMEGROUP, LVX_OPT_SHORT, LVX_OPT_UUID, LVX_OPT_IGNORELOCKINGFAILURE,
    LVX_OPT_NOUDEVSYNC, LVX_OPT_AUTOACTIVATION, LVX_OPT_IGNOREACTIVATIONSKIP, LVX_OPT_LISTVG,
    LVX_OPT_LISTLVS, LVX_OPT_CHECKCOMPLETE, LVX_OPT_VGONLINE, LVX_OPT_UDEVOUTPUT, END };
static const enum lvx_opt_id pvmove_opts[] = { LVX_OPT_NAME, LVX_OPT_ALLOC, LVX_OPT_ABORT, LVX_OPT_ATOMIC,
    LVX_OPT_BACKGROUND, LVX_OPT_INTERVAL, LVX_OPT_MAXRECOVERYRATE, END };
static const enum lvx_opt_id jobs_opts[] = { LVX_OPT_ABORT, LVX_OPT_PAUSE, LVX_OPT_RESUME, END };
static const enum lvx_opt_id vgscan_opts[] = { LVX_OPT_MKNODES, LVX_OPT_IGNORELOCKINGFAILURE, END };
static const enum lvx_opt_id lvscan_opts[] = { LVX_OPT_ALL, LVX_OPT_BLOCKDEVICE,
    LVX_OPT_IGNORELOCKINGFAILURE, LVX_OPT_READONLY, END };
static const enum lvx_opt_id lvmdiskscan_opts[] = { LVX_OPT_LVMPARTITION, LVX_OPT_READONLY, END };
static const enum lvx_opt_id vgmknodes_opts[] = { LVX_OPT_IGNORELOCKINGFAILURE, LVX_OPT_REFRESH,
    END };
static const enum lvx_opt_id lvmdevices_opts[] = { LVX_OPT_CHECK, LVX_OPT_UPDATE, LVX_OPT_ADDDEV,
    LVX_OPT_DELDEV, LVX_OPT_ADDPVID, LVX_OPT_DELPVID, LVX_OPT_DEVICEIDTYPE, END };
static const enum lvx_opt_id vgimportdevices_opts[] = { LVX_OPT_ALL, END };
static const enum lvx_opt_id no_opts[] = { END };
static const enum lvx_opt_id lvremove_opts[] = { LVX_OPT_SELECT, END };
static const enum lvx_opt_id lvpoll_opts[] = { LVX_OPT_POLLOPERATION, LVX_OPT_INTERVAL, END };
static const enum lvx_opt_id daemon_opts[] = { LVX_OPT_FORCE, END };

static const struct lvx_command command_table[] = {
    { "config", lvx_cmd_config, "Display the configuration (lvm.conf merged with --config)",
      "[SECTION|SECTION/KEY ...]", config_opts,
      "Prints the configuration lvx uses: lvm.conf (from $LVM_SYSTEM_DIR, else /etc/lvm) "
      "merged with --config, in the layout of LVM2's lvmconfig. A SECTION or SECTION/KEY "
      "argument prints only that section or setting; --type default prints the built-in "
      "defaults, diff the settings that differ from them, full both merged." },
    { "shell", lvx_cmd_shell,
      "Run commands from a terminal, stdin or FILE (--status-fd N, --no-cache)", "[FILE]",
      no_opts,
      "Runs many command lines in one process: read from a terminal (with line editing and "
      "history in ~/.lvx_history), from standard input or from FILE. The scan of the devices "
      "is kept between commands and checked again under each VG lock, so a series of commands "
      "costs far less than separate processes. --status-fd N writes each command's exit status "
      "to file descriptor N; --no-cache rescans for every command. Without arguments and with "
      "a terminal or a pipe on standard input, lvx starts the shell." },
    { "daemon", lvx_cmd_daemon, "Start, stop or show the daemon of user-space activation",
      "[start|stop|status|run]", daemon_opts,
      "Controls the daemon of user-space activation, which serves active LVs through FUSE and "
      "loop devices where there is no device-mapper. Activation starts it on demand; start "
      "starts it explicitly, stop stops it (refused while LVs are active, unless -f), status "
      "shows what it serves, run runs it in the foreground." },
    { "fullreport", lvx_cmd_fullreport,
      "Display full report (vg, pv, lv, pvseg, seg reports of each VG)", "[VG ...]",
      fullreport_opts,
      "For each volume group named (all by default) prints its vg, pv, lv, pvseg and seg "
      "reports one after the other, then the orphan PVs, with LVM2's full column sets; "
      "--configreport NAME makes the -o, -O and -S after it apply to that report. With "
      "--reportformat json one object per VG holds the five arrays, as LVM2 prints them." },
    { "lastlog", lvx_cmd_lastlog, "Display log report of last command run in LVM shell", "",
      no_opts,
      "In lvx shell, prints the log report of the last command run (its messages as a report), "
      "as LVM2's lastlog does in its shell." },
    { "help", lvx_cmd_help, "Display help for commands", "[COMMAND ...]", no_opts,
      "Lists the commands with a one-line summary, or prints the usage of each COMMAND named: "
      "the options it accepts with their values, then the common options." },
    { "lvcreate", lvx_cmd_lvcreate, "Create a logical volume", "VG [PV[:PE-PE] ...]",
      lvcreate_opts,
      "Creates a logical volume in a volume group, of --size or --extents (a number of extents "
      "or a percentage of the VG, of its free space or of the PVs named), linear or striped "
      "(--stripes, --stripesize), allocated from the PVs named (optionally PV:PE-PE ranges) or "
      "from the whole VG. The new LV is activated and its first 4 KiB zeroed unless -an or -Zn "
      "says otherwise. --type raid* (or -m) makes a RAID LV; -s (--snapshot) makes a COW "
      "snapshot of the origin LV given as first argument (VG/ORIGIN)." },
    { "lvchange", lvx_cmd_lvchange, "Change the attributes of logical volume(s)",
      "VG|VG/LV ...", lvchange_opts,
      "Changes the attributes of logical volumes: permission, read-ahead, allocation policy, "
      "tags, and activation (-ay, -an) through device-mapper or the user-space backend. LVs "
      "are named as VG/LV or all LVs of a VG by its name." },
    { "lvconvert", lvx_cmd_lvconvert, "Change logical volume layout", "VG/LV [PV ...]",
      lvconvert_opts,
      "Changes the layout of an active logical volume: -m/--mirrors N sets the number of "
      "raid1 images to N+1 (a linear LV becomes raid1, -m 0 makes a raid1 LV linear again), "
      "--type raid1 makes a linear LV a two-image raid1 LV, --type linear a raid1 LV linear. "
      "New images go to the PVs named (or any PV the LV does not use) and are rebuilt by the "
      "kernel; images leave from the PVs named (or from the highest-numbered). --repair "
      "replaces the images of a RAID LV on missing PVs, --replace PV those on PV, by new ones "
      "on the PVs named or any PV the LV does not use. --stripes N [-I SIZE] (or --type "
      "striped|linear) restripes a linear or striped LV, active or not, onto N stripes of "
      "free extents (rerun, or `lvconvert VG/LV`, resumes an interrupted restripe). "
      "--splitsnapshot VG/SNAP makes a COW snapshot a plain LV; -s VG/ORIGIN VG/LV makes "
      "the linear or striped LV a COW snapshot of ORIGIN (its content is lost)." },
    { "lvdisplay", lvx_cmd_lvdisplay, "Display information about a logical volume",
      "[VG|VG/LV ...]", lvdisplay_opts,
      "Displays the attributes of logical volumes as blocks of lines (with -m also their "
      "segments and extent mappings), or as one colon-separated line each with -c. With -C it "
      "prints the lvs report instead, and takes its report options." },
    { "lvextend", lvx_cmd_lvextend, "Add space to a logical volume", "VG/LV [PV[:PE-PE] ...]",
      lvextend_opts,
      "Adds space to a logical volume: a new size or extent count, or one relative to the "
      "current size (+N). The space comes from the PVs named or from the whole VG; an active "
      "LV is resized in place. --use-policies grows an active thin pool (data, metadata) or "
      "snapshot by lvm.conf's activation/*_autoextend_threshold and _percent." },
    { "lvreduce", lvx_cmd_lvreduce, "Reduce the size of a logical volume", "VG/LV",
      lvresize_opts,
      "Reduces the size of a logical volume to a new size or extent count, or by one relative "
      "to the current size (-N). The data beyond the new end is lost: a file system on the LV "
      "must be shrunk first." },
    { "lvpoll", lvx_cmd_lvpoll, "Continue already initiated poll operation on a logical volume",
      "--polloperation merge VG/LV", lvpoll_opts,
      "Waits for the snapshot merge into VG/LV (started by lvconvert --merge) to end, printing "
      "its progress every -i seconds, and finishes it (the merged snapshot leaves the VG). "
      "lvconvert -b --merge runs it in a detached process." },
    { "lvremove", lvx_cmd_lvremove, "Remove logical volume(s) from the system",
      "VG|VG/LV ...", lvremove_opts,
      "Removes logical volumes from their volume group. An active LV is deactivated first, "
      "after a prompt (answered yes by -y or -f). A RAID LV goes with its sub-LVs, a snapshot "
      "with its internal snapshot LV, an origin after its snapshots." },
    { "lvrename", lvx_cmd_lvrename, "Rename a logical volume", "VG OLD NEW | VG/OLD VG/NEW",
      no_opts,
      "Renames a logical volume within its volume group (VG OLD NEW, or VG/OLD VG/NEW). An "
      "active LV keeps working under its new name." },
    { "lvresize", lvx_cmd_lvresize, "Resize a logical volume", "VG/LV [PV[:PE-PE] ...]",
      lvresize_opts,
      "Resizes a logical volume to a new size or extent count, or by one relative to the "
      "current size (+N or -N). Growing takes space from the PVs named or from the whole VG." },
    { "lvs", lvx_cmd_lvs, "Display information about logical volumes", "[VG|VG/LV ...]",
      lvs_opts,
      "Reports logical volumes, one row per LV (or per segment with --segments): the fields "
      "chosen with -o, sorted with -O, selected with -S, in columns or as JSON (--reportformat "
      "json), sizes in --units." },
    { "pvck", lvx_cmd_pvck, "Check metadata on physical volumes", "PV ...", pvck_opts,
      "Checks the label, headers and metadata areas of physical volumes and prints what it "
      "finds; --dump prints the headers or metadata (also from an image file), "
      "--repairtype label_header rewrites a damaged label header." },
    { "pvchange", lvx_cmd_pvchange, "Change attributes of physical volume(s)", "PV ...",
      pvchange_opts,
      "Changes the attributes of physical volumes: whether their extents may be allocated "
      "(-x), whether their metadata areas are used (--metadataignore), their tags, or a new "
      "UUID (-u)." },
    { "lvtable", lvx_cmd_lvtable, "Print the device-mapper table of logical volume(s)",
      "[VG|VG/LV ...]", no_opts,
      "Prints the device-mapper table each logical volume would be activated with, as dmsetup "
      "table prints it: the bare lines for one LV, lines prefixed with the device-mapper name "
      "when several LVs are shown. lvx's own command (LVM2 has none)." },
    { "pvcreate", lvx_cmd_pvcreate, "Initialize physical volume(s) for use by LVM", "PV ...",
      pvcreate_opts,
      "Initializes block devices (or image files) as physical volumes: writes the label, the "
      "PV header and empty metadata areas, after checking the device for file system and "
      "partition signatures. The layout options (--metadatasize, --dataalignment, "
      "--pvmetadatacopies, ...) are LVM2's; --uuid with --restorefile recreates a PV from a "
      "backup." },
    { "pvdisplay", lvx_cmd_pvdisplay, "Display various attributes of physical volume(s)",
      "[PV ...]", pvdisplay_opts,
      "Displays the attributes of physical volumes as blocks of lines (with -m also which LV "
      "uses each extent range), one colon-separated line each with -c, or a short line with "
      "-s. With -C it prints the pvs report instead." },
    { "pvremove", lvx_cmd_pvremove, "Remove LVM label(s) from physical volume(s)", "PV ...",
      no_opts,
      "Removes the LVM label from physical volumes that belong to no volume group, so that "
      "they are no longer seen as PVs." },
    { "pvresize", lvx_cmd_pvresize, "Resize physical volume(s)", "PV ...", pvresize_opts,
      "Changes the size recorded for physical volumes to the size of their devices (after a "
      "device grew or shrank), or to --setphysicalvolumesize. Shrinking below the extents in "
      "use is refused." },
    { "pvs", lvx_cmd_pvs, "Display information about physical volumes", "[PV ...]", pvs_opts,
      "Reports physical volumes, one row per PV (or per segment with --segments): the fields "
      "chosen with -o, sorted with -O, selected with -S, in columns or as JSON, sizes in "
      "--units." },
    { "vgcfgbackup", lvx_cmd_vgcfgbackup, "Backup volume group configuration(s)", "[VG ...]",
      vgcfgbackup_opts,
      "Writes the metadata of volume groups to backup files, in LVM2's format: by default "
      "$LVM_SYSTEM_DIR/backup/VG, or the file given with -f (where %s is replaced by the VG "
      "name)." },
    { "vgcfgrestore", lvx_cmd_vgcfgrestore, "Restore volume group configuration", "VG",
      vgcfgrestore_opts,
      "Restores the metadata of a volume group from a backup or archive file onto its PVs (by "
      "default the VG's backup file), or with -l lists the archived versions of "
      "the VG's metadata." },
    { "vgchange", lvx_cmd_vgchange, "Change volume group attributes", "[VG ...]", vgchange_opts,
      "Changes the attributes of volume groups: resizeable, allocation policy, metadata "
      "copies, limits, tags, a new UUID (-u), and activation of all their LVs (-ay, -an)." },
    { "vgck", lvx_cmd_vgck, "Check the consistency of volume group(s)", "[VG ...]", vgck_opts,
      "Checks the metadata of volume groups: stale, damaged or mismatching copies and missing "
      "PVs are reported as warnings, a VG that is not consistent as an error. --updatemetadata "
      "rewrites the copies that can be repaired." },
    { "vgcreate", lvx_cmd_vgcreate, "Create a volume group", "VG PV ...", vgcreate_opts,
      "Creates a volume group from physical volumes (devices that are not PVs yet are "
      "initialized first, as by pvcreate), with the extent size given by -s (default 4 MiB)." },
    { "vgdisplay", lvx_cmd_vgdisplay, "Display volume group information", "[VG ...]",
      vgdisplay_opts,
      "Displays the attributes of volume groups as blocks of lines (with -v also their LVs and "
      "PVs), one colon-separated line each with -c, or a short line with -s. With -C it prints "
      "the vgs report instead." },
    { "vgextend", lvx_cmd_vgextend, "Add physical volumes to a volume group", "VG PV ...",
      vgextend_opts,
      "Adds physical volumes to a volume group (devices that are not PVs yet are initialized "
      "first, as by pvcreate)." },
    { "vgreduce", lvx_cmd_vgreduce, "Remove physical volume(s) from a volume group", "VG [PV ...]",
      vgreduce_opts,
      "Removes physical volumes from a volume group: the PVs named, every unused one with -a, "
      "or with --removemissing the PVs whose devices are missing (LVs using them need "
      "--force, which removes those LVs). A PV with extents in use is refused." },
    { "vgsplit", lvx_cmd_vgsplit, "Move physical volumes into a new or existing volume group",
      "VG VG [PV ...]", vgsplit_opts,
      "Moves the PVs named (or with -n the PVs an LV uses) from the first VG to the second, a "
      "new VG (its attributes taken from the first unless -l, -p, --alloc or "
      "--vgmetadatacopies say otherwise) or an existing one with the same extent size. The LVs "
      "on those PVs move with them; an LV on both sides or an active one is refused." },
    { "vgmerge", lvx_cmd_vgmerge, "Merge volume groups", "VG VG ...", vgmerge_opts,
      "Merges the PVs and LVs of the other VGs into the first one. Refused when an LV of a "
      "merged VG is active, the extent sizes differ, the first VG's limits would be exceeded "
      "or an LV name is used in both." },
    { "vgexport", lvx_cmd_vgexport, "Unregister volume group(s) from the system", "[VG ...]",
      vgexport_opts,
      "Marks volume groups (or all with -a) as exported, so that they can be moved to another "
      "system; their LVs must be inactive. vgimport undoes it." },
    { "vgimport", lvx_cmd_vgimport, "Register exported volume group with system", "[VG ...]",
      vgexport_opts,
      "Clears the exported mark of volume groups (or of all with -a)." },
    { "vgimportclone", lvx_cmd_vgimportclone, "Import a VG from cloned PVs", "PV ...",
      vgimportclone_opts,
      "Makes the PVs of a disk copy a volume group of its own: new PV UUIDs, a new VG UUID and "
      "a new VG name (-n/--basevgname, or the old name, with a number appended while taken); "
      "-i also imports an exported VG." },
    { "vgremove", lvx_cmd_vgremove, "Remove volume group(s)", "VG ...", vgremove_opts,
      "Removes volume groups: their PVs become orphans and their backup files are removed. A "
      "VG that still holds LVs is refused unless -f (or -y) is given, which removes the LVs "
      "too, deactivating active ones first." },
    { "vgrename", lvx_cmd_vgrename, "Rename a volume group", "VG|VG_UUID NEW_VG", no_opts,
      "Renames a volume group, named by its name or its UUID. The LVs of the VG keep their "
      "names." },
    { "vgs", lvx_cmd_vgs, "Display information about volume groups", "[VG ...]", vgs_opts,
      "Reports volume groups, one row per VG: the fields chosen with -o, sorted with -O, "
      "selected with -S, in columns or as JSON, sizes in --units." },
    { "systemid", lvx_cmd_systemid, "Display the system ID, if any, currently set on this host",
      "", no_opts,
      "Prints the local system ID (lvm.conf global/system_id_source), empty when none." },
    { "tags", lvx_cmd_tags, "List tags defined on this host", "", no_opts,
      "Prints this host's tags, one per line: lvm.conf's tags section (tags/hosttags = 1: "
      "the host name; tags/NAME or tags/@NAME, unless its host_list leaves this host out) "
      "and those the lvm_TAG.conf files it brings in add. \"@*\" in the activation lists "
      "matches an LV or VG carrying any of them." },
    { "version", lvx_cmd_version, "Display software and driver version information", "",
      no_opts,
      "Prints the version lines LVM2 prints (LVM version, Library version, Driver version when "
      "there is a device-mapper driver, Configuration), each stating lvx's own version, then "
      "lvx's version." },
    { "lvmconfig", lvx_cmd_config, "Display and manipulate configuration information",
      "[SECTION|SECTION/KEY ...]", config_opts,
      "Prints the configuration, as lvx config does (LVM2's name for it): lvm.conf merged with "
      "--config, in lvmconfig's layout. A SECTION or SECTION/KEY argument prints only that "
      "section or setting; --type (or --typeconfig) default prints the built-in defaults, diff "
      "the settings that differ from them, full both merged." },
    { "dumpconfig", lvx_cmd_config, "Display and manipulate configuration information",
      "[SECTION|SECTION/KEY ...]", config_opts,
      "The older LVM2 name of lvmconfig: prints the configuration as lvmconfig does." },
    { "segtypes", lvx_cmd_segtypes, "List available segment types", "", no_opts,
      "Lists the segment types lvx can create, one per line as LVM2 prints them (programs such "
      "as libblockdev read it). Other types LVM2 writes are still read, reported and written "
      "back intact." },
    { "formats", lvx_cmd_formats, "List available metadata formats", "", no_opts,
      "Lists the metadata formats: lvm2, the only one lvx reads and writes." },
    { "pvscan", lvx_cmd_pvscan, "List all physical volumes", "[--cache [PV ...]]", pvscan_opts,
      "Without --cache, lists every PV with its VG, format, size and free space, and a Total "
      "line, as LVM2 prints them (-s names only, -u with UUIDs, -e only PVs of exported VGs, "
      "-n only PVs in no VG). With --cache, records the PVs found as online (all of them, or "
      "the devices named), and with -aay autoactivates each VG whose PVs are all online. "
      "--listvg/--listlvs PV (what LVM2's udev rule runs) print the PV's VG and the LVs using "
      "it; --checkcomplete says whether they are complete, --vgonline records a complete VG "
      "once, --udevoutput prints only LVM_VG_NAME_COMPLETE='VG' or LVM_VG_NAME_INCOMPLETE='VG'." },
    { "pvmove", lvx_cmd_pvmove, "Move extents from one physical volume to another",
      "[PV[:PE-PE...] [PV[:PE-PE...] ...]]", pvmove_opts,
      "Moves the extents of the LVs on the first PV (or the PE ranges given) to other PVs of "
      "its VG (those named, else any), through a temporary pvmove LV laid out as LVM2 lays it "
      "out, one checkpoint per segment copied. Without arguments it resumes every unfinished "
      "move; --abort stops them (segments already copied stay moved). lvx copies the extents "
      "of inactive LVs itself; an LV active in the user-space backend is copied by the lvx "
      "daemon, which mirrors its writes meanwhile; a move of an LV active in the kernel "
      "backend is refused." },
    { "jobs", lvx_cmd_jobs, "List, pause, resume or abort the copies (pvmove, restripe)",
      "[VG/LV|PV ...]", jobs_opts,
      "Lists the moves in progress: pvmoves (VG, pvmove LV, source PV) and restripes (VG, LV, "
      "stripes:N), with the copier's pid (- when paused: no copier runs) and the percentage "
      "copied (lvs -o copy_percent shows the same on the pvmove LV). --pause stops the "
      "copiers of the jobs named (all when none is), leaving each move in progress; --resume "
      "copies paused moves again in the background (as pvmove -b SOURCE, lvconvert VG/LV); "
      "--abort ends pvmoves as pvmove --abort does (segments already copied stay moved) and "
      "pauses restripes. lvx's own command (LVM2 has none)." },
    { "vgscan", lvx_cmd_vgscan, "Search for all volume groups", "", vgscan_opts,
      "Reads every device and names each volume group found, as LVM2 prints it. --mknodes then "
      "makes the /dev entries of active LVs again, as vgmknodes." },
    { "lvscan", lvx_cmd_lvscan, "List all logical volumes in all volume groups", "",
      lvscan_opts,
      "Lists every logical volume of every volume group, one line each: whether it is active, "
      "its /dev path, size and allocation policy. -a adds the hidden LVs." },
    { "lvmdiskscan", lvx_cmd_lvmdiskscan, "List devices that may be used as physical volumes",
      "", lvmdiskscan_opts,
      "Lists every device the filters accept, one line each with its size, PVs marked "
      "\"LVM physical volume\", then the counts of disks, partitions (names ending in a "
      "digit) and PVs, as LVM2 prints them. -l lists only the PVs." },
    { "vgmknodes", lvx_cmd_vgmknodes,
      "Create the special files for volume group devices in /dev", "[VG|VG/LV ...]",
      vgmknodes_opts,
      "Makes the /dev entries (/dev/mapper nodes, /dev/VG/LV links) of the active LVs of the "
      "VGs or LVs named (all by default) again, and removes those of inactive LVs. Fails "
      "without an activation backend, as LVM2 fails without device-mapper." },
    { "lvmdevices", lvx_cmd_lvmdevices, "Manage the devices file", "", lvmdevices_opts,
      "Lists the entries of the devices file (<system dir>/devices/system.devices, or the "
      "file --devicesfile names), which limits the devices LVM commands use when "
      "devices/use_devicesfile is set: each device by its ID (loop backing file, WWID, "
      "serial, md/dm UUID, else its name) with the PVID last seen. --check reports entries "
      "whose PVID or device name changed (exit 5), --update corrects them; --adddev and "
      "--deldev add and remove a device, --addpvid and --delpvid the device holding a "
      "PVID. The file is written as LVM2 writes it, and LVM2 reads it." },
    { "vgimportdevices", lvx_cmd_vgimportdevices, "Add devices for a VG to the devices file",
      "VG ... | -a", vgimportdevices_opts,
      "Adds the PVs of the volume groups named (every VG with -a) to the devices file, "
      "creating it when missing, and records each PV's device ID in the VG metadata, as "
      "LVM2 does. The VGs are looked for on every device the filters accept." },
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

static void usage_option(struct lvx_buf *out, const struct lvx_command *cmd,
                         const struct lvx_opt_def *d)
{
    char sc = lvx_opt_short(cmd->opts, d->id);
    if (sc)
        lvx_buf_printf(out, "\t[ -%c|--%s", sc, d->long_name);
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
        usage_option(out, cmd, lvx_opt_def(*o));
    lvx_buf_puts(out, "\t[ COMMON_OPTIONS ]\n");
    if (cmd->positional[0])
        lvx_buf_printf(out, "\t%s\n", cmd->positional);
    lvx_buf_puts(out, "\n  Common options for lvx:\n");
    for (int i = 0; i < LVX_OPT_COUNT; i++) {
        enum lvx_opt_id id = (enum lvx_opt_id)i;
        /* common = accepted by a command without options of its own */
        if (lvx_opts_allowed(no_opts, id) && lvx_opts_allowed(cmd->opts, id))
            usage_option(out, cmd, lvx_opt_def(id));
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
