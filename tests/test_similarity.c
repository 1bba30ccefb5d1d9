/* SPDX-License-Identifier: MIT */
/* test_similarity.c — cosine, the cosine matrix and by-distance against naive double loops
 * written here independently (one accumulator, textbook formula). Model-based functions
 * (nearest, stats, wpe loading) are tested on the fixtures further down. */
#include "recipe.h"
#include "similarity.h"

#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ULL;
static float frand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((double)(rng >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

static double naive_cos(const float *a, const float *b, size_t n)
{
    double d = 0, na = 0, nb = 0;
    for (size_t i = 0; i < n; i++) {
        d += (double)a[i] * (double)b[i];
        na += (double)a[i] * (double)a[i];
        nb += (double)b[i] * (double)b[i];
    }
    return d / (sqrt(na) * sqrt(nb));
}

Test(similarity, cosine_matches_naive_for_many_lengths)
{
    for (size_t n = 1; n <= 70; n++) {
        float a[70], b[70];
        for (size_t i = 0; i < n; i++) { a[i] = frand(); b[i] = frand(); }
        double c;
        cr_assert_eq(sim_cosine(a, b, n, &c, NULL), 0);
        cr_expect(fabs(c - naive_cos(a, b, n)) < 1e-12, "n=%zu: %.17g vs %.17g", n, c, naive_cos(a, b, n));
    }
}

Test(similarity, known_values)
{
    float x[2] = {1, 0}, y[2] = {0, 1}, z[2] = {-3, 0}, w[2] = {1, 1};
    double c;
    cr_assert_eq(sim_cosine(x, y, 2, &c, NULL), 0);
    cr_expect_float_eq(c, 0.0, 1e-15);
    cr_assert_eq(sim_cosine(x, z, 2, &c, NULL), 0);
    cr_expect_float_eq(c, -1.0, 1e-15);
    cr_assert_eq(sim_cosine(x, w, 2, &c, NULL), 0);
    cr_expect_float_eq(c, 1.0 / sqrt(2.0), 1e-15);
}

Test(similarity, zero_vector_has_no_cosine)
{
    float x[3] = {0, 0, 0}, y[3] = {1, 2, 3};
    double c = 42;
    g2e_err e;
    cr_expect_eq(sim_cosine(x, y, 3, &c, &e), SIM_E_ZERO);
    cr_expect(strstr(e.msg, "first") != NULL, "%s", e.msg);
    cr_expect_eq(sim_cosine(y, x, 3, &c, &e), SIM_E_ZERO);
    cr_expect(strstr(e.msg, "second") != NULL, "%s", e.msg);
    cr_expect_eq(c, 42, "output untouched on error");
}

Test(similarity, non_finite_vector_has_no_cosine)
{
    float y[3] = {1, 2, 3};
    const float bad[3][3] = {{1, NAN, 3}, {INFINITY, 0, 0}, {-INFINITY, 1, 1}};
    for (int k = 0; k < 3; k++) {
        double c = 42;
        g2e_err e;
        cr_expect_eq(sim_cosine(bad[k], y, 3, &c, &e), SIM_E_NONFINITE, "case %d", k);
        cr_expect(strstr(e.msg, "first vector holds a NaN or an infinity") != NULL, "%s", e.msg);
        cr_expect_eq(sim_cosine(y, bad[k], 3, &c, &e), SIM_E_NONFINITE, "case %d", k);
        cr_expect(strstr(e.msg, "second") != NULL, "%s", e.msg);
        cr_expect_eq(c, 42, "output untouched on error");
    }
    /* the largest floats are finite and keep a finite cosine (no overflow in double) */
    float big[3] = {FLT_MAX, FLT_MAX, -FLT_MAX};
    double c;
    cr_assert_eq(sim_cosine(big, big, 3, &c, NULL), 0);
    cr_expect_float_eq(c, 1.0, 1e-15);
    float X[3 * 2] = {1, 2, 3, NAN, 3, 4};
    double M[9];
    g2e_err e;
    cr_expect_eq(sim_cosine_matrix(X, 3, 2, M, &e), SIM_E_NONFINITE);
    cr_expect(strstr(e.msg, "row 1 holds a NaN") != NULL, "%s", e.msg);
}

static void check_matrix(size_t R, size_t C)
{
    float *X = malloc(R * C * sizeof *X);
    double *M = malloc(R * R * sizeof *M);
    cr_assert(X && M);
    for (size_t i = 0; i < R * C; i++)
        X[i] = frand();
    cr_assert_eq(sim_cosine_matrix(X, R, C, M, NULL), 0);
    for (size_t i = 0; i < R; i++)
        for (size_t j = 0; j < R; j++) {
            double want = naive_cos(X + i * C, X + j * C, C);
            cr_assert(fabs(M[i * R + j] - want) < 1e-12, "R=%zu C=%zu [%zu][%zu]: %.17g vs %.17g",
                      R, C, i, j, M[i * R + j], want);
        }
    free(X);
    free(M);
}

Test(similarity, matrix_matches_naive_on_odd_shapes)
{
    check_matrix(1, 1);
    check_matrix(3, 5);
    check_matrix(8, 4);
    check_matrix(37, 13);
    check_matrix(67, 64);
}

Test(similarity, matrix_zero_row_is_named)
{
    float X[3 * 2] = {1, 2, 0, 0, 3, 4};
    double M[9];
    g2e_err e;
    cr_expect_eq(sim_cosine_matrix(X, 3, 2, M, &e), SIM_E_ZERO);
    cr_expect(strstr(e.msg, "row 1") != NULL, "%s", e.msg);
}

Test(similarity, by_distance_matches_naive)
{
    size_t R = 29;
    double *M = malloc(R * R * sizeof *M), mean[29], sd[29];
    for (size_t i = 0; i < R * R; i++)
        M[i] = frand();
    sim_by_distance(M, R, mean, sd);
    for (size_t d = 0; d < R; d++) {
        double s = 0, s2 = 0;
        size_t n = 0;
        for (size_t p = 0; p + d < R; p++, n++)
            s += M[p * R + p + d];
        for (size_t p = 0; p + d < R; p++)
            s2 += (M[p * R + p + d] - s / (double)n) * (M[p * R + p + d] - s / (double)n);
        cr_expect(fabs(mean[d] - s / (double)n) < 1e-13, "d=%zu", d);
        cr_expect(fabs(sd[d] - sqrt(s2 / (double)n)) < 1e-13, "d=%zu", d);
    }
    cr_expect_eq(sd[R - 1], 0.0);
    free(M);
}

/* ---- on the fixtures: nearest, stats and wpe loading against naive loops over fixture_expected ---- */
#include "fixture.h"
#include "support.h"

Test(similarity, nearest_matches_naive_ranking)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.dtype = ST_BF16;
    g2e_model *m = open_fixture_model(&o, "nearest");
    float q[8], row[8];
    fixture_expected_row(&o, FIXTURE_WTE, 7, q);
    sim_hit hits[64];
    size_t n = 0;
    g2e_err e;
    cr_assert_eq(sim_nearest(m, q, 5, 7, hits, &n, &e), 0, "%s", e.msg);
    cr_assert_eq(n, 5);
    /* naive: every cosine, then check each hit is what a full sort would put at its rank */
    double all[64];
    for (uint64_t r = 0; r < 64; r++) {
        fixture_expected_row(&o, FIXTURE_WTE, r, row);
        all[r] = r == 7 ? -2.0 : naive_cos(q, row, 8);
    }
    for (size_t k = 0; k < n; k++) {
        cr_expect(hits[k].id != 7, "excluded row returned");
        cr_expect(fabs(hits[k].cos - all[hits[k].id]) < 1e-12);
        size_t better = 0;
        for (uint64_t r = 0; r < 64; r++)
            if (all[r] > all[hits[k].id]) better++;
        cr_expect_eq(better, k, "rank %zu holds id %u with %zu better rows", k, hits[k].id, better);
    }
    /* the row itself is nearest to itself when not excluded */
    cr_assert_eq(sim_nearest(m, q, 1, UINT32_MAX, hits, &n, &e), 0);
    cr_expect_eq(hits[0].id, 7);
    cr_expect(fabs(hits[0].cos - 1.0) < 1e-12);
    cr_expect_eq(sim_nearest(m, q, 0, UINT32_MAX, hits, &n, &e), SIM_E_RANGE);
    cr_expect_eq(sim_nearest(m, q, 65, UINT32_MAX, hits, &n, &e), SIM_E_RANGE);
    float zero[8] = {0};
    cr_expect_eq(sim_nearest(m, zero, 3, UINT32_MAX, hits, &n, &e), SIM_E_ZERO);
    model_close(m);
}

Test(similarity, stats_match_naive)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "stats");
    for (int which = 0; which < 2; which++) {
        sim_stats s;
        g2e_err e;
        cr_assert_eq(sim_stats_of(m, which, &s, &e), 0, "%s", e.msg);
        uint64_t R = which ? o.n_ctx : o.n_vocab;
        double sn = 0, sa = 0, mx = -1, mn = 1e300;
        uint64_t amx = 0, amn = 0;
        float row[8];
        for (uint64_t r = 0; r < R; r++) {
            fixture_expected_row(&o, which, r, row);
            double n2 = 0;
            for (int c = 0; c < 8; c++) { n2 += (double)row[c] * row[c]; sa += fabs((double)row[c]); }
            double nrm = sqrt(n2);
            sn += nrm;
            if (nrm > mx) { mx = nrm; amx = r; }
            if (nrm < mn) { mn = nrm; amn = r; }
        }
        cr_expect_eq(s.rows, R);
        cr_expect(fabs(s.norm_mean - sn / (double)R) < 1e-12);
        cr_expect(fabs(s.mean_abs - sa / (double)(R * 8)) < 1e-12);
        cr_expect(fabs(s.norm_max - mx) < 1e-12);
        cr_expect(fabs(s.norm_min - mn) < 1e-12);
        cr_expect_eq(s.argmax, amx);
        cr_expect_eq(s.argmin, amn);
        cr_expect_eq(s.top[0], amx);
        cr_expect_eq(s.n_top, 10);
        for (size_t i = 1; i < s.n_top; i++)
            cr_expect(s.top_norm[i] <= s.top_norm[i - 1]);
    }
    /* the fixture's wpe row 0 is the outlier, as in GPT-2 */
    sim_stats s;
    cr_assert_eq(sim_stats_of(m, 1, &s, NULL), 0);
    cr_expect_eq(s.argmax, 0);
    model_close(m);
}

