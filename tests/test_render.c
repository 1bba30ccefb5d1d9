/* SPDX-License-Identifier: MIT */
/* test_render.c — the rendering wing through render.h: the coolwarm map against the values
 * matplotlib publishes for it, Japanese text, the scatter, bar and strips figures, and the
 * errors (status + message, nothing drawn). PNGs are decoded back with cairo and stay in
 * build/tmp/render-* to be looked at.
 *
 * The coolwarm reference points below are typed in from matplotlib's _cm.py
 * (`_coolwarm_data`, Moreland's CoolWarmFloat33 table: r, g, b at t = k/32), independently
 * of src/render/cmap.c.
 */
#include "pngcheck.h"
#include "render.h"
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* t = k/32 and matplotlib's (r, g, b) there, a few of the 33 control points. */
static const struct {
    int k;
    double rgb[3];
} COOLWARM_PUBLISHED[] = {
    {0, {0.2298057, 0.298717966, 0.753683153}},   {2, {0.30386891, 0.406535296, 0.84495867}},
    {3, {0.342804478, 0.458757618, 0.883725899}}, {8, {0.552953156, 0.688929332, 0.995375608}},
    {9, {0.596262162, 0.726149107, 0.999836203}}, {16, {0.865395197, 0.86541021, 0.865395561}},
    {17, {0.897787179, 0.848937047, 0.820880546}}, {24, {0.958003065, 0.602842431, 0.481775914}},
    {31, {0.752534934, 0.157246067, 0.184115123}}, {32, {0.705673158, 0.01555616, 0.150232812}},
};
#define N_PUBLISHED (sizeof COOLWARM_PUBLISHED / sizeof COOLWARM_PUBLISHED[0])

static void cmap(render_cmap m, double t, unsigned char c[3])
{
    g2e_err e;
    cr_assert_eq(render_cmap_rgb(m, t, c, &e), 0, "%s", e.msg);
}

Test(render, coolwarm_matches_matplotlibs_table)
{
    for (size_t i = 0; i < N_PUBLISHED; i++) {
        unsigned char c[3];
        cmap(RENDER_CMAP_COOLWARM, COOLWARM_PUBLISHED[i].k / 32.0, c);
        for (int ch = 0; ch < 3; ch++)
            cr_expect(fabs(c[ch] - 255.0 * COOLWARM_PUBLISHED[i].rgb[ch]) <= 0.5 + 1e-9,
                      "t = %d/32 channel %d: %d vs 255 * %.9f", COOLWARM_PUBLISHED[i].k, ch, c[ch],
                      COOLWARM_PUBLISHED[i].rgb[ch]);
    }
    /* between control points matplotlib interpolates linearly: halfway between k = 2 and 3,
     * and between k = 8 and 9 */
    const int pairs[2][2] = {{1, 2}, {3, 4}};   /* indices into the table above */
    for (int p = 0; p < 2; p++) {
        unsigned char c[3];
        const double *a = COOLWARM_PUBLISHED[pairs[p][0]].rgb, *b = COOLWARM_PUBLISHED[pairs[p][1]].rgb;
        cmap(RENDER_CMAP_COOLWARM, (COOLWARM_PUBLISHED[pairs[p][0]].k + 0.5) / 32.0, c);
        for (int ch = 0; ch < 3; ch++)
            cr_expect(fabs(c[ch] - 255.0 * (a[ch] + b[ch]) / 2) <= 0.5 + 1e-9, "midpoint %d ch %d", p, ch);
    }
    /* the well-known hex ends and centre, clamping, NaN */
    unsigned char c[3];
    cmap(RENDER_CMAP_COOLWARM, -5, c);
    cr_expect(c[0] == 0x3b && c[1] == 0x4c && c[2] == 0xc0, "#3b4cc0 at and below 0");
    cmap(RENDER_CMAP_COOLWARM, 0.5, c);
    cr_expect(c[0] == 0xdd && c[1] == 0xdd && c[2] == 0xdd, "#dddddd in the middle");
    cmap(RENDER_CMAP_COOLWARM, 7, c);
    cr_expect(c[0] == 0xb4 && c[1] == 0x04 && c[2] == 0x26, "#b40426 at and above 1");
    cmap(RENDER_CMAP_COOLWARM, NAN, c);
    cr_expect(c[0] == 0 && c[1] == 0 && c[2] == 0, "NaN is black on coolwarm");
    cmap(RENDER_CMAP_RDBU, 0, c);
    cr_expect(c[0] == 0x05 && c[1] == 0x30 && c[2] == 0x61);
    cmap(RENDER_CMAP_RDBU, 0.5, c);
    cr_expect(c[0] == 255 && c[1] == 255 && c[2] == 255);
    g2e_err e;
    cr_expect_eq(render_cmap_rgb((render_cmap)7, 0.5, c, &e), RENDER_E_ARG);
}

