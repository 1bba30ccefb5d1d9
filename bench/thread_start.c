/* SPDX-License-Identifier: MIT */
/* thread_start.c — how long a new thread waits before it first runs, while its creator keeps
 * its own CPU busy (as tok_stream's caller does): pthread_create against spread_create
 * (src/lib/tokenizer/spread.h), alternating, medians and quartiles. bench/THREADS.md has the figures
 * of this machine. Not part of `make bench` (it measures the machine, not the program):
 *   make build/bench/thread_start && build/bench/thread_start [rounds]
 */
#include "spread.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static atomic_int started;
static double start_ms;

static void *note_start(void *arg)
{
    (void)arg;
    start_ms = now_ms();
    atomic_store(&started, 1);
    return NULL;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One creation: ms from the call to the thread's first instruction, the creator spinning. */
static double once(int spread)
{
    atomic_store(&started, 0);
    pthread_t th;
    double t0 = now_ms();
    if ((spread ? spread_create(&th, note_start, NULL, 0) : pthread_create(&th, NULL, note_start, NULL)) != 0)
        return -1;
    while (!atomic_load(&started))
        ; /* the creator keeps its CPU busy */
    double d = start_ms - t0;
    pthread_join(th, NULL);
    struct timespec pause = {0, 20 * 1000 * 1000}; /* the other CPU idle again */
    nanosleep(&pause, NULL);
    return d;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    rounds = rounds < 1 ? 1 : rounds > 1000 ? 1000 : rounds;
    double *d[2] = {malloc((size_t)rounds * sizeof(double)), malloc((size_t)rounds * sizeof(double))};
    if (!d[0] || !d[1])
        return 1;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            int which = (r + k) % 2;
            if ((d[which][r] = once(which)) < 0) {
                fprintf(stderr, "thread_start: cannot create a thread\n");
                return 1;
            }
        }
    static const char *const name[] = {"pthread_create", "spread_create"};
    printf("a new thread's wait before it runs, creator busy, %d creations each (ms):\n", rounds);
    for (int k = 0; k < 2; k++) {
        qsort(d[k], (size_t)rounds, sizeof(double), cmp_d);
        printf("  %-15s median %.3f [%.3f-%.3f], max %.3f\n", name[k], d[k][rounds / 2], d[k][rounds / 4],
               d[k][3 * rounds / 4], d[k][rounds - 1]);
    }
    free(d[0]), free(d[1]);
    return 0;
}
