/* SPDX-License-Identifier: MIT */
/* test_embed.c — lookup-and-add against sums computed here from the fixture's own values
 * (fixture_expected, which never goes through the library), compared bit for bit. */
#include "embed.h"
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every row of sum/tok/pos equals the fixture's values, bit for bit. */
static void check_rows(const fixture_opts *o, const uint32_t *ids, size_t T, size_t start,
                       const float *sum, const float *tok, const float *pos)
{
    size_t C = o->n_embd;
    for (size_t t = 0; t < T; t++)
        for (size_t c = 0; c < C; c++) {
            float a = fixture_expected(o, FIXTURE_WTE, ids[t], c);
            float b = fixture_expected(o, FIXTURE_WPE, start + t, c);
            float want = a + b;
            cr_assert(memcmp(&sum[t * C + c], &want, 4) == 0, "sum[%zu][%zu] = %.9g, want %.9g", t, c,
                      sum[t * C + c], want);
            if (tok) cr_assert(memcmp(&tok[t * C + c], &a, 4) == 0, "tok[%zu][%zu]", t, c);
            if (pos) cr_assert(memcmp(&pos[t * C + c], &b, 4) == 0, "pos[%zu][%zu]", t, c);
        }
}

static void exact_for(st_dtype dt, const char *prefix)
{
    fixture_opts o;
    fixture_tiny(&o);
    o.dtype = dt;
    o.prefix = prefix;
    g2e_model *m = open_fixture_model(&o, "embed");
    uint32_t ids[5] = {5, 63, 0, 5, 17};
    float sum[5 * 8], tok[5 * 8], pos[5 * 8];
    g2e_err e;
    cr_assert_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 5, 0, sum, tok, pos, &e), 0, "%s", e.msg);
    check_rows(&o, ids, 5, 0, sum, tok, pos);
    cr_assert_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 5, 11, sum, NULL, NULL, &e), 0, "%s", e.msg);
    check_rows(&o, ids, 5, 11, sum, NULL, NULL);
    model_close(m);
}

Test(embed, exact_f32) { exact_for(ST_F32, NULL); }
Test(embed, exact_f16_upcast) { exact_for(ST_F16, NULL); }
Test(embed, exact_bf16_upcast_prefixed) { exact_for(ST_BF16, "transformer."); }

Test(embed, context_edges)
{
    fixture_opts o;
    fixture_tiny(&o);   /* n_ctx 16 */
    g2e_model *m = open_fixture_model(&o, "ctx");
    uint32_t ids[17] = {0};
    float sum[17 * 8];
    g2e_err e;
    cr_expect_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 16, 0, sum, NULL, NULL, &e), 0);
    cr_expect_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 17, 0, sum, NULL, NULL, &e), EMBED_E_CONTEXT);
    cr_expect(strstr(e.msg, "17 tokens") && strstr(e.msg, "only 16 rows"), "%s", e.msg);
    cr_expect_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 1, 15, sum, NULL, NULL, &e), 0);
    cr_expect_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 1, 16, sum, NULL, NULL, &e), EMBED_E_CONTEXT);
    cr_expect_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 2, 15, sum, NULL, NULL, &e), EMBED_E_CONTEXT);
    cr_expect_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 0, 16, sum, NULL, NULL, &e), 0);
    cr_expect_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 1, SIZE_MAX, sum, NULL, NULL, &e), EMBED_E_CONTEXT);
    model_close(m);
}

Test(embed, bad_ids_are_named)
{
    fixture_opts o;
    fixture_tiny(&o);   /* n_vocab 64 */
    g2e_model *m = open_fixture_model(&o, "ids");
    uint32_t ids[3] = {1, 64, 2};
    float sum[3 * 8];
    g2e_err e;
    cr_expect_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 3, 0, sum, NULL, NULL, &e), EMBED_E_ID);
    cr_expect(strstr(e.msg, "64") && strstr(e.msg, "index 1"), "%s", e.msg);
    ids[1] = UINT32_MAX;
    cr_expect_eq(embed_rows(m, EMBED_PE_SINUSOIDAL, ids, 3, 0, sum, NULL, NULL, &e), EMBED_E_ID);
    model_close(m);
}

