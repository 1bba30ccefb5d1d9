/* SPDX-License-Identifier: MIT */
/* test_rope.c — the rotary encoding against numpy (RoFormer's formula written there with
 * complex numbers, a different route), its algebra (rotations compose, norms are kept), the
 * relative check at the issue's size, the dot curve against its closed form, and errors. */
#include "rope.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* numpy: x viewed as complex pairs x[2i] + i·x[2i+1], multiplied by exp(i·pos·θ_i). */
static double *numpy_rope(const double *x, size_t d, double base, uint64_t pos)
{
    size_t cap = 32 * d + 1, used = 0;
    char *xs = malloc(cap), ps[32], ds[32], bs[32];
    xs[0] = '\0';
    for (size_t j = 0; j < d; j++)
        used += (size_t)snprintf(xs + used, cap - used, "%s%.17g", j ? "," : "", x[j]);
    snprintf(ps, sizeof ps, "%llu", (unsigned long long)pos);
    snprintf(ds, sizeof ds, "%zu", d);
    snprintf(bs, sizeof bs, "%.17g", base);
    const char *script =
        "import sys, numpy as np\n"
        "x = np.array([float(v) for v in sys.argv[1].split(',')])\n"
        "pos, d, base = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])\n"
        "theta = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)\n"
        "z = (x[0::2] + 1j * x[1::2]) * np.exp(1j * pos * theta)\n"
        "out = np.empty(d); out[0::2] = z.real; out[1::2] = z.imag\n"
        "print(' '.join('%.17g' % v for v in out))\n";
    char *argv[] = {"/usr/bin/python3", "-c", (char *)script, xs, ps, ds, bs, NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "python: %s", r.err);
    double *v = malloc(d * sizeof *v);
    char *p = r.out;
    for (size_t j = 0; j < d; j++) {
        char *end;
        v[j] = strtod(p, &end);
        cr_assert(end != p, "numpy gave %zu values", j);
        p = end;
    }
    run_free(&r);
    free(xs);
    return v;
}

Test(rope, apply_matches_numpy)
{
    const size_t dims[] = {2, 8, 64, 768};
    const uint64_t poss[] = {0, 1, 7, 1023, 4096, 100000};
    uint64_t st = 7;
    for (size_t a = 0; a < sizeof dims / sizeof *dims; a++) {
        size_t d = dims[a];
        double *x = malloc(d * sizeof *x), *y = malloc(d * sizeof *y);
        rope_rand_unit(&st, d, x);
        rope_table t;
        g2e_err e;
        cr_assert_eq(rope_init(&t, d, 10000.0, &e), 0, "%s", e.msg);
        for (size_t b = 0; b < sizeof poss / sizeof *poss; b++) {
            rope_apply(&t, poss[b], x, y);
            double *ref = numpy_rope(x, d, 10000.0, poss[b]), worst = 0;
            for (size_t j = 0; j < d; j++)
                worst = fmax(worst, fabs(y[j] - ref[j]));
            /* the angle pos·θ has an absolute rounding error of about ε·pos in either route */
            cr_expect(worst <= 4e-16 * (double)(poss[b] + 4), "d=%zu pos=%llu: max diff %g", d,
                      (unsigned long long)poss[b], worst);
            free(ref);
        }
        rope_free(&t);
        free(x), free(y);
    }
}

Test(rope, rotations_compose_and_keep_the_norm)
{
    rope_table t;
    g2e_err e;
    cr_assert_eq(rope_init(&t, 64, 500.0, &e), 0, "%s", e.msg);
    double x[64], a[64], b[64];
    uint64_t st = 99;
    rope_rand_unit(&st, 64, x);
    for (uint64_t m = 0; m < 300; m += 37)
        for (uint64_t n = 0; n < 300; n += 41) {
            rope_apply(&t, n, x, a);
            rope_apply(&t, m, a, a);   /* in place */
            rope_apply(&t, m + n, x, b);
            double na = 0;
            for (int j = 0; j < 64; j++) {
                cr_expect(fabs(a[j] - b[j]) < 1e-13, "R(%llu)R(%llu) != R(m+n) at %d",
                          (unsigned long long)m, (unsigned long long)n, j);
                na += a[j] * a[j];
            }
            cr_expect(fabs(na - 1.0) < 1e-14, "norm^2 %.17g", na);
        }
    /* pair 0 turns by exactly 1 radian per position (θ_0 = 1): R(1) e_0 = (cos 1, sin 1, 0...) */
    double e0[64] = {1};
    rope_apply(&t, 1, e0, a);
    cr_expect_eq(a[0], cos(1.0));
    cr_expect_eq(a[1], sin(1.0));
    cr_expect_float_eq(rope_theta(&t, 16), pow(500.0, -0.5), 1e-16);
    rope_free(&t);
}

