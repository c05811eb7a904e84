/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/options.c - the one option table and the getopt_long-based parser.
 *
 * Entry points: lvx_opt_def() (table lookup, used by help), lvx_opts_parse()
 * (argv -> struct lvx_cmd_args for one command), lvx_opts_parse_units().
 * A command accepts the common options plus the ids listed in its line of the
 * command table; anything else is "unrecognized", exactly as getopt words it.
 */
#include "cmd/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"

#define OPT(id, l, s, a, an, h) [id] = { id, l, s, a, an, h }
static const struct lvx_opt_def opt_table[LVX_OPT_COUNT] = {
    OPT(LVX_OPT_OPTIONS, "options", 'o', true, "String", "Fields to report (repeatable; '+f' adds)."),
    OPT(LVX_OPT_SORT, "sort", 'O', true, "String", "Sort keys, '-' prefix for descending."),
    OPT(LVX_OPT_SELECT, "select", 'S', true, "String", "Report only the items matching."),
    OPT(LVX_OPT_NOHEADINGS, "noheadings", 0, false, NULL, "Suppress the heading line."),
    OPT(LVX_OPT_SEPARATOR, "separator", 0, true, "String", "Column separator."),
    OPT(LVX_OPT_NOSUFFIX, "nosuffix", 0, false, NULL, "Print sizes without a unit suffix."),
    OPT(LVX_OPT_UNITS, "units", 0, true, "[Number]r|R|h|H|b|B|s|S|k|K|m|M|g|G|t|T|p|P|e|E",
        "Units of sizes."),
    OPT(LVX_OPT_REPORTFORMAT, "reportformat", 0, true, "basic|json", "Report output format."),
    OPT(LVX_OPT_ALL, "all", 'a', false, NULL, "Include hidden (internal) items."),
    OPT(LVX_OPT_SEGMENTS, "segments", 0, false, NULL, "One row per segment."),
    OPT(LVX_OPT_ALIGNED, "aligned", 0, false, NULL, "Align columns with --separator."),
    OPT(LVX_OPT_UNBUFFERED, "unbuffered", 0, false, NULL, "Print rows as they are produced."),
    OPT(LVX_OPT_NAMEPREFIXES, "nameprefixes", 0, false, NULL, "Print LVM2_FIELD=value pairs."),
    OPT(LVX_OPT_UNQUOTED, "unquoted", 0, false, NULL, "No quotes with --nameprefixes."),
    OPT(LVX_OPT_ROWS, "rows", 0, false, NULL, "Print fields as rows."),
    OPT(LVX_OPT_MAPS, "maps", 'm', false, NULL, "Show the extent mappings."),
    OPT(LVX_OPT_COLON, "colon", 'c', false, NULL, "Colon separated output."),
    OPT(LVX_OPT_COLUMNS, "columns", 'C', false, NULL, "Report in columns (as pvs/vgs/lvs)."),
    OPT(LVX_OPT_SHORT, "short", 's', false, NULL, "Short output."),
    OPT(LVX_OPT_FILE, "file", 'f', true, "String", "Output file."),
    OPT(LVX_OPT_SIZE, "size", 'L', true, "[+|-]Size[m|UNIT]", "Size of the LV (default unit MiB)."),
    OPT(LVX_OPT_EXTENTS, "extents", 'l', true, "[+|-]Number[%VG|%FREE|%PVS|%LV]",
        "Size of the LV in extents or as a percentage."),
    OPT(LVX_OPT_NAME, "name", 'n', true, "String", "Name of the new LV."),
    OPT(LVX_OPT_STRIPES, "stripes", 'i', true, "Number", "Number of stripes."),
    OPT(LVX_OPT_STRIPESIZE, "stripesize", 'I', true, "Size[k|UNIT]", "Stripe size (default KiB)."),
    OPT(LVX_OPT_TYPE, "type", 0, true, "linear|striped", "Segment type."),
    OPT(LVX_OPT_ALLOC, "alloc", 0, true, "contiguous|cling|normal|anywhere|inherit",
        "Allocation policy."),
    OPT(LVX_OPT_CONTIGUOUS, "contiguous", 'C', true, "y|n", "Contiguous allocation."),
    OPT(LVX_OPT_PERMISSION, "permission", 'p', true, "r|rw", "Access permission."),
    OPT(LVX_OPT_READAHEAD, "readahead", 'r', true, "auto|none|Number", "Read-ahead in sectors."),
    OPT(LVX_OPT_ADDTAG, "addtag", 0, true, "Tag", "Add a tag (repeatable)."),
    OPT(LVX_OPT_DELTAG, "deltag", 0, true, "Tag", "Delete a tag (repeatable)."),
    OPT(LVX_OPT_ZERO, "zero", 'Z', true, "y|n", "Zero the start of the new LV."),
    OPT(LVX_OPT_WIPESIGNATURES, "wipesignatures", 'W', true, "y|n", "Wipe signatures."),
    OPT(LVX_OPT_ACTIVATE, "activate", 'a', true, "y|n",
        "Activate (y) or deactivate (n) through device-mapper."),
    OPT(LVX_OPT_ACTIVATIONMODE, "activationmode", 0, true, "partial|degraded|complete",
        "partial: also activate LVs on missing PVs (missing parts fail I/O)."),
    OPT(LVX_OPT_PARTIAL, "partial", 'P', false, NULL,
        "Same as --activationmode partial (accepted and ignored by the reports)."),
    OPT(LVX_OPT_PHYSICALEXTENTSIZE, "physicalextentsize", 's', true, "Size[m|UNIT]",
        "Extent size of the VG (default 4 MiB)."),
    OPT(LVX_OPT_VGMETADATACOPIES, "vgmetadatacopies", 0, true, "all|unmanaged|Number",
        "Number of metadata copies kept in use in the VG."),
    OPT(LVX_OPT_METADATACOPIES_VG, "metadatacopies", 0, true, "all|unmanaged|Number",
        "Same as --vgmetadatacopies."),
    OPT(LVX_OPT_MAXLOGICALVOLUMES, "maxlogicalvolumes", 'l', true, "Number",
        "Maximum number of LVs (0 = unlimited)."),
    OPT(LVX_OPT_MAXPHYSICALVOLUMES, "maxphysicalvolumes", 'p', true, "Number",
        "Maximum number of PVs (0 = unlimited)."),
    OPT(LVX_OPT_RESIZEABLE, "resizeable", 'x', true, "y|n", "Allow adding/removing PVs."),
    OPT(LVX_OPT_UUID, "uuid", 'u', false, NULL, "Generate a new UUID."),
    OPT(LVX_OPT_REMOVEMISSING, "removemissing", 0, false, NULL, "Remove missing PVs."),
    OPT(LVX_OPT_UPDATEMETADATA, "updatemetadata", 0, false, NULL,
        "Rewrite stale or damaged metadata copies."),
    OPT(LVX_OPT_LIST, "list", 'l', false, NULL, "List the archived metadata of the VG."),
    OPT(LVX_OPT_FORCE_LONG, "force", 0, false, NULL, "Override checks."),
    OPT(LVX_OPT_PVMETADATACOPIES, "pvmetadatacopies", 0, true, "0|1|2",
        "Number of metadata areas on the PV."),
    OPT(LVX_OPT_METADATACOPIES_PV, "metadatacopies", 0, true, "0|1|2",
        "Same as --pvmetadatacopies."),
    OPT(LVX_OPT_METADATASIZE, "metadatasize", 0, true, "Size[m|UNIT]",
        "Minimum size of each metadata area."),
    OPT(LVX_OPT_DATAALIGNMENT, "dataalignment", 0, true, "Size[k|UNIT]",
        "Align the start of the data area to a multiple of this."),
    OPT(LVX_OPT_DATAALIGNMENTOFFSET, "dataalignmentoffset", 0, true, "Size[k|UNIT]",
        "Shift the start of the data area by this."),
    OPT(LVX_OPT_LABELSECTOR, "labelsector", 0, true, "Number", "Sector of the label (0-3)."),
    OPT(LVX_OPT_BOOTLOADERAREASIZE, "bootloaderareasize", 0, true, "Size[m|UNIT]",
        "Reserve a bootloader area of this size."),
    OPT(LVX_OPT_METADATAIGNORE, "metadataignore", 0, true, "y|n",
        "Ignore the PV's metadata areas."),
    OPT(LVX_OPT_UUID_STR, "uuid", 'u', true, "String", "UUID of the new PV."),
    OPT(LVX_OPT_RESTOREFILE, "restorefile", 0, true, "String",
        "Backup file to take the PV's layout from (with --uuid)."),
    OPT(LVX_OPT_NORESTOREFILE, "norestorefile", 0, false, NULL, "Allow --uuid without --restorefile."),
    OPT(LVX_OPT_SETPHYSICALVOLUMESIZE, "setphysicalvolumesize", 0, true, "Size[m|UNIT]",
        "Use this size instead of the device size."),
    OPT(LVX_OPT_ALLOCATABLE, "allocatable", 'x', true, "y|n",
        "Allow or forbid allocation of the PV's extents."),
    OPT(LVX_OPT_DEVICES, "devices", 0, true, "PV", "Look only at these devices (files allowed)."),
    OPT(LVX_OPT_VERBOSE, "verbose", 'v', false, NULL, "More messages (repeatable)."),
    OPT(LVX_OPT_QUIET, "quiet", 'q', false, NULL, "Fewer messages."),
    OPT(LVX_OPT_YES, "yes", 'y', false, NULL, "Answer yes to prompts."),
    OPT(LVX_OPT_FORCE, "force", 'f', false, NULL, "Override checks."),
    OPT(LVX_OPT_DEBUG, "debug", 'd', false, NULL, "Debug messages (repeatable)."),
    OPT(LVX_OPT_HELP, "help", 'h', false, NULL, "Show help."),
    OPT(LVX_OPT_VERSION, "version", 0, false, NULL, "Show the version."),
    OPT(LVX_OPT_TEST, "test", 't', false, NULL, "Run without writing metadata."),
    OPT(LVX_OPT_CONFIG, "config", 0, true, "String", "Configuration override (stored)."),
};
#undef OPT

