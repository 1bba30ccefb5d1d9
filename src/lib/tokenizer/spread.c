/* SPDX-License-Identifier: MIT */
/* spread.c — worker threads that start on another CPU (see spread.h). */
#define _GNU_SOURCE /* sched_getcpu, CPU_SET, pthread_attr_setaffinity_np */
#include "spread.h"

#include <stdlib.h>

/* What the new thread runs first: the caller's allowed set back, then fn. */
typedef struct start {
    void *(*fn)(void *);
    void *arg;
    cpu_set_t all;
} start;

static void *trampoline(void *p)
{
    start s = *(start *)p;
    free(p);
    /* (if this fails the thread stays on its one CPU, which still runs it) */
    pthread_setaffinity_np(pthread_self(), sizeof s.all, &s.all);
    return s.fn(s.arg);
}

int spread_cpu(const cpu_set_t *all, int me, unsigned k)
{
    int others = CPU_COUNT(all) - (CPU_ISSET(me, all) ? 1 : 0);
    if (others < 1)
        return -1;
    unsigned want = k % (unsigned)others;
    for (int i = 1; i < CPU_SETSIZE; i++) {
        int c = (me + i) % CPU_SETSIZE;
        if (CPU_ISSET(c, all) && want-- == 0)
            return c;
    }
    return -1;
}

int spread_create(pthread_t *th, void *(*fn)(void *), void *arg, unsigned k)
{
    int me = sched_getcpu(), cpu = -1;
    start *s = malloc(sizeof *s);
    if (s && me >= 0 && me < CPU_SETSIZE && sched_getaffinity(0, sizeof s->all, &s->all) == 0)
        cpu = spread_cpu(&s->all, me, k);
    pthread_attr_t at;
    if (cpu >= 0 && pthread_attr_init(&at) == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        s->fn = fn;
        s->arg = arg;
        int rc = pthread_attr_setaffinity_np(&at, sizeof one, &one) == 0 ? pthread_create(th, &at, trampoline, s) : -1;
        pthread_attr_destroy(&at);
        if (rc == 0)
            return 0; /* (s is the thread's to free) */
    }
    free(s);
    return pthread_create(th, NULL, fn, arg);
}

void spread_run(void *(*fn)(void *), void *items, size_t size, unsigned n, int run_unstarted)
{
    pthread_t th[SPREAD_MAX];
    int started[SPREAD_MAX] = {0};
    char *it = items;
    n = n > SPREAD_MAX ? SPREAD_MAX : n;
    for (unsigned k = 1; k < n; k++)
        started[k] = spread_create(&th[k], fn, it + k * size, k - 1) == 0;
    if (n)
        fn(it);
    for (unsigned k = 1; k < n; k++) {
        if (started[k])
            pthread_join(th[k], NULL);
        else if (run_unstarted)
            fn(it + k * size);
    }
}
