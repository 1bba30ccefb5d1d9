/* SPDX-License-Identifier: MIT */
/* test_embed_cli.c — the main job through the built program: gpt2-embed [OPTIONS] TEXT.
 *
 * Exactness is proven against numpy reading the weights file on its own
 * (tests/numpy_ref.py: wte[ids] + wpe[arange]) and against the fixture's values; every
 * format is read back; the 1024 boundary, --truncate, --window, --start-pos at their edges;
 * bad IDs, missing weights, output that must not be left half-written. Token IDs of the
 * texts used here were checked with tiktoken (shared/tools/peer-tokenize.js):
 *   "The dog chased the cat" -> 464 3290 26172 262 3797
 *   "word" + " word" x 1023 -> 1024 tokens (4775, then 1573 ...); one more " word" -> 1025
 */
#include "fixture.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define C 8
static fixture_opts big;     /* gpt2's vocabulary and context, width 8, every row written */
static char *dir, *bigpath;

static void setup(void)
{
    memset(&big, 0, sizeof big);
    big.n_vocab = 50257;
    big.n_ctx = 1024;
    big.n_embd = C;
    big.dtype = ST_F32;
    dir = test_tmpdir("embedcli");
    bigpath = path_join(dir, "big.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(bigpath, &big, e, sizeof e), 0, "%s", e);
}

TestSuite(embedcli, .init = setup);

/* gpt2-embed ARGS... --weights W */
static run_result g2e_w(const char *w, char *const args[])
{
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)G2E_TEST_BIN;
    for (int i = 0; args[i]; i++) argv[n++] = args[i];
    argv[n++] = "--weights";
    argv[n++] = (char *)w;
    argv[n] = NULL;
    return run_argv(argv, NULL, 0, NULL, NULL);
}

