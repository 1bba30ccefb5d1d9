/* SPDX-License-Identifier: MIT */
/* figures.h — the program's side of a figure: the recipes are the rendering wing's (fig.h:
 * numbers from the library, composed into charts, errors returned); here the PNG is written
 * atomically with out.h, or the error printed. The fig_* calls below keep the commands'
 * one-line form: each prints one line via cli_error on failure and returns -1, else 0; a
 * failed figure writes nothing (an existing file at path keeps its content). path NULL or
 * "-": standard output (never a terminal). width/height 0: the figure's default.
 */
#ifndef G2E_FIGURES_H
#define G2E_FIGURES_H

#include "fig.h"
#include "recipe.h"

/* Writes png to path atomically (png stays the caller's). 0, or -1 (printed). */
int fig_save(const render_png *png, const char *path);

/* Writes a drawn figure: rc and err are what the render_* / fig_*_png call returned; on
 * success the PNG in *png goes to path (fig_save). *png is freed either way. */
int fig_write(int rc, render_png *png, const g2e_err *err, const char *path);

/* recipe.h's recipe_abs_percentile, printing its note (fallback) or error: q, or -1. */
double fig_abs_percentile(const float *x, size_t n, double percentile);

/* The note when recipe_abs_percentile fell back to the largest |x| (percentile, q). */
void fig_fallback_note(double percentile, double q);

/* The figures of fig.h drawn and written to path (same arguments, same contracts). */
#define FIG_WRITE(path, call)                                 \
    render_png png_;                                          \
    g2e_err err_;                                             \
    return fig_write(call, &png_, &err_, path)

static inline int fig_pe_heatmap(size_t len, size_t dim, double base, const char *path,
                                 int width, int height)
{
    FIG_WRITE(path, fig_pe_png(len, dim, base, RENDER_CMAP_COOLWARM, width, height, &png_, &err_));
}
static inline int fig_dot_curve(uint64_t from, uint64_t to, size_t dim, double base,
                                const char *path, int width, int height)
{
    FIG_WRITE(path, fig_dot_curve_png(from, to, dim, base, width, height, &png_, &err_));
}
/* sinusoidal NULL: computed (fig_by_distance) */
static inline int fig_by_distance_curves(size_t len, size_t dim, double base, size_t max_d,
                                         const double *sinusoidal, const double *learned,
                                         const char *learned_name, const char *path, int width,
                                         int height)
{
    FIG_WRITE(path, fig_by_distance_png(len, dim, base, max_d, sinusoidal, learned, learned_name,
                                        width, height, &png_, &err_));
}
static inline int fig_by_distance(size_t len, size_t dim, double base, size_t max_d,
                                  const double *learned, const char *learned_name,
                                  const char *path, int width, int height)
{
    return fig_by_distance_curves(len, dim, base, max_d, NULL, learned, learned_name, path,
                                  width, height);
}
/* the study figures (stats --by-position, pca, rope): recipe.h's, from the arrays of
 * gpt2embed_wpe_norms, gpt2embed_pca and gpt2embed_rope_* */
static inline int study_fig_norms(const double *norms, size_t n, double first_vs_median,
                                  const char *model, const char *path)
{
    FIG_WRITE(path, recipe_norms_png(norms, n, first_vs_median, model, &png_, &err_));
}
static inline int study_fig_pca_lines(const gpt2embed_pca_result *r, size_t first, const char *what,
                                      const char *path)
{
    FIG_WRITE(path, recipe_pca_lines_png(r->proj, r->n, r->k, r->ratio, first, what, &png_, &err_));
}
static inline int study_fig_pca_scatter(const gpt2embed_pca_result *r, size_t first, size_t a, size_t b,
                                        const char *what, const char *path)
{
    FIG_WRITE(path, recipe_pca_scatter_png(r->proj, r->n, r->k, r->ratio, first, a, b, what, &png_, &err_));
}
static inline int study_fig_pca_variance(const gpt2embed_pca_result *r, const char *what, const char *path)
{
    FIG_WRITE(path, recipe_pca_variance_png(r->ratio, r->d, what, &png_, &err_));
}
static inline int study_fig_rope_dot(const double *mean, const double *expected, size_t from,
                                     size_t n, size_t dim, double base, const char *path)
{
    FIG_WRITE(path, recipe_rope_dot_png(mean, expected, from, n, dim, base, &png_, &err_));
}
static inline int study_fig_rope_rotation(const double *x, const double *y, size_t n, size_t pair,
                                          double theta, size_t dim, const char *path)
{
    FIG_WRITE(path, recipe_rope_rotation_png(x, y, n, pair, theta, dim, &png_, &err_));
}

#endif
