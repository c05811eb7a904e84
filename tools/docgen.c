/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tools/docgen.c - lvx-docgen: the man pages, the bash completion and the list of LVM2
 * command names, generated from liblvx's command table (src/cmd/commands.c: names,
 * summaries, positional arguments, accepted options, the DESCRIPTION paragraph) and
 * option table (src/cmd/options.c: names, value kinds, default units, help texts), so
 * that they cannot drift from what the program accepts.  Run by `make man`:
 *
 *   lvx-docgen man DIR [DATE]   DIR/lvx.8 and DIR/lvx-CMD.8 for every command (troff)
 *   lvx-docgen completion       the bash completion file, on stdout
 *   lvx-docgen lvm2-names       "lvm", then every LVM2 program name lvx implements
 *
 * The only list kept here is a fact about LVM2: the names of its programs (the links
 * to `lvm` it installs).  A command of the table with one of those names is installed
 * under it by `make install-lvm-names`; a command added to the table is picked up
 * without any change here.
 */
#include "cmd/commands.h"
#include "cmd/options.h"
#include "report/report.h"
#include "util/buf.h"
#include "util/version.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* LVM2's programs (2.03: the links to lvm its `make install` creates, lvm itself apart). */
static const char *const lvm2_programs[] = {
    "lvchange", "lvconvert", "lvcreate", "lvdisplay", "lvextend", "lvmconfig", "lvmdevices",
    "lvmdiskscan", "lvmsadc", "lvmsar", "lvreduce", "lvremove", "lvrename", "lvresize", "lvs",
    "lvscan", "pvchange", "pvck", "pvcreate", "pvdisplay", "pvmove", "pvremove", "pvresize",
    "pvs", "pvscan", "vgcfgbackup", "vgcfgrestore", "vgchange", "vgck", "vgconvert",
    "vgcreate", "vgdisplay", "vgexport", "vgextend", "vgimport", "vgimportclone",
    "vgimportdevices", "vgmerge", "vgmknodes", "vgreduce", "vgremove", "vgrename", "vgs",
    "vgscan", "vgsplit",
};

static bool is_lvm2_program(const char *name)
{
    for (size_t i = 0; i < sizeof(lvm2_programs) / sizeof(lvm2_programs[0]); i++)
        if (strcmp(lvm2_programs[i], name) == 0)
            return true;
    return false;
}

/* ---- the tables ------------------------------------------------------------------ */

static const enum lvx_opt_id no_opts[] = { LVX_OPT_COUNT };

static bool listed(const struct lvx_command *c, enum lvx_opt_id id)
{
    for (const enum lvx_opt_id *o = c->opts; *o != LVX_OPT_COUNT; o++)
        if (*o == id)
            return true;
    return false;
}

/* The command's own options in table order, then the common options it accepts. */
static unsigned command_options(const struct lvx_command *c, enum lvx_opt_id *out, unsigned *own)
{
    unsigned n = 0;
    for (const enum lvx_opt_id *o = c->opts; *o != LVX_OPT_COUNT; o++)
        out[n++] = *o;
    *own = n;
    for (int i = 0; i < LVX_OPT_COUNT; i++) {
        enum lvx_opt_id id = (enum lvx_opt_id)i;
        if (!listed(c, id) && lvx_opts_allowed(no_opts, id) && lvx_opts_allowed(c->opts, id))
            out[n++] = id;
    }
    return n;
}

#define SIZE_TEXT                                                                         \
    "A size: a number, optionally with a fraction, and a unit: b (bytes, a multiple of 512), " \
    "s (512-byte sectors), k, m, g, t, p or e (KiB to EiB; either case, always binary)"

/* What a value of this kind looks like (the OPTIONS section). */
static const char *kind_text(const struct lvx_opt_def *d)
{
    switch (d->kind) {
    case LVX_ARG_FLAG:
        return NULL;
    case LVX_ARG_STRING:
        return NULL;
    case LVX_ARG_LIST:
        return "A comma-separated list; the option may be repeated (the values add up).";
    case LVX_ARG_BOOL:
        return "y, yes, n or no.";
    case LVX_ARG_NUMBER:
        return "A decimal number without sign.";
    case LVX_ARG_SNUMBER:
        return "A decimal number; a leading + or - makes it relative to the current value.";
    case LVX_ARG_SIZE:
        return SIZE_TEXT ".";
    case LVX_ARG_SSIZE:
        return SIZE_TEXT "; a leading + or - makes it relative to the current size.";
    case LVX_ARG_EXTENTS:
        return "A number of extents, or a percentage: N%VG (of the VG's size), N%FREE (of its "
               "free space), N%PVS (of the PVs named), N%LV (of the LV's size); a leading + or "
               "- makes it relative to the current size.";
    case LVX_ARG_TAG:
        return "A tag (letters, digits and _ + . - / = ! : & #; a leading @ is ignored); the "
               "option may be repeated.";
    case LVX_ARG_UNITS:
        return "r, h: human-readable (r with a < where rounded); b, s: bytes, sectors; k, m, g, "
               "t, p, e: powers of 1024, K, M, G, T, P, E powers of 1000; a number before a "
               "unit makes it that many units.";
    case LVX_ARG_REPORTFORMAT:
        return "basic (columns) or json.";
    case LVX_ARG_MDATYPE:
        return "lvm2 (also 2 or text, in any case): the only metadata format.";
    }
    return NULL;
}

