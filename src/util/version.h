/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/version.h - the lvx version: the one place it is written.  The Makefile reads
 * it from here for the shared library's file name and lvx.pc.
 */
#ifndef LVX_UTIL_VERSION_H
#define LVX_UTIL_VERSION_H

#define LVX_VERSION "0.1.0"

#endif
