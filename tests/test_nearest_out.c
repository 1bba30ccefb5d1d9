/* SPDX-License-Identifier: MIT */
/* test_nearest_out.c — the nearest tokens' writer (nearest_out.h): the JSON against numpy's
 * own cosines over the fixture's wte (tests/nearest_ref.py), the table's lines and the
 * closing note for a piece that holds part of a character. */
#include "nearest_out.h"
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

Test(nearest_out, json_agrees_with_numpy)
{
    fixture_opts o;
    fixture_tiny(&o);
    char e[256];
    gpt2embed_error err;
    char *dir = test_tmpdir("nearest-out"), *w = path_join(dir, "w.safetensors"), *out = path_join(dir, "n.json");
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    gpt2embed_model *m;
    gpt2embed_tokenizer *tok;
    cr_assert_eq(gpt2embed_model_open(&m, w, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(gpt2embed_tokenizer_open(&tok, NULL, &err), 0);
    float q[8];
    cr_assert_eq(gpt2embed_rows(m, GPT2EMBED_WTE, 5, 1, q, &err), 0);
    gpt2embed_hit hits[6];
    size_t n;
    cr_assert_eq(gpt2embed_nearest(m, q, 6, 5, hits, &n, &err), 0, "%s", err.message);
    FILE *f = fopen(out, "w");
    nearest_write(f, 1, tok, "wte[5 '&']", 0, hits, n);
    fclose(f);
    char *script = path_join(G2E_SRCDIR, "tests/nearest_ref.py");
    run_result r = run_argv((char *[]){"/usr/bin/python3", script, w, out, "5", "6", NULL}, NULL, 0, NULL, NULL);
    cr_expect(strstr(r.out, "EQUAL True") != NULL, "numpy: %s%s", r.out, r.err);
    run_free(&r);
    gpt2embed_tokenizer_close(tok);
    gpt2embed_model_close(m);
    free(script), free(out), free(w), free(dir);
}

Test(nearest_out, table_lines_and_the_partial_note)
{
    gpt2embed_tokenizer *tok;
    cr_assert_eq(gpt2embed_tokenizer_open(&tok, NULL, NULL), 0);
    gpt2embed_hit hits[2] = {{3797, 0.5}, {163, 0.25}};   /* " cat", and 0xE7 (part of 犬) */
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    nearest_write(f, 0, tok, "Q", 0, hits, 2);
    fclose(f);
    cr_expect(strstr(buf, "nearest wte rows to Q by cosine:\n") == buf, "%s", buf);
    cr_expect(strstr(buf, "    1    3797  \xE2\x90\xA3" "cat                     0.5000\n"), "%s", buf);
    cr_expect(strstr(buf, "    2     163  \\xE7                     0.2500\n"), "%s", buf);
    cr_expect(strstr(buf, "\\xNN: a byte of a UTF-8 character"), "%s", buf);
    cr_expect_eq(nearest_partial(tok, 163), 1);
    cr_expect_eq(nearest_partial(tok, 3797), 0);
    free(buf);
    gpt2embed_tokenizer_close(tok);
}

Test(nearest_out, queries_are_the_fixtures_rows_and_shapes_are_checked)
{
    fixture_opts o;
    fixture_tiny(&o);
    char e8[256], *dir = test_tmpdir("nearest-q"), *w = path_join(dir, "w.safetensors");
    cr_assert_eq(fixture_write(w, &o, e8, sizeof e8), 0, "%s", e8);
    gpt2embed_model *m;
    cr_assert_eq(gpt2embed_model_open(&m, w, NULL, NULL), 0);
    float q[8], scratch[8];
    g2e_err e;
    cr_assert_eq(nearest_query_token(m, 9, 1, 3, q, scratch, &e), 0, "%s", e.msg);
    for (size_t c = 0; c < 8; c++) {
        float want = fixture_expected(&o, FIXTURE_WTE, 9, c) + fixture_expected(&o, FIXTURE_WPE, 3, c);
        cr_expect(memcmp(&q[c], &want, 4) == 0, "component %zu", c);
    }
    cr_expect_eq(nearest_query_token(m, 64, 0, 0, q, scratch, &e), G2E_EINVAL);
    cr_expect_str_eq(e.msg, "token ID 64 is outside the vocabulary (0..63)");
    cr_expect_eq(nearest_query_token(m, 1, 1, 16, q, scratch, &e), G2E_EINVAL);
    cr_expect_str_eq(e.msg, "position 16 is outside wpe, which has 16 rows (0..15)");
    double v[8] = {0.1, 1, 2, 3, 4, 5, 6, 7};
    size_t shape[2] = {1, 8};
    npy_array arr = {.data = v, .count = 8, .ndim = 2};
    memcpy(arr.shape, shape, sizeof shape);
    cr_assert_eq(nearest_query_vector(&arr, "v.npy", 8, q, &e), 0, "%s", e.msg);
    cr_expect(q[0] == (float)0.1 && q[7] == 7.0f, "float64 rounded once to float32");
    arr.count = 7;
    cr_expect_eq(nearest_query_vector(&arr, "v.npy", 8, q, &e), G2E_EINVAL);
    cr_expect_str_eq(e.msg, "v.npy holds an array of 7 values (2 dimensions); a query needs 8 values, "
                            "shape (8,) or (1, 8)");
    gpt2embed_model_close(m);
    free(w), free(dir);
}