/* The unit of a bare number of a SIZE option. */
static const char *default_unit_name(char u)
{
    switch (u) {
    case 's': return "512-byte sectors";
    case 'k': return "KiB";
    case 'm': return "MiB";
    case 'g': return "GiB";
    default: return NULL;
    }
}

/* ---- troff ------------------------------------------------------------------------ */

/* Text with troff's special characters escaped: backslash, minus signs. */
static void roff_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

/* A line of running text, broken at spaces into source lines of at most 78 bytes; a
 * leading '.' or '\'' would be a request. */
static void roff_line(FILE *f, const char *s)
{
    char *esc = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&esc, &len);
    if (!m)
        abort();
    roff_text(m, s);
    fclose(m);
    char *p = esc;
    while (*p) {
        size_t n = strlen(p);
        if (n > 78) {
            size_t cut = 78;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = strcspn(p, " ");
            n = cut;
        }
        if (*p == '.' || *p == '\'')
            fputs("\\&", f);
        fwrite(p, 1, n, f);
        fputc('\n', f);
        p += n;
        while (*p == ' ')
            p++;
    }
    free(esc);
}

/* A paragraph: one sentence per line (groff then ends sentences with two spaces). */
static void roff_para(FILE *f, const char *s)
{
    char *copy = strdup(s), *p = copy, *start = copy;
    if (!copy)
        abort();
    for (; *p; p++) {
        if (*p == '.' && p[1] == ' ' && p[2] >= 'A' && p[2] <= 'Z') {
            p[1] = '\0';
            roff_line(f, start);
            start = p + 2;
            p++;
        }
    }
    if (*start)
        roff_line(f, start);
    free(copy);
}

/* "-L|--size" in bold and the value name in italics, with unbreakable spaces. */
static void roff_option_name(FILE *f, const struct lvx_opt_def *d, char sc, const char *sep)
{
    if (sc)
        fprintf(f, "\\fB\\-%c\\fR%s", sc, sep);
    fputs("\\fB\\-\\-", f);
    roff_text(f, d->long_name);
    fputs("\\fR", f);
    if (d->has_arg) {
        fputs("\\ \\fI", f);
        roff_text(f, d->arg_name);
        fputs("\\fR", f);
    }
}

/* The positional usage ("VG [PV[:PE-PE] ...]"): placeholders in italics, literal words
 * (start|stop) in bold. */
static void roff_positional(FILE *f, const char *s)
{
    while (*s) {
        size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
        size_t w = strspn(s, "abcdefghijklmnopqrstuvwxyz");
        if (n) {
            fputs("\\fI", f);
            fwrite(s, 1, n, f);
            fputs("\\fR", f);
            s += n;
        } else if (w) {
            fputs("\\fB", f);
            fwrite(s, 1, w, f);
            fputs("\\fR", f);
            s += w;
        } else {
            char c[2] = { *s++, 0 };
            roff_text(f, c);
        }
    }
}

static void upper(char *dst, size_t cap, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < cap; i++)
        dst[i] = (char)(src[i] >= 'a' && src[i] <= 'z' ? src[i] - 32 : src[i]);
    dst[i] = '\0';
}

static void roff_header(FILE *f, const char *title, const char *date)
{
    char t[128];
    upper(t, sizeof(t), title);
    fputs(".\\\" Generated by tools/docgen.c from src/cmd/commands.c and src/cmd/options.c;\n"
          ".\\\" do not edit: change the tables and run `make man`.\n", f);
    fputs(".TH ", f);
    roff_text(f, t);
    fprintf(f, " 8 \"%s\" \"lvx " LVX_VERSION "\" \"System Manager's Manual\"\n", date);
}

static void roff_option(FILE *f, const struct lvx_opt_def *d, char sc)
{
    fputs(".TP\n", f);
    roff_option_name(f, d, sc, ", ");
    fputc('\n', f);
    roff_para(f, d->help);
    const char *k = kind_text(d);
    if (k)
        roff_para(f, k);
    const char *unit = d->kind == LVX_ARG_SIZE || d->kind == LVX_ARG_SSIZE
                           ? default_unit_name(d->default_unit) : NULL;
    if (unit)
        fprintf(f, "Without a unit: %s.\n", unit);
}

