/* SPDX-License-Identifier: MIT */
/* test_rows_out.c — the embedding rows' writers (rows_out.h) against numpy: tests/rows_out_ref.py
 * reads the fixture's safetensors file on its own, builds the rows (windows, padding, parts)
 * with numpy and compares the npy/raw bit for bit, the JSON and CSV value for value. The
 * tokens against tiktoken's IDs for "The cat sat" (464 3797 3332), the plan against the
 * window rule written out by hand. */
#include "rows_out.h"
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct env {
    char *dir, *weights;
    gpt2embed_model *m;
    gpt2embed_tokenizer *tz;
} env;

static void env_open(env *v, const char *tag)
{
    fixture_opts o;
    fixture_tiny(&o);   /* wte 64 x 8, wpe 16 x 8, F32 */
    char e[256];
    gpt2embed_error err;
    v->dir = test_tmpdir(tag);
    v->weights = path_join(v->dir, "w.safetensors");
    cr_assert_eq(fixture_write(v->weights, &o, e, sizeof e), 0, "%s", e);
    cr_assert_eq(gpt2embed_model_open(&v->m, v->weights, NULL, &err), 0, "%s", err.message);
    cr_assert_eq(gpt2embed_tokenizer_open(&v->tz, NULL, &err), 0, "%s", err.message);
}

static void env_close(env *v)
{
    gpt2embed_tokenizer_close(v->tz);
    gpt2embed_model_close(v->m);
    free(v->weights), free(v->dir);
}

/* The document of v's model with learned positions. */
static rows_doc doc(const env *v, const rows_plan *plan, const rows_tokens *tk)
{
    return (rows_doc){.m = v->m, .pe = GPT2EMBED_PE_LEARNED, .pe_scale = 1.0, .plan = plan, .tok = tk, .tz = v->tz};
}

/* Writes ids in fmt with the plan (T, start, window, stride) and asks numpy whether it agrees. */
static void check_format(const char *fmt_name, int fmt, const char *ids_text, size_t start,
                         size_t window, size_t stride, int parts)
{
    env v;
    env_open(&v, "rows-out");
    uint32_t ids[32];
    size_t T = 0;
    char *dup = strdup(ids_text), *save = NULL;
    for (char *w = strtok_r(dup, " ", &save); w; w = strtok_r(NULL, " ", &save))
        ids[T++] = (uint32_t)strtoul(w, NULL, 10);
    free(dup);
    rows_tokens tk;
    rows_plan plan;
    g2e_err e;
    cr_assert_eq(rows_tokens_ids(&tk, v.tz, ids, T, &e), 0, "%s", e.msg);
    cr_assert_eq(rows_plan_make(&plan, T, start, window, stride, &e), 0, "%s", e.msg);
    rows_doc d = doc(&v, &plan, &tk);
    d.weights = v.weights, d.parts = parts, d.show = 4;
    char *out = path_join(v.dir, "rows.out");
    FILE *f = fopen(out, "wb");
    cr_assert(f);
    cr_assert_eq(rows_write(f, fmt, &d, &e), 0, "%s", e.msg);
    cr_assert_eq(fclose(f), 0);
    char a[32], b[32], c[32], p[4];
    snprintf(a, sizeof a, "%zu", start), snprintf(b, sizeof b, "%zu", window);
    snprintf(c, sizeof c, "%zu", stride), snprintf(p, sizeof p, "%d", parts);
    char *script = path_join(G2E_SRCDIR, "tests/rows_out_ref.py");
    run_result r = run_argv((char *[]){"/usr/bin/python3", script, v.weights, out, (char *)fmt_name,
                                       (char *)ids_text, a, b, c, p, NULL}, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "rows_out_ref.py: %s", r.err);
    cr_expect(strstr(r.out, "EQUAL True") != NULL, "%s %s window %zu stride %zu parts %d: numpy says %s%s",
              fmt_name, ids_text, window, stride, parts, r.out, r.err);
    run_free(&r);
    rows_tokens_free(&tk);
    free(script), free(out);
    env_close(&v);
}

Test(rows_out, npy_matches_numpy) { check_format("npy", ROWS_NPY, "5 63 0 5 17", 3, 0, 0, 0); }
Test(rows_out, npy_parts_matches_numpy) { check_format("npy", ROWS_NPY, "5 63 0 5 17", 0, 0, 0, 1); }
Test(rows_out, npy_windows_padded_match_numpy) { check_format("npy", ROWS_NPY, "1 2 3 4 5 6", 0, 4, 3, 1); }
Test(rows_out, raw_windows_match_numpy) { check_format("raw", ROWS_RAW, "9 8 7 6 5 4 3", 0, 3, 2, 0); }
Test(rows_out, json_matches_numpy) { check_format("json", ROWS_JSON, "5 63 0", 11, 0, 0, 1); }
Test(rows_out, json_windows_match_numpy) { check_format("json", ROWS_JSON, "1 2 3 4 5 6", 0, 4, 3, 1); }
Test(rows_out, csv_matches_numpy) { check_format("csv", ROWS_CSV, "44 12 0 33", 2, 0, 0, 1); }
Test(rows_out, csv_windows_match_numpy) { check_format("csv", ROWS_CSV, "1 2 3 4 5", 0, 2, 2, 0); }

