/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/report_int.h - internals of the report engine (not installed).
 *
 * A report is a list of rows; a row points at the objects it describes (VG, PV,
 * LV, segment, PV segment).  Every field of the table (fields.c) is a getter that
 * turns a row into a value: a number, a size in sectors, a string or a string
 * list.  Values are then formatted (units), selected (-S), sorted (-O) and printed
 * (columns, json, rows).
 *
 * Derived facts about the LVs of a VG that several fields need (which segment uses
 * an LV, which snapshot owns a COW LV, visibility...) are computed once per VG into
 * struct lvx_rvg (props.c).
 */
#ifndef LVX_REPORT_REPORT_INT_H
#define LVX_REPORT_REPORT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "report/report.h"
#include "util/pool.h"

/* object types a field belongs to (bit mask, also used for report types) */
enum {
    LVX_ROBJ_PV = 1u << 0,
    LVX_ROBJ_VG = 1u << 1,
    LVX_ROBJ_LV = 1u << 2,
    LVX_ROBJ_SEG = 1u << 3,
    LVX_ROBJ_PVSEG = 1u << 4,
};

/* field value types, as LVM2's "-o help" lists them */
enum lvx_ftype {
    LVX_FT_STR,
    LVX_FT_NUM,
    LVX_FT_SIZE,      /* value in sectors, printed with --units */
    LVX_FT_STRLIST,
    LVX_FT_PERCENT,
};

/* roles of a sub-LV inside its parent (props.c) */
enum lvx_rrole {
    LVX_RROLE_NONE = 0,
    LVX_RROLE_MIMAGE,
    LVX_RROLE_MLOG,
    LVX_RROLE_RIMAGE,
    LVX_RROLE_RMETA,
    LVX_RROLE_TDATA,
    LVX_RROLE_TMETA,
    LVX_RROLE_CDATA,
    LVX_RROLE_CMETA,
    LVX_RROLE_CORIGIN,
    LVX_RROLE_WCORIGIN,        /* a writecache's origin (_wcorig) */
    LVX_RROLE_OTHER,
};

/* per-LV derived facts */
struct lvx_rlv {
    const struct lvx_seg *parent_seg;   /* segment using this LV as a sub-LV, or NULL */
    enum lvx_rrole role;
    const struct lvx_seg *cow_of;       /* snapshot segment whose COW store this LV is */
    unsigned snapshots;                 /* classic snapshots with this LV as origin */
    unsigned thin_snapshots;            /* thin LVs with this LV as origin */
    unsigned ext_thins;                 /* thin LVs with this LV as external origin */
    bool snapshot_internal;             /* carries a snapshot segment (snapshotN) */
    bool visible;                       /* shown without -a */
    bool pmspare;
};

/* per-VG derived facts */
struct lvx_rvg {
    const struct lvx_vg *vg;            /* the whole VG: every figure is of it */
    const struct lvx_vg *listed;        /* its PVs and LVs that get rows (a view of vg
                                           naming only some of them, or vg itself) */
    struct lvx_rlv *lvs;                /* indexed like vg->lvs */
    uint32_t *pv_alloc;                 /* allocated PEs, indexed like vg->pvs */
    uint64_t extent_count, free_count;
    unsigned visible_lvs, snapshots, missing_pvs;
};

/* One row of a report. */
struct lvx_rrow {
    const struct lvx_rvg *rvg;          /* NULL for an orphan PV */
    const struct lvx_vg *vg;            /* NULL for an orphan PV */
    const struct lvx_pv *pv;
    const struct lvx_lv *lv;
    const struct lvx_seg *seg;
    bool free_run;                      /* pvseg row of unallocated extents */
    uint64_t pvseg_start, pvseg_size;   /* pvseg rows (extents) */
    unsigned order;                     /* position before sorting (stable sort) */
    struct lvx_rval *vals;              /* sort keys */
    const char **cells;                 /* rendered column values */
};

