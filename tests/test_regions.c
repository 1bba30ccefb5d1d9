/* SPDX-License-Identifier: MIT */
/* test_regions.c — items shared by threads in regions: every item taken exactly once by
 * threads at once, a thread's own region from its front first, thefts from the back, the
 * limits (no items, one region, too many items). */
#include "regions.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>

Test(regions, one_thread_takes_its_region_then_the_others_backs)
{
    regions rs;
    cr_assert_eq(regions_init(&rs, 10, 3), 0); /* [0,3) [3,6) [6,10) */
    size_t k, got[10], n = 0;
    while (regions_next(&rs, 0, &k))
        got[n++] = k;
    cr_assert_eq(n, 10);
    static const size_t want[10] = {0, 1, 2, 9, 5, 8, 4, 7, 3, 6}; /* the most left, from its back */
    for (size_t i = 0; i < 10; i++)
        cr_expect_eq(got[i], want[i], "item %zu: %zu, want %zu", i, got[i], want[i]);
    cr_expect_eq(regions_next(&rs, 2, &k), 0);
    regions_free(&rs);
}

Test(regions, limits)
{
    regions rs;
    size_t k;
    cr_assert_eq(regions_init(&rs, 0, 2), 0);
    cr_expect_eq(regions_next(&rs, 0, &k), 0);
    cr_expect_eq(regions_next(&rs, 1, &k), 0);
    regions_free(&rs);
    cr_assert_eq(regions_init(&rs, 5, 1), 0);
    for (size_t i = 0; i < 5; i++)
        cr_expect(regions_next(&rs, 0, &k) && k == i);
    cr_expect_eq(regions_next(&rs, 0, &k), 0);
    regions_free(&rs);
    cr_expect_eq(regions_init(&rs, 3, 0), -1);
    cr_expect_eq(regions_init(&rs, (size_t)REGIONS_MAX_ITEMS + 1, 2), -1);
    cr_expect(rs.r == NULL && rs.n == 0);
    regions_free(&rs); /* an empty one is accepted */
}

#define ITEMS 200000u
#define THREADS 4

typedef struct runner {
    regions *rs;
    unsigned me;
    _Atomic unsigned char *seen; /* (ITEMS,) times taken */
    size_t own_last, own_taken;  /* the last item of its own region it took, how many */
    int own_in_order;
} runner;

static void *run(void *arg)
{
    runner *r = arg;
    size_t lo = (size_t)ITEMS * r->me / THREADS, hi = (size_t)ITEMS * (r->me + 1) / THREADS;
    r->own_in_order = 1;
    for (size_t k; regions_next(r->rs, r->me, &k);) {
        atomic_fetch_add(&r->seen[k], 1);
        if (k >= lo && k < hi && r->own_taken++ < 100) { /* its first items: its own, in order */
            r->own_in_order &= r->own_taken == 1 ? k == lo : k == r->own_last + 1;
            r->own_last = k;
        }
    }
    return NULL;
}

Test(regions, threads_at_once_take_every_item_once, .timeout = 60)
{
    for (int round = 0; round < 20; round++) {
        regions rs;
        cr_assert_eq(regions_init(&rs, ITEMS, THREADS), 0);
        _Atomic unsigned char *seen = calloc(ITEMS, sizeof *seen);
        cr_assert(seen != NULL);
        runner rn[THREADS];
        pthread_t th[THREADS];
        for (unsigned i = 0; i < THREADS; i++) {
            rn[i] = (runner){&rs, i, seen, 0, 0, 0};
            cr_assert_eq(pthread_create(&th[i], NULL, run, &rn[i]), 0);
        }
        for (unsigned i = 0; i < THREADS; i++)
            pthread_join(th[i], NULL);
        size_t bad = 0;
        for (size_t k = 0; k < ITEMS; k++)
            bad += atomic_load(&seen[k]) != 1;
        cr_assert_eq(bad, 0, "round %d: %zu items not taken exactly once", round, bad);
        for (unsigned i = 0; i < THREADS; i++)
            cr_expect(rn[i].own_in_order, "round %d: thread %u took its own region out of order", round, i);
        free(seen);
        regions_free(&rs);
    }
}