static void numpy_check(const char *weights, const char *npy, const char *ids, const char *start, int parts)
{
    char *script = path_join(G2E_SRCDIR, "tests/numpy_ref.py");
    run_result r = run_argv((char *[]){"/usr/bin/python3", script, (char *)weights, (char *)npy, (char *)ids,
                                       (char *)start, parts ? "parts" : "sum", NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "numpy_ref.py: %s", r.err);
    cr_expect(strstr(r.out, "EQUAL True") != NULL, "numpy disagrees: %s", r.out);
    run_free(&r);
    free(script);
}

Test(embedcli, text_npy_bit_identical_to_numpy)
{
    char *npy = path_join(dir, "x.npy");
    run_result r = g2e_w(bigpath, (char *[]){"The dog chased the cat", "--format", "npy", "-o", npy, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
    numpy_check(bigpath, npy, "464 3290 26172 262 3797", "0", 0);
    free(npy);
}

Test(embedcli, npy_header_is_the_spec_byte_for_byte)
{
    char *npy = path_join(dir, "h.npy");
    run_result r = g2e_w(bigpath, (char *[]){"--ids", "1 2 3", "--format", "npy", "-o", npy, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    run_free(&r);
    size_t n;
    char *b = read_file(npy, &n);
    const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 8), }";
    cr_assert(n >= 64);
    cr_expect(memcmp(b, "\x93NUMPY\x01\x00", 8) == 0);
    size_t hl = (unsigned char)b[8] | (size_t)(unsigned char)b[9] << 8;
    cr_expect_eq((10 + hl) % 64, 0, "data must start on a 64-byte boundary");
    cr_expect(memcmp(b + 10, dict, strlen(dict)) == 0, "dict: %.*s", (int)hl, b + 10);
    for (size_t i = 10 + strlen(dict); i < 10 + hl - 1; i++)
        cr_expect_eq(b[i], ' ', "padding at %zu", i);
    cr_expect_eq(b[10 + hl - 1], '\n');
    cr_expect_eq(n, 10 + hl + 3 * C * 4);
    /* the data are the sums, little-endian float32 */
    for (size_t t = 0; t < 3; t++)
        for (size_t c = 0; c < C; c++) {
            float want = fixture_expected(&big, FIXTURE_WTE, t + 1, c) + fixture_expected(&big, FIXTURE_WPE, t, c);
            cr_expect(memcmp(b + 10 + hl + (t * C + c) * 4, &want, 4) == 0);
        }
    free(b);
    free(npy);
}

static void dtype_case(st_dtype dt, const char *prefix)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.dtype = dt;
    o.prefix = prefix;
    char *w = path_join(dir, "t.safetensors"), *npy = path_join(dir, "t.npy");
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    run_result r = g2e_w(w, (char *[]){"--ids", "5 63 0 5", "--start-pos", "12", "--format", "npy", "-o", npy, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    run_free(&r);
    numpy_check(w, npy, "5 63 0 5", "12", 0);
    r = g2e_w(w, (char *[]){"--ids", "7,8,9", "--parts", "--format", "npy", "-o", npy, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    run_free(&r);
    numpy_check(w, npy, "7 8 9", "0", 1);
    free(w);
    free(npy);
}

Test(embedcli, f16_upcast_like_numpy) { dtype_case(ST_F16, NULL); }
Test(embedcli, bf16_upcast_like_numpy_with_prefix) { dtype_case(ST_BF16, "transformer."); }
Test(embedcli, f32_full_gpt2_layout_file)
{
    fixture_opts o;
    fixture_gpt2(&o, ST_F32, NULL);   /* 548 MB sparse; rows written: wte {0,1,2,50256}, wpe {0,1,1023} */
    char *w = path_join(dir, "full.safetensors"), *npy = path_join(dir, "f.npy");
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    run_result r = g2e_w(w, (char *[]){"--ids", "50256 2 1", "--start-pos", "1021", "--format", "npy", "-o", npy, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    run_free(&r);
    numpy_check(w, npy, "50256 2 1", "1021", 0);
    unlink(w);
    free(w);
    free(npy);
}

Test(embedcli, raw_csv_json_read_back)
{
    const uint32_t ids[5] = {464, 3290, 26172, 262, 3797};
    /* raw: the same bytes as the expected sums */
    run_result r = g2e_w(bigpath, (char *[]){"The dog chased the cat", "--format", "raw", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert_eq(r.out_len, 5 * C * 4);
    for (size_t t = 0; t < 5; t++)
        for (size_t c = 0; c < C; c++) {
            float want = fixture_expected(&big, FIXTURE_WTE, ids[t], c) + fixture_expected(&big, FIXTURE_WPE, t, c);
            cr_expect(memcmp(r.out + (t * C + c) * 4, &want, 4) == 0);
        }
    run_free(&r);
    /* csv: header, then pos,index,id,piece,display,c0..c7 with values that read back exactly */
    r = g2e_w(bigpath, (char *[]){"The dog chased the cat", "--format", "csv", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    char *line = strtok(r.out, "\n");
    cr_expect_str_eq(line, "pos,index,id,piece,display,c0,c1,c2,c3,c4,c5,c6,c7");
    for (size_t t = 0; t < 5; t++) {
        line = strtok(NULL, "\n");
        cr_assert(line);
        unsigned pos, idx, id;
        cr_assert_eq(sscanf(line, "%u,%u,%u,", &pos, &idx, &id), 3, "%s", line);
        cr_expect_eq(pos, t);
        cr_expect_eq(id, ids[t]);
        char *p = line;
        for (int k = 0; k < 5; k++) p = strchr(p, ',') + 1;
        for (size_t c = 0; c < C; c++) {
            float v = strtof(p, &p);
            p++;
            float want = fixture_expected(&big, FIXTURE_WTE, ids[t], c) + fixture_expected(&big, FIXTURE_WPE, t, c);
            cr_expect(memcmp(&v, &want, 4) == 0, "csv [%zu][%zu]", t, c);
        }
    }
    run_free(&r);
    /* json: model facts, tokens with id, piece, vector (and parts) */
    r = g2e_w(bigpath, (char *[]){"The dog chased the cat", "--format", "json", "--parts", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "json: %.200s", r.out);
    cJSON *model = cJSON_GetObjectItemCaseSensitive(j, "model");
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(model, "n_ctx")->valuedouble, 1024);
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(model, "n_embd")->valuedouble, C);
    cJSON *toks = cJSON_GetObjectItemCaseSensitive(j, "tokens");
    cr_assert_eq(cJSON_GetArraySize(toks), 5);
    for (int t = 0; t < 5; t++) {
        cJSON *tk = cJSON_GetArrayItem(toks, t);
        cr_expect_eq(cJSON_GetObjectItemCaseSensitive(tk, "id")->valuedouble, ids[t]);
        cr_expect_eq(cJSON_GetObjectItemCaseSensitive(tk, "pos")->valuedouble, t);
        const char *names[3] = {"token_vector", "position_vector", "vector"};
        for (int p = 0; p < 3; p++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(tk, names[p]);
            cr_assert_eq(cJSON_GetArraySize(v), C, "%s", names[p]);
            for (int c = 0; c < C; c++) {
                float a = fixture_expected(&big, FIXTURE_WTE, ids[t], (uint64_t)c);
                float b = fixture_expected(&big, FIXTURE_WPE, (uint64_t)t, (uint64_t)c);
                float want = p == 0 ? a : p == 1 ? b : a + b;
                float got = (float)cJSON_GetArrayItem(v, c)->valuedouble;
                cr_expect(memcmp(&got, &want, 4) == 0, "json %s[%d][%d]", names[p], t, c);
            }
        }
    }
    cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(toks, 1), "piece")->valuestring, " dog");
    cJSON_Delete(j);
    run_free(&r);
}

Test(embedcli, table_rows_and_summary)
{
    run_result r = g2e_w(bigpath, (char *[]){"The dog chased the cat", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "26172") && strstr(r.out, "\xE2\x90\xA3" "chased"), "%s", r.out);
    cr_expect(strstr(r.out, "5 tokens, 5 of 1024 positions used") != NULL, "%s", r.out);
    /* |sum| of row 0 printed with 4 decimals, computed here */
    double s = 0;
    for (size_t c = 0; c < C; c++) {
        float v = fixture_expected(&big, FIXTURE_WTE, 464, c) + fixture_expected(&big, FIXTURE_WPE, 0, c);
        s += (double)v * v;
    }
    char want[32];
    snprintf(want, sizeof want, "%8.4f", sqrt(s));
    cr_expect(strstr(r.out, want) != NULL, "want %s in %s", want, r.out);
    run_free(&r);
    /* issue 23: one token is singular */
    r = g2e_w(bigpath, (char *[]){"a", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.out, "; 1 token, 1 of 1024 positions used") != NULL, "%s", r.out);
    run_free(&r);
}

/* issue 23: a weights file named by $GPT2_EMBED_WEIGHTS (or --weights) wins over --model, and
 * the user is told so instead of getting gpt2's answers silently */
Test(embedcli, model_ignored_for_a_named_file_is_said)
{
    char *env = malloc(strlen(bigpath) + 32);
    sprintf(env, "GPT2_EMBED_WEIGHTS=%s", bigpath);
    run_result r = run_argv((char *[]){G2E_TEST_BIN, "a", "--model", "gpt2-medium", NULL}, NULL, 0,
                            (char *[]){env, NULL}, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.err, "note: --model gpt2-medium is not used: the weights come from "
                            "$GPT2_EMBED_WEIGHTS (") != NULL, "%s", r.err);
    run_free(&r);
    r = run_argv((char *[]){G2E_TEST_BIN, "a", NULL}, NULL, 0, (char *[]){env, NULL}, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.err_len, 0, "no --model, nothing to say: %s", r.err);
    run_free(&r);
    r = run_g2e("a", "--weights", bigpath, "--model", "gpt2-xl", NULL);
    cr_expect(strstr(r.err, "--model gpt2-xl is not used: the weights come from --weights") != NULL,
              "%s", r.err);
    run_free(&r);
    free(env);
}

static char *words(size_t n)
{
    char *t = malloc(5 * n + 1);
    strcpy(t, "word");
    for (size_t i = 1; i < n; i++) memcpy(t + 4 + 5 * (i - 1), " word", 6);
    return t;
}

Test(embedcli, context_boundary_1024_fits_1025_does_not)
{
    char *t1024 = words(1024), *t1025 = words(1025);
    cr_assert_eq(strlen(t1024), 4 + 5 * 1023);
    run_result r = g2e_w(bigpath, (char *[]){t1024, "--format", "raw", NULL});
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_eq(r.out_len, 1024 * C * 4);
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){t1025, "--format", "raw", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect_eq(r.out_len, 0, "nothing on stdout");
    cr_expect(strstr(r.err, "1025 tokens") && strstr(r.err, "only 1024 rows"), "%s", r.err);
    /* the 1024th token ends after 4 + 5 * 1023 characters */
    char where[64];
    snprintf(where, sizeof where, "the 1024th token (position 1023) ends at character %d", 4 + 5 * 1023);
    cr_expect(strstr(r.err, where) != NULL, "%s", r.err);
    cr_expect(strstr(r.err, "--truncate") && strstr(r.err, "--window"), "%s", r.err);
    cr_expect_eq(strchr(r.err, '\n'), r.err + r.err_len - 1, "one line: %s", r.err);
    run_free(&r);
    /* --bos makes 1024 words one too many */
    r = g2e_w(bigpath, (char *[]){t1024, "--bos", "--format", "raw", NULL});
    cr_expect_eq(r.status, 1);
    run_free(&r);
    /* --truncate keeps exactly the first 1024 and says so */
    r = g2e_w(bigpath, (char *[]){t1025, "--truncate", "--format", "raw", NULL});
    cr_expect_eq(r.status, 0);
    cr_expect_eq(r.out_len, 1024 * C * 4);
    cr_expect(strstr(r.err, "keeps the first 1024") != NULL, "%s", r.err);
    float last;
    memcpy(&last, r.out + (1023 * C) * 4, 4);
    float want = fixture_expected(&big, FIXTURE_WTE, 1573, 0) + fixture_expected(&big, FIXTURE_WPE, 1023, 0);
    cr_expect(memcmp(&last, &want, 4) == 0);
    run_free(&r);
    free(t1024);
    free(t1025);
}

Test(embedcli, start_pos_edges)
{
    run_result r = g2e_w(bigpath, (char *[]){"--ids", "5", "--start-pos", "1023", "--format", "raw", NULL});
    cr_expect_eq(r.status, 0, "stderr: %s", r.err);
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){"--ids", "5 6", "--start-pos", "1023", "--format", "raw", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "so 1 fit") != NULL, "%s", r.err);
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){"--ids", "5", "--start-pos", "1024", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "leaves no room") != NULL, "%s", r.err);
    run_free(&r);
}

Test(embedcli, windows_shape_padding_and_values)
{
    fixture_opts o;
    fixture_tiny(&o);   /* n_ctx 16 */
    char *w = path_join(dir, "tw.safetensors"), *npy = path_join(dir, "w.npy");
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    /* 9 tokens, windows of 4 every 2: [0,4) [2,6) [4,8) [6,9)+1 padding row */
    run_result r = g2e_w(w, (char *[]){"--ids", "10 11 12 13 14 15 16 17 18", "--window", "4", "--stride", "2",
                                       "--format", "raw", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert_eq(r.out_len, 4 * 4 * 8 * 4);
    const float *v = (const float *)(const void *)r.out;
    for (size_t k = 0; k < 4; k++)
        for (size_t row = 0; row < 4; row++)
            for (size_t c = 0; c < 8; c++) {
                size_t t = k * 2 + row;
                float want = t < 9 ? fixture_expected(&o, FIXTURE_WTE, 10 + t, c) + fixture_expected(&o, FIXTURE_WPE, row, c) : 0.0f;
                float got;
                memcpy(&got, &v[(k * 4 + row) * 8 + c], 4);
                cr_expect(memcmp(&got, &want, 4) == 0, "window %zu row %zu c %zu", k, row, c);
            }
    run_free(&r);
    r = g2e_w(w, (char *[]){"--ids", "10 11 12 13 14 15 16 17 18", "--window", "4", "--stride", "2", "--format",
                            "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j);
    cJSON *ws = cJSON_GetObjectItemCaseSensitive(j, "windows");
    cr_assert_eq(cJSON_GetArraySize(ws), 4);
    cJSON *lastw = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ws, 3), "tokens");
    cr_expect(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lastw, 3), "padding")));
    cr_expect_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(lastw, 2), "padding"));
    cJSON_Delete(j);
    run_free(&r);
    r = g2e_w(w, (char *[]){"--ids", "1 2", "--window", "17", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "larger than the context") != NULL, "%s", r.err);
    run_free(&r);
    r = g2e_w(w, (char *[]){"--ids", "1 2", "--window", "4", "--stride", "5", NULL});
    cr_expect_eq(r.status, 2);
    run_free(&r);
    free(w);
    free(npy);
}

Test(embedcli, sinusoidal_positions_beyond_1024)
{
    char *t = words(1500);
    run_result r = g2e_w(bigpath, (char *[]){t, "--pe", "sinusoidal", "--parts", "--format", "raw", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert_eq(r.out_len, 3 * 1500 * C * 4);
    const char *pos = r.out + 1500 * C * 4, *sum = r.out + 2 * 1500 * C * 4, *tok = r.out;
    for (size_t p = 0; p < 1500; p += 499)
        for (size_t i = 0; i < C; i += 2) {
            double a = (double)p / pow(10000.0, (double)i / C);
            float s, co, tk, sm;
            memcpy(&s, pos + (p * C + i) * 4, 4);
            memcpy(&co, pos + (p * C + i + 1) * 4, 4);
            cr_expect(fabs(s - sin(a)) < 1e-6 && fabs(co - cos(a)) < 1e-6, "p=%zu i=%zu", p, i);
            memcpy(&tk, tok + (p * C + i) * 4, 4);
            memcpy(&sm, sum + (p * C + i) * 4, 4);
            float want = tk + s;
            cr_expect(memcmp(&sm, &want, 4) == 0);
        }
    run_free(&r);
    free(t);
}

Test(embedcli, bad_input_gets_one_line_and_status)
{
    run_result r = g2e_w(bigpath, (char *[]){"--ids", "15496 50257", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "50257") && strstr(r.err, "index 1"), "%s", r.err);
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){"--ids", "15496 -3", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "gpt2-embed embed: --ids: expected a token ID (a whole number) at character 7, got '-3'\n");
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){"The", "dog", "chased", "the", "cat", "--format", "raw", NULL});
    run_result q = g2e_w(bigpath, (char *[]){"The dog chased the cat", "--format", "raw", NULL});
    cr_expect(r.status == 0 && r.out_len == q.out_len && memcmp(r.out, q.out, q.out_len) == 0,
              "unquoted words are one text joined by spaces");
    run_free(&q);
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){"\xFF" "bad", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "offset 0") != NULL || strstr(r.err, "byte 0") != NULL, "%s", r.err);
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){"--format", "npz", "x", NULL});
    cr_expect_eq(r.status, 2);
    run_free(&r);
    char *missing = path_join(dir, "nope.safetensors");
    r = g2e_w(missing, (char *[]){"x", NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "nope.safetensors") != NULL, "%s", r.err);
    cr_expect(strstr(r.err, "--weights ") != NULL, "the program names its own option: %s", r.err);
    run_free(&r);
    free(missing);
}

