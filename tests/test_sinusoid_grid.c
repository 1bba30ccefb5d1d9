/* SPDX-License-Identifier: MIT */
/* test_sinusoid_grid.c — the PE laid out for figures (sinusoid_grid.h, and its whole matrix
 * from the door, gpt2embed_sinusoidal), against the formula PE(pos, 2i) = sin(pos /
 * base^(2i/D)), PE(pos, 2i+1) = cos(...) written out here in double. */
#include "../src/gpt2embed.h"
#include "sinusoid.h"
#include "sinusoid_grid.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

static double pe(size_t pos, size_t j, size_t dim, double base)
{
    double w = (double)pos / pow(base, (double)(j - j % 2) / (double)dim);
    return j % 2 ? cos(w) : sin(w);
}

Test(sinusoid_grid, matrix_f32_is_the_formula_rounded_once)
{
    enum { N = 300, D = 64 };
    float *z = malloc(N * D * sizeof *z);
    gpt2embed_error e;
    cr_assert_eq(gpt2embed_sinusoidal(0, N, D, 10000.0, z, &e), 0, "%s", e.message);
    for (size_t p = 0; p < N; p++)
        for (size_t j = 0; j < D; j++) {
            double want = pe(p, j, D, 10000.0);
            /* one float32 rounding of a value computed to ~1e-15 */
            cr_assert(fabs(z[p * D + j] - want) <= 6e-8 + 1e-12, "PE(%zu, %zu) = %.9g, want %.9g",
                      p, j, z[p * D + j], want);
        }
    free(z);
}

Test(sinusoid_grid, pair_points_lie_on_the_unit_circle_in_order)
{
    enum { N = 200, D = 16 };
    double x[N], y[N];
    g2e_err e;
    for (size_t pair = 0; pair < D / 2; pair++) {
        cr_assert_eq(sin_pair_points(N, D, pair, 500.0, x, y, &e), 0, "%s", e.msg);
        for (size_t p = 0; p < N; p++) {
            cr_expect(fabs(x[p] - pe(p, 2 * pair + 1, D, 500.0)) < 1e-12, "x at %zu", p);
            cr_expect(fabs(y[p] - pe(p, 2 * pair, D, 500.0)) < 1e-12, "y at %zu", p);
            cr_expect(fabs(x[p] * x[p] + y[p] * y[p] - 1) < 1e-12);
        }
    }
}

Test(sinusoid_grid, bad_parameters_are_refused_with_a_message)
{
    float z[16];
    double x[4], y[4];
    g2e_err e;
    gpt2embed_error de;
    cr_expect_eq(gpt2embed_sinusoidal(0, 2, 7, 10000.0, z, &de), GPT2EMBED_E_ARG);
    cr_expect(strstr(de.message, "7") != NULL, "%s", de.message);
    cr_expect_eq(gpt2embed_sinusoidal(0, 2, 2, 1.0, z, &de), GPT2EMBED_E_ARG);
    cr_expect_eq(sin_pair_points(4, 8, 4, 10000.0, x, y, &e), SIN_E_DIM);
    cr_expect_str_eq(e.msg, "pair 4 is not one of the 4 pairs of D=8");
    cr_expect_eq(sin_pair_points(4, 9, 0, 10000.0, x, y, &e), SIN_E_DIM);
}
