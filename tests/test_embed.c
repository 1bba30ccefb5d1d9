/* test_embed.c — lookup-and-add against sums computed here from the fixture's own values
 * (fixture_expected, which never goes through the library), compared bit for bit. */
#include "embed.h"
#include "fixture.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
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