/* Issue 38: a text file, a PyTorch checkpoint, a GGUF file or an HTML page given as weights is
 * named for what it is, with what to use instead, in one line (never a header length). */
Test(embedcli, a_file_that_is_not_safetensors_is_named)
{
    char *tmp = test_tmpdir("embed-foreign"), *p = path_join(tmp, "w.bin");
    static const struct { const char *bytes; size_t n; const char *says; } CASES[] = {
        {"# notes\n\nsome text, not weights\n", 32, "text file, not a safetensors file: --weights names the weights"},
        {"PK\x03\x04\x14\x00\x00\x00\x08\x00", 10, "save_pretrained(OUT) writes OUT/model.safetensors"},
        {"GGUF\x03\x00\x00\x00\x00\x00\x00\x00", 12, "GGUF file (llama.cpp's format), not a safetensors file: "
                                                    "gpt2-embed reads safetensors"},
        {"<!DOCTYPE html><html>Error</html>", 33, "HTML page (a web page saved in place of the file?)"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        write_file(p, CASES[i].bytes, CASES[i].n);
        run_result r = run_g2e("--weights", p, "犬", NULL);
        cr_expect_eq(r.status, 1, "%s", r.err);
        cr_expect(strstr(r.err, CASES[i].says) && !strstr(r.err, "header length"), "%s", r.err);
        cr_expect(strchr(r.err, '\n') == r.err + r.err_len - 1, "one line: %s", r.err);
        run_free(&r);
    }
    write_file(p, CASES[0].bytes, CASES[0].n);
    run_result r = run_g2e("--lang", "ja", "--weights", p, "犬", NULL);
    cr_expect(r.status == 1 && !strstr(r.err, "text file"), "%s", r.err);
    run_free(&r);
    free(p), free(tmp);
}

Test(embedcli, no_weights_anywhere_says_how_to_get_them)
{
    char home[4096];
    snprintf(home, sizeof home, "HOME=%s", dir);
    char *env[] = {home, "-GPT2_EMBED_WEIGHTS", "-HF_HOME", "-HF_HUB_CACHE", NULL};
    run_result r = run_argv((char *[]){G2E_TEST_BIN, "hello", NULL}, NULL, 0, env, dir);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "gpt2-embed download") && strstr(r.err, "weights/gpt2.safetensors"), "%s", r.err);
    cr_expect(strstr(r.err, "give --weights FILE") != NULL, "%s", r.err);
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
}

