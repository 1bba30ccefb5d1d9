/* test_api.c — the public header src/gpt2embed.h as a library user meets it, and
 * `make install` with pkg-config: an example program built against the installed files. */
#include "../src/gpt2embed.h"
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C 8
static fixture_opts big;
static char *dir, *wpath;

static void setup(void)
{
    memset(&big, 0, sizeof big);
    big.n_vocab = 50257;
    big.n_ctx = 1024;
    big.n_embd = C;
    big.dtype = ST_BF16;
    dir = test_tmpdir("api");
    wpath = path_join(dir, "w.safetensors");
    char e[256];
    cr_assert_eq(fixture_write(wpath, &big, e, sizeof e), 0, "%s", e);
}

TestSuite(api, .init = setup);

Test(api, tokenize_and_embed_exactly)
{
    char err[512];
    gpt2embed_model *m = NULL;
    gpt2embed_tokenizer *tk = NULL;
    cr_assert_eq(gpt2embed_model_open(&m, wpath, NULL, err, sizeof err), 0, "%s", err);
    cr_expect_eq(gpt2embed_n_vocab(m), 50257);
    cr_expect_eq(gpt2embed_n_ctx(m), 1024);
    cr_expect_eq(gpt2embed_n_embd(m), C);
    cr_assert_eq(gpt2embed_tokenizer_open(&tk, NULL, err, sizeof err), 0, "%s", err);
    uint32_t *ids = NULL;
    size_t T = 0;
    const char *text = "The dog chased the cat<|endoftext|>";
    cr_assert_eq(gpt2embed_tokenize(tk, text, strlen(text), &ids, &T, err, sizeof err), 0, "%s", err);
    const uint32_t want[6] = {464, 3290, 26172, 262, 3797, 50256};   /* tiktoken, special allowed */
    cr_assert_eq(T, 6);
    cr_expect(memcmp(ids, want, sizeof want) == 0);
    float x[6 * C];
    cr_assert_eq(gpt2embed_embed(m, ids, T, 1018, x, err, sizeof err), 0, "%s", err);
    for (size_t t = 0; t < T; t++)
        for (size_t c = 0; c < C; c++) {
            float s = fixture_expected(&big, FIXTURE_WTE, want[t], c) + fixture_expected(&big, FIXTURE_WPE, 1018 + t, c);
            cr_expect(memcmp(&x[t * C + c], &s, 4) == 0, "[%zu][%zu]", t, c);
        }
    cr_expect_neq(gpt2embed_embed(m, ids, T, 1019, x, err, sizeof err), 0);
    cr_expect(strstr(err, "1024 rows") != NULL, "%s", err);
    gpt2embed_free(ids);
    cr_expect_neq(gpt2embed_tokenize(tk, "\xC3(", 2, &ids, &T, err, sizeof err), 0);
    cr_expect(strstr(err, "offset 0") != NULL, "%s", err);
    gpt2embed_tokenizer_close(tk);
    gpt2embed_model_close(m);
    gpt2embed_model_close(NULL);
    gpt2embed_tokenizer_close(NULL);
}

Test(api, errors_fill_the_buffer_and_the_out_pointer_is_null)
{
    char err[512] = "";
    gpt2embed_model *m = (gpt2embed_model *)1;
    char *missing = path_join(dir, "missing.safetensors");
    cr_expect_neq(gpt2embed_model_open(&m, missing, NULL, err, sizeof err), 0);
    cr_expect_null(m);
    cr_expect(strstr(err, "missing.safetensors") != NULL, "%s", err);
    cr_expect_neq(gpt2embed_model_open(&m, NULL, "gpt-5", NULL, 0), 0, "NULL err is allowed");
    free(missing);
}

Test(api, make_install_and_pkg_config, .timeout = 300)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "set -e; P='%s/prefix'; make -s -C '%s' install PREFIX=\"$P\" >/dev/null; "
             "test -x \"$P/bin/gpt2-embed\"; test -f \"$P/share/man/man1/gpt2-embed.1\"; "
             "test -f \"$P/share/gpt2-embed/tokenizer/vocab.json\"; test -f \"$P/include/gpt2embed.h\"; "
             "export PKG_CONFIG_PATH=\"$P/lib/pkgconfig\"; "
             "cc -std=c11 '%s/doc/examples/embed.c' $(pkg-config --cflags --libs --static gpt2embed) -o '%s/ex'; "
             "'%s/ex' '%s' 'The dog chased the cat'",
             dir, G2E_SRCDIR, G2E_SRCDIR, dir, dir, wpath);
    run_result r = run_argv((char *[]){"/bin/sh", "-c", cmd, NULL}, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "install/build/run failed: %s", r.err);
    /* "t id x[t][0] x[t][C-1]" per token, compared with the fixture sums */
    const uint32_t ids[5] = {464, 3290, 26172, 262, 3797};
    char *line = strtok(r.out, "\n");
    for (size_t t = 0; t < 5; t++, line = strtok(NULL, "\n")) {
        cr_assert(line);
        unsigned tt, id;
        float a, b;
        cr_assert_eq(sscanf(line, "%u %u %f %f", &tt, &id, &a, &b), 4, "%s", line);
        cr_expect_eq(id, ids[t]);
        float wa = fixture_expected(&big, FIXTURE_WTE, ids[t], 0) + fixture_expected(&big, FIXTURE_WPE, t, 0);
        float wb = fixture_expected(&big, FIXTURE_WTE, ids[t], C - 1) + fixture_expected(&big, FIXTURE_WPE, t, C - 1);
        cr_expect(memcmp(&a, &wa, 4) == 0 && memcmp(&b, &wb, 4) == 0, "row %zu", t);
    }
    run_free(&r);
}
