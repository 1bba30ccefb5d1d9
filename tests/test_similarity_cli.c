/* SPDX-License-Identifier: MIT */
/* test_similarity_cli.c — exercise, similarity, nearest and stats through the built program,
 * on a fixture with gpt2's vocabulary and context (50257 x 16, 1024 x 16, every row written),
 * checked against naive double loops over the fixture's own values and the JSON schema. */
#include "fixture.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define C 16
static fixture_opts fo;
static char *dir, *wpath;

static void setup(void)
{
    memset(&fo, 0, sizeof fo);
    fo.n_vocab = 50257;
    fo.n_ctx = 1024;
    fo.n_embd = C;
    fo.dtype = ST_F32;
    dir = test_tmpdir("simcli");
    wpath = path_join(dir, "w.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(wpath, &fo, e, sizeof e), 0, "%s", e);
}

TestSuite(simcli, .init = setup);

static void row(int which, uint64_t r, double *out)
{
    for (int c = 0; c < C; c++)
        out[c] = fixture_expected(&fo, which, r, (uint64_t)c);
}

static double ncos(const double *a, const double *b)
{
    double d = 0, x = 0, y = 0;
    for (int c = 0; c < C; c++) { d += a[c] * b[c]; x += a[c] * a[c]; y += b[c] * b[c]; }
    return d / (sqrt(x) * sqrt(y));
}

/* cos(wpe[p], wpe[q]) or, with id >= 0, of wte[id] + wpe[p] and wte[id] + wpe[q] (the sums
 * rounded to float32 as the program's vectors are). */
static double ref_cos(long id, uint64_t p, uint64_t q)
{
    double a[C], b[C], t[C];
    row(FIXTURE_WPE, p, a);
    row(FIXTURE_WPE, q, b);
    if (id >= 0) {
        row(FIXTURE_WTE, (uint64_t)id, t);
        for (int c = 0; c < C; c++) {
            a[c] = (float)((float)t[c] + (float)a[c]);
            b[c] = (float)((float)t[c] + (float)b[c]);
        }
    }
    return ncos(a, b);
}

static run_result g2e(char *const args[])
{
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)G2E_TEST_BIN;
    for (int i = 0; args[i]; i++) argv[n++] = args[i];
    argv[n++] = "--weights";
    argv[n++] = wpath;
    argv[n] = NULL;
    return run_argv(argv, NULL, 0, NULL, NULL);
}

static double jnum(cJSON *o, const char *k)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    cr_assert(cJSON_IsNumber(v), "key %s missing or not a number", k);
    return v->valuedouble;
}