static const enum lvx_opt_id common_opts[] = {
    LVX_OPT_DEVICES, LVX_OPT_VERBOSE, LVX_OPT_QUIET, LVX_OPT_YES, LVX_OPT_FORCE,
    LVX_OPT_DEBUG, LVX_OPT_HELP, LVX_OPT_VERSION, LVX_OPT_TEST, LVX_OPT_CONFIG,
};

#define LONG_VAL_BASE 256

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

bool lvx_opts_allowed(const enum lvx_opt_id *allowed, enum lvx_opt_id id)
{
    if (id == LVX_OPT_FORCE && in_list(allowed, LVX_OPT_FILE))
        return false;   /* -f means --file there */
    for (size_t i = 0; i < sizeof(common_opts) / sizeof(common_opts[0]); i++)
        if (common_opts[i] == id)
            return true;
    return in_list(allowed, id);
}

static uint64_t unit_letter_bytes(char u)
{
    static const char letters[] = "bkmgtpe";
    if (u == 's' || u == 'S')
        return 512;
    uint64_t base = u >= 'a' ? 1024 : 1000, bytes = 1;
    for (const char *l = letters; *l && *l != (u | 0x20); l++)
        bytes *= base;
    return bytes;
}

int lvx_opts_parse_units(const char *s, char *unit, uint64_t *unit_bytes)
{
    const char *p = s;
    double number = 1.0;
    bool integer_part_one = true;

    *unit_bytes = 0;
    if (!s || !*s)
        return -EINVAL;
    if (*p >= '0' && *p <= '9') {
        char *end;
        number = strtod(p, &end);
        if (end == p || !(number > 0))
            return -EINVAL;
        integer_part_one = strtoull(p, NULL, 10) == 1;
        p = end;
    }
    if (p[0] == '\0' || p[1] != '\0' || !strchr("rRhHbBsSkKmMgGtTpPeE", p[0]))
        return -EINVAL;
    char u = p[0];
    *unit = u;
    if (number == 1.0 || strchr("rRhH", u))
        return 0;
    double bytes = number * (double)unit_letter_bytes(u);
    if (!(bytes >= 1.0) || bytes >= 18446744073709551616.0)
        return -EINVAL;
    *unit_bytes = (uint64_t)bytes;
    if (!integer_part_one)
        *unit = 'U';
    else if (*unit_bytes == unit_letter_bytes(u))
        *unit_bytes = 0;                 /* "1.0k", "1.9b": the plain unit */
    return 0;
}

