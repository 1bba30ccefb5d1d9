/* SPDX-License-Identifier: MIT */
/* sinusoid_grid.h — one pair of dimensions of the sinusoidal PE as points on the unit circle
 * (the rotation figure, gpt2embed_sinusoid_pair). A companion of sinusoid.h (same
 * parameters, same checks, same values: every row comes from sin_table_row_*). Never prints.
 */
#ifndef G2E_SINUSOID_GRID_H
#define G2E_SINUSOID_GRID_H

#include <stddef.h>

#include "err.h"

/* The pair (2i, 2i+1), i = pair < dim/2, for pos = 0 .. len-1: x[pos] = PE(pos, 2i+1) =
 * cos(pos·ω_i), y[pos] = PE(pos, 2i) = sin(pos·ω_i) (caller's arrays of len). SIN_E_DIM when
 * pair >= dim/2, else as above. */
int sin_pair_points(size_t len, size_t dim, size_t pair, double base, double *x, double *y,
                    g2e_err *err);

#endif
