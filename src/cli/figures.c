/* SPDX-License-Identifier: MIT */
/* figures.c — the program's figures from their data; see figures.h. */
#include "figures.h"
#include "i18n.h"

#include "cli.h"
#include "out.h"
#include "similarity.h"
#include "sinusoid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fig_write(int rc, render_png *png, const g2e_err *err, const char *path)
{
    if (rc) {
        cli_error("%s", err->msg);
        render_png_free(png);
        return -1;
    }
    out_file o;
    if (out_open(&o, path, 1) != 0) {
        render_png_free(png);
        return -1;
    }
    if (fwrite(png->data, 1, png->len, o.f) != png->len) {
        cli_error("writing the PNG to %s failed", o.name);
        out_abort(&o);
        render_png_free(png);
        return -1;
    }
    render_png_free(png);
    return out_commit(&o);
}

/* Prints a library error and returns -1. */
static int lib_fail(const g2e_err *err)
{
    cli_error("%s", err->msg);
    return -1;
}

int fig_pe_heatmap(size_t len, size_t dim, double base, const char *path, int width, int height)
{
    return fig_pe_heatmap_cmap(len, dim, base, RENDER_CMAP_COOLWARM, path, width, height);
}

int fig_pe_heatmap_cmap(size_t len, size_t dim, double base, render_cmap cmap, const char *path,
                        int width, int height)
{
    g2e_err err;
    g2e_clear(&err);
    if (sin_check_params(dim, base, &err))
        return lib_fail(&err);
    if (len == 0 || len > RENDER_MAX_SIDE || dim > RENDER_MAX_SIDE || len > FIG_MAX_CELLS / dim) {
        cli_error("the heatmap draws up to %d positions and %d dimensions (%zu cells in all), "
                  "got N=%zu, D=%zu", RENDER_MAX_SIDE, RENDER_MAX_SIDE, FIG_MAX_CELLS, len, dim);
        return -1;
    }
    float *z = malloc(len * dim * sizeof *z);
    if (!z) {
        cli_error("out of memory for a %zu x %zu matrix", len, dim);
        return -1;
    }
    sin_table tab;
    int rc = sin_table_init(&tab, dim, base, &err);
    for (size_t p = 0; p < len && rc == 0; p++)
        rc = sin_table_row_f32(&tab, p, z + p * dim, &err);
    sin_table_free(&tab);
    if (rc) {
        free(z);
        return lib_fail(&err);
    }
    char title[160];
    snprintf(title, sizeof title, _("Sinusoidal positional encoding (N=%zu, D=%zu, base %g)"), len,
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
    render_png png;
    rc = render_heatmap_png(&h, &png, &err);
    free(z);
    return fig_write(rc, &png, &err, path);
}

int fig_dot_curve(uint64_t from, uint64_t to, size_t dim, double base, const char *path,
                  int width, int height)
{
    g2e_err err;
    g2e_clear(&err);
    if (from > to || to - from >= 10000000) {
        cli_error("the dot curve draws 1 to 10000000 positions, got %llu..%llu",
                  (unsigned long long)from, (unsigned long long)to);
        return -1;
    }
    size_t n = (size_t)(to - from) + 1;
    double *x = malloc(2 * n * sizeof *x);
    if (!x) {
        cli_error("out of memory for %zu points", n);
        return -1;
    }
    double *y = x + n;
    if (sin_dot_curve(from, to, dim, base, y, &err)) {
        free(x);
        return lib_fail(&err);
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (double)(from + i);
    char title[160], name[96];
    snprintf(title, sizeof title, _("Dot product PE(0)\xC2\xB7PE(pos) (D=%zu, base %g)"), dim, base);
    snprintf(name, sizeof name, _("sinusoidal, D=%zu"), dim);
    render_series s = {.name = name, .x = x, .y = y, .n = n};
    render_lines L = {.series = &s, .n_series = 1, .title = title, .xlabel = _("position pos"),
                      .ylabel = _("PE(0)\xC2\xB7PE(pos)"), .zero_line = 1, .width = width,
                      .height = height};
    render_png png;
    int rc = render_lines_png(&L, &png, &err);
    free(x);
    return fig_write(rc, &png, &err, path);
}

int fig_by_distance(size_t len, size_t dim, double base, size_t max_d, const double *learned,
                    const char *learned_name, const char *path, int width, int height)
{
    g2e_err err;
    g2e_clear(&err);
    if (max_d >= len || max_d > SIZE_MAX / sizeof(double) - 1) {
        cli_error("the largest distance (%zu) must be less than N (%zu)", max_d, len);
        return -1;
    }
    double *y = malloc((max_d + 1) * sizeof *y);
    if (!y) {
        cli_error("out of memory for %zu points", max_d + 1);
        return -1;
    }
    int rc = -1;
    if (sin_by_distance(len, dim, base, max_d, y, &err))
        lib_fail(&err);
    else
        rc = fig_by_distance_curves(len, dim, base, max_d, y, learned, learned_name, path,
                                    width, height);
    free(y);
    return rc;
}

int fig_by_distance_curves(size_t len, size_t dim, double base, size_t max_d,
                           const double *sinusoidal, const double *learned,
                           const char *learned_name, const char *path, int width, int height)
{
    if (max_d >= len || max_d > SIZE_MAX / sizeof(double) - 1) {
        cli_error("the largest distance (%zu) must be less than N (%zu)", max_d, len);
        return -1;
    }
    size_t n = max_d + 1;
    double *x = malloc(n * sizeof *x);
    if (!x) {
        cli_error("out of memory for %zu points", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (double)i;
    char title[160], name[96];
    snprintf(title, sizeof title, _("Similarity by distance (mean cosine over positions 0..%zu)"),
             len - 1);
    snprintf(name, sizeof name, _("sinusoidal (D=%zu, base %g)"), dim, base);
    render_series s[2] = {{.name = name, .x = x, .y = sinusoidal, .n = n},
                          {.name = learned_name ? learned_name : _("learned"), .x = x,
                           .y = learned, .n = n}};
    render_lines L = {.series = s, .n_series = learned ? 2 : 1, .title = title,
                      .xlabel = _("distance d"), .ylabel = _("mean cosine of positions d apart"),
                      .zero_line = 1, .width = width, .height = height};
    g2e_err err;
    g2e_clear(&err);
    render_png png;
    int rc = render_lines_png(&L, &png, &err);
    free(x);
    return fig_write(rc, &png, &err, path);
}

/* The points of pair `pair` for positions 0..len-1 into xyc[3 * len] (x, then y, then pos). */
static int rotation_points(size_t len, size_t dim, size_t pair, double base, double *xyc,
                           g2e_err *err)
{
    sin_table tab;
    double *row = malloc(dim * sizeof *row);
    if (!row)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a row of %zu values", dim);
    int rc = sin_table_init(&tab, dim, base, err);
    for (size_t p = 0; p < len && rc == 0; p++) {
        rc = sin_table_row_f64(&tab, p, row, err);
        xyc[p] = row[2 * pair + 1];            /* cos(pos ω_i) */
        xyc[len + p] = row[2 * pair];          /* sin(pos ω_i) */
        xyc[2 * len + p] = (double)p;
    }
    sin_table_free(&tab);
    free(row);
    return rc;
}

int fig_rotation(size_t len, size_t dim, size_t pair, double base, render_cmap cmap,
                 const char *path, int width, int height)
{
    g2e_err err;
    g2e_clear(&err);
    if (sin_check_params(dim, base, &err))
        return lib_fail(&err);
    if (len == 0 || len > 1000000 || pair >= dim / 2) {
        cli_error("plot rotation draws 1 to 1000000 positions of a pair 0..%zu (D=%zu), got N=%zu, pair %zu",
                  dim / 2 - 1, dim, len, pair);
        return -1;
    }
    double *xyc = malloc(3 * len * sizeof *xyc);
    if (!xyc) {
        cli_error("out of memory for %zu points", len);
        return -1;
    }
    if (rotation_points(len, dim, pair, base, xyc, &err)) {
        free(xyc);
        return lib_fail(&err);
    }
    char title[200], xl[64], yl[64];
    snprintf(title, sizeof title, _("Pair %zu of the sinusoidal PE turns by %.4g rad per position (D=%zu, base %g)"),
             pair, sin_omega(pair, dim, base), dim, base);
    snprintf(xl, sizeof xl, _("PE(pos, %zu) = cos(pos\xC2\xB7\xCF\x89)"), 2 * pair + 1);
    snprintf(yl, sizeof yl, _("PE(pos, %zu) = sin(pos\xC2\xB7\xCF\x89)"), 2 * pair);
    render_scatter s = {
        .x = xyc, .y = xyc + len, .c = xyc + 2 * len, .n = len, .cmap = cmap,
        .connect = 1, .unit_circle = 1, .radius = len > 500 ? 2 : 4,
        .title = title, .xlabel = xl, .ylabel = yl, .cbar_label = _("position pos"),
        .width = width, .height = height,
    };
    render_png png;
    int rc = render_scatter_png(&s, &png, &err);
    free(xyc);
    return fig_write(rc, &png, &err, path);
}

/* ---- from GPT-2's weights ---- */

void fig_model_name(const g2e_model *m, char *buf, size_t len)
{
    snprintf(buf, len, "%s", m->size_name ? m->size_name : _("unnamed model"));
}

int fig_learned_by_distance(const g2e_model *m, size_t len, size_t max_d, double *out)
{
    g2e_err err;
    g2e_clear(&err);
    if (sim_learned_by_distance(m, len, max_d, out, NULL, &err)) {
        cli_error("wpe: %s", err.msg);
        return -1;
    }
    return 0;
}

double fig_abs_percentile(const float *x, size_t n, double percentile)
{
    g2e_err err;
    g2e_clear(&err);
    double q;
    int fell_back = 0;
    if (sim_abs_percentile(x, n, percentile, &q, &fell_back, &err)) {
        cli_error("%s", err.msg);
        return -1;
    }
    if (fell_back)
        cli_note("the %g-th percentile of |x| is 0; using the largest finite |x| (%g) instead",
                 percentile, q);
    return q;
}

/* wpe as float32 (n_ctx, n_embd), after checking it fits the figures' budget. */
static float *load_wpe(const g2e_model *m)
{
    if (m->n_ctx > FIG_MAX_CELLS / m->n_embd) {
        cli_error("wpe (%zu x %zu) is larger than the figures handle (%zu values)", m->n_ctx,
                  m->n_embd, FIG_MAX_CELLS);
        return NULL;
    }
    float *wpe = NULL;
    g2e_err err;
    g2e_clear(&err);
    if (sim_load_wpe(m, &wpe, &err)) {
        cli_error("%s", err.msg);
        return NULL;
    }
    return wpe;
}

int fig_wpe_heatmap(const g2e_model *m, double percentile, render_cmap cmap, const char *path,
                    int width, int height, double *q_out)
{
    if (m->n_ctx > RENDER_MAX_SIDE || m->n_embd > RENDER_MAX_SIDE) {
        cli_error("a heatmap draws up to %d positions and dimensions, wpe is %zu x %zu",
                  RENDER_MAX_SIDE, m->n_ctx, m->n_embd);
        return -1;
    }
    float *wpe = load_wpe(m);
    if (!wpe)
        return -1;
    double q = fig_abs_percentile(wpe, m->n_ctx * m->n_embd, percentile);
    if (q < 0) {
        free(wpe);
        return -1;
    }
    char name[64], title[200], bar[120];
    fig_model_name(m, name, sizeof name);
    snprintf(title, sizeof title, _("Learned position embeddings wpe of %s (%zu positions x %zu dims)"),
             name, m->n_ctx, m->n_embd);
    snprintf(bar, sizeof bar, _("wpe value (clipped at \xC2\xB1%.3g = p%g of |x|)"), q, percentile);
    render_heatmap h = {
        .z = wpe, .nx = m->n_ctx, .ny = m->n_embd, .x_stride = m->n_embd, .y_stride = 1,
        .vmin = -q, .vmax = q, .cmap = cmap, .origin_top = 0,
        .title = title, .xlabel = _("token position"), .ylabel = _("dimension index"),
        .cbar_label = bar, .width = width, .height = height,
    };
    g2e_err err;
    g2e_clear(&err);
    render_png png;
    int rc = render_heatmap_png(&h, &png, &err);
    free(wpe);
    rc = fig_write(rc, &png, &err, path);
    if (rc == 0 && q_out)
        *q_out = q;
    return rc;
}

int fig_wpe_cosine(const g2e_model *m, render_cmap cmap, const char *path, int width, int height)
{
    if (m->n_ctx > RENDER_MAX_SIDE) {
        cli_error("a heatmap draws up to %d positions, wpe has %zu", RENDER_MAX_SIDE, m->n_ctx);
        return -1;
    }
    size_t R = m->n_ctx;
    double *M = NULL;
    g2e_err err;
    g2e_clear(&err);
    if (sim_wpe_cosine_matrix(m, R, &M, &err)) {
        cli_error("wpe: %s", err.msg);
        return -1;
    }
    float *z = malloc(R * R * sizeof *z);
    if (!z) {
        cli_error("out of memory for a %zu x %zu matrix", R, R);
        free(M);
        return -1;
    }
    for (size_t i = 0; i < R * R; i++)
        z[i] = (float)M[i];
    free(M);
    char name[64], title[200];
    fig_model_name(m, name, sizeof name);
    snprintf(title, sizeof title, _("Cosine similarity of positions: wpe of %s (%zu x %zu)"), name,
             R, R);
    render_heatmap h = {
        .z = z, .nx = R, .ny = R, .x_stride = 1, .y_stride = R,
        .vmin = -1.0, .vmax = 1.0, .cmap = cmap, .origin_top = 1, .square = 1,
        .title = title, .xlabel = _("position j"), .ylabel = _("position i"),
        .cbar_label = _("cos(wpe[i], wpe[j])"), .width = width, .height = height,
    };
    render_png png;
    int rc = render_heatmap_png(&h, &png, &err);
    free(z);
    return fig_write(rc, &png, &err, path);
}

int fig_wpe_by_distance(const g2e_model *m, size_t len, size_t max_d, double base,
                        const char *path, int width, int height)
{
    if (max_d >= len) {
        cli_error("the largest distance (%zu) must be less than N (%zu)", max_d, len);
        return -1;
    }
    double *curves = malloc(2 * (max_d + 1) * sizeof *curves);
    if (!curves) {
        cli_error("out of memory for %zu points", max_d + 1);
        return -1;
    }
    double *sinus = curves, *learned = curves + max_d + 1;
    int rc = -1;
    g2e_err err;
    g2e_clear(&err);
    if (fig_learned_by_distance(m, len, max_d, learned))
        goto done;
    if (sin_by_distance(len, m->n_embd, base, max_d, sinus, &err)) {
        lib_fail(&err);
        goto done;
    }
    char name[64], legend[120];
    fig_model_name(m, name, sizeof name);
    snprintf(legend, sizeof legend, _("learned wpe (%s)"), name);
    rc = fig_by_distance_curves(len, m->n_embd, base, max_d, sinus, learned, legend, path, width,
                                height);
done:
    free(curves);
    return rc;
}
