/* SPDX-License-Identifier: MIT */
/* fig_study.c — the figures of the study commands and the report (see fig.h): arrays in,
 * render.h's charts out. Nothing here computes a number the commands do not print. */
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

int fig_order_png(const gpt2embed_model *m, const uint32_t *a, const uint32_t *b, size_t n,
                  const char *const *labels, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    size_t C = gpt2embed_n_embd(m);
    if (n == 0 || n > RENDER_MAX_ROWS)
        return g2e_fail(err, RENDER_E_ARG, "the order figure draws 1 to %d positions, got %zu",
                        RENDER_MAX_ROWS, n);
    float *x = malloc(2 * n * C * sizeof *x);
    gpt2embed_error e;
    int rc = x ? 0 : g2e_fail(err, G2E_ENOMEM, "out of memory for %zu positions", n);
    if (!rc && (gpt2embed_embed(m, a, n, 0, x, &e) || gpt2embed_embed(m, b, n, 0, x + n * C, &e)))
        rc = fig_door_fail(err, &e);
    if (!rc)
        rc = recipe_order_png(x, x + n * C, n, C, labels, out, err);
    free(x);
    return rc;
}

int fig_norms_png(const pcasrc_norms *sn, const char *model, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    double *x = fig_ramp(sn->n, 0, err);
    if (!x)
        return G2E_ENOMEM;
    char *title = textfmt_printf(_("Norm of each position vector wpe[p] (%s)"), model);
    char *zero = textfmt_printf(_("position 0 (%.2f x the median)"), sn->sum.first_vs_median);
    if (!title || !zero) {
        free(x), free(title), free(zero);
        return no_memory(err);
    }
    render_series s[2] = {
        {.name = "|wpe[p]|", .x = x + 1, .y = sn->norm + 1, .n = sn->n - 1},
        {.name = zero, .x = x, .y = sn->norm, .n = 1},
    };
    render_lines l = {.series = s, .n_series = 2, .title = title, .xlabel = _("position p"),
                      .ylabel = _("L2 norm"), .markers = 0};
    int rc = render_lines_png(&l, out, err);
    free(x), free(title), free(zero);
    return rc;
}

/* column j of the (n, k) projections into a new array */
static double *column(const pca_result *r, size_t j, g2e_err *err)
{
    double *c = malloc((r->n ? r->n : 1) * sizeof *c);
    if (!c) {
        g2e_fail(err, G2E_ENOMEM, "out of memory for %zu points", r->n);
        return NULL;
    }
    for (size_t i = 0; i < r->n; i++)
        c[i] = r->proj[i * r->k + j];
    return c;
}