Test(embedcli, failed_output_leaves_the_old_file_and_no_temporaries)
{
    char *out = path_join(dir, "keep.npy");
    write_file(out, "precious", 8);
    run_result r = g2e_w(bigpath, (char *[]){"--ids", "1 99999", "--format", "npy", "-o", out, NULL});
    cr_expect_eq(r.status, 1);
    run_free(&r);
    size_t n;
    char *b = read_file(out, &n);
    cr_expect(n == 8 && memcmp(b, "precious", 8) == 0, "old file untouched");
    free(b);
    r = run_argv((char *[]){"/bin/sh", "-c", "ls -A \"$0\" | wc -l", dir, NULL}, NULL, 0, NULL, NULL);
    int files = atoi(r.out);
    cr_expect_eq(files, 2, "only big.safetensors and keep.npy: %d", files);
    run_free(&r);
    char *nodir = path_join(dir, "no/such/dir/x.npy");
    r = g2e_w(bigpath, (char *[]){"x", "--format", "npy", "-o", nodir, NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "no/such/dir") != NULL, "%s", r.err);
    run_free(&r);
    free(nodir);
    free(out);
}

Test(embedcli, stdin_and_file_inputs_match_the_argument)
{
    char *f = path_join(dir, "in.txt");
    write_file(f, "The dog chased the cat", 22);
    run_result a = g2e_w(bigpath, (char *[]){"The dog chased the cat", "--format", "raw", NULL});
    run_result b = g2e_w(bigpath, (char *[]){"-f", f, "--format", "raw", NULL});
    char *argv[] = {G2E_TEST_BIN, "-", "--format", "raw", "--weights", bigpath, NULL};
    run_result c = run_argv(argv, "The dog chased the cat", 22, NULL, NULL);
    cr_assert_eq(a.status, 0);
    cr_assert_eq(b.status, 0, "%s", b.err);
    cr_assert_eq(c.status, 0, "%s", c.err);
    cr_expect(a.out_len == b.out_len && memcmp(a.out, b.out, a.out_len) == 0);
    cr_expect(a.out_len == c.out_len && memcmp(a.out, c.out, a.out_len) == 0);
    run_free(&a);
    run_free(&b);
    run_free(&c);
    free(f);
}