Test(similarity, wpe_rows_are_exact)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.dtype = ST_F16;
    g2e_model *m = open_fixture_model(&o, "loadwpe");
    float *w = malloc(o.n_ctx * o.n_embd * sizeof *w);
    for (uint64_t p = 0; p < o.n_ctx; p++)
        cr_assert_eq(model_wpe_row(m, p, w + p * o.n_embd, NULL), 0);
    for (uint64_t p = 0; p < o.n_ctx; p++)
        for (uint64_t c = 0; c < o.n_embd; c++)
            cr_assert_eq(w[p * o.n_embd + c], fixture_expected(&o, FIXTURE_WPE, p, c));
    free(w);
    model_close(m);
}

/* ---- the learned curves (sim_wpe_cosine_matrix, sim_learned_by_distance) and percentiles ---- */

Test(similarity, learned_by_distance_matches_naive_loops)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "learned-bd");
    size_t len = o.n_ctx < 12 ? o.n_ctx : 12, max_d = len - 1, E = o.n_embd;
    double mean[64], sd[64];
    cr_assert(len <= 64);
    cr_assert_eq(sim_learned_by_distance(m, len, max_d, mean, sd, NULL), 0);
    for (size_t d = 0; d <= max_d; d++) {
        /* one accumulator, textbook cosine, over the fixture's own formula */
        double s = 0, s2 = 0;
        size_t n = len - d;
        for (size_t p = 0; p < n; p++) {
            double dot = 0, na = 0, nb = 0;
            for (size_t c = 0; c < E; c++) {
                double a = fixture_expected(&o, FIXTURE_WPE, p, c), b = fixture_expected(&o, FIXTURE_WPE, p + d, c);
                dot += a * b, na += a * a, nb += b * b;
            }
            double cs = dot / (sqrt(na) * sqrt(nb));
            s += cs, s2 += cs * cs;
        }
        double mu = s / (double)n, var = s2 / (double)n - mu * mu;
        cr_expect(fabs(mean[d] - mu) < 1e-12, "d=%zu: %.17g vs %.17g", d, mean[d], mu);
        cr_expect(fabs(sd[d] - sqrt(var > 0 ? var : 0)) < 1e-6, "sd at d=%zu", d);
    }
    cr_expect(fabs(mean[0] - 1.0) < 1e-12, "distance 0 is the diagonal");
    double *M = NULL;
    g2e_err e;
    cr_assert_eq(sim_wpe_cosine_matrix(m, len, &M, &e), 0, "%s", e.msg);
    cr_expect(fabs(M[1] - M[len]) < 1e-15, "symmetric");
    free(M);
    cr_expect_eq(sim_wpe_cosine_matrix(m, o.n_ctx + 1, &M, &e), SIM_E_RANGE);
    cr_expect(M == NULL);
    cr_expect_eq(sim_wpe_cosine_matrix(m, 0, &M, &e), SIM_E_RANGE);
    cr_expect_eq(sim_learned_by_distance(m, len, len, mean, NULL, &e), SIM_E_RANGE);
    cr_expect(strstr(e.msg, "less than N") != NULL, "%s", e.msg);
    model_close(m);
}

