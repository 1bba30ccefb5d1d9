/* SPDX-License-Identifier: MIT */
/* test_sinusoid.c — the fixed sinusoidal encoding against numpy (/usr/bin/python3), closed
 * forms (PE(0) = [0, 1, 0, 1, ...]; PE(p)·PE(p+d) = Σ_i cos(ω_i d)), and its errors. */
#include "sinusoid.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ω_i written differently from the library (exp/log instead of 1/pow), as the
 * PyTorch tutorial does: agreement to ~1e-15 relative, not bit for bit. */
static double omega_ref(size_t i, size_t dim, double base)
{
    return exp(-(double)(2 * i) * log(base) / (double)dim);
}

/* numpy's matrix for (len, dim, base), as text "%.17g" values, one per line. */
static double *numpy_pe(size_t len, size_t dim, double base)
{
    char a1[32], a2[32], a3[32];
    snprintf(a1, sizeof a1, "%zu", len);
    snprintf(a2, sizeof a2, "%zu", dim);
    snprintf(a3, sizeof a3, "%.17g", base);
    const char *script =
        "import sys, numpy as np\n"
        "n, d, b = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])\n"
        "pos = np.arange(n, dtype=np.float64)[:, None]\n"
        "i2 = np.arange(0, d, 2, dtype=np.float64)[None, :]\n"
        "ang = pos / np.power(b, i2 / d)\n"
        "pe = np.empty((n, d)); pe[:, 0::2] = np.sin(ang); pe[:, 1::2] = np.cos(ang)\n"
        "print('\\n'.join('%.17g' % v for v in pe.ravel()))\n";
    char *argv[] = {"/usr/bin/python3", "-c", (char *)script, a1, a2, a3, NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "python: %s", r.err);
    double *v = malloc(len * dim * sizeof *v);
    char *p = r.out;
    for (size_t k = 0; k < len * dim; k++) {
        char *end;
        v[k] = strtod(p, &end);
        cr_assert(end != p, "numpy output ended after %zu values", k);
        p = end;
    }
    run_free(&r);
    return v;
}

static void against_numpy(size_t len, size_t dim, double base)
{
    double *ref = numpy_pe(len, dim, base);
    double *m = malloc(len * dim * sizeof *m);
    g2e_err e;
    cr_assert_eq(sin_matrix_f64(len, dim, base, m, &e), 0, "%s", e.msg);
    double worst = 0;
    for (size_t k = 0; k < len * dim; k++)
        worst = fmax(worst, fabs(m[k] - ref[k]));
    /* the angle reaches len; sin/cos of it are good to a few ulps of that size */
    cr_expect(worst < 1e-13 * (double)len + 1e-15, "N=%zu D=%zu base %g: max |diff| %g", len,
              dim, base, worst);
    /* rows one at a time agree with the matrix exactly */
    double *row = malloc(dim * sizeof *row);
    float *row32 = malloc(dim * sizeof *row32);
    for (size_t p = 0; p < len; p += len / 7 + 1) {
        cr_assert_eq(sin_row_f64(p, dim, base, row, &e), 0);
        cr_assert_eq(sin_row_f32(p, dim, base, row32, &e), 0);
        for (size_t j = 0; j < dim; j++) {
            cr_expect_eq(row[j], m[p * dim + j]);
            cr_expect_eq(row32[j], (float)m[p * dim + j], "f32 is the f64 value rounded once");
        }
    }
    free(row), free(row32), free(m), free(ref);
}

Test(sinusoid, matrix_matches_numpy)
{
    against_numpy(50, 16, 10000.0);
    against_numpy(7, 6, 100.0);
    against_numpy(1024, 64, 10000.0);
    against_numpy(3, 2, 2.5);
}

Test(sinusoid, closed_form_values)
{
    enum { D = 512 };
    double r[D];
    g2e_err e;
    cr_assert_eq(sin_row_f64(0, D, 10000.0, r, &e), 0);
    for (int j = 0; j < D; j++)
        cr_expect_eq(r[j], j % 2 ? 1.0 : 0.0, "PE(0, %d)", j);
    /* pair 0 has ω = 1: PE(pos, 0) = sin(pos), PE(pos, 1) = cos(pos) */
    cr_assert_eq(sin_row_f64(12345, D, 10000.0, r, &e), 0);
    cr_expect_eq(r[0], sin(12345.0));
    cr_expect_eq(r[1], cos(12345.0));
    /* the last pair's wavelength is 2π·base^((D-2)/D) */
    double w = omega_ref(D / 2 - 1, D, 10000.0);
    cr_expect(fabs(r[D - 2] - sin(12345.0 * w)) < 1e-12);
    cr_expect(fabs(sin_omega(D / 2 - 1, D, 10000.0) - w) < 1e-18);
    cr_expect_eq(sin_omega(0, D, 10000.0), 1.0);
    /* positions up to 2^53 are accepted, beyond are not */
    cr_expect_eq(sin_row_f64(SIN_MAX_POS, D, 10000.0, r, &e), 0);
    cr_expect_eq(sin_row_f64(SIN_MAX_POS + 1, D, 10000.0, r, &e), SIN_E_LEN);
    float f[D];
    cr_expect_eq(sin_row_f32(SIN_MAX_POS + 1, D, 10000.0, f, &e), SIN_E_LEN);
    /* far beyond GPT-2's 1024: the formula still holds, values stay in [-1, 1] */
    cr_assert_eq(sin_row_f32(1000000, D, 10000.0, f, &e), 0);
    for (int j = 0; j < D; j += 2)
        cr_expect(fabsf(f[j] * f[j] + f[j + 1] * f[j + 1] - 1.0f) < 1e-6f);
}

