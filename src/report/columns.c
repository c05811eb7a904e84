/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/columns.c - the -o and -O lists: LVM2's default columns and sort keys
 * per report, "+field" to append, "-field" to remove, a plain list to replace,
 * "<obj>_all" for every field of an object, "all" for those of the report (as LVM2
 * groups them, widened by the types of the other fields named: "lvs -o all,seg_all"
 * repeats the segment fields, as LVM2); field names resolved with the
 * report's prefix optional.  Several -o arguments arrive one per line; as LVM2, a
 * '+' or '-' at the start of an argument applies to all of its names, an argument
 * without one replaces the list.
 */
#include "report/report_int.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

struct default_spec {
    const char *fields;
    const char *sort;
};

static const struct default_spec defaults[] = {
    [LVX_REPORT_PVS] = { "pv_name,vg_name,pv_fmt,pv_attr,pv_size,pv_free", "pv_name" },
    [LVX_REPORT_VGS] = { "vg_name,pv_count,lv_count,snap_count,vg_attr,vg_size,vg_free",
                         "vg_name" },
    [LVX_REPORT_LVS] = { "lv_name,vg_name,lv_attr,lv_size,pool_lv,origin,data_percent,"
                         "metadata_percent,move_pv,mirror_log,copy_percent,convert_lv",
                         "vg_name,lv_name" },
    [LVX_REPORT_SEGS] = { "lv_name,vg_name,lv_attr,stripes,segtype,seg_size",
                          "vg_name,lv_name,seg_start" },
    [LVX_REPORT_PVSEGS] = { "pv_name,vg_name,pv_fmt,pv_attr,pv_size,pv_free,pvseg_start,"
                            "pvseg_size", "pv_name,pvseg_start" },
};

unsigned lvx_report_kind_obj(enum lvx_report_kind kind)
{
    switch (kind) {
    case LVX_REPORT_PVS: return LVX_ROBJ_PV;
    case LVX_REPORT_VGS: return LVX_ROBJ_VG;
    case LVX_REPORT_LVS: return LVX_ROBJ_LV;
    case LVX_REPORT_SEGS: return LVX_ROBJ_SEG;
    case LVX_REPORT_PVSEGS: return LVX_ROBJ_PVSEG;
    }
    return 0;
}

static void list_add(struct lvx_pool *pool, struct lvx_collist *l, const struct lvx_field *f,
                     bool desc, bool group)
{
    if (l->n == l->cap) {
        unsigned cap = l->cap ? l->cap * 2 : 16;
        l->f = lvx_pool_realloc(pool, l->f, sizeof(*l->f) * l->cap, sizeof(*l->f) * cap);
        l->desc = lvx_pool_realloc(pool, l->desc, sizeof(*l->desc) * l->cap,
                                   sizeof(*l->desc) * cap);
        l->group = lvx_pool_realloc(pool, l->group, sizeof(*l->group) * l->cap,
                                    sizeof(*l->group) * cap);
        l->cap = cap;
    }
    l->desc[l->n] = desc;
    l->group[l->n] = group;
    l->f[l->n++] = f;
}

/* "-o-name" takes out the columns named so, not those an "_all" or "all" brought in
 * (LVM2 edits the list of names as given: "-o-lv_uuid" leaves lv_all whole) */
static void list_remove(struct lvx_collist *l, const struct lvx_field *f)
{
    unsigned o = 0;
    for (unsigned i = 0; i < l->n; i++)
        if (l->f[i] != f || l->group[i]) {
            l->desc[o] = l->desc[i];
            l->group[o] = l->group[i];
            l->f[o++] = l->f[i];
        }
    l->n = o;
}

/* lvx's own fields (not LVM2's) are named, never part of an "_all" or "all" */
static bool lvx_only(const struct lvx_field *f)
{
    return strcmp(f->name, "lv_activation_backend") == 0;
}

/* LVM2's "all": the fields of the report's object types, as LVM2 groups them: lvs has
 * the LV fields (with those of kernel state) and the VG fields; lvs --segments the LV
 * fields without kernel state (they start at lv_kernel_major; lv_attr is one of them), VG
 * and segment fields; pvs --segments the PV label fields (up to pv_ext_vsn) and the PV
 * segment fields. */