Test(similarity, abs_percentile_nearest_rank)
{
    float x[10] = {-10, 1, -2, 3, -4, 5, -6, 7, -8, 9};   /* |x| = 1..10 */
    double q;
    int fb = -1;
    cr_assert_eq(recipe_abs_percentile(x, 10, 50, &q, &fb, NULL), 0);
    cr_expect(q == 5 && fb == 0, "p50 of 1..10 by nearest rank is 5, got %g", q);
    cr_assert_eq(recipe_abs_percentile(x, 10, 99, &q, NULL, NULL), 0);
    cr_expect(q == 10);
    cr_assert_eq(recipe_abs_percentile(x, 10, 10, &q, NULL, NULL), 0);
    cr_expect(q == 1);
    cr_assert_eq(recipe_abs_percentile(x, 10, 100, &q, NULL, NULL), 0);
    cr_expect(q == 10);
    /* non-finite values are left out, not sorted (NaN has no order) */
    float y[6] = {NAN, INFINITY, 2, -4, -INFINITY, 1};
    cr_assert_eq(recipe_abs_percentile(y, 6, 100, &q, &fb, NULL), 0);
    cr_expect(q == 4 && fb == 0, "over the finite 1, 2, 4: %g", q);
    /* mostly zeros: the fallback is the largest finite |x|, and it says so */
    float z[5] = {0, 0, 0, 0, -3};
    cr_assert_eq(recipe_abs_percentile(z, 5, 50, &q, &fb, NULL), 0);
    cr_expect(q == 3 && fb == 1);
    float zero[2] = {0, 0};
    cr_assert_eq(recipe_abs_percentile(zero, 2, 50, &q, &fb, NULL), 0);
    cr_expect(q == 1 && fb == 1, "all zeros: 1");
    cr_assert_eq(recipe_abs_percentile(NULL, 0, 50, &q, &fb, NULL), 0);
    cr_expect(q == 1 && fb == 1, "no values: 1");
    g2e_err e;
    cr_expect_eq(recipe_abs_percentile(x, 10, 0, &q, NULL, &e), RENDER_E_ARG);
    cr_expect_eq(recipe_abs_percentile(x, 10, 100.5, &q, NULL, &e), RENDER_E_ARG);
    cr_expect_eq(recipe_abs_percentile(x, 10, NAN, &q, NULL, &e), RENDER_E_ARG);
}