Test(rope, relative_check_at_the_issue_size, .timeout = 120)
{
    rope_relative r;
    g2e_err e;
    cr_assert_eq(rope_check_relative(768, 10000.0, 4096, 5000, 1, &r, &e), 0, "%s", e.msg);
    cr_expect_eq(r.pairs, 5000);
    cr_expect(r.max_dev < 1e-12, "largest deviation %g at m=%llu n=%llu", r.max_dev,
              (unsigned long long)r.at_m, (unsigned long long)r.at_n);
    cr_expect(r.max_dev > 0, "a deviation of exactly 0 over 5000 pairs means nothing was compared");
    cr_expect(r.mean_dev <= r.max_dev && r.at_m <= 4096 && r.at_n <= 4096);
    cr_log_info("d=768, positions <= 4096, 5000 pairs: largest deviation %.3g, mean %.3g",
                r.max_dev, r.mean_dev);
    /* the same seed gives the same answer; positions up to 2^40 drift by about ε·pos */
    rope_relative r2;
    cr_assert_eq(rope_check_relative(768, 10000.0, 4096, 5000, 1, &r2, &e), 0);
    cr_expect_eq(r2.max_dev, r.max_dev);
    cr_assert_eq(rope_check_relative(64, 10000.0, (uint64_t)1 << 40, 200, 3, &r2, &e), 0);
    cr_expect(r2.max_dev > 1e-9 && r2.max_dev < 1e-2, "at 2^40: %g", r2.max_dev);
}

Test(rope, dot_curve_matches_its_closed_form)
{
    enum { D = 128, K = 60 };
    double mean[K + 1], expect[K + 1];
    g2e_err e;
    cr_assert_eq(rope_dot_curve(D, 10000.0, 0, K, 400, 5, mean, expect, &e), 0, "%s", e.msg);
    cr_expect(fabs(mean[0] - 1.0) < 1e-14, "k=0: %.17g", mean[0]);
    for (int k = 0; k <= K; k++) {
        double ref = 0;
        for (int i = 0; i < D / 2; i++)
            ref += cos(k * exp(-(2.0 * i / D) * log(10000.0)));
        ref *= 2.0 / D;
        cr_expect(fabs(expect[k] - ref) < 1e-13, "k=%d: %.17g vs %.17g", k, expect[k], ref);
        /* the sample mean of 400 unit vectors: spread ~ 1/sqrt(D) per sample */
        cr_expect(fabs(mean[k] - ref) < 0.03, "k=%d: sample mean %.4f, expectation %.4f", k,
                  mean[k], ref);
    }
    /* an offset range gives the same values */
    double part[5];
    cr_assert_eq(rope_dot_curve(D, 10000.0, 20, 24, 400, 5, part, NULL, &e), 0);
    for (int j = 0; j < 5; j++)
        cr_expect(fabs(part[j] - mean[20 + j]) < 1e-12);
}

Test(rope, pair_path_is_a_circle)
{
    double x[50], y[50];
    g2e_err e;
    cr_assert_eq(rope_pair_path(128, 10000.0, 3, 0.6, 0.8, 50, x, y, &e), 0, "%s", e.msg);
    double th = pow(10000.0, -6.0 / 128);
    cr_expect_eq(x[0], 0.6);
    cr_expect_eq(y[0], 0.8);
    for (int p = 0; p < 50; p++) {
        cr_expect(fabs(hypot(x[p], y[p]) - 1.0) < 1e-15);
        double ang = atan2(y[p], x[p]) - atan2(0.8, 0.6);
        ang = remainder(ang - p * th, 2 * M_PI);
        cr_expect(fabs(ang) < 1e-13, "pos %d: angle off by %g", p, ang);
    }
}