static int same(const int got[3], const unsigned char want[3])
{
    return abs(got[0] - want[0]) <= 1 && abs(got[1] - want[1]) <= 1 && abs(got[2] - want[2]) <= 1;
}

/* The image a render_*_png call (its status rc) drew into img, saved as tag/name and
 * decoded; an error fails the test with its message. */
static png drawn(int rc, render_png *img, const g2e_err *e, const char *tag, const char *name)
{
    cr_assert_eq(rc, 0, "%s", e->msg);
    char *dir = test_tmpdir(tag), *path = path_join(dir, name);
    png p = pngcheck_save(img, path);
    free(path), free(dir);
    return p;
}

Test(render, heatmap_in_coolwarm_has_the_maps_colours)
{
    float z[4] = {-1.0f, -0.25f, 0.5f, 1.0f};   /* 4 x 1, one row */
    render_heatmap h = {.z = z, .nx = 4, .ny = 1, .x_stride = 1, .y_stride = 1, .vmin = -1,
                        .vmax = 1, .cmap = RENDER_CMAP_COOLWARM, .width = 600, .height = 400};
    render_layout L;
    cr_assert_eq(render_heatmap_layout(&h, &L, NULL), 0);
    render_png img;
    g2e_err e;
    png p = drawn(render_heatmap_png(&h, &img, &e), &img, &e, "render-heat", "coolwarm.png");
    for (int x = 0; x < 4; x++) {
        unsigned char want[3];
        int got[3];
        cmap(RENDER_CMAP_COOLWARM, (z[x] + 1) / 2, want);
        pngcheck_px(&p, L.area_x + (int)((x + 0.5) * L.area_w / 4.0), L.area_y + L.area_h / 2, got);
        cr_expect(same(got, want), "cell %d: #%02x%02x%02x", x, got[0], got[1], got[2]);
    }
    int got[3];
    pngcheck_px(&p, L.bar_x + L.bar_w / 2, L.bar_y, got);
    cr_expect(got[0] == 0xb4 && got[1] == 0x04 && got[2] == 0x26, "bar top is vmax's red");
    pngcheck_free(&p);
}

