/* SPDX-License-Identifier: MIT */
/* bench_sinusoid.c — how long the sinusoidal encoding takes for GPT-2-sized inputs.
 *
 * No target in the issue for this part; the figures say what `--pe sinusoidal` costs next
 * to the main job's 2 ms lookup-and-add budget for 1024 tokens, and what the property
 * checks cost. Medians of several runs (the machine is shared: noisy).
 */
#include "sinusoid.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { RUNS = 9 };
static volatile double sink;

static double median(double *t)
{
    qsort(t, RUNS, sizeof *t, cmp);
    return t[RUNS / 2];
}

int main(void)
{
    enum { T = 1024, D = 768 };
    float *rows = malloc((size_t)T * D * sizeof *rows);
    double *curve = malloc(T * sizeof *curve);
    if (!rows || !curve)
        return 1;
    double t[RUNS];
    g2e_err e;

    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        for (size_t p = 0; p < T; p++)
            if (sin_row_f32(p, D, 10000.0, rows + p * D, &e))
                return 1;
        t[r] = now() - t0;
        sink += rows[(size_t)r * D];
    }
    double rows_ms = median(t) * 1e3;
    printf("sin_row_f32, 1024 positions x 768 (the rows `--pe sinusoidal` adds): median %.2f ms "
           "(%.1f ns per value)\n", rows_ms, rows_ms * 1e6 / ((double)T * D));

    sin_table tab;
    if (sin_table_init(&tab, D, 10000.0, &e))
        return 1;
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        for (size_t p = 0; p < T; p++)
            if (sin_table_row_f32(&tab, p, rows + p * D, &e))
                return 1;
        t[r] = now() - t0;
        sink += rows[(size_t)r * D];
    }
    sin_table_free(&tab);
    rows_ms = median(t) * 1e3;
    printf("sin_table_row_f32, the same rows with the denominators computed once: median %.2f ms "
           "(%.1f ns per value)\n", rows_ms, rows_ms * 1e6 / ((double)T * D));

    for (int r = 0; r < RUNS; r++) {
        double t0 = now(), worst;
        if (sin_check_rotation(512, 10000.0, 256, 64, &worst, NULL, NULL, NULL, &e))
            return 1;
        t[r] = now() - t0;
        sink += worst;
    }
    printf("sin_check_rotation, D=512, 256 positions x 64 offsets (the default): median %.1f ms\n",
           median(t) * 1e3);

    for (int r = 0; r < 3; r++) {
        double t0 = now();
        if (sin_by_distance(T, D, 10000.0, T - 1, curve, &e))
            return 1;
        t[r] = now() - t0;
        sink += curve[r];
    }
    qsort(t, 3, sizeof *t, cmp);
    printf("sin_by_distance, 1024 positions x 768, all distances: median of 3 %.0f ms\n",
           t[1] * 1e3);
    free(rows);
    free(curve);
    return 0;
}
