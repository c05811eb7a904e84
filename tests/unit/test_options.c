/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_options.c - the command-line parser (cmd/options.h): argv read as
 * getopt_long reads it (permutation, "--", "--name=value", abbreviations, short
 * clusters) with getopt's error wording, every value converted once by its kind
 * (y|n, numbers, sizes with their default unit, tags with '@', lists), LVM2's reason
 * lines for bad values, and no shared state: two threads parse at once.
 */
#include "tap.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "cmd/options.h"

static const enum lvx_opt_id lv_opts[] = {
    LVX_OPT_SIZE, LVX_OPT_EXTENTS, LVX_OPT_NAME, LVX_OPT_STRIPES, LVX_OPT_STRIPESIZE,
    LVX_OPT_ZERO, LVX_OPT_ADDTAG, LVX_OPT_DELTAG, LVX_OPT_ACTIVATE, LVX_OPT_OPTIONS,
    LVX_OPT_NOHEADINGS, LVX_OPT_NOSUFFIX, LVX_OPT_UNITS, LVX_OPT_COUNT,
};

struct parsed {
    struct lvx_pool *pool;
    struct lvx_ctx ctx;
    struct lvx_cmd_args a;
    int rc;
};

/* Parse a NULL-terminated argument list as "lvcreate ARGS". */
static void parse(struct parsed *p, const char *const *args)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "lvcreate";
    for (; *args; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    p->pool = lvx_pool_create();
    lvx_ctx_init(&p->ctx);
    p->rc = lvx_opts_parse(&p->ctx, p->pool, "lvcreate", lv_opts, argc, argv, &p->a);
}

#define PARSE(p, ...) parse(p, (const char *const[]){ __VA_ARGS__, NULL })

static void done(struct parsed *p)
{
    lvx_pool_destroy(p->pool);
}

static void test_argv_forms(void)
{
    struct parsed p;

    PARSE(&p, "vg1", "-L", "8m", "-n", "lv1", "pv1", "--zero=n", "-ay", "--", "-odd");
    is_int(p.rc, 0, "options and arguments mixed parse");
    is_int(p.a.argc, 3, "three positional arguments (one after --)");
    ok(p.a.argc == 3 && !strcmp(p.a.argv[0], "vg1") && !strcmp(p.a.argv[1], "pv1") &&
       !strcmp(p.a.argv[2], "-odd"), "positional arguments keep their order");
    is_int(p.a.val[LVX_OPT_SIZE].sectors, 16384, "-L 8m is 16384 sectors");
    ok(p.a.count[LVX_OPT_ZERO] == 1 && !p.a.val[LVX_OPT_ZERO].b, "--zero=n is false");
    ok(p.a.value[LVX_OPT_ACTIVATE] && !strcmp(p.a.value[LVX_OPT_ACTIVATE], "y"),
       "-ay: value attached to the short option");
    ok(!strcmp(p.a.value[LVX_OPT_NAME], "lv1"), "-n lv1");
    done(&p);

    PARSE(&p, "--stripes", "3", "--stripesize=64", "vg");
    is_int(p.rc, 0, "long options with separate and attached values");
    is_int(p.a.val[LVX_OPT_STRIPES].n, 3, "--stripes 3");
    is_int(p.a.val[LVX_OPT_STRIPESIZE].sectors, 128, "--stripesize 64: KiB by default");
    done(&p);

    /* as in LVM2: an option given twice is refused, unless countable or a list */
    PARSE(&p, "--stripes", "3", "-i4", "vg");
    is_int(p.rc, -EINVAL, "-i given twice is refused");
    ok(p.a.parse_error, "... with LVM2's 'Error during parsing' line to follow");
    done(&p);
    PARSE(&p, "-v", "-vv", "--addtag", "a", "--addtag", "b", "vg");
    is_int(p.rc, 0, "-v and --addtag may be repeated");
    is_int(p.a.count[LVX_OPT_VERBOSE], 3, "-v -vv counted three times");
    done(&p);

    PARSE(&p, "--nosuf", "--noh", "--unit", "k", "vg");
    is_int(p.rc, 0, "unambiguous abbreviations");
    ok(p.a.count[LVX_OPT_NOSUFFIX] && p.a.count[LVX_OPT_NOHEADINGS], "--nosuf, --noh found");
    is_int(p.a.units, 'k', "--unit k: --units");
    done(&p);

    PARSE(&p, "-o", "name", "-o+size", "--addtag", "@a", "--addtag", "b", "vg");
    is_int(p.rc, 0, "repeated list and tag options");
    ok(!strcmp(p.a.value[LVX_OPT_OPTIONS], "name,+size"), "-o values joined with ','");
    is_int(p.a.val[LVX_OPT_ADDTAG].item_count, 2, "two tags");
    ok(p.a.val[LVX_OPT_ADDTAG].item_count == 2 &&
       !strcmp(p.a.val[LVX_OPT_ADDTAG].items[0], "a") &&
       !strcmp(p.a.val[LVX_OPT_ADDTAG].items[1], "b"), "'@' stripped from @a");
    done(&p);
}

