/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcmd_common.c - helpers of the LV-changing commands (see lvcmd.h): size,
 * extent and stripe arguments with LVM2's rules and messages, PV lists with PE
 * ranges, LV name forms, the activation refusal, begin/commit of the VG change,
 * approximate allocation for percentage sizes, and zeroing the start of an LV
 * through map/ and the I/O seam.
 */
#include "cmd/lvcmd.h"
#include "cmd/cmdlog.h"
#include "cmd/vgcmd.h"
#include "cmd/toolkit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "activate/activate.h"
#include "config/config.h"
#include "dev/dev.h"
#include "dev/signature.h"
#include "map/map.h"
#include "model/thin.h"
#include "meta/commit.h"

#define STRIPE_SIZE_MIN 8u          /* sectors: one 4 KiB page */
#define STRIPE_SIZE_LIMIT (((uint64_t)UINT32_MAX >> 2) + 1)   /* sectors, as LVM2 */
#define STRIPES_MAX 128u

/* ---- sizes ------------------------------------------------------------------ */

/* -L or -l as the parser converted it; a minus sign is refused unless allowed. */
static int size_of_opt(struct lvx_cmd_env *env, enum lvx_opt_id id, bool allow_sign,
                       struct lvx_lvcmd_size *out)
{
    const struct lvx_opt_val *v = &env->args->val[id];
    bool extents = id == LVX_OPT_EXTENTS;
    if (v->sign < 0 && !allow_sign)
        return lvx_opts_invalid(lvx_opt_def(id)->long_name, env->args->value[id],
                                extents ? "Extents may not be negative."
                                        : "Size may not be negative.");
    out->given = true;
    out->sign = v->sign;
    out->in_extents = extents;
    out->value = extents ? v->n : v->sectors;
    out->percent = v->pct;
    return 0;
}

int lvx_lvcmd_size_args(struct lvx_cmd_env *env, bool allow_sign, bool required,
                        struct lvx_lvcmd_size *out)
{
    const struct lvx_cmd_args *a = env->args;
    bool has_l = a->count[LVX_OPT_EXTENTS], has_L = a->count[LVX_OPT_SIZE];
    int rc;

    memset(out, 0, sizeof(*out));
    if (has_l && has_L) {
        lvx_cmd_errorf("Please specify either size or extents but not both.");
        return LVX_EXIT_INVALID;
    }
    if (has_L) {
        if ((rc = size_of_opt(env, LVX_OPT_SIZE, allow_sign, out)))
            return rc;
        if (out->value == 0) {
            lvx_cmd_errorf("Size may not be zero.");
            return LVX_EXIT_INVALID;
        }
    } else if (has_l) {
        if ((rc = size_of_opt(env, LVX_OPT_EXTENTS, allow_sign, out)))
            return rc;
        if (out->value == 0) {
            lvx_cmd_errorf("Extents may not be zero.");
            return LVX_EXIT_INVALID;
        }
    } else if (required) {
        lvx_cmd_errorf("Please specify either size or extents.");
        return LVX_EXIT_INVALID;
    }
    return 0;
}

const char *lvx_lvcmd_size(struct lvx_cmd_env *env, uint64_t sectors)
{
    return lvx_cmd_size_str(env->pool, sectors, 'h', 0);
}

uint64_t lvx_lvcmd_round_to_stripes(struct lvx_cmd_env *env, uint64_t extents,
                                    uint32_t stripes, uint64_t extent_size)
{
    if (stripes <= 1 || extents % stripes == 0)
        return extents;
    uint64_t up = (extents / stripes + 1) * stripes;
    lvx_notice(env->ctx, "Rounding size %s (%llu extents) up to stripe boundary size %s "
               "(%llu extents).", lvx_lvcmd_size(env, extents * extent_size),
               (unsigned long long)extents, lvx_lvcmd_size(env, up * extent_size),
               (unsigned long long)up);
    return up;
}

/* ---- stripes, policy, y/n, activation --------------------------------------- */

static bool is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

