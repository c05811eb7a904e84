/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/test_config.c - lvm.conf handling (config/config.h) and device filters
 * (dev/filter.h): LVM2's documented filter rules (first matching pattern decides, any
 * delimiter, no match = accept, global_filter and filter must both accept), --config
 * merged over the file (values replace, sections merge, "a/b" keys), malformed input,
 * and the shell's word splitting (cmd/shell.h).
 */
#include "cmd/shell.h"
#include "config/config.h"
#include "dev/filter.h"
#include "tap.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct lvx_ctx ctx;

static bool accepts(const struct lvx_filter *f, const char *path)
{
    const char *names[1] = { path };
    return lvx_filter_accepts(f, names, 1);
}

static struct lvx_filter *make(const char *const *patterns)
{
    struct lvx_filter *f = NULL;
    for (; *patterns; patterns++)
        if (lvx_filter_add(&ctx, &f, *patterns) < 0)
            tap_diag("pattern %s: %s", *patterns, ctx.errmsg);
    return f;
}

static void test_filter_order(void)
{
    /* lvm.conf(5): the first pattern that matches decides; no match = accepted */
    const char *const p1[] = { "a|^/dev/loop1$|", "r|.*|", NULL };
    struct lvx_filter *f = make(p1);
    ok(accepts(f, "/dev/loop1"), "accept listed before reject-all: loop1 accepted");
    ok(!accepts(f, "/dev/loop10"), "anchored regex: loop10 rejected");
    ok(!accepts(f, "/dev/sda"), "reject-all catches the rest");
    lvx_filter_free(f);

    const char *const p2[] = { "r|.*|", "a|^/dev/loop1$|", NULL };
    f = make(p2);
    ok(!accepts(f, "/dev/loop1"), "reject-all first wins over a later accept");
    lvx_filter_free(f);

    const char *const p3[] = { "r|/dev/sd|", NULL };
    f = make(p3);
    ok(accepts(f, "/dev/loop3"), "no pattern matches: accepted");
    ok(!accepts(f, "/dev/sdb1"), "unanchored regex matches inside the path");
    lvx_filter_free(f);

    ok(accepts(NULL, "/dev/anything"), "no filter accepts everything");

    /* several names of one device: any name matching an earlier accept wins */
    const char *const p4[] = { "a|^/dev/disk/by-id/keep$|", "r|.*|", NULL };
    f = make(p4);
    const char *names[2] = { "/dev/loop7", "/dev/disk/by-id/keep" };
    ok(lvx_filter_accepts(f, names, 2), "an alias accepted by the first pattern");
    is_str(names[0], "/dev/disk/by-id/keep", "the accepting alias becomes the first name");
    is_str(names[1], "/dev/loop7", "... the others follow");
    lvx_filter_free(f);

    /* LVM2 judges each name on its own: rejecting the kernel name of a dm device does
     * not reject the device when its /dev/mapper name is accepted */
    const char *const p5[] = { "r|/dev/dm-|", "a|.*|", NULL };
    f = make(p5);
    const char *dm[2] = { "/dev/mapper/crypt", "/dev/dm-0" };
    ok(lvx_filter_accepts(f, dm, 2), "r|/dev/dm-| a|.*|: a dm device accepted by its mapper name");
    is_str(dm[0], "/dev/mapper/crypt", "... its first name stays");
    const char *dm_only[1] = { "/dev/dm-0" };
    ok(!lvx_filter_accepts(f, dm_only, 1), "... the kernel name alone is rejected");
    lvx_filter_free(f);
    const char *const p6[] = { "r|^/dev/mapper/|", "a|^/dev/dm-|", "r|.*|", NULL };
    f = make(p6);
    const char *dm2[2] = { "/dev/mapper/crypt", "/dev/dm-0" };
    ok(lvx_filter_accepts(f, dm2, 2), "a name rejected, another accepted: accepted");
    is_str(dm2[0], "/dev/dm-0", "... reported by the accepted name");
    const char *const p7[] = { "r|^/dev/mapper/|", "r|^/dev/dm-|", "a|.*|", NULL };
    lvx_filter_free(f);
    f = make(p7);
    const char *dm3[2] = { "/dev/mapper/crypt", "/dev/dm-0" };
    ok(!lvx_filter_accepts(f, dm3, 2), "every name rejected by an earlier pattern: rejected");
    lvx_filter_free(f);
}

/* The verdict LVM2's rule gives (each name judged by the first pattern matching it;
 * accepted when a name is, rejected when a name is rejected and none accepted, none
 * matched = accept), computed the plain way: every pattern compiled and tried in
 * order. */
