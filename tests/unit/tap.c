/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/tap.c - TAP output and fixture access for the C unit tests (tap.h).
 */
#include "tap.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static int tests_run, tests_failed;

bool tap_ok(bool cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    tests_run++;
    printf("%s %d - ", cond ? "ok" : "not ok", tests_run);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond) {
        tests_failed++;
        printf("#   Failed at %s line %d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

bool tap_is_int(long long got, long long want, const char *file, int line)
{
    if (got == want)
        return true;
    printf("#   %s:%d: got %lld, expected %lld\n", file, line, got, want);
    return false;
}

bool tap_is_str(const char *got, const char *want, const char *file, int line)
{
    if (got && want && strcmp(got, want) == 0)
        return true;
    if (!got && !want)
        return true;
    printf("#   %s:%d: got '%s', expected '%s'\n", file, line, got ? got : "(null)",
           want ? want : "(null)");
    return false;
}

void tap_diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

void tap_skip(const char *why)
{
    tests_run++;
    printf("ok %d # skip %s\n", tests_run, why);
}

int tap_done(void)
{
    printf("1..%d\n", tests_run);
    if (tests_failed)
        printf("# %d of %d tests failed\n", tests_failed, tests_run);
    return tests_failed ? 1 : 0;
}

const char *fixture_dir(void)
{
    const char *d = getenv("LVX_FIXTURES");
    return d && *d ? d : "tests/fixtures/lvm2";
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *const *fixture_scenarios(void)
{
    static char *names[64];
    static int loaded;
    if (loaded)
        return (const char *const *)names;
    DIR *d = opendir(fixture_dir());
    int n = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && n < 63)
            if (e->d_name[0] == 'p' && e->d_name[1] >= '0' && e->d_name[1] <= '9')
                names[n++] = strdup(e->d_name);
        closedir(d);
    }
    qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
    names[n] = NULL;
    loaded = 1;
    return (const char *const *)names;
}

char *fixture_read_file(const char *scenario, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s/%s", fixture_dir(), scenario, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n - 1 == 0)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

uint8_t *fixture_read_gz(const char *scenario, const char *file, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s/%s", fixture_dir(), scenario, file);
    gzFile g = gzopen(path, "rb");
    if (!g)
        return NULL;
    size_t cap = 4 << 20, n = 0;
    uint8_t *buf = malloc(cap);
    int r;
    while ((r = gzread(g, buf + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)r;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    gzclose(g);
    if (len)
        *len = n;
    return buf;
}

/* crude manifest lookups: find "name": "<disk>" then the next "<key>": number */
static long long manifest_number_after(const char *manifest, const char *disk, const char *section,
                                       const char *key)
{
    char pat[128];
    snprintf(pat, sizeof(pat), "\"name\": \"%s\"", disk);
    const char *p = strstr(manifest, pat);
    if (!p)
        return -1;
    const char *end = strstr(p + 1, "\"name\": \"disk");
    if (section) {
        char sp[64];
        snprintf(sp, sizeof(sp), "\"%s\": {", section);
        p = strstr(p, sp);
        if (!p || (end && p > end))
            return -1;
    }
    char kp[64];
    snprintf(kp, sizeof(kp), "\"%s\": ", key);
    p = strstr(p, kp);
    if (!p || (end && p > end))
        return -1;
    return atoll(p + strlen(kp));
}

const char *const *fixture_disks(const char *scenario)
{
    static char names[16][16];
    static const char *ptrs[17];
    char *m = fixture_read_file(scenario, "manifest.json", NULL);
    int n = 0;
    for (int i = 1; m && i <= 16; i++) {
        char pat[64];
        snprintf(pat, sizeof(pat), "\"name\": \"disk%d\"", i);
        if (!strstr(m, pat))
            break;
        snprintf(names[n], sizeof(names[n]), "disk%d", i);
        ptrs[n] = names[n];
        n++;
    }
    ptrs[n] = NULL;
    free(m);
    return ptrs;
}

int fixture_build_image(const char *scenario, const char *disk, const char *path)
{
    char *m = fixture_read_file(scenario, "manifest.json", NULL);
    if (!m)
        return -1;
    long long size = manifest_number_after(m, disk, NULL, "image_size");
    long long tail_off = manifest_number_after(m, disk, "tail", "offset");
    free(m);
    if (size <= 0)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    int rc = ftruncate(fd, size);
    char name[64];
    size_t len;
    snprintf(name, sizeof(name), "%s.head.gz", disk);
    uint8_t *head = fixture_read_gz(scenario, name, &len);
    if (!head || pwrite(fd, head, len, 0) != (ssize_t)len)
        rc = -1;
    free(head);
    snprintf(name, sizeof(name), "%s.tail.gz", disk);
    uint8_t *tail = fixture_read_gz(scenario, name, &len);
    if (tail) {
        if (tail_off < 0 || pwrite(fd, tail, len, tail_off) != (ssize_t)len)
            rc = -1;
        free(tail);
    }
    close(fd);
    return rc;
}