Test(rope, errors)
{
    rope_relative r;
    g2e_err e;
    double out[4];
    rope_table t;
    cr_expect_eq(rope_init(&t, 7, 10000.0, &e), ROPE_E_DIM);
    cr_expect_eq(rope_init(&t, 8, 1.0, &e), ROPE_E_BASE);
    cr_expect_eq(e.code, ROPE_E_BASE);
    rope_free(&t);
    cr_expect_eq(rope_check_relative(0, 10000.0, 10, 10, 1, &r, &e), ROPE_E_DIM);
    cr_expect_eq(rope_check_relative(8, 10000.0, 10, 0, 1, &r, &e), ROPE_E_LEN);
    cr_expect_eq(rope_check_relative(8, 10000.0, ROPE_MAX_POS + 1, 1, 1, &r, &e), ROPE_E_LEN);
    cr_expect_eq(rope_check_relative(768, 10000.0, 10, 100000000, 1, &r, &e), ROPE_E_SIZE);
    cr_expect(strstr(e.msg, "2^32"), "%s", e.msg);
    cr_expect_eq(rope_dot_curve(8, 10000.0, 5, 4, 1, 1, out, NULL, &e), ROPE_E_LEN);
    cr_expect_eq(rope_dot_curve(8, 10000.0, 0, 3, 0, 1, out, NULL, &e), ROPE_E_LEN);
    cr_expect_eq(rope_pair_path(8, 10000.0, 4, 1, 0, 2, out, out + 2, &e), ROPE_E_DIM);
    cr_expect(strstr(e.msg, "pairs 0..3"), "%s", e.msg);
    cr_expect_eq(rope_pair_path(8, NAN, 0, 1, 0, 2, out, out + 2, &e), ROPE_E_BASE);
}

/* ---- the command ---- */

#include <cjson/cJSON.h>

Test(rope_cli, check_relative_json_is_the_library_value)
{
    run_result r = run_g2e("rope", "--check-relative", "-d", "768", "--max-pos", "4096", "--pairs",
                           "2000", "--seed", "9", "--format", "json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    rope_relative want;
    g2e_err e;
    cr_assert_eq(rope_check_relative(768, 10000.0, 4096, 2000, 9, &want, &e), 0);
    cr_expect_eq(cJSON_GetObjectItem(j, "max_deviation")->valuedouble, want.max_dev);
    cr_expect(want.max_dev < 1e-12);
    cr_expect_eq((uint64_t)cJSON_GetObjectItem(j, "at_m")->valuedouble, want.at_m);
    cJSON_Delete(j);
    run_free(&r);
    r = run_g2e("rope", "--check-relative", "--pairs", "100", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "largest |<R(m)q, R(n)k> - <R(m-n)q, k>| = "), "%s", r.out);
    run_free(&r);
}