Test(rows_out, plan_follows_the_window_rule)
{
    rows_plan p;
    g2e_err e;
    /* 6 tokens, W 4, S 3: windows [0..3], [3..5] + 1 padding row */
    cr_assert_eq(rows_plan_make(&p, 6, 0, 4, 3, &e), 0, "%s", e.msg);
    cr_expect_eq(p.n_windows, 2);
    cr_expect_eq(p.W, 4);
    size_t want[2][4] = {{0, 1, 2, 3}, {3, 4, 5, SIZE_MAX}};
    for (size_t w = 0; w < 2; w++)
        for (size_t r = 0; r < 4; r++) {
            cr_expect_eq(rows_plan_token(&p, w, r), want[w][r], "window %zu row %zu", w, r);
            cr_expect_eq(rows_plan_position(&p, w, r), r);
        }
    cr_assert_eq(rows_plan_make(&p, 5, 7, 0, 0, &e), 0);
    cr_expect_eq(p.n_windows, 1);
    cr_expect_eq(p.W, 5);
    cr_expect_eq(rows_plan_position(&p, 0, 4), 11);
    cr_expect_eq(rows_plan_token(&p, 0, 5), SIZE_MAX);
    cr_expect_eq(rows_plan_make(&p, 5, 1, 2, 2, &e), G2E_EINVAL, "windows start at 0");
    cr_expect_eq(rows_plan_make(&p, 5, 0, 2, 3, &e), G2E_EINVAL, "stride > window");
    cr_expect_str_eq(e.msg, "windows need 1 <= stride <= window, got window 2 stride 3");
    cr_expect_eq(rows_plan_make(&p, 3, 0, (size_t)1 << 21, 1, &e), G2E_EINVAL, "2^21 rows of padding");
}

Test(rows_out, tokens_of_a_text_match_tiktoken)
{
    gpt2embed_tokenizer *tz;
    gpt2embed_error de;
    g2e_err e;
    cr_assert_eq(gpt2embed_tokenizer_open(&tz, NULL, &de), 0, "%s", de.message);
    rows_tokens tk;
    const char *text = "The cat sat";
    cr_assert_eq(rows_tokens_text(&tk, tz, text, strlen(text), 0, 1, &de), 0, "%s", de.message);
    uint32_t want[4] = {50256, 464, 3797, 3332};   /* tiktoken gpt2, after <|endoftext|> */
    size_t offs[5] = {0, 0, 3, 7, 11};
    cr_assert_eq(tk.T, 4);
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq(tk.ids[i], want[i], "id %zu", i);
    for (size_t i = 0; i < 5; i++)
        cr_expect_eq(tk.offs[i], offs[i], "offset %zu", i);
    char *s = rows_shown(tz, &tk, 2);
    cr_expect_str_eq(s, "\xE2\x90\xA3" "cat");   /* the space shown as U+2423 */
    free(s);
    rows_tokens_free(&tk);
    /* IDs 163 232 105 are the three bytes of 犬: each shown with its share */
    uint32_t inu[3] = {163, 232, 105};
    cr_assert_eq(rows_tokens_ids(&tk, tz, inu, 3, &e), 0);
    s = rows_shown(tz, &tk, 1);
    cr_expect(strstr(s, "\xE7\x8A\xAC") && strstr(s, "2/3"), "%s", s);
    free(s);
    rows_tokens_free(&tk);
    gpt2embed_tokenizer_close(tz);
}

Test(rows_out, table_pads_with_one_line_and_states_the_summary)
{
    env v;
    env_open(&v, "rows-table");
    uint32_t ids[3] = {1, 2, 3};
    rows_tokens tk;
    rows_plan plan;
    g2e_err e;
    cr_assert_eq(rows_tokens_ids(&tk, v.tz, ids, 3, &e), 0);
    cr_assert_eq(rows_plan_make(&plan, 3, 0, 8, 8, &e), 0);
    rows_doc d = doc(&v, &plan, &tk);
    d.weights = "W", d.show = 2;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(rows_write(f, ROWS_TABLE, &d, &e), 0, "%s", e.msg);
    fclose(f);
    cr_expect(strstr(buf, "... 5 zero rows of padding (positions 3..7 in npy/raw output)\n"), "%s", buf);
    cr_expect(strstr(buf, "model unknown (W): n_embd 8, learned positions; 3 tokens in 1 window of 8 "
                          "(stride 8), 3 of 16 positions used\n"), "%s", buf);
    free(buf);
    rows_tokens_free(&tk);
    env_close(&v);
}

