/* SPDX-License-Identifier: MIT */
/* test_figures_learned.c — the figures and numbers made from GPT-2's weights: `plot wpe`,
 * `plot cosine`, `plot by-distance` and `sinusoidal --compare-learned`.
 *
 * The weights are fixtures (tests/fixture.h); every expected number is computed here from
 * fixture_expected with naive double loops (one accumulator, textbook cosine), and every
 * expected colour from the rdbu stops render.h documents (re-implemented here). PNGs are decoded
 * back with cairo and stay in build/tmp/figl-* to be looked at.
 */
#include "figures.h"
#include "fixture.h"
#include "model.h"
#include "pngcheck.h"
#include "render.h"
#include "support.h"

#include <cairo/cairo.h>
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int same(const int got[3], const double want[3])
{
    for (int c = 0; c < 3; c++)
        if (fabs(got[c] - want[c]) > 1.0)
            return 0;
    return 1;
}

static int expect_px(const png *p, int x, int y, const double want[3], const char *what)
{
    int got[3];
    pngcheck_px(p, x, y, got);
    int ok = same(got, want);
    cr_expect(ok, "%s at (%d, %d): got #%02x%02x%02x, want #%02x%02x%02x", what, x, y, got[0],
              got[1], got[2], (int)lround(want[0]), (int)lround(want[1]), (int)lround(want[2]));
    return ok;
}

static int count_colour(const png *p, const double want[3])
{
    int n = 0;
    for (int y = 0; y < p->h; y++)
        for (int x = 0; x < p->w; x++) {
            int g[3];
            pngcheck_px(p, x, y, g);
            n += same(g, want);
        }
    return n;
}

/* The recipes of fig.h written to path as the commands write them (figures.h's fig_write:
 * -1 with the message printed when the recipe fails). */
static int wpe_cosine(const gpt2embed_model *m, render_cmap cmap, const char *path)
{
    render_png p;
    g2e_err e;
    return fig_write(fig_wpe_cosine_png(m, cmap, 0, 0, &p, &e), &p, &e, path);
}

static int wpe_heatmap(const gpt2embed_model *m, double pct, render_cmap cmap, const char *path, double *q)
{
    render_png p;
    g2e_err e;
    return fig_write(fig_wpe_heatmap_png(m, pct, cmap, 0, 0, q, NULL, &p, &e), &p, &e, path);
}

static int wpe_by_distance(const gpt2embed_model *m, size_t len, size_t max_d, const char *path)
{
    render_png p;
    g2e_err e;
    return fig_write(fig_wpe_by_distance_png(m, len, max_d, 10000.0, 0, 0, &p, &e), &p, &e, path);
}

/* ---- fixtures and naive references ---- */

/* Every row written, F32, n_vocab 32: n_ctx x n_embd as given. */
static void opts(fixture_opts *o, uint64_t n_ctx, uint64_t n_embd)
{
    fixture_tiny(o);
    o->n_vocab = 32;
    o->n_ctx = n_ctx;
    o->n_embd = n_embd;
}

static char *write_fixture(const fixture_opts *o, const char *dir, const char *name)
{
    char *path = path_join(dir, name);
    char e[256];
    cr_assert_eq(fixture_write(path, o, e, sizeof e), 0, "%s", e);
    return path;
}

static gpt2embed_model *open_path(const char *path)
{
    gpt2embed_model *m = NULL;
    gpt2embed_error err;
    cr_assert_eq(gpt2embed_model_open(&m, path, NULL, &err), 0, "%s", err.message);
    return m;
}

static double naive_wpe_cos(const fixture_opts *o, uint64_t a, uint64_t b)
{
    double d = 0, na = 0, nb = 0;
    for (uint64_t j = 0; j < o->n_embd; j++) {
        double x = fixture_expected(o, FIXTURE_WPE, a, j), y = fixture_expected(o, FIXTURE_WPE, b, j);
        d += x * y;
        na += x * x;
        nb += y * y;
    }
    return d / (sqrt(na) * sqrt(nb));
}

/* mean over p < len-d of cos(wpe[p], wpe[p+d]) */
static double naive_learned(const fixture_opts *o, size_t len, size_t d)
{
    double s = 0;
    for (size_t p = 0; p + d < len; p++)
        s += naive_wpe_cos(o, p, p + d);
    return s / (double)(len - d);
}