Test(sinusoid, dot_curve_is_sum_of_cosines)
{
    enum { D = 512 };
    double c[51];
    g2e_err e;
    cr_assert_eq(sin_dot_curve(0, 50, D, 10000.0, c, &e), 0, "%s", e.msg);
    cr_expect_eq(c[0], D / 2.0, "PE(0)·PE(0) = D/2 exactly");
    for (int p = 0; p <= 50; p++) {
        double s = 0;
        for (size_t i = 0; i < D / 2; i++)
            s += cos(omega_ref(i, D, 10000.0) * p);
        cr_expect(fabs(c[p] - s) < 1e-10, "pos %d: %.17g vs %.17g", p, c[p], s);
    }
    /* the curve falls from D/2 over the first positions */
    cr_expect(c[1] < c[0] && c[5] < c[1] && c[50] < c[5]);
    double c2[3];
    cr_assert_eq(sin_dot_curve(1000, 1002, D, 10000.0, c2, &e), 0);
    double s = 0;
    for (size_t i = 0; i < D / 2; i++)
        s += cos(omega_ref(i, D, 10000.0) * 1001);
    cr_expect(fabs(c2[1] - s) < 1e-9);
    cr_assert_eq(sin_dot_curve(7, 7, D, 10000.0, c2, &e), 0, "a single position");
    cr_expect_eq(sin_dot_curve(8, 7, D, 10000.0, c2, &e), SIN_E_LEN);
    cr_expect_eq(sin_dot_curve(0, SIN_MAX_POS + 1, D, 10000.0, c2, &e), SIN_E_LEN);
    cr_expect_eq(sin_dot_curve(0, SIN_MAX_POS, D, 10000.0, c2, &e), SIN_E_SIZE, "not run");
}

Test(sinusoid, rotation_error_is_tiny)
{
    double worst = -1;
    uint64_t p = 99, k = 99;
    size_t i = 99;
    g2e_err e;
    cr_assert_eq(sin_check_rotation(512, 10000.0, 64, 32, &worst, &p, &k, &i, &e), 0, "%s", e.msg);
    cr_expect(worst >= 0 && worst < 1e-9, "largest error %g", worst);
    cr_expect(p < 64 && k < 32 && i < 256);
    cr_assert_eq(sin_check_rotation(768, 10000.0, 1024, 4, &worst, NULL, NULL, NULL, &e), 0);
    cr_expect(worst < 1e-9, "largest error %g over positions up to 1027", worst);
    cr_assert_eq(sin_check_rotation(2, 10000.0, 1, 1, &worst, NULL, NULL, NULL, &e), 0);
    cr_expect_eq(worst, 0.0, "k = 0 is the identity");
    cr_expect_eq(sin_check_rotation(4, 10000.0, 0, 5, &worst, NULL, NULL, NULL, &e), SIN_E_LEN);
    cr_expect_eq(sin_check_rotation(4, 10000.0, 5, 0, &worst, NULL, NULL, NULL, &e), SIN_E_LEN);
    cr_expect_eq(sin_check_rotation(4, 10000.0, SIN_MAX_POS, 2, &worst, NULL, NULL, NULL, &e),
                 SIN_E_LEN);
    cr_expect_eq(sin_check_rotation(3, 10000.0, 5, 5, &worst, NULL, NULL, NULL, &e), SIN_E_DIM);
    cr_expect_eq(sin_check_rotation(512, 10000.0, 1 << 20, 1 << 10, &worst, NULL, NULL, NULL, &e),
                 SIN_E_SIZE, "2^38 checks is refused, not run");
    cr_expect(strstr(e.msg, "2^32") != NULL, "%s", e.msg);
}

Test(sinusoid, rotation_is_what_the_check_checks)
{
    /* independently: rotate PE(pos) by ω_i k by hand and compare with PE(pos+k) */
    enum { D = 16 };
    double a[D], b[D];
    g2e_err e;
    sin_row_f64(10, D, 10000.0, a, &e);
    sin_row_f64(17, D, 10000.0, b, &e);
    for (size_t i = 0; i < D / 2; i++) {
        double th = omega_ref(i, D, 10000.0) * 7;
        double s = a[2 * i] * cos(th) + a[2 * i + 1] * sin(th);
        double c = a[2 * i + 1] * cos(th) - a[2 * i] * sin(th);
        cr_expect(fabs(s - b[2 * i]) < 1e-12 && fabs(c - b[2 * i + 1]) < 1e-12, "pair %zu", i);
    }
}

