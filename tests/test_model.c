/* SPDX-License-Identifier: MIT */
/* test_model.c — the GPT-2 view: size naming for every known size (and near misses),
 * with and without the "transformer." prefix, rows read back exactly, and clear errors for
 * missing, inconsistent or out-of-range weights. */
#include "fixture.h"
#include "model.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint32_t bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

static void expect_row(const g2e_model *m, const fixture_opts *o, int which, uint64_t r)
{
    float *got = calloc(m->n_embd, sizeof *got), *want = calloc(m->n_embd, sizeof *want);
    cr_assert(got && want);
    g2e_err e;
    int rc = which == FIXTURE_WTE ? model_wte_row(m, r, got, &e) : model_wpe_row(m, r, got, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
    fixture_expected_row(o, which, r, want);
    for (size_t c = 0; c < m->n_embd; c++)
        if (bits(got[c]) != bits(want[c]))
            cr_assert_fail("%s row %llu col %zu: %a, expected %a", which ? "wpe" : "wte",
                           (unsigned long long)r, c, got[c], want[c]);
    free(got);
    free(want);
}

typedef struct size_case {
    uint64_t n_vocab, n_ctx, n_embd;
    unsigned n_layer;          /* 0: no blocks (full_layout off) */
    st_dtype dtype;
    const char *prefix;
    const char *repo;          /* __metadata__ "repo", or NULL */
    const char *want;          /* expected size name, NULL for none */
} size_case;

static const size_case SIZES[] = {
    {50257, 1024, 768, 0, ST_F32, NULL, NULL, "gpt2"},
    {50257, 1024, 768, 12, ST_F32, NULL, NULL, "gpt2"},
    {50257, 1024, 768, 12, ST_BF16, "transformer.", NULL, "gpt2"},
    {50257, 1024, 768, 6, ST_F32, NULL, NULL, "distilgpt2"},
    {50257, 1024, 768, 6, ST_F16, "transformer.", "openai-community/gpt2", "distilgpt2"},
    {50257, 1024, 768, 0, ST_F32, NULL, "distilbert/distilgpt2", "distilgpt2"},
    {50257, 1024, 768, 0, ST_F16, "transformer.", "openai-community/gpt2", "gpt2"},
    {50257, 1024, 768, 12, ST_F32, NULL, "distilbert/distilgpt2", "gpt2"}, /* blocks decide */
    {50257, 1024, 768, 3, ST_F32, NULL, NULL, NULL},
    {50257, 1024, 1024, 0, ST_F16, NULL, NULL, "gpt2-medium"},
    {50257, 1024, 1024, 24, ST_BF16, NULL, NULL, "gpt2-medium"},
    {50257, 1024, 1024, 2, ST_BF16, NULL, NULL, NULL},
    {50257, 1024, 1280, 0, ST_BF16, "transformer.", NULL, "gpt2-large"},
    {50257, 1024, 1600, 0, ST_BF16, NULL, NULL, "gpt2-xl"},
    {50257, 1024, 1536, 0, ST_BF16, NULL, NULL, NULL},
    {50257, 2048, 768, 0, ST_F16, NULL, NULL, NULL},
    {50000, 1024, 768, 0, ST_F16, NULL, NULL, NULL},
    {64, 16, 8, 0, ST_F32, NULL, NULL, NULL},
};

Test(model, size_names_prefixes_and_rows)
{
    char *dir = test_tmpdir("model-sizes");
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        const size_case *c = &SIZES[i];
        fixture_opts o;
        fixture_tiny(&o);
        o.n_vocab = c->n_vocab;
        o.n_ctx = c->n_ctx;
        o.n_embd = c->n_embd;
        o.dtype = c->dtype;
        o.prefix = c->prefix;
        o.full_layout = c->n_layer > 0;
        o.n_layer = c->n_layer;
        uint64_t wr[] = {0, 1, c->n_vocab - 1}, pr[] = {0, c->n_ctx - 1};
        o.sparse = c->n_vocab > 64;
        o.wte_rows = wr;
        o.n_wte_rows = 3;
        o.wpe_rows = pr;
        o.n_wpe_rows = 2;
        const char *meta[] = {"repo", c->repo, NULL};
        if (c->repo) o.meta = meta;
        char name[32], err[256];
        snprintf(name, sizeof name, "m%zu.safetensors", i);
        char *path = path_join(dir, name);
        cr_assert_eq(fixture_write(path, &o, err, sizeof err), 0, "case %zu: %s", i, err);
        g2e_model *m = NULL;
        g2e_err e;
        cr_assert_eq(model_open(&m, path, &e), 0, "case %zu: %s", i, e.msg);
        cr_expect_eq(m->n_vocab, c->n_vocab, "case %zu", i);
        cr_expect_eq(m->n_ctx, c->n_ctx, "case %zu", i);
        cr_expect_eq(m->n_embd, c->n_embd, "case %zu", i);
        cr_expect_eq(m->n_layer, c->n_layer, "case %zu", i);
        cr_expect_eq(m->prefixed, c->prefix != NULL, "case %zu", i);
        if (c->want)
            cr_expect(m->size_name && strcmp(m->size_name, c->want) == 0,
                      "case %zu: size %s, expected %s", i, m->size_name ? m->size_name : "NULL", c->want);
        else
            cr_expect_null(m->size_name, "case %zu: size %s, expected none", i, m->size_name);
        char wn[64];
        snprintf(wn, sizeof wn, "%swte.weight", c->prefix ? c->prefix : "");
        cr_expect_str_eq(m->wte->name, wn);
        expect_row(m, &o, FIXTURE_WTE, 0);
        expect_row(m, &o, FIXTURE_WTE, c->n_vocab - 1);
        expect_row(m, &o, FIXTURE_WTE, c->n_vocab / 2); /* unwritten in sparse files: zeros */
        expect_row(m, &o, FIXTURE_WPE, 0);
        expect_row(m, &o, FIXTURE_WPE, c->n_ctx - 1);
        model_close(m);
        unlink(path);
        free(path);
    }
    rmdir(dir);
    free(dir);
}

