/* SPDX-License-Identifier: MIT */
/* pca.c — principal components through the covariance: dsyrk, then dsytrd + dsterf (all
 * eigenvalues) + dstemr (the k largest vectors) + dormtr (back to the original basis).
 * See pca.h for the choice of route and its accuracy. Everything is stored column-major
 * for LAPACK (no transposed copies): a row-major (n, d) matrix is a column-major d × n one,
 * and the symmetric covariance is the same either way.
 */
#include "pca.h"

#include "lapack_dl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pca_free(pca_result *r)
{
    if (!r)
        return;
    free(r->mean);
    free(r->variance);
    free(r->components);
    free(r->proj);
    memset(r, 0, sizeof *r);
}

double pca_ratio(const pca_result *r, size_t i)
{
    return r->total > 0 ? r->variance[i] / r->total : 0;
}

size_t pca_signal_count(const pca_result *r)
{
    size_t k = 0;
    while (k < r->d && r->variance[k] > r->floor)
        k++;
    return k;
}

void pca_variance_rows(const pca_result *r, double *v)
{
    double cum = 0;
    for (size_t i = 0; i < r->d; i++) {
        cum += pca_ratio(r, i);
        v[4 * i] = (double)(i + 1), v[4 * i + 1] = r->variance[i];
        v[4 * i + 2] = pca_ratio(r, i), v[4 * i + 3] = cum;
    }
}

