/* SPDX-License-Identifier: MIT */
/* fig_wpe.c — the figures of GPT-2's learned position embeddings (see fig.h). */
#include "fig.h"

#include "recipe.h"

#include "textfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define _(s) g2e_tr(s)

const char *fig_model_name(const gpt2embed_model *m)
{
    const char *name = gpt2embed_model_name(m);
    return name ? name : _("unnamed model");
}

char *fig_learned_legend(const gpt2embed_model *m)
{
    return textfmt_printf(_("learned wpe (%s)"), fig_model_name(m));
}

/* wpe's first n rows as float32 in a new array, or NULL with err filled. */
static float *load_wpe(const gpt2embed_model *m, size_t n, g2e_err *err)
{
    size_t C = gpt2embed_n_embd(m);
    float *w = malloc((n ? n : 1) * C * sizeof *w);
    gpt2embed_error e;
    if (!w)
        g2e_fail(err, G2E_ENOMEM, "out of memory for %zu values", n * C);
    else if (gpt2embed_rows(m, GPT2EMBED_WPE, 0, n, w, &e)) {
        fig_door_fail(err, &e);
        free(w);
        w = NULL;
    }
    return w;
}

/* err's message as "wpe: MESSAGE" (the library's message names no matrix). */
static int wpe_fail(g2e_err *err, int rc)
{
    g2e_err e = *err;
    return g2e_fail(err, rc, "wpe: %s", e.msg);
}

int fig_wpe_heatmap_png(const gpt2embed_model *m, double percentile, render_cmap cmap, int width,
                        int height, double *q_out, int *fell_back, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    size_t N = gpt2embed_n_ctx(m), C = gpt2embed_n_embd(m);
    if (N > RENDER_MAX_SIDE || C > RENDER_MAX_SIDE)
        return g2e_fail(err, RENDER_E_ARG, "a heatmap draws up to %d positions and dimensions, "
                        "wpe is %zu x %zu", RENDER_MAX_SIDE, N, C);
    if (N > FIG_MAX_CELLS / C)
        return g2e_fail(err, RENDER_E_ARG, "wpe (%zu x %zu) is larger than the figures handle "
                        "(%zu values)", N, C, FIG_MAX_CELLS);
    double q;
    int rc;
    float *wpe = load_wpe(m, N, err);
    if (!wpe)
        return err->code;
    if ((rc = recipe_abs_percentile(wpe, N * C, percentile, &q, fell_back, err))) {
        free(wpe);
        return rc;
    }
    char *title = textfmt_printf(_("Learned position embeddings wpe of %s (%zu positions x %zu dims)"),
                                 fig_model_name(m), N, C);
    char *bar = textfmt_printf(_("wpe value (clipped at \xC2\xB1%.3g = p%g of |x|)"), q, percentile);
    render_heatmap h = {
        .z = wpe, .nx = N, .ny = C, .x_stride = C, .y_stride = 1,
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

int fig_wpe_cosine_png(const gpt2embed_model *m, render_cmap cmap, int width, int height,
                       render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    size_t R = gpt2embed_n_ctx(m);
    if (R > RENDER_MAX_SIDE)
        return g2e_fail(err, RENDER_E_ARG, "a heatmap draws up to %d positions, wpe has %zu",
                        RENDER_MAX_SIDE, R);
    double *M = malloc(R * R * sizeof *M);
    float *wpe = M ? load_wpe(m, R, err) : NULL;
    gpt2embed_error e;
    int rc = !M ? g2e_fail(err, G2E_ENOMEM, "out of memory for a %zu x %zu matrix", R, R)
           : !wpe ? err->code
           : gpt2embed_cosine_matrix(wpe, R, gpt2embed_n_embd(m), M, &e) ? fig_door_fail(err, &e) : 0;
    free(wpe);
    if (rc) {
        free(M);
        return wpe_fail(err, rc);
    }
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

int fig_wpe_by_distance_png(const gpt2embed_model *m, size_t len, size_t max_d, double base,
                            int width, int height, render_png *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (max_d >= len)
        return g2e_fail(err, RENDER_E_ARG, "the largest distance (%zu) must be less than N (%zu)",
                        max_d, len);
    double *learned = malloc((max_d + 1) * sizeof *learned);
    if (!learned)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for %zu points", max_d + 1);
    gpt2embed_error e;
    int rc = gpt2embed_wpe_by_distance(m, len, max_d, learned, NULL, &e) ? fig_door_fail(err, &e) : 0;
    if (rc) {
        free(learned);
        return wpe_fail(err, rc);
    }
    char *legend = fig_learned_legend(m);
    rc = legend ? fig_by_distance_png(len, gpt2embed_n_embd(m), base, max_d, NULL, learned, legend, width,
                                      height, out, err)
                : g2e_fail(err, G2E_ENOMEM, "out of memory for a figure's text");
    free(learned), free(legend);
    return rc;
}
