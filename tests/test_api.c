/* SPDX-License-Identifier: MIT */
/* test_api.c — the public header src/gpt2embed.h as a library user meets it: results against
 * the fixture's own values, every published status, the exported symbols (nm) of the shared
 * and static libraries, a user program whose own names clash with our internal ones, and
 * `make install` / `make uninstall` of the build under test (never rebuilt) at its real
 * PREFIX, with pkg-config, the example built shared and static, the Python module and the
 * program from the installed tree, and DESTDIR staging (tests/install_check.sh). */
#define _GNU_SOURCE /* memmem */
#include "../src/gpt2embed.h"
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define C 8
static fixture_opts big, f32;
static char *dir, *wpath, *fpath;

static void setup(void)
{
    memset(&big, 0, sizeof big);
    big.n_vocab = 50257;
    big.n_ctx = 1024;
    big.n_embd = C;
    big.dtype = ST_BF16;
    f32 = big;
    f32.dtype = ST_F32;
    dir = test_tmpdir("api");
    wpath = path_join(dir, "w.safetensors");
    fpath = path_join(dir, "f32.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(wpath, &big, e, sizeof e), 0, "%s", e);
    cr_assert_eq(fixture_write(fpath, &f32, e, sizeof e), 0, "%s", e);
}

TestSuite(api, .init = setup);
TestSuite(symbols, .init = setup);
TestSuite(install, .init = setup);

static gpt2embed_model *open_model(const char *path)
{
    gpt2embed_error err;
    gpt2embed_model *m = NULL;
    cr_assert_eq(gpt2embed_model_open(&m, path, NULL, &err), GPT2EMBED_OK, "%s", err.message);
    return m;
}

static gpt2embed_tokenizer *open_tok(void)
{
    gpt2embed_error err;
    gpt2embed_tokenizer *t = NULL;
    cr_assert_eq(gpt2embed_tokenizer_open(&t, NULL, &err), GPT2EMBED_OK, "%s", err.message);
    return t;
}

Test(api, tokenize_and_embed_exactly)
{
    gpt2embed_error err;
    gpt2embed_model *m = open_model(wpath);
    cr_expect_eq(gpt2embed_n_vocab(m), 50257);
    cr_expect_eq(gpt2embed_n_ctx(m), 1024);
    cr_expect_eq(gpt2embed_n_embd(m), C);
    cr_expect_str_eq(gpt2embed_model_path(m), wpath);
    cr_expect_eq(gpt2embed_table_dtype(m, GPT2EMBED_WTE), GPT2EMBED_BF16);
    cr_expect_str_eq(gpt2embed_dtype_name(gpt2embed_table_dtype(m, GPT2EMBED_WPE)), "BF16");
    gpt2embed_tokenizer *tk = open_tok();
    cr_expect_eq(gpt2embed_tokenizer_n_vocab(tk), 50257);
    uint32_t *ids = NULL;
    size_t T = 0;
    const char *text = "The dog chased the cat<|endoftext|>";
    cr_assert_eq(gpt2embed_tokenize(tk, text, strlen(text), &ids, &T, &err), 0, "%s", err.message);
    const uint32_t want[6] = {464, 3290, 26172, 262, 3797, 50256};   /* tiktoken, special allowed */
    cr_assert_eq(T, 6);
    cr_expect(memcmp(ids, want, sizeof want) == 0);
    float x[6 * C];
    cr_assert_eq(gpt2embed_embed(m, ids, T, 1018, x, &err), 0, "%s", err.message);
    for (size_t t = 0; t < T; t++)
        for (size_t c = 0; c < C; c++) {
            float s = fixture_expected(&big, FIXTURE_WTE, want[t], c) + fixture_expected(&big, FIXTURE_WPE, 1018 + t, c);
            cr_expect(memcmp(&x[t * C + c], &s, 4) == 0, "[%zu][%zu]", t, c);
        }
    cr_expect_eq(gpt2embed_embed(m, ids, T, 1019, x, &err), GPT2EMBED_E_CONTEXT);
    cr_expect(strstr(err.message, "1024 rows") != NULL, "%s", err.message);
    gpt2embed_free(ids);
    cr_expect_eq(gpt2embed_tokenize(tk, "\xC3(", 2, &ids, &T, &err), GPT2EMBED_E_UTF8);
    cr_expect(strstr(err.message, "offset 0") != NULL, "%s", err.message);
    cr_expect_null(ids);
    cr_expect_eq(T, 0);
    gpt2embed_tokenizer_close(tk);
    gpt2embed_model_close(m);
    gpt2embed_model_close(NULL);
    gpt2embed_tokenizer_close(NULL);
}

Test(api, errors_fill_the_buffer_and_the_out_pointer_is_null)
{
    gpt2embed_error err = {0};
    gpt2embed_model *m = (gpt2embed_model *)1;
    char *missing = path_join(dir, "missing.safetensors");
    cr_expect_eq(gpt2embed_model_open(&m, missing, NULL, &err), GPT2EMBED_E_NOT_FOUND);
    cr_expect_null(m);
    cr_expect(strstr(err.message, "missing.safetensors") != NULL, "%s", err.message);
    cr_expect_eq(gpt2embed_model_open(&m, NULL, "gpt-5", NULL), GPT2EMBED_E_UNKNOWN_MODEL,
                 "NULL err is allowed");
    /* a file that is not safetensors, and one that is but holds no wte */
    char *bad = path_join(dir, "bad.safetensors");
    write_file(bad, "\x05\0\0\0\0\0\0\0{nope", 13);
    cr_expect_eq(gpt2embed_model_open(&m, bad, NULL, &err), GPT2EMBED_E_FORMAT, "%s", err.message);
    const char hdr[] = "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
    char buf[128] = {0};
    buf[0] = (char)(sizeof hdr - 1);
    memcpy(buf + 8, hdr, sizeof hdr - 1);
    write_file(bad, buf, 8 + sizeof hdr - 1 + 4);
    cr_expect_eq(gpt2embed_model_open(&m, bad, NULL, &err), GPT2EMBED_E_NOT_GPT2, "%s", err.message);
    cr_expect(strstr(err.message, "wte") != NULL, "%s", err.message);
    /* the detail: status, no offset or index for a file that is not there */
    cr_expect_eq(gpt2embed_model_open(&m, missing, NULL, &err), GPT2EMBED_E_NOT_FOUND);
    cr_expect(err.status == GPT2EMBED_E_NOT_FOUND && err.offset == GPT2EMBED_NONE && err.index == GPT2EMBED_NONE);
    free(bad);
    free(missing);
}

Test(api, every_status_has_its_own_text)
{
    for (int s = GPT2EMBED_OK; s <= GPT2EMBED_E_INTERNAL; s++) {
        const char *t = gpt2embed_strerror((gpt2embed_status)s);
        cr_assert(t && *t && strcmp(t, "unknown status") != 0, "status %d", s);
        for (int u = 0; u < s; u++)
            cr_expect_str_neq(t, gpt2embed_strerror((gpt2embed_status)u), "%d and %d", s, u);
    }
    cr_expect_str_eq(gpt2embed_strerror((gpt2embed_status)99), "unknown status");
    cr_expect_str_eq(gpt2embed_version(), GPT2EMBED_VERSION_STRING);
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", GPT2EMBED_VERSION_MAJOR, GPT2EMBED_VERSION_MINOR,
             GPT2EMBED_VERSION_PATCH);
    cr_expect_str_eq(v, GPT2EMBED_VERSION_STRING);
}

