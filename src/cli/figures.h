/* figures.h — the program's figures, each computed from its data and drawn through plot.h.
 *
 * One function per figure, shared by the commands that offer it (`sinusoidal --plot`,
 * `plot pe`, ...), so that a figure looks the same whichever way it is asked for. The
 * weights-based figures (wpe heatmap, cosine matrix, learned-vs-sinusoidal by distance)
 * belong here too once the model view exists; their data comes from similarity.c.
 *
 * Program wing: each prints one line via cli_error on failure and returns -1, else 0.
 */
#ifndef G2E_FIGURES_H
#define G2E_FIGURES_H

#include <stddef.h>
#include <stdint.h>

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

#endif
