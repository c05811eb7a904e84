/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * meta/systemid.c - system IDs (see meta/systemid.h): the local ID from its configured
 * source, the characters LVM2 keeps of an ID, and whether a VG is foreign.
 */
#include "meta/systemid.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "config/config.h"

/* Warnings are said once per context (a command): `quiet` is set after the first time. */
#define say(ctx, quiet, ...)                  \
    do {                                      \
        if (!(quiet))                         \
            lvx_warn((ctx), __VA_ARGS__);     \
    } while (0)

static const char *clean(struct lvx_ctx *ctx, bool quiet, struct lvx_pool *pool, const char *str)
{
    if (!str || !*str) {
        say(ctx, quiet, "WARNING: Empty system ID supplied.");
        return "";
    }
    char *out = lvx_pool_alloc(pool, LVX_SYSTEM_ID_MAX + 1);
    size_t n = 0;
    const char *s = str;
    while (*s && !isalnum((unsigned char)*s))
        s++;
    for (; *s && n < LVX_SYSTEM_ID_MAX; s++)
        if (isalnum((unsigned char)*s) || strchr("._-+", *s))
            out[n++] = *s;
    out[n] = '\0';
    if (!n) {
        say(ctx, quiet, "WARNING: Invalid system ID format: %s", str);
        return NULL;
    }
    if (strncmp(out, "localhost", 9) == 0) {
        say(ctx, quiet, "WARNING: system ID may not begin with the string \"localhost\".");
        return NULL;
    }
    return out;
}

const char *lvx_system_id_clean(struct lvx_ctx *ctx, struct lvx_pool *pool, const char *str)
{
    return clean(ctx, false, pool, str);
}

/* The first line of a file that is not blank or a comment, cleaned; a second such line
 * is warned about. */
static const char *from_file(struct lvx_ctx *ctx, bool quiet, struct lvx_pool *pool,
                             const char *path)
{
    if (!path || !*path)
        return NULL;
    FILE *f = fopen(path, "re");
    if (!f) {
        say(ctx, quiet, "WARNING: %s: fopen failed: %s", path, strerror(errno));
        return NULL;
    }
    char line[4096];
    const char *id = NULL;
    while (fgets(line, sizeof(line), f)) {
        char *p = line;
        while (*p && isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            continue;
        if (id && *id) {
            say(ctx, quiet, "WARNING: Ignoring extra line(s) in system ID file %s.", path);
            break;
        }
        char *hash = strchr(p, '#');
        if (hash)
            *hash = '\0';
        id = clean(ctx, quiet, pool, p);
    }
    fclose(f);
    return id;
}

static const char *from_source(struct lvx_ctx *ctx, bool quiet, struct lvx_pool *pool,
                               const struct lvx_config *cfg, const char *source)
{
    if (strcasecmp(source, "uname") == 0) {
        struct utsname u;
        return uname(&u) == 0 ? clean(ctx, quiet, pool, u.nodename) : NULL;
    }
    if (strcasecmp(source, "lvmlocal") == 0) {
        const char *s = lvx_config_str(cfg, "local/system_id", NULL);
        return s ? clean(ctx, quiet, pool, s) : NULL;
    }
    if (strcasecmp(source, "machineid") == 0 || strcasecmp(source, "machine-id") == 0)
        return from_file(ctx, quiet, pool,
                         lvx_pool_printf(pool, "%s/machine-id",
                                         lvx_config_str(cfg, "global/etc", "/etc")));
    if (strcasecmp(source, "file") == 0)
        return from_file(ctx, quiet, pool, lvx_config_str(cfg, "global/system_id_file", NULL));
    /* appmachineid needs systemd's app-specific machine ID, which LVM2 as Debian
     * builds it (no app-machineid in `lvm version`) does not have either */
    say(ctx, quiet, "WARNING: Unrecognised system_id_source \"%s\".", source);
    return NULL;
}

/* lvm.conf (with lvmlocal.conf and --config), or NULL when it cannot be loaded (the
 * command reports that itself); an error the caller recorded before is kept. */
static struct lvx_config *load_config(struct lvx_ctx *ctx)
{
    int err = ctx->err;
    char msg[sizeof(ctx->errmsg)];
    memcpy(msg, ctx->errmsg, sizeof(msg));
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0)
        cfg = NULL;
    ctx->err = err;
    memcpy(ctx->errmsg, msg, sizeof(msg));
    return cfg;
}

