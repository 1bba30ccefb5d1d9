/* SPDX-License-Identifier: MIT */
/* test_pca.c — principal components against numpy (tests/pca_ref.py reads the same
 * safetensors file on its own and runs numpy.linalg.eigh on numpy.cov of it), against
 * planted structure (a helix plus noise), and the errors. */
#include "fixture.h"
#include "pngcheck.h"
#include "model.h"
#include "pca.h"
#include "similarity.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* numpy's answer for tensor `name` (rows: NULL = all) of the file at path, k components. */
static cJSON *numpy_pca(const char *path, const char *name, size_t k, const char *rows)
{
    char ks[24], cmd_rows[512];
    snprintf(ks, sizeof ks, "%zu", k);
    snprintf(cmd_rows, sizeof cmd_rows, "%s", rows ? rows : "");
    char *argv[64] = {"/usr/bin/python3", G2E_SRCDIR "/tests/pca_ref.py", (char *)path,
                      (char *)name, ks};
    int a = 5;
    for (char *t = strtok(cmd_rows, " "); t && a < 62; t = strtok(NULL, " "))
        argv[a++] = t;
    argv[a] = NULL;
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "pca_ref.py: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "pca_ref.py printed no JSON");
    run_free(&r);
    return j;
}

static double at(const cJSON *a, size_t i)
{
    const cJSON *x = cJSON_GetArrayItem(a, (int)i);
    cr_assert(cJSON_IsNumber(x), "numpy's array is shorter than %zu", i + 1);
    return x->valuedouble;
}

/* Eigenvalues to 1e-9 relative (those above 1e6 × the rounding floor; the rest, which are
 * rounding noise in both, to the floor absolutely), the k components up to sign to 1e-9
 * and the projections with the same sign, the total and the row norms to 1e-12 relative. */
static void expect_matches(const pca_result *r, const cJSON *ref, const char *what)
{
    const cJSON *var = cJSON_GetObjectItem(ref, "variance"), *comp = cJSON_GetObjectItem(ref, "components");
    const cJSON *proj = cJSON_GetObjectItem(ref, "proj");
    cr_assert_eq((size_t)cJSON_GetArraySize(var), r->d, "%s: numpy has %d variances", what,
                 cJSON_GetArraySize(var));
    double worst = 0;
    for (size_t i = 0; i < r->d; i++) {
        double want = at(var, i), got = r->variance[i];
        if (fabs(want) > 1e6 * r->floor) {
            worst = fmax(worst, fabs(got - want) / fabs(want));
            cr_expect(fabs(got - want) <= 1e-9 * fabs(want), "%s: variance %zu: %.17g, numpy %.17g",
                      what, i, got, want);
        } else {
            cr_expect(fabs(got - want) <= 2 * r->floor, "%s: variance %zu at the floor %.3g: %.17g, "
                      "numpy %.17g", what, i, r->floor, got, want);
        }
    }
    cr_expect(fabs(r->total - cJSON_GetObjectItem(ref, "total")->valuedouble) <= 1e-12 * r->total,
              "%s: total", what);
    for (size_t j = 0; j < r->k; j++) {
        const cJSON *v = cJSON_GetArrayItem(comp, (int)j);
        double d = 0;
        for (size_t i = 0; i < r->d; i++)
            d += r->components[j * r->d + i] * at(v, i);
        double s = d < 0 ? -1 : 1, e = 0, ep = 0;
        for (size_t i = 0; i < r->d; i++)
            e = fmax(e, fabs(r->components[j * r->d + i] - s * at(v, i)));
        for (size_t p = 0; p < r->n; p++)
            ep = fmax(ep, fabs(r->proj[p * r->k + j] - s * at(cJSON_GetArrayItem(proj, (int)p), j)));
        cr_expect(e < 1e-9, "%s: component %zu differs from numpy's by %g", what, j, e);
        cr_expect(ep < 1e-9 * sqrt(r->variance[0]) * 10, "%s: projection on %zu differs by %g",
                  what, j, ep);
    }
    cr_log_info("%s: largest relative eigenvalue difference from numpy %.3g", what, worst);
}

