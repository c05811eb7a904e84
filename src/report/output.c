/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * report/output.c - prints rendered rows the ways LVM2 does:
 *
 *   columns   every line starts with two spaces (lvm.conf log/prefix); columns are at
 *             least the field's width, numbers right-aligned, headings left-aligned
 *             and cut to the width, every column padded (the last one too), joined
 *             by " ";
 *             --unbuffered: each row is as wide as it needs (the headings as the
 *             first row), as LVM2 prints rows as they come;
 *   separator --separator S: no padding unless --aligned;
 *   prefixes  --nameprefixes: LVM2_FIELD='value' (--unquoted drops the quotes);
 *   rows      --rows: one line per field, heading first;
 *   json      {"report": [{"<type>": [{"field":"value", ...}, ...]}]} with LVM2's
 *             indentation (two-space prefix, four spaces per level).
 */
#include "report/report_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define LINE_PREFIX "  "

static void pad(struct lvx_buf *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lvx_buf_putc(out, ' ');
}

void lvx_report_json_string(struct lvx_buf *out, const char *s)
{
    lvx_buf_putc(out, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            lvx_buf_putc(out, '\\');
        lvx_buf_putc(out, *s);
    }
    lvx_buf_putc(out, '"');
}

/* `"vg": [ rows ]`, at the depth it has inside {"report": [{...}]} */
static void render_json_section(struct lvx_buf *out, const struct lvx_rout *ro)
{
    lvx_buf_printf(out, LINE_PREFIX "            \"%s\": [\n", ro->type_name);
    for (unsigned r = 0; r < ro->nrows; r++) {
        lvx_buf_puts(out, LINE_PREFIX "                {");
        for (unsigned c = 0; c < ro->ncols; c++) {
            if (c)
                lvx_buf_puts(out, ", ");
            lvx_report_json_string(out, ro->cols[c]->name);
            lvx_buf_putc(out, ':');
            lvx_report_json_string(out, ro->rows[r]->cells[c]);
        }
        lvx_buf_puts(out, r + 1 < ro->nrows ? "},\n" : "}\n");
    }
    lvx_buf_puts(out, LINE_PREFIX "            ]\n");
}

static void render_json(struct lvx_buf *out, const struct lvx_rout *ro)
{
    lvx_buf_puts(out, LINE_PREFIX "{\n");
    lvx_buf_puts(out, LINE_PREFIX "    \"report\": [\n");
    lvx_buf_puts(out, LINE_PREFIX "        {\n");
    render_json_section(out, ro);
    lvx_buf_puts(out, LINE_PREFIX "        }\n");
    lvx_buf_puts(out, LINE_PREFIX "    ]\n");
    lvx_buf_puts(out, LINE_PREFIX "}\n");
}

/* lvm.conf log/prefix (LVM2 prints report lines as log lines), two spaces by default */
static const char *line_prefix(const struct lvx_report_opts *o)
{
    return o->line_prefix ? o->line_prefix : LINE_PREFIX;
}

static const char *separator(const struct lvx_report_opts *o)
{
    return o->separator ? o->separator : " ";
}

static void name_prefix(struct lvx_buf *out, const struct lvx_field *f, const char *value, bool quoted)
{
    lvx_buf_puts(out, "LVM2_");
    for (const char *p = f->name; *p; p++)
        lvx_buf_putc(out, (char)toupper((unsigned char)*p));
    lvx_buf_putc(out, '=');
    if (quoted)
        lvx_buf_putc(out, '\'');
    lvx_buf_puts(out, value);
    if (quoted)
        lvx_buf_putc(out, '\'');
}

static void render_rows_mode(struct lvx_buf *out, const struct lvx_rout *ro)
{
    const struct lvx_report_opts *o = ro->opts;
    for (unsigned c = 0; c < ro->ncols; c++) {
        lvx_buf_puts(out, line_prefix(o));
        bool first = true;
        if (!o->noheadings) {
            lvx_buf_puts(out, ro->cols[c]->heading);
            first = false;
        }
        for (unsigned r = 0; r < ro->nrows; r++) {
            if (!first)
                lvx_buf_puts(out, separator(o));
            first = false;
            if (o->nameprefixes)
                name_prefix(out, ro->cols[c], ro->rows[r]->cells[c], !o->unquoted);
            else
                lvx_buf_puts(out, ro->rows[r]->cells[c]);
        }
        lvx_buf_putc(out, '\n');
    }
}