Test(embedcli, plot_strips_png)
{
    char *png = path_join(dir, "strips.png");
    run_result r = g2e_w(bigpath, (char *[]){"The dog chased the cat", "--plot", png, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect_eq(r.out_len, 0, "--plot alone replaces the table");
    run_free(&r);
    size_t n;
    char *b = read_file(png, &n);
    cr_assert(b && n > 1000);
    cr_expect(memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0);
    free(b);
    free(png);
}

Test(embedcli, empty_input_gives_empty_arrays)
{
    char *npy = path_join(dir, "empty.npy");
    run_result r = g2e_w(bigpath, (char *[]){"", "--format", "npy", "-o", npy, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    run_free(&r);
    numpy_check(bigpath, npy, "", "0", 0);   /* shape (0, 8), float32 */
    r = g2e_w(bigpath, (char *[]){"", "--format", "raw", NULL});
    cr_expect_eq(r.status, 0);
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){"", "--format", "json", NULL});
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "\"n_tokens\": 0") && strstr(r.out, "\"tokens\": []"), "%s", r.out);
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){"", NULL});
    cr_expect_eq(r.status, 0);
    cr_expect(strstr(r.out, "0 tokens, 0 of 1024 positions used") != NULL, "%s", r.out);
    run_free(&r);
    char *png = path_join(dir, "empty.png");
    r = g2e_w(bigpath, (char *[]){"", "--plot", png, NULL});
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "no tokens to draw") != NULL, "%s", r.err);
    run_free(&r);
    free(png);
    free(npy);
}

