/* SPDX-License-Identifier: MIT */
/* test_exercise.c — the exercises' numbers (exercise.h) against naive double loops over the
 * fixture's values (fixture_expected), and their errors. */
#include "exercise.h"
#include "fixture.h"
#include "pairs_ref.h"
#include "reference.h"
#include "similarity.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static double naive_cos(const float *a, const float *b, size_t n)
{
    double d = 0, na = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        d += (double)a[i] * b[i];
        na += (double)a[i] * a[i];
        nb += (double)b[i] * b[i];
    }
    return d / sqrt(na * nb);
}

Test(exercise, first_is_arithmetic)
{
    ex_first x;
    ex_first_compute(4096, 4096, NULL, &x);
    cr_expect_eq(x.gpt2_params, 786432ULL);
    cr_expect_eq(x.params, 16777216ULL);
    cr_expect(fabs(x.ratio - 64.0 / 3.0) < 1e-15);
    cr_expect(x.file_wpe == 0 && x.file_wte == 0);
}

Test(exercise, second_matches_naive_cosines)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_vocab = 4000, o.n_ctx = 600, o.n_embd = 12;
    g2e_model *m = open_fixture_model(&o, "exercise");
    ex_first f;
    ex_first_compute(2, 3, m, &f);
    cr_expect(f.params == 6 && f.file_wpe == 600 * 12 && f.file_wte == 4000 * 12);
    ex_second x;
    g2e_err e;
    cr_assert_eq(ex_second_compute(m, 3797, &x, &e), 0, "%s", e.msg);
    float p0[12], p1[12], p5[12], p500[12], cat[12], a[12], b[12];
    fixture_expected_row(&o, FIXTURE_WPE, 0, p0);
    fixture_expected_row(&o, FIXTURE_WPE, 1, p1);
    fixture_expected_row(&o, FIXTURE_WPE, 5, p5);
    fixture_expected_row(&o, FIXTURE_WPE, 500, p500);
    fixture_expected_row(&o, FIXTURE_WTE, 3797, cat);
    for (int c = 0; c < 12; c++)
        a[c] = cat[c] + p0[c], b[c] = cat[c] + p5[c];
    cr_expect(x.rows == 600 && x.cols == 12 && x.cat == 3797);
    cr_expect(fabs(x.c01 - naive_cos(p0, p1, 12)) < 1e-12);
    cr_expect_eq(x.far, 500);
    cr_expect(fabs(x.c0far - naive_cos(p0, p500, 12)) < 1e-12);
    cr_expect(fabs(x.ccat - naive_cos(a, b, 12)) < 1e-12);
    /* the median of REF_PAIRS random wte pairs drawn from REF_SEED, recomputed from the
     * fixture's values */
    cr_expect_eq(x.n_pairs, REF_PAIRS);
    double v[REF_PAIRS];
    pairs_ref_cosines(&o, FIXTURE_WTE, REF_PAIRS, REF_SEED, v);
    double want = pairs_ref_median(v, REF_PAIRS);
    cr_expect(fabs(x.median - want) < 1e-12, "median %.17g, recomputed %.17g", x.median, want);

    cr_expect_eq(ex_second_compute(m, 4000, &x, &e), SIM_E_RANGE);
    cr_expect_str_eq(e.msg, "token ID 4000 of \" cat\" is outside this file's wte (4000 rows)");
    model_close(m);
}

Test(exercise, a_short_wpe_uses_its_last_position)
{
    fixture_opts o;
    fixture_tiny(&o);   /* n_ctx 16 */
    g2e_model *m = open_fixture_model(&o, "exercise16");
    ex_second x;
    g2e_err e;
    cr_assert_eq(ex_second_compute(m, 3, &x, &e), 0, "%s", e.msg);
    cr_expect_eq(x.far, 15);
    float p0[16], p15[16];
    cr_assert(o.n_embd <= 16);
    fixture_expected_row(&o, FIXTURE_WPE, 0, p0);
    fixture_expected_row(&o, FIXTURE_WPE, 15, p15);
    cr_expect(fabs(x.c0far - naive_cos(p0, p15, o.n_embd)) < 1e-12);
    model_close(m);

    o.n_ctx = 5;   /* no position 5 for " cat" */
    m = open_fixture_model(&o, "exercise5");
    cr_expect_eq(ex_second_compute(m, 3, &x, &e), EX_E_SHORT);
    cr_expect_str_eq(e.msg, "exercise 2 needs at least 6 positions, wpe has 5");
    model_close(m);
}

Test(exercise, a_zero_row_names_the_cosine)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_ctx = 600;
    o.sparse = 1;
    static const uint64_t wte[] = {0, 3, 63}, wpe[] = {0, 599};
    o.wte_rows = wte, o.n_wte_rows = 3, o.wpe_rows = wpe, o.n_wpe_rows = 2;
    g2e_model *m = open_fixture_model(&o, "exercise_zero");
    ex_second x;
    g2e_err e;
    cr_expect_eq(ex_second_compute(m, 3, &x, &e), SIM_E_ZERO);
    cr_expect(strncmp(e.msg, "cos(wpe[0], wpe[1]): ", 21) == 0, "%s", e.msg);
    model_close(m);
}
