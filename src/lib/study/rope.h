/* SPDX-License-Identifier: MIT */
/* rope.h — the rotary position encoding of RoFormer (Su et al., 2021), in double.
 *
 * A query or key vector x of even width d is not added to a position vector: each pair of
 * its components (x[2i], x[2i+1]) is rotated by the angle pos·θ_i,
 *     R(pos) x:  (x[2i], x[2i+1]) -> (x[2i] cos a − x[2i+1] sin a,  x[2i] sin a + x[2i+1] cos a),
 *     a = pos·θ_i,   θ_i = base^(−2i/d)   (i = 0 .. d/2−1, base 10000 by default),
 * the same frequencies as the sinusoidal encoding (sinusoid.h: θ_i = ω_i, and the angle is
 * computed exactly as there, pos / base^(2i/d)). Since rotations compose,
 * ⟨R(m)q, R(n)k⟩ = ⟨R(m−n)q, k⟩: the attention score depends on the positions only through
 * m − n. rope_check_relative measures how far that holds in floating point;
 * rope_dot_curve the mean ⟨R(0)q, R(k)q⟩ over random unit q, whose expectation is
 * (2/d)·Σ_i cos(k θ_i) = (2/d)·PE(0)·PE(k) of the sinusoidal encoding.
 *
 * Random vectors come from a fixed, seeded generator (splitmix64, written here: a few lines,
 * and the same numbers on every platform, which rand() does not promise), uniform in
 * [−1, 1) per component and then scaled to unit length, so dot products lie in [−1, 1]
 * and deviations are relative to |q||k| = 1.
 *
 * Deliberately left out: other rotary variants (GPT-NeoX's split halves, partial rotary,
 * NTK/YaRN scaling), float32, attention itself.
 */
#ifndef G2E_ROPE_H
#define G2E_ROPE_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "gpt2embed.h"

/* Status codes of this module and the public status each is reported as (err.h). */
#define ROPE_CODES(X) \
    X(ROPE_E_DIM, ARG) /* d zero or odd, beyond the sinusoidal encoding's widest (2^20), or a pair past d/2 */ \
    X(ROPE_E_BASE, ARG) /* base not finite or not > 1 */ \
    X(ROPE_E_LEN, ARG) /* an empty range, no samples, or a position beyond ROPE_MAX_POS */ \
    X(ROPE_E_SIZE, TOO_LARGE) /* the work asked for exceeds the stated limit */
G2E_CODES(ROPE, ROPE_CODES);

/* Positions are converted to double exactly up to 2^53. */
#define ROPE_MAX_POS ((uint64_t)1 << 53)
/* Most rotations one call of the checks may do (d/2 pairs each): about a minute. */
#define ROPE_MAX_WORK ((double)((uint64_t)1 << 32))

/* The frequencies for width d and a base, computed once (the sinusoidal encoding's own
 * denominators base^(2i/d)). Owns div (rope_free). */
typedef struct rope_table {
    size_t dim;
    double *div;   /* (dim/2,) */
} rope_table;

/* Errors: ROPE_E_DIM, ROPE_E_BASE, G2E_ENOMEM; *t zeroed on error. */
int rope_init(rope_table *t, size_t dim, double base, g2e_err *err);
/* Frees and zeroes *t; accepts NULL and a zeroed table. */
void rope_free(rope_table *t);

/* θ_i = 1 / base^(2i/d) for pair i < d/2. */
double rope_theta(const rope_table *t, size_t i);

/* out[d] = R(pos) x[d]; out may be x (in place). pos <= ROPE_MAX_POS (not checked). */
void rope_apply(const rope_table *t, uint64_t pos, const double *x, double *out);

/* splitmix64 step and a random unit vector of width d from it (see the top). */
uint64_t rope_rand_next(uint64_t *state);
void rope_rand_unit(uint64_t *state, size_t d, double *out);

/* The relative check's result (the public gpt2embed_rope_check, gpt2embed.h). */
typedef gpt2embed_rope_check rope_relative;

/* The relative check: n_pairs random unit q, k and positions m, n uniform in [0, max_pos]
 * (seeded); out->rounding_bound and out->relative as rope_rounding_bound and
 * rope_relative_holds say. Errors: ROPE_E_DIM, ROPE_E_BASE, ROPE_E_LEN (n_pairs 0, max_pos > ROPE_MAX_POS),
 * ROPE_E_SIZE (n_pairs · d/2 · 3 rotations > ROPE_MAX_WORK), G2E_ENOMEM. */
int rope_check_relative(size_t dim, double base, uint64_t max_pos, size_t n_pairs, uint64_t seed,
                        rope_relative *out, g2e_err *err);

/* What rounding the angles explains for positions up to max_pos: 16 · DBL_EPSILON ·
 * (max_pos + 1) (each of the three rotations rounds angles of up to max_pos · θ_0 by a few
 * ulps, and |q||k| = 1). */
double rope_rounding_bound(uint64_t max_pos);
/* 1 when r's largest deviation is within rope_rounding_bound(max_pos): the score then depends
 * on m − n alone up to rounding; else 0 (what `rope --check-relative` says follows this). */
int rope_relative_holds(const rope_relative *r, uint64_t max_pos);

/* The dot curve for k = from .. to (inclusive; out arrays hold to−from+1 values, the
 * caller's): mean[j] = the mean over n_samples random unit q (seeded) of ⟨R(0)q, R(from+j)q⟩,
 * computed by rotating; expected[j] (may be NULL) = (2/d) Σ_i cos((from+j) θ_i), the mean over
 * all directions. Errors: ROPE_E_DIM, ROPE_E_BASE, ROPE_E_LEN (from > to, to > ROPE_MAX_POS,
 * n_samples 0), ROPE_E_SIZE (samples · points · d/2 > ROPE_MAX_WORK), G2E_ENOMEM. */
int rope_dot_curve(size_t dim, double base, uint64_t from, uint64_t to, size_t n_samples,
                   uint64_t seed, double *mean, double *expected, g2e_err *err);
/* rope_dot_curve's checks of its arguments alone (0 or its error): to - from + 1 values
 * are then at most 2^32, which a caller allocating the arrays relies on. */
int rope_dot_curve_check(size_t dim, double base, uint64_t from, uint64_t to, size_t n_samples,
                         g2e_err *err);

/* One pair's path as the position grows: the pair (x0, y0) of pair index `pair` rotated by
 * pos·θ_pair for pos = 0 .. n_pos−1, into x[n_pos] and y[n_pos] (the caller's).
 * Errors: ROPE_E_DIM (pair >= d/2 too), ROPE_E_BASE, ROPE_E_LEN (n_pos 0 or > ROPE_MAX_POS). */
int rope_pair_path(size_t dim, double base, size_t pair, double x0, double y0, uint64_t n_pos,
                   double *x, double *y, g2e_err *err);

/* The three position schemes the chapter names, for `rope` and the report: row 0 the names
 * (column 0 empty), then how each enters, its parameters, its length limit, and what the
 * attention score depends on (column 0 the property). English msgids: show them through
 * gettext (an empty cell stays empty). */
#define ROPE_N_SCHEME_ROWS 5
extern const char *const rope_schemes[ROPE_N_SCHEME_ROWS][4];

#endif