Test(embed, sinusoidal_positions_have_no_limit)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "sin");
    uint32_t ids[40];
    for (int i = 0; i < 40; i++) ids[i] = (uint32_t)i;
    float sum[40 * 8], pos[40 * 8];
    g2e_err e;
    cr_assert_eq(embed_rows(m, EMBED_PE_SINUSOIDAL, ids, 40, 1000, sum, NULL, pos, &e), 0, "%s", e.msg);
    for (size_t t = 0; t < 40; t++)
        for (size_t i = 0; i < 8; i += 2) {
            double a = (double)(1000 + t) / pow(10000.0, (double)i / 8.0);
            cr_expect(fabs(pos[t * 8 + i] - sin(a)) < 1e-6, "t=%zu i=%zu", t, i);
            cr_expect(fabs(pos[t * 8 + i + 1] - cos(a)) < 1e-6, "t=%zu i=%zu", t, i);
            float want = fixture_expected(&o, FIXTURE_WTE, ids[t], i) + pos[t * 8 + i];
            cr_expect(memcmp(&sum[t * 8 + i], &want, 4) == 0);
        }
    model_close(m);
}

Test(embed, full_shape_file_at_the_1024_boundary)
{
    fixture_opts o;
    fixture_gpt2(&o, ST_F32, NULL);   /* rows written: wte {0,1,2,50256}, wpe {0,1,1023} */
    g2e_model *m = open_fixture_model(&o, "full");
    cr_assert_eq(m->n_ctx, 1024);
    uint32_t *ids = calloc(1025, sizeof *ids);
    float *sum = malloc(1025 * 768 * sizeof *sum);
    cr_assert(ids && sum);
    for (size_t t = 0; t < 1025; t++)
        ids[t] = (uint32_t[]){0, 1, 2, 50256}[t % 4];
    g2e_err e;
    cr_assert_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 1024, 0, sum, NULL, NULL, &e), 0, "%s", e.msg);
    check_rows(&o, ids, 1024, 0, sum, NULL, NULL);
    cr_expect_eq(embed_rows(m, EMBED_PE_LEARNED, ids, 1025, 0, sum, NULL, NULL, &e), EMBED_E_CONTEXT);
    cr_expect(strstr(e.msg, "1025 tokens") && strstr(e.msg, "1024 rows"), "%s", e.msg);
    cr_assert_eq(embed_rows(m, EMBED_PE_LEARNED, ids + 3, 2, 1022, sum, NULL, NULL, &e), 0);
    check_rows(&o, ids + 3, 2, 1022, sum, NULL, NULL);
    free(ids);
    free(sum);
    model_close(m);
}

Test(embed, window_counts)
{
    size_t n;
    g2e_err e;
    cr_expect_eq(embed_windows(0, 4, 4, &n, &e), 0); cr_expect_eq(n, 0);
    cr_expect_eq(embed_windows(4, 4, 4, &n, &e), 0); cr_expect_eq(n, 1);
    cr_expect_eq(embed_windows(5, 4, 4, &n, &e), 0); cr_expect_eq(n, 2);
    cr_expect_eq(embed_windows(8, 4, 4, &n, &e), 0); cr_expect_eq(n, 2);
    cr_expect_eq(embed_windows(9, 4, 2, &n, &e), 0); cr_expect_eq(n, 4);  /* 0-4 2-6 4-8 6-9 */
    cr_expect_eq(embed_windows(2049, 1024, 1024, &n, &e), 0); cr_expect_eq(n, 3);
    cr_expect_eq(embed_windows(9, 4, 5, &n, &e), EMBED_E_WINDOW);
    cr_expect_eq(embed_windows(9, 0, 0, &n, &e), EMBED_E_WINDOW);
    size_t pad;
    cr_expect_eq(embed_window_padding(9, 4, 2, &pad, &e), 0); cr_expect_eq(pad, 1);   /* 6-9 */
    cr_expect_eq(embed_window_padding(8, 4, 4, &pad, &e), 0); cr_expect_eq(pad, 0);
    cr_expect_eq(embed_window_padding(3, 1024, 1024, &pad, &e), 0); cr_expect_eq(pad, 1021);
    cr_expect_eq(embed_window_padding(0, 1024, 1024, &pad, &e), 0); cr_expect_eq(pad, 0);
    cr_expect_eq(embed_window_padding(1, EMBED_MAX_PADDING + 1, 1, &pad, &e), 0);
    cr_expect_eq(pad, EMBED_MAX_PADDING);
    cr_expect_eq(embed_window_padding(1, EMBED_MAX_PADDING + 2, 1, &pad, &e), EMBED_E_WINDOW);
    cr_expect(strstr(e.msg, "1048577 rows of zero padding") != NULL, "%s", e.msg);
    cr_expect_eq(embed_window_padding(2, ((size_t)1 << 53) - 1, 1, &pad, &e), EMBED_E_WINDOW);
}

