/* figures.c — the program's figures from their data; see figures.h. */
#include "figures.h"

#include "cli.h"
#include "plot.h"
#include "similarity.h"
#include "sinusoid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fig_pe_heatmap(size_t len, size_t dim, double base, const char *path, int width, int height)
{
    g2e_err err;
    g2e_clear(&err);
    if (sin_check_params(dim, base, &err)) {
        cli_error("%s", err.msg);
        return -1;
    }
    if (len == 0 || len > PLOT_MAX_SIDE || dim > PLOT_MAX_SIDE || len > FIG_MAX_CELLS / dim) {
        cli_error("the heatmap draws up to %d positions and %d dimensions (%zu cells in all), "
                  "got N=%zu, D=%zu", PLOT_MAX_SIDE, PLOT_MAX_SIDE, FIG_MAX_CELLS, len, dim);
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
        cli_error("%s", err.msg);
        free(z);
        return -1;
    }
    char title[160];
    snprintf(title, sizeof title, "Sinusoidal positional encoding (N=%zu, D=%zu, base %g)", len,
             dim, base);
    plot_heatmap h = {
        .z = z, .nx = len, .ny = dim, .x_stride = dim, .y_stride = 1,
        .vmin = -1.0, .vmax = 1.0, .origin_top = 0,
        .title = title, .xlabel = "token position", .ylabel = "dimension index",
        .cbar_label = "PE(pos, i)", .width = width, .height = height,
    };
    rc = plot_heatmap_png(&h, path);
    free(z);
    return rc;
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
    int rc = -1;
    if (sin_dot_curve(from, to, dim, base, y, &err)) {
        cli_error("%s", err.msg);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (double)(from + i);
    char title[160], name[96];
    snprintf(title, sizeof title, "Dot product PE(0)\xC2\xB7PE(pos) (D=%zu, base %g)", dim, base);
    snprintf(name, sizeof name, "sinusoidal, D=%zu", dim);
    plot_series s = {.name = name, .x = x, .y = y, .n = n};
    plot_lines L = {.series = &s, .n_series = 1, .title = title, .xlabel = "position pos",
                    .ylabel = "PE(0)\xC2\xB7PE(pos)", .zero_line = 1, .width = width,
                    .height = height};
    rc = plot_lines_png(&L, path);
done:
    free(x);
    return rc;
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
        cli_error("%s", err.msg);
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
    snprintf(title, sizeof title, "Similarity by distance (mean cosine over positions 0..%zu)",
             len - 1);
    snprintf(name, sizeof name, "sinusoidal (D=%zu, base %g)", dim, base);
    plot_series s[2] = {{.name = name, .x = x, .y = sinusoidal, .n = n},
                        {.name = learned_name ? learned_name : "learned", .x = x, .y = learned,
                         .n = n}};
    plot_lines L = {.series = s, .n_series = learned ? 2 : 1, .title = title,
                    .xlabel = "distance d", .ylabel = "mean cosine of positions d apart",
                    .zero_line = 1, .width = width, .height = height};
    int rc = plot_lines_png(&L, path);
    free(x);
    return rc;
}

/* ---- from GPT-2's weights ---- */

void fig_model_name(const g2e_model *m, char *buf, size_t len)
{
    snprintf(buf, len, "%s", m->size_name ? m->size_name : "unnamed model");
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

/* The cosine matrix of wpe rows 0..len-1 into a new (len, len) buffer. */
static double *wpe_cosines(const g2e_model *m, size_t len)
{
    if (len == 0 || len > m->n_ctx) {
        cli_error("the learned curve covers positions 0..N-1 with 1 <= N <= n_ctx (%zu), got N=%zu",
                  m->n_ctx, len);
        return NULL;
    }
    if (len > FIG_MAX_CELLS / len) {
        cli_error("a %zu x %zu cosine matrix is more than this computes at once (%zu values)",
                  len, len, FIG_MAX_CELLS);
        return NULL;
    }
    float *wpe = load_wpe(m);
    if (!wpe)
        return NULL;
    double *M = malloc(len * len * sizeof *M);
    g2e_err err;
    g2e_clear(&err);
    if (!M)
        cli_error("out of memory for a %zu x %zu cosine matrix", len, len);
    else if (sim_cosine_matrix(wpe, len, m->n_embd, M, &err)) {
        cli_error("wpe: %s", err.msg);
        free(M);
        M = NULL;
    }
    free(wpe);
    return M;
}

int fig_learned_by_distance(const g2e_model *m, size_t len, size_t max_d, double *out)
{
    if (max_d >= len) {
        cli_error("the largest distance (%zu) must be less than N (%zu)", max_d, len);
        return -1;
    }
    double *M = wpe_cosines(m, len);
    if (!M)
        return -1;
    double *mean = malloc(len * sizeof *mean);
    if (!mean) {
        cli_error("out of memory for %zu values", len);
        free(M);
        return -1;
    }
    sim_by_distance(M, len, mean, NULL);
    memcpy(out, mean, (max_d + 1) * sizeof *out);
    free(mean);
    free(M);
    return 0;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

double fig_abs_percentile(const float *x, size_t n, double percentile)
{
    float *a = malloc((n ? n : 1) * sizeof *a);
    if (!a) {
        cli_error("out of memory for %zu values", n);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = fabsf(x[i]);
    qsort(a, n, sizeof *a, cmp_float);
    /* nearest rank: the smallest value with at least percentile % of |x| at or below it */
    double r = ceil(percentile / 100.0 * (double)n);
    size_t k = r < 1 ? 0 : (size_t)r - 1;
    if (k >= n)
        k = n ? n - 1 : 0;
    double q = n ? a[k] : 0;
    free(a);
    if (!(q > 0) || !isfinite(q)) {
        /* all zeros below the percentile (or a non-finite value): fall back to the largest
         * finite |x|, else 1, so that the map still has a range */
        cli_note("the %g-th percentile of |x| is %g; using the largest finite |x| instead",
                 percentile, q);
        q = 0;
        for (size_t i = 0; i < n; i++)
            if (isfinite(x[i]) && fabsf(x[i]) > q)
                q = fabsf(x[i]);
        if (q == 0)
            q = 1;
    }
    return q;
}

int fig_wpe_heatmap(const g2e_model *m, double percentile, const char *path, int width,
                    int height, double *q_out)
{
    if (!(percentile > 0.0 && percentile <= 100.0)) {
        cli_error("the percentile must be in (0, 100], got %g", percentile);
        return -1;
    }
    if (m->n_ctx > PLOT_MAX_SIDE || m->n_embd > PLOT_MAX_SIDE) {
        cli_error("a heatmap draws up to %d positions and dimensions, wpe is %zu x %zu",
                  PLOT_MAX_SIDE, m->n_ctx, m->n_embd);
        return -1;
    }
    float *wpe = load_wpe(m);
    if (!wpe)
        return -1;
    size_t n = m->n_ctx * m->n_embd;
    double q = fig_abs_percentile(wpe, n, percentile);
    if (q < 0) {
        free(wpe);
        return -1;
    }
    char name[64], title[200], bar[120];
    fig_model_name(m, name, sizeof name);
    snprintf(title, sizeof title, "Learned position embeddings wpe of %s (%zu positions x %zu dims)",
             name, m->n_ctx, m->n_embd);
    snprintf(bar, sizeof bar, "wpe value (clipped at \xC2\xB1%.3g = p%g of |x|)", q, percentile);
    plot_heatmap h = {
        .z = wpe, .nx = m->n_ctx, .ny = m->n_embd, .x_stride = m->n_embd, .y_stride = 1,
        .vmin = -q, .vmax = q, .origin_top = 0,
        .title = title, .xlabel = "token position", .ylabel = "dimension index",
        .cbar_label = bar, .width = width, .height = height,
    };
    int rc = plot_heatmap_png(&h, path);
    free(wpe);
    if (rc == 0 && q_out)
        *q_out = q;
    return rc;
}

int fig_wpe_cosine(const g2e_model *m, const char *path, int width, int height)
{
    if (m->n_ctx > PLOT_MAX_SIDE) {
        cli_error("a heatmap draws up to %d positions, wpe has %zu", PLOT_MAX_SIDE, m->n_ctx);
        return -1;
    }
    size_t R = m->n_ctx;
    double *M = wpe_cosines(m, R);
    if (!M)
        return -1;
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
    snprintf(title, sizeof title, "Cosine similarity of positions: wpe of %s (%zu x %zu)", name,
             R, R);
    plot_heatmap h = {
        .z = z, .nx = R, .ny = R, .x_stride = 1, .y_stride = R,
        .vmin = -1.0, .vmax = 1.0, .origin_top = 1,
        .title = title, .xlabel = "position j", .ylabel = "position i",
        .cbar_label = "cos(wpe[i], wpe[j])", .width = width, .height = height,
    };
    /* a square matrix gets square cells unless the caller chose the size: the default
     * image is narrowed (or lowered) until its data area is square */
    plot_layout L;
    int rc = -1;
    if (width == 0 && height == 0 && plot_heatmap_layout(&h, &L) == 0) {
        if (L.area_w > L.area_h)
            h.width = L.width - (L.area_w - L.area_h), h.height = L.height;
        else
            h.width = L.width, h.height = L.height - (L.area_h - L.area_w);
    }
    rc = plot_heatmap_png(&h, path);
    free(z);
    return rc;
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
        cli_error("%s", err.msg);
        goto done;
    }
    char name[64], legend[120];
    fig_model_name(m, name, sizeof name);
    snprintf(legend, sizeof legend, "learned wpe (%s)", name);
    rc = fig_by_distance_curves(len, m->n_embd, base, max_d, sinus, learned, legend, path, width,
                                height);
done:
    free(curves);
    return rc;
}
