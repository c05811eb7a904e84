/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tests/unit/tap.h - a tiny TAP producer for the C unit tests (run by prove), and
 * fixture helpers: the LVM2-made images of tests/fixtures/lvm2 (gzip'd heads/tails).
 */
#ifndef LVX_TESTS_TAP_H
#define LVX_TESTS_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ok(cond, "what it checks") - prints "ok N - ..." or "not ok N - ..."; returns cond. */
bool tap_ok(bool cond, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) \
    (tap_is_int((long long)(got), (long long)(want), __FILE__, __LINE__) ? ok(1, __VA_ARGS__) : ok(0, __VA_ARGS__))
#define is_str(got, want, ...) \
    (tap_is_str((got), (want), __FILE__, __LINE__) ? ok(1, __VA_ARGS__) : ok(0, __VA_ARGS__))
bool tap_is_int(long long got, long long want, const char *file, int line);
bool tap_is_str(const char *got, const char *want, const char *file, int line);
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tap_skip(const char *why);
/* Print the plan ("1..N") and return the exit status: 0 if every test passed. */
int tap_done(void);

/* Directory of the fixtures: $LVX_FIXTURES or tests/fixtures/lvm2 (run from the repo root). */
const char *fixture_dir(void);
/* Scenario names (p01_single_default, ...), NULL-terminated, in order. */
const char *const *fixture_scenarios(void);
/* Read a whole file of a scenario (e.g. "backup-vg02.vg"); NUL-terminated; caller frees. */
char *fixture_read_file(const char *scenario, const char *name, size_t *len);
/* Decompress "<disk>.head.gz" / "<disk>.tail.gz" of a scenario; NULL if absent. Caller frees. */
uint8_t *fixture_read_gz(const char *scenario, const char *file, size_t *len);
/* Rebuild a full image of a disk (from manifest sizes) as a sparse file at `path`:
 * returns 0 or -1. image_size is taken from the manifest. */
int fixture_build_image(const char *scenario, const char *disk, const char *path);
/* Names of the disks of a scenario (disk1, disk2...), NULL-terminated, static storage. */
const char *const *fixture_disks(const char *scenario);

#endif