Test(model, the_real_gpt2_layout)
{
    char *dir = test_tmpdir("model-gpt2");
    char *path = path_join(dir, "model.safetensors"), err[256];
    fixture_opts o;
    fixture_gpt2(&o, ST_F32, NULL);
    cr_assert_eq(fixture_write(path, &o, err, sizeof err), 0, "%s", err);
    g2e_model *m = NULL;
    g2e_err e;
    cr_assert_eq(model_open(&m, path, &e), 0, "%s", e.msg);
    cr_expect_str_eq(m->size_name, "gpt2");
    cr_expect_eq(m->n_layer, 12);
    cr_expect_eq(m->prefixed, 0);
    expect_row(m, &o, FIXTURE_WTE, 50256);
    expect_row(m, &o, FIXTURE_WTE, 2);
    expect_row(m, &o, FIXTURE_WPE, 1023);
    expect_row(m, &o, FIXTURE_WPE, 0);
    /* wpe row 0 is the fixture's large outlier row: check it is larger than row 1 */
    float r0[768], r1[768];
    cr_assert_eq(model_wpe_row(m, 0, r0, &e), 0);
    cr_assert_eq(model_wpe_row(m, 1, r1, &e), 0);
    double s0 = 0, s1 = 0;
    for (int i = 0; i < 768; i++) { s0 += (double)r0[i] * r0[i]; s1 += (double)r1[i] * r1[i]; }
    cr_expect_gt(s0, 16 * s1);
    model_close(m);
    model_close(NULL);
    unlink(path);
    rmdir(dir);
    free(path);
    free(dir);
}

/* ------------------------------------------------------------------------------------ */

/* A model over a hand-written header with data_len zero bytes (buffer kept in *buf). */
static int from_header(const char *h, size_t data_len, g2e_model **m, uint8_t **buf, g2e_err *e)
{
    size_t hl = strlen(h), len = 8 + hl + data_len;
    uint8_t *b = calloc(1, len);
    cr_assert(b != NULL);
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)((uint64_t)hl >> (8 * i));
    memcpy(b + 8, h, hl);
    *buf = b;
    st_file *st = NULL;
    int rc = st_parse_buffer(&st, b, len, e);
    cr_assert_eq(rc, 0, "fixture header refused: %s", e->msg);
    return model_from_st(m, st, e);
}

