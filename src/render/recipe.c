/* SPDX-License-Identifier: MIT */
/* recipe.c — the course's figures composed from arrays (see recipe.h). */
#include "recipe.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define _(s) g2e_tr(s)

static int no_memory(g2e_err *err)
{
    return g2e_fail(err, G2E_ENOMEM, "out of memory for a figure");
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int recipe_abs_percentile(const float *x, size_t n, double percentile, double *q, int *fell_back,
                          g2e_err *err)
{
    if (!(percentile > 0.0 && percentile <= 100.0))
        return g2e_fail(err, RENDER_E_ARG, "the percentile must be in (0, 100], got %g", percentile);
    float *a = malloc((n ? n : 1) * sizeof *a);
    if (!a)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for %zu values", n);
    size_t k = 0;
    float largest = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) {
            a[k++] = fabsf(x[i]);
            largest = fmaxf(largest, fabsf(x[i]));
        }
    qsort(a, k, sizeof *a, cmp_float);
    /* nearest rank: the smallest value with at least percentile % of the values at or below it */
    double r = ceil(percentile / 100.0 * (double)k);
    size_t at = r < 1 ? 0 : (size_t)r - 1;
    double v = k ? a[at < k ? at : k - 1] : 0;
    free(a);
    int fb = !(v > 0);
    if (fb)
        v = largest > 0 ? largest : 1;
    *q = v;
    if (fell_back)
        *fell_back = fb;
    return 0;
}

int recipe_order_png(const float *xa, const float *xb, size_t n, size_t dim,
                     const char *const *labels, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > RENDER_MAX_ROWS || dim == 0 || dim > RENDER_MAX_SIDE || !xa || !xb)
        return g2e_fail(err, RENDER_E_ARG, "the order figure draws 1 to %d positions of 1 to %d "
                        "values, got %zu x %zu", RENDER_MAX_ROWS, RENDER_MAX_SIDE, n, dim);
    float *both = malloc(3 * n * dim * sizeof *both), *d = both ? both + 2 * n * dim : NULL;
    unsigned char *differ = calloc(n, 1);
    char *title = NULL;
    double q = 1;
    int rc = both && differ ? 0 : no_memory(err);
    if (!rc) {
        memcpy(both, xa, n * dim * sizeof *both);
        memcpy(both + n * dim, xb, n * dim * sizeof *both);
        rc = recipe_abs_percentile(both, 2 * n * dim, 50.0, &q, NULL, err);
    }
    size_t n_differ = 0;
    for (size_t t = 0; !rc && t < n; t++) {
        for (size_t c = 0; c < dim; c++)
            differ[t] |= (d[t * dim + c] = xa[t * dim + c] - xb[t * dim + c]) != 0;
        n_differ += differ[t];
    }
    q *= 4;   /* (recipe_abs_percentile gives 1 for all-zero inputs: any range shows them) */
    if (!rc && !(title = g2e_printf_alloc(_("Two texts as the model's input: A, B and A - B per position "
                                        "(%zu positions, %zu differ, marked at the right; colours "
                                        "clipped at \xC2\xB1%.3g)"), n, n_differ, q)))
        rc = no_memory(err);
    if (!rc) {
        const float *parts[3] = {xa, xb, d};
        const char *names[3] = {_("A: wte + wpe"), _("B: wte + wpe"), _("A - B")};
        render_strips st = {.n_rows = n, .dim = dim, .n_strips = 3, .data = parts, .strip_names = names,
                            .ops = "-=", .labels = labels, .marked = differ, .title = title,
                            .vmin = -q, .vmax = q};
        rc = render_strips_png(&st, out, err);
    }
    free(both), free(differ), free(title);
    return rc;
}