int fig_pca_lines_png(const pca_result *r, size_t first, const char *what, render_png *out,
                      g2e_err *err)
{
    memset(out, 0, sizeof *out);
    size_t m = r->k < 4 ? r->k : 4;
    double *x = fig_ramp(r->n, (double)first, err), *c[4] = {0};
    char names[4][64], *title = NULL;   /* names: "PC1 (12.3%)", no words */
    render_series s[4];
    int rc = m ? G2E_ENOMEM : g2e_fail(err, RENDER_E_ARG, "no component to draw");
    if (!x || m == 0)
        goto done;
    for (size_t j = 0; j < m; j++) {
        if (!(c[j] = column(r, j, err)))
            goto done;
        snprintf(names[j], sizeof names[j], "PC%zu (%.1f%%)", j + 1, 100 * pca_ratio(r, j));
        s[j] = (render_series){.name = names[j], .x = x, .y = c[j], .n = r->n};
    }
    if (!(title = textfmt_printf(_("The first principal components of %s against position"), what))) {
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

int fig_pca_scatter_png(const pca_result *r, size_t first, size_t a, size_t b, const char *what,
                        render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    double *x = column(r, a, err), *y = x ? column(r, b, err) : NULL;
    double *pos = y ? fig_ramp(r->n, (double)first, err) : NULL;
    int rc = G2E_ENOMEM;
    if (pos) {
        char *title = textfmt_printf(_("PC%zu against PC%zu of %s, coloured by position"), b + 1, a + 1,
                               what), xl[48], yl[48];   /* "PC1 (12.3%)": no words */
        snprintf(xl, sizeof xl, "PC%zu (%.1f%%)", a + 1, 100 * pca_ratio(r, a));
        snprintf(yl, sizeof yl, "PC%zu (%.1f%%)", b + 1, 100 * pca_ratio(r, b));
        render_scatter s = {.x = x, .y = y, .c = pos, .n = r->n, .cmap = RENDER_CMAP_COOLWARM,
                            .connect = 1, .radius = r->n > 300 ? 2 : 3, .title = title,
                            .xlabel = xl, .ylabel = yl, .cbar_label = _("position")};
        rc = title ? render_scatter_png(&s, out, err) : no_memory(err);
        free(title);
    }
    free(x), free(y), free(pos);
    return rc;
}

int fig_pca_variance_png(const pca_result *r, const char *what, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    size_t n = r->d < 64 ? r->d : 64;
    double *ratio = fig_ramp(2 * n, 0, err), run = 0;
    if (!ratio)
        return G2E_ENOMEM;
    double *cum = ratio + n;
    for (size_t i = 0; i < n; i++) {
        ratio[i] = pca_ratio(r, i);
        cum[i] = (run += ratio[i]);
    }
    char *title = textfmt_printf(_("Explained variance of %s (first %zu of %zu components)"), what, n,
                           r->d);
    render_bars b = {.values = ratio, .n = n, .x0 = 1, .line = cum, .bar_name = _("share"),
                     .line_name = _("cumulative"), .title = title, .xlabel = _("component"),
                     .ylabel = _("fraction of the total variance"), .ymax = 1};
    int rc = title ? render_bars_png(&b, out, err) : no_memory(err);
    free(ratio), free(title);
    return rc;
}

int fig_rope_dot_png(const double *mean, const double *expected, size_t from, size_t n,
                     size_t dim, double base, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    double *x = fig_ramp(n, (double)from, err);
    if (!x)
        return G2E_ENOMEM;
    char *title = textfmt_printf(_("RoPE: mean <R(0)q, R(k)q> of unit q (d=%zu, base %g)"), dim, base);
    render_series s[2] = {{.name = _("sample mean"), .x = x, .y = mean, .n = n},
                          {.name = _("expectation (2/d) PE(0)\xC2\xB7PE(k)"), .x = x, .y = expected, .n = n}};
    render_lines l = {.series = s, .n_series = expected ? 2 : 1, .title = title,
                      .xlabel = _("offset k = m - n"), .ylabel = _("dot product"), .zero_line = 1};
    int rc = title ? render_lines_png(&l, out, err) : no_memory(err);
    free(x), free(title);
    return rc;
}

int fig_rope_rotation_png(const double *xy, size_t n, size_t pair, double theta, size_t dim,
                          render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    double *x = fig_ramp(3 * n, 0, err);
    if (!x)
        return G2E_ENOMEM;
    double *y = x + n, *pos = y + n;
    for (size_t p = 0; p < n; p++)
        x[p] = xy[2 * p], y[p] = xy[2 * p + 1], pos[p] = (double)p;
    char *title = textfmt_printf(_("RoPE pair %zu (d=%zu) turns q by %.4g rad per position"), pair, dim,
                           theta);
    char *xl = textfmt_printf(_("component %zu"), 2 * pair), *yl = textfmt_printf(_("component %zu"), 2 * pair + 1);
    render_scatter s = {.x = x, .y = y, .c = pos, .n = n, .cmap = RENDER_CMAP_COOLWARM,
                        .connect = 1, .unit_circle = 1, .radius = n > 500 ? 2 : 4,
                        .title = title, .xlabel = xl, .ylabel = yl, .cbar_label = _("position")};
    int rc = title && xl && yl ? render_scatter_png(&s, out, err) : no_memory(err);
    free(x), free(title), free(xl), free(yl);
    return rc;
}