Test(rope_cli, dot_curve_csv_and_rotation_npy)
{
    run_result r = run_g2e("rope", "--dot-curve", "-d", "64", "--from", "3", "--to", "12",
                           "--samples", "50", "--seed", "4", "--format", "csv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    double mean[10], expect[10];
    g2e_err e;
    cr_assert_eq(rope_dot_curve(64, 10000.0, 3, 12, 50, 4, mean, expect, &e), 0);
    cr_assert(strncmp(r.out, "k,mean_dot,expected\n", 20) == 0, "%s", r.out);
    char *p = r.out + 20;
    for (int j = 0; j < 10; j++) {
        long k;
        double a, b;
        int used = 0;
        cr_assert(sscanf(p, "%ld,%lf,%lf\n%n", &k, &a, &b, &used) == 3, "line %d: %s", j, p);
        cr_expect(k == 3 + j && a == mean[j] && b == expect[j], "line %d", j);
        p += used;
    }
    run_free(&r);
    char *dir = test_tmpdir("rope-cli"), *npy = path_join(dir, "r.npy"), *fig = path_join(dir, "r.png");
    r = run_g2e("rope", "--rotation", "--pair", "2", "--len", "40", "-o", npy, "--plot", fig, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char code[512];
    snprintf(code, sizeof code, "import numpy as np; a = np.load('%s'); th = 10000 ** (-4 / 768)\n"
             "ref = np.stack([np.cos(np.arange(40) * th), np.sin(np.arange(40) * th)], 1)\n"
             "print(a.shape, float(np.abs(a - ref).max()))", npy);
    char *argv[] = {"/usr/bin/python3", "-c", code, NULL};
    r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    double d = 1;
    cr_assert(sscanf(r.out, "(40, 2) %lf", &d) == 1, "%s", r.out);
    cr_expect(d < 1e-7, "float32 path differs from numpy by %g", d);
    run_free(&r);
    FILE *f = fopen(fig, "rb");
    unsigned char sig[8] = {0};
    cr_assert(f && fread(sig, 1, 8, f) == 8);
    fclose(f);
    cr_expect(memcmp(sig, "\x89PNG\r\n\x1a\n", 8) == 0);
    free(npy), free(fig), free(dir);
}

/* Issue 38: --plot alone replaces the numeric output (as sinusoidal --plot does); with
 * --format or -o both are written. */
Test(rope_cli, plot_alone_prints_no_table)
{
    char *dir = test_tmpdir("rope-plot"), *fig = path_join(dir, "d.png");
    run_result r = run_g2e("rope", "--dot-curve", "-d", "16", "--plot", fig, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.out_len, 0, "%s", r.out);
    run_free(&r);
    r = run_g2e("rope", "--rotation", "-d", "16", "--plot", fig, NULL);
    cr_expect(r.status == 0 && r.out_len == 0, "%s", r.out);
    run_free(&r);
    r = run_g2e("rope", "--dot-curve", "-d", "16", "--to", "4", "--plot", fig, "--format", "csv", NULL);
    cr_expect(r.status == 0 && strncmp(r.out, "k,mean_dot,expected\n", 20) == 0, "%s", r.out);
    run_free(&r);
    free(fig), free(dir);
}

/* Issue 38: the rotation's default pair is D/8, which turns 10000^(-1/4) (about 0.1) rad per
 * position, in rope --rotation and plot rotation alike (pair 0 turns 1 rad: a tangle). */
Test(rope_cli, rotation_defaults_to_a_pair_that_shows_the_turn)
{
    run_result r = run_g2e("rope", "--rotation", "-d", "64", "--len", "3", "--format", "csv", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    double x1 = 0, y1 = 0, th = pow(10000.0, -2.0 * 8 / 64);   /* pair 64/8 = 8 */
    const char *row1 = strstr(r.out, "\n1,");
    cr_assert(row1 && sscanf(row1 + 3, "%lf,%lf", &x1, &y1) == 2, "%s", r.out);
    cr_expect(fabs(x1 - cos(th)) < 1e-6 && fabs(y1 - sin(th)) < 1e-6, "%g %g vs %g %g", x1, y1, cos(th), sin(th));
    run_free(&r);
    char *dir = test_tmpdir("rope-rotdef"), *fig = path_join(dir, "rot.png");
    r = run_g2e("plot", "rotation", "--dim", "128", "-o", fig, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t n;
    char *png = read_file(fig, &n);
    cr_assert(png);
    static const char want[] = "Pair 16 of the sinusoidal PE turns by 0.1 rad per position";
    int found = 0;
    for (size_t i = 0; !found && i + sizeof want - 1 <= n; i++)
        found = memcmp(png + i, want, sizeof want - 1) == 0;
    cr_expect(found, "the figure's text names pair 16 and 0.1 rad");
    free(png), free(fig), free(dir);
}

Test(rope_cli, schemes_table_and_errors)
{
    run_result r = run_g2e("rope", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "learned absolute (GPT-2)") && strstr(r.out, "sinusoidal absolute") &&
              strstr(r.out, "rotary relative (RoPE)") && strstr(r.out, "only m - n"), "%s", r.out);
    run_free(&r);
    r = run_g2e("rope", "--format", "json", NULL);
    cr_assert_eq(r.status, 0);
    cJSON *j = cJSON_Parse(r.out);
    cr_expect(j && cJSON_GetArraySize(cJSON_GetObjectItem(j, "schemes")) == 3, "%s", r.out);
    cJSON_Delete(j);
    run_free(&r);
    const char *bad[][4] = {
        {"--check-relative", "--dot-curve", NULL}, {"-d", "7", NULL}, {"--pairs", "5", NULL},
        {"--plot", "x.png", NULL}, {"--dot-curve", "--from", "9", "--to"},
        {"--base", "1", NULL}, {"--format", "csv", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_g2e("rope", bad[i][0], bad[i][1], bad[i][2], bad[i][3], i == 4 ? "3" : NULL, NULL);
        cr_expect_eq(r.status, 2, "case %zu: %d %s", i, r.status, r.err);
        cr_expect_eq(r.out_len, 0);
        run_free(&r);
    }
    r = run_g2e("rope", "--rotation", "--pair", "384", NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "pairs 0..383"), "%s", r.err);
    run_free(&r);
}

/* What rope --check-relative says follows the numbers: a deviation within the rounding bound
 * holds, one beyond it does not (the sentence changes with the numbers). */
Test(rope, relative_verdict_follows_the_deviation)
{
    rope_relative r = {.pairs = 1};
    r.max_dev = 7.25e-15;
    cr_expect(rope_relative_holds(&r, 4096));
    r.max_dev = 1e-3;
    cr_expect(!rope_relative_holds(&r, 4096));
    r.max_dev = rope_rounding_bound(1000) * 1.01;
    cr_expect(!rope_relative_holds(&r, 1000));
    cr_expect(rope_relative_holds(&r, 2000), "the bound grows with the positions");
    /* the real check, at the largest positions allowed, stays within it */
    rope_relative big;
    cr_assert_eq(rope_check_relative(64, 10000.0, 100000000, 2000, 1, &big, NULL), 0);
    cr_expect(rope_relative_holds(&big, 100000000), "max_dev %g bound %g", big.max_dev, rope_rounding_bound(100000000));
}
