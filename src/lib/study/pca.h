/* SPDX-License-Identifier: MIT */
/* pca.h — principal components of an n × d matrix (rows = samples, e.g. wpe's positions),
 * in double, with LAPACK.
 *
 * The rows are centred (the column means subtracted) and the d × d covariance
 *     C = Xcᵀ Xc / (n − 1)                    (numpy.cov's default, ddof = 1)
 * is formed with BLAS dsyrk; C is reduced once to tridiagonal form (LAPACK dsytrd), all d
 * eigenvalues come from that form (dsterf), the k largest eigenvectors from dstemr (MRRR)
 * and dormtr takes them back to the original basis. That is what dsyevr does inside, split
 * so that one tridiagonalisation gives all eigenvalues and only k vectors.
 *
 * BLAS and LAPACK are whatever Debian's liblapack.so.3 / libblas.so.3 resolve to (the
 * alternatives system), loaded with dlopen on the first computation (lapack_dl.h), so
 * that no other command maps them; tools/install-deps.sh installs the single-threaded
 * OpenBLAS, which is faster than the reference implementation (bench/PROGRAM.md) and has no
 * threads whose scheduling could change a summation order.
 *
 * Why the covariance and not dgesdd on the centred matrix: for 1024 × 768 the covariance
 * route costs one dsyrk (~0.3 GFLOP) and one d × d tridiagonalisation; dgesdd bidiagonalises
 * the whole 1024 × 768 matrix and forms singular vectors, several times slower
 * (bench/PROGRAM.md). The price is accuracy of the
 * smallest components: an eigenvalue of C is good to about ε·d·λ_max in absolute terms
 * (forming C squares the condition number), so a component whose variance is below
 * `floor` (= ε·d·λ_max, reported) is rounding noise, whereas the SVD would resolve
 * singular values down to ε·σ_max. For GPT-2's wpe (n > d, full rank) the spectrum stays
 * far above the floor; for fewer rows than columns (a handful of wte rows) the last
 * d − n + 1 variances are exactly zero in theory and come out at the floor.
 *
 * Components are unit vectors, largest variance first; the sign of each is fixed so that its
 * entry of largest magnitude (the first such, on ties) is positive (a convention: the
 * eigenvector's sign is arbitrary).
 *
 * Deliberately left out: reading weights, printing, scaling the columns (correlation PCA),
 * incremental or randomised PCA, float32 arithmetic.
 */
#ifndef G2E_PCA_H
#define G2E_PCA_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "gpt2embed.h"

/* Status codes of this module and the public status each is reported as (err.h). */
#define PCA_CODES(X) \
    X(PCA_E_SHAPE, ARG) /* n < 2, d == 0, k > d, or n·d / d·d overflows */ \
    X(PCA_E_VALUE, ARG) /* a NaN or infinity in the input (msg: row and column) */ \
    X(PCA_E_LAPACK, ARG) /* a LAPACK routine reported failure (msg: which, info): a matrix it cannot take apart */ \
    X(PCA_E_LIBRARY, UNAVAILABLE) /* LAPACKE or BLAS cannot be loaded (msg: which .so, which package) */
G2E_CODES(PCA, PCA_CODES);

/* Largest n·d accepted (2^28 doubles = 2 GB for the centred copy). */
#define PCA_MAX_CELLS ((size_t)1 << 28)
/* Largest d accepted (the covariance is d × d doubles). */
#define PCA_MAX_DIM ((size_t)1 << 14)

typedef struct pca_result {
    size_t n, d, k;
    double *mean;        /* (d,)   column means that were subtracted                     */
    double *variance;    /* (d,)   eigenvalues of C, descending: the variance along each
                                   component (may be slightly negative at the floor)      */
    double total;        /* the total variance, trace(C) = Σ variance (computed from C)    */
    double floor;        /* ε·d·λ_max: variances below it are rounding noise                */
    double *components;  /* (k, d) row-major, unit rows, sign convention above             */
    double *proj;        /* (n, k) row-major: (x_r − mean)·component_j                      */
} pca_result;

/* Principal components of X (n, d) row-major double, keeping k (0..d) components and the
 * projections on them. On success *out owns its arrays (pca_free); on error *out is zeroed
 * (pca_free harmless) and the status is PCA_E_SHAPE, PCA_E_VALUE, PCA_E_LAPACK,
 * PCA_E_LIBRARY or G2E_ENOMEM. X is not modified. */
int pca_compute(const double *X, size_t n, size_t d, size_t k, pca_result *out, g2e_err *err);

/* The same from float32 rows (e.g. wpe as the weights hold it), widened exactly to double. */
int pca_compute_f32(const float *X, size_t n, size_t d, size_t k, pca_result *out,
                    g2e_err *err);

/* Frees the arrays and zeroes *r. Accepts NULL and a zeroed result. */
void pca_free(pca_result *r);

/* The fraction of the total variance along component i (< d): variance[i] / total
 * (0 when total is 0). */
double pca_ratio(const pca_result *r, size_t i);

/* The number of leading components whose variance is above the rounding-noise floor (n
 * rows, centred, have at most n - 1 that are not noise). */
size_t pca_signal_count(const pca_result *r);

/* The explained-variance table: for each component i < d, the row (i + 1, variance[i],
 * pca_ratio(r, i), the running sum of the ratios) into v (d, 4) row-major (the caller's). */
void pca_variance_rows(const pca_result *r, double *v);

/* The L2 norm of every row of X (n, d) float32, accumulated in double, into norms[n]
 * (the caller's): for wpe, the norm of each position vector against its position. */
void pca_row_norms(const float *X, size_t n, size_t d, double *norms);

/* What a reader looks for in those norms (the public gpt2embed_norm_summary, gpt2embed.h). */
typedef gpt2embed_norm_summary pca_norm_summary;

/* Fills *out for norms[n] with the given split (clamped to [1, n]). PCA_E_SHAPE if n < 2,
 * G2E_ENOMEM. */
int pca_norm_summarise(const double *norms, size_t n, size_t split, pca_norm_summary *out,
                       g2e_err *err);

#endif
