/* SPDX-License-Identifier: MIT */
/* test_plot.c — figures decoded back from PNG with cairo: sizes, and pixels whose colour
 * is known from the data and the documented colour map (rdbu, re-implemented in pngcheck.c
 * from the stops listed in render.h, not taken from src/render). The PNGs stay in
 * build/tmp/plot-* to be looked at. */
#include "figures.h"
#include "pngcheck.h"
#include "render.h"
#include "support.h"

#include <cairo/cairo.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Writes a drawn figure to path: 0, or the render status (nothing written). */
static int save(int rc, render_png *img, const char *path)
{
    if (rc)
        return rc;
    FILE *f = fopen(path, "wb");
    cr_assert(f, "cannot write %s", path);
    cr_assert_eq(fwrite(img->data, 1, img->len, f), img->len);
    cr_assert_eq(fclose(f), 0);
    render_png_free(img);
    return 0;
}

static int heatmap_file(const render_heatmap *h, const char *path)
{
    render_png img;
    return save(render_heatmap_png(h, &img, NULL), &img, path);
}

static int lines_file(const render_lines *l, const char *path)
{
    render_png img;
    return save(render_lines_png(l, &img, NULL), &img, path);
}

static int strips_file(const render_strips *st, const char *path)
{
    render_png img;
    return save(render_strips_png(st, &img, NULL), &img, path);
}

static void expect_px(const png *p, int x, int y, const double want[3], const char *what)
{
    int got[3];
    pngcheck_px(p, x, y, got);
    int ok = 1;
    for (int c = 0; c < 3; c++)
        ok &= fabs(got[c] - want[c]) <= 1.0;
    cr_expect(ok, "%s at (%d, %d): got #%02x%02x%02x, want #%02x%02x%02x", what, x, y, got[0],
              got[1], got[2], (int)lround(want[0]), (int)lround(want[1]), (int)lround(want[2]));
}

/* Pixels of exactly this colour (±1) in the rectangle. */
static int count_colour(const png *p, int x0, int y0, int x1, int y1, const double want[3])
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int g[3];
            pngcheck_px(p, x, y, g);
            if (fabs(g[0] - want[0]) <= 1 && fabs(g[1] - want[1]) <= 1 && fabs(g[2] - want[2]) <= 1)
                n++;
        }
    return n;
}

static int count_dark(const png *p, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int g[3];
            pngcheck_px(p, x, y, g);
            n += g[0] + g[1] + g[2] < 200;
        }
    return n;
}

/* The sinusoidal PE, (len, dim) row-major, computed here from the formula. */
static float *pe(size_t len, size_t dim)
{
    float *z = malloc(len * dim * sizeof *z);
    for (size_t p = 0; p < len; p++)
        for (size_t i = 0; i < dim / 2; i++) {
            double a = (double)p / pow(10000.0, (double)(2 * i) / (double)dim);
            z[p * dim + 2 * i] = (float)sin(a);
            z[p * dim + 2 * i + 1] = (float)cos(a);
        }
    return z;
}

