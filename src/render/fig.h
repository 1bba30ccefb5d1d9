/* SPDX-License-Identifier: MIT */
/* fig.h — the figures of gpt2-embed: each one a recipe that asks the library for its numbers
 * (through its door, gpt2embed.h) and composes them
 * into one of render.h's charts, so that a figure looks the same whichever command (or the
 * report) draws it.
 *
 * This is the rendering wing's program-side half: it links no cairo (drawing goes through
 * render_load.c into gpt2-embed-render.so on first use) and it touches no file. Like the
 * library it never prints and never exits: each call returns 0 with the PNG in *out (the
 * caller's: render_png_free), or a status (RENDER_E_*, G2E_ENOMEM, G2E_EINVAL for an error of
 * the library's, whose message it keeps) with a one-line message in err and *out zeroed. Writing the PNG is the program's job.
 * width/height 0: the figure's default.
 *
 * Deliberately left out: caching (each call reads what it draws from the mapped file).
 */
#ifndef G2E_FIG_H
#define G2E_FIG_H

#include <stddef.h>
#include <stdint.h>

#include "gpt2embed.h"
#include "render.h"

/* Largest N*D the PE heatmap computes (floats held at once: 256 MB). */
#define FIG_MAX_CELLS ((size_t)64 << 20)

/* The sinusoidal PE as the article draws it: x = position 0..len-1, y = dimension 0..dim-1
 * with 0 at the bottom, colours fixed to [-1, 1] on cmap, a labelled colour bar. */
int fig_pe_png(size_t len, size_t dim, double base, render_cmap cmap, int width, int height,
               render_png *out, g2e_err *err);

/* PE(0)·PE(pos) for pos = from..to (at most 10^7 positions) as a line chart. */
int fig_dot_curve_png(uint64_t from, uint64_t to, size_t dim, double base, int width, int height,
                      render_png *out, g2e_err *err);

/* The similarity-by-distance chart, d = 0..max_d (max_d < len): sinusoidal[d] (NULL: computed
 * here with gpt2embed_sinusoid_by_distance) and learned[d] (may be NULL: no second curve, legend
 * learned_name, NULL: "learned"); len, dim and base label it. */
int fig_by_distance_png(size_t len, size_t dim, double base, size_t max_d,
                        const double *sinusoidal, const double *learned, const char *learned_name,
                        int width, int height, render_png *out, g2e_err *err);

/* One pair (2i, 2i+1) of the sinusoidal PE as position grows, pos = 0..len-1 (at most 10^6):
 * (cos pos·ω_i, sin pos·ω_i) on the unit circle, coloured by position. */
int fig_rotation_png(size_t len, size_t dim, size_t pair, double base, render_cmap cmap,
                     int width, int height, render_png *out, g2e_err *err);

/* The door's error *e as a figure's error in err: its message, G2E_ENOMEM or G2E_EINVAL. */
int fig_door_fail(g2e_err *err, const gpt2embed_error *e);

/* ---- from GPT-2's weights ---- */

/* A short name for the model in titles and legends: its size name, else "unnamed model"
 * (translated). */
const char *fig_model_name(const gpt2embed_model *m);

/* The legend of m's learned curve, "learned wpe (NAME)" translated: a new string (caller
 * frees), NULL when out of memory. */
char *fig_learned_legend(const gpt2embed_model *m);

/* GPT-2's wpe as a heatmap: x = position, y = dimension (0 at the bottom), colours symmetric
 * around 0 and clipped at ±q, q = the percentile-th percentile of |wpe| (recipe.h's
 * recipe_abs_percentile), stated on the colour bar and in the title. *q_out and *fell_back
 * (each may be NULL) receive q and whether the percentile was 0 and the largest |x| used. */
int fig_wpe_heatmap_png(const gpt2embed_model *m, double percentile, render_cmap cmap, int width,
                        int height, double *q_out, int *fell_back, render_png *out, g2e_err *err);

/* The n_ctx x n_ctx cosine matrix of wpe's rows, (0, 0) at the top left, colours [-1, 1],
 * square cells unless a size is given. */
int fig_wpe_cosine_png(const gpt2embed_model *m, render_cmap cmap, int width, int height,
                       render_png *out, g2e_err *err);

/* The learned curve of m (positions 0..len-1, distances 0..max_d) next to the sinusoidal one
 * of width n_embd and the same length, on one chart. */
int fig_wpe_by_distance_png(const gpt2embed_model *m, size_t len, size_t max_d, double base,
                            int width, int height, render_png *out, g2e_err *err);

/* The order puzzle as the model's input: per position t < n, A's row wte[a_t] + wpe[t], B's,
 * and A - B as colour strips with one range (4 x the median |x| of the two inputs, said in
 * the title), the rows where A and B differ marked. labels: n row labels (may be NULL). */
int fig_order_png(const gpt2embed_model *m, const uint32_t *a, const uint32_t *b, size_t n,
                  const char *const *labels, render_png *out, g2e_err *err);

#endif