/* ---- a scaled sinusoidal encoding against numpy ----
 * The reference builds the double table PE(pos, ·) with Python's math module (the C
 * library's pow, sin and cos: numpy's own np.sin is a SIMD routine that differs from them in
 * the last bit for about half of the values, measured on this machine, so an np.sin table
 * would test which sine is used, not the scaling), then takes np.float32(pe64 * s): the one
 * multiplication in double and the one rounding that embed.h promises. Printed as the bits of
 * each float32 (%08x), one per line, for every scale, position and component in that order. */
static uint32_t *numpy_scaled_pe(size_t dim, size_t start, size_t T, const double *s, size_t ns)
{
    char a[4][64], sc[512] = "";
    snprintf(a[0], sizeof a[0], "%zu", dim);
    snprintf(a[1], sizeof a[1], "%zu", start);
    snprintf(a[2], sizeof a[2], "%zu", T);
    for (size_t k = 0; k < ns; k++)
        snprintf(sc + strlen(sc), sizeof sc - strlen(sc), "%s%.17g", k ? "," : "", s[k]);
    const char *script =
        "import math, sys, numpy as np\n"
        "d, start, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])\n"
        "pe = np.empty((n, d), dtype=np.float64)\n"
        "for t in range(n):\n"
        "    for i in range(d // 2):\n"
        "        a = float(start + t) / math.pow(10000.0, float(2 * i) / float(d))\n"
        "        pe[t, 2 * i], pe[t, 2 * i + 1] = math.sin(a), math.cos(a)\n"
        "for s in sys.argv[4].split(','):\n"
        "    out = np.float32(pe * np.float64(float(s)))\n"
        "    print('\\n'.join('%08x' % v for v in out.view(np.uint32).ravel()))\n";
    char *argv[] = {"/usr/bin/python3", "-c", (char *)script, a[0], a[1], a[2], sc, NULL};
    run_result r = run_argv(argv, NULL, 0, NULL, NULL);
    cr_assert_eq(r.status, 0, "python: %s", r.err);
    size_t n = ns * T * dim;
    uint32_t *v = malloc(n * sizeof *v);
    char *p = r.out;
    for (size_t k = 0; k < n; k++) {
        char *end;
        v[k] = (uint32_t)strtoul(p, &end, 16);
        cr_assert(end != p, "numpy output ended after %zu values", k);
        p = end;
    }
    run_free(&r);
    return v;
}