static void test_errors(void)
{
    struct parsed p;

    PARSE(&p, "--no", "vg");
    is_int(p.rc, -22, "an ambiguous abbreviation is refused");
    ok(strstr(p.ctx.errmsg, "option '--no' is ambiguous; possibilities: '--noheadings' "
                            "'--nosuffix'") != NULL, "worded as getopt: %s", p.ctx.errmsg);
    done(&p);

    PARSE(&p, "--nosuffix=1");
    ok(p.rc < 0 && strstr(p.ctx.errmsg, "option '--nosuffix' doesn't allow an argument"),
       "a flag with =value: %s", p.ctx.errmsg);
    done(&p);

    PARSE(&p, "--foo");
    ok(p.rc < 0 && strstr(p.ctx.errmsg, "lvx lvcreate: unrecognized option '--foo'"),
       "unknown long option: %s", p.ctx.errmsg);
    done(&p);

    PARSE(&p, "-Q");
    ok(p.rc < 0 && strstr(p.ctx.errmsg, "invalid option -- 'Q'"), "unknown short option");
    done(&p);

    PARSE(&p, "vg", "-L");
    ok(p.rc < 0 && strstr(p.ctx.errmsg, "option requires an argument -- 'L'"),
       "missing value of a short option");
    done(&p);

    PARSE(&p, "--size");
    ok(p.rc < 0 && strstr(p.ctx.errmsg, "option '--size' requires an argument"),
       "missing value of a long option");
    done(&p);

    PARSE(&p, "--zero", "maybe");
    ok(p.rc < 0 && !strcmp(p.ctx.errmsg, "Invalid argument for --zero: maybe") && !p.a.reason,
       "bad y|n: %s", p.ctx.errmsg);
    done(&p);

    PARSE(&p, "-i", "-1");
    ok(p.rc < 0 && !strcmp(p.ctx.errmsg, "Invalid argument for --stripes: -1"),
       "a number takes no sign");
    done(&p);

    PARSE(&p, "-L", "4x");
    ok(p.rc < 0 && p.a.reason && !strcmp(p.a.reason, "Can't parse size argument."),
       "bad size: LVM2's reason line");
    done(&p);

    PARSE(&p, "-L", "1000b");
    ok(p.rc < 0 && p.a.reason &&
       !strcmp(p.a.reason, "Size is not a multiple of 512. Try using 512 or 1024."),
       "bytes not a multiple of 512: %s", p.a.reason ? p.a.reason : "(none)");
    done(&p);

    PARSE(&p, "--addtag", "b@d");
    ok(p.rc < 0 && !strcmp(p.ctx.errmsg, "Invalid argument for --addtag: b@d"), "bad tag");
    done(&p);

    PARSE(&p, "-l", "5%XX");
    ok(p.rc < 0 && p.a.reason && !strcmp(p.a.reason, "Specified %XX is unknown."),
       "unknown percentage base, named as LVM2 names it");
    done(&p);
}

static void test_values(void)
{
    struct lvx_opt_val v;
    const char *reason;
    is_int(lvx_opt_parse_size("1.3k", 'm', &v, &reason), 0, "1.3k parses");
    ok(v.sectors == 3 && v.sectors_floor == 2, "1.3k: 3 sectors rounded up, 2 truncated");
    is_int(lvx_opt_parse_size("", 'm', &v, &reason), -22, "empty size refused");
    ok(reason && !strcmp(reason, "Size requires number argument."), "with LVM2's reason");
    uint64_t n;
    ok(lvx_opt_parse_number("4294967295", UINT32_MAX, &n) == 0 && n == 4294967295u,
       "UINT32_MAX is a number");
    ok(lvx_opt_parse_number("4294967296", UINT32_MAX, &n) < 0, "UINT32_MAX + 1 is not");
    ok(lvx_opt_parse_number("+1", UINT32_MAX, &n) < 0, "no sign");
}

/* Two threads parse different command lines 2000 times each: every result must be
 * its own (a parser with global state, as getopt has, mixes them up). */
static void *parse_loop(void *arg)
{
    const char *size = arg;
    for (int i = 0; i < 2000; i++) {
        struct parsed p;
        PARSE(&p, "-n", "x", "vg", "-L", size, "-an");
        uint64_t want = size[0] == '1' ? 2048 : 4096;
        bool good = p.rc == 0 && p.a.val[LVX_OPT_SIZE].sectors == want && p.a.argc == 1;
        done(&p);
        if (!good)
            return (void *)1;
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t t1, t2;
    void *r1, *r2;
    pthread_create(&t1, NULL, parse_loop, "1m");
    pthread_create(&t2, NULL, parse_loop, "2m");
    pthread_join(t1, &r1);
    pthread_join(t2, &r2);
    ok(r1 == NULL && r2 == NULL, "two threads parsing at once get their own results");
}

int main(void)
{
    test_argv_forms();
    test_errors();
    test_values();
    test_threads();
    return tap_done();
}