int lvx_lvcmd_stripe_args(struct lvx_cmd_env *env, uint32_t *stripes, uint32_t *stripe_size)
{
    const struct lvx_cmd_args *a = env->args;
    *stripes = 0;
    *stripe_size = 0;
    if (a->count[LVX_OPT_STRIPES]) {
        uint64_t v = a->val[LVX_OPT_STRIPES].n;
        if (v < 1 || v > STRIPES_MAX) {
            lvx_cmd_errorf("Number of stripes (%llu) must be between 1 and %u.",
                           (unsigned long long)v, STRIPES_MAX);
            return LVX_EXIT_INVALID;
        }
        *stripes = (uint32_t)v;
    }
    if (a->count[LVX_OPT_STRIPESIZE]) {
        uint64_t v = a->val[LVX_OPT_STRIPESIZE].sectors;
        if (v > 2 * STRIPE_SIZE_LIMIT) {       /* LVM2 names its limit, 2^30 sectors */
            lvx_cmd_errorf("Stripe size cannot be larger than %s.",
                           lvx_lvcmd_size(env, STRIPE_SIZE_LIMIT));
            return LVX_EXIT_INVALID;
        }
        if (v > UINT32_MAX || !is_pow2(v) || v < STRIPE_SIZE_MIN) {
            lvx_cmd_errorf("Invalid stripe size %s.", lvx_lvcmd_size(env, v));
            return LVX_EXIT_INVALID;
        }
        *stripe_size = (uint32_t)v;
    }
    return 0;
}

int lvx_lvcmd_alloc_arg(struct lvx_cmd_env *env, enum lvx_alloc *policy, bool *given)
{
    const struct lvx_cmd_args *a = env->args;
    *given = false;
    *policy = LVX_ALLOC_INHERIT;
    if (a->count[LVX_OPT_ALLOC]) {
        if (lvx_alloc_parse(a->value[LVX_OPT_ALLOC], policy) < 0) {
            lvx_cmd_errorf("Invalid argument for --alloc: %s", a->value[LVX_OPT_ALLOC]);
            return LVX_EXIT_INVALID;
        }
        *given = true;
    }
    if (a->count[LVX_OPT_CONTIGUOUS]) {
        bool contiguous = a->val[LVX_OPT_CONTIGUOUS].b;
        if (*given && (*policy == LVX_ALLOC_CONTIGUOUS) != contiguous) {
            lvx_cmd_errorf("Conflicting contiguous and alloc arguments.");
            return LVX_EXIT_INVALID;
        }
        *policy = contiguous ? LVX_ALLOC_CONTIGUOUS : LVX_ALLOC_INHERIT;
        *given = true;
    }
    return 0;
}

enum lvx_alloc lvx_lvcmd_effective_policy(const struct lvx_vg *vg, enum lvx_alloc lv_policy)
{
    enum lvx_alloc p = lv_policy;
    if (p == LVX_ALLOC_INHERIT)
        p = vg->alloc;
    if (p == LVX_ALLOC_INHERIT)
        p = LVX_ALLOC_NORMAL;
    return p;
}

bool lvx_lvcmd_wants_activation(struct lvx_cmd_env *env, bool activate_by_default)
{
    if (!env->args->count[LVX_OPT_ACTIVATE])
        return activate_by_default;
    const char *v = env->args->value[LVX_OPT_ACTIVATE];
    return !(strcmp(v, "n") == 0 || strcmp(v, "an") == 0 || strcmp(v, "ln") == 0 ||
             strcmp(v, "en") == 0 || strcmp(v, "sn") == 0);
}

int lvx_lvcmd_refuse_activation(void)
{
    lvx_cmd_errorf("Activation is not available here: use -an (the LV stays inactive).");
    return LVX_EXIT_FAILED;
}

struct lvx_lv *lvx_lvcmd_new_lv(struct lvx_vg *vg, const char *name, uint64_t now)
{
    struct lvx_lv *lv = lvx_vg_add_lv(vg);
    struct utsname un;
    lv->name = lvx_pool_strdup(vg->pool, name);
    lvx_uuid_generate(lv->uuid);
    lv->status = LVX_LV_READ | LVX_LV_WRITE | LVX_LV_VISIBLE;
    lv->has_creation = true;
    lv->creation_time = now;
    lv->creation_host = lvx_pool_strdup(vg->pool, uname(&un) == 0 ? un.nodename : "unknown");
    return lv;
}

unsigned lvx_lvcmd_polling_interval(struct lvx_cmd_env *env)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(env->ctx, &cfg) < 0) {
        lvx_error_clear(env->ctx);
        return 15;
    }
    int64_t v = lvx_config_int(cfg, "activation/polling_interval", 15);
    lvx_config_free(cfg);
    return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (unsigned)v;
}

int lvx_lvcmd_interval_arg(struct lvx_cmd_env *env, unsigned *interval)
{
    bool plus;
    return lvx_lvcmd_interval_sign(env, interval, &plus);
}

