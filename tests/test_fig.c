/* SPDX-License-Identifier: MIT */
/* test_fig.c — the figure recipes (fig.h) on their own: each refuses what it cannot draw with
 * the library's kind of error (a status, one line, no PNG), draws at its documented default
 * size, and the by-distance chart is the same image whether it computes the sinusoidal curve
 * or is given it. The pixels of these figures are checked in test_plot.c and
 * test_figures_learned.c; PNGs are decoded back with cairo (pngcheck) and kept in build/tmp. */
#include "fig.h"
#include "recipe.h"
#include "fixture.h"
#include "pngcheck.h"
#include "support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static void expect_refused(int rc, int code, const render_png *out, const g2e_err *e,
                           const char *want)
{
    cr_expect_eq(rc, code, "status %d, want %d (%s)", rc, code, e->msg);
    cr_expect(out->data == NULL && out->len == 0, "no PNG on failure");
    cr_expect(strstr(e->msg, want), "message '%s' lacks '%s'", e->msg, want);
    cr_expect(!strchr(e->msg, '\n'), "one line");
}

Test(fig, sinusoidal_recipes_refuse_what_they_cannot_draw)
{
    render_png p = {(unsigned char *)1, 1};
    g2e_err e;
    expect_refused(fig_pe_png(32767, 4096, 1e4, RENDER_CMAP_RDBU, 0, 0, &p, &e), RENDER_E_ARG, &p,
                   &e, "the heatmap draws up to 32767 positions");
    expect_refused(fig_pe_png(10, 7, 1e4, RENDER_CMAP_RDBU, 0, 0, &p, &e), G2E_EINVAL, &p, &e, "7");
    expect_refused(fig_dot_curve_png(5, 4, 8, 1e4, 0, 0, &p, &e), RENDER_E_ARG, &p, &e,
                   "got 5..4");
    expect_refused(fig_by_distance_png(10, 8, 1e4, 10, NULL, NULL, NULL, 0, 0, &p, &e),
                   RENDER_E_ARG, &p, &e, "the largest distance (10) must be less than N (10)");
    expect_refused(fig_rotation_png(10, 8, 4, 1e4, RENDER_CMAP_RDBU, 0, 0, &p, &e), RENDER_E_ARG,
                   &p, &e, "pair 0..3 (D=8)");
    expect_refused(fig_pe_png(10, 8, 1e4, RENDER_CMAP_RDBU, 100, 0, &p, &e), RENDER_E_ARG, &p, &e,
                   "100");
}

Test(fig, default_sizes)
{
    char *dir = test_tmpdir("fig-sizes");
    render_png p;
    g2e_err e;
    struct { const char *name; int w, h; } want[] = {
        {"pe.png", 1200, 600}, {"dot.png", 960, 600}, {"rot.png", 800, 700}, {"bd.png", 960, 600}};
    for (int i = 0; i < 4; i++) {
        int rc = i == 0 ? fig_pe_png(100, 128, 1e4, RENDER_CMAP_COOLWARM, 0, 0, &p, &e)
               : i == 1 ? fig_dot_curve_png(0, 50, 128, 1e4, 0, 0, &p, &e)
               : i == 2 ? fig_rotation_png(100, 128, 3, 1e4, RENDER_CMAP_COOLWARM, 0, 0, &p, &e)
               : fig_by_distance_png(64, 16, 1e4, 63, NULL, NULL, NULL, 0, 0, &p, &e);
        cr_assert_eq(rc, 0, "%s: %s", want[i].name, e.msg);
        char *path = path_join(dir, want[i].name);
        png img = pngcheck_save(&p, path);
        cr_expect(img.w == want[i].w && img.h == want[i].h, "%s is %dx%d", want[i].name, img.w,
                  img.h);
        pngcheck_free(&img);
        free(path);
    }
    free(dir);
}