Test(simcli, exercise_json_schema_and_values)
{
    run_result r = g2e((char *[]){"exercise", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "not JSON: %s", r.out);
    cJSON *e1 = cJSON_GetObjectItemCaseSensitive(j, "exercise1");
    cJSON *e2 = cJSON_GetObjectItemCaseSensitive(j, "exercise2");
    cr_assert(cJSON_IsObject(e1) && cJSON_IsObject(e2));
    cr_expect_eq(jnum(e1, "gpt2_wpe_params"), 786432);
    cr_expect_eq(jnum(e1, "wpe_params"), 16777216);
    cr_expect_eq(jnum(e1, "ratio"), 16777216.0 / 786432.0);
    cJSON *shape = cJSON_GetObjectItemCaseSensitive(e2, "wpe_shape");
    cr_assert(cJSON_IsArray(shape) && cJSON_GetArraySize(shape) == 2);
    cr_expect_eq(cJSON_GetArrayItem(shape, 0)->valuedouble, 1024);
    cr_expect_eq(cJSON_GetArrayItem(shape, 1)->valuedouble, C);
    cr_expect(fabs(jnum(e2, "cos_pos0_pos1") - ref_cos(-1, 0, 1)) < 1e-9);
    cr_expect(fabs(jnum(e2, "cos_pos0_pos500") - ref_cos(-1, 0, 500)) < 1e-9);
    cr_expect_eq(jnum(e2, "cat_token_id"), 3797);
    cr_expect(fabs(jnum(e2, "cos_cat_pos0_pos5") - ref_cos(3797, 0, 5)) < 1e-9);
    cJSON_Delete(j);
    run_free(&r);
}

Test(simcli, exercise_text_four_decimals)
{
    run_result r = g2e((char *[]){"exercise", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    char want[64];
    cr_expect(strstr(r.out, "786,432") && strstr(r.out, "16,777,216") && strstr(r.out, "21.3333"), "%s", r.out);
    snprintf(want, sizeof want, "%.4f\n", ref_cos(-1, 0, 500));
    cr_expect(strstr(r.out, want) != NULL, "want %s in %s", want, r.out);
    snprintf(want, sizeof want, "%.4f\n", ref_cos(3797, 0, 5));
    cr_expect(strstr(r.out, want) != NULL, "want %s in %s", want, r.out);
    cr_expect(strstr(r.out, "3797") != NULL);
    run_free(&r);
}

Test(simcli, exercise1_other_model_and_without_weights)
{
    run_result r = g2e((char *[]){"exercise", "1", "--ctx", "2048", "--dim", "1024", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j);
    cJSON *e1 = cJSON_GetObjectItemCaseSensitive(j, "exercise1");
    cr_expect_eq(jnum(e1, "wpe_params"), 2097152);
    cr_expect_eq(jnum(e1, "ratio"), 2097152.0 / 786432.0);
    cr_expect_eq(jnum(e1, "file_wte_params"), 50257.0 * C);
    cr_expect_null(cJSON_GetObjectItemCaseSensitive(j, "exercise2"));
    cJSON_Delete(j);
    run_free(&r);
    /* no weights anywhere: exercise 1 still works, exercise 2 explains how to get them */
    char home[4096];
    snprintf(home, sizeof home, "HOME=%s", dir);
    char *env[] = {home, "-GPT2_EMBED_WEIGHTS", "-HF_HOME", "-HF_HUB_CACHE", NULL};
    r = run_argv((char *[]){G2E_TEST_BIN, "exercise", "1", NULL}, NULL, 0, env, dir);
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "16,777,216") != NULL);
    run_free(&r);
    /* plain `exercise` without weights: exercise 1, and a note of what exercise 2 needs
     * (issue 10); asking for 2 by name is an error after exercise 1 */
    r = run_argv((char *[]){G2E_TEST_BIN, "exercise", NULL}, NULL, 0, env, dir);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "Exercise 1:") && strstr(r.out, "16,777,216") && !strstr(r.out, "Exercise 2:"),
              "%s", r.out);
    cr_expect(strstr(r.out, "Exercise 2 is not computed: it needs GPT-2's weights"), "%s", r.out);
    cr_expect(strncmp(r.err, "gpt2-embed: note: exercise 2 needs GPT-2's weights: ", 52) == 0, "%s", r.err);
    cr_expect(strstr(r.err, "gpt2-embed download") != NULL, "%s", r.err);
    run_free(&r);
    r = run_argv((char *[]){G2E_TEST_BIN, "exercise", "1", "2", NULL}, NULL, 0, env, dir);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.out, "Exercise 1:") != NULL, "%s", r.out);
    cr_expect(strncmp(r.err, "gpt2-embed: exercise 2 needs GPT-2's weights: ", 46) == 0, "%s", r.err);
    run_free(&r);
    r = run_argv((char *[]){G2E_TEST_BIN, "exercise", "2", "--format", "json", NULL}, NULL, 0, env, dir);
    cr_expect_eq(r.status, 1);
    cr_expect_eq(r.out_len, 0, "%s", r.out);
    run_free(&r);
}