int lvx_lvcmd_interval_sign(struct lvx_cmd_env *env, unsigned *interval, bool *plus)
{
    const struct lvx_cmd_args *a = env->args;
    *plus = false;
    if (!a->count[LVX_OPT_INTERVAL])
        return 0;
    const char *v = a->value[LVX_OPT_INTERVAL];
    *plus = v[0] == '+';
    uint64_t n;
    if (lvx_opt_parse_number(v[0] == '+' ? v + 1 : v, UINT32_MAX, &n) < 0) {
        lvx_opts_invalid("interval", v, NULL);   /* a sign '-' too, as LVM2's parser */
        lvx_cmd_errorf("Error during parsing of command line.");
        return LVX_EXIT_INVALID;
    }
    *interval = (unsigned)n;
    return 0;
}

int lvx_lvcmd_read_ahead_arg(struct lvx_cmd_env *env, bool *given, int64_t *ra)
{
    const char *v = env->args->value[LVX_OPT_READAHEAD];
    *given = env->args->count[LVX_OPT_READAHEAD] > 0;
    *ra = 0;
    if (!*given || !strcmp(v, "auto"))
        return 0;
    if (!strcmp(v, "none")) {
        *ra = -1;
        return 0;
    }
    struct lvx_opt_val sz;
    const char *reason;
    if (lvx_opt_parse_size(v, 's', &sz, &reason) < 0)
        return lvx_opts_invalid("readahead", v, reason);
    if (sz.sign < 0)
        return lvx_opts_invalid("readahead", v, "Size may not be negative.");
    if (sz.sectors > INT32_MAX)
        return lvx_opts_invalid("readahead", v, NULL);
    if (sz.sectors == 0) {
        *ra = -1;
        return 0;
    }
    if (sz.sectors % 8) {
        uint64_t r = sz.sectors / 8 * 8;
        if (r == 0)
            r = 8;
        lvx_warn(env->ctx, "WARNING: Overriding readahead to %llu sectors, a multiple of 4K "
                 "page size.", (unsigned long long)r);
        sz.sectors = r;
    }
    *ra = (int64_t)sz.sectors;
    return 0;
}

/* ---- PV lists ----------------------------------------------------------------- */

static bool parse_u64(const char **p, uint64_t *v)
{
    char *end;
    if (**p < '0' || **p > '9')
        return false;
    errno = 0;
    unsigned long long x = strtoull(*p, &end, 10);
    if (errno)
        return false;
    *v = x;
    *p = end;
    return true;
}

/* One ":..." range of a PV argument: "A", "A-B", "A-", "-B", "A+N". */
static bool parse_range(const char *s, uint32_t pe_count, struct lvx_pe_run *out)
{
    const char *p = s;
    uint64_t a = 0, b = pe_count ? pe_count - 1 : 0;
    if (*p != '-' && !parse_u64(&p, &a))
        return false;
    if (*p == '-') {
        p++;
        if (*p && !parse_u64(&p, &b))
            return false;
    } else if (*p == '+') {
        uint64_t n;
        p++;
        if (!parse_u64(&p, &n) || n == 0)
            return false;
        b = a + n - 1;
    } else {
        b = a;
    }
    if (*p || b < a)
        return false;
    if (b >= pe_count)
        b = pe_count ? pe_count - 1 : 0;
    if (a >= pe_count)
        return false;
    out->start = a;
    out->count = b - a + 1;
    return true;
}

static struct lvx_pv *find_pv_by_device(const struct lvx_vg *vg, const char *dev)
{
    for (unsigned i = 0; i < vg->pv_count; i++)
        if (vg->pvs[i]->ondisk.present &&
            lvx_cmd_same_device(dev, vg->pvs[i]->ondisk.dev_name))
            return vg->pvs[i];
    return NULL;
}

static int one_pv_arg(struct lvx_cmd_env *env, const struct lvx_vg *vg, const char *arg,
                      struct lvx_alloc_pv *out)
{
    char *copy = lvx_pool_strdup(env->pool, arg);
    char *colon = strchr(copy, ':');
    if (colon)
        *colon++ = '\0';
    struct lvx_pv *pv = find_pv_by_device(vg, copy);
    if (!pv) {
        lvx_cmd_errorf("Physical Volume \"%s\" not found in Volume Group \"%s\".", copy, vg->name);
        return LVX_EXIT_FAILED;
    }
    memset(out, 0, sizeof(*out));
    out->pv = pv;
    if (!colon)
        return 0;
    unsigned n = 1;
    for (const char *c = colon; *c; c++)
        n += *c == ':';
    struct lvx_pe_run *runs = lvx_pool_alloc(env->pool, n * sizeof(*runs));
    for (char *tok = colon, *next; tok; tok = next) {
        next = strchr(tok, ':');
        if (next)
            *next++ = '\0';
        if (!parse_range(tok, pv->pe_count, &runs[out->range_count])) {
            lvx_cmd_errorf("Physical extent parsing error at %s.", tok);
            return LVX_EXIT_INVALID;
        }
        out->range_count++;
    }
    out->ranges = runs;
    return 0;
}

