/* SPDX-License-Identifier: MIT */
/* test_stats_cli.c — `gpt2-embed stats`, above all --by-position: the norms against the
 * fixture generator's own values (fixture_expected, summed here in double), the summary
 * (position 0 against the median) recomputed here, every format (npy read back by numpy),
 * the figure decoded, and the usage errors. */
#include "fixture.h"
#include "pngcheck.h"
#include "safetensors.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *fixture_path(const char *tag, fixture_opts *o)
{
    fixture_tiny(o);
    o->n_ctx = 200;   /* past the split at 100 */
    char *dir = test_tmpdir(tag), *path = path_join(dir, "m.safetensors"), e[256];
    free(dir);
    cr_assert_eq(fixture_write(path, o, e, sizeof e), 0, "%s", e);
    return path;
}

static double expected_norm(const fixture_opts *o, uint64_t p)
{
    double s = 0;
    for (uint64_t j = 0; j < o->n_embd; j++) {
        double v = fixture_expected(o, FIXTURE_WPE, p, j);
        s += v * v;
    }
    return sqrt(s);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

Test(stats_cli, by_position_json_matches_the_fixture)
{
    fixture_opts o;
    char *w = fixture_path("stats-json", &o);
    run_result r = run_g2e("stats", "--by-position", "--format", "json", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "not JSON: %s", r.out);
    const cJSON *norm = cJSON_GetObjectItem(j, "norm"), *pos = cJSON_GetObjectItem(j, "position");
    cr_assert_eq(cJSON_GetArraySize(norm), 200);
    double sorted[199];
    for (int p = 0; p < 200; p++) {
        double want = expected_norm(&o, (uint64_t)p);
        cr_expect(fabs(cJSON_GetArrayItem(norm, p)->valuedouble - want) <= 1e-14 * want,
                  "norm of position %d", p);
        cr_expect_eq(cJSON_GetArrayItem(pos, p)->valueint, p);
        if (p)
            sorted[p - 1] = want;
    }
    qsort(sorted, 199, sizeof *sorted, cmp);
    double median = sorted[99];
    cr_expect(fabs(cJSON_GetObjectItem(j, "median_norm_1_on")->valuedouble - median) < 1e-14);
    double ratio = expected_norm(&o, 0) / median;
    cr_expect(fabs(cJSON_GetObjectItem(j, "norm_0_vs_median")->valuedouble - ratio) < 1e-12);
    cr_expect(ratio > 4, "the fixture's row 0 is 8x larger: ratio %g", ratio);
    cr_expect_eq(cJSON_GetObjectItem(j, "split")->valueint, 100);
    cJSON_Delete(j);
    run_free(&r);
    free(w);
}

Test(stats_cli, by_position_table_csv_npy_and_plot)
{
    fixture_opts o;
    char *w = fixture_path("stats-formats", &o);
    run_result r = run_g2e("stats", "--by-position", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "position 0: norm") && strstr(r.out, "x the median"), "%s", r.out);
    cr_expect(strstr(r.out, "spread (std / mean)"), "%s", r.out);
    run_free(&r);
    r = run_g2e("stats", "--by-position", "--format", "csv", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strncmp(r.out, "position,norm,vs_median\n0,", 26) == 0, "%s", r.out);
    run_free(&r);
    char *dir = test_tmpdir("stats-npy"), *npy = path_join(dir, "n.npy"), *fig = path_join(dir, "n.png");
    r = run_g2e("stats", "--by-position", "-o", npy, "--plot", fig, "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    char code[512];
    snprintf(code, sizeof code, "import numpy as np; a = np.load('%s'); print(a.dtype, a.shape, "
             "'%%.9g' %% a[0], '%%.9g' %% a[199])", npy);
    char *argv[] = {"/usr/bin/python3", "-c", code, NULL};
    r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char want[128];
    snprintf(want, sizeof want, "float32 (200,) %.9g %.9g\n", (float)expected_norm(&o, 0),
             (float)expected_norm(&o, 199));
    cr_expect_str_eq(r.out, want);
    run_free(&r);
    png p = pngcheck_load(fig);
    cr_expect(p.w >= 400 && p.h >= 300, "%d x %d", p.w, p.h);
    cr_expect(pngcheck_dark(&p, 0, 0, p.w, p.h) > 1000, "the figure has ink");
    pngcheck_free(&p);
    free(npy), free(fig), free(dir), free(w);
}

Test(stats_cli, scale_table_and_usage_errors)
{
    fixture_opts o;
    char *w = fixture_path("stats-scale", &o);
    run_result r = run_g2e("stats", "--top", "2", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "mean token norm / mean position norm"), "%s", r.out);
    cr_expect(strstr(r.out, "largest wpe rows: position 0"), "%s", r.out);
    run_free(&r);
    const char *bad[][6] = {
        {"stats", "--format", "csv", NULL},
        {"stats", "--plot", "x.png", NULL},
        {"stats", "--by-position", "--format", "json", "-o", "x.npy"},
        {"stats", "--top", "11", NULL},
        {"stats", "--by-postion", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_g2e(bad[i][0], bad[i][1], bad[i][2], bad[i][3], bad[i][4], bad[i][5], NULL);
        cr_expect_eq(r.status, 2, "%s %s: status %d, %s", bad[i][1], bad[i][2], r.status, r.err);
        cr_expect(r.out_len == 0 && strchr(r.err, '\n') == r.err + r.err_len - 1,
                  "one line on stderr, nothing on stdout: %s", r.err);
        run_free(&r);
    }
    free(w);
}

/* A NaN in wte made `stats` print "std of x 0.000000" and the smallest/largest norm of the
 * other rows, as if they were results (and "std": 0 in JSON). Now every figure of that matrix
 * is nan in the table, with a line saying why, and null in JSON; wpe's stay numbers. */
Test(stats_cli, non_finite_values_make_the_matrix_figures_undefined)
{
    fixture_opts o;
    char *w = fixture_path("stats-nan", &o);
    st_file *f = NULL;
    g2e_err e;
    cr_assert_eq(st_open(&f, w, &e), 0, "%s", e.msg);
    const st_tensor *t = st_find(f, "wte.weight");
    cr_assert(t != NULL);
    off_t at = (off_t)(f->data_start + t->begin + (3 * t->shape[1] + 1) * 4);
    st_close(f);
    float nan = NAN;
    int fd = open(w, O_WRONLY);
    cr_assert(fd >= 0 && pwrite(fd, &nan, 4, at) == 4);
    close(fd);
    run_result r = run_g2e("stats", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "wte holds a NaN or an infinity: its norms, mean and std are undefined"),
              "%s", r.out);
    cr_expect(!strstr(r.out, "wpe holds"), "%s", r.out);
    const char *nan_rows[] = {"mean row norm", "smallest row norm", "largest row norm", "std of x"};
    for (size_t i = 0; i < 4; i++) {
        const char *l = strstr(r.out, nan_rows[i]);
        cr_assert(l, "%s", r.out);
        char word[32];
        cr_expect(sscanf(l + strlen(nan_rows[i]), " %31s", word) == 1 && !strcmp(word, "nan"),
                  "%s: wte's value must be nan: %.80s", nan_rows[i], l);
    }
    run_free(&r);
    r = run_g2e("stats", "--format", "json", "--weights", w, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out), *wte = cJSON_GetObjectItem(j, "wte"), *wpe = cJSON_GetObjectItem(j, "wpe");
    cr_assert(j && wte && wpe, "%s", r.out);
    const char *keys[] = {"norm_mean", "norm_min", "norm_max", "mean_abs", "mean", "std"};
    for (size_t i = 0; i < 6; i++) {
        cr_expect(cJSON_IsNull(cJSON_GetObjectItem(wte, keys[i])), "wte.%s: %s", keys[i], r.out);
        cr_expect(cJSON_IsNumber(cJSON_GetObjectItem(wpe, keys[i])), "wpe.%s", keys[i]);
    }
    cJSON_Delete(j);
    run_free(&r);
    free(w);
}