Test(render, japanese_text_is_drawn_with_real_glyphs)
{
    const char *ja = "\xE3\x83\x88\xE3\x83\xBC\xE3\x82\xAF\xE3\x83\xB3\xE3\x81\xAE\xE4\xBD\x8D\xE7\xBD\xAE";   /* トークンの位置 */
    int w, h, unknown = -1;
    g2e_err e;
    cr_assert_eq(render_text_size(ja, 14, &w, &h, &unknown, &e), 0, "%s", e.msg);
    cr_expect_eq(unknown, 0, "every character has a glyph (IPA Gothic)");
    cr_expect(w > 7 * 10 && w < 7 * 20, "seven full-width characters at 14 px: %d px", w);
    cr_assert_eq(render_text_size("position", 14, &w, &h, &unknown, &e), 0);
    cr_expect_eq(unknown, 0);
    cr_expect_eq(render_text_size("\xE3\x83", 14, &w, &h, NULL, &e), RENDER_E_ARG, "invalid UTF-8");
    /* the same chart with and without the Japanese x label: ink appears under the axis,
     * centred, about as wide as the label */
    double x[2] = {0, 1}, y[2] = {0, 1};
    render_series s = {.name = NULL, .x = x, .y = y, .n = 2};
    render_lines L = {.series = &s, .n_series = 1, .xlabel = ja, .width = 600, .height = 400};
    render_png with, without;
    cr_assert_eq(render_lines_png(&L, &with, &e), 0, "%s", e.msg);
    L.xlabel = NULL;
    cr_assert_eq(render_lines_png(&L, &without, &e), 0, "%s", e.msg);
    char *dir = test_tmpdir("render-ja");
    char *p1 = path_join(dir, "with.png"), *p2 = path_join(dir, "without.png");
    png a = pngcheck_save(&with, p1), b = pngcheck_save(&without, p2);
    int band0 = 400 - 30, ink_a = pngcheck_dark(&a, 0, band0, 600, 400);
    int ink_b = pngcheck_dark(&b, 0, band0, 600, 400);
    cr_expect(ink_b == 0, "no label, no ink in the label band (%d)", ink_b);
    cr_expect(ink_a > 60, "the label's ink (%d dark pixels)", ink_a);
    int left = 600, right = 0;
    for (int yy = band0; yy < 400; yy++)
        for (int xx = 0; xx < 600; xx++) {
            int g[3];
            pngcheck_px(&a, xx, yy, g);
            if (g[0] + g[1] + g[2] < 200)
                left = xx < left ? xx : left, right = xx > right ? xx : right;
        }
    cr_assert_eq(render_text_size(ja, 14, &w, &h, NULL, &e), 0);
    double centre = (left + right) / 2.0;
    cr_expect(right - left > w * 0.8 && right - left <= w + 2, "ink %d..%d for a %d px label", left, right, w);
    cr_expect(centre > 250 && centre < 400, "centred under the area (%.0f)", centre);
    pngcheck_free(&a), pngcheck_free(&b);
    free(p1), free(p2), free(dir);
}

Test(render, scatter_points_take_the_colour_of_their_value)
{
    /* four points on the unit circle coloured 0..3 */
    double x[4] = {1, 0, -1, 0}, y[4] = {0, 1, 0, -1}, c[4] = {0, 1, 2, 3};
    render_scatter s = {.x = x, .y = y, .c = c, .n = 4, .cmap = RENDER_CMAP_COOLWARM,
                        .unit_circle = 1, .radius = 6, .title = "unit circle",
                        .cbar_label = "\xE4\xBD\x8D\xE7\xBD\xAE" /* 位置 */, .width = 600, .height = 500};
    render_png img;
    g2e_err e;
    png p = drawn(render_scatter_png(&s, &img, &e), &img, &e, "render-scatter", "scatter.png");
    cr_expect(p.w == 600 && p.h == 500);
    /* the points' colours exist as solid dots: 0 -> the blue end, 3 -> the red end */
    unsigned char lo[3], hi[3];
    cmap(RENDER_CMAP_COOLWARM, 0, lo);
    cmap(RENDER_CMAP_COOLWARM, 1, hi);
    int n_lo = 0, n_hi = 0;
    for (int yy = 40; yy < p.h - 40; yy++)
        for (int xx = 60; xx < p.w - 130; xx++) {
            int g[3];
            pngcheck_px(&p, xx, yy, g);
            n_lo += same(g, lo), n_hi += same(g, hi);
        }
    cr_expect(n_lo > 50 && n_hi > 50, "dots of both ends (%d, %d)", n_lo, n_hi);
    /* errors */
    s.n = 0;
    cr_expect_eq(render_scatter_png(&s, &img, &e), RENDER_E_ARG);
    s.n = 4, s.title = "\xFF";
    cr_expect_eq(render_scatter_png(&s, &img, &e), RENDER_E_ARG);
    cr_expect(strstr(e.msg, "UTF-8") != NULL, "%s", e.msg);
    cr_expect(img.data == NULL);
    pngcheck_free(&p);
}