int lvx_lvcmd_pv_args(struct lvx_cmd_env *env, const struct lvx_vg *vg, char **args,
                      unsigned count, struct lvx_alloc_pv **out, unsigned *out_count)
{
    *out = NULL;
    *out_count = 0;
    if (!count)
        return 0;
    unsigned cap = 0;
    for (unsigned i = 0; i < count; i++)
        cap += args[i][0] == '@' ? vg->pv_count : 1;
    struct lvx_alloc_pv *pvs = lvx_pool_alloc(env->pool, (cap + 1) * sizeof(*pvs));
    unsigned n = 0;
    for (unsigned i = 0; i < count; i++) {
        if (args[i][0] == '@') {         /* LVM2: every PV of the VG with the tag */
            for (unsigned j = 0; j < vg->pv_count; j++)
                if (lvx_strlist_has(&vg->pvs[j]->tags, args[i] + 1)) {
                    memset(&pvs[n], 0, sizeof(pvs[n]));
                    pvs[n++].pv = vg->pvs[j];
                }
            continue;
        }
        int rc = one_pv_arg(env, vg, args[i], &pvs[n++]);
        if (rc)
            return rc;
    }
    if (!n) {
        lvx_cmd_errorf("No specified PVs have space available.");
        return LVX_EXIT_FAILED;
    }
    *out = pvs;
    *out_count = n;
    return 0;
}

uint64_t lvx_lvcmd_pvs_free(const struct lvx_free_maps *maps, const struct lvx_vg *vg,
                            const struct lvx_alloc_pv *pvs, unsigned count)
{
    uint64_t total = 0;
    if (!count) {
        for (unsigned i = 0; i < vg->pv_count; i++)
            total += lvx_alloc_pv_free(maps, vg->pvs[i]);
        return total;
    }
    for (unsigned i = 0; i < count; i++) {
        bool seen = false;
        for (unsigned j = 0; j < i; j++)
            seen |= pvs[j].pv == pvs[i].pv;
        if (!seen)
            total += lvx_alloc_pv_free(maps, pvs[i].pv);
    }
    return total;
}

/* ---- activation lists ----------------------------------------------------------- */

static bool has_host_tag(const struct lvx_config *cfg, const struct lvx_strlist *tags)
{
    for (unsigned i = 0; i < cfg->host_tag_count; i++)
        if (lvx_strlist_has(tags, cfg->host_tags[i]))
            return true;
    return false;
}

/* lv against the list at key; unset: the list is not defined. */
static bool volume_list_match(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *key,
                              bool unset)
{
    struct lvx_config *cfg = NULL;
    if (lvx_config_load(ctx, &cfg) < 0) {
        lvx_error_clear(ctx);
        return unset;
    }
    bool hit = false;
    const struct lvx_cfg_node *list = lvx_config_node(cfg, key);
    if (!list || list->kind != LVX_CFG_ARRAY) {
        lvx_config_free(cfg);
        return unset;
    }
    for (const struct lvx_cfg_node *n = list && list->kind == LVX_CFG_ARRAY ? list->child : NULL;
         n && !hit; n = n->next) {
        if (n->kind != LVX_CFG_STRING || !n->str[0])
            continue;
        const char *s = n->str, *slash = strchr(s, '/');
        if (strcmp(s, "@*") == 0) {   /* any host tag on the LV or its VG */
            hit = has_host_tag(cfg, &lv->tags) || has_host_tag(cfg, &lv->vg->tags);
        } else if (s[0] == '@') {     /* a tag of the LV or of its VG */
            hit = lvx_strlist_has(&lv->tags, s + 1) || lvx_strlist_has(&lv->vg->tags, s + 1);
        } else if (!slash) {          /* a VG name */
            hit = strcmp(s, lv->vg->name) == 0;
        } else {                      /* VG/LV */
            hit = (size_t)(slash - s) == strlen(lv->vg->name) &&
                  strncmp(s, lv->vg->name, (size_t)(slash - s)) == 0 && strcmp(slash + 1, lv->name) == 0;
        }
    }
    lvx_config_free(cfg);
    return hit;
}

bool lvx_lvcmd_in_volume_list(struct lvx_ctx *ctx, const struct lvx_lv *lv, const char *key)
{
    return volume_list_match(ctx, lv, key, false);
}

bool lvx_lvcmd_passes_volume_list(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    return volume_list_match(ctx, lv, "activation/volume_list", true);
}

