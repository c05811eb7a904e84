/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/opt_values.c - the conversions of option values, one per value kind
 * (cmd/options.h): sizes, extent counts with percentages, numbers, --units.  The
 * parser (cmd/opt_parse.c) calls them once per value; commands call them for the
 * options that take one of several forms.  Reasons are LVM2's words.
 */
#include "cmd/options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Bytes per size unit letter (binary multiples, either case); 0 for an unknown letter. */
static uint64_t size_unit_bytes(char u)
{
    switch (u) {
    case 'b': case 'B': return 1;
    case 's': case 'S': return 512;
    case 'k': case 'K': return 1ull << 10;
    case 'm': case 'M': return 1ull << 20;
    case 'g': case 'G': return 1ull << 30;
    case 't': case 'T': return 1ull << 40;
    case 'p': case 'P': return 1ull << 50;
    case 'e': case 'E': return 1ull << 60;
    default: return 0;
    }
}

/* Reasons with the value in them are written here: the caller prints or copies the
 * reason before this thread converts another value. */
static _Thread_local char reason_buf[160];

static int bad(const char **reason, const char *why)
{
    *reason = why;
    return -EINVAL;
}

static void take_sign(const char **p, int *sign)
{
    *sign = 0;
    if (**p == '+' || **p == '-')
        *sign = *(*p)++ == '+' ? 1 : -1;
}

int lvx_opt_parse_size(const char *s, char default_unit, struct lvx_opt_val *out,
                       const char **reason)
{
    const char *p = s;
    unsigned __int128 whole = 0, frac = 0, frac_div = 1;
    bool digits = false;

    memset(out, 0, sizeof(*out));
    *reason = NULL;
    take_sign(&p, &out->sign);
    if (*p == '+' || *p == '-')
        return bad(reason, "Multiple sign symbols detected.");
    if (!*p)
        return bad(reason, "Size requires number argument.");
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (unsigned)(*p - '0');
        digits = true;
        if (whole > ((unsigned __int128)1 << 80))
            return bad(reason, "Size is too big (>=16EiB).");
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (frac_div < 1000000000000ull) {
                frac = frac * 10 + (unsigned)(*p - '0');
                frac_div *= 10;
            }
            digits = true;
        }
    }
    char unit = default_unit;
    if (*p) {
        unit = *p++;
        if (*p == 'b' || *p == 'B')     /* LVM2 takes a trailing "b" after a unit ("4mb") */
            p++;
    }
    uint64_t mult = size_unit_bytes(unit);
    if (!digits || !mult || *p)
        return bad(reason, "Can't parse size argument.");
    unsigned __int128 part = frac * mult;
    unsigned __int128 bytes_floor = whole * mult + part / frac_div;
    unsigned __int128 bytes = bytes_floor + (part % frac_div != 0);
    if (bytes >= ((unsigned __int128)1 << 64))
        return bad(reason, "Size is too big (>=16EiB).");
    if ((unit == 'b' || unit == 'B') && bytes % 512) {
        snprintf(reason_buf, sizeof(reason_buf),
                 "Size is not a multiple of 512. Try using %llu or %llu.",
                 (unsigned long long)(bytes / 512 * 512),
                 (unsigned long long)(bytes / 512 * 512 + 512));
        return bad(reason, reason_buf);
    }
    out->sectors = (uint64_t)((bytes + 511) / 512);
    out->sectors_floor = (uint64_t)(bytes_floor / 512);
    return 0;
}

static const struct {
    const char *suffix;
    enum lvx_pct pct;
} percent_names[] = {
    { "VG", LVX_PCT_VG }, { "FREE", LVX_PCT_FREE }, { "PVS", LVX_PCT_PVS },
    { "LV", LVX_PCT_LV }, { "ORIGIN", LVX_PCT_ORIGIN },
    /* LVM2's short forms */
    { "V", LVX_PCT_VG }, { "F", LVX_PCT_FREE }, { "FR", LVX_PCT_FREE }, { "P", LVX_PCT_PVS },
    { "PV", LVX_PCT_PVS }, { "L", LVX_PCT_LV }, { "O", LVX_PCT_ORIGIN }, { "OR", LVX_PCT_ORIGIN },
};

int lvx_opt_parse_extents(const char *s, struct lvx_opt_val *out, const char **reason)
{
    const char *p = s;
    char *end;

    memset(out, 0, sizeof(*out));
    *reason = NULL;
    take_sign(&p, &out->sign);
    if (*p < '0' || *p > '9')
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno == ERANGE)
        return -EINVAL;
    if (*end == '%') {
        size_t i, n = sizeof(percent_names) / sizeof(percent_names[0]);
        for (i = 0; i < n && strcasecmp(end + 1, percent_names[i].suffix) != 0; i++)
            ;
        if (i == n) {
            snprintf(reason_buf, sizeof(reason_buf), "Specified %%%.64s is unknown.", end + 1);
            return bad(reason, reason_buf);
        }
        out->pct = percent_names[i].pct;
    } else if (*end) {
        return -EINVAL;
    }
    out->n = v;
    return 0;
}

int lvx_opt_parse_number(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -EINVAL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno || v > max)
        return -EINVAL;
    *out = v;
    return 0;
}

/* ---- --units ----------------------------------------------------------------- */

/* Bytes of a --units letter: powers of 1024 in lower case, of 1000 in upper case. */
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
