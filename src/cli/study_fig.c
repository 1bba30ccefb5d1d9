/* SPDX-License-Identifier: MIT */
/* study_fig.c — the study figures (see study_fig.h): arrays in, render.h draws, fig_write
 * writes. Nothing here computes a number the commands do not print. */
#include "study_fig.h"

#include "cli.h"
#include "figures.h"
#include "render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0, 1, ..., n-1 (or from + i) as doubles, in a new array; NULL (printed) when out of memory. */
static double *ramp(size_t n, size_t from)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x) {
        cli_error("out of memory for %zu points", n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (double)(from + i);
    return x;
}

int study_fig_norms(const study_norms *sn, const char *model, const char *path)
{
    double *x = ramp(sn->n, 0);
    if (!x)
        return -1;
    char title[160], zero[64];
    snprintf(title, sizeof title, "Norm of each position vector wpe[p] (%s)", model);
    snprintf(zero, sizeof zero, "position 0 (%.2f x the median)", sn->sum.first_vs_median);
    render_series s[2] = {
        {.name = "|wpe[p]|", .x = x + 1, .y = sn->norm + 1, .n = sn->n - 1},
        {.name = zero, .x = x, .y = sn->norm, .n = 1},
    };
    render_lines l = {.series = s, .n_series = 2, .title = title, .xlabel = "position p",
                      .ylabel = "L2 norm", .markers = 0};
    render_png png;
    g2e_err err;
    int rc = render_lines_png(&l, &png, &err);
    free(x);
    return fig_write(rc, &png, &err, path);
}

/* column j of the (n, k) projections into a new array */
static double *column(const pca_result *r, size_t j)
{
    double *c = malloc(r->n * sizeof *c);
    if (!c) {
        cli_error("out of memory for %zu points", r->n);
        return NULL;
    }
    for (size_t i = 0; i < r->n; i++)
        c[i] = r->proj[i * r->k + j];
    return c;
}

int study_fig_pca_lines(const pca_result *r, size_t first, const char *what, const char *path)
{
    size_t m = r->k < 4 ? r->k : 4;
    double *x = ramp(r->n, first), *c[4] = {0};
    char names[4][64], title[160];
    render_series s[4];
    int rc = -1;
    if (!x || m == 0)
        goto done;
    for (size_t j = 0; j < m; j++) {
        if (!(c[j] = column(r, j)))
            goto done;
        snprintf(names[j], sizeof names[j], "PC%zu (%.1f%%)", j + 1, 100 * pca_ratio(r, j));
        s[j] = (render_series){.name = names[j], .x = x, .y = c[j], .n = r->n};
    }
    snprintf(title, sizeof title, "The first principal components of %s against position", what);
    render_lines l = {.series = s, .n_series = m, .title = title, .xlabel = "position",
                      .ylabel = "projection on the component", .zero_line = 1, .markers = -1};
    render_png png;
    g2e_err err;
    rc = fig_write(render_lines_png(&l, &png, &err), &png, &err, path);
done:
    free(x);
    for (size_t j = 0; j < 4; j++)
        free(c[j]);
    return rc;
}

int study_fig_pca_scatter(const pca_result *r, size_t first, size_t a, size_t b,
                          const char *what, const char *path)
{
    double *x = column(r, a), *y = x ? column(r, b) : NULL, *pos = y ? ramp(r->n, first) : NULL;
    int rc = -1;
    if (pos) {
        char title[160], xl[48], yl[48];
        snprintf(title, sizeof title, "PC%zu against PC%zu of %s, coloured by position", b + 1,
                 a + 1, what);
        snprintf(xl, sizeof xl, "PC%zu (%.1f%%)", a + 1, 100 * pca_ratio(r, a));
        snprintf(yl, sizeof yl, "PC%zu (%.1f%%)", b + 1, 100 * pca_ratio(r, b));
        render_scatter s = {.x = x, .y = y, .c = pos, .n = r->n, .cmap = RENDER_CMAP_COOLWARM,
                            .connect = 1, .radius = r->n > 300 ? 2 : 3, .title = title,
                            .xlabel = xl, .ylabel = yl, .cbar_label = "position"};
        render_png png;
        g2e_err err;
        rc = fig_write(render_scatter_png(&s, &png, &err), &png, &err, path);
    }
    free(x), free(y), free(pos);
    return rc;
}

int study_fig_pca_variance(const pca_result *r, const char *what, const char *path)
{
    size_t n = r->d < 64 ? r->d : 64;
    double *ratio = malloc(n * sizeof *ratio), *cum = malloc(n * sizeof *cum), run = 0;
    if (!ratio || !cum) {
        free(ratio), free(cum);
        cli_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        ratio[i] = pca_ratio(r, i);
        cum[i] = (run += ratio[i]);
    }
    char title[160];
    snprintf(title, sizeof title, "Explained variance of %s (first %zu of %zu components)", what, n,
             r->d);
    render_bars b = {.values = ratio, .n = n, .x0 = 1, .line = cum, .bar_name = "share",
                     .line_name = "cumulative", .title = title, .xlabel = "component",
                     .ylabel = "fraction of the total variance", .ymax = 1};
    render_png png;
    g2e_err err;
    int rc = fig_write(render_bars_png(&b, &png, &err), &png, &err, path);
    free(ratio), free(cum);
    return rc;
}

int study_fig_rope_dot(const double *mean, const double *expected, size_t from, size_t n,
                       size_t dim, double base, const char *path)
{
    double *x = ramp(n, from);
    if (!x)
        return -1;
    char title[160];
    snprintf(title, sizeof title, "RoPE: mean <R(0)q, R(k)q> of unit q (d=%zu, base %g)", dim, base);
    render_series s[2] = {{.name = "sample mean", .x = x, .y = mean, .n = n},
                          {.name = "expectation (2/d) PE(0)\xC2\xB7PE(k)", .x = x, .y = expected, .n = n}};
    render_lines l = {.series = s, .n_series = expected ? 2 : 1, .title = title,
                      .xlabel = "offset k = m - n", .ylabel = "dot product", .zero_line = 1};
    render_png png;
    g2e_err err;
    int rc = fig_write(render_lines_png(&l, &png, &err), &png, &err, path);
    free(x);
    return rc;
}

int study_fig_rope_rotation(const double *xy, size_t n, size_t pair, double theta, size_t dim,
                            const char *path)
{
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *pos = ramp(n, 0);
    int rc = -1;
    if (!x || !y || !pos) {
        cli_error("out of memory for %zu points", n);
        goto done;
    }
    for (size_t p = 0; p < n; p++)
        x[p] = xy[2 * p], y[p] = xy[2 * p + 1];
    char title[160], xl[48], yl[48];
    snprintf(title, sizeof title, "RoPE pair %zu (d=%zu) turns q by %.4g rad per position", pair,
             dim, theta);
    snprintf(xl, sizeof xl, "component %zu", 2 * pair);
    snprintf(yl, sizeof yl, "component %zu", 2 * pair + 1);
    render_scatter s = {.x = x, .y = y, .c = pos, .n = n, .cmap = RENDER_CMAP_COOLWARM,
                        .connect = 1, .unit_circle = 1, .radius = n > 500 ? 2 : 4,
                        .title = title, .xlabel = xl, .ylabel = yl, .cbar_label = "position"};
    render_png png;
    g2e_err err;
    rc = fig_write(render_scatter_png(&s, &png, &err), &png, &err, path);
done:
    free(x), free(y), free(pos);
    return rc;
}