int lvx_lvcmd_refuse_unwipeable(struct lvx_cmd_env *env, const struct lvx_lv *lv)
{
    if (lvx_lvcmd_passes_volume_list(env->ctx, lv))
        return 0;
    lvx_cmd_errorf("Volume %s/%s is not active locally (volume_list activation filter?).",
                   lv->vg->name, lv->name);
    lvx_cmd_errorf("Aborting. Failed to wipe start of new LV.");
    return LVX_EXIT_FAILED;
}

bool lvx_lvcmd_passes_auto_list(struct lvx_ctx *ctx, const struct lvx_lv *lv)
{
    return volume_list_match(ctx, lv, "activation/auto_activation_volume_list", true);
}

bool lvx_lvcmd_autoactivating(struct lvx_cmd_env *env)
{
    return env->args->count[LVX_OPT_ACTIVATE] && !strcmp(env->args->value[LVX_OPT_ACTIVATE], "ay");
}

/* ---- names -------------------------------------------------------------------- */

bool lvx_lvcmd_split_name(struct lvx_cmd_env *env, const char *arg, const char **vg,
                          const char **lv)
{
    const char *s = lvx_cmd_skip_dev_dir(env, arg);
    *vg = *lv = NULL;
    if (!strncmp(s, "/dev/mapper/", 12)) {
        /* "vg-lv" with '-' inside names doubled */
        const char *p = s + 12;
        struct lvx_buf b = LVX_BUF_INIT;
        for (; *p; p++) {
            if (p[0] == '-' && p[1] == '-') {
                lvx_buf_putc(&b, '-');
                p++;
            } else if (p[0] == '-' && !*lv) {
                *vg = lvx_pool_strdup(env->pool, lvx_buf_str(&b));
                lvx_buf_reset(&b);
                *lv = "";
            } else {
                lvx_buf_putc(&b, *p);
            }
        }
        if (*lv)
            *lv = lvx_pool_strdup(env->pool, lvx_buf_str(&b));
        lvx_buf_free(&b);
        return *vg && *lv && **vg && **lv;
    }
    if (!strncmp(s, "/dev/", 5))
        s += 5;
    const char *slash = strchr(s, '/');
    if (!slash) {
        *vg = lvx_pool_strdup(env->pool, s);
        return **vg != '\0';
    }
    *vg = lvx_pool_strndup(env->pool, s, (size_t)(slash - s));
    *lv = lvx_pool_strdup(env->pool, slash + 1);
    return **vg && **lv && !strchr(*lv, '/');
}

int lvx_lvcmd_check_names(struct lvx_cmd_env *env)
{
    const char *vg, *lv;
    for (int i = 0; i < env->args->argc; i++)
        if (!lvx_lvcmd_split_name(env, env->args->argv[i], &vg, &lv)) {
            lvx_cmd_errorf("\"%s\": Invalid path for Logical Volume.", env->args->argv[i]);
            return LVX_EXIT_FAILED;
        }
    return 0;
}

bool lvx_lvcmd_name_reserved(const char *name)
{
    if (!lvx_lv_name_reserved(name))
        return false;
    if (!strncmp(name, "snapshot", 8) || !strncmp(name, "pvmove", 6)) {
        lvx_cmd_errorf("Names starting \"%s\" are reserved. Please choose a different LV name.",
                       name[0] == 's' ? "snapshot" : "pvmove");
        return true;
    }
    /* find the reserved infix: the shortest "_xxx" part that is reserved on its own */
    for (const char *p = strchr(name, '_'); p; p = strchr(p + 1, '_')) {
        for (size_t len = 2; p[len - 1]; len++) {
            char part[32];
            if (len >= sizeof(part))
                break;
            memcpy(part, p, len);
            part[len] = '\0';
            if (lvx_lv_name_reserved(part)) {
                lvx_cmd_errorf("Names including \"%s\" are reserved. Please choose a different "
                               "LV name.", part);
                return true;
            }
        }
    }
    lvx_cmd_errorf("Name \"%s\" is reserved. Please choose a different LV name.", name);
    return true;
}

int lvx_lvcmd_check_new_name(const struct lvx_vg *vg, const char *name)
{
    if (!lvx_name_valid(name)) {
        lvx_cmd_errorf("Logical volume name \"%s\" is invalid.", name);
        return LVX_EXIT_INVALID;
    }
    if (lvx_lvcmd_name_reserved(name))
        return LVX_EXIT_INVALID;
    if (vg && !lvx_lv_full_name_fits(vg->name, name)) {
        lvx_cmd_errorf("Internal error: LV name \"%s/%s\" length %zu is not supported.",
                       vg->name, name, strlen(vg->name) + strlen(name) + 3);
        return LVX_EXIT_FAILED;             /* as LVM2 (its vg_validate refuses the write) */
    }
    if (vg && lvx_vg_find_lv(vg, name)) {
        lvx_cmd_errorf("Logical Volume \"%s\" already exists in volume group \"%s\"", name,
                       vg->name);
        return LVX_EXIT_FAILED;
    }
    return 0;
}

