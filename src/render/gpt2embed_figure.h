/* SPDX-License-Identifier: MIT */
/* gpt2embed_figure.h — the door of the rendering object, gpt2-embed-render.so: the course's
 * figures as PNG bytes, from arrays. The program draws the same figures (one recipe each,
 * recipe.h); this door lets a host that has the numbers from libgpt2embed (the Python
 * module: gpt2embed.course) draw them too, Japanese text included (Pango over fontconfig:
 * DejaVu Sans and IPAGothic, fonts-dejavu-core and fonts-ipafont-gothic).
 *
 *     void *so = dlopen(".../gpt2-embed-render.so", RTLD_NOW | RTLD_LOCAL);
 *     ... dlsym(so, "gpt2embed_figure_rotation") ...
 *
 * The object is found beside the program (a build tree) or in $(LIBDIR)/gpt2-embed after
 * make install; it links cairo, Pango and fontconfig, and nothing of libgpt2embed (only its
 * types are shared, from gpt2embed.h). Like the library it never prints, exits or touches
 * signals, locale or files.
 *
 * Every call returns a gpt2embed_status and fills err (may be NULL) as gpt2embed.h's calls
 * do: GPT2EMBED_E_ARG for arrays or sizes outside the ranges given, GPT2EMBED_E_NOMEM,
 * GPT2EMBED_E_INTERNAL when cairo fails. On success *png is a new buffer of *len bytes, a
 * whole PNG image, freed with gpt2embed_figure_free; on error *png is NULL and *len 0.
 * Arrays are read only during the call. Calls may run on several threads at once.
 */
#ifndef GPT2EMBED_FIGURE_H
#define GPT2EMBED_FIGURE_H

#include "gpt2embed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The translation of the figures' text (titles, axes, legends), as gpt2embed_set_translator
 * does for the library (the two objects keep a translator each); NULL: English. Without one,
 * the object asks gettext's domain "gpt2-embed" (what the program binds). */
GPT2EMBED_API void gpt2embed_figure_set_translator(gpt2embed_translate_fn translate);

/* Frees a PNG a figure call returned; accepts NULL. */
GPT2EMBED_API void gpt2embed_figure_free(void *png);

/* The order puzzle as the model's input (compare --plot, the report's order figure): per
 * position t < n, A's input row a[t] and B's b[t] (n x dim float32, row-major: wte + wpe) and
 * A - B as colour strips with one range, the rows that differ marked; labels: n UTF-8 row
 * labels or NULL. n 1..4096, dim 1..32767. */
GPT2EMBED_API gpt2embed_status gpt2embed_figure_order(const float *a, const float *b, size_t n,
                                                      size_t dim, const char *const *labels,
                                                      unsigned char **png, size_t *len,
                                                      gpt2embed_error *err);

/* One pair of the sinusoidal encoding as the position grows (plot rotation): the points
 * (x[p], y[p]), p < n (gpt2embed_sinusoid_pair's), on the unit circle coloured by position;
 * pair, omega (the angle per position), dim and base label it. n 1..10^6. */
GPT2EMBED_API gpt2embed_status gpt2embed_figure_rotation(const double *x, const double *y, size_t n,
                                                         size_t pair, double omega, size_t dim,
                                                         double base, unsigned char **png,
                                                         size_t *len, gpt2embed_error *err);

/* Learned against sinusoidal (sinusoidal --compare-learned --plot): the mean cosine of
 * positions d apart, d = 0..max_d, sinusoidal[max_d + 1] (width dim, base) and learned (may
 * be NULL; legend learned_name, NULL: "learned"), over positions 0..len-1. max_d < len. */
GPT2EMBED_API gpt2embed_status gpt2embed_figure_by_distance(size_t len, size_t dim, double base,
                                                            size_t max_d, const double *sinusoidal,
                                                            const double *learned,
                                                            const char *learned_name,
                                                            unsigned char **png, size_t *len_out,
                                                            gpt2embed_error *err);

/* ---- principal components, wpe's norms, RoPE (from gpt2embed_pca, gpt2embed_wpe_norms and
 * gpt2embed_rope_*; the figures of pca --plot, stats --by-position --plot, rope --plot) ---- */

/* PC1..PC4 (at most k) against the position: proj (n, k) row-major (gpt2embed_pca_result's
 * proj), ratio[k] each component's share (legend), row i at position first + i; what names
 * the rows in the title ("wpe[1:]"). n 1..10^6, k >= 1. */
GPT2EMBED_API gpt2embed_status gpt2embed_figure_pca_components(const double *proj, size_t n, size_t k,
                                                               const double *ratio, size_t first,
                                                               const char *what, unsigned char **png,
                                                               size_t *len, gpt2embed_error *err);

/* Component b+1 against component a+1 (a != b, both < k) of proj (n, k), each point coloured
 * by its position first + i. */
GPT2EMBED_API gpt2embed_status gpt2embed_figure_pca_scatter(const double *proj, size_t n, size_t k,
                                                            const double *ratio, size_t first, size_t a,
                                                            size_t b, const char *what,
                                                            unsigned char **png, size_t *len,
                                                            gpt2embed_error *err);

/* The share of the variance of the first min(d, 64) components, ratio[d] (bars), and the
 * running sum (line). d >= 1. */
GPT2EMBED_API gpt2embed_status gpt2embed_figure_pca_variance(const double *ratio, size_t d, const char *what,
                                                             unsigned char **png, size_t *len,
                                                             gpt2embed_error *err);

/* The norm of every wpe row against position: norms[n] (n 2..10^6), position 0 its own point
 * labelled first_vs_median (gpt2embed_norm_summary's; NaN: the label says the median is 0);
 * model names the weights. */
GPT2EMBED_API gpt2embed_status gpt2embed_figure_wpe_norms(const double *norms, size_t n,
                                                          double first_vs_median, const char *model,
                                                          unsigned char **png, size_t *len,
                                                          gpt2embed_error *err);

/* The RoPE dot curve: offsets from .. from + n - 1, the sample mean[n] and (may be NULL) the
 * expectation[n]; dim and base label it. n 1..10^6. */
GPT2EMBED_API gpt2embed_status gpt2embed_figure_rope_dot(const double *mean, const double *expected,
                                                         size_t from, size_t n, size_t dim, double base,
                                                         unsigned char **png, size_t *len,
                                                         gpt2embed_error *err);

/* One RoPE pair's path: (x[p], y[p]), p < n (gpt2embed_rope_rotation's), pair, its theta and
 * dim label it. n 1..10^6. */
GPT2EMBED_API gpt2embed_status gpt2embed_figure_rope_rotation(const double *x, const double *y, size_t n,
                                                              size_t pair, double theta, size_t dim,
                                                              unsigned char **png, size_t *len,
                                                              gpt2embed_error *err);

#ifdef __cplusplus
}
#endif

#endif
