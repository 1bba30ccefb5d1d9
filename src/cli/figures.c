/* figures.c — the program's figures from their data; see figures.h. */
#include "figures.h"

#include "cli.h"
#include "plot.h"
#include "sinusoid.h"

#include <stdio.h>
#include <stdlib.h>

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
    if (max_d >= len || max_d > SIZE_MAX / (2 * sizeof(double)) - 1) {
        cli_error("the largest distance (%zu) must be less than N (%zu)", max_d, len);
        return -1;
    }
    size_t n = max_d + 1;
    double *x = malloc(2 * n * sizeof *x);
    if (!x) {
        cli_error("out of memory for %zu points", n);
        return -1;
    }
    double *y = x + n;
    int rc = -1;
    if (sin_by_distance(len, dim, base, max_d, y, &err)) {
        cli_error("%s", err.msg);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = (double)i;
    char title[160], name[96];
    snprintf(title, sizeof title, "Similarity by distance (mean cosine over positions 0..%zu)",
             len - 1);
    snprintf(name, sizeof name, "sinusoidal (D=%zu, base %g)", dim, base);
    plot_series s[2] = {{.name = name, .x = x, .y = y, .n = n},
                        {.name = learned_name ? learned_name : "learned", .x = x, .y = learned,
                         .n = n}};
    plot_lines L = {.series = s, .n_series = learned ? 2 : 1, .title = title,
                    .xlabel = "distance d", .ylabel = "mean cosine of positions d apart",
                    .zero_line = 1, .width = width, .height = height};
    rc = plot_lines_png(&L, path);
done:
    free(x);
    return rc;
}