Test(plot, pe_heatmap_cells_colour_bar_and_orientation)
{
    enum { N = 50, D = 16 };
    char *dir = test_tmpdir("plot-pe");
    char *path = path_join(dir, "pe.png");
    float *z = pe(N, D);
    render_heatmap h = {.cmap = RENDER_CMAP_RDBU, .z = z, .nx = N, .ny = D, .x_stride = D, .y_stride = 1, .vmin = -1,
                      .vmax = 1, .title = "Sinusoidal PE", .xlabel = "token position",
                      .ylabel = "dimension index", .cbar_label = "value"};
    render_layout L;
    cr_assert_eq(render_heatmap_layout(&h, &L, NULL), 0);
    cr_assert_eq(heatmap_file(&h, path), 0);
    png p = pngcheck_load(path);
    cr_expect_eq(p.w, 960);
    cr_expect_eq(p.h, 600);
    cr_expect_eq(p.w, L.width);
    cr_expect_eq(p.h, L.height);
    double cw = (double)L.area_w / N, ch = (double)L.area_h / D;
    /* position 0 (the first column), from the bottom up: sin 0 = 0, cos 0 = 1, ... */
    double white[3], top[3], bottom[3];
    pngcheck_colour(0, -1, 1, white);
    pngcheck_colour(1, -1, 1, top);
    pngcheck_colour(-1, -1, 1, bottom);
    cr_expect(white[0] == 255 && white[1] == 255 && white[2] == 255, "0 is white in the map");
    for (int d = 0; d < D; d++) {
        int x = L.area_x + (int)(0.5 * cw);
        int y = L.area_y + L.area_h - 1 - (int)((d + 0.5) * ch);
        expect_px(&p, x, y, d % 2 ? top : white, d % 2 ? "cos 0 = 1" : "sin 0 = 0");
    }
    /* every cell: the documented colour of its value (position x, dimension y from the bottom) */
    for (int pos = 0; pos < N; pos += 7)
        for (int d = 0; d < D; d++) {
            double want[3];
            pngcheck_colour(z[pos * D + d], -1, 1, want);
            int x = L.area_x + (int)((pos + 0.5) * cw);
            int y = L.area_y + L.area_h - 1 - (int)((d + 0.5) * ch);
            expect_px(&p, x, y, want, "PE cell");
        }
    /* the colour bar: top row the map's top end, bottom row its bottom end */
    int bx = L.bar_x + L.bar_w / 2;
    expect_px(&p, bx, L.bar_y, top, "colour bar top");
    expect_px(&p, bx, L.bar_y + L.bar_h - 1, bottom, "colour bar bottom");
    double mid[3];
    pngcheck_colour(0.5, 0, 1, mid);
    int g[3];
    pngcheck_px(&p, bx, L.bar_y + L.bar_h / 2, g);
    cr_expect(g[0] > 240 && g[1] > 240 && g[2] > 240, "middle of the bar near white");
    /* text was rendered: dark pixels in the title band and under the x axis */
    cr_expect(count_dark(&p, 0, 0, p.w, L.area_y - 4) > 100, "a title");
    cr_expect(count_dark(&p, L.area_x, L.area_y + L.area_h + 6, L.area_x + L.area_w, p.h) > 200,
              "x tick labels and label");
    cr_expect(count_dark(&p, 0, L.area_y, L.area_x - 6, L.area_y + L.area_h) > 200,
              "y tick labels and label");
    cairo_surface_destroy(p.s);
    free(z), free(path), free(dir);
}

Test(plot, origin_top_and_strides)
{
    /* a 3 x 2 grid with distinct values; z is (2, 3) row-major with y the row */
    float z[6] = {-1.0f, -0.5f, 0.0f, 0.25f, 0.75f, 1.0f};
    char *dir = test_tmpdir("plot-strides");
    char *a = path_join(dir, "top.png"), *b = path_join(dir, "bottom.png");
    render_heatmap h = {.cmap = RENDER_CMAP_RDBU, .z = z, .nx = 3, .ny = 2, .x_stride = 1, .y_stride = 3, .vmin = -1,
                      .vmax = 1, .origin_top = 1, .width = 500, .height = 400, .title = "strides"};
    render_layout L;
    cr_assert_eq(render_heatmap_layout(&h, &L, NULL), 0);
    cr_assert_eq(heatmap_file(&h, a), 0);
    h.origin_top = 0;
    cr_assert_eq(heatmap_file(&h, b), 0);
    png pt = pngcheck_load(a), pb = pngcheck_load(b);
    cr_expect(pt.w == 500 && pt.h == 400);
    double cw = L.area_w / 3.0, ch = L.area_h / 2.0;
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 3; x++) {
            double want[3];
            pngcheck_colour(z[y * 3 + x], -1, 1, want);
            int px_x = L.area_x + (int)((x + 0.5) * cw);
            expect_px(&pt, px_x, L.area_y + (int)((y + 0.5) * ch), want, "origin top");
            expect_px(&pb, px_x, L.area_y + L.area_h - 1 - (int)((y + 0.5) * ch), want, "origin bottom");
        }
    cairo_surface_destroy(pt.s);
    cairo_surface_destroy(pb.s);
    free(a), free(b), free(dir);
}

