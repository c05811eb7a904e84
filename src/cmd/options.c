/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/options.c - the one option table: names, short forms, value kinds and
 * default units, help texts; which options a command accepts.
 *
 * Entry points: lvx_opt_def() (table lookup, used by help and the parser),
 * lvx_opts_allowed().  A command accepts the common options plus the ids listed in
 * its line of the command table (cmd/commands.c).  The parser is cmd/opt_parse.c,
 * the value conversions cmd/opt_values.c.
 */
#include "cmd/options.h"

#include <stddef.h>

#define OPT(id, l, s, k, u, an, h) [id] = { id, l, s, k, u, (k) != LVX_ARG_FLAG, an, h, false }
/* OPTR: an option that may be given more than once (LVM2's countable and groupable) */
#define OPTR(id, l, s, k, u, an, h) [id] = { id, l, s, k, u, (k) != LVX_ARG_FLAG, an, h, true }
static const struct lvx_opt_def opt_table[LVX_OPT_COUNT] = {
    OPTR(LVX_OPT_OPTIONS, "options", 'o', LVX_ARG_LIST, 0, "String", "Fields to report (repeatable; '+f' adds)."),
    OPTR(LVX_OPT_SORT, "sort", 'O', LVX_ARG_STRING, 0, "String", "Sort keys, '-' prefix for descending."),
    OPTR(LVX_OPT_SELECT, "select", 'S', LVX_ARG_STRING, 0, "String", "Report only the items matching."),
    OPT(LVX_OPT_NOHEADINGS, "noheadings", 0, LVX_ARG_FLAG, 0, NULL, "Suppress the heading line."),
    OPT(LVX_OPT_SEPARATOR, "separator", 0, LVX_ARG_STRING, 0, "String", "Column separator."),
    OPT(LVX_OPT_NOSUFFIX, "nosuffix", 0, LVX_ARG_FLAG, 0, NULL, "Print sizes without a unit suffix."),
    OPT(LVX_OPT_UNITS, "units", 0, LVX_ARG_UNITS, 0, "[Number]r|R|h|H|b|B|s|S|k|K|m|M|g|G|t|T|p|P|e|E",
        "Units of sizes."),
    OPT(LVX_OPT_REPORTFORMAT, "reportformat", 0, LVX_ARG_REPORTFORMAT, 0, "basic|json", "Report output format."),
    OPT(LVX_OPT_ALL, "all", 'a', LVX_ARG_FLAG, 0, NULL, "Include hidden (internal) items."),
    OPT(LVX_OPT_SEGMENTS, "segments", 0, LVX_ARG_FLAG, 0, NULL, "One row per segment."),
    OPT(LVX_OPT_ALIGNED, "aligned", 0, LVX_ARG_FLAG, 0, NULL, "Align columns with --separator."),
    OPT(LVX_OPT_UNBUFFERED, "unbuffered", 0, LVX_ARG_FLAG, 0, NULL, "Print rows as they are produced."),
    OPT(LVX_OPT_NAMEPREFIXES, "nameprefixes", 0, LVX_ARG_FLAG, 0, NULL, "Print LVM2_FIELD=value pairs."),
    OPT(LVX_OPT_UNQUOTED, "unquoted", 0, LVX_ARG_FLAG, 0, NULL, "No quotes with --nameprefixes."),
    OPT(LVX_OPT_ROWS, "rows", 0, LVX_ARG_FLAG, 0, NULL, "Print fields as rows."),
    OPT(LVX_OPT_MAPS, "maps", 'm', LVX_ARG_FLAG, 0, NULL, "Show the extent mappings."),
    OPT(LVX_OPT_COLON, "colon", 'c', LVX_ARG_FLAG, 0, NULL, "Colon separated output."),
    OPT(LVX_OPT_COLUMNS, "columns", 'C', LVX_ARG_FLAG, 0, NULL, "Report in columns (as pvs/vgs/lvs)."),
    OPT(LVX_OPT_SHORT, "short", 's', LVX_ARG_FLAG, 0, NULL, "Short output."),
    OPT(LVX_OPT_FILE, "file", 'f', LVX_ARG_STRING, 0, "String", "Output file."),
    OPT(LVX_OPT_SIZE, "size", 'L', LVX_ARG_SSIZE, 'm', "[+|-]Size[m|UNIT]", "Size of the LV (default unit MiB)."),
    OPT(LVX_OPT_EXTENTS, "extents", 'l', LVX_ARG_EXTENTS, 0, "[+|-]Number[%VG|%FREE|%PVS|%LV]",
        "Size of the LV in extents or as a percentage."),
    OPT(LVX_OPT_NAME, "name", 'n', LVX_ARG_STRING, 0, "String", "Name of the new LV."),
    OPT(LVX_OPT_STRIPES, "stripes", 'i', LVX_ARG_NUMBER, 0, "Number", "Number of stripes."),
    OPT(LVX_OPT_STRIPESIZE, "stripesize", 'I', LVX_ARG_SIZE, 'k', "Size[k|UNIT]", "Stripe size (default KiB)."),
    OPT(LVX_OPT_TYPE, "type", 0, LVX_ARG_STRING, 0, "linear|striped", "Segment type."),
    OPT(LVX_OPT_ALLOC, "alloc", 0, LVX_ARG_STRING, 0, "contiguous|cling|normal|anywhere|inherit",
        "Allocation policy."),
    OPT(LVX_OPT_CONTIGUOUS, "contiguous", 'C', LVX_ARG_BOOL, 0, "y|n", "Contiguous allocation."),
    OPT(LVX_OPT_PERMISSION, "permission", 'p', LVX_ARG_STRING, 0, "r|rw", "Access permission."),
    OPT(LVX_OPT_READAHEAD, "readahead", 'r', LVX_ARG_STRING, 0, "auto|none|Number", "Read-ahead in sectors."),
    OPTR(LVX_OPT_ADDTAG, "addtag", 0, LVX_ARG_TAG, 0, "Tag", "Add a tag (repeatable)."),
    OPTR(LVX_OPT_DELTAG, "deltag", 0, LVX_ARG_TAG, 0, "Tag", "Delete a tag (repeatable)."),
    OPT(LVX_OPT_ZERO, "zero", 'Z', LVX_ARG_BOOL, 0, "y|n", "Zero the start of the new LV."),
    OPT(LVX_OPT_WIPESIGNATURES, "wipesignatures", 'W', LVX_ARG_BOOL, 0, "y|n", "Wipe signatures."),
    OPT(LVX_OPT_ACTIVATE, "activate", 'a', LVX_ARG_STRING, 0, "y|n",
        "Activate (y) or deactivate (n) through device-mapper."),
    OPT(LVX_OPT_ACTIVATIONMODE, "activationmode", 0, LVX_ARG_STRING, 0, "partial|degraded|complete",
        "partial: also activate LVs on missing PVs (missing parts fail I/O)."),
    OPT(LVX_OPT_PARTIAL, "partial", 'P', LVX_ARG_FLAG, 0, NULL,
        "Same as --activationmode partial (accepted and ignored by the reports)."),
    OPT(LVX_OPT_SNAPSHOT, "snapshot", 's', LVX_ARG_FLAG, 0, NULL,
        "Create a COW snapshot of the origin LV given as argument."),
    OPT(LVX_OPT_CHUNKSIZE, "chunksize", 'c', LVX_ARG_SIZE, 'k', "Size[k|UNIT]",
        "Snapshot chunk size (4 KiB to 512 KiB, a power of 2; default 4 KiB) or thin pool chunk size (64 KiB to 1 GiB, a multiple of 64 KiB)."),
    OPT(LVX_OPT_IGNOREACTIVATIONSKIP, "ignoreactivationskip", 'K', LVX_ARG_FLAG, 0, NULL,
        "Activate LVs flagged to skip activation too."),
    OPT(LVX_OPT_PHYSICALEXTENTSIZE, "physicalextentsize", 's', LVX_ARG_SIZE, 'm', "Size[m|UNIT]",
        "Extent size of the VG (default 4 MiB)."),
    OPT(LVX_OPT_VGMETADATACOPIES, "vgmetadatacopies", 0, LVX_ARG_STRING, 0, "all|unmanaged|Number",
        "Number of metadata copies kept in use in the VG."),
    OPT(LVX_OPT_METADATACOPIES_VG, "metadatacopies", 0, LVX_ARG_STRING, 0, "all|unmanaged|Number",
        "Same as --vgmetadatacopies."),
    OPT(LVX_OPT_MAXLOGICALVOLUMES, "maxlogicalvolumes", 'l', LVX_ARG_NUMBER, 0, "Number",
        "Maximum number of LVs (0 = unlimited)."),
    OPT(LVX_OPT_MAXPHYSICALVOLUMES, "maxphysicalvolumes", 'p', LVX_ARG_NUMBER, 0, "Number",
        "Maximum number of PVs (0 = unlimited)."),
    OPT(LVX_OPT_RESIZEABLE, "resizeable", 'x', LVX_ARG_BOOL, 0, "y|n", "Allow adding/removing PVs."),
    OPT(LVX_OPT_UUID, "uuid", 'u', LVX_ARG_FLAG, 0, NULL, "Generate a new UUID."),
    OPT(LVX_OPT_REMOVEMISSING, "removemissing", 0, LVX_ARG_FLAG, 0, NULL, "Remove missing PVs."),
    OPT(LVX_OPT_UPDATEMETADATA, "updatemetadata", 0, LVX_ARG_FLAG, 0, NULL,
        "Rewrite stale or damaged metadata copies."),
    OPT(LVX_OPT_LIST, "list", 'l', LVX_ARG_FLAG, 0, NULL, "List the archived metadata of the VG."),
    OPTR(LVX_OPT_FORCE_LONG, "force", 0, LVX_ARG_FLAG, 0, NULL, "Override checks."),
    OPT(LVX_OPT_PVMETADATACOPIES, "pvmetadatacopies", 0, LVX_ARG_NUMBER, 0, "0|1|2",
        "Number of metadata areas on the PV."),
    OPT(LVX_OPT_METADATACOPIES_PV, "metadatacopies", 0, LVX_ARG_NUMBER, 0, "0|1|2",
        "Same as --pvmetadatacopies."),
    OPT(LVX_OPT_METADATASIZE, "metadatasize", 0, LVX_ARG_SIZE, 'm', "Size[m|UNIT]",
        "Minimum size of each metadata area."),
    OPT(LVX_OPT_DATAALIGNMENT, "dataalignment", 0, LVX_ARG_SIZE, 'k', "Size[k|UNIT]",
        "Align the start of the data area to a multiple of this."),
    OPT(LVX_OPT_DATAALIGNMENTOFFSET, "dataalignmentoffset", 0, LVX_ARG_SIZE, 'k', "Size[k|UNIT]",
        "Shift the start of the data area by this."),
    OPT(LVX_OPT_LABELSECTOR, "labelsector", 0, LVX_ARG_NUMBER, 0, "Number", "Sector of the label (0-3)."),
    OPT(LVX_OPT_BOOTLOADERAREASIZE, "bootloaderareasize", 0, LVX_ARG_SIZE, 'm', "Size[m|UNIT]",
        "Reserve a bootloader area of this size."),
    OPT(LVX_OPT_METADATAIGNORE, "metadataignore", 0, LVX_ARG_BOOL, 0, "y|n",
        "Ignore the PV's metadata areas."),
    OPT(LVX_OPT_UUID_STR, "uuid", 'u', LVX_ARG_STRING, 0, "String", "UUID of the new PV."),
    OPT(LVX_OPT_RESTOREFILE, "restorefile", 0, LVX_ARG_STRING, 0, "String",
        "Backup file to take the PV's layout from (with --uuid)."),
    OPT(LVX_OPT_NORESTOREFILE, "norestorefile", 0, LVX_ARG_FLAG, 0, NULL, "Allow --uuid without --restorefile."),
    OPT(LVX_OPT_SETPHYSICALVOLUMESIZE, "setphysicalvolumesize", 0, LVX_ARG_SIZE, 'm', "Size[m|UNIT]",
        "Use this size instead of the device size."),
    OPT(LVX_OPT_ALLOCATABLE, "allocatable", 'x', LVX_ARG_BOOL, 0, "y|n",
        "Allow or forbid allocation of the PV's extents."),
    OPTR(LVX_OPT_CONFIGREPORT, "configreport", 0, LVX_ARG_STRING, 0, "log|vg|lv|pv|pvseg|seg",
        "The report the -o/-O/-S after it apply to (fullreport)."),
    OPT(LVX_OPT_BINARY, "binary", 0, LVX_ARG_FLAG, 0, NULL, "Binary fields as 1/0 (-1 unknown)."),
    OPT(LVX_OPT_METADATATYPE, "metadatatype", 'M', LVX_ARG_MDATYPE, 0, "lvm2",
        "Metadata format (lvm2 is the only one)."),
    OPT(LVX_OPT_PERSISTENT, "persistent", 'M', LVX_ARG_BOOL, 0, "y|n",
        "Make the minor number (--minor) persistent."),
    OPT(LVX_OPT_MAJOR, "major", 'j', LVX_ARG_NUMBER, 0, "Number",
        "Major number (ignored: the kernel assigns it)."),
    OPTR(LVX_OPT_MINOR, "minor", 0, LVX_ARG_NUMBER, 0, "Number", "Persistent minor number."),
    OPT(LVX_OPT_CACHE, "cache", 0, LVX_ARG_FLAG, 0, NULL, "Record the PVs online (autoactivation)."),
    OPT(LVX_OPT_EXPORTED, "exported", 'e', LVX_ARG_FLAG, 0, NULL, "Only PVs of exported VGs."),
    OPT(LVX_OPT_NOVOLUMEGROUP, "novolumegroup", 'n', LVX_ARG_FLAG, 0, NULL, "Only PVs in no VG."),
    OPT(LVX_OPT_MKNODES, "mknodes", 0, LVX_ARG_FLAG, 0, NULL, "Also make the /dev entries (vgmknodes)."),
    OPT(LVX_OPT_BLOCKDEVICE, "blockdevice", 'b', LVX_ARG_FLAG, 0, NULL, "No effect (LVM2 ignores it too)."),
    OPT(LVX_OPT_AUTOACTIVATION, "autoactivation", 0, LVX_ARG_STRING, 0, "String",
        "pvscan --listvg/--listlvs: a value other than event skips (as LVM2); else accepted."),
    OPT(LVX_OPT_NOUDEVSYNC, "noudevsync", 0, LVX_ARG_FLAG, 0, NULL, "No effect (lvx makes its /dev entries itself)."),
    OPT(LVX_OPT_READONLY, "readonly", 0, LVX_ARG_FLAG, 0, NULL, "Read the metadata without taking locks."),
    OPT(LVX_OPT_IGNORELOCKINGFAILURE, "ignorelockingfailure", 0, LVX_ARG_FLAG, 0, NULL,
        "Go on without the lock when it cannot be taken."),
    OPT(LVX_OPT_PROFILE, "profile", 0, LVX_ARG_STRING, 0, "String",
        "Settings of <system dir>/profile/String.profile over lvm.conf."),
    OPT(LVX_OPT_TYPECONFIG, "typeconfig", 0, LVX_ARG_STRING, 0,
        "current|default|diff|full|list|missing|new|profilable",
        "Same as --type."),
    OPT(LVX_OPT_WITHCOMMENTS, "withcomments", 0, LVX_ARG_FLAG, 0, NULL, "Accepted: lvx has no comment texts (says so, prints the settings)."),
    OPT(LVX_OPT_MERGEDCONFIG, "mergedconfig", 0, LVX_ARG_FLAG, 0, NULL,
        "With --type default/diff/full: the configuration merged with --config (always so in lvx)."),
    OPT(LVX_OPT_WITHVERSIONS, "withversions", 0, LVX_ARG_FLAG, 0, NULL,
        "Precede each setting with the LVM2 version it appeared in."),
    OPT(LVX_OPT_WITHSUMMARY, "withsummary", 0, LVX_ARG_FLAG, 0, NULL,
        "Accepted: lvx has no comment texts (says so, prints the settings)."),
    OPT(LVX_OPT_IGNOREADVANCED, "ignoreadvanced", 0, LVX_ARG_FLAG, 0, NULL,
        "Leave out LVM2's advanced settings."),
    OPT(LVX_OPT_NOLOCKING, "nolocking", 0, LVX_ARG_FLAG, 0, NULL, "Take no locks."),
    OPT(LVX_OPT_COMMANDPROFILE, "commandprofile", 0, LVX_ARG_STRING, 0, "String",
        "Settings of <system dir>/profile/String.profile over lvm.conf."),
    OPT(LVX_OPT_LOCKSTART, "lockstart", 0, LVX_ARG_FLAG, 0, NULL,
        "Join the lockspaces of shared VGs (sanlock, as host local/host_id)."),
    OPT(LVX_OPT_LOCKSTOP, "lockstop", 0, LVX_ARG_FLAG, 0, NULL, "Leave the lockspaces of shared VGs."),
    OPT(LVX_OPT_FOREIGN, "foreign", 0, LVX_ARG_FLAG, 0, NULL,
        "Also VGs with another host's system ID (read only)."),
    OPT(LVX_OPT_SYSTEMID, "systemid", 0, LVX_ARG_STRING, 0, "String",
        "The VG's system ID (\"\": none)."),
    OPT(LVX_OPT_LOCKTYPE, "locktype", 0, LVX_ARG_STRING, 0, "LockType",
        "Change the VG's lock type: none (local VG) or sanlock (shared VG)."),
    OPT(LVX_OPT_LOCKOPT, "lockopt", 0, LVX_ARG_STRING, 0, "String",
        "lvmlockd options: force (vgchange --locktype none), others accepted, no effect."),
    OPT(LVX_OPT_LONGHELP, "longhelp", 0, LVX_ARG_FLAG, 0, NULL, "Show help."),
    OPT(LVX_OPT_CONFIG_TYPE, "type", 0, LVX_ARG_STRING, 0,
        "current|default|diff|full|list|missing|new|profilable",
        "Which configuration: the current one, the defaults, the differences, both merged, "
        "the setting names, the settings not set, those new in this version, or those a "
        "profile may set."),
    OPT(LVX_OPT_MIRRORS, "mirrors", 'm', LVX_ARG_SNUMBER, 0, "Number", "Mirror images besides the original (raid1, raid10)."),
    OPT(LVX_OPT_REGIONSIZE, "regionsize", 'R', LVX_ARG_SIZE, 'm', "Size[m|UNIT]", "RAID region size (default MiB)."),
    OPT(LVX_OPT_NOSYNC, "nosync", 0, LVX_ARG_FLAG, 0, NULL, "Skip the initial RAID synchronisation."),
    OPT(LVX_OPT_MINRECOVERYRATE, "minrecoveryrate", 0, LVX_ARG_SIZE, 'k', "Size[k|UNIT]", "Minimum RAID recovery rate per second per device."),
    OPT(LVX_OPT_MAXRECOVERYRATE, "maxrecoveryrate", 0, LVX_ARG_SIZE, 'k', "Size[k|UNIT]", "Maximum RAID recovery rate per second per device."),
    OPT(LVX_OPT_SHARED, "shared", 0, LVX_ARG_FLAG, 0, NULL, "Also report shared VGs (lock type sanlock/dlm) when lvmlockd is not used."),
    OPT(LVX_OPT_CHECK, "check", 0, LVX_ARG_FLAG, 0, NULL,
        "Check the devices file against the devices (exit 5 when it needs updates)."),
    OPT(LVX_OPT_UPDATE, "update", 0, LVX_ARG_FLAG, 0, NULL,
        "Correct the devices file: PVIDs and device names as found."),
    OPT(LVX_OPT_ADDDEV, "adddev", 0, LVX_ARG_STRING, 0, "PV", "Add a device to the devices file."),
    OPT(LVX_OPT_DELDEV, "deldev", 0, LVX_ARG_STRING, 0, "String",
        "Remove a device (by its name) from the devices file."),
    OPT(LVX_OPT_ADDPVID, "addpvid", 0, LVX_ARG_STRING, 0, "String",
        "Add the device holding this PVID to the devices file."),
    OPT(LVX_OPT_DELPVID, "delpvid", 0, LVX_ARG_STRING, 0, "String",
        "Remove the entry of this PVID from the devices file."),
    OPT(LVX_OPT_DEVICEIDTYPE, "deviceidtype", 0, LVX_ARG_STRING, 0, "String",
        "Device ID type of the added entry (sys_wwid, sys_serial, devname, loop_file, ...)."),
    OPT(LVX_OPT_DEVICESFILE, "devicesfile", 0, LVX_ARG_STRING, 0, "String",
        "Use <system dir>/devices/String as devices file (\"\": none)."),
    OPT(LVX_OPT_LISTVG, "listvg", 0, LVX_ARG_FLAG, 0, NULL, "Print the VG of the PV (pvscan --cache PV)."),
    OPT(LVX_OPT_LISTLVS, "listlvs", 0, LVX_ARG_FLAG, 0, NULL,
        "Print the VG and the LVs using the PV (pvscan --cache PV)."),
    OPT(LVX_OPT_CHECKCOMPLETE, "checkcomplete", 0, LVX_ARG_FLAG, 0, NULL,
        "Say whether the VG (and LVs) of the PV are complete."),
    OPT(LVX_OPT_VGONLINE, "vgonline", 0, LVX_ARG_FLAG, 0, NULL,
        "Record a complete VG online (once: then it is \"finished\")."),
    OPT(LVX_OPT_UDEVOUTPUT, "udevoutput", 0, LVX_ARG_FLAG, 0, NULL,
        "Print only LVM_VG_NAME_COMPLETE/INCOMPLETE='vg' for udev."),
    OPT(LVX_OPT_THIN, "thin", 'T', LVX_ARG_FLAG, 0, NULL, "Create a thin pool (with a size) and/or a thin LV (with -V)."),
    OPT(LVX_OPT_THINPOOL, "thinpool", 0, LVX_ARG_STRING, 0, "LV", "The thin pool to create or to use."),
    OPT(LVX_OPT_VIRTUALSIZE, "virtualsize", 'V', LVX_ARG_SIZE, 'm', "Size[m|UNIT]", "Size of the thin LV (default MiB)."),
    OPT(LVX_OPT_POOLMETADATASIZE, "poolmetadatasize", 0, LVX_ARG_SSIZE, 'm', "[+]Size[m|UNIT]", "Size of the pool's metadata LV."),
    OPT(LVX_OPT_POOLMETADATASPARE, "poolmetadataspare", 0, LVX_ARG_BOOL, 0, "y|n", "Keep the pool metadata spare LV (lvol0_pmspare)."),
    OPT(LVX_OPT_POOLMETADATA, "poolmetadata", 0, LVX_ARG_STRING, 0, "LV", "An existing LV to become the pool's metadata."),
    OPT(LVX_OPT_DISCARDS, "discards", 0, LVX_ARG_STRING, 0, "passdown|nopassdown|ignore", "How the thin pool handles discards."),
    OPT(LVX_OPT_USEPOLICIES, "usepolicies", 0, LVX_ARG_FLAG, 0, NULL,
        "lvextend: grow a thin pool or snapshot by lvm.conf's autoextend policy; lvconvert --repair: follow the mirror fault policies."),
    OPT(LVX_OPT_USE_POLICIES, "use-policies", 0, LVX_ARG_FLAG, 0, NULL, "Same as --usepolicies."),
    OPT(LVX_OPT_SETACTIVATIONSKIP, "setactivationskip", 'k', LVX_ARG_BOOL, 0, "y|n", "Flag the LV to be skipped at activation."),
    OPT(LVX_OPT_BASEVGNAME, "basevgname", 'n', LVX_ARG_STRING, 0, "VG", "Base of the new VG name (a number is appended when taken)."),
    OPT(LVX_OPT_IMPORT, "import", 'i', LVX_ARG_FLAG, 0, NULL, "Import an exported VG."),
    OPT(LVX_OPT_MIRRORSONLY, "mirrorsonly", 0, LVX_ARG_FLAG, 0, NULL, "Only remove missing PVs from mirror LVs."),
    OPT(LVX_OPT_REPAIR, "repair", 0, LVX_ARG_FLAG, 0, NULL, "Replace the failed images of a RAID LV."),
    OPTR(LVX_OPT_REPLACE, "replace", 0, LVX_ARG_LIST, 0, "PV", "Replace the RAID images on this PV (repeatable)."),
    OPT(LVX_OPT_SYNCACTION, "syncaction", 0, LVX_ARG_STRING, 0, "check|repair", "Start a RAID scrub: check (count mismatches) or repair."),
    OPT(LVX_OPT_ABORT, "abort", 0, LVX_ARG_FLAG, 0, NULL, "Abort the moves in progress (the segments copied stay moved)."),
    OPT(LVX_OPT_PAUSE, "pause", 0, LVX_ARG_FLAG, 0, NULL, "Stop the running copies, leaving each move in progress (resumable)."),
    OPT(LVX_OPT_RESUME, "resume", 0, LVX_ARG_FLAG, 0, NULL, "Start the paused moves' copies again, in the background."),
    OPT(LVX_OPT_BACKGROUND, "background", 'b', LVX_ARG_FLAG, 0, NULL, "Copy in the background."),
    OPT(LVX_OPT_INTERVAL, "interval", 'i', LVX_ARG_STRING, 0, "[+]Number", "Seconds between progress lines (0: none)."),
    OPT(LVX_OPT_MERGE, "merge", 0, LVX_ARG_FLAG, 0, NULL, "Merge a snapshot back into its origin."),
    OPT(LVX_OPT_ERRORWHENFULL, "errorwhenfull", 0, LVX_ARG_BOOL, 0, "y|n", "A full thin pool fails writes at once (y) or queues them (n, the kernel's 60 s)."),
    OPT(LVX_OPT_DUMP, "dump", 0, LVX_ARG_STRING, 0, "headers|metadata|metadata_all|metadata_search|metadata_area|backup_to_raw", "Print on-disk headers or metadata (pvck)."),
    OPT(LVX_OPT_REPAIRTYPE, "repairtype", 0, LVX_ARG_STRING, 0, "label_header|pv_header|metadata", "Rewrite a damaged on-disk structure (pvck)."),
    OPTR(LVX_OPT_SETTINGS, "settings", 0, LVX_ARG_LIST, 0, "String", "Locations and values for pvck (mda_num, mda_offset, mda_size, seqno, pv_uuid, ...)."),
    OPT(LVX_OPT_MIRRORLOG, "mirrorlog", 0, LVX_ARG_STRING, 0, "core|disk|mirrored",
        "Where the mirror log lives (--type mirror)."),
    OPT(LVX_OPT_CORELOG, "corelog", 0, LVX_ARG_FLAG, 0, NULL,
        "A mirror log in memory (--mirrorlog core)."),
    OPT(LVX_OPT_LVMPARTITION, "lvmpartition", 'l', LVX_ARG_FLAG, 0, NULL, "List only the devices that are PVs."),
    OPT(LVX_OPT_MONITOR, "monitor", 0, LVX_ARG_BOOL, 0, "y|n", "Start or stop dmeventd monitoring (lvx has none: nothing to do)."),
    OPT(LVX_OPT_REFRESH, "refresh", 0, LVX_ARG_FLAG, 0, NULL, "Also reload the active LVs (lvx: their /dev entries are made again)."),
    OPT(LVX_OPT_SETAUTOACTIVATION, "setautoactivation", 0, LVX_ARG_BOOL, 0, "y|n", "Let autoactivation (-aay) activate the VG or LV (default y)."),
    OPT(LVX_OPT_RESTOREMISSING, "restoremissing", 0, LVX_ARG_FLAG, 0, NULL, "Take back PVs that were missing (clear their MISSING flag)."),
    OPT(LVX_OPT_POLL, "poll", 0, LVX_ARG_BOOL, 0, "y|n", "Wait for and finish snapshot merges the activation starts (default y)."),
    OPTR(LVX_OPT_REBUILD, "rebuild", 0, LVX_ARG_LIST, 0, "PV", "Rebuild the RAID images on this PV (repeatable)."),
    OPT(LVX_OPT_RESYNC, "resync", 0, LVX_ARG_FLAG, 0, NULL, "Resynchronize a RAID LV completely."),
    OPTR(LVX_OPT_DEVICES, "devices", 0, LVX_ARG_LIST, 0, "PV", "Look only at these devices (files allowed)."),
    OPTR(LVX_OPT_VERBOSE, "verbose", 'v', LVX_ARG_FLAG, 0, NULL, "More messages (repeatable)."),
    OPTR(LVX_OPT_QUIET, "quiet", 'q', LVX_ARG_FLAG, 0, NULL, "Fewer messages."),
    OPT(LVX_OPT_YES, "yes", 'y', LVX_ARG_FLAG, 0, NULL, "Answer yes to prompts."),
    OPTR(LVX_OPT_FORCE, "force", 'f', LVX_ARG_FLAG, 0, NULL, "Override checks."),
    OPTR(LVX_OPT_DEBUG, "debug", 'd', LVX_ARG_FLAG, 0, NULL, "Debug messages (repeatable)."),
    OPT(LVX_OPT_HELP, "help", 'h', LVX_ARG_FLAG, 0, NULL, "Show help."),
    OPT(LVX_OPT_VERSION, "version", 0, LVX_ARG_FLAG, 0, NULL, "Show the version."),
    OPT(LVX_OPT_TEST, "test", 't', LVX_ARG_FLAG, 0, NULL, "Run without writing metadata."),
    OPT(LVX_OPT_CONFIG, "config", 0, LVX_ARG_STRING, 0, "String", "Configuration override (stored)."),
};
#undef OPT