static unsigned field_index(const char *name)
{
    for (unsigned i = 0; i < lvx_report_field_count; i++)
        if (strcmp(lvx_report_fields[i].name, name) == 0)
            return i;
    return 0;
}

/* LVM2's field types: the PV label fields (up to pv_ext_vsn) and the other PV fields,
 * the LV fields without kernel state and those with it (from lv_kernel_major), VG,
 * segment and PV segment fields. */
enum {
    G_LABEL = 1u << 0, G_PVS = 1u << 1, G_LVS = 1u << 2, G_LVKERN = 1u << 3,
    G_VGS = 1u << 4, G_SEGS = 1u << 5, G_PVSEGS = 1u << 6,
};

static unsigned field_group(const struct lvx_field *f, unsigned idx, unsigned kernel_from,
                            unsigned label_end)
{
    switch (f->obj) {
    case LVX_ROBJ_PV: return idx <= label_end ? G_LABEL : G_PVS;
    case LVX_ROBJ_LV: return idx < kernel_from ? G_LVS : G_LVKERN;
    case LVX_ROBJ_VG: return G_VGS;
    case LVX_ROBJ_SEG: return G_SEGS;
    default: return G_PVSEGS;
    }
}

/* The types "all" covers in a report of this kind before other fields are named */
static unsigned base_groups(enum lvx_report_kind kind)
{
    switch (kind) {
    case LVX_REPORT_PVS: return G_LABEL | G_PVS;
    case LVX_REPORT_VGS: return G_VGS;
    case LVX_REPORT_LVS: return G_LVS | G_LVKERN | G_VGS;
    case LVX_REPORT_SEGS: return G_LVS | G_VGS | G_SEGS;
    case LVX_REPORT_PVSEGS: return G_LABEL | G_PVSEGS;
    }
    return 0;
}

/* "all": the fields of the report's types and of the types of the other fields named
 * in the same lists (LVM2 widens its report type by them first: "lvs -o all,segtype"
 * has every LV, VG and segment field, then segtype once more; "pvs -o all,lv_name" the
 * PV fields and the LV fields without kernel state). */
static bool in_all(unsigned groups, const struct lvx_field *f, unsigned idx,
                   unsigned kernel_from, unsigned label_end)
{
    return (field_group(f, idx, kernel_from, label_end) & groups) != 0;
}

/* "pv_all", "lv_all", ...: every field of those objects, in table order */
static unsigned all_objects(const char *name, size_t len)
{
    static const struct { const char *name; unsigned obj; } all[] = {
        { "pv_all", LVX_ROBJ_PV }, { "vg_all", LVX_ROBJ_VG }, { "lv_all", LVX_ROBJ_LV },
        { "seg_all", LVX_ROBJ_SEG }, { "pvseg_all", LVX_ROBJ_PVSEG },
    };
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (strlen(all[i].name) == len && strncasecmp(all[i].name, name, len) == 0)
            return all[i].obj;
    return 0;
}

static int apply_item(struct lvx_ctx *ctx, struct lvx_pool *pool, struct lvx_collist *l,
                      const char *name, size_t len, char mode, unsigned groups,
                      unsigned obj, bool desc)
{
    unsigned objs = all_objects(name, len);
    bool every = len == 3 && strncasecmp(name, "all", 3) == 0;
    if (objs || every) {
        unsigned kernel_from = field_index("lv_kernel_major"), label_end = field_index("pv_ext_vsn");
        for (unsigned i = 0; i < lvx_report_field_count; i++) {
            const struct lvx_field *f = &lvx_report_fields[i];
            if (lvx_only(f) ||
                !(every ? in_all(groups, f, i, kernel_from, label_end) : (f->obj & objs) != 0))
                continue;
            if (mode != '-')
                list_add(pool, l, f, desc, true);
        }
        return 0;
    }
    const struct lvx_field *f = lvx_report_field_find(name, len, obj);
    if (!f && mode == '-')
        return 0;      /* nothing of that name to take out (LVM2: "-o-a,+b" drops a only) */
    if (!f)
        return lvx_error(ctx, EINVAL, "Unrecognised field: %.*s", (int)len, name);
    if (mode == '-')
        list_remove(l, f);
    else
        list_add(pool, l, f, desc, false);
    return 0;
}