/* Writes fixture o into a temp dir, opens it; path and model returned. */
static g2e_model *fixture_model(const fixture_opts *o, const char *tag, char **path)
{
    char *dir = test_tmpdir(tag);
    *path = path_join(dir, "m.safetensors");
    free(dir);
    char e[256];
    cr_assert_eq(fixture_write(*path, o, e, sizeof e), 0, "%s", e);
    g2e_model *m = NULL;
    g2e_err err;
    cr_assert_eq(model_open(&m, *path, &err), 0, "%s", err.msg);
    return m;
}

static void wpe_against_numpy(const fixture_opts *o, const char *tag, size_t k)
{
    char *path;
    g2e_model *m = fixture_model(o, tag, &path);
    float *wpe = malloc(m->n_ctx * m->n_embd * sizeof *wpe);
    g2e_err e;
    for (size_t p = 0; p < m->n_ctx; p++)
        cr_assert_eq(model_wpe_row(m, p, wpe + p * m->n_embd, &e), 0, "%s", e.msg);
    pca_result r;
    cr_assert_eq(pca_compute_f32(wpe, m->n_ctx, m->n_embd, k, &r, &e), 0, "%s", e.msg);
    cJSON *ref = numpy_pca(path, "wpe.weight", k, NULL);
    expect_matches(&r, ref, tag);
    double *norms = malloc(m->n_ctx * sizeof *norms);
    pca_row_norms(wpe, m->n_ctx, m->n_embd, norms);
    const cJSON *rn = cJSON_GetObjectItem(ref, "norms");
    for (size_t p = 0; p < m->n_ctx; p++)
        cr_expect(fabs(norms[p] - at(rn, p)) <= 1e-12 * at(rn, p), "%s: norm of row %zu", tag, p);
    free(norms);
    cJSON_Delete(ref);
    pca_free(&r);
    free(wpe);
    model_close(m);
    free(path);
}

Test(pca, tiny_fixture_wpe_matches_numpy)
{
    fixture_opts o;
    fixture_tiny(&o);
    wpe_against_numpy(&o, "pca-tiny", 8);
}

Test(pca, tiny_fixture_bf16_wpe_matches_numpy)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.dtype = ST_BF16;
    o.prefix = "transformer.";
    wpe_against_numpy(&o, "pca-tiny-bf16", 3);
}

/* wpe with gpt2's shape (1024 × 768), every row written */
Test(pca, gpt2_shaped_wpe_matches_numpy, .timeout = 120)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_ctx = 1024;
    o.n_embd = 768;
    wpe_against_numpy(&o, "pca-gpt2-wpe", 10);
}

/* Fewer rows than columns (chosen wte rows): rank n − 1, the rest at the floor. */
Test(pca, few_wte_rows_match_numpy)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_embd = 32;
    char *path;
    g2e_model *m = fixture_model(&o, "pca-wte-rows", &path);
    const uint64_t ids[5] = {3, 17, 40, 41, 63};
    float x[5 * 32];
    g2e_err e;
    for (size_t i = 0; i < 5; i++)
        cr_assert_eq(model_wte_row(m, ids[i], x + i * 32, &e), 0, "%s", e.msg);
    pca_result r;
    cr_assert_eq(pca_compute_f32(x, 5, 32, 4, &r, &e), 0, "%s", e.msg);
    cJSON *ref = numpy_pca(path, "wte.weight", 4, "3 17 40 41 63");
    expect_matches(&r, ref, "wte rows");
    for (size_t i = 4; i < 32; i++)
        cr_expect(fabs(r.variance[i]) <= r.floor, "variance %zu = %g above the floor %g", i,
                  r.variance[i], r.floor);
    cJSON_Delete(ref);
    pca_free(&r);
    model_close(m);
    free(path);
}

/* A helix plus noise: x_p = a cos(2πp/T) u + a sin(2πp/T) v + b (p/n − ½) w + σ·noise with
 * orthonormal u, v, w. The first two components must span the circle's plane and explain its
 * (planted) variance, the third the axis. */
