/* SPDX-License-Identifier: MIT */
/* similarity.h — cosine similarity of embedding rows, accumulated in double.
 *
 * Vectors are float32 (as the weights give them); every dot product and norm is
 * accumulated in double, so results agree with a float64 numpy reference to ~1e-12
 * (far inside the 1e-6 the project promises). A zero vector has no cosine: the functions
 * return SIM_E_ZERO and say which vector, never a silent NaN. Nor has a vector holding a NaN
 * or an infinity (weights or a query file can): SIM_E_NONFINITE, said the same way. Every
 * cosine these functions return is therefore a finite number in [-1, 1] up to rounding.
 *
 * Deliberately left out: printing, file formats, tokenizing.
 */
#ifndef G2E_SIMILARITY_H
#define G2E_SIMILARITY_H

#include <stddef.h>
#include <stdint.h>

#include "../../gpt2embed.h"
#include "err.h"
#include "model.h"

/* Status codes of this module and the public status each is reported as (err.h). */
#define SIM_CODES(X) \
    X(SIM_E_ZERO, ZERO_VECTOR) /* a vector with norm 0 */ \
    X(SIM_E_RANGE, ARG) /* a row index or k outside its range */ \
    X(SIM_E_SHAPE, ARG) /* a vector of the wrong length */ \
    X(SIM_E_NONFINITE, ARG) /* a vector holding a NaN or an infinity */
G2E_CODES(SIM, SIM_CODES);

/* sum a[i] * b[i] and sqrt(sum a[i]^2), in double. */
double sim_dot(const float *a, const float *b, size_t n);
double sim_norm(const float *a, size_t n);

/* cos(a, b) into *out. SIM_E_ZERO if either vector is all zeros, SIM_E_NONFINITE if either
 * holds a NaN or an infinity (*out untouched then). */
int sim_cosine(const float *a, const float *b, size_t n, double *out, g2e_err *err);

/* The cosine matrix of the R rows of X (R, C) float32: out (R, R) double, symmetric, with 1
 * on the diagonal (up to rounding). Blocked for the cache; vectorised over output columns
 * (each entry still sums over C in order). SIM_E_ZERO names the first zero row,
 * SIM_E_NONFINITE the first row holding a NaN or an infinity. */
int sim_cosine_matrix(const float *X, size_t R, size_t C, double *out, g2e_err *err);

/* From a cosine matrix M (R, R): for each distance d in [0, R), the mean and the standard
 * deviation (population) of M[p][p + d] over p in [0, R - d). mean/sd hold R doubles each;
 * sd may be NULL. */
void sim_by_distance(const double *M, size_t R, double *mean, double *sd);

/* A row of wte and its cosine with the query: the public gpt2embed_hit itself. */
typedef gpt2embed_hit sim_hit;

/* The k rows of wte nearest to q (n_embd floats) by cosine, best first, into hits[k]; the row
 * `exclude` is skipped (pass UINT32_MAX to skip none). Streams wte once. Rows with norm 0 and
 * rows holding a NaN or an infinity have no cosine and are skipped. *n_hits receives
 * min(k, rows considered). SIM_E_ZERO if q is all zeros, SIM_E_NONFINITE if q holds a NaN or
 * an infinity. */
int sim_nearest(const g2e_model *m, const float *q, size_t k, uint32_t exclude, sim_hit *hits,
                size_t *n_hits, g2e_err *err);

/* Scale of one embedding matrix (wte or wpe): the public gpt2embed_stats itself. */
typedef gpt2embed_stats sim_stats;

/* Stats of wte (which = 0) or wpe (which = 1), streaming the rows once. */
int sim_stats_of(const g2e_model *m, int which, sim_stats *out, g2e_err *err);

/* ---- the learned curves the figures and tables draw (one definition, used everywhere) ---- */

/* Largest len * len a wpe cosine matrix is computed for at once (doubles: 512 MB). */
#define SIM_MAX_MATRIX_CELLS ((size_t)64 << 20)

/* The cosine matrix of wpe rows 0..len-1 (1 <= len <= n_ctx): *out is a new (len, len)
 * row-major double buffer the caller frees (NULL on failure). SIM_E_RANGE for len outside
 * 1..n_ctx or len * len > SIM_MAX_MATRIX_CELLS; SIM_E_ZERO names the first zero row. */
int sim_wpe_cosine_matrix(const g2e_model *m, size_t len, double **out, g2e_err *err);

/* The learned similarity-by-distance curve: for d = 0..max_d, mean[d] (and sd[d], population,
 * if sd is not NULL) of cos(wpe[p], wpe[p + d]) over p in [0, len - d): the same definition
 * as sin_by_distance, so the two curves can share one chart. mean/sd hold max_d + 1 values.
 * Needs 1 <= len <= n_ctx and max_d < len (SIM_E_RANGE); a zero wpe row is SIM_E_ZERO. */
int sim_learned_by_distance(const g2e_model *m, size_t len, size_t max_d, double *mean,
                            double *sd, g2e_err *err);

/* ---- inputs of the model (the commands' numbers) ---- */

/* cos(x0, x1) of two input vectors x_k = wte[id[k]] + wpe[pos[k]] (float32 sums, as the
 * embedding stage adds them), where id[k] < 0 leaves out the token row and pos[k] < 0 the
 * position row (at least one of the two must be given). The rows of vector 0 are checked
 * and read before those of vector 1: SIM_E_RANGE "position P is outside wpe, which has N rows
 * (0..N-1)" or "token ID T is outside wte, which has N rows"; a row the model cannot read
 * gives the model's error; then sim_cosine's SIM_E_ZERO / SIM_E_NONFINITE. */
int sim_input_cosine(const g2e_model *m, const long long id[2], const long long pos[2], double *out,
                     g2e_err *err);

/* The learned curve (sim_learned_by_distance, into learned) and the sinusoidal one of the
 * same width D = n_embd (sin_by_distance, into sinus) over positions 0..len-1, for
 * d = 0..max_d: the two columns of one chart. Errors as those functions give them, the
 * learned curve's prefixed "wpe: ". */
int sim_learned_and_sinusoidal(const g2e_model *m, size_t len, size_t max_d, double base,
                               double *sinus, double *learned, g2e_err *err);

#endif
