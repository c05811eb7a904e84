/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd/pvck.h - what pvck's two files share: the state of one run on one device (or
 * image file) and the helpers of pvck.c (LVM2-style output lines, reads, the label
 * and pv_header walk) used by pvck_repair.c (--repairtype pv_header|metadata, --repair).
 */
#ifndef LVX_CMD_PVCK_H
#define LVX_CMD_PVCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/commands.h"

/* --settings (LVM2's names; offsets and sizes in bytes) */
struct pvck_settings {
    unsigned mda_num;                       /* 0 = not given */
    bool metadata_offset_set, seqno_set, mda_offset_set, mda_size_set, mda2_offset_set,
        mda2_size_set, device_size_set, data_offset_set, pvid_set;
    uint64_t metadata_offset, mda_offset, mda_size, mda2_offset, mda2_size, device_size,
        data_offset;
    uint32_t seqno;
    char pvid[33];                          /* 32 raw characters */
};

struct pvck {
    struct lvx_cmd_env *env;
    const char *name;
    int fd;
    uint64_t size;           /* bytes */
    uint64_t sector;         /* label sector */
    const char *tofile;      /* -f with --dump */
    /* from the pv_header (lvx_pvck_label) */
    bool found_label;        /* id and type right */
    unsigned mda_count;
    uint64_t mda_off[2], mda_size[2];
    bool errored;            /* an error line was printed */
    struct pvck_settings set;
};

/* "  msg" on stdout (LVM2's log_print). */
void lvx_pvck_say(struct pvck *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "  msg" on stderr, remembered (LVM2's log_error). */
void lvx_pvck_err(struct pvck *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* len bytes at off; false past the end or on an error. */
bool lvx_pvck_read(struct pvck *p, uint64_t off, size_t len, void *buf);
/* The label sector and pv_header: "CHECK:" lines for bad fields, every field when
 * print; fills found_label and the mda locations.  The number of problems. */
int lvx_pvck_label(struct pvck *p, bool print);
/* The pv_uuid field as LVM2 reads it (a C string, dashes skipped, 32 UUID chars). */
bool lvx_pvck_uuid_ok(const uint8_t *s, size_t max);
/* Does a line start a VG's metadata ("name {")?  The name's length, or 0. */
int lvx_pvck_vgname_start(const char *line);

/* pvck_repair.c: --repairtype pv_header / metadata and --repair, with the -f metadata
 * file (raw metadata text as --dump metadata -f writes it).  0, or LVX_EXIT_FAILED. */
int lvx_pvck_repair(struct pvck *p, const char *type);

#endif