/* The types of the fields a list names (besides "all"), added to the report's own. */
static unsigned spec_groups(enum lvx_report_kind kind, unsigned obj, const char *spec)
{
    unsigned g = base_groups(kind);
    unsigned kernel_from = field_index("lv_kernel_major"), label_end = field_index("pv_ext_vsn");
    for (const char *p = spec; p && *p;) {
        size_t len = strcspn(p, ",\n");
        const char *name = p;
        p += len + (p[len] ? 1 : 0);
        if (len && (*name == '+' || *name == '-' || *name == '#')) {
            if (*name == '-')
                continue;
            name++;
            len--;
        }
        unsigned objs = all_objects(name, len);
        for (unsigned i = 0; objs && i < lvx_report_field_count; i++)
            if (lvx_report_fields[i].obj & objs)
                g |= field_group(&lvx_report_fields[i], i, kernel_from, label_end);
        const struct lvx_field *f = objs || !len ? NULL : lvx_report_field_find(name, len, obj);
        if (f)
            g |= field_group(f, (unsigned)(f - lvx_report_fields), kernel_from, label_end);
    }
    return g;
}

static int parse_columns_into(struct lvx_ctx *ctx, struct lvx_pool *pool,
                              enum lvx_report_kind kind, unsigned obj, const char *spec,
                              struct lvx_collist *out)
{
    const char *arg = spec;
    unsigned groups = spec_groups(kind, obj, spec);
    while (*arg) {     /* one -o argument per line */
        const char *eol = strchr(arg, '\n');
        size_t arglen = eol ? (size_t)(eol - arg) : strlen(arg);
        char mode = '=';
        const char *p = arg, *stop = arg + arglen;
        arg = eol ? eol + 1 : stop;
        if (p < stop && *p == '#')
            continue;                       /* columns to compact (lvx_report_compact_spec) */
        if (p < stop && (*p == '+' || *p == '-'))
            mode = *p;
        if (mode != '=')
            p++;
        else
            out->n = 0;
        while (p < stop) {
            const char *end = memchr(p, ',', (size_t)(stop - p));
            size_t len = end ? (size_t)(end - p) : (size_t)(stop - p);
            const char *name = p;
            p += len + (end ? 1 : 0);
            if (len == 0)
                continue;
            int r = apply_item(ctx, pool, out, name, len, mode == '-' ? '-' : '+', groups, obj,
                               false);
            if (r < 0)
                return r;
        }
    }
    return 0;
}

const char *lvx_report_compact_spec(struct lvx_pool *pool, const char *spec)
{
    const char *last = NULL;
    size_t len = 0;
    for (const char *arg = spec; arg && *arg;) {
        const char *eol = strchr(arg, '\n');
        size_t n = eol ? (size_t)(eol - arg) : strlen(arg);
        if (n && *arg == '#') {
            last = arg + 1;
            len = n - 1;
        }
        arg = eol ? eol + 1 : arg + n;
    }
    return last ? lvx_pool_strndup(pool, last, len) : NULL;
}

int lvx_report_parse_columns(struct lvx_ctx *ctx, struct lvx_pool *pool, enum lvx_report_kind kind,
                             const char *dflt, const char *spec, struct lvx_collist *out)
{
    unsigned obj = lvx_report_kind_obj(kind);
    memset(out, 0, sizeof(*out));
    int r = parse_columns_into(ctx, pool, kind, obj, dflt ? dflt : defaults[kind].fields, out);
    if (r < 0 || !spec)
        return r;
    return parse_columns_into(ctx, pool, kind, obj, spec, out);
}

int lvx_report_parse_sort(struct lvx_ctx *ctx, struct lvx_pool *pool, enum lvx_report_kind kind,
                          const char *dflt, const char *spec, struct lvx_collist *out)
{
    unsigned obj = lvx_report_kind_obj(kind);
    const char *p = spec ? spec : dflt ? dflt : defaults[kind].sort;
    memset(out, 0, sizeof(*out));
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *name = p;
        p += len + (end ? 1 : 0);
        bool desc = false;
        if (len && (*name == '-' || *name == '+')) {
            desc = *name == '-';
            name++;
            len--;
        }
        if (len == 0)
            continue;
        int r = apply_item(ctx, pool, out, name, len, '+', base_groups(kind), obj, desc);
        if (r < 0)
            return r;
    }
    return 0;
}