int recipe_rotation_png(const double *x, const double *y, size_t n, size_t pair, double omega,
                        size_t dim, double base, render_cmap cmap, int width, int height,
                        render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0 || n > 1000000 || !x || !y)
        return g2e_fail(err, RENDER_E_ARG, "the rotation figure draws 1 to 1000000 positions, got %zu", n);
    double *pos = malloc(n * sizeof *pos);
    if (!pos)
        return no_memory(err);
    for (size_t p = 0; p < n; p++)
        pos[p] = (double)p;
    char *title = g2e_printf_alloc(_("Pair %zu of the sinusoidal PE turns by %.4g rad per position (D=%zu, base %g)"),
                               pair, omega, dim, base);
    char *xl = g2e_printf_alloc(_("PE(pos, %zu) = cos(pos\xC2\xB7\xCF\x89)"), 2 * pair + 1);
    char *yl = g2e_printf_alloc(_("PE(pos, %zu) = sin(pos\xC2\xB7\xCF\x89)"), 2 * pair);
    render_scatter s = {
        .x = x, .y = y, .c = pos, .n = n, .cmap = cmap,
        .connect = 1, .unit_circle = 1, .radius = n > 500 ? 2 : 4,
        .title = title, .xlabel = xl, .ylabel = yl, .cbar_label = _("position pos"),
        .width = width, .height = height,
    };
    int rc = title && xl && yl ? render_scatter_png(&s, out, err) : no_memory(err);
    free(pos), free(title), free(xl), free(yl);
    return rc;
}

int recipe_by_distance_png(size_t len, size_t dim, double base, size_t max_d,
                           const double *sinusoidal, const double *learned,
                           const char *learned_name, int width, int height, render_png *out,
                           g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (max_d >= len || max_d > SIZE_MAX / sizeof(double) / 2 - 1 || !sinusoidal)
        return g2e_fail(err, RENDER_E_ARG, "the largest distance (%zu) must be less than N (%zu)",
                        max_d, len);
    size_t n = max_d + 1;
    double *x = malloc(n * sizeof *x);
    if (!x)
        return no_memory(err);
    for (size_t d = 0; d < n; d++)
        x[d] = (double)d;
    char *title = g2e_printf_alloc(_("Similarity by distance (mean cosine over positions 0..%zu)"), len - 1);
    char *name = g2e_printf_alloc(_("sinusoidal (D=%zu, base %g)"), dim, base);
    render_series s[2] = {{.name = name, .x = x, .y = sinusoidal, .n = n},
                          {.name = learned_name ? learned_name : _("learned"), .x = x,
                           .y = learned, .n = n}};
    render_lines L = {.series = s, .n_series = learned ? 2 : 1, .title = title,
                      .xlabel = _("distance d"), .ylabel = _("mean cosine of positions d apart"),
                      .zero_line = 1, .width = width, .height = height};
    int rc = title && name ? render_lines_png(&L, out, err) : no_memory(err);
    free(x), free(title), free(name);
    return rc;
}

