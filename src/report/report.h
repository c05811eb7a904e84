/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/report.h - LVM2-style reports (pvs, vgs, lvs, their --segments forms),
 * driven by one table of fields (report/fields.c).  Output to a buffer; the
 * command layer writes it to stdout.  lvx_report_values() hands the same cells back
 * as values instead (the liblvx object API, api/objects.c).
 */
#ifndef LVX_REPORT_REPORT_H
#define LVX_REPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/ctx.h"
#include "util/pool.h"
#include "util/buf.h"
#include "model/model.h"

struct lvx_lv_kstate;

enum lvx_report_kind {
    LVX_REPORT_PVS,      /* one row per PV (orphans included) */
    LVX_REPORT_VGS,      /* one row per VG */
    LVX_REPORT_LVS,      /* one row per LV */
    LVX_REPORT_SEGS,     /* lvs --segments: one row per LV segment */
    LVX_REPORT_PVSEGS,   /* pvs --segments: one row per PV segment (used and free runs) */
};

struct lvx_report_opts {
    const char *fields;      /* -o: NULL = default columns; "+a,b" appends, "-a,b" removes,
                                "a,b" replaces; several -o arguments one per line ('\n') */
    const char *sort;        /* -O: "a,-b", NULL = default order */
    const char *select;      /* -S: selection expression or NULL */
    bool noheadings;
    const char *separator;   /* NULL = aligned columns */
    bool nosuffix;
    char units;              /* 0 = 'r' (LVM2's default); one of rRhHbBsSkKmMgGtTpPeE:
                                r/R human with '<' for rounded values, h/H human; 'U'
                                with unit_bytes for a number before the letter ("4k") */
    uint64_t unit_bytes;     /* 0, or the size of one unit in bytes ("4k" = 4096) */
    bool json;               /* --reportformat json */
    bool all;                /* -a: include hidden LVs */
    bool aligned;            /* --aligned with --separator */
    bool unquoted;
    bool nameprefixes;       /* --nameprefixes: LVM2_FIELD='value' */
    bool rows;               /* --rows */
    bool binary;             /* --binary: binary fields as 1 (set), 0 (not), -1 (unknown) */
    bool unbuffered;         /* --unbuffered: without -O rows keep their order (metadata
                                order, not sorted) and each row is only as wide as it needs */
    const char *default_fields; /* NULL: the report's own default columns; fullreport: */
    const char *default_sort;   /*  LVM2's *_cols_full / *_sort_full */
    bool compact_all;        /* report/compact_output: columns blank in every row go */
    bool unmark_hidden;      /* report/mark_hidden_devices = 0: hidden LVs without [ ] */
    const char *line_prefix; /* lvm.conf log/prefix before column/row lines; NULL: "  " */
    const char *compact;     /* columns dropped when blank in every row: the last -o#a,b
                                (set from opts.fields by lvx_report) or report/
                                compact_output_cols; NULL none */
    bool json_section;       /* json: only this report's `"vg": [...]` part (fullreport
                                puts the parts of a VG together) */
    /* Kernel state of an LV from an activation backend (activate/activate.h), or NULL:
     * the state fields then print what LVM2 prints without device-mapper ('X' in
     * lv_attr, "unknown", -1).  Returns 0 (out filled; out->active false when the LV
     * is inactive) or a negative errno (state unknown). */
    int (*lv_kstate)(void *arg, const struct lvx_lv *lv, struct lvx_lv_kstate *out);
    void *kstate_arg;
};

/* Render a report of `kind` over the given VGs and orphan PVs.  -EINVAL with a
 * message for an unknown field ("Unrecognised field: foo"), a bad selection, etc. */
/* The field names a report of kind offers for -o/-O (its own objects' fields and those
 * of the objects LVM2 joins to its rows: VG fields in pvs and lvs, segment fields in
 * lvs, PV segment fields in pvs), space separated, into out (for the completion). */
struct lvx_buf;
void lvx_report_field_names(enum lvx_report_kind kind, struct lvx_buf *out);

int lvx_report(struct lvx_ctx *ctx, enum lvx_report_kind kind, const struct lvx_report_opts *opts,
               struct lvx_vg *const *vgs, unsigned vg_count, struct lvx_pv *const *orphans,
               unsigned orphan_count, struct lvx_buf *out);