Test(render, bars_with_a_cumulative_line)
{
    double v[6] = {0.5, 0.2, 0.12, 0.08, 0.06, 0.04}, cum[6];
    double acc = 0;
    for (int i = 0; i < 6; i++)
        cum[i] = acc += v[i];
    render_bars b = {.values = v, .n = 6, .x0 = 1, .line = cum, .bar_name = "explained",
                     .line_name = "cumulative", .title = "PCA", .xlabel = "component",
                     .ylabel = "fraction of variance", .ymax = 1};
    render_png img;
    g2e_err e;
    png p = drawn(render_bars_png(&b, &img, &e), &img, &e, "render-bars", "bars.png");
    unsigned char blue[3] = {0x1f, 0x77, 0xb4}, orange[3] = {0xff, 0x7f, 0x0e};
    int nb = 0, no = 0;
    for (int yy = 0; yy < p.h; yy++)
        for (int xx = 0; xx < p.w; xx++) {
            int g[3];
            pngcheck_px(&p, xx, yy, g);
            nb += same(g, blue), no += same(g, orange);
        }
    cr_expect(nb > 5000, "bars (%d px)", nb);
    cr_expect(no > 300, "the line (%d px)", no);
    v[2] = NAN;
    cr_expect_eq(render_bars_png(&b, &img, &e), RENDER_E_ARG);
    pngcheck_free(&p);
}

Test(render, strips_give_every_dimension_its_own_column)
{
    enum { C = 768 };
    static float a[C], b[C];
    for (int j = 0; j < C; j++)
        a[j] = j % 2 ? 1.0f : -1.0f, b[j] = -a[j];   /* alternating: averaging would make grey */
    const float *data[2] = {a, b};
    const char *labels[1] = {"0"};
    render_strips s = {.n_rows = 1, .dim = C, .n_strips = 2, .data = data, .labels = labels,
                       .cmap = RENDER_CMAP_COOLWARM, .vmin = -1, .vmax = 1};
    render_png img;
    g2e_err e;
    png p = drawn(render_strips_png(&s, &img, &e), &img, &e, "render-strips", "alternating.png");
    cr_expect(p.w >= 2 * C, "at least one pixel column per dimension: %d px wide", p.w);
    unsigned char lo[3], hi[3];
    cmap(RENDER_CMAP_COOLWARM, 0, lo);
    cmap(RENDER_CMAP_COOLWARM, 1, hi);
    /* along the middle of the row, every pixel right of the label is background or one of the
     * two ends of the map, never a blend */
    int y = 52 + 8, ends = 0, blends = 0;
    for (int x = 40; x < p.w; x++) {
        int g[3];
        pngcheck_px(&p, x, y, g);
        if (same(g, lo) || same(g, hi))
            ends++;
        else if (!(g[0] == 255 && g[1] == 255 && g[2] == 255))
            blends++;
    }
    cr_expect_eq(blends, 0, "no averaged colours");
    cr_expect(ends >= 2 * C, "%d pixels of the ends", ends);
    /* an explicit width too narrow for that is refused */
    s.width = 1280;
    cr_expect_eq(render_strips_png(&s, &img, &e), RENDER_E_ARG);
    cr_expect(strstr(e.msg, "too narrow") != NULL, "%s", e.msg);
    pngcheck_free(&p);
}