/* Exit codes: LVM2's, from commands.h. */
static const struct {
    int code;
    const char *text;
} exit_codes[] = {
    { LVX_EXIT_OK, "Success." },
    { LVX_EXIT_NO_SUCH_CMD, "No such command." },
    { LVX_EXIT_INVALID, "Invalid command line: an unknown option, a bad option value, a "
                        "missing or extra argument; nothing was read or written." },
    { LVX_EXIT_INIT, "The configuration (lvm.conf) could not be loaded." },
    { LVX_EXIT_FAILED, "The command failed (for several objects: at least one failed)." },
};

static void roff_exit_status(FILE *f)
{
    fputs(".SH EXIT STATUS\nThe exit codes are LVM2's.\n", f);
    for (size_t i = 0; i < sizeof(exit_codes) / sizeof(exit_codes[0]); i++) {
        fprintf(f, ".TP\n.B %d\n", exit_codes[i].code);
        roff_line(f, exit_codes[i].text);
    }
}

/* "pv", "vg", "lv" or NULL: the family of a command, for SEE ALSO. */
static const char *family(const char *name)
{
    static const char *const fam[] = { "pv", "vg", "lv" };
    for (size_t i = 0; i < 3; i++)
        if (strncmp(name, fam[i], 2) == 0 && strcmp(name, "lvtable") != 0)
            return fam[i];
    return NULL;
}

static void man_command(FILE *f, const struct lvx_command *c, const char *date)
{
    enum lvx_opt_id ids[LVX_OPT_COUNT];
    unsigned own, n = command_options(c, ids, &own);
    char title[96];
    snprintf(title, sizeof(title), "lvx-%s", c->name);

    roff_header(f, title, date);
    fputs(".SH NAME\n", f);
    roff_text(f, title);
    fputs(" \\- ", f);
    roff_text(f, c->summary);
    fputs("\n.SH SYNOPSIS\n", f);
    fprintf(f, ".SY \"lvx %s\"\n", c->name);
    for (unsigned i = 0; i < n; i++) {
        fputc('[', f);
        roff_option_name(f, lvx_opt_def(ids[i]), lvx_opt_short(c->opts, ids[i]), "|");
        fputs("]\n", f);
    }
    if (c->positional[0]) {
        roff_positional(f, c->positional);
        fputc('\n', f);
    }
    fputs(".YS\n.SH DESCRIPTION\n", f);
    roff_para(f, c->description ? c->description : c->summary);
    fputs(".PP\n", f);
    if (is_lvm2_program(c->name))
        fprintf(f, "The same command runs as \\fB%s\\fR and \\fBlvm %s\\fR\n"
                   "when the LVM2 command names are installed\n"
                   "(\\fBmake install\\-lvm\\-names\\fR), with LVM2's options and exit codes.\n",
                c->name, c->name);
    else
        fprintf(f, "The same command runs as \\fBlvm %s\\fR\n"
                   "when the LVM2 command names are installed\n"
                   "(\\fBmake install\\-lvm\\-names\\fR).\n", c->name);
    if (own) {
        fputs(".SH OPTIONS\n", f);
        for (unsigned i = 0; i < own; i++)
            roff_option(f, lvx_opt_def(ids[i]), lvx_opt_short(c->opts, ids[i]));
    }
    fputs(".SH COMMON OPTIONS\n", f);
    for (unsigned i = own; i < n; i++)
        roff_option(f, lvx_opt_def(ids[i]), lvx_opt_short(c->opts, ids[i]));
    roff_exit_status(f);

    fputs(".SH SEE ALSO\n.BR lvx (8)", f);
    unsigned count;
    const struct lvx_command *t = lvx_command_table(&count);
    const char *fam = family(c->name);
    for (unsigned i = 0; fam && i < count; i++) {
        const char *g = family(t[i].name);
        if (&t[i] != c && g && strcmp(g, fam) == 0)
            fprintf(f, ",\n.BR lvx\\-%s (8)", t[i].name);
    }
    fputs(",\n.BR lvm.conf (5)\n", f);
}

/* Environment variables lvx reads (docs/design.md). */
static const struct {
    const char *name, *text;
} environment[] = {
    { "LVM_SYSTEM_DIR", "Directory of lvm.conf and of the backup/ and archive/ directories "
                        "(default /etc/lvm), as in LVM2." },
    { "DM_DEV_DIR", "Directory of the device nodes instead of /dev, as in LVM2." },
    { "LVX_RUN_DIR", "Directory of the device index and of the daemon's files (default "
                     "/run/lvx); must be root's and mode 0700." },
    { "LVX_ACTIVATION_BACKEND", "dm, user or none: force or refuse an activation backend "
                                "(lvm.conf global/activation = 0 wins)." },
    { "LVX_LOCK_DIR", "Directory of the lock files instead of /run/lock/lvm." },
    { "LVX_INDEX", "0 switches the persistent device index off." },
};