static bool reference_accepts(const char *const *patterns, const char *const *names,
                              unsigned count)
{
    bool rejected = false;
    for (unsigned n = 0; n < count; n++) {
        if (!names[n])
            continue;
        for (const char *const *pp = patterns; *pp; pp++) {
            const char *p = *pp;
            size_t len = strlen(p);
            char re_text[256];
            snprintf(re_text, sizeof(re_text), "%.*s", (int)(len - 3), p + 2);
            regex_t re;
            if (regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB) != 0)
                return false;
            bool hit = regexec(&re, names[n], 0, NULL, 0) == 0;
            regfree(&re);
            if (!hit)
                continue;
            if (p[0] == 'a')
                return true;
            rejected = true;
            break;
        }
    }
    return !rejected;
}

/* Exact-name patterns are looked up in a hash and ".*" is a flag (dev/filter.c): the
 * verdicts must stay those of trying every regex in order, whatever the mix. */
static void test_filter_fast_paths(void)
{
    const char *const sets[][8] = {
        { "a|^/dev/loop1$|", "a|^/dev/loop2$|", "r|.*|", NULL },
        { "r|^/dev/loop1$|", "a|loop|", "r|.*|", NULL },
        { "a|loop1|", "r|^/dev/loop1$|", "r|^/dev/loop12$|", NULL },
        { "r|^/dev/loop2$|", "a|^/dev/loop2$|", "a|.*|", NULL },
        { "a|^/dev/mapper/a\\.b$|", "r|^/dev/mapper/a.b$|", "r|^.*$|", NULL },
        { "a|^/dev/loop1|", "r|/dev/loop1$|", "a|^/dev/loop$|", NULL },
        { "r|^/dev/x\\$|", "a|^/dev/x\\\\$|", "r|.*$|", NULL },
        { "a|^/dev/disk/by-id/keep$|", "r|^/dev/loop7$|", NULL },
    };
    const char *const names[] = { "/dev/loop1", "/dev/loop2", "/dev/loop12", "/dev/mapper/a.b",
                                  "/dev/mapper/axb", "/dev/loop", "/dev/x$", "/dev/x\\",
                                  "/dev/loop7", "/dev/disk/by-id/keep", "/dev/sda" };
    unsigned nnames = sizeof(names) / sizeof(names[0]);
    for (unsigned s = 0; s < sizeof(sets) / sizeof(sets[0]); s++) {
        struct lvx_filter *f = make(sets[s]);
        unsigned wrong = 0;
        for (unsigned a = 0; a < nnames; a++) {
            for (unsigned b = 0; b <= nnames; b++) {      /* b == nnames: one name only */
                const char *two[2] = { names[a], b < nnames ? names[b] : NULL };
                if (lvx_filter_accepts(f, two, 2) != reference_accepts(sets[s], two, 2)) {
                    tap_diag("set %u: %s + %s", s, two[0], two[1] ? two[1] : "-");
                    wrong++;
                }
            }
        }
        is_int(wrong, 0, "pattern set %u: verdicts of every name pair as trying each regex", s);
        lvx_filter_free(f);
    }

    /* a thousand exact patterns (one per device, as tests/lib.sh writes them) */
    struct lvx_filter *f = NULL;
    char pat[64], name[64];
    for (unsigned i = 0; i < 1000; i++) {
        snprintf(pat, sizeof(pat), "a|^/dev/loop%u$|", 7000 + 2 * i);
        lvx_filter_add(&ctx, &f, pat);
    }
    lvx_filter_add(&ctx, &f, "r|.*|");
    unsigned wrong = 0;
    for (unsigned i = 6900; i < 9100; i++) {
        snprintf(name, sizeof(name), "/dev/loop%u", i);
        bool want = i >= 7000 && i < 9000 && i % 2 == 0;
        wrong += accepts(f, name) != want;
    }
    is_int(wrong, 0, "1000 exact accepts + reject-all: exactly the listed devices");
    is_int(lvx_filter_count(f), 1001, "1001 patterns counted");
    lvx_filter_free(f);
}

