/* SPDX-License-Identifier: MIT */
/* regions.h — items 0..m-1 shared by n threads in regions: each thread takes the items of a
 * region of its own from the front, then items from the back of the region with the most
 * left, until none is left anywhere.
 *
 * For work whose results need no order while they are made (a count, parts merged after):
 * a thread's items are then mostly one stretch, where items taken in turn give every
 * thread some of everything. For the tokenizer that is the difference between each
 * thread's piece cache learning the pieces of one part of the text and learning those of
 * all of it (bench/THREADS.md: 2 threads, `count` on the corpus, 0.91x the CPU time).
 *
 * A region's items left are one atomic word, lo << 32 | hi, changed by compare-and-swap: its
 * owner takes lo (lo + 1), a thief hi - 1 (hi - 1), and no item is taken twice or missed.
 * Nothing blocks; nothing is printed.
 */
#ifndef G2E_REGIONS_H
#define G2E_REGIONS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define REGIONS_MAX_ITEMS 0xFFFFFFFFu /* the most items: each region's word holds two indices */

typedef struct region {
    _Alignas(128) _Atomic uint64_t left; /* (each on its own cache lines: two threads write it) */
} region;

typedef struct regions {
    region *r;  /* (n,) */
    unsigned n;
} regions;

/* m items in n equal regions (n >= 1; region i holds [m*i/n, m*(i+1)/n)). 0, or -1 when
 * out of memory or m > REGIONS_MAX_ITEMS (then *rs is empty and regions_free accepts it). */
int regions_init(regions *rs, size_t m, unsigned n);
/* The next item for thread `me` (< n): 1 with *k set, or 0 when every item has been taken. */
int regions_next(regions *rs, unsigned me, size_t *k);
void regions_free(regions *rs);

#endif