Test(plot, large_heatmap_gets_a_pixel_per_cell)
{
    enum { N = 1024, D = 768 };
    char *dir = test_tmpdir("plot-big");
    char *path = path_join(dir, "pe-1024x768.png");
    float *z = pe(N, D);
    render_heatmap h = {.cmap = RENDER_CMAP_RDBU, .z = z, .nx = N, .ny = D, .x_stride = D, .y_stride = 1, .vmin = -1,
                      .vmax = 1, .title = "PE 1024 x 768"};
    render_layout L;
    cr_assert_eq(render_heatmap_layout(&h, &L, NULL), 0);
    cr_expect_eq(L.area_w, N);
    cr_expect_eq(L.area_h, D);
    cr_assert_eq(heatmap_file(&h, path), 0);
    png p = pngcheck_load(path);
    cr_expect(p.w == L.width && p.h == L.height);
    /* one pixel per cell: each cell is exactly its colour */
    for (int pos = 0; pos < N; pos += 97)
        for (int d = 0; d < D; d += 31) {
            double want[3];
            pngcheck_colour(z[pos * D + d], -1, 1, want);
            expect_px(&p, L.area_x + pos, L.area_y + L.area_h - 1 - d, want, "cell");
        }
    cairo_surface_destroy(p.s);
    free(z), free(path), free(dir);
}

Test(plot, line_chart_draws_each_series_and_a_legend)
{
    enum { N = 200 };
    double x[N], y1[N], y2[N];
    for (int i = 0; i < N; i++) {
        x[i] = i;
        y1[i] = cos(i / 20.0);
        y2[i] = exp(-i / 50.0);
    }
    render_series s[2] = {{"cosine", x, y1, N}, {"decay", x, y2, N}};
    render_lines L = {.series = s, .n_series = 2, .title = "two series", .xlabel = "x",
                    .ylabel = "y", .zero_line = 1};
    char *dir = test_tmpdir("plot-lines");
    char *path = path_join(dir, "lines.png");
    cr_assert_eq(lines_file(&L, path), 0);
    png p = pngcheck_load(path);
    cr_expect(p.w == 960 && p.h == 600);
    double c1[3] = {0x1f, 0x77, 0xb4}, c2[3] = {0xff, 0x7f, 0x0e};
    cr_expect(count_colour(&p, 0, 0, p.w, p.h, c1) > 300, "first series colour");
    cr_expect(count_colour(&p, 0, 0, p.w, p.h, c2) > 300, "second series colour");
    cr_expect(count_dark(&p, 0, 0, p.w, 40) > 50, "title");
    cairo_surface_destroy(p.s);
    /* a single point and a flat line are drawable */
    double one = 3;
    render_series s1 = {"one point", &one, &one, 1};
    render_lines L1 = {.series = &s1, .n_series = 1, .width = 400, .height = 300};
    char *p1 = path_join(dir, "one.png");
    cr_expect_eq(lines_file(&L1, p1), 0);
    png q = pngcheck_load(p1);
    cr_expect(q.w == 400 && q.h == 300);
    cairo_surface_destroy(q.s);
    free(p1), free(path), free(dir);
}