void pca_row_norms(const float *X, size_t n, size_t d, double *norms)
{
    for (size_t r = 0; r < n; r++) {
        double s = 0;
        for (size_t j = 0; j < d; j++)
            s += (double)X[r * d + j] * (double)X[r * d + j];
        norms[r] = sqrt(s);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* mean and coefficient of variation of v[a..b) */
static void mean_cv(const double *v, size_t a, size_t b, double *mean, double *cv)
{
    *mean = *cv = 0;
    if (b <= a)
        return;
    double s = 0, q = 0;
    for (size_t i = a; i < b; i++)
        s += v[i];
    s /= (double)(b - a);
    for (size_t i = a; i < b; i++)
        q += (v[i] - s) * (v[i] - s);
    *mean = s;
    *cv = s != 0 ? sqrt(q / (double)(b - a)) / s : 0;
}

int pca_norm_summarise(const double *norms, size_t n, size_t split, pca_norm_summary *out,
                       g2e_err *err)
{
    memset(out, 0, sizeof *out);
    if (n < 2)
        return g2e_fail(err, PCA_E_SHAPE, "a summary of row norms needs at least 2 rows, got %zu", n);
    double *s = malloc((n - 1) * sizeof *s);
    if (!s)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for %zu norms", n);
    memcpy(s, norms + 1, (n - 1) * sizeof *s);
    qsort(s, n - 1, sizeof *s, cmp_double);
    size_t m = n - 1;
    out->median = m % 2 ? s[m / 2] : 0.5 * (s[m / 2 - 1] + s[m / 2]);
    free(s);
    out->n = n;
    out->split = split < 1 ? 1 : split > n ? n : split;
    out->first = norms[0];
    /* a median of 0 (at least half the rows are zero vectors) leaves the ratio undefined */
    out->first_vs_median = out->median > 0 ? norms[0] / out->median : NAN;
    out->argmax = out->argmin = 1;
    for (size_t i = 2; i < n; i++) {
        if (norms[i] > norms[out->argmax])
            out->argmax = i;
        if (norms[i] < norms[out->argmin])
            out->argmin = i;
    }
    out->max = norms[out->argmax], out->min = norms[out->argmin];
    mean_cv(norms, 1, out->split, &out->mean_early, &out->cv_early);
    mean_cv(norms, out->split, n, &out->mean_late, &out->cv_late);
    return 0;
}

static int check_shape(size_t n, size_t d, size_t k, g2e_err *err)
{
    if (n < 2)
        return g2e_fail(err, PCA_E_SHAPE, "principal components need at least 2 rows, got %zu", n);
    if (d == 0 || d > PCA_MAX_DIM)
        return g2e_fail(err, PCA_E_SHAPE, "principal components need 1..%zu columns, got %zu",
                        PCA_MAX_DIM, d);
    if (n > PCA_MAX_CELLS / d)
        return g2e_fail(err, PCA_E_SHAPE, "a %zu x %zu matrix is more than %zu values", n, d,
                        PCA_MAX_CELLS);
    if (k > d)
        return g2e_fail(err, PCA_E_SHAPE, "%zu components asked of %zu columns", k, d);
    if (n > INT32_MAX || d > INT32_MAX)
        return g2e_fail(err, PCA_E_SHAPE, "matrix too large for LAPACK's 32-bit sizes");
    return 0;
}

/* Flips each of the k columns of Z (d × k, column-major) so that its entry of largest
 * magnitude is positive. */
static void fix_signs(double *Z, size_t d, size_t k)
{
    for (size_t j = 0; j < k; j++) {
        double *z = Z + j * d;
        size_t at = 0;
        for (size_t i = 1; i < d; i++)
            if (fabs(z[i]) > fabs(z[at]))
                at = i;
        if (z[at] < 0)
            for (size_t i = 0; i < d; i++)
                z[i] = -z[i];
    }
}

/* Eigen-decomposition of the covariance C (d × d, lower triangle valid; destroyed):
 * all eigenvalues descending into r->variance, the k largest vectors into r->components. */
static int eigen(const lapack_api *la, double *C, pca_result *r, g2e_err *err)
{
    size_t d = r->d, k = r->k;
    lapack_int n = (lapack_int)d, m = 0, info;
    double *diag = malloc(d * sizeof *diag), *off = malloc(d * sizeof *off);
    double *tau = malloc(d * sizeof *tau), *dd = malloc(d * sizeof *dd);
    double *ee = malloc(d * sizeof *ee), *w = malloc(d * sizeof *w);
    lapack_int *supp = malloc(2 * (k ? k : 1) * sizeof *supp);
    int rc = G2E_ENOMEM;
    if (!diag || !off || !tau || !dd || !ee || !w || !supp) {
        g2e_fail(err, rc, "out of memory for a %zu x %zu eigenproblem", d, d);
        goto done;
    }
    rc = PCA_E_LAPACK;
    if ((info = la->dsytrd(LAPACK_COL_MAJOR, 'L', n, C, n, diag, off, tau)) != 0) {
        g2e_fail(err, rc, "LAPACK dsytrd failed (info %d)", (int)info);
        goto done;
    }
    memcpy(dd, diag, d * sizeof *dd);
    memcpy(ee, off, d * sizeof *ee);
    if ((info = la->dsterf(n, dd, ee)) != 0) {
        g2e_fail(err, rc, "LAPACK dsterf did not converge (info %d)", (int)info);
        goto done;
    }
    for (size_t i = 0; i < d; i++)   /* dsterf sorts ascending */
        r->variance[i] = dd[d - 1 - i];
    if (k > 0) {
        lapack_logical tryrac = 1;
        memcpy(dd, diag, d * sizeof *dd);
        memcpy(ee, off, d * sizeof *ee);
        info = la->dstemr(LAPACK_COL_MAJOR, 'V', 'I', n, dd, ee, 0, 0, n - (lapack_int)k + 1,
                              n, &m, w, r->components, n, (lapack_int)k, supp, &tryrac);
        if (info != 0 || m != (lapack_int)k) {
            g2e_fail(err, rc, "LAPACK dstemr failed (info %d, %d of %zu vectors)", (int)info,
                     (int)m, k);
            goto done;
        }
        info = la->dormtr(LAPACK_COL_MAJOR, 'L', 'L', 'N', n, (lapack_int)k, C, n, tau,
                              r->components, n);
        if (info != 0) {
            g2e_fail(err, rc, "LAPACK dormtr failed (info %d)", (int)info);
            goto done;
        }
        /* dstemr returns ascending order: reverse the columns to largest first */
        for (size_t a = 0, b = k - 1; a < b; a++, b--)
            for (size_t i = 0; i < d; i++) {
                double t = r->components[a * d + i];
                r->components[a * d + i] = r->components[b * d + i];
                r->components[b * d + i] = t;
            }
        fix_signs(r->components, d, k);
    }
    rc = 0;
done:
    free(diag), free(off), free(tau), free(dd), free(ee), free(w), free(supp);
    return rc;
}

/* Centres Xc (n, d) in place (the means into r->mean), forms C, decomposes, projects. */
static int compute_centred(const lapack_api *la, double *Xc, pca_result *r, g2e_err *err)
{
    size_t n = r->n, d = r->d, k = r->k;
    for (size_t r0 = 0; r0 < n; r0++)
        for (size_t j = 0; j < d; j++)
            r->mean[j] += Xc[r0 * d + j];
    for (size_t j = 0; j < d; j++)
        r->mean[j] /= (double)n;
    for (size_t r0 = 0; r0 < n; r0++)
        for (size_t j = 0; j < d; j++)
            Xc[r0 * d + j] -= r->mean[j];
    double *C = malloc(d * d * sizeof *C);
    if (!C)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %zu x %zu covariance", d, d);
    /* column-major: Xc is d × n (lda d); C = Xc Xcᵀ / (n − 1), lower triangle */
    la->dsyrk(CblasColMajor, CblasLower, CblasNoTrans, (int)d, (int)n, 1.0 / (double)(n - 1),
                Xc, (int)d, 0.0, C, (int)d);
    r->total = 0;
    for (size_t j = 0; j < d; j++)
        r->total += C[j * d + j];
    int rc = eigen(la, C, r, err);
    free(C);
    if (rc)
        return rc;
    r->floor = DBL_EPSILON * (double)d * fmax(fabs(r->variance[0]), fabs(r->variance[d - 1]));
    if (k > 0)   /* proj (n, k) = Xc (n, d) · componentsᵀ */
        la->dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)n, (int)k, (int)d, 1.0, Xc,
                    (int)d, r->components, (int)d, 0.0, r->proj, (int)k);
    return 0;
}