/* A value produced by a getter. */
struct lvx_rval {
    enum lvx_ftype type;
    bool blank;               /* printed as "" (numbers/sizes that do not apply) */
    int64_t num;              /* NUM, PERCENT */
    uint64_t size;            /* SIZE: sectors */
    const char *str;          /* STR; for NUM/SIZE a fixed text ("auto", "unmanaged") */
    const char *key;          /* STR: what sorting and selection compare, when not str
                                 (lv_name: the name without brackets) */
    struct lvx_strlist list;  /* STRLIST */
};

struct lvx_rctx {
    struct lvx_pool *pool;    /* strings of values live here */
    const struct lvx_report_opts *opts;
    /* kernel state of the last LV asked (getters_kernel.c), NULL until asked */
    const struct lvx_lv *kstate_lv;
    struct lvx_lv_kstate *kstate;
    bool kstate_known;
};

typedef void (*lvx_rgetter)(struct lvx_rctx *rc, const struct lvx_rrow *row, struct lvx_rval *v);

struct lvx_field {
    const char *name;
    unsigned obj;             /* LVX_ROBJ_* */
    const char *heading;
    unsigned width;           /* minimum column width (LVM2's) */
    enum lvx_ftype type;
    bool right;               /* right-aligned (LVM2 numbers, sizes, percents) */
    lvx_rgetter get;
};

/* fields.c */
extern const struct lvx_field lvx_report_fields[];
extern const unsigned lvx_report_field_count;
/* LVM2's binary fields (--binary prints 1/0/-1) */
bool lvx_report_field_binary(const struct lvx_field *f);
/* Resolve a user-given field name for a report type (prefix may be omitted). */
const struct lvx_field *lvx_report_field_find(const char *name, size_t len, unsigned report_obj);

/* props.c: derived facts */
struct lvx_rvg *lvx_report_rvg_build(struct lvx_pool *pool, const struct lvx_vg *listed);
const struct lvx_rlv *lvx_report_rlv(const struct lvx_rvg *rvg, const struct lvx_lv *lv);
uint32_t lvx_report_pv_alloc(const struct lvx_rvg *rvg, const struct lvx_pv *pv);
uint64_t lvx_report_seg_area_len(const struct lvx_seg *seg);
const char *lvx_report_seg_type(const struct lvx_seg *seg);
/* LVM2's RAID LV behind a row's data_offset and reshape_len: the LV of a reshapable
 * RAID segment, or the reshapable RAID LV an image's first segment belongs to (found
 * by LVM2's name cut); NULL when those fields are blank. */
const struct lvx_lv *lvx_report_reshapable_lv(const struct lvx_rrow *row);
bool lvx_report_seg_zero(const struct lvx_seg *seg);
const char *lvx_report_lv_attr(struct lvx_pool *pool, const struct lvx_rvg *rvg,
                               const struct lvx_lv *lv);
/* An LV's name as reports show it: "[name]" for a hidden LV unless unmarked
 * (lvm.conf report/mark_hidden_devices = 0). */
const char *lvx_report_lv_display_name(struct lvx_pool *pool, const struct lvx_rvg *rvg,
                                       const struct lvx_lv *lv, bool unmarked);
const char *lvx_report_pv_dev_name(const struct lvx_pv *pv);
bool lvx_report_pv_missing(const struct lvx_pv *pv);
/* A PV its label marks in use (PV_EXT_USED) that no VG lists: LVM2 shows it as in the
 * VG "[unknown]", attrs "u--", nothing free. */
bool lvx_report_pv_used_orphan(const struct lvx_pv *pv);
uint64_t lvx_report_lv_size(const struct lvx_lv *lv);
const char *lvx_report_alloc_name(enum lvx_alloc a);

/* getters_pv.c helpers */
uint64_t lvx_report_mda_free_bytes(const struct lvx_pv_mda *m);
void lvx_report_uuid_format(const char *raw, char out[LVX_UUID_DASHED_LEN + 1]);

/* getters_*.c: one getter per field (names lvx_rget_<field>) */
#define LVX_RGETTER(n) void lvx_rget_##n(struct lvx_rctx *rc, const struct lvx_rrow *row, \
                                         struct lvx_rval *v)