static void man_lvx(FILE *f, const char *date)
{
    unsigned count;
    const struct lvx_command *t = lvx_command_table(&count);
    enum lvx_opt_id ids[LVX_OPT_COUNT];
    unsigned n = 0;

    roff_header(f, "lvx", date);
    fputs(".SH NAME\nlvx \\- logical volume manager for LVM2's on\\-disk format\n"
          ".SH SYNOPSIS\n.B lvx\n\\fICOMMAND\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]\n"
          ".br\n.B lvx shell\n[\\fIFILE\\fR]\n"
          ".br\n.B lvm\n\\fICOMMAND\\fR ... | \\fBpvs\\fR ... | \\fBlvcreate\\fR ... "
          "(LVM2 command names)\n", f);
    fputs(".SH DESCRIPTION\n", f);
    roff_para(f, "lvx manages logical volumes on disks in LVM2's on-disk format, which it reads "
                 "and writes byte for byte: disks made by LVM2 are read by lvx and the other way "
                 "round. Its commands, options, reports and exit codes are LVM2's. Each command "
                 "has its own page, lvx-COMMAND(8).");
    fputs(".PP\n", f);
    roff_para(f, "Called through a link named lvm, lvx takes the command from its first "
                 "argument as LVM2's lvm does (without arguments it starts the shell); called "
                 "through a link named after a command (pvs, lvcreate, ...), it runs that "
                 "command. The links are installed by make install-lvm-names.");
    fputs(".SH COMMANDS\n", f);
    for (unsigned i = 0; i < count; i++) {
        fprintf(f, ".TP\n.BR lvx\\-%s (8)\n", t[i].name);
        roff_line(f, t[i].summary);
    }
    /* the common options: those a command without options of its own accepts */
    for (int i = 0; i < LVX_OPT_COUNT; i++)
        if (lvx_opts_allowed(no_opts, (enum lvx_opt_id)i))
            ids[n++] = (enum lvx_opt_id)i;
    fputs(".SH COMMON OPTIONS\nAccepted by every command (where -f means --file, --force "
          "has no short form).\n", f);
    for (unsigned i = 0; i < n; i++)
        roff_option(f, lvx_opt_def(ids[i]), lvx_opt_def(ids[i])->short_name);
    fputs(".SH ENVIRONMENT\n", f);
    for (size_t i = 0; i < sizeof(environment) / sizeof(environment[0]); i++) {
        fputs(".TP\n.B ", f);
        roff_text(f, environment[i].name);
        fputc('\n', f);
        roff_para(f, environment[i].text);
    }
    fputs(".SH FILES\n.TP\n.I /etc/lvm/lvm.conf\nThe configuration, LVM2's file.\n"
          ".TP\n.I /etc/lvm/backup/\\fRVG, \\fI/etc/lvm/archive/\nBackup and archive files "
          "of the VG metadata, in LVM2's format.\n"
          ".TP\n.I /run/lvx/\nThe device index and the daemon of user\\-space activation.\n", f);
    roff_exit_status(f);
    fputs(".SH SEE ALSO\n.nh\n", f);    /* no hyphen inside a page name */
    for (unsigned i = 0; i < count; i++)
        fprintf(f, ".BR lvx\\-%s (8),\n", t[i].name);
    fputs(".BR lvm.conf (5)\n.hy\n", f);
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "lvx-docgen: %s: %s\n", path, strerror(errno));
    return f;
}

static int close_out(FILE *f, const char *path)
{
    if (ferror(f) | (fclose(f) != 0)) {
        fprintf(stderr, "lvx-docgen: writing %s failed\n", path);
        return 1;
    }
    return 0;
}

static int gen_man(const char *dir, const char *date)
{
    char path[4096], name[128];
    unsigned count;
    const struct lvx_command *t = lvx_command_table(&count);
    FILE *f = open_out(dir, "lvx.8", path, sizeof(path));
    if (!f)
        return 1;
    man_lvx(f, date);
    if (close_out(f, path))
        return 1;
    for (unsigned i = 0; i < count; i++) {
        snprintf(name, sizeof(name), "lvx-%s.8", t[i].name);
        if (!(f = open_out(dir, name, path, sizeof(path))))
            return 1;
        man_command(f, &t[i], date);
        if (close_out(f, path))
            return 1;
    }
    return 0;
}

/* ---- bash completion ---------------------------------------------------------------- */

/* Shell-safe text in single quotes. */
static void sh_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* The fixed words a value may be, from the option's value name: bracketed parts
 * dropped, then the '|' alternatives that are lower-case words or single characters
 * ("linear|striped", "auto|none|Number" -> "auto none", units letters).  Empty: none. */
static void value_words(char *out, size_t cap, const char *arg)
{
    char plain[256];
    size_t n = 0;
    int depth = 0;
    out[0] = '\0';
    for (const char *p = arg; *p && n + 1 < sizeof(plain); p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']')
            depth--;
        else if (!depth)
            plain[n++] = *p;
    }
    plain[n] = '\0';
    if (!strchr(plain, '|'))
        return;
    size_t used = 0;
    for (char *tok = strtok(plain, "|"); tok; tok = strtok(NULL, "|")) {
        bool word = tok[0] != '\0';
        for (const char *c = tok; *c && word; c++)
            word = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || !tok[1];
        if (!word || used + strlen(tok) + 2 > cap)
            continue;
        used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? " " : "", tok);
    }
}