const char *lvx_system_id_local(struct lvx_ctx *ctx, struct lvx_pool *pool, bool *unknown)
{
    bool quiet = ctx->system_id_said;
    ctx->system_id_said = true;
    if (unknown)
        *unknown = false;
    struct lvx_config *cfg = load_config(ctx);
    if (!cfg)
        return "";
    const char *source = lvx_config_str(cfg, "global/system_id_source", "none");
    const char *local = lvx_config_str(cfg, "local/system_id", NULL);
    if (local && *local && strcmp(source, "lvmlocal") != 0)
        say(ctx, quiet, "WARNING: local/system_id is set, so should global/system_id_source "
            "be \"lvmlocal\" not \"%s\"?", source);
    const char *id = "";
    if (strcmp(source, "none") != 0) {
        id = from_source(ctx, quiet, pool, cfg, source);
        if (!id || !*id) {
            say(ctx, quiet, "WARNING: No system ID found from system_id_source %s.", source);
            if (unknown)
                *unknown = true;
            id = "";
        }
    }
    id = lvx_pool_strdup(pool, id);
    lvx_config_free(cfg);
    return id;
}

/* local/extra_system_ids lists id. */
static bool extra_id(const struct lvx_config *cfg, const char *id)
{
    const struct lvx_cfg_node *n = lvx_config_node(cfg, "local/extra_system_ids");
    if (n && n->kind == LVX_CFG_STRING)
        return strcmp(n->str, id) == 0;
    if (!n || n->kind != LVX_CFG_ARRAY)
        return false;
    for (const struct lvx_cfg_node *e = n->child; e; e = e->next)
        if (e->kind == LVX_CFG_STRING && strcmp(e->str, id) == 0)
            return true;
    return false;
}

bool lvx_system_id_allowed(struct lvx_ctx *ctx, const char *vg_system_id)
{
    if (!vg_system_id || !*vg_system_id)
        return true;
    struct lvx_pool *pool = lvx_pool_create();
    bool unknown;
    const char *local = lvx_system_id_local(ctx, pool, &unknown);
    bool ok = *local && strcmp(local, vg_system_id) == 0;
    if (!ok && *local) {
        struct lvx_config *cfg = load_config(ctx);
        ok = cfg && extra_id(cfg, vg_system_id);
        lvx_config_free(cfg);
    }
    lvx_pool_destroy(pool);
    return ok;
}

bool lvx_vg_is_foreign(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    return !lvx_system_id_allowed(ctx, vg->system_id);
}

int lvx_vg_foreign_error(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    struct lvx_pool *pool = lvx_pool_create();
    bool unknown;
    const char *local = lvx_system_id_local(ctx, pool, &unknown);
    if (*local)
        lvx_error(ctx, EPERM, "Cannot access VG %s with system ID %s with local system ID %s.",
                  vg->name, vg->system_id, local);
    else
        lvx_error(ctx, EPERM, "Cannot access VG %s with system ID %s with unknown local "
                  "system ID.", vg->name, vg->system_id);
    lvx_pool_destroy(pool);
    return -EPERM;
}

bool lvx_system_id_unknown(struct lvx_ctx *ctx)
{
    struct lvx_pool *pool = lvx_pool_create();
    bool unknown = !*lvx_system_id_local(ctx, pool, NULL);
    lvx_pool_destroy(pool);
    return unknown;
}

int lvx_vg_foreign_refuse(struct lvx_ctx *ctx, const struct lvx_vg *vg)
{
    bool unknown = lvx_system_id_unknown(ctx);
    lvx_vg_foreign_error(ctx, vg);
    if (unknown)
        lvx_log(ctx, LVX_LOG_ERROR, "%s", ctx->errmsg);
    return -EPERM;
}

struct lvx_vg *lvx_vgset_find_usable(struct lvx_ctx *ctx, const struct lvx_vgset *set,
                                     const char *name, bool *dup)
{
    *dup = false;
    struct lvx_vg *vg = lvx_vgset_find(set, name);
    if (vg)
        return vg;
    unsigned matches = 0, local = 0;
    for (unsigned i = 0; i < set->vg_count; i++) {
        if (strcmp(set->vgs[i]->name, name) != 0)
            continue;
        matches++;
        if (!lvx_vg_is_foreign(ctx, set->vgs[i])) {
            local++;
            vg = set->vgs[i];
        }
    }
    if (matches < 2)
        return NULL;
    if (local == 1)
        return vg;
    *dup = true;
    return NULL;
}

int lvx_vg_dup_name_error(struct lvx_ctx *ctx, const char *name)
{
    lvx_log(ctx, LVX_LOG_ERROR, "Multiple VGs found with the same name: skipping %s", name);
    return lvx_error(ctx, EEXIST, "Use --select vg_uuid=<uuid> in place of the VG name.");
}
