/* SPDX-License-Identifier: MIT */
/* fig_wpe.c — the figures of GPT-2's learned position embeddings (see fig.h). */
#include "fig.h"

#include "recipe.h"

#include "similarity.h"

#include "textfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define _(s) g2e_tr(s)

const char *fig_model_name(const g2e_model *m)
{
    return m->size_name ? m->size_name : _("unnamed model");
}

char *fig_learned_legend(const g2e_model *m)
{
    return textfmt_printf(_("learned wpe (%s)"), fig_model_name(m));
}

/* err's message as "wpe: MESSAGE" (the library's message names no matrix). */
static int wpe_fail(g2e_err *err, int rc)
{
    g2e_err e = *err;
    return g2e_fail(err, rc, "wpe: %s", e.msg);
}

int fig_wpe_heatmap_png(const g2e_model *m, double percentile, render_cmap cmap, int width,
                        int height, double *q_out, int *fell_back, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (m->n_ctx > RENDER_MAX_SIDE || m->n_embd > RENDER_MAX_SIDE)
        return g2e_fail(err, RENDER_E_ARG, "a heatmap draws up to %d positions and dimensions, "
                        "wpe is %zu x %zu", RENDER_MAX_SIDE, m->n_ctx, m->n_embd);
    if (m->n_ctx > FIG_MAX_CELLS / m->n_embd)
        return g2e_fail(err, RENDER_E_ARG, "wpe (%zu x %zu) is larger than the figures handle "
                        "(%zu values)", m->n_ctx, m->n_embd, FIG_MAX_CELLS);
    float *wpe = NULL;
    double q;
    int rc = sim_load_wpe(m, &wpe, err);
    if (rc == 0)
        rc = recipe_abs_percentile(wpe, m->n_ctx * m->n_embd, percentile, &q, fell_back, err);
    if (rc) {
        free(wpe);
        return rc;
    }
    char *title = textfmt_printf(_("Learned position embeddings wpe of %s (%zu positions x %zu dims)"),
                                 fig_model_name(m), m->n_ctx, m->n_embd);
    char *bar = textfmt_printf(_("wpe value (clipped at \xC2\xB1%.3g = p%g of |x|)"), q, percentile);
    render_heatmap h = {
        .z = wpe, .nx = m->n_ctx, .ny = m->n_embd, .x_stride = m->n_embd, .y_stride = 1,
        .vmin = -q, .vmax = q, .cmap = cmap, .origin_top = 0,
        .title = title, .xlabel = _("token position"), .ylabel = _("dimension index"),
        .cbar_label = bar, .width = width, .height = height,
    };
    rc = title && bar ? render_heatmap_png(&h, out, err)
                      : g2e_fail(err, G2E_ENOMEM, "out of memory for a figure's text");
    free(wpe), free(title), free(bar);
    if (rc == 0 && q_out)
        *q_out = q;
    return rc;
}

int fig_wpe_cosine_png(const g2e_model *m, render_cmap cmap, int width, int height,
                       render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (m->n_ctx > RENDER_MAX_SIDE)
        return g2e_fail(err, RENDER_E_ARG, "a heatmap draws up to %d positions, wpe has %zu",
                        RENDER_MAX_SIDE, m->n_ctx);
    size_t R = m->n_ctx;
    double *M = NULL;
    int rc = sim_wpe_cosine_matrix(m, R, &M, err);
    if (rc)
        return wpe_fail(err, rc);
    float *z = malloc(R * R * sizeof *z);
    for (size_t i = 0; z && i < R * R; i++)
        z[i] = (float)M[i];
    free(M);
    if (!z)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %zu x %zu matrix", R, R);
    char *title = textfmt_printf(_("Cosine similarity of positions: wpe of %s (%zu x %zu)"),
                                 fig_model_name(m), R, R);
    render_heatmap h = {
        .z = z, .nx = R, .ny = R, .x_stride = 1, .y_stride = R,
        .vmin = -1.0, .vmax = 1.0, .cmap = cmap, .origin_top = 1, .square = 1,
        .title = title, .xlabel = _("position j"), .ylabel = _("position i"),
        .cbar_label = _("cos(wpe[i], wpe[j])"), .width = width, .height = height,
    };
    rc = title ? render_heatmap_png(&h, out, err)
               : g2e_fail(err, G2E_ENOMEM, "out of memory for a figure's text");
    free(z), free(title);
    return rc;
}

int fig_wpe_by_distance_png(const g2e_model *m, size_t len, size_t max_d, double base,
                            int width, int height, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (max_d >= len)
        return g2e_fail(err, RENDER_E_ARG, "the largest distance (%zu) must be less than N (%zu)",
                        max_d, len);
    double *learned = malloc((max_d + 1) * sizeof *learned);
    if (!learned)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for %zu points", max_d + 1);
    int rc = sim_learned_by_distance(m, len, max_d, learned, NULL, err);
    if (rc) {
        free(learned);
        return wpe_fail(err, rc);
    }
    char *legend = fig_learned_legend(m);
    rc = legend ? fig_by_distance_png(len, m->n_embd, base, max_d, NULL, learned, legend, width,
                                      height, out, err)
                : g2e_fail(err, G2E_ENOMEM, "out of memory for a figure's text");
    free(learned), free(legend);
    return rc;
}
