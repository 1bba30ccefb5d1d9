/* SPDX-License-Identifier: MIT */
/* figures.h — the program's figures: numbers from the library, drawing by the rendering
 * wing (render.h), the PNG written atomically by out.h.
 *
 * One function per figure, shared by the commands that offer it (`sinusoidal --plot`,
 * `plot pe`, ...), so that a figure looks the same whichever way it is asked for. Each
 * computes nothing itself: sinusoid.h gives the PE, similarity.h the learned curves and
 * the colour range. cairo is not linked here: drawing loads gpt2-embed-render.so on first
 * use (render_load.c).
 *
 * Program wing: each prints one line via cli_error on failure and returns -1, else 0; a
 * failed figure writes nothing (an existing file at path keeps its content). path NULL or
 * "-": standard output (never a terminal). width/height 0: the figure's default.
 * Deliberately left out: caching (each call reads what it draws from the mapped file).
 */
#ifndef G2E_FIGURES_H
#define G2E_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "render.h"

/* Largest N*D the PE heatmap computes (floats held at once: 256 MB). */
#define FIG_MAX_CELLS ((size_t)64 << 20)

/* Writes a drawn figure: rc and err are what the render_* call returned; on success the
 * PNG in *png goes to path atomically. *png is freed either way. */
int fig_write(int rc, render_png *png, const g2e_err *err, const char *path);

/* The sinusoidal PE as the article draws it: x = position 0..len-1, y = dimension 0..dim-1
 * with 0 at the bottom, colours fixed to [-1, 1] on cmap, a labelled colour bar. */
int fig_pe_heatmap_cmap(size_t len, size_t dim, double base, render_cmap cmap, const char *path,
                        int width, int height);
/* The same in the article's coolwarm. */
int fig_pe_heatmap(size_t len, size_t dim, double base, const char *path, int width, int height);

/* PE(0)·PE(pos) for pos = from..to as a line chart. */
int fig_dot_curve(uint64_t from, uint64_t to, size_t dim, double base, const char *path,
                  int width, int height);

/* The sinusoidal similarity-by-distance curve (sin_by_distance), d = 0..max_d, with
 * learned (may be NULL: d = 0..max_d of the same definition) as a second curve. */
int fig_by_distance(size_t len, size_t dim, double base, size_t max_d, const double *learned,
                    const char *learned_name, const char *path, int width, int height);

/* The same chart from curves already computed: sinusoidal[d] (required) and learned[d]
 * (may be NULL), d = 0..max_d; len, dim and base only label it. */
int fig_by_distance_curves(size_t len, size_t dim, double base, size_t max_d,
                           const double *sinusoidal, const double *learned,
                           const char *learned_name, const char *path, int width, int height);

/* One pair (2i, 2i+1) of the sinusoidal PE as position grows: the points
 * (PE(pos, 2i+1), PE(pos, 2i)) = (cos pos·ω_i, sin pos·ω_i) for pos = 0..len-1 on the unit
 * circle, coloured by position: the rotation by a fixed angle per step that makes
 * PE(pos + k) a linear function of PE(pos). */
int fig_rotation(size_t len, size_t dim, size_t pair, double base, render_cmap cmap,
                 const char *path, int width, int height);

/* ---- from GPT-2's weights (opened by the caller, e.g. with load.h's load_model) ---- */

/* A short name for the model in titles and legends: its size name, else "unnamed model". */
void fig_model_name(const g2e_model *m, char *buf, size_t len);

/* similarity.h's sim_learned_by_distance, printing its error: out holds max_d + 1 values. */
int fig_learned_by_distance(const g2e_model *m, size_t len, size_t max_d, double *out);

/* similarity.h's sim_abs_percentile, printing its note (fallback) or error: q, or -1. */
double fig_abs_percentile(const float *x, size_t n, double percentile);

/* GPT-2's wpe as a heatmap: x = position, y = dimension (0 at the bottom), colours
 * symmetric around 0 and clipped at ±q, q = the percentile-th percentile of |wpe|, stated on
 * the colour bar and in the title; *q_out (may be NULL) receives q. */
int fig_wpe_heatmap(const g2e_model *m, double percentile, render_cmap cmap, const char *path,
                    int width, int height, double *q_out);

/* The n_ctx x n_ctx cosine matrix of wpe's rows, (0, 0) at the top left, colours [-1, 1],
 * square cells unless a size is given. */
int fig_wpe_cosine(const g2e_model *m, render_cmap cmap, const char *path, int width, int height);

/* The learned curve of m (positions 0..len-1, distances 0..max_d) next to the sinusoidal
 * one of width n_embd and the same length, on one chart. */
int fig_wpe_by_distance(const g2e_model *m, size_t len, size_t max_d, double base,
                        const char *path, int width, int height);

#endif
