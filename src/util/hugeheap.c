/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util/hugeheap.c - lvx_hugeheap_reserve() (see hugeheap.h).
 */
#include "util/hugeheap.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE (2u << 20)

#if defined(__SANITIZE_ADDRESS__)
void lvx_hugeheap_reserve(size_t bytes)
{
    (void)bytes;
}
#else
/* Keeps the heap below the first huge page allocated (see below). */
static void *below_first_huge_page;

void lvx_hugeheap_reserve(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p)
        return;
    char *brk_end = sbrk(0);
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
    free(p);          /* back to the top chunk of the heap (not trimmed: see hugeheap.h) */
    /* only the brk heap of glibc's malloc (not a sanitizer's or valgrind's allocator,
     * not a block malloc mapped on its own) */
    if (hi <= lo || brk_end == (char *)-1 || (uintptr_t)brk_end < (uintptr_t)p + bytes)
        return;
    if (madvise((void *)lo, hi - lo, MADV_HUGEPAGE) < 0)
        return;
    /* The top chunk now starts at p: fill up to the first huge page boundary with one
     * block that is never freed (at most 2 MiB of address space, one page touched), so
     * that what the program allocates next lies in the huge pages. */
    if (lo - (uintptr_t)p > 64)
        below_first_huge_page = malloc(lo - (uintptr_t)p - 32);
}
#endif