/* issue 10: the table showed every padding row of the last window */
Test(embedcli, window_padding_is_one_line_in_the_table)
{
    fixture_opts o;
    fixture_tiny(&o);
    char *w = path_join(dir, "pad.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    run_result r = g2e_w(w, (char *[]){"--ids", "10 11 12 13 14 15 16 17 18", "--window", "6", NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, "\n              ... 3 zero rows of padding (positions 3..5 in npy/raw output)\nmodel ")
              != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "(padding)") == NULL, "%s", r.out);
    run_free(&r);
    r = g2e_w(w, (char *[]){"--ids", "10 11 12", "--window", "2", NULL});
    cr_expect(strstr(r.out, "... 1 zero row of padding (position 1 in npy/raw output)\n") != NULL, "%s", r.out);
    run_free(&r);
    free(w);
}

/* the one ID grammar (decode's): brackets, commas, newlines, and - for standard input */
Test(embedcli, ids_in_the_one_grammar)
{
    run_result a = g2e_w(bigpath, (char *[]){"--ids", "464 3797", "--format", "raw", NULL});
    run_result b = g2e_w(bigpath, (char *[]){"--ids=[464, 3797]", "--format", "raw", NULL});
    cr_assert_eq(a.status, 0, "%s", a.err);
    cr_expect_eq(b.status, 0, "%s", b.err);
    cr_expect(a.out_len == 2 * C * 4 && b.out_len == a.out_len && memcmp(a.out, b.out, a.out_len) == 0);
    char *argv[] = {G2E_TEST_BIN, "--ids", "-", "--format", "raw", "--weights", bigpath, NULL};
    run_result c = run_argv(argv, "[464,\n 3797]\n", 13, NULL, NULL);
    cr_expect_eq(c.status, 0, "%s", c.err);
    cr_expect(c.out_len == a.out_len && memcmp(a.out, c.out, a.out_len) == 0);
    run_free(&c);
    c = run_argv(argv, "464 x", 5, NULL, NULL);
    cr_expect_eq(c.status, 1);
    cr_expect_str_eq(c.err, "gpt2-embed: --ids -: standard input: expected a token ID (a whole number) at character 5, got 'x'\n");
    cr_expect_eq(c.out_len, 0);
    run_free(&a);
    run_free(&b);
    run_free(&c);
}