/* ---- begin / commit ------------------------------------------------------------- */

const char *lvx_lvcmd_command_line(struct lvx_cmd_env *env)
{
    struct lvx_buf b = LVX_BUF_INIT;
    for (int i = 0; i < env->args->full_argc; i++) {
        if (i)
            lvx_buf_putc(&b, ' ');
        lvx_buf_puts(&b, env->args->full_argv[i]);
    }
    const char *s = lvx_pool_strdup(env->pool, lvx_buf_str(&b));
    lvx_buf_free(&b);
    return s;
}

int lvx_lvcmd_persistent_args(struct lvx_cmd_env *env, bool *fixed, int64_t *major,
                              int64_t *minor)
{
    const struct lvx_cmd_args *a = env->args;
    bool has_minor = a->count[LVX_OPT_MINOR] > 0, has_major = a->count[LVX_OPT_MAJOR] > 0;
    *fixed = false;
    if (a->count[LVX_OPT_MINOR] > 1 || a->count[LVX_OPT_MAJOR] > 1) {
        lvx_cmd_errorf(has_minor && a->count[LVX_OPT_MINOR] > 1
                           ? "Option --minor may not be repeated."
                           : "Option -j|--major may not be repeated.");
        return LVX_EXIT_FAILED;
    }
    if (!lvx_cmd_bool(env, LVX_OPT_PERSISTENT, true)) {
        if (has_minor || has_major) {
            lvx_cmd_errorf("Options --major and --minor are incompatible with -Mn.");
            return LVX_EXIT_FAILED;
        }
        return 0;
    }
    if (a->count[LVX_OPT_PERSISTENT] && !has_minor) {
        lvx_cmd_errorf("Please specify minor number with --minor when using -My.");
        return LVX_EXIT_FAILED;
    }
    uint32_t dm_major = lvx_activation_dm_major();
    if (has_major)
        lvx_warn(env->ctx, "WARNING: Ignoring supplied major number %llu - kernel assigns "
                 "major numbers dynamically. Using major number %u instead.",
                 (unsigned long long)a->val[LVX_OPT_MAJOR].n, dm_major);
    if (!has_minor)
        return 0;
    if (a->val[LVX_OPT_MINOR].n > 1048575) {
        lvx_cmd_errorf("Minor number %llu outside range 0-1048575.",
                       (unsigned long long)a->val[LVX_OPT_MINOR].n);
        return LVX_EXIT_FAILED;
    }
    *fixed = true;
    *major = dm_major;
    *minor = (int64_t)a->val[LVX_OPT_MINOR].n;
    return 0;
}

int lvx_lvcmd_begin(struct lvx_cmd_env *env, const char *vgname, struct lvx_vg_update *u)
{
    return lvx_lvcmd_begin_flags(env, vgname, 0, u);
}

int lvx_lvcmd_begin_flags(struct lvx_cmd_env *env, const char *vgname, unsigned flags,
                          struct lvx_vg_update *u)
{
    struct lvx_scan_opts opts = {
        .devices = env->args->devices,
        .device_count = env->args->device_count,
    };
    if (vgname)
        lvx_cmdlog_object("vg", vgname, NULL, NULL, NULL);
    if (lvx_vg_update_begin(env->ctx, &opts, vgname, LVX_UPDATE_KEEP_SET | flags, u) < 0)
        return lvx_cmd_fail(env);
    lvx_vgcmd_log_id(u);
    return 0;
}

int lvx_lvcmd_commit(struct lvx_cmd_env *env, struct lvx_vg_update *u)
{
    return lvx_tk_commit(env, u, lvx_lvcmd_command_line(env));
}

int lvx_lvcmd_free_maps(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                        struct lvx_free_maps **maps)
{
    if (lvx_alloc_free_maps(env->ctx, env->pool, u->vg, maps) < 0)
        return lvx_cmd_fail(env);
    for (unsigned i = 0; i < (*maps)->pv_count; i++) {
        const struct lvx_pv_free *f = &(*maps)->pvs[i];
        if (f->past_end && f->usable)   /* a shrunk device (model/alloc.h) */
            lvx_warn(env->ctx, "WARNING: Not using %llu free extents of PV %s beyond the end of "
                     "its device.", (unsigned long long)f->past_end,
                     f->pv->ondisk.dev_name ? f->pv->ondisk.dev_name : "?");
    }
    return 0;
}

