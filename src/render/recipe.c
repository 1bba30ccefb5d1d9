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
