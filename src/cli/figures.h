/* figures.h — the program's figures, each computed from its data and drawn through plot.h.
 *
 * One function per figure, shared by the commands that offer it (`sinusoidal --plot`,
 * `plot pe`, ...), so that a figure looks the same whichever way it is asked for. The
 * weights-based figures (wpe heatmap, cosine matrix, learned-vs-sinusoidal by distance)
 * take an open model; their numbers come from similarity.c, and fig_learned_by_distance
 * is the one place that turns wpe into the learned curve (the `sinusoidal
 * --compare-learned` table prints exactly what the figure draws).
 *
 * Program wing: each prints one line via cli_error on failure and returns -1, else 0.
 * Deliberately left out: caching (each call reads what it draws from the mapped file).
 */
#ifndef G2E_FIGURES_H
#define G2E_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

/* Largest N*D the PE heatmap computes (floats held at once: 256 MB). */
#define FIG_MAX_CELLS ((size_t)64 << 20)

/* The sinusoidal PE as the first article draws it: x = position 0..len-1, y = dimension
 * 0..dim-1 with 0 at the bottom, colours fixed to [-1, 1]. width/height 0: default. */
int fig_pe_heatmap(size_t len, size_t dim, double base, const char *path, int width, int height);

/* PE(0)·PE(pos) for pos = from..to as a line chart. */
int fig_dot_curve(uint64_t from, uint64_t to, size_t dim, double base, const char *path,
                  int width, int height);

/* The sinusoidal similarity-by-distance curve (mean cosine of PE(p), PE(p+d) over
 * p < len-d, d = 0..max_d) as a line chart. learned (may be NULL) is a second curve on
 * the same axes, learned[d] for d = 0..max_d (e.g. sim_by_distance of GPT-2's wpe cosine
 * matrix, which is defined the same way), named learned_name. */
int fig_by_distance(size_t len, size_t dim, double base, size_t max_d, const double *learned,
                    const char *learned_name, const char *path, int width, int height);

/* The same chart from curves already computed: sinusoidal[d] (required) and learned[d]
 * (may be NULL), d = 0..max_d; len, dim and base only label it. */
int fig_by_distance_curves(size_t len, size_t dim, double base, size_t max_d,
                           const double *sinusoidal, const double *learned,
                           const char *learned_name, const char *path, int width, int height);

/* ---- from GPT-2's weights (opened by the caller, e.g. with load.h's load_model) ---- */

/* A short name for the model in titles and legends: its size name, else "unnamed model". */
void fig_model_name(const g2e_model *m, char *buf, size_t len);

/* The learned similarity-by-distance curve: the cosine matrix of wpe rows 0..len-1
 * (similarity.c, double), then out[d] = mean over p in [0, len-d) of cos(wpe[p], wpe[p+d])
 * for d = 0..max_d (out holds max_d+1 values; the same definition as sin_by_distance).
 * Needs 1 <= len <= n_ctx, max_d < len; a wpe row of zeros is an error (no cosine). */
int fig_learned_by_distance(const g2e_model *m, size_t len, size_t max_d, double *out);

/* GPT-2's wpe as a heatmap: x = position 0..n_ctx-1, y = dimension 0..n_embd-1 with 0 at
 * the bottom (as the PE figure), diverging colours symmetric around 0 and clipped at
 * ±q, q = the `percentile`-th percentile of |wpe| (0 < percentile <= 100); q is stated
 * on the colour bar and in the title. *q_out (may be NULL) receives q. */
/* The `percentile`-th percentile (nearest rank, 0 < percentile <= 100) of |x[i]| over n
 * values: a colour range that one outlier (GPT-2's wpe[0]) cannot wash out. Falls back to
 * the largest finite |x| (or 1) when that is 0, saying so; -1 on out of memory (printed). */
double fig_abs_percentile(const float *x, size_t n, double percentile);

int fig_wpe_heatmap(const g2e_model *m, double percentile, const char *path, int width,
                    int height, double *q_out);

/* The n_ctx x n_ctx cosine-similarity matrix of wpe's rows: x and y the two positions,
 * (0, 0) at the top left so that the diagonal (+1) runs down to the right; colours
 * fixed to [-1, 1]. */
int fig_wpe_cosine(const g2e_model *m, const char *path, int width, int height);

/* The learned curve of m (positions 0..len-1, distances 0..max_d) next to the
 * sinusoidal one of width n_embd and the same length, on one chart. */
int fig_wpe_by_distance(const g2e_model *m, size_t len, size_t max_d, double base,
                        const char *path, int width, int height);

#endif
