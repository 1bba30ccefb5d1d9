/* SPDX-License-Identifier: MIT */
/* regions.c — items shared by threads in regions, stolen from at the back (see regions.h). */
#include "regions.h"

#include <stdlib.h>

int regions_init(regions *rs, size_t m, unsigned n)
{
    rs->r = NULL;
    rs->n = 0;
    if (n < 1 || m > REGIONS_MAX_ITEMS || !(rs->r = aligned_alloc(_Alignof(region), n * sizeof *rs->r)))
        return -1;
    rs->n = n;
    for (unsigned i = 0; i < n; i++)
        atomic_init(&rs->r[i].left, (uint64_t)(m * i / n) << 32 | (uint64_t)(m * (i + 1) / n));
    return 0;
}

/* An item of region r: from its front (its owner) or its back; 0 when it has none. */
static int take(region *r, int front, size_t *k)
{
    uint64_t v = atomic_load(&r->left);
    for (;;) {
        uint64_t lo = v >> 32, hi = v & 0xFFFFFFFFu;
        if (lo >= hi)
            return 0;
        uint64_t nv = front ? (lo + 1) << 32 | hi : lo << 32 | (hi - 1);
        if (atomic_compare_exchange_weak(&r->left, &v, nv)) {
            *k = front ? (size_t)lo : (size_t)(hi - 1);
            return 1;
        }
    }
}

int regions_next(regions *rs, unsigned me, size_t *k)
{
    if (me < rs->n && take(&rs->r[me], 1, k))
        return 1;
    for (;;) { /* the back of the region with the most left */
        unsigned best = rs->n;
        uint64_t most = 0;
        for (unsigned i = 0; i < rs->n; i++) {
            uint64_t v = atomic_load(&rs->r[i].left), lo = v >> 32, hi = v & 0xFFFFFFFFu;
            if (lo < hi && hi - lo > most)
                most = hi - lo, best = i;
        }
        if (best == rs->n)
            return 0;
        if (take(&rs->r[best], 0, k))
            return 1;
    }
}

void regions_free(regions *rs)
{
    free(rs->r);
    rs->r = NULL;
    rs->n = 0;
}