static void test_filter_delimiters(void)
{
    const char *const p[] = { "a/loop2/", "r#^/dev/loop#", "a,x,", NULL };
    struct lvx_filter *f = make(p);
    is_int(lvx_filter_count(f), 3, "three patterns with different delimiters");
    ok(accepts(f, "/dev/loop2"), "'/' delimiter");
    ok(!accepts(f, "/dev/loop4"), "'#' delimiter");
    lvx_filter_free(f);

    f = NULL;
    ok(lvx_filter_add(&ctx, &f, "a|/dev/(sda|sdb)$|") == 0, "regex with '|' inside parentheses");
    ok(accepts(f, "/dev/sdb"), "alternation works");
    lvx_filter_free(f);

    f = NULL;
    ok(lvx_filter_add(&ctx, &f, "x|.*|") == -EINVAL, "pattern must start with a or r");
    ok(strstr(ctx.errmsg, "x|.*|") != NULL, "message names the pattern");
    ok(lvx_filter_add(&ctx, &f, "a|.*") == -EINVAL, "missing closing delimiter");
    ok(lvx_filter_add(&ctx, &f, "a|(|") == -EINVAL, "bad regex");
    ok(lvx_filter_add(&ctx, &f, "a") == -EINVAL, "too short");
    /* a repeated repetition: glibc's regcomp() takes gigabytes for a long run (fuzz_config) */
    ok(lvx_filter_add(&ctx, &f, "a|/e+++++++++++++++++++++++++++++++++++++++++/.*|") == -EINVAL,
       "a run of '+' is refused");
    ok(strstr(ctx.errmsg, "repetition of a repetition") != NULL, "saying why: %s", ctx.errmsg);
    ok(lvx_filter_add(&ctx, &f, "r|.**|") == -EINVAL, "'**' is refused");
    ok(lvx_filter_add(&ctx, &f, "r|x*{2}|") == -EINVAL, "'*{2}' is refused");
    ok(f == NULL, "no filter made from bad patterns");
    const char *const fine[] = { "a|^/dev/loop[0-9]+$|", "a|x{2}y*|", "a|[*+]+|", "a|\\++|",
                                 "a|[]+]*|", NULL };
    for (const char *const *q = fine; *q; q++)
        ok(lvx_filter_add(&ctx, &f, *q) == 0, "quantifiers that quantify no quantifier: %s", *q);
    ok(accepts(f, "/dev/loop12") && accepts(f, "+++"), "... and match as regexes");
    lvx_filter_free(f);
}

/* Write lvm.conf into a private system dir. */
static char sysdir[] = "/tmp/lvx-test-config.XXXXXX";