Test(pca, recovers_a_planted_helix)
{
    enum { N = 1024, D = 96, T = 256 };
    const double a = 1.0, b = 1.5, sigma = 0.01;
    static double X[N * D], U[3][D];
    uint64_t st = 12345;
    for (int q = 0; q < 3; q++) {   /* Gram–Schmidt on random vectors */
        for (int i = 0; i < D; i++)
            U[q][i] = (double)(st = st * 6364136223846793005ULL + 1442695040888963407ULL) / 1.8e19 - 0.5;
        for (int p = 0; p < q; p++) {
            double dd = 0;
            for (int i = 0; i < D; i++) dd += U[q][i] * U[p][i];
            for (int i = 0; i < D; i++) U[q][i] -= dd * U[p][i];
        }
        double nn = 0;
        for (int i = 0; i < D; i++) nn += U[q][i] * U[q][i];
        for (int i = 0; i < D; i++) U[q][i] /= sqrt(nn);
    }
    /* the axis term is a ramp made orthogonal to the (full-period) cosine and sine, so that
     * the three planted directions are exactly uncorrelated and their variances known */
    static double cc[N], ss[N], zz[N];
    double c2 = 0, s2 = 0, zc = 0, zs = 0, zm = 0;
    for (int p = 0; p < N; p++) {
        cc[p] = a * cos(2 * M_PI * p / T), ss[p] = a * sin(2 * M_PI * p / T);
        zz[p] = b * ((double)p / N - 0.5);
        c2 += cc[p] * cc[p], s2 += ss[p] * ss[p], zc += zz[p] * cc[p], zs += zz[p] * ss[p];
    }
    for (int p = 0; p < N; p++)
        zz[p] -= zc / c2 * cc[p] + zs / s2 * ss[p], zm += zz[p] / N;
    double planted_circle = (c2 + s2) / (N - 1), planted_axis = 0;
    for (int p = 0; p < N; p++) {
        zz[p] -= zm;
        planted_axis += zz[p] * zz[p] / (N - 1);
        for (int i = 0; i < D; i++) {
            /* noise: a sum of 4 uniforms, scaled to standard deviation sigma */
            double g = 0;
            for (int t = 0; t < 4; t++)
                g += (double)((st = st * 6364136223846793005ULL + 1442695040888963407ULL) >> 11) * 0x1p-53 - 0.5;
            X[p * D + i] = cc[p] * U[0][i] + ss[p] * U[1][i] + zz[p] * U[2][i] + sigma * g * sqrt(3.0);
        }
    }
    pca_result r;
    g2e_err e;
    cr_assert_eq(pca_compute(X, N, D, 3, &r, &e), 0, "%s", e.msg);
    double top2 = r.variance[0] + r.variance[1];
    /* noise adds about 2σ² to the two and a cross term of order aσ/√N */
    cr_expect(fabs(top2 - planted_circle) < 2e-3, "PC1+PC2 %.6f, planted %.6f", top2, planted_circle);
    cr_expect(fabs(r.variance[2] - planted_axis) < 2e-3, "PC3 %.6f, planted %.6f", r.variance[2],
              planted_axis);
    double noise_total = (double)D * sigma * sigma;
    double planted_ratio = planted_circle / (planted_circle + planted_axis + noise_total);
    cr_expect(fabs(pca_ratio(&r, 0) + pca_ratio(&r, 1) - planted_ratio) < 2e-3,
              "explained %.6f, planted %.6f", pca_ratio(&r, 0) + pca_ratio(&r, 1), planted_ratio);
    /* u and v lie in span(PC1, PC2); w along PC3 */
    for (int q = 0; q < 3; q++) {
        double in = 0;
        for (size_t j = (q < 2 ? 0 : 2); j < (q < 2 ? 2u : 3u); j++) {
            double dd = 0;
            for (int i = 0; i < D; i++) dd += U[q][i] * r.components[j * D + i];
            in += dd * dd;
        }
        cr_expect(in > 0.9999, "planted direction %d: only %.6f of it in the recovered span", q, in);
    }
    /* the projections on PC1, PC2 trace the circle: radius a at every position */
    for (int p = 0; p < N; p++) {
        double rad = hypot(r.proj[p * 3], r.proj[p * 3 + 1]);
        cr_expect(fabs(rad - a) < 0.05, "position %d: radius %.4f", p, rad);
    }
    pca_free(&r);
}

