/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/version.h - the lvx version: the one place it is written.  The Makefile reads
 * it from here for the shared library's file name and lvx.pc.
 */
#ifndef LVX_UTIL_VERSION_H
#define LVX_UTIL_VERSION_H

#define LVX_VERSION "0.1.0"

/* The LVM2 release whose on-disk formats, commands, options and reports lvx follows
 * (the oracle of the tests).  `lvx version` states it on LVM2's "LVM version:" line,
 * which programs driving LVM (libblockdev, lvm2-dbusd) parse to choose features. */
#define LVX_LVM2_VERSION "2.03.16(2)"
/* That release's date, which LVM2 prints after it and Ansible's lvol module requires
 * (it matches "LVM version: X.Y.Z...YYYY-MM-DD" and fails without the date). */
#define LVX_LVM2_DATE "2022-05-18"

#endif