/* issue 10: `exercise 2 --format json` printed exercise 1 too, `exercise 1 2` only 2 */
Test(simcli, exercise_numbers_select_exactly)
{
    run_result r = g2e((char *[]){"exercise", "2", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    cr_expect_null(cJSON_GetObjectItemCaseSensitive(j, "exercise1"));
    cr_expect(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "exercise2")));
    cr_expect_eq(jnum(cJSON_GetObjectItemCaseSensitive(j, "exercise2"), "cat_token_id"), 3797);
    cJSON_Delete(j);
    run_free(&r);
    r = g2e((char *[]){"exercise", "1", "2", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "Exercise 1:") && strstr(r.out, "Exercise 2:"), "%s", r.out);
    run_free(&r);
    r = g2e((char *[]){"exercise", "2", NULL});
    cr_expect(!strstr(r.out, "Exercise 1:") && strstr(r.out, "Exercise 2:"), "%s", r.out);
    run_free(&r);
    r = g2e((char *[]){"exercise", "3", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed exercise: there are exercises 1 and 2, got '3'\n");
    run_free(&r);
}

Test(simcli, pairs)
{
    run_result r = g2e((char *[]){"similarity", "--pos", "3", "900", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j);
    cr_expect(fabs(jnum(j, "cos") - ref_cos(-1, 3, 900)) < 1e-9);
    cJSON_Delete(j);
    run_free(&r);

    r = g2e((char *[]){"similarity", "--at", " cat", "0", "5", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    j = cJSON_Parse(r.out);
    cr_expect(fabs(jnum(j, "cos") - ref_cos(3797, 0, 5)) < 1e-9);
    cJSON_Delete(j);
    run_free(&r);

    r = g2e((char *[]){"similarity", "--tokens", " cat", " dog", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    j = cJSON_Parse(r.out);
    double a[C], b[C];
    row(FIXTURE_WTE, 3797, a);
    row(FIXTURE_WTE, 3290, b);   /* " dog" */
    cr_expect(fabs(jnum(j, "cos") - ncos(a, b)) < 1e-9);
    cJSON_Delete(j);
    run_free(&r);
}

/* issue 23: a token by its ID wherever one token is asked for; a number alone is a text,
 * and the note names the token used and how to give the ID */
Test(simcli, tokens_by_id)
{
    run_result r = g2e((char *[]){"similarity", "--at", "id:163", "0", "5", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    cr_expect(fabs(jnum(j, "cos") - ref_cos(163, 0, 5)) < 1e-9);
    cr_expect(strstr(r.out, "wte[163 '\\\\xE7']"), "the token is named: %s", r.out);
    cJSON_Delete(j);
    run_free(&r);
    r = g2e((char *[]){"similarity", "--at", "#163", "0", "5", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    j = cJSON_Parse(r.out);
    cr_expect(fabs(jnum(j, "cos") - ref_cos(163, 0, 5)) < 1e-9);
    cJSON_Delete(j);
    run_free(&r);
    /* "163" is the text 163, token 24136: used, named, and the ID's syntax said */
    r = g2e((char *[]){"similarity", "--at", "163", "0", "5", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    j = cJSON_Parse(r.out);
    cr_expect(fabs(jnum(j, "cos") - ref_cos(24136, 0, 5)) < 1e-9);
    cr_expect(strstr(r.err, "'163' is read as text: token 24136 '163'; for the token with ID 163 write id:163"),
              "%s", r.err);
    cJSON_Delete(j);
    run_free(&r);
    r = g2e((char *[]){"similarity", "--at", "text:163", "0", "5", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(!strstr(r.err, "is read as text"), "%s", r.err);
    run_free(&r);
    r = g2e((char *[]){"similarity", "--tokens", "id:163", "id:3797", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    j = cJSON_Parse(r.out);
    double a[C], b[C];
    row(FIXTURE_WTE, 163, a);
    row(FIXTURE_WTE, 3797, b);
    cr_expect(fabs(jnum(j, "cos") - ncos(a, b)) < 1e-9);
    cJSON_Delete(j);
    run_free(&r);
    /* 猫 is three tokens: the error, then how to give one of them */
    r = g2e((char *[]){"similarity", "--at", "猫", "0", "5", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "(give one of them by its ID, e.g. id:163)\n"), "%s", r.err);
    cr_expect(strchr(r.err, '\n') == r.err + r.err_len - 1, "one line: %s", r.err);
    run_free(&r);
    r = g2e((char *[]){"similarity", "--at", "id:50257", "0", "5", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect_str_eq(r.err, "gpt2-embed: 'id:50257': no token has ID 50257 (IDs are 0..50256)\n");
    run_free(&r);
    r = g2e((char *[]){"nearest", "id:3797", "-k", "3", NULL});
    run_result q = g2e((char *[]){"nearest", "--id", "3797", "-k", "3", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_str_eq(r.out, q.out);
    cr_expect(strstr(r.out, "3797 '\xE2\x90\xA3" "cat'"), "the query is named: %s", r.out);
    run_free(&r), run_free(&q);
}

Test(simcli, pair_errors)
{
    run_result r = g2e((char *[]){"similarity", "--pos", "0", "1024", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed similarity: --pos needs two integers in 0..1023, got '1024'\n");
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
    r = g2e((char *[]){"similarity", "--pos", "-1", "5", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed similarity: --pos needs two integers in 0..1023, got '-1'\n");
    run_free(&r);
    r = g2e((char *[]){"similarity", "--tokens", "cats are", " dog", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "is 2 tokens") != NULL, "%s", r.err);
    run_free(&r);
    r = g2e((char *[]){"similarity", "--pos", "0", NULL});
    cr_expect_eq(r.status, 2);
    run_free(&r);
    r = g2e((char *[]){"similarity", NULL});
    cr_expect_eq(r.status, 2);
    run_free(&r);
}

Test(simcli, matrix_file_loads_in_numpy)
{
    char *npy = path_join(dir, "m.npy");
    run_result r = g2e((char *[]){"similarity", "--matrix", "-o", npy, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "distance") && strstr(r.out, "nearest"), "summary: %s", r.out);
    /* the nearest and farthest other position of position 1, as numpy finds them in the file
     * (the first on ties) */
    size_t near = 0, far = 0;
    const char *head = strstr(r.out, "nearest (cos)"), *row = head ? strstr(head, "\n        1 ") : NULL;
    cr_assert(row && sscanf(row, " 1 %zu (%*f) %zu", &near, &far) == 2, "summary: %s", r.out);
    run_free(&r);
    char code[1024];
    snprintf(code, sizeof code,
             "import numpy as np; m = np.load('%s').astype(np.float64)[1]; m[1] = -np.inf; n = int(np.argmax(m)); "
             "m[1] = np.inf; print(n, int(np.argmin(m)))", npy);
    r = run_argv((char *[]){"/usr/bin/python3", "-c", code, NULL}, NULL, 0, NULL, NULL);
    size_t wn, wf;
    cr_assert(r.status == 0 && sscanf(r.out, "%zu %zu", &wn, &wf) == 2, "python: %s%s", r.out, r.err);
    cr_expect(near == wn && far == wf, "position 1: nearest %zu, farthest %zu; numpy %zu, %zu", near, far, wn, wf);
    run_free(&r);
    snprintf(code, sizeof code,
             "import numpy as np; m = np.load('%s'); print(m.dtype, m.shape, repr(float(m[0,1])), "
             "repr(float(m[7,1000])), repr(float(m[1000,7])), repr(float(m[5,5])))", npy);
    r = run_argv((char *[]){"/usr/bin/python3", "-c", code, NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "python: %s", r.err);
    char dt[16];
    int s0, s1;
    double v01, v7, v7b, v55;
    cr_assert_eq(sscanf(r.out, "%15s (%d, %d) %lf %lf %lf %lf", dt, &s0, &s1, &v01, &v7, &v7b, &v55), 7, "%s", r.out);
    cr_expect_str_eq(dt, "float32");
    cr_expect_eq(s0, 1024);
    cr_expect_eq(s1, 1024);
    cr_expect(fabs(v01 - ref_cos(-1, 0, 1)) < 1e-7);
    cr_expect(fabs(v7 - ref_cos(-1, 7, 1000)) < 1e-7);
    cr_expect_eq(v7, v7b, "symmetric");
    cr_expect(fabs(v55 - 1.0) < 1e-7);
    run_free(&r);
    free(npy);
}

Test(simcli, by_distance_csv)
{
    run_result r = g2e((char *[]){"similarity", "--by-distance", "--format", "csv", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    size_t lines = 0;
    for (char *p = r.out; *p; p++) lines += *p == '\n';
    cr_expect_eq(lines, 1 + 1024);
    double s = 0;
    for (uint64_t p = 0; p + 3 < 1024; p++) s += ref_cos(-1, p, p + 3);
    char *l = strstr(r.out, "\n3,");
    cr_assert(l);
    double mean = strtod(l + 3, NULL);
    cr_expect(fabs(mean - s / 1021.0) < 1e-9, "%.17g vs %.17g", mean, s / 1021.0);
    run_free(&r);
}

Test(simcli, nearest_matches_naive)
{
    run_result r = g2e((char *[]){"nearest", " cat", "-k", "5", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    cJSON *hits = cJSON_GetObjectItemCaseSensitive(j, "nearest");
    cr_assert_eq(cJSON_GetArraySize(hits), 5);
    double q[C], x[C];
    row(FIXTURE_WTE, 3797, q);
    /* naive: the five best by a full scan */
    uint32_t best[5] = {0};
    double bc[5] = {-9, -9, -9, -9, -9};
    for (uint32_t id = 0; id < 50257; id++) {
        if (id == 3797) continue;
        row(FIXTURE_WTE, id, x);
        double c = ncos(q, x);
        for (int k = 0; k < 5; k++)
            if (c > bc[k]) {
                memmove(&bc[k + 1], &bc[k], (size_t)(4 - k) * sizeof bc[0]);
                memmove(&best[k + 1], &best[k], (size_t)(4 - k) * sizeof best[0]);
                bc[k] = c;
                best[k] = id;
                break;
            }
    }
    for (int k = 0; k < 5; k++) {
        cJSON *h = cJSON_GetArrayItem(hits, k);
        cr_expect_eq(jnum(h, "id"), best[k], "rank %d", k + 1);
        cr_expect(fabs(jnum(h, "cos") - bc[k]) < 1e-9);
    }
    cJSON_Delete(j);
    run_free(&r);
}

Test(simcli, nearest_vector_from_numpy_and_zero_vector)
{
    char *npy = path_join(dir, "q.npy"), *zero = path_join(dir, "z.npy");
    char code[2048];
    int o = snprintf(code, sizeof code, "import numpy as np; np.save('%s', np.array([", npy);
    for (int c = 0; c < C; c++)
        o += snprintf(code + o, sizeof code - (size_t)o, "%.9g,", (double)fixture_expected(&fo, FIXTURE_WTE, 123, (uint64_t)c));
    snprintf(code + o, sizeof code - (size_t)o, "], dtype=np.float64)); np.save('%s', np.zeros((1, %d), np.float32))", zero, C);
    run_result r = run_argv((char *[]){"/usr/bin/python3", "-c", code, NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "python: %s", r.err);
    run_free(&r);
    r = g2e((char *[]){"nearest", "--vector", npy, "-k", "1", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j);
    cJSON *h = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "nearest"), 0);
    cr_expect_eq(jnum(h, "id"), 123);
    cr_expect(fabs(jnum(h, "cos") - 1.0) < 1e-12);
    cJSON_Delete(j);
    run_free(&r);
    r = g2e((char *[]){"nearest", "--vector", zero, NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "all zeros") != NULL, "%s", r.err);
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
    free(npy);
    free(zero);
}

Test(simcli, stats_json)
{
    run_result r = g2e((char *[]){"stats", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    cJSON *wpe = cJSON_GetObjectItemCaseSensitive(j, "wpe");
    cr_expect_eq(jnum(wpe, "norm_max_row"), 0, "GPT-2-like outlier at position 0");
    double x[C], s = 0;
    for (uint64_t p = 0; p < 1024; p++) {
        row(FIXTURE_WPE, p, x);
        double n2 = 0;
        for (int c = 0; c < C; c++) n2 += x[c] * x[c];
        s += sqrt(n2);
    }
    cr_expect(fabs(jnum(wpe, "norm_mean") - s / 1024) < 1e-9);
    cr_expect_eq(jnum(cJSON_GetObjectItemCaseSensitive(j, "wte"), "rows"), 50257);
    cJSON_Delete(j);
    run_free(&r);
}

Test(simcli, nearest_options_in_every_form_and_its_usage_errors)
{
    run_result a = g2e((char *[]){"nearest", "--id", "3797", "-k", "3", "--format", "json", NULL});
    run_result b = g2e((char *[]){"nearest", "--id=3797", "--top=3", "--format=json", NULL});
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_expect_eq(b.status, 0, "%s", b.err);
    cr_expect_str_eq(a.out, b.out);
    run_free(&a);
    run_free(&b);
    a = g2e((char *[]){"nearest", " cat", "--id", "5", NULL});
    cr_expect_eq(a.status, 2);
    cr_expect_str_eq(a.err, "gpt2-embed nearest: needs exactly one query: TOKEN, --id N or --vector FILE.npy\n");
    run_free(&a);
    a = g2e((char *[]){"nearest", "--id", "5", "-k", "0", NULL});
    cr_expect_eq(a.status, 2);
    cr_expect_str_eq(a.err, "gpt2-embed nearest: --top needs an integer in 1..100000, got '0'\n");
    run_free(&a);
}

/* issue 10: `--at cat 0 5` silently used 'cat' (9246), not ' cat' (3797) */
Test(simcli, at_shows_pieces_and_notes_a_word_without_its_space)
{
    run_result r = g2e((char *[]){"similarity", "--at", "cat", "0", "5", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    char want[128];
    snprintf(want, sizeof want, "cos(wte[9246 'cat'] + wpe[0], wte[9246 'cat'] + wpe[5]) = %.6f\n",
             ref_cos(9246, 0, 5));
    /* the first line is the number; the interpretation lines follow (test_exercise_cli) */
    cr_expect(strncmp(r.out, want, strlen(want)) == 0, "%s", r.out);
    cr_expect_str_eq(r.err, "gpt2-embed: note: 'cat' has no leading space: it is token 9246 'cat', the "
                            "form at the start of a text; inside a sentence the word is ' cat', token "
                            "3797 '\xE2\x90\xA3" "cat'\n");
    run_free(&r);
    r = g2e((char *[]){"similarity", "--at", " cat", "0", "5", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    snprintf(want, sizeof want, "cos(wte[3797 '\xE2\x90\xA3" "cat'] + wpe[0], wte[3797 '\xE2\x90\xA3" "cat'] + wpe[5]) = %.6f\n",
             ref_cos(3797, 0, 5));
    cr_expect(strncmp(r.out, want, strlen(want)) == 0, "%s", r.out);
    cr_expect_eq(r.err_len, 0, "%s", r.err);
    run_free(&r);
    r = g2e((char *[]){"similarity", "--at", " cat", "0", "1024", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed similarity: --at needs TEXT and two positions in 0..1023, got '1024'\n");
    run_free(&r);
}

/* issue 10: `--by-distance -o bd.npy` wrote a text table; -o's extension now decides */
Test(simcli, formats_from_output_names)
{
    char *js = path_join(dir, "bd.JSON"), *np = path_join(dir, "bd.npy"), *csv = path_join(dir, "m.csv");
    run_result r = g2e((char *[]){"similarity", "--by-distance", "--max-distance", "3", "-o", js, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t n;
    char *txt = read_file(js, &n);
    cJSON *j = txt ? cJSON_Parse(txt) : NULL;
    cr_expect(j != NULL, "not JSON: %s", txt);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "by_distance")), 4);
    cJSON_Delete(j);
    free(txt);
    r = g2e((char *[]){"similarity", "--by-distance", "-o", np, NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "means --format npy, which similarity does not write here") != NULL, "%s", r.err);
    cr_expect_eq(access(np, F_OK), -1, "nothing written");
    run_free(&r);
    r = g2e((char *[]){"similarity", "--by-distance", "-o", js, "--format", "csv", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "means --format json, but --format csv was given") != NULL, "%s", r.err);
    run_free(&r);
    r = g2e((char *[]){"similarity", "--matrix", "-o", csv, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    txt = read_file(csv, &n);
    cr_assert(txt);
    size_t lines = 0;
    for (char *q = txt; *q; q++) lines += *q == '\n';
    cr_expect_eq(lines, 1024);
    cr_expect_eq(strtod(txt, NULL), 1.0, "cos(wpe[0], wpe[0]) first: %.20s", txt);
    free(txt);
    free(js);
    free(np);
    free(csv);
}