Test(pca, signs_and_order_follow_the_convention)
{
    /* variance 4 along column 1, 1 along column 0 (negative-going), 0 along column 2 */
    double X[4 * 3] = {1, 2, 5, -1, -2, 5, 1, -2, 5, -1, 2, 5};
    pca_result r;
    g2e_err e;
    cr_assert_eq(pca_compute(X, 4, 3, 3, &r, &e), 0, "%s", e.msg);
    cr_expect_float_eq(r.variance[0], 16.0 / 3, 1e-13);
    cr_expect_float_eq(r.variance[1], 4.0 / 3, 1e-13);
    cr_expect(fabs(r.variance[2]) <= r.floor);
    cr_expect_float_eq(r.components[1], 1.0, 1e-13);     /* PC1 = +e1 */
    cr_expect_float_eq(r.components[3 + 0], 1.0, 1e-13); /* PC2 = +e0 */
    cr_expect_float_eq(r.mean[2], 5.0, 1e-15);
    cr_expect_float_eq(r.total, 20.0 / 3, 1e-13);
    cr_expect_float_eq(r.proj[0 * 3 + 0], 2.0, 1e-13);
    cr_expect_float_eq(r.proj[1 * 3 + 1], -1.0, 1e-13);
    /* two components above the floor; the variance table's ratios 0.8, 0.2 and their sum */
    cr_expect_eq(pca_signal_count(&r), 2);
    double v[3 * 4];
    pca_variance_rows(&r, v);
    cr_expect(v[0] == 1 && v[4] == 2 && v[8] == 3);
    cr_expect_float_eq(v[1], 16.0 / 3, 1e-13);
    cr_expect_float_eq(v[2], 0.8, 1e-13);
    cr_expect_float_eq(v[6], 0.2, 1e-13);
    cr_expect_float_eq(v[7], 1.0, 1e-13);
    cr_expect_float_eq(v[11], 1.0, 1e-13);
    pca_free(&r);
}

Test(pca, errors)
{
    double X[6] = {1, 2, 3, 4, 5, 6};
    pca_result r;
    g2e_err e;
    cr_expect_eq(pca_compute(X, 1, 6, 1, &r, &e), PCA_E_SHAPE);
    cr_expect(strstr(e.msg, "at least 2 rows"), "%s", e.msg);
    cr_expect_eq(pca_compute(X, 2, 3, 4, &r, &e), PCA_E_SHAPE);
    cr_expect_eq(pca_compute(X, 6, 0, 0, &r, &e), PCA_E_SHAPE);
    cr_expect_eq(pca_compute(X, SIZE_MAX / 2, 3, 1, &r, &e), PCA_E_SHAPE);
    X[4] = NAN;
    cr_expect_eq(pca_compute(X, 2, 3, 1, &r, &e), PCA_E_VALUE);
    cr_expect(strstr(e.msg, "row 1, column 1 is NaN"), "%s", e.msg);
    X[4] = INFINITY;
    cr_expect_eq(pca_compute(X, 3, 2, 0, &r, &e), PCA_E_VALUE);
    cr_expect(r.variance == NULL && r.components == NULL);
    pca_free(&r);
    pca_free(NULL);
    /* k = 0: the variances alone */
    X[4] = 5;
    cr_assert_eq(pca_compute(X, 3, 2, 0, &r, &e), 0, "%s", e.msg);
    cr_expect_float_eq(r.variance[0], 8.0, 1e-13);   /* columns (1,3,5), (2,4,6): var 4 each, equal */
    cr_expect(fabs(r.variance[1]) <= r.floor);
    pca_free(&r);
}

/* ---- the command ---- */

/* The tiny fixture (n_ctx and n_embd replaced where not 0) written under tag and checked
 * by opening it; its path (caller frees). */
static char *tiny_file(const char *tag, uint64_t n_ctx, uint64_t n_embd)
{
    fixture_opts o;
    fixture_tiny(&o);
    if (n_ctx)
        o.n_ctx = n_ctx;
    if (n_embd)
        o.n_embd = n_embd;
    char *path;
    model_close(fixture_model(&o, tag, &path));
    return path;
}

Test(pca_cli, variance_json_matches_numpy)
{
    char *path = tiny_file("pca-cli-json", 300, 24);
    run_result r = run_g2e("pca", "--format", "json", "--weights", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *ref = numpy_pca(path, "wpe.weight", 3, NULL);
    cr_assert(j, "%s", r.out);
    const cJSON *var = cJSON_GetObjectItem(j, "variance"), *want = cJSON_GetObjectItem(ref, "variance");
    const cJSON *cum = cJSON_GetObjectItem(j, "cumulative");
    cr_assert_eq(cJSON_GetArraySize(var), 24);
    double total = cJSON_GetObjectItem(ref, "total")->valuedouble, run = 0;
    for (int i = 0; i < 24; i++) {
        double a = at(var, (size_t)i), b = at(want, (size_t)i);
        cr_expect(fabs(a - b) <= 1e-9 * fabs(b), "variance %d: %.17g vs numpy %.17g", i, a, b);
        run += b / total;
        cr_expect(fabs(at(cum, (size_t)i) - run) < 1e-12, "cumulative %d", i);
    }
    cr_expect_eq(cJSON_GetObjectItem(j, "rows")->valueint, 300);
    cJSON_Delete(j), cJSON_Delete(ref);
    run_free(&r);
    /* the table shows the first K (default 10) */
    r = run_g2e("pca", "--weights", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "PC1 and PC2 explain") && strstr(r.out, "\n        10 ") &&
              !strstr(r.out, "\n        11 "), "%s", r.out);
    run_free(&r);
    free(path);
}

