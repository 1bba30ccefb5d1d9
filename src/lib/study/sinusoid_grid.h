/* SPDX-License-Identifier: MIT */
/* sinusoid_grid.h — the sinusoidal PE laid out the way figures draw it: the whole (len, dim)
 * matrix in float32 (the heatmap), and one pair of dimensions as points on the unit circle
 * (the rotation figure). A companion of sinusoid.h (same parameters, same checks, same
 * values: every row comes from sin_table_row_*). Never prints.
 */
#ifndef G2E_SINUSOID_GRID_H
#define G2E_SINUSOID_GRID_H

#include <stddef.h>

#include "err.h"

/* PE(pos, ·) for pos = 0 .. len-1 into out[len * dim] (caller's), float32, row-major.
 * SIN_E_DIM / SIN_E_BASE (sin_check_params), SIN_E_LEN if len == 0, G2E_ENOMEM. */
int sin_matrix_f32(size_t len, size_t dim, double base, float *out, g2e_err *err);

/* The pair (2i, 2i+1), i = pair < dim/2, for pos = 0 .. len-1: x[pos] = PE(pos, 2i+1) =
 * cos(pos·ω_i), y[pos] = PE(pos, 2i) = sin(pos·ω_i) (caller's arrays of len). SIN_E_DIM when
 * pair >= dim/2, else as above. */
int sin_pair_points(size_t len, size_t dim, size_t pair, double base, double *x, double *y,
                    g2e_err *err);

#endif
