/* SPDX-License-Identifier: MIT */
/* test_render_cli.c — figures through the built program: `plot pe` as the article draws it
 * by default (100 x 128, coolwarm, [-1, 1], origin at the bottom), --cmap, `plot rotation`,
 * the main job's strips with a pixel column per dimension, and the lazy loading of the
 * rendering wing (cairo only when a figure is drawn; a clear error when
 * gpt2-embed-render.so is missing, while everything else still works).
 */
#include "fixture.h"
#include "pngcheck.h"
#include "render.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int lines_of_err(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int same(const int got[3], const unsigned char want[3])
{
    return abs(got[0] - want[0]) <= 1 && abs(got[1] - want[1]) <= 1 && abs(got[2] - want[2]) <= 1;
}

/* Checks the first column (position 0: sin 0 = 0 in even rows, cos 0 = 1 in odd rows) of a
 * PE heatmap of D dimensions drawn at the default size, bottom row = dimension 0. */
static void expect_position0(const png *p, size_t N, size_t D, render_cmap m)
{
    float z = 0;
    render_heatmap h = {.z = &z, .nx = N, .ny = D, .vmin = -1, .vmax = 1, .width = p->w, .height = p->h};
    render_layout L;
    cr_assert_eq(render_heatmap_layout(&h, &L, NULL), 0);
    cr_expect(p->w == L.width && p->h == L.height, "%dx%d", p->w, p->h);
    unsigned char zero[3], one[3];
    cr_assert_eq(render_cmap_rgb(m, 0.5, zero, NULL), 0);
    cr_assert_eq(render_cmap_rgb(m, 1.0, one, NULL), 0);
    double cw = (double)L.area_w / (double)N, ch = (double)L.area_h / (double)D;
    int bad = 0;
    for (size_t d = 0; d < D; d++) {
        int got[3];
        pngcheck_px(p, L.area_x + (int)(0.5 * cw), L.area_y + L.area_h - 1 - (int)(((double)d + 0.5) * ch), got);
        bad += !same(got, d % 2 ? one : zero);
    }
    cr_expect_eq(bad, 0, "position 0 of %zu rows: sin 0 = 0, cos 0 = 1 from the bottom up", D);
}