/* One cell of a report as a value, before --units formatting (lvx_report_values). */
struct lvx_report_value {
    const char *str;         /* text fields as printed (tag lists joined with ','), and the
                                fixed text of a number ("auto"); NULL for numbers */
    uint64_t num;            /* numbers (a negative one as its two's complement), sizes in
                                bytes; 0 for texts and blanks */
    bool blank;              /* printed as "" */
};

/* The cells a report of `kind` over vgs (no orphans) has for opts->fields, without
 * printing them: the same rows in the same order as lvx_report() (hidden LVs only with
 * opts->all, opts->select, opts->sort) and the same getters (lv_kstate included).
 * *out holds rows * cols values, row by row, in pool; the strings are copied there.
 * 0, or -EINVAL with a message as lvx_report(). */
int lvx_report_values(struct lvx_ctx *ctx, struct lvx_pool *pool, enum lvx_report_kind kind,
                      const struct lvx_report_opts *opts, struct lvx_vg *const *vgs,
                      unsigned vg_count, struct lvx_report_value **out, unsigned *rows,
                      unsigned *cols);

/* s as a JSON string the way LVM2 writes it (only '"' and '\\' escaped). */
void lvx_report_json_string(struct lvx_buf *out, const char *s);

/* A table that is not a report of objects (the command log): columns as report
 * columns (heading, minimum width, right-aligned), cells row by row, printed the way
 * opts says (separator, headings, --rows, name prefixes; never JSON), its heading line
 * even without rows, as LVM2's log report. */
struct lvx_table_col {
    const char *name, *heading;
    unsigned width;
    bool right;
};
void lvx_report_table(struct lvx_buf *out, const struct lvx_report_opts *opts,
                      const struct lvx_table_col *cols, unsigned ncols, const char *const *cells,
                      unsigned nrows);

/* Format a size in sectors with --units semantics (used by display commands too):
 * 'r'/'R' human with LVM2's '<' mark ("<1.50g"), 'h'/'H' human without it (human units keep
 * their suffix even with nosuffix, as LVM2), others fixed ("1536.00m", "3145728S"); 0 = 'r'.
 * unit_bytes (0 = the letter's own size) divides by a multiple of a unit, as LVM2's
 * "--units 4k": the value in those units ("24576.00U"; letter 'U', or b/s printed whole). */
void lvx_report_format_size(struct lvx_buf *out, uint64_t sectors, char units, bool nosuffix,
                            uint64_t unit_bytes);

/* A key of a segment's section as LVM2 wrote it, for segment types lvx keeps raw
 * (thin, cache, raid, ...): the string, or NULL when absent or not a string; the
 * integer (false when absent or not an integer).  Reports and displays use these. */
const char *lvx_report_seg_raw_str(const struct lvx_seg *seg, const char *key);
bool lvx_report_seg_raw_int(const struct lvx_seg *seg, const char *key, int64_t *out);
/* The segment holding a cache's settings (chunk size, metadata format, mode, policy),
 * as LVM2: a cache pool's own, a cache LV's over a cachevol its own, a cache LV's over
 * a cache pool the pool's; NULL for other segments. */
const struct lvx_seg *lvx_report_cache_settings_seg(const struct lvx_seg *seg);
/* The cache policy settings of that segment (its policy_settings section), each item
 * "key=value" as LVM2 prints them (libdm's config line), in the metadata's order;
 * l->n 0 when there are none.  Strings from pool. */
void lvx_report_cache_settings(const struct lvx_seg *seg, struct lvx_pool *pool,
                               struct lvx_strlist *l);
/* A cache LV whose cache is a cachevol (LVM2's CACHE_USES_CACHEVOL) */
bool lvx_report_cache_on_cachevol(const struct lvx_seg *seg);

/* A usage percentage as LVM2 prints it (reports and lvdisplay): num of den with its
 * rounding (never 0.00 for some use, never 100.00 short of full), two decimals. */
const char *lvx_report_percent_str(struct lvx_pool *pool, uint64_t num, uint64_t den);
/* The same usage as LVM2's dm_percent_t: percent * 1000000, rounded as above. */
int32_t lvx_report_dm_percent(uint64_t num, uint64_t den);

#endif
