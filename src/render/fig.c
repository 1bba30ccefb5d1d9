/* SPDX-License-Identifier: MIT */
/* fig.c — the figures of the sinusoidal PE and of GPT-2's wpe (see fig.h). */
#include "fig.h"

#include "similarity.h"
#include "sinusoid.h"
#include "sinusoid_grid.h"

#include "textfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define _(s) g2e_tr(s)

static int no_memory(g2e_err *err)
{
    return g2e_fail(err, G2E_ENOMEM, "out of memory for a figure's text");
}

int fig_pe_png(size_t len, size_t dim, double base, render_cmap cmap, int width, int height,
               render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    if (len == 0 || len > RENDER_MAX_SIDE || dim > RENDER_MAX_SIDE || len > FIG_MAX_CELLS / dim)
        return g2e_fail(err, RENDER_E_ARG, "the heatmap draws up to %d positions and %d dimensions "
                        "(%zu cells in all), got N=%zu, D=%zu", RENDER_MAX_SIDE, RENDER_MAX_SIDE,
                        FIG_MAX_CELLS, len, dim);
    float *z = malloc(len * dim * sizeof *z);
    if (!z)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %zu x %zu matrix", len, dim);
    if ((rc = sin_matrix_f32(len, dim, base, z, err))) {
        free(z);
        return rc;
    }
    char *title = textfmt_printf(_("Sinusoidal positional encoding (N=%zu, D=%zu, base %g)"), len,
                                 dim, base);
    /* the article's figsize=(12, 6): 1200 x 600 unless a size is given (or the cells need more) */
    if (width == 0 && height == 0 && len <= 1000)
        width = 1200;
    render_heatmap h = {
        .z = z, .nx = len, .ny = dim, .x_stride = dim, .y_stride = 1,
        .vmin = -1.0, .vmax = 1.0, .cmap = cmap, .origin_top = 0,
        .title = title, .xlabel = _("token position"), .ylabel = _("embedding dimension index"),
        .cbar_label = _("PE value (-1 to 1)"), .width = width, .height = height,
    };
    rc = title ? render_heatmap_png(&h, out, err) : no_memory(err);
    free(z), free(title);
    return rc;
}

double *fig_ramp(size_t n, double from, g2e_err *err)
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

int fig_dot_curve_png(uint64_t from, uint64_t to, size_t dim, double base, int width, int height,
                      render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (from > to || to - from >= 10000000)
        return g2e_fail(err, RENDER_E_ARG, "the dot curve draws 1 to 10000000 positions, got %llu..%llu",
                        (unsigned long long)from, (unsigned long long)to);
    size_t n = (size_t)(to - from) + 1;
    double *x = fig_ramp(2 * n, 0, err);
    if (!x)
        return G2E_ENOMEM;
    double *y = x + n;
    int rc = sin_dot_curve(from, to, dim, base, y, err);
    for (size_t i = 0; i < n; i++)
        x[i] = (double)(from + i);
    char *title = textfmt_printf(_("Dot product PE(0)\xC2\xB7PE(pos) (D=%zu, base %g)"), dim, base);
    char *name = textfmt_printf(_("sinusoidal, D=%zu"), dim);
    if (rc == 0 && (!title || !name))
        rc = no_memory(err);
    render_series s = {.name = name, .x = x, .y = y, .n = n};
    render_lines L = {.series = &s, .n_series = 1, .title = title, .xlabel = _("position pos"),
                      .ylabel = _("PE(0)\xC2\xB7PE(pos)"), .zero_line = 1, .width = width,
                      .height = height};
    if (rc == 0)
        rc = render_lines_png(&L, out, err);
    free(x), free(title), free(name);
    return rc;
}

int fig_by_distance_png(size_t len, size_t dim, double base, size_t max_d,
                        const double *sinusoidal, const double *learned, const char *learned_name,
                        int width, int height, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (max_d >= len || max_d > SIZE_MAX / sizeof(double) / 2 - 1)
        return g2e_fail(err, RENDER_E_ARG, "the largest distance (%zu) must be less than N (%zu)",
                        max_d, len);
    size_t n = max_d + 1;
    double *x = fig_ramp(sinusoidal ? n : 2 * n, 0, err), *own = x ? x + n : NULL;
    int rc = !x ? G2E_ENOMEM : sinusoidal ? 0 : sin_by_distance(len, dim, base, max_d, own, err);
    if (rc) {
        free(x);
        return rc;
    }
    char *title = textfmt_printf(_("Similarity by distance (mean cosine over positions 0..%zu)"),
                                 len - 1);
    char *name = textfmt_printf(_("sinusoidal (D=%zu, base %g)"), dim, base);
    render_series s[2] = {{.name = name, .x = x, .y = sinusoidal ? sinusoidal : own, .n = n},
                          {.name = learned_name ? learned_name : _("learned"), .x = x,
                           .y = learned, .n = n}};
    render_lines L = {.series = s, .n_series = learned ? 2 : 1, .title = title,
                      .xlabel = _("distance d"), .ylabel = _("mean cosine of positions d apart"),
                      .zero_line = 1, .width = width, .height = height};
    rc = title && name ? render_lines_png(&L, out, err) : no_memory(err);
    free(x), free(title), free(name);
    return rc;
}

int fig_rotation_png(size_t len, size_t dim, size_t pair, double base, render_cmap cmap,
                     int width, int height, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = sin_check_params(dim, base, err);
    if (rc)
        return rc;
    if (len == 0 || len > 1000000 || pair >= dim / 2)
        return g2e_fail(err, RENDER_E_ARG, "plot rotation draws 1 to 1000000 positions of a pair "
                        "0..%zu (D=%zu), got N=%zu, pair %zu", dim / 2 - 1, dim, len, pair);
    double *xyc = fig_ramp(3 * len, -2.0 * (double)len, err);   /* x, y, then the positions */
    if (!xyc || (rc = sin_pair_points(len, dim, pair, base, xyc, xyc + len, err))) {
        free(xyc);
        return xyc ? rc : G2E_ENOMEM;
    }
    char *title = textfmt_printf(_("Pair %zu of the sinusoidal PE turns by %.4g rad per position (D=%zu, base %g)"),
                                 pair, sin_omega(pair, dim, base), dim, base);
    char *xl = textfmt_printf(_("PE(pos, %zu) = cos(pos\xC2\xB7\xCF\x89)"), 2 * pair + 1);
    char *yl = textfmt_printf(_("PE(pos, %zu) = sin(pos\xC2\xB7\xCF\x89)"), 2 * pair);
    render_scatter s = {
        .x = xyc, .y = xyc + len, .c = xyc + 2 * len, .n = len, .cmap = cmap,
        .connect = 1, .unit_circle = 1, .radius = len > 500 ? 2 : 4,
        .title = title, .xlabel = xl, .ylabel = yl, .cbar_label = _("position pos"),
        .width = width, .height = height,
    };
    rc = title && xl && yl ? render_scatter_png(&s, out, err) : no_memory(err);
    free(xyc), free(title), free(xl), free(yl);
    return rc;
}