#include "report/getters.h"

/* value helpers (value.c) */
void lvx_rval_str(struct lvx_rval *v, const char *s);
void lvx_rval_num(struct lvx_rval *v, int64_t n);
void lvx_rval_size(struct lvx_rval *v, uint64_t sectors);
void lvx_rval_blank(struct lvx_rval *v, enum lvx_ftype type);
void lvx_rval_list(struct lvx_rval *v, const struct lvx_strlist *l);
/* tags: the list sorted, as LVM2 prints them */
void lvx_rval_tags(struct lvx_pool *pool, struct lvx_rval *v, const struct lvx_strlist *l);
/* Render a value as LVM2 prints it (units applied to sizes). */
void lvx_rval_format(struct lvx_buf *out, const struct lvx_rval *v, char units,
                     uint64_t unit_bytes, bool nosuffix);
/* Compare two values of the same field for sorting: <0, 0, >0. */
int lvx_rval_cmp(const struct lvx_rval *a, const struct lvx_rval *b);

/* columns.c: -o / -O lists */
struct lvx_collist {
    const struct lvx_field **f;
    bool *desc;               /* sort keys: descending */
    bool *group;              /* brought in by "<obj>_all" / "all" */
    unsigned n, cap;
};
unsigned lvx_report_kind_obj(enum lvx_report_kind kind);
/* dflt: the columns / sort keys before spec (NULL: the report's own defaults) */
int lvx_report_parse_columns(struct lvx_ctx *ctx, struct lvx_pool *pool, enum lvx_report_kind kind,
                             const char *dflt, const char *spec, struct lvx_collist *out);
/* The fields of the last "-o#a,b" argument of spec (one per line), or NULL. */
const char *lvx_report_compact_spec(struct lvx_pool *pool, const char *spec);
int lvx_report_parse_sort(struct lvx_ctx *ctx, struct lvx_pool *pool, enum lvx_report_kind kind,
                          const char *dflt, const char *spec, struct lvx_collist *out);

/* rows.c */
void lvx_report_build_rows(struct lvx_pool *pool, enum lvx_report_kind kind, bool all,
                           bool orphans_too, struct lvx_rvg *const *rvgs, unsigned vg_count,
                           struct lvx_pv *const *orphans, unsigned orphan_count,
                           struct lvx_rrow ***out, unsigned *out_n);

/* output.c: print rows (cells filled) as columns, --rows, json or name prefixes */
struct lvx_rout {
    const struct lvx_report_opts *opts;
    const char *type_name;              /* "pv", "vg", "lv", "seg", "pvseg" */
    const struct lvx_field *const *cols;
    unsigned ncols;
    struct lvx_rrow *const *rows;
    unsigned nrows;
    bool progressive;                   /* --unbuffered: widths of each row its own,
                                           the headings take those of the first row */
    bool header_tail_sep;               /* the last column was compacted away: LVM2 still
                                           ends the heading line with a separator */
    bool heading_when_empty;            /* the heading line even without rows (the
                                           command log table, lvx_report_table) */
};
void lvx_report_render(struct lvx_buf *out, const struct lvx_rout *ro);

/* units.c */
bool lvx_report_units_valid(char units);
/* Parse a size with an optional unit suffix ("8m", "1.5g", "100" = default_unit) into
 * sectors (rounded down); returns the number of characters consumed, 0 if none. */
size_t lvx_report_parse_size(const char *s, char default_unit, uint64_t *sectors);

/* select.c */
struct lvx_sel;
int lvx_report_select_parse(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *expr,
                            unsigned report_obj, struct lvx_sel **out);
/* Objects (LVX_ROBJ_*) of the fields a selection uses. */
unsigned lvx_report_select_objects(const struct lvx_sel *sel);
/* Release what the parser allocated outside the pool (compiled regexes). */
void lvx_report_select_free(struct lvx_sel *sel);
bool lvx_report_select_match(struct lvx_rctx *rc, const struct lvx_sel *sel,
                             const struct lvx_rrow *row);

#endif