/* issue 10: `gpt2-embed "The cat" -o a.npy` wrote the text table into a.npy */
Test(embedcli, output_name_picks_the_format)
{
    char *npy = path_join(dir, "pick.NPY"), *js = path_join(dir, "pick.json"), *csv = path_join(dir, "pick.csv");
    run_result r = g2e_w(bigpath, (char *[]){"The dog chased the cat", "-o", npy, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    numpy_check(bigpath, npy, "464 3290 26172 262 3797", "0", 0);
    r = g2e_w(bigpath, (char *[]){"The cat", "-o", js, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    size_t n;
    char *t = read_file(js, &n);
    cJSON *j = t ? cJSON_Parse(t) : NULL;
    cr_expect(j != NULL, "not JSON: %.80s", t);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "tokens")), 2);
    cJSON_Delete(j);
    free(t);
    r = g2e_w(bigpath, (char *[]){"The cat", "-o", csv, NULL});
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    t = read_file(csv, &n);
    cr_expect(t && strncmp(t, "pos,index,id,piece,display,c0,", 30) == 0, "%.80s", t);
    free(t);
    /* a contradiction is refused, and the file keeps what it had */
    write_file(csv, "old\n", 4);
    r = g2e_w(bigpath, (char *[]){"The cat", "-o", csv, "--format", "json", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "means --format csv, but --format json was given") != NULL, "%s", r.err);
    run_free(&r);
    t = read_file(csv, &n);
    cr_expect_str_eq(t, "old\n");
    free(t);
    free(npy);
    free(js);
    free(csv);
}

/* ---- honest remedies: the fixed encoding's size, --pe-scale (issue 11, item 5) ---- */

/* The mean L2 norm of the fixture's wte (which 0) or wpe (1) rows, from fixture_expected in
 * the library's order (each row's sum of squares in double, then the rows' mean). */
static double fixture_mean_norm(const fixture_opts *o, int which)
{
    uint64_t R = which ? o->n_ctx : o->n_vocab;
    double total = 0;
    for (uint64_t r = 0; r < R; r++) {
        double s2 = 0;
        for (uint64_t c = 0; c < o->n_embd; c++) {
            double v = fixture_expected(o, which, r, c);
            s2 += v * v;
        }
        total += sqrt(s2);
    }
    return total / (double)R;
}

Test(embedcli, over_limit_lists_truncate_and_window_first_and_says_what_sinusoidal_costs)
{
    char *t1025 = words(1025);
    run_result r = g2e_w(bigpath, (char *[]){t1025, NULL});
    cr_expect_eq(r.status, 1);
    const char *tr = strstr(r.err, "--truncate"), *wi = strstr(r.err, "--window"),
               *pe = strstr(r.err, "--pe sinusoidal");
    cr_assert(tr && wi && pe, "%s", r.err);
    cr_expect(tr < wi && wi < pe, "--truncate, then --window, then --pe sinusoidal: %s", r.err);
    cr_expect(strstr(pe, "not trained with it") != NULL, "%s", r.err);
    double tok = fixture_mean_norm(&big, 0), sinn = sqrt(C / 2.0);
    char want[160];
    snprintf(want, sizeof want, "(norm sqrt(%d/2) = %.1f) are %.1f times as long as this model's token "
             "vectors (mean norm %.2f)", C, sinn, sinn / tok, tok);
    cr_expect(strstr(r.err, want) != NULL, "want '%s' in %s", want, r.err);
    cr_expect(strstr(r.err, "--pe-scale wpe") != NULL, "%s", r.err);
    cr_expect_eq(strchr(r.err, '\n'), r.err + r.err_len - 1, "one line: %s", r.err);
    run_free(&r);
    free(t1025);
}

/* The positions of a --parts npy (part 1) against numpy: np.float32(pe64 * s), the double
 * table from Python's math (libm, as in test_embed.c); and sum (part 2) = token + position in
 * float32. s is given as %.17g. */
static void check_scaled_npy(const char *npy, double s, size_t start)
{
    char sa[40], st[24];
    snprintf(sa, sizeof sa, "%.17g", s);
    snprintf(st, sizeof st, "%zu", start);
    const char *script =
        "import math, sys, numpy as np\n"
        "a = np.load(sys.argv[1]); s = float(sys.argv[2]); start = int(sys.argv[3])\n"
        "_, n, d = a.shape\n"
        "pe = np.empty((n, d), dtype=np.float64)\n"
        "for t in range(n):\n"
        "    for i in range(d // 2):\n"
        "        x = float(start + t) / math.pow(10000.0, float(2 * i) / float(d))\n"
        "        pe[t, 2 * i], pe[t, 2 * i + 1] = math.sin(x), math.cos(x)\n"
        "want = np.float32(pe * np.float64(s))\n"
        "ok = a.dtype == np.float32 and np.array_equal(a[1].view(np.uint32), want.view(np.uint32))\n"
        "ok = ok and np.array_equal((a[0] + a[1]).view(np.uint32), a[2].view(np.uint32))\n"
        "print('EQUAL', ok, int((a[1] != want).sum()))\n";
    run_result r = run_argv((char *[]){"/usr/bin/python3", "-c", (char *)script, (char *)npy, sa, st, NULL},
                            NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "python: %s", r.err);
    cr_expect(strstr(r.out, "EQUAL True") != NULL, "numpy disagrees (scale %s): %s", sa, r.out);
    run_free(&r);
}

Test(embedcli, pe_scale_number_and_wpe_bit_identical_to_numpy)
{
    char *npy = path_join(dir, "scaled.npy");
    /* a number: 1/3 is not a binary fraction, so the one rounding shows */
    run_result r = g2e_w(bigpath, (char *[]){"The dog chased the cat", "--pe", "sinusoidal", "--pe-scale",
                                             "0.333333333333333333", "--start-pos", "2000", "--parts", "-o",
                                             npy, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_expect(strstr(r.err, "scaled by 0.333333 (--pe-scale)") && strstr(r.err, "rounded once to float32"),
              "the scale is stated beside the npy: %s", r.err);
    run_free(&r);
    check_scaled_npy(npy, 1.0 / 3.0, 2000);
    /* wpe: s = mean |wpe| / sqrt(n_embd / 2), computed here from the fixture's values */
    double wpe = fixture_mean_norm(&big, 1), s = wpe / sqrt(C / 2.0);
    r = g2e_w(bigpath, (char *[]){"The dog chased the cat", "--pe", "sinusoidal", "--pe-scale", "wpe",
                                  "--parts", "-o", npy, NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    run_free(&r);
    check_scaled_npy(npy, s, 0);
    /* JSON states the factor and the norms exactly */
    r = g2e_w(bigpath, (char *[]){"cat", "--pe", "sinusoidal", "--pe-scale", "wpe", "--format", "json", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j, "%s", r.out);
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(j, "pe_scale")->valuedouble, s);
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(j, "wpe_norm_mean")->valuedouble, wpe);
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(j, "wte_norm_mean")->valuedouble, fixture_mean_norm(&big, 0));
    cr_expect_eq(cJSON_GetObjectItemCaseSensitive(j, "pe_norm")->valuedouble, s * sqrt(C / 2.0));
    cJSON_Delete(j);
    run_free(&r);
    free(npy);
}

Test(embedcli, sinusoidal_table_states_its_size_against_the_token_vectors)
{
    run_result r = g2e_w(bigpath, (char *[]){"The dog", "--pe", "sinusoidal", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    double tok = fixture_mean_norm(&big, 0), sinn = sqrt(C / 2.0);
    char want[200];
    snprintf(want, sizeof want, "sinusoidal positions, not what GPT-2 was trained with: |PE| = sqrt(%d/2) = "
             "%.4f, %.2f times the mean |wte| row (%.4f)", C, sinn, sinn / tok, tok);
    cr_expect(strstr(r.out, want) != NULL, "want '%s' in:\n%s", want, r.out);
    cr_expect_eq(r.err_len, 0, "%s", r.err);
    run_free(&r);
    r = g2e_w(bigpath, (char *[]){"The dog", "--pe", "sinusoidal", "--pe-scale", "wpe", NULL});
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    double wpe = fixture_mean_norm(&big, 1);
    snprintf(want, sizeof want, "sinusoidal positions scaled by %.6g (--pe-scale wpe: mean |wpe| %.4f / sqrt(%d/2))",
             wpe / sinn, wpe, C);
    cr_expect(strstr(r.out, want) != NULL, "want '%s' in:\n%s", want, r.out);
    snprintf(want, sizeof want, "|PE| = %.4f, %.2f times", wpe, wpe / tok);
    cr_expect(strstr(r.out, want) != NULL, "want '%s' in:\n%s", want, r.out);
    run_free(&r);
    /* learned positions print no such line */
    r = g2e_w(bigpath, (char *[]){"The dog", NULL});
    cr_expect(strstr(r.out, "|PE|") == NULL, "%s", r.out);
    run_free(&r);
}

Test(embedcli, pe_scale_misuse_is_a_usage_error)
{
    const char *bad[] = {"0", "-1", "nan", "inf", "1e7", "x", "", "2wpe", "WPE"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        run_result r = g2e_w(bigpath, (char *[]){"cat", "--pe", "sinusoidal", "--pe-scale", (char *)bad[k], NULL});
        cr_expect_eq(r.status, 2, "--pe-scale '%s': %d %s", bad[k], r.status, r.err);
        cr_expect(strstr(r.err, "--pe-scale") != NULL, "%s", r.err);
        cr_expect_eq(r.out_len, 0);
        run_free(&r);
    }
    run_result r = g2e_w(bigpath, (char *[]){"cat", "--pe-scale", "0.5", NULL});
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "add --pe sinusoidal") != NULL, "%s", r.err);
    run_free(&r);
}
