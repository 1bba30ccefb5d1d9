/* SPDX-License-Identifier: MIT */
/* sinusoid.h — the original Transformer's fixed positional encoding and its properties.
 *
 *   PE(pos, 2i)   = sin(pos / base^(2i/D))
 *   PE(pos, 2i+1) = cos(pos / base^(2i/D))          i = 0 .. D/2-1,  ω_i = base^(-2i/D)
 *
 * Everything is computed in double; sin_row_f32 rounds each value once to float32 for
 * the embedding stage (`--pe sinusoidal`), which has no context limit: any position up
 * to SIN_MAX_POS works. The three "properties" functions measure what the seed article
 * shows: PE(0)·PE(pos) (the dot curve), the rotation by ω_i·k that maps PE(pos) to
 * PE(pos+k) in every pair of dimensions, and the mean cosine similarity of positions d
 * apart (the similarity-by-distance curve, computed from the vectors themselves the way
 * it is computed for GPT-2's learned wpe, so the two curves are comparable).
 *
 * Deliberately left out: other encodings (RoPE, ALiBi), the learned side of the
 * comparison (that is similarity.c's, from the weights).
 */
#ifndef G2E_SINUSOID_H
#define G2E_SINUSOID_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* Status codes of this module and the public status each is reported as (err.h). */
#define SIN_CODES(X) \
    X(SIN_E_DIM, ARG) /* D zero or odd */ \
    X(SIN_E_LEN, CONTEXT) /* N (or a range) empty, or a position beyond SIN_MAX_POS */ \
    X(SIN_E_BASE, ARG) /* base not finite or not > 1 */ \
    X(SIN_E_SIZE, TOO_LARGE) /* a size computation overflows, or exceeds a stated limit */
G2E_CODES(SIN, SIN_CODES);

/* Positions are converted to double: every integer up to 2^53 is exact. */
#define SIN_MAX_POS ((uint64_t)1 << 53)
/* Widest D accepted (far beyond any model; keeps D/2 pair loops and buffers sane). */
#define SIN_MAX_DIM ((size_t)1 << 20)
#define SIN_DEFAULT_BASE 10000.0

/* Checks D (even, 1..SIN_MAX_DIM) and base (finite, > 1). 0 or SIN_E_DIM / SIN_E_BASE. */
int sin_check_params(size_t dim, double base, g2e_err *err);

/* ω_i = base^(-2i/D) = 1 / base^(2i/D), for i < D/2. No checks (call sin_check_params). */
double sin_omega(size_t i, size_t dim, double base);

/* The pair a figure of the rotation shows best: i = D/8, which turns by base^(-1/4) per
 * position (0.1 rad at base 10000: a full turn in about 63 positions, so 64-100 points draw
 * the circle as a path). Pair 0 turns by 1 rad per position, a tangle of chords. */
size_t sin_demo_pair(size_t dim);

/* PE(pos, ·) into out[dim], double. Errors: SIN_E_DIM, SIN_E_BASE, SIN_E_LEN (pos >
 * SIN_MAX_POS); out unspecified after an error. */
int sin_row_f64(uint64_t pos, size_t dim, double base, double *out, g2e_err *err);
/* The same rounded once to float32 (round-to-nearest), for the embedding stage. */
int sin_row_f32(uint64_t pos, size_t dim, double base, float *out, g2e_err *err);

/* The wavelength denominators base^(2i/D), i < D/2, computed once, for code that makes
 * many rows (the embedding stage's `--pe sinusoidal`): sin_table_row_f32 gives exactly
 * the bits of sin_row_f32 (the same operations) without D/2 pow calls per row.
 * The table lives in the caller's struct; div is owned (sin_table_free). */
typedef struct sin_table {
    size_t dim;
    double base;
    double *div;      /* dim/2 values */
} sin_table;

/* Errors: SIN_E_DIM, SIN_E_BASE, G2E_ENOMEM; *t is zeroed on error (free is harmless). */
int sin_table_init(sin_table *t, size_t dim, double base, g2e_err *err);
/* Frees t->div and zeroes *t. Accepts NULL and a zeroed table. */
void sin_table_free(sin_table *t);
/* PE(pos, ·) into out[t->dim] as float32. SIN_E_LEN if pos > SIN_MAX_POS. */
int sin_table_row_f32(const sin_table *t, uint64_t pos, float *out, g2e_err *err);
/* The same in double. */
int sin_table_row_f64(const sin_table *t, uint64_t pos, double *out, g2e_err *err);

/* The (len, dim) matrix, rows pos = 0 .. len-1, row-major in out[len*dim] (caller's).
 * SIN_E_LEN if len == 0; SIN_E_SIZE if len*dim overflows size_t. */
int sin_matrix_f64(size_t len, size_t dim, double base, double *out, g2e_err *err);

/* The dot curve: out[j] = PE(0)·PE(from + j) for j = 0 .. to-from (to inclusive), so
 * out holds to-from+1 values (caller's). SIN_E_LEN if from > to or to > SIN_MAX_POS;
 * SIN_E_SIZE if (to-from+1) * D exceeds 2^32 values. */
int sin_dot_curve(uint64_t from, uint64_t to, size_t dim, double base, double *out, g2e_err *err);

/* The rotation check: for every pos in [0, n_pos), k in [0, n_k) and pair i, rotates
 * (PE(pos,2i), PE(pos,2i+1)) by the angle ω_i·k,
 *     (s, c) -> (s·cos ω_i k + c·sin ω_i k,  c·cos ω_i k − s·sin ω_i k),
 * and compares with (PE(pos+k,2i), PE(pos+k,2i+1)). *max_err receives the largest
 * absolute difference of any component; *at_pos, *at_k, *at_i (each may be NULL) where
 * it occurred. SIN_E_LEN if n_pos or n_k is 0 or pos+k would pass SIN_MAX_POS;
 * SIN_E_SIZE if n_pos * n_k * D/2 exceeds 2^32 checks. */
int sin_check_rotation(size_t dim, double base, uint64_t n_pos, uint64_t n_k, double *max_err,
                       uint64_t *at_pos, uint64_t *at_k, size_t *at_i, g2e_err *err);

/* The similarity-by-distance curve over positions 0 .. len-1: for d = 0 .. max_d,
 * out[d] = mean over p in [0, len-d) of cos(PE(p), PE(p+d)), computed from the vectors.
 * out holds max_d+1 values (caller's). SIN_E_LEN if len == 0 or max_d >= len;
 * SIN_E_SIZE if len*dim overflows or the work (len*(max_d+1)*dim) exceeds 2^36 steps;
 * G2E_ENOMEM if the (len, dim) matrix cannot be allocated. */
int sin_by_distance(size_t len, size_t dim, double base, size_t max_d, double *out, g2e_err *err);

#endif
