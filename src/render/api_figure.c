/* SPDX-License-Identifier: MIT */
/* api_figure.c — the rendering object's door (gpt2embed_figure.h): its calls check their
 * arguments, run the recipe (recipe.h) and hand the PNG over with a public status. */
#include "gpt2embed_figure.h"

#include "recipe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gpt2embed_figure_set_translator(gpt2embed_translate_fn translate)
{
    g2e_set_translator(translate);
}

void gpt2embed_figure_free(void *png)
{
    free(png);
}

/* The recipe's result as the door's: the PNG handed over, or the status and message. */
static gpt2embed_status done(int rc, render_png *p, const g2e_err *e, unsigned char **png,
                             size_t *len, gpt2embed_error *err)
{
    if (rc == 0) {
        *png = p->data, *len = p->len;
        return GPT2EMBED_OK;
    }
    gpt2embed_status s = rc == G2E_ENOMEM ? GPT2EMBED_E_NOMEM
                       : rc == RENDER_E_ARG || rc == G2E_EINVAL ? GPT2EMBED_E_ARG
                                                                : GPT2EMBED_E_INTERNAL;
    if (err) {
        memset(err, 0, sizeof *err);
        err->status = s;
        err->offset = err->index = GPT2EMBED_NONE;
        snprintf(err->message, sizeof err->message, "%s", e->msg);
    }
    return s;
}

/* Clears the outputs; 1 (after filling err) when they are missing. */
static int no_out(unsigned char **png, size_t *len, gpt2embed_error *err, const char *fn)
{
    if (png)
        *png = NULL;
    if (len)
        *len = 0;
    if (png && len)
        return 0;
    if (err) {
        memset(err, 0, sizeof *err);
        err->status = GPT2EMBED_E_ARG;
        err->offset = err->index = GPT2EMBED_NONE;
        snprintf(err->message, sizeof err->message, "%s: NULL argument", fn);
    }
    return 1;
}

gpt2embed_status gpt2embed_figure_order(const float *a, const float *b, size_t n, size_t dim,
                                        const char *const *labels, unsigned char **png, size_t *len,
                                        gpt2embed_error *err)
{
    if (no_out(png, len, err, "gpt2embed_figure_order"))
        return GPT2EMBED_E_ARG;
    render_png p;
    g2e_err e;
    int rc = recipe_order_png(a, b, n, dim, labels, &p, &e);
    return done(rc, &p, &e, png, len, err);
}

gpt2embed_status gpt2embed_figure_rotation(const double *x, const double *y, size_t n, size_t pair,
                                           double omega, size_t dim, double base, unsigned char **png,
                                           size_t *len, gpt2embed_error *err)
{
    if (no_out(png, len, err, "gpt2embed_figure_rotation"))
        return GPT2EMBED_E_ARG;
    render_png p;
    g2e_err e;
    int rc = recipe_rotation_png(x, y, n, pair, omega, dim, base, RENDER_CMAP_COOLWARM, 0, 0, &p, &e);
    return done(rc, &p, &e, png, len, err);
}

gpt2embed_status gpt2embed_figure_by_distance(size_t len, size_t dim, double base, size_t max_d,
                                              const double *sinusoidal, const double *learned,
                                              const char *learned_name, unsigned char **png,
                                              size_t *len_out, gpt2embed_error *err)
{
    if (no_out(png, len_out, err, "gpt2embed_figure_by_distance"))
        return GPT2EMBED_E_ARG;
    render_png p;
    g2e_err e;
    int rc = recipe_by_distance_png(len, dim, base, max_d, sinusoidal, learned, learned_name, 0, 0, &p, &e);
    return done(rc, &p, &e, png, len_out, err);
}

/* The door's calls that run one recipe: the outputs checked, the recipe's result handed over. */
#define FIGURE_CALL(fn, recipe_call)                 \
    if (no_out(png, len, err, fn))                   \
        return GPT2EMBED_E_ARG;                      \
    render_png p;                                    \
    g2e_err e;                                       \
    int rc = recipe_call;                            \
    return done(rc, &p, &e, png, len, err)

gpt2embed_status gpt2embed_figure_pca_components(const double *proj, size_t n, size_t k,
                                                 const double *ratio, size_t first, const char *what,
                                                 unsigned char **png, size_t *len, gpt2embed_error *err)
{
    FIGURE_CALL("gpt2embed_figure_pca_components",
                recipe_pca_lines_png(proj, n, k, ratio, first, what, &p, &e));
}

gpt2embed_status gpt2embed_figure_pca_scatter(const double *proj, size_t n, size_t k, const double *ratio,
                                              size_t first, size_t a, size_t b, const char *what,
                                              unsigned char **png, size_t *len, gpt2embed_error *err)
{
    FIGURE_CALL("gpt2embed_figure_pca_scatter",
                recipe_pca_scatter_png(proj, n, k, ratio, first, a, b, what, &p, &e));
}

gpt2embed_status gpt2embed_figure_pca_variance(const double *ratio, size_t d, const char *what,
                                               unsigned char **png, size_t *len, gpt2embed_error *err)
{
    FIGURE_CALL("gpt2embed_figure_pca_variance", recipe_pca_variance_png(ratio, d, what, &p, &e));
}

gpt2embed_status gpt2embed_figure_wpe_norms(const double *norms, size_t n, double first_vs_median,
                                            const char *model, unsigned char **png, size_t *len,
                                            gpt2embed_error *err)
{
    FIGURE_CALL("gpt2embed_figure_wpe_norms",
                recipe_norms_png(norms, n, first_vs_median, model, &p, &e));
}

gpt2embed_status gpt2embed_figure_rope_dot(const double *mean, const double *expected, size_t from,
                                           size_t n, size_t dim, double base, unsigned char **png,
                                           size_t *len, gpt2embed_error *err)
{
    FIGURE_CALL("gpt2embed_figure_rope_dot",
                recipe_rope_dot_png(mean, expected, from, n, dim, base, &p, &e));
}

gpt2embed_status gpt2embed_figure_rope_rotation(const double *x, const double *y, size_t n, size_t pair,
                                                double theta, size_t dim, unsigned char **png,
                                                size_t *len, gpt2embed_error *err)
{
    FIGURE_CALL("gpt2embed_figure_rope_rotation",
                recipe_rope_rotation_png(x, y, n, pair, theta, dim, &p, &e));
}
