/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * model/uuid.c - LVM2 UUIDs (lvm2-format.md §11.1): 32 characters of a 64-letter
 * alphabet, written 6-4-4-4-4-4-6 with dashes in text.  Entry points:
 * lvx_uuid_parse(), lvx_uuid_raw_valid(), lvx_uuid_format(), lvx_uuid_generate().
 */
#include "model/model.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

static const char uuid_alphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!#";

/* generated UUIDs use only the first 62 letters, as LVM2 does */
#define UUID_GENERATED_LETTERS 62

/* c in uuid_alphabet (tested by ranges: this runs for every UUID character imported) */
static bool uuid_char_valid(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '!' || c == '#';
}

bool lvx_uuid_raw_valid(const char *raw)
{
    if (strnlen(raw, LVX_UUID_LEN + 1) != LVX_UUID_LEN)
        return false;
    unsigned bad = 0;
    for (unsigned i = 0; i < LVX_UUID_LEN; i++)     /* no early exit: the compiler vectorises */
        bad |= !uuid_char_valid(raw[i]);
    return !bad;
}

int lvx_uuid_parse(const char *text, char out[LVX_UUID_LEN + 1])
{
    size_t n = 0;

    if (!text)
        return -EINVAL;
    for (const char *p = text; *p; p++) {
        if (*p == '-')
            continue;
        if (n == LVX_UUID_LEN || !uuid_char_valid(*p))
            return -EINVAL;
        out[n++] = *p;
    }
    if (n != LVX_UUID_LEN)
        return -EINVAL;
    out[n] = '\0';
    return 0;
}

void lvx_uuid_format(const char *raw, char out[LVX_UUID_DASHED_LEN + 1])
{
    static const unsigned group[] = { 6, 4, 4, 4, 4, 4, 6 };
    size_t in = 0, o = 0;

    for (unsigned g = 0; g < sizeof(group) / sizeof(group[0]); g++) {
        if (g)
            out[o++] = '-';
        for (unsigned i = 0; i < group[g]; i++)
            out[o++] = raw[in++];
    }
    out[o] = '\0';
}

int lvx_uuid_generate(char out[LVX_UUID_LEN + 1])
{
    unsigned char rnd[LVX_UUID_LEN];
    size_t got = 0;

    while (got < sizeof(rnd)) {
        ssize_t r = getrandom(rnd + got, sizeof(rnd) - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        got += (size_t)r;
    }
    for (unsigned i = 0; i < LVX_UUID_LEN; i++)
        out[i] = uuid_alphabet[rnd[i] % UUID_GENERATED_LETTERS];
    out[LVX_UUID_LEN] = '\0';
    return 0;
}