/* numpy reads the npy the command wrote and compares it with its own projections */
Test(pca_cli, projections_npy_match_numpy)
{
    char *path = tiny_file("pca-cli-proj", 128, 16);
    char *dir = test_tmpdir("pca-cli-proj-out"), *npy = path_join(dir, "p.npy");
    run_result r = run_g2e("pca", "--proj", "-k", "3", "-o", npy, "--weights", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char code[1024];
    snprintf(code, sizeof code,
             "import json, subprocess, numpy as np\n"
             "ref = json.loads(subprocess.check_output(['/usr/bin/python3', '%s/tests/pca_ref.py', "
             "'%s', 'wpe.weight', '3']))\n"
             "p = np.array(ref['proj']); a = np.load('%s')\n"
             "s = np.sign((a * p).sum(axis=0))\n"
             "print(a.dtype, a.shape, float(np.abs(a - (p * s).astype(np.float32)).max()))\n",
             G2E_SRCDIR, path, npy);
    char *argv[] = {"/usr/bin/python3", "-c", code, NULL};
    r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    double diff = 1;
    cr_assert(sscanf(r.out, "float32 (128, 3) %lf", &diff) == 1, "%s", r.out);
    cr_expect(diff < 1e-5, "projections differ from numpy's by %g", diff);
    run_free(&r);
    free(npy), free(dir), free(path);
}

Test(pca_cli, wte_rows_and_sinusoidal_match_numpy)
{
    char *path = tiny_file("pca-cli-wte", 0, 12);
    run_result r = run_g2e("pca", "--of", "wte", "--ids", "5 9 33 2 60 61", "--format", "json",
                           "--weights", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *ref = numpy_pca(path, "wte.weight", 1, "5 9 33 2 60 61");
    for (int i = 0; i < 5; i++) {   /* rank 5: the rest are at the floor */
        double a = at(cJSON_GetObjectItem(j, "variance"), (size_t)i);
        double b = at(cJSON_GetObjectItem(ref, "variance"), (size_t)i);
        cr_expect(fabs(a - b) <= 1e-9 * b, "wte variance %d: %.17g vs %.17g", i, a, b);
    }
    cJSON_Delete(j), cJSON_Delete(ref);
    run_free(&r);
    r = run_g2e("pca", "--of", "sinusoidal", "--len", "64", "--dim", "16", "--format", "json", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    j = cJSON_Parse(r.out);
    ref = numpy_pca("-", "sinusoidal:64:16:10000", 1, NULL);
    for (int i = 0; i < 16; i++) {
        double a = at(cJSON_GetObjectItem(j, "variance"), (size_t)i);
        double b = at(cJSON_GetObjectItem(ref, "variance"), (size_t)i);
        cr_expect(fabs(a - b) <= 1e-9 * fabs(b) + 1e-12, "PE variance %d: %.17g vs %.17g", i, a, b);
    }
    cJSON_Delete(j), cJSON_Delete(ref);
    run_free(&r);
    free(path);
}

/* --skip 1 is the PCA of rows 1.. (numpy on those rows); projections keep their positions */
Test(pca_cli, skip_leaves_out_the_first_positions)
{
    char *path = tiny_file("pca-cli-skip", 0, 0);
    run_result r = run_g2e("pca", "--skip", "1", "--format", "json", "--weights", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cJSON *ref = numpy_pca(path, "wpe.weight", 1, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15");
    cr_expect_eq(cJSON_GetObjectItem(j, "rows")->valueint, 15);
    for (size_t i = 0; i < 8; i++) {
        double a = at(cJSON_GetObjectItem(j, "variance"), i), b = at(cJSON_GetObjectItem(ref, "variance"), i);
        cr_expect(fabs(a - b) <= 1e-9 * b, "variance %zu: %.17g vs numpy %.17g", i, a, b);
    }
    cJSON_Delete(j), cJSON_Delete(ref);
    run_free(&r);
    r = run_g2e("pca", "--skip", "1", "--proj", "-k", "1", "--format", "csv", "--weights", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strncmp(r.out, "position,pc1\n1,", 15) == 0, "%s", r.out);
    run_free(&r);
    r = run_g2e("pca", "--skip", "16", "--weights", path, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "leaves no rows"), "%s", r.err);
    run_free(&r);
    free(path);
}

Test(pca_cli, figures_and_errors)
{
    char *path = tiny_file("pca-cli-err", 0, 0);
    char *dir = test_tmpdir("pca-cli-figs"), *figs = path_join(dir, "figs");
    run_result r = run_g2e("pca", "-k", "2", "--plot", figs, "--weights", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    const char *names[] = {"pca-components.png", "pca-pc1-pc2.png", "pca-pc2-pc3.png",
                           "pca-variance.png"};
    for (int i = 0; i < 4; i++) {
        char *f = path_join(figs, names[i]);
        png p = pngcheck_load(f);
        cr_expect(p.w >= 400 && pngcheck_dark(&p, 0, 0, p.w, p.h) > 500, "%s", names[i]);
        pngcheck_free(&p);
        free(f);
    }
    struct { const char *a[8]; int status; const char *msg; } bad[] = {
        {{"pca", "--ids", "1 2", "--weights", path}, 2, "add --of wte"},
        {{"pca", "--proj", "--components", "--weights", path}, 2, "pick one"},
        {{"pca", "--len", "5", "--weights", path}, 2, "describe --of sinusoidal"},
        {{"pca", "--of", "sinusoidal", "--dim", "7"}, 2, "even"},
        {{"pca", "-k", "9", "--weights", path}, 1, "more components than the 8 columns"},
        {{"pca", "--of", "wte", "--ids", "64 1", "--weights", path}, 1, "out of range"},
        {{"pca", "--of", "wte", "--ids", "7", "--weights", path}, 1, "at least 2 rows"},
        {{"pca", "--format", "json", "-o", "x.csv", "--weights", path}, 2, "csv"},
        {{"pca", "--of", "wte", "--skip", "1", "--weights", path}, 2, "--skip leaves out positions"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_g2e(bad[i].a[0], bad[i].a[1], bad[i].a[2], bad[i].a[3], bad[i].a[4], bad[i].a[5],
                    bad[i].a[6], NULL);
        cr_expect_eq(r.status, bad[i].status, "case %zu: status %d: %s", i, r.status, r.err);
        cr_expect(strstr(r.err, bad[i].msg), "case %zu: %s", i, r.err);
        cr_expect_eq(r.out_len, 0, "case %zu wrote to stdout", i);
        run_free(&r);
    }
    free(figs), free(dir), free(path);
}

/* The table stops at the noise floor: 6 wte rows have 5 components, so the default -k 10
 * showed 5 rows of noise as if they were components (seen in the acceptance check). */
Test(pca_cli, table_leaves_out_noise_components)
{
    char *path = tiny_file("pca-cli-noise", 0, 12);
    run_result r = run_g2e("pca", "--of", "wte", "--ids", "5 9 33 2 60 61", "--weights", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "the first 5 explain 100.00%"), "%s", r.out);
    cr_expect(strstr(r.out, "components 6..10 are at the rounding-noise floor (6 rows, centred, have "
                            "at most 5 components)"), "%s", r.out);
    cr_expect(strstr(r.out, "\n         5 ") && !strstr(r.out, "\n         6 "), "%s", r.out);
    run_free(&r);
    /* JSON keeps every component, the floor beside them */
    r = run_g2e("pca", "--of", "wte", "--ids", "5 9 33 2 60 61", "--format", "json", "--weights",
                path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "variance")), 12);
    cJSON_Delete(j);
    run_free(&r);
    /* enough rows: no note, the table has k rows */
    r = run_g2e("pca", "--of", "wte", "--ids", "5 9 33 2 60 61", "-k", "4", "--weights", path, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(!strstr(r.out, "noise floor") && strstr(r.out, "\n         4 ") &&
              !strstr(r.out, "\n         5 "), "%s", r.out);
    run_free(&r);
    free(path);
}