/* Two sparse fixtures that differ in one row: with rows 0..k written, rows k+1..199 read as
 * zero vectors, so the median of positions 1..199 (their 100th smallest norm) is 0 for k = 99
 * and positive for k = 100. What the program says about position 0 follows: a ratio to the
 * median only when there is one (text, Japanese, JSON, CSV). */
Test(stats_cli, position_0_against_a_zero_median_and_a_positive_one)
{
    static uint64_t rows[101];
    for (uint64_t i = 0; i < 101; i++)
        rows[i] = i;
    for (int k = 99; k <= 100; k++) {
        fixture_opts o;
        fixture_tiny(&o);
        o.n_ctx = 200;
        o.sparse = 1;
        o.wpe_rows = rows, o.n_wpe_rows = (size_t)k + 1;
        char tag[32], e[256];
        snprintf(tag, sizeof tag, "stats-median-%d", k);
        char *dir = test_tmpdir(tag), *w = path_join(dir, "m.safetensors");
        cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
        double norm0 = expected_norm(&o, 0), median = k == 99 ? 0 : expected_norm(&o, 100);
        for (uint64_t p = 1; p <= 100 && k == 100; p++)   /* the median: the smallest written norm */
            median = fmin(median, expected_norm(&o, p));
        char want[256];
        run_result r = run_g2e("stats", "--by-position", "--weights", w, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        if (k == 99) {
            snprintf(want, sizeof want, "position 0: norm %.4f; the median of positions 1..199 is 0 "
                     "(at least half of them are zero vectors), so no ratio to it is defined\n", norm0);
            cr_expect(!strstr(r.out, "x the median"), "%s", r.out);
        } else {
            cr_assert(median > 0);
            snprintf(want, sizeof want, "position 0: norm %.4f = %.2f x the median of positions 1..199 "
                     "(%.4f)\n", norm0, norm0 / median, median);
            cr_expect(!strstr(r.out, "no ratio"), "%s", r.out);
        }
        cr_expect(strstr(r.out, want), "k %d: want %s in %s", k, want, r.out);
        run_free(&r);
        r = run_g2e("--lang", "ja", "stats", "--by-position", "--weights", w, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        cr_expect((strstr(r.out, "中央値との比は定まりません") != NULL) == (k == 99), "%s", r.out);
        cr_expect((strstr(r.out, "の中央値（") != NULL) == (k == 100), "%s", r.out);
        run_free(&r);
        r = run_g2e("stats", "--by-position", "--format", "json", "--weights", w, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        cJSON *j = cJSON_Parse(r.out);
        cr_assert(j, "%s", r.out);
        const cJSON *ratio = cJSON_GetObjectItem(j, "norm_0_vs_median"), *vs = cJSON_GetObjectItem(j, "vs_median");
        cr_assert_eq(cJSON_GetArraySize(vs), 200);
        if (k == 99) {
            cr_expect(cJSON_IsNull(ratio), "no ratio: null");
            for (int p = 0; p < 200; p++)
                cr_expect(cJSON_IsNull(cJSON_GetArrayItem(vs, p)), "vs_median[%d] null", p);
        } else {
            cr_expect(cJSON_IsNumber(ratio) && fabs(ratio->valuedouble - norm0 / median) < 1e-12 * norm0 / median);
            cr_expect(fabs(cJSON_GetArrayItem(vs, 0)->valuedouble - norm0 / median) < 1e-12 * norm0 / median);
            cr_expect(cJSON_GetArrayItem(vs, 150)->valuedouble == 0, "a zero row is 0 x the median");
        }
        cJSON_Delete(j);
        run_free(&r);
        r = run_g2e("stats", "--by-position", "--format", "csv", "--weights", w, NULL);
        cr_assert_eq(r.status, 0, "%s", r.err);
        const char *row0 = strchr(r.out, '\n');   /* "0,<norm>,<vs_median>\n" */
        cr_assert(row0 && strchr(row0 + 1, '\n'));
        cr_expect((strncmp(strchr(row0 + 1, '\n') - 4, ",nan", 4) == 0) == (k == 99), "row 0: %s", row0 + 1);
        run_free(&r);
        free(w), free(dir);
    }
}