/* ---- sim_input_cosine against naive loops over fixture_expected ---- */

Test(similarity, input_cosine_matches_naive_sums)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "inputcos");
    float te[8], pa[8], pb[8], a[8], b[8];
    fixture_expected_row(&o, FIXTURE_WTE, 5, te);
    fixture_expected_row(&o, FIXTURE_WPE, 0, pa);
    fixture_expected_row(&o, FIXTURE_WPE, 9, pb);
    for (int c = 0; c < 8; c++)
        a[c] = te[c] + pa[c], b[c] = te[c] + pb[c];
    double got;
    g2e_err e;
    const long long same[2] = {5, 5}, at[2] = {0, 9}, none[2] = {-1, -1}, toks[2] = {5, 12};
    cr_assert_eq(sim_input_cosine(m, same, at, &got, &e), 0, "%s", e.msg);
    cr_expect(fabs(got - naive_cos(a, b, 8)) < 1e-12, "%.17g vs %.17g", got, naive_cos(a, b, 8));
    cr_assert_eq(sim_input_cosine(m, none, at, &got, &e), 0, "%s", e.msg);
    cr_expect(fabs(got - naive_cos(pa, pb, 8)) < 1e-12);
    fixture_expected_row(&o, FIXTURE_WTE, 12, b);
    cr_assert_eq(sim_input_cosine(m, toks, none, &got, &e), 0, "%s", e.msg);
    cr_expect(fabs(got - naive_cos(te, b, 8)) < 1e-12);

    const long long far[2] = {0, 16}, big[2] = {5, 64};
    cr_expect_eq(sim_input_cosine(m, none, far, &got, &e), SIM_E_RANGE);
    cr_expect_str_eq(e.msg, "position 16 is outside wpe, which has 16 rows (0..15)");
    cr_expect_eq(sim_input_cosine(m, big, none, &got, &e), SIM_E_RANGE);
    cr_expect_str_eq(e.msg, "token ID 64 is outside wte, which has 64 rows");
    cr_expect_eq(sim_input_cosine(m, none, none, &got, &e), SIM_E_RANGE);
    model_close(m);
}