/* How the value of an option is completed: "w:WORDS", "file", "files" (a comma list of
 * files), or "" (free text: nothing offered). */
static void value_spec(char *out, size_t cap, const struct lvx_opt_def *d)
{
    char words[256];
    size_t len = strlen(d->long_name);
    switch (d->kind) {
    case LVX_ARG_BOOL:
        snprintf(out, cap, "w:y n");
        return;
    case LVX_ARG_LIST:
        snprintf(out, cap, "%s", strcmp(d->arg_name, "PV") == 0 ? "files" : "");
        return;
    default:
        break;
    }
    value_words(words, sizeof(words), d->arg_name);
    if (words[0])
        snprintf(out, cap, "w:%s", words);
    else if (d->kind == LVX_ARG_STRING && len >= 4 && strcmp(d->long_name + len - 4, "file") == 0)
        snprintf(out, cap, "file");
    else
        out[0] = '\0';
}

/* Kinds of the positional arguments from the usage text ("VG [PV[:PE-PE] ...]" ->
 * "vg pv..."): vg, lv (VG/LV), vglv (VG or VG/LV), pv, cmd, file, w:a,b,c (fixed words),
 * - (nothing offered); "..." after the last one: it repeats.  Alternatives after a lone
 * '|' (a second form of the command line) are left out. */
static void positional_spec(char *out, size_t cap, const char *usage)
{
    char buf[256], *save = NULL;
    size_t used = 0;
    snprintf(buf, sizeof(buf), "%s", usage);
    out[0] = '\0';
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (strcmp(tok, "|") == 0)
            break;
        char t[128];
        size_t n = 0;
        bool repeat = false;
        for (const char *c = tok; *c && n + 1 < sizeof(t); c++)
            if (*c != '[' && *c != ']')
                t[n++] = *c;
        t[n] = '\0';
        if (n >= 3 && strcmp(t + n - 3, "...") == 0) {
            t[n -= 3] = '\0';
            repeat = true;
        }
        if (!n) {                       /* a lone "..." repeats the previous kind */
            if (used && used + 3 < cap)
                used += (size_t)snprintf(out + used, cap - used, "...");
            continue;
        }
        char first[128];
        snprintf(first, sizeof(first), "%s", t);
        char *bar = strchr(first, '|');
        if (bar)
            *bar = '\0';
        const char *kind = "-";
        char words[sizeof(t) + 8] = "";
        if (strcmp(first, "VG") == 0)
            kind = strstr(t, "VG/LV") ? "vglv" : "vg";
        else if (strcmp(first, "VG/LV") == 0)
            kind = "lv";
        else if (strncmp(first, "PV", 2) == 0)
            kind = "pv";
        else if (strcmp(first, "COMMAND") == 0)
            kind = "cmd";
        else if (strcmp(first, "FILE") == 0)
            kind = "file";
        else if (first[0] >= 'a' && first[0] <= 'z') {
            snprintf(words, sizeof(words), "w:%s", t);
            for (char *c = words; *c; c++)
                if (*c == '|')
                    *c = ',';
            kind = words;
        }
        used += (size_t)snprintf(out + used, used < cap ? cap - used : 0, "%s%s%s",
                                 used ? " " : "", kind, repeat ? "..." : "");
    }
    if (used >= cap)
        out[cap - 1] = '\0';
}

/* The report whose field names -o/-O of a command complete: pvs, vgs, lvs by the
 * command's name (pvdisplay -C is pvs ...), all for fullreport. */
static const char *field_kind(const char *cmd)
{
    if (strncmp(cmd, "pv", 2) == 0)
        return "pvs";
    if (strncmp(cmd, "vg", 2) == 0)
        return "vgs";
    if (strncmp(cmd, "lv", 2) == 0)
        return "lvs";
    return "all";
}

