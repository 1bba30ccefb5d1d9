/* SPDX-License-Identifier: MIT */
/* test_pcasrc.c — the study commands' matrices (pcasrc.h): wpe's row norms against norms
 * summed here from the fixture's values, and the PCA of each source against what the
 * definition says independently of how it is computed (the total variance is the sum of
 * the column variances; a projection is the centred row dotted with the component). */
#include "fixture.h"
#include "model.h"
#include "pcasrc.h"
#include "sinusoid.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

static fixture_opts small(void)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_ctx = 40, o.n_embd = 6, o.n_vocab = 64;
    return o;
}

Test(pcasrc, wpe_norms_are_the_row_norms)
{
    fixture_opts o = small();
    gpt2embed_model *m = open_fixture_door(&o, "pcasrc-norms");
    pcasrc_norms sn;
    g2e_err e;
    cr_assert_eq(pcasrc_wpe_norms(m, &sn, &e), 0, "%s", e.msg);
    cr_assert_eq(sn.n, 40);
    for (size_t p = 0; p < sn.n; p++) {
        double s = 0;
        for (size_t j = 0; j < o.n_embd; j++) {
            double v = fixture_expected(&o, FIXTURE_WPE, p, j);
            s += v * v;
        }
        cr_expect(fabs(sn.norm[p] - sqrt(s)) < 1e-12 * sqrt(s), "row %zu", p);
    }
    cr_expect(fabs(sn.sum.first - sn.norm[0]) == 0);
    cr_expect_eq(sn.sum.split, 40, "split clamped to n");
    pcasrc_norms_free(&sn);
    pcasrc_norms_free(&sn);   /* harmless twice */
    pcasrc_norms_free(NULL);
    gpt2embed_model_close(m);
}

/* rows r0..n-1 of X (n, d) double: the sum of the column variances (ddof 1), and
 * (x_i - mean) . c for row i */
static double total_variance(const double *X, size_t n, size_t d)
{
    double t = 0;
    for (size_t j = 0; j < d; j++) {
        double mean = 0, ss = 0;
        for (size_t i = 0; i < n; i++)
            mean += X[i * d + j];
        mean /= (double)n;
        for (size_t i = 0; i < n; i++)
            ss += (X[i * d + j] - mean) * (X[i * d + j] - mean);
        t += ss / (double)(n - 1);
    }
    return t;
}

static void check_pca(const pca_result *r, const double *X, size_t n, size_t d)
{
    double sum = 0;
    for (size_t i = 0; i < r->d; i++)
        sum += r->variance[i];
    double want = total_variance(X, n, d);
    cr_expect(fabs(sum - want) < 1e-9 * want, "variance %.12g, want %.12g", sum, want);
    for (size_t i = 0; i < n; i += 7) {
        double p = 0;
        for (size_t j = 0; j < d; j++) {
            double mean = 0;
            for (size_t q = 0; q < n; q++)
                mean += X[q * d + j];
            p += (X[i * d + j] - mean / (double)n) * r->components[j];
        }
        cr_expect(fabs(p - r->proj[i * r->k]) < 1e-9, "projection of row %zu", i);
    }
}

Test(pcasrc, wpe_without_position_0_and_its_labels)
{
    fixture_opts o = small();
    gpt2embed_model *m = open_fixture_door(&o, "pcasrc-wpe");
    pcasrc_spec s = {.of = PCASRC_WPE, .m = m, .skip = 1};
    pca_result r;
    double *id;
    g2e_err e;
    cr_assert_eq(pcasrc_pca(&s, 6, &r, &id, &e), 0, "%s", e.msg);
    cr_assert_eq(r.n, 39);
    double X[39 * 6];
    for (size_t p = 1; p < 40; p++)
        for (size_t j = 0; j < 6; j++)
            X[(p - 1) * 6 + j] = fixture_expected(&o, FIXTURE_WPE, p, j);
    check_pca(&r, X, 39, 6);
    cr_expect(id[0] == 1 && id[38] == 39);
    pca_free(&r), free(id);
    gpt2embed_model_close(m);
}

Test(pcasrc, chosen_wte_rows_keep_their_ids)
{
    fixture_opts o = small();
    gpt2embed_model *m = open_fixture_door(&o, "pcasrc-wte");
    static const uint32_t ids[] = {5, 9, 2, 63, 17, 30, 44, 8};
    pcasrc_spec s = {.of = PCASRC_WTE, .m = m, .ids = ids, .n_ids = 8, .skip = 3};
    pca_result r;
    double *id;
    g2e_err e;
    cr_assert_eq(pcasrc_pca(&s, 2, &r, &id, &e), 0, "%s", e.msg);
    cr_assert_eq(r.n, 8, "skip is not applied to wte");
    double X[8 * 6];
    for (size_t i = 0; i < 8; i++)
        for (size_t j = 0; j < 6; j++)
            X[i * 6 + j] = fixture_expected(&o, FIXTURE_WTE, ids[i], j);
    check_pca(&r, X, 8, 6);
    for (size_t i = 0; i < 8; i++)
        cr_expect(id[i] == ids[i]);
    pca_free(&r), free(id);
    gpt2embed_model_close(m);
}

Test(pcasrc, sinusoidal_rows_are_the_formula)
{
    enum { N = 50, D = 8 };
    pcasrc_spec s = {.of = PCASRC_SINUSOIDAL, .len = N, .dim = D, .base = 100.0, .skip = 2};
    pca_result r;
    g2e_err e;
    cr_assert_eq(pcasrc_pca(&s, D, &r, NULL, &e), 0, "%s", e.msg);
    double X[(N - 2) * D];
    for (size_t p = 2; p < N; p++)
        for (size_t j = 0; j < D; j++) {
            double w = (double)p / pow(100.0, (double)(j - j % 2) / D);
            X[(p - 2) * D + j] = j % 2 ? cos(w) : sin(w);
        }
    check_pca(&r, X, N - 2, D);
    pca_free(&r);
}

Test(pcasrc, shapes_are_checked_in_the_commands_terms)
{
    fixture_opts o = small();
    gpt2embed_model *m = open_fixture_door(&o, "pcasrc-err");
    pca_result r;
    double *id = (double *)&r;
    g2e_err e;
    pcasrc_spec s = {.of = PCASRC_WPE, .m = m};
    cr_expect_eq(pcasrc_pca(&s, 7, &r, &id, &e), PCA_E_SHAPE);
    cr_expect_str_eq(e.msg, "--keep (-k) 7 is more components than the 6 columns");
    cr_expect(id == NULL && r.variance == NULL, "nothing left behind");
    s.skip = 40;
    cr_expect_eq(pcasrc_pca(&s, 2, &r, NULL, &e), PCA_E_SHAPE);
    cr_expect_str_eq(e.msg, "--skip 40 leaves no rows of 40");
    pcasrc_spec big = {.of = PCASRC_SINUSOIDAL, .len = (size_t)1 << 40, .dim = 8, .base = 1e4};
    cr_expect_eq(pcasrc_pca(&big, 2, &r, NULL, &e), PCA_E_SHAPE);
    gpt2embed_model_close(m);
}