Test(fig, by_distance_computed_or_given_is_one_image)
{
    enum { N = 80, M = 40 };
    double s[M + 1], l[M + 1];
    g2e_err e;
    cr_assert_eq(gpt2embed_sinusoid_by_distance(N, 32, 1e4, M, s, NULL), 0);
    for (int d = 0; d <= M; d++)
        l[d] = 1.0 - d / 80.0;
    render_png a, b;
    cr_assert_eq(fig_by_distance_png(N, 32, 1e4, M, NULL, l, "made up", 0, 0, &a, &e), 0, "%s", e.msg);
    cr_assert_eq(fig_by_distance_png(N, 32, 1e4, M, s, l, "made up", 0, 0, &b, &e), 0, "%s", e.msg);
    cr_expect(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    render_png_free(&a), render_png_free(&b);
}

Test(fig, wpe_recipes_name_the_matrix_in_their_errors)
{
    fixture_opts o;
    fixture_tiny(&o);
    static const uint64_t rows[] = {0, 1, 2};   /* the other wpe rows read as zeros */
    o.sparse = 1, o.wpe_rows = rows, o.n_wpe_rows = 3, o.wte_rows = rows, o.n_wte_rows = 3;
    gpt2embed_model *m = open_fixture_door(&o, "fig-zero");
    render_png p;
    g2e_err e;
    expect_refused(fig_wpe_cosine_png(m, RENDER_CMAP_RDBU, 0, 0, &p, &e), G2E_EINVAL, &p, &e, "wpe: ");
    expect_refused(fig_wpe_by_distance_png(m, 16, 3, 1e4, 0, 0, &p, &e), G2E_EINVAL, &p, &e, "wpe: ");
    expect_refused(fig_wpe_by_distance_png(m, 4, 4, 1e4, 0, 0, &p, &e), RENDER_E_ARG, &p, &e,
                   "must be less than N (4)");
    expect_refused(fig_wpe_heatmap_png(m, 0, RENDER_CMAP_RDBU, 0, 0, NULL, NULL, &p, &e),
                   RENDER_E_ARG, &p, &e, "percentile");
    double q = 0;
    int fell = -1;
    cr_assert_eq(fig_wpe_heatmap_png(m, 50, RENDER_CMAP_RDBU, 0, 0, &q, &fell, &p, &e), 0, "%s", e.msg);
    cr_expect(fell == 1 && q > 0, "13 of 16 rows are zero: the median |x| is 0, so the largest is used");
    render_png_free(&p);
    gpt2embed_model_close(m);
}

Test(fig, study_recipes)
{
    double mean[10], x[10], y[10], proj[10 * 2], ratio[2] = {0.7, 0.3}, norms[3] = {3, 1, 1};
    for (int i = 0; i < 10; i++)
        mean[i] = 1.0 / (i + 1), x[i] = i, y[i] = -i, proj[2 * i] = i, proj[2 * i + 1] = -i;
    render_png p;
    g2e_err e;
    cr_assert_eq(recipe_rope_dot_png(mean, NULL, 3, 10, 8, 1e4, &p, &e), 0, "%s", e.msg);
    render_png_free(&p);
    cr_assert_eq(recipe_rope_rotation_png(x, y, 10, 1, 0.1, 8, &p, &e), 0, "%s", e.msg);
    render_png_free(&p);
    cr_assert_eq(recipe_pca_scatter_png(proj, 10, 2, ratio, 1, 0, 1, "x", &p, &e), 0, "%s", e.msg);
    render_png_free(&p);
    cr_assert_eq(recipe_norms_png(norms, 3, 3.0, "m", &p, &e), 0, "%s", e.msg);
    render_png_free(&p);
    expect_refused(recipe_pca_lines_png(proj, 10, 0, ratio, 0, "x", &p, &e), RENDER_E_ARG, &p, &e,
                   "at least one component");
    expect_refused(recipe_pca_scatter_png(proj, 10, 2, ratio, 0, 0, 2, "x", &p, &e), RENDER_E_ARG, &p,
                   &e, "two different ones of the 2 kept");
    expect_refused(recipe_pca_variance_png(ratio, 0, "x", &p, &e), RENDER_E_ARG, &p, &e,
                   "at least one component");
    expect_refused(recipe_norms_png(norms, 1, 3.0, "m", &p, &e), RENDER_E_ARG, &p, &e, "2 to");
    expect_refused(recipe_rope_rotation_png(x, y, 0, 1, 0.1, 8, &p, &e), RENDER_E_ARG, &p, &e, "1 to");
    double *r = recipe_ramp(5, 2.5, &e);
    cr_assert(r);
    cr_expect(r[0] == 2.5 && r[4] == 6.5);
    free(r);
}