/* Widths of the columns for rows [from, upto) */
static void column_widths(const struct lvx_rout *ro, unsigned from, unsigned upto, size_t *w)
{
    for (unsigned c = 0; c < ro->ncols; c++) {
        w[c] = ro->cols[c]->width;
        for (unsigned r = from; r < upto; r++) {
            size_t len = strlen(ro->rows[r]->cells[c]);
            if (len > w[c])
                w[c] = len;
        }
    }
}

static void render_columns(struct lvx_buf *out, const struct lvx_rout *ro)
{
    const struct lvx_report_opts *o = ro->opts;
    bool aligned = !o->nameprefixes && (!o->separator || o->aligned);
    if (ro->nrows == 0 && !ro->heading_when_empty)
        return;
    size_t *w = lvx_xcalloc(ro->ncols + 1, sizeof(*w));
    column_widths(ro, 0, ro->progressive ? 1 : ro->nrows, w);
    if (!o->noheadings) {
        lvx_buf_puts(out, line_prefix(o));
        for (unsigned c = 0; c < ro->ncols; c++) {
            const char *h = ro->cols[c]->heading;
            if (c)
                lvx_buf_puts(out, separator(o));
            if (aligned) {
                size_t len = strlen(h) < w[c] ? strlen(h) : w[c];
                lvx_buf_append(out, h, len);
                pad(out, w[c] - len);
            } else {
                lvx_buf_puts(out, h);
            }
        }
        if (ro->header_tail_sep && ro->ncols)
            lvx_buf_puts(out, separator(o));
        lvx_buf_putc(out, '\n');
    }
    for (unsigned r = 0; r < ro->nrows; r++) {
        if (ro->progressive)
            column_widths(ro, r, r + 1, w);
        lvx_buf_puts(out, line_prefix(o));
        for (unsigned c = 0; c < ro->ncols; c++) {
            const char *v = ro->rows[r]->cells[c];
            if (c)
                lvx_buf_puts(out, separator(o));
            if (o->nameprefixes) {
                name_prefix(out, ro->cols[c], v, !o->unquoted);
            } else if (!aligned) {
                lvx_buf_puts(out, v);
            } else {
                size_t len = strlen(v);
                if (ro->cols[c]->right)
                    pad(out, w[c] - len);
                lvx_buf_puts(out, v);
                if (!ro->cols[c]->right)
                    pad(out, w[c] - len);
            }
        }
        lvx_buf_putc(out, '\n');
    }
    free(w);
}

void lvx_report_render(struct lvx_buf *out, const struct lvx_rout *ro)
{
    if (ro->opts->json && ro->opts->json_section) {
        render_json_section(out, ro);
        return;
    }
    if (ro->opts->json) {
        render_json(out, ro);
        return;
    }
    if (ro->nrows == 0 && !ro->heading_when_empty)
        return;
    if (ro->opts->rows)
        render_rows_mode(out, ro);
    else
        render_columns(out, ro);
}

void lvx_report_table(struct lvx_buf *out, const struct lvx_report_opts *opts,
                      const struct lvx_table_col *cols, unsigned ncols, const char *const *cells,
                      unsigned nrows)
{
    struct lvx_field *f = lvx_xcalloc(ncols + 1, sizeof(*f));
    const struct lvx_field **fp = lvx_xcalloc(ncols + 1, sizeof(*fp));
    struct lvx_rrow *r = lvx_xcalloc(nrows + 1, sizeof(*r));
    struct lvx_rrow **rp = lvx_xcalloc(nrows + 1, sizeof(*rp));
    for (unsigned c = 0; c < ncols; c++) {
        f[c].name = cols[c].name;
        f[c].heading = cols[c].heading;
        f[c].width = cols[c].width;
        f[c].right = cols[c].right;
        fp[c] = &f[c];
    }
    for (unsigned i = 0; i < nrows; i++) {
        r[i].cells = (const char **)(cells + (size_t)i * ncols);
        rp[i] = &r[i];
    }
    struct lvx_report_opts o = *opts;
    o.json = false;
    struct lvx_rout ro = { .opts = &o, .type_name = "log", .cols = fp, .ncols = ncols,
                           .rows = rp, .nrows = nrows, .heading_when_empty = true };
    lvx_report_render(out, &ro);
    free(rp);
    free(r);
    free(fp);
    free(f);
}