/* The completion logic (bash >= 4.2); the tables above it are generated. */
static const char completion_body[] =
    "# _lvx_walk: the words before the cursor: sets _lvx_npos (positional arguments so far),\n"
    "# _lvx_dev (the --devices value), _lvx_want (the option whose value is being typed),\n"
    "# _lvx_end (a \"--\" ended the options).\n"
    "_lvx_walk() {\n"
    "    local cmd=$1 start=$2 i w o k rest\n"
    "    _lvx_npos=0 _lvx_dev='' _lvx_want='' _lvx_end=''\n"
    "    for ((i = start; i < COMP_CWORD; i++)); do\n"
    "        w=${COMP_WORDS[i]}\n"
    "        if [[ -n $_lvx_want ]]; then\n"
    "            if [[ $w == = ]]; then continue; fi\n"
    "            [[ $_lvx_want == --devices ]] && _lvx_dev=$w\n"
    "            _lvx_want=\n"
    "            continue\n"
    "        fi\n"
    "        if [[ -z $_lvx_end && $w == -- ]]; then _lvx_end=1; continue; fi\n"
    "        if [[ -z $_lvx_end && $w == --?* ]]; then\n"
    "            o=${w%%=*}\n"
    "            if [[ $w == *=* ]]; then\n"
    "                [[ $o == --devices ]] && _lvx_dev=${w#*=}\n"
    "            elif [[ -n ${_lvx_args[\"$cmd $o\"]+x} ]]; then\n"
    "                _lvx_want=$o\n"
    "            fi\n"
    "            continue\n"
    "        fi\n"
    "        if [[ -z $_lvx_end && $w == -?* ]]; then\n"
    "            rest=${w#-}\n"
    "            while [[ -n $rest ]]; do      # a cluster: -vay\n"
    "                k=-${rest:0:1}\n"
    "                rest=${rest:1}\n"
    "                if [[ -n ${_lvx_args[\"$cmd $k\"]+x} ]]; then\n"
    "                    [[ -z $rest ]] && _lvx_want=$k\n"
    "                    break\n"
    "                fi\n"
    "            done\n"
    "            continue\n"
    "        fi\n"
    "        _lvx_npos=$((_lvx_npos + 1))\n"
    "    done\n"
    "}\n"
    "\n"
    "# _lvx_list PROG... -- REPORT FIELDS: one name per line from lvx's own report\n"
    "_lvx_list() {\n"
    "    local -a prog=()\n"
    "    while [[ $1 != -- ]]; do prog+=(\"$1\"); shift; done\n"
    "    shift\n"
    "    local -a dev=()\n"
    "    [[ -n $_lvx_dev ]] && dev=(--devices \"$_lvx_dev\")\n"
    "    local line\n"
    "    while read -r line; do\n"
    "        [[ -n $line ]] && printf '%s\\n' \"$line\"\n"
    "    done < <(\"${prog[@]}\" \"$1\" --noheadings -o \"$2\" \"${dev[@]}\" </dev/null 2>/dev/null)\n"
    "}\n"
    "\n"
    "_lvx_add() {   # _lvx_add CUR WORD...: append the words starting with CUR\n"
    "    local cur=$1 w\n"
    "    shift\n"
    "    for w in \"$@\"; do\n"
    "        [[ $w == \"$cur\"* ]] && COMPREPLY+=(\"$w\")\n"
    "    done\n"
    "}\n"
    "\n"
    "_lvx_value() {   # _lvx_value CMD OPTION CUR\n"
    "    local spec=${_lvx_args[\"$1 $2\"]} cur=$3\n"
    "    case $spec in\n"
    "    w:*)\n"
    "        local -a words\n"
    "        read -r -a words <<<\"${spec#w:}\"\n"
    "        _lvx_add \"$cur\" \"${words[@]}\" ;;\n"
    "    file)\n"
    "        compopt -o filenames 2>/dev/null\n"
    "        mapfile -t COMPREPLY < <(compgen -f -- \"$cur\") ;;\n"
    "    fields:*)   # field names: after the last ',' and a leading '+' or '-'\n"
    "        local head='' word=$cur\n"
    "        [[ $word == *,* ]] && { head=${word%,*},; word=${word##*,}; }\n"
    "        [[ $word == [+-]* ]] && { head+=${word:0:1}; word=${word:1}; }\n"
    "        local -a words\n"
    "        read -r -a words <<<\"${_lvx_fields[${spec#fields:}]}\"\n"
    "        _lvx_add \"$word\" \"${words[@]}\"\n"
    "        COMPREPLY=(\"${COMPREPLY[@]/#/$head}\")\n"
    "        compopt -o nospace 2>/dev/null ;;\n"
    "    files)\n"
    "        local head=\n"
    "        [[ $cur == *,* ]] && head=${cur%,*},\n"
    "        mapfile -t COMPREPLY < <(compgen -f -- \"${cur##*,}\")\n"
    "        COMPREPLY=(\"${COMPREPLY[@]/#/$head}\") ;;\n"
    "    esac\n"
    "}\n"
    "\n"
    "_lvx_positional() {   # _lvx_positional CMD CUR PROG...\n"
    "    local cmd=$1 cur=$2 kind\n"
    "    shift 2\n"
    "    local -a kinds\n"
    "    read -r -a kinds <<<\"${_lvx_pos[$cmd]}\"\n"
    "    ((${#kinds[@]})) || return 0\n"
    "    if ((_lvx_npos < ${#kinds[@]})); then\n"
    "        kind=${kinds[_lvx_npos]}\n"
    "    else\n"
    "        kind=${kinds[${#kinds[@]} - 1]}\n"
    "        [[ $kind == *... ]] || return 0\n"
    "    fi\n"
    "    kind=${kind%...}\n"
    "    local -a names=()\n"
    "    case $kind in\n"
    "    vg) mapfile -t names < <(_lvx_list \"$@\" -- vgs vg_name) ;;\n"
    "    lv) mapfile -t names < <(_lvx_list \"$@\" -- lvs lv_full_name) ;;\n"
    "    vglv)\n"
    "        mapfile -t names < <(_lvx_list \"$@\" -- vgs vg_name)\n"
    "        mapfile -t -O ${#names[@]} names < <(_lvx_list \"$@\" -- lvs lv_full_name) ;;\n"
    "    pv)\n"
    "        mapfile -t names < <(_lvx_list \"$@\" -- pvs pv_name)\n"
    "        if [[ $cur == /* ]]; then\n"
    "            compopt -o filenames 2>/dev/null\n"
    "            mapfile -t -O ${#names[@]} names < <(compgen -f -- \"$cur\")\n"
    "        fi ;;\n"
    "    cmd) read -r -a names <<<\"$_lvx_commands\" ;;\n"
    "    file)\n"
    "        compopt -o filenames 2>/dev/null\n"
    "        mapfile -t names < <(compgen -f -- \"$cur\") ;;\n"
    "    w:*) IFS=, read -r -a names <<<\"${kind#w:}\" ;;\n"
    "    esac\n"
    "    local -A seen=()\n"
    "    local n\n"
    "    for n in \"${names[@]}\"; do\n"
    "        [[ -n $n && -z ${seen[$n]+x} ]] || continue\n"
    "        seen[$n]=1\n"
    "        _lvx_add \"$cur\" \"$n\"\n"
    "    done\n"
    "}\n"
    "\n"
    "# Completion of lvx, of lvm (lvx through a link named lvm) and of the LVM2 command\n"
    "# names linked to lvx (pvs, lvcreate, ...).\n"
    "_lvx() {\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} w0=${COMP_WORDS[0]} cmd start\n"
    "    local base=${w0##*/}\n"
    "    local -a prog\n"
    "    COMPREPLY=()\n"
    "    if [[ -n ${_lvx_opts[$base]+x} ]]; then\n"
    "        cmd=$base start=1\n"
    "        # names are listed by the lvm link installed next to the command\n"
    "        if [[ $w0 == */* ]]; then prog=(\"${w0%/*}/lvm\"); else prog=(lvm); fi\n"
    "    else\n"
    "        if ((COMP_CWORD == 1)); then\n"
    "            local -a all\n"
    "            read -r -a all <<<\"$_lvx_commands\"\n"
    "            _lvx_add \"$cur\" \"${all[@]}\"\n"
    "            return 0\n"
    "        fi\n"
    "        cmd=${COMP_WORDS[1]} start=2 prog=(\"$w0\")\n"
    "        [[ -n ${_lvx_opts[$cmd]+x} ]] || return 0\n"
    "    fi\n"
    "    _lvx_walk \"$cmd\" \"$start\"\n"
    "    if [[ -n $_lvx_want ]]; then\n"
    "        [[ $cur == = ]] && cur=\n"
    "        _lvx_value \"$cmd\" \"$_lvx_want\" \"$cur\"\n"
    "        return 0\n"
    "    fi\n"
    "    if [[ -z $_lvx_end && $cur == --?*=* ]]; then\n"
    "        local o=${cur%%=*}\n"
    "        _lvx_value \"$cmd\" \"$o\" \"${cur#*=}\"\n"
    "        COMPREPLY=(\"${COMPREPLY[@]/#/$o=}\")\n"
    "        return 0\n"
    "    fi\n"
    "    if [[ -z $_lvx_end && $cur == -* ]]; then\n"
    "        local -a opts\n"
    "        read -r -a opts <<<\"${_lvx_opts[$cmd]}\"\n"
    "        _lvx_add \"$cur\" \"${opts[@]}\"\n"
    "        return 0\n"
    "    fi\n"
    "    _lvx_positional \"$cmd\" \"$cur\" \"${prog[@]}\"\n"
    "}\n"
    "\n"
    "# _lvx_is_lvx NAME: NAME, found in PATH, is the same file as lvx found in PATH\n"
    "# (a link made by `make install-lvm-names`), not LVM2's program.\n"
    "_lvx_is_lvx() {\n"
    "    local d lvx='' self=''\n"
    "    local IFS=:\n"
    "    for d in $PATH; do\n"
    "        [[ -z $lvx && -x ${d:-.}/lvx ]] && lvx=${d:-.}/lvx\n"
    "        [[ -z $self && -x ${d:-.}/$1 ]] && self=${d:-.}/$1\n"
    "    done\n"
    "    [[ -n $lvx && -n $self && $self -ef $lvx ]]\n"
    "}\n"
    "\n"
    "complete -F _lvx lvx\n"
    "for _lvx_n in $_lvx_lvm2_names; do\n"
    "    _lvx_is_lvx \"$_lvx_n\" && complete -F _lvx \"$_lvx_n\"\n"
    "done\n"
    "unset _lvx_n\n";