int lvx_lvcmd_allocate(struct lvx_cmd_env *env, const struct lvx_vg *vg,
                       struct lvx_free_maps *maps, struct lvx_alloc_request *req, bool approx,
                       struct lvx_alloc_result *res)
{
    int r = lvx_alloc_extents(env->ctx, env->pool, maps, req, res);
    if (r != -ENOSPC || !approx)
        return r;
    /* percentage sizes: the largest count (in whole stripe rows) that can be placed.
     * A successful allocation takes extents from the maps it is given, so each probe
     * runs on fresh maps of the VG (the caller's maps are untouched by failures). */
    uint64_t rows_ok = 0, rows_bad = req->extents / req->stripes;
    uint64_t want = req->extents;
    while (rows_bad - rows_ok > 1) {
        uint64_t mid = rows_ok + (rows_bad - rows_ok) / 2;
        struct lvx_ctx probe = *env->ctx;
        struct lvx_free_maps *fresh;
        struct lvx_alloc_result trial;
        req->extents = mid * req->stripes;
        if (lvx_alloc_free_maps(&probe, env->pool, vg, &fresh) == 0 &&
            lvx_alloc_extents(&probe, env->pool, fresh, req, &trial) == 0)
            rows_ok = mid;
        else
            rows_bad = mid;
    }
    if (rows_ok == 0) {
        req->extents = want;
        return r;
    }
    req->extents = rows_ok * req->stripes;
    lvx_error_clear(env->ctx);
    return lvx_alloc_extents(env->ctx, env->pool, maps, req, res);
}

/* ---- zeroing ------------------------------------------------------------------ */

int lvx_lvcmd_zero_start(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                         const struct lvx_lv *lv, uint64_t len)
{
    static const uint8_t zeros[4096];
    uint64_t sector = 0, total = (len + 511) / 512;
    uint64_t lv_sectors = lv->le_count * lv->vg->extent_size;

    if (total > lv_sectors)
        total = lv_sectors;
    while (sector < total) {
        struct lvx_map_loc loc;
        int r = lvx_map_lv_sector(env->ctx, lv, sector, &loc);
        if (r < 0)
            return r;
        uint64_t n = loc.len < total - sector ? loc.len : total - sector;
        if (n > sizeof(zeros) / 512)
            n = sizeof(zeros) / 512;
        if (loc.kind == LVX_MAP_PV) {
            struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, loc.pv->uuid);
            if (!spv || !spv->dev)
                return lvx_error(env->ctx, ENODEV, "No device for PV of %s/%s to zero",
                                 lv->vg->name, lv->name);
            if ((!spv->dev->writable || spv->dev->fd < 0)) {
                if (spv->dev->fd >= 0)
                    lvx_dev_close(env->ctx, spv->dev);
                if ((r = lvx_dev_open(env->ctx, spv->dev, true)) < 0)
                    return r;
            }
            if ((r = lvx_dev_write(env->ctx, spv->dev, zeros, n * 512, loc.pv_sector * 512)) < 0)
                return r;
            if ((r = lvx_dev_flush(env->ctx, spv->dev)) < 0)
                return r;
        }
        sector += n;
    }
    return 0;
}

int lvx_lvcmd_wipe_signatures(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                              const struct lvx_lv *lv)
{
    struct lvx_map_loc loc;
    int r = lvx_map_lv_sector(env->ctx, lv, 0, &loc);
    if (r < 0)
        return r;
    if (loc.kind != LVX_MAP_PV)
        return 0;
    struct lvx_scan_pv *spv = lvx_scan_find_pv(u->scan, loc.pv->uuid);
    if (!spv || !spv->dev)
        return lvx_error(env->ctx, ENODEV, "No device for PV of %s/%s to wipe", lv->vg->name,
                         lv->name);
    struct lvx_dev_sig *sigs;
    unsigned n;
    if ((r = lvx_dev_find_signatures_at(env->ctx, env->pool, spv->dev, loc.pv_sector * 512,
                                        loc.len * 512, &sigs, &n)) < 0 || n == 0)
        return r;
    if ((!spv->dev->writable || spv->dev->fd < 0)) {
        if (spv->dev->fd >= 0)
            lvx_dev_close(env->ctx, spv->dev);
        if ((r = lvx_dev_open(env->ctx, spv->dev, true)) < 0)
            return r;
    }
    const char *path = lvx_cmd_lv_path(env->pool, lv);
    for (unsigned i = 0; i < n; i++) {
        lvx_notice(env->ctx, "Wiping %s signature on %s.", sigs[i].type, path);
        if ((r = lvx_dev_wipe_signature(env->ctx, spv->dev, &sigs[i])) < 0)
            return r;
    }
    return lvx_dev_flush(env->ctx, spv->dev);
}

