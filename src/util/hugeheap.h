/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/hugeheap.h - back the top of the malloc heap with transparent huge pages.
 *
 * On some virtual machines the first touch of every fresh 4 KiB page costs 10-20 us
 * (shadow page tables): a command reading a thousand PVs touches a few thousand new
 * heap pages and spent most of its time faulting them in.  A 2 MiB huge page is one
 * fault.  Call once, early, from a program (not from the library: it changes how the
 * process's heap is backed).
 */
#ifndef LVX_UTIL_HUGEHEAP_H
#define LVX_UTIL_HUGEHEAP_H

#include <stddef.h>

/* malloc `bytes` and free them again, advising MADV_HUGEPAGE on the range: with
 * M_MMAP_THRESHOLD above `bytes` and M_TRIM_THRESHOLD above the heap (as lvx's main
 * sets them) the range stays at the top of the brk heap and later allocations are
 * carved from it.  Nothing is touched, so nothing is spent until used.  Harmless
 * when malloc mapped the block on its own (the advice then fails) or when the
 * kernel has transparent huge pages off.  Does nothing in an AddressSanitizer build:
 * its allocator maps the block on its own and poisons its shadow on malloc and again
 * on free, about 3000 page faults (100 ms of CPU here) per command for nothing. */
void lvx_hugeheap_reserve(size_t bytes);

#endif