Test(render_cli, plot_pe_defaults_to_the_articles_figure)
{
    char *dir = test_tmpdir("rcli-pe");
    char *a = path_join(dir, "pe.png"), *b = path_join(dir, "pe-rdbu.png");
    run_result r = run_g2e("plot", "pe", "-o", a, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    png p = pngcheck_load(a);
    cr_expect(p.w == 1200 && p.h == 600, "the article's figsize (12, 6): %dx%d", p.w, p.h);
    expect_position0(&p, 100, 128, RENDER_CMAP_COOLWARM);
    /* the labelled colour bar: text right of the bar */
    cr_expect(pngcheck_dark(&p, p.w - 60, 60, p.w, p.h - 70) > 50, "bar label");
    pngcheck_free(&p);
    r = run_g2e("plot", "pe", "--cmap", "rdbu", "--len", "30", "--dim", "16", "-o", b, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    p = pngcheck_load(b);
    expect_position0(&p, 30, 16, RENDER_CMAP_RDBU);
    pngcheck_free(&p);
    r = run_g2e("plot", "pe", "--cmap", "jet", "-o", b, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "coolwarm") != NULL && strstr(r.err, "rdbu") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("plot", "pe", "--width", "100", "-o", b, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--width") != NULL && strstr(r.err, "150..32767") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("plot", "dot-curve", "--cmap", "rdbu", NULL);
    cr_expect_eq(r.status, 2, "a line chart has no colour map");
    cr_expect(strstr(r.err, "--cmap") != NULL, "%s", r.err);
    run_free(&r);
    free(a), free(b), free(dir);
}

Test(render_cli, plot_rotation_and_every_heatmap_takes_cmap)
{
    char *dir = test_tmpdir("rcli-rot");
    char *a = path_join(dir, "rot.png");
    run_result r = run_g2e("plot", "rotation", "--pair", "1", "--len", "40", "--dim", "16", "-o", a, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    png p = pngcheck_load(a);
    cr_expect(p.w == 800 && p.h == 700, "%dx%d", p.w, p.h);
    /* the first point (position 0, the blue end) and the last (the red end) are drawn */
    unsigned char lo[3], hi[3];
    render_cmap_rgb(RENDER_CMAP_COOLWARM, 0, lo, NULL);
    render_cmap_rgb(RENDER_CMAP_COOLWARM, 1, hi, NULL);
    int n_lo = 0, n_hi = 0;
    for (int y = 52; y < p.h - 64; y++)
        for (int x = 60; x < p.w - 130; x++) {
            int g[3];
            pngcheck_px(&p, x, y, g);
            n_lo += same(g, lo), n_hi += same(g, hi);
        }
    cr_expect(n_lo > 10 && n_hi > 10, "%d, %d", n_lo, n_hi);
    pngcheck_free(&p);
    r = run_g2e("plot", "rotation", "--pair", "8", "--dim", "16", "-o", a, NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "--pair needs an integer in 0..7, got '8'") != NULL, "%s", r.err);
    run_free(&r);
    r = run_g2e("plot", "rotaton", NULL);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "unknown figure 'rotaton'; did you mean 'rotation'?") != NULL, "%s", r.err);
    run_free(&r);
    const char *heatmaps[3] = {"pe", "wpe", "cosine"};
    for (int k = 0; k < 3; k++) {
        r = run_g2e("plot", heatmaps[k], "--help", NULL);
        cr_expect(strstr(r.out, "--cmap coolwarm|rdbu") != NULL, "%s: %s", heatmaps[k], r.out);
        run_free(&r);
    }
    free(a), free(dir);
}

Test(render_cli, strips_of_the_main_job_have_a_column_per_dimension, .timeout = 60)
{
    char *dir = test_tmpdir("rcli-strips");
    fixture_opts o;
    fixture_gpt2(&o, ST_F32, NULL);   /* n_embd 768, sparse */
    char *w = path_join(dir, "gpt2.safetensors"), *out = path_join(dir, "strips.png"), e[256];
    cr_assert_eq(fixture_write(w, &o, e, sizeof e), 0, "%s", e);
    run_result r = run_g2e("!\"#", "--weights", w, "--plot", out, NULL);
    cr_assert_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    png p = pngcheck_load(out);
    cr_expect(p.w >= 3 * 768, "three strips of 768 columns need >= 2304 px, got %d", p.w);
    pngcheck_free(&p);
    free(w), free(out), free(dir);
}

/* Does the dynamic loader report loading libcairo while running argv? */
static int loads_cairo(char *const argv[], int *status)
{
    char *env[] = {"LD_DEBUG=files", NULL};
    run_result r = run_argv(argv, NULL, 0, env, NULL);
    int yes = strstr(r.err, "libcairo.so") != NULL;
    *status = r.status;
    run_free(&r);
    return yes;
}

Test(render_cli, cairo_is_loaded_only_when_a_figure_is_drawn)
{
    char *dir = test_tmpdir("rcli-lazy");
    char *out = path_join(dir, "pe.png");
    int st;
    char *tok[] = {G2E_TEST_BIN, "tokenize", "Hello world", NULL};
    cr_expect(!loads_cairo(tok, &st), "tokenize does not load cairo");
    cr_expect_eq(st, 0);
    char *fig[] = {G2E_TEST_BIN, "plot", "pe", "--len", "8", "--dim", "8", "-o", out, NULL};
    cr_expect(loads_cairo(fig, &st), "plot pe loads cairo (through gpt2-embed-render.so)");
    cr_expect_eq(st, 0);
    /* the program alone, without the rendering object beside it: figures fail with a clear
     * line, everything else works */
    char *bin = path_join(dir, "gpt2-embed");
    size_t n;
    char *b = read_file(G2E_TEST_BIN, &n);
    cr_assert(b);
    write_file(bin, b, n);
    free(b);
    char *chmod_argv[] = {"/bin/chmod", "755", bin, NULL};
    run_result r = run_argv(chmod_argv, NULL, 0, NULL, NULL);
    run_free(&r);
    char *fig2[] = {bin, "plot", "pe", "-o", out, NULL};
    r = run_argv(fig2, NULL, 0, NULL, NULL);
    struct stat sb;
    if (stat(G2E_RENDER_DIR "/gpt2-embed-render.so", &sb) == 0) {
        /* an installed copy (make install) is the fallback: then the figure is drawn */
        cr_expect_eq(r.status, 0, "%s", r.err);
    } else {
        cr_expect_eq(r.status, 1, "%s", r.err);
        cr_expect(strstr(r.err, "gpt2-embed-render.so") != NULL && strstr(r.err, "apt-get install") != NULL,
                  "%s", r.err);
        cr_expect_eq(lines_of_err(r.err), 1, "one line: %s", r.err);
    }
    run_free(&r);
    char *tok2[] = {bin, "tokenize", "Hello world", NULL};
    r = run_argv(tok2, NULL, 0, NULL, NULL);
    cr_expect_eq(r.status, 0, "%s", r.err);
    run_free(&r);
    free(bin), free(out), free(dir);
}