Test(render, bad_specs_are_errors_not_images)
{
    g2e_err e;
    render_png img;
    float z = 0;
    render_heatmap h = {.z = &z, .nx = 1, .ny = 1, .x_stride = 1, .y_stride = 1, .vmin = -1,
                        .vmax = 1, .cmap = (render_cmap)9};
    cr_expect_eq(render_heatmap_png(&h, &img, &e), RENDER_E_ARG, "unknown map");
    h.cmap = RENDER_CMAP_RDBU, h.xlabel = "ok", h.ylabel = "\xC3";
    cr_expect_eq(render_heatmap_png(&h, &img, &e), RENDER_E_ARG, "invalid UTF-8 label");
    h.ylabel = NULL, h.width = RENDER_MAX_SIDE + 1;
    cr_expect_eq(render_heatmap_png(&h, &img, &e), RENDER_E_ARG, "too wide");
    cr_expect(strstr(e.msg, "32767") != NULL, "%s", e.msg);
    render_lines L = {.series = NULL, .n_series = RENDER_MAX_SERIES + 1};
    cr_expect_eq(render_lines_png(&L, &img, &e), RENDER_E_ARG);
    render_strips s = {.n_rows = 0};
    cr_expect_eq(render_strips_png(&s, &img, &e), RENDER_E_ARG);
    cr_expect(img.data == NULL && img.len == 0);
    render_png_free(NULL);
    render_png_free(&img);
}

/* Orange-ish pixels (series 1's colour, 0xff7f0e, antialiased edges included) in a box. */
static int n_orange(const png *p, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            int g[3];
            pngcheck_px(p, x, y, g);
            n += g[0] > 200 && g[1] > 90 && g[1] < 200 && g[2] < 120;
        }
    return n;
}

/* A lone point at the end of the x range (stats --by-position's position 0) was cut in half
 * by the plot area's clip, and its legend key was a line it does not have. */
Test(render, a_point_at_the_range_end_is_drawn_whole)
{
    double x[101], y[101], px[1] = {0}, py[1] = {50}, mx[1] = {50};
    for (int i = 0; i < 101; i++)
        x[i] = i, y[i] = 10;
    render_series s[2] = {{.name = "line", .x = x + 1, .y = y + 1, .n = 100},
                          {.name = NULL, .x = px, .y = py, .n = 1}};
    render_lines l = {.series = s, .n_series = 2, .title = "t", .xlabel = "x", .ylabel = "y",
                      .markers = 0, .width = 600, .height = 400};
    render_png a, b;
    g2e_err e;
    cr_assert_eq(render_lines_png(&l, &a, &e), 0, "%s", e.msg);
    s[1].x = mx;   /* the same point in the middle of the range */
    cr_assert_eq(render_lines_png(&l, &b, &e), 0, "%s", e.msg);
    char *dir = test_tmpdir("render-edge");
    char *pa = path_join(dir, "edge.png"), *pb = path_join(dir, "middle.png");
    png ea = pngcheck_save(&a, pa), eb = pngcheck_save(&b, pb);
    int at_edge = n_orange(&ea, 0, 0, ea.w, ea.h), in_middle = n_orange(&eb, 0, 0, eb.w, eb.h);
    cr_expect(in_middle >= 12, "the dot is drawn (%d px)", in_middle);
    cr_log_info("dot: %d px at the edge, %d in the middle", at_edge, in_middle);
    cr_expect(abs(at_edge - in_middle) <= 2, "a dot at x = xmin is whole: %d px vs %d in the middle "
              "(antialiasing may differ by a pixel)", at_edge, in_middle);
    /* issue 38: and it stands clear of the frame's left line (it sat on the axis) */
    int frame = -1, left = ea.w;
    for (int col = 0; col < ea.w / 3 && frame < 0; col++)
        if (pngcheck_dark(&ea, col, 0, col + 1, ea.h) > ea.h / 2)
            frame = col;
    for (int col = 0; col < ea.w / 3; col++)
        if (n_orange(&ea, col, 0, col + 1, ea.h))
            left = col < left ? col : left;
    cr_assert(frame >= 0, "the frame's left line is found");
    cr_expect(left > frame + 1, "the dot at x = xmin starts at column %d, the frame is at %d", left, frame);
    pngcheck_free(&ea), pngcheck_free(&eb);
    /* the legend key of a named lone point is a dot, not a 22-px line */
    s[1].x = px, s[1].name = "point";
    s[0].name = NULL;
    cr_assert_eq(render_lines_png(&l, &a, &e), 0, "%s", e.msg);
    ea = pngcheck_save(&a, pa);
    int total = n_orange(&ea, 0, 0, ea.w, ea.h);
    cr_expect(abs(total - 2 * at_edge) <= at_edge / 4, "legend key %d px, the same dot as the chart's %d px "
              "(a line would be 2 x 22)", total - at_edge, at_edge);
    cr_expect(total - at_edge >= 12, "legend key drawn (%d px)", total - at_edge);
    pngcheck_free(&ea);
    free(pa), free(pb), free(dir);
}

