/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * config/profile.c - the check of a profile's items against LVM2's settings table
 * (see profile.h): known, profilable, and of the profile's kind.
 */
#include "config/profile.h"

#include <stdio.h>
#include <string.h>

#include "config/lvm2_settings.h"

enum { PATH_MAX_LEN = 512 };

static const struct lvx_lvm2_line *find_item(const char *path, bool section)
{
    for (const struct lvx_lvm2_line *l = lvx_lvm2_default_tree; l->kind; l++) {
        bool is_section = l->kind == 'o';
        bool is_setting = l->kind == 's' || l->kind == 'h';
        if ((section ? is_section : is_setting) && strcmp(l->path, path) == 0)
            return l;
    }
    return NULL;
}

/* A setting LVM2 knows that its default tree leaves out (deprecated ones). */
static bool listed(const char *path)
{
    for (const struct lvx_lvm2_listed *l = lvx_lvm2_list; l->path; l++)
        if (strcmp(l->path, path) == 0)
            return true;
    return false;
}

/* A known section without known items: its items are names of the user's choosing
 * (LVM2's "#" sections: allocation/cache_settings, tags). */
static bool variable_section(const char *path)
{
    size_t n = strlen(path);
    for (const struct lvx_lvm2_line *l = lvx_lvm2_default_tree; l->kind; l++)
        if (l->kind != 'c' && strncmp(l->path, path, n) == 0 && l->path[n] == '/')
            return false;
    return find_item(path, true) != NULL;
}

/* The settings a metadata profile holds: those of the allocation and activation
 * sections (LVM2 flags no other setting so). */
bool lvx_profile_metadata_setting(const char *path)
{
    return strncmp(path, "allocation/", 11) == 0 || strncmp(path, "activation/", 11) == 0;
}

static void say_line(lvx_profile_say_fn say, void *arg, const char *fmt, const char *what,
                     const char *path)
{
    if (!say)
        return;
    char line[PATH_MAX_LEN + 128];
    snprintf(line, sizeof(line), fmt, what, path);
    say(arg, line);
}

static bool check_items(const struct lvx_cfg_node *sec, const char *parent,
                        enum lvx_profile_kind kind, lvx_profile_say_fn say, void *arg)
{
    bool ok = true;
    for (const struct lvx_cfg_node *n = sec->child; n; n = n->next) {
        char path[PATH_MAX_LEN];
        snprintf(path, sizeof(path), "%s%s%s", parent, parent[0] ? "/" : "", n->key ? n->key : "");
        bool section = n->kind == LVX_CFG_SECTION;
        const char *what = section ? "section" : "option";
        const struct lvx_lvm2_line *def = find_item(path, section);
        if (!def && section && parent[0] && variable_section(parent))
            continue;
        if (!def && !(!section && listed(path))) {
            say_line(say, arg, "Configuration %s \"%s\" unknown.", section ? "section" : "setting",
                     path);
            ok = false;
            continue;
        }
        if (!def || !(def->flags & LVX_L2_PROFILABLE)) {
            say_line(say, arg, "Configuration %s \"%s\" is not customizable by a profile.", what,
                     path);
            ok = false;
            continue;
        }
        bool mda = !section && lvx_profile_metadata_setting(path);
        if (!section && kind == LVX_PROFILE_COMMAND && mda) {
            say_line(say, arg, "Configuration %s \"%s\" is customizable by metadata profile only, "
                     "not command profile.", what, path);
            ok = false;
        } else if (!section && kind == LVX_PROFILE_METADATA && !mda) {
            say_line(say, arg, "Configuration %s \"%s\" is customizable by command profile only, "
                     "not metadata profile.", what, path);
            ok = false;
        } else if (section && !check_items(n, path, kind, say, arg)) {
            ok = false;
        }
    }
    return ok;
}

bool lvx_profile_check(const struct lvx_cfg_node *root, enum lvx_profile_kind kind,
                       lvx_profile_say_fn say, void *arg)
{
    return !root || check_items(root, "", kind, say, arg);
}