static void write_conf(const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/lvm.conf", sysdir);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_load_and_merge(void)
{
    if (!mkdtemp(sysdir)) {
        tap_skip("mkdtemp failed");
        return;
    }
    setenv("LVM_SYSTEM_DIR", sysdir, 1);
    write_conf("backup {\n backup = 0\n archive = 0\n retain_min = 4\n}\n"
               "devices {\n global_filter = [ \"a|^/dev/loop1$|\", \"r|.*|\" ]\n}\n");

    struct lvx_config *cfg = NULL;
    lvx_ctx_init(&ctx);
    ok(lvx_config_load(&ctx, &cfg) == 0, "load lvm.conf");
    is_int(lvx_config_int(cfg, "backup/backup", 1), 0, "file value read");
    is_int(lvx_config_int(cfg, "backup/retain_days", 30), 30, "absent key: default");
    struct lvx_filter *f = NULL;
    ok(lvx_config_device_filter(&ctx, cfg, &f) == 0 && f, "global_filter built");
    ok(accepts(f, "/dev/loop1") && !accepts(f, "/dev/loop2"), "global_filter from the file");
    lvx_filter_free(f);
    lvx_config_free(cfg);

    /* --config replaces values, merges sections, accepts a/b keys */
    ctx.config_override = "backup { backup = 1 } devices/filter = [ \"r|^/dev/loop1$|\" ] "
                          "lvx { activation_backend = \"user\" }";
    ok(lvx_config_load(&ctx, &cfg) == 0, "load with --config");
    is_int(lvx_config_int(cfg, "backup/backup", 0), 1, "--config value replaces the file's");
    is_int(lvx_config_int(cfg, "backup/archive", 1), 0, "other keys of the section kept");
    is_int(lvx_config_int(cfg, "backup/retain_min", 10), 4, "merged section keeps file keys");
    is_str(lvx_config_str(cfg, "lvx/activation_backend", "dm"), "user", "new section added");
    ok(lvx_config_device_filter(&ctx, cfg, &f) == 0, "both filters built");
    ok(!accepts(f, "/dev/loop1"), "filter rejects what global_filter accepts: both must accept");
    ok(!accepts(f, "/dev/loop2"), "global_filter still rejects the rest");
    lvx_filter_free(f);
    lvx_config_free(cfg);

    ctx.config_override = "backup/backup = 1 backup/backup = 0";
    ok(lvx_config_load(&ctx, &cfg) == 0, "repeated --config key");
    is_int(lvx_config_int(cfg, "backup/backup", 5), 0, "the last assignment wins");
    lvx_config_free(cfg);

    ctx.config_override = "devices { filter = [ \"q|x|\" ] }";
    ok(lvx_config_load(&ctx, &cfg) == 0, "bad pattern loads");
    ok(lvx_config_device_filter(&ctx, cfg, &f) == -EINVAL, "bad pattern: -EINVAL");
    ok(strstr(ctx.errmsg, "devices/filter") != NULL, "message names the setting");
    lvx_config_free(cfg);

    ctx.config_override = "devices {";
    ok(lvx_config_load(&ctx, &cfg) == -EINVAL, "unparsable --config: -EINVAL");
    ok(strncmp(ctx.errmsg, "--config:", 9) == 0, "message says --config");
    ctx.config_override = NULL;

    write_conf("backup { backup = ");
    ok(lvx_config_load(&ctx, &cfg) == -EINVAL, "unparsable lvm.conf: -EINVAL");
    ok(strstr(ctx.errmsg, "lvm.conf") != NULL, "message names the file");

    char path[256];
    snprintf(path, sizeof(path), "%s/lvm.conf", sysdir);
    unlink(path);
    ok(lvx_config_load(&ctx, &cfg) == 0, "missing lvm.conf: defaults");
    is_int(lvx_config_int(cfg, "backup/backup", 1), 1, "default when there is no file");
    lvx_config_free(cfg);
    rmdir(sysdir);
}

/* "a/b" keys become sections when merged: 64 of them nest as deep as the parser allows,
 * 65 are refused (found by fuzz/fuzz_config: `lvx config` printed an unreadable tree). */
static void test_merge_depth(void)
{
    char key[512] = "", conf[600];
    for (int i = 0; i < 64; i++)
        strcat(key, "a/");
    char over[600];
    snprintf(over, sizeof(over), "%sb = 1", key);
    lvx_ctx_init(&ctx);
    ok(lvx_config_check_override(&ctx, over) == 0, "--config with 64 a/ levels accepted");
    struct lvx_config *cfg = NULL;
    ctx.config_override = over;
    ok(lvx_config_load(&ctx, &cfg) == 0, "and loaded");
    lvx_config_free(cfg);
    snprintf(over, sizeof(over), "%sa/b = 1", key);
    ok(lvx_config_check_override(&ctx, over) == -EINVAL, "65 levels refused");
    ok(strstr(ctx.errmsg, "--config: Parse error at line 1: nesting too deep") != NULL,
       "message says --config and why");
    ok(lvx_config_load(&ctx, &cfg) == -EINVAL, "load refuses it too");
    snprintf(over, sizeof(over), "x { %sb = 1 }", key);
    ok(lvx_config_check_override(&ctx, over) == -EINVAL, "sections and a/ levels add up");
    ctx.config_override = NULL;

    memcpy(sysdir + strlen(sysdir) - 6, "XXXXXX", 6);   /* the template again */
    if (mkdtemp(sysdir) == NULL) {
        tap_skip("mkdtemp failed");
        return;
    }
    setenv("LVM_SYSTEM_DIR", sysdir, 1);
    snprintf(conf, sizeof(conf), "\n%sa/b = 1\n", key);
    write_conf(conf);
    ok(lvx_config_load(&ctx, &cfg) == -EINVAL, "lvm.conf with 65 levels refused");
    ok(strstr(ctx.errmsg, "lvm.conf: Parse error at line 2: nesting too deep") != NULL,
       "message names the file and the line");
    char path[256];
    snprintf(path, sizeof(path), "%s/lvm.conf", sysdir);
    unlink(path);
    rmdir(sysdir);
}

static void test_split(void)
{
    struct lvx_pool *pool = lvx_pool_create();
    const char *err;
    int argc;
    char **argv;
    ok(lvx_shell_split(pool, "  vgs   -o 'vg_name,vg_size'  \"a b\" c\\ d # comment", &argc,
                       &argv, &err) == 0, "split a line");
    is_int(argc, 5, "five words, comment dropped");
    is_str(argv[2], "vg_name,vg_size", "single quotes");
    is_str(argv[3], "a b", "double quotes keep blanks");
    is_str(argv[4], "c d", "backslash escapes a blank");
    ok(argv[5] == NULL, "argv NULL-terminated");
    ok(lvx_shell_split(pool, "echo \"x\\\"y\" 'p\\q'", &argc, &argv, &err) == 0 &&
       argc == 3 && strcmp(argv[1], "x\"y") == 0 && strcmp(argv[2], "p\\q") == 0,
       "\\\" inside double quotes; backslash literal inside single quotes");
    ok(lvx_shell_split(pool, "# only a comment", &argc, &argv, &err) == 0 && argc == 0,
       "comment line: no words");
    ok(lvx_shell_split(pool, "vgs 'open", &argc, &argv, &err) == -EINVAL && err,
       "unterminated quote is an error");
    ok(lvx_shell_split(pool, "a#b", &argc, &argv, &err) == 0 && argc == 1 &&
       strcmp(argv[0], "a#b") == 0, "'#' inside a word is not a comment");
    lvx_pool_destroy(pool);
}

int main(void)
{
    lvx_ctx_init(&ctx);
    test_filter_order();
    test_filter_delimiters();
    test_filter_fast_paths();
    test_load_and_merge();
    test_merge_depth();
    test_split();
    return tap_done();
}