Test(sinusoid, by_distance_matches_closed_form)
{
    enum { N = 100, D = 64, M = 99 };
    double c[M + 1];
    g2e_err e;
    cr_assert_eq(sin_by_distance(N, D, 10000.0, M, c, &e), 0, "%s", e.msg);
    for (int d = 0; d <= M; d++) {
        double s = 0;
        for (size_t i = 0; i < D / 2; i++)
            s += cos(omega_ref(i, D, 10000.0) * d);
        s /= D / 2.0;   /* |PE(p)|^2 = D/2 for every p */
        cr_expect(fabs(c[d] - s) < 1e-12, "d=%d: %.17g vs %.17g", d, c[d], s);
    }
    cr_expect(fabs(c[0] - 1.0) < 1e-15);
    cr_assert_eq(sin_by_distance(1, 2, 10000.0, 0, c, &e), 0, "one position");
    cr_expect(fabs(c[0] - 1.0) < 1e-15);
    cr_expect_eq(sin_by_distance(10, 2, 10000.0, 10, c, &e), SIN_E_LEN);
    cr_expect_eq(sin_by_distance(0, 2, 10000.0, 0, c, &e), SIN_E_LEN);
    cr_expect_eq(sin_by_distance(SIZE_MAX / 4, 4, 10000.0, 1, c, &e), SIN_E_SIZE);
    cr_expect_eq(sin_by_distance(2000000, 4096, 10000.0, 1000, c, &e), SIN_E_SIZE, "too much work");
}

Test(sinusoid, parameter_errors)
{
    double r[8];
    g2e_err e;
    static const size_t bad_dims[] = {0, 1, 3, 767, 769};
    for (size_t k = 0; k < sizeof bad_dims / sizeof bad_dims[0]; k++) {
        g2e_clear(&e);
        cr_expect_eq(sin_row_f64(0, bad_dims[k], 10000.0, r, &e), SIN_E_DIM, "D=%zu", bad_dims[k]);
        cr_expect(strstr(e.msg, "even and positive") != NULL, "D=%zu: %s", bad_dims[k], e.msg);
        cr_expect_eq(e.code, SIN_E_DIM);
    }
    cr_expect_eq(sin_check_params(SIN_MAX_DIM + 2, 10000.0, &e), SIN_E_DIM);
    cr_expect_eq(sin_check_params(SIN_MAX_DIM, 10000.0, &e), 0);
    static const double bad_bases[] = {1.0, 0.5, 0.0, -10000.0, NAN, INFINITY};
    for (size_t k = 0; k < sizeof bad_bases / sizeof bad_bases[0]; k++) {
        cr_expect_eq(sin_row_f64(0, 8, bad_bases[k], r, &e), SIN_E_BASE, "base %g", bad_bases[k]);
        cr_expect(strstr(e.msg, "greater than 1") != NULL, "%s", e.msg);
    }
    cr_expect_eq(sin_check_params(2, 1.0000001, &e), 0);
    cr_expect_eq(sin_matrix_f64(0, 8, 10000.0, r, &e), SIN_E_LEN);
    cr_expect_eq(sin_matrix_f64(SIZE_MAX / 2, 4, 10000.0, r, &e), SIN_E_SIZE);
    cr_expect(strstr(e.msg, "does not fit") != NULL, "%s", e.msg);
    /* a NULL error record is accepted */
    cr_expect_eq(sin_row_f64(0, 3, 10000.0, r, NULL), SIN_E_DIM);
}

Test(sinusoid, table_rows_are_bit_identical)
{
    enum { D = 768 };
    sin_table t;
    g2e_err e;
    cr_assert_eq(sin_table_init(&t, D, 10000.0, &e), 0, "%s", e.msg);
    float a[D], b[D];
    double c[D], d[D];
    static const uint64_t pos[] = {0, 1, 2, 511, 1023, 1024, 4096, 100000, 123456789, SIN_MAX_POS};
    for (size_t k = 0; k < sizeof pos / sizeof pos[0]; k++) {
        cr_assert_eq(sin_table_row_f32(&t, pos[k], a, &e), 0);
        cr_assert_eq(sin_row_f32(pos[k], D, 10000.0, b, &e), 0);
        cr_expect(memcmp(a, b, sizeof a) == 0, "f32 row at %llu", (unsigned long long)pos[k]);
        cr_assert_eq(sin_table_row_f64(&t, pos[k], c, &e), 0);
        cr_assert_eq(sin_row_f64(pos[k], D, 10000.0, d, &e), 0);
        cr_expect(memcmp(c, d, sizeof c) == 0, "f64 row at %llu", (unsigned long long)pos[k]);
    }
    cr_expect_eq(sin_table_row_f32(&t, SIN_MAX_POS + 1, a, &e), SIN_E_LEN);
    sin_table_free(&t);
    sin_table_free(&t);
    sin_table_free(NULL);
    cr_expect_eq(sin_table_row_f32(&t, 0, a, &e), G2E_EINVAL, "a freed table");
    cr_expect_eq(sin_table_init(&t, 5, 10000.0, &e), SIN_E_DIM);
    cr_expect(t.div == NULL);
    cr_expect_eq(sin_table_init(&t, 4, 0.5, &e), SIN_E_BASE);
}
