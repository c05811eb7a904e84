/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/lvcmd_common.c - helpers of the LV-changing commands (see lvcmd.h): size,
 * extent and stripe arguments with LVM2's rules and messages, PV lists with PE
 * ranges, LV name forms, the activation refusal, begin/commit of the VG change,
 * approximate allocation for percentage sizes, and zeroing the start of an LV
 * through map/ and the I/O seam.
 */
#include "cmd/lvcmd.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev/dev.h"
#include "map/map.h"
#include "meta/commit.h"

#define STRIPE_SIZE_MIN 8u          /* sectors: one 4 KiB page */
#define STRIPES_MAX 128u

/* ---- sizes ------------------------------------------------------------------ */

/* Sectors per unit letter; 0 for an unknown letter. */
static uint64_t unit_bytes(char u)
{
    switch (u) {
    case 'b': case 'B': return 1;
    case 's': case 'S': return 512;
    case 'k': case 'K': return 1ull << 10;
    case 'm': case 'M': return 1ull << 20;
    case 'g': case 'G': return 1ull << 30;
    case 't': case 'T': return 1ull << 40;
    case 'p': case 'P': return 1ull << 50;
    case 'e': case 'E': return 1ull << 60;
    default: return 0;
    }
}

/* One line: "Invalid argument for --size: 16E (Size is too big (>=16EiB).)". */
static int size_invalid(const char *opt, const char *s, const char *why)
{
    if (why)
        lvx_cmd_errorf("Invalid argument for %s: %s (%s)", opt, s, why);
    else
        lvx_cmd_errorf("Invalid argument for %s: %s", opt, s);
    return LVX_EXIT_INVALID;
}

static int parse_sign(const char **p, bool allow_sign, int *sign)
{
    *sign = 0;
    if (**p == '+' || **p == '-') {
        *sign = **p == '+' ? 1 : -1;
        (*p)++;
        if (!allow_sign && *sign < 0)
            return -1;
    }
    return 0;
}

int lvx_lvcmd_parse_size(const char *s, char default_unit, bool allow_sign, const char *opt,
                         struct lvx_lvcmd_size *out)
{
    const char *p = s;
    unsigned __int128 whole = 0, frac = 0, frac_div = 1;
    bool digits = false;

    memset(out, 0, sizeof(*out));
    if (parse_sign(&p, allow_sign, &out->sign) < 0)
        return size_invalid(opt, s, "Size may not be negative.");
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (unsigned)(*p - '0');
        digits = true;
        if (whole > ((unsigned __int128)1 << 80))
            return size_invalid(opt, s, "Size is too big (>=16EiB).");
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++) {
            if (frac_div < 1000000000000ull) {
                frac = frac * 10 + (unsigned)(*p - '0');
                frac_div *= 10;
            }
            digits = true;
        }
    }
    char unit = default_unit;
    if (*p) {
        unit = *p++;
        /* LVM2 accepts a trailing "b" after a unit ("4mb") */
        if (*p == 'b' || *p == 'B')
            p++;
    }
    uint64_t mult = unit_bytes(unit);
    if (!digits || !mult || *p)
        return size_invalid(opt, s, "Can't parse size argument.");
    unsigned __int128 bytes = whole * mult + (frac * mult + frac_div - 1) / frac_div;
    if (bytes >= ((unsigned __int128)1 << 64))
        return size_invalid(opt, s, "Size is too big (>=16EiB).");
    if ((unit == 'b' || unit == 'B') && bytes % 512) {
        char why[160];
        snprintf(why, sizeof(why), "Size is not a multiple of 512. Try using %llu or %llu.",
                 (unsigned long long)(bytes / 512 * 512),
                 (unsigned long long)(bytes / 512 * 512 + 512));
        return size_invalid(opt, s, why);
    }
    out->given = true;
    out->value = (uint64_t)((bytes + 511) / 512);
    return 0;
}

static const struct {
    const char *suffix;
    enum lvx_lvcmd_percent pct;
} percent_names[] = {
    { "VG", LVX_PCT_VG }, { "FREE", LVX_PCT_FREE }, { "PVS", LVX_PCT_PVS },
    { "LV", LVX_PCT_LV }, { "ORIGIN", LVX_PCT_ORIGIN },
};