/* Build getopt_long's tables for the allowed options. */
static void build_getopt(const enum lvx_opt_id *allowed, struct option *longopts, char *shortopts,
                         enum lvx_opt_id *short_map)
{
    unsigned n = 0, s = 0;
    shortopts[s++] = ':';   /* report missing arguments as ':' */
    for (int id = 0; id < LVX_OPT_COUNT; id++) {
        if (!lvx_opts_allowed(allowed, (enum lvx_opt_id)id))
            continue;
        const struct lvx_opt_def *d = &opt_table[id];
        longopts[n].name = d->long_name;
        longopts[n].has_arg = d->has_arg ? required_argument : no_argument;
        longopts[n].flag = NULL;
        longopts[n].val = LONG_VAL_BASE + id;
        n++;
        if (d->short_name) {
            shortopts[s++] = d->short_name;
            if (d->has_arg)
                shortopts[s++] = ':';
            short_map[(unsigned char)d->short_name] = (enum lvx_opt_id)id;
        }
    }
    memset(&longopts[n], 0, sizeof(longopts[n]));
    shortopts[s] = '\0';
}

static void add_devices(struct lvx_pool *pool, struct lvx_cmd_args *out, const char *value)
{
    char *copy = lvx_pool_strdup(pool, value);
    for (char *tok = copy, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        if (!*tok)
            continue;
        out->devices = lvx_pool_realloc(pool, out->devices, out->device_count * sizeof(char *),
                                        (out->device_count + 1) * sizeof(char *));
        out->devices[out->device_count++] = tok;
    }
}

