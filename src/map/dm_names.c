/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * map/dm_names.c - DM names and UUIDs of LVs (see dm_names.h, format §15).
 */
#include "map/dm_names.h"

#include <errno.h>
#include <string.h>

#include "model/model.h"

static void append_doubled(struct lvx_buf *out, const char *s)
{
    for (; *s; s++) {
        lvx_buf_putc(out, *s);
        if (*s == '-')
            lvx_buf_putc(out, '-');
    }
}

int lvx_dm_lv_name(struct lvx_buf *out, const char *vg, const char *lv, const char *layer)
{
    size_t start = out->len;
    append_doubled(out, vg);
    lvx_buf_putc(out, '-');
    append_doubled(out, lv);
    if (layer) {
        lvx_buf_putc(out, '-');
        lvx_buf_puts(out, layer);
    }
    if (out->len - start > LVX_DM_NAME_MAX) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
        return -ENAMETOOLONG;
    }
    return 0;
}

/* Append the 32 UUID characters of text (dashes dropped); false if not 32. */
static bool append_raw_uuid(struct lvx_buf *out, const char *text)
{
    char raw[LVX_UUID_LEN + 1];
    if (lvx_uuid_parse(text, raw) < 0)
        return false;
    lvx_buf_puts(out, raw);
    return true;
}

int lvx_dm_lv_uuid(struct lvx_buf *out, const char *vg_uuid, const char *lv_uuid,
                   const char *layer)
{
    size_t start = out->len;
    lvx_buf_puts(out, LVX_DM_UUID_PREFIX);
    bool ok = append_raw_uuid(out, vg_uuid) && append_raw_uuid(out, lv_uuid);
    if (ok && layer) {
        lvx_buf_putc(out, '-');
        lvx_buf_puts(out, layer);
    }
    if (!ok || out->len - start > LVX_DM_UUID_MAX) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
        return ok ? -ENAMETOOLONG : -EINVAL;
    }
    return 0;
}

/* Take one name part from *p up to a single '-' (a doubled one is part of the
 * name); *p is left after that '-' or at the end. */
static const char *take_part(struct lvx_pool *pool, const char **p)
{
    struct lvx_buf b = LVX_BUF_INIT;
    const char *s = *p;
    while (*s) {
        if (s[0] == '-' && s[1] == '-') {
            lvx_buf_putc(&b, '-');
            s += 2;
        } else if (s[0] == '-') {
            s++;
            break;
        } else {
            lvx_buf_putc(&b, *s++);
        }
    }
    *p = s;
    const char *r = lvx_pool_strdup(pool, b.len ? lvx_buf_str(&b) : "");
    lvx_buf_free(&b);
    return r;
}

bool lvx_dm_split_name(struct lvx_pool *pool, const char *name, const char **vg,
                       const char **lv, const char **layer)
{
    const char *p = name;
    *vg = take_part(pool, &p);
    if (!**vg || !*p)
        return false;
    *lv = take_part(pool, &p);
    if (!**lv)
        return false;
    *layer = *p ? lvx_pool_strdup(pool, p) : NULL;
    return true;
}