/* Issue 38: the legend of a bar chart never covers its data. The same chart drawn with and
 * without names: every pixel the legend changed was background in the chart without it
 * (not a bar, not the line), for a cumulative line that rises to the top right (where the
 * legend used to sit) and for one that fills the top left instead. */
Test(render, bar_legend_covers_no_data)
{
    double rising[32], falling[32], v[32];
    double acc = 0;
    for (int i = 0; i < 32; i++)
        v[i] = 1.0 / 32, rising[i] = acc += 1.0 / 32, falling[i] = 1.0 - 0.9 * i / 31.0;
    const double *lines[2] = {rising, falling};
    for (int k = 0; k < 2; k++) {
        render_bars b = {.values = v, .n = 32, .x0 = 1, .line = lines[k], .title = "PCA",
                         .xlabel = "component", .ylabel = "fraction", .ymax = 1};
        render_png img;
        g2e_err e;
        png bare = drawn(render_bars_png(&b, &img, &e), &img, &e, "render-legend", k ? "bare-fall.png" : "bare-rise.png");
        b.bar_name = "share", b.line_name = "cumulative";
        png with = drawn(render_bars_png(&b, &img, &e), &img, &e, "render-legend", k ? "legend-fall.png" : "legend-rise.png");
        cr_assert(bare.w == with.w && bare.h == with.h);
        int changed = 0, over_data = 0;
        for (int y = 0; y < bare.h; y++)
            for (int x = 0; x < bare.w; x++) {
                int a[3], c[3];
                pngcheck_px(&bare, x, y, a);
                pngcheck_px(&with, x, y, c);
                if (a[0] == c[0] && a[1] == c[1] && a[2] == c[2])
                    continue;
                changed++;
                int white = a[0] >= 250 && a[1] >= 250 && a[2] >= 250;
                int grid = abs(a[0] - a[1]) < 8 && abs(a[1] - a[2]) < 8 && a[0] >= 200;   /* grey grid */
                over_data += !white && !grid;
            }
        cr_expect(changed > 200, "the legend was drawn (%d px)", changed);
        cr_expect_eq(over_data, 0, "line %d: the legend covers %d pixels of data", k, over_data);
        pngcheck_free(&bare), pngcheck_free(&with);
    }
}

/* Issue 38: strips with marked rows (compare's and the report's rows that differ): a dark
 * mark in the right margin beside each marked row, nothing beside the others. */
Test(render, strips_mark_the_rows_asked_for)
{
    float a[3 * 4] = {1, -1, 0.5f, 0, 1, -1, 0.5f, 0, 1, -1, 0.5f, 0};
    const float *data[1] = {a};
    const unsigned char marked[3] = {0, 1, 0};
    render_strips s = {.n_rows = 3, .dim = 4, .n_strips = 1, .data = data, .marked = marked};
    render_png img;
    g2e_err e;
    png p = drawn(render_strips_png(&s, &img, &e), &img, &e, "render-marks", "marks.png");
    int top = 52, row_h = 22;   /* strips.c's layout without a title */
    for (int r = 0; r < 3; r++) {
        int ink = pngcheck_dark(&p, p.w - 42, top + r * row_h + 4, p.w, top + (r + 1) * row_h - 6);
        if (marked[r])
            cr_expect(ink >= 10, "row %d is marked (%d dark px)", r, ink);
        else
            cr_expect_eq(ink, 0, "row %d is not marked", r);
    }
    pngcheck_free(&p);
}