#define T(name, dt, shape, b, end) "\"" name "\":{\"dtype\":\"" dt "\",\"shape\":" shape ",\"data_offsets\":[" #b "," #end "]}"

static const struct {
    const char *what, *hdr;
    size_t data_len;
    int code;
    const char *needle1, *needle2;
} BAD[] = {
    {"empty file", "{}", 0, MODEL_E_NO_WTE, "wte.weight", "0 tensors"},
    {"no wte", "{" T("wpe.weight", "F32", "[2,2]", 0, 16) "}", 16, MODEL_E_NO_WTE, "transformer.wte.weight", NULL},
    {"no wpe", "{" T("wte.weight", "F32", "[2,2]", 0, 16) "}", 16, MODEL_E_NO_WPE, "wpe.weight", NULL},
    {"wte only under another name", "{" T("model.wte.weight", "F32", "[2,2]", 0, 16) "," T("wpe.weight", "F32", "[2,2]", 16, 32) "}", 32, MODEL_E_NO_WTE, NULL, NULL},
    {"wte 1-D", "{" T("wte.weight", "F32", "[4]", 0, 16) "," T("wpe.weight", "F32", "[2,2]", 16, 32) "}", 32, MODEL_E_SHAPE, "'wte.weight'", "1 dimensions"},
    {"wpe 3-D", "{" T("wte.weight", "F32", "[2,2]", 0, 16) "," T("wpe.weight", "F32", "[1,2,2]", 16, 32) "}", 32, MODEL_E_SHAPE, "'wpe.weight'", "3 dimensions"},
    {"widths differ", "{" T("wte.weight", "F32", "[2,2]", 0, 16) "," T("wpe.weight", "F32", "[1,4]", 16, 32) "}", 32, MODEL_E_SHAPE, "[2, 2]", "[1, 4]"},
    {"no rows", "{" T("wte.weight", "F32", "[0,2]", 0, 0) "," T("wpe.weight", "F32", "[2,2]", 0, 16) "}", 16, MODEL_E_SHAPE, "'wte.weight' is empty", "[0, 2]"},
    {"no width", "{" T("wte.weight", "F32", "[2,0]", 0, 0) "," T("wpe.weight", "F32", "[2,0]", 0, 0) "}", 0, MODEL_E_SHAPE, "empty", NULL},
    {"I32 wte", "{" T("wte.weight", "I32", "[2,2]", 0, 16) "," T("wpe.weight", "F32", "[2,2]", 16, 32) "}", 32, MODEL_E_DTYPE, "'wte.weight' is I32", NULL},
    {"F64 wpe", "{" T("wte.weight", "F32", "[2,2]", 0, 16) "," T("wpe.weight", "F64", "[2,2]", 16, 48) "}", 48, MODEL_E_DTYPE, "'wpe.weight' is F64", NULL},
    {"both wte names", "{" T("wte.weight", "F32", "[2,2]", 0, 16) "," T("transformer.wte.weight", "F32", "[2,2]", 16, 32) "," T("wpe.weight", "F32", "[2,2]", 32, 48) "}", 48, MODEL_E_AMBIGUOUS, "'wte.weight'", "'transformer.wte.weight'"},
    {"mixed prefixes", "{" T("transformer.wte.weight", "F32", "[2,2]", 0, 16) "," T("wpe.weight", "F32", "[2,2]", 16, 32) "}", 32, MODEL_E_AMBIGUOUS, "prefix", NULL},
};

Test(model, missing_and_inconsistent_tensors)
{
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        g2e_model *m = (g2e_model *)1;
        uint8_t *buf = NULL;
        g2e_err e;
        g2e_clear(&e);
        int rc = from_header(BAD[i].hdr, BAD[i].data_len, &m, &buf, &e);
        cr_expect_eq(rc, BAD[i].code, "%s: status %d, expected %d (%s)", BAD[i].what, rc,
                     BAD[i].code, e.msg);
        cr_expect_null(m, "%s", BAD[i].what);
        if (BAD[i].needle1)
            cr_expect(strstr(e.msg, BAD[i].needle1) != NULL, "%s: '%s' not in '%s'", BAD[i].what,
                      BAD[i].needle1, e.msg);
        if (BAD[i].needle2)
            cr_expect(strstr(e.msg, BAD[i].needle2) != NULL, "%s: '%s' not in '%s'", BAD[i].what,
                      BAD[i].needle2, e.msg);
        free(buf);
    }
}