/* The pair of curves: by-distance of wpe against the naive mean over a cosine matrix computed
 * here, the sinusoidal one against a naive mean over sin/cos rows; errors name wpe. */
Test(similarity, learned_and_sinusoidal_pair)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "pair");
    double sinus[6], learned[6];
    g2e_err e;
    cr_assert_eq(sim_learned_and_sinusoidal(m, 12, 5, 10000.0, sinus, learned, &e), 0, "%s", e.msg);
    float rows[12][8];
    for (int p = 0; p < 12; p++)
        fixture_expected_row(&o, FIXTURE_WPE, (uint64_t)p, rows[p]);
    for (int d = 0; d <= 5; d++) {
        double sl = 0, ss = 0;
        for (int p = 0; p + d < 12; p++) {
            sl += naive_cos(rows[p], rows[p + d], 8);
            double a[8], b[8], dot = 0, na = 0, nb = 0;
            for (int i = 0; i < 4; i++) {
                double w = pow(10000.0, -2.0 * i / 8);
                a[2 * i] = sin(p * w), a[2 * i + 1] = cos(p * w);
                b[2 * i] = sin((p + d) * w), b[2 * i + 1] = cos((p + d) * w);
            }
            for (int i = 0; i < 8; i++)
                dot += a[i] * b[i], na += a[i] * a[i], nb += b[i] * b[i];
            ss += dot / sqrt(na * nb);
        }
        cr_expect(fabs(learned[d] - sl / (12 - d)) < 1e-12, "d=%d", d);
        cr_expect(fabs(sinus[d] - ss / (12 - d)) < 1e-9, "d=%d: %.17g vs %.17g", d, sinus[d], ss / (12 - d));
    }
    cr_expect_neq(sim_learned_and_sinusoidal(m, 17, 5, 10000.0, sinus, learned, &e), 0);
    cr_expect(strncmp(e.msg, "wpe: ", 5) == 0, "%s", e.msg);
    model_close(m);
}
