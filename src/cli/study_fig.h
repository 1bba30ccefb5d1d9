/* SPDX-License-Identifier: MIT */
/* study_fig.h — the study figures (fig.h's recipes) written to a file by the commands
 * (stats --by-position, pca, rope): each prints one line on failure and returns -1, else 0. */
#ifndef G2E_STUDY_FIG_H
#define G2E_STUDY_FIG_H

#include "figures.h"
#include "study.h"

static inline int study_fig_norms(const study_norms *sn, const char *model, const char *path)
{
    FIG_WRITE(path, fig_norms_png(sn, model, &png_, &err_));
}
static inline int study_fig_pca_lines(const pca_result *r, size_t first, const char *what,
                                      const char *path)
{
    FIG_WRITE(path, fig_pca_lines_png(r, first, what, &png_, &err_));
}
static inline int study_fig_pca_scatter(const pca_result *r, size_t first, size_t a, size_t b,
                                        const char *what, const char *path)
{
    FIG_WRITE(path, fig_pca_scatter_png(r, first, a, b, what, &png_, &err_));
}
static inline int study_fig_pca_variance(const pca_result *r, const char *what, const char *path)
{
    FIG_WRITE(path, fig_pca_variance_png(r, what, &png_, &err_));
}
static inline int study_fig_rope_dot(const double *mean, const double *expected, size_t from,
                                     size_t n, size_t dim, double base, const char *path)
{
    FIG_WRITE(path, fig_rope_dot_png(mean, expected, from, n, dim, base, &png_, &err_));
}
static inline int study_fig_rope_rotation(const double *xy, size_t n, size_t pair, double theta,
                                          size_t dim, const char *path)
{
    FIG_WRITE(path, fig_rope_rotation_png(xy, n, pair, theta, dim, &png_, &err_));
}

#endif