Test(api, null_arguments_are_errors_not_crashes)
{
    gpt2embed_error err;
    uint32_t *ids = NULL;
    size_t n = 0, *off = NULL;
    float x[C];
    double d;
    cr_expect_eq(gpt2embed_model_open(NULL, wpath, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_tokenizer_open(NULL, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_tokenize(NULL, "a", 1, &ids, &n, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_tokenize_ex(NULL, "a", 1, 0, &ids, &off, &n, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_embed(NULL, ids, 1, 0, x, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_rows(NULL, GPT2EMBED_WTE, 0, 1, x, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_cosine(NULL, x, 1, &d, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_decode(NULL, NULL, 0, NULL, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_n_vocab(NULL), 0);
    cr_expect_null(gpt2embed_model_name(NULL));
    cr_expect_eq(gpt2embed_table_dtype(NULL, GPT2EMBED_WTE), -1);
    cr_expect_null(gpt2embed_dtype_name(7));
    gpt2embed_model *m = open_model(fpath);
    cr_expect_eq(gpt2embed_embed_pe(m, ids, 0, 0, (gpt2embed_pe)5, x, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_table_dtype(m, (gpt2embed_table)2), -1);
    gpt2embed_model_close(m);
}

Test(api, tokenize_ex_offsets_flags_and_decode)
{
    gpt2embed_error err;
    gpt2embed_tokenizer *tk = open_tok();
    const char *text = "héllo <|endoftext|>";
    uint32_t *ids;
    size_t *off, n;
    cr_assert_eq(gpt2embed_tokenize_ex(tk, text, strlen(text), GPT2EMBED_SPECIAL_TEXT, &ids, &off,
                                       &n, &err), 0, "%s", err.message);
    cr_assert_gt(n, 3);
    cr_expect_eq(off[0], 0);
    cr_expect_eq(off[n], strlen(text));
    char *back;
    size_t blen;
    for (size_t i = 0; i < n; i++) {   /* each token's bytes are its slice of the input */
        cr_assert_eq(gpt2embed_decode(tk, &ids[i], 1, &back, &blen, &err), 0, "%s", err.message);
        cr_expect_eq(blen, off[i + 1] - off[i]);
        cr_expect(memcmp(back, text + off[i], blen) == 0, "token %zu", i);
        gpt2embed_free(back);
    }
    cr_assert_eq(gpt2embed_decode(tk, ids, n, &back, &blen, &err), 0, "%s", err.message);
    cr_expect_str_eq(back, text);
    gpt2embed_free(back);
    gpt2embed_free(ids);
    gpt2embed_free(off);
    cr_expect_eq(gpt2embed_tokenize_ex(tk, text, strlen(text), GPT2EMBED_SPECIAL_ERROR, &ids, NULL,
                                       &n, &err), GPT2EMBED_E_SPECIAL);
    cr_expect_eq(gpt2embed_tokenize_ex(tk, text, strlen(text), 3, &ids, NULL, &n, &err),
                 GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_tokenize_ex(tk, text, strlen(text), 64, &ids, NULL, &n, &err),
                 GPT2EMBED_E_ARG);
    /* lossy: the bad byte becomes U+FFFD ("\xEF\xBF\xBD"), as Python's errors="replace" */
    cr_assert_eq(gpt2embed_tokenize_ex(tk, "a\xFFz", 3, GPT2EMBED_LOSSY, &ids, NULL, &n, &err), 0, "%s", err.message);
    cr_assert_eq(gpt2embed_decode(tk, ids, n, &back, &blen, &err), 0, "%s", err.message);
    cr_expect_str_eq(back, "a\xEF\xBF\xBDz");
    gpt2embed_free(back);
    gpt2embed_free(ids);
    const uint32_t bad[2] = {15496, 50257};
    cr_expect_eq(gpt2embed_decode(tk, bad, 2, &back, &blen, &err), GPT2EMBED_E_TOKEN_ID);
    cr_expect(strstr(err.message, "50257") && strstr(err.message, "index 1"), "%s", err.message);
    cr_expect_null(back);
    /* empty input: no IDs, offsets {0} */
    cr_assert_eq(gpt2embed_tokenize_ex(tk, NULL, 0, 0, &ids, &off, &n, &err), 0, "%s", err.message);
    cr_expect_eq(n, 0);
    cr_expect(off && off[0] == 0);
    gpt2embed_free(ids);
    gpt2embed_free(off);
    gpt2embed_tokenizer_close(tk);
}

Test(api, rows_and_the_zero_copy_tables)
{
    gpt2embed_error err;
    const fixture_opts *os[2] = {&big, &f32};
    const char *ps[2] = {wpath, fpath};
    for (int k = 0; k < 2; k++) {
        gpt2embed_model *m = open_model(ps[k]);
        float rows[3 * C], want[C];
        cr_assert_eq(gpt2embed_rows(m, GPT2EMBED_WTE, 50254, 3, rows, &err), 0, "%s", err.message);
        for (int r = 0; r < 3; r++) {
            fixture_expected_row(os[k], FIXTURE_WTE, 50254 + (uint64_t)r, want);
            cr_expect(memcmp(rows + r * C, want, sizeof want) == 0, "wte row %d", 50254 + r);
        }
        cr_assert_eq(gpt2embed_rows(m, GPT2EMBED_WPE, 0, 1, rows, &err), 0, "%s", err.message);
        fixture_expected_row(os[k], FIXTURE_WPE, 0, want);
        cr_expect(memcmp(rows, want, sizeof want) == 0);
        cr_expect_eq(gpt2embed_rows(m, GPT2EMBED_WTE, 50255, 3, rows, &err), GPT2EMBED_E_TOKEN_ID);
        cr_expect(strstr(err.message, "50257 rows") != NULL, "%s", err.message);
        cr_expect_eq(gpt2embed_rows(m, GPT2EMBED_WPE, 1024, 1, rows, &err), GPT2EMBED_E_CONTEXT);
        /* an invalid table is named as such, not as a NULL argument (issue 26 item 10) */
        cr_expect_eq(gpt2embed_rows(m, (gpt2embed_table)7, 0, 1, rows, &err), GPT2EMBED_E_ARG);
        cr_expect(strstr(err.message, "table") != NULL && strstr(err.message, "NULL") == NULL, "%s", err.message);
        const void *data;
        size_t R, Cc;
        gpt2embed_dtype dt;
        cr_assert_eq(gpt2embed_table_data(m, GPT2EMBED_WPE, &data, &R, &Cc, &dt, &err), 0);
        cr_expect_eq(R, 1024);
        cr_expect_eq(Cc, C);
        cr_expect_eq(dt, k ? GPT2EMBED_F32 : GPT2EMBED_BF16);
        if (dt == GPT2EMBED_F32) {   /* the stored bytes themselves: row 1023 */
            float v[C];
            memcpy(v, (const char *)data + 1023 * C * 4, sizeof v);
            fixture_expected_row(os[k], FIXTURE_WPE, 1023, want);
            cr_expect(memcmp(v, want, sizeof v) == 0);
        }
        gpt2embed_model_close(m);
    }
}

Test(api, sinusoidal_positions_and_cosines)
{
    gpt2embed_error err;
    gpt2embed_model *m = open_model(fpath);
    const uint32_t ids[3] = {5, 50256, 0};
    float x[3 * C], pe[3 * C];
    cr_assert_eq(gpt2embed_embed_pe(m, ids, 3, 4000, GPT2EMBED_PE_SINUSOIDAL, x, &err), 0, "%s", err.message);
    cr_assert_eq(gpt2embed_sinusoidal(4000, 3, C, 10000.0, pe, &err), 0, "%s", err.message);
    for (size_t t = 0; t < 3; t++)
        for (size_t c = 0; c < C; c++) {
            /* the formula in double, rounded once: within half an ulp of float32 */
            double ang = (double)(4000 + t) / pow(10000.0, (double)(c & ~(size_t)1) / C);
            double ref = c % 2 ? cos(ang) : sin(ang);
            cr_expect_leq(fabs((double)pe[t * C + c] - ref),
                          (double)nextafterf(fabsf((float)ref), INFINITY) - fabsf((float)ref),
                          "PE(%zu, %zu)", 4000 + t, c);
            float s = fixture_expected(&f32, FIXTURE_WTE, ids[t], c) + pe[t * C + c];
            cr_expect(memcmp(&x[t * C + c], &s, 4) == 0, "[%zu][%zu]", t, c);
        }
    cr_expect_eq(gpt2embed_sinusoidal(0, 1, 7, 10000.0, pe, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_sinusoidal(0, 1, 8, 1.0, pe, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_sinusoidal((size_t)1 << 53, 2, 8, 10000.0, pe, &err),
                 GPT2EMBED_E_CONTEXT);
    /* cosines in double against a sum written here */
    double cs, M[9];
    cr_assert_eq(gpt2embed_cosine(x, x + C, C, &cs, &err), 0, "%s", err.message);
    double ab = 0, aa = 0, bb = 0;
    for (size_t c = 0; c < C; c++) {
        ab += (double)x[c] * x[C + c];
        aa += (double)x[c] * x[c];
        bb += (double)x[C + c] * x[C + c];
    }
    cr_expect_leq(fabs(cs - ab / sqrt(aa * bb)), 1e-15);
    cr_assert_eq(gpt2embed_cosine_matrix(x, 3, C, M, &err), 0, "%s", err.message);
    cr_expect_leq(fabs(M[1] - cs), 1e-15);
    cr_expect_leq(fabs(M[4] - 1.0), 1e-15);
    float zero[C] = {0};
    cr_expect_eq(gpt2embed_cosine(zero, x, C, &cs, &err), GPT2EMBED_E_ZERO_VECTOR);
    gpt2embed_model_close(m);
}

/* Where the weights are, the catalogue, where the vocabulary came from: against the places
 * this test makes and the published checkpoints' shapes. */
Test(api, locate_the_catalogue_and_the_tokenizers_source)
{
    gpt2embed_error err;
    char *found = NULL;
    gpt2embed_weights_from from = (gpt2embed_weights_from)-1;
    cr_assert_eq(gpt2embed_locate_weights(fpath, "gpt2", NULL, &found, &from, &err), 0, "%s", err.message);
    cr_expect_str_eq(found, fpath);
    cr_expect_eq(from, GPT2EMBED_FROM_PATH);
    gpt2embed_free(found);
    cr_expect_eq(gpt2embed_locate_weights("/nonexistent/w.safetensors", NULL, NULL, &found, NULL, &err),
                 GPT2EMBED_E_NOT_FOUND);
    cr_expect_null(found);
    cr_expect_eq(gpt2embed_locate_weights(NULL, "gpt5", NULL, &found, NULL, &err), GPT2EMBED_E_UNKNOWN_MODEL);
    cr_expect_eq(gpt2embed_locate_weights(fpath, NULL, "", &found, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_locate_weights(fpath, NULL, NULL, NULL, NULL, &err), GPT2EMBED_E_ARG);
    const gpt2embed_model_info *all;
    size_t n = gpt2embed_known_models(&all);
    static const struct { const char *name; size_t n_embd, n_layer, n_head; } want[] = {
        {"gpt2", 768, 12, 12}, {"gpt2-medium", 1024, 24, 16}, {"gpt2-large", 1280, 36, 20},
        {"gpt2-xl", 1600, 48, 25}, {"distilgpt2", 768, 6, 12}};
    cr_assert_eq(n, 5);
    cr_expect_eq(gpt2embed_known_models(NULL), 5);
    for (size_t i = 0; i < n; i++) {
        cr_expect_str_eq(all[i].name, want[i].name);
        cr_expect(strchr(all[i].repo, '/') != NULL, "%s", all[i].repo);
        cr_expect(all[i].n_vocab == 50257 && all[i].n_ctx == 1024 && all[i].n_embd == want[i].n_embd &&
                  all[i].n_layer == want[i].n_layer && all[i].n_head == want[i].n_head, "%s", all[i].name);
    }
    gpt2embed_tokenizer *t = open_tok();
    cr_expect_str_eq(gpt2embed_tokenizer_source(t), "built-in");
    gpt2embed_tokenizer_close(t);
    cr_assert_eq(gpt2embed_tokenizer_open(&t, G2E_SRCDIR "/tokenizer", &err), 0, "%s", err.message);
    cr_expect_str_eq(gpt2embed_tokenizer_source(t), G2E_SRCDIR "/tokenizer");
    gpt2embed_tokenizer_close(t);
    cr_expect_null(gpt2embed_tokenizer_source(NULL));
}

/* The parts of the embedding stage, a scale of the fixed encoding, and the windows: against
 * the fixture's own values, numbers computed here, and the window rule written out. */
Test(api, embed_ex_parts_scale_and_windows)
{
    gpt2embed_error err;
    gpt2embed_model *m = open_model(fpath);
    const uint32_t ids[3] = {7, 50256, 1};
    float sum[3 * C], tok[3 * C], pos[3 * C], pe[3 * C], x[3 * C];
    cr_assert_eq(gpt2embed_embed_ex(m, ids, 3, 1021, GPT2EMBED_PE_LEARNED, 1.0, sum, tok, pos, &err), 0, "%s",
                 err.message);
    cr_assert_eq(gpt2embed_embed(m, ids, 3, 1021, x, &err), 0);
    cr_expect(memcmp(sum, x, sizeof x) == 0, "the sums are gpt2embed_embed's");
    for (size_t t = 0; t < 3; t++)
        for (size_t c = 0; c < C; c++) {
            float a = fixture_expected(&f32, FIXTURE_WTE, ids[t], c), b = fixture_expected(&f32, FIXTURE_WPE, 1021 + t, c);
            cr_expect(memcmp(&tok[t * C + c], &a, 4) == 0 && memcmp(&pos[t * C + c], &b, 4) == 0, "[%zu][%zu]", t, c);
        }
    cr_expect_eq(gpt2embed_embed_ex(m, ids, 3, 1022, GPT2EMBED_PE_LEARNED, 1.0, sum, NULL, NULL, &err),
                 GPT2EMBED_E_CONTEXT);
    const uint32_t bad[2] = {1, 50257};
    cr_expect_eq(gpt2embed_embed_ex(m, bad, 2, 0, GPT2EMBED_PE_LEARNED, 1.0, NULL, NULL, NULL, &err),
                 GPT2EMBED_E_TOKEN_ID, "the checks alone");
    cr_expect_eq(err.index, 1);
    cr_expect_eq(gpt2embed_embed_ex(m, ids, 3, 0, GPT2EMBED_PE_LEARNED, 2.0, sum, NULL, NULL, &err), GPT2EMBED_E_ARG,
                 "no scale for learned positions");
    /* sinusoidal times 0.5: each value in double, then rounded once */
    cr_assert_eq(gpt2embed_embed_ex(m, ids, 3, 9, GPT2EMBED_PE_SINUSOIDAL, 0.5, sum, NULL, pos, &err), 0, "%s",
                 err.message);
    for (size_t t = 0; t < 3; t++)
        for (size_t c = 0; c < C; c++) {
            double ang = (double)(9 + t) / pow(10000.0, (double)(c & ~(size_t)1) / C);
            float want = (float)((c % 2 ? cos(ang) : sin(ang)) * 0.5);
            cr_expect(fabsf(pos[t * C + c] - want) <= nextafterf(fabsf(want), INFINITY) - fabsf(want), "[%zu][%zu]", t, c);
        }
    cr_assert_eq(gpt2embed_embed_ex(m, ids, 3, 9, GPT2EMBED_PE_SINUSOIDAL, 1.0, NULL, NULL, pe, &err), 0);
    cr_assert_eq(gpt2embed_sinusoidal(9, 3, C, GPT2EMBED_SINUSOID_BASE, x, &err), 0);
    cr_expect(memcmp(pe, x, sizeof x) == 0, "scale 1 is gpt2embed_sinusoidal's bits");
    cr_expect_eq(gpt2embed_embed_ex(m, ids, 3, 0, GPT2EMBED_PE_SINUSOIDAL, 2e6, sum, NULL, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_embed_ex(m, ids, 3, 0, GPT2EMBED_PE_SINUSOIDAL, NAN, sum, NULL, NULL, &err), GPT2EMBED_E_ARG);
    size_t nw, pad;
    static const struct { size_t T, W, S, n, pad; } win[] = {
        {0, 4, 4, 0, 0}, {3, 4, 4, 1, 1}, {4, 4, 4, 1, 0}, {6, 4, 3, 2, 1}, {10, 4, 2, 4, 0}, {11, 4, 2, 5, 1}};
    for (size_t i = 0; i < sizeof win / sizeof *win; i++) {
        cr_assert_eq(gpt2embed_windows(win[i].T, win[i].W, win[i].S, &nw, &pad, &err), 0, "%s", err.message);
        /* the rule: window k covers [k S, min(k S + W, T)), the last ends at T */
        size_t k = 0;
        while (win[i].T && (k * win[i].S + win[i].W < win[i].T))
            k++;
        cr_expect_eq(nw, win[i].T ? k + 1 : 0, "case %zu", i);
        cr_expect_eq(nw, win[i].n, "case %zu", i);
        cr_expect_eq(pad, win[i].pad, "case %zu", i);
    }
    cr_expect_eq(gpt2embed_windows(5, 2, 3, &nw, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_windows(5, 0, 0, &nw, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_windows(3, (size_t)1 << 22, 1, &nw, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect(strstr(err.message, "padding") != NULL, "%s", err.message);
    gpt2embed_model_close(m);
}

/* The course's curves of the encodings, the scale of a table and the nearest rows, against
 * sums written here over the fixture's values. */
Test(api, curves_stats_and_nearest)
{
    gpt2embed_error err;
    enum { D = 16 };
    double curve[11], ref;
    cr_assert_eq(gpt2embed_sinusoid_dot_curve(5, 15, D, GPT2EMBED_SINUSOID_BASE, curve, &err), 0, "%s", err.message);
    for (size_t j = 0; j <= 10; j++) {
        ref = 0;   /* PE(0)·PE(p) = sum over pairs of cos(p w_i): sin 0 = 0, cos 0 = 1 */
        for (size_t i = 0; i < D / 2; i++)
            ref += cos((double)(5 + j) / pow(10000.0, (double)(2 * i) / D));
        cr_expect(fabs(curve[j] - ref) < 1e-12, "pos %zu: %.17g vs %.17g", 5 + j, curve[j], ref);
    }
    cr_expect_eq(gpt2embed_sinusoid_dot_curve(6, 5, D, GPT2EMBED_SINUSOID_BASE, curve, &err), GPT2EMBED_E_CONTEXT);
    cr_expect_eq(gpt2embed_sinusoid_dot_curve(0, 5, 7, GPT2EMBED_SINUSOID_BASE, curve, &err), GPT2EMBED_E_ARG);
    double by[4];
    cr_assert_eq(gpt2embed_sinusoid_by_distance(20, D, GPT2EMBED_SINUSOID_BASE, 3, by, &err), 0, "%s", err.message);
    cr_expect(fabs(by[0] - 1.0) < 1e-12 && by[1] < 1.0, "%g %g", by[0], by[1]);
    cr_expect_eq(gpt2embed_sinusoid_by_distance(3, D, GPT2EMBED_SINUSOID_BASE, 3, by, &err), GPT2EMBED_E_CONTEXT);
    double worst;
    uint64_t ap, ak;
    size_t ai;
    cr_assert_eq(gpt2embed_sinusoid_check_rotation(D, GPT2EMBED_SINUSOID_BASE, 64, 16, &worst, &ap, &ak, &ai, &err), 0);
    cr_expect(worst < 1e-12 && ap < 64 && ak < 16 && ai < D / 2, "%g", worst);
    cr_expect_eq(gpt2embed_sinusoid_check_rotation(D, GPT2EMBED_SINUSOID_BASE, 0, 16, &worst, NULL, NULL, NULL, &err),
                 GPT2EMBED_E_CONTEXT);
    gpt2embed_model *m = open_model(fpath);
    double mean[4], sd[4];
    cr_assert_eq(gpt2embed_wpe_by_distance(m, 12, 3, mean, sd, &err), 0, "%s", err.message);
    for (size_t d = 0; d <= 3; d++) {   /* the mean over p < 12 - d of cos(wpe[p], wpe[p + d]) */
        double sum = 0;
        for (size_t p = 0; p + d < 12; p++) {
            double ab = 0, aa = 0, bb = 0;
            for (size_t c = 0; c < C; c++) {
                double a = fixture_expected(&f32, FIXTURE_WPE, p, c), b = fixture_expected(&f32, FIXTURE_WPE, p + d, c);
                ab += a * b, aa += a * a, bb += b * b;
            }
            sum += ab / sqrt(aa * bb);
        }
        cr_expect(fabs(mean[d] - sum / (double)(12 - d)) < 1e-12, "d=%zu", d);
    }
    cr_expect(fabs(mean[0] - 1.0) < 1e-12 && sd[0] < 1e-12);
    cr_expect_eq(gpt2embed_wpe_by_distance(m, 1025, 3, mean, NULL, &err), GPT2EMBED_E_ARG);
    gpt2embed_stats st;
    cr_assert_eq(gpt2embed_table_stats(m, GPT2EMBED_WPE, &st, &err), 0, "%s", err.message);
    double nsum = 0, nmax = 0, esum = 0;
    for (size_t r = 0; r < 1024; r++) {
        double nn = 0;
        for (size_t c = 0; c < C; c++) {
            double v = fixture_expected(&f32, FIXTURE_WPE, r, c);
            nn += v * v, esum += v;
        }
        nsum += sqrt(nn), nmax = sqrt(nn) > nmax ? sqrt(nn) : nmax;
    }
    cr_expect(st.rows == 1024 && st.cols == C && st.n_top == 10);
    cr_expect(fabs(st.norm_mean - nsum / 1024) < 1e-9 && fabs(st.norm_max - nmax) < 1e-12, "%g", st.norm_mean);
    cr_expect(fabs(st.mean - esum / (1024.0 * C)) < 1e-12);
    cr_expect_eq(st.top_norm[0], st.norm_max);
    cr_expect_eq(gpt2embed_table_stats(m, (gpt2embed_table)3, &st, &err), GPT2EMBED_E_ARG);
    /* nearest: the row itself first when not left out, then by cosine computed here */
    float q[C];
    gpt2embed_hit hits[3];
    size_t nh;
    cr_assert_eq(gpt2embed_rows(m, GPT2EMBED_WTE, 77, 1, q, &err), 0);
    cr_assert_eq(gpt2embed_nearest(m, q, 3, GPT2EMBED_NO_ID, hits, &nh, &err), 0, "%s", err.message);
    cr_expect(nh == 3 && hits[0].id == 77 && fabs(hits[0].cos - 1.0) < 1e-12);
    cr_assert_eq(gpt2embed_nearest(m, q, 3, 77, hits, &nh, &err), 0);
    cr_expect(hits[0].id != 77 && hits[0].cos >= hits[1].cos && hits[1].cos >= hits[2].cos);
    double best = -2;
    uint32_t best_id = 0;
    for (uint32_t id = 0; id < 50257; id++) {
        if (id == 77)
            continue;
        double ab = 0, aa = 0, bb = 0;
        for (size_t c = 0; c < C; c++) {
            double a = q[c], b = fixture_expected(&f32, FIXTURE_WTE, id, c);
            ab += a * b, aa += a * a, bb += b * b;
        }
        if (bb > 0 && ab / sqrt(aa * bb) > best)
            best = ab / sqrt(aa * bb), best_id = id;
    }
    cr_expect_eq(hits[0].id, best_id);
    cr_expect(fabs(hits[0].cos - best) < 1e-12);
    float zero[C] = {0};
    cr_expect_eq(gpt2embed_nearest(m, zero, 3, GPT2EMBED_NO_ID, hits, &nh, &err), GPT2EMBED_E_ZERO_VECTOR);
    cr_expect_eq(gpt2embed_nearest(m, q, 0, GPT2EMBED_NO_ID, hits, &nh, &err), GPT2EMBED_E_ARG);
    gpt2embed_model_close(m);
}

/* ---- the built libraries ---- */

static char *build_dir(void)
{
    char *b = strdup(G2E_TEST_BIN);
    char *d = strdup(dirname(b));
    free(b);
    return d;
}

static run_result sh(const char *cmd)
{
    return run_argv((char *[]){"/bin/bash", "-c", (char *)cmd, NULL}, NULL, 0, NULL, NULL);
}

/* The shared library exports exactly the functions the header marks GPT2EMBED_API; the
 * static archive has no global symbol but gpt2embed_* and g2e_*. */
Test(symbols, only_the_public_prefix_is_global)
{
    char *b = build_dir();
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "set -e; diff <(nm -D --defined-only '%s/libgpt2embed.so.1' | awk '{print $3}' | sort) "
             "<(grep -oE 'GPT2EMBED_API [^(]*\\bgpt2embed_[a-z0-9_]+\\(' '%s/src/gpt2embed.h' | "
             "grep -oE 'gpt2embed_[a-z0-9_]+\\(' | tr -d '(' | sort)",
             b, G2E_SRCDIR);
    run_result r = sh(cmd);
    cr_expect_eq(r.status, 0, "exports of libgpt2embed.so.1 differ from the header:\n%s%s", r.out, r.err);
    run_free(&r);
    snprintf(cmd, sizeof cmd,
             "set -e; n=$(nm -g --defined-only '%s/libgpt2embed.a' | awk 'NF == 3 {print $3}' | "
             "grep -c '^gpt2embed_'); test \"$n\" -ge 20; "
             "nm -g --defined-only '%s/libgpt2embed.a' | awk 'NF == 3 {print $3}' | grep -v '^gpt2embed_\\|^g2e_' || true",
             b, b);
    r = sh(cmd);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "", "global symbols in libgpt2embed.a outside gpt2embed_/g2e_:\n%s", r.out);
    run_free(&r);
    snprintf(cmd, sizeof cmd, "readelf -d '%s/libgpt2embed.so.1' | grep -o 'soname: \\[.*\\]'", b);
    r = sh(cmd);
    cr_expect_str_eq(r.out, "soname: [libgpt2embed.so.1]\n");
    run_free(&r);
    free(b);
}

/* The library as a host meets it (issue 22): it imports nothing that touches signals, the
 * locale or translation, carries no test hook, and every object in it is reachable from the
 * header: the .so linked again with --gc-sections from the exported gpt2embed_* functions
 * keeps at least one section of every object (an object nothing public reaches loses all). */
Test(symbols, the_library_leaves_its_host_alone_and_holds_only_what_the_header_reaches)
{
    char *b = build_dir();
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "nm -D --undefined-only '%s/libgpt2embed.so.1' | awk '{print $2}' | sed 's/@.*//' | "
             "grep -xE 'sigaction|signal|raise|setlocale|dgettext|dcgettext|gettext|bindtextdomain|textdomain|"
             "flock|symlink|statvfs' || true; strings '%s/libgpt2embed.so.1' | grep GPT2_EMBED_TEST_ || true",
             b, b);
    run_result r = sh(cmd);
    cr_expect_str_eq(r.out, "", "the library imports or carries: %s", r.out);
    run_free(&r);
    snprintf(cmd, sizeof cmd,
             "set -e; objs=$(make -s --no-print-directory -C '%s' BUILDDIR='%s' print-lib-objects); "
             "test -n \"$objs\"; cd '%s'; "
             "removed=$(cc -shared -o '%s/gc.so' -Wl,--gc-sections -Wl,--print-gc-sections "
             "-Wl,--version-script,'%s/gpt2embed.map' $objs $(sed -n 's/^Libs.private: //p' '%s/gpt2embed.pc') "
             "" G2E_TEST_SANFLAGS " 2>&1 | grep \"removing unused section\" || true); "
             "for o in $objs; do "
             "  kept=0; for sec in $(readelf -SW \"$o\" | awk '$0 ~ /\\] / { f = $0; sub(/.*\\] +/, \"\", f); "
             "split(f, a, \" +\"); if (a[7] ~ /A/ && a[5] != \"000000\" && a[1] != \".eh_frame\" && a[1] !~ /^\\.note/) print a[1] }'); do "
             "    printf '%%s\\n' \"$removed\" | grep -qF \"'$sec' in file '$o'\" || kept=1; done; "
             "  [ $kept = 1 ] || echo \"$o\"; done",
             G2E_SRCDIR, b, G2E_SRCDIR, dir, b, b);
    r = sh(cmd);
    cr_expect_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "", "objects of libgpt2embed that nothing in gpt2embed.h reaches:\n%s", r.out);
    run_free(&r);
    free(b);
}

/* A program with its own model_open, embed_init, sha256_init, sim_dot, st_open and
 * tok_encode (names the library uses inside) links against either library and runs. */
Test(symbols, a_user_program_may_use_our_internal_names)
{
    char *b = build_dir();
    char *src = path_join(dir, "clash.c");
    const char *code =
        "#include <gpt2embed.h>\n#include <stdio.h>\n#include <string.h>\n"
        "int model_open(void) { return 1; }\nint embed_init(void) { return 2; }\n"
        "int sha256_init(void) { return 3; }\ndouble sim_dot(void) { return 4; }\n"
        "int st_open(void) { return 5; }\nint tok_encode(void) { return 6; }\n"
        "int main(int argc, char **argv) {\n"
        "  gpt2embed_model *m; gpt2embed_tokenizer *t; gpt2embed_error e; uint32_t *ids; size_t n;\n"
        "  float x[16]; (void)argc;\n"
        "  if (gpt2embed_model_open(&m, argv[1], 0, &e) || gpt2embed_tokenizer_open(&t, 0, &e)\n"
        "      || gpt2embed_tokenize(t, \"Hello world\", 11, &ids, &n, &e)\n"
        "      || gpt2embed_embed(m, ids, n, 0, x, &e)) { puts(e.message); return 1; }\n"
        "  printf(\"%zu %u %u %d\\n\", n, ids[0], ids[1], model_open() + embed_init() + sha256_init()\n"
        "         + (int)sim_dot() + st_open() + tok_encode());\n"
        "  gpt2embed_free(ids); gpt2embed_tokenizer_close(t); gpt2embed_model_close(m); return 0; }\n";
    write_file(src, code, strlen(code));
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "set -e; cd '%s'; I='-I%s/src -I%s/include " G2E_TEST_SANFLAGS "'; "
             "cc -std=c11 $I clash.c '%s/libgpt2embed.a' "
             "$(sed -n 's/^Libs.private: //p' '%s/gpt2embed.pc') -o clash-static; "
             "cc -std=c11 $I clash.c -L'%s' -lgpt2embed -o clash-shared; "
             "./clash-static '%s'; LD_LIBRARY_PATH='%s' ./clash-shared '%s'",
             dir, G2E_SRCDIR, b, b, b, b, wpath, b, wpath);
    run_result r = sh(cmd);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect_str_eq(r.out, "2 15496 995 21\n2 15496 995 21\n", "%s", r.err);
    run_free(&r);
    free(src);
    free(b);
}

#include <cjson/cJSON.h>
#include <pthread.h>

/* The 1,019 conformance texts and tiktoken's IDs for them (encode_ordinary). */
typedef struct cases {
    size_t n;
    char **text;
    size_t *len;
    uint32_t **ids;
    size_t *n_ids;
} cases;

static cases load_cases(void)
{
    size_t lc, le;
    char *c = read_file(G2E_SRCDIR "/tests/data/tokenizer_cases.jsonl", &lc);
    char *e = read_file(G2E_SRCDIR "/tests/data/tokenizer_expected.jsonl", &le);
    cr_assert(c && e);
    cases k = {0};
    k.text = calloc(2048, sizeof *k.text);
    k.len = calloc(2048, sizeof *k.len);
    k.ids = calloc(2048, sizeof *k.ids);
    k.n_ids = calloc(2048, sizeof *k.n_ids);
    char *sc = NULL, *se = NULL;
    for (char *a = strtok_r(c, "\n", &sc), *b = strtok_r(e, "\n", &se); a && b;
         a = strtok_r(NULL, "\n", &sc), b = strtok_r(NULL, "\n", &se), k.n++) {
        cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b);
        cr_assert(ja && jb && k.n < 2048);
        k.text[k.n] = strdup(cJSON_GetObjectItem(ja, "text")->valuestring);
        k.len[k.n] = strlen(k.text[k.n]);
        cJSON *ids = cJSON_GetObjectItem(jb, "ids");
        k.n_ids[k.n] = (size_t)cJSON_GetArraySize(ids);
        k.ids[k.n] = malloc((k.n_ids[k.n] + 1) * sizeof **k.ids);
        for (size_t i = 0; i < k.n_ids[k.n]; i++)
            k.ids[k.n][i] = (uint32_t)cJSON_GetArrayItem(ids, (int)i)->valuedouble;
        cJSON_Delete(ja);
        cJSON_Delete(jb);
    }
    cr_assert_eq(k.n, 1019);
    free(c);
    free(e);
    return k;
}

static void free_cases(cases *k)
{
    for (size_t i = 0; i < k->n; i++) {
        free(k->text[i]);
        free(k->ids[i]);
    }
    free(k->text);
    free(k->len);
    free(k->ids);
    free(k->n_ids);
}

/* ---- installation (tests/install_check.sh) ----
 * The build under test installed as it is (nothing compiled again: install_check.sh fails
 * if make install rebuilt anything), at its real PREFIX in a private mount namespace, and
 * staged with DESTDIR. */

static run_result step(const char *a0, const char *a1, const char *a2, const char *a3, const char *a4)
{
    run_timeout_s = 120;
    char *script = path_join(G2E_SRCDIR, "tests/install_check.sh");
    char *argv[] = {"/bin/bash", script, (char *)a0, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    free(script);
    return r;
}

/* The lines of out that start with tag, the tag cut off, in order; NULL after the last. */
static char **tagged(char *out, const char *tag, size_t *n)
{
    char **v = calloc(64, sizeof *v);
    cr_assert(v);
    *n = 0;
    char *save = NULL;
    for (char *l = strtok_r(out, "\n", &save); l && *n < 63; l = strtok_r(NULL, "\n", &save))
        if (strncmp(l, tag, strlen(tag)) == 0)
            v[(*n)++] = l + strlen(tag);
    return v;
}

/* doc/examples/pipeline.c as install_check.sh ran it on the lines it was given (k's texts
 * without a newline, in order): on 1 and on 3 threads, each line's IDs are tiktoken's for
 * that text; on a line of bad UTF-8 after two good ones, their IDs, then a message naming
 * line 3 and the byte's offset in it, and status 1. */
static void pipeline_example_gives_tiktokens_ids(const cases *k, const char *work)
{
    size_t cap = 1 << 20, n = 0;
    char *want = malloc(cap);
    for (size_t i = 0; i < k->n; i++) {
        if (memchr(k->text[i], '\n', k->len[i]))
            continue;
        if (n + 11 * k->n_ids[i] + 1 > cap)
            want = realloc(want, cap = 2 * (n + 11 * k->n_ids[i] + 1));
        for (size_t j = 0; j < k->n_ids[i]; j++)
            n += (size_t)sprintf(want + n, "%s%u", j ? " " : "", (unsigned)k->ids[i][j]);
        want[n++] = '\n';
    }
    static const char *const outs[] = {"pipeline-1.txt", "pipeline-3.txt"};
    for (size_t o = 0; o < 2; o++) {
        char *path = path_join(work, outs[o]);
        size_t got_n;
        char *got = read_file(path, &got_n);
        cr_assert(got, "%s", path);
        size_t at = 0;
        while (at < n && at < got_n && got[at] == want[at])
            at++;
        cr_expect(got_n == n && at == n, "%s differs from tiktoken's IDs at byte %zu: ...%.60s", outs[o], at,
                  got + (at > 20 ? at - 20 : 0));
        free(got);
        free(path);
    }
    free(want);
    char *p_out = path_join(work, "pipeline-bad.out"), *p_err = path_join(work, "pipeline-bad.err"),
         *p_st = path_join(work, "pipeline-bad.status");
    char *out = read_file(p_out, NULL), *err = read_file(p_err, NULL), *st = read_file(p_st, NULL);
    cr_assert(out && err && st);
    cr_expect_str_eq(out, "15496 995\n464 3290\n");
    cr_expect_str_eq(err, "pipeline: line 3: invalid UTF-8 at byte offset 4 (byte 0xFF) "
                          "(text is not valid UTF-8)\n");
    cr_expect_str_eq(st, "1\n");
    free(out), free(err), free(st), free(p_out), free(p_err), free(p_st);
}

/* make install at the real PREFIX (a tmpfs over it, holding what a distribution puts there):
 * every file; the example built with pkg-config shared and --static giving the fixture's
 * sums; Python importing the module with no PYTHONPATH, loading the installed library and
 * list maker; the installed program's catalogue and drawing object; make uninstall leaving
 * PREFIX exactly as it was, the directories install created gone and those it found kept;
 * make install's note on a site directory Python does not search, once; a user's weights
 * kept by make uninstall. */
Test(install, at_its_prefix_then_uninstalled_leaves_the_prefix_as_it_was, .timeout = 300)
{
    char *b = build_dir(), *work = path_join(dir, "place");
    /* the pipeline example's input: the conformance texts without a newline, a line each */
    cases cs = load_cases();
    char *in_path = path_join(work, "pipeline-in.txt");
    mkdir(work, 0755);
    FILE *in = fopen(in_path, "w");
    cr_assert(in, "%s", in_path);
    size_t lines = 0;
    for (size_t i = 0; i < cs.n; i++)
        if (!memchr(cs.text[i], '\n', cs.len[i]))
            fprintf(in, "%s\n", cs.text[i]), lines++;
    cr_assert_eq(fclose(in), 0);
    cr_assert_gt(lines, 800);
    run_result r = step("place", G2E_SRCDIR, b, work, wpath);
    cr_assert_eq(r.status, 0, "install_check.sh place: %s", r.err);
    pipeline_example_gives_tiktokens_ids(&cs, work);
    free_cases(&cs);
    free(in_path);
    char *copy = strdup(r.out);
    size_t n;
    /* "t id x[t][0] x[t][C-1]" per token, compared with the fixture sums */
    char **ex = tagged(copy, "example: ", &n);
    const uint32_t ids[5] = {464, 3290, 26172, 262, 3797};
    cr_assert_eq(n, 5, "%s", r.out);
    for (size_t t = 0; t < 5; t++) {
        unsigned tt, id;
        float a, c;
        cr_assert_eq(sscanf(ex[t], "%u %u %f %f", &tt, &id, &a, &c), 4, "%s", ex[t]);
        cr_expect_eq(id, ids[t]);
        float wa = fixture_expected(&big, FIXTURE_WTE, ids[t], 0) + fixture_expected(&big, FIXTURE_WPE, t, 0);
        float wb = fixture_expected(&big, FIXTURE_WTE, ids[t], C - 1) + fixture_expected(&big, FIXTURE_WPE, t, C - 1);
        cr_expect(memcmp(&a, &wa, 4) == 0 && memcmp(&c, &wb, 4) == 0, "row %zu", t);
    }
    free(ex);
    free(copy);

    /* python: the package's file, the library it loaded, the list maker, the embedding */
    copy = strdup(r.out);
    char **py = tagged(copy, "python: ", &n);
    cr_assert_eq(n, 4, "%s", r.out);
    const char *pkg = py[0], *slash = strrchr(pkg, '/');
    cr_assert(slash && strcmp(slash, "/__init__.py") == 0, "%s", pkg);
    char *cfg = read_file(G2E_TEST_BUILD "/config.stamp", NULL), *libdir = strstr(cfg, " renderdir=");
    cr_assert(libdir, "%s", cfg);
    libdir += strlen(" renderdir=");
    char *end = strstr(libdir, "/gpt2-embed ");
    cr_assert(end, "%s", cfg);
    *end = '\0';
    char want[4096];
    snprintf(want, sizeof want, "%s/libgpt2embed.so.1", libdir);
    cr_expect_str_eq(py[1], want, "the module loaded another library");
    snprintf(want, sizeof want, "%.*s/_pylists.so", (int)(slash - pkg), pkg);
    cr_expect_str_eq(py[2], want, "the list maker is not the package's own");
    char hex[2 * 5 * C * 4 + 1], *h = hex;
    for (size_t t = 0; t < 5; t++)
        for (size_t c = 0; c < C; c++) {
            float s = fixture_expected(&big, FIXTURE_WTE, ids[t], c) + fixture_expected(&big, FIXTURE_WPE, t, c);
            unsigned char by[4];
            memcpy(by, &s, 4);
            for (int k = 0; k < 4; k++, h += 2)
                snprintf(h, 3, "%02x", by[k]);
        }
    cr_expect_str_eq(py[3], hex, "python's embedding differs");
    free(py);
    free(copy);

    copy = strdup(r.out);
    char **note = tagged(copy, "install said: ", &n);
    cr_expect_eq(n, 1, "%s", r.out);
    cr_expect(n == 1 && strstr(note[0], "/elsewhere/site-packages") != NULL, "%s", r.out);
    free(note);
    free(copy);
    free(cfg);
    run_free(&r);
    free(work);
    free(b);
}

/* make install DESTDIR=STAGE, then uninstall: the stage ends empty and the machine's PREFIX
 * is untouched; and a PREFIX change recompiles what carries it (one object of a scratch
 * build directory), while the same PREFIX again does not. */
Test(install, destdir_stage_ends_empty_and_a_prefix_change_recompiles, .timeout = 300)
{
    char *b = build_dir(), *stage = path_join(dir, "stage"), *work = path_join(dir, "stamp");
    run_result r = step("stage", G2E_SRCDIR, b, stage, NULL);
    cr_expect_eq(r.status, 0, "install_check.sh stage: %s", r.err);
    run_free(&r);
    r = step("stamp", G2E_SRCDIR, work, NULL, NULL);
    cr_expect_eq(r.status, 0, "install_check.sh stamp: %s", r.err);
    run_free(&r);
    free(b);
    free(stage);
    free(work);
}

/* ---- the tokenizer calls of 0.3.0: into a buffer, batches, counts, streams, threads ---- */

Test(api, tokenize_into_gives_tiktokens_ids_and_asks_for_room)
{
    cases k = load_cases();
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    enum { CAP = 1 << 15 };
    uint32_t *ids = malloc(CAP * sizeof *ids);
    size_t *off = malloc((CAP + 1) * sizeof *off), n;
    for (size_t i = 0; i < k.n; i++) {
        cr_assert_eq(gpt2embed_tokenize_into(t, k.text[i], k.len[i], GPT2EMBED_SPECIAL_TEXT, ids, off, CAP, &n, &err),
                     GPT2EMBED_OK, "case %zu: %s", i + 1, err.message);
        cr_assert_eq(n, k.n_ids[i], "case %zu", i + 1);
        cr_assert(memcmp(ids, k.ids[i], n * sizeof *ids) == 0, "case %zu", i + 1);
        cr_assert_eq(off[n], k.len[i]);
    }
    /* too small: the count needed, the first cap IDs, E_BUFFER; then a count with no buffer */
    const char *s = "The dog chased the cat";
    cr_expect_eq(gpt2embed_tokenize_into(t, s, strlen(s), 0, ids, NULL, 2, &n, &err), GPT2EMBED_E_BUFFER);
    cr_expect_eq(n, 5);
    cr_expect(ids[0] == 464 && ids[1] == 3290);
    cr_expect_eq(gpt2embed_tokenize_into(t, s, strlen(s), 0, NULL, NULL, 0, &n, &err), GPT2EMBED_E_BUFFER);
    cr_expect_eq(n, 5);
    cr_expect_eq(gpt2embed_tokenize_into(t, "", 0, 0, NULL, NULL, 0, &n, &err), GPT2EMBED_OK);
    cr_expect_eq(n, 0);
    off[0] = 99; /* no token: offsets[0] is still the text's end */
    cr_expect_eq(gpt2embed_tokenize_into(t, "", 0, 0, NULL, off, 0, &n, &err), GPT2EMBED_OK);
    cr_expect(n == 0 && off[0] == 0);
    cr_expect_eq(gpt2embed_tokenize_into(t, s, strlen(s), 0, ids, off, 5, &n, &err), GPT2EMBED_OK);
    cr_expect(n == 5 && off[5] == strlen(s) && off[1] == 3);
    /* error detail: the offset of the bad byte and of a refused special token */
    cr_expect_eq(gpt2embed_tokenize_into(t, "abc\xFFz", 5, 0, ids, NULL, 16, &n, &err), GPT2EMBED_E_UTF8);
    cr_expect(err.status == GPT2EMBED_E_UTF8 && err.offset == 3 && err.index == GPT2EMBED_NONE);
    cr_expect_eq(gpt2embed_tokenize_into(t, "hi <|endoftext|>", 16, GPT2EMBED_SPECIAL_ERROR, ids, NULL, 16, &n, &err),
                 GPT2EMBED_E_SPECIAL);
    cr_expect_eq(err.offset, 3);
    cr_expect_eq(gpt2embed_tokenize_into(t, "hi <|endoftext|>", 16, 0, ids, NULL, 16, &n, &err), GPT2EMBED_OK);
    cr_expect(n == 3 && ids[0] == 5303 && ids[1] == 220 && ids[2] == GPT2EMBED_TOKEN_EOT);
    free(ids);
    free(off);
    gpt2embed_tokenizer_close(t);
    free_cases(&k);
}

Test(api, batch_on_any_thread_count_is_tiktokens)
{
    cases k = load_cases();
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    size_t *counts = calloc(k.n, sizeof *counts);
    for (unsigned th = 0; th <= 5; th++) {
        uint32_t *ids;
        cr_assert_eq(gpt2embed_tokenize_batch(t, k.n, (const char *const *)k.text, k.len, GPT2EMBED_SPECIAL_TEXT, th,
                                              &ids, counts, &err),
                     GPT2EMBED_OK, "%s", err.message);
        size_t at = 0;
        for (size_t i = 0; i < k.n; i++) {
            cr_assert_eq(counts[i], k.n_ids[i], "threads %u case %zu", th, i + 1);
            cr_assert(memcmp(ids + at, k.ids[i], counts[i] * sizeof *ids) == 0, "threads %u case %zu", th, i + 1);
            at += counts[i];
        }
        gpt2embed_free(ids);
    }
    /* the first failing text is named, with the byte in it */
    char *bad = k.text[700];
    k.text[700] = "ok\xC3";
    k.len[700] = 3;
    uint32_t *ids = (uint32_t *)1;
    cr_expect_eq(gpt2embed_tokenize_batch(t, k.n, (const char *const *)k.text, k.len, 0, 2, &ids, counts, &err),
                 GPT2EMBED_E_UTF8);
    cr_expect(ids == NULL && err.index == 700 && err.offset == 2, "index %zu offset %zu", err.index, err.offset);
    cr_expect(strstr(err.message, "text 700") != NULL, "%s", err.message);
    k.text[700] = bad;
    free(counts);
    gpt2embed_tokenizer_close(t);
    free_cases(&k);
}

/* A Japanese text over 1024 tokens: the count and where token 1024 ends, against the offsets
 * of gpt2embed_tokenize_ex and the UTF-8 lead bytes before them (counted here). */
Test(api, count_says_where_token_n_ctx_ends)
{
    size_t len;
    char *text = read_file(G2E_SRCDIR "/tests/data/count_ja.txt", &len);
    cr_assert(text);
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    uint32_t *ids;
    size_t *off, n;
    cr_assert_eq(gpt2embed_tokenize_ex(t, text, len, 0, &ids, &off, &n, &err), GPT2EMBED_OK);
    size_t chars = 0;
    for (size_t i = 0; i < len; i++)
        chars += ((unsigned char)text[i] & 0xC0) != 0x80;
    for (size_t ctx = 1; ctx <= n + 1; ctx += ctx < 40 ? 1 : 97) {
        gpt2embed_count_info ci;
        cr_assert_eq(gpt2embed_count(t, text, len, 0, ctx, &ci, &err), GPT2EMBED_OK, "%s", err.message);
        cr_assert_eq(ci.n_tokens, n);
        cr_assert_eq(ci.n_chars, chars);
        cr_assert_eq(ci.n_ctx, ctx);
        size_t end = ctx < n ? off[ctx] : len, before = 0;
        cr_assert_eq(ci.ctx_end_byte, end, "ctx %zu", ctx);
        for (size_t i = 0; i < end; i++)
            before += ((unsigned char)text[i] & 0xC0) != 0x80;
        int splits = end < len && ((unsigned char)text[end] & 0xC0) == 0x80;
        cr_assert_eq(ci.ctx_end_splits_char, splits, "ctx %zu", ctx);
        cr_assert_eq(ci.ctx_end_char, before - (size_t)splits, "ctx %zu", ctx);
    }
    gpt2embed_count_info ci;
    cr_expect_eq(gpt2embed_count(t, text, len, 0, 0, &ci, &err), GPT2EMBED_E_ARG);
    gpt2embed_free(ids);
    gpt2embed_free(off);
    gpt2embed_tokenizer_close(t);
    free(text);
}

/* The count takes the special-token flags as gpt2embed_tokenize_ex does: <|endoftext|> one
 * token (default), text (seven tokens here), or refused with its byte offset. */
Test(api, count_takes_the_special_token_flags)
{
    static const char text[] = "a<|endoftext|>b c";
    size_t len = sizeof text - 1;
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    static const unsigned flags[] = {0, GPT2EMBED_SPECIAL_TEXT};
    for (size_t k = 0; k < 2; k++) {
        uint32_t *ids;
        size_t *off, n;
        cr_assert_eq(gpt2embed_tokenize_ex(t, text, len, flags[k], &ids, &off, &n, &err), GPT2EMBED_OK);
        gpt2embed_count_info ci;
        cr_assert_eq(gpt2embed_count(t, text, len, flags[k], 2, &ci, &err), GPT2EMBED_OK, "%s", err.message);
        cr_expect_eq(ci.n_tokens, n, "flags %u", flags[k]);
        cr_expect_eq(ci.ctx_end_byte, off[2], "flags %u", flags[k]);
        gpt2embed_free(ids);
        gpt2embed_free(off);
    }
    gpt2embed_count_info ci;
    cr_expect_eq(gpt2embed_count(t, text, len, 0, 2, &ci, &err), GPT2EMBED_OK);
    cr_expect_eq(ci.n_tokens, 4, "a, <|endoftext|>, b, ' c' -> %zu", ci.n_tokens);
    cr_expect_eq(gpt2embed_count(t, text, len, GPT2EMBED_SPECIAL_ERROR, 2, &ci, &err), GPT2EMBED_E_SPECIAL);
    cr_expect_eq(err.offset, 1);
    cr_expect_eq(gpt2embed_count(t, "ab\xFF" "c", 4, 0, 2, &ci, &err), GPT2EMBED_E_UTF8);
    cr_expect_eq(err.offset, 2);
    cr_expect_eq(gpt2embed_count(t, text, len, GPT2EMBED_SPECIAL_TEXT | GPT2EMBED_SPECIAL_ERROR, 2, &ci, &err),
                 GPT2EMBED_E_ARG);
    gpt2embed_tokenizer_close(t);
}

typedef struct feed {
    const char *s;
    size_t n, at, step;   /* bytes handed out per read: step, varying */
    int fail_at_end;      /* the errno of a read at the end (-1 returned), or 0 */
    int reads;            /* reads so far */
} feed;

static ptrdiff_t feed_read_on(void *u, char *buf, size_t cap);
static int sink_emit_on(void *u, const uint32_t *ids, size_t n);

/* Callbacks of a stream in progress (gpt2embed.h: never two at once), and whether two were. */
static atomic_int in_callback, callbacks_overlapped;

static void callback_enter(void)
{
    if (atomic_fetch_add(&in_callback, 1))
        atomic_store(&callbacks_overlapped, 1);
}

static ptrdiff_t feed_read(void *u, char *buf, size_t cap)
{
    callback_enter();
    ptrdiff_t k = feed_read_on(u, buf, cap);
    atomic_fetch_sub(&in_callback, 1);
    return k;
}

static ptrdiff_t feed_read_on(void *u, char *buf, size_t cap)
{
    feed *f = u;
    if (f->reads++ > 1000000)
        abort(); /* called again and again after -1 */
    if (f->at == f->n) {
        if (f->fail_at_end) {
            errno = f->fail_at_end;
            return -1;
        }
        return 0;
    }
    size_t k = f->step % 7919 + 1;
    f->step = f->step * 31 + 7;
    k = k < cap ? k : cap;
    k = k < f->n - f->at ? k : f->n - f->at;
    memcpy(buf, f->s + f->at, k);
    f->at += k;
    return (ptrdiff_t)k;
}

typedef struct sink {
    uint32_t *ids;
    size_t n, cap, stop_after;
} sink;

static int sink_emit(void *u, const uint32_t *ids, size_t n)
{
    callback_enter();
    int stop = sink_emit_on(u, ids, n);
    atomic_fetch_sub(&in_callback, 1);
    return stop;
}

static int sink_emit_on(void *u, const uint32_t *ids, size_t n)
{
    sink *s = u;
    if (s->n + n > s->cap) {
        while (s->n + n > s->cap)
            s->cap = s->cap ? 2 * s->cap : 4096;
        s->ids = realloc(s->ids, s->cap * sizeof *s->ids);
    }
    memcpy(s->ids + s->n, ids, n * sizeof *ids);
    s->n += n;
    return s->stop_after && s->n >= s->stop_after;
}

/* The conformance texts one after another, again and again until at least `least` bytes
 * (a new buffer; *total its length). */
static char *joined_cases(const cases *k, size_t least, size_t *total)
{
    size_t n = 0, cap = least + (1u << 20);
    char *all = malloc(cap);
    while (n < least)
        for (size_t i = 0; i < k->n && n + k->len[i] < cap; i++) {
            memcpy(all + n, k->text[i], k->len[i]);
            n += k->len[i];
        }
    *total = n;
    return all;
}

/* About 3 MB (several chunks) of every conformance text one after another, read a few bytes
 * at a time: the same IDs as the whole text at once, on 1 to 3 threads. */
Test(api, stream_gives_the_ids_of_the_whole_text, .timeout = 120)
{
    cases k = load_cases();
    size_t total;
    char *all = joined_cases(&k, 3u << 20, &total);
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    uint32_t *want;
    size_t n_want;
    cr_assert_eq(gpt2embed_tokenize_ex(t, all, total, GPT2EMBED_SPECIAL_TEXT, &want, NULL, &n_want, &err), 0);
    for (unsigned th = 1; th <= 3; th++) {
        feed f = {.s = all, .n = total, .step = th};
        sink s = {0};
        cr_assert_eq(gpt2embed_tokenize_stream(t, feed_read, &f, GPT2EMBED_SPECIAL_TEXT, th, sink_emit, &s, &err),
                     GPT2EMBED_OK, "%s", err.message);
        cr_assert_eq(s.n, n_want, "threads %u", th);
        cr_assert_eq(atomic_load(&callbacks_overlapped), 0, "threads %u: read and emit ran at once", th);
        cr_assert(memcmp(s.ids, want, n_want * sizeof *want) == 0, "threads %u", th);
        free(s.ids);
    }
    /* a bad byte far in: its offset from the start of the stream */
    all[total - 100] = '\xFF';
    feed f = {.s = all, .n = total, .step = 1};
    sink s = {0};
    cr_expect_eq(gpt2embed_tokenize_stream(t, feed_read, &f, 0, 2, sink_emit, &s, &err), GPT2EMBED_E_UTF8);
    cr_expect_eq(err.offset, total - 100);
    char want_msg[64];
    snprintf(want_msg, sizeof want_msg, "offset %zu", total - 100);
    cr_expect(strstr(err.message, want_msg) != NULL, "%s", err.message);
    free(s.ids);
    /* a failing read (EINTR too: not called again), a read that cancels, a callback that
     * stops: the status the header gives each */
    all[total - 100] = ' ';
    static const struct { int err, status; } reads[] = {
        {EIO, GPT2EMBED_E_IO}, {EINTR, GPT2EMBED_E_IO}, {ECANCELED, GPT2EMBED_E_STOPPED}};
    for (size_t r = 0; r < sizeof reads / sizeof *reads; r++)
        for (unsigned th = 1; th <= 2; th++) {
            f = (feed){.s = all, .n = 1000, .step = 1, .fail_at_end = reads[r].err};
            s = (sink){0};
            cr_expect_eq(gpt2embed_tokenize_stream(t, feed_read, &f, 0, th, sink_emit, &s, &err), reads[r].status,
                         "errno %d: %s", reads[r].err, err.message);
            cr_expect_eq(err.errno_value, reads[r].err);
            cr_expect_eq(f.at, 1000);
            free(s.ids);
        }
    f = (feed){.s = all, .n = total, .step = 1};
    s = (sink){.stop_after = 1};
    cr_expect_eq(gpt2embed_tokenize_stream(t, feed_read, &f, 0, 1, sink_emit, &s, &err), GPT2EMBED_E_STOPPED);
    cr_expect(s.n < n_want);
    free(s.ids);
    gpt2embed_free(want);
    free(all);
    gpt2embed_tokenizer_close(t);
    free_cases(&k);
}

/* 1 when two counts hold the same numbers (field by field: the struct has padding). */
static int same_count(const gpt2embed_count_info *a, const gpt2embed_count_info *b)
{
    return a->n_tokens == b->n_tokens && a->n_chars == b->n_chars && a->n_ctx == b->n_ctx &&
           a->ctx_end_byte == b->ctx_end_byte && a->ctx_end_char == b->ctx_end_char &&
           a->ctx_end_splits_char == b->ctx_end_splits_char;
}

/* Line and column of the first character not wholly before byte end, by this test's own walk. */
static void line_col(const char *text, size_t len, size_t end, size_t *line, size_t *col)
{
    int splits = end < len && ((unsigned char)text[end] & 0xC0) == 0x80;
    size_t start = end;   /* the character the cut is in, or the next one */
    while (splits && start > 0 && ((unsigned char)text[start] & 0xC0) == 0x80)
        start--;
    *line = 1, *col = 1;
    for (size_t i = 0; i < start; i++)
        if (text[i] == '\n')
            *line += 1, *col = 1;
        else
            *col += ((unsigned char)text[i] & 0xC0) != 0x80;
}

/* The English words count_ex and count_stream give in their detail, counted in the chunks
 * of the threads and the stretches of a stream, are gpt2embed_english_words's of the whole
 * text (test_text.c checks that against the definition): an English text of 2 MB, and the
 * same with a Japanese text after every copy, where the verdict turns. */
Test(api, count_detail_words_over_threads_and_streams_are_the_whole_texts, .timeout = 120)
{
    size_t en_n, ja_n;
    char *en = read_file(G2E_SRCDIR "/tests/data/count_en.txt", &en_n), *ja = read_file(G2E_SRCDIR "/tests/data/count_ja.txt", &ja_n);
    cr_assert(en && ja);
    size_t reps = (2u << 20) / en_n + 1;
    char *text = malloc(reps * (en_n + ja_n));
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    for (int mixed = 0; mixed < 2; mixed++) {
        size_t len = 0;
        for (size_t k = 0; k < reps; k++) {
            memcpy(text + len, en, en_n), len += en_n;
            if (mixed)
                memcpy(text + len, ja, ja_n), len += ja_n;
        }
        int english = -1;
        size_t words = gpt2embed_english_words(text, len, &english);
        cr_assert(words > reps);
        cr_assert_eq(english, !mixed);
        for (unsigned th = 1; th <= 4; th *= 2) {
            gpt2embed_count_info ci;
            gpt2embed_count_detail d, ds;
            cr_assert_eq(gpt2embed_count_ex(t, text, len, 0, 1024, th, &ci, &d, &err), 0, "%s", err.message);
            cr_expect(d.n_words == words && d.english == english, "%s, %u threads: %zu words (english %d), want %zu (%d)",
                      mixed ? "mixed" : "English", th, d.n_words, d.english, words, english);
            feed f = {.s = text, .n = len, .step = 4093 * th};
            cr_assert_eq(gpt2embed_count_stream(t, feed_read, &f, 0, 1024, th, &ci, &ds, &err), 0, "%s", err.message);
            cr_expect(ds.n_words == words && ds.english == english, "stream, %s, %u threads: %zu words (english %d), want %zu (%d)",
                      mixed ? "mixed" : "English", th, ds.n_words, ds.english, words, english);
        }
    }
    gpt2embed_tokenizer_close(t);
    free(text), free(en), free(ja);
}

/* count_ex on 1..8 threads and count_stream read a few bytes at a time give gpt2embed_count's
 * numbers, with the bytes, the line and column of the cut and a snippet around it; a failing
 * read is the stream's status; char_costs adds up to the tokens on any thread count. */
Test(api, count_ex_stream_and_char_costs, .timeout = 120)
{
    size_t len;
    char *text = read_file(G2E_SRCDIR "/tests/data/count_ja.txt", &len);
    cr_assert(text);
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    static const size_t ctxs[] = {1, 7, 100, 1024, 100000};
    for (size_t k = 0; k < sizeof ctxs / sizeof *ctxs; k++) {
        gpt2embed_count_info want, got;
        gpt2embed_count_detail d;
        cr_assert_eq(gpt2embed_count(t, text, len, 0, ctxs[k], &want, &err), 0, "%s", err.message);
        size_t line = 0, col = 0;
        int fits = want.n_tokens <= ctxs[k];
        if (!fits)
            line_col(text, len, want.ctx_end_byte, &line, &col);
        for (unsigned th = 1; th <= 8; th *= 2) {
            cr_assert_eq(gpt2embed_count_ex(t, text, len, 0, ctxs[k], th, &got, &d, &err), 0, "%s", err.message);
            cr_expect(same_count(&got, &want), "ctx %zu, %u threads", ctxs[k], th);
            cr_expect_eq(d.n_bytes, len);
            cr_expect_eq(d.n_replaced, 0);
            cr_expect_eq(d.ctx_end_line, line, "ctx %zu: line %zu, want %zu", ctxs[k], d.ctx_end_line, line);
            cr_expect_eq(d.ctx_end_column, col, "ctx %zu: column %zu, want %zu", ctxs[k], d.ctx_end_column, col);
            cr_expect_eq(strchr(d.ctx_end_snippet, '|') != NULL, !fits, "ctx %zu: '%s'", ctxs[k], d.ctx_end_snippet);
            feed f = {.s = text, .n = len, .step = th};
            gpt2embed_count_detail ds;
            cr_assert_eq(gpt2embed_count_stream(t, feed_read, &f, 0, ctxs[k], th, &got, &ds, &err), 0, "%s",
                         err.message);
            cr_expect(same_count(&got, &want), "stream: ctx %zu, %u threads", ctxs[k], th);
            cr_expect(ds.n_bytes == d.n_bytes && ds.n_replaced == d.n_replaced && ds.ctx_end_line == d.ctx_end_line &&
                      ds.ctx_end_column == d.ctx_end_column && !strcmp(ds.ctx_end_snippet, d.ctx_end_snippet),
                      "stream: ctx %zu, %u threads", ctxs[k], th);
        }
    }
    gpt2embed_count_info ci;
    gpt2embed_count_detail d;
    cr_expect_eq(gpt2embed_count_ex(t, "a\xFF" "b", 3, GPT2EMBED_LOSSY, 1, 1, &ci, &d, &err), 0);
    cr_expect_eq(d.n_replaced, 1);
    cr_expect_eq(d.ctx_end_line, 1);
    feed f = {.s = text, .n = 1000, .step = 1, .fail_at_end = EIO};
    cr_expect_eq(gpt2embed_count_stream(t, feed_read, &f, 0, 10, 2, &ci, NULL, &err), GPT2EMBED_E_IO);
    cr_expect_eq(err.errno_value, EIO);
    f = (feed){.s = text, .n = 1000, .step = 1, .fail_at_end = ECANCELED};
    cr_expect_eq(gpt2embed_count_stream(t, feed_read, &f, 0, 10, 1, &ci, NULL, &err), GPT2EMBED_E_STOPPED);
    f = (feed){.s = "ab\xFF", .n = 3, .step = 1};
    cr_expect_eq(gpt2embed_count_stream(t, feed_read, &f, 0, 10, 1, &ci, NULL, &err), GPT2EMBED_E_UTF8);
    cr_expect_eq(err.offset, 2);
    cr_expect_eq(gpt2embed_count_stream(t, feed_read, &f, GPT2EMBED_LOSSY, 10, 1, &ci, NULL, &err), GPT2EMBED_E_ARG);
    /* costs: their sum is the token count, on any thread count; a bad byte is one character */
    gpt2embed_char_cost *c1, *c4;
    size_t n1, n4;
    cr_assert_eq(gpt2embed_char_costs(t, text, len, 0, 1, &c1, &n1, &err), 0, "%s", err.message);
    cr_assert_eq(gpt2embed_char_costs(t, text, len, 0, 4, &c4, &n4, &err), 0, "%s", err.message);
    cr_assert_eq(n1, n4);
    cr_expect(memcmp(c1, c4, n1 * sizeof *c1) == 0);
    double sum = 0;
    for (size_t i = 0; i < n1; i++) {
        sum += c1[i].tokens;
        cr_expect(i == 0 || c1[i - 1].tokens >= c1[i].tokens, "costliest first");
    }
    cr_assert_eq(gpt2embed_count(t, text, len, 0, 1, &ci, &err), 0);
    cr_expect(fabs(sum - (double)ci.n_tokens) < 1e-6, "%g vs %zu", sum, ci.n_tokens);
    gpt2embed_free(c1), gpt2embed_free(c4);
    cr_assert_eq(gpt2embed_char_costs(t, "\xE7\x8A\xAC", 3, 0, 1, &c1, &n1, &err), 0);
    cr_expect_eq(n1, 1);
    cr_expect_eq(c1[0].code_point, 0x72AC);
    cr_expect_eq(c1[0].n_bytes, 3);
    gpt2embed_free(c1);
    cr_expect_eq(gpt2embed_char_costs(t, "\xFF", 1, 0, 1, &c1, &n1, &err), GPT2EMBED_E_UTF8);
    cr_expect_null(c1);
    cr_assert_eq(gpt2embed_char_costs(t, "\xFF", 1, GPT2EMBED_LOSSY, 1, &c1, &n1, &err), 0);
    cr_expect_eq(c1[0].code_point, -1);
    cr_expect_eq(c1[0].tokens, 1.0);
    gpt2embed_free(c1);
    cr_assert_eq(gpt2embed_char_costs(t, "", 0, 0, 1, &c1, &n1, &err), 0);
    cr_expect_eq(n1, 0);
    gpt2embed_tokenizer_close(t);
    free(text);
}

Test(api, token_bytes_without_allocating)
{
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    const uint8_t *b;
    size_t n;
    cr_assert_eq(gpt2embed_token_bytes(t, 15496, &b, &n, &err), GPT2EMBED_OK);
    cr_expect(n == 5 && memcmp(b, "Hello", 5) == 0);
    cr_assert_eq(gpt2embed_token_bytes(t, GPT2EMBED_TOKEN_EOT, &b, &n, &err), GPT2EMBED_OK);
    cr_expect(n == 13 && memcmp(b, "<|endoftext|>", 13) == 0);
    cr_expect_eq(gpt2embed_token_bytes(t, 50257, &b, &n, &err), GPT2EMBED_E_TOKEN_ID);
    cr_expect(strstr(err.message, "50257") != NULL, "%s", err.message);
    /* decode names the index of the bad ID in err.index */
    uint32_t bad[3] = {464, 3290, 99999};
    char *txt;
    cr_expect_eq(gpt2embed_decode(t, bad, 3, &txt, &n, &err), GPT2EMBED_E_TOKEN_ID);
    cr_expect_eq(err.index, 2);
    cr_expect(gpt2embed_cpu_count() >= 1);
    gpt2embed_tokenizer_close(t);
}

/* One tokenizer shared by 6 threads, each tokenizing every case through three calls: the
 * same IDs as tiktoken in every thread (before the pool this corrupted the heap). */
typedef struct caller {
    gpt2embed_tokenizer *t;
    const cases *k;
    unsigned threads; /* the threads each of its calls asks for (batches) */
    size_t wrong;
} caller;

/* fn on n callers (at most 8) of t at once, joined; none may have had a wrong result. */
static void run_callers(void *(*fn)(void *), int n, gpt2embed_tokenizer *t, const cases *k, unsigned threads)
{
    caller c[8];
    pthread_t th[8];
    for (int i = 0; i < n; i++) {
        c[i] = (caller){t, k, threads, 0};
        cr_assert_eq(pthread_create(&th[i], NULL, fn, &c[i]), 0);
    }
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        cr_expect_eq(c[i].wrong, 0, "%u threads, caller %d: %zu wrong results", threads, i, c[i].wrong);
    }
}

static void *share_run(void *arg)
{
    caller *s = arg;
    gpt2embed_error err;
    uint32_t *buf = malloc((1 << 15) * sizeof *buf);
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < s->k->n; i++) {
            uint32_t *ids = NULL;
            size_t n = 0;
            int rc = round == 0 ? gpt2embed_tokenize_into(s->t, s->k->text[i], s->k->len[i], GPT2EMBED_SPECIAL_TEXT,
                                                          buf, NULL, 1 << 15, &n, &err)
                                : gpt2embed_tokenize_ex(s->t, s->k->text[i], s->k->len[i], GPT2EMBED_SPECIAL_TEXT,
                                                        &ids, NULL, &n, &err);
            const uint32_t *got = round == 0 ? buf : ids;
            s->wrong += rc || n != s->k->n_ids[i] || memcmp(got, s->k->ids[i], n * sizeof *got) != 0;
            gpt2embed_free(ids);
        }
    free(buf);
    return NULL;
}

Test(api, one_tokenizer_shared_by_threads, .timeout = 120)
{
    cases k = load_cases();
    gpt2embed_tokenizer *t = open_tok();
    run_callers(share_run, 6, t, &k, 0);
    gpt2embed_tokenizer_close(t);
    free_cases(&k);
}

/* Callers that each ask for more threads than the tokenizer keeps contexts for (64): no call
 * waits for a context while it holds others, so none waits for ever (two callers of 64 threads
 * each used to hang, every worker in the pool's wait). A hang is this test's timeout. */
static void *greedy_run(void *arg)
{
    caller *g = arg;
    gpt2embed_error err;
    size_t *counts = calloc(g->k->n, sizeof *counts);
    for (int round = 0; round < 3; round++) {
        uint32_t *ids = NULL;
        if (gpt2embed_tokenize_batch(g->t, g->k->n, (const char *const *)g->k->text, g->k->len,
                                     GPT2EMBED_SPECIAL_TEXT, g->threads, &ids, counts, &err) != GPT2EMBED_OK) {
            g->wrong++;
            continue;
        }
        for (size_t i = 0, at = 0; i < g->k->n; at += counts[i++])
            g->wrong += counts[i] != g->k->n_ids[i] || memcmp(ids + at, g->k->ids[i], counts[i] * sizeof *ids) != 0;
        gpt2embed_free(ids);
    }
    free(counts);
    return NULL;
}

Test(api, callers_asking_for_many_threads_never_wait_for_each_other, .timeout = 240)
{
    cases k = load_cases();
    gpt2embed_tokenizer *t = open_tok();
    static const unsigned asks[] = {40, 64, 10000};
    for (size_t a = 0; a < sizeof asks / sizeof *asks; a++)
        run_callers(greedy_run, 4, t, &k, asks[a]);
    gpt2embed_tokenizer_close(t);
    free_cases(&k);
}

/* An emit callback that tokenizes on the same tokenizer while its stream runs on 64 threads
 * (every context the tokenizer keeps): the inner calls get tiktoken's IDs, and the stream
 * its own. */
typedef struct reenter {
    sink s;
    gpt2embed_tokenizer *t;
    const cases *k;
    size_t calls, wrong;
} reenter;

static int reenter_emit(void *u, const uint32_t *ids, size_t n)
{
    reenter *r = u;
    const cases *k = r->k;
    size_t i = r->calls++ % k->n, got = 0;
    uint32_t *inner = NULL, *batch = NULL, buf[1 << 12];
    gpt2embed_error err;
    /* one of each call that takes a context: into, ex, batch and count */
    int rc = gpt2embed_tokenize_into(r->t, k->text[i], k->len[i], GPT2EMBED_SPECIAL_TEXT, buf, NULL,
                                     sizeof buf / sizeof *buf, &got, &err);
    r->wrong += rc == GPT2EMBED_OK && (got != k->n_ids[i] || memcmp(buf, k->ids[i], got * sizeof *buf) != 0);
    r->wrong += rc != GPT2EMBED_OK && rc != GPT2EMBED_E_BUFFER;
    rc = gpt2embed_tokenize_ex(r->t, k->text[i], k->len[i], GPT2EMBED_SPECIAL_TEXT, &inner, NULL, &got, &err);
    r->wrong += rc || got != k->n_ids[i] || memcmp(inner, k->ids[i], got * sizeof *inner) != 0;
    size_t counts[2];
    const char *two[2] = {k->text[i], k->text[(i + 1) % k->n]};
    size_t lens[2] = {k->len[i], k->len[(i + 1) % k->n]};
    rc = gpt2embed_tokenize_batch(r->t, 2, two, lens, GPT2EMBED_SPECIAL_TEXT, 64, &batch, counts, &err);
    r->wrong += rc || counts[0] != k->n_ids[i] || memcmp(batch, k->ids[i], counts[0] * sizeof *batch) != 0;
    gpt2embed_count_info ci;
    rc = gpt2embed_count(r->t, k->text[i], k->len[i], GPT2EMBED_SPECIAL_TEXT, 1024, &ci, &err);
    r->wrong += rc || ci.n_tokens != k->n_ids[i];
    gpt2embed_free(inner);
    gpt2embed_free(batch);
    return sink_emit_on(&r->s, ids, n);
}

Test(api, an_emit_callback_may_tokenize_on_the_same_tokenizer, .timeout = 240)
{
    cases k = load_cases();
    size_t total = 0, cap = 8u << 20;
    char *all = malloc(cap);
    while (total < (6u << 20))
        for (size_t i = 0; i < k.n && total + k.len[i] < cap; i++) {
            memcpy(all + total, k.text[i], k.len[i]);
            total += k.len[i];
        }
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    uint32_t *want;
    size_t n_want;
    cr_assert_eq(gpt2embed_tokenize_ex(t, all, total, GPT2EMBED_SPECIAL_TEXT, &want, NULL, &n_want, &err), 0);
    static const unsigned asks[] = {64, 10000};
    for (size_t a = 0; a < sizeof asks / sizeof *asks; a++) {
        feed f = {.s = all, .n = total, .step = 1};
        reenter r = {.t = t, .k = &k};
        cr_assert_eq(gpt2embed_tokenize_stream(t, feed_read_on, &f, GPT2EMBED_SPECIAL_TEXT, asks[a], reenter_emit, &r,
                                               &err),
                     GPT2EMBED_OK, "%s", err.message);
        cr_expect(r.calls > 1, "%zu emits", r.calls);
        cr_expect_eq(r.wrong, 0, "%u threads: %zu wrong inner results", asks[a], r.wrong);
        cr_expect_eq(r.s.n, n_want);
        cr_expect(r.s.n == n_want && memcmp(r.s.ids, want, n_want * sizeof *want) == 0);
        free(r.s.ids);
    }
    gpt2embed_free(want);
    free(all);
    gpt2embed_tokenizer_close(t);
    free_cases(&k);
}

Test(api, one_thread_cap_for_every_call)
{
    unsigned cpus = gpt2embed_cpu_count();
    cr_expect_eq(gpt2embed_threads_for(0, 1000), cpus < GPT2EMBED_THREADS_MAX ? cpus : GPT2EMBED_THREADS_MAX);
    cr_expect_eq(gpt2embed_threads_for(10000, 1000), 64);
    cr_expect_eq(gpt2embed_threads_for(4294967295u, (size_t)-1), 64);
    cr_expect_eq(gpt2embed_threads_for(10000, 5), 5);
    cr_expect_eq(gpt2embed_threads_for(3, 1000), 3);
    cr_expect_eq(gpt2embed_threads_for(3, 0), 1);
    cr_expect_eq(gpt2embed_threads_for(0, 0), 1);
}

/* ---- the course (gpt2embed_course_*, the rendering object's door) ---- */

/* The JSON a course call returned: checked non-NULL and freed by the caller. */
static void expect_same_document(char *json, const char *cmd_out, const char *what)
{
    cr_assert(json, "%s: no document", what);
    cr_expect_str_eq(json, cmd_out, "%s: the library's document differs from the command's", what);
    gpt2embed_free(json);
}

/* Issue 38: the course's numbers through the door are the program's JSON, byte for byte (one
 * writer, one computation): exercise, compare, sinusoidal --compare-learned. */
Test(api, course_documents_are_the_commands_json, .timeout = 60)
{
    gpt2embed_model *m = open_model(fpath);
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    char *json = NULL;
    cr_assert_eq(gpt2embed_course_exercise(m, t, GPT2EMBED_EXERCISE_1 | GPT2EMBED_EXERCISE_2, 4096,
                                           4096, 0, &json, &err), 0, "%s", err.message);
    run_result r = run_g2e("exercise", "--format", "json", "--weights", fpath, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    expect_same_document(json, r.out, "exercise");
    run_free(&r);
    cr_assert_eq(gpt2embed_course_exercise(NULL, NULL, GPT2EMBED_EXERCISE_1, 2048, 1024, 0, &json, &err), 0,
                 "%s", err.message);
    r = run_g2e("exercise", "1", "--ctx", "2048", "--dim", "1024", "--format", "json", NULL);
    expect_same_document(json, r.out, "exercise 1 alone");
    run_free(&r);
    const char *a = "犬が猫を追いかけた", *b = "猫が犬を追いかけた";
    cr_assert_eq(gpt2embed_course_order(m, t, a, strlen(a), b, strlen(b), 0, &json, &err), 0, "%s", err.message);
    r = run_g2e("compare", a, b, "--format", "json", "--weights", fpath, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    expect_same_document(json, r.out, "compare");
    run_free(&r);
    cr_assert_eq(gpt2embed_course_by_distance(m, 100, 20, 10000.0, 0, &json, &err), 0, "%s", err.message);
    r = run_g2e("sinusoidal", "--compare-learned", "--len", "100", "--max-distance", "20", "--format",
                "json", "--weights", fpath, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    expect_same_document(json, r.out, "sinusoidal --compare-learned");
    run_free(&r);
    const uint32_t cat[2] = {3797, 9246};
    const size_t pos[2] = {0, 5};
    cr_assert_eq(gpt2embed_course_pair(m, t, GPT2EMBED_PAIR_AT, cat, pos, 0, &json, &err), 0, "%s", err.message);
    r = run_g2e("similarity", "--at", " cat", "0", "5", "--format", "json", "--weights", fpath, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    expect_same_document(json, r.out, "similarity --at");
    run_free(&r);
    cr_assert_eq(gpt2embed_course_pair(m, t, GPT2EMBED_PAIR_TOKENS, cat, NULL, 0, &json, &err), 0, "%s", err.message);
    r = run_g2e("similarity", "--tokens", " cat", "cat", "--format", "json", "--weights", fpath, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    expect_same_document(json, r.out, "similarity --tokens");
    run_free(&r);
    cr_assert_eq(gpt2embed_course_pair(m, NULL, GPT2EMBED_PAIR_POSITIONS, NULL, pos, 0, &json, &err), 0, "%s",
                 err.message);
    r = run_g2e("similarity", "--pos", "0", "5", "--format", "json", "--weights", fpath, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    expect_same_document(json, r.out, "similarity --pos");
    run_free(&r);
    gpt2embed_tokenizer_close(t);
    gpt2embed_model_close(m);
}

/* A pair's cosine is the one computed here from the fixture's rows; its sentence is chosen by
 * the number; a pair outside the tables is an error naming the table. */
Test(api, course_pair_cosine_sentence_and_errors)
{
    gpt2embed_model *m = open_model(fpath);
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    char *json = NULL;
    const uint32_t ids[2] = {7, 11};
    const size_t pos[2] = {3, 900};
    cr_assert_eq(gpt2embed_course_pair(m, t, GPT2EMBED_PAIR_AT, ids, pos, GPT2EMBED_COURSE_SAYS, &json, &err), 0,
                 "%s", err.message);
    double ab = 0, aa = 0, bb = 0;
    for (size_t c = 0; c < C; c++) {
        float x = fixture_expected(&f32, FIXTURE_WTE, 7, c) + fixture_expected(&f32, FIXTURE_WPE, 3, c);
        float y = fixture_expected(&f32, FIXTURE_WTE, 7, c) + fixture_expected(&f32, FIXTURE_WPE, 900, c);
        ab += (double)x * y, aa += (double)x * x, bb += (double)y * y;
    }
    const char *got = strstr(json, "\"cos\": ");
    cr_assert(got, "%s", json);
    double c = strtod(got + 7, NULL);   /* (the library sums in another order: to ~1e-16) */
    cr_expect(fabs(c - ab / sqrt(aa * bb)) < 1e-12, "%.17g vs %.17g", c, ab / sqrt(aa * bb));
    cr_expect(strstr(json, "\"what\": \"cos(wte[7 '(']") != NULL, "%s", json);
    cr_expect(strstr(json, "\"says\": [\"'('") != NULL, "%s", json);
    gpt2embed_free(json);
    const size_t far[2] = {0, 1024};
    cr_expect_eq(gpt2embed_course_pair(m, t, GPT2EMBED_PAIR_POSITIONS, NULL, far, 0, &json, &err), GPT2EMBED_E_ARG);
    cr_expect(strstr(err.message, "wpe") != NULL && json == NULL, "%s", err.message);
    cr_expect_eq(gpt2embed_course_pair(m, t, 9, ids, pos, 0, &json, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_course_pair(m, t, GPT2EMBED_PAIR_TOKENS, NULL, NULL, 0, &json, &err), GPT2EMBED_E_ARG);
    gpt2embed_tokenizer_close(t);
    gpt2embed_model_close(m);
}

/* A translator for the test: the conclusion's first words and one error message marked. */
static const char *test_tr(const char *msgid)
{
    if (strcmp(msgid, "conclusion: distinguishable.") == 0)
        return "KETSURON: kubetsu dekiru.";
    if (strcmp(msgid, "gpt2embed_course_exercise: ctx and dim must be 1 .. 2^31") == 0)
        return "ctx to dim wa 1 .. 2^31";
    return NULL;
}

/* The sentences come with GPT2EMBED_COURSE_SAYS, in the translator's language; errors too;
 * without a translator, English again; the program's own JSON has no sentences. */
Test(api, course_sentences_follow_the_translator)
{
    gpt2embed_model *m = open_model(fpath);
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    char *json = NULL;
    const char *a = "犬が猫を追いかけた", *b = "猫が犬を追いかけた";
    cr_assert_eq(gpt2embed_course_order(m, t, a, strlen(a), b, strlen(b), GPT2EMBED_COURSE_SAYS, &json,
                                        &err), 0, "%s", err.message);
    cr_expect(strstr(json, "\"says\": [\"Self-attention without a mask sees") && strstr(json, "conclusion: distinguishable."),
              "%s", json);
    gpt2embed_free(json);
    gpt2embed_set_translator(test_tr);
    cr_assert_eq(gpt2embed_course_order(m, t, a, strlen(a), b, strlen(b), GPT2EMBED_COURSE_SAYS, &json,
                                        &err), 0, "%s", err.message);
    cr_expect(strstr(json, "KETSURON: kubetsu dekiru.") && !strstr(json, "conclusion: distinguishable."),
              "%s", json);
    gpt2embed_free(json);
    cr_expect_eq(gpt2embed_course_exercise(NULL, NULL, GPT2EMBED_EXERCISE_1, 0, 4096, 0, &json, &err),
                 GPT2EMBED_E_ARG);
    cr_expect_str_eq(err.message, "ctx to dim wa 1 .. 2^31");
    cr_expect(json == NULL);
    gpt2embed_set_translator(NULL);
    cr_expect_eq(gpt2embed_course_exercise(NULL, NULL, GPT2EMBED_EXERCISE_1, 0, 4096, 0, &json, &err),
                 GPT2EMBED_E_ARG);
    cr_expect_str_eq(err.message, "gpt2embed_course_exercise: ctx and dim must be 1 .. 2^31");
    cr_assert_eq(gpt2embed_course_exercise(m, t, GPT2EMBED_EXERCISE_2, 4096, 4096, GPT2EMBED_COURSE_SAYS,
                                           &json, &err), 0, "%s", err.message);
    cr_expect(strstr(json, "\"says\": [\"cos(pos 0, pos 1) = ") && strstr(json, "'\xE2\x90\xA3" "cat' at positions 0 and 5"),
              "%s", json);
    gpt2embed_free(json);
    gpt2embed_tokenizer_close(t);
    gpt2embed_model_close(m);
}

Test(api, course_errors)
{
    gpt2embed_model *m = open_model(fpath);
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    char *json = (char *)"untouched";
    cr_expect_eq(gpt2embed_course_exercise(m, NULL, GPT2EMBED_EXERCISE_2, 4096, 4096, 0, &json, &err), GPT2EMBED_E_ARG);
    cr_expect(json == NULL);
    cr_expect_eq(gpt2embed_course_exercise(m, t, 4, 4096, 4096, 0, &json, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_course_exercise(m, t, 0, 4096, 4096, 0, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_course_order(m, t, "", 0, "a", 1, 0, &json, &err), GPT2EMBED_E_ARG);
    cr_expect(strstr(err.message, "text A"), "%s", err.message);
    cr_expect_eq(gpt2embed_course_order(m, t, "ab", 2, "a\xff", 2, 0, &json, &err), GPT2EMBED_E_UTF8);
    cr_expect(err.offset == 1 && strstr(err.message, "text B: "), "%zu %s", err.offset, err.message);
    cr_expect_eq(gpt2embed_course_order(NULL, t, "a", 1, "b", 1, 0, &json, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_course_by_distance(m, 2000, 10, 10000.0, 0, &json, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_course_by_distance(m, 10, 10, 10000.0, 0, &json, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_course_by_distance(m, 10, 3, 1.0, 0, &json, &err), GPT2EMBED_E_ARG);
    cr_expect(json == NULL);
    /* a wpe of 5 positions has no position 5 for " cat" */
    fixture_opts o = f32;
    o.n_ctx = 5;
    char *p5 = path_join(dir, "ctx5.safetensors"), e[256];
    cr_assert_eq(fixture_write(p5, &o, e, sizeof e), 0, "%s", e);
    gpt2embed_model *m5 = open_model(p5);
    cr_expect_eq(gpt2embed_course_exercise(m5, t, GPT2EMBED_EXERCISE_2, 4096, 4096, 0, &json, &err),
                 GPT2EMBED_E_CONTEXT);
    cr_expect_str_eq(err.message, "exercise 2 needs at least 6 positions, wpe has 5");
    gpt2embed_model_close(m5);
    free(p5);
    gpt2embed_tokenizer_close(t);
    gpt2embed_model_close(m);
}

/* The rotation's path against cos/sin computed here; the default pair is dim/8 (0.1 rad at
 * base 10000); English words. */
Test(api, sinusoid_pair_and_english_words)
{
    double x[50], y[50], w = 0;
    gpt2embed_error err;
    cr_assert_eq(gpt2embed_sinusoid_pair(50, 64, GPT2EMBED_PAIR_DEFAULT, 10000.0, x, y, &w, &err), 0, "%s", err.message);
    double want = pow(10000.0, -2.0 * 8 / 64);
    cr_expect(fabs(w - want) < 1e-15 && fabs(w - 0.1) < 1e-12, "%.17g", w);
    for (int p = 0; p < 50; p++)
        cr_expect(fabs(x[p] - cos(p * want)) < 1e-12 && fabs(y[p] - sin(p * want)) < 1e-12, "p %d", p);
    cr_assert_eq(gpt2embed_sinusoid_pair(3, 64, 0, 10000.0, x, y, &w, &err), 0, "%s", err.message);
    cr_expect(w == 1.0 && fabs(x[1] - cos(1.0)) < 1e-15);
    cr_expect_eq(gpt2embed_sinusoid_pair(3, 64, 32, 10000.0, x, y, &w, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_sinusoid_pair(3, 63, 0, 10000.0, x, y, &w, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_sinusoid_pair(3, 64, 0, 10000.0, NULL, y, &w, &err), GPT2EMBED_E_ARG);
    int en = -1;
    const char *s = "GPT-2's context holds 1024 tokens, some 700-800 words.";
    cr_expect_eq(gpt2embed_english_words(s, strlen(s), &en), 6);   /* 1024, 700-800: no letter */
    cr_expect_eq(en, 1);
    s = "犬が猫を追いかけた dog";
    cr_expect_eq(gpt2embed_english_words(s, strlen(s), &en), 1);
    cr_expect_eq(en, 0);
    cr_expect_eq(gpt2embed_english_words(NULL, 0, &en), 0);
}

/* The rendering object's door, as the Python module meets it: dlopen, draw, PNG bytes. */
Test(api, the_rendering_objects_door_draws_from_arrays)
{
    char *b = build_dir(), so[4200];
    snprintf(so, sizeof so, "%s/gpt2-embed-render.so", b);
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    cr_assert(h, "%s", dlerror());
    gpt2embed_status (*rot)(const double *, const double *, size_t, size_t, double, size_t, double,
                            unsigned char **, size_t *, gpt2embed_error *);
    void (*fr)(void *);
    *(void **)&rot = dlsym(h, "gpt2embed_figure_rotation");
    *(void **)&fr = dlsym(h, "gpt2embed_figure_free");
    cr_assert(rot && fr);
    double x[64], y[64], w;
    gpt2embed_error err;
    cr_assert_eq(gpt2embed_sinusoid_pair(64, 128, GPT2EMBED_PAIR_DEFAULT, 10000.0, x, y, &w, &err), 0);
    unsigned char *png = NULL;
    size_t len = 0;
    cr_assert_eq(rot(x, y, 64, 16, w, 128, 10000.0, &png, &len, &err), 0, "%s", err.message);
    cr_expect(len > 1000 && memcmp(png, "\x89PNG\r\n\x1a\n", 8) == 0);
    fr(png);
    cr_expect_eq(rot(x, y, 0, 16, w, 128, 10000.0, &png, &len, &err), GPT2EMBED_E_ARG);
    cr_expect(png == NULL && len == 0 && strstr(err.message, "1 to 1000000"), "%s", err.message);
    cr_expect_eq(rot(x, y, 64, 16, w, 128, 10000.0, NULL, &len, &err), GPT2EMBED_E_ARG);
    free(b);   /* (the object stays loaded, as a host keeps it: its fonts' caches live in it) */
}

/* ---- the ordered pipeline, its workers, the cuts and the stream's documents ---- */

/* A pipeline over the conformance texts: item k is text k, tokenized by a worker and copied
 * into its slot, handed on in order and checked there against tiktoken's IDs. */
typedef struct pslot {
    size_t k;
    uint32_t *ids;
    size_t n;
    gpt2embed_status st;
} pslot;

typedef struct pjob {
    const cases *c;
    size_t next_hand, wrong, taken, stop_at, end_at;
    unsigned most_worker;
    atomic_int in_take, in_hand, overlapped;
} pjob;

static int pj_take(void *u, size_t k, void *slot)
{
    pjob *j = u;
    if (atomic_fetch_add(&j->in_take, 1))
        atomic_store(&j->overlapped, 1);
    pslot *s = slot;
    int end = k == j->end_at;
    if (!end)
        s->k = k % j->c->n, j->taken++;
    atomic_fetch_sub(&j->in_take, 1);
    return end;
}

static void pj_work(void *u, size_t k, void *slot, gpt2embed_worker *w)
{
    pjob *j = u;
    pslot *s = slot;
    const uint32_t *ids;
    (void)k;
    s->st = gpt2embed_worker_tokenize(w, j->c->text[s->k], j->c->len[s->k], GPT2EMBED_SPECIAL_TEXT, &ids, &s->n, NULL);
    s->ids = realloc(s->ids, (s->n ? s->n : 1) * sizeof *ids);
    memcpy(s->ids, ids, s->n * sizeof *ids);
    unsigned wi = gpt2embed_worker_index(w);
    if (wi > j->most_worker) /* (a race between workers only loses a larger index) */
        j->most_worker = wi;
}

static int pj_hand(void *u, size_t k, void *slot)
{
    pjob *j = u;
    pslot *s = slot;
    if (atomic_fetch_add(&j->in_hand, 1))
        atomic_store(&j->overlapped, 1);
    j->wrong += k != j->next_hand++ || s->st || s->n != j->c->n_ids[s->k] ||
                memcmp(s->ids, j->c->ids[s->k], s->n * sizeof *s->ids) != 0;
    atomic_fetch_sub(&j->in_hand, 1);
    return k == j->stop_at;
}

static void pj_release(void *u, void *slot)
{
    (void)u;
    free(((pslot *)slot)->ids);
}

static gpt2embed_status pj_run(gpt2embed_tokenizer *t, pjob *j, size_t items, unsigned threads,
                               gpt2embed_pipeline *p, gpt2embed_error *err)
{
    *p = (gpt2embed_pipeline){.user = j, .slot_size = sizeof(pslot), .take = pj_take, .work = pj_work,
                              .hand = pj_hand, .release = pj_release};
    return gpt2embed_pipeline_run(t, p, items, threads, err);
}

Test(api, pipeline_hands_every_item_in_order_on_any_thread_count, .timeout = 240)
{
    cases c = load_cases();
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    gpt2embed_pipeline p;
    static const unsigned threads[] = {1, 2, 64, 10000};
    for (size_t i = 0; i < 4; i++) {
        size_t items = 3 * c.n; /* (every text three times: more items than 64 threads' slots) */
        pjob j = {.c = &c, .stop_at = SIZE_MAX, .end_at = SIZE_MAX};
        cr_assert_eq(pj_run(t, &j, items, threads[i], &p, &err), GPT2EMBED_OK, "%s", err.message);
        cr_expect_eq(j.next_hand, items, "%u threads", threads[i]);
        cr_expect_eq(j.wrong, 0, "%u threads: items out of order or not tiktoken's IDs", threads[i]);
        cr_expect_eq(atomic_load(&j.overlapped), 0, "%u threads: take or hand ran twice at once", threads[i]);
        cr_expect_eq(p.n_threads, gpt2embed_threads_for(threads[i], items), "%u threads", threads[i]);
        cr_expect_eq(p.n_slots, p.n_threads > 1 ? 4 * (size_t)p.n_threads : 1);
        cr_expect_lt(j.most_worker, p.n_threads);
    }
    /* no items: nothing taken or handed; the end told by take; a hand that stops the run */
    pjob j = {.c = &c, .stop_at = SIZE_MAX, .end_at = SIZE_MAX};
    cr_expect_eq(pj_run(t, &j, 0, 4, &p, &err), GPT2EMBED_OK);
    cr_expect_eq(j.taken + j.next_hand, 0);
    for (unsigned th = 1; th <= 3; th++) {
        j = (pjob){.c = &c, .stop_at = SIZE_MAX, .end_at = 7};
        cr_expect_eq(pj_run(t, &j, GPT2EMBED_NONE, th, &p, &err), GPT2EMBED_OK);
        cr_expect_eq(j.next_hand, 7, "%u threads: the items before the end, all of them", th);
        cr_expect_eq(j.wrong, 0);
        j = (pjob){.c = &c, .stop_at = 5, .end_at = SIZE_MAX};
        err.index = 0;
        cr_expect_eq(pj_run(t, &j, c.n, th, &p, &err), GPT2EMBED_E_STOPPED);
        cr_expect_eq(err.index, 5);
        cr_expect_eq(j.next_hand, 6, "%u threads: nothing handed on after the stop", th);
    }
    cr_expect_eq(gpt2embed_pipeline_run(t, NULL, 1, 1, &err), GPT2EMBED_E_ARG);
    p = (gpt2embed_pipeline){.take = pj_take};
    cr_expect_eq(gpt2embed_pipeline_run(t, &p, 1, 1, &err), GPT2EMBED_E_ARG);
    gpt2embed_tokenizer_close(t);
    free_cases(&c);
}

/* Callers at once, each a pipeline of 64 threads on one tokenizer: none waits for another. */
typedef struct pcaller {
    gpt2embed_tokenizer *t;
    const cases *c;
    size_t wrong;
} pcaller;

static void *pipe_caller(void *arg)
{
    pcaller *pc = arg;
    for (int round = 0; round < 3; round++) {
        pjob j = {.c = pc->c, .stop_at = SIZE_MAX, .end_at = SIZE_MAX};
        gpt2embed_pipeline p;
        pc->wrong += pj_run(pc->t, &j, 2 * pc->c->n, 64, &p, NULL) != GPT2EMBED_OK || j.wrong ||
                     j.next_hand != 2 * pc->c->n;
    }
    return NULL;
}

Test(api, pipelines_of_many_threads_share_a_tokenizer, .timeout = 240)
{
    cases c = load_cases();
    gpt2embed_tokenizer *t = open_tok();
    pthread_t th[4];
    pcaller pc[4];
    for (int i = 0; i < 4; i++) {
        pc[i] = (pcaller){t, &c, 0};
        cr_assert_eq(pthread_create(&th[i], NULL, pipe_caller, &pc[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        cr_expect_eq(pc[i].wrong, 0, "caller %d", i);
    }
    gpt2embed_tokenizer_close(t);
    free_cases(&c);
}

/* The conformance texts one after another in one buffer, tokenized in one call per batch on
 * a worker: each text's IDs are tiktoken's; a bad text is its own status, not the call's. */
typedef struct many_job {
    const cases *c;
    char *all;
    size_t *ends;
    size_t wrong;
} many_job;

static int mj_take(void *u, size_t k, void *slot)
{
    (void)u, (void)k, (void)slot;
    return 0;
}

static void mj_work(void *u, size_t k, void *slot, gpt2embed_worker *w)
{
    many_job *m = u;
    (void)k, (void)slot;
    const uint32_t *ids;
    size_t n = m->c->n, *counts = malloc(n * sizeof *counts);
    gpt2embed_status *st = malloc(n * sizeof *st);
    if (gpt2embed_worker_tokenize_many(w, m->all, m->ends, n, GPT2EMBED_SPECIAL_TEXT, &ids, counts, st, NULL)) {
        m->wrong++;
    } else {
        for (size_t i = 0, at = 0; i < n; at += counts[i++])
            m->wrong += st[i] != (i == 3 ? GPT2EMBED_E_UTF8 : GPT2EMBED_OK) ||
                        (i != 3 && (counts[i] != m->c->n_ids[i] ||
                                    memcmp(ids + at, m->c->ids[i], counts[i] * sizeof *ids) != 0));
        m->wrong += gpt2embed_worker_tokenize_many(w, m->all, m->ends, n, 0, &ids, counts, NULL, NULL) !=
                    GPT2EMBED_E_UTF8;
    }
    free(counts);
    free(st);
}

Test(api, a_worker_tokenizes_many_texts_in_one_call)
{
    cases c = load_cases();
    gpt2embed_tokenizer *t = open_tok();
    many_job m = {.c = &c, .ends = malloc(c.n * sizeof(size_t))};
    size_t total = 0;
    for (size_t i = 0; i < c.n; i++)
        total += c.len[i] + (i == 3);
    m.all = malloc(total + 1);
    for (size_t i = 0, at = 0; i < c.n; i++) {
        memcpy(m.all + at, c.text[i], c.len[i]);
        at += c.len[i];
        if (i == 3) /* text 3 ends in a lone continuation byte */
            m.all[at++] = '\x80';
        m.ends[i] = at;
    }
    gpt2embed_pipeline p = {.user = &m, .take = mj_take, .work = mj_work};
    cr_assert_eq(gpt2embed_pipeline_run(t, &p, 1, 1, NULL), GPT2EMBED_OK);
    cr_expect_eq(m.wrong, 0);
    free(m.all);
    free(m.ends);
    gpt2embed_tokenizer_close(t);
    free_cases(&c);
}

/* Chunks cut at gpt2embed_text_cuts's places, tokenized alone, give the whole text's IDs;
 * the whole text on threads gives tokenize_ex's IDs and offsets. */
Test(api, cuts_and_a_whole_text_on_threads, .timeout = 120)
{
    cases c = load_cases();
    gpt2embed_tokenizer *t = open_tok();
    gpt2embed_error err;
    size_t total;
    char *all = joined_cases(&c, 2u << 20, &total);
    uint32_t *want;
    size_t *want_off, n_want;
    cr_assert_eq(gpt2embed_tokenize_ex(t, all, total, 0, &want, &want_off, &n_want, &err), 0, "%s", err.message);
    static const size_t chunks[] = {0, 4096, 1};
    for (size_t ci = 0; ci < 3; ci++) {
        size_t *cut, m, got = 0, bad = 0;
        cr_assert_eq(gpt2embed_text_cuts(all, total, chunks[ci], 2, &cut, &m, &err), 0);
        cr_expect_eq(cut[0], 0);
        cr_expect_eq(cut[m], total);
        cr_expect_gt(m, chunks[ci] == 0 ? 20 : 400);
        for (size_t k = 0; k < m; k++) {
            uint32_t *ids;
            size_t n;
            cr_assert_eq(gpt2embed_tokenize_ex(t, all + cut[k], cut[k + 1] - cut[k], 0, &ids, NULL, &n, &err), 0);
            bad += got + n > n_want || memcmp(ids, want + got, n * sizeof *ids) != 0;
            got += n;
            gpt2embed_free(ids);
        }
        cr_expect_eq(got, n_want, "chunks of %zu", chunks[ci]);
        cr_expect_eq(bad, 0, "chunks of %zu", chunks[ci]);
        gpt2embed_free(cut);
    }
    size_t *cut, m;
    cr_expect_eq(gpt2embed_text_cuts("", 0, 0, 1, &cut, &m, &err), 0);
    cr_expect(m == 1 && cut[0] == 0 && cut[1] == 0);
    gpt2embed_free(cut);
    cr_expect_eq(gpt2embed_text_cuts(NULL, 5, 0, 1, &cut, &m, &err), GPT2EMBED_E_ARG);
    for (unsigned th = 1; th <= 3; th++) {
        uint32_t *ids;
        size_t *off, n, rep = 9;
        cr_assert_eq(gpt2embed_tokenize_threads(t, all, total, 0, th, &ids, &off, &n, &rep, &err), 0);
        cr_expect(n == n_want && !memcmp(ids, want, n * sizeof *ids) && !memcmp(off, want_off, (n + 1) * sizeof *off),
                  "%u threads", th);
        cr_expect_eq(rep, 0);
        gpt2embed_free(ids), gpt2embed_free(off);
    }
    uint32_t *ids;
    size_t n, rep;
    cr_expect_eq(gpt2embed_tokenize_threads(t, "a\xff\xfe b", 5, GPT2EMBED_LOSSY, 2, &ids, NULL, &n, &rep, &err), 0);
    cr_expect_eq(rep, 2, "two ill-formed bytes, two U+FFFD (Python's errors=\"replace\")");
    gpt2embed_free(ids);
    gpt2embed_free(want), gpt2embed_free(want_off);
    free(all);
    gpt2embed_tokenizer_close(t);
    free_cases(&c);
}

/* The conformance texts as documents between separators, read as a stream: each document's
 * IDs are tiktoken's for that text; the totals and the literals read as text add up. */
typedef struct docs_sink {
    sink s;
    size_t starts[4096], n_starts;
    uint64_t progress_calls;
} docs_sink;

static int docs_emit(void *u, const uint32_t *ids, size_t n, const size_t *starts, size_t n_starts)
{
    docs_sink *d = u;
    for (size_t i = 0; i < n_starts && d->n_starts < 4096; i++)
        d->starts[d->n_starts++] = d->s.n + starts[i];
    return sink_emit_on(&d->s, ids, n);
}

static void docs_progress(void *u, uint64_t bytes, uint64_t tokens)
{
    (void)bytes, (void)tokens;
    ((docs_sink *)u)->progress_calls++;
}

Test(api, stream_ex_cuts_documents_at_a_separator, .timeout = 120)
{
    cases c = load_cases();
    gpt2embed_tokenizer *t = open_tok();
    static const char SEP[] = "\n\x1e\n";
    size_t total = 0, lits = 0, reps = 40;
    for (size_t i = 0; i < c.n; i++) {
        total += c.len[i] + 3;
        for (const char *q = c.text[i], *e = q + c.len[i]; (q = memmem(q, (size_t)(e - q), "<|endoftext|>", 13)); q += 13)
            lits++;
    }
    char *all = malloc(total * reps), *w = all;
    for (size_t r = 0; r < reps; r++)
        for (size_t i = 0; i < c.n; i++) {
            memcpy(w, c.text[i], c.len[i]);
            w += c.len[i];
            if (r + 1 < reps || i + 1 < c.n)
                memcpy(w, SEP, 3), w += 3;
        }
    size_t len = (size_t)(w - all);
    for (unsigned th = 1; th <= 3; th += 2) {
        feed f = {.s = all, .n = len, .step = th};
        docs_sink d = {0};
        gpt2embed_stream_opts o = {.read = feed_read_on, .read_user = &f, .flags = GPT2EMBED_SPECIAL_TEXT,
                                   .n_threads = th, .separator = SEP, .separator_len = 3, .emit = docs_emit,
                                   .emit_user = &d, .progress = docs_progress, .progress_user = &d};
        gpt2embed_error err;
        cr_assert_eq(gpt2embed_tokenize_stream_ex(t, &o, &err), GPT2EMBED_OK, "%s", err.message);
        cr_expect_eq(o.n_docs, reps * c.n);
        cr_expect_eq(d.n_starts, reps * c.n > 4096 ? 4096 : reps * c.n);
        cr_expect_eq(o.n_bytes, len);
        cr_expect_eq(o.n_tokens, d.s.n);
        cr_expect_eq(o.n_eot_text, reps * lits, "%u threads", th);
        cr_expect_gt(d.progress_calls, 0);
        size_t wrong = 0;
        for (size_t k = 0; k < d.n_starts && (k + 1 < d.n_starts || d.n_starts == o.n_docs); k++) {
            size_t i = k % c.n, end = k + 1 < d.n_starts ? d.starts[k + 1] : d.s.n;
            wrong += end - d.starts[k] != c.n_ids[i] ||
                     memcmp(d.s.ids + d.starts[k], c.ids[i], c.n_ids[i] * sizeof *d.s.ids) != 0;
        }
        cr_expect_eq(wrong, 0, "%u threads: documents that are not tiktoken's IDs of their text", th);
        free(d.s.ids);
    }
    gpt2embed_stream_opts o = {.read = feed_read_on, .emit = docs_emit, .separator_len = 2};
    cr_expect_eq(gpt2embed_tokenize_stream_ex(t, &o, NULL), GPT2EMBED_E_ARG);
    free(all);
    gpt2embed_tokenizer_close(t);
    free_cases(&c);
}

/* ---- principal components, wpe's norms, RoPE ---- */

/* The sum of the column variances (ddof 1) of X (n, d): what the variances must add up to,
 * computed here from the definition. */
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

/* A result checked against its definition: variances summing to the total, unit
 * components, projections the centred rows dotted with the components, shares that run. */
static void check_pca_result(const gpt2embed_pca_result *r, const double *X, size_t n, size_t d)
{
    cr_assert_eq(r->n, n);
    cr_assert_eq(r->d, d);
    double sum = 0, want = total_variance(X, n, d);
    for (size_t i = 0; i < d; i++) {
        sum += r->variance[i];
        cr_expect(i == 0 || r->variance[i] <= r->variance[i - 1], "variances descend");
        cr_expect(fabs(r->cumulative[i] - (i ? r->cumulative[i - 1] : 0) - r->ratio[i]) < 1e-15);
    }
    cr_expect(fabs(sum - want) < 1e-9 * want, "variance %.12g, want %.12g", sum, want);
    cr_expect(fabs(r->total - want) < 1e-9 * want);
    for (size_t j = 0; j < r->k; j++) {
        double nn = 0;
        for (size_t c = 0; c < d; c++)
            nn += r->components[j * d + c] * r->components[j * d + c];
        cr_expect(fabs(nn - 1) < 1e-12, "component %zu is a unit vector", j);
    }
    for (size_t i = 0; i < n; i += 7)
        for (size_t j = 0; j < r->k; j++) {
            double p = 0;
            for (size_t c = 0; c < d; c++) {
                double mean = 0;
                for (size_t q = 0; q < n; q++)
                    mean += X[q * d + c];
                p += (X[i * d + c] - mean / (double)n) * r->components[j * d + c];
            }
            cr_expect(fabs(p - r->proj[i * r->k + j]) < 1e-9, "projection of row %zu on %zu", i, j);
        }
}

static fixture_opts small_fixture(void)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.n_ctx = 40, o.n_embd = 6, o.n_vocab = 64;
    return o;
}

Test(api, pca_of_wpe_wte_rows_and_the_sinusoidal_pe)
{
    fixture_opts o = small_fixture();
    gpt2embed_model *m = open_fixture_door(&o, "api-pca");
    gpt2embed_pca_result *r = NULL;
    gpt2embed_error err;
    gpt2embed_pca_source s = {.of = GPT2EMBED_PCA_WPE, .skip = 1};
    cr_assert_eq(gpt2embed_pca(m, &s, 6, &r, &err), GPT2EMBED_OK, "%s", err.message);
    double X[40 * 6];
    for (size_t p = 1; p < 40; p++)
        for (size_t j = 0; j < 6; j++)
            X[(p - 1) * 6 + j] = fixture_expected(&o, FIXTURE_WPE, p, j);
    check_pca_result(r, X, 39, 6);
    cr_expect(r->row_id[0] == 1 && r->row_id[38] == 39);
    cr_expect_eq(r->n_signal, 6);
    gpt2embed_pca_free(r);
    static const uint32_t ids[] = {5, 9, 2, 63, 17, 30, 44, 8};
    s = (gpt2embed_pca_source){.of = GPT2EMBED_PCA_WTE, .ids = ids, .n_ids = 8, .skip = 3};
    cr_assert_eq(gpt2embed_pca(m, &s, 2, &r, &err), GPT2EMBED_OK, "%s", err.message);
    for (size_t i = 0; i < 8; i++)
        for (size_t j = 0; j < 6; j++)
            X[i * 6 + j] = fixture_expected(&o, FIXTURE_WTE, ids[i], j);
    check_pca_result(r, X, 8, 6);   /* skip is not applied to wte */
    for (size_t i = 0; i < 8; i++)
        cr_expect(r->row_id[i] == ids[i]);
    gpt2embed_pca_free(r);
    enum { N = 50, D = 8 };
    s = (gpt2embed_pca_source){.of = GPT2EMBED_PCA_SINUSOIDAL, .len = N, .dim = D, .base = 100.0, .skip = 2};
    cr_assert_eq(gpt2embed_pca(NULL, &s, D, &r, &err), GPT2EMBED_OK, "%s", err.message);
    double S[(N - 2) * D];
    for (size_t p = 2; p < N; p++)
        for (size_t j = 0; j < D; j++) {
            double w = (double)p / pow(100.0, (double)(j - j % 2) / D);
            S[(p - 2) * D + j] = j % 2 ? cos(w) : sin(w);
        }
    check_pca_result(r, S, N - 2, D);
    gpt2embed_pca_free(r);
    gpt2embed_pca_free(NULL);
    gpt2embed_model_close(m);
}

/* The number array `key` of document d is v[0..n) bit for bit. */
static void expect_f64s(const cJSON *d, const char *key, const double *v, size_t n)
{
    const cJSON *a = cJSON_GetObjectItem(d, key);
    cr_assert_eq((size_t)cJSON_GetArraySize(a), n, "%s", key);
    for (size_t i = 0; i < n; i++)
        cr_expect(cJSON_GetArrayItem(a, (int)i)->valuedouble == v[i], "%s[%zu]", key, i);
}

/* The array `key` of document d is first, first + 1, ... (n of them). */
static void expect_count(const cJSON *d, const char *key, double first, size_t n)
{
    const cJSON *a = cJSON_GetObjectItem(d, key);
    cr_assert_eq((size_t)cJSON_GetArraySize(a), n, "%s", key);
    for (size_t i = 0; i < n; i++)
        cr_expect(cJSON_GetArrayItem(a, (int)i)->valuedouble == first + (double)i, "%s[%zu]", key, i);
}

static double num(const cJSON *d, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(d, key);
    cr_assert(cJSON_IsNumber(v), "%s is a number", key);
    return v->valuedouble;
}

/* A document: parsed, one line ending in its newline. */
static cJSON *parse_doc(const char *json)
{
    cJSON *d = cJSON_Parse(json);
    cr_assert(d, "%s", json);
    cr_expect(json[strlen(json) - 1] == '\n' && !memchr(json, '\n', strlen(json) - 1), "one line");
    return d;
}

Test(api, pca_json_is_the_result_read_back)
{
    fixture_opts o = small_fixture();
    gpt2embed_model *m = open_fixture_door(&o, "api-pca-json");
    gpt2embed_pca_result *r = NULL;
    gpt2embed_error err;
    static const uint32_t ids[] = {5, 9, 2, 63, 17, 30, 44, 8};
    const gpt2embed_pca_source srcs[] = {
        {.of = GPT2EMBED_PCA_WPE, .skip = 1},
        {.of = GPT2EMBED_PCA_WTE, .ids = ids, .n_ids = 8},
        {.of = GPT2EMBED_PCA_SINUSOIDAL, .len = 50, .dim = 8, .base = 100.0, .skip = 2},
    };
    const char *of[] = {"wpe", "wte", "sinusoidal"};
    for (size_t c = 0; c < 3; c++) {
        cr_assert_eq(gpt2embed_pca(c == 2 ? NULL : m, &srcs[c], 2, &r, &err), GPT2EMBED_OK, "%s", err.message);
        char *json = (char *)"unset";
        /* the sinusoidal PE's source is "" with or without a model */
        cr_assert_eq(gpt2embed_pca_json(r, m, &srcs[c], &json, &err), GPT2EMBED_OK, "%s", err.message);
        cJSON *d = parse_doc(json);
        cr_expect_str_eq(cJSON_GetObjectItem(d, "of")->valuestring, of[c]);
        cr_expect_str_eq(cJSON_GetObjectItem(d, "source")->valuestring, c == 2 ? "" : gpt2embed_model_path(m));
        cr_expect(num(d, "rows") == (double)r->n && num(d, "cols") == (double)r->d, "case %zu", c);
        cr_expect(num(d, "total_variance") == r->total && num(d, "floor") == r->floor, "case %zu", c);
        expect_count(d, "component", 1, r->d);
        expect_f64s(d, "variance", r->variance, r->d);
        expect_f64s(d, "ratio", r->ratio, r->d);
        expect_f64s(d, "cumulative", r->cumulative, r->d);
        cr_expect_eq(cJSON_GetArraySize(d), 10, "no other members");
        cJSON_Delete(d);
        gpt2embed_free(json);
        if (c == 2) {
            cr_assert_eq(gpt2embed_pca_json(r, NULL, &srcs[c], &json, &err), GPT2EMBED_OK, "%s", err.message);
            cr_expect(strstr(json, "\"source\": \"\""), "%s", json);
            gpt2embed_free(json);
        } else {
            json = (char *)"unset";
            cr_expect_eq(gpt2embed_pca_json(r, NULL, &srcs[c], &json, &err), GPT2EMBED_E_ARG, "wpe, wte need m");
            cr_expect_null(json);
        }
        gpt2embed_pca_free(r);
    }
    cr_assert_eq(gpt2embed_pca(m, &srcs[0], 1, &r, &err), GPT2EMBED_OK);
    char *json = (char *)"unset";
    gpt2embed_pca_source bad = {.of = 3};
    cr_expect_eq(gpt2embed_pca_json(r, m, &bad, &json, &err), GPT2EMBED_E_ARG);
    cr_expect(strstr(err.message, "not 3"), "%s", err.message);
    cr_expect_null(json);
    bad.of = -1;
    cr_expect_eq(gpt2embed_pca_json(r, m, &bad, &json, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_pca_json(NULL, m, &srcs[0], &json, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_pca_json(r, m, NULL, &json, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_pca_json(r, m, &srcs[0], NULL, &err), GPT2EMBED_E_ARG);
    gpt2embed_pca_result hollow = *r;
    hollow.variance = NULL;
    cr_expect_eq(gpt2embed_pca_json(&hollow, m, &srcs[0], &json, &err), GPT2EMBED_E_ARG);
    gpt2embed_pca_free(r);
    gpt2embed_model_close(m);
}

Test(api, pca_edges)
{
    fixture_opts o = small_fixture();
    gpt2embed_model *m = open_fixture_door(&o, "api-pca-edges");
    gpt2embed_pca_result *r = (gpt2embed_pca_result *)&o;   /* cleared by every failing call */
    gpt2embed_error err;
    /* k past the rank: 3 rows, centred, have 2 components; the others are at the floor */
    static const uint32_t three[] = {1, 2, 3}, bad[] = {4, 64, 5};
    gpt2embed_pca_source s = {.of = GPT2EMBED_PCA_WTE, .ids = three, .n_ids = 3};
    cr_assert_eq(gpt2embed_pca(m, &s, 6, &r, &err), GPT2EMBED_OK, "%s", err.message);
    cr_expect_eq(r->n_signal, 2);
    for (size_t i = 2; i < 6; i++)
        cr_expect(fabs(r->variance[i]) <= r->floor, "variance %zu: %g above %g", i, r->variance[i], r->floor);
    gpt2embed_pca_free(r);
    struct { gpt2embed_pca_source s; size_t k; gpt2embed_status st; const char *msg; } pca_cases[] = {
        {{.of = GPT2EMBED_PCA_WPE}, 7, GPT2EMBED_E_ARG, "7 components asked of 6 columns"},
        {{.of = GPT2EMBED_PCA_WPE, .skip = 40}, 2, GPT2EMBED_E_ARG, "leaves no rows of 40"},
        {{.of = GPT2EMBED_PCA_WPE, .skip = 39}, 2, GPT2EMBED_E_ARG, "at least 2 rows, got 1"},
        {{.of = GPT2EMBED_PCA_WTE, .ids = three, .n_ids = 1}, 1, GPT2EMBED_E_ARG, "at least 2 rows, got 1"},
        {{.of = GPT2EMBED_PCA_WTE, .ids = bad, .n_ids = 3}, 1, GPT2EMBED_E_TOKEN_ID, "token id 64"},
        {{.of = GPT2EMBED_PCA_SINUSOIDAL, .len = 1, .dim = 8, .base = 1e4}, 1, GPT2EMBED_E_ARG, "got 1"},
        {{.of = GPT2EMBED_PCA_SINUSOIDAL, .len = 0, .dim = 8, .base = 1e4}, 1, GPT2EMBED_E_ARG, "0 x 8"},
        {{.of = GPT2EMBED_PCA_SINUSOIDAL, .len = (size_t)1 << 40, .dim = 8, .base = 1e4}, 1, GPT2EMBED_E_ARG, "too large"},
        {{.of = GPT2EMBED_PCA_SINUSOIDAL, .len = 10, .dim = 7, .base = 1e4}, 1, GPT2EMBED_E_ARG, ""},
        {{.of = 3}, 1, GPT2EMBED_E_ARG, "_WPE, _WTE or _SINUSOIDAL, not 3"},
    };
    for (size_t i = 0; i < sizeof pca_cases / sizeof pca_cases[0]; i++) {
        r = (gpt2embed_pca_result *)&o;
        cr_expect_eq(gpt2embed_pca(m, &pca_cases[i].s, pca_cases[i].k, &r, &err), pca_cases[i].st, "case %zu: %s", i, err.message);
        cr_expect(r == NULL, "case %zu leaves nothing behind", i);
        cr_expect(strstr(err.message, pca_cases[i].msg), "case %zu: %s", i, err.message);
    }
    cr_expect_eq(err.status, GPT2EMBED_E_ARG);
    s = (gpt2embed_pca_source){.of = GPT2EMBED_PCA_WTE, .ids = bad, .n_ids = 3};
    cr_expect_eq(gpt2embed_pca(m, &s, 1, &r, &err), GPT2EMBED_E_TOKEN_ID);
    cr_expect_eq(err.index, 1, "the index of the bad ID");
    cr_expect_eq(gpt2embed_pca(NULL, &s, 1, &r, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_pca(m, NULL, 1, &r, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_pca(m, &s, 1, NULL, &err), GPT2EMBED_E_ARG);
    gpt2embed_model_close(m);
}

Test(api, wpe_norms_are_the_row_norms)
{
    fixture_opts o = small_fixture();
    gpt2embed_model *m = open_fixture_door(&o, "api-norms");
    double norms[40];
    gpt2embed_norm_summary s;
    gpt2embed_error err;
    cr_assert_eq(gpt2embed_wpe_norms(m, norms, &s, &err), GPT2EMBED_OK, "%s", err.message);
    for (size_t p = 0; p < 40; p++) {
        double q = 0;
        for (size_t j = 0; j < o.n_embd; j++) {
            double v = fixture_expected(&o, FIXTURE_WPE, p, j);
            q += v * v;
        }
        cr_expect(fabs(norms[p] - sqrt(q)) < 1e-12 * sqrt(q), "row %zu", p);
    }
    cr_expect(s.first == norms[0] && s.n == 40);
    cr_expect_eq(s.split, 40, "the split clamped to n");
    cr_expect_eq(gpt2embed_wpe_norms(m, norms, NULL, &err), GPT2EMBED_OK);
    cr_expect_eq(gpt2embed_wpe_norms(m, NULL, &s, &err), GPT2EMBED_E_ARG);
    /* the document: the same norms and summary, read back bit for bit, and the norms over
     * the median */
    char *json = (char *)"unset";
    cr_assert_eq(gpt2embed_wpe_norms_json(m, &json, &err), GPT2EMBED_OK, "%s", err.message);
    cJSON *d = cJSON_Parse(json);
    cr_assert(d, "%s", json);
    cJSON *nm = cJSON_GetObjectItem(d, "norm"), *vm = cJSON_GetObjectItem(d, "vs_median"),
          *pos = cJSON_GetObjectItem(d, "position");
    cr_assert_eq(cJSON_GetArraySize(nm), 40);
    cr_assert(cJSON_GetArraySize(vm) == 40 && cJSON_GetArraySize(pos) == 40);
    for (int p = 0; p < 40; p++) {
        cr_expect(cJSON_GetArrayItem(nm, p)->valuedouble == norms[p], "norm %d", p);
        cr_expect(cJSON_GetArrayItem(vm, p)->valuedouble == norms[p] / s.median, "vs_median %d", p);
        cr_expect(cJSON_GetArrayItem(pos, p)->valuedouble == p);
    }
    cr_expect(cJSON_GetObjectItem(d, "positions")->valuedouble == 40);
    cr_expect(cJSON_GetObjectItem(d, "split")->valuedouble == 40);
    cr_expect(cJSON_GetObjectItem(d, "median_norm_1_on")->valuedouble == s.median);
    cr_expect(cJSON_GetObjectItem(d, "norm_0_vs_median")->valuedouble == s.first_vs_median);
    cr_expect_str_eq(cJSON_GetObjectItem(d, "weights")->valuestring, gpt2embed_model_path(m));
    cr_expect_eq(json[strlen(json) - 1], '\n');
    cJSON_Delete(d);
    gpt2embed_free(json);
    cr_expect_eq(gpt2embed_wpe_norms_json(m, NULL, &err), GPT2EMBED_E_ARG);
    json = (char *)"unset";
    cr_expect_eq(gpt2embed_wpe_norms_json(NULL, &json, &err), GPT2EMBED_E_ARG);
    cr_expect_null(json);
    gpt2embed_model_close(m);
}

Test(api, rope_calls_and_their_edges)
{
    gpt2embed_error err;
    double x[30], y[30], th, mean[11], expd[11];
    /* pair 5 of width 64 turns by 10000^(-10/64) per position: written here */
    cr_assert_eq(gpt2embed_rope_rotation(64, 1e4, 5, 1, 0, 30, x, y, &th, &err), GPT2EMBED_OK, "%s", err.message);
    double want = pow(1e4, -10.0 / 64);
    cr_expect(fabs(th - want) < 1e-15);
    for (int p = 0; p < 30; p++)
        cr_expect(fabs(x[p] - cos(p * want)) < 1e-13 && fabs(y[p] - sin(p * want)) < 1e-13, "pos %d", p);
    cr_assert_eq(gpt2embed_rope_rotation(64, 1e4, GPT2EMBED_PAIR_DEFAULT, 1, 0, 2, x, y, &th, &err), 0);
    cr_expect(fabs(th - pow(1e4, -16.0 / 64)) < 1e-15, "the default pair is dim/8");
    cr_expect_eq(gpt2embed_rope_rotation(64, 1e4, 32, 1, 0, 2, x, y, &th, &err), GPT2EMBED_E_ARG);
    cr_expect(strstr(err.message, "pair 32 does not exist in width 64 (pairs 0..31)"), "%s", err.message);
    cr_expect_eq(gpt2embed_rope_rotation(63, 1e4, 1, 1, 0, 2, x, y, &th, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_rope_rotation(64, 1e4, 1, 1, 0, 0, x, y, &th, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_rope_rotation(64, 1e4, 1, 1, 0, 2, NULL, y, &th, &err), GPT2EMBED_E_ARG);
    cr_assert_eq(gpt2embed_rope_dot_curve(64, 1e4, 0, 10, 5, 1, mean, expd, &err), GPT2EMBED_OK);
    for (int k = 0; k <= 10; k++) {
        double e = 0;
        for (int i = 0; i < 32; i++)
            e += cos(k * pow(1e4, -2.0 * i / 64));
        cr_expect(fabs(expd[k] - e / 32) < 1e-13, "k %d", k);
    }
    cr_expect(fabs(mean[0] - 1) < 1e-13, "<q, q> of unit vectors");
    cr_expect_eq(gpt2embed_rope_dot_curve(64, 1e4, 5, 4, 5, 1, mean, NULL, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_rope_dot_curve(768, 1e4, 0, 1000000, 1000, 1, mean, NULL, &err), GPT2EMBED_E_TOO_LARGE);
    gpt2embed_rope_check c;
    cr_assert_eq(gpt2embed_rope_check_relative(64, 1e4, 4096, 100, 1, &c, &err), GPT2EMBED_OK);
    cr_expect(c.pairs == 100 && c.relative == (c.max_dev <= c.rounding_bound) && c.relative);
    cr_expect(c.rounding_bound == 16 * 0x1p-52 * 4097.0);
    cr_expect_eq(gpt2embed_rope_check_relative(64, 1e4, 4096, 0, 1, &c, &err), GPT2EMBED_E_ARG);
    cr_expect_eq(gpt2embed_rope_check_relative(64, 1.0, 4096, 1, 1, &c, &err), GPT2EMBED_E_ARG);
    cr_expect_str_eq(gpt2embed_rope_scheme(0, 3), "rotary relative (RoPE)");
    cr_expect_str_eq(gpt2embed_rope_scheme(0, 0), "");
    cr_expect(gpt2embed_rope_scheme(GPT2EMBED_ROPE_SCHEME_ROWS, 0) == NULL && gpt2embed_rope_scheme(0, 4) == NULL);
}

/* gpt2embed_rope_json of p: the parsed document (the caller deletes it). */
static cJSON *rope_doc(const gpt2embed_rope_params *p)
{
    char *json = NULL;
    gpt2embed_error err;
    cr_assert_eq(gpt2embed_rope_json(p, &json, &err), GPT2EMBED_OK, "mode %d: %s", p->mode, err.message);
    cJSON *d = parse_doc(json);
    gpt2embed_free(json);
    cr_expect(num(d, "dim") == (double)p->dim && num(d, "base") == p->base);
    return d;
}

Test(api, rope_json_is_the_numeric_calls_read_back)
{
    gpt2embed_error err;
    gpt2embed_rope_params p = {.dim = 64, .base = 500.0, .max_pos = 1000, .pairs = 200, .seed = 3,
                               .from = 5, .to = 40, .samples = 20, .pair = GPT2EMBED_PAIR_DEFAULT, .len = 30};
    /* no mode: the schemes' English cells, and the slowest pair's wavelength */
    p.mode = GPT2EMBED_ROPE_SCHEMES;
    cJSON *d = rope_doc(&p);
    const cJSON *sc = cJSON_GetObjectItem(d, "schemes");
    static const char *const ROWS[] = {"name", "enters", "parameters", "length_limit", "score_depends_on"};
    cr_assert_eq(cJSON_GetArraySize(sc), 3);
    for (int c = 0; c < 3; c++)
        for (size_t r = 0; r < GPT2EMBED_ROPE_SCHEME_ROWS; r++)
            cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(sc, c), ROWS[r])->valuestring,
                             gpt2embed_rope_scheme(r, (size_t)c + 1));
    double lam = num(d, "longest_wavelength"), th_slow;
    double x[30], y[30];
    cr_assert_eq(gpt2embed_rope_rotation(64, 500.0, 31, 1, 0, 1, x, y, &th_slow, &err), GPT2EMBED_OK);
    cr_expect(fabs(lam - 2 * M_PI / th_slow) < 1e-12 * lam, "2 pi / theta_31: %.17g against %.17g", lam,
              2 * M_PI / th_slow);
    cJSON_Delete(d);
    /* the check: gpt2embed_rope_check_relative's struct, member by member */
    p.mode = GPT2EMBED_ROPE_CHECK_RELATIVE;
    d = rope_doc(&p);
    gpt2embed_rope_check c;
    cr_assert_eq(gpt2embed_rope_check_relative(64, 500.0, 1000, 200, 3, &c, &err), GPT2EMBED_OK);
    cr_expect(num(d, "max_pos") == 1000 && num(d, "pairs") == (double)c.pairs && num(d, "seed") == 3);
    cr_expect(num(d, "max_deviation") == c.max_dev && num(d, "mean_deviation") == c.mean_dev);
    cr_expect(num(d, "at_m") == (double)c.at_m && num(d, "at_n") == (double)c.at_n);
    cr_expect(num(d, "rounding_bound") == c.rounding_bound);
    cr_expect(cJSON_IsBool(cJSON_GetObjectItem(d, "relative")) &&
              cJSON_IsTrue(cJSON_GetObjectItem(d, "relative")) == (c.relative != 0));
    cJSON_Delete(d);
    /* the dot curve: offsets 5..40 */
    p.mode = GPT2EMBED_ROPE_DOT_CURVE;
    d = rope_doc(&p);
    double mean[36], expd[36];
    cr_assert_eq(gpt2embed_rope_dot_curve(64, 500.0, 5, 40, 20, 3, mean, expd, &err), GPT2EMBED_OK);
    cr_expect(num(d, "samples") == 20 && num(d, "seed") == 3);
    expect_count(d, "k", 5, 36);
    expect_f64s(d, "mean_dot", mean, 36);
    expect_f64s(d, "expected", expd, 36);
    cJSON_Delete(d);
    /* the rotation: the default pair is dim/8, and the document names it */
    p.mode = GPT2EMBED_ROPE_ROTATION;
    for (int k = 0; k < 2; k++) {
        d = rope_doc(&p);
        double th;
        cr_assert_eq(gpt2embed_rope_rotation(64, 500.0, k ? 3 : 8, 1, 0, 30, x, y, &th, &err), GPT2EMBED_OK);
        cr_expect(num(d, "pair") == (k ? 3 : 8) && num(d, "theta") == th);
        expect_count(d, "position", 0, 30);
        expect_f64s(d, "x_2i", x, 30);
        expect_f64s(d, "x_2i+1", y, 30);
        cJSON_Delete(d);
        p.pair = 3;
    }
    /* errors: the mode's call's, before anything is allocated; NULL arguments */
    struct { gpt2embed_rope_params p; gpt2embed_status st; const char *msg; } rope_cases[] = {
        {{.mode = 4, .dim = 64, .base = 1e4}, GPT2EMBED_E_ARG, "not 4"},
        {{.mode = -1, .dim = 64, .base = 1e4}, GPT2EMBED_E_ARG, "not -1"},
        {{.mode = GPT2EMBED_ROPE_SCHEMES, .dim = 63, .base = 1e4}, GPT2EMBED_E_ARG, "even"},
        {{.mode = GPT2EMBED_ROPE_SCHEMES, .dim = 64, .base = 1.0}, GPT2EMBED_E_ARG, "base"},
        {{.mode = GPT2EMBED_ROPE_CHECK_RELATIVE, .dim = 64, .base = 1e4, .max_pos = 10}, GPT2EMBED_E_ARG, ""},
        {{.mode = GPT2EMBED_ROPE_DOT_CURVE, .dim = 64, .base = 1e4, .from = 5, .to = 4, .samples = 1},
         GPT2EMBED_E_ARG, "from <= to"},
        {{.mode = GPT2EMBED_ROPE_DOT_CURVE, .dim = 64, .base = 1e4, .to = UINT64_MAX / 2, .samples = 1},
         GPT2EMBED_E_ARG, "2^53"},
        {{.mode = GPT2EMBED_ROPE_DOT_CURVE, .dim = 768, .base = 1e4, .to = 1000000, .samples = 1000},
         GPT2EMBED_E_TOO_LARGE, "2^32 rotations"},
        {{.mode = GPT2EMBED_ROPE_ROTATION, .dim = 64, .base = 1e4, .pair = 32, .len = 2}, GPT2EMBED_E_ARG,
         "pair 32 does not exist"},
        {{.mode = GPT2EMBED_ROPE_ROTATION, .dim = 64, .base = 1e4, .pair = 1, .len = 0}, GPT2EMBED_E_ARG, "1..2^53"},
        {{.mode = GPT2EMBED_ROPE_ROTATION, .dim = 64, .base = 1e4, .pair = 1, .len = SIZE_MAX}, GPT2EMBED_E_ARG,
         "1..2^53"},
    };
    for (size_t i = 0; i < sizeof rope_cases / sizeof rope_cases[0]; i++) {
        char *json = (char *)"unset";
        cr_expect_eq(gpt2embed_rope_json(&rope_cases[i].p, &json, &err), rope_cases[i].st, "case %zu: %s", i,
                     err.message);
        cr_expect_null(json, "case %zu", i);
        cr_expect(strstr(err.message, rope_cases[i].msg), "case %zu: %s", i, err.message);
    }
    char *json = (char *)"unset";
    cr_expect_eq(gpt2embed_rope_json(NULL, &json, &err), GPT2EMBED_E_ARG);
    cr_expect_null(json);
    cr_expect_eq(gpt2embed_rope_json(&p, NULL, &err), GPT2EMBED_E_ARG);
}