/* ---- prompts and limits ----------------------------------------------------------- */

const char *lvx_lvcmd_next_lvol(struct lvx_pool *pool, const struct lvx_vg *vg)
{
    int high = -1, i;
    /* "lvol0_pmspare" counts as 0 too; historical LVs count (LVM2's generate_lv_name) */
    for (unsigned l = 0; l < vg->lv_count + vg->historical_names.n; l++) {
        const char *n = l < vg->lv_count ? vg->lvs[l]->name
                                         : vg->historical_names.v[l - vg->lv_count];
        if (sscanf(n, "lvol%d", &i) == 1 && i > high)
            high = i;
    }
    return lvx_pool_printf(pool, "lvol%d", high + 1);
}

bool lvx_lvcmd_confirm(const char *question)
{
    char line[64];
    bool answer;
    if (lvx_cmd_ask_hook(question, &answer))    /* a shell or library session */
        return answer;
    fflush(stdout);             /* LVM2's yes_no_prompt asks on stderr */
    fprintf(stderr, "%s [y/n]: ", question);
    if (!fgets(line, sizeof(line), stdin)) {
        fprintf(stderr, "[n]\n");  /* its answer at end of input */
        return false;
    }
    return line[0] == 'y' || line[0] == 'Y';
}

void lvx_lvcmd_remove_lv(struct lvx_lv *lv)
{
    struct lvx_vg *vg = lv->vg;
    const struct lvx_seg *seg = lv->seg_count ? &lv->segs[0] : NULL;
    bool stacked = seg && (seg->kind == LVX_SEG_RAID ||
                           (seg->kind == LVX_SEG_MIRROR && !(lv->status & LVX_LV_PVMOVE)));
    if (stacked && seg->kind == LVX_SEG_MIRROR && seg->log_lv)
        lvx_lvcmd_remove_lv(seg->log_lv);       /* a mirrored log with its images */
    for (uint32_t i = 0; stacked && i < seg->area_count; i++) {
        if (seg->areas && seg->areas[i].lv)     /* LVM2's resync layer with its own */
            lvx_lvcmd_remove_lv(seg->areas[i].lv);
        if (seg->meta_areas && seg->meta_areas[i].lv)
            lvx_vg_remove_lv(vg, seg->meta_areas[i].lv);
    }
    lvx_vg_remove_lv(vg, lv);
}

bool lvx_lvcmd_refuse_complex(const struct lvx_lv *lv, const char *what)
{
    const char *role = NULL;
    if (lv->status & LVX_LV_LOCKED) {        /* a pvmove is moving it: LVM2's words */
        if (!strcmp(what, "rename"))
            lvx_cmd_errorf("Cannot rename locked LV %s", lv->name);
        else
            lvx_cmd_errorf("Can't %s locked logical volume %s/%s.", what, lv->vg->name, lv->name);
        return true;
    }
    const struct lvx_seg *user = lvx_lv_used_by(lv, &role);
    if (user) {
        lvx_cmd_errorf("Can't %s logical volume %s/%s: it is used by %s/%s (%s).", what,
                       lv->vg->name, lv->name, user->lv->vg->name, user->lv->name,
                       role ? role : "sub-LV");
        return true;
    }
    for (unsigned i = 0; i < lv->seg_count; i++) {
        enum lvx_seg_kind k = lv->segs[i].kind;
        if (k != LVX_SEG_STRIPED && k != LVX_SEG_ZERO && k != LVX_SEG_ERROR) {
            lvx_cmd_errorf("Can't %s logical volume %s/%s: lvx does not handle segment type "
                           "%s yet.", what, lv->vg->name, lv->name, lv->segs[i].type_name);
            return true;
        }
    }
    return false;
}

const char *lvx_lvcmd_lv_type(const struct lvx_lv *lv)
{
    if (lvx_lv_is_cow(lv))
        return "snapshot";
    if (lvx_lv_is_thin(lv))
        return "thin";
    if (lvx_lv_is_thin_pool(lv))
        return "thinpool";
    if (lv->seg_count && lv->segs[0].kind == LVX_SEG_CACHE_POOL)
        return "cachepool";
    if (lvx_map_lv_is_mirror(lv))
        return "mirror";
    return lv->seg_count ? lvx_seg_report_type(&lv->segs[0]) : "linear";
}