Test(model, rows_out_of_range)
{
    g2e_model *m = NULL;
    uint8_t *buf = NULL;
    g2e_err e;
    int rc = from_header("{" T("wte.weight", "BF16", "[3,2]", 0, 12) "," T("wpe.weight", "BF16", "[2,2]", 12, 20) "}",
                         20, &m, &buf, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
    cr_expect_null(m->size_name);
    float out[2] = {42, 42};
    cr_expect_eq(model_wte_row(m, 2, out, &e), 0);
    cr_expect(out[0] == 0 && out[1] == 0);
    out[0] = 42;
    cr_expect_eq(model_wte_row(m, 3, out, &e), MODEL_E_RANGE);
    cr_expect(strstr(e.msg, "token id 3") && strstr(e.msg, "n_vocab 3"), "%s", e.msg);
    cr_expect_eq(out[0], 42, "out written on error");
    cr_expect_eq(model_wte_row(m, UINT64_MAX, out, &e), MODEL_E_RANGE);
    cr_expect(strstr(e.msg, "18446744073709551615") != NULL, "%s", e.msg);
    cr_expect_eq(model_wpe_row(m, 1, out, &e), 0);
    cr_expect_eq(model_wpe_row(m, 2, out, &e), MODEL_E_RANGE);
    cr_expect(strstr(e.msg, "position 2") && strstr(e.msg, "n_ctx 2"), "%s", e.msg);
    cr_expect_eq(model_wpe_row(NULL, 0, out, &e), G2E_EINVAL);
    cr_expect_eq(model_wte_row(m, 0, NULL, &e), G2E_EINVAL);
    model_close(m);
    free(buf);
}

Test(model, header_only_model_has_shapes_but_no_rows)
{
    const char *h = "{" T("transformer.wte.weight", "F16", "[50257,768]", 0, 77194752) ","
                    T("transformer.wpe.weight", "F16", "[1024,768]", 77194752, 78767616) "}";
    st_file *st = NULL;
    g2e_err e;
    cr_assert_eq(st_parse_header(&st, (const uint8_t *)h, strlen(h), 78767616, &e), 0, "%s", e.msg);
    g2e_model *m = NULL;
    cr_assert_eq(model_from_st(&m, st, &e), 0, "%s", e.msg);
    cr_expect_str_eq(m->size_name, "gpt2");
    cr_expect_eq(m->prefixed, 1);
    float out[768];
    cr_expect_eq(model_wte_row(m, 0, out, &e), G2E_EINVAL);
    model_close(m);
}

Test(model, open_errors_name_the_path)
{
    char *dir = test_tmpdir("model-open");
    char *missing = path_join(dir, "none.safetensors");
    g2e_model *m = (g2e_model *)1;
    g2e_err e;
    cr_expect_eq(model_open(&m, missing, &e), ST_E_OPEN);
    cr_expect_null(m);
    cr_expect(strstr(e.msg, missing) != NULL, "%s", e.msg);
    char *nowte = path_join(dir, "nowte.safetensors");
    const char *h = "{" T("wpe.weight", "F32", "[1,1]", 0, 4) "}";
    char buf[256];
    size_t hl = strlen(h);
    for (int i = 0; i < 8; i++) buf[i] = (char)((uint64_t)hl >> (8 * i));
    memcpy(buf + 8, h, hl);
    memset(buf + 8 + hl, 0, 4);
    write_file(nowte, buf, 8 + hl + 4);
    cr_expect_eq(model_open(&m, nowte, &e), MODEL_E_NO_WTE);
    cr_expect(strstr(e.msg, nowte) != NULL && strstr(e.msg, "wte.weight"), "%s", e.msg);
    cr_expect_eq(model_open(NULL, nowte, &e), G2E_EINVAL);
    cr_expect_eq(model_from_st(&m, NULL, &e), G2E_EINVAL);
    free(nowte);
    free(missing);
    free(dir);
}