double *recipe_ramp(size_t n, double from, g2e_err *err)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x) {
        g2e_fail(err, G2E_ENOMEM, "out of memory for %zu points", n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = from + (double)i;
    return x;
}

/* Most points a PCA, norm or RoPE figure draws. */
#define RECIPE_MAX_POINTS 1000000

int recipe_norms_png(const double *norms, size_t n, double first_vs_median, const char *model,
                     render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (!norms || n < 2 || n > RECIPE_MAX_POINTS)
        return g2e_fail(err, RENDER_E_ARG, "the norm figure draws 2 to %d rows, got %zu",
                        RECIPE_MAX_POINTS, n);
    double *x = recipe_ramp(n, 0, err);
    if (!x)
        return G2E_ENOMEM;
    char *title = g2e_printf_alloc(_("Norm of each position vector wpe[p] (%s)"), model ? model : "");
    char *zero = isnan(first_vs_median) ? g2e_printf_alloc("%s", _("position 0 (the median is 0)"))
                                        : g2e_printf_alloc(_("position 0 (%.2f x the median)"), first_vs_median);
    int rc = title && zero ? 0 : no_memory(err);
    if (!rc) {
        render_series s[2] = {
            {.name = "|wpe[p]|", .x = x + 1, .y = norms + 1, .n = n - 1},
            {.name = zero, .x = x, .y = norms, .n = 1},
        };
        render_lines l = {.series = s, .n_series = 2, .title = title, .xlabel = _("position p"),
                          .ylabel = _("L2 norm"), .markers = 0};
        rc = render_lines_png(&l, out, err);
    }
    free(x), free(title), free(zero);
    return rc;
}

/* The arguments of a figure of projections (n, k): 0, or RENDER_E_ARG. */
static int pca_args(const double *proj, size_t n, size_t k, const double *ratio, g2e_err *err)
{
    if (!proj || !ratio || n == 0 || n > RECIPE_MAX_POINTS || k == 0 || k > RECIPE_MAX_POINTS / n)
        return g2e_fail(err, RENDER_E_ARG, "a figure of projections draws 1 to %d rows of at least "
                        "one component, got %zu x %zu", RECIPE_MAX_POINTS, n, k);
    return 0;
}

/* column j of the (n, k) projections into a new array */
static double *pca_column(const double *proj, size_t n, size_t k, size_t j, g2e_err *err)
{
    double *c = recipe_ramp(n, 0, err);
    for (size_t i = 0; c && i < n; i++)
        c[i] = proj[i * k + j];
    return c;
}

int recipe_pca_lines_png(const double *proj, size_t n, size_t k, const double *ratio, size_t first,
                         const char *what, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = pca_args(proj, n, k, ratio, err);
    if (rc)
        return rc;
    size_t m = k < 4 ? k : 4;
    double *x = recipe_ramp(n, (double)first, err), *c[4] = {0};
    char names[4][64], *title = NULL;   /* names: "PC1 (12.3%)", no words */
    render_series s[4];
    rc = G2E_ENOMEM;
    if (!x)
        goto done;
    for (size_t j = 0; j < m; j++) {
        if (!(c[j] = pca_column(proj, n, k, j, err)))
            goto done;
        snprintf(names[j], sizeof names[j], "PC%zu (%.1f%%)", j + 1, 100 * ratio[j]);
        s[j] = (render_series){.name = names[j], .x = x, .y = c[j], .n = n};
    }
    if (!(title = g2e_printf_alloc(_("The first principal components of %s against position"), what ? what : ""))) {
        rc = no_memory(err);
        goto done;
    }
    render_lines l = {.series = s, .n_series = m, .title = title, .xlabel = _("position"),
                      .ylabel = _("projection on the component"), .zero_line = 1, .markers = -1};
    rc = render_lines_png(&l, out, err);
done:
    free(x), free(title);
    for (size_t j = 0; j < 4; j++)
        free(c[j]);
    return rc;
}

int recipe_pca_scatter_png(const double *proj, size_t n, size_t k, const double *ratio, size_t first,
                           size_t a, size_t b, const char *what, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = pca_args(proj, n, k, ratio, err);
    if (rc)
        return rc;
    if (a >= k || b >= k || a == b)
        return g2e_fail(err, RENDER_E_ARG, "components %zu and %zu: two different ones of the %zu "
                        "kept are needed", a + 1, b + 1, k);
    double *x = pca_column(proj, n, k, a, err), *y = x ? pca_column(proj, n, k, b, err) : NULL;
    double *pos = y ? recipe_ramp(n, (double)first, err) : NULL;
    rc = G2E_ENOMEM;
    if (pos) {
        char *title = g2e_printf_alloc(_("PC%zu against PC%zu of %s, coloured by position"), b + 1, a + 1,
                                       what ? what : ""), xl[48], yl[48];   /* "PC1 (12.3%)": no words */
        snprintf(xl, sizeof xl, "PC%zu (%.1f%%)", a + 1, 100 * ratio[a]);
        snprintf(yl, sizeof yl, "PC%zu (%.1f%%)", b + 1, 100 * ratio[b]);
        render_scatter s = {.x = x, .y = y, .c = pos, .n = n, .cmap = RENDER_CMAP_COOLWARM,
                            .connect = 1, .radius = n > 300 ? 2 : 3, .title = title,
                            .xlabel = xl, .ylabel = yl, .cbar_label = _("position")};
        rc = title ? render_scatter_png(&s, out, err) : no_memory(err);
        free(title);
    }
    free(x), free(y), free(pos);
    return rc;
}

int recipe_pca_variance_png(const double *ratio, size_t d, const char *what, render_png *out,
                            g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (!ratio || d == 0)
        return g2e_fail(err, RENDER_E_ARG, "the variance figure needs at least one component");
    size_t n = d < 64 ? d : 64;
    double *cum = recipe_ramp(n, 0, err), run = 0;
    if (!cum)
        return G2E_ENOMEM;
    for (size_t i = 0; i < n; i++)
        cum[i] = (run += ratio[i]);
    char *title = g2e_printf_alloc(_("Explained variance of %s (first %zu of %zu components)"),
                                   what ? what : "", n, d);
    render_bars b = {.values = ratio, .n = n, .x0 = 1, .line = cum, .bar_name = _("share"),
                     .line_name = _("cumulative"), .title = title, .xlabel = _("component"),
                     .ylabel = _("fraction of the total variance"), .ymax = 1};
    int rc = title ? render_bars_png(&b, out, err) : no_memory(err);
    free(cum), free(title);
    return rc;
}

int recipe_rope_dot_png(const double *mean, const double *expected, size_t from, size_t n,
                        size_t dim, double base, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (!mean || n == 0 || n > RECIPE_MAX_POINTS)
        return g2e_fail(err, RENDER_E_ARG, "the RoPE dot curve draws 1 to %d offsets, got %zu",
                        RECIPE_MAX_POINTS, n);
    double *x = recipe_ramp(n, (double)from, err);
    if (!x)
        return G2E_ENOMEM;
    char *title = g2e_printf_alloc(_("RoPE: mean <R(0)q, R(k)q> of unit q (d=%zu, base %g)"), dim, base);
    render_series s[2] = {{.name = _("sample mean"), .x = x, .y = mean, .n = n},
                          {.name = _("expectation (2/d) PE(0)\xC2\xB7PE(k)"), .x = x, .y = expected, .n = n}};
    render_lines l = {.series = s, .n_series = expected ? 2 : 1, .title = title,
                      .xlabel = _("offset k = m - n"), .ylabel = _("dot product"), .zero_line = 1};
    int rc = title ? render_lines_png(&l, out, err) : no_memory(err);
    free(x), free(title);
    return rc;
}

int recipe_rope_rotation_png(const double *x, const double *y, size_t n, size_t pair, double theta,
                             size_t dim, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (!x || !y || n == 0 || n > RECIPE_MAX_POINTS)
        return g2e_fail(err, RENDER_E_ARG, "the RoPE rotation figure draws 1 to %d positions, got %zu",
                        RECIPE_MAX_POINTS, n);
    double *pos = recipe_ramp(n, 0, err);
    if (!pos)
        return G2E_ENOMEM;
    char *title = g2e_printf_alloc(_("RoPE pair %zu (d=%zu) turns q by %.4g rad per position"), pair, dim,
                                   theta);
    char *xl = g2e_printf_alloc(_("component %zu"), 2 * pair), *yl = g2e_printf_alloc(_("component %zu"), 2 * pair + 1);
    render_scatter s = {.x = x, .y = y, .c = pos, .n = n, .cmap = RENDER_CMAP_COOLWARM,
                        .connect = 1, .unit_circle = 1, .radius = n > 500 ? 2 : 4,
                        .title = title, .xlabel = xl, .ylabel = yl, .cbar_label = _("position")};
    int rc = title && xl && yl ? render_scatter_png(&s, out, err) : no_memory(err);
    free(pos), free(title), free(xl), free(yl);
    return rc;
}
