/* SPDX-License-Identifier: MIT */
/* study_fig.h — the figures of the study commands (stats --by-position, pca, rope) and the
 * report: numbers from pca.h / rope.h, drawing by the rendering wing (render.h), the PNG
 * written atomically through figures.h's fig_write. One function per figure, so the report
 * shows exactly what the commands draw.
 *
 * Program wing: each prints one line on failure and returns -1, else 0; width/height 0 are
 * the figure's defaults.
 */
#ifndef G2E_STUDY_FIG_H
#define G2E_STUDY_FIG_H

#include <stddef.h>

#include "pca.h"
#include "study.h"

/* The norm of every wpe row against position, position 0 marked as its own point. */
int study_fig_norms(const study_norms *sn, const char *model, const char *path);

/* PC1..PC4 (at most k) of the projections against the position (row i is position
 * first + i). */
int study_fig_pca_lines(const pca_result *r, size_t first, const char *what, const char *path);

/* PC a+1 against PC b+1 (a, b < k), each point coloured by its position (first + i): the
 * helix. */
int study_fig_pca_scatter(const pca_result *r, size_t first, size_t a, size_t b,
                          const char *what, const char *path);

/* The share of the variance of the first min(d, 64) components (bars) and the running sum
 * (line), on [0, 1]. */
int study_fig_pca_variance(const pca_result *r, const char *what, const char *path);

/* The RoPE dot curve: k = from .. from+n-1, the sample mean and the expectation. */
int study_fig_rope_dot(const double *mean, const double *expected, size_t from, size_t n,
                       size_t dim, double base, const char *path);

/* One RoPE pair's path as the position grows: xy[2n] (x, y interleaved), pair, its θ. */
int study_fig_rope_rotation(const double *xy, size_t n, size_t pair, double theta, size_t dim,
                            const char *path);

#endif
