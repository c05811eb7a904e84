/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/options.h - the one table of command-line options (cmd/options.c), the kinds
 * of their values, and the parser that turns argv into struct lvx_cmd_args for one
 * command (cmd/opt_parse.c, values by cmd/opt_values.c).
 *
 * Names and short forms are LVM2's.  Every command accepts the common options
 * (LVX_OPT_COMMON); the rest must be listed in the command's table line
 * (cmd/commands.c).  Each option has one value kind; its value is checked and
 * converted once, by the parser, into args->val[id] (LVM2 does the same in its
 * arg value functions).  A bad command line is one message in the context (and
 * LVM2's reason for a bad value in args->reason) and -EINVAL; the dispatcher prints
 * them as one line and returns exit code 3.  The parser keeps no global state (no getopt), so command
 * lines may be parsed in several threads at once.
 */
#ifndef LVX_CMD_OPTIONS_H
#define LVX_CMD_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "util/ctx.h"
#include "util/pool.h"

/* The kind of an option's value. */
enum lvx_opt_kind {
    LVX_ARG_FLAG,       /* no value (counted) */
    LVX_ARG_STRING,     /* text as given; the command interprets it */
    LVX_ARG_LIST,       /* text, repeatable: values joined with ',' (-o, --devices) */
    LVX_ARG_BOOL,       /* y|yes|n|no */
    LVX_ARG_NUMBER,     /* decimal, no sign, at most UINT32_MAX */
    LVX_ARG_SIZE,       /* Number[.Fraction][Unit[b]], Unit of bBsSkKmMgGtTpPeE, binary
                         * multiples, the option's default unit without one */
    LVX_ARG_SSIZE,      /* [+|-]SIZE: the sign is kept (lvcreate refuses '-' itself) */
    LVX_ARG_EXTENTS,    /* [+|-]Number[%VG|%FREE|%PVS|%LV|%ORIGIN] */
    LVX_ARG_TAG,        /* [@]Tag, repeatable */
    LVX_ARG_UNITS,      /* [Number]r|R|h|H|b|B|s|S|k|K|m|M|g|G|t|T|p|P|e|E */
    LVX_ARG_REPORTFORMAT, /* basic|json */
    LVX_ARG_MDATYPE,    /* lvm2|2|text (case-insensitive): the one metadata format */
    LVX_ARG_SNUMBER,    /* [+|-]Number: the sign kept in .sign (lvconvert -m +1) */
};

/* The base of a percentage in -l. */
enum lvx_pct {
    LVX_PCT_NONE = 0,
    LVX_PCT_VG,
    LVX_PCT_FREE,
    LVX_PCT_PVS,
    LVX_PCT_LV,
    LVX_PCT_ORIGIN,
};

/* An option's value after the parser: the members of its kind are set. */
struct lvx_opt_val {
    bool b;                 /* BOOL */
    int sign;               /* SSIZE, EXTENTS: 0, +1 ("+5m"), -1 ("-5m") */
    uint64_t n;             /* NUMBER; EXTENTS: extents or percent */
    enum lvx_pct pct;       /* EXTENTS */
    uint64_t sectors;       /* SIZE, SSIZE: rounded up to whole sectors */
    uint64_t sectors_floor; /* SIZE, truncated to whole sectors (LVM2's PV/VG sizes) */
    const char **items;     /* TAG (without '@'), LIST: every value, split at ',' */
    unsigned item_count;
};

enum lvx_opt_id {
    LVX_OPT_OPTIONS,        /* -o/--options STRING (repeatable: joined with ',') */
    LVX_OPT_SORT,           /* -O/--sort STRING */
    LVX_OPT_SELECT,         /* -S/--select STRING */
    LVX_OPT_NOHEADINGS,
    LVX_OPT_SEPARATOR,
    LVX_OPT_NOSUFFIX,
    LVX_OPT_UNITS,
    LVX_OPT_REPORTFORMAT,
    LVX_OPT_ALL,            /* -a/--all */
    LVX_OPT_SEGMENTS,
    LVX_OPT_ALIGNED,
    LVX_OPT_UNBUFFERED,
    LVX_OPT_NAMEPREFIXES,
    LVX_OPT_UNQUOTED,
    LVX_OPT_ROWS,
    LVX_OPT_MAPS,           /* -m/--maps (display) */
    LVX_OPT_COLON,          /* -c/--colon (display) */
    LVX_OPT_COLUMNS,        /* -C/--columns (display: use the report) */
    LVX_OPT_SHORT,          /* -s/--short */
    LVX_OPT_ACTIVEVOLUMEGROUPS, /* -A/--activevolumegroups (vgdisplay) */
    LVX_OPT_FILE,           /* -f/--file STRING (vgcfgbackup) */
    /* LV commands (lvcreate, lvextend/lvreduce/lvresize, lvchange, ...) */
    LVX_OPT_SIZE,           /* -L/--size [+|-]SIZE[unit] */
    LVX_OPT_EXTENTS,        /* -l/--extents [+|-]N[%VG|%FREE|%PVS|%LV] */
    LVX_OPT_NAME,           /* -n/--name STRING */
    LVX_OPT_STRIPES,        /* -i/--stripes N */
    LVX_OPT_STRIPESIZE,     /* -I/--stripesize SIZE[unit] */
    LVX_OPT_TYPE,           /* --type linear|striped */
    LVX_OPT_ALLOC,          /* --alloc POLICY */
    LVX_OPT_CONTIGUOUS,     /* -C/--contiguous y|n */
    LVX_OPT_PERMISSION,     /* -p/--permission r|rw */
    LVX_OPT_READAHEAD,      /* -r/--readahead auto|none|N */
    LVX_OPT_ADDTAG,         /* --addtag TAG (repeatable: joined with ',') */
    LVX_OPT_DELTAG,         /* --deltag TAG (repeatable: joined with ',') */
    LVX_OPT_ZERO,           /* -Z/--zero y|n */
    LVX_OPT_WIPESIGNATURES, /* -W/--wipesignatures y|n */
    LVX_OPT_ACTIVATE,       /* -a/--activate y|n */
    LVX_OPT_ACTIVATIONMODE, /* --activationmode partial|degraded|complete */
    LVX_OPT_PARTIAL,        /* -P/--partial (= --activationmode partial; ignored by reports) */
    LVX_OPT_SNAPSHOT,       /* -s/--snapshot (lvcreate: a COW snapshot of the origin LV) */
    LVX_OPT_CHUNKSIZE,      /* -c/--chunksize SIZE[k|unit] (lvcreate -s) */
    LVX_OPT_IGNOREACTIVATIONSKIP, /* -K/--ignoreactivationskip (lvchange/vgchange/lvcreate -a) */
    /* VG commands (vgcreate, vgchange, vgreduce, vgck, vgcfgrestore, ...) */
    LVX_OPT_PHYSICALEXTENTSIZE, /* -s/--physicalextentsize SIZE[m|unit] */
    LVX_OPT_VGMETADATACOPIES,   /* --vgmetadatacopies N|all|unmanaged */
    LVX_OPT_METADATACOPIES_VG,  /* --metadatacopies (vgcreate/vgchange: vgmetadatacopies) */
    LVX_OPT_MAXLOGICALVOLUMES,  /* -l/--maxlogicalvolumes N */
    LVX_OPT_MAXPHYSICALVOLUMES, /* -p/--maxphysicalvolumes N */
    LVX_OPT_RESIZEABLE,         /* -x/--resizeable y|n */
    LVX_OPT_UUID,               /* -u/--uuid (vgchange: new VG UUID) */
    LVX_OPT_REMOVEMISSING,      /* --removemissing (vgreduce) */
    LVX_OPT_UPDATEMETADATA,     /* --updatemetadata (vgck) */
    LVX_OPT_LIST,               /* -l/--list (vgcfgrestore) */
    LVX_OPT_FORCE_LONG,         /* --force without -f (commands where -f is --file) */
    /* PV commands (pvcreate, pvchange, pvresize; vgcreate/vgextend may list them too) */
    LVX_OPT_PVMETADATACOPIES,   /* --pvmetadatacopies 0|1|2 */
    LVX_OPT_METADATACOPIES_PV,  /* --metadatacopies (pvcreate: pvmetadatacopies) */
    LVX_OPT_METADATASIZE,       /* --metadatasize SIZE[m|unit] */
    LVX_OPT_DATAALIGNMENT,      /* --dataalignment SIZE[k|unit] */
    LVX_OPT_DATAALIGNMENTOFFSET,/* --dataalignmentoffset SIZE[k|unit] */
    LVX_OPT_LABELSECTOR,        /* --labelsector 0..3 */
    LVX_OPT_BOOTLOADERAREASIZE, /* --bootloaderareasize SIZE[m|unit] */
    LVX_OPT_METADATAIGNORE,     /* --metadataignore y|n */
    LVX_OPT_UUID_STR,           /* -u/--uuid STRING (pvcreate: the PV UUID to use) */
    LVX_OPT_RESTOREFILE,        /* --restorefile FILE */
    LVX_OPT_NORESTOREFILE,      /* --norestorefile */
    LVX_OPT_SETPHYSICALVOLUMESIZE, /* --setphysicalvolumesize SIZE[m|unit] */
    LVX_OPT_ALLOCATABLE,        /* -x/--allocatable y|n (pvchange) */
    LVX_OPT_CONFIGREPORT,       /* --configreport vg|pv|lv|pvseg|seg|log (fullreport) */
    LVX_OPT_BINARY,             /* --binary (reports) */
    LVX_OPT_METADATATYPE,       /* -M/--metadatatype lvm2 (pv/vg commands) */
    LVX_OPT_PERSISTENT,         /* -M/--persistent y|n (lvcreate) */
    LVX_OPT_MAJOR,              /* -j/--major N (lvcreate: ignored, as LVM2 on 2.6+) */
    LVX_OPT_MINOR,              /* --minor N (lvcreate: persistent minor) */
    /* scan commands, LVM2 compatibility (pvscan, vgscan, lvscan, lvmconfig, -K, ...) */
    LVX_OPT_CACHE,              /* --cache (pvscan: record PVs online) */
    LVX_OPT_EXPORTED,           /* -e/--exported (pvscan) */
    LVX_OPT_NOVOLUMEGROUP,      /* -n/--novolumegroup (pvscan) */
    LVX_OPT_MKNODES,            /* --mknodes (vgscan) */
    LVX_OPT_BLOCKDEVICE,        /* -b/--blockdevice (lvscan, ignored as by LVM2) */
    LVX_OPT_AUTOACTIVATION,     /* --autoactivation String (pvscan, vgchange) */
    LVX_OPT_NOUDEVSYNC,         /* --noudevsync (accepted; lvx makes its nodes itself) */
    LVX_OPT_READONLY,           /* --readonly (reads without locks) */
    LVX_OPT_IGNORELOCKINGFAILURE, /* --ignorelockingfailure */
    LVX_OPT_IGNOREMONITORING,   /* --ignoremonitoring (lvcreate, lvchange, vgchange) */
    LVX_OPT_SYSINIT,            /* --sysinit (vgchange, lvchange): early boot, see opt_parse.c */
    LVX_OPT_SWAPMETADATA,       /* --swapmetadata (lvconvert POOL --poolmetadata LV) */
    LVX_OPT_PROFILE,            /* --profile String (a profile as command profile) */
    LVX_OPT_TYPECONFIG,         /* --typeconfig (lvmconfig: = --type) */
    LVX_OPT_WITHCOMMENTS,       /* --withcomments (lvmconfig) */
    LVX_OPT_MERGEDCONFIG,       /* --mergedconfig (lvmconfig) */
    LVX_OPT_WITHVERSIONS,       /* --withversions (lvmconfig) */
    LVX_OPT_WITHSUMMARY,        /* --withsummary (lvmconfig) */
    LVX_OPT_IGNOREADVANCED,     /* --ignoreadvanced (lvmconfig) */
    LVX_OPT_CONFIG_TYPE,        /* --type current|default|diff|full (config) */
    LVX_OPT_MIRRORS,            /* -m/--mirrors N (lvcreate: raid1/raid10 images - 1) */
    LVX_OPT_REGIONSIZE,         /* -R/--regionsize SIZE[m|unit] (raid) */
    LVX_OPT_NOSYNC,             /* --nosync (raid: no initial resync) */
    LVX_OPT_MINRECOVERYRATE,    /* --minrecoveryrate SIZE[k|unit] per second (raid) */
    LVX_OPT_MAXRECOVERYRATE,    /* --maxrecoveryrate SIZE[k|unit] per second (raid) */
    LVX_OPT_SHARED,             /* --shared (reports: show shared VGs without lvmlockd) */
    LVX_OPT_CHECK,              /* --check (lvmdevices) */
    LVX_OPT_UPDATE,             /* --update (lvmdevices) */
    LVX_OPT_ADDDEV,             /* --adddev PV (lvmdevices) */
    LVX_OPT_DELDEV,             /* --deldev String (lvmdevices) */
    LVX_OPT_ADDPVID,            /* --addpvid String (lvmdevices) */
    LVX_OPT_DELPVID,            /* --delpvid String (lvmdevices) */
    LVX_OPT_DEVICEIDTYPE,       /* --deviceidtype String (lvmdevices --adddev/--addpvid) */
    LVX_OPT_DEVICESFILE,        /* --devicesfile String (common: the devices file to use) */
    LVX_OPT_LISTVG,             /* --listvg (pvscan --cache: the udev rule's) */
    LVX_OPT_LISTLVS,            /* --listlvs (pvscan --cache) */
    LVX_OPT_CHECKCOMPLETE,      /* --checkcomplete (pvscan --listvg/--listlvs) */
    LVX_OPT_VGONLINE,           /* --vgonline (pvscan --listvg/--listlvs --checkcomplete) */
    LVX_OPT_UDEVOUTPUT,         /* --udevoutput (pvscan --listvg --checkcomplete) */
    LVX_OPT_THIN,               /* -T/--thin (lvcreate: a thin pool and/or a thin LV) */
    LVX_OPT_THINPOOL,           /* --thinpool [VG/]POOL (lvcreate) */
    LVX_OPT_ORIGINNAME,         /* --originname NAME (lvconvert --type thin: the external origin) */
    LVX_OPT_VIRTUALSIZE,        /* -V/--virtualsize SIZE[m|unit] (lvcreate: thin LV size) */
    LVX_OPT_VIRTUALORIGINSIZE,  /* --virtualoriginsize SIZE: LVM2's synonym of -V that always
                                 * makes a sparse COW snapshot (lvcreate) */
    LVX_OPT_POOLMETADATASIZE,   /* --poolmetadatasize [+]SIZE[m|unit] (thin pools) */
    LVX_OPT_POOLMETADATASPARE,  /* --poolmetadataspare y|n (thin pools) */
    LVX_OPT_POOLMETADATA,       /* --poolmetadata [VG/]LV (lvconvert to a thin pool) */
    LVX_OPT_DISCARDS,           /* --discards passdown|nopassdown|ignore (thin pools) */
    LVX_OPT_USEPOLICIES,        /* --usepolicies (lvextend, lvconvert --repair: lvm.conf policies) */
    LVX_OPT_USE_POLICIES,       /* --use-policies: the same */
    LVX_OPT_SETACTIVATIONSKIP,  /* -k/--setactivationskip y|n (lvcreate) */
    LVX_OPT_BASEVGNAME,         /* -n/--basevgname VG (vgimportclone) */
    LVX_OPT_IMPORT,             /* -i/--import (vgimportclone) */
    LVX_OPT_MIRRORSONLY,        /* --mirrorsonly (vgreduce --removemissing) */
    LVX_OPT_REPAIR,             /* --repair (lvconvert: replace failed RAID images; pvck) */
    LVX_OPT_REPLACE,            /* --replace PV (lvconvert, repeatable) */
    LVX_OPT_SYNCACTION,         /* --syncaction check|repair (lvchange, RAID) */
    LVX_OPT_ABORT,              /* --abort (pvmove) */
    LVX_OPT_ATOMIC,             /* --atomic (pvmove) */
    LVX_OPT_PAUSE,              /* --pause (lvx jobs) */
    LVX_OPT_RESUME,             /* --resume (lvx jobs) */
    LVX_OPT_BACKGROUND,         /* -b/--background (pvmove) */
    LVX_OPT_INTERVAL,           /* -i/--interval [+]Number (pvmove progress) */
    LVX_OPT_MERGE,              /* --merge (lvconvert: a snapshot into its origin) */
    LVX_OPT_MERGETHIN,          /* --mergethin (lvconvert: --merge of a thin snapshot only) */
    LVX_OPT_MERGESNAPSHOT,      /* --mergesnapshot (lvconvert: --merge of a COW snapshot only) */
    LVX_OPT_SPLITMIRRORS,       /* --splitmirrors Number (lvconvert: raid1 images become a new LV) */
    LVX_OPT_TRACKCHANGES,       /* --trackchanges (lvconvert --splitmirrors 1: the image stays tracked) */
    LVX_OPT_POLLOPERATION,      /* --polloperation merge|merge_thin|pvmove|convert (lvpoll) */
    LVX_OPT_SPLITSNAPSHOT,      /* --splitsnapshot (lvconvert: a COW snapshot becomes a plain LV) */
    LVX_OPT_STARTPOLL,          /* --startpoll (lvconvert: poll a conversion again) */
    LVX_OPT_POLL,               /* --poll y|n (vgchange/lvchange -ay: finish merges) */
    LVX_OPT_ERRORWHENFULL,      /* --errorwhenfull y|n (thin pools: lvcreate, lvchange) */
    LVX_OPT_LOCKSTART,          /* --lockstart (vgchange: join shared VGs' lockspaces) */
    LVX_OPT_LOCKSTOP,           /* --lockstop (vgchange: leave them) */
    LVX_OPT_LOCKTYPE,           /* --locktype none|sanlock (vgchange: shared <-> local) */
    LVX_OPT_REBUILD,            /* --rebuild PV (lvchange, RAID; repeatable) */
    LVX_OPT_RESYNC,             /* --resync (lvchange, RAID) */
    LVX_OPT_WRITEMOSTLY,        /* --[raid]writemostly PV[:t|:n|:y] (lvchange, raid1; repeatable) */
    LVX_OPT_WRITEBEHIND,        /* --[raid]writebehind N (lvchange, raid1) */
    LVX_OPT_DUMP,               /* --dump headers|metadata|... (pvck) */
    LVX_OPT_REPAIRTYPE,         /* --repairtype label_header|pv_header|metadata (pvck) */
    LVX_OPT_SETTINGS,           /* --settings "key=value ..." (pvck; repeatable) */
    LVX_OPT_MIRRORLOG,          /* --mirrorlog disk|core|mirrored (lvcreate --type mirror) */
    LVX_OPT_CORELOG,            /* --corelog (lvcreate --type mirror: --mirrorlog core) */
    LVX_OPT_LVMPARTITION,       /* -l/--lvmpartition (lvmdiskscan) */
    LVX_OPT_RESTOREMISSING,     /* --restoremissing (vgextend) */
    LVX_OPT_MONITOR,            /* --monitor y|n (vgchange, lvchange, lvcreate) */
    LVX_OPT_REFRESH,            /* --refresh (vgmknodes) */
    LVX_OPT_SETAUTOACTIVATION,  /* --setautoactivation y|n (vgchange, lvchange) */
    LVX_OPT_FOREIGN,            /* --foreign (reports, vgcfgbackup: foreign VGs too) */
    LVX_OPT_SYSTEMID,           /* --systemid String (vgcreate, vgchange) */
    LVX_OPT_METADATAPROFILE,    /* --metadataprofile String (vgcreate, vgchange, lvcreate, lvchange) */
    LVX_OPT_DETACHPROFILE,      /* --detachprofile (vgchange, lvchange) */
    /* common options, accepted by every command */
    LVX_OPT_NOLOCKING,      /* --nolocking */
    LVX_OPT_COMMANDPROFILE, /* --commandprofile String */
    LVX_OPT_LOCKOPT,        /* --lockopt String (lvmlockd only: accepted, ignored) */
    LVX_OPT_LONGHELP,       /* --longhelp (= --help) */
    LVX_OPT_DEVICES,        /* --devices LIST (repeatable, comma separated) */
    LVX_OPT_VERBOSE,        /* -v (repeatable) */
    LVX_OPT_QUIET,          /* -q */
    LVX_OPT_YES,            /* -y */
    LVX_OPT_FORCE,          /* -f/--force (commands without --file) */
    LVX_OPT_DEBUG,          /* -d */
    LVX_OPT_HELP,           /* -h/--help */
    LVX_OPT_VERSION,        /* --version */
    LVX_OPT_TEST,           /* -t/--test */
    LVX_OPT_CONFIG,         /* --config STRING (stored for later) */
    LVX_OPT_COUNT
};

/* One line of the option table. */
struct lvx_opt_def {
    enum lvx_opt_id id;
    const char *long_name;   /* without "--" */
    char short_name;         /* 0 if none */
    enum lvx_opt_kind kind;
    char default_unit;       /* SIZE: the unit of a bare number */
    bool has_arg;            /* kind != LVX_ARG_FLAG */
    const char *arg_name;    /* for help: "String", "basic|json", ... */
    const char *help;
    bool repeatable;         /* may be given more than once (-v, --addtag, -o, ...) */
};

/* The table, LVX_OPT_COUNT entries in id order. */
const struct lvx_opt_def *lvx_opt_def(enum lvx_opt_id id);

/* What a command line said. */
struct lvx_cmd_args {
    const char *cmd;                     /* command name */
    unsigned count[LVX_OPT_COUNT];       /* times each option was given */
    const char *value[LVX_OPT_COUNT];    /* last value as given (LIST, TAG: all values
                                          * joined with ',') */
    struct lvx_opt_val val[LVX_OPT_COUNT]; /* the value, converted by its kind */
    const char *reason;                  /* a bad value: LVM2's reason line, or NULL */
    bool parse_error;                    /* LVM2's "Error during parsing ..." follows */
    const char **devices;                /* --devices split at ',' */
    unsigned device_count;
    char units;                          /* 0 = default ('h'), else the unit letter */
    uint64_t unit_bytes;                 /* 0, or bytes per unit for "--units 4k" */
    bool json;                           /* --reportformat json */
    int argc;                            /* positional arguments */
    char **argv;
    const enum lvx_opt_id *seq_id;       /* every option value in command-line order */
    const char *const *seq_value;        /*  (fullreport's --configreport groups) */
    unsigned seq_count;
    int full_argc;                       /* the whole command line as given (argv[0] = */
    char **full_argv;                    /*  the command), for descriptions and logs */
};

/* Parse argv (argv[0] = command name) accepting the common options and those in
 * `allowed` (terminated by LVX_OPT_COUNT), as getopt_long would (options and
 * arguments in any order, "--" ends the options, unambiguous abbreviations of long
 * options, "-ay" and "--name=value"), converting each value by its kind.  Values live
 * in pool.  0 or -EINVAL with a message such as "lvx pvs: unrecognized option '--foo'"
 * or "Invalid argument for --size: 4x" (then out->reason says why, as LVM2). */
int lvx_opts_parse(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *cmd,
                   const enum lvx_opt_id *allowed, int argc, char **argv,
                   struct lvx_cmd_args *out);

/* The value converters the parser uses, for commands whose option takes one of
 * several forms ("-r auto|none|Size", "--vgmetadatacopies all|Number").  Each returns
 * 0, or -EINVAL with *reason set to LVM2's reason line (or NULL when it has none). */
int lvx_opt_parse_size(const char *s, char default_unit, struct lvx_opt_val *out,
                       const char **reason);
int lvx_opt_parse_extents(const char *s, struct lvx_opt_val *out, const char **reason);
int lvx_opt_parse_number(const char *s, uint64_t max, uint64_t *out);

/* Parse a --units value ([Number]rRhHbBsSkKmMgGtTpPeE) as LVM2 does: 0 and the unit
 * letter, or -EINVAL.  With a number before a fixed unit, *unit_bytes is the number
 * times the unit (truncated to whole bytes; 0 is invalid) and the letter becomes 'U'
 * unless the number's integer part is 1 ("1.5k" keeps 'k').  Human units ignore the
 * number.  Otherwise *unit_bytes is 0. */
int lvx_opts_parse_units(const char *s, char *unit, uint64_t *unit_bytes);

/* Is option id accepted by this command (common options included)? */
bool lvx_opts_allowed(const enum lvx_opt_id *allowed, enum lvx_opt_id id);
/* The short name of option id in a command accepting allowed (0: none): its table's,
 * except --stripes where -i is --interval (lvconvert, as LVM2's table). */
char lvx_opt_short(const enum lvx_opt_id *allowed, enum lvx_opt_id id);

/* Print "Invalid argument for --NAME: VALUE" (with " (REASON)" when given) and return
 * LVX_EXIT_INVALID (3).  For checks a command makes on a value the parser accepted
 * ("--labelsector 9"). */
int lvx_opts_invalid(const char *long_name, const char *value, const char *reason);

#endif
