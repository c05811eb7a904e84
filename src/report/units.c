/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/units.c - sizes as LVM2 prints them (--units) and sizes with unit
 * suffixes as selections write them ("lv_size>8m").
 *
 * Units: r/R human with a '<' mark when the printed value was rounded up, h/H
 * human, b/B bytes, s/S sectors, k m g t p e (powers of 1024) and K M G T P E
 * (powers of 1000).  Human units pick the largest unit not above the size, print
 * two decimals and always keep their suffix ("512b" below 1 KiB); zero prints as
 * "0 " in human units and "0<unit>" otherwise.  Entry points:
 * lvx_report_format_size(), lvx_report_parse_size(), lvx_report_units_valid().
 */
#include "report/report_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char unit_letters[] = "bkmgtpe";

bool lvx_report_units_valid(char units)
{
    return units && strchr("rRhHbBsSkKmMgGtTpPeE", units) != NULL;
}

static bool units_human(char u)
{
    return u == 'r' || u == 'R' || u == 'h' || u == 'H';
}

static long double unit_factor(unsigned power, bool si)
{
    long double f = 1;
    for (unsigned i = 0; i < power; i++)
        f *= si ? 1000.0L : 1024.0L;
    return f;
}

/* "%.2f" of value; with mark_rounded, a '<' when the printed number exceeds value */
static void print_decimal(struct lvx_buf *out, long double value, bool mark_rounded, char letter,
                          bool suffix)
{
    char num[64];
    snprintf(num, sizeof(num), "%.2Lf", value);
    if (mark_rounded && strtold(num, NULL) > value)
        lvx_buf_putc(out, '<');
    lvx_buf_puts(out, num);
    if (suffix)
        lvx_buf_putc(out, letter);
}

static void format_human(struct lvx_buf *out, uint64_t sectors, char units)
{
    bool si = isupper((unsigned char)units);
    long double bytes = (long double)sectors * 512.0L;
    unsigned power = 0;
    while (power + 1 < sizeof(unit_letters) - 1 && bytes >= unit_factor(power + 1, si))
        power++;
    char letter = unit_letters[power];
    if (si)
        letter = (char)toupper((unsigned char)letter);
    if (power == 0) {
        lvx_buf_printf(out, "%llu%c", (unsigned long long)sectors * 512ULL, letter);
        return;
    }
    print_decimal(out, bytes / unit_factor(power, si), units == 'r' || units == 'R', letter, true);
}

static void format_fixed(struct lvx_buf *out, uint64_t sectors, char units, bool nosuffix)
{
    char lower = (char)tolower((unsigned char)units);
    bool si = isupper((unsigned char)units);
    if (lower == 's') {
        lvx_buf_printf(out, "%llu", (unsigned long long)sectors);
        if (!nosuffix)
            lvx_buf_putc(out, 'S');
        return;
    }
    if (lower == 'b') {
        lvx_buf_printf(out, "%llu", (unsigned long long)sectors * 512ULL);
        if (!nosuffix)
            lvx_buf_putc(out, 'B');
        return;
    }
    unsigned power = (unsigned)(strchr(unit_letters, lower) - unit_letters);
    long double bytes = (long double)sectors * 512.0L;
    print_decimal(out, bytes / unit_factor(power, si), false, units, !nosuffix);
}

/* Multiples of a unit ("--units 4k"): b/s letters print whole numbers, the others (and
 * 'U', LVM2's letter for "units of this size") two decimals. */
static void format_multiple(struct lvx_buf *out, uint64_t sectors, char units, bool nosuffix,
                            uint64_t unit_bytes)
{
    char lower = (char)tolower((unsigned char)units);
    unsigned __int128 bytes = (unsigned __int128)sectors * 512;
    if (lower == 'b' || lower == 's') {           /* whole units, rounded to nearest */
        lvx_buf_printf(out, "%.0Lf", (long double)bytes / (long double)unit_bytes);
        if (!nosuffix)
            lvx_buf_putc(out, (char)toupper((unsigned char)units));
        return;
    }
    if (sectors == 0)
        lvx_buf_putc(out, '0');
    else
        print_decimal(out, (long double)bytes / (long double)unit_bytes, false, units, false);
    if (!nosuffix)
        lvx_buf_putc(out, units);
}

void lvx_report_format_size(struct lvx_buf *out, uint64_t sectors, char units, bool nosuffix,
                            uint64_t unit_bytes)
{
    if (unit_bytes && !units_human(units)) {
        format_multiple(out, sectors, units, nosuffix, unit_bytes);
        return;
    }
    if (!lvx_report_units_valid(units))
        units = 'r';
    if (sectors == 0) {
        lvx_buf_putc(out, '0');
        if (!nosuffix) {
            char lower = (char)tolower((unsigned char)units);
            if (units_human(units))
                lvx_buf_putc(out, ' ');
            else
                lvx_buf_putc(out, lower == 'b' || lower == 's' ? (char)toupper((unsigned char)units)
                                                                : units);
        }
        return;
    }
    if (units_human(units))
        format_human(out, sectors, units);
    else
        format_fixed(out, sectors, units, nosuffix);
}

size_t lvx_report_parse_size(const char *s, char default_unit, uint64_t *sectors)
{
    char *end;
    long double v = strtold(s, &end);
    if (end == s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
        return 0;
    /* strtold accepts "inf", "nan", hex: only plain decimals are sizes */
    for (const char *p = s; p < end; p++)
        if (!isdigit((unsigned char)*p) && *p != '.')
            return 0;
    char u = default_unit;
    if (*end && strchr("bBsSkKmMgGtTpPeE", *end))
        u = *end++;
    char lower = (char)tolower((unsigned char)u);
    long double bytes;
    if (lower == 's')
        bytes = v * 512.0L;
    else if (lower == 'b')
        bytes = v;
    else
        bytes = v * unit_factor((unsigned)(strchr(unit_letters, lower) - unit_letters),
                                isupper((unsigned char)u));
    *sectors = (uint64_t)(bytes / 512.0L);
    return (size_t)(end - s);
}
