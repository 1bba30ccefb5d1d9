/* SPDX-License-Identifier: MIT */
/* pairs_ref.c — see pairs_ref.h. */
#include "pairs_ref.h"

#include <math.h>
#include <stdlib.h>

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double cos_rows(const fixture_opts *o, int which, uint64_t i, uint64_t j)
{
    double d = 0, a = 0, b = 0;
    for (size_t c = 0; c < o->n_embd; c++) {
        double x = fixture_expected(o, which, i, c), y = fixture_expected(o, which, j, c);
        d += x * y, a += x * x, b += y * y;
    }
    return d / (sqrt(a) * sqrt(b));
}

void pairs_ref_cosines(const fixture_opts *o, int which, size_t n, uint64_t seed, double *v)
{
    uint64_t s = seed, R = which == FIXTURE_WPE ? o->n_ctx : o->n_vocab;
    for (size_t k = 0; k < n;) {
        uint64_t i = next(&s) % R, j = next(&s) % R;
        if (i != j)
            v[k++] = cos_rows(o, which, i, j);
    }
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double pairs_ref_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