/* the same for the sinusoidal PE of width D, from the formula written out here */
static double naive_sinusoidal(size_t len, size_t D, double base, size_t d)
{
    double s = 0;
    for (size_t p = 0; p + d < len; p++) {
        double dot = 0, na = 0, nb = 0;
        for (size_t j = 0; j < D; j++) {
            double w = pow(base, -(double)(j - j % 2) / (double)D);
            double x = j % 2 ? cos((double)p * w) : sin((double)p * w);
            double y = j % 2 ? cos((double)(p + d) * w) : sin((double)(p + d) * w);
            dot += x * y, na += x * x, nb += y * y;
        }
        s += dot / (sqrt(na) * sqrt(nb));
    }
    return s / (double)(len - d);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- the cosine matrix ---- */

Test(figures_learned, cosine_matrix_cells_diagonal_and_bar)
{
    enum { C = 64, E = 16 };
    char *dir = test_tmpdir("figl-cos");
    fixture_opts o;
    opts(&o, C, E);
    char *w = write_fixture(&o, dir, "m.safetensors");
    gpt2embed_model *m = open_path(w);
    char *path = path_join(dir, "cosine.png");
    cr_assert_eq(wpe_cosine(m, RENDER_CMAP_RDBU, path), 0);
    png p = pngcheck_load(path);
    float dummy = 0;
    render_heatmap h = {.z = &dummy, .nx = C, .ny = C, .vmin = -1, .vmax = 1, .width = p.w,
                      .height = p.h};
    render_layout L;
    cr_assert_eq(render_heatmap_layout(&h, &L, NULL), 0);
    cr_expect_eq(p.h, 600, "the default height");
    cr_expect_eq(L.area_w, L.area_h, "square cells for a square matrix");
    double cw = (double)L.area_w / C, ch = (double)L.area_h / C;
    double plus1[3], minus1[3];
    pngcheck_colour(1, -1, 1, plus1);
    pngcheck_colour(-1, -1, 1, minus1);
    /* the diagonal, from the top left down: the colour of +1 */
    int bad = 0;
    for (int i = 0; i < C; i++)
        bad += !expect_px(&p, L.area_x + (int)((i + 0.5) * cw), L.area_y + (int)((i + 0.5) * ch),
                          plus1, "diagonal");
    cr_expect_eq(bad, 0);
    /* every cell: row i (from the top), column j, the colour of the naive cosine */
    bad = 0;
    for (int i = 0; i < C && bad < 5; i += 3)
        for (int j = 0; j < C && bad < 5; j += 5) {
            double want[3];
            pngcheck_colour(naive_wpe_cos(&o, (uint64_t)i, (uint64_t)j), -1, 1, want);
            bad += !expect_px(&p, L.area_x + (int)((j + 0.5) * cw),
                              L.area_y + (int)((i + 0.5) * ch), want, "cosine cell");
        }
    /* colour bar fixed to [-1, 1] */
    expect_px(&p, L.bar_x + L.bar_w / 2, L.bar_y, plus1, "bar top");
    expect_px(&p, L.bar_x + L.bar_w / 2, L.bar_y + L.bar_h - 1, minus1, "bar bottom");
    cairo_surface_destroy(p.s);
    gpt2embed_model_close(m);
    free(path), free(w), free(dir);
}

/* ---- the wpe heatmap ---- */

Test(figures_learned, wpe_heatmap_range_is_the_percentile_and_cells_match)
{
    enum { C = 40, E = 24 };
    char *dir = test_tmpdir("figl-wpe");
    fixture_opts o;
    opts(&o, C, E);
    char *w = write_fixture(&o, dir, "m.safetensors");
    gpt2embed_model *m = open_path(w);
    /* the percentile by nearest rank over |x|, computed here */
    double *a = malloc(C * E * sizeof *a);
    for (int pos = 0; pos < C; pos++)
        for (int d = 0; d < E; d++)
            a[pos * E + d] = fabs(fixture_expected(&o, FIXTURE_WPE, (uint64_t)pos, (uint64_t)d));
    qsort(a, C * E, sizeof *a, cmp_double);
    double pct[3] = {99.0, 50.0, 100.0};
    for (int k = 0; k < 3; k++) {
        size_t rank = (size_t)ceil(pct[k] / 100.0 * C * E);
        double q_want = a[rank - 1];
        char name[32];
        snprintf(name, sizeof name, "wpe-p%g.png", pct[k]);
        char *path = path_join(dir, name);
        double q = 0;
        cr_assert_eq(wpe_heatmap(m, pct[k], RENDER_CMAP_RDBU, path, &q), 0);
        cr_expect_eq(q, q_want, "p%g: %.9g vs %.9g", pct[k], q, q_want);
        png p = pngcheck_load(path);
        float dummy = 0;
        render_heatmap h = {.z = &dummy, .nx = C, .ny = E, .vmin = -1, .vmax = 1};
        render_layout L;
        cr_assert_eq(render_heatmap_layout(&h, &L, NULL), 0);
        cr_expect(p.w == L.width && p.h == L.height);
        double cw = (double)L.area_w / C, ch = (double)L.area_h / E;
        int bad = 0, saturated = 0;
        for (int pos = 0; pos < C && bad < 5; pos++)
            for (int d = 0; d < E && bad < 5; d++) {
                double v = fixture_expected(&o, FIXTURE_WPE, (uint64_t)pos, (uint64_t)d), want[3];
                pngcheck_colour(v, -q_want, q_want, want);
                saturated += fabs(v) >= q_want;
                /* x position, y dimension with 0 at the bottom */
                bad += !expect_px(&p, L.area_x + (int)((pos + 0.5) * cw),
                                  L.area_y + L.area_h - 1 - (int)((d + 0.5) * ch), want, name);
            }
        cr_expect_eq(bad, 0);
        cr_expect(saturated >= 1, "the largest |x| is at an end of the map");
        /* the bar runs from +q (top) to -q (bottom): the map's ends */
        double top[3], bottom[3];
        pngcheck_colour(1, -1, 1, top);
        pngcheck_colour(-1, -1, 1, bottom);
        expect_px(&p, L.bar_x + L.bar_w / 2, L.bar_y, top, "bar top");
        expect_px(&p, L.bar_x + L.bar_w / 2, L.bar_y + L.bar_h - 1, bottom, "bar bottom");
        cairo_surface_destroy(p.s);
        free(path);
    }
    /* the percentile must be in (0, 100] */
    cr_expect_eq(wpe_heatmap(m, 0.0, RENDER_CMAP_RDBU, "/nonexistent.png", NULL), -1, "percentile 0");
    cr_expect_eq(wpe_heatmap(m, 100.5, RENDER_CMAP_RDBU, "/nonexistent.png", NULL), -1, "above 100");
    free(a);
    gpt2embed_model_close(m);
    free(w), free(dir);
}

/* ---- the learned curve ---- */

Test(figures_learned, learned_curve_matches_naive_loops)
{
    enum { C = 48, E = 20 };
    char *dir = test_tmpdir("figl-curve");
    fixture_opts o;
    opts(&o, C, E);
    o.dtype = ST_BF16;   /* values as the reader widens them: fixture_expected knows */
    char *w = write_fixture(&o, dir, "m.safetensors");
    gpt2embed_model *m = open_path(w);
    double out[C];
    cr_assert_eq(gpt2embed_wpe_by_distance(m, C, C - 1, out, NULL, NULL), 0);
    for (size_t d = 0; d < C; d++)
        cr_expect(fabs(out[d] - naive_learned(&o, C, d)) < 1e-12, "d=%zu: %.17g vs %.17g", d,
                  out[d], naive_learned(&o, C, d));
    /* a prefix of the positions, fewer distances */
    cr_assert_eq(gpt2embed_wpe_by_distance(m, 10, 3, out, NULL, NULL), 0);
    for (size_t d = 0; d <= 3; d++)
        cr_expect(fabs(out[d] - naive_learned(&o, 10, d)) < 1e-12, "len 10, d=%zu", d);
    cr_expect_eq(gpt2embed_wpe_by_distance(m, C + 1, 3, out, NULL, NULL), GPT2EMBED_E_ARG, "more positions than n_ctx");
    cr_expect_eq(gpt2embed_wpe_by_distance(m, 10, 10, out, NULL, NULL), GPT2EMBED_E_ARG, "distance not below len");
    gpt2embed_model_close(m);
    free(w), free(dir);
}

/* ---- through the program: sinusoidal --compare-learned ---- */

/* Parses "distance,sinusoidal,learned" CSV into the arrays; returns the number of rows. */
static size_t parse_csv(const char *s, double *sin_v, double *lrn, size_t cap)
{
    cr_assert(strncmp(s, "distance,sinusoidal,learned\n", 28) == 0, "header: %s", s);
    const char *p = s + 28;
    size_t n = 0;
    while (*p) {
        char *end;
        unsigned long d = strtoul(p, &end, 10);
        cr_assert_eq(d, n, "row %zu", n);
        cr_assert_eq(*end, ',');
        cr_assert(n < cap);
        sin_v[n] = strtod(end + 1, &end);
        cr_assert_eq(*end, ',');
        lrn[n] = strtod(end + 1, &end);
        cr_assert_eq(*end, '\n');
        p = end + 1;
        n++;
    }
    return n;
}

Test(figures_learned, compare_learned_csv_against_naive_loops)
{
    enum { C = 64, E = 16 };
    char *dir = test_tmpdir("figl-cmp");
    fixture_opts o;
    opts(&o, C, E);
    char *w = write_fixture(&o, dir, "m.safetensors");
    run_result r = run_g2e("sinusoidal", "--compare-learned", "--weights", w, "--format", "csv",
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    double s[C + 1], l[C + 1];
    size_t n = parse_csv(r.out, s, l, C + 1);
    cr_expect_eq(n, C, "distances 0..n_ctx-1 by default");
    for (size_t d = 0; d < n; d++) {
        cr_expect(fabs(l[d] - naive_learned(&o, C, d)) < 1e-12, "learned d=%zu", d);
        cr_expect(fabs(s[d] - naive_sinusoidal(C, E, 10000.0, d)) < 1e-12, "sinusoidal d=%zu: %.17g vs %.17g",
                  d, s[d], naive_sinusoidal(C, E, 10000.0, d));
    }
    cr_expect(fabs(l[0] - 1) < 1e-14 && fabs(s[0] - 1) < 1e-14, "distance 0 is cos = 1");
    run_free(&r);

    /* --len, --max-distance and --base */
    r = run_g2e("sinusoidal", "--compare-learned", "--weights", w, "--format", "csv", "--len",
                "20", "--max-distance", "7", "--base", "100", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    n = parse_csv(r.out, s, l, C + 1);
    cr_expect_eq(n, 8);
    for (size_t d = 0; d < n; d++) {
        cr_expect(fabs(l[d] - naive_learned(&o, 20, d)) < 1e-12, "learned d=%zu", d);
        cr_expect(fabs(s[d] - naive_sinusoidal(20, E, 100.0, d)) < 1e-12, "sinusoidal d=%zu", d);
    }
    run_free(&r);

    /* the weights found through $GPT2_EMBED_WEIGHTS, JSON read back */
    char env[4200];
    snprintf(env, sizeof env, "GPT2_EMBED_WEIGHTS=%s", w);
    char *argv[] = {G2E_TEST_BIN, "sinusoidal", "--compare-learned", "--len", "12",
                    "--format", "json", NULL};
    char *envv[] = {env, NULL};
    r = run_argv(argv, NULL, 0, envv, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cJSON *j = cJSON_Parse(r.out);
    cr_assert(j != NULL, "valid JSON: %s", r.out);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(j, "model")), "a fixture has no size name");
    cr_expect_str_eq(cJSON_GetObjectItem(j, "weights")->valuestring, w);
    cr_expect_eq(cJSON_GetObjectItem(j, "n_ctx")->valueint, C);
    cr_expect_eq(cJSON_GetObjectItem(j, "n_embd")->valueint, E);
    cr_expect_eq(cJSON_GetObjectItem(j, "max_distance")->valueint, 11);
    cJSON *js = cJSON_GetObjectItem(j, "sinusoidal"), *jl = cJSON_GetObjectItem(j, "learned"),
          *jd = cJSON_GetObjectItem(j, "distance");
    cr_assert(cJSON_GetArraySize(js) == 12 && cJSON_GetArraySize(jl) == 12 &&
              cJSON_GetArraySize(jd) == 12);
    for (int d = 0; d < 12; d++) {
        cr_expect_eq(cJSON_GetArrayItem(jd, d)->valueint, d);
        cr_expect(fabs(cJSON_GetArrayItem(jl, d)->valuedouble - naive_learned(&o, 12, (size_t)d)) < 1e-12);
        cr_expect(fabs(cJSON_GetArrayItem(js, d)->valuedouble -
                       naive_sinusoidal(12, E, 10000.0, (size_t)d)) < 1e-12);
    }
    cJSON_Delete(j);
    run_free(&r);

    /* table: says what it compares and where the weights came from */
    r = run_g2e("sinusoidal", "--compare-learned", "--weights", w, "--len", "4", NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(strstr(r.out, w) != NULL, "names the weights file: %s", r.out);
    cr_expect(strstr(r.out, "D = 16") != NULL, "%s", r.out);
    cr_expect(strstr(r.out, "distance") && strstr(r.out, "sinusoidal") && strstr(r.out, "learned"));
    double d0, s0, l0;
    const char *row = strstr(r.out, "learned\n");
    cr_assert(row != NULL);
    cr_assert_eq(sscanf(row + 8, "%lf %lf %lf", &d0, &s0, &l0), 3);
    cr_expect(d0 == 0 && fabs(s0 - 1) < 1e-9 && fabs(l0 - 1) < 1e-9);
    run_free(&r);
    free(w), free(dir);
}

Test(figures_learned, compare_learned_plot_and_errors)
{
    enum { C = 64, E = 16 };
    char *dir = test_tmpdir("figl-cmp-err");
    fixture_opts o;
    opts(&o, C, E);
    char *w = write_fixture(&o, dir, "m.safetensors");
    char *png_path = path_join(dir, "cmp.png");
    run_result r = run_g2e("sinusoidal", "--compare-learned", "--weights", w, "--plot", png_path,
                           NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_eq(r.out_len, 0, "--plot alone replaces the numeric output");
    run_free(&r);
    png p = pngcheck_load(png_path);
    cr_expect(p.w == 960 && p.h == 600);
    double c1[3] = {0x1f, 0x77, 0xb4}, c2[3] = {0xff, 0x7f, 0x0e};
    cr_expect(count_colour(&p, c1) > 300, "the sinusoidal series");
    cr_expect(count_colour(&p, c2) > 300, "the learned series");
    cairo_surface_destroy(p.s);

    struct {
        const char *args[8];
        int status;
        const char *msg;
    } cases[] = {
        {{"--dim", "16"}, 2, "drop --dim"},
        {{"--len", "65"}, 2, "65 is more than the model's 64 positions"},
        {{"--len", "10", "--max-distance", "10"}, 2, "must be less than"},
        {{"--format", "npy"}, 2, "not npy"},
        {{"--from", "3"}, 2, "do not apply"},
        {{"--base", "1"}, 2, "base"},
        {{"--model", "gpt5"}, 1, "unknown model 'gpt5'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *argv[16] = {G2E_TEST_BIN, "sinusoidal", "--compare-learned", "--weights", w};
        int n = 5;
        for (int i = 0; cases[k].args[i]; i++)
            argv[n++] = (char *)cases[k].args[i];
        argv[n] = NULL;
        r = run_argv(argv, NULL, 0, NULL, NULL);
        cr_expect_eq(r.status, cases[k].status, "case %zu: %d %s", k, r.status, r.err);
        cr_expect(strstr(r.err, cases[k].msg) != NULL, "case %zu: %s", k, r.err);
        cr_expect_eq(r.out_len, 0, "case %zu: nothing on stdout", k);
        const char *nl = strchr(r.err, '\n');
        cr_expect(nl && nl[1] == '\0', "case %zu: one line: %s", k, r.err);
        run_free(&r);
    }
    /* --weights and --model without --compare-learned */
    r = run_g2e("sinusoidal", "--by-distance", "--len", "4", "--dim", "4", "--weights", w, NULL);
    cr_expect_eq(r.status, 2);
    run_free(&r);
    r = run_g2e("sinusoidal", "--len", "4", "--dim", "4", "--format", "json", NULL);
    cr_expect_eq(r.status, 2, "json is --compare-learned's");
    run_free(&r);

    /* no weights anywhere: every place looked is named, exit 1, nothing written */
    char *empty = test_tmpdir("figl-noweights");
    char *out = path_join(empty, "c.csv");
    char hf[4200];
    snprintf(hf, sizeof hf, "HF_HUB_CACHE=%s/hub", empty);
    char *argv[] = {G2E_TEST_BIN, "sinusoidal", "--compare-learned", "-o", out, NULL};
    char *envv[] = {hf, "-GPT2_EMBED_WEIGHTS", "-HF_HOME", NULL};
    r = run_argv(argv, NULL, 0, envv, empty);
    cr_expect_eq(r.status, 1, "%s", r.err);
    cr_expect(strstr(r.err, "no weights for gpt2") && strstr(r.err, "weights/gpt2.safetensors") &&
                  strstr(r.err, "gpt2-embed download"), "%s", r.err);
    struct stat st;
    cr_expect(stat(out, &st) != 0, "no output file");
    run_free(&r);

    /* a wpe row of zeros has no cosine: one line, exit 1 */
    fixture_opts z;
    opts(&z, 8, 4);
    uint64_t rows[] = {0, 1, 2, 4, 5, 6, 7};   /* row 3 left at zero */
    uint64_t wte_rows[] = {0};
    z.sparse = 1;
    z.wpe_rows = rows, z.n_wpe_rows = 7;
    z.wte_rows = wte_rows, z.n_wte_rows = 1;
    char *zw = write_fixture(&z, dir, "zero-row.safetensors");
    r = run_g2e("sinusoidal", "--compare-learned", "--weights", zw, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "row 3") != NULL, "%s", r.err);
    cr_expect_eq(r.out_len, 0);
    run_free(&r);
    free(zw), free(out), free(empty), free(png_path), free(w), free(dir);
}

/* ---- through the program: plot wpe / cosine / by-distance ---- */

Test(figures_learned, plot_commands)
{
    enum { C = 64, E = 16 };
    char *dir = test_tmpdir("figl-plot");
    fixture_opts o;
    opts(&o, C, E);
    char *w = write_fixture(&o, dir, "m.safetensors");
    const char *figs[3] = {"wpe", "cosine", "by-distance"};
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "%s.png", figs[k]);
        char *path = path_join(dir, name);
        run_result r = run_g2e("plot", figs[k], "--weights", w, "-o", path, "--width", "800",
                               "--height", "500", NULL);
        cr_expect_eq(r.status, 0, "%s: %s", figs[k], r.err);
        cr_expect_eq(r.out_len, 0);
        run_free(&r);
        png p = pngcheck_load(path);
        cr_expect(p.w == 800 && p.h == 500, "%s: %dx%d", figs[k], p.w, p.h);
        cairo_surface_destroy(p.s);
        free(path);
    }
    /* by-distance with --len and --max-distance: both series drawn */
    char *bd = path_join(dir, "bd-short.png");
    run_result r = run_g2e("plot", "by-distance", "--weights", w, "--len", "30",
                           "--max-distance", "12", "-o", bd, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    png p = pngcheck_load(bd);
    double c1[3] = {0x1f, 0x77, 0xb4}, c2[3] = {0xff, 0x7f, 0x0e};
    cr_expect(count_colour(&p, c1) > 200 && count_colour(&p, c2) > 200, "two series");
    cairo_surface_destroy(p.s);
    /* one position: a single point at cos = 1 (a range that used to hang the chart) */
    r = run_g2e("plot", "by-distance", "--weights", w, "--len", "1", "-o", bd, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);

    /* errors: one line, nothing written, an existing file kept */
    char *keep = path_join(dir, "keep.png");
    write_file(keep, "old", 3);
    struct {
        const char *args[6];
        int status;
        const char *msg;
    } cases[] = {
        {{"wpe", "--percentile", "0"}, 2, "--percentile"},
        {{"wpe", "--len", "4"}, 2, "unknown option '--len'"},
        {{"cosine", "--percentile", "50"}, 2, "unknown option"},
        {{"by-distance", "--len", "65"}, 2, "more than the model's 64 positions"},
        {{"by-distance", "--len", "8", "--max-distance", "8"}, 2, "must be less than"},
        {{"by-distance", "--base", "0.5"}, 2, "base"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *argv[16] = {G2E_TEST_BIN, "plot"};
        int n = 2;
        for (int i = 0; cases[k].args[i]; i++)
            argv[n++] = (char *)cases[k].args[i];
        argv[n++] = "--weights", argv[n++] = w, argv[n++] = "-o", argv[n++] = keep;
        argv[n] = NULL;
        r = run_argv(argv, NULL, 0, NULL, NULL);
        cr_expect_eq(r.status, cases[k].status, "case %zu: %d %s", k, r.status, r.err);
        cr_expect(strstr(r.err, cases[k].msg) != NULL, "case %zu: %s", k, r.err);
        run_free(&r);
        size_t len = 0;
        char *c = read_file(keep, &len);
        cr_expect(c && len == 3 && memcmp(c, "old", 3) == 0, "case %zu: the old file is kept", k);
        free(c);
    }
    r = run_g2e("plot", "cosine", "--weights", "/nonexistent/w.safetensors", "-o", keep, NULL);
    cr_expect_eq(r.status, 1);
    cr_expect(strstr(r.err, "/nonexistent/w.safetensors") != NULL, "%s", r.err);
    run_free(&r);
    free(keep), free(bd), free(w), free(dir);
}

/* ---- GPT-2's own shapes: 1024 positions x 768 dims, every row written ---- */

Test(figures_learned, full_gpt2_shapes, .timeout = 120)
{
    char *dir = test_tmpdir("figl-full");
    fixture_opts o;
    opts(&o, 1024, 768);
    o.n_vocab = 300;
    char *w = write_fixture(&o, dir, "m.safetensors");
    gpt2embed_model *m = open_path(w);
    char *cos_png = path_join(dir, "cosine-1024.png");
    cr_assert_eq(wpe_cosine(m, RENDER_CMAP_RDBU, cos_png), 0);
    png p = pngcheck_load(cos_png);
    float dummy = 0;
    render_heatmap h = {.z = &dummy, .nx = 1024, .ny = 1024, .vmin = -1, .vmax = 1,
                      .width = p.w, .height = p.h};
    render_layout L;
    cr_assert_eq(render_heatmap_layout(&h, &L, NULL), 0);
    cr_expect_eq(L.area_w, 1024, "a pixel per position");
    cr_expect_eq(L.area_h, 1024);
    double plus1[3];
    pngcheck_colour(1, -1, 1, plus1);
    int bad = 0;
    for (int i = 0; i < 1024; i += 7)
        bad += !expect_px(&p, L.area_x + i, L.area_y + i, plus1, "diagonal");
    cr_expect_eq(bad, 0);
    for (int i = 0; i < 1024 && bad < 3; i += 97)
        for (int j = 0; j < 1024 && bad < 3; j += 89) {
            double want[3];
            pngcheck_colour(naive_wpe_cos(&o, (uint64_t)i, (uint64_t)j), -1, 1, want);
            bad += !expect_px(&p, L.area_x + j, L.area_y + i, want, "cosine cell");
        }
    cairo_surface_destroy(p.s);

    char *wpe_png = path_join(dir, "wpe-1024x768.png");
    double q = 0;
    cr_assert_eq(wpe_heatmap(m, 99.0, RENDER_CMAP_RDBU, wpe_png, &q), 0);
    p = pngcheck_load(wpe_png);
    h.nx = 1024, h.ny = 768, h.width = 0, h.height = 0;
    cr_assert_eq(render_heatmap_layout(&h, &L, NULL), 0);
    cr_expect(p.w == L.width && p.h == L.height && L.area_w == 1024 && L.area_h == 768);
    for (int pos = 0; pos < 1024 && bad < 3; pos += 101)
        for (int d = 0; d < 768 && bad < 3; d += 53) {
            double want[3];
            pngcheck_colour(fixture_expected(&o, FIXTURE_WPE, (uint64_t)pos, (uint64_t)d), -q, q, want);
            bad += !expect_px(&p, L.area_x + pos, L.area_y + L.area_h - 1 - d, want, "wpe cell");
        }
    cr_expect_eq(bad, 0);
    cairo_surface_destroy(p.s);

    char *bd_png = path_join(dir, "by-distance-1024.png");
    cr_assert_eq(wpe_by_distance(m, 1024, 1023, bd_png), 0);
    p = pngcheck_load(bd_png);
    cr_expect(p.w == 960 && p.h == 600);
    cairo_surface_destroy(p.s);
    gpt2embed_model_close(m);
    free(bd_png), free(wpe_png), free(cos_png), free(w), free(dir);
}
