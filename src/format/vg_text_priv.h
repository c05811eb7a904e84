/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * format/vg_text_priv.h - shared between vg_import.c and vg_export.c: the status and
 * flag vocabulary of lvm2-format.md §10.6, in the order LVM2 writes the words.
 */
#ifndef LVX_FORMAT_VG_TEXT_PRIV_H
#define LVX_FORMAT_VG_TEXT_PRIV_H

#include <stdbool.h>
#include <stdint.h>

struct lvx_flag_word {
    const char *word;
    uint32_t bit;      /* 0: accepted and ignored (legacy words) */
    bool in_flags;     /* written in "flags" (compatible) rather than "status" */
};

/* NULL-terminated tables */
extern const struct lvx_flag_word lvx_vg_flag_words[];
extern const struct lvx_flag_word lvx_pv_flag_words[];
extern const struct lvx_flag_word lvx_lv_flag_words[];

#endif
