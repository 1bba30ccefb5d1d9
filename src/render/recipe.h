/* SPDX-License-Identifier: MIT */
/* recipe.h — the course's figures composed from arrays: titles, labels, colour ranges and the
 * chart they go on, written once. Two objects compile these recipes: the program (fig.h's
 * figures compute their numbers with the library, then call them) and gpt2-embed-render.so,
 * whose public entry (gpt2embed_figure.h) lets the Python module draw the same figures from
 * the numbers the library's door gave it. So a figure looks the same wherever it is drawn.
 *
 * Like render.h: 0 with the PNG in *out (the caller's: render_png_free), or a status
 * (RENDER_E_*, G2E_ENOMEM) with a one-line message and *out zeroed. Text goes through g2e_tr
 * (the program's catalogue, or the translator the render object was given). Recipes call
 * nothing of the library. width/height 0: the figure's default.
 */
#ifndef G2E_RECIPE_H
#define G2E_RECIPE_H

#include <stddef.h>

#include "render.h"

/* The `percentile`-th percentile (nearest rank, 0 < percentile <= 100) of |x[i]| over the
 * finite values among x[0..n): a colour range that one outlier row (GPT-2's wpe[0]) cannot
 * wash out. When that is 0 (or no value is finite) *q is the largest finite |x| instead, or
 * 1 if that is 0 too, and *fell_back (may be NULL) is set to 1 (else 0) so that the caller
 * can say so. RENDER_E_ARG for a percentile outside (0, 100]; G2E_ENOMEM. */
int recipe_abs_percentile(const float *x, size_t n, double percentile, double *q, int *fell_back,
                          g2e_err *err);

/* The order puzzle as the model's input: per position t < n, A's row xa[t], B's xb[t] (n,
 * dim) and A - B as colour strips with one range (4 x the median |x| of both inputs, said in
 * the title), the rows where A and B differ (in any bit) marked. labels: n or NULL. */
int recipe_order_png(const float *xa, const float *xb, size_t n, size_t dim,
                     const char *const *labels, render_png *out, g2e_err *err);

/* One pair of the sinusoidal encoding as the position grows: the points (x[p], y[p]), p <
 * n, on the unit circle, coloured by position; the pair, the angle it turns per position
 * (omega), dim and base label it. */
int recipe_rotation_png(const double *x, const double *y, size_t n, size_t pair, double omega,
                        size_t dim, double base, render_cmap cmap, int width, int height,
                        render_png *out, g2e_err *err);

/* Similarity by distance, d = 0..max_d: the sinusoidal curve (width dim, base) and, when
 * learned is not NULL, the learned one (legend learned_name, NULL: "learned"), the mean
 * cosine over positions 0..len-1. */
int recipe_by_distance_png(size_t len, size_t dim, double base, size_t max_d,
                           const double *sinusoidal, const double *learned,
                           const char *learned_name, int width, int height, render_png *out,
                           g2e_err *err);

/* from, from + 1, ..., from + n - 1 (an x axis) in a new array of at least one element
 * (caller frees); NULL with G2E_ENOMEM in err when out of memory. */
double *recipe_ramp(size_t n, double from, g2e_err *err);

/* ---- principal components, wpe's norms, RoPE (gpt2embed_pca, gpt2embed_wpe_norms,
 * gpt2embed_rope_*: the arrays they return) ---- */

/* The norm of every wpe row against position, norms[n] (n >= 2), position 0 its own point
 * labelled with first_vs_median (NaN: says the median is 0); model names the weights in the title. */
int recipe_norms_png(const double *norms, size_t n, double first_vs_median, const char *model,
                     render_png *out, g2e_err *err);

/* PC1..PC4 (at most k) of the projections proj (n, k) row-major against the position (row i
 * is position first + i); ratio[k]: each component's share of the variance (legend). what
 * names the rows ("wpe"). */
int recipe_pca_lines_png(const double *proj, size_t n, size_t k, const double *ratio, size_t first,
                         const char *what, render_png *out, g2e_err *err);

/* PC a+1 against PC b+1 (a, b < k) of proj (n, k), each point coloured by its position
 * (first + i). */
int recipe_pca_scatter_png(const double *proj, size_t n, size_t k, const double *ratio, size_t first,
                           size_t a, size_t b, const char *what, render_png *out, g2e_err *err);

/* The share of the variance of the first min(d, 64) components, ratio[d] (bars), and the
 * running sum (line), on [0, 1]. */
int recipe_pca_variance_png(const double *ratio, size_t d, const char *what, render_png *out,
                            g2e_err *err);

/* The RoPE dot curve: k = from .. from+n-1, the sample mean and (may be NULL) the expectation. */
int recipe_rope_dot_png(const double *mean, const double *expected, size_t from, size_t n,
                        size_t dim, double base, render_png *out, g2e_err *err);

/* One RoPE pair's path as the position grows: (x[p], y[p]), p < n, the pair, its theta. */
int recipe_rope_rotation_png(const double *x, const double *y, size_t n, size_t pair, double theta,
                             size_t dim, render_png *out, g2e_err *err);

#endif
