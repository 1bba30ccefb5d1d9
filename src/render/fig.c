/* SPDX-License-Identifier: MIT */
/* fig.c — the figures of the sinusoidal PE and of GPT-2's wpe (see fig.h). */
#include "fig.h"

#include "recipe.h"

#include "textfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define _(s) g2e_tr(s)

static int no_memory(g2e_err *err)
{
    return g2e_fail(err, G2E_ENOMEM, "out of memory for a figure's text");
}

/* The door's error as a figure's: its message, G2E_ENOMEM or G2E_EINVAL. */
int fig_door_fail(g2e_err *err, const gpt2embed_error *e)
{
    return g2e_fail(err, e->status == GPT2EMBED_E_NOMEM ? G2E_ENOMEM : G2E_EINVAL, "%s", e->message);
}

/* The sinusoidal encoding's own checks of dim and base (gpt2embed_sinusoidal of no rows). */
static int check_params(size_t dim, double base, g2e_err *err)
{
    gpt2embed_error e;
    return gpt2embed_sinusoidal(0, 0, dim, base, NULL, &e) ? fig_door_fail(err, &e) : 0;
}

int fig_pe_png(size_t len, size_t dim, double base, render_cmap cmap, int width, int height,
               render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_params(dim, base, err);
    if (rc)
        return rc;
    if (len == 0 || len > RENDER_MAX_SIDE || dim > RENDER_MAX_SIDE || len > FIG_MAX_CELLS / dim)
        return g2e_fail(err, RENDER_E_ARG, "the heatmap draws up to %d positions and %d dimensions "
                        "(%zu cells in all), got N=%zu, D=%zu", RENDER_MAX_SIDE, RENDER_MAX_SIDE,
                        FIG_MAX_CELLS, len, dim);
    float *z = malloc(len * dim * sizeof *z);
    if (!z)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %zu x %zu matrix", len, dim);
    gpt2embed_error e;
    if (gpt2embed_sinusoidal(0, len, dim, base, z, &e)) {
        free(z);
        return fig_door_fail(err, &e);
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

int fig_dot_curve_png(uint64_t from, uint64_t to, size_t dim, double base, int width, int height,
                      render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (from > to || to - from >= 10000000)
        return g2e_fail(err, RENDER_E_ARG, "the dot curve draws 1 to 10000000 positions, got %llu..%llu",
                        (unsigned long long)from, (unsigned long long)to);
    size_t n = (size_t)(to - from) + 1;
    double *x = recipe_ramp(2 * n, 0, err);
    if (!x)
        return G2E_ENOMEM;
    double *y = x + n;
    gpt2embed_error e;
    int rc = gpt2embed_sinusoid_dot_curve(from, to, dim, base, y, &e) ? fig_door_fail(err, &e) : 0;
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
    double *own = sinusoidal ? NULL : malloc((max_d + 1) * sizeof *own);
    gpt2embed_error e;
    int rc = !sinusoidal && !own ? g2e_fail(err, G2E_ENOMEM, "out of memory for %zu points", max_d + 1)
           : own && gpt2embed_sinusoid_by_distance(len, dim, base, max_d, own, &e) ? fig_door_fail(err, &e) : 0;
    if (rc == 0)
        rc = recipe_by_distance_png(len, dim, base, max_d, sinusoidal ? sinusoidal : own, learned,
                                    learned_name, width, height, out, err);
    free(own);
    return rc;
}

int fig_rotation_png(size_t len, size_t dim, size_t pair, double base, render_cmap cmap,
                     int width, int height, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_params(dim, base, err);
    if (rc)
        return rc;
    if (len == 0 || len > 1000000 || pair >= dim / 2)
        return g2e_fail(err, RENDER_E_ARG, "plot rotation draws 1 to 1000000 positions of a pair "
                        "0..%zu (D=%zu), got N=%zu, pair %zu", dim / 2 - 1, dim, len, pair);
    double *xy = malloc(2 * len * sizeof *xy);
    if (!xy)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for %zu points", len);
    double omega;
    gpt2embed_error e;
    if (gpt2embed_sinusoid_pair(len, dim, pair, base, xy, xy + len, &omega, &e))
        rc = fig_door_fail(err, &e);
    else
        rc = recipe_rotation_png(xy, xy + len, len, pair, omega, dim, base, cmap, width, height, out, err);
    free(xy);
    return rc;
}