static void store_value(struct lvx_pool *pool, struct lvx_cmd_args *out, enum lvx_opt_id id,
                        const char *value)
{
    if ((id == LVX_OPT_OPTIONS || id == LVX_OPT_ADDTAG || id == LVX_OPT_DELTAG) && out->value[id])
        out->value[id] = lvx_pool_printf(pool, "%s,%s", out->value[id], value);
    else
        out->value[id] = lvx_pool_strdup(pool, value);
    if (id == LVX_OPT_DEVICES)
        add_devices(pool, out, value);
}

static int check_value(struct lvx_ctx *ctx, struct lvx_cmd_args *out, enum lvx_opt_id id,
                       const char *value)
{
    if (id == LVX_OPT_UNITS) {
        int r = lvx_opts_parse_units(value, &out->units, &out->unit_bytes);
        if (r < 0)
            return lvx_error(ctx, EINVAL, "Invalid units specification: %s", value);
    } else if (id == LVX_OPT_REPORTFORMAT) {
        if (strcmp(value, "basic") == 0)
            out->json = false;
        else if (strcmp(value, "json") == 0)
            out->json = true;
        else
            return lvx_error(ctx, EINVAL, "Invalid argument for --reportformat: %s", value);
    }
    return 0;
}

/* Word the error as getopt would ("lvx pvs: unrecognized option '--foo'"). */
static int report_getopt_error(struct lvx_ctx *ctx, const char *cmd, int c, char **argv)
{
    const char *arg = argv[optind - 1];

    if (c == ':') {
        if (optopt >= LONG_VAL_BASE)
            return lvx_error(ctx, EINVAL, "lvx %s: option '--%s' requires an argument", cmd,
                             opt_table[optopt - LONG_VAL_BASE].long_name);
        return lvx_error(ctx, EINVAL, "lvx %s: option requires an argument -- '%c'", cmd, optopt);
    }
    if (optopt == 0 || (arg && strncmp(arg, "--", 2) == 0))
        return lvx_error(ctx, EINVAL, "lvx %s: unrecognized option '%s'", cmd, arg);
    return lvx_error(ctx, EINVAL, "lvx %s: invalid option -- '%c'", cmd, optopt);
}

int lvx_opts_parse(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *cmd,
                   const enum lvx_opt_id *allowed, int argc, char **argv,
                   struct lvx_cmd_args *out)
{
    struct option longopts[LVX_OPT_COUNT + 1];
    char shortopts[2 * LVX_OPT_COUNT + 4];
    enum lvx_opt_id short_map[256];

    memset(out, 0, sizeof(*out));
    out->cmd = cmd;
    out->full_argc = argc;
    out->full_argv = argv;
    for (size_t i = 0; i < 256; i++)
        short_map[i] = LVX_OPT_COUNT;
    build_getopt(allowed, longopts, shortopts, short_map);

    /* getopt permutes argv: work on a copy so the caller's array stays as it was */
    char **av = lvx_pool_alloc(pool, (size_t)(argc + 1) * sizeof(char *));
    memcpy(av, argv, (size_t)argc * sizeof(char *));

    opterr = 0;
    optind = 0;   /* full reinitialisation (glibc), so a shell may parse many lines */
    int c;
    while ((c = getopt_long(argc, av, shortopts, longopts, NULL)) != -1) {
        enum lvx_opt_id id;
        if (c == '?' || c == ':')
            return report_getopt_error(ctx, cmd, c, av);
        if (c >= LONG_VAL_BASE)
            id = (enum lvx_opt_id)(c - LONG_VAL_BASE);
        else
            id = short_map[(unsigned char)c];
        if (id == LVX_OPT_COUNT)
            return lvx_error(ctx, EINVAL, "lvx %s: invalid option -- '%c'", cmd, c);
        out->count[id]++;
        if (opt_table[id].has_arg) {
            int r = check_value(ctx, out, id, optarg);
            if (r < 0)
                return r;
            store_value(pool, out, id, optarg);
        }
    }
    out->argc = argc - optind;
    out->argv = av + optind;
    return 0;
}
