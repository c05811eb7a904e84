/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/names.c - syntax of VG/LV names and tags (lvm2-format.md §11.2, §11.3) and
 * the LV names LVM2 reserves for its internal LVs.  Entry points: lvx_name_valid(),
 * lvx_lv_name_reserved(), lvx_lv_full_name_fits(), lvx_tag_valid().
 */
#include "model/model.h"

#include <string.h>

static bool name_char_valid(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '+' || c == '_' || c == '.' || c == '-';
}

bool lvx_name_valid(const char *name)
{
    size_t n;

    if (!name || !*name || name[0] == '-')
        return false;
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return false;
    for (n = 0; name[n]; n++)
        if (n >= LVX_NAME_MAX || !name_char_valid(name[n]))
            return false;
    return true;
}

bool lvx_lv_full_name_fits(const char *vg_name, const char *lv_name)
{
    /* LVM2 (vg_validate): "vg/lv" with room for the dm layer suffix must stay below 128 */
    return strlen(vg_name) + strlen(lv_name) + 3 < LVX_NAME_MAX + 1;
}

bool lvx_lv_name_reserved(const char *name)
{
    static const char *const infixes[] = {
        "_cdata", "_cmeta", "_corig", "_cpool", "_cvol", "_wcorig", "_mimage", "_mlog",
        "_rimage", "_rmeta", "_tdata", "_tmeta", "_vdata", "_imeta", "_iorig", "_pmspare",
        "_vorigin",
    };

    if (!name)
        return false;
    if (!strncmp(name, "pvmove", 6) || !strncmp(name, "snapshot", 8))
        return true;
    for (size_t i = 0; i < sizeof(infixes) / sizeof(infixes[0]); i++)
        if (strstr(name, infixes[i]))
            return true;
    return false;
}

static bool tag_char_valid(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_+.-/=!:&#", c));
}

bool lvx_tag_valid(const char *tag)
{
    if (!tag || !*tag)
        return false;
    for (const char *p = tag; *p; p++)
        if (!tag_char_valid(*p))
            return false;
    return true;
}
