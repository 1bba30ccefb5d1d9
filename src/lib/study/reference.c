/* SPDX-License-Identifier: MIT */
/* reference.c — the median cosine of random row pairs (see reference.h). */
#include "reference.h"

#include "similarity.h"

#include <stdlib.h>

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int row(const g2e_model *m, int which, uint64_t r, float *out, g2e_err *err)
{
    return which ? model_wpe_row(m, r, out, err) : model_wte_row(m, r, out, err);
}

int ref_median_cosine(const g2e_model *m, int which, size_t n_pairs, uint64_t seed,
                      double *median, size_t *used, g2e_err *err)
{
    if (n_pairs == 0 || n_pairs > SIZE_MAX / 4 / sizeof(double))
        return g2e_fail(err, G2E_EINVAL, "the number of random pairs must be from 1 to %zu",
                        SIZE_MAX / 4 / sizeof(double));
    size_t R = which ? m->n_ctx : m->n_vocab, C = m->n_embd, k = 0;
    if (R < 2)
        return g2e_fail(err, REF_E_FEW_ROWS, "%s has fewer than two rows", which ? "wpe" : "wte");
    double *cos = malloc(n_pairs * sizeof *cos);
    float *a = malloc(2 * C * sizeof *a);
    int rc = 0;
    if (!cos || !a) {
        rc = g2e_fail(err, G2E_ENOMEM, "out of memory for %zu random pairs", n_pairs);
        goto done;
    }
    float *b = a + C;
    uint64_t s = seed;
    for (size_t tries = 0; k < n_pairs && tries < 4 * n_pairs; tries++) {
        uint64_t i = splitmix64(&s) % R, j = splitmix64(&s) % R;
        if (i == j)
            continue;
        if ((rc = row(m, which, i, a, err)) || (rc = row(m, which, j, b, err)))
            goto done;
        if (sim_norm(a, C) == 0.0 || sim_norm(b, C) == 0.0)
            continue;
        if ((rc = sim_cosine(a, b, C, &cos[k], err)))
            goto done;
        k++;
    }
    if (k == 0) {
        rc = g2e_fail(err, REF_E_FEW_ROWS, "no pair of %s rows with non-zero norms was found",
                      which ? "wpe" : "wte");
        goto done;
    }
    qsort(cos, k, sizeof *cos, cmp_double);
    *median = k % 2 ? cos[k / 2] : (cos[k / 2 - 1] + cos[k / 2]) / 2;
    *used = k;
done:
    free(cos);
    free(a);
    return rc;
}