Test(plot, strips_show_each_vector)
{
    enum { T = 4, C = 64 };
    float tok[T * C], pos[T * C], sum[T * C];
    for (int i = 0; i < T * C; i++) {
        tok[i] = 1.0f;     /* the top end */
        pos[i] = -1.0f;    /* the bottom end */
        sum[i] = 0.5f;
    }
    const float *data[3] = {tok, pos, sum};
    const char *names[3] = {"token (wte)", "position (wpe)", "sum"};
    const char *labels[T] = {"The", "\xE2\x90\xA3" "dog", "\xE2\x90\xA3" "chased", "\xE2\x86\xB5"};
    render_strips s = {.cmap = RENDER_CMAP_RDBU, .n_rows = T, .dim = C, .n_strips = 3, .data = data, .strip_names = names,
                     .ops = "+=", .labels = labels, .title = "Embedding of 4 tokens",
                     .vmin = -1, .vmax = 1};
    char *dir = test_tmpdir("plot-strips");
    char *path = path_join(dir, "strips.png");
    cr_assert_eq(strips_file(&s, path), 0);
    png p = pngcheck_load(path);
    cr_expect_eq(p.w, 1280);
    double top[3], bottom[3], half[3];
    pngcheck_colour(1, -1, 1, top);
    pngcheck_colour(-1, -1, 1, bottom);
    pngcheck_colour(0.5, -1, 1, half);
    int a = count_colour(&p, 0, 0, p.w / 2, p.h, top);
    int b = count_colour(&p, 0, 0, p.w, p.h, bottom);
    int c = count_colour(&p, p.w / 2, 0, p.w, p.h, half);
    cr_expect(a > 4 * 200, "token strips in the top colour (%d px)", a);
    cr_expect(b > 4 * 200, "position strips in the bottom colour (%d px)", b);
    cr_expect(c > 4 * 200, "sum strips at 0.5 (%d px)", c);
    cairo_surface_destroy(p.s);
    /* automatic symmetric range, data like the embedding stage's: a token vector, the
     * sinusoidal position vector, their sum */
    for (int t = 0; t < T; t++)
        for (int j = 0; j < C; j++) {
            uint32_t r = (uint32_t)(t * C + j) * 2654435761u;
            tok[t * C + j] = (float)((r >> 8) / 16777216.0 - 0.5) * 0.6f;
        }
    float *pe4 = pe(T, C);
    memcpy(pos, pe4, sizeof pos);
    free(pe4);
    for (int i = 0; i < T * C; i++)
        sum[i] = tok[i] + pos[i];
    s.vmin = s.vmax = 0;
    const char *ja[T] = {"\xE7\x8A\xAC", "\xE3\x81\x8C", "\xE2\x90\xA3\xE7\x8C\xAB\xE3\x82\x92",
                         "\\xE3\\x81"};   /* 犬, が, ␣猫を, an escaped partial character */
    s.labels = ja;
    s.title = "\xE7\x8A\xAC\xE3\x81\x8C\xE7\x8C\xAB\xE3\x82\x92 / The dog chased the cat";
    char *p2 = path_join(dir, "strips-auto.png");
    cr_expect_eq(strips_file(&s, p2), 0);
    png q = pngcheck_load(p2);
    cr_expect_eq(q.w, 1280);
    cairo_surface_destroy(q.s);
    free(p2), free(path), free(dir);
}

Test(plot, invalid_figures_fail_and_write_nothing)
{
    char *dir = test_tmpdir("plot-bad");
    char *path = path_join(dir, "x.png");
    float z[4] = {0};
    render_heatmap h = {.cmap = RENDER_CMAP_RDBU, .z = z, .nx = 0, .ny = 2, .x_stride = 1, .y_stride = 1, .vmin = -1, .vmax = 1};
    cr_expect_eq(heatmap_file(&h, path), RENDER_E_ARG, "zero columns");
    h.nx = 2;
    h.vmin = 1;
    cr_expect_eq(heatmap_file(&h, path), RENDER_E_ARG, "vmin >= vmax");
    h.vmin = -1;
    h.width = 50;
    cr_expect_eq(heatmap_file(&h, path), RENDER_E_ARG, "too small");
    h.width = 0;
    h.nx = RENDER_MAX_SIDE + 1;
    cr_expect_eq(heatmap_file(&h, path), RENDER_E_ARG, "too wide");
    render_lines L = {.series = NULL, .n_series = 0};
    cr_expect_eq(lines_file(&L, path), RENDER_E_ARG);
    double nan_v = NAN;
    render_series s = {"nan", &nan_v, &nan_v, 1};
    L.series = &s, L.n_series = 1;
    cr_expect_eq(lines_file(&L, path), RENDER_E_ARG, "no finite point");
    struct stat st;
    cr_expect(stat(path, &st) != 0, "nothing written");
    /* the message names what is wrong; *out is zeroed */
    g2e_err e;
    render_png img = {(unsigned char *)path, 1};
    h.nx = 2, h.vmin = 1;
    cr_expect_eq(render_heatmap_png(&h, &img, &e), RENDER_E_ARG);
    cr_expect(strstr(e.msg, "vmin < vmax") != NULL, "%s", e.msg);
    cr_expect(img.data == NULL && img.len == 0);
    free(path), free(dir);
}

