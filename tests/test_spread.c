/* SPDX-License-Identifier: MIT */
/* test_spread.c — threads started on another CPU: which CPU is picked, that the thread runs
 * its function and ends up with its creator's whole allowed set (never left pinned), and the
 * plain pthread_create when only one CPU is allowed. */
#define _GNU_SOURCE
#include "spread.h"

#include <criterion/criterion.h>
#include <sched.h>
#include <string.h>

static cpu_set_t set_of(const int *cpus, int n)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    for (int i = 0; i < n; i++)
        CPU_SET(cpus[i], &s);
    return s;
}

Test(spread, the_cpu_is_another_allowed_one_in_turn)
{
    cpu_set_t s = set_of((int[]){0, 1}, 2);
    cr_expect_eq(spread_cpu(&s, 0, 0), 1);
    cr_expect_eq(spread_cpu(&s, 1, 0), 0);
    cr_expect_eq(spread_cpu(&s, 1, 5), 0);
    s = set_of((int[]){2, 5, 7, 11}, 4);
    cr_expect_eq(spread_cpu(&s, 5, 0), 7); /* after me, round robin, never me */
    cr_expect_eq(spread_cpu(&s, 5, 1), 11);
    cr_expect_eq(spread_cpu(&s, 5, 2), 2);
    cr_expect_eq(spread_cpu(&s, 5, 3), 7);
    cr_expect_eq(spread_cpu(&s, 3, 0), 5); /* the caller on a CPU outside the set: all four */
    cr_expect_eq(spread_cpu(&s, 3, 3), 2);
    cr_expect_eq(spread_cpu(&s, 3, 4), 5);
    s = set_of((int[]){4}, 1);
    cr_expect_eq(spread_cpu(&s, 4, 0), -1); /* no other CPU */
    cr_expect_eq(spread_cpu(&s, 0, 0), 4);
    CPU_ZERO(&s);
    cr_expect_eq(spread_cpu(&s, 0, 0), -1);
}

typedef struct seen {
    cpu_set_t mask;
    int got, ran;
} seen;

static void *record(void *arg)
{
    seen *v = arg;
    v->got = pthread_getaffinity_np(pthread_self(), sizeof v->mask, &v->mask);
    v->ran = 1;
    return v;
}

/* Starts k threads with spread_create; each must run, return its argument and hold `want`. */
static void expect_threads(const cpu_set_t *want, unsigned k)
{
    for (unsigned i = 0; i < k; i++) {
        seen v;
        memset(&v, 0, sizeof v);
        pthread_t th;
        cr_assert_eq(spread_create(&th, record, &v, i), 0);
        void *r = NULL;
        cr_assert_eq(pthread_join(th, &r), 0);
        cr_expect(r == &v && v.ran && v.got == 0);
        cr_expect(CPU_EQUAL(&v.mask, want), "thread %u: allowed on %d CPUs, its creator on %d", i,
                  CPU_COUNT(&v.mask), CPU_COUNT(want));
    }
}

Test(spread, the_thread_runs_and_gets_its_creators_whole_set)
{
    cpu_set_t all;
    cr_assert_eq(sched_getaffinity(0, sizeof all, &all), 0);
    expect_threads(&all, 3);
}

Test(spread, one_allowed_cpu_is_a_plain_thread)
{
    cpu_set_t all;
    cr_assert_eq(sched_getaffinity(0, sizeof all, &all), 0);
    int cpu = sched_getcpu();
    cr_assert(cpu >= 0);
    cpu_set_t one = set_of((int[]){cpu}, 1);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    expect_threads(&one, 2);
    sched_setaffinity(0, sizeof all, &all);
}

typedef struct item {
    int runs;
    pthread_t by;
} item;

static void *mark(void *arg)
{
    item *it = arg;
    it->runs++;
    it->by = pthread_self();
    return NULL;
}

/* Every item runs exactly once, item 0 in the calling thread, the others in threads of
 * their own; no item at all is no call. */
Test(spread, run_gives_each_item_one_run)
{
    item its[7] = {{0}};
    spread_run(mark, its, sizeof *its, 7, 1);
    for (int k = 0; k < 7; k++)
        cr_expect_eq(its[k].runs, 1, "item %d ran %d times", k, its[k].runs);
    cr_expect(pthread_equal(its[0].by, pthread_self()));
    for (int k = 1; k < 7; k++)
        cr_expect(!pthread_equal(its[k].by, pthread_self()), "item %d ran in the caller", k);
    spread_run(mark, its, sizeof *its, 0, 1);
    cr_expect_eq(its[0].runs, 1);
}