static void scaled_against_numpy(fixture_opts *o, size_t start, size_t T)
{
    g2e_model *m = open_fixture_model(o, "scale");
    size_t C = o->n_embd;
    /* exact and inexact factors (1/3, 0.1 are not binary fractions; 3.3899 like a mean norm
     * ratio), one that only moves the exponent (0.25), and 1 (must be the unscaled rows) */
    const double s[] = {0.25, 1.0 / 3.0, 0.1, 3.3899003573, 5.0, 1.0};
    size_t ns = sizeof s / sizeof *s;
    uint32_t *ref = numpy_scaled_pe(C, start, T, s, ns);
    float *sum = malloc(C * sizeof *sum), *tok = malloc(C * sizeof *tok), *pos = malloc(C * sizeof *pos);
    embed_ctx c;
    g2e_err e;
    cr_assert_eq(embed_init(&c, m, EMBED_PE_SINUSOIDAL, &e), 0, "%s", e.msg);
    cr_expect_eq(c.pe_scale, 1.0, "embed_init leaves the encoding unscaled");
    size_t bad = 0;
    for (size_t k = 0; k < ns; k++) {
        cr_assert_eq(embed_set_pe_scale(&c, s[k], &e), 0, "%s", e.msg);
        for (size_t t = 0; t < T; t++) {
            uint32_t id = (uint32_t)((t * 7) % o->n_vocab);
            cr_assert_eq(embed_row(&c, id, start + t, sum, tok, pos, &e), 0, "%s", e.msg);
            for (size_t j = 0; j < C; j++) {
                uint32_t got, want = ref[(k * T + t) * C + j];
                memcpy(&got, &pos[j], 4);
                float w;
                memcpy(&w, &want, 4);
                float wsum = fixture_expected(o, FIXTURE_WTE, id, j) + w;
                if (got != want || memcmp(&sum[j], &wsum, 4) != 0) {
                    if (bad++ < 5)
                        cr_expect(0, "scale %.17g pos %zu [%zu]: %08x, numpy %08x", s[k], start + t,
                                  j, got, want);
                }
            }
        }
    }
    cr_expect_eq(bad, 0, "%zu values differ from numpy", bad);
    /* s = 1 is the unscaled path: the same bits as sin_row_f32 */
    float *plain = malloc(C * sizeof *plain);
    cr_assert_eq(sin_row_f32(start, C, SIN_DEFAULT_BASE, plain, &e), 0);
    cr_assert_eq(embed_set_pe_scale(&c, 1.0, &e), 0);
    cr_assert_eq(embed_row(&c, 0, start, sum, NULL, pos, &e), 0);
    cr_expect(memcmp(plain, pos, C * sizeof *pos) == 0);
    embed_free(&c);
    free(plain), free(sum), free(tok), free(pos), free(ref);
    model_close(m);
}

Test(embed, scaled_sinusoid_matches_numpy_bit_for_bit)
{
    fixture_opts o;
    fixture_tiny(&o);                 /* n_embd 8 */
    scaled_against_numpy(&o, 0, 16);
    o.n_vocab = 40;
    o.n_ctx = 4;
    o.n_embd = 768;                   /* GPT-2's width: 384 different wavelengths */
    scaled_against_numpy(&o, 1000, 12);
}

Test(embed, pe_scale_is_checked)
{
    fixture_opts o;
    fixture_tiny(&o);
    g2e_model *m = open_fixture_model(&o, "scalechk");
    embed_ctx c;
    g2e_err e;
    cr_assert_eq(embed_init(&c, m, EMBED_PE_LEARNED, &e), 0);
    cr_expect_eq(embed_set_pe_scale(&c, 0.5, &e), EMBED_E_SCALE, "learned positions are not scaled");
    cr_expect(strstr(e.msg, "sinusoidal"), "%s", e.msg);
    cr_expect_eq(c.pe_scale, 1.0);
    embed_free(&c);
    cr_assert_eq(embed_init(&c, m, EMBED_PE_SINUSOIDAL, &e), 0);
    const double bad[] = {0.0, -1.0, NAN, INFINITY, EMBED_MAX_PE_SCALE * 2};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        cr_expect_eq(embed_set_pe_scale(&c, bad[k], &e), EMBED_E_SCALE, "scale %g", bad[k]);
        cr_expect_eq(c.pe_scale, 1.0, "left unchanged after %g", bad[k]);
    }
    cr_expect_eq(embed_set_pe_scale(&c, EMBED_MAX_PE_SCALE, &e), 0);
    embed_free(&c);
    model_close(m);
}