static int alloc_result(size_t n, size_t d, size_t k, pca_result *out, g2e_err *err)
{
    out->n = n, out->d = d, out->k = k;
    out->mean = calloc(d, sizeof *out->mean);
    out->variance = calloc(d, sizeof *out->variance);
    out->components = calloc(k ? k * d : 1, sizeof *out->components);
    out->proj = calloc(k ? n * k : 1, sizeof *out->proj);
    if (!out->mean || !out->variance || !out->components || !out->proj) {
        pca_free(out);
        return g2e_fail(err, G2E_ENOMEM, "out of memory for principal components");
    }
    return 0;
}

/* Shared by both entry points: Xc is a fresh (n, d) double copy the call owns. */
static int run(double *Xc, size_t n, size_t d, size_t k, pca_result *out, g2e_err *err)
{
    int rc;
    for (size_t i = 0; i < n * d; i++)
        if (!isfinite(Xc[i])) {
            rc = g2e_fail(err, PCA_E_VALUE, "row %zu, column %zu is %s: no principal components",
                          i / d, i % d, isnan(Xc[i]) ? "NaN" : "infinite");
            goto done;
        }
    /* LAPACKE and BLAS are loaded here, on the first computation (lapack_dl.h) */
    const lapack_api *la = lapack_dl(PCA_E_LIBRARY, err);
    if (!la) {
        rc = err && err->code == G2E_ENOMEM ? G2E_ENOMEM : PCA_E_LIBRARY;   /* no room under ulimit -v */
        goto done;
    }
    if ((rc = alloc_result(n, d, k, out, err)) == 0 && (rc = compute_centred(la, Xc, out, err)) != 0)
        pca_free(out);
done:
    free(Xc);
    return rc;
}

/* PCA of X (n, d) given as doubles (X) or floats (Xf), copied to the matrix run centres. */
static int compute(const double *X, const float *Xf, size_t n, size_t d, size_t k, pca_result *out, g2e_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = check_shape(n, d, k, err);
    if (rc)
        return rc;
    double *Xc = malloc(n * d * sizeof *Xc);
    if (!Xc)
        return g2e_fail(err, G2E_ENOMEM, "out of memory for a %zu x %zu matrix", n, d);
    for (size_t i = 0; i < n * d; i++)
        Xc[i] = X ? X[i] : Xf[i];
    return run(Xc, n, d, k, out, err);
}

int pca_compute(const double *X, size_t n, size_t d, size_t k, pca_result *out, g2e_err *err)
{
    return compute(X, NULL, n, d, k, out, err);
}

int pca_compute_f32(const float *X, size_t n, size_t d, size_t k, pca_result *out, g2e_err *err)
{
    return compute(NULL, X, n, d, k, out, err);
}
