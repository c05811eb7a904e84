/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dev/filter.c - LVM2-style accept/reject regex lists (see filter.h).
 *
 * Cost independent of the number of patterns where it can be: a pattern that names one
 * device exactly ("a|^/dev/loop7$|": anchored at both ends, no special character but
 * escaped punctuation) is not compiled but kept as its text in a hash table, and a
 * pattern matching every name (".*", "^.*$") as a flag.  A name's verdict is then
 * the lowest-numbered of: the exact pattern naming it (one hash lookup) and the
 * regexes before it, tried in order.  A configuration of one pattern
 * per device plus "r|.*|" costs two lookups and one flag test per device instead of
 * one regexec per pattern.
 */
#include "dev/filter.h"
#include "util/pool.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

enum rule_kind { RULE_REGEX, RULE_EXACT, RULE_ALL };

struct filter_rule {
    bool accept;
    enum rule_kind kind;
    regex_t re;                  /* RULE_REGEX */
    char *exact;                 /* RULE_EXACT: the one name it matches */
};

struct lvx_filter {
    unsigned count;
    struct filter_rule *rules;
    unsigned *tried;             /* indices of the rules that are not RULE_EXACT, in order */
    unsigned tried_count;
    unsigned *slots;             /* open-addressing hash of the RULE_EXACT rules: index + 1, */
    unsigned slot_count;         /* 0 = empty; a power of two, at most half full */
    unsigned exact_count;
    struct lvx_filter *next;     /* a further list that must accept too */
};

static uint64_t name_hash(const char *s)
{
    uint64_t h = 14695981039346656037ull;            /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Put exact rule r into the hash; an earlier rule of the same name keeps its slot (the
 * first matching rule decides). */
static void slot_insert(struct lvx_filter *f, unsigned r)
{
    unsigned mask = f->slot_count - 1;
    for (unsigned i = (unsigned)name_hash(f->rules[r].exact) & mask;; i = (i + 1) & mask) {
        if (!f->slots[i]) {
            f->slots[i] = r + 1;
            return;
        }
        if (strcmp(f->rules[f->slots[i] - 1].exact, f->rules[r].exact) == 0)
            return;
    }
}

static void slots_grow(struct lvx_filter *f)
{
    free(f->slots);
    f->slot_count = f->slot_count ? f->slot_count * 2 : 64;
    f->slots = lvx_xcalloc(f->slot_count, sizeof(*f->slots));
    for (unsigned r = 0; r < f->count; r++)
        if (f->rules[r].kind == RULE_EXACT)
            slot_insert(f, r);
}

/* The lowest index of an exact rule naming `name`, or UINT_MAX. */
static unsigned exact_lookup(const struct lvx_filter *f, const char *name)
{
    if (!f->exact_count)
        return UINT_MAX;
    unsigned mask = f->slot_count - 1;
    for (unsigned i = (unsigned)name_hash(name) & mask; f->slots[i]; i = (i + 1) & mask)
        if (strcmp(f->rules[f->slots[i] - 1].exact, name) == 0)
            return f->slots[i] - 1;
    return UINT_MAX;
}

/* The name an ERE matches exactly and only ("^/dev/sda$", "^/dev/mapper/a\.b$"), or
 * NULL when it has any other special meaning.  Allocated. */
static char *exact_name(const char *re)
{
    size_t len = strlen(re);
    if (len < 3 || re[0] != '^' || re[len - 1] != '$')
        return NULL;
    char *out = lvx_xmalloc(len);
    size_t n = 0;
    for (size_t i = 1; i < len - 1; i++) {
        char c = re[i];
        if (c == '\\') {
            c = re[++i];
            /* an escaped punctuation character is itself; "\\w", "\\1", a trailing
             * backslash before the '$' are something else */
            if (i >= len - 1 || !strchr("./-_+*?()[]{}|^$\\:@,=~#%&!<>'\" ", c))
                goto not_exact;
        } else if (strchr(".[]()*+?{}|^$", c)) {
            goto not_exact;
        }
        out[n++] = c;
    }
    if (n == 0)
        goto not_exact;
    out[n] = '\0';
    return out;
not_exact:
    free(out);
    return NULL;
}

/* Does the ERE match every string (".*" anchored or not)? */
static bool matches_all(const char *re)
{
    return !strcmp(re, ".*") || !strcmp(re, "^.*") || !strcmp(re, ".*$") || !strcmp(re, "^.*$");
}

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
    struct filter_rule rule = { .accept = pattern[0] == 'a', .kind = RULE_REGEX };
    if ((rule.exact = exact_name(re_text)) != NULL) {
        rule.kind = RULE_EXACT;
    } else if (matches_all(re_text)) {
        rule.kind = RULE_ALL;
    } else {
        int rc = regcomp(&rule.re, re_text, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[128];
            regerror(rc, &rule.re, why, sizeof(why));
            free(re_text);
            return lvx_error(ctx, EINVAL, "Invalid filter pattern \"%s\": %s", pattern, why);
        }
    }
    free(re_text);
    if (!*f)
        *f = lvx_xcalloc(1, sizeof(**f));
    struct lvx_filter *l = *f;
    unsigned r = l->count;
    l->rules = lvx_xrealloc(l->rules, (r + 1) * sizeof(*l->rules));
    l->rules[l->count++] = rule;
    if (rule.kind == RULE_EXACT) {
        if (++l->exact_count * 2 > l->slot_count)
            slots_grow(l);               /* re-inserts every exact rule, r included */
        else
            slot_insert(l, r);
    } else {
        l->tried = lvx_xrealloc(l->tried, (l->tried_count + 1) * sizeof(*l->tried));
        l->tried[l->tried_count++] = r;
    }
    return 0;
}

/* The first rule matching one name: its index, or UINT_MAX when none does. */
static unsigned first_match(const struct lvx_filter *f, const char *name)
{
    unsigned first_exact = exact_lookup(f, name);
    for (unsigned t = 0; t < f->tried_count && f->tried[t] < first_exact; t++) {
        const struct filter_rule *rule = &f->rules[f->tried[t]];
        if (rule->kind == RULE_ALL || regexec(&rule->re, name, 0, NULL, 0) == 0)
            return f->tried[t];
    }
    return first_exact;
}

/* The verdict of one list, as LVM2's regex filter gives it: each name is judged by the
 * first rule matching it; the device is accepted when one of its names is, rejected
 * when a name is rejected and none accepted, and accepted when no rule matches any
 * name ("r|/dev/dm-|" does not reject a dm device whose /dev/mapper name an "a|.*|"
 * accepts). */
static bool list_accepts(const struct lvx_filter *f, const char **names, unsigned count)
{
    bool rejected = false;
    for (unsigned n = 0; n < count; n++) {
        unsigned r = names[n] ? first_match(f, names[n]) : UINT_MAX;
        if (r == UINT_MAX)
            continue;
        if (f->rules[r].accept) {
            const char *by = names[n];       /* LVM2's new preferred name */
            memmove(&names[1], &names[0], n * sizeof(*names));
            names[0] = by;
            return true;
        }
        rejected = true;
    }
    return !rejected;
}

bool lvx_filter_accepts(const struct lvx_filter *f, const char **names, unsigned count)
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
        for (unsigned i = 0; i < f->count; i++) {
            if (f->rules[i].kind == RULE_REGEX)
                regfree(&f->rules[i].re);
            free(f->rules[i].exact);
        }
        free(f->rules);
        free(f->tried);
        free(f->slots);
        free(f);
        f = next;
    }
}
