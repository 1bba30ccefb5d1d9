/* bench_util.h — timing and medians shared by the C benchmarks. */
#ifndef G2E_BENCH_UTIL_H
#define G2E_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

/* Monotonic wall clock in milliseconds. */
static inline double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts t[n] and returns its median (the upper one for even n). */
static inline double bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
    return t[n / 2];
}

#endif