static const enum lvx_opt_id common_opts[] = {
    LVX_OPT_NOLOCKING, LVX_OPT_COMMANDPROFILE, LVX_OPT_LOCKOPT,
    LVX_OPT_LONGHELP, LVX_OPT_PROFILE, LVX_OPT_DEVICES, LVX_OPT_DEVICESFILE, LVX_OPT_VERBOSE, LVX_OPT_QUIET, LVX_OPT_YES, LVX_OPT_FORCE,
    LVX_OPT_DEBUG, LVX_OPT_HELP, LVX_OPT_VERSION, LVX_OPT_TEST, LVX_OPT_CONFIG,
    LVX_OPT_REPORTFORMAT,
};

const struct lvx_opt_def *lvx_opt_def(enum lvx_opt_id id)
{
    if ((unsigned)id >= LVX_OPT_COUNT)
        return NULL;
    return &opt_table[id];
}

static bool in_list(const enum lvx_opt_id *list, enum lvx_opt_id id)
{
    for (; list && *list != LVX_OPT_COUNT; list++)
        if (*list == id)
            return true;
    return false;
}

char lvx_opt_short(const enum lvx_opt_id *allowed, enum lvx_opt_id id)
{
    if (id == LVX_OPT_STRIPES && in_list(allowed, LVX_OPT_INTERVAL))
        return 0;
    return opt_table[id].short_name;
}

bool lvx_opts_allowed(const enum lvx_opt_id *allowed, enum lvx_opt_id id)
{
    if (id == LVX_OPT_FORCE && in_list(allowed, LVX_OPT_FILE))
        return false;   /* -f means --file there */
    for (size_t i = 0; i < sizeof(common_opts) / sizeof(common_opts[0]); i++)
        if (common_opts[i] == id)
            return true;
    return in_list(allowed, id);
}