Test(plot, colour_map_function)
{
    unsigned char c[3];
    render_cmap_rgb(RENDER_CMAP_RDBU, 0.0, c, NULL);
    cr_expect(c[0] == 0x05 && c[1] == 0x30 && c[2] == 0x61);
    render_cmap_rgb(RENDER_CMAP_RDBU, 1.0, c, NULL);
    cr_expect(c[0] == 0x67 && c[1] == 0x00 && c[2] == 0x1f);
    render_cmap_rgb(RENDER_CMAP_RDBU, 0.5, c, NULL);
    cr_expect(c[0] == 255 && c[1] == 255 && c[2] == 255);
    render_cmap_rgb(RENDER_CMAP_RDBU, -3.0, c, NULL);
    cr_expect(c[0] == 0x05, "clamped below");
    render_cmap_rgb(RENDER_CMAP_RDBU, NAN, c, NULL);
    cr_expect(c[0] == 0x80 && c[1] == 0x80 && c[2] == 0x80, "NaN is grey");
    render_cmap_rgb(RENDER_CMAP_RDBU, (0.25 + 1) / 2, c, NULL);
    double w[3];
    pngcheck_colour(0.25, -1, 1, w);
    cr_expect(abs(c[0] - (int)lround(w[0])) <= 1 && abs(c[2] - (int)lround(w[2])) <= 1);
}

Test(plot, by_distance_figure_with_a_second_curve)
{
    /* the shape the learned-vs-sinusoidal comparison will take: a made-up second curve */
    enum { M = 100 };
    double learned[M + 1];
    for (int d = 0; d <= M; d++)
        learned[d] = exp(-d / 30.0) * 0.9 + 0.1;
    char *dir = test_tmpdir("plot-bydist");
    char *path = path_join(dir, "by-distance.png");
    cr_assert_eq(fig_by_distance(128, 64, 10000.0, M, learned, "made-up learned curve", path, 0, 0), 0);
    png p = pngcheck_load(path);
    cr_expect(p.w == 960 && p.h == 600);
    double c1[3] = {0x1f, 0x77, 0xb4}, c2[3] = {0xff, 0x7f, 0x0e};
    cr_expect(count_colour(&p, 0, 0, p.w, p.h, c1) > 300, "sinusoidal series");
    cr_expect(count_colour(&p, 0, 0, p.w, p.h, c2) > 300, "second series");
    cairo_surface_destroy(p.s);
    free(path), free(dir);
}

Test(plot, nearly_flat_ranges_finish, .timeout = 20)
{
    /* 1 and the next double: a tick step below the values' last bit used to loop forever */
    char *dir = test_tmpdir("plot-flat");
    char *path = path_join(dir, "flat.png");
    double x[2] = {0, 1}, y[2] = {1.0, nextafter(1.0, 2.0)};
    render_series s = {"flat", x, y, 2};
    render_lines L = {.series = &s, .n_series = 1, .title = "flat"};
    cr_expect_eq(lines_file(&L, path), 0);
    double one = 1.0;
    render_series s1 = {"one point", &one, &one, 1};
    L.series = &s1;
    cr_expect_eq(lines_file(&L, path), 0);
    double big[2] = {1e300, nextafter(1e300, 2e300)};
    render_series s2 = {"x too", big, y, 2};
    L.series = &s2;
    cr_expect_eq(lines_file(&L, path), 0);
    float z[2] = {1.0f, 1.0f};
    render_heatmap h = {.cmap = RENDER_CMAP_RDBU, .z = z, .nx = 2, .ny = 1, .x_stride = 1, .y_stride = 1, .vmin = 1.0,
                      .vmax = nextafter(1.0, 2.0)};
    cr_expect_eq(heatmap_file(&h, path), 0);
    png p = pngcheck_load(path);
    cr_expect(p.w == 960 && p.h == 600);
    cairo_surface_destroy(p.s);
    free(path), free(dir);
}