int lvx_lvcmd_parse_extents(const char *s, bool allow_sign, struct lvx_lvcmd_size *out)
{
    const char *p = s;
    char *end;

    memset(out, 0, sizeof(*out));
    out->in_extents = true;
    if (parse_sign(&p, allow_sign, &out->sign) < 0)
        return size_invalid("--extents", s, "Extents may not be negative.");
    if (*p < '0' || *p > '9')
        return size_invalid("--extents", s, NULL);
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno == ERANGE)
        return size_invalid("--extents", s, "Number is too big.");
    if (*end == '%') {
        size_t i;
        for (i = 0; i < sizeof(percent_names) / sizeof(percent_names[0]); i++)
            if (strcasecmp(end + 1, percent_names[i].suffix) == 0)
                break;
        if (i == sizeof(percent_names) / sizeof(percent_names[0]))
            return size_invalid("--extents", s, "Specified %type is unknown.");
        out->percent = percent_names[i].pct;
    } else if (*end) {
        return size_invalid("--extents", s, NULL);
    }
    out->given = true;
    out->value = v;
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
        lvx_cmd_errorf("Please specify either size or extents (not both).");
        return LVX_EXIT_INVALID;
    }
    if (has_L) {
        if ((rc = lvx_lvcmd_parse_size(a->value[LVX_OPT_SIZE], 'm', allow_sign, "--size", out)))
            return rc;
        if (out->value == 0) {
            lvx_cmd_errorf("Size may not be zero.");
            return LVX_EXIT_INVALID;
        }
    } else if (has_l) {
        if ((rc = lvx_lvcmd_parse_extents(a->value[LVX_OPT_EXTENTS], allow_sign, out)))
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
        const char *s = a->value[LVX_OPT_STRIPES];
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (!*s || *end || errno || s[0] == '-' || v > UINT32_MAX) {
            lvx_cmd_errorf("Invalid argument for --stripes: %s", s);
            return LVX_EXIT_INVALID;
        }
        if (v < 1 || v > STRIPES_MAX) {
            lvx_cmd_errorf("Number of stripes (%lu) must be between 1 and %u.", v, STRIPES_MAX);
            return LVX_EXIT_INVALID;
        }
        *stripes = (uint32_t)v;
    }
    if (a->count[LVX_OPT_STRIPESIZE]) {
        struct lvx_lvcmd_size sz;
        int rc = lvx_lvcmd_parse_size(a->value[LVX_OPT_STRIPESIZE], 'k', false, "--stripesize",
                                      &sz);
        if (rc)
            return rc;
        if (sz.value > UINT32_MAX || !is_pow2(sz.value) || sz.value < STRIPE_SIZE_MIN) {
            lvx_cmd_errorf("Invalid stripe size %s.", lvx_lvcmd_size(env, sz.value));
            return LVX_EXIT_INVALID;
        }
        *stripe_size = (uint32_t)sz.value;
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
        bool contiguous;
        int rc = lvx_lvcmd_yes_no(env, LVX_OPT_CONTIGUOUS, false, &contiguous);
        if (rc)
            return rc;
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

int lvx_lvcmd_yes_no(struct lvx_cmd_env *env, enum lvx_opt_id opt, bool dflt, bool *out)
{
    const char *v = env->args->value[opt];
    *out = dflt;
    if (!env->args->count[opt])
        return 0;
    if (!strcmp(v, "y") || !strcmp(v, "yes")) {
        *out = true;
        return 0;
    }
    if (!strcmp(v, "n") || !strcmp(v, "no")) {
        *out = false;
        return 0;
    }
    lvx_cmd_errorf("Invalid argument for --%s: %s", lvx_opt_def(opt)->long_name, v);
    return LVX_EXIT_INVALID;
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

/* --addtag/--deltag values (joined with ',' by the parser), '@' prefix stripped as LVM2. */
int lvx_lvcmd_tags_arg(struct lvx_cmd_env *env, enum lvx_opt_id id, char ***tags,
                       unsigned *count)
{
    *tags = NULL;
    *count = 0;
    if (!env->args->count[id])
        return 0;
    char *copy = lvx_pool_strdup(env->pool, env->args->value[id]);
    unsigned n = 1;
    for (const char *c = copy; *c; c++)
        n += *c == ',';
    char **v = lvx_pool_alloc(env->pool, n * sizeof(*v));
    for (char *tok = copy, *next; tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        if (*tok == '@')
            tok++;
        if (!lvx_tag_valid(tok)) {
            lvx_cmd_errorf("Invalid argument for --%s: %s", lvx_opt_def(id)->long_name,
                           env->args->value[id]);
            return LVX_EXIT_INVALID;
        }
        v[(*count)++] = tok;
    }
    *tags = v;
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
    struct lvx_lvcmd_size sz;
    int rc = lvx_lvcmd_parse_size(v, 's', false, "--readahead", &sz);
    if (rc)
        return rc;
    if (sz.value > INT32_MAX) {
        lvx_cmd_errorf("Invalid argument for --readahead: %s", v);
        return LVX_EXIT_INVALID;
    }
    if (sz.value == 0) {
        *ra = -1;
        return 0;
    }
    if (sz.value % 8) {
        uint64_t r = sz.value / 8 * 8;
        if (r == 0)
            r = 8;
        lvx_warn(env->ctx, "WARNING: Overriding readahead to %llu sectors, a multiple of 4K "
                 "page size.", (unsigned long long)r);
        sz.value = r;
    }
    *ra = (int64_t)sz.value;
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
    struct lvx_alloc_pv *pvs = lvx_pool_alloc(env->pool, count * sizeof(*pvs));
    for (unsigned i = 0; i < count; i++) {
        int rc = one_pv_arg(env, vg, args[i], &pvs[i]);
        if (rc)
            return rc;
    }
    *out = pvs;
    *out_count = count;
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

/* ---- names -------------------------------------------------------------------- */

bool lvx_lvcmd_split_name(struct lvx_cmd_env *env, const char *arg, const char **vg,
                          const char **lv)
{
    const char *s = arg;
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

int lvx_lvcmd_begin(struct lvx_cmd_env *env, const char *vgname, struct lvx_vg_update *u)
{
    struct lvx_scan_opts opts = {
        .devices = env->args->devices,
        .device_count = env->args->device_count,
    };
    if (lvx_vg_update_begin(env->ctx, &opts, vgname, LVX_UPDATE_KEEP_SET, u) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

int lvx_lvcmd_commit(struct lvx_cmd_env *env, struct lvx_vg_update *u)
{
    if (env->args->count[LVX_OPT_TEST]) {
        lvx_notice(env->ctx, "TEST MODE: Metadata will NOT be updated and volumes will not be "
                   "(de)activated.");
        return 0;
    }
    if (lvx_vg_update_commit(env->ctx, u, lvx_lvcmd_command_line(env)) < 0)
        return lvx_cmd_fail(env);
    return 0;
}

int lvx_lvcmd_free_maps(struct lvx_cmd_env *env, struct lvx_vg_update *u,
                        struct lvx_free_maps **maps)
{
    if (lvx_alloc_free_maps(env->ctx, env->pool, u->vg, maps) < 0)
        return lvx_cmd_fail(env);
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

/* ---- prompts and limits ----------------------------------------------------------- */

bool lvx_lvcmd_confirm(const char *question)
{
    char line[64];
    bool answer;
    if (lvx_cmd_ask_hook(question, &answer))    /* a shell or library session */
        return answer;
    printf("%s [y/n]: ", question);
    fflush(stdout);
    if (!fgets(line, sizeof(line), stdin)) {
        printf("\n");
        return false;
    }
    return line[0] == 'y' || line[0] == 'Y';
}

bool lvx_lvcmd_refuse_complex(const struct lvx_lv *lv, const char *what)
{
    const char *role = NULL;
    const struct lvx_seg *user = lvx_lv_used_by(lv, &role);
    if (user) {
        lvx_cmd_errorf("Can't %s logical volume %s/%s: it is used by %s/%s (%s).", what,
                       lv->vg->name, lv->name, user->lv->vg->name, user->lv->name,
                       role ? role : "sub-LV");
        return true;
    }
    for (unsigned i = 0; i < lv->seg_count; i++) {
        if (lv->segs[i].kind != LVX_SEG_STRIPED) {
            lvx_cmd_errorf("Can't %s logical volume %s/%s: lvx does not handle segment type "
                           "%s yet.", what, lv->vg->name, lv->name, lv->segs[i].type_name);
            return true;
        }
    }
    return false;
}
