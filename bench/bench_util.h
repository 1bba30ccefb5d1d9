/* SPDX-License-Identifier: MIT */
/* bench_util.h — timing and medians shared by the C benchmarks. */
#ifndef G2E_BENCH_UTIL_H
#define G2E_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../tests/fixture.h"
#include "model.h"

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

/* gpt2's embeddings-only file (wte [50257, 768] and wpe [1024, 768], every row filled with
 * the fixture's values: the layout `gpt2-embed download` writes), written once into the
 * build's tmp/ and shared by the benchmarks, then opened. NULL after printing "who: why". */
static inline g2e_model *bench_open_embeddings(const char *who)
{
    const char *path = G2E_TEST_TMP "/bench-embeddings-gpt2.safetensors";
    struct stat st;
    mkdir(G2E_TEST_TMP, 0755);
    if (stat(path, &st) != 0) {
        fixture_opts o;
        memset(&o, 0, sizeof o);
        o.n_vocab = 50257;
        o.n_ctx = 1024;
        o.n_embd = 768;
        o.dtype = ST_F32;
        char e[256];
        if (fixture_write(path, &o, e, sizeof e) != 0) {
            fprintf(stderr, "%s: %s\n", who, e);
            return NULL;
        }
    }
    g2e_model *m = NULL;
    g2e_err err;
    if (model_open(&m, path, &err) != 0) {
        fprintf(stderr, "%s: %s\n", who, err.msg);
        return NULL;
    }
    return m;
}

#endif