static int gen_completion(FILE *f)
{
    unsigned count;
    const struct lvx_command *t = lvx_command_table(&count);
    char spec[512];

    fputs("# bash completion for lvx, and for lvm and the LVM2 command names when they are\n"
          "# links to lvx (make install-lvm-names).\n"
          "# Generated by tools/docgen.c from src/cmd/commands.c and src/cmd/options.c;\n"
          "# do not edit: change the tables and run `make man`.\n"
          "# shellcheck shell=bash\n\n", f);
    fputs("_lvx_commands=", f);
    {
        char all[4096];
        size_t used = 0;
        all[0] = '\0';
        for (unsigned i = 0; i < count; i++)
            used += (size_t)snprintf(all + used, sizeof(all) - used, "%s%s", i ? " " : "",
                                     t[i].name);
        sh_quoted(f, all);
    }
    fputs("\n_lvx_lvm2_names='lvm", f);
    for (unsigned i = 0; i < count; i++)
        if (is_lvm2_program(t[i].name))
            fprintf(f, " %s", t[i].name);
    fputs("'\n", f);
    /* -g: global even when sourced inside a function (bash-completion's loader) */
    fputs("declare -gA _lvx_opts=() _lvx_args=() _lvx_pos=() _lvx_fields=()\n", f);
    static const struct { const char *name; enum lvx_report_kind kind; } reports[] = {
        { "pvs", LVX_REPORT_PVS }, { "vgs", LVX_REPORT_VGS }, { "lvs", LVX_REPORT_LVS } };
    struct lvx_buf every = LVX_BUF_INIT;
    for (size_t r = 0; r < sizeof(reports) / sizeof(reports[0]); r++) {
        struct lvx_buf b = LVX_BUF_INIT;
        lvx_report_field_names(reports[r].kind, &b);
        fprintf(f, "_lvx_fields[%s]=", reports[r].name);
        sh_quoted(f, lvx_buf_str(&b));
        fputc('\n', f);
        lvx_buf_printf(&every, "%s%s", every.len ? " " : "", lvx_buf_str(&b));
        lvx_buf_free(&b);
    }
    fputs("_lvx_fields[all]=", f);          /* fullreport: every report's fields */
    sh_quoted(f, lvx_buf_str(&every));
    fputc('\n', f);
    lvx_buf_free(&every);
    for (unsigned i = 0; i < count; i++) {
        enum lvx_opt_id ids[LVX_OPT_COUNT];
        unsigned own, n = command_options(&t[i], ids, &own);
        fprintf(f, "_lvx_opts[%s]='", t[i].name);
        for (unsigned j = 0; j < n; j++) {
            const struct lvx_opt_def *d = lvx_opt_def(ids[j]);
            if (lvx_opt_short(t[i].opts, ids[j]))
                fprintf(f, "-%c ", lvx_opt_short(t[i].opts, ids[j]));
            fprintf(f, "--%s%s", d->long_name, j + 1 < n ? " " : "");
        }
        fputs("'\n", f);
        for (unsigned j = 0; j < n; j++) {
            const struct lvx_opt_def *d = lvx_opt_def(ids[j]);
            if (!d->has_arg)
                continue;
            value_spec(spec, sizeof(spec), d);
            if (ids[j] == LVX_OPT_OPTIONS || ids[j] == LVX_OPT_SORT)   /* report field names */
                snprintf(spec, sizeof(spec), "fields:%s", field_kind(t[i].name));
            if (lvx_opt_short(t[i].opts, ids[j])) {
                fprintf(f, "_lvx_args['%s -%c']=", t[i].name, lvx_opt_short(t[i].opts, ids[j]));
                sh_quoted(f, spec);
                fputc('\n', f);
            }
            fprintf(f, "_lvx_args['%s --%s']=", t[i].name, d->long_name);
            sh_quoted(f, spec);
            fputc('\n', f);
        }
        positional_spec(spec, sizeof(spec), t[i].positional);
        fprintf(f, "_lvx_pos[%s]=", t[i].name);
        sh_quoted(f, spec);
        fputc('\n', f);
    }
    fputc('\n', f);
    fputs(completion_body, f);
    return fflush(f) == 0 && !ferror(f) ? 0 : 1;
}

static int gen_names(FILE *f)
{
    unsigned count;
    const struct lvx_command *t = lvx_command_table(&count);
    fputs("lvm\n", f);
    for (unsigned i = 0; i < count; i++)
        if (is_lvm2_program(t[i].name))
            fprintf(f, "%s\n", t[i].name);
    return fflush(f) == 0 && !ferror(f) ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && argc <= 4 && strcmp(argv[1], "man") == 0)
        return gen_man(argv[2], argc == 4 ? argv[3] : "");
    if (argc == 2 && strcmp(argv[1], "completion") == 0)
        return gen_completion(stdout);
    if (argc == 2 && strcmp(argv[1], "lvm2-names") == 0)
        return gen_names(stdout);
    fprintf(stderr, "usage: lvx-docgen man DIR [DATE] | completion | lvm2-names\n");
    return 2;
}