Test(rows_out, where_the_tokens_end_in_words)
{
    gpt2embed_tokenizer *tz;
    gpt2embed_error de;
    g2e_err e;
    cr_assert_eq(gpt2embed_tokenizer_open(&tz, NULL, &de), 0);
    rows_tokens tk;
    const char *text = "The cat\nsat";   /* The | ␣cat | ↵ | sat */
    cr_assert_eq(rows_tokens_text(&tk, tz, text, strlen(text), 0, 0, &de), 0);
    cr_assert_eq(tk.T, 4);
    char buf[ROWS_WHERE_MAX];
    rows_where(&tk, 2, 1, 0, buf, sizeof buf);
    cr_expect(strstr(buf, "the 2nd token (position 1) ends at character 7 (line 1, column 7): ") == buf, "%s", buf);
    rows_where(&tk, 3, 2, 0, buf, sizeof buf);
    cr_expect(strstr(buf, "the 3rd token (position 2) ends at character 8 (the end of line 1): ") == buf, "%s", buf);
    rows_where(&tk, 1, 0, 1, buf, sizeof buf);
    cr_expect(strstr(buf, " (up to character 3, line 1: ") == buf, "%s", buf);
    rows_tokens_free(&tk);
    /* issue 23: a cut inside a character says so and shows it split ("犬" is 163 232 105) */
    const char *inu = "a犬b";
    cr_assert_eq(rows_tokens_text(&tk, tz, inu, strlen(inu), 0, 0, &de), 0);
    cr_assert_eq(tk.offs[2], 2, "token 2 starts after byte 1 of 犬");
    rows_where(&tk, 2, 1, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "the 2nd token (position 1) ends inside character 2 (line 1, column 2), which the "
                          "cut splits: a犬 (1/3)|犬 (2-3/3)b");
    rows_where(&tk, 2, 1, 1, buf, sizeof buf);
    cr_expect_str_eq(buf, " (up to inside character 2 (line 1, column 2): a犬 (1/3)|犬 (2-3/3)b)");
    rows_tokens_free(&tk);
    uint32_t ids[13] = {0};
    ids[10] = 7, ids[11] = 8, ids[12] = 9;
    cr_assert_eq(rows_tokens_ids(&tk, tz, ids, 13, &e), 0);
    rows_where(&tk, 11, 10, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "the 11th ID (position 10) is 7");
    rows_where(&tk, 12, 11, 0, buf, sizeof buf);
    cr_expect_str_eq(buf, "the 12th ID (position 11) is 8");
    strcpy(buf, "kept");
    rows_where(&tk, 12, 11, 1, buf, sizeof buf);
    cr_expect_str_eq(buf, "kept", "IDs have no characters to point at");
    rows_tokens_free(&tk);
    gpt2embed_tokenizer_close(tz);
}

Test(rows_out, strips_rows_are_the_fixtures_values_packed_per_part)
{
    env v;
    env_open(&v, "rows-strips");
    fixture_opts o;
    fixture_tiny(&o);
    uint32_t ids[3] = {4, 9, 2};
    rows_tokens tk;
    rows_plan plan;
    g2e_err e;
    cr_assert_eq(rows_tokens_ids(&tk, v.tz, ids, 3, &e), 0);
    cr_assert_eq(rows_plan_make(&plan, 3, 0, 5, 5, &e), 0);   /* 2 padding rows: not drawn */
    size_t C = 8, R = 5, n;
    float data[3 * 5 * 8];
    char *labels[5] = {0};
    rows_doc d = doc(&v, &plan, &tk);
    cr_assert_eq(rows_strips(&d, R, data, labels, &n, &e), 0, "%s", e.msg);
    cr_assert_eq(n, 3);
    for (size_t r = 0; r < n; r++)
        for (size_t c = 0; c < C; c++) {
            float a = fixture_expected(&o, FIXTURE_WTE, ids[r], c), b = fixture_expected(&o, FIXTURE_WPE, r, c);
            float s = a + b;
            cr_expect(memcmp(&data[r * C + c], &a, 4) == 0, "token row %zu", r);
            cr_expect(memcmp(&data[n * C + r * C + c], &b, 4) == 0, "position row %zu", r);
            cr_expect(memcmp(&data[2 * n * C + r * C + c], &s, 4) == 0, "sum row %zu", r);
        }
    cr_expect_str_eq(labels[0], "0 %");   /* ID 4 is the byte '%' */
    cr_expect_str_eq(labels[2], "2 #");
    for (size_t r = 0; r < R; r++)
        free(labels[r]);
    rows_tokens_free(&tk);
    env_close(&v);
}
