/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/filter.c - LVM2-style accept/reject regex lists (see filter.h).
 */
#include "dev/filter.h"
#include "util/pool.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

struct filter_rule {
    bool accept;
    regex_t re;
};

struct lvx_filter {
    unsigned count;
    struct filter_rule *rules;
    struct lvx_filter *next;     /* a further list that must accept too */
};

/* Does re quantify a quantifier ("a++", ".**", "x*{2}")?  POSIX leaves such EREs
 * undefined, and glibc's regcomp() copies the expression once per repeat: a run of a
 * hundred '+' takes gigabytes (found by fuzz_config).  Escapes and bracket expressions
 * are skipped. */
static bool repeats_a_repeat(const char *re)
{
    bool after_quantifier = false;
    for (const char *p = re; *p; p++) {
        bool quantifier = *p == '*' || *p == '+' || *p == '?' || *p == '{';
        if (quantifier && after_quantifier)
            return true;
        if (*p == '\\' && p[1]) {
            p++;
        } else if (*p == '[') {                 /* to the closing ']' ("[]x]", "[^]x]") */
            const char *q = p + 1;
            q += *q == '^';
            q += *q == ']';
            while (*q && *q != ']')
                q++;
            p = *q ? q : p;
        } else if (*p == '{') {
            while (p[1] && *p != '}')
                p++;
        }
        after_quantifier = quantifier;
    }
    return false;
}

int lvx_filter_add(struct lvx_ctx *ctx, struct lvx_filter **f, const char *pattern)
{
    size_t len = strlen(pattern);
    if (len < 3 || (pattern[0] != 'a' && pattern[0] != 'r'))
        return lvx_error(ctx, EINVAL, "Invalid filter pattern \"%s\": it must start with "
                         "'a' or 'r' followed by a delimited regex", pattern);
    char delim = pattern[1];
    if (pattern[len - 1] != delim)
        return lvx_error(ctx, EINVAL, "Invalid filter pattern \"%s\": missing closing "
                         "delimiter '%c'", pattern, delim);
    char *re_text = lvx_xstrdup(pattern + 2);
    re_text[len - 3] = '\0';
    if (repeats_a_repeat(re_text)) {
        free(re_text);
        return lvx_error(ctx, EINVAL, "Invalid filter pattern \"%s\": a repetition of a "
                         "repetition (such as \"++\" or \"**\")", pattern);
    }
    struct filter_rule rule = { .accept = pattern[0] == 'a' };
    int rc = regcomp(&rule.re, re_text, REG_EXTENDED | REG_NOSUB);
    free(re_text);
    if (rc != 0) {
        char why[128];
        regerror(rc, &rule.re, why, sizeof(why));
        return lvx_error(ctx, EINVAL, "Invalid filter pattern \"%s\": %s", pattern, why);
    }
    if (!*f)
        *f = lvx_xcalloc(1, sizeof(**f));
    (*f)->rules = lvx_xrealloc((*f)->rules, ((*f)->count + 1) * sizeof(*(*f)->rules));
    (*f)->rules[(*f)->count++] = rule;
    return 0;
}

/* The verdict of one list: the first rule matching any name, else accept. */
static bool list_accepts(const struct lvx_filter *f, const char *const *names, unsigned count)
{
    for (unsigned r = 0; r < f->count; r++)
        for (unsigned n = 0; n < count; n++)
            if (names[n] && regexec(&f->rules[r].re, names[n], 0, NULL, 0) == 0)
                return f->rules[r].accept;
    return true;
}

bool lvx_filter_accepts(const struct lvx_filter *f, const char *const *names, unsigned count)
{
    for (; f; f = f->next)
        if (!list_accepts(f, names, count))
            return false;
    return true;
}

struct lvx_filter *lvx_filter_chain(struct lvx_filter *a, struct lvx_filter *b)
{
    if (!a)
        return b;
    struct lvx_filter *last = a;
    while (last->next)
        last = last->next;
    last->next = b;
    return a;
}

unsigned lvx_filter_count(const struct lvx_filter *f)
{
    unsigned n = 0;
    for (; f; f = f->next)
        n += f->count;
    return n;
}

void lvx_filter_free(struct lvx_filter *f)
{
    while (f) {
        struct lvx_filter *next = f->next;
        for (unsigned i = 0; i < f->count; i++)
            regfree(&f->rules[i].re);
        free(f->rules);
        free(f);
        f = next;
    }
}
